"""The vector environment (docs/agents.md, "VectorEnv"): many games stepped in C in one call are the
Python engine's games — observations, masks, seats, every seat's rewards and ends at every step, the
opponent seats' random choices those of random.Random(game seed), games reset on their own seeds;
threads change nothing; Gymnasium's space checks; bad arguments and illegal ids refused; and the
learning example of docs/agents.md at small scale (a policy trained against random seats beats the
random baseline, with an interval)."""
from __future__ import annotations

import random

import pytest

np = pytest.importorskip("numpy", reason="the rl extra is not installed: pip install '.[rl]'")
pytest.importorskip("gymnasium", reason="the rl extra is not installed: pip install '.[rl]'")

import gamespec  # noqa: E402
from gamespec.errors import ActionSpaceError, GamespecError, IllegalAction, UsageError  # noqa: E402
from helpers import GAMES, library_slow, skip_without_cc  # noqa: E402

needs_cc = skip_without_cc()


def _reference(game, players, seed, learner):
    """The Python engine's game `seed`, the other seats playing random.Random(seed) (listing order)."""
    s = game.new_game(players=players, seed=seed)
    return [s, random.Random(seed), seed, learner]


def _advance(ref):
    s, r, _, learner = ref
    while learner >= 0 and not s.is_terminal and s.current_player != learner:
        s.apply(r.randrange(len(s.legal_actions())))


def _start(game, players, seed, learner, n):
    """The env's next game from `seed` on, played to the learner's turn; a game that ends before the
    learner's first decision is skipped (VectorEnv counts it and starts the next one): (ref, skipped)."""
    ref = _reference(game, players, seed, learner)
    _advance(ref)
    skipped = 0
    while ref[0].is_terminal:
        skipped += 1
        ref = _reference(game, players, ref[2] + n, learner)
        _advance(ref)
    return ref, skipped


@needs_cc
@pytest.mark.parametrize("path", library_slow(GAMES, ids=lambda p: p.rsplit("/", 1)[-1][:-5]))   # library: slow run
@pytest.mark.parametrize("opponents", [None, "random"])
def test_vector_env_is_the_python_engines_games(path, opponents):
    from gamespec.envs import VectorEnv, rewards
    game = gamespec.load(path)
    P = game.max_players
    try:
        game.action_space(P, game.check_options(None))
    except ActionSpaceError as e:
        pytest.skip(f"no fixed action space, no vector env: {e}")
    n, seed = 6, 40
    learner = 1 if opponents else -1
    env = VectorEnv(game, players=P, num_envs=n, seed=seed, opponents=opponents, learner=1)
    obs, info = env.reset()
    assert env.observation_space.contains(obs)
    rng = np.random.default_rng(0)
    ended = 0
    refs = []
    for i in range(n):
        ref, skipped = _start(game, P, seed + i, learner, n)
        refs.append(ref)
        ended += skipped
    step = 0
    while step < 250 or (ended == 0 and step < 1500):     # a long game (hundreds of decisions) ends once
        step += 1
        for i, ref in enumerate(refs):
            s = ref[0]
            p = s.current_player
            assert info["seat"][i] == p
            assert obs["observation"][i].tobytes() == s.observation_tensor(p).tobytes()
            assert np.flatnonzero(obs["action_mask"][i]).tolist() == sorted(set(s.legal_action_ids()))
        acts = np.array([rng.choice(np.flatnonzero(obs["action_mask"][i])) for i in range(n)])
        movers = info["seat"].copy()
        obs, rew, term, trunc, info = env.step(acts)
        assert not trunc.any()
        for i, ref in enumerate(refs):
            s = ref[0]
            s.apply_id(int(acts[i]))
            _advance(ref)
            if s.is_terminal:
                assert term[i]
                want = rewards(s)
                assert info["rewards"][i].tolist() == want
                assert rew[i] == want[learner if learner >= 0 else movers[i]]
                # SAME_STEP: the ended game's final observation, the learner's (else the mover's), kept
                seen = s.observation_tensor(learner if learner >= 0 else int(movers[i]))
                assert info["_final_obs"][i]
                assert info["final_obs"][i]["observation"].tobytes() == seen.tobytes()
                assert info["final_observation"][i].tobytes() == seen.tobytes()
                assert not info["final_obs"][i]["action_mask"].any()
                refs[i], skipped = _start(game, P, ref[2] + n, learner, n)
                ended += 1 + skipped
            else:
                assert not term[i] and not info["rewards"][i].any() and rew[i] == 0
                if "final_obs" in info:
                    assert info["final_obs"][i] is None and not info["_final_obs"][i]
                    assert not info["final_observation"][i].any()
    assert ended > 0 and int(info["games"].sum()) == ended
    env.close()


@needs_cc
@pytest.mark.slow           # a library game's build (about 6 s of CPU)
def test_a_game_that_ends_before_the_learners_first_decision_is_skipped():
    """Gin rummy's game 708 ends after two decisions of the opponent (random.Random(708)) before seat 0
    ever decides: the env counts it and shows game 709's first decision for seat 0 (before, its row
    showed no seat and an empty mask)."""
    import os
    from gamespec.envs import VectorEnv
    game = gamespec.load(os.path.join(os.path.dirname(GAMES[0]), "gin_rummy.yaml"))
    ref, skipped = _start(game, 2, 708, 0, 1)
    assert skipped == 1 and ref[2] == 709
    env = VectorEnv(game, players=2, num_envs=1, seed=708, opponents="random", learner=0)
    obs, info = env.reset()
    assert info["seat"][0] == 0 and info["games"][0] == 1
    assert obs["observation"][0].tobytes() == ref[0].observation_tensor(0).tobytes()
    assert np.flatnonzero(obs["action_mask"][0]).tolist() == sorted(set(ref[0].legal_action_ids()))
    env.close()


@needs_cc
def test_threads_and_seeds_give_the_same_arrays():
    from gamespec.envs import VectorEnv
    game = gamespec.load(GAMES[0])
    runs = []
    for threads, stream in ((1, False), (2, False), (1, True), (2, True)):   # rows written in place or streamed
        env = VectorEnv(game, players=4, num_envs=32, seed=7, opponents="random", num_threads=threads,
                        stream=stream)
        obs, _ = env.reset()
        out = [obs["observation"].copy()]
        for _ in range(60):
            obs, r, term, _, info = env.step(obs["action_mask"].argmax(axis=1))
            out += [obs["observation"].copy(), obs["action_mask"].copy(), r.copy(), term.copy()]
        runs.append(out)
        env.close()
    assert all(all(np.array_equal(a, b) for a, b in zip(runs[0], other)) for other in runs[1:])


def _steps(env, calls):
    """Every array a caller reads over `calls` steps (first legal id each), copied."""
    obs, _ = env.reset()
    out = [obs["observation"].copy()]
    for _ in range(calls):
        obs, r, term, _, info = env.step(obs["action_mask"].argmax(axis=1))
        out += [obs["observation"].copy(), obs["action_mask"].copy(), r.copy(), term.copy()]
    return out


def _same(a, b):
    return len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b))


@needs_cc
def test_threads_kept_between_calls_shared_by_concurrent_envs_and_after_fork():
    """The worker threads kept between calls: two envs stepped at once from two Python threads (one
    has the pool, the other makes its own threads) and a forked child's env (the workers stayed in
    the parent) give the arrays one thread gives; nothing hangs (the child is stopped by an alarm)."""
    import os
    import signal
    import threading
    from gamespec.envs import VectorEnv
    game = gamespec.load(GAMES[0])

    def make(threads, n=24):
        return VectorEnv(game, players=4, num_envs=n, seed=5, opponents="random", num_threads=threads)
    want = _steps(make(1), 40)
    got = {}

    def run(k):
        got[k] = _steps(make(2), 40)
    ts = [threading.Thread(target=run, args=(k,)) for k in range(2)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(120)
    assert sorted(got) == [0, 1] and _same(got[0], want) and _same(got[1], want)
    pid = os.fork()
    if pid == 0:        # the child: its own pool
        code = 3
        try:
            signal.alarm(60)
            code = 0 if _same(_steps(make(2), 40), want) else 1
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
    assert _same(_steps(make(2), 40), want)       # and the parent's pool still answers


@needs_cc
def test_threads_with_pauses_between_calls_give_the_same_arrays():
    """A caller with work of its own between its steps: steady pauses of 0.3 ms (the pool's worker
    sleeps until shortly before the next call is due, then spins: step.c, paced), and pauses that
    change (the worker sleeps on the condition variable and is woken) give one thread's arrays."""
    import time
    from gamespec.envs import VectorEnv
    game = gamespec.load(GAMES[0])

    def steps(threads, pauses):
        env = VectorEnv(game, players=4, num_envs=12, seed=9, opponents="random", num_threads=threads)
        obs, _ = env.reset()
        out = []
        for k, pause in enumerate(pauses):
            time.sleep(pause)
            obs, r, term, _, info = env.step(obs["action_mask"].argmax(axis=1))
            out += [obs["observation"].copy(), obs["action_mask"].copy(), r.copy(), term.copy()]
        env.close()
        return out
    steady = [0.0003] * 30
    changing = [0.0003 * (1 + k % 5) + (0.003 if k % 7 == 0 else 0) for k in range(30)]
    assert _same(steps(2, steady), steps(1, steady))
    assert _same(steps(2, changing), steps(1, changing))


@needs_cc
@pytest.mark.parametrize("dtype", ["int16", "uint8"])
def test_whole_number_observation_rows_hold_the_float_rows(dtype):
    """obs_dtype: the same tensor, element for element, in a narrower type (observations, final
    observations, both threads and both ways of writing rows), and its space says the type."""
    from gamespec.envs import VectorEnv
    game = gamespec.load(GAMES[0])
    envs = [VectorEnv(game, players=4, num_envs=16, seed=3, opponents="random", obs_dtype=d, num_threads=t, stream=st)
            for d, t, st in (("float32", 1, False), (dtype, 1, False), (dtype, 2, True))]
    for e in envs[1:]:
        assert e.single_observation_space["observation"].dtype == np.dtype(dtype)
    outs = [e.reset()[0] for e in envs]
    ended = 0
    for _ in range(120):
        a = outs[0]["action_mask"].argmax(axis=1)
        got = [e.step(a) for e in envs]
        outs = [g[0] for g in got]
        ref = outs[0]["observation"]
        for o, g, e in zip(outs[1:], got[1:], envs[1:]):
            assert o["observation"].dtype == np.dtype(dtype) and e.observation_space.contains(o)
            assert np.array_equal(o["observation"].astype(np.float32), ref)
            assert np.array_equal(o["action_mask"], outs[0]["action_mask"])
            assert np.array_equal(g[2], got[0][2]) and np.array_equal(g[1], got[0][1])
            if "final_observation" in got[0][4]:
                assert np.array_equal(g[4]["final_observation"].astype(np.float32), got[0][4]["final_observation"])
        ended += int(got[0][2].sum())
    assert ended > 0
    for e in envs:
        e.close()


BIG = """name: Counters
players: [2, 2]
cards:
  token:
    zone: pool
    faces:
      - {each: {value: [1, 2, 3, 4]}}
zones:
  pool: {kind: pile, visibility: hidden}
variables:
  points: {per_player: true, initial: 0}
  turns: {initial: 0}
start: play
phases:
  play:
    turn:
      on_end: "turns += 1"
      steps:
        - choose: [small, big]
    end_if: "turns >= 8"
    next: end
actions:
  small:
    effect: "points[actor] += 1"
  big:
    effect: "points[actor] += 100"
scoring:
  score: "points[p]"
"""


@needs_cc
def test_a_value_beyond_the_row_type_is_an_error_naming_its_place(tmp_path):
    """obs_dtype never clips: a value outside the type stops the step with a UsageError that names the
    tensor's piece, place and value; a wide enough type plays the same games as float32."""
    from gamespec.envs import VectorEnv
    from gamespec.envs import observation_layout
    path = tmp_path / "counters.yaml"
    path.write_text(BIG)
    lay = {name: off for name, off, _ in observation_layout(str(path), players=2)}
    env = VectorEnv(str(path), players=2, num_envs=2, obs_dtype="int8")
    obs, _ = env.reset()
    big = obs["action_mask"].shape[1] - 1          # the last id: big
    with pytest.raises(UsageError, match=r"does not fit obs_dtype int8 \(-128 to 127\): 'var points\[0\]' "
                                         rf"\(place {lay['var points[0]']}\) is 200"):
        for _ in range(8):
            assert obs["action_mask"][:, big].all()
            obs = env.step(np.full(2, big))[0]
    env.close()
    wide, ref = (VectorEnv(str(path), players=2, num_envs=2, obs_dtype=d) for d in ("int16", "float32"))
    a, b = wide.reset()[0], ref.reset()[0]
    for _ in range(8):
        a, b = wide.step(np.full(2, big))[0], ref.step(np.full(2, big))[0]
        assert np.array_equal(a["observation"].astype(np.float32), b["observation"])
    with pytest.raises(UsageError, match="obs_dtype is one of float32, int16, int8, uint8"):
        VectorEnv(str(path), players=2, num_envs=2, obs_dtype="float16")


@needs_cc
def test_gymnasium_spaces_and_conventions():
    import gymnasium
    from gymnasium.utils.env_checker import check_action_space, check_observation_space
    from gamespec.envs import VectorEnv
    game = gamespec.load(GAMES[-1])
    env = VectorEnv(game, players=game.min_players, num_envs=4, seed=1, opponents="random")
    assert isinstance(env, gymnasium.vector.VectorEnv)
    assert env.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP
    check_observation_space(env.single_observation_space)
    check_action_space(env.single_action_space)
    obs, info = env.reset(seed=3)
    assert env.observation_space.contains(obs) and (info["seat"] == 0).all()
    again, _ = env.reset(seed=3)
    assert np.array_equal(obs["observation"], again["observation"])
    a = obs["action_mask"].argmax(axis=1)
    obs, r, term, trunc, info = env.step(a)
    assert r.dtype == np.float32 and term.dtype == np.bool_ and env.observation_space.contains(obs)
    bad = obs["action_mask"].argmin(axis=1)
    with pytest.raises(IllegalAction):
        env.step(bad)
    with pytest.raises(IllegalAction):
        env.step(np.array([0, 1]))
    with pytest.raises(IllegalAction):
        env.step(np.full(4, env.kit.num_ids))
    for kw in ({"num_envs": 0}, {"opponents": "ismcts"}, {"reward": "x"}, {"num_threads": 0},
               {"opponents": "random", "learner": 9}):
        with pytest.raises(UsageError):
            VectorEnv(game, players=game.min_players, **{"num_envs": 2, **kw})
    for bad in ("ismcts:0", "ismcts:x", "ismcts:-3", "ismcts:"):
        with pytest.raises(UsageError, match="ismcts:N"):
            VectorEnv(game, players=game.min_players, num_envs=2, opponents=bad)
    env.close()
    assert issubclass(UsageError, GamespecError)


@needs_cc
def test_learning_example_beats_random_seats():
    """docs/agents.md's example at small scale: a linear softmax policy (numpy) trained by REINFORCE
    with the vector env against random seats wins more than the random baseline (a 95% interval)."""
    from gamespec.envs.examples import train_against_random
    got = train_against_random("games/klink.yaml", players=3, num_envs=64, updates=25, eval_games=300, seed=0)
    assert got["trained_interval"][0] > got["baseline_interval"][1], got     # the intervals do not meet
    assert got["steps"] == 25 * 16 * 64 and len(got["curve"]) == 25
