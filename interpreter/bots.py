"""Bots: players that see only what a seat may see.

A bot is any object with `choose(observation, legal_actions) -> action`, where `observation` is
`state.observation(seat)` (a dict) and `legal_actions` is `state.legal_actions()`; it returns one of
those actions. A bot never gets the State. A bot whose class sets `wants_observation = False` is
given `None` instead of the observation, which spares the cost of building it (a random bot does not
look at it).

    bots = [RandomBot(seed, seat) for seat in range(players)]
    while not state.is_terminal:
        p = state.current_player
        state.apply(bots[p].choose(state.observation(p), state.legal_actions()))
"""
from __future__ import annotations

import random


class Bot:
    """The bot protocol (subclassing it is optional)."""

    wants_observation = True

    def choose(self, observation, legal_actions):  # pragma: no cover - interface
        raise NotImplementedError


class RandomBot(Bot):
    """Picks uniformly among the legal actions with its own `random.Random`.

    Seeded from the game seed and the seat (a string seed, hashed the same way by every Python 3
    process), so a game's bots behave identically in any process and in any order of games.
    """

    wants_observation = False

    def __init__(self, seed: int = 0, seat: int = 0):
        self.seed = seed
        self.seat = seat
        self.rng = random.Random(f"gamespec.RandomBot:{seed}:{seat}")

    def choose(self, observation, legal_actions):
        if not legal_actions:
            raise ValueError("no legal action to choose from")
        return legal_actions[self.rng.randrange(len(legal_actions))]

    def __repr__(self):
        return f"RandomBot(seed={self.seed}, seat={self.seat})"
