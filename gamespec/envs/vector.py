"""Many games stepped in C at once: Gymnasium's vector API (autoreset SAME_STEP, as EnvPool's), arrays
written by C into numpy buffers, opponent seats played in C, threads (docs/agents.md, "VectorEnv")."""
from __future__ import annotations

import ctypes

from gamespec.errors import IllegalAction, NativeGameStopped, UsageError

from .common import native_kit, require

np = require("numpy")
gym = require("gymnasium")
spaces = require("gymnasium.spaces")

OPPONENTS = (None, "random")
# the observation rows' element types: C's code (step.c OT_*) and each type's range (a value outside it
# is an error naming its place, never clipped)
OBS_DTYPES = {"float32": 0, "int16": 1, "int8": 2, "uint8": 3}
W_RANGE = 202


def _ismcts_iterations(opponents):
    """N of 'ismcts:N' (a whole number >= 1), else None."""
    if not isinstance(opponents, str) or not opponents.startswith("ismcts:"):
        return None
    n = opponents[len("ismcts:"):]
    return int(n) if n.isdigit() and n.isascii() and 1 <= int(n) <= 10 ** 7 else None


class _VecArgs(ctypes.Structure):
    """step.c's VecArgs: every argument of gs_vec_call, made once per buffer set (one pointer a call)."""
    _fields_ = [(name, ctypes.c_void_p if kind == "p" else ctypes.c_int64) for name, kind in (
        ("envs", "p"), ("n", "i"), ("actions", "p"), ("seeds", "p"), ("stride", "i"), ("learner", "i"),
        ("reward_kind", "i"), ("nthreads", "i"), ("set", "i"), ("stream", "i"), ("kind", "i"), ("reset", "i"),
        ("obs", "p"), ("mask", "p"), ("rewards", "p"), ("done", "p"), ("seat", "p"), ("status", "p"),
        ("games", "p"), ("fobs", "p"), ("reward", "p"), ("summary", "p"), ("none", "p"))]


class VectorEnv(gym.vector.VectorEnv):
    """`num_envs` games of one spec in C. Observations are a dict of two arrays, `observation`
    (num_envs, size) of `obs_dtype` (float32, or int16/int8/uint8: the same whole numbers in fewer
    bytes; a value outside the type is a UsageError naming its place, never clipped) and
    `action_mask` (num_envs, N) int8, for the seat to move in each game
    (`infos["seat"]`). `step(actions)` takes one action id per game; `rewards` are the learner's
    (`learner` with `opponents`), else those of the seat that just moved; `infos["rewards"]`
    (num_envs, players) holds every seat's. A game that ends is reset at once on its next seed
    (autoreset SAME_STEP): its row then shows the new game's first decision. Game k of env i has
    seed `seed + i + k * num_envs`. The arrays are C's own buffers, two sets used in turn: a step's
    arrays stay valid until the step after next (copy them to keep them longer)."""

    metadata = {"autoreset_mode": gym.vector.AutoresetMode.SAME_STEP}

    def __init__(self, game, players, options, num_envs=1, seed=0, opponents=None, learner=0, reward="win",
                 num_threads=1, observations=True, stream=None, obs_dtype="float32"):
        if type(num_envs) is not int or num_envs < 1:
            raise UsageError(f"num_envs is a whole number >= 1, not {num_envs!r}")
        ismcts = _ismcts_iterations(opponents)
        if opponents not in OPPONENTS and ismcts is None:
            raise UsageError(f"opponents is None, 'random' or 'ismcts:N' (N iterations >= 1), not {opponents!r}")
        if reward not in ("win", "score"):
            raise UsageError(f"reward is 'win' or 'score', not {reward!r}")
        if type(num_threads) is not int or not 1 <= num_threads <= 64:
            raise UsageError(f"num_threads is a whole number from 1 to 64, not {num_threads!r}")
        if opponents is not None and (type(learner) is not int or not 0 <= learner < players):
            raise UsageError(f"learner is a seat from 0 to {players - 1}, not {learner!r}")
        dt = np.dtype(obs_dtype).name if isinstance(obs_dtype, (str, type, np.dtype)) else None
        if dt not in OBS_DTYPES:
            raise UsageError(f"obs_dtype is one of {', '.join(OBS_DTYPES)}, not {obs_dtype!r}")
        self.obs_dtype = np.dtype(dt)
        self._kind = OBS_DTYPES[dt]
        kit = native_kit(game, players, options, engine="native")
        if not kit.obs_ok and observations:
            raise UsageError("this spec's observation tensor is not available in C")
        self.kit = kit
        self.game = game
        self.players = players
        self.num_envs = num_envs
        self.learner = learner if opponents is not None else -1
        self.opponents = opponents
        self.reward_kind = 0 if reward == "win" else 1
        self.num_threads = num_threads
        self.observations = observations
        self.stream = -1 if stream is None else int(bool(stream))   # rows streamed out (None: sets over 16 MB)
        lo, hi = (-np.inf, np.inf) if self._kind == 0 else (np.iinfo(self.obs_dtype).min, np.iinfo(self.obs_dtype).max)
        N, S = kit.num_ids, kit.obs_size
        self.single_observation_space = spaces.Dict({
            "observation": spaces.Box(lo, hi, (S,), self.obs_dtype),
            "action_mask": spaces.Box(0, 1, (N,), np.int8)})
        self.single_action_space = spaces.Discrete(N)
        self.observation_space = gym.vector.utils.batch_space(self.single_observation_space, num_envs)
        self.action_space = gym.vector.utils.batch_space(self.single_action_space, num_envs)
        self._ptrs = np.zeros(num_envs, np.uint64)
        for i in range(num_envs):
            p = kit._new()
            if not p:
                self.close()
                raise MemoryError("the native engine could not allocate a game")
            self._ptrs[i] = p
        if ismcts:      # the search and its determinization plan in C (interpreter/native/plan.c)
            from gamespec.interpreter.native_plan import ready
            if not ready(kit.lib):
                self.close()
                raise UsageError("this spec's determinization plan is not available in C: no ISMCTS opponents")
            kit.c.gs_st_set_ismcts.argtypes = [ctypes.c_void_p, ctypes.c_int64, ctypes.c_double]
            for p in self._ptrs:
                if kit.c.gs_st_set_ismcts(int(p), ismcts, 0.7) != 0:
                    self.close()
                    raise MemoryError("the native engine could not allocate a game")
        self._turn = 0
        self._seeds = np.zeros(num_envs, np.uint64)
        self._games = np.zeros(num_envs, np.int64)
        self._actions = np.full(num_envs, -1, np.int64)
        self._seed = seed
        self._none = np.full(num_envs, -1, np.int64)     # a reset's actions: none
        self._end_mask = np.zeros(N, np.int8)       # a finished game's mask: nothing is legal
        self._end_mask.flags.writeable = False
        self._trunc = np.zeros(num_envs, np.bool_)   # truncations: always false (the spec's budgets end games)
        self._trunc.flags.writeable = False
        self._call = kit.c.gs_vec_call
        self._bufs = [self._buffers(S if observations else 1, N, k) for k in range(2)]

    def _buffers(self, S, N, k):
        """One buffer set and the arguments of gs_vec_call writing into it (a VecArgs), made once."""
        n, P = self.num_envs, self.players
        b = {"obs": np.zeros((n, S), self.obs_dtype), "mask": np.zeros((n, N), np.int8),
             "rewards": np.zeros((n, P), np.float32), "done": np.zeros(n, np.uint8),
             "seat": np.zeros(n, np.int32), "status": np.zeros(n, np.int32),
             "final": np.zeros((n, S), self.obs_dtype), "reward": np.zeros(n, np.float32)}
        summary = np.zeros(2, np.int64)
        d = lambda a: a.ctypes.data       # noqa: E731
        args = _VecArgs(envs=d(self._ptrs), n=n, actions=d(self._actions), seeds=d(self._seeds), stride=n,
                        learner=self.learner, reward_kind=self.reward_kind, nthreads=self.num_threads, set=k,
                        stream=self.stream, kind=self._kind, reset=0,
                        obs=d(b["obs"]) if self.observations else None, mask=d(b["mask"]),
                        rewards=d(b["rewards"]), done=d(b["done"]), seat=d(b["seat"]), status=d(b["status"]),
                        games=d(self._games), fobs=d(b["final"]) if self.observations else None,
                        reward=d(b["reward"]), summary=d(summary), none=d(self._none))
        b["cargs"] = args                      # (held: the struct the pointer below points into)
        b["ptr"] = ctypes.addressof(args)
        b["summary"] = memoryview(summary)     # two Python ints to read, no numpy scalar
        b["done_bool"] = b["done"].view(np.bool_)
        b["obs_out"] = {"observation": b["obs"], "action_mask": b["mask"]}
        b["final_rows"] = list(b["final"])     # per env a view of its final-observation row
        return b

    def reset(self, *, seed=None, options=None):
        if seed is not None:
            self._seed = int(seed)
        if not 0 <= self._seed < 2 ** 64 - 2 ** 40:
            raise UsageError(f"seed is a whole number >= 0, not {self._seed!r}")
        self._seeds[:] = (np.arange(self.num_envs, dtype=np.uint64) + np.uint64(self._seed))
        self._games[:] = 0
        self._turn ^= 1
        b = self._bufs[self._turn]
        b["cargs"].reset = 1
        try:
            rc = self._call(b["ptr"])
        finally:
            b["cargs"].reset = 0
        if rc != 0 or b["summary"][0] >= 0:
            self._fail(b, rc)
        return dict(b["obs_out"]), {"seat": b["seat"], "rewards": b["rewards"], "games": self._games}

    def step(self, actions):
        a = actions if type(actions) is np.ndarray else np.asarray(actions)
        if a.shape != self._actions.shape or a.dtype.kind not in "iu":
            raise IllegalAction(f"step takes {self.num_envs} whole action ids, not an array of shape {a.shape} "
                                f"and type {a.dtype}")
        self._actions[:] = a       # an id outside 0..N-1 is in no listing: C reports it not legal
        self._turn ^= 1
        b = self._bufs[self._turn]
        rc = self._call(b["ptr"])
        sm = b["summary"]
        if rc != 0 or sm[0] >= 0:
            self._fail(b, rc)
        done = b["done_bool"]
        infos = {"seat": b["seat"], "rewards": b["rewards"], "games": self._games}
        if sm[1] and self.observations:
            # Gymnasium's SAME_STEP form: per env an ended game's final observation (what the learner,
            # else the seat that just moved, sees at the end; nothing is legal), None elsewhere; and the
            # same rows as one array (zero where no game ended)
            # (the rows' views made once per buffer set: a view per ended game cost as much as the rest
            # of the Python part, a fifth of a 64-game call on two threads)
            fin = np.empty(self.num_envs, dtype=object)
            rows, m = b["final_rows"], self._end_mask
            for i in b["done"].nonzero()[0].tolist():
                fin[i] = {"observation": rows[i], "action_mask": m}
            infos["final_obs"] = fin
            infos["_final_obs"] = done
            infos["final_observation"] = b["final"]
        return dict(b["obs_out"]), b["reward"], done, self._trunc, infos

    def _fail(self, b, rc):
        """The call was refused, or a game's status is not 0: the error for the first such game."""
        if rc != 0:
            raise UsageError("the native vector step refused its arguments")
        st = b["status"]
        i = int(b["summary"][0])
        if st[i] == 1:
            a = int(self._actions[i])
            if not 0 <= a < self.kit.num_ids:
                raise IllegalAction(f"game {i}: action ids are 0 to {self.kit.num_ids - 1}, not {a}")
            raise IllegalAction(f"game {i}: action id {a} is not legal now (see its action_mask)")
        if st[i] == W_RANGE:
            raise UsageError(self._range_error(i))
        from gamespec.interpreter.native_engine import WHY
        raise NativeGameStopped(f"game {i} (seed {int(self._seeds[i])}) was stopped in C "
                                f"({WHY.get(int(st[i]), 'code %d' % st[i])}); play it with the per-step "
                                f"state to get the Python engine's answer")

    def _range_error(self, i):
        """Why game i's observation did not fit obs_dtype: the place (C holds it), its name and value."""
        from gamespec.interpreter.obs_tensor import encoder
        info = np.iinfo(self.obs_dtype)
        val = ctypes.c_double()
        k = self.kit.c.gs_st_bad(ctypes.c_void_p(int(self._ptrs[i])), ctypes.byref(val))
        where = ""
        if k >= 0:
            name = next((nm for nm, off, shape in encoder(self.kit.rs).layout
                         if off <= k < off + int(np.prod(shape))), "?")
            where = f": {name!r} (place {k}) is {val.value:g}"
        return (f"game {i} (seed {int(self._seeds[i])}): an observation value does not fit obs_dtype "
                f"{self.obs_dtype.name} ({info.min} to {info.max}){where}; use a wider type (int16, float32)")

    def close(self, **kwargs):
        ptrs = getattr(self, "_ptrs", None)
        if ptrs is not None:
            self._ptrs = None
            for p in ptrs:
                if p:
                    self.kit._free(int(p))

    def __del__(self):
        try:
            self.close()
        except Exception:   # pragma: no cover - at interpreter exit
            pass
