"""`gamespec lsp`: the language server for spec files (docs/editors.md), over stdio or TCP."""
from __future__ import annotations

import sys


def add_parser(sub, formatter, game_args) -> None:
    p = sub.add_parser(
        "lsp", formatter_class=formatter, help="language server for editors (diagnostics, completion, hover...)",
        description="A language server (LSP) for spec files: the checker's errors as you type, with their\n"
                    "place inside the rule strings; completion of YAML keys and of the names a rule may use;\n"
                    "hover, go to definition, find references, rename, semantic highlighting of rules.\n"
                    "Editors start it themselves (docs/editors.md). Needs the lsp extra:\n"
                    "pip install 'gamespec[lsp]'.",
        epilog="examples:\n  gamespec lsp              # on stdin/stdout, as editors start it\n"
               "  gamespec lsp --tcp 2087   # on a TCP port of this machine")
    p.add_argument("--tcp", type=_port, metavar="PORT", help="listen on this TCP port instead of stdio")
    p.add_argument("--host", default="127.0.0.1", help="address for --tcp (default 127.0.0.1: this machine only)")
    p.set_defaults(func=run)


def _port(text):
    import argparse
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number, got {text!r}") from None
    if not 0 < v < 65536:
        raise argparse.ArgumentTypeError(f"expected a port 1..65535, got {v}")
    return v


def run(args) -> int:
    try:
        import lsprotocol  # noqa: F401
        import pygls  # noqa: F401
    except ImportError:
        print("gamespec: error: the language server needs pygls: pip install 'gamespec[lsp]'", file=sys.stderr)
        return 2
    from gamespec.authoring.lsp import serve
    serve(tcp=args.tcp, host=args.host)
    return 0
