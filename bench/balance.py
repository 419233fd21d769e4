"""Balance studies with thinking seats (issue 30): the target study and the seed games' verdicts.

    python bench/balance.py [--games 1000] [--players 2] [--iterations 200] [--random-games 2000]
                            [--only-target] [--out bench/results/balance]

1. The target: a `--games` Bali study with every seat ISMCTS:ITERATIONS on the native engine, on two
   worker processes, timed (wall clock and the CPU time of this process and its workers).
2. The verdicts: for Bali, Klink and Bacchus at `--players` (or a game's fewest), a study with random seats
   (`--random-games`, traced) and one with every seat ISMCTS:ITERATIONS (`--games`), the same seeds;
   the findings (gamespec.analysis.findings) of the two side by side, in words.

Every study writes its records (OUT-GAME-KIND.jsonl; with --resume semantics, so an interrupted run
continues) and the figures go to OUT.json and OUT.txt.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

GAMES = ("bali", "klink", "bacchus")


def _cpu():
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


def study(name, kind, games, players, seed, out, trace=None):
    """One study (resumed from its records file if it is there) → (result, wall s, CPU s)."""
    import gamespec
    from gamespec import analysis
    path = os.path.join(ROOT, "games", f"{name}.yaml")
    game = gamespec.load(path)
    players = max(players, game.min_players)       # Klink is for 3 to 5
    records = f"{out}-{name}-{players}p-{kind.replace(':', '')}.jsonl"
    t0, c0 = time.perf_counter(), _cpu()
    res = analysis.simulate(game, path, games=games, players=players, seed=seed, bots=[f"all={kind}"],
                            workers=2, engine="native", records=records, resume=True, trace=trace,
                            progress=lambda total: analysis.ProgressBar(sys.stderr, total, force=True))
    return res["configs"][0], time.perf_counter() - t0, _cpu() - c0, records, players


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=1000, help="games of each thinking study (default 1000)")
    ap.add_argument("--random-games", type=int, default=2000, help="games of each random study (default 2000)")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--iterations", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only-target", action="store_true", help="only the Bali target study")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "balance"))
    a = ap.parse_args(argv)

    from gamespec.analysis import read_records, summarize
    from gamespec.analysis.findings import findings

    thinking = f"ismcts:{a.iterations}"
    figures = {"players": a.players, "iterations": a.iterations, "cores": os.cpu_count(), "studies": []}
    lines = []

    def note(text):
        print(text, flush=True)
        lines.append(text)

    names = ("bali",) if a.only_target else GAMES
    for name in names:
        pair = []
        for kind, games, trace in ((thinking, a.games, None), ("random", a.random_games, True)):
            if a.only_target and kind == "random":
                continue
            r, wall, cpu, records, players = study(name, kind, games, a.players, a.seed, a.out, trace)
            sm = r["summary"]
            fresh = r["games_played"]
            row = {"game": name, "players": players, "kind": kind, "games": sm["games"], "played_now": fresh,
                   "wall_seconds": wall, "cpu_seconds": cpu,
                   "seconds_per_game": wall / fresh if fresh else None,
                   "seats": [[x["win_rate"], x["ci95"]] for x in sm["seats"]],
                   "seat_p": (sm["seat_advantage"] or {}).get("p"), "records": os.path.relpath(records, ROOT)}
            figures["studies"].append(row)
            note(f"{name} {players}p {kind}: {sm['games']} games ({fresh} played now) in {wall:.0f} s wall, "
                 f"{cpu:.0f} s CPU on 2 workers" + (f" ({wall / fresh:.2f} s/game)" if fresh else ""))
            pair.append(records)
        rows = [rec for path in pair for rec in read_records(path)]
        for s in findings(summarize(rows)):
            note(f"  {s}")
    with open(a.out + ".json", "w") as f:
        json.dump(figures, f, indent=1)
    with open(a.out + ".txt", "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
