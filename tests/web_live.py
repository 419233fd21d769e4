"""uvicorn serving gamespec.web.create_app in a thread on 127.0.0.1 at a free port, for the tests that
need a real server (the browser tests, a socket that never reads); stopped by the context's exit."""
from __future__ import annotations

import socket
import threading
import time

import uvicorn

from gamespec.web import create_app


class LiveServer:
    def __init__(self, paths, send_buffer=None, **kw):
        self.app = create_app(paths, **kw)
        self.server = uvicorn.Server(uvicorn.Config(self.app, log_level="warning", lifespan="on"))
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if send_buffer:     # accepted sockets inherit it: a reader that never reads fills its socket soon
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, send_buffer)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)

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
