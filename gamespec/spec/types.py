"""Parsed rules + the declared names → the same rules with every name resolved and every expression
and statement typed: the type-checking half of the checker (`structure.py` reads the declarations).

Kinds: int bool str none card player zone cards players list any (a player fits int; cards and players
fit list). Defines are inlined where they are used (bounded: MAX_INLINE_NODES), named effects where they
are called; every error is reported at its position, with a did-you-mean where one is close.
"""
from __future__ import annotations

import contextlib
import copy

from ..errors import SpecError
from ..mirrors import INT_LIMIT
from . import ast as A
from .builtins import ALIASES, BUILTINS, CONSTANTS
from .parser import MAX_RULE_DEPTH
from .suggest import suggest

# ---- types ------------------------------------------------------------------------------
# int bool str none card player zone cards players list any   (player fits int; cards/players fit list)
LISTS = {"cards", "players", "list"}


ELEM = {"cards": "card", "players": "player", "list": "any", "zone": "card"}


def fits(actual: str, expected: str) -> bool:
    if expected == "any" or actual == "any" or actual == expected:
        return True
    if expected == "int":
        return actual in ("player", "bool")
    if expected == "player":
        return actual == "int"
    if expected in ("list", "values"):     # values: a choice's list (not of cards: checked apart)
        return actual in LISTS or actual == "zone"
    if expected == "cards":
        return actual in ("zone", "list")
    if expected == "bool":
        return True  # every value has a truth value; conditions accept anything
    return False


def list_of(elem: str) -> str:
    return {"card": "cards", "player": "players"}.get(elem, "list")


#: what a call of a spec's function that shadows a built-in (a function `runs`) is renamed to once
#: checked: stages that dispatch on a call's name never mistake it for the built-in (n.fn names it)
SHADOWING = "fn:"


# INT_LIMIT (gamespec/mirrors.py): the engines' number range, |n| < 2**63


# What each kind is called in messages: the spec's words, never Python's.
KIND_WORDS = {"int": "a number", "bool": "true/false", "str": "a text", "none": "none", "card": "a card",
              "player": "a player", "zone": "a zone", "family": "a zone family", "cards": "a list of cards",
              "players": "a list of players", "list": "a list", "any": "a value"}


# Kinds that can be compared with '==' (a number and a player are both numbers; so is a truth value:
# both engines hold true/false as 1/0, so `0 == false` is true); none and any match all.
_SORT = {"int": "number", "player": "number", "bool": "number", "str": "text", "card": "card",
         "cards": "list", "players": "list", "list": "list", "zone": "zone", "family": "family"}


def words(t: str) -> str:
    return KIND_WORDS.get(t, t)


def _plural(t: str) -> str:
    return {"int": "numbers", "bool": "true/false values", "str": "texts", "card": "cards",
            "player": "players", "none": "nones"}.get(t, "values")


def comparable(a: str, b: str) -> bool:
    if "any" in (a, b) or "none" in (a, b):
        return True
    return _SORT.get(a, a) == _SORT.get(b, b)


def elem_type(node, t: str) -> str:
    """The kind of the items of a list-valued node: from its kind, or what the checker noted on it."""
    if t == "list":
        return getattr(node, "elem", "any")
    return ELEM.get(t, "any")


def card_like(node, t: str) -> bool:
    """A card, a list of cards or a zone: what moving, revealing or choosing a card needs."""
    if t in ("card", "cards", "zone", "any"):
        return True
    return t == "list" and elem_type(node, t) in ("card", "any", "none")


def assignable(vt: str, var_type: str, node) -> bool:
    """Whether a value of kind `vt` may be stored in a variable declared `var_type`."""
    if vt == "any":
        return True
    if var_type == "int":
        return vt in ("int", "player")
    if var_type == "player":
        return vt in ("player", "int", "none")
    if var_type == "card":
        return vt in ("card", "none")
    if var_type == "cards":
        return card_like(node, vt) and vt != "card"
    if var_type == "list":
        return vt in LISTS or vt == "zone"
    return vt == var_type      # bool, str


def out_of_range(v) -> bool:
    """A number (anywhere inside a value) that the engine cannot hold."""
    stack = [v]
    while stack:
        x = stack.pop()
        if isinstance(x, (list, tuple)):
            stack.extend(x)
        elif isinstance(x, dict):
            stack.extend(x.values())
        elif type(x) is int and not -INT_LIMIT < x < INT_LIMIT:
            return True
    return False


MAX_INLINE_NODES_RULE = 50_000    # nodes one rule may grow to by inlining defines ("rule-size")


MAX_INLINE_NODES = 300_000        # nodes all rules of a spec may grow by, together ("rule-size")


MAX_EXPR_DEPTH = 2 * MAX_RULE_DEPTH   # an expression, defines inlined, is no deeper than one written out


MAX_EXPR_BRACKETS = MAX_RULE_DEPTH    # ... and has no more nested brackets ("rule-depth")


MAX_LOOP_NESTING = 12             # for/while statements inside each other ("rule-depth")


class Scope:
    def __init__(self, names: dict | None = None, parent: "Scope | None" = None):
        self.names = dict(names or {})
        self.parent = parent

    def get(self, name):
        s = self
        while s is not None:
            if name in s.names:
                return s.names[name]
            s = s.parent
        return None

    def all(self):
        s, out = self, set()
        while s is not None:
            out |= set(s.names)
            s = s.parent
        return out

    def child(self, names=None):
        return Scope(names, self)


class _Abort(Exception):
    pass


class TypeChecker:
    """Resolves names and checks kinds in rules; errors go to `self.errors` (a SpecError each). The
    declarations it checks against (variables, zones, marks, tables, defines, named effects, globals)
    are read by `structure.Checker`, its subclass."""

    # -- positions and errors
    def hint(self, name, candidates) -> str:
        return suggest(name, candidates, self._suggest_budget)

    def err(self, msg, pos, check="check"):
        # a define's body is checked at each use: one mistake in it is still one error
        if any(e.line == pos[0] and e.col == pos[1] and e.message == msg for e in self.errors[-50:]):
            return
        self.errors.append(SpecError(msg, self.filename, pos[0], pos[1], check=check))

    def check_rule(self, r, scope, expect="any"):
        """`expect`: a kind, or 'number' (a whole number, never true/false: scores, bounds, costs)."""
        self._inlined_rule = 0
        try:
            r.ast, t = self.expr(r.ast, scope)
            if expect == "number":
                if t not in ("int", "player", "any"):
                    self.err(f"this should be a number, but it is {words(t)}", (r.ast.line, r.ast.col), "type")
            elif expect == "cards" and not card_like(r.ast, t):
                self.err(f"this should be cards (a zone or a list of cards), but it is "
                         f"{self.described(r.ast, t)}",
                         (r.ast.line, r.ast.col), "type")
            elif not fits(t, expect):
                self.err(f"this should be {words(expect)}, but it is {words(t)}", (r.ast.line, r.ast.col), "type")
            elif expect == "values" and t in ("zone", "cards"):   # the values are shown as they are
                self.err("a choice among cards would name them by engine id; take cards with 'from:'",
                         (r.ast.line, r.ast.col), "type")
        except _Abort:
            pass

    def fail(self, node, msg, check="name"):
        self.err(msg, (node.line, node.col), check)
        raise _Abort()

    def stmts(self, stmts, scope):
        out = []
        for s in stmts:
            try:
                out.append(self.stmt(s, scope))
            except _Abort:
                pass
        return out

    def stmt(self, s, scope):
        if isinstance(s, A.Return):
            if not self._fn_stack:
                self.fail(s, "'return' belongs in a function's body (functions:); effects end at their last "
                             "statement", "type")
            s.value, t = self.expr(s.value, scope)
            if t == "family":
                self.fail(s.value, "a zone family is not a value; return one of its zones", "type")
            self._returns[-1].append((t, elem_type(s.value, t) if t in LISTS or t == "zone" else "any", s))
            return s
        if isinstance(s, A.Let):
            if s.name in self.globals or s.name in CONSTANTS:
                self.fail(s, f"'{s.name}' is already a global name; pick another")
            s.value, t = self.expr(s.value, scope)
            scope.names[s.name] = t
            return s
        if isinstance(s, A.Assign):
            s.value, vt = self.expr(s.value, scope)
            tgt = s.target
            if isinstance(tgt, A.Name):
                if scope.get(tgt.id) is not None and tgt.id not in CONSTANTS:
                    tgt.ref = ("local", tgt.id)
                    return s
                if self._fn_stack and tgt.id in self.variables:
                    self.fail(tgt, f"a function cannot change the game's variables ('{tgt.id}' is one): return "
                                   "the value and let an effect store it", "type")
                v = self.variables.get(tgt.id)
                if v is None:
                    self.fail(tgt, self.not_assignable(tgt.id, scope))
                if v.per_player:
                    self.fail(tgt, f"'{tgt.id}' is per player; write {tgt.id}[player]", "type")
                if v.per_team:
                    self.fail(tgt, f"'{tgt.id}' is per team; write {tgt.id}[team(player)]", "type")
                tgt.ref = ("var", v)
            else:
                if self._fn_stack and tgt.obj.id in self.variables:
                    self.fail(tgt, f"a function cannot change the game's variables ('{tgt.obj.id}' is one): "
                                   "return the value and let an effect store it", "type")
                v = self.variables.get(tgt.obj.id)
                if v is None:
                    self.fail(tgt, self.not_assignable(tgt.obj.id, scope))
                if not (v.per_player or v.per_team):
                    self.fail(tgt, f"'{v.name}' is not per player; write {v.name} = ...", "type")
                tgt.index, it = self.expr(tgt.index, scope)
                if v.per_team and (not fits(it, "int") or it == "bool"):
                    self.fail(tgt.index, f"'{v.name}' is per team; its index is a team number, not {words(it)}",
                              "type")
                tgt.ref = ("tvar" if v.per_team else "pvar", v)
            if s.op != "=" and v.type not in ("int", "list", "cards", "player"):
                self.fail(s, f"'{s.op}' needs a number variable; '{v.name}' is {v.type}", "type")
            self.check_store(s, v, vt)
            return s
        if isinstance(s, A.CallStmt):
            c = s.call
            if self._fn_stack:
                self.fail(c, f"a function computes a value and has no effects: '{c.func}(...)' belongs in an "
                             "effect or a named effect (effects:)", "type")
            if c.func in self.named_effects:
                return self.inline_effect(c, scope)
            if c.func in self.broken_effects:
                raise _Abort()      # its own error is reported where it is defined
            if c.func in self.defines or c.func in self.functions:
                what = "define" if c.func in self.defines else "function"
                self.fail(c, f"'{c.func}(...)' is this spec's {what}, a value, not an effect; use it inside a "
                             "statement", "type")
            if c.func not in BUILTINS or not BUILTINS[c.func].statement:
                if c.func in BUILTINS:
                    self.fail(c, f"'{c.func}(...)' is a value, not an effect; use it inside a statement")
                self.fail(c, f"unknown effect '{c.func}'"
                             f"{self.hint(c.func, [k for k, v in BUILTINS.items() if v.statement] + list(self.named_effects))}")
            s.call, _ = self.call(c, scope, statement=True)
            return s
        if isinstance(s, A.If):
            s.branches = [(self.expr(c, scope)[0], self.stmts(b, scope.child())) for c, b in s.branches]
            s.orelse = self.stmts(s.orelse, scope.child())
            return s
        if isinstance(s, A.For):
            s.iter, t = self.expr(s.iter, scope)
            if not fits(t, "list"):
                self.fail(s.iter, f"'for' needs a list or a zone, this is {t}", "type")
            with self._loop(s):
                s.body = self.stmts(s.body, scope.child({s.var: elem_type(s.iter, t)}))
            return s
        if isinstance(s, A.While):
            s.cond, _ = self.expr(s.cond, scope)
            with self._loop(s):
                s.body = self.stmts(s.body, scope.child())
            return s
        self.fail(s, "unsupported statement")

    def check_store(self, s, v, vt):
        """The value of an assignment fits the variable's declared type ('+=' adds to it)."""
        if s.op != "=" and v.type in ("int", "player"):
            if vt not in ("int", "player", "any"):
                self.fail(s.value, f"'{s.op}' on the number variable '{v.name}' needs a number, but this is "
                                   f"{words(vt)}", "type")
            return
        if s.op != "=":   # list or cards: add or remove one item or a list of them
            if v.type == "cards" and not card_like(s.value, vt):
                self.fail(s.value, f"'{s.op}' on the card list '{v.name}' needs cards, but this is "
                                   f"{self.described(s.value, vt)}", "type")
            return
        if not assignable(vt, v.type, s.value):
            self.fail(s.value, f"'{v.name}' holds {words(v.type) if v.type != 'cards' else 'a list of cards'}; "
                               f"it cannot be given {self.described(s.value, vt)}", "type")

    def described(self, node, t):
        if t == "list" and elem_type(node, t) != "any":
            return f"a list of {_plural(elem_type(node, t))}"
        return words(t)

    def not_assignable(self, name, scope):
        if name in self.defines or name in self.broken_defines:
            return (f"'{name}' is a define (a named expression); only variables can be assigned: declare "
                    f"it under variables:")
        kind = self.globals.get(name) or ("built-in name" if name in CONSTANTS else None)
        if kind is not None:
            return f"'{name}' is a {kind}; only variables can be assigned"
        return self.unknown_msg(name, scope, "variable")

    @contextlib.contextmanager
    def _loop(self, s):
        self._loops += 1
        try:
            if self._loops > MAX_LOOP_NESTING:
                self.fail(s, f"loops nested more than {MAX_LOOP_NESTING} deep", "rule-depth")
            yield
        finally:
            self._loops -= 1

    def unknown_msg(self, name, scope, what="name"):
        cands = set(self.globals) | scope.all() | set(self.defines)
        return f"unknown {what} '{name}'{self.hint(name, cands)}"

    def expr(self, n, scope):
        """Returns (node, type); annotates n.t and, for names, n.ref."""
        # Depth as the parser counts it (a `sum(x for ...)` is one level, not two), defines inlined:
        # an expression never gets deeper than one written out, whatever its defines do.
        deep = not (isinstance(n, A.Comp) and n.gen)
        br = deep and isinstance(n, (A.Call, A.Index, A.ListLit, A.Comp))
        self._depth += deep
        self._brackets += br
        try:
            if self._depth > MAX_EXPR_DEPTH or self._brackets > MAX_EXPR_BRACKETS:
                what = f"{MAX_EXPR_DEPTH} levels" if self._depth > MAX_EXPR_DEPTH else \
                    f"{MAX_EXPR_BRACKETS} brackets"
                self.fail(n, f"expression nested more than {what} deep once its defines are inlined",
                          "rule-depth")
            node, t = self._expr(n, scope)
        finally:
            self._depth -= deep
            self._brackets -= br
        node.t = t
        return node, t

    def _expr(self, n, scope):
        if isinstance(n, A.Const):
            v = n.value
            return n, ("none" if v is None else "bool" if isinstance(v, bool) else
                       "int" if isinstance(v, int) else "str")
        if isinstance(n, A.Name):
            lt = scope.get(n.id)
            if n.id == "num_teams" and lt is not None and not self.has_teams and not self._shadowed(scope, n.id):
                self.fail(n, "'num_teams' needs the game's teams: declare them at the top level (teams: \"p % 2\")",
                          "name")
            if lt is not None:
                n.ref = ("const", n.id) if n.id in CONSTANTS and scope.get(n.id) == CONSTANTS[n.id] \
                    and not self._shadowed(scope, n.id) else ("local", n.id)
                return n, lt
            kind = self.globals.get(n.id)
            if kind == "zone":
                z = self.zones[n.id]
                n.ref = ("family" if z.is_family else "zone", z)
                return n, "family" if z.is_family else "zone"
            if kind == "variable":
                v = self.variables[n.id]
                if v.per_player:
                    self.fail(n, f"'{n.id}' is per player; write {n.id}[player]", "type")
                if v.per_team:
                    self.fail(n, f"'{n.id}' is per team; write {n.id}[team(player)]", "type")
                n.ref = ("var", v)
                return n, v.type if v.type != "str" else "str"
            if kind == "option":
                n.ref = ("option", n.id)
                d = self.option_defaults[n.id]
                return n, "bool" if isinstance(d, bool) else "int"
            if kind == "table":
                self.fail(n, f"table '{n.id}' needs a key: {n.id}[key]", "type")
            if n.id in self.defines:
                params, r, called = self.defines[n.id]
                if params or called:
                    self.fail(n, f"'{n.id}' takes arguments: {n.id}({', '.join(params)})", "arity")
                return self.inline(n, [], scope)
            if n.id in BUILTINS or n.id in self.functions:
                self.fail(n, f"'{n.id}' is a function; call it: {n.id}(...)", "type")
            if n.id in self.broken_defines:
                raise _Abort()      # its own error is reported where it is defined
            self.fail(n, self.unknown_msg(n.id, scope))
        if isinstance(n, A.ListLit):
            ts = []
            for i, x in enumerate(n.items):
                n.items[i], t = self.expr(x, scope)
                ts.append(t)
            known = [t for t in ts if t not in ("none", "any")]
            elem = known[0] if known and all(t == known[0] for t in known) and len(known) == len(ts) else "any"
            n.elem = elem
            return n, list_of(elem)
        if isinstance(n, A.Comp):
            n.iter, it = self.expr(n.iter, scope)
            if not fits(it, "list"):
                self.fail(n.iter, f"'for ... in' needs a list or a zone, this is {it}", "type")
            inner = scope.child({n.var: elem_type(n.iter, it)})
            if n.cond is not None:
                n.cond, _ = self.expr(n.cond, inner)
            n.elt, et = self.expr(n.elt, inner)
            n.elt_t = et
            n.elem = et
            return n, list_of(et)
        if isinstance(n, A.Call):
            return self.call(n, scope)
        if isinstance(n, A.Index):
            return self.index(n, scope)
        if isinstance(n, A.Attr):
            n.obj, ot = self.expr(n.obj, scope)
            if ot not in ("card", "any"):
                self.fail(n, f"'.{n.name}' reads a card attribute, but this is {ot}", "type")
            if n.name not in self.attr_values:
                self.fail(n, f"unknown card attribute '{n.name}'{self.hint(n.name, self.attr_values)}")
            if n.name.startswith("_"):
                self.fail(n, "attribute names cannot start with '_'")
            vals = self.attr_values[n.name]
            if vals and all(isinstance(v, tuple) for v in vals):
                return n, "list"
            if vals and all(isinstance(v, bool) for v in vals):
                return n, "bool"
            if vals and all(isinstance(v, int) and not isinstance(v, bool) for v in vals):
                return n, "int"
            if vals and all(isinstance(v, str) for v in vals):
                return n, "str"
            return n, "any"
        if isinstance(n, A.BinOp):
            n.left, lt = self.expr(n.left, scope)
            n.right, rt = self.expr(n.right, scope)
            if n.op == "+" and (lt in LISTS or rt in LISTS):
                if not (fits(lt, "list") and fits(rt, "list")) or "zone" in (lt, rt):
                    self.fail(n, f"'+' joins two lists; these are {words(lt)} and {words(rt)}", "type")
                le, re_ = elem_type(n.left, lt), elem_type(n.right, rt)
                n.elem = le if le == re_ else "any"
                return n, lt if lt == rt else "list"
            for side, t in ((n.left, lt), (n.right, rt)):
                if not fits(t, "int") or t == "none":
                    self.fail(side, f"'{n.op}' needs numbers; this is {words(t)}", "type")
            return n, "int"
        if isinstance(n, A.Compare):
            n.left, lt = self.expr(n.left, scope)
            n.right, rt = self.expr(n.right, scope)
            if n.op in ("in", "not in"):
                if not fits(rt, "list"):
                    self.fail(n.right, f"'{n.op}' needs a list or a zone on the right, this is {words(rt)}", "type")
                et = elem_type(n.right, rt)
                if not comparable(lt, et):
                    self.fail(n, f"'{n.op}' looks for {words(lt)} among {_plural(et)}; it can never be found",
                              "type")
            elif n.op not in ("==", "!="):
                for side, t in ((n.left, lt), (n.right, rt)):
                    if not fits(t, "int") or t in ("none", "bool"):
                        self.fail(side, f"'{n.op}' compares numbers; this is {words(t)}", "type")
            elif "zone" in (lt, rt) and lt != rt:
                self.fail(n, f"comparing a zone with {words(rt if lt == 'zone' else lt)}", "type")
            elif not comparable(lt, rt):
                self.fail(n, f"'{n.op}' compares {words(lt)} with {words(rt)}: they are never equal", "type")
            return n, "bool"
        if isinstance(n, A.BoolOp):
            n.left, _ = self.expr(n.left, scope)
            n.right, _ = self.expr(n.right, scope)
            return n, "bool"
        if isinstance(n, A.IfExp):
            n.cond, _ = self.expr(n.cond, scope)
            n.body, bt = self.expr(n.body, scope)
            n.orelse, ot = self.expr(n.orelse, scope)
            t = self.join_kinds(bt, ot)
            if t is None:
                self.fail(n, f"'if ... else' gives {words(bt)} or {words(ot)}; both must be of one kind", "type")
            if t == "list":
                be, oe = elem_type(n.body, bt), elem_type(n.orelse, ot)
                n.elem = be if be == oe else "any"
            return n, t
        if isinstance(n, A.Unary):
            n.operand, t = self.expr(n.operand, scope)
            if n.op == "-" and not fits(t, "int"):
                self.fail(n, f"'-' needs a number, this is {t}", "type")
            return n, "bool" if n.op == "not" else "int"
        self.fail(n, "unsupported expression")

    @staticmethod
    def join_kinds(a, b):
        """The kind of a value that is either an `a` or a `b`, or None if they do not go together."""
        if a == b or b == "none" and a in ("card", "player", "any"):
            return a
        if a == "none" and b in ("card", "player", "any"):
            return b
        if "any" in (a, b):
            return "any"
        if {a, b} == {"int", "player"}:
            return "int"
        if a in LISTS and b in LISTS:
            return "list"
        return None

    def _shadowed(self, scope, name):
        s = scope
        while s is not None:
            if name in s.names:
                return s.parent is not None
            s = s.parent
        return False

    def index(self, n, scope):
        if isinstance(n.obj, A.Name) and scope.get(n.obj.id) is None:
            name = n.obj.id
            kind = self.globals.get(name)
            n.index, it = self.expr(n.index, scope)
            if kind == "zone":
                z = self.zones[name]
                if not z.is_family:
                    self.fail(n, f"zone '{name}' is a single zone; it takes no index", "type")
                if z.per_player and not fits(it, "player"):
                    self.fail(n.index, f"'{name}' is per player; its index is a player, not {it}", "type")
                if z.per_team and (not fits(it, "int") or it == "bool"):
                    self.fail(n.index, f"'{name}' is per team; its index is a team number, not {words(it)}", "type")
                if isinstance(n.index, A.Const) and z.keys is not None and n.index.value not in z.keys:
                    self.fail(n.index, f"'{name}' has no member {n.index.value!r}; its keys are {z.keys}", "type")
                n.ref = ("member", z)
                return n, "zone"
            if kind == "variable" and (self.variables[name].per_player or self.variables[name].per_team):
                v = self.variables[name]
                if v.per_team:
                    if not fits(it, "int") or it == "bool":
                        self.fail(n.index, f"'{name}' is per team; its index is a team number, not {words(it)}",
                                  "type")
                    n.ref = ("tvar", v)
                    return n, v.type
                n.ref = ("pvar", v)
                return n, v.type
            if kind == "variable":      # a global list or card list: its item at a number, as a list's
                if self.variables[name].type not in ("list", "cards"):
                    self.fail(n, f"'{name}' is not per player and not a list; it takes no index", "type")
                n.obj, ot = self.expr(n.obj, scope)
                if not fits(it, "int") or it == "bool":
                    self.fail(n.index, f"a list index is a number, this is {words(it)}", "type")
                n.ref = ("item", None)
                return n, ELEM.get(ot, "any")
            if kind == "table":
                n.ref = ("table", name)
                vals = list(self.tables[name].values())
                if isinstance(n.index, A.Const) and n.index.value not in self.tables[name]:
                    self.fail(n.index, f"table '{name}' has no key {n.index.value!r}", "type")
                if vals and all(isinstance(v, int) and not isinstance(v, bool) for v in vals):
                    return n, "int"
                if vals and all(isinstance(v, list) for v in vals):
                    return n, "list"
                return n, "any"
            if kind == "option":
                self.fail(n, f"option '{name}' takes no index", "type")
            if name not in self.defines and name not in CONSTANTS:
                self.fail(n.obj, self.unknown_msg(name, scope))
        n.obj, ot = self.expr(n.obj, scope)
        n.index, it = self.expr(n.index, scope)
        if not fits(ot, "list") or ot == "zone":
            self.fail(n, f"only lists, families, tables and per-player variables take an index; this is {ot}", "type")
        if not fits(it, "int"):
            self.fail(n.index, f"a list index is a number, this is {it}", "type")
        n.ref = ("item", None)
        return n, ELEM.get(ot, "any")

    def inline(self, n, args, scope):
        name = n.func if isinstance(n, A.Call) else n.id
        params, r, _ = self.defines[name]
        if name in self._inlining:
            self.fail(n, f"define '{name}' uses itself ({' -> '.join(self._inlining + [name])}); "
                         "defines cannot be recursive", "recursion")
        if len(self._inlining) > 16:
            self.fail(n, "defines nested more than 16 deep", "recursion")
        if len(args) != len(params):
            self.fail(n, f"'{name}' takes {len(params)} argument(s), got {len(args)}", "arity")
        # Inlining copies the body and each argument once per use: count before copying, so that
        # defines calling each other cannot blow a rule up exponentially.
        uses = {}
        size = 0
        for x in A.walk(r.ast):
            size += 1
            if isinstance(x, A.Name) and x.id in params:
                uses[x.id] = uses.get(x.id, 0) + 1
        for p, a in zip(params, args):
            size += uses.get(p, 0) * (_size(a) - 1)
        self._inlined_rule += size
        self._inlined_total += size
        if self._inlined_rule > MAX_INLINE_NODES_RULE or self._inlined_total > MAX_INLINE_NODES:
            limit = MAX_INLINE_NODES_RULE if self._inlined_rule > MAX_INLINE_NODES_RULE else MAX_INLINE_NODES
            self.fail(n, f"inlining defines makes {'this rule' if limit == MAX_INLINE_NODES_RULE else 'the rules'}"
                         f" larger than {limit} nodes", "rule-size")
        body = clone(r.ast)
        mapping = dict(zip(params, args))
        # a comprehension's variable in the body that an argument also names would capture it
        # (`any(r != q for r in players)` given q = r): such a variable gets a name no spec can write
        taken = set(params) | {x.id for a in args for x in A.walk(a) if isinstance(x, A.Name)}
        _rename_bound(body, {}, taken, [0])
        body = _substitute(body, mapping)
        self._inlining.append(name)
        try:
            return self.expr(body, scope)
        finally:
            self._inlining.pop()

    def call(self, n, scope, statement=False):
        f = n.func
        if f in self.functions:
            return self.call_function(n, scope)
        if f in self.defines:
            if n.kwargs:
                self.fail(n, f"'{f}' takes no named arguments", "arity")
            return self.inline(n, n.args, scope)
        if f in self.named_effects:
            self.fail(n, f"'{f}(...)' is a named effect; call it as a statement, not as a value", "type")
        if f not in BUILTINS:
            if f.startswith("_"):
                self.fail(n, "names starting with '_' are not allowed", "name")
            if f in self.broken_defines:
                raise _Abort()      # its own error is reported where it is defined
            hint = f"; did you mean '{ALIASES[f]}'?" if f in ALIASES else \
                self.hint(f, [b for b in BUILTINS if not BUILTINS[b].statement or statement] + list(self.defines)
                          + list(self.functions))
            self.fail(n, f"unknown function '{f}'{hint}")
        b = BUILTINS[f]
        lo, hi, kw = b.min_args, b.max_args, tuple(b.kwargs)
        if b.statement and not statement:
            self.fail(n, f"'{f}(...)' is an effect; it cannot be used as a value", "type")
        if not (lo <= len(n.args) <= hi):
            want = str(lo) if lo == hi else f"{lo} to {hi}"
            self.fail(n, f"'{f}' takes {want} argument(s), got {len(n.args)}", "arity")
        if b.hook == "action":
            return self.can_call(n, scope)
        for k in n.kwargs:
            if k not in kw:
                self.fail(n, f"'{f}' has no argument '{k}'" + (f"; it takes {', '.join(kw)}" if kw else ""), "arity")
        if b.hook in ("mark", "set_mark") and len(n.args) > 1 and isinstance(n.args[1], A.Name):
            self.mark_name(n, f)      # `mark(c, hint)`: the name wants quotes, whatever `hint` is
        ts = []
        for i, a in enumerate(n.args):
            n.args[i], t = self.expr(a, scope)
            ts.append(t)
        keyed = "key" in n.kwargs
        for k, a in list(n.kwargs.items()):
            if k == "key":
                continue
            n.kwargs[k], _ = self.expr(a, scope)
        if any(isinstance(a, A.Comp) and a.gen for a in n.args) and not b.aggregate:
            self.fail(n, f"'{f}' does not take a 'for' comprehension", "type")
        if keyed:       # an expression of the loop variable: checked where the variable is bound
            c = n.args[0] if len(n.args) == 1 else None
            if not (isinstance(c, A.Comp) and c.gen):
                self.fail(n.kwargs["key"], f"'key=' is computed from a loop variable: write {f}(x for x in xs, "
                                           f"key=x.rank)", "type")
            inner = scope.child({c.var: elem_type(c.iter, c.iter.t)})
            n.kwargs["key"], kt = self.expr(n.kwargs["key"], inner)
            if kt not in ("int", "player", "str", "any"):
                self.fail(n.kwargs["key"], f"a key is a number or a text, this is {words(kt)}", "type")
        if b.hook == "teams" and not self.has_teams:
            self.fail(n, f"'{f}' needs the game's teams: declare them at the top level (teams: \"p % 2\")", "name")

        def need(i, expected, what=None):
            if i < len(ts) and not fits(ts[i], expected):
                self.fail(n.args[i], f"argument {i + 1} of '{f}' should be {what or expected}, this is {ts[i]}", "type")

        hook = b.hook
        if hook == "family":
            if not (isinstance(n.args[0], A.Name) and getattr(n.args[0], "ref", (None,))[0] == "family"):
                self.fail(n.args[0], f"'{f}' takes the name of a zone family", "type")
        elif hook == "mark":
            if not fits(ts[0], "card"):
                self.fail(n.args[0], f"argument 1 of '{f}' should be a card, this is "
                                     f"{self.described(n.args[0], ts[0])}", "type")
            n.mark = self.mark_name(n, f)
            return n, n.mark.type
        elif hook == "set_mark":
            if not card_like(n.args[0], ts[0]):
                self.fail(n.args[0], f"argument 1 of '{f}' should be a card, a list of cards or a zone, "
                                     f"this is {self.described(n.args[0], ts[0])}", "type")
            n.mark = self.mark_name(n, f)
            if not assignable(ts[2], n.mark.type, n.args[2]):
                want = "true or false" if n.mark.type == "bool" else "a number"
                self.fail(n.args[2], f"mark '{n.mark.name}' holds {words(n.mark.type)}; argument 3 of "
                                     f"'{f}' should be {want}, this is {words(ts[2])}", "type")
            return n, "none"
        elif hook == "cards_arg" and not card_like(n.args[0], ts[0]):
            self.fail(n.args[0], f"argument 1 of '{f}' should be a card, a list of cards or a zone, this is "
                                 f"{self.described(n.args[0], ts[0])}", "type")
        if b.many is not None and len(ts) > 1:
            for i in range(len(ts)):
                need(i, b.many)
            return n, b.many
        for i, spec in enumerate(b.args):
            if spec is not None:
                need(i, *spec)
        if hook == "sum" and ts[0] in ("zone", "cards"):
            self.fail(n, "'sum' adds numbers; write sum(c.value for c in ZONE)", "type")
        if b.items is not None and ts and not fits(elem_type(n.args[0], ts[0]), b.items):
            self.fail(n.args[0], f"argument 1 of '{f}' should be a list of {_plural(b.items)}, this is "
                                 f"{self.described(n.args[0], ts[0])}", "type")
        for k, allowed in b.kwargs.items():
            if allowed is not None:
                self.const_kw(n, k, allowed)
        if b.elem == "sub":     # lists of items of argument 1: cards, players or values
            n.elem = "cards" if ts[0] == "zone" else ts[0] if ts[0] in LISTS else "list"
        elif b.elem is not None:
            n.elem = elem_type(n.args[0], ts[0]) if b.elem == "arg" else b.elem
        if keyed and f in ("max", "min"):
            return n, n.args[0].elt_t
        result = b.result_full if b.result_full is not None and len(ts) == hi else b.result
        if result == "elem":
            return n, elem_type(n.args[0], ts[0])
        if result == "same":
            if ts[0] == "list":       # sorted(xs), first(xs, n): a list of xs's items
                n.elem = elem_type(n.args[0], ts[0])
            return n, ts[0] if ts[0] != "zone" else "cards"
        if result == "numbers":
            return n, self.greatest_kind(n, ts[0])
        return n, result

    def can_call(self, n, scope):
        """`can(action, param=value, ...)`: argument 1 an action's bare name (held as n.action, a text
        constant in its place), each named argument one of its parameters, of that parameter's kind;
        a subset parameter cannot be fixed (it ranges over its legal values)."""
        params = getattr(self, "action_params_raw", {})
        a = n.args[0]
        name = a.id if isinstance(a, A.Name) else None
        if name not in params:
            if isinstance(a, A.Const) and a.value in params:
                self.fail(a, f"write the action's name without quotes: can({a.value}, ...)", "type")
            got = f"'{name}' is not one" + self.hint(name, params) if name else "this is not a name"
            self.fail(a, f"argument 1 of 'can' is an action's name ({', '.join(params) or 'none declared'}); "
                         f"{got}", "name")
        kinds = params[name]
        for k, v in list(n.kwargs.items()):
            if k not in kinds:
                self.fail(v, f"action '{name}' has no parameter '{k}'; its parameters: "
                             f"{', '.join(kinds) or 'none'}", "arity")
            if kinds[k] == "subset":
                self.fail(v, f"parameter '{k}' of '{name}' is a selection of cards: can() cannot fix it; "
                             "leave it out (it ranges over its legal values)", "type")
            n.kwargs[k], t = self.expr(v, scope)
            want = {"card": "card", "player": "player", "number": "int"}.get(kinds[k])
            if want is not None and not fits(t, want):
                self.fail(n.kwargs[k], f"parameter '{k}' of '{name}' is {words(want)}, this is "
                                       f"{self.described(n.kwargs[k], t)}", "type")
        n.action = name
        n.args[0] = A.Const(a.line, a.col, name)
        n.args[0].t = "str"
        return n, "bool"

    def greatest_kind(self, n, t):
        """The kind of max(xs)/min(xs): the items' kind (numbers or texts), or `default`'s when the list
        is empty; `any` when they differ or are unknown."""
        item = {"player": "int", "none": "any"}.get(elem_type(n.args[0], t), elem_type(n.args[0], t))
        if t in ("cards", "zone") or item not in ("int", "str", "bool"):
            return "any"
        d = n.kwargs.get("default")
        if d is not None and getattr(d, "t", item) not in (item, "any"):
            return "int" if {item, d.t} <= {"int", "player"} else "any"
        return item

    def const_kw(self, n, key, allowed):
        v = n.kwargs.get(key)
        if v is not None and not (isinstance(v, A.Const) and v.value in allowed):
            self.fail(v, f"'{key}' is one of {', '.join(repr(a) for a in allowed)}", "type")

    def mark_name(self, n, f):
        """The mark a `mark`/`set_mark` call names: its second argument, a quoted declared name."""
        a = n.args[1] if len(n.args) > 1 else None
        if not (isinstance(a, A.Const) and isinstance(a.value, str)):
            names = ", ".join(f"'{k}'" for k in self.marks) or "none declared (see marks:)"
            self.fail(a or n, f"argument 2 of '{f}' is a mark's name in quotes: {names}", "type")
        decl = self.marks.get(a.value)
        if decl is None:
            hint = self.hint(a.value, self.marks) if self.marks else "; this game declares no marks (see marks:)"
            self.fail(a, f"unknown mark '{a.value}'{hint}", "name")
        return decl

    def call_function(self, n, scope):
        """A call of a named function in an expression: the arguments checked in the caller's scope
        (a zone passed as its cards), the body checked again with their kinds (on a copy: the body is
        compiled once, as checked on its own), the call's kind the body's."""
        f = n.func
        params, r = self.functions[f]
        if n.kwargs:
            self.fail(n, f"'{f}' takes no named arguments", "arity")
        if len(n.args) != len(params):
            self.fail(n, f"'{f}' takes {len(params)} argument(s), got {len(n.args)}", "arity")
        kinds = []
        for i, a in enumerate(n.args):
            if isinstance(a, A.Comp) and a.gen:
                self.fail(a, f"'{f}' does not take a 'for' comprehension; pass a list: [x for ...]", "type")
            n.args[i], t = self.expr(a, scope)
            if t == "family":
                self.fail(a, "a zone family is not a value; pass one of its zones", "type")
            kinds.append("cards" if t == "zone" else t)
        n.fn = f
        if f in BUILTINS:     # it shadows a built-in: no later stage may take the call for the built-in's
            n.func = SHADOWING + f
        key = (f, tuple(kinds))
        if f in self._fn_stack:             # a recursive call: the kind the body has on its own
            got = self.function_kinds.get(f, ("any", "any"))
        elif key in self._fn_memo:
            got = self._fn_memo[key]
        else:
            self._fn_memo[key] = self.function_kinds.get(f, ("any", "any"))   # (a cycle through others)
            got = self._fn_memo[key] = self.check_function_body(f, clone_stmts(r.ast), kinds)
        if got[0] in LISTS:
            n.elem = got[1]
        return n, got[0]

    def check_function_body(self, f, body, kinds, canonical=False):
        """Check a function's body (in the global scope with its parameters of these kinds): its value's
        (kind, item kind). The checked statements replace `body` in place."""
        params, r = self.functions[f]
        if len(self._fn_stack) > 16:    # checking nests as calls do; recursion is bounded at run time
            return ("any", "any")
        self._fn_stack.append(f)
        self._returns.append([])
        saved = self._inlined_rule, self._loops, self._depth, self._brackets
        self._inlined_rule = self._loops = self._depth = self._brackets = 0
        try:
            body[:] = self.stmts(body, self.glob.child(dict(zip(params, kinds))))
            rets = self._returns[-1]
        finally:
            self._fn_stack.pop()
            self._returns.pop()
            self._inlined_rule, self._loops, self._depth, self._brackets = saved
        kind, elem = None, None
        found = list(rets) + ([("none", "any", None)] if falls_through(body) else [])
        for t, e, at in found:
            k = t if kind is None else self.join_kinds(kind, t)
            if k is None:
                where = at if at is not None else (r.line, r.col)
                self.err(f"function '{f}' gives {words(kind)} on one path and {words(t)} on another"
                         + ("" if at is not None else " (its end, without a return, gives none)")
                         + ": every return must give one kind", (where.line, where.col) if at is not None
                         else where, "type")
                return ("any", "any")
            kind = k
            elem = e if elem in (None, e) else "any"
        kind = "cards" if kind == "zone" else kind or "none"
        return kind, elem or "any"

    def inline_effect(self, c, scope):
        """A call of a named effect as a statement: `if true { let a = ARG; ...; BODY }`, the arguments
        checked in the caller's scope, the body in the global scope with the parameters."""
        name = c.func
        params, r = self.named_effects[name]
        if name in self._effect_stack:
            self.fail(c, f"named effect '{name}' uses itself ({' -> '.join(self._effect_stack + [name])}); "
                         "named effects cannot be recursive", "recursion")
        if len(self._effect_stack) > 16:
            self.fail(c, "named effects nested more than 16 deep", "recursion")
        if c.kwargs:
            self.fail(c, f"'{name}' takes no named arguments", "arity")
        if len(c.args) != len(params):
            self.fail(c, f"'{name}' takes {len(params)} argument(s), got {len(c.args)}", "arity")
        size = sum(_size(x) for x in r.ast)
        self._inlined_rule += size
        self._inlined_total += size
        if self._inlined_rule > MAX_INLINE_NODES_RULE or self._inlined_total > MAX_INLINE_NODES:
            self.fail(c, f"inlining named effects makes the rules larger than {MAX_INLINE_NODES_RULE} nodes",
                      "rule-size")
        lets, types = [], {}
        for p, a in zip(params, c.args):
            v, t = self.expr(a, scope)
            lets.append(A.Let(a.line, a.col, name=p, value=v))
            types[p] = t
        self._effect_stack.append(name)
        try:
            body = self.stmts(clone_stmts(r.ast), self.glob.child(types))
        finally:
            self._effect_stack.pop()
        cond, _ = self.expr(A.Const(c.line, c.col, value=True), scope)
        return A.If(c.line, c.col, branches=[(cond, lets + body)], orelse=[])


def falls_through(stmts) -> bool:
    """Can running these statements reach their end without a `return`?"""
    if not stmts:
        return True
    last = stmts[-1]
    if isinstance(last, A.Return):
        return False
    if isinstance(last, A.If):
        return not last.orelse or any(falls_through(b) for _, b in last.branches) or falls_through(last.orelse)
    return True


def _size(node) -> int:
    return sum(1 for _ in A.walk(node))


def clone(node):
    """A copy of an expression tree, made iteratively (copy.deepcopy recurses, and is slow)."""
    def shallow(x):
        y = object.__new__(type(x))
        y.__dict__.update(x.__dict__)
        return y

    root = shallow(node)
    stack = [root]
    while stack:
        n = stack.pop()
        d = n.__dict__
        for key, v in list(d.items()):
            if isinstance(v, A.Node):
                c = d[key] = shallow(v)
                stack.append(c)
            elif isinstance(v, list):
                out = []
                for x in v:
                    if isinstance(x, A.Node):
                        x = shallow(x)
                        stack.append(x)
                    elif isinstance(x, (list, tuple, dict)):
                        x = copy.deepcopy(x)   # statements only (If branches); never in a define body
                    out.append(x)
                d[key] = out
            elif isinstance(v, dict):
                out = {}
                for k, x in v.items():
                    if isinstance(x, A.Node):
                        x = shallow(x)
                        stack.append(x)
                    out[k] = x
                d[key] = out
    return root


def clone_stmts(stmts):
    """A copy of a list of statements (a named effect's body is checked, and annotated, at each use)."""
    return [clone(x) for x in stmts]


def _rename_bound(node, env, taken, counter):
    """Give each comprehension variable of a copied define body that is in `taken` a fresh name
    (`_1r`: the parser refuses names starting with '_', so no spec can name it), with its uses inside
    the comprehension (not in its iterable, which is read outside it); iterative over plain nodes."""
    stack = [(node, env)]
    while stack:
        n, env = stack.pop()
        if isinstance(n, A.Name):
            n.id = env.get(n.id, n.id)
            continue
        if isinstance(n, A.Comp):
            stack.append((n.iter, env))
            if n.var in taken:
                counter[0] += 1
                env = dict(env, **{n.var: f"_{counter[0]}{n.var}"})
            else:
                env = {k: v for k, v in env.items() if k != n.var}      # the variable shadows an outer one
            n.var = env.get(n.var, n.var)
            stack.extend((c, env) for c in (n.elt, n.cond) if c is not None)
            continue
        for c in n.children():
            stack.append((c, env))


def _substitute(node, mapping):
    """Replace parameter names by argument nodes in a copied define body (iteratively)."""
    if isinstance(node, A.Name) and node.id in mapping:
        return clone(mapping[node.id])
    stack = [node]
    while stack:
        n = stack.pop()
        for key, v in list(n.__dict__.items()):
            if isinstance(v, A.Name) and v.id in mapping:
                setattr(n, key, clone(mapping[v.id]))
            elif isinstance(v, A.Node):
                stack.append(v)
            elif isinstance(v, list):
                for i, x in enumerate(v):
                    if isinstance(x, A.Name) and x.id in mapping:
                        v[i] = clone(mapping[x.id])
                    elif isinstance(x, A.Node):
                        stack.append(x)
                    elif isinstance(x, tuple):
                        v[i] = tuple(_substitute(y, mapping) if isinstance(y, A.Node) else
                                     [_substitute(z, mapping) for z in y] if isinstance(y, list) else y
                                     for y in x)
            elif isinstance(v, dict):
                for kk, x in list(v.items()):
                    if isinstance(x, A.Node):
                        v[kk] = _substitute(x, mapping)
    return node
