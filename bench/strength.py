"""Strength of the search bots: ISMCTS against three random and against three greedy bots.

    python bench/strength.py                          # every spec in games/, 100 and 1000 iterations
    python bench/strength.py --games 200 --iterations 100 --workers 2 --json bench/results/strength.json
    python bench/strength.py --quick                  # a smoke run (few games, few iterations)
    python bench/strength.py --speed --iterations 100 # ms per ISMCTS decision on fixed positions
    python bench/strength.py games/bali.yaml --players 2 --ladder random,greedy,ismcts:100,ismcts:1000 --games 100

`--speed` plays no match: it times the ISMCTS bot's decisions on the same fixed positions every run
(every 5th decision with a choice in random games with seeds 0, 1, 2, the first 8 per spec, P
players) and prints ms per decision, ms per iteration, and the floor an iteration cannot beat with
this engine (one `view.determinize(rng)` plus one in-engine `playout(rng, in_place=True)` from the
same positions). `--bot-class module:Class` times another ISMCTS class (same constructor) instead,
e.g. an older version for a before/after comparison in one process. `--speed --instructions` counts
CPU instructions per decision under callgrind instead (exact and independent of the machine's load;
~50x slower, so few positions and iterations), for each `--bot-class` given, on the same positions.

Each game seats one ISMCTS bot and P-1 opponents of one kind; the ISMCTS seat rotates with the game
number (so no seat has an edge) and every game has its own seed. A win shared by k players counts
1/k. Printed per spec, iteration budget and opponent: games played, the ISMCTS win rate with a 95%
Wilson interval, the rate a seat would get by chance (1/P), and the ISMCTS bot's mean milliseconds
per decision, CPU time of its process (what the search costs, little changed by other load) and wall
time (what a player waits, on this machine at that moment); decisions with a single legal action are
answered without search and not counted.

The games of all configurations of a run are played interleaved (game 0 of every row, then game 1,
...), so a run stopped early leaves every row with about the same number of games. `--json` and
`--markdown` are rewritten after every finished game (each game's result is in the JSON), so killing
a run loses only the games under way; `--resume` reads the JSON back and plays only the games not in
it. `--max-minutes` stops starting new games after that much wall time (the ones under way finish):
the table then says how many games each row has. Timings on a shared machine are noisy.
"""
from __future__ import annotations

import argparse
import glob
import json
import math
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)


def one_game(path, players, iterations, opponent, seed, game_no, engine="native"):
    """One game: ISMCTS in seat game_no % players; returns its win share and search time. `engine`:
    "native" (the searches run in C, docs/native.md) or "python"."""
    import gamespec
    from gamespec.bots import make_bot, resolve
    game = _GAMES.get(path) or _GAMES.setdefault(path, gamespec.load(path))
    seat = game_no % players
    bots = [make_bot(f"ismcts:{iterations}" if p == seat else opponent, p, seed, engine=engine)
            for p in range(players)]
    s = game.new_game(players=players, seed=seed)
    searched, spent, cpu = 0, 0.0, 0.0
    while not s.is_terminal:
        p = s.current_player
        v = s.view(p)
        if p == seat:
            t, c = time.perf_counter(), time.process_time()
            i = resolve(v, bots[p].choose(v))
            if v.num_legal_actions > 1:
                spent += time.perf_counter() - t
                cpu += time.process_time() - c
                searched += 1
        else:
            i = resolve(v, bots[p].choose(v))
        s.apply(s.legal_actions()[i])
    share = 1.0 / len(s.winners) if seat in s.winners else 0.0
    return {"share": share, "searched": searched, "seconds": spent, "cpu_seconds": cpu}


_GAMES = {}


def speed_positions(game, players, per_spec=8, every=5):
    """Fixed positions: every `every`-th decision with a choice in random games seeded 0, 1, 2, ..."""
    import random
    out = []
    for seed in range(100):
        s = game.new_game(players=players, seed=seed)
        rng = random.Random(seed)
        k = 0
        while not s.is_terminal:
            n = s.legal_action_count()
            if n > 1 and k % every == 0:
                out.append(s.clone())
                if len(out) == per_spec:
                    return out
            k += 1
            s.apply_index(rng.randrange(n))
    return out


def speed(specs, players, iterations, bot_class, rounds):
    """ms per ISMCTS decision (best of `rounds` passes over the positions: the least disturbed by
    other load), ms per iteration, and the determinize + playout floor per iteration."""
    import random
    import gamespec
    from gamespec.bots import load_class, resolve
    cls = load_class(bot_class)
    rows = []
    for path in specs:
        game = gamespec.load(path)
        positions = speed_positions(game, players)
        best = floor = best_cpu = floor_cpu = float("inf")
        choices = None
        for _ in range(rounds):
            t, c = time.perf_counter(), time.process_time()
            picked = []
            for s in positions:
                v = s.view(s.current_player)
                bot = cls(seed=1, seat=s.current_player, iterations=iterations)
                picked.append(resolve(v, bot.choose(v)))
            best = min(best, (time.perf_counter() - t) / len(positions))
            best_cpu = min(best_cpu, (time.process_time() - c) / len(positions))
            choices = picked
            rng = random.Random(1)
            t, c = time.perf_counter(), time.process_time()
            for s in positions:
                v = s.view(s.current_player)
                for _ in range(20):
                    v.determinize(rng).playout(rng, in_place=True)
            floor = min(floor, (time.perf_counter() - t) / (20 * len(positions)))
            floor_cpu = min(floor_cpu, (time.process_time() - c) / (20 * len(positions)))
        rows.append({"spec": os.path.relpath(path, ROOT), "players": players, "iterations": iterations,
                     "bot": bot_class, "positions": len(positions), "ms_per_decision": 1000 * best,
                     "ms_per_iteration": 1000 * best / iterations, "floor_ms_per_iteration": 1000 * floor,
                     "cpu_ms_per_decision": 1000 * best_cpu, "cpu_ms_per_iteration": 1000 * best_cpu / iterations,
                     "cpu_floor_ms_per_iteration": 1000 * floor_cpu,
                     "choices": choices})
        r = rows[-1]
        print(f"{os.path.basename(path)[:-5]:10} {iterations:5} it  CPU {r['cpu_ms_per_decision']:7.1f} ms/decision "
              f"{r['cpu_ms_per_iteration']:6.3f} ms/iteration (floor {r['cpu_floor_ms_per_iteration']:.3f})  "
              f"wall {r['ms_per_decision']:7.1f} ms/decision (floor {r['floor_ms_per_iteration']:.3f}/it)  "
              f"choices {choices}", flush=True)
    return rows


def wilson(wins, n, z=1.96):
    if n == 0:
        return (None, None)
    p = wins / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, c - h), min(1.0, c + h))


def instr_child(specs, players, iterations, classes, per_spec):
    """Under callgrind: per spec and class, zero the counts, decide on the fixed positions, dump."""
    import importlib.util
    import gamespec
    from gamespec.bots import load_class
    spec = importlib.util.spec_from_file_location("bench_instructions", os.path.join(ROOT, "bench", "instructions.py"))
    helper = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(helper)
    cg = helper._helper()
    for path in specs:
        game = gamespec.load(path)
        positions = speed_positions(game, players, per_spec)
        for k, name in enumerate(classes):
            cls = load_class(name)
            s = positions[0]                        # warm-up: lazy code, first-call caches
            cls(seed=2, seat=s.current_player, iterations=5).choose(s.view(s.current_player))
            cg.cg_zero()
            for s in positions:
                cls(seed=1, seat=s.current_player, iterations=iterations).choose(s.view(s.current_player))
            cg.cg_dump(f"{os.path.basename(path)[:-5]}:{k}".encode())
    print(f"POSITIONS {per_spec}", flush=True)


def instructions(specs, players, iterations, classes, per_spec):
    """CPU instructions per ISMCTS decision (callgrind: exact, not changed by the machine's load)."""
    from instructions import callgrind_counts   # bench/ is on sys.path when run as a script
    counts, _ = callgrind_counts([os.path.abspath(__file__), "--instructions-child", json.dumps(
        [specs, players, iterations, classes, per_spec])])
    rows = []
    for path in specs:
        name = os.path.basename(path)[:-5]
        for k, cls in enumerate(classes):
            n = counts[f"{name}:{k}"]
            rows.append({"spec": os.path.relpath(path, ROOT), "players": players, "iterations": iterations,
                         "bot": cls, "positions": per_spec, "instructions_per_decision": n / per_spec,
                         "instructions_per_iteration": n / per_spec / iterations})
            print(f"{name:10} {iterations:5} it  {n / per_spec / 1e6:9.1f} M instructions/decision  "
                  f"{n / per_spec / iterations / 1e6:7.3f} M/iteration  {cls}", flush=True)
    return rows


def summarize(cfg, results, games):
    """A table row from one configuration's finished games."""
    iterations, path, opponent, players = cfg
    n = len(results)
    wins = sum(r["share"] for r in results)
    lo, hi = wilson(wins, n)
    searched = sum(r["searched"] for r in results)
    spent = sum(r["seconds"] for r in results)
    timed = [r for r in results if "cpu_seconds" in r]     # games played before CPU time was kept have none
    cpu_searched = sum(r["searched"] for r in timed)
    cpu = sum(r["cpu_seconds"] for r in timed)
    return {"spec": os.path.relpath(path, ROOT), "players": players, "iterations": iterations,
            "opponent": opponent, "games": n, "games_requested": games, "wins": wins,
            "win_rate": wins / n if n else None, "ci95": [lo, hi], "chance": 1 / players,
            "ms_per_decision": 1000 * spent / searched if searched else None,
            "cpu_ms_per_decision": 1000 * cpu / cpu_searched if cpu_searched else None,
            "cpu_decisions": cpu_searched,
            "decisions": searched}


def row_key(cfg):
    iterations, path, opponent, players = cfg
    return f"{os.path.relpath(path, ROOT)}|{players}|{iterations}|{opponent}"


def run(configs, games, seed, workers, max_seconds, done, on_result, engine="native"):
    """Every (configuration, game) not in `done`, game-major; on_result(cfg index, result) after each."""
    t0 = time.perf_counter()
    jobs = [(ci, g) for g in range(games) for ci, cfg in enumerate(configs)
            if g not in done.get(row_key(cfg), {})]

    def args(ci, g):
        iterations, path, opponent, players = configs[ci]
        return (path, players, iterations, opponent, seed + g, g, engine)
    if workers <= 1:
        for ci, g in jobs:
            if time.perf_counter() - t0 > max_seconds:
                break
            on_result(ci, dict(one_game(*args(ci, g)), game=g, seed=seed + g))
        return
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    with ProcessPoolExecutor(workers) as ex:
        pending = {}
        jobs.reverse()
        while jobs or pending:
            while jobs and len(pending) < workers and time.perf_counter() - t0 <= max_seconds:
                ci, g = jobs.pop()
                pending[ex.submit(one_game, *args(ci, g))] = (ci, g)
            if not pending:
                break
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for f in finished:
                ci, g = pending.pop(f)
                on_result(ci, dict(f.result(), game=g, seed=seed + g))


def fmt_row(r):
    wr = "-" if r["win_rate"] is None else f"{100 * r['win_rate']:.1f}%"
    ci = "-" if r["ci95"][0] is None else f"[{100 * r['ci95'][0]:.1f}, {100 * r['ci95'][1]:.1f}]"
    ms = "-" if r["ms_per_decision"] is None else f"{r['ms_per_decision']:.0f}"
    cpu = "-" if r.get("cpu_ms_per_decision") is None else f"{r['cpu_ms_per_decision']:.0f}"
    name = os.path.basename(r["spec"])[:-5]
    short = "" if r["games"] >= r["games_requested"] else f" (of {r['games_requested']})"
    return (f"| {name} | {r['players']} | {r['iterations']} | {r['opponent']} | {r['games']}{short} | "
            f"{wr} | {ci} | {100 * r['chance']:.0f}% | {cpu} | {ms} |")


HEADER = ("| spec | P | iterations | opponents (x P-1) | games | ISMCTS win rate | 95% interval | chance "
          "| CPU ms/decision | wall ms/decision |\n"
          "|---|---|---|---|---|---|---|---|---|---|")


def write_markdown(path, rows, command):
    with open(path, "w") as f:
        f.write(f"<!-- {command} -->\n{HEADER}\n")
        for r in rows:
            f.write(fmt_row(r) + "\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("specs", nargs="*", help="spec files (default: games/*.yaml)")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--iterations", type=int, nargs="+", default=[100, 1000])
    ap.add_argument("--opponents", nargs="+", default=["random", "greedy"])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1000)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--max-minutes", type=float, default=float("inf"),
                    help="stop starting games after this much wall time (games under way finish)")
    ap.add_argument("--json", metavar="OUT", help="also write the figures and every game's result as JSON "
                    "(rewritten after each game)")
    ap.add_argument("--markdown", metavar="OUT", help="also write the table as markdown (rewritten after each game)")
    ap.add_argument("--resume", action="store_true", help="keep the games already in --json, play the rest")
    ap.add_argument("--quick", action="store_true", help="smoke run: 6 games, 20 and 50 iterations")
    ap.add_argument("--speed", action="store_true",
                    help="time ISMCTS decisions on fixed positions instead of playing matches")
    ap.add_argument("--bot-class", nargs="+", default=["gamespec.bots.ismcts:ISMCTSBot"],
                    help="with --speed: the ISMCTS class to time (module:Class; several with --instructions)")
    ap.add_argument("--positions", type=int, default=3, help="with --instructions: positions per spec")
    ap.add_argument("--rounds", type=int, default=3, help="with --speed: passes over the positions (best kept)")
    ap.add_argument("--instructions", action="store_true",
                    help="with --speed: CPU instructions per decision under callgrind (exact; slow: use few "
                    "iterations), for every --bot-class given")
    ap.add_argument("--instructions-child", help=argparse.SUPPRESS)
    ap.add_argument("--engine", choices=("native", "python"), default="native",
                    help="where the ISMCTS searches run (default native: in C; tables before issue 42: python)")
    ap.add_argument("--ladder", metavar="KINDS",
                    help="instead of matches: the skill ladder of each spec (gamespec/analysis/ladder.py), e.g. "
                         "random,greedy,ismcts:100,ismcts:1000: each rung in one seat against the rung below, "
                         "rotated, --games deals, and the skill-versus-luck index")
    a = ap.parse_args(argv)
    if a.instructions_child:
        instr_child(*json.loads(a.instructions_child))
        return
    if a.quick:
        a.games, a.iterations = 6, [20, 50]
    specs = a.specs or sorted(glob.glob(os.path.join(ROOT, "games", "*.yaml")))
    if a.speed and a.instructions:
        rows = [r for it in a.iterations for r in instructions(specs, a.players, it, a.bot_class, a.positions)]
        if a.json:
            with open(a.json, "w") as f:
                json.dump({"rows": rows}, f, indent=1)
        return
    if a.speed:
        rows = [r for it in a.iterations for r in speed(specs, a.players, it, a.bot_class[0], a.rounds)]
        if a.json:
            with open(a.json, "w") as f:
                json.dump({"machine_cpus": os.cpu_count(), "load_average": os.getloadavg(), "rows": rows},
                          f, indent=1)
        return
    if a.ladder:
        ladders(specs, a)
        return
    if a.resume and not a.json:
        ap.error("--resume needs --json (the file the earlier run wrote)")
    configs = [(it, os.path.abspath(path), opp, a.players)
               for it in a.iterations for path in specs for opp in a.opponents]
    done = {row_key(c): {} for c in configs}
    if a.resume and os.path.exists(a.json):
        with open(a.json) as f:
            old = json.load(f)
        if old.get("seed") != a.seed:
            ap.error(f"--resume: {a.json} was played with seed {old.get('seed')}, not {a.seed}")
        if old.get("engine", "python") != a.engine:
            ap.error(f"--resume: {a.json} was played with the {old.get('engine', 'python')} engine, not {a.engine}")
        for k, results in old.get("games", {}).items():
            if k in done:
                done[k] = {r["game"]: r for r in results}
    command = "python bench/strength.py " + " ".join(argv if argv is not None else sys.argv[1:])
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    t0 = time.perf_counter()

    def rows():
        return [summarize(c, list(done[row_key(c)].values()), a.games) for c in configs]

    def save():
        if a.json:
            tmp = a.json + ".tmp"
            with open(tmp, "w") as f:
                json.dump({"command": command, "started": started, "seed": a.seed, "engine": a.engine,
                           "machine_cpus": os.cpu_count(), "load_average": os.getloadavg(),
                           "wall_seconds": time.perf_counter() - t0, "rows": rows(),
                           "games": {k: sorted(v.values(), key=lambda r: r["game"]) for k, v in done.items()}},
                          f, indent=1)
            os.replace(tmp, a.json)
        if a.markdown:
            write_markdown(a.markdown, rows(), command)

    def on_result(ci, result):
        done[row_key(configs[ci])][result["game"]] = result
        save()
        n = sum(len(v) for v in done.values())
        if n % 10 == 0:
            print(f"[{time.strftime('%H:%M:%S')}] {n} of {len(configs) * a.games} games", file=sys.stderr,
                  flush=True)
    save()
    try:
        run(configs, a.games, a.seed, a.workers, a.max_minutes * 60, done, on_result, a.engine)
    finally:
        save()
        print(HEADER)
        for r in rows():
            print(fmt_row(r))


LADDER_HEADER = ("| spec | P | step | deals | win rate | 95% interval | fair | index | verdict |\n"
                 "|---|---|---|---|---|---|---|---|---|")


def ladders(specs, a):
    """--ladder: each spec's skill ladder (ladder.run on the --engine), printed and, with --markdown
    and --json, written (rewritten after each spec)."""
    from gamespec.analysis import ladder
    outs, rows = [], []
    for path in specs:
        t0 = time.perf_counter()
        out = ladder.run(path, a.ladder, games=a.games, players=a.players, seed=a.seed, engine=a.engine,
                         workers=a.workers, progress=lambda text: print(text, file=sys.stderr, flush=True))
        out["wall_seconds"] = time.perf_counter() - t0
        outs.append(out)
        print("\n".join(ladder.lines(out)) + "\n", flush=True)
        name = os.path.basename(path)[:-5]
        for st in out["steps"] + ([out["top"]] if out["top"] else []):
            lo, hi = st["ci95"]
            rows.append(f"| {name} | {out['players']} | {st['strong']} vs {st['weak']} | {out['games']} | "
                        f"{100 * st['win_rate']:.1f}% | [{100 * lo:.1f}, {100 * hi:.1f}] | {100 * st['fair']:.0f}% | "
                        f"{st['index']:.2f} | {st['clear']} |")
        rows.append(f"| {name} | {out['players']} | **index** {out['index']['strong']} vs {out['index']['weak']} | | | "
                    f"[{out['index']['ci95'][0]:.2f}, {out['index']['ci95'][1]:.2f}] | | {out['index']['index']:.2f} | "
                    f"{out['verdict']} |")
        if a.markdown:
            with open(a.markdown, "w") as f:
                f.write(LADDER_HEADER + "\n" + "\n".join(rows) + "\n")
        if a.json:
            with open(a.json, "w") as f:
                json.dump({"ladders": outs, "load_average": os.getloadavg()}, f, indent=1)


if __name__ == "__main__":
    main()
