"""Balance studies (gamespec/analysis): records, statistics, cooperative scoring, sweeps, comparisons,
the HTML report and the progress bar. Few, short games: the file runs in seconds."""
from __future__ import annotations

import io
import json
import math
import os
import random
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

import gamespec
from gamespec import analysis
from gamespec.analysis import comparison as cmpmod
from gamespec.analysis import stats
from gamespec.analysis.records import RecordsError, RecordWriter, read_records
from gamespec.cli import main
from gamespec import simulate as sim

ROOT = Path(__file__).resolve().parent.parent
BACCHUS = str(ROOT / "games" / "bacchus.yaml")
BALI = str(ROOT / "games" / "bali.yaml")
COOP = str(ROOT / "tests" / "specs" / "coop.yaml")
TINY = str(ROOT / "tests" / "specs" / "tiny.yaml")


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def no_time(rows):
    return [{k: v for k, v in r.items() if k != "seconds"} for r in rows]


# ------------------------------------------------------------------------------ distributions

def test_distributions_match_tabulated_values():
    assert stats.t_ppf(0.975, 10) == pytest.approx(2.228139, abs=1e-5)
    assert stats.t_ppf(0.975, 1) == pytest.approx(12.7062, abs=1e-3)
    assert stats.t_ppf(0.975, 10 ** 7) == pytest.approx(stats.Z95, abs=1e-4)
    assert stats.t_sf(2.0, 5) == pytest.approx(0.050970, abs=1e-6)
    assert stats.t_sf(-2.0, 5) == pytest.approx(1 - 0.050970, abs=1e-6)
    assert stats.chi2_sf(3.841459, 1) == pytest.approx(0.05, abs=1e-6)
    assert stats.chi2_sf(11.0705, 5) == pytest.approx(0.05, abs=1e-5)
    assert stats.chi2_sf(0.5, 3) == pytest.approx(0.918891, abs=1e-6)
    assert stats.chi2_sf(30.0, 3) == pytest.approx(1.380e-6, rel=1e-3)
    assert stats.norm_sf(1.959964) == pytest.approx(0.025, abs=1e-7)
    assert stats.betainc(2, 3, 0.4) == pytest.approx(0.5248, abs=1e-10)


def test_wilson_interval():
    lo, hi = stats.wilson(5, 10)
    assert (lo, hi) == (pytest.approx(0.236593, abs=1e-6), pytest.approx(0.763407, abs=1e-6))
    lo, hi = stats.wilson(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.277533, abs=1e-6)     # never below 0, not empty
    assert stats.wilson(0, 0) == (None, None)
    # narrower with more games, always around the rate
    for n in (10, 100, 1000):
        lo, hi = stats.wilson(0.3 * n, n)
        assert lo < 0.3 < hi
    assert stats.wilson(300, 1000)[1] - stats.wilson(300, 1000)[0] < stats.wilson(30, 100)[1] - stats.wilson(30, 100)[0]


def test_wilson_covers_the_true_rate_about_95_percent():
    rng = random.Random(1)
    n, p, trials = 50, 0.2, 2000
    covered = 0
    for _ in range(trials):
        x = sum(rng.random() < p for _ in range(n))
        lo, hi = stats.wilson(x, n)
        covered += lo <= p <= hi
    assert 0.92 < covered / trials < 0.98


def test_describe_and_quantiles():
    d = stats.describe([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11])
    assert d["mean"] == 6 and d["sd"] == pytest.approx(math.sqrt(11))
    half = stats.t_ppf(0.975, 10) * math.sqrt(11) / math.sqrt(11)
    assert d["ci95"] == [pytest.approx(6 - half), pytest.approx(6 + half)]
    assert d["quantiles"] == {"5%": 1.5, "25%": 3.5, "50%": 6, "75%": 8.5, "95%": 10.5}
    assert d["min"] == 1 and d["max"] == 11
    assert stats.describe([])["mean"] is None
    assert stats.describe([4])["ci95"] == [None, None]


def test_describe_cuts_the_interval_to_the_quantitys_range():
    """A share's t interval over few games reached past 0..1 ("decided at 68% [-2, 138]"); a count's
    below 0: the bounds given cut it, the mean and sd stay."""
    d = stats.describe([0.05, 0.95, 1.0, 0.7], lo=0, hi=1)
    free = stats.describe([0.05, 0.95, 1.0, 0.7])
    assert free["ci95"][0] < 0 and free["ci95"][1] > 1
    assert d["ci95"] == [0, 1] and d["mean"] == free["mean"] and d["sd"] == free["sd"]
    c = stats.describe([0, 0, 0, 9], lo=0)
    assert c["ci95"][0] == 0 and c["ci95"][1] == stats.describe([0, 0, 0, 9])["ci95"][1]
    inside = stats.describe(list(range(1, 12)), lo=0, hi=100)
    assert inside["ci95"] == stats.describe(list(range(1, 12)))["ci95"]


def test_chi_square_of_equal_shares():
    stat, df, p = stats.chi_square_equal([25, 25, 25, 25])
    assert stat == 0 and df == 3 and p == pytest.approx(1.0)
    stat, df, p = stats.chi_square_equal([40, 20, 20, 20])
    assert stat == pytest.approx(225 / 25 + 3 * 25 / 25) and p == pytest.approx(stats.chi2_sf(12, 3)) and p < 0.01
    assert stats.chi_square_equal([3]) is None


# ------------------------------------------------------------------------------ records

def _study(tmp_path, name, **kw):
    path = tmp_path / name
    with RecordWriter(path) as rec:
        out = analysis.run_study(kw.pop("spec", BACCHUS), records=rec, **kw)
    return out, read_records(path)


def test_records_hold_one_row_per_game_as_play_one_plays_it(tmp_path):
    out, rows = _study(tmp_path, "b.jsonl", games=6, players=4, seed=3, workers=1)
    game = gamespec.load(BACCHUS)
    assert [r["seed"] for r in rows] == list(range(3, 9))
    for r in rows:
        g = sim.play_one(game, 4, r["seed"])
        assert r["scores"] == g["scores"] and r["winners"] == g["winners"]
        assert r["decisions"] == g["decisions"] and r["turns"] == g["turns"] and r["phases"] == g["phases"]
        assert r["game"] == "Bacchus" and r["players"] == 4 and r["options"] == {}
        assert r["bots"] == ["random"] * 4 and r["cooperative"] is False
        assert r["spec_sha256"] == game.spec.sha256 and r["seconds"] > 0
    assert out["summary"]["games_finished"] == 6


def test_csv_records_read_back_as_the_jsonl_rows(tmp_path):
    _, a = _study(tmp_path, "b.jsonl", spec=BALI, games=4, players=3, seed=0, workers=1,
                  options={"oracle": True})
    _, b = _study(tmp_path, "b.csv", spec=BALI, games=4, players=3, seed=0, workers=1,
                  options={"oracle": True})
    assert no_time(a) == no_time(b)
    assert a[0]["options"] == {"oracle": True, "demon": False}
    header = (tmp_path / "b.csv").read_text().splitlines()[0]
    assert header.startswith("game,spec_sha256,seed,players,options,bots,scores,winners")


def test_records_are_written_as_games_finish(tmp_path):
    path = tmp_path / "live.jsonl"
    seen = []
    with RecordWriter(path) as rec:
        real_write = rec.write

        def write(row):
            real_write(row)
            seen.append(len(path.read_text().splitlines()))     # on disk already
        rec.write = write
        analysis.run_study(BACCHUS, games=4, players=3, workers=1, records=rec)
    assert seen == [1, 2, 3, 4]


def test_failed_games_are_records_too(tmp_path):
    spec = tmp_path / "div.yaml"
    spec.write_text(Path(TINY).read_text().replace('"sum(c.value for c in hand[p])"',
                                                    '"sum(c.value for c in hand[p]) // 0"'))
    out, rows = _study(tmp_path, "f.csv", spec=str(spec), games=3, workers=1)
    assert [r["seed"] for r in rows] == [0, 1, 2]
    assert all("division by zero" in r["error"] and "scores" not in r for r in rows)
    s = out["summary"]
    assert s["games_finished"] == 0 and [e["seed"] for e in s["errors"]] == [0, 1, 2]


@pytest.mark.parametrize("content, message", [
    ('{"seed": 1}\n', "no whole-number 'players'"),
    ('not json\n', "not JSON"),
    ('{"seed": 1, "players": 2, "scores": [1], "winners": [0]}\n', "'scores' is not a list of 2"),
    ('{"seed": 1, "players": 2, "scores": [1, 2], "winners": [5]}\n', "'winners' is not a list of seats"),
])
def test_bad_records_are_named_by_file_and_line(tmp_path, capsys, content, message):
    path = tmp_path / "bad.jsonl"
    path.write_text('\n' + content)
    with pytest.raises(RecordsError, match=f"bad.jsonl:2: .*{message}"):
        read_records(path)
    code, out, err = run(capsys, "report", path, "-o", tmp_path / "r.html")
    assert code == 1 and "bad.jsonl:2:" in err and "Traceback" not in err


def test_records_file_extension_is_checked(tmp_path, capsys):
    code, _, err = run(capsys, "simulate", BACCHUS, "--games", 1, "--records", tmp_path / "x.txt")
    assert code == 1 and ".jsonl or .csv" in err


# ------------------------------------------------------------------------------ summary

def test_summary_figures_are_those_of_the_records(tmp_path):
    out, rows = _study(tmp_path, "b.jsonl", spec=BALI, games=40, players=4, workers=1)
    s = out["summary"]
    assert s == stats.summarize(rows)[0]          # the same from the file as during the run
    n = len(rows)
    for p, seat in enumerate(s["seats"]):
        wins = sum(1 / len(r["winners"]) for r in rows if p in r["winners"])
        assert seat["win_rate"] == pytest.approx(wins / n)
        assert seat["ci95"] == list(stats.wilson(wins, n))
        assert seat["score"]["mean"] == pytest.approx(sum(r["scores"][p] for r in rows) / n)
        assert seat["score"]["max"] == max(r["scores"][p] for r in rows)
    assert sum(x["win_rate"] for x in s["seats"]) == pytest.approx(1.0)
    assert s["ties"]["count"] == sum(len(r["winners"]) > 1 for r in rows)
    margins = []
    for r in rows:
        losers = [r["scores"][p] for p in range(4) if p not in r["winners"]]
        margins.append(min(abs(r["scores"][r["winners"][0]] - x) for x in losers))
    assert s["margin"]["mean"] == pytest.approx(sum(margins) / n)
    assert s["length"]["decisions"]["mean"] == pytest.approx(sum(r["decisions"] for r in rows) / n)
    assert s["seat_advantage"]["df"] == 3 and 0 <= s["seat_advantage"]["p"] <= 1
    # the legacy figures are unchanged
    assert out["win_rate"] == pytest.approx([x["win_rate"] for x in s["seats"]])


def test_a_seat_advantage_is_detected():
    rows = [{"game": "G", "seed": i, "players": 2, "options": {}, "bots": ["random"] * 2,
             "scores": [1, 0] if i % 10 < 7 else [0, 1], "winners": [0] if i % 10 < 7 else [1],
             "decisions": 1, "turns": 1} for i in range(200)]
    s = stats.summarize(rows)[0]
    assert s["seats"][0]["win_rate"] == pytest.approx(0.7)
    assert s["seat_advantage"]["p"] < 1e-6 and s["seats"][1]["ci95"][1] < 0.5
    even = [dict(r, winners=[i % 2], scores=[1 - i % 2, i % 2]) for i, r in enumerate(rows)]
    assert stats.summarize(even)[0]["seat_advantage"]["p"] == pytest.approx(1.0)


def test_simulate_text_shows_intervals_and_the_test(capsys):
    code, out, err = run(capsys, "simulate", BACCHUS, "--games", 8, "--workers", 1)
    assert code == 0 and err == ""
    assert "95% interval" in out and "seat advantage (chi-square test of equal shares):" in out \
        and ("seats differ" in out or "no evidence" in out) and "margin of victory" in out


def test_the_seat_advantage_line_states_its_verdict_at_five_percent(capsys):
    """The chi-square line says what its p means, so a p of 0.046 is not read as 'no advantage'."""
    import re
    code, out, _ = run(capsys, "simulate", BACCHUS, "--games", 40, "--workers", 1, "--seed", 3)
    assert code == 0
    m = re.search(r"seat advantage \(chi-square test of equal shares\): [\d.]+ \(df \d+\), p = ([\d.e-]+): (.*?)(?: \(|$)",
                  out, re.M)
    assert m, out
    expect = "seats differ at the 5% level" if float(m.group(1)) < 0.05 else "no evidence that seats differ"
    assert m.group(2) == expect


def test_simulate_json_has_the_summary_and_is_identical_for_one_and_two_workers(capsys, tmp_path):
    outs = []
    for w in (1, 2):
        code, out, _ = run(capsys, "simulate", BACCHUS, "--games", 12, "--players", 4, "--workers", w, "--seed", 0,
                           "--json", "--records", tmp_path / f"w{w}.jsonl")
        assert code == 0
        outs.append(json.loads(out))
    for r in outs:
        for k in sim.TIMING_FIELDS:
            r.pop(k)
        r.pop("records")
    assert outs[0] == outs[1] and outs[0]["summary"]["seats"][0]["ci95"][0] is not None
    assert no_time(read_records(tmp_path / "w1.jsonl")) == no_time(read_records(tmp_path / "w2.jsonl"))


# ------------------------------------------------------------------------------ cooperative

def _coop_text(**edits):
    text = Path(COOP).read_text()
    for old, new in edits.items():
        assert old in text
        text = text.replace(old, new)
    return text


@pytest.mark.parametrize("old, new, message", [
    ('  success: "size(stair) >= 6"\n', "", "a cooperative scoring needs 'success'"),
    ('  cooperative: true\n', "", "'success' belongs to a cooperative scoring"),
    ('  cooperative: true\n', "  cooperative: true\n  winner: lowest\n", "a cooperative scoring has no 'winner'"),
    ('"size(stair)"', '"size(hand[p])"', "unknown name 'p'"),
])
def test_cooperative_scoring_is_checked(old, new, message):
    with pytest.raises(gamespec.SpecErrors) as e:
        gamespec.load_text(_coop_text(**{old: new}), "coop.yaml")
    assert message in str(e.value) and "coop.yaml:" in str(e.value)


@pytest.mark.parametrize("backend", ["codegen", "closures"])
def test_cooperative_state_gives_one_team_score_and_all_or_no_winners(monkeypatch, backend):
    monkeypatch.setenv("GAMESPEC_BACKEND", backend)
    game = gamespec.load(COOP)
    outcomes = set()
    for seed in range(60):
        s = sim.play(game, 3, seed)
        team = s.scores[0]
        assert s.scores == [team] * 3
        assert s.winners in ([], [0, 1, 2])
        assert (s.winners == [0, 1, 2]) == (team >= 6)       # success: size(stair) >= 6
        outcomes.add(bool(s.winners))
    assert outcomes == {True, False}


def test_cooperative_summary_is_the_team_score_and_success_rate(tmp_path, capsys):
    out, rows = _study(tmp_path, "c.jsonl", spec=COOP, games=80, players=3, workers=1)
    s = out["summary"]
    assert s["cooperative"] and "seats" not in s and "seat_advantage" not in s
    wins = sum(1 for r in rows if r["winners"])
    assert s["success"]["count"] == wins and s["success"]["rate"] == pytest.approx(wins / 80)
    assert s["success"]["ci95"] == list(stats.wilson(wins, 80))
    assert s["team_score"]["mean"] == pytest.approx(sum(r["scores"][0] for r in rows) / 80)
    assert all(r["cooperative"] for r in rows)
    code, text, _ = run(capsys, "simulate", COOP, "--games", 20, "--workers", 1)
    assert code == 0 and "cooperative: success rate" in text and "team score: mean" in text
    assert "win rate" not in text


# ------------------------------------------------------------------------------ sweeps

def test_sweep_grid_and_its_errors():
    game = gamespec.load(BALI)
    axes = analysis.parse_sweep(["players=3,4", "oracle=true,false"])
    configs = analysis.grid(game, axes)
    assert [(p, o["oracle"]) for p, o in configs] == [(3, True), (3, False), (4, True), (4, False)]
    assert all(o["demon"] is False for _, o in configs)
    for texts, message in [(["players"], "NAME=V1,V2"), (["players=3,,4"], "NAME=V1,V2"),
                           (["oracel=true"], "did you mean 'oracle'"), (["players=9"], "2 to 4 players"),
                           (["oracle=maybe"], "oracle"), (["players=3", "players=4"], "given twice")]:
        with pytest.raises(gamespec.UsageError, match=message):
            analysis.grid(game, analysis.parse_sweep(texts))
    with pytest.raises(gamespec.UsageError, match="not both"):
        analysis.grid(game, analysis.parse_sweep(["players=3,4"]), players=3)


def test_sweep_runs_every_configuration_with_the_same_seeds(capsys, tmp_path):
    path = tmp_path / "sweep.csv"
    code, out, err = run(capsys, "simulate", COOP, "--games", 5, "--workers", 1, "--seed", 0, "--sweep", "players=2,3",
                         "--sweep", "burns=2,4", "--records", path, "--json")
    assert code == 0
    r = json.loads(out)
    assert r["sweep"] == {"players": ["2", "3"], "burns": ["2", "4"]}
    assert [(c["players"], c["options"]["burns"]) for c in r["configs"]] == [(2, 2), (2, 4), (3, 2), (3, 4)]
    rows = read_records(path)
    assert len(rows) == 20 and [x["seed"] for x in rows[:5]] == list(range(5)) == [x["seed"] for x in rows[-5:]]
    assert len(stats.summarize(rows)) == 4
    code, text, _ = run(capsys, "simulate", COOP, "--games", 3, "--workers", 1, "--sweep", "burns=2,3")
    assert code == 0 and text.count("Stairs: 3 games") == 2


# ------------------------------------------------------------------------------ comparisons

def test_two_sample_tests_match_known_values():
    # 45/100 vs 30/100: pooled 0.375, z = 0.15 / sqrt(0.375 * 0.625 * 0.02) = 2.1909, p = 0.02846
    assert cmpmod.two_proportions(45, 100, 30, 100) == pytest.approx(0.02846, abs=1e-5)
    a, b = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], [3, 5, 7, 9, 11, 13, 15, 17]
    # Welch by hand: variances 55/6 and 24, t = -4.5 / sqrt(55/60 + 3) = -2.2738, df = 11.124;
    # the p-value by integrating Student's density numerically (Simpson), independently of t_sf
    v1, v2 = 55 / 6, 24.0
    se2 = v1 / 10 + v2 / 8
    t = -4.5 / math.sqrt(se2)
    df = se2 ** 2 / ((v1 / 10) ** 2 / 9 + (v2 / 8) ** 2 / 7)
    assert t == pytest.approx(-2.2738, abs=1e-4) and df == pytest.approx(11.124, abs=1e-3)
    c = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(df * math.pi)
    pdf = lambda x: c * (1 + x * x / df) ** (-(df + 1) / 2)     # noqa: E731
    h, lo, steps = 1e-3, abs(t), 200_000
    tail = h / 3 * sum((1 if k in (0, steps) else 4 if k % 2 else 2) * pdf(lo + k * h) for k in range(steps + 1))
    assert cmpmod.welch(a, b) == pytest.approx(2 * tail, abs=1e-5)
    assert 0.04 < cmpmod.welch(a, b) < 0.05
    assert cmpmod.holm([0.01, 0.04, 0.03, None]) == [0.03, 0.06, 0.06, None]


def _rows(rate0, n, seed):
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        w = 0 if rng.random() < rate0 else 1
        rows.append({"game": "G", "seed": i, "players": 2, "options": {}, "bots": ["random"] * 2,
                     "scores": [10 + (w == 0), 10 + (w == 1)], "winners": [w], "decisions": 5, "turns": 2})
    return rows


def test_compare_finds_a_real_difference_and_not_noise(tmp_path, capsys):
    same = cmpmod.compare(_rows(0.5, 400, 1), _rows(0.5, 400, 2))
    assert same["differ"] == [] and "Holm" in same["note"]
    moved = cmpmod.compare(_rows(0.5, 400, 1), _rows(0.7, 400, 2))
    assert "G: 2 players: seat 0 win rate" in moved["differ"]
    f = next(x for x in moved["figures"] if x["figure"] == "seat 0 win rate")
    assert f["p_holm"] < 0.05 and f["diff"] == pytest.approx(f["b"] - f["a"]) and f["diff"] > 0.1
    for name, rows in (("a.jsonl", _rows(0.5, 400, 1)), ("b.jsonl", _rows(0.7, 400, 2))):
        (tmp_path / name).write_text("".join(json.dumps(r) + "\n" for r in rows))
    code, out, _ = run(capsys, "compare", tmp_path / "a.jsonl", tmp_path / "b.jsonl")
    assert code == 0 and "seat 0 win rate" in out and "<- differs" in out and "Holm" in out
    code, out, _ = run(capsys, "compare", tmp_path / "a.jsonl", tmp_path / "b.jsonl", "--json")
    assert json.loads(out)["differ"] == moved["differ"]


def test_compare_of_studies_of_different_spec_options(tmp_path, capsys):
    _study(tmp_path, "a.jsonl", spec=COOP, games=30, players=2, workers=1, options={"burns": 2})
    _study(tmp_path, "b.jsonl", spec=COOP, games=30, players=2, workers=1, options={"burns": 4})
    code, out, _ = run(capsys, "compare", tmp_path / "a.jsonl", tmp_path / "b.jsonl", "--json")
    r = json.loads(out)
    assert code == 0 and [f["figure"] for f in r["figures"]][:2] == ["success rate", "team score"]
    assert r["figures"][0]["config"] == "Stairs: 2 players: burns=2 vs burns=4"
    _study(tmp_path, "c.jsonl", spec=COOP, games=4, workers=1, options={"burns": 3})
    rows = read_records(tmp_path / "a.jsonl") + read_records(tmp_path / "b.jsonl")
    (tmp_path / "ab.jsonl").write_text("".join(json.dumps(x) + "\n" for x in rows))
    code, _, err = run(capsys, "compare", tmp_path / "ab.jsonl", tmp_path / "c.jsonl")
    assert code == 1 and "share no configuration" in err


# ------------------------------------------------------------------------------ report

class _Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.figures, self.svg_in_figure, self.seat_rows, self.text = [], [], {}, [], []
        self._figure = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append((tag, a))
        if tag == "figure":
            self._figure = a.get("id")
            self.figures.append(self._figure)
        if tag == "svg" and self._figure:
            self.svg_in_figure[self._figure] = self.svg_in_figure.get(self._figure, 0) + 1
        if tag == "tr" and a.get("class") == "seat":
            self.seat_rows.append(a)

    def handle_endtag(self, tag):
        if tag == "figure":
            self._figure = None

    def handle_data(self, data):
        self.text.append(data)


@pytest.fixture(scope="module")
def two_configs(tmp_path_factory):
    d = tmp_path_factory.mktemp("rep")
    paths = []
    for oracle in ("true", "false"):
        p = d / f"bali-{oracle}.jsonl"
        with RecordWriter(p) as rec:
            analysis.run_study(BALI, games=12, players=3, workers=1, options={"oracle": oracle}, records=rec)
        paths.append(p)
    return d, paths


def test_report_is_one_self_contained_html_with_the_figures(two_configs, capsys):
    d, paths = two_configs
    out = d / "report.html"
    code, text, err = run(capsys, "report", *paths, coop_records(d), "-o", out, "--png")
    assert code == 0 and err == ""
    page = _Page()
    html = out.read_text()
    page.feed(html)
    # the metric plots come when the games were traced (the Python engine traces them)
    traced = any(r.get("lead_changes") is not None for p in paths for r in read_records(p))
    assert page.figures == ["winrates", "scores", "length"] + (["lead_changes", "decided_at"] if traced else [])
    assert all(page.svg_in_figure.get(f) == 1 for f in page.figures)
    body = "".join(page.text)
    assert "Seat win rates" in body and "Team success rate" in body and "decisions per game" in body
    for cfg in ("Bali: 3 players, demon=false, oracle=true", "Bali: 3 players, demon=false, oracle=false",
                "Stairs: 2 players, burns=3"):
        assert cfg in body
    # the table holds the summary's numbers
    rows = [r for p in paths for r in read_records(p)]
    expected = [x["win_rate"] for s in stats.summarize(rows) for x in s["seats"]]
    assert [float(r["data-win-rate"]) for r in page.seat_rows] == pytest.approx(expected)
    # nothing is fetched from elsewhere
    for tag, a in page.tags:
        assert tag not in ("script", "link", "img", "iframe")
        for k, v in a.items():
            if k in ("src", "href") or k.endswith(":href"):
                assert v is None or v.startswith("#"), (tag, k, v)
    import re
    assert "@import" not in html and set(re.findall(r"url\((.)", html)) <= {"#"}     # own clip paths only
    assert {m for m in re.findall(r'([\w:-]+)="https?://', html)} <= {"xmlns", "xmlns:xlink"}
    # --png wrote the same figures as PNG files
    for name in ("winrates", "scores", "length"):
        assert (d / f"report-{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert str(out) in text


def coop_records(d):
    p = d / "coop.csv"
    if not p.exists():
        with RecordWriter(p) as rec:
            analysis.run_study(COOP, games=20, players=2, workers=1, records=rec)
    return p


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium (Debian: apt-get install chromium; .ci/run does)")
def test_report_renders_in_a_headless_browser(two_configs, tmp_path):
    d, paths = two_configs
    out = tmp_path / "report.html"
    analysis.write_report([r for p in paths for r in read_records(p)], out)
    shot = tmp_path / "shot.png"
    r = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        f"--screenshot={shot}", "--window-size=1100,6000", out.as_uri()],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and shot.is_file(), r.stderr
    from matplotlib.image import imread
    img = imread(str(shot))
    assert img.shape[0] >= 1000 and img.shape[1] >= 1000
    # not blank: the plots are drawn below the words (the win-rate bars are blue #4c72b0)
    rgb = img[:, :, :3]
    blue = ((abs(rgb[:, :, 0] - 0x4c / 255) < 0.06) & (abs(rgb[:, :, 1] - 0x72 / 255) < 0.06)
            & (abs(rgb[:, :, 2] - 0xb0 / 255) < 0.06))
    assert blue.sum() > 2000


def test_report_of_no_records_is_a_clear_error(tmp_path, capsys):
    empty = tmp_path / "e.jsonl"
    empty.write_text("")
    code, _, err = run(capsys, "report", empty, "-o", tmp_path / "r.html")
    assert code == 1 and "no records" in err


# ------------------------------------------------------------------------------ progress

class _Tty(io.StringIO):
    def isatty(self):
        return True


def test_progress_bar_only_on_a_terminal():
    quiet = io.StringIO()
    bar = analysis.ProgressBar(quiet, 10)
    bar(5, 10)
    bar.close()
    assert quiet.getvalue() == ""
    tty = _Tty()
    with analysis.ProgressBar(tty, 20, enabled=False) as bar:
        bar(5, 20)
    assert tty.getvalue() == ""
    bar = analysis.ProgressBar(tty, 20, delay=0, interval=0)
    bar(5, 10)
    bar.next_config(10)     # a sweep: the second configuration counts on
    bar(5, 10)
    assert bar.bar.n == 15
    bar.close()
    assert "15/20" in tty.getvalue()


def test_simulate_json_never_shows_progress(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stderr", _Tty())
    code = main(["simulate", BACCHUS, "--games", "30", "--workers", "1", "--json"])
    assert code == 0 and sys.stderr.getvalue() == ""


# ------------------------------------------------------------------------------ lazy imports

def test_validate_imports_no_analysis_plotting_ray_or_tqdm():
    code = ("import sys; from gamespec.cli import main; main(['validate', sys.argv[1]]);"
            "heavy = [m for m in ('gamespec.analysis', 'matplotlib', 'ray', 'tqdm', 'rich') if m in sys.modules];"
            "print(heavy)")
    r = subprocess.run([sys.executable, "-c", code, BACCHUS], capture_output=True, text=True, timeout=120,
                       cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().splitlines()[-1] == "[]"


def _stderr_on_a_terminal(argv, cols=100, wait=120):
    """Run `gamespec ARGV` with stderr on a pseudo-terminal (`cols` columns); returns what it wrote there."""
    import fcntl
    import pty
    import struct
    import termios
    m, s = pty.openpty()
    fcntl.ioctl(s, termios.TIOCSWINSZ, struct.pack("HHHH", 30, cols, 0, 0))
    p = subprocess.Popen([sys.executable, "-m", "gamespec", *argv], stdout=subprocess.DEVNULL, stderr=s,
                         cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    os.close(s)
    buf = b""
    while True:
        try:
            chunk = os.read(m, 4096)
        except OSError:
            break
        if not chunk:
            break
        buf += chunk
    p.wait(wait)
    os.close(m)
    return p.returncode, buf.decode("utf-8", "replace")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pseudo-terminal test")
def test_progress_bar_on_a_real_terminal_and_not_with_json():
    # enough games to outlast the bar's half-second delay on a fast machine (~2000 games/s on the
    # Python engine; the native engine's ~50000 games/s would finish before it shows)
    code, err = _stderr_on_a_terminal(["simulate", BACCHUS, "--games", "3000", "--workers", "1", "--engine", "python"])
    assert code == 0 and "games:" in err and "/3000" in err and "game/s" in err
    code, err = _stderr_on_a_terminal(["simulate", BACCHUS, "--games", "400", "--workers", "1", "--json"])
    assert code == 0 and err == ""


@pytest.mark.parametrize("content, message", [
    ("[" * 100_000 + "\n", "nested too deeply"),
    ('{"seed": 1, "players": 2, "options": {"x": [1]}, "scores": [1, 2], "winners": [0]}\n', "plain values"),
    ('{"seed": 1, "players": 2, "bots": [3], "scores": [1, 2], "winners": [0]}\n', "'bots'"),
    ("x" * (1 << 20) + "\n", "line too long"),
])
def test_hostile_records_are_refused_cleanly(tmp_path, capsys, content, message):
    path = tmp_path / "h.jsonl"
    path.write_text(content)
    with pytest.raises(RecordsError, match=message):
        read_records(path)
    other = tmp_path / "ok.jsonl"
    other.write_text(json.dumps(_rows(0.5, 1, 0)[0]) + "\n")
    code, _, err = run(capsys, "compare", other, path)
    assert code == 1 and "h.jsonl:1:" in err and "Traceback" not in err


def test_the_ray_backend_without_ray_says_how_to_install_it(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)           # import fails
    code, _, err = run(capsys, "simulate", COOP, "--games", 2, "--backend", "ray")
    assert code == 2 and "pip install 'gamespec[ray]'" in err and "Traceback" not in err


def test_report_json_lists_the_files_and_the_summary(two_configs, capsys):
    d, paths = two_configs
    code, out, _ = run(capsys, "report", paths[0], "-o", d / "one.html", "--json")
    r = json.loads(out)
    assert code == 0 and r["files"] == [str(d / "one.html")]
    assert r["summary"] == stats.summarize(read_records(paths[0]))
