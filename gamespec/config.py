"""User input (a player count, NAME=VALUE option texts) → a checked game configuration, and its display.

The doors of the command line and other front ends: a bad value is a UsageError whose message names
what is allowed (the player range, the options with their defaults, the closest option name)."""
from __future__ import annotations

from .errors import UsageError


def format_value(v) -> str:
    """An option value as it is typed: true/false, or the number."""
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def format_options(opts: dict) -> str:
    """'a=true, b=3', or 'none'."""
    return ", ".join(f"{k}={format_value(v)}" for k, v in opts.items()) if opts else "none"


def options_from_pairs(game, pairs) -> dict:
    """(NAME, VALUE text) pairs → the complete checked option dict (UsageError on a bad one)."""
    raw = {}
    for name, value in pairs or ():
        if name not in game.options:
            import difflib
            valid = ", ".join(f"{k} (default {format_value(v)})" for k, v in game.options.items())
            if not game.options:
                raise UsageError(f"unknown option '{name}': {game.name} has no options")
            close = difflib.get_close_matches(name, list(game.options), n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise UsageError(f"unknown option '{name}'{hint} (options of {game.name}: {valid})")
        raw[name] = value
    return game.check_options(raw)


def player_count(game, players) -> int:
    """The player count (None: the spec's smallest), checked (UsageError names the range)."""
    if players is None:
        return game.min_players
    if not game.min_players <= players <= game.max_players:
        raise UsageError(f"{game.name} is for {game.min_players} to {game.max_players} players, "
                         f"not {players}")
    return players
