"""Functions and the combinatorics built-ins (docs/language.md, Functions; The rule language): the
scorers of tests/specs/fifteens.yaml and tests/specs/melds.yaml against independent Python scorers,
every built-in's value, sizes checked before anything is built, step charges and faults the same in
both backends, recursion bounded, types checked at each call; indexing a global list; `initial: none`."""
from __future__ import annotations

import itertools
import os
import random
from collections import Counter

import pytest

import gamespec
from gamespec.errors import SpecErrors, SpecRuntimeError
from helpers import arrange

HERE = os.path.dirname(os.path.abspath(__file__))
FIFTEENS = os.path.join(HERE, "specs", "fifteens.yaml")
MELDS = os.path.join(HERE, "specs", "melds.yaml")
BACKENDS = ["codegen", "closures"]


def game(path, backend):
    g = gamespec.load(path)
    g.backend = backend
    return g


def outcome(g, s, expr, **bindings):
    """The value of expr, or ('fault', check, message) — and the steps it charged."""
    s.budget = 100_000
    try:
        v = g.evaluate(s, expr, **bindings)
    except SpecRuntimeError as e:
        v = ("fault", e.check, e.message)
    return v, 100_000 - s.budget


# -- independent scorers ---------------------------------------------------------------------------
def show_points(ranks):
    vals = [min(r, 10) for r in ranks]
    fifteens = sum(1 for k in range(len(vals) + 1) for c in itertools.combinations(vals, k) if sum(c) == 15)
    pairs = sum(1 for a, b in itertools.combinations(ranks, 2) if a == b)
    count, run, ks, i = Counter(ranks), 0, sorted(set(ranks)), 0
    while i < len(ks):
        j = i
        while j + 1 < len(ks) and ks[j + 1] == ks[j] + 1:
            j += 1
        if j - i + 1 >= 3:
            ways = 1
            for k in ks[i:j + 1]:
                ways *= count[k]
            run += (j - i + 1) * ways
        i = j + 1
    return 2 * fifteens + 2 * pairs + run


def melds_of(cards):
    out = [set(m) for k in (3, 4) for m in itertools.combinations(cards, k) if len({r for r, _ in m}) == 1]
    for suit in {s for _, s in cards}:
        ranks = {r for r, s in cards if s == suit}
        out += [{(x, suit) for x in range(lo, hi + 1)} for lo in ranks for hi in ranks
                if hi - lo >= 2 and all(x in ranks for x in range(lo, hi + 1))]
    return out


def deadwood(cards):
    best = sum(r for r, _ in cards)
    for m in melds_of(cards):
        best = min(best, deadwood([c for c in cards if c not in m]))
    return best


@pytest.mark.parametrize("backend", BACKENDS)
def test_fifteens_pairs_and_runs_score_as_an_independent_scorer(backend):
    g = game(FIFTEENS, backend)
    rng = random.Random(31)
    checked = 0
    for seed in range(150):
        s = g.new_game(players=2, seed=seed)
        rs = s.rs
        # a hand of five: random cards, or cards of few ranks (pairs, double runs)
        ranks = [rng.choice([3, 4, 5, 6]) for _ in range(5)] if seed % 2 else None
        if ranks is not None and max(Counter(ranks).values()) > 4:
            ranks = [3, 4, 5, 5, 6]
        pool = list(range(rs.ncards))
        rng.shuffle(pool)
        if ranks is not None:
            pick = []
            for r in ranks:
                c = next(c for c in pool if rs.attr["rank"][c] == r and c not in pick)
                pick.append(c)
        else:
            pick = pool[:5]
        arrange(s, {("hand", 0): pick}, rest="deck")
        got = g.evaluate(s, "show(cards(hand[0]))")
        assert got == show_points([rs.attr["rank"][c] for c in pick])
        checked += got > 0
    assert checked > 50


@pytest.mark.parametrize("backend", BACKENDS)
def test_deadwood_is_the_least_over_every_arrangement_of_melds(backend):
    g = game(MELDS, backend)
    rng = random.Random(5)
    melded = 0
    for seed in range(120):
        s = g.new_game(players=2, seed=seed)
        rs = s.rs
        by = {(rs.attr["rank"][c], rs.attr["suit"][c]): c for c in range(rs.ncards)}
        # six or seven cards drawn from few ranks and suits, so that melds overlap
        keys = rng.sample([(r, su) for r in range(3, 9) for su in ("clubs", "hearts")], rng.choice([6, 7]))
        arrange(s, {("hand", 0): [by[k] for k in keys]}, rest="stock")
        got = g.evaluate(s, "deadwood(hand[0])")
        assert got == deadwood(keys), keys
        melded += got < sum(r for r, _ in keys)
    assert melded > 30


# -- the built-ins --------------------------------------------------------------------------------------
VALUES = [
    ("subsets([1, 2, 3])", [[], [1], [2], [3], [1, 2], [1, 3], [2, 3], [1, 2, 3]]),
    ("subsets([])", [[]]),
    ("combinations([1, 2, 3, 4], 2)", [[1, 2], [1, 3], [1, 4], [2, 3], [2, 4], [3, 4]]),
    ("combinations([1, 2], 3)", []),
    ("combinations([1, 2], 0)", [[]]),
    ("permutations([1, 2, 3])", [[1, 2, 3], [1, 3, 2], [2, 1, 3], [2, 3, 1], [3, 1, 2], [3, 2, 1]]),
    ("permutations([1, 2, 3], 2)", [[1, 2], [1, 3], [2, 1], [2, 3], [3, 1], [3, 2]]),
    ("product([2, 3, 4])", 24),
    ("product([])", 1),
    ("product(x + 1 for x in [1, 2, 3] if x != 2)", 8),
    ("runs([5, 3, 4, 9, 4, 11, 10])", [[3, 4, 5], [9, 10, 11]]),
    ("runs([])", []),
    ("max(x for x in [3, 1, 2], key=-x)", 1),
    ("min(x for x in [3, 1, 2, 1], key=x % 2)", 2),
    ("max(x for x in [2, 4, 3] if x != 4, key=x)", 3),
    ("max(x for x in [5] if x > 9, key=x, default=0)", 0),
    ("sorted(x for x in [3, 1, 2], key=-x)", [3, 2, 1]),
    ("sorted(x for x in [31, 12, 21, 11], key=x % 10)", [31, 21, 11, 12]),    # stable
    ("size(subsets([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]))", 1024),
    ("count(s for s in subsets([5, 10, 5, 1]) if sum(s) == 15)", 2),
]


@pytest.mark.parametrize("expr,want", VALUES, ids=[v[0] for v in VALUES])
def test_the_combinatorics_built_ins_and_keys(expr, want):
    results = []
    for backend in BACKENDS:
        g = game(FIFTEENS, backend)
        s = g.new_game(players=2, seed=1)
        results.append(outcome(g, s, expr))
    assert results[0][0] == want
    assert results[0] == results[1], "the backends differ in value or in steps charged"


FAULTS = [
    ("subsets(range(17))", "value-size", "subsets() of 17 items gives more than 100000 lists; the limit is 100000"),
    ("combinations(range(40), 20)", "value-size", "combinations() of 40 items, 20 at a time gives more than 100000 lists"),
    ("permutations(range(9))", "value-size", "permutations() of 9 items, 9 at a time gives more than 100000 lists"),
    ("size(subsets(range(16)))", "budget", "step budget exhausted"),
    ("product([4294967296, 4294967296])", "int-size", "integer too large"),
    ("runs([1, 'a'])", "type", "runs() takes whole numbers, not a text"),   # typed only at run time
    ("max(x for x in [1, 'a'], key=x)", "runtime", "cannot compare"),
    ("max(x for x in [] , key=x)", "runtime", "max() of nothing; give default=..."),
]


@pytest.mark.parametrize("expr,check,message", FAULTS, ids=[f[0] for f in FAULTS])
def test_sizes_are_checked_before_anything_is_built_and_faults_are_the_same(expr, check, message, monkeypatch):
    if check in ("value-size", "budget"):   # nothing is built: the lists are refused from their count
        monkeypatch.setattr(itertools, "combinations", lambda *a: pytest.fail("built before it was sized"))
        monkeypatch.setattr(itertools, "permutations", lambda *a: pytest.fail("built before it was sized"))
    results = []
    for backend in BACKENDS:
        g = game(FIFTEENS, backend)
        s = g.new_game(players=2, seed=1)
        results.append(outcome(g, s, expr)[0])
    assert results[0][:2] == ("fault", check) and message in results[0][2], results[0]
    assert results[0] == results[1]


# -- functions: recursion, charges, faults, types ---------------------------------------------------------
RECURSIVE = """
name: Countdown
players: [2, 2]
cards:
  card: {zone: deck, faces: [{each: {v: [1, 2, 3]}, count: 2}]}
zones:
  deck: {kind: pile, visibility: hidden}
variables:
  xs: {type: list, initial: [5, 6, 7]}
  held: {type: cards, initial: []}
  who: {type: player, initial: none}
  seen: {type: card, initial: none}
  word: {type: str, initial: none}
functions:
  down(n): |
    if n <= 0 { return 0 }
    return 1 + down(n - 1)
  fib(n): "return n if n < 2 else fib(n - 1) + fib(n - 2)"
  inverse(n): "return 100 // n"
  loop(n): |
    let k = 0
    while true { k += 1 }
    return k
  total(cs): |
    let t = 0
    for c in cs { t += c.v }
    return t
on_begin: "held = cards(deck)"
end_if: "who != none"
phases:
  play:
    turn:
      steps:
        - choose: [go]
actions:
  go: {effect: "who = actor"}
scoring:
  score: "down(3) + total(deck) + xs[1]"
"""


@pytest.fixture(scope="module")
def countdown():
    return [gamespec.load_text(RECURSIVE, "countdown.yaml") for _ in BACKENDS]


def _both(countdown, expr):
    out = []
    for g, backend in zip(countdown, BACKENDS):
        g.backend = backend
        out.append(outcome(g, g.new_game(players=2, seed=1), expr))
    assert out[0] == out[1], "the backends differ"
    return out[0]


def test_recursion_works_and_is_bounded_at_32_calls(countdown):
    assert _both(countdown, "down(31)")[0] == 31
    assert _both(countdown, "fib(12)")[0] == 144
    v, _ = _both(countdown, "down(40)")
    assert v[:2] == ("fault", "call-depth") and "functions nested more than 32 calls deep" in v[2]


def test_a_function_call_charges_its_weight_and_its_loops(countdown):
    one = _both(countdown, "down(1)")[1]
    ten = _both(countdown, "down(10)")[1]
    assert ten > one > 0
    three = _both(countdown, "total([top(deck), top(deck), top(deck)])")[1]
    six = _both(countdown, "total(cards(deck))")[1]
    assert six > three      # a loop iteration per card
    v, _ = _both(countdown, "loop(1)")
    assert v[:2] == ("fault", "budget")


def test_a_fault_inside_a_function_names_the_function(countdown):
    for g, backend in zip(countdown, BACKENDS):
        g.backend = backend
        with pytest.raises(SpecRuntimeError) as e:
            g.evaluate(g.new_game(players=2, seed=1), "inverse(0)")
        assert "(functions.inverse)" in str(e.value) and "division by zero" in str(e.value)


def test_a_global_list_takes_an_index_and_player_and_card_variables_start_as_none(countdown):
    assert _both(countdown, "xs[1]")[0] == 6
    assert _both(countdown, "held[0].v")[0] in (1, 2, 3)
    g = countdown[0]
    s = g.new_game(players=2, seed=1)
    assert s.observation(0)["variables"]["who"] is None and s.observation(0)["variables"]["seen"] is None
    assert s.observation(0)["variables"]["word"] == "none"      # a text variable keeps the text
    s.apply(s.legal_actions()[0])
    assert s.scores == [3 + 12 + 6] * 2


def test_none_as_yaml_writes_it_starts_a_player_or_card_variable_and_an_int_says_why_not():
    text = RECURSIVE.replace("who: {type: player, initial: none}", "who: {type: player, initial: None}")
    text = text.replace("seen: {type: card, initial: none}", "seen: {type: card, initial: null}")
    g = gamespec.load_text(text, "none.yaml")
    v = g.new_game(players=2, seed=1).observation(0)["variables"]
    assert v["who"] is None and v["seen"] is None
    for written in ("none", "None", "null"):
        bad = RECURSIVE.replace("  xs: {type: list, initial: [5, 6, 7]}\n",
                                f"  xs: {{type: list, initial: [5, 6, 7]}}\n  tally: {{initial: {written}}}\n")
        with pytest.raises(SpecErrors) as e:
            gamespec.load_text(bad, "none.yaml")
        (err,) = e.value.errors
        assert "an int variable has no value none: give a number (none is for player and card variables)" in \
            str(err) and str(err).startswith("none.yaml:"), (written, str(err))


def test_a_function_is_typed_at_each_call_with_its_arguments(tmp_path):
    bad = RECURSIVE.replace('  score: "down(3) + total(deck) + xs[1]"', '  score: "total(players)"')
    with pytest.raises(SpecErrors) as e:
        gamespec.load_text(bad, "typed.yaml")
    (err,) = e.value.errors
    assert err.message == "'.v' reads a card attribute, but this is player"
    lines = bad.splitlines()
    row = next(i for i, ln in enumerate(lines) if "t += c.v" in ln)
    assert (err.line, err.col) == (row + 1, lines[row].index("c.v") + 1)     # in the body, where it fails


def test_a_function_falling_off_its_end_with_a_value_on_another_path_is_an_error():
    bad = RECURSIVE.replace('  inverse(n): "return 100 // n"', '  inverse(n): "if n > 0 { return 100 // n }"')
    with pytest.raises(SpecErrors) as e:
        gamespec.load_text(bad, "end.yaml")
    assert [x.message for x in e.value.errors] == [
        "function 'inverse' gives a number on one path and none on another (its end, without a return, gives "
        "none): every return must give one kind"]


def test_an_end_condition_calling_a_function_is_checked_after_a_block_that_changes_what_it_reads():
    """The flow skips, after a block of effects, the end checks that cannot have changed
    (compile/depends.py): a function's body is read too, not only its arguments."""
    text = """
name: Pile
players: [2, 2]
cards:
  card: {zone: deck, faces: [{each: {v: [1, 2, 3]}, count: 4}]}
zones:
  deck: {kind: pile, visibility: hidden}
  pile: {kind: pile, visibility: public}
functions:
  heap(): "return sum(c.v for c in pile)"
end_if: "heap() >= 5"
phases:
  play:
    turn:
      steps:
        - choose: [push]
actions:
  push: {effect: "deal(deck, pile)"}
scoring:
  score: "0"
"""
    for backend in BACKENDS:
        g = gamespec.load_text(text, "pile.yaml")
        g.backend = backend
        s = g.new_game(players=2, seed=1)
        while not s.is_terminal:
            s.apply(s.legal_actions()[0])
            assert s.is_terminal == (g.evaluate(s, "heap()") >= 5), backend
