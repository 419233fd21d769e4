"""Exact cost per decision: CPU instructions (callgrind) and interleaved time ratios, gamespec vs baselines.

    python bench/instructions.py                        # every game with a hand-written baseline, 4 players
    python bench/instructions.py --games 200 --rounds 7 # games per callgrind run, rounds of the time ratio
    python bench/instructions.py --json out.json        # also write the figures as JSON
    python bench/instructions.py --no-time              # instructions only (skip the interleaved timing)

Instructions: one run per game under `valgrind --tool=callgrind`: every loop is warmed up (imports,
compiling, lazy code; the fused continuations not made yet are generated: compiling is left out), then per loop the counts are zeroed, `--games` games are played and the counts
dumped (callgrind client requests, through a tiny C helper compiled on first use: needs `cc` and
valgrind's headers). Instructions over decisions is the figure. Instruction counts do not depend on
the machine's load, so a 2% change is visible on a busy machine. `PYTHONHASHSEED=0` makes runs repeatable.

Loops measured (random decisions, `random.Random(seed).randrange`, as the baselines do):
  standard   legal_actions() then apply(actions[i])
  index      legal_action_count() then apply_index(i)   (no Action list handed out)
  playouts   game.playouts(n, seed, players)             (the in-engine loop)
  baseline   the hand-written simulator bench/baselines/<game>_baseline.py

Time ratios: the same loops timed interleaved round by round (each round plays the same seeds in every
loop), CPU time (process_time), warmed up first, the median over rounds of baseline time / gamespec
time per game (the same games: per decision would mix the code's cost with the sample's). Compare
per game over at least 200 games: a 20-game sample moved Klink's ratio by 11%. The native engine:
bench/native.py.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import random
import re
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASEDIR = os.path.join(ROOT, "bench", "baselines")
LOOPS = ("standard", "index", "playouts")
WARMUP = 8     # games per loop before measuring: generated code made on first use is made by then


# -- the loops (each returns the number of decisions it played) ------------------------------------
def loop_standard(game, players, seeds):
    d = 0
    for seed in seeds:
        rnd = random.Random(seed)
        s = game.new_game(players=players, seed=seed)
        while not s.is_terminal:
            acts = s.legal_actions()
            s.apply(acts[rnd.randrange(len(acts))])
            d += 1
    return d


def loop_index(game, players, seeds):
    d = 0
    for seed in seeds:
        rnd = random.Random(seed)
        s = game.new_game(players=players, seed=seed)
        while not s.terminal:
            s.apply_index(rnd.randrange(s.legal_action_count()))
            d += 1
    return d


def loop_playouts(game, players, seeds):
    return sum(r.decisions for r in game.playouts(len(seeds), seed=seeds.start, players=players))


def loop_baseline(base, players, seeds):
    d = 0
    for seed in seeds:
        d += base.play_game(seed, players=players)[1]
    return d


def _setup(stem, loop):
    sys.path.insert(0, ROOT)
    sys.path.insert(0, BASEDIR)
    if loop == "baseline":
        import importlib
        return importlib.import_module(stem + "_baseline"), loop_baseline
    import gamespec
    return gamespec.load(os.path.join(ROOT, "games", stem + ".yaml")), globals()["loop_" + loop]


_HELPER = r"""
#include <valgrind/callgrind.h>
void cg_zero(void) { CALLGRIND_ZERO_STATS; }
void cg_dump(const char *label) { CALLGRIND_DUMP_STATS_AT(label); }
"""


def _helper():
    """A tiny C library making callgrind's client requests (zero the counts, dump them)."""
    import ctypes
    import tempfile
    d = os.path.join(tempfile.gettempdir(), f"gamespec-bench-{os.getuid()}")
    os.makedirs(d, exist_ok=True)
    so = os.path.join(d, "cgreq.so")
    if not os.path.exists(so):
        src = os.path.join(d, "cgreq.c")
        with open(src, "w") as f:
            f.write(_HELPER)
        r = subprocess.run(["cc", "-O1", "-shared", "-fPIC", "-o", so + ".tmp", src], capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit("instructions mode needs a C compiler and valgrind's headers "
                             f"(valgrind/callgrind.h):\n{r.stderr}")
        os.replace(so + ".tmp", so)
    return ctypes.CDLL(so)


def _generate_all(obj, players):
    """Code generated on first use (fused continuations) generated now, as compiling is left out."""
    try:
        from gamespec.compile.fused import generate_all
    except ImportError:         # a tree without it (a 'before' measurement)
        return
    if hasattr(obj, "ruleset"):
        generate_all(obj.ruleset(players, {}))


def child(stem, loops, players, games):
    """Run under callgrind: warm every loop up, then per loop zero the counts, play, dump them."""
    cg = _helper()
    setups = {lp: _setup(stem, lp) for lp in loops}
    for lp, (obj, fn) in setups.items():
        fn(obj, players, range(10_000, 10_000 + WARMUP))
        _generate_all(obj, players)
    for lp, (obj, fn) in setups.items():
        cg.cg_zero()
        d = fn(obj, players, range(games))
        cg.cg_dump(lp.encode())
        print(f"DECISIONS {lp} {d}", flush=True)


def instructions(stem, loops, players, games):
    """Instructions per decision of each loop, from one callgrind run."""
    _helper()       # compiled outside valgrind
    counts, stdout = callgrind_counts([os.path.abspath(__file__), "--child", stem, ",".join(loops), str(players),
                                       str(games)], stem)
    dec = {m.group(1): int(m.group(2)) for m in re.finditer(r"DECISIONS (\S+) (\d+)", stdout)}
    return {lp: {"instructions_per_decision": counts[lp] / dec[lp], "decisions": dec[lp],
                 "instructions_per_game": counts[lp] / games} for lp in loops}


def callgrind_counts(argv, what=""):
    """Run `python ARGV` under callgrind; the instruction count of each dump the child asked for by
    name (a client request), and the child's stdout."""
    import tempfile
    env = dict(os.environ, PYTHONHASHSEED="0")
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/cg.out", "--dump-line=no",
             sys.executable, *argv], env=env, capture_output=True, text=True)
        if out.returncode != 0:
            raise SystemExit(f"callgrind run failed{f' ({what})' if what else ''}:\n{out.stderr[-3000:]}")
        counts = {}
        for fn in os.listdir(tmp):
            with open(os.path.join(tmp, fn)) as f:
                text = f.read()
            m = re.search(r"^desc: Trigger: Client Request: (\S+)", text, re.M)
            if m:
                counts[m.group(1)] = int(re.search(r"^summary:\s*(\d+)", text, re.M).group(1))
    return counts, out.stdout


def time_ratios(stem, loops, players, games, rounds):
    """Interleaved timing: per round, each loop plays the same seeds; ratios per round, then the median."""
    objs = {lp: _setup(stem, lp) for lp in loops + ("baseline",)}
    for lp, (obj, fn) in objs.items():
        fn(obj, players, range(10_000, 10_000 + WARMUP))
        _generate_all(obj, players)
    per = {lp: [] for lp in objs}
    for r in range(rounds):
        seeds = range(r * games, (r + 1) * games)
        for lp, (obj, fn) in objs.items():
            t = time.process_time()
            fn(obj, players, seeds)
            per[lp].append((time.process_time() - t) / games)     # CPU time per game
    return {lp: statistics.median(b / o for o, b in zip(per[lp], per["baseline"])) for lp in loops}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=200, help="measured games per callgrind run (default 200: "
                    "compare per game over at least 200 games)")
    ap.add_argument("--players", type=int, default=4, help="player count (default 4)")
    ap.add_argument("--rounds", type=int, default=7, help="rounds of the interleaved timing (default 7)")
    ap.add_argument("--time-games", type=int, default=200, help="games per loop and round when timing (default 200)")
    ap.add_argument("--loops", default=",".join(LOOPS), help=f"gamespec loops to measure (default {','.join(LOOPS)})")
    ap.add_argument("--no-time", action="store_true", help="instruction counts only")
    ap.add_argument("--no-instructions", action="store_true", help="interleaved time ratios only")
    ap.add_argument("--json", metavar="OUT", help="write the figures to this JSON file")
    ap.add_argument("--child", nargs=4, metavar=("GAME", "LOOP", "PLAYERS", "GAMES"), help=argparse.SUPPRESS)
    ap.add_argument("games_", nargs="*", metavar="GAME", help="games (default: every game with a baseline)")
    a = ap.parse_args(argv)
    if a.child:
        child(a.child[0], tuple(a.child[1].split(",")), int(a.child[2]), int(a.child[3]))
        return 0
    loops = tuple(x for x in a.loops.split(",") if x)
    bad = [x for x in loops if x not in LOOPS]
    if bad:
        ap.error(f"unknown loop {bad[0]!r} (known: {', '.join(LOOPS)})")
    stems = a.games_ or sorted(os.path.basename(p)[:-len("_baseline.py")]
                               for p in glob.glob(os.path.join(BASEDIR, "*_baseline.py")))
    result = {"players": a.players, "python": sys.version.split()[0], "games": {}}
    for stem in stems:
        row = result["games"][stem] = {}
        if not a.no_instructions:
            got = instructions(stem, ("baseline",) + loops, a.players, a.games)
            base = got["baseline"]["instructions_per_decision"]
            base_g = got["baseline"]["instructions_per_game"]
            row["baseline_instructions_per_decision"] = base
            row["baseline_instructions_per_game"] = base_g
            for lp in loops:
                ipd = got[lp]["instructions_per_decision"]
                ipg = got[lp]["instructions_per_game"]
                row[lp] = {"instructions_per_decision": ipd, "decisions": got[lp]["decisions"],
                           "instructions_per_game": ipg, "instruction_ratio": base_g / ipg}
                print(f"{stem:<8} {a.players}p {lp:<9} {ipg:12.0f} instructions/game ({ipd:7.0f}/decision), "
                      f"baseline {base_g:11.0f}/game: 1/{ipg / base_g:.2f}", flush=True)
        if not a.no_time:
            tr = time_ratios(stem, loops, a.players, a.time_games, a.rounds)
            for lp, r in tr.items():
                row.setdefault(lp, {})["time_ratio"] = r
                print(f"{stem:<8} {a.players}p {lp:<9} CPU time per game, interleaved median of {a.rounds}: "
                      f"1/{1 / r:.2f}", flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
