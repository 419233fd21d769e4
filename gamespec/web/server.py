"""Registry of tables → a Starlette app: the lobby, each seat's page, its socket and its JSON API,
behind a guard that checks Host and Origin; every socket sends through its own bounded queue."""
from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from gamespec.errors import GamespecError

from .guard import Guard, client_address
from .messages import encode
from .tables import Registry, WebError

STATIC = Path(__file__).parent / "static"
ASSETS = {"lobby.html": "text/html", "seat.html": "text/html", "style.css": "text/css",
          "lobby.js": "text/javascript", "seat.js": "text/javascript", "cards.js": "text/javascript"}
MAX_MESSAGE = 64 * 1024
QUEUE = 16                  # messages waiting for one socket; past that it is a slow consumer, dropped
SEND_SECONDS = 20.0         # one send that takes longer drops the socket too
MAX_SOCKETS_PER_TABLE = 32
MAX_SOCKETS = 2000
SWEEP_SECONDS = 30.0        # how often finished and idle tables are looked for
HEADERS = {
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",          # a seat's link must not travel in a Referer
    "Content-Security-Policy": "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; "
                               "frame-ancestors 'none'",
    "X-Frame-Options": "DENY",
}


def _error(e: WebError) -> JSONResponse:
    return JSONResponse({"type": "error", "error": e.kind, "message": str(e)}, status_code=e.status,
                        headers=HEADERS)


def _asset(name) -> Response:
    return Response((STATIC / name).read_bytes(), media_type=ASSETS[name] + "; charset=utf-8", headers=HEADERS)


def parse_json(raw):
    """Text or bytes from a stranger → JSON data; WebError for anything else (never a traceback:
    a body nested deeper than the parser can go is an error too)."""
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise WebError("the message is not JSON", kind="bad-json") from None
    except RecursionError:
        raise WebError("the message is nested too deeply", kind="bad-json") from None


async def _json_body(request: Request):
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype != "application/json":     # a form or text/plain post is what another site can send
        raise WebError("a request body is JSON, sent with Content-Type: application/json", status=415,
                       kind="bad-content-type")
    body = b""
    try:
        async for chunk in request.stream():         # read no more than the limit, whatever is sent
            body += chunk
            if len(body) > MAX_MESSAGE:
                raise WebError(f"a request is at most {MAX_MESSAGE} bytes", status=413, kind="too-large")
    except ClientDisconnect:        # gone before its body ended (or closed for being too slow)
        raise WebError("the request ended before its body did", kind="gone") from None
    return parse_json(body)


class Conn:
    """One open socket: its seat (None: a spectator) and a bounded queue drained by its own task,
    so that a socket that never reads delays nobody."""

    def __init__(self, srv, ws, table, seat):
        self.srv, self.ws, self.table, self.seat = srv, ws, table, seat
        self.queue = asyncio.Queue(QUEUE)
        self.task = asyncio.get_running_loop().create_task(self._send())
        self.closed = False

    def push(self, text) -> None:
        if self.closed:
            return
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            self.srv.dropped += 1
            self.release(4408)

    async def _send(self):
        try:
            while True:
                text = await self.queue.get()
                await asyncio.wait_for(self.ws.send_text(text), SEND_SECONDS)
        except asyncio.CancelledError:
            raise
        except Exception:       # noqa: BLE001 - closed, or too slow: forget it
            self.release(None)

    def release(self, code) -> None:
        """Forget the socket and close it (code 4408: too slow a reader), without waiting for it."""
        if self.closed:
            return
        self.closed = True
        self.srv.forget(self)
        self.task.cancel()
        if code is not None:
            asyncio.get_running_loop().create_task(self._close(code))

    async def _close(self, code):
        try:
            await asyncio.wait_for(self.ws.close(code=code), 2)
        except Exception:       # noqa: BLE001 - it may be gone already
            pass


class Server:
    """The running app's state: the registry, the open sockets per table, the bot and watch tasks."""

    def __init__(self, registry: Registry, bot_delay=0.3, watch=1.0, sweep=SWEEP_SECONDS, proxy=None):
        self.registry = registry
        self.proxy = proxy          # the one address whose X-Forwarded-For is believed (an ip_address)
        self.bot_delay = bot_delay
        self.watch = watch
        self.sweep_every = sweep
        self.sockets = {}          # table id -> {Conn: seat}
        self.bot_tasks = {}        # table id -> asyncio.Task
        self.dropped = 0           # slow consumers dropped so far

    def connections(self) -> int:
        return sum(len(x) for x in self.sockets.values())

    def forget(self, conn) -> None:
        conns = self.sockets.get(conn.table.id)
        if conns is not None:
            conns.pop(conn, None)
            if not conns:
                self.sockets.pop(conn.table.id, None)

    # -- pushing views --------------------------------------------------------------------------
    async def broadcast(self, table):
        """The table changed: save it, queue every connected page its new message (never waits)."""
        if self.registry.store is not None:
            await run_in_threadpool(self.registry.persist, table)
        for conn, seat in list(self.sockets.get(table.id, {}).items()):
            with table.lock:
                text = encode(table.message(seat))
            conn.push(text)

    def run_bots(self, table):
        task = self.bot_tasks.get(table.id)
        if task is None or task.done():
            self.bot_tasks[table.id] = asyncio.get_running_loop().create_task(self._bots(table))

    async def _bots(self, table):
        try:
            for _ in range(table.state.rs.max_decisions + 1):
                if table.bot_to_move() is None or self.registry.tables.get(table.id) is not table:
                    return
                if self.bot_delay:
                    await asyncio.sleep(self.bot_delay)
                try:
                    moved = await run_in_threadpool(table.bot_move)
                except GamespecError as e:
                    table.errors = [f"a bot failed: {e}"]
                    moved = False
                await self.broadcast(table)
                if not moved:
                    return
        finally:
            if self.bot_tasks.get(table.id) is asyncio.current_task():
                del self.bot_tasks[table.id]

    async def watcher(self):
        while True:
            await asyncio.sleep(self.watch)
            await self.check_specs()

    async def sweeper(self):
        while True:
            await asyncio.sleep(self.sweep_every)
            self.sweep()

    def sweep(self, now=None) -> list:
        """Free finished and idle tables now (the sweeper calls it; tests too), close their sockets."""
        gone = self.registry.sweep(busy=set(self.sockets), now=now)
        for t in gone:
            for conn in list(self.sockets.get(t.id, {})):
                conn.release(4410)
            task = self.bot_tasks.pop(t.id, None)
            if task is not None:
                task.cancel()
        return gone

    async def check_specs(self):
        """Reload changed specs now (the watcher calls it; tests too); push the tables touched."""
        for t in await run_in_threadpool(self.registry.check_specs):
            await self.broadcast(t)
            self.run_bots(t)

    def resume(self):
        """Start the bots of the tables read back from the state directory."""
        for t in list(self.registry.tables.values()):
            self.run_bots(t)

    # -- HTTP -----------------------------------------------------------------------------------
    async def lobby(self, request):
        return _asset("lobby.html")

    async def asset(self, request):
        name = request.path_params["name"]
        if name not in ASSETS:
            return Response("not found\n", status_code=404, media_type="text/plain", headers=HEADERS)
        return _asset(name)

    async def seat_page(self, request):
        try:
            self.registry.find(request.path_params["token"])
        except WebError as e:
            return Response(f"{e}\n", status_code=404, media_type="text/plain", headers=HEADERS)
        return _asset("seat.html")

    async def specs(self, request):
        return JSONResponse(self.registry.describe(), headers=HEADERS)

    async def status(self, request):
        """Figures for the operator (and the load bench): tables, sockets; nothing of any game."""
        tables = list(self.registry.tables.values())
        return JSONResponse({"tables": len(tables), "finished": sum(t.finished_at is not None for t in tables),
                             "sockets": self.connections(), "dropped": self.dropped,
                             "bots_running": sum(not x.done() for x in self.bot_tasks.values())},
                            headers=HEADERS)

    async def create_table(self, request):
        try:
            data = await _json_body(request)
            client = client_address(request.scope, self.proxy)
            t = await run_in_threadpool(self.registry.create, data, client)
        except WebError as e:
            return _error(e)
        self.run_bots(t)
        return JSONResponse({"table": t.id, "game": t.game.name, "seed": t.seed if t.seed_chosen else None,
                             "undo": t.allow_undo, "watch": f"/watch/{t.watch_token}", "seats": [
                                 {"seat": p, "kind": k, "link": f"/play/{tok}" if tok else None}
                                 for p, (k, tok) in enumerate(zip(t.kinds, t.tokens))]}, headers=HEADERS)

    async def seat_view(self, request):
        try:
            t, seat = self.registry.find(request.path_params["token"])
        except WebError as e:
            return _error(e)
        with t.lock:
            text = encode(t.message(seat))
        return Response(text, media_type="application/json", headers=HEADERS)

    async def _change(self, request, how):
        try:
            t, seat = self.registry.find(request.path_params["token"])
            data = await _json_body(request)
            how(t, seat, data)
        except WebError as e:
            return _error(e)
        await self.broadcast(t)
        self.run_bots(t)
        with t.lock:
            text = encode(t.message(seat))
        return Response(text, media_type="application/json", headers=HEADERS)

    async def seat_act(self, request):
        return await self._change(request, lambda t, seat, data: t.act(seat, data))

    async def seat_undo(self, request):
        return await self._change(request, lambda t, seat, data: t.undo(seat, data))

    # -- the socket -----------------------------------------------------------------------------
    async def socket(self, ws: WebSocket):
        await ws.accept()
        try:
            t, seat = self.registry.find(ws.path_params["token"])
            if len(self.sockets.get(t.id, ())) >= MAX_SOCKETS_PER_TABLE or self.connections() >= MAX_SOCKETS:
                raise WebError("too many pages are open on this table", status=503, kind="full")
        except WebError as e:
            await ws.send_text(encode({"type": "error", "error": e.kind, "message": str(e)}))
            await ws.close(code=4404 if e.kind == "bad-token" else 4503)
            return
        conn = Conn(self, ws, t, seat)
        self.sockets.setdefault(t.id, {})[conn] = seat
        t.touched = time.monotonic()
        try:
            with t.lock:
                conn.push(encode(t.message(seat)))
            while not conn.closed:
                got = await ws.receive()
                if got["type"] == "websocket.disconnect":
                    break
                raw = got.get("text")
                try:
                    if raw is None:
                        raise WebError("a message is JSON text, not a binary frame", kind="binary")
                    if len(raw) > MAX_MESSAGE:
                        raise WebError(f"a message is at most {MAX_MESSAGE} bytes", kind="too-large")
                    data = parse_json(raw)
                    kind = data.get("type") if isinstance(data, dict) else None
                    if kind == "view":
                        with t.lock:
                            conn.push(encode(t.message(seat)))
                        continue
                    if kind == "act":
                        t.act(seat, data)
                    elif kind == "undo":
                        t.undo(seat, data)
                    else:
                        raise WebError("a message is {\"type\": \"act\", \"at\": N, \"index\": I}, "
                                       "{\"type\": \"undo\", \"at\": N} or {\"type\": \"view\"}", kind="bad-json")
                except WebError as e:
                    conn.push(encode({"type": "error", "error": e.kind, "message": str(e)}))
                    continue
                await self.broadcast(t)
                self.run_bots(t)
        except WebSocketDisconnect:
            pass
        finally:
            conn.release(None)


def build_app(registry: Registry, bot_delay=0.3, watch=1.0, allow_hosts=(), sweep=SWEEP_SECONDS,
              proxy=None) -> Starlette:
    srv = Server(registry, bot_delay=bot_delay, watch=watch, sweep=sweep, proxy=proxy)

    from contextlib import asynccontextmanager

    @asynccontextmanager
    async def lifespan(app):
        loop = asyncio.get_running_loop()
        tasks = [loop.create_task(srv.watcher())] if watch else []
        if sweep:
            tasks.append(loop.create_task(srv.sweeper()))
        srv.resume()
        try:
            yield
        finally:
            tasks += list(srv.bot_tasks.values())
            for x in tasks:
                x.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    app = Starlette(routes=[
        Route("/", srv.lobby),
        Route("/static/{name}", srv.asset),
        Route("/play/{token}", srv.seat_page),
        Route("/watch/{token}", srv.seat_page),
        Route("/api/specs", srv.specs),
        Route("/api/status", srv.status),
        Route("/api/tables", srv.create_table, methods=["POST"]),
        Route("/api/seat/{token}", srv.seat_view),
        Route("/api/seat/{token}/act", srv.seat_act, methods=["POST"]),
        Route("/api/seat/{token}/undo", srv.seat_undo, methods=["POST"]),
        WebSocketRoute("/ws/{token}", srv.socket),
    ], lifespan=lifespan)
    app.state.server = srv
    app.state.registry = registry
    guarded = Guard(app, allow_hosts)
    guarded.state = app.state
    return guarded
