"""Reaction windows in C (docs/native.md, "Reaction windows"): every variant — asked in turn or at once,
until the first response or all, nested, inside a `for` step, `as` read in `then`/`else`, `if_none:
skip`, an empty list of responders, a response that ends the turn or the game — gives exactly the Python
engine's games (scores, winners, decisions) and every game runs to its end in C; mid-window states load
into C and play out as in Python (the struct round trip exact); the per-step native state lists the same
ids at every decision; a fault inside a response, a responder listed twice or not a seat, and the step and
decision budgets at their limits stop the game in C where the Python engine stops it, with its error;
ISMCTS in C over the window specs (tests/specs/bluff.yaml, snap.yaml) chooses as the Python search.
Skipped without a C compiler."""
from __future__ import annotations

import os
import random

import pytest

import gamespec
from gamespec.errors import SpecRuntimeError
from helpers import ROOT, skip_without_cc

needs_cc = skip_without_cc()

BASE = """\
name: Windows
players: [2, 4]
cards:
  card:
    zone: deck
    label: "a {rank}"
    faces:
      - {each: {rank: [1, 2, 3, 4, 5]}, count: 4}
zones:
  deck: {kind: pile, visibility: hidden}
  hand: {kind: set, per_player: true, visibility: owner}
  pile: {kind: pile, visibility: public}
  won:  {kind: pile, per_player: true, visibility: public}
variables:
  pts:    {per_player: true, initial: 0}
  tally:  {initial: 0}
  seen:   {initial: 0}
  rounds: {initial: 0}
LIMITS
start: play
phases:
  play:
    on_begin: |
      shuffle(deck)
      for p in players { deal(deck, hand[p], 3) }
    turn:
      steps:
        - choose: [play]
          if_none: skip
WINDOW
        - do: "rounds += 1; if size(deck) > 0 { deal(deck, hand[current]) }"
    end_if: "rounds >= 14 or all(size(hand[q]) == 0 for q in players)"
    next: end
actions:
  play:
    label: "play {card}"
    params: {card: {from: "hand[actor]"}}
    effect: "move(card, pile)"
  respond:
    label: "answer with {card}"
    params: {card: {from: "hand[actor]", where: "card.rank >= top(pile).rank"}}
    effect: "move(card, won[actor]); pts[actor] += card.rank; tally = (tally * 7 + actor + 1) % 1000003"
  shout:
    label: "shout"
    effect: "tally = (tally * 5 + actor + 2) % 1000003"
  quit:
    label: "quit"
    effect: |
      tally = (tally * 3 + actor) % 1000003
      if tally % 37 == 0 { end_game() }
      if tally % 2 == 0 { end_turn() }
  risky:
    label: "risk it"
    effect: "pts[actor] += 12 // (top(pile).rank - 3)"
scoring:
  score: "pts[p] * 10 + size(won[p]) + (tally % 97) * (p + 1) + (seen % 89) * (p + 2)"
"""

# each a `react` step (and what it nests) in the turn's steps; `actor` read after a window is the
# last decider or revealed chooser, as the Python engine leaves it
WINDOWS = {
    "in_turn_first": """\
        - react: [respond, shout]
          if: "size(pile) > 0"
          optional: "let it go"
          as: who
          then:
            - do: "pts[who] += 2; seen = (seen * 3 + who * 5 + actor) % 1000003"
          else:
            - do: "seen = (seen * 11 + actor + 1) % 1000003"
""",
    "in_turn_all": """\
        - react: [respond, shout]
          if: "size(pile) > 0"
          players: "players_from(current)"
          until: all
          as: who
          then:
            - do: "seen = (seen * 13 + sum((i + 1) * who[i] for i in range(size(who))) + actor) % 1000003"
          else:
            - do: "seen = (seen * 17 + actor + 1) % 1000003"
""",
    "at_once_first": """\
        - react: [respond]
          if: "size(pile) > 0"
          ask: at_once
          optional: "keep it"
          as: who
          then:
            - do: "pts[who] += 1; seen = (seen * 3 + who * 5 + actor) % 1000003"
          else:
            - do: "seen = (seen * 11 + actor + 1) % 1000003"
""",
    "at_once_all": """\
        - react: [respond, shout]
          if: "size(pile) > 0"
          players: "players_from(current)"
          ask: at_once
          until: all
          as: who
          then:
            - do: "seen = (seen * 13 + sum((i + 1) * who[i] for i in range(size(who))) + actor) % 1000003"
          else:
            - do: "seen = (seen * 17 + actor + 1) % 1000003"
""",
    "nested": """\
        - react: [shout]
          if: "size(pile) > 0"
          as: a
          then:
            - react: [respond]
              players: "others(a)"
              ask: at_once
              until: all
              as: b
              then:
                - do: "seen = (seen * 7 + a * 3 + sum(b) + size(b) + actor) % 1000003"
                - react: [shout, respond]
                  players: "[a]"
                  as: c
                  then: [{do: "pts[c] += 1; seen = (seen + c + a + size(b)) % 1000003"}]
              else:
                - do: "seen = (seen * 19 + a + actor) % 1000003"
          else:
            - react: [respond]
              players: "[current]"
              if_none: skip
              as: d
              then: [{do: "pts[d] += 3; seen = (seen + d + 1) % 1000003"}]
""",
    "in_a_for_step": """\
        - for: q
          in: "players"
          steps:
            - react: [shout, respond]
              if: "size(pile) > 0 and q != current"
              players: "[q]"
              as: s
              then: [{do: "pts[q] += 1; seen = (seen * 3 + s + q) % 1000003"}]
              else: [{do: "seen = (seen * 5 + q) % 1000003"}]
""",
    "if_none_skip": """\
        - react: [respond]
          if: "size(pile) > 0"
          if_none: skip
          until: all
          as: who
          then: [{do: "seen = (seen * 13 + size(who) + actor) % 1000003"}]
        - react: [respond]
          if: "size(pile) > 0"
          ask: at_once
          if_none: skip
          as: one
          then: [{do: "seen = (seen * 7 + one + actor) % 1000003"}]
          else: [{do: "seen = (seen * 3 + actor) % 1000003"}]
""",
    "nobody_listed": """\
        - react: [respond, shout]
          players: "[q for q in players if pts[q] > 100000]"
          as: who
          then: [{do: "seen = 1"}]
          else: [{do: "seen = (seen * 3 + actor + 1) % 1000003"}]
        - react: [respond, shout]
          players: "[q for q in players if pts[q] > 100000]"
          ask: at_once
          until: all
          as: all_of_them
          else: [{do: "seen = (seen * 5 + actor + size(all_of_them)) % 1000003"}]
""",
    "ends_turn_and_game": """\
        - react: [quit, shout]
          if: "size(pile) > 0"
          ask: at_once
          until: all
          as: who
          then: [{do: "seen = (seen * 3 + size(who)) % 1000003"}]
        - react: [quit, respond]
          if: "size(pile) > 0"
          as: w
          then: [{do: "seen = (seen * 7 + w) % 1000003"}]
""",
}

# faults: inside a response (in turn, at once), in `then` through `as`, the responders' list
FAULTY = {
    "fault_in_a_response_in_turn": """\
        - react: [risky, shout]
          if: "size(pile) > 0"
          as: who
""",
    "fault_in_a_response_at_once": """\
        - react: [shout, risky]
          if: "size(pile) > 0"
          ask: at_once
          until: all
          as: who
""",
    "fault_in_then_through_as": """\
        - react: [shout]
          as: who
          then: [{do: "pts[who + 1] += 1"}]
""",
    "listed_twice": """\
        - react: [shout]
          if: "rounds == 3"
          players: "[current, current]"
""",
    "not_a_seat": """\
        - react: [shout]
          if: "rounds == 2"
          players: "[current, num_players]"
""",
}


def text_of(window, limits=""):
    return BASE.replace("WINDOW\n", window).replace("LIMITS\n", limits)


def outcomes(game, players, seeds):
    """Each game's (scores, winners, decisions) or its SpecRuntimeError (check, where, message)."""
    out = []
    for s in seeds:
        try:
            r = game.playouts(1, seed=s, players=players)[0]
            out.append(("ok", r.scores, r.winners, r.decisions))
        except SpecRuntimeError as e:
            out.append(("error", e.check, e.where, e.message))
    return out


def c_runs(game, players, seeds):
    """The C playouts' (status, why) per seed, the library's own (nothing played again in Python)."""
    from gamespec.compile.cbuild import library
    from gamespec.interpreter.native_engine import WHY
    lib = library(game.ruleset(players, {}))
    assert not isinstance(lib, str), lib
    return [(st, WHY.get(why)) for st, why, *_ in (lib.playouts(s, 1)[0] for s in seeds)]


def same_games(text, seeds=range(40), counts=(2, 3, 4), early=False):
    """Python and native playouts agree game by game; a game Python finishes ran to its end in C (with
    `early`, C may have stopped it on a step budget: C charges at least what Python charges, and such a
    game is played again in Python), and one Python stops was stopped by C itself. {count: [(outcome,
    C's (status, why))]}."""
    from gamespec.interpreter.native_engine import ST_FAULT, ST_OK
    py = gamespec.load_text(text, "windows.yaml")
    nat = gamespec.load_text(text, "windows.yaml", backend="native")
    got = {}
    for players in counts:
        want = outcomes(py, players, seeds)
        assert outcomes(nat, players, seeds) == want, players
        runs = c_runs(nat, players, seeds)
        for (status, why), w in zip(runs, want):
            if w[0] == "ok":
                assert status == ST_OK or (early and (status, why) == (ST_FAULT, "budget")), (players, status, why)
            else:
                assert status == ST_FAULT, (players, status, why, w)
                if w[1] in ("budget", "game-budget", "game-steps"):
                    assert why in (w[1], "budget"), (players, why, w)
        got[players] = list(zip(want, runs))
    return got


@needs_cc
@pytest.mark.parametrize("name", sorted(WINDOWS))
def test_window_variants_play_the_python_engines_games(name):
    got = same_games(text_of(WINDOWS[name]))
    games = [o for out in got.values() for o, _ in out]
    assert all(o[0] == "ok" for o in games)
    if name != "nobody_listed":     # (there only the else steps run: every game scores alike)
        assert len({tuple(o[1]) for o in games}) > 10        # the windows' outcomes reach the scores


@needs_cc
def test_the_variants_differ_where_they_should():
    """The test specs mean what they say: if_none: skip asks fewer players than asking everyone, and
    until: all carries out more responses than until: first (so the comparisons above see each)."""
    py = gamespec.load_text(text_of(WINDOWS["if_none_skip"]), "w.yaml")
    asked = gamespec.load_text(text_of(WINDOWS["if_none_skip"].replace("          if_none: skip\n", "")), "w.yaml")
    d_skip = sum(r.decisions for r in py.playouts(20, seed=0, players=4))
    d_ask = sum(r.decisions for r in asked.playouts(20, seed=0, players=4))
    assert d_skip < d_ask


@needs_cc
@pytest.mark.parametrize("name", sorted(FAULTY))
def test_faults_in_windows_stop_in_c_with_the_python_error(name):
    got = same_games(text_of(FAULTY[name]), seeds=range(12), counts=(2, 4))
    errors = {o[1] for out in got.values() for o, _ in out if o[0] == "error"}
    want = {"listed_twice": {"react"}, "not_a_seat": {"not-a-player"}}.get(name, {"runtime"})
    assert errors == want, errors
    if name in ("listed_twice", "not_a_seat"):      # the window's own check, named alike by C
        assert {why for out in got.values() for _, (_, why) in out} == want


@needs_cc
@pytest.mark.parametrize("name,budgets", [("at_once_all", range(8, 56, 8)),   # the default run: one variant, every
                                          # other budget (each budget is a C build); the rest with -m slow
                                          pytest.param("at_once_all", range(12, 56, 8), marks=pytest.mark.slow),
                                          pytest.param("nested", range(8, 56, 4), marks=pytest.mark.slow),
                                          pytest.param("ends_turn_and_game", range(8, 56, 4), marks=pytest.mark.slow)])
def test_step_budget_at_the_limit(name, budgets):
    """limits.steps_per_decision swept over the values where it starts to bite (the Python engine stops
    games inside the windows: at window_open, the asking, the reveal, window_close, window_done): each
    game Python stops on the budget was stopped by C on the budget; the games are the same."""
    seen, where = set(), set()
    for steps in budgets:
        got = same_games(text_of(WINDOWS[name], f"limits: {{steps_per_decision: {steps}}}\n"),
                         seeds=range(6), counts=(2, 4), early=True)
        seen |= {o[0] if o[0] == "ok" else o[1] for out in got.values() for o, _ in out}
        where |= {o[2].split(" ")[-1].strip("()") for out in got.values() for o, _ in out if o[0] == "error"}
    assert seen == {"ok", "budget"}, seen
    assert where & {"window_done", "window_close", "for_next", "choose", "phases.play.turn.steps[1]"}, where


@needs_cc
@pytest.mark.parametrize("budgets", [range(3, 30, 4),          # every other budget (each a C build); the rest slow
                                     pytest.param(range(5, 30, 4), marks=pytest.mark.slow)])
def test_decision_budget_inside_a_window(budgets):
    seen = set()
    for n in budgets:
        got = same_games(text_of(WINDOWS["at_once_first"], f"limits: {{decisions_per_game: {n}}}\n"),
                         seeds=range(4), counts=(3,))
        seen |= {o[0] if o[0] == "ok" else o[1] for out in got.values() for o, _ in out}
    assert "game-budget" in seen


def _walk(text, players, seeds, check):
    """check(lib, state, rng) at every decision of random Python games on the native game."""
    from gamespec.compile.cbuild import library
    g = gamespec.load_text(text, "windows.yaml", backend="native")
    for seed in seeds:
        s = g.new_game(players=players, seed=seed)
        lib = library(s.rs)
        r = random.Random(seed)
        while not s.is_terminal:
            check(lib, s, random.Random(r.getrandbits(32)))
            s.apply_index(r.randrange(s.legal_action_count()))


def _load_and_roll(lib, s, rng):
    from gamespec.interpreter.native_engine import flatten, rollout
    assert lib.load(s)
    skip = {13, 17}          # the budget and the listing flag: the listing is made when loaded
    flat = flatten(lib, s)
    assert [x for i, x in enumerate(lib.dump()) if i not in skip] == [x for i, x in enumerate(flat) if i not in skip]
    r1, r2 = random.Random(), random.Random()
    r1.setstate(rng.getstate())
    r2.setstate(rng.getstate())
    a = rollout(lib, s, r1)
    c = s.clone()
    c.log = None
    b = c.playout(r2, in_place=True)
    assert a is not None and a == b and r1.getstate() == r2.getstate()


@needs_cc
@pytest.mark.parametrize("name", ["in_turn_all", "at_once_first", "nested", "in_a_for_step"])
def test_mid_window_states_load_and_play_out_in_c(name):
    """At every decision (inside windows: the responders listed, who took it so far, an outer window's
    outcome, stored choices of a window asked at once) the state goes into the struct and back exactly,
    and plays out in C as the Python playout does, the rng left alike."""
    _walk(text_of(WINDOWS[name]), 4, range(3), _load_and_roll)


@needs_cc
@pytest.mark.parametrize("spec", ["bluff", "snap"])
def test_window_specs_mid_game_rollouts(spec):
    with open(os.path.join(ROOT, "tests", "specs", f"{spec}.yaml"), encoding="utf-8") as f:
        text = f.read()
    _walk(text, 4, range(3), _load_and_roll)


@needs_cc
@pytest.mark.parametrize("name", ["in_turn_first", "at_once_all", "nested"])
def test_per_step_native_state_lists_the_same_ids(name):
    """The native per-step state (docs/agents.md) through windows: the same legal ids, in listing order,
    the same deciding player and the same end as the Python engine, at every decision."""
    from gamespec.envs.common import native_kit
    py = gamespec.load_text(text_of(WINDOWS[name]), "windows.yaml")
    kit = native_kit(py, 4, {}, engine="native")
    in_c = 0
    for seed in range(4):
        n = kit.new_game(seed)
        s = py.new_game(players=4, seed=seed)
        rnd = random.Random(seed)
        while True:
            assert (n.is_terminal, n.current_player) == (s.is_terminal, s.current_player)
            if s.is_terminal:
                break
            assert n.legal_ids_in_order() == s.rs.action_space().legal_ids(s)
            i = rnd.choice(s.legal_action_ids())
            n.apply_id(i)
            s.apply_id(i)
            in_c += n.in_c
        assert n.scores == s.scores and n.winners == s.winners
    assert in_c > 0


@needs_cc
@pytest.mark.parametrize("spec", ["bluff", "snap"])
def test_ismcts_in_c_over_window_specs(spec):
    """The whole search in C from positions inside windows (snap's stored choices of a window asked at
    once included: the determinizer draws the others' choices again): the same choice, iterations and
    rng state as the Python search."""
    from gamespec.bots.ismcts import ISMCTSBot
    from gamespec.interpreter import native_engine
    g = gamespec.load(os.path.join(ROOT, "tests", "specs", f"{spec}.yaml"), backend="native")
    ran_in_c = []
    search = native_engine.search

    def counted(*a, **k):
        r = search(*a, **k)
        ran_in_c.append(r is not None)
        return r
    native_engine.search = counted
    try:
        seen = secret = 0
        for seed in range(30):
            s = g.new_game(players=4, seed=seed)
            r = random.Random(seed)
            while not s.is_terminal and seen < 8:
                n = s.legal_action_count()
                ch = s.rs.chooses[s.pending]
                if n > 1 and ch.window is not None:
                    v = s.view(s.current_player)
                    a = ISMCTSBot(seed=seed, seat=v.player, iterations=30, engine="native")
                    b = ISMCTSBot(seed=seed, seat=v.player, iterations=30, engine="python")
                    assert a.choose(v) == b.choose(v)
                    assert a.last_iterations == b.last_iterations == 30
                    assert a.rng.getstate() == b.rng.getstate()
                    seen += 1
                    secret += bool(ch.secret and s.decisions)
                s.apply_index(r.randrange(n))
            if seen >= 8:
                break
    finally:
        native_engine.search = search
    assert seen == 8 and all(ran_in_c) and ran_in_c
    if spec == "snap":
        assert secret > 0
