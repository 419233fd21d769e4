"""Schema-valid YAML data → checked Spec: the checker. This half reads the declarations (players,
options, zones, variables, marks, tables, cards, defines, named effects, actions, phases and steps,
scoring), parses every rule and hands it to the type-checking half (`types.py`); every error of a spec
is collected, not only the first."""
from __future__ import annotations

import itertools
import math
import re

from ..errors import SpecError, SpecErrors
from ..mirrors import DECISIONS_PER_GAME, MAX_FACES, STEPS_PER_DECISION, STEPS_PER_GAME
from . import ast as A
from .builtins import BUILTINS, CONSTANTS
from .model import (ActionDecl, CardClass, MarkDecl, Param, PhaseDecl, Rule, Spec, Step, TurnDecl, VarDecl,
                    ZoneDecl)
from .model import plain
from .parser import MAX_RULE_CHARS, Located, parse
from .sizes import MAX_CARDS
from .suggest import MAX_SUGGEST_WORK
from .visibility import VISIBILITIES
from .types import MAX_INLINE_NODES_RULE, Scope, TypeChecker, _Abort, _size as _node_count, clone_stmts, elem_type, out_of_range


RESERVED_ACTIONS = {"skip"}
NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
LABEL_PLACEHOLDER = re.compile(r"\{([^{}\n]*)\}")
EACH_RANGE = re.compile(r"^\s*range\(\s*(-?[0-9]{1,9})\s*(?:,\s*(-?[0-9]{1,9})\s*)?\)\s*$")
MAX_EACH = 100                    # values in one `each` list (written out or as a range)
DEFINE_RE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\(\s*([A-Za-z_0-9,\s]*)\)\s*)?$")


# Caps that keep checking and compiling a hostile spec bounded (each names the check that fires).
MAX_SPEC_RULE_CHARS = 100_000     # all rule strings of one spec together ("rule-total")
# MAX_FACES (gamespec/mirrors.py): faces all card classes expand to ("card-count"); each is laid out
                                  # and labelled for every player count and option set compiled
MAX_FLOW_DEPTH = 8                # step lists nested in a turn: then/else, repeat, while, for ("flow-size")
MAX_FLOW_STEPS = 1_000            # steps of every turn together, nested ones included ("flow-size")
MAX_WINDOWS = 100                 # reaction windows of every turn together ("flow-size")


def reserved(name) -> bool:
    """Names starting with '_' are reserved: a spec can never name anything of the implementation."""
    return isinstance(name, str) and name.startswith("_")


def _param_kinds(actions):
    """Each action's parameters and their kinds (card, subset, zone, player, number, choice), read
    ahead from the data, so that can() calls are checked in rules read before the action."""
    out = {}
    for name, a in actions.items():
        kinds = {}
        for pname, p in ((a.get("params") or {}) if isinstance(a, dict) else {}).items():
            if isinstance(p, dict):
                k = next((k for k in ("from", "zone", "player", "number", "choice") if k in p), None)
                kinds[pname] = ("subset" if "size" in p else "card") if k == "from" else k
        out[name] = kinds
    return out


class Checker(TypeChecker):
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
        self._flow = [0, 0, 0]      # step lists open, steps read, reaction windows read (the flow caps)
        self._sizes: list = []      # sizes decided at set-up (zone and face counts): checked once names exist
        self.functions: dict = {}           # name -> (params, Rule): named functions (functions:)
        self.function_kinds: dict = {}      # name -> (kind, item kind), as checked on its own
        self._fn_stack: list = []           # functions whose bodies are being checked (recursion)
        self._returns: list = []            # per function being checked: its returns' kinds
        self._fn_memo: dict = {}            # (name, argument kinds) -> the call's (kind, item kind)
        self.has_teams = False

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
        self.option_ranges = {}
        self.check_players(d)
        for name, o in (d.get("options") or {}).items():
            self.name_ok(name, d["options"], "option")
            self.check_option(name, o)
            self.option_defaults[name] = o["default"]
            self.option_values[name] = o.get("values")
            if o.get("range") is not None:
                self.option_ranges[name] = list(o["range"])
        self.has_teams = "teams" in d
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
        self.action_params_raw = _param_kinds(d.get("actions") or {})     # what can(action, ...) may fix
        self.global_names()
        self.read_defines(d.get("define") or {})
        self.read_named_effects(d.get("effects") or {})
        self.read_functions(d.get("functions") or {})
        self.bound_inlining(d.get("define") or {}, d.get("effects") or {})
        self.check_sizes()
        teams_of = self.read_teams(d)

        glob = Scope(dict(CONSTANTS))
        self.glob = glob
        self.check_named_effects(glob)
        functions = self.check_functions()
        self.check_cards(glob)
        actions = {}
        for name, a in (d.get("actions") or {}).items():
            if name in RESERVED_ACTIONS:
                self.err(f"'{name}' is reserved for the pass choice of an optional step",
                         self.key_mark(d["actions"], name))
            actions[name] = self.read_action(name, a, glob)
        self.can_cycles(actions, functions)
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
        if coop and "no_winner_if" in sc:
            self.err("a cooperative scoring says whether the team won with 'success' ('no_winner_if' is for "
                     "a competitive game's outcome where nobody wins)", self.mark(sc, "no_winner_if"))
        per_team = bool(sc.get("per_team"))
        if per_team:        # once per team, `t` the team (docs/language.md, Team state)
            if not self.has_teams:
                self.err("a per-team scoring needs the game's teams: declare them at the top level "
                         "(teams: \"p % 2\")", self.mark(sc, "per_team"))
            for key in ("teams", "cooperative"):
                if sc.get(key):
                    self.err(f"a per-team scoring has no '{key}' (the teams are the game's; each team is "
                             "scored once)", self.mark(sc, key))
            pscope = glob.child({"t": "int"})
        score = self.expr_rule(sc, "score", "scoring.score", glob if coop else pscope, expect="number") if sc else None
        success = self.expr_rule(sc, "success", "scoring.success", glob) if coop else None
        no_winner = self.expr_rule(sc, "no_winner_if", "scoring.no_winner_if", glob, expect="bool") \
            if sc and not coop else None
        teams = self.expr_rule(sc, "teams", "scoring.teams", pscope, expect="number") if sc and not per_team else None
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
                    option_values=self.option_values, option_ranges=self.option_ranges, classes=self.classes,
                    attributes=self.attributes, zones=self.zones, variables=self.variables,
                    tables=self.tables, on_begin=on_begin, end_if=end_if, on_end=on_end, start=start,
                    phases=phases, actions=actions, triggers=triggers, score=score,
                    winner=sc.get("winner", "highest"), tie_breakers=ties, cooperative=coop, success=success,
                    no_winner_if=no_winner,
                    teams=teams, marks=self.marks, functions=functions, teams_of=teams_of, per_team=per_team,
                    steps_per_decision=lim.get("steps_per_decision", STEPS_PER_DECISION),
                    decisions_per_game=lim.get("decisions_per_game", DECISIONS_PER_GAME),
                    steps_per_game=lim.get("steps_per_game", STEPS_PER_GAME)))

    def can_cycles(self, actions, functions):
        """An action whose legality (its parameters' sources, bounds and `where`, its `if`, its cost)
        asks can() of itself, directly or through other actions and functions, would never finish
        listing: an error at the first such call."""
        memo = {}

        def calls(node, seen_fns):       # the can() calls of a rule: (call node, action name)
            out = []
            for x in A.walk(node):
                if isinstance(x, A.Call) and getattr(x, "action", None) is not None:
                    out.append((x, x.action))
                elif isinstance(x, A.Call) and getattr(x, "fn", None) in functions and x.fn not in seen_fns:
                    f = x.fn
                    if f not in memo:
                        memo[f] = []
                        memo[f] = [c for st in functions[f].rule.ast for c in calls(st, seen_fns | {f})]
                    out += [(x, a) for _, a in memo[f]]
            return out

        edges = {}
        for name, a in actions.items():
            rules = [r for p in a.params for r in (p.source, p.lo, p.hi, p.where)] + [a.cond] + \
                [r for _, r in a.cost]
            edges[name] = [c for r in rules if r is not None for c in calls(r.ast, frozenset())]
        def route(src, dst):
            """The actions from src to dst along can() calls (src first, dst last), or None."""
            back, todo = {src: None}, [src]
            while todo:
                at = todo.pop(0)
                for _, target in edges.get(at, ()):
                    if target == dst:
                        chain = [dst, at]
                        while back[chain[-1]] is not None:
                            chain.append(back[chain[-1]])
                        return chain[::-1]
                    if target not in back:
                        back[target] = at
                        todo.append(target)
            return None

        for name in actions:
            for call, target in edges[name]:
                rest = [name] if target == name else route(target, name)
                if rest is not None:
                    chain = [name] + rest
                    self.err(f"the legality of '{name}' asks can() of itself ({' -> '.join(chain)}): "
                             "listing it would never finish; split the action in two (one that can() "
                             "asks about) or write the condition out", (call.line, call.col), "recursion")
                    break

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
        rng = o.get("range")
        if rng is not None:
            if isinstance(default, bool):
                self.err(f"option '{name}' is true or false; it takes no 'range'", self.mark(o, "range"), "option")
            elif values is not None:
                self.err(f"option '{name}': give its values or its range, not both", self.mark(o, "range"), "option")
            elif any(type(v) is not int or out_of_range(v) for v in rng) or rng[0] > rng[1]:
                self.err(f"option '{name}': the range is [LOW, HIGH], two whole numbers, LOW <= HIGH",
                         self.mark(o, "range"), "option")
            elif not rng[0] <= default <= rng[1]:
                self.err(f"option '{name}': the default {default} is outside its range {rng[0]}..{rng[1]}",
                         self.mark(o, "default"), "option")
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
            team = bool(z.get("per_team"))
            if team and (z.get("per_player") or keys is not None or count is not None):
                self.err("a per-team zone is one zone per team: no per_player, keys or count",
                         self.mark(zones, name))
                team = False
            elif team and not self.has_teams:
                self.err("a per-team zone needs the game's teams: declare them at the top level (teams: \"p % 2\")",
                         self.mark(z, "per_team"))
            vis = z.get("visibility", "public")
            if VISIBILITIES[vis].needs_owner and not (z.get("per_player") or team):
                self.err(f"visibility '{vis}' needs per_player: true (or per_team: true)", self.mark(z, "visibility"))
            oe = z.get("on_empty", "error")
            policy = oe if isinstance(oe, str) else "refill"
            oe = oe if isinstance(oe, dict) else {}
            out[name] = ZoneDecl(name, z.get("kind", "pile"), bool(z.get("per_player")), keys, vis,
                                 oe.get("refill_from"), oe.get("shuffle", True), policy, count, team)
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
            if t in ("player", "card") and isinstance(init, str) and init.strip().lower() == "none":
                init = None     # YAML reads a bare `none` (or `None`) as a text: for these types it means none
            if v.get("per_team") and v.get("per_player"):
                self.err("a variable is either per player or per team, not both", self.mark(vs, name))
            elif v.get("per_team") and not self.has_teams:
                self.err("a per-team variable needs the game's teams: declare them at the top level "
                         "(teams: \"p % 2\")", self.mark(v, "per_team"))
            if t == "int" and (init is None or (isinstance(init, str) and init.strip().lower() == "none")):
                self.err("an int variable has no value none: give a number (none is for player and card "
                         "variables)", self.mark(v, "initial"))
            elif t in ("int", "player") and init is not None and type(init) is not int:
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
            vis = v.get("visibility", "public")
            if VISIBILITIES[vis].needs_owner and not (v.get("per_player") or v.get("per_team")):
                self.err(f"visibility '{vis}' needs per_player: true (or per_team: true)", self.mark(v, "visibility"))
            out[name] = VarDecl(name, t, bool(v.get("per_player")), init, v.get("visibility", "public"),
                                bool(v.get("per_team")) and not v.get("per_player"))
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
                    self.err(f"the cards expand to more than {MAX_FACES} faces (one per combination of a face's "
                             f"'each' values)", self.mark(c["faces"], i),
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
            label_exprs = []
            if "label" in c:
                names = {k for f in faces for k in f[0]} | {"type"}
                self.check_label(c, "label", sorted(names), "an attribute of these cards",
                                 card=(cname, faces, label_exprs))
            classes.append(CardClass(cname, zone, cond, c.get("label"), faces, label_exprs))
        total = sum(f[1] if isinstance(f[1], int) else 1 for cl in classes for f in cl.faces)   # set-up sizes: see Ruleset
        if total > MAX_CARDS:
            self.err(f"{total} cards; the limit is {MAX_CARDS}", self.mark(self.data, "cards"), "card-count")
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

    def check_label(self, container, key, allowed, what, scope=None, exprs=None, card=None):
        """A label's `{name}` placeholders name only `allowed` things (parameters, or a card's
        attributes): anything else would be shown literally, so it is an error here. An action's
        label (`exprs` is a list) may also hold expressions over its parameters, a card class's
        (`card` = (class name, faces, list of expressions)) expressions over its attributes."""
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
            if card is not None and not NAME_RE.match(inner.strip()):
                self.card_label_expr(inner, pos, *card)
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
    MAX_CARD_LABEL_WORK = 200_000     # a card label's expressions x the class's distinct faces, checked

    def card_label_expr(self, inner, pos, cname, faces, exprs):
        """`{expression}` in a card class's label: built from the card's attributes alone (`{'gold'
        if gold else 'plain'}`), computed here for every face of the class, so a label that cannot be
        shown for one of them is an error at its place and never at play."""
        from .sizes import LabelValueError, card_label_text
        src = Located(inner, self.filename, lambda ln, c, b=pos: (b[0], b[1] + c), "label")
        self._rule_chars += len(inner)
        try:
            node = parse(src, "expr")
        except SpecError as e:
            self.errors.append(e)
            return
        distinct = {}
        for f in faces:
            attrs = dict(f[0], type=cname)
            distinct.setdefault(repr(sorted((k, repr(v)) for k, v in attrs.items())), attrs)
        if (len(exprs) + 1) * len(distinct) > self.MAX_CARD_LABEL_WORK:
            self.err(f"'{{{inner}}}': card class '{cname}' has {len(distinct)} different faces; its label's "
                     f"expressions are checked on each, at most {self.MAX_CARD_LABEL_WORK} in all", pos, "label")
            return
        for attrs in distinct.values():
            try:
                card_label_text(node, attrs)
            except LabelValueError as e:
                face = ", ".join(f"{k}={v}" for k, v in attrs.items() if k != "type")
                self.err(f"'{{{inner}}}' cannot be shown for the {cname} card with {face or 'no attributes'}: "
                         f"{e}", pos, "label")
                return
            except RecursionError:
                self.err(f"'{{{inner}}}' is nested too deeply", pos, "label")
                return
        exprs.append((inner, node))

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
        if isinstance(node, A.Call) and node.func in self.LABEL_ENDS and node.args and \
                isinstance(node.args[0], A.Name) and scope.get(node.args[0].id) is None and \
                self.globals.get(node.args[0].id) == "zone" and self.zones[node.args[0].id].is_family:
            z = node.args[0]
            self.err(f"'{{{inner}}}': {node.func}() in a label: '{z.id}' is a family of zones; name one of them, "
                     f"as in {node.func}({z.id}[key])", (z.line, z.col), "label")
            return
        self.check_rule(r, scope)
        if len(self.errors) > n_errors:
            return
        if isinstance(r.ast, A.Call) and r.ast.func in self.LABEL_ENDS:
            if self.zone_end(r.ast, scope, inner):
                exprs.append((inner, r))
            return
        inside = next((x for x in A.walk(r.ast) if isinstance(x, A.Call) and x.func in self.LABEL_ENDS), None)
        if inside is not None:
            self.err(f"'{{{inner}}}': {inside.func}() shows the card at an end of a pile and stands alone in "
                     f"its placeholder, as in {{{inside.func}(pile)}}", (inside.line, inside.col), "label")
            return
        if self.params_only(r, scope, f"'{{{inner}}}': a label"):
            exprs.append((inner, r))

    LABEL_ENDS = ("top", "bottom")

    def zone_end(self, call, scope, inner):
        """`{top(pile)}` / `{bottom(row[r])}` in an action label: the card at that end of a pile, shown
        as its chooser sees it (interpreter/labels.py). The one argument names a pile: a single zone,
        or a family member whose key is built from the parameters alone. True if it is well formed,
        else False after reporting why."""
        f = call.func
        what = f"'{{{inner}}}': {f}() in a label"
        if len(call.args) != 1 or call.kwargs:
            self.err(f"{what} takes one argument, the pile ({f}(pile) shows its {f} card; "
                     f"{f}(pile, n) is a list of cards, which a label does not show)", (call.line, call.col), "label")
            return False
        z = call.args[0]
        ref = getattr(z, "ref", None) or ("",)
        if not (isinstance(z, (A.Name, A.Index)) and ref[0] in ("zone", "member")):
            self.err(f"{what} names a pile of the spec: a zone, or a member of a family with a key built from "
                     f"the parameters (as in {f}(pile[key])), never a zone found from the game's state",
                     (z.line, z.col), "label")
            return False
        decl = ref[1]
        if decl.kind != "pile":
            self.err(f"{what}: '{decl.name}' is a {decl.kind}, which has no order; only a pile has a top and a "
                     f"bottom card", (z.line, z.col), "label")
            return False
        if isinstance(z, A.Index):
            key = Rule(z.index, "label", self.filename, z.index.line, z.index.col, inner)
            if not self.params_only(key, scope, f"'{{{inner}}}': the key of {decl.name}"):
                return False
        return True

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
            # a zone, variable, table or option is never called, so it may share a built-in function's
            # name (`runs`, `team`): a call is the function, a name the declaration (specs written before
            # a built-in was added keep working); never a built-in name such as `players`
            if name in CONSTANTS:
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
            # a define may take a built-in function's name: it shadows the built-in in this spec
            if name in self._seen or name in CONSTANTS:
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
            n = self._not_setup(r, ("num_players",))
            if n is not None:
                what = f"'{n.id}'" if isinstance(n, A.Name) else "this"
                self.err(f"{what} cannot decide a size at set-up: a size is computed from numbers, num_players "
                         f"and options ({', '.join(self.SIZE_CALLS)}, arithmetic and 'if ... else' allowed)",
                         (n.line, n.col), "size")
            else:
                self.check_rule(r, Scope(dict(CONSTANTS)), "number")
                self.try_sizes(r)

    def _not_setup(self, r, names):
        """The first node of rule r that cannot be decided at set-up (only numbers, the given names,
        options, arithmetic but `**`, comparisons, and/or/not, if/else and SIZE_CALLS), or None."""
        for n in A.walk(r.ast):
            ok = isinstance(n, (A.Const, A.BinOp, A.Compare, A.BoolOp, A.Unary, A.IfExp)) or (
                isinstance(n, A.Name) and (n.id in names or self.globals.get(n.id) == "option")) or (
                isinstance(n, A.Call) and n.func in self.SIZE_CALLS and not n.kwargs
                and not any(isinstance(a, A.Comp) for a in n.args))
            if not ok or (isinstance(n, A.BinOp) and n.op == "**"):
                return n
        return None

    def _setup_configs(self):
        """Every (player count, options) a set-up rule is tried for at validate time (the defaults only
        beyond 1000 of them); none while `players` is malformed (reported by check_players)."""
        ps = self.data.get("players")
        if not (isinstance(ps, list) and len(ps) == 2 and all(type(x) is int for x in ps) and ps[0] <= ps[1]):
            return
        lo, hi = ps
        names = list(self.option_defaults)
        choices = [self.option_values.get(n) or ([False, True] if isinstance(self.option_defaults[n], bool)
                                                 else [self.option_defaults[n]]) for n in names]
        if math.prod(len(c) for c in choices) * (hi - lo + 1) > 1000:
            choices = [[self.option_defaults[n]] for n in names]
        for P in range(lo, hi + 1):
            for combo in itertools.product(*choices):
                yield P, dict(zip(names, combo))

    def _try_setup(self, r, check, fn):
        """fn(P, options) for every set-up configuration; the first SpecError is reported at r, naming
        the options, once."""
        for P, opts in self._setup_configs():
            try:
                fn(P, opts)
            except SpecError as e:
                shown = ", ".join(f"{n}={v}" for n, v in opts.items())
                self.err(e.message.replace("these options", f"options {shown}" if shown else "no options"),
                         (r.line, r.col), check)
                return False
        return True

    def try_sizes(self, r):
        """Evaluate a set-up size for every player count and option set (when there are at most 1000
        of them), so that a size out of range is a validate-time error, not a surprise at set-up."""
        from .sizes import size_value
        low = 0 if ".faces[" in r.where else 1
        self._try_setup(r, "size", lambda P, opts: size_value(r, P, opts, low, 1000))

    def read_named_effects(self, effs):
        """`effects: {NAME(a, b): EFFECTS}`: blocks of effects called as statements, inlined at check
        time like defines (hygienic: the body sees only its parameters and global names)."""
        self._read_bodies(effs, "named effect", "effects", self.named_effects, self.broken_effects)

    def read_functions(self, fns):
        """`functions: {NAME(a, b): STATEMENTS}`: values computed by statements ending in `return`,
        compiled once (not inlined), callable in any expression (docs/language.md, Functions)."""
        self._read_bodies(fns, "function", "functions", self.functions, self.broken_defines)

    def _read_bodies(self, table, what, section, into, broken):
        """`NAME(a, b): STATEMENTS` entries (named effects, functions): names checked, bodies parsed into
        `into` (name -> (params, Rule)); one that fails to parse goes into `broken` (its uses say no more)."""
        for key in table:
            m = DEFINE_RE.match(str(key))
            if not m:
                self.err(f"{what} {key!r} should look like 'name' or 'name(a, b)'", self.key_mark(table, key))
                continue
            name = m.group(1)
            params = [p.strip() for p in (m.group(2) or "").split(",") if p.strip()]
            bad = [x for x in [name] + params if reserved(x) or not NAME_RE.match(x)]
            if bad:
                self.err(f"{what} {key!r}: '{bad[0]}' is not a valid name (names starting with '_' are "
                         "reserved)", self.key_mark(table, key), "name")
                continue
            clash = [x for x in params if x in self._seen or x in CONSTANTS]
            if name in self._seen or name in CONSTANTS or clash:     # a built-in's name: shadowed
                self.err(f"'{clash[0] if clash else name}' is already a name", self.key_mark(table, key))
                continue
            if len(set(params)) != len(params):
                self.err(f"{what} {key!r} names a parameter twice", self.key_mark(table, key), "name")
                continue
            r = self.rule(table, key, f"{section}.{name}", "effects")
            if r is not None:
                into[name] = (params, r)
                self._seen[name] = what
            else:
                broken.add(name)

    def check_functions(self):
        """Each function's body checked once on its own (parameters of any kind): the statements that
        are compiled, and the kind of its value."""
        from .model import FunctionDecl
        out = {}
        for name, (params, r) in self.functions.items():
            self.function_kinds[name] = ("any", "any")      # a recursive call, while its body is checked
            try:
                got = self.check_function_body(name, r.ast, ["any"] * len(params), canonical=True)
            except _Abort:
                got = ("any", "any")
            self.function_kinds[name] = got
            out[name] = FunctionDecl(name, list(params), r, got[0], got[1])
        self._fn_memo.clear()       # calls are checked with the kinds each function has on its own
        return out

    def read_teams(self, d):
        """Top-level `teams: EXPR`: each seat p's team, decided at set-up from p, num_players and options
        (like a size), the team numbers 0 .. T-1 each used; tried now for every player count and option set."""
        if "teams" not in d:
            return None
        r = self.rule(d, "teams", "teams")
        if r is None:
            return None
        n = self._not_setup(r, ("num_players", "p"))
        if n is not None:
            what = f"'{n.id}'" if isinstance(n, A.Name) else "this"
            self.err(f"{what} cannot decide a team at set-up: a team is computed from p (the seat), "
                     f"num_players and options ({', '.join(self.SIZE_CALLS)}, arithmetic and 'if ... else' "
                     "allowed)", (n.line, n.col), "teams")
            return None
        n0 = len(self.errors)
        self.check_rule(r, Scope(dict(CONSTANTS, p="player")), "number")
        if len(self.errors) > n0:
            return None
        from .sizes import team_list
        return r if self._try_setup(r, "teams", lambda P, opts: team_list(r, P, opts)) else None

    def bound_inlining(self, defs, effs):
        """How large each define and named effect grows once what it uses is written out, computed
        from their calls before anything is inlined: one that fans out past MAX_INLINE_NODES_RULE
        (a calls b twice, b calls c twice, ...) is reported once, where it is declared, and its uses
        say nothing more (they would only repeat it)."""
        def grown(name, table, stack, memo):
            if name in memo:
                return memo[name]
            if name in stack:           # a cycle: reported as recursion when it is checked
                return 0
            r = table[name][1]
            calls = []
            total = 0
            for x in (y for root in (r.ast if isinstance(r.ast, list) else [r.ast]) for y in A.walk(root)):
                total += 1
                f = x.func if isinstance(x, A.Call) else x.id if isinstance(x, A.Name) else None
                if f in table and f != name:
                    calls.append((f, x))
            callees[name] = {f for f, _ in calls}
            stack.append(name)
            try:
                for f, x in calls:
                    body = table[f][1].ast
                    uses = sum(1 for root in (body if isinstance(body, list) else [body]) for y in A.walk(root)
                               if isinstance(y, A.Name) and y.id in table[f][0])
                    args = sum(_node_count(a) for a in getattr(x, "args", ()))
                    total += grown(f, table, stack, memo) + uses * args
                    if total > MAX_INLINE_NODES_RULE:
                        break
            finally:
                stack.pop()
            memo[name] = total = min(total, MAX_INLINE_NODES_RULE + 1)
            return total

        for table, raw, broken, what in ((self.defines, defs, self.broken_defines, "define"),
                                         (self.named_effects, effs, self.broken_effects, "named effect")):
            memo, callees = {}, {}
            big = {name for name in list(table) if grown(name, table, [], memo) > MAX_INLINE_NODES_RULE}
            for name in table:
                # the root causes only: one that is too large because it uses one that is too large
                # is not reported again
                if name in big and not (callees.get(name, set()) & big):
                    key = next((k for k in raw if DEFINE_RE.match(str(k)) and DEFINE_RE.match(str(k)).group(1) == name),
                               name)
                    self.err(f"{what} '{name}' grows to more than {MAX_INLINE_NODES_RULE} nodes once the "
                             f"{what}s it uses are written out (each use copies them): use them fewer times, "
                             "or compute once with a let", self.key_mark(raw, key), "rule-size")
            for name in big:
                del table[name]
                broken.add(name)

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
        items = container.get(key) or []
        self.flow_room(container, key, items)
        out = []
        self._flow[0] += 1
        try:
            for i, st in enumerate(items):
                s = self.read_step(st, f"{where}[{i}]", scope, items, i)
                if s is not None:
                    out.append(s)
        finally:
            self._flow[0] -= 1
        return out

    def flow_room(self, container, key, items):
        """The flow caps, checked before a list of steps is read (aliases can repeat a subtree
        thousands of times in a small file; every step compiles to code for each rule set): the
        first one crossed ends the checking, at its place."""
        depth, steps, windows = self._flow
        if depth >= MAX_FLOW_DEPTH:
            self._flow_refused(f"steps are nested more than {MAX_FLOW_DEPTH} deep (then/else, repeat, while, "
                               f"for): name the inner steps' work in a named effect or a phase of its own",
                               self.mark(container, key))
        if steps + len(items) > MAX_FLOW_STEPS:
            self._flow_refused(f"the turns have more than {MAX_FLOW_STEPS} steps in all",
                               self.mark(items, MAX_FLOW_STEPS - steps))
        self._flow[1] += len(items)
        for i, st in enumerate(items):
            if isinstance(st, dict) and "react" in st:
                windows += 1
                if windows > MAX_WINDOWS:
                    self._flow_refused(f"the turns have more than {MAX_WINDOWS} reaction windows in all",
                                       self.mark(items, i))
        self._flow[2] = windows

    def _flow_refused(self, message, pos):
        raise SpecErrors(self.errors + [SpecError(message, self.filename, pos[0], pos[1], check="flow-size")])

    def read_step(self, st, w, scope, parent, idx):
        if "react" in st:
            others = [k for k in ("do", "choose", "simultaneous", "repeat", "while", "for") if k in st
                      and not (k == "repeat" and isinstance(st[k], bool))]
            if others:
                self.err("a step has exactly one of: do, choose, simultaneous, react, if/then, repeat/until, "
                         f"while/steps, for/in (found react, {', '.join(others)})", self.mark(parent, idx))
                return None
            return self.read_react(st, w, scope)
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
            if "if" not in st:
                self.err("'then' needs 'if: CONDITION'", self.key_mark(st, "then"))
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
    REACT_VAR = "responder"     # the loop variable of a reaction window's asking (the spec never sees it)

    def read_react(self, st, w, scope):
        """`react: [ACTION, ...]`: a reaction window (docs/language.md, "Reaction windows"): a `for` over
        `players` asking each one of the responses or the pass, then `then` (someone responded) or
        `else`, with `as` naming the outcome."""
        allowed = ("react", "players", "ask", "until", "optional", "as", "then", "else", "if_none", "if", "doc",
                   "priority")
        for extra in st:
            if extra not in allowed:
                why = {"player": "; who may respond is 'players' (a list)",
                       "repeat": "; each listed player responds at most once",
                       "fallback": "; list every response in 'react'",
                       "order": "; responses are carried out in the order of 'players', or by 'priority' "
                                "(a window asked at once)"}.get(extra, "")
                self.err(f"'{extra}' does not belong in a 'react' step{why}", self.key_mark(st, extra))
        names = list(st["react"])
        for j, a in enumerate(names):
            if a not in self.action_names:
                self.err(f"unknown action '{a}'{self.hint(a, self.action_names)}", self.mark(st["react"], j))
        if st.get("if_none") == "error":
            self.err("a reaction window always offers the pass: 'if_none' is 'skip' (skip the players whose only "
                     "choice is the pass) or left out (ask them too)", self.mark(st, "if_none"))
        until = st.get("until", "first")
        if until not in ("first", "all"):
            self.err(f"'until' of a reaction window is 'first' (the first response closes it) or 'all' (every "
                     f"response is carried out), not {str(until)[:40]!r}", self.mark(st, "until"))
            until = "first"
        s = Step(kind="react", path=w, var=self.REACT_VAR, actions=names, ask=st.get("ask", "in_turn"),
                 until=until, optional=st.get("optional", "pass"), if_none=st.get("if_none", "ask"))
        if "priority" in st:
            s.priority = self.window_priority(st, names, s.ask)
        if "if" in st:
            s.guard = self.expr_rule(st, "if", w + ".if", scope)
        line, col = self.key_mark(st, "react")
        if "players" in st:
            s.iter = self.expr_rule(st, "players", w + ".players", scope, expect="list")
        else:       # every other player, clockwise from the one who just acted
            s.iter = Rule(A.Call(line, col, func="others", args=[A.Name(line, col, id="actor")]),
                          w + ".players", self.filename, line, col, "others(actor)")
            self.check_rule(s.iter, scope, expect="list")
        node = getattr(s.iter, "ast", None)
        if node is not None and getattr(node, "t", None) is not None and \
                elem_type(node, node.t) not in ("player", "int", "any"):
            self.err(f"'players' is the list of the players who may respond, but it is "
                     f"{self.described(node, node.t)}", (node.line, node.col), "type")
        inner = scope.child({self.REACT_VAR: "player"})
        who = Rule(A.Name(line, col, id=self.REACT_VAR), w + ".players", self.filename, line, col, self.REACT_VAR)
        self.check_rule(who, inner, expect="player")
        s.inner = Step(kind="choose", path=w + ".react", actions=names, player=who, optional=s.optional,
                       if_none="skip" if s.if_none == "skip" else "ask", simultaneous=s.ask == "at_once",
                       window=True)
        bind = st.get("as")
        sub = scope
        if bind is not None:
            if not NAME_RE.match(str(bind)) or reserved(bind) or bind in self.globals or bind in CONSTANTS \
                    or bind in BUILTINS or bind in self.functions:
                self.err(f"'{bind}' cannot name a window's outcome: pick a name that is not a global name",
                         self.mark(st, "as"))
            else:
                s.bind = str(bind)
                sub = scope.child({s.bind: "players" if until == "all" else "player"})
        s.body = self.read_steps(st, "then", w + ".then", sub)
        s.orelse = self.read_steps(st, "else", w + ".else", sub)
        return s

    def window_priority(self, st, names, ask):
        """`priority: [ACTION, ...]` of a window asked at once: the responses it lists, each once; the
        first listed beats the later ones (a response it does not list comes after them), ties go to
        the order of `players` (the nearest seat first, with the default players)."""
        if ask != "at_once":
            self.err("'priority' belongs to a window asked at once (ask: at_once): asked in turn, the first "
                     "response closes the window", self.key_mark(st, "priority"))
            return None
        got = []
        for j, a in enumerate(st["priority"]):
            if a not in names:
                self.err(f"'{a}' is not a response of this window{self.hint(a, names)}: 'priority' ranks the "
                         f"actions of 'react' ({', '.join(names)})", self.mark(st["priority"], j))
            elif a in got:
                self.err(f"'{a}' is in 'priority' twice", self.mark(st["priority"], j))
            else:
                got.append(a)
        return got

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


