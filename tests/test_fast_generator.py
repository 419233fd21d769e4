"""The fast generator (docs/native.md, "Fast generator"): splitmix64 shuffles and random decisions,
asked for as generator="fast" and named "splitmix64" in logs. It is splitmix64 (known answers), its
shuffle is a fair permutation, C draws what Python draws word for word (rejections included), native
playouts and simulations give the Python engine's games for every spec, the same seed gives the same
games, its logs replay and its saved states load, and the API and the command line take it while
logs take only real names. Also: playouts() results as arrays (gamespec.game.Playouts)."""
from __future__ import annotations

import glob
import json
import os
import random
import sys
from array import array
from collections import Counter

import pytest

import gamespec
from gamespec.cli import main
from gamespec.errors import UsageError
from gamespec.game import Playout
from gamespec.interpreter import rng as R
from helpers import GAMES, ROOT, config_id, skip_without_cc

SPECS = GAMES + sorted(glob.glob(os.path.join(ROOT, "tests", "specs", "*.yaml")))
NOT_YET = set()      # test_native.NOT_YET: they play in Python
KLINK = os.path.join(ROOT, "games", "klink.yaml")
TINY = os.path.join(ROOT, "tests", "specs", "tiny.yaml")
needs_cc = skip_without_cc()

_games = {}


def load(path, backend=None):
    g = _games.get((path, backend))
    if g is None:
        g = _games[(path, backend)] = gamespec.load(path, backend=backend)
    return g


def lib_of(path, players, options=None):
    from gamespec.compile.cbuild import library
    g = load(path, "native")
    lib = library(g.ruleset(players, g.check_options(options)))
    assert not isinstance(lib, str), lib
    return lib


# -- the generator itself -----------------------------------------------------------------------------
def test_it_is_splitmix64():
    """The reference splitmix64 from state 0 (Vigna's splitmix64.c): e220a8397b1dcdaf, 6e789e6aa1b965f4,
    06c45d188009454f; a draw below 2**64 - 1 is that output's high word of the product."""
    x, outs = 0, []
    for _ in range(3):
        x = (x + R.GOLDEN) & R.MASK
        outs.append(R._mix(x))
    assert outs == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]
    f = R.FastRandom(0)
    assert f.randrange(1 << 32) == 0xE220A839        # high 32 bits of the first output
    assert f.randrange(2) == 0x6E789E6AA1B965F4 >> 63
    assert f.state == 2 * R.GOLDEN & R.MASK


def test_names_aliases_and_logs_take_real_names_only():
    assert R.resolve_generator("fast") == R.FAST == "splitmix64"
    assert R.resolve_generator(None) == R.resolve_generator("default") == R.ALGORITHM
    assert R.check_generator("splitmix64") == "splitmix64"
    with pytest.raises(ValueError):
        R.check_generator("fast")          # a log or saved state names the real generator
    with pytest.raises(ValueError):
        R.resolve_generator("mt19937")
    g = load(KLINK)
    with pytest.raises(UsageError):
        g.new_game(3, seed=1, generator="quick")
    with pytest.raises(UsageError):
        g.playouts(2, seed=1, players=3, generator="quick")


def test_fast_shuffle_is_a_fair_permutation():
    items = list(range(52))
    s = 12345
    for _ in range(20):
        s = R.shuffle_fast(s, items)
    assert sorted(items) == list(range(52))
    counts = Counter()
    for state in range(6000):
        xs = [0, 1, 2]
        R.shuffle_fast(R.seed_state(state), xs)
        counts[tuple(xs)] += 1
    assert len(counts) == 6 and all(900 < c < 1100 for c in counts.values()), counts   # 1000 +- 4 sigma
    firsts = Counter()
    for state in range(4000):
        xs = list(range(10))
        R.shuffle_fast(R.seed_state(state), xs)
        firsts[xs[-1]] += 1
    assert all(300 < c < 500 for c in firsts.values()), firsts


def test_fast_draws_are_unbiased_at_the_rejection_edge():
    """below(m) for m just above 2**63 rejects about half the draws: the results stay in range and
    uniform over the two halves."""
    f = R.FastRandom(99)
    m = (1 << 63) + 1
    draws = [f.randrange(m) for _ in range(4000)]
    assert all(0 <= d < m for d in draws)
    low = sum(d < m // 2 for d in draws)
    assert 1850 < low < 2150
    assert f.state != 99 + 4000 * R.GOLDEN & R.MASK       # some draws were rejected (taken again)


@needs_cc
def test_c_shuffles_and_draws_are_pythons_word_for_word():
    lib = lib_of(TINY, 2)
    r = random.Random(3)
    for n in [0, 1, 2, 3, 5, 52, 116, 1000, 100_000]:
        for _ in range(10 if n < 1000 else 2):
            state = r.getrandbits(64)
            items = list(range(n))
            py = list(items)
            want = R.shuffle_fast(state, py)
            got, cs = lib.shuffle(state, items, "splitmix64")
            assert got == want and cs == py, (n, state)
    below = [1, 2, 3, 7, 52, 1000, 2 ** 32, 2 ** 32 + 1, (1 << 63) + 1, (1 << 64) - 1, (1 << 63) + 12345] * 40
    for state in [0, 1, 2 ** 64 - 1, 0xDEADBEEF]:
        f = R.FastRandom(state)
        want = [f.randrange(m) for m in below]
        got, end = lib.fast_draws(state, below)
        assert got == want and end == f.state, state
    for seed, lane in [(0, 0), (7, 1), (2 ** 64 - 1, 4), (123456789, 63)]:
        f = R.FastRandom(R.stream(seed, lane))
        want = [f.randrange(m) for m in (2, 3, 10, 1000)]
        got, end = lib.fast_draws(seed, [2, 3, 10, 1000], lane)
        assert got == want and end == f.state


def test_streams_differ_by_lane_and_from_the_shuffles():
    seed = 42
    lanes = {R.stream(seed, lane) for lane in range(65)}
    assert len(lanes) == 65 and R.seed_state(seed) not in lanes
    assert R.stream(seed, 0) != R.stream(seed + 1, 0)


# -- the oracle: every spec, native against Python ------------------------------------------------------
def _configs():
    out = []
    for path in SPECS:
        g = load(path)
        for p in sorted({g.min_players, g.max_players}):
            out.append((path, p, {}))
    return out


CONFIGS = _configs()


@needs_cc
@pytest.mark.parametrize("cfg", CONFIGS, ids=[config_id(c) for c in CONFIGS])
def test_native_fast_playouts_are_the_python_engines(cfg):
    from gamespec.interpreter.native_engine import ST_OK
    path, players, opts = cfg
    want = load(path).playouts(12, seed=5, players=players, options=opts, generator="fast")
    got = load(path, "native").playouts(12, seed=5, players=players, options=opts, generator="fast")
    assert got == want
    assert [type(s) for x in got for s in x.scores] == [type(s) for x in want for s in x.scores]
    assert list(got.decisions) == [x.decisions for x in want]
    if os.path.basename(path)[:-5] not in NOT_YET:     # and they ran in C
        lib = lib_of(path, players, opts)
        assert all(r[0] == ST_OK for r in lib.playouts(5, 12, "splitmix64")), config_id(cfg)


def _loop(game, players, seed):
    """Game.playouts' game `seed` with the fast generator, as the index loop plays it."""
    s = game.new_game(players, seed=seed, generator="fast")
    pick = R.FastRandom(R.stream(seed, 0))
    while not s.is_terminal:
        s.apply_index(pick.randrange(s.legal_action_count()))
    return Playout(seed, s.scores, s.winners, s.decisions)


@pytest.mark.parametrize("stem", ["klink", "bali", "bacchus"])
def test_fast_playouts_are_the_loop_they_document(stem):
    g = load(os.path.join(ROOT, "games", stem + ".yaml"))
    runs = g.playouts(6, seed=100, players=4, generator="fast")
    assert runs == [_loop(g, 4, s) for s in range(100, 106)]
    assert runs != g.playouts(6, seed=100, players=4)       # another generator: other games


@needs_cc
@pytest.mark.parametrize("path", [os.path.join(ROOT, "games", s + ".yaml") for s in ("klink", "bali", "bacchus")]
                         + [os.path.join(ROOT, "tests", "specs", "race.yaml")])
def test_fast_simulate_native_is_python(path):
    from gamespec.simulate import TIMING_FIELDS, simulate
    g = load(path)
    p = g.min_players + 1 if g.max_players > g.min_players else g.min_players
    a = simulate(path, games=25, players=p, seed=7, workers=1, game=g, engine="python", generator="fast")
    b = simulate(path, games=25, players=p, seed=7, workers=1, game=load(path, "native"), engine="native",
                 generator="fast")
    for k in TIMING_FIELDS:
        a.pop(k, None)
        b.pop(k, None)
    assert a == b and a["generator"] == "splitmix64" and a["games_finished"] == 25
    c = simulate(path, games=25, players=p, seed=7, workers=1, game=g, engine="python")
    assert "generator" not in c and c["win_rate"] != a["win_rate"] or c["decisions_total"] != a["decisions_total"]


@needs_cc
def test_fast_random_seats_are_mirrored_in_c():
    """simulate's random seats under "fast": seat p draws from rng.stream(seed, p + 1), in both engines."""
    from gamespec.simulate import play_many, play_one
    g = load(KLINK)
    one = play_one(g, 3, 11, generator="fast")
    s = g.new_game(3, seed=11, generator="fast")
    seats = [R.FastRandom(R.stream(11, p + 1)) for p in range(3)]
    while not s.is_terminal:
        s.apply_index(seats[s.current_player].randrange(s.legal_action_count()))
    assert (one["scores"], one["decisions"]) == (s.scores, s.decisions)
    nat = play_many(load(KLINK, "native"), 3, [11], {}, engine="native", generator="fast", trace=False)[0]
    assert (nat["scores"], nat["winners"], nat["decisions"], nat["turns"]) == \
        (one["scores"], one["winners"], one["decisions"], one["turns"])


# -- determinism, logs, saved states ---------------------------------------------------------------------
@needs_cc
def test_same_seed_same_games():
    nat = load(KLINK, "native")
    a = nat.playouts(30, seed=2 ** 64 - 30, players=4, generator="fast")
    assert a == nat.playouts(30, seed=2 ** 64 - 30, players=4, generator="fast")
    assert a[1:] == nat.playouts(29, seed=2 ** 64 - 29, players=4, generator="fast")     # game g is seed g's
    assert a != nat.playouts(30, seed=0, players=4, generator="fast")


def test_fast_logs_replay_and_states_load():
    from gamespec.interpreter.replay import replay
    g = load(KLINK)
    s = g.new_game(3, seed=77, log=True, generator="fast")
    rnd = random.Random(1)
    while not s.is_terminal:
        s.apply_index(rnd.randrange(s.legal_action_count()))
    lines = s.log_lines()
    assert lines[0]["generator"] == "splitmix64"
    got = replay(g, json.loads(json.dumps(lines)))
    assert got["ok"], got
    t = g.new_game(3, seed=77, generator="fast")
    for _ in range(5):
        t.apply_index(0)
    back = g.state_from_json(json.loads(json.dumps(t.to_json())))
    assert back.to_json() == t.to_json() and back.gen == "splitmix64"
    # the default generator deals another game from the same seed
    assert g.new_game(3, seed=77).to_json()["zones"] != g.new_game(3, seed=77, generator="fast").to_json()["zones"]
    bad = [dict(lines[0], generator="fast")] + lines[1:]       # an alias is not a log's generator
    assert not replay(g, bad)["ok"]


@needs_cc
def test_a_fast_state_plays_out_in_c():
    """The loader takes a fast game's state (gen 2): rollouts from it are the Python engine's."""
    py, nat = load(KLINK), load(KLINK, "native")
    for seed in range(4):
        a, b = py.new_game(4, seed=seed, generator="fast"), nat.new_game(4, seed=seed, generator="fast")
        for k in range(seed * 3):
            a.apply_index(k % a.legal_action_count())
            b.apply_index(k % b.legal_action_count())
        ra, rb = random.Random(seed), random.Random(seed)
        assert a.playout(ra) == b.playout(rb) and ra.getstate() == rb.getstate()
        lib = lib_of(KLINK, 4)
        assert lib.load(b)
    # a FastRandom handed to a native state's playout: played in Python, from that stream
    b = nat.new_game(4, seed=9, generator="fast")
    assert b.playout(R.FastRandom(5)) == py.new_game(4, seed=9, generator="fast").playout(R.FastRandom(5))


# -- playouts as arrays ---------------------------------------------------------------------------------
@pytest.mark.parametrize("backend", [None, "native"])
def test_playouts_arrays(backend):
    if backend == "native":
        needs_cc(lambda: None)
    g = load(KLINK, backend)
    runs = g.playouts(20, seed=3, players=4)
    assert len(runs) == 20 and runs[0].seed == 3 and runs[-1] == runs[19] and runs[2:4] == [runs[2], runs[3]]
    with pytest.raises(IndexError):
        runs[20]
    import numpy as np
    assert runs.scores.shape == (20, 4) and runs.scores.dtype == np.int64
    assert runs.scores.tolist() == [r.scores for r in runs]
    assert runs.winners.tolist() == [[p in r.winners for p in range(4)] for r in runs]
    assert runs.decisions.tolist() == [r.decisions for r in runs]
    assert g.playouts(0, seed=3, players=4) == [] and len(g.playouts(0, seed=3, players=4)) == 0


def test_playouts_arrays_without_numpy(monkeypatch):
    monkeypatch.setitem(sys.modules, "numpy", None)        # import numpy fails
    runs = load(KLINK).playouts(5, seed=0, players=3)
    assert isinstance(runs.scores, array) and list(runs.scores) == [x for r in runs for x in r.scores]
    assert list(runs.decisions) == [r.decisions for r in runs]
    assert list(runs.winners) == [int(p in r.winners) for r in runs for p in range(3)]


@needs_cc
def test_playouts_a_game_c_stops_is_played_in_python(tmp_path):
    """A game the C code hands back (here: a spec that overflows 64 bits mid-game) keeps its row,
    from the Python engine: the same Playout and arrays as the default backend's."""
    text = open(TINY).read()
    g = load(TINY, "native")
    runs = g.playouts(8, seed=0, players=2, generator="fast")
    assert runs == load(TINY).playouts(8, seed=0, players=2, generator="fast")
    from gamespec.game import Playouts
    ok = array("b", [1, 0, 1])
    made = Playouts(10, 2, array("q", [1, 2, 0, 0, 5, 6]), array("b", [0, 1, 0, 0, 0, 0]), array("Q", [1, 0, 2]),
                    array("q", [4, 0, 6]), ok, replay=lambda s: Playout(s, [2.5, 3], [1], 9))
    assert made[0] == Playout(10, [1, True], [0], 4) and made[1] == Playout(11, [2.5, 3], [1], 9)
    assert made.scores.dtype.kind == "f" and made.decisions.tolist() == [4, 9, 6]
    assert made.winners.tolist() == [[True, False], [False, True], [False, True]]
    assert text


# -- the command line -------------------------------------------------------------------------------------
def test_cli_simulate_generator_fast(capsys):
    try:
        main(["simulate", "--help"])
    except SystemExit:
        pass
    assert "guessable" in capsys.readouterr().out
    assert main(["simulate", KLINK, "--games", "20", "--players", "3", "--seed", "4", "--workers", "1",
                 "--engine", "python", "--generator", "fast", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["generator"] == "splitmix64"
    from gamespec.simulate import simulate
    want = simulate(KLINK, games=20, players=3, seed=4, workers=1, generator="fast")
    assert out["win_rate"] == want["win_rate"] and out["decisions_total"] == want["decisions_total"]
    assert main(["simulate", KLINK, "--games", "20", "--players", "3", "--seed", "4", "--workers", "1",
                 "--engine", "python", "--json"]) == 0
    assert "generator" not in json.loads(capsys.readouterr().out)


def test_fast_studies_run_locally_only():
    from gamespec.analysis import run_study
    with pytest.raises(UsageError, match="local backend"):
        run_study(KLINK, games=2, players=3, backend="ray", generator="fast")
    out = run_study(KLINK, games=3, players=3, workers=1, generator="fast", engine="python")
    assert out["generator"] == "splitmix64" and out["summary"]["games_finished"] == 3
