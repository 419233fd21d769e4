"""Checked Spec + player count + options → Ruleset: card tables, zone/variable layout, compiled rules."""
from __future__ import annotations

import os

from .codegen import CodeGen
from ..spec.sizes import MAX_CARDS, size_value
from ..spec.visibility import VISIBILITIES
from .closures import Compiler


from . import flow
from gamespec.interpreter.runtime import numeric
from .actions import ActionRT


class Ruleset:
    """Everything one (spec, players, options) instance needs at run time; shared by all its states."""

    def __init__(self, spec, players: int, options: dict, backend: str | None = None):
        backend = backend or os.environ.get("GAMESPEC_BACKEND", "codegen")
        self.spec = spec
        self.P = P = players
        self.ALL = (1 << P) - 1
        self.options = options
        self.tables = spec.tables
        self._layout_teams()
        self._layout_zones()
        self._layout_vars()
        self._layout_marks()
        comp = Compiler(self) if backend == "closures" else CodeGen(self)
        self.backend = backend
        self._cards(comp)
        self.actions = {}
        for name, a in spec.actions.items():
            self.actions[name] = ActionRT(self, comp, a)
        # the rule beside what was compiled of it (flow.Compiled): the flow and the generators read the rule
        self.game_end_if = flow.Compiled(comp.expr(spec.end_if), spec.end_if) if spec.end_if is not None else None
        self.triggers = [(flow.Compiled(comp.expr(c), c), flow.Compiled(comp.effects(e), e))
                         for _, c, e in spec.triggers]
        self.per_team = spec.per_team
        # each a number, checked when it is computed (the checker lets `first(...)`, maybe none, through)
        if spec.per_team:       # scored once per team (scoring.per_team): `t` the team
            self.score = numeric(comp.expr(spec.score, {"t": "t"}), spec.score, "the score")
            self.tie_breakers = [numeric(comp.expr(t, {"t": "t"}), t, "a tie breaker") for t in spec.tie_breakers]
        else:
            # (finish() passes every seat)
            self.score = numeric(comp.expr(spec.score, {"p": "p"}, valid={"p"}), spec.score, "the score")
            self.tie_breakers = [numeric(comp.expr(t, {"p": "p"}, valid={"p"}), t, "a tie breaker")
                                 for t in spec.tie_breakers]
        self.team_of = comp.expr(spec.teams, {"p": "p"}, valid={"p"}) if spec.teams is not None else None
        self.winner = spec.winner
        self.success = comp.expr(spec.success) if spec.cooperative else None     # team scoring
        # a competitive game's outcome where nobody wins (scoring.no_winner_if): no winners
        self.no_winner = comp.expr(spec.no_winner_if) if getattr(spec, "no_winner_if", None) is not None else None
        self.max_steps = spec.steps_per_decision      # the step budget of one decision
        self.max_decisions = spec.decisions_per_game
        self.max_game_steps = spec.steps_per_game     # all decisions' steps together
        self.prog, self.chooses, self.pc_names = flow.build(self, spec, comp)
        if backend != "closures":
            from .fused import install
            install(self, comp)     # fused decision-point continuations, generated on first use

    def can_rt(self, name):
        """The compiled action can() asks about (compile/actions.py ActionRT.can): this rule set's own
        under the reference backend (which compiles every parameter), else one compiled by the
        reference compiler on first use (generated enumerations keep no parameter rules)."""
        cache = self.__dict__.setdefault("_can_rts", {})
        rt = cache.get(name)
        if rt is None:
            rt = self.actions.get(name)
            if rt is None or rt.tuple_env:
                rt = ActionRT(self, Compiler(self), self.spec.actions[name])
            cache[name] = rt
        return rt

    # -- layout -------------------------------------------------------------------------
    def _layout_teams(self):
        """The spec's teams (docs/language.md, Team state): each seat's team, each team's seats and the
        bit mask of its seats (who an `owner` team variable or zone is seen by)."""
        P = self.P
        rule = getattr(self.spec, "teams_of", None)
        if rule is None:
            self.seat_team, self.team_members, self.team_mask = None, [], []
            self.T = 0
            return
        from ..spec.sizes import team_list
        self.seat_team = team_list(rule, P, self.options)
        self.T = max(self.seat_team) + 1
        self.team_members = [[p for p in range(P) if self.seat_team[p] == t] for t in range(self.T)]
        self.team_mask = [sum(1 << p for p in ms) for ms in self.team_members]

    def cells(self, decl):
        """How many cells (or zones) a variable (or zone family) declaration has per player or team: P,
        T, or 1 for a shared one."""
        return self.P if decl.per_player else self.T if getattr(decl, "per_team", False) else 1

    def sight_of(self, vis, decl, k):
        """Who sees cell (or member) k of a declaration with visibility `vis`: a bit mask."""
        v = VISIBILITIES[vis]
        if getattr(decl, "per_team", False):
            mine = self.team_mask[k]
            return (mine if v.owner_sees else 0) | (self.ALL & ~mine if v.others_see else 0)
        return v.sight(k if decl.per_player else None, self.ALL)

    def _layout_zones(self):
        P = self.P
        self.zone_base = {}
        self.zone_keys = {}      # name -> the family's keys in this game ([None] for a single zone)
        self.zone_label = []     # flat index -> "hand[2]"
        self.zone_decl = []      # flat index -> ZoneDecl
        self.zone_key = []       # flat index -> key or player or None
        zvis = []
        for name, z in self.spec.zones.items():
            self.zone_base[name] = len(self.zone_label)
            keys = list(range(P)) if z.per_player else list(range(self.T)) if z.per_team else \
                (z.keys if z.keys is not None else [None])
            if z.count is not None:     # a family sized at set-up from num_players and options
                keys = list(range(size_value(z.count, P, self.options, 1, 1000)))
            self.zone_keys[name] = keys
            for k in keys:
                self.zone_label.append(name if k is None else f"{name}[{k}]")
                self.zone_decl.append(z)
                self.zone_key.append(k)
                zvis.append(self.sight_of(z.visibility, z, k))
        self.zvis = zvis
        self.set_zones = frozenset(zi for zi, d in enumerate(self.zone_decl) if d.kind == "set")
        self.zone_is_set = tuple(d.kind == "set" for d in self.zone_decl)
        # per zone: the players who cannot see into it if it is a set (they lose track of its cards
        # when one leaves), else 0
        self.set_blind = [self.ALL & ~zvis[zi] if zi in self.set_zones else 0 for zi in range(len(zvis))]
        self.nzones = len(zvis)
        self.refill = {}
        self.stop_when_empty = {zi for zi, d in enumerate(self.zone_decl) if d.on_empty == "stop"}
        for name, z in self.spec.zones.items():
            if z.refill_from:
                self.refill[self.zone_base[name]] = (self.zone_base[z.refill_from], z.refill_shuffle)

    def _layout_vars(self):
        self.var_base = {}
        self.var_init = []
        self.var_decl = []
        for name, v in self.spec.variables.items():
            self.var_base[name] = len(self.var_init)
            for _ in range(self.cells(v)):
                init = v.initial
                self.var_init.append(list(init) if isinstance(init, list) else init)
                self.var_decl.append(v)
        # who sees each variable: per variable, the bit mask of the players who see each of its cells
        self.var_sight = {name: tuple(self.sight_of(v.visibility, v, q) for q in range(self.cells(v)))
                          for name, v in self.spec.variables.items()}

    def _layout_marks(self):
        """Per-card marks: one column per mark (state.mk[m][card]); none for a game without marks."""
        marks = list(getattr(self.spec, "marks", None) or {})
        self.mark_names = marks
        self.mark_index = {n: i for i, n in enumerate(marks)}
        self.mark_decl = [self.spec.marks[n] for n in marks]
        self.mark_init = [d.initial for d in self.mark_decl]
        # who sees each mark: a bit mask of players, or None for whoever sees the card where it lies
        self.mark_sight = [VISIBILITIES[d.visibility].sight(None, self.ALL) for d in self.mark_decl]
        self.mark_reset = tuple((i, d.initial) for i, d in enumerate(self.mark_decl) if d.reset_on_shuffle)

    def _cards(self, comp):
        spec = self.spec
        faces, face_class, counts, zone_rules = [], [], [], []
        for cl in spec.classes:
            if cl.cond is not None and not comp.expr(cl.cond)(None, {}):
                continue
            for attrs, count, zrule, cond in cl.faces:
                if cond is not None and not comp.expr(cond)(None, {}):
                    continue
                a = {"type": cl.name}
                a.update(attrs)
                faces.append(a)
                face_class.append(cl)
                counts.append(count if isinstance(count, int) else size_value(count, self.P, self.options, 0, 1000))
                zone_rules.append(zrule or cl.zone)
        # identical faces (same class and attributes) share one face id
        key_of = {}
        face_ids = []
        uniq, uniq_class = [], []
        for a, cl in zip(faces, face_class):
            k = tuple(sorted((n, tuple(v) if isinstance(v, list) else v) for n, v in a.items()))
            if k not in key_of:
                key_of[k] = len(uniq)
                uniq.append(a)
                uniq_class.append(cl)
            face_ids.append(key_of[k])
        if sum(counts) > MAX_CARDS:     # counts decided at set-up stay within the checker's card limit
            from gamespec.errors import SpecError
            raise SpecError(f"{sum(counts)} cards for {self.P} players and these options; the limit is {MAX_CARDS}",
                            spec.filename, 1, 1, check="card-count")
        self.faces = uniq
        self.face_label = [_face_label(a, cl) for a, cl in zip(uniq, uniq_class)]   # linear: no index()
        self.face_of = []
        self.attr = {n: [] for n in spec.attributes}
        init_zone = []
        compiled_zone = {}
        for fi, a, n, zr in zip(face_ids, faces, counts, zone_rules):
            for _ in range(n):
                cid = len(self.face_of)
                self.face_of.append(fi)
                for name in spec.attributes:
                    self.attr[name].append(a.get(name))
                if id(zr) not in compiled_zone:
                    compiled_zone[id(zr)] = comp.expr(zr, {"it": "it"})
                zi = compiled_zone[id(zr)](None, {"it": cid})
                init_zone.append(zi)
        self.ncards = len(self.face_of)
        self.init_zone = init_zone
        self.init_z = [[] for _ in range(self.nzones)]      # each zone's cards at the start (copied)
        for c, zi in enumerate(init_zone):
            self.init_z[zi].append(c)
        # per zone, the set-up zones whose cards may lie there (bit zi: cards that started in zone
        # zi); moves widen it zone by zone, public facts only (see runtime.move_card, determinize)
        poss = [0] * self.nzones
        for zi in init_zone:
            poss[zi] = 1 << zi
        self.init_poss = tuple(poss)
        self.any_poss = tuple(sum(set(1 << zi for zi in init_zone)) for _ in range(self.nzones))
        self.type_count = {}
        for fi in self.face_of:
            t = self.faces[fi]["type"]
            self.type_count[t] = self.type_count.get(t, 0) + 1

    def describe_zone(self, zi):
        return self.zone_label[zi]

    def action_space(self):
        """The fixed numbering of every action a player could see (docs/agents.md), built once."""
        from .action_space import space
        return space(self)

    def choose_contexts(self):
        """Per decision point (self.chooses): its phase index and the `for` steps around it, outermost
        first (-2 and none for a decision outside any phase's turn); computed once."""
        lay = self.__dict__.get("_choose_contexts")
        if lay is None:
            where = {}

            wins = {}

            def walk(steps, ph, fors, around):
                for st in steps:
                    if st.kind == "choose":
                        where[id(st)] = (ph, fors)
                        wins[id(st)] = around
                    elif st.kind == "for":
                        walk(st.body, ph, fors + [st], around)
                    elif st.kind == "react":     # its asking loop, then its outcome around then/else
                        uid = self.step_uids[id(st)]
                        where[id(st.inner)] = (ph, fors + [st])
                        wins[id(st.inner)] = around + [(uid, "ask", st)]
                        walk(st.body, ph, fors, around + [(uid, "then", st)])
                        walk(st.orelse, ph, fors, around + [(uid, "then", st)])
                    else:
                        walk(st.body, ph, fors, around)
                        walk(st.orelse, ph, fors, around)

            for i, ph in enumerate(self.phases):
                if ph.decl.turn is not None:
                    walk(ph.decl.turn.steps, i, [], [])
            lay = self._choose_contexts = [where.get(id(ch.step), (-2, [])) for ch in self.chooses]
            self._choose_windows = [wins.get(id(ch.step), []) for ch in self.chooses]
        return lay

    def choose_windows(self):
        """Per decision point: the reaction windows around it, outermost first, as (number, 'ask' | 'then',
        step): 'ask' while it asks the players (its `#took<n>` holds who responded), 'then' in its then
        or else steps (its `#as<n>` holds the outcome)."""
        self.choose_contexts()
        return self._choose_windows


def _face_label(a, cl):
    if cl.label:
        from gamespec.interpreter.actions import fill_template
        from ..spec.sizes import card_label_text, shown_text
        values = {k: shown_text(v) for k, v in a.items()}
        for text, node in cl.label_exprs:      # computed for every face when the spec was checked
            values[text] = card_label_text(node, a)
        return fill_template(cl.label, values)
    from ..spec.sizes import shown_text
    parts = [shown_text(v) for k, v in a.items() if k != "type"]
    return " ".join(parts + [a["type"]]) if parts else a["type"]


