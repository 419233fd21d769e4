"""Balance-study throughput: games/s with 1 and 2 local workers and with Ray (2 CPUs) on the same seeds,
Ray's overhead (start-up, and per study once it is up), and the cost per game of writing records.

    python bench/analysis.py [SPEC] [--games N] [--players P] [--out bench/results/analysis.txt]

Each configuration is timed in this process through gamespec.analysis.run_study, in interleaved rounds
(the fastest run of each kind is kept); Ray: a local Ray with 2 CPUs started here, its start-up and first
study (workers starting) reported apart. The records cost is the time to turn a
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
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out", default=None, help="also append the lines to this file")
    a = ap.parse_args(argv)

    import gamespec
    from gamespec import analysis
    from gamespec.analysis.records import RecordWriter, make_record
    from gamespec import simulate as sim

    game = gamespec.load(a.spec)
    kw = dict(games=a.games, players=a.players, seed=0, game=game)
    lines = [f"{os.path.basename(a.spec)}, {a.games} games, {a.players} players, "
             f"{os.cpu_count()} cores, python {sys.version.split()[0]}, "
             f"load average at start {os.getloadavg()[0]:.1f}"]

    # interleaved rounds, the fastest of each kind kept: the machine is shared, so slow runs are noise
    try:
        import ray
    except ImportError:
        ray = None
    runs = {"one": [], "two": [], "ray": []}
    up = first = None
    if ray is not None:
        t0 = time.perf_counter()
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
        up = time.perf_counter() - t0
    try:
        if ray is not None:
            first = analysis.run_study(a.spec, backend="ray", **kw)     # workers start, load the spec
        for _ in range(a.rounds):
            runs["one"].append(analysis.run_study(a.spec, workers=1, **kw))
            runs["two"].append(analysis.run_study(a.spec, workers=2, **kw))
            if ray is not None:
                runs["ray"].append(analysis.run_study(a.spec, backend="ray", **kw))
    finally:
        if ray is not None:
            ray.shutdown()
    best = {k: min(v, key=lambda r: r["seconds"]) for k, v in runs.items() if v}
    one, two = best["one"], best["two"]
    identical = all(_same(one, r) for v in runs.values() for r in v) and (first is None or _same(one, first))
    lines.append(f"fastest of {a.rounds} interleaved rounds; results identical in every run: {identical}")
    lines.append(f"local 1 worker : {one['games_per_second']:7.1f} games/s ({one['seconds']:.2f} s)")
    lines.append(f"local 2 workers: {two['games_per_second']:7.1f} games/s ({two['seconds']:.2f} s), "
                 f"{one['seconds'] / two['seconds']:.2f}x one worker")
    if ray is None:
        lines.append("ray: not installed (pip install 'gamespec[ray]')")
    else:
        warm = best["ray"]
        lines.append(f"ray (2 CPUs)   : {warm['games_per_second']:7.1f} games/s ({warm['seconds']:.2f} s) with "
                     f"warm workers, {warm['seconds'] / two['seconds']:.2f}x the time of 2 local workers "
                     f"({(warm['seconds'] - two['seconds']) / a.games * 1e3:+.2f} ms per game); "
                     f"Ray start-up {up:.1f} s, first study {first['seconds']:.2f} s (workers start, load the spec)")

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
