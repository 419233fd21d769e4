"""Issue 41 item 4: a study's "never played" lists only actions the configuration could offer
(gamespec/compile/possible.py, simulate.trace_names): an action an option switches off is absent."""
from __future__ import annotations

import os

import gamespec
from gamespec.compile.possible import possible_actions

GAMES = os.path.join(os.path.dirname(os.path.dirname(__file__)), "games")

# a variable set only under a class the option removes, a step under it: the chain of the analysis
SPEC = """
name: Switch
players: [2, 2]
options:
  bonus: {default: false, doc: "the bonus cards"}
cards:
  plain: {zone: deck, faces: [{count: 6}]}
  gift: {zone: deck, if: "bonus", faces: [{count: 2}]}
zones:
  deck: {kind: pile, visibility: hidden}
  hand: {kind: pile, per_player: true, visibility: owner}
variables:
  glad: {type: bool, initial: false, doc: "a gift was drawn"}
  points: {per_player: true, initial: 0}
on_begin: "shuffle(deck)"
start: main
phases:
  main:
    turn:
      steps:
        - choose: [draw]
        - if: "glad"
          then:
            - do: "glad = false"
            - choose: [thank]
    end_if: "size(deck) == 0"
    next: end
actions:
  draw:
    effect: |
      let c = top(deck)
      move(c, hand[actor])
      if c.type == 'gift' { glad = true }
  thank:
    effect: "points[actor] += 1"
scoring:
  score: "points[p] + size(hand[p])"
"""


def test_an_action_under_an_option_that_is_off_is_not_possible():
    bali = gamespec.load(os.path.join(GAMES, "bali.yaml"))
    off = possible_actions(bali.ruleset(3, bali.check_options({})))
    on = possible_actions(bali.ruleset(3, bali.check_options({"oracle": True})))
    assert "oracle_keep" not in off and "oracle_keep" in on
    assert on == set(bali.spec.actions) and off == set(bali.spec.actions) - {"oracle_keep"}


def test_the_analysis_follows_a_class_a_variable_and_a_step(tmp_path):
    p = tmp_path / "switch.yaml"
    p.write_text(SPEC)
    g = gamespec.load(str(p))
    assert possible_actions(g.ruleset(2, g.check_options({}))) == {"draw"}
    assert possible_actions(g.ruleset(2, g.check_options({"bonus": True}))) == {"draw", "thank"}
    from gamespec.analysis import run_study
    off = run_study(str(p), games=3, players=2, workers=1, engine="python")["summary"]["metrics"]
    assert "thank" not in off["never_played"] and "thank" not in [a["action"] for a in off["actions"]]


def test_every_library_game_keeps_all_its_actions_with_its_defaults():
    # the analysis removes only what an option switches off: with the defaults, nothing else
    for name in ("no_thanks", "bacchus", "klink", "sushi_go", "hanabi", "leduc_holdem"):
        g = gamespec.load(os.path.join(GAMES, f"{name}.yaml"))
        assert possible_actions(g.ruleset(g.min_players, g.check_options({}))) == set(g.spec.actions), name
