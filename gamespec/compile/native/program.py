"""A Ruleset → one C translation unit: the layout tables, every rule, each decision point's listing,
each action's effect, the checks after blocks of effects, the flow program (rs.flow_code, pc for
pc), the scoring and the exported layout (runtime.h's `Layout`)."""
from __future__ import annotations

from gamespec.mirrors import MAX_CALL_DEPTH, MAX_CARDS, MAX_NATIVE_PLAYERS, MAX_SOURCE_BYTES

from ..costs import function_weight
from .cgen import E, RuleGen, END_GAME, END_PHASE, _const_kind as _kind, _escapes, _names_of, allocates
from .errors import NativeUnsupported, SourceTooLarge
from .values import Pool, Texts, collect_texts, count_norm as _count_norm

SUSPEND, TERMINAL, NO_PC = -1, -2, -3      # an end_*() in a trigger: -10 - END_*
# MAX_SOURCE_BYTES (gamespec/mirrors.py): bytes of generated C beyond which the game stays in Python
# (the largest shipped spec makes 66 kB; 2.3 MB, 510 actions of four cards, held a compiler 23 s
# of CPU and 350 MB)


#: count keys (Program.count_key): at most this many value combinations per key, and this many
#: counts (ints per game state) over all keys; beyond them a count walks its zone
MAX_COUNT_COMBOS = 4096
MAX_COUNT_INTS = 1 << 18
MAX_COUNT_CLASSED = 1 << 14      # cards x keys in the class table (its source text stays small)


class CountKey:
    """One count key: its attributes, per attribute the values' indices, each card's class, the
    classes' number, its first column in a zone's counts, the combination table (several
    attributes) or None."""

    def __init__(self, index, names, locals_, cls, m, off, combo):
        self.index, self.names, self.locals, self.cls = index, names, locals_, cls
        self.m, self.off, self.combo = m, off, combo
        self.fns = set()


class Program:
    def __init__(self, rs):
        self.rs = rs
        if rs.P > MAX_NATIVE_PLAYERS:
            raise NativeUnsupported(f"more than {MAX_NATIVE_PLAYERS} players")
        if rs.ncards > MAX_CARDS:
            raise NativeUnsupported(f"more than {MAX_CARDS} cards")
        self.texts = Texts(collect_texts(rs))
        self.pool = Pool(self.texts)
        self.uid = 0
        self.decls = []          # static data
        self.protos = []
        self.funcs = []
        self.fn_bytes = 0        # of the functions so far: generation stops far over MAX_SOURCE_BYTES
        self._attrs = {}
        self._has = {}
        self._attr_ids = {}
        self._cnt_keys = {}      # count keys (count_key): attribute names -> CountKey or None
        self._cnt_order = []
        self._cnt_size = 0
        self._cnt_zones = set()  # the zones some maintained count reads
        self._tables = {}
        self._arrays = {}
        self._afters = {}
        self._listings = set()
        self._acts = {}          # action name -> (index, effect fn, enum fn)
        self.action_names = list(rs.spec.actions)
        self.action_index = {n: i for i, n in enumerate(self.action_names)}
        self.for_slot = {}       # flow loop uid -> slot; a reaction window's 'tookN' and 'asN' too
        self.score_fn = None     # the score expression's function (finish_fn), for game traces
        for kind, a in rs.flow_code:
            if kind == "for_init":
                self.for_slot[a["lkey"].split("list")[1]] = len(self.for_slot)
            elif kind == "window_open":     # '#tookN': who responded so far (docs/native.md, "Reaction windows")
                self.for_slot[a["took"][1:]] = len(self.for_slot)
            elif kind == "window_close":    # '#asN': the outcome, named by `as`
                self.for_slot[a["out"][1:]] = len(self.for_slot)
        self.nlevels = max([sum(1 for p in d.params if p.kind == "card") for d in rs.spec.actions.values()] + [1])

    # -- data ---------------------------------------------------------------------------------
    def const_array(self, ctype, items):
        key = (ctype, tuple(items))
        name = self._arrays.get(key)
        if name is None:
            name = f"KA{len(self._arrays) + 1}"
            self.decls.append(f"static const {ctype} {name}[{max(1, len(items))}] = {{{', '.join(items) or '0'}}};")
            self._arrays[key] = name
        return name

    def attr_table(self, name):
        got = self._attrs.get(name)
        if got is not None:
            return got
        vals = self.rs.attr[name]
        kinds = {_kind(v) for v in vals}
        ident = f"AT{len(self._attrs) + 1}"
        if kinds == {"i"} and all(-(1 << 63) < v < (1 << 63) for v in vals):
            self.decls.append(f"static const int64_t {ident}[{max(1, len(vals))}] = {{{', '.join(f'{v}LL' for v in vals) or '0'}}};")
            got = (ident, "i")
        elif kinds == {"s"}:
            self.decls.append(f"static const int64_t {ident}[{max(1, len(vals))}] = {{{', '.join(str(self.texts(v)) for v in vals) or '0'}}};")
            got = (ident, "s")
        elif kinds == {"b"}:
            self.decls.append(f"static const int {ident}[{max(1, len(vals))}] = {{{', '.join(str(int(v)) for v in vals) or '0'}}};")
            got = (ident, "b")
        else:
            self.decls.append(f"static const V {ident}[{max(1, len(vals))}] = {{{', '.join(self.pool.v(v) for v in vals) or '{0, T_NONE, 0}'}}};")
            got = (ident, "V")
        self._attrs[name] = got
        return got

    def attr_text_ids(self, name):
        """For an attribute whose values are texts or none (a V table): its text ids as int64, -1 for
        none (no text has that id), so that `c.attr == 'text'` is one load and one compare; None
        when the attribute holds anything else."""
        got = self._attr_ids.get(name)
        if got is None:
            vals = self.rs.attr[name]
            if not all(v is None or isinstance(v, str) for v in vals) or None not in vals:
                got = ""
            else:
                got = f"ATI{len(self._attr_ids) + 1}"
                ids = [str(self.texts(v)) if v is not None else "-1" for v in vals]
                self.decls.append(f"static const int64_t {got}[{max(1, len(vals))}] = {{{', '.join(ids) or '0'}}};")
            self._attr_ids[name] = got
        return got or None

    def count_key(self, names, zones=None):
        """The count key of these fixed card attributes (docs/native.md, "Zone counts by attribute"): every
        card classed by the tuple of its values (Python's equality: a bool as its int), the run time
        keeping, per zone, how many of its cards are in each class. None when an attribute holds a
        value that is not none, a bool, an int or a text, or when the counts would be too many.
        `zones`: the zone indices the count reads (None: any): their counts are maintained."""
        names = tuple(sorted(set(names)))
        zs = set(range(self.rs.nzones)) if zones is None else set(zones)
        if names in self._cnt_keys:
            if self._cnt_keys[names] is not None:
                self._cnt_zones |= zs
            return self._cnt_keys[names]
        got = None
        cols = []
        for name in names:
            vals = self.rs.attr.get(name)
            col = [_count_norm(v) for v in vals] if vals is not None else None
            if col is None or any(x is None for x in col):
                break
            cols.append(col)
        else:
            locals_ = []            # per attribute: normalized value -> its index
            for col in cols:
                ix = {}
                for x in col:
                    ix.setdefault(x, len(ix))
                locals_.append(ix)
            classes = {}
            cls = []
            for c in range(self.rs.ncards):
                t = tuple(ix[col[c]] for ix, col in zip(locals_, cols))
                cls.append(classes.setdefault(t, len(classes)))
            m = max(1, len(classes))
            radix = 1
            for ix in locals_:
                radix *= len(ix)
            if cols and radix <= MAX_COUNT_COMBOS and \
                    (self._cnt_size + m) * self.rs.nzones <= MAX_COUNT_INTS and \
                    (len(self._cnt_order) + 1) * self.rs.ncards <= MAX_COUNT_CLASSED:
                combo = None
                if len(names) > 1:      # mixed-radix index of the values' indices -> class, -1: no card
                    flat = [-1] * radix
                    for t, k in classes.items():
                        i = 0
                        for ix, x in zip(locals_, t):
                            i = i * len(ix) + x
                        flat[i] = k
                    combo = self.const_array("int32_t", [str(x) for x in flat])
                got = CountKey(len(self._cnt_order), names, locals_, cls, m, self._cnt_size, combo)
                self._cnt_size += m          # (columns: the ints are as many times as rows)
                self._cnt_order.append(got)
                self._cnt_zones |= zs
        self._cnt_keys[names] = got
        return got

    def count_value_fn(self, key, j):
        """C function: a V's index among the values of the key's attribute j (Python's equality), -1
        when no card holds it."""
        name = f"ckv{key.index}_{j}"
        if name in key.fns:
            return name
        ix = key.locals[j]
        ints = [(x[1], i) for x, i in ix.items() if x[0] == "i"]
        strs = [(self.texts(x[1]), i) for x, i in ix.items() if x[0] == "s"]
        none = next((i for x, i in ix.items() if x[0] == "n"), -1)
        lines = [f"static inline int32_t {name}(V x) {{", "    switch (x.t) {",
                 f"    case T_NONE: return {none};"]
        if ints:
            lines.append("    case T_BOOL: case T_INT: switch (x.i) {")
            lines += [f"        case {v}LL: return {i};" for v, i in ints]
            lines.append("        default: return -1; }")
        if strs:
            lines.append("    case T_STR: switch (x.i) {")
            lines += [f"        case {v}LL: return {i};" for v, i in strs]
            lines.append("        default: return -1; }")
        lines += ["    default: return -1;", "    }", "}"]
        self.decls.extend(lines)
        key.fns.add(name)
        return name

    def count_tables(self):
        """The Layout's count fields (ncnt, cnt_size, cnt_stride, cnt_col: C initializers) and the
        generated code's CNT_S (the columns per zone)."""
        keys = self._cnt_order
        S = self._cnt_size
        if not keys:
            return ["0", "0", "1", "NULL", "NULL", "NULL"], ["#define CNT_S 1LL", "#define CNT_ROW ((const int32_t *)NULL)"]
        n = len(keys)
        rows = sorted(self._cnt_zones)
        row = {z: r for r, z in enumerate(rows)}
        rowt = self.const_array("int32_t", [str(row.get(z, -1)) for z in range(self.rs.nzones)])
        cols = self.const_array("int32_t", [str(k.off + k.cls[c]) for c in range(self.rs.ncards) for k in keys])
        body = [f"    const int32_t *k = {cols} + (int64_t)c * {n};"]
        body += [f"    int32_t k{j} = k[{j}];" for j in range(n)]
        body += ["    if (rs >= 0) {", f"        int32_t *a = g->cnt + rs * {S}LL;"]
        body += [f"        a[k{j}]--;" for j in range(n)]
        body += ["    }", "    if (rd >= 0) {", f"        int32_t *b = g->cnt + rd * {S}LL;"]
        body += [f"        b[k{j}]++;" for j in range(n)]
        body += ["    }"]
        self.function("static void gen_cnt_move(G *g, int32_t c, int64_t rs, int64_t rd)", body)
        return ([str(n), f"{S * len(rows)}LL", f"{S}LL", cols, rowt, "gen_cnt_move"],
                [f"#define CNT_S {S}LL", f"#define CNT_ROW {rowt}"])

    def has_attr_table(self, name):
        got = self._has.get(name)
        if got is None:
            got = f"HA{len(self._has) + 1}"
            vals = [int(name in face) for face in self.rs.faces]
            self.decls.append(f"static const uint8_t {got}[{max(1, len(vals))}] = {{{', '.join(map(str, vals)) or '0'}}};")
            self._has[name] = got
        return got

    def table_fn(self, tname, table):
        got = self._tables.get(tname)
        if got is not None:
            return got
        ident = f"tbl{len(self._tables) + 1}"
        keys = list(table)
        lines = [f"static V {ident}(G *g, V k) {{"]
        ints = keys and all(isinstance(k, int) and not isinstance(k, bool) for k in keys)
        dense = ints and max(keys) - min(keys) < 4 * len(keys) + 16
        if dense:
            lo, hi = min(keys), max(keys)
            vals = []
            present = []
            for x in range(lo, hi + 1):
                if x in table:
                    vals.append(self.pool.v(table[x]))
                    present.append("1")
                else:
                    vals.append("{0, T_NONE, 0}")
                    present.append("0")
            arr = f"{ident}_v"
            has = f"{ident}_h"
            self.decls.append(f"static const V {arr}[{len(vals)}] = {{{', '.join(vals)}}};")
            self.decls.append(f"static const uint8_t {has}[{len(vals)}] = {{{', '.join(present)}}};")
            self.funcs.append(
                f"static V {ident}_i(G *g, int64_t k) {{\n"
                f"    if (k < {lo}LL || k > {hi}LL || !{has}[k - {lo}LL]) FAULT(F_KEY);\n"
                f"    return {arr}[k - {lo}LL];\n}}")
            lines += ["    if (!isnum(k)) FAULT(F_KEY);",
                      f"    return {ident}_i(g, k.i);", "}"]
            got = (ident, "dense")
        else:
            ks = [self.pool.v(k) for k in keys]
            vs = [self.pool.v(table[k]) for k in keys]
            self.decls.append(f"static const V {ident}_k[{max(1, len(ks))}] = {{{', '.join(ks) or '{0, T_NONE, 0}'}}};")
            self.decls.append(f"static const V {ident}_v[{max(1, len(vs))}] = {{{', '.join(vs) or '{0, T_NONE, 0}'}}};")
            lines += [f"    for (int i = 0; i < {len(ks)}; i++) if (py_eq({ident}_k[i], k)) return {ident}_v[i];",
                      "    FAULT(F_KEY);", "}"]
            got = (ident, "scan")
        self.funcs.append("\n".join(lines))
        self._tables[tname] = got
        return got

    def mark_index(self, name):
        return self.rs.mark_index[name]

    # -- function building --------------------------------------------------------------------
    def gen(self):
        return RuleGen(self)

    def spec_function(self, name):
        """The C function of the spec's function `name` (docs/native.md, "Functions and combinatorics
        in C"): `static V fnN(G *g, int32_t d, V a0, ...)`, made on its first call in a RuleGen of its
        own (named before its body is made: a recursive call finds it; the prototypes come first)."""
        fns = self.__dict__.setdefault("_spec_fns", {})
        got = fns.get(name)
        if got is not None:
            return got
        self.uid += 1
        fname = fns[name] = f"fn{self.uid}"
        decl = self.rs.spec.functions[name]
        rg = self.gen()
        rg.in_fn = True
        sc, params = {}, []
        for prm in decl.params:
            c = rg.fresh("l")           # an `l` local: assignable like a let
            params.append(f"V {c}")
            sc[prm] = E(c, "V")
        rg.emit(f"if (d > {MAX_CALL_DEPTH}) FAULT(F_CALL_DEPTH);")    # runtime.enter_call
        rg.emit(f"charge(g, {function_weight(decl)});")
        rg.emit("Mark fm = amark(g);")    # what the call allocates goes when its value is no list
        rg.fn_mark = "fm"
        rg.block(decl.rule.ast, sc)
        rg.emit("arelease(g, fm);")
        rg.emit("return vnone();")
        self.function(f"static V {fname}({', '.join(['G *g', 'int32_t d'] + params)})", rg.lines)
        return fname

    def function(self, head, body_lines):
        self.protos.append(head + ";")
        self.funcs.append(head + " {\n" + "\n".join(body_lines) + "\n}")
        self.fn_bytes += len(self.funcs[-1])
        if self.fn_bytes > 4 * MAX_SOURCE_BYTES:      # (the size said exactly up to there; then bounded work)
            raise SourceTooLarge(self.fn_bytes, MAX_SOURCE_BYTES, more=True)

    def flow_scope(self, names):
        """A rule's names (source name -> flow key 'VAR#N') as C reads of the flow slots."""
        sc = {}
        for src, key in (names or {}).items():
            if not isinstance(key, str) or "#" not in key:
                raise NativeUnsupported("a flow name of an unknown form")
            uid = key.split("#")[1]
            slot = self.for_slot.get(uid)
            if slot is None:
                raise NativeUnsupported("a flow name without its loop")
            sc[src] = E(f"rt_ff_var(g, {slot})", "V")
        return sc

    # -- effects ------------------------------------------------------------------------------
    def effect_fn(self, rule, names=None):
        """An effect rule → C function name `int f(G *g)` (0, or END_*)."""
        if rule is None:
            return None
        self.uid += 1
        fname = f"eff{self.uid}"
        rg = self.gen()
        sc = self.flow_scope(names)
        release = not _escapes(rule.ast) and allocates(rule.ast)
        if release:
            rg.emit("Mark m0 = amark(g);")
        rg.block(rule.ast, sc)
        if release:
            rg.emit("arelease(g, m0);")
        rg.emit("return 0;")
        self.function(f"static int {fname}(G *g)", rg.lines)
        return fname

    def expr_into(self, rg, rule, sc, kind="V"):
        """Emit `rule`'s expression into rg; returns C of the wanted kind: 'V', 'test' or 'num'."""
        e = rg.ex(rule.ast, sc)
        if kind == "test":
            return rg.truth(e)
        if kind == "num":
            return rg.num(e)
        return rg.V(e)

    def test_fn(self, rule, names=None):
        """A condition → `int f(G *g)`, its temporaries released."""
        self.uid += 1
        fname = f"cond{self.uid}"
        rg = self.gen()
        mark = allocates(rule.ast)
        if mark:
            rg.emit("Mark m0 = amark(g);")
        c = self.expr_into(rg, rule, self.flow_scope(names), "test")
        rg.emit(f"int r = {c};")
        if mark:
            rg.emit("arelease(g, m0);")
        rg.emit("return r;")
        self.function(f"static int {fname}(G *g)", rg.lines)
        return fname

    def value_fn(self, rule, names=None, params="G *g", scope=None):
        self.uid += 1
        fname = f"val{self.uid}"
        rg = self.gen()
        sc = scope if scope is not None else self.flow_scope(names)
        v = self.expr_into(rg, rule, sc, "V")
        rg.emit(f"return {v};")
        self.function(f"static V {fname}({params})", rg.lines)
        return fname

    # -- after a block of effects -------------------------------------------------------------
    def after_fn(self, scope):
        """`int32_t after(G *g, int32_t nxt)`: triggers to a fixed point, the game's and the turn's
        end conditions (flow.make_after); an end_*() inside a trigger: -10 - END_*."""
        key = (scope.phase.idx if scope.phase is not None else -1, bool(scope.turn))
        got = self._afters.get(key)
        if got is not None:
            return got
        rs = self.rs
        fname = f"after_{key[0] + 1}_{int(key[1])}"
        self._afters[key] = fname
        lines = []
        if rs.triggers:
            conds = [self.test_fn(c) for _, c, _ in rs.spec.triggers]     # the rules rs.triggers compiled
            effs = [self.effect_fn(e) for _, _, e in rs.spec.triggers]
            lines += ["    int fired = 1;", "    while (fired) {", "        fired = 0;"]
            for c, e in zip(conds, effs):
                lines += [f"        if ({c}(g)) {{",
                          "            charge(g, 1);",
                          f"            int code = {e}(g);",
                          "            if (code) return -10 - code;",
                          "            fired = 1;", "        }"]
            lines.append("    }")
        if rs.game_end_if is not None:
            c = self.test_fn(rs.spec.end_if)
            lines.append(f"    if ({c}(g)) return {rs.GAME_END};")
        if scope.turn and scope.phase.turn_end_if is not None:
            c = self.test_fn(scope.phase.decl.turn.end_if)
            lines.append(f"    if ({c}(g)) return {scope.phase.labels['turnend']};")
        lines.append("    return nxt;")
        self.function(f"static int32_t {fname}(G *g, int32_t nxt)", lines)
        # what end_*() inside a block at this scope leads to
        end_label = scope.phase.labels["end"] if scope.phase is not None else None
        turnend = scope.phase.labels["turnend"] if scope.turn else None
        self.function(f"static int32_t {fname}_end(G *g, int code)", [
            f"    if (code == {END_GAME}) return {rs.GAME_END};",
            f"    if (code == {END_PHASE}) {{ {'return %d;' % end_label if end_label is not None else 'FAULT(F_FLOW);'} }}",
            f"    {'return %d;' % turnend if turnend is not None else 'FAULT(F_FLOW);'}"])
        return fname

    def block(self, rg, eff_call, scope, nxt):
        """Emit block(s, fn, env, nxt) into rg: the effects (a C call returning 0/END_*, or None),
        then the checks; leaves the next pc in a fresh variable, returned."""
        after = self.after_fn(scope)
        r = rg.fresh("r")
        rg.emit(f"int32_t {r};")
        if eff_call is not None:
            code = rg.fresh("c")
            rg.emit(f"int {code} = {eff_call};")
            rg.emit(f"if ({code}) {r} = {after}_end(g, {code});")
            rg.emit(f"else {{ {r} = {after}(g, {nxt}); if ({r} <= -10) {r} = {after}_end(g, -10 - {r}); }}")
        else:
            rg.emit(f"{r} = {after}(g, {nxt}); if ({r} <= -10) {r} = {after}_end(g, -10 - {r});")
        return r

    # -- actions ------------------------------------------------------------------------------
    def action(self, rt):
        """(index, effect function `int f(G *g, const V *pr)`, enumeration function)."""
        got = self._acts.get(rt.name)
        if got is not None:
            return got
        decl = self.rs.spec.actions[rt.name]
        idx = self.action_index[rt.name]
        eff = self._action_effect(decl, idx)
        enum = self._action_enum(decl, idx)
        got = (idx, eff, enum)
        self._acts[rt.name] = got
        return got

    def param_scope(self, decl, pr="pr"):
        """The action's parameters as C reads of an entry's (arg, bind) pairs."""
        sc = {}
        for j, p in enumerate(decl.params):
            b = f"{pr}[{2 * j + 1}]"
            if p.kind == "card":
                sc[p.name] = E(f"{b}.i", "c")
            elif p.kind in ("player",):
                sc[p.name] = E(f"{b}.i", "i", seat=True)
            elif p.kind == "number":
                sc[p.name] = E(f"{b}.i", "i")
            elif p.kind == "zone":
                keys = self.rs.zone_keys[self.rs.spec.zones[p.family].name]
                if all(isinstance(k, int) and not isinstance(k, bool) for k in keys):
                    sc[p.name] = E(f"{b}.i", "i", seat=self.rs.spec.zones[p.family].per_player)
                elif all(isinstance(k, str) for k in keys):
                    sc[p.name] = E(f"{b}.i", "s")
                else:
                    sc[p.name] = E(b, "V")
            elif p.kind == "choice" and p.choices is not None and p.choices:
                kinds = {_kind(x) for x in p.choices}
                if kinds == {"s"}:
                    sc[p.name] = E(f"{b}.i", "s")
                elif kinds == {"i"}:
                    sc[p.name] = E(f"{b}.i", "i")
                else:
                    sc[p.name] = E(b, "V")
            else:
                sc[p.name] = E(b, "V")
        return sc

    def _action_effect(self, decl, idx):
        fname = f"act{idx}"
        rg = self.gen()
        sc = self.param_scope(decl)
        for j, p in enumerate(decl.params):
            if p.kind == "subset":      # its lists live with the listing: into this arena first
                name = rg.fresh("b")
                rg.emit(f"V {name} = rt_copy_root(g, pr[{2 * j + 1}]);")
                sc[p.name] = E(name, "V")
        rs = self.rs
        for var, r in decl.cost:
            base = rs.var_base[var]
            amount = rg.hold(rg.ex(r.ast, sc))
            slot = f"g->v[{base} + g->actor]"
            cur = rg.tmp("V", slot)
            am = rg.V(amount)
            am = rg.tmp("V", am)
            rg.emit(f"if (!isnum({cur}) || !isnum({am})) BAIL(B_TYPE);")
            rg.emit(f"{slot} = vint(sub_i(g, {cur}.i, {am}.i));")
        if decl.effect is not None:
            release = not _escapes(decl.effect.ast) and allocates(decl.effect.ast)
            if release:
                rg.emit("Mark m0 = amark(g);")
            rg.block(decl.effect.ast, sc)
            if release:
                rg.emit("arelease(g, m0);")
        rg.emit("return 0;")
        self.function(f"static int {fname}(G *g, const V *pr)", rg.lines)
        return fname

    def _action_enum(self, decl, idx):
        """`void f(G *g, Listing *out)`: the action's entries appended (ActionRT.enumerate)."""
        fname = f"enum{idx}"
        rg = self.gen()
        rs = self.rs
        names_in_cond = _names_of(decl.cond.ast, comps=False) if decl.cond is not None else set()
        pnames = {p.name for p in decl.params}
        cond_first = decl.cond is not None and not (names_in_cond & pnames)
        np_ = len(decl.params)
        parts = [decl.cond.ast if decl.cond else None] + [r.ast for _, r in decl.cost] + \
            [x.ast for p in decl.params for x in (p.source, p.lo, p.hi, p.where) if x is not None]
        mark = any(p.kind == "subset" for p in decl.params) or allocates([x for x in parts if x is not None])
        rg.emit("Mark m0 = amark(g);" if mark else "Mark m0 = {NULL, 0}; (void)m0;")
        if cond_first:
            c = rg.test(decl.cond.ast, {})
            rg.emit(f"if (!({c})) {{ {'arelease(g, m0); ' if mark else ''}return; }}")
        rg.emit("LCur lc; lc_open(&lc, out);")
        binds = []      # per parameter: (arg C, bind C) as V expressions
        sc = {}
        state = {"level": 0}

        def finish(inner):
            # _ok: the precondition (if it reads parameters), then the costs
            _emit_ok(rg, rs, decl, inner, cond_first, "continue" if np_ else "goto done")
            if not binds:
                rg.emit(f"(void)lc_entry(g, &lc, {idx}, 0);")
                return
            ent = rg.fresh("ent")
            vals = [x for a, b in binds for x in (a, b)]
            if any("out" in v for v in vals):     # (a subset's lists, copied into the listing's arena first)
                held = [rg.tmp("V", v) for v in vals]
                vals = held
            rg.emit(f"V *{ent} = lc_entry(g, &lc, {idx}, {np_});")
            for j, v in enumerate(vals):
                rg.emit(f"{ent}[{j}] = {v};")

        def level(i, inner):
            if i == np_:
                finish(inner)
                return
            p = decl.params[i]
            inner = dict(inner)
            if p.kind == "card":
                self._card_param(rg, p, inner, binds, state, lambda inn: level(i + 1, inn))
            elif p.kind == "subset":
                self._subset_param(rg, p, inner, binds, lambda inn: level(i + 1, inn))
            else:
                self._value_param(rg, p, inner, binds, lambda inn: level(i + 1, inn))
        level(0, sc)
        if not np_ and decl.cost:
            rg.emit("done: ;")
        rg.emit("lc_close(&lc);")
        if mark:
            rg.emit("arelease(g, m0);")
        self.function(f"static void {fname}(G *g, Listing *out)", rg.lines)
        return fname

    def can_fn(self, name, fixed):
        """can(name, ...) with the parameters at indices `fixed` given: `int canN(G *g, const V *gv)`
        (gv[j] the value of parameter fixed[j]), as ActionRT.can: a step for the question, the
        precondition first if it reads no parameter, then each parameter's values in order (a given
        one: that value if the parameter admits it), a step per value tried, its `where`, and at the
        innermost level the precondition and the costs; true at the first legal choice. Identical-
        looking cards are not merged (can() asks whether some choice is legal). Made once per
        (action, fixed parameters), named before its body is made."""
        fns = self.__dict__.setdefault("_can_fns", {})
        key = (name, tuple(fixed))
        got = fns.get(key)
        if got is not None:
            return got
        self.uid += 1
        fname = fns[key] = f"can{self.uid}"
        decl = self.rs.spec.actions[name]
        rs = self.rs
        rg = self.gen()
        names_in_cond = _names_of(decl.cond.ast, comps=False) if decl.cond is not None else set()
        cond_first = decl.cond is not None and not (names_in_cond & {p.name for p in decl.params})
        np_ = len(decl.params)
        rg.emit("Mark m0 = amark(g);")
        rg.emit("int ok = 0;")
        rg.emit("(void)gv;")
        rg.emit("charge(g, 1);")
        rg.emit("do {")
        rg.ind += 1
        if cond_first:
            c = rg.test(decl.cond.ast, {})
            rg.emit(f"if (!({c})) break;")

        def leaf(inner):
            _emit_ok(rg, rs, decl, inner, cond_first, "continue")
            rg.emit("ok = 1; goto out;")

        def level(i, inner):
            if i == np_:
                leaf(inner)
                return
            p = decl.params[i]
            inner = dict(inner)
            given = f"gv[{fixed.index(i)}]" if i in fixed else None
            self._can_param(rg, p, inner, given)
            if p.where is not None:
                t = rg.test(p.where.ast, inner)
                rg.emit(f"if (!({t})) continue;")
            level(i + 1, inner)
            rg.ind -= 1
            rg.emit("}")
        level(0, {})
        rg.ind -= 1
        rg.emit("} while (0);")
        rg.emit("out:")
        rg.emit("arelease(g, m0);")
        rg.emit("return ok;")
        self.function(f"static int {fname}(G *g, const V *gv)", rg.lines)
        return fname

    def _can_param(self, rg, p, inner, given):
        """One parameter's loop of can(): opens `for (...) {` over the values tried (a given value:
        once if admitted, ActionParam.admits), charges a step per value, binds the name in `inner`."""
        rs = self.rs
        k = rg.fresh("k")
        if p.kind == "subset":
            if given is not None:
                raise NativeUnsupported("can() with a subset parameter given")
            e = rg.ex(p.source.ast, inner)
            if p.source.ast.t == "zone":
                src, from_zone = rg.tmp("V", f"vlist(zlist(g, {rg.zone(e)}))"), 1
            else:
                src, from_zone = rg.tmp("V", rg.V(e)), 0
            lo = rg.tmp("int64_t", rg.num(rg.ex(p.lo.ast, inner)))
            hi = rg.tmp("int64_t", rg.num(rg.ex(p.hi.ast, inner)))
            combos = rg.tmp("List *", f"rt_subsets(g, {src}, {from_zone}, {lo}, {hi})")
            rg.emit(f"for (int32_t {k} = 0; {k} < {combos}->n; {k}++) {{")
            rg.ind += 1
            rg.emit("charge(g, 1);")
            inner[p.name] = E(rg.tmp("V", f"LST({combos}->a[{k}])->a[1]"), "V")
            return
        if p.kind == "card":
            e = rg.ex(p.source.ast, inner)
            if p.source.ast.t == "zone":
                zi = rg.tmp("int64_t", rg.zone(e))
                n = rg.tmp("int32_t", f"g->z[{zi}].n")
                arr = rg.tmp("const int32_t *", f"g->z[{zi}].a")
                if given is None:
                    rg.emit(f"for (int32_t {k} = 0; {k} < {n}; {k}++) {{")
                    rg.ind += 1
                    c = rg.tmp("int64_t", f"{arr}[{k}]")
                else:
                    adm = rg.tmp("int", "0")
                    rg.emit(f"if ({given}.t == T_INT) for (int32_t j_ = 0; j_ < {n}; j_++) "
                            f"if ({arr}[j_] == {given}.i) {{ {adm} = 1; break; }}")
                    rg.emit(f"for (int32_t {k} = 0; {k} < {adm}; {k}++) {{")
                    rg.ind += 1
                    c = rg.tmp("int64_t", f"{given}.i")
            else:
                lst = rg.tmp("List *", f"need_list(g, {rg.V(e)})")
                if given is None:
                    rg.emit(f"for (int32_t {k} = 0; {k} < {lst}->n; {k}++) {{")
                    rg.ind += 1
                    cv = rg.tmp("V", f"{lst}->a[{k}]")
                    rg.emit(f"if ({cv}.t == T_NONE) continue;")
                    c = rg.tmp("int64_t", f"card_of(g, {cv})")
                else:
                    adm = rg.tmp("int", "0")
                    rg.emit(f"if ({given}.t == T_INT) for (int32_t j_ = 0; j_ < {lst}->n; j_++) "
                            f"if (py_eq({lst}->a[j_], {given})) {{ {adm} = 1; break; }}")
                    rg.emit(f"for (int32_t {k} = 0; {k} < {adm}; {k}++) {{")
                    rg.ind += 1
                    c = rg.tmp("int64_t", f"card_of(g, {given})")
            rg.emit("charge(g, 1);")
            inner[p.name] = E(c, "c")
            return
        if given is not None:
            if p.kind == "player":
                adm = f"({given}.t == T_INT && {given}.i >= 0 && {given}.i < {rs.P})"
            elif p.kind == "number":
                adm = rg.tmp("int", "0")
                rg.emit(f"if ({given}.t == T_INT) {{")
                rg.ind += 1
                lo = rg.tmp("int64_t", rg.num(rg.ex(p.lo.ast, inner)))
                rg.emit(f"if ({lo} <= {given}.i) {{")
                rg.ind += 1
                hi = rg.tmp("int64_t", rg.num(rg.ex(p.hi.ast, inner)))
                rg.emit(f"{adm} = {given}.i <= {hi};")
                rg.ind -= 1
                rg.emit("}")
                rg.ind -= 1
                rg.emit("}")
            else:
                if p.kind == "zone":
                    vals = f"&{self.pool.list_name(list(rs.zone_keys[rs.spec.zones[p.family].name]))}"
                elif p.choices is not None:
                    vals = f"&{self.pool.list_name(list(p.choices))}"
                else:
                    e = rg.ex(p.source.ast, inner)
                    vals = rg.tmp("List *", f"need_list(g, {rg.V(e)})" if p.source.ast.t != "zone"
                                  else f"zlist(g, {rg.zone(e)})")
                adm = rg.tmp("int", "0")
                rg.emit(f"for (int32_t j_ = 0; j_ < ({vals})->n; j_++) "
                        f"if (py_eq(({vals})->a[j_], {given})) {{ {adm} = 1; break; }}")
            rg.emit(f"for (int32_t {k} = 0; {k} < {adm}; {k}++) {{")
            rg.ind += 1
            rg.emit("charge(g, 1);")
            inner[p.name] = E(given, "V")
            return
        if p.kind == "zone":
            lst = self.pool.list_name(list(rs.zone_keys[rs.spec.zones[p.family].name]))
            rg.emit(f"for (int32_t {k} = 0; {k} < {lst}.n; {k}++) {{")
            rg.ind += 1
            item = E(f"{lst}.a[{k}]", "V")
        elif p.kind == "player":
            rg.emit(f"for (int64_t {k} = 0; {k} < {rs.P}; {k}++) {{")
            rg.ind += 1
            item = E(k, "i", seat=True)
        elif p.kind == "number":
            lo = rg.tmp("int64_t", rg.num(rg.ex(p.lo.ast, inner)))
            hi = rg.tmp("int64_t", rg.num(rg.ex(p.hi.ast, inner)))
            rg.emit(f"if (span_i({lo}, {hi}) > MAX_CHOICES) FAULT(F_CHOICES);")
            rg.emit(f"for (int64_t {k} = {lo}; {k} <= {hi}; {k}++) {{")
            rg.ind += 1
            item = E(k, "i")
        else:   # choice
            if p.choices is not None:
                lst = "&" + self.pool.list_name(list(dict.fromkeys(p.choices)))
            else:
                e = rg.ex(p.source.ast, inner)
                src = rg.V(e) if p.source.ast.t != "zone" else f"vlist(zlist(g, {rg.zone(e)}))"
                lst = rg.tmp("List *", f"LST(rt_unique(g, {src}))")
            rg.emit(f"for (int32_t {k} = 0; {k} < ({lst})->n; {k}++) {{")
            rg.ind += 1
            item = E(f"({lst})->a[{k}]", "V")
        rg.emit("charge(g, 1);")
        inner[p.name] = item

    def _card_param(self, rg, p, inner, binds, state, rest):
        rs = self.rs
        src = p.source.ast
        hoisted = rg.hoist(p.where.ast if p.where is not None else None, inner, {p.name})
        lvl = state["level"]
        state["level"] += 1
        e = rg.ex(src, inner)
        bit = rg.tmp("uint64_t", "(uint64_t)1 << g->actor")
        gen = rg.tmp("int32_t", f"++g->stamp_gen[{lvl}]")
        stamp = f"(g->stamp + {lvl * max(1, len(rs.faces))})"
        pos = rg.fresh("pos")
        if src.t == "zone":
            zi = rg.tmp("int64_t", rg.zone(e))
            n = rg.tmp("int32_t", f"g->z[{zi}].n")
            arr = rg.tmp("const int32_t *", f"g->z[{zi}].a")
            zv = rg.tmp("uint64_t", f"ZVIS[{zi}]")
            rg.emit(f"charge(g, {n});")
            rg.emit(f"for (int32_t {pos} = 0; {pos} < {n}; {pos}++) {{")
            rg.ind += 1
            c = rg.tmp("int64_t", f"{arr}[{pos}]")
            vis = rg.tmp("uint64_t", f"(g->nface && g->face[{c}]) ? (g->face[{c}] == 1 ? ALLP : 0) : {zv}")
        else:
            lst = rg.tmp("List *", f"need_list(g, {rg.V(e)})")
            rg.emit(f"charge(g, {lst}->n);")
            rg.emit(f"for (int32_t {pos} = 0; {pos} < {lst}->n; {pos}++) {{")
            rg.ind += 1
            cv = rg.tmp("V", f"{lst}->a[{pos}]")
            rg.emit(f"if ({cv}.t == T_NONE) continue;")
            c = rg.tmp("int64_t", f"card_of(g, {cv})")
            vis = rg.tmp("uint64_t", f"(g->nface && g->face[{c}]) ? (g->face[{c}] == 1 ? ALLP : 0) : ZVIS[g->loc[{c}]]")
        rg.emit(f"if (({vis} | g->kn[{c}]) & {bit}) {{")
        rg.emit(f"    int32_t f_ = FACE_OF[{c}];")
        rg.emit(f"    if ({stamp}[f_] == {gen}) continue;")
        rg.emit(f"    {stamp}[f_] = {gen};")
        rg.emit("}")
        inner[p.name] = E(c, "c")
        if p.where is not None:
            t = rg.test(p.where.ast, inner)
            rg.emit(f"if (!({t})) continue;")
        binds.append((f"vint({pos})", f"vint({c})"))
        rest(inner)
        binds.pop()
        rg.ind -= 1
        rg.emit("}")
        rg.unhoist(hoisted)

    def _subset_param(self, rg, p, inner, binds, rest):
        e = rg.ex(p.source.ast, inner)
        if p.source.ast.t == "zone":
            src = rg.tmp("V", f"vlist(zlist(g, {rg.zone(e)}))")
            from_zone = 1
        else:
            src = rg.tmp("V", rg.V(e))
            from_zone = 0
        lo = rg.tmp("int64_t", rg.num(rg.ex(p.lo.ast, inner)))
        hi = rg.tmp("int64_t", rg.num(rg.ex(p.hi.ast, inner)))
        combos = rg.tmp("List *", f"rt_subsets(g, {src}, {from_zone}, {lo}, {hi})")
        k = rg.fresh("k")
        rg.emit(f"for (int32_t {k} = 0; {k} < {combos}->n; {k}++) {{")
        rg.ind += 1
        pair = rg.tmp("List *", f"LST({combos}->a[{k}])")
        a = rg.tmp("V", f"{pair}->a[0]")
        b = rg.tmp("V", f"{pair}->a[1]")
        inner[p.name] = E(b, "V")
        if p.where is not None:
            t = rg.test(p.where.ast, inner)
            rg.emit(f"if (!({t})) continue;")
        binds.append((f"rt_copy_to_listing(g, out, {a})", f"rt_copy_to_listing(g, out, {b})"))
        rest(inner)
        binds.pop()
        rg.ind -= 1
        rg.emit("}")

    def _value_param(self, rg, p, inner, binds, rest):
        rs = self.rs
        hoisted = rg.hoist(p.where.ast if p.where is not None else None, inner, {p.name})
        k = rg.fresh("k")
        if p.kind == "zone":
            z = rs.spec.zones[p.family]
            keys = list(rs.zone_keys[z.name])
            rg.emit(f"charge(g, {len(keys)});")
            kinds = {_kind(x) for x in keys}
            if kinds == {"i"} and abs(keys[0]) < 2 ** 40 and keys == list(range(keys[0], keys[0] + len(keys))):
                # consecutive keys: the index itself, so that C sees their range (no table, no check)
                rg.emit(f"for (int64_t {k} = {keys[0]}LL; {k} < {keys[0] + len(keys)}LL; {k}++) {{")
                rg.ind += 1
                item = E(k, "i", seat=z.per_player)
                val = f"vint({k})"
            elif kinds == {"i"}:
                arr = self.const_array("int64_t", [f"{x}LL" for x in keys])
                rg.emit(f"for (int32_t {k} = 0; {k} < {len(keys)}; {k}++) {{")
                rg.ind += 1
                item = E(f"{arr}[{k}]", "i", seat=z.per_player)
                val = f"vint({arr}[{k}])"
            elif kinds == {"s"}:
                arr = self.const_array("int64_t", [str(self.texts(x)) for x in keys])
                rg.emit(f"for (int32_t {k} = 0; {k} < {len(keys)}; {k}++) {{")
                rg.ind += 1
                item = E(f"{arr}[{k}]", "s")
                val = f"vstr({arr}[{k}])"
            else:
                lst = self.pool.list_name(keys)
                rg.emit(f"for (int32_t {k} = 0; {k} < {len(keys)}; {k}++) {{")
                rg.ind += 1
                item = E(f"{lst}.a[{k}]", "V")
                val = item.c
        elif p.kind == "player":
            rg.emit(f"charge(g, {rs.P});")
            rg.emit(f"for (int64_t {k} = 0; {k} < {rs.P}; {k}++) {{")
            rg.ind += 1
            item = E(k, "i", seat=True)
            val = f"vint({k})"
        elif p.kind == "number":
            lo = rg.tmp("int64_t", rg.num(rg.ex(p.lo.ast, inner)))
            hi = rg.tmp("int64_t", rg.num(rg.ex(p.hi.ast, inner)))
            rg.emit(f"if (span_i({lo}, {hi}) > MAX_CHOICES) FAULT(F_CHOICES);")
            rg.emit(f"if ({hi} >= {lo}) charge(g, {hi} - {lo} + 1);")
            rg.emit(f"for (int64_t {k} = {lo}; {k} <= {hi}; {k}++) {{")
            rg.ind += 1
            item = E(k, "i")
            val = f"vint({k})"
        else:   # choice
            if p.choices is not None:
                values = list(dict.fromkeys(p.choices))      # dict keys: 1 and True are one value
                lst = self.pool.list_name(values)
                rg.emit(f"charge(g, {len(values)});")
                rg.emit(f"for (int32_t {k} = 0; {k} < {len(values)}; {k}++) {{")
                rg.ind += 1
                val = f"{lst}.a[{k}]"
                kinds = {_kind(x) for x in p.choices}
                item = E(f"{val}.i", "s") if kinds == {"s"} else E(f"{val}.i", "i") if kinds == {"i"} else E(val, "V")
            else:
                e = rg.ex(p.source.ast, inner)
                src = rg.V(e) if p.source.ast.t != "zone" else f"vlist(zlist(g, {rg.zone(e)}))"
                u = rg.tmp("List *", f"LST(rt_unique(g, {src}))")
                rg.emit(f"charge(g, {u}->n);")
                rg.emit(f"for (int32_t {k} = 0; {k} < {u}->n; {k}++) {{")
                rg.ind += 1
                item = E(f"{u}->a[{k}]", "V")
                val = item.c
        inner[p.name] = item
        if p.where is not None:
            t = rg.test(p.where.ast, inner)
            rg.emit(f"if (!({t})) continue;")
        binds.append((val, val))
        rest(inner)
        binds.pop()
        rg.ind -= 1
        rg.emit("}")
        rg.unhoist(hoisted)

    # -- decision points ----------------------------------------------------------------------
    def choose_listing(self, ch):
        """`void list_N(G *g, Listing *out)`: the actions' entries, else the fallback's, then the skip
        (only beside something else: an empty listing is what the flow skips)."""
        fname = f"list{ch.idx}"
        if fname in self._listings:
            return fname
        self._listings.add(fname)
        lines = ["    lst_reset(out);"]
        for rt in ch.actions:
            lines.append(f"    {self.action(rt)[2]}(g, out);")
        if ch.fallback:
            lines.append("    if (out->n == 0) {")
            for rt in ch.fallback:
                lines.append(f"        {self.action(rt)[2]}(g, out);")
            lines.append("    }")
        if ch.step.optional is not None:
            lines.append("    if (out->n > 0) lst_entry(g, out, -1, 0);")
        self.function(f"static void {fname}(G *g, Listing *out)", lines)
        return fname


def note_places(rg, rt, pairs):
    """Before the effect of an action that may keep a place secret (ActionRT.hides_place): note its chosen
    cards' piles and the chooser (State._watching); (places, chooser) for forget_places, or None."""
    if not rt.hides_place:
        return None
    kinds = ", ".join("1" if q.kind == "card" else "2" if q.kind == "subset" else "0" for q in rt.params)
    ps, who = rg.fresh("ps"), rg.fresh("who")
    rg.emit(f"int64_t {who} = g->actor;")
    rg.emit(f"Places *{ps} = rt_places_note(g, {pairs}, {len(rt.params)}, (const uint8_t[]){{{kinds}}});")
    return ps, who


def forget_places(rg, noted):
    """After the effect and its checks (State._record): State.forget_places."""
    if noted is not None:
        rg.emit(f"rt_places_forget(g, {noted[0]}, {noted[1]});")


# ==============================================================================================
# the flow program, the decisions, the scoring and the layout
# ==============================================================================================
class Flow:
    def __init__(self, prog):
        self.p = prog
        self.rs = prog.rs
        self.code = self.rs.flow_code
        self.labels = self.rs.flow_labels
        self.goto = self.rs.flow_goto
        self.ins = {}       # pc -> C function name

    def L(self, name):
        return self.goto(self.labels[name])

    def build(self):
        for pc, (kind, a) in enumerate(self.code):
            self.cur = a
            self.ins[pc] = self.instruction(pc, kind, a)

    def rule_of(self, fn):
        """The Rule the instruction being generated compiled into `fn`: read from the flow program
        (flow.Ins.rules; a decision point's guard and player from ChooseRT.rules), never from the
        compiled function."""
        if fn is None:
            return None
        ch = getattr(self.cur, "ch", None)
        if ch is not None:
            for k, r in ch.rules.items():
                if getattr(ch, k) is fn:
                    return r
        try:
            return self.cur.rule_of(fn)
        except LookupError:
            raise NativeUnsupported("a flow instruction without its rule") from None

    def instruction(self, pc, kind, a):
        p = self.p
        rs = self.rs
        rg = p.gen()
        name = f"ins{pc}"
        P = rs.P
        if kind == "hook":
            nxt = self.L(a["next"])
            ph = a["set_phase"]
            if ph is not None:
                rg.emit(f"g->phase = {ph.idx};")
            eff = p.effect_fn(self.rule_of(a["fn"])) if a["fn"] is not None else None
            r = p.block(rg, f"{eff}(g)" if eff else None, a["scope"], nxt)
            first = a.get("first")
            if first is not None:
                v = p.value_fn(self.rule_of(first))
                rg.emit(f"if ({r} == {nxt}) {{")
                rg.emit(f"    V p_ = {v}(g);")
                rg.emit(f"    if (p_.t != T_INT || p_.i < 0 || p_.i >= {P}) FAULT(F_PLAYER);")
                rg.emit("    g->cur = (int32_t)p_.i;")
                rg.emit("}")
            rg.emit(f"return {r};")
        elif kind == "phase_check":
            target, nxt = self.L(a["target"]), self.L(a["next"])
            if a["end_if"] is None:
                rg.emit(f"return {nxt};")
            else:
                c = p.test_fn(self.rule_of(a["end_if"]))
                rg.emit(f"return {c}(g) ? {target} : {nxt};")
        elif kind == "turn_begin":
            nxt = self.L(a["next"])
            rg.emit("g->actor = g->cur;")
            rg.emit("g->turns += 1;")
            eff = p.effect_fn(self.rule_of(a["fn"])) if a["fn"] is not None else None
            r = p.block(rg, f"{eff}(g)" if eff else None, a["scope"], nxt)
            rg.emit(f"return {r};")
        elif kind == "turn_end":
            again, phase_end = self.L(a["again"]), self.L(a["phase_end"])
            rg.emit("rt_ff_clear_all(g);")
            if a["fn"] is not None:
                eff = p.effect_fn(self.rule_of(a["fn"]))
                r = p.block(rg, f"{eff}(g)", a["scope"], again)
                rg.emit(f"if ({r} != {again}) return {r};")
            if a["end_if"] is not None:
                c = p.test_fn(self.rule_of(a["end_if"]))
                rg.emit(f"if ({c}(g)) return {phase_end};")
            if a["nxt"] is None:
                rg.emit(f"g->cur = (g->cur + 1) % {P};")
            else:
                v = p.value_fn(self.rule_of(a["nxt"]))
                rg.emit(f"V p_ = {v}(g);")
                rg.emit(f"if (p_.t != T_INT || p_.i < 0 || p_.i >= {P}) FAULT(F_PLAYER);")
                rg.emit("g->cur = (int32_t)p_.i;")
            rg.emit(f"return {again};")
        elif kind == "phase_end":
            rg.emit("rt_ff_clear_all(g);")
            eff = p.effect_fn(self.rule_of(a["fn"])) if a["fn"] is not None else None
            r = p.block(rg, f"{eff}(g)" if eff else None, a["scope"], NO_PC)
            rg.emit(f"if ({r} != {NO_PC}) return {r};")
            for cond, target in a["nexts"]:
                t = self.goto(self.labels[target])
                if cond is None:
                    rg.emit(f"return {t};")
                    break
                c = p.test_fn(self.rule_of(cond))
                rg.emit(f"if ({c}(g)) return {t};")
            else:
                rg.emit("FAULT(F_FLOW);")
        elif kind == "game_end":
            if a["fn"] is not None:
                eff = p.effect_fn(self.rule_of(a["fn"]))
                rg.emit(f"(void){eff}(g);")
            rg.emit("gen_finish(g);")
            rg.emit(f"return {TERMINAL};")
        elif kind == "do":
            nxt = self.goto(pc + 1)
            eff = p.effect_fn(self.rule_of(a["fn"]), a["names"]) if a["fn"] is not None else None
            r = p.block(rg, f"{eff}(g)" if eff else None, a["scope"], nxt)
            rg.emit(f"return {r};")
        elif kind == "jump":
            rg.emit(f"return {self.L(a['target'])};")
        elif kind == "jump_unless":
            nxt, target = self.goto(pc + 1), self.L(a["target"])
            c = p.test_fn(self.rule_of(a["cond"]), a["names"])
            rg.emit(f"return {c}(g) ? {nxt} : {target};")
        elif kind == "for_init":
            nxt = self.goto(pc + 1)
            slot = p.for_slot[a["lkey"].split("list")[1]]
            rule = self.rule_of(a["it"])
            sc = p.flow_scope(a["names"])
            e = rg.ex(rule.ast, sc)
            if rule.ast.t == "zone":
                items = f"vlist(zlist(g, {rg.zone(e)}))"
            else:
                items = rg.tmp("V", rg.V(e))
                rg.emit(f"if ({items}.t != T_LIST) BAIL(B_TYPE);")
            rg.emit(f"rt_ff_init(g, {slot}, {items});")
            rg.emit(f"return {nxt};")
        elif kind == "for_next":
            nxt, end = self.goto(pc + 1), self.L(a["end"])
            slot = p.for_slot[a["lkey"].split("list")[1]]
            rg.emit(f"Flow *f_ = &g->ff[{slot}];")
            rg.emit("if (!f_->active || f_->items.t != T_LIST) BAIL(B_STATE);")
            rg.emit(f"if (f_->idx >= LST(f_->items)->n) return {end};")
            rg.emit("f_->var = LST(f_->items)->a[f_->idx];")
            rg.emit("f_->has_var = 1;")
            rg.emit("f_->idx += 1;")
            rg.emit(f"return {nxt};")
        elif kind == "for_done":
            nxt = self.goto(pc + 1)
            slot = p.for_slot[a["lkey"].split("list")[1]]
            rg.emit(f"g->ff[{slot}].active = 0; g->ff[{slot}].has_var = 0; g->ff[{slot}].idx = 0;")
            rg.emit(f"g->ff[{slot}].items = vnone(); g->ff[{slot}].var = vnone();")
            rg.emit(f"return {nxt};")
        elif kind == "choosers":
            nxt = self.goto(pc + 1)
            slot = p.for_slot[a["lkey"].split("list")[1]]
            rg.emit(f"List *l_ = LST(g->ff[{slot}].items);")
            rg.emit("uint64_t seen_ = 0;")
            rg.emit("for (int32_t k = 0; k < l_->n; k++) {")
            rg.emit(f"    if (l_->a[k].t != T_INT || l_->a[k].i < 0 || l_->a[k].i >= {P}) FAULT(F_PLAYER);")
            rg.emit("    if (seen_ & ((uint64_t)1 << l_->a[k].i)) FAULT(F_SIMULTANEOUS);")
            rg.emit("    seen_ |= (uint64_t)1 << l_->a[k].i;")
            rg.emit("}")
            rg.emit(f"return {nxt};")
        elif kind == "reveal":
            self.reveal(rg, pc, a)
        elif kind.startswith("window_"):
            self.window(rg, pc, kind, a)
        elif kind == "choose":
            self.choose(rg, pc, a["ch"])
        else:
            raise NativeUnsupported(f"flow instruction {kind}")
        p.function(f"static int32_t {name}(G *g)", rg.lines)
        return name

    def choose(self, rg, pc, ch):
        p = self.p
        rs = self.rs
        listing = p.choose_listing(ch)
        nxt = ch.next
        skippable = ch.step.optional is not None or ch.step.if_none == "skip"
        if ch.guard is not None:
            c = p.test_fn(self.rule_of(ch.guard), ch.names)
            rg.emit(f"if (!{c}(g)) return {nxt};")
        if ch.player is not None:
            v = p.value_fn(self.rule_of(ch.player), ch.names)
            rg.emit(f"V p_ = {v}(g);")
            rg.emit(f"if (p_.t != T_INT || p_.i < 0 || p_.i >= {rs.P}) FAULT(F_PLAYER);")
            rg.emit("g->actor = (int32_t)p_.i;")
        else:
            rg.emit("g->actor = g->cur;")
        rg.emit(f"g->pc = {pc};")
        rg.emit(f"g->pending = {ch.idx};")
        rg.emit(f"{listing}(g, &g->lst);")
        rg.emit("if (g->lst.n == 0) {")
        if ch.window is not None:   # flow.make_window_enter: asked even when the pass is all they have
            if ch.step.if_none == "skip":
                rg.emit("    g->pending = -1;")
                rg.emit(f"    return {nxt};")
            else:
                rg.emit("    lst_entry(g, &g->lst, -1, 0);")
        else:
            rg.emit("    g->pending = -1;")
            rg.emit(f"    {'return %d;' % nxt if skippable else 'FAULT(F_NO_LEGAL);'}")
        rg.emit("}")
        rg.emit("g->has_listing = 1;")
        rg.emit(f"return {SUSPEND};")

    def reveal(self, rg, pc, a):
        """Reveal and resolve a simultaneous step's stored choices (flow.make_reveal)."""
        ch = a["ch"]
        nxt = self.goto(pc + 1)
        order = a["order"]
        key_fn = self.order_fn(ch, order) if order is not None else None
        self.stored(rg, ch, nxt)
        rg.emit("int32_t *order = (int32_t *)aalloc(g, (size_t)ns * sizeof(int32_t));")
        rg.emit("int64_t *keys = (int64_t *)aalloc(g, (size_t)ns * sizeof(int64_t));")
        rg.emit("for (int32_t e = 0; e < ns; e++) {")
        rg.emit("    order[e] = e;")
        if key_fn is not None:
            rg.emit(f"    keys[e] = evs[e].act < 0 ? 0 : {key_fn}(g, evs[e].act, pairs[e]);")
        else:
            rg.emit("    keys[e] = 0;")
        rg.emit("}")
        self.sort_stored(rg)
        rg.emit("for (int32_t i = 0; i < ns; i++) {")
        rg.emit("    int32_t e = order[i];")
        rg.emit("    g->actor = evs[e].player;")
        rg.emit("    if (evs[e].act < 0) continue;")
        self.resolve(rg, ch, nxt)
        rg.emit(f"    if (r != {nxt}) return r;")
        rg.emit("}")
        rg.emit(f"return {nxt};")

    def stored(self, rg, ch, nxt):
        """flow._stored: the stored choices (`ns`, `evs`), each found again among its player's listing in
        the state they chose in (`pairs[e]`, NULL for a pass); none: on to nxt."""
        p = self.p
        listing = p.choose_listing(ch)
        rg.emit("int32_t ns = g->nstored;")
        rg.emit(f"if (ns == 0) return {nxt};")
        rg.emit("Stored *evs = (Stored *)aalloc(g, (size_t)ns * sizeof(Stored));")
        rg.emit("memcpy(evs, g->stored, (size_t)ns * sizeof(Stored));")
        rg.emit("V **pairs = (V **)aalloc(g, (size_t)ns * sizeof(V *));")
        rg.emit("for (int32_t e = 0; e < ns; e++) {")
        rg.emit("    pairs[e] = NULL;")
        rg.emit("    if (evs[e].act < 0) continue;")
        rg.emit("    g->actor = evs[e].player;")
        rg.emit(f"    g->pending = {ch.idx};")
        rg.emit(f"    {listing}(g, &g->lst2);")
        rg.emit("    int32_t found = -1;")
        rg.emit("    List *want = LST(evs[e].args);")
        rg.emit("    for (int32_t k = 0; k < g->lst2.n && found < 0; k++) {")
        rg.emit("        if (g->lst2.act[k] != evs[e].act) continue;")
        rg.emit("        V *pv = lst_pairs(&g->lst2, k);")
        rg.emit("        int same = 1;")
        rg.emit("        for (int32_t j = 0; j < want->n; j++) if (!py_eq(pv[2 * j], want->a[j])) { same = 0; break; }")
        rg.emit("        if (same) found = k;")
        rg.emit("    }")
        rg.emit("    g->pending = -1;")
        rg.emit("    if (found < 0) FAULT(F_SIMULTANEOUS);")
        rg.emit("    int32_t np = ACT_NP[evs[e].act];")
        rg.emit("    pairs[e] = (V *)aalloc(g, (size_t)(2 * np + 1) * sizeof(V));")
        rg.emit("    V *src = lst_pairs(&g->lst2, found);")
        rg.emit("    for (int32_t j = 0; j < 2 * np; j++) pairs[e][j] = rt_copy_root(g, src[j]);")
        rg.emit("}")
        rg.emit("g->nstored = 0;")

    @staticmethod
    def sort_stored(rg):
        """`order`: the stored choices stably sorted by (a pass last, `keys`)."""
        rg.emit("for (int32_t i = 1; i < ns; i++) {")
        rg.emit("    int32_t x = order[i]; int32_t j = i;")
        rg.emit("    while (j > 0) {")
        rg.emit("        int32_t y = order[j - 1];")
        rg.emit("        int cx = evs[x].act < 0, cy = evs[y].act < 0;")
        rg.emit("        if (cx < cy || (cx == cy && keys[x] < keys[y])) { order[j] = y; j--; } else break;")
        rg.emit("    }")
        rg.emit("    order[j] = x;")
        rg.emit("}")

    def resolve(self, rg, ch, nxt):
        """State._resolve of stored choice e (not a pass; g->actor its player): its effect as a block
        with its checks, `r` the next pc."""
        p = self.p
        rg.emit("    int32_t r;")
        rg.emit("    switch (evs[e].act) {")
        for rt in ch.actions + ch.fallback:
            idx, eff, _ = p.action(rt)
            rg.emit(f"    case {idx}: {{")
            rg.ind += 2
            hp = note_places(rg, rt, "pairs[e]")
            r = p.block(rg, f"{eff}(g, pairs[e])", ch.scope, nxt)
            forget_places(rg, hp)
            rg.emit(f"r = {r};")
            rg.ind -= 2
            rg.emit("        break; }")
        rg.emit("    default: BAIL(B_STATE);")
        rg.emit("    }")

    # -- reaction windows (flow.make_window; docs/native.md, "Reaction windows") ----------------
    def window(self, rg, pc, kind, a):
        p = self.p
        nxt = self.goto(pc + 1)
        slot = p.for_slot
        if kind == "window_open":
            rg.emit(f"rt_win_open(g, {slot[a['lkey'].split('list')[1]]}, {slot[a['took'][1:]]});")
            rg.emit(f"return {nxt};")
        elif kind == "window_check":        # in turn, until the first response: it closes the window
            rg.emit(f"return rt_win_took(g, {slot[a['took'][1:]]}) ? {self.L(a['end'])} : {nxt};")
        elif kind == "window_reveal":
            self.window_reveal(rg, a, nxt)
        elif kind == "window_close":
            rg.emit(f"rt_win_close(g, {slot[a['took'][1:]]}, {slot[a['out'][1:]]}, {int(a['until'] == 'all')});")
            rg.emit(f"return {nxt};")
        elif kind == "window_branch":
            rg.emit(f"return rt_win_some(g, {slot[a['out'][1:]]}, {int(a['until'] == 'all')}) ? {nxt} : "
                    f"{self.L(a['target'])};")
        elif kind == "window_done":
            rg.emit(f"rt_win_done(g, {slot[a['out'][1:]]});")
            rg.emit(f"return {nxt};")
        else:
            raise NativeUnsupported(f"flow instruction {kind}")

    def window_reveal(self, rg, a, nxt):
        """flow.make_window_reveal: a window asked at once. `until: all`: every response carried out in
        the order of the players (the passes after, as passes), each noted; `until: first`: every choice
        but the first response revealed without effect, then that one noted and carried out. With
        `priority`, "first" and the order are by the action's rank (a response not listed after the
        listed ones), ties in the order of the players (a stable sort; the first of the lowest rank)."""
        ch = a["ch"]
        took = self.p.for_slot[a["took"][1:]]
        prio = list(a["priority"] or ())
        rank = str(len(prio))   # the rank of stored choice e's action (evs[e].act): flow's rank.get(name, last)
        for i in reversed(range(len(prio))):
            idx = self.p.action_index.get(prio[i])
            if idx is not None:
                rank = f"(evs[e].act == {idx} ? {i} : {rank})"
        self.stored(rg, ch, nxt)
        if a["until"] == "all":
            rg.emit("int32_t *order = (int32_t *)aalloc(g, (size_t)ns * sizeof(int32_t));")
            rg.emit("int64_t *keys = (int64_t *)aalloc(g, (size_t)ns * sizeof(int64_t));")
            rg.emit(f"for (int32_t e = 0; e < ns; e++) {{ order[e] = e; keys[e] = {rank}; }}")
            self.sort_stored(rg)
            rg.emit("for (int32_t i = 0; i < ns; i++) {")
            rg.emit("    int32_t e = order[i];")
            rg.emit("    g->actor = evs[e].player;")
            rg.emit("    if (evs[e].act < 0) continue;")
            rg.emit(f"    rt_win_note(g, {took}, evs[e].player);")
            self.resolve(rg, ch, nxt)
            rg.emit(f"    if (r != {nxt}) return r;")
            rg.emit("}")
            rg.emit(f"return {nxt};")
            return
        rg.emit("int32_t first = -1;")
        if prio:        # the first response of the lowest rank
            rg.emit("int64_t best = 0;")
            rg.emit("for (int32_t e = 0; e < ns; e++) if (evs[e].act >= 0) {")
            rg.emit(f"    int64_t k_ = {rank};")
            rg.emit("    if (first < 0 || k_ < best) { first = e; best = k_; }")
            rg.emit("}")
        else:
            rg.emit("for (int32_t e = 0; e < ns && first < 0; e++) if (evs[e].act >= 0) first = e;")
        rg.emit("for (int32_t e = 0; e < ns; e++) if (e != first) g->actor = evs[e].player;   /* revealed only */")
        rg.emit(f"if (first < 0) return {nxt};")
        rg.emit("{")
        rg.emit("    int32_t e = first;")
        rg.emit("    g->actor = evs[e].player;")
        rg.emit(f"    rt_win_note(g, {took}, evs[e].player);")
        self.resolve(rg, ch, nxt)
        rg.emit("    return r;")
        rg.emit("}")

    def order_fn(self, ch, order):
        """The resolution key of one stored choice (labels.compile_value): an int, else a fault."""
        p = self.p
        fname = f"order{ch.idx}"
        rg = p.gen()
        rg.emit("switch (act) {")
        for rt in ch.actions + ch.fallback:
            idx = p.action_index[rt.name]
            decl = self.rs.spec.actions[rt.name]
            sc = {}
            for j, prm in enumerate(decl.params):
                b = f"pr[{2 * j + 1}]"
                a = f"pr[{2 * j}]"
                if prm.kind == "card":
                    sc[prm.name] = E(f"{b}.i", "F")
                elif prm.kind == "subset":
                    sc[prm.name] = E(b, "FL")
                else:
                    sc[prm.name] = E(a, "V")
            rg.emit(f"case {idx}: {{")
            rg.ind += 1
            try:
                e = rg.ex(order.ast, sc)
            except NativeUnsupported:
                rg.emit("FAULT(F_SIMULTANEOUS);")
                rg.ind -= 1
                rg.emit("}")
                continue
            v = rg.tmp("V", rg.V(e))
            rg.emit(f"if ({v}.t != T_INT) FAULT(F_SIMULTANEOUS);")
            rg.emit(f"return {v}.i;")
            rg.ind -= 1
            rg.emit("}")
        rg.emit("}")
        rg.emit("FAULT(F_SIMULTANEOUS);")
        p.function(f"static int64_t {fname}(G *g, int32_t act, const V *pr)", rg.lines)
        return fname

    # -- the run loop, apply, enumerate ---------------------------------------------------------
    def run_fn(self):
        lines = ["    for (;;) {", "        int32_t nxt;", "        switch (pc) {"]
        for pc in range(len(self.code)):
            lines.append(f"        case {pc}: nxt = {self.ins[pc]}(g); break;")
        lines += ["        default: BAIL(B_STATE);", "        }",
                  "        if (nxt < 0) { g->pc = pc; return; }",
                  "        pc = nxt;",
                  "        g->budget -= 1;",
                  "        if (GS_UNLIKELY(g->budget < 0)) FAULT(F_BUDGET);",
                  "    }"]
        self.p.function("static void gen_run(G *g, int32_t pc)", lines)

    def apply_fn(self):
        """Play entry k of the pending decision point's listing (State._play_standard)."""
        p = self.p
        rs = self.rs
        lines = ["    rt_count_decision(g);"]
        if any(rt.blind_sets for rt in rs.actions.values()):
            # a card picked blind from a set is drawn (interpreter/blind.py): the entry to play
            maxp = max([len(rt.param_kinds) for rt in rs.actions.values()] + [1])
            kinds = []
            for name in p.action_names:
                pk = list(rs.actions[name].param_kinds)
                kinds += [str(x) for x in pk + [0] * (maxp - len(pk))]
            table = p.const_array("uint8_t", kinds)
            lines += ["    int32_t reordered = 0;", f"    k = rt_blind_pick(g, k, {table}, {maxp}, &reordered);", "    (void)reordered;"]
        else:
            table = None
        lines += ["    int32_t act = g->lst.act[k];", "    int32_t pc;", "    switch (g->pending) {"]
        for ch in rs.chooses:
            lines.append(f"    case {ch.idx}: {{")
            if ch.secret:
                if table is not None:   # stored by the entry that finds it again (blind.stored_values)
                    lines += ["        if (reordered) {", f"            g->budget = {int(rs.max_steps)}LL;",
                              f"            {p.choose_listing(ch)}(g, &g->lst2);",
                              f"            int32_t k2 = rt_blind_refind(g, k, &g->lst2, {table}, {maxp});",
                              "            if (k2 < 0) BAIL(B_STATE);",
                              "            rt_store_entry(g, &g->lst2, k2);",
                              "        } else {", "            rt_store_choice(g, k);", "        }"]
                else:
                    lines.append("        rt_store_choice(g, k);")
                lines += ["        g->pending = -1;", "        g->has_listing = 0;",
                          f"        g->budget = {int(rs.max_steps)}LL;", f"        gen_run(g, {ch.next});",
                          "        return;", "    }"]
                continue
            if ch.window is not None:       # a response in a reaction window: noted (State._play_standard)
                took = p.for_slot[ch.window[1:]]
                lines.append(f"        if (act >= 0) rt_win_note(g, {took}, g->actor);")
            lines += ["        g->pending = -1;", "        g->has_listing = 0;",
                      f"        g->budget = {int(rs.max_steps)}LL;", "        switch (act) {",
                      f"        case -1: pc = {ch.next}; break;"]
            for rt in ch.actions + ch.fallback:
                idx, eff, _ = p.action(rt)
                rg = p.gen()
                rg.ind = 3
                hp = note_places(rg, rt, "lst_pairs(&g->lst, k)")
                r = p.block(rg, f"{eff}(g, lst_pairs(&g->lst, k))", ch.scope, ch.resume)
                forget_places(rg, hp)
                rg.emit(f"pc = {r};")
                lines.append(f"        case {idx}: {{")
                lines += rg.lines
                lines.append("            break; }")
            lines += ["        default: BAIL(B_STATE);", "        }", "        gen_run(g, pc);", "        return;",
                      "    }"]
        lines += ["    default: BAIL(B_STATE);", "    }"]
        self.p.function("static void gen_apply(G *g, int32_t k)", lines)

    def enumerate_fn(self):
        p = self.p
        lines = ["    switch (ch) {"]
        for ch in self.rs.chooses:
            lines.append(f"    case {ch.idx}: {p.choose_listing(ch)}(g, out); return;")
        lines += ["    default: BAIL(B_STATE);", "    }"]
        p.function("static void gen_enumerate(G *g, int32_t ch, Listing *out)", lines)

    def finish_fn(self):
        """State.finish: scores, the ranking keys (tie breakers), teams, the winners."""
        p = self.p
        rs = self.rs
        spec = rs.spec
        P = rs.P
        nt = len(spec.tie_breakers)
        rg = p.gen()
        rg.emit(f"V scores[{P}];")
        rg.emit(f"V keys[{P}][{nt + 1}];")
        sign = 1 if rs.winner == "highest" else -1
        if rs.per_team:
            self.team_scores(rg, sign)
        elif spec.score is not None:
            f = p.value_fn(spec.score, params="G *g, int64_t p", scope={"p": E("p", "i", seat=True)})
            p.score_fn = f           # also a game trace's score after each decision (runtime.c)
            rg.emit(f"for (int64_t p = 0; p < {P}; p++) scores[p] = {f}(g, p);")
        else:
            rg.emit(f"for (int64_t p = 0; p < {P}; p++) scores[p] = vint(0);")
        if not rs.per_team:
            tbs = [p.value_fn(t, params="G *g, int64_t p", scope={"p": E("p", "i", seat=True)})
                   for t in spec.tie_breakers]
            rg.emit(f"for (int64_t p = 0; p < {P}; p++) {{")
            rg.emit("    if (scores[p].t != T_INT) BAIL(B_TYPE);")
            rg.emit(f"    keys[p][0] = vint(mul_i(g, {sign}, scores[p].i));")
            for j, t in enumerate(tbs):     # a number each (else Python names the rule: runtime.numeric)
                rg.emit(f"    keys[p][{j + 1}] = {t}(g, p);")
                rg.emit(f"    if (keys[p][{j + 1}].t != T_INT) BAIL(B_TYPE);")
            rg.emit("}")
        if spec.teams is not None:
            if rs.per_team:
                raise NativeUnsupported("scoring.teams with scoring.per_team")
            tf = p.value_fn(spec.teams, params="G *g, int64_t p", scope={"p": E("p", "i", seat=True)})
            rg.emit(f"int64_t team[{P}];")
            rg.emit(f"for (int64_t p = 0; p < {P}; p++) {{ V t_ = {tf}(g, p); if (t_.t != T_INT) FAULT(F_TYPE); team[p] = t_.i; }}")
            rg.emit(f"V tot[{P}]; V tk[{P}][{nt + 1}];")
            rg.emit(f"for (int64_t p = 0; p < {P}; p++) {{")
            rg.emit("    int64_t s = 0;")
            rg.emit(f"    for (int64_t q = 0; q < {P}; q++) if (team[q] == team[p]) s = add_i(g, s, scores[q].i);")
            rg.emit("    tot[p] = vint(s);")
            for j in range(nt):
                rg.emit("    { int64_t a = 0; int first = 1; V acc = vnone();")
                rg.emit(f"      for (int64_t q = 0; q < {P}; q++) if (team[q] == team[p]) {{")
                rg.emit(f"          V x = keys[q][{j + 1}];")
                rg.emit("          if (first) { acc = x; first = 0; }")
                # (a tie breaker's total only ranks: beyond int64 Python decides, as for a bail)
                rg.emit("          else { if (!isnum(acc) || !isnum(x)) BAIL(B_TYPE);")
                rg.emit("                 if (__builtin_add_overflow(acc.i, x.i, &acc.i)) BAIL(B_OVERFLOW); }")
                rg.emit("      }")
                rg.emit(f"      tk[p][{j + 1}] = acc; (void)a; }}")
            rg.emit("}")
            rg.emit(f"for (int64_t p = 0; p < {P}; p++) {{")
            rg.emit("    scores[p] = tot[p];")
            rg.emit(f"    keys[p][0] = vint(mul_i(g, {sign}, tot[p].i));")
            for j in range(nt):
                rg.emit(f"    keys[p][{j + 1}] = tk[p][{j + 1}];")
            rg.emit("}")
        # best = max(keys): tuples compared element by element
        rg.emit("int32_t best = 0;")
        rg.emit(f"for (int32_t p = 1; p < {P}; p++) if (keys_lt(g, keys[best], keys[p], {nt + 1})) best = p;")
        rg.emit("uint64_t win = 0;")
        rg.emit(f"for (int32_t p = 0; p < {P}; p++) if (keys_eq(keys[best], keys[p], {nt + 1})) win |= (uint64_t)1 << p;")
        if spec.cooperative:
            sf = p.test_fn(spec.success)
            rg.emit(f"win = {sf}(g) ? {hex((1 << P) - 1)}ULL : 0;")
        elif getattr(spec, "no_winner_if", None) is not None:     # a draw for all: nobody wins
            nf = p.test_fn(spec.no_winner_if)
            rg.emit(f"if ({nf}(g)) win = 0;")
        rg.emit(f"for (int32_t p = 0; p < {P}; p++) g->scores[p] = scores[p];")
        rg.emit("g->winners = win;")
        rg.emit("g->terminal = 1;")
        rg.emit("g->pending = -1;")
        rg.emit("g->has_listing = 0;")
        p.function("static void gen_finish(G *g)", rg.lines)

    def team_scores(self, rg, sign):
        """scoring.per_team (State.finish): the score once per team (t the team), every team's first,
        then each team's ranking key (sign * score, the tie breakers); a seat gets its team's."""
        p = self.p
        rs = self.rs
        spec = rs.spec
        T, P = rs.T, rs.P
        nt = len(spec.tie_breakers)
        scope = {"t": E("t", "i")}
        rg.emit(f"V tsc[{T}]; V tkey[{T}][{nt + 1}];")
        if spec.score is not None:
            f = p.value_fn(spec.score, params="G *g, int64_t t", scope=scope)
            rg.emit(f"for (int64_t t = 0; t < {T}; t++) tsc[t] = {f}(g, t);")
        else:
            rg.emit(f"for (int64_t t = 0; t < {T}; t++) tsc[t] = vint(0);")
        tbs = [p.value_fn(b, params="G *g, int64_t t", scope=scope) for b in spec.tie_breakers]
        rg.emit(f"for (int64_t t = 0; t < {T}; t++) {{")
        rg.emit("    if (tsc[t].t != T_INT) BAIL(B_TYPE);")
        rg.emit(f"    tkey[t][0] = vint(mul_i(g, {sign}, tsc[t].i));")
        for j, b in enumerate(tbs):
            rg.emit(f"    tkey[t][{j + 1}] = {b}(g, t);")
            rg.emit(f"    if (tkey[t][{j + 1}].t != T_INT) BAIL(B_TYPE);")
        rg.emit("}")
        team = p.const_array("int64_t", [f"{t}LL" for t in rs.seat_team])
        rg.emit(f"for (int64_t p = 0; p < {P}; p++) {{")
        rg.emit(f"    scores[p] = tsc[{team}[p]];")
        rg.emit(f"    for (int j = 0; j < {nt + 1}; j++) keys[p][j] = tkey[{team}[p]][j];")
        rg.emit("}")
        # a game trace evaluates the score once per team mid-game, as GameTrace.after does (the teams
        # lead: gs_simulate is given each seat's team)
        p.score_fn = f if spec.score is not None else None

    def setup_fn(self):
        p = self.p
        lines = []
        for i, v in enumerate(self.rs.var_init):
            lines.append(f"    g->v[{i}] = (V){p.pool.v(v)};")
        p.function("static void gen_setup(G *g)", lines or ["    (void)g;"])


def generate(rs):
    """Ruleset → (C source, metadata) or NativeUnsupported."""
    prog = Program(rs)
    fl = Flow(prog)
    prog.protos.append("static void gen_finish(G *g);")
    prog.protos.append("static void gen_run(G *g, int32_t pc);")
    fl.build()
    fl.run_fn()
    fl.apply_fn()
    fl.enumerate_fn()
    fl.finish_fn()
    fl.setup_fn()
    for rt in rs.actions.values():      # every action, listed or not (ACT_NP)
        prog.action(rt)
    source, meta = assemble(prog, rs)
    if len(source) > MAX_SOURCE_BYTES:    # (ASCII: numbers and ids only)
        raise SourceTooLarge(len(source), MAX_SOURCE_BYTES)
    return source, meta


def assemble(prog, rs):
    L = rs
    ALL = (1 << L.P) - 1
    out = ["/* generated by gamespec (gamespec/compile/native): numbers and ids only */",
           '#include "runtime.h"', '#include "agent.h"', ""]
    out.append(f"#define ALLP {ALL}ULL")
    face_of = prog.const_array("int32_t", [str(x) for x in L.face_of])
    out.append(f"#define FACE_OF {face_of}")
    zvis = prog.const_array("uint64_t", [f"{x}ULL" for x in L.zvis])
    out.append(f"#define ZVIS {zvis}")
    act_np = prog.const_array("int32_t", [str(len(rs.spec.actions[n].params)) for n in prog.action_names])
    out.append(f"#define ACT_NP {act_np}")
    set_blind = prog.const_array("uint64_t", [f"{x}ULL" for x in L.set_blind])
    is_set = prog.const_array("uint8_t", ["1" if zi in L.set_zones else "0" for zi in range(L.nzones)])
    refill_src = prog.const_array("int32_t", [str(L.refill[zi][0]) if zi in L.refill else "-1" for zi in range(L.nzones)])
    refill_sh = prog.const_array("uint8_t", ["1" if zi in L.refill and L.refill[zi][1] else "0" for zi in range(L.nzones)])
    stop_empty = prog.const_array("uint8_t", ["1" if zi in L.stop_when_empty else "0" for zi in range(L.nzones)])
    init_zone = prog.const_array("int32_t", [str(x) for x in L.init_zone])
    mark_init = prog.const_array("int64_t", [f"{int(x)}LL" for x in L.mark_init])
    reset = {m for m, _ in L.mark_reset}
    mark_reset = prog.const_array("uint8_t", ["1" if m in reset else "0" for m in range(len(L.mark_init))])
    mark_bool = prog.const_array("uint8_t", ["1" if d.type == "bool" else "0" for d in L.mark_decl])
    str_len = prog.const_array("int64_t", [f"{n}LL" for n in prog.texts.lengths()])
    ch_opt = prog.const_array("int32_t", ["1" if ch.step.optional is not None else "0" for ch in rs.chooses])
    from .agent import agent_tables      # (its constants join the pool and decls below)
    agent = agent_tables(prog, rs)
    cnt, cnt_define = prog.count_tables()
    out += cnt_define
    out += prog.pool.decls
    out += prog.decls
    out += prog.protos
    out += prog.funcs
    out.append("const Layout GS_LAYOUT = {")
    out.append(f"    {L.P}, {L.ncards}, {L.nzones}, {len(L.var_init)}, {len(L.mark_init)}, {len(prog.for_slot)}, "
               f"{max(1, len(L.faces))}, {prog.nlevels}, {max([len(d.params) for d in rs.spec.actions.values()] + [1])}, "
               f"{len(prog.texts.items)},")
    out.append(f"    {ALL}ULL,")
    out.append(f"    {face_of}, {zvis}, {set_blind}, {is_set}, {refill_src}, {refill_sh}, {stop_empty}, {init_zone},")
    out.append(f"    {mark_init}, {mark_reset}, {mark_bool}, {str_len},")
    out.append(f"    {int(rs.max_steps)}LL, {int(rs.max_decisions)}LL, {int(rs.max_game_steps)}LL,")
    out.append("    gen_setup, gen_run, gen_apply, gen_enumerate,")
    out.append(f"    {ch_opt}, {len(rs.chooses)}, {act_np}, {len(prog.action_names)},")
    out.append(f"    {prog.score_fn or 'NULL'},")
    out.append("    GS_KEY,")
    out.append("    " + ", ".join(cnt))
    out.append("};")
    out += agent
    meta = {"texts": prog.texts.items, "actions": prog.action_names, "for_slot": dict(prog.for_slot)}
    return "\n".join(out) + "\n", meta


def _emit_ok(rg, rs, decl, inner, cond_first, skip):
    """An action's entry test at the innermost level of its parameters: the precondition (when it
    reads them), then each cost the actor must afford; `skip` is the C statement leaving the entry."""
    if decl.cond is not None and not cond_first:
        c = rg.test(decl.cond.ast, inner)
        rg.emit(f"if (!({c})) {skip};")
    for var, r in decl.cost:
        base = rs.var_base[var]
        amount = rg.V(rg.ex(r.ast, inner))
        rg.emit(f"if (py_lt(g, g->v[{base} + g->actor], {amount})) {skip};")
