"""Helpers of the web tests: uvicorn serving gamespec.web.create_app in a thread on 127.0.0.1 (a free
port, or a given one to restart a server where its pages are), for the tests that need a real
server (the browser tests, a socket that never reads), stopped by the context's exit; and the undo
answer compared across the worlds a seat cannot tell apart (the leak property of undo)."""
from __future__ import annotations

import asyncio
import random
import socket
import threading
import time

from gamespec.table.undo import WORLDS, answer, replay
from gamespec.web import create_app


class LiveServer:
    """`with LiveServer(paths, **create_app_kw) as srv:` srv.url, srv.port, srv.app; `port` to serve
    where an earlier server was (a restart: the pages reconnect to the same address). uvicorn runs
    with the configuration of `gamespec serve` (gamespec.web.net.config; `request_seconds` given)."""

    def __init__(self, paths, send_buffer=None, port=0, request_seconds=None, **kw):
        import uvicorn

        from gamespec.web import net
        self.app = create_app(paths, **kw)
        timing = {} if request_seconds is None else {"request_seconds": request_seconds}
        self.server = uvicorn.Server(net.config(self.app, lifespan="on", **timing))
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)     # a restart on the same port
        if send_buffer:     # accepted sockets inherit it: a reader that never reads fills its socket soon
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, send_buffer)
        self.sock.bind(("127.0.0.1", port))
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.loop = None
        self.thread = threading.Thread(target=lambda: asyncio.run(self._serve()), daemon=True)

    async def _serve(self):
        self.loop = asyncio.get_running_loop()
        await self.server.serve(sockets=[self.sock])

    def __enter__(self):
        self.thread.start()
        for _ in range(200):
            if self.server.started:
                return self
            time.sleep(0.05)
        raise RuntimeError("the server did not start in 10 s")

    def __exit__(self, *exc):
        self.server.should_exit = True
        self.thread.join(15)
        self.sock.close()
        assert not self.thread.is_alive(), "the server did not stop"

    def drop_sockets(self, code=1012) -> int:
        """Close every page's socket from the server's side (as a network cut or a proxy would),
        the server going on; the number closed."""
        srv = self.app.state.server

        async def drop():
            conns = [c for cs in list(srv.sockets.values()) for c in list(cs)]
            for c in conns:
                await c.ws.close(code=code)
            return len(conns)
        return asyncio.run_coroutine_threadsafe(drop(), self.loop).result(10)


# -- the leak property of undo ---------------------------------------------------------------------

def undo_answer(before, after, action, worlds=WORLDS) -> str:
    """What an undo of the decision `action` from `before` to `after` is answered
    (gamespec/table/undo.py, answer; `worlds` public worlds drawn): taken-back, undo-revealed or
    undo-shuffled."""
    why = answer(before, after, action, worlds)
    return "taken-back" if why is None else f"undo-{why}"


def undo_in_worlds(table, action, rng, worlds=2, drawn=4):
    """The answer to an undo of the table's last decision, by its decider, and the same answer in
    worlds each seat q cannot tell from this one: the state before the decision determinized for q,
    then the decision played in it (the decider's: the same action by its view JSON `action`;
    another seat's world: each of the decider's legal actions there), kept when q's observation of
    the result is q's observation now. An answer that differed would tell q something of a card it
    does not know (the answer is the decider's, and a decision taken back is a note every seat sees).
    The worlds' answers are compared with `drawn` public worlds per answer (the rule's own count
    costs more; what the answer may depend on is the same). Returns (the answer, the number of
    worlds compared)."""
    after = table.state
    before = replay(table.game, table.players, table.seed, table.options, table.actions[:-1])
    real = undo_answer(before, after, table.actions[-1])
    _, compared = answer_in_worlds(before, after, table.actions[-1], action, table.deciders[-1], table.players,
                                   rng, worlds, drawn)
    return real, compared


def answer_in_worlds(before, after, taken, action, mover, players, rng, worlds=1, drawn=WORLDS):
    """The leak property of the undo rule at one decision: `mover` took `taken` (before's legal
    action, or its engine JSON; `action`: the same by its view JSON) from `before` to `after`. For
    each seat q, `worlds` worlds q cannot tell from this one (before determinized for q, the decision
    played in it — the mover's action as q saw it, or any legal action of another's — kept when q's
    observation of the result is q's now) must get the same answer (`drawn` public worlds each).
    Returns (the answer, the number of worlds compared)."""
    from gamespec.interpreter.views import find_view_action
    here = undo_answer(before, after, taken, drawn)
    compared = 0
    for q in range(players):
        seen = after.observation(q)
        for _ in range(worlds):
            d0 = before.determinize(q, random.Random(rng.getrandbits(32)))
            tries = [find_view_action(d0, q, action)] if q == mover else range(len(d0.legal_actions()))
            for i in tries:
                d1 = d0.clone()
                d1.apply(i)
                if d1.observation(q) != seen:
                    continue
                got = undo_answer(d0, d1, d0.legal_actions()[i], drawn)
                assert got == here, (f"seat {q} could tell from the answer to seat {mover}'s undo of decision "
                                     f"{after.decisions} ({here}) a world it cannot tell from this one ({got})")
                compared += 1
    return here, compared
