"""Restricted play (Jaffe et al. 2012, "Evaluating competitive game balance with restricted play"):
bots that obey a rule, otherwise playing like their base kind.

`first` always plays the first legal action. A RestrictedBot wraps a base bot with rules, applied in
order to the positions of `view.legal_actions`:

- `avoid:ACTION`: the actions named ACTION are removed, unless nothing else would be left;
- `always:ACTION`: if an action named ACTION is left, only those remain.

When the rules remove nothing the base decides as it would alone (`base.choose(view)`: the same
choices, the same use of its RNG); when one action is left it is played; otherwise the base chooses
among those left (`base.choose_among(view, allowed)`, gamespec/bots/base.py). A searching base
(ISMCTS) searches as usual and takes the best allowed action: its look-ahead is not restricted.
"""
from __future__ import annotations

from .base import Bot, BotError, default_choose_among, position


class FirstBot(Bot):
    """Always the first legal action (position 0; among allowed positions, the first)."""

    kind = "first"

    def choose(self, view):
        return 0

    def choose_among(self, view, allowed):
        return min(allowed)


def allowed_positions(names, rules) -> list:
    """The positions of the action `names` (in legal order) that `rules` [(avoid|always, NAME), ...]
    leave, applied in order; never empty when names is not."""
    allowed = list(range(len(names)))
    for rule, action in rules:
        if rule == "avoid":
            keep = [i for i in allowed if names[i] != action]
        else:
            keep = [i for i in allowed if names[i] == action]
        if keep:
            allowed = keep
    return allowed


class RestrictedBot(Bot):
    """`base` (a bot) obeying `rules`, a sequence of ("avoid" | "always", ACTION NAME) applied in
    order (see the module's doc). `kind_text` is the kind it was made from (`greedy/avoid:pass`)."""

    kind = "restricted"

    def __init__(self, base, rules, seed: int = 0, seat: int = 0, kind_text: str | None = None):
        super().__init__(seed, seat)
        rules = tuple((str(r), str(a)) for r, a in rules)
        for r, _ in rules:
            if r not in ("avoid", "always"):
                raise BotError(f"a restriction is avoid:ACTION or always:ACTION, not {r!r}")
        self.base = base
        self.rules = rules
        self.kind_text = kind_text

    def __repr__(self):
        return f"RestrictedBot({self.base!r}, {list(self.rules)!r})"

    def __getattr__(self, name):        # last_iterations and the like: the base's
        if name == "base":
            raise AttributeError(name)
        return getattr(self.base, name)

    def allowed(self, view) -> list:
        """The positions in view.legal_actions the rules leave (in order)."""
        return allowed_positions([a.name for a in view.legal_actions], self.rules)

    def choose(self, view):
        if view.num_legal_actions == 1:
            return self.base.choose(view)
        allowed = self.allowed(view)
        if len(allowed) == view.num_legal_actions:
            return self.base.choose(view)
        if len(allowed) == 1:
            return allowed[0]
        among = getattr(self.base, "choose_among", None)
        got = among(view, allowed) if among is not None else default_choose_among(self.base, view, allowed)
        i = position(view, got)
        if i not in allowed:
            raise BotError(f"the bot of seat {view.player} ({self.kind_text or repr(self)}) chose "
                           f"{view.legal_actions[i].name!r}, which its restriction forbids")
        return i

    def choose_among(self, view, allowed):
        """The rules applied to the positions `allowed` only (a restricted bot restricted again)."""
        allowed = list(allowed)
        names = [a.name for a in view.legal_actions]
        both = [allowed[j] for j in allowed_positions([names[i] for i in allowed], self.rules)]
        if len(both) == 1:
            return both[0]
        among = getattr(self.base, "choose_among", None)
        return among(view, both) if among is not None else default_choose_among(self.base, view, both)
