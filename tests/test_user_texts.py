"""Three texts a user meets: `gamespec simulate` when games fail (how many, the first failure at
FILE:LINE:COL, the seed and a command that plays it again, the exit code; no internal words, no
hint that does not fit, option values as a spec writes them), the table's "player N is thinking…"
before a search bot decides (and nothing before an instant one), and one word for a player in the
transcripts and the table ("player N", "you" for the reader)."""
from __future__ import annotations

import io
import json
import os
import re
import shlex

import pytest

import gamespec
from gamespec.bots import RandomBot
from gamespec.bots.base import Bot, may_take_time
from gamespec.cli import main
from gamespec.table.play import Output, Table
from gamespec.table.transcript import Labels, omniscient, transcript

from helpers import ROOT, skip_without_cc

needs_cc = skip_without_cc()

# every game fails: the first `stop` divides by zero
FAILING = """\
name: Failing
players: [2, 3]
options:
  harsh: {default: false}
cards:
  number:
    zone: deck
    faces:
      - {each: {value: [1, 2, 3, 4, 5]}, count: 2}
zones:
  deck: {kind: pile, visibility: hidden}
  hand: {kind: set, per_player: true, visibility: owner}
variables:
  stopped: {per_player: true, initial: 0}
  zero: {initial: 0}
on_begin: "shuffle(deck)"
start: play
phases:
  play:
    turn:
      steps:
        - choose: [draw, stop]
    end_if: "all(stopped[p] == 1 for p in players) or size(deck) == 0"
    next: end
actions:
  draw:
    if: "stopped[actor] == 0"
    effect: "deal(deck, hand[actor])"
  stop:
    effect: "stopped[actor] = STOP"
scoring:
  score: "sum(c.value for c in hand[p])"
"""
ALWAYS = "10 // zero"
SOMETIMES = "1 if size(hand[actor]) != 2 else 1 // zero"     # a stop with two cards in hand fails


def _spec(tmp_path, stop=ALWAYS, name="failing.yaml"):
    path = tmp_path / name
    path.write_text(FAILING.replace("STOP", stop))
    line = next(i for i, x in enumerate(path.read_text().splitlines(), 1) if "stopped[actor] = " in x)
    return str(path), line


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _simulate_all_fail(tmp_path, capsys, engine, *extra):
    path, line = _spec(tmp_path)
    code, out, err = _run(capsys, "simulate", path, "-n", 20, "--seed", 5, "--workers", 1, "--no-progress",
                          "--engine", engine, *extra)
    return path, line, code, out, err


def _check_failure_text(err, path, line, players=2, option=None):
    """stderr of a study whose 20 games (seeds 5..24) all failed: the count, the message at
    FILE:LINE:COL on a line of its own, the command that plays seed 5 again; nothing else."""
    lines = err.splitlines()
    i = lines.index("gamespec: 20 of 20 games failed (seeds 5 to 24):")
    assert re.fullmatch(rf"  {re.escape(path)}:{line}:\d+ \(actions\.stop\.effect\): error: division by zero",
                        lines[i + 1]), lines
    assert lines[i + 2] == "gamespec: to play the first failed game again (seed 5):"
    want = f"  gamespec run {path} --players {players} --seed 5" + \
        (f" --option {option}" if option else "") + " --verbose"
    assert lines[i + 3] == want
    assert len(lines) == i + 4, lines        # nothing after it
    # no Python words, no internal index, no hint that does not fit
    for bad in ("SpecRuntimeError", "Traceback", "False", "True", "rule 20", "--no-trace",
                "played again on the Python engine"):
        assert bad not in err, (bad, err)
    return lines[i + 3].strip()


@pytest.mark.parametrize("engine", [pytest.param("native", marks=needs_cc), "python"])
def test_simulate_when_every_game_fails_says_so_and_how_to_play_one_again(tmp_path, capsys, engine):
    path, line, code, out, err = _simulate_all_fail(tmp_path, capsys, engine)
    assert code == 1
    out_lines = out.splitlines()
    assert out_lines[0] == "Failing: 20 games (seeds 5..24), 2 players, options: harsh=false"
    assert out_lines[1].startswith("  no game finished: all 20 games failed")
    assert out_lines[-1] == "  errors: 20" and len(out_lines) == 3, out_lines      # no table of dashes
    for bad in ("rule 20", "--no-trace", "False", "win rate"):
        assert bad not in out, (bad, out)
    rerun = _check_failure_text(err, path, line)
    # the command given plays that game again, and it fails in the same place
    code, _, err2 = _run(capsys, *shlex.split(rerun)[1:])
    assert code == 1 and "seed 5" in err2 and f"{path}:{line}:" in err2 and "division by zero" in err2


def test_simulate_all_fail_with_an_option_and_json(tmp_path, capsys):
    path, line, code, out, err = _simulate_all_fail(tmp_path, capsys, "python", "--json", "-O", "harsh=true")
    assert code == 1
    r = json.loads(out)                       # stdout stays JSON (its keys unchanged)
    assert r["games_finished"] == 0 and [e["seed"] for e in r["errors"]] == list(range(5, 25))
    assert r["options"] == {"harsh": True} and all("division by zero" in e["error"] for e in r["errors"])
    _check_failure_text(err, path, line, option="harsh=true")


def test_simulate_some_failures_in_words(tmp_path, capsys):
    path, line = _spec(tmp_path, SOMETIMES)
    code, out, err = _run(capsys, "simulate", path, "-n", 40, "--seed", 0, "--workers", 1, "--no-progress",
                          "--engine", "python")
    assert code == 1
    m = re.search(r"unfinished (\d+) \([^)]*: a rule failed in (\d+)\)", out)
    assert m and m.group(1) == m.group(2) and int(m.group(1)) > 0, out
    n = int(m.group(1))
    assert not re.search(r"\brule \d", out) and f"  errors: {n}" in out
    assert f"gamespec: {n} of 40 games failed (seeds " in err and f"  {path}:{line}:" in err
    first = int(re.search(r"games failed \(seeds (\d+)", err).group(1))
    assert f"  gamespec run {path} --players 2 --seed {first} --verbose" in err


def test_a_rotated_study_is_played_again_with_simulate(tmp_path, capsys):
    path, line = _spec(tmp_path)
    code, out, err = _run(capsys, "simulate", path, "-n", 2, "--seed", 3, "--workers", 1, "--no-progress",
                          "--engine", "python", "--bot", "1=greedy", "--rotate")
    assert code == 1 and "all 4 games failed" in out
    assert "gamespec: 4 of 4 games failed (seeds 3, 4):" in err.splitlines()
    cmd = err.splitlines()[-1].strip()
    assert cmd == f"gamespec simulate {path} --players 2 --seed 3 --bot 1=greedy --games 1 --workers 1 --rotate"
    code, out, _ = _run(capsys, *shlex.split(cmd)[1:])
    assert code == 1 and "all 2 games failed" in out


# -- the table: "player N is thinking…" -----------------------------------------------------------
TINY = f"{ROOT}/tests/specs/tiny.yaml"


def _table(kinds, bot=None):
    """A game of Tiny at the terminal, the person at seat 0 always taking option 1; its output."""
    game = gamespec.load(TINY)
    buf = io.StringIO()
    t = Table(game, TINY, 2, 0, 11, game.check_options({}), kinds, out=Output(buf, color=False),
              ask=lambda prompt: "1")
    if bot is not None:
        t.bots[1] = bot
    asked = []
    real = t.bot_turn

    def bot_turn():
        asked.append(len(t.state.legal_actions()))
        n = buf.getvalue().count("is thinking")
        real()
        asked[-1] = (asked[-1], buf.getvalue().count("is thinking") - n)
    t.bot_turn = bot_turn
    assert t.run() == 0 and t.state.is_terminal
    return buf.getvalue(), asked


class Thinker(Bot):
    thinks = True

    def choose(self, view):
        return 0


def test_a_search_bot_is_said_to_think_before_each_decision():
    text, asked = _table(["person", "ismcts:5"])
    assert asked and any(n > 1 for n, _ in asked)
    # one line before each decision with a choice to make, none before a forced one
    assert all(said == (1 if n > 1 else 0) for n, said in asked), asked
    assert text.count("player 1 is thinking…\n") == sum(said for _, said in asked)
    assert "player 0 is thinking" not in text and "you is thinking" not in text


@pytest.mark.parametrize("kinds", [["person", "random"], ["person", "first"], ["person", "greedy"]])
def test_an_instant_bot_is_not_said_to_think(kinds):
    text, asked = _table(kinds)
    assert asked and "thinking" not in text


def test_thinking_is_the_bot_kind_s_attribute():
    from gamespec.bots import make_bot
    assert may_take_time(make_bot("ismcts:5", 1)) and may_take_time(make_bot("ismcts:5/avoid:stop", 1))
    assert not any(may_take_time(make_bot(k, 1)) for k in ("random", "first", "greedy", "random/avoid:stop"))
    assert may_take_time(Thinker()) and not may_take_time(RandomBot(0, 1)) and not may_take_time(object())
    text, asked = _table(["person", "random"], bot=Thinker())       # a user's class that says it thinks
    assert text.count("player 1 is thinking…") == sum(n > 1 for n, _ in asked) > 0


# -- one word for a player ----------------------------------------------------------------------
SEAT_WORD = re.compile(r"\bseats? \d")


def test_transcripts_and_the_table_say_player(tmp_path, capsys):
    game = gamespec.load(f"{ROOT}/games/klink.yaml")
    s = game.new_game(players=3, seed=4, log=True)
    rng = __import__("random").Random(4)
    while not s.is_terminal:
        acts = s.legal_actions()
        s.apply(acts[rng.randrange(len(acts))])
    for reader in (None, 1):
        lines = transcript(omniscient(s) if reader is None else s.log_for(reader), Labels(s.rs), reader)
        assert not [x for x in lines if SEAT_WORD.search(x)]
        decisions = [x for x in lines if re.match(r"^\s*\d+\. ", x)]
        assert decisions and all(re.match(r"^\s*\d+\. (player \d|you): ", x) for x in decisions)
        assert ("you: " in "\n".join(decisions)) == (reader is not None)
        assert lines[-1].startswith("Game over. Scores: player 0 ")
    # gamespec show --for N: the header names the reader as the table does
    log = tmp_path / "g.jsonl"
    assert _run(capsys, "run", f"{ROOT}/games/klink.yaml", "-p", 3, "--seed", 4, "--log", log)[0] == 0
    code, out, _ = _run(capsys, "show", log, "--for", 2)
    assert code == 0 and out.splitlines()[0].endswith("(as player 2 saw it)") and not SEAT_WORD.search(out)
    # the table's own lines, from the start to the end
    text, _ = _table(["person", "ismcts:5"])
    assert "you are player 0" in text and "player 1" in text and not SEAT_WORD.search(text)


def test_the_native_engines_one_line_writes_options_as_the_command_line_does(capsys):
    """'queen_breaks_hearts=false', never Python's 'False' (the line a user copies options from)."""
    import gamespec
    from gamespec.compile import cbuild
    g = gamespec.load(os.path.join(ROOT, "games", "hearts.yaml"))
    rs = g.ruleset(4, g.check_options({"jack_of_diamonds": True}))
    cbuild.tell(g, rs, "a reason")
    err = capsys.readouterr().err
    assert "jack_of_diamonds=true" in err and "queen_breaks_hearts=false" in err, err
    assert "True" not in err and "False" not in err, err
