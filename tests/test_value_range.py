"""Every number a rule computes, stores or scores stays in the engine's range, |n| < 2**63
(docs/reference.md, Numbers): an operation whose result leaves it (`+`, `-`, `*`, `**`, `sum`, `+=`, a
cost paid, partners' total) is the run-time fault `integer too large (beyond 2**63)` (check int-size),
the same in both Python backends and in C, which stops the game itself (a fault, not a bail). Results
inside the range never fault, even when a sum passes beyond it on the way. `simulate --records` never
writes a score outside the range: such a game is a failed game, and `report` reads the records.
`runs(xs)` (like every combinatorics built-in) is sized and charged before it is built."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

import gamespec
from helpers import ROOT, skip_without_cc
from test_native_inline import outcomes, spec

needs_cc = skip_without_cc()

M = (1 << 63) - 1
VARS = (f"  m: {{initial: {M}}}\n  x: {{initial: 0}}\n  xs: {{type: list, initial: []}}\n"
        "  pts: {per_player: true, initial: 0}\n  who: {type: player, initial: none}\n")
TOO_LARGE = ("int-size", "integer too large (beyond 2**63)")
SEEDS = range(3)
IN_C = (1, 7)       # ST_FAULT, F_INT_SIZE (interpreter/native_engine.py): C stopped the game itself


def text(stop, score='score: "x"', **kw):
    """Tiny (each player draws until they stop), `stop` run when a player stops."""
    return spec(variables=VARS, stop=stop + "; stopped[actor] = 1", score=score, **kw)


def engines(src, players=2):
    """The games of src on each engine: {engine: outcomes}."""
    return {be: outcomes(gamespec.load_text(src, "range.yaml", backend=be), players, SEEDS)
            for be in ("codegen", "closures", "native")}


def c_statuses(src, players=2):
    """(status, why) of each game played in C alone: (ST_FAULT, F_INT_SIZE) where C stopped it."""
    from gamespec.compile.cbuild import library
    lib = library(gamespec.load_text(src, "range.yaml", backend="native").ruleset(players, {}))
    assert not isinstance(lib, str), lib
    return [lib.playouts(s, 1)[0][:2] for s in SEEDS]


# each leaves the range at one operation; `abs`, unary minus, `//` and `%` of numbers in the range
# stay in it, so those reach the edge only through a `-` that faults first
LEAVES = {
    "plus": "x = m + 1",
    "minus": "x = -m - 2",
    "unary minus of the edge": "x = -(-m - 1)",
    "abs of the edge": "x = abs(-m - 1)",
    "floor division at the edge": "x = (-m - 1) // -1",
    "remainder of a sum": "x = (m + m) % 7",
    "times": "x = m * 2",
    "power": "x = 2 ** 63",
    "sum of a list": "x = sum([m, 1])",
    "sum of a generator": "x = sum(v for v in [m, m] if v > 0)",
    "doubling under max": "x = 1; for i in range(70) { x = max(x + x, 0) }",
    "in a comparison": "x = 1 if m + 1 > 0 else 2",
    "a let": "let y = m + 1; x = y - 5",
    "a list item": "xs = [m + 1]",
    "a list joined": "xs += [0, m + m]",
    "a player variable +=": "pts[actor] += m; pts[actor] += 1",
    "a player variable -=": "pts[actor] -= m; pts[actor] -= 2",
    "a side typed any": "xs = [m]; x = xs[0] + 1",
    "a side typed any, minus": "xs = [m]; x = -1 - xs[0] - 1",
    "a mark": "set_mark(hand[actor], 'tally', m + 1)",
    "a player variable holding a number": "who = m; x = who + 1",
    "a seat plus a number": "x = next_player(actor) + m",
}


@needs_cc
@pytest.mark.parametrize("stop", list(LEAVES.values()), ids=list(LEAVES))
def test_an_operation_leaving_the_range_faults_the_same_in_every_engine(stop):
    src = text(stop, extra="marks:\n  tally: {initial: 0}\n")
    got = engines(src)
    assert got["closures"] == got["codegen"] and got["native"] == got["codegen"]
    assert {(o[0], o[1], o[3]) for o in got["codegen"]} == {("error",) + TOO_LARGE}
    assert all("actions.stop.effect" in o[2] for o in got["codegen"])
    assert set(c_statuses(src)) == {IN_C}


@needs_cc
@pytest.mark.parametrize("score", ["m + p + 1", "abs(-m - 1)", "sum([m, m]) // 2", "-m - 1 - p"])
def test_a_score_leaving_the_range_faults_the_same_in_every_engine(score):
    src = text("x = 0", score=f'score: "{score}"')
    got = engines(src)
    assert got["closures"] == got["codegen"] and got["native"] == got["codegen"]
    assert {(o[0], o[1], o[3]) for o in got["codegen"]} == {("error",) + TOO_LARGE}
    assert all("scoring.score" in o[2] for o in got["codegen"])
    assert set(c_statuses(src)) == {IN_C}


@needs_cc
@pytest.mark.parametrize("stop, want", [
    ("x = sum([m, 1, -5])", M - 4),          # the total is in the range: no fault on the way
    ("x = sum(v for v in [m, m, -m])", M),
    ("x = -m", -M), ("x = abs(-m)", M), ("x = m // -1", -M), ("x = -m % -7", -M % -7),
    ("x = m - 1 + 1", M), ("x = (m + 0) * 1", M), ("x = -m * 1 - 0", -M),
    ("pts[actor] = 1; pts[actor] += m - 1; x = pts[actor]", M), ("x = max(m, 0) + min(-m, 0)", 0),
])
def test_results_inside_the_range_never_fault(stop, want):
    got = engines(text(stop))
    assert got["closures"] == got["codegen"] and got["native"] == got["codegen"]
    assert all(o[0] == "ok" and o[1] == [want, want] for o in got["codegen"]), got["codegen"]
    assert {st for st, _ in c_statuses(text(stop))} == {0}     # ST_OK: the whole game in C


@needs_cc
def test_a_negative_cost_paid_beyond_the_range_faults_naming_the_cost():
    src = text("x = 0", score='score: "pts[p]"').replace(
        "  stop:\n    effect:", "  stop:\n    cost: {pts: \"-m\"}\n    effect:")
    src = src.replace("pts: {per_player: true, initial: 0}", "pts: {per_player: true, initial: 5}")
    got = engines(src)
    assert got["closures"] == got["codegen"] and got["native"] == got["codegen"]
    assert {(o[0], o[1], o[3]) for o in got["codegen"]} == {("error",) + TOO_LARGE}
    assert all("actions.stop.cost.pts" in o[2] for o in got["codegen"])
    assert set(c_statuses(src)) == {IN_C}


@needs_cc
def test_partners_total_beyond_the_range_faults():
    """scoring.teams: partners share their total; two scores of 2**63 - 1 have no total in the range."""
    src = text("x = 0", score='teams: "0"\n  score: "m"')
    got = engines(src)
    assert got["closures"] == got["codegen"] and got["native"] == got["codegen"]
    assert {(o[0], o[1], o[2]) for o in got["codegen"]} == {("error", "int-size", "scoring.teams")}
    assert "beyond 2**63" in got["codegen"][0][3]
    assert set(c_statuses(src)) == {IN_C}


KLINK = os.path.join(ROOT, "games", "klink.yaml")


@pytest.mark.parametrize("expr, checked", [
    ("sum(c.value for c in faceup[1]) + 3 * size(number_deck) - n // 7 % 5", False),
    ("size(faceup[0]) - count(c for c in faceup[1] if c.type == 'number') * -2", False),
    ("n + 1", True), ("-2 - n", True), ("sum([n, 1])", True), ("n * size(number_deck) + 1", True),
])
def test_the_check_is_left_out_only_where_the_numbers_are_known_to_be_small(expr, checked):
    """The generated code checks `+`, `-` and `sum` unless what they add is bounded when the rules are
    generated (a card's value, a size, a small constant); with n = 2**63 - 1 each backend faults
    exactly where the reference does."""
    from gamespec.compile.codegen import CodeGen
    from gamespec.errors import SpecRuntimeError
    from gamespec.spec.builtins import CONSTANTS
    from gamespec.spec.model import Rule
    from gamespec.spec.parser import Located, parse
    from gamespec.spec.types import Scope
    g = gamespec.load(KLINK)
    s = g.new_game(players=3, seed=1)
    rule = Rule(parse(Located(expr, "<expr>"), "expr"), "<expr>", "<expr>", 1, 1)
    g.spec.checker.errors = []
    g.spec.checker.check_rule(rule, Scope(dict(CONSTANTS)).child({"n": "int"}))
    assert not g.spec.checker.errors
    assert ("_bounded(" in CodeGen(s.rs).expr(rule, {"n": "n"}).source) == checked
    games = [gamespec.load(KLINK, backend=b) for b in ("codegen", "closures")]
    states = [(x, x.new_game(players=3, seed=1)) for x in games]
    for n in (3, M):
        got = []
        for x, st in states:
            try:
                got.append(("ok", x.evaluate(st, expr, n=n)))
            except SpecRuntimeError as e:
                got.append(("error", e.check, e.message))
        assert got[0] == got[1]
        assert got[0][0] == "ok" if n == 3 or not checked else got[0] == ("error",) + TOO_LARGE


# -- simulate --records ---------------------------------------------------------------------------
def _cli(*argv, cwd):
    return subprocess.run([sys.executable, "-m", "gamespec.cli", *map(str, argv)], capture_output=True,
                          text=True, cwd=cwd, timeout=600)


@pytest.mark.parametrize("engine", ["python", "native"])
def test_simulate_records_never_hold_a_score_beyond_the_range(tmp_path, engine):
    """A score that doubles past 2**63 (`max(x + x, 0)`, as the issue found): each game fails with the
    run-time error, its record holds the error and no score, and `report` reads the records."""
    spec_path = tmp_path / "doubling.yaml"
    spec_path.write_text(text("x = 1; for i in range(70) { x = max(x + x, 0) }"))
    rec = tmp_path / "r.jsonl"
    r = _cli("simulate", spec_path, "--games", 4, "--players", 2, "--records", rec, "--workers", 1,
             "--engine", engine, "--no-progress", "--no-probe", cwd=tmp_path)
    rows = [json.loads(ln) for ln in rec.read_text().splitlines()]
    assert len(rows) == 4, r.stderr
    for row in rows:
        assert "integer too large (beyond 2**63)" in row["error"] and "scores" not in row
        assert all(abs(s) < 1 << 63 for s in row.get("scores", []))
    assert "integer too large" in r.stdout + r.stderr
    out = _cli("report", rec, "-o", tmp_path / "r.html", cwd=tmp_path)
    assert out.returncode == 0, out.stderr


# -- combinatorics sized before they are built ---------------------------------------------------------
BIG = ["runs(range(100000))", "runs([2 * i for i in range(100000)])", "permutations(range(100000))",
       "permutations(range(100000), 2)", "combinations(range(100000), 50000)", "combinations(range(100000), 2)",
       "subsets(range(100000))", "[product(range(1, 100000))]"]
CHILD = """
import resource, sys
sys.path.insert(0, {tests!r})
import gamespec
from test_native_inline import outcomes
got = outcomes(gamespec.load({path!r}, backend={backend!r}), 2, range(1))
use = resource.getrusage(resource.RUSAGE_SELF)
mb = use.ru_maxrss / 1024
try:    # this process's own peak: ru_maxrss survives exec, so it holds the parent worker's size at the fork
    with open("/proc/self/status") as f:
        mb = next(int(x.split()[1]) for x in f if x.startswith("VmHWM:")) / 1024
except (OSError, StopIteration):
    pass
print(repr((got, use.ru_utime + use.ru_stime, mb)))
"""


@pytest.mark.parametrize("expr", BIG)
@pytest.mark.parametrize("backend", ["codegen", "closures"])
@pytest.mark.parametrize("steps", [None, 1_000_000])
def test_large_combinatorics_are_sized_first(expr, backend, steps, tmp_path):
    """A combinatorics built-in of a large list ends in under 2 s of CPU and 200 MB (the whole child
    process, its imports included): a clear fault at the default step budget, and at the largest a
    spec may ask either a fault or (runs of 100 000 values) the result."""
    src = text(f"xs = {expr}")
    if steps:
        src = src.replace("start: play", f"limits: {{steps_per_decision: {steps}}}\nstart: play")
    path = tmp_path / "big.yaml"
    path.write_text(src)
    code = CHILD.format(tests=os.path.dirname(os.path.abspath(__file__)), path=str(path), backend=backend)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    (got,), cpu, mb = eval(r.stdout)
    assert cpu < 2 and mb < 200, (cpu, mb)
    if got[0] == "ok":
        assert steps and expr.startswith("runs("), got
    else:
        assert got[1] in ("budget", "value-size", "int-size"), got
        assert "limit is 100000" in got[3] or "budget" in got[3] or "too large" in got[3], got


def test_runs_is_charged_for_what_it_builds_before_building_it():
    """runs(xs): a step per item read, then one per run and one per value, before any run is made: a
    budget that covers the reading but not the result faults without building it."""
    from gamespec.interpreter import runtime

    class S:
        budget = 0
    built = []
    s = S()
    for budget, xs, ok in ((6, [1, 2, 3], False), (3 + 1 + 3, [1, 2, 3], True),
                           (4 + 3 + 3, [5, 1, 3, 3], True), (4 + 3 + 3 - 1, [5, 1, 3, 3], False)):
        s.budget = budget
        try:
            built.append(runtime.runs(s, xs))
            assert ok, (budget, xs)
        except runtime.RuleFault as e:
            assert not ok and e.check == "budget", (budget, xs)
    assert built == [[[1, 2, 3]], [[1], [3], [5]]]
    t = time.process_time()
    s.budget = 10 ** 6
    assert runtime.runs(s, list(range(100000))) == [list(range(100000))]
    assert s.budget == 10 ** 6 - 100000 - 1 - 100000
    assert time.process_time() - t < 2
