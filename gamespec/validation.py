"""Spec files → validation reports: every spec error, then the rules built for every player count and
option set (bounded), so that problems which show only when a rule set is compiled are errors too.

    entry = validate_file("games/mygame.yaml")   # {"file", "ok", "errors", "game", "players", ...}

Each error is a dict: file, line, col, message, check and text (`FILE:LINE:COL: error: message`)."""
from __future__ import annotations

MAX_COMPILED = 256   # at most this many (player count, options) rule sets are compiled per file
MAX_COMPILED_CARDS = 1_000_000   # ... and no more once their cards and faces add up to this many


def error_entry(x) -> dict:
    """A SpecError → its report dict."""
    return {"file": x.filename, "line": x.line, "col": x.col, "message": x.message, "check": x.check,
            "text": str(x)}


def validate_file(path) -> dict:
    """Load and check one spec file and compile its rule sets (compile_all): the report entry
    {file, ok, errors[, game, players, options, coverage]}. Never raises for a bad spec."""
    import gamespec
    entry = {"file": path, "ok": True, "errors": []}
    try:
        game = gamespec.load(path)
    except gamespec.SpecErrors as e:
        entry["ok"] = False
        entry["errors"] = [error_entry(x) for x in e.errors]
        return entry
    entry.update(game=game.name, players=[game.min_players, game.max_players], options=dict(game.options))
    entry["errors"], entry["coverage"] = compile_all(game, path)
    entry["ok"] = not entry["errors"]
    return entry


def compile_all(game, path):
    """Build the rules for every player count and option set (bounded, lazily): run-time rule
    problems that show at compile time (a card's zone rule failing, ...) become errors too.
    Returns (errors, coverage): coverage says how many combinations were compiled and which."""
    import itertools
    import re

    from gamespec.spec.options import count_option_sets, each_option_alone, iter_option_sets

    from .compile.ruleset import Ruleset
    from .config import format_options
    from .errors import GamespecError, SpecErrors
    counts = range(game.min_players, game.max_players + 1)
    total = count_option_sets(game.spec) * len(counts)
    if total <= MAX_COMPILED:
        sets, how = iter_option_sets(game.spec), "every player count and option combination"
    else:   # too many: the defaults and each option changed alone (never all listed first)
        sets, how = each_option_alone(game.spec), "the defaults and each option changed alone"
    jobs = itertools.islice(((p, o) for o in sets for p in counts), MAX_COMPILED)
    errors = []
    seen = set()
    compiled = cards = 0
    for players, opts in jobs:
        if cards >= MAX_COMPILED_CARDS:
            break
        compiled += 1
        try:    # not cached (Game.ruleset would cache it): one rule set in memory at a time
            rs = Ruleset(game.spec, players, game.check_options(dict(opts)), backend=game.backend)
            cards += rs.ncards + len(rs.faces)
        except SpecErrors as e:
            for x in e.errors:
                if (x.filename, x.line, x.col, x.message) not in seen:
                    seen.add((x.filename, x.line, x.col, x.message))
                    errors.append(error_entry(x))
        except GamespecError as e:
            where = getattr(e, "where", "") or ""
            msg = getattr(e, "message", str(e))
            ctx = f"with {players} players" + (f", options {format_options(opts)}" if opts else "")
            m = re.match(r"^(.*):(\d+):(\d+) \((.*)\)$", where)
            if m:
                file, line, col, rule = m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)
            else:
                file, line, col, rule = path, 1, 1, where
            text = f"{file}:{line}:{col}: error: {msg}" + (f" (in {rule}, {ctx})" if rule else f" ({ctx})")
            if (file, line, col, msg) in seen:
                continue
            seen.add((file, line, col, msg))
            errors.append({"file": file, "line": line, "col": col, "message": msg,
                           "check": getattr(e, "check", "runtime"), "text": text})
    coverage = {"compiled": compiled, "combinations": total, "which": how}
    if compiled < total:
        coverage["not_compiled"] = total - compiled
        if compiled == MAX_COMPILED:
            coverage["which"] += f" (the first {MAX_COMPILED})"
        elif cards >= MAX_COMPILED_CARDS:
            coverage["which"] += f" (the first {compiled}: {cards} cards and faces laid out)"
    return errors, coverage
