"""The skill ladder (gamespec/analysis/ladder.py, docs/balance.md): each rung against the one below,
rotated, and the skill-versus-luck index, on specs with a known answer (fixed seeds, native engine)."""
from __future__ import annotations

import argparse
import json
import os

import pytest

from gamespec.analysis import ladder
from gamespec.errors import UsageError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RACE = os.path.join(ROOT, "tests", "specs", "race.yaml")       # big (3 points) always beats small (1)
CHANCE = os.path.join(ROOT, "tests", "specs", "chance.yaml")   # no choice changes the score


def test_skill_matters_a_lot_where_one_action_dominates():
    out = ladder.run(RACE, "random,greedy", games=80, players=2, seed=3, engine="native", workers=1)
    (step,) = out["steps"]
    assert step["strong"] == "greedy" and step["weak"] == "random" and step["games"] == 160   # 2 seatings
    assert step["win_rate"] > 0.85 and step["clear"] == "stronger"
    assert step["fair"] == 0.5
    ix = out["index"]
    # the index is the win rate rescaled: (w - 1/2) / (1 - 1/2)
    assert ix["index"] == pytest.approx((step["win_rate"] - 0.5) / 0.5)
    assert ix["ci95"][0] > 0.6 and ix["ci95"][0] < ix["index"] < ix["ci95"][1] <= 1
    assert out["verdict"] == "skill matters a lot"
    assert out["top"] is None            # two rungs: the one step is the index
    text = "\n".join(ladder.lines(out))
    assert text.startswith("skill matters a lot: greedy wins")
    assert "greedy vs random" in text


def test_pure_chance_gives_no_evidence_and_three_rungs_add_the_top_against_the_bottom():
    out = ladder.run(CHANCE, ["random", "first", "greedy"], games=60, players=3, seed=5, engine="native",
                     workers=1)
    assert [(s["strong"], s["weak"]) for s in out["steps"]] == [("first", "random"), ("greedy", "first")]
    assert out["top"]["strong"] == "greedy" and out["top"]["weak"] == "random"
    for s in out["steps"] + [out["top"]]:
        assert s["games"] == 180 and s["fair"] == pytest.approx(1 / 3)
        assert s["ci95"][0] < 1 / 3 < s["ci95"][1], s
        assert s["clear"] == "no clear difference"
    lo, hi = out["index"]["ci95"]
    assert lo < 0 < hi and abs(out["index"]["index"]) < 0.15
    assert out["verdict"] == "no evidence skill matters"


def test_verdict_words():
    assert ladder.verdict({"index": 0.4, "ci95": [0.3, 0.5]}) == "skill matters a lot"
    assert ladder.verdict({"index": 0.1, "ci95": [0.05, 0.15]}) == "skill matters a little"
    assert ladder.verdict({"index": 0.3, "ci95": [-0.01, 0.6]}) == "no evidence skill matters"
    assert ladder.verdict({"index": None, "ci95": [None, None]}).startswith("skill not measured")
    # 4 players: a strong seat winning 50% (fair 25%) has index 1/3
    ix = ladder.skill_index(50, 100, 0.25)
    assert ix["index"] == pytest.approx(1 / 3)


@pytest.mark.parametrize("text, words", [
    ("random", "at least two rungs"), ("random,random", "repeats"), ("random,nosuchbot", "nosuchbot"),
    (",".join(["random", "greedy", "first"] + [f"ismcts:{i}" for i in range(1, 8)]), "at most")])
def test_bad_ladders_are_usage_errors(text, words):
    with pytest.raises(UsageError, match=words):
        ladder.parse_rungs(text)


def test_cli_json_and_records_give_the_same_ladder(tmp_path, capsys):
    rec = tmp_path / "ladder.jsonl"
    args = argparse.Namespace(file=RACE, ladder="random,greedy", games=30, players=2, seed=1, option=[],
                              workers=1, engine="native", json=True, records=str(rec), timeout=None)
    assert ladder.run_cli(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["verdict"] == "skill matters a lot" and out["steps"][0]["games"] == 60
    from gamespec.analysis import read_records, summarize
    (group,) = ladder.from_summaries(summarize(read_records(str(rec))))
    assert group["verdict"] == out["verdict"]
    assert group["index"]["index"] == pytest.approx(out["index"]["index"])
    assert group["steps"][0]["win_rate"] == pytest.approx(out["steps"][0]["win_rate"])
    (words,) = ladder.summary_sentences(summarize(read_records(str(rec))))
    assert words == ladder.sentence(out)


def test_the_ladder_says_its_words_through_the_command_line_the_report_and_compare(tmp_path, capsys):
    """`gamespec simulate --ladder` (the command line), then `report` and `compare` of its records
    carry the same sentence."""
    from gamespec.cli import main
    rec = tmp_path / "ladder.jsonl"
    assert main(["simulate", RACE, "--ladder", "random,greedy", "--games", "20", "--players", "2", "--seed", "1",
                 "--workers", "1", "--records", str(rec), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    words = ladder.sentence(out)
    assert words.startswith("skill matters a lot")
    pytest.importorskip("matplotlib")
    html = tmp_path / "r.html"
    assert main(["report", str(rec), "-o", str(html)]) == 0
    capsys.readouterr()
    import html as h
    assert h.escape(words) in html.read_text(encoding="utf-8")
    assert main(["compare", str(rec), str(rec)]) == 0
    text = capsys.readouterr().out
    assert f"skill ladder of A: {words}" in text and f"skill ladder of B: {words}" in text
