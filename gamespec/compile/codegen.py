"""Checked rule ASTs → generated Python functions (the fast backend), once per player count and options.

Same semantics as `closures.py` (the reference backend, which the equivalence tests play every game
against), but each rule becomes one Python function with locals instead of a tree of closures, and each
action's legal-action enumeration becomes one function of nested loops. Generated code calls the
run-time library `interpreter/runtime.py` through its NAMES table (docs/runtime.md).

Safety: the source is generated from the checked AST only. Every identifier in it is made here
(`v_<n>`, `K<n>`), every spec value enters as a constant object in the function's namespace (never
as text), and the namespace's builtins are a short allow-list. No text from a spec is ever executed.
"""
from __future__ import annotations

import contextlib
import itertools
import math
import re

from gamespec.interpreter.runtime import (INT_LIMIT, MAX_RANGE, NAMES, SAFE_BUILTINS, attr_of_none, checked_arith,
                                 checked_plus, fault)
from gamespec.mirrors import MAX_DEAL

from ..spec import ast as A
from ..spec.builtins import WALKS_LIST, check, registry
from ..spec.visibility import VISIBILITIES
from .costs import comp_weight, function_weight, loop_weight, untyped


# Nested parameter loops that visit at most this many candidates in all, known when the rules are
# generated, need not be charged to the step budget one by one.
STATIC_STEPS = 4096

# A comprehension over a constant list this short is written out item by item (while the sources
# stay this short): no loop, no comprehension frame.
UNROLL = 8
UNROLL_CHARS = 2000

# Card predicates computed per card id at load time: at most this many evaluations per rule set.
MASK_WORK = 200_000


# An outermost comprehension over a zone of a deck this small costs at most this many steps, so it
# need not be charged: every evaluation of a rule is itself charged (flow steps, loop iterations,
# candidates), which bounds the total work per decision.
SMALL_DECK = 500
MADE_ACTIONS = 32     # positions for which a parameterless action's Action is made once (_made_actions)

#: built-in -> its generator: `f(codegen, call node, names)` -> Python source (an expression; a
#: statement's: lines); every built-in of the table, checked at import (spec/builtins.py `check`)
CALLS, emits = registry("codegen")
#: the generator forms (`f(e for x in xs if c)`, `key=`): aggregate built-in -> its generator, every
#: built-in the table marks `aggregate`, checked at import like CALLS
AGGREGATES, aggregates = registry("codegen", aggregate=True)


class _Proxy:
    pass


class CodeGen:
    """Generates and compiles Python functions for one Ruleset (layout L)."""

    def __init__(self, layout):
        self.L = layout
        self._uid = itertools.count()
        self.ns = dict(SAFE_BUILTINS, __builtins__={})
        self.ns.update(NAMES)      # the run-time library, under the names generated code uses
        self._consts = {}
        self.valid_players = set()   # generated names that always hold a valid seat
        self.valid_keys = set()      # env keys that always hold a valid seat (flow loops over the players)
        self.nonnull = set()         # generated names that always hold a card (never none)
        self.small_locals = set()    # generated names of short lists (see st: Let)
        self._assigned = set()       # source names some statement of the rule being generated assigns
        self._comp_depth = 0
        self._short_level = False    # inside an outermost comprehension over a few constant items
        self._loop_depth = 0
        self._masks = {}
        self._mask_work = 0
        self._getters = {}
        self._getter_seq = {}
        self._getter_list = {}
        self._eq_tables = {}
        self.inline_moves = False    # moves written out inline: only in fused functions (the hot
        #                              path); elsewhere a call keeps the source, and compiling, short
        self._tests = set()          # ids of the nodes generated where only their truth counts
        self._keep = []              # sequences whose bound __getitem__ is a constant
        self._hc = None              # hoisting context while generating an enumeration
        self._lits = {}              # source of a constant -> its value (for folding)
        self._truth = {}             # id of a `size(Z) > 0` node -> (it, Z's cards source), as just generated
        self._known = set()          # cards sources known non-empty where code is being generated
        self._known_nn = set()       # card sources known not none there (an `x != none` guard)
        self._keymaps = {}           # family name -> {key: zone index}         # `for`/`while` statements around the code being generated

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
    def expr(self, rule, names=None, valid=()):
        if rule is None:
            return None
        env = {}
        body = self.ex(rule.ast, self._scope(names, env, valid))
        return self._function(rule, self._prologue(env) + [f"return {body}"])

    def effects(self, rule, names=None):
        if rule is None:
            return None
        env = {}
        self._assigned = _assigned_names(rule.ast)
        lines = self.block(rule.ast, self._scope(names, env), 0)
        return self._function(rule, self._prologue(env) + lines)

    def _scope(self, names, env, valid=(), nonnull=()):
        """Source names given in `names` (source name -> env key) load lazily from the env dict."""
        sc = {}
        for src, key in (names or {}).items():
            sc[src] = _EnvName(key, env, self, src in valid or key in self.valid_keys, src in nonnull)
        return sc

    def _prologue(self, env):
        return [f"{py} = e[{key if isinstance(key, int) else self.const(key)}]" for key, py in env.items()]

    def after(self, triggers, game_end_if, turn_end_if, game_end, turn_end):
        """`after(s, nxt)`: the triggers to a fixed point, then the game's and the turn's end
        conditions, as one function with the conditions inline (see flow.make_after). Each is a
        flow.Compiled: its rule is generated inline, its function called (a trigger's effects)."""
        src = ["def after(s, nxt):"]

        def test(rule, var):
            origin = self.const(rule.origin)
            return ["    try:", f"        {var} = {self.test(rule.ast, {})}",
                    "    except _CTRL:", "        raise",
                    "    except _FAULTS as ex:",
                    f"        raise _SRE(_describe(ex), {origin}, check=_check_of(ex)) from None",
                    "    except _RecursionError:",
                    f"        raise _SRE('rule nested too deeply', {origin}, check='rule-depth') from None"]
        if triggers:
            # usually no trigger fires: test them once, and only if one does, run to a fixed point
            # (the loop tests them again; tests change nothing, so it finds the same first one)
            src.append("    _c = False")
            for cond, _ in triggers:
                src += ["    if not _c:"] + ["    " + ln for ln in test(cond.rule, "_c")]
            src += ["    if _c:", "      fired = True", "      while fired:", "        fired = False"]
            for cond, eff in triggers:
                src += ["    " + ln for ln in test(cond.rule, "_c")]
                origin = self.const(eff.rule.origin if eff.rule is not None else "triggers")
                src += ["        if _c:", "            s.budget -= 1", "            if s.budget < 0:",
                        f"                raise _SRE('step budget exhausted: triggers keep firing', {origin}, "
                        "check='budget')",
                        f"            {self.const(eff.fn)}(s, {{}})", "            fired = True"]
        for cond, target in ((game_end_if, game_end), (turn_end_if, turn_end)):
            if cond is not None:
                src += test(cond.rule, "_c") + [f"    if _c: return {target}"]
        src.append("    return nxt")
        code = compile(localize(src), "<gamespec after a block of effects>", "exec")
        exec(code, self.ns)   # generated from the checked AST only (see the module docstring)
        fn = self.ns.pop("after")
        fn.source = "\n".join(src)
        return fn

    def choice(self, ch):
        """One function listing the legal actions of a decision point: each action's enumeration
        inline (a fault still names that action's rule), the fallback if none, then the skip."""
        from gamespec.interpreter.actions import Action
        self.ns["_Action"] = Action
        # _ap appends an entry; _w: the state's legal_actions() were asked for (Actions, not tuples)
        src = ["def choice(s):", "    _out = []", "    _ap = _out.append", "    _w = s._wants_actions"]

        def part(rt, ind):
            gen = getattr(rt, "enum_source", None)
            if gen is None:            # an action the reference enumeration handles
                return [ind + f"{self.const(rt)}.enumerate(s, _out)"]
            rule, body = gen
            origin = self.const(rule.origin if rule is not None else "<generated>")
            out = [ind + "try:"]
            inner = ind + "    "
            for ln in body:     # `if c: _EXIT_` (only ever at the top level) nests what follows
                if ln.startswith("if ") and ln.endswith(": _EXIT_"):
                    cond = ln[len("if "):-len(": _EXIT_")]
                    out.append(inner + (f"if {cond[4:]}:" if cond.startswith("not ") else f"if not ({cond}):"))
                    inner += "    "
                else:
                    out.append(inner + ln)
            out += [ind + "except _CTRL:", ind + "    raise",
                    ind + "except _FAULTS as ex:",
                    ind + f"    raise _SRE(_describe(ex), {origin}, check=_check_of(ex)) from None",
                    ind + "except _RecursionError:",
                    ind + f"    raise _SRE('rule nested too deeply', {origin}, check='rule-depth') from None"]
            return out
        for rt in ch.actions:
            src += part(rt, "    ")
        if ch.fallback:
            src.append("    if not _out:")
            for rt in ch.fallback:
                src += part(rt, "        ")
        if ch.step.optional is not None:
            # only when something else is listed: an empty listing is what the flow skips
            label = self.const(ch.step.optional)
            src.append("    if _out:")
            made = self._made_actions(("skip", (), (), (), None, ch.step.optional))
            src.append(f"        _ap(({made}[len(_out)] if len(_out) < {len(self.ns[made])} else "
                       f"_Action(('skip', (), (), (), None, {label}, len(_out)))) if _w "
                       f"else ('skip', (), (), (), None, {label}))")
        src.append("    return _out")
        code = compile(localize(src), f"<gamespec {ch.path} (legal actions)>", "exec")
        exec(code, self.ns)   # generated from the checked AST only (see the module docstring)
        fn = self.ns.pop("choice")
        fn.source = "\n".join(src)
        return fn

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
        code = compile(localize(src), f"<gamespec {rule.origin if rule else fname}>", "exec")
        exec(code, self.ns)  # the source holds only identifiers generated here (see module docstring)
        fn = self.ns.pop(fname)
        fn.source = "\n".join(src)   # for `gamespec` debugging and the tests: what was generated
        return fn

    # -- statements -------------------------------------------------------------------------
    def block(self, stmts, names, depth):
        out = []
        for st in stmts:
            out += self.st(st, names)
        return out or ["pass"]

    def st(self, st, names):
        if isinstance(st, A.Let):
            val = self.ex(st.value, names)
            py = self.ident()
            names[st.name] = py
            if st.name not in self._assigned and (isinstance(st.value, A.ListLit) or (
                    isinstance(st.value, A.Comp) and not st.value.gen and self._small(st.value.iter)
                    and st.value.iter.t != "zone")):
                self.small_locals.add(py)   # a short list by construction that nothing reassigns
            return [f"{py} = {val}"]
        if isinstance(st, A.Assign):
            return self.assign(st, names)
        if isinstance(st, A.CallStmt):
            return self.call_stmt(st.call, names)
        if isinstance(st, A.If):
            out = []
            for i, (c, body) in enumerate(st.branches):
                out.append(f"{'if' if i == 0 else 'elif'} {self.test(c, names)}:")
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
            if st.iter.t == "zone":
                self.nonnull.add(py)
            small = self._loop_depth == 0 and self._small(st.iter) and loop_weight(st) == 1
            self._loop_depth += 1
            try:
                body = self.block(st.body, inner, 0)
            finally:
                self._loop_depth -= 1
            if small and st.iter.t != "zone":   # a fresh or constant list: nothing moves it about
                head = [f"for {py} in {it}:"]
            elif small:                         # the body may move cards out of the zone: a copy
                head = [f"for {py} in list({it}):"]
            else:
                w = loop_weight(st)
                if w == 1 and _range_of_size(st.iter):
                    # `range(size(X))`: _range's checks and charge written out, with the loop's
                    # charge; the loop walks a range object, no list is made
                    head = [f"{items} = {self.ex(st.iter.args[0], names)}",
                            f"if {items} > {MAX_RANGE}: _fault('range of %d numbers; the limit is {MAX_RANGE}' "
                            f"% {items}, 'budget')",
                            f"s.budget -= 2 * {items}",
                            "if s.budget < 0: _fault('step budget exhausted (a rule visits too many items)', 'budget')",
                            f"for {py} in range({items}):"]
                    return head + ["    " + ln for ln in body]
                # a range is a fresh list already: no copy; the charge inline, as _charge makes it
                fresh = it.startswith("_range(s, ") and _one_call(it)
                head = [f"{items} = {it}" if fresh else f"{items} = list({it})"]
                if w == 1:
                    head += [f"s.budget -= len({items})",
                             "if s.budget < 0: _fault('step budget exhausted (a rule visits too many items)', 'budget')"]
                else:
                    head.append(f"_charge_w(s, {items}, {w})")
                head.append(f"for {py} in {items}:")
            return head + ["    " + ln for ln in body]
        if isinstance(st, A.Return):      # a function's body (self.function)
            val = self.ex(st.value, names)
            return [f"return list(s.z[{val}])" if st.value.t == "zone" else f"return {val}"]
        if isinstance(st, A.While):
            cond = self.test(st.cond, names)
            self._loop_depth += 1
            try:
                body = self.block(st.body, dict(names), 0)
            finally:
                self._loop_depth -= 1
            w = loop_weight(st)
            return [f"while {cond}:", "    _tick(s)" if w == 1 else f"    _tick(s, {w})"] + ["    " + ln for ln in body]
        raise AssertionError(st)

    def assign(self, st, names):
        val = self.ex(st.value, names)      # (in the number range: `+`, `-`, `sum` are checked)
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
            cell = self.pidx(tgt.index, names) if ref[0] == "pvar" else self.tidx(tgt.index, names)
            slot = f"s.v[{_plus(base, cell)}]"
            if op != "=":
                tmp = self.ident()
                return [f"{tmp} = {_plus(base, cell)}"] + self._update(f"s.v[{tmp}]", v, op, val)
        if op == "=":
            return [f"{slot} = {val}"]
        return self._update(slot, v, op, val)

    def _set_mark(self, c, names):
        """`set_mark(x, 'NAME', v)`: the cards first, then the value (as the closures do)."""
        what = c.args[0]
        x = self.ident()
        src = self.ex(what, names)
        cards = f"({src},)" if what.t == "card" else (f"list(s.z[{src}])" if what.t == "zone" else f"list({src})")
        return [f"{x} = {cards}",
                f"_setmark(s, {x}, {self.L.mark_index[c.mark.name]}, {self.ex(c.args[2], names)})"]

    def _update(self, slot, v, op, val):
        if v.type in ("int", "player"):     # _bounded, inline
            tmp = self.ident()
            return [f"{tmp} = {slot} {op[0]} {val}",
                    f"if {tmp}.__class__ is int and not {-INT_LIMIT} < {tmp} < {INT_LIMIT}: "
                    "_fault('integer too large (beyond 2**63)', 'int-size')",
                    f"{slot} = {tmp}"]
        return [f"{slot} = _add(s, {slot}, {val}, {1 if op == '+=' else -1})"]

    def call_stmt(self, c, names):
        return CALLS[c.func](self, c, names)

    @emits("move")
    def bi_move(self, c, names):
        kw = c.kwargs
        face = {"up": 1, "down": 2}.get(kw["face"].value) if "face" in kw else 0
        bottom = "at" in kw and kw["at"].value == "bottom"
        what, dst = c.args
        d = self.ident()
        out = [f"{d} = {self.ex(dst, names)}"]
        x = self.ident()
        if not face and not bottom:
            mv = self._move_on_top(x, d, dst)
        else:
            mv = [f"_move(s, {x}, {d}, {face}, {bottom})"]
        if what.t == "card":
            return out + [f"{x} = {self.ex(what, names)}",
                          f"if {x} is None: _fault('move: there is no card to move (none)')"] + mv
        src = f"list(s.z[{self.ex(what, names)}])" if what.t == "zone" else f"list({self.ex(what, names)})"
        return out + [f"for {x} in {src}:"] + (
            [] if what.t == "zone" else [f"    if {x} is None: _fault('move: there is no card to move (none)')"]) + [
            "    " + ln for ln in mv]

    @emits("deal")
    def bi_deal(self, c, names):
        kw = c.kwargs
        face = {"up": 1, "down": 2}.get(kw["face"].value) if "face" in kw else 0
        one = len(c.args) < 3 or isinstance(c.args[2], A.Const) and type(c.args[2].value) is int \
            and c.args[2].value == 1
        if not face and one:
            # one card: a move of the top card (written out like `move`'s); an empty source
            # does what its zone declares, in runtime.deal
            k, d, x = self.ident(), self.ident(), self.ident()
            return [f"{k} = {self.ex(c.args[0], names)}", f"{d} = {self.ex(c.args[1], names)}",
                    f"if s.z[{k}]:", f"    {x} = s.z[{k}][-1]"] + [
                    "    " + ln for ln in self._move_on_top(x, d, c.args[1])] + [
                    "else:", f"    _deal(s, {k}, {d}, 1, 0)"]
        n = self.ex(c.args[2], names) if len(c.args) > 2 else "1"
        k = self.ident()
        return [f"{k} = {n}",
                f"if {k} < 0 or {k} > {MAX_DEAL}: _fault('deal: cannot deal %r cards' % ({k},))",
                f"_deal(s, {self.ex(c.args[0], names)}, {self.ex(c.args[1], names)}, {k}, {face})"]

    @emits("shuffle")
    def bi_shuffle(self, c, names):
        return [f"_shuffle(s, {self.ex(c.args[0], names)})"]

    @emits("set_mark")
    def bi_set_mark(self, c, names):
        return self._set_mark(c, names)

    @emits("reveal")
    def bi_reveal(self, c, names):
        what, who = c.args
        p = self.ident()
        x = self.ident()
        src = self.ex(what, names)
        psrc = self.ex(who, names)
        out = [f"{p} = {psrc}"]
        if not (psrc in ("s.actor", "s.cur") or psrc in self.valid_players):    # those are seats
            out.append(f"if not (0 <= {p} < {self.L.P}): _fault('reveal: no player %r' % ({p},))")
        out.append(f"{x} = {src}")
        if what.t == "card" and src in self.nonnull:
            # one card (a parameter or loop variable: never none): runtime.reveal's work, inline
            return out + [f"s.kn[{x}] |= 1 << {p}",
                          f"s.hist = (('r', {p}, ({x},)), s.hist)",
                          f"if s.log is not None: s.log.append({{'type': 'look', 'player': {p}, 'cards': [{x}]}})"]
        if what.t == "card":
            cards = f"([{x}] if {x} is not None else [])"
        elif what.t == "zone":
            cards = f"list(s.z[{x}])"      # cards, never none
        else:
            cards = f"[c for c in {x} if c is not None]"
        return out + [f"_reveal(s, {cards}, {p})"]

    @emits("end_game", "end_phase", "end_turn")
    def bi_end(self, c, names):
        return [{"end_game": "raise EndGame()", "end_phase": "raise EndPhase()", "end_turn": "raise EndTurn()"}[c.func]]

    def _move_on_top(self, x, d, dst):
        """Card x onto the top of zone d (the zone node dst), face unchanged: written out in fused
        functions, a call of runtime.move_public (onto a zone all see: nobody's knowledge changes) or
        runtime.move_plain elsewhere."""
        if self.inline_moves:
            return self._inline_move(x, d, self._public(dst))
        return [f"_move_pub(s, {x}, {d})" if self._public(dst) else f"_move_plain(s, {x}, {d})"]

    def _inline_move(self, x, d, public):
        """Card x onto the top of zone d, face unchanged: runtime.move_plain (runtime.move_public when every
        player sees d: nobody's knowledge changes), inline, with the zone tables as constants."""
        src, cs, ps = self.ident(), self.ident(), self.ident()
        # (short: every move of every rule is written out, and compiling costs by the size)
        out = [f"if s.face: _move(s, {x}, {d}, 0, False)",       # a turned card anywhere: the full way
               "else:",
               "    s.budget -= 1",
               "    if s.budget < 0: _fault('step budget exhausted: cards keep moving', 'budget')",
               f"    {src} = s.loc[{x}]",
               f"    {cs} = s.z[{src}]",
               f"    if {cs}[-1] == {x}: {cs}.pop()",
               f"    else: {cs}.remove({x})",
               f"    s.z[{d}].append({x})",
               f"    s.loc[{x}] = {d}",
               f"    {ps} = s.poss",
               f"    if {ps}[{src}] & ~{ps}[{d}]: _widen(s, {src}, {d})"]
        if public:
            return out
        vis = self.const(self.L.zvis)
        if any(self.L.set_blind):       # taken out of a set some player cannot see (runtime.move_plain)
            blind = self.const(self.L.set_blind)
            out.append(f"    if {blind}[{src}] & ~{vis}[{d}]: _lose_track(s, {x}, {cs}, {blind}[{src}] & ~{vis}[{d}])")
        return out + [f"    s.kn[{x}] |= {vis}[{src}] & ~{vis}[{d}]"]      # who saw it and no longer sees it

    def _own_zone(self, node):
        """Is `node` the deciding player's member of a family its owner sees (`hand[actor]`)?"""
        return isinstance(node, A.Index) and node.ref[0] == "member" and _only_owner(node.ref[1]) \
            and isinstance(node.index, A.Name) and node.index.ref == ("const", "actor")

    def _public(self, node):
        """Is `node` a zone of a family every player sees?"""
        if isinstance(node, A.Name) and node.ref[0] == "zone":
            z = self.L.spec.zones[node.id]
        elif isinstance(node, A.Index) and node.ref[0] == "member":
            z = node.ref[1]
        else:
            return False
        return VISIBILITIES[z.visibility].everyone

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

    def tidx(self, node, names):
        """A team number used as an index: checked 0 .. T-1 (runtime.team_index)."""
        return f"_team({self.ex(node, names)}, {self.L.T})"

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

    def test(self, n, names):
        """The source of n where only its truth counts (an `if`, a `while`, a `where`, a
        comprehension's condition, an end test): `size(Z) > 0` is `Z`, not `not not Z`, and a count
        of unrolled conditions compared with 0 is an `or` of them, stopping at the first that holds."""
        with self._as_test(n):
            return self.ex(n, names)

    @contextlib.contextmanager
    def _as_test(self, n, really=True):
        """While generating n: only its truth counts (marked by id, unmarked after: the same node
        may be generated again where its value counts)."""
        key = id(n)
        mark = really and key not in self._tests
        if mark:
            self._tests.add(key)
        try:
            yield
        finally:
            if mark:
                self._tests.discard(key)

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
                        "players": self.const(list(range(L.P))), "num_players": str(L.P),
                        "num_teams": str(L.T)}[n.id]
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
            if isinstance(n.obj, A.Name) and obj not in self.nonnull:
                return f"({arr}[{obj}] if {obj} is not None else {self.const(attr_of_none)}({n.name!r}))"
            return f"{arr}[{obj}]"
        if isinstance(n, A.BinOp):
            a, b = self.ex(n.left, names), self.ex(n.right, names)
            if n.op == "+":
                if n.t in ("cards", "players", "list"):
                    return f"_join(s, {a}, {b})"
                if untyped(n):
                    return f"{self.const(checked_plus)}({a}, {b})"
                return self._in_range(n, f"({a} + {b})")
            if n.op == "*":
                if n.t == "int":
                    # a small constant times a count or size: a product far below 2**63 (a list
                    # never holds 2**40 items), so no check; times 1, the count itself
                    for k, other, node in ((a, b, n.right), (b, a, n.left)):
                        if re.fullmatch(r"-?\d+|\(-\d+\)", k) and abs(int(k.strip("()"))) < 1 << 23 \
                                and isinstance(node, A.Call) and node.func in ("count", "size") and node.t == "int":
                            return other if k == "1" else f"({a} * {b})"
                    m = _magnitude(n, L)
                    if m is not None and m < INT_LIMIT:     # numbers known to be small: no check
                        return f"({a} * {b})"
                return f"_mul({a}, {b})"
            if n.op == "**":
                return f"_pow({a}, {b})"
            if untyped(n):
                return f"{self.const(checked_arith)}({n.op!r}, {a}, {b})"
            src = f"({a} {n.op} {b})"
            return self._in_range(n, src) if n.op == "-" else src     # (`//`, `%` cannot leave it)
        if isinstance(n, A.Compare):
            eq = self._attr_equals(n, names)
            if eq is not None:
                return eq
            if n.op in _EMPTY_TEST and isinstance(n.right, A.Const) and n.right.value == 0 \
                    and n.right.value is not False and _sized_comp(n.left):
                # `size([e for x in short list if c]) > 0`: count the c's, unrolled (no list, no
                # frame); e is not evaluated, which is safe as it cannot fail (_safe_elt)
                t = id(n) in self._tests
                items = self._unrolled(n.left.args[0], names, cond=True, tests=True)
                if items is not None:
                    if t:
                        chain = " or ".join(f"({x})" for x in items)
                        return f"(not ({chain}))" if _EMPTY_TEST[n.op] else f"({chain})"
                    return f"(({' + '.join(f'(1 if {x} else 0)' for x in items)}) {n.op} 0)"
            self._truth.pop(id(n), None)        # recorded below only if this generation is a guard
            a = self.ex(n.left, names)
            if n.op == "!=" and isinstance(n.right, A.Const) and n.right.value is None \
                    and isinstance(n.left, A.Name) and n.left.t == "card" \
                    and (a.startswith("v_") or _PLAIN_READ.match(a)):
                self._truth[id(n)] = (n, ("nn", a))      # `x != none`: x holds a card where this holds
            if n.op in ("in", "not in"):
                b = self._member_set(n.right, names) or self._walk(n.right, self.as_list(n.right, names))
            else:
                b = self.ex(n.right, names)
            if b == "0" and n.op in _EMPTY_TEST and _one_len_call(a):   # size truth test: no len() call
                if not _EMPTY_TEST[n.op]:
                    self._truth[id(n)] = (n, a[4:-1])   # (held here, so its id stays its own)
                if _EMPTY_TEST[n.op]:
                    return f"(not {a[4:-1]})"
                return f"({a[4:-1]})" if id(n) in self._tests else f"(not not {a[4:-1]})"
            return f"({a} {n.op} {b})"
        if isinstance(n, A.BoolOp):
            t = id(n) in self._tests        # a test's operands are only truth-tested too
            with self._as_test(n.left, t):
                a = self.ex(n.left, names)
            if a in ("True", "False"):      # an option or a constant decides: fold it
                if (a == "False") == (n.op == "and"):
                    return a
                with self._as_test(n.right, t):
                    return self.ex(n.right, names)
            if n.op == "and":
                with self._as_test(n.right, t):
                    b = self._guarded(n.left, n.right, names)
                if b == "True" and n.left.t == "bool":      # `x and true` is x
                    return a
            else:
                with self._as_test(n.right, t):
                    b = self.ex(n.right, names)
                if b == "False" and n.left.t == "bool":     # `x or false` is x
                    return a
            return f"({a} {n.op} {b})"
        if isinstance(n, A.IfExp):
            c = self.test(n.cond, names)
            if c in ("True", "False"):      # an option or a constant decides: fold it
                return self.ex(n.body if c == "True" else n.orelse, names)
            return f"({self._guarded(n.cond, n.body, names)} if {c} else {self.ex(n.orelse, names)})"
        if isinstance(n, A.Unary):
            a = self.test(n.operand, names) if n.op == "not" else self.ex(n.operand, names)
            if n.op == "not" and a in ("True", "False"):
                return "False" if a == "True" else "True"
            return f"({'not ' if n.op == 'not' else '-'}{a})"
        if isinstance(n, A.ListLit):
            if all(isinstance(x, A.Const) for x in n.items):
                return self.const([x.value for x in n.items])   # lists are never changed in place
            return "[" + ", ".join(self.ex(x, names) for x in n.items) + "]"
        if isinstance(n, A.Comp):
            items = self._unrolled(n, names)
            if items is not None:
                return "[" + ", ".join(items) + "]"
            if n.cond is not None and not n.gen:
                # with a condition: each item's condition, then its element if it holds, in order
                pairs = self._unrolled(n, names, cond="both")
                if pairs is not None:
                    return "[" + ", ".join(f"*(({e},) if ({c}) else ())" for c, e in pairs) + "]"
            body = self.comp(n, names)
            return f"list({body[1:]})" if body.startswith("=") else f"[{body}]"
        if isinstance(n, A.Call):
            return self.call(n, names)
        raise AssertionError(n)

    def _in_range(self, n, src):
        """The source of a `+`, `-` or `sum` n, checked to stay in the number range (|x| < 2**63)
        unless its operands' bounds, known here, keep it there (`3 * size(Z) + c.rank`)."""
        m = _magnitude(n, self.L)
        return src if m is not None and m < INT_LIMIT else f"_bounded({src})"

    def _attr_equals(self, n, names):
        """`x.attr == v` (or `!=`), v a constant and x a card that cannot be none here: one table
        of booleans per card id (`T[x]`), instead of reading the attribute and comparing."""
        if n.op not in ("==", "!=") or not hasattr(self.L, "ncards"):
            return None
        at, cv = (n.left, n.right) if isinstance(n.left, A.Attr) else (n.right, n.left)
        if not (isinstance(at, A.Attr) and isinstance(cv, A.Const) and at.name in self.L.attr):
            return None
        obj = self.ex(at.obj, names)
        if isinstance(at.obj, A.Name) and obj not in self.nonnull:
            return None         # it may be none: the plain form names the fault
        key = (at.name, type(cv.value).__name__, repr(cv.value), n.op)
        table = self._eq_tables.get(key)
        if table is None:
            want = n.op == "=="
            table = self._eq_tables[key] = self.const([(v == cv.value) is want for v in self.L.attr[at.name]])
        return f"{table}[{obj}]"

    def _guarded(self, cond, n, names):
        """The source of n, evaluated only where cond (a node or a list of conjuncts, just
        generated) holds: the zones cond tests non-empty (`size(Z) > 0` conjuncts) need no
        emptiness test in n (`top(Z)` is `Z[-1]`)."""
        terms = [y for x in cond for y in _conjuncts(x)] if isinstance(cond, list) else _conjuncts(cond)
        found = [self._truth[id(x)][1] for x in terms if self._truth.get(id(x), (None,))[0] is x]
        new = {x for x in found if isinstance(x, str)} - self._known
        nn = {x[1] for x in found if isinstance(x, tuple)} - self.nonnull
        if not new and not nn:
            return self.ex(n, names)
        self._known |= new
        self.nonnull |= nn
        self._known_nn |= nn
        try:
            return self.ex(n, names)
        finally:
            self._known -= new
            self.nonnull -= nn
            self._known_nn -= nn

    def _unrolled(self, n, names, cond=False, tests=False):
        """The element sources of a comprehension over a short constant list (the players, a
        family's keys, a literal list of constants) with no condition: one source per item, or None.
        With `cond`, the sources of its condition instead (which must then exist); with
        cond="both", (condition, element) source pairs."""
        if (n.cond is not None) != bool(cond):
            return None
        it = n.iter
        if isinstance(it, A.Name) and it.ref == ("const", "players"):
            values = list(range(self.L.P))
        elif isinstance(it, A.Call) and it.func == "indices":
            z = it.args[0].ref[1]
            values = list(self.L.zone_keys[z.name])
        elif isinstance(it, A.ListLit) and all(isinstance(x, A.Const) for x in it.items):
            values = [x.value for x in it.items]
        else:
            return None
        if not 0 < len(values) <= UNROLL:
            return None
        out = []
        size = 0
        for v in values:
            inner = dict(names)
            src = self.lit(v)
            if isinstance(v, int) and not isinstance(v, bool) and it.t in ("players",) or (
                    isinstance(it, A.Call) and isinstance(v, int) and it.args[0].ref[1].per_player):
                self.valid_players.add(src)      # a literal seat below P
            inner[n.var] = src
            self._lits[src] = v
            if cond == "both":
                c = self.test(n.cond, inner)
                e = (c, self._guarded(n.cond, n.elt, dict(inner)))
                size += len(e[0]) + len(e[1])
            else:
                e = self.test(n.cond, inner) if cond and tests else self.ex(n.cond if cond else n.elt, inner)
                size += len(e)
            if size > UNROLL_CHARS:
                return None
            out.append(e)
        return out

    def comp(self, n, names):
        it = self._charged(n.iter, self.as_list(n.iter, names), comp_weight(n))
        inner = dict(names)
        py = self.ident()
        inner[n.var] = py
        if self._over_players(n.iter):
            self.valid_players.add(py)
        if n.iter.t == "zone":
            self.nonnull.add(py)
        base_it = it
        it, rest, pick = self._prefilter(n, it, names, eq=True)
        if not rest and pick is not None and pick[2] and self._hc is None \
                and isinstance(n.elt, A.Name) and n.elt.id == n.var:
            by_value = self._masks_by_value(n, pick)
            if by_value is not None:    # `c.attr == v` with card tests: one 0/1 table per value
                return "=" + f"filter({by_value[0]}.get({pick[1]}, {by_value[1]}), {base_it})"
        if pick is not None:            # the attribute test goes back among the others
            it, rest = self._prefilter(n, base_it, names)
        if not rest and it.startswith("filter(") and isinstance(n.elt, A.Name) and n.elt.id == n.var:
            return "=" + it      # the comprehension is a filter: callers use it as it is
        if not rest and n.iter.t == "zone" and isinstance(n.elt, A.Attr) and isinstance(n.elt.obj, A.Name) \
                and n.elt.obj.id == n.var and n.elt.obj.ref[0] == "local" and n.elt.name in self.L.attr:
            # `[c.attr for c in Z]`: the cards' attribute table read in C (a card, never none)
            return "=" + f"map({self._getter(self.L.attr[n.elt.name])}, {it})"
        # an outermost comprehension over a few constant items: what it nests is bounded work each
        # time (a few walks of a small deck's zone), so the walks inside need no charge either
        short = self._comp_depth == 0 and not self._short_level and self._few(n.iter)
        if short:
            self._short_level = True
        else:
            self._comp_depth += 1
        try:
            cond = f" if {self._conj(rest, inner)}" if rest else ""
            elt = self._guarded(rest, n.elt, inner)     # the item is evaluated where the condition holds
        finally:
            if short:
                self._short_level = False
            else:
                self._comp_depth -= 1
        return f"{elt} for {py} in {it}{cond}"

    def _few(self, node):
        """A list of at most UNROLL constant items: the players, a family's keys, a literal list of
        constants, a range with constant bounds."""
        if isinstance(node, A.Name) and node.ref == ("const", "players"):
            return self.L.P <= UNROLL
        if isinstance(node, A.Call) and node.func == "indices":
            return len(self.L.zone_keys[node.args[0].ref[1].name]) <= UNROLL
        if isinstance(node, A.ListLit):
            return len(node.items) <= UNROLL and all(isinstance(x, A.Const) for x in node.items)
        if isinstance(node, A.Call) and node.func == "range" and all(isinstance(a, A.Const) for a in node.args):
            lo, hi = (0, node.args[0].value) if len(node.args) == 1 else (node.args[0].value, node.args[1].value)
            return hi - lo <= UNROLL
        return False

    def _conj(self, terms, names):
        return " and ".join(f"({self.test(x, names)})" for x in terms)

    # -- card predicates precomputed per card -------------------------------------------------
    def _prefilter(self, c, it, names, eq=False):
        """A comprehension over a zone whose condition tests the card's own attributes: those tests
        are computed once per card id at load time (a 0/1 table), so the loop becomes a C-level
        `filter(table, zone)`. Returns (iterable source, the conjuncts still to test per item); with
        `eq`, also (attribute table, value source) of one `c.attr == name` conjunct, or None."""
        terms = _conjuncts(c.cond) if c.cond is not None else []
        if not terms or c.iter.t != "zone" or not hasattr(self.L, "ncards"):
            return (it, terms, None) if eq else (it, terms)
        mask, rest, pick = None, [], None
        for x in terms:
            if _card_only(x, c.var):
                m = self._mask(x, c.var)
                if m is not None:
                    mask = m if mask is None else bytes(a & b for a, b in zip(mask, m))
                    continue
            if eq and pick is None:
                pick = self._attr_eq(x, c.var, names)
                if pick is not None:
                    continue
            rest.append(x)
        if mask is not None:
            it = f"filter({self._getter(mask)}, {it})"
        return (it, rest, pick) if eq else (it, rest)

    def _getter(self, seq):
        """A constant holding `seq.__getitem__` (one per sequence, so equal sources stay equal)."""
        name = self._getters.get(id(seq))
        if name is None:
            # a list's bound __getitem__ is a fast builtin method; a tuple's or bytes' is a slot
            # wrapper that builds an argument tuple per call (about 40% dearer inside map/filter/sum)
            fast = seq if seq.__class__ in (list, dict) else list(seq)
            name = self._getters[id(seq)] = self.const(fast.__getitem__)
            self._getter_seq[name] = seq
            self._getter_list[name] = fast
            self._keep.append(seq)
            self._keep.append(fast)
        return name

    def _table(self, seq):
        """A constant holding `seq` as a list, for `K[i]` (a subscript beats calling its getter)."""
        return self.const(self._getter_list[self._getter(seq)])

    def _hoisted(self, src):
        """Inside an action's enumeration (which changes nothing): a pure expression that depends on
        no parameter bound below level i is computed once per iteration of level i (and shared by
        equal expressions) instead of once per candidate."""
        hc = self._hc
        if hc is None or _UNSAFE.search(src) or any(k + "[" in src for k in self._known) \
                or any(k in src for k in self._known_nn):
            return src      # (a read only its guard makes safe stays behind the guard)
        used = set(_IDENT.findall(src)) - set(_BOUND.findall(src))
        if any(u not in hc["level"] for u in used):
            return src
        name = hc["memo"].get(src)
        if name is None:
            level = max((hc["level"][u] for u in used), default=-1)
            name = hc["memo"][src] = self.ident()
            hc["slots"].setdefault(level, []).append(f"{name} = {src}")
        return name

    def _empty_guard(self, p, names):
        """Parameter p's `where` has a conjunct `x in L`, L a variable read (no call, nothing that can
        fail) that no parameter from p on changes: when L is empty no candidate of p passes, so
        the loop over p's candidates is skipped. The source of L, or None."""
        if p.where is None or self._hc is None:
            return None
        for x in _conjuncts(p.where.ast):
            r = x.right if isinstance(x, A.Compare) and x.op == "in" else None
            if r is not None and r.t in ("cards", "players", "list") and _cannot_fail(x.left) and (
                    (isinstance(r, A.Name) and r.ref[0] == "var") or
                    (isinstance(r, A.Index) and isinstance(r.obj, A.Name) and r.obj.ref[0] == "var")):
                src = self.as_list(r, names)
                if _PLAIN_READ.match(src):
                    return src
            if not _cannot_fail(x):     # a fault the reference would raise before the test: keep it
                return None
        return None

    def _member_set(self, node, names):
        """Inside an enumeration: `x in L` for a list L of cards or players that depends on no
        parameter bound below level i tests a set made once per iteration of level i, on first use
        (charged once: the candidates' tests are then one step each), instead of walking L per
        candidate. None: not such a case."""
        hc = self._hc
        if hc is None or node.t not in ("cards", "players") or self._small(node):
            return None
        src = self.as_list(node, names)
        if _UNSAFE.search(src) or src in self.small_locals or any(k + "[" in src for k in self._known) \
                or any(k in src for k in self._known_nn):
            return None
        used = set(_IDENT.findall(src)) - set(_BOUND.findall(src))
        if any(u not in hc["level"] for u in used):
            return None
        key = ("member set", src)
        cell = hc["memo"].get(key)
        if cell is None:
            level = max((hc["level"][u] for u in used), default=-1)
            cell = hc["memo"][key] = self.ident()
            hc["slots"].setdefault(level, []).append(f"{cell} = [None]")
            hc["level"][cell] = level       # an expression using it may be hoisted to that level
        return f"({cell}[0] if {cell}[0] is not None else _mset(s, {src}, {cell}))"

    def _masks_by_value(self, c, pick):
        """For `count(x for x in Z if <card tests> and x.attr == v)`: per value of the attribute, the
        getter of the 0/1 table of (card tests and attr == value); with the getter of all zeros."""
        attr_getter = pick[0]
        key = ("by_value", _dump(c.cond), c.var)
        if key in self._masks:
            return self._masks[key]
        out = None
        values = self._getter_seq[attr_getter]
        n = self.L.ncards
        base = None
        terms = [x for x in _conjuncts(c.cond) if _card_only(x, c.var)]
        for x in terms:
            m = self._mask(x, c.var)
            if m is None:
                break
            base = m if base is None else bytes(a & b for a, b in zip(base, m))
        else:
            try:
                distinct = list(dict.fromkeys(values))
            except TypeError:           # unhashable attribute values (lists): no tables
                distinct = None
            if distinct is not None and len(distinct) <= 64 and self._mask_work + n * len(distinct) <= MASK_WORK:
                self._mask_work += n * len(distinct)
                table = {}
                for u in distinct:
                    m = bytes(1 if values[i] == u and (base is None or base[i]) else 0 for i in range(n))
                    table.setdefault(u, list(m).__getitem__)     # (a list's: see _getter)
                self._keep.append(table)
                zero = [0] * n
                self._keep.append(zero)
                out = (self.const(table), self.const(zero.__getitem__))
        self._masks[key] = out
        return out

    def _mask(self, node, var):
        key = (_dump(node), var)
        if key in self._masks:
            return self._masks[key]
        m = None
        n = self.L.ncards
        if self._mask_work + n <= MASK_WORK:
            self._mask_work += n
            src = self.ex(node, {var: "c"})
            self.nonnull.add("c")
            fn = eval(compile(f"lambda c: {src}", "<gamespec card predicate>", "eval"), self.ns)  # generated source
            try:
                m = bytes(1 if fn(c) else 0 for c in range(n))
            except Exception:   # noqa: BLE001 - a test that fails on some card stays a per-item test
                m = None
        self._masks[key] = m
        return m

    def _attr_eq(self, x, var, names):
        """`c.attr == v` (either side) with v a name or constant, another loop's card attribute, or
        an item of a constant list at a name: (attribute table, v's source, v cannot fail)."""
        if not (isinstance(x, A.Compare) and x.op == "=="):
            return None
        for a, b in ((x.left, x.right), (x.right, x.left)):
            if isinstance(a, A.Attr) and isinstance(a.obj, A.Name) and a.obj.id == var \
                    and a.obj.ref[0] == "local" and (isinstance(b, A.Const) or (
                        isinstance(b, A.Name) and not (b.ref[0] == "local" and b.id == var))
                        or self._card_attr_of_other(b, var, names)):
                return self._getter(self.L.attr[a.name]), self.ex(b, names), True
            if isinstance(a, A.Attr) and isinstance(a.obj, A.Name) and a.obj.id == var \
                    and a.obj.ref[0] == "local" and isinstance(b, A.Index) \
                    and isinstance(b.obj, A.ListLit) and all(isinstance(y, A.Const) for y in b.obj.items) \
                    and (isinstance(b.index, A.Const) or (isinstance(b.index, A.Name) and b.index.ref[0] == "local"
                                                           and b.index.id != var)):
                # `kinds[i]`: read once, not per card; it can fail (a bad index), so only where the
                # reference reads it too (a non-empty zone: see aggregate)
                return self._getter(self.L.attr[a.name]), self.ex(b, names), False
        return None

    def _card_attr_of_other(self, b, var, names):
        """`d.attr` of another loop's card (never none there): it cannot fail, so it may be read once."""
        return isinstance(b, A.Attr) and isinstance(b.obj, A.Name) and b.obj.ref[0] == "local" \
            and b.obj.id != var and isinstance(names.get(b.obj.id), str) and names[b.obj.id] in self.nonnull

    def _small(self, node):
        """A list small by construction: the players, a family's keys, a literal list, a zone of a
        small deck, a local holding a list made from one of those."""
        return (isinstance(node, A.Name) and node.ref == ("const", "players")) or isinstance(node, A.ListLit) \
            or (isinstance(node, A.Comp) and self._small(node.iter)) \
            or (isinstance(node, A.Call) and node.func == "range" and all(isinstance(a, A.Const) for a in node.args)
                and (node.args[-1].value - (node.args[0].value if len(node.args) == 2 else 0)) <= UNROLL_CHARS) \
            or (isinstance(node, A.Call) and node.func in ("indices", "others", "players_from")) \
            or (node.t == "zone" and getattr(self.L, "ncards", SMALL_DECK + 1) <= SMALL_DECK)

    def _walk(self, node, src):
        """Charge a list an operation walks through, unless it is small by construction."""
        return src if self._small(node) or src in self.small_locals else f"_charge(s, {src})"

    def _charged(self, node, it, w=1):
        """The iterable, charged to the step budget (w steps an item) unless it is small by
        construction and not nested in another comprehension."""
        if w == 1 and self._comp_depth == 0 and (self._small(node) or it in self.small_locals):
            return it       # a small list, a short item: bounded work each time the rule runs
        return f"_charge(s, {it})" if w == 1 else f"_charge_w(s, {it}, {w})"

    def index(self, n, names):
        L = self.L
        kind = n.ref[0]
        if kind == "member":
            z = n.ref[1]
            base = L.zone_base[z.name]
            if z.per_player:
                return f"({_plus(base, self.pidx(n.index, names))})"
            if z.per_team:
                return f"({_plus(base, self.tidx(n.index, names))})"
            keymap = self._keymaps.get(z.name)
            if keymap is None:      # one per family: the same member reads the same source
                keymap = self._keymaps[z.name] = {k: base + i for i, k in enumerate(L.zone_keys[z.name])}
            if isinstance(n.index, A.Const):
                return str(keymap[n.index.value])
            idx = self.ex(n.index, names)
            if idx in self._lits and self._lits[idx] in keymap:   # an unrolled loop's item
                return str(keymap[self._lits[idx]])
            return f"{self.const(keymap)}[{idx}]"
        if kind == "pvar":
            return f"s.v[{_plus(L.var_base[n.ref[1].name], self.pidx(n.index, names))}]"
        if kind == "tvar":
            return f"s.v[{_plus(L.var_base[n.ref[1].name], self.tidx(n.index, names))}]"
        if kind == "table":
            return f"{self.const(L.tables[n.ref[1]])}[{self.ex(n.index, names)}]"
        return f"{self.as_list(n.obj, names)}[{self.ex(n.index, names)}]"

    # -- functions (docs/language.md, Functions) -----------------------------------------------
    _CONTEXT = ("_assigned", "_comp_depth", "_short_level", "_loop_depth", "inline_moves", "_hc", "_truth",
                "_known", "_known_nn", "_tests", "_in_function")

    def function(self, name):
        """The namespace name (`F<n>`) of the generated function `name`: `F<n>(s, depth, *args)`, made on
        first use (in a fresh generation context: it may be asked for while another rule is generated),
        once per rule set; a recursive call names it before it exists, which is fine: it is looked up
        when called."""
        fnames = self.__dict__.setdefault("_fn_names", {})
        ident = fnames.get(name)
        if ident is not None:
            return ident
        ident = fnames[name] = f"F{next(self._uid)}"
        decl = self.L.spec.functions[name]
        saved = {k: getattr(self, k, None) for k in self._CONTEXT}
        self._assigned, self._comp_depth, self._short_level, self._loop_depth = \
            _assigned_names(decl.rule.ast), 0, False, 0
        self.inline_moves, self._hc, self._truth, self._known, self._known_nn, self._tests = \
            False, None, {}, set(), set(), set()
        self._in_function = True
        try:
            params = [self.ident() for _ in decl.params]
            names = dict(zip(decl.params, params))
            lines = [f"_enter(s, _d, {function_weight(decl)})"] + self.block(decl.rule.ast, names, 0) + ["return None"]
            fn = self._function(decl.rule, lines, name=ident, args=", ".join(["s", "_d"] + params))
        finally:
            for k, v in saved.items():
                setattr(self, k, v)
        self.ns[ident] = fn
        return ident

    def call_function(self, n, names):
        ident = self.function(n.fn)
        args = [f"list(s.z[{self.ex(a, names)}])" if a.t == "zone" else self.ex(a, names) for a in n.args]
        depth = "_d + 1" if getattr(self, "_in_function", False) else "1"
        return f"{ident}({', '.join(['s', depth] + args)})"

    def call(self, n, names):
        f = n.func
        if getattr(n, "fn", None) is not None:
            return self.call_function(n, names)
        if n.args and isinstance(n.args[0], A.Comp) and n.args[0].gen:
            return self.aggregate(n, names)
        return CALLS[f](self, n, names)

    def call_args(self, n, names):
        """A built-in's arguments (a zone as its cards), the first charged where the call visits every
        item (WALKS_LIST; not max/min of several)."""
        f = n.func
        args = [self.as_list(a, names) for a in n.args]
        if f in WALKS_LIST and args and not (f in ("max", "min") and len(args) > 1):
            # the call visits every item: charge what can be large
            args[0] = self._walk(n.args[0], args[0])
        return args

    @emits("team")
    def bi_team(self, n, names):
        return f"{self.const(list(self.L.seat_team))}[{self.pidx(n.args[0], names)}]"

    @emits("members")
    def bi_members(self, n, names):
        return f"{self.const([list(m) for m in self.L.team_members])}[{self.tidx(n.args[0], names)}]"

    @emits("subsets", "combinations", "permutations")
    def bi_subsets(self, n, names):
        return f"_{n.func}(s, {', '.join(self.as_list(a, names) for a in n.args)})"

    @emits("indices")
    def bi_indices(self, n, names):
        z = n.args[0].ref[1]
        return self.const(list(self.L.zone_keys[z.name]))

    @emits("top", "bottom", "cards")
    def bi_top(self, n, names):
        f = n.func
        z = self.ex(n.args[0], names)
        cs = f"s.z[{z}]"
        if f == "cards":
            return f"list({cs})"
        if len(n.args) == 1:
            if _PURE_INDEX.fullmatch(z) and not _PURE_CALL.search(z):    # inline: evaluating the index twice is cheaper than a call
                if cs in self._known:       # tested non-empty just before (_guarded)
                    return f"{cs}[{'-1' if f == 'top' else '0'}]"
                return f"({cs}[{'-1' if f == 'top' else '0'}] if {cs} else None)"
            return f"_last({cs})" if f == "top" else f"_first({cs})"
        m = self.ex(n.args[1], names)
        return f"_topn({cs}, {m})" if f == "top" else f"{cs}[:max(0, {m})]"

    @emits("others", "players_from")
    def bi_others(self, n, names):
        P = self.L.P
        q = self.pidx(n.args[0], names)
        first = 1 if n.func == "others" else 0
        if re.fullmatch(r"s\.(cur|actor)|v_\d+|\d+", q) and P <= UNROLL:     # a plain seat: listed out
            return "[" + ", ".join(f"({q} + {i}) % {P}" for i in range(first, P)) + "]"
        return f"[({q} + _i) % {P} for _i in range({first}, {P})]"

    @emits("next_player", "prev_player")
    def bi_next_player(self, n, names):
        return f"(({self.pidx(n.args[0], names)} {'+' if n.func == 'next_player' else '-'} 1) % {self.L.P})"

    @emits("can")
    def bi_can(self, n, names):
        from .actions import can, can_params
        self.ns["_can"] = can
        given = ", ".join(f"{i}: {self.ex(v, names)}" for i, v in can_params(self.L.spec, n))
        return f"_can(s, {self.const(n.action)}, {{{given}}})"

    @emits("mark")
    def bi_mark(self, n, names):
        return f"_getmark(s, {self.ex(n.args[0], names)}, {self.L.mark_index[n.mark.name]})"

    @emits("size", "count")
    def bi_size(self, n, names):
        return f"len({self.call_args(n, names)[0]})"

    @emits("sum")
    def bi_sum(self, n, names):
        return self._in_range(n, f"sum({self.call_args(n, names)[0]})")

    @emits("max", "min")
    def bi_max(self, n, names):
        f = n.func
        args = self.call_args(n, names)
        if len(args) == 1:
            if "default" in n.kwargs:
                return f"{f}({args[0]}, default={self.ex(n.kwargs['default'], names)})"
            return f"_maxof({args[0]}, {f!r})"
        return f"{f}({', '.join(args)})"

    @emits("any", "all", "abs", "sorted")
    def bi_python(self, n, names):
        """Python's own function of the same name."""
        return f"{n.func}({self.call_args(n, names)[0]})"

    @emits("first", "last")
    def bi_first(self, n, names):
        f = n.func
        args = self.call_args(n, names)
        if len(args) == 2:
            return f"list({args[0]}[:max(0, {args[1]})])" if f == "first" else f"_lastn({args[0]}, {args[1]})"
        return f"_{f}({args[0]})"

    @emits("range")
    def bi_range(self, n, names):
        args = self.call_args(n, names)
        if all(isinstance(a, A.Const) for a in n.args):
            lo, hi = (0, n.args[0].value) if len(n.args) == 1 else (n.args[0].value, n.args[1].value)
            if hi - lo <= MAX_RANGE:
                return self.const(list(range(lo, hi)))
        if len(args) == 2:
            return f"_range(s, {args[0]}, {args[1]})"
        return f"_range(s, 0, {args[0]})"

    @emits("is_max", "is_sole_max")
    def bi_is_max(self, n, names):
        f = n.func
        args = self.call_args(n, names)
        mn = self.ex(n.kwargs["min"], names) if "min" in n.kwargs else "1"
        if re.fullmatch(r"v_\d+", args[0]) and re.fullmatch(r"v_\d+|\d+", args[1]) and re.fullmatch(r"-?\d+", mn):
            # a local list, a name or number, a number: _majority inline (no call)
            v = f"{args[0]}[{args[1]}]"
            sole = f" and {args[0]}.count({v}) == 1" if f == "is_sole_max" else ""
            return f"({v} >= {mn} and {v} >= max({args[0]}){sole})"
        return f"_majority({args[0]}, {args[1]}, {mn}, {f == 'is_sole_max'})"

    @emits("dense_rank", "run_length", "index_of", "longest_run", "distinct", "count_by")
    def bi_runtime(self, n, names):
        """runtime.py's function of the same name (`_name`)."""
        return f"_{n.func}({', '.join(self.call_args(n, names))})"

    @emits("zone_of")
    def bi_zone_of(self, n, names):
        return f"s.loc[{self.call_args(n, names)[0]}]"

    @emits("face_down")
    def bi_face_down(self, n, names):
        return f"(s.face.get({self.call_args(n, names)[0]}) == 2)"

    @emits("product", "runs")
    def bi_product(self, n, names):
        return f"_{n.func}(s, {self.call_args(n, names)[0]})"

    def charged_list(self, c, names, key=None):
        """`[elt for x in xs if cond]` (with a key: `[(key, elt) ...]`), every item charged as the
        closures charge it (comp_weight, no exemption for small lists): the new built-ins' items."""
        w = comp_weight(c, key)
        src = self.as_list(c.iter, names)
        it = f"_charge(s, {src})" if w == 1 else f"_charge_w(s, {src}, {w})"
        inner = dict(names)
        py = self.ident()
        inner[c.var] = py
        if c.iter.t == "zone":
            self.nonnull.add(py)
        self._comp_depth += 1
        try:
            cond = f" if {self.test(c.cond, inner)}" if c.cond is not None else ""
            item = self.ex(c.elt, inner) if key is None else f"({self.ex(key, inner)}, {self.ex(c.elt, inner)})"
            return f"[{item} for {py} in {it}{cond}]"
        finally:
            self._comp_depth -= 1

    def keyed_pairs(self, n, names):
        """`max/min/sorted(e for x in xs if c, key=k)`: (key, item) pairs, the key computed first, charged
        like the closures' (every item, the key's weight too); the entries then call runtime.best_by /
        sorted_by."""
        return self.charged_list(n.args[0], names, n.kwargs["key"])

    def aggregate(self, n, names):
        """A built-in over a generator (`f(e for x in xs if c)`): its entry in AGGREGATES."""
        return AGGREGATES[n.func](self, n, names)

    def _reduced(self, fname, c, names):
        """Python's `fname` (sum, any, all, sorted) of the comprehension's items: over the iterator made
        in C when comp gives one (no list between), else over the list."""
        body = self.comp(c, names)
        if body.startswith("="):
            return self._hoisted(f"{fname}({body[1:]})")
        return self._hoisted(f"{fname}([{body}])")

    def _listed(self, c, names):
        """The comprehension's items as the body of a list display (an iterator made in C: its items)."""
        body = self.comp(c, names)
        return f"_x for _x in {body[1:]}" if body.startswith("=") else body

    @aggregates("product")
    def agg_product(self, n, names):
        return f"_multiply({self.charged_list(n.args[0], names)})"

    @aggregates("count")
    def agg_count(self, n, names):
        c = n.args[0]
        if c.cond is None:
            return f"len({self.as_list(c.iter, names)})"
        items = self._unrolled(c, names, cond=True, tests=True) if c.cond.t == "bool" else None
        if items is not None:
            # ints, not truth values, added up: an int + int is a specialised, cheap add
            return "(" + " + ".join(f"(1 if {x} else 0)" for x in items) + ")"
        inner = dict(names)
        py = self.ident()
        inner[c.var] = py
        if self._over_players(c.iter):
            self.valid_players.add(py)
        if c.iter.t == "zone":
            self.nonnull.add(py)
        base_it = self._charged(c.iter, self.as_list(c.iter, names), comp_weight(c))
        it, rest, pick = self._prefilter(c, base_it, names, eq=True)
        guard = _same
        if pick is not None and not pick[2]:        # (the iterable generated once more: only here)
            raw = self.as_list(c.iter, names)
            if _PURE_CALL.search(raw) or not _PURE_INDEX.fullmatch(raw):
                it, rest = self._prefilter(c, base_it, names)       # v can fail: tested per card
                pick = None
            else:
                guard = lambda src: f"({src} if {raw} else 0)"      # noqa: E731
        if not rest:
            by_value = self._masks_by_value(c, pick) if pick is not None and self._hc is None else None
            if by_value is not None:   # one 0/1 table per value of the attribute: a C-level count
                return guard(f"sum(map({by_value[0]}.get({pick[1]}, {by_value[1]}), {base_it}))")
            if pick is not None:
                return guard(f"{self._hoisted(f'list(map({pick[0]}, {it}))')}.count({pick[1]})")
            if it.startswith("filter("):
                return self._hoisted(f"sum(map({it[7:]})")   # filter(T, xs) -> sum(map(T, xs)): T is 0/1
        if pick is not None:     # other tests remain: the attribute test goes back among them
            it, rest = self._prefilter(c, base_it, names)
        self._comp_depth += 1
        try:
            cond = self._conj(rest, inner)
        finally:
            self._comp_depth -= 1
        return self._hoisted(f"len([1 for {py} in {it} if {cond}])")

    @aggregates("sum")
    def agg_sum(self, n, names):
        c = n.args[0]
        items = self._unrolled(c, names)
        if items is not None:
            return self._in_range(n, "(" + " + ".join(f"({x})" for x in items) + ")")
        return self._in_range(n, self._reduced("sum", c, names))

    @aggregates("any")
    def agg_any(self, n, names):
        c = n.args[0]
        if _repeat_test(c):     # any(k >= 2 for k in count_by(X)): a value repeats in X
            x = c.iter.args[0]
            return f"_has_repeat({self._walk(x, self.as_list(x, names))})"
        return self._truth_of(n, names, " or ")

    @aggregates("all")
    def agg_all(self, n, names):
        return self._truth_of(n, names, " and ")

    def _truth_of(self, n, names, join):
        """any/all: the items written out joined by `or`/`and` where few, else Python's any/all."""
        c = n.args[0]
        items = self._unrolled(c, names)
        if items is not None:
            src = "(" + join.join(f"({x})" for x in items) + ")"
            return src if c.elt.t == "bool" else f"bool{src}"
        return self._reduced(n.func, c, names)

    @aggregates("sorted")
    def agg_sorted(self, n, names):
        if "key" in n.kwargs:
            return f"_sorted_by({self.keyed_pairs(n, names)})"
        return self._reduced("sorted", n.args[0], names)

    @aggregates("max", "min")
    def agg_best(self, n, names):
        f = n.func
        if "key" in n.kwargs:
            pairs = self.keyed_pairs(n, names)
            if "default" in n.kwargs:
                return f"_best_by({pairs}, {f!r}, {self.ex(n.kwargs['default'], names)}, True)"
            return f"_best_by({pairs}, {f!r})"
        body = self._listed(n.args[0], names)
        if "default" in n.kwargs:
            return f"{f}([{body}], default={self.ex(n.kwargs['default'], names)})"
        return f"_maxof([{body}], {f!r})"

    @aggregates("first")
    def agg_first(self, n, names):
        c = n.args[0]
        if c.cond is not None:
            pairs = self._unrolled(c, names, cond="both")
            if pairs is not None:       # the first item whose condition holds, tested in order
                src = "None"
                for cond, elt in reversed(pairs):
                    src = f"({elt} if ({cond}) else {src})"
                return src
        body = self.comp(c, names)
        if body.startswith("="):
            return f"next({body[1:]}, None)"
        return f"next(({body}), None)"

    @aggregates("last")
    def agg_last(self, n, names):
        return f"_last([{self._listed(n.args[0], names)}])"

    # -- actions ------------------------------------------------------------------------
    def _param_values(self, p, names):
        """Python source for the candidate values of a zone/player/number/choice parameter."""
        L = self.L
        if p.kind == "zone":
            z = L.spec.zones[p.family]
            return self.const(list(L.zone_keys[z.name]))
        if p.kind == "player":
            return f"range({L.P})"
        if p.kind == "number":
            lo, hi = p.lo.ast, p.hi.ast
            if isinstance(lo, A.Const) and isinstance(hi, A.Const) and hi.value - lo.value <= 10_000:
                return f"range({lo.value!r}, {hi.value + 1!r})"
            return f"_numbers({self.ex(p.lo.ast, names)}, {self.ex(p.hi.ast, names)}, {p.name!r})"
        if p.choices is not None:
            return self.const(list(dict.fromkeys(p.choices)))
        return f"_unique({self.as_list(p.source.ast, names)})"

    def _made_actions(self, entry):
        """A constant: the Action of listing entry `entry` (all but its position fixed) at each of
        the first MADE_ACTIONS positions (for a dict value -> entry, one such list per value). Making a tuple subclass costs ten times a plain tuple;
        sharing these is safe: an Action equal in every field, position included, is the same
        legal action in any listing."""
        from gamespec.interpreter.actions import Action
        if isinstance(entry, dict):     # one list per value
            return self.const({v: [Action(x + (i,)) for i in range(MADE_ACTIONS)] for v, x in entry.items()})
        return self.const([Action(entry + (i,)) for i in range(MADE_ACTIONS)])

    def _domain(self, p):
        """The values parameter p can take, when known now and few (seats, a family's keys, the
        choices, a constant number range); else None."""
        L = self.L
        if p.kind == "player":
            values = list(range(L.P))
        elif p.kind == "zone":
            values = list(L.zone_keys[L.spec.zones[p.family].name])
        elif p.kind == "choice" and p.choices is not None:
            values = list(dict.fromkeys(p.choices))
        elif p.kind == "number" and isinstance(p.lo.ast, A.Const) and isinstance(p.hi.ast, A.Const):
            values = list(range(p.lo.ast.value, p.hi.ast.value + 1))
        else:
            return None
        return values if len(values) <= 16 else None

    def _unrolled_candidates(self, p, names):
        """A zone or player parameter's candidates filtered by its `where`, over at most UNROLL
        values, written out value by value (each folded into the zones it selects), in order, and how
        many values there are; None if not such a case."""
        if p.where is None or p.kind not in ("zone", "player"):
            return None
        L = self.L
        keys = list(L.zone_keys[L.spec.zones[p.family].name]) if p.kind == "zone" else list(range(L.P))
        if not 0 < len(keys) <= UNROLL:
            return None
        parts, size = [], 0
        for v in keys:
            src = self.lit(v)
            self._lits[src] = v
            if p.kind == "player":
                self.valid_players.add(src)
            inner = dict(names)
            inner[p.name] = src
            part = f"*(({src},) if {self.test(p.where.ast, inner)} else ())"
            size += len(part)
            if size > UNROLL_CHARS:
                return None
            parts.append(part)
        return "[" + ", ".join(parts) + "]", len(keys)

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
            lines.append(f"if not {self.test(decl.cond.ast, names)}: _EXIT_")
            cond_first = True
        else:
            cond_first = False
        seen_names = []
        seen_tuple = None        # the seen tuple made once per card, above loops that do not change it
        hoisted = []
        hc = self._hc = {"level": {}, "slots": {}, "memo": {}}
        bound = 1        # candidates the loops so far can visit at most (None: not known here)
        lines.append(("slot", -1, ""))
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
                self.nonnull.add(py)
                size = L.ncards if src.t == "zone" and self._small(src) else None
                bound = bound * size if bound is not None and size is not None else None
                it = lst if bound is not None and bound <= STATIC_STEPS else f"_charge(s, {lst})"
                guard = self._empty_guard(p, names)
                if guard is not None:
                    it = f"({it} if {guard} else ())"
                lines += [ind() + f"{seen} = set()", ind() + f"{bit} = 1 << s.actor",
                          ind() + f"for {pos}, {py} in enumerate({it}):"]
                depth += 1
                # a condition on the card's own attributes: a table lookup, before anything else
                # (identical cards pass or fail it alike, so it may come before the de-duplication)
                mask = self._mask(p.where.ast, p.name) if p.where is not None and _card_only(p.where.ast, p.name) \
                    and hasattr(L, "ncards") else None
                test = [ind() + f"if not {self._table(mask)}[{py}]: continue"] if mask is not None else []
                if src.t == "zone" and self._own_zone(src):     # the actor sees all of it unless turned
                    lines += test + [ind() + f"if not s.face or ({visexpr} | s.kn[{py}]) & {bit}:"]
                elif src.t == "zone":   # a zone holds cards only; an owner sees them all unless turned
                    lines += test + [ind() + f"if ({zv} & {bit} and not s.face) or ({visexpr} | s.kn[{py}]) & {bit}:"]
                else:
                    lines += [ind() + f"if {py} is None: continue"] + test + [
                              ind() + f"if ({visexpr} | s.kn[{py}]) & {bit}:"]
                lines += [
                          ind() + f"    {f} = {self.const(L.face_of)}[{py}]",
                          ind() + f"    if {f} in {seen}: continue",
                          ind() + f"    {seen}.add({f})",
                          ind() + "else:",
                          ind() + f"    {f} = None"]
                seen_names.append(f)
                hc["level"][py] = i
                lines.append(("slot", i, ind()))
                names[p.name] = py
                pys.append((p, py, pos))
                if p.where is not None and mask is None:
                    lines.append(ind() + f"if not {self.test(p.where.ast, names)}: continue")
                if i < len(decl.params) - 1 and all(q.kind != "card" for q in decl.params[i + 1:]):
                    # the last card parameter, more below: what the chooser sees is one tuple per card
                    seen_tuple = self.ident()
                    rest = ["None"] * (len(decl.params) - i - 1)
                    lines.append(ind() + f"{seen_tuple} = (" + "".join(f"{x}, " for x in seen_names + rest) + ")")
                continue
            elif p.kind in ("zone", "player", "number", "choice") and i > 0 and not _depends(p, decl.params[:i]):
                # independent of the parameters before it: filter its values once, on first use
                cand = self.ident()
                hoisted.append(cand)
                inner = dict(names)
                inner[p.name] = py
                values = self._param_values(p, names)
                made = self._unrolled_candidates(p, names)
                if made is not None:
                    made, size = made
                else:
                    where = f" if {self.test(p.where.ast, inner)}" if p.where is not None else ""
                    made = f"[{py} for {py} in {values}{where}]"
                    size = _static_len(values, self.ns)
                bound = bound * size if bound is not None and size is not None else None
                lines.append(ind() + f"if {cand} is None: {cand} = {made}")
                if bound is None or bound > STATIC_STEPS:   # not small by construction: charge it
                    lines += [ind() + f"s.budget -= len({cand})",     # as _charge does, without the call
                              ind() + "if s.budget < 0: _fault('step budget exhausted (a rule visits too many items)', 'budget')"]
                lines.append(ind() + f"for {py} in {cand}:")
                depth += 1
                hc["level"][py] = i
                lines.append(("slot", i, ind()))
                seen_names.append("None")
                names[p.name] = py
                pys.append((p, py, pos))
                continue
            elif p.kind in ("zone", "player", "number", "choice"):
                values = self._param_values(p, names)
                size = _static_len(values, self.ns)
                bound = bound * size if bound is not None and size is not None else None
                if bound is None or bound > STATIC_STEPS:   # not small by construction: charge it
                    values = f"_charge(s, {values})"
                guard = self._empty_guard(p, names)
                if guard is not None:
                    values = f"({values} if {guard} else ())"
                lines.append(ind() + f"for {py} in {values}:")
                depth += 1
                seen_names.append("None")
                hc["level"][py] = i
                lines.append(("slot", i, ind()))
            names[p.name] = py
            pys.append((p, py, pos))
            if p.where is not None:
                lines.append(ind() + f"if not {self.test(p.where.ast, names)}: continue")
        if decl.cond is not None and not cond_first:
            lines.append(ind() + f"if not {self.test(decl.cond.ast, names)}: " + ("continue" if pys else "_EXIT_"))
        for var, r in decl.cost:
            lines.append(ind() + f"if s.v[{_plus(L.var_base[var], 's.actor')}] < {self.ex(r.ast, names)}: "
                         + ("continue" if pys else "_EXIT_"))
        args = "(" + "".join(f"{pos if p.kind == 'card' else py}, " for p, py, pos in pys) + ")"
        bind = "(" + "".join(f"{py}, " for p, py, pos in pys) + ")"   # the run reads it by index
        if bind == args:
            lines.append(ind() + f"_a = {args}")     # no card parameter: the same values, one tuple
            args = bind = "_a"
        seen = seen_tuple or "(" + "".join(f"{x}, " for x in seen_names) + ")"
        if all(x == "None" for x in seen_names):
            seen = self.const(tuple(None for _ in seen_names))
        entry = f"({self.const(rt.name)}, {args}, {bind}, {seen}, _rt, None"
        # an Action at once (with its position) for a state whose legal_actions() are asked for,
        # else a plain tuple without the position (State.legal_actions() numbers them if asked)
        domain = self._domain(pys[0][0]) if len(pys) == 1 and args == "_a" else None
        domains = [self._domain(p) for p, _, _ in pys] if len(pys) > 1 and args == "_a" else None
        if domains and all(d is not None for d in domains) and math.prod(map(len, domains)) <= 64:
            # a few parameters with few values each: the Action of each combination (the args
            # tuple) at each position, made once
            made = self._made_actions({vs: (rt.name, vs, vs, self.ns[seen], rt, None)
                                       for vs in itertools.product(*domains)})
            lines.append(ind() + f"_ap(({made}[_a][len(_out)] if len(_out) < {MADE_ACTIONS} else "
                                 f"_Action({entry}, len(_out)))) if _w else {entry}))")
        elif domain is not None:
            # one parameter with few values known now (a seat, a family key, a choice): the Action
            # of each value at each position, made once
            py = pys[0][1]
            made = self._made_actions({v: (rt.name, (v,), (v,), self.ns[seen], rt, None) for v in domain})
            lines.append(ind() + f"_ap(({made}[{py}][len(_out)] if len(_out) < {MADE_ACTIONS} else "
                                 f"_Action({entry}, len(_out)))) if _w else {entry}))")
        elif pys:
            lines.append(ind() + f"_ap(_Action({entry}, len(_out))) if _w else {entry}))")
        else:   # no parameter: the same Action at each position, made once
            made = self._made_actions((rt.name, (), (), self.ns[seen], rt, None))
            lines.append(ind() + f"_ap(({made}[len(_out)] if len(_out) < {len(self.ns[made])} else "
                                 f"_Action({entry}, len(_out)))) if _w else {entry}))")
        self._hc = None
        lines = [x for ln in lines for x in (
            [ln[2] + h for h in hc["slots"].get(ln[1], [])] if isinstance(ln, tuple) else [ln])]
        from gamespec.interpreter.actions import Action
        self.ns["_Action"] = Action
        rt_name = self.const(rt)
        origin_rule = decl.effect or decl.cond or (decl.params[0].where if decl.params else None)
        body = [f"_rt = {rt_name}"] + [f"{h} = None" for h in hoisted] + lines
        rt.enum_source = (origin_rule, body)     # for the decision points' enumerations (choice())
        standalone = ["_out = e", "_ap = e.append", "_w = s._wants_actions"] + [ln.replace("_EXIT_", "return") for ln in body]
        enum = _Lazy(lambda: self._function(origin_rule, standalone, args="s, e"))   # decision points
        # use choice(); this one is compiled only if something asks an action alone
        env, body = self.run_body(decl)
        run = self._function(decl.effect, self._prologue(env) + (body or ["pass"]))
        return enum, run

    def run_body(self, decl):
        """An action's run, as (namespace env, lines): pay the cost, then the effect."""
        env = {}
        sc = self._scope({p.name: i for i, p in enumerate(decl.params)}, env,
                         valid={p.name for p in decl.params if p.kind == "player"},
                         nonnull={p.name for p in decl.params if p.kind == "card"})
        body = []
        for var, r in decl.cost:
            slot = f"s.v[{_plus(self.L.var_base[var], 's.actor')}]"
            body.append(f"{slot} = _pay({slot}, {self.ex(r.ast, sc)}, {self.const(r.origin)})")
        if decl.effect is not None:
            self._assigned = _assigned_names(decl.effect.ast)
            body += self.block(decl.effect.ast, sc, 0)
        return env, body


_UNSAFE = re.compile(r"\b(_maxof|_fault|_mul|_pow|_first|_last|_index_of|_dense_rank|_majority|_range|_join|"
                     r"_numbers|_unique|_bounded|_pay|_move|_move_pub|_move_plain|_lose_track|_widen|_deal|_shuffle|_reveal|_getmark|_setmark|_tick|next|e|"
                     r"_subsets|_combinations|_permutations|_product|_multiply|_runs|_best_by|_sorted_by|_team)\b|[KF]\d+\(|\be\[")
_IDENT = re.compile(r"\bv_\d+\b")
_PLAIN_READ = re.compile(r"s\.v\[(\d+|\(\d+ \+ s\.(actor|cur)\))\]$")     # a variable, read as it is
_BOUND = re.compile(r"\bfor (v_\d+) in\b")


# a zone index made of names, numbers and arithmetic only (no call): evaluated twice, same value
_PURE_INDEX = re.compile(r"[\w.\s+\-*%()\[\]]*")
_PURE_CALL = re.compile(r"\w\s*\(")
# `len(x) OP 0` as a truth test of x: True when the op means "empty"
_EMPTY_TEST = {"==": True, "<=": True, ">": False, "!=": False}


_STATE_LIST = re.compile(r"(?<![\w.])s\.(z|v)\[")
_CONST_NAME = re.compile(r"(?<![\w.])K\d+\b")


def localize(lines):
    """A generated function's source (its lines, `def f(s, ...):` first) with the state's zone and
    variable lists read through locals when read more than once (never reassigned while a game
    runs: one attribute load each instead of one per read), and the constants it names (outside
    messages, on error paths) bound as default arguments: read as locals, not as globals."""
    ks = sorted({k for ln in lines[1:] if "'" not in ln and '"' not in ln for k in _CONST_NAME.findall(ln)},
                key=lambda k: int(k[1:]))
    if ks and lines[0].endswith("):"):
        lines = [lines[0][:-2] + "".join(f", {k}={k}" for k in ks) + "):"] + lines[1:]
    body = "\n".join(lines[1:])
    found = _STATE_LIST.findall(body)
    names = sorted(x for x in set(found) if found.count(x) > 1)
    if not names:
        return "\n".join(lines) + "\n"
    head = [f"    _{x} = s.{x}" for x in names]
    body = _STATE_LIST.sub(lambda m: f"_{m.group(1)}[" if m.group(1) in names else m.group(0), body)
    return "\n".join([lines[0]] + head + [body]) + "\n"


def _only_owner(z):
    """Does only its owner see a member of this family?"""
    v = VISIBILITIES[z.visibility]
    return v.owner_sees and not v.others_see


def _same(src):
    return src


def _range_of_size(n):
    """Is `n` the call `range(size(...))` (numbers from 0 below a zone's or list's size)?"""
    return isinstance(n, A.Call) and n.func == "range" and len(n.args) == 1 \
        and isinstance(n.args[0], A.Call) and n.args[0].func == "size"


def _one_call(a):
    """Is the generated expression `a` exactly one call `f(...)` (its closing parenthesis last)?"""
    i = a.find("(")
    if i <= 0 or not a.endswith(")"):
        return False
    depth = 0
    for j, ch in enumerate(a[i:], i):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0:
            return j == len(a) - 1
    return False


def _one_len_call(a):
    """Is the generated expression `a` exactly one call `len(...)`?"""
    if not a.startswith("len(") or not a.endswith(")"):
        return False
    depth = 0
    for i, ch in enumerate(a[3:], 3):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0:
            return i == len(a) - 1
    return False


def _static_len(values, ns):
    """Length of a parameter's candidate list when the source is a constant or a literal range."""
    m = re.fullmatch(r"range\((-?\d+), (-?\d+)\)", values)
    if m:
        return max(0, int(m.group(2)) - int(m.group(1)))
    if re.fullmatch(r"K\d+", values) and isinstance(ns.get(values), (list, tuple)):
        return len(ns[values])
    if values.startswith("range(") and values[6:-1].isdigit():
        return int(values[6:-1])
    return None


def _assigned_names(stmts):
    """Names that some `x = ...` / `x += ...` in these statements assigns."""
    out = set()
    for st in stmts:
        for x in A.walk(st):
            if isinstance(x, A.Assign) and x.target.ref[0] == "local":
                out.add(x.target.id)
    return out


def _repeat_test(c):
    """`k >= 2 for k in count_by(X)` (or `k > 1`, no condition)."""
    e = c.elt
    return (c.cond is None and isinstance(c.iter, A.Call) and c.iter.func == "count_by" and len(c.iter.args) == 1
            and isinstance(e, A.Compare) and isinstance(e.left, A.Name) and e.left.ref[0] == "local"
            and e.left.id == c.var and isinstance(e.right, A.Const) and e.right.value.__class__ is int
            and (e.op, e.right.value) in ((">=", 2), (">", 1)))


def _sized_comp(node):
    """`size(...)` or `count(...)` of a list comprehension with a condition whose items cannot fail,
    or `count(x for x in ... if c)` (which counts the c's without making the items)."""
    if not (isinstance(node, A.Call) and node.func in ("size", "count") and len(node.args) == 1):
        return False
    c = node.args[0]
    if not (isinstance(c, A.Comp) and c.cond is not None and c.cond.t == "bool"):
        return False
    return node.func == "count" and c.gen or not c.gen and _safe_elt(c)


def _safe_elt(c):
    """The item of comprehension c cannot fail: the loop variable, a constant, or the top/bottom
    card (none if empty) of a member of the family the loop runs over the keys of."""
    e = c.elt
    if isinstance(e, A.Const) or (isinstance(e, A.Name) and e.ref[0] == "local" and e.id == c.var):
        return True
    if not (isinstance(e, A.Call) and e.func in ("top", "bottom") and len(e.args) == 1):
        return False
    z = e.args[0]
    it = c.iter
    return (isinstance(z, A.Index) and z.ref[0] == "member" and isinstance(z.index, A.Name)
            and z.index.ref[0] == "local" and z.index.id == c.var
            and isinstance(it, A.Call) and it.func == "indices" and it.args[0].ref[1] is z.ref[1])


# Number-valued built-ins whose result is a count, a position or a team: far below 2**40.
_SMALL_RESULTS = frozenset(("size", "count", "index_of", "dense_rank", "run_length", "longest_run", "team",
                            "next_player", "prev_player"))
_MAX_ITEMS = 1 << 24        # items of any list a rule walks (lists, ranges and decks hold at most 100 000)


def _magnitude(n, L):
    """A bound on |n| known when the rules are generated, or None (anything in the number range)."""
    if isinstance(n, A.Const):
        return abs(int(n.value)) if isinstance(n.value, int) else None
    if getattr(n, "t", None) == "bool":
        return 1                                # (a `player` variable may hold any number: not bounded)
    if isinstance(n, A.Name):
        v = L.options.get(n.id) if n.ref[0] == "option" else None
        return abs(v) if isinstance(v, int) else 64 if n.ref[0] == "const" else None    # a seat, P, T
    if isinstance(n, A.Attr):
        vals = getattr(L, "attr", {}).get(n.name, ())
        if all(v is None or isinstance(v, int) for v in vals):
            return max((abs(v) for v in vals if v is not None), default=0)
        return None
    if isinstance(n, A.Unary) and n.op == "-":
        return _magnitude(n.operand, L)
    if isinstance(n, A.IfExp):
        return _bound(max, _magnitude(n.body, L), _magnitude(n.orelse, L))
    if isinstance(n, A.BinOp):
        a, b = _magnitude(n.left, L), _magnitude(n.right, L)
        if n.op in ("+", "-"):
            return _bound(int.__add__, a, b)
        if n.op == "*":
            return _bound(int.__mul__, a, b)
        return a if n.op == "//" else b if n.op == "%" else None
    if isinstance(n, A.Call) and not n.kwargs:
        if n.func in _SMALL_RESULTS:
            return 1 << 40
        if n.func == "abs" or n.func in ("max", "min") and len(n.args) > 1:
            ms = [_magnitude(x, L) for x in n.args]
            return None if None in ms else max(ms)
        if n.func == "sum" and isinstance(n.args[0], A.Comp):
            return _bound(int.__mul__, _magnitude(n.args[0].elt, L), _MAX_ITEMS)
    return None


def _bound(f, a, b):
    return None if a is None or b is None else f(a, b)


def _cannot_fail(n):
    """Can evaluating n never fault? (A constant, a parameter, the size, top or bottom of a zone named
    or picked by a constant or a parameter, an equality of those, an order of sizes and numbers.)
    What a skipped loop would not evaluate must be of this kind (codegen._empty_guard)."""
    if isinstance(n, A.Const):
        return True
    if isinstance(n, A.Name):
        return n.ref[0] in ("local", "zone")
    if isinstance(n, A.Index):
        return getattr(n, "ref", ("",))[0] == "member" and _cannot_fail(n.index) and \
            isinstance(n.index, (A.Const, A.Name))
    if isinstance(n, A.Call):
        return n.func in ("size", "top", "bottom") and len(n.args) == 1 and not n.kwargs \
            and n.args[0].t == "zone" and _cannot_fail(n.args[0])
    if isinstance(n, A.Compare):
        if n.op in ("==", "!="):
            return _cannot_fail(n.left) and _cannot_fail(n.right)
        if n.op in ("<", "<=", ">", ">="):
            return all(_cannot_fail(x) and (isinstance(x, A.Const) and type(x.value) is int or
                                             isinstance(x, A.Call) and x.func == "size")
                       for x in (n.left, n.right))
    return False


def _conjuncts(node):
    if isinstance(node, A.BoolOp) and node.op == "and":
        return _conjuncts(node.left) + _conjuncts(node.right)
    return [node]


_CARD_ONLY = (A.Const, A.Compare, A.BoolOp, A.Unary, A.ListLit, A.Attr, A.Name)


def _card_only(node, var):
    """Does `node` depend on nothing but the attributes of the card named `var` and constants?"""
    for x in A.walk(node):
        if not isinstance(x, _CARD_ONLY):
            return False
        if isinstance(x, A.Attr) and not (isinstance(x.obj, A.Name) and x.obj.id == var):
            return False
        if isinstance(x, A.Name):
            kind = x.ref[0]
            if not ((kind == "local" and x.id == var) or kind == "option"
                    or x.ref == ("const", "num_players")):
                return False
        if isinstance(x, A.Compare) and x.op in ("in", "not in") and not isinstance(x.right, A.ListLit):
            return False
    return True


def _dump(node):
    """A structural key of an expression (positions left out)."""
    if isinstance(node, A.Node):
        return (type(node).__name__,) + tuple(_dump(v) for k, v in node.__dict__.items()
                                              if k not in ("line", "col", "t", "meta"))
    if isinstance(node, list):
        return tuple(_dump(v) for v in node)
    if isinstance(node, dict):
        return tuple((k, _dump(v)) for k, v in node.items())
    if isinstance(node, tuple):
        return tuple(_dump(v) for v in node)
    try:
        hash(node)
    except TypeError:
        return ("id", id(node))
    return node


def _plus(base, src):
    if src.isdigit():
        return str(base + int(src))
    return src if base == 0 else f"{base} + {src}"


def _depends(p, earlier):
    names = {q.name for q in earlier}
    rules = [r for r in (p.where, p.source, p.lo, p.hi) if r is not None]
    return any(isinstance(x, A.Name) and x.id in names and getattr(x, "ref", ("",))[0] == "local"
               for r in rules for x in A.walk(r.ast))


def _uses_params(rule, params):
    pn = {p.name for p in params}
    return any(isinstance(x, A.Name) and x.id in pn and getattr(x, "ref", ("",))[0] == "local"
               for x in A.walk(rule.ast))


class _Lazy:
    """A generated function compiled on its first call."""
    __slots__ = ("make", "fn")

    def __init__(self, make):
        self.make = make
        self.fn = None

    def __call__(self, *args):
        if self.fn is None:
            self.fn = self.make()
        return self.fn(*args)


class _EnvName:
    """A name read from the env dict: loaded once in the function's prologue when used."""

    def __init__(self, key, env, gen, valid_player=False, nonnull=False):
        self.key = key
        self.env = env
        self.gen = gen
        self.valid_player = valid_player
        self.nonnull = nonnull

    def use(self):
        py = self.env.get(self.key)
        if py is None:
            py = self.env[self.key] = self.gen.ident()
            if self.valid_player:
                self.gen.valid_players.add(py)
            if self.nonnull:
                self.gen.nonnull.add(py)
        return py


check("codegen", CALLS)
check("codegen", AGGREGATES, aggregate=True)
