"""`gamespec play` as a person uses it: driven through a pseudo-terminal (pexpect) to the end of a
game of every spec, undo / save / quit / resume / ?, plain output when not a terminal, and the
screen showing nothing the seat may not know (the leak property for this channel)."""
from __future__ import annotations

import io
import json
import os
import random
import re
import subprocess
import sys

import pytest

from gamespec.bots import RandomBot
from gamespec.table.play import Output, Table
from gamespec.simulate import play

from helpers import GAMES, ROOT, load

pexpect = pytest.importorskip("pexpect")
GAMESPEC = os.path.join(os.path.dirname(sys.executable), "gamespec")
PROMPT = r"Your move \[1-(\d+)(?:, a stage's key, b back)?, h for help\]: "


class First:
    """What the person in these tests does: always the first listed action."""

    def choose(self, view):
        return 0


# the end line, whole: a pattern that stops at the end of what has arrived so far (no newline
# required) could match half of it when the output comes in pieces (a loaded machine)
GAME_OVER = r"Game over\. Scores: [^\r\n]*\r?\n"


def spawn(*args):
    # generous: under a loaded parallel run a start or a screen can take long; a hang still ends
    return pexpect.spawn(GAMESPEC, ["play", *map(str, args)], encoding="utf-8", timeout=300,
                         dimensions=(60, 200), cwd=ROOT, env=dict(os.environ, COLUMNS="200"))


def finish(child):
    """The child's output read to its end, then its exit waited for (close() alone would kill a
    child still exiting and leave no exit status): the exit status."""
    child.expect(pexpect.EOF)
    child.wait()
    child.close()
    return child.exitstatus


def final_scores(text):
    m = re.search(r"Game over\. Scores: (.*)", text)
    assert m, text[-500:]
    return [int(x) for x in re.findall(r"(?:you|player \d+) (-?\d+)", m.group(1))]


def play_to_end(child):
    """Answer 1 at every prompt; returns (number of prompts, the text after the last one)."""
    n = 0
    while True:
        i = child.expect([PROMPT, GAME_OVER])
        if i == 1:
            text = child.after
            finish(child)
            return n, text
        n += 1
        child.sendline("1")


# test specs with out-of-turn decisions (reaction windows)
WINDOW_SPECS = [os.path.join(os.path.dirname(os.path.abspath(__file__)), "specs", f"{n}.yaml")
                for n in ("bluff", "snap")]


@pytest.mark.parametrize("path", GAMES + WINDOW_SPECS[:1], ids=lambda p: os.path.basename(p)[:-5])
def test_play_a_whole_game_in_a_terminal(path):
    g = load(path)
    P, seed = g.min_players, 3
    child = spawn(path, "--players", P, "--seed", seed)
    prompts, text = play_to_end(child)
    assert child.exitstatus == 0
    expected = play(g, P, seed, bots=[First()] + [RandomBot(seed, p) for p in range(1, P)])
    assert final_scores(text) == expected.scores
    assert prompts > 0


UNDO_ANSWERS = [r"Nothing to undo: you have not decided yet\.",
                r"Cannot undo: that decision (?:made something known \(a card shown, or an answer that depends on cards "
                r"not everyone sees\)|led to a shuffle): it can no longer be taken back\.",
                r"Cannot undo: only your own last decision can be taken back, before anyone decides after it "
                r"\((?:player \d+(?: and )?)+ decided since\)\.",
                r"Undone: decision (\d+) is taken back\."]


def test_undo_save_quit_and_resume(tmp_path):
    """`u` follows the rule of every table (gamespec/table/undo.py, as the browser's undo): before
    any decision of mine, nothing to undo; a decision that showed a card, or one after which a bot
    decided, is refused with the reason; my own last decision that showed nothing is taken back
    (the same decision asked again), noted in the history, and the note is saved and resumed."""
    path = os.path.join(ROOT, "games", "bali.yaml")
    save = tmp_path / "game.json"
    child = spawn(path, "--players", 3, "--seed", 5, "--seat", 1, "--bot", "2=greedy")
    child.expect(r"== Bali · you are player 1 · phase \S+ · decision (\d+) ==")
    at = int(child.match.group(1))
    child.expect(PROMPT)
    child.sendline("?")
    child.expect(r"Phase: \S+; step: ")
    answers = [0] * len(UNDO_ANSWERS)
    taken = None
    for _ in range(60):                 # at each prompt: u, then 1 unless it was taken back
        child.expect(PROMPT)
        child.sendline("u")
        k = child.expect(UNDO_ANSWERS)
        answers[k] += 1
        if k == 3:
            taken = int(child.match.group(1))
            child.expect(r"decision (\d+) ==")
            assert int(child.match.group(1)) == taken == at - 1    # asked again: the decision taken back
            child.expect("Since your last look:")
            child.expect(r"↶ you took back decision (\d+)")
            assert int(child.match.group(1)) == taken
            break
        child.expect(PROMPT)
        child.sendline("1")
        child.expect(r"decision (\d+) ==")
        at = int(child.match.group(1))
    assert taken is not None and answers[0] == 1 and answers[1] and answers[2], answers
    print(f"\nundo: {answers[0]} before any decision, {answers[1]} refused (a card shown), {answers[2]} "
          f"refused (a bot decided since), decision {taken} taken back")
    child.expect(PROMPT)
    child.sendline("x")
    child.expect("Not understood")
    at_save = taken                 # saved right after the undo: the note is the last line on resume
    child.expect(PROMPT)
    child.sendline(f"s {save}")
    child.expect("Saved to")
    child.expect(PROMPT)
    child.sendline("q")
    child.expect("You left the table")
    child.expect("File name")        # the log is offered; Enter: none
    child.sendline("")
    assert finish(child) == 0
    data = json.loads(save.read_text())
    assert data["seat"] == 1 and data["bots"] == ["random", "random", "greedy"]
    assert [n["text"] for n in data["notes"]] == [f"player 1 took back decision {taken}"]
    assert len(data["actions"]) == at_save - 1

    child = spawn("--resume", save)
    child.expect(r"decision (\d+) ==")
    assert int(child.match.group(1)) == at_save
    child.expect(r"↶ you took back decision (\d+)")        # the note is resumed with the game
    assert int(child.match.group(1)) == taken
    child.expect(PROMPT)
    child.sendline("u")             # the rule goes on after a resume: the deciders are re-played too
    assert child.expect(UNDO_ANSWERS) != 0
    _, text = play_to_end(child)
    assert child.exitstatus == 0 and len(final_scores(text)) == 3


def test_plain_output_when_not_a_terminal():
    path = os.path.join(ROOT, "games", "klink.yaml")
    p = subprocess.run([GAMESPEC, "play", path, "--players", "3", "--seed", "2"], input="1\n" * 500,
                       capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    assert "Game over. Scores:" in p.stdout and "\x1b[" not in p.stdout
    assert "Your options:" in p.stdout and "   1. " in p.stdout


@pytest.mark.parametrize("how", ["--no-color", "NO_COLOR"])
def test_no_escape_codes_on_a_terminal_when_told(how):
    """On a terminal, --no-color or NO_COLOR=1 give plain text: no colour and no bold or dim either
    (docs/play.md: the game can be scripted)."""
    path = os.path.join(ROOT, "games", "klink.yaml")
    args = ["play", path, "--players", "3", "--seed", "2"] + (["--no-color"] if how == "--no-color" else [])
    env = dict(os.environ, COLUMNS="200", **({"NO_COLOR": "1"} if how == "NO_COLOR" else {}))
    child = pexpect.spawn(GAMESPEC, args, encoding="utf-8", timeout=300, dimensions=(60, 200), cwd=ROOT, env=env)
    child.expect(r"Your move \[")
    seen = child.before
    child.close(force=True)
    assert "Your options:" in seen and "\x1b[" not in seen, repr(seen[:300])


def test_input_ending_leaves_the_table(capsys, monkeypatch):
    from gamespec.cli import main
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert main(["play", os.path.join(ROOT, "games", "klink.yaml"), "--players", "3"]) == 0
    assert "You left the table" in capsys.readouterr().out


@pytest.mark.parametrize("args,msg", [
    (["--players", "3", "--seat", "3"], "no such seat"),
    (["--players", "3", "--bot", "0=greedy"], "which is yours"),
    (["--players", "3", "--bot", "1=clever"], "unknown bot kind"),
])
def test_usage_errors(args, msg, capsys):
    from gamespec.cli import main
    path = os.path.join(ROOT, "games", "klink.yaml")
    assert main(["play", path, *args]) == 2
    err = capsys.readouterr().err
    assert msg in err and "Traceback" not in err


def test_bad_save_files_are_refused(tmp_path, capsys, monkeypatch):
    from gamespec.cli import main
    monkeypatch.chdir(ROOT)
    bad = tmp_path / "bad.json"

    def resume():
        code = main(["play", "--resume", str(bad)])
        return code, capsys.readouterr().err

    bad.write_text("not json")
    code, err = resume()
    assert code == 1 and "not a gamespec save file" in err
    good = {"format": "gamespec-play/1", "spec": "games/klink.yaml", "players": 3, "seat": 0, "seed": 1,
            "options": {}, "bots": ["random", "os:system", "random"], "actions": []}
    bad.write_text(json.dumps(good))
    code, err = resume()
    assert code == 1 and "never loads code" in err
    good["bots"] = ["random"] * 3
    good["actions"] = [{"action": "keep"}]      # not legal at the start of Klink
    bad.write_text(json.dumps(good))
    code, err = resume()
    assert code == 1 and "decision 1 does not apply" in err and "Traceback" not in err
    good["actions"], good["players"] = [], 9
    bad.write_text(json.dumps(good))
    code, err = resume()
    assert code == 1 and "malformed" in err


# ------------------------------------------------------------------------------ the leak property

def screen(table, state):
    out = io.StringIO()
    table.out = Output(out, color=False)
    table.state = state
    table.seen = 0
    table.show(state.view(table.seat))
    return out.getvalue()


def end_screen(table, state):
    """What the person sees when the game is over: the last moves, the final table, the scores."""
    out = io.StringIO()
    table.out = Output(out, color=False)
    table.state = state
    table.seen = 0
    table.show_end()
    return out.getvalue()


@pytest.mark.parametrize("path", GAMES + WINDOW_SPECS, ids=lambda p: os.path.basename(p)[:-5])
def test_screen_shows_only_the_seat_view(path):
    """Determinize for the seat: every character of its screen is unchanged, the end screen (the
    final table) too. Determinize for another seat (which moves cards this seat knows): the screen
    changes somewhere."""
    g = load(path)
    P = g.min_players
    rng = random.Random(7)
    changed = checked = ends = games = 0
    for seed in range(40):          # two games; more while a short game (a poker hand) showed too few screens
        if seed >= 2 and checked >= 5 and changed >= 1:
            break
        games += 1
        s = g.new_game(players=P, seed=seed)
        while not s.is_terminal:
            p = s.current_player
            if rng.random() < 0.12:
                t = Table(g, path, P, p, seed, g.check_options({}), ["random"] * P)
                mine = screen(t, s)
                assert "Your options:" in mine
                assert screen(t, s.view(p).determinize(rng)) == mine
                q = (p + 1) % P
                changed += screen(t, s.view(q).determinize(rng)) != mine
                checked += 1
            acts = s.legal_actions()
            s.apply(acts[rng.randrange(len(acts))])
        for p in range(P):          # the end screen, for every seat
            t = Table(g, path, P, p, seed, g.check_options({}), ["random"] * P)
            mine = end_screen(t, s)
            assert "the final table ==" in mine and "Game over. Scores:" in mine
            for _ in range(3):
                assert end_screen(t, s.view(p).determinize(rng)) == mine, \
                    f"seat {p}'s end screen changes under determinization"
            changed += end_screen(t, s.view((p + 1) % P).determinize(rng)) != mine
            ends += 1
    assert checked >= 5 and changed >= 1 and ends == games * P


# ------------------------------------------------------------------------------ the compact screen

def _screens(child, n):
    """The text of the next n screens (header to prompt), answering 1 each time."""
    out = []
    for _ in range(n):
        i = child.expect([PROMPT, GAME_OVER])
        out.append(child.before)
        if i == 1:
            break
        child.sendline("1")
    return out


@pytest.mark.parametrize("name", ["bali", "klink", "bacchus"])
def test_the_screen_is_compact_and_in_the_specs_words(name):
    path = os.path.join(ROOT, "games", f"{name}.yaml")
    child = spawn(path, "--players", 3, "--seed", 4)
    screens = _screens(child, 6)
    child.expect(PROMPT)
    child.sendline("q")
    child.expect("File name")
    child.sendline("")
    assert finish(child) == 0
    for text in screens[1:]:
        body = text[text.index("== "):]
        lines = [x for x in body.splitlines() if x.strip()]
        table = body[:body.index("Your options:")] if "Your options:" in body else body
        # the table itself stays short (the options are one line each, as many as the rules give)
        assert len([x for x in table.splitlines() if x.strip()]) <= 32, f"a wall of text\n{body}"
        assert not re.search(r"\w\[\w+\]", body), f"an internal zone name on the screen:\n{body}"
        assert not re.search(r"True|False|=true|=false", body), body   # no Python values, no key=value
        others = [x for x in lines if re.match(r"\s+Player \d \(random\)", x)]
        assert len(others) == 2, body                    # the others: one line each
        assert "── You" in body and "── on the table" in body
    words = {"bali": ["Market row 0", "Hand (", "Stock (", "VP 0", "Stones", "Draw pile"],
             "klink": ["Draw pile", "Abilities on offer", "Total 0", "Face up"],
             "bacchus": ["Action cards (", "with a satyr", "Column 0"]}[name]
    for w in words:
        assert w in "".join(screens), w
    assert "start pool" not in "".join(screens) and "had" not in re.findall(r"\b\w+\b", "".join(screens))


def test_the_final_table_and_the_log(tmp_path):
    path = os.path.join(ROOT, "games", "klink.yaml")
    log = tmp_path / "game.jsonl"
    child = spawn(path, "--players", 3, "--seed", 3, "--log", log)
    seen = io.StringIO()
    child.logfile_read = seen
    n, text = play_to_end(child)
    assert child.exitstatus == 0
    before = seen.getvalue()
    g = load(path)
    expected = play(g, 3, 3, bots=[First()] + [RandomBot(3, p) for p in range(1, 3)])
    assert "== Klink · the final table ==" in before
    final = before[before.index("the final table"):]
    for p, score in enumerate(expected.scores):
        assert re.search(rf"{'You' if p == 0 else f'Player {p}'}.*score {score}", final), final
    assert log.exists()
    r = subprocess.run([GAMESPEC, "replay", str(log), "--spec", path], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0 and "OK" in r.stdout, r.stdout + r.stderr
    r = subprocess.run([GAMESPEC, "show", str(log), "--for", "0", "--spec", path], capture_output=True, text=True)
    assert r.returncode == 0 and "Game over. Scores:" in r.stdout


def test_leaving_offers_to_keep_the_log(tmp_path):
    path = os.path.join(ROOT, "games", "bali.yaml")
    log = tmp_path / "left.jsonl"
    child = spawn(path, "--players", 2, "--seed", 6)
    _screens(child, 3)
    child.expect(PROMPT)
    child.sendline("q")
    child.expect("You left the table")
    child.expect(r"Keep this game's log for 'gamespec show'\? File name \(Enter: no\): ")
    child.sendline(str(log))
    child.expect("Log written to")
    assert finish(child) == 0 and log.exists()
    r = subprocess.run([GAMESPEC, "show", str(log), "--for", "0", "--spec", path], capture_output=True, text=True)
    assert r.returncode == 0 and "you: " in r.stdout, r.stdout + r.stderr
    # Enter: no log
    child = spawn(path, "--players", 2, "--seed", 6)
    child.expect(PROMPT)
    child.sendline("q")
    child.expect("File name")
    child.sendline("")
    assert finish(child) == 0 and "Log written" not in child.before


def _scripted(path, players, inputs, seed=1, options=None):
    """A Table fed `inputs` (then q), its output as text."""
    g = load(path)
    buf = io.StringIO()
    feed = iter(list(inputs) + ["q"])
    t = Table(g, path, players, 0, seed, g.check_options(options or {}), ["random"] * players,
              out=Output(buf, color=False), ask=lambda prompt: next(feed))
    t.run()
    return buf.getvalue()


def test_the_rulebook_is_offered_on_the_first_screen_by_section_and_each_option_in_words():
    # issue 41: a newcomer is told of the rules at once, reads them by section, asks what an option does
    path = os.path.join(ROOT, "games", "no_thanks.yaml")
    text = _scripted(path, 3, ["r", "r 8", "? 2", "?1", "? 9", "r 99"])
    first = text[:text.index("Your options:")]
    assert "Type r for its rulebook" in first
    assert re.search(r"^\s+\d+\. Actions$", text, re.M) and re.search(r"^\s+\d+\. Scoring$", text, re.M)
    assert "-- No Thanks!: Actions --" in text          # r 8: the section, in explain's words
    from gamespec.authoring.rulebook import explain
    book = explain(load(path), 3)
    take = text[text.index("Option 2: "):]
    assert "Effect:" in take and "Effect:" in book
    # ? N gives that option's action, not the others
    one = text[text.index("Option 1: "):text.index("Option 1: ") + 400]
    assert "chips" in one
    assert "? N explains option N: N is 1 to 2." in text and "No section '99'" in text


def test_each_round_end_says_what_it_scored_how_and_who_did_best():
    # issue 41: a phase with an on_end (Sushi Go's round) ends with its figures, the rules' words, the best
    path = os.path.join(ROOT, "games", "sushi_go.yaml")
    text = _scripted(path, 3, ["1"] * 200, seed=1)
    ends = text.split("── the round phase ends ──")[1:]
    assert len(ends) == 3                       # three rounds, each said once
    for block in ends:
        block = block[:block.index("==")]
        pts = dict(re.findall(r"(you|player \d) (\d+)", block.splitlines()[1]))
        assert block.splitlines()[1].startswith("  Last round (round_pts): ") and len(pts) == 3
        assert "how (the rules):" in block and "round_pts" in block.split("how (the rules):")[1]
        best = re.search(r"best round_pts this round: (.*) \((\d+)\)", block)
        assert int(best.group(2)) == max(map(int, pts.values()))
        assert all(pts[w] == best.group(2) for w in best.group(1).split(" and "))
