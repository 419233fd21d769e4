"""One table of limits (docs/language.md, "Limits"), made from gamespec/mirrors.py LIMITS; and the
`near-budget` lint of `check --strict` (a sampled decision using more than half its step budget)."""
from __future__ import annotations

import os

from gamespec.authoring import limits
from gamespec.authoring.lints import lint
from gamespec.mirrors import LIMITS

from helpers import ROOT


def test_the_docs_table_is_made_from_the_mirrors():
    text = open(os.path.join(ROOT, limits.DOC), encoding="utf-8").read()
    made = limits.table()
    assert limits._replace(text) == text, "run: python -m gamespec.authoring.limits --write"
    for x in LIMITS:
        assert f"| `{x.name}` | {limits._n(x.value)} |" in made
    assert "a spec may set it up to 1 000 000 (`limits.steps_per_decision`)" in made
    assert limits.main(["--check"]) == 0


HEAVY = """
name: Heavy
players: [2, 2]
cards:
  number: {zone: deck, faces: [{each: {suit: [a, b, c, d], rank: [1, 2, 3, 4, 5, 6]}, count: 1}]}
zones:
  deck: {kind: pile, visibility: hidden, on_empty: stop}
  hand: {kind: set, per_player: true, visibility: owner}
  pool: {kind: pile, visibility: public}
limits: {steps_per_decision: STEPS}
on_begin: "shuffle(deck); for p in players { deal(deck, hand[p], 11) }"
phases:
  play:
    turn:
      steps:
        - choose: [lay, pass]
    end_if: "all(size(hand[p]) == 0 for p in players) or size(pool) > 8"
    next: end
actions:
  lay:
    params: {cs: {from: "hand[actor]", size: [1, 11], where: "sum(c.rank for c in cs) == 15"}}
    effect: "move(cs, pool)"
  pass: {effect: "deal(deck, pool)"}
scoring: {score: "size(hand[p])"}
"""


def test_a_listing_near_the_step_budget_is_a_strict_warning(tmp_path):
    # the first listing visits 11 * 2**10 cards of subsets (a step each): 56% of 20 000, 11% of 100 000
    near, far = tmp_path / "near.yaml", tmp_path / "far.yaml"
    near.write_text(HEAVY.replace("STEPS", "20000"))
    far.write_text(HEAVY.replace("STEPS", "100000"))
    found = [f for f in lint(str(near), games=1) if f.check == "near-budget"]
    assert len(found) == 1, found
    f = found[0]
    assert "a decision used 11,290 of its 20,000 steps (56%)" in f.message
    assert "phases.play.turn.steps[0]" in f.message and "seed 0, before decision 1" in f.message
    assert (f.line, f.col) == (16, 11)          # the step that lists the choices (HEAVY opens with a newline)
    assert not [f for f in lint(str(far), games=1) if f.check == "near-budget"]
