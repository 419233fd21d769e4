"""gamespec serve in a real browser: headless Chromium (Debian's /usr/bin/chromium, driven by
Playwright's Python client) starts a game of each spec in the lobby and plays it to the end screen by
clicking the action buttons; designer mode shows a broken spec's errors in the page and restarts the
game when it is fixed. Set GAMESPEC_WEB_SHOTS=docs/img to write the screenshots of docs/web.md."""
from __future__ import annotations

import os
import random
import re
import shutil
import socket
import threading
import time

import pytest

CHROMIUM = "/usr/bin/chromium"
if not os.path.exists(CHROMIUM):
    pytest.skip(f"{CHROMIUM} is absent (apt-get install chromium): the browser tests need it",
                allow_module_level=True)
pytest.importorskip("uvicorn", reason="the web extra is not installed: pip install '.[web]'")
pytest.importorskip("playwright", reason="the web extra is not installed: pip install '.[web]'")

import uvicorn  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from gamespec.web import create_app  # noqa: E402
from helpers import GAMES, ROOT  # noqa: E402

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
GAME_SECONDS = 240          # a browser game stops (and fails) after this long
SHOTS = os.environ.get("GAMESPEC_WEB_SHOTS")


class LiveServer:
    """uvicorn in a thread on 127.0.0.1 at a free port; stopped by the context's exit."""

    def __init__(self, paths, **kw):
        self.app = create_app(paths, **kw)
        self.server = uvicorn.Server(uvicorn.Config(self.app, log_level="warning", lifespan="on"))
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
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


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield b
        finally:
            b.close()


def _shot(page, name):
    if SHOTS:
        os.makedirs(SHOTS, exist_ok=True)
        page.screenshot(path=os.path.join(SHOTS, f"web-{name}.png"), full_page=True)


def _new_table(page, srv, seed, seats=None, spec="0"):
    page.goto(srv.url + "/")
    page.wait_for_selector("#seat-0")
    page.select_option("#spec", spec)
    page.wait_for_selector("#seat-0")
    page.fill("#seed", str(seed))
    for box in page.query_selector_all("#options input[type=checkbox]"):
        box.check()
    for p, kind in enumerate(seats or ()):
        page.select_option(f"#seat-{p}", kind)
    page.click("#create")
    page.wait_for_selector("a.seat-link")
    return page.get_attribute("a.seat-link", "href")


READY = """() => !document.getElementById('end').hidden ||
                 document.querySelectorAll('button.action:not([disabled])').length > 0"""


def _play_to_the_end(page, rng, shots=False):
    start = time.monotonic()
    clicks = 0
    for _ in range(5000):
        page.wait_for_function(READY, timeout=30000)
        if page.is_visible("#end"):
            return clicks, time.monotonic() - start
        buttons = page.query_selector_all("button.action:not([disabled])")
        if shots and clicks == 6:
            _shot(page, "game")
        rng.choice(buttons).click()
        clicks += 1
        assert time.monotonic() - start < GAME_SECONDS, f"the game took more than {GAME_SECONDS} s"
    pytest.fail("no end after 5000 clicks")


@pytest.mark.parametrize("path", GAMES, ids=lambda p: os.path.basename(p)[:-5])
def test_a_whole_game_in_the_browser(browser, path):
    first = os.path.basename(path) == "bali.yaml"         # the screenshots of docs/web.md
    with LiveServer(GAMES, bot_delay=0, watch=0) as srv:
        page = browser.new_page(viewport={"width": 1000, "height": 900})
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        link = _new_table(page, srv, seed=7, spec=str(GAMES.index(path)))
        table = next(iter(srv.app.state.registry.tables.values()))
        assert table.seed == 7 and all(v is True for v in table.options.values() if isinstance(v, bool))
        if first:
            _shot(page, "lobby")
        page.goto(srv.url + link)
        clicks, took = _play_to_the_end(page, random.Random(3), shots=first)
        text = page.inner_text("#end")
        assert table.state.is_terminal
        for p, score in enumerate(table.state.scores):         # the end screen shows every score
            who = "you" if p == 0 else f"seat {p}"
            assert f"{who}: {score}" in text
        assert page.inner_text("#transcript").count("\n") >= clicks
        if first:
            _shot(page, "end")
        assert not errors, errors
        print(f"\n{os.path.basename(path)}: a browser game, {clicks} clicks, {took:.1f} s")
        page.close()


def test_phone_sized_page_and_designer_mode_in_the_browser(browser, tmp_path):
    path = str(tmp_path / "klink.yaml")
    shutil.copy(os.path.join(ROOT, "games", "klink.yaml"), path)
    original = open(path, encoding="utf-8").read()
    with LiveServer([path], bot_delay=0, watch=0.1) as srv:
        page = browser.new_page(viewport={"width": 390, "height": 844}, device_scale_factor=2)
        link = _new_table(page, srv, seed=5)
        page.goto(srv.url + link)
        page.wait_for_function(READY, timeout=30000)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"the page is {width} px wide on a 390 px phone"
        _shot(page, "phone")
        page.click("button.action")
        page.wait_for_function("() => document.querySelectorAll('#transcript li').length > 0", timeout=30000)
        # break the spec: the page shows the errors with FILE:LINE:COL
        with open(path, "w", encoding="utf-8") as f:
            f.write(original.replace("players:", "players: [oops", 1))
        page.wait_for_selector("#errors:not([hidden])", timeout=30000)
        text = page.inner_text("#errors")
        assert re.search(re.escape(path) + r":\d+:\d+: error: ", text), text
        _shot(page, "error")
        # fix it: a new game under the new rules, same seed, the errors gone
        with open(path, "w", encoding="utf-8") as f:
            f.write(original + "\n# changed\n")
        page.wait_for_selector("#errors[hidden]", state="attached", timeout=30000)
        page.wait_for_function("() => document.querySelectorAll('#transcript li').length === 0", timeout=30000)
        page.close()
