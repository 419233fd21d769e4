"""The native engine's figures (docs/native.md): playouts, simulate and ISMCTS, native against the
default backend and the hand-written simulators; the build's cost, cold and cached.

    python bench/native.py                          # every game with a baseline, 4 players
    python bench/native.py --games 300 --rounds 5   # games per loop and round, rounds
    python bench/native.py --json bench/results/native.json
    python bench/native.py --quick                  # a smoke run (few games)

Measured honestly: CPU time (time.process_time), never wall time; every loop warmed up before its
timed window (the fused functions generated, the native library built and loaded, each loop played
on other seeds first); the loops interleaved round by round on the same seeds, so a busy machine
slows them alike; ratios per game (the same games in every loop of a round), the median over rounds;
at least 200 games per figure. `--instructions` adds callgrind's instruction counts per game for the
native playouts and the baseline (the native loop costs so few that a callgrind run is short).

Loops per game (4 players unless --players):
  default    game.playouts(n, seed) on the default backend (generated Python)
  native     game.playouts(n, seed) on load(..., backend="native")
  baseline   bench/baselines/<game>_baseline.py, the hand-written Python simulator
First the trace (`--trace-only`: only it): random native games (gamespec.simulate.play_many) without
and with their trace recorded in C, and the Python loop that records it otherwise. Then simulate (gamespec.simulate.simulate, one worker, a random bot per seat, engine python vs
native), ISMCTS (ms of CPU per decision on bench/strength.py's fixed positions: Python at 100
iterations, native at 100 and 1000), and the build (a cold cache: runtime + game; the game alone;
a cached load).
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, os.path.join(ROOT, "bench", "baselines"))

MIN_GAMES = 200


def cpu(fn, *args):
    t = time.process_time()
    r = fn(*args)
    return r, time.process_time() - t


def playouts_figures(stem, players, games, rounds):
    """CPU µs per game of each loop, per round; the medians and the ratios."""
    import importlib

    import gamespec
    from gamespec.compile.fused import generate_all
    path = os.path.join(ROOT, "games", stem + ".yaml")
    base = importlib.import_module(stem + "_baseline")
    py = gamespec.load(path)
    nat = gamespec.load(path, backend="native")
    # warm-up, outside every timed window: compile, generate the fused functions, build the library
    py.playouts(20, seed=10 ** 6, players=players)
    generate_all(py.ruleset(players, {}))
    nat.playouts(20, seed=10 ** 6, players=players)
    if nat.native_status(players) is not None:
        raise SystemExit(f"{stem}: no native engine: {nat.native_status(players)}")
    for s in range(10 ** 6, 10 ** 6 + 20):
        base.play_game(s, players=players)

    def baseline(seeds):
        return [base.play_game(s, players=players)[1] for s in seeds]

    per = {"default": [], "native": [], "baseline": []}
    decisions = 0
    for r in range(rounds):
        seeds = range(r * games, (r + 1) * games)
        a, t_py = cpu(py.playouts, games, seeds.start, players)
        b, t_nat = cpu(nat.playouts, games, seeds.start, players)
        c, t_base = cpu(baseline, seeds)
        if a != b:
            raise SystemExit(f"{stem}: native playouts differ from the default backend's")
        decisions += sum(x.decisions for x in a)
        per["default"].append(t_py / games * 1e6)
        per["native"].append(t_nat / games * 1e6)
        per["baseline"].append(t_base / games * 1e6)
    med = {k: statistics.median(v) for k, v in per.items()}
    ratios = {"native_vs_default": statistics.median(p / n for p, n in zip(per["default"], per["native"])),
              "native_vs_baseline": statistics.median(b / n for b, n in zip(per["baseline"], per["native"])),
              "default_vs_baseline": statistics.median(b / p for b, p in zip(per["baseline"], per["default"]))}
    return {"us_per_game": med, "ratios": ratios, "games_per_figure": games * rounds, "rounds": rounds,
            "decisions_per_game": decisions / (games * rounds), "per_round": per}


def simulate_figures(stem, players, games, rounds):
    import gamespec
    from gamespec.compile.fused import generate_all
    from gamespec.simulate import TIMING_FIELDS, simulate
    path = os.path.join(ROOT, "games", stem + ".yaml")
    game = gamespec.load(path)       # loaded once, as `gamespec simulate` does: the games are timed
    for engine in ("python", "native"):
        simulate(path, games=10, players=players, seed=10 ** 6, workers=1, engine=engine, game=game)
    generate_all(game.ruleset(players, {}))
    per = {"python": [], "native": []}
    for r in range(rounds):
        outs = {}
        for engine in ("python", "native"):
            out, t = cpu(lambda: simulate(path, games=games, players=players, seed=r * games, workers=1,
                                          engine=engine, game=game))
            per[engine].append(t / games * 1e6)
            outs[engine] = {k: v for k, v in out.items() if k not in TIMING_FIELDS}
        if outs["python"] != outs["native"]:
            raise SystemExit(f"{stem}: simulate's report differs between the engines")
    return {"us_per_game": {k: statistics.median(v) for k, v in per.items()},
            "ratio": statistics.median(p / n for p, n in zip(per["python"], per["native"])),
            "games_per_figure": games * rounds}


def trace_figures(stem, players, games, rounds):
    """A game's trace (lead changes, decisiveness, drama, action counts) recorded in C: CPU µs per game
    of random native games (gamespec.simulate.play_many) without and with it, and the Python loop
    that recorded it before (the same games, checked identical), interleaved round by round."""
    import gamespec
    from gamespec.simulate import play_many
    path = os.path.join(ROOT, "games", stem + ".yaml")
    game = gamespec.load(path)
    loops = (("untraced", "native", False), ("traced", "native", True), ("python_traced", "python", True))
    for _, engine, trace in loops:       # warm-up: the library built and loaded, the fused code generated
        play_many(game, players, range(10 ** 6, 10 ** 6 + 20), {}, engine=engine, trace=trace)
    per = {name: [] for name, _, _ in loops}

    def plain(rs):
        return [{k: v for k, v in r.items() if k != "seconds"} for r in rs]
    for r in range(rounds):
        seeds = range(r * games, (r + 1) * games)
        outs = {}
        for name, engine, trace in loops:
            out, t = cpu(play_many, game, players, seeds, {}, None, None, engine, None, trace)
            per[name].append(t / games * 1e6)
            outs[name] = plain(out)
        if outs["traced"] != outs["python_traced"]:
            raise SystemExit(f"{stem}: the native traces differ from the Python loop's")
        if any("error" in x for x in outs["traced"]):
            raise SystemExit(f"{stem}: a game failed")
    med = {k: statistics.median(v) for k, v in per.items()}
    return {"us_per_game": med,
            "trace_cost": statistics.median(t / u for t, u in zip(per["traced"], per["untraced"])),
            "python_vs_traced": statistics.median(p / t for p, t in zip(per["python_traced"], per["traced"])),
            "games_per_figure": games * rounds, "per_round": per}


def ismcts_figures(stem, players, per_spec):
    import gamespec
    from gamespec.bots.ismcts import ISMCTSBot
    from strength import speed_positions
    path = os.path.join(ROOT, "games", stem + ".yaml")
    g = gamespec.load(path, backend="native")
    positions = speed_positions(g, players, per_spec=per_spec)
    g.native_library(positions[0].rs)
    ISMCTSBot(seed=1, seat=positions[0].current_player, iterations=20, engine="native").choose(
        positions[0].view(positions[0].current_player))

    def run(iterations, engine):
        picks = []
        t = time.process_time()
        for s in positions:
            v = s.view(s.current_player)
            picks.append(ISMCTSBot(seed=1, seat=s.current_player, iterations=iterations, engine=engine).choose(v))
        return (time.process_time() - t) / len(positions) * 1e3, picks

    py100, a = run(100, "python")
    nat100, b = run(100, "native")
    nat1000, _ = run(1000, "native")
    if a != b:
        raise SystemExit(f"{stem}: the native search chose otherwise than the Python search")
    return {"positions": len(positions), "cpu_ms_per_decision": {"python_100": py100, "native_100": nat100,
                                                                 "native_1000": nat1000},
            "native_1000_vs_python_100": py100 / nat1000, "same_choices": True}


def build_figures(stem, players):
    """A cold cache (the run-time library and the game), the game alone, a cached load: seconds of
    wall time of the compiler runs, in a child process each (the cache is on disk)."""
    code = ("import json, time, gamespec\n"
            "from gamespec.compile.cbuild import library\n"
            f"g = gamespec.load({os.path.join(ROOT, 'games', stem + '.yaml')!r}, backend='native')\n"
            f"rs = g.ruleset({players}, {{}})\n"
            "t = time.perf_counter(); c = time.process_time()\n"
            "lib = library(rs)\n"
            "print(json.dumps({'seconds': time.perf_counter() - t, 'cpu': time.process_time() - c, "
            "'cached': lib.cached, 'generate': lib.generate_seconds, 'compile': lib.build_seconds}))\n")
    out = {}
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, GAMESPEC_CACHE=d)
        for what in ("cold", "cached"):
            r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT)
            if r.returncode != 0:
                raise SystemExit(r.stderr)
            out[what] = json.loads(r.stdout.strip().splitlines()[-1])
        for fn in os.listdir(d):        # the game again, the run-time object kept
            if fn.startswith("gs-"):
                os.unlink(os.path.join(d, fn))
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT)
        out["game_only"] = json.loads(r.stdout.strip().splitlines()[-1])
    return out


def instruction_figures(stem, players, games):
    """Callgrind instructions per game: native playouts and the baseline, the same seeds."""
    from instructions import _helper, callgrind_counts
    _helper()
    counts, stdout = callgrind_counts([os.path.abspath(__file__), "--child", stem, str(players), str(games)], stem)
    return {k: v / games for k, v in counts.items()}


def child(stem, players, games):
    import importlib

    import gamespec
    from instructions import _helper
    cg = _helper()
    base = importlib.import_module(stem + "_baseline")
    nat = gamespec.load(os.path.join(ROOT, "games", stem + ".yaml"), backend="native")
    nat.playouts(10, seed=10 ** 6, players=players)
    for s in range(10 ** 6, 10 ** 6 + 10):
        base.play_game(s, players=players)
    cg.cg_zero()
    nat.playouts(games, seed=0, players=players)
    cg.cg_dump(b"native")
    for s in range(games):
        base.play_game(s, players=players)
    cg.cg_dump(b"baseline")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=200, help=f"games per loop and round (at least {MIN_GAMES}; default 200)")
    ap.add_argument("--rounds", type=int, default=5, help="interleaved rounds (default 5)")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--positions", type=int, default=8, help="ISMCTS positions per game (default 8)")
    ap.add_argument("--quick", action="store_true", help="a smoke run: 30 games, 2 rounds (below the 200-game rule)")
    ap.add_argument("--instructions", action="store_true", help="also count instructions per game (callgrind)")
    ap.add_argument("--no-simulate", action="store_true")
    ap.add_argument("--trace-only", action="store_true",
                    help="only the cost of a game's trace recorded in C (random native games with and without it)")
    ap.add_argument("--no-ismcts", action="store_true")
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument("--json", metavar="OUT")
    ap.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    ap.add_argument("games_", nargs="*", metavar="GAME", help="games (default: every game with a baseline)")
    a = ap.parse_args(argv)
    if a.child:
        child(a.child[0], int(a.child[1]), int(a.child[2]))
        return 0
    games, rounds = (30, 2) if a.quick else (max(a.games, MIN_GAMES), a.rounds)
    stems = a.games_ or sorted(os.path.basename(p)[:-len("_baseline.py")]
                               for p in glob.glob(os.path.join(ROOT, "bench", "baselines", "*_baseline.py")))
    result = {"python": sys.version.split()[0], "cpus": os.cpu_count(), "players": a.players, "games": {}}
    try:
        from gamespec.compile.cbuild import compiler
        result["compiler"] = compiler()[1]
    except Exception as e:  # noqa: BLE001
        raise SystemExit(f"no native engine here: {e}")
    for stem in stems:
        row = result["games"][stem] = {}
        t = row["trace"] = trace_figures(stem, a.players, games, rounds)
        u = t["us_per_game"]
        print(f"{stem:<8} random native games CPU µs/game: untraced {u['untraced']:7.1f}  traced "
              f"{u['traced']:7.1f} ({t['trace_cost']:.2f}x) | the Python loop traced {u['python_traced']:8.0f} "
              f"({t['python_vs_traced']:.0f}x the C trace)  [{t['games_per_figure']} games per figure]", flush=True)
        if a.trace_only:
            continue
        f = row["playouts"] = playouts_figures(stem, a.players, games, rounds)
        u, r = f["us_per_game"], f["ratios"]
        print(f"{stem:<8} playouts CPU µs/game: default {u['default']:8.0f}  native {u['native']:6.1f}  "
              f"baseline {u['baseline']:7.0f} | native {r['native_vs_default']:5.1f}x default, "
              f"{r['native_vs_baseline']:5.1f}x baseline (default 1/{1 / r['default_vs_baseline']:.2f} of baseline)"
              f"  [{f['games_per_figure']} games per figure]", flush=True)
        if a.instructions:
            ins = row["instructions_per_game"] = instruction_figures(stem, a.players, games)
            print(f"{stem:<8} instructions/game: native {ins['native']:10.0f}  baseline {ins['baseline']:10.0f} "
                  f"({ins['baseline'] / ins['native']:.1f}x)", flush=True)
        if not a.no_simulate:
            s = row["simulate"] = simulate_figures(stem, a.players, games, rounds)
            print(f"{stem:<8} simulate CPU µs/game: python {s['us_per_game']['python']:8.0f}  native "
                  f"{s['us_per_game']['native']:6.1f} | {s['ratio']:5.1f}x", flush=True)
        if not a.no_ismcts:
            m = row["ismcts"] = ismcts_figures(stem, a.players, a.positions)
            c = m["cpu_ms_per_decision"]
            print(f"{stem:<8} ISMCTS CPU ms/decision: python 100 it {c['python_100']:6.1f}  native 100 it "
                  f"{c['native_100']:5.2f}  native 1000 it {c['native_1000']:6.2f} | native 1000 it costs "
                  f"1/{m['native_1000_vs_python_100']:.1f} of python 100 it", flush=True)
        if not a.no_build:
            b = row["build"] = build_figures(stem, a.players)
            print(f"{stem:<8} build: cold {b['cold']['seconds']:.2f} s (runtime + game), game only "
                  f"{b['game_only']['seconds']:.2f} s, cached {b['cached']['seconds'] * 1000:.0f} ms "
                  f"(generating the C {b['cached']['generate'] * 1000:.0f} ms)", flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
