"""`gamespec validate`: check spec files, every error as FILE:LINE:COL (gamespec.validation). It must stay
fast: it loads neither the simulation code, nor multiprocessing, nor any optional dependency."""
from __future__ import annotations

import sys

from ._common import print_json


def add_parser(sub, formatter, game_args) -> None:
    v = sub.add_parser(
        "validate", formatter_class=formatter, help="check spec files and report every error",
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
        print_json({"ok": ok_all, "files": files})
    return 0 if ok_all else 1
