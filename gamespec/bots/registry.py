"""Bot kinds by name: `SEAT=KIND` or `all=KIND` texts → bot objects.

KIND is random, greedy, ismcts[:ITERATIONS], first or module:Class; a built-in kind may carry
restrictions (restricted play, gamespec/bots/restricted.py): `ismcts:200/avoid:pass`,
`greedy/always:take`, plain `avoid:pass` (= `random/avoid:pass`).

KINDS is the one table of the built-in kinds and RESTRICTIONS the one table of the rules: every
command, the web table and the docs read them."""
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
    seat_words: str = ""    # how a study's findings say what a seat of this kind does ("a seat that ...")
    page_max: int | None = None     # the largest argument a web page may ask for (a bound on its CPU)


KINDS = {k.name: k for k in (
    BotKind("random", "gamespec.bots.randombot:RandomBot", None, True, False,
            "picks a legal action uniformly at random", "plays at random"),
    BotKind("greedy", "gamespec.bots.greedy:GreedyBot", None, True, False,
            "picks the action that most improves its own score one step ahead", "plays greedily on the spec's score"),
    BotKind("ismcts", "gamespec.bots.ismcts:ISMCTSBot", "iterations", True, True,
            "information-set Monte Carlo tree search, ITERATIONS playouts per decision", "searches (ISMCTS)",
            page_max=20000),
    BotKind("first", "gamespec.bots.restricted:FirstBot", None, False, False,
            "always plays the first legal action (restricted play)", "always takes the first legal action"),
)}
DEFAULT_KIND = "random"
BUILTIN = tuple(KINDS)      # the built-in kinds' names, in the table's order
#: the rules a built-in kind may carry after a '/': name → what it does (ACTION: an action's name)
RESTRICTIONS = {
    "avoid": "never plays an action named ACTION while another action is legal",
    "always": "plays an action named ACTION whenever one is legal (the base kind chooses among several)",
}
MAX_RESTRICTIONS = 8        # rules after one base kind
_SEAT = re.compile(r"^\s*(\d+)\s*=\s*(\S.*?)\s*$")
_ALL = re.compile(r"^\s*all\s*=\s*(\S.*?)\s*$")
_MODULE = re.compile(r"^[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*:[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*$")
_ACTION = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def kinds_text() -> str:
    """'random, greedy, ismcts[:ITERATIONS], first or module:Class', from the table."""
    return ", ".join(k.name + (f"[:{k.argument.upper()}]" if k.argument else "") for k in KINDS.values()) \
        + " or module:Class"


def restrictions_text() -> str:
    """'KIND/avoid:ACTION or KIND/always:ACTION ...', from the table."""
    forms = " or ".join(f"KIND/{r}:ACTION" for r in RESTRICTIONS)
    plain = next(iter(RESTRICTIONS))
    return (f"{forms} after a built-in KIND, at most {MAX_RESTRICTIONS} rules; plain {plain}:ACTION is "
            f"{DEFAULT_KIND}/{plain}:ACTION")


def _restriction(part: str, kind: str) -> tuple:
    rule, colon, action = part.partition(":")
    if rule not in RESTRICTIONS:
        raise BotError(f"bot kind {kind!r}: {part!r} is not a restriction; restricted kinds are "
                       f"{restrictions_text()}")
    if not colon or not _ACTION.match(action):
        raise BotError(f"bot kind {kind!r}: {rule}:ACTION takes an action's name (letters, digits and _, "
                       f"not starting with a digit), not {action!r}")
    return (rule, action)


def split_kind(kind: str) -> tuple:
    """A kind → (its base kind, its rules): 'ismcts:200/avoid:pass' → ('ismcts:200', (('avoid',
    'pass'),)); 'avoid:pass' → ('random', (('avoid', 'pass'),)); 'greedy' → ('greedy', ()).

    Checked (BotError with the accepted forms): the base is a built-in kind when there are rules,
    at most MAX_RESTRICTIONS rules, each action named once."""
    if not isinstance(kind, str) or not kind.strip():
        raise BotError(f"a bot kind is {kinds_text()}, or {restrictions_text()}; not {kind!r}")
    kind = kind.strip()
    parts = [p.strip() for p in kind.split("/")]
    if parts[0].partition(":")[0] in RESTRICTIONS:
        base, rest = DEFAULT_KIND, parts
    else:
        base, rest = parts[0], parts[1:]
    if not rest:
        _parse_base(base)
        return (base, ())
    if not base:
        raise BotError(f"bot kind {kind!r}: no base kind before the '/'; restricted kinds are "
                       f"{restrictions_text()}")
    try:
        name, _ = _parse_base(base)
    except BotError as e:
        raise BotError(f"bot kind {kind!r}: {e}") from None
    if name == "class":
        raise BotError(f"bot kind {kind!r}: a module:Class bot takes no restrictions (write the rule into "
                       f"the class); restricted kinds are {restrictions_text()}")
    if len(rest) > MAX_RESTRICTIONS:
        raise BotError(f"bot kind {kind!r}: {len(rest)} restrictions, at most {MAX_RESTRICTIONS}")
    rules, seen = [], set()
    for part in rest:
        if not part:
            raise BotError(f"bot kind {kind!r}: an empty restriction (a '/' with nothing after it)")
        rule = _restriction(part, kind)
        if rule[1] in seen:
            raise BotError(f"bot kind {kind!r}: the action {rule[1]!r} is restricted twice")
        seen.add(rule[1])
        rules.append(rule)
    return (base, tuple(rules))


def _canonical(kind: str) -> str:
    """The one spelling of a kind: spaces around '/' dropped, a random base left implicit."""
    base, rules = split_kind(kind)
    tail = "/".join(f"{r}:{a}" for r, a in rules)
    if not rules:
        return base
    return tail if base == "random" else f"{base}/{tail}"


def parse_kind(kind: str) -> tuple:
    """'ismcts:500' → ('ismcts', 500); 'greedy' → ('greedy', None); 'pkg.mod:Cls' → ('class', 'pkg.mod:Cls');
    a restricted kind 'greedy/avoid:pass' or 'avoid:pass' → ('restricted', 'greedy/avoid:pass')
    (split_kind gives its base and rules).

    Checks the text only (nothing is imported); BotError with the accepted forms if it is bad."""
    if not isinstance(kind, str) or not kind.strip():
        raise BotError(f"a bot kind is {kinds_text()}, or {restrictions_text()}; not {kind!r}")
    kind = kind.strip()
    if "/" in kind or kind.partition(":")[0] in RESTRICTIONS:
        split_kind(kind)
        return ("restricted", kind)
    return _parse_base(kind)


def _parse_base(kind: str) -> tuple:
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
                   f"(a class implementing the bot interface, see docs/bots.md), or {restrictions_text()}")


def page_kind(kind, allowed=None) -> tuple:
    """(name, argument) of `kind` if a web page may choose it: a built-in kind marked `page` in KINDS
    (and named in `allowed`, when given: a server may offer fewer), its argument at most the kind's
    `page_max`; BotError saying what a page may choose otherwise. The text is checked only: nothing is
    imported. The one rule for a seat that comes from outside: the lobby's choices, the JSON API and
    the tables read back from a state directory (a record is data, never code to load)."""
    names = [n for n, k in KINDS.items() if k.page and (allowed is None or n in allowed)]
    try:
        name, arg = parse_kind(kind)
    except BotError as e:
        raise BotError(f"{e}; a page may choose {', '.join(names)}") from None
    k = KINDS.get(name)
    if k is None or name not in names:
        raise BotError(f"bot kind {str(kind)[:80]!r}: a page may choose {', '.join(names)}")
    if arg is not None and k.page_max is not None and arg > k.page_max:
        raise BotError(f"bot kind {kind!r}: at most {name}:{k.page_max} from a page")
    return name, arg


def parse_seat(text: str, players: int | None = None) -> tuple:
    """'2=ismcts:100' → (2, 'ismcts:100'), the kind checked (and the seat, if players is given).
    One seat only: seat_kinds also takes all=KIND."""
    m = _SEAT.match(text if isinstance(text, str) else "")
    if not m:
        if isinstance(text, str) and _ALL.match(text):
            raise BotError(f"--bot {text}: name one seat here (SEAT=KIND, e.g. --bot 1=greedy)")
        raise BotError(f"--bot takes SEAT=KIND (e.g. --bot 1=greedy), not {text!r}")
    seat, kind = int(m.group(1)), m.group(2)
    if players is not None and not 0 <= seat < players:
        raise BotError(f"--bot {text}: no seat {seat} (seats are 0 to {players - 1})")
    parse_kind(kind)
    return seat, kind


def seat_kinds(specs, players: int, default: str = DEFAULT_KIND) -> list:
    """The kind of every seat from `SEAT=KIND` and `all=KIND` texts, applied in order (later ones
    win: ["all=ismcts:200", "0=random"]); seats no text names get `default`."""
    kinds = [default] * players
    for text in specs or ():
        m = _ALL.match(text) if isinstance(text, str) else None
        if m:
            parse_kind(m.group(1))
            kinds = [m.group(1)] * players
            continue
        if not (isinstance(text, str) and _SEAT.match(text)):
            raise BotError(f"--bot takes SEAT=KIND or all=KIND (e.g. --bot 1=greedy, --bot all=ismcts:200), "
                           f"not {text!r}")
        seat, kind = parse_seat(text, players)
        kinds[seat] = kind
    return kinds


def check_actions(kinds, action_names) -> None:
    """BotError if one of `kinds` restricts an action that is not among `action_names` (the spec's
    actions; the reserved `skip`, an optional step's pass, is always accepted), naming the closest
    one ("did you mean ...?")."""
    from gamespec.spec.structure import RESERVED_ACTIONS
    from gamespec.spec.suggest import suggest
    names = list(dict.fromkeys(action_names))
    known = set(names) | RESERVED_ACTIONS       # skip: the pass of an optional step, in any spec
    cands = names + sorted(RESERVED_ACTIONS - set(names))
    for kind in kinds:
        name, arg = parse_kind(kind)
        if name != "restricted":
            continue
        for _, action in split_kind(arg)[1]:
            if action not in known:
                listed = ", ".join(names[:20]) + (f" and {len(names) - 20} more" if len(names) > 20 else "")
                raise BotError(f"bot kind {arg!r}: the game has no action {action!r}{suggest(action, cands)} "
                               f"(its actions: {listed or 'none'})")


def restriction_kinds(action_names, base: str = DEFAULT_KIND) -> list:
    """The restricted kinds `--restrict all` means against `base` players: `first`, `greedy` (when
    the base is random), then for every action name BASE/avoid:NAME and BASE/always:NAME (plain
    avoid:NAME and always:NAME for a random base). An action the base already restricts is left out."""
    base = base.strip() if isinstance(base, str) else base
    bname, _ = parse_kind(base)
    _, base_rules = split_kind(base)
    if bname == "class":
        raise BotError(f"--restrict all against {base!r}: a module:Class bot takes no restrictions")
    taken = {a for _, a in base_rules}
    out = ["first"] + (["greedy"] if base == "random" else [])
    for n in dict.fromkeys(action_names):
        if not isinstance(n, str) or not _ACTION.match(n):
            raise BotError(f"{n!r} is not an action's name")
        if n in taken:
            continue
        for rule in RESTRICTIONS:
            k = _canonical(f"{base}/{rule}:{n}")
            out.append(k)
    return list(dict.fromkeys(out))


def parse_restrict(texts, action_names, base: str = DEFAULT_KIND) -> list:
    """`--restrict` texts → the restricted kinds to study against `base` players, checked against the
    spec's `action_names`, duplicates removed (the first of each stays). Each text is a comma-separated
    list of `all` (restriction_kinds) and kinds (`first`, `greedy`, `avoid:pass`, `ismcts:50/always:take`);
    a bare restriction (`avoid:pass`) applies to `base`. BotError on a bad text."""
    if isinstance(texts, str):
        texts = [texts]
    base = base.strip() if isinstance(base, str) else base
    parse_kind(base)
    hint = ("--restrict takes all or bot kinds separated by commas (first, greedy, avoid:ACTION, "
            "always:ACTION, KIND/avoid:ACTION, ...)")
    out = []
    for text in texts or ():
        if not isinstance(text, str) or not text.strip():
            raise BotError(f"{hint}, not {text!r}")
        for item in text.split(","):
            item = item.strip()
            if not item:
                raise BotError(f"--restrict {text!r}: an empty item; {hint}")
            if item == "all":
                out.extend(restriction_kinds(action_names, base))
                continue
            try:
                parse_kind(item)
                if item.partition(":")[0] in RESTRICTIONS and base != DEFAULT_KIND:
                    item = f"{base}/{item}"
                out.append(_canonical(item))
            except BotError as e:
                raise BotError(f"--restrict {item!r}: {e}") from None
    out = list(dict.fromkeys(out))
    check_actions(out, action_names)
    return out


def load_class(target: str):
    """'package.module:Class' → the class (imported now: only for names given on the command line
    or in code, never for names read from a file)."""
    import importlib
    import inspect
    import os
    import sys
    mod_name, _, attr = target.partition(":")
    try:
        try:
            mod = importlib.import_module(mod_name)
        except ModuleNotFoundError as e:
            # the current folder, as `python -m` would search it (the installed `gamespec` script's
            # sys.path does not hold it): after every other place, so a file there never shadows a
            # module of the same name
            here = os.getcwd()
            top = mod_name.split(".")[0]
            if e.name != top or here in sys.path or not (
                    os.path.isfile(os.path.join(here, top + ".py")) or os.path.isdir(os.path.join(here, top))):
                raise
            sys.path.append(here)
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
    ISMCTS bot searches in C (docs/native.md); other kinds play as always. A restricted kind is a
    RestrictedBot around the bot of its base kind (made with the same seed, seat and engine)."""
    name, arg = parse_kind(kind)
    if name == "restricted":
        from .restricted import RestrictedBot
        base, rules = split_kind(arg)
        return RestrictedBot(make_bot(base, seat, seed, engine), rules, seed, seat, kind_text=arg)
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
