"""The determinization plan built in C (interpreter/native/plan.c, interpreter/native_plan.py;
docs/native.md, "The plan in C"): the C struct keeps State.poss as the Python engine keeps it (every
move, deal, set-up; a loaded state's own sets), and builds from the struct alone the very array
`native_engine.flatten_plan` makes from `determinize.determinizer(s, p).parts` — at every decision of
random games of every spec, for every player; the search it drives chooses as the Python-planned one,
and a world the player cannot tell apart gives the same search."""
from __future__ import annotations

import ctypes
import glob
import os
import random

import pytest

import gamespec
from helpers import GAMES, ROOT, skip_without_cc

SPECS = GAMES + sorted(glob.glob(os.path.join(ROOT, "tests", "specs", "*.yaml")))
needs_cc = skip_without_cc()

# a turn inside loops around the decision: over the cards of a hand (a card loop: its items follow the
# cards' places) and over the players (not one); a second deck whose cards mix into the hands (the
# draw by origin), an owner variable, a card variable, a mark seen with the card
LOOPS = """
name: Loops
players: [2, 3]
cards:
  number:
    zone: deck
    faces:
      - {each: {value: [1, 2, 3, 4, 5]}, count: 2}
  gem:
    zone: vault
    faces:
      - {each: {value: [6, 7, 8]}}
zones:
  deck: {kind: pile, visibility: hidden, on_empty: stop}
  vault: {kind: pile, visibility: hidden}
  hand: {kind: set, per_player: true, visibility: owner}
  table: {kind: pile, visibility: public}
marks:
  tag: {initial: 0}
variables:
  stopped: {per_player: true, initial: 0}
  luck: {per_player: true, initial: 4, visibility: owner}
  seen: {type: cards, initial: []}
  picked: {type: card}
on_begin: |
  shuffle(deck)
  shuffle(vault)
  for p in players {
    deal(deck, hand[p], 2)
    deal(vault, hand[p], 1)
  }
start: play
phases:
  play:
    turn:
      steps:
        - for: c
          in: "hand[current]"
          steps:
            - for: d
              in: "players"
              steps:
                - choose: [keep, drop]
    end_if: "all(stopped[p] == 1 for p in players) or size(deck) == 0"
    next: end
actions:
  keep:
    if: "size(hand[actor]) > 0"
    effect: "set_mark(top(hand[actor]), 'tag', 1); move(top(hand[actor]), table); picked = top(table); seen = [top(table)]"
  drop:
    effect: "stopped[actor] = 1; luck[actor] = 3; deal(deck, hand[actor], 1)"
scoring:
  score: "sum(c.value for c in hand[p])"
"""

_games = {}


def native(path):
    g = _games.get(path)
    if g is None:
        g = _games[path] = (gamespec.load_text(LOOPS, "loops.yaml", backend="native") if path == "loops"
                            else gamespec.load(path, backend="native"))
    return g


def configs():
    out = []
    for path in SPECS + ["loops"]:
        g = native(path)
        for p in sorted({g.min_players, g.max_players}):
            out.append((path, p))
    return out


def cid(c):
    return f"{os.path.basename(c[0]).replace('.yaml', '')}-{c[1]}p"


class CGame:
    """A game played in C by listing entries (gs_dump's new game, gs_apply), in a context of its own."""

    def __init__(self, lib):
        c = self.c = lib.lib
        c.gs_dump.restype = ctypes.c_int64
        c.gs_dump.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_int64), ctypes.c_int64, ctypes.c_int64]
        c.gs_apply.argtypes = [ctypes.c_void_p, ctypes.c_int32]
        c.gs_new.restype = ctypes.c_void_p
        c.gs_free.argtypes = [ctypes.c_void_p]
        self.ctx = c.gs_new()
        self.lib = lib

    def new_game(self, seed):
        from gamespec.interpreter.native_engine import _buf, _ptr
        out = _buf("q", 1 << 20)
        assert self.c.gs_dump(self.ctx, _ptr(out, ctypes.c_int64), 1 << 20, seed) > 0

    def apply(self, k):
        assert self.c.gs_apply(self.ctx, k) == 0

    def __del__(self):
        self.c.gs_free(self.ctx)


def lib_of(path, players):
    from gamespec.compile.cbuild import library
    g = native(path)
    lib = library(g.ruleset(players, g.check_options(None)))
    if isinstance(lib, str):
        pytest.skip(lib)
    return lib


def python_plan(lib, s, p):
    from gamespec.interpreter.determinize import determinizer
    from gamespec.interpreter.native_engine import flatten_plan
    return flatten_plan(lib, s, p, determinizer(s, p).parts)


@needs_cc
@pytest.mark.parametrize("config", configs(), ids=cid)
def test_poss_and_plan_built_in_c_are_pythons(config):
    """At every decision of random games: the C game's possibility sets are State.poss, and C's plan
    for every player is flatten_plan's array, the same ints; a Python state loaded into C (every
    fifth decision) keeps its own sets and gives the same plans."""
    from gamespec.interpreter import native_plan as NP
    path, players = config
    g = native(path)
    lib = lib_of(path, players)
    assert NP.ready(lib)
    cg = CGame(lib)
    decisions = 0
    for seed in (1, 2):
        s = g.new_game(players=players, seed=seed)
        cg.new_game(seed)
        r = random.Random(seed)
        while not s.is_terminal:
            assert NP.poss_of(lib, cg.ctx) == s.poss
            for p in range(players):
                assert NP.plan(lib, cg.ctx, p) == python_plan(lib, s, p), (seed, s.decisions, p)
            if s.decisions % 5 == 2 and lib.load(s):
                assert NP.poss_of(lib, lib.ctx()) == s.poss
                p = s.current_player
                assert NP.plan(lib, lib.ctx(), p) == python_plan(lib, s, p)
            k = r.randrange(s.legal_action_count())
            s.apply_index(k)
            cg.apply(k)
            decisions += 1
    assert decisions > 0


@needs_cc
def test_plan_exercises_every_part():
    """The specs above reach every part of the plan: a shuffle and a draw by origin, secret
    variables, card loops around the decision, a simultaneous step, cards blind to marks."""
    from gamespec.interpreter.determinize import determinizer
    seen = set()
    for path, players in [(os.path.join(ROOT, "tests", "specs", "sealed.yaml"), 2), ("loops", 3)]:
        g = native(path)
        s = g.new_game(players=players, seed=3)
        r = random.Random(3)
        while not s.is_terminal:
            places, hidden, draw, card_vars, secret, flow = determinizer(s, s.current_player).parts
            seen.add(draw.plan[0])
            seen |= {"secret"} if secret else set()
            seen |= {"flow"} if flow else set()
            seen |= {"simultaneous"} if s.pending >= 0 and getattr(s.rs.chooses[s.pending], "secret", False) else set()
            seen |= {"card_vars"} if card_vars else set()
            s.apply_index(r.randrange(s.legal_action_count()))
    assert seen >= {"shuffle", "constrained", "secret", "flow", "simultaneous", "card_vars"}, seen


@needs_cc
def test_plan_refuses_what_it_cannot_be():
    """No tables, no such player, a short buffer: an error code, never a write past the buffer."""
    from gamespec.interpreter import native_plan as NP
    from gamespec.interpreter.native_engine import _buf, _ptr
    path = os.path.join(ROOT, "games", "hearts.yaml")
    lib = lib_of(path, 4)
    assert NP.ready(lib)
    cg = CGame(lib)
    cg.new_game(7)
    f = lib.lib.gs_plan
    b = _buf("q", 64)
    b[10] = 12345
    assert f(cg.ctx, 4, _ptr(b, ctypes.c_int64), 64) == -4
    assert f(cg.ctx, -1, _ptr(b, ctypes.c_int64), 64) == -4
    assert f(cg.ctx, 0, _ptr(b, ctypes.c_int64), 10) == -1 and b[10] == 12345
    assert f(cg.ctx, 0, _ptr(b, ctypes.c_int64), 0) == -1
    full = NP.plan(lib, cg.ctx, 0)
    assert full is not None and len(full) > 64
    bad = lib.lib.gs_plan_tables
    t = _buf("q", 5)
    assert bad(_ptr(t, ctypes.c_int64), 5) == 0        # taken once: later calls change nothing
    assert NP.plan(lib, cg.ctx, 0) == full
    words = _buf("Q", 3)
    assert lib.lib.gs_set_poss(cg.ctx, _ptr(words, ctypes.c_uint64), 3) == -1      # not nzones x pw words
    assert NP.poss_of(lib, cg.ctx) == native(path).new_game(players=4, seed=7).poss


@needs_cc
def test_poss_kept_after_playouts_in_the_same_context():
    """Playouts skip the possibility sets (nothing plans from them); a context that played them and
    then starts a game keeps the sets again, move by move, as State.poss."""
    from gamespec.interpreter import native_plan as NP
    path = "loops"                  # (two decks dealt into the hands: their sets widen)
    lib = lib_of(path, 3)
    assert NP.ready(lib)
    cg = CGame(lib)
    assert len(lib.playouts(0, 3)) == 3             # in the library's own context
    cg.ctx, own = lib.ctx(), cg.ctx                 # (the test's CGame plays in that context now)
    try:
        cg.new_game(7)
        s = native(path).new_game(players=3, seed=7)
        r = random.Random(7)
        for _ in range(12):
            if s.is_terminal:
                break
            assert NP.poss_of(lib, cg.ctx) == s.poss
            k = r.randrange(s.legal_action_count())
            s.apply_index(k)
            cg.apply(k)
        assert NP.poss_of(lib, cg.ctx) == s.poss
        assert any(bin(x).count("1") > 1 for x in s.poss)       # the sets did widen
    finally:
        cg.ctx = own


# -- the search it drives ------------------------------------------------------------------------
def _ismcts_positions(path, players, seeds, every=5, at_most=6):
    """(game, state, decision) for some decisions of random games with more than one legal action."""
    g = native(path)
    out = []
    for seed in seeds:
        s = g.new_game(players=players, seed=seed)
        r = random.Random(seed)
        k = 0
        while not s.is_terminal and len(out) < at_most:
            n = s.legal_action_count()
            if n > 1 and k % every == seed % every:
                out.append(s.clone())
            k += 1
            s.apply_index(r.randrange(n))
    return out


@needs_cc
@pytest.mark.parametrize("path", [os.path.join(ROOT, "games", "bali.yaml"),
                                  os.path.join(ROOT, "tests", "specs", "sealed.yaml"), "loops"],
                         ids=lambda p: os.path.basename(p).replace(".yaml", ""))
def test_search_on_the_c_plan_chooses_as_the_python_planned_one(path):
    """The native search on the plan C builds (ISMCTSBot engine="native"), the search of a NativeState
    (native_plan.ismcts_choose: no Python State) and the search on flatten_plan's plan: the same
    choice, iterations and rng state afterwards as the Python search."""
    from gamespec.bots.ismcts import ISMCTSBot
    from gamespec.envs.common import native_kit
    from gamespec.interpreter import native_plan as NP
    g = native(path)
    players = g.max_players if path == "loops" else max(g.min_players, min(4, g.max_players))
    kit = native_kit(g, players, g.check_options(None), engine="auto")
    seen = 0
    for s in _ismcts_positions(path, players, range(4)):
        v = s.view(s.current_player)
        a = ISMCTSBot(seed=seen, seat=v.player, iterations=30, engine="native")
        b = ISMCTSBot(seed=seen, seat=v.player, iterations=30, engine="python")
        want = b.choose(v)
        assert a.choose(v) == want
        assert a.last_iterations == b.last_iterations == 30
        assert a.rng.getstate() == b.rng.getstate()
        if not isinstance(kit, str):      # a NativeState of this very game, searched in C
            ns = kit.from_state(s)
            assert ns.in_c
            c = ISMCTSBot(seed=seen, seat=v.player, iterations=30)
            assert NP.ismcts_choose(c, ns) == want
            assert c.rng.getstate() == b.rng.getstate() and c.last_iterations == 30
        seen += 1
    assert seen >= 4


@needs_cc
@pytest.mark.parametrize("path", [os.path.join(ROOT, "tests", "specs", "sealed.yaml"), "loops",
                                  os.path.join(ROOT, "tests", "specs", "bluff.yaml")],
                         ids=lambda p: os.path.basename(p).replace(".yaml", ""))
def test_vector_env_ismcts_opponents_are_the_python_planned_search(path):
    """VectorEnv(opponents="ismcts:N"): every seat but the learner's chooses in C as ISMCTSBot(N
    iterations, exploration 0.7) whose rng is the game's random.Random(seed) (the generator random
    opponents draw from), searching on the Python engine's plan: the same games, observations, masks,
    seats and rewards at every step, games reset on their own seeds."""
    pytest.importorskip("numpy", reason="the rl extra is not installed: pip install '.[rl]'")
    pytest.importorskip("gymnasium", reason="the rl extra is not installed: pip install '.[rl]'")
    import numpy as np
    from gamespec.bots.ismcts import ISMCTSBot
    from gamespec.envs import VectorEnv, rewards
    g = native(path)
    P, n, seed, N, learner = g.min_players, 3, 21, 6, 1
    env = VectorEnv(g, players=P, num_envs=n, seed=seed, opponents=f"ismcts:{N}", learner=learner)

    def reference(sd):
        bot = ISMCTSBot(iterations=N, engine="python")
        bot.rng = random.Random(sd)
        return [g.new_game(players=P, seed=sd), bot, sd]

    def advance(ref):
        s, bot, _ = ref
        while not s.is_terminal and s.current_player != learner:
            s.apply_index(bot.choose(s.view(s.current_player)))

    refs = [reference(seed + i) for i in range(n)]
    for ref in refs:
        advance(ref)
    obs, info = env.reset()
    pick = random.Random(0)
    ended = 0
    for _ in range(40):
        for i, ref in enumerate(refs):
            s = ref[0]
            assert info["seat"][i] == learner == s.current_player
            assert obs["observation"][i].tobytes() == s.observation_tensor(learner).tobytes()
            assert np.flatnonzero(obs["action_mask"][i]).tolist() == sorted(set(s.legal_action_ids()))
        acts = np.array([pick.choice(sorted(set(ref[0].legal_action_ids()))) for ref in refs])
        obs, rew, term, trunc, info = env.step(acts)
        for i, ref in enumerate(refs):
            s = ref[0]
            s.apply_id(int(acts[i]))
            advance(ref)
            if s.is_terminal:
                assert term[i] and info["rewards"][i].tolist() == rewards(s) and rew[i] == rewards(s)[learner]
                refs[i] = reference(ref[2] + n)
                advance(refs[i])
                ended += 1
            else:
                assert not term[i]
    assert ended > 0
    env.close()


@needs_cc
@pytest.mark.parametrize("path", [os.path.join(ROOT, "games", "bali.yaml"), "loops",
                                  os.path.join(ROOT, "tests", "specs", "bags.yaml")],
                         ids=lambda p: os.path.basename(p).replace(".yaml", ""))
def test_c_plan_leaks_nothing_the_player_cannot_see(path):
    """The leak property of the new channel: a world the player to move cannot tell apart (a
    determinization of their view, loaded into C) gives the same search in C (visits, rewards,
    iterations, rng state) as the real game; a world where a card they see is exchanged with one
    they do not gives another plan."""
    from gamespec.interpreter import native_plan as NP
    from gamespec.interpreter.determinize import determinize, relabel
    g = native(path)
    players = g.max_players if path == "loops" else max(g.min_players, min(4, g.max_players))
    lib = lib_of(path, players)
    seen = 0
    for k, s in enumerate(_ismcts_positions(path, players, range(3))):
        p = s.current_player
        d = determinize(s, p, random.Random(k))
        assert d.observation_tensor(p).tobytes() == s.observation_tensor(p).tobytes()
        got = []
        for x in (s, d):
            assert lib.load(x)
            r = random.Random(100 + k)
            got.append((NP.search_state(lib, lib.ctx(), p, x.legal_action_count(), r, 25, 0.7), r.getstate()))
        assert got[0][0] is not None and got[0] == got[1]
        bit = 1 << p
        mine = [c for c in range(s.rs.ncards) if s._vis(c) & bit]
        other = [c for c in range(s.rs.ncards) if not s._vis(c) & bit]
        if mine and other:
            m = list(range(s.rs.ncards))
            m[mine[0]], m[other[0]] = other[0], mine[0]
            e = relabel(s, m, p, random.Random(k))
            assert lib.load(s)
            real = NP.plan(lib, lib.ctx(), p)
            assert lib.load(e)
            assert NP.plan(lib, lib.ctx(), p) != real
        seen += 1
    assert seen >= 3


@needs_cc
def test_vector_env_ismcts_opponents_on_threads_and_clones():
    """Two threads play the same ISMCTS opponents' games as one; a NativeState's clone keeps the
    possibility sets and chooses as the original."""
    pytest.importorskip("numpy", reason="the rl extra is not installed: pip install '.[rl]'")
    pytest.importorskip("gymnasium", reason="the rl extra is not installed: pip install '.[rl]'")
    import numpy as np
    from gamespec.bots.ismcts import ISMCTSBot
    from gamespec.envs import VectorEnv
    from gamespec.envs.common import native_kit
    from gamespec.interpreter import native_plan as NP
    g = native(os.path.join(ROOT, "tests", "specs", "bluff.yaml"))
    envs = [VectorEnv(g, players=3, num_envs=8, seed=4, opponents="ismcts:5", learner=0, num_threads=t) for t in (1, 2)]
    outs = [e.reset()[0] for e in envs]
    for _ in range(30):
        a = outs[0]["action_mask"].argmax(axis=1)
        got = [e.step(a) for e in envs]
        outs = [x[0] for x in got]
        assert np.array_equal(outs[0]["observation"], outs[1]["observation"])
        assert np.array_equal(got[0][1], got[1][1]) and np.array_equal(got[0][2], got[1][2])
    for e in envs:
        e.close()
    kit = native_kit(g, 3, g.check_options(None), engine="auto")
    ns = kit.new_game(5)
    r = random.Random(5)
    while not ns.is_terminal and len(ns.legal_action_ids()) < 2:
        ns.apply_id(r.choice(ns.legal_action_ids()))
    twin = ns.clone()
    s = ns.python_state()
    lib = kit.lib
    assert NP.poss_of(lib, twin._p, native_state=True) == NP.poss_of(lib, ns._p, native_state=True) == s.poss
    a, b = ISMCTSBot(seed=1, iterations=20), ISMCTSBot(seed=1, iterations=20)
    assert NP.ismcts_choose(a, ns) == NP.ismcts_choose(b, twin)
    assert a.rng.getstate() == b.rng.getstate()
