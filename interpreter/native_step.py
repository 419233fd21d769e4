"""The native per-step state (docs/agents.md, "The native per-step state"): a game held in its C struct
(interpreter/native/step.c) and stepped by fixed action id. Legal ids, the action mask, the observation
and information-state tensors, the end and the results come from C; the Python State (views, logs,
labels, saves) is built only when asked, by re-playing the recorded ids on the Python engine from the
seed. Where C stops a game (a fault, a bail, an id the tables cannot give) the state turns into that
Python State at once and the Python engine carries on (its error, or the rest of the game): the same
game either way."""
from __future__ import annotations

import ctypes

from array import array

from .native_engine import T_BOOL, _buf, _ptr

_P = ctypes.POINTER
_vp, _i32, _i64, _u64 = ctypes.c_void_p, ctypes.c_int32, ctypes.c_int64, ctypes.c_uint64
ZERO_OBJECTS = 16      # distinct 0.0 objects a tensor list holds in turn (StepKit.zero_list)


class StepKit:
    """One native library's per-step entry points, for one (game, players, options); None-free:
    `agent_kit` returns the reason there is none instead. Its states share its scratch buffers:
    step them from one thread at a time (VectorEnv's threads run inside C and use none of them)."""

    def __init__(self, lib, game, players, options):
        self.lib = lib
        self.game = game
        self.players = players
        self.options = dict(options)
        self.rs = lib.rs
        c = lib.lib
        c.gs_agent_tables.argtypes = [_P(_i64)]
        t = _buf("q", 5)
        c.gs_agent_tables(_ptr(t, _i64))
        self.ok, self.num_ids, self.obs_ok, self.obs_size, self.P = t[0], t[1], t[2], t[3], t[4]
        c.gs_st_new.restype = _vp
        c.gs_st_new.argtypes = []
        c.gs_st_free.argtypes = [_vp]
        c.gs_st_free.restype = None
        c.gs_st_reset.argtypes = [_vp, _u64]
        c.gs_st_apply.argtypes = [_vp, _i64, _P(_i32), _P(_i64), _i64]
        c.gs_st_info.argtypes = [_vp, _P(_i32)]
        c.gs_st_info.restype = None
        c.gs_st_ids.argtypes = [_vp, _P(_i64), _i64]
        c.gs_st_ids.restype = _i64
        c.gs_st_mask.argtypes = [_vp, _vp]
        c.gs_st_mask.restype = None
        c.gs_st_result.argtypes = [_vp, _P(_i64), _P(_i32), _P(_u64)]
        c.gs_st_clone.argtypes = [_vp, _vp]
        c.gs_st_load.argtypes = [_vp, _P(_i64), _i64]
        c.gs_st_obs.argtypes = [_vp, _i64, _vp]
        c.gs_st_obs_delta.argtypes = [_vp, _i64, _vp, _vp, _vp, _vp]
        c.gs_st_obs_delta.restype = _i64
        c.gs_st_trace_scores.argtypes = [_vp, _i64, _P(_i64)]
        c.gs_st_trace_scores.restype = ctypes.c_int
        c.gs_st_progress.argtypes = [_vp, _P(_i64)]
        c.gs_st_progress.restype = None
        c.gs_st_bad.argtypes = [_vp, _P(ctypes.c_double)]
        c.gs_st_bad.restype = _i64
        c.gs_vec_call.argtypes = [_vp]      # a VecArgs (gamespec/envs/vector.py)
        self.c = c
        self._new, self._free, self._reset, self._apply = c.gs_st_new, c.gs_st_free, c.gs_st_reset, c.gs_st_apply
        self._obs = c.gs_st_obs
        self._obs_delta = c.gs_st_obs_delta
        self._progress = _buf("q", 2)
        self._pprogress = _ptr(self._progress, _i64)
        self._info = _buf("i", 5)
        self._pinfo = _ptr(self._info, _i32)
        self._cap = 4096
        self._ids = _buf("q", self._cap)
        self._pids = _ptr(self._ids, _i64)
        self._np = None
        self._tbuf = None        # the tensors' scratch row (numpy float32, size + 1) and its address
        self._sbuf = None        # a tensor's changed places (indexes, values) and their addresses
        self._zeros = None       # obs_size zeros, ZERO_OBJECTS objects in turn: a state's first tensor list

    def numpy(self):
        """numpy, imported at the first call that needs it (this module imports none)."""
        np = self._np
        if np is None:
            import numpy as np
            self._np = np
        return np

    def tensor_scratch(self):
        """(array, address): the scratch row C writes tensors into (valid until the next tensor call;
        its address read once: numpy's `.ctypes.data` costs more than copying the row)."""
        if self._tbuf is None:
            import numpy as np
            t = np.zeros(self.obs_size + 1, np.float32)
            self._tbuf = (t, t.ctypes.data)
        return self._tbuf

    def sparse_scratch(self):
        """(indexes, values, their addresses): where C lists the places a tensor changed."""
        if self._sbuf is None:
            ia, va = _buf("q", max(1, self.obs_size)), _buf("d", max(1, self.obs_size))
            self._sbuf = (ia, va, ia.buffer_info()[0], va.buffer_info()[0])
        return self._sbuf

    def zero_list(self):
        """A new list of obs_size zeros (made once per kit): 16 distinct 0.0 objects in turn. One
        shared object makes every reference count write wait for the last (copy and free 2-3x
        slower); a distinct object per place spreads the counts over 80 KB; 16 in turn keep them in
        a few cache lines with no chain (a 3,318-place tensor: 4.8 -> 4.0 µs a copy and free)."""
        if self._zeros is None:
            n = self.obs_size
            zs = list(map(float, bytes(ZERO_OBJECTS)))
            self._zeros = (zs * (n // ZERO_OBJECTS + 1))[:n]
        return self._zeros.copy()

    def _grow(self, n):
        cap = self._cap
        while cap < n:
            cap *= 2
        self._cap = cap
        self._ids = _buf("q", cap)
        self._pids = _ptr(self._ids, _i64)

    def new_game(self, seed) -> "NativeState":
        return NativeState(self, seed)

    def from_state(self, state) -> "NativeState":
        """A NativeState of any Python State of this rule set (flattened into the struct; a state C
        cannot take stays on the Python engine, behind the same API)."""
        from .native_engine import flatten
        new = NativeState(self, state.seed, _blank=True)
        new.base = state.clone()
        buf = flatten(self.lib, state)
        if buf is None:
            new._py = state.clone()
            return new
        b = array("q", buf)
        if self.c.gs_st_load(new._p, _ptr(b, _i64), len(b)) != 0:
            new._py = state.clone()
            return new
        from .native_plan import set_poss       # the struct keeps State.poss too (plan.c)
        set_poss(self.lib, new._p, state.poss, native_state=True)
        new._sync()
        return new

    def python_game(self, seed, ids, base=None):
        """The Python engine's State of the game `seed` (or of `base`) after the decisions `ids`."""
        s = self.game.new_game(players=self.players, seed=seed, options=self.options) if base is None \
            else base.clone()
        for i in ids:
            s.apply_id(i)
        return s


def agent_kit(lib, game, players, options):
    """A StepKit over a loaded NativeLib, or the reason (a str) the per-step native state is not offered."""
    kit = StepKit(lib, game, players, options)
    if not kit.ok:
        return "the spec has no fixed action space (docs/agents.md)"
    return kit


class NativeState:
    """A game in C, by fixed action id. The agent API of State (current_player, is_terminal,
    legal_action_ids sorted, legal_action_mask, apply_id, observation_tensor, scores, winners, clone)
    plus `information_state_tensor`, `python_state()` (the Python engine's State of this very game)
    and `ids` (the decisions so far)."""

    __slots__ = ("kit", "seed", "base", "ids", "_p", "_py", "_legal", "_term", "_actor", "_decisions", "_last")

    def __init__(self, kit, seed, _blank=False):
        self.kit = kit
        self.seed = seed
        self.base = None         # the Python State this game started from (from_state), else a new game
        self.ids = []
        self._py = None
        self._last = None        # the last tensor_list and its row in C's form (its own, never a clone's)
        self._p = kit._new()
        if not self._p:
            raise MemoryError("the native engine could not allocate a game")
        if _blank:
            return
        if kit._reset(self._p, seed) != 0:      # stopped at set-up: the Python engine decides
            self._to_python(None)
            return
        self._sync()

    def __del__(self):
        p = self._p
        if p:
            self._p = None
            try:
                self.kit._free(p)
            except Exception:   # pragma: no cover - at interpreter exit
                pass

    def _sync(self):
        k = self.kit
        k.c.gs_st_info(self._p, k._pinfo)
        info = k._info
        self._term, self._actor, n, self._decisions = bool(info[0]), info[1], info[2], info[4]
        if n > k._cap:
            k._grow(n)
        k.c.gs_st_ids(self._p, k._pids, k._cap)
        self._legal = k._ids[:n]

    def _to_python(self, last):
        """C stopped: the Python engine plays this game from here (its error, if it raises one)."""
        s = self.kit.python_game(self.seed, self.ids, self.base)
        self._py = s
        if last is not None:
            s.apply_id(last)        # raises the Python engine's error, or plays on
            self.ids.append(last)

    # -- the agent API -------------------------------------------------------------------------
    @property
    def rs(self):
        return self.kit.rs

    @property
    def num_players(self):
        return self.kit.P

    @property
    def current_player(self):
        if self._py is not None:
            return self._py.current_player
        return None if self._term else self._actor

    @property
    def is_terminal(self):
        return self._py.is_terminal if self._py is not None else self._term

    @property
    def decisions(self):
        return self._py.decisions if self._py is not None else self._decisions

    @property
    def turns(self):
        if self._py is not None:
            return self._py.turns
        k = self.kit
        k.c.gs_st_progress(self._p, k._pprogress)
        return k._progress[0]

    @property
    def phase(self):
        """The phase's index in rs.phases (-1 before the first), as State.phase."""
        if self._py is not None:
            return self._py.phase
        k = self.kit
        k.c.gs_st_progress(self._p, k._pprogress)
        return k._progress[1]

    def trace_scores(self, units):
        """A traced game's scores now (simulate.GameTrace.after: the score expression of each of
        `units` seats or teams, a fault or a value that is no number counting 0), from C; None where
        C cannot say (the caller asks the Python State)."""
        if self._py is not None or not 0 < units <= 64:
            return None
        out = _buf("q", units)
        if self.kit.c.gs_st_trace_scores(self._p, units, _ptr(out, _i64)) != 0:
            return None
        return list(out)

    @property
    def in_c(self):
        """True while the game runs in C (False once the Python engine took it over)."""
        return self._py is None

    def legal_action_ids(self) -> list:
        if self._py is not None:
            return self._py.legal_action_ids()
        return sorted(self._legal)

    def legal_ids_in_order(self) -> list:
        """The legal ids in the order of legal_actions() (an id's position is the action's index)."""
        if self._py is not None:
            return list(self._py.rs.action_space().legal_ids(self._py))
        return list(self._legal)

    def legal_action_mask(self):
        """numpy int8 (N,): 1 where the id is legal."""
        np = self.kit.numpy()
        m = np.zeros(self.kit.num_ids, np.int8)
        ids = self._legal if self._py is None else self._py.legal_action_ids()
        if len(ids):
            m[np.frombuffer(ids, np.int64) if self._py is None else ids] = 1
        return m

    def apply_id(self, i) -> None:
        if self._py is not None:
            self._py.apply_id(i)
            self.ids.append(i)
            return
        if type(i) is not int:
            i = _as_id(i)
        k = self.kit
        if not 0 <= i < k.num_ids:
            from gamespec.errors import IllegalAction
            raise IllegalAction(f"no action id {i!r} (ids are 0 to {k.num_ids - 1})")
        rc = k._apply(self._p, i, k._pinfo, k._pids, k._cap)
        if rc == 0:
            self.ids.append(i)
            info = k._info
            self._term, self._actor, self._decisions = info[0] != 0, info[1], info[4]
            n = info[2]
            if n > k._cap:
                self._sync()
            else:
                self._legal = k._ids[:n]
        elif rc == 1:
            from gamespec.errors import IllegalAction
            N = k.num_ids
            if not 0 <= i < N:
                raise IllegalAction(f"no action id {i!r} (ids are 0 to {N - 1})")
            if self._term:
                raise IllegalAction("the game is over; no action is legal")
            raise IllegalAction(f"action id {i} is not legal now")
        else:
            self._to_python(i)

    def observation_tensor(self, player=None):
        """numpy float32 (size,): state.observation_tensor(player) of the Python engine, from C."""
        t = self._tensor_view(player)
        return t.copy() if self._py is None else t

    def _tensor_view(self, player, extra=0):
        """The tensor in the kit's scratch row (extra=1: one more place, for the caller), or the
        Python engine's tensor once it has the game. Valid until the next tensor call of the kit."""
        if player is None:
            player = self.current_player
        if self._py is not None:
            return self._py.observation_tensor(player)
        k = self.kit
        t, at = k.tensor_scratch()
        if type(player) is not int or k._obs(self._p, player, at) != 0:
            if type(player) is not int or not 0 <= player < k.P:
                from gamespec.errors import UsageError
                raise UsageError(f"no player {player!r} (players are 0 to {k.P - 1})")
            return self.python_state().observation_tensor(player)
        return t[:k.obs_size + extra]

    def tensor_into(self, player, at) -> bool:
        """Write observation_tensor(player) into the float32 buffer at address `at` (obs_size places,
        the caller's: an OpenSpiel observer's array); False where the tensor does not come from C."""
        k = self.kit
        return (self._py is None and type(player) is int and 0 <= player < k.P
                and k._obs(self._p, player, at) == 0)

    def tensor_list(self, player):
        """observation_tensor(player) as a new list of floats (OpenSpiel's form): this state's last
        list (whichever player it was for) with the places C says changed since set anew (at first
        from zeros: the non-zero places), then copied; None where the tensor does not come from C.
        One list a state, not one per player: between two decisions the seat to move changes and
        the places that differ are about as few (a 3,318-place tensor: a decision 15.6 -> 13.6 µs;
        four lists a state were four times the memory to bring back into the cache). The copy is
        most of this call; its zeros are 16 objects in turn (StepKit.zero_list says why)."""
        k = self.kit
        if self._py is not None or type(player) is not int or not 0 <= player < k.P:
            return None
        got = self._last
        if got is None:
            got = self._last = (k.zero_list(), (ctypes.c_float * max(1, k.obs_size))())
        out, prev = got
        t, at = k.tensor_scratch()
        ia, va, pi, pv = k.sparse_scratch()
        n = k._obs_delta(self._p, player, at, prev, pi, pv)
        if n < 0:
            self._last = None
            return None
        for i, v in zip(ia[:n], va[:n]):
            out[i] = v
        return out.copy()

    def information_state_tensor(self, player=None):
        """The observation tensor, then the number of decisions so far (gamespec.envs.openspiel)."""
        t = self._tensor_view(player, 1)
        if t.shape[0] == self.kit.obs_size + 1 and self._py is None:
            t[-1] = self.decisions
            return t.copy()
        import numpy as np
        out = np.empty(t.shape[0] + 1, np.float32)
        out[:-1] = t
        out[-1] = self.decisions
        return out

    @property
    def scores(self):
        return self._result()[0]

    @property
    def winners(self):
        return self._result()[1]

    def _result(self):
        if self._py is not None:
            return self._py.scores, self._py.winners
        if not self._term:
            return None, None
        P = self.kit.P
        sc, tags, w = _buf("q", P), _buf("i", P), _buf("Q", 1)
        self.kit.c.gs_st_result(self._p, _ptr(sc, _i64), _ptr(tags, _i32), _ptr(w, _u64))
        return ([bool(sc[p]) if tags[p] == T_BOOL else sc[p] for p in range(P)],
                [p for p in range(P) if w[0] >> p & 1])

    def clone(self) -> "NativeState":
        new = NativeState(self.kit, self.seed, _blank=True)
        new.ids = list(self.ids)
        new.base = self.base
        if self._py is not None:
            new._py = self._py.clone()
            return new
        if self.kit.c.gs_st_clone(new._p, self._p) != 0:
            new._py = self.python_state()
            return new
        new._term, new._actor, new._decisions, new._legal = self._term, self._actor, self._decisions, self._legal
        return new

    def python_state(self):
        """The Python engine's State of this game (views, logs, labels, saves): re-played from the seed."""
        if self._py is not None:
            return self._py
        return self.kit.python_game(self.seed, self.ids, self.base)


def _as_id(i):
    from gamespec.errors import IllegalAction
    try:
        import operator
        return operator.index(i)
    except TypeError:
        raise IllegalAction(f"no action id {i!r}") from None

