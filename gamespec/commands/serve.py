"""`gamespec serve`: the table in the browser (gamespec.web; Starlette and uvicorn are imported by this
command only, inside it)."""
from __future__ import annotations

import argparse
import sys

from ._common import PROG, int_at_least


def cmd_serve(args) -> int:
    from gamespec import web
    web.check_files(args.files)
    if not web.is_local(args.host):
        print(f"{PROG}: warning: listening on {args.host}: anyone who can reach it may open tables",
              file=sys.stderr)
    web.serve(args.files, host=args.host, port=args.port, bot_delay=args.bot_delay, watch=args.watch,
              max_tables=args.max_tables, allow_hosts=args.allow_host, state_dir=args.state_dir,
              max_per_client=args.max_per_client, finished_ttl=args.finished_after, idle_ttl=args.idle_after,
              proxy=args.proxy)
    return 0


def add_parser(sub, formatter, game_args) -> None:
    sv = sub.add_parser(
        "serve", formatter_class=formatter, help="play specs in the browser (lobby, bots, live reload)",
        description="A local web server: a lobby to start a game of any of the specs, each seat a\n"
                    "person (with their own secret link) or a bot; each person's page shows their view\n"
                    "only. Designer mode: a changed spec file is re-validated, its errors shown in the\n"
                    "page, or the game restarted under the new rules (same seed). Needs the web extra:\n"
                    "pip install 'gamespec[web]'. See docs/web.md.",
        epilog="examples:\n  gamespec serve games/mygame.yaml\n"
               "  gamespec serve games/*.yaml --port 8080 --bot-delay 1")
    sv.add_argument("files", nargs="+", metavar="SPEC", help="spec files to offer in the lobby")
    sv.add_argument("--host", default="127.0.0.1",
                    help="address to listen on (default 127.0.0.1: this machine only)")
    sv.add_argument("--port", type=int_at_least(0), default=8000, help="port (default 8000; 0: any free port)")
    sv.add_argument("--bot-delay", type=delay, default=0.4, metavar="SECONDS",
                    help="pause before each bot move, so people can follow (default 0.4)")
    sv.add_argument("--watch", type=delay, default=1.0, metavar="SECONDS",
                    help="how often to check the spec files for changes (default 1; 0: never)")
    sv.add_argument("--max-tables", type=int_at_least(1), default=100, metavar="N",
                    help="most tables open at once (default 100)")
    sv.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                    help="a host name or address the pages may use besides 127.0.0.1, localhost and ::1 "
                         "(repeatable; needed with --host 0.0.0.0: the name others type)")
    sv.add_argument("--state-dir", metavar="DIR",
                    help="save every table there (its verified log) and resume them on start")
    sv.add_argument("--max-per-client", type=int_at_least(1), default=10, metavar="N",
                    help="games going on that one address may open (default 10)")
    sv.add_argument("--finished-after", type=ttl, default=600, metavar="SECONDS",
                    help="free a finished game after this long (default 600)")
    sv.add_argument("--idle-after", type=ttl, default=1800, metavar="SECONDS",
                    help="free a game without a move or an open page for this long (default 1800)")
    sv.add_argument("--proxy", metavar="ADDR",
                    help="behind a reverse proxy at this IP address: believe its X-Forwarded-For for who a "
                         "client is (the per-client cap); without it no such header is believed")
    sv.set_defaults(func=cmd_serve)


def seconds_between(lo: int, hi: int):
    """A number of seconds from lo to hi: serve's pauses and polling interval (0 to 3600; 0: none) and
    its timeouts (1 second to 30 days)."""
    def conv(text):
        try:
            v = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
        if not lo <= v <= hi:
            raise argparse.ArgumentTypeError(f"expected {lo} to {hi} seconds, got {text}")
        return v
    conv.__name__ = "seconds"
    return conv


delay = seconds_between(0, 3600)
ttl = seconds_between(1, 30 * 86400)
