"""The report and the comparison in words (issue 30): the findings at the top of the page and per
configuration, before any plot; the plots of bot strength, restriction costs and the per-game metrics
when the records have them, each with its interval; strangers' text escaped; `compare` with the
metrics, Holm-adjusted with the rest, two versions of a spec paired and what changed said in words."""
from __future__ import annotations

import html
import json
import re

import pytest

from gamespec.analysis import comparison, stats, text
from gamespec.analysis.findings import findings
from gamespec.cli import main
from test_findings import ci_text, games, rotated
from test_hostile import _MEASURED, guarded

pytest.importorskip("matplotlib")


def page_of(recs):
    from gamespec.analysis.report import build
    page, _ = build(recs)
    return page


def write(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def figures(page):
    return re.findall(r"<figure id='(\w+)'>", page)


def study_findings(page):
    a = page.index("<section class='findings'>")
    return page[a:page.index("</section>", a)]


# ------------------------------------------------------------------------------ the report

def test_the_report_says_it_in_words_before_the_first_plot():
    recs = games(252, 400) + games(204, 400, bots=("ismcts:200", "ismcts:200"))
    page = page_of(recs)
    top = study_findings(page)
    sentence = (f"seat 0 wins {ci_text(252, 400)} with random seats and {ci_text(204, 400)} with ismcts:200 seats "
                "(fair share 50%): the advantage is mostly random play")
    assert html.escape(sentence) in top
    first_plot = page.index("<figure")
    assert page.index("<section class='findings'>") < page.index("<h2>Summary</h2>") < first_plot
    # and per configuration, at the head of its section
    sections = page.split("<section class='config'>")[1:]
    assert len(sections) == 2
    for sec in sections:
        assert sec.index("<ul class='findings'>") < sec.index("<table>")
        assert "chi-square test of equal shares (df 1)" in sec
    assert figures(page) == ["winrates", "scores", "length"]      # nothing traced, not rotated


def test_a_rotated_study_plots_bot_strength_with_its_intervals():
    recs = rotated(["ismcts:200", "random", "random", "random"], kind_wins=490, n=200, trace=True)
    page = page_of(recs)
    assert figures(page) == ["winrates", "strength", "scores", "length", "lead_changes", "decided_at"]
    cap = page[page.index("<figure id='strength'>"):]
    cap = cap[cap.index("<figcaption>"):cap.index("</figcaption>")]
    assert f"ismcts:200 (4 players, bots=ismcts:200,random,random,random) {ci_text(490, 800)}" in cap
    assert "<table class='kinds'>" in page and "data-kind='ismcts:200'" in page
    assert "of its seats" in study_findings(page)


def test_restricted_play_plots_the_costs_with_intervals():
    R = "random"
    recs = rotated(["avoid:pass", R, R, R], 40, 100, restriction="avoid:pass") + \
        rotated(["avoid:draw", R, R, R], 98, 100, restriction="avoid:draw")
    page = page_of(recs)
    assert "restrictions" in figures(page) and "strength" not in figures(page)
    top = study_findings(page)
    assert "pass is a dominant action" in top and "no evidence that these restrictions matter" in top
    lo, hi = stats.wilson(40, 400)
    assert f"avoid:pass (4 players, bots=avoid:pass,random,random,random) 15 points [{100 * (0.25 - hi):.0f}, " \
           f"{100 * (0.25 - lo):.0f}]" in page
    assert "<p class='restriction'>Restriction avoid:pass: the restricted seat wins" in page


def test_metric_plots_only_when_recorded_and_the_not_recorded_sentence():
    page = page_of(games(200, 400))
    assert "lead_changes" not in figures(page)
    assert "were not recorded for the study" in study_findings(page) and "--no-trace" in study_findings(page)
    traced = page_of(games(200, 400, trace=True))
    assert figures(traced)[-2:] == ["lead_changes", "decided_at"]
    lc = stats.summarize(games(200, 400, trace=True))[0]["metrics"]["lead_changes"]
    assert f"{lc['mean']:.2f} [{lc['ci95'][0]:.2f}, {lc['ci95'][1]:.2f}]" in traced      # in the caption


TEX, SCRIPT = r"$\frac{$", "<script>alert(1)</script>"


def test_strangers_text_is_escaped_in_the_findings(tmp_path, capsys):
    recs = games(300, 400, game=SCRIPT, bots=(TEX, SCRIPT), options={"o": SCRIPT}, trace=True)
    for r in recs:
        r["actions"] = {SCRIPT: 3, TEX: 0, "a": 1}
    path = write(tmp_path / "s.jsonl", recs)
    code = main(["report", str(path), "-o", str(tmp_path / "s.html")])
    capsys.readouterr()
    assert code == 0
    page = (tmp_path / "s.html").read_text()
    assert "<script" not in page                       # every name escaped, in the findings too
    top = study_findings(page)
    assert html.escape(f"seat 0 {TEX}, seat 1 {SCRIPT}") in top          # the mixed line-up warning
    assert html.escape(f"never played in 400 games: {TEX}") in top
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in top


def test_a_report_of_3000_configurations_with_findings_is_bounded(tmp_path):
    recs = [r for k in range(3000) for r in games(2, 2, options={"k": k}, trace=k % 2 == 0)]
    path = write(tmp_path / "many.jsonl", recs)

    def report(p, out):
        from gamespec.analysis.report import report_files
        report_files([p], out)
        return open(out, encoding="utf-8").read()
    page = guarded("report_words/3000_configurations", report, str(path), str(tmp_path / "many.html"), seconds=60)
    top = study_findings(page)
    assert "2980 more configurations are not described one by one here" in top
    assert top.count("<li class='finding'") < 200
    assert "not recorded for 1500 configurations" in top
    _MEASURED.pop("report_words/3000_configurations", None)


# ------------------------------------------------------------------------------ compare

def test_compare_flags_a_changed_lead_change_mean_and_says_it_in_words():
    a = games(200, 400, trace=True, sha="a" * 64)
    b = games(200, 400, trace=True, sha="b" * 64)
    for r in b:
        r["lead_changes"] += 2                               # the new version: more lead changes
    r = comparison.compare(a, b)
    f = next(x for x in r["figures"] if x["figure"] == "lead changes per game")
    assert f["differs"] and f["diff"] == pytest.approx(2.0) and f["p_holm"] < 1e-6
    assert "G: 2 players: lead changes per game" in r["differ"]
    # Holm-adjusted with the rest: the family is every figure with a p-value
    m = sum(1 for x in r["figures"] if x["p"] is not None)
    assert f"over all {m} figures" in r["note"]
    names = [x["figure"] for x in r["figures"]]
    assert {"decided at", "winner deficit", "share of decisions: draw", "share of decisions: pass"} <= set(names)
    assert "draw rate" not in names and "unfinished rate" not in names       # no such games: not compared
    assert r["changes"][0] == ("A and B are different versions of the spec (SHA-256 aaaaaaaaaaaa and "
                               "bbbbbbbbbbbb), paired by configuration: G: 2 players")
    said = next(x for x in r["changes"] if x.startswith("lead changes per game: "))
    da, db = stats.describe([x["lead_changes"] for x in a]), stats.describe([x["lead_changes"] for x in b])
    assert said.startswith(f"lead changes per game: {da['mean']:.2f} [{da['ci95'][0]:.2f}, {da['ci95'][1]:.2f}] "
                           f"in A, {db['mean']:.2f} [{db['ci95'][0]:.2f}, {db['ci95'][1]:.2f}] in B, up 2")
    lines = list(text.comparison_lines({"a": "A", "b": "B", **r}))
    assert "what changed beyond noise, in words:" in lines and f"  - {said}" in lines
    assert lines[-2:] == ["beyond noise: lead changes per game", "note: " + r["note"]]


def test_compare_of_the_same_figures_says_nothing_changed():
    r = comparison.compare(games(200, 400, trace=True), games(200, 400, trace=True))
    assert r["differ"] == [] and r["changes"] == [
        f"nothing changed beyond noise: no figure's Holm-adjusted p is below 0.05 "
        f"({sum(1 for f in r['figures'] if f['p'] is not None)} figures compared)"]


def test_compare_rates_draws_and_unfinished_games_when_there_are_some():
    a = games(200, 400)
    b = games(200, 400)
    for r in b[:80]:
        r["winners"] = []                                   # no winner: a draw
    b += [{"game": "G", "seed": 1000 + i, "players": 2, "options": {}, "bots": ["random"] * 2, "error": "x",
           "reason": "timeout"} for i in range(60)]
    r = comparison.compare(a, b)
    by = {f["figure"]: f for f in r["figures"]}
    assert by["draw rate"]["differs"] and by["draw rate"]["b"] == pytest.approx(0.2)
    assert by["unfinished rate"]["differs"] and by["unfinished rate"]["b"] == pytest.approx(60 / 460)
    assert any(x.startswith("unfinished rate: 0.0% [0.0, 1.0] in A, 13% [10, 16] in B, up 13 points") for x in r["changes"])
    assert "lead changes per game" not in by                # not traced


def test_compare_config_picks_with_metrics(tmp_path, capsys):
    a = write(tmp_path / "a.jsonl", games(200, 400, trace=True) + games(100, 200, bots=("random",) * 3, trace=True))
    b = write(tmp_path / "b.jsonl", [dict(x, lead_changes=x["lead_changes"] + 1)
                                     for x in games(200, 400, trace=True) + games(100, 200, bots=("random",) * 3,
                                                                                  trace=True)])
    code = main(["compare", str(a), str(b), "--config", "players=3", "--json"])
    out, _ = capsys.readouterr()
    r = json.loads(out)
    assert code == 0 and r["pairs"] == [["G: 3 players", "G: 3 players"]]
    assert r["differ"] == ["G: 3 players: lead changes per game"]
    code = main(["compare", str(a), str(b)])
    out, _ = capsys.readouterr()
    assert code == 0 and "G: 2 players: lead changes per game: " in out and "G: 3 players: lead changes" in out


def test_findings_are_one_list_for_the_command_line_too():
    recs = games(252, 400) + games(204, 400, bots=("ismcts:200", "ismcts:200"))
    said = findings(stats.summarize(recs))
    assert said[1].startswith("G: 2 players: seat 0 wins 63% [58, 68] with random seats")
