"""gamespec serve trusts nothing a stranger wrote (docs/web.md, Safety): a saved record's bot kinds
pass the page's rule (no module:Class imported, no iteration count above a page's cap), a proxy
header names the client only on a connection from `--proxy ADDR`, and a request that never arrives
whole (headers trickled or never ended, a body never finished) is closed in bounded time (real
uvicorn on 127.0.0.1, with the configuration `serve` uses)."""
from __future__ import annotations

import json
import os
import select
import socket
import sys
import time
import urllib.error
import urllib.request
import warnings

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install '.[web]'")
pytest.importorskip("uvicorn", reason="the web extra is not installed: pip install '.[web]'")

from gamespec.bots import BotError  # noqa: E402
from gamespec.bots.registry import page_kind  # noqa: E402
from gamespec.errors import UsageError  # noqa: E402
from gamespec.web import check_proxy, create_app  # noqa: E402
from gamespec.web.tables import Registry  # noqa: E402
from helpers import ROOT  # noqa: E402
from web_live import LiveServer  # noqa: E402

KLINK = os.path.join(ROOT, "games", "klink.yaml")
PEOPLE = ["person", "person", "person"]


# -- a saved record is data -----------------------------------------------------------------------

def test_a_saved_record_resumes_only_kinds_a_page_may_choose(tmp_path, monkeypatch):
    state = str(tmp_path / "state")
    reg = Registry([KLINK], state_dir=state, log=lambda m: None)
    ids = [reg.create({"spec": "0", "players": 3, "seed": i, "seats": ["person", "random", k]}).id
           for i, k in enumerate(["random", "random", "random", "random", "ismcts:20000"])]
    # a module on the path that would leave a mark if it were ever imported
    marker = tmp_path / "imported"
    mods = tmp_path / "mods"
    mods.mkdir()
    (mods / "gs_trust_marker.py").write_text(
        f"open({str(marker)!r}, 'w').write('ran')\n"
        "class Evil:\n    def choose(self, view):\n        return 0\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(mods))
    planted = {ids[0]: "gs_trust_marker:Evil", ids[1]: "ismcts:100000000", ids[2]: "first",
               ids[3]: "greedy/avoid:pass"}
    for tid, kind in planted.items():
        path = os.path.join(state, f"{tid}.json")
        rec = json.loads(open(path, encoding="utf-8").read())
        rec["kinds"][2] = kind
        open(path, "w", encoding="utf-8").write(json.dumps(rec))
    said = []
    reg = Registry([KLINK], state_dir=state, log=said.append)
    assert not marker.exists() and "gs_trust_marker" not in sys.modules     # nothing was imported
    assert set(reg.tables) == {ids[4]} and reg.tables[ids[4]].kinds[2] == "ismcts:20000"
    for tid, kind in planted.items():
        lines = [m for m in said if os.path.join(state, f"{tid}.json") in m]
        assert len(lines) == 1 and "not resumed" in lines[0] and repr(kind) in lines[0], said
        assert ("at most ismcts:20000" if kind.startswith("ismcts") else "a page may choose") in lines[0]
    assert len(said) == len(planted)


def test_one_rule_says_what_a_page_may_choose():
    assert page_kind("ismcts:20000") == ("ismcts", 20000) and page_kind("greedy") == ("greedy", None)
    for kind in ("ismcts:20001", "first", "os:system", "avoid:pass", "ismcts:x", 3, None):
        with pytest.raises(BotError, match="page"):
            page_kind(kind)
    with pytest.raises(BotError, match="a page may choose random$"):
        page_kind("greedy", allowed=("random",))
    # a server may offer fewer kinds, never more: a kind no page may choose stays refused
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
    app = create_app([KLINK], watch=0, sweep=0, page_kinds=("random", "first", "class"))
    with TestClient(app, base_url="http://127.0.0.1") as c:
        assert c.get("/api/specs").json()["bots"] == ["person", "random"]
        for kind in ("first", "greedy", "x:Y"):
            r = c.post("/api/tables", json={"spec": "0", "players": 3, "seats": ["person", "random", kind]})
            assert r.status_code == 400 and "a page may choose random" in r.json()["message"], r.text
        assert c.app.state.registry.tables == {}


# -- who a client is ------------------------------------------------------------------------------

FORGED = [{"X-Forwarded-For": "10.0.0.7"}, {"Forwarded": "for=10.0.0.8"}, {"X-Real-IP": "10.0.0.9"},
          {"X-Forwarded-For": "10.0.0.10, 10.0.0.11"}]


def _new_table(url, headers, seed):
    body = json.dumps({"spec": "0", "players": 3, "seed": seed, "seats": PEOPLE}).encode()
    req = urllib.request.Request(f"{url}/api/tables", data=body, method="POST",
                                 headers={"Content-Type": "application/json", **headers})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, json.load(e)


def test_a_forged_proxy_header_does_not_lift_the_per_client_cap():
    with LiveServer([KLINK], bot_delay=0, watch=0, sweep=0, max_per_client=1) as srv:
        assert _new_table(srv.url, {}, 1)[0] == 200
        for i, h in enumerate(FORGED):
            status, d = _new_table(srv.url, h, 2 + i)
            assert status == 429 and d["error"] == "too-many", (h, d)
        assert [t.client for t in srv.app.state.registry.tables.values()] == ["127.0.0.1"]


def test_with_proxy_its_forwarded_for_names_the_client():
    with LiveServer([KLINK], bot_delay=0, watch=0, sweep=0, max_per_client=1, proxy="127.0.0.1") as srv:
        reg = srv.app.state.registry
        assert _new_table(srv.url, {"X-Forwarded-For": "10.0.0.1"}, 1)[0] == 200
        assert _new_table(srv.url, {"X-Forwarded-For": "10.0.0.1"}, 2)[0] == 429
        # the last address is the one the proxy appended; what the client wrote before it is not believed
        assert _new_table(srv.url, {"X-Forwarded-For": "10.0.0.1, 10.0.0.2"}, 3)[0] == 200
        assert _new_table(srv.url, {"X-Forwarded-For": "10.0.0.2, 10.0.0.1"}, 4)[0] == 429
        # no X-Forwarded-For (or a bad one): the proxy itself; Forwarded and X-Real-IP are never read
        assert _new_table(srv.url, {"Forwarded": "for=10.0.0.3"}, 5)[0] == 200
        for h in ({"X-Real-IP": "10.0.0.4"}, {"X-Forwarded-For": "nobody"}, {}):
            assert _new_table(srv.url, h, 6)[0] == 429, h
        assert sorted(t.client for t in reg.tables.values()) == ["10.0.0.1", "10.0.0.2", "127.0.0.1"]
    # a connection from elsewhere than the proxy: its header is not believed (here: the proxy is not us)
    with LiveServer([KLINK], bot_delay=0, watch=0, sweep=0, max_per_client=1, proxy="10.9.9.9") as srv:
        assert _new_table(srv.url, {"X-Forwarded-For": "10.0.0.1"}, 1)[0] == 200
        assert _new_table(srv.url, {"X-Forwarded-For": "10.0.0.2"}, 2)[0] == 429


def test_proxy_is_an_ip_address():
    assert str(check_proxy(" ::ffff:127.0.0.1 ")) == "127.0.0.1" and check_proxy(None) is None
    for bad in ("proxy.lan", "", "127.0.0.1:80", 5):
        with pytest.raises(UsageError, match="--proxy"):
            check_proxy(bad)
    from gamespec.cli import build_parser, main
    assert build_parser().parse_args(["serve", KLINK, "--proxy", "10.0.0.1"]).proxy == "10.0.0.1"
    assert build_parser().parse_args(["serve", KLINK]).proxy is None
    assert main(["serve", KLINK, "--proxy", "proxy.lan", "--port", "0"]) == 2


# -- a request that never arrives whole -----------------------------------------------------------

def _closed_while_trickling(port, head, byte=b"a", pause=0.05, most=400):
    """Send `head`, then one byte every `pause` seconds, at most `most` times: the bytes sent when the
    server closed the connection, or None if it never did."""
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    try:
        s.sendall(head)
        for sent in range(most):
            readable, _, _ = select.select([s], [], [], pause)
            if readable:
                try:
                    got = s.recv(65536)
                except ConnectionError:
                    return sent
                if not got:
                    return sent
                continue            # an answer (a 400): its end is the close
            try:
                s.sendall(byte)
            except ConnectionError:
                return sent
        return None
    finally:
        s.close()


def _get(extra=b""):
    return b"GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\n" + extra


def _answer(s) -> bytes:
    """One whole answer of /api/status (a small JSON object) on socket `s`."""
    got = b""
    for _ in range(100):
        got += s.recv(65536)
        if b"\r\n\r\n" in got and got.rstrip().endswith(b"}"):
            break
    return got


def test_a_request_that_never_arrives_whole_is_closed():
    with LiveServer([KLINK], bot_delay=0, watch=0, sweep=0, request_seconds=0.5) as srv:
        port = srv.port
        # headers that never end: one byte of a header's value after another
        assert _closed_while_trickling(port, _get(b"X-Slow: ")) is not None
        # even before the request line ends
        assert _closed_while_trickling(port, b"GET /", byte=b"x") is not None
        # a body that never ends (the headers promised 100 bytes)
        post = (b"POST /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                b"Content-Length: 100\r\n\r\n{")
        assert _closed_while_trickling(port, post, byte=b" ") is not None
        # after one answer on a kept-alive connection, the next request is timed too
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        try:
            s.sendall(_get(b"\r\n"))
            assert _answer(s).startswith(b"HTTP/1.1 200")
            s.sendall(b"GET /")
            for n in range(400):
                readable, _, _ = select.select([s], [], [], 0.05)
                if readable and not s.recv(65536):
                    break
                s.sendall(b"x")
            assert n < 399, "a trickled second request was held"
        finally:
            s.close()
        # a head larger than the bound is refused at once, whole or still coming
        for head in (_get(b"X-Big: " + b"a" * 20000 + b"\r\n\r\n"), _get(b"X-Big: " + b"a" * 20000)):
            s = socket.create_connection(("127.0.0.1", port), timeout=10)
            try:
                s.sendall(head)
                assert s.recv(65536).startswith(b"HTTP/1.1 431")
            finally:
                s.close()
        # a request sent in pieces within the bound is answered; an open page's socket is not timed
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        try:
            for piece in (b"GET /api/sta", b"tus HTTP/1.1\r\nHost: 12", b"7.0.0.1\r\n", b"\r\n"):
                s.sendall(piece)
                time.sleep(0.05)
            assert _answer(s).startswith(b"HTTP/1.1 200")
        finally:
            s.close()
        from websockets.sync.client import connect
        status, d = _new_table(srv.url, {}, 1)
        assert status == 200
        with connect(f"ws://127.0.0.1:{port}{d['seats'][0]['link'].replace('/play/', '/ws/')}",
                     origin=f"http://127.0.0.1:{port}", open_timeout=10) as ws:
            assert json.loads(ws.recv(10))["seat"] == 0
            time.sleep(1.5)         # three times the request bound: a socket is not a request
            ws.send(json.dumps({"type": "view"}))
            assert json.loads(ws.recv(10))["seat"] == 0
