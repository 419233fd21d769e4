"""RandomBot: uniform among the legal actions, seeded by game seed and seat."""
from __future__ import annotations

import random

from gamespec.interpreter.rng import FAST, FastRandom, resolve_generator, stream

from .base import Bot


class RandomBot(Bot):
    """Picks uniformly among the legal actions with its own `random.Random`.

    Seeded from the game seed and the seat (a string seed, hashed the same way by every Python 3
    process), so a game's bots behave identically in any process and in any order of games.
    `pick(n)` is the same draw without a view: the simulation's fast path uses it (same results).
    `generator="fast"` (a game on the fast generator, docs/native.md): a splitmix64 stream instead,
    `rng.FastRandom(rng.stream(seed, seat + 1))`, which the native engine mirrors.
    """

    kind = "random"

    def __init__(self, seed: int = 0, seat: int = 0, generator: str | None = None):
        super().__init__(seed, seat)
        if generator is not None and resolve_generator(generator) == FAST:
            self.rng = FastRandom(stream(seed, seat + 1))
        else:
            self.rng = random.Random(f"gamespec.RandomBot:{seed}:{seat}")

    def pick(self, n: int) -> int:
        if n <= 0:
            raise ValueError("no legal action to choose from")
        return self.rng.randrange(n)

    def choose(self, view):
        return self.pick(view.num_legal_actions)

    def choose_among(self, view, allowed):
        """Uniform among the positions `allowed` (a restricted kind's rule removed the others), from
        the same seeded stream."""
        allowed = list(allowed)
        return allowed[self.pick(len(allowed))]
