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


def team_list(rule, players: int, options: dict) -> list:
    """The top-level `teams` rule for every seat: [team of seat 0, ...], the teams 0 .. T-1 each used,
    or a SpecError at the rule's position."""
    out = []
    for p in range(players):
        try:
            v = _value(rule.ast, players, options, {"p": p})
        except ZeroDivisionError:
            v = None
        if v.__class__ is not int or not 0 <= v < players:
            raise SpecError(f"the team of player {p} is {v if v is not None else 'a division by zero'} for "
                            f"{players} players and these options; a team is a number from 0 to "
                            f"{players - 1}", rule.filename, rule.line, rule.col, check="teams")
        out.append(v)
    missing = sorted(set(range(max(out) + 1)) - set(out))
    if missing:
        raise SpecError(f"no player is in team {missing[0]} for {players} players and these options; the "
                        f"teams are numbered 0, 1, ... with no gap (teams: {sorted(set(out))})",
                        rule.filename, rule.line, rule.col, check="teams")
    return out


def _value(node, players, options, names):
    def ev(n):
        if isinstance(n, A.Const):
            return n.value
        if isinstance(n, A.Name):
            if n.id in names:
                return names[n.id]
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
    return ev(node)


def size_value(rule, players: int, options: dict, lo: int, hi: int) -> int:
    """A size decided at set-up (`count: "num_players + 1"`): the checker allows only numbers,
    num_players, options, arithmetic, comparisons, `and`/`or`/`not`, `a if c else b`, max/min/abs.
    A value outside lo..hi (or a division by zero) is a spec error at the rule's position."""
    try:
        v = _value(rule.ast, players, options, {})
    except ZeroDivisionError:
        v = None
    if v.__class__ is not int or not lo <= v <= hi:
        raise SpecError(f"this size is {v if v is not None else 'a division by zero'} for {players} players "
                        f"and these options; it must be {lo} to {hi}", rule.filename, rule.line, rule.col,
                        check="size")
    return v
