"""Checked phases and steps → a flat program of instructions `ins(state) -> next pc` with labels resolved.

The program is the phase graph made executable: game begin, then per phase `begin → turn check →
turn begin → steps → turn end → (next turn | phase end) → next phase`, and the game end. A `choose`
instruction suspends the run until `State.apply` resumes it, so a state is just data (pc + values).
"""
from __future__ import annotations

from gamespec.compiler import EndGame, EndPhase, EndTurn
from gamespec.errors import SpecRuntimeError

SUSPEND = -1
TERMINAL = -2


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


class Emitter:
    def __init__(self, rs, comp):
        self.rs = rs
        self.comp = comp
        self.code = []       # (kind, args)
        self.labels = {}
        self.chooses = []

    def label(self, name):
        self.labels[name] = len(self.code)

    def emit(self, kind, **args):
        self.code.append((kind, args))
        return len(self.code) - 1

    # -- steps --------------------------------------------------------------------------
    def steps(self, steps, names, scope, ctx):
        for st in steps:
            self.step(st, names, scope, ctx)

    def step(self, st, names, scope, ctx):
        c = self.comp
        guard = c.expr(st.guard, names) if st.guard is not None else None
        uid = len(self.code)
        skip_label = f"skip{uid}"
        if guard is not None and st.kind != "choose":
            self.emit("jump_unless", cond=guard, target=skip_label, names=names, where=st.path)
        if st.kind == "do":
            self.emit("do", fn=c.effects(st.effect, names), scope=scope, names=names, where=st.path)
        elif st.kind == "choose":
            ch = ChooseRT(len(self.chooses), st, st.path)
            ch.guard = guard
            ch.player = c.expr(st.player, names) if st.player is not None else None
            ch.actions = [self.rs.actions[a] for a in st.actions]
            ch.fallback = [self.rs.actions[a] for a in st.fallback]
            ch.scope = scope
            ch.names = names
            self.chooses.append(ch)
            self.emit("choose", ch=ch)
        elif st.kind == "if":
            cond = c.expr(st.cond, names)
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
            self.emit("jump_unless", cond=c.expr(st.cond, names), target=top, names=names,
                      where=st.path, count=True)
        elif st.kind == "while":
            top, end = f"while{uid}", f"endwhile{uid}"
            self.label(top)
            self.emit("jump_unless", cond=c.expr(st.cond, names), target=end, names=names,
                      where=st.path, count=True)
            self.steps(st.body, names, scope, ctx)
            self.emit("jump", target=top)
            self.label(end)
        elif st.kind == "for":
            key = f"{st.var}#{uid}"   # the same name under every backend (saved states move between them)
            inner = dict(names)
            inner[st.var] = key
            top, end = f"for{uid}", f"endfor{uid}"
            lkey = f"#list{uid}"
            self.emit("for_init", it=c.expr(st.iter, names), names=names, lkey=lkey, where=st.path)
            self.label(top)
            self.emit("for_next", lkey=lkey, key=key, end=end)
            self.steps(st.body, inner, scope, ctx)
            self.emit("jump", target=top)
            self.label(end)
            self.emit("for_done", lkey=lkey, key=key)
        if guard is not None and st.kind != "choose":
            self.label(skip_label)


def build(rs, spec, comp):
    """Emit the whole program and turn it into closures. Returns (program, chooses, pc names)."""
    em = Emitter(rs, comp)
    phases = {name: PhaseRT(i, decl) for i, (name, decl) in enumerate(spec.phases.items())}
    rs.phases = list(phases.values())
    game_scope = Scope()
    em.label("game_begin")
    em.emit("hook", fn=comp.effects(spec.on_begin), scope=game_scope, next=f"begin:{spec.start}",
            where="on_begin", set_phase=None)
    for ph in phases.values():
        d = ph.decl
        n = ph.name
        pscope = Scope(ph, False)
        tscope = Scope(ph, True)
        em.label(f"begin:{n}")
        em.emit("hook", fn=comp.effects(d.on_begin), scope=Scope(ph, False),
                next=f"check:{n}" if d.turn else f"end:{n}", where=f"phases.{n}.on_begin",
                set_phase=ph, first=comp.expr(d.turn.first) if d.turn and d.turn.first else None)
        if d.turn:
            t = d.turn
            em.label(f"check:{n}")
            em.emit("phase_check", ph=ph, end_if=comp.expr(d.end_if), target=f"end:{n}",
                    next=f"turn:{n}")
            em.label(f"turn:{n}")
            em.emit("turn_begin", fn=comp.effects(t.on_begin), scope=tscope, next=f"steps:{n}",
                    where=f"phases.{n}.turn.on_begin")
            em.label(f"steps:{n}")
            em.steps(t.steps, {}, tscope, ph)
            em.label(f"turnend:{n}")
            em.emit("turn_end", fn=comp.effects(t.on_end), scope=pscope, ph=ph,
                    end_if=comp.expr(d.end_if), nxt=comp.expr(t.next),
                    phase_end=f"end:{n}", again=f"turn:{n}", where=f"phases.{n}.turn.on_end")
        ph.turn_end_if = comp.expr(d.turn.end_if) if d.turn else None
        em.label(f"end:{n}")
        em.emit("phase_end", fn=comp.effects(d.on_end), scope=game_scope, ph=ph,
                nexts=[(comp.expr(cond) if cond else None,
                        "game_end" if target == "end" else f"begin:{target}") for cond, target in d.next],
                where=f"phases.{n}.on_end")
    em.label("game_end")
    em.emit("game_end", fn=comp.effects(spec.on_end))
    labels = em.labels
    for ph in phases.values():
        ph.labels = {k.split(":")[0]: v for k, v in labels.items() if k.endswith(":" + ph.name)}
    rs.GAME_END = labels["game_end"]
    prog = []
    names = []
    for pc, (kind, args) in enumerate(em.code):
        prog.append(_make(rs, pc, kind, args, labels))
        names.append(args.get("where") or kind)
    return prog, em.chooses, names


# -- running blocks of effects ------------------------------------------------------------
def after(s, nxt, scope):
    """After any block of effects: triggers to a fixed point, then the end conditions."""
    rs = s.rs
    if rs.triggers:
        fired = True
        while fired:
            fired = False
            for cond, eff in rs.triggers:
                if cond(s, {}):
                    s.budget -= 1
                    if s.budget < 0:
                        raise SpecRuntimeError("step budget exhausted: triggers keep firing",
                                               eff.rule.origin if getattr(eff, "rule", None) else "triggers",
                                               check="budget")
                    eff(s, {})
                    fired = True
    if rs.game_end_if is not None and rs.game_end_if(s, {}):
        return rs.GAME_END
    if scope.turn:
        te = scope.phase.turn_end_if
        if te is not None and te(s, {}):
            return scope.phase.labels["turnend"]
    return nxt


def run_block(s, fn, env, nxt, scope, where=""):
    try:
        if fn is not None:
            fn(s, env)
        return after(s, nxt, scope)
    except EndGame:
        return s.rs.GAME_END
    except EndPhase:
        if scope.phase is None:
            raise SpecRuntimeError("end_phase() outside a phase", where) from None
        return scope.phase.labels["end"]
    except EndTurn:
        if not scope.turn:
            raise SpecRuntimeError("end_turn() outside a turn", where) from None
        return scope.phase.labels["turnend"]


def _fenv(s):
    return dict(s.fenv) if s.fenv else {}


def _make(rs, pc, kind, a, labels):
    L = labels
    if kind == "hook":
        fn, scope, nxt, ph, first = a["fn"], a["scope"], L[a["next"]], a["set_phase"], a.get("first")
        where = a["where"]
        P = rs.P

        def hook(s):
            if ph is not None:
                s.phase = ph.idx
            r = run_block(s, fn, {}, nxt, scope, where)
            if first is not None and r == nxt:
                p = first(s, {})
                if p.__class__ is not int or not 0 <= p < P:
                    raise SpecRuntimeError(f"first player {p!r} is not a player", where)
                s.cur = p
            return r
        return hook
    if kind == "phase_check":
        end_if, target, nxt = a["end_if"], L[a["target"]], L[a["next"]]
        if end_if is None:
            return lambda s: nxt
        return lambda s: target if end_if(s, {}) else nxt
    if kind == "turn_begin":
        fn, scope, nxt, where = a["fn"], a["scope"], L[a["next"]], a["where"]

        def turn_begin(s):
            s.actor = s.cur
            s.turns += 1
            if fn is None and not s.rs.triggers and s.rs.game_end_if is None:
                return nxt
            return run_block(s, fn, {}, nxt, scope, where)
        return turn_begin
    if kind == "turn_end":
        fn, scope, end_if, nxt_fn = a["fn"], a["scope"], a["end_if"], a["nxt"]
        phase_end, again, where = L[a["phase_end"]], L[a["again"]], a["where"]
        P = rs.P

        def turn_end(s):
            s.fenv = {}
            r = run_block(s, fn, {}, again, scope, where) if fn is not None else again
            if r != again:
                return r
            if end_if is not None and end_if(s, {}):
                return phase_end
            if nxt_fn is None:
                s.cur = (s.cur + 1) % P
            else:
                p = nxt_fn(s, {})
                if p.__class__ is not int or not 0 <= p < P:
                    raise SpecRuntimeError(f"next player {p!r} is not a player", where)
                s.cur = p
            return again
        return turn_end
    if kind == "phase_end":
        fn, scope, nexts, where = a["fn"], a["scope"], [(c, L[t]) for c, t in a["nexts"]], a["where"]
        game_end = rs.GAME_END if hasattr(rs, "GAME_END") else L["game_end"]

        def phase_end(s):
            s.fenv = {}
            r = run_block(s, fn, {}, None, scope, where)
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
        fn, scope, nxt, where = a["fn"], a["scope"], pc + 1, a["where"]
        return lambda s: run_block(s, fn, _fenv(s), nxt, scope, where)
    if kind == "jump":
        target = L[a["target"]]
        return lambda s: target
    if kind == "jump_unless":
        cond, target, nxt, count = a["cond"], L[a["target"]], pc + 1, a.get("count", False)
        if count:   # loop back-edges also charge the budget
            def loop_test(s):
                return nxt if cond(s, _fenv(s)) else target
            return loop_test
        return lambda s: nxt if cond(s, _fenv(s)) else target
    if kind == "for_init":
        it, lkey, nxt, where = a["it"], a["lkey"], pc + 1, a["where"]

        def for_init(s):
            items = it(s, _fenv(s))
            if isinstance(items, int):
                items = s.z[items]
            s.fenv = dict(s.fenv)
            s.fenv[lkey] = [list(items), 0]
            return nxt
        return for_init
    if kind == "for_next":
        lkey, key, end, nxt = a["lkey"], a["key"], L[a["end"]], pc + 1

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
        lkey, key, nxt = a["lkey"], a["key"], pc + 1

        def for_done(s):
            s.fenv = {k: v for k, v in s.fenv.items() if k not in (lkey, key)}
            return nxt
        return for_done
    if kind == "choose":
        ch = a["ch"]
        ch.pc = pc
        ch.next = pc + 1
        return lambda s: s.enter_choice(ch)
    raise AssertionError(kind)
