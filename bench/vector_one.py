"""One VectorEnv configuration in its own process: M steps per CPU second of `step()` alone (the
first legal id of each game as its action, chosen outside the timed call), warmed up first. Separate
processes alternated in a shell loop compare configurations without one's games and rows evicting
another's from the caches (bench/envs.py --agents interleaves them call by call in one process).

    for r in 1 2 3; do for dt in float32 int16 uint8; do
        python bench/vector_one.py --spec games/bacchus.yaml --num-envs 16 --obs-dtype $dt; done; done
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--spec", required=True, help="spec file")
    ap.add_argument("--players", type=int, default=4, help="players (default 4)")
    ap.add_argument("--num-envs", type=int, default=16, help="games a call (default 16)")
    ap.add_argument("--obs-dtype", default="float32", help="float32 (default), int16, int8 or uint8")
    ap.add_argument("--opponents", default=None, help="none (default), random or ismcts:N")
    ap.add_argument("--calls", type=int, default=30000, help="timed calls (default 30,000)")
    ap.add_argument("--warmup", type=int, default=2000, help="calls first, not timed (default 2,000)")
    a = ap.parse_args(argv)
    from gamespec.envs import VectorEnv
    env = VectorEnv(a.spec, players=a.players, num_envs=a.num_envs, seed=0, obs_dtype=a.obs_dtype,
                    opponents=None if a.opponents in (None, "none") else a.opponents)
    obs, _ = env.reset()
    for _ in range(a.warmup):
        obs = env.step(obs["action_mask"].argmax(axis=1))[0]
    cpu = 0.0
    for _ in range(a.calls):
        act = obs["action_mask"].argmax(axis=1)
        c = time.process_time()
        obs = env.step(act)[0]
        cpu += time.process_time() - c
    print(json.dumps({"spec": os.path.basename(a.spec)[:-5], "players": a.players, "num_envs": a.num_envs,
                      "obs_dtype": a.obs_dtype, "opponents": a.opponents or "none",
                      "m_steps_per_cpu_s": round(a.calls * a.num_envs / cpu / 1e6, 3)}), flush=True)


if __name__ == "__main__":
    main()
