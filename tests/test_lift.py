"""Which cards decide games (gamespec/analysis/lift.py, docs/balance.md): the lift of holding and of
playing each card class and face, Holm-corrected, on tests/specs/crown.yaml (whoever plays the crown
wins) with fixed seeds."""
from __future__ import annotations

import os

import pytest

from gamespec.analysis import lift

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CROWN = os.path.join(ROOT, "tests", "specs", "crown.yaml")


@pytest.fixture(scope="module")
def crown():
    return lift.run(CROWN, games=300, players=2, seed=7)


def _row(out, kind, name):
    return next(r for r in out["features"] if r["kind"] == kind and r["name"] == name)


def test_the_card_that_always_wins_is_found(crown):
    played = _row(crown, "played", "crown")
    assert played["with"]["win_rate"] == 1.0                  # whoever plays the crown wins
    assert played["beyond_noise"] and played["lift"] > 0.4 and played["ci95"][0] > 0.3
    held = _row(crown, "held", "crown")                        # held: it is played half the time at random
    assert held["beyond_noise"] and 0.15 < held["lift"] < 0.5 and held["ci95"][0] > 0
    # the seats are counted right: 2 per game; the crown is dealt to a seat in 4 games of 9 (4 of 9 cards)
    assert held["with"]["n"] + held["without"]["n"] == 600 and abs(held["with"]["n"] - 300 * 4 / 9) < 30
    assert crown["hand_zones"] == ["hand"]                     # the public table is no hand


def test_findings_say_only_what_is_beyond_noise(crown):
    flagged = [r for r in crown["features"] if r["beyond_noise"]]
    assert len(crown["findings"]) == len(flagged) > 0
    assert any(s.startswith("playing a crown: +") for s in crown["findings"])
    assert any(s.startswith("a crown in the opening hand: +") for s in crown["findings"])
    # the middle gem (3) neither helps nor hurts much: its interval contains 0 and it is not a finding
    mid = _row(crown, "held", "3 gem")
    assert not mid["beyond_noise"] and mid["ci95"][0] < 0 < mid["ci95"][1]
    # Holm: an adjusted p is never below the raw one, and the findings come first
    assert all(r["p_holm"] >= r["p"] for r in crown["features"])
    assert [r["beyond_noise"] for r in crown["features"]] == sorted((r["beyond_noise"] for r in crown["features"]),
                                                                     reverse=True)
    text = "\n".join(lift.lines(crown))
    assert "Holm" in text and "playing a crown" in text


def test_newcombe_interval_matches_the_published_example():
    # Newcombe (1998), Statistics in Medicine 17, table II, example (a): 56/70 - 48/80, method 10
    lo, hi = lift.newcombe(56, 70, 48, 80)
    assert lo == pytest.approx(0.0524, abs=5e-4) and hi == pytest.approx(0.3339, abs=5e-4)


def test_a_cooperative_game_is_refused():
    from gamespec.errors import UsageError
    with pytest.raises(UsageError, match="cooperative"):
        lift.run(os.path.join(ROOT, "tests", "specs", "coop.yaml"), games=2)


def test_the_lift_is_measured_within_seats():
    # seat 0 wins 80% and seat 1 20%, with the card or without; seat 0 holds it 9 times in 10, seat 1
    # once in 10. Pooled over seats the card would look like +48 points; within each seat it is nothing.
    strata = [(72, 90, 8, 10), (2, 10, 18, 90)]
    est = lift.stratified(strata)
    assert est["strata"] == 2 and est["lift"] == pytest.approx(0.0, abs=1e-12)
    assert est["ci95"][0] < 0 < est["ci95"][1] and est["p"] > 0.5
    # a card only one seat ever holds is that seat's advantage: not compared
    assert lift.stratified([(60, 100, 0, 0), (0, 0, 40, 100)]) is None
    # a real effect in both seats is found
    est = lift.stratified([(60, 100, 40, 100), (55, 100, 35, 100)])
    assert est["lift"] == pytest.approx(0.2) and est["ci95"][0] > 0.05 and est["p"] < 1e-3
