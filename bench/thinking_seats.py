"""Benchmark: simulate's thinking seats on the native engine, the game kept in C (NativeState) against
the Python State with the search in C (the path before issue 38 wired the bots to the native state).

    python bench/thinking_seats.py                          # Bali 2p, Klink and Bacchus 4p, 200 games
    python bench/thinking_seats.py --games 50 --json out.json

Per configuration: seat 0 ISMCTS (10 and 100 iterations), the others random, traced (simulate's
default); each seed played both ways in turn (interleaved: a busy machine slows both alike), CPU time
per decision; the median over games of each, and their ratio. Both ways give the same result (checked
per game here; tests/test_native.py holds it for every game).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import gamespec  # noqa: E402
import gamespec.simulate as S  # noqa: E402

CONFIGS = (("bali", 2), ("klink", 4), ("bacchus", 4))


def measure(stem, players, iterations, games):
    g = gamespec.load(os.path.join(ROOT, "games", stem + ".yaml"))
    kinds = [f"ismcts:{iterations}"] + ["random"] * (players - 1)
    real = S._on_native_state
    S.play_one(g, players, 10 ** 6, None, kinds, engine="native")      # warm up (the builds)
    per = {"native_state": [], "python_state": []}
    try:
        for seed in range(games):
            got = {}
            for mode in per:
                S._on_native_state = real if mode == "native_state" else (lambda *a, **k: None)
                c = time.process_time()
                r = S.play_one(g, players, seed, None, kinds, engine="native", trace=True)
                per[mode].append((time.process_time() - c) / max(1, r["decisions"]) * 1e6)
                r.pop("seconds")
                got[mode] = r
            if got["native_state"] != got["python_state"]:
                raise SystemExit(f"{stem} seed {seed}: the two ways gave different games")
    finally:
        S._on_native_state = real
    a, b = statistics.median(per["python_state"]), statistics.median(per["native_state"])
    return {"spec": stem, "players": players, "ismcts_iterations": iterations, "games": games,
            "us_per_decision_python_state": a, "us_per_decision_native_state": b, "ratio": a / b}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=200, help="games per figure (default 200)")
    ap.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    a = ap.parse_args(argv)
    rows = []
    for it in (10, 100):
        for stem, players in CONFIGS:
            r = measure(stem, players, it, a.games)
            rows.append(r)
            print(f"{stem} {players}p, ISMCTS {it} iterations vs random, traced: CPU µs per decision: Python State "
                  f"+ search in C {r['us_per_decision_python_state']:.0f}, NativeState "
                  f"{r['us_per_decision_native_state']:.0f} ({r['ratio']:.2f}x)", flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
