"""The spec's functions and the combinatorics built-ins in C (docs/native.md, "Functions and
combinatorics in C"), against the Python engine on small inline specs: the same games (scores,
winners, decisions, or the same error), every game that Python finishes run to its end in C, and
every game that Python stops stopped by C itself with the code of the same check: recursion to the
depth limit and one past it, a function with loops and an early return, each built-in at its normal
size, over its limit and on empty lists, budgets exhausted by a function's calls or a built-in's
charge at the same budget in both engines. Skipped without a C compiler."""
from __future__ import annotations

import pytest

import gamespec
from helpers import skip_without_cc
from test_native_inline import outcomes, same_games, spec

needs_cc = skip_without_cc()

F_BUDGET, F_INT_SIZE, F_VALUE_SIZE, F_TYPE, F_CALL_DEPTH = 1, 7, 8, 11, 24     # runtime.h


def fspec(score, functions="", stop=None, limits=""):
    """Tiny (test_native_inline.spec) scoring `score`, with `functions:` and a `stop` effect."""
    extra = (f"functions:\n{functions}" if functions else "") + (f"limits: {limits}\n" if limits else "")
    return spec(score=f'score: "{score}"', extra=extra, stop=stop)


def c_stops(text, players, seeds=range(10), name="inline.yaml"):
    """(status, why) of each C playout: why is runtime.h's code where C stopped the game itself."""
    from gamespec.compile.cbuild import library
    g = gamespec.load_text(text, name, backend="native")
    lib = library(g.ruleset(players, {}))
    assert not isinstance(lib, str), lib
    return [tuple(lib.playouts(s, 1)[0][:2]) for s in seeds]


def all_stopped(text, players, why, check):
    """Every game faults in Python with `check`, and C stops each itself with code `why`."""
    from gamespec.interpreter.native_engine import ST_FAULT
    got = same_games(text, (players,))[players]
    assert all(o[0] == "error" and o[1] == check for o in got), got
    assert set(c_stops(text, players)) == {(ST_FAULT, why)}


# -- functions -----------------------------------------------------------------------------------------
LOOPS = """\
  first_big(cs, t): |
    let i = 0
    for c in cs {
      if c.value >= t { return i }
      i += 1
    }
    while i > 3 {
      i -= 1
      if i == 5 { return 50 + i }
    }
    return -1 - i
  total(cs): |
    let s = 0
    for c in cs { s += c.value }
    cs = [c for c in cs if c.value > 2]
    return 100 * s + size(cs)
  mine(p): "return hand[p]"
  none_yet(xs): |
    if size(xs) > 0 { return xs[0] }
  even(n): "return true if n == 0 else odd(n - 1)"
  odd(n): "return false if n == 0 else even(n - 1)"
"""


@needs_cc
def test_a_function_with_loops_an_early_return_and_recursion_is_pythons():
    """Loops, `return` from inside a `for`, a `while` and an `if`, a parameter reassigned, a zone
    argument and a zone returned, a body that ends without a return (none), mutual recursion: the
    same scores, game by game, all run in C."""
    score = ("1000 * first_big(hand[p], 4) + total(mine(p)) + 7 * size(mine(p)) "
             "+ (3 if none_yet(hand[p]) == none else 30 * none_yet(hand[p]).value) + (1 if even(size(hand[p]) + 9) else 0)")
    got = same_games(fspec(score, LOOPS), (2, 3), "loops.yaml")
    assert all(o[0] == "ok" for os_ in got.values() for o in os_)
    assert len({o[1][0] for o in got[2]}) > 3      # the scores vary: the functions decide them


@needs_cc
def test_functions_called_from_conditions_effects_and_other_functions():
    """A function in an action's `if:`, in an effect and in scoring, called by other functions."""
    text = fspec("twice(last_total[p]) + twice(twice(1))", '  twice(n): "return 2 * n"\n'
                 '  small(cs): "return sum(c.value for c in cs) < 9"\n',
                 stop="last_total[actor] = twice(sum(c.value for c in hand[actor])); stopped[actor] = 1")
    text = text.replace("variables:\n", "variables:\n  last_total: {per_player: true, initial: 0}\n", 1)
    text = text.replace('if: "stopped[actor] == 0"', 'if: "stopped[actor] == 0 and small(hand[actor])"')
    got = same_games(text, (2, 3), "calls.yaml")
    assert all(o[0] == "ok" for os_ in got.values() for o in os_)


@needs_cc
def test_what_a_call_allocates_goes_when_it_returns_no_list():
    """A function is pure: once it returns a number, the lists it built are unreachable and C releases
    them (else 200 calls building 1.6 MB each, uncharged list repetitions in a loop that keeps its
    total, pass the arena's 256 MB and C gives the game to Python); a list returned is kept."""
    functions = ('  big(i): |\n    let x = [[i], 0][0] * 100000\n    return 100000 + 0 * i\n'
                 '  keep(i): "return [[[i], 0][0] * 3, [i]]"\n'
                 '  work(p): |\n    let s = 0\n    let kept = []\n'
                 '    for i in range(200) {\n      s += big(i + p)\n      kept += keep(i)\n    }\n'
                 '    return s + sum(size(k) + k[0] for k in kept)\n')
    got = same_games(fspec("work(p) + size(hand[p])", functions), (2,), "release.yaml")
    assert all(o[0] == "ok" and o[1][0] >= 200 * 100000 for o in got[2])


DEPTH = '  depth(n): "return 0 if n == 0 else 1 + depth(n - 1)"\n'


@needs_cc
def test_recursion_to_the_depth_limit_runs_and_one_past_it_faults_alike():
    """A call from a rule is depth 1: depth(31) makes 32 nested calls (the limit), depth(32) 33: the
    Python engine's `call-depth` fault, and C stops there itself (F_CALL_DEPTH)."""
    got = same_games(fspec("depth(31) + size(hand[p])", DEPTH), (2,), "deep.yaml")
    assert all(o[0] == "ok" and o[1][0] >= 31 for o in got[2])
    all_stopped(fspec("depth(32)", DEPTH), 2, F_CALL_DEPTH, "call-depth")
    # from inside a function, its depth goes on: 1 (score) + 1 (outer) + 31 calls
    all_stopped(fspec("outer(30)", DEPTH + '  outer(n): "return depth(n + 1)"\n'), 2, F_CALL_DEPTH, "call-depth")


# -- the combinatorics built-ins -----------------------------------------------------------------------
VALUES = "[c.value for c in hand[p]]"
NORMAL = [
    f"count(s for s in subsets({VALUES}) if sum(s) == 6) + 1000 * size(subsets([]))",
    f"size(combinations(hand[p], 2)) + 10 * size(combinations(hand[p], 0)) + size(combinations(hand[p], 11))"
    f" + 100 * size(combinations([], 0)) + 1000 * size(combinations({VALUES}, -1))",
    f"count(x for x in permutations({VALUES}, 2) if x[0] < x[1]) "
    f"+ 100 * size(permutations([c.value for c in hand[p] if c.value > 3])) + 10000 * size(permutations([]))",
    "product(c.value for c in hand[p]) % 1000 + 1000 * product([c.value for c in hand[p] if c.value < 3]) "
    "+ 7 * product([]) + product(c.value for c in hand[p] if c.value > 9)",
    f"sum(size(r) * 10 + r[0] for r in runs({VALUES})) + 1000 * size(runs([])) + 100 * size(runs([7, 5, 6, 9]))",
    f"sum(sum(x[0] * 3 + x[1] for x in permutations(s, 2)) for s in combinations({VALUES}, 3)) % 997",
]


@needs_cc
@pytest.mark.parametrize("score", NORMAL, ids=["subsets", "combinations", "permutations", "product", "runs",
                                               "nested"])
def test_each_built_in_at_its_normal_size_and_on_empty_lists_is_pythons(score):
    """The same lists in the same (itertools') order: scores that read them item by item."""
    got = same_games(fspec(score), (2, 3), "combi.yaml")
    assert all(o[0] == "ok" for os_ in got.values() for o in os_)


@needs_cc
def test_the_built_ins_orders_are_itertools():
    """Every item of every list, in order, recorded in a variable and compared with Python's."""
    from test_native import _final_values, _strict
    v = "last([c.value for c in hand[actor]], 4)"
    stop = (f"seen = [subsets({v}), combinations({v}, 2), permutations({v}, 2), permutations({v}), "
            f"runs({v} + [9, 11, 10])]; stopped[actor] = 1")
    text = fspec("size(seen)", stop=stop).replace("variables:\n", "variables:\n  seen: {type: list, initial: []}\n", 1)
    same_games(text, (2,), "orders.yaml")
    g = gamespec.load_text(text, "orders.yaml", backend="native")
    seen_any = False
    for s in range(10):
        py, nat = _final_values(g, 2, s)
        assert _strict(nat) == _strict(py), s
        seen_any = seen_any or (py[0] == "ok" and any(isinstance(v, list) and v and v[0] for v in py[4]))
    assert seen_any


OVER = [
    ("size(subsets(range(17)))", F_VALUE_SIZE, "value-size"),
    ("size(combinations(range(30), 5))", F_VALUE_SIZE, "value-size"),
    ("size(permutations(range(9)))", F_VALUE_SIZE, "value-size"),
    ("size(permutations(range(40), 4))", F_VALUE_SIZE, "value-size"),
    ("product(range(1, 30))", F_INT_SIZE, "int-size"),
    ("product(x * 1000000000 for x in range(1, 4))", F_INT_SIZE, "int-size"),
    ("size(combinations(range(4), true))", F_TYPE, "type"),
    ("size(permutations(range(4), true))", F_TYPE, "type"),
    ("size(runs([1, 2] + [true]))", F_TYPE, "type"),
]


@needs_cc
@pytest.mark.parametrize("score,why,check", OVER, ids=[o[0] for o in OVER])
def test_over_its_limit_or_of_the_wrong_kind_each_faults_alike(score, why, check):
    """Sized before building: over 100 000 lists (or 2**63) the Python engine's fault, C's own stop
    with the same check's code."""
    all_stopped(fspec(score), 2, why, check)


@needs_cc
def test_just_under_the_limits_runs():
    """2**16 subsets and C(30, 4) combinations are built (the limit is on the count, not on n)."""
    got = same_games(fspec("size(subsets(range(16))) + size(combinations(range(30), 4)) + size(permutations(range(7)))"
                           " if p == 0 else 0", limits="{steps_per_decision: 1000000}"), (2,), "under.yaml")
    assert {o[1][0] for o in got[2]} == {65536 + 27405 + 5040}


# -- budgets: charged alike ------------------------------------------------------------------------------
def budgeted(functions, value):
    """steps_per_decision -> Tiny whose `stop` stores `value` (computed in that decision) in got[actor]."""
    def make(b):
        text = fspec("got[p]", functions, stop=f"got[actor] = {value}; stopped[actor] = 1",
                     limits=f"{{steps_per_decision: {b}}}")
        return text.replace("variables:\n", "variables:\n  got: {per_player: true, initial: 0}\n", 1)
    return make


def _least(ok, lo, hi):
    """The least budget in (lo, hi] for which ok holds (ok(lo) is false, ok(hi) true)."""
    assert not ok(lo) and ok(hi), (lo, hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi


def python_least(make, lo=1, hi=200_000):
    """The least steps_per_decision at which the Python engine finishes game 0 (2 players)."""
    return _least(lambda b: outcomes(gamespec.load_text(make(b), "b.yaml"), 2, [0])[0][0] == "ok", lo, hi)


# the reference: a value whose cost is a range's, charged alike by both engines (runtime._range, rt_range)
REFERENCE = ("", "size(range(num_players + 300))")


@pytest.fixture(scope="module")
def c_extra():
    """How many steps more C needs than Python for the reference game (the rest of the game's
    decision, which C charges at least as Python does: a small list Python walks free, C charges)."""
    from gamespec.interpreter.native_engine import ST_OK
    make = budgeted(*REFERENCE)
    b = python_least(make)
    extra = _least(lambda x: c_stops(make(b + x), 2, [0])[0][0] == ST_OK, -1, 40)
    assert 0 <= extra <= 8
    return extra


BUDGETED = {
    "recursion": ('  heavy(n): "return 0 if n == 0 else 1 + heavy(n - 1) + 0 * (n + n + n + n + n + n + n + n + n + n'
                  ' + n + n + n + n + n + n + n + n + n + n + n + n + n)"\n',
                  "heavy(size(hand[actor]) + 20) + heavy(30) + heavy(31)"),
    "subsets": ("", "size(subsets(range(num_players + 10)))"),
    "combinations": ("", "size(combinations(range(num_players + 12), 4))"),
    "permutations": ("", "size(permutations(range(num_players + 5), 5))"),
    "runs": ("", "size(runs([x * 2 for x in range(num_players + 500)]))"),
    "product": ("", "product([1 for x in range(num_players + 400)]) + product(range(num_players + 300))"),
    "product of a list": ("", "product(range(num_players, num_players + 2)) + product(range(num_players + 800))"),
    "in a function": ('  f(n): "return size(combinations(range(n), 3)) + f(n - 1) if n > 3 else 0"\n',
                      "f(num_players + 10)"),
}


@needs_cc
@pytest.mark.parametrize("what", list(BUDGETED))
def test_a_budget_exhausted_by_calls_or_a_built_in_faults_at_the_same_point(what, c_extra):
    """The least step budget at which the Python engine finishes a game whose `stop` computes the
    value: below it (by C's extra steps of the rest of that decision, the reference's) both engines
    stop with `budget`, C by itself (F_BUDGET); at it both finish, C to the end: the value's calls
    and built-ins charge C exactly what they charge Python."""
    from gamespec.interpreter.native_engine import ST_FAULT, ST_OK
    make = budgeted(*BUDGETED[what])
    b = python_least(make)
    assert b > python_least(budgeted(*REFERENCE)) - 300 + 100     # the value's own charge decides
    short = outcomes(gamespec.load_text(make(b - 1), "b.yaml"), 2, [0])[0]
    assert short[0] == "error" and short[1] == "budget", short
    assert c_stops(make(b - 1 + c_extra), 2, [0]) == [(ST_FAULT, F_BUDGET)]
    assert c_stops(make(b + c_extra), 2, [0]) == [(ST_OK, 0)]
    assert outcomes(gamespec.load_text(make(b), "b.yaml", backend="native"), 2, [0]) == \
        outcomes(gamespec.load_text(make(b), "b.yaml"), 2, [0])


@needs_cc
def test_the_shipped_function_specs_run_in_c():
    """tens, melds and fifteens (test_native's differential test covers their games): no fallback."""
    import os
    from helpers import ROOT
    for name in ("tens", "melds", "fifteens"):
        g = gamespec.load(os.path.join(ROOT, "tests", "specs", f"{name}.yaml"), backend="native")
        assert g.native_status(g.min_players) is None, name
