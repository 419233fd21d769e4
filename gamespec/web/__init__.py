"""Spec files → a local web server to play them in the browser (lobby, seat pages, designer mode).

    from gamespec.web import create_app, serve
    serve(["games/mygame.yaml"], host="127.0.0.1", port=8000)

Needs the `web` extra (Starlette, uvicorn); see docs/web.md.
"""
from __future__ import annotations

from .tables import PERSON, Registry, Table, WebError

__all__ = ["create_app", "serve", "check_files", "is_local", "Registry", "Table", "WebError", "PERSON", "DEFAULT_HOST"]

DEFAULT_HOST = "127.0.0.1"
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")


def check_files(paths) -> None:
    """UsageError naming the first path that is not a file (serve refuses it before starting)."""
    import os
    from gamespec.errors import UsageError
    for path in paths:
        if not os.path.isfile(path):
            raise UsageError(f"{path}: no such file")


def is_local(host) -> bool:
    """True for the addresses only this machine can reach (others may open tables on any other)."""
    return host in LOCAL_HOSTS


def _need_extra():
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as e:
        from gamespec.errors import UsageError
        raise UsageError(f"gamespec serve needs the web extra ({e.name} is missing): "
                         "pip install 'gamespec[web]'") from None


def create_app(paths, bot_delay=0.3, watch=1.0, backend=None, max_tables=100, page_kinds=None):
    """The Starlette app serving `paths` (spec files). `watch`: seconds between checks of the files
    (0: never, call `app.state.server.check_specs()` yourself)."""
    _need_extra()
    from .server import build_app
    from .tables import PAGE_KINDS
    reg = Registry(list(paths), backend=backend, max_tables=max_tables, page_kinds=page_kinds or PAGE_KINDS)
    return build_app(reg, bot_delay=bot_delay, watch=watch)


def serve(paths, host=DEFAULT_HOST, port=8000, bot_delay=0.3, watch=1.0, backend=None, max_tables=100,
          log=print):
    """Run the server until interrupted (Ctrl-C). UsageError if a path is not a file (a spec that is
    there but wrong is shown in the page, for designer mode)."""
    check_files(paths)
    app = create_app(paths, bot_delay=bot_delay, watch=watch, backend=backend, max_tables=max_tables)
    import socket

    import uvicorn
    from gamespec.errors import UsageError
    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except (OSError, OverflowError) as e:
        raise UsageError(f"cannot listen on {host}:{port}: {getattr(e, 'strerror', None) or e}") from None
    port = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    log(f"gamespec serve: http://{shown}:{port}/  (Ctrl-C to stop)")
    for f in app.state.registry.specs.values():
        for e in f.errors:
            log(e)
    from .server import MAX_MESSAGE
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", ws_max_size=2 * MAX_MESSAGE))
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
