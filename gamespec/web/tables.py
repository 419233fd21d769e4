"""Lobby requests → tables: a game, its seats (a person's token or a bot), decisions checked and played.

No web framework here: the server (server.py) calls these methods and sends what they return.
"""
from __future__ import annotations

import hmac
import os
import secrets
import threading
import time

from gamespec.bots.registry import KINDS, BotError, page_kind
from gamespec.errors import GamespecError, IllegalAction, SpecErrors, WebError

from gamespec.table.undo import UndoRefused, check_public, take_back

from .messages import seat_message

PERSON = "person"
MAX_PER_CLIENT = 10         # live (unfinished) tables one client address may hold
FINISHED_TTL = 600.0        # seconds a finished game stays (its end screen) before it is freed
IDLE_TTL = 1800.0           # seconds without a decision or an open socket before a game is freed
PAGE_KINDS = tuple(k.name for k in KINDS.values() if k.page)   # never module:Class (no code import)


class SpecFile:
    """One spec given on the command line: its game (or its errors), reloaded when the file changes."""

    def __init__(self, path, backend=None):
        self.path = path
        self.backend = backend
        self.mtime = None
        self.game = None
        self.errors = []
        self.reload()

    def reload(self):
        import gamespec
        try:
            self.mtime = os.stat(self.path).st_mtime_ns
        except OSError as e:
            self.game, self.errors = None, [f"{self.path}: error: cannot read the spec: {e.strerror or e}"]
            return
        try:
            game = gamespec.load(self.path)
            if self.backend:
                game.backend = self.backend
            game.ruleset(game.min_players, game.check_options({}))     # compile now: errors show at once
        except SpecErrors as e:
            self.game, self.errors = None, [str(x) for x in e.errors]
        except GamespecError as e:
            self.game, self.errors = None, [f"{self.path}: error: {e}"]
        else:
            self.game, self.errors = game, []

    def changed(self) -> bool:
        try:
            return os.stat(self.path).st_mtime_ns != self.mtime
        except OSError:
            return self.mtime is not None

    def describe(self, key) -> dict:
        """The lobby's facts of this spec: name, players, options (default, values, range [lo, hi]
        or None, and `doc`: what the option does, in the spec's words), or its errors."""
        d = {"id": key, "file": os.path.basename(self.path), "errors": list(self.errors)}
        g = self.game
        if g is not None:
            values = getattr(g.spec, "option_values", None) or {}
            ranges = getattr(g.spec, "option_ranges", None) or {}
            d.update(name=g.name, min_players=g.min_players, max_players=g.max_players,
                     undo=presentation_of(g)["undo"],
                     options={k: {"default": v, "values": list(values.get(k) or []),
                                  "range": list(ranges[k]) if k in ranges else None, "doc": _option_doc(g, k)}
                              for k, v in g.options.items()})
        return d


class Table:
    """One game: the spec it plays, players, options, seed, and per seat a token (a person) or a bot.

    Every decision is stored (`actions`, as the engine's JSON) and the state keeps its full log, so
    the table can be saved as a verified log and rebuilt exactly (undo, a server restart)."""

    def __init__(self, tid, spec: SpecFile, players, options, seed, kinds, bot_factory, undo=False,
                 tokens=None, watch_token=None, client=None):
        self.id = tid
        self.spec = spec
        self.players = players
        self.options = options
        self.seed = seed
        self.kinds = list(kinds)
        self.tokens = list(tokens) if tokens else [secrets.token_urlsafe(24) if k == PERSON else None for k in kinds]
        self.watch_token = watch_token or secrets.token_urlsafe(24)     # the spectators' link
        self.allow_undo = bool(undo)
        self.client = client        # who opened it (a per-client cap counts the live ones)
        self.seed_chosen = True
        self._bot_factory = bot_factory
        self.lock = threading.RLock()
        self.errors = []            # the spec's errors after a change that did not validate
        self.generation = 0         # bumped at each restart and undo (a bot's answer for an old game is dropped)
        self.notes = []             # public notes of the table: {"at": N, "text", ...} (undos: table/undo.py)
        self.touched = time.monotonic()       # the last decision or connection (idle tables are freed)
        self.finished_at = None               # when the game ended (finished tables are freed)
        self.start(spec.game)

    def start(self, game, actions=()):
        """A new game of `game` from the table's seed, `actions` (engine JSON) applied in order."""
        self.game = game
        state = game.new_game(players=self.players, seed=self.seed, options=self.options, log=True)
        deciders = []
        self.round_ends = {}        # person seat (None: spectators) -> its last round end: {"at", "lines"}
        for a in actions:
            deciders.append(state.current_player)
            self._apply(state, a)
        self.state = state
        self.actions = [dict(a) for a in actions]
        self.deciders = deciders    # who took each decision (public: everyone sees who decides)
        self.bots = [None if k == PERSON else self._bot_factory(k, p, self.seed) for p, k in enumerate(self.kinds)]
        self.generation += 1
        self.errors = []
        self._ended()

    def _ended(self):
        if self.state.is_terminal and self.finished_at is None:
            self.finished_at = time.monotonic()
        elif not self.state.is_terminal:
            self.finished_at = None

    def _apply(self, state, action):
        """Apply a decision; where it ended a phase with an `on_end`, keep each person's block
        (gamespec/table/round_end.py, from that seat's views: its message's `round_end`)."""
        ends = self._phase_ends()
        seats = [p for p, k in enumerate(self.kinds) if k == PERSON] + [None]     # None: the spectators
        before = {p: ends.before(state, p, _look) for p in seats} if ends.watches(state.phase_name) else None
        state.apply(action)
        if before:
            from gamespec.table.screen import Screen
            from gamespec.table.transcript import Labels
            labels = Labels(state.rs)
            for p in seats:
                lines = ends.block(before[p], state, p, Screen({}, labels, self.players, p).value, _look)
                if lines:
                    self.round_ends[p] = {"at": state.decisions, "lines": [{"text": t, "kind": k} for t, k in lines]}

    def _phase_ends(self):
        from gamespec.table.round_end import PhaseEnds
        if getattr(self, "_ends", (None,))[0] is not self.game:
            self._ends = (self.game, PhaseEnds(self.game.spec, presentation_of(self.game)))
        return self._ends[1]

    def public(self) -> dict:
        return {"game": self.game.name,
                "seats": ["person" if k == PERSON else f"bot ({k})" for k in self.kinds],
                "presentation": presentation_of(self.game), "undo": self.allow_undo,
                "notes": list(self.notes), "last": self.deciders[-1] if self.deciders else None,
                "thinks": self._thinks()}

    def _thinks(self) -> list:
        """Per seat, whether its bot may take noticeable time to decide (a search: the page says
        'player N is thinking…' while it is to move); a fact of the seat's kind, public as the kind."""
        from gamespec.bots.base import may_take_time
        return [b is not None and may_take_time(b) for b in self.bots]

    def message(self, seat, state=None) -> dict:
        """The message of `seat` (None: a spectator) of `state` (default the table's: tests pass a
        determinization)."""
        msg = seat_message(self.state if state is None else state, seat, self.public(),
                           round_end=self.round_ends.get(seat))
        msg["errors"] = list(self.errors)
        return msg

    def _play(self, pos):
        s = self.state
        a = s.legal_actions()[pos]
        self.deciders.append(s.current_player)
        self.actions.append(a.to_json(label=False))
        self._apply(s, a)
        self.touched = time.monotonic()
        self._ended()

    def seat_of(self, token) -> int | None:
        if not isinstance(token, str):
            return None
        found = None
        for p, t in enumerate(self.tokens):        # constant time in the token: compare them all
            if t is not None and hmac.compare_digest(t.encode(), token.encode()):
                found = p
        return found

    # -- decisions ------------------------------------------------------------------------------
    def act(self, seat: int, data) -> None:
        """Play seat's decision from a request {"at": N, "index": I} or {"at": N, "action": {...}};
        WebError (the state untouched) if it is not legal now."""
        if not isinstance(data, dict):
            raise WebError("a move is a JSON object {\"at\": N, \"index\": I}", kind="bad-json")
        at = data.get("at")
        if type(at) is not int:
            raise WebError("a move names the decision it answers: \"at\" (a whole number)", kind="bad-json")
        if seat is None:
            raise WebError("a spectator watches: it has no seat to play", status=403, kind="spectator")
        with self.lock:
            s = self.state
            if s.is_terminal:
                raise WebError("the game is over", status=409, kind="game-over")
            if s.current_player != seat:
                raise WebError(f"it is not your move (player {s.current_player} is to move)", status=409,
                               kind="not-your-turn")
            if at != s.decisions:
                raise WebError(f"stale move: it answers decision {at}, the game is at decision "
                               f"{s.decisions}", status=409, kind="stale")
            view = s.view(seat)
            legal = view.legal_actions
            if "index" in data:
                i = data["index"]
                if type(i) is not int or not 0 <= i < len(legal):
                    raise WebError(f"no legal action {i!r} (there are {len(legal)}: 0 to {len(legal) - 1})",
                                   status=409, kind="illegal")
                pos = legal[i].index
            elif isinstance(data.get("action"), dict):
                try:
                    pos = _find(s, seat, data["action"])
                except IllegalAction as e:
                    raise WebError(str(e), status=409, kind="illegal") from None
            else:
                raise WebError("a move gives \"index\" (a whole number) or \"action\" (an object)",
                               kind="bad-json")
            self._play(pos)

    # -- undo -----------------------------------------------------------------------------------
    def undo(self, seat: int, data=None) -> None:
        """Take back seat's own last decision (docs/web.md, Undo): only if the table allows it, the
        last decision of the game is theirs and it made nothing new known to anyone. The state is
        re-played from the seed without it (exactly the state before it). WebError otherwise."""
        at = data.get("at") if isinstance(data, dict) else None
        if data is not None and type(at) is not int:
            raise WebError("an undo names the decision count it saw: \"at\" (a whole number)", kind="bad-json")
        if seat is None:
            raise WebError("a spectator watches: it has no seat to play", status=403, kind="spectator")
        with self.lock:
            if not self.allow_undo:
                raise WebError("this table does not allow undo", status=409, kind="undo-off")
            try:
                check_public(self, seat)
                if at is not None and at != self.state.decisions:
                    raise WebError(f"stale undo: it answers decision {at}, the game is at decision "
                                   f"{self.state.decisions}", status=409, kind="stale")
                take_back(self, seat)
                self.round_ends = {p: x for p, x in self.round_ends.items() if x["at"] <= self.state.decisions}
            except UndoRefused as e:
                raise WebError(str(e), status=409, kind=e.kind) from None
            self.generation += 1
            self.touched = time.monotonic()
            self._ended()

    def bot_to_move(self):
        """(seat, bot, view, generation) if a bot is to move, else None."""
        with self.lock:
            s = self.state
            if s.is_terminal:
                return None
            bot = self.bots[s.current_player]
            if bot is None:
                return None
            return s.current_player, bot, s.view(s.current_player), self.generation

    def bot_move(self):
        """Let the bot to move decide and play; False if no bot is to move. The bot thinks without
        the lock (nobody else may move meanwhile; a restart makes a new state, and its answer for
        the old one is dropped), so pages are served while it searches."""
        from gamespec.bots import resolve
        got = self.bot_to_move()
        if got is None:
            return False
        seat, bot, view, gen = got
        pos = resolve(view, bot.choose(view))
        with self.lock:
            if gen == self.generation and self.state.decisions == view._at:
                self._play(pos)
        return True


def _look(state, seat) -> dict:
    """What a round end's block is made from: the seat's view, or the public one (a spectator)."""
    if seat is None:
        from .spectator import public_observation
        return public_observation(state)
    return state.view(seat).observation


def presentation_of(game) -> dict:
    from gamespec.spec.presentation import of_game
    return of_game(game)


def _find(s, seat, action):
    from gamespec.interpreter.views import find_view_action
    return find_view_action(s, seat, action)


class Registry:
    """The specs served and the tables made from them; frees finished and idle tables, caps the
    live tables per client, saves every table to the state directory when there is one."""

    def __init__(self, paths, backend=None, max_tables=100, bot_factory=None, page_kinds=PAGE_KINDS,
                 max_per_client=MAX_PER_CLIENT, finished_ttl=FINISHED_TTL, idle_ttl=IDLE_TTL,
                 state_dir=None, log=print):
        if not paths:
            raise WebError("serve needs at least one spec file")
        self.specs = {}
        for i, path in enumerate(paths):
            self.specs[str(i)] = SpecFile(path, backend)
        self.tables = {}
        self.max_tables = max_tables
        self.max_per_client = max_per_client
        self.finished_ttl = finished_ttl
        self.idle_ttl = idle_ttl
        self.page_kinds = tuple(n for n in page_kinds if n in PAGE_KINDS)     # fewer, never more
        if bot_factory is None:
            from gamespec.bots import make_bot
            bot_factory = make_bot
        self.bot_factory = bot_factory
        self._next = 0
        self.lock = threading.Lock()
        self.store = None
        if state_dir:
            from .store import Store
            self.store = Store(state_dir)
            for tb in self.store.load(self, Table, PERSON, log=log):
                self.tables[tb.id] = tb
                self._next = max(self._next, int(tb.id))

    def persist(self, t) -> None:
        """Write the table to the state directory (if any), as it is now."""
        if self.store is not None and self.tables.get(t.id) is t:
            with t.lock:
                self.store.save(t)

    def free(self, t) -> None:
        with self.lock:
            if self.tables.get(t.id) is t:
                del self.tables[t.id]
                if self.store is not None:
                    self.store.forget(t.id)

    def sweep(self, busy=(), now=None) -> list:
        """Free the tables finished longer than finished_ttl ago and those without a decision or a
        connection for idle_ttl (`busy`: ids of tables with an open socket). The tables freed."""
        now = time.monotonic() if now is None else now
        gone = []
        for t in list(self.tables.values()):
            if t.finished_at is not None:
                old = now - t.finished_at > self.finished_ttl
            else:
                old = t.id not in busy and now - t.touched > self.idle_ttl
            if old:
                self.free(t)
                gone.append(t)
        return gone

    def describe(self) -> dict:
        return {"specs": [f.describe(k) for k, f in self.specs.items()],
                "bots": ["person", *self.page_kinds]}

    def check_seats(self, seats) -> None:
        """WebError unless every seat is a person or a bot kind a page may choose (registry.page_kind,
        among page_kinds): asked of a lobby's request and of a saved record alike."""
        for k in seats:
            if k == PERSON:
                continue
            try:
                page_kind(k, self.page_kinds)
            except BotError as e:
                raise WebError(f"{e} (or person)") from None

    def create(self, data, client=None) -> Table:
        """A new table from a lobby request; `client` (the requester's address) is capped at
        max_per_client live tables. When the server is full, finished tables make room first."""
        if not isinstance(data, dict):
            raise WebError("a table is a JSON object {spec, players, options, seed, seats}", kind="bad-json")
        spec = self.specs.get(str(data.get("spec")))
        if spec is None:
            raise WebError(f"no spec {data.get('spec')!r} (see /api/specs)", status=404, kind="no-spec")
        if spec.game is None:
            raise WebError("the spec has errors: " + "; ".join(spec.errors), status=409, kind="spec-errors")
        g = spec.game
        players = data.get("players", g.min_players)
        if type(players) is not int or not g.min_players <= players <= g.max_players:
            raise WebError(f"{g.name} is for {g.min_players} to {g.max_players} players, not {players!r}")
        seed = data.get("seed")
        chosen = not (seed is None or seed == "")
        if not chosen:                  # drawn here and never sent: a seat who knew it would know every card
            seed = secrets.randbits(64)
        if type(seed) is not int or not 0 <= seed < 2 ** 64:
            raise WebError(f"the seed is a whole number from 0 to 2**64-1, not {seed!r}")
        opts = data.get("options") or {}
        if not isinstance(opts, dict):
            raise WebError("options is an object {name: value}")
        try:
            opts = g.check_options(opts)
        except GamespecError as e:
            raise WebError(str(e)) from None
        seats = data.get("seats") or [PERSON] + ["random"] * (players - 1)
        if not isinstance(seats, list) or len(seats) != players:
            raise WebError(f"seats lists {players} entries: \"person\" or a bot kind per seat")
        self.check_seats(seats)
        undo = data.get("undo", False)
        if type(undo) is not bool:
            raise WebError("undo is true or false")
        with self.lock:
            live = [t for t in self.tables.values() if t.finished_at is None]
            if client is not None and sum(t.client == client for t in live) >= self.max_per_client:
                raise WebError(f"you have {self.max_per_client} games going here already: finish one first",
                               status=429, kind="too-many")
            if len(self.tables) >= self.max_tables:
                done = sorted((t for t in self.tables.values() if t.finished_at is not None),
                              key=lambda t: t.finished_at)
                for t in done[:len(self.tables) - self.max_tables + 1]:
                    del self.tables[t.id]
                    if self.store is not None:
                        self.store.forget(t.id)
            if len(self.tables) >= self.max_tables:
                raise WebError(f"this server holds {self.max_tables} games at most and they are all "
                               f"going on", status=503, kind="full")
            self._next += 1
            tid = str(self._next)
            try:
                t = Table(tid, spec, players, opts, seed, seats, self.bot_factory, undo=undo, client=client)
            except GamespecError as e:
                raise WebError(str(e)) from None
            t.seed_chosen = chosen
            self.tables[tid] = t
        self.persist(t)
        return t

    def find(self, token):
        """(table, seat) for a seat token, (table, None) for a spectator's; WebError 404 if none."""
        for t in list(self.tables.values()):
            p = t.seat_of(token)
            if p is not None:
                return t, p
            if isinstance(token, str) and hmac.compare_digest(t.watch_token.encode(), token.encode()):
                return t, None
        raise WebError("no seat has this link (check the address; a game is freed some time after it ends)",
                       status=404, kind="bad-token")

    def check_specs(self) -> list:
        """Reload the specs whose files changed; restart or flag their tables. The tables touched."""
        touched = []
        for spec in self.specs.values():
            if not spec.changed():
                continue
            spec.reload()
            for t in list(self.tables.values()):
                if t.spec is not spec:
                    continue
                with t.lock:
                    if spec.game is None:
                        t.errors = list(spec.errors)
                    else:
                        try:
                            t.start(spec.game)
                            t.notes = []
                        except GamespecError as e:
                            t.errors = [f"{spec.path}: error: cannot restart this table: {e}"]
                touched.append(t)
        return touched


def _option_doc(game, name) -> str:
    """An option's `doc` in the spec (what the lobby says it does), or ''."""
    ck = getattr(game.spec, "checker", None)
    raw = (getattr(ck, "data", None) or {}).get("options") or {}
    o = raw.get(name)
    doc = o.get("doc") if isinstance(o, dict) else None
    return str(doc).strip()[:300] if doc else ""
