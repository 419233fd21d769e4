"""Studies of games played in teams (issue 36): a team's win is a win, not a draw. Records say the seats'
teams (checked on read and on --resume), the summary counts each team's wins, the draws (a win shared
by teams), a seat's win rate as its team's and tests equal shares over the teams; simulate, the
findings, the report and compare say so; a game without teams is counted as before
(docs/analysis.md, "Teams")."""
from __future__ import annotations

import csv
import json
import os
import re

import pytest

import gamespec
import gamespec.simulate as sim
from gamespec import UsageError, analysis
from gamespec.analysis import RecordsError, read_records, summarize
from gamespec.analysis.findings import findings
from gamespec.analysis.records import RecordWriter
from gamespec.cli import main
from helpers import ROOT, skip_without_cc

needs_cc = skip_without_cc()
SPECS = os.path.join(ROOT, "tests", "specs")
BAGS = os.path.join(SPECS, "bags.yaml")
PARTNERS = os.path.join(SPECS, "partners.yaml")
COOP = os.path.join(SPECS, "coop.yaml")
RACE = os.path.join(SPECS, "race.yaml")


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def study(path, tmp_path, name="r.jsonl", engine="python", **kw):
    kw.setdefault("games", 120)
    kw.setdefault("seed", 1)
    kw.setdefault("workers", 1)
    game = gamespec.load(path)
    records = tmp_path / name
    out = analysis.simulate(game, path, records=str(records), engine=engine, **kw)
    return out["configs"], read_records(records)


def true_draws(rows):
    """Games whose winners hold seats of more than one partnership (seats 0, 2 against 1, 3), counted
    from the winners alone."""
    return sum(1 for r in rows if {p % 2 for p in r["winners"]} == {0, 1})


# -- a team's win is a win ----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def bags_study(tmp_path_factory):
    return study(BAGS, tmp_path_factory.mktemp("bags"), games=200)


def test_a_team_study_counts_a_teams_win_as_a_win(bags_study):
    outs, rows = bags_study
    assert all(r["teams"] == [0, 1, 0, 1] for r in rows)
    s = outs[0]["summary"]
    n = s["games_finished"]
    assert n == 200
    draws = true_draws(rows)
    assert 0 < draws < 40               # bags ends level now and then; most games one team wins
    teams = s["teams"]
    assert [t["members"] for t in teams["teams"]] == [[0, 2], [1, 3]]
    wins = [sum(1 for r in rows if sorted(r["winners"]) == m) for m in ([0, 2], [1, 3])]
    assert [t["wins"] for t in teams["teams"]] == wins
    # the teams' win rates and the true draw rate add up to 1
    assert sum(t["win_rate"] for t in teams["teams"]) == pytest.approx(1 - draws / n)
    assert s["metrics"]["draws"]["count"] == draws and s["ties"]["count"] == draws
    assert s["metrics"]["draws"]["rate"] == pytest.approx(draws / n)
    # a seat's win rate is its team's; the fair share is an equal part of the games not drawn
    assert [x["win_rate"] for x in s["seats"]] == [teams["teams"][p % 2]["win_rate"] for p in range(4)]
    assert s["fair_share"] == pytest.approx((1 - draws / n) / 2)
    assert s["metrics"]["first_seat"]["fair"] == s["fair_share"]
    # the seat test runs over the two teams: df 1, whole counts
    adv = s["seat_advantage"]
    assert adv["over"] == "teams" and adv["df"] == 1 and adv["fractional_wins"] is False
    expected = (wins[0] - sum(wins) / 2) ** 2 / (sum(wins) / 2) * 2
    assert adv["statistic"] == pytest.approx(expected)
    # simulate's own report (the JSON's win_rate, shared_wins) counts the same way
    assert outs[0]["win_rate"] == pytest.approx([x["win_rate"] for x in s["seats"]])
    assert outs[0]["shared_wins"] == draws


def test_the_findings_do_not_call_a_teams_win_a_draw(bags_study):
    outs, rows = bags_study
    words = findings([outs[0]["summary"]])
    text = "\n".join(words)
    assert "draws 100" not in text and "shared wins counted fractionally" not in text
    assert re.search(r"team 0 \(seats 0, 2\) wins \d+% \[\d+, \d+\] and team 1 \(seats 1, 3\) \d+% \[\d+, \d+\] "
                     r"of 200 games, draws \d+(\.\d)?% ", text), text
    assert "chi-square test of equal shares over teams (df 1)" in text
    assert re.search(r"(no evidence that teams differ|teams differ at the 5% level)", text)
    draws = next(w for w in words if w.startswith("draws ("))
    assert draws.startswith("draws (a win shared by teams, or no winner): ") and "100" not in draws
    lines = "\n".join(analysis.study_lines(outs[0]))
    assert re.search(r"^\s+0\s+0, 2\s+\d+\.\d%", lines, re.M) and "draws (a win shared by teams): " in lines
    assert "draws 100" not in lines and "seats differ" not in lines


@needs_cc
def test_the_native_engine_counts_the_same(bags_study, tmp_path):
    outs, rows = bags_study
    nouts, nrows = study(BAGS, tmp_path, engine="native", games=200)
    strip = [{k: v for k, v in r.items() if k not in ("seconds",)} for r in rows]
    assert [{k: v for k, v in r.items() if k not in ("seconds",)} for r in nrows] == strip
    a, b = outs[0]["summary"], nouts[0]["summary"]
    assert b["teams"] == a["teams"] and b["seat_advantage"] == a["seat_advantage"]
    assert b["metrics"]["draws"] == a["metrics"]["draws"]


def test_a_scoring_teams_spec_is_a_team_game_too(tmp_path):
    """scoring.teams (per-seat scores summed over the partners): the same counting."""
    outs, rows = study(PARTNERS, tmp_path, games=60)
    assert all(r["teams"] == [0, 1, 0, 1] for r in rows)
    s = outs[0]["summary"]
    draws = true_draws(rows)            # 4 tricks to 4
    assert sum(t["win_rate"] for t in s["teams"]["teams"]) == pytest.approx(1 - draws / 60)
    assert s["metrics"]["draws"]["count"] == draws < 30


# -- the command line: simulate, report, compare ------------------------------------------------------

def test_simulate_report_and_compare_say_wins_per_team(tmp_path, capsys):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.csv"
    code, out, err = run(capsys, "simulate", BAGS, "--games", 200, "--seed", 1, "--records", a)
    assert code == 0, err
    assert re.search(r"^\s+team\s+seats\s+win rate", out, re.M) and "draws 100" not in out
    assert "draws (a win shared by teams): " in out and "no evidence that seats differ" not in out
    code, out, err = run(capsys, "simulate", BAGS, "--games", 100, "--seed", 500, "--records", b,
                         "--engine", "python")
    assert code == 0, err
    code, _, err = run(capsys, "report", a, b, "-o", tmp_path / "r.html")
    assert code == 0, err
    page = (tmp_path / "r.html").read_text()
    assert page.count("<tr class='team' data-team=") == 2       # one configuration: the two teams
    drew = re.search(r"draws \(a win shared by teams, or no winner\): (\d+(?:\.\d)?)% ", page)
    assert drew and float(drew.group(1)) < 30, page[:3000]
    assert "over teams" in page
    code, out, err = run(capsys, "compare", a, b)
    assert code == 0, err
    assert re.search(r"team 0 \(seats 0, 2\) win rate\s+\d+\.\d%\s+\d+\.\d%", out), out
    assert "team 1 (seats 1, 3) score" in out and "draw rate" in out and "seat 0 win rate" not in out
    drew = re.search(r"draw rate\s+(\d+\.\d)%\s+(\d+\.\d)%", out)
    assert drew and all(float(x) < 30 for x in drew.groups()), out


# -- records --------------------------------------------------------------------------------------------

def test_team_records_round_trip_in_jsonl_and_csv(bags_study, tmp_path):
    _, rows = bags_study
    rows = rows[:30]
    for name in ("t.jsonl", "t.csv"):
        path = tmp_path / name
        with RecordWriter(path) as w:
            for r in rows:
                w.write(r)
        back = read_records(path)
        assert back == rows, name
    with open(tmp_path / "t.csv", newline="") as f:
        table = list(csv.DictReader(f))
    assert table[0]["teams"] == "0;1;0;1"


def test_records_without_teams_say_null(tmp_path):
    outs, rows = study(RACE, tmp_path, games=6, players=2)
    assert all("teams" in r and r["teams"] is None for r in rows)
    with RecordWriter(tmp_path / "t.csv") as w:
        for r in rows:
            w.write(r)
    assert read_records(tmp_path / "t.csv") == read_records(tmp_path / "r.jsonl")


def _line(**fields):
    rec = {"game": "G", "seed": 1, "players": 4, "options": {}, "bots": ["random"] * 4,
           "scores": [5, 3, 5, 3], "winners": [0, 2], "teams": [0, 1, 0, 1], "decisions": 4, "turns": 4}
    rec.update(fields)
    return json.dumps(rec)


BAD_TEAMS = {
    "too_few": ({"teams": [0, 1, 0]}, "'teams' is not a list of 4 team numbers"),
    "not_numbers": ({"teams": ["a", "b", "a", "b"]}, "'teams' is not a list of 4 team numbers"),
    "beyond_the_seats": ({"teams": [0, 1, 0, 9]}, "'teams' is not a list of 4 team numbers"),
    "a_bool": ({"teams": [False, True, False, True]}, "'teams' is not a list of 4 team numbers"),
    "a_gap": ({"teams": [0, 2, 0, 2]}, "has no seat in team 1"),
    "split_winners": ({"winners": [0]}, "'winners' [0] contradict 'teams' [0, 1, 0, 1]: partners win "
                                        "together, and team 0 (seats 0, 2) has winners and losers"),
    "partners_apart": ({"scores": [5, 3, 4, 3], "winners": [0, 2]},
                       "'scores' contradict 'teams' [0, 1, 0, 1]: partners share their team's score, and team 0 "
                       "(seats 0, 2) has the scores 5, 4"),
    "cooperative": ({"cooperative": True, "winners": [0, 1, 2, 3], "scores": [5, 5, 5, 5]},
                    "a cooperative record has no 'teams'"),
}


@pytest.mark.parametrize("case", sorted(BAD_TEAMS))
def test_a_record_whose_teams_contradict_it_is_refused_on_read(case, tmp_path, capsys):
    fields, message = BAD_TEAMS[case]
    path = tmp_path / "bad.jsonl"
    path.write_text(_line() + "\n" + _line(seed=2, **fields) + "\n")
    with pytest.raises(RecordsError, match=rf"bad\.jsonl:2: .*{re.escape(message)}"):
        read_records(path)
    code, _, err = run(capsys, "report", path, "-o", tmp_path / "r.html")
    assert code == 1 and "bad.jsonl:2: " in err and "Traceback" not in err, err
    code, _, err = run(capsys, "compare", path, path)
    assert code == 1 and "bad.jsonl:2: " in err and "Traceback" not in err, err


def test_a_csv_record_whose_teams_contradict_it_is_refused_on_read(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("game,seed,players,options,bots,scores,winners,teams,decisions,turns\n"
                    "G,1,4,,,5;3;5;3,0;2,0;1;0;1,4,4\n"
                    "G,2,4,,,5;3;5;3,0;1,0;1;0;1,4,4\n")
    with pytest.raises(RecordsError, match=r"bad\.csv:3: 'winners' \[0, 1\] contradict 'teams'"):
        read_records(path)


def test_records_of_one_configuration_that_disagree_about_teams_are_refused(tmp_path, capsys):
    path = tmp_path / "mixed.jsonl"
    path.write_text(_line() + "\n" + _line(seed=2, teams=None) + "\n")
    assert len(read_records(path)) == 2         # each row on its own is well formed
    with pytest.raises(RecordsError, match=r"the records of G: 4 players disagree about teams: seed 1 says "
                                           r"the seats' teams \[0, 1, 0, 1\], seed 2 says none"):
        summarize(read_records(path))
    for argv in (["report", path, "-o", tmp_path / "r.html"], ["compare", path, path]):
        code, _, err = run(capsys, *argv)
        assert code == 1 and "disagree about teams" in err and "Traceback" not in err, (argv, err)


def test_resume_refuses_records_whose_teams_are_not_the_specs(bags_study, tmp_path):
    _, rows = bags_study
    game = gamespec.load(BAGS)

    def resume(rewrite, spec=BAGS, g=game, **kw):
        path = tmp_path / "resume.jsonl"
        path.write_text("".join(json.dumps(rewrite(dict(r))) + "\n" for r in rows[:3]))
        return analysis.simulate(g, spec, games=5, seed=1, workers=1, engine="python", records=str(path),
                                 resume=True, **kw)

    def swap(r):            # well formed (partners still together) but not Bags' numbering
        r["teams"] = [1 - t for t in r["teams"]]
        return r

    with pytest.raises(UsageError, match=r"seed 1 says the teams \[1, 0, 1, 0\], but Bags's are \[0, 1, 0, 1\]: "
                                         "it cannot be resumed"):
        resume(swap)
    with pytest.raises(UsageError, match=r"seed 1 says no teams, but Bags's seats play in teams \[0, 1, 0, 1\] "
                                         r"\(a record written before records said the teams\)"):
        resume(lambda r: {k: v for k, v in r.items() if k != "teams"})
    out = resume(lambda r: r)           # the spec's own teams: resumed
    assert out["configs"][0]["resumed"] == 3
    # a spec without teams: a row that says teams is refused
    race = gamespec.load(RACE)
    path = tmp_path / "race.jsonl"
    analysis.simulate(race, RACE, games=2, seed=0, players=2, workers=1, engine="python", records=str(path))
    text = "".join(json.dumps(dict(r, teams=[0, 1])) + "\n" for r in read_records(path))
    path.write_text(text)
    with pytest.raises(UsageError, match=r"says the seats play in teams \[0, 1\], but Race scores each seat alone"):
        analysis.simulate(race, RACE, games=4, seed=0, players=2, workers=1, engine="python", records=str(path),
                          resume=True)


# -- a game without teams, a cooperative game ---------------------------------------------------------

def test_a_game_without_teams_is_counted_as_before(tmp_path):
    """Shared wins count 1/k to each winner, the test runs over the seats, ties are the draws."""
    rows = []
    for i in range(10):
        winners = [0] if i < 6 else [1] if i < 8 else [0, 1]
        rows.append({"game": "G", "seed": i, "players": 2, "options": {}, "bots": ["random"] * 2,
                     "scores": [1 if 0 in winners else 0, 1 if 1 in winners else 0], "winners": winners,
                     "teams": None, "decisions": 3, "turns": 3})
    s = summarize(rows)[0]
    assert s["teams"] is None and s["fair_share"] == 0.5
    assert [x["win_rate"] for x in s["seats"]] == pytest.approx([0.7, 0.3])
    assert s["ties"]["count"] == 2 and s["metrics"]["draws"]["count"] == 2
    adv = s["seat_advantage"]
    assert adv["over"] == "seats" and adv["df"] == 1 and adv["fractional_wins"] is True
    assert adv["statistic"] == pytest.approx(((7 - 5) ** 2 + (3 - 5) ** 2) / 5)
    words = " ".join(findings([s]))
    assert "seats differ" in words and "team" not in words
    # the same rows without the field (records written before it) count the same
    old = summarize([{k: v for k, v in r.items() if k != "teams"} for r in rows])[0]
    assert old == s


def test_a_cooperative_study_keeps_its_success_rate(tmp_path):
    outs, rows = study(COOP, tmp_path, games=40, players=3)
    assert all(r["teams"] is None and r["cooperative"] for r in rows)
    s = outs[0]["summary"]
    assert s["cooperative"] and "success" in s and "seats" not in s and "teams" not in s
    assert any(w.startswith("the team succeeds in ") for w in findings([s]))


# -- teams decided during play ------------------------------------------------------------------------

def _partners_by_tricks(tmp_path):
    """Partners whose scoring teams are decided where the game ends: those who took more than 2
    tricks against the others."""
    text = open(PARTNERS, encoding="utf-8").read().replace('teams: "p % 2"', 'teams: "0 if tricks[p] > 2 else 1"')
    path = tmp_path / "bytricks.yaml"
    path.write_text(text)
    return str(path)


def test_teams_decided_during_play_are_read_from_each_game(tmp_path):
    path = _partners_by_tricks(tmp_path)
    game = gamespec.load(path)
    rs = game.ruleset(4, game.check_options({}))
    assert sim.teams_in_play(rs) and sim.setup_teams(rs) is None
    assert sim.setup_teams(gamespec.load(PARTNERS).ruleset(4, {"trumps": True})) == [0, 1, 0, 1]
    outs, rows = study(path, tmp_path, games=40)
    for r in rows:
        tricks = r["scores"]            # a team's total: its members' tricks
        big = [p for p in range(4) if r["teams"][p] == r["teams"][0]]
        assert r["teams"][0] == 0 and sorted(set(r["teams"])) == list(range(len(set(r["teams"]))))
        assert all(tricks[p] == tricks[0] for p in big)
    assert len({tuple(r["teams"]) for r in rows}) > 1
    s = outs[0]["summary"]
    assert s["teams"] == {"seats": None, "varies": True, "count": None, "teams": []}
    assert s["seat_advantage"] is None
    decided = [r for r in rows if len({r["teams"][p] for p in r["winners"]}) == 1]
    assert s["fair_share"] == pytest.approx(sum(1 / len(set(r["teams"])) for r in decided) / 40)
    for p in range(4):
        assert s["seats"][p]["win_rate"] == pytest.approx(sum(p in r["winners"] for r in decided) / 40)
    text = "\n".join(analysis.study_lines(outs[0]))
    assert "differ from game to game" in text and "not tested" in text


@needs_cc
def test_teams_decided_during_play_are_played_in_the_python_loop(tmp_path, capsys):
    path = _partners_by_tricks(tmp_path)
    native, _ = study(path, tmp_path, name="n.jsonl", engine="native", games=20)
    err = capsys.readouterr().err
    assert err.count("its scoring teams are decided during play") == 1, err
    python, _ = study(path, tmp_path, name="p.jsonl", engine="python", games=20)
    strip = lambda rows: [{k: v for k, v in r.items() if k != "seconds"} for r in rows]    # noqa: E731
    assert strip(read_records(tmp_path / "n.jsonl")) == strip(read_records(tmp_path / "p.jsonl"))


def test_a_line_up_comparison_of_a_team_game_measures_against_its_fair_shares(bags_study, tmp_path):
    from gamespec.analysis.findings import finding_items, pct
    _, rows = bags_study
    _, first = study(BAGS, tmp_path, name="first.jsonl", games=40, bots=("all=first",))
    sums = summarize(rows + first)
    fair = [s["fair_share"] for s in sums]
    assert fair[0] != fair[1]          # first seats draw more often than random ones
    item = next(it for it in finding_items(sums) if it["kind"] == "lineup")
    assert f"(fair shares {pct(fair[0])} and {pct(fair[1])})" in item["text"], item["text"]
    assert "chi-square test of equal shares over teams: p" in item["text"]
