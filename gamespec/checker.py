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
from .model import (ActionDecl, CardClass, MarkDecl, Param, PhaseDecl, Rule, Spec, Step, TurnDecl, VarDecl,
                    ZoneDecl)
from .model import plain
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


INT_LIMIT = 1 << 63   # the engine's number range (interpreter/serial.py): |n| < 2**63

# What each kind is called in messages: the spec's words, never Python's.
KIND_WORDS = {"int": "a number", "bool": "true/false", "str": "a text", "none": "none", "card": "a card",
              "player": "a player", "zone": "a zone", "family": "a zone family", "cards": "a list of cards",
              "players": "a list of players", "list": "a list", "any": "a value"}

# Kinds that can be compared with '==' (a number and a player are both numbers); none and any match all.
_SORT = {"int": "number", "player": "number", "bool": "bool", "str": "text", "card": "card",
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
    "distinct": (1, 1, (), False), "count_by": (1, 1, (), False),
    "move": (2, 2, ("face", "at"), True), "deal": (2, 3, ("face",), True), "shuffle": (1, 1, (), True),
    "reveal": (2, 2, (), True), "end_game": (0, 0, (), True), "end_phase": (0, 0, (), True),
    "end_turn": (0, 0, (), True),
    "mark": (2, 2, (), False), "set_mark": (3, 3, (), True),
}
AGGREGATES = {"count", "sum", "max", "min", "any", "all", "first", "last", "sorted"}
CONSTANTS = {"players": "players", "num_players": "int", "current": "player", "actor": "player"}
RESERVED_ACTIONS = {"skip"}
NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
LABEL_PLACEHOLDER = re.compile(r"\{([^{}\n]*)\}")
EACH_RANGE = re.compile(r"^\s*range\(\s*(-?[0-9]{1,9})\s*(?:,\s*(-?[0-9]{1,9})\s*)?\)\s*$")
MAX_EACH = 100                    # values in one `each` list (written out or as a range)
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


# Names authors reach for from other languages -> the built-in that does it.
ALIASES = {"len": "size", "length": "size", "sort": "sorted", "maximum": "max", "minimum": "min"}


def _edits(a: str, b: str, limit: int) -> int:
    """Levenshtein distance, or limit + 1 once it is sure to exceed `limit` (band of width 2*limit)."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [limit + 1] * len(b)
        lo, hi = max(1, i - limit), min(len(b), i + limit)
        for j in range(lo, hi + 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != b[j - 1]))
        if min(cur[max(0, lo - 1):hi + 1]) > limit:
            return limit + 1
        prev = cur
    return min(prev[-1], limit + 1)


MAX_SUGGEST_WORK = 1_000_000   # comparison steps for did-you-mean hints, all errors of a spec (~1 s)


def suggest(name: str, candidates, budget: list | None = None) -> str:
    """'; did you mean X?' for the closest candidate: fewest edits first, then difflib's likeness.
    `budget` ([work left]) bounds the work over all of a spec's errors (a hostile spec may have
    thousands of misspelt names and hundreds of near-identical candidates)."""
    cands = sorted(set(c for c in candidates if isinstance(c, str)))
    name = str(name)[:64]
    limit = max(1, len(name) // 4)
    if budget is not None:
        budget[0] -= len(cands) * (len(name) + 1) * (2 * limit + 1)
        if budget[0] < 0:
            return ""
    low = name.lower()
    scored = []
    for c in cands:
        d = _edits(low, c.lower()[:64], limit)
        if d <= limit:
            scored.append((d, c))
    if scored:
        least = min(d for d, _ in scored)
        ties = sorted(c for d, c in scored if d == least)[:5]
        best = max(ties, key=lambda c: difflib.SequenceMatcher(None, name, c).ratio())
    else:
        close = difflib.get_close_matches(name, cands, n=1, cutoff=0.6)
        if not close:
            return ""
        best = close[0]
    return f"; did you mean '{best}'?"


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
        self._suggest_budget = [MAX_SUGGEST_WORK]
        self.broken_defines: set = set()   # defines that failed to parse: their uses say nothing more
        self.named_effects: dict = {}       # name -> (params, Rule): reusable blocks of effects
        self.broken_effects: set = set()
        self._effect_stack: list = []       # named effects being inlined (a cycle is an error)
        self._inlining: list = []
        self._rule_chars = 0        # all rule text parsed so far
        self._inlined_total = 0     # nodes added by inlining defines, all rules
        self._inlined_rule = 0      # ... in the rule being checked
        self._depth = 0             # expression nesting while checking (defines inlined)
        self._brackets = 0
        self._loops = 0             # for/while statement nesting
        self._faces = 0             # card faces expanded so far
        self._sizes: list = []      # sizes decided at set-up (zone and face counts): checked once names exist

    # -- positions and errors
    def hint(self, name, candidates) -> str:
        return suggest(name, candidates, self._suggest_budget)

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
        # a define's body is checked at each use: one mistake in it is still one error
        if any(e.line == pos[0] and e.col == pos[1] and e.message == msg for e in self.errors[-50:]):
            return
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
            called = getattr(e, "assigned", None)
            if called is not None and called in self.define_names():
                e = SpecError(f"'{called}' is a define (a named expression); only variables can be assigned: "
                              "declare it under variables:", e.filename, e.line, e.col, e.check)
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
        self.check_players(d)
        for name, o in (d.get("options") or {}).items():
            self.name_ok(name, d["options"], "option")
            self.check_option(name, o)
            self.option_defaults[name] = o["default"]
            self.option_values[name] = o.get("values")
        self.zones = self.read_zones(d["zones"])
        self.variables = self.read_variables(d.get("variables") or {})
        self.marks = self.read_marks(d.get("marks") or {})
        self.tables = {}
        for name, t in (d.get("tables") or {}).items():
            self.name_ok(name, d["tables"], "table")
            self.tables[name] = {self.table_key(k): v for k, v in t.items()}
            if out_of_range(t):
                self.err(f"table '{name}' holds a number beyond the engine's range (-2**63, 2**63)",
                         self.mark(d["tables"], name), "int-size")
        self.classes, self.attributes, self.attr_values = self.read_cards(d["cards"])
        self.phase_names = list(d["phases"])
        self.action_names = list(d.get("actions") or {})
        self.global_names()
        self.read_defines(d.get("define") or {})
        self.read_named_effects(d.get("effects") or {})
        self.check_sizes()

        glob = Scope(dict(CONSTANTS))
        self.glob = glob
        self.check_named_effects(glob)
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
            self.err(f"unknown start phase '{start}'{self.hint(start, phases)}", self.mark(d, "start"))
        triggers = []
        for name, t in (d.get("triggers") or {}).items():
            c = self.expr_rule(t, "if", f"triggers.{name}.if", glob)
            e = self.effects(t, "effect", f"triggers.{name}.effect", glob)
            triggers.append((name, c, e))
        sc = d.get("scoring") or {}
        pscope = glob.child({"p": "player"})
        coop = bool(sc.get("cooperative"))
        if coop:    # one team score (no seat p), a success condition; no winner direction, no ties
            for key in ("winner", "tie_breakers", "teams"):
                if key in sc:
                    self.err(f"a cooperative scoring has no '{key}' (one team score; 'success' says "
                             "whether the team won)", self.mark(sc, key))
            if "success" not in sc:
                self.err("a cooperative scoring needs 'success': a condition saying whether the team won",
                         self.mark(d, "scoring"))
        elif "success" in sc:
            self.err("'success' belongs to a cooperative scoring (add 'cooperative: true')",
                     self.mark(sc, "success"))
        score = self.expr_rule(sc, "score", "scoring.score", glob if coop else pscope, expect="number") if sc else None
        success = self.expr_rule(sc, "success", "scoring.success", glob) if coop else None
        teams = self.expr_rule(sc, "teams", "scoring.teams", pscope, expect="number") if sc else None
        ties = []
        for i, _ in enumerate(sc.get("tie_breakers") or []):
            ties.append(self.expr_rule(sc["tie_breakers"], i, f"scoring.tie_breakers[{i}]", pscope,
                                       expect="number"))
        lim = d.get("limits") or {}
        if self.errors:
            raise SpecErrors(self.errors)
        lo, hi = d["players"]
        return plain(Spec(name=str(d["name"]), filename=self.filename, sha256=self.sha256,
                    min_players=lo, max_players=hi, options=self.option_defaults,
                    option_values=self.option_values, classes=self.classes,
                    attributes=self.attributes, zones=self.zones, variables=self.variables,
                    tables=self.tables, on_begin=on_begin, end_if=end_if, on_end=on_end, start=start,
                    phases=phases, actions=actions, triggers=triggers, score=score,
                    winner=sc.get("winner", "highest"), tie_breakers=ties, cooperative=coop, success=success,
                    teams=teams, marks=self.marks,
                    steps_per_decision=lim.get("steps_per_decision", 100_000),
                    decisions_per_game=lim.get("decisions_per_game", 100_000),
                    steps_per_game=lim.get("steps_per_game", 5_000_000)))

    def define_names(self):
        out = set()
        for key in (self.data.get("define") or {}):
            m = DEFINE_RE.match(str(key))
            if m:
                out.add(m.group(1))
        return out

    def table_key(self, k):
        return k

    def check_players(self, d):
        ps = d["players"]
        if len(ps) != 2 or any(type(x) is not int for x in ps):
            self.err("players is [FEWEST, MOST], two whole numbers such as [2, 4]", self.mark(d, "players"),
                     "players")
        elif ps[0] > ps[1]:
            self.err(f"players: the fewest ({ps[0]}) is more than the most ({ps[1]}); write "
                     f"[{ps[1]}, {ps[0]}]", self.mark(d, "players"), "players")

    def check_option(self, name, o):
        default, values = o["default"], o.get("values")
        if type(default) not in (bool, int) or out_of_range(default):
            self.err(f"option '{name}': the default is true, false or a whole number", self.mark(o, "default"),
                     "option")
            return
        if values is None:
            return
        if isinstance(default, bool):
            self.err(f"option '{name}' is true or false; it takes no 'values'", self.mark(o, "values"), "option")
        elif any(type(v) is not int or out_of_range(v) for v in values):
            self.err(f"option '{name}': values are whole numbers", self.mark(o, "values"), "option")
        elif default not in values:
            self.err(f"option '{name}': the default {default} is not one of its values "
                     f"{', '.join(map(str, values))}", self.mark(o, "default"), "option")

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
            count = None
            if "count" in z and isinstance(z["count"], str):
                count = self.rule(z, "count", f"zones.{name}.count")   # checked in check_sizes
                if count is not None:
                    self._sizes.append(count)
            elif "count" in z:
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
                                 oe.get("refill_from"), oe.get("shuffle", True), policy, count)
        for name, z in out.items():
            if z.refill_from is not None:
                src = out.get(z.refill_from)
                if src is None:
                    self.err(f"unknown zone '{z.refill_from}'{self.hint(z.refill_from, out)}",
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
            if t in ("int", "player") and init is not None and type(init) is not int:
                self.err(f"initial value of a {t} variable must be an integer", self.mark(v, "initial"))
            elif t == "bool" and type(init) is not bool:
                self.err("initial value of a bool variable is true or false", self.mark(v, "initial"), "type")
            elif t == "str" and not isinstance(init, str):
                self.err("initial value of a str variable is a text", self.mark(v, "initial"), "type")
            elif t == "list" and not isinstance(init, list):
                self.err("initial value of a list variable is a list", self.mark(v, "initial"), "type")
            if out_of_range(init):
                self.err(f"initial value {init!r} is beyond the engine's number range (-2**63, 2**63)",
                         self.mark(v, "initial"), "int-size")
            if t in ("card", "cards") and init not in (None, []):
                self.err("card variables start empty (none or [])", self.mark(v, "initial"))
            if v.get("visibility") == "owner" and not v.get("per_player"):
                self.err("visibility 'owner' needs per_player: true", self.mark(v, "visibility"))
            out[name] = VarDecl(name, t, bool(v.get("per_player")), init, v.get("visibility", "public"))
        return out

    def read_marks(self, ms):
        """Per-card marks: an int or a bool per card, its initial value and who sees it."""
        out = {}
        for name, m in ms.items():
            self.name_ok(name, ms, "mark")
            t = m.get("type", "int")
            init = m.get("initial", False if t == "bool" else 0)
            if t == "int" and type(init) is not int:
                self.err("initial value of an int mark is a whole number", self.mark(m, "initial"), "type")
            elif t == "bool" and type(init) is not bool:
                self.err("initial value of a bool mark is true or false", self.mark(m, "initial"), "type")
            elif out_of_range(init):
                self.err(f"initial value {init!r} is beyond the engine's number range (-2**63, 2**63)",
                         self.mark(m, "initial"), "int-size")
            out[name] = MarkDecl(name, t, init, m.get("visibility", "zone"), bool(m.get("reset_on_shuffle")))
        return out

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

    def read_cards(self, cards):
        classes, attrs, values = [], ["type"], {"type": set()}
        for cname, c in cards.items():
            self.name_ok(cname, cards, "card class")
            values["type"].add(cname)
            faces = []
            for i, f in enumerate(c["faces"]):
                fixed = {k: v for k, v in f.items() if k not in ("count", "each", "zone", "if")}
                if out_of_range(fixed) or out_of_range(f.get("each")):
                    self.err("a card attribute holds a number beyond the engine's range (-2**63, 2**63)",
                             self.mark(c["faces"], i), "int-size")
                for k in fixed:
                    if k == "type" or not NAME_RE.match(str(k)) or reserved(k):
                        self.err(f"'{k}' cannot be an attribute name", self.key_mark(f, k), "name")
                each = self.each_lists(f)
                count = f.get("count", 1)
                if isinstance(count, str):    # decided at set-up from num_players and options
                    count = self.rule(f, "count", f"cards.{cname}.faces[{i}].count")
                    if count is None:
                        continue
                    self._sizes.append(count)
                n = math.prod(len(v) for v in each.values())   # before expanding anything
                if n * (max(count, 1) if isinstance(count, int) else 1) > 10_000:
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
            if "label" in c:
                names = {k for f in faces for k in f[0]} | {"type"}
                self.check_label(c, "label", sorted(names), "an attribute of these cards")
            classes.append(CardClass(cname, zone, cond, c.get("label"), faces))
        total = sum(f[1] if isinstance(f[1], int) else 1 for cl in classes for f in cl.faces)   # set-up sizes: see Ruleset
        if total > 100_000:
            self.err(f"{total} cards; the limit is 100000", self.mark(self.data, "cards"), "card-count")
        return classes, attrs, values

    def each_lists(self, f):
        """A face's `each` lists; a list may be written `range(a, b)` (or `range(n)`): a..b-1, at most
        MAX_EACH values like a written list."""
        out = {}
        for k, v in (f.get("each") or {}).items():
            if isinstance(v, str):
                m = EACH_RANGE.match(v)
                if not m:
                    self.err(f"each.{k}: a list of values, or range(a, b) with whole numbers; not {v!r}",
                             self.mark(f["each"], k), "each")
                    v = []
                else:
                    lo, hi = (0, int(m.group(1))) if m.group(2) is None else (int(m.group(1)), int(m.group(2)))
                    if hi - lo > MAX_EACH:
                        self.err(f"each.{k}: {v.strip()} has {max(hi - lo, 0)} values; an 'each' list has at most "
                                 f"{MAX_EACH}", self.mark(f["each"], k), "each")
                        v = []
                    elif hi <= lo:
                        self.err(f"each.{k}: {v.strip()} has no values", self.mark(f["each"], k), "each")
                        v = []
                    else:
                        v = list(range(lo, hi))
            out[k] = v
        return out

    def check_label(self, container, key, allowed, what, scope=None, exprs=None):
        """A label's `{name}` placeholders name only `allowed` things (parameters, or a card's
        attributes): anything else would be shown literally, so it is an error here. An action's
        label (`exprs` is a list) may also hold expressions over its parameters, checked here."""
        text = container[key]
        for m in LABEL_PLACEHOLDER.finditer(str(text)):
            inner = m.group(1)
            if NAME_RE.match(inner) and inner in allowed:
                continue
            start = m.start()
            line = str(text).count("\n", 0, start) + 1
            col = start - (str(text).rfind("\n", 0, start) + 1) + 1
            locate = getattr(text, "locate", None)
            if locate is not None:
                pos = locate(line, col)[:2]
            else:
                base = self.mark(container, key)
                pos = (base[0], base[1] + col - 1)
            if exprs is not None and not (NAME_RE.match(inner.strip()) and inner.strip() not in allowed):
                self.label_expr(inner, pos, scope, exprs)
                continue
            if not NAME_RE.match(inner.strip()):
                self.err(f"'{{{inner}}}': a label shows {what}, named in braces such as "
                         f"{{{allowed[0] if allowed else 'name'}}}; expressions are not allowed", pos, "label")
            else:
                self.err(f"'{{{inner}}}' is not {what}"
                         + (self.hint(inner.strip(), allowed) or
                            (f"; these are {', '.join(allowed)}" if allowed else "; there are none")),
                         pos, "label")

    LABEL_CALLS = ("abs", "max", "min", "size")

    def label_expr(self, inner, pos, scope, exprs):
        """`{expression}` in an action label: built from the action's parameters alone (never the
        game state, so a label cannot leak what the chooser may not know): numbers, players, keys and
        choices, `card.attr` of a card parameter (shown only if the chooser sees the card), options,
        tables, `num_players`, arithmetic, comparisons, `a if c else b`, abs/max/min/size."""
        src = Located(inner, self.filename, lambda ln, c, b=pos: (b[0], b[1] + c), "label")
        self._rule_chars += len(inner)      # label expressions count towards the spec's rule total
        try:
            node = parse(src, "expr")
        except SpecError as e:
            self.errors.append(e)
            return
        r = Rule(node, "label", self.filename, pos[0], pos[1] + 1, inner)
        n_errors = len(self.errors)
        self.check_rule(r, scope)
        if len(self.errors) > n_errors:
            return
        if self.params_only(r, scope, f"'{{{inner}}}': a label"):
            exprs.append((inner, r))

    def params_only(self, r, scope, what):
        """A checked expression reads only the action's parameters, options, tables and num_players
        (a label, a simultaneous step's order): True, or False after reporting the first other node."""
        cards = {n for n in scope.all() if scope.get(n) in ("card", "cards")}
        under_attr = {id(x.obj) for x in A.walk(r.ast) if isinstance(x, A.Attr)}
        under_size = {id(a) for x in A.walk(r.ast) if isinstance(x, A.Call) and x.func == "size" for a in x.args}
        for x in A.walk(r.ast):
            ref = getattr(x, "ref", None)
            ok = isinstance(x, (A.Const, A.BinOp, A.Compare, A.BoolOp, A.Unary, A.IfExp, A.ListLit))
            if isinstance(x, A.Name):
                ok = ref is not None and (ref[0] == "option" or (ref[0] == "const" and x.id in ("num_players",))
                                          or (ref[0] == "local" and scope.get(x.id) is not None))
                if ok and x.id in cards and id(x) not in under_attr and id(x) not in under_size:
                    if what.endswith("a label"):
                        self.err(f"{what[:-len(': a label')]}: a card parameter shows as {{{x.id}}} or "
                                 f"{{{x.id}.attr}} in a label", (x.line, x.col), "label")
                    else:
                        self.err(f"{what} reads a card parameter by an attribute ({x.id}.attr) or its "
                                 f"size, not as a card", (x.line, x.col), "label")
                    return False
            elif isinstance(x, A.Attr):
                ok = isinstance(x.obj, A.Name) and x.obj.id in cards and scope.get(x.obj.id) == "card"
            elif isinstance(x, A.Index):
                ok = ref is not None and ref[0] == "table"
                if ok:
                    under_attr.add(id(x.obj))
            elif isinstance(x, A.Call):
                ok = x.func in self.LABEL_CALLS and not x.kwargs and not any(
                    isinstance(a, A.Comp) for a in x.args)
            if not ok and not (isinstance(x, A.Name) and id(x) in under_attr and ref is None):
                self.err(f"{what} is built from the action's parameters, options, tables and "
                         f"num_players only (never the game's state, which the chooser may not know)",
                         (x.line, x.col), "label")
                return False
        return True

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
            else:
                self.broken_defines.add(name)

    SIZE_CALLS = ("max", "min", "abs")

    def check_sizes(self):
        """A size decided at set-up (a family's or a face's `count`) is a whole number computed from
        numbers, num_players and options only: no zone, variable, card or player is known yet."""
        for r in self._sizes:
            for n in A.walk(r.ast):
                ok = isinstance(n, (A.Const, A.BinOp, A.Compare, A.BoolOp, A.Unary, A.IfExp)) or (
                    isinstance(n, A.Name) and (n.id == "num_players" or self.globals.get(n.id) == "option")) or (
                    isinstance(n, A.Call) and n.func in self.SIZE_CALLS and not n.kwargs
                    and not any(isinstance(a, A.Comp) for a in n.args))
                if isinstance(n, A.BinOp) and n.op == "**":
                    ok = False
                if not ok:
                    what = f"'{n.id}'" if isinstance(n, A.Name) else "this"
                    self.err(f"{what} cannot decide a size at set-up: a size is computed from numbers, num_players "
                             f"and options ({', '.join(self.SIZE_CALLS)}, arithmetic and 'if ... else' allowed)",
                             (n.line, n.col), "size")
                    break
            else:
                self.check_rule(r, Scope(dict(CONSTANTS)), "number")
                self.try_sizes(r)

    def try_sizes(self, r):
        """Evaluate a set-up size for every player count and option set (when there are at most 1000
        of them), so that a size out of range is a validate-time error, not a surprise at set-up."""
        from .compile.closures import size_value
        ps = self.data.get("players")
        if not (isinstance(ps, list) and len(ps) == 2 and all(type(x) is int for x in ps) and ps[0] <= ps[1]):
            return      # reported by check_players
        lo, hi = ps
        names = list(self.option_defaults)
        choices = [self.option_values.get(n) or ([False, True] if isinstance(self.option_defaults[n], bool)
                                                 else [self.option_defaults[n]]) for n in names]
        if math.prod(len(c) for c in choices) * (hi - lo + 1) > 1000:
            choices = [[self.option_defaults[n]] for n in names]
        low = 0 if ".faces[" in r.where else 1
        for P in range(lo, hi + 1):
            for combo in itertools.product(*choices):
                try:
                    size_value(r, P, dict(zip(names, combo)), low, 1000)
                except SpecError as e:
                    opts = ", ".join(f"{n}={v}" for n, v in zip(names, combo))
                    self.err(e.message.replace("these options", f"options {opts}" if opts else "no options"),
                             (r.line, r.col), "size")
                    return

    def read_named_effects(self, effs):
        """`effects: {NAME(a, b): EFFECTS}`: blocks of effects called as statements, inlined at check
        time like defines (hygienic: the body sees only its parameters and global names)."""
        for key in effs:
            m = DEFINE_RE.match(str(key))
            if not m:
                self.err(f"named effect {key!r} should look like 'name' or 'name(a, b)'", self.key_mark(effs, key))
                continue
            name = m.group(1)
            params = [p.strip() for p in (m.group(2) or "").split(",") if p.strip()]
            bad = [x for x in [name] + params if reserved(x) or not NAME_RE.match(x)]
            if bad:
                self.err(f"named effect {key!r}: '{bad[0]}' is not a valid name (names starting with '_' are "
                         "reserved)", self.key_mark(effs, key), "name")
                continue
            clash = [x for x in params if x in self._seen or x in CONSTANTS]
            if name in self._seen or name in BUILTINS or name in CONSTANTS or clash:
                self.err(f"'{clash[0] if clash else name}' is already a name", self.key_mark(effs, key))
                continue
            if len(set(params)) != len(params):
                self.err(f"named effect {key!r} names a parameter twice", self.key_mark(effs, key), "name")
                continue
            r = self.rule(effs, key, f"effects.{name}", "effects")
            if r is not None:
                self.named_effects[name] = (params, r)
                self._seen[name] = "named effect"
            else:
                self.broken_effects.add(name)

    def check_named_effects(self, glob):
        """Each named effect is checked once on its own (parameters of any kind), so a mistake in one
        that is never called, or a cycle between them, is still reported."""
        for name, (params, r) in self.named_effects.items():
            self._inlined_rule = 0
            self._effect_stack = [name]
            try:
                self.stmts(clone_stmts(r.ast), glob.child({p: "any" for p in params}))
            except _Abort:
                pass
            finally:
                self._effect_stack = []

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
                    self.fail(tgt, self.not_assignable(tgt.id, scope))
                if v.per_player:
                    self.fail(tgt, f"'{tgt.id}' is per player; write {tgt.id}[player]", "type")
                tgt.ref = ("var", v)
            else:
                v = self.variables.get(tgt.obj.id)
                if v is None:
                    self.fail(tgt, self.not_assignable(tgt.obj.id, scope))
                if not v.per_player:
                    self.fail(tgt, f"'{v.name}' is not per player; write {v.name} = ...", "type")
                tgt.index, it = self.expr(tgt.index, scope)
                tgt.ref = ("pvar", v)
            if s.op != "=" and v.type not in ("int", "list", "cards", "player"):
                self.fail(s, f"'{s.op}' needs a number variable; '{v.name}' is {v.type}", "type")
            self.check_store(s, v, vt)
            return s
        if isinstance(s, A.CallStmt):
            c = s.call
            if c.func in self.named_effects:
                return self.inline_effect(c, scope)
            if c.func in self.broken_effects:
                raise _Abort()      # its own error is reported where it is defined
            if c.func not in BUILTINS or not BUILTINS[c.func][3]:
                if c.func in BUILTINS:
                    self.fail(c, f"'{c.func}(...)' is a value, not an effect; use it inside a statement")
                self.fail(c, f"unknown effect '{c.func}'"
                             f"{self.hint(c.func, [k for k, v in BUILTINS.items() if v[3]] + list(self.named_effects))}")
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
        if f in self.named_effects:
            self.fail(n, f"'{f}(...)' is a named effect; call it as a statement, not as a value", "type")
        if f not in BUILTINS:
            if f.startswith("_"):
                self.fail(n, f"names starting with '_' are not allowed", "name")
            if f in self.broken_defines:
                raise _Abort()      # its own error is reported where it is defined
            hint = f"; did you mean '{ALIASES[f]}'?" if f in ALIASES else \
                self.hint(f, [b for b in BUILTINS if not BUILTINS[b][3] or statement] + list(self.defines))
            self.fail(n, f"unknown function '{f}'{hint}")
        lo, hi, kw, is_stmt = BUILTINS[f]
        if is_stmt and not statement:
            self.fail(n, f"'{f}(...)' is an effect; it cannot be used as a value", "type")
        if not (lo <= len(n.args) <= hi):
            want = str(lo) if lo == hi else f"{lo} to {hi}"
            self.fail(n, f"'{f}' takes {want} argument(s), got {len(n.args)}", "arity")
        for k in n.kwargs:
            if k not in kw:
                self.fail(n, f"'{f}' has no argument '{k}'" + (f"; it takes {', '.join(kw)}" if kw else ""), "arity")
        if f in ("mark", "set_mark") and len(n.args) > 1 and isinstance(n.args[1], A.Name):
            self.mark_name(n, f)      # `mark(c, hint)`: the name wants quotes, whatever `hint` is
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
            n.elem = "int"
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
        if f == "distinct":
            need(0, "list", "a zone or a list")
            n.elem = elem_type(n.args[0], ts[0])
            return n, ts[0] if ts[0] != "zone" else "cards"
        if f == "count_by":
            need(0, "list", "a zone or a list")
            n.elem = "int"
            return n, "list"
        if f == "mark":
            if not fits(ts[0], "card"):
                self.fail(n.args[0], f"argument 1 of 'mark' should be a card, this is "
                                     f"{self.described(n.args[0], ts[0])}", "type")
            n.mark = self.mark_name(n, f)
            return n, n.mark.type
        if f == "set_mark":
            if not card_like(n.args[0], ts[0]):
                self.fail(n.args[0], f"argument 1 of 'set_mark' should be a card, a list of cards or a zone, "
                                     f"this is {self.described(n.args[0], ts[0])}", "type")
            n.mark = self.mark_name(n, f)
            if not assignable(ts[2], n.mark.type, n.args[2]):
                want = "true or false" if n.mark.type == "bool" else "a number"
                self.fail(n.args[2], f"mark '{n.mark.name}' holds {words(n.mark.type)}; argument 3 of "
                                     f"'set_mark' should be {want}, this is {words(ts[2])}", "type")
            return n, "none"
        if f in ("move", "reveal") and not card_like(n.args[0], ts[0]):
            self.fail(n.args[0], f"argument 1 of '{f}' should be a card, a list of cards or a zone, this is "
                                 f"{self.described(n.args[0], ts[0])}", "type")
        if f == "move":
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
                prm.source = self.expr_rule(p, "from", where + ".from", scope, expect="cards")
                if "size" in p:
                    prm.lo = self.expr_rule(p["size"], 0, where + ".size", scope, expect="number")
                    prm.hi = self.expr_rule(p["size"], 1, where + ".size", scope, expect="number")
                t = "cards" if prm.kind == "subset" else "card"
            elif k == "zone":
                prm.family = p["zone"]
                z = self.zones.get(prm.family)
                if z is None or not z.is_family:
                    self.err(f"'{prm.family}' is not a zone family"
                             + self.hint(prm.family, [n for n, zz in self.zones.items() if zz.is_family]),
                             self.mark(p, "zone"))
                    continue
                t = "player" if z.per_player else ("int" if z.keys is None or all(isinstance(x, int) for x in z.keys) else "str")
            elif k == "player":
                t = "player"
            elif k == "number":
                prm.lo = self.expr_rule(p["number"], 0, where + ".number", scope, expect="number")
                prm.hi = self.expr_rule(p["number"], 1, where + ".number", scope, expect="number")
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
                         + self.hint(var, [n for n, x in self.variables.items() if x.per_player]),
                         self.key_mark(a["cost"], var))
                continue
            cost.append((var, self.expr_rule(a["cost"], var, f"actions.{name}.cost.{var}", scope, expect="number")))
        effect = self.effects(a, "effect", f"actions.{name}.effect", scope)
        self.__dict__.setdefault("action_params", {})[name] = (scope, [p.name for p in params])
        label_exprs = []
        if "label" in a:
            self.check_label(a, "label", [p.name for p in params], "a parameter of this action",
                             scope, label_exprs)
        return ActionDecl(name, a.get("label"), params, cond, cost, effect, label_exprs)

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
                self.err(f"unknown phase '{target}'{self.hint(target, self.phase_names + ['end'])}",
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
        kinds = [k for k in ("do", "choose", "simultaneous", "then", "repeat", "while", "for") if k in st]
        if "repeat" in st and isinstance(st["repeat"], bool):
            kinds.remove("repeat")  # 'repeat: true' qualifies a choose
        if len(kinds) != 1:
            self.err("a step has exactly one of: do, choose, simultaneous, if/then, repeat/until, "
                     "while/steps, for/in" + (f" (found {', '.join(kinds)})" if kinds else ""),
                     self.mark(parent, idx))
            return None
        if kinds[0] == "simultaneous":
            return self.read_simultaneous(st, w, scope)
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
                        self.err(f"unknown action '{a}'{self.hint(a, self.action_names)}", self.mark(st[key], j))
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
            node = getattr(s.iter, "ast", None)
            et = elem_type(node, getattr(node, "t", "list"))
            s.body = self.read_steps(st, "steps", w + ".steps", scope.child({s.var: et}))
        return s


    SIM_VAR = "chooser"     # the loop variable of a simultaneous step (the spec never sees it)

    def read_simultaneous(self, st, w, scope):
        """`simultaneous: [ACTION, ...]` → a `for` over `players` whose body is one secret choose
        (docs/language.md, "Simultaneous choices"); `order` is checked against every listed action."""
        for extra in st:
            if extra not in ("simultaneous", "players", "order", "optional", "if_none", "if", "doc"):
                why = {"player": "; the choosers are 'players' (a list)",
                       "repeat": "; each listed player chooses once",
                       "fallback": "; list every action in 'simultaneous'"}.get(extra, "")
                self.err(f"'{extra}' does not belong in a 'simultaneous' step{why}", self.key_mark(st, extra))
        names = list(st["simultaneous"])
        for j, a in enumerate(names):
            if a not in self.action_names:
                self.err(f"unknown action '{a}'{self.hint(a, self.action_names)}", self.mark(st["simultaneous"], j))
        s = Step(kind="for", path=w, var=self.SIM_VAR, simultaneous=True)
        if "if" in st:
            s.guard = self.expr_rule(st, "if", w + ".if", scope)
        if "players" in st:
            s.iter = self.expr_rule(st, "players", w + ".players", scope, expect="list")
            node = getattr(s.iter, "ast", None)
            if node is not None and elem_type(node, getattr(node, "t", "list")) not in ("player", "int", "any"):
                self.err(f"'players' is the list of the players who choose, but it is "
                         f"{self.described(node, node.t)}", (node.line, node.col), "type")
        else:
            line, col = self.key_mark(st, "simultaneous")
            s.iter = Rule(A.Name(line, col, id="players"), w + ".players", self.filename, line, col, "players")
            self.check_rule(s.iter, scope, expect="list")
        line, col = self.key_mark(st, "simultaneous")
        inner = scope.child({self.SIM_VAR: "player"})
        who = Rule(A.Name(line, col, id=self.SIM_VAR), w + ".players", self.filename, line, col, self.SIM_VAR)
        self.check_rule(who, inner, expect="player")
        ch = Step(kind="choose", path=w + ".simultaneous", actions=names, player=who, optional=st.get("optional"),
                  if_none=st.get("if_none", "error"), simultaneous=True)
        if "order" in st:
            s.order = self.simultaneous_order(st, w, names)
        s.body = [ch]
        return s

    def simultaneous_order(self, st, w, names):
        """The resolution key: a number built from parameters every listed action has (a label
        expression: the same evaluator, whatever the backend), checked in each action's scope."""
        r = self.rule(st, "order", w + ".order")
        if r is None:
            return None
        params = {a: self.__dict__.get("action_params", {}).get(a) for a in names}
        glob = set(self.globals) | set(CONSTANTS) | set(self.option_defaults)
        read = []
        for x in A.walk(r.ast):
            if isinstance(x, A.Name) and x.id not in glob and x.id not in read:
                read.append(x)
        for x in read:
            for a, ps in params.items():
                if ps is not None and x.id not in ps[1]:
                    self.err(f"order reads '{x.id}', which action '{a}' does not have: the order of a "
                             f"simultaneous step reads only parameters every listed action has"
                             + (f" ({', '.join(ps[1])})" if ps[1] else " (it has none)"),
                             (x.line, x.col), "name")
                    return None
        checked = None
        for a, ps in params.items():
            if ps is None:
                continue
            n0 = len(self.errors)
            one = self.rule(st, "order", w + ".order")      # parsed again: checking annotates the AST
            self.check_rule(one, ps[0], expect="number")
            if len(self.errors) > n0 or not self.params_only(one, ps[0], "the order of a simultaneous step"):
                return None
            checked = one
        return checked


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
