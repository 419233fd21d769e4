"""Worst-case game time at the DEFAULT limits: specs that never end and spend their step budget in
the costliest ways a step can stand for (a tight loop, a long loop body, a long comprehension
condition, list walks), played until the per-game step budget (limits.steps_per_game) stops them.
The default is meant to keep any game under about 10 s on the development machine (2 cores).

    python bench/worst_game.py [--backend codegen|closures|both]
"""
from __future__ import annotations

import argparse
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import gamespec  # noqa: E402

TINY = open(os.path.join(ROOT, "tests", "specs", "tiny.yaml"), encoding="utf-8").read()
NEVER_ENDS = (TINY.replace('end_if: "all(stopped[p] == 1 for p in players) or size(deck) == 0"',
                           'end_if: "size(deck) > 1000"')
              .replace("    next: end", "    next: play")
              .replace('    if: "stopped[actor] == 0"', '    if: "false"')
              .replace("name: Tiny", 'name: Tiny\nlimits: {decisions_per_game: 10000000}\nend_if: "size(deck) > 1000"'))
LONG = " + ".join("(" + " + ".join(["x"] * 50) + ")" for _ in range(8))
EFFECTS = {
    "tight_loop": "let k = 0; while k < 99000 { k = k + 1 }",
    "long_loop_body": "let k = 0; while k < 99000 { " + "k = k + 1; " * 200 + "k = k - 199 }",
    "long_comprehension": f"let k = count(x for x in range(90) if {LONG} >= 0)",
    "list_walks": "let xs = range(1000); let k = 0; while k < 90 { if 5000 in xs { k = 0 }; k = k + 1 }",
}


def worst(backend, only=None):
    out = {}
    for name, effect in EFFECTS.items():
        if only and name != only:
            continue
        text = NEVER_ENDS.replace('effect: "stopped[actor] = 1"', f'effect: "{effect}; stopped[actor] = 0"')
        g = gamespec.load_text(text, f"{name}.yaml")
        g.backend = backend
        s = g.new_game(players=2, seed=1)
        t = time.perf_counter()
        try:
            while True:
                s.apply(s.legal_actions()[0])
        except gamespec.SpecRuntimeError as e:
            out[name] = (time.perf_counter() - t, s.decisions, e.check)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--backend", choices=("codegen", "closures", "both"), default="both")
    ap.add_argument("--only", choices=sorted(EFFECTS), help="one case only")
    a = ap.parse_args(argv)
    for backend in ("codegen", "closures") if a.backend == "both" else (a.backend,):
        for name, (secs, decisions, check) in worst(backend, a.only).items():
            print(f"{backend:8} {name:20} {secs:6.2f} s  {decisions:7} decisions  stopped by {check}", flush=True)


if __name__ == "__main__":
    main()
