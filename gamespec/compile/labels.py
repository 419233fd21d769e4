"""Checked label expressions (`{n * 2}`, `{card.rank}`) → functions giving their text for one action, from
its parameters alone: the game state is never read, so a label holds only what the chooser knows. Also
the engine's own parameter values (a simultaneous step's resolution order)."""
from __future__ import annotations

from gamespec.errors import SpecRuntimeError

from ..spec import ast as A


MAX_SHOWN = 100     # characters one placeholder may show


_OPS = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
        "//": lambda a, b: a // b, "%": lambda a, b: a % b, "**": lambda a, b: a ** b if abs(b) <= 64 else None,
        "==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
        "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
        "in": lambda a, b: a in b, "not in": lambda a, b: a not in b}


class _Unknown(Exception):
    """A value the chooser does not know (an attribute of a card they do not see)."""


def compile_expr(rule, rs):
    """fn(values) -> text; values: parameter name -> number/player/key/choice, a card parameter's
    face dict (None if unseen), a subset's list of faces."""
    ev = _evaluator(rs)

    def show(values):
        try:
            v = ev(rule.ast, values)
        except (_Unknown, ZeroDivisionError, KeyError, TypeError, ValueError, OverflowError):
            return "?"
        text = ("true" if v else "false") if isinstance(v, bool) else "none" if v is None else str(v)
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
