"""Size rules (`count: "num_players + 1"`, a family's `count`) + players + options → the number they
decide at set-up, or a SpecError at the rule's position. The checker tries every player count and
option set; the compile stage lays out zones and cards with the same function."""
from __future__ import annotations

from ..errors import SpecError
from . import ast as A


_SIZE_OPS = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
             "//": lambda a, b: a // b, "%": lambda a, b: a % b,
             "==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
             "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}


def size_value(rule, players: int, options: dict, lo: int, hi: int) -> int:
    """A size decided at set-up (`count: "num_players + 1"`): the checker allows only numbers,
    num_players, options, arithmetic, comparisons, `and`/`or`/`not`, `a if c else b`, max/min/abs.
    A value outside lo..hi (or a division by zero) is a spec error at the rule's position."""
    def ev(n):
        if isinstance(n, A.Const):
            return n.value
        if isinstance(n, A.Name):
            return players if n.id == "num_players" else options[n.id]
        if isinstance(n, A.BinOp):
            a, b = ev(n.left), ev(n.right)
            if n.op in ("//", "%") and b == 0:
                raise ZeroDivisionError
            return _SIZE_OPS[n.op](a, b)
        if isinstance(n, A.Compare):
            return _SIZE_OPS[n.op](ev(n.left), ev(n.right))
        if isinstance(n, A.BoolOp):
            a = ev(n.left)
            return (a and ev(n.right)) if n.op == "and" else (a or ev(n.right))
        if isinstance(n, A.Unary):
            v = ev(n.operand)
            return -v if n.op == "-" else not v
        if isinstance(n, A.IfExp):
            return ev(n.body) if ev(n.cond) else ev(n.orelse)
        if isinstance(n, A.Call):
            vals = [ev(a) for a in n.args]
            return abs(vals[0]) if n.func == "abs" else (max if n.func == "max" else min)(vals)
        raise AssertionError(n)
    try:
        v = ev(rule.ast)
    except ZeroDivisionError:
        v = None
    if v.__class__ is not int or not lo <= v <= hi:
        raise SpecError(f"this size is {v if v is not None else 'a division by zero'} for {players} players "
                        f"and these options; it must be {lo} to {hi}", rule.filename, rule.line, rule.col,
                        check="size")
    return v
