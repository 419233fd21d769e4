"""Ruleset → ActionSpace: a fixed numbering 0..N-1 of every action a player could ever see (docs/agents.md).

Ids are computed from the action as the deciding player sees it (PlayerAction JSON: faces or
handles, never engine card ids), so they never depend on hidden information.
"""
from __future__ import annotations

import math
from dataclasses import fields, is_dataclass

from gamespec.errors import IllegalAction, ActionSpaceError
from gamespec.interpreter.actions import Action
from gamespec.interpreter.snapshot import json_key as _key
from gamespec.interpreter.views import find_view_action, player_actions, view_action

from ..spec import ast as A
from ..spec.builtins import NO_CARDS
from ..spec.visibility import VISIBILITIES
from ..spec.model import Rule

MAX_DISTINCT_ACTIONS = 2_000_000


def space(rs) -> "ActionSpace":
    """The ActionSpace of a Ruleset (built once, cached on it)."""
    sp = rs.__dict__.get("_action_space")
    if sp is None:
        sp = rs._action_space = ActionSpace(rs)
    return sp


# -- parameter domains ------------------------------------------------------------------------

class _Values:
    """A domain of plain JSON values (players, zone keys, numbers, choices)."""

    def __init__(self, values):
        self.values = list(values)
        self.index = {_key(v): i for i, v in enumerate(self.values)}
        self.size = len(self.values)

    def id_of(self, v):
        return self.index.get(_key(v))

    def value(self, i):
        return self.values[i]


class _Range(_Values):
    """Whole numbers lo..hi (no table: a range may be long before the size check refuses it)."""

    def __init__(self, lo, hi):
        self.lo = lo
        self.size = hi - lo + 1
        self.index = self

    def get(self, v):
        return v - self.lo if v.__class__ is int and 0 <= v - self.lo < self.size else None

    def id_of(self, v):
        return self.get(v)

    def value(self, i):
        return self.lo + i


class _Cards:
    """Faces (by face id order) then handles (zone label, pile position or set hidden index)."""

    def __init__(self, rs, faces, zones, cap):
        self.faces = list(faces)
        self.face_index = {_key(rs.faces[f]): i for i, f in enumerate(self.faces)}
        self.face_pos = {f: i for i, f in enumerate(self.faces)}
        self.rs = rs
        self.cap = cap        # positions per zone: how many cards may lie there at once
        self.zones = list(zones)
        self.zone_index = {rs.zone_label[zi]: i for i, zi in enumerate(self.zones)}
        self.zone_pos = {zi: i for i, zi in enumerate(self.zones)}
        self.size = len(self.faces) + len(self.zones) * self.cap

    def id_of(self, v):
        if not isinstance(v, dict):
            return None
        if "zone" in v and ("position" in v or "hidden" in v) and len(v) == 2:
            zi = self.zone_index.get(v["zone"])
            k = v.get("position", v.get("hidden"))
            if zi is None or type(k) is not int or not 0 <= k < self.cap:
                return None
            return len(self.faces) + zi * self.cap + k
        return self.face_index.get(_key(v))

    def card_id(self, s, c, face):
        """Card c chosen by the deciding player, who sees its face `face` (or None): as views._card."""
        if face is not None:
            return self.face_pos.get(face)
        zi = s.loc[c]
        k = self.zone_pos.get(zi)
        if k is None:
            return None
        cs = s.z[zi]
        if self.rs.zone_decl[zi].kind == "pile":
            pos = cs.index(c)
        else:
            bit = 1 << s.actor
            pos = 0
            for x in cs:
                if x == c:
                    break
                if not s._vis(x) & bit:
                    pos += 1
        return len(self.faces) + k * self.cap + pos if pos < self.cap else None

    def value(self, i):
        nf = len(self.faces)
        if i < nf:
            return dict(self.rs.faces[self.faces[i]])
        zi, k = divmod(i - nf, self.cap)
        z = self.zones[zi]
        what = "position" if self.rs.zone_decl[z].kind == "pile" else "hidden"
        return {"zone": self.rs.zone_label[z], what: k}


class _Subsets:
    """Multisets of a card domain, sizes lo..hi: ranked by size, then by combinatorial number."""

    def __init__(self, cards, lo, hi, where):
        self.cards = cards
        self.lo, self.hi = lo, hi
        n = cards.size
        self.by_size = [math.comb(n + k - 1, k) for k in range(lo, hi + 1)]
        self.size = sum(self.by_size)
        if self.size > MAX_DISTINCT_ACTIONS:
            raise ActionSpaceError(f"{where}: more than {MAX_DISTINCT_ACTIONS} subsets "
                                   f"({n} cards, sizes {lo} to {hi})")

    def id_of(self, v):
        if not isinstance(v, list) or not self.lo <= len(v) <= self.hi:
            return None
        items = []
        for x in v:
            i = self.cards.id_of(x)
            if i is None:
                return None
            items.append(i)
        items.sort()
        k = len(items)
        off = sum(self.by_size[:k - self.lo])
        # a multiset x0 <= x1 <= ... is the set x0 < x1+1 < x2+2 ...: rank it combinatorially
        return off + sum(math.comb(x + j, j + 1) for j, x in enumerate(items))

    def value(self, i):
        for k, cnt in zip(range(self.lo, self.hi + 1), self.by_size):
            if i < cnt:
                break
            i -= cnt
        out = []
        for j in range(k, 0, -1):       # unrank, largest element first
            x = j - 1
            while math.comb(x + 1, j) <= i:
                x += 1
            i -= math.comb(x, j)
            out.append(x - (j - 1))
        return [self.cards.value(x) for x in reversed(out)]


# -- the space --------------------------------------------------------------------------------

class ActionSpace:
    """Block per action (skip first), mixed radix over the parameters, last parameter fastest."""

    def __init__(self, rs):
        self.rs = rs
        spec = rs.spec
        self._hidable, self._face_down = _hidable_zones(rs)
        self._flow = FaceFlow(rs)
        self.blocks = [("skip", (), 0)]      # (name, domains, first id)
        nxt = 1
        for name, decl in spec.actions.items():
            doms = tuple(self._domain(rs, decl, p) for p in decl.params)
            self.blocks.append((name, doms, nxt))
            nxt += math.prod(d.size for d in doms)
            if nxt > MAX_DISTINCT_ACTIONS:
                raise ActionSpaceError(
                    f"{spec.filename}: {spec.name} at {rs.P} players has more than "
                    f"{MAX_DISTINCT_ACTIONS} distinct actions (action '{name}' reaches {nxt}); "
                    f"narrow its parameters' ranges")
        self.size = nxt
        self.by_name = {b[0]: b for b in self.blocks}
        self._cache = None

    # -- ids -----------------------------------------------------------------------------
    def id_of_json(self, d) -> int:
        """The id of an action's view JSON ({"action": name, param: value...}); IllegalAction if
        it is outside this game's action space."""
        name = d.get("action") if isinstance(d, dict) else None
        b = self.by_name.get(name)
        if b is None:
            raise IllegalAction(f"no action named {name!r} in this game")
        _, doms, base = b
        decl = self.rs.spec.actions.get(name)
        i = 0
        for dom, p in zip(doms, decl.params if decl else ()):
            j = dom.id_of(d.get(p.name)) if p.name in d else None
            if j is None:
                raise IllegalAction(f"action '{name}': parameter '{p.name}' = {d.get(p.name)!r} is "
                                    f"outside the game's action space")
            i = i * dom.size + j
        return base + i

    def describe(self, i: int) -> dict:
        """An id's action JSON, decoded statically (it need not be legal anywhere)."""
        if type(i) is not int or not 0 <= i < self.size:
            raise IllegalAction(f"no action id {i!r} (ids are 0 to {self.size - 1})")
        for name, doms, base in reversed(self.blocks):
            if i >= base:
                break
        r = i - base
        vals = []
        for dom in reversed(doms):
            r, j = divmod(r, dom.size)
            vals.append(dom.value(j))
        d = {"action": name}
        decl = self.rs.spec.actions.get(name)
        for p, v in zip(decl.params if decl else (), reversed(vals)):
            d[p.name] = v
        return d

    def sizes(self) -> dict:
        """Ids per action name."""
        out = {}
        for k, (name, _, base) in enumerate(self.blocks):
            end = self.blocks[k + 1][2] if k + 1 < len(self.blocks) else self.size
            out[name] = end - base
        return out

    # -- a state's legal actions -----------------------------------------------------------
    # the State's agent API (State.action_id, action_from_id, apply_id) calls these
    def action_id(self, s, action) -> int:
        return action_id(s, action)

    def action_from_id(self, s, i):
        return action_from_id(s, i)

    def index_of_id(self, s, i) -> int:
        return index_of_id(s, i)

    def legal_ids(self, s) -> list:
        """The ids of s.legal_actions(), in the same order (empty at the end). Computed from what
        the deciding player sees, as views.view_action shows it, without building the views."""
        if s.terminal:
            return []
        if s._legal is None:
            s.legal_actions()
        legal = s._legal        # the state's own list: replaced (never changed) when the state moves
        c = self._cache
        if c is not None and c[0] is s and c[1] is legal:
            return c[2]
        out = [self._id(s, a) for a in legal]
        self._cache = (s, legal, out)
        return out

    def legal(self, s):
        """[(id, PlayerAction)] of the deciding player's legal actions, in the state's order."""
        if s.terminal:
            return []
        return list(zip(self.legal_ids(s), player_actions(s, s.actor)))

    def _id(self, s, a):
        rt = a[4]
        if rt is None:
            return 0
        _, doms, base = self.by_name[a[0]]
        i = 0
        for k, dom in enumerate(doms):
            if dom.__class__ is _Cards:
                j = dom.card_id(s, a[2][k], a[3][k])
            elif dom.__class__ is _Values or dom.__class__ is _Range:
                v = a[1][k]
                j = dom.index.get(v) if v.__class__ in (int, str) else dom.id_of(list(v) if isinstance(v, tuple) else v)
            else:   # subsets: through the view's JSON
                j = dom.id_of(view_action(s, s.actor, a, -1).to_json(label=False)[rt.params[k].name])
            if j is None:
                raise IllegalAction(f"action '{a[0]}': parameter '{rt.params[k].name}' is outside the "
                                    f"game's action space (a bug in the static bounds: please report it)")
            i = i * dom.size + j
        return base + i

    # -- building domains ----------------------------------------------------------------
    def _domain(self, rs, decl, p):
        where = f"{rs.spec.filename}: action '{decl.name}', parameter '{p.name}'"
        k = p.kind
        if k == "player":
            return _Values(range(rs.P))
        if k == "zone":
            z = rs.spec.zones[p.family]
            return _Values(rs.zone_keys[z.name])
        if k == "number":
            lo = _bounds(rs, p.lo.ast)[0]
            hi = _bounds(rs, p.hi.ast)[1]
            if lo is None or hi is None:
                which = "lower" if lo is None else "upper"
                raise ActionSpaceError(f"{where}: cannot bound its {which} value from the spec "
                                       f"(give the number a range read from constants, sizes or counts)")
            return _Range(lo, max(lo, hi))
        if k == "choice":
            if p.choices is None:
                raise ActionSpaceError(f"{where}: a choice from an expression has no static list of "
                                       f"values; list the choices")
            seen = {}
            for c in p.choices:         # first occurrence of each value, as the engine dedups them
                seen.setdefault(_key(c), c)
            return _Values(seen.values())
        faces = self._faces(rs, decl, p)
        zones = [zi for zi in self._handle_zones(rs, decl, p) if self._zone_faces(zi) & set(faces)]
        cap = max((self._capacity(zi) for zi in zones), default=0)
        cards = _Cards(rs, faces, zones, cap)
        if k == "card":
            return cards
        lo = _bounds(rs, p.lo.ast)[0]
        hi = _bounds(rs, p.hi.ast)[1]
        lo = max(0, lo) if lo is not None else 0
        hi = rs.ncards if hi is None else min(hi, rs.ncards)
        return _Subsets(cards, lo, max(lo, hi), where)

    def _faces(self, rs, decl, p):
        """Faces the source's cards may have (FaceFlow) that the `where` does not exclude alone."""
        possible = self._flow.faces_of(p.source.ast, decl.name)
        return [f for f in sorted(possible)
                if p.where is None or _face_test(p.where.ast, p.name, rs.faces[f]) is not False]

    def _zone_faces(self, zi):
        return self._flow.faces[self.rs.zone_decl[zi].name]

    def _capacity(self, zi):
        fs = self._zone_faces(zi)
        return sum(1 for f in self.rs.face_of if f in fs)

    def _handle_zones(self, rs, decl, p):
        """Zones where a card of the source may lie hidden from the chooser (see docs/agents.md)."""
        spec = rs.spec
        fams, anywhere = set(), False
        card_params = {q.name for q in decl.params if q.kind in ("card", "subset")}
        own = set()     # Name nodes read as F[actor]: the chooser's own zone of a family
        for n in A.walk(p.source.ast):
            if isinstance(n, A.Index) and isinstance(n.obj, A.Name) and isinstance(n.index, A.Name) \
                    and n.index.id == "actor":
                own.add(id(n.obj))
        for n in A.walk(p.source.ast):
            if isinstance(n, A.Name):
                if n.id in spec.zones:
                    z = spec.zones[n.id]
                    if id(n) in own and z.per_player and VISIBILITIES[z.visibility].owner_sees \
                            and n.id not in self._face_down:
                        continue        # the chooser sees every card of their own zone
                    fams.add(n.id)
                elif n.id in card_params:
                    anywhere = True
                elif n.id in spec.variables and spec.variables[n.id].type not in ("int", "bool", "player", "str"):
                    anywhere = True
        zs = range(rs.nzones) if anywhere else [zi for zi in range(rs.nzones) if rs.zone_decl[zi].name in fams]
        return [zi for zi in zs if zi in self._hidable]


def _hidable_zones(rs):
    """(zones where a card may be hidden from some player: not public, or where a face= move or
    deal lands; the families such moves land in, every family if one lands somewhere unclear)."""
    down, everywhere = set(), False
    for rule in _rules(rs.spec):
        for n in _walk_any(rule.ast):
            if isinstance(n, A.Call) and "face" in n.kwargs and len(n.args) >= 2:
                dst = n.args[1]
                if isinstance(dst, A.Index):
                    dst = dst.obj
                if isinstance(dst, A.Name) and dst.id in rs.spec.zones:
                    down.add(dst.id)
                else:
                    everywhere = True
    if everywhere:
        down = set(rs.spec.zones)
    return ({zi for zi in range(rs.nzones) if not VISIBILITIES[rs.zone_decl[zi].visibility].everyone
             or rs.zone_decl[zi].name in down}, down)


def _walk_any(node):
    if isinstance(node, list):
        for x in node:
            yield from _walk_any(x)
    elif isinstance(node, A.Node):
        yield from A.walk(node)


def _rules(obj, depth=0):
    """Every Rule reachable from the spec's dataclasses, lists, tuples and dicts."""
    if depth > 50:
        return
    if isinstance(obj, Rule):
        yield obj
    elif is_dataclass(obj) and not isinstance(obj, type):
        for f in fields(obj):
            if f.name not in ("graph", "checker"):
                yield from _rules(getattr(obj, f.name), depth + 1)
    elif isinstance(obj, (list, tuple)):
        for x in obj:
            yield from _rules(x, depth + 1)
    elif isinstance(obj, dict):
        for x in obj.values():
            yield from _rules(x, depth + 1)


# -- static evaluation --------------------------------------------------------------------------

def _face_test(node, name, face):
    """A `where` evaluated for one face when it reads only the parameter's attributes and
    constants: True/False, or None when it reads anything else."""
    try:
        v = _feval(node, name, face)
    except _Unknown:
        return None
    return bool(v)


class _Unknown(Exception):
    pass


_CMP = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
        "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
        "in": lambda a, b: a in b, "not in": lambda a, b: a not in b}


def _feval(n, name, face):
    if isinstance(n, A.Const):
        return n.value
    if isinstance(n, A.Attr) and isinstance(n.obj, A.Name) and n.obj.id == name:
        return face.get(n.name)       # a face without the attribute reads none, as in the engine
    if isinstance(n, A.ListLit):
        return [_feval(x, name, face) for x in n.items]
    if isinstance(n, A.Compare) and n.op in _CMP:
        try:
            return _CMP[n.op](_feval(n.left, name, face), _feval(n.right, name, face))
        except TypeError:
            raise _Unknown from None
    if isinstance(n, A.BoolOp):
        a = _feval(n.left, name, face)
        if n.op == "and":
            return a and _feval(n.right, name, face)
        return a or _feval(n.right, name, face)
    if isinstance(n, A.Unary) and n.op == "not":
        return not _feval(n.operand, name, face)
    raise _Unknown


def _bounds(rs, n):
    """(lo, hi) that the int expression n cannot leave in any state; None for an unknown side."""
    if isinstance(n, A.Const):
        v = n.value
        return (int(v), int(v)) if isinstance(v, (int, bool)) else (None, None)
    if isinstance(n, A.Name):
        if n.id == "num_players":
            return (rs.P, rs.P)
        if n.id in rs.options and isinstance(rs.options[n.id], (int, bool)):
            v = int(rs.options[n.id])
            return (v, v)
        return (None, None)
    if isinstance(n, (A.Compare, A.BoolOp)) or (isinstance(n, A.Unary) and n.op == "not"):
        return (0, 1)
    if isinstance(n, A.Unary) and n.op == "-":
        lo, hi = _bounds(rs, n.operand)
        return (-hi if hi is not None else None, -lo if lo is not None else None)
    if isinstance(n, A.BinOp) and n.op in ("+", "-", "*"):
        a, b = _bounds(rs, n.left), _bounds(rs, n.right)
        if n.op == "+":
            return (_add(a[0], b[0]), _add(a[1], b[1]))
        if n.op == "-":
            return (_add(a[0], _neg(b[1])), _add(a[1], _neg(b[0])))
        if None in a or None in b:
            return (None, None)
        ps = [x * y for x in a for y in b]
        return (min(ps), max(ps))
    if isinstance(n, A.Call):
        f = n.func
        if f in ("size", "count", "len"):
            # zones, cards and players are at most this many; a list variable or a range is not
            for x in _walk_any(n.args):
                if (isinstance(x, A.Call) and x.func == "range") or (isinstance(x, A.Name) and x.id in
                                                                      rs.spec.variables and rs.spec.variables[x.id].type == "list"):
                    return (0, None)
            return (0, max(rs.ncards, rs.P))
        if f in ("is_max", "is_sole_max", "any", "all"):
            return (0, 1)
        if f in ("min", "max") and n.args and not n.kwargs and not any(isinstance(x, A.Comp) for x in n.args):
            bs = [_bounds(rs, x) for x in n.args]
            los, his = [b[0] for b in bs], [b[1] for b in bs]
            if f == "min":
                return (None if None in los else min(los), min((h for h in his if h is not None), default=None))
            return (max((x for x in los if x is not None), default=None), None if None in his else max(his))
        if f == "abs" and len(n.args) == 1:
            lo, hi = _bounds(rs, n.args[0])
            if lo is None or hi is None:
                return (0, None)
            return (0 if lo <= 0 <= hi else min(abs(lo), abs(hi)), max(abs(lo), abs(hi)))
    return (None, None)


def _add(a, b):
    return None if a is None or b is None else a + b


def _neg(a):
    return None if a is None else -a


# -- state helpers (State.action_id / action_from_id delegate here, through ActionSpace) ----------------------------

def action_id(s, action) -> int:
    """The id of a legal action of the deciding player: an Action, a PlayerAction, an index into
    legal_actions() or a view JSON dict. IllegalAction if it is not legal now."""
    sp = space(s.rs)
    if s.terminal:
        raise IllegalAction("the game is over; no action is legal")
    legal = s.legal_actions()
    if isinstance(action, Action):
        if action not in legal:
            raise IllegalAction(f"not legal now: {action!r}")
        idx = legal.index(action)
    elif type(action) is int:
        if not 0 <= action < len(legal):
            raise IllegalAction(f"no legal action {action} ({len(legal)} legal actions)")
        idx = action
    else:
        idx = find_view_action(s, s.actor, action)
    return sp.legal_ids(s)[idx]


def index_of_id(s, i) -> int:
    """The position in s.legal_actions() of the legal action with id i; IllegalAction if none."""
    sp = space(s.rs)
    if type(i) is not int or not 0 <= i < sp.size:
        raise IllegalAction(f"no action id {i!r} (ids are 0 to {sp.size - 1})")
    try:
        return sp.legal_ids(s).index(i)
    except ValueError:
        raise IllegalAction(f"action id {i} ({sp.describe(i)}) is not legal now") from None


def action_from_id(s, i):
    """The legal PlayerAction whose id is i; IllegalAction if no legal action has it now."""
    k = index_of_id(s, i)
    return view_action(s, s.actor, s.legal_actions()[k], k)


# -- which faces may lie where (a static over-approximation) -------------------------------------

ANY = "*"       # "any family": an expression whose cards cannot be traced


class FaceFlow:
    """Per zone family, the faces that may ever lie there: set-up places, then every move/deal
    (and refill) widens its destination by the faces its source may hold, to a fixed point.

    Names are traced to the families their values are read from: a rule's own names (let, for,
    comprehension) within that rule, an action's card parameters within the action, flow loop
    variables and card variables (every assignment) over the whole spec; a name it cannot trace
    reads as ANY. Sound and coarse: a name bound twice in one scope gets both values."""

    def __init__(self, rs):
        spec = self.spec = rs.spec
        self.rs = rs
        self.parent = {0: None}
        self.binds = {}       # (scope, name) -> [(expression node, scope)]
        self.moves = []       # (source node, destination node, scope)
        self.quiet = set(spec.tables) | set(spec.options) | {"players", "num_players", "num_teams", "current",
                                                                "actor", "none", "it", "p"}
        self.param_scope = {}
        self._seen = set()    # ids of the rule ASTs scanned in an action's scope
        for obj in _objects(spec):
            if getattr(obj, "kind", None) == "for" and getattr(obj, "var", None) and \
                    getattr(obj, "iter", None) is not None:      # a flow loop step
                self._bind(0, obj.var, obj.iter.ast, 0)
            elif hasattr(obj, "params") and hasattr(obj, "effect"):      # an ActionDecl
                sc = self.param_scope[obj.name] = ("action", obj.name)
                self.parent[sc] = 0
                for p in obj.params:
                    if p.kind in ("card", "subset"):
                        self._bind(sc, p.name, p.source.ast, sc)
                    else:
                        self.quiet.add(p.name)
                for r in [obj.cond, obj.effect] + [x for p in obj.params for x in (p.source, p.where)] + \
                        [r for _, r in obj.cost]:
                    if r is not None:
                        self._scan(r.ast, sc)
        for obj in _objects(spec):
            if isinstance(obj, Rule) and id(obj.ast) not in self._seen:
                self._scan(obj.ast, 0)
        self._resolve()
        self._flow()

    def _bind(self, scope, name, node, node_scope):
        self.binds.setdefault((scope, name), []).append((node, node_scope))

    def _scan(self, node, parent):
        sc = ("rule", id(node))
        self.parent[sc] = parent
        self._seen.add(id(node))
        for n in _walk_any(node):
            if isinstance(n, A.Let):
                self._bind(sc, n.name, n.value, sc)
            elif isinstance(n, (A.For, A.Comp)):
                self._bind(sc, n.var, n.iter, sc)
            elif isinstance(n, A.Assign):
                t = n.target.obj if isinstance(n.target, A.Index) else n.target
                if isinstance(t, A.Name) and t.id in self.spec.variables:
                    self._bind("var", t.id, n.value, sc)
            elif isinstance(n, A.Call) and n.func in ("move", "deal") and len(n.args) >= 2:
                self.moves.append((n.args[0], n.args[1], sc))

    def _key(self, name, scope):
        while scope is not None:
            if (scope, name) in self.binds:
                return (scope, name)
            scope = self.parent.get(scope)
        return None

    def _mentions(self, node, scope, val):
        out = set()
        for n in _card_names(node):
            if True:
                i = n.id
                k = self._key(i, scope)
                if k is not None:
                    out |= val[k]
                elif i in self.spec.zones:
                    out.add(i)
                elif i in self.spec.variables:
                    out |= val.get(("var", i), set())
                elif i not in self.quiet:
                    out.add(ANY)
        return out

    def _resolve(self):
        val = {k: set() for k in self.binds}
        for _ in range(10_000):
            changed = False
            for k, exprs in self.binds.items():
                for e, sc in exprs:
                    new = self._mentions(e, sc, val)
                    if not new <= val[k]:
                        val[k] |= new
                        changed = True
            if not changed:
                break
        self.val = val

    def families(self, node, scope=0) -> set:
        """The families whose cards `node` may read (ANY among them: untraceable)."""
        return self._mentions(node, scope, self.val)

    def _flow(self):
        rs, spec = self.rs, self.spec
        every = frozenset(range(len(rs.faces)))
        faces = {f: set() for f in spec.zones}
        for c, zi in enumerate(rs.init_zone):
            faces[rs.zone_decl[zi].name].add(rs.face_of[c])
        edges = []
        for src, dst, sc in self.moves:
            d = dst.obj if isinstance(dst, A.Index) else dst
            dsts = [d.id] if isinstance(d, A.Name) and d.id in spec.zones and \
                self._key(d.id, sc) is None else list(spec.zones)
            edges.append((self.families(src, sc), dsts))
        for name, z in spec.zones.items():
            if z.refill_from:
                edges.append(({z.refill_from}, [name]))
        for _ in range(10_000):
            changed = False
            for srcs, dsts in edges:
                got = set(every) if ANY in srcs else set().union(*(faces[f] for f in srcs))
                for d in dsts:
                    if not got <= faces[d]:
                        faces[d] |= got
                        changed = True
            if not changed:
                break
        self.faces = faces

    def faces_of(self, node, action=None) -> set:
        """The faces the cards of a parameter's source may have."""
        fams = self.families(node, self.param_scope.get(action, 0))
        if ANY in fams:
            return set(range(len(self.rs.faces)))
        return set().union(*(self.faces[f] for f in fams))




def _card_names(node):
    """The Name nodes of an expression whose cards may be in its value: not those read only for an
    attribute, an index, a comparison, a comprehension's condition or a count (`and`/`or` are
    followed, in case they ever return an operand)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, list):
            stack.extend(n)
        elif isinstance(n, A.Name):
            yield n
        elif isinstance(n, A.Call) and getattr(n, "fn", None) is not None:
            yield A.Name(n.line, n.col, id="#function")     # a function's value: cards from anywhere
        elif isinstance(n, (A.Attr, A.Compare, A.Const)) or \
                (isinstance(n, A.Unary) and n.op == "not") or \
                (isinstance(n, A.Call) and n.func in NO_CARDS):
            continue
        elif isinstance(n, A.Index):
            stack.append(n.obj)
        elif isinstance(n, A.Comp):
            stack.append(n.elt)
        elif isinstance(n, A.Node):
            stack.extend(n.children())


def _objects(obj, depth=0):
    """Every dataclass object and Rule reachable from the spec (lists, tuples, dicts followed)."""
    if depth > 60:
        return
    if isinstance(obj, Rule):
        yield obj
    elif is_dataclass(obj) and not isinstance(obj, type):
        yield obj
        for f in fields(obj):
            if f.name not in ("graph", "checker"):
                yield from _objects(getattr(obj, f.name), depth + 1)
    elif isinstance(obj, (list, tuple)):
        for x in obj:
            yield from _objects(x, depth + 1)
    elif isinstance(obj, dict):
        for x in obj.values():
            yield from _objects(x, depth + 1)
