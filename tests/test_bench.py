"""The bench tools that need no valgrind run (their figures are in bench/results, never asserted)."""
from __future__ import annotations

import importlib.util
import os
import re

from helpers import ROOT


def _module(name):
    spec = importlib.util.spec_from_file_location(f"bench_{name}", os.path.join(ROOT, "bench", f"{name}.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_opcodes_counts_bytecodes_per_decision_by_function(capsys):
    opcodes = _module("opcodes")
    tiny = os.path.join(ROOT, "tests", "specs", "tiny.yaml")
    assert opcodes.main([tiny, "--players", "2", "--games", "2", "--top", "3"]) == 0
    out = capsys.readouterr().out.splitlines()
    m = re.match(r"tiny\.yaml 2p index: (\d+) decisions, (\d+) bytecodes per decision", out[0])
    assert m and int(m.group(1)) > 0 and int(m.group(2)) > 0
    assert len(out) == 4 and all("%" in ln for ln in out[1:])      # the three biggest functions


def test_vector_one_replays_recorded_actions_and_times_both_ways(capsys):
    """bench/vector_one.py: the replay form plays a fresh env on recorded actions (an illegal one, were
    the games not the same, raises), the per-call form reads the clock around each call."""
    import json

    import pytest
    pytest.importorskip("gymnasium", reason="the rl extra is not installed: pip install '.[rl]'")
    vo = _module("vector_one")
    bali = os.path.join(ROOT, "games", "bali.yaml")
    for timing in ("replay", "per-call"):
        vo.main(["--spec", bali, "--num-envs", "4", "--calls", "300", "--warmup", "20", "--timing", timing])
        r = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
        assert r["timing"] == timing and r["num_envs"] == 4 and r["m_steps_per_cpu_s"] > 0


def test_threads_ab_replays_one_threads_actions_on_two():
    """bench/envs.py --threads: actions recorded on one thread replay on two (the same games on any
    number of threads, else an IllegalAction), a ratio per configuration."""
    import pytest
    pytest.importorskip("gymnasium", reason="the rl extra is not installed: pip install '.[rl]'")
    envs = _module("envs")
    rows = envs.threads_ab([os.path.join(ROOT, "games", "klink.yaml")], 4, sizes=(8,), rounds=2, block=400)
    assert [(r["num_envs"], r["opponents"], r["timing"]) for r in rows] == [(8, "none", "replay"), (8, "random", "replay")]
    assert all(r["wall_ratio_2_to_1"] > 0 and r["steps_per_round"] == 400 for r in rows)
