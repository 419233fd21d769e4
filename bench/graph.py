"""`gamespec graph` on a large valid spec (issue 12: 128 phases x 32 guarded transitions, ~160 KB):
wall time, peak memory and outcome per format, each in a fresh process; the same for the shipped games.

    python bench/graph.py [--root CHECKOUT] [--renderer matplotlib] [--phases 128 --transitions 32]

--root runs another checkout's gamespec (e.g. an older commit from `git archive`) for a before/after.
"""
from __future__ import annotations

import argparse
import glob
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, ROOT)


def run(root, spec, out, renderer):
    """One `gamespec graph` in a fresh process: (wall seconds, CPU seconds, peak MB of that process, exit
    code, bytes written, last line of stderr)."""
    env = dict(os.environ, PYTHONPATH=root, PYTHONDONTWRITEBYTECODE="1")
    t = time.perf_counter()
    p = subprocess.Popen([sys.executable, "-m", "gamespec", "graph", spec, "-o", out, "--renderer", renderer],
                         env=env, cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    err = p.stderr.read()
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    secs = time.perf_counter() - t
    lines = err.strip().splitlines()
    what = (lines[-1] if lines else "")[:110]
    size = os.path.getsize(out) if os.path.exists(out) else 0
    return secs, usage.ru_utime + usage.ru_stime, usage.ru_maxrss // 1024, p.returncode, size, what


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", default=ROOT, help="the checkout whose gamespec runs (default: this one)")
    ap.add_argument("--renderer", default="matplotlib", choices=("auto", "graphviz", "matplotlib"))
    ap.add_argument("--phases", type=int, default=128)
    ap.add_argument("--transitions", type=int, default=32)
    ap.add_argument("--formats", default="dot,svg,png,pdf")
    ap.add_argument("--no-games", action="store_true", help="only the large spec")
    a = ap.parse_args(argv)
    from test_graph import big_spec
    root = os.path.abspath(a.root)
    with tempfile.TemporaryDirectory() as tmp:
        big = os.path.join(tmp, "big.yaml")
        with open(big, "w") as f:
            f.write(big_spec(a.phases, a.transitions))
        specs = [big] + ([] if a.no_games else sorted(glob.glob(os.path.join(ROOT, "games", "*.yaml"))))
        print(f"gamespec graph, checkout {root}, renderer {a.renderer}; big.yaml = {a.phases} phases x "
              f"{a.transitions} guarded transitions ({os.path.getsize(big)} bytes)")
        print(f"{'spec':<14}{'format':<7}{'wall s':>8}{'CPU s':>7}{'peak MB':>9}{'exit':>5}{'bytes':>10}  stderr (last line)")
        for spec in specs:
            for fmt in a.formats.split(","):
                out = os.path.join(tmp, f"out.{fmt}")
                if os.path.exists(out):
                    os.remove(out)
                secs, cpu, mb, code, size, what = run(root, spec, out, a.renderer)
                print(f"{os.path.basename(spec):<14}{fmt:<7}{secs:>8.2f}{cpu:>7.2f}{mb:>9}{code:>5}{size:>10}  {what}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
