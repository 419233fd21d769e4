"""ASGI app + allowed host names → the same app behind a guard: a request whose Host is not one of
them (DNS rebinding), or that comes from a page of another origin (a cross-site POST, a socket
opened by another site's script), is refused before the app sees it.

Allowed by default: 127.0.0.1, localhost and ::1, at any port; `gamespec serve --allow-host NAME`
adds names (the address or name others use to reach this machine).

Who a request comes from (the per-client cap) is the connection's address: a header naming another
is believed only on a connection from the proxy `serve --proxy ADDR` names (client_address).
"""
from __future__ import annotations

import ipaddress
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


def client_address(scope, proxy=None) -> str | None:
    """Who sent a request, for the per-client cap: the connection's address; on a connection from
    `proxy` (an ip_address, `serve --proxy`) only, the last address of X-Forwarded-For, the one that
    proxy appended. Forwarded and X-Real-IP are never read: a client may write any of them."""
    peer = (scope.get("client") or (None,))[0]
    if proxy is None or peer is None or ip_of(peer) != proxy:
        return peer
    hops = b",".join(v for k, v in scope.get("headers", ()) if k.lower() == b"x-forwarded-for")
    last = hops.decode("latin-1").rsplit(",", 1)[-1].strip()
    ip = ip_of(last)
    return peer if ip is None else str(ip)


def ip_of(text):
    """'127.0.0.1', '::1', '::ffff:127.0.0.1' → an ip_address (a mapped IPv4 as IPv4); None if not one."""
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return None
    return getattr(ip, "ipv4_mapped", None) or ip      # ::ffff:127.0.0.1 is 127.0.0.1


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
