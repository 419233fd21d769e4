"""Checked action declarations → compiled actions (ActionRT): precondition, parameters (ParamRT),
cost, effect and label, once per rule set. The generated-code backend gives each its enumeration and
effect as generated functions; the reference backend enumerates here, parameter by parameter."""
from __future__ import annotations

import itertools

from gamespec.errors import SpecRuntimeError
from gamespec.interpreter.actions import Action, fill_template
from gamespec.interpreter.labels import fill_expressions
from gamespec.interpreter.runtime import fault, pay
from gamespec.mirrors import MAX_CHOICES

from ..spec import ast as A
from .labels import compile_expr as compile_label_expr

# MAX_CHOICES: a parameter with more candidates is a spec error, not a hang


class ParamRT:
    def __init__(self, rs, comp, p, names, light=False):
        self.name = p.name
        self.kind = p.kind
        self.key = p.name
        self.rs = rs
        self.family = rs.spec.zones[p.family] if p.kind == "zone" else None
        self.origin = getattr(p.lo or p.source, "origin", "")   # where a limit of this parameter is reported
        if light:       # generated code enumerates; only names and kinds are needed (labels, JSON)
            return
        self.where = comp.expr(p.where, names) if p.where is not None else None
        self.family = None
        if p.kind in ("card", "subset"):
            self.source = comp.expr(p.source, names)
            self.source_is_zone = getattr(p.source.ast, "t", None) == "zone"
            if p.kind == "subset":
                self.lo = comp.expr(p.lo, names)
                self.hi = comp.expr(p.hi, names)
        elif p.kind == "zone":
            z = rs.spec.zones[p.family]
            self.family = z
            self.keys = list(rs.zone_keys[z.name])
        elif p.kind == "number":
            self.lo = comp.expr(p.lo, names)
            self.hi = comp.expr(p.hi, names)
        elif p.kind == "choice":
            self.choices = p.choices
            self.source = comp.expr(p.source, names) if p.choices is None else None

    def candidates(self, s, e):
        """Yields (json value, bound value, seen face) for each distinct choice."""
        k = self.kind
        if k == "card":
            cards, vis = self._cards(s, e)
            bit = 1 << s.actor
            kn = s.kn
            face_of = self.rs.face_of
            seen = set()
            for pos, c in enumerate(cards):
                if c is None:
                    continue
                if (vis(c) | kn[c]) & bit:
                    f = face_of[c]
                    if f in seen:    # identical-looking cards are one choice
                        continue
                    seen.add(f)
                else:
                    f = None         # judged only by what the chooser sees: no dedup of hidden cards
                yield pos, c, f
        elif k == "zone":
            for key in self.keys:
                yield key, key, None
        elif k == "player":
            for p in range(self.rs.P):
                yield p, p, None
        elif k == "number":
            lo, hi = self.lo(s, e), self.hi(s, e)
            if hi - lo > MAX_CHOICES:
                self._limit(f"parameter '{self.name}' has {hi - lo + 1} values; the limit is {MAX_CHOICES}")
            for n in range(lo, hi + 1):
                yield n, n, None
        elif k == "choice":
            vals = self.choices if self.choices is not None else self.source(s, e)
            if isinstance(vals, int):
                vals = s.z[vals]
            done = set()
            for v in vals:
                if v in done:
                    continue
                done.add(v)
                yield v, v, None
        else:  # subset
            cards, vis = self._cards(s, e)
            lo, hi = max(0, self.lo(s, e)), min(len(cards), self.hi(s, e))
            bit = 1 << s.actor
            face_of = self.rs.face_of
            keys = [face_of[c] if (vis(c) | s.kn[c]) & bit else ("pos", i) for i, c in enumerate(cards)]
            done = set()
            made = 0
            for size in range(lo, hi + 1):
                for combo in itertools.combinations(range(len(cards)), size):
                    sig = tuple(sorted(map(repr, (keys[i] for i in combo))))
                    if sig in done:
                        continue
                    done.add(sig)
                    made += 1
                    if made > MAX_CHOICES:
                        self._limit(f"parameter '{self.name}' has more than {MAX_CHOICES} subsets")
                    yield list(combo), [cards[i] for i in combo], tuple(
                        keys[i] if not isinstance(keys[i], tuple) else None for i in combo)

    def values(self, s, e):
        """Every bound value this parameter may take here, identical-looking cards not merged (can()
        asks whether some choice is legal, not which ones a player tells apart)."""
        k = self.kind
        if k == "card":
            return [c for c in self._cards(s, e)[0] if c is not None]
        return [b for _, b, _ in self.candidates(s, e)]

    def admits(self, s, e, v):
        """Is v one of the values this parameter may take here (before its `where`)?"""
        k = self.kind
        if k == "card":
            return v.__class__ is int and v in self._cards(s, e)[0]
        if k == "player":
            return v.__class__ is int and 0 <= v < self.rs.P
        if k == "number":
            return v.__class__ is int and self.lo(s, e) <= v <= self.hi(s, e)
        if k == "zone":
            return v in self.keys
        vals = self.choices if self.choices is not None else self.source(s, e)
        return v in (s.z[vals] if isinstance(vals, int) else vals)

    def _limit(self, msg):
        """Enumeration runs outside any rule's guard: its limits are run-time errors of the spec."""
        raise SpecRuntimeError(msg, self.origin, check="budget")

    def _cards(self, s, e):
        src = self.source(s, e)
        rs = self.rs
        if self.source_is_zone:
            zv = rs.zvis[src]
            face = s.face
            if face:
                ALL = rs.ALL
                return s.z[src], (lambda c: zv if c not in face else (ALL if face[c] == 1 else 0))
            return s.z[src], (lambda c: zv)
        zvis, loc, face, ALL = rs.zvis, s.loc, s.face, rs.ALL
        return list(src), (lambda c: zvis[loc[c]] if c not in face else (ALL if face[c] == 1 else 0))


_KEEPS_PLACES = frozenset({"reveal", "set_mark", "end_game", "end_phase", "end_turn"})


def hides_place(rs, decl):
    """May a decision of this action choose a card at a place of a pile where some player does not see
    it (a hidden pile, a face-down card) and then move cards (so that where the cards go could show
    the place)? Read from the spec, which every player knows: a card parameter drawn from a pile (or
    from a list, which may hold one), and an effect with a statement that moves cards (a named effect
    counts as one). Who was not shown the card is known at run time (State._record)."""
    if decl.effect is None or not any(isinstance(x, A.CallStmt) and x.call.func not in _KEEPS_PLACES
                                      for st in decl.effect.ast for x in A.walk(st)):
        return False
    piles = [z for z in rs.spec.zones.values() if z.kind == "pile"]
    for p in decl.params:
        if p.kind not in ("card", "subset"):
            continue
        zones = [x.ref[1] if x.ref[0] == "member" else rs.spec.zones[x.id] for x in A.walk(p.source.ast)
                 if isinstance(x, (A.Name, A.Index)) and isinstance(getattr(x, "ref", None), tuple)
                 and x.ref and x.ref[0] in ("zone", "member")]
        if any(z in piles for z in zones) or (not zones and piles):
            return True
    return False


class ActionRT:
    """One declared action, compiled: precondition, parameters, cost and effect."""

    def __init__(self, rs, comp, decl):
        self.rs = rs
        self.name = decl.name
        self.template = decl.label
        self.label_exprs = [(text, compile_label_expr(r, rs)) for text, r in decl.label_exprs]
        gen = comp.action(self, decl) if hasattr(comp, "action") else None
        names = {}
        self.params = []
        for p in decl.params:
            names = dict(names)
            names[p.name] = p.name
            self.params.append(ParamRT(rs, comp, p, names, light=gen is not None))
        self.nparams = len(self.params)
        self.keys = [p.key for p in self.params]
        self.card_params = [(i, p.kind == "card") for i, p in enumerate(self.params)
                            if p.kind in ("card", "subset")]
        # per parameter: 1 a card, 2 a list of cards, 0 anything else (interpreter/blind.py)
        self.param_kinds = tuple(1 if p.kind == "card" else 2 if p.kind == "subset" else 0 for p in self.params)
        # may it choose a card its chooser cannot tell apart lying in a set? (then drawn: blind.py)
        self.blind_sets = bool(self.card_params) and bool(rs.set_zones)
        # the one card parameter, if that is all there is (the usual case: State._cards_seen's short way)
        self.one_card = self.card_params[0][0] if len(self.card_params) == 1 and self.card_params[0][1] else None
        # a card chosen in a pile that not everyone sees, by an action whose effect moves cards: where it
        # lay is a place the others may not know (State._record); such a decision takes the general path
        self.hides_place = bool(self.card_params) and hides_place(rs, decl)
        if self.hides_place:
            self.one_card = None
        if gen is not None:   # the fast backend: one generated function each; run reads the tuple
            self.enumerate, self.run = gen
            self.tuple_env = True
            return
        self.tuple_env = False     # run reads a dict by parameter name (see env())
        used = _names_in(decl.cond.ast) if decl.cond is not None else set()
        pnames = {p.name for p in decl.params}
        self.cond = comp.expr(decl.cond, names) if decl.cond is not None else None
        self.cond_first = self.cond is not None and not (used & pnames)
        self.cost = [(rs.var_base[var], comp.expr(r, names), r.origin) for var, r in decl.cost]
        self.effect = comp.effects(decl.effect, names) if decl.effect is not None else None

    def enumerate(self, s, out):
        e = {}
        if self.cond_first and not self.cond(s, e):
            return
        if not self.params:
            if self._ok(s, e):
                out.append(Action((self.name, (), (), (), self, None, len(out))))
            return
        self._rec(s, e, 0, [], [], out)

    def _ok(self, s, e):
        if self.cond is not None and not self.cond_first and not self.cond(s, e):
            return False
        for base, amount, _ in self.cost:
            if s.v[base + s.actor] < amount(s, e):
                return False
        return True

    def _rec(self, s, e, i, args, seen, out):
        p = self.params[i]
        last = i == self.nparams - 1
        key = p.key
        where = p.where
        for jv, bound, face in p.candidates(s, e):
            e[key] = bound
            if where is not None and not where(s, e):
                continue
            args.append(jv)
            seen.append(face)
            if last:
                if self._ok(s, e):
                    out.append(Action((self.name, tuple(_freeze(a) for a in args), tuple(e[k] for k in self.keys),
                                       tuple(seen), self, None, len(out))))
            else:
                self._rec(s, e, i + 1, args, seen, out)
            args.pop()
            seen.pop()
        e.pop(key, None)

    def can(self, s, given):
        """can(this action, ...): could the acting player take it now, with the parameters `given`
        (index -> value) fixed and the others ranging over their values? A step for the question
        and one per value tried, on top of what the action's rules cost (docs/language.md)."""
        _charge(s, 1)
        e = {}
        if self.cond_first and not self.cond(s, e):
            return False
        return self._can(s, e, 0, given)

    def _can(self, s, e, i, given):
        if i == self.nparams:
            return self._ok(s, e)
        p = self.params[i]
        if i in given:
            v = given[i]
            vals = (v,) if p.admits(s, e, v) else ()
        else:
            vals = p.values(s, e)
        key, where = p.key, p.where
        for v in vals:
            _charge(s, 1)
            e[key] = v
            if (where is None or where(s, e)) and self._can(s, e, i + 1, given):
                e.pop(key, None)
                return True
        e.pop(key, None)
        return False

    def env(self, bind):
        """A fresh env dict for a run that reads parameters by name."""
        return dict(zip(self.keys, bind))

    def run(self, s, env):
        for base, amount, origin in self.cost:
            s.v[base + s.actor] = pay(s.v[base + s.actor], amount(s, env), origin)
        if self.effect is not None:
            self.effect(s, env)

    def render_label(self, a):
        rs = self.rs
        shown = {}
        for p, v, f in zip(self.params, a.args, a.seen):
            if p.kind == "card":
                shown[p.name] = rs.face_label[f] if f is not None else f"hidden card {v + 1}"
            elif p.kind == "subset":
                shown[p.name] = ", ".join(rs.face_label[x] if x is not None else "a hidden card"
                                          for x in f) if f else "nothing"
            elif p.kind == "zone":
                shown[p.name] = (f"{p.family.name} of player {v}" if p.family.per_player
                                 else f"{p.family.name} {v}")
            elif p.kind == "player":
                shown[p.name] = f"player {v}"
            else:
                shown[p.name] = str(v)
        if self.template:
            return fill_template(self.template, fill_expressions(self, shown, a.args, a.seen))
        if not shown:
            return self.name
        return f"{self.name} " + ", ".join(f"{k}={v}" for k, v in shown.items())


def _charge(s, n):
    s.budget -= n
    if s.budget < 0:
        fault("step budget exhausted (a rule visits too many items)", "budget")


def can(s, name, given):
    """The built-in can(name, ...): `given` maps parameter indices to values (Ruleset.can_rt)."""
    return s.rs.can_rt(name).can(s, given)


def can_params(spec, call):
    """A checked can() call's named arguments as (parameter index, expression) pairs."""
    order = [p.name for p in spec.actions[call.action].params]
    return [(order.index(k), v) for k, v in call.kwargs.items()]


def _freeze(v):
    return tuple(v) if isinstance(v, list) else v


def _names_in(node):
    return {n.id for n in A.walk(node) if isinstance(n, A.Name)}
