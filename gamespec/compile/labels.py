"""Checked label expressions (`{n * 2}`, `{card.rank}`) → functions giving their text for one action, from
its parameters alone: the game state is never read, so a label holds only what the chooser knows. The one
exception, `{top(pile)}` / `{bottom(row[r])}`, reads the card at that end of a pile and shows it as the
chooser sees it (interpreter/labels.py). Also the engine's own parameter values (a simultaneous step's
resolution order)."""
from __future__ import annotations

from gamespec.errors import SpecRuntimeError
from gamespec.interpreter.labels import end_card_text

from ..spec import ast as A


MAX_SHOWN = 100     # characters one placeholder may show


_OPS = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
        "//": lambda a, b: a // b, "%": lambda a, b: a % b, "**": lambda a, b: a ** b if abs(b) <= 64 else None,
        "==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
        "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
        "in": lambda a, b: a in b, "not in": lambda a, b: a not in b}


class _Unknown(Exception):
    """A value the chooser does not know (an attribute of a card they do not see)."""


ENDS = ("top", "bottom")     # the zone ends a label may show (the checker's Checker.LABEL_ENDS)


def compile_expr(rule, rs):
    """fn(values, state=None, chooser=None) -> text; values: parameter name -> number/player/key/choice,
    a card parameter's face dict (None if unseen), a subset's list of faces. Only a zone end reads the
    state (and shows '?' without one)."""
    ev = _evaluator(rs)
    n = rule.ast
    if isinstance(n, A.Call) and n.func in ENDS:
        return _zone_end(n, rs, ev)

    def show(values, state=None, chooser=None):
        try:
            v = ev(rule.ast, values)
        except (_Unknown, ZeroDivisionError, KeyError, TypeError, ValueError, OverflowError):
            return "?"
        text = ("true" if v else "false") if isinstance(v, bool) else "none" if v is None else str(v)
        return text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN - 3] + "..."
    return show


def _zone_end(call, rs, ev):
    """`{top(pile)}` / `{bottom(row[r])}`: fn(values, state, chooser) -> the card at that end as the
    chooser sees it (interpreter/labels.end_card_text), "?" without a state or for a key the family
    does not have. The pile's key comes from the parameters alone, like any label expression."""
    z = call.args[0]
    decl = z.ref[1]
    base = rs.zone_base[decl.name]
    keymap = {k: base + i for i, k in enumerate(rs.zone_keys[decl.name])}
    key = z.index if isinstance(z, A.Index) else None
    top = call.func == "top"

    def show(values, state=None, chooser=None):
        if state is None or chooser is None:
            return "?"
        if key is None:
            zi = base
        else:
            try:
                k = ev(key, values)
            except (_Unknown, ZeroDivisionError, KeyError, TypeError, ValueError, OverflowError):
                return "?"
            zi = keymap.get(k) if isinstance(k, (int, str)) and not isinstance(k, bool) else None
            if zi is None:
                return "?"
        text = end_card_text(state, chooser, zi, top)
        return text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN - 3] + "..."
    return show


def compile_value(rule, rs):
    """fn(action) -> the value of a checked parameter expression for one engine Action, its cards
    by their real faces: for the engine's own use (a simultaneous step's resolution order), never
    shown to a player. A value that cannot be computed is a SpecRuntimeError naming the rule."""
    ev = _evaluator(rs)
    faces, face_of = rs.faces, rs.face_of

    def value(a):
        vals = {}
        for p, v, b in zip(a[4].params, a[1], a[2]):
            if p.kind == "card":
                vals[p.name] = faces[face_of[b]]
            elif p.kind == "subset":
                vals[p.name] = [faces[face_of[c]] for c in b]
            else:
                vals[p.name] = list(v) if isinstance(v, tuple) else v
        try:
            return ev(rule.ast, vals)
        except (_Unknown, ZeroDivisionError, KeyError, TypeError, ValueError, OverflowError) as e:
            raise SpecRuntimeError(f"cannot compute it for {a[0]} ({type(e).__name__})", rule.origin,
                                   check="simultaneous") from None
    return value


def _evaluator(rs):
    def ev(n, env):
        if isinstance(n, A.Const):
            return n.value
        if isinstance(n, A.Name):
            kind = n.ref[0]
            if kind == "option":
                return rs.options[n.id]
            if kind == "const":
                return rs.P
            return env[n.id]
        if isinstance(n, A.Attr):
            face = env[n.obj.id]
            if face is None or n.name not in face:
                raise _Unknown
            return face[n.name]
        if isinstance(n, A.Index):
            return rs.tables[n.ref[1]][ev(n.index, env)]
        if isinstance(n, A.BinOp):
            v = _OPS[n.op](ev(n.left, env), ev(n.right, env))
            if v is None:
                raise _Unknown
            return v
        if isinstance(n, A.Compare):
            return _OPS[n.op](ev(n.left, env), ev(n.right, env))
        if isinstance(n, A.BoolOp):
            a = ev(n.left, env)
            return (a and ev(n.right, env)) if n.op == "and" else (a or ev(n.right, env))
        if isinstance(n, A.Unary):
            v = ev(n.operand, env)
            return -v if n.op == "-" else not v
        if isinstance(n, A.IfExp):
            return ev(n.body, env) if ev(n.cond, env) else ev(n.orelse, env)
        if isinstance(n, A.ListLit):
            return [ev(x, env) for x in n.items]
        if isinstance(n, A.Call):
            vals = [ev(a, env) for a in n.args]
            if n.func == "size":
                return len(vals[0])
            if n.func == "abs":
                return abs(vals[0])
            pick = max if n.func == "max" else min
            return pick(vals[0]) if len(vals) == 1 else pick(vals)
        raise _Unknown
    return ev
