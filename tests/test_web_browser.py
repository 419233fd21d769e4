"""gamespec serve in a real browser: headless Chromium (Debian's /usr/bin/chromium, driven by
Playwright's Python client) starts a game of each spec in the lobby and plays it to the end screen by
clicking the action buttons; designer mode shows a broken spec's errors in the page and restarts the
game when it is fixed. Set GAMESPEC_WEB_SHOTS=docs/img to write the screenshots of docs/web.md (those
at a round's end and a game's end: bench/table_shots.py)."""
from __future__ import annotations

import os
import random
import re
import shutil
import time

import pytest

CHROMIUM = "/usr/bin/chromium"
if not os.path.exists(CHROMIUM):
    pytest.skip(f"{CHROMIUM} is absent (apt-get install chromium): the browser tests need it",
                allow_module_level=True)
pytest.importorskip("uvicorn", reason="the web extra is not installed: pip install '.[web]'")
pytest.importorskip("playwright", reason="the web extra is not installed: pip install '.[web]'")

from playwright.sync_api import sync_playwright  # noqa: E402

from helpers import GAMES, ROOT, library_slow  # noqa: E402
from web_live import LiveServer  # noqa: E402

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
GAME_SECONDS = 1800         # a last resort only (a hung page): clicks are bounded, each wait by 30 s
SHOTS = os.environ.get("GAMESPEC_WEB_SHOTS")


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
        page.wait_for_timeout(1800)          # the last move's animation over
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


# What a table must never look like: a card over another card (a fanned row hides names and count
# badges), a count badge over another card, a card out of the frame or the seat's area it is in (a
# wrapped fanned row stuck out on the left).
LAYOUT_FAULTS = """() => {
  const out = [], r = (e) => e.getBoundingClientRect();
  const cut = (a, b) => Math.max(0, Math.min(a.right, b.right) - Math.max(a.left, b.left)) *
                        Math.max(0, Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top));
  const name = (e) => (e.closest('.zone') || {dataset: {}}).dataset.zone + ' ' + (e.title || '');
  const moving = (e) => e.getAnimations().some((x) => x.playState === 'running');   // a card flying in
  for (const row of document.querySelectorAll('.cards')) {
    const cards = [...row.querySelectorAll(':scope > .card')].filter((e) => !moving(e));
    cards.forEach((a, i) => {
      cards.slice(i + 1).forEach((b) => { if (cut(r(a), r(b)) > 1) out.push('cards overlap: ' + name(a) + ' / ' + name(b)); });
      const badge = a.querySelector('.count');
      if (badge) cards.forEach((b) => { if (b !== a && cut(r(badge), r(b)) > 1) out.push('a count badge covers a card: ' + name(a) + ' over ' + name(b)); });
      const box = a.closest('.frame, .seat');
      if (box) {
        const c = r(a), f = r(box);
        if (c.left < f.left - 1 || c.right > f.right + 1 || c.top < f.top - 1 || c.bottom > f.bottom + 1)
          out.push('a card sticks out of its frame: ' + name(a));
      }
    });
  }
  return out;
}"""


def _layout_ok(page):
    page.wait_for_function("() => document.getAnimations().every((a) => a.playState !== 'running')",
                           timeout=30000)
    faults = page.evaluate(LAYOUT_FAULTS)
    assert not faults, faults[:10]


READY = """() => !document.getElementById('end').hidden ||
                 document.querySelectorAll('button.action:not([disabled])').length > 0"""


def _decide(page, rng):
    """Click a random enabled button until one plays an option (a decision of many options comes in
    stages: a stage's button only opens the next stage)."""
    for _ in range(50):
        b = rng.choice(page.query_selector_all("button.action:not([disabled])"))
        leaf = "option" in (b.get_attribute("class") or "").split()
        b.click()
        if leaf:
            return
    pytest.fail("no option played after 50 clicks on stages")


def _play_to_the_end(page, rng, shots=False):
    start = time.monotonic()
    clicks = 0
    for _ in range(5000):
        page.wait_for_function(READY, timeout=30000)
        if page.is_visible("#end"):
            return clicks, time.monotonic() - start
        if shots and clicks == 6:
            _shot(page, "game")
        _decide(page, rng)
        clicks += 1
        assert time.monotonic() - start < GAME_SECONDS, f"the game took more than {GAME_SECONDS} s"
    pytest.fail("no end after 5000 clicks")


@pytest.mark.parametrize("path", library_slow(GAMES, ids=lambda p: os.path.basename(p)[:-5]))    # library: slow run
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
            who = "you" if p == 0 else f"player {p}"
            assert f"{who}: {score}" in text
        assert page.inner_text("#transcript").count("\n") >= clicks
        # the end screen shows the final table: every seat's area with its cards and its score
        assert page.locator("#me .seat.mine").count() == 1
        assert page.locator("#others .seat").count() == table.players - 1
        for p, score in enumerate(table.state.scores):
            assert f"score {score}" in page.inner_text(f".seat[data-seat='{p}']")
        # a card drawn for each zone the seat sees a card in (a pile shows its top), five at least
        shown = sum(any(c is not None for c in z["cards"]) for z in table.message(0)["zones"].values())
        assert page.locator(".card-svg").count() >= min(5, shown) > 0
        assert page.locator(".chip.winner").count() == len(table.state.winners)
        _layout_ok(page)                # the final table: every card and badge readable
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
        _layout_ok(page)
        _shot(page, "phone")
        page.click("button.action")
        page.wait_for_function("() => document.querySelectorAll('#transcript li').length > 0", timeout=30000)
        # break the spec: the page shows the errors with FILE:LINE:COL
        with open(path, "w", encoding="utf-8") as f:
            f.write(original.replace("players:", "players: [oops", 1))
        page.wait_for_selector("#errors:not([hidden])", timeout=30000)
        text = page.inner_text("#errors")
        assert re.search(re.escape(path) + r":\d+:\d+: error: ", text), text
        # a long FILE path in the error box must wrap, not widen the page
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"the page with the spec's errors is {width} px wide on a 390 px phone"
        _shot(page, "error")
        # fix it: a new game under the new rules, same seed, the errors gone
        with open(path, "w", encoding="utf-8") as f:
            f.write(original + "\n# changed\n")
        page.wait_for_selector("#errors[hidden]", state="attached", timeout=30000)
        page.wait_for_function("() => document.querySelectorAll('#transcript li').length === 0", timeout=30000)
        page.close()


def _box(page, sel):
    return page.locator(sel).first.bounding_box()


def test_the_page_is_a_card_table(browser):
    """Bali: cards as SVG (coloured by kind), zones named in the spec's words, my area at the bottom,
    the others above, the shared zones between; a move shows: the card that moved is highlighted."""
    with LiveServer([os.path.join(ROOT, "games", "bali.yaml")], bot_delay=0, watch=0) as srv:
        page = browser.new_page(viewport={"width": 1000, "height": 900})
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        link = _new_table(page, srv, seed=7, seats=["person", "random"])
        page.goto(srv.url + link)
        page.wait_for_function(READY, timeout=30000)
        text = page.inner_text("main")
        for words in ("Market", "Hand", "Stock", "Draw pile", "Supply", "VP", "Stones"):
            assert words.lower() in text.lower(), words
        assert not re.search(r"\w\[\w+\]", text), "an internal zone name (hand[1]) is shown"
        assert "start pool" not in text and "shrine played" not in text        # show: false
        others, middle, me = _box(page, "#others"), _box(page, "#middle"), _box(page, "#me")
        assert others["y"] < middle["y"] < me["y"], (others, middle, me)
        assert page.locator("#me .card-svg").count() >= 3 and page.locator(".card.back").count() >= 1
        fills = set(page.eval_on_selector_all(".card-svg rect[fill]", "els => els.map(e => e.getAttribute('fill'))"))
        assert {"#f2cf3a", "#d9534f"} & fills, fills              # banana and pepper, the spec's colours
        assert page.locator(".card.stack .count").count() >= 1     # piles as stacks with their counts
        moved = 0
        rng = random.Random(5)
        for _ in range(6):
            page.wait_for_function(READY, timeout=30000)
            if page.is_visible("#end"):
                break
            _decide(page, rng)
            page.wait_for_function("() => document.querySelectorAll('.card.moved').length > 0", timeout=30000)
            moved += 1
        assert moved >= 3
        assert "Last move" in page.inner_text("#last")
        _layout_ok(page)
        assert not errors, errors
        page.close()


def _seat_page(browser, srv, seed, seats):
    """A new table of the server's first spec, seat 0's page open on its first view: (page, the page's
    JavaScript errors as they come)."""
    page = browser.new_page(viewport={"width": 1000, "height": 900})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    link = _new_table(page, srv, seed=seed, seats=seats)
    page.goto(srv.url + link)
    page.wait_for_function(READY, timeout=30000)
    return page, errors


def test_marks_and_values_in_the_specs_words_in_the_browser(browser):
    """Hanabi: a hint on a card reads as the spec's word for it ('hinted red', presentation.marks),
    the turns-left variable's -1 as its word ('–'), and the face-down deck, whose cards carry no set
    mark, as one stack with its count (not forty card backs)."""
    with LiveServer([os.path.join(ROOT, "games", "hanabi.yaml")], bot_delay=0, watch=0) as srv:
        page, errors = _seat_page(browser, srv, seed=5, seats=["person", "random"])
        assert page.locator('.zone[data-zone="deck"] .card').count() == 1
        assert page.locator('.zone[data-zone="deck"] .card.stack .count').count() == 1
        chips = page.locator(".chip").all_inner_texts()
        assert any(re.fullmatch(r"Turns left after the deck ran out\s+–", c.strip()) for c in chips), chips
        rng = random.Random(3)
        marks = []
        for _ in range(12):                        # hints come soon: most options are hints
            page.wait_for_function(READY, timeout=30000)
            marks = page.locator("text.mark").all_text_contents()
            if marks or page.is_visible("#end"):
                break
            _decide(page, rng)
        assert marks and all(m.startswith("hinted ") for m in marks), marks
        assert not any("told_" in m for m in marks)
        assert not errors, errors
        page.close()


def test_a_public_variable_without_a_value_is_a_dash_in_the_browser(browser):
    """Coup before any action: the target (a public player variable, none) reads '–', not '?', and the
    claim ('' in the rules) reads '–' by its words."""
    with LiveServer([os.path.join(ROOT, "games", "coup.yaml")], bot_delay=0, watch=0) as srv:
        page, errors = _seat_page(browser, srv, seed=3, seats=["person", "random"])
        chips = [re.sub(r"\s+", " ", c.strip()) for c in page.locator(".chip").all_inner_texts()]
        assert "Target –" in chips and "Claim –" in chips, chips
        assert not any(c.startswith("Target ?") for c in chips), chips
        assert not errors, errors
        page.close()


def test_the_lobby_offers_a_ranged_option_as_a_number_within_its_range(browser):
    """Hearts' game_to (range: [...]): a number input bounded by the range, not a one-value list; the
    table is made with the number typed; one outside the range is refused by the form itself."""
    import gamespec
    lo, hi = gamespec.load(os.path.join(ROOT, "games", "hearts.yaml")).spec.option_ranges["game_to"]
    with LiveServer([os.path.join(ROOT, "games", "hearts.yaml")], bot_delay=0, watch=0) as srv:
        page = browser.new_page(viewport={"width": 1000, "height": 900})
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(srv.url + "/")
        page.wait_for_selector("#opt-game_to")
        box = page.locator("#opt-game_to")
        assert box.get_attribute("type") == "number"
        assert (box.get_attribute("min"), box.get_attribute("max")) == (str(lo), str(hi))
        page.fill("#opt-game_to", str(hi + 1))
        page.click("#create")
        assert page.locator("a.seat-link").count() == 0            # the form's own check: not sent
        assert not srv.app.state.registry.tables
        want = (lo + hi) // 2
        page.fill("#opt-game_to", str(want))
        page.click("#create")
        page.wait_for_selector("a.seat-link")
        table = next(iter(srv.app.state.registry.tables.values()))
        assert table.options["game_to"] == want
        assert not errors, errors
        page.close()


def test_the_status_says_a_search_bot_is_thinking(browser):
    """While an ISMCTS seat is to move the page's status reads 'player 1 is thinking…' (the message's
    `thinks`); a random seat is only 'to move'."""
    with LiveServer([os.path.join(ROOT, "games", "klink.yaml")], bot_delay=0, watch=0) as srv:
        page, errors = _seat_page(browser, srv, seed=3, seats=["person", "ismcts", "random"])
        page.evaluate("""() => { window.__statuses = [];
            new MutationObserver(() => window.__statuses.push(document.getElementById('status').textContent))
              .observe(document.getElementById('status'), {childList: true, characterData: true, subtree: true}); }""")
        rng = random.Random(1)
        for _ in range(4):
            page.wait_for_function(READY, timeout=30000)
            if page.is_visible("#end"):
                break
            _decide(page, rng)
        page.wait_for_function(READY, timeout=30000)
        seen = page.evaluate("() => window.__statuses")
        assert "player 1 is thinking…" in seen, seen
        assert "player 2 is thinking…" not in seen and not any("(bot (ismcts" in x for x in seen), seen
        assert not errors, errors
        page.close()


def _api(srv, path, body=None):
    import json
    import urllib.request
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(srv.url + path, data=data, headers={"Content-Type": "application/json"},
                                 method="GET" if body is None else "POST")
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return json.load(r)
    except urllib.error.HTTPError as e:
        return json.load(e)


def test_undo_in_the_browser(browser):
    """Two people at Bali with undo allowed: the page's undo button takes back its own last move
    (the page shows the table as it was, the history says so) or says it showed a card."""
    with LiveServer([os.path.join(ROOT, "games", "bali.yaml")], bot_delay=0, watch=0) as srv:
        page = browser.new_page(viewport={"width": 1000, "height": 900})
        page.goto(srv.url + "/")
        page.wait_for_selector("#seat-0")
        assert page.is_checked("#undo")                 # the spec's presentation.undo default
        page.fill("#seed", "3")
        page.select_option("#seat-1", "person")
        page.click("#create")
        page.wait_for_selector("a.seat-link")
        links = page.eval_on_selector_all("a.seat-link", "els => els.map(e => e.getAttribute('href'))")
        other = links[1].rsplit("/", 1)[1]
        page.goto(srv.url + links[0])
        rng = random.Random(2)
        undone = refused = 0
        for _ in range(600):
            if undone and refused or page.is_visible("#end"):
                break
            m = _api(srv, f"/api/seat/{other}")
            if m["terminal"]:
                break
            if m["actions"]:
                _api(srv, f"/api/seat/{other}/act", {"at": m["at"], "index": rng.randrange(len(m["actions"]))})
                continue
            page.wait_for_function(READY, timeout=30000)
            if page.is_visible("#end"):
                break
            at = page.evaluate("() => last.at")
            _decide(page, rng)
            page.wait_for_function(f"() => last.at !== {at}", timeout=30000)     # the new view drawn
            if not page.is_visible("#undo"):
                continue
            took = "[...document.querySelectorAll('#transcript li')].filter(li => li.textContent.includes('took back')).length"
            before = page.evaluate(f"() => {took}")
            page.click("#undo")
            page.wait_for_function(f"() => !document.getElementById('notice').hidden || {took} > {before}", timeout=30000)
            if page.is_visible("#notice"):
                notice = page.inner_text("#notice")
                assert "made something known" in notice or "led to a shuffle" in notice, notice
                refused += 1
            else:
                assert "you took back decision" in page.inner_text("#transcript")
                undone += 1
                if undone == 1:
                    _shot(page, "undo")
        assert undone >= 1 and refused >= 1, (undone, refused)
        page.close()


def test_spectators_and_a_restart_with_the_same_links(browser, tmp_path):
    """Tables saved in --state-dir: after a restart the seat's link shows the same game and plays
    on; a spectator's link shows the public view and no actions."""
    state = str(tmp_path / "state")
    spec = os.path.join(ROOT, "games", "klink.yaml")
    page = browser.new_page(viewport={"width": 1000, "height": 900})
    with LiveServer([spec], bot_delay=0, watch=0, state_dir=state) as srv:
        link = _new_table(page, srv, seed=7)
        watch = page.get_attribute("a.watch-link", "href")
        page.goto(srv.url + link)
        rng = random.Random(1)
        for _ in range(2):
            page.wait_for_function(READY, timeout=30000)
            if page.is_visible("#end"):
                break
            _decide(page, rng)
        page.wait_for_function(READY, timeout=30000)
        page.wait_for_timeout(300)
        seen = page.inner_text("#transcript")
    with LiveServer([spec], bot_delay=0, watch=0, state_dir=state) as srv2:      # a new server, same state
        page.goto(srv2.url + link)
        page.wait_for_function(READY, timeout=30000)
        assert page.inner_text("#transcript") == seen
        spectator = browser.new_page(viewport={"width": 1000, "height": 900})
        spectator.goto(srv2.url + watch)
        spectator.wait_for_function("() => document.getElementById('title').textContent.includes('watching')", timeout=30000)
        assert spectator.locator("button.action").count() == 0 and spectator.locator("#me .seat").count() == 0
        assert spectator.locator("#others .seat").count() == 3
        _layout_ok(spectator)
        _shot(spectator, "spectator")
        spectator.close()
    page.close()


def test_the_page_reconnects_by_itself(browser, tmp_path):
    """seat.js reconnects when its socket closes, without a reload: after the server closes the
    page's socket (a network cut, a proxy), and after the server restarts on the same port with
    --state-dir; each time the page shows the game as it is and plays on."""
    state = str(tmp_path / "state")
    spec = os.path.join(ROOT, "games", "bali.yaml")
    page = browser.new_page(viewport={"width": 1000, "height": 900})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    rng = random.Random(4)
    back = """() => document.getElementById('status').textContent !== 'disconnected: reconnecting…' &&
                    (!document.getElementById('end').hidden ||
                     document.querySelectorAll('button.action:not([disabled])').length > 0)"""

    def click():
        at = page.evaluate("() => last.at")
        _decide(page, rng)
        page.wait_for_function(f"() => last.at !== {at}", timeout=30000)     # played: a new view came

    def reconnected(srv):
        """The server has the page's socket again; the page has drawn the table as it is now."""
        for _ in range(300):
            if srv.app.state.server.connections() >= 1:
                break
            time.sleep(0.1)
        else:
            pytest.fail("the page did not reconnect in 30 s")
        page.wait_for_function(back, timeout=30000)
        table = next(iter(srv.app.state.registry.tables.values()))
        page.wait_for_function(f"() => last.at === {table.state.decisions}", timeout=30000)

    with LiveServer([spec], bot_delay=0, watch=0, state_dir=state) as srv:
        link = _new_table(page, srv, seed=4, seats=["person", "random"])
        page.goto(srv.url + link)
        page.wait_for_function(READY, timeout=30000)
        page.evaluate("() => { window.sameDocument = true; }")     # gone if the page were reloaded
        click()
        # 1. the server closes the socket: the page says so, reconnects and goes on
        page.wait_for_function(READY, timeout=30000)
        assert srv.drop_sockets() == 1
        page.wait_for_function("() => document.getElementById('status').textContent.includes('reconnecting')",
                               timeout=30000)
        reconnected(srv)
        assert page.evaluate("() => window.sameDocument === true")
        click()
        page.wait_for_function(READY, timeout=30000)
        port = srv.port
    # 2. the server restarts on the same port (the page keeps trying meanwhile)
    with LiveServer([spec], bot_delay=0, watch=0, state_dir=state, port=port) as srv2:
        reconnected(srv2)
        assert page.evaluate("() => window.sameDocument === true")
        table = next(iter(srv2.app.state.registry.tables.values()))
        want = table.message(0)["transcript"]
        assert page.evaluate("() => last.transcript") == want           # the game as it is, its history
        if not page.is_visible("#end"):
            click()                                                       # and it plays on
    assert not errors, errors
    page.close()
