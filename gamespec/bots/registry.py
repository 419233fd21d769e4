"""Bot kinds by name: `SEAT=random|greedy|ismcts[:ITERATIONS]|module:Class` → bot objects.

KINDS is the one table of the built-in kinds: every command, the web table and the docs read it."""
from __future__ import annotations

import re
from dataclasses import dataclass

from .base import BotError


@dataclass(frozen=True)
class BotKind:
    name: str
    target: str             # module:Class of its implementation (imported only when a bot is made)
    argument: str | None    # the name of its one whole-number argument (`ismcts:500`), or None
    page: bool              # a web page may ask for it (no code is imported for it)
    engines: bool           # it takes engine= ("native": its search runs in C, docs/native.md)
    doc: str


KINDS = {k.name: k for k in (
    BotKind("random", "gamespec.bots.randombot:RandomBot", None, True, False,
            "picks a legal action uniformly at random"),
    BotKind("greedy", "gamespec.bots.greedy:GreedyBot", None, True, False,
            "picks the action that most improves its own score one step ahead"),
    BotKind("ismcts", "gamespec.bots.ismcts:ISMCTSBot", "iterations", True, True,
            "information-set Monte Carlo tree search, ITERATIONS playouts per decision"),
)}
DEFAULT_KIND = "random"
BUILTIN = tuple(KINDS)      # the built-in kinds' names, in the table's order
_SEAT = re.compile(r"^\s*(\d+)\s*=\s*(\S.*?)\s*$")
_MODULE = re.compile(r"^[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*:[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*$")


def kinds_text() -> str:
    """'random, greedy, ismcts[:ITERATIONS] or module:Class', from the table."""
    return ", ".join(k.name + (f"[:{k.argument.upper()}]" if k.argument else "") for k in KINDS.values()) \
        + " or module:Class"


def parse_kind(kind: str) -> tuple:
    """'ismcts:500' → ('ismcts', 500); 'greedy' → ('greedy', None); 'pkg.mod:Cls' → ('class', 'pkg.mod:Cls').

    Checks the text only (nothing is imported); BotError with the accepted forms if it is bad."""
    if not isinstance(kind, str) or not kind.strip():
        raise BotError(f"a bot kind is {kinds_text()}, not {kind!r}")
    kind = kind.strip()
    name, _, arg = kind.partition(":")
    k = KINDS.get(name)
    if k is not None:
        if k.argument is None:
            if arg:
                raise BotError(f"bot kind '{name}' takes no argument (got {kind!r})")
            return (name, None)
        if not arg:
            return (name, None)
        if not arg.isdigit() or int(arg) < 1:
            raise BotError(f"{name}:{k.argument.upper()} takes a whole number >= 1, not {arg!r}")
        return (name, int(arg))
    if _MODULE.match(kind):
        return ("class", kind)
    raise BotError(f"unknown bot kind {kind!r}: use {kinds_text()} "
                   "(a class implementing the bot interface, see docs/bots.md)")


def parse_seat(text: str, players: int | None = None) -> tuple:
    """'2=ismcts:100' → (2, 'ismcts:100'), the kind checked (and the seat, if players is given)."""
    m = _SEAT.match(text or "")
    if not m:
        raise BotError(f"--bot takes SEAT=KIND (e.g. --bot 1=greedy), not {text!r}")
    seat, kind = int(m.group(1)), m.group(2)
    if players is not None and not 0 <= seat < players:
        raise BotError(f"--bot {text}: no seat {seat} (seats are 0 to {players - 1})")
    parse_kind(kind)
    return seat, kind


def seat_kinds(specs, players: int, default: str = DEFAULT_KIND) -> list:
    """The kind of every seat from `SEAT=KIND` texts (later ones win); unnamed seats get `default`."""
    kinds = [default] * players
    for text in specs or ():
        seat, kind = parse_seat(text, players)
        kinds[seat] = kind
    return kinds


def load_class(target: str):
    """'package.module:Class' → the class (imported now: only for names given on the command line
    or in code, never for names read from a file)."""
    import importlib
    import inspect
    mod_name, _, attr = target.partition(":")
    try:
        mod = importlib.import_module(mod_name)
    except ImportError as e:
        raise BotError(f"cannot load bot {target!r}: cannot import module {mod_name!r} ({e}); "
                       "is it on PYTHONPATH (or in the current folder)?") from None
    except Exception as e:  # noqa: BLE001 - the user's module failed while importing
        raise BotError(f"cannot load bot {target!r}: importing {mod_name!r} raised "
                       f"{type(e).__name__}: {e}") from None
    obj = mod
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise BotError(f"cannot load bot {target!r}: module {mod_name!r} has no {attr!r}") from None
    if not inspect.isclass(obj):
        raise BotError(f"cannot load bot {target!r}: {attr!r} is a {type(obj).__name__}, not a class")
    if not callable(getattr(obj, "choose", None)):
        raise BotError(f"cannot load bot {target!r}: class {attr} has no choose(view) method "
                       "(see docs/bots.md)")
    return obj


def make_bot(kind: str, seat: int, seed: int = 0, engine: str | None = None):
    """A bot of `kind` for `seat`, seeded from the game seed and the seat. `engine` "native": an
    ISMCTS bot searches in C (docs/native.md); other kinds play as always."""
    name, arg = parse_kind(kind)
    k = KINDS.get(name)
    if k is not None:
        import importlib
        mod, _, cls = k.target.partition(":")
        made = getattr(importlib.import_module(mod), cls)
        kw = {k.argument: arg} if arg is not None else {}
        if k.engines and engine is not None:
            kw["engine"] = engine
        return made(seed, seat, **kw)
    import inspect
    cls = load_class(arg)
    try:
        params = inspect.signature(cls).parameters
    except (TypeError, ValueError):
        params = {}
    accepts_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    kwargs = {k: v for k, v in (("seed", seed), ("seat", seat)) if accepts_any or k in params}
    try:
        return cls(**kwargs)
    except Exception as e:  # noqa: BLE001 - the user's constructor failed
        raise BotError(f"cannot make bot {arg!r} for seat {seat}: {type(e).__name__}: {e} "
                       "(a bot class is built with no arguments, or with seed= and seat=)") from None


def make_bots(kinds, seed: int = 0, engine: str | None = None) -> list:
    """One bot per seat from a list of kinds (see seat_kinds)."""
    return [make_bot(k, seat, seed, engine) for seat, k in enumerate(kinds)]


def kinds_from_args(specs, players: int) -> list:
    """`--bot SEAT=KIND` texts → a kind per seat (default random); a bad text is a UsageError (the
    request is wrong, not the game)."""
    from gamespec.errors import UsageError
    try:
        return seat_kinds(specs, players)
    except BotError as e:
        raise UsageError(str(e)) from None


def bots_from_args(specs, players: int, seed: int):
    """The bots of `--bot SEAT=KIND` texts, made now (a module:Class is imported here, so a bad one
    fails at once, as a UsageError); None when there are no texts (a random bot in every seat)."""
    if not specs:
        return None
    from gamespec.errors import UsageError
    kinds = kinds_from_args(specs, players)
    try:
        return make_bots(kinds, seed)
    except BotError as e:
        raise UsageError(str(e)) from None
