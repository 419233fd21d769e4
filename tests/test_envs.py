"""Agent interfaces (docs/agents.md): observation tensors and their leak properties, the PettingZoo
AEC environment (pettingzoo.test.api_test) and the OpenSpiel game (pyspiel.random_sim_test, MCTS on
resampled states, ISMCTS) for every spec in games/. Needs the `rl` extra; skipped without it."""
from __future__ import annotations

import glob
import os
import random

import pytest

np = pytest.importorskip("numpy", reason="the rl extra is not installed: pip install '.[rl]'")

import gamespec  # noqa: E402
from helpers import ROOT, config_id, configs, load  # noqa: E402
from gamespec.interpreter.determinize import relabel  # noqa: E402
from gamespec.interpreter.obs_tensor import encoder  # noqa: E402

GAMES = sorted(glob.glob(os.path.join(ROOT, "games", "*.yaml")))
SPECS = GAMES + sorted(glob.glob(os.path.join(ROOT, "tests", "specs", "*.yaml")))
CONFIGS = configs(SPECS)


def sample_states(game, players, options, seed=0, every=0.1):
    rnd = random.Random(seed)
    s = game.new_game(players=players, seed=seed, options=options)
    while not s.is_terminal:
        if rnd.random() < every:
            yield s.clone()
        acts = s.legal_actions()
        s.apply(acts[rnd.randrange(len(acts))])
    yield s


def game_id(path):
    return os.path.basename(path)[:-5]


# -- tensors ------------------------------------------------------------------------------------

@pytest.mark.parametrize("cfg", CONFIGS, ids=[config_id(c) for c in CONFIGS])
def test_tensor_shape_follows_the_documented_layout(cfg):
    path, players, options = cfg
    game = load(path)
    rs = game.ruleset(players, game.check_options(options))
    enc = encoder(rs)
    F = len(rs.faces)
    assert sum(int(np.prod(shape)) for _, _, shape in enc.layout) == enc.size
    assert [off for _, off, _ in enc.layout] == sorted(off for _, off, _ in enc.layout)
    names = [n for n, _, _ in enc.layout]
    assert names[:3] == ["player", "to_move", "phase"]
    for label in rs.zone_label:
        assert f"zone {label} faces" in names
    s = game.new_game(players=players, seed=3, options=options)
    t = s.observation_tensor(0)
    assert t.dtype == np.float32 and t.shape == (enc.size,)
    lay = {n: (o, shape) for n, o, shape in enc.layout}
    o, _ = lay["to_move"]
    assert t[o + s.current_player] == 1 and t[o:o + players + 1].sum() == 1
    for zi, label in enumerate(rs.zone_label):     # sizes and counts say what the observation says
        zo = s.observation(0)["zones"][label]
        assert t[lay[f"zone {label} size"][0]] == zo["size"]
        faces = t[lay[f"zone {label} faces"][0]:][:F]
        seen = [c for c in zo["cards"] if c is not None]
        assert faces.sum() == len(seen)
        assert t[lay[f"zone {label} hidden"][0]] == zo["size"] - len(seen)
    with pytest.raises(gamespec.GamespecError):
        s.observation_tensor(players)


@pytest.mark.parametrize("cfg", CONFIGS, ids=[config_id(c) for c in CONFIGS])
def test_tensor_unchanged_under_determinization_and_changed_with_a_known_card(cfg):
    path, players, options = cfg
    game = load(path)
    rng = random.Random(7)
    checked = changed = 0
    # a short game may sample no state where a seat sees a card it could exchange: more games then
    for seed in (players, players + 100, players + 200):
        if changed:
            break
        for s in sample_states(game, players, options, seed=seed):
            rs = s.rs
            for p in range(players):
                t = s.observation_tensor(p)
                for k in range(2):
                    d = s.determinize(p, random.Random(k))
                    assert np.array_equal(d.observation_tensor(p), t)
                    checked += 1
                bit = 1 << p
                known = [c for c in range(rs.ncards) if s._vis(c) & bit]
                if not known:
                    continue
                c = rng.choice(known)
                others = [x for x in range(rs.ncards) if rs.face_of[x] != rs.face_of[c] and s.loc[x] != s.loc[c]]
                if not others:
                    continue
                x = rng.choice(others)
                m = list(range(rs.ncards))
                m[c], m[x] = x, c
                d = relabel(s, m, p, rng)
                if d.observation(p) != s.observation(p) and \
                        _without_history(d.observation(p)) != _without_history(s.observation(p)):
                    assert not np.array_equal(d.observation_tensor(p), t), \
                        f"player {p} sees card {c} exchanged with card {x} but the tensor does not change"
                    changed += 1
    assert checked > 0 and changed > 0


def _without_history(obs):
    obs = dict(obs)
    obs.pop("history")
    return obs


# -- PettingZoo ---------------------------------------------------------------------------------

# the seed games and the test specs whose decisions come out of turn (reaction windows)
WINDOWS = GAMES + [os.path.join(ROOT, "tests", "specs", f"{n}.yaml") for n in ("bluff", "snap")]


@pytest.mark.filterwarnings("ignore:Observation")     # a Dict with action_mask, as PettingZoo's own card games
@pytest.mark.parametrize("path", WINDOWS, ids=game_id)
def test_pettingzoo_api_test(path):
    pytest.importorskip("pettingzoo", reason="the rl extra is not installed")
    from pettingzoo.test import api_test

    from gamespec.envs import pettingzoo_env
    game = load(path)
    for players in (game.min_players, game.max_players):
        env = pettingzoo_env(path, players=players, seed=1)
        api_test(env, num_cycles=300)


@pytest.mark.parametrize("path", GAMES, ids=game_id)
@pytest.mark.parametrize("reward", ["win", "score"])
def test_pettingzoo_plays_to_the_end_with_rewards_from_the_result(path, reward):
    pytest.importorskip("pettingzoo", reason="the rl extra is not installed")
    from gamespec.envs import pettingzoo_env
    game = load(path)
    players = game.max_players
    env = pettingzoo_env(game, players=players, reward=reward, seed=3)
    env.reset(seed=42)
    rng = np.random.default_rng(0)
    total = {a: 0.0 for a in env.possible_agents}
    steps = 0
    for agent in env.agent_iter():
        obs, r, term, trunc, info = env.last()
        total[agent] += r
        if term or trunc:
            env.step(None)
            continue
        assert env.observation_space(agent)["observation"].contains(obs["observation"])
        legal = np.flatnonzero(obs["action_mask"])
        assert len(legal) > 0
        env.step(int(rng.choice(legal)))
        steps += 1
    s = env.state
    assert s.is_terminal and steps == s.decisions
    if reward == "score":
        sign = 1 if game.spec.winner == "highest" else -1
        assert [total[a] for a in env.possible_agents] == [sign * x for x in s.scores]
    else:
        want = [0.0] * players if len(s.winners) == players else \
            [1.0 if p in s.winners else -1.0 for p in range(players)]
        assert [total[a] for a in env.possible_agents] == want
    # the same seed gives the same game
    env.reset(seed=42)
    assert env.state.to_json()["seed"] == s.to_json()["seed"]
    with pytest.raises(gamespec.GamespecError):
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(np.flatnonzero(mask == 0)[0]))


@pytest.mark.parametrize("path", GAMES, ids=game_id)
def test_pettingzoo_observations_unchanged_under_determinization(path):
    """Every byte an agent observes (tensor and mask) is the same in a world it cannot tell apart."""
    pytest.importorskip("pettingzoo", reason="the rl extra is not installed")
    from gamespec.envs import pettingzoo_env
    game = load(path)
    env = pettingzoo_env(game, players=game.max_players, seed=4)
    env.reset(seed=9)
    rng = np.random.default_rng(1)
    for step in range(40):
        real = env.state
        if real.is_terminal:
            break
        for p, agent in enumerate(env.possible_agents):
            obs = env.observe(agent)
            env.state = real.determinize(p, random.Random(step))
            env._legal = {i: k for k, i in enumerate(env._space.legal_ids(env.state))}
            other = env.observe(agent)
            env.state = real
            env._legal = {i: k for k, i in enumerate(env._space.legal_ids(real))}
            assert np.array_equal(obs["observation"], other["observation"])
            assert np.array_equal(obs["action_mask"], other["action_mask"])
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))


# -- OpenSpiel ----------------------------------------------------------------------------------

def _openspiel():
    pytest.importorskip("pyspiel", reason="the rl extra is not installed (open_spiel)")
    from gamespec.envs import openspiel
    return openspiel


@pytest.mark.parametrize("path", WINDOWS, ids=game_id)
def test_openspiel_random_sim_test(path):
    gos = _openspiel()
    import pyspiel
    game = load(path)
    for players in (game.min_players, game.max_players):
        g = gos.load(path, players=players)
        assert g.num_distinct_actions() == game.num_distinct_actions(players)
        assert g.observation_tensor_size() == encoder(game.ruleset(players, game.check_options({}))).size
        g.seed_games(players)
        pyspiel.random_sim_test(g, num_sims=1, serialize=False, verbose=False)
        st = g.new_initial_state(seed=1)
        st.apply_action(st.legal_actions()[-1])
        p = st.current_player()     # the Python shortcut gives what pyspiel's own path gives
        assert st.observation_tensor(p) == pytest.approx(pyspiel.State.observation_tensor(st, p))
        assert st.observation_tensor(p) == st.gamespec_state.observation_tensor(p).tolist()


@pytest.mark.parametrize("path", GAMES, ids=game_id)
def test_openspiel_resample_from_infostate_keeps_what_the_player_knows(path):
    gos = _openspiel()
    import pyspiel
    game = load(path)
    g = gos.load(path, players=game.max_players)
    rng = random.Random(1)
    moved = steps = 0
    for seed in range(5, 25):              # more games where one is short (a two-decision hand)
        if moved and steps >= 60:
            break
        st = g.new_initial_state(seed=seed)
        while not st.is_terminal() and steps < 60 * (seed - 4):
            steps += 1
            moved += _resampled_keeps_what_the_player_knows(st, pyspiel)
            st.apply_action(rng.choice(st.legal_actions()))
    assert moved > 0, "no resample moved a hidden card"


def _resampled_keeps_what_the_player_knows(st, pyspiel) -> bool:
    """One resample of the player to move: everything they are told the same; True if a card moved."""
    p = st.current_player()
    sampler = pyspiel.UniformProbabilitySampler(0., 1.)
    r = st.resample_from_infostate(p, sampler)
    # no real history: its ids name the cards their choosers saw (a clone's history told p the
    # card a kidnapper kept face down)
    assert r.history() == [] and r.full_history() == [] and r.move_number() == 0
    assert r.information_state_string(p) == st.information_state_string(p)
    assert r.observation_string(p) == st.observation_string(p)
    assert [r.action_to_string(p, a) for a in r.legal_actions()] == \
        [st.action_to_string(p, a) for a in st.legal_actions()]
    assert r.legal_actions() == st.legal_actions()
    assert np.array_equal(r.observation_tensor(p), st.observation_tensor(p))
    assert np.array_equal(r.information_state_tensor(p), st.information_state_tensor(p))
    return r.gamespec_state.z != st.gamespec_state.z


@pytest.mark.parametrize("path", GAMES, ids=game_id)
def test_openspiel_serialize_replays_the_same_game(path):
    """state.serialize() was pickle's AttributeError; it is the seed and the action history (OpenSpiel's
    own form), and game.deserialize_state replays them: the same state, history() included, on both
    engines. A resampled state (no history of its own) and bad text are named errors."""
    gos = _openspiel()
    import pyspiel
    from gamespec.errors import StateFormatError, UsageError
    game = load(path)
    for engine in ("python", "native"):
        g = gos.load(path, players=game.min_players, engine=engine)
        st = g.new_initial_state(seed=3)
        rng = random.Random(2)
        for k in range(40):
            if st.is_terminal():
                break
            if k % 13 == 0:
                back = g.deserialize_state(st.serialize())
                assert back.history() == st.history() and str(back) == str(st)
                assert [back.information_state_string(p) for p in range(g.num_players())] == \
                    [st.information_state_string(p) for p in range(g.num_players())]
                assert back.legal_actions() == st.legal_actions()
            st.apply_action(rng.choice(st.legal_actions()))
        if not st.is_terminal():
            with pytest.raises(UsageError, match="no history to serialize"):
                st.resample_from_infostate(st.current_player(), pyspiel.UniformProbabilitySampler(0., 1.)).serialize()
        text = st.serialize()
        for bad in ("{", "[]", text.replace('"seed": ', '"seed": "'), text.replace('"history": [', '"history": [-1, '),
                    text.replace('"history": [', '"history": [10000000000000000000000, '), "x" * 10 ** 7):
            with pytest.raises(StateFormatError):
                g.deserialize_state(bad)


@pytest.mark.parametrize("path", GAMES, ids=game_id)
def test_openspiel_mcts_and_ismcts_play(path):
    """OpenSpiel's own bots on the game: ISMCTS (resampling through determinize) and MCTS run on
    a state resampled for the player to move (determinized MCTS); short budgets, a few decisions
    each, the rest random, to the end."""
    _openspiel()
    from open_spiel.python.algorithms import ismcts, mcts
    gos = _openspiel()
    game = load(path)
    g = gos.load(path, players=game.min_players)
    rs = np.random.RandomState(0)
    ev = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs)
    mbot = mcts.MCTSBot(g, uct_c=2.0, max_simulations=4, evaluator=ev, random_state=rs, solve=False)
    ibot = ismcts.ISMCTSBot(g, ev, uct_c=2.0, max_simulations=4, random_state=rs)
    st = g.new_initial_state(seed=2)
    rng = random.Random(3)
    by_bot = 0
    while not st.is_terminal():
        p = st.current_player()
        legal = st.legal_actions()
        if by_bot < 6 and len(legal) > 1:
            if by_bot % 2 == 0:
                a = ibot.step(st)
            else:
                world = st.resample_from_infostate(p, pyspiel_sampler())
                a = mbot.step(world)
            assert a in legal
            by_bot += 1
        else:
            a = rng.choice(legal)
        st.apply_action(a)
    assert by_bot > 0
    w = st.gamespec_state.winners
    assert st.returns() == ([0.0] * g.num_players() if len(w) == g.num_players() else
                            [1.0 if q in w else -1.0 for q in range(g.num_players())])


@pytest.mark.parametrize("path", GAMES, ids=game_id)
def test_openspiel_information_state_tensor_is_the_players_information(path):
    """Issue 27: the game declared no information-state tensor. It is the observation tensor and
    the decision count (docs/agents.md), through the Python shortcut and pyspiel's observer alike."""
    gos = _openspiel()
    import pyspiel
    game = load(path)
    g = gos.load(path, players=game.min_players)
    assert g.get_type().provides_information_state_tensor
    assert g.information_state_tensor_size() == g.observation_tensor_size() + 1
    st = g.new_initial_state(seed=4)
    rng = random.Random(4)
    for _ in range(12):
        if st.is_terminal():
            break
        for p in range(g.num_players()):
            got = st.information_state_tensor(p)
            assert got == pytest.approx(pyspiel.State.information_state_tensor(st, p))
            assert got[:-1] == st.observation_tensor(p) and got[-1] == st.gamespec_state.decisions
            assert {type(x) for x in got} == {float}
        st.apply_action(rng.choice(st.legal_actions()))


@pytest.mark.parametrize("path", GAMES, ids=game_id)
def test_openspiel_max_game_length_is_measured_and_holds(path):
    """Issue 27: max_game_length was the 100,000-decision budget. It is measured (twice the longest
    of 200 random games and of the always-first and always-last games that end within 4 times the
    random games' bound, + 16), holds for other random games and for those two policies, and is
    enforced."""
    gos = _openspiel()
    game = load(path)
    players = game.min_players
    g = gos.load(path, players=players)
    bound = g.max_game_length()
    longest = max(p.decisions for p in game.playouts(200, seed=0, players=players))
    cap = 4 * (2 * longest + 16)
    for pick in (0, -1):       # the fixed policies, played here through the state API
        s = game.new_game(players=players, seed=0)
        while not s.is_terminal and s.decisions < cap:
            s.apply(s.legal_actions()[pick])
        if s.is_terminal:
            longest = max(longest, s.decisions)
            st = g.new_initial_state(seed=0)       # and it fits the declared bound
            while not st.is_terminal():
                st.apply_action(st.legal_actions()[pick])
    assert bound == min(game.spec.decisions_per_game, 2 * longest + 16) < game.spec.decisions_per_game
    others = max(p.decisions for p in game.playouts(200, seed=10_000, players=players))
    assert others <= bound
    # a bound below the length of the game played (always the first action), 5 unless shorter. That
    # game is no random one: it may run past the measured bound (No Thanks: refusing while a chip is
    # left is 229 decisions against 154), so it is played under the spec's own budget, the larger
    # bound docs/agents.md tells agents that play longer games than random ones to declare
    plain = gos.load(path, players=players, max_game_length=game.spec.decisions_per_game).new_initial_state(seed=1)
    length = 0
    while not plain.is_terminal():
        plain.apply_action(plain.legal_actions()[0])
        length += 1
    n = min(5, length - 1)
    assert n >= 1
    short = gos.load(path, players=players, max_game_length=n)
    assert short.max_game_length() == n
    st = short.new_initial_state(seed=1)
    for _ in range(n):
        st.apply_action(st.legal_actions()[0])
    before = st.gamespec_state.to_json()
    with pytest.raises(gos.GameTooLong, match=rf"max_game_length declared to OpenSpiel \({n}\)"):
        st.apply_action(st.legal_actions()[0])
    assert st.gamespec_state.to_json() == before
    with pytest.raises(gamespec.GamespecError, match="max_game_length"):
        gos.load(path, players=players, max_game_length=0)


def pyspiel_sampler():
    import pyspiel
    return pyspiel.UniformProbabilitySampler(0., 1.)


def test_missing_players_and_bad_reward_are_clear_errors():
    gos = _openspiel()
    from gamespec.envs import pettingzoo_env
    path = GAMES[0]
    with pytest.raises(gamespec.GamespecError):
        gos.load(path, players=99)
    with pytest.raises(gamespec.GamespecError):
        gos.load(path, reward="money")
    with pytest.raises(gamespec.GamespecError):
        pettingzoo_env(path, reward="money")


@pytest.mark.parametrize("path", GAMES, ids=game_id)
def test_native_and_python_envs_are_the_same_game(path):
    """The adapters' native paths (legality checked in C, the tensor list from C's non-zero places, the
    mask from C) give what their Python-engine paths give, step by step; an illegal id is refused with
    the game unchanged."""
    pytest.importorskip("pettingzoo", reason="the rl extra is not installed")
    from gamespec.envs import openspiel as gos
    from gamespec.envs import pettingzoo_env
    from gamespec.envs.common import native_kit
    game = load(path)
    players = game.max_players
    if native_kit(game, players, game.check_options(None)) is None:
        pytest.skip("no native per-step state here")
    envs = [pettingzoo_env(game, players=players, seed=5, engine=e) for e in ("native", "python")]
    for env in envs:
        env.reset(seed=9)
    assert envs[0].engine == "native" and envs[1].engine == "python"
    rng = np.random.default_rng(1)
    refused = False
    for agent in envs[1].agent_iter():
        got = [env.last() for env in envs]
        (o1, r1, t1, _, i1), (o2, r2, t2, _, i2) = got
        assert envs[0].agent_selection == agent and (r1, t1, i1) == (r2, t2, i2)
        assert o1["observation"].tobytes() == o2["observation"].tobytes()
        assert o1["action_mask"].tobytes() == o2["action_mask"].tobytes()
        other = envs[0].possible_agents[(envs[0].possible_agents.index(agent) + 1) % players]
        assert envs[0].observe(other)["action_mask"].tobytes() == envs[1].observe(other)["action_mask"].tobytes()
        if t1:
            a = None
        else:
            legal = np.flatnonzero(o1["action_mask"])
            if not refused:
                before = envs[0].state.to_json()
                with pytest.raises(gamespec.GamespecError, match="not legal"):
                    envs[0].step(int(np.flatnonzero(o1["action_mask"] == 0)[0]))
                with pytest.raises(gamespec.GamespecError, match="not legal"):
                    envs[0].step(None)
                assert envs[0].state.to_json() == before
                refused = True
            a = int(rng.choice(legal))
        for env in envs:
            env.step(a)
    assert envs[0].state.to_json() == envs[1].state.to_json()
    # the bound a user gets (measured from random games; this one is random): a random Hearts game
    # is 366-909 decisions at 4 players, Oh Hell 476 at 7, so no fixed number fits every game
    bound = gos.measured_length(game, players, game.check_options(None))
    gs = [gos.load(game, players=players, engine=e, max_game_length=bound) for e in ("native", "python")]
    sts = [g.new_initial_state(seed=3) for g in gs]
    import pyspiel
    observers = [[g.make_py_observer(pyspiel.IIGObservationType(perfect_recall=r)) for g in gs] for r in (False, True)]
    steps = 0
    while not sts[1].is_terminal():
        p = sts[1].current_player()
        assert sts[0].current_player() == p
        assert sts[0].legal_actions() == sts[1].legal_actions() and sts[0].legal_actions(p) == sts[1].legal_actions(p)
        assert sts[0].legal_actions((p + 1) % players) == []
        # the Python-side legal_actions and pyspiel's C++ one (through _legal_actions) agree
        assert pyspiel.State.legal_actions(sts[0]) == sts[0].legal_actions()
        assert pyspiel.State.legal_actions(sts[0], (p + 1) % players) == []
        q = (p + steps) % players
        assert sts[0].observation_tensor(q) == sts[1].observation_tensor(q)
        assert sts[0].information_state_tensor(q) == sts[1].information_state_tensor(q)
        for pair in observers:      # the native observer's array is written by C: the same values
            for o, st in zip(pair, sts):
                o.set_from(st, q)
            assert pair[0].tensor.tobytes() == pair[1].tensor.tobytes()
        assert observers[1][0].tensor[:-1].tolist() == sts[1].observation_tensor(q)
        a = sts[1].legal_actions()[int(rng.integers(len(sts[1].legal_actions())))]
        assert sts[0].action_to_string(p, a) == sts[1].action_to_string(p, a)
        if steps == 0:
            bad = next(i for i in range(game.num_distinct_actions(players)) if i not in sts[1].legal_actions())
            with pytest.raises(gamespec.GamespecError, match="not legal"):
                sts[0].apply_action(bad)
        for st in sts:
            st.apply_action(a)
        steps += 1
    assert sts[0].is_terminal() and sts[0].returns() == sts[1].returns()
    assert sts[0].legal_actions() == [] == pyspiel.State.legal_actions(sts[0]) == sts[1].legal_actions()
    assert sts[0].current_player() == sts[1].current_player()


def test_a_fixed_policy_that_never_ends_its_game_is_left_out_of_the_bound(tmp_path):
    """Coup's always-last game never ends (its budget faults it); measuring max_game_length gives that
    policy up before the spec's budget (a small one here), so loading the game does not fault and the
    bound is the random games' own."""
    gos = _openspiel()
    src = open(os.path.join(ROOT, "games", "coup.yaml"), encoding="utf-8").read()
    path = tmp_path / "coup.yaml"
    path.write_text(src + "\nlimits: {decisions_per_game: 300}\n", encoding="utf-8")
    game = load(str(path))
    s = game.new_game(players=2, seed=0)
    with pytest.raises(gamespec.GamespecError, match="did not end after 300 decisions"):
        while not s.is_terminal:
            s.apply(s.legal_actions()[-1])
    longest = max(p.decisions for p in game.playouts(200, seed=0, players=2))
    assert gos.load(str(path), players=2).max_game_length() == 2 * longest + 16 < 300
