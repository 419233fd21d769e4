"""`gamespec simulate`: many games with bots and their balance statistics (gamespec.analysis); with
--ladder or --lift, the studies of skill and of the cards that decide games."""
from __future__ import annotations

import os
import sys

from ._common import PROG, bot_arg, int_at_least, load_spec, print_json, print_lines


def add_parser(sub, formatter, game_args) -> None:
    s = sub.add_parser(
        "simulate", formatter_class=formatter, help="play many games with bots; balance statistics",
        description="Play N games with bots (default random), seeds S, S+1, ..., S+N-1, and print per\n"
                    "seat the win rate (a shared win counts 1/k to each of k winners) with its 95% Wilson\n"
                    "interval, a chi-square test of no seat advantage, the score's mean (95% interval),\n"
                    "sd and quantiles, ties, margin of victory, game length, games per second and\n"
                    "errors; for a cooperative game the team's success rate and score. Then the\n"
                    "metrics of automated playtesting (lead changes, decisiveness, drama, draws,\n"
                    "first-seat advantage, action usage, unfinished games) and the findings in words.\n"
                    "Thinking seats (--bot all=ismcts:200), --rotate (every deal in every seating:\n"
                    "seat advantage apart from bot strength) and --restrict (what never or always\n"
                    "playing an action costs) tell random play's artefacts from the game's. On a terminal,\n"
                    "stderr shows the games and decisions played, their rate and an ETA. --records keeps\n"
                    "one row per game (for 'gamespec report' and 'gamespec compare'); --sweep runs a\n"
                    "grid of configurations. Any game that fails is reported with its seed and makes\n"
                    "the exit code non-zero. Results other than timing are identical for any number\n"
                    "of workers and for the Ray backend.",
        epilog="examples:\n"
               "  gamespec simulate games/mygame.yaml --games 1000 --players 4 --seed 0\n"
               "  gamespec simulate games/mygame.yaml --games 200 --workers 1 --json\n"
               "  gamespec simulate games/mygame.yaml --records games.jsonl --sweep players=3,4,5\n"
               "  gamespec simulate games/mygame.yaml --backend ray --address auto\n"
               "  gamespec simulate games/mygame.yaml -p 2 --bot all=ismcts:200 --games 1000 --records t.jsonl\n"
               "  gamespec simulate games/mygame.yaml -p 3 --bot 0=ismcts:200 --rotate\n"
               "  gamespec simulate games/mygame.yaml -p 3 --restrict all --records restrict.jsonl\n"
               "  gamespec simulate games/mygame.yaml --records study.jsonl --resume")
    s.add_argument("file", metavar="FILE", help="spec file")
    s.add_argument("--games", "-n", type=int_at_least(0), default=100, metavar="N",
                   help="number of games (default 100)")
    game_args(s)
    s.add_argument("--workers", "-w", type=int_at_least(1), default=None, metavar="W",
                   help=f"worker processes (default: all cores, here {os.cpu_count() or 1}, but at most "
                        "one per 20 games); 1 plays in this process")
    s.add_argument("--records", metavar="FILE", help="write one row per game to FILE (.jsonl or .csv), "
                   "as games finish: seed, players, options, bots, scores, winners, length, seconds")
    s.add_argument("--sweep", action="append", default=[], metavar="NAME=V1,V2",
                   help="run every combination: NAME is 'players' or an option (repeatable; the same "
                        "seeds for every configuration)")
    s.add_argument("--backend", choices=("local", "ray"), default="local",
                   help="local worker processes (default) or a Ray cluster (pip install 'gamespec[ray]')")
    s.add_argument("--address", metavar="ADDR",
                   help="with --backend ray: 'auto' or HOST:PORT of a running cluster "
                        "(default: start a local Ray for this run)")
    s.add_argument("--engine", choices=("native", "python"), default="native",
                   help="native (default): random seats play whole games in compiled C and ISMCTS seats "
                        "search in C, built with the system C compiler and cached; the Python engine "
                        "where that is not available (one line says why). python: the Python engine. "
                        "The results are the same (docs/native.md)")
    s.add_argument("--generator", choices=("default", "fast"), default="default",
                   help="default: the unguessable shuffles of every game. fast: splitmix64 shuffles and random "
                        "seats, cheaper (a random study on the native engine: about half the instructions), for "
                        "studies only: guessable (never for games against people; docs/native.md)")
    s.add_argument("--rotate", action="store_true",
                   help="play every seed once per rotation of the seats (the same deals), so that seat "
                        "advantage and bot strength are told apart (docs/analysis.md)")
    s.add_argument("--ladder", metavar="KINDS",
                   help="the skill gradient: each bot kind (weakest first, e.g. random,greedy,ismcts:100,"
                        "ismcts:1000) in one seat against the kind below in the others, seats rotated, --games "
                        "deals each, and the skill-versus-luck index in words (docs/balance.md)")
    s.add_argument("--lift", action="store_true",
                   help="which cards decide games: the win-rate lift of holding each card class (and face) in "
                        "the opening hand and of playing it, with intervals, Holm-corrected (docs/balance.md)")
    s.add_argument("--restrict", action="append", default=[], metavar="KINDS",
                   help="restricted play: for each restricted kind (comma-separated: first, greedy, "
                        "avoid:ACTION, always:ACTION; or all), a rotated study of one restricted seat against "
                        "full players of the --bot all=KIND kind (default random); reports what each "
                        "restriction costs")
    tr = s.add_mutually_exclusive_group()
    tr.add_argument("--trace", action="store_true",
                    help="record every game's lead changes, decisiveness, drama and action counts (the "
                         "default: random seats on the native engine record them in C too)")
    tr.add_argument("--no-trace", action="store_true",
                    help="do not record them (random native games: 1.3-3.4x faster, the cost of evaluating "
                         "the score after every decision)")
    s.add_argument("--resume", action="store_true",
                   help="continue the --records FILE of an interrupted study: the games it holds count and are not "
                        "played again (the same spec, seeds and arguments)")
    s.add_argument("--json", action="store_true", help="print one JSON object (no progress bar)")
    s.add_argument("--no-probe", action="store_true",
                   help="with random bots, do not first check that sample games of random moves end (by "
                        "default, when none of up to 20 ends within 5000 decisions, simulate says so and stops)")
    shown = s.add_mutually_exclusive_group()
    shown.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    shown.add_argument("--progress", action="store_true",
                       help="show progress on stderr even when it is not a terminal or with --json: a line "
                            "every 5 s (games, decisions, their rate, ETA)")
    bot_arg(s)
    s.set_defaults(func=cmd_simulate)


def cmd_simulate(args) -> int:
    from gamespec import UsageError, analysis

    game = load_spec(args.file)    # the spec, options and player count are checked first, for clean messages
    if args.ladder and args.lift:
        raise UsageError("--ladder and --lift are two studies: run them one at a time")
    if args.ladder:
        from gamespec.analysis import ladder
        return ladder.run_cli(args, game)
    if args.lift:
        from gamespec.analysis import lift
        return lift.run_cli(args, game)
    if args.address is not None and args.backend != "ray":
        raise UsageError("--address is for --backend ray")
    # on stderr only: a terminal unless --json or --no-progress; anywhere with --progress (plain lines)
    show = args.progress or (not args.json and not args.no_progress)

    def text(outs):
        # the answer first (fair? decided early? does skill matter?), then each configuration's
        # figures, then restricted play ranked in one table
        verdict = list(analysis.verdict_lines(outs))
        print_lines(verdict)
        for i, r in enumerate(outs):
            if i or verdict:
                print()
            print_lines(analysis.study_lines(r))
        ranking = list(analysis.ranking_lines(outs))
        if ranking:
            print()
            print_lines(ranking)
        if args.records:
            print(f"records: {args.records}")

    try:
        study = analysis.simulate(game, args.file, games=args.games, players=args.players, seed=args.seed,
                                  options=args.option, sweep=args.sweep, workers=args.workers, bots=args.bot,
                                  backend=args.backend, address=args.address, records=args.records,
                                  progress=lambda total: analysis.ProgressBar(sys.stderr, total, enabled=show,
                                                                              force=args.progress),
                                  timeout=args.timeout, engine=args.engine, probe=not args.no_probe,
                                  rotate=args.rotate, restrict=args.restrict,
                                  trace=True if args.trace else (False if args.no_trace else None),
                                  resume=args.resume, generator=args.generator)
    except analysis.Interrupted as e:      # Ctrl-C: the summary of the games finished, and how to go on
        outs = [r for r in e.partial if r["summary"]["games_finished"]]
        done = sum(r["summary"]["games_finished"] for r in e.partial)
        if args.json:
            print_json({"interrupted": True, "configs": outs})
        elif outs:
            text(outs)
        print(f"\n{PROG}: interrupted after {done} finished game(s)"
              f"{'; the summary above is of those' if outs else ''}", file=sys.stderr)
        if args.records:
            print(f"{PROG}: to go on, run the same command with --resume: the games in {args.records} count "
                  "and are not played again", file=sys.stderr)
        else:
            print(f"{PROG}: to be able to go on after a stop, write the games with --records FILE; then the "
                  "same command with --resume continues it", file=sys.stderr)
        return 130
    sweep, outs = study["sweep"], study["configs"]
    errors = [e for r in outs for e in r["errors"]]
    internal = [e for e in errors if e.get("internal")]
    if args.json:
        print_json({"sweep": {n: v for n, v in sweep}, "configs": outs} if sweep else outs[0])
    else:
        text(outs)
    shown = [dict(e, rerun=_rerun(args, game, r, e["seed"])) for r in outs for e in r["errors"]]
    total = sum(r["summary"]["games"] for r in outs)
    for line in analysis.failure_lines(shown, total):
        print(line if line.startswith("  ") else f"{PROG}: {line}", file=sys.stderr)
    if internal:
        print(f"{PROG}: internal error in {len(internal)} game(s); first (seed {internal[0]['seed']}):",
              file=sys.stderr)
        print(internal[0].get("traceback", internal[0]["error"]).rstrip(), file=sys.stderr)
        return 2
    return 1 if errors else 0


def _rerun(args, game, r, seed) -> str:
    """The command line that plays the game of `seed` in configuration `r` (a run_study result) again:
    `gamespec run ... --verbose`, its moves shown; `gamespec simulate -n 1` where run cannot seat it as
    the study did (rotated seats: every rotation of that deal; the fast generator)."""
    import shlex

    from gamespec.config import format_value
    words = [args.file, "--players", str(r["players"]), "--seed", str(seed)]
    for name, value in r["options"].items():
        if name not in game.options or value != game.options[name]:       # the defaults go without saying
            words += ["--option", f"{name}={format_value(value)}"]
    kinds = list(r.get("bots") or [])
    if kinds and len(set(kinds)) == 1:
        words += [] if kinds[0] == "random" else ["--bot", f"all={kinds[0]}"]
    else:
        for seat, kind in enumerate(kinds):
            if kind != "random":
                words += ["--bot", f"{seat}={kind}"]
    if args.timeout is not None:
        words += ["--timeout", format(args.timeout, "g")]
    rotated, fast = r.get("rotations", 1) > 1, r.get("generator") is not None
    if rotated or fast:
        words = ["simulate"] + words + ["--games", "1", "--workers", "1"] + (["--rotate"] if rotated else []) \
            + (["--generator", "fast"] if fast else [])
    else:
        words = ["run"] + words + ["--verbose"]
    return " ".join(shlex.quote(w) for w in [PROG] + words)
