"""Constructs of the language compiled into C (issue 37 part 1, docs/native.md), each against the
Python engine as the oracle on inline specs: the same scores (and their types), winners and decision
counts over many seeds, every game run to its end in C, and a step budget exhausted at the limit
stopping the game in C with the Python engine's error.

- `scoring.no_winner_if` (tests/specs/stalemate.yaml): when it holds at the end, nobody wins.
- `priority` on a reaction window asked at once (tests/specs/claims.yaml): the responses by rank.
- `can(action, param=v)` (tests/specs/captures.yaml, claims.yaml): is there a legal choice, with the
  same step charges as the Python engine (a budget exhausted at exactly the same limit)."""
from __future__ import annotations

import os

import pytest

import gamespec
from helpers import ROOT, skip_without_cc
from test_native_inline import outcomes, statuses

needs_cc = skip_without_cc()

STALEMATE = open(os.path.join(ROOT, "tests", "specs", "stalemate.yaml"), encoding="utf-8").read()
NO_WINNER = 'no_winner_if: "all(size(hand[q]) > 0 for q in players)"'
SEEDS = range(24)


def same(text, counts, seeds=SEEDS, in_c=True):
    """Python and native playouts agree game by game; every game Python stops on an error C stopped
    itself, and (with `in_c`) every game Python finishes ran to its end in C. Returns {count: outcomes}."""
    from gamespec.interpreter.native_engine import ST_OK
    py = gamespec.load_text(text, "construct.yaml")
    nat = gamespec.load_text(text, "construct.yaml", backend="native")
    got = {}
    for players in counts:
        want = outcomes(py, players, seeds)
        assert outcomes(nat, players, seeds) == want, players
        for (status, why), w in zip(statuses(nat, players, seeds), want):
            if w[0] == "error" or in_c:
                assert (status == ST_OK) == (w[0] == "ok"), (players, status, why, w)
        got[players] = want
    return got


# -- scoring.no_winner_if -------------------------------------------------------------------------
@needs_cc
def test_no_winner_if_gives_pythons_outcomes():
    got = same(STALEMATE, (2, 4))
    games = [o for out in got.values() for o in out]
    assert all(o[0] == "ok" for o in games)
    drawn = [o for o in games if o[3] == []]
    assert len(drawn) >= 5 and len(games) - len(drawn) >= 5, len(drawn)     # both outcomes occur
    assert all(o[1] != [0] * len(o[1]) for o in drawn)                      # scores still given


@needs_cc
@pytest.mark.parametrize("cond", [
    "true",                                       # nobody ever wins
    "size(deck) == 0 and sum(c.rank for c in pile) % 2 == 0",    # reads the state at the end
])
def test_no_winner_if_conditions(cond):
    got = same(STALEMATE.replace(NO_WINNER, f"no_winner_if: {cond!r}"), (3,), range(16))
    games = [o for out in got.values() for o in out]
    if cond == "true":
        assert all(o[3] == [] for o in games)


@needs_cc
def test_no_winner_if_exhausting_the_step_budget_stops_in_c_with_pythons_error():
    """The condition is evaluated in the last decision's step budget: a sum over range(k) runs out of
    steps in both engines past the limit (C stops the game, the error is Python's). C charges at least
    what Python charges (range's list, then the sum): a game between the two limits stops in C and is
    played again in Python, with Python's outcome."""
    lim = "limits:\n  steps_per_decision: 2000\n\nscoring:"
    results = {}
    for k in (100, 1500, 2100, 5000):
        text = STALEMATE.replace("scoring:", lim, 1).replace(
            NO_WINNER, f'no_winner_if: "sum(i for i in range({k})) >= 0 and all(size(hand[q]) > 0 for q in players)"')
        got = same(text, (2,), range(6), in_c=k < 900)
        results[k] = {o[0] for o in got[2]}
        for o in got[2]:
            assert o[0] == "ok" or "step" in o[3], o
    assert results[100] == results[1500] == {"ok"} and results[2100] == results[5000] == {"error"}, results


# -- priority on a reaction window asked at once -----------------------------------------------------
CLAIMS = open(os.path.join(ROOT, "tests", "specs", "claims.yaml"), encoding="utf-8").read()
# without its can() conditions (their own construct, below): every claim is open to all
CLAIMS_PLAIN = CLAIMS.replace('    if: "not can(win)"\n', "").replace('    if: "not can(win) and not can(set)"\n', "")
# until: all, each claim scoring by the order it is carried out in (claims so far)
CLAIMS_ALL = (CLAIMS_PLAIN.replace("          as: claimer\n          then:\n            - do: \"move(top(pile), laid[claimer])\"\n", "")
              .replace("          ask: at_once\n", "          ask: at_once\n          until: all\n")
              .replace("variables:\n", "variables:\n  claims: {initial: 0}\n")
              .replace("points[actor] += 5", "claims += 1; points[actor] += 5 * claims")
              .replace("points[actor] += 3", "claims += 1; points[actor] += 3 * claims")
              .replace("points[actor] += 2", "claims += 1; points[actor] += 2 * claims"))


def test_the_variants_are_what_they_say():
    assert "can(" not in CLAIMS_PLAIN.split("actions:")[1]
    assert "until: all" in CLAIMS_ALL and "as: claimer" not in CLAIMS_ALL and CLAIMS_ALL.count("claims += 1") == 3


@needs_cc
@pytest.mark.parametrize("variant,prio", [("first", "[win, set, run]"), ("first", "[set]"), ("all", "[win, set, run]"),
                                          ("all", "[run, win]")])
def test_priority_gives_pythons_outcomes(variant, prio):
    text = (CLAIMS_PLAIN if variant == "first" else CLAIMS_ALL).replace("priority: [win, set, run]",
                                                                        f"priority: {prio}")
    got = same(text, (2, 4), range(16))
    assert all(o[0] == "ok" for out in got.values() for o in out)
    # the rank decides: the same games without priority score differently somewhere
    plain = gamespec.load_text(text.replace(f"          priority: {prio}\n", ""), "plain.yaml")
    assert outcomes(plain, 4, range(16)) != got[4], prio


@needs_cc
def test_priority_exhausting_the_step_budget_stops_in_c_with_pythons_error():
    """The claims carried out in rank order spend the step budget: a win's effect looping over
    range(k) runs out past the limit in both engines (C stops the game, the error is Python's)."""
    lim = "limits:\n  steps_per_decision: 3000\n\nscoring:"
    results = {}
    for k in (50, 5000):
        text = CLAIMS_ALL.replace("scoring:", lim, 1).replace(
            "claims += 1; points[actor] += 5 * claims", f"claims += 1 + 0 * sum(i for i in range({k})); "
            "points[actor] += 5 * claims")
        got = same(text, (3,), range(8), in_c=k < 1000)
        results[k] = {o[0] for o in got[3]}
        for o in got[3]:
            assert o[0] == "ok" or "step" in o[3], o
    assert results[50] == {"ok"} and "error" in results[5000], results


# -- can(action, param=v) ----------------------------------------------------------------------------
# every parameter kind, fixed and free: a card from a zone and from a list, a zone key, a player, a
# number, constant and computed choices, a subset; preconditions and costs at the innermost level
KINDS = """name: Kinds
players: [2, 3]
cards:
  card: {zone: deck, faces: [{each: {rank: [1, 2, 3, 4, 5]}, count: 3}]}
zones:
  deck: {kind: pile, visibility: hidden}
  hand: {kind: set, per_player: true, visibility: owner}
  row: {kind: pile, count: 3, visibility: public}
variables:
  coins: {per_player: true, initial: 2}
  asked: {per_player: true, initial: 0}
start: play
phases:
  play:
    on_begin: "shuffle(deck)\\nfor p in players { deal(deck, hand[p], 3) }"
    turn: {steps: [{choose: [lay, pay, tell, pick, ask]}]}
    end_if: "size(deck) < 2 or any(size(hand[q]) == 0 for q in players)"
    next: end
actions:
  lay:
    params:
      card: {from: "hand[actor]"}
      r: {zone: row, where: "size(row[r]) == 0 or top(row[r]).rank <= card.rank"}
    effect: "move(card, row[r])"
  pay:
    params:
      who: {player: true, where: "who != actor"}
      n: {number: [1, 3]}
    cost: {coins: "n"}
    effect: "coins[who] += n"
  tell:
    params:
      c: {choice: [red, blue, red]}
      k: {choice: "[x.rank for x in hand[actor]]", where: "k > 2 and (c == 'red' or k % 2 == 0)"}
    if: "asked[actor] < 20"
    effect: "asked[actor] += k"
  pick:
    params:
      cs: {from: "hand[actor]", size: [2, 2], where: "sum(x.rank for x in cs) == 6"}
    effect: "move(cs, deck); shuffle(deck)"
  ask:
    params:
      one: {from: "[x for x in hand[actor] if x.rank > 1]", where: "not can(lay, card=one)"}
    effect: "asked[actor] += 1 + can(pay, n=3) + 2 * can(tell, c='red', k=4) + 4 * can(pay, who=actor) + 8 * can(pick) + 16 * can(lay, r=1) + 32 * can(tell, c='blue') + 64 * can(pay, who=(actor + 1) % num_players, n=coins[actor]); deal(deck, hand[actor])"
scoring:
  score: "asked[p] + coins[p]"
"""


@needs_cc
@pytest.mark.parametrize("name,counts", [("captures", (2, 3)), ("claims", (3, 4))])
def test_can_gives_pythons_outcomes(name, counts):
    text = open(os.path.join(ROOT, "tests", "specs", name + ".yaml"), encoding="utf-8").read()
    got = same(text, counts, range(20))
    assert all(o[0] == "ok" for out in got.values() for o in out)


@needs_cc
def test_can_of_every_parameter_kind():
    got = same(KINDS, (2, 3), range(30))
    games = [o for out in got.values() for o in out]
    assert sum(o[0] == "ok" for o in games) >= 40
    assert len({tuple(o[1]) for o in games if o[0] == "ok"}) >= 10      # the asked bits vary


@needs_cc
def test_can_in_the_flow_and_the_score():
    """Asked outside an action: a step's condition (of the player whose turn it is) and the final score."""
    text = KINDS.replace('score: "asked[p] + coins[p]"',
                         'score: "asked[p] + coins[p] + 100 * can(tell, c=\'red\') + 1000 * can(lay, r=p)"')
    text = text.replace("turn: {steps: [{choose: [lay, pay, tell, pick, ask]}]}",
                        'turn: {steps: [{choose: [lay, pay, tell, pick, ask]}, '
                        '{do: "coins[current] += 1", if: "can(pay, n=2) and not can(pick)"}]}')
    assert text.count("can(") == KINDS.count("can(") + 4
    got = same(text, (2, 3), range(20))
    scores = [x for out in got.values() for o in out if o[0] == "ok" for x in o[1]]
    assert any(x >= 100 for x in scores) and any(x < 100 for x in scores)     # can() true and false


BUDGET = """
name: B
players: [2, 2]
cards:
  number: {zone: deck, faces: [{each: {rank: [1, 2]}, count: 2}]}
zones:
  deck: {kind: pile, visibility: hidden}
variables:
  turns_left: {initial: 3}
limits: {steps_per_decision: %d}
phases:
  play:
    turn: {steps: [{choose: [go]}]}
    end_if: "turns_left == 0"
    next: end
actions:
  go: {if: "%s", effect: "turns_left -= 1"}
  big:
    params: {n: {number: [1, 2000], where: "n > 5000"}}
    effect: "turns_left -= 1"
scoring: {score: "turns_left"}
"""


@needs_cc
@pytest.mark.parametrize("cond", ["not can(big)", "not can(big, n=3)", "not can(big, n=3000)", "not can(big, n=true)"])
def test_can_is_charged_exactly_as_python_charges(cond):
    """A step for the question and one per value tried: the smallest step budget Python plays the
    game within is the smallest C plays it within (`big` is never listed, so nothing else differs);
    one step less, C stops the game itself and the error is Python's."""
    from gamespec.interpreter.native_engine import ST_OK

    def python_ok(b):
        return outcomes(gamespec.load_text(BUDGET % (b, cond), "b.yaml"), 2, range(1))[0][0] == "ok"
    lo, hi = 1, 4000
    while lo < hi:
        m = (lo + hi) // 2
        lo, hi = (lo, m) if python_ok(m) else (m + 1, hi)
    assert lo > 3
    for b in (lo - 1, lo):
        got = same(BUDGET % (b, cond), (2,), range(1))[2][0]
        nat = gamespec.load_text(BUDGET % (b, cond), "b.yaml", backend="native")
        assert (statuses(nat, 2, range(1))[0][0] == ST_OK) == (b == lo), (b, lo)
        assert (got[0] == "ok") == (b == lo) and (b == lo or "step budget exhausted" in got[3]), got
