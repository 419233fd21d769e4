"""A balance verdict for every library game: how much the first seat matters with random seats and
with thinking seats (ISMCTS:200), rotated (every deal played once per rotation of the seats).

    python bench/library_balance.py                       # every games/*.yaml
    python bench/library_balance.py hearts spades --random-deals 100 --ismcts-deals 10
    python bench/library_balance.py --json bench/results/library_balance.json --markdown bench/results/library_balance.md

Runs `gamespec simulate SPEC --rotate --json` twice per game (random seats, then `--bot all=ismcts:200`)
at the player count bench/library.py uses, seeds from 1, and keeps from each study: the first seat's win
rate with its 95% interval against the fair share 1/P (the two-sided z-test's p), the chi-square test
of equal seat shares, and for a cooperative game the team's success rate. The JSON is rewritten after
each game, so a stopped run keeps what it finished (`--resume` skips the games already in it).
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
ALPHA = 0.05


def study(path, players, deals, bots) -> dict:
    cmd = [sys.executable, "-m", "gamespec", "simulate", path, "--players", str(players), "--games", str(deals),
           "--seed", "1", "--rotate", "--json", "--no-progress"]
    if bots:
        cmd += ["--bot", f"all={bots}"]
    t = time.time()
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if out.returncode not in (0, 1) or not out.stdout.strip():
        return {"error": (out.stderr or out.stdout).strip().splitlines()[-1:]}
    s = json.loads(out.stdout)["summary"]
    m = s.get("metrics") or {}
    fs = m.get("first_seat") or {}
    adv = s.get("seat_advantage") or {}
    row = {"games": s.get("games_finished"), "seconds": round(time.time() - t, 1), "cooperative": s.get("cooperative")}
    if s.get("cooperative"):          # the table wins together or not at all: its success and score
        row["success"] = s.get("success")
        ts = s.get("team_score") or {}
        row["team_score"] = {"mean": ts.get("mean"), "ci95": ts.get("ci95")}
    if fs:
        row["first_seat"] = {"win_rate": fs.get("win_rate"), "ci95": fs.get("ci95"), "fair": fs.get("fair"), "p": fs.get("p")}
    if adv:
        row["seat_test_p"] = adv.get("p")
    if "decided_at" in m:
        row["decided_at"] = m["decided_at"].get("mean")
    return row


def words(r) -> str:
    fs = r.get("first_seat")
    if not fs or fs.get("p") is None:
        return "no seat figure" if not r.get("cooperative") else "cooperative: no seats to compare"
    if fs["p"] < ALPHA:
        side = "more" if fs["win_rate"] > fs["fair"] else "less"
        return f"first seat wins {side} than its share"
    return "no evidence the first seat matters"


def pct(fs) -> str:
    lo, hi = fs["ci95"]
    return f"{100 * fs['win_rate']:.0f}% [{100 * lo:.0f}, {100 * hi:.0f}] (fair {100 * fs['fair']:.0f}%)"


def coop(x) -> str:
    su, ts = x.get("success") or {}, x.get("team_score") or {}
    if not su:
        return "cooperative"
    lo, hi = su["ci95"]
    return (f"team succeeds {100 * su['rate']:.0f}% [{100 * lo:.0f}, {100 * hi:.0f}], score "
            f"{ts.get('mean', 0):.1f}, {x['games']} games")


def markdown(rows) -> str:
    lines = ["| game | players | random seats: first seat | verdict | ISMCTS:200 seats: first seat | verdict |",
             "|---|---|---|---|---|---|"]
    for g, r in rows.items():
        a, b = r.get("random", {}), r.get("ismcts", {})
        cell = (lambda x: pct(x["first_seat"]) + f", {x['games']} games" if x.get("first_seat") else
                (coop(x) if x.get("cooperative") else (x.get("error") and "error" or "")))
        lines.append(f"| {g} | {r['players']} | {cell(a)} | {words(a) if a else ''} | {cell(b)} | {words(b) if b else ''} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    from library import players_for
    import gamespec
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*")
    ap.add_argument("--random-deals", type=int, default=100, help="deals of the random study (x players games)")
    ap.add_argument("--ismcts-deals", type=int, default=10, help="deals of the ISMCTS:200 study (x players games)")
    ap.add_argument("--json", default=os.path.join(HERE, "results", "library_balance.json"))
    ap.add_argument("--markdown", default=os.path.join(HERE, "results", "library_balance.md"))
    ap.add_argument("--resume", action="store_true")
    args = ap.parse_args(argv)
    rows = {}
    if args.resume and os.path.exists(args.json):
        rows = json.load(open(args.json, encoding="utf-8"))
    paths = sorted(glob.glob(os.path.join(ROOT, "games", "*.yaml")))
    if args.names:
        paths = [p for p in paths if os.path.basename(p)[:-5] in args.names]
    for path in paths:
        gid = os.path.basename(path)[:-5]
        if gid in rows:
            continue
        p = players_for(gamespec.load(path))
        r = {"players": p, "random": study(path, p, args.random_deals, None)}
        r["ismcts"] = study(path, p, args.ismcts_deals, "ismcts:200")
        rows[gid] = r
        print(gid, p, words(r["random"]), "|", words(r["ismcts"]), flush=True)
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(rows, f, indent=1)
        with open(args.markdown, "w", encoding="utf-8") as f:
            f.write(markdown(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
