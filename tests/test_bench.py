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
