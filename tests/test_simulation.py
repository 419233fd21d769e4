"""The generic random-simulation test (OpenSpiel's random_sim_test) over every spec in games/ and tests/specs/.

For every seed game, player count and option set: 60 seeded games (GAMESPEC_SIM_GAMES; the second half in the
slow run; a library game's ends 4, a test spec's 6) with uniformly
random actions. A clone and a JSON round trip equal the state at every step of a sixth of the games
(up to their 200th; every 16th step of the others, every 64th past the 256th); in that sixth both are
played to the end from one step with the same actions and give the same log and scores; cards are conserved per type; legal actions are empty only
at the end; the same seed gives the same log.
"""
from __future__ import annotations

import glob
import json
import os
import random

import pytest

from helpers import GAMES, LIBRARY_GAMES, ROOT, SEED_GAMES, config_id, configs, load

GAMES_PER_CONFIG = int(os.environ.get("GAMESPEC_SIM_GAMES", "60"))
CONFIGS = configs()
# every test spec (tests/specs/: the language's constructs, one mechanism each): the fewest and the most
# players with the default options, the last option set at the most players; fewer games each
NEW_SPECS = sorted(glob.glob(os.path.join(ROOT, "tests", "specs", "*.yaml")))
SPEC_CONFIGS = [c for c in configs(NEW_SPECS)
                if (c[2] == load(c[0]).check_options({}) and c[1] in (load(c[0]).min_players, load(c[0]).max_players))
                or (c[2] == load(c[0]).option_sets()[-1] and c[1] == load(c[0]).max_players)]
SPEC_GAMES = max(4, GAMES_PER_CONFIG // 10)
LIBRARY_SIM_GAMES = max(4, GAMES_PER_CONFIG // 15)    # 4 games for each of a library game's ends
# a seed game's 60 games per configuration: the first 30 in the default run, the other 30 in the slow one
SEED_DEFAULT_GAMES = GAMES_PER_CONFIG // 2


def _sim_params():
    out = []
    for c in CONFIGS + SPEC_CONFIGS:
        path = c[0]
        if path in SEED_GAMES:
            out.append(pytest.param(c, range(SEED_DEFAULT_GAMES), id=config_id(c)))
            out.append(pytest.param(c, range(SEED_DEFAULT_GAMES, GAMES_PER_CONFIG), id=config_id(c) + "-more",
                                    marks=pytest.mark.slow))
        else:
            out.append(pytest.param(c, range(LIBRARY_SIM_GAMES if path in LIBRARY_GAMES else SPEC_GAMES),
                                    id=config_id(c)))
    return out


def expected_type_counts(game, options):
    """Card counts per class straight from the YAML data (not from the compiled tables); None where a
    count is an expression."""
    from gamespec.spec.yamlsafe import load_yaml_file
    data = load_yaml_file(game.spec.filename)
    out = {}
    for cname, cl in data["cards"].items():
        if "if" in cl and not _truth(cl["if"], options):
            continue
        n = 0
        for f in cl["faces"]:
            if "if" in f and not _truth(f["if"], options):
                continue
            k = f.get("count", 1)
            if not isinstance(k, int):      # a count computed from the players: not read here
                return None
            for vals in (f.get("each") or {}).values():
                if isinstance(vals, str):       # `range(a, b)` / `range(n)`, read here independently
                    nums = [int(x) for x in vals.strip()[len("range("):-1].split(",")]
                    vals = range(*nums)
                k *= len(vals)
            n += k
        out[cname] = n
    return out


def _truth(expr, options):
    expr = str(expr).strip()
    neg = expr.startswith("not ")
    name = expr[4:].strip() if neg else expr
    if name not in options:
        pytest.skip(f"cannot evaluate card condition {expr!r} independently")
    return (not options[name]) if neg else bool(options[name])


def type_counts(state):
    rs = state.rs
    out = {}
    seen = []
    for z in state.z:
        for c in z:
            seen.append(c)
            t = rs.faces[rs.face_of[c]]["type"]
            out[t] = out.get(t, 0) + 1
    assert sorted(seen) == list(range(rs.ncards)), "a card is missing or duplicated"
    return out


def roundtrip(game, state):
    return game.state_from_json(json.loads(json.dumps(state.to_json())))


@pytest.mark.parametrize("cfg,games", _sim_params())
def test_random_simulation(cfg, games):
    path, players, options = cfg
    game = load(path)
    want = expected_type_counts(game, options)
    # the seed games' every configuration 60 games (30 of them in the slow run); a library game's
    # ends and a test spec's fewer
    for g in games:
        seed = 1000 + g
        rnd = random.Random(seed)
        fork = g % 6 == 0          # these games also play copies to the end and compare logs
        logged = fork or g % 20 == 0
        state = game.new_game(players=players, seed=seed, options=options, log=logged)
        if want is None:        # counts the YAML does not give plainly: conserved from the start
            want = type_counts(state)
        assert type_counts(state) == want
        fork_at = rnd.randrange(40)
        step = 0
        while not state.is_terminal:
            legal = state.legal_actions()
            assert legal, f"no legal action before the end (seed {seed}, step {step})"
            assert state.current_player is not None
            # every step of the forked games (a sixth) up to their 200th, every 16th otherwise (every
            # 64th past the 256th): the clone and the JSON round trip equal the state. A state's JSON
            # holds its whole history (linear), so a long game's checks cost its square (a Hearts game
            # to 100 points: 7,000 decisions); state_from_json re-plays that history, so it runs every
            # 16th step (every 128th past the 256th); the others check the fields (arranged_state).
            if (fork and step < 200) or step % (16 if step < 256 else 64) == 0:
                now = state.to_json()
                twin = state.clone()
                assert twin.to_json() == now
                rebuild = game.state_from_json if step % (16 if step < 256 else 128) == 0 else game.arranged_state
                back = rebuild(json.loads(json.dumps(now)))
                assert back.to_json() == now
                assert [a.key() for a in back.legal_actions()] == [a.key() for a in legal]
            action = legal[rnd.randrange(len(legal))]
            if step == fork_at and fork:
                # play the clone and the round-tripped copy to the end with the same actions
                _same_future(state, twin, back, seed)
            state.apply(action)
            step += 1
            if step % 25 == 0:
                assert type_counts(state) == want
        assert type_counts(state) == want
        assert state.legal_actions() == []
        assert state.current_player is None
        assert state.scores is not None and len(state.scores) == players
        if game.spec.cooperative:       # the table wins together, or nobody does
            assert state.winners in ([], list(range(players)))
        elif game.spec.no_winner_if is not None:      # a drawn outcome: nobody wins (scoring.no_winner_if)
            assert all(0 <= w < players for w in state.winners)
        else:
            assert state.winners and all(0 <= w < players for w in state.winners)
        if g % 20 == 0 and logged:   # determinism: the same seed and actions give the same log
            again = game.new_game(players=players, seed=seed, options=options, log=True)
            rnd2 = random.Random(seed)
            rnd2.randrange(40)
            while not again.is_terminal:
                acts = again.legal_actions()
                again.apply(acts[rnd2.randrange(len(acts))])
            assert again.log_lines() == state.log_lines()


def _same_future(state, twin, back, seed):
    runs = []
    for s in (state.clone(), twin, back):
        rnd = random.Random(seed * 7 + 1)
        while not s.is_terminal:
            acts = s.legal_actions()
            s.apply(acts[rnd.randrange(len(acts))])
        runs.append((s.scores, s.winners, s.log_lines()))
    assert runs[0] == runs[1] == runs[2]


def test_every_game_is_covered():
    assert GAMES, "no specs in games/"
    covered = {c[0] for c in CONFIGS}
    assert covered == set(GAMES)


@pytest.mark.parametrize("cfg", CONFIGS + SPEC_CONFIGS, ids=[config_id(c) for c in CONFIGS + SPEC_CONFIGS])
def test_backends_agree(cfg):
    """The generated-code backend and the reference closures give the same games, log for log."""
    path, players, options = cfg
    import gamespec
    fast = load(path)
    ref = gamespec.Game(fast.spec, backend="closures")
    for seed in range(8):
        logs = []
        for game in (fast, ref):
            rnd = random.Random(seed)
            s = game.new_game(players=players, seed=seed, options=options, log=True)
            while not s.is_terminal:
                acts = s.legal_actions()
                s.apply(acts[rnd.randrange(len(acts))])
            logs.append((s.log_lines(), s.to_json().get("marks")))    # per-card marks are not logged
        assert logs[0] == logs[1]
