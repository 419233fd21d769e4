"""Size rules (`count: "num_players + 1"`, a family's `count`) + players + options → the number they
decide at set-up, or a SpecError at the rule's position. The checker tries every player count and
option set; the compile stage lays out zones and cards with the same function. Also a card label's
`{expression}` over one face's attributes (`card_label_text`), evaluated here for every face at
validate time and again by the compile stage, so it can never fail while a game runs."""
from __future__ import annotations

from ..errors import SpecError
from ..mirrors import MAX_CARDS    # noqa: F401  cards of a game, counts included: checked statically and per set-up
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


MAX_LABEL_NUMBER = 10 ** 18      # a card label's arithmetic stays in this range (strangers' specs)
MAX_LABEL_SHOWN = 100            # characters one placeholder may show (as in an action label)
_LABEL_ARITH = ("+", "-", "*", "//", "%")
_LABEL_CALLS = ("abs", "max", "min")


class LabelValueError(ValueError):
    """A card label's expression that cannot be computed for a face (the message says why)."""


def card_label_text(node, attrs: dict) -> str:
    """The text a card label's `{expression}` shows for a face with attributes `attrs` (its `type`
    included): literals, attributes, arithmetic on whole numbers, comparisons, `and`/`or`/`not`,
    `a if c else b`, abs/max/min; a truth value shows as true/false, a list joined with '-'.
    LabelValueError when it cannot be computed."""
    def ev(n):
        if isinstance(n, A.Const):
            return n.value
        if isinstance(n, A.Name):
            if n.id not in attrs:
                raise LabelValueError(f"this card has no attribute '{n.id}'")
            v = attrs[n.id]
            return tuple(v) if isinstance(v, list) else v
        if isinstance(n, A.BinOp):
            a, b = ev(n.left), ev(n.right)
            if n.op not in _LABEL_ARITH or not (_whole(a) and _whole(b)):
                raise LabelValueError(f"'{n.op}' takes two whole numbers here")
            if n.op in ("//", "%") and b == 0:
                raise LabelValueError("a division by zero")
            v = _SIZE_OPS[n.op](a, b)
            if abs(v) > MAX_LABEL_NUMBER:
                raise LabelValueError(f"a number beyond {MAX_LABEL_NUMBER}")
            return v
        if isinstance(n, A.Compare):
            a, b = ev(n.left), ev(n.right)
            if n.op in ("in", "not in"):
                if not isinstance(b, tuple):
                    raise LabelValueError(f"'{n.op}' needs a list on its right")
                return (a in b) == (n.op == "in")
            if n.op not in _SIZE_OPS:
                raise LabelValueError(f"'{n.op}' is not allowed in a card label")
            try:
                return _SIZE_OPS[n.op](a, b)
            except TypeError:
                raise LabelValueError(f"'{n.op}' compares {_kind(a)} with {_kind(b)}") from None
        if isinstance(n, A.BoolOp):
            a = ev(n.left)
            return (a and ev(n.right)) if n.op == "and" else (a or ev(n.right))
        if isinstance(n, A.Unary):
            v = ev(n.operand)
            if n.op == "-":
                if not _whole(v):
                    raise LabelValueError("'-' takes a whole number")
                return -v
            return not v
        if isinstance(n, A.IfExp):
            return ev(n.body) if ev(n.cond) else ev(n.orelse)
        if isinstance(n, A.Call) and n.func in _LABEL_CALLS and n.args and not n.kwargs:
            vals = [ev(a) for a in n.args]
            if not all(_whole(v) for v in vals) or (n.func == "abs" and len(vals) != 1):
                raise LabelValueError(f"{n.func}() takes whole numbers here")
            return abs(vals[0]) if n.func == "abs" else (max if n.func == "max" else min)(vals)
        raise LabelValueError(f"{_what(n)} is not allowed in a card label (literals, attributes, arithmetic, "
                              f"comparisons, and/or/not, 'a if c else b', abs/max/min)")
    return shown_text(ev(node))


def shown_text(v) -> str:
    """A value as a label shows it: true/false, none, a list joined with '-', capped in length."""
    if isinstance(v, bool):
        text = "true" if v else "false"
    elif v is None:
        text = "none"
    elif isinstance(v, (list, tuple)):
        text = "-".join(shown_text(x) for x in v)
    else:
        text = str(v)
    return text if len(text) <= MAX_LABEL_SHOWN else text[:MAX_LABEL_SHOWN - 3] + "..."


def _whole(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _kind(v):
    return ("a truth value" if isinstance(v, bool) else "a number" if isinstance(v, int) else
            "a text" if isinstance(v, str) else "a list" if isinstance(v, tuple) else "none")


def _what(n):
    return {"Call": f"{getattr(n, 'func', '')}()", "Attr": "an attribute of a value (x.y)",
            "Index": "indexing (x[i])", "ListLit": "a list", "Comp": "a comprehension"}.get(
                type(n).__name__, type(n).__name__)
