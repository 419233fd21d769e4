"""bench/baselines/klink_sim.c, the hand-written C Klink of the gap figure (bench/callgrind.py --baseline):
it plays the games klink_baseline.py plays (same decision points and choices), by their statistics, since
its generator is another one; and a seed is a game."""
from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess

import pytest

from helpers import ROOT

SRC = os.path.join(ROOT, "bench", "baselines", "klink_sim.c")


@pytest.fixture(scope="module")
def sim(tmp_path_factory):
    cc = shutil.which(os.environ.get("CC") or "cc")
    if cc is None:
        pytest.skip("no C compiler")
    exe = str(tmp_path_factory.mktemp("klink_sim") / "klink_sim")
    subprocess.run([cc, "-O2", "-o", exe, SRC], check=True)

    def run(games, players, seed=0):
        out = subprocess.run([exe, str(games), str(players), str(seed)], capture_output=True, text=True, check=True)
        words = out.stdout.split()
        return int(words[words.index("decisions") + 1]), [float(x) for x in words[words.index("means") + 1:]]
    return run


def _python_baseline():
    spec = importlib.util.spec_from_file_location("klink_baseline",
                                                  os.path.join(ROOT, "bench", "baselines", "klink_baseline.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("players", [3, 4])
def test_c_klink_plays_the_python_baselines_games(sim, players):
    base = _python_baseline()
    n_py, n_c = 400, 20000
    runs = [base.play_game(seed, players) for seed in range(n_py)]
    py_dec = sum(d for _, d in runs) / n_py
    py_means = [sum(s[p] for s, _ in runs) / n_py for p in range(players)]
    decisions, means = sim(n_c, players)
    assert len(means) == players
    assert abs(decisions / n_c - py_dec) < 0.04 * py_dec         # ~111.7 a game at 4 players
    for p in range(players):
        assert abs(means[p] - py_means[p]) < 5.0                   # a total near 77 when a game ends
    assert max(means) < 90


def test_c_klink_a_seed_is_a_game(sim):
    assert sim(300, 4, 7) == sim(300, 4, 7)
    assert sim(300, 4, 7) != sim(300, 4, 8)
