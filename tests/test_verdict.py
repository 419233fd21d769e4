"""Issue 41: the study's verdict first, restricted play ranked in one table, a seat test that a
dominant bot makes blind, a seat advantage found by restricted play named (gamespec/analysis/findings.py
verdict, pooled_seats, seat_test_blind; text.py verdict_lines, ranking_lines; cli cmd_simulate)."""
from __future__ import annotations

import os
import re

from gamespec.analysis import finding_items, study_verdict
from gamespec.analysis.findings import pooled_seats, restriction_ranking, seat_sentence, seat_words
from gamespec.analysis.stats import wilson

HERE = os.path.dirname(__file__)
NO_THANKS = os.path.join(os.path.dirname(HERE), "games", "no_thanks.yaml")


def _seats(wins, n):
    return [{"seat": p, "wins": w, "win_rate": w / n, "ci95": list(wilson(w, n)),
             "score": {"mean": 0, "ci95": [0, 0]}} for p, w in enumerate(wins)]


def _summary(wins, n, restriction=None, kinds=(), rotated=True, players=2):
    lineup = [restriction or "random"] + ["random"] * (players - 1)
    return {"config": f"g, {players} players, bots {','.join(lineup)}", "game": "g", "players": players,
            "options": {}, "bots": lineup, "lineup": lineup, "rotated": rotated, "rotations": players,
            "cooperative": False, "games": n, "games_finished": n, "errors": [], "seats": _seats(wins, n),
            "fair_share": 1 / players, "teams": None, "kinds": list(kinds), "restriction": restriction,
            "seat_advantage": _adv(wins), "metrics": None, "length": {}}


def _adv(wins):
    from gamespec.analysis.stats import chi_square_equal
    st, df, p = chi_square_equal(wins)
    return {"statistic": st, "df": df, "p": p, "over": "seats", "fractional_wins": False}


def _kind(kind, seats, wins, n):
    m = n * seats
    return {"kind": kind, "seats": seats, "seat_games": m, "wins": wins, "win_rate": wins / m,
            "ci95": list(wilson(wins, m))}


def _restricted(kind, rate, seat_wins, n=1000):
    s = _summary(seat_wins, n, restriction=kind,
                 kinds=[_kind(kind, 1, rate * n, n), _kind("random", 1, (1 - rate) * n, n)])
    lo, hi = wilson(rate * n, n)
    s["restriction_cost"] = {"fair": 0.5, "win_rate": rate, "ci95": [lo, hi], "cost": 0.5 - rate,
                             "cost_ci95": [0.5 - hi, 0.5 - lo]}
    return s


def test_a_dominant_bot_makes_the_seat_test_not_informative_and_says_why():
    # one kind wins 98% of its seats: the seats look equal only because the rotation moves it round
    s = _summary([500, 500], 1000, kinds=[_kind("ismcts:500", 1, 980, 1000), _kind("random", 1, 20, 1000)])
    words = seat_words(s)
    assert "not informative" in words and "ismcts:500 wins 98" in words and "20 games" in words
    assert "no evidence that seats differ" not in seat_sentence(s)
    from gamespec.analysis.findings import _first_seat
    s3 = _summary([330, 330, 340], 1000, players=3,
                  kinds=[_kind("greedy", 1, 980, 1000), _kind("random", 2, 20, 1000)])
    s3["metrics"] = {"first_seat": {"win_rate": 0.33, "ci95": list(wilson(330, 1000)), "fair": 1 / 3, "p": 0.8}}
    assert "not informative here" in _first_seat(s3) and "no evidence" not in _first_seat(s3)
    # a close contest: the test speaks
    s2 = _summary([500, 500], 1000, kinds=[_kind("ismcts:500", 1, 600, 1000), _kind("random", 1, 400, 1000)])
    assert seat_words(s2) == "no evidence that seats differ"


def test_a_seat_advantage_found_by_restricted_play_is_in_the_findings_and_the_verdict():
    # every restriction's rotated study leans to seat 0 a little: pooled, the edge is clear
    group = [_restricted(k, r, [530, 470]) for k, r in (("avoid:a", 0.3), ("always:a", 0.6), ("first", 0.5))]
    pooled = pooled_seats(group)
    assert pooled["differ"] and pooled["games"] == 3000
    items = finding_items(group)
    seat = [it for it in items if it["kind"] == "seat"]
    assert seat and "seat 0 wins 53" in seat[0]["text"] and "seats differ" in seat[0]["text"]
    v = study_verdict(group)
    assert v.startswith("verdict: not fair: seat 0 wins 53")
    assert "choices matter" in v
    # a blind study (a 98% restriction) is left out of the pool
    assert pooled_seats([_restricted("greedy", 0.98, [530, 470])]) is None


def test_the_ranking_puts_the_most_dominant_restriction_first():
    group = [_restricted(k, r, [500, 500]) for k, r in (("avoid:a", 0.3), ("always:a", 0.7), ("first", 0.5))]
    rows = restriction_ranking(group)
    assert [r["restriction"] for r in rows] == ["always:a", "first", "avoid:a"]
    assert rows[0]["verdict"] == "a is dominant" and rows[2]["verdict"] == "a is dominant"
    assert rows[1]["verdict"] == "no evidence it matters"


def test_simulate_opens_with_the_verdict_and_ends_with_the_ranking(capsys):
    from gamespec.cli import main
    assert main(["simulate", NO_THANKS, "-p", "3", "-n", "30", "--workers", "1", "--seed", "1", "--no-progress",
                 "--restrict", "avoid:take,always:take,first"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("verdict: ") and "decided" in out[0] and "choices matter" in out[0]
    start = next(i for i, line in enumerate(out) if line.startswith("restricted play, most dominant first"))
    table = out[start + 2:]
    assert len(table) == 3 and out[-1] == table[-1]
    rates = [float(re.split(r"\s+", line.strip())[1].rstrip("%")) for line in table]
    assert rates == sorted(rates, reverse=True)
    assert {line.split()[0] for line in table} == {"avoid:take", "always:take", "first"}
    # a plain study: the verdict first, and no ranking
    assert main(["simulate", NO_THANKS, "-p", "3", "-n", "20", "--workers", "1", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("verdict: ") and "skill not measured" in out.splitlines()[0]
    assert "restricted play" not in out


def test_a_first_seat_edge_the_test_of_all_seats_misses_is_in_the_verdict():
    s = _summary([51, 78, 71], 200, rotated=False, players=3)
    s["lineup"] = s["bots"] = ["random"] * 3
    s["metrics"] = {"first_seat": {"win_rate": 51 / 200, "ci95": list(wilson(51, 200)), "fair": 1 / 3, "p": 0.019}}
    assert s["seat_advantage"]["p"] > 0.05
    v = study_verdict([s])
    assert v.startswith("verdict: not quite fair: no evidence that seats differ overall")
    assert "seat 0 wins 26% [20, 32] against 33% (p = 0.019)" in v


def test_the_report_opens_with_the_verdict(tmp_path):
    from gamespec.analysis import RecordWriter, build_report, read_records, run_study
    rec = tmp_path / "s.jsonl"
    with RecordWriter(str(rec)) as w:
        run_study(NO_THANKS, games=20, players=3, workers=1, records=w, engine="python")
    html, _ = build_report(read_records(str(rec)))
    body = html[html.index("<body>"):]
    assert "<p class='verdict'><b>verdict: " in body
    assert body.index("class='verdict'") < body.index("<h2>Findings</h2>")


def test_the_bot_strength_chart_cuts_no_label():
    # issue 41 (left for later): long kind and configuration names fit in the figure
    pytest = __import__("pytest")
    pytest.importorskip("matplotlib")
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from gamespec.analysis.report import _plain_text, plot_strength
    long = "ismcts:2000/avoid:play_the_longest_named_action_of_all/always:another_long_action_name"
    s = _summary([500, 500], 1000, kinds=[_kind(long, 1, 600, 1000), _kind("random", 1, 400, 1000)])
    s["config"] = "Some Game With A Long Name, 2 players, option_one=true, option_two=false, bots " + long
    s["_key"] = ("Some Game With A Long Name", 2, (("option_one", True), ("option_two", False)), (long, "random"))
    with _plain_text():
        fig = plot_strength([s])
        canvas = FigureCanvasAgg(fig)
        canvas.draw()
        r = canvas.get_renderer()
        W, H = canvas.get_width_height()
        for t in fig.axes[0].get_yticklabels():
            b = t.get_window_extent(r)
            assert b.x0 >= -1 and b.x1 <= W + 1 and b.y0 >= -1 and b.y1 <= H + 1, (t.get_text(), b, W, H)


def test_a_few_games_do_not_make_a_game_fair():
    """No evidence that seats differ from 20 games is no evidence at all: the verdict says fairness is
    not settled and how wide a win rate's interval is; from enough games it says fair."""
    few = study_verdict([_summary([11, 9], 20, rotated=False)])
    assert "fairness not settled: no evidence that seats differ" in few and "±20 points" in few, few
    assert not re.search(r"(^|: )fair:", few), few
    many = study_verdict([_summary([510, 490], 1000, rotated=False)])
    assert "fair: no evidence that seats differ" in many and "not settled" not in many, many


def test_bots_that_differ_but_keep_their_seats_are_not_called_alike():
    """Mixed bots without --rotate: the verdict said "every seat plays alike"; it says the seats' bots
    differ and skill is not told apart from the seat, and points to --rotate."""
    s = _summary([600, 400], 1000, rotated=False)
    s["lineup"] = s["bots"] = ["greedy", "random"]
    out = study_verdict([s])
    assert "every seat plays alike" not in out and "bots differ but each keeps its seat" in out and "--rotate" in out
    alike = _summary([600, 400], 1000, rotated=False)
    assert "every seat plays alike" in study_verdict([alike])
