"""Spec file → lint findings beyond errors (`gamespec check --strict`).

Static: unused variables, defines and zones; actions never offered; options with no effect; whole-number
options with no declared values or range; a spec's define, function or named effect that shadows a built-in.
Sampled: hidden contents deducible from public counts; a decision near its step budget. See
docs/authoring.md#lints.
"""
from __future__ import annotations

import dataclasses
import json
from collections import Counter

from gamespec.spec import ast as A
from gamespec.spec.builtins import BUILTINS
from gamespec.spec.structure import Checker
from gamespec.spec.visibility import VISIBILITIES
from gamespec.spec.model import Rule, rules  # noqa: F401  (rules: importable here too)

SAMPLE_GAMES = 3          # games per (player count, option set) for the deduction lint
MAX_CONFIGS = 12
SAMPLE_DECISIONS = 1_000  # a sample game is looked at for at most this many decisions
SAMPLE_TOTAL = 10_000     # ... and all sample games together for at most this many states


# Every lint, by the name a finding carries and `lints: {allow: [{rule: ...}]}` names (the schema's
# enum of `allow.rule` is this table: tests/test_authoring.py holds them equal). Two findings are not
# in it, so no spec acknowledges them: allow-unused (a stale acknowledgement) and option-no-range (a
# whole-number option with neither `values` nor `range`: declaring the range is always the fix)
CHECKS = ("action-never-offered", "choice-reveals-hidden", "deducible-hidden", "near-budget", "never-ends",
          "option-no-effect", "shadows-builtin", "unused-define", "unused-variable", "unused-zone",
          "window-reads-hidden")
#: near-budget: a sampled decision that used more than this share of its step budget, or listed more
#: than this share of the values a parameter may have (gamespec/mirrors.py MAX_CHOICES)
NEAR = 0.5


@dataclasses.dataclass
class Finding:
    check: str
    message: str
    file: str
    line: int
    col: int
    name: str = ""          # what it is about (a zone, variable, action... by its name), "" if the spec
    allowed: str = ""       # the spec's reason when its `lints: allow` acknowledges it (no warning then)

    def __str__(self):
        if self.allowed:
            return (f"{self.file}:{self.line}:{self.col}: allowed: {self.message} [{self.check}] "
                    f"(the spec says: {self.allowed})")
        return f"{self.file}:{self.line}:{self.col}: warning: {self.message} [{self.check}]"

    def to_json(self):
        return dataclasses.asdict(self)


class _RecordingChecker(Checker):
    """The checker, noting which defines it inlines (a define never inlined is never used)."""

    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self.used_defines = set()

    def inline(self, n, args, scope):
        self.used_defines.add(n.func if isinstance(n, A.Call) else n.id)
        return super().inline(n, args, scope)


def load_for_lint(path):
    """(Game, raw data, recording checker); SpecErrors propagate."""
    import hashlib

    from gamespec.spec import graph as _graph
    from gamespec.errors import SpecError, SpecErrors
    from gamespec.game import Game
    from gamespec.spec.schema import validate
    from gamespec.spec.yamlsafe import load_yaml, read_limited
    try:
        raw = read_limited(str(path))
        data = load_yaml(raw, str(path))
    except SpecError as e:
        raise SpecErrors([e]) from None
    validate(data, str(path))
    ck = _RecordingChecker(data, str(path), hashlib.sha256(raw).hexdigest())
    spec = ck.run()
    spec.checker = ck
    g = _graph.build(spec)
    _graph.check(spec, g, data, str(path))
    spec.graph = g
    return Game(spec), data, ck


def nodes(rule):
    roots = rule.ast if isinstance(rule.ast, list) else [rule.ast]
    for r in roots:
        if isinstance(r, A.Node):
            yield from A.walk(r)


def _mark(data, *path):
    node, mark = data, getattr(data, "mark", (1, 1))
    for p in path:
        try:
            km = getattr(node, "key_marks", {})
            mark = km.get(p, mark) if isinstance(km, dict) else mark
            im = getattr(node, "item_marks", None)      # a list's item: where it starts
            if isinstance(p, int) and im and 0 <= p < len(im):
                mark = im[p]
            node = node[p]
        except (KeyError, IndexError, TypeError):
            break
    return mark[0], mark[1]


def lint(path, games: int = SAMPLE_GAMES, progress=None) -> list[Finding]:
    """Every lint finding for a spec file, in file order. Raises SpecErrors if the spec has errors."""
    game, data, ck = load_for_lint(path)
    spec = game.spec
    f = str(path)
    out = []

    def add(check, msg, *where):
        name = str(where[-1]).split("(")[0].strip() if len(where) > 1 else ""
        out.append(Finding(check, msg, f, *_mark(data, *where), name=name))

    used_zones, read_vars, written_vars, used_options = set(), set(), set(), set()
    targets = set()
    for r in rules(spec):
        for n in nodes(r):
            if isinstance(n, A.Assign):
                targets.add(id(n.target))
                if isinstance(n.target, A.Index):
                    targets.add(id(n.target.obj))
        for n in nodes(r):
            ref = getattr(n, "ref", None)
            if not ref:
                continue
            kind, what = ref[0], ref[1]
            if kind in ("zone", "family", "member"):
                used_zones.add(what.name)
            elif kind in ("var", "pvar", "tvar"):
                (written_vars if id(n) in targets else read_vars).add(what.name)
            elif kind == "option":
                used_options.add(what)
    for a in spec.actions.values():
        for p in a.params:
            if p.family:
                used_zones.add(p.family)
        for var, _ in a.cost:
            read_vars.add(var)
            written_vars.add(var)
    for z in spec.zones.values():
        if z.refill_from:
            used_zones.update((z.name, z.refill_from))

    for name in spec.zones:
        if name not in used_zones:
            add("unused-zone", f"zone '{name}' is never used by any rule (no card is placed, moved or "
                               "counted there)", "zones", name)
    for name in spec.variables:
        if name not in read_vars and name not in written_vars:
            add("unused-variable", f"variable '{name}' is never used by any rule", "variables", name)
        elif name not in read_vars and VISIBILITIES[spec.variables[name].visibility].nobody:
            # a variable players see is information for them even if no rule reads it (a round
            # counter); a hidden one that no rule reads is dead
            add("unused-variable", f"variable '{name}' is hidden and set but never read by any rule: "
                                   "nothing can ever use its value", "variables", name)
    for key in (data.get("define") or {}):
        name = str(key).split("(")[0].strip()
        if name in ck.defines and name not in ck.used_defines:
            add("unused-define", f"define '{name}' is never used", "define", key)
    for section, what in (("define", "define"), ("functions", "function"), ("effects", "named effect")):
        for key in (data.get(section) or {}):
            name = str(key).split("(")[0].strip()
            if name in BUILTINS:    # allowed (a later built-in never breaks a spec), but worth knowing
                add("shadows-builtin", f"'{name}' shadows the built-in of that name: every call of '{name}' in "
                                       f"this spec is the {what}'s", section, key)
    for name, default in spec.options.items():
        if name not in used_options:
            add("option-no-effect", f"option '{name}' has no effect: no rule reads it", "options", name)
        if not isinstance(default, bool) and not spec.option_values.get(name) and name not in spec.option_ranges:
            add("option-no-range", _no_range_message(name, default), "options", name)

    offered = offered_actions(spec)
    for name in spec.actions:
        if name not in offered:
            add("action-never-offered", f"action '{name}' is never offered: no step of a reachable phase "
                                        "lists it in 'choose' or 'fallback'", "actions", name)

    revealing = set()
    for a in spec.actions.values():     # a condition reading a hidden mark: found without sampling luck
        conds = [a.cond] + [p.where for p in a.params]
        hidden = sorted({n.mark.name for r in conds if r is not None for n in nodes(r)
                         if isinstance(n, A.Call) and n.func == "mark" and getattr(n, "mark", None) is not None
                         and VISIBILITIES[n.mark.visibility].nobody})
        if hidden:
            revealing.add(a.name)
            add("choice-reveals-hidden", f"the legal actions of '{a.name}' depend on the hidden mark "
                f"'{hidden[0]}' (its 'if' or a parameter's 'where' reads it): the choices offered tell the "
                "player who chooses about a mark nobody sees", "actions", a.name)
    for react in _windows(spec):    # who may respond is public: the list must read public facts only
        hidden = _hidden_reads(spec, react.iter.ast) if react.iter is not None else None
        if hidden:
            add("window-reads-hidden", f"the players who may respond in the reaction window at {react.path} "
                f"are computed from {hidden}, which not everyone sees: everyone sees who is asked, so the "
                "list tells them what it read (docs/hidden-information.md)", *_step_path(react.path))
    from gamespec.simulate import finish_probe, unfinished_message
    probe = finish_probe(game, spec.min_players, game.check_options({}))
    if probe["ended"] == 0 and probe["tried"] > probe["errors"]:
        add("never-ends", unfinished_message(probe, spec.min_players, {}), "name")
    for check, name, msg in sampled_lints(game, games=games, progress=progress,
                                          checks=("deducible-hidden", "choice-reveals-hidden", "near-budget")):
        if check == "choice-reveals-hidden" and name in revealing:
            continue
        if check == "near-budget":
            add(check, msg, *(_step_path(name) if name else ["limits"] if "limits" in data else ["name"]))
            continue
        add(check, msg, "zones" if check == "deducible-hidden" else "actions", name)
    out.sort(key=lambda x: (x.line, x.col, x.check))
    return _acknowledge(out, data, f)


def _no_range_message(name, default):
    """option-no-range: a whole-number option that declares neither `values` nor `range` takes any
    whole number from the command line or the API (a negative count, a stack beyond a parameter's
    bound), and the game then fails deep inside; the message says what to declare."""
    lo, hi = min(default, 1), max(default, 10)
    return (f"option '{name}' accepts any whole number: declare the values the game works at, as "
            f"range: [LOW, HIGH] (both ends included, such as range: [{lo}, {hi}]) or values: [...]")


def _acknowledge(found, data, f):
    """The spec's `lints: {allow: [{rule, name?, why}]}` marks the findings it names as allowed (they
    are listed with the reason, and no longer warnings: a game where counting cards is part of the game
    passes `check --strict`). An acknowledgement that matches nothing is itself a warning: it went stale."""
    allow = ((data.get("lints") or {}).get("allow") or []) if isinstance(data, dict) else []
    for k, entry in enumerate(allow):
        hit = [x for x in found if x.check == entry["rule"] and entry.get("name", x.name) == x.name]
        for x in hit:
            x.allowed = entry["why"]
        if not hit:
            what = entry["rule"] + (f" about '{entry['name']}'" if "name" in entry else "")
            found.append(Finding("allow-unused", f"lints.allow: no {what} finding to allow (remove the entry, "
                                 "or correct its rule or name)", f, *_mark(data, "lints", "allow", k)))
    return found


def _windows(spec):
    """Every reaction window (react step) of the spec's phases, nested ones included."""
    out = []

    def walk(steps):
        for st in steps:
            if st.kind == "react":
                out.append(st)
            walk(st.body)
            walk(st.orelse)
    for ph in spec.phases.values():
        if ph.turn is not None:
            walk(ph.turn.steps)
    return out


def _hidden_reads(spec, node):
    """The first zone or variable not everyone sees that an expression reads (a zone's size is
    public: it is not counted), in words; None if it reads public facts only."""
    sized = {id(a) for x in A.walk(node) if isinstance(x, A.Call) and x.func == "size" for a in x.args}
    for x in A.walk(node):
        ref = getattr(x, "ref", None)
        if not ref or id(x) in sized:
            continue
        if ref[0] in ("zone", "member") and not VISIBILITIES[ref[1].visibility].everyone:
            return f"the zone '{ref[1].name}'"
        if ref[0] in ("var", "pvar", "tvar") and not VISIBILITIES[ref[1].visibility].everyone:
            return f"the variable '{ref[1].name}'"
    return None


def _step_path(path):
    """A step's path (phases.p.turn.steps[1].then[0]) as keys for _mark."""
    import re
    out = []
    for part in path.split("."):
        m = re.match(r"^(\w+)((?:\[\d+\])*)$", part)
        if not m:
            break
        out.append(m.group(1))
        out.extend(int(i) for i in re.findall(r"\[(\d+)\]", m.group(2)))
    return out


def offered_actions(spec) -> set:
    reachable, todo = set(), [spec.start]
    while todo:
        ph = todo.pop()
        if ph in reachable or ph not in spec.phases:
            continue
        reachable.add(ph)
        todo.extend(t for _, t in spec.phases[ph].next)
    out = set()

    def steps(ss):
        for s in ss:
            out.update(s.actions)
            out.update(s.fallback)
            steps(s.body)
            steps(s.orelse)
    for ph in reachable:
        t = spec.phases[ph].turn
        if t is not None:
            steps(t.steps)
    return out


# ---- hidden contents deducible by counting -----------------------------------------------------
def zone_classes(spec) -> dict:
    """Zone name → the card classes that may ever lie there: a fixed point over the initial zones,
    every move/deal and every refill. Unknown sources or targets count as 'any', so the sets are
    over-approximations (never miss a class), which keeps the deduction sound."""
    classes = frozenset(c.name for c in spec.classes)
    zones = list(spec.zones)
    S = {z: set() for z in zones}
    V = {v: set() for v in spec.variables}

    def zone_names(e):
        ref = getattr(e, "ref", None)
        if ref and ref[0] in ("zone", "family", "member"):
            return [ref[1].name]
        return zones

    def cls_of(e, env):
        ref = getattr(e, "ref", None)
        if ref:
            if ref[0] in ("zone", "family", "member"):
                return S[ref[1].name]
            if ref[0] in ("var", "pvar", "tvar"):
                return V[ref[1].name]
            if ref[0] == "local":
                return env.get(ref[1], classes)
            if ref[0] == "item":
                return cls_of(e.obj, env)
        if isinstance(e, A.Const):
            return set()
        if isinstance(e, A.ListLit):
            return set().union(*(cls_of(x, env) for x in e.items)) if e.items else set()
        if isinstance(e, A.BinOp) and e.op == "+":
            return cls_of(e.left, env) | cls_of(e.right, env)
        if isinstance(e, A.Comp):
            if isinstance(e.elt, A.Name) and e.elt.id == e.var:
                return cls_of(e.iter, env)
            return classes
        if isinstance(e, A.Call) and e.func in ("top", "bottom", "first", "last", "sorted", "cards") and e.args:
            return cls_of(e.args[0], env)
        return classes

    def stmts(ss, env):
        for s in ss:
            if isinstance(s, A.Let):
                env[s.name] = set(env.get(s.name, set())) | cls_of(s.value, env)
            elif isinstance(s, A.Assign):
                ref = getattr(s.target, "ref", None)
                if ref and ref[0] in ("var", "pvar", "tvar"):
                    V[ref[1].name] |= cls_of(s.value, env)
                elif ref and ref[0] == "local":
                    env[ref[1]] = set(env.get(ref[1], set())) | cls_of(s.value, env)
            elif isinstance(s, A.CallStmt):
                c = s.call
                if c.func == "move":
                    src = cls_of(c.args[0], env)
                    for z in zone_names(c.args[1]):
                        S[z] |= src
                elif c.func == "deal":
                    src = set().union(*(S[z] for z in zone_names(c.args[0])))
                    for z in zone_names(c.args[1]):
                        S[z] |= src
            elif isinstance(s, A.If):
                for _, body in s.branches:
                    stmts(body, env)
                stmts(s.orelse, env)
            elif isinstance(s, A.For):
                env[s.var] = set(env.get(s.var, set())) | cls_of(s.iter, env)
                stmts(s.body, env)
            elif isinstance(s, A.While):
                stmts(s.body, env)

    def effect_rules(env):
        for r in rules(spec):
            if isinstance(r.ast, list):
                yield r, env

    for cl in spec.classes:
        for attrs, count, zr, cond in cl.faces:
            r = zr or cl.zone
            names = {n.ref[1].name for n in nodes(r) if getattr(n, "ref", None)
                     and n.ref[0] in ("zone", "family", "member")} if r else set()
            for z in names or zones:
                S[z].add(cl.name)
    for _ in range(64):
        before = sum(map(len, S.values())) + sum(map(len, V.values()))
        for z in spec.zones.values():
            if z.refill_from:
                S[z.name] |= S[z.refill_from]
        for a in spec.actions.values():
            env = {}
            for p in a.params:
                if p.source is not None and p.kind in ("card", "subset"):
                    env[p.name] = set(cls_of(p.source.ast, env))
            if a.effect is not None:
                stmts(a.effect.ast, env)
        for r in rules(spec):
            if isinstance(r.ast, list) and not any(r is a.effect for a in spec.actions.values()):
                stmts(r.ast, {})
        if sum(map(len, S.values())) + sum(map(len, V.values())) == before:
            break
    return S


def shuffled_piles(spec) -> set:
    """Piles the rules shuffle: draw piles, whose secret is their order, not their contents."""
    out = set()
    for r in rules(spec):
        for n in nodes(r):
            if isinstance(n, A.Call) and n.func == "shuffle" and n.args:
                ref = getattr(n.args[0], "ref", None)
                if ref and ref[0] in ("zone", "family", "member") and ref[1].kind == "pile":
                    out.add(ref[1].name)
    for z in spec.zones.values():
        if z.refill_from and z.refill_shuffle:
            out.add(z.name)
    return out


def sampled_states(game, games=SAMPLE_GAMES, progress=None):
    """The states of sample games played with random moves: (state, witness) at every decision and
    at the end, for each player count and option set (at most MAX_CONFIGS), seeds 0..games-1. The
    witness says how to reach the state ("3 players, fast=true, seed 1, before decision 7")."""
    import random

    spec = game.spec
    configs = [(n, o) for n in range(spec.min_players, spec.max_players + 1) for o in game.option_sets()]
    configs = configs[:MAX_CONFIGS]
    seen = 0
    for ci, (players, opts) in enumerate(configs):
        for seed in range(games):
            if progress:
                progress(ci * games + seed, len(configs) * games)
            try:
                s = game.new_game(players=players, seed=seed, options=opts)
            except Exception:     # a failing game is `validate`'s and `simulate`'s business
                break
            rng = random.Random(seed)
            o = ", ".join(f"{k}={str(v).lower()}" for k, v in opts.items() if v != spec.options[k])
            while True:
                yield s, (f"{players} players{', ' + o if o else ''}, seed {seed}, "
                          f"{'before decision ' + str(s.decisions + 1) if not s.is_terminal else 'at the end'}")
                seen += 1
                if seen >= SAMPLE_TOTAL:
                    return
                if s.is_terminal or s.decisions >= SAMPLE_DECISIONS:    # bounded, also for a game
                    break                                                 # random moves never end
                try:
                    s.apply(rng.choice(s.legal_actions()))
                except Exception:
                    break


def deducible_hidden(game, games=SAMPLE_GAMES, progress=None):
    """Play sample games with random bots; at every decision look for a zone whose cards not seen by
    everyone can be named from public information: the spec's totals minus every card all players
    see or remember, when no other zone with such cards may hold cards of those classes.
    Yields (zone name, message) once per zone, with a witness (players, options, seed, decision)."""
    for check, name, msg in sampled_lints(game, games, progress, ("deducible-hidden",)):
        yield name, msg


def sampled_lints(game, games=SAMPLE_GAMES, progress=None, checks=("deducible-hidden", "choice-reveals-hidden")):
    """(check, zone or action name, message) of the lints found by playing sample games, each name
    once per check, with a witness."""
    import random

    from gamespec.interpreter.observe import card_view
    may_hold = zone_classes(game.spec)
    skip = shuffled_piles(game.spec)
    reported = set()
    draw = random.Random(0)
    for s, witness in sampled_states(game, games, progress):
        if "deducible-hidden" in checks:
            for zone, msg in _deductions(s, may_hold, skip, card_view):
                if ("deducible-hidden", zone) not in reported:
                    reported.add(("deducible-hidden", zone))
                    yield "deducible-hidden", zone, f"{msg} (witness: {witness})"
        if "near-budget" in checks:
            found = _near_budget(s)
            if found and ("near-budget", found[0]) not in reported:
                reported.add(("near-budget", found[0]))
                yield "near-budget", found[0], f"{found[1]} (witness: {witness})"
        if "choice-reveals-hidden" in checks and not s.is_terminal:
            found = _revealing_choice(s, draw)
            if found and ("choice-reveals-hidden", found[0]) not in reported:
                reported.add(("choice-reveals-hidden", found[0]))
                yield "choice-reveals-hidden", found[0], f"{found[1]} (witness: {witness})"


def _near_budget(s):
    """(the decision point's step path, or "" at the end; message) when the decision that led to state
    s used more than NEAR of its step budget (its effect, the flow and the listing of the next
    choices), or the listing holds more than NEAR of MAX_CHOICES choices; else None."""
    from gamespec.mirrors import MAX_CHOICES
    rs = s.rs
    used, budget = rs.max_steps - s.budget, rs.max_steps
    where = rs.chooses[s.pending].path if not s.is_terminal and s.pending >= 0 else ""
    if used > NEAR * budget:
        return where, (f"a decision used {used:,} of its {budget:,} steps ({100 * used // budget}%)"
                       + (f", listing the choices at {where}" if where else ", ending the game")
                       + ": a longer game or a fuller hand may exhaust the step budget; raise "
                       "limits.steps_per_decision or make the listing cheaper (docs/language.md, Limits)")
    n = len(s.legal_actions()) if where else 0
    if n > NEAR * MAX_CHOICES:
        return where, (f"a decision lists {n:,} choices at {where}, more than half the {MAX_CHOICES:,} values "
                       "a parameter may have (beyond: a run-time error); split the choice in two decisions "
                       "(docs/language.md, Limits)")
    return None


def _revealing_choice(s, rng):
    """(action name, message) when the legal actions of the player to move, as they see them, differ
    in a determinization for them (a game they cannot tell from this one): the choices they are
    offered then tell them something they cannot see. None otherwise."""
    p = s.current_player
    if p is None:
        return None
    try:
        mine = s.view(p).legal_actions
        world = s.view(p).determinize(rng)
        other = world.view(p).legal_actions
    except Exception:       # a spec that fails in a determinization is `simulate`'s business
        return None
    here, there = _by_name(mine), _by_name(other)
    for name in s.rs.spec.actions:      # in declaration order: the first action whose choices differ
        a, b = here.get(name, []), there.get(name, [])
        if a != b:
            how = (f"{len(a)} here, {len(b)} in a game they cannot tell from this one" if len(a) != len(b)
                   else f"as many, but not the same ones ({_shown(a, b)} here)")
            return name, (f"the legal actions of '{name}' tell player {p} about what they cannot see: "
                          f"offered {how}; a condition of the action (its 'if', or a parameter's 'where') "
                          "reads a card, mark or variable hidden from the player who chooses")
    return None


def _by_name(actions):
    out = {}
    for a in actions:
        j = a.to_json(label=False)
        out.setdefault(j.get("action"), []).append(json.dumps(j, sort_keys=True))
    return {k: sorted(v) for k, v in out.items()}


def _shown(a, b):
    only = [x for x in a if x not in b]
    return only[0] if only else a[0]


def _deductions(s, may_hold, skip, card_view):
    """Deductions from public information only: the cards every player sees or remembers."""
    rs = s.rs
    bits = [1 << p for p in range(rs.P)]
    total = Counter(rs.face_of)
    known = Counter()
    hidden = {}
    for zi, cs in enumerate(s.z):
        h = 0
        for c in cs:
            if any(card_view(s, c, b) is None for b in bits):
                h += 1
            else:
                known[rs.face_of[c]] += 1
        if h:
            hidden[zi] = h
    unknown = total - known
    face_class = {f: rs.faces[f]["type"] for f in unknown}
    cand = {zi: {f for f in unknown if face_class[f] in may_hold[rs.zone_decl[zi].name]} for zi in hidden}
    for zi, fs in cand.items():
        decl = rs.zone_decl[zi]
        if decl.name in skip or not fs:
            continue
        # Every unknown card lies in some slot not seen by all; the zone's slots hold only faces it
        # may hold. So when the unknown cards with those faces are exactly as many as its slots, they
        # are its slots (whatever other zones may hold).
        multiset = {f: unknown[f] for f in fs}
        if sum(multiset.values()) != hidden[zi]:
            continue
        what = ", ".join(f"{n} x {rs.face_label[f]}" for f, n in sorted(multiset.items(), key=lambda x: rs.face_label[x[0]]))
        n = hidden[zi]
        order = " (not their order)" if decl.kind == "pile" and len(multiset) > 1 else ""
        yield decl.name, (f"the hidden card{'s' if n > 1 else ''} of '{rs.zone_label[zi]}' can be deduced "
                          f"from public counts{order}: every player sees or remembers every other card that "
                          f"may lie there, so the {n} not seen by all {'are' if n > 1 else 'is'}: {what}")
