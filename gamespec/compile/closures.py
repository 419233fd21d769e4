"""Checked rule ASTs → Python closures `f(state, env)`, once per player count and option set."""
from __future__ import annotations

import itertools

from gamespec.interpreter import runtime as rt
from gamespec.interpreter.runtime import (MAX_LIST, MAX_RANGE, EndGame, EndPhase, EndTurn, add, bounded, charge,
                                 charge_more, checked_arith, checked_mul, checked_plus, checked_pow, count_by,
                                 distinct, fault, guarded, run_length, too_big)

from gamespec.mirrors import MAX_DEAL

from ..spec import ast as A
from ..spec.builtins import WALKS_LIST, check, registry
from .costs import comp_weight, function_weight, loop_weight, untyped

#: built-in -> its compiler: `f(compiler, call node, names)` -> a closure (statements too); every
#: built-in of the table, checked at import (spec/builtins.py `check`)
CALLS, emits = registry("closures")
#: the generator forms (`f(e for x in xs if c)`, `key=`): aggregate built-in -> its compiler, every
#: built-in the table marks `aggregate`, checked at import like CALLS
AGGREGATES, aggregates = registry("closures", aggregate=True)


class Compiler:
    """Holds the layout of one (player count, options) instance and compiles rules against it."""

    def __init__(self, layout):
        self.L = layout
        self._uid = itertools.count()

    # -- entry points ---------------------------------------------------------------------
    def expr(self, rule, names=None, valid=()):
        """`valid`: names that always hold a seat (the generated-code backend skips their checks)."""
        if rule is None:
            return None
        return guarded(self.e(rule.ast, dict(names or {})), rule)

    def effects(self, rule, names=None):
        if rule is None:
            return None
        body = self.block(rule.ast, dict(names or {}))
        return guarded(body, rule)

    def fresh(self, name):
        return f"{name}#{next(self._uid)}"

    # -- statements -----------------------------------------------------------------------
    def block(self, stmts, names):
        fns = [self.s(st, names) for st in stmts]
        if not fns:
            return lambda s, e: None
        if len(fns) == 1:
            return fns[0]
        if len(fns) == 2:
            f0, f1 = fns

            def two(s, e):
                f0(s, e)
                f1(s, e)
            return two
        fns = tuple(fns)

        def many(s, e):
            for f in fns:
                f(s, e)
        return many

    def s(self, st, names):
        if isinstance(st, A.Let):
            val = self.e(st.value, names)
            key = self.fresh(st.name)
            names[st.name] = key
            if st.value.t == "zone":
                def let_zone(s, e):
                    e[key] = val(s, e)
                return let_zone

            def let(s, e):
                e[key] = val(s, e)
            return let
        if isinstance(st, A.Assign):
            return self.assign(st, names)
        if isinstance(st, A.CallStmt):
            return self.stmt_call(st.call, names)
        if isinstance(st, A.If):
            branches = tuple((self.e(c, names), self.block(b, dict(names))) for c, b in st.branches)
            orelse = self.block(st.orelse, dict(names)) if st.orelse else None
            if len(branches) == 1:
                (c0, b0), = branches
                if orelse is None:
                    def if1(s, e):
                        if c0(s, e):
                            b0(s, e)
                    return if1

                def if2(s, e):
                    if c0(s, e):
                        b0(s, e)
                    else:
                        orelse(s, e)
                return if2

            def ifn(s, e):
                for c, b in branches:
                    if c(s, e):
                        b(s, e)
                        return
                if orelse is not None:
                    orelse(s, e)
            return ifn
        if isinstance(st, A.For):
            it = self.as_list(st.iter, names)
            inner = dict(names)
            key = self.fresh(st.var)
            inner[st.var] = key
            body = self.block(st.body, inner)
            w = loop_weight(st)

            def loop(s, e):
                items = list(it(s, e))  # a copy: the body may move cards out of the zone
                s.budget -= len(items) * w
                if s.budget < 0:
                    fault("step budget exhausted in a 'for' loop", "budget")
                for x in items:
                    e[key] = x
                    body(s, e)
            return loop
        if isinstance(st, A.Return):
            val = self.e(st.value, names)
            zone = st.value.t == "zone"
            Ret = rt.Return

            def ret(s, e):
                v = val(s, e)
                raise Ret(list(s.z[v]) if zone else v)
            return ret
        if isinstance(st, A.While):
            cond = self.e(st.cond, names)
            body = self.block(st.body, dict(names))
            w = loop_weight(st)

            def wloop(s, e):
                while cond(s, e):
                    s.budget -= w
                    if s.budget < 0:
                        fault("step budget exhausted: this 'while' loop does not end", "budget")
                    body(s, e)
            return wloop
        raise AssertionError(f"unknown statement {st!r}")

    def assign(self, st, names):
        L = self.L
        val = self.e(st.value, names)       # (in the number range: `+`, `-`, `sum` are checked)
        if st.value.t == "zone":
            inner = val
            val = lambda s, e: list(s.z[inner(s, e)])  # a list variable never aliases a zone
        op = st.op
        tgt = st.target
        ref = tgt.ref
        if ref[0] == "local":
            key = names[tgt.id]
            if op == "=":
                def set_local(s, e):
                    e[key] = val(s, e)
                return set_local
            sign = 1 if op == "+=" else -1

            def upd_local(s, e):
                e[key] = add(s, e[key], val(s, e), sign)
            return upd_local
        v = ref[1]
        base = L.var_base[v.name]
        if ref[0] == "var":
            if op == "=":
                def set_var(s, e):
                    s.v[base] = val(s, e)
                return set_var
            sign = 1 if op == "+=" else -1
            if v.type in ("int", "player"):
                if sign == 1:
                    def inc_var(s, e):
                        s.v[base] = bounded(s.v[base] + val(s, e))
                    return inc_var

                def dec_var(s, e):
                    s.v[base] = bounded(s.v[base] - val(s, e))
                return dec_var

            def upd_var(s, e):
                s.v[base] = add(s, s.v[base], val(s, e), sign)
            return upd_var
        idx = self.player_index(tgt.index, names) if ref[0] == "pvar" else self.team_index(tgt.index, names)
        if op == "=":
            def set_pvar(s, e):
                s.v[base + idx(s, e)] = val(s, e)
            return set_pvar
        sign = 1 if op == "+=" else -1
        if v.type == "int":
            if sign == 1:
                def inc_pvar(s, e):
                    i = base + idx(s, e)
                    s.v[i] = bounded(s.v[i] + val(s, e))
                return inc_pvar

            def dec_pvar(s, e):
                i = base + idx(s, e)
                s.v[i] = bounded(s.v[i] - val(s, e))
            return dec_pvar

        def upd_pvar(s, e):
            i = base + idx(s, e)
            s.v[i] = add(s, s.v[i], val(s, e), sign)
        return upd_pvar

    def stmt_call(self, c, names):
        return CALLS[c.func](self, c, names)

    @emits("move")
    def bi_move(self, c, names):
        args = [self.e(a, names) for a in c.args]
        kw = c.kwargs
        face = {"up": 1, "down": 2}.get(kw["face"].value) if "face" in kw else 0
        bottom = "at" in kw and kw["at"].value == "bottom"
        what, dst = args
        t = c.args[0].t
        mv = rt.move_card
        if t == "card":
            def move1(s, e):
                card = what(s, e)
                if card is None:
                    fault("move: there is no card to move (none)")
                mv(s, card, dst(s, e), face, bottom)
            return move1
        if t == "zone":
            def move_zone(s, e):
                d = dst(s, e)
                for card in list(s.z[what(s, e)]):  # bottom first keeps the order
                    mv(s, card, d, face, bottom)
            return move_zone

        def move_many(s, e):
            d = dst(s, e)
            for card in list(what(s, e)):
                if card is None:
                    fault("move: there is no card to move (none)")
                mv(s, card, d, face, bottom)
        return move_many

    @emits("deal")
    def bi_deal(self, c, names):
        args = [self.e(a, names) for a in c.args]
        kw = c.kwargs
        face = {"up": 1, "down": 2}.get(kw["face"].value) if "face" in kw else 0
        src, dst = args[0], args[1]
        n = args[2] if len(args) > 2 else (lambda s, e: 1)
        deal = rt.deal

        def deal_(s, e):
            k = n(s, e)
            if k < 0 or k > MAX_DEAL:
                fault(f"deal: cannot deal {k} cards")
            deal(s, src(s, e), dst(s, e), k, face)
        return deal_

    @emits("shuffle")
    def bi_shuffle(self, c, names):
        z = self.e(c.args[0], names)
        sh = rt.shuffle
        return lambda s, e: sh(s, z(s, e))

    @emits("set_mark")
    def bi_set_mark(self, c, names):
        args = [self.e(a, names) for a in c.args]
        what, val = args[0], args[2]
        m = self.L.mark_index[c.mark.name]
        sm = rt.set_mark
        if c.args[0].t == "card":
            return lambda s, e: sm(s, (what(s, e),), m, val(s, e))
        if c.args[0].t == "zone":
            return lambda s, e: sm(s, list(s.z[what(s, e)]), m, val(s, e))
        return lambda s, e: sm(s, list(what(s, e)), m, val(s, e))

    @emits("reveal")
    def bi_reveal(self, c, names):
        what, who = [self.e(a, names) for a in c.args]
        single = c.args[0].t == "card"
        rv = rt.reveal
        L = self.L

        def reveal(s, e):
            p = who(s, e)
            if not (0 <= p < L.P):
                fault(f"reveal: no player {p}")
            x = what(s, e)
            cards = [x] if single else (list(s.z[x]) if c.args[0].t == "zone" else list(x))
            rv(s, [cd for cd in cards if cd is not None], p)
        return reveal

    @emits("end_game")
    def bi_end_game(self, c, names):
        def end_game(s, e):
            raise EndGame()
        return end_game

    @emits("end_phase")
    def bi_end_phase(self, c, names):
        def end_phase(s, e):
            raise EndPhase()
        return end_phase

    @emits("end_turn")
    def bi_end_turn(self, c, names):
        def end_turn(s, e):
            raise EndTurn()
        return end_turn

    # -- expressions ----------------------------------------------------------------------
    def player_index(self, node, names):
        P = self.L.P
        f = self.e(node, names)
        if isinstance(node, A.Name) and node.ref == ("const", "current"):
            return lambda s, e: s.cur
        if isinstance(node, A.Name) and node.ref == ("const", "actor"):
            return lambda s, e: s.actor

        def idx(s, e):
            p = f(s, e)
            if p.__class__ is not int or not 0 <= p < P:
                fault(f"no player {p!r} (players are 0 to {P - 1})")
            return p
        return idx

    def team_index(self, node, names):
        """A team number used as an index (a team variable's cell, a team zone): 0 .. T-1."""
        f = self.e(node, names)
        T = self.L.T
        ti = rt.team_index
        return lambda s, e: ti(f(s, e), T)

    def as_list(self, node, names):
        """A closure giving a list (zones become their card list)."""
        f = self.e(node, names)
        if node.t == "zone":
            return lambda s, e: s.z[f(s, e)]
        return f

    def e(self, n, names):
        f = self._e(n, names)
        return f

    def _e(self, n, names):
        L = self.L
        if isinstance(n, A.Const):
            v = n.value
            return lambda s, e: v
        if isinstance(n, A.Name):
            ref = n.ref
            kind = ref[0]
            if kind == "local":
                key = names.get(n.id, n.id)
                return lambda s, e: e[key]
            if kind == "const":
                if n.id == "current":
                    return lambda s, e: s.cur
                if n.id == "actor":
                    return lambda s, e: s.actor
                if n.id == "players":
                    pl = list(range(L.P))
                    return lambda s, e: pl
                P = L.T if n.id == "num_teams" else L.P
                return lambda s, e: P
            if kind == "zone":
                zi = L.zone_base[n.id]
                return lambda s, e: zi
            if kind == "var":
                i = L.var_base[n.id]
                return lambda s, e: s.v[i]
            if kind == "option":
                v = L.options[n.id]
                return lambda s, e: v
            raise AssertionError(ref)
        if isinstance(n, A.Index):
            return self.index(n, names)
        if isinstance(n, A.Attr):
            arr = L.attr[n.name]
            obj = self.e(n.obj, names)
            name = n.name

            def attr(s, e):
                c = obj(s, e)
                if c is None:
                    fault(f"'.{name}' of no card (none)")
                return arr[c]
            return attr
        if isinstance(n, A.BinOp):
            return self.binop(n, names)
        if isinstance(n, A.Compare):
            a = self.e(n.left, names)
            if n.op in ("in", "not in"):
                inner = self.as_list(n.right, names)
                b = lambda s, e: charge(s, inner(s, e))   # a membership test walks the list
            else:
                b = self.e(n.right, names)
            op = n.op
            if op == "==":
                return lambda s, e: a(s, e) == b(s, e)
            if op == "!=":
                return lambda s, e: a(s, e) != b(s, e)
            if op == "<":
                return lambda s, e: a(s, e) < b(s, e)
            if op == "<=":
                return lambda s, e: a(s, e) <= b(s, e)
            if op == ">":
                return lambda s, e: a(s, e) > b(s, e)
            if op == ">=":
                return lambda s, e: a(s, e) >= b(s, e)
            if op == "in":
                return lambda s, e: a(s, e) in b(s, e)
            return lambda s, e: a(s, e) not in b(s, e)
        if isinstance(n, A.BoolOp):
            a = self.e(n.left, names)
            b = self.e(n.right, names)
            if n.op == "and":
                return lambda s, e: bool(a(s, e)) and bool(b(s, e))
            return lambda s, e: bool(a(s, e)) or bool(b(s, e))
        if isinstance(n, A.IfExp):
            c, a, b = self.e(n.cond, names), self.e(n.body, names), self.e(n.orelse, names)
            return lambda s, e: a(s, e) if c(s, e) else b(s, e)
        if isinstance(n, A.Unary):
            a = self.e(n.operand, names)
            if n.op == "not":
                return lambda s, e: not a(s, e)
            return lambda s, e: -a(s, e)
        if isinstance(n, A.ListLit):
            items = tuple(self.e(x, names) for x in n.items)
            return lambda s, e: [f(s, e) for f in items]
        if isinstance(n, A.Comp):
            it, var, cond, elt = self.comp_parts(n, names)
            if cond is None:
                def comp(s, e):
                    xs = charge(s, it(s, e))
                    out = []
                    for x in xs:
                        e[var] = x
                        out.append(elt(s, e))
                    return out
                return comp

            def compc(s, e):
                xs = charge(s, it(s, e))
                out = []
                for x in xs:
                    e[var] = x
                    if cond(s, e):
                        out.append(elt(s, e))
                return out
            return compc
        if isinstance(n, A.Call):
            return self.call(n, names)
        raise AssertionError(f"unknown expression {n!r}")

    def comp_parts(self, n, names):
        it = self.as_list(n.iter, names)
        w = comp_weight(n)
        if w > 1:       # a long condition or element: each item costs more than one step
            raw_it = it

            def it(s, e):
                return charge_more(s, raw_it(s, e), w - 1)
        inner = dict(names)
        var = self.fresh(n.var)
        inner[n.var] = var
        cond = self.e(n.cond, inner) if n.cond is not None else None
        elt = self.e(n.elt, inner)
        return it, var, cond, elt

    def index(self, n, names):
        L = self.L
        ref = n.ref
        kind = ref[0]
        if kind == "member":
            z = ref[1]
            base = L.zone_base[z.name]
            if z.per_player or z.per_team:
                idx = self.player_index(n.index, names) if z.per_player else self.team_index(n.index, names)
                return lambda s, e: base + idx(s, e)
            keymap = {k: base + i for i, k in enumerate(L.zone_keys[z.name])}
            if isinstance(n.index, A.Const):
                zi = keymap[n.index.value]
                return lambda s, e: zi
            key = self.e(n.index, names)
            name = z.name

            def member(s, e):
                k = key(s, e)
                zi = keymap.get(k)
                if zi is None:
                    fault(f"'{name}' has no member {k!r}")
                return zi
            return member
        if kind in ("pvar", "tvar"):
            base = L.var_base[ref[1].name]
            idx = self.player_index(n.index, names) if kind == "pvar" else self.team_index(n.index, names)
            return lambda s, e: s.v[base + idx(s, e)]
        if kind == "table":
            table = L.tables[ref[1]]
            key = self.e(n.index, names)
            tname = ref[1]

            def lookup(s, e):
                k = key(s, e)
                try:
                    return table[k]
                except (KeyError, TypeError):
                    fault(f"table '{tname}' has no key {k!r}")
            return lookup
        obj = self.as_list(n.obj, names)
        key = self.e(n.index, names)
        return lambda s, e: obj(s, e)[key(s, e)]

    def binop(self, n, names):
        a = self.e(n.left, names)
        b = self.e(n.right, names)
        op = n.op
        if op == "+":
            if n.t in ("cards", "players", "list"):
                def join(s, e):
                    x, y = a(s, e), b(s, e)
                    if len(x) + len(y) > MAX_LIST:
                        too_big("list", len(x) + len(y))
                    return charge(s, list(x) + list(y))
                return join
            if untyped(n):
                return lambda s, e: checked_plus(a(s, e), b(s, e))
            return lambda s, e: bounded(a(s, e) + b(s, e))     # every number stays below 2**63
        if op in ("-", "//", "%") and untyped(n):
            return lambda s, e: checked_arith(op, a(s, e), b(s, e))
        if op == "-":
            return lambda s, e: bounded(a(s, e) - b(s, e))
        if op == "*":
            def mul(s, e):
                return checked_mul(a(s, e), b(s, e))
            return mul
        if op == "//":
            return lambda s, e: a(s, e) // b(s, e)
        if op == "%":
            return lambda s, e: a(s, e) % b(s, e)
        if op == "**":
            def power(s, e):
                return checked_pow(a(s, e), b(s, e))
            return power
        raise AssertionError(op)

    # -- functions (docs/language.md, Functions) -----------------------------------------
    def function(self, name):
        """The compiled function `name`: `fn(s, depth, args)`; compiled on first use (a cell, so that a
        recursive call finds it), once per rule set."""
        cells = self.__dict__.setdefault("_functions", {})
        cell = cells.get(name)
        if cell is None:
            cell = cells[name] = [None]
            decl = self.L.spec.functions[name]
            inner = {p: f"{p}#arg" for p in decl.params}
            keys = tuple(inner[p] for p in decl.params)
            body = guarded(self.block(decl.rule.ast, dict(inner)), decl.rule)
            w = function_weight(decl)
            enter, Ret = rt.enter_call, rt.Return

            def fn(s, depth, args):
                enter(s, depth, w)
                e = dict(zip(keys, args))
                e["#depth"] = depth
                try:
                    body(s, e)
                except Ret as r:
                    return r.value
                return None
            cell[0] = fn
        return cell

    def call_function(self, n, names):
        cell = self.function(n.fn)
        args = tuple((lambda g: (lambda s, e: list(s.z[g(s, e)])))(self.e(a, names)) if a.t == "zone"
                     else self.e(a, names) for a in n.args)

        def call(s, e):
            return cell[0](s, e.get("#depth", 0) + 1, [g(s, e) for g in args])
        return call

    def call(self, n, names):
        if getattr(n, "fn", None) is not None:
            return self.call_function(n, names)
        if n.args and isinstance(n.args[0], A.Comp) and n.args[0].gen:
            return self.aggregate(n, names)
        return CALLS[n.func](self, n, names)

    def call_args(self, n, names):
        """A built-in's arguments (a zone as its cards, but for top/bottom/cards), the first charged
        where the call visits every item (WALKS_LIST; not max/min of several)."""
        f = n.func
        args = [self.as_list(a, names) if a.t == "zone" and f not in ("top", "bottom", "cards", "shuffle")
                else self.e(a, names) for a in n.args]
        if f in WALKS_LIST and args and len(n.args) >= 1 \
                and not (f in ("max", "min") and len(n.args) > 1):
            raw0 = args[0]
            args[0] = lambda s, e: charge(s, raw0(s, e))   # the call visits every item
        return args

    @emits("can")
    def bi_can(self, n, names):
        from .actions import can, can_params
        name = n.action
        given = [(i, self.e(v, names)) for i, v in can_params(self.L.spec, n)]
        return lambda s, e: can(s, name, {i: f(s, e) for i, f in given})

    @emits("indices")
    def bi_indices(self, n, names):
        z = n.args[0].ref[1]
        keys = list(self.L.zone_keys[z.name])
        return lambda s, e: keys

    @emits("others", "players_from", "next_player", "prev_player")
    def bi_seats(self, n, names):
        f, P = n.func, self.L.P
        p = self.player_index(n.args[0], names)
        if f == "others":
            return lambda s, e: [(p(s, e) + i) % P for i in range(1, P)]
        if f == "players_from":
            return lambda s, e: [(p(s, e) + i) % P for i in range(P)]
        if f == "next_player":
            return lambda s, e: (p(s, e) + 1) % P
        return lambda s, e: (p(s, e) - 1) % P

    @emits("team")
    def bi_team(self, n, names):
        p = self.player_index(n.args[0], names)
        seat_team = list(self.L.seat_team)
        return lambda s, e: seat_team[p(s, e)]

    @emits("members")
    def bi_members(self, n, names):
        ti = self.team_index(n.args[0], names)
        members = [list(m) for m in self.L.team_members]
        return lambda s, e: members[ti(s, e)]

    @emits("mark")
    def bi_mark(self, n, names):
        card = self.e(n.args[0], names)
        m = self.L.mark_index[n.mark.name]
        gm = rt.get_mark
        return lambda s, e: gm(s, card(s, e), m)

    @emits("size", "count")
    def bi_size(self, n, names):
        a0 = self.call_args(n, names)[0]
        return lambda s, e: len(a0(s, e))

    @emits("sum")
    def bi_sum(self, n, names):
        a0 = self.call_args(n, names)[0]
        return lambda s, e: bounded(sum(a0(s, e)))

    @emits("max", "min")
    def bi_max(self, n, names):
        f = n.func
        args = self.call_args(n, names)
        pick = max if f == "max" else min
        if len(args) == 1:
            a0 = args[0]
            if "default" in n.kwargs:
                d = self.e(n.kwargs["default"], names)
                return lambda s, e: pick(a0(s, e), default=d(s, e))

            def m(s, e):
                xs = a0(s, e)
                if not xs:
                    fault(f"{f}() of an empty list; give default=...")
                return pick(xs)
            return m
        fs = tuple(args)
        return lambda s, e: pick([g(s, e) for g in fs])

    @emits("any")
    def bi_any(self, n, names):
        a0 = self.call_args(n, names)[0]
        return lambda s, e: any(a0(s, e))

    @emits("all")
    def bi_all(self, n, names):
        a0 = self.call_args(n, names)[0]
        return lambda s, e: all(a0(s, e))

    @emits("first", "last")
    def bi_first(self, n, names):
        f = n.func
        args = self.call_args(n, names)
        a0 = args[0]
        if len(args) == 2:
            k = args[1]
            if f == "first":
                return lambda s, e: list(a0(s, e)[:max(0, k(s, e))])
            return lambda s, e: list(a0(s, e)[-k(s, e):]) if k(s, e) > 0 else []
        if f == "first":
            return lambda s, e: (lambda xs: xs[0] if xs else None)(a0(s, e))
        return lambda s, e: (lambda xs: xs[-1] if xs else None)(a0(s, e))

    @emits("top", "bottom")
    def bi_top(self, n, names):
        f = n.func
        args = self.call_args(n, names)
        z = args[0]
        if len(args) == 1:
            if f == "top":
                def top(s, e):
                    cs = s.z[z(s, e)]
                    return cs[-1] if cs else None
                return top

            def bottom(s, e):
                cs = s.z[z(s, e)]
                return cs[0] if cs else None
            return bottom
        k = args[1]
        if f == "top":
            def topn(s, e):
                cs = s.z[z(s, e)]
                m = k(s, e)
                return cs[::-1][:m] if m > 0 else []   # topmost first
            return topn

        def bottomn(s, e):
            m = k(s, e)
            return s.z[z(s, e)][:m] if m > 0 else []
        return bottomn

    @emits("cards")
    def bi_cards(self, n, names):
        z = self.call_args(n, names)[0]
        return lambda s, e: list(s.z[z(s, e)])

    @emits("range")
    def bi_range(self, n, names):
        args = self.call_args(n, names)
        lo, hi = (args[0], args[1]) if len(args) == 2 else ((lambda s, e: 0), args[0])

        def rng(s, e):
            a, b = lo(s, e), hi(s, e)
            if b - a > MAX_RANGE:
                fault(f"range of {b - a} numbers; the limit is {MAX_RANGE}", "budget")
            return charge(s, list(range(a, b)))
        return rng

    @emits("is_max", "is_sole_max")
    def bi_is_max(self, n, names):
        xs, i = self.call_args(n, names)
        mn = self.e(n.kwargs["min"], names) if "min" in n.kwargs else (lambda s, e: 1)
        sole = n.func == "is_sole_max"

        def majority(s, e):
            vals = xs(s, e)
            k = i(s, e)
            v = vals[k]
            if v < mn(s, e):
                return False
            if sole:
                return all(x < v for j, x in enumerate(vals) if j != k)
            return v >= max(vals)
        return majority

    @emits("dense_rank")
    def bi_dense_rank(self, n, names):
        xs, i = self.call_args(n, names)

        def dense_rank(s, e):
            vals = xs(s, e)
            return sorted(set(vals), reverse=True).index(vals[i(s, e)])
        return dense_rank

    @emits("run_length")
    def bi_run_length(self, n, names):
        xs, v = self.call_args(n, names)
        return lambda s, e: run_length(xs(s, e), v(s, e))

    @emits("distinct")
    def bi_distinct(self, n, names):
        xs = self.call_args(n, names)[0]
        return lambda s, e: distinct(xs(s, e))

    @emits("count_by")
    def bi_count_by(self, n, names):
        xs = self.call_args(n, names)[0]
        return lambda s, e: count_by(xs(s, e))

    @emits("longest_run")
    def bi_longest_run(self, n, names):
        xs = self.call_args(n, names)[0]
        return lambda s, e: max((run_length(xs(s, e), x) for x in set(xs(s, e))), default=0)

    @emits("index_of")
    def bi_index_of(self, n, names):
        xs, v = self.call_args(n, names)

        def index_of(s, e):
            vals = xs(s, e)
            x = v(s, e)
            return vals.index(x) if x in vals else -1
        return index_of

    @emits("abs")
    def bi_abs(self, n, names):
        a0 = self.call_args(n, names)[0]
        return lambda s, e: abs(a0(s, e))

    @emits("zone_of")
    def bi_zone_of(self, n, names):
        a0 = self.call_args(n, names)[0]
        return lambda s, e: s.loc[a0(s, e)]

    @emits("face_down")
    def bi_face_down(self, n, names):
        a0 = self.call_args(n, names)[0]
        return lambda s, e: s.face.get(a0(s, e)) == 2

    @emits("sorted")
    def bi_sorted(self, n, names):
        a0 = self.call_args(n, names)[0]
        return lambda s, e: sorted(a0(s, e))

    @emits("subsets", "combinations", "permutations")
    def bi_subsets(self, n, names):
        args = self.call_args(n, names)
        g = {"subsets": rt.subsets, "combinations": rt.combinations, "permutations": rt.permutations}[n.func]
        if len(args) == 1:
            a0 = args[0]
            return lambda s, e: g(s, a0(s, e))
        a0, a1 = args
        return lambda s, e: g(s, a0(s, e), a1(s, e))

    @emits("product")
    def bi_product(self, n, names):
        a0, prod = self.call_args(n, names)[0], rt.product
        return lambda s, e: prod(s, a0(s, e))

    @emits("runs")
    def bi_runs(self, n, names):
        a0, runs = self.call_args(n, names)[0], rt.runs
        return lambda s, e: runs(s, a0(s, e))

    def keyed_pairs(self, n, names):
        """`max/min/sorted(e for x in xs if c, key=k)`: a closure of the (key, item) pairs, the key
        computed first; the entries then call runtime.best_by / sorted_by."""
        c = n.args[0]
        it = self.as_list(c.iter, names)
        w = comp_weight(c, n.kwargs["key"])
        raw_it = it
        it = (lambda s, e: charge_more(s, raw_it(s, e), w - 1)) if w > 1 else raw_it
        inner = dict(names)
        var = self.fresh(c.var)
        inner[c.var] = var
        cond = self.e(c.cond, inner) if c.cond is not None else None
        elt = self.e(c.elt, inner)
        key = self.e(n.kwargs["key"], inner)

        def pairs(s, e):
            out = []
            for x in charge(s, it(s, e)):
                e[var] = x
                if cond is None or cond(s, e):
                    k = key(s, e)
                    out.append((k, elt(s, e)))
            return out
        return pairs

    def aggregate(self, n, names):
        """A built-in over a generator (`f(e for x in xs if c)`): its entry in AGGREGATES."""
        return AGGREGATES[n.func](self, n, names)

    def comp_gen(self, n, names):
        """The comprehension's items as a generator closure: the list charged, each item whose condition
        holds."""
        it, var, cond, elt = self.comp_parts(n.args[0], names)

        def gen(s, e):
            xs = charge(s, it(s, e))
            for x in xs:
                e[var] = x
                if cond is None or cond(s, e):
                    yield elt(s, e)
        return gen

    @aggregates("count")
    def agg_count(self, n, names):
        it, var, cond, elt = self.comp_parts(n.args[0], names)
        if cond is None:
            return lambda s, e: len(it(s, e))

        def count(s, e):
            xs = charge(s, it(s, e))
            k = 0
            for x in xs:
                e[var] = x
                if cond(s, e):
                    k += 1
            return k
        return count

    @aggregates("sum")
    def agg_sum(self, n, names):
        gen = self.comp_gen(n, names)
        return lambda s, e: bounded(sum(gen(s, e)))

    @aggregates("product")
    def agg_product(self, n, names):
        gen, mul = self.comp_gen(n, names), rt.multiply     # the items, charged as they are made, multiplied
        return lambda s, e: mul(list(gen(s, e)))

    @aggregates("any")
    def agg_any(self, n, names):
        gen = self.comp_gen(n, names)
        return lambda s, e: any(gen(s, e))

    @aggregates("all")
    def agg_all(self, n, names):
        gen = self.comp_gen(n, names)
        return lambda s, e: all(gen(s, e))

    @aggregates("max", "min")
    def agg_best(self, n, names):
        f = n.func
        if "key" in n.kwargs:
            pairs, bb = self.keyed_pairs(n, names), rt.best_by
            if "default" in n.kwargs:       # evaluated after the pairs, whether needed or not (as generated)
                d = self.e(n.kwargs["default"], names)

                def best_d(s, e):
                    ps = pairs(s, e)
                    return bb(ps, f, d(s, e), True)
                return best_d
            return lambda s, e: bb(pairs(s, e), f)
        gen = self.comp_gen(n, names)
        pick = max if f == "max" else min
        d = self.e(n.kwargs["default"], names) if "default" in n.kwargs else None

        def m(s, e):
            xs = list(gen(s, e))
            if not xs:
                if d is None:
                    fault(f"{f}() of nothing; give default=...")
                return d(s, e)
            return pick(xs)
        return m

    @aggregates("first")
    def agg_first(self, n, names):
        gen = self.comp_gen(n, names)
        return lambda s, e: next(gen(s, e), None)

    @aggregates("last")
    def agg_last(self, n, names):
        gen = self.comp_gen(n, names)

        def last(s, e):
            out = None
            for x in gen(s, e):
                out = x
            return out
        return last

    @aggregates("sorted")
    def agg_sorted(self, n, names):
        if "key" in n.kwargs:
            pairs, sb = self.keyed_pairs(n, names), rt.sorted_by
            return lambda s, e: sb(pairs(s, e))
        gen = self.comp_gen(n, names)
        return lambda s, e: sorted(gen(s, e))


check("closures", CALLS)
check("closures", AGGREGATES, aggregate=True)
