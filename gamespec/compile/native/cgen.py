"""Checked rule ASTs → C statements and expressions (the native backend's rules).

The semantics are the default backend's (gamespec/compile/codegen.py; the reference is
closures.py): Python's values, truth, equality and order, checked arithmetic, the same faults, and a
step budget charged at least where the default backend charges it. Every identifier in the output
is made here (`t<n>`, `r<n>`); a spec's values enter as numbers and interned text ids only.

An expression compiles to statements (emitted into the current function) and an `E`: a C expression
and its static kind:
  i  int64_t holding a Python int          c  int64_t holding a valid card id (an int)
  b  int holding a Python bool             s  int64_t holding an interned text id
  z  int64_t holding a valid zone index    n  Python's None
  V  a tagged value (runtime.h)
"""
from __future__ import annotations

import contextlib

from ...spec import ast as A
from ...spec.builtins import BUILTINS, WALKS_LIST, check, registry   # WALKS_LIST: a step per item, as both Python backends charge
from ..costs import comp_weight, loop_weight
from .errors import NativeUnsupported
from .values import count_norm as _count_norm

END_GAME, END_PHASE, END_TURN = 1, 2, 3

#: built-in -> its emitter: `f(rulegen, call node, scope)` -> an E (an effect's: emitted, None); every
#: built-in of the table, checked at import (spec/builtins.py `check`). The generator forms (`for`)
#: are AGGREGATES' (RuleGen.aggregate)
CALLS, emits = registry("C")
#: the generator forms (`f(e for x in xs if c)`, `key=`): aggregate built-in -> its emitter, every
#: built-in the table marks `aggregate`, checked at import like CALLS
AGGREGATES, aggregates = registry("C", aggregate=True)


class E:
    __slots__ = ("c", "k", "seat")

    def __init__(self, c, k, seat=False):
        self.c = c
        self.k = k
        self.seat = seat        # an int known to be a valid seat

    def __repr__(self):
        return f"E({self.c!r}, {self.k})"


NUMERIC = ("i", "c", "z")


# -- functions and combinatorics (docs/native.md, "Functions and combinatorics in C") ------------
class _FunctionsMixin:
    """RuleGen's part for the spec's functions (a call, `return`) and the combinatorics built-ins."""

    in_fn = False       # True in a function's body: a call there passes depth d + 1
    fn_mark = None      # the arena mark taken when the function was entered

    def ret(self, st, sc):
        """`return e` (codegen: a zone as the list of its cards). A function is pure: what its call
        allocated is unreachable once it returns, but for a list it returns (whose items may be
        lists it made): when the value is no list, the call's allocations are released."""
        if st.value is None:
            self.emit(f"arelease(g, {self.fn_mark}); return vnone();")
            return
        e = self.ex(st.value, sc)
        v = f"vlist(zlist(g, {self.zone(e)}))" if st.value.t == "zone" else self.V(e)
        r = self.tmp("V", v)
        self.emit(f"if ({r}.t != T_LIST) arelease(g, {self.fn_mark});")
        self.emit(f"return {r};")

    def spec_call(self, n, sc):
        """A call of the spec's function (codegen.call_function): the arguments evaluated once, left to
        right (a zone as a copy of its cards), then the function (depth 1 from a rule, d + 1 inside a
        function), which checks the depth and charges its weight (runtime.enter_call)."""
        fname = self.p.spec_function(n.fn)
        args = []
        for a in n.args:
            e = self.ex(a, sc)
            v = f"vlist(zlist(g, {self.zone(e)}))" if a.t == "zone" else self.V(e)
            args.append(self.tmp("V", v))
        depth = "d + 1" if self.in_fn else "1"
        return E(self.tmp("V", f"{fname}(g, {', '.join([depth] + args)})"), "V")

    def _list_arg(self, n, sc):
        """A list argument as a held V (a zone: a copy of its cards, as `list(s.z[z])` makes)."""
        e = self.ex(n, sc)
        return self.tmp("V", self.as_list_v(e, n.t))

    @emits("subsets")
    def cb_subsets(self, n, sc):
        return E(self.tmp("V", f"rt_cb_subsets(g, {self._list_arg(n.args[0], sc)})"), "V")

    @emits("combinations")
    def cb_combinations(self, n, sc):
        xs = self._list_arg(n.args[0], sc)
        k = self.tmp("V", self.V(self.ex(n.args[1], sc)))
        return E(self.tmp("V", f"rt_cb_combinations(g, {xs}, {k})"), "V")

    @emits("permutations")
    def cb_permutations(self, n, sc):
        xs = self._list_arg(n.args[0], sc)
        if len(n.args) > 1:
            k = self.tmp("V", self.V(self.ex(n.args[1], sc)))
            return E(self.tmp("V", f"rt_cb_permutations(g, {xs}, {k}, 1)"), "V")
        return E(self.tmp("V", f"rt_cb_permutations(g, {xs}, vnone(), 0)"), "V")

    @emits("product")
    def cb_product(self, n, sc):
        return E(self.tmp("int64_t", f"rt_cb_product(g, {self._list_arg(n.args[0], sc)})"), "i")

    @emits("runs")
    def cb_runs(self, n, sc):
        return E(self.tmp("V", f"rt_cb_runs(g, {self._list_arg(n.args[0], sc)})"), "V")


class RuleGen(_FunctionsMixin):
    """Emits C for rules into `self.lines`; `prog` (program.Program) holds the layout and constants."""

    def __init__(self, prog):
        self.p = prog
        self.rs = prog.rs
        self.lines = []
        self.ind = 1
        self._n = 0
        self.hoisted = {}       # id(node) -> (E, C of its steps): see hoist()

    # -- output -------------------------------------------------------------------------------
    def emit(self, line):
        self.lines.append("    " * self.ind + line)

    def fresh(self, base="t"):
        self.p.uid += 1
        return f"{base}{self.p.uid}"

    def tmp(self, ctype, init):
        name = self.fresh()
        self.emit(f"{ctype} {name} = {init};")
        return name

    @contextlib.contextmanager
    def indent(self):
        self.ind += 1
        try:
            yield
        finally:
            self.ind -= 1

    @contextlib.contextmanager
    def capture(self):
        """Statements emitted inside go to a separate list (returned), at the current indentation."""
        saved = self.lines
        self.lines = []
        out = self.lines
        try:
            yield out
        finally:
            self.lines = saved

    def put(self, lines):
        self.lines.extend(lines)

    # -- conversions --------------------------------------------------------------------------
    def V(self, e):
        k = e.k
        if k in ("F", "FL"):
            raise NativeUnsupported("a card parameter used other than by its attributes in an order")
        if k == "V":
            return e.c
        if k in NUMERIC:
            return f"vint({e.c})"
        if k == "b":
            return f"vbool({e.c})"
        if k == "s":
            return f"vstr({e.c})"
        if k == "n":
            return "vnone()"
        raise AssertionError(k)

    def num(self, e):
        """A number (a bool counts): int64_t C; anything else faults or bails as Python would."""
        k = e.k
        if k in ("F", "FL"):
            raise NativeUnsupported("a card parameter used other than by its attributes in an order")
        if k in NUMERIC:
            return e.c
        if k == "b":
            return f"((int64_t)({e.c}))"
        if k == "V":
            return f"num(g, {e.c})"
        return "fault_i(g, F_TYPE)"       # arithmetic on a text or none: a TypeError

    def truth(self, e):
        k = e.k
        if k in ("F", "FL"):
            raise NativeUnsupported("a card parameter used other than by its attributes in an order")
        if k == "b":
            return e.c
        if k in NUMERIC or k == "s":
            return f"({e.c} != 0)"
        if k == "n":
            return "0"
        return f"truthy({e.c})"

    def hold(self, e):
        """e in a temporary (so that it can be read twice without being evaluated twice)."""
        if _simple(e.c):
            return e
        ctype = {"V": "V", "b": "int"}.get(e.k, "int64_t")
        if e.k == "n":
            return e
        return E(self.tmp(ctype, e.c), e.k, e.seat)

    # -- loop-invariant aggregates -------------------------------------------------------------
    def hoist(self, node, sc, bound):
        """Before a parameter's loop: each count/any/all over a zone in `node` (its `where`) that reads
        none of the names in `bound` (the loop's own) is evaluated once here, into a temporary, with the
        steps it charged noted; each evaluation in the loop then charges those steps again and reads
        the temporary (the state does not change while a decision is listed). So C charges at least
        what Python charges at every site (once more, here), and a fault here is one Python would raise
        at the loop's first candidate, or, with none, one that sends the game to the Python engine.
        Returns the hoisted ids, for unhoist() once the loop is closed."""
        ids = []
        stack = [node] if node is not None else []
        while stack:
            x = stack.pop()
            if isinstance(x, list):
                stack.extend(x)
                continue
            if not isinstance(x, A.Node):
                continue
            if isinstance(x, A.Call) and x.func in ("count", "any", "all") and len(x.args) == 1 \
                    and isinstance(x.args[0], A.Comp) and x.args[0].gen \
                    and getattr(x.args[0].iter, "t", "") == "zone" and not (_names_of(x) & bound):
                spent = self.tmp("int64_t", "g->budget")
                e = self.hold(self.ex(x, sc))
                cost = self.tmp("int64_t", f"{spent} - g->budget")
                self.hoisted[id(x)] = (e, cost)
                ids.append(id(x))
                continue
            stack.extend(x.children())
        return ids

    def unhoist(self, ids):
        for i in ids:
            self.hoisted.pop(i, None)

    # -- zones and lists ----------------------------------------------------------------------
    def zone(self, e):
        """A zone index (an E of kind z) as C."""
        if e.k == "z":
            return e.c
        if e.k in ("i", "c"):
            return f"zone_ok(g, {e.c})"
        return f"zone_ok(g, need_int(g, {self.V(e)}))"

    def as_list_v(self, e, t):
        """A V list for a value whose static type is t (a zone becomes a copy of its cards)."""
        if t == "zone":
            return f"vlist(zlist(g, {self.zone(e)}))"
        return self.V(e)

    def length(self, e, t):
        """len() of a zone or a list-like value, as C int64_t."""
        if t == "zone":
            return f"((int64_t)g->z[{self.zone(e)}].n)"
        return f"py_len(g, {self.V(e)})"

    # -- scope helpers ------------------------------------------------------------------------
    def pidx(self, n, sc):
        """A player index (0..P-1) for node n, as C int64_t: a fault otherwise."""
        e = self.ex(n, sc)
        if e.seat:
            return e.c
        if e.k in ("i", "c"):
            return f"seat_i(g, {e.c})"
        if e.k == "V":
            return f"seat(g, {e.c})"
        return "fault_i(g, F_PLAYER)"

    def tidx(self, n, sc):
        """A team number used as an index (a team variable's cell, a team zone), as C int64_t: exactly
        an int in 0 .. T-1, a fault otherwise (runtime.team_index)."""
        e = self.ex(n, sc)
        T = self.rs.T
        if e.k in NUMERIC:
            return f"team_i(g, {e.c}, {T})"
        if e.k == "V":
            return f"team_v(g, {e.c}, {T})"
        if e.k in ("F", "FL"):
            raise NativeUnsupported("a card parameter used other than by its attributes in an order")
        return "fault_i(g, F_TEAM)"       # a bool, a text or none: no team

    # ==========================================================================================
    # statements
    # ==========================================================================================
    def block(self, stmts, sc):
        sc = dict(sc)
        for st in stmts:
            self.stmt(st, sc)

    def stmt(self, st, sc):
        if isinstance(st, A.Let):
            e = self.ex(st.value, sc)
            if st.value.t == "zone":
                name = self.fresh("z")
                self.emit(f"int64_t {name} = {self.zone(e)};")
                sc[st.name] = E(name, "z")
            else:
                name = self.fresh("l")
                self.emit(f"V {name} = {self.V(e)};")
                sc[st.name] = E(name, "V")
            return
        if isinstance(st, A.Assign):
            return self.assign(st, sc)
        if isinstance(st, A.CallStmt):
            return self.call_stmt(st.call, sc)
        if isinstance(st, A.If):
            self._if(st.branches, st.orelse, sc)
            return
        if isinstance(st, A.For):
            return self._for(st, sc)
        if isinstance(st, A.While):
            w = loop_weight(st)
            release = not _escapes(st.body)
            mark = None
            if release:
                mark = self.fresh("m")
                self.emit(f"Mark {mark} = amark(g);")
            self.emit("for (;;) {")
            with self.indent():
                c = self.test(st.cond, sc)
                self.emit(f"if (!({c})) break;")
                self.emit(f"charge(g, {w});")
                self.block(st.body, sc)
                if release:
                    self.emit(f"arelease(g, {mark});")
            self.emit("}")
            return
        if isinstance(st, A.Return):        # only in a function's body (Program.spec_function)
            return self.ret(st, sc)
        raise NativeUnsupported(f"statement {type(st).__name__}")

    def _if(self, branches, orelse, sc):
        (c, body), rest = branches[0], branches[1:]
        t = self.test(c, sc)
        self.emit(f"if ({t}) {{")
        with self.indent():
            self.block(body, sc)
        if rest or orelse:
            self.emit("} else {")
            with self.indent():
                if rest:
                    self._if(rest, orelse, sc)
                else:
                    self.block(orelse, sc)
        self.emit("}")

    def _for(self, st, sc):
        w = loop_weight(st)
        release = not _escapes(st.body)

        def body(item):
            inner = dict(sc)
            inner[st.var] = item
            mark = None
            if release:
                mark = self.fresh("m")
                self.emit(f"Mark {mark} = amark(g);")
            self.block(st.body, inner)
            if release:
                self.emit(f"arelease(g, {mark});")
        self.loop(st.iter, sc, body, weight=w, copy=True, stmt=True)

    def assign(self, st, sc):
        val = self.ex(st.value, sc)
        if st.value.t == "zone":
            val = E(f"vlist(zlist(g, {self.zone(val)}))", "V")
        tgt = st.target
        ref = tgt.ref
        op = st.op
        if ref[0] == "local":
            cur = sc.get(tgt.id)
            if cur is None or cur.k != "V" or not cur.c.startswith("l"):
                # a zone-valued local (or a name bound otherwise) reassigned: Python stores anything
                self.emit("BAIL(B_TYPE);")
                return
            v = self.V(val)             # (in the number range: `+`, `-`, `sum` are checked)
            if op == "=":
                self.emit(f"{cur.c} = {v};")
            else:
                self.emit(f"{cur.c} = rt_add_assign(g, {cur.c}, {v}, {1 if op == '+=' else -1});")
            return
        decl = ref[1]
        base = self.rs.var_base[decl.name]
        if ref[0] == "var":
            slot = f"g->v[{base}]"
        elif ref[0] in ("pvar", "tvar"):
            idx = self.pidx(tgt.index, sc) if ref[0] == "pvar" else self.tidx(tgt.index, sc)
            i = self.tmp("int64_t", f"{base} + {idx}")
            slot = f"g->v[{i}]"
        else:
            raise NativeUnsupported(f"an assignment to a target of kind {ref[0]}")
        if op == "=":
            self.emit(f"{slot} = {self.V(val)};")
            return
        sign = 1 if op == "+=" else -1
        if decl.type in ("int", "player"):
            # a plain `+`/`-` on the variable (codegen._update), then the size check
            cur = self.tmp("V", slot)
            x = self.hold(val)
            num_x = self.num(x) if x.k != "V" else f"{x.c}.i"
            test = f"isnum({cur})" + ("" if x.k != "V" else f" && isnum({x.c})")
            self.emit(f"if (!({test})) BAIL(B_TYPE);")
            fn = "add_i" if sign > 0 else "sub_i"
            self.emit(f"{slot} = vint(bounded_i(g, {fn}(g, {cur}.i, {num_x})));")
            return
        self.emit(f"{slot} = rt_add_assign(g, {slot}, {self.V(val)}, {sign});")

    def call_stmt(self, c, sc):
        return CALLS[c.func](self, c, sc)

    @emits("move")
    def bi_move(self, c, sc):
        kw = c.kwargs
        face = {"up": 1, "down": 2}.get(kw["face"].value) if "face" in kw else 0
        bottom = 1 if ("at" in kw and kw["at"].value == "bottom") else 0
        what, dst = c.args
        d = self.hold(E(self.zone(self.ex(dst, sc)), "z"))
        x = self.ex(what, sc)
        if what.t == "card":
            if x.k == "c":
                self.emit(f"rt_move(g, {x.c}, {d.c}, {face}, {bottom});")
            else:
                self.emit(f"rt_move_v(g, {self.V(x)}, {d.c}, {face}, {bottom});")
        elif what.t == "zone":
            self.emit(f"rt_move_zone(g, {self.zone(x)}, {d.c}, {face}, {bottom});")
        else:
            self.emit(f"rt_move_list(g, {self.V(x)}, {d.c}, {face}, {bottom});")

    @emits("deal")
    def bi_deal(self, c, sc):
        kw = c.kwargs
        face = {"up": 1, "down": 2}.get(kw["face"].value) if "face" in kw else 0
        src = self.hold(E(self.zone(self.ex(c.args[0], sc)), "z"))
        dst = self.hold(E(self.zone(self.ex(c.args[1], sc)), "z"))
        if len(c.args) > 2:
            k = self.tmp("int64_t", self.num(self.ex(c.args[2], sc)))
            self.emit(f"if ({k} < 0 || {k} > MAX_DEAL) FAULT(F_DEAL);")    # runtime.h's, the table's
        else:
            k = "1"
        self.emit(f"rt_deal(g, {src.c}, {dst.c}, {k}, {face});")

    @emits("shuffle")
    def bi_shuffle(self, c, sc):
        self.emit(f"rt_shuffle(g, {self.zone(self.ex(c.args[0], sc))});")

    @emits("set_mark")
    def bi_set_mark(self, c, sc):
        what = c.args[0]
        x = self.hold(self.ex(what, sc))
        kind = 0 if what.t == "card" else (1 if what.t == "zone" else 2)
        xv = f"vint({self.zone(x)})" if kind == 1 else self.V(x)
        xv = self.tmp("V", xv)
        v = self.V(self.ex(c.args[2], sc))
        self.emit(f"rt_set_mark(g, {xv}, {kind}, {self.p.mark_index(c.mark.name)}, {v});")

    @emits("reveal")
    def bi_reveal(self, c, sc):
        what, who = c.args
        p = self.ex(who, sc)
        if p.seat:
            pc = p.c
        else:
            pc = self.tmp("int64_t", self.num(p))
            self.emit(f"if ({pc} < 0 || {pc} >= {self.rs.P}) FAULT(F_PLAYER);")
        x = self.ex(what, sc)
        if what.t == "card":
            if x.k == "c":
                self.emit(f"g->kn[{x.c}] |= (uint64_t)1 << {pc};")
            else:
                self.emit(f"rt_reveal_card(g, {self.V(x)}, {pc});")
        elif what.t == "zone":
            self.emit(f"rt_reveal_zone(g, {self.zone(x)}, {pc});")
        else:
            self.emit(f"rt_reveal_list(g, {self.V(x)}, {pc});")

    @emits("end_game", "end_phase", "end_turn")
    def bi_end(self, c, sc):
        self.emit(f"return {({'end_game': END_GAME, 'end_phase': END_PHASE, 'end_turn': END_TURN})[c.func]};")

    # ==========================================================================================
    # loops over lists, zones, ranges and constant lists
    # ==========================================================================================
    def iterable(self, n, sc):
        """What a loop walks: ('zone', zi) | ('range', lo, hi) | ('seats', first, count) |
        ('const', values) | ('list', V)."""
        if isinstance(n, A.Name) and n.ref == ("const", "players"):
            return ("seats", "0", self.rs.P, True)
        if isinstance(n, A.Call) and not n.kwargs and n.func in ("others", "players_from") and not _is_gen(n):
            p = self.hold(E(self.pidx(n.args[0], sc), "i"))
            if n.func == "others":
                return ("seats", p.c, self.rs.P - 1, False)
            return ("seats", p.c, self.rs.P, True)
        if isinstance(n, A.Call) and n.func == "range" and not _is_gen(n):
            if len(n.args) == 1:
                lo, hi = "0", self.num(self.ex(n.args[0], sc))
            else:
                lo = self.num(self.ex(n.args[0], sc))
                hi = self.num(self.ex(n.args[1], sc))
            lo = self.tmp("int64_t", lo)
            hi = self.tmp("int64_t", hi)
            span = self.tmp("int64_t", f"span_i({lo}, {hi})")
            self.emit(f"if ({span} > MAX_RANGE) FAULT(F_RANGE);")
            self.emit(f"if ({span} > 0) charge(g, {span});")     # the range's own list, as _range charges
            return ("range", lo, hi)
        if isinstance(n, A.Call) and n.func == "indices":
            keys = list(self.rs.zone_keys[n.args[0].ref[1].name])
            return ("const", keys)
        if isinstance(n, A.ListLit) and all(isinstance(x, A.Const) for x in n.items):
            return ("const", [x.value for x in n.items])
        e = self.ex(n, sc)
        if n.t == "zone":
            return ("zone", self.hold(E(self.zone(e), "z")).c)
        return ("list", self.hold(E(self.V(e), "V")).c)

    def loop(self, n, sc, body, weight=1, copy=False, stmt=False, extra=0):
        """Emit a loop over iterable node n, charging len * weight (+ extra per item) first; body(E)
        emits the body for one item. `copy`: a zone is copied first (a statement's body may move
        its cards)."""
        self.loop_it(self.iterable(n, sc), body, weight + extra, copy)

    def loop_it(self, it, body, per, copy=False):
        """loop() for an iterable already made by iterable()."""
        kind = it[0]
        if kind == "seats":
            _, first, count, _ = it
            if per and count:
                self.emit(f"charge(g, {count * per});")
            i = self.fresh("k")
            self.emit(f"for (int64_t {i} = 0; {i} < {count}; {i}++) {{")
            with self.indent():
                if first == "0":
                    item = E(i, "i", seat=True)
                else:
                    off = 1 if count == self.rs.P - 1 else 0
                    x = self.tmp("int64_t", f"({first} + {i} + {off}) % {self.rs.P}")
                    item = E(x, "i", seat=True)
                body(item)
            self.emit("}")
            return
        if kind == "range":
            _, lo, hi = it
            if per:
                self.emit(f"if ({hi} > {lo}) charge(g, ({hi} - {lo}) * {per});")
            i = self.fresh("k")
            self.emit(f"for (int64_t {i} = {lo}; {i} < {hi}; {i}++) {{")
            with self.indent():
                body(E(i, "i"))
            self.emit("}")
            return
        if kind == "const":
            values = it[1]
            if per and values:
                self.emit(f"charge(g, {len(values) * per});")
            if not values:
                return
            kinds = {_const_kind(v) for v in values}
            i = self.fresh("k")
            if kinds == {"i"} and abs(values[0]) < 2 ** 40 and list(values) == list(range(values[0], values[0] + len(values))):
                # consecutive numbers (players, 1..n): the index itself, so that C sees their range
                self.emit(f"for (int64_t {i} = {values[0]}LL; {i} < {values[0] + len(values)}LL; {i}++) {{")
                with self.indent():
                    body(E(i, "i"))
            elif kinds == {"i"}:
                arr = self.p.const_array("int64_t", [str(v) + "LL" for v in values])
                self.emit(f"for (int {i} = 0; {i} < {len(values)}; {i}++) {{")
                with self.indent():
                    body(E(f"{arr}[{i}]", "i"))
            elif kinds == {"s"}:
                arr = self.p.const_array("int64_t", [str(self.p.texts(v)) for v in values])
                self.emit(f"for (int {i} = 0; {i} < {len(values)}; {i}++) {{")
                with self.indent():
                    body(E(f"{arr}[{i}]", "s"))
            else:
                lst = self.p.pool.list_name(values)
                self.emit(f"for (int {i} = 0; {i} < {len(values)}; {i}++) {{")
                with self.indent():
                    body(E(f"{lst}.a[{i}]", "V"))
            self.emit("}")
            return
        if kind == "zone":
            zi = it[1]
            n_ = self.tmp("int32_t", f"g->z[{zi}].n")
            if per:
                self.emit(f"charge(g, (int64_t){n_} * {per});")
            if copy:
                arr = self.tmp("int32_t *", f"(int32_t *)aalloc(g, (size_t){n_} * sizeof(int32_t) + 4)")
                self.emit(f"memcpy({arr}, g->z[{zi}].a, (size_t){n_} * sizeof(int32_t));")
            else:
                arr = self.tmp("const int32_t *", f"g->z[{zi}].a")
            i = self.fresh("k")
            self.emit(f"for (int32_t {i} = 0; {i} < {n_}; {i}++) {{")
            with self.indent():
                body(E(f"(int64_t){arr}[{i}]", "c"))
            self.emit("}")
            return
        lv = it[1]
        l_ = self.tmp("List *", f"need_list(g, {lv})")
        if per:
            self.emit(f"charge(g, (int64_t){l_}->n * {per});")
        i = self.fresh("k")
        self.emit(f"for (int32_t {i} = 0; {i} < {l_}->n; {i}++) {{")
        with self.indent():
            body(E(f"{l_}->a[{i}]", "V"))
        self.emit("}")

    # ==========================================================================================
    # expressions
    # ==========================================================================================
    def test(self, n, sc):
        return self.truth(self.ex(n, sc))

    def ex(self, n, sc):
        hoisted = self.hoisted.get(id(n)) if self.hoisted else None
        if hoisted is not None:     # evaluated before the loop (hoist): charged here as if evaluated here
            self.emit(f"charge(g, {hoisted[1]});")
            return hoisted[0]
        if isinstance(n, A.Const):
            return self.const(n.value)
        if isinstance(n, A.Name):
            return self.name(n, sc)
        if isinstance(n, A.Index):
            return self.index(n, sc)
        if isinstance(n, A.Attr):
            return self.attr(n, sc)
        if isinstance(n, A.BinOp):
            return self.binop(n, sc)
        if isinstance(n, A.Compare):
            return self.compare(n, sc)
        if isinstance(n, A.BoolOp):
            return self.boolop(n, sc)
        if isinstance(n, A.IfExp):
            return self.ifexp(n, sc)
        if isinstance(n, A.Unary):
            if n.op == "not":
                return E(f"(!{self.test(n.operand, sc)})", "b")
            a = self.ex(n.operand, sc)
            return E(self.tmp("int64_t", f"neg_i(g, {self.num(a)})"), "i")
        if isinstance(n, A.ListLit):
            if all(isinstance(x, A.Const) for x in n.items):
                return E(self.p.pool.list_v([x.value for x in n.items]), "V")
            items = [self.V(self.hold(self.ex(x, sc))) for x in n.items]
            lst = self.tmp("List *", f"list_new(g, {len(items)})")
            for i, x in enumerate(items):
                self.emit(f"{lst}->a[{i}] = {x};")
            return E(f"vlist({lst})", "V")
        if isinstance(n, A.Comp):
            return self.comp(n, sc)
        if isinstance(n, A.Call):
            return self.call(n, sc)
        raise NativeUnsupported(f"expression {type(n).__name__}")

    def const(self, v):
        if v is None:
            return E("0", "n")
        if isinstance(v, bool):
            return E("1" if v else "0", "b")
        if isinstance(v, int):
            if not -(1 << 63) < v < (1 << 63):
                raise NativeUnsupported("a number beyond 64 bits")
            return E(f"{v}LL", "i")
        if isinstance(v, str):
            return E(str(self.p.texts(v)), "s")
        raise NativeUnsupported(f"a constant {type(v).__name__}")

    def name(self, n, sc):
        kind = n.ref[0]
        if kind == "local":
            e = sc.get(n.id)
            if e is None:
                raise NativeUnsupported("an unbound name")
            return e
        if kind == "const":
            if n.id == "current":
                return E("g->cur", "i", seat=True)
            if n.id == "actor":
                return E("g->actor", "i", seat=True)
            if n.id == "players":
                return E(self.p.pool.list_v(list(range(self.rs.P))), "V")
            if n.id == "num_players":
                return E(str(self.rs.P), "i")
            if n.id == "num_teams":
                return E(str(self.rs.T), "i")
            raise NativeUnsupported(f"the constant {n.id}")
        if kind == "zone":
            return E(str(self.rs.zone_base[n.id]), "z")
        if kind == "var":
            return E(f"g->v[{self.rs.var_base[n.id]}]", "V")
        if kind == "option":
            v = self.rs.options[n.id]
            return self.const(v)
        raise NativeUnsupported(f"a name of kind {kind}")

    def index(self, n, sc):
        ref = n.ref
        kind = ref[0]
        rs = self.rs
        if kind == "member":
            z = ref[1]
            base = rs.zone_base[z.name]
            if z.per_player:
                return E(self.tmp("int64_t", f"{base} + {self.pidx(n.index, sc)}"), "z")
            if z.per_team:
                return E(self.tmp("int64_t", f"{base} + {self.tidx(n.index, sc)}"), "z")
            keys = list(rs.zone_keys[z.name])
            if isinstance(n.index, A.Const):
                for i, k in enumerate(keys):
                    if _py_eq(k, n.index.value):
                        return E(str(base + i), "z")
                return E("fault_i(g, F_KEY)", "z")
            key = self.hold(self.ex(n.index, sc))
            out = self.fresh("z")
            self.emit(f"int64_t {out} = -1;")
            ints = all(isinstance(k, int) and not isinstance(k, bool) for k in keys)
            strs = all(isinstance(k, str) for k in keys)
            if ints and keys == list(range(keys[0], keys[0] + len(keys))) and key.k in ("i", "c", "b", "V"):
                kv = self.num(key) if key.k != "V" else None
                if kv is None:
                    kv = self.tmp("V", key.c)
                    self.emit(f"if (isnum({kv}) && {kv}.i >= {keys[0]} && {kv}.i < {keys[0] + len(keys)}) "
                              f"{out} = {base} + ({kv}.i - {keys[0]});")
                else:
                    self.emit(f"if ({kv} >= {keys[0]} && {kv} < {keys[0] + len(keys)}) {out} = {base} + ({kv} - {keys[0]});")
            elif strs and key.k == "s":
                self.emit(f"switch ({key.c}) {{")
                for i, k in enumerate(keys):
                    self.emit(f"case {self.p.texts(k)}: {out} = {base + i}; break;")
                self.emit("default: break;")
                self.emit("}")
            elif strs and key.k == "V":
                self.emit(f"if ({key.c}.t == T_STR) switch ({key.c}.i) {{")
                for i, k in enumerate(keys):
                    self.emit(f"case {self.p.texts(k)}: {out} = {base + i}; break;")
                self.emit("default: break;")
                self.emit("}")
            else:
                kv = self.tmp("V", self.V(key))
                for i, k in enumerate(keys):
                    self.emit(f"{'if' if i == 0 else 'else if'} (py_eq({kv}, (V){self.p.pool.v(k)})) {out} = {base + i};")
            self.emit(f"if ({out} < 0) FAULT(F_KEY);")
            return E(out, "z")
        if kind in ("pvar", "tvar"):
            base = rs.var_base[ref[1].name]
            idx = self.pidx(n.index, sc) if kind == "pvar" else self.tidx(n.index, sc)
            return E(f"g->v[{base} + {idx}]", "V")
        if kind not in ("table", "item"):
            raise NativeUnsupported(f"an index of kind {kind}")
        if kind == "table":
            return self.table_lookup(ref[1], self.ex(n.index, sc))
        # an item of a list or a zone
        obj = self.ex(n.obj, sc)
        idx = self.ex(n.index, sc)
        if n.obj.t == "zone":
            zi = self.zone(obj)
            zi = self.tmp("int64_t", zi)
            k = self.tmp("int64_t", self.num(idx))
            self.emit(f"if ({k} < 0) {k} += g->z[{zi}].n;")
            self.emit(f"if ({k} < 0 || {k} >= g->z[{zi}].n) FAULT(F_INDEX);")
            return E(f"((int64_t)g->z[{zi}].a[{k}])", "c")
        return E(self.tmp("V", f"rt_index(g, {self.V(obj)}, {self.V(idx)})"), "V")

    def table_lookup(self, tname, key):
        table = self.rs.tables[tname]
        fn = self.p.table_fn(tname, table)
        if fn[1] == "dense" and key.k in ("i", "c"):
            return E(self.tmp("V", f"{fn[0]}_i(g, {key.c})"), "V")
        return E(self.tmp("V", f"{fn[0]}(g, {self.V(key)})"), "V")

    def attr(self, n, sc):
        obj = self.ex(n.obj, sc)
        arr, kind = self.p.attr_table(n.name)
        if obj.k == "F":        # an order expression: the face must have the attribute
            has = self.p.has_attr_table(n.name)
            self.emit(f"if (!{has}[FACE_OF[{obj.c}]]) FAULT(F_TYPE);")
            c = obj.c
        elif obj.k == "c":
            c = obj.c
        elif obj.k == "V":
            c = f"card_of(g, {obj.c})"
        elif obj.k == "i":
            c = f"card_i(g, {obj.c})"
        elif obj.k == "n":
            c = "fault_i(g, F_NONE_ATTR)"
        else:
            c = "bail_i(g, B_TYPE)"
        if kind in ("i", "s", "b"):
            return E(f"{arr}[{c}]", kind)
        return E(f"{arr}[{c}]", "V")

    def binop(self, n, sc):
        op = n.op
        a = self.ex(n.left, sc)
        b = self.ex(n.right, sc)
        untyped = getattr(n.left, "t", "any") == "any" or getattr(n.right, "t", "any") == "any"
        if op == "+":
            if n.t in ("cards", "players", "list"):
                return E(self.tmp("V", f"rt_join(g, {self.V(a)}, {self.V(b)})"), "V")
            if untyped:
                return E(self.tmp("V", f"rt_plus_any(g, {self.V(a)}, {self.V(b)})"), "V")
            return E(self.tmp("int64_t", f"add_i(g, {self.num(a)}, {self.num(b)})"), "i")
        if op in ("-", "//", "%") and untyped:
            code = {"-": "'-'", "//": "'/'", "%": "'%'"}[op]
            return E(self.tmp("V", f"rt_arith_any(g, {code}, {self.V(a)}, {self.V(b)})"), "V")
        if op == "-":
            return E(self.tmp("int64_t", f"sub_i(g, {self.num(a)}, {self.num(b)})"), "i")
        if op == "//":
            return E(self.tmp("int64_t", f"fdiv_i(g, {self.num(a)}, {self.num(b)})"), "i")
        if op == "%":
            return E(self.tmp("int64_t", f"mod_i(g, {self.num(a)}, {self.num(b)})"), "i")
        if op == "*":
            if a.k in NUMERIC + ("b",) and b.k in NUMERIC + ("b",):
                return E(self.tmp("int64_t", f"mul_i(g, {self.num(a)}, {self.num(b)})"), "i")
            r = self.tmp("V", f"rt_mul_any(g, {self.V(a)}, {self.V(b)})")
            return E(r, "V")
        if op == "**":
            return E(self.tmp("int64_t", f"pow_i(g, {self.num(a)}, {self.num(b)})"), "i")
        raise NativeUnsupported(f"operator {op}")

    def compare(self, n, sc):
        op = n.op
        a, ids = self.text_attr(n.left, sc) if op in ("==", "!=") else (None, None)
        if a is None:
            a = self.hold(self.ex(n.left, sc))
        if op in ("in", "not in"):
            if n.right.t == "zone":
                zi = self.zone(self.ex(n.right, sc))
                zi = self.tmp("int64_t", zi)
                self.emit(f"charge(g, g->z[{zi}].n);")
                r = f"zcontains(g, {zi}, {self.V(a)})"
            else:
                r = f"rt_in(g, {self.V(a)}, {self.V(self.ex(n.right, sc))})"
            r = self.tmp("int", r)
            return E(r if op == "in" else f"(!{r})", "b")
        b = self.hold(self.ex(n.right, sc))
        if op in ("==", "!="):
            eq = self.equals(a, b, ids)
            return E(eq if op == "==" else f"(!{eq})", "b")
        ka, kb = a.k, b.k
        nums = NUMERIC + ("b",)
        if ka in nums and kb in nums:
            return E(f"({self.num(a)} {op} {self.num(b)})", "b")
        if ka == "s" and kb == "s":
            return E(f"({a.c} {op} {b.c})", "b")
        av, bv = self.V(a), self.V(b)
        if op == "<":
            r = f"py_lt(g, {av}, {bv})"
        elif op == "<=":
            r = f"py_le(g, {av}, {bv})"
        elif op == ">":
            r = f"py_lt(g, {bv}, {av})"
        else:
            r = f"py_le(g, {bv}, {av})"
        return E(self.tmp("int", r), "b")

    def text_attr(self, n, sc):
        """`c.attr` of an attribute holding texts or none, on the left of == / !=: (the value held,
        the same read from its int64 text-id table (-1: none)), else (None, None). Compared with a
        text, the id is one load and one compare instead of a V's tag and id."""
        if not isinstance(n, A.Attr) or self.p.attr_text_ids(n.name) is None:
            return None, None
        e = self.attr(n, sc)
        arr = self.p.attr_table(n.name)[0]
        if e.k != "V" or not (e.c.startswith(arr + "[") and e.c.endswith("]")):
            return self.hold(e), None
        c = self.tmp("int64_t", e.c[len(arr) + 1:-1])
        return E(f"{arr}[{c}]", "V"), f"{self.p.attr_text_ids(n.name)}[{c}]"

    def equals(self, a, b, ids=None):
        """C int: a == b with Python's equality (both held: each read once or pure); `ids`: a's text id
        (text_attr) when a is a text-or-none attribute."""
        ka, kb = a.k, b.k
        if ids is not None and kb == "s":
            return f"({ids} == {b.c})"
        nums = NUMERIC + ("b",)
        if ka in nums and kb in nums:
            return f"({self.num(a)} == {self.num(b)})"
        if ka == "s" and kb == "s":
            return f"({a.c} == {b.c})"
        if ka == "n" and kb == "n":
            return "1"
        if ka == "V" and kb == "V":
            return f"py_eq({a.c}, {b.c})"
        if ka == "V" or kb == "V":
            v, o = (a, b) if ka == "V" else (b, a)
            if o.k in nums:
                return f"(isnum({v.c}) && {v.c}.i == {self.num(o)})"
            if o.k == "s":
                return f"({v.c}.t == T_STR && {v.c}.i == {o.c})"
            if o.k == "n":
                return f"({v.c}.t == T_NONE)"
        return "0"      # different static kinds: never equal (a text and a number, none and a number)

    def boolop(self, n, sc):
        a = self.ex(n.left, sc)
        with self.capture() as rb:
            b = self.ex(n.right, sc)
        if a.k == "b" and b.k == "b":
            r = self.tmp("int", a.c)
            self.emit(f"if ({'' if n.op == 'and' else '!'}{r}) {{")
            with self.indent():
                self.put(_reindent(rb, 1))
                self.emit(f"{r} = {b.c};")
            self.emit("}")
            return E(r, "b")
        # Python's `and`/`or` give an operand (the generated backend's semantics)
        r = self.tmp("V", self.V(a))
        self.emit(f"if ({'' if n.op == 'and' else '!'}truthy({r})) {{")
        with self.indent():
            self.put(_reindent(rb, 1))
            self.emit(f"{r} = {self.V(b)};")
        self.emit("}")
        return E(r, "V")

    def ifexp(self, n, sc):
        c = self.test(n.cond, sc)
        with self.capture() as r1:
            x = self.ex(n.body, sc)
        with self.capture() as r2:
            y = self.ex(n.orelse, sc)
        if x.k == y.k and x.k in ("i", "b", "s", "z", "c"):
            ctype = "int" if x.k == "b" else "int64_t"
            kind = x.k
            xs, ys = x.c, y.c
        elif x.k == "n" and y.k == "n":
            return E("0", "n")
        else:
            ctype, kind = "V", "V"
            xs, ys = self.V(x), self.V(y)
        out = self.fresh()
        self.emit(f"{ctype} {out};")
        self.emit(f"if ({c}) {{")
        with self.indent():
            self.put(_reindent(r1, 1))
            self.emit(f"{out} = {xs};")
        self.emit("} else {")
        with self.indent():
            self.put(_reindent(r2, 1))
            self.emit(f"{out} = {ys};")
        self.emit("}")
        return E(out, kind, seat=x.seat and y.seat)

    # -- comprehensions and aggregates ---------------------------------------------------------
    def comp(self, n, sc):
        """[elt for var in iter if cond] as a list."""
        return E(self.comp_from(self.iterable(n.iter, sc), n, sc, comp_weight(n)), "V")


    def aggregate(self, n, sc):
        """A built-in over a generator (`f(e for x in xs if c)`, `key=`): its entry in AGGREGATES; a named
        argument the table does not give it is refused."""
        f = n.func
        if set(n.kwargs) - set(BUILTINS[f].kwargs):
            unknown = ", ".join(sorted(set(n.kwargs) - set(BUILTINS[f].kwargs)))
            raise NativeUnsupported(f"{f}(... for ...) with {unknown}=")
        return AGGREGATES[f](self, n, sc)

    def agg_loop(self, n, sc):
        """The shared step of the generator forms: (the comprehension, its iterable, the weight of an
        item (the `key=`'s too), bind: item -> the scope with the loop variable bound, after its
        condition is tested (a `continue`))."""
        c = n.args[0]
        itv = self.iterable(c.iter, sc)
        w = comp_weight(c, n.kwargs.get("key"))

        def bind(item):
            inner = dict(sc)
            inner[c.var] = item
            if c.cond is not None:
                t = self.test(c.cond, inner)
                self.emit(f"if (!({t})) continue;")
            return inner
        return c, itv, w, bind

    @aggregates("count")
    def agg_count(self, n, sc):
        got = self.count_kept(n, sc)
        if got is not None:
            return got
        c, itv, w, bind = self.agg_loop(n, sc)
        k = self.tmp("int64_t", "0")

        def body(item):
            bind(item)
            self.emit(f"{k}++;")
        self.loop_it(itv, body, w)
        return E(k, "i")

    def count_kept(self, n, sc):
        """`count(c for c in <zone> if c.a == x and c.b == y ...)` (fixed attributes compared with values
        that do not read c) read from the counts the run time keeps per zone (Program.count_key,
        docs/native.md "Zone counts by attribute"): the zone's size charged as the loop charges it, the
        values evaluated once (only when the zone holds a card: Python evaluates them for some card,
        or, when an earlier test fails for every card, for none; a fault there sends the game to the
        Python engine), their class looked up, its count read. None: not of that form (the loop)."""
        c = n.args[0] if len(n.args) == 1 and not n.kwargs else None
        if not isinstance(c, A.Comp) or not c.gen or c.cond is None or getattr(c.iter, "t", "") != "zone":
            return None
        terms = _attr_tests(c.cond, c.var)
        if not terms:
            return None
        key = self.p.count_key([a for a, _ in terms], self._zones_of(c.iter))
        if key is None:
            return None
        w = comp_weight(c)
        # the values, evaluated aside: none may charge a step (Python would charge it per card) or be a
        # card parameter of an order
        with self.capture() as pre:
            vals = {}
            for a, x in terms:
                if isinstance(x, A.Const):
                    if isinstance(x.value, float):      # (1.0 == 1: not a key's value)
                        return None
                    norm = _count_norm(x.value)
                    e = ("const", norm)
                else:
                    ex = self.hold(self.ex(x, sc))
                    if ex.k in ("F", "FL"):
                        return None
                    e = ("V", self.V(ex))
                vals.setdefault(a, []).append(e)
        if any("charge(" in ln or "arelease(" in ln for ln in pre):
            return None
        zi = self.hold(E(self.zone(self.ex(c.iter, sc)), "z")).c
        n_ = self.tmp("int32_t", f"g->z[{zi}].n")
        if w:
            self.emit(f"charge(g, (int64_t){n_} * {w});")
        k = self.tmp("int64_t", "0")
        self.emit(f"if ({n_} > 0) {{")
        with self.indent():
            self.put(_reindent(pre, 1))
            # per attribute of the key: its value's index (-1: no card holds it); a name tested twice
            # (c.a == x and c.a == y) needs both to agree
            idx = []
            for j, a in enumerate(key.names):
                parts = []
                for kind, v in vals[a]:
                    if kind == "const":
                        parts.append(str(key.locals[j].get(v, -1)) if v is not None else "-1")
                    else:
                        parts.append(f"{self.p.count_value_fn(key, j)}({v})")
                i = self.tmp("int32_t", parts[0])
                for other in parts[1:]:
                    self.emit(f"if ({other} != {i}) {i} = -1;")
                idx.append((i, len(key.locals[j])))
            if key.combo is None:
                cls = idx[0][0]
            else:
                ok = " && ".join(f"{i} >= 0" for i, _ in idx)
                flat = idx[0][0]
                for i, size in idx[1:]:
                    flat = f"({flat}) * {size} + {i}"
                cls = self.tmp("int32_t", f"({ok}) ? {key.combo}[{flat}] : -1")
            row = self.tmp("int64_t", f"CNT_ROW[{zi}]")
            self.emit(f"if ({row} < 0) BAIL(B_STATE);")      # (never: the zones read are counted)
            self.emit(f"if ({cls} >= 0) {k} = g->cnt[{row} * CNT_S + {key.off} + {cls}];")
        self.emit("}")
        return E(k, "i")

    def _zones_of(self, n):
        """The zone indices a zone expression may give: a zone, every zone of an indexed family, or
        None (any zone)."""
        ref = getattr(n, "ref", None) or ()
        if isinstance(n, A.Index) and ref and ref[0] == "member":
            name = ref[1].name
        elif isinstance(n, A.Name) and ref and ref[0] == "zone":
            name = n.id
        else:
            return None
        if name not in self.rs.zone_base:
            return None
        base = self.rs.zone_base[name]
        return range(base, base + len(self.rs.zone_keys[name]))

    @aggregates("sum")
    def agg_sum(self, n, sc):
        c, itv, w, bind = self.agg_loop(n, sc)
        k = self.tmp("__int128", "0")       # only the total must be in the range (runtime.c rt_sum)

        def body(item):
            inner = bind(item)
            e = self.ex(c.elt, inner)
            if e.k == "V":
                self.emit(f"if (!isnum({e.c})) FAULT(F_TYPE);")
                self.emit(f"{k} += {e.c}.i;")
            else:
                self.emit(f"{k} += {self.num(e)};")
        self.loop_it(itv, body, w)
        return E(self.tmp("int64_t", f"sum_end(g, {k})"), "i")

    @aggregates("any", "all")
    def agg_truth(self, n, sc):
        c, itv, w, bind = self.agg_loop(n, sc)
        f = n.func
        r = self.tmp("int", "0" if f == "any" else "1")

        def body(item):
            inner = bind(item)
            t = self.truth(self.ex(c.elt, inner))
            if f == "any":
                self.emit(f"if ({t}) {{ {r} = 1; break; }}")
            else:
                self.emit(f"if (!({t})) {{ {r} = 0; break; }}")
        self.loop_it(itv, body, w)
        return E(r, "b")

    @aggregates("max", "min")
    def agg_best(self, n, sc):
        """max/min keep the first item greatest (least); with `key=` (runtime.best_by) the first whose
        key is, the key computed before the item, each key compared with the best so far from the
        first item on (the first with itself, as best_by does)."""
        c, itv, w, bind = self.agg_loop(n, sc)
        f = n.func
        key = n.kwargs.get("key")
        if key is not None:
            best_k = self.tmp("V", "vnone()")
        best = self.tmp("V", "vnone()")
        have = self.tmp("int", "0")

        def body(item):
            inner = bind(item)
            if key is None:
                e = self.tmp("V", self.V(self.ex(c.elt, inner)))
                better = f"py_lt(g, {best}, {e})" if f == "max" else f"py_lt(g, {e}, {best})"
                self.emit(f"if (!{have}) {{ {best} = {e}; {have} = 1; }} else if ({better}) {best} = {e};")
                return
            k = self.tmp("V", self.V(self.ex(key, inner)))
            e = self.tmp("V", self.V(self.ex(c.elt, inner)))
            self.emit(f"if (!{have}) {{ {best_k} = {k}; {best} = {e}; {have} = 1; }}")
            better = f"py_lt(g, {best_k}, {k})" if f == "max" else f"py_lt(g, {k}, {best_k})"
            self.emit(f"if ({better}) {{ {best_k} = {k}; {best} = {e}; }}")
        self.loop_it(itv, body, w)
        self.best_or_default(n, sc, best, have)
        return E(best, "V")

    @aggregates("first", "last")
    def agg_end(self, n, sc):
        """first: the item, then out of the loop; last: every item overwrites the one before."""
        c, itv, w, bind = self.agg_loop(n, sc)
        r = self.tmp("V", "vnone()")

        def body(item):
            inner = bind(item)
            e = self.ex(c.elt, inner)
            self.emit(f"{r} = {self.V(e)};")
            if n.func == "first":
                self.emit("break;")
        self.loop_it(itv, body, w)
        return E(r, "V")

    @aggregates("sorted")
    def agg_sorted(self, n, sc):
        """sorted, or with `key=` (runtime.sorted_by) ordered by the key, stably."""
        c, itv, w, bind = self.agg_loop(n, sc)
        key = n.kwargs.get("key")
        if key is None:
            lst = self.comp_from(itv, c, sc, w)
            return E(self.tmp("V", f"rt_sorted(g, {lst})"), "V")
        keys, items = self.fresh("o"), self.fresh("o")
        self.emit(f"List *{keys} = {self.list_for(itv)};")
        self.emit(f"List *{items} = {self.list_for(itv)};")
        cnt = self.tmp("int32_t", "0")

        def body(item):
            inner = bind(item)
            k = self.hold(E(self.V(self.ex(key, inner)), "V"))
            e = self.V(self.ex(c.elt, inner))
            self.emit(f"{keys}->a[{cnt}] = {k.c};")
            self.emit(f"{items}->a[{cnt}++] = {e};")
        self.loop_it(itv, body, w)
        self.emit(f"{keys}->n = {cnt}; {items}->n = {cnt};")
        return E(self.tmp("V", f"rt_sorted_by(g, {keys}, {items})"), "V")

    @aggregates("product")
    def agg_product(self, n, sc):
        """The items (charged as charged_list charges them), then multiplied."""
        c, itv, w, bind = self.agg_loop(n, sc)
        lst = self.comp_from(itv, c, sc, w)
        return E(self.tmp("int64_t", f"rt_cb_multiply(g, {lst})"), "i")

    def best_or_default(self, n, sc, best, have):
        """After a max/min loop: its `default` (evaluated whether needed or not, after the items, as
        the generated backend's `max([...], default=d)` and runtime.best_by evaluate it) where nothing
        was found, else the fault."""
        if "default" in n.kwargs:
            d = self.hold(E(self.V(self.ex(n.kwargs["default"], sc)), "V"))
            self.emit(f"if (!{have}) {best} = {d.c};")
        else:
            self.emit(f"if (!{have}) FAULT(F_EMPTY_LIST);")

    def list_for(self, itv):
        """A new list as long as iterable itv (at most), as C."""
        kind = itv[0]
        if kind == "seats":
            return f"list_new(g, {itv[2]})"
        if kind == "range":
            return f"list_new(g, {itv[2]} > {itv[1]} ? {itv[2]} - {itv[1]} : 0)"
        if kind == "const":
            return f"list_new(g, {len(itv[1])})"
        if kind == "zone":
            return f"list_new(g, g->z[{itv[1]}].n)"
        return f"list_new(g, need_list(g, {itv[1]})->n)"

    def comp_from(self, itv, c, sc, w):
        out = self.fresh("o")
        self.emit(f"List *{out} = {self.list_for(itv)};")
        cnt = self.tmp("int32_t", "0")

        def body(item):
            inner = dict(sc)
            inner[c.var] = item
            if c.cond is not None:
                t = self.test(c.cond, inner)
                self.emit(f"if (!({t})) continue;")
            e = self.ex(c.elt, inner)
            self.emit(f"{out}->a[{cnt}++] = {self.V(e)};")
        self.loop_it(itv, body, w)
        self.emit(f"{out}->n = {cnt};")
        return f"vlist({out})"

    # -- built-in calls ------------------------------------------------------------------------
    def call(self, n, sc):
        f = n.func
        if getattr(n, "fn", None) is not None:
            return self.spec_call(n, sc)
        if n.args and isinstance(n.args[0], A.Comp) and n.args[0].gen:
            return self.aggregate(n, sc)
        known = {"default"} if f in ("max", "min") else {"min"} if f in ("is_max", "is_sole_max") else set()
        if set(n.kwargs) - known and f != "can":      # (can()'s are the action's parameters)
            raise NativeUnsupported(f"{f}() with {', '.join(sorted(set(n.kwargs) - known))}=")
        return CALLS[f](self, n, sc)

    def list_head(self, n, sc):
        """A function of a list (a zone is its cards): the first argument held, and charged where the call
        walks it (WALKS_LIST; not max/min of several); -> (the held E, its kind)."""
        args = n.args
        first = self.hold(self.ex(args[0], sc))
        if n.func in WALKS_LIST and not (n.func in ("max", "min") and len(args) > 1):
            self.emit(f"charge(g, {self.length(first, args[0].t)});")
        return first, args[0].t

    def list_xs(self, n, sc):
        """A function of a list: its first argument as a V list (list_head's, charged)."""
        first, t0 = self.list_head(n, sc)
        return self.as_list_v(first, t0)

    @emits("team")
    def bi_team(self, n, sc):
        arr = self.p.const_array("int64_t", [f"{t}LL" for t in self.rs.seat_team])
        return E(f"{arr}[{self.pidx(n.args[0], sc)}]", "i")

    @emits("members")
    def bi_members(self, n, sc):
        arr = self.p.const_array("V", [self.p.pool.v(list(m)) for m in self.rs.team_members])
        return E(f"{arr}[{self.tidx(n.args[0], sc)}]", "V")

    @emits("indices")
    def bi_indices(self, n, sc):
        keys = list(self.rs.zone_keys[n.args[0].ref[1].name])
        return E(self.p.pool.list_v(keys), "V")

    @emits("others", "players_from", "next_player", "prev_player")
    def bi_seats(self, n, sc):
        f, P = n.func, self.rs.P
        p = self.hold(E(self.pidx(n.args[0], sc), "i"))
        if f == "next_player":
            return E(f"(({p.c} + 1) % {P})", "i", seat=True)
        if f == "prev_player":
            return E(f"(({p.c} + {P - 1}) % {P})", "i", seat=True)
        cnt = P - 1 if f == "others" else P
        off = 1 if f == "others" else 0
        lst = self.tmp("List *", f"list_new(g, {cnt})")
        self.emit(f"for (int64_t q = 0; q < {cnt}; q++) {lst}->a[q] = vint(({p.c} + q + {off}) % {P});")
        return E(f"vlist({lst})", "V")

    @emits("can")
    def bi_can(self, n, sc):
        """can(action, name=v, ...) (compile/actions.py ActionRT.can): the given values evaluated in
        the call's order, then the action's can function (Program.can_fn) for those parameters."""
        from ..actions import can_params
        given = can_params(self.rs.spec, n)
        fixed = sorted(i for i, _ in given)
        fname = self.p.can_fn(n.action, fixed)
        if not given:
            return E(self.tmp("int", f"{fname}(g, NULL)"), "b")
        arr = self.fresh("gv")
        self.emit(f"V {arr}[{len(fixed)}];")
        for i, v in given:
            self.emit(f"{arr}[{fixed.index(i)}] = {self.V(self.ex(v, sc))};")
        return E(self.tmp("int", f"{fname}(g, {arr})"), "b")

    @emits("mark")
    def bi_mark(self, n, sc):
        c = self.ex(n.args[0], sc)
        m = self.p.mark_index(n.mark.name)
        kind = "b" if n.mark.type == "bool" else "i"
        if c.k == "c":
            ci = c.c
        else:
            cv = self.tmp("V", self.V(c))
            self.emit(f"if ({cv}.t == T_NONE) FAULT(F_NO_CARD);")
            ci = f"card_of(g, {cv})"
        return E(self.tmp("int64_t" if kind == "i" else "int", f"g->mk[{m * self.rs.ncards} + {ci}]"), kind)

    @emits("range")
    def bi_range(self, n, sc):
        if len(n.args) == 1:
            lo, hi = "0", self.num(self.ex(n.args[0], sc))
        else:
            lo = self.hold(E(self.num(self.ex(n.args[0], sc)), "i")).c
            hi = self.num(self.ex(n.args[1], sc))
        return E(self.tmp("V", f"rt_range(g, {lo}, {hi})"), "V")

    @emits("size", "count")
    def bi_size(self, n, sc):
        e = self.ex(n.args[0], sc)
        if e.k == "FL":
            return E(f"((int64_t)LST({e.c})->n)", "i")
        if n.args[0].t == "zone":
            return E(f"((int64_t)g->z[{self.zone(e)}].n)", "i")
        return E(self.tmp("int64_t", f"py_len(g, {self.V(e)})"), "i")

    @emits("top", "bottom")
    def bi_top(self, n, sc):
        f, args = n.func, n.args
        ze = self.ex(args[0], sc)
        zi = self.zone(ze)
        if len(args) == 1:
            if f == "top" and ze.k == "z":      # checked already (as size() reads g->z[zi].n)
                return E(self.tmp("V", f"ztop_z(g, {zi})"), "V")
            return E(self.tmp("V", f"{'ztop' if f == 'top' else 'zbottom'}(g, {zi})"), "V")
        zi = self.tmp("int64_t", zi)
        m = self.num(self.ex(args[1], sc))
        fn = "ztopn" if f == "top" else "zbottomn"
        return E(self.tmp("V", f"vlist({fn}(g, {zi}, {m}))"), "V")

    @emits("cards")
    def bi_cards(self, n, sc):
        return E(self.tmp("V", f"vlist(zlist(g, {self.zone(self.ex(n.args[0], sc))}))"), "V")

    @emits("zone_of")
    def bi_zone_of(self, n, sc):
        c = self.ex(n.args[0], sc)
        if c.k == "c":
            return E(f"((int64_t)g->loc[{c.c}])", "z")
        cv = self.tmp("V", self.V(c))
        self.emit(f"if ({cv}.t == T_NONE) FAULT(F_TYPE);")
        return E(f"((int64_t)g->loc[card_of(g, {cv})])", "z")

    @emits("face_down")
    def bi_face_down(self, n, sc):
        c = self.ex(n.args[0], sc)
        if c.k == "c":
            return E(f"(g->face[{c.c}] == 2)", "b")
        return E(self.tmp("int", f"rt_face_down(g, {self.V(c)})"), "b")

    @emits("abs")
    def bi_abs(self, n, sc):
        return E(self.tmp("int64_t", f"abs_i(g, {self.num(self.ex(n.args[0], sc))})"), "i")

    @emits("max", "min")
    def bi_max(self, n, sc):
        f, args = n.func, n.args
        if len(args) > 1:
            vals = [self.hold(self.ex(a, sc)) for a in args]
            if all(v.k in ("i", "c") for v in vals):
                r = self.tmp("int64_t", vals[0].c)
                for v in vals[1:]:
                    cmp = ">" if f == "max" else "<"
                    self.emit(f"if ({v.c} {cmp} {r}) {r} = {v.c};")
                return E(r, "i")
            r = self.tmp("V", self.V(vals[0]))
            for v in vals[1:]:
                x = self.V(v)
                better = f"py_lt(g, {r}, {x})" if f == "max" else f"py_lt(g, {x}, {r})"
                self.emit(f"if ({better}) {r} = {x};")
            return E(r, "V")
        xs = self.list_xs(n, sc)
        if "default" in n.kwargs:
            d = self.V(self.ex(n.kwargs["default"], sc))
            return E(self.tmp("V", f"rt_maxmin(g, {xs}, {int(f == 'max')}, 1, {d})"), "V")
        return E(self.tmp("V", f"rt_maxmin(g, {xs}, {int(f == 'max')}, 0, vnone())"), "V")

    @emits("any", "all")
    def bi_any(self, n, sc):
        f = n.func
        first, t0 = self.list_head(n, sc)
        if t0 == "zone":     # cards are ints: all true but card 0
            zi = self.zone(first)
            r = self.tmp("int", f"rt_{f}(g, vlist(zlist(g, {zi})))")
        else:
            r = self.tmp("int", f"rt_{f}(g, {self.V(first)})")
        return E(r, "b")

    @emits("first", "last")
    def bi_first(self, n, sc):
        f = n.func
        first, t0 = self.list_head(n, sc)
        if len(n.args) == 1:
            if t0 == "zone":
                return E(self.tmp("V", f"{'zbottom' if f == 'first' else 'ztop'}(g, {self.zone(first)})"), "V")
            return E(self.tmp("V", f"rt_{f}(g, {self.V(first)})"), "V")
        xs = self.as_list_v(first, t0)
        k = self.num(self.ex(n.args[1], sc))
        return E(self.tmp("V", f"rt_{f}_n(g, {xs}, {k})"), "V")

    @emits("sum")
    def bi_sum(self, n, sc):
        return E(self.tmp("V", f"rt_sum(g, {self.list_xs(n, sc)})"), "V")

    @emits("is_max", "is_sole_max")
    def bi_is_max(self, n, sc):
        xs = self.tmp("V", self.list_xs(n, sc))
        i = self.V(self.ex(n.args[1], sc))
        i = self.tmp("V", i)
        mn = self.V(self.ex(n.kwargs["min"], sc)) if "min" in n.kwargs else "vint(1)"
        return E(self.tmp("int", f"rt_majority(g, {xs}, {i}, {mn}, {int(n.func == 'is_sole_max')})"), "b")

    @emits("dense_rank", "run_length", "index_of")
    def bi_list_and_value(self, n, sc):
        """runtime.c's rt_<name>(g, xs, v)."""
        xs = self.tmp("V", self.list_xs(n, sc))
        return E(self.tmp("V", f"rt_{n.func}(g, {xs}, {self.V(self.ex(n.args[1], sc))})"), "V")

    @emits("longest_run", "sorted", "distinct", "count_by")
    def bi_list(self, n, sc):
        """runtime.c's rt_<name>(g, xs)."""
        return E(self.tmp("V", f"rt_{n.func}(g, {self.list_xs(n, sc)})"), "V")


# -- helpers --------------------------------------------------------------------------------------
def _attr_tests(node, var):
    """[(attribute, value node)] when `node` is `var.a == x` or a conjunction (`and`) of such tests (either
    side), no value reading `var`; else None."""
    if isinstance(node, A.BoolOp) and node.op == "and":
        a = _attr_tests(node.left, var)
        b = _attr_tests(node.right, var) if a else None
        return a + b if a and b else None
    if not isinstance(node, A.Compare) or node.op != "==":
        return None
    for at, x in ((node.left, node.right), (node.right, node.left)):
        if isinstance(at, A.Attr) and isinstance(at.obj, A.Name) and at.obj.id == var \
                and at.obj.ref[0] == "local" and var not in _names_of(x):
            return [(at.name, x)]
    return None


def _simple(c):
    return c.isidentifier() or c.lstrip("-").rstrip("L").isdigit() or (
        c.startswith("g->") and c.replace("g->", "").replace("_", "").isalnum())


def _reindent(lines, levels):
    pad = "    " * levels
    return [pad + ln for ln in lines]


def _is_gen(n):
    return bool(n.args) and isinstance(n.args[0], A.Comp) and n.args[0].gen


def _const_kind(v):
    if isinstance(v, bool):
        return "b"
    if isinstance(v, int):
        return "i"
    if isinstance(v, str):
        return "s"
    return "V"


def _py_eq(a, b):
    if isinstance(a, (int, bool)) and isinstance(b, (int, bool)):
        return a == b
    return type(a) is type(b) and a == b


def _escapes(stmts):
    """May these statements store a list somewhere that outlives one iteration of their loop (a
    variable, or a local declared outside)? Then the iteration's allocations are not released."""
    lets = set()

    def walk(ss):
        for st in ss:
            if isinstance(st, A.Let):
                lets.add(st.name)
            elif isinstance(st, A.Assign):
                ref = st.target.ref
                if ref[0] != "local":
                    return True          # a variable: it may hold a list
                if st.target.id not in lets:
                    return True
            elif isinstance(st, A.If):
                for _, body in st.branches:
                    if walk(body):
                        return True
                if walk(st.orelse):
                    return True
            elif isinstance(st, (A.For, A.While)):
                if walk(st.body):
                    return True
        return False
    return walk(stmts)


_NO_ALLOC_CALLS = {"size", "abs", "zone_of", "face_down", "mark", "next_player", "prev_player", "indices"}
_AGG_NO_ALLOC = {"count", "sum", "any", "all", "max", "min", "first", "last"}


def _names_of(node, comps=True):
    """The names an expression reads (with `comps`, its comprehensions' own variables too)."""
    out = set()
    stack = [node]
    while stack:
        x = stack.pop()
        if isinstance(x, list):
            stack.extend(x)
            continue
        if isinstance(x, A.Name):
            out.add(x.id)
        if comps and isinstance(x, A.Comp):
            out.add(x.var)
        if isinstance(x, A.Node):
            stack.extend(x.children())
    return out


def allocates(node) -> bool:
    """May evaluating this rule (an expression or statements) allocate from the arena? (When it
    cannot, its function takes no arena mark to release.) Conservative: anything that builds a
    list, or calls a built-in that may, says yes."""
    stack = [node]
    while stack:
        x = stack.pop()
        if isinstance(x, list):
            stack.extend(x)
            continue
        if not isinstance(x, A.Node):
            continue
        if isinstance(x, A.ListLit) and not all(isinstance(i, A.Const) for i in x.items):
            return True
        if isinstance(x, A.Comp) and not x.gen:
            return True
        if isinstance(x, A.BinOp) and x.op in ("+", "*") and getattr(x, "t", "any") != "int":
            return True
        if isinstance(x, A.Assign) and getattr(x.value, "t", "") == "zone":
            return True
        if isinstance(x, A.Call):
            f = x.func
            gen = bool(x.args) and isinstance(x.args[0], A.Comp) and x.args[0].gen
            ok = f in _NO_ALLOC_CALLS or (gen and f in _AGG_NO_ALLOC) or \
                (f in ("top", "bottom") and len(x.args) == 1) or \
                (f in ("max", "min") and len(x.args) > 1) or \
                (f in ("end_game", "end_phase", "end_turn", "shuffle", "deal", "reveal", "set_mark")) or \
                (f == "move" and getattr(x.args[0], "t", "") != "zone") or \
                (f in ("count", "any", "all", "first", "last", "sum", "max", "min") and not gen and x.args
                 and getattr(x.args[0], "t", "") != "zone" and len(x.args) == 1)
            if not ok:
                return True
            if gen and x.args[0].iter is not None and isinstance(x.args[0].iter, A.Call) and \
                    x.args[0].iter.func in ("range", "others", "players_from"):
                pass     # loops over those are written out, no list made
        stack.extend(x.children())
    return False


check("C", CALLS)
check("C", AGGREGATES, aggregate=True)
