"""Benchmarks: random-playout speed of every spec, cost per API call, compile time, peak memory.

    python bench/bench.py                       # all specs in games/, every player count, a table
    python bench/bench.py --json out.json       # also write the figures as JSON
    python bench/bench.py --quick               # fewer games (a smoke run)

Timings on a shared machine are noisy: compare ratios within one run. Each game with a hand-written
simulator in bench/baselines/ (<game>_baseline.py) is also played at 4 players interleaved with that
simulator (CPU time, warmed up first, at least 200 games per round, the ratio per game), so that
their ratio is meaningful even when the machine is busy. The native engine's figures are
bench/native.py's. For exact figures
(CPU instructions per decision under callgrind, immune to the machine's load) and the index and
in-engine playout loops, use bench/instructions.py.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import random
import statistics
import sys
import time
import tracemalloc

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "bench", "baselines"))

import gamespec  # noqa: E402


def playouts(game, players, options, seeds):
    decisions = 0
    for seed in seeds:
        rnd = random.Random(seed)
        s = game.new_game(players=players, seed=seed, options=options)
        while not s.is_terminal:
            acts = s.legal_actions()
            s.apply(acts[rnd.randrange(len(acts))])
            decisions += 1
    return decisions


def timed(fn, *args):
    t = time.process_time()
    r = fn(*args)
    return r, time.process_time() - t


def per_call(game, players, options, n_states=300):
    """µs per legal_actions, apply, clone and observation over states met in random playouts."""
    states = []
    rnd = random.Random(99)
    s = game.new_game(players=players, seed=99, options=options)
    while len(states) < n_states:
        if s.is_terminal:
            s = game.new_game(players=players, seed=rnd.randrange(10**6), options=options)
        states.append(s.clone())
        acts = s.legal_actions()
        s.apply(acts[rnd.randrange(len(acts))])
    out = {}
    clones = [x.clone() for x in states]
    t = time.process_time()
    for x in clones:
        x._legal = None
        x.legal_actions()
    out["legal_actions_us"] = (time.process_time() - t) / len(clones) * 1e6
    pairs = []
    for x in states:
        c = x.clone()
        a = c.legal_actions()
        pairs.append((c, a[rnd.randrange(len(a))]))
    t = time.process_time()
    for c, a in pairs:
        c.apply(a)
    out["apply_us"] = (time.process_time() - t) / len(pairs) * 1e6
    t = time.process_time()
    for x in states:
        x.clone()
    out["clone_us"] = (time.process_time() - t) / len(states) * 1e6
    t = time.process_time()
    for x in states:
        x.observation(x.current_player or 0)
    out["observation_us"] = (time.process_time() - t) / len(states) * 1e6
    t = time.process_time()
    for x in states[:100]:
        game.state_from_json(x.to_json())
    out["json_roundtrip_us"] = (time.process_time() - t) / min(100, len(states)) * 1e6
    return out


def compile_ms(path, players, options, repeat=5):
    best_load, best_compile = 1e9, 1e9
    for _ in range(repeat):
        t = time.process_time()
        g = gamespec.load(path)
        t1 = time.process_time()
        g.ruleset(players, g.check_options(options))
        t2 = time.process_time()
        best_load = min(best_load, t1 - t)
        best_compile = min(best_compile, t2 - t1)
    return best_load * 1e3, best_compile * 1e3


def peak_mb(game, players, options, games=50):
    tracemalloc.start()
    playouts(game, players, options, range(games))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 1e6   # Python allocations only (tracemalloc), not the interpreter's baseline


def cpu_timed(fn, *args):
    t = time.process_time()
    r = fn(*args)
    return r, time.process_time() - t


def vs_baseline(path, games, rounds=5, players=4):
    """Random playouts of the spec and of its hand-written simulator, interleaved round by round on
    the same seeds, in CPU time, after a warm-up outside the timed window (the rule set compiled,
    every fused function generated, both loops played on other seeds): the ratio per game, the
    median over rounds, at least 200 games per round."""
    import importlib
    from gamespec.compile.fused import generate_all
    games = max(games, 200)
    base = importlib.import_module(os.path.splitext(os.path.basename(path))[0] + "_baseline")
    g = gamespec.load(path)
    playouts(g, players, {}, range(10 ** 6, 10 ** 6 + 20))
    generate_all(g.ruleset(players, {}))
    for seed in range(10 ** 6, 10 ** 6 + 20):
        base.play_game(seed, players=players)
    ours, theirs = [], []
    for r in range(rounds):       # interleaved, so both see the same machine load
        seeds = range(r * games, (r + 1) * games)
        d, t = cpu_timed(playouts, g, players, {}, seeds)
        ours.append((games / t, d / t))
        t0 = time.process_time()
        bd = 0
        for seed in seeds:
            bd += base.play_game(seed, players=players)[1]
        t1 = time.process_time() - t0
        theirs.append((games / t1, bd / t1))
    o = statistics.median(x[0] for x in ours)
    b = statistics.median(x[0] for x in theirs)
    return {"gamespec_games_per_s": o, "baseline_games_per_s": b,
            "ratio": statistics.median(x[0] / y[0] for x, y in zip(ours, theirs)),
            "gamespec_decisions_per_s": statistics.median(x[1] for x in ours),
            "baseline_decisions_per_s": statistics.median(x[1] for x in theirs),
            "games_per_round": games, "rounds": rounds, "clock": "CPU (process_time)"}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=300, help="games per configuration (default 300)")
    ap.add_argument("--quick", action="store_true", help="30 games per configuration")
    ap.add_argument("--json", metavar="OUT", help="write the figures to this JSON file")
    ap.add_argument("--backend", choices=["codegen", "closures"], default=None,
                    help="rule backend: generated code (default) or the reference closures")
    ap.add_argument("--no-baseline", action="store_true", help="skip the comparisons with the hand-written simulators")
    ap.add_argument("specs", nargs="*", help="spec files (default: games/*.yaml)")
    a = ap.parse_args(argv)
    if a.backend:
        os.environ["GAMESPEC_BACKEND"] = a.backend
    n = 30 if a.quick else a.games
    specs = a.specs or sorted(glob.glob(os.path.join(ROOT, "games", "*.yaml")))
    rows = []
    for path in specs:
        game = gamespec.load(path)
        for players in range(game.min_players, game.max_players + 1):
            for options in game.option_sets():
                d, t = timed(playouts, game, players, options, range(n))
                row = {"spec": os.path.basename(path), "players": players, "options": options,
                       "games_per_s": n / t, "decisions_per_s": d / t, "decisions_per_game": d / n}
                row.update(per_call(game, players, options))
                row["load_check_ms"], row["compile_ms"] = compile_ms(path, players, options)
                row["peak_mb"] = peak_mb(game, players, options, games=min(n, 50))
                rows.append(row)
                opt = ",".join(k for k, v in options.items() if v) or "-"
                print(f"{row['spec']:<13}{players}p {opt:<12} {row['games_per_s']:8.0f} games/s "
                      f"{row['decisions_per_s']:9.0f} dec/s {row['decisions_per_game']:6.1f} dec/game | "
                      f"legal {row['legal_actions_us']:6.1f}µs apply {row['apply_us']:6.1f}µs "
                      f"clone {row['clone_us']:5.1f}µs obs {row['observation_us']:6.1f}µs | "
                      f"load {row['load_check_ms']:5.1f}ms compile {row['compile_ms']:5.1f}ms "
                      f"peak {row['peak_mb']:6.2f}MB", flush=True)
    result = {"backend": os.environ.get("GAMESPEC_BACKEND", "codegen"), "python": sys.version.split()[0], "machine": os.uname().machine, "cpus": os.cpu_count(),
              "rows": rows}
    if not a.no_baseline:
        result["vs_baseline"] = {}
        for path in specs:
            stem = os.path.splitext(os.path.basename(path))[0]
            if not os.path.exists(os.path.join(ROOT, "bench", "baselines", stem + "_baseline.py")):
                continue
            vs = vs_baseline(path, max(100, n))
            result["vs_baseline"][stem] = vs
            print(f"{stem} 4p vs its hand-written simulator (interleaved): {vs['gamespec_games_per_s']:.0f} vs "
                  f"{vs['baseline_games_per_s']:.0f} games/s, ratio 1/{1 / vs['ratio']:.2f}", flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
