"""`gamespec serve` under a bounded load on loopback → its figures (tables, sockets, memory, move
latency), as JSON on stdout and a table on stderr.

    python bench/web_load.py                     # the default load (about a minute)
    python bench/web_load.py --bot-tables 40 --person-tables 10 --seconds 60

Starts `gamespec serve` as a child process on 127.0.0.1 at a free port (never another address),
then: many bot-only tables at once; person tables with several live pages each, played by HTTP
moves while pages that never read stay open; the server's /api/status and its resident memory
(VmRSS of the child) along the way; the finished tables freed after --finished-after; a new table
accepted afterwards. Every loop is bounded in count and in time; the child is stopped at the end.
"""
from __future__ import annotations

import argparse
import base64
import json
import os
import random
import re
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOST = "127.0.0.1"
SPECS = [os.path.join(ROOT, "games", n) for n in ("bali.yaml", "klink.yaml", "bacchus.yaml")]
MAX_REQUESTS = 5000


class Load:
    def __init__(self, url, deadline):
        self.url = url
        self.deadline = deadline
        self.requests = 0

    def call(self, path, body=None, timeout=30):
        if self.requests >= MAX_REQUESTS or time.monotonic() > self.deadline:
            raise TimeoutError("the load's bound was reached")
        self.requests += 1
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method="GET" if body is None else "POST",
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return r.status, json.load(r)
        except urllib.error.HTTPError as e:
            return e.code, json.load(e)


def rss_kib(pid) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def stuck_socket(port, path):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect((HOST, port))
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall((f"GET {path} HTTP/1.1\r\nHost: {HOST}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    return s


def reader(port, path, stop, counts):
    """A live page: reads every message until stopped."""
    from websockets.sync.client import connect
    try:
        with connect(f"ws://{HOST}:{port}{path}", open_timeout=10, close_timeout=1) as ws:
            while not stop.is_set():
                try:
                    ws.recv(timeout=0.5)
                    counts[0] += 1
                except TimeoutError:
                    continue
    except Exception:       # noqa: BLE001 - closed by the server (a freed table): stop reading
        pass


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bot-tables", type=int, default=60)
    ap.add_argument("--person-tables", type=int, default=12)
    ap.add_argument("--pages", type=int, default=3, help="live pages per person table")
    ap.add_argument("--stuck", type=int, default=12, help="pages that never read, in all")
    ap.add_argument("--moves", type=int, default=600, help="HTTP moves played on the person tables")
    ap.add_argument("--seconds", type=float, default=150, help="the whole load stops after this long")
    a = ap.parse_args(argv)
    n_tables = a.bot_tables + a.person_tables + 5
    cmd = [sys.executable, "-m", "gamespec", "serve", *SPECS, "--host", HOST, "--port", "0", "--bot-delay", "0",
           "--watch", "0", "--max-tables", str(n_tables), "--max-per-client", str(n_tables),
           "--finished-after", "4"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    stop = threading.Event()
    threads, stuck = [], []
    fig = {}
    try:
        m = re.match(r"gamespec serve: http://127\.0\.0\.1:(\d+)/", proc.stdout.readline())
        assert m, proc.stderr.read()
        port = int(m.group(1))
        load = Load(f"http://{HOST}:{port}", time.monotonic() + a.seconds)
        for _ in range(100):
            try:
                load.call("/api/specs")
                break
            except OSError:
                time.sleep(0.1)
        fig["rss_start_mib"] = round(rss_kib(proc.pid) / 1024, 1)
        rng = random.Random(1)
        t0 = time.monotonic()
        for i in range(a.bot_tables):
            spec = i % 3
            n = 2 if spec == 0 else 3
            st, d = load.call("/api/tables", {"spec": str(spec), "players": n, "seed": i, "seats": ["random"] * n})
            assert st == 200, d
        fig["bot_tables_created_s"] = round(time.monotonic() - t0, 2)
        people = []
        counts = [0]
        for i in range(a.person_tables):
            st, d = load.call("/api/tables", {"spec": "1", "players": 3, "seed": 100 + i,
                                              "seats": ["person", "random", "person"]})
            assert st == 200, d
            toks = [x["link"].rsplit("/", 1)[1] for x in d["seats"] if x["link"]]
            people.append(toks)
            for k in range(a.pages):
                th = threading.Thread(target=reader, args=(port, f"/ws/{toks[k % 2]}", stop, counts), daemon=True)
                th.start()
                threads.append(th)
        for i in range(a.stuck):
            stuck.append(stuck_socket(port, f"/ws/{people[i % len(people)][1]}"))
        time.sleep(1.0)
        st, status = load.call("/api/status")
        fig["peak"] = dict(status, rss_mib=round(rss_kib(proc.pid) / 1024, 1))
        lat = []
        moves = 0
        while moves < a.moves and time.monotonic() < load.deadline - 10:
            live = False
            for toks in people:
                for tok in toks:
                    st, v = load.call(f"/api/seat/{tok}")
                    if v.get("terminal"):
                        continue
                    live = True
                    if not v.get("actions"):
                        continue
                    t1 = time.monotonic()
                    st, _ = load.call(f"/api/seat/{tok}/act", {"at": v["at"], "index": rng.randrange(len(v["actions"]))})
                    lat.append(time.monotonic() - t1)
                    moves += 1
            if not live:
                break
        st, status = load.call("/api/status")
        fig["after_moves"] = dict(status, rss_mib=round(rss_kib(proc.pid) / 1024, 1))
        lat.sort()
        fig["moves"] = moves
        if lat:
            fig["move_ms"] = {"p50": round(1000 * statistics.median(lat), 1),
                              "p95": round(1000 * lat[int(0.95 * (len(lat) - 1))], 1),
                              "max": round(1000 * lat[-1], 1)}
        fig["messages_read_by_live_pages"] = counts[0]
        # the finished games are freed a few seconds after their end; a new table is welcome
        for _ in range(40):
            st, status = load.call("/api/status")
            if status["finished"] == 0:
                break
            time.sleep(0.5)
        fig["after_freeing"] = dict(status, rss_mib=round(rss_kib(proc.pid) / 1024, 1))
        st, d = load.call("/api/tables", {"spec": "1", "players": 3, "seats": ["random"] * 3})
        fig["new_table_after_freeing"] = st
        fig["requests"] = load.requests
    finally:
        stop.set()
        for s in stuck:
            s.close()
        for th in threads:
            th.join(3)
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
    print(json.dumps(fig, indent=2))
    for k, v in fig.items():
        print(f"{k:>28}: {v}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
