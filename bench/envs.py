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
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rnd.randrange(len(legal))]))
        n += 1
    return n


def openspiel(g, seed, observe=False):
    rnd = random.Random(seed)
    st = g.new_initial_state(seed=seed)
    n = 0
    while not st.is_terminal():
        if observe:
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


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--spec", action="append", help="spec file (repeatable; default: games/*.yaml)")
    ap.add_argument("--players", type=int, help="player count (default: 3, or the spec's minimum if above)")
    ap.add_argument("--games", type=int, default=5, help="games per mode (default 5)")
    ap.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    ap.add_argument("--ismcts", type=int, metavar="GAMES",
                    help="instead: play GAMES games of OpenSpiel's ISMCTS against random players")
    ap.add_argument("--sims", type=int, default=20, help="ISMCTS simulations per move (default 20)")
    a = ap.parse_args(argv)
    paths = a.spec or sorted(glob.glob(os.path.join(ROOT, "games", "*.yaml")))
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
