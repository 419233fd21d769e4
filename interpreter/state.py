"""A game in progress: the OpenSpiel-like state API over a Ruleset (flat zones, ints, one RNG)."""
from __future__ import annotations

from gamespec.errors import IllegalAction, SpecRuntimeError

from itertools import count as _count
from _thread import RLock as _lock   # re-entrant: apply() may list actions; another thread may not

from . import rng as _rng
from .runtime import secret_choice
from .blind import blind_pick, stored_values
from .actions import Action
from operator import itemgetter as _item

FORMAT = "gamespec-state/1"


class State:
    """current_player, legal_actions(), apply(), is_terminal, scores, winners, observation(p).

    Zones are lists of card ids (ints), variables a flat list; `kn[c]` is the bit mask of players
    who know card c while it is hidden from them; `mk[m][c]` is mark m on card c (per-card marks). Nothing here is deep-copied: clone() copies lists.
    """
    __slots__ = ("rs", "game", "z", "v", "loc", "kn", "face", "rng", "pc", "pending", "actor", "cur",
                 "phase", "fenv", "turns", "decisions", "terminal", "_scores", "_winners", "hist", "log",
                 "script", "budget", "seed", "_legal", "_index", "shuffles", "poss", "spent", "_busy", "mk",
                 "_wants_actions", "gen", "watch")

    # -- creation -------------------------------------------------------------------------
    @classmethod
    def new(cls, game, rs, seed, log=False, script=None, generator=_rng.ALGORITHM):
        s = cls.__new__(cls)
        s.rs = rs
        s.game = game
        s.z = [x[:] for x in rs.init_z]
        s.loc = list(rs.init_zone)
        s.poss = rs.init_poss
        s.shuffles = 0
        s.v = [list(x) if isinstance(x, list) else x for x in rs.var_init]
        s.kn = [0] * rs.ncards
        s.mk = [[init] * rs.ncards for init in rs.mark_init]     # per-card marks, one column per mark
        s.face = {}
        s.seed = seed
        s.rng = _rng.seed_state(seed if seed is not None else 0)
        s.gen = generator       # the shuffle's generator, by name (interpreter/rng.py)
        s.pc = 0
        s.pending = -1
        s.actor = 0
        s.cur = 0
        s.phase = -1
        s.fenv = {}
        s.turns = 0
        s.decisions = 0
        s.terminal = False
        s.scores = None
        s.winners = None
        s.hist = None
        s.log = [] if log else None
        s.script = script
        s._legal = None
        s._index = None
        s._wants_actions = False
        if s.log is not None:
            from .gamelog import header
            s.log.append(header(s))
        s.budget = rs.max_steps
        s.spent = 0
        s.watch = None
        s._busy = _lock()
        s._run(s.pc)
        return s

    # -- the API --------------------------------------------------------------------------
    @property
    def current_player(self):
        """The player who decides now (None at the end)."""
        return None if self.terminal else self.actor

    @property
    def is_terminal(self) -> bool:
        return self.terminal

    @property
    def num_players(self) -> int:
        return self.rs.P

    @property
    def phase_name(self):
        return self.rs.phases[self.phase].name if self.phase >= 0 else None

    @property
    def scores(self):
        """Final scores per seat (None before the end); a fresh list: changing it changes nothing."""
        return None if self._scores is None else list(self._scores)

    @scores.setter
    def scores(self, value):
        self._scores = None if value is None else list(value)

    @property
    def winners(self):
        """The winning seats (None before the end); a fresh list."""
        return None if self._winners is None else list(self._winners)

    @winners.setter
    def winners(self, value):
        self._winners = None if value is None else list(value)

    def legal_actions(self) -> list:
        """The legal actions of the deciding player (a fresh list; empty only at the end)."""
        if self._legal is not None and self._wants_actions:   # nothing to compute: only a torn read to guard
            if not self._busy.acquire(False):
                _in_use()
            self._busy.release()
            return list(self._legal)
        if self._legal is None and self.terminal:
            return []
        if not self._busy.acquire(False):
            _in_use()
        try:
            legal = self._legal
            if legal is None:
                legal = self._legal = self._enumerate(self.rs.chooses[self.pending])
            if not self._wants_actions:
                # a generated listing holds plain tuples (cheap for the index API and playouts)
                # until the state's legal_actions() are asked for: this one is converted (in C) and
                # replaces it, and the listings read _wants_actions and make Actions from now on
                legal = self._legal = list(map(_to_action, legal, _count()))
                self._index = None
                self._wants_actions = True
            return list(legal)
        finally:
            self._busy.release()

    def apply(self, action) -> None:
        """Play one legal action: an Action, its JSON dict, a PlayerAction of the deciding player's
        view, or an index into legal_actions(). Illegal: IllegalAction, state unchanged.

        A State is not shared between threads (docs/api.md): a second thread calling apply() while
        one runs gets a UsageError instead of corrupting the game."""
        if not self._busy.acquire(False):
            _in_use()
        try:
            legal = self._legal
            mine = False
            if legal is not None and action.__class__ is Action:
                try:    # one of legal_actions(): found by its position (no len() per decision)
                    mine = legal[action[6]] is action
                except (IndexError, TypeError):
                    pass
            if mine:
                ch = self.rs.chooses[self.pending]      # as _play, inline
                fused = ch.fused
                if fused is not None:
                    f = fused.get(action[0])
                    if f is not None:
                        pc = f(self, action)
                        if pc is not None:
                            if pc >= 0:
                                self._run(pc)
                            return
                self._play_standard(action, ch)
            else:
                self._apply(action)
        finally:
            self._busy.release()

    def _apply(self, action):
        """apply() of anything but one of legal_actions() itself: find the legal action it means."""
        if self._legal is None:
            if self.terminal:
                raise IllegalAction("the game is over; no action is legal")
            self._legal = self._enumerate(self.rs.chooses[self.pending])
        self._play(self._find(action))

    def _play(self, a):
        """Play a, one of self._legal (the caller holds the lock). apply(), apply_index() and
        playout() make the same dispatch inline (one call less per decision)."""
        ch = self.rs.chooses[self.pending]
        fused = ch.fused
        if fused is not None:
            f = fused.get(a[0])
            if f is not None:   # counting, bookkeeping, effect, checks and flow to the next decision
                pc = f(self, a)
                if pc is not None:      # None: it could not be fused (nothing ran), the standard path
                    if pc >= 0:
                        self._run(pc)
                    return
        self._play_standard(a, ch)

    def _count_decision(self):
        """Count a decision about to be played, the game's budgets checked first (a state that
        fails here stays loadable). Fused functions do the same inline, with the limits as constants."""
        rs = self.rs
        if self.decisions >= rs.max_decisions:
            self._too_long("decisions")
        spent = self.spent + rs.max_steps - self.budget     # what the game's runs so far used
        if spent > rs.max_game_steps:
            self._too_long("steps")
        self.spent = spent
        self.decisions += 1

    def _too_long(self, what):
        rs = self.rs
        if what == "decisions":
            raise SpecRuntimeError(f"the game did not end after {rs.max_decisions} decisions",
                                   rs.pc_names[self.pc], check="game-budget")
        raise SpecRuntimeError(f"the game did not end within {rs.max_game_steps} steps "
                               "(limits.steps_per_game)", rs.pc_names[self.pc], check="game-steps")

    def _play_standard(self, a, ch):
        """Play a at decision point ch without a fused function."""
        self._count_decision()
        rs = self.rs
        rt = a[4]           # None only for an optional step's skip
        pick_line = None
        if rt is not None and rt.blind_sets:
            # a card picked blind from a set is drawn (interpreter/blind.py): the decision keeps the
            # chosen name and values (what its line and history record), the drawn cards
            n_pre = len(self.log) if self.log is not None else 0
            b = blind_pick(self, a, rt)
            if b is not None:
                if ch.secret:   # stored by the values that find b again in the reordered sets
                    b = (b[0], stored_values(self, ch, b, rt), b[2], b[3], rt, None, -1)
                else:
                    b = (a[0], a[1], b[2], b[3], rt, None, -1)
                a_line = a
                a = b
                pick_line = n_pre    # the decision's line goes above the draw's chance lines
        took = ch.window if rt is not None and not ch.secret else None
        if took is not None:    # a response in a reaction window: the window notes who responded
            self.fenv = dict(self.fenv)
            self.fenv[took] = self.fenv[took] + [self.actor]
        if ch.secret:       # a simultaneous step: stored, applied at the reveal (docs/language.md)
            self._store(a, rt, pick_line, a_line if pick_line is not None else None)
            self.pending = -1
            self._legal = None
            self._index = None
            self.budget = rs.max_steps
            self._run(ch.next)
            return
        if rt is not None and rt.card_params:
            # who sees which card was chosen is known once the effect has run: the event is
            # recorded then, before the events the effect recorded
            cards = self._cards_seen(a, rt)
            shuffles = self.shuffles
            h0 = self.hist
            n0 = pick_line if pick_line is not None else len(self.log) if self.log is not None else 0
            actor = self.actor
            self._watch(cards)
        else:
            cards = None
            self.hist = (("d", self.actor, a[0], a[1], ()), self.hist)
            if self.log is not None:
                self._log_plain(a)
        self.pending = -1
        self._legal = None
        self._index = None
        self.budget = rs.max_steps
        if rt is None:
            pc = ch.next
        else:
            if cards is None:
                pc = ch.blocks[a[0]](self, rt.run, a[2] if rt.tuple_env else rt.env(a[2]), ch.resume)
            else:
                try:
                    pc = ch.blocks[a[0]](self, rt.run, a[2] if rt.tuple_env else rt.env(a[2]), ch.resume)
                finally:    # also when a rule fails: the partial log shows the decision
                    self._record(a, actor, cards, self.shuffles != shuffles, h0, n0)
        self._run(pc)

    # -- the index API: play by position, no Action list handed out (docs/api.md) ----------
    def legal_action_count(self) -> int:
        """How many legal actions there are now (0 only at the end): `apply_index(i)` takes 0..n-1."""
        legal = self._legal
        if legal is None:
            if self.terminal:
                return 0
            legal = self._legal = self._enumerate(self.rs.chooses[self.pending])
        return len(legal)

    def apply_index(self, i: int) -> None:
        """Play the i-th legal action: the same game as `apply(legal_actions()[i])`, without copying
        the list. A bad index: IllegalAction, state unchanged."""
        legal = self._legal
        if legal is None:
            if self.terminal:
                raise IllegalAction("the game is over; no action is legal")
            legal = self._legal = self._enumerate(self.rs.chooses[self.pending])
        if i.__class__ is not int or i < 0:
            raise IllegalAction(f"no legal action {i!r} ({len(legal)} legal actions)")
        if not self._busy.acquire(False):      # as apply(legal[i]), three calls less
            _in_use()
        try:
            try:
                a = legal[i]
            except IndexError:      # (beyond the list: found by indexing, no len() per decision)
                raise IllegalAction(f"no legal action {i} ({len(legal)} legal actions)") from None
            ch = self.rs.chooses[self.pending]      # as _play, inline
            fused = ch.fused
            if fused is not None:
                f = fused.get(a[0])
                if f is not None:
                    pc = f(self, a)
                    if pc is not None:
                        if pc >= 0:
                            self._run(pc)
                        return
            self._play_standard(a, ch)
        finally:
            self._busy.release()

    def playout(self, rng, in_place: bool = False) -> list:
        """Play uniformly random legal actions to the end (`rng.randrange(n)` picks each, as
        `apply(legal_actions()[rng.randrange(n)])` would) and return the scores.

        Plays a clone (without the log) unless `in_place`: the state itself is left as it was."""
        s = self
        if not in_place:
            if self.rs.backend == "native" and not self.terminal:     # in C (docs/native.md)
                lib = self.game.native_library(self.rs)
                if lib is not None:
                    from .native_engine import rollout
                    scores = rollout(lib, self, rng)
                    if scores is not None:
                        return scores
            s = self.clone()
            s.log = None        # nobody reads the playout's log
        rr = rng.randrange
        chooses = s.rs.chooses
        run = s._run
        if not s._busy.acquire(False):     # held for the whole playout: as apply() each time
            _in_use()
        try:
            while not s.terminal:
                ch = chooses[s.pending]
                legal = s._legal
                if legal is None:
                    legal = s._legal = s._enumerate(ch)
                a = legal[rr(len(legal))]
                fused = ch.fused            # as _play, inline
                if fused is not None:
                    f = fused.get(a[0])
                    if f is not None:
                        pc = f(s, a)
                        if pc is not None:
                            if pc >= 0:
                                run(pc)
                            continue
                s._play_standard(a, ch)
        finally:
            s._busy.release()
        return list(s.scores)

    def clone(self) -> "State":
        s = State.__new__(State)
        s.rs = self.rs
        s.game = self.game
        s.z = [list(x) for x in self.z]
        s.v = list(self.v)              # list values are never mutated in place
        s.loc = list(self.loc)
        s.poss = self.poss              # a tuple: replaced, never changed in place
        s.shuffles = self.shuffles
        s.kn = list(self.kn)
        s.mk = [list(x) for x in self.mk] if self.mk else self.mk    # [] (shared) without marks
        s.face = dict(self.face) if self.face else {}
        s.rng = self.rng
        s.gen = self.gen
        s.pc = self.pc
        s.pending = self.pending
        s.actor = self.actor
        s.cur = self.cur
        s.phase = self.phase
        s.fenv = self.fenv              # copy-on-write in the flow instructions
        s.turns = self.turns
        s.decisions = self.decisions
        s.terminal = self.terminal
        s._scores = self._scores        # never changed in place (the properties return copies)
        s._winners = self._winners
        s.hist = self.hist              # an immutable linked list
        s.log = list(self.log) if self.log is not None else None
        s.script = self.script
        s.seed = self.seed
        s.budget = self.budget
        s.spent = self.spent
        s.watch = None
        s._busy = _lock()
        s._legal = self._legal
        s._index = None
        s._wants_actions = self._wants_actions       # the listing is shared: made of Actions or not
        return s

    def observation(self, player: int) -> dict:
        """What `player` may know now (a fresh dict: changing it changes nothing)."""
        from .observe import observation
        self._seat(player)
        return observation(self, player)

    def view(self, player: int):
        """A PlayerView: what `player` may know now, legal actions as they see them (docs/bots.md)."""
        from .views import PlayerView
        return PlayerView(self, player)

    def determinize(self, player: int, rng) -> "State":
        """A complete State `player` cannot tell from this one, hidden cards drawn uniformly among the
        placements consistent with what they know; a fresh RNG state drawn from `rng` (a
        random.Random). See interpreter/determinize.py for what it does not infer."""
        from .determinize import determinize
        return determinize(self, player, rng)

    def apply_view_json(self, player: int, action) -> None:
        """Play the action whose view JSON (`PlayerAction.to_json()`, label optional) is `action`,
        for `player`, who must be to move. Illegal: IllegalAction, state unchanged."""
        from .views import find_view_action
        i = find_view_action(self, player, action)
        self.apply(self.legal_actions()[i])

    # -- agents: fixed action ids and tensors (the rule set's ActionSpace, docs/agents.md) --
    def legal_action_ids(self) -> list:
        return sorted(self.rs.action_space().legal_ids(self))

    def legal_action_mask(self) -> list:
        m = [False] * self.rs.action_space().size
        for i in self.legal_action_ids():
            m[i] = True
        return m

    def action_id(self, action) -> int:
        return self.rs.action_space().action_id(self, action)

    def action_from_id(self, i: int):
        return self.rs.action_space().action_from_id(self, i)

    def apply_id(self, i: int) -> None:
        self.apply(self.rs.action_space().index_of_id(self, i))

    def observation_tensor(self, player: int):
        from .obs_tensor import encoder
        return encoder(self.rs).encode(self, player)

    def to_json(self) -> dict:
        from .snapshot import to_json
        return to_json(self)

    def __eq__(self, other):
        return isinstance(other, State) and self.to_json() == other.to_json()

    __hash__ = None

    def log_lines(self) -> list:
        """The full log (needs new_game(..., log=True))."""
        from .gamelog import full_log
        from .snapshot import plain
        self._need_log()
        return plain(full_log(self))

    def log_for(self, player: int) -> list:
        """The log as `player` saw it: nothing hidden from them appears (needs log=True)."""
        from .gamelog import log_for
        from .snapshot import plain
        self._seat(player)
        self._need_log()
        return plain(log_for(self, player))

    def __repr__(self):
        st = "terminal" if self.terminal else f"player {self.actor} to move"
        return f"<State {self.rs.spec.name} P={self.rs.P} {st} after {self.decisions} decisions>"

    def _need_log(self):
        if self.log is None:
            from gamespec.errors import UsageError
            raise UsageError("this game was started without a log; use new_game(..., log=True)")

    def _seat(self, player):
        if type(player) is not int or not 0 <= player < self.rs.P:
            from gamespec.errors import UsageError
            raise UsageError(f"a player is a seat number from 0 to {self.rs.P - 1}, not {str(player)[:40]}")

    # -- machinery ------------------------------------------------------------------------
    def _run(self, pc):
        """Run the flow from instruction pc until a decision or the end."""
        prog = self.rs.prog
        while True:
            nxt = prog[pc](self)
            if nxt < 0:
                self.pc = pc     # a decision's own pc (SUSPEND), or the game's end
                return
            pc = nxt
            self.budget -= 1
            if self.budget < 0:
                raise SpecRuntimeError(
                    "step budget exhausted: the flow loops without asking anyone to decide",
                    self.rs.pc_names[pc], check="budget")

    def _enumerate(self, ch):
        """The legal actions at decision point ch. A generated listing leaves a lone skip out (the
        flow skips such a step); a state stopped there anyway (determinized, loaded) lists it."""
        legal = ch.enumerate(self)
        if not legal and ch.step.optional is not None:
            legal = [lone_skip(ch, self._wants_actions)]
        return legal

    def _find(self, action):
        if isinstance(action, Action):
            key = action.key()
        elif isinstance(action, dict):
            name = action.get("action")
            rt = self.rs.actions.get(name) if isinstance(name, str) else None
            if name == "skip":
                key = ("skip", ())
            elif rt is None:
                raise IllegalAction(f"no action named {name!r} in this game")
            else:
                allowed = {p.name for p in rt.params} | {"action", "label"}
                extra = [k for k in action if k not in allowed]
                if extra:
                    raise IllegalAction(f"action '{name}' has no parameter {extra[0]!r}")
                try:
                    key = (name, tuple(_freeze(action[p.name]) for p in rt.params))
                except KeyError as e:
                    raise IllegalAction(f"action '{name}' needs parameter {e.args[0]!r}") from None
                except (TypeError, ValueError):
                    raise IllegalAction(f"action '{name}' has a malformed parameter") from None
        elif type(action).__name__ == "PlayerAction":     # from the deciding player's view
            from .views import find_view_action
            return self._legal[find_view_action(self, self.actor, action)]
        elif type(action) is int and not isinstance(action, bool):
            if 0 <= action < len(self._legal):
                return self._legal[action]
            raise IllegalAction(f"no legal action {action} ({len(self._legal)} legal actions)")
        else:
            raise IllegalAction(f"an action is an Action, a PlayerAction, an index or a dict, "
                                f"not {type(action).__name__}")
        a = self._lookup(key)
        if a is None:
            shown = action.to_json(label=False) if isinstance(action, Action) else action
            raise IllegalAction(f"not legal now for player {self.actor}: {shown!r} "
                                f"({len(self._legal)} legal actions; see legal_actions())")
        return a

    def _lookup(self, key):
        """The legal action whose (name, parameters) is `key`, or None. A scan of the parameter
        column at C speed: a dict of every legal action cost more than listing them, for the one
        look-up a replayed decision makes (issue 36). Stored in _index for a second look-up."""
        if self._index is None:
            self._index = list(map(_params_of, self._legal))
        legal, column, want = self._legal, self._index, None
        i = 0
        while True:
            try:
                i = column.index(key[1], i)
            except ValueError:
                return None
            a = legal[i]
            if a[0] == key[0]:      # 1 == True == 1.0 in Python: be strict
                if want is None:
                    want = _typed(key[1])
                if _typed(a[1]) == want:
                    return a
            i += 1

    def _log_plain(self, a):
        """The log line of decision a, one with no card parameter (the standard path and the fused
        functions write it alike)."""
        self.log.append({"type": "decision", "n": self.decisions, "player": self.actor,
                         "action": _ajson(a), "_cards": ()})

    def _cards_seen(self, a, rt):
        """For the history: each card parameter's cards and who sees which card was chosen.

        A player sees a choice if they see the card where it lies (its zone or face, not a memory of
        it: a choice in a hand you cannot see is not shown, whatever you know of the hand), or where
        it lands (`_record`); the chooser also sees the cards they could tell apart when choosing.
        The masks are lists, completed once the effect has run."""
        i = rt.one_card
        if i is not None and not self.face:     # one card parameter, no card turned: the short way
            c = a[2][i]
            return [(i, (c,), [self.rs.zvis[self.loc[c]] | (1 << self.actor if a[3][i] is not None else 0)])]
        info = []
        bind = a[2]
        seen = a[3]
        me = 1 << self.actor
        face, zvis, loc, ALL = self.face, self.rs.zvis, self.loc, self.rs.ALL
        for i, single in rt.card_params:
            if single:
                c = bind[i]
                m = zvis[loc[c]] if not (face and c in face) else (ALL if face[c] == 1 else 0)
                info.append((i, (c,), [m | me if seen[i] is not None else m]))
            else:
                cs = tuple(bind[i])
                info.append((i, cs, [self._sight(c) | (me if f is not None else 0)
                                     for c, f in zip(cs, seen[i] or (None,) * len(cs))]))
        return info

    def _store(self, a, rt, at=None, chosen=None):
        """A simultaneous step's choice: recorded (history, log at line `at`, else last) but not applied.
        A drawn choice (interpreter/blind.py): the log line names the `chosen` values (a replay
        chooses them again), the history the drawn ones (the reveal finds them again)."""
        ev, line = secret_choice(self.actor, a, self.decisions)
        if chosen is not None:
            line["action"] = _ajson((chosen[0], chosen[1], None, None, rt))
        self.hist = (ev, self.hist)
        if self.log is not None:
            self.log.insert(len(self.log) if at is None else at, line)

    def _resolve(self, ch, p, a, nxt):
        """Reveal and apply one stored choice of a simultaneous step (a None: a pass), as a
        decision would be applied: the next pc, or where an end (game, phase, turn) leads."""
        self.actor = p
        rt = a[4] if a is not None else None
        if rt is None or not rt.card_params:
            self._reveal_plain(p, a)
            if rt is None:
                return nxt
            return ch.blocks[a[0]](self, rt.run, a[2] if rt.tuple_env else rt.env(a[2]), nxt)
        cards = self._cards_seen(a, rt)
        shuffles = self.shuffles
        h0 = self.hist
        n0 = len(self.log) if self.log is not None else 0
        self._watch(cards)
        try:
            return ch.blocks[a[0]](self, rt.run, a[2] if rt.tuple_env else rt.env(a[2]), nxt)
        finally:
            self._record(a, p, cards, self.shuffles != shuffles, h0, n0, reveal=True)

    def _reveal_plain(self, p, a):
        """The reveal of a stored choice without card parameters (a None: a pass): history and log."""
        self.hist = (("v", p, a[0] if a is not None else "skip", a[1] if a is not None else (), ()), self.hist)
        if self.log is not None:
            self.log.append({"type": "reveal", "player": p,
                             "action": _ajson(a) if a is not None else {"action": "skip"}, "_cards": ()})

    def _watch(self, cards):
        """Watch a decision's chosen cards while its effect runs (see _watching)."""
        self.watch = _watching(self, cards)

    def _reveal_only(self, p, a):
        """Reveal a stored choice of player p (a None: a pass) without carrying it out (a reaction
        window asked at once, until the first response: the choices that do not take it)."""
        self.actor = p
        rt = a[4] if a is not None else None
        if rt is None or not rt.card_params:
            self._reveal_plain(p, a)
            return
        self._record(a, p, self._cards_seen(a, rt), False, self.hist,
                     len(self.log) if self.log is not None else 0, reveal=True)

    def _record(self, a, actor, cards, shuffled, h0, n0, reveal=False):
        """After the effect: who sees each chosen card where it now lies saw where it went (unless
        the effect shuffled: then a card seen now need not be the one chosen). Records the decision
        in the history (under the events its effect recorded) and in the log (at line n0)."""
        watch, self.watch = self.watch, None
        if shuffled:    # what the effect showed of a chosen card before a shuffle of its zone still counts
            gained = dict(zip(watch[0], watch[2])) if watch is not None else {}
            info = tuple([(i, cs, tuple(m | gained.get(c, 0) for c, m in zip(cs, masks))) for i, cs, masks in cards])
        elif len(cards) == 1 and len(cards[0][1]) == 1 and not self.face:    # the usual case, short
            i, cs, masks = cards[0]
            info = ((i, cs, (masks[0] | self.rs.zvis[self.loc[cs[0]]],)),)
        else:
            face, zvis, loc, ALL = self.face, self.rs.zvis, self.loc, self.rs.ALL
            out = []
            for i, cs, masks in cards:
                if len(cs) == 1:
                    c = cs[0]
                    out.append((i, cs, (masks[0] | (zvis[loc[c]] if not (face and c in face) else
                                                    (ALL if face[c] == 1 else 0)),)))
                else:
                    out.append((i, cs, tuple([m | self._sight(c) for c, m in zip(cs, masks)])))
            info = tuple(out)
        if watch is not None and len(watch) > 3 and watch[3] and a[4].hides_place:
            forget_places(self, watch[3], actor)
        ev = ("v" if reveal else "d", actor, a[0], a[1], info)
        if self.hist is h0:
            self.hist = (ev, h0)
        else:                           # under the events the effect recorded (reveals)
            later = []
            h = self.hist
            while h is not h0:
                later.append(h[0])
                h = h[1]
            h = (ev, h0)
            for e in reversed(later):
                h = (e, h)
            self.hist = h
        if self.log is not None:
            self.log.insert(n0, {"type": "reveal", "player": actor, "action": _ajson(a),
                                 "_cards": info} if reveal else
                            {"type": "decision", "n": self.decisions, "player": actor,
                             "action": _ajson(a), "_cards": info})

    def _sight(self, c):
        """Bit mask of the players who see card c where it lies (its face or zone; no memory)."""
        f = self.face.get(c) if self.face else None
        return self.rs.zvis[self.loc[c]] if f is None else (self.rs.ALL if f == 1 else 0)

    def _vis(self, c):
        """Bit mask of the players who see card c now."""
        f = self.face.get(c) if self.face else None
        v = self.rs.zvis[self.loc[c]] if f is None else (self.rs.ALL if f == 1 else 0)
        return v | self.kn[c]

    def finish(self):
        rs = self.rs
        P = rs.P
        sign = 1 if rs.winner == "highest" else -1
        if rs.per_team:         # each team scored once (scoring.per_team); its members share it
            T, team = rs.T, rs.seat_team
            tscores = [rs.score(self, {"t": t}) for t in range(T)]
            tkeys = [(sign * tscores[t],) + tuple(b(self, {"t": t}) for b in rs.tie_breakers) for t in range(T)]
            scores = [tscores[team[p]] for p in range(P)]
            keys = [tkeys[team[p]] for p in range(P)]
        else:
            scores = [0] * P if rs.score is None else [rs.score(self, {"p": p}) for p in range(P)]
            keys = [(sign * scores[p],) + tuple(t(self, {"p": p}) for t in rs.tie_breakers) for p in range(P)]
        if rs.team_of is not None:   # partners share their team's total score (and tie breakers) and win
            from .teams import team_totals
            _, scores, keys = team_totals(self, rs.team_of, scores, keys, sign)
        best = max(keys)
        self.scores = scores
        self.winners = [p for p in range(P) if keys[p] == best]
        if rs.success is not None:      # cooperative: one team score (no p), every seat wins or none
            self.winners = list(range(P)) if rs.success(self, {}) else []
        elif rs.no_winner is not None and rs.no_winner(self, {}):    # a draw for all: nobody wins
            self.winners = []
        self.terminal = True
        self.pending = -1
        self._legal = None
        if self.log is not None:
            self.log.append({"type": "end", "scores": list(scores), "winners": list(self.winners)})


def _watching(s, cards):
    """The chosen cards of a decision, watched while its effect runs: [cards, what was known of each
    when chosen, who was shown each since, the places chosen in piles] (runtime.shuffle fills the
    third before it forgets; _record reads the last, see forget_places)."""
    cs = [c for _, xs, _ in cards for c in xs]
    return [cs, [s.kn[c] for c in cs], [0] * len(cs), _places(s, cs)]


def _places(s, cs):
    """(card, its pile, the pile's cards, who sees the card there) for each chosen card that lies in a
    pile where not everyone sees it (a place some player may not know)."""
    rs, loc, z = s.rs, s.loc, s.z
    out = []
    for c in cs:
        zi = loc[c]
        seen = s._sight(c)
        if rs.zone_decl[zi].kind == "pile" and seen != rs.ALL:
            out.append((c, zi, tuple(z[zi]), seen))
    return out


def forget_places(s, places, actor):
    """A decision chose a card in a pile at a place that a player did not see and its effect moved
    cards: where cards went in or came out of that pile could show them the place (a card put just
    above the chosen one, the chosen one taken out). Unless they see the card where it lies now,
    they forget every card that lay in that pile before the effect or lies there after it; the
    chooser knows the place and keeps what they knew (docs/hidden-information.md). The native
    engine does the same (rt_places_forget)."""
    kn, z, ALL = s.kn, s.z, s.rs.ALL
    for c, zi, before, seen in places:
        blind = ALL & ~seen & ~s._sight(c) & ~(1 << actor)
        if blind:
            keep = ~blind
            for x in before:
                kn[x] &= keep
            for x in z[zi]:
                kn[x] &= keep


def lone_skip(ch, as_action=True):
    """The skip of optional decision point ch as its only legal action (an Action or a tuple)."""
    t = ("skip", (), (), (), None, ch.step.optional)
    return Action(t + (0,)) if as_action else t


def _to_action(t, i):
    """A listing's entry (a plain tuple without its position, or an Action) -> the Action at i."""
    return Action((t[0], t[1], t[2], t[3], t[4], t[5], i))


def _ajson(a):
    """The JSON of a legal action, a plain tuple of a listing or an Action (the same layout)."""
    return Action.to_json(a, label=False)


def _in_use():
    from gamespec.errors import UsageError
    raise UsageError("this State is being changed by another thread: a State is not thread-safe; give each "
                     "thread its own (clone()) or serialise the calls (docs/api.md)")


def _freeze(v):
    """JSON parameter value -> hashable; a list holds plain values only (no deep nesting)."""
    if isinstance(v, list):
        if len(v) > 10_000 or any(isinstance(x, (list, dict)) for x in v):
            raise ValueError("malformed parameter")
        return tuple(v)
    if isinstance(v, dict):
        raise ValueError("malformed parameter")
    return v


_params_of = _item(1)     # an entry of a legal-action listing -> its parameter values


def _kind(x):
    """The JSON kind of a value (a spec's strings are a str subclass that carries its position)."""
    return "str" if isinstance(x, str) else type(x).__name__


def _typed(args):
    return tuple((_kind(x), x) if not isinstance(x, tuple) else tuple((_kind(y), y) for y in x)
                 for x in args)
