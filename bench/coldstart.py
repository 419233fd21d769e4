"""Cold start: wall time of `gamespec validate FILE` in a fresh process (median of several runs)
and of load + check + compile in-process.

    python bench/coldstart.py [--runs 7] [SPEC...]
"""
from __future__ import annotations

import argparse
import glob
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("specs", nargs="*")
    a = ap.parse_args(argv)
    specs = a.specs or sorted(glob.glob(os.path.join(ROOT, "games", "*.yaml")))
    env = dict(os.environ, PYTHONPATH=ROOT)
    for spec in specs:
        times = []
        for _ in range(a.runs):
            t = time.perf_counter()
            r = subprocess.run([sys.executable, "-m", "gamespec", "validate", spec], env=env,
                               capture_output=True, text=True)
            times.append(time.perf_counter() - t)
            if r.returncode != 0:
                print(r.stdout, r.stderr)
                return 1
        empty = []
        for _ in range(a.runs):
            t = time.perf_counter()
            subprocess.run([sys.executable, "-c", "pass"], env=env)
            empty.append(time.perf_counter() - t)
        code = ("import time,sys; t=time.perf_counter(); import gamespec; g=gamespec.load(sys.argv[1]); "
                "t1=time.perf_counter(); g.ruleset(g.min_players, g.check_options({})); t2=time.perf_counter();"
                "print((t1-t)*1e3, (t2-t1)*1e3)")
        r = subprocess.run([sys.executable, "-c", code, spec], env=env, capture_output=True, text=True)
        imp_load, comp = map(float, r.stdout.split())
        print(f"{os.path.basename(spec):<14} validate {statistics.median(times) * 1e3:6.0f} ms "
              f"(python alone {statistics.median(empty) * 1e3:4.0f} ms) | first load in a fresh process "
              f"(imports + load + check) {imp_load:5.0f} ms, compile {comp:5.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
