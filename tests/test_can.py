"""can(action, param=value): is there a legal choice? (docs/language.md, "Is there a legal choice?").
Both Python backends list what a rules oracle says; recursion is refused at check time; the question
is charged to the step budget; the C engine plays it (tests/test_native_constructs.py)."""
from __future__ import annotations

import os
import random

import pytest

import gamespec
from gamespec.errors import SpecErrors, SpecRuntimeError

from helpers import ROOT, skip_without_cc

SPEC = os.path.join(ROOT, "tests", "specs", "captures.yaml")


def _oracle(s):
    """The legal (action, card) pairs of tests/specs/captures.yaml, written out by hand."""
    rs = s.rs
    rank = rs.attr["rank"]
    hand = s.z[rs.zone_base["hand"] + s.actor]
    pool = {rank[c] for c in s.z[rs.zone_base["pool"]]}
    wish = s.v[rs.var_base["wish"]]
    wished = {c for c in hand if rank[c] == wish and rank[c] in pool}
    capture = {c for c in hand if rank[c] in pool} if not wished else set()
    trail = {c for c in hand if c not in capture and c not in wished}
    return sorted([("capture_wished", c) for c in wished] + [("capture", c) for c in capture]
                  + [("trail", c) for c in trail])


@pytest.mark.parametrize("backend", ["closures", "codegen"])
def test_can_lists_what_the_rules_say(backend):
    game = gamespec.load(SPEC, backend=backend)
    kinds = set()
    for seed in range(12):
        s = game.new_game(players=2 + seed % 2, seed=seed)
        rnd = random.Random(seed)
        while not s.is_terminal:
            acts = s.legal_actions()
            got = sorted((a[0], a[2][0]) for a in acts)
            assert got == _oracle(s), seed
            kinds.update(a for a, _ in got)
            s.apply(acts[rnd.randrange(len(acts))])
    assert kinds == {"capture_wished", "capture", "trail"}


_BASE = """
name: T
players: [2, 2]
cards:
  number: {zone: deck, faces: [{each: {rank: [1, 2, 3, 4]}, count: 2}]}
zones:
  deck: {kind: pile, visibility: hidden}
  hand: {kind: set, per_player: true, visibility: owner}
on_begin: "for p in players { deal(deck, hand[p], 2) }"
phases:
  play:
    turn: {steps: [{choose: [a, b]}]}
    end_if: "size(deck) == 0"
    next: end
%s
scoring: {score: "size(hand[p])"}
"""


def _errors(actions, extra=""):
    with pytest.raises(SpecErrors) as ei:
        gamespec.load_text(_BASE % (actions + extra), "t.yaml")
    return str(ei.value)


def test_an_action_asking_can_of_itself_is_refused_at_check_time():
    direct = _errors("""actions:
  a: {if: "not can(a)", effect: "deal(deck, hand[actor])"}
  b: {effect: "deal(deck, hand[actor])"}
""")
    assert "the legality of 'a' asks can() of itself (a -> a)" in direct and "t.yaml:" in direct
    through = _errors("""actions:
  a:
    params: {card: {from: "hand[actor]", where: "can(b, card=card)"}}
    effect: "deal(deck, hand[actor])"
  b:
    params: {card: {from: "hand[actor]"}}
    if: "f(card)"
    effect: "deal(deck, hand[actor])"
functions:
  f(c): "return c.rank > 1 and not can(a)"
""")
    assert "(a -> b -> a)" in through and "(b -> a -> b)" in through
    # in an effect, can() of the action itself is only a question: no cycle
    gamespec.load_text(_BASE % """actions:
  a: {effect: "if can(a) { deal(deck, hand[actor]) }"}
  b: {if: "can(a)", effect: "deal(deck, hand[actor])"}
""", "t.yaml")


@pytest.mark.parametrize("call, words", [
    ("can(c)", "argument 1 of 'can' is an action's name (a, b); 'c' is not one"),
    ("can('a')", "write the action's name without quotes"),
    ("can(b, n=1)", "action 'b' has no parameter 'n'; its parameters: card"),
    ("can(b, card=1)", "parameter 'card' of 'b' is a card"),
    ("can(b, card=card, size=2)", "has no parameter 'size'"),
])
def test_a_wrong_can_call_is_a_clear_check_error(call, words):
    text = _errors(f"""actions:
  a: {{params: {{card: {{from: "hand[actor]"}}}}, effect: "let x = {call}"}}
  b: {{params: {{card: {{from: "hand[actor]"}}}}, effect: "deal(deck, hand[actor])"}}
""")
    assert words in text, text


def test_a_subset_parameter_cannot_be_fixed():
    text = _errors("""actions:
  a: {params: {card: {from: "hand[actor]"}}, effect: "let x = can(b, cs=[card])"}
  b: {params: {cs: {from: "hand[actor]", size: [1, 2]}}, effect: "deal(deck, hand[actor])"}
""")
    assert "parameter 'cs' of 'b' is a selection of cards: can() cannot fix it" in text


_BUDGET = """
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
    turn: {steps: [{choose: [go, big]}]}
    end_if: "turns_left == 0"
    next: end
actions:
  go: {if: "%s", effect: "turns_left -= 1"}
  big:
    params: {n: {number: [1, 2000], where: "n > 5000"}}
    effect: "turns_left -= 1"
scoring: {score: "turns_left"}
"""


@pytest.mark.parametrize("backend", ["closures", "codegen"])
def test_can_is_charged_to_the_step_budget(backend):
    # can(big) tries the 2,000 values of n, a step each: over a budget of 1,500, within one of 2,100;
    # listing big itself (the same 2,000 values) is not what exhausts it
    def play(budget, cond):
        s = gamespec.load_text(_BUDGET % (budget, cond), "b.yaml", backend=backend).new_game(players=2, seed=1)
        while not s.is_terminal:
            assert [a[0] for a in s.legal_actions()] == ["go"]
            s.apply_index(0)
        return s.scores
    assert play(1500, "true") == play(2100, "not can(big)") == [0, 0]
    with pytest.raises(SpecRuntimeError) as ei:
        play(1500, "not can(big)")
    assert "step budget exhausted" in str(ei.value) and "(actions.go." in str(ei.value), str(ei.value)


@skip_without_cc()
def test_the_c_engine_plays_it():
    from gamespec.compile.cbuild import library
    from gamespec.interpreter.native_engine import ST_OK
    g = gamespec.load(SPEC, backend="native")
    lib = library(g.ruleset(2, g.check_options({})))
    assert not isinstance(lib, str), lib
    assert all(r[0] == ST_OK for r in lib.playouts(0, 4))
    python = gamespec.load(SPEC)
    assert [r.scores for r in g.playouts(4, seed=0, players=2)] == \
        [r.scores for r in python.playouts(4, seed=0, players=2)]
