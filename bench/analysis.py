"""Balance-study throughput: games/s with 1 and 2 local workers and with Ray (2 CPUs) on the same seeds,
Ray's overhead (start-up, and per study once it is up), and the cost per game of writing records.

    python bench/analysis.py [SPEC] [--games N] [--players P] [--out bench/results/analysis.txt]

Each configuration is timed in this process through gamespec.analysis.run_study (Ray: a local Ray with
2 CPUs started here, timed with and without its start-up). The records cost is the time to turn a
game's result into a row and write it (JSONL and CSV), per game, over the results of the same games.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

TIMING = {"seconds", "games_per_second", "decisions_per_second", "workers", "backend"}


def _same(a, b):
    return {k: v for k, v in a.items() if k not in TIMING} == {k: v for k, v in b.items() if k not in TIMING}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("spec", nargs="?", default=os.path.join(ROOT, "games", "bali.yaml"))
    ap.add_argument("--games", type=int, default=600)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--out", default=None, help="also append the lines to this file")
    a = ap.parse_args(argv)

    import gamespec
    from gamespec import analysis
    from gamespec.analysis.records import RecordWriter, make_record
    from interpreter import simulate as sim

    game = gamespec.load(a.spec)
    kw = dict(games=a.games, players=a.players, seed=0, game=game)
    lines = [f"{os.path.basename(a.spec)}, {a.games} games, {a.players} players, "
             f"{os.cpu_count()} cores, python {sys.version.split()[0]}"]

    one = analysis.run_study(a.spec, workers=1, **kw)
    two = analysis.run_study(a.spec, workers=2, **kw)
    lines.append(f"local 1 worker : {one['games_per_second']:7.1f} games/s ({one['seconds']:.2f} s)")
    lines.append(f"local 2 workers: {two['games_per_second']:7.1f} games/s ({two['seconds']:.2f} s), "
                 f"{one['seconds'] / two['seconds']:.2f}x one worker, identical: {_same(one, two)}")

    try:
        import ray
    except ImportError:
        lines.append("ray: not installed (pip install 'gamespec[ray]')")
    else:
        t0 = time.perf_counter()
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
        up = time.perf_counter() - t0
        try:
            first = analysis.run_study(a.spec, backend="ray", **kw)     # workers start, load the spec
            again = analysis.run_study(a.spec, backend="ray", **kw)     # warm workers
        finally:
            ray.shutdown()
        lines.append(f"ray (2 CPUs)   : start-up {up:.2f} s; first study {first['games_per_second']:7.1f} games/s "
                     f"({first['seconds']:.2f} s), warm {again['games_per_second']:7.1f} games/s "
                     f"({again['seconds']:.2f} s); warm vs 2 local workers: "
                     f"{again['seconds'] / two['seconds']:.2f}x the time, "
                     f"+{(again['seconds'] - two['seconds']) / a.games * 1e3:.2f} ms per game; "
                     f"identical: {_same(one, first) and _same(one, again)}")

    # the cost of records: make the row and write it, per game, over the same games' results
    results = [sim.play_one(game, a.players, s, game.check_options({})) for s in range(min(a.games, 300))]
    opts = game.check_options({})
    with tempfile.TemporaryDirectory() as d:
        for ext in ("jsonl", "csv"):
            path = os.path.join(d, f"r.{ext}")
            reps = 20
            t0 = time.perf_counter()
            for _ in range(reps):
                with RecordWriter(path) as w:
                    for r in results:
                        w.write(make_record(r, game.name, game.spec.sha256, a.players, opts))
            per = (time.perf_counter() - t0) / (reps * len(results))
            game_s = one["seconds"] / a.games
            lines.append(f"records {ext:<5}: {per * 1e6:6.1f} µs per game (row + write + flush), "
                         f"{100 * per / game_s:.2f}% of a game's {game_s * 1e3:.1f} ms; "
                         f"{os.path.getsize(path) / len(results):.0f} bytes per game")
    text = "\n".join(lines)
    print(text)
    if a.out:
        with open(a.out, "a", encoding="utf-8") as f:
            f.write(time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()) + "\n" + text + "\n\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
