"""The table's commands (gamespec.table): `play` (a game against bots in the terminal, one seat's view)
and `show` (a log as a transcript, as a seat saw it)."""
from __future__ import annotations

import sys

from ._common import Fail, load_spec, print_json, print_lines, seed_or_new, spec_options, spec_players, whole_number


def cmd_show(args) -> int:
    from gamespec.table import show_log
    text = show_log(args.log, args.spec, args.for_seat)
    if args.json:
        print_json({"log": args.log, "for": args.for_seat, "lines": text})
    else:
        print_lines(text)
    return 0


def cmd_play(args) -> int:
    from gamespec.errors import UsageError
    try:
        from gamespec.table.play import Output, new_table, resume_file
    except ImportError as e:   # pragma: no cover - rich missing is handled inside
        raise Fail(f"gamespec play cannot start: {e}") from None
    out = Output(color=False if args.no_color else None)
    offer = sys.stdin.isatty() and args.log is None     # on quit, the log is offered to a person
    if args.resume:
        table = resume_file(args.resume, args.file, args.bot, out=out, log_path=args.log, offer_log=offer)
    else:
        if not args.file:
            raise UsageError("play needs a SPEC file (or --resume FILE)")
        game = load_spec(args.file)
        opts = spec_options(game, args.option)
        players = spec_players(game, args.players)
        seed = seed_or_new(args.seed)     # drawn here so that a save can name it
        table = new_table(game, args.file, players, args.seat, seed, opts, args.bot, out=out,
                          save_default=args.save or "gamespec-save.json", log_path=args.log, offer_log=offer)
    return table.run()


def add_parser(sub, formatter, game_args) -> None:
    pl = sub.add_parser(
        "play", formatter_class=formatter, help="play a game yourself in the terminal, against bots",
        description="Sit at one seat and play against bots. You see only what your seat may see:\n"
                    "your hand, public zones, the size of hidden zones and the cards you have seen,\n"
                    "the variables you may see, what the others did as you saw it, then your numbered\n"
                    "actions. Type a number to play it; u undoes your last move, s [FILE] saves,\n"
                    "q quits, ? shows the current phase and step. Needs the 'play' extra (rich) for\n"
                    "colours; plain text without it or when the output is not a terminal.",
        epilog="examples:\n"
               "  gamespec play games/mygame.yaml --players 4 --seat 0\n"
               "  gamespec play games/mygame.yaml -p 3 --bot 1=ismcts:500 --bot 2=greedy --seed 7\n"
               "  gamespec play --resume gamespec-save.json")
    pl.add_argument("file", metavar="SPEC", nargs="?", help="spec file (optional with --resume)")
    game_args(pl)
    pl.add_argument("--seat", type=whole_number, default=0, metavar="N", help="your seat (default 0)")
    pl.add_argument("--bot", "-b", action="append", default=[], metavar="SEAT=KIND",
                    help="the bot of another seat (repeatable; default random): random, greedy, "
                         "ismcts[:ITERATIONS], first, a restricted kind such as avoid:ACTION or "
                         "ismcts:200/always:ACTION, or module:Class (docs/bots.md)")
    pl.add_argument("--resume", metavar="FILE", help="continue a game saved with 's'")
    pl.add_argument("--save", metavar="FILE", help="where 's' saves (default gamespec-save.json)")
    pl.add_argument("--log", metavar="FILE.jsonl",
                    help="write the game's full log there at the end (or when you leave): "
                         "gamespec show FILE --for SEAT reads it; without it, leaving offers to keep it")
    pl.add_argument("--no-color", action="store_true", help="no colours even on a terminal")
    pl.set_defaults(func=cmd_play)

    sh = sub.add_parser(
        "show", formatter_class=formatter, help="print a log as a readable transcript",
        description="Print a log written by 'gamespec run --log' (or --log-for) as a transcript:\n"
                    "each decision by its label, chance events and looks, the final scores. With\n"
                    "--for N, as seat N saw it (a full log is re-played with its spec for that);\n"
                    "without, a full log shows every card.",
        epilog="examples:\n"
               "  gamespec show game.jsonl\n"
               "  gamespec show game.jsonl --for 2\n"
               "  gamespec show seat0.jsonl")
    sh.add_argument("log", metavar="LOG", help="a log (JSON lines)")
    sh.add_argument("--for", dest="for_seat", type=whole_number, metavar="N", help="as seat N saw it")
    sh.add_argument("--spec", metavar="FILE", help="the spec file (default: from the log's header)")
    sh.add_argument("--json", action="store_true", help="print the transcript lines as JSON")
    sh.set_defaults(func=cmd_show)
