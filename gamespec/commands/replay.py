"""`gamespec replay`: re-play a full log and check every line of it, or name the first difference
(gamespec.interpreter.replay)."""
from __future__ import annotations

import os
import sys

from ._common import PROG, Fail, load_spec, print_json, seconds


def add_parser(sub, formatter, game_args) -> None:
    rp = sub.add_parser(
        "replay", formatter_class=formatter, help="re-play a full log and check it",
        description="Re-play a full log written by 'gamespec run --log' and check every line of it\n"
                    "against the game it re-plays (decisions, looks, chance events, the end). With\n"
                    "the header's seed every shuffle is verified; without one, shuffles are taken\n"
                    "on trust, and replay says so. Prints OK and the decision count, or the first\n"
                    "difference (exit 1); a log whose lines all match but whose game goes on (a game\n"
                    "left in 'gamespec play') is reported unfinished (exit 1; --json: unfinished).\n"
                    "The spec is --spec, else the file at the header's 'spec' path (as written,\n"
                    "then relative to the log's folder), else a .yaml file beside the log: the\n"
                    "first regular file whose SHA-256 is the log's (no other is read).\n"
                    "A long replay prints how far it got on stderr every 10 s.",
        epilog="examples:\n"
               "  gamespec replay game.jsonl\n"
               "  gamespec replay game.jsonl --spec games/mygame.yaml --json")
    rp.add_argument("log", metavar="LOG", help="a full log (JSON lines)")
    rp.add_argument("--spec", metavar="FILE", help="the spec file (default: from the log's header)")
    rp.add_argument("--json", action="store_true", help="print the result as JSON")
    rp.add_argument("--timeout", type=seconds, default=None, metavar="SECONDS",
                    help="stop a replay that runs longer than this with an error (default: none)")
    rp.set_defaults(func=cmd_replay)


def cmd_replay(args) -> int:
    from gamespec.loader import find_spec
    from gamespec.interpreter.replay import full_log_header, replay_file

    header = full_log_header(args.log)
    spec_path = args.spec or find_spec(header, args.log)
    game = load_spec(spec_path)
    try:
        result = replay_file(game, args.log, timeout=args.timeout,
                             progress=_replay_progress(args.log, args.timeout))
    except OSError as e:
        raise Fail(f"cannot read {args.log}: {e.strerror or e}") from None
    out = {"log": args.log, "spec": spec_path, "game": game.name, **result}
    if args.json:
        print_json(out)
    elif result["ok"]:
        print(f"{args.log}: OK, {result['decisions']} decisions replayed; scores {result['scores']}, "
              f"winners {result['winners']}")
        print(f"chance: {result['chance']}")
    if not result["ok"]:
        if args.json:
            return 1
        if result["unfinished"]:
            print(f"{args.log}: every line matches, {result['decisions']} decisions replayed, but the game "
                  "is unfinished: the log ends before the game does (a game left before its end, as "
                  "'gamespec play' writes one, or a cut file)", file=sys.stderr)
            print(f"chance: {result['chance']}", file=sys.stderr)
        else:
            print(f"{args.log}: replay failed after {result['decisions']} matching decisions: "
                  f"{result['error']}", file=sys.stderr)
        return 1
    return 0


def _replay_progress(path, timeout):
    """A long replay says how far it got on stderr (never stdout: --json stays clean)."""
    import time
    from gamespec.analysis.progress import clock
    try:
        total = os.path.getsize(path)
    except OSError:
        total = 0
    start = time.monotonic()
    hint = "" if timeout is not None else " (--timeout S stops it)"

    def line(decisions, read):
        of = f" of {total / 1e6:.1f}" if total else ""
        print(f"{PROG}: replay: {decisions:,} decisions matched, {read / 1e6:.1f}{of} MB read, elapsed "
              f"{clock(time.monotonic() - start)}{hint}", file=sys.stderr, flush=True)
    return line
