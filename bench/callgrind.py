"""Instructions per decision of native random playouts (callgrind): the default generator against
the fast one (docs/native.md, "Fast generator"; issue 37).

    python bench/callgrind.py                       # bali, klink, bacchus at 4 players, 200 games each
    python bench/callgrind.py --games 400 klink     # more games, one game
    python bench/callgrind.py --json bench/results/callgrind_fast.json

One run per game under `valgrind --tool=callgrind` (bench/instructions.py's client-request helper:
needs `cc` and valgrind's headers): the library built and loaded and every loop warmed up on other
seeds first, then per loop the counts are zeroed, `game.playouts(games, seed=0, players=4[,
generator=...])` is played and the counts dumped; the decisions are summed after the dump.
Instructions over decisions is the figure (the whole process: C, ctypes and the Python side of
playouts()). Loops: `before` the default generator with the Python side playouts() had before issue
37 (native_engine.playouts' tuples, a Playout per game: what "today" meant), `default` the default
generator with the results as arrays (gamespec.game.Playouts), `fast` generator="fast" with arrays
(the decisions summed from a Playout per game, as before), `fast_arrays` the same playouts with the
decisions read from the array (`runs.decisions`: no Python object per game, the target's figure);
all in one run, on one tree, so that the ratios compare like with like. Instruction counts do not depend on the machine's load. `--before` measures only the
default generator (a tree without the fast one); `--simulate` adds simulate's random seats
(`play_many` on the native engine, untraced: per game a dict, and under the default generator each
seat's SHA-512 text seed) with either generator. `--baseline` also measures the hand-written C Klink
simulator (bench/baselines/klink_sim.c, the same fast generator; built with the native engine's -O2,
the counts zeroed and dumped around its games by client requests) on the same seeds and players:
the gap to a hand-written simulator.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "bench"))

STEMS = ("bali", "klink", "bacchus")
WARMUP = 20


def child(stem, players, games, loops):
    import gamespec
    from gamespec.simulate import play_many
    from instructions import _helper
    cg = _helper()
    nat = gamespec.load(os.path.join(ROOT, "games", stem + ".yaml"), backend="native")
    if nat.native_status(players) is not None:
        raise SystemExit(f"{stem}: no native engine: {nat.native_status(players)}")

    def run(lp, seeds):
        if lp == "before":      # the Python side playouts() had before issue 37: a tuple and a Playout per game
            from gamespec.game import Playout
            from gamespec.interpreter.native_engine import playouts
            lib = nat.native_library(nat.ruleset(players, {}))
            runs = [Playout(g, sc, w, d) for g, ok, sc, w, d in playouts(lib, len(seeds), seeds.start)]
            return sum(p.decisions for p in runs)
        gen = lp.replace("simulate_", "").replace("_arrays", "")
        kw = {} if gen == "default" else {"generator": gen}
        if lp.startswith("simulate_"):     # simulate's random seats, untraced (play_many: the per-game dicts)
            return sum(r["decisions"] for r in play_many(nat, players, seeds, {}, engine="native", trace=False, **kw))
        runs = nat.playouts(len(seeds), seed=seeds.start, players=players, **kw)
        if lp == "fast_arrays":     # the decisions from the array: no Playout made
            return int(sum(runs.decisions))
        return sum(p.decisions for p in runs)
    for lp in loops:
        run(lp, range(10 ** 6, 10 ** 6 + WARMUP))
    for lp in loops:
        cg.cg_zero()
        d = run(lp, range(games))
        cg.cg_dump(lp.encode())
        print(f"DECISIONS {lp} {d}", flush=True)


def measure(stem, players, games, loops):
    from instructions import _helper, callgrind_counts
    _helper()
    counts, stdout = callgrind_counts([os.path.abspath(__file__), "--child", stem, str(players), str(games),
                                       ",".join(loops)], stem)
    decisions = {}
    for line in stdout.splitlines():
        if line.startswith("DECISIONS "):
            _, lp, d = line.split()
            decisions[lp] = int(d)
    return {lp: {"instructions": counts[lp], "decisions": decisions[lp],
                 "per_decision": counts[lp] / decisions[lp], "per_game": counts[lp] / games} for lp in loops}


def baseline(players, games, seed=0):
    """The hand-written C Klink simulator under callgrind: its instructions and decisions over `games`
    games from `seed` (the counts of the games alone: zeroed before, dumped after, by the program)."""
    import re
    import subprocess
    import tempfile
    src = os.path.join(ROOT, "bench", "baselines", "klink_sim.c")
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "klink_sim")
        subprocess.run(["cc", "-O2", "-DCALLGRIND", "-o", exe, src], check=True)
        out = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/cg.out", "--dump-line=no",
                              exe, str(games), str(players), str(seed)], capture_output=True, text=True)
        if out.returncode != 0:
            raise SystemExit(f"callgrind run of klink_sim failed:\n{out.stderr[-3000:]}")
        count = None
        for fn in os.listdir(tmp):
            if fn.startswith("cg.out"):
                with open(os.path.join(tmp, fn)) as f:
                    text = f.read()
                if re.search(r"^desc: Trigger: Client Request: games", text, re.M):
                    count = int(re.search(r"^summary:\s*(\d+)", text, re.M).group(1))
    d = int(re.search(r"decisions (\d+)", out.stdout).group(1))
    return {"instructions": count, "decisions": d, "per_decision": count / d, "per_game": count / games}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=200, help="games per loop (at least 200; default 200)")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--before", action="store_true", help="the default generator only")
    ap.add_argument("--simulate", action="store_true",
                    help="also simulate's random seats (gamespec.simulate.play_many, native, untraced)")
    ap.add_argument("--baseline", action="store_true",
                    help="also the hand-written C Klink simulator (bench/baselines/klink_sim.c): the gap")
    ap.add_argument("--json", metavar="OUT")
    ap.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    ap.add_argument("stems", nargs="*", metavar="GAME", help="games (default: bali klink bacchus)")
    a = ap.parse_args(argv)
    if a.child:
        child(a.child[0], int(a.child[1]), int(a.child[2]), a.child[3].split(","))
        return 0
    loops = ("default",) if a.before else ("before", "default", "fast", "fast_arrays")
    if a.simulate:
        loops += ("simulate_default", "simulate_fast")
    games = max(a.games, 200)
    out = {"players": a.players, "games": games, "games_per_figure": games, "python": sys.version.split()[0],
           "figures": {}}
    for stem in a.stems or STEMS:
        f = out["figures"][stem] = measure(stem, a.players, games, loops)
        line = "  ".join(f"{lp} {f[lp]['per_decision']:7.1f}/decision" for lp in loops)
        if "fast" in f:
            f["ratio"] = f["before"]["per_decision"] / f["fast"]["per_decision"]
            f["ratio_arrays"] = f["before"]["per_decision"] / f["default"]["per_decision"]
            line += f"  | fast {f['ratio']:.2f}x fewer than before (arrays alone {f['ratio_arrays']:.2f}x)"
        if "fast_arrays" in f:
            f["ratio_fast_arrays"] = f["before"]["per_decision"] / f["fast_arrays"]["per_decision"]
            line += f"  | fast, decisions from the array {f['ratio_fast_arrays']:.2f}x fewer"
        if "simulate_fast" in f:
            f["simulate_ratio"] = f["simulate_default"]["per_decision"] / f["simulate_fast"]["per_decision"]
            line += f"  | simulate {f['simulate_ratio']:.2f}x fewer"
        print(f"{stem:<8} {line}  [{games} games, {a.players} players]", flush=True)
    if a.baseline:
        b = out["baseline"] = {"klink_sim": baseline(a.players, games)}
        line = f"klink_sim (hand-written C, fast generator)  {b['klink_sim']['per_decision']:7.1f}/decision"
        k = out["figures"].get("klink", {})
        for lp in ("fast", "fast_arrays"):
            if lp in k:
                b[f"gap_{lp}"] = k[lp]["per_decision"] / b["klink_sim"]["per_decision"]
                line += f"  | native {lp} {b[f'gap_{lp}']:.1f}x more"
        print(line + f"  [{games} games, {a.players} players]", flush=True)
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(out, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
