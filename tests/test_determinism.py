"""Determinism: the same seed gives the same game, byte for byte, whatever the process.

A game's full log (and each player's log and observations, and the action labels) is written by
separate `python -c` processes with different PYTHONHASHSEED values: the bytes must be identical, so
no set or dict iteration order, no id() and no address leaks into a game. Shuffles use the state's
own RNG, never Python's `random` (whose algorithms may change between versions): a game is played
with `random` made to raise.
"""
from __future__ import annotations

import glob
import json
import os
import random
import subprocess
import sys

import pytest

import gamespec

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GAMES = sorted(glob.glob(os.path.join(ROOT, "games", "*.yaml"))) + [
    os.path.join(ROOT, "tests", "specs", f"{name}.yaml") for name in ("tiny", "sets", "partners", "passing", "trading", "draft")]

SCRIPT = r"""
import glob, json, random, sys
import gamespec
out = []
for path in sys.argv[1:]:
    g = gamespec.load(path)
    for players in sorted({g.min_players, g.max_players}):
        for opts in g.option_sets()[:2] + g.option_sets()[-1:]:
            s = g.new_game(players=players, seed=20240611, options=opts, log=True)
            pick = random.Random(players)          # the players' choices (not the game's chance)
            while not s.is_terminal:
                acts = s.legal_actions()
                a = acts[pick.randrange(len(acts))]
                out.append(a.label)
                s.apply(a)
            out += [json.dumps(line, separators=(",", ":")) for line in s.log_lines()]
            for p in range(players):
                out += [json.dumps(line, separators=(",", ":")) for line in s.log_for(p)]
                out.append(json.dumps(s.observation(p), separators=(",", ":")))
            out.append(json.dumps(s.to_json(), separators=(",", ":")))
sys.stdout.write("\n".join(out))
"""


def _run(hashseed, backend):
    env = dict(os.environ, PYTHONHASHSEED=str(hashseed), GAMESPEC_BACKEND=backend)
    r = subprocess.run([sys.executable, "-c", SCRIPT, *GAMES], cwd=ROOT, env=env, capture_output=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr.decode()[-3000:]
    return r.stdout


def test_same_seed_same_bytes_across_processes_and_hash_seeds():
    runs = {h: _run(h, "codegen") for h in (0, 1, 12345)}
    assert len(runs[0]) > 10_000
    assert runs[0] == runs[1] == runs[12345]
    # and the reference backend writes the same bytes
    assert _run(777, "closures") == runs[0]


def _forbid_random(monkeypatch):
    def boom(*a, **k):
        raise AssertionError("the game used Python's random module")
    for name in ("shuffle", "random", "randrange", "randint", "choice", "choices", "sample", "getrandbits",
                 "seed", "uniform", "Random", "SystemRandom"):
        monkeypatch.setattr(random, name, boom)


@pytest.mark.parametrize("path", GAMES, ids=[os.path.basename(p)[:-5] for p in GAMES])
def test_shuffles_do_not_use_python_random(path, monkeypatch):
    game = gamespec.load(path)
    _forbid_random(monkeypatch)
    for backend in ("codegen", "closures"):
        game.backend = backend
        game._rulesets.clear()
        s = game.new_game(players=game.max_players, seed=7, options=game.option_sets()[-1], log=True)
        n = 0
        while not s.is_terminal:
            acts = s.legal_actions()
            s.apply(acts[n * 7919 % len(acts)])
            n += 1
        chance = [x for x in s.log_lines() if x["type"] == "chance"]
        assert chance, "the game never shuffled: this test would prove nothing"


def test_the_seed_decides_the_shuffles():
    game = gamespec.load(GAMES[0])
    orders = set()
    for seed in range(5):
        s = game.new_game(players=game.min_players, seed=seed, log=True)
        orders.add(json.dumps([x["order"] for x in s.log_lines() if x["type"] == "chance"]))
    assert len(orders) == 5


def _reference_shuffle(state, items):
    """xorshift64* and Fisher-Yates written plainly: the permutations interpreter.rng must keep."""
    mask = (1 << 64) - 1
    x = state
    for i in range(len(items) - 1, 0, -1):
        n = i + 1
        while True:
            x ^= x >> 12
            x ^= (x << 25) & mask
            x ^= x >> 27
            r = (x * 0x2545F4914F6CDD1D) & mask
            if r <= mask - (mask + 1) % n:
                break
        j = r % n
        items[i], items[j] = items[j], items[i]
    return x


def test_the_shuffle_gives_the_same_permutations_as_the_plain_algorithm():
    """interpreter.rng.shuffle (constants in locals, a cheaper rejection test) permutes exactly as
    the plain algorithm does, so every seed keeps its deals."""
    import random

    from interpreter import rng
    gen = random.Random(19)
    for _ in range(2000):
        items = list(range(gen.randrange(0, 150)))
        state = gen.getrandbits(64) or 1
        mine, ref = list(items), list(items)
        assert rng.shuffle(state, mine) == _reference_shuffle(state, ref)
        assert mine == ref
