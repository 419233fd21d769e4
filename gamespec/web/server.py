"""Registry of tables → a Starlette app: the lobby, each seat's page, its socket and its JSON API."""
from __future__ import annotations

import asyncio
import json
from pathlib import Path

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from gamespec.errors import GamespecError

from .messages import encode
from .tables import Registry, WebError

STATIC = Path(__file__).parent / "static"
ASSETS = {"lobby.html": "text/html", "seat.html": "text/html", "style.css": "text/css",
          "lobby.js": "text/javascript", "seat.js": "text/javascript"}
MAX_MESSAGE = 64 * 1024
HEADERS = {
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",          # a seat's link must not travel in a Referer
    "Content-Security-Policy": "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:",
}


def _error(e: WebError) -> JSONResponse:
    return JSONResponse({"type": "error", "error": e.kind, "message": str(e)}, status_code=e.status,
                        headers=HEADERS)


def _asset(name) -> Response:
    return Response((STATIC / name).read_bytes(), media_type=ASSETS[name] + "; charset=utf-8", headers=HEADERS)


async def _json_body(request: Request):
    body = b""
    async for chunk in request.stream():         # read no more than the limit, whatever is sent
        body += chunk
        if len(body) > MAX_MESSAGE:
            raise WebError(f"a request is at most {MAX_MESSAGE} bytes", status=413, kind="too-large")
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise WebError("the request body is not JSON", kind="bad-json") from None


class Server:
    """The running app's state: the registry, the open sockets per table, the bot and watch tasks."""

    def __init__(self, registry: Registry, bot_delay=0.3, watch=1.0):
        self.registry = registry
        self.bot_delay = bot_delay
        self.watch = watch
        self.sockets = {}          # table id -> {websocket: seat}
        self.bot_tasks = {}        # table id -> asyncio.Task

    # -- pushing views --------------------------------------------------------------------------
    async def broadcast(self, table):
        for ws, seat in list(self.sockets.get(table.id, {}).items()):
            with table.lock:
                text = encode(table.message(seat))
            try:
                await ws.send_text(text)
            except Exception:       # noqa: BLE001 - a closed socket: forget it
                self.sockets.get(table.id, {}).pop(ws, None)

    def run_bots(self, table):
        task = self.bot_tasks.get(table.id)
        if task is None or task.done():
            self.bot_tasks[table.id] = asyncio.get_running_loop().create_task(self._bots(table))

    async def _bots(self, table):
        for _ in range(table.state.rs.max_decisions + 1):
            if table.bot_to_move() is None:
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

    async def watcher(self):
        while True:
            await asyncio.sleep(self.watch)
            await self.check_specs()

    async def check_specs(self):
        """Reload changed specs now (the watcher calls it; tests too); push the tables touched."""
        for t in await run_in_threadpool(self.registry.check_specs):
            await self.broadcast(t)
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

    async def create_table(self, request):
        try:
            data = await _json_body(request)
            t = await run_in_threadpool(self.registry.create, data)
        except WebError as e:
            return _error(e)
        self.run_bots(t)
        return JSONResponse({"table": t.id, "game": t.game.name, "seed": t.seed if t.seed_chosen else None, "seats": [
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

    async def seat_act(self, request):
        try:
            t, seat = self.registry.find(request.path_params["token"])
            data = await _json_body(request)
            t.act(seat, data)
        except WebError as e:
            return _error(e)
        await self.broadcast(t)
        self.run_bots(t)
        with t.lock:
            text = encode(t.message(seat))
        return Response(text, media_type="application/json", headers=HEADERS)

    # -- the socket -----------------------------------------------------------------------------
    async def socket(self, ws: WebSocket):
        await ws.accept()
        try:
            t, seat = self.registry.find(ws.path_params["token"])
        except WebError as e:
            await ws.send_text(encode({"type": "error", "error": e.kind, "message": str(e)}))
            await ws.close(code=4404)
            return
        self.sockets.setdefault(t.id, {})[ws] = seat
        try:
            with t.lock:
                text = encode(t.message(seat))
            await ws.send_text(text)
            while True:
                raw = await ws.receive_text()
                try:
                    if len(raw) > MAX_MESSAGE:
                        raise WebError(f"a message is at most {MAX_MESSAGE} bytes", kind="too-large")
                    try:
                        data = json.loads(raw)
                    except ValueError:
                        raise WebError("the message is not JSON", kind="bad-json") from None
                    kind = data.get("type") if isinstance(data, dict) else None
                    if kind == "view":
                        with t.lock:
                            text = encode(t.message(seat))
                        await ws.send_text(text)
                        continue
                    if kind != "act":
                        raise WebError("a message is {\"type\": \"act\", \"at\": N, \"index\": I} or "
                                       "{\"type\": \"view\"}", kind="bad-json")
                    t.act(seat, data)
                except WebError as e:
                    await ws.send_text(encode({"type": "error", "error": e.kind, "message": str(e)}))
                    continue
                await self.broadcast(t)
                self.run_bots(t)
        except WebSocketDisconnect:
            pass
        finally:
            self.sockets.get(t.id, {}).pop(ws, None)


def build_app(registry: Registry, bot_delay=0.3, watch=1.0) -> Starlette:
    srv = Server(registry, bot_delay=bot_delay, watch=watch)

    from contextlib import asynccontextmanager

    @asynccontextmanager
    async def lifespan(app):
        task = asyncio.get_running_loop().create_task(srv.watcher()) if watch else None
        try:
            yield
        finally:
            tasks = [x for x in [task, *srv.bot_tasks.values()] if x is not None]
            for x in tasks:
                x.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    app = Starlette(routes=[
        Route("/", srv.lobby),
        Route("/static/{name}", srv.asset),
        Route("/play/{token}", srv.seat_page),
        Route("/api/specs", srv.specs),
        Route("/api/tables", srv.create_table, methods=["POST"]),
        Route("/api/seat/{token}", srv.seat_view),
        Route("/api/seat/{token}/act", srv.seat_act, methods=["POST"]),
        WebSocketRoute("/ws/{token}", srv.socket),
    ], lifespan=lifespan)
    app.state.server = srv
    app.state.registry = registry
    return app
