"""`gamespec tune`: search a spec's whole-number options for the settings that best meet balance targets
(fair seats, games decided late, a length range), by successive halving (docs/balance.md)."""
from __future__ import annotations

import sys


def add_parser(sub, formatter, game_args) -> None:
    from ._common import int_at_least as _int_at_least
    p = sub.add_parser(
        "tune", formatter_class=formatter, help="find the option values that make a game fair, tense or the right length",
        description="Search the values a spec declares for its whole-number options (NAME: {default: 3,\n"
                    "values: [2, 3, 4]}) for the settings that best meet the targets:\n"
                    "  fair           every seat wins its fair share (the largest gap, in win-rate points)\n"
                    "  decided_late   the final winner takes the lead for good as late as possible\n"
                    "  length=LO..HI  LO to HI decisions a game (the distance, relative to the range)\n"
                    "Several targets add their losses (0: met). The search is successive halving: every\n"
                    "setting plays --games games on the same seeds; then each round the settings clearly\n"
                    "worse than the best (loss intervals apart) and the worse half of the rest stop, and\n"
                    "the others play as many games again, until one is clearly best or --rounds run out.\n"
                    "It ends with the best settings and the runner-up, each target's figure with its 95%\n"
                    "interval, what each round stopped and why, and the diff that makes the best the\n"
                    "spec's defaults.",
        epilog="examples:\n"
               "  gamespec tune games/mygame.yaml --param hand --param bonus --target fair\n"
               "  gamespec tune games/mygame.yaml --target fair --target length=40..60 --players 3\n"
               "  gamespec tune games/mygame.yaml --target decided_late --bot all=ismcts:100 --games 50\n"
               "  gamespec tune games/mygame.yaml --target fair --json > tune.json")
    p.add_argument("file", metavar="FILE", help="spec file")
    game_args(p)
    p.add_argument("--param", action="append", default=[], metavar="NAME",
                   help="an option to tune (repeatable; default: every whole-number option with declared values)")
    p.add_argument("--target", action="append", default=[], metavar="TARGET",
                   help="fair, decided_late or length=LO..HI (repeatable; default fair)")
    p.add_argument("--games", "-n", type=_int_at_least(2), default=100, metavar="N",
                   help="games per setting in the first round; survivors double it each round (default 100)")
    p.add_argument("--rounds", type=_int_at_least(1), default=None, metavar="R",
                   help="at most R rounds (default 6)")
    p.add_argument("--bot", "-b", action="append", default=[], metavar="SEAT=KIND",
                   help="the bot of a seat, or all=KIND (default random everywhere; e.g. all=ismcts:100)")
    p.add_argument("--engine", choices=("native", "python"), default="native",
                   help="native (default: games in C, searches in C) or python")
    p.add_argument("--workers", "-w", type=_int_at_least(1), default=None, metavar="W",
                   help="worker processes (default: all cores, one per 20 games)")
    p.add_argument("--backend", choices=("local", "ray"), default="local",
                   help="local worker processes (default) or a Ray cluster for large runs (pip install "
                        "'gamespec[ray]')")
    p.add_argument("--address", metavar="ADDR",
                   help="with --backend ray: 'auto' or HOST:PORT of a running cluster (default: a local Ray)")
    p.add_argument("--json", action="store_true", help="print the result as JSON (the diff as a string)")
    p.add_argument("--no-progress", action="store_true", help="no progress lines on stderr")
    p.set_defaults(func=run)


def run(args) -> int:
    import json
    import secrets

    import gamespec
    from gamespec.analysis import tune
    from gamespec.bots import kinds_from_args
    from gamespec.config import options_from_pairs, player_count

    game = gamespec.load(args.file)
    players = player_count(game, args.players)
    given = options_from_pairs(game, args.option)
    fixed = {name: given[name] for name, _ in args.option}
    seed = secrets.randbits(63) if args.seed is None else args.seed
    bots = kinds_from_args(args.bot, players) if args.bot else None
    quiet = args.json or args.no_progress
    if args.address is not None and args.backend != "ray":
        from gamespec.errors import UsageError
        raise UsageError("--address is for --backend ray")
    out = tune.run(args.file, params=args.param, targets=args.target or ["fair"], games=args.games,
                   players=players, seed=seed, options=fixed, bots=bots, engine=args.engine, workers=args.workers,
                   rounds=args.rounds, game=game, timeout=args.timeout, backend=args.backend, address=args.address,
                   progress=None if quiet else (lambda text: print(text, file=sys.stderr, flush=True)))
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    for line in tune.lines(out):
        print(line)
    print(f"(seed {seed}: --seed {seed} repeats this search)")
    return 0
