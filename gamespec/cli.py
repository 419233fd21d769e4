"""The `gamespec` command: subcommands over game specs, each a thin face of a package.

    gamespec validate games/*.yaml                    check specs: FILE:LINE:COL errors (gamespec.validation)
    gamespec check --strict games/*.yaml              lints beyond errors (gamespec.authoring)
    gamespec run games/g.yaml --players 4 --seed 7    play one game with bots, logs (gamespec.table)
    gamespec simulate games/g.yaml --games 1000       many games, win rates, records (gamespec.analysis)
    gamespec report records.jsonl -o report.html      a balance report (gamespec.analysis)
    gamespec compare a.jsonl b.jsonl                  figures that differ beyond noise (gamespec.analysis)
    gamespec replay game.jsonl                        re-play a log, first divergence (gamespec.interpreter.replay)
    gamespec show game.jsonl --for 2                  a log as a transcript, as a seat saw it (gamespec.table)
    gamespec play games/g.yaml --bot 1=ismcts:500     play against bots in the terminal (gamespec.table)
    gamespec serve games/*.yaml                       play in the browser (gamespec.web)
    gamespec graph games/g.yaml -o g.svg              the phase graph (gamespec.draw)
    gamespec explain games/g.yaml                     the rulebook in words (gamespec.authoring)
    gamespec new mygame --from trick-taking           a commented spec to start from (gamespec.authoring)
    gamespec schema -o gamespec.schema.json           the JSON Schemas (gamespec.authoring)
    gamespec list / lsp / tune                        the library, the language server, option search

Exit codes: 0 success; 1 a spec error, a failed game, a divergent replay or an unreadable file;
2 a usage error (bad arguments, player count or option) or an internal error (a bug: the message
says "internal error" and shows the traceback); 130 interrupted.

Thin by rule: a command converts its arguments, calls the package that owns the capability
(gamespec.validation, gamespec.table, gamespec.analysis, gamespec.authoring, gamespec.web,
gamespec.draw, gamespec.interpreter.replay) and prints what it returns, with the exit code. Imports are lazy:
`validate` loads neither the interpreter's simulation code, nor multiprocessing, nor matplotlib.

This module is the top only: the parser, the order of the commands and the exit codes of errors. The
commands live in gamespec/commands/, a module for one command or a few of a kind (validate, run,
simulate, records: report and compare, graph, replay, authoring: schema, new, explain and check,
table: play and show, serve, games: list, lsp, tune); what they share is gamespec/commands/_common.py.
"""
from __future__ import annotations

import argparse
import os
import sys

from .commands._common import PROG, Fail
from .commands._common import Formatter as _Formatter
from .commands._common import game_args


def _err(msg: str) -> None:
    print(f"{PROG}: error: {msg}", file=sys.stderr)


def _close(word, candidates):
    import difflib
    found = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    return found[0] if found else None


class _Parser(argparse.ArgumentParser):
    """argparse with a "did you mean" for a mistyped subcommand or choice (`invalid choice: 'X'`)."""

    def error(self, message):
        import re
        m = re.match(r"argument [^:]+: invalid choice: '(.*)' \(choose from (.*)\)$", message, re.S)
        if m:
            near = _close(m.group(1), re.findall(r"'([^']*)'", m.group(2)))
            if near is not None:
                message += f"; did you mean '{near}'?"
        super().error(message)


def _subparsers(parser) -> dict:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action.choices
    return {}


def _unrecognized(parser, args, extra):
    """`unrecognized arguments` from the subcommand's own parser (its usage, not the top level's),
    with the close spelling of a mistyped option, or the subcommand that has it."""
    subs = _subparsers(parser)
    sub = subs.get(getattr(args, "command", None), parser)
    hints = []
    for word in extra:
        if not word.startswith("-") or word == "-":
            continue
        name = word.split("=", 1)[0]
        others = [n for n, sp in subs.items() if sp is not sub and name in sp._option_string_actions]
        if others:
            hints.append(f"{name} is an option of: {', '.join(others)}")
        near = _close(name, [o for o in sub._option_string_actions if o.startswith("--")])
        if near is not None:
            hints.append(f"did you mean {near}?")
    sub.error(f"unrecognized arguments: {' '.join(extra)}" + (f" ({'; '.join(hints)})" if hints else ""))


class _Version(argparse.Action):
    """`--version`: the installed package's version, looked up only when asked for."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        import gamespec
        print(f"{PROG} {gamespec.__version__}")
        parser.exit()


# ------------------------------------------------------------------------------------------------
# the parser

def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog=PROG, formatter_class=_Formatter,
        description="Card games as checked YAML specs, run by a generic interpreter.",
        epilog="examples:\n"
               "  gamespec validate games/*.yaml\n"
               "  gamespec run games/mygame.yaml --players 4 --seed 7 --log game.jsonl\n"
               "  gamespec simulate games/mygame.yaml --games 1000 --players 4\n"
               "  gamespec graph games/mygame.yaml -o mygame.svg\n"
               "  gamespec replay game.jsonl\n"
               "  gamespec report games.jsonl -o report.html\n"
               "  gamespec compare before.jsonl after.jsonl\n\n"
               "Run 'gamespec COMMAND --help' for a command's options.")
    p.add_argument("--version", action=_Version, help="print the version and exit")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)
    _add_module_commands(sub)
    return p


# The modules of gamespec/commands/ in the order of their commands in `gamespec --help`; any other module's
# commands follow these, by the module's name.
FIRST = ("validate", "run", "simulate", "records", "graph", "replay", "authoring", "table", "serve")


def _add_module_commands(sub) -> None:
    """Add the commands: each module of gamespec/commands/ holds one, or a few of a kind, and its
    `add_parser(sub, formatter, game_args)` registers them and sets each one's `func` (a function of
    the parsed arguments that returns the exit code). The modules import nothing heavy at the top, so
    `gamespec validate` stays fast; a module whose name starts with "_" is not a command."""
    import importlib
    import pkgutil

    from gamespec import commands
    rest = sorted(m.name for m in pkgutil.iter_modules(commands.__path__)
                  if not m.name.startswith("_") and m.name not in FIRST)
    for name in FIRST + tuple(rest):
        importlib.import_module(f"gamespec.commands.{name}").add_parser(sub, _Formatter, game_args)


# ------------------------------------------------------------------------------------------------

def main(argv=None) -> int:
    """Run the command line; returns the exit code (argparse's own exits are returned too)."""
    parser = build_parser()
    try:
        args, extra = parser.parse_known_args(argv)
        if extra:
            _unrecognized(parser, args, extra)
    except SystemExit as e:
        return e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
    try:
        return args.func(args)
    except Fail as e:
        _err(e.message)
        return e.code
    except KeyboardInterrupt:
        print(f"\n{PROG}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader went away (e.g. `| head`): stop quietly
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 1
    except Exception as e:  # noqa: BLE001 - sorted below
        from .errors import GamespecError, SpecErrors, SpecRuntimeError
        from .errors import UsageError
        if isinstance(e, SpecErrors):
            print(str(e), file=sys.stderr)
            return 1
        if isinstance(e, UsageError):
            _err(str(e))
            return 2
        if isinstance(e, GamespecError):
            msg = str(e)
            if isinstance(e, SpecRuntimeError):     # "WHERE: error: message" already
                print(f"{PROG}: {msg}", file=sys.stderr)
            else:
                _err(msg)
            return 1
        import traceback
        print(f"{PROG}: internal error: {type(e).__name__}: {e}", file=sys.stderr)
        traceback.print_exc()
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
