"""The determinization plan built in C (docs/native.md, "The plan in C"): ISMCTS milliseconds (CPU)
per decision with the plan made in Python (determinize.determinizer + native_engine.flatten_plan, as
before) and made in C (ISMCTSBot engine="native" now; and a NativeState searched with no Python
State), on decisions of random games; and VectorEnv steps per CPU second with ISMCTS opponent seats.

    python bench/native_plan.py [--spec games/bacchus.yaml] [--players 4] [--iterations 20 200]
                                [--decisions 40] [--envs 16] [--steps 30]
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)


def positions(game, players, n, seed=0):
    out = []
    sd = seed
    while len(out) < n:
        s = game.new_game(players=players, seed=sd)
        r = random.Random(sd)
        k = 0
        while not s.is_terminal and len(out) < n:
            m = s.legal_action_count()
            if m > 1 and k % 3 == 0:
                out.append(s.clone())
            k += 1
            s.apply_index(r.randrange(m))
        sd += 1
    return out


def search_ms(game, players, states, iterations, mode):
    from gamespec.bots.ismcts import ISMCTSBot
    from gamespec.envs.common import native_kit
    from gamespec.interpreter import native_plan as NP
    rs = game.ruleset(players, game.check_options(None))
    lib = game.native_library(rs)
    NP.ready(lib)
    kit = native_kit(game, players, game.check_options(None), engine="auto") if mode == "native_state" else None
    saved = lib._plan_ok
    if mode == "python_plan":
        lib._plan_ok = False            # native_engine.search takes the Python plan (the path before)
    nss = [kit.from_state(s) for s in states] if kit is not None else None
    t = time.process_time()
    for i, s in enumerate(states):
        bot = ISMCTSBot(seed=i, seat=s.current_player, iterations=iterations, engine="native")
        if nss is not None:
            NP.ismcts_choose(bot, nss[i])
        else:
            bot.choose(s.view(s.current_player))
    dt = time.process_time() - t
    lib._plan_ok = saved
    return 1000 * dt / len(states)


def vector_rate(game, players, envs, steps, opponents):
    from gamespec.envs import VectorEnv
    env = VectorEnv(game, players=players, num_envs=envs, seed=1, opponents=opponents, learner=0)
    obs, _ = env.reset()
    t = time.process_time()
    for _ in range(steps):
        obs, *_ = env.step(obs["action_mask"].argmax(axis=1))
    dt = time.process_time() - t
    env.close()
    return envs * steps / dt


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spec", default=os.path.join(ROOT, "games", "bacchus.yaml"))
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--iterations", type=int, nargs="+", default=[20, 200])
    ap.add_argument("--decisions", type=int, default=40)
    ap.add_argument("--envs", type=int, default=16)
    ap.add_argument("--steps", type=int, default=30)
    a = ap.parse_args(argv)
    import gamespec
    game = gamespec.load(a.spec, backend="native")
    states = positions(game, a.players, a.decisions)
    name = os.path.basename(a.spec)
    search_ms(game, a.players, states[:4], 5, "c_plan")      # warm-up: the library loaded, caches made
    for it in a.iterations:
        row = {m: search_ms(game, a.players, states, it, m) for m in ("python_plan", "c_plan", "native_state")}
        print(f"{name} {a.players}p ISMCTS {it} iterations, ms CPU per decision ({len(states)} decisions): "
              f"plan in Python {row['python_plan']:.2f}, plan in C {row['c_plan']:.2f}, "
              f"NativeState {row['native_state']:.2f}")
    for opp in ["random"] + [f"ismcts:{it}" for it in a.iterations]:
        print(f"{name} {a.players}p VectorEnv opponents={opp}: {vector_rate(game, a.players, a.envs, a.steps, opp):,.0f} "
              f"learner steps per CPU second ({a.envs} envs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
