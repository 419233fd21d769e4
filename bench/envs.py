"""Benchmark: decisions/s of random play through the agent interfaces vs the plain API, same run.

    python bench/envs.py                        # every spec in games/, 3 players (2 for Bali), a table
    python bench/envs.py --games 10 --json out.json
    python bench/envs.py --spec games/bali.yaml --players 4
    python bench/envs.py --ismcts 20 --sims 20 --spec games/bali.yaml --players 2   # ISMCTS vs random

Modes, each playing the same seeds, interleaved game by game (so a busy machine slows them alike):
  plain     state.legal_actions() + state.apply(random one)                   (the baseline)
  ids       state.legal_action_ids() + state.apply_id(i)   (fixed ids, no tensors)
  pettingzoo  env.last() (tensor + mask of the agent to move) + env.step(random legal id)
  openspiel   state.legal_actions() + state.apply_action(random id)  (no observation asked for)
  openspiel+obs  the same plus observation_tensor(current player) each decision
Ratios are mode / plain in decisions per second. Needs the rl extra.

    python bench/envs.py --threads --spec games/bacchus.yaml --json out.json     # VectorEnv, 2 threads / 1
    python bench/envs.py --agents --games 200 --json bench/results/agents.json   # issue 38: µs per step of
        each API on both engines beside pyspiel's C++ games (CPU time, interleaved, warmed up), and
        VectorEnv steps/s per game, opponents and threads
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


def plain(game, players, seed):
    rnd = random.Random(seed)
    s = game.new_game(players=players, seed=seed)
    n = 0
    while not s.is_terminal:
        acts = s.legal_actions()
        s.apply(acts[rnd.randrange(len(acts))])
        n += 1
    return n


def ids(game, players, seed):
    rnd = random.Random(seed)
    s = game.new_game(players=players, seed=seed)
    n = 0
    while not s.is_terminal:
        legal = s.legal_action_ids()
        s.apply_id(legal[rnd.randrange(len(legal))])
        n += 1
    return n


def pettingzoo(env, seed):
    import numpy as np
    rnd = random.Random(seed)
    env.reset(seed=seed)
    n = 0
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        legal = obs["action_mask"].view(np.bool_).nonzero()[0]   # (np.flatnonzero of int8: 6x slower)
        env.step(int(legal[rnd.randrange(len(legal))]))
        n += 1
    return n


def openspiel(g, seed, observe=False, observer=None):
    """observe: the list state.observation_tensor(p); observer: an OpenSpiel observation
    (make_observation: its numpy array set by set_from), the form OpenSpiel's Python algorithms use."""
    rnd = random.Random(seed)
    st = g.new_initial_state(seed=seed)
    n = 0
    while not st.is_terminal():
        if observer is not None:
            observer.set_from(st, st.current_player())
        elif observe:
            st.observation_tensor(st.current_player())
        legal = st.legal_actions()
        st.apply_action(legal[rnd.randrange(len(legal))])
        n += 1
    return n


def bench(path, players, games):
    from gamespec.envs import openspiel as gos
    from gamespec.envs import pettingzoo_env
    game = gamespec.load(path)
    env = pettingzoo_env(game, players=players)
    g = gos.load(game, players=players)
    modes = {
        "plain": lambda seed: plain(game, players, seed),
        "ids": lambda seed: ids(game, players, seed),
        "pettingzoo": lambda seed: pettingzoo(env, seed),
        "openspiel": lambda seed: openspiel(g, seed),
        "openspiel+obs": lambda seed: openspiel(g, seed, observe=True),
    }
    for fn in modes.values():    # warm up: compile, caches
        fn(12345)
    time_of = {m: 0.0 for m in modes}
    decisions = {m: 0 for m in modes}
    for k in range(games):
        for m, fn in modes.items():
            t = time.perf_counter()
            decisions[m] += fn(1000 + k)
            time_of[m] += time.perf_counter() - t
    rate = {m: decisions[m] / time_of[m] for m in modes}
    return {"spec": os.path.relpath(path, ROOT), "players": players, "games": games,
            "actions": game.num_distinct_actions(players),
            "decisions": decisions, "decisions_per_s": rate,
            "ratio_to_plain": {m: rate[m] / rate["plain"] for m in modes}}


def ismcts_vs_random(path, players, games, sims, seed=0):
    """OpenSpiel's ISMCTS (random-rollout evaluator, `sims` simulations a move) in seat k % players
    of game k, uniform random players elsewhere: the bot's share of wins (a shared win counts 1/k)."""
    import numpy as np
    from open_spiel.python.algorithms import ismcts, mcts

    from gamespec.envs import openspiel as gos
    g = gos.load(path, players=players)
    rs = np.random.RandomState(seed)
    bot = ismcts.ISMCTSBot(g, mcts.RandomRolloutEvaluator(1, rs), uct_c=2.0, max_simulations=sims,
                           random_state=rs)
    rnd = random.Random(seed)
    won = 0.0
    t = time.perf_counter()
    for k in range(games):
        seat = k % players
        st = g.new_initial_state(seed=10_000 + k)
        while not st.is_terminal():
            legal = st.legal_actions()
            a = bot.step(st) if st.current_player() == seat else legal[rnd.randrange(len(legal))]
            st.apply_action(a)
        w = st.gamespec_state.winners
        won += 1 / len(w) if seat in w else 0.0
        print(f"  game {k + 1}/{games}: bot in seat {seat}, winners {w}, bot share so far "
              f"{won / (k + 1):.2f}", flush=True)
    return {"spec": os.path.relpath(path, ROOT), "players": players, "games": games, "simulations": sims,
            "bot_win_share": won / games, "fair_share": 1 / players, "seconds": time.perf_counter() - t}


# -- issue 38: per-step µs of each API, the native per-step state, pyspiel's C++ games, VectorEnv ------
PYSPIEL_GAMES = ["hearts", "crazy_eights(players=4)", "bridge(use_double_dummy_result=false)", "skat"]


def _gs_steps(kind, game, players, kit, genv, pzenv, observe):
    """A closure playing game `seed` with one API; returns decisions made."""
    def python_ids(seed):
        rnd = random.Random(seed)
        s = game.new_game(players=players, seed=seed) if kind == "python" else kit.new_game(seed)
        n = 0
        while not s.is_terminal:
            legal = s.legal_action_ids()
            if observe:
                s.observation_tensor(s.current_player)
            s.apply_id(legal[rnd.randrange(len(legal))])
            n += 1
        return n

    def os_(seed):
        return openspiel(genv, seed, observe)

    observer = None
    if observe:
        import pyspiel
        from open_spiel.python.observation import make_observation
        observer = make_observation(genv, pyspiel.IIGObservationType(perfect_recall=False))

    def os_observer(seed):
        return openspiel(genv, seed, True, observer)

    def pz(seed):
        return pettingzoo(pzenv, seed)
    return {"ids": python_ids, "openspiel": os_, "observer": os_observer, "pettingzoo": pz}


def _pyspiel_steps(name, observe):
    """observe: False, True (the list), or "observer" (make_observation's numpy array)."""
    import pyspiel
    g = pyspiel.load_game(name)
    obs = g.get_type().provides_observation_tensor
    observer = None
    if observe == "observer":
        from open_spiel.python.observation import make_observation
        observer = make_observation(g, pyspiel.IIGObservationType(perfect_recall=not obs))

    def run(seed):
        rnd = random.Random(seed)
        st = g.new_initial_state()
        n = 0
        while not st.is_terminal():
            if st.is_chance_node():
                outs = st.chance_outcomes()
                st.apply_action(outs[rnd.randrange(len(outs))][0])
                continue
            legal = st.legal_actions()
            if observer is not None:
                observer.set_from(st, st.current_player())
            elif observe:
                p = st.current_player()
                st.observation_tensor(p) if obs else st.information_state_tensor(p)
            st.apply_action(legal[rnd.randrange(len(legal))])
            n += 1
        return n
    return run


def agents(paths, players, games, rounds=1):
    """CPU µs per decision of every API, games interleaved (each mode plays game k before any plays
    game k + 1), warmed up; `games` games per figure."""
    from gamespec.envs import openspiel as gos
    from gamespec.envs import pettingzoo_env
    from gamespec.envs.common import native_kit
    modes = {}
    for path in paths:
        game = gamespec.load(path)
        P = min(max(players, game.min_players), game.max_players)
        opts = game.check_options(None)
        kit = native_kit(game, P, opts, engine="native")
        name = os.path.basename(path)[:-5]
        for engine in ("python", "native"):
            genv = gos.load(game, players=P, engine=engine, max_game_length=game.spec.decisions_per_game)
            pz = pettingzoo_env(game, players=P, engine=engine)
            for observe in (False, True):
                fns = _gs_steps(engine, game, P, kit, genv, pz, observe)
                tag = "+obs" if observe else ""
                modes[f"{name} {engine} ids{tag}"] = fns["ids"]
                modes[f"{name} {engine} openspiel{tag}"] = fns["openspiel"]
                if observe:
                    modes[f"{name} {engine} openspiel+observer"] = fns["observer"]
            modes[f"{name} {engine} pettingzoo(+obs)"] = fns["pettingzoo"]
    try:
        for g in PYSPIEL_GAMES:
            for observe, tag in ((False, ""), (True, " +obs"), ("observer", " +observer")):
                modes[f"pyspiel {g}{tag}"] = _pyspiel_steps(g, observe)
    except ImportError:
        pass
    for fn in modes.values():
        fn(99999)
        fn(99998)
    cpu = {m: 0.0 for m in modes}
    steps = {m: 0 for m in modes}
    for k in range(games):
        for m, fn in modes.items():
            t = time.process_time()
            steps[m] += fn(1000 + k)
            cpu[m] += time.process_time() - t
    return {m: {"us_per_step": 1e6 * cpu[m] / max(1, steps[m]), "steps": steps[m], "games": games} for m in modes}


def vector(paths, players, num_envs=256, calls=None, threads=(1, 2), dtypes=("float32", "int16")):
    """VectorEnv steps per CPU second and per wall second (one env step: the caller's decision, and
    with opponents='random' every other seat's up to the caller's next turn), per observation row type;
    configurations interleaved call by call."""
    from gamespec.envs import VectorEnv
    calls = calls or max(25, 102400 // num_envs)
    envs = {}
    for path in paths:
        game = gamespec.load(path)
        P = min(max(players, game.min_players), game.max_players)
        for opp in (None, "random"):
            for th in threads:
                for dt in dtypes:
                    e = VectorEnv(game, players=P, num_envs=num_envs, seed=0, opponents=opp, num_threads=th,
                                  obs_dtype=dt)
                    obs, _ = e.reset()
                    envs[(os.path.basename(path)[:-5], P, opp, th, dt)] = [e, obs, 0.0, 0.0, 0]
    for _ in range(20):      # warm up
        for v in envs.values():
            v[1] = v[0].step(v[1]["action_mask"].argmax(axis=1))[0]
    for _ in range(calls):
        for v in envs.values():
            a = v[1]["action_mask"].argmax(axis=1)
            c, w = time.process_time(), time.perf_counter()
            v[1] = v[0].step(a)[0]
            v[2] += time.process_time() - c
            v[3] += time.perf_counter() - w
            v[4] += num_envs
    out = []
    for (name, P, opp, th, dt), (e, _, c, w, n) in envs.items():
        out.append({"spec": name, "players": P, "opponents": opp or "none", "threads": th, "obs_dtype": dt,
                    "num_envs": num_envs,
                    "steps": n, "steps_per_cpu_s": n / c, "steps_per_wall_s": n / w})
        e.close()
    return out


def threads_ab(paths, players, sizes=(64, 256, 1024), rounds=9, block=65536, timing="replay"):
    """VectorEnv on 1 and 2 threads, the same games, alternated block by block and every configuration
    of a game once per round (a busy machine, or a second core that is slow for a few seconds, slows a
    round of each configuration, not every round of one): per round the steps per wall second of
    each; the median over rounds of the ratio (2 threads / 1), and the medians of M steps per wall and
    per CPU second. float32 rows, first legal id, warmed up; `step()` alone is timed (the caller's
    choice of actions, here an argmax over the masks, is the caller's serial part, not the env's).
    timing "replay": a first pass on one thread records every call's actions, both envs then replay
    them (the same games: the engine is deterministic, on any number of threads) and the clocks are
    read once per block; "per-call": the argmax before each call and the clocks read around it."""
    import statistics

    import numpy as np

    from gamespec.envs import VectorEnv
    out = []
    for path in paths:
        game = gamespec.load(path)
        P = min(max(players, game.min_players), game.max_players)
        confs = [(n, opp) for n in sizes for opp in (None, "random")]
        envs, per, acts = {}, {}, {}
        for n, opp in confs:
            calls = max(8, block // n)
            if timing == "replay":        # record: warm-up calls, then every round's
                e = VectorEnv(game, players=P, num_envs=n, seed=0, opponents=opp)
                obs = e.reset()[0]
                rec = np.empty((20 + rounds * calls, n), np.int64)
                for k in range(len(rec)):
                    rec[k] = obs["action_mask"].argmax(axis=1)
                    obs = e.step(rec[k])[0]
                e.close()
                acts[n, opp] = list(rec)
            for th in (1, 2):
                e = VectorEnv(game, players=P, num_envs=n, seed=0, opponents=opp, num_threads=th)
                obs = e.reset()[0]
                for k in range(20):
                    obs = e.step(acts[n, opp][k] if timing == "replay" else obs["action_mask"].argmax(axis=1))[0]
                envs[n, opp, th] = [e, obs]
                per[n, opp, th] = []
        for r in range(rounds):
            for n, opp in confs:
                calls = max(8, block // n)
                for th in (1, 2):
                    e, obs = envs[n, opp, th]
                    if timing == "replay":
                        rows, step = acts[n, opp][20 + r * calls:20 + (r + 1) * calls], e.step
                        c = time.process_time()
                        w = time.perf_counter()
                        for a in rows:
                            step(a)
                        wall = time.perf_counter() - w
                        cpu = time.process_time() - c
                    else:
                        cpu = wall = 0.0
                        for _ in range(calls):
                            a = obs["action_mask"].argmax(axis=1)
                            c = time.process_time()     # (the wall window inside the CPU one: neither
                            w = time.perf_counter()     # clock read, 0.6 µs for the CPU's, is in the wall)
                            obs = e.step(a)[0]
                            wall += time.perf_counter() - w
                            cpu += time.process_time() - c
                        envs[n, opp, th][1] = obs
                    per[n, opp, th].append((calls * n / wall, calls * n / cpu))
        for e, _ in envs.values():
            e.close()
        for n, opp in confs:
            p1, p2 = per[n, opp, 1], per[n, opp, 2]
            ratios = [b[0] / a[0] for a, b in zip(p1, p2)]
            row = {"spec": os.path.basename(path)[:-5], "players": P, "num_envs": n, "opponents": opp or "none",
                   "rounds": rounds, "steps_per_round": max(8, block // n) * n, "timing": timing,
                   "wall_ratio_2_to_1": statistics.median(ratios)}
            for th, p in ((1, p1), (2, p2)):
                row[f"wall_{th}"] = statistics.median(x[0] for x in p)
                row[f"cpu_{th}"] = statistics.median(x[1] for x in p)
            out.append(row)
            print(f"{row['spec'] + ' ' + str(P) + 'p':14} {n:6} {row['opponents']:>7}   1 thread {row['wall_1'] / 1e6:6.3f} "
                  f"(CPU {row['cpu_1'] / 1e6:6.3f})   2 threads {row['wall_2'] / 1e6:6.3f} (CPU {row['cpu_2'] / 1e6:6.3f})"
                  f"   M steps/s   wall x{row['wall_ratio_2_to_1']:.2f}", flush=True)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--spec", action="append", help="spec file (repeatable; default: games/*.yaml)")
    ap.add_argument("--players", type=int, help="player count (default: 3, or the spec's minimum if above)")
    ap.add_argument("--games", type=int, default=5, help="games per mode (default 5)")
    ap.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    ap.add_argument("--ismcts", type=int, metavar="GAMES",
                    help="instead: play GAMES games of OpenSpiel's ISMCTS against random players")
    ap.add_argument("--sims", type=int, default=20, help="ISMCTS simulations per move (default 20)")
    ap.add_argument("--vector", action="store_true", help="with --agents: VectorEnv figures only")
    ap.add_argument("--num-envs", type=int, default=256, help="VectorEnv games per call (default 256)")
    ap.add_argument("--obs-dtype", action="append", help="VectorEnv observation row types (repeatable; default "
                                                          "float32 and int16)")
    ap.add_argument("--threads", action="store_true",
                    help="instead: VectorEnv on 1 and 2 threads alternated block by block (64, 256, 1,024 games a "
                         "call; median wall ratio over 9 rounds of 65,536 steps)")
    ap.add_argument("--timing", choices=("replay", "per-call"), default="replay",
                    help="with --threads: replay recorded actions, the clocks read per block (default), or an "
                         "argmax and the clocks around each call")
    ap.add_argument("--agents", action="store_true",
                    help="instead: CPU µs per step of every API (Python and native engines, pyspiel's C++ "
                         "games beside them) and VectorEnv steps/s (issue 38); --games per figure (200)")
    a = ap.parse_args(argv)
    paths = a.spec or sorted(glob.glob(os.path.join(ROOT, "games", "*.yaml")))
    if a.threads:
        rows = threads_ab(paths, a.players or 4, timing=a.timing)
        if a.json:
            with open(a.json, "w") as f:
                json.dump(rows, f, indent=1)
        return
    if a.agents:
        players = a.players or 4
        per = {} if a.vector else agents(paths, players, a.games)
        if per:
            print(f"{'API (4 players where the game allows)':48} {'µs/step':>9} {'steps':>8}")
        for m, r in per.items():
            print(f"{m:48} {r['us_per_step']:9.2f} {r['steps']:>8}", flush=True)
        vec = vector(paths, players, a.num_envs, dtypes=tuple(a.obs_dtype or ("float32", "int16")))
        print(f"{'VectorEnv, %d games a call' % a.num_envs:28} {'opponents':>9} {'threads':>7} {'rows':>7} "
              f"{'M steps/CPU s':>14} {'M steps/wall s':>15}")
        for r in vec:
            print(f"{r['spec'] + ' ' + str(r['players']) + 'p':28} {r['opponents']:>9} {r['threads']:>7} {r['obs_dtype']:>7} "
                  f"{r['steps_per_cpu_s'] / 1e6:14.3f} {r['steps_per_wall_s'] / 1e6:15.3f}", flush=True)
        if a.json:
            with open(a.json, "w") as f:
                json.dump({"per_step": per, "vector": vec}, f, indent=1)
        return
    if a.ismcts:
        out = []
        for path in paths:
            game = gamespec.load(path)
            players = a.players or game.min_players
            r = ismcts_vs_random(path, players, a.ismcts, a.sims)
            out.append(r)
            print(f"{r['spec']} {players}p: ISMCTS ({a.sims} simulations) won {r['bot_win_share']:.2f} "
                  f"of {a.ismcts} games against random players (fair share {r['fair_share']:.2f}), "
                  f"{r['seconds']:.0f} s")
        if a.json:
            with open(a.json, "w") as f:
                json.dump(out, f, indent=1)
        return
    out = []
    print(f"{'spec':22} {'P':>2} {'ids':>6}  " + "  ".join(f"{m:>22}" for m in
          ("plain", "ids", "pettingzoo", "openspiel", "openspiel+obs")))
    for path in paths:
        game = gamespec.load(path)
        players = a.players or max(game.min_players, min(3, game.max_players))
        r = bench(path, players, a.games)
        out.append(r)
        cells = [f"{r['decisions_per_s'][m]:9.0f}/s ({r['ratio_to_plain'][m]:5.2f}x)"
                 for m in r["decisions_per_s"]]
        print(f"{r['spec']:22} {players:>2} {r['actions']:>6}  " + "  ".join(f"{c:>22}" for c in cells),
              flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
