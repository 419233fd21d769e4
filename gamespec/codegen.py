"""Checked rule ASTs → generated Python functions (the fast backend), once per player count and options.

Same semantics as `compiler.py` (the reference backend, still used by `Game.evaluate` and by the
equivalence test), but each rule becomes one Python function with locals instead of a tree of closures,
and each action's legal-action enumeration becomes one function of nested loops.

Safety: the source is generated from the checked AST only. Every identifier in it is made here
(`v_<n>`, `K<n>`), every spec value enters as a constant object in the function's namespace (never
as text), and the namespace's builtins are a short allow-list. No text from a spec is ever executed.
"""
from __future__ import annotations

import itertools

from . import ast as A
from .compiler import (FAULTS, INT_LIMIT, MAX_RANGE, EndGame, EndPhase, EndTurn,
                       _add, _can_grow, _describe, bounded, checked_mul, checked_pow, fault,
                       run_length)
from .errors import SpecRuntimeError

_SAFE_BUILTINS = {"len": len, "sum": sum, "max": max, "min": min, "any": any, "all": all, "list": list,
                  "range": range, "enumerate": enumerate, "sorted": sorted, "abs": abs, "set": set,
                  "iter": iter, "next": next, "bool": bool, "isinstance": isinstance, "int": int,
                  "tuple": tuple}


# Built-ins that visit every item of their first argument.
WALKS_LIST = {"sum", "max", "min", "any", "all", "first", "last", "is_max", "is_sole_max", "dense_rank",
              "run_length", "longest_run", "index_of", "sorted"}

# An outermost comprehension over a zone of a deck this small costs at most this many steps, so it
# need not be charged: every evaluation of a rule is itself charged (flow steps, loop iterations,
# candidates), which bounds the total work per decision.
SMALL_DECK = 500


def _charge(s, xs):
    s.budget -= len(xs)
    if s.budget < 0:
        fault("step budget exhausted (a rule visits too many items)", "budget")
    return xs


def _tick(s):
    s.budget -= 1
    if s.budget < 0:
        fault("step budget exhausted: this 'while' loop does not end", "budget")


def _join(s, a, b):
    out = list(a) + list(b)
    s.budget -= len(out)
    return out


def _range(s, a, b):
    if b - a > MAX_RANGE:
        fault(f"range of {b - a} numbers; the limit is {MAX_RANGE}", "budget")
    s.budget -= max(0, b - a)
    return list(range(a, b))


def _maxof(xs, name):
    if not xs:
        fault(f"{name}() of an empty list; give default=...")
    return max(xs) if name == "max" else min(xs)


def _first(xs):
    return xs[0] if xs else None


def _last(xs):
    return xs[-1] if xs else None


def _topn(cs, m):
    return cs[::-1][:m] if m > 0 else []


def _lastn(xs, k):
    return list(xs[-k:]) if k > 0 else []


def _majority(vals, k, mn, sole):
    v = vals[k]
    if v < mn:
        return False
    if sole:
        return all(x < v for j, x in enumerate(vals) if j != k)
    return v >= max(vals)


def _dense_rank(vals, i):
    return sorted(set(vals), reverse=True).index(vals[i])


def _longest_run(xs):
    return max((run_length(xs, x) for x in set(xs)), default=0)


def _index_of(vals, x):
    return vals.index(x) if x in vals else -1


def _numbers(lo, hi, name):
    if hi - lo > 10_000:
        fault(f"parameter '{name}' has {hi - lo + 1} values; the limit is 10000", "budget")
    return range(lo, hi + 1)


def _unique(xs):
    return list(dict.fromkeys(xs))


def _check_of(ex):
    return getattr(ex, "check", "runtime")


def _attr_of_none(name):
    fault(f"'.{name}' of no card (none)")


class _Proxy:
    pass


class CodeGen:
    """Generates and compiles Python functions for one Ruleset (layout L)."""

    def __init__(self, layout, ops):
        self.L = layout
        self.ops = ops
        self._uid = itertools.count()
        self.ns = dict(_SAFE_BUILTINS)
        self.ns.update({
            "__builtins__": {}, "_charge": _charge, "_tick": _tick, "_mul": checked_mul, "_pow": checked_pow,
            "_join": _join, "_range": _range, "_maxof": _maxof, "_first": _first, "_last": _last,
            "_topn": _topn, "_lastn": _lastn, "_majority": _majority, "_dense_rank": _dense_rank,
            "_run_length": run_length, "_longest_run": _longest_run, "_index_of": _index_of,
            "_add": _add, "_bounded": bounded, "_fault": fault, "_RecursionError": RecursionError, "_numbers": _numbers, "_unique": _unique, "_move": ops.move_card, "_deal": ops.deal,
            "_shuffle": ops.shuffle, "_reveal": ops.reveal, "EndGame": EndGame, "EndPhase": EndPhase,
            "EndTurn": EndTurn, "_FAULTS": FAULTS, "_SRE": SpecRuntimeError, "_describe": _describe,
            "_CTRL": (EndGame, EndPhase, EndTurn, SpecRuntimeError), "_check_of": _check_of,
        })
        self._consts = {}
        self.valid_players = set()   # generated names that always hold a valid seat
        self._comp_depth = 0

    # -- naming -------------------------------------------------------------------------
    def fresh(self, name):
        return f"{name}#{next(self._uid)}"

    def ident(self, base="v"):
        return f"v_{next(self._uid)}"

    def const(self, value):
        """A name in the namespace holding `value` (spec values never enter the source as text)."""
        key = (type(value).__name__, repr(value)) if isinstance(value, (int, str, bool, type(None))) else id(value)
        name = self._consts.get(key)
        if name is None:
            name = f"K{next(self._uid)}"
            self.ns[name] = value
            self._consts[key] = name
        return name

    def lit(self, v):
        if v is None or isinstance(v, bool):
            return repr(v)
        if isinstance(v, int):
            return repr(v) if -INT_LIMIT < v < INT_LIMIT else self.const(v)
        return self.const(v)

    # -- entry points (same interface as compiler.Compiler) ------------------------------
    def expr(self, rule, names=None):
        if rule is None:
            return None
        env = {}
        body = self.ex(rule.ast, self._scope(names, env))
        return self._function(rule, self._prologue(env) + [f"return {body}"])

    def effects(self, rule, names=None):
        if rule is None:
            return None
        env = {}
        lines = self.block(rule.ast, self._scope(names, env), 0)
        return self._function(rule, self._prologue(env) + lines)

    def _scope(self, names, env, valid=()):
        """Source names given in `names` (source name -> env key) load lazily from the env dict."""
        sc = {}
        for src, key in (names or {}).items():
            sc[src] = _EnvName(key, env, self, src in valid)
        return sc

    def _prologue(self, env):
        return [f"{py} = e[{self.const(key)}]" for key, py in env.items()]

    def _function(self, rule, lines, name=None, args="s, e"):
        fname = name or f"rule_{next(self._uid)}"
        origin = self.const(rule.origin if rule is not None else "<generated>")
        src = [f"def {fname}({args}):", "    try:"]
        src += ["        " + ln for ln in (lines or ["pass"])]
        src += ["    except _CTRL:", "        raise",
                "    except _FAULTS as ex:",
                f"        raise _SRE(_describe(ex), {origin}, check=_check_of(ex)) from None",
                "    except _RecursionError:",
                f"        raise _SRE('rule nested too deeply', {origin}, check='rule-depth') from None"]
        code = compile("\n".join(src) + "\n", f"<gamespec {rule.origin if rule else fname}>", "exec")
        exec(code, self.ns)  # the source holds only identifiers generated here (see module docstring)
        fn = self.ns.pop(fname)
        fn.rule = rule
        return fn

    # -- statements -------------------------------------------------------------------------
    def block(self, stmts, names, depth):
        out = []
        for st in stmts:
            out += self.st(st, names)
        return out or ["pass"]

    def st(self, st, names):
        L = self.L
        if isinstance(st, A.Let):
            val = self.ex(st.value, names)
            py = self.ident()
            names[st.name] = py
            return [f"{py} = {val}"]
        if isinstance(st, A.Assign):
            return self.assign(st, names)
        if isinstance(st, A.CallStmt):
            return self.call_stmt(st.call, names)
        if isinstance(st, A.If):
            out = []
            for i, (c, body) in enumerate(st.branches):
                out.append(f"{'if' if i == 0 else 'elif'} {self.ex(c, names)}:")
                out += ["    " + ln for ln in self.block(body, dict(names), 0)]
            if st.orelse:
                out.append("else:")
                out += ["    " + ln for ln in self.block(st.orelse, dict(names), 0)]
            return out
        if isinstance(st, A.For):
            items = self.ident()
            it = self.as_list(st.iter, names)
            inner = dict(names)
            py = self.ident()
            inner[st.var] = py
            if self._over_players(st.iter):
                self.valid_players.add(py)
            body = self.block(st.body, inner, 0)
            return [f"{items} = list({it})", f"_charge(s, {items})", f"for {py} in {items}:"] + \
                ["    " + ln for ln in body]
        if isinstance(st, A.While):
            cond = self.ex(st.cond, names)
            body = self.block(st.body, dict(names), 0)
            return [f"while {cond}:", "    _tick(s)"] + ["    " + ln for ln in body]
        raise AssertionError(st)

    def assign(self, st, names):
        val = self.ex(st.value, names)
        if _can_grow(st.value):
            val = f"_bounded({val})"
        if st.value.t == "zone":
            val = f"list(s.z[{val}])"
        op = st.op
        tgt = st.target
        ref = tgt.ref
        if ref[0] == "local":
            py = self.name_ref(tgt.id, names)
            if op == "=":
                return [f"{py} = {val}"]
            return [f"{py} = _add(s, {py}, {val}, {1 if op == '+=' else -1})"]
        v = ref[1]
        base = self.L.var_base[v.name]
        if ref[0] == "var":
            slot = f"s.v[{base}]"
        else:
            slot = f"s.v[{base} + {self.pidx(tgt.index, names)}]"
            if op != "=":
                tmp = self.ident()
                return [f"{tmp} = {base} + {self.pidx(tgt.index, names)}",
                        self._update(f"s.v[{tmp}]", v, op, val)]
        if op == "=":
            return [f"{slot} = {val}"]
        return [self._update(slot, v, op, val)]

    def _update(self, slot, v, op, val):
        if v.type in ("int", "player"):
            return f"{slot} = _bounded({slot} {op[0]} {val})"
        return f"{slot} = _add(s, {slot}, {val}, {1 if op == '+=' else -1})"

    def call_stmt(self, c, names):
        f = c.func
        kw = c.kwargs
        if f == "move":
            face = {"up": 1, "down": 2}.get(kw["face"].value) if "face" in kw else 0
            bottom = "at" in kw and kw["at"].value == "bottom"
            what, dst = c.args
            d = self.ident()
            out = [f"{d} = {self.ex(dst, names)}"]
            if what.t == "card":
                x = self.ident()
                return out + [f"{x} = {self.ex(what, names)}",
                              f"if {x} is None: _fault('move: there is no card to move (none)')",
                              f"_move(s, {x}, {d}, {face}, {bottom})"]
            x = self.ident()
            src = f"list(s.z[{self.ex(what, names)}])" if what.t == "zone" else f"list({self.ex(what, names)})"
            return out + [f"for {x} in {src}:",
                          f"    if {x} is None: _fault('move: there is no card to move (none)')",
                          f"    _move(s, {x}, {d}, {face}, {bottom})"]
        if f == "deal":
            face = {"up": 1, "down": 2}.get(kw["face"].value) if "face" in kw else 0
            n = self.ex(c.args[2], names) if len(c.args) > 2 else "1"
            k = self.ident()
            return [f"{k} = {n}",
                    f"if {k} < 0 or {k} > 100000: _fault('deal: cannot deal %r cards' % ({k},))",
                    f"_deal(s, {self.ex(c.args[0], names)}, {self.ex(c.args[1], names)}, {k}, {face})"]
        if f == "shuffle":
            return [f"_shuffle(s, {self.ex(c.args[0], names)})"]
        if f == "reveal":
            what, who = c.args
            p = self.ident()
            x = self.ident()
            if what.t == "card":
                cards = f"[{x}]"
            elif what.t == "zone":
                cards = f"list(s.z[{x}])"
            else:
                cards = f"list({x})"
            return [f"{p} = {self.ex(who, names)}",
                    f"if not (0 <= {p} < {self.L.P}): _fault('reveal: no player %r' % ({p},))",
                    f"{x} = {self.ex(what, names)}",
                    f"_reveal(s, [c for c in {cards} if c is not None], {p})"]
        if f == "end_game":
            return ["raise EndGame()"]
        if f == "end_phase":
            return ["raise EndPhase()"]
        if f == "end_turn":
            return ["raise EndTurn()"]
        raise AssertionError(f)

    # -- expressions ----------------------------------------------------------------------
    def name_ref(self, src, names):
        v = names.get(src)
        if isinstance(v, _EnvName):
            return v.use()
        if v is None:
            raise AssertionError(f"unbound {src}")
        return v

    def pidx(self, node, names):
        if isinstance(node, A.Name) and node.ref == ("const", "current"):
            return "s.cur"
        if isinstance(node, A.Name) and node.ref == ("const", "actor"):
            return "s.actor"
        if isinstance(node, A.Name) and node.ref[0] == "local":
            py = names.get(node.id)
            if isinstance(py, _EnvName) and py.valid_player:
                return py.use()
            if isinstance(py, str) and py in self.valid_players:
                return py      # a loop over the players or a player parameter: always in range
        return f"{self.const(self._pcheck)}({self.ex(node, names)})"

    @staticmethod
    def _over_players(node):
        """Iterating `players`, `others(p)` or `players_from(p)` yields valid seats only."""
        if isinstance(node, A.Name) and node.ref == ("const", "players"):
            return True
        return isinstance(node, A.Call) and node.func in ("others", "players_from")

    def _pcheck(self, p):
        if p.__class__ is not int or not 0 <= p < self.L.P:
            fault(f"no player {p!r} (players are 0 to {self.L.P - 1})")
        return p

    def as_list(self, node, names):
        x = self.ex(node, names)
        return f"s.z[{x}]" if node.t == "zone" else x

    def ex(self, n, names):
        L = self.L
        if isinstance(n, A.Const):
            return self.lit(n.value)
        if isinstance(n, A.Name):
            kind = n.ref[0]
            if kind == "local":
                return self.name_ref(n.id, names)
            if kind == "const":
                return {"current": "s.cur", "actor": "s.actor",
                        "players": self.const(list(range(L.P))), "num_players": str(L.P)}[n.id]
            if kind == "zone":
                return str(L.zone_base[n.id])
            if kind == "var":
                return f"s.v[{L.var_base[n.id]}]"
            if kind == "option":
                return self.lit(L.options[n.id])
            raise AssertionError(n.ref)
        if isinstance(n, A.Index):
            return self.index(n, names)
        if isinstance(n, A.Attr):
            arr = self.const(L.attr[n.name])
            obj = self.ex(n.obj, names)
            if isinstance(n.obj, A.Name):
                return f"({arr}[{obj}] if {obj} is not None else {self.const(_attr_of_none)}({n.name!r}))"
            return f"{arr}[{obj}]"
        if isinstance(n, A.BinOp):
            a, b = self.ex(n.left, names), self.ex(n.right, names)
            if n.op == "+":
                if n.t in ("cards", "players", "list"):
                    return f"_join(s, {a}, {b})"
                return f"({a} + {b})"
            if n.op == "*":
                return f"_mul({a}, {b})"
            if n.op == "**":
                return f"_pow({a}, {b})"
            return f"({a} {n.op} {b})"
        if isinstance(n, A.Compare):
            a = self.ex(n.left, names)
            if n.op in ("in", "not in"):
                b = self._walk(n.right, self.as_list(n.right, names))
            else:
                b = self.ex(n.right, names)
            return f"({a} {n.op} {b})"
        if isinstance(n, A.BoolOp):
            return f"({self.ex(n.left, names)} {n.op} {self.ex(n.right, names)})"
        if isinstance(n, A.Unary):
            return f"({'not ' if n.op == 'not' else '-'}{self.ex(n.operand, names)})"
        if isinstance(n, A.ListLit):
            return "[" + ", ".join(self.ex(x, names) for x in n.items) + "]"
        if isinstance(n, A.Comp):
            return "[" + self.comp(n, names) + "]"
        if isinstance(n, A.Call):
            return self.call(n, names)
        raise AssertionError(n)

    def comp(self, n, names):
        it = self.as_list(n.iter, names)
        inner = dict(names)
        py = self.ident()
        inner[n.var] = py
        if self._over_players(n.iter):
            self.valid_players.add(py)
        self._comp_depth += 1
        try:
            cond = f" if {self.ex(n.cond, inner)}" if n.cond is not None else ""
            elt = self.ex(n.elt, inner)
        finally:
            self._comp_depth -= 1
        return f"{elt} for {py} in {self._charged(n.iter, it)}{cond}"

    def _walk(self, node, src):
        """Charge a list an operation walks through, unless it is small by construction."""
        if (isinstance(node, A.Name) and node.ref == ("const", "players")) or isinstance(node, A.ListLit) \
                or (isinstance(node, A.Call) and node.func in ("indices", "others", "players_from")) \
                or (node.t == "zone" and getattr(self.L, "ncards", SMALL_DECK + 1) <= SMALL_DECK):
            return src
        return f"_charge(s, {src})"

    def _charged(self, node, it):
        """The iterable, charged to the step budget unless it is small by construction (the
        players, a family's keys, a literal list) and not nested in another comprehension."""
        if self._comp_depth == 0 and (
                (isinstance(node, A.Name) and node.ref == ("const", "players"))
                or isinstance(node, A.ListLit)
                or (isinstance(node, A.Call) and node.func in ("indices", "others", "players_from"))
                or (node.t == "zone" and getattr(self.L, "ncards", SMALL_DECK + 1) <= SMALL_DECK)):
            return it
        return f"_charge(s, {it})"

    def index(self, n, names):
        L = self.L
        kind = n.ref[0]
        if kind == "member":
            z = n.ref[1]
            base = L.zone_base[z.name]
            if z.per_player:
                return f"({base} + {self.pidx(n.index, names)})"
            keymap = {k: base + i for i, k in enumerate(z.keys)}
            if isinstance(n.index, A.Const):
                return str(keymap[n.index.value])
            return f"{self.const(keymap)}[{self.ex(n.index, names)}]"
        if kind == "pvar":
            return f"s.v[{L.var_base[n.ref[1].name]} + {self.pidx(n.index, names)}]"
        if kind == "table":
            return f"{self.const(L.tables[n.ref[1]])}[{self.ex(n.index, names)}]"
        return f"{self.as_list(n.obj, names)}[{self.ex(n.index, names)}]"

    def call(self, n, names):
        L = self.L
        f = n.func
        if n.args and isinstance(n.args[0], A.Comp) and n.args[0].gen:
            return self.aggregate(n, names)
        if f == "indices":
            z = n.args[0].ref[1]
            return self.const(list(range(L.P)) if z.per_player else list(z.keys))
        if f in ("top", "bottom", "cards"):
            z = self.ex(n.args[0], names)
            cs = f"s.z[{z}]"
            if f == "cards":
                return f"list({cs})"
            if len(n.args) == 1:
                return f"_last({cs})" if f == "top" else f"_first({cs})"
            m = self.ex(n.args[1], names)
            return f"_topn({cs}, {m})" if f == "top" else f"{cs}[:max(0, {m})]"
        P = L.P
        if f == "others":
            return f"[({self.pidx(n.args[0], names)} + _i) % {P} for _i in range(1, {P})]"
        if f == "players_from":
            return f"[({self.pidx(n.args[0], names)} + _i) % {P} for _i in range({P})]"
        if f == "next_player":
            return f"(({self.pidx(n.args[0], names)} + 1) % {P})"
        if f == "prev_player":
            return f"(({self.pidx(n.args[0], names)} - 1) % {P})"
        args = [self.as_list(a, names) for a in n.args]
        if f in WALKS_LIST and args and not (f in ("max", "min") and len(args) > 1):
            # the call visits every item: charge what can be large
            args[0] = self._walk(n.args[0], args[0])
        if f in ("size", "count"):
            return f"len({args[0]})"
        if f == "sum":
            return f"sum({args[0]})"
        if f in ("max", "min"):
            if len(args) == 1:
                if "default" in n.kwargs:
                    return f"{f}({args[0]}, default={self.ex(n.kwargs['default'], names)})"
                return f"_maxof({args[0]}, {f!r})"
            return f"{f}({', '.join(args)})"
        if f in ("any", "all"):
            return f"{f}({args[0]})"
        if f in ("first", "last"):
            if len(args) == 2:
                return f"list({args[0]}[:max(0, {args[1]})])" if f == "first" else f"_lastn({args[0]}, {args[1]})"
            return f"_{f}({args[0]})"
        if f == "range":
            if len(args) == 2:
                return f"_range(s, {args[0]}, {args[1]})"
            return f"_range(s, 0, {args[0]})"
        if f in ("is_max", "is_sole_max"):
            mn = self.ex(n.kwargs["min"], names) if "min" in n.kwargs else "1"
            return f"_majority({args[0]}, {args[1]}, {mn}, {f == 'is_sole_max'})"
        if f == "dense_rank":
            return f"_dense_rank({args[0]}, {args[1]})"
        if f == "run_length":
            return f"_run_length({args[0]}, {args[1]})"
        if f == "longest_run":
            return f"_longest_run({args[0]})"
        if f == "index_of":
            return f"_index_of({args[0]}, {args[1]})"
        if f == "abs":
            return f"abs({args[0]})"
        if f == "zone_of":
            return f"s.loc[{args[0]}]"
        if f == "face_down":
            return f"(s.face.get({args[0]}) == 2)"
        if f == "sorted":
            return f"sorted({args[0]})"
        raise AssertionError(f)

    def aggregate(self, n, names):
        f = n.func
        c = n.args[0]
        if f == "count":
            if c.cond is None:
                return f"len({self.as_list(c.iter, names)})"
            inner = dict(names)
            py = self.ident()
            inner[c.var] = py
            self._comp_depth += 1
            try:
                cond = self.ex(c.cond, inner)
            finally:
                self._comp_depth -= 1
            return f"len([1 for {py} in {self._charged(c.iter, self.as_list(c.iter, names))} if {cond}])"
        body = self.comp(c, names)
        if f in ("sum", "any", "all", "sorted"):
            return f"{f}([{body}])"
        if f in ("max", "min"):
            if "default" in n.kwargs:
                return f"{f}([{body}], default={self.ex(n.kwargs['default'], names)})"
            return f"_maxof([{body}], {f!r})"
        if f == "first":
            return f"next(({body}), None)"
        if f == "last":
            return f"_last([{body}])"
        raise AssertionError(f)

    # -- actions ------------------------------------------------------------------------
    def _param_values(self, p, names):
        """Python source for the candidate values of a zone/player/number/choice parameter."""
        L = self.L
        if p.kind == "zone":
            z = L.spec.zones[p.family]
            return self.const(list(range(L.P)) if z.per_player else list(z.keys))
        if p.kind == "player":
            return f"range({L.P})"
        if p.kind == "number":
            return f"_numbers({self.ex(p.lo.ast, names)}, {self.ex(p.hi.ast, names)}, {p.name!r})"
        if p.choices is not None:
            return self.const(list(dict.fromkeys(p.choices)))
        return f"_unique({self.as_list(p.source.ast, names)})"

    def action(self, rt, decl):
        """Generate `enumerate(s, out)` and `run(s, e)` for one action (None if not supported)."""
        if any(p.kind == "subset" for p in decl.params):
            return None      # rare: the reference enumeration handles subsets
        L = self.L
        names = {}
        lines = []
        pys = []
        depth = 0
        ind = lambda: "    " * depth
        if decl.cond is not None and not _uses_params(decl.cond, decl.params):
            lines.append(f"if not {self.ex(decl.cond.ast, names)}: return")
            cond_first = True
        else:
            cond_first = False
        seen_names = []
        hoisted = []
        for i, p in enumerate(decl.params):
            py = self.ident()
            pos = None
            if p.kind == "player":
                self.valid_players.add(py)
            if p.kind == "card":
                src = p.source.ast
                lst, zv, seen, f, pos, bit = (self.ident() for _ in range(6))
                if src.t == "zone":
                    zi = self.ident()
                    lines += [ind() + f"{zi} = {self.ex(src, names)}", ind() + f"{lst} = s.z[{zi}]",
                              ind() + f"{zv} = {self.const(L.zvis)}[{zi}]"]
                    visexpr = f"({zv} if not (s.face and {py} in s.face) else ({L.ALL} if s.face[{py}] == 1 else 0))"
                else:
                    lines += [ind() + f"{lst} = list({self.ex(src, names)})"]
                    visexpr = (f"({self.const(L.zvis)}[s.loc[{py}]] if not (s.face and {py} in s.face) "
                               f"else ({L.ALL} if s.face[{py}] == 1 else 0))")
                lines += [ind() + f"{seen} = set()", ind() + f"{bit} = 1 << s.actor",
                          ind() + f"for {pos}, {py} in enumerate(_charge(s, {lst})):"]
                depth += 1
                lines += [ind() + f"if {py} is None: continue",
                          ind() + f"if ({visexpr} | s.kn[{py}]) & {bit}:",
                          ind() + f"    {f} = {self.const(L.face_of)}[{py}]",
                          ind() + f"    if {f} in {seen}: continue",
                          ind() + f"    {seen}.add({f})",
                          ind() + "else:",
                          ind() + f"    {f} = None"]
                seen_names.append(f)
            elif p.kind in ("zone", "player", "number", "choice") and i > 0 and not _depends(p, decl.params[:i]):
                # independent of the parameters before it: filter its values once, on first use
                cand = self.ident()
                hoisted.append(cand)
                inner = dict(names)
                inner[p.name] = py
                values = self._param_values(p, names)
                where = f" if {self.ex(p.where.ast, inner)}" if p.where is not None else ""
                lines += [ind() + f"if {cand} is None: {cand} = [{py} for {py} in {values}{where}]",
                          ind() + f"for {py} in _charge(s, {cand}):"]
                depth += 1
                seen_names.append("None")
                names[p.name] = py
                pys.append((p, py, pos))
                continue
            elif p.kind in ("zone", "player", "number", "choice"):
                lines.append(ind() + f"for {py} in _charge(s, {self._param_values(p, names)}):")
                depth += 1
                seen_names.append("None")
            names[p.name] = py
            pys.append((p, py, pos))
            if p.where is not None:
                lines.append(ind() + f"if not {self.ex(p.where.ast, names)}: continue")
        if decl.cond is not None and not cond_first:
            lines.append(ind() + f"if not {self.ex(decl.cond.ast, names)}: " + ("continue" if pys else "return"))
        for var, r in decl.cost:
            lines.append(ind() + f"if s.v[{L.var_base[var]} + s.actor] < {self.ex(r.ast, names)}: "
                         + ("continue" if pys else "return"))
        args = "(" + "".join(f"{pos if p.kind == 'card' else py}, " for p, py, pos in pys) + ")"
        bind = "{" + ", ".join(f"{self.const(p.name)}: {py}" for p, py, pos in pys) + "}"
        seen = "(" + "".join(f"{x}, " for x in seen_names) + ")"
        lines.append(ind() + f"_out.append(_tnew(_Action, ({self.const(rt.name)}, {args}, {bind}, {seen}, _rt, None)))")
        from interpreter.actions import Action, _tnew
        self.ns["_Action"] = Action
        self.ns["_tnew"] = _tnew
        rt_name = self.const(rt)
        origin_rule = decl.effect or decl.cond or (decl.params[0].where if decl.params else None)
        enum = self._function(origin_rule, [f"_rt = {rt_name}", "_out = e"] + [f"{h} = None" for h in hoisted]
                              + lines, args="s, e")
        # run: pay the cost, then the effect
        env = {}
        sc = self._scope({p.name: p.name for p in decl.params}, env,
                         valid={p.name for p in decl.params if p.kind == "player"})
        body = []
        for var, r in decl.cost:
            body.append(f"s.v[{L.var_base[var]} + s.actor] -= {self.ex(r.ast, sc)}")
        if decl.effect is not None:
            body += self.block(decl.effect.ast, sc, 0)
        run = self._function(decl.effect, self._prologue(env) + (body or ["pass"]))
        return enum, run


def _depends(p, earlier):
    names = {q.name for q in earlier}
    rules = [r for r in (p.where, p.source, p.lo, p.hi) if r is not None]
    return any(isinstance(x, A.Name) and x.id in names and getattr(x, "ref", ("",))[0] == "local"
               for r in rules for x in A.walk(r.ast))


def _uses_params(rule, params):
    pn = {p.name for p in params}
    return any(isinstance(x, A.Name) and x.id in pn and getattr(x, "ref", ("",))[0] == "local"
               for x in A.walk(rule.ast))


class _EnvName:
    """A name read from the env dict: loaded once in the function's prologue when used."""

    def __init__(self, key, env, gen, valid_player=False):
        self.key = key
        self.env = env
        self.gen = gen
        self.valid_player = valid_player

    def use(self):
        py = self.env.get(self.key)
        if py is None:
            py = self.env[self.key] = self.gen.ident()
            if self.valid_player:
                self.gen.valid_players.add(py)
        return py
