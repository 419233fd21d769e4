"""The native per-step state (docs/agents.md, "The native per-step state"): a game kept in C and stepped
by fixed action id is the Python engine's game — the same legal ids (sorted and in listing order), masks,
observation and information-state tensors for every player, current players, ends, scores and winners
at every step of random games of every spec that compiles natively (the others give their one-line
reason); mid-game states drawn by hypothesis (clones, states loaded from Python, the Python State
re-played from the ids); the leak property of its observations; illegal ids refused, nothing changed."""
from __future__ import annotations

import glob
import os
import random

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

np = pytest.importorskip("numpy", reason="the rl extra is not installed: pip install '.[rl]'")

import gamespec  # noqa: E402
from gamespec.errors import IllegalAction  # noqa: E402
from gamespec.interpreter.determinize import relabel  # noqa: E402
from helpers import GAMES, ROOT, skip_without_cc  # noqa: E402

SPECS = GAMES + sorted(glob.glob(os.path.join(ROOT, "tests", "specs", "*.yaml")))
needs_cc = skip_without_cc()
_games = {}


def game_of(path):
    g = _games.get(path)
    if g is None:
        g = _games[path] = gamespec.load(path)
    return g


def kit_of(path, players, options=None):
    from gamespec.envs.common import native_kit
    g = game_of(path)
    return native_kit(g, players, g.check_options(options), engine="auto")


def configs():
    out = []
    for path in SPECS:
        g = game_of(path)
        for p in sorted({g.min_players, g.max_players}):
            out.append((path, p))
    return out


CONFIGS = configs()


def cid(c):
    return f"{os.path.basename(c[0])[:-5]}-{c[1]}p"


def same_step(n, s):
    """Everything an agent reads, from C and from the Python engine, at this point of the game."""
    assert n.is_terminal == s.is_terminal
    assert n.current_player == s.current_player
    assert n.decisions == s.decisions
    if s.is_terminal:
        assert n.scores == s.scores and [type(x) for x in n.scores] == [type(x) for x in s.scores]
        assert n.winners == s.winners
        assert n.legal_action_ids() == []
    else:
        assert n.legal_action_ids() == s.legal_action_ids()
        assert n.legal_ids_in_order() == s.rs.action_space().legal_ids(s)
        assert n.legal_action_mask().tolist() == [int(x) for x in s.legal_action_mask()]
    got = [n.observation_tensor(p) for p in range(s.num_players)]   # each its own array (C's row is a scratch)
    for p in range(s.num_players):
        a, b = got[p], s.observation_tensor(p)
        assert a.dtype == np.float32 and a.tobytes() == b.tobytes(), f"player {p}: {np.flatnonzero(a != b)[:8]}"
        if n.in_c:      # OpenSpiel's list, made from the places C lists as changed
            lst = n.tensor_list(p)      # (this state's last list, any player's, with the places C says changed)
            assert lst == b.tolist() and {type(x) for x in lst} == {float}
            lst[:] = [7.0] * len(lst)   # the caller's own list: the next one does not see it
            assert n.tensor_list(p) == b.tolist()
    p = s.current_player if not s.is_terminal else 0
    t = n.information_state_tensor(p)
    assert t[-1] == s.decisions and t[:-1].tobytes() == s.observation_tensor(p).tobytes()
    assert got[0].tobytes() == s.observation_tensor(0).tobytes()     # not overwritten by later calls


@needs_cc
@pytest.mark.parametrize("cfg", CONFIGS, ids=[cid(c) for c in CONFIGS])
def test_native_state_is_the_python_engines_game(cfg):
    """Three random games per configuration, compared at every step."""
    path, players = cfg
    game = game_of(path)
    kit = kit_of(path, players)
    if kit is None:         # a spec that falls back: the native engine's own one-line reason
        from gamespec.compile.cbuild import library
        lib = library(game.ruleset(players, game.check_options(None)))
        reason = lib if isinstance(lib, str) else "the spec has no fixed action space"
        assert reason
        pytest.skip(f"the Python engine plays: {reason}")
    in_c = 0
    for seed in range(3):
        n = kit.new_game(seed)
        s = game.new_game(players=players, seed=seed)
        rnd = random.Random(seed)
        while True:
            same_step(n, s)
            if s.is_terminal:
                break
            i = rnd.choice(s.legal_action_ids())
            n.apply_id(i)
            s.apply_id(i)
            in_c += n.in_c
        assert n.python_state().to_json() == s.to_json()     # re-played from the recorded ids
    assert in_c > 0


@needs_cc
@pytest.mark.parametrize("path", GAMES, ids=lambda p: os.path.basename(p)[:-5])
def test_clone_load_and_python_state_mid_game(path):
    """Mid-game: a clone goes on exactly as the original; python_state() is the Python engine's state
    (to_json equal); a NativeState loaded from a Python state (a determinization) is that state's game."""
    game = game_of(path)
    players = game.max_players
    kit = kit_of(path, players)
    assert kit is not None

    @settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
    @given(seed=st.integers(0, 2 ** 32), prefix=st.integers(0, 150), who=st.integers(0, players - 1))
    def check(seed, prefix, who):
        rnd = random.Random(seed)
        n = kit.new_game(seed)
        for _ in range(prefix):
            if n.is_terminal:
                break
            n.apply_id(rnd.choice(n.legal_action_ids()))
        py = n.python_state()
        same_step(n, py)
        c = n.clone()
        w = kit.from_state(py.determinize(who, random.Random(seed)) if not py.is_terminal else py)
        wp = w.python_state().clone()
        for _ in range(40):
            same_step(c, n.python_state())
            same_step(w, wp)
            if n.is_terminal:
                break
            i = rnd.choice(n.legal_action_ids())
            n.apply_id(i)
            c.apply_id(i)
            if not wp.is_terminal:
                j = rnd.choice(wp.legal_action_ids())
                w.apply_id(j)
                wp.apply_id(j)
        assert c.ids == n.ids
        assert c.python_state().to_json() == n.python_state().to_json()
    check()


@needs_cc
@pytest.mark.parametrize("path", GAMES, ids=lambda p: os.path.basename(p)[:-5])
def test_native_observations_leak_nothing(path):
    """The leak property over the native state's channel: in a world the player cannot tell apart
    (determinize(p), loaded into C) every byte of its tensor and of the mover's mask is unchanged;
    exchange a card it knows for one of another face and the tensor changes."""
    game = game_of(path)
    players = game.max_players
    kit = kit_of(path, players)
    rng = random.Random(5)
    checked = changed = 0
    for seed in range(40):      # two games, more where games are a few decisions long (Kuhn poker)
        if seed >= 2 and checked and changed:
            break
        n = kit.new_game(seed)
        while not n.is_terminal:
            if rng.random() < 0.15:
                s = n.python_state()
                rs = s.rs
                for p in range(players):
                    t = n.observation_tensor(p).tobytes()
                    w = kit.from_state(s.determinize(p, random.Random(checked)))
                    assert w.in_c
                    assert w.observation_tensor(p).tobytes() == t
                    if p == s.current_player:
                        assert w.legal_action_mask().tobytes() == n.legal_action_mask().tobytes()
                    checked += 1
                    known = [c for c in range(rs.ncards) if s._vis(c) & (1 << p)]
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
                    if d.observation_tensor(p).tobytes() != t:
                        assert kit.from_state(d).observation_tensor(p).tobytes() != t
                        changed += 1
            n.apply_id(rng.choice(n.legal_action_ids()))
    assert checked > 0 and changed > 0


@needs_cc
def test_illegal_ids_are_refused_and_change_nothing():
    path = GAMES[0]
    game = game_of(path)
    kit = kit_of(path, game.min_players)
    n = kit.new_game(11)
    before = n.legal_action_ids()
    illegal = next(i for i in range(kit.num_ids) if i not in set(before))
    for bad in (illegal, -1, kit.num_ids, 10 ** 30):
        with pytest.raises(IllegalAction):
            n.apply_id(bad)
    with pytest.raises(IllegalAction):
        n.apply_id("3")
    assert n.legal_action_ids() == before and n.ids == [] and n.in_c
    with pytest.raises(gamespec.GamespecError):
        n.observation_tensor(game.min_players)
