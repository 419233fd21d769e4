"""Python bytecodes executed per decision, by function: where a decision's interpreter work goes.

    python bench/opcodes.py bacchus                # the index loop, 10 games, 4 players, top 25 functions
    python bench/opcodes.py klink --loop standard --games 20 --top 40

Counts every bytecode the interpreter executes (`sys.settrace` with opcode events: exact and
independent of the machine's load, but not weighted: a bytecode that calls into C costs what the C
code costs, which only `bench/instructions.py` (callgrind) sees). Warm-up games first, and every fused
continuation is generated before counting, so compiling is left out. Use it to find which generated
function or engine helper to look at; judge a change by `bench/instructions.py`.
"""
from __future__ import annotations

import argparse
import collections
import os
import random
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)


def play(game, players, seeds, loop):
    d = 0
    for seed in seeds:
        rnd = random.Random(seed)
        s = game.new_game(players=players, seed=seed)
        while not s.is_terminal:
            if loop == "index":
                s.apply_index(rnd.randrange(s.legal_action_count()))
            else:
                acts = s.legal_actions()
                s.apply(acts[rnd.randrange(len(acts))])
            d += 1
    return d


def count(game, players, games, loop):
    """(decisions, Counter of (file, function, line) -> bytecodes)."""
    cnt = collections.Counter()

    def tracer(frame, event, arg):
        frame.f_trace_opcodes = True
        co = frame.f_code
        key = (os.path.basename(co.co_filename)[:70], co.co_name, co.co_firstlineno)

        def local(frame, event, arg):
            if event == "opcode":
                cnt[key] += 1
            return local
        return local

    sys.settrace(tracer)
    try:
        d = play(game, players, range(games), loop)
    finally:
        sys.settrace(None)
    return d, cnt


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("game", help="a game of games/ (bacchus) or a spec path")
    ap.add_argument("--loop", choices=("index", "standard"), default="index")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--games", type=int, default=10, help="games counted (seeds 0..N-1; default 10)")
    ap.add_argument("--top", type=int, default=25, help="functions listed (default 25)")
    a = ap.parse_args(argv)
    import gamespec
    from gamespec.compile.fused import generate_all
    path = a.game if os.path.exists(a.game) else os.path.join(ROOT, "games", a.game + ".yaml")
    try:
        game = gamespec.load(path)
    except gamespec.SpecErrors as e:
        ap.error(str(e))
    play(game, a.players, range(10_000, 10_008), a.loop)       # warm up
    generate_all(game.ruleset(a.players, {}))
    d, cnt = count(game, a.players, a.games, a.loop)
    total = sum(cnt.values())
    print(f"{os.path.basename(path)} {a.players}p {a.loop}: {d} decisions, {total / d:.0f} bytecodes per decision")
    for (f, fn, line), v in cnt.most_common(a.top):
        print(f"{v / d:9.1f} {100 * v / total:5.1f}%  {fn} ({f}:{line})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
