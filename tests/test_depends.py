"""The flow skips, after a block of effects, the triggers and end conditions the block cannot change
(gamespec/compile/depends.py). These specs change what a trigger reads only in roundabout ways; the
generated-code backend (which skips) must play them exactly as the reference closures (which never
skip)."""
from __future__ import annotations

import random

import pytest

import gamespec
from gamespec.compile import flow

# A trigger counts the cards in `pile`; the game ends when `tally` reaches 3. Every way below puts a
# card into `pile` without naming `pile` in the move's destination expression the obvious way.
SPEC = """
name: Roundabout
players: [2, 2]
cards:
  chip:
    zone: stock
    faces:
      - {each: {n: [1, 2, 3, 4, 5, 6]}, count: 2}
zones:
  stock: {kind: pile, visibility: public}
  pile:  {kind: pile, visibility: public}
  side:  {kind: pile, visibility: public}
  spare: {kind: pile, visibility: public}
  tray:  {kind: pile, visibility: public}
  well:  {kind: pile, visibility: public}
variables:
  tally: {initial: 0}
  held:  {type: card}
on_begin: "shuffle(stock); deal(stock, well, 1); deal(stock, tray, 4)"
triggers:
  count_pile:
    if: "size(pile) >= 2"
    effect: "tally += 1; move(pile, side)"
end_if: "tally >= 3 or size(stock) == 0 or size(well) == 0"
start: play
phases:
  play:
    turn:
      steps:
        - choose: [via_let, via_loop_local, via_param, via_var, via_for, plain]
    next: end
actions:
  via_let:
    if: "size(stock) > 0"
    effect: |
      let c = top(stock)
      move(c, pile)
  via_loop_local:
    # the second pass moves the card of `well` (which the end condition reads), through a local
    # reassigned after its use in the loop
    if: "size(tray) > 0 and size(well) > 0"
    effect: |
      let c = top(tray)
      for i in range(2) {
        move(c, spare)
        c = top(well)
      }
  via_param:
    params:
      card: {from: "stock"}
    effect: "move(card, pile)"
  via_var:
    if: "size(stock) > 0"
    effect: |
      held = top(stock)
      move(held, pile)
  via_for:
    if: "size(stock) > 1"
    effect: |
      for c in top(stock, 2) { move(c, pile) }
  plain:
    if: "size(stock) > 0"
    effect: "move(top(stock), spare)"
scoring:
  score: "tally + sum(c.n for c in side)"
"""


def game(backend):
    g = gamespec.load_text(SPEC, "roundabout.yaml")
    g.backend = backend
    return g


def test_writes_are_what_the_effects_can_change():
    rs = game("codegen").ruleset(2, {})
    w = {name: flow.action_writes(rs, rt) for name, rt in rs.actions.items()}
    assert w["via_let"] == {("z", "stock"), ("z", "pile")}
    assert w["via_param"] == {("z", "stock"), ("z", "pile")}
    assert w["via_for"] == {("z", "stock"), ("z", "pile")}
    assert w["plain"] == {("z", "stock"), ("z", "spare")}
    assert w["via_var"] is None                       # a card variable: could be anywhere
    assert w["via_loop_local"] is None                # reassigned in a loop: could be anywhere
    # `plain` cannot change what the trigger and the end condition read ... but the end condition
    # reads `stock`, which it writes, so its block still checks
    ch = rs.chooses[0]
    assert flow.make_after(rs, ch.scope, {("z", "spare")}) is None
    assert flow.make_after(rs, ch.scope, {("z", "pile")}) is not None
    assert flow.make_after(rs, ch.scope, None) is not None


@pytest.mark.parametrize("seed", range(40))
def test_skipping_checks_changes_no_game(seed):
    logs = []
    for backend in ("codegen", "closures"):
        rnd = random.Random(seed)
        s = game(backend).new_game(players=2, seed=seed, log=True)
        while not s.is_terminal:
            acts = s.legal_actions()
            s.apply(acts[rnd.randrange(len(acts))])
        logs.append(s.log_lines())
    assert logs[0] == logs[1]


def test_a_block_that_only_moves_elsewhere_skips_the_checks():
    """The point of it: `plain` moves stock -> spare; with a trigger on `pile` and an end condition
    on `tally` and `stock`, the end condition still has to be checked (stock), but a spec whose
    conditions read nothing the block writes checks nothing after it."""
    text = SPEC.replace('end_if: "tally >= 3 or size(stock) == 0 or size(well) == 0"', 'end_if: "tally >= 3"')
    g = gamespec.load_text(text, "roundabout.yaml")
    rs = g.ruleset(2, {})
    ch = rs.chooses[0]
    assert flow.make_after(rs, ch.scope, flow.action_writes(rs, rs.actions["plain"])) is None
    assert flow.make_after(rs, ch.scope, flow.action_writes(rs, rs.actions["via_let"])) is not None
