"""GreedyBot: one step of look-ahead in a determinized copy, judged by the spec's own score."""
from __future__ import annotations

import random

from .base import Bot, score_of, world_action


class GreedyBot(Bot):
    """Tries each legal action in one determinization of its view and takes the one after which the
    spec's score for its seat is best (lowest when the spec's winner is 'lowest'); ties are broken
    by its seeded RNG, so most quiet moves are random."""

    kind = "greedy"

    def __init__(self, seed: int = 0, seat: int = 0):
        super().__init__(seed, seat)
        self.rng = random.Random(f"gamespec.GreedyBot:{seed}:{seat}")

    def choose(self, view):
        legal = view.legal_actions
        if len(legal) == 1:
            return 0
        return self._best(view, range(len(legal)))

    def choose_among(self, view, allowed):
        """The best of the positions `allowed` only (the same determinization, score and tie break)."""
        allowed = list(allowed)
        if len(allowed) == 1:
            return allowed[0]
        return self._best(view, allowed)

    def _best(self, view, candidates):
        world = view.determinize(self.rng)
        seat = view.player
        best, ties = None, []
        for i in candidates:
            w = world.clone()
            w.apply(world_action(w, view, i))
            v = score_of(w, seat)
            if best is None or v > best:
                best, ties = v, [i]
            elif v == best:
                ties.append(i)
        return ties[self.rng.randrange(len(ties))] if len(ties) > 1 else ties[0]
