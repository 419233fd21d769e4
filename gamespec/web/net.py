"""The app → a uvicorn configuration that strangers cannot hold: no proxy header is trusted by
uvicorn (the app decides, from `--proxy`: guard.client_address), and a request must arrive whole
within REQUEST_SECONDS of its connection's opening or of the last response (a client that trickles
its headers, or never ends them, is closed; uvicorn's own h11 protocol waits forever), its head
within MAX_HEADER_BYTES (h11 bounds only a head still incomplete: one read may bring a larger one).

Used by `serve` only (and the tests' live server); uvicorn is imported when it is called.
"""
from __future__ import annotations

REQUEST_SECONDS = 10.0      # headers (and a body) of one request; ours are small, a browser sends them at once
MAX_HEADER_BYTES = 16 * 1024    # a request's line and headers; past it, 431 and closed
TOO_LARGE = (b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-type: text/plain\r\n"
             b"connection: close\r\ncontent-length: 27\r\n\r\nthe request head is too big")


def timed_protocol(seconds=REQUEST_SECONDS) -> type:
    """uvicorn's h11 protocol with a timer per request: armed when the connection opens and after
    each response, stopped once the request has arrived whole (or became a websocket); when it
    fires, the connection is closed. A request's head larger than MAX_HEADER_BYTES is answered 431."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class TimedH11Protocol(H11Protocol):
        request_seconds = seconds

        def connection_made(self, transport) -> None:
            super().connection_made(transport)
            self._timer = None
            self._arm()

        def _arm(self) -> None:
            self._disarm()
            self._timer = self.loop.call_later(self.request_seconds, self._too_slow)

        def _disarm(self) -> None:
            if getattr(self, "_timer", None) is not None:
                self._timer.cancel()
                self._timer = None

        def _too_slow(self) -> None:
            self._timer = None
            if not self.transport.is_closing():
                self.transport.close()

        def data_received(self, data: bytes) -> None:
            if self.conn.their_state is h11.IDLE:       # a request's head is coming: bound it
                seen = (self.conn.trailing_data[0] + data).lstrip(b"\r\n")
                end = seen.find(b"\r\n\r\n")
                if (len(seen) if end < 0 else end) > MAX_HEADER_BYTES:
                    self._disarm()
                    self.transport.write(TOO_LARGE)
                    self.transport.close()
                    return
            super().data_received(data)

        def handle_events(self) -> None:
            super().handle_events()
            if self.conn.their_state is h11.DONE:       # the whole request is in: the app answers it
                self._disarm()

        def handle_websocket_upgrade(self, event) -> None:
            self._disarm()                              # a socket now: its own pings time it out
            super().handle_websocket_upgrade(event)

        def on_response_complete(self) -> None:
            if not self.transport.is_closing():
                self._arm()                             # before super(): it may start a pipelined request
            super().on_response_complete()

        def connection_lost(self, exc) -> None:
            self._disarm()
            super().connection_lost(exc)

    return TimedH11Protocol


def config(app, request_seconds=REQUEST_SECONDS, **kw):
    """The uvicorn Config that `serve` runs `app` with (`kw`: more uvicorn options)."""
    import uvicorn

    from .server import MAX_MESSAGE
    kw.setdefault("log_level", "warning")
    return uvicorn.Config(app, http=timed_protocol(request_seconds), proxy_headers=False, ws_max_size=2 * MAX_MESSAGE,
                          h11_max_incomplete_event_size=MAX_HEADER_BYTES, **kw)
