"""The authoring commands (gamespec.authoring): `schema` (the JSON Schemas), `new` (a commented spec to
start from), `explain` (the rulebook in words) and `check` (validate; with --strict, the lints)."""
from __future__ import annotations

import sys

from ._common import PROG, Fail, int_at_least, load_spec, option_pair, print_json, spec_options, spec_players, \
    whole_number, write_or_print


def cmd_schema(args) -> int:
    from gamespec import authoring
    write_or_print(args.output, authoring.schema_text(args.format, draft=args.draft))
    return 0


def cmd_new(args) -> int:
    from gamespec.authoring.starters import NewSpecError, write_starter
    try:
        done = write_starter(args.name, args.template, force=args.force)
    except NewSpecError as e:
        raise Fail(str(e), e.code) from None
    path, schema, status = done["file"], done["schema"], done["schema_status"]
    if args.json:
        print_json({"file": path, "template": args.template, "schema": schema, "schema_status": status})
    else:
        print(f"wrote {path} (from {args.template}); next: gamespec validate {path} && "
              f"gamespec run {path}")
        if status == "left alone":
            print(f"{PROG}: note: {schema} is not a gamespec schema and was left alone: the modeline of "
                  f"{path} names it (write it with: gamespec schema -o {schema})", file=sys.stderr)
        else:
            print(f"editor schema: {schema} ({status}; the modeline of {path} names it)")
    return 0


def cmd_explain(args) -> int:
    from gamespec import authoring
    game = load_spec(args.file)
    opts = spec_options(game, args.option)
    players = spec_players(game, args.players)
    write_or_print(args.output, authoring.explain(game, players=players, options=opts, fmt=args.format))
    return 0


def cmd_check(args) -> int:
    from gamespec import authoring
    from gamespec.analysis.progress import ProgressBar
    report = []
    for path in args.files:
        entry = authoring.check_file(path, strict=args.strict, games=args.lint_games,
                                     progress=lambda: ProgressBar(sys.stderr, 0, enabled=not args.json,
                                                                  desc="sample games"))
        report.append(entry)
        if not args.json:
            for x in entry["errors"] + entry["warnings"] + entry["allowed"]:
                print(x["text"], file=sys.stderr)
            if entry["ok"]:
                n, a = len(entry["warnings"]), len(entry["allowed"])
                # under --strict a warning fails the check: say so, not "ok" beside exit code 1
                head = f"{path}: fails --strict" if args.strict and n else f"{path}: ok"
                print(head + (f", {n} warning{'s' if n != 1 else ''}" if args.strict else "")
                      + (f", {a} allowed by the spec" if a else ""))
    ok = all(e["ok"] for e in report) and not (args.strict and any(e["warnings"] for e in report))
    if args.json:
        print_json({"ok": ok, "files": report})
    return 0 if ok else 1


def add_parser(sub, formatter, game_args) -> None:
    sc = sub.add_parser(
        "schema", formatter_class=formatter, help="print the spec JSON Schema (editor support)",
        description="Print the JSON Schema of spec files, for editors with the YAML language server\n"
                    "(see docs/tutorial.md#editor-support), or the schema of an output format.",
        epilog="examples:\n  gamespec schema --draft 7 -o gamespec.schema.json   (for VS Code's YAML extension, Neovim...)\n"
               "  gamespec schema --format observation")
    sc.add_argument("--format", "-f", choices=("spec", "observation", "log", "log-for", "state"), default="spec",
                    help="which schema (default: spec)")
    sc.add_argument("--draft", choices=("2020-12", "7"), default="2020-12",
                    help="JSON Schema draft: 2020-12 (the checker's, default) or 7 (what yaml-language-server "
                         "reads: VS Code's YAML extension, Neovim, Emacs, Helix, Sublime)")
    sc.add_argument("-o", "--output", metavar="OUT", help="write to a file (default: stdout)")
    sc.set_defaults(func=cmd_schema)

    # The template names are written out here so that building the parser imports nothing more
    # (tests/test_authoring.py checks them against gamespec/authoring/starters.py).
    nw = sub.add_parser(
        "new", formatter_class=formatter, help="write a commented spec to start from, from a template",
        description="Write NAME.yaml, a commented spec that validates and runs as written, and\n"
                    "gamespec.schema.json beside it (its first line names that file, for editors).\n"
                    "Templates:\n"
                    "  take-that       draw and play; thieves and bombs hit other players' vaults (default)\n"
                    "  trick-taking    follow suit, the highest card of the suit led wins the trick\n"
                    "  set-collection  take cards from an open market; sets of a kind score more and more\n"
                    "or start from any game of the library: --from ID (ids: gamespec list).\n",
        epilog="examples:\n  gamespec new mygame\n  gamespec new mytricks --from trick-taking\n"
               "  gamespec new mine --from ID    (ID: any game of the library, see gamespec list)")
    nw.add_argument("name", metavar="NAME", help="the file to write (NAME.yaml unless it ends in .yaml)")
    nw.add_argument("--from", dest="template", default="take-that", metavar="TEMPLATE",
                    help="take-that (default), trick-taking or set-collection, or the id of a library game "
                         "(gamespec list): its full rules, to change")
    nw.add_argument("--force", action="store_true", help="overwrite an existing file")
    nw.add_argument("--json", action="store_true", help="print the result as JSON")
    nw.set_defaults(func=cmd_new)

    ex = sub.add_parser(
        "explain", formatter_class=formatter, help="write the rulebook of a spec, in words",
        description="Write the rules of a game for a player who never saw its YAML: components, set-up,\n"
                    "the flow of a round and a turn, every action, the end and the scoring.",
        epilog="examples:\n  gamespec explain games/mygame.yaml --players 4\n"
               "  gamespec explain games/mygame.yaml --format html -o rules.html")
    ex.add_argument("file", metavar="FILE", help="spec file")
    ex.add_argument("--players", "-p", type=whole_number, metavar="P", help="number of players (default: the smallest)")
    ex.add_argument("--option", "-O", type=option_pair, action="append", default=[], metavar="NAME=VALUE",
                    help="set one of the spec's options (repeatable)")
    ex.add_argument("--format", "-f", choices=("md", "html"), default="md", help="Markdown (default) or HTML")
    ex.add_argument("-o", "--output", metavar="OUT", help="write to a file (default: stdout)")
    ex.set_defaults(func=cmd_explain)

    ck = sub.add_parser(
        "check", formatter_class=formatter, help="validate; with --strict, lint beyond errors",
        description="Validate like 'validate'; --strict adds lints (unused variables, defines, zones;\n"
                    "actions never offered; options with no effect; and, found by playing sample games,\n"
                    "hidden cards deducible from public counts and legal actions that depend on what\n"
                    "the chooser cannot see) as FILE:LINE:COL: warning: ... [lint], and\n"
                    "exits 1 when there is any warning. See docs/authoring.md#lints.",
        epilog="examples:\n  gamespec check --strict games/*.yaml\n  gamespec check --strict --json games/mygame.yaml")
    ck.add_argument("files", nargs="+", metavar="FILE", help="spec files")
    ck.add_argument("--strict", action="store_true", help="run the lints; warnings make the exit code 1")
    ck.add_argument("--lint-games", type=int_at_least(0), default=3, metavar="N",
                    help="sample games per player count and option set for the sampled lints (default 3)")
    ck.add_argument("--json", action="store_true", help="print a JSON report")
    ck.set_defaults(func=cmd_check)
