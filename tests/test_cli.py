"""The `gamespec` command line (gamespec/cli.py), run in-process through `main([...])` with capsys,
plus a few runs of `python -m gamespec` in a subprocess. Few games each: the file runs in seconds."""
from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import gamespec
from gamespec.cli import main
from gamespec import simulate as sim
from gamespec.bots import RandomBot

ROOT = Path(__file__).resolve().parent.parent
BACCHUS = str(ROOT / "games" / "bacchus.yaml")

# A small valid spec with one boolean option; the bad specs below are one-line edits of it.
MINI = """\
name: Mini
players: [2, 3]
options:
  bonus: {default: false, doc: "adds a 5"}
cards:
  token:
    zone: deck
    faces:
      - {each: {value: [1, 2, 3]}, count: 2}
      - {value: 5, count: 1, if: "bonus"}
zones:
  deck: {kind: pile, visibility: hidden}
  column: {kind: pile, count: 2, visibility: public}
  hand: {kind: set, per_player: true, visibility: owner}
variables:
  points: {per_player: true, initial: 0}
on_begin: |
  shuffle(deck)
start: play
phases:
  play:
    turn:
      steps:
        - choose: [take]
    end_if: "size(deck) == 0"
    next: end
actions:
  take:
    label: "take to {col}"
    params:
      col: {zone: column}
    effect: |
      let c = top(deck)
      move(c, hand[actor])
      points[actor] += c.value
scoring:
  score: "points[p]"
  winner: highest
"""


def write_spec(tmp_path, name, old=None, new=None):
    text = MINI
    if old is not None:
        assert old in text
        text = text.replace(old, new)
    path = tmp_path / name
    path.write_text(text)
    return str(path), text


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


# ------------------------------------------------------------------------------ general

def _pyproject_version():
    return re.search(r'^version\s*=\s*"([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M).group(1)


def test_version(capsys):
    code, out, _ = run(capsys, "--version")
    installed = importlib.metadata.version("gamespec")
    assert code == 0 and out == f"gamespec {installed}\n"
    assert gamespec.__version__ == installed == _pyproject_version()


def test_version_comes_from_the_package_metadata(capsys, monkeypatch):
    monkeypatch.setattr(importlib.metadata, "version", lambda name: "9.8.7" if name == "gamespec" else None)
    assert gamespec.__version__ == "9.8.7"
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out == "gamespec 9.8.7\n"


def test_version_of_a_checkout_that_is_not_installed(monkeypatch):
    def missing(name):
        raise importlib.metadata.PackageNotFoundError(name)
    monkeypatch.setattr(importlib.metadata, "version", missing)
    assert gamespec.__version__ == _pyproject_version()


def test_version_is_written_in_one_place():
    v = _pyproject_version()
    for path in sorted(ROOT.glob("gamespec/**/*.py")) + sorted(ROOT.glob("interpreter/**/*.py")):
        assert f'"{v}"' not in path.read_text(encoding="utf-8"), f"{path} repeats the version {v}"


@pytest.mark.parametrize("command", ["validate", "run", "simulate", "graph", "replay"])
def test_every_command_has_help_with_an_example(capsys, command):
    code, out, _ = run(capsys, command, "--help")
    assert code == 0
    assert f"usage: gamespec {command}" in out and "example" in out and "gamespec " + command in out


def test_no_command_is_a_usage_error(capsys):
    code, _, err = run(capsys)
    assert code == 2 and "usage:" in err


def test_unexpected_exception_is_an_internal_error(capsys, monkeypatch):
    def boom(args):
        raise RuntimeError("kaput")
    from gamespec.commands import validate
    monkeypatch.setattr(validate, "cmd_validate", boom)
    code, _, err = run(capsys, "validate", BACCHUS)
    assert code == 2
    assert "gamespec: internal error: RuntimeError: kaput" in err and "Traceback" in err


# ------------------------------------------------------------------------------ validate

def test_validate_ok(capsys, tmp_path):
    mini, _ = write_spec(tmp_path, "mini.yaml")
    code, out, err = run(capsys, "validate", BACCHUS, mini)
    assert code == 0 and err == ""
    assert out.splitlines() == [f"{BACCHUS}: ok", f"{mini}: ok"]


def test_validate_json(capsys, tmp_path):
    bad, _ = write_spec(tmp_path, "bad.yaml", "move(c, hand[actor])", "move(c, colum[0])")
    code, out, err = run(capsys, "validate", "--json", BACCHUS, bad)
    assert code == 1
    report = json.loads(out)
    assert report["ok"] is False
    good, wrong = report["files"]
    assert good["ok"] and good["game"] == "Bacchus" and good["players"] == [3, 5] and good["errors"] == []
    assert not wrong["ok"] and wrong["errors"][0]["message"].startswith("unknown name 'colum'")
    assert wrong["errors"][0]["check"] == "name"


def _pos(text, line_start, token):
    """1-based (line, col) of the last `token` in the first line starting with `line_start`."""
    for i, line in enumerate(text.splitlines(), 1):
        if line.startswith(line_start):
            return i, line.rindex(token) + 1
    raise AssertionError(line_start)


@pytest.mark.parametrize("case", ["yaml", "schema", "syntax", "zone"])
def test_validate_reports_file_line_col(capsys, tmp_path, case):
    if case == "yaml":      # an unclosed flow mapping: reported where the parser gives up
        path, text = write_spec(tmp_path, "y.yaml", "visibility: hidden}", "visibility: hidden")
        line, col = _pos(text, "  column:", ": {")
        want = None
    elif case == "schema":  # an unknown key
        path, text = write_spec(tmp_path, "s.yaml", "initial: 0}", "initial: 0, colour: red}")
        line, col = _pos(text, "  points:", "colour")
        want = "unknown key 'colour'"
    elif case == "syntax":  # a rule that ends too early
        path, text = write_spec(tmp_path, "r.yaml", "+= c.value", "+= c.value +")
        line, col = _pos(text, "      points[actor]", "+")   # the dangling '+' (or just after it)
        want = None
    else:                   # an unknown zone name, with a did-you-mean
        path, text = write_spec(tmp_path, "z.yaml", "move(c, hand[actor])", "move(c, colum[0])")
        line, col = _pos(text, "      move(c, colum", "colum")
        want = "unknown name 'colum'; did you mean 'column'?"
    code, out, err = run(capsys, "validate", path)
    assert code == 1 and out == ""
    lines = err.splitlines()
    assert lines and all(re.match(r"^.+:\d+:\d+: error: .+", x) for x in lines), err
    m = re.match(rf"^{re.escape(path)}:(\d+):(\d+): error: (.+)$", lines[0])
    assert m, lines[0]
    assert int(m.group(1)) == line
    if case == "syntax":
        assert int(m.group(2)) in (col, col + 1)
    else:
        assert int(m.group(2)) == col
    if want:
        assert want in m.group(3)
    assert "Traceback" not in err


def test_validate_mixed_and_missing_files(capsys, tmp_path):
    missing = str(tmp_path / "nope.yaml")
    code, out, err = run(capsys, "validate", BACCHUS, missing)
    assert code == 1
    assert out.strip() == f"{BACCHUS}: ok"
    assert err.strip() == f"{missing}:1:1: error: cannot open the file: No such file or directory"


def test_validate_reports_a_rule_failing_when_the_rules_are_built(capsys, tmp_path):
    # the card's zone rule divides by zero: only building the rules shows it
    path, _ = write_spec(tmp_path, "zr.yaml", "    zone: deck\n", "    zone: \"column[1 // (1 - 1)]\"\n")
    try:
        gamespec.load(path)
    except gamespec.SpecErrors:
        pytest.skip("the checker already rejects this spec statically")
    code, _, err = run(capsys, "validate", path)
    assert code == 1
    assert re.match(rf"^{re.escape(path)}:\d+:\d+: error: .*\(in .*with 2 players", err), err


# ------------------------------------------------------------------------------ run

def test_run_prints_the_outcome(capsys):
    code, out, err = run(capsys, "run", BACCHUS, "--seed", 3)
    assert code == 0 and err == ""
    assert "Bacchus: 3 players, seed 3" in out
    assert len(re.findall(r"^  seat \d: +\d+", out, re.M)) == 3
    assert "winner" in out and "decisions" in out


def test_run_json_matches_play_one(capsys):
    code, out, _ = run(capsys, "run", BACCHUS, "--players", 4, "--seed", 11, "--json")
    assert code == 0
    r = json.loads(out)
    assert r["players"] == 4 and r["seed"] == 11 and len(r["scores"]) == 4 and r["winners"]
    # `run` builds every observation; the outcome is the same as without them
    one = sim.play_one(gamespec.load(BACCHUS), 4, 11)
    assert (r["scores"], r["winners"], r["decisions"]) == (one["scores"], one["winners"], one["decisions"])


STALEMATE = str(ROOT / "tests" / "specs" / "stalemate.yaml")     # scoring.no_winner_if: a drawn hand


def test_run_json_of_a_game_nobody_won(capsys):
    """Seed 1 of Stalemate runs the deck out (a drawn hand: nobody wins); seed 3 is won by seat 0."""
    code, out, _ = run(capsys, "run", STALEMATE, "--seed", 1, "--json")
    r = json.loads(out)
    assert code == 0 and r["winners"] == [] and len(r["scores"]) == 2
    code, out, _ = run(capsys, "run", STALEMATE, "--seed", 3, "--json")
    assert code == 0 and json.loads(out)["winners"] == [0]


def test_run_says_no_winner_in_words(capsys):
    code, out, _ = run(capsys, "run", STALEMATE, "--seed", 1)
    assert code == 0
    [line] = [x for x in out.splitlines() if "decisions" in x]
    assert line.startswith("no winner; ") and " decisions, " in line, out
    assert "winner:" not in out and not re.search(r"^  seat \d: +-?\d+ +winner", out, re.M), out
    code, out, _ = run(capsys, "run", STALEMATE, "--seed", 3)
    assert "\nwinner: seat 0; " in out and "no winner" not in out, out


def test_run_writes_logs(capsys, tmp_path):
    full, seat1 = tmp_path / "full.jsonl", tmp_path / "seat1.jsonl"
    code, out, _ = run(capsys, "run", BACCHUS, "--seed", 5, "--log", full, "--log-for", 1, seat1)
    assert code == 0
    lines = read_jsonl(full)
    assert lines[0]["type"] == "header" and lines[-1]["type"] == "end"
    assert lines[0]["seed"] == 5 and "cards" in lines[0]
    assert any(x["type"] == "decision" for x in lines)
    mine = read_jsonl(seat1)
    assert mine[0]["type"] == "header" and mine[-1]["type"] == "end"
    assert "cards" not in mine[0] and "seed" not in mine[0] and mine[0]["for_player"] == 1
    assert mine[-1] == lines[-1]
    # the same seed gives the same log
    again = tmp_path / "again.jsonl"
    assert main(["run", BACCHUS, "--seed", "5", "--log", str(again)]) == 0
    assert again.read_text() == full.read_text()


def test_run_log_for_a_seat_that_does_not_exist(capsys, tmp_path):
    code, _, err = run(capsys, "run", BACCHUS, "--log-for", 3, tmp_path / "x.jsonl")
    assert code == 2 and "no such seat" in err and "0 to 2" in err


def test_run_unknown_option(capsys, tmp_path):
    code, _, err = run(capsys, "run", BACCHUS, "--option", "foo=1")
    assert code == 2
    assert err.strip() == "gamespec: error: unknown option 'foo': Bacchus has no options"
    mini, _ = write_spec(tmp_path, "mini.yaml")
    code, _, err = run(capsys, "run", mini, "--option", "bonsu=1")
    assert code == 2
    assert "unknown option 'bonsu'; did you mean 'bonus'?" in err and "bonus (default false)" in err
    code, _, err = run(capsys, "run", mini, "--option", "bonus=maybe")
    assert code == 2 and "option 'bonus' is true or false" in err
    code, out, _ = run(capsys, "run", mini, "--option", "bonus=true", "--json")
    assert code == 0 and json.loads(out)["options"] == {"bonus": True}


def test_option_syntax_is_a_usage_error(capsys):
    code, _, err = run(capsys, "run", BACCHUS, "--option", "foo")
    assert code == 2 and "NAME=VALUE" in err


@pytest.mark.parametrize("command", ["run", "simulate"])
def test_bad_player_count(capsys, command):
    code, _, err = run(capsys, command, BACCHUS, "--players", 7)
    assert code == 2
    assert err.strip() == "gamespec: error: Bacchus is for 3 to 5 players, not 7"


def test_run_missing_file_and_spec_error(capsys, tmp_path):
    code, _, err = run(capsys, "run", tmp_path / "nope.yaml")
    assert code == 1 and len(err.splitlines()) == 1 and "cannot open the file" in err
    bad, _ = write_spec(tmp_path, "bad.yaml", "move(c, hand[actor])", "move(c, colum[0])")
    code, _, err = run(capsys, "run", bad)
    assert code == 1 and "did you mean 'column'" in err and "Traceback" not in err


def test_run_failing_rule_is_reported_and_the_partial_log_kept(capsys, tmp_path):
    path, _ = write_spec(tmp_path, "div.yaml", "+= c.value", "+= c.value // (c.value - c.value)")
    log = tmp_path / "div.jsonl"
    code, _, err = run(capsys, "run", path, "--log", log, "--seed", 0)
    assert code == 1
    assert "the game failed (seed 0" in err and "division by zero" in err and "Traceback" not in err
    assert read_jsonl(log)[0]["type"] == "header"


# ------------------------------------------------------------------------------ simulate

def _sim_json(capsys, *extra):
    code, out, err = run(capsys, "simulate", BACCHUS, "--games", 12, "--players", 4, "--seed", 7,
                         "--json", *extra)
    return code, json.loads(out), err


def test_simulate_json(capsys):
    code, r, err = _sim_json(capsys, "--workers", 1)
    assert code == 0 and err == ""
    assert r["games_requested"] == 12 and r["games_finished"] == 12 and r["errors"] == []
    for key in ("win_rate", "score_mean", "score_min", "score_max"):
        assert len(r[key]) == 4
    assert sum(r["win_rate"]) == pytest.approx(1.0)
    assert all(lo <= m <= hi for lo, m, hi in zip(r["score_min"], r["score_mean"], r["score_max"]))
    assert r["decisions_mean"] > 0 and r["games_per_second"] > 0 and r["seconds"] > 0
    # the numbers are those of the games played one by one
    game = gamespec.load(BACCHUS)
    games = [sim.play_one(game, 4, s) for s in range(7, 19)]
    assert r["decisions_mean"] == sum(g["decisions"] for g in games) / 12
    assert r["score_max"] == [max(g["scores"][p] for g in games) for p in range(4)]


def test_simulate_is_identical_for_one_and_two_workers(capsys):
    _, one, _ = _sim_json(capsys, "--workers", 1)
    code, two, _ = _sim_json(capsys, "--workers", 2)
    assert code == 0 and two["workers"] == 2
    for r in (one, two):
        for k in sim.TIMING_FIELDS:
            r.pop(k)
    assert one == two


def test_simulate_text_output(capsys):
    code, out, err = run(capsys, "simulate", BACCHUS, "--games", 3, "--workers", 1, "--seed", 0)
    assert code == 0 and err == ""     # stderr is no terminal here: no progress bar
    assert "Bacchus: 3 games (seeds 0..2), 3 players" in out
    assert "win rate" in out and "games/s" in out and "errors: 0" in out


def test_simulate_reports_failing_games(capsys, tmp_path):
    path, _ = write_spec(tmp_path, "div.yaml", "+= c.value", "+= c.value // (c.value - c.value)")
    code, out, err = run(capsys, "simulate", path, "--games", 3, "--workers", 1, "--json", "--seed", 0)
    assert code == 1
    r = json.loads(out)
    assert r["games_finished"] == 0 and [e["seed"] for e in r["errors"]] == [0, 1, 2]
    assert "division by zero" in r["errors"][0]["error"]
    assert "seeds 0, 1, 2" in err and "division by zero" in err


def test_simulate_internal_error_exits_2(capsys, monkeypatch):
    def broken(game, players, seed, options=None, bots=None, timeout=None, ticks=None, **kw):
        raise KeyError("oops")
    monkeypatch.setattr(sim, "play_one", broken)      # (the Python engine's games: native ones do not call it)
    code, _, err = run(capsys, "simulate", BACCHUS, "--games", 2, "--workers", 1, "--no-progress",
                       "--engine", "python")
    assert code == 2 and "internal error" in err and "KeyError" in err


def test_simulate_api_progress_and_defaults():
    calls = []
    r = sim.simulate(BACCHUS, games=3, seed=2, workers=1, progress=lambda d, t: calls.append((d, t)))
    assert r["players"] == 3 and r["games_finished"] == 3 and calls[-1] == (3, 3)
    with pytest.raises(gamespec.UsageError, match="Bacchus is for 3 to 5 players"):
        sim.simulate(BACCHUS, games=1, players=2, workers=1)
    with pytest.raises(gamespec.UsageError, match="unknown option"):
        sim.simulate(BACCHUS, games=1, options={"x": 1}, workers=1)


def test_worker_refuses_a_changed_spec():
    first, res = sim._run_block(BACCHUS, "0" * 64, 3, {}, 0, 1)
    assert first == 0 and "changed" in res["fatal"]


def test_random_bot_is_seeded_by_game_and_seat():
    legal = list(range(50))

    def picks(seed, seat):
        bot = RandomBot(seed, seat)
        return [legal[bot.pick(len(legal))] for _ in range(20)]

    assert picks(1, 0) == picks(1, 0)
    assert picks(1, 0) != picks(1, 1) and picks(1, 0) != picks(2, 0)
    with pytest.raises(ValueError):
        RandomBot().pick(0)


# ------------------------------------------------------------------------------ replay

@pytest.fixture
def full_log(tmp_path, capsys):
    log = tmp_path / "game.jsonl"
    shutil.copy(BACCHUS, tmp_path / "bacchus.yaml")     # replay finds it beside the log by its SHA-256
    assert main(["run", BACCHUS, "--seed", "4", "--players", "4", "--log", str(log)]) == 0
    capsys.readouterr()
    return log


def test_replay_ok(capsys, full_log):
    lines = read_jsonl(full_log)
    n = sum(1 for x in lines if x["type"] == "decision")
    code, out, err = run(capsys, "replay", full_log)
    assert code == 0 and err == ""
    assert out.startswith(f"{full_log}: OK, {n} decisions")
    code, out, _ = run(capsys, "replay", full_log, "--spec", BACCHUS, "--json")
    r = json.loads(out)
    assert code == 0 and r["ok"] and r["decisions"] == n and r["scores"] == lines[-1]["scores"]


def test_replay_without_the_seed(capsys, full_log, tmp_path):
    lines = read_jsonl(full_log)
    del lines[0]["seed"]
    noseed = tmp_path / "noseed.jsonl"
    noseed.write_text("".join(json.dumps(x) + "\n" for x in lines))
    code, out, _ = run(capsys, "replay", noseed)
    assert code == 0 and ": OK," in out


def test_replay_of_a_game_left_before_its_end(capsys, full_log, tmp_path):
    """docs/play.md: a game left in `gamespec play` is logged up to there; replay checks every line and
    says the game is unfinished (not a failed replay that looks like a corrupt file), exit 1."""
    lines = read_jsonl(full_log)
    cut = [i for i, x in enumerate(lines) if x["type"] == "decision"][5]
    left = tmp_path / "left.jsonl"
    left.write_text("".join(json.dumps(x) + "\n" for x in lines[:cut + 1]))
    code, out, err = run(capsys, "replay", left)
    assert code == 1 and out == ""
    assert f"{left}: every line matches, 6 decisions replayed, but the game is unfinished" in err
    assert "replay failed" not in err
    code, out, _ = run(capsys, "replay", left, "--json")
    r = json.loads(out)
    assert code == 1 and r["unfinished"] is True and r["ok"] is False and r["decisions"] == 6
    code, out, _ = run(capsys, "replay", full_log, "--json")
    assert code == 0 and json.loads(out)["unfinished"] is False


def test_replay_of_a_tampered_log(capsys, full_log, tmp_path):
    lines = read_jsonl(full_log)
    d = next(x for x in lines if x["type"] == "decision" and x["action"]["action"] == "send")
    d["action"]["col"] = (d["action"]["col"] + 1) % 5        # another column: diverges at once or later
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(json.dumps(x) + "\n" for x in lines))
    code, out, err = run(capsys, "replay", bad)
    assert code == 1 and out == ""
    assert f"{bad}: replay failed" in err and "Traceback" not in err


def test_replay_of_an_unknown_action_json(capsys, full_log, tmp_path):
    lines = read_jsonl(full_log)
    first = next(i for i, x in enumerate(lines) if x["type"] == "decision")
    lines[first]["action"] = {"action": "teleport"}
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(json.dumps(x) + "\n" for x in lines))
    code, out, _ = run(capsys, "replay", bad, "--json")
    r = json.loads(out)
    assert code == 1 and not r["ok"] and r["decisions"] == 0 and "teleport" in r["error"]


def test_replay_finds_the_spec_next_to_the_log(capsys, tmp_path, monkeypatch):
    shutil.copy(BACCHUS, tmp_path / "b.yaml")
    monkeypatch.chdir(tmp_path)
    assert main(["run", "b.yaml", "--log", "g.jsonl"]) == 0
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    capsys.readouterr()
    code, out, _ = run(capsys, "replay", "../g.jsonl")
    assert code == 0 and ": OK," in out
    os.remove(tmp_path / "b.yaml")
    code, _, err = run(capsys, "replay", "../g.jsonl")
    assert code == 1 and "no spec file at the header's path 'b.yaml' or beside ../g.jsonl has the log's SHA-256" in err and "--spec" in err


def test_replay_refuses_a_player_log_and_bad_files(capsys, tmp_path):
    seat = tmp_path / "seat0.jsonl"
    assert main(["run", BACCHUS, "--log-for", "0", str(seat)]) == 0
    capsys.readouterr()
    code, _, err = run(capsys, "replay", seat)
    assert code == 1 and "seat 0" in err and "--log" in err
    code, _, err = run(capsys, "replay", tmp_path / "none.jsonl")
    assert code == 1 and "cannot read" in err
    code, _, err = run(capsys, "replay", BACCHUS)
    assert code == 1 and "not JSON" in err and "Traceback" not in err


# ------------------------------------------------------------------------------ graph

def test_graph_dot(capsys, tmp_path):
    code, out, _ = run(capsys, "graph", BACCHUS)
    assert code == 0 and out.startswith('digraph "Bacchus"') and "->" in out
    target = tmp_path / "g.dot"
    code, out, _ = run(capsys, "graph", BACCHUS, "-o", target)
    assert code == 0 and out == "" and target.read_text().startswith("digraph")


HAVE_DOT = shutil.which("dot") is not None
HAVE_MPL = importlib.util.find_spec("matplotlib") is not None


@pytest.mark.skipif(not (HAVE_DOT or HAVE_MPL), reason="neither Graphviz nor matplotlib is installed")
def test_graph_svg_with_whichever_backend(capsys, tmp_path):
    target = tmp_path / "g.svg"
    code, _, err = run(capsys, "graph", BACCHUS, "-o", target)
    assert code == 0, err
    assert "<svg" in target.read_text()


@pytest.mark.skipif(not HAVE_MPL, reason="matplotlib is not installed")
def test_graph_png_with_matplotlib(capsys, tmp_path):
    target = tmp_path / "g.png"
    code, _, err = run(capsys, "graph", BACCHUS, "--renderer", "matplotlib", "-o", target)
    assert code == 0, err
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_graph_without_any_backend(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.setitem(sys.modules, "matplotlib", None)     # import fails
    code, _, err = run(capsys, "graph", BACCHUS, "--format", "svg", "-o", tmp_path / "g.svg")
    assert code == 1
    assert "pip install gamespec[plot]" in err and "graphviz" in err and len(err.splitlines()) == 1
    code, _, err = run(capsys, "graph", BACCHUS, "--renderer", "graphviz", "-o", tmp_path / "g.svg")
    assert code == 1 and "Graphviz" in err


def test_layers_put_start_first_and_end_last():
    from gamespec import draw
    g = gamespec.load(BACCHUS).spec.graph
    flow = g.subgraph(n for n, k in g.nodes(data="kind") if k not in ("trigger", "end-if"))
    layers, depth, back = draw.layers(flow)
    assert layers[0] == ["<start>"] and layers[-1] == ["<end>"]
    assert all(depth[b] > depth[a] for a, b in flow.edges if (a, b) not in back)


# ------------------------------------------------------------------------------ python -m gamespec

def _python_m(*argv, cwd=ROOT):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "gamespec", *map(str, argv)], capture_output=True,
                          text=True, cwd=cwd, env=env, timeout=120)


def test_python_m_gamespec_validate():
    r = _python_m("validate", "games/bacchus.yaml")
    assert r.returncode == 0 and r.stdout == "games/bacchus.yaml: ok\n" and r.stderr == ""
    r = _python_m("run", "games/bacchus.yaml", "--players", "9")
    assert r.returncode == 2 and r.stderr == "gamespec: error: Bacchus is for 3 to 5 players, not 9\n"


def test_python_m_gamespec_simulate_with_two_workers():
    r = _python_m("simulate", "games/bacchus.yaml", "--games", "4", "--workers", "2", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["games_finished"] == 4 and out["workers"] == 2 and r.stderr == ""


def test_check_strict_with_a_warning_does_not_say_ok(capsys):
    """Under --strict a warning fails the check (exit 1): the summary line says so, never 'ok'."""
    step4 = os.path.join(ROOT, "docs", "tutorial", "step4.yaml")
    code, out, err = run(capsys, "check", "--strict", step4)
    assert code == 1 and "warning" in err
    assert out.strip() == f"{step4}: fails --strict, 1 warning", out
    code, out, _ = run(capsys, "check", step4)
    assert code == 0 and out.strip() == f"{step4}: ok"


def test_replay_of_another_games_log_names_both_games(capsys, tmp_path):
    """A log replayed against another game's spec says so (it once blamed 'another version of the
    spec'); the same in show."""
    log = tmp_path / "k.jsonl"
    klink, bali = os.path.join(ROOT, "games", "klink.yaml"), os.path.join(ROOT, "games", "bali.yaml")
    assert run(capsys, "run", klink, "--players", 3, "--seed", 1, "--log", log)[0] == 0
    code, out, err = run(capsys, "replay", log, "--spec", bali)
    assert code == 1 and "the log is of the game 'Klink', not of 'Bali' (the spec given)" in out + err, out + err
    code, out, err = run(capsys, "show", log, "--spec", bali)
    assert code != 0 and "the log is of the game 'Klink', not of 'Bali'" in err, err
