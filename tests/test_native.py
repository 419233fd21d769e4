"""The native engine (docs/native.md): native playouts, rollouts, searches and simulations give exactly
the default backend's games; the generators are Python's bit for bit; faults end in the Python
engine's errors; the build is cached and verified; the fallback says why; strangers' text never
reaches the C source. Skipped (with the reason) where no C compiler is found."""
from __future__ import annotations

import glob
import json
import os
import shutil
import random
import re
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import gamespec
from gamespec.errors import SpecRuntimeError
from helpers import GAMES, ROOT, config_id, skip_without_cc

SPECS = GAMES + sorted(glob.glob(os.path.join(ROOT, "tests", "specs", "*.yaml")))


@pytest.fixture
def native_cache():
    """The run's temporary build cache (tests/conftest.py sets GAMESPEC_CACHE)."""
    return os.environ["GAMESPEC_CACHE"]


needs_cc = skip_without_cc()

_games = {}


def native(path):
    g = _games.get(("n", path))
    if g is None:
        g = _games[("n", path)] = gamespec.load(path, backend="native")
    return g


def python(path):
    g = _games.get(("p", path))
    if g is None:
        g = _games[("p", path)] = gamespec.load(path)
    return g


def lib_of(path, players, options=None):
    from gamespec.compile.cbuild import library
    g = native(path)
    lib = library(g.ruleset(players, g.check_options(options)))
    assert not isinstance(lib, str), lib
    return lib


def two_option_sets(game):
    from gamespec.spec.options import iter_option_sets
    sets = list(iter_option_sets(game.spec))
    return [sets[0]] if len(sets) == 1 else [sets[0], sets[-1]]


def configs(paths, every_count=True):
    out = []
    for path in paths:
        g = python(path)
        counts = range(g.min_players, g.max_players + 1) if every_count else sorted({g.min_players, g.max_players})
        for p in counts:
            for opts in two_option_sets(g):
                out.append((path, p, opts))
    return out


# -- the generators, against Python ---------------------------------------------------------------
@needs_cc
def test_shuffles_are_interpreter_rng_bit_for_bit():
    from gamespec.interpreter import rng as R
    lib = lib_of(os.path.join(ROOT, "tests", "specs", "tiny.yaml"), 2)
    r = random.Random(7)
    for n in [0, 1, 2, 3, 5, 52, 116, 1000, 300_000]:      # 300000 cards: the rejection path is taken
        for _ in range(12 if n < 1000 else 2):
            state = r.getrandbits(64) or 1
            items = list(range(n))
            for gen, fn in (("shake128", R.shuffle), ("xorshift64*", R.shuffle_xorshift)):
                py = list(items)
                want = fn(state, py)
                got, cs = lib.shuffle(state, items, gen)
                assert got == want and cs == py, (gen, n, state)
    for seed in [0, 1, 2 ** 32, 2 ** 64 - 1, 12345]:
        assert lib.seed_state(seed) == R.seed_state(seed)


@needs_cc
def test_python_random_stream_bit_for_bit():
    """init_by_array from a seed's 32-bit words, randrange (_randbelow_with_getrandbits) and
    getrandbits, for integer seeds and RandomBot's text seeds."""
    from gamespec.interpreter.native_engine import random_bot_key
    lib = lib_of(os.path.join(ROOT, "tests", "specs", "tiny.yaml"), 2)
    ops = [1, 2, 3, 7, 8, 9, 100, 2 ** 31, 2 ** 32, 2 ** 32 + 1, 2 ** 40, 5, 6, -64, -1, -32, -33] * 50
    seeds = [0, 1, 2, 2 ** 32 - 1, 2 ** 32, 2 ** 64 - 1, 987654321]
    for seed in seeds:
        key = [seed & 0xFFFFFFFF] + ([seed >> 32] if seed >> 32 else [])
        r = random.Random(seed)
        want = [r.randrange(n) if n > 0 else r.getrandbits(-n) for n in ops]
        got, state = lib.mt_draws(key, ops)
        assert got == want, seed
        assert tuple(state) == r.getstate()[1], seed
    for seed, seat in [(0, 0), (5, 3), (2 ** 64 - 1, 1)]:
        r = random.Random(f"gamespec.RandomBot:{seed}:{seat}")
        want = [r.randrange(n) for n in (2, 3, 10, 1000)]
        got, state = lib.mt_draws(random_bot_key(seed, seat), [2, 3, 10, 1000])
        assert got == want and tuple(state) == r.getstate()[1]


# -- whole games: the oracle --------------------------------------------------------------------------
# Specs the native compiler does not compile yet, with what its one line names: they play on the
# Python engine (the same games); every other spec must run in C (docs/native.md, "What falls back").
NOT_YET = {}


def _check_playouts(path, players, opts, n):
    from gamespec.compile.cbuild import library
    from gamespec.interpreter.native_engine import ST_OK
    want = python(path).playouts(n, seed=0, players=players, options=opts)
    got = native(path).playouts(n, seed=0, players=players, options=opts)
    assert got == want
    assert [type(s) for x in got for s in x.scores] == [type(s) for x in want for s in x.scores]
    name = os.path.basename(path)[:-5]
    if name in NOT_YET:         # it says why it falls back, and the Python engine played the same games
        g = native(path)
        why = library(g.ruleset(players, g.check_options(opts)))
        assert isinstance(why, str) and "does not handle yet" in why and NOT_YET[name] in why, why
        return
    # and they really ran in C: no game was handed back to the Python engine
    lib = lib_of(path, players, opts)
    assert all(r[0] == ST_OK for r in lib.playouts(0, n)), config_id((path, players, opts))


QUICK = configs(SPECS, every_count=False)


@needs_cc
@pytest.mark.parametrize("cfg", QUICK, ids=[config_id(c) for c in QUICK])
def test_native_playouts_are_the_default_backends(cfg):
    _check_playouts(*cfg, n=12)


FULL = configs(SPECS)


@needs_cc
@pytest.mark.slow
@pytest.mark.parametrize("cfg", FULL, ids=[config_id(c) for c in FULL])
def test_native_playouts_are_the_default_backends_everywhere(cfg):
    _check_playouts(*cfg, n=60)


@needs_cc
def test_state_playout_of_a_native_game_is_native_and_identical():
    """state.playout(rng) (not in place) goes through C; the state is left as it was and the rng as
    the Python playout leaves it."""
    path = GAMES[1]
    g = native(path)
    s = g.new_game(players=3, seed=4)
    for _ in range(7):
        s.apply_index(0)
    before = s.to_json()
    r1, r2 = random.Random(9), random.Random(9)
    a = s.playout(r1)
    c = s.clone()
    c.log = None
    b = c.playout(r2, in_place=True)       # the Python path
    assert a == b and r1.getstate() == r2.getstate()
    assert s.to_json() == before


_ROLL = [GAMES[0], GAMES[1], GAMES[2]] + [os.path.join(ROOT, "tests", "specs", f"{n}.yaml")
                                          for n in ("bidders", "ladder", "sealed", "sixes", "signals", "tokens",
                                                    "passing", "sets", "facing", "coop", "bags")]


@needs_cc
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(which=st.integers(0, len(_ROLL) - 1), seed=st.integers(0, 2 ** 64 - 1), depth=st.integers(0, 90),
       det=st.booleans(), rseed=st.integers(0, 2 ** 32))
def test_native_rollouts_from_random_states(which, seed, depth, det, rseed):
    """Random mid-game states (a random prefix, or a determinization of it) handed to native
    rollouts: the same scores as the Python playout, the rng left in the same state, and the
    state → struct → state round trip exact."""
    from gamespec.compile.cbuild import library
    from gamespec.interpreter.native_engine import flatten, rollout
    path = _ROLL[which]
    g = native(path)
    players = g.min_players + seed % (g.max_players - g.min_players + 1)
    s = g.new_game(players=players, seed=seed)
    r = random.Random(seed)
    for _ in range(depth):
        if s.is_terminal:
            break
        s.apply_index(r.randrange(s.legal_action_count()))
    if s.is_terminal:
        return
    if det:
        s = s.determinize(s.current_player, random.Random(rseed))
    lib = library(s.rs)
    assert lib.load(s)
    flat = flatten(lib, s)
    dumped = lib.dump()
    skip = {13, 17}          # the budget and the listing flag: the listing is made when loaded
    assert [x for i, x in enumerate(dumped) if i not in skip] == [x for i, x in enumerate(flat) if i not in skip]
    r1, r2 = random.Random(rseed), random.Random(rseed)
    a = rollout(lib, s, r1)
    c = s.clone()
    c.log = None
    b = c.playout(r2, in_place=True)
    assert a == b and r1.getstate() == r2.getstate()


# -- search and simulation ------------------------------------------------------------------------
@needs_cc
@pytest.mark.parametrize("path", GAMES + [os.path.join(ROOT, "tests", "specs", f"{n}.yaml") for n in ("sealed", "bags")],
                         ids=lambda p: os.path.basename(p)[:-5])
def test_native_ismcts_chooses_as_the_python_search(path):
    """The whole search in C: the same choice, the same iteration count and the bot's rng left in
    the same state, on positions from random games (a simultaneous step's stored choices included)."""
    from gamespec.bots.ismcts import ISMCTSBot
    g = native(path)
    players = max(g.min_players, min(4, g.max_players))
    seen = 0
    for seed in range(30):
        s = g.new_game(players=players, seed=seed)
        r = random.Random(seed)
        k = 0
        while not s.is_terminal and seen < 4:
            n = s.legal_action_count()
            if n > 1 and k % 7 == seed % 4:      # early decisions too: some games last 2 or 3
                v = s.view(s.current_player)
                a = ISMCTSBot(seed=seed, seat=v.player, iterations=40, engine="native")
                b = ISMCTSBot(seed=seed, seat=v.player, iterations=40, engine="python")
                assert a.choose(v) == b.choose(v)
                assert a.last_iterations == b.last_iterations == 40
                assert a.rng.getstate() == b.rng.getstate()
                seen += 1
            k += 1
            s.apply_index(r.randrange(n))
        if seen >= 4:
            break
    assert seen == 4


@needs_cc
def test_simulate_engines_give_the_same_report():
    from gamespec.simulate import TIMING_FIELDS, simulate
    for path, bots in ((GAMES[1], None), (GAMES[2], ["ismcts:20", "random", "random"])):
        kw = dict(games=25, players=3, seed=11, workers=1, bots=bots)
        a = simulate(path, engine="native", **kw)
        b = simulate(path, engine="python", **kw)
        for k in TIMING_FIELDS:
            a.pop(k, None)
            b.pop(k, None)
        assert a == b
        assert a["games_finished"] == 25


@needs_cc
@pytest.mark.parametrize("path", GAMES, ids=lambda p: os.path.basename(p)[:-5])
def test_simulate_plays_thinking_seats_on_the_native_state(path, monkeypatch):
    """simulate's games with ISMCTS and random seats on the native engine are kept in C
    (interpreter/native_step.NativeState: no Python State is made, the searches planned in C from
    the struct): the same result, turns, phases and trace (actions by name, lead changes from the
    scores C evaluates after each decision) as the game on the Python State with the searches in C
    (itself the Python engine's game: test_native_ismcts_chooses_as_the_python_search,
    test_simulate_engines_give_the_same_report); and the same again where C cannot evaluate those
    scores (the Python State's then)."""
    import gamespec.simulate as S
    from gamespec.game import Game
    from gamespec.interpreter.native_step import NativeState
    from gamespec.simulate import play_one
    g = gamespec.load(path)
    P = max(g.min_players, min(3, g.max_players))
    kinds = ["ismcts:6"] + ["random"] * (P - 2) + ["ismcts:4"]
    with monkeypatch.context() as m:
        m.setattr(S, "_on_native_state", lambda *a, **kw: None)
        want = play_one(g, P, 5, None, kinds, engine="native", trace=True)
    made = []
    real_new_game = Game.new_game
    monkeypatch.setattr(Game, "new_game", lambda self, *a, **kw: made.append(1) or real_new_game(self, *a, **kw))
    got = play_one(g, P, 5, None, kinds, engine="native", trace=True)
    for r in (want, got):
        r.pop("seconds")
    assert got == want
    if isinstance(g.step_kit(P), str):      # (no per-step kit: the Python State plays, as before)
        return
    assert made == []                        # kept in C: no Python State made
    monkeypatch.setattr(NativeState, "trace_scores", lambda self, units: None)
    again = play_one(g, P, 5, None, kinds, engine="native", trace=True)
    again.pop("seconds")
    assert again == want
    assert bool(made) == (want["lead_changes"] is not None)    # (a scored game asked the Python State)


@needs_cc
def test_cli_simulate_engine_flag(capsys):
    from gamespec.cli import main
    outs = []
    for engine in ("native", "python"):
        assert main(["simulate", GAMES[0], "-n", "20", "-p", "3", "--seed", "3", "--workers", "1",
                     "--engine", engine, "--json"]) == 0
        d = json.loads(capsys.readouterr().out)
        outs.append({k: v for k, v in d.items() if k not in ("seconds", "games_per_second",
                                                             "decisions_per_second", "workers", "engine")})
    # random seats play whole games in C, and record there the trace the Python loop records
    assert outs[0]["summary"]["metrics"]["recorded"] == 20
    assert outs[0] == outs[1]


# -- faults: the budgets hold in C, the errors are the Python engine's ----------------------------------
def _hostile_outcome(text, engine):
    from gamespec.compile.cbuild import library
    from gamespec.interpreter.native_engine import ST_OK, WHY
    g = gamespec.load_text(text, "hostile.yaml", backend="native" if engine == "native" else None)
    stopped = None
    if engine == "native":
        lib = library(g.ruleset(2, {}))
        if isinstance(lib, str):
            return {"stage": "no native", "reason": lib}
        first = lib.playouts(1, 1)[0]
        stopped = None if first[0] == ST_OK else WHY.get(first[1], first[1])
    try:
        g.playouts(2, seed=1, players=2)
    except SpecRuntimeError as e:
        return {"stage": "run", "check": e.check, "where": e.where, "message": e.message, "stopped": stopped}
    return {"stage": "ok", "stopped": stopped}


def _run_cases():
    import test_hostile
    return test_hostile.RUN_CASES


@needs_cc
@pytest.mark.parametrize("case", sorted(_run_cases()))
def test_hostile_run_cases_under_the_native_engine(case):
    """The hostile battery's run-time cases as native playouts: the C code stops each faulting game
    itself (no hang, bounded memory: guarded as in test_hostile), and the error raised is the Python
    engine's, word for word."""
    import test_hostile as H
    text = _run_cases()[case][0]
    nat = H.guarded(f"native/{case}", _hostile_outcome, text, "native")
    py = H.guarded(f"python/{case}", _hostile_outcome, text, "python")
    assert nat["stage"] != "no native", nat
    stopped = nat.pop("stopped")
    py.pop("stopped")
    assert nat == py
    if py["stage"] == "run":
        assert stopped is not None        # C stopped the game itself, then Python said why
        if py["check"] in ("budget", "game-steps", "game-budget"):
            assert stopped in (py["check"], "budget"), (stopped, py)


# -- build, cache, fallback -------------------------------------------------------------------------
@needs_cc
def test_the_second_load_comes_from_the_cache(native_cache):
    from gamespec.compile.cbuild import library
    path = os.path.join(ROOT, "tests", "specs", "trading.yaml")
    a = library(gamespec.load(path, backend="native").ruleset(3, {}))
    b = library(gamespec.load(path, backend="native").ruleset(3, {}))
    assert b.cached and b.path == a.path and b.key == a.key
    assert os.path.dirname(a.path) == native_cache


@needs_cc
def test_a_corrupt_or_foreign_cached_library_is_never_loaded(native_cache, tmp_path, monkeypatch):
    """A cached file whose bytes are not the build's (garbage, or another game's library under this
    name) fails its key check in the next process that loads it and is built again."""
    from gamespec.compile.cbuild import library
    # a cache of its own: another worker building the same library in the shared cache would put the
    # good file back between the damage and the child's load (seen in CI: "garbage" loaded as cached)
    own = str(tmp_path / "cache")
    os.makedirs(own)
    for name in (os.listdir(native_cache) if os.path.isdir(native_cache) else ()):   # the compiled runtime,
        if name.startswith("rt-") and name.endswith((".o", ".key")):     # keyed and checked like a library
            shutil.copy(os.path.join(native_cache, name), own)
    monkeypatch.setenv("GAMESPEC_CACHE", own)
    native_cache = own
    path = os.path.join(ROOT, "tests", "specs", "secrets.yaml")
    other = library(gamespec.load(os.path.join(ROOT, "tests", "specs", "tiny.yaml"), backend="native").ruleset(2, {}))
    good = library(gamespec.load(path, backend="native").ruleset(2, {}))
    code = ("import gamespec, json\n"
            "from gamespec.compile.cbuild import library\n"
            f"g = gamespec.load({path!r}, backend='native')\n"
            "lib = library(g.ruleset(2, {}))\n"
            f"p = gamespec.load({path!r}).playouts(5, seed=0, players=2)\n"
            "print(json.dumps([isinstance(lib, str), getattr(lib, 'cached', None), lib.lib.gs_key().decode(), "
            "g.playouts(5, seed=0, players=2) == p]))\n")
    for damage in ("foreign", "garbage"):
        with open(good.path + ".tmp", "wb") as f:     # (replaced, as another process would)
            if damage == "foreign":
                with open(other.path, "rb") as o:
                    f.write(o.read())
            else:
                f.write(b"\x7fELF not really")
        os.replace(good.path + ".tmp", good.path)
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300,
                           env=dict(os.environ, GAMESPEC_CACHE=native_cache))
        assert r.returncode == 0, r.stderr
        is_reason, cached, key, same = json.loads(r.stdout)
        assert not is_reason and cached is False and key == good.key and same, damage


def test_without_a_compiler_one_line_says_why_and_python_plays(tmp_path):
    """CC=/nonexistent: the native game plays on the Python engine, the same games, and one line on
    stderr names the reason (once per configuration)."""
    code = ("import gamespec, json, sys\n"
            f"g = gamespec.load({os.path.join(ROOT, 'games', 'klink.yaml')!r}, backend='native')\n"
            "a = g.playouts(3, seed=0, players=3); b = g.playouts(3, seed=0, players=3)\n"
            f"c = gamespec.load({os.path.join(ROOT, 'games', 'klink.yaml')!r}).playouts(3, seed=0, players=3)\n"
            "print(json.dumps([a == c, b == c, g.native_status(3)]))\n")
    env = dict(os.environ, CC="/nonexistent", GAMESPEC_CACHE=str(tmp_path / "cache"))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    assert r.returncode == 0, r.stderr
    same1, same2, status = json.loads(r.stdout)
    assert same1 and same2
    assert "no C compiler found (CC=/nonexistent)" in status
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("gamespec: native engine not used for Klink (3 players)")
    assert "no C compiler found (CC=/nonexistent)" in lines[0] and "Python engine" in lines[0]
    assert not os.path.exists(tmp_path / "cache") or not os.listdir(tmp_path / "cache")


def test_validate_and_import_never_touch_the_native_engine(tmp_path):
    code = ("import sys, gamespec\n"
            "from gamespec.cli import main\n"
            f"rc = main(['validate', {os.path.join(ROOT, 'games', 'bali.yaml')!r}])\n"
            "bad = [m for m in sys.modules if m.startswith(('gamespec.compile.native', 'gamespec.compile.cbuild', "
            "'gamespec.interpreter.native_engine', 'ctypes'))]\n"
            "print(rc, bad)\n")
    env = dict(os.environ, CC="/nonexistent", GAMESPEC_CACHE=str(tmp_path / "cache"))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\n")[-2] == "0 []", r.stdout
    assert "native" not in r.stderr


def test_a_spec_the_native_compiler_refuses_falls_back_with_its_reason(monkeypatch, capsys):
    from gamespec.compile.native import program
    path = os.path.join(ROOT, "tests", "specs", "tiny.yaml")
    g = gamespec.load(path, backend="native")

    def refuse(rs):
        raise program.NativeUnsupported("a construct added later")
    monkeypatch.setattr(program, "generate", refuse)
    monkeypatch.setattr("gamespec.compile.native.generate", refuse)
    assert g.playouts(4, seed=0, players=2) == python(path).playouts(4, seed=0, players=2)
    assert g.native_status(2) == "the spec uses something the native compiler does not handle yet " \
                                 "(a construct added later)"
    err = capsys.readouterr().err
    assert err.count("native engine not used for Tiny (2 players)") == 1


# -- strangers ----------------------------------------------------------------------------------------
@needs_cc
def test_spec_text_never_reaches_the_c_source():
    """The generated C holds numbers and generated identifiers only: no rule text, no string, no
    name from the spec (here one built to inject code into Python and into C)."""
    import test_hostile as H
    from gamespec.compile.native import generate
    text = H._injection_spec("/tmp/gamespec-injected", placeholders=False)
    text = text.replace("name: Tiny", 'name: "Tiny */ int x = 1; /*"')
    g = gamespec.load_text(text, "inject.yaml", backend="native")
    src, meta = generate(g.ruleset(2, {}))
    strings = re.findall(r'"((?:[^"\\]|\\.)*)"', src)
    assert strings == ["runtime.h", "agent.h"]     # the includes: the run time and the agents' tables
    for needle in ("__import__", "os.system", "Tiny", "stopped", "hand", "int x = 1"):
        assert needle not in src
    comments = re.findall(r"/\*.*?\*/", src, re.S)
    assert comments == ["/* generated by gamespec (gamespec/compile/native): numbers and ids only */"]
    s = g.new_game(players=2, seed=1)
    assert g.playouts(3, seed=1, players=2) == gamespec.load_text(text, "inject.yaml").playouts(3, seed=1, players=2)
    assert not os.path.exists("/tmp/gamespec-injected")
    del s


@needs_cc
def test_values_of_unexpected_kinds_bail_to_python():
    """A value typed `any` that turns out a text where C expects a number, and a text built at run
    time: the C code bails and the Python engine plays the game (the same result)."""
    from gamespec.interpreter.native_engine import ST_BAIL
    tiny = open(os.path.join(ROOT, "tests", "specs", "tiny.yaml")).read()
    text = tiny.replace("name: Tiny", "name: Tiny\ntables:\n  odd: {0: 'a', 1: 2, 2: 'b'}").replace(
        'effect: "stopped[actor] = 1"',
        'effect: "let w = odd[0] + odd[2]; stopped[actor] = 1"')
    assert text != tiny
    g = gamespec.load_text(text, "odd.yaml", backend="native")
    lib = lib_of_text(g, 2)
    got = lib.playouts(0, 6)
    assert any(r[0] == ST_BAIL for r in got)
    assert g.playouts(6, seed=0, players=2) == gamespec.load_text(text, "odd.yaml").playouts(6, seed=0, players=2)


def lib_of_text(g, players):
    from gamespec.compile.cbuild import library
    lib = library(g.ruleset(players, {}))
    assert not isinstance(lib, str), lib
    return lib


# -- values: a differential fuzz of Python's semantics ---------------------------------------------
_LEAVES = ["0", "1", "-3", "7", "2", "true", "false", "none", "'a'", "'b'", "''", "[1, 2]", "[true, 1]",
           "['a', 'b']", "[none]", "[]", "actor", "size(deck)", "stopped[actor]", "[c.value for c in hand[actor]]",
           "top(deck)", "num_players", "[3, 1, 2, 1]", "[2, 2, true]", "['b', 'a', 'a']", "[[1], [2]]",
           "999999999999999999", "-999999999999999999", "64", "m"]
_ANY = ["m[0]", "m[1]", "m[2]", "m[3]", "m", "tab[k0]", "tab[k1]", "tab[2]", "acc", "memo", "m[actor]",
        "first(acc)", "last(m)", "m[-1]", "t0[1]", "t0[0]", "a0", "a1"]
_OPS = ["+", "-", "*", "//", "%", "==", "!=", "<", "<=", ">", ">=", "and", "or", "in", "not in", "**"]
_FUN = ["max", "min", "sorted", "distinct", "count_by", "sum", "any", "all", "first", "last", "longest_run",
        "size", "abs"]


def _random_expr(r, d=0):
    """Expressions over values of every kind, many typed `any` (list items, table values), so that
    their kinds are found at run time: where C and Python could part."""
    if d > 3 or r.random() < 0.3:
        return r.choice(_ANY) if r.random() < 0.6 else r.choice(_LEAVES)
    k = r.random()
    if k < 0.35:
        return f"({_random_expr(r, d + 1)} {r.choice(_OPS)} {_random_expr(r, d + 1)})"
    if k < 0.55:
        return f"{r.choice(_FUN)}({_random_expr(r, d + 1)})"
    if k < 0.6:
        return f"({r.choice(['-', 'not '])}{_random_expr(r, d + 1)})"
    if k < 0.7:
        return f"({_random_expr(r, d + 1)} if {_random_expr(r, d + 1)} else {_random_expr(r, d + 1)})"
    if k < 0.78:
        f = r.choice(["index_of", "dense_rank", "run_length", "first", "last"])
        return f"{f}({_random_expr(r, d + 1)}, {_random_expr(r, d + 1)})"
    if k < 0.84:
        f = r.choice(["is_max", "is_sole_max"])
        return f"{f}({_random_expr(r, d + 1)}, {_random_expr(r, d + 1)}, min={_random_expr(r, d + 1)})"
    if k < 0.9:
        return f"{_random_expr(r, d + 1)}[{_random_expr(r, d + 1)}]"
    if k < 0.95:
        return (f"[x {r.choice(_OPS[:6])} {_random_expr(r, d + 1)} for x in {_random_expr(r, d + 1)} "
                f"if x {r.choice(_OPS[5:11])} {_random_expr(r, d + 1)}]")
    f = r.choice(["max", "min", "sum", "any", "all", "first", "last", "count", "sorted"])
    return f"{f}(x for x in {_random_expr(r, d + 1)} if {_random_expr(r, d + 1)})"


def _semantics_spec(seed):
    import test_hostile as H
    r = random.Random(seed)
    spec = H.TINY.replace("variables:\n", "variables:\n  memo: {type: list, initial: []}\n"
                          "  mix: {type: list, initial: [1, 'a', true, none]}\n  acc: {type: list, initial: []}\n", 1)
    spec = spec.replace("name: Tiny", "name: Tiny\ntables:\n  tab: {0: [1, 'x'], 1: 'y', 2: 3}", 1)
    eff = (f"let k0 = 0; let k1 = 1; let m = mix; let t0 = tab[0]; let a0 = m[actor]; let a1 = first(acc); "
           f"memo = [{_random_expr(r)}]; acc += [{_random_expr(r)}]; stopped[actor] = 1")
    return spec.replace('effect: "stopped[actor] = 1"', "effect: " + json.dumps(eff))


def _final_values(g, players, seed):
    """The game's end on each engine: (outcome, the variables' values) — from the Python engine's
    state, and from the C struct after the same game in C (or the Python error)."""
    from gamespec.compile.cbuild import library
    from gamespec.interpreter.native_engine import ST_OK, T_LIST
    from gamespec.interpreter.state import State
    try:
        s = State.new(g, g.ruleset(players, {}), seed)
        s.playout(random.Random(seed), in_place=True)
        py = ("ok", s.scores, s.winners, s.decisions, s.v)
    except SpecRuntimeError as e:
        py = ("error", e.check, e.where, e.message)
    lib = library(g.ruleset(players, {}))
    st, why, scores, winners, decisions = lib.playouts(seed, 1)[0]
    if st != ST_OK:
        try:
            r = g.playouts(1, seed=seed, players=players)[0]     # played again by the Python engine
            return py, ("ok", r.scores, r.winners, r.decisions, py[4] if py[0] == "ok" else None)
        except SpecRuntimeError as e:
            return py, ("error", e.check, e.where, e.message)
    flat = lib.dump()
    at = 18
    for _ in range(g.ruleset(players, {}).nzones):      # skip the zones, knowledge, faces
        at += 1 + flat[at]
    rs = g.ruleset(players, {})
    at += 2 * rs.ncards + len(rs.mark_init) * rs.ncards

    def value(at):
        t = flat[at]
        if t == T_LIST:
            n, at, out = flat[at + 1], at + 2, []
            for _ in range(n):
                x, at = value(at)
                out.append(x)
            return out, at
        if t == 0:
            return None, at + 1
        x = flat[at + 1]
        texts = lib.meta["texts"]
        return (bool(x) if t == 1 else x if t == 2 else texts[x]), at + 2
    vs = []
    for _ in range(len(rs.var_init)):
        x, at = value(at)
        vs.append(x)
    return py, ("ok", scores, winners, decisions, vs)


def _strict(x):
    """A value with its kinds (True and 1 are different values to keep)."""
    if isinstance(x, list):
        return [_strict(y) for y in x]
    return (type(x).__name__, x)


@needs_cc
@settings(max_examples=30, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2 ** 32))
def test_values_of_every_kind_end_the_same(seed):
    """Random expressions over numbers, bools, texts, none and lists, most typed `any`, stored in
    variables: the same final variables (kinds included), scores and errors on both engines."""
    from hypothesis import assume
    text = _semantics_spec(seed)
    try:
        g = gamespec.load_text(text, "values.yaml", backend="native")
    except gamespec.SpecErrors:
        assume(False)
    for game_seed in range(3):
        py, nat = _final_values(g, 2, game_seed)
        assert _strict(nat) == _strict(py), text
