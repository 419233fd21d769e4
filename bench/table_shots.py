"""The pictures of docs/play.md and docs/web.md at a round's end and at a game's end: the terminal's
text (`gamespec play`, Sushi Go, 3 players, seed 1, the person typing 1 at every prompt) and a real
browser's screenshots (`gamespec serve` in headless Chromium, Sushi Go, 3 players, seed 4, the person
clicking the first option each time).

    .venv/bin/python bench/table_shots.py                 # all four, into docs/img/
    .venv/bin/python bench/table_shots.py --out /tmp/shots --only web

Writes play-round-end.txt, play-game-end.txt, web-round-end.png, web-end.png. `--stop-at N` stops the
browser game at decision N instead of at the first round end's panel (for a "before" picture of an
older version, which shows no panel): web-round-end.png then shows the page after decision N.
Needs the web extra (uvicorn, playwright) and Chromium at /usr/bin/chromium.
"""
from __future__ import annotations

import argparse
import io
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPEC = os.path.join(ROOT, "games", "sushi_go.yaml")
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]


def terminal(out_dir):
    """The terminal's text around the first round's end and at the game's end."""
    import gamespec
    from gamespec.table.play import Output, Table
    g = gamespec.load(SPEC)
    buf = io.StringIO()

    def ask(prompt):
        buf.write(prompt + "1\n")
        return "1"
    cmd = "$ gamespec play games/sushi_go.yaml -p 3 --seed 1 --no-color   (typed: 1 at every prompt)\n"
    Table(g, "games/sushi_go.yaml", 3, 0, 1, {}, ["random"] * 3, out=Output(buf, color=False), ask=ask).run()
    text = buf.getvalue()
    mark = "── the round phase ends ──"
    first = text.index(mark)
    start = text.rindex("Since your last look:", 0, first)
    after = text.index("Your options:", first)
    rnd = cmd + "\n[... the first round ...]\n" + text[start:after] + "[... the options ...]\n"
    last = text.rindex(mark)
    start = text.rindex("Since your last look:", 0, last)
    end = cmd + "\n[... three rounds ...]\n" + text[start:]
    for name, body in (("play-round-end.txt", rnd), ("play-game-end.txt", end)):
        with open(os.path.join(out_dir, name), "w", encoding="utf-8") as f:
            f.write(body)
        print(f"wrote {os.path.join(out_dir, name)} ({body.count(chr(10))} lines)")


def web(out_dir, stop_at=None, round_name="web-round-end.png"):
    """The browser at the first round's end (its panel) and at the game's end."""
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    from playwright.sync_api import sync_playwright
    from web_live import LiveServer
    ready = """() => !document.getElementById('end').hidden ||
                     document.querySelectorAll('button.action:not([disabled])').length > 0"""
    with LiveServer([SPEC], bot_delay=0, watch=0) as srv, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1000, "height": 900})
        page.goto(srv.url + "/")
        page.wait_for_selector("#seat-0")
        page.select_option("#players", "3")
        page.wait_for_selector("#seat-2")
        page.fill("#seed", "4")
        page.click("#create")
        page.wait_for_selector("a.seat-link")
        page.goto(srv.url + page.get_attribute("a.seat-link", "href"))
        table = next(iter(srv.app.state.registry.tables.values()))
        shot_round = False
        for _ in range(2000):
            page.wait_for_function(ready, timeout=30000)
            if not shot_round:
                panel = page.query_selector("#round-end")
                seen = panel is not None and panel.is_visible()
                if seen if stop_at is None else table.state.decisions >= stop_at:
                    page.wait_for_timeout(1800)         # the last move's animation over
                    page.screenshot(path=os.path.join(out_dir, round_name), full_page=True)
                    print(f"wrote {os.path.join(out_dir, round_name)} (decision {table.state.decisions})")
                    shot_round = True
                    if stop_at is not None:
                        break
                    page.click("#round-close")
            if page.is_visible("#end"):
                page.wait_for_timeout(1800)
                page.screenshot(path=os.path.join(out_dir, "web-end.png"), full_page=True)
                print(f"wrote {os.path.join(out_dir, 'web-end.png')}")
                break
            at = page.evaluate("() => last.at")
            for _ in range(20):         # the first option (a decision of many options: its first stages)
                b = page.query_selector("button.action:not([disabled])")
                b.click()
                if "option" in (b.get_attribute("class") or "").split():
                    break
            page.wait_for_function(f"() => last.at !== {at}", timeout=30000)
        browser.close()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "img"))
    ap.add_argument("--only", choices=["terminal", "web"])
    ap.add_argument("--stop-at", type=int, help="the browser's round picture after decision N (a 'before')")
    ap.add_argument("--round-name", default="web-round-end.png")
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    if a.only != "web":
        terminal(a.out)
    if a.only != "terminal":
        web(a.out, a.stop_at, a.round_name)


if __name__ == "__main__":
    main()
