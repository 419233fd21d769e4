"""Flow program + generated rules → fused decision-point continuations (the generated-code backend's apply).

Per decision point and action, one generated function pays the cost and runs the effect inline, then
the checks that follow it (triggers, the game's and the turn's end conditions), then the flow on to the
next decision point: turn end and begin hooks, guards, skipped decision points, the next player, and
the next listing of legal actions. `State.apply` calls it instead of running the effect as a block
and then the flow program instruction by instruction.

It returns -1 when it stopped at a decision point (the state is suspended there, as the flow program
leaves it), or the pc of an instruction the flow program runs from (`State._run`): every instruction
not fused here (phase begin and end, the game's end, flow `for` loops, anything reading flow
variables, a loop back to an instruction already inlined on the path, anything past MAX_INLINE
instructions) is left to the flow program, so a construct this module does not know keeps working
through the standard path. A decision point or an action it cannot fuse at all (one inside a flow
`for`, an action whose effect reads a dict env, a backend without generated code) has no fused
function: `apply` takes the standard path for it.

The step budget is charged exactly as the flow program charges it (one step per instruction entered
after the first), so budget errors are the same; the reference closures backend never fuses and
`tests/test_simulation.py::test_backends_agree` compares the two. Like codegen, the source holds only
identifiers made here and in codegen (`v_<n>`, `K<n>`, ints); spec values are namespace constants.
Each function is generated on first use (most pairs of decision point and action never follow each
other in a given game), so loading a game costs nothing more.
"""
from __future__ import annotations

from _thread import allocate_lock

from ..errors import SpecRuntimeError
from . import flow
from .codegen import localize, _assigned_names
from gamespec.interpreter.blind import blind_zones

# Flow instructions inlined per fused function; a branch past this runs on in the flow program.
MAX_INLINE = 40
CONTINUE = -3           # `after(s, CONTINUE)`: nothing fired

_lock = allocate_lock()


def install(rs, comp):
    """Give each decision point `ch.fused`: action name (and 'skip') -> fused function, made on first use."""
    if getattr(rs, "codegen", None) is None or not hasattr(rs, "flow_code"):
        return
    fz = Fuser(rs, comp)
    for ch in rs.chooses:
        table = {}
        for rt in ch.actions + ch.fallback:
            table[rt.name] = _Pending(fz, ch, rt, table)
        if ch.step.optional is not None:
            table["skip"] = _Pending(fz, ch, None, table)
        ch.fused = table


def generate_all(rs):
    """Generate every fused function of rule set `rs` now rather than on first use (for steady
    figures in benchmarks, or a predictable first move); nothing to do under the closures backend."""
    for ch in rs.chooses:
        for name, fn in list((ch.fused or {}).items()):
            if isinstance(fn, _Pending):
                fn.table[name] = fn.fz.fuse(fn.ch, fn.rt)


class _Pending:
    """A fused function not generated yet: generates it (or finds it cannot), then stands aside."""
    __slots__ = ("fz", "ch", "rt", "table")

    def __init__(self, fz, ch, rt, table):
        self.fz, self.ch, self.rt, self.table = fz, ch, rt, table

    def __call__(self, *args):
        name = self.rt.name if self.rt is not None else "skip"
        with _lock:
            fn = self.table.get(name)
            if fn is self:
                fn = self.fz.fuse(self.ch, self.rt)
                self.table[name] = fn
        if fn is None:
            return None      # State.apply takes the standard path (and never asks again)
        return fn(*args)


# What a decision point is made of, as this module knows it. A decision point with anything else (a
# construct added to the language later: a new step field or decision-point attribute with a value,
# another `enter`) is not fused and not inlined: the flow program and `State.apply` run it.
_KNOWN_STEP = frozenset(("kind", "guard", "effect", "actions", "fallback", "player", "optional", "repeat",
                         "if_none", "cond", "body", "orelse", "var", "iter", "path"))
_KNOWN_CHOICE = frozenset(("actions", "blocks", "enter", "enumerate", "fallback", "fused", "guard", "idx",
                           "names", "next", "path", "pc", "player", "resume", "rules", "scope", "step"))


def _plain(ch):
    """Is decision point ch of the kinds this module knows (see _KNOWN_STEP)?"""
    empty = (None, False, 0, "", [], (), {})
    return (all(k in _KNOWN_STEP or v in empty for k, v in vars(ch.step).items())
            and all(k in _KNOWN_CHOICE or v in empty for k, v in vars(ch).items())
            and ch.step.if_none in ("error", "skip")
            and getattr(getattr(ch, "enter", None), "__qualname__", "") == "make_enter.<locals>.enter")


def _nobudget(s, pc):
    raise SpecRuntimeError("step budget exhausted: the flow loops without asking anyone to decide",
                           s.rs.pc_names[pc], check="budget")


def _nolegal(p, path):
    raise SpecRuntimeError(f"player {p} has no legal action here; add 'if_none: skip' to the "
                           "step or a fallback action", path, check="no-legal-action")


class Fuser:
    def __init__(self, rs, comp):
        self.rs = rs
        self.comp = comp
        self.code = rs.flow_code
        self.labels = rs.flow_labels
        self.goto = rs.flow_goto
        comp.ns.update({"_nobudget": _nobudget, "_nolegal": _nolegal, "_nap": flow.not_a_player})
        self.n = 0
        self.cache = {}     # id of a Rule -> its generated source (the Rules live as long as rs)
        self._writes = {}

    # -- entry -------------------------------------------------------------------------
    def fuse(self, ch, rt):
        """The fused function of action `rt` (None: the optional step's skip) at decision point `ch`,
        or None when it cannot be fused."""
        if ch.names or not _plain(ch):
            return None         # inside a flow `for` (its variables live in s.fenv), or not known here
        if getattr(ch, "secret", False):
            return None         # a simultaneous step's choice is stored, not run (State._play)
        self.n = 0
        self.path = []
        c = self.comp
        # State._play_standard's bookkeeping for this decision, inline: the history entry, the
        # state left the decision point, a fresh budget
        reset = ["    s.pending = -1", "    s._legal = None", "    s._index = None",
                 f"    s.budget = {int(self.rs.max_steps)}"]
        rs = self.rs
        # State._count_decision, inline: the game's budgets checked before anything changes
        out = [f"    if s.decisions >= {int(rs.max_decisions)}: s._too_long('decisions')",
               f"    _sp = s.spent + {int(rs.max_steps)} - s.budget",
               f"    if _sp > {int(rs.max_game_steps)}: s._too_long('steps')",
               "    s.spent = _sp", "    s.decisions += 1"]
        if rt is None:
            out += ["    s.hist = (('d', s.actor, _act[0], _act[1], ()), s.hist)",
                    "    if s.log is not None: s._log_plain(_act)"] + reset
            self.go(ch.next, True, "    ", out)
        else:
            decl = self.rs.spec.actions[rt.name]
            if not rt.tuple_env:
                return None
            cards = bool(rt.card_params)
            ind = "    "
            one = rt.one_card
            if rt.blind_sets:   # a card picked blind from a set is drawn: State._play_standard does it
                if one is not None:
                    isset = c.const(tuple(self.rs.zone_is_set))
                    out.insert(0, f"    if _act[3][{one}] is None and {isset}[s.loc[_act[2][{one}]]]: return None")
                else:
                    out.insert(0, f"    if {c.const(blind_zones)}(s, _act, {c.const(rt)}): return None")
            if not cards:
                out += ["    s.hist = (('d', s.actor, _act[0], _act[1], ()), s.hist)",
                        "    if s.log is not None: s._log_plain(_act)"]
            elif one is not None:   # who saw the chosen card (State._cards_seen's short way, inline)
                zvis = c.const(tuple(self.rs.zvis))
                out += ["    _actor = s.actor", f"    _card = _act[2][{one}]",
                        "    if not s.face:",
                        f"        _seen = {zvis}[s.loc[_card]] | (1 << _actor if _act[3][{one}] is not None else 0)",
                        "        _cards = None",
                        "    else:",
                        f"        _cards = s._cards_seen(_act, {c.const(rt)})",
                        "    _sh = s.shuffles", "    _h0 = s.hist",
                        "    _n0 = len(s.log) if s.log is not None else 0",
                        "    s.watch = [[_card], [s.kn[_card]], [0]]"]     # (State._watching)
            else:
                out += ["    _actor = s.actor", f"    _cards = s._cards_seen(_act, {c.const(rt)})",
                        "    _sh = s.shuffles", "    _h0 = s.hist",
                        "    _n0 = len(s.log) if s.log is not None else 0", "    s._watch(_cards)"]
            out += reset + ["    e = _act[2]"]
            if cards:   # the decision is recorded once the effect and its checks have run (State._record)
                out.append("    try:")
                ind = "        "
            body = self.action_body(rt, decl)
            self.after(ch.scope, flow.action_writes(self.rs, rt), True, "", body)
            out += self.enders(body, ch.scope, ch.path, True, ind) or ([ind + "pass"] if cards else [])
            if cards and one is not None:
                # State._record's usual cases, inline: no event recorded by the effect, or one (a
                # reveal), which stays above the decision; the rest it does itself
                out += ["    finally:",
                        "        _h = s.hist",
                        "        if _cards is None and (_h is _h0 or _h[1] is _h0) and s.shuffles == _sh "
                        "and not s.face and s.log is None:",
                        "            s.watch = None",
                        f"            _ev = ('d', _actor, _act[0], _act[1], (({one}, (_card,), "
                        f"(_seen | {zvis}[s.loc[_card]],)),))",
                        "            s.hist = (_ev, _h0) if _h is _h0 else (_h[0], (_ev, _h0))",
                        "        else:",
                        f"            s._record(_act, _actor, _cards if _cards is not None else [({one}, (_card,), [_seen])], "
                        "s.shuffles != _sh, _h0, _n0)"]
            elif cards:
                out += ["    finally:",
                        "        s._record(_act, _actor, _cards, s.shuffles != _sh, _h0, _n0)"]
            self.go(ch.resume, True, "    ", out)
        name = f"fused_{next(self.comp._uid)}"
        lines = [f"def {name}(s, _act):"] + out
        src = "\n".join(lines) + "\n"
        code = compile(localize(lines), f"<gamespec {ch.path} fused {rt.name if rt else 'skip'}>", "exec")
        exec(code, self.comp.ns)    # generated from the checked AST only (see the module docstring)
        fn = self.comp.ns.pop(name)
        fn.source = src
        return fn

    # -- pieces ------------------------------------------------------------------------
    def wrap(self, rule, lines, ind):
        """`lines` run with a fault reported at `rule` (as the rule's own generated function does)."""
        c = self.comp
        origin = c.const(rule.origin if rule is not None else "<generated>")
        return ([ind + "try:"] + [ind + "    " + ln for ln in (lines or ["pass"])] +
                [ind + "except _CTRL:", ind + "    raise",
                 ind + "except _FAULTS as ex:",
                 ind + f"    raise _SRE(_describe(ex), {origin}, check=_check_of(ex)) from None",
                 ind + "except _RecursionError:",
                 ind + f"    raise _SRE('rule nested too deeply', {origin}, check='rule-depth') from None"])

    def enders(self, lines, scope, where, first, ind):
        """`lines` with end_game(), end_phase() and end_turn() going on at their labels (flow.make_block)."""
        if not lines:
            return []
        rs = self.rs
        c = self.comp
        out = [ind + "try:"] + [ind + "    " + ln for ln in lines] + [ind + "except EndGame:"]
        self.jump(rs.GAME_END, first, ind + "    ", out)
        for exc, label in (("EndPhase", "end"), ("EndTurn", "turnend")):
            out.append(ind + f"except {exc}:")
            ok = scope.phase is not None and (label == "end" or scope.turn)
            if ok:
                self.jump(scope.phase.labels[label], first, ind + "    ", out)
            else:
                what = "end_phase() outside a phase" if label == "end" else "end_turn() outside a turn"
                out.append(ind + f"    raise _SRE({what!r}, {c.const(where)}) from None")
        return out

    def value(self, rule, var, ind, test=False):
        """`var = <the expression rule, inline>`; with `test`, var is only truth-tested."""
        key = (id(rule), test)
        src = self.cache.get(key)
        if src is None:         # generated once per rule set (the same text in every function)
            src = self.cache[key] = (self.comp.test if test else self.comp.ex)(rule.ast, {})
        return self.wrap(rule, [f"{var} = {src}"], ind)

    def effects(self, rule):
        lines = self.cache.get(("effects", id(rule)))
        if lines is None:
            c = self.comp
            env = {}
            c._assigned = _assigned_names(rule.ast)
            c.inline_moves = True
            try:
                lines = c._prologue(env) + c.block(rule.ast, c._scope({}, env), 0)
            finally:
                c.inline_moves = False
            self.cache[("effects", id(rule))] = lines
        return lines

    def action_body(self, rt, decl):
        c = self.comp
        c.inline_moves = True
        try:
            env, body = c.run_body(decl)
        finally:
            c.inline_moves = False
        if not body:
            return []
        return self.wrap(decl.effect, c._prologue(env) + body, "")

    def jump(self, target, first, ind, out):
        """Go on at a pc known only when running (`_r`)."""
        if not first:
            out += [ind + "s.budget -= 1", ind + f"if s.budget < 0: _nobudget(s, {target})"]
        out.append(ind + f"return {target}")

    def after(self, scope, writes, first, ind, out):
        """The checks after a block of effects (flow.make_after), inline."""
        rs = self.rs
        after = flow.make_after(rs, scope, writes)
        if after is None:
            return
        if rs.triggers:
            out.append(ind + f"_r = {self.comp.const(after)}(s, {CONTINUE})")
            out.append(ind + f"if _r != {CONTINUE}:")
            self.jump("_r", first, ind + "    ", out)
            return
        if rs.game_end_if is not None:
            out += self.value(rs.game_end_if.rule, "_c", ind, test=True)
            out.append(ind + "if _c:")
            self.go(rs.GAME_END, first, ind + "    ", out)
        if scope.turn and scope.phase.turn_end_if is not None:
            out += self.value(scope.phase.turn_end_if.rule, "_c", ind, test=True)
            out.append(ind + "if _c:")
            self.go(scope.phase.labels["turnend"], first, ind + "    ", out)

    def block(self, rule, scope, where, first, ind, out):
        """A hook's block of effects (its Rule, or None) and the checks after it (flow.make_block), inline."""
        body = self.wrap(rule, self.effects(rule), "") if rule is not None else []
        if id(rule) not in self._writes:
            self._writes[id(rule)] = flow.writes_of(self.rs, rule)
        self.after(scope, self._writes[id(rule)], first, "", body)
        out += self.enders(body, scope, where, first, ind)

    # -- the flow ------------------------------------------------------------------------
    def go(self, pc, first, ind, out):
        """Enter instruction pc (one budget step unless it is the first) and run it inline."""
        if not first:
            out += [ind + "s.budget -= 1", ind + f"if s.budget < 0: _nobudget(s, {pc})"]
        self.n += 1
        if self.n > MAX_INLINE or pc in self.path:     # a loop back: the flow program runs it
            out.append(ind + f"return {pc}")
            return
        self.path.append(pc)
        if not self.ins(pc, ind, out):
            out.append(ind + f"return {pc}")
        self.path.pop()

    def ins(self, pc, ind, out):
        """Instruction pc inline (every path ends in a return); False: left to the flow program."""
        kind, a = self.code[pc]
        rs = self.rs
        c = self.comp
        goto, L = self.goto, self.labels
        if kind == "choose":
            ch = a["ch"]
            if ch.names or not _plain(ch):
                return False
            inner = ind
            if ch.guard is not None:
                out += self.value(ch.rules["guard"], "_c", ind, test=True)
                out.append(ind + "if _c:")
                inner = ind + "    "
            if ch.player is not None:
                out += self.value(ch.rules["player"], "_p", inner)
                out += [inner + f"if _p.__class__ is not int or not 0 <= _p < {rs.P}:",
                        inner + f"    raise _nap('the deciding player', _p, {c.const(ch.rules['player'])}, "
                                f"{c.const(ch.path)}, {rs.P})",
                        inner + "s.actor = _p"]
            else:
                out.append(inner + "s.actor = s.cur")
            out += [inner + f"s.pc = {pc}", inner + f"s.pending = {ch.idx}",
                    inner + f"_L = {c.const(ch.enumerate)}(s)",
                    inner + "if _L:",       # a generated listing is empty when only the skip is left
                    inner + "    s._legal = _L",
                    inner + "    return -1",
                    inner + "s.pending = -1"]
            if not (ch.step.optional is not None or ch.step.if_none == "skip"):
                out.append(inner + f"_nolegal(s.actor, {c.const(ch.path)})")
                if ch.guard is None:
                    return True         # that raised: nothing follows
            self.go(ch.next, False, ind, out)
            return True
        if kind == "jump_unless":
            if a["names"]:
                return False
            out += self.value(a.rules["cond"], "_c", ind, test=True)
            out.append(ind + "if _c:")
            self.go(goto(pc + 1), False, ind + "    ", out)
            self.go(goto(L[a["target"]]), False, ind, out)
            return True
        if kind == "phase_check":
            if a["end_if"] is not None:
                out += self.value(a.rules["end_if"], "_c", ind, test=True)
                out.append(ind + "if _c:")
                self.go(goto(L[a["target"]]), False, ind + "    ", out)
            self.go(goto(L[a["next"]]), False, ind, out)
            return True
        if kind == "turn_begin":
            out += [ind + "s.actor = s.cur", ind + "s.turns += 1"]
            self.block(a.rules.get("fn"), a["scope"], a["where"], False, ind, out)
            self.go(goto(L[a["next"]]), False, ind, out)
            return True
        if kind == "do":
            if a["names"]:
                return False
            self.block(a.rules.get("fn"), a["scope"], a["where"], False, ind, out)
            self.go(goto(pc + 1), False, ind, out)
            return True
        if kind == "turn_end":
            fn, end_if, nxt = a.rules.get("fn"), a.rules.get("end_if"), a.rules.get("nxt")
            out.append(ind + "s.fenv = {}")
            if fn is not None:
                self.block(fn, a["scope"], a["where"], False, ind, out)
            if end_if is not None:
                out += self.value(end_if, "_c", ind, test=True)
                out.append(ind + "if _c:")
                self.go(goto(L[a["phase_end"]]), False, ind + "    ", out)
            if nxt is None:
                out.append(ind + f"s.cur = (s.cur + 1) % {rs.P}")
            else:
                out += self.value(nxt, "_p", ind)
                out += [ind + f"if _p.__class__ is not int or not 0 <= _p < {rs.P}:",
                        ind + f"    raise _nap('the next player', _p, {c.const(nxt)}, "
                              f"{c.const(a['where'])}, {rs.P})",
                        ind + "s.cur = _p"]
            self.go(goto(L[a["again"]]), False, ind, out)
            return True
        return False
