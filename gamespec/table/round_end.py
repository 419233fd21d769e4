"""The end of a round or phase, as a seat sees it: where the spec gives a phase an `on_end`, after the
decision that ended it (another phase began, or a variable `on_end` sets changed as the seat sees it),
a block says what `on_end` set for every player (from the seat's view only), how it is computed in
the rulebook's words, and who did best. The terminal (`gamespec play`) prints it; the browser
(`gamespec serve`) sends it in the seat's message (`round_end`) and shows it as a panel.

Made from two views of the seat (before and after the decision) and the spec: the same text in
every world the seat cannot tell apart. A spectator's (seat None) is made from the public
observation: the same in every world any seat cannot tell apart.
"""
from __future__ import annotations


def observe(state, seat) -> dict:
    """What `seat` sees: its view's observation. (A spectator's page gives the block the public
    observation instead: gamespec/web/tables.py.)"""
    return state.view(seat).observation


def player_name(p, me) -> str:
    """During play another person is "player N", oneself "you" (docs/play.md)."""
    return "you" if p == me else f"player {p}"


class PhaseEnds:
    """Per spec: phase name → (the variables its `on_end` sets, how: the rulebook's words)."""

    def __init__(self, spec, presentation=None):
        self.spec = spec
        vh = (presentation or {}).get("variables") or {}
        self.names = {n: (h or {}).get("name") for n, h in vh.items()}
        self.words = {n: (h or {}).get("words") or {} for n, h in vh.items()}     # a value's word, by word_key
        self.ends = {}
        from gamespec.spec import ast as A
        for ph in spec.phases.values():
            if ph.on_end is None:
                continue
            names = []
            for root in (ph.on_end.ast if isinstance(ph.on_end.ast, list) else [ph.on_end.ast]):
                for n in A.walk(root) if isinstance(root, A.Node) else ():
                    if isinstance(n, A.Assign):
                        tg = n.target.obj if isinstance(n.target, A.Index) else n.target
                        if isinstance(tg, A.Name) and tg.id in spec.variables and tg.id not in names:
                            names.append(tg.id)
            self.ends[ph.name] = (names, self._how(ph))

    def _how(self, ph) -> list:
        try:
            from gamespec.authoring.rulebook import Words, _md_items, _reparse
            w = Words(self.spec)
            w.defines = set(self.spec.checker.defines) if self.spec.checker else set()
            return list(_md_items(w.stmts(_reparse(ph.on_end, "effects")), False, 2))
        except Exception:      # noqa: BLE001 - the words are a help; the figures are shown anyway
            return []

    def watches(self, phase) -> bool:
        return phase in self.ends

    @staticmethod
    def before(state, seat, look=observe):
        """What the block compares with: (the phase, the variables) as `seat` sees them now (`look`:
        state, seat → the observation the block is made from)."""
        obs = look(state, seat)
        return obs.get("phase"), obs.get("variables") or {}

    def _worded(self, name, show):
        """`show` for variable `name`, a value the spec gives a word for (presentation words) by it."""
        words = self.words.get(name)
        if not words:
            return show
        from gamespec.spec.presentation import word_key
        return lambda x: words[word_key(x)] if not isinstance(x, (list, dict)) and word_key(x) in words else show(x)

    def block(self, before, state, seat, value=str, look=observe) -> list | None:
        """After a decision: the block's lines [(text, kind)] (kind: "title", "value", "how-title",
        "how", "best") when a phase with an `on_end` ended, else None. `before` is `before(state,
        seat)` taken before the decision; `value` shows one value (the terminal's screen: a card
        by its label)."""
        phase, vars_before = before
        if phase not in self.ends:
            return None
        names, how = self.ends[phase]
        obs = look(state, seat)
        after = obs.get("variables") or {}
        changed = [n for n in names if n in after and after.get(n) != vars_before.get(n)]
        if not changed and obs.get("phase") == phase:
            return None
        P = obs["num_players"]
        out = [(f"── the {phase} phase ends ──", "title")]
        best = None
        show = value
        for n in changed or [n for n in names if n in after]:
            v = after[n]
            value = self._worded(n, show)
            title = f"{self.names[n]} ({n})" if self.names.get(n) and self.names[n] != n else n
            if isinstance(v, list) and len(v) == P:
                out.append((f"  {title}: " + ", ".join(f"{player_name(p, seat)} {value(v[p])}" for p in range(P)),
                            "value"))
                nums = [x for x in v if isinstance(x, (int, float)) and not isinstance(x, bool)]
                if best is None and len(nums) == P:
                    low = getattr(self.spec, "winner", "highest") == "lowest"
                    top = (min if low else max)(v)
                    best = (n, [p for p in range(P) if v[p] == top], top)
            else:
                out.append((f"  {title}: {value(v)}", "value"))
        if how:
            out.append(("  how (the rules):", "how-title"))
            out += [(line, "how") for line in how]
        if best is not None:
            n, who, top = best
            out.append((f"  best {n} this {phase}: " + " and ".join(player_name(p, seat) for p in who)
                        + f" ({top})", "best"))
        return out
