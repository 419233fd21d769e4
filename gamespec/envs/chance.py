"""Explicit chance for the OpenSpiel game (`openspiel.load(spec, chance="explicit")`, docs/agents.md
"Explicit chance"): every shuffle is a run of chance nodes, one per position from the top down
("which card goes there"), identical cards merged into one outcome weighted by their count, so that
OpenSpiel's exact algorithms (CFR, policy values, best responses, exploitability) walk the game.

How: the state keeps the last gamespec State reached (`s`) and, at a chance node, the operation that
is waiting for chance (the set-up, or the legal action being played) with the outcomes chosen so far.
The operation runs on a copy of `s` whose shuffles take their orders from those outcomes (the State's
`script`, the hook a log replay uses); a shuffle that needs one more outcome stops the run
(`_NeedChance`), the copy is dropped and the state is a chance node listing that outcome's choices.
Once the outcomes suffice, the operation's result is the new `s`. The Python engine plays it."""
from __future__ import annotations

import json
import math

from gamespec.errors import GameTooLong, IllegalAction, UsageError
from gamespec.interpreter.state import State

from .common import require, rewards

pyspiel = require("pyspiel")

MAX_ORDERS = 1_000_000  # a shuffle with more distinguishable orders than this is refused (UsageError)
MAX_NODES = 100_000     # nodes the game remembers (the State reached, per path from the start)


class _TooLarge(Exception):
    """Raised from inside a shuffle too large to enumerate (not a rule fault, as _NeedChance)."""


class _NeedChance(Exception):
    """Raised from inside a shuffle that needs its next outcome: not a rule fault (runtime.FAULTS),
    so it leaves the rules untouched and the run is abandoned."""

    def __init__(self, outcomes, zone):
        super().__init__(zone)
        self.outcomes = outcomes      # [(outcome id, probability)]
        self.zone = zone


def orders(counts) -> int:
    """How many distinguishable orders a pile with these numbers of identical cards has."""
    n = math.factorial(sum(counts))
    for k in counts:
        n //= math.factorial(k)
    return n


def groups(s, cards):
    """The cards of a shuffled zone grouped by what tells them apart (face, the marks a shuffle
    does not reset, face up or down),
    each group [outcome id, its card ids]; an outcome id is the face's index in the rule set, or,
    when marks split a face into several groups, the face count + the group's lowest card id."""
    rs = s.rs
    reset = {m for m, _ in rs.mark_reset} if rs.mark_reset else ()
    cols = [col for m, col in enumerate(s.mk) if m not in reset]      # marks a shuffle keeps
    by = {}
    for c in sorted(cards):
        key = (rs.face_of[c], tuple(col[c] for col in cols), s.face.get(c))
        by.setdefault(key, []).append(c)
    faces = {}
    for key in by:
        faces[key[0]] = faces.get(key[0], 0) + 1
    nf = len(rs.faces)
    return [[k[0] if faces[k[0]] == 1 else nf + cs[0], cs] for k, cs in sorted(by.items(), key=lambda kv: kv[1][0])]


class _Script:
    """The `script` of a State run under explicit chance: each shuffle's order from the outcomes
    chosen, the top card first; positions whose card is forced (one group left) take no outcome."""

    def __init__(self, outcomes, limit):
        self.outcomes = outcomes
        self.i = 0
        self.limit = limit

    def next_shuffle(self, s, zi):
        gs = groups(s, s.z[zi])
        label = s.rs.zone_label[zi]
        n = orders([len(cs) for _, cs in gs])
        if n > self.limit:
            raise _TooLarge(
                f"explicit chance: shuffling '{label}' ({len(s.z[zi])} cards, {len(gs)} different) has "
                f"{_big(n)} distinguishable orders, more than the limit of {self.limit:,}; explicit chance "
                "is for small decks (load(..., chance='sampled') plays any game by sampling)")
        top_down = []
        while gs:
            if len(gs) == 1:
                top_down.extend(gs[0][1])
                break
            if self.i == len(self.outcomes):
                left = sum(len(cs) for _, cs in gs)
                raise _NeedChance([(o, len(cs) / left) for o, cs in gs], label)
            o = self.outcomes[self.i]
            self.i += 1
            for g in gs:
                if g[0] == o:
                    top_down.append(g[1].pop(0))
                    if not g[1]:
                        gs.remove(g)
                    break
            else:
                raise IllegalAction(f"chance outcome {o} is not possible now")
        top_down.reverse()        # a pile's top is its end
        return top_down


def _big(n):
    return f"{n:,}" if n < 10 ** 15 else f"about 10^{len(str(n)) - 1}"


class _Holder:
    """What a state holds. The gamespec State reached is never changed in place (an operation runs
    on a copy), so copies of the pyspiel state share it, and its memo (strings, legal ids)."""
    __slots__ = ("s", "op", "outs", "need", "memo", "path")

    def __init__(self, s, op, outs, need, memo, path):
        self.s = s            # the last gamespec State reached (None before the set-up is done)
        self.op = op          # at a chance node: -1 (the set-up) or the legal index being played
        self.outs = outs      # the outcomes chosen for op so far (a tuple)
        self.need = need      # at a chance node: [(outcome, probability)]; else None
        self.memo = memo      # what was computed from s: {key: value}
        self.path = path      # every action and outcome applied since the start (a tuple)

    def __deepcopy__(self, memo):
        return _Holder(self.s, self.op, self.outs, self.need, self.memo, self.path)

    def fields(self):
        return (self.s, self.op, self.outs, self.need, self.memo)


class ExplicitState(pyspiel.State):
    def __init__(self, game):
        super().__init__(game)
        g = self.get_game()
        root = g.gs_nodes.get(())
        if root is None:
            got = _attempt(g, None, -1, ())
            root = g.gs_nodes[()] = (None, -1, (), got, {}) if got.__class__ is list else (got, None, (), None, {})
        self._h = _Holder(*root, ())

    def _ids(self):
        """The sorted legal action ids of the State reached (a player's node)."""
        h = self._h
        ids = h.memo.get("ids")
        if ids is None:
            ids = h.memo["ids"] = sorted(self.get_game().gs_space.legal_ids(h.s))
        return ids

    @property
    def gamespec_state(self):
        """A copy of the gamespec State reached (hidden cards included); None before the set-up's
        chance is done."""
        return self._h.s.clone() if self._h.s is not None else None

    def current_player(self):
        h = self._h
        if h.need is not None:
            return pyspiel.PlayerId.CHANCE
        return pyspiel.PlayerId.TERMINAL if h.s.is_terminal else h.s.current_player

    def is_terminal(self):
        h = self._h
        return h.need is None and h.s.is_terminal

    def chance_outcomes(self):
        return list(self._h.need or ())

    def _legal_actions(self, player):
        h = self._h
        if h.need is not None or h.s.is_terminal or player != h.s.current_player:
            return []
        return list(self._ids())

    def _apply_action(self, action):
        h = self._h
        action = int(action)
        g = self.get_game()
        path = h.path + (action,)
        got = g.gs_nodes.get(path)      # a node reached before (only legal moves are remembered)
        if got is not None:
            h.s, h.op, h.outs, h.need, h.memo = got
            h.path = path
            return
        if h.need is not None:
            if action not in {o for o, _ in h.need}:
                raise IllegalAction(f"chance outcome {action} is not possible now")
            op, outs = h.op, h.outs + (action,)
        else:
            if h.s.is_terminal:
                raise IllegalAction("the game is over; no action is legal")
            space = self.get_game().gs_space
            if action not in self._ids():
                raise IllegalAction(f"action id {action} is not legal now")
            bound = self.get_game().gs_max_length
            if h.s.decisions >= bound:
                raise GameTooLong(f"the game has made {bound} decisions without ending: more than the "
                                  f"max_game_length declared to OpenSpiel ({bound}); load(..., "
                                  "max_game_length=N) declares a larger one")
            op, outs = space.index_of_id(h.s, action), ()
        got = _attempt(g, h.s, op, outs)        # a rule that fails leaves this state unchanged
        if got.__class__ is list:
            h.op, h.outs, h.need = op, outs, got
        else:
            h.s, h.op, h.outs, h.need, h.memo = got, None, (), None, {}
        if len(g.gs_nodes) >= MAX_NODES:    # a bound on memory: start again
            g.gs_nodes.clear()
        g.gs_nodes[path] = h.fields()
        h.path = path

    def _action_to_string(self, player, action):
        h = self._h
        rs = self.get_game().gs_rs
        if player == pyspiel.PlayerId.CHANCE:
            a = int(action)
            if 0 <= a < len(rs.faces):
                return f"chance: {rs.face_label[a]}"
            return f"chance: {rs.face_label[rs.face_of[a - len(rs.faces)]]} (marked)"
        s = h.s
        if s is not None and not s.is_terminal and player == s.current_player and h.need is None:
            ids = self.get_game().gs_space.legal_ids(s)
            if int(action) in ids:
                from gamespec.interpreter.views import view_action
                k = self.get_game().gs_space.index_of_id(s, int(action))
                return view_action(s, player, s.legal_actions()[k], k).label
        return json.dumps(self.get_game().gs_space.describe(int(action)), sort_keys=True)

    def returns(self):
        g = self.get_game()
        if not self.is_terminal():
            return [0.0] * g.gs_players
        return g.gs_checked(rewards(self._h.s, g.gs_reward))

    def observation_tensor(self, player=None):
        s = self._h.s
        g = self.get_game()
        if s is None:
            return [0.0] * g.gs_encoder.size
        return g.gs_tensor(s, s.current_player if player is None else player, False)

    def information_state_tensor(self, player=None):
        s = self._h.s
        g = self.get_game()
        if s is None:
            return [0.0] * (g.gs_encoder.size + 1)
        return g.gs_tensor(s, s.current_player if player is None else player, True)

    def __str__(self):
        """The whole state (hidden cards included: OpenSpiel's debug string, not a player channel),
        with the chance outcomes waiting to be completed."""
        h = self._h
        d = {"state": h.s.to_json() if h.s is not None else None}
        if h.need is not None:
            d["pending"] = {"op": h.op, "outcomes": h.outs}
        return json.dumps(d, sort_keys=True, default=str)


def _attempt(g, s, op, outs):
    """Run operation `op` (-1: the set-up; else the legal index to play on a copy of `s`) with the
    chance outcomes `outs`: the State it reaches, or the next chance node's [(outcome, probability)]."""
    script = _Script(outs, g.gs_chance_limit)
    try:
        if op == -1:
            t = State.new(g.gs_game, g.gs_rs, 0, script=script)
        else:
            t = s.clone()
            t.script = script
            t.apply_index(op)
    except _NeedChance as e:
        return e.outcomes
    except _TooLarge as e:
        raise UsageError(str(e)) from None
    t.script = None
    return t


class ExplicitObserver:
    """The PyObserver of the explicit game: the sampled game's (GamespecObserver), with an empty
    observation before the set-up's chance is done."""

    def __init__(self, inner):
        self.inner = inner
        self.tensor = self.inner.tensor
        self.dict = self.inner.dict

    def set_from(self, state, player):
        if state._h.s is None:
            self.tensor[:] = 0
        else:
            self.inner.set_from(state, player)

    def string_from(self, state, player):
        h = state._h
        if h.s is None:
            return "{}"
        key = (self.inner.perfect_recall, player)
        out = h.memo.get(key)
        if out is None:
            out = h.memo[key] = self.inner.string_from(state, player)
        return out
