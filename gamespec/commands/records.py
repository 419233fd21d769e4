"""Balance studies from records files (gamespec.analysis): `report` (an HTML report with plots) and
`compare` (which figures of two studies differ beyond noise)."""
from __future__ import annotations

import argparse

from ._common import Fail, print_json, print_lines


def add_parser(sub, formatter, game_args) -> None:
    rep = sub.add_parser(
        "report", formatter_class=formatter, help="an HTML report with plots from records files",
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
    rep.add_argument("--title", default=None, help="the report's title (default: gamespec balance report)")
    rep.add_argument("--json", action="store_true", help="print the files written and the summary as JSON")
    rep.set_defaults(func=cmd_report)

    cmp_ = sub.add_parser(
        "compare", formatter_class=formatter, help="which figures of two studies differ beyond noise",
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
    cmp_.add_argument("--config", type=config_pair, action="append", default=[], metavar="KEY=VALUE",
                      help="compare only the configurations with KEY=VALUE in both files (repeatable); KEY is "
                           "game, players, bots (e.g. bots=greedy,random) or an option")
    cmp_.add_argument("--config-a", type=config_pair, action="append", default=[], metavar="KEY=VALUE",
                      help="the same for file A only (e.g. to compare A's players=3 with B's players=4)")
    cmp_.add_argument("--config-b", type=config_pair, action="append", default=[], metavar="KEY=VALUE",
                      help="the same for file B only")
    cmp_.add_argument("--json", action="store_true", help="print the comparison as JSON")
    cmp_.set_defaults(func=cmd_compare)


def cmd_report(args) -> int:
    from gamespec import analysis
    written = analysis.report_files(args.records, args.output, png=args.png, title=args.title)
    if args.json:
        rows = analysis.RecordFiles(args.records)
        print_json({"report": args.output, "files": written, "summary": analysis.summarize(rows)})
    else:
        print_lines(written)
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
        print_json(r)
    else:
        print_lines(analysis.comparison_lines(r))
    return 0


def config_pair(text):
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE (e.g. --config players=4), got {text!r}")
    return key.strip(), value.strip()
