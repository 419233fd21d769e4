"""Bots: players that see only their own view (random, greedy, ISMCTS, first, restricted kinds such as
`greedy/avoid:pass`, or your own class).

    from gamespec.bots import make_bots, seat_kinds, play_turn
    bots = make_bots(seat_kinds(["1=ismcts:200"], players=4), seed=7)
    while not state.is_terminal:
        play_turn(state, bots)

A bot is any object with `choose(view) -> PlayerAction or index` (docs/bots.md).
"""
from __future__ import annotations

from .base import Bot, BotError, resolve, score_of
from .randombot import RandomBot
from .registry import (BUILTIN, DEFAULT_KIND, KINDS, MAX_RESTRICTIONS, RESTRICTIONS, BotKind, bots_from_args, check_actions,
                       kinds_from_args, load_class, make_bot, make_bots, parse_kind, parse_restrict, parse_seat,
                       restriction_kinds, seat_kinds, split_kind)

__all__ = ["Bot", "BotError", "RandomBot", "GreedyBot", "ISMCTSBot", "FirstBot", "RestrictedBot", "BUILTIN", "KINDS",
           "RESTRICTIONS", "MAX_RESTRICTIONS", "BotKind", "DEFAULT_KIND", "load_class",
           "make_bot", "make_bots", "parse_kind", "split_kind", "parse_seat", "seat_kinds", "kinds_from_args",
           "bots_from_args", "check_actions", "restriction_kinds", "parse_restrict",
           "resolve", "score_of",
           "decide", "play_turn"]


def decide(state, bot):
    """Ask `bot` for the decision of the seat to move in `state` (it sees state.view(seat) only);
    returns (position in state.legal_actions(), the view)."""
    view = state.view(state.current_player)
    return resolve(view, bot.choose(view)), view


def play_turn(state, bots):
    """One decision by the bot of the seat to move; returns the Action played."""
    i, _ = decide(state, bots[state.current_player])
    a = state.legal_actions()[i]
    state.apply(a)
    return a


def __getattr__(name):      # the search bots load on first use
    if name == "GreedyBot":
        from .greedy import GreedyBot
        return GreedyBot
    if name == "ISMCTSBot":
        from .ismcts import ISMCTSBot
        return ISMCTSBot
    if name in ("FirstBot", "RestrictedBot"):
        from . import restricted
        return getattr(restricted, name)
    raise AttributeError(name)
