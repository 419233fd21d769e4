"""Spec files → a local web server to play them in the browser (lobby, seat pages, designer mode).

    from gamespec.web import create_app, serve
    serve(["games/mygame.yaml"], host="127.0.0.1", port=8000)

Needs the `web` extra (Starlette, uvicorn); see docs/web.md.
"""
from __future__ import annotations

from .tables import PERSON, Registry, Table, WebError

__all__ = ["create_app", "serve", "check_files", "check_proxy", "is_local", "Registry", "Table", "WebError", "PERSON", "DEFAULT_HOST"]

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


def check_proxy(addr):
    """`serve --proxy ADDR` → its ip_address (None: no proxy); UsageError if ADDR is not an IP address
    (the proxy is known by the address its connections come from, never by a name)."""
    if addr is None:
        return None
    from .guard import ip_of
    ip = ip_of(addr.strip()) if isinstance(addr, str) else None
    if ip is None:
        from gamespec.errors import UsageError
        raise UsageError(f"--proxy takes the IP address the proxy connects from (e.g. 127.0.0.1), not {addr!r}")
    return ip


def _need_extra():
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as e:
        from gamespec.errors import UsageError
        raise UsageError(f"gamespec serve needs the web extra ({e.name} is missing): "
                         "pip install 'gamespec[web]'") from None


def create_app(paths, bot_delay=0.3, watch=1.0, backend=None, max_tables=100, page_kinds=None,
               allow_hosts=(), state_dir=None, max_per_client=None, finished_ttl=None, idle_ttl=None,
               sweep=None, log=print, proxy=None):
    """The Starlette app serving `paths` (spec files), behind the Host/Origin guard. `watch`: seconds
    between checks of the files (0: never, call `app.state.server.check_specs()` yourself);
    `allow_hosts`: host names allowed besides loopback; `state_dir`: where tables are saved and
    resumed from; the caps and timeouts of docs/web.md (None: the defaults); `proxy`: the address of
    a reverse proxy whose X-Forwarded-For names the client (None: no header is believed). Under
    another ASGI server, turn its own proxy headers off (uvicorn: proxy_headers=False)."""
    _need_extra()
    proxy = check_proxy(proxy)
    from . import tables as T
    from .server import SWEEP_SECONDS, build_app
    reg = Registry(list(paths), backend=backend, max_tables=max_tables, page_kinds=page_kinds or T.PAGE_KINDS,
                   max_per_client=T.MAX_PER_CLIENT if max_per_client is None else max_per_client,
                   finished_ttl=T.FINISHED_TTL if finished_ttl is None else finished_ttl,
                   idle_ttl=T.IDLE_TTL if idle_ttl is None else idle_ttl, state_dir=state_dir, log=log)
    if sweep is None:           # often enough that no table outlives its timeout by much
        sweep = min(SWEEP_SECONDS, max(1.0, min(reg.finished_ttl, reg.idle_ttl) / 4))
    return build_app(reg, bot_delay=bot_delay, watch=watch, allow_hosts=allow_hosts, sweep=sweep, proxy=proxy)


def serve(paths, host=DEFAULT_HOST, port=8000, bot_delay=0.3, watch=1.0, backend=None, max_tables=100,
          log=print, allow_hosts=(), state_dir=None, max_per_client=None, finished_ttl=None, idle_ttl=None,
          proxy=None):
    """Run the server until interrupted (Ctrl-C). UsageError if a path is not a file (a spec that is
    there but wrong is shown in the page, for designer mode) or `proxy` is not an IP address."""
    check_files(paths)
    check_proxy(proxy)
    allow = list(allow_hosts)
    if host not in ("0.0.0.0", "::", "") and not is_local(host):
        allow.append(host)          # the address it listens on is a name others will use
    app = create_app(paths, bot_delay=bot_delay, watch=watch, backend=backend, max_tables=max_tables,
                     allow_hosts=allow, state_dir=state_dir, max_per_client=max_per_client,
                     finished_ttl=finished_ttl, idle_ttl=idle_ttl, log=log, proxy=proxy)
    import socket

    import uvicorn
    from gamespec.errors import UsageError

    from .net import config
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
    if state_dir:
        log(f"gamespec serve: tables saved in {state_dir} ({len(app.state.registry.tables)} resumed)")
    for f in app.state.registry.specs.values():
        for e in f.errors:
            log(e)
    server = uvicorn.Server(config(app))
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
