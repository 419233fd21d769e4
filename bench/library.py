"""The whole game library at a glance: native decisions per CPU second and ISMCTS ms per decision per
game, so a slowdown in any family shows.

    python bench/library.py                                   # every games/*.yaml
    python bench/library.py --games 400 --json bench/results/library.json --markdown bench/results/library.md
    python bench/library.py hearts spades                     # some games only

Per game, at its most common player count (4 where it allows 4, else the nearest it allows):
- native decisions per CPU second: `Game.playouts(n)` (random seats, the default generator), after a
  warm-up of 20 games, CPU time of this process (little changed by other load; the machine is shared);
  "python" if the game falls back (it then says why);
- ISMCTS ms per decision: the native ISMCTS bot at 200 iterations on the fixed positions of
  bench/strength.py's --speed (every 5th decision with a choice of random games, the first 8), CPU ms.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)


def players_for(game) -> int:
    lo, hi = game.min_players, game.max_players
    return 4 if lo <= 4 <= hi else (hi if hi < 4 else lo)


def figures(path: str, games: int, positions: int) -> dict:
    import gamespec
    from gamespec.bots.ismcts import ISMCTSBot
    from strength import speed_positions

    g = gamespec.load(path, backend="native")
    p = players_for(g)
    why = g.native_status(players=p)
    g.playouts(20, seed=10**6, players=p)                      # warm-up (and the library's build)
    t = time.process_time()
    runs = g.playouts(games, seed=0, players=p)
    cpu = time.process_time() - t
    decisions = int(sum(runs.decisions))
    out = {"game": os.path.basename(path)[:-5], "players": p, "games": games, "decisions": decisions,
           "decisions_per_game": decisions / games, "native_decisions_per_cpu_s": decisions / cpu,
           "engine": "native" if not why else f"python ({why})"}
    spots = speed_positions(g, p, per_spec=positions)
    if spots:
        t = time.process_time()
        for s in spots:
            ISMCTSBot(seed=1, seat=s.current_player, iterations=200, engine="native").choose(s.view(s.current_player))
        out["ismcts200_cpu_ms_per_decision"] = (time.process_time() - t) / len(spots) * 1e3
        out["ismcts_positions"] = len(spots)
    return out


def markdown(rows) -> str:
    lines = ["| game | players | decisions/game | native decisions/CPU s | ISMCTS:200 ms/decision |",
             "|---|---|---|---|---|"]
    for r in rows:
        ms = r.get("ismcts200_cpu_ms_per_decision")
        lines.append(f"| {r['game']} | {r['players']} | {r['decisions_per_game']:.0f} | "
                     f"{r['native_decisions_per_cpu_s']:,.0f} | {'' if ms is None else f'{ms:.1f}'} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", help="game ids (default: every games/*.yaml)")
    ap.add_argument("--games", type=int, default=400, help="random games per figure (default 400)")
    ap.add_argument("--positions", type=int, default=8, help="ISMCTS positions per game (default 8)")
    ap.add_argument("--json", help="write the figures as JSON")
    ap.add_argument("--markdown", help="write the table as Markdown")
    args = ap.parse_args(argv)
    paths = sorted(glob.glob(os.path.join(ROOT, "games", "*.yaml")))
    if args.names:
        paths = [p for p in paths if os.path.basename(p)[:-5] in args.names]
    rows = []
    for path in paths:
        r = figures(path, args.games, args.positions)
        rows.append(r)
        print(f"{r['game']:<14} {r['players']}p  {r['decisions_per_game']:7.0f} decisions/game  "
              f"{r['native_decisions_per_cpu_s']:>12,.0f} native decisions/CPU s  "
              f"ISMCTS:200 {r.get('ismcts200_cpu_ms_per_decision', float('nan')):7.1f} ms/decision  {r['engine']}",
              flush=True)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"when": time.strftime("%Y-%m-%d"), "rows": rows}, f, indent=1)
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as f:
            f.write(markdown(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
