"""Benchmarks of hidden information: determinize and player views, per call, per game; and the
random-playout speed (the fast path, which must not build views).

    python bench/hidden.py                      # every spec in games/, a table
    python bench/hidden.py --playouts-only      # only games/s (runs on older versions too: compare)
    python bench/hidden.py --json out.json

Timings on a shared machine are noisy: each figure is the best of --repeat rounds.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import random
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import gamespec  # noqa: E402


def sample(game, players, n, seed=99):
    """n states met in random playouts (with logs, as a game played by people has)."""
    rnd = random.Random(seed)
    out = []
    s = game.new_game(players=players, seed=seed, log=True)
    while len(out) < n:
        if s.is_terminal:
            s = game.new_game(players=players, seed=rnd.randrange(1 << 30), log=True)
        out.append(s.clone())
        acts = s.legal_actions()
        s.apply(acts[rnd.randrange(len(acts))])
    return out


def best_us(fn, items, repeat):
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        for x in items:
            fn(x)
        best = min(best, (time.perf_counter() - t) / len(items) * 1e6)
    return best


def playouts(game, players, games, repeat):
    from gamespec.simulate import play_one
    best = 0.0
    for _ in range(repeat):
        t = time.perf_counter()
        for seed in range(games):
            play_one(game, players, seed)
        best = max(best, games / (time.perf_counter() - t))
    return best


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--states", type=int, default=200, help="states per game (default 200)")
    ap.add_argument("--games", type=int, default=60, help="random playouts per game (default 60)")
    ap.add_argument("--repeat", type=int, default=3, help="rounds; the best is kept (default 3)")
    ap.add_argument("--playouts-only", action="store_true", help="only the random-playout speed")
    ap.add_argument("--json", metavar="OUT", help="write the figures as JSON")
    ap.add_argument("specs", nargs="*", help="spec files (default: games/*.yaml)")
    args = ap.parse_args(argv)
    rows = []
    for path in args.specs or sorted(glob.glob(os.path.join(ROOT, "games", "*.yaml"))):
        game = gamespec.load(path)
        players = max(game.min_players, min(4, game.max_players))
        row = {"spec": os.path.basename(path), "players": players,
               "playout_games_per_s": playouts(game, players, args.games, args.repeat)}
        if not args.playouts_only:
            states = sample(game, players, args.states)
            rng = random.Random(1)
            pairs = [(s, p) for s in states for p in range(players)]
            row["determinize_us"] = best_us(lambda sp: sp[0].determinize(sp[1], rng), pairs, args.repeat)
            movers = [s for s in states if not s.is_terminal]
            row["view_json_us"] = best_us(lambda s: s.view(s.current_player).to_json(), movers, args.repeat)
            row["view_actions_us"] = best_us(lambda s: s.view(s.current_player).legal_actions, movers,
                                             args.repeat)
            row["observation_us"] = best_us(lambda s: s.observation(s.current_player), movers, args.repeat)
            row["cards"] = states[0].rs.ncards
        rows.append(row)
        text = f"{row['spec']:<14} {players}p  playouts {row['playout_games_per_s']:7.1f} games/s"
        if not args.playouts_only:
            text += (f" | determinize {row['determinize_us']:7.1f}µs  view.to_json {row['view_json_us']:7.1f}µs"
                     f"  view actions {row['view_actions_us']:6.1f}µs  observation {row['observation_us']:6.1f}µs"
                     f"  ({row['cards']} cards)")
        print(text, flush=True)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
