"""Reports and comparisons of records from anyone (issue 27): the seat test named with its verdict in
words, text plotted as text, records validated on read (`FILE:LINE: message`), the work of a report
bounded whatever the number of configurations, and `compare --config` to pick configurations."""
from __future__ import annotations

import json
import random
import re

import pytest

from gamespec.analysis import stats
from gamespec.analysis.records import RecordsError, read_records
from gamespec.cli import main
from test_hostile import _MEASURED, guarded


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def rows(rate0=0.5, n=200, seed=1, game="G", players=2, options=None, bots=None):
    """n two-seat games in which seat 0 wins with probability rate0."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        w = 0 if rng.random() < rate0 else 1
        out.append({"game": game, "seed": i, "players": players, "options": dict(options or {}),
                    "bots": list(bots or ["random"] * players),
                    "scores": [10 + (w == p) for p in range(players)], "winners": [w], "decisions": 5 + i % 3,
                    "turns": 2})
    return out


def write(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


# ------------------------------------------------------------------------------ 3. the seat test in words

def test_report_names_the_seat_test_and_says_its_verdict(tmp_path, capsys):
    uneven = write(tmp_path / "uneven.jsonl", rows(0.8, 400))
    code, _, err = run(capsys, "report", uneven, "-o", tmp_path / "u.html")
    assert code == 0, err
    page = (tmp_path / "u.html").read_text()
    assert "No seat advantage (" not in page        # it said so even at p = 8.8e-08
    s = stats.summarize(read_records(uneven))[0]
    assert s["seat_advantage"]["p"] < 1e-6
    assert re.search(r"Seat advantage \(chi-square test of equal shares, df 1\): statistic [\d.]+, "
                     r"p = [\d.e+-]+: seats differ at the 5% level", page), page[:3000]
    even = write(tmp_path / "even.jsonl", rows(0.5, 400, seed=3))
    assert stats.summarize(read_records(even))[0]["seat_advantage"]["p"] > 0.05
    code, _, err = run(capsys, "report", even, "-o", tmp_path / "e.html")
    assert code == 0 and "no evidence that seats differ" in (tmp_path / "e.html").read_text()


def test_the_verdict_is_the_same_words_in_simulate_and_report():
    adv = {"statistic": 30.0, "df": 2, "p": 3e-7, "fractional_wins": False}
    assert stats.seat_verdict(adv) == "seats differ at the 5% level"
    assert stats.seat_verdict({**adv, "p": 0.2}) == "no evidence that seats differ"


# ------------------------------------------------------------------------------ 4. text as text

TEX = r"$\frac{$"


def test_tex_like_names_options_and_bots_are_plotted_as_plain_text(tmp_path, capsys):
    recs = rows(0.5, 40, game=TEX, options={"o": TEX, "n": 2}, bots=[TEX, "x$y$z"])
    path = write(tmp_path / "tex.jsonl", recs)
    code, out, err = run(capsys, "report", path, "-o", tmp_path / "tex.html", "--png")
    assert code == 0 and "Traceback" not in err, err
    page = (tmp_path / "tex.html").read_text()
    # the label is in the SVG as the very characters (HTML-escaped), not typeset
    assert "o=$\\frac{$" in page and "bots=$\\frac{$,x$y$z" in page
    assert (tmp_path / "tex-winrates.png").read_bytes()[:4] == b"\x89PNG"


# ------------------------------------------------------------------------------ 4. numbers from strangers

BAD_NUMBERS = {
    "nan_score": ('"scores": [NaN, 1]', "not JSON"),
    "infinity_score": ('"scores": [Infinity, 1]', "not JSON"),
    "minus_infinity_score": ('"scores": [-Infinity, 1]', "not JSON"),
    "1e308_score": ('"scores": [1e308, 1]', "'scores' is not a list of 2 numbers"),
    "10_to_the_400_score": ('"scores": [1' + "0" * 400 + ', 1]', "'scores' is not a list of 2 numbers"),
    "1e308_decisions": ('"scores": [1, 2], "decisions": 1e308', "'decisions' is not a whole number"),
    "huge_decisions": ('"scores": [1, 2], "decisions": 1' + "0" * 400, "'decisions' is not a whole number"),
    "negative_turns": ('"scores": [1, 2], "turns": -3', "'turns' is not a whole number"),
    "nan_seconds": ('"scores": [1, 2], "seconds": NaN', "not JSON"),
    "huge_seconds": ('"scores": [1, 2], "seconds": 1e308', "'seconds'"),
    "huge_seed": ('"scores": [1, 2], "seed": 1' + "0" * 400, "'seed'"),
    "option_nan": ('"scores": [1, 2], "options": {"x": NaN}', "not JSON"),
    "option_1e308": ('"scores": [1, 2], "options": {"x": 1e308}', "plain values"),
    "winner_twice": ('"scores": [1, 2], "winners": [0, 0]', "'winners'"),
    "long_bot_name": ('"scores": [1, 2], "bots": ["' + "b" * 5000 + '", "random"]', "'bots'"),
}


def _bad_line(body):
    """A record line: game G, seed 1, 2 players, seat 0 wins, with `body`'s fields added or replaced."""
    base = {"seed": "1", "winners": "[0]"}
    head = "".join(f'"{k}": {v}, ' for k, v in base.items() if f'"{k}"' not in body)
    return '{"game": "G", "players": 2, ' + head + body + "}"


@pytest.mark.parametrize("case", sorted(BAD_NUMBERS))
def test_records_with_bad_numbers_are_refused_on_read(case, tmp_path, capsys):
    body, message = BAD_NUMBERS[case]
    good = rows(0.5, 3)
    path = tmp_path / "bad.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in good) + _bad_line(body) + "\n")
    with pytest.raises(RecordsError, match=rf"bad\.jsonl:4: .*{re.escape(message)}"):
        read_records(path)
    other = write(tmp_path / "ok.jsonl", rows(0.5, 3))
    for argv in (["report", path, "-o", tmp_path / "r.html"], ["compare", other, path], ["compare", path, other]):
        code, out, err = run(capsys, *argv)
        assert code == 1 and "bad.jsonl:4: error:" not in err and "bad.jsonl:4: " in err, (argv, err)
        assert "Traceback" not in err and "internal error" not in err, err


@pytest.mark.parametrize("cell, message", [
    ("nan", "'scores'"), ("inf", "'scores'"), ("-inf", "'scores'"), ("1e308", "'scores'"),
    ("1" + "0" * 400, "'scores'"),
])
def test_csv_records_with_bad_numbers_are_refused_on_read(cell, message, tmp_path, capsys):
    path = tmp_path / "bad.csv"
    path.write_text("game,seed,players,options,bots,scores,winners,decisions,turns\n"
                    "G,1,2,,random;random,3;4,1,5,2\n"
                    f"G,2,2,,random;random,{cell};4,1,5,2\n")
    with pytest.raises(RecordsError, match=rf"bad\.csv:3: .*{message}"):
        read_records(path)
    code, _, err = run(capsys, "report", path, "-o", tmp_path / "r.html")
    assert code == 1 and "bad.csv:3: " in err and "Traceback" not in err, err


def test_extreme_but_valid_numbers_are_reported(tmp_path, capsys):
    """Scores at the engine's bounds (2**63 - 1) and floats are numbers the report must handle."""
    recs = rows(0.5, 30)
    for i, r in enumerate(recs):
        r["scores"] = [(1 << 63) - 1 - i, -(1 << 63) + 1 + i] if i % 2 else [0.5, -0.25]
    path = write(tmp_path / "wide.jsonl", recs)
    code, _, err = run(capsys, "report", path, "-o", tmp_path / "w.html")
    assert code == 0 and "Traceback" not in err, err
    code, out, err = run(capsys, "compare", path, path)
    assert code == 0 and "Traceback" not in err, err


# ------------------------------------------------------------------------------ 4. bounded work

def _report(path, out):
    from gamespec.analysis.report import report_files
    report_files([path], out)
    return open(out, encoding="utf-8").read()


def test_a_report_of_3000_configurations_is_bounded(tmp_path):
    recs = [r for k in range(3000) for r in rows(0.5, 2, seed=k, options={"k": k})]
    path = write(tmp_path / "many.jsonl", recs)
    # CPU time, not wall time: it was busy for more than 30 s; a bounded report takes a few
    page = guarded("report/3000_configurations", _report, str(path), str(tmp_path / "many.html"), seconds=60)
    from gamespec.analysis.report import MAX_DETAILED, MAX_PLOTTED
    assert f"3000 configurations: the plots show the first {MAX_PLOTTED}" in page
    assert page.count("<section class='config'>") == MAX_DETAILED
    assert f"the other {3000 - MAX_DETAILED} configurations have one row each" in page
    assert page.count("<tr class='overview'>") == 3000 - MAX_DETAILED
    scores = page[page.index("<figure id='scores'>"):page.index("</figure>", page.index("<figure id='scores'>"))]
    assert scores.count("G: 2 players, k=") == MAX_PLOTTED      # one panel per plotted configuration
    assert "G: 2 players, k=2999" in page                     # every configuration is in a table
    _MEASURED.pop("report/3000_configurations", None)


# ------------------------------------------------------------------------------ 5. compare --config

@pytest.fixture
def grids(tmp_path):
    """A: players 2 and 3 with x=1; B: players 2 and 3 with x=2: no configuration in common."""
    a = write(tmp_path / "a.jsonl", rows(0.5, 100, 1, options={"x": 1}) + rows(0.5, 50, 2, players=3, options={"x": 1}))
    b = write(tmp_path / "b.jsonl", rows(0.8, 100, 3, options={"x": 2}) + rows(0.5, 50, 4, players=3, options={"x": 2}))
    return a, b


def test_compare_of_configurations_that_do_not_line_up_lists_them_and_says_how_to_pick(grids, capsys):
    a, b = grids
    code, _, err = run(capsys, "compare", a, b)
    assert code == 1 and "Traceback" not in err
    assert "G: 2 players, x=1 (100 games)" in err and "G: 3 players, x=2 (50 games)" in err, err
    assert "--config KEY=VALUE" in err and "--config-a" in err


def test_compare_config_picks_the_configuration_of_each_file(grids, capsys):
    a, b = grids
    code, out, err = run(capsys, "compare", a, b, "--config", "players=2", "--json")
    assert code == 0, err
    r = json.loads(out)
    assert r["pairs"] == [["G: 2 players, x=1", "G: 2 players, x=2"]]
    assert {f["n_a"] for f in r["figures"]} == {100} and "G: 2 players: x=1 vs x=2: seat 0 win rate" in r["differ"]
    code, out, err = run(capsys, "compare", a, b, "--config", "players=3")
    assert code == 0 and "x=1 vs x=2" in out and "(games: A 50, B 50)" in out, err


def test_compare_config_a_and_b_pick_different_configurations(grids, capsys):
    a, b = grids
    code, out, err = run(capsys, "compare", a, a, "--config-a", "players=2", "--config-b", "players=3", "--json")
    assert code == 0, err
    assert json.loads(out)["pairs"] == [["G: 2 players, x=1", "G: 3 players, x=1"]]


def test_compare_config_errors_name_what_there_is(grids, capsys):
    a, b = grids
    code, _, err = run(capsys, "compare", a, b, "--config", "players=5")
    assert code == 1 and "no configuration of A" in err and "players=5" in err and "G: 2 players, x=1" in err, err
    code, _, err = run(capsys, "compare", a, b, "--config", "y=1")
    assert code == 1 and "no configuration has 'y'" in err and "game, players, bots, x" in err, err
    code, _, err = run(capsys, "compare", a, b, "--config", "players")
    assert code == 2 and "KEY=VALUE" in err, err


def test_compare_config_accepts_bots_and_game(tmp_path, capsys):
    a = write(tmp_path / "a.jsonl", rows(0.5, 60, 1) + rows(0.5, 60, 2, bots=["greedy", "random"]))
    code, out, err = run(capsys, "compare", a, a, "--config-a", "bots=random,random", "--config-b",
                         "bots=greedy,random", "--config", "game=G", "--json")
    assert code == 0, err
    assert json.loads(out)["pairs"] == [["G: 2 players", "G: 2 players, bots=greedy,random"]]


def test_a_game_log_given_as_records_is_named_for_what_it_is(tmp_path, capsys):
    """report/compare given a game log (run --log) or a saved state say what the file is and what
    writes records, instead of a field error ('scores' is not a list...)."""
    import os
    log = tmp_path / "k.jsonl"
    spec = os.path.join(os.path.dirname(os.path.dirname(__file__)), "games", "klink.yaml")
    assert main(["run", spec, "--players", "3", "--seed", "1", "--log", str(log)]) == 0
    capsys.readouterr()
    with pytest.raises(RecordsError, match=r"k\.jsonl:1: this is a game log \(gamespec run --log\), not a records"):
        read_records(str(log))
    assert main(["report", str(log), "-o", str(tmp_path / "r.html")]) == 1
    err = capsys.readouterr().err
    assert "simulate --records" in err and "Traceback" not in err
