"""Reaction windows resolved by priority (docs/language.md, "Reaction windows"): with `priority`, the
highest-ranked response takes the window, ties going to the order of `players` (tests/specs/claims.yaml)."""
from __future__ import annotations

import os
import random

import pytest

import gamespec
from gamespec.errors import SpecErrors

from helpers import ROOT, skip_without_cc

SPEC = os.path.join(ROOT, "tests", "specs", "claims.yaml")
RANK = {"win": 0, "set": 1, "run": 2}
POINTS = {"win": 5, "set": 3, "run": 2}


def _points(s):
    base = s.rs.var_base["points"]
    return [s.v[base + p] for p in range(s.rs.P)]


@pytest.mark.parametrize("backend", ["closures", "codegen"])
def test_the_highest_claim_takes_the_window_and_the_nearest_seat_breaks_ties(backend):
    game = gamespec.load(SPEC, backend=backend)
    windows = contested = 0
    for seed in range(16):
        P = 3 + seed % 2
        s = game.new_game(players=P, seed=seed)
        rnd = random.Random(seed)
        while not s.is_terminal:
            acts = s.legal_actions()
            if acts[0].name == "discard":
                s.apply(acts[rnd.randrange(len(acts))])
                continue
            discarder, before, claims = s.cur, _points(s), {}
            while not s.is_terminal and s.legal_actions()[0].name != "discard":
                acts = s.legal_actions()
                p = s.current_player
                mine = [a for a in acts if a.name != "skip"]
                pick = rnd.choice(mine) if mine and rnd.random() < 0.8 else next(a for a in acts if a.name == "skip")
                if pick.name != "skip":
                    claims[p] = pick.name
                s.apply(pick)
                if s.cur != discarder:
                    break
            windows += 1
            gained = [p for p in range(P) if _points(s)[p] != before[p]]
            if not claims:
                assert gained == []
                continue
            contested += len(claims) > 1
            best = min(claims, key=lambda p: (RANK[claims[p]], (p - discarder) % P))
            assert gained == [best], (seed, claims, gained)
            assert _points(s)[best] - before[best] == POINTS[claims[best]]
    assert windows > 50 and contested > 10, (windows, contested)


def test_priority_is_checked():
    text = open(SPEC).read()
    for old, new, words in [
        ("priority: [win, set, run]", "priority: [win, sets, run]", "'sets' is not a response of this window"),
        ("priority: [win, set, run]", "priority: [win, win]", "'win' is in 'priority' twice"),
        ("ask: at_once", "ask: in_turn", "'priority' belongs to a window asked at once"),
    ]:
        with pytest.raises(SpecErrors) as ei:
            gamespec.load_text(text.replace(old, new), "claims.yaml")
        assert words in str(ei.value) and "claims.yaml:" in str(ei.value), str(ei.value)


@skip_without_cc()
def test_the_c_engine_plays_a_window_by_priority():
    from gamespec.compile.cbuild import library
    from gamespec.interpreter.native_engine import ST_OK
    text = open(SPEC).read()      # without its can() conditions (tests/test_native_constructs.py has both)
    text = text.replace('    if: "not can(win)"\n', "").replace('    if: "not can(win) and not can(set)"\n', "")
    assert "can(" not in text.split("actions:")[1]
    g = gamespec.load_text(text, "claims.yaml", backend="native")
    lib = library(g.ruleset(3, g.check_options({})))
    assert not isinstance(lib, str), lib
    assert all(r[0] == ST_OK for r in lib.playouts(0, 4))
    assert [r.scores for r in g.playouts(4, seed=0, players=3)] == \
        [r.scores for r in gamespec.load_text(text, "claims.yaml").playouts(4, seed=0, players=3)]
