"""gamespec serve (docs/web.md) through Starlette's TestClient: the lobby and the JSON API, games of
every spec played over the seats' sockets with every message checked against the seat's view (the
same bytes under determinization, different when a card the seat knows changes), forged and bad
requests refused with the game untouched, designer mode. Needs the web extra; skipped without it."""
from __future__ import annotations

import faulthandler
import json
import os
import random
import re
import shutil
import time

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install '.[web]'")
pytest.importorskip("httpx", reason="the web extra is not installed: pip install '.[web]'")

import warnings  # noqa: E402

with warnings.catch_warnings():             # Starlette >= 1.x would rather have httpx2; httpx still works
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from gamespec.web import create_app  # noqa: E402
from gamespec.web.messages import encode  # noqa: E402
from helpers import GAMES, LIBRARY_GAMES, ROOT, library_slow  # noqa: E402
from gamespec.interpreter.determinize import relabel  # noqa: E402
from web_live import undo_in_worlds  # noqa: E402

MAX_SECONDS = 1200         # a last resort only: every game loop is bounded by the game's decision budget
JSON = {"Content-Type": "application/json"}


@pytest.fixture(autouse=True)
def watchdog():
    """A socket read that never returns must not hang the run: dump the stacks and exit."""
    faulthandler.dump_traceback_later(600, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


def _client(paths, **kw):
    kw.setdefault("bot_delay", 0)
    kw.setdefault("watch", 0)
    kw.setdefault("allow_hosts", ("testserver",))     # TestClient's sockets say Host: testserver
    return TestClient(create_app(paths, **kw), base_url="http://127.0.0.1")


def _table(client, spec="0", players=None, seats=None, seed=11, options=None, undo=False):
    specs = client.get("/api/specs").json()["specs"]
    s = next(x for x in specs if x["id"] == spec)
    players = players or s["min_players"]
    r = client.post("/api/tables", json={"spec": spec, "players": players, "seed": seed, "undo": undo,
                                         "options": options or {}, "seats": seats or ["person"] * players})
    assert r.status_code == 200, r.text
    d = r.json()
    table = client.app.state.registry.tables[d["table"]]
    tokens = [x["link"].rsplit("/", 1)[1] if x["link"] else None for x in d["seats"]]
    return table, tokens


def _known_swap(s, p, rng):
    """A copy of s with a card p knows exchanged with a card of another face elsewhere (None if none)."""
    rs = s.rs
    bit = 1 << p
    known = [c for c in range(rs.ncards) if s._vis(c) & bit]
    rng.shuffle(known)
    for c in known[:5]:
        others = [x for x in range(rs.ncards) if rs.face_of[x] != rs.face_of[c] and s.loc[x] != s.loc[c]]
        if others:
            x = rng.choice(others)
            m = list(range(rs.ncards))
            m[c], m[x] = x, c
            return relabel(s, m, p, rng)
    return None


# -- no leaks over the wire --------------------------------------------------------------------

# the seed games, and test specs with out-of-turn decisions (reaction windows) and team state
WIRE_SPECS = GAMES + [os.path.join(os.path.dirname(os.path.abspath(__file__)), "specs", f"{n}.yaml")
                      for n in ("bluff", "snap", "bags")]


@pytest.mark.parametrize("path", library_slow(WIRE_SPECS, ids=lambda p: os.path.basename(p)[:-5]))  # library: slow run
def test_every_message_is_the_seats_view_and_nothing_more(path):
    _leak_games(path, [(None, 3)] if path in GAMES else [(None, 3), ("max", 4), (None, 5)])   # short games: more


@pytest.mark.slow
@pytest.mark.parametrize("path", GAMES, ids=lambda p: os.path.basename(p)[:-5])
def test_every_message_is_the_seats_view_at_the_most_players(path):
    _leak_games(path, [("max", 4), (None, 5)])


UNDO_ASKED = 0.3            # how often a seat asks to take back a decision, in the leak games
UNDO_MAX = 25               # decisions taken back per game at most (each one is a decision more to play)


def _leak_games(path, games):
    """Games with every seat a person on its own socket, undo allowed and asked for now and then:
    every message compared with the messages of worlds the seat cannot tell apart (and of one it
    can), the answer to every undo too."""
    rng = random.Random(5)
    checked = changed = messages = 0
    undos = {"taken-back": 0, "undo-revealed": 0, "undo-shuffled": 0, "undo-too-late": 0}
    worlds = 0
    # a game whose every decision shows or shuffles a card (a card drawn each turn) never takes one back
    back = path not in LIBRARY_GAMES

    def enough():
        return checked > 50 and changed > 0 and (undos["taken-back"] or not back) and sum(undos.values()) >= 5 \
            and worlds > 0

    def tables():          # the games asked for; then more while a short game (a poker hand) left too few
        yield from games
        for k in range(40):
            if enough():
                return
            yield ("max" if k % 2 else None), 100 + k

    with _client([path]) as client:
        for players, seed in tables():
            spec = client.get("/api/specs").json()["specs"][0]
            n = spec["max_players"] if players == "max" else spec["min_players"]
            table, tokens = _table(client, players=n, seed=seed, undo=True)
            html = {client.get(f"/play/{t}").content for t in tokens}
            assert len(html) == 1          # the page itself is the same for every seat: data comes by socket
            socks = [client.websocket_connect(f"/ws/{t}") for t in tokens]
            ws = [s.__enter__() for s in socks]
            taken = 0
            played = []                    # each decision still in the game as its decider saw it
            try:
                got = [w.receive_text() for w in ws]
                start = time.monotonic()
                for _ in range(2 * (table.state.rs.max_decisions + UNDO_MAX + 1)):
                    s = table.state
                    for q in range(n):
                        # the bytes the seat got are the bytes of a world it cannot tell from this one
                        messages += 1
                        assert got[q] == encode(table.message(q)), "a seat was sent something else than its view"
                        if messages % 7 == 0 and client.get(f"/api/seat/{tokens[q]}").text != got[q]:
                            pytest.fail("the JSON API and the socket disagree")
                        for k in range(1 if checked > 40 else 2):
                            d = s.determinize(q, random.Random(rng.getrandbits(32)))
                            assert encode(table.message(q, d)) == got[q], \
                                f"seat {q}'s message changes under determinization at decision {s.decisions}"
                            checked += 1
                        if rng.random() < 0.3:
                            d = _known_swap(s, q, rng)
                            if d is not None and d.observation(q) != s.observation(q):
                                assert encode(table.message(q, d)) != got[q], \
                                    f"seat {q} knows a card that changed, yet its message is the same"
                                changed += 1
                    if s.is_terminal or time.monotonic() - start > MAX_SECONDS:
                        break
                    if played and taken < UNDO_MAX and rng.random() < UNDO_ASKED:
                        mover = table.deciders[-1]
                        assert json.loads(got[mover])["can_undo"] and \
                            not any(json.loads(g)["can_undo"] for q, g in enumerate(got) if q != mover)
                        if n > 1 and rng.random() < 0.15:      # another seat asks: too late, whatever the cards
                            q = rng.choice([x for x in range(n) if x != mover])
                            ws[q].send_text(json.dumps({"type": "undo", "at": s.decisions}))
                            err = json.loads(ws[q].receive_text())
                            assert err["type"] == "error" and err["error"] == "undo-too-late", err
                            undos["undo-too-late"] += 1
                        else:
                            want, k = undo_in_worlds(table, played[-1], rng)
                            worlds += k
                            ws[mover].send_text(json.dumps({"type": "undo", "at": s.decisions}))
                            if want == "taken-back":
                                got = [w.receive_text() for w in ws]
                                assert all(json.loads(g)["type"] == "view" for g in got)
                                assert table.state.decisions == s.decisions - 1 and table.notes
                                played.pop()
                                taken += 1
                            else:
                                err = json.loads(ws[mover].receive_text())
                                assert err["type"] == "error" and err["error"] == want, err
                                assert table.state is s
                            undos[want] += 1
                            if want == "taken-back":
                                continue        # the new messages are checked at the top
                    p = s.current_player
                    msg = json.loads(got[p])
                    assert msg["actions"] and all(not json.loads(g)["actions"] for q, g in enumerate(got) if q != p)
                    i = rng.randrange(len(msg["actions"]))
                    ws[p].send_text(json.dumps({"type": "act", "at": msg["at"], "index": i}))
                    played.append(msg["actions"][i]["action"])
                    got = [w.receive_text() for w in ws]
                assert table.state.is_terminal
                end = json.loads(got[0])
                assert end["terminal"] and end["scores"] == list(table.state.scores)
                notes = [x for x in end["transcript"] if "took back decision" in x]
                assert len(notes) == taken == len(table.notes)
            finally:
                for s_ in socks:
                    s_.__exit__(None, None, None)
    print(f"\n{os.path.basename(path)}: {len(games)} game(s), {messages} messages, {checked} determinizations "
          f"compared byte for byte, {changed} known-card changes detected; undo: {undos}, its answer compared "
          f"in {worlds} worlds")
    assert checked > 50 and changed > 0
    assert (undos["taken-back"] or not back) and sum(undos.values()) >= 5 and worlds > 0, undos


def test_a_message_names_no_card_id_seed_or_token():
    with _client([os.path.join(ROOT, "games", "klink.yaml")]) as client:
        table, tokens = _table(client, seed=987654321)
        msg = client.get(f"/api/seat/{tokens[0]}").json()
        text = json.dumps(msg)
        assert "987654321" not in text and not any(t in text for t in tokens)
        assert set(msg) == {"type", "game", "players", "seat", "seats", "thinks", "at", "phase", "to_move", "terminal",
                            "zones", "variables", "cards", "actions", "transcript", "errors", "presentation", "undo",
                            "can_undo", "stages", "round_end"}
        other = client.get(f"/api/seat/{tokens[1]}").json()
        assert other["seat"] == 1 and msg["seat"] == 0
        # two tables at once: a seat's link reaches its own table only
        table2, tokens2 = _table(client, seed=987654321)
        assert not set(tokens) & set(tokens2)
        before = _snapshot(table2)
        p = table.state.current_player
        r = client.post(f"/api/seat/{tokens[p]}/act", json={"at": table.state.decisions, "index": 0})
        assert r.status_code == 200 and table.state.decisions == 1
        assert _snapshot(table2) == before


# -- forged and bad requests --------------------------------------------------------------------

def _snapshot(table):
    return json.dumps(table.state.to_json(), sort_keys=True)


def test_bad_and_forged_requests_are_refused_and_change_nothing():
    with _client([os.path.join(ROOT, "games", "bali.yaml")]) as client:
        table, tokens = _table(client, players=2)
        p = table.state.current_player
        other = 1 - p
        with client.websocket_connect(f"/ws/{tokens[p]}") as me, client.websocket_connect(f"/ws/{tokens[other]}") as them:
            m0 = json.loads(me.receive_text())
            them.receive_text()
            me.send_text(json.dumps({"type": "act", "at": m0["at"], "index": 0}))     # one real move first
            m1, t1 = json.loads(me.receive_text()), json.loads(them.receive_text())
            mover = table.state.current_player
            sock = {p: me, other: them}
            msg = {p: m1, other: t1}
            idle = 1 - mover
            before = _snapshot(table)
            cases = [
                (sock[idle], {"type": "act", "at": msg[idle]["at"], "index": 0}, "not-your-turn"),   # another seat's move
                (sock[mover], {"type": "act", "at": m0["at"], "index": 0}, "stale"),                 # an old page's click
                (sock[mover], {"type": "act", "at": msg[mover]["at"] + 1, "index": 0}, "stale"),
                (sock[mover], {"type": "act", "at": msg[mover]["at"], "index": 10 ** 6}, "illegal"),
                (sock[mover], {"type": "act", "at": msg[mover]["at"], "index": "0"}, "illegal"),
                (sock[mover], {"type": "act", "at": msg[mover]["at"], "index": True}, "illegal"),
                (sock[mover], {"type": "act", "at": msg[mover]["at"], "action": {"action": "no-such"}}, "illegal"),
                (sock[mover], {"type": "act", "at": str(msg[mover]["at"]), "index": 0}, "bad-json"),
                (sock[mover], {"type": "act", "at": msg[mover]["at"]}, "bad-json"),
                (sock[mover], {"type": "cheat"}, "bad-json"),
                (sock[mover], [1, 2, 3], "bad-json"),
            ]
            for ws, data, kind in cases:
                ws.send_text(json.dumps(data))
                err = json.loads(ws.receive_text())
                assert err["type"] == "error" and err["error"] == kind and err["message"], (data, err)
                assert _snapshot(table) == before
            for junk in ("not json", "{", "", "\x00" * 10, "[" * 100000):
                sock[mover].send_text(junk)
                err = json.loads(sock[mover].receive_text())
                assert err["type"] == "error" and err["error"] in ("bad-json", "too-large")
                assert _snapshot(table) == before
            # the JSON API refuses the same way
            r = client.post(f"/api/seat/{tokens[idle]}/act", json={"at": msg[idle]["at"], "index": 0})
            assert r.status_code == 409 and r.json()["error"] == "not-your-turn"
            r = client.post(f"/api/seat/{tokens[mover]}/act", content=b"junk", headers=JSON)
            assert r.status_code == 400 and r.json()["error"] == "bad-json"
            r = client.post(f"/api/seat/{tokens[mover]}/act", content=b"[" * (1 << 20), headers=JSON)
            assert r.status_code == 413 and r.json()["error"] == "too-large"
            assert _snapshot(table) == before
            # an action by its JSON, as the seat sees it, is played
            a = msg[mover]["actions"][0]["action"]
            r = client.post(f"/api/seat/{tokens[mover]}/act", json={"at": msg[mover]["at"], "action": a})
            assert r.status_code == 200 and r.json()["at"] == msg[mover]["at"] + 1
            assert _snapshot(table) != before


def test_a_bad_token_is_refused_everywhere():
    with _client([os.path.join(ROOT, "games", "klink.yaml")]) as client:
        table, tokens = _table(client)
        assert all(len(t) >= 32 and re.fullmatch(r"[A-Za-z0-9_-]+", t) for t in tokens)
        assert len(set(tokens)) == len(tokens)
        before = _snapshot(table)
        for bad in ("x", tokens[0][:-1], tokens[0] + "A", "%00", tokens[0].upper()):
            assert client.get(f"/play/{bad}").status_code == 404
            r = client.get(f"/api/seat/{bad}")
            assert r.status_code == 404 and r.json()["error"] == "bad-token"
            r = client.post(f"/api/seat/{bad}/act", json={"at": 0, "index": 0})
            assert r.status_code == 404 and r.json()["error"] == "bad-token"
            with client.websocket_connect(f"/ws/{bad}") as ws:
                err = json.loads(ws.receive_text())
                assert err["error"] == "bad-token"
                with pytest.raises(Exception):
                    ws.receive_text()
        assert _snapshot(table) == before


def test_the_lobby_refuses_bad_tables_and_code_from_a_page():
    with _client([os.path.join(ROOT, "games", "bali.yaml")]) as client:
        for body, status in [
            ({"spec": "9"}, 404),
            ({"spec": "0", "players": 7}, 400),
            ({"spec": "0", "players": "2"}, 400),
            ({"spec": "0", "players": 2, "seats": ["person"]}, 400),
            ({"spec": "0", "players": 2, "seats": ["person", "os:system"]}, 400),      # no module:Class from a page
            ({"spec": "0", "players": 2, "seats": ["person", "ismcts:x"]}, 400),
            ({"spec": "0", "players": 2, "seats": ["person", "ismcts:99999999"]}, 400),        # no CPU hog
            ({"spec": "0", "players": 2, "seats": ["person", 3]}, 400),
            ({"spec": "0", "players": 2, "options": {"nope": True}}, 400),
            ({"spec": "0", "players": 2, "seed": -1}, 400),
            ({"spec": "0", "players": 2, "seed": "abc"}, 400),
            ([], 400),
        ]:
            r = client.post("/api/tables", json=body)
            assert r.status_code == status and r.json()["type"] == "error", (body, r.text)
        assert client.post("/api/tables", content=b"{", headers=JSON).status_code == 400
        assert client.app.state.registry.tables == {}
        # options are the spec's; a seed drawn by the server is never sent (it would tell every card)
        r = client.post("/api/tables", json={"spec": "0", "players": 3, "options": {"oracle": True}})
        assert r.status_code == 200, r.text
        t = client.app.state.registry.tables[r.json()["table"]]
        assert t.options["oracle"] is True and t.players == 3 and t.kinds == ["person", "random", "random"]
        assert r.json()["seed"] is None and str(t.seed) not in r.text
        r = client.post("/api/tables", json={"spec": "0", "players": 2, "seed": 12})
        assert r.json()["seed"] == 12


def test_lobby_page_and_assets():
    with _client([os.path.join(ROOT, "games", "bali.yaml"), os.path.join(ROOT, "games", "klink.yaml")]) as client:
        r = client.get("/")
        assert r.status_code == 200 and "<form" in r.text and r.headers["referrer-policy"] == "no-referrer"
        specs = client.get("/api/specs").json()
        assert [s["name"] for s in specs["specs"]] == ["Bali", "Klink"] or len(specs["specs"]) == 2
        bali = specs["specs"][0]
        assert bali["min_players"] == 2 and bali["max_players"] == 4 and set(bali["options"]) == {"oracle", "demon"}
        assert specs["bots"] == ["person", "random", "greedy", "ismcts"]
        for name in ("style.css", "lobby.js", "seat.js"):
            assert client.get(f"/static/{name}").status_code == 200
        assert client.get("/static/../tables.py").status_code == 404
        assert client.get("/static/server.py").status_code == 404


def test_bots_play_their_turns_and_the_person_sees_the_end():
    with _client([os.path.join(ROOT, "games", "klink.yaml")]) as client:
        spec = client.get("/api/specs").json()["specs"][0]
        n = spec["min_players"]
        table, tokens = _table(client, seats=(["person", "greedy", "ismcts:10"] + ["random"] * n)[:n], seed=2)
        rng = random.Random(1)
        start = time.monotonic()
        with client.websocket_connect(f"/ws/{tokens[0]}") as ws:
            msg = json.loads(ws.receive_text())
            for _ in range(5000):
                if msg["terminal"] or time.monotonic() - start > MAX_SECONDS:
                    break
                if msg["to_move"] == 0 and msg["actions"]:
                    ws.send_text(json.dumps({"type": "act", "at": msg["at"], "index": rng.randrange(len(msg["actions"]))}))
                msg = json.loads(ws.receive_text())
        assert msg["terminal"] and msg["scores"] == list(table.state.scores)
        assert any(re.match(r"\d+\. player 1: ", line) for line in msg["transcript"])
        assert any(re.match(r"\d+\. player 2: ", line) for line in msg["transcript"])
        assert msg["seats"][:3] == ["person", "bot (greedy)", "bot (ismcts:10)"]


# -- designer mode ------------------------------------------------------------------------------

def _touch(path, text):
    st = os.stat(path).st_mtime_ns
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    os.utime(path, ns=(st + 10 ** 9, st + 10 ** 9))


def test_designer_mode_shows_errors_then_restarts_with_the_new_rules(tmp_path):
    path = str(tmp_path / "klink.yaml")
    shutil.copy(os.path.join(ROOT, "games", "klink.yaml"), path)
    original = open(path, encoding="utf-8").read()
    with _client([path]) as client:
        srv = client.app.state.server
        table, tokens = _table(client, seed=21)
        first = client.get(f"/api/seat/{tokens[0]}").text
        with client.websocket_connect(f"/ws/{tokens[0]}") as ws:
            ws.receive_text()
            p = table.state.current_player
            client.post(f"/api/seat/{tokens[p]}/act", json={"at": 0, "index": 0})
            ws.receive_text()
            played = _snapshot(table)
            # a broken spec: the errors in the page, FILE:LINE:COL, the game as it was
            _touch(path, original.replace("players:", "players: [oops", 1))
            client.portal.call(srv.check_specs)
            msg = json.loads(ws.receive_text())
            assert msg["errors"] and all(re.match(re.escape(path) + r":\d+:\d+: error: ", e) for e in msg["errors"])
            assert _snapshot(table) == played and msg["at"] == 1
            assert client.get("/api/specs").json()["specs"][0]["errors"]
            # fixed: a new game under the new rules, same seed
            _touch(path, original + "\n# changed\n")
            client.portal.call(srv.check_specs)
            msg = json.loads(ws.receive_text())
            assert msg["errors"] == [] and msg["at"] == 0
            assert client.get(f"/api/seat/{tokens[0]}").text == first
            # nothing changed: nothing happens
            assert client.app.state.registry.check_specs() == []


def test_cli_serve_defaults_to_localhost_and_needs_files(capsys):
    from gamespec.cli import build_parser, main
    args = build_parser().parse_args(["serve", "games/bali.yaml"])
    assert args.host == "127.0.0.1" and args.port == 8000
    assert main(["serve", "no/such.yaml"]) == 2
    assert "no such file" in capsys.readouterr().err


def test_the_cli_imports_no_web_stack_until_serve():
    import subprocess
    import sys
    code = "import sys, gamespec.cli; gamespec.cli.build_parser(); print(sorted(m for m in ('starlette', 'uvicorn') if m in sys.modules))"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert r.returncode == 0 and r.stdout.strip() == "[]", r.stdout + r.stderr


def test_gamespec_serve_runs_on_localhost_and_stops(tmp_path):
    """The real command: listens on 127.0.0.1 (a free port here), answers, stops on SIGTERM; a port
    in use is a clear error."""
    import socket
    import subprocess
    import sys
    import urllib.request
    cmd = [sys.executable, "-m", "gamespec", "serve", os.path.join(ROOT, "games", "klink.yaml"), "--port", "0"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        line = proc.stdout.readline()
        m = re.match(r"gamespec serve: http://127\.0\.0\.1:(\d+)/", line)
        assert m, line + proc.stderr.read() if proc.poll() is not None else line
        port = int(m.group(1))
        for _ in range(100):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/specs", timeout=5) as r:
                    assert json.load(r)["specs"][0]["name"] == "Klink"
                break
            except OSError:
                time.sleep(0.1)
        else:
            pytest.fail("the server did not answer in 10 s")
        with socket.socket() as s:           # a port in use: a one-line error, exit code 2
            s.bind(("127.0.0.1", 0))
            s.listen()
            busy = s.getsockname()[1]
            r = subprocess.run(cmd[:-1] + [str(busy)], capture_output=True, text=True, cwd=ROOT, timeout=60)
            assert r.returncode == 2 and f"cannot listen on 127.0.0.1:{busy}" in r.stderr and "Traceback" not in r.stderr
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)
    assert proc.returncode is not None


def test_cli_serve_refuses_bad_seconds(capsys):
    from gamespec.cli import main
    assert main(["serve", "games/bali.yaml", "--watch", "-1"]) == 2
    assert main(["serve", "games/bali.yaml", "--bot-delay", "soon"]) == 2


def test_the_page_is_told_which_seats_think():
    """`thinks` per seat: true for a search bot (ISMCTS, a restricted kind over it), false for a
    person and for a random bot; the same for every seat's message, the spectator's too."""
    from gamespec.web.tables import Registry
    reg = Registry([os.path.join(ROOT, "games", "klink.yaml")], log=lambda *a: None)
    t = reg.create({"spec": "0", "players": 3, "seats": ["person", "ismcts:10", "random"], "seed": 4})
    msgs = [t.message(p) for p in (0, 1, 2, None)]
    assert all(m["thinks"] == [False, True, False] for m in msgs), [m["thinks"] for m in msgs]


def test_the_lobby_is_told_an_options_range():
    from gamespec.web.tables import Registry
    reg = Registry([os.path.join(ROOT, "games", "hearts.yaml"), os.path.join(ROOT, "games", "bali.yaml")],
                   log=lambda *a: None)
    hearts, bali = reg.specs["0"].describe("0"), reg.specs["1"].describe("1")
    assert hearts["options"]["game_to"]["range"] == list(reg.specs["0"].game.spec.option_ranges["game_to"])
    assert hearts["options"]["queen_breaks_hearts"]["range"] is None
    assert all(o["range"] is None for o in bali["options"].values())       # true/false options
