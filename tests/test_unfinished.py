"""Games random bots cannot finish (issue 31): `simulate` and `check --strict` say so plainly, after a
probe bounded by decisions and CPU time, instead of running every game into the spec's budgets; an
option that bounds the game (docs/idioms.md, "Games to a target score") makes them finish."""
from __future__ import annotations

import time

import pytest

import gamespec
from gamespec import simulate as sim
from gamespec.authoring.lints import lint
from gamespec.cli import main

# first to a streak of 15 pushes wins; each turn a third of the moves push, the others reset the
# streak: random moves (almost) never get there
RACE = """\
name: Race
players: [2, 3]
options:
  max_rounds: {default: 0, doc: "end the game after this many rounds (0: play to the target)"}
cards:
  token: {zone: box, faces: [{count: 1}]}
zones:
  box: {kind: pile, visibility: public}
variables:
  streak: {per_player: true, initial: 0}
  rounds: {initial: 0}
end_if: "any(streak[q] >= 15 for q in players) or (max_rounds > 0 and rounds >= max_rounds)"
phases:
  play:
    turn:
      on_end: "if current == num_players - 1 { rounds += 1 }"
      steps:
        - choose: [push, slip, stumble]
actions:
  push: {effect: "streak[actor] += 1"}
  slip: {effect: "streak[actor] = 0"}
  stumble: {effect: "streak[actor] = 0"}
scoring:
  score: "streak[p]"
"""


@pytest.fixture()
def race(tmp_path):
    path = tmp_path / "race.yaml"
    path.write_text(RACE, encoding="utf-8")
    return str(path)


def test_the_probe_is_bounded_by_decisions_and_says_how_many_games_it_tried(race):
    g = gamespec.load(race)
    t0 = time.process_time()
    found = sim.finish_probe(g, 2, g.check_options({}))
    assert found["ended"] == 0 and 0 < found["tried"] <= sim.PROBE_GAMES
    assert found["decisions"] <= sim.PROBE_TOTAL and found["max_decisions"] == sim.PROBE_DECISIONS
    assert time.process_time() - t0 < sim.PROBE_CPU + 5       # CPU-bounded, whatever the machine's load
    msg = sim.unfinished_message(found, 2, {"max_rounds": 0})
    assert msg.startswith(f"0 of {found['tried']} sample games ended within {sim.PROBE_DECISIONS} decisions")
    # a game that ends: the probe stops at the first game that ends
    bounded = sim.finish_probe(g, 2, g.check_options({"max_rounds": 5}))
    assert bounded == {"tried": 1, "ended": 1, "max_decisions": sim.PROBE_DECISIONS, "decisions": 10, "errors": 0}


def test_the_probe_stops_mid_game_at_its_cpu_budget_and_then_says_nothing(race):
    """The probe checks its CPU budget between decisions (it once did so only between games: with
    slow decisions `simulate --timeout 0.5` spent 13 s probing); a game it cut is not counted as
    tried, so no 'random bots cannot finish' verdict comes from a probe out of time."""
    g = gamespec.load(race)
    opts = g.check_options({})
    whole = sim.finish_probe(g, 2, opts, games=1)
    assert whole["tried"] == 1 and whole["decisions"] == sim.PROBE_DECISIONS     # a game runs to the bound
    found = sim.finish_probe(g, 2, opts, cpu=0.002)
    assert found["ended"] == 0 and found["tried"] == 0 and found["decisions"] == 0
    sim.check_finishes(g, 2, opts, timeout=0.002)      # no verdict: nothing raised
    with pytest.raises(sim.Unfinished):
        sim.check_finishes(g, 2, opts)


def test_simulate_stops_at_once_with_a_plain_message(race, capsys):
    with pytest.raises(sim.Unfinished, match="random bots cannot finish this game"):
        sim.simulate(race, games=50, workers=1)
    assert main(["simulate", race, "--games", "50", "--workers", "1", "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert "0 of " in err and "give it a bound for simulations, such as an option max_rounds" in err
    assert "Traceback" not in err
    # bounded by its option, it simulates
    assert main(["simulate", race, "--games", "20", "--workers", "1", "--option", "max_rounds=10", "--json"]) == 0
    # --no-probe plays anyway (each game then stops at the spec's own decision budget)
    out = sim.simulate(race, games=1, workers=1, options={"max_rounds": 30}, probe=False)
    assert out["games_finished"] == 1


def test_check_strict_reports_a_game_random_moves_never_finish_and_stays_bounded(race, tmp_path):
    t0 = time.process_time()
    found = [f for f in lint(race, games=2) if f.check == "never-ends"]
    assert len(found) == 1 and "0 of " in found[0].message and (found[0].line, found[0].col) == (1, 1)
    assert time.process_time() - t0 < 60
    fine = tmp_path / "fine.yaml"
    fine.write_text(RACE.replace("streak[q] >= 15", "streak[q] >= 2"), encoding="utf-8")
    assert not [f for f in lint(str(fine), games=1) if f.check == "never-ends"]


def test_the_repositorys_target_game_needs_its_bound():
    """tests/specs/streak.yaml, played to its target (max_rounds=0), is refused with the plain message;
    its default bound (12 rounds) makes every game end. Its target comes from a global list indexed
    by the player count (`goals[num_players - 2]`)."""
    import os
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "specs", "streak.yaml")
    with pytest.raises(sim.Unfinished, match="random bots cannot finish this game"):
        sim.simulate(path, games=20, workers=1, players=3, options={"max_rounds": 0})
    out = sim.simulate(path, games=20, workers=1, players=3)
    assert out["games_finished"] == 20 and not out.get("errors")
    g = gamespec.load(path)
    s = g.new_game(players=4, seed=1)
    assert g.evaluate(s, "goals[num_players - 2]") == 13 and g.evaluate(s, "goals[0]") == 15
