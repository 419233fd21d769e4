"""Checked rule ASTs → which zones and variables a condition may read and a block of effects may write.

Conservative: None means "anything". The flow uses it to skip, after a block of effects, the end
conditions and triggers that block cannot have changed (see flow.make_after).
"""
from __future__ import annotations

from gamespec.spec import ast as A

_STATIC_REFS = {"local", "option", "table", "item", "family"}


def reads(node):
    """Zones ("z", name) and variables ("v", name) an expression reads, or None for anything (it
    reads the deciding or current player, where a card lies, or which way up it is)."""
    out = set()
    for x in A.walk(node):
        if isinstance(x, A.Name):
            if not hasattr(x, "ref"):     # the family of an Index: the Index says which member
                continue
            kind = x.ref[0]
            if kind == "zone":
                out.add(("z", x.ref[1].name))
            elif kind == "var":
                out.add(("v", x.ref[1].name))
            elif kind == "const":
                if x.id in ("current", "actor"):
                    return None
            elif kind not in _STATIC_REFS:
                return None
        elif isinstance(x, A.Index):
            kind = getattr(x, "ref", ("item",))[0]
            if kind == "member":
                out.add(("z", x.ref[1].name))
            elif kind in ("pvar", "tvar"):
                out.add(("v", x.ref[1].name))
        elif isinstance(x, A.Call) and getattr(x, "fn", None) is not None:
            return None     # a function reads whatever its body reads (and may call others)
        elif isinstance(x, A.Call) and x.func in ("zone_of", "face_down", "mark", "can"):
            return None     # where a card lies, which way up, its marks, an action's legality: anything
    return out


def _family(node):
    """The zone family a zone-typed expression names, or None if it cannot be told."""
    if isinstance(node, A.Name) and node.ref[0] == "zone":
        return node.ref[1].name
    if isinstance(node, A.Index) and getattr(node, "ref", ("",))[0] == "member":
        return node.ref[1].name
    return None


def card_source(node, lets):
    """The zone family the card(s) of an expression lie in when it is evaluated, or None."""
    if node.t == "zone":
        return _family(node)
    if isinstance(node, A.Call) and node.func in ("top", "bottom", "cards", "first", "last") and node.args:
        a = node.args[0]
        return card_source(a.iter, lets) if isinstance(a, A.Comp) else card_source(a, lets)
    if isinstance(node, A.Comp):
        return card_source(node.iter, lets)
    if isinstance(node, A.Index) and getattr(node, "ref", ("",))[0] == "item":
        return card_source(node.obj, lets)
    if isinstance(node, A.Name) and node.ref[0] == "local":
        return lets.get(node.id)
    return None


def writes(stmts, spec, lets=None):
    """Zones and variables a block of statements may change, or None for anything. `lets` gives the
    zone family of the card(s) some local names hold (an action's card parameters)."""
    lets = dict(lets or {})
    out = set()

    def zone(fam):
        if fam is None:
            raise _Anything
        out.add(("z", fam))

    def walk(body):
        for st in body:
            if isinstance(st, A.Let):
                if st.value.t in ("card", "cards", "zone"):
                    lets[st.name] = card_source(st.value, lets)
                else:
                    lets.pop(st.name, None)
            elif isinstance(st, A.Assign):
                kind = getattr(st.target, "ref", ("",))[0]
                if kind == "var":
                    out.add(("v", st.target.ref[1].name))
                elif kind in ("pvar", "tvar"):
                    out.add(("v", st.target.ref[1].name))
                elif kind == "local":
                    lets.pop(st.target.id, None)   # may now hold cards from anywhere
                else:
                    raise _Anything
            elif isinstance(st, A.CallStmt):
                c = st.call
                if c.func == "move":
                    zone(card_source(c.args[0], lets))
                    zone(_family(c.args[1]))
                elif c.func == "deal":
                    src = _family(c.args[0])
                    zone(src)
                    zone(_family(c.args[1]))
                    refill = spec.zones[src].refill_from
                    if refill:
                        zone(refill)
                elif c.func == "shuffle":
                    zone(_family(c.args[0]))
                elif c.func in ("reveal", "end_game", "end_phase", "end_turn"):
                    pass
                elif c.func == "set_mark":      # only conditions reading marks see it (reads: anything)
                    out.add(("m", c.mark.name))
                else:
                    raise _Anything
            elif isinstance(st, A.If):
                for _, body in st.branches:
                    walk(body)
                walk(st.orelse)
            elif isinstance(st, (A.For, A.While)):
                for name in _bound_in(st.body):   # across iterations these may hold anything
                    lets.pop(name, None)
                if isinstance(st, A.For):
                    if st.iter.t in ("zone", "cards"):
                        lets[st.var] = card_source(st.iter, lets)
                    else:
                        lets.pop(st.var, None)
                walk(st.body)
            else:
                raise _Anything
    try:
        walk(stmts)
    except _Anything:
        return None
    return out


def _bound_in(stmts):
    out = set()
    for st in stmts:
        for x in A.walk(st):
            if isinstance(x, A.Let):
                out.add(x.name)
            elif isinstance(x, A.Assign) and getattr(x.target, "ref", ("",))[0] == "local":
                out.add(x.target.id)
            elif isinstance(x, A.For):
                out.add(x.var)
    return out


class _Anything(Exception):
    pass
