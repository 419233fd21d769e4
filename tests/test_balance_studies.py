"""Issue 30's studies: game traces (lead changes, decisiveness, drama, action usage), rotated seats,
restricted play, resuming a records file, and the records' new fields (docs/analysis.md)."""
from __future__ import annotations

import json
import os
import shutil

import pytest

import gamespec
import gamespec.simulate as sim
from gamespec import UsageError, analysis
from gamespec.analysis import RecordsError, read_records, summarize
from gamespec.analysis.study import rotations

HERE = os.path.dirname(__file__)
RACE = os.path.join(HERE, "specs", "race.yaml")
GAMES = os.path.join(os.path.dirname(HERE), "games")
BACCHUS = os.path.join(GAMES, "bacchus.yaml")


@pytest.fixture(scope="module")
def race():
    return gamespec.load(RACE)


def _study(race, tmp_path, name="r.jsonl", **kw):
    kw.setdefault("games", 4)
    kw.setdefault("seed", 0)
    kw.setdefault("workers", 1)
    kw.setdefault("engine", "python")
    path = tmp_path / name
    out = analysis.simulate(race, RACE, records=str(path), **kw)
    return out["configs"], read_records(path)


# -- the trace of one game --------------------------------------------------------------------------

def test_the_trace_of_a_known_game_has_its_exact_metrics(race):
    # seat 0 always gains 1, seat 1 always 3: leaders 0, 1, 1, 1, 1, 1 after the six decisions
    r = sim.play_one(race, 2, 0, bots=["first", "always:big"], trace=True)
    assert r["scores"] == [3, 9] and r["winners"] == [1]
    assert r["lead_changes"] == 1
    assert r["decided_at"] == pytest.approx(1 / 5)      # led for good from the 2nd of 6 decisions
    assert r["winner_deficit"] == 1                     # 1 point behind after the first decision
    assert r["actions"] == {"skip": 0, "small": 3, "big": 3}      # every action a seat may be offered


def test_a_winner_who_leads_from_the_first_move_decided_it_at_once(race):
    r = sim.play_one(race, 2, 0, bots=["always:big", "first"], trace=True)
    assert r["winners"] == [0]
    assert (r["lead_changes"], r["decided_at"], r["winner_deficit"]) == (0, 0.0, 0)


def test_a_shared_win_has_no_decisiveness_or_drama(race):
    r = sim.play_one(race, 2, 0, bots=["first", "first"], trace=True)
    assert sorted(r["winners"]) == [0, 1]
    # leaders: 0, tie, 0, tie, 0, tie: the lead never passes to another seat
    assert r["lead_changes"] == 0 and r["decided_at"] is None and r["winner_deficit"] is None


@pytest.mark.parametrize("name", ["bali", "klink", "bacchus"])
def test_traces_of_the_seed_games_are_consistent(name):
    game = gamespec.load(os.path.join(GAMES, f"{name}.yaml"))
    for seed in range(6):
        r = sim.play_one(game, 3, seed, trace=True)
        plain = sim.play_one(game, 3, seed)
        assert (r["scores"], r["winners"], r["decisions"]) == (plain["scores"], plain["winners"], plain["decisions"])
        assert sum(r["actions"].values()) == r["decisions"]
        # every action the configuration could offer is counted (an option's switched off: not)
        rs = game.ruleset(3, game.check_options({}))
        assert set(sim.trace_names(rs)) & set(rs.actions) <= set(r["actions"])
        if name == "bali":
            assert "oracle_keep" not in r["actions"]       # the Oracle variant is off
        assert 0 <= r["lead_changes"] < r["decisions"]
        if len(r["winners"]) == 1:
            assert 0 <= r["decided_at"] <= 1 and r["winner_deficit"] >= 0
            if r["decided_at"] == 0:
                assert r["winner_deficit"] == 0


def test_a_trace_never_changes_the_game_even_when_its_score_exhausts_a_budget():
    # mid-game the score visits 8.1e9 items: each evaluation is cut at a rule's step budget and
    # counts 0, and the game's own budgets are untouched (without that it would fail at the end)
    text = open(RACE).read().replace(
        'score: "points[p]"',
        'score: "points[p] if turns >= 3 * num_players else sum(sum(x for x in range(0, 90000)) '
        'for y in range(0, 90000))"') + "limits:\n  steps_per_game: 400000\n"
    game = gamespec.load_text(text, "costly.yaml")
    for seed in range(3):
        plain = sim.play_one(game, 2, seed)
        traced = sim.play_one(game, 2, seed, trace=True)
        assert {k: traced[k] for k in plain if k != "seconds"} == {k: v for k, v in plain.items() if k != "seconds"}
        assert traced["lead_changes"] == 0          # nobody leads before the end, by a score of 0


def test_random_seats_on_the_native_engine_record_a_trace_unless_told_not_to():
    game = gamespec.load(BACCHUS)
    fast = sim.play_many(game, 3, range(3), {}, engine="native", trace=False)
    traced = sim.play_many(game, 3, range(3), {}, engine="native")
    assert all("actions" not in r for r in fast)
    assert all("actions" in r for r in traced)
    assert [(r["scores"], r["winners"]) for r in fast] == [(r["scores"], r["winners"]) for r in traced]
    assert all("actions" in r for r in sim.play_many(game, 3, range(2), {}, engine="python"))


def test_a_game_stopped_by_its_timeout_keeps_the_reason():
    game = gamespec.load(BACCHUS)
    r = sim._play_safe(game, 3, 0, {}, ["greedy"] * 3, timeout=1e-9)
    assert r["reason"] == "timeout" and "timeout" in r["error"]
    rec = analysis.make_record(r, "Bacchus", "x", 3, {})
    assert rec["reason"] == "timeout"
    s = summarize([rec, analysis.make_record(sim.play_one(game, 3, 1, trace=True), "Bacchus", "x", 3, {})])[0]
    assert s["metrics"]["unfinished"]["count"] == 1 and s["metrics"]["unfinished"]["reasons"] == {"timeout": 1}


# -- rotation ---------------------------------------------------------------------------------------

def test_rotations_are_the_distinct_seatings():
    assert rotations(["a", "b", "c"]) == [(0, ["a", "b", "c"]), (1, ["c", "a", "b"]), (2, ["b", "c", "a"])]
    assert rotations(["a", "a", "a"]) == [(0, ["a", "a", "a"])]
    assert [r for r, _ in rotations(["a", "b", "a", "b"])] == [0, 1]


def test_a_rotated_study_plays_every_deal_in_every_seating_and_separates_seat_from_bot(race, tmp_path):
    outs, rows = _study(race, tmp_path, players=2, bots=["0=first", "1=always:big"], rotate=True)
    assert len(rows) == 8
    assert sorted((r["rotation"], r["seed"]) for r in rows) == [(r, s) for r in (0, 1) for s in range(4)]
    assert all(r["lineup"] == ["first", "always:big"] for r in rows)
    assert {tuple(r["bots"]) for r in rows if r["rotation"] == 1} == {("always:big", "first")}
    s = outs[0]["summary"]
    assert s["rotated"] and s["rotations"] == 2 and s["games_finished"] == 8
    assert [x["win_rate"] for x in s["seats"]] == [0.5, 0.5]            # free of bot strength
    kinds = {k["kind"]: k for k in s["kinds"]}
    assert kinds["always:big"]["win_rate"] == 1.0 and kinds["first"]["win_rate"] == 0.0
    assert kinds["always:big"]["seat_games"] == 8
    assert outs[0]["rotations"] == 2 and outs[0]["deals"] == 4 and outs[0]["games_played"] == 8
    # one configuration (the line-up), in the summary of the file too
    assert len(summarize(rows)) == 1


def test_without_rotation_a_mixed_line_up_is_one_seating(race, tmp_path):
    outs, rows = _study(race, tmp_path, players=2, bots=["0=first", "1=always:big"])
    assert len(rows) == 4 and all("lineup" not in r for r in rows)
    assert [x["win_rate"] for x in outs[0]["summary"]["seats"]] == [0.0, 1.0]


def test_all_seats_alike_are_played_once_even_when_rotated(race, tmp_path):
    outs, rows = _study(race, tmp_path, players=3, bots=["all=first"], rotate=True)
    assert len(rows) == 4 and outs[0]["rotations"] == 1


# -- restricted play --------------------------------------------------------------------------------

def test_restricted_play_measures_what_a_restriction_costs(race, tmp_path):
    outs, rows = _study(race, tmp_path, players=2, games=40, restrict=["avoid:big,avoid:small"])
    by = {o["summary"]["restriction"]: o["summary"] for o in outs}
    assert set(by) == {"avoid:big", "avoid:small"}
    never_big = by["avoid:big"]["restriction_cost"]
    assert never_big["fair"] == 0.5 and never_big["cost_ci95"][0] > 0       # big is dominant
    assert by["avoid:small"]["restriction_cost"]["cost"] < 0                 # never small helps
    assert all(r["restriction"] in by for r in rows)
    # the restricted seat sat at every seat
    assert {tuple(r["bots"]) for r in rows if r["restriction"] == "avoid:big"} == {
        ("avoid:big", "random"), ("random", "avoid:big")}


def test_restricted_play_wants_one_kind_of_full_player(race, tmp_path):
    with pytest.raises(UsageError, match="all=KIND"):
        _study(race, tmp_path, players=2, bots=["0=first"], restrict=["first"])


def test_restricted_play_of_a_cooperative_game_is_refused_with_what_to_do_instead(tmp_path):
    coop = os.path.join(HERE, "specs", "coop.yaml")
    with pytest.raises(UsageError, match="cooperative.*compare"):
        analysis.simulate(gamespec.load(coop), coop, games=2, restrict=["first"], records=str(tmp_path / "c.jsonl"))
    assert not (tmp_path / "c.jsonl").exists()


def test_a_restriction_on_an_action_the_spec_lacks_is_refused_before_any_game(race, tmp_path):
    with pytest.raises(UsageError, match="smal"):
        _study(race, tmp_path, players=2, restrict=["avoid:smal"])
    assert not (tmp_path / "r.jsonl").exists()


# -- resume -----------------------------------------------------------------------------------------

def _rows(path):
    return sorted(json.dumps({k: v for k, v in r.items() if k != "seconds"}, sort_keys=True)
                  for r in read_records(path))


def test_a_resumed_study_has_the_rows_of_an_uninterrupted_one(race, tmp_path):
    full = tmp_path / "full.jsonl"
    outs = analysis.simulate(race, RACE, games=6, seed=3, players=2, bots=["0=first"], rotate=True,
                             records=str(full), workers=1, engine="python")["configs"]
    cut = tmp_path / "cut.jsonl"
    lines = full.read_text().splitlines(keepends=True)
    cut.write_text("".join(lines[:5]) + lines[5][:40])         # interrupted in the middle of a row
    again = analysis.simulate(race, RACE, games=6, players=2, bots=["0=first"], rotate=True,
                              records=str(cut), workers=1, engine="python", resume=True)["configs"]
    assert _rows(cut) == _rows(full)
    assert again[0]["resumed"] == 5 and again[0]["games_played"] == 7
    assert again[0]["seed"] == 3                                   # taken from the file
    strip = ("config", "errors")
    assert {k: v for k, v in again[0]["summary"].items() if k not in strip} == \
        {k: v for k, v in outs[0]["summary"].items() if k not in strip}


def test_resuming_a_finished_study_plays_nothing(race, tmp_path):
    _study(race, tmp_path, players=2)
    outs, rows = _study(race, tmp_path, players=2, resume=True)
    assert len(rows) == 4 and outs[0]["resumed"] == 4 and outs[0]["games_played"] == 0


def test_resume_refuses_what_it_cannot_continue(race, tmp_path):
    path = tmp_path / "r.jsonl"
    _study(race, tmp_path, players=2)
    before = path.read_bytes()
    with pytest.raises(UsageError, match="--seed 0"):
        _study(race, tmp_path, players=2, seed=7, resume=True)
    with pytest.raises(UsageError, match="does not play"):
        _study(race, tmp_path, players=3, resume=True)
    with pytest.raises(UsageError, match="--records"):
        analysis.simulate(race, RACE, games=2, resume=True)
    other = tmp_path / "race2.yaml"
    shutil.copy(RACE, other)
    with open(other, "a") as f:
        f.write("# another version\n")
    with pytest.raises(UsageError, match="another version of the spec"):
        analysis.simulate(gamespec.load(str(other)), str(other), games=4, players=2, records=str(path),
                          resume=True, workers=1)
    assert path.read_bytes() == before


def test_resume_of_a_file_that_is_not_there_starts_it(race, tmp_path):
    outs, rows = _study(race, tmp_path, name="new.jsonl", players=2, resume=True)
    assert len(rows) == 4 and outs[0]["resumed"] == 0


def test_a_csv_records_file_resumes_too(race, tmp_path):
    _study(race, tmp_path, name="r.csv", players=2, games=3)
    outs, rows = _study(race, tmp_path, name="r.csv", players=2, games=5, resume=True)
    assert [r["seed"] for r in rows] == list(range(5)) and outs[0]["resumed"] == 3


# -- the records' new fields ------------------------------------------------------------------------

def test_traced_rows_read_back_the_same_from_csv(race, tmp_path):
    _, rows = _study(race, tmp_path, name="a.jsonl", players=2, bots=["0=first"], rotate=True, games=3)
    _, csv_rows = _study(race, tmp_path, name="a.csv", players=2, bots=["0=first"], rotate=True, games=3)
    strip = lambda r: {k: v for k, v in r.items() if k != "seconds"}     # noqa: E731
    assert [strip(r) for r in rows] == [strip(r) for r in csv_rows]


@pytest.mark.parametrize("field,value,words", [
    ("lineup", ["random"], "'lineup'"),
    ("rotation", 5, "'rotation'"),
    ("decided_at", 1.5, "'decided_at'"),
    ("decided_at", float("nan"), "not JSON"),
    ("winner_deficit", -1, "'winner_deficit'"),
    ("lead_changes", -2, "'lead_changes'"),
    ("actions", {"x": -1}, "'actions'"),
    ("actions", {f"a{i}": 1 for i in range(300)}, "'actions'"),
    ("restriction", 3, "'restriction'"),
])
def test_bad_new_fields_are_refused_on_read(tmp_path, field, value, words):
    rec = {"game": "G", "seed": 0, "players": 2, "options": {}, "bots": ["random", "random"], "scores": [1, 2],
           "winners": [1], "decisions": 3, "turns": 3, "lineup": ["random", "random"], "rotation": 0}
    rec[field] = value
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(rec) + "\n")
    with pytest.raises(RecordsError, match=words):
        read_records(path)


def test_an_error_row_with_an_unknown_reason_is_refused(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps({"seed": 0, "players": 2, "error": "x", "reason": "bored"}) + "\n")
    with pytest.raises(RecordsError, match="'reason'"):
        read_records(path)


def test_the_summary_reports_the_metrics_with_intervals(race, tmp_path):
    outs, _ = _study(race, tmp_path, players=2, games=30)
    m = outs[0]["summary"]["metrics"]
    assert m["recorded"] == 30
    assert m["lead_changes"]["n"] == 30 and m["lead_changes"]["ci95"][0] is not None
    acts = {a["action"]: a for a in m["actions"]}
    assert set(acts) == {"small", "big", "skip"} and acts["small"]["count"] + acts["big"]["count"] == 30 * 6
    assert abs(sum(a["share"] for a in m["actions"]) - 1) < 1e-9
    assert m["never_played"] == ["skip"]
    fs = m["first_seat"]
    assert fs["fair"] == 0.5 and fs["ci95"][0] <= fs["win_rate"] <= fs["ci95"][1] and 0 <= fs["p"] <= 1
    assert m["unfinished"]["count"] == 0
    d = m["draws"]
    assert d["count"] == outs[0]["summary"]["ties"]["count"]


def test_an_action_never_played_is_named(race, tmp_path):
    outs, _ = _study(race, tmp_path, players=2, bots=["all=first"])
    assert outs[0]["summary"]["metrics"]["never_played"] == ["big", "skip"]


def test_the_command_line_turns_the_trace_on_and_off(capsys):
    from gamespec.cli import main

    def recorded(*flags):
        assert main(["simulate", RACE, "-p", "2", "-n", "4", "--workers", "1", "--json", "--seed", "1", *flags]) == 0
        return json.loads(capsys.readouterr().out)["summary"]["metrics"]["recorded"]
    assert recorded("--engine", "python") == 4
    assert recorded("--engine", "python", "--no-trace") == 0
    assert recorded("--engine", "native", "--trace") == 4
    assert recorded("--engine", "native", "--bot", "0=first") == 4       # a seat that is not random


@pytest.mark.parametrize("mid_game", ["mix[1]", "mix[3]"])      # a text, none
def test_a_score_that_is_no_number_yet_counts_0_in_the_trace(mid_game):
    text = open(RACE).read().replace('score: "points[p]"', f'score: "{mid_game} if turns < 5 else points[p]"')
    text = text.replace("variables:\n", "variables:\n  mix: {type: list, initial: [1, 'a', true, none]}\n", 1)
    game = gamespec.load_text(text, "odd.yaml")
    for seed in range(3):
        plain = sim.play_one(game, 2, seed)
        traced = sim.play_one(game, 2, seed, trace=True)
        assert "error" not in traced and (traced["scores"], traced["winners"]) == (plain["scores"], plain["winners"])
        assert traced["lead_changes"] >= 0


def test_restricted_play_over_a_sweep_of_options_resumes_per_configuration(tmp_path):
    bali = os.path.join(GAMES, "bali.yaml")
    game = gamespec.load(bali)
    path = tmp_path / "s.jsonl"
    kw = dict(games=2, players=2, sweep=["oracle=false,true"], restrict=["first,avoid:buy"], workers=1,
              records=str(path), engine="native")
    full = analysis.simulate(game, bali, seed=5, **kw)["configs"]
    assert [(c["options"]["oracle"], c["restriction"], c["games_played"]) for c in full] == [
        (False, "first", 4), (False, "avoid:buy", 4), (True, "first", 4), (True, "avoid:buy", 4)]
    rows = path.read_text().splitlines(keepends=True)
    path.write_text("".join(rows[:6]))
    again = analysis.simulate(game, bali, resume=True, **kw)["configs"]
    assert [c["resumed"] for c in again] == [4, 2, 0, 0]
    assert _rows(path) == sorted(json.dumps({k: v for k, v in json.loads(r).items() if k != "seconds"},
                                            sort_keys=True) for r in rows)


def test_a_spec_that_scores_teams_is_traced_by_team():
    """scoring.per_team: partners share a score, so the leader is a team (no seat of a team could lead
    alone): a game one team wins has its decisiveness and drama, and leads change between teams."""
    import os
    g = gamespec.load(os.path.join(os.path.dirname(os.path.abspath(__file__)), "specs", "bags.yaml"))
    team = g.ruleset(4, g.check_options({})).seat_team
    changes = 0
    for seed in range(20):
        r = sim.play_one(g, 4, seed, trace=True)
        one_team = len({team[p] for p in r["winners"]}) == 1
        assert (r["decided_at"] is not None) == one_team, r
        assert (r["winner_deficit"] is not None) == one_team
        changes += r["lead_changes"]
    assert changes > 0


@pytest.mark.parametrize("extra", [[], ["--records", "study.jsonl"], ["--rotate"], ["--restrict", "all"],
                                   ["--workers", "2"]],
                         ids=["plain", "records", "rotate", "restrict", "workers"])
def test_a_study_without_the_native_engine_says_so_in_one_line(tmp_path, extra):
    """Issue 36: a fallback to the Python engine is said once per study, whatever its kind (a pool's
    workers said it again, each)."""
    import subprocess
    import sys
    from helpers import ROOT
    env = dict(os.environ, CC="gamespec-no-such-compiler", GAMESPEC_CACHE=str(tmp_path / "cache"))
    spec = os.path.join(ROOT, "tests", "specs", "bags.yaml")
    run = subprocess.run([sys.executable, "-m", "gamespec.cli", "simulate", spec, "--games", "8", "--seed", "1",
                          *extra], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    said = [ln for ln in run.stderr.splitlines() if "native engine" in ln]
    assert said == ["gamespec: native engine not used for Bags (4 players; hands=2): no C compiler found "
                    "(CC=gamespec-no-such-compiler); playing on the Python engine"], run.stderr
