"""Fused decision-point continuations (gamespec/compile/fused.py): the same games as the standard path
(the flow program) and the reference closures, state for state; really used where they can be; the
standard path taken for what they leave to it."""
from __future__ import annotations

import glob
import os
import random

import pytest

import gamespec
from gamespec.compile.fused import _Pending
from gamespec.errors import SpecRuntimeError

from helpers import GAMES, ROOT, library_slow

SPECS = GAMES + sorted(glob.glob(os.path.join(ROOT, "tests", "specs", "*.yaml")))


def _play(game, players, seed, options, trace):
    rnd = random.Random(seed)
    s = game.new_game(players=players, seed=seed, options=options, log=True)
    while not s.is_terminal:
        # the whole saved state every 16th step (its history makes it quadratic over a long game),
        # the fields it is made of at every other step
        trace.append(s.to_json() if s.decisions % 16 == 0 else _fields(s))
        acts = s.legal_actions()
        trace.append([a.to_json(label=False) for a in acts])
        if seed % 2:
            s.apply_index(rnd.randrange(s.legal_action_count()))
        else:
            s.apply(acts[rnd.randrange(len(acts))])
    trace.append(s.to_json())
    return s.log_lines(), s.scores


def _fields(s):
    """The saved state's parts but its history and log: zones, variables, faces, knowledge, rng, the
    flow's place and variables, the counts (as text: the same values and types give the same text)."""
    return repr((s.z, s.v, sorted(s.face.items()), s.kn, s.rng, s.gen, s.pc, s.pending, s.actor, s.cur,
                 s.phase, sorted(s.fenv.items()), s.turns, s.decisions, s.terminal, s.scores, s.winners,
                 len(s.log) if s.log is not None else None))


@pytest.mark.parametrize("path", library_slow(SPECS, ids=lambda p: os.path.basename(p)[:-5]))     # library: slow run
def test_fused_play_the_same_games_as_the_flow_program_and_the_closures(path):
    """Every saved state (pc, pending decision, flow variables, budgets, history), every listing of
    legal actions, the logs and the scores agree (the fewest and the most players, two option sets;
    test_simulation.py::test_backends_agree plays more games of the seed games)."""
    fused = gamespec.load(path)
    for players in sorted({fused.min_players, fused.max_players}):
        for options in fused.option_sets()[:2]:
            plain = gamespec.Game(fused.spec)
            ref = gamespec.Game(fused.spec, backend="closures")
            rs = plain.ruleset(players, options)
            for ch in rs.chooses:
                ch.fused = None
            for seed in range(2):
                runs = []
                for game in (fused, plain, ref):
                    trace = []
                    runs.append((_play(game, players, seed, options, trace), trace))
                assert runs[0] == runs[1], (path, players, options, seed)
                assert runs[0] == runs[2], (path, players, options, seed)


@pytest.mark.parametrize("name", ["bacchus", "bali", "klink"])
def test_fused_functions_are_made_and_used(name):
    """After a few games the main decision points' actions run fused (generated once, then called)."""
    g = gamespec.load(os.path.join(ROOT, "games", f"{name}.yaml"))
    for seed in range(3):
        s = g.new_game(players=4, seed=seed)
        while not s.is_terminal:
            acts = s.legal_actions()
            s.apply(acts[random.Random(seed).randrange(len(acts))])
    rs = s.rs
    made = [fn for ch in rs.chooses for fn in (ch.fused or {}).values()
            if fn is not None and not isinstance(fn, _Pending)]
    assert len(made) >= 3
    assert all("def fused_" in fn.source for fn in made)
    # moves are written out inline in the fused functions (the hot path), called elsewhere (the rule
    # functions of the standard path stay short to compile)
    fused_src = "\n".join(fn.source for fn in made)
    assert "_move_plain(" not in fused_src and "_move_pub(" not in fused_src
    assert "].append(" in fused_src and "s.loc[" in fused_src
    plain = [rt.run.source for rt in rs.actions.values() if getattr(rt.run, "source", None)]
    assert any("_move_plain(" in src or "_move_pub(" in src for src in plain)


def test_a_decision_point_inside_a_flow_loop_takes_the_standard_path():
    """Bali's sacrifice step runs inside a flow `for` loop (its guard reads the loop variable from the
    flow's variables): it is not fused, and those games still agree with the reference (above)."""
    g = gamespec.load(os.path.join(ROOT, "games", "bali.yaml"))
    rs = g.ruleset(4, {})
    inside = [ch for ch in rs.chooses if ch.names]
    assert inside
    for ch in inside:
        for name, fn in ch.fused.items():
            assert fn(None, None) is None      # nothing run: State.apply takes the standard path
            assert ch.fused[name] is None


def test_the_budget_of_a_flow_that_never_asks_is_charged_as_the_flow_program_charges_it(tmp_path):
    """A decision whose flow then loops without asking anyone: the same budget error, at the same
    instruction, fused or not."""
    spec = tmp_path / "loop.yaml"
    spec.write_text("""
name: Loop
players: [2, 2]
cards:
  c: {zone: deck, faces: [{count: 3}]}
zones:
  deck: {kind: pile, visibility: hidden}
variables:
  n: {initial: 0}
limits: {steps_per_decision: 60}
start: main
phases:
  main:
    turn:
      steps:
        - choose: [go]
          if: "n == 0"
    next: end
actions:
  go:
    effect: "n += 1"
""")
    errors = []
    for backend in ("codegen", "closures"):
        g = gamespec.Game(gamespec.load(str(spec)).spec, backend=backend)
        s = g.new_game(players=2, seed=1)
        with pytest.raises(SpecRuntimeError) as e:
            s.apply(s.legal_actions()[0])
        errors.append((str(e.value), e.value.check))
    assert errors[0] == errors[1]
    assert errors[0][1] == "budget"


def test_generate_all_makes_every_fused_function_now():
    """generate_all(rs) leaves nothing to first use (Bali: its flow-loop decision points get None)."""
    from gamespec.compile.fused import generate_all
    g = gamespec.Game(gamespec.load(os.path.join(ROOT, "games", "bali.yaml")).spec)
    rs = g.ruleset(4, {})
    generate_all(rs)
    fns = [fn for ch in rs.chooses for fn in (ch.fused or {}).values()]
    assert fns and not any(isinstance(fn, _Pending) for fn in fns)
    assert any(fn is not None for fn in fns) and any(fn is None for fn in fns)
    generate_all(gamespec.Game(g.spec, backend="closures").ruleset(4, {}))   # nothing to do there


def test_a_decision_point_of_a_kind_the_fuser_does_not_know_takes_the_standard_path():
    """A construct added to the language later (here: a step field this module does not know, with a
    value) is neither fused nor inlined into another decision's continuation; the game still plays
    as the reference plays it."""
    from gamespec.compile.fused import generate_all
    path = os.path.join(ROOT, "games", "klink.yaml")
    g = gamespec.Game(gamespec.load(path).spec)
    rs = g.ruleset(4, {})
    odd = rs.chooses[1]                 # keep or pass
    odd.step = type(odd.step)(**{**vars(odd.step)})
    odd.step.simultaneous = True        # as a later construct might add
    generate_all(rs)
    assert all(fn is None for fn in odd.fused.values())
    look = rs.chooses[0].fused["look"]  # look is followed by keep-or-pass: not inlined, left to the flow
    assert look is not None and "s.pending = 1" not in look.source
    ref = gamespec.Game(g.spec, backend="closures")
    logs = []
    for game in (g, ref):
        s = game.new_game(players=4, seed=5, log=True)
        rnd = random.Random(5)
        while not s.is_terminal:
            acts = s.legal_actions()
            s.apply(acts[rnd.randrange(len(acts))])
        logs.append(s.log_lines())
    assert logs[0] == logs[1]


def test_an_action_with_a_card_parameter_and_no_effect_is_fused():
    """A choice of a card that changes nothing (an action with a card parameter and no effect, no
    trigger nor end test to run after it) is still a decision: its fused function records it (it
    generated an empty `try:` once, found by the mutation fuzzer)."""
    text = """
name: Pointing
players: [2, 2]
cards:
  number: {zone: deck, faces: [{each: {value: [1, 2, 3]}, count: 1}]}
zones:
  deck: {kind: pile, visibility: public}
variables:
  turns: {initial: 0}
start: play
phases:
  play:
    turn:
      on_begin: "turns += 1"
      steps:
        - choose: [point]
    end_if: "turns > 4"
    next: end
actions:
  point:
    label: "point at {card}"
    params:
      card: {from: "deck"}
scoring:
  score: "0"
"""
    fused = gamespec.load_text(text, "pointing.yaml")
    runs = []
    for game in (fused, gamespec.Game(fused.spec, backend="closures")):
        s = game.new_game(players=2, seed=1, log=True)
        assert len(s.legal_actions()) == 3
        while not s.is_terminal:
            s.apply(s.legal_actions()[-1])
        runs.append((s.decisions, s.log_lines(), s.scores))
    assert fused.ruleset(2, {}).chooses[0].fused is not None       # the fused path was taken
    assert runs[0] == runs[1] and runs[0][0] == 5                  # five turns, one decision each
