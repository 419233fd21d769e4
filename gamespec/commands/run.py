"""`gamespec run`: one game with bots (gamespec.table.run); the outcome as text or JSON, the logs written."""
from __future__ import annotations

import sys

from ._common import bot_arg, load_spec, print_json, print_lines, seed_or_new, spec_options, spec_players, \
    write_jsonl


def add_parser(sub, formatter, game_args) -> None:
    r = sub.add_parser(
        "run", formatter_class=formatter, help="play one game with random bots",
        description="Play one game with a random bot in every seat (each sees only its observation)\n"
                    "and print the scores, the winners and the number of decisions.",
        epilog="examples:\n"
               "  gamespec run games/mygame.yaml --players 4 --seed 7\n"
               "  gamespec run games/mygame.yaml --log game.jsonl --log-for 0 seat0.jsonl\n"
               "  gamespec run games/mygame.yaml --option NAME=true --json")
    r.add_argument("file", metavar="FILE", help="spec file")
    game_args(r)
    r.add_argument("--log", metavar="OUT.jsonl", help="write the full log (JSON lines; replayable)")
    r.add_argument("--log-for", nargs=2, action="append", metavar=("N", "OUT.jsonl"),
                   help="write the log as seat N saw it (repeatable)")
    r.add_argument("--json", action="store_true", help="print the outcome as JSON")
    bot_arg(r)
    r.add_argument("--verbose", "-v", action="store_true",
                   help="print the game as a transcript as it goes (on stderr with --json)")
    r.set_defaults(func=cmd_run)


def cmd_run(args) -> int:
    from gamespec.bots import bots_from_args, kinds_from_args
    from gamespec.table import run

    game = load_spec(args.file)
    opts = spec_options(game, args.option)
    players = spec_players(game, args.players)
    log_for = run.log_seats(args.log_for, players)
    want_log = bool(args.log or log_for or args.verbose)
    seed = seed_or_new(args.seed)     # drawn here so that a failure can name it; never in a player's log
    bots = bots_from_args(args.bot, players, seed)
    stream = sys.stderr if args.json else sys.stdout
    transcript = (lambda text: print(text, file=stream, flush=True)) if args.verbose else None
    state, failure = run.play_game(game, players, seed, opts, bots, timeout=args.timeout, log=want_log,
                                   transcript=transcript)
    if want_log:     # written even after a failure: the partial log shows how the game got there
        if args.log:
            write_jsonl(state.log_lines(), args.log)
        for seat, out in log_for:
            write_jsonl(state.log_for(seat), out)
    if failure is not None:
        raise failure
    kinds = kinds_from_args(args.bot, players) if args.bot else None
    result = run.game_result(state, args.file, seed, opts, kinds, args.log, log_for)
    if args.json:
        print_json(result)
    else:
        print_lines(run.outcome_lines(result, log_for))
    return 0
