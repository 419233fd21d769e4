"""A rule set's native library (built by gamespec/compile/cbuild.py from gamespec/compile/native/)
→ playouts, simulations and rollouts in C, through ctypes; states flattened into the C struct.

Every game the C code stops (a fault, or a case it does not follow: docs/native.md) is played again
by the Python engine, which raises its own error or finishes it: results and errors are exactly the
default backend's. Where no library can be had, the Python engine plays, with one line on stderr.
"""
from __future__ import annotations

import ctypes
import sys
import threading
from array import array
from hashlib import sha512 as _sha512

from gamespec import mirrors as _mirrors

from .native_values import T_BOOL, T_INT, T_LIST, T_NONE, T_STR, _buf, _ptr, _Unflattenable, _value  # noqa: F401

if sys.byteorder != "little":       # the words of a seed are read as little-endian (and so is the C side)
    raise ImportError("the native engine needs a little-endian machine")

# why codes (runtime.h's enum, one table: gamespec/mirrors.py): the check each fault corresponds to, for
# reports and tests; the game's status after C ran it
WHY = _mirrors.WHY
ST_OK, ST_FAULT, ST_BAIL, ST_TIMEOUT = (_mirrors.STATUS[k] for k in ("ST_OK", "ST_FAULT", "ST_BAIL", "ST_TIMEOUT"))
GEN = {"shake128": 0, "xorshift64*": 1, "splitmix64": 2}   # interpreter/rng.py's generators: runtime.c's g->gen
ABI = 4

_lock = threading.Lock()


class NativeLib:
    """One loaded library (one rule set): its entry points and a context per thread."""

    def __init__(self, path, key, meta, rs, build_seconds=0.0, cached=False):
        self.path = path
        self.key = key
        self.meta = meta
        self.rs = rs
        self.build_seconds = build_seconds
        self.cached = cached
        self.texts = {t: i for i, t in enumerate(meta["texts"])}
        self.action_index = {n: i for i, n in enumerate(meta["actions"])}
        self.for_slot = meta["for_slot"]
        lib = ctypes.CDLL(path)
        lib.gs_abi.restype = ctypes.c_int
        lib.gs_key.restype = ctypes.c_char_p
        if lib.gs_abi() != ABI or lib.gs_key().decode() != key:
            raise OSError("the library does not answer with its key")
        P = ctypes.POINTER
        i64, i32, u64, u32 = ctypes.c_int64, ctypes.c_int32, ctypes.c_uint64, ctypes.c_uint32
        lib.gs_new.restype = ctypes.c_void_p
        lib.gs_free.argtypes = [ctypes.c_void_p]
        lib.gs_playouts.restype = i64
        lib.gs_playouts.argtypes = [ctypes.c_void_p, u64, i64, P(i32), P(i32), P(i64), P(i32), P(u64), P(i64), i32]
        lib.gs_simulate.restype = i64
        lib.gs_simulate.argtypes = [ctypes.c_void_p, P(u64), i64, P(u32), P(i32), i32, ctypes.c_double,
                                    P(i32), P(i32), P(i64), P(i32), P(u64), P(i64), P(i64), P(i64),
                                    P(ctypes.c_double), i32, i64, P(i64), i64, i32, P(i32), i32]
        lib.gs_load.restype = ctypes.c_int
        lib.gs_load.argtypes = [ctypes.c_void_p, P(i64), i64]
        lib.gs_rollout.restype = ctypes.c_int
        lib.gs_rollout.argtypes = [ctypes.c_void_p, P(u32), P(i32), P(i64), P(i32), P(u64), P(i64)]
        lib.gs_ismcts.restype = ctypes.c_int
        lib.gs_ismcts.argtypes = [ctypes.c_void_p, ctypes.c_void_p, P(i64), i64, i64, ctypes.c_double,
                                  ctypes.c_double, i64, P(u32), P(i64), P(ctypes.c_double), P(i64), P(i32)]
        lib.gs_test_shuffle.restype = u64
        lib.gs_test_shuffle.argtypes = [u64, P(i32), i64, ctypes.c_int]
        lib.gs_test_seed_state.restype = u64
        lib.gs_test_seed_state.argtypes = [u64]
        lib.gs_test_fast.restype = u64
        lib.gs_test_fast.argtypes = [u64, i64, P(u64), i64, P(u64)]
        lib.gs_test_mt.argtypes = [P(u32), ctypes.c_int, i64, P(i64), P(i64), P(u32)]
        self.lib = lib
        self._local = threading.local()
        self._ctxs = []

    def ctx(self):
        c = getattr(self._local, "ctx", None)
        if c is None:
            c = self.lib.gs_new()
            if not c:
                raise MemoryError("the native engine could not allocate a game")
            self._local.ctx = c
            with _lock:
                self._ctxs.append(c)
        return c

    def world_ctx(self):
        """A second game per thread: the world an ISMCTS iteration plays (the first holds the state)."""
        c = getattr(self._local, "wctx", None)
        if c is None:
            c = self.lib.gs_new()
            if not c:
                raise MemoryError("the native engine could not allocate a game")
            self._local.wctx = c
            with _lock:
                self._ctxs.append(c)
        return c

    def __del__(self):
        try:
            for c in self._ctxs:
                self.lib.gs_free(c)
        except Exception:   # pragma: no cover - at interpreter exit
            pass

    # -- whole games ------------------------------------------------------------------------
    def playout_buffers(self, seed, n, generator="shake128"):
        """Games seed .. seed+n-1 as C wrote them: (status, why, scores, score tags, winner masks,
        decisions), arrays of n (scores and tags: n * players, row by row)."""
        P = self.rs.P
        status, why = _buf("i", n), _buf("i", n)
        scores, tags = _buf("q", n * P), _buf("i", n * P)
        winners, decisions = _buf("Q", n), _buf("q", n)
        got = self.lib.gs_playouts(self.ctx(), seed, n, _ptr(status, ctypes.c_int32), _ptr(why, ctypes.c_int32),
                                   _ptr(scores, ctypes.c_int64), _ptr(tags, ctypes.c_int32),
                                   _ptr(winners, ctypes.c_uint64), _ptr(decisions, ctypes.c_int64), GEN[generator])
        if got != n:
            raise ValueError("the native playouts refused their arguments")
        return status, why, scores, tags, winners, decisions

    def playouts(self, seed, n, generator="shake128"):
        """[(status, why, scores, winners, decisions)] for games seed .. seed+n-1."""
        P = self.rs.P
        status, why, scores, tags, winners, decisions = self.playout_buffers(seed, n, generator)
        out = []
        for i in range(n):
            if status[i] != ST_OK:
                out.append((status[i], why[i], None, None, decisions[i]))
                continue
            sc = [_score(scores[i * P + p], tags[i * P + p]) for p in range(P)]
            w = winners[i]
            out.append((ST_OK, 0, sc, [p for p in range(P) if w >> p & 1], decisions[i]))
        return out

    def simulate(self, seeds, keys, timeout=None, trace=0, sign=1, teams=None, generator="shake128"):
        """Games with a RandomBot per seat (keys: per game, per seat, the 32-bit words of its seed; under
        the fast generator none: C derives each seat's stream from the seed, rng.stream).
        `trace` 1: each game's action counts too; 2: also its score leaders (runtime.c, GameTrace;
        `sign` -1 where the lowest score wins): a finished game's 'trace' is (lead changes, entries,
        since (-1: no sole winner), deficit, {action index or -1 (skip): (count, first decision)}).
        `teams`: None, or (the number of teams, each seat's team) where the teams lead (scoring.per_team:
        GameTrace.units)."""
        P = self.rs.P
        n = len(seeds)
        stride = max((len(k) for ks in keys for k in ks), default=1)
        kbuf = array("I")
        klen = array("i")
        pad = array("I", bytes(4 * stride))
        for ks in keys:
            for words in ks:
                kbuf += words
                kbuf += pad[:stride - len(words)]
                klen.append(len(words))
        if not keys:
            kbuf, klen = _buf("I", 1), _buf("i", 1)
        sbuf = array("Q", seeds)
        status, why = _buf("i", n), _buf("i", n)
        scores, tags = _buf("q", n * P), _buf("i", n * P)
        winners, decisions, turns, phases = _buf("Q", n), _buf("q", n), _buf("q", n), _buf("q", n)
        seconds = _buf("d", n)
        na = len(self.meta["actions"]) + 1
        tstride = 4 + 2 * na
        tr = _buf("q", n * tstride if trace else 1)
        team_of = array("i", teams[1]) if teams else None     # held until the call returns
        got = self.lib.gs_simulate(self.ctx(), _ptr(sbuf, ctypes.c_uint64), n, _ptr(kbuf, ctypes.c_uint32),
                                   _ptr(klen, ctypes.c_int32), stride, float(timeout or 0),
                                   _ptr(status, ctypes.c_int32), _ptr(why, ctypes.c_int32),
                                   _ptr(scores, ctypes.c_int64), _ptr(tags, ctypes.c_int32),
                                   _ptr(winners, ctypes.c_uint64), _ptr(decisions, ctypes.c_int64),
                                   _ptr(turns, ctypes.c_int64), _ptr(phases, ctypes.c_int64),
                                   _ptr(seconds, ctypes.c_double), int(trace), int(sign), _ptr(tr, ctypes.c_int64),
                                   tstride, teams[0] if teams else P,
                                   _ptr(team_of, ctypes.c_int32) if teams else None, GEN[generator])
        if got != n:
            raise ValueError("the native simulation refused its arguments")
        out = []
        for i in range(n):
            if status[i] != ST_OK:
                out.append({"status": status[i], "why": why[i], "decisions": decisions[i], "seconds": seconds[i]})
                continue
            w = winners[i]
            r = {"status": ST_OK, "scores": [_score(scores[i * P + p], tags[i * P + p]) for p in range(P)],
                 "winners": [p for p in range(P) if w >> p & 1], "decisions": decisions[i],
                 "turns": turns[i], "phases": phases[i], "seconds": seconds[i]}
            if trace:
                row = tr[i * tstride:(i + 1) * tstride]
                acts = {(a if a < na - 1 else -1): (row[4 + a], row[4 + na + a]) for a in range(na) if row[4 + a]}
                r["trace"] = (row[0], row[1], row[2], row[3], acts)
            out.append(r)
        return out

    # -- a state from Python ------------------------------------------------------------------
    def load(self, state):
        """Flatten `state` into this thread's C game; False if it cannot be (the Python engine plays)."""
        buf = flatten(self, state)
        if buf is None:
            return False
        b = array("q", buf)
        if self.lib.gs_load(self.ctx(), _ptr(b, ctypes.c_int64), len(b)) != 0:
            return False
        from .native_plan import set_poss       # the struct keeps State.poss too (plan.c)
        set_poss(self, self.ctx(), state.poss)
        return True

    def rollout(self, mt_state):
        """Random decisions from the loaded state to the end with the MT19937 state (625 words):
        (status, why, scores, winners, decisions, the generator's state after)."""
        P = self.rs.P
        mt = array("I", mt_state)
        why = _buf("i", 1)
        scores, tags = _buf("q", P), _buf("i", P)
        winners, decisions = _buf("Q", 1), _buf("q", 1)
        st = self.lib.gs_rollout(self.ctx(), _ptr(mt, ctypes.c_uint32), _ptr(why, ctypes.c_int32),
                                 _ptr(scores, ctypes.c_int64), _ptr(tags, ctypes.c_int32),
                                 _ptr(winners, ctypes.c_uint64), _ptr(decisions, ctypes.c_int64))
        if st != ST_OK:
            return st, why[0], None, None, decisions[0], None
        sc = [_score(scores[p], tags[p]) for p in range(P)]
        return ST_OK, 0, sc, [p for p in range(P) if winners[0] >> p & 1], decisions[0], list(mt)


    # -- the search ---------------------------------------------------------------------------
    def ismcts(self, state, player, parts, iterations, c, n_root, mt_state, deadline=None):
        """ISMCTS from `state` for `player` (gamespec/bots/ismcts.py, in C): (visits, rewards per root
        position, iterations run, the generator's state after), or None (then the Python search
        runs, from the same generator state)."""
        if not self.load(state):
            return None
        plan = flatten_plan(self, state, player, parts)
        if plan is None:
            return None
        b = array("q", plan)
        mt = array("I", mt_state)
        visits = _buf("q", n_root)
        reward = _buf("d", n_root)
        done = _buf("q", 1)
        why = _buf("i", 1)
        rc = self.lib.gs_ismcts(self.ctx(), self.world_ctx(), _ptr(b, ctypes.c_int64), len(b), iterations, float(c),
                                float(deadline or 0), n_root, _ptr(mt, ctypes.c_uint32), _ptr(visits, ctypes.c_int64),
                                _ptr(reward, ctypes.c_double), _ptr(done, ctypes.c_int64), _ptr(why, ctypes.c_int32))
        if rc != 0:
            return None
        return list(visits[:n_root]), list(reward[:n_root]), done[0], list(mt)


    # -- for the tests: the generators alone, the struct as data --------------------------------
    def shuffle(self, state, items, generator="shake128"):
        """(new RNG state, items shuffled) by C's rng_shuffle_* (interpreter/rng.py's shuffles)."""
        buf = array("i", items) if items else array("i", [0])
        nxt = self.lib.gs_test_shuffle(state, _ptr(buf, ctypes.c_int32), len(items), GEN[generator])
        return nxt, list(buf[:len(items)])

    def seed_state(self, seed):
        return self.lib.gs_test_seed_state(seed)

    def fast_draws(self, state, below, lane=-1):
        """C's fast_below(state, m) for each m of `below` in turn (lane >= 0: from fast_stream(state,
        lane)): (draws, the state after)."""
        b = array("Q", below or [1])
        out = _buf("Q", len(below))
        end = self.lib.gs_test_fast(state, lane, _ptr(b, ctypes.c_uint64), len(below), _ptr(out, ctypes.c_uint64))
        return list(out[:len(below)]), end

    def mt_draws(self, key, ops):
        """C's MT19937 seeded by init_by_array(key): for each op n > 0 randbelow(n), for n < 0
        getrandbits(-n); (draws, the state after as random.getstate()'s 625 words)."""
        k = array("I", key)
        o = array("q", ops or [1])
        out = _buf("q", len(ops))
        st = _buf("I", 625)
        self.lib.gs_test_mt(_ptr(k, ctypes.c_uint32), len(key), len(ops), _ptr(o, ctypes.c_int64),
                            _ptr(out, ctypes.c_int64), _ptr(st, ctypes.c_uint32))
        return [x if n > 0 else x % (1 << 64) for x, n in zip(out[:len(ops)], ops)], list(st)

    def dump(self):
        """The loaded or played state in the loader's format (flatten()'s)."""
        f = self.lib.gs_dump
        f.restype = ctypes.c_int64
        f.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_int64), ctypes.c_int64, ctypes.c_int64]
        cap = 1 << 20
        out = _buf("q", cap)
        n = f(self.ctx(), _ptr(out, ctypes.c_int64), cap, -1)
        return list(out[:n]) if n >= 0 else None


def flatten_plan(lib, s, p, parts):
    """The determinizer's draw-independent parts (interpreter/determinize.py) as runtime.c reads
    them (read_plan), or None."""
    places, hidden, draw, card_vars, secret, flow = parts
    plan = getattr(draw, "plan", None)
    if plan is None:
        return None
    rs = s.rs
    secret_pending = int(s.pending >= 0 and bool(getattr(rs.chooses[s.pending], "secret", False)))
    out = [p, secret_pending, len(places)]
    for (zi, i), c in zip(places, hidden):
        out += [zi, i, c]
    if plan[0] == "shuffle":
        out += [0, len(plan[1])] + list(plan[1])
    else:
        _, buckets, order, groups = plan
        out += [1, len(buckets)]
        for cs in buckets:
            out += [len(cs)] + list(cs)
        out.append(len(order))
        for i, ks in order:
            out += [i, len(ks)] + list(ks)
        out.append(len(groups))
        for idx in groups:
            out += [len(idx)] + list(idx)
    out += [len(card_vars)] + list(card_vars)
    out.append(len(secret))
    try:
        for i, init in secret:
            out.append(i)
            _value(lib, init, out)
    except _Unflattenable:
        return None
    slots = []
    for k, _num in flow:
        slot = lib.for_slot.get(k.split("#")[1])
        if slot is None:
            return None
        slots.append(slot)
    slots.sort()        # by slot (the order of s.fenv's keys is the order they were made: plan.c lists by slot)
    out += [len(slots)] + slots
    vis = {"zone": 0, "public": 1, "hidden": 2}
    out += [vis.get(d.visibility, 2) for d in rs.mark_decl]
    if any(d.visibility == "zone" for d in rs.mark_decl):
        bit = 1 << p
        blind = [c for c in range(rs.ncards) if not s._sight(c) & bit]
    else:
        blind = []
    out += [len(blind)] + blind
    return out


def _score(x, tag):
    return bool(x) if tag == T_BOOL else x


# -- state → flat int64 buffer (runtime.c, load_state) ------------------------------------------
def flatten(lib, s):
    """The state's data as the C loader reads it, or None if some value cannot go (a text the
    generator did not intern, a number beyond 64 bits, an unknown flow key)."""
    rs = s.rs
    if s.terminal:
        return None
    try:
        out = [ABI, rs.ncards, rs.nzones, len(rs.var_init), len(lib.for_slot)]
        gen = GEN.get(s.gen)
        if gen is None:
            return None
        out += [s.pc, s.pending, s.actor, s.cur, s.phase, int(s.terminal), s.turns, s.decisions, s.budget,
                s.spent, _i64(s.rng), gen, int(s._legal is not None)]
        for z in s.z:
            out.append(len(z))
            out.extend(z)
        out.extend(s.kn)
        face = s.face
        out.extend(face.get(c, 0) for c in range(rs.ncards)) if face else out.extend([0] * rs.ncards)
        for col in s.mk:
            out.extend(int(x) for x in col)
        for x in s.v:
            _value(lib, x, out)
        slots = [[0, 0, 0, None, None] for _ in lib.for_slot]
        for k, x in s.fenv.items():
            if k.startswith("#list"):
                slot = lib.for_slot.get(k[len("#list"):])
                if slot is None:
                    return None
                slots[slot][0] = 1
                slots[slot][2] = x[1]
                slots[slot][3] = list(x[0])
            else:
                slot = lib.for_slot.get(k.split("#")[1])
                if slot is None:
                    return None
                slots[slot][1] = 1
                slots[slot][4] = x
        for active, has, idx, items, var in slots:
            out += [active, has, idx]
            _value(lib, items, out)
            _value(lib, var, out)
        evs = _pending(s)
        out.append(len(evs))
        for ev in evs:
            out.append(ev[1])
            out.append(-1 if ev[2] == "skip" else lib.action_index[ev[2]])
            _value(lib, [list(x) if isinstance(x, tuple) else x for x in ev[3]], out)
    except _Unflattenable:
        return None
    for x in out:
        if not -(1 << 63) <= x < (1 << 63):
            return None
    return out


def _i64(u):
    return u - (1 << 64) if u >= 1 << 63 else u


def _pending(s):
    """The stored choices of a simultaneous step under way (the secret events on top of the history)."""
    from .runtime import pending_choices
    return pending_choices(s)


# -- the entry points Game and State use ---------------------------------------------------------
def playouts(lib, n, seed):
    """Game.playouts' games seed .. seed + n - 1 on the native library `lib`: (seed, played in C,
    scores, winners, decisions) each; a game the C code stops (played in C: False) is for the caller
    to play on the Python engine."""
    done = 0
    while done < n:
        chunk = min(n - done, 4096)
        for i, (st, why, scores, winners, decisions) in enumerate(lib.playouts(seed + done, chunk)):
            yield seed + done + i, st == ST_OK, scores, winners, decisions
        done += chunk


def playout_arrays(lib, n, seed, generator="shake128"):
    """Game.playouts' games seed .. seed + n - 1 on the native library `lib` as arrays: (scores, score
    kinds (1: a boolean), winner masks, decisions, ok (0: the C code stopped the game; the caller plays
    it on the Python engine)); no Python object per game (gamespec.game.Playouts)."""
    P = lib.rs.P
    sc, kind, win, dec, ok = array("q"), array("b"), array("Q"), array("q"), array("b")
    done = 0
    while done < n:
        chunk = min(n - done, 1 << 16)
        status, _why, scores, tags, winners, decisions = lib.playout_buffers(seed + done, chunk, generator)
        sc += scores[:chunk * P]
        kind += array("b", [t == T_BOOL for t in tags[:chunk * P]]) if T_BOOL in tags else array("b", bytes(chunk * P))
        win += winners[:chunk]
        dec += decisions[:chunk]
        ok += array("b", [x == ST_OK for x in status[:chunk]]) if any(status[:chunk]) else array("b", b"\1" * chunk)
        done += chunk
    return sc, kind, win, dec, ok


def random_bot_key(seed, seat):
    """The 32-bit words random.seed uses for RandomBot(seed, seat)'s text seed (version 2: the text's
    bytes and their SHA-512, as one big-endian integer), as mt_init_by_array takes them (its
    little-endian words, at least one)."""
    b = f"gamespec.RandomBot:{seed}:{seat}".encode()
    a = int.from_bytes(b + _sha512(b).digest(), "big")
    n = max(1, (a.bit_length() + 31) // 32)
    return array("I", a.to_bytes(4 * n, "little"))


def simulate_games(lib, game, players, seeds, options, kinds, timeout, play_safe, timed_out, trace=None,
                   on_bail=None, generator="shake128"):
    """gamespec.simulate's per-game results for a random bot in every seat, the games in C; a game
    the C code stops is played by `play_safe` (the Python engine), one past its timeout is the error
    `timed_out(timeout, decisions)` makes (both handed in by the driver above). `trace`: None, or
    the driver's object with `mode`, `sign` and `fields(raw)` (a result's trace fields from the C
    counters, NativeLib.simulate); a game whose trace C cannot compute exactly is played by
    `play_safe` with its trace. `on_bail(why)` is told of each game the C code stopped (the driver
    says so once: the Python engine played it). `generator` "splitmix64": the fast generator (the
    seats' streams made in C, none of the default's MT keys computed here)."""
    fast = generator == "splitmix64"
    keys = [] if fast else [[random_bot_key(s, p) for p in range(players)] for s in seeds]
    gkw = {"generator": generator} if fast else {}
    out = []
    mode, sign, teams = (trace.mode, trace.sign, trace.teams) if trace is not None else (0, 1, None)
    for seed, r in zip(seeds, lib.simulate(seeds, keys, timeout, mode, sign, teams, generator)):
        if r["status"] == ST_OK:
            res = {"seed": seed, "bots": list(kinds), "scores": r["scores"], "winners": r["winners"],
                   "decisions": r["decisions"], "turns": r["turns"], "phases": r["phases"], "seconds": r["seconds"]}
            if trace is not None:
                res.update(trace.fields(r["trace"]))
            out.append(res)
        elif r["status"] == ST_TIMEOUT:
            e = timed_out(timeout, r["decisions"])
            out.append({"seed": seed, "error": f"{type(e).__name__}: {e}", "reason": "timeout", "internal": False})
        else:
            if on_bail is not None:
                on_bail(WHY.get(r["why"], f"code {r['why']}"))
            kw = {"trace": True} if trace is not None else {}
            out.append(play_safe(game, players, seed, options, kinds, timeout, "python", **kw, **gkw))
    return out


def search(lib, view, rng, iterations, c, deadline=None):
    """An ISMCTS search of `view` in C: (root statistics {position: (visits, reward)}, iterations),
    the bot's rng advanced exactly as the Python search advances it; None if the C search cannot
    take it (the caller runs the Python search from the rng as it was)."""
    state = view._state()
    from .native_plan import ready, search_state
    if ready(lib):      # the plan built in C from the loaded struct (plan.c): no determinizer in Python
        return search_state(lib, lib.ctx(), view.player, view.num_legal_actions, rng, iterations, c, deadline) \
            if lib.load(state) else None
    world_of = view.determinizer()
    parts = getattr(world_of, "parts", None)
    if parts is None:
        return None
    version, words, gauss = rng.getstate()
    got = lib.ismcts(state, view.player, parts, iterations, c, view.num_legal_actions, words, deadline)
    if got is None:
        return None
    visits, reward, done, mt = got
    rng.setstate((version, tuple(mt), gauss))
    return {i: (v, r) for i, (v, r) in enumerate(zip(visits, reward)) if v}, done


def rollout(lib, state, rng):
    """state.playout(rng) (not in place) on the native library: the scores, the rng advanced exactly
    as the Python playout advances it; None when the native engine cannot take this state (the
    caller plays it in Python)."""
    if not hasattr(rng, "getstate") or not lib.load(state):     # a FastRandom: the Python playout draws from it
        return None
    version, words, gauss = rng.getstate()
    st, why, scores, winners, decisions, mt = lib.rollout(words)
    if st != ST_OK:
        return None
    rng.setstate((version, tuple(mt), gauss))
    return scores
