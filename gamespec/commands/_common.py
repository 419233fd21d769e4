"""What the sub-commands share: the clean failure, the argument types, the arguments every game command
takes, and the helpers that load a spec, print and write. The standard library only at the top (the
rest is imported inside the function that needs it), so that building the parser stays cheap. The
leading underscore keeps gamespec.cli's discovery from taking this module for a command."""
from __future__ import annotations

import argparse
import sys

PROG = "gamespec"


class Fail(Exception):
    """A clean, expected failure: a one-line message on stderr and an exit code."""

    def __init__(self, message: str, code: int = 1):
        super().__init__(message)
        self.message = message
        self.code = code


class Formatter(argparse.RawDescriptionHelpFormatter):
    pass


# ------------------------------------------------------------------------------------------------
# argument types

def int_at_least(lo):
    def conv(text):
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if v < lo:
            raise argparse.ArgumentTypeError(f"expected a whole number >= {lo}, got {v}")
        return v
    conv.__name__ = "int"
    return conv


def whole_number(text):
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None


def seed_number(text):
    from gamespec.interpreter.rng import check_seed
    try:
        return check_seed(whole_number(text))
    except ValueError as e:     # UsageError
        raise argparse.ArgumentTypeError(str(e)) from None


def seconds(text):
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not 0 < v <= 10 ** 9:
        raise argparse.ArgumentTypeError(f"expected a number of seconds > 0, got {text!r}")
    return v


def option_pair(text):
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE (e.g. --option NAME=true), got {text!r}")
    return name.strip(), value.strip()


def game_args(sp) -> None:
    """--players, --seed, --timeout and --option: the arguments of every command that plays a game."""
    sp.add_argument("--players", "-p", type=whole_number, metavar="P",
                    help="number of players (default: the spec's smallest)")
    sp.add_argument("--seed", "-s", type=seed_number, default=None, metavar="S",
                    help="random seed, 0 to 2**64 - 1 (default: 64 bits of OS entropy; run and simulate "
                         "print it so the run can be repeated, play keeps it secret: it tells every card)")
    sp.add_argument("--timeout", type=seconds, default=None, metavar="SECONDS",
                    help="end a game that runs longer than this with an error (default: none; the "
                         "spec's step budgets still bound every game)")
    sp.add_argument("--option", "-O", type=option_pair, action="append", default=[],
                    metavar="NAME=VALUE", help="set one of the spec's options (repeatable); VALUE is a whole number or true/false")


def bot_arg(sp) -> None:
    """--bot of run and simulate."""
    sp.add_argument("--bot", "-b", action="append", default=[], metavar="SEAT=KIND",
                    help="the bot of a seat, or all=KIND for every seat (repeatable, later ones win; "
                         "default random): random, greedy, ismcts[:ITERATIONS], first, a restricted kind "
                         "such as avoid:ACTION or ismcts:200/always:ACTION, or module:Class (docs/bots.md)")


# ------------------------------------------------------------------------------------------------
# loading, printing, writing

def load_spec(path):
    """Load a spec; SpecErrors propagate (exit 1, FILE:LINE:COL lines)."""
    import gamespec
    return gamespec.load(path)


def spec_options(game, pairs) -> dict:
    """--option NAME=VALUE pairs → the complete checked option dict (UsageError on a bad one)."""
    from gamespec.config import options_from_pairs
    return options_from_pairs(game, pairs)


def spec_players(game, count):
    """The player count (default: the smallest), checked (UsageError names the range)."""
    from gamespec.config import player_count
    return player_count(game, count)


def print_json(obj) -> None:
    import json
    print(json.dumps(obj, indent=2, sort_keys=False))


def print_lines(lines, file=None) -> None:
    for line in lines:
        print(line, file=file)


def seed_or_new(given) -> int:
    """The seed given, or 64 bits of OS entropy (printed by the command, so the run can be repeated)."""
    if given is None:
        import secrets
        given = secrets.randbits(64)
    return given


def write_jsonl(lines, path) -> None:
    from gamespec.interpreter.gamelog import write_jsonl as write
    try:
        write(lines, path)
    except OSError as e:
        raise Fail(f"cannot write {path}: {e.strerror or e}") from None


def write(path, data) -> None:
    """Write text (UTF-8) or bytes to a file; a clean failure if it cannot be written."""
    try:
        with open(path, "wb") if isinstance(data, bytes) else open(path, "w", encoding="utf-8") as f:
            f.write(data)
    except OSError as e:
        raise Fail(f"cannot write {path}: {e.strerror or e}") from None


def write_or_print(path, text: str) -> None:
    if path:
        write(path, text)
    else:
        sys.stdout.write(text)
