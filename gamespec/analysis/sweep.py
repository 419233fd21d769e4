"""`--sweep NAME=V1,V2,...` texts → the grid (cross product) of configurations: each a player count
and a complete option set, checked against the spec (clear errors with a "did you mean")."""
from __future__ import annotations

import difflib
import itertools


def parse_sweep(texts) -> list:
    """['players=3,4', 'fast=true,false'] → [('players', ['3', '4']), ('fast', ['true', 'false'])]."""
    from gamespec.errors import UsageError
    axes, seen = [], set()
    for text in texts or ():
        name, sep, values = text.partition("=")
        name = name.strip()
        vals = [v.strip() for v in values.split(",")]
        if not sep or not name or not all(vals):
            raise UsageError(f"--sweep takes NAME=V1,V2,... (e.g. --sweep players=3,4,5), not {text!r}")
        if name in seen:
            raise UsageError(f"--sweep {name} is given twice")
        if len(set(vals)) != len(vals):
            raise UsageError(f"--sweep {name} repeats a value")
        seen.add(name)
        axes.append((name, vals))
    return axes


def grid(game, axes, players=None, options=None) -> list:
    """The configurations [(players, options dict)] of the cross product of `axes`, over the base
    `players` (default the spec's smallest) and `options` (raw NAME: text values)."""
    from gamespec.errors import UsageError
    base = dict(options or {})
    for name, _ in axes:
        if name == "players":
            if players is not None:
                raise UsageError("give the player count by --players or by --sweep players=..., not both")
            continue
        if name not in game.options:
            close = difflib.get_close_matches(name, ["players"] + list(game.options), n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            known = ", ".join(["players"] + list(game.options))
            raise UsageError(f"--sweep: unknown name '{name}'{hint} (known: {known})")
        if name in base:
            raise UsageError(f"--sweep {name} and --option {name} both set '{name}'")
    configs = []
    for combo in itertools.product(*[vals for _, vals in axes]):
        p = players
        opts = dict(base)
        for (name, _), value in zip(axes, combo):
            if name == "players":
                try:
                    p = int(value)
                except ValueError:
                    raise UsageError(f"--sweep players: {value!r} is not a whole number") from None
            else:
                opts[name] = value
        p = game.min_players if p is None else p
        if not game.min_players <= p <= game.max_players:
            raise UsageError(f"{game.name} is for {game.min_players} to {game.max_players} players, not {p}")
        configs.append((p, game.check_options(opts)))
    return configs
