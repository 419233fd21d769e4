"""Which actions could be legal in one configuration (player count and options): a static analysis of
the compiled rule set, so that a study's "never played" names only actions the configuration could
offer (an action that an option switches off is not "never played", it is absent).

An action is *impossible* when every `choose` (or fallback, or response) that lists it sits in a
phase's flow under a condition that is false for every state of this configuration, or when its own
`if` is. A condition is folded with three values (true, false, unknown) from:
- the options and num_players;
- card classes: `X.type == 'C'` is false when class C has no card in this configuration (its `if`,
  or every face's, false under the options);
- *frozen* variables: a global variable that no live code can set to anything but its initial value
  keeps it (a fixed point: code under a false condition is dead, so a variable set only there is
  frozen, and conditions reading it fold in turn).
Anything else is unknown, and unknown is "could be": the analysis only ever removes what no state
can offer, whatever the spec (no game is named here).
"""
from __future__ import annotations

from gamespec.spec import ast as A

UNKNOWN = object()


def possible_actions(rs) -> set | None:
    """The names of the spec's actions that could be legal in the rule set's configuration (its
    players and options); None when the analysis cannot run (then every action could be)."""
    try:
        return _Analysis(rs).run()
    except (AttributeError, TypeError, KeyError, ValueError, RecursionError):
        return None


class _Analysis:
    def __init__(self, rs):
        self.spec = spec = rs.spec
        self.options = dict(rs.options)
        self.P = rs.P
        self.frozen = {n for n, v in spec.variables.items() if not v.per_player and not getattr(v, "per_team", False)
                       and (v.initial is None or isinstance(v.initial, (bool, int, str)))}
        self.absent = set()
        for c in getattr(spec, "classes", []) or []:
            if self.fold_rule(c.cond) is False or (c.faces and all(
                    self.fold_rule(f[3]) is False or (isinstance(f[1], int) and f[1] == 0) for f in c.faces)):
                self.absent.add(c.name)

    # -- folding -------------------------------------------------------------------------------
    def fold_rule(self, rule):
        if rule is None:
            return UNKNOWN
        ast = rule.ast
        if isinstance(ast, list):
            return UNKNOWN
        v = self.fold(ast)
        return v if v is UNKNOWN or isinstance(v, bool) else bool(v)

    def fold(self, n):
        if isinstance(n, A.Const):
            return n.value
        if isinstance(n, A.Name):
            if n.id == "num_players":
                return self.P
            if n.id in self.options:
                return self.options[n.id]
            if n.id in self.frozen:
                return self.spec.variables[n.id].initial
            return UNKNOWN
        if isinstance(n, A.Unary) and n.op == "not":
            v = self.fold(n.operand)
            return UNKNOWN if v is UNKNOWN else not v
        if isinstance(n, A.BoolOp):
            a, b = self.fold(n.left), self.fold(n.right)
            if n.op == "and":
                if (a is not UNKNOWN and not a) or (b is not UNKNOWN and not b):
                    return False
                return UNKNOWN if UNKNOWN in (a, b) else bool(a and b)
            if (a is not UNKNOWN and a) or (b is not UNKNOWN and b):
                return True
            return UNKNOWN if UNKNOWN in (a, b) else bool(a or b)
        if isinstance(n, A.Compare) and n.op in ("==", "!="):
            for x, y in ((n.left, n.right), (n.right, n.left)):
                if (isinstance(x, A.Attr) and x.name == "type" and isinstance(y, A.Const)
                        and isinstance(y.value, str) and y.value in self.absent):
                    return n.op == "!="
            a, b = self.fold(n.left), self.fold(n.right)
            if UNKNOWN in (a, b) or type(a) is not type(b) and not (a is None or b is None):
                return UNKNOWN
            return (a == b) if n.op == "==" else (a != b)
        return UNKNOWN

    # -- frozen variables: a fixed point over the live assignments ------------------------------
    def run(self) -> set:
        from gamespec.spec.model import rules
        spec = self.spec
        for a in spec.actions.values():
            for var, _ in getattr(a, "cost", None) or []:
                self.frozen.discard(var)
        all_rules = list(rules(spec))
        changed = True
        while changed:
            before = set(self.frozen)
            for r in all_rules:
                if isinstance(r.ast, list):
                    self.stmts(r.ast)
            changed = self.frozen != before
        return self.offered()

    def stmts(self, ss):
        for st in ss:
            if isinstance(st, A.Assign):
                t = st.target
                name = t.id if isinstance(t, A.Name) else getattr(getattr(t, "obj", None), "id", None)
                if name in self.frozen:
                    init = self.spec.variables[name].initial
                    v = self.fold(st.value) if isinstance(t, A.Name) and st.op == "=" else UNKNOWN
                    if v is UNKNOWN or v != init or type(v) is not type(init):
                        self.frozen.discard(name)
            elif isinstance(st, A.If):
                for cond, body in st.branches:
                    c = self.fold(cond)
                    if c is UNKNOWN or c:
                        self.stmts(body)
                    if c is not UNKNOWN and c:
                        break
                else:
                    self.stmts(st.orelse)
            elif isinstance(st, (A.For, A.While)):
                self.stmts(st.body)
            else:
                for x in A.walk(st):       # a statement nested in another kind of node
                    if x is not st and isinstance(x, (A.Assign, A.If, A.For, A.While)):
                        self.stmts([x])
                        break

    # -- the flow: which steps can run ----------------------------------------------------------
    def offered(self) -> set:
        spec = self.spec
        reachable, todo = set(), [spec.start]
        while todo:
            ph = todo.pop()
            if ph in reachable or ph not in spec.phases:
                continue
            reachable.add(ph)
            todo.extend(t for c, t in spec.phases[ph].next if self.fold_rule(c) is not False)
        out = set()

        def steps(ss):
            for s in ss:
                if self.fold_rule(s.guard) is False:
                    continue
                c = self.fold_rule(s.cond)
                out.update(s.actions)
                out.update(s.fallback)
                if s.inner is not None:
                    steps([s.inner])
                if s.kind == "if":
                    if c is not False:
                        steps(s.body)
                    if c is not True:
                        steps(s.orelse)
                elif s.kind == "while" and c is False:
                    steps(s.orelse)
                else:
                    steps(s.body)
                    steps(s.orelse)
        for ph in reachable:
            t = spec.phases[ph].turn
            if t is not None:
                steps(t.steps)
        return {a for a in out if a in spec.actions and self.fold_rule(spec.actions[a].cond) is not False}
