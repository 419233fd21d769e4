"""Speed-up of `gamespec simulate --workers 2` over one worker, on a workload of at least ~10 s.

    python bench/workers.py [SPEC] [--games N] [--players P]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(spec, games, players, workers):
    env = dict(os.environ, PYTHONPATH=ROOT)
    r = subprocess.run([sys.executable, "-m", "gamespec", "simulate", spec, "--games", str(games),
                        "--players", str(players), "--workers", str(workers), "--json"],
                       env=env, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(r.stderr)
    return json.loads(r.stdout)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("spec", nargs="?", default=os.path.join(ROOT, "games", "bali.yaml"))
    ap.add_argument("--games", type=int, default=12000)
    ap.add_argument("--players", type=int, default=4)
    a = ap.parse_args(argv)
    one = run(a.spec, a.games, a.players, 1)
    two = run(a.spec, a.games, a.players, 2)
    same = {k: v for k, v in one.items() if k not in ("seconds", "games_per_second", "decisions_per_second",
                                                     "workers")} == \
        {k: v for k, v in two.items() if k not in ("seconds", "games_per_second", "decisions_per_second",
                                                  "workers")}
    print(f"{os.path.basename(a.spec)} {a.games} games, {a.players} players: 1 worker {one['seconds']:.1f} s, "
          f"2 workers {two['seconds']:.1f} s, speed-up {one['seconds'] / two['seconds']:.2f}x, "
          f"results identical: {same}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
