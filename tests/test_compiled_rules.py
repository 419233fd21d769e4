"""A rule travels beside what was compiled of it, as data (flow.Compiled, an instruction's `rules`):
no compiled function carries its rule as an attribute, and the records hold the spec's own rules."""
from __future__ import annotations

import os

import pytest

import gamespec
from gamespec.compile.flow import Compiled

from helpers import ROOT


@pytest.mark.parametrize("backend", ["closures", "codegen"])
def test_no_compiled_function_carries_its_rule(backend):
    game = gamespec.load(os.path.join(ROOT, "tests", "specs", "bidders.yaml"), backend=backend)
    spec = game.spec
    rs = game.ruleset(spec.min_players, {})
    fns = []
    assert rs.triggers and rs.game_end_if is not None
    if rs.game_end_if is not None:
        assert isinstance(rs.game_end_if, Compiled) and rs.game_end_if.rule is spec.end_if
        fns.append(rs.game_end_if.fn)
    for (cond, eff), (_, c, e) in zip(rs.triggers, spec.triggers):
        assert cond.rule is c and eff.rule is e
        fns += [cond.fn, eff.fn]
    for ins in rs.flow_code:
        for name, rule in ins.rules.items():
            if name == "nexts":
                fns += [c for c, _ in ins.nexts if c is not None]
            else:
                fns.append(ins[name])
                assert ins.rule_of(ins[name]) is rule
    for ch in rs.chooses:
        fns += [f for f in (ch.guard, ch.player) if f is not None]
    assert len(fns) > 5 and all(callable(f) for f in fns)
    assert not [f for f in fns if hasattr(f, "rule")]
