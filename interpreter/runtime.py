"""The run-time library of compiled rules: every name generated functions and closures call.

This is the ABI of compiled code (docs/runtime.md): the limits, the faults and control-flow exceptions,
the step-budget charges, checked arithmetic, the list built-ins and the card effects (moving, dealing,
shuffling, revealing, marks). Both Python backends (`gamespec/compile/codegen.py`, `closures.py`) call
it; generated functions see it through `NAMES`, the one table of the names they may use. The native
backend's C runtime mirrors it. It imports nothing above the interpreter.
"""
from __future__ import annotations

from gamespec.errors import SpecRuntimeError
from gamespec.mirrors import (INT_LIMIT, MAX_CALL_DEPTH, MAX_CHOICES, MAX_EXPONENT, MAX_LIST,  # noqa: F401
                              MAX_RANGE, MAX_TEXT)

from . import rng
from .actions import Action

# -- limits: one table both engines read (gamespec/mirrors.py, LIMITS), imported above --------


# -- faults and control flow -------------------------------------------------------------
class RuleFault(Exception):
    """A rule did something impossible at run time (division by zero, no such key, budget...)."""


class EndGame(Exception):
    """`end_game()`: the flow stops the game after the current block of effects."""


class EndPhase(Exception):
    """`end_phase()`: the flow leaves the current phase."""


class EndTurn(Exception):
    """`end_turn()`: the flow ends the current turn."""


FAULTS = (RuleFault, ZeroDivisionError, TypeError, KeyError, IndexError, ValueError, OverflowError)


def fault(msg, check="runtime"):
    """Raise a RuleFault; `check` names the check that fired (budget, int-size, type, ...)."""
    e = RuleFault(msg)
    e.check = check
    raise e


def guarded(fn, rule):
    """Wrap a compiled rule so that any fault names the rule and its position in the spec."""
    origin = rule.origin

    def run(s, e):
        try:
            return fn(s, e)
        except (EndGame, EndPhase, EndTurn, SpecRuntimeError):
            raise
        except FAULTS as ex:
            raise SpecRuntimeError(describe(ex), origin, check=getattr(ex, "check", "runtime")) from None
        except RecursionError:
            raise SpecRuntimeError("rule nested too deeply", origin, check="rule-depth") from None
    return run


def numeric(fn, rule, what):
    """A compiled score or tie breaker that must give a number: anything else (none from `first([])`,
    a text or true/false from a value typed only at run time) is a 'type' fault naming the rule, not a
    crash in finish()."""
    if fn is None:
        return None
    origin = rule.origin

    def run(s, e):
        v = fn(s, e)
        if v.__class__ is not int:        # true/false too (docs/language.md: never true/false)
            raise SpecRuntimeError(f"{what} is {_kind(v)}, not a number", origin, check="type")
        return v
    return run


def describe(ex):
    """A fault caught in a rule, in the rule language's words."""
    if isinstance(ex, ZeroDivisionError):
        return "division by zero"
    if isinstance(ex, RuleFault):
        return str(ex)
    if isinstance(ex, KeyError):
        return f"no such key {ex.args[0]!r}" if ex.args else "no such key"
    if isinstance(ex, TypeError):
        return wrong_kind(str(ex))
    if isinstance(ex, IndexError):
        return "index out of range"
    return str(ex) or type(ex).__name__


# Python's words for a TypeError -> the spec's (both backends raise the same TypeErrors)
_PY_KINDS = {"int": "a number", "bool": "true/false", "str": "a text", "NoneType": "none", "list": "a list",
             "tuple": "a list", "dict": "a table"}


_VERBS = {"+": "add", "-": "subtract", "*": "multiply", "//": "divide", "%": "take the remainder of",
          "**": "raise"}


def wrong_kind(msg: str) -> str:
    """A Python TypeError message said in the rule language's terms (e.g. 'cannot add a number and a text')."""
    import re
    kinds = [_PY_KINDS.get(k, "a value") for k in re.findall(r"'([A-Za-z_]+)'", msg)]
    m = re.match(r"unsupported operand type\(s\) for ([^:]+): '(\w+)' and '(\w+)'", msg)
    if m:
        a, b = (_PY_KINDS.get(k, "a value") for k in m.group(2, 3))
        verb = _VERBS.get(m.group(1).strip())
        if verb:
            return f"cannot {verb} {a} and {b}"
        return f"'{m.group(1).strip()}' cannot combine {a} and {b}"
    m = re.match(r"'([<>=!]+)' not supported between instances of '(\w+)' and '(\w+)'", msg)
    if m:
        a, b = (_PY_KINDS.get(k, "a value") for k in m.group(2, 3))
        return f"cannot compare {a} with {b} using '{m.group(1)}'"
    m = re.match(r"bad operand type for unary -: '(\w+)'", msg)
    if m:
        return f"cannot negate {_PY_KINDS.get(m.group(1), 'a value')}"
    m = re.match(r"can only concatenate (\w+) \(not \"(\w+)\"\) to (\w+)", msg)
    if m:
        return f"cannot add {_PY_KINDS.get(m.group(1), 'a value')} and {_PY_KINDS.get(m.group(2), 'a value')}"
    m = re.match(r"can't multiply sequence by non-int of type '(\w+)'", msg)
    if m:
        return f"cannot multiply a list or a text by {_PY_KINDS.get(m.group(1), 'a value')}"
    if "not subscriptable" in msg and kinds:
        return f"{kinds[0]} has no items to take by index"
    if "not iterable" in msg and kinds:
        return f"{kinds[0]} is not a list"
    if ("indices must be integers" in msg or "list indices" in msg) and len(kinds) >= 1:
        return f"a list index is a number, not {kinds[-1]}"
    if "unhashable" in msg:
        return "a list cannot be a key"
    return "a value of the wrong kind (a card or player that is none?)"


def _kind(v):
    """A value's kind in the rule language's words."""
    return _PY_KINDS.get(type(v).__name__, "a value")


def too_big(what, n):
    limit = MAX_TEXT if what == "string" else MAX_LIST
    fault(f"a {what} of {n} {'characters' if what == 'string' else 'items'}; the limit is {limit}",
          "value-size")


def check_of(ex):
    """The check a caught fault names ('runtime' for a plain Python error)."""
    return getattr(ex, "check", "runtime")


def attr_of_none(name):
    """`.NAME` of a card variable that holds none."""
    fault(f"'.{name}' of no card (none)")


# -- the step budget ---------------------------------------------------------------------
def charge(s, xs):
    """Take len(xs) steps from the state's budget; a fault when it runs out."""
    s.budget -= len(xs)
    if s.budget < 0:
        fault("step budget exhausted (a rule visits too many items)", "budget")
    return xs


def charge_more(s, xs, w):
    """Charge w more steps per item (on top of the step each visited item costs)."""
    s.budget -= len(xs) * w
    if s.budget < 0:
        fault("step budget exhausted (a rule visits too many items)", "budget")
    return xs


def tick(s, w=1):
    """One iteration of a `while` loop: w steps (its body's weight)."""
    s.budget -= w
    if s.budget < 0:
        fault("step budget exhausted: this 'while' loop does not end", "budget")


def member_set(s, xs, cell):
    """A list of cards or players as a set, made (and charged) once for the membership tests of
    one level of an enumeration: `cell` keeps it. Unhashable items: the list, charged each time."""
    s.budget -= len(xs)
    if s.budget < 0:
        fault("step budget exhausted (a rule visits too many items)", "budget")
    try:
        cell[0] = r = frozenset(xs)
    except TypeError:
        return xs
    return r


# -- checked arithmetic --------------------------------------------------------------------
def checked_mul(a, b):
    """`*`: numbers stay below 2**63; a string or list repeated is sized BEFORE it is built."""
    if a.__class__ is int and b.__class__ is int:
        if a.bit_length() + b.bit_length() > 63:          # |a*b| < 2**(bits a + bits b): at most 63 bits is below 2**63
            r = a * b          # at most 2 * 64 bits: cheap; checked below
        else:
            return a * b
    else:
        seq, n = (a, b) if isinstance(a, (str, list, tuple)) else (b, a)
        if isinstance(seq, (str, list, tuple)) and isinstance(n, int):
            size = len(seq) * max(n, 0)
            if size > (MAX_TEXT if isinstance(seq, str) else MAX_LIST):
                too_big("string" if isinstance(seq, str) else "list", size)
            return a * b
        if not (isinstance(a, int) and isinstance(b, int)):
            if isinstance(a, (str, list, tuple)) or isinstance(b, (str, list, tuple)):
                fault(f"cannot multiply a list or a text by {_kind(b if isinstance(a, (str, list, tuple)) else a)}",
                      "type")
            fault(f"cannot multiply {_kind(a)} and {_kind(b)}", "type")
        r = a * b
    if not -INT_LIMIT < r < INT_LIMIT:
        fault("integer too large (beyond 2**63)", "int-size")
    return r


def checked_plus(a, b):
    """`+` with a side of unknown type ('any'): two strings or two lists are sized before joining."""
    if isinstance(a, int) and isinstance(b, int):
        return bounded(a + b)
    if isinstance(a, str) and isinstance(b, str):
        if len(a) + len(b) > MAX_TEXT:
            too_big("string", len(a) + len(b))
        return a + b
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        if len(a) + len(b) > MAX_LIST:
            too_big("list", len(a) + len(b))
        return list(a) + list(b)
    fault(f"cannot add {_kind(a)} and {_kind(b)}", "type")


def checked_arith(op, a, b):
    """`-`, `//`, `%` with a side of unknown type: numbers only (`'%9999999d' % 1` formats a string)."""
    if not (isinstance(a, int) and isinstance(b, int)):
        fault(f"cannot {_VERBS[op]} {_kind(a)} and {_kind(b)}", "type")
    if op != "-":
        return a // b if op == "//" else a % b
    r = a - b
    if -INT_LIMIT < r < INT_LIMIT:
        return r
    fault("integer too large (beyond 2**63)", "int-size")


def checked_pow(x, y):
    """`**`: exponents 0 to MAX_EXPONENT, results below 2**63."""
    if y < 0 or y > MAX_EXPONENT:
        fault(f"exponent {y} out of range (0 to {MAX_EXPONENT})", "int-size")
    if abs(x) > INT_LIMIT:
        fault("integer too large (beyond 2**63)", "int-size")
    r = x ** y
    if not -INT_LIMIT < r < INT_LIMIT:
        fault("integer too large (beyond 2**63)", "int-size")
    return r


def bounded(v):
    """The result of `+`, `-` or `sum`: every number a rule computes stays below 2**63 in size (so
    no loop can grow one without end, and the C engine's int64 holds it); `//`, `%`, `abs`, unary
    `-`, `max` and `min` of such numbers cannot leave that range."""
    if v.__class__ is int and not -INT_LIMIT < v < INT_LIMIT:
        fault("integer too large (beyond 2**63)", "int-size")
    return v


def pay(v, amount, origin):
    """An action's cost paid from its number variable; a negative cost may not lift it beyond 2**63
    (the fault names the cost)."""
    r = v - amount
    if not -INT_LIMIT < r < INT_LIMIT:
        raise SpecRuntimeError("integer too large (beyond 2**63)", origin, check="int-size")
    return r


def add(s, a, b, sign):
    """`+=` / `-=` on a number or a card list, charged to the budget and bounded."""
    if isinstance(a, list):
        if sign > 0:
            more = b if isinstance(b, list) else [b]
            if len(a) + len(more) > MAX_LIST:
                fault(f"a list of {len(a) + len(more)} items; the limit is {MAX_LIST}", "budget")
            out = a + more
        else:
            gone = b if isinstance(b, list) else [b]
            out = [x for x in a if x not in gone]
        s.budget -= len(out)
        if s.budget < 0:
            fault("step budget exhausted (a list keeps growing)", "budget")
        return out
    if a.__class__ is not int or b.__class__ is not int:     # a string, or a side typed 'any'
        return bounded(checked_plus(a, b) if sign > 0 else checked_arith("-", a, b))
    return bounded(a + b if sign > 0 else a - b)


# -- lists and the list built-ins -----------------------------------------------------------
def join(s, a, b):
    """`a + b` of two lists: bounded by MAX_LIST, a step per item."""
    if len(a) + len(b) > MAX_LIST:
        too_big("list", len(a) + len(b))
    out = list(a) + list(b)
    s.budget -= len(out)
    return out


def checked_range(s, a, b):
    """`range(a, b)` as a list: at most MAX_RANGE numbers, a step per number."""
    if b - a > MAX_RANGE:
        fault(f"range of {b - a} numbers; the limit is {MAX_RANGE}", "budget")
    s.budget -= max(0, b - a)
    return list(range(a, b))


def numbers(lo, hi, name):
    """The candidate values of a number parameter `lo..hi` (at most MAX_CHOICES)."""
    if hi - lo > MAX_CHOICES:
        fault(f"parameter '{name}' has {hi - lo + 1} values; the limit is {MAX_CHOICES}", "budget")
    return range(lo, hi + 1)


def unique(xs):
    """The candidate values of a parameter, each once, in their first order."""
    return list(dict.fromkeys(xs))


def max_of(xs, name):
    """`max(xs)` / `min(xs)` of a list that must not be empty."""
    if not xs:
        fault(f"{name}() of an empty list; give default=...")
    return max(xs) if name == "max" else min(xs)


def first(xs):
    """`first(xs)`: none for an empty list."""
    return xs[0] if xs else None


def last(xs):
    """`last(xs)`: none for an empty list."""
    return xs[-1] if xs else None


def top_n(cs, m):
    """`top(Z, m)`: the top m cards of a zone, top first."""
    return cs[:-m - 1:-1] if m > 0 else []      # the top m, top first: one slice (m > len: all)


def last_n(xs, k):
    """`last(xs, k)`: the last k items."""
    return list(xs[-k:]) if k > 0 else []


def majority(vals, k, mn, sole):
    """`is_max(vals, k, min=mn)` / `is_sole_max(...)`: vals[k] is the (sole) largest and at least mn."""
    v = vals[k]
    if v < mn:
        return False
    if sole:   # every other value below v: v is the largest and appears once
        return v >= max(vals) and vals.count(v) == 1
    return v >= max(vals)


def dense_rank(vals, i):
    """`dense_rank(vals, i)`: 0 for the largest value, 1 for the next distinct one, ..."""
    return sorted(set(vals), reverse=True).index(vals[i])


def index_of(vals, x):
    """`index_of(vals, x)`: the first position of x, -1 if absent."""
    return vals.index(x) if x in vals else -1


def _key(x):
    return tuple(x) if x.__class__ is list else x   # a list value (an attribute list) as a dict key


def distinct(values):
    """The distinct values of a list, each at its first occurrence (one pass)."""
    seen = {}
    for x in values:
        seen.setdefault(_key(x), x)
    return list(seen.values())


def count_by(values):
    """How many times each value of distinct(values) occurs, in that order (one pass)."""
    out = {}
    for x in values:
        k = _key(x)
        out[k] = out.get(k, 0) + 1
    return list(out.values())


def run_length(values, v):
    """Length of the run of consecutive values through v (0 if v is absent)."""
    have = set(values)
    if v not in have:
        return 0
    lo = v
    while lo - 1 in have:
        lo -= 1
    hi = v
    while hi + 1 in have:
        hi += 1
    return hi - lo + 1


def longest_run(xs):
    """`longest_run(xs)`: the longest run of consecutive numbers among xs."""
    return max((run_length(xs, x) for x in set(xs)), default=0)


def has_repeat(values):
    """any(k >= 2 for k in count_by(values)), without counting: does some value occur twice?"""
    try:
        return len(set(values)) < len(values)
    except TypeError:           # list values (attribute lists): compared as tuples, as count_by does
        return len(set(tuple(x) if x.__class__ is list else x for x in values)) < len(values)


# -- combinatorics (each sized and charged BEFORE it is built) -----------------------------------
def _count_choose(n, k, ordered):
    """C(n, k) (or n!/(n-k)! if ordered), computed no further than MAX_LIST + 1."""
    if k < 0 or k > n:
        return 0
    if not ordered:
        k = min(k, n - k)
    c = 1
    for i in range(k):
        c = c * (n - i) if ordered else c * (n - i) // (i + 1)
        if c > MAX_LIST:
            return MAX_LIST + 1
    return c


def _charge_lists(s, count, items, what):
    """`count` lists of `items` items in all, about to be built: refused when too many, charged first."""
    if count > MAX_LIST:
        fault(f"{what} gives more than {MAX_LIST} lists; the limit is {MAX_LIST}", "value-size")
    s.budget -= count + items
    if s.budget < 0:
        fault("step budget exhausted (a rule visits too many items)", "budget")


def subsets(s, xs):
    """`subsets(xs)`: every sub-list, by size then position (2**n lists, sized before building)."""
    import itertools
    xs = list(xs)
    n = len(xs)
    count = (1 << n) if n <= 20 else MAX_LIST + 1
    _charge_lists(s, count, n * (count // 2) if n <= 20 else 0, f"subsets() of {n} items")
    out = []
    for k in range(n + 1):
        out.extend(list(c) for c in itertools.combinations(xs, k))
    return out


def combinations(s, xs, k):
    """`combinations(xs, k)`: the sub-lists of k items, in order of positions."""
    import itertools
    xs = list(xs)
    if k.__class__ is not int:
        fault(f"combinations(): the number of items is a whole number, not {_shown(k)}", "type")
    count = _count_choose(len(xs), k, False)
    _charge_lists(s, count, count * max(k, 0), f"combinations() of {len(xs)} items, {k} at a time")
    return [list(c) for c in itertools.combinations(xs, k)] if count else []


def permutations(s, xs, k=None):
    """`permutations(xs)`, `permutations(xs, k)`: the orderings of all (or k) items, in
    lexicographic order of positions."""
    import itertools
    xs = list(xs)
    k = len(xs) if k is None else k
    if k.__class__ is not int:
        fault(f"permutations(): the number of items is a whole number, not {_shown(k)}", "type")
    count = _count_choose(len(xs), k, True)
    _charge_lists(s, count, count * max(k, 0), f"permutations() of {len(xs)} items, {k} at a time")
    return [list(c) for c in itertools.permutations(xs, k)] if count else []


def product(s, xs):
    """`product(xs)`: the product of numbers (1 of none), below 2**63; a step per item."""
    charge(s, xs)
    return multiply(xs)


def multiply(xs):
    """The product of numbers (the items of `product(e for x in xs)`, charged as they were made)."""
    r = 1
    for x in xs:
        if x.__class__ is bool:
            x = int(x)
        if x.__class__ is not int:
            fault(f"product() multiplies numbers, not {_kind(x)}", "type")
        r = checked_mul(r, x)
    return r


def runs(s, xs):
    """`runs(xs)`: the maximal runs of consecutive integers among the distinct values, increasing; a
    step per item read, then sized and charged like the other combinatorics before a list is built."""
    charge(s, xs)
    vals = set()
    for x in xs:
        if x.__class__ is not int:
            fault(f"runs() takes whole numbers, not {_kind(x)}", "type")
        vals.add(x)
    vals = sorted(vals)
    n = len(vals)
    count = 0               # one run per gap, counted before any is built
    prev = None
    for v in vals:
        if v - 1 != prev:
            count += 1
        prev = v
    if count > MAX_LIST:
        _charge_lists(s, count, n, f"runs() of {n} distinct values")
    s.budget -= count + n           # (inline: runs of a hand are made often)
    if s.budget < 0:
        fault("step budget exhausted (a rule visits too many items)", "budget")
    out = []
    for v in vals:
        if out and out[-1][-1] == v - 1:
            out[-1].append(v)
        else:
            out.append([v])
    return out


def best_by(pairs, name, default=None, has_default=False):
    """`max(e for x in xs, key=k)` / `min(...)`: pairs (key, item); the first item with the greatest
    (least) key."""
    if not pairs:
        if has_default:
            return default
        fault(f"{name}() of nothing; give default=...")
    best = pairs[0]
    if name == "max":
        for p in pairs:
            if p[0] > best[0]:
                best = p
    else:
        for p in pairs:
            if p[0] < best[0]:
                best = p
    return best[1]


def sorted_by(pairs):
    """`sorted(e for x in xs, key=k)`: the items by key, equal keys in their order (stable)."""
    return [x for _, x in sorted(pairs, key=_first_of)]


def _first_of(p):
    return p[0]


# -- functions (docs/language.md, Functions) ---------------------------------------------------
# MAX_CALL_DEPTH (gamespec/mirrors.py): calls of spec functions nested (recursion included)


def enter_call(s, depth, w):
    """A call of a spec function at this depth (1 for a call from a rule): bounded, and w steps."""
    if depth > MAX_CALL_DEPTH:
        fault(f"functions nested more than {MAX_CALL_DEPTH} calls deep (a recursion that does not end?)",
              "call-depth")
    s.budget -= w
    if s.budget < 0:
        fault("step budget exhausted (a function keeps calling)", "budget")


class Return(Exception):
    """`return v` in a function compiled as closures (generated functions use Python's return)."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


# -- teams ----------------------------------------------------------------------------------------
def team_index(t, T):
    """A team number used as an index: 0 .. T-1."""
    if t.__class__ is not int or not 0 <= t < T:
        fault(f"no team {_shown(t)} (teams are 0 to {T - 1})")
    return t


# -- card effects ------------------------------------------------------------------------
def move_card(s, c, dst, face=0, bottom=False):
    """Move card c onto zone dst; players who could see it and no longer can remember it, and
    players who could not see the set it was taken from, and do not see the card where it lands,
    lose track of it and of the set's other cards."""
    s.budget -= 1          # every card moved is a step: no loop can shuffle cards about forever
    if s.budget < 0:
        fault("step budget exhausted: cards keep moving", "budget")
    loc = s.loc
    z = s.z
    src = loc[c]
    cs = z[src]
    if cs[-1] == c:        # c is in its zone, so the zone is not empty
        cs.pop()
    else:
        cs.remove(c)
    if bottom:
        z[dst].insert(0, c)
    else:
        z[dst].append(c)
    loc[c] = dst
    ps = s.poss
    if ps[src] & ~ps[dst]:      # the zone may now hold cards from where src's came from
        s.poss = ps[:dst] + (ps[dst] | ps[src],) + ps[dst + 1:]
    rs = s.rs
    vis = rs.zvis
    sface = s.face
    if sface or face:      # a face-up or face-down card shows what its face says, not its zone
        f = sface.pop(c, 0) if sface else 0
        old = vis[src] if f == 0 else (rs.ALL if f == 1 else 0)
        if face:
            sface[c] = face
            new = rs.ALL if face == 1 else 0
        else:
            new = vis[dst]
        blind = rs.ALL & ~old & ~new if src in rs.set_zones else 0
    else:
        old = vis[src]
        new = vis[dst]
        blind = rs.set_blind[src] & ~new
    if blind:
        lose_track(s, c, cs, blind)
    lost = old & ~new
    if lost:
        s.kn[c] |= lost


def lose_track(s, c, cs, blind):
    """Card c was taken out of an unordered zone, now holding cs, that the players in `blind` cannot
    see and do not see it land: they cannot tell which card left, so they can follow neither it nor
    the ones that stay (no inference by elimination); a player who sees the card land knows which
    card left: the rest stay known to them."""
    keep = ~blind
    kn = s.kn
    kn[c] &= keep
    if any(map(kn.__getitem__, cs)):     # usually nobody knows any of them: a C-level check
        for x in cs:
            kn[x] &= keep


def move_public(s, c, dst):
    """move_card(s, c, dst) onto a zone every player sees (face unchanged): nobody loses track of
    c (they see where it lands) and nobody is left blind to which card left a set (they see it).
    (Fused functions write moves out inline, CodeGen._inline_move; the rule functions call these.)"""
    if s.face:
        return move_card(s, c, dst)
    s.budget -= 1
    if s.budget < 0:
        fault("step budget exhausted: cards keep moving", "budget")
    loc = s.loc
    z = s.z
    src = loc[c]
    cs = z[src]
    if cs[-1] == c:
        cs.pop()
    else:
        cs.remove(c)
    z[dst].append(c)
    loc[c] = dst
    ps = s.poss
    if ps[src] & ~ps[dst]:
        widen(s, src, dst)


def move_plain(s, c, dst):
    """move_card(s, c, dst) face unchanged, on top, onto a zone not every player sees (no face
    turned anywhere: the short way). Its first half is move_public's on purpose: a call between them
    costs more than the branches this saves."""
    if s.face:
        return move_card(s, c, dst)
    s.budget -= 1
    if s.budget < 0:
        fault("step budget exhausted: cards keep moving", "budget")
    loc = s.loc
    z = s.z
    src = loc[c]
    cs = z[src]
    if cs[-1] == c:
        cs.pop()
    else:
        cs.remove(c)
    z[dst].append(c)
    loc[c] = dst
    ps = s.poss
    if ps[src] & ~ps[dst]:
        widen(s, src, dst)
    rs = s.rs
    vis = rs.zvis
    new = vis[dst]
    blind = rs.set_blind[src] & ~new
    if blind:
        lose_track(s, c, cs, blind)
    lost = vis[src] & ~new
    if lost:
        s.kn[c] |= lost


def widen(s, src, dst):
    """Zone dst may now hold cards from where src's came from (the possibility sets, see move_card)."""
    ps = s.poss
    s.poss = ps[:dst] + (ps[dst] | ps[src],) + ps[dst + 1:]


def deal(s, src, dst, n, face=0):
    """Move n cards from the top of src; an empty src does what its zone declares (on_empty)."""
    z = s.z
    cs = z[src]
    if 0 < n <= len(cs) and n <= s.budget and not face and not s.face and src != dst:
        # no refill, no face, the budget suffices: the n moves at once, the same outcome
        s.budget -= n
        tail = cs[-n:]
        del cs[-n:]
        tail.reverse()
        z[dst] += tail
        loc = s.loc
        for c in tail:
            loc[c] = dst
        ps = s.poss
        if ps[src] & ~ps[dst]:
            s.poss = ps[:dst] + (ps[dst] | ps[src],) + ps[dst + 1:]
        rs = s.rs
        new = rs.zvis[dst]
        blind = rs.set_blind[src] & ~new
        kn = s.kn
        if blind:       # as move_card: the moved cards and the ones left behind
            keep = ~blind
            for c in tail:
                kn[c] &= keep
            if any(map(kn.__getitem__, cs)):
                for x in cs:
                    kn[x] &= keep
        lost = rs.zvis[src] & ~new
        if lost:
            for c in tail:
                kn[c] |= lost
        return
    for _ in range(n):
        if not z[src]:
            refill = s.rs.refill.get(src)
            if refill is None:
                if src in s.rs.stop_when_empty:
                    return
                fault(f"deal from the empty zone '{s.rs.zone_label[src]}' (declare on_empty: stop, "
                      "or on_empty: {refill_from: ZONE}, to allow it)", "empty-zone")
            r, shuffle_it = refill
            for c in list(z[r]):
                move_card(s, c, src)
            if shuffle_it:
                shuffle(s, src)
            if not z[src]:
                if src in s.rs.stop_when_empty:
                    return
                fault(f"deal from the empty zone '{s.rs.zone_label[src]}' after refilling it from "
                      f"'{s.rs.zone_label[r]}'", "empty-zone")
        move_card(s, z[src][-1], dst, face)


def shuffle(s, zi):
    cs = s.z[zi]
    if s.script is not None:   # replaying a log: the order comes from the log, not the RNG
        order = s.script.next_shuffle(s, zi)
        cs[:] = order
    else:
        s.rng = rng.SHUFFLES[s.gen](s.rng, cs)
    s.shuffles += 1       # apply() checks whether a decision's effect shuffled
    kn = s.kn
    w = s.watch
    if w is not None:     # a decision's chosen cards: who was shown them during its effect stays known
        watched_shuffle(s, zi, w)
    if any(map(kn.__getitem__, cs)):    # nobody can follow a card through a shuffle (often nobody did)
        for c in cs:
            kn[c] = 0
    if s.rs.mark_reset:   # marks declared reset_on_shuffle go back to their initial value
        for m, init in s.rs.mark_reset:
            col = s.mk[m]
            for c in cs:
                col[c] = init
    if s.log is not None:
        s.log.append({"type": "chance", "event": "shuffle", "zone": s.rs.zone_label[zi],
                      "order": list(cs)})


def watched_shuffle(s, zi, w):
    """Zone zi is about to be shuffled while the chosen cards `w` (State._watching) are watched: each of
    them lying there was shown, during the effect, to whoever sees it there or has come to know it
    since it was chosen (a card proved, then shuffled back)."""
    cards, kn0, gained = w[0], w[1], w[2]
    loc, kn = s.loc, s.kn
    for i, c in enumerate(cards):
        if loc[c] == zi:
            gained[i] |= (kn[c] & ~kn0[i]) | s._sight(c)


def reveal(s, cards, p):
    bit = 1 << p
    for c in cards:
        s.kn[c] |= bit
    if cards:
        s.hist = (("r", p, tuple(cards)), s.hist)
        if s.log is not None:
            s.log.append({"type": "look", "player": p, "cards": list(cards)})


def get_mark(s, c, m):
    """The value of mark number m on card c."""
    if c is None:
        fault("mark: there is no card (none)")
    return s.mk[m][c]


def set_mark(s, cards, m, v):
    """Set mark number m to v on each card of `cards`; the value is checked against the declared type
    (a value typed only at run time, an item of a mixed list, may be wrong)."""
    decl = s.rs.mark_decl[m]
    if decl.type == "bool":
        if v.__class__ is not bool:
            fault(f"set_mark: mark '{decl.name}' is true or false, not {_shown(v)}")
    else:
        if v.__class__ is bool:
            v = int(v)
        elif v.__class__ is not int:
            fault(f"set_mark: mark '{decl.name}' is a number, not {_shown(v)}")
        if not -INT_LIMIT < v < INT_LIMIT:
            fault("integer too large (beyond 2**63)", "int-size")
    s.budget -= len(cards)      # a step per card, as for moving: no loop marks cards forever
    if s.budget < 0:
        fault("step budget exhausted: cards keep being marked", "budget")
    col = s.mk[m]
    for c in cards:
        if c is None:
            fault("set_mark: there is no card (none)")
        col[c] = v


def _shown(v):
    return "none" if v is None else ("a text" if isinstance(v, str) else "a list" if isinstance(v, list)
                                     else repr(v)[:40])


# -- the flow ------------------------------------------------------------------------------
def pending_choices(s):
    """The stored choices of the simultaneous step under way: the secret events on top of the
    history, in the order they were made (a step's reveal always records something above them)."""
    evs = []
    h = s.hist
    while h is not None and h[0][0] == "s":
        evs.append(h[0])
        h = h[1]
    evs.reverse()
    return evs


def secret_choice(actor, a, n):
    """A simultaneous step's choice as (history event, log line): only the chooser sees its cards
    (those they could tell apart when choosing); the others see that they chose."""
    me = 1 << actor
    info = ()
    rt = a[4]
    if rt is not None and rt.card_params:
        out = []
        for i, single in rt.card_params:
            b, f = a[2][i], a[3][i]
            if single:
                out.append((i, (b,), (me if f is not None else 0,)))
            else:
                out.append((i, tuple(b), tuple(me if x is not None else 0 for x in (f or (None,) * len(b)))))
        info = tuple(out)
    return (("s", actor, a[0], a[1], info),
            {"type": "decision", "n": n, "player": actor, "action": Action.to_json(a, label=False), "_cards": info,
             "secret": True})


# -- the names generated code sees --------------------------------------------------------
SAFE_BUILTINS = {"len": len, "sum": sum, "max": max, "min": min, "any": any, "all": all, "list": list,
                  "range": range, "enumerate": enumerate, "sorted": sorted, "abs": abs, "set": set,
                  "iter": iter, "next": next, "bool": bool, "isinstance": isinstance, "int": int,
                  "tuple": tuple, "filter": filter, "map": map}


#: Every name a generated function may use besides SAFE_BUILTINS and its own constants (`K<n>`),
#: with what it is bound to: the generated source names these and nothing else of the engine.
NAMES = {
    # faults and control flow
    "_fault": fault, "_FAULTS": FAULTS, "_SRE": SpecRuntimeError, "_describe": describe, "_check_of": check_of,
    "_CTRL": (EndGame, EndPhase, EndTurn, SpecRuntimeError), "_RecursionError": RecursionError,
    "EndGame": EndGame, "EndPhase": EndPhase, "EndTurn": EndTurn,
    # the step budget
    "_charge": charge, "_charge_w": charge_more, "_tick": tick, "_mset": member_set,
    # checked arithmetic
    "_mul": checked_mul, "_pow": checked_pow, "_add": add, "_bounded": bounded, "_pay": pay,
    # lists and the list built-ins
    "_join": join, "_range": checked_range, "_numbers": numbers, "_unique": unique, "_maxof": max_of,
    "_first": first, "_last": last, "_topn": top_n, "_lastn": last_n, "_majority": majority,
    "_dense_rank": dense_rank, "_index_of": index_of, "_run_length": run_length, "_distinct": distinct,
    "_count_by": count_by, "_longest_run": longest_run, "_has_repeat": has_repeat,
    # combinatorics, functions, teams
    "_subsets": subsets, "_combinations": combinations, "_permutations": permutations, "_product": product, "_multiply": multiply,
    "_runs": runs, "_best_by": best_by, "_sorted_by": sorted_by, "_enter": enter_call, "_team": team_index,
    # card effects
    "_move": move_card, "_lose_track": lose_track, "_widen": widen, "_move_pub": move_public,
    "_move_plain": move_plain, "_deal": deal, "_shuffle": shuffle, "_reveal": reveal,
    "_getmark": get_mark, "_setmark": set_mark,
}
