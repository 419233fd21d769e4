"""The `gamespec` command: fourteen subcommands over game specs, each a thin face of a package.

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

Exit codes: 0 success; 1 a spec error, a failed game, a divergent replay or an unreadable file;
2 a usage error (bad arguments, player count or option) or an internal error (a bug: the message
says "internal error" and shows the traceback); 130 interrupted.

Thin by rule: a command converts its arguments, calls the package that owns the capability
(gamespec.validation, gamespec.table, gamespec.analysis, gamespec.authoring, gamespec.web,
gamespec.draw, gamespec.interpreter.replay) and prints what it returns, with the exit code. Imports are lazy:
`validate` loads neither the interpreter's simulation code, nor multiprocessing, nor matplotlib.
"""
from __future__ import annotations

import argparse
import os
import sys

from .commands._common import PROG, Fail
from .commands._common import bot_arg as _bot_arg
from .commands._common import Formatter as _Formatter
from .commands._common import int_at_least as _int_at_least
from .commands._common import load_spec as _load
from .commands._common import option_pair as _option_pair
from .commands._common import print_json as _print_json
from .commands._common import print_lines as _print_lines
from .commands._common import seconds as _seconds
from .commands._common import seed_number as _seed
from .commands._common import seed_or_new as _seed_or_new
from .commands._common import spec_options as _options
from .commands._common import spec_players as _players
from .commands._common import whole_number as _int
from .commands._common import write_jsonl as _write_jsonl


def _err(msg: str) -> None:
    print(f"{PROG}: error: {msg}", file=sys.stderr)


# ------------------------------------------------------------------------------------------------
# argument types

def _config_pair(text):
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE (e.g. --config players=4), got {text!r}")
    return key.strip(), value.strip()


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
# validate

def cmd_validate(args) -> int:
    from gamespec.validation import validate_file
    files = []
    for path in args.files:
        entry = validate_file(path)
        files.append(entry)
        if not args.json:
            cov = entry.get("coverage")
            if cov and cov["compiled"] < cov["combinations"]:
                print(f"{path}: compiled {cov['compiled']} of {cov['combinations']} player/option "
                      f"combinations ({cov['which']}); the others were not compiled", file=sys.stderr)
            if entry["ok"]:
                print(f"{path}: ok")
            else:
                for x in entry["errors"]:
                    print(x["text"], file=sys.stderr)
    ok_all = all(entry["ok"] for entry in files)
    if args.json:
        _print_json({"ok": ok_all, "files": files})
    return 0 if ok_all else 1


# ------------------------------------------------------------------------------------------------
# run

def cmd_run(args) -> int:
    from gamespec.bots import bots_from_args, kinds_from_args
    from gamespec.table import run

    game = _load(args.file)
    opts = _options(game, args.option)
    players = _players(game, args.players)
    log_for = run.log_seats(args.log_for, players)
    want_log = bool(args.log or log_for or args.verbose)
    seed = _seed_or_new(args.seed)     # drawn here so that a failure can name it; never in a player's log
    bots = bots_from_args(args.bot, players, seed)
    stream = sys.stderr if args.json else sys.stdout
    transcript = (lambda text: print(text, file=stream, flush=True)) if args.verbose else None
    state, failure = run.play_game(game, players, seed, opts, bots, timeout=args.timeout, log=want_log,
                                   transcript=transcript)
    if want_log:     # written even after a failure: the partial log shows how the game got there
        if args.log:
            _write_jsonl(state.log_lines(), args.log)
        for seat, out in log_for:
            _write_jsonl(state.log_for(seat), out)
    if failure is not None:
        raise failure
    kinds = kinds_from_args(args.bot, players) if args.bot else None
    result = run.game_result(state, args.file, seed, opts, kinds, args.log, log_for)
    if args.json:
        _print_json(result)
    else:
        _print_lines(run.outcome_lines(result, log_for))
    return 0


# ------------------------------------------------------------------------------------------------
# simulate

def cmd_simulate(args) -> int:
    from gamespec import UsageError, analysis

    game = _load(args.file)    # the spec, options and player count are checked first, for clean messages
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
        _print_lines(analysis.verdict_lines(outs))
        for r in outs:
            print()
            _print_lines(analysis.study_lines(r))
        ranking = list(analysis.ranking_lines(outs))
        if ranking:
            print()
            _print_lines(ranking)
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
            _print_json({"interrupted": True, "configs": outs})
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
        _print_json({"sweep": {n: v for n, v in sweep}, "configs": outs} if sweep else outs[0])
    else:
        text(outs)
    for line in analysis.failure_lines(errors):
        print(f"{PROG}: {line}", file=sys.stderr)
    if internal:
        print(f"{PROG}: internal error in {len(internal)} game(s); first (seed {internal[0]['seed']}):",
              file=sys.stderr)
        print(internal[0].get("traceback", internal[0]["error"]).rstrip(), file=sys.stderr)
        return 2
    return 1 if errors else 0


# ------------------------------------------------------------------------------------------------
# report, compare (balance studies from records files)

def cmd_report(args) -> int:
    from gamespec import analysis
    written = analysis.report_files(args.records, args.output, png=args.png, title=args.title)
    if args.json:
        rows = analysis.RecordFiles(args.records)
        _print_json({"report": args.output, "files": written, "summary": analysis.summarize(rows)})
    else:
        _print_lines(written)
    return 0


def cmd_compare(args) -> int:
    from gamespec import analysis
    a, b = analysis.iter_records(args.a), analysis.iter_records(args.b)     # one pass each
    try:
        r = analysis.compare(a, b, pick=args.config, pick_a=args.config_a, pick_b=args.config_b)
    except ValueError as e:
        raise Fail(str(e)) from None
    r = {"a": args.a, "b": args.b, **r}
    if args.json:
        _print_json(r)
    else:
        _print_lines(analysis.comparison_lines(r))
    return 0


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

    v = sub.add_parser(
        "validate", formatter_class=_Formatter, help="check spec files and report every error",
        description="Load and check each spec file (YAML, schema, rules, names, phase graph) and build\n"
                    "its rules for every player count and option set (at most 256 of them; beyond that the\n"
                    "defaults and each option changed alone, and it says how many were not compiled).\n"
                    "Prints 'FILE: ok' per valid file; otherwise every error as\n"
                    "FILE:LINE:COL: error: message on stderr, and exits 1.",
        epilog="example:\n  gamespec validate games/one.yaml games/two.yaml\n"
               "  gamespec validate --json games/*.yaml")
    v.add_argument("files", nargs="+", metavar="FILE", help="spec files (.yaml)")
    v.add_argument("--json", action="store_true", help="print a JSON report on stdout")
    v.set_defaults(func=cmd_validate)

    def game_args(sp):
        sp.add_argument("--players", "-p", type=_int, metavar="P",
                        help="number of players (default: the spec's smallest)")
        sp.add_argument("--seed", "-s", type=_seed, default=None, metavar="S",
                        help="random seed, 0 to 2**64 - 1 (default: 64 bits of OS entropy, printed so the "
                             "run can be repeated)")
        sp.add_argument("--timeout", type=_seconds, default=None, metavar="SECONDS",
                        help="end a game that runs longer than this with an error (default: none; the "
                             "spec's step budgets still bound every game)")
        sp.add_argument("--option", "-O", type=_option_pair, action="append", default=[],
                        metavar="NAME=VALUE", help="set one of the spec's options (repeatable); VALUE is a whole number or true/false")

    r = sub.add_parser(
        "run", formatter_class=_Formatter, help="play one game with random bots",
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
    _bot_arg(r)
    r.add_argument("--verbose", "-v", action="store_true",
                   help="print the game as a transcript as it goes (on stderr with --json)")
    r.set_defaults(func=cmd_run)

    s = sub.add_parser(
        "simulate", formatter_class=_Formatter, help="play many games with bots; balance statistics",
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
    s.add_argument("--games", "-n", type=_int_at_least(0), default=100, metavar="N",
                   help="number of games (default 100)")
    game_args(s)
    s.add_argument("--workers", "-w", type=_int_at_least(1), default=None, metavar="W",
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
    _bot_arg(s)
    s.set_defaults(func=cmd_simulate)

    rep = sub.add_parser(
        "report", formatter_class=_Formatter, help="an HTML report with plots from records files",
        description="Read records files written by 'simulate --records' (any number of configurations)\n"
                    "and write one self-contained HTML file: a summary table per configuration (win\n"
                    "rates with 95% Wilson intervals, chi-square test of no seat advantage, scores,\n"
                    "length, ties, margin) and plots (win rates with interval bars, score histograms\n"
                    "per seat, game-length histogram), configurations side by side.",
        epilog="examples:\n"
               "  gamespec report study.jsonl -o report.html\n"
               "  gamespec report a.jsonl b.csv -o report.html --png")
    rep.add_argument("records", nargs="+", metavar="RECORDS", help="records files (.jsonl or .csv)")
    rep.add_argument("-o", "--output", metavar="OUT.html", default="report.html",
                     help="the HTML file (default report.html)")
    rep.add_argument("--png", action="store_true", help="also write each plot as OUT-NAME.png")
    rep.add_argument("--title", default=None, help="the report's title")
    rep.add_argument("--json", action="store_true", help="print the files written and the summary as JSON")
    rep.set_defaults(func=cmd_report)

    cmp_ = sub.add_parser(
        "compare", formatter_class=_Formatter, help="which figures of two studies differ beyond noise",
        description="Compare two records files figure by figure (seat win rates, tie or success rate:\n"
                    "two-proportion z-test; mean scores and game length: Welch's t-test). p-values are\n"
                    "Holm-adjusted over all figures; a figure differs if its adjusted p < 0.05.\n"
                    "Configurations present in both files are paired, or the single one of each;\n"
                    "--config KEY=VALUE picks configurations (of both files, or of one with --config-a\n"
                    "and --config-b). When nothing pairs, the error lists each file's configurations.",
        epilog="examples:\n  gamespec compare before.jsonl after.jsonl\n"
               "  gamespec compare a.jsonl b.csv --json\n"
               "  gamespec compare sweep-a.jsonl sweep-b.jsonl --config players=4\n"
               "  gamespec compare sweep.jsonl sweep.jsonl --config-a rule=old --config-b rule=new")
    cmp_.add_argument("a", metavar="A", help="records file A")
    cmp_.add_argument("b", metavar="B", help="records file B")
    cmp_.add_argument("--config", type=_config_pair, action="append", default=[], metavar="KEY=VALUE",
                      help="compare only the configurations with KEY=VALUE in both files (repeatable); KEY is "
                           "game, players, bots (e.g. bots=greedy,random) or an option")
    cmp_.add_argument("--config-a", type=_config_pair, action="append", default=[], metavar="KEY=VALUE",
                      help="the same for file A only (e.g. to compare A's players=3 with B's players=4)")
    cmp_.add_argument("--config-b", type=_config_pair, action="append", default=[], metavar="KEY=VALUE",
                      help="the same for file B only")
    cmp_.add_argument("--json", action="store_true", help="print the comparison as JSON")
    cmp_.set_defaults(func=cmd_compare)

    _add_module_commands(sub, game_args, FIRST)
    _add_module_commands(sub, game_args)
    return p


# The modules of gamespec/commands/ whose commands come first in `gamespec --help`, in this order; every
# other module's follow, by the module's name.
FIRST = ("graph", "replay", "authoring", "table", "serve")


def _add_module_commands(sub, game_args, names=None) -> None:
    """Add the commands of the modules `names` of gamespec/commands/ (default: every module not in FIRST).
    A module holds one command or a few of a kind: `add_parser(sub, formatter, game_args)` registers them
    and sets each one's `func`. Their modules import nothing heavy at the top, so `gamespec validate`
    stays fast; a module whose name starts with "_" is not a command."""
    import importlib
    import pkgutil

    from gamespec import commands
    if names is None:
        names = sorted(m.name for m in pkgutil.iter_modules(commands.__path__)
                       if not m.name.startswith("_") and m.name not in FIRST)
    for name in names:
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
