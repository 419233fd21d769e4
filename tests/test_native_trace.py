"""Game traces recorded in C (runtime.c, GameTrace; gamespec/simulate.py, NativeTrace): random seats on
the native engine give exactly the Python loop's traced results, field by field and in the same
order, and a game whose trace C cannot follow is played again in Python. Skipped without a C compiler."""
from __future__ import annotations

import glob
import os

import pytest

import gamespec
import gamespec.simulate as sim
from helpers import GAMES, ROOT, skip_without_cc

needs_cc = skip_without_cc()

SPECS = GAMES + sorted(glob.glob(os.path.join(ROOT, "tests", "specs", "*.yaml")))
RACE = os.path.join(ROOT, "tests", "specs", "race.yaml")
SEEDS = 30

_games = {}


def game_of(path):
    g = _games.get(path)
    if g is None:
        g = _games[path] = gamespec.load(path)
    return g


def counts(g):
    """Two or three player counts: the fewest, one more, the most."""
    return sorted({g.min_players, min(g.min_players + 1, g.max_players), g.max_players})


CASES = [(path, p) for path in SPECS for p in counts(game_of(path))]


def plain(results):
    """Results without the timing (and an internal error's traceback: where it was raised)."""
    return [{k: v for k, v in r.items() if k not in ("seconds", "traceback")} for r in results]


def same(a, b):
    """Equal results, their fields and their actions in the same order (records and JSON keep it)."""
    assert a == b
    for x, y in zip(a, b):
        assert list(x) == list(y)
        assert list(x.get("actions", {})) == list(y.get("actions", {}))
        assert [type(v) for v in x.values()] == [type(v) for v in y.values()]


def statuses(g, players, seeds, options=None):
    """The C simulation's status per game, traced as play_many traces (ST_OK: it ran in C)."""
    from gamespec.interpreter.native_engine import random_bot_key
    rs = g.ruleset(players, g.check_options(options))
    lib = g.native_library(rs)
    if lib is None:
        return None
    t = sim.NativeTrace(rs, lib)
    keys = [[random_bot_key(s, p) for p in range(players)] for s in seeds]
    return [r["status"] for r in lib.simulate(list(seeds), keys, None, t.mode, t.sign, t.teams)]


@needs_cc
@pytest.mark.parametrize("path,players", CASES, ids=[f"{os.path.basename(p)[:-5]}-{n}p" for p, n in CASES])
def test_native_traces_are_the_python_loops(path, players):
    from gamespec.interpreter.native_engine import ST_OK
    g = game_of(path)
    want = plain(sim.play_many(g, players, range(SEEDS), None, engine="python", trace=True))
    got = plain(sim.play_many(g, players, range(SEEDS), None, engine="native", trace=True))
    same(got, want)
    assert all("actions" in r for r in got if "error" not in r)
    if path in GAMES:           # the seed games' traces really are computed in C
        assert statuses(g, players, range(SEEDS)) == [ST_OK] * SEEDS


BAGS = os.path.join(ROOT, "tests", "specs", "bags.yaml")


@needs_cc
def test_a_per_team_score_is_traced_in_c(capsys):
    """Issue 36: scoring.per_team (the teams lead) was handed back to Python game by game, silently
    (10 games/s instead of 500). C now evaluates the score once per team: the same traces, all in C,
    and nothing said on stderr."""
    from gamespec.interpreter.native_engine import ST_OK
    g = game_of(BAGS)
    assert g.ruleset(4, g.check_options(None)).per_team
    got = plain(sim.play_many(g, 4, range(SEEDS), None, engine="native", trace=True))
    same(got, plain(sim.play_many(g, 4, range(SEEDS), None, engine="python", trace=True)))
    assert statuses(g, 4, range(SEEDS)) == [ST_OK] * SEEDS
    assert any(r["decided_at"] is not None for r in got)    # a sole winning team
    assert capsys.readouterr().err == ""


@needs_cc
def test_native_random_studies_trace_by_default_and_false_turns_it_off():
    g = game_of(GAMES[0])
    default = plain(sim.play_many(g, 3, range(5), None, engine="native"))
    assert sim.traces(None) is True
    same(default, plain(sim.play_many(g, 3, range(5), None, engine="python")))
    off = plain(sim.play_many(g, 3, range(5), None, engine="native", trace=False))
    assert all("actions" not in r for r in off)
    assert [(r["scores"], r["winners"], r["decisions"]) for r in off] == \
        [(r["scores"], r["winners"], r["decisions"]) for r in default]


def _costly():
    text = open(RACE).read().replace(
        'score: "points[p]"',
        'score: "points[p] if turns >= 3 * num_players else sum(sum(x for x in range(0, 90000)) '
        'for y in range(0, 90000))"') + "limits:\n  steps_per_game: 400000\n"
    return gamespec.load_text(text, "costly.yaml")


@needs_cc
def test_a_score_that_exhausts_a_budget_counts_0_in_c_as_in_python():
    from gamespec.interpreter.native_engine import ST_OK
    g = _costly()
    seeds = range(8)
    want = plain(sim.play_many(g, 2, seeds, None, engine="python", trace=True))
    got = plain(sim.play_many(g, 2, seeds, None, engine="native", trace=True))
    same(got, want)
    assert all("error" not in r for r in got) and all(r["lead_changes"] == 0 for r in got)
    # the untraced game is the same game: the trace gives the budgets back
    untraced = plain(sim.play_many(g, 2, seeds, None, engine="native", trace=False))
    assert [{k: r[k] for k in u} for r, u in zip(got, untraced)] == untraced
    assert statuses(g, 2, seeds) == [ST_OK] * len(seeds)


def _variant(score, extra=""):
    text = open(RACE).read().replace('score: "points[p]"', f'score: "{score}"') + extra
    text = text.replace("variables:\n", "variables:\n  mix: {type: list, initial: [1, 'a', true, none]}\n", 1)
    return gamespec.load_text(text, "variant.yaml")


@needs_cc
@pytest.mark.parametrize("score", [
    "points[p] // (turns - 2)",                     # a fault mid-game (division by zero): 0 there
    "-points[p]",                                   # the best is the least negative
    "mix[2] if turns < 5 else points[p]",           # true mid-game: a number (1)
    "mix[0] + 2 ** 70 if turns < 5 else points[p]", # beyond the int size: a fault, 0
    # C hands these games to Python, which decides (here: not numbers yet, counted 0)
    "mix[turns % 4] if turns < 5 else points[p]",
    "mix[3] if turns < 5 else points[p]",
    "(points[p] - 2) * 2 ** 62",                  # gaps beyond 64 bits
])
def test_unusual_scores_trace_as_in_python(score):
    g = _variant(score)
    seeds = range(12)
    want = plain(sim.play_many(g, 2, seeds, None, engine="python", trace=True))
    got = plain(sim.play_many(g, 2, seeds, None, engine="native", trace=True))
    same(got, want)
    from gamespec.interpreter.native_engine import ST_BAIL, ST_OK
    ran = statuses(g, 2, seeds)
    if "mix[0]" in score or "mix[2]" in score or "turns - 2" in score or score == "-points[p]":
        assert ran == [ST_OK] * len(seeds)
    else:
        assert ST_BAIL in ran


@needs_cc
def test_a_game_that_hits_its_budgets_keeps_its_error_and_reason():
    for extra in ("limits:\n  decisions_per_game: 3\n", "limits:\n  steps_per_game: 5\n"):
        g = _variant("points[p]", extra)
        want = plain(sim.play_many(g, 2, range(4), None, engine="python", trace=True))
        got = plain(sim.play_many(g, 2, range(4), None, engine="native", trace=True))
        same(got, want)
        assert all(r.get("reason") == "budget" for r in got), got


@needs_cc
def test_a_game_past_its_timeout_keeps_its_error_and_reason():
    g = game_of(GAMES[0])
    got = sim.play_many(g, 3, range(3), None, engine="native", trace=True, timeout=1e-9)
    want = sim.play_many(g, 3, range(3), None, engine="python", trace=True, timeout=1e-9)
    for a, b in zip(got, want):
        assert a["reason"] == b["reason"] == "timeout" and a["internal"] is b["internal"] is False
        assert a["error"].split("(")[0] == b["error"].split("(")[0]
        assert list(a) == list(b)


@needs_cc
def test_cli_no_trace_turns_the_trace_off(capsys):
    import json

    from gamespec.cli import main
    got = {}
    for flag in ([], ["--no-trace"], ["--trace"]):
        assert main(["simulate", GAMES[0], "-n", "10", "-p", "3", "--workers", "1", "--engine", "native",
                     "--json"] + flag) == 0
        got[tuple(flag)] = json.loads(capsys.readouterr().out)["summary"]["metrics"]["recorded"]
    assert got == {(): 10, ("--no-trace",): 0, ("--trace",): 10}
    assert main(["simulate", GAMES[0], "--trace", "--no-trace"]) == 2       # one or the other
    assert "not allowed with" in capsys.readouterr().err


@needs_cc
def test_games_the_c_code_stops_are_said_once(capsys):
    """Issue 36: a game C stops is played again in Python; that was silent. Now one line says so,
    once for the configuration, however many games and blocks."""
    g = _variant("mix[turns % 4] if turns < 5 else points[p]")
    for first in (0, 6):
        sim.play_many(g, 2, range(first, first + 6), None, engine="native", trace=True)
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("gamespec: the native engine stopped a game of ") \
        and "played again on the Python engine" in err[0], err
