"""One VectorEnv configuration in its own process: M steps per CPU second of `step()` alone, warmed up
first. Separate processes alternated in a shell loop compare configurations without one's games and
rows evicting another's from the caches (bench/envs.py --agents interleaves them call by call in one
process).

    for r in 1 2 3; do for dt in float32 int16 uint8; do
        python bench/vector_one.py --spec games/bacchus.yaml --num-envs 16 --obs-dtype $dt; done; done

How `step()` is timed (`--timing`):
  replay (default): a first pass plays the calls with the first legal id of each game (the masks'
      argmax) and records those actions; a fresh env on the same seed then replays them (the same
      games: the engine is deterministic), the CPU clock read once per block of 1,000 calls. Neither
      the argmax nor the clock is in the figure.
  per-call: the argmax before each call, the CPU clock read around each call: the clock's own cost
      (about 0.7 µs a read on this machine, ~5% of a 16-game call) is inside every window. The form
      used up to the twelfth pass of docs/agents.md.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

BLOCK = 1000


def _env(a):
    from gamespec.envs import VectorEnv
    return VectorEnv(a.spec, players=a.players, num_envs=a.num_envs, seed=0, obs_dtype=a.obs_dtype,
                     opponents=None if a.opponents in (None, "none") else a.opponents)


def per_call(a):
    """CPU seconds of a.calls calls, the clock read around each (the argmax outside)."""
    env = _env(a)
    obs, _ = env.reset()
    for _ in range(a.warmup):
        obs = env.step(obs["action_mask"].argmax(axis=1))[0]
    cpu = 0.0
    for _ in range(a.calls):
        act = obs["action_mask"].argmax(axis=1)
        c = time.process_time()
        obs = env.step(act)[0]
        cpu += time.process_time() - c
    env.close()
    return cpu


def replay(a):
    """CPU seconds of a.calls calls replaying recorded actions, the clock read once per block."""
    import numpy as np
    env = _env(a)
    obs, _ = env.reset()
    acts = np.empty((a.warmup + a.calls, a.num_envs), np.int64)
    for k in range(len(acts)):            # record (and warm the code paths up)
        acts[k] = obs["action_mask"].argmax(axis=1)
        obs = env.step(acts[k])[0]
    env.close()
    env = _env(a)
    env.reset()
    step = env.step
    for k in range(a.warmup):
        step(acts[k])
    rows = list(acts[a.warmup:])           # views made before the clock starts
    cpu = 0.0
    for b in range(0, len(rows), BLOCK):
        block = rows[b:b + BLOCK]
        c = time.process_time()
        for act in block:
            step(act)
        cpu += time.process_time() - c
    env.close()
    return cpu


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n\n".join(__doc__.split("\n\n")[2:]))
    ap.add_argument("--spec", required=True, help="spec file")
    ap.add_argument("--players", type=int, default=4, help="players (default 4)")
    ap.add_argument("--num-envs", type=int, default=16, help="games a call (default 16)")
    ap.add_argument("--obs-dtype", default="float32", help="float32 (default), int16, int8 or uint8")
    ap.add_argument("--opponents", default=None, help="none (default), random or ismcts:N")
    ap.add_argument("--calls", type=int, default=30000, help="timed calls (default 30,000)")
    ap.add_argument("--warmup", type=int, default=2000, help="calls first, not timed (default 2,000)")
    ap.add_argument("--timing", choices=("replay", "per-call"), default="replay",
                    help="replay recorded actions, the clock read per block (default), or the clock "
                         "read around each call (see below)")
    a = ap.parse_args(argv)
    cpu = (replay if a.timing == "replay" else per_call)(a)
    print(json.dumps({"spec": os.path.basename(a.spec)[:-5], "players": a.players, "num_envs": a.num_envs,
                      "obs_dtype": a.obs_dtype, "opponents": a.opponents or "none", "timing": a.timing,
                      "m_steps_per_cpu_s": round(a.calls * a.num_envs / cpu / 1e6, 3)}), flush=True)


if __name__ == "__main__":
    main()
