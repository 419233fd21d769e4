"""Strength of the search bots: ISMCTS against three random and against three greedy bots.

    python bench/strength.py                          # every spec in games/, 100 and 1000 iterations
    python bench/strength.py --games 200 --iterations 100 --workers 2 --json bench/results/strength.json
    python bench/strength.py --quick                  # a smoke run (few games, few iterations)

Each game seats one ISMCTS bot and P-1 opponents of one kind; the ISMCTS seat rotates with the game
number (so no seat has an edge) and every game has its own seed. A win shared by k players counts
1/k. Printed per spec, iteration budget and opponent: games played, the ISMCTS win rate with a 95%
Wilson interval, the rate a seat would get by chance (1/P), and the ISMCTS bot's mean milliseconds
per decision (decisions with a single legal action are answered without search and not counted).
`--max-minutes` caps each configuration's wall time: fewer games are then played, and the table says
how many. Timings on a shared machine are noisy.
"""
from __future__ import annotations

import argparse
import glob
import json
import math
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)


def one_game(path, players, iterations, opponent, seed, game_no):
    """One game: ISMCTS in seat game_no % players; returns its win share and search time."""
    import gamespec
    from gamespec.bots import make_bot, resolve
    game = _GAMES.get(path) or _GAMES.setdefault(path, gamespec.load(path))
    seat = game_no % players
    bots = [make_bot(f"ismcts:{iterations}" if p == seat else opponent, p, seed) for p in range(players)]
    s = game.new_game(players=players, seed=seed)
    searched, spent = 0, 0.0
    while not s.is_terminal:
        p = s.current_player
        v = s.view(p)
        if p == seat:
            t = time.perf_counter()
            i = resolve(v, bots[p].choose(v))
            if v.num_legal_actions > 1:
                spent += time.perf_counter() - t
                searched += 1
        else:
            i = resolve(v, bots[p].choose(v))
        s.apply(s.legal_actions()[i])
    share = 1.0 / len(s.winners) if seat in s.winners else 0.0
    return {"share": share, "searched": searched, "seconds": spent}


_GAMES = {}


def wilson(wins, n, z=1.96):
    if n == 0:
        return (None, None)
    p = wins / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, c - h), min(1.0, c + h))


def run_config(ex, path, players, iterations, opponent, games, seed, max_seconds):
    """Games of one configuration (in parallel if ex is a pool), stopped early at max_seconds."""
    t0 = time.perf_counter()
    results = []
    if ex is None:
        for g in range(games):
            if results and time.perf_counter() - t0 > max_seconds:
                break
            results.append(one_game(path, players, iterations, opponent, seed + g, g))
    else:
        from concurrent.futures import FIRST_COMPLETED, wait
        pending, nxt = set(), 0
        width = ex._max_workers
        while nxt < games or pending:
            while nxt < games and len(pending) < width and (not results or time.perf_counter() - t0 <= max_seconds):
                pending.add(ex.submit(one_game, path, players, iterations, opponent, seed + nxt, nxt))
                nxt += 1
            if not pending:
                break
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            results.extend(f.result() for f in done)
            if time.perf_counter() - t0 > max_seconds:
                nxt = games     # no new games; let the running ones finish
    n = len(results)
    wins = sum(r["share"] for r in results)
    lo, hi = wilson(wins, n)
    searched = sum(r["searched"] for r in results)
    spent = sum(r["seconds"] for r in results)
    return {"spec": os.path.relpath(path, ROOT), "players": players, "iterations": iterations,
            "opponent": opponent, "games": n, "games_requested": games, "wins": wins,
            "win_rate": wins / n if n else None, "ci95": [lo, hi], "chance": 1 / players,
            "ms_per_decision": 1000 * spent / searched if searched else None,
            "decisions": searched, "wall_seconds": time.perf_counter() - t0}


def fmt_row(r):
    wr = "-" if r["win_rate"] is None else f"{100 * r['win_rate']:.1f}%"
    ci = "-" if r["ci95"][0] is None else f"[{100 * r['ci95'][0]:.1f}, {100 * r['ci95'][1]:.1f}]"
    ms = "-" if r["ms_per_decision"] is None else f"{r['ms_per_decision']:.0f}"
    name = os.path.basename(r["spec"])[:-5]
    short = "" if r["games"] >= r["games_requested"] else f" (of {r['games_requested']})"
    return (f"| {name} | {r['players']} | {r['iterations']} | {r['opponent']} | {r['games']}{short} | "
            f"{wr} | {ci} | {100 * r['chance']:.0f}% | {ms} |")


HEADER = ("| spec | P | iterations | opponents (x P-1) | games | ISMCTS win rate | 95% interval | chance | ms/decision |\n"
          "|---|---|---|---|---|---|---|---|---|")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("specs", nargs="*", help="spec files (default: games/*.yaml)")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--iterations", type=int, nargs="+", default=[100, 1000])
    ap.add_argument("--opponents", nargs="+", default=["random", "greedy"])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1000)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--max-minutes", type=float, default=float("inf"),
                    help="wall-time cap per configuration (fewer games are then played)")
    ap.add_argument("--json", metavar="OUT", help="also write the figures as JSON (rewritten after each row)")
    ap.add_argument("--quick", action="store_true", help="smoke run: 6 games, 20 and 50 iterations")
    a = ap.parse_args(argv)
    if a.quick:
        a.games, a.iterations = 6, [20, 50]
    specs = a.specs or sorted(glob.glob(os.path.join(ROOT, "games", "*.yaml")))
    ex = None
    if a.workers > 1:
        from concurrent.futures import ProcessPoolExecutor
        ex = ProcessPoolExecutor(a.workers)
    rows = []
    print(HEADER, flush=True)
    try:
        for iterations in a.iterations:
            for path in specs:
                for opp in a.opponents:
                    r = run_config(ex, os.path.abspath(path), a.players, iterations, opp, a.games, a.seed,
                                   a.max_minutes * 60)
                    rows.append(r)
                    print(fmt_row(r), flush=True)
                    if a.json:
                        with open(a.json, "w") as f:
                            json.dump({"machine_cpus": os.cpu_count(), "rows": rows}, f, indent=1)
    finally:
        if ex is not None:
            ex.shutdown(cancel_futures=True)


if __name__ == "__main__":
    main()
