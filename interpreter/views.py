"""State + player → PlayerView: everything that player may know (observation, legal actions as they
see them), and nothing more. What every bot, terminal player and agent receives (docs/bots.md).

A PlayerAction names cards as the player knows them: a face (a dict of its attributes) where they
see or know the card, else a handle that says where it lies and no more — `{"zone": "pair",
"position": 0}` for a pile (positions count from the bottom, as observations list piles), `{"zone":
"hand[1]", "hidden": 2}` for the third card of a set that the player cannot tell apart from the
others. Engine card ids never appear.
"""
from __future__ import annotations

from gamespec.errors import IllegalAction
from gamespec.errors import UsageError

from .actions import fill_template
from .labels import fill_expressions, pile_handle, zone_words
from .observe import face_dict

__all__ = ["PlayerView", "PlayerAction"]   # the public face (docs/api.md)


class PlayerAction:
    """One legal action as the deciding player sees it: `.index` (its position in the state's legal
    actions), `.name`, `.label`, `.to_json()`. Give it (or its index) back to `state.apply`."""

    __slots__ = ("index", "name", "label", "_json")

    def __init__(self, index, name, label, params):
        self.index = index
        self.name = name
        self.label = label
        self._json = params

    def to_json(self, label=True) -> dict:
        d = {"action": self.name}
        for k, v in self._json.items():
            d[k] = _copy(v)
        if label:
            d["label"] = self.label
        return d

    def key(self):
        return _freeze(self.to_json(label=False))

    def __eq__(self, other):
        return isinstance(other, PlayerAction) and self.index == other.index and self.key() == other.key()

    def __hash__(self):
        return hash((self.index, self.name))

    def __repr__(self):
        return f"PlayerAction({self.index}, {self.label!r})"


class PlayerView:
    """What player p may know of a state. Built lazily (a random bot that reads only
    `num_legal_actions` costs nothing more); every attribute is a fresh copy. A view belongs to the
    state at one moment: after the state moves on it raises instead of answering."""

    __slots__ = ("player", "num_players", "to_move", "is_terminal", "phase", "_s", "_at", "_obs",
                 "_acts", "_n")

    def __init__(self, state, player):
        rs = state.rs
        if type(player) is not int or not 0 <= player < rs.P:
            raise UsageError(f"no player {player!r} (players are 0 to {rs.P - 1})")
        self.player = player
        self.num_players = rs.P
        self.to_move = state.current_player
        self.is_terminal = state.terminal
        self.phase = state.phase_name
        self._s = state
        self._at = state.decisions
        self._obs = None
        self._acts = None
        self._n = None

    def _state(self):
        s = self._s
        if s.decisions != self._at:
            raise UsageError("this view is of an earlier moment of the game; ask the state for a new one")
        return s

    @property
    def observation(self) -> dict:
        if self._obs is None:
            self._obs = self._state().observation(self.player)
        return self._obs

    @property
    def num_legal_actions(self) -> int:
        """How many legal actions the player has (0 unless they are to move)."""
        if self._n is None:
            s = self._state()
            self._n = len(s.legal_actions()) if self.to_move == self.player else 0
        return self._n

    @property
    def legal_actions(self) -> list:
        if self._acts is None:
            s = self._state()
            self._acts = player_actions(s, self.player) if self.to_move == self.player else []
        return list(self._acts)

    def determinize(self, rng):
        """A complete State this player cannot tell from the real one (see interpreter/determinize.py)."""
        from .determinize import determinize
        return determinize(self._state(), self.player, rng)

    def determinizer(self):
        """A function rng → determinize(rng), for a search bot that draws many worlds of this view:
        the part that does not depend on the draw is done once (see interpreter/determinize.py)."""
        from .determinize import determinizer
        return determinizer(self._state(), self.player)

    def to_json(self) -> dict:
        """The whole view as plain JSON (what a remote player or agent is sent)."""
        return {"player": self.player, "num_players": self.num_players, "to_move": self.to_move,
                "terminal": self.is_terminal, "phase": self.phase, "observation": self.observation,
                "legal_actions": [a.to_json() for a in self.legal_actions]}

    def __repr__(self):
        return f"<PlayerView of player {self.player}, {self.num_legal_actions} legal actions>"


# -- building the actions a player sees ----------------------------------------------------

def player_actions(s, p):
    """The legal actions as player p (the one to move) sees them, in the state's order."""
    return [view_action(s, p, a, i) for i, a in enumerate(s.legal_actions())]


def view_action(s, p, a, index):
    rt = a[4]
    if rt is None:       # an optional step's skip
        return PlayerAction(index, a[0], a.label, {})
    params = {}
    shown = {}
    bind, seen = a[2], a[3]
    for i, prm in enumerate(rt.params):
        v = a[1][i]
        k = prm.kind
        if k == "card":
            params[prm.name], shown[prm.name] = _card(s, p, bind[i], seen[i])
        elif k == "subset":
            faces = seen[i] or (None,) * len(bind[i])
            items = [_card(s, p, c, f) for c, f in zip(bind[i], faces)]
            params[prm.name] = [x[0] for x in items]
            shown[prm.name] = ", ".join(x[1] for x in items) if items else "nothing"
        else:
            params[prm.name] = list(v) if isinstance(v, tuple) else v
            if k == "zone":
                shown[prm.name] = (f"{prm.family.name} of player {v}" if prm.family.per_player
                                   else f"{prm.family.name} {v}")
            elif k == "player":
                shown[prm.name] = f"player {v}"
            else:
                shown[prm.name] = str(v)
    if rt.template:
        label = fill_template(rt.template, fill_expressions(rt, shown, a[1], seen, s, p))
    elif shown:
        label = f"{rt.name} " + ", ".join(f"{k}={v}" for k, v in shown.items())
    else:
        label = rt.name
    return PlayerAction(index, a[0], label, params)


def _card(s, p, c, face):
    """(JSON, label text) of card c for the chooser p: its face if they told it apart, else a handle."""
    rs = s.rs
    if face is not None:
        return face_dict(rs, face), rs.face_label[face]
    zi = s.loc[c]
    zone = rs.zone_label[zi]
    cs = s.z[zi]
    if rs.zone_decl[zi].kind == "pile":
        pos = cs.index(c)
        return {"zone": zone, "position": pos}, pile_handle(pos, zone_words(rs, zi))
    bit = 1 << p
    k = 0
    for x in cs:              # the k-th card of the set that p cannot tell apart
        if x == c:
            break
        if not s._vis(x) & bit:
            k += 1
    return {"zone": zone, "hidden": k}, f"hidden card {k + 1} in {zone_words(rs, zi)}"


def find_view_action(s, p, d):
    """The legal action whose view JSON (label aside) is d, for player p; IllegalAction if none."""
    if s.terminal:
        raise IllegalAction("the game is over; no action is legal")
    if type(p) is not int or not 0 <= p < s.rs.P:
        raise IllegalAction(f"no player {p!r}")
    if s.current_player != p:
        raise IllegalAction(f"player {p} is not to move (player {s.current_player} is)")
    if isinstance(d, PlayerAction):
        want = d.to_json(label=False)
    elif isinstance(d, dict):
        want = {k: v for k, v in d.items() if k != "label"}
    else:
        raise IllegalAction(f"an action is a PlayerAction or a dict, not {type(d).__name__}")
    acts = player_actions(s, p)
    if isinstance(d, PlayerAction) and 0 <= d.index < len(acts) and acts[d.index].to_json(label=False) == want:
        return d.index
    for pa in acts:
        if pa.to_json(label=False) == want:
            return pa.index
    shown = repr(want)
    if len(shown) > 300:
        shown = shown[:300] + "..."
    raise IllegalAction(f"not legal now for player {p}: {shown} ({len(acts)} legal actions; "
                        f"see state.view({p}).legal_actions)")


def _copy(v):
    if isinstance(v, dict):
        return {k: _copy(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_copy(x) for x in v]
    return v


def _freeze(v):
    if isinstance(v, dict):
        return tuple(sorted((k, _freeze(x)) for k, x in v.items()))
    if isinstance(v, list):
        return tuple(_freeze(x) for x in v)
    return v
