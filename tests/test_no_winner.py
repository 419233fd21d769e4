"""A competitive game's outcome where nobody wins (scoring.no_winner_if, tests/specs/stalemate.yaml):
no winners in the result, the log and a saved state; checked at validate time; the C engine plays
it (tests/test_native_constructs.py)."""
from __future__ import annotations

import os
import random

import pytest

import gamespec
from gamespec.errors import SpecErrors

from helpers import ROOT, skip_without_cc

SPEC = os.path.join(ROOT, "tests", "specs", "stalemate.yaml")


@pytest.mark.parametrize("backend", ["closures", "codegen"])
def test_a_drawn_hand_has_no_winner_everywhere(backend):
    game = gamespec.load(SPEC, backend=backend)
    drawn = won = 0
    for seed in range(24):
        s = game.new_game(players=2 + seed % 3, seed=seed, log=True)
        rnd = random.Random(seed)
        while not s.is_terminal:
            s.apply_index(rnd.randrange(s.legal_action_count()))
        rs = s.rs
        empty = [p for p in range(rs.P) if not s.z[rs.zone_base["hand"] + p]]
        if empty:
            won += 1
            assert s.winners == empty and all(s.scores[p] == 0 for p in empty)
        else:
            drawn += 1
            assert s.winners == [], seed
        end = [e for e in s.log if e.get("type") == "end"]
        assert end == [{"type": "end", "scores": s.scores, "winners": s.winners}]
        back = game.state_from_json(s.to_json())        # a saved state with no winner loads
        assert back.is_terminal and back.winners == s.winners and back.scores == s.scores
    assert drawn >= 3 and won >= 3, (drawn, won)


def test_no_winner_if_is_checked():
    text = open(SPEC).read()
    with pytest.raises(SpecErrors) as ei:
        gamespec.load_text(text.replace("size(hand[q]) > 0 for q in players)", "size(hand[q]) > 0 for q in playerz)"),
                           "s.yaml")
    assert "s.yaml:40:49: error: unknown name 'playerz'" in str(ei.value), str(ei.value)
    coop = text.replace('  score: "-size(hand[p])"', '  cooperative: true\n  score: "size(pile)"\n'
                        '  success: "size(deck) > 0"')
    with pytest.raises(SpecErrors) as ei:
        gamespec.load_text(coop, "s.yaml")
    assert "a cooperative scoring says whether the team won with 'success'" in str(ei.value)


@skip_without_cc()
def test_the_c_engine_plays_it():
    from gamespec.compile.cbuild import library
    from gamespec.interpreter.native_engine import ST_OK
    g = gamespec.load(SPEC, backend="native")
    lib = library(g.ruleset(2, g.check_options({})))
    assert not isinstance(lib, str), lib
    assert all(r[0] == ST_OK for r in lib.playouts(0, 6))
    got = [(r.scores, r.winners) for r in g.playouts(6, seed=0, players=2)]
    assert got == [(r.scores, r.winners) for r in gamespec.load(SPEC).playouts(6, seed=0, players=2)]
