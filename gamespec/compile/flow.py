"""Checked phases and steps → a flat program of instructions `ins(state) -> next pc` with labels resolved.

The program is the phase graph made executable: game begin, then per phase `begin → turn check →
turn begin → steps → turn end → (next turn | phase end) → next phase`, and the game end. A `choose`
instruction suspends the run until `State.apply` resumes it, so a state is just data (pc + values).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, NamedTuple

from gamespec.errors import SpecRuntimeError
from gamespec.interpreter.actions import Action
from gamespec.interpreter.runtime import EndGame, EndPhase, EndTurn, pending_choices

from ..spec import ast as A
from .depends import card_source, reads, writes
from .labels import compile_value

SUSPEND = -1
TERMINAL = -2


# -- the flow program: a declared intermediate representation -------------------------------------
@dataclass(eq=False, kw_only=True)
class Ins:
    """One instruction of the flat flow program (docs/native.md, "One table of mirrors"). Its fields
    hold what the Python engine runs (compiled rules, labels, scopes); `rules` holds the checked Rule
    of each compiled field (field -> Rule; `nexts`: a list, one per transition), which the C
    generator and compile/fused.py read: no consumer gets a rule back from a compiled function."""
    KIND: ClassVar[str] = ""
    #: why the C generator does not compile this kind yet (None: it does); tests/test_mirrors.py holds
    #: it true both ways
    NATIVE_NOT_YET: ClassVar[str | None] = None
    rules: dict = field(default_factory=dict, repr=False)

    def __iter__(self):                  # `kind, a = ins`: consumers read a's fields as a["fn"] or a.fn
        return iter((self.KIND, self))

    def __getitem__(self, name):
        return getattr(self, name)

    def get(self, name, default=None):
        return getattr(self, name, default)

    def rule_of(self, fn):
        """The Rule this instruction compiled into `fn` (one of its fields, or a transition's)."""
        if fn is None:
            return None
        for name, rule in self.rules.items():
            if name == "nexts":
                for (cond, _), r in zip(self.nexts, rule):
                    if cond is fn:
                        return r
            elif getattr(self, name) is fn:
                return rule
        raise LookupError(f"{self.KIND}: no rule for {fn!r}")


#: kind -> its instruction class: every kind there is, in one place (the consumers: _make here, the
#: C generator's program.Flow, compile/fused.py)
KINDS = {}


def _kind(cls):
    cls.KIND = cls.__name__.lower() if not cls.KIND else cls.KIND
    KINDS[cls.KIND] = cls
    return dataclass(eq=False, kw_only=True)(cls)


@_kind
class Hook(Ins):            # the game's or a phase's on_begin, then on to `next`
    fn: Any = None
    scope: Any = None
    next: str = ""
    where: str = ""
    set_phase: Any = None
    first: Any = None       # the phase's first player (a compiled rule)


@_kind
class PhaseCheck(Ins):      # a phase's end_if before each turn
    KIND = "phase_check"
    ph: Any = None
    end_if: Any = None
    target: str = ""
    next: str = ""


@_kind
class TurnBegin(Ins):
    KIND = "turn_begin"
    fn: Any = None
    scope: Any = None
    next: str = ""
    where: str = ""


@_kind
class TurnEnd(Ins):
    KIND = "turn_end"
    fn: Any = None
    scope: Any = None
    ph: Any = None
    end_if: Any = None
    nxt: Any = None         # the next player (a compiled rule), or None: clockwise
    phase_end: str = ""
    again: str = ""
    where: str = ""


@_kind
class PhaseEnd(Ins):
    KIND = "phase_end"
    fn: Any = None
    scope: Any = None
    ph: Any = None
    nexts: list = field(default_factory=list)     # [(compiled condition or None, label)]
    where: str = ""


@_kind
class GameEnd(Ins):
    KIND = "game_end"
    fn: Any = None


@_kind
class Do(Ins):
    fn: Any = None
    scope: Any = None
    names: dict = field(default_factory=dict)
    where: str = ""


@_kind
class Jump(Ins):
    target: str = ""


@_kind
class JumpUnless(Ins):
    KIND = "jump_unless"
    cond: Any = None
    target: str = ""
    names: dict = field(default_factory=dict)
    where: str = ""
    count: bool = False


@_kind
class ForInit(Ins):
    KIND = "for_init"
    it: Any = None
    names: dict = field(default_factory=dict)
    lkey: str = ""
    where: str = ""


@_kind
class ForNext(Ins):
    KIND = "for_next"
    lkey: str = ""
    key: str = ""
    end: str = ""
    where: str = ""         # the loop's step (a run-time fault here names it, not this instruction)


@_kind
class ForDone(Ins):
    KIND = "for_done"
    lkey: str = ""
    key: str = ""
    where: str = ""


@_kind
class Choosers(Ins):        # a simultaneous step's choosers: each a seat, once
    lkey: str = ""
    where: str = ""


@_kind
class Reveal(Ins):          # a simultaneous step's stored choices, revealed and applied in `order`
    ch: Any = None
    order: Any = None
    where: str = ""


@_kind
class Choose(Ins):          # a decision point (ChooseRT holds its rules: guard, player)
    ch: Any = None


@_kind
class WindowOpen(Ins):
    KIND = "window_open"
    lkey: str = ""
    took: str = ""
    where: str = ""


@_kind
class WindowCheck(Ins):
    KIND = "window_check"
    took: str = ""
    end: str = ""


@_kind
class WindowReveal(Ins):
    KIND = "window_reveal"
    ch: Any = None
    took: str = ""
    until: str = ""
    where: str = ""
    priority: Any = None    # the responses by rank, the first beating the others (None: the players' order)


@_kind
class WindowClose(Ins):
    KIND = "window_close"
    took: str = ""
    out: str = ""
    until: str = ""


@_kind
class WindowBranch(Ins):
    KIND = "window_branch"
    out: str = ""
    until: str = ""
    target: str = ""


@_kind
class WindowDone(Ins):
    KIND = "window_done"
    out: str = ""


class Compiled(NamedTuple):
    """A checked Rule and the function the backend compiled of it, side by side: the rule travels as
    data (the Ruleset's end condition and triggers, a turn's end condition; `Emitter.emit` files them
    in an instruction as its field and `rules`), so nothing reads a rule back from a function."""
    fn: Any
    rule: Any


class Scope:
    """Which end conditions apply after a block of effects run at this instruction."""
    __slots__ = ("phase", "turn")

    def __init__(self, phase=None, turn=False):
        self.phase = phase   # PhaseRT or None
        self.turn = turn


class PhaseRT:
    def __init__(self, idx, decl):
        self.idx = idx
        self.name = decl.name
        self.decl = decl
        self.labels = {}


class ChooseRT:
    """A decision point: compiled once; `State.legal_actions` enumerates its actions."""

    def __init__(self, idx, step, path):
        self.idx = idx
        self.step = step
        self.path = path
        self.pc = None
        self.next = None
        self.scope = None
        self.actions = []
        self.fallback = []
        self.guard = None
        self.player = None
        # `actor` in the condition or the player expression reads the previous decider when it ran,
        # so a saved state's pending decision cannot be re-checked against it (interpreter/serial.py)
        self.guard_reads_actor = False
        self.player_reads_actor = False
        self.names = {}
        self.fused = None       # action name -> fused function (compile/fused.py), generated code only
        self.window = None      # a reaction window's: the flow key noting who responded (#took<n>)
        self.secret = False
        self.rules = {}         # "guard", "player" -> its Rule (the C generator reads these)


class Emitter:
    def __init__(self, rs, comp):
        self.rs = rs
        self.comp = comp
        self.code = []       # Ins
        self.labels = {}
        self.chooses = []

    def label(self, name):
        self.labels[name] = len(self.code)

    def expr(self, rule, names=None):
        return None if rule is None else Compiled(self.comp.expr(rule, names), rule)

    def effects(self, rule, names=None):
        return None if rule is None else Compiled(self.comp.effects(rule, names), rule)

    def emit(self, kind, **args):
        """An instruction of KINDS[kind]; each compiled rule (Compiled) is filed as its function in the field
        and its Rule in `rules`."""
        rules = {}
        for k, v in args.items():
            if isinstance(v, Compiled):
                args[k], rules[k] = v.fn, v.rule
            elif k == "nexts":
                args[k] = [(c.fn if c is not None else None, t) for c, t in v]
                rules[k] = [c.rule if c is not None else None for c, _ in v]
        self.code.append(KINDS[kind](rules=rules, **args))
        return len(self.code) - 1

    # -- steps --------------------------------------------------------------------------
    def steps(self, steps, names, scope, ctx):
        for st in steps:
            self.step(st, names, scope, ctx)

    def step(self, st, names, scope, ctx):
        c = self.comp
        guard = self.expr(st.guard, names)
        uid = len(self.code)
        skip_label = f"skip{uid}"
        if guard is not None and st.kind != "choose":
            self.emit("jump_unless", cond=guard, target=skip_label, names=names, where=st.path)
        if st.kind == "do":
            self.emit("do", fn=self.effects(st.effect, names), scope=scope, names=names, where=st.path)
        elif st.kind == "choose":
            self.choose(st, guard, names, scope)
        elif st.kind == "react":
            self.react(st, names, scope, ctx, uid)
        elif st.kind == "if":
            cond = self.expr(st.cond, names)
            else_l, end_l = f"else{uid}", f"endif{uid}"
            self.emit("jump_unless", cond=cond, target=else_l, names=names, where=st.path)
            self.steps(st.body, names, scope, ctx)
            self.emit("jump", target=end_l)
            self.label(else_l)
            self.steps(st.orelse, names, scope, ctx)
            self.label(end_l)
        elif st.kind == "repeat":
            top = f"rep{uid}"
            self.label(top)
            self.steps(st.body, names, scope, ctx)
            self.emit("jump_unless", cond=self.expr(st.cond, names), target=top, names=names,
                      where=st.path, count=True)
        elif st.kind == "while":
            top, end = f"while{uid}", f"endwhile{uid}"
            self.label(top)
            self.emit("jump_unless", cond=self.expr(st.cond, names), target=end, names=names,
                      where=st.path, count=True)
            self.steps(st.body, names, scope, ctx)
            self.emit("jump", target=top)
            self.label(end)
        elif st.kind == "for":
            key = f"{st.var}#{uid}"   # the same name under every backend (saved states move between them)
            inner = dict(names)
            inner[st.var] = key
            if _over_players(st.iter.ast) and hasattr(c, "valid_keys"):
                c.valid_keys.add(key)  # iterating the players: the variable always holds a seat
            top, end = f"for{uid}", f"endfor{uid}"
            lkey = f"#list{uid}"
            self.emit("for_init", it=self.expr(st.iter, names), names=names, lkey=lkey, where=st.path)
            if st.simultaneous:         # each chooser a seat, once
                self.emit("choosers", lkey=lkey, where=st.path)
            self.label(top)
            self.emit("for_next", lkey=lkey, key=key, end=end, where=_located(st))
            self.steps(st.body, inner, scope, ctx)
            self.emit("jump", target=top)
            self.label(end)
            self.emit("for_done", lkey=lkey, key=key, where=_located(st))
            if st.simultaneous:        # all have chosen: reveal and resolve (docs/language.md)
                self.emit("reveal", ch=self.chooses[-1], order=st.order, where=st.path)
        if guard is not None and st.kind != "choose":
            self.label(skip_label)

    def choose(self, st, guard, names, scope, window=None):
        ch = ChooseRT(len(self.chooses), st, st.path)
        player = self.expr(st.player, names)
        ch.guard = guard.fn if guard is not None else None
        ch.player = player.fn if player is not None else None
        ch.rules = {k: r.rule for k, r in (("guard", guard), ("player", player)) if r is not None}
        ch.guard_reads_actor = _reads_actor(st.guard)
        ch.player_reads_actor = _reads_actor(st.player)
        ch.actions = [self.rs.actions[a] for a in st.actions]
        ch.fallback = [self.rs.actions[a] for a in st.fallback]
        ch.scope = scope
        ch.names = names
        ch.secret = st.simultaneous    # a simultaneous step's choice: stored, applied at the reveal
        if window is not None:
            ch.window = window         # a reaction window's: State notes each response there
        self.chooses.append(ch)
        self.emit("choose", ch=ch)
        return ch

    def react(self, st, names, scope, ctx, uid):
        """A reaction window (docs/language.md): a `for` over the players who may respond around one
        choose (each response noted in `#took<uid>`; at_once: stored, then revealed), then the outcome
        in `#as<uid>` (named by `as`) and the `then` or the `else` steps."""
        c = self.comp
        key, lkey, took, out = f"{st.var}#{uid}", f"#list{uid}", f"#took{uid}", f"#as{uid}"
        self.rs.step_uids[id(st)] = uid
        inner = dict(names)
        inner[st.var] = key
        if hasattr(c, "valid_keys"):
            c.valid_keys.add(key)      # window_open checks every listed player is a seat
        top, end = f"for{uid}", f"endfor{uid}"
        self.emit("for_init", it=self.expr(st.iter, names), names=names, lkey=lkey, where=st.path)
        self.emit("window_open", lkey=lkey, took=took, where=st.path)
        self.label(top)
        self.emit("for_next", lkey=lkey, key=key, end=end, where=_located(st))
        ch = self.choose(st.inner, None, inner, scope, window=took)
        if st.ask == "in_turn" and st.until == "first":
            self.emit("window_check", took=took, end=end)
        self.emit("jump", target=top)
        self.label(end)
        self.emit("for_done", lkey=lkey, key=key, where=_located(st))
        if st.ask == "at_once":
            self.emit("window_reveal", ch=ch, took=took, until=st.until, where=st.path, priority=st.priority)
        self.emit("window_close", took=took, out=out, until=st.until)
        else_l, done = f"welse{uid}", f"wdone{uid}"
        self.emit("window_branch", out=out, until=st.until, target=else_l)
        sub = dict(names)
        if st.bind:
            sub[st.bind] = out
        self.steps(st.body, sub, scope, ctx)
        self.emit("jump", target=done)
        self.label(else_l)
        self.steps(st.orelse, sub, scope, ctx)
        self.label(done)
        self.emit("window_done", out=out)


def _over_players(node):
    if isinstance(node, A.Name) and node.ref == ("const", "players"):
        return True
    return isinstance(node, A.Call) and node.func in ("others", "players_from")


def build(rs, spec, comp):
    """Emit the whole program and turn it into closures. Returns (program, chooses, pc names)."""
    rs.codegen = comp if hasattr(comp, "after") else None   # the generated-code backend
    rs.step_uids = {}       # id(react step) -> the number its flow variables carry (#took<n>, #as<n>)
    em = Emitter(rs, comp)
    phases = {name: PhaseRT(i, decl) for i, (name, decl) in enumerate(spec.phases.items())}
    rs.phases = list(phases.values())
    game_scope = Scope()
    em.label("game_begin")
    em.emit("hook", fn=em.effects(spec.on_begin), scope=game_scope, next=f"begin:{spec.start}",
            where="on_begin", set_phase=None)
    for ph in phases.values():
        d = ph.decl
        n = ph.name
        pscope = Scope(ph, False)
        tscope = Scope(ph, True)
        em.label(f"begin:{n}")
        em.emit("hook", fn=em.effects(d.on_begin), scope=Scope(ph, False),
                next=f"check:{n}" if d.turn else f"end:{n}", where=f"phases.{n}.on_begin",
                set_phase=ph, first=em.expr(d.turn.first) if d.turn else None)
        if d.turn:
            t = d.turn
            em.label(f"check:{n}")
            em.emit("phase_check", ph=ph, end_if=em.expr(d.end_if), target=f"end:{n}",
                    next=f"turn:{n}")
            em.label(f"turn:{n}")
            em.emit("turn_begin", fn=em.effects(t.on_begin), scope=tscope, next=f"steps:{n}",
                    where=f"phases.{n}.turn.on_begin" if t.on_begin is not None else f"phases.{n}.turn (its start)")
            em.label(f"steps:{n}")
            em.steps(t.steps, {}, tscope, ph)
            em.label(f"turnend:{n}")
            em.emit("turn_end", fn=em.effects(t.on_end), scope=pscope, ph=ph,
                    end_if=em.expr(d.end_if), nxt=em.expr(t.next),
                    phase_end=f"end:{n}", again=f"turn:{n}",
                    where=f"phases.{n}.turn.on_end" if t.on_end is not None else f"phases.{n}.turn (its end)")
        ph.turn_end_if = em.expr(d.turn.end_if) if d.turn else None    # a Compiled, or None
        em.label(f"end:{n}")
        em.emit("phase_end", fn=em.effects(d.on_end), scope=game_scope, ph=ph,
                nexts=[(em.expr(cond) if cond else None,
                        "game_end" if target == "end" else f"begin:{target}") for cond, target in d.next],
                where=f"phases.{n}.on_end" if d.on_end is not None else f"phases.{n} (its end)")
    em.label("game_end")
    em.emit("game_end", fn=em.effects(spec.on_end))
    labels = em.labels
    for ph in phases.values():
        ph.labels = {k.split(":")[0]: v for k, v in labels.items() if k.endswith(":" + ph.name)}
    rs.GAME_END = labels["game_end"]
    code = em.code
    rs.flow_code, rs.flow_labels = code, labels      # for compile/fused.py

    def goto(pc):
        """A jump's target, followed through chains of plain jumps (so no step is a bare jump)."""
        seen = set()
        while pc < len(code) and code[pc].KIND == "jump" and pc not in seen:
            seen.add(pc)
            pc = labels[code[pc].target]
        return pc

    rs.flow_goto = goto
    prog = []
    names = []
    for pc, (kind, args) in enumerate(code):
        prog.append(_make(rs, comp, pc, kind, args, labels, goto))
        names.append(args.get("where") or kind)
    return prog, em.chooses, names


# -- running blocks of effects ------------------------------------------------------------
def fire_triggers(s, triggers):
    """Run the triggers (pairs of Compiled condition and effects) to a fixed point (each firing
    charges the step budget)."""
    fired = True
    while fired:
        fired = False
        for cond, eff in triggers:
            if cond.fn(s, {}):
                s.budget -= 1
                if s.budget < 0:
                    raise SpecRuntimeError("step budget exhausted: triggers keep firing",
                                           eff.rule.origin if eff.rule is not None else "triggers",
                                           check="budget")
                eff.fn(s, {})
                fired = True


def make_after(rs, scope, writes=None):
    """`after(s, nxt)`: what follows any block of effects at this scope (triggers, then the game's
    and the turn's end conditions), or None when this game has nothing to check there.

    With generated code and `writes` (what the block may change, see depends.writes), also None
    when the block cannot change what the triggers and the game's end condition read: they were
    checked after every earlier change, so they still do not hold. (The turn's end condition is
    checked only in its turn, so a turn with one is always checked.)"""
    cache = rs.__dict__.setdefault("_afters", {})
    key = (id(scope.phase), scope.turn)
    if key not in cache:
        cache[key] = _make_after(rs, scope)
    after = cache[key]
    if after is None or writes is None or getattr(rs, "codegen", None) is None:
        return after
    if scope.turn and scope.phase.turn_end_if is not None:
        return after
    for c in [c for c, _ in rs.triggers] + [rs.game_end_if]:
        if c is None:
            continue
        r = _reads_of(rs, c.rule)
        if r is None or r & writes:
            return after
    return None


def _reads_of(rs, rule):
    cache = rs.__dict__.setdefault("_reads", {})
    if id(rule) not in cache:
        cache[id(rule)] = reads(rule.ast)
    return cache[id(rule)]


def action_writes(rs, rt):
    """What an action's cost and effect may change (its card parameters' cards lie where they were
    listed from), or None for anything."""
    decl = rs.spec.actions[rt.name]
    lets = {p.name: card_source(p.source.ast, {}) for p in decl.params if p.kind in ("card", "subset")}
    w = writes(decl.effect.ast, rs.spec, lets) if decl.effect is not None else set()
    if w is not None:
        w |= {("v", var) for var, _ in decl.cost}
    return w


def writes_of(rs, rule):
    """What a block of effects (its Rule, as an instruction's `rules` holds it) may change (None:
    anything; no block: nothing)."""
    if rule is None:
        return set()
    return writes(rule.ast, rs.spec)


def _make_after(rs, scope):
    triggers = tuple(rs.triggers)
    game_end_if = rs.game_end_if
    turn_end_if = scope.phase.turn_end_if if scope.turn else None
    if not triggers and game_end_if is None and turn_end_if is None:
        return None
    GAME_END = rs.GAME_END
    turnend = scope.phase.labels["turnend"] if turn_end_if is not None else None
    gen = getattr(rs, "codegen", None)
    if gen is not None:
        return gen.after(triggers, game_end_if, turn_end_if, GAME_END, turnend)
    game_end = game_end_if.fn if game_end_if is not None else None
    turn_end = turn_end_if.fn if turn_end_if is not None else None

    def after(s, nxt):
        if triggers:
            fire_triggers(s, triggers)
        if game_end is not None and game_end(s, {}):
            return GAME_END
        if turn_end is not None and turn_end(s, {}):
            return turnend
        return nxt
    return after


def make_block(rs, scope, where="", writes=None):
    """`block(s, fn, env, nxt) -> next pc`: run effects `fn`, then `after`; end_*() jump to their label.
    `writes`: what the effects may change, when one block only ever runs the same effects."""
    after = make_after(rs, scope, writes)
    GAME_END = rs.GAME_END
    end_label = scope.phase.labels["end"] if scope.phase is not None else None
    turnend = scope.phase.labels["turnend"] if scope.turn else None

    def block(s, fn, env, nxt):
        try:
            if fn is not None:
                fn(s, env)
            return nxt if after is None else after(s, nxt)
        except EndGame:
            return GAME_END
        except EndPhase:
            if end_label is None:
                raise SpecRuntimeError("end_phase() outside a phase", where) from None
            return end_label
        except EndTurn:
            if turnend is None:
                raise SpecRuntimeError("end_turn() outside a turn", where) from None
            return turnend
    return block


def env_reader(rs):
    """The flow variables as a rule's env: generated code only reads it; closures may write (`let`)."""
    if rs.backend == "closures":
        return lambda s: dict(s.fenv) if s.fenv else {}
    return lambda s: s.fenv


def make_enumerator(ch):
    """`enumerate(s) -> list of Actions` at this decision point: its actions, else its fallback,
    plus the optional step's skip."""
    acts = tuple(a.enumerate for a in ch.actions)
    fallback = tuple(a.enumerate for a in ch.fallback)
    optional = ch.step.optional
    if len(acts) == 1 and not fallback and optional is None:
        only = acts[0]

        def enumerate_one(s):
            out = []
            only(s, out)
            return out
        return enumerate_one

    def enumerate_all(s):
        out = []
        for en in acts:
            en(s, out)
        if not out and fallback:
            for en in fallback:
                en(s, out)
        if optional is not None:
            out.append(Action(("skip", (), (), (), None, optional, len(out))))
        return out
    return enumerate_all


def not_a_player(what, p, rule, where, P):
    """A rule (a checked Rule, or None: `where`) that names a player gave something else: say which
    rule, where, and what it gave."""
    shown = "true" if p is True else "false" if p is False else "none" if p is None else \
        f"player number {p}" if p.__class__ is int else f"the text '{p}'" if isinstance(p, str) else \
        "a list" if isinstance(p, list) else "not a player"
    return SpecRuntimeError(f"{what} is {shown}; it must be a player (0 to {P - 1})",
                            rule.origin if rule is not None else where, check="not-a-player")


def make_enter(rs, ch):
    """The `choose` instruction: find the decider and the legal actions (suspend), or skip."""
    guard, player, enum = ch.guard, ch.player, ch.enumerate
    player_rule = ch.rules.get("player")
    pc, nxt, idx, path, P = ch.pc, ch.next, ch.idx, ch.path, rs.P
    skippable = ch.step.optional is not None or ch.step.if_none == "skip"
    copy = rs.backend == "closures"     # closures keep comprehension variables in the env

    def enter(s):
        e = s.fenv
        if guard is not None and not guard(s, dict(e) if copy else e):
            return nxt
        if player is not None:
            p = player(s, dict(e) if copy else e)
            if p.__class__ is not int or not 0 <= p < P:
                raise not_a_player("the deciding player", p, player_rule, path, P)
        else:
            p = s.cur
        s.actor = p
        s.pc = pc
        s.pending = idx
        legal = enum(s)
        if not legal or (len(legal) == 1 and legal[0][0] == "skip"):
            s.pending = -1
            if skippable:
                return nxt
            raise SpecRuntimeError(f"player {p} has no legal action here; add 'if_none: skip' to the "
                                   "step or a fallback action", path, check="no-legal-action")
        s._legal = legal
        return SUSPEND
    return enter


def _located(st):
    """A step's place for a fault of the flow around it: FILE:LINE:COL of its first rule, and its path."""
    r = next((x for x in (st.iter, st.cond, st.guard, st.effect, st.player) if x is not None), None)
    return f"{r.filename}:{r.line}:{r.col} ({st.path})" if r is not None else st.path


def _make(rs, comp, pc, kind, a, labels, goto):
    L = labels
    fenv = env_reader(rs)
    if kind == "hook":
        fn, scope, nxt, ph, first = a["fn"], a["scope"], goto(L[a["next"]]), a["set_phase"], a.get("first")
        where, first_rule = a["where"], a.rules.get("first")
        # the game's first block checks everything (nothing was checked before it)
        block = make_block(rs, scope, where, writes_of(rs, a.rules.get("fn")) if ph is not None else None)
        P = rs.P

        def hook(s):
            if ph is not None:
                s.phase = ph.idx
            r = block(s, fn, {}, nxt)
            if first is not None and r == nxt:
                p = first(s, {})
                if p.__class__ is not int or not 0 <= p < P:
                    raise not_a_player("the first player", p, first_rule, where, P)
                s.cur = p
            return r
        return hook
    if kind == "phase_check":
        end_if, target, nxt = a["end_if"], goto(L[a["target"]]), goto(L[a["next"]])
        if end_if is None:
            return lambda s: nxt
        return lambda s: target if end_if(s, {}) else nxt
    if kind == "turn_begin":
        fn, scope, nxt, where = a["fn"], a["scope"], goto(L[a["next"]]), a["where"]
        block = make_block(rs, scope, where, writes_of(rs, a.rules.get("fn")))
        if fn is None and make_after(rs, scope, set()) is None:
            def turn_begin(s):
                s.actor = s.cur
                s.turns += 1
                return nxt
            return turn_begin

        def turn_begin_run(s):
            s.actor = s.cur
            s.turns += 1
            return block(s, fn, {}, nxt)
        return turn_begin_run
    if kind == "turn_end":
        fn, scope, end_if, nxt_fn = a["fn"], a["scope"], a["end_if"], a["nxt"]
        phase_end, again, where = goto(L[a["phase_end"]]), goto(L[a["again"]]), a["where"]
        block = make_block(rs, scope, where, writes_of(rs, a.rules.get("fn")))
        P, nxt_rule = rs.P, a.rules.get("nxt")

        def turn_end(s):
            s.fenv = {}
            r = block(s, fn, {}, again) if fn is not None else again
            if r != again:
                return r
            if end_if is not None and end_if(s, {}):
                return phase_end
            if nxt_fn is None:
                s.cur = (s.cur + 1) % P
            else:
                p = nxt_fn(s, {})
                if p.__class__ is not int or not 0 <= p < P:
                    raise not_a_player("the next player", p, nxt_rule, where, P)
                s.cur = p
            return again
        return turn_end
    if kind == "phase_end":
        fn, scope, where = a["fn"], a["scope"], a["where"]
        nexts = [(c, goto(L[t])) for c, t in a["nexts"]]
        block = make_block(rs, scope, where, writes_of(rs, a.rules.get("fn")))

        def phase_end(s):
            s.fenv = {}
            r = block(s, fn, {}, None)
            if r is not None:
                return r
            for cond, target in nexts:
                if cond is None or cond(s, {}):
                    return target
            raise SpecRuntimeError("no 'next' transition of this phase holds", where)
        return phase_end
    if kind == "game_end":
        fn = a["fn"]

        def game_end(s):
            if fn is not None:
                try:
                    fn(s, {})
                except (EndGame, EndPhase, EndTurn):
                    pass
            s.finish()
            return TERMINAL
        return game_end
    if kind == "do":
        fn, scope, nxt, where = a["fn"], a["scope"], goto(pc + 1), a["where"]
        block = make_block(rs, scope, where, writes_of(rs, a.rules.get("fn")))
        if rs.backend != "closures":    # generated code only reads the env: no copy, no call
            return lambda s: block(s, fn, s.fenv, nxt)
        return lambda s: block(s, fn, fenv(s), nxt)
    if kind == "jump":
        target = goto(L[a["target"]])
        return lambda s: target
    if kind == "jump_unless":
        cond, target, nxt = a["cond"], goto(L[a["target"]]), goto(pc + 1)
        if rs.backend != "closures":
            return lambda s: nxt if cond(s, s.fenv) else target
        return lambda s: nxt if cond(s, fenv(s)) else target
    if kind == "for_init":
        it, lkey, nxt, where = a["it"], a["lkey"], goto(pc + 1), a["where"]

        def for_init(s):
            items = it(s, fenv(s))
            if isinstance(items, int):
                items = s.z[items]
            s.fenv = dict(s.fenv)
            s.fenv[lkey] = [list(items), 0]
            return nxt
        return for_init
    if kind == "for_next":
        lkey, key, end, nxt = a["lkey"], a["key"], goto(L[a["end"]]), goto(pc + 1)

        def for_next(s):
            items, i = s.fenv[lkey]
            if i >= len(items):
                return end
            s.fenv = dict(s.fenv)
            s.fenv[key] = items[i]
            s.fenv[lkey] = [items, i + 1]
            return nxt
        return for_next
    if kind == "for_done":
        lkey, key, nxt = a["lkey"], a["key"], goto(pc + 1)

        def for_done(s):
            s.fenv = {k: v for k, v in s.fenv.items() if k not in (lkey, key)}
            return nxt
        return for_done
    if kind == "choosers":
        lkey, nxt, where, P = a["lkey"], goto(pc + 1), a["where"], rs.P

        def choosers(s):
            _seats(s.fenv[lkey][0], P, where, "a chooser of a simultaneous step",
                   "the choosers of a simultaneous step", "simultaneous")
            return nxt
        return choosers
    if kind == "reveal":
        return make_reveal(rs, a["ch"], a["order"], goto(pc + 1), a["where"])
    if kind.startswith("window_"):
        return make_window(rs, kind, a, goto(pc + 1), L, goto)
    if kind == "choose":
        ch = a["ch"]
        ch.pc = pc
        ch.next = goto(pc + 1)
        ch.resume = ch.pc if ch.step.repeat else ch.next
        ch.blocks = {rt.name: make_block(rs, ch.scope, ch.path, action_writes(rs, rt))
                     for rt in ch.actions + ch.fallback}
        ch.enumerate = comp.choice(ch) if hasattr(comp, "choice") else make_enumerator(ch)
        ch.enter = make_enter(rs, ch) if getattr(ch, "window", None) is None else make_window_enter(rs, ch)
        return ch.enter
    raise AssertionError(kind)


def _seats(items, P, where, one, all_, check):
    """The players a step lists (the choosers, the responders): each a seat, none twice."""
    seen = set()
    for p in items:
        if p.__class__ is not int or not 0 <= p < P:
            raise SpecRuntimeError(f"{one} is {p!r}; it must be a player (0 to {P - 1})", where,
                                   check="not-a-player")
        if p in seen:
            raise SpecRuntimeError(f"player {p} is listed twice among {all_}", where, check=check)
        seen.add(p)


# -- simultaneous choices ------------------------------------------------------------------
def _reads_actor(rule):
    return rule is not None and any(isinstance(n, A.Name) and n.id == "actor" for n in A.walk(rule.ast))


def make_reveal(rs, ch, order, nxt, where):
    """The reveal of a simultaneous step: each stored choice is found again among its player's
    legal actions (the state is the one they chose in), sorted by `order` (a label expression over
    its parameters; ties keep the choosing order; a pass last), then applied one by one as a
    decision would be; an end (game, phase, turn) drops the choices not yet resolved."""
    key = compile_value(order, rs) if order is not None else None

    def reveal(s):
        chosen = _stored(s, ch, where)
        if not chosen:
            return nxt
        if key is not None:
            def sort_key(item):
                a = item[1]
                if a is None:
                    return (1, 0)
                v = key(a)
                if v.__class__ is not int:
                    raise SpecRuntimeError(f"the order of a choice is {v!r}; it must be a number", order.origin,
                               check="simultaneous")
                return (0, v)
            chosen.sort(key=sort_key)       # stable: ties keep the choosing order
        else:
            chosen.sort(key=lambda item: item[1] is None)
        for p, a in chosen:
            r = s._resolve(ch, p, a, nxt)
            if r != nxt:
                return r
        return nxt
    return reveal


# -- reaction windows (docs/language.md, "Reaction windows") ----------------------------------------
def make_window_enter(rs, ch):
    """A reaction window's `choose`: the listed player is asked even when the pass is their only
    choice (so nobody learns who could not respond), unless the step says `if_none: skip`."""
    player, enum = ch.player, ch.enumerate
    pc, nxt, idx, path, P = ch.pc, ch.next, ch.idx, ch.path, rs.P
    skip_lone = ch.step.if_none == "skip"
    copy = rs.backend == "closures"
    from gamespec.interpreter.state import lone_skip

    def enter(s):
        e = s.fenv
        p = player(s, dict(e) if copy else e)
        if p.__class__ is not int or not 0 <= p < P:
            raise not_a_player("the responding player", p, ch.rules.get("player"), path, P)
        s.actor = p
        s.pc = pc
        s.pending = idx
        legal = enum(s)
        if not legal or (len(legal) == 1 and legal[0][0] == "skip"):
            if skip_lone:
                s.pending = -1
                return nxt
            legal = [lone_skip(ch, s._wants_actions)]
        s._legal = legal
        return SUSPEND
    return enter


def make_window(rs, kind, a, nxt, L, goto):
    """The instructions of a reaction window around its choose."""
    if kind == "window_open":
        lkey, took, where, P = a["lkey"], a["took"], a["where"], rs.P

        def window_open(s):
            _seats(s.fenv[lkey][0], P, where, "a player who may respond in a reaction window",
                   "the players who may respond in a reaction window", check="react")
            s.fenv = dict(s.fenv)
            s.fenv[took] = []
            return nxt
        return window_open
    if kind == "window_check":      # in turn, until the first response: it closes the window
        took, end = a["took"], goto(L[a["end"]])
        return lambda s: end if s.fenv[took] else nxt
    if kind == "window_reveal":
        return make_window_reveal(rs, a["ch"], a["took"], a["until"], nxt, a["where"], a["priority"])
    if kind == "window_close":
        took, out, every = a["took"], a["out"], a["until"] == "all"

        def window_close(s):
            got = s.fenv[took]
            fenv = {k: v for k, v in s.fenv.items() if k != took}
            fenv[out] = list(got) if every else (got[0] if got else None)
            s.fenv = fenv
            return nxt
        return window_close
    if kind == "window_branch":
        out, every, target = a["out"], a["until"] == "all", goto(L[a["target"]])
        if every:
            return lambda s: nxt if s.fenv[out] else target
        return lambda s: nxt if s.fenv[out] is not None else target
    if kind == "window_done":
        out = a["out"]

        def window_done(s):
            s.fenv = {k: v for k, v in s.fenv.items() if k != out}
            return nxt
        return window_done
    raise AssertionError(kind)


def _stored(s, ch, where):
    """The stored choices of a secret decision point, each found again among its player's legal actions
    in the state they chose in: [(player, action or None for a pass)], in choosing order."""
    chosen = []
    for ev in pending_choices(s):
        if ev[2] == "skip":
            chosen.append((ev[1], None))
            continue
        s.actor = ev[1]
        s.pending = ch.idx
        found = None
        for a in ch.enumerate(s):
            if a[0] == ev[2] and a[1] == ev[3]:
                found = a
                break
        s.pending = -1
        if found is None:
            raise SpecRuntimeError(f"the stored choice of player {ev[1]} is no longer legal", where,
                                   check="simultaneous")
        chosen.append((ev[1], found))
    return chosen


def make_window_reveal(rs, ch, took, until, nxt, where, priority=None):
    """A window asked at once: every stored choice revealed; `until: all`, each response carried out
    in the order of the players (passes after, as passes); `until: first`, every choice but the first
    response revealed (without effect), then that response carried out. With `priority` (the
    responses by rank), "first" and the order are by rank, ties in the order of the players."""
    rank = {name: i for i, name in enumerate(priority or ())}
    last = len(rank)

    def key(item):          # a pass after every response; sorted stably: ties keep the players' order
        a = item[1]
        return (1, 0) if a is None else (0, rank.get(a[0], last))

    def note(s, p):
        s.fenv = dict(s.fenv)
        s.fenv[took] = s.fenv[took] + [p]

    def reveal(s):
        chosen = _stored(s, ch, where)
        if not chosen:
            return nxt
        if until == "all":
            chosen.sort(key=key)       # stable: the order of the players
            for p, a in chosen:
                if a is not None:
                    note(s, p)
                r = s._resolve(ch, p, a, nxt)
                if r != nxt:
                    return r
            return nxt
        first = min(range(len(chosen)), key=lambda i: key(chosen[i]))
        if chosen[first][1] is None:
            first = None
        for i, (p, a) in enumerate(chosen):
            if i != first:
                s._reveal_only(p, a)
        if first is None:
            return nxt
        p, a = chosen[first]
        note(s, p)
        return s._resolve(ch, p, a, nxt)
    return reveal
