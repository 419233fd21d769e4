"""A loaded game: the checked Spec plus cached Rulesets; `new_game` starts a State."""
from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from gamespec.interpreter.rng import SEED_MAX, check_seed  # noqa: F401 - SEED_MAX re-exported for old imports

from .errors import UsageError   # here for old imports too (gamespec.game.UsageError)

__all__ = ["Game", "Playout", "Playouts", "UsageError"]   # the public face (docs/api.md)


class Playout(NamedTuple):
    """One random game of `Game.playouts`: its seed, final scores, winners and decisions played."""
    seed: int
    scores: list
    winners: list
    decisions: int


def check_generator(generator) -> str:
    """The generator asked for (None, "default", "fast" or a name as logs write it) by its name in
    logs; UsageError otherwise."""
    from gamespec.interpreter.rng import resolve_generator
    try:
        return resolve_generator(generator)
    except ValueError as e:
        raise UsageError(str(e)) from None


class Playouts(Sequence):
    """The games of one `Game.playouts` call: a sequence of Playout (index, iterate, `len`, `==` a list
    of Playout) held in arrays, a Playout made only when one is looked at (docs/native.md, "Playout
    results as arrays"). `decisions`, `scores` (n x players) and `winners` (n x players, booleans) are
    numpy arrays when numpy is installed, else array.array (scores and winners flat, row by row).

    Built from C's buffers: scores (int64) with their kinds (1: a boolean), winner masks, decisions,
    and `ok` (0: the C code stopped that game; `replay(seed)` plays it on the Python engine, once)."""
    __slots__ = ("seed", "players", "_sc", "_kind", "_win", "_dec", "_ok", "_replay", "_played")

    def __init__(self, seed, players, sc, kind, win, dec, ok, replay=None):
        self.seed, self.players = seed, players
        self._sc, self._kind, self._win, self._dec, self._ok = sc, kind, win, dec, ok
        self._replay = replay
        self._played = {}
        if replay is not None:          # the stopped games now: an error raises here, as before
            for i, good in enumerate(ok):
                if not good:
                    self._played[i] = replay(seed + i)

    @classmethod
    def of(cls, seed, players, runs):
        """From Playout objects (the Python engine's games)."""
        from array import array
        n = len(runs)
        out = cls(seed, players, array("q", bytes(8 * n * players)), array("b", bytes(n * players)),
                  array("Q", bytes(8 * n)), array("q", [r.decisions for r in runs]), array("b", bytes(n)))
        out._played = dict(enumerate(runs))
        return out

    def __len__(self):
        return len(self._dec)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        n = len(self._dec)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("playout index out of range")
        r = self._played.get(i)
        if r is not None:
            return r
        P = self.players
        sc, kind = self._sc[i * P:(i + 1) * P], self._kind[i * P:(i + 1) * P]
        w = self._win[i]
        return Playout(self.seed + i, [bool(x) if k else x for x, k in zip(sc, kind)],
                       [p for p in range(P) if w >> p & 1], self._dec[i])

    def __eq__(self, other):
        if isinstance(other, (Playouts, list, tuple)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    __hash__ = None

    def __repr__(self):
        return f"Playouts({list(self)!r})"

    def _np(self, code, data, shape=None):
        try:
            import numpy as np
        except ImportError:
            from array import array
            return array(code, data)
        a = np.array(data, dtype={"q": np.int64, "d": np.float64, "b": np.bool_}[code])
        return a.reshape(shape) if shape is not None else a

    @property
    def decisions(self):
        """Decisions per game (int64)."""
        dec = self._dec
        if self._played:
            dec = list(dec)
            for i, r in self._played.items():
                dec[i] = r.decisions
        return self._np("q", dec)

    @property
    def scores(self):
        """Final scores, n x players, row by row (int64; float64 if some score is not a whole number)."""
        P = self.players
        rows = list(self._sc)
        for i, r in self._played.items():
            rows[i * P:(i + 1) * P] = r.scores
        code = "q" if all(type(x) in (int, bool) and -(1 << 63) <= x < 1 << 63 for x in rows) else "d"
        return self._np(code, rows, (len(self), P))

    @property
    def winners(self):
        """Winners, n x players, row by row (booleans)."""
        P = self.players
        flags = [bool(w >> p & 1) for w in self._win for p in range(P)]
        for i, r in self._played.items():
            flags[i * P:(i + 1) * P] = [p in r.winners for p in range(P)]
        return self._np("b", flags, (len(self), P))


BACKENDS = ("codegen", "closures", "native")


def check_backend(backend):
    if backend is not None and backend not in BACKENDS:
        raise UsageError(f"the backend is one of {', '.join(BACKENDS)}, not {str(backend)[:40]!r}")
    return backend


class Game:
    def __init__(self, spec, backend: str | None = None):
        self.spec = spec
        self.backend = backend     # 'codegen' (default), 'closures' (the reference) or 'native' (docs/native.md)
        self._rulesets = {}

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def min_players(self) -> int:
        return self.spec.min_players

    @property
    def max_players(self) -> int:
        return self.spec.max_players

    @property
    def options(self) -> dict:
        return dict(self.spec.options)

    @property
    def graph(self):
        return self.spec.graph

    def check_options(self, options) -> dict:
        """The complete option dict: defaults overlaid with `options` (a dict of name: value), checked."""
        from gamespec.spec.options import option_set
        if options is not None and not isinstance(options, dict):
            raise UsageError(f"options are a dict of option name to value, not {type(options).__name__}")
        for k, v in (options or {}).items():
            if not isinstance(k, str):
                raise UsageError(f"an option name is a string, not {str(k)[:40]}")
            if not (v is None or isinstance(v, (bool, int, str))):
                raise UsageError(f"option '{k[:40]}' is true/false or a whole number, not {type(v).__name__}")
        try:
            return option_set(self.spec, options)
        except ValueError as e:
            raise UsageError(str(e)) from None

    def ruleset(self, players: int, options: dict):
        from gamespec.compile.ruleset import Ruleset
        if type(players) is not int or not self.spec.min_players <= players <= self.spec.max_players:
            raise UsageError(f"{self.spec.name} is for {self.spec.min_players} to {self.spec.max_players} "
                             f"players, not {str(players)[:40]}")
        options = self.check_options(options)
        key = (players, tuple(sorted(options.items())))
        rs = self._rulesets.get(key)
        if rs is None:
            rs = self._rulesets[key] = Ruleset(self.spec, players, options, backend=self.backend)
        return rs

    def new_game(self, players: int | None = None, seed: int | None = None, options: dict | None = None,
                 log: bool = False, generator: str | None = None):
        """A new game, set up and advanced to its first decision.

        Without a seed, 64 bits of the operating system's entropy (`state.seed` holds it, for the
        full log and the operator; no player channel shows it). `generator` names the shuffles'
        generator: this version's by default, "xorshift64*" to deal a seed as gamespec 0.1 did, "fast"
        (splitmix64: guessable, for simulations only; docs/native.md "Fast generator")."""
        from gamespec.interpreter.state import State
        players = self.spec.min_players if players is None else players
        if seed is None:
            import secrets
            seed = secrets.randbits(64)
        check_seed(seed)
        if not isinstance(log, bool):
            raise UsageError(f"log is true or false, not {str(log)[:40]}")
        generator = check_generator(generator)
        rs = self.ruleset(players, self.check_options(options))
        return State.new(self, rs, seed, log=log, generator=generator)

    def playouts(self, n: int, seed: int = 0, players: int | None = None, options: dict | None = None,
                 generator: str | None = None) -> "Playouts":
        """`n` uniformly random games, in the engine (no Action list copied, no log): a Playouts, the
        sequence of their Playout (held in arrays: docs/api.md).

        Game g is `new_game(players, seed + g, options, generator=generator)` played with
        `random.Random(seed + g)` picking each decision as `apply(legal_actions()[rng.randrange(n)])`
        would: the same games as that loop. With `generator="fast"` (guessable, for studies) the shuffles
        are splitmix64's and the picks `rng.FastRandom(rng.stream(seed + g, 0))`'s (docs/native.md)."""
        import random

        from gamespec.interpreter import rng as _rng
        from gamespec.interpreter.state import State
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise UsageError(f"the number of playouts is a whole number >= 0, not {n!r}")
        check_seed(seed)
        if n:
            check_seed(seed + n - 1, what="the last playout's seed")
        gen = check_generator(generator)
        players = self.spec.min_players if players is None else players
        rs = self.ruleset(players, self.check_options(options))
        fast = gen == _rng.FAST

        def one(g):
            s = State.new(self, rs, g, generator=gen)
            s.playout(_rng.FastRandom(_rng.stream(g, 0)) if fast else random.Random(g), in_place=True)
            return Playout(g, s.scores, s.winners, s.decisions)
        if n and rs.backend == "native":
            lib = self.native_library(rs)
            if lib is not None:     # a game the C code stops is played again here, on the Python engine
                from gamespec.interpreter.native_engine import playout_arrays
                return Playouts(seed, rs.P, *playout_arrays(lib, n, seed, gen), replay=one)
        return Playouts.of(seed, rs.P, [one(g) for g in range(seed, seed + n)])

    def native_library(self, rs):
        """The native library of rule set `rs` (built or found in the cache on first use), or None
        with one line on stderr saying why the Python engine plays instead (docs/native.md)."""
        from gamespec.compile.cbuild import library, tell
        lib = library(rs)
        if isinstance(lib, str):
            tell(self, rs, lib)
            return None
        return lib

    def step_kit(self, players: int, options: dict | None = None):
        """The native per-step kit of this configuration (interpreter/native_step.StepKit: games held
        in C and stepped by fixed action id, NativeState), or the reason (a str) there is none; made
        once per rule set. Says nothing on stderr: the caller decides whether the reason is news."""
        from gamespec.compile.cbuild import library
        rs = self.ruleset(players, self.check_options(options))
        kit = rs.__dict__.get("_step_kit")
        if kit is None:
            lib = library(rs)
            if not isinstance(lib, str):
                from gamespec.interpreter.native_step import agent_kit
                lib = agent_kit(lib, self, players, rs.options)
            kit = rs._step_kit = lib
        return kit

    def native_status(self, players: int | None = None, options: dict | None = None):
        """None when this configuration plays on the native engine, else the reason it does not."""
        from gamespec.compile.cbuild import library
        players = self.spec.min_players if players is None else players
        rs = self.ruleset(players, self.check_options(options))
        if rs.backend != "native":
            return f"the game was loaded with the {rs.backend} backend (load(..., backend='native'))"
        lib = library(rs)
        return lib if isinstance(lib, str) else None

    def state_from_json(self, data):
        """A saved state (to_json() output, from anyone): accepted only if re-playing its recorded
        decisions (and chance) gives exactly it; StateFormatError otherwise."""
        from gamespec.interpreter.serial import from_json
        return from_json(self, data)

    def load_state(self, path, max_bytes=None):
        """A saved state's file (state.to_json() as JSON, from anyone): refused early from its size
        (gamespec.interpreter.serial.MAX_STATE_BYTES, 16 MiB, unless max_bytes) and shape before anything is
        re-played, then checked as state_from_json does; StateFormatError otherwise."""
        from gamespec.interpreter.serial import from_json, read_file
        return from_json(self, read_file(path, max_bytes))

    def arranged_state(self, data):
        """A position written by hand in the to_json() format (tests, puzzles, determinized states
        for search): checked for consistency, but its knowledge and history are taken as given, so
        never use it on a file from someone else (use state_from_json)."""
        from gamespec.interpreter.serial import arranged
        return arranged(self, data)

    def evaluate(self, state, text: str, **bindings):
        """Evaluate one expression of the rule language in a state (for tests, debugging, tools).

        Checked and compiled on the fly, by the backend of the state's rule set: never use it in a
        hot loop. `bindings` become local names.
        """
        from .spec.builtins import CONSTANTS
        from .spec.types import Scope
        from .compile.codegen import CodeGen
        from .compile.closures import Compiler
        from .errors import SpecErrors
        from .spec.model import Rule
        from .spec.parser import Located, parse
        from gamespec.interpreter.state import State
        if not isinstance(state, State) or state.game is not self:
            raise UsageError("evaluate() needs a State of this game")
        if not isinstance(text, str) or len(text) > 10_000:
            raise UsageError("evaluate() needs an expression as a string (at most 10 000 characters)")
        ck = self.spec.checker
        rule = Rule(parse(Located(text, "<expr>"), "expr"), "<expr>", "<expr>", 1, 1)
        ck.errors = []
        ck.check_rule(rule, Scope(dict(CONSTANTS)).child({k: "any" for k in bindings}))
        if ck.errors:
            raise SpecErrors(ck.errors)
        comp = Compiler(state.rs) if state.rs.backend == "closures" else CodeGen(state.rs)
        fn = comp.expr(rule, {k: k for k in bindings})
        return fn(state, dict(bindings))

    def action_space(self, players: int, options: dict | None = None):
        """The fixed action numbering at (players, options) (docs/agents.md)."""
        from gamespec.compile.action_space import space
        return space(self.ruleset(players, self.check_options(options)))

    def num_distinct_actions(self, players: int, options: dict | None = None) -> int:
        return self.action_space(players, options).size

    def option_sets(self):
        """Every option combination as a list (UsageError if there are more than 4096)."""
        from gamespec.spec.options import all_option_sets
        try:
            return all_option_sets(self.spec)
        except ValueError as e:
            raise UsageError(str(e)) from None
