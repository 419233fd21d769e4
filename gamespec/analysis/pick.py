"""`--config KEY=VALUE` texts → a filter on configurations (game, players, bots or an option), and the
configurations of a record set as text, for `compare` to pick configurations and to say what there is."""
from __future__ import annotations

from .stats import _fmt, config_label

FIELDS = ("game", "players", "bots")
MAX_LISTED = 20      # configurations listed in a message; the rest are counted


class PickError(ValueError):
    """A --config that names nothing, or matches no configuration (the message lists what there is)."""


def _value(key, field):
    """The text a KEY=VALUE compares with, for one configuration key (game, players, options, bots)."""
    game, players, opts, bots = key
    if field == "game":
        return [str(game)]
    if field == "players":
        return [str(players)]
    if field == "bots":
        # bots=greedy matches a configuration whose every seat is greedy; bots=greedy,random one seat each
        texts = [",".join(bots)]
        if bots and len(set(bots)) == 1:
            texts.append(bots[0])
        return texts
    for name, v in opts:
        if name == field:
            return [_fmt(v)]
    return None


def keys_of(groups) -> list:
    """The KEYs a --config may name for these configurations: the fields, then every option name."""
    names = []
    for _, _, opts, _ in groups:
        for name, _ in opts:
            if name not in names and name not in FIELDS:
                names.append(name)
    return list(FIELDS[:2]) + (["bots"] if any(k[3] for k in groups) else []) + names


def listing(groups, counts=None) -> str:
    """'G: 2 players, x=1 (100 games); ...' (at most MAX_LISTED, then how many more)."""
    keys = list(groups)
    shown = []
    for k in keys[:MAX_LISTED]:
        n = counts(k) if counts else None
        shown.append(config_label(k) + ("" if n is None else f" ({n} game{'s' if n != 1 else ''})"))
    more = f"; ... and {len(keys) - MAX_LISTED} more" if len(keys) > MAX_LISTED else ""
    return "; ".join(shown) + more if shown else "none"


def pick(groups, picks, name, counts=None) -> dict:
    """The configurations of `groups` ({config key: anything}) that match every (KEY, VALUE) of
    `picks`; PickError naming the file (`name`) and what it holds if a KEY is unknown or none matches."""
    if not picks:
        return groups
    known = keys_of(groups)
    for field, _ in picks:
        if field not in FIELDS and field not in known:
            raise PickError(f"no configuration has {field!r} (--config); the keys of {name} are: {', '.join(known)}")
    out = {k: v for k, v in groups.items()
           if all(value in (_value(k, field) or ()) for field, value in picks)}
    if not out:
        wanted = ", ".join(f"{f}={v}" for f, v in picks)
        raise PickError(f"no configuration of {name} matches {wanted}; {name} has: {listing(groups, counts)}")
    return out
