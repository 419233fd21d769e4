"""gamespec tune (gamespec/analysis/tune.py, gamespec/commands/tune.py; docs/balance.md): successive
halving over declared option values, on a spec whose balance point is known (tests/specs/headstart.yaml:
exactly fair at bonus = 1, 2 * rounds decisions a game). Fixed seeds, native engine, few games."""
from __future__ import annotations

import json
import os

import pytest

from gamespec.analysis import tune
from gamespec.errors import UsageError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEAD = os.path.join(ROOT, "tests", "specs", "headstart.yaml")
RACE = os.path.join(ROOT, "tests", "specs", "race.yaml")


def test_fair_finds_the_bonus_that_offsets_the_first_move():
    out = tune.run(HEAD, params=["bonus"], targets=["fair"], games=60, seed=11, workers=1, rounds=5)
    assert out["best"]["settings"] == {"bonus": 1}
    (fig,) = out["best"]["figures"]
    assert fig["ci95"][0] < 0.5 < fig["ci95"][1]              # the best is fair within its interval
    assert out["runner_up"]["settings"] in ({"bonus": 0}, {"bonus": 2})
    ru = out["runner_up"]["figures"][0]
    assert not ru["ci95"][0] < 0.5 < ru["ci95"][1]             # the runner-up is not
    assert out["settled"]
    # the games went where the answer was uncertain: the setting stopped in round 1 played 60 games only
    by = {c["settings"]["bonus"]: c for c in out["candidates"]}
    stopped = [c for c in by.values() if c["dropped"] and c["dropped"]["round"] == 1]
    assert stopped and all(c["games"] == 60 for c in stopped)
    assert by[1]["games"] >= 120 and by[1]["dropped"] is None
    assert out["games_played"] == sum(c["games"] for c in out["candidates"])
    assert "-  bonus: {default: 0," in out["diff"] and "+  bonus: {default: 1," in out["diff"]
    changed = [ln for ln in out["diff"].splitlines() if ln[:1] in "+-" and ln[:3] not in ("+++", "---")]
    assert len(changed) == 2                                       # only the tuned default changes
    text = "\n".join(tune.lines(out))
    assert text.splitlines()[1].startswith("best: bonus=1")
    assert "stopped: bonus=" in text and "+  bonus: {default: 1," in text


def test_several_targets_and_two_options():
    out = tune.run(HEAD, targets=["fair", "length=8..8"], games=40, seed=3, workers=1, rounds=3)
    assert out["params"] == ["bonus", "rounds"] and len(out["candidates"]) == 12
    assert out["best"]["settings"] == {"bonus": 1, "rounds": 4}
    length = next(f for f in out["best"]["figures"] if f["target"] == "length=8..8")
    assert length["figure"] == 8 and length["loss"] == 0
    # every setting with another length stops after the first round (its length is exact: no noise)
    for c in out["candidates"]:
        if c["settings"]["rounds"] != 4:
            assert c["dropped"]["round"] == 1


def test_target_figures_from_summaries():
    sm = {"games_finished": 100, "fair_share": 0.5, "seat_advantage": {"p": 0.01},
          "seats": [{"seat": 0, "win_rate": 0.6, "ci95": [0.5, 0.7]}, {"seat": 1, "win_rate": 0.4, "ci95": [0.3, 0.5]}],
          "metrics": {"decided_at": {"n": 100, "mean": 0.7, "ci95": [0.65, 0.75]}},
          "length": {"decisions": {"n": 100, "mean": 30.0, "ci95": [28.0, 32.0]}}}
    fair = tune.target_figures(sm, {"name": "fair"})
    assert fair["loss"] == pytest.approx(0.1) and fair["loss_ci95"] == pytest.approx([0.0, 0.2])
    late = tune.target_figures(sm, {"name": "decided_late"})
    assert late["loss"] == pytest.approx(0.3) and late["loss_ci95"] == pytest.approx([0.25, 0.35])
    (t,) = tune.parse_targets(["length=40..60"])
    ln = tune.target_figures(sm, t)            # 10 below the range, relative to its middle (50)
    assert ln["loss"] == pytest.approx(0.2) and ln["loss_ci95"] == pytest.approx([8 / 50, 12 / 50])
    both = tune.evaluate(sm, tune.parse_targets(["fair", "decided_late"]))
    assert both["loss"] == pytest.approx(0.4)


def test_set_defaults_flow_and_block_forms():
    text = ("name: X\noptions:\n  a: {default: 2, values: [1, 2]}\n  b:\n    doc: \"b\"\n    default: 3\n"
            "    values: [3, 4]\n  c: {default: true}\ncards: {}\n")
    new, missing = tune.set_defaults(text, {"a": 1, "b": 4, "zz": 1})
    assert "  a: {default: 1, values: [1, 2]}\n" in new and "    default: 4\n" in new
    assert missing == ["zz"] and new.count("\n") == text.count("\n")
    assert tune.spec_diff(text, "x.yaml", {"a": 2}, {"a": 2}) == ""


@pytest.mark.parametrize("kw, words", [
    (dict(targets=["lenght=3..4"]), "unknown target"), (dict(targets=["length=9..3"]), "backwards"),
    (dict(targets=["fair", "fair"]), "twice"), (dict(params=["bonsu"]), "did you mean 'bonus'"),
    (dict(params=["bonus"], options={"bonus": 1}), "both tuned"), (dict(games=1), "at least 2")])
def test_bad_requests_are_usage_errors(kw, words):
    kw = {"targets": ["fair"], **kw}
    with pytest.raises(UsageError, match=words):
        tune.run(HEAD, workers=1, **kw)


def test_a_spec_without_tunable_numbers():
    with pytest.raises(UsageError, match="no tunable numbers"):
        tune.run(RACE, targets=["fair"])


def test_command_line_json(capsys):
    from gamespec.cli import main
    rc = main(["tune", HEAD, "--param", "bonus", "--target", "fair", "--games", "40", "--rounds", "2", "--seed", "5",
               "--workers", "1", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0 and out["params"] == ["bonus"] and out["targets"] == ["fair"] and len(out["rounds"]) <= 2
    assert main(["tune", HEAD, "--target", "nope"]) == 2
    assert "unknown target 'nope'" in capsys.readouterr().err


def test_the_range_form_is_a_tunable_number(tmp_path):
    import gamespec
    game = gamespec.load(HEAD)
    space = {k: list(v) for k, v in tune.tunable(game).items()}
    assert space == {"bonus": [0, 1, 2, 3], "rounds": [2, 3, 4]}   # bonus: range [0, 3]
    assert game.check_options({"bonus": 3})["bonus"] == 3
    with pytest.raises(Exception, match="from 0 to 3, not 4"):
        game.check_options({"bonus": 4})
    text = open(HEAD, encoding="utf-8").read()
    for bad, words in [("range: [3, 1]", "LOW <= HIGH"), ("range: [1, 3]", "outside its range 1..3"),
                       ("range: [0, 3], values: [0, 1]", "not both")]:
        path = tmp_path / "bad.yaml"
        path.write_text(text.replace("range: [0, 3]", bad), encoding="utf-8")
        with pytest.raises(gamespec.SpecErrors, match=words.replace("[", r"\[").replace(".", r"\.")):
            gamespec.load(str(path))


def test_a_wide_range_is_refused_by_its_count_before_anything_is_built(tmp_path):
    """A stranger's spec may declare range: [0, 1000000000]: tune counts the combinations first and
    refuses them in words, never building a billion candidates."""
    import gamespec
    from gamespec.errors import UsageError
    text = open(HEAD, encoding="utf-8").read().replace("range: [0, 3]", "range: [0, 1000000000]")
    path = tmp_path / "wide.yaml"
    path.write_text(text, encoding="utf-8")
    game = gamespec.load(str(path))
    with pytest.raises(UsageError, match=r"1000000001 combinations of bonus: at most \d+ are searched"):
        tune.candidates(game, ["bonus"], {})
    with pytest.raises(UsageError, match=r"3000000003 combinations of bonus, rounds"):
        tune.candidates(game, [], {})
    names, combos = tune.candidates(gamespec.load(HEAD), ["rounds"], {})
    assert names == ["rounds"] and combos == [{"rounds": 2}, {"rounds": 3}, {"rounds": 4}]
