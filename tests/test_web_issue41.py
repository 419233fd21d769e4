"""Issue 41, the browser: the final ranking in the spec's order with ties and the tie-break
(gamespec/web/messages.py final_ranking), the "Game over" banner in sight on a phone, a card on
the table that can be clicked to pick it (static/seat.js pickableCards)."""
from __future__ import annotations

import os
import random
from types import SimpleNamespace

import pytest

from gamespec.web.messages import final_ranking

from helpers import ROOT

SHOTS = os.environ.get("GAMESPEC_WEB_SHOTS")


def _rs(winner="highest"):
    return SimpleNamespace(winner=winner, spec=SimpleNamespace(tie_breakers=[]))


def test_the_ranking_follows_the_specs_scoring_and_marks_ties_and_the_tie_break():
    r = final_ranking(_rs(), [10, 30, 20, 30], [3])        # 1 and 3 tied on 30, the tie-break chose 3
    assert [x["seat"] for x in r["ranking"]] == [3, 1, 2, 0]
    assert [x["place"] for x in r["ranking"]] == [1, 2, 3, 4]
    assert r["tie_break"] == {"among": [1, 3], "chosen": [3], "rule": []}
    assert r["rule"] == "the highest score wins"
    low = final_ranking(_rs("lowest"), [10, 30, 10, 5], [3])
    assert [x["seat"] for x in low["ranking"]] == [3, 0, 2, 1] and "tie_break" not in low
    assert [x["place"] for x in low["ranking"]] == [1, 2, 2, 4]          # a shared place
    assert [x["tied"] for x in low["ranking"]] == [False, True, True, False]
    shared = final_ranking(_rs(), [7, 7, 1], [0, 1])                    # a shared win: no tie-break
    assert [x["place"] for x in shared["ranking"]] == [1, 1, 3] and "tie_break" not in shared


def test_a_real_tie_break_is_named_in_the_rules_words():
    import gamespec
    g = gamespec.load(os.path.join(ROOT, "games", "bali.yaml"))
    rs = g.ruleset(2, g.check_options({}))
    r = final_ranking(rs, [40, 40], [1])
    assert r["tie_break"]["chosen"] == [1] and r["tie_break"]["rule"] and all(isinstance(x, str) for x in r["tie_break"]["rule"])


CHROMIUM = "/usr/bin/chromium"


@pytest.fixture(scope="module")
def browser():
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is absent: the browser tests need it")
    pytest.importorskip("playwright")
    from playwright.sync_api import sync_playwright
    from test_web_browser import ARGS
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield b
        finally:
            b.close()


def _shot(page, name):
    if SHOTS:
        os.makedirs(SHOTS, exist_ok=True)
        page.wait_for_timeout(1800)
        page.screenshot(path=os.path.join(SHOTS, f"web-{name}.png"))


def test_on_a_phone_the_end_is_in_sight_ranked_and_cards_can_be_picked_on_the_table(browser):
    from test_web_browser import READY, _decide, _new_table
    from web_live import LiveServer
    with LiveServer([os.path.join(ROOT, "games", "sushi_go.yaml")], bot_delay=0, watch=0) as srv:
        page = browser.new_page(viewport={"width": 390, "height": 844}, device_scale_factor=2)
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        link = _new_table(page, srv, seed=4)
        table = next(iter(srv.app.state.registry.tables.values()))
        page.goto(srv.url + link)
        rng = random.Random(1)
        picked = 0
        for _ in range(400):
            page.wait_for_function(READY, timeout=30000)
            if page.is_visible("#end"):
                break
            cards = page.query_selector_all(".card.pickable")
            at = table.state.decisions
            if cards and picked < 3:            # pick by clicking the card itself
                c = rng.choice(cards)
                want = c.get_attribute("aria-label")
                c.scroll_into_view_if_needed()
                c.click()
                page.wait_for_function(f"() => !document.querySelector('.card.pickable') || "
                                       f"document.querySelectorAll('#transcript li').length > {at}", timeout=30000)
                page.wait_for_function(READY, timeout=30000)
                assert table.state.decisions > at
                assert want.replace("pick ", "") in page.text_content("#transcript")     # (folded on a phone)
                picked += 1
                continue
            page.evaluate("window.scrollTo(0, document.body.scrollHeight)")     # down at the buttons
            _decide(page, rng)
        assert page.is_visible("#end") and picked == 3
        page.wait_for_timeout(300)
        box = page.locator("#end").bounding_box()
        assert 0 <= box["y"] < 844 / 2, box          # the banner is in sight, at the top
        # the ranking: the spec's order (winners first, then highest score), every seat once
        st = table.state
        seats = [int(x) for x in page.eval_on_selector_all("#scores li", "els => els.map(e => e.dataset.seat)")]
        assert sorted(seats) == list(range(st.num_players))
        assert seats[:len(st.winners)] == sorted(st.winners)
        rest = seats[len(st.winners):]
        assert [st.scores[p] for p in rest] == sorted((st.scores[p] for p in rest), reverse=True)
        assert "Ranked as the rules score: the highest score wins" in page.inner_text("#end")
        _shot(page, "phone-end")
        assert not errors, errors
        page.close()


def test_the_lobby_says_what_each_option_does():
    from gamespec.web.tables import SpecFile
    d = SpecFile(os.path.join(ROOT, "games", "bali.yaml")).describe("0")
    assert d["options"]["oracle"]["doc"].startswith("Oracle variant") and d["options"]["demon"]["doc"]
    assert d["options"]["oracle"]["default"] is False


def test_the_lobby_page_shows_the_option_docs(browser):
    from web_live import LiveServer
    with LiveServer([os.path.join(ROOT, "games", "bali.yaml")], bot_delay=0, watch=0) as srv:
        page = browser.new_page(viewport={"width": 1000, "height": 900})
        page.goto(srv.url + "/")
        page.wait_for_selector("#seat-0")
        text = page.inner_text("#options")
        assert "oracle" in text and "Oracle variant: 4 random offerings face down" in text
        page.close()


def _person_draws_until_staged(page, table, limit=300):
    """Bacchus: the person (seat 0) draws an action card while it can, until a decision comes in
    stages (the message's `stages`); the other buttons otherwise."""
    from test_web_browser import READY
    for _ in range(limit):
        page.wait_for_function(READY, timeout=30000)
        assert not page.is_visible("#end"), "the game ended before a decision of many options"
        if page.evaluate("() => !!last.stages"):
            return
        at = page.evaluate("() => last.at")
        draw = page.query_selector("button.action.option:not([disabled]):text-is('draw an action card')")
        (draw or page.query_selector_all("button.action.option:not([disabled])")[0]).click()
        page.wait_for_function(f"() => last.at !== {at}", timeout=30000)
    pytest.fail("no decision of many options")


def test_many_options_are_chosen_in_stages_in_the_browser(browser):
    """Bacchus at 4 players: a decision of more than 12 options shows one stage at a time (the
    action, the card, the column), each value with its count; back goes up a stage; a card on the
    table picks the card stage's value; the last stage's button plays that option."""
    from gamespec.table.stages import THRESHOLD
    from web_live import LiveServer
    with LiveServer([os.path.join(ROOT, "games", "bacchus.yaml")], bot_delay=0, watch=0) as srv:
        page = browser.new_page(viewport={"width": 1000, "height": 900})
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(srv.url + "/")
        page.wait_for_selector("#seat-0")
        page.select_option("#players", "4")
        page.wait_for_selector("#seat-3")
        page.fill("#seed", "1")
        page.click("#create")
        page.wait_for_selector("a.seat-link")
        link = page.get_attribute("a.seat-link", "href")
        table = next(iter(srv.app.state.registry.tables.values()))
        assert table.players == 4
        page.goto(srv.url + link)
        _person_draws_until_staged(page, table)
        msg = table.message(0)
        root = msg["stages"]
        assert len(msg["actions"]) > THRESHOLD and page.evaluate("() => last.stages") == root
        buttons = page.query_selector_all("#actions button.action")
        assert [b.get_attribute("data-choice") for b in buttons] == [str(k) for k in range(len(root["choices"]))]
        assert f"{len(msg['actions'])} options, in stages" in page.inner_text("#stage")
        assert page.locator("button.stage-back").count() == 0          # the first stage: no back
        k = [c["label"] for c in root["choices"]].index("send")
        send = root["choices"][k]["next"]
        stage_button = page.locator(f"#actions button[data-choice='{k}']")
        assert stage_button.text_content().split() == ["send", str(root["choices"][k]["count"])]
        stage_button.click()
        assert page.inner_text("#stage") == "send — choose card"
        assert page.locator("#actions button.action").count() == len(send["choices"])
        page.click("button.stage-back")                                   # back: the first stage again
        assert "options, in stages" in page.inner_text("#stage")
        page.click(f"#actions button[data-choice='{k}']")
        # the card stage: a card of my hand on the table picks its value
        cards = page.query_selector_all("#me .card.pickable")
        assert cards, "no card to pick on the table at a card stage"
        want = cards[0].get_attribute("aria-label")
        choice = next(c for c in send["choices"] if (c.get("full") or c["label"]) == want)
        cards[0].click()
        assert "next" in choice                                          # on to the column stage
        col = choice["next"]
        assert page.inner_text("#stage") == f"send · {choice['label']} — choose column"
        assert page.locator(".card.pickable").count() == 0                # no card stage now
        assert [b.inner_text() for b in page.query_selector_all("#actions button.action")] == \
            [c["label"] for c in col["choices"]]
        leaf = col["choices"][-1]
        at = page.evaluate("() => last.at")
        n = len(table.actions)
        expect = table.state.legal_actions()[table.state.view(0).legal_actions[leaf["option"]].index] \
            .to_json(label=False)
        page.click(f"#actions button[data-index='{leaf['option']}']")
        page.wait_for_function(f"() => last.at !== {at}", timeout=30000)
        assert table.actions[n] == expect
        assert "send from " + leaf["label"] in page.inner_text("#transcript")
        assert not errors, errors
        page.close()


def test_a_round_end_in_the_browser(browser):
    """Sushi Go: at each round's end the page shows the terminal's block (what was scored for every
    player, how in the rules' words, who did best) as a panel; Close hides it."""
    from test_web_browser import READY, _decide, _new_table
    from web_live import LiveServer
    with LiveServer([os.path.join(ROOT, "games", "sushi_go.yaml")], bot_delay=0, watch=0) as srv:
        rng = random.Random(6)
        page = browser.new_page(viewport={"width": 1000, "height": 900})
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        link = _new_table(page, srv, seed=4)
        table = next(iter(srv.app.state.registry.tables.values()))
        page.goto(srv.url + link)
        page.wait_for_function(READY, timeout=30000)      # the first message drawn (the title is its)
        assert page.inner_text("#title").endswith("you are player 0 of 2")
        shown = 0
        for _ in range(400):
            page.wait_for_function(READY, timeout=30000)
            if page.is_visible("#round-end"):
                r = table.message(0)["round_end"]
                assert r is not None and page.evaluate("() => last.round_end.at") == r["at"]
                text = page.inner_text("#round-end")
                assert page.inner_text("#round-title") == "The round phase ends"
                for x in r["lines"][1:]:
                    assert x["text"].strip() in text
                assert "you" in text and "player 1" in text and "seat" not in text
                assert "how (the rules):" in text and "best round_pts this round:" in text
                shown += 1
                if shown == 1:              # (its picture: bench/table_shots.py, docs/img/web-round-end.png)
                    page.click("#round-close")
                    assert not page.is_visible("#round-end")
            if page.is_visible("#end"):
                break
            at = page.evaluate("() => last.at")
            _decide(page, rng)
            page.wait_for_function(f"() => last.at !== {at}", timeout=30000)
            assert not page.is_visible("#round-end") or table.message(0)["round_end"]["at"] > at  # a decision hides it
        assert page.is_visible("#end") and shown == 3          # three rounds, the last one beside the end
        assert page.is_visible("#round-end") and "Game over" in page.inner_text("#end-title")
        assert not errors, errors
        page.close()
