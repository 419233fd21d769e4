"""Schema-valid YAML data → checked Spec: parses every rule, resolves names, checks arities and types."""
from __future__ import annotations

import contextlib
import copy
import difflib
import itertools
import math
import re

from . import ast as A
from .errors import SpecError, SpecErrors
from .model import (ActionDecl, CardClass, Param, PhaseDecl, Rule, Spec, Step, TurnDecl, VarDecl,
                    ZoneDecl)
from .parser import MAX_RULE_CHARS, MAX_RULE_DEPTH, Located, parse

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


# name -> (min args, max args, kwargs, statement?)
BUILTINS = {
    "size": (1, 1, (), False), "count": (1, 1, (), False), "sum": (1, 1, (), False),
    "max": (1, 8, ("default",), False), "min": (1, 8, ("default",), False),
    "any": (1, 1, (), False), "all": (1, 1, (), False),
    "first": (1, 2, (), False), "last": (1, 2, (), False),
    "top": (1, 2, (), False), "bottom": (1, 2, (), False), "cards": (1, 1, (), False),
    "others": (1, 1, (), False), "players_from": (1, 1, (), False),
    "next_player": (1, 1, (), False), "prev_player": (1, 1, (), False),
    "indices": (1, 1, (), False), "range": (1, 2, (), False),
    "is_max": (2, 2, ("min",), False), "is_sole_max": (2, 2, ("min",), False),
    "dense_rank": (2, 2, (), False), "run_length": (2, 2, (), False), "longest_run": (1, 1, (), False),
    "index_of": (2, 2, (), False), "abs": (1, 1, (), False), "zone_of": (1, 1, (), False),
    "face_down": (1, 1, (), False), "sorted": (1, 1, (), False),
    "move": (2, 2, ("face", "at"), True), "deal": (2, 3, ("face",), True), "shuffle": (1, 1, (), True),
    "reveal": (2, 2, (), True), "end_game": (0, 0, (), True), "end_phase": (0, 0, (), True),
    "end_turn": (0, 0, (), True),
}
AGGREGATES = {"count", "sum", "max", "min", "any", "all", "first", "last", "sorted"}
CONSTANTS = {"players": "players", "num_players": "int", "current": "player", "actor": "player"}
RESERVED_ACTIONS = {"skip"}
NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
DEFINE_RE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\(\s*([A-Za-z_0-9,\s]*)\)\s*)?$")


# Caps that keep checking and compiling a hostile spec bounded (each names the check that fires).
MAX_SPEC_RULE_CHARS = 100_000     # all rule strings of one spec together ("rule-total")
MAX_INLINE_NODES_RULE = 50_000    # nodes one rule may grow to by inlining defines ("rule-size")
MAX_INLINE_NODES = 300_000        # nodes all rules of a spec may grow by, together ("rule-size")
MAX_EXPR_DEPTH = 2 * MAX_RULE_DEPTH   # an expression, defines inlined, is no deeper than one written out
MAX_EXPR_BRACKETS = MAX_RULE_DEPTH    # ... and has no more nested brackets ("rule-depth")
MAX_FACES = 100_000               # faces all card classes expand to ("card-count")
MAX_LOOP_NESTING = 12             # for/while statements inside each other ("rule-depth")


def reserved(name) -> bool:
    """Names starting with '_' are reserved: a spec can never name anything of the implementation."""
    return isinstance(name, str) and name.startswith("_")


def suggest(name: str, candidates) -> str:
    best = difflib.get_close_matches(name, sorted(set(candidates)), n=1, cutoff=0.6)
    return f"; did you mean '{best[0]}'?" if best else ""


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


class Checker:
    """Walks the YAML data once; collects every error instead of stopping at the first."""

    def __init__(self, data, filename: str, sha256: str):
        self.data = data
        self.filename = filename
        self.sha256 = sha256
        self.errors: list[SpecError] = []
        self.defines: dict = {}
        self._inlining: list = []
        self._rule_chars = 0        # all rule text parsed so far
        self._inlined_total = 0     # nodes added by inlining defines, all rules
        self._inlined_rule = 0      # ... in the rule being checked
        self._depth = 0             # expression nesting while checking (defines inlined)
        self._brackets = 0
        self._loops = 0             # for/while statement nesting
        self._faces = 0             # card faces expanded so far

    # -- positions and errors
    def mark(self, container, key):
        try:
            m = container.value_marks[key] if hasattr(container, "value_marks") else container.item_marks[key]
            return m[0], m[1]
        except (AttributeError, KeyError, IndexError, TypeError):
            m = getattr(container, "mark", None)
            return (m[0], m[1]) if m else (1, 1)

    def key_mark(self, container, key):
        try:
            m = container.key_marks[key]
            return m[0], m[1]
        except (AttributeError, KeyError, TypeError):
            return self.mark(container, key)

    def err(self, msg, pos, check="check"):
        self.errors.append(SpecError(msg, self.filename, pos[0], pos[1], check=check))

    # -- rule parsing
    def rule(self, container, key, where, kind="expr"):
        """Parse container[key] (a rule string or int) into a Rule, or None after reporting an error."""
        text = container[key]
        if isinstance(text, bool):
            text = "true" if text else "false"
        if isinstance(text, int):
            text = str(text)
        if isinstance(text, list):  # effects as a list of strings
            stmts = []
            first = None
            for i, item in enumerate(text):
                r = self.rule(text, i, f"{where}[{i}]", "effects")
                if r is None:
                    return None
                first = first or r
                stmts.extend(r.ast)
            if first is None:
                return Rule([], where, self.filename, *self.mark(container, key))
            return Rule(stmts, where, self.filename, first.line, first.col)
        locate = getattr(text, "locate", None)
        if locate is None:
            base = self.mark(container, key)
            locate = (lambda ln, c, b=base: (b[0] + ln - 1, (b[1] + c - 1) if ln == 1 else c))
        src = Located(str(text), self.filename, locate, where)
        if len(src.text) <= MAX_RULE_CHARS:   # longer rules fail 'rule-length' in parse()
            self._rule_chars += len(src.text)
            if self._rule_chars > MAX_SPEC_RULE_CHARS:
                line, col = src.pos(1, 1)
                raise SpecErrors(self.errors + [SpecError(
                    f"the rules of this spec are more than {MAX_SPEC_RULE_CHARS} characters in all",
                    self.filename, line, col, check="rule-total")])
        try:
            node = parse(src, kind)
        except SpecError as e:
            self.errors.append(e)
            return None
        finally:
            forget = getattr(text, "forget_positions", None)
            if forget is not None:
                forget()   # the AST holds file positions now; release the lookup tables
        line, col = src.pos(1, 1)
        return Rule(node, where, self.filename, line, col, str(text))

    # ------------------------------------------------------------------------------------
    def run(self) -> Spec:
        d = self.data
        self.option_defaults = {}
        self.option_values = {}
        for name, o in (d.get("options") or {}).items():
            self.name_ok(name, d["options"], "option")
            self.option_defaults[name] = o["default"]
            self.option_values[name] = o.get("values")
        self.zones = self.read_zones(d["zones"])
        self.variables = self.read_variables(d.get("variables") or {})
        self.tables = {}
        for name, t in (d.get("tables") or {}).items():
            self.name_ok(name, d["tables"], "table")
            self.tables[name] = {self.table_key(k): v for k, v in t.items()}
        self.classes, self.attributes, self.attr_values = self.read_cards(d["cards"])
        self.phase_names = list(d["phases"])
        self.action_names = list(d.get("actions") or {})
        self.global_names()
        self.read_defines(d.get("define") or {})

        glob = Scope(dict(CONSTANTS))
        self.check_cards(glob)
        actions = {}
        for name, a in (d.get("actions") or {}).items():
            if name in RESERVED_ACTIONS:
                self.err(f"'{name}' is reserved for the pass choice of an optional step",
                         self.key_mark(d["actions"], name))
            actions[name] = self.read_action(name, a, glob)
        on_begin = self.effects(d, "on_begin", "on_begin", glob)
        end_if = self.expr_rule(d, "end_if", "end_if", glob)
        on_end = self.effects(d, "on_end", "on_end", glob)
        phases = {n: self.read_phase(n, p, glob) for n, p in d["phases"].items()}
        start = d.get("start", self.phase_names[0])
        if start not in phases:
            self.err(f"unknown start phase '{start}'{suggest(start, phases)}", self.mark(d, "start"))
        triggers = []
        for name, t in (d.get("triggers") or {}).items():
            c = self.expr_rule(t, "if", f"triggers.{name}.if", glob)
            e = self.effects(t, "effect", f"triggers.{name}.effect", glob)
            triggers.append((name, c, e))
        sc = d.get("scoring") or {}
        pscope = glob.child({"p": "player"})
        score = self.expr_rule(sc, "score", "scoring.score", pscope, expect="int") if sc else None
        ties = []
        for i, _ in enumerate(sc.get("tie_breakers") or []):
            ties.append(self.expr_rule(sc["tie_breakers"], i, f"scoring.tie_breakers[{i}]", pscope,
                                       expect="int"))
        lim = d.get("limits") or {}
        if self.errors:
            raise SpecErrors(self.errors)
        lo, hi = d["players"]
        return Spec(name=str(d["name"]), filename=self.filename, sha256=self.sha256,
                    min_players=lo, max_players=hi, options=self.option_defaults,
                    option_values=self.option_values, classes=self.classes,
                    attributes=self.attributes, zones=self.zones, variables=self.variables,
                    tables=self.tables, on_begin=on_begin, end_if=end_if, on_end=on_end, start=start,
                    phases=phases, actions=actions, triggers=triggers, score=score,
                    winner=sc.get("winner", "highest"), tie_breakers=ties,
                    steps_per_decision=lim.get("steps_per_decision", 100_000),
                    decisions_per_game=lim.get("decisions_per_game", 100_000))

    def table_key(self, k):
        return k

    def name_ok(self, name, container, what):
        if not isinstance(name, str) or not NAME_RE.match(name):
            self.err(f"{what} name {name!r} is not a valid name (letters, digits, '_')",
                     self.key_mark(container, name))
            return False
        if reserved(name):
            self.err(f"{what} name '{name}': names starting with '_' are reserved",
                     self.key_mark(container, name), "name")
            return False
        return True

    # -- declarations ---------------------------------------------------------------------
    def read_zones(self, zones):
        out = {}
        for name, z in zones.items():
            self.name_ok(name, zones, "zone")
            keys = None
            if "count" in z and "keys" in z:
                self.err("a zone family has either 'count' or 'keys', not both", self.mark(zones, name))
            if "count" in z:
                keys = list(range(z["count"]))
            elif "keys" in z:
                keys = list(z["keys"])
                if len(set(keys)) != len(keys):
                    self.err("zone keys must be different", self.mark(z, "keys"))
            if z.get("per_player") and keys is not None:
                self.err("a zone is either per player or a family with keys, not both",
                         self.mark(zones, name))
            vis = z.get("visibility", "public")
            if vis in ("owner", "all_but_owner") and not z.get("per_player"):
                self.err(f"visibility '{vis}' needs per_player: true", self.mark(z, "visibility"))
            oe = z.get("on_empty", "error")
            policy = oe if isinstance(oe, str) else "refill"
            oe = oe if isinstance(oe, dict) else {}
            out[name] = ZoneDecl(name, z.get("kind", "pile"), bool(z.get("per_player")), keys, vis,
                                 oe.get("refill_from"), oe.get("shuffle", True), policy)
        for name, z in out.items():
            if z.refill_from is not None:
                src = out.get(z.refill_from)
                if src is None:
                    self.err(f"unknown zone '{z.refill_from}'{suggest(z.refill_from, out)}",
                             self.mark(zones[name]["on_empty"], "refill_from"))
                elif src.is_family or z.is_family:
                    self.err("on_empty refills a single zone from a single zone",
                             self.mark(zones[name], "on_empty"))
        return out

    def read_variables(self, vs):
        out = {}
        for name, v in vs.items():
            self.name_ok(name, vs, "variable")
            t = v.get("type", "int")
            init = v.get("initial", {"int": 0, "bool": False, "cards": [], "list": [], "str": ""}.get(t))
            if t in ("int", "player") and init is not None and not isinstance(init, int):
                self.err(f"initial value of a {t} variable must be an integer", self.mark(v, "initial"))
            if t in ("card", "cards") and init not in (None, []):
                self.err("card variables start empty (none or [])", self.mark(v, "initial"))
            if v.get("visibility") == "owner" and not v.get("per_player"):
                self.err("visibility 'owner' needs per_player: true", self.mark(v, "visibility"))
            out[name] = VarDecl(name, t, bool(v.get("per_player")), init, v.get("visibility", "public"))
        return out

    def read_cards(self, cards):
        classes, attrs, values = [], ["type"], {"type": set()}
        for cname, c in cards.items():
            self.name_ok(cname, cards, "card class")
            values["type"].add(cname)
            faces = []
            for i, f in enumerate(c["faces"]):
                fixed = {k: v for k, v in f.items() if k not in ("count", "each", "zone", "if")}
                for k in fixed:
                    if k == "type" or not NAME_RE.match(str(k)) or reserved(k):
                        self.err(f"'{k}' cannot be an attribute name", self.key_mark(f, k), "name")
                each = f.get("each") or {}
                count = f.get("count", 1)
                n = math.prod(len(v) for v in each.values())   # before expanding anything
                if n * max(count, 1) > 10_000:
                    self.err("this face expands to more than 10000 cards", self.mark(c["faces"], i),
                             "card-count")
                    continue
                self._faces += n
                if self._faces > MAX_FACES:
                    self.err(f"the cards expand to more than {MAX_FACES} faces", self.mark(c["faces"], i),
                             "card-count")
                    return classes, attrs, values
                combos = [dict(zip(each, vals)) for vals in itertools.product(*each.values())] if each else [{}]
                zone = self.rule(f, "zone", f"cards.{cname}.faces[{i}].zone") if "zone" in f else None
                cond = self.rule(f, "if", f"cards.{cname}.faces[{i}].if") if "if" in f else None
                for combo in combos:
                    a = dict(fixed)
                    a.update(combo)
                    for k, v in a.items():
                        if k not in values:
                            attrs.append(k)
                            values[k] = set()
                        values[k].add(tuple(v) if isinstance(v, list) else v)
                    faces.append((a, count, zone, cond))
            zone = self.rule(c, "zone", f"cards.{cname}.zone") if "zone" in c else None
            cond = self.rule(c, "if", f"cards.{cname}.if") if "if" in c else None
            if zone is None and not any(f[2] for f in faces) and "zone" not in c:
                self.err(f"card class '{cname}' needs a 'zone' where its cards lie before set-up",
                         self.mark(cards, cname))
            classes.append(CardClass(cname, zone, cond, c.get("label"), faces))
        total = sum(f[1] for cl in classes for f in cl.faces)
        if total > 100_000:
            self.err(f"{total} cards; the limit is 100000", self.mark(self.data, "cards"), "card-count")
        return classes, attrs, values

    def global_names(self):
        self.globals = {}
        seen = {}
        def add(name, kind, container, key):
            if name in seen:
                self.err(f"'{name}' is already the name of a {seen[name]}", self.key_mark(container, key))
                return
            if name in CONSTANTS or name in BUILTINS:
                self.err(f"'{name}' is a built-in name", self.key_mark(container, key))
                return
            seen[name] = kind
            self.globals[name] = kind
        d = self.data
        for n in self.zones:
            add(n, "zone", d["zones"], n)
        for n in self.variables:
            add(n, "variable", d.get("variables"), n)
        for n in self.tables:
            add(n, "table", d.get("tables"), n)
        for n in self.option_defaults:
            add(n, "option", d.get("options"), n)
        self._seen = seen

    def read_defines(self, defs):
        for key, body in defs.items():
            m = DEFINE_RE.match(str(key))
            if not m:
                self.err(f"define name {key!r} should look like 'name' or 'name(a, b)'",
                         self.key_mark(defs, key))
                continue
            name = m.group(1)
            params = [p.strip() for p in (m.group(2) or "").split(",") if p.strip()]
            bad = [x for x in [name] + params if reserved(x) or not NAME_RE.match(x)]
            if bad:
                self.err(f"define {key!r}: '{bad[0]}' is not a valid name (names starting with '_' are "
                         "reserved)", self.key_mark(defs, key), "name")
                continue
            if name in self._seen or name in BUILTINS or name in CONSTANTS:
                self.err(f"'{name}' is already a name", self.key_mark(defs, key))
                continue
            r = self.rule(defs, key, f"define.{name}")
            if r is not None:
                self.defines[name] = (params, r, m.group(2) is not None)
                self._seen[name] = "define"

    def check_cards(self, glob):
        sc = glob.child({"it": "card"})
        for cl in self.classes:
            for r in [cl.zone, cl.cond] + [f[2] for f in cl.faces] + [f[3] for f in cl.faces]:
                if r is not None:
                    self.check_rule(r, sc, "zone" if r in ([cl.zone] + [f[2] for f in cl.faces]) else "bool")

    # -- rules ---------------------------------------------------------------------------
    def expr_rule(self, container, key, where, scope, expect="any"):
        if container is None or key not in (container if isinstance(container, dict) else range(len(container))):
            return None
        r = self.rule(container, key, where, "expr")
        if r is not None:
            self.check_rule(r, scope, expect)
        return r

    def effects(self, container, key, where, scope):
        if container is None or key not in container:
            return None
        r = self.rule(container, key, where, "effects")
        if r is not None:
            self._inlined_rule = 0
            try:
                r.ast = self.stmts(r.ast, scope.child())
            except _Abort:
                pass
        return r

    def check_rule(self, r, scope, expect="any"):
        self._inlined_rule = 0
        try:
            r.ast, t = self.expr(r.ast, scope)
            if not fits(t, expect):
                self.err(f"expected {expect} here, this is {t}", (r.ast.line, r.ast.col), "type")
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
                v = self.variables.get(tgt.id)
                if v is None:
                    self.fail(tgt, self.unknown_msg(tgt.id, scope, "variable"))
                if v.per_player:
                    self.fail(tgt, f"'{tgt.id}' is per player; write {tgt.id}[player]", "type")
                tgt.ref = ("var", v)
            else:
                v = self.variables.get(tgt.obj.id)
                if v is None:
                    self.fail(tgt, self.unknown_msg(tgt.obj.id, scope, "variable"))
                if not v.per_player:
                    self.fail(tgt, f"'{v.name}' is not per player; write {v.name} = ...", "type")
                tgt.index, it = self.expr(tgt.index, scope)
                tgt.ref = ("pvar", v)
            if s.op != "=" and v.type not in ("int", "list", "cards", "player"):
                self.fail(s, f"'{s.op}' needs a number variable; '{v.name}' is {v.type}", "type")
            return s
        if isinstance(s, A.CallStmt):
            c = s.call
            if c.func not in BUILTINS or not BUILTINS[c.func][3]:
                if c.func in BUILTINS:
                    self.fail(c, f"'{c.func}(...)' is a value, not an effect; use it inside a statement")
                self.fail(c, f"unknown effect '{c.func}'{suggest(c.func, [k for k, v in BUILTINS.items() if v[3]])}")
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
                s.body = self.stmts(s.body, scope.child({s.var: ELEM.get(t, "any")}))
            return s
        if isinstance(s, A.While):
            s.cond, _ = self.expr(s.cond, scope)
            with self._loop(s):
                s.body = self.stmts(s.body, scope.child())
            return s
        self.fail(s, "unsupported statement")

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
        return f"unknown {what} '{name}'{suggest(name, cands)}"

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
            if n.id in BUILTINS:
                self.fail(n, f"'{n.id}' is a function; call it: {n.id}(...)", "type")
            self.fail(n, self.unknown_msg(n.id, scope))
        if isinstance(n, A.ListLit):
            ts = []
            for i, x in enumerate(n.items):
                n.items[i], t = self.expr(x, scope)
                ts.append(t)
            elem = ts[0] if ts and all(t == ts[0] for t in ts) else "any"
            return n, list_of(elem)
        if isinstance(n, A.Comp):
            n.iter, it = self.expr(n.iter, scope)
            if not fits(it, "list"):
                self.fail(n.iter, f"'for ... in' needs a list or a zone, this is {it}", "type")
            inner = scope.child({n.var: ELEM.get(it, "any")})
            if n.cond is not None:
                n.cond, _ = self.expr(n.cond, inner)
            n.elt, et = self.expr(n.elt, inner)
            n.elt_t = et
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
                self.fail(n, f"unknown card attribute '{n.name}'{suggest(n.name, self.attr_values)}")
            if n.name.startswith("_"):
                self.fail(n, f"attribute names cannot start with '_'")
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
                    self.fail(n, f"'+' joins two lists; these are {lt} and {rt}", "type")
                return n, lt if lt == rt else "list"
            for side, t in ((n.left, lt), (n.right, rt)):
                if not fits(t, "int"):
                    self.fail(side, f"'{n.op}' needs numbers; this is {t}", "type")
            return n, "int"
        if isinstance(n, A.Compare):
            n.left, lt = self.expr(n.left, scope)
            n.right, rt = self.expr(n.right, scope)
            if n.op in ("in", "not in"):
                if not fits(rt, "list"):
                    self.fail(n.right, f"'{n.op}' needs a list or a zone on the right, this is {rt}", "type")
            elif n.op not in ("==", "!="):
                for side, t in ((n.left, lt), (n.right, rt)):
                    if not fits(t, "int"):
                        self.fail(side, f"'{n.op}' compares numbers; this is {t}", "type")
            elif "zone" in (lt, rt) and lt != rt:
                self.fail(n, f"comparing a zone with {rt if lt == 'zone' else lt}", "type")
            return n, "bool"
        if isinstance(n, A.BoolOp):
            n.left, _ = self.expr(n.left, scope)
            n.right, _ = self.expr(n.right, scope)
            return n, "bool"
        if isinstance(n, A.Unary):
            n.operand, t = self.expr(n.operand, scope)
            if n.op == "-" and not fits(t, "int"):
                self.fail(n, f"'-' needs a number, this is {t}", "type")
            return n, "bool" if n.op == "not" else "int"
        self.fail(n, "unsupported expression")

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
                if isinstance(n.index, A.Const) and z.keys is not None and n.index.value not in z.keys:
                    self.fail(n.index, f"'{name}' has no member {n.index.value!r}; its keys are {z.keys}", "type")
                n.ref = ("member", z)
                return n, "zone"
            if kind == "variable":
                v = self.variables[name]
                if not v.per_player:
                    self.fail(n, f"'{name}' is not per player; it takes no index", "type")
                n.ref = ("pvar", v)
                return n, v.type
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
        body = _substitute(body, mapping)
        self._inlining.append(name)
        try:
            return self.expr(body, scope)
        finally:
            self._inlining.pop()

    def call(self, n, scope, statement=False):
        f = n.func
        if f in self.defines:
            if n.kwargs:
                self.fail(n, f"'{f}' takes no named arguments", "arity")
            return self.inline(n, n.args, scope)
        if f not in BUILTINS:
            if f.startswith("_"):
                self.fail(n, f"names starting with '_' are not allowed", "name")
            self.fail(n, f"unknown function '{f}'{suggest(f, list(BUILTINS) + list(self.defines))}")
        lo, hi, kw, is_stmt = BUILTINS[f]
        if is_stmt and not statement:
            self.fail(n, f"'{f}(...)' is an effect; it cannot be used as a value", "type")
        if not (lo <= len(n.args) <= hi):
            want = str(lo) if lo == hi else f"{lo} to {hi}"
            self.fail(n, f"'{f}' takes {want} argument(s), got {len(n.args)}", "arity")
        for k in n.kwargs:
            if k not in kw:
                self.fail(n, f"'{f}' has no argument '{k}'" + (f"; it takes {', '.join(kw)}" if kw else ""), "arity")
        ts = []
        for i, a in enumerate(n.args):
            n.args[i], t = self.expr(a, scope)
            ts.append(t)
        for k, a in list(n.kwargs.items()):
            n.kwargs[k], _ = self.expr(a, scope)
        if any(isinstance(a, A.Comp) and a.gen for a in n.args) and f not in AGGREGATES:
            self.fail(n, f"'{f}' does not take a 'for' comprehension", "type")

        def need(i, expected, what=None):
            if i < len(ts) and not fits(ts[i], expected):
                self.fail(n.args[i], f"argument {i + 1} of '{f}' should be {what or expected}, this is {ts[i]}", "type")

        if f in ("size",):
            need(0, "list", "a zone or a list")
            return n, "int"
        if f == "count":
            need(0, "list", "a zone or a list")
            return n, "int"
        if f == "sum":
            need(0, "list")
            if ts[0] in ("zone", "cards"):
                self.fail(n, "'sum' adds numbers; write sum(c.value for c in ZONE)", "type")
            return n, "int"
        if f in ("max", "min"):
            if len(ts) == 1:
                need(0, "list")
                return n, "int" if ts[0] in ("list", "players") else "any"
            for i in range(len(ts)):
                need(i, "int")
            return n, "int"
        if f in ("any", "all"):
            need(0, "list")
            return n, "bool"
        if f in ("first", "last"):
            need(0, "list")
            if len(ts) == 2:
                need(1, "int")
                return n, ts[0] if ts[0] != "zone" else "cards"
            return n, ELEM.get(ts[0], "any")
        if f in ("top", "bottom"):
            need(0, "zone")
            if len(ts) == 2:
                need(1, "int")
                return n, "cards"
            return n, "card"
        if f == "cards":
            need(0, "zone")
            return n, "cards"
        if f in ("others", "players_from"):
            need(0, "player")
            return n, "players"
        if f in ("next_player", "prev_player"):
            need(0, "player")
            return n, "player"
        if f == "indices":
            if not (isinstance(n.args[0], A.Name) and getattr(n.args[0], "ref", (None,))[0] == "family"):
                self.fail(n.args[0], "'indices' takes the name of a zone family", "type")
            return n, "list"
        if f == "range":
            need(0, "int")
            need(1, "int")
            return n, "list"
        if f in ("is_max", "is_sole_max"):
            need(0, "list")
            need(1, "int")
            return n, "bool"
        if f in ("dense_rank", "run_length", "index_of"):
            need(0, "list")
            return n, "int"
        if f == "longest_run":
            need(0, "list")
            return n, "int"
        if f == "abs":
            need(0, "int")
            return n, "int"
        if f == "zone_of":
            need(0, "card")
            return n, "zone"
        if f == "face_down":
            need(0, "card")
            return n, "bool"
        if f == "sorted":
            need(0, "list")
            return n, ts[0] if ts[0] != "zone" else "cards"
        if f == "move":
            need(0, "cards", "a card, a list of cards or a zone") if ts[0] != "card" else None
            need(1, "zone")
            self.const_kw(n, "face", ("up", "down"))
            self.const_kw(n, "at", ("top", "bottom"))
            return n, "none"
        if f == "deal":
            need(0, "zone")
            need(1, "zone")
            need(2, "int")
            self.const_kw(n, "face", ("up", "down"))
            return n, "none"
        if f == "shuffle":
            need(0, "zone")
            return n, "none"
        if f == "reveal":
            if ts[0] != "card":
                need(0, "cards", "a card or cards")
            need(1, "player")
            return n, "none"
        return n, "none"  # end_game, end_phase, end_turn

    def const_kw(self, n, key, allowed):
        v = n.kwargs.get(key)
        if v is not None and not (isinstance(v, A.Const) and v.value in allowed):
            self.fail(v, f"'{key}' is one of {', '.join(repr(a) for a in allowed)}", "type")

    # -- actions, flow ------------------------------------------------------------------
    def read_action(self, name, a, glob):
        self.name_ok(name, self.data["actions"], "action")
        scope = glob.child()
        params = []
        for pname, p in (a.get("params") or {}).items():
            where = f"actions.{name}.params.{pname}"
            if not self.name_ok(pname, a["params"], "parameter"):
                continue
            if pname in self.globals or pname in CONSTANTS:
                self.err(f"parameter '{pname}' hides the global name '{pname}'; pick another",
                         self.key_mark(a["params"], pname))
            kinds = [k for k in ("from", "zone", "player", "number", "choice") if k in p]
            if len(kinds) != 1:
                self.err("a parameter has exactly one of from, zone, player, number, choice",
                         self.key_mark(a["params"], pname))
                continue
            k = kinds[0]
            prm = Param(pname, k)
            if k == "from":
                prm.kind = "subset" if "size" in p else "card"
                prm.source = self.expr_rule(p, "from", where + ".from", scope, expect="list")
                if "size" in p:
                    prm.lo = self.expr_rule(p["size"], 0, where + ".size", scope, expect="int")
                    prm.hi = self.expr_rule(p["size"], 1, where + ".size", scope, expect="int")
                t = "cards" if prm.kind == "subset" else "card"
            elif k == "zone":
                prm.family = p["zone"]
                z = self.zones.get(prm.family)
                if z is None or not z.is_family:
                    self.err(f"'{prm.family}' is not a zone family"
                             + suggest(prm.family, [n for n, zz in self.zones.items() if zz.is_family]),
                             self.mark(p, "zone"))
                    continue
                t = "player" if z.per_player else ("int" if all(isinstance(x, int) for x in z.keys) else "str")
            elif k == "player":
                t = "player"
            elif k == "number":
                prm.lo = self.expr_rule(p["number"], 0, where + ".number", scope, expect="int")
                prm.hi = self.expr_rule(p["number"], 1, where + ".number", scope, expect="int")
                t = "int"
            else:
                if isinstance(p["choice"], list):
                    prm.choices = list(p["choice"])
                    t = "str" if all(isinstance(x, str) for x in prm.choices) else \
                        "int" if all(isinstance(x, int) for x in prm.choices) else "any"
                else:
                    prm.source = self.expr_rule(p, "choice", where + ".choice", scope, expect="values")
                    t = "any"
            scope = scope.child({pname: t})
            if "where" in p:
                prm.where = self.expr_rule(p, "where", where + ".where", scope)
            params.append(prm)
        cond = self.expr_rule(a, "if", f"actions.{name}.if", scope)
        cost = []
        for var, amount in (a.get("cost") or {}).items():
            v = self.variables.get(var)
            if v is None or not v.per_player or v.type != "int":
                self.err(f"a cost is paid from a per-player number variable; '{var}' is not one"
                         + suggest(var, [n for n, x in self.variables.items() if x.per_player]),
                         self.key_mark(a["cost"], var))
                continue
            cost.append((var, self.expr_rule(a["cost"], var, f"actions.{name}.cost.{var}", scope, expect="int")))
        effect = self.effects(a, "effect", f"actions.{name}.effect", scope)
        return ActionDecl(name, a.get("label"), params, cond, cost, effect)

    def read_phase(self, name, p, glob):
        self.name_ok(name, self.data["phases"], "phase")
        w = f"phases.{name}"
        on_begin = self.effects(p, "on_begin", w + ".on_begin", glob)
        on_end = self.effects(p, "on_end", w + ".on_end", glob)
        end_if = self.expr_rule(p, "end_if", w + ".end_if", glob)
        nxt = []
        raw = p.get("next", "end")
        if isinstance(raw, str):
            raw_list = [{"goto": raw}]
            containers = [(p, "next")]
        else:
            raw_list = raw
            containers = [(item, "goto") for item in raw]
        for i, item in enumerate(raw_list):
            target = item["goto"]
            cont, key = containers[i]
            if target != "end" and target not in self.phase_names:
                self.err(f"unknown phase '{target}'{suggest(target, self.phase_names + ['end'])}",
                         self.mark(cont, key))
            cond = self.expr_rule(item, "if", f"{w}.next[{i}].if", glob) if "if" in item else None
            nxt.append((cond, target))
        turn = None
        if "turn" in p:
            t = p["turn"]
            tw = w + ".turn"
            turn = TurnDecl(
                first=self.expr_rule(t, "first", tw + ".first", glob, expect="player"),
                next=self.expr_rule(t, "next", tw + ".next", glob, expect="player"),
                on_begin=self.effects(t, "on_begin", tw + ".on_begin", glob),
                on_end=self.effects(t, "on_end", tw + ".on_end", glob),
                end_if=self.expr_rule(t, "end_if", tw + ".end_if", glob),
                steps=self.read_steps(t, "steps", tw + ".steps", glob))
        return PhaseDecl(name, on_begin, on_end, end_if, nxt, turn)

    def read_steps(self, container, key, where, scope):
        out = []
        for i, st in enumerate(container.get(key) or []):
            s = self.read_step(st, f"{where}[{i}]", scope, container[key], i)
            if s is not None:
                out.append(s)
        return out

    def read_step(self, st, w, scope, parent, idx):
        kinds = [k for k in ("do", "choose", "then", "repeat", "while", "for") if k in st]
        if "repeat" in st and isinstance(st["repeat"], bool):
            kinds.remove("repeat")  # 'repeat: true' qualifies a choose
        if len(kinds) != 1:
            self.err("a step has exactly one of: do, choose, if/then, repeat/until, while/steps, for/in"
                     + (f" (found {', '.join(kinds)})" if kinds else ""), self.mark(parent, idx))
            return None
        k = kinds[0]
        s = Step(kind=k if k != "then" else "if", path=w)
        allowed = {"do": {"do", "if", "doc"},
                   "choose": {"choose", "player", "optional", "repeat", "fallback", "if_none", "if", "doc"},
                   "then": {"if", "then", "else", "doc"}, "repeat": {"repeat", "until", "if", "doc"},
                   "while": {"while", "steps", "if", "doc"}, "for": {"for", "in", "steps", "if", "doc"}}[k]
        for extra in st:
            if extra not in allowed:
                self.err(f"'{extra}' does not belong in a '{k}' step", self.key_mark(st, extra))
        if "if" in st and k != "then":
            s.guard = self.expr_rule(st, "if", w + ".if", scope)
        if k == "do":
            s.effect = self.effects(st, "do", w + ".do", scope)
        elif k == "choose":
            for key in ("choose", "fallback"):
                for j, a in enumerate(st.get(key) or []):
                    if a not in self.action_names:
                        self.err(f"unknown action '{a}'{suggest(a, self.action_names)}", self.mark(st[key], j))
            s.actions = list(st["choose"])
            s.fallback = list(st.get("fallback") or [])
            s.player = self.expr_rule(st, "player", w + ".player", scope, expect="player") if "player" in st else None
            s.optional = st.get("optional")
            s.repeat = bool(st.get("repeat", False))
            s.if_none = st.get("if_none", "error")
        elif k == "then":
            s.cond = self.expr_rule(st, "if", w + ".if", scope)
            s.body = self.read_steps(st, "then", w + ".then", scope)
            s.orelse = self.read_steps(st, "else", w + ".else", scope)
        elif k == "repeat":
            if "until" not in st:
                self.err("'repeat' needs 'until: CONDITION'", self.key_mark(st, "repeat"))
            s.body = self.read_steps(st, "repeat", w + ".repeat", scope)
            s.cond = self.expr_rule(st, "until", w + ".until", scope)
        elif k == "while":
            s.cond = self.expr_rule(st, "while", w + ".while", scope)
            s.body = self.read_steps(st, "steps", w + ".steps", scope)
        elif k == "for":
            s.var = st["for"]
            if not NAME_RE.match(s.var) or reserved(s.var) or s.var in self.globals or s.var in CONSTANTS:
                self.err(f"'{s.var}' cannot be a loop variable name", self.mark(st, "for"))
                return None
            if "in" not in st:
                self.err("'for' needs 'in: LIST'", self.key_mark(st, "for"))
                return None
            s.iter = self.expr_rule(st, "in", w + ".in", scope, expect="list")
            et = ELEM.get(getattr(getattr(s.iter, "ast", None), "t", "list"), "any")
            s.body = self.read_steps(st, "steps", w + ".steps", scope.child({s.var: et}))
        return s


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
