"""ASGI app + allowed host names → the same app behind a guard: a request whose Host is not one of
them (DNS rebinding), or that comes from a page of another origin (a cross-site POST, a socket
opened by another site's script), is refused before the app sees it.

Allowed by default: 127.0.0.1, localhost and ::1, at any port; `gamespec serve --allow-host NAME`
adds names (the address or name others use to reach this machine).
"""
from __future__ import annotations

from urllib.parse import urlsplit

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def host_name(value: str) -> str | None:
    """'example.org:8000' → 'example.org', '[::1]:80' → '::1'; None if malformed."""
    value = value.strip().lower()
    if not value:
        return None
    if value.startswith("["):
        end = value.find("]")
        if end < 0 or (value[end + 1:] and not value[end + 1:].startswith(":")):
            return None
        return value[1:end]
    name, _, port = value.partition(":")
    if port and not port.isdigit():
        return None
    return name or None


class Guard:
    """Checks Host on every request and socket, and Origin when a browser sends one."""

    def __init__(self, app, allow_hosts=()):
        self.app = app
        self.allowed = {h.lower().strip("[]") for h in (*LOOPBACK, *allow_hosts)}

    def refusal(self, scope) -> str | None:
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", ())}
        host = headers.get("host")
        name = host_name(host) if host is not None else None
        if name not in self.allowed:
            return (f"this server answers only for {', '.join(sorted(self.allowed))} "
                    f"(gamespec serve --allow-host NAME adds a name), not for Host {str(host)[:80]!r}")
        origin = headers.get("origin")
        if origin is not None:
            o = urlsplit(origin) if origin != "null" else None
            if o is None or o.scheme not in ("http", "https") or o.netloc.lower() != host.strip().lower():
                return f"a page of another site ({origin[:80]!r}) may not use this server"
        return None

    async def __call__(self, scope, receive, send):
        kind = scope["type"]
        if kind in ("http", "websocket"):
            why = self.refusal(scope)
            if why is not None:
                if kind == "websocket":
                    await send({"type": "websocket.close", "code": 4403, "reason": "refused"})
                    return
                body = (why + "\n").encode()
                await send({"type": "http.response.start", "status": 403,
                            "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                                        (b"content-length", str(len(body)).encode()),
                                        (b"cache-control", b"no-store")]})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)
