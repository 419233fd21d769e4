"""The functions behind the `gamespec` commands, called directly (the commands themselves are
tested through `main` in tests/test_cli.py and others): each takes plain values and returns results."""
from __future__ import annotations

import json
import os
import shutil

import pytest

from gamespec.cli import build_parser, main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BACCHUS = os.path.join(ROOT, "games", "bacchus.yaml")
KLINK = os.path.join(ROOT, "games", "klink.yaml")
TINY = os.path.join(ROOT, "tests", "specs", "tiny.yaml")


# ------------------------------------------------------------------------------ argument types
def test_timeouts_and_serve_delays_have_their_own_ranges(capsys):
    """--timeout is any number of seconds > 0 (up to 10**9); serve's --watch/--bot-delay are 0 to
    3600 (0: never/none). One range used to overwrite the other."""
    p = build_parser()
    assert p.parse_args(["run", "x.yaml", "--timeout", "5000"]).timeout == 5000
    assert p.parse_args(["replay", "x.jsonl", "--timeout", "0.5"]).timeout == 0.5
    assert p.parse_args(["serve", "x.yaml", "--watch", "0"]).watch == 0
    assert main(["run", "x.yaml", "--timeout", "0"]) == 2
    assert "expected a number of seconds > 0, got '0'" in capsys.readouterr().err
    assert main(["serve", "x.yaml", "--watch", "5000"]) == 2
    assert "expected 0 to 3600 seconds, got 5000" in capsys.readouterr().err


# ------------------------------------------------------------------------------ config (gamespec/config.py)
def test_options_from_pairs_checks_names_and_values():
    import gamespec
    from gamespec import UsageError
    from gamespec.config import format_options, options_from_pairs, player_count
    game = gamespec.load(os.path.join(ROOT, "tests", "specs", "sets.yaml"))
    assert options_from_pairs(game, [("hand_size", "4")]) == {**game.options, "hand_size": 4}
    assert options_from_pairs(game, []) == game.options
    with pytest.raises(UsageError, match=r"unknown option 'hand_sise'; did you mean 'hand_size'\? "
                                         r"\(options of Sets: hand_size \(default 5\)"):
        options_from_pairs(game, [("hand_sise", "4")])
    with pytest.raises(UsageError):
        options_from_pairs(game, [("hand_size", "7")])     # not one of its values
    tiny = gamespec.load(TINY)
    with pytest.raises(UsageError, match="unknown option 'x': Tiny has no options"):
        options_from_pairs(tiny, [("x", "1")])
    assert player_count(tiny, None) == 2 and player_count(tiny, 3) == 3
    with pytest.raises(UsageError, match="Tiny is for 2 to 3 players, not 4"):
        player_count(tiny, 4)
    assert format_options({}) == "none"
    assert format_options({"a": True, "b": False, "n": 3}) == "a=true, b=false, n=3"


# ------------------------------------------------------------------------------ validation (gamespec/validation.py)
def test_validate_file_reports_a_good_spec_with_its_coverage():
    from gamespec.validation import validate_file
    entry = validate_file(KLINK)
    assert entry["ok"] and entry["errors"] == [] and entry["game"] == "Klink"
    assert entry["players"] == [3, 5]
    assert entry["coverage"] == {"compiled": 3, "combinations": 3,
                                 "which": "every player count and option combination"}


def test_validate_file_reports_spec_errors_at_their_position(tmp_path):
    from gamespec.validation import validate_file
    path = tmp_path / "bad.yaml"
    path.write_text(open(TINY).read().replace("start: play", "start: nowhere"), encoding="utf-8")
    entry = validate_file(str(path))
    assert not entry["ok"] and "coverage" not in entry and "game" not in entry
    [e] = entry["errors"]
    assert e["file"] == str(path) and e["line"] > 1 and "nowhere" in e["message"]
    assert e["text"] == f"{path}:{e['line']}:{e['col']}: error: {e['message']}"


def test_compile_all_is_bounded_and_says_what_it_compiled(tmp_path, monkeypatch):
    import gamespec
    from gamespec import validation
    text = open(TINY).read().replace("name: Tiny", "name: Tiny\noptions:\n" +
                                     "".join(f"  o{i}: {{default: false}}\n" for i in range(64)))
    path = tmp_path / "many.yaml"
    path.write_text(text, encoding="utf-8")
    game = gamespec.load(str(path))
    errors, cov = validation.compile_all(game, str(path))
    assert errors == []
    # 2**64 option sets x 2 player counts: the defaults and each option alone (65 sets) x 2
    assert cov["combinations"] == 2 * 2 ** 64 and cov["compiled"] == 130
    assert cov["which"] == "the defaults and each option changed alone"
    assert cov["not_compiled"] == cov["combinations"] - 130
    monkeypatch.setattr(validation, "MAX_COMPILED", 10)
    _, cov = validation.compile_all(game, str(path))
    assert cov["compiled"] == 10 and cov["which"].endswith("(the first 10)")


def test_compile_all_reports_a_rule_failing_when_built_with_its_configuration(tmp_path):
    import gamespec
    from gamespec.validation import compile_all
    text = open(TINY).read().replace("    zone: deck\n", "    zone: \"deck if num_players == 2 else hand[5]\"\n")
    path = tmp_path / "zr.yaml"
    path.write_text(text, encoding="utf-8")
    try:
        game = gamespec.load(str(path))
    except gamespec.SpecErrors:
        pytest.skip("the checker already rejects this spec statically")
    errors, cov = compile_all(game, str(path))
    assert cov["compiled"] == 2 and errors, errors
    assert all("with 3 players" in e["text"] for e in errors) and errors[0]["file"] == str(path)


# ------------------------------------------------------------------------------ bots from --bot texts
def test_bots_from_args_makes_the_seats_bots_or_refuses_the_request():
    from gamespec import UsageError
    from gamespec.bots import GreedyBot, RandomBot, bots_from_args, kinds_from_args
    assert kinds_from_args(["1=greedy"], 3) == ["random", "greedy", "random"]
    assert bots_from_args([], 3, seed=1) is None
    bots = bots_from_args(["1=greedy", "2=random"], 3, seed=1)
    assert [type(b) for b in bots] == [RandomBot, GreedyBot, RandomBot]
    with pytest.raises(UsageError, match=r"no seat 5 \(seats are 0 to 2\)"):
        kinds_from_args(["5=greedy"], 3)
    with pytest.raises(UsageError, match="unknown bot kind 'nosuch'"):
        bots_from_args(["0=nosuch"], 3, seed=1)
    with pytest.raises(UsageError, match="cannot import module 'no_such_module_here'"):
        bots_from_args(["0=no_such_module_here:Bot"], 3, seed=1)


# ------------------------------------------------------------------------------ one game (gamespec/table/run.py)
def test_play_game_gives_the_state_and_the_result_record():
    import gamespec
    from gamespec.table import run
    from gamespec.simulate import play_one
    game = gamespec.load(BACCHUS)
    lines = []
    state, failure = run.play_game(game, 4, 11, game.options, transcript=lines.append)
    assert failure is None and state.is_terminal
    expected = play_one(game, 4, 11)
    r = run.game_result(state, BACCHUS, 11, game.options)
    assert r["scores"] == expected["scores"] and r["winners"] == expected["winners"]
    assert r["decisions"] == expected["decisions"] and r["players"] == 4 and r["game"] == "Bacchus"
    assert "bots" not in r and "log" not in r
    assert len(lines) > r["decisions"] and any(x.lstrip().startswith("1. player 0: ") for x in lines)  # the live transcript
    text = list(run.outcome_lines(run.game_result(state, BACCHUS, 11, {}, log="g.jsonl",
                                                  log_for=[(1, "s1.jsonl")]), [(1, "s1.jsonl")]))
    assert text[0] == "Bacchus: 4 players, seed 11, options: none"
    assert len(text) == 1 + 4 + 1 + 2 and text[-2:] == ["log: g.jsonl", "log for seat 1: s1.jsonl"]
    assert sum("winner" in t for t in text[1:5]) == len(r["winners"])


def test_play_game_keeps_the_state_of_a_failed_game(tmp_path):
    import gamespec
    from gamespec.table import run
    path = tmp_path / "short.yaml"
    path.write_text(open(TINY).read().replace('on_begin: "shuffle(deck)"',
                                              'on_begin: "shuffle(deck)"\nlimits: {decisions_per_game: 3}'))
    game = gamespec.load(str(path))
    state, failure = run.play_game(game, 2, 1, {}, log=True)
    assert isinstance(failure, run.GameFailed) and isinstance(failure, gamespec.GamespecError)
    assert str(failure).startswith("the game failed (seed 1, after 3 decisions): ")
    assert state.decisions == 3 and len(state.log_lines()) > 3      # the partial log
    path.write_text(open(TINY).read().replace('on_begin: "shuffle(deck)"',
                                              'on_begin: "shuffle(deck); deal(deck, hand[0], 11)"'))
    with pytest.raises(run.GameFailed, match=r"^the game failed while setting up \(seed 4\): "):
        run.play_game(gamespec.load(str(path)), 2, 4, {})


def test_log_seats_checks_each_seat():
    from gamespec import UsageError
    from gamespec.table.run import log_seats
    assert log_seats([("0", "a.jsonl"), ("2", "c.jsonl")], 3) == [(0, "a.jsonl"), (2, "c.jsonl")]
    assert log_seats(None, 3) == []
    with pytest.raises(UsageError, match="--log-for takes a seat number and a file, not 'x'"):
        log_seats([("x", "a.jsonl")], 3)
    with pytest.raises(UsageError, match=r"--log-for 3: no such seat \(seats are 0 to 2\)"):
        log_seats([("3", "a.jsonl")], 3)


# ------------------------------------------------------------------------------ simulate, report, compare (gamespec.analysis)
def test_analysis_simulate_runs_the_request_and_writes_records(tmp_path):
    import gamespec
    from gamespec import analysis
    game = gamespec.load(KLINK)
    rec = tmp_path / "r.jsonl"
    totals = []

    def bar(total):
        totals.append(total)
        return analysis.ProgressBar(None, total, enabled=False)

    study = analysis.simulate(game, KLINK, games=3, seed=5, sweep=["players=3,4"], workers=1,
                              bots=["1=greedy"], records=str(rec), progress=bar)
    assert study["sweep"] == [("players", ["3", "4"])] and totals == [6]
    outs = study["configs"]
    assert [r["players"] for r in outs] == [3, 4] and all(r["seed"] == 5 for r in outs)
    assert [r["bots"] for r in outs] == [["random", "greedy", "random"], ["random", "greedy", "random", "random"]]
    assert all(r["records"] == str(rec) for r in outs)
    rows = analysis.read_records(rec)
    assert [(x["players"], x["seed"]) for x in rows] == [(3, 5), (3, 6), (3, 7), (4, 5), (4, 6), (4, 7)]
    one = analysis.simulate(game, KLINK, games=2, workers=1)      # no seed: one is drawn, and named
    assert one["sweep"] == [] and len(one["configs"]) == 1 and isinstance(one["configs"][0]["seed"], int)


def test_analysis_simulate_refuses_a_bad_request_before_playing(tmp_path):
    import gamespec
    from gamespec import UsageError, analysis
    game = gamespec.load(KLINK)
    rec = tmp_path / "r.jsonl"
    for kw, message in [(dict(bots=["0=nosuch"]), "unknown bot kind"),
                        (dict(players=9), "Klink is for 3 to 5 players, not 9"),
                        (dict(options=[("nope", "1")]), "unknown option 'nope'"),
                        (dict(sweep=["players=3", "players=4"]), "--sweep players is given twice")]:
        with pytest.raises(UsageError, match=message):
            analysis.simulate(game, KLINK, games=2, workers=1, records=str(rec), **kw)
        assert not rec.exists()


def test_study_lines_show_the_summary_as_text():
    import gamespec
    from gamespec import analysis
    game = gamespec.load(BACCHUS)
    [r] = analysis.simulate(game, BACCHUS, games=4, seed=0, workers=1)["configs"]
    lines = list(analysis.study_lines(r))
    assert lines[0] == "Bacchus: 4 games (seeds 0..3), 3 players, options: none"
    seat_rows = [x for x in lines if x.split()[:1] in (["0"], ["1"], ["2"])]
    assert len(seat_rows) == 3
    for x, seat in zip(seat_rows, r["summary"]["seats"]):
        assert f"{100 * seat['win_rate']:.1f}%" in x and f"{seat['score']['mean']:.2f}" in x
    assert lines[-1] == "  errors: 0" and "4 games finished in" in lines[-2]


def test_failure_lines_group_failures_by_message():
    from gamespec.analysis import failure_lines
    errors = [{"seed": s, "error": "boom"} for s in range(0, 20, 2)] + [{"seed": 42, "error": "other"}]
    assert list(failure_lines(errors)) == ["10 games failed (seeds 0, 2, 4, 6, 8, 10, 12, 14, ...):", "  boom",
                                           "1 game failed (seed 42):", "  other"]
    many = [{"seed": s, "error": f"e{s}"} for s in range(12)]
    lines = list(failure_lines(many))
    assert len(lines) == 21 and lines[-1] == "... and 2 more kinds of failure"


def test_comparison_lines_mark_what_differs():
    from gamespec.analysis import comparison_lines
    fig = dict(config="Game: 3 players", n_a=100, n_b=100, kind="rate", a=0.30, b=0.50, diff=0.20,
               p=0.001, p_holm=0.003, differs=True, figure="win rate seat 0")
    same = dict(fig, figure="mean length", kind="mean", a=40.0, b=40.5, diff=0.5, p=0.6, p_holm=0.6,
                differs=False)
    r = {"a": "a.jsonl", "b": "b.jsonl", "figures": [fig, same], "pairs": [1], "note": "n"}
    lines = list(comparison_lines(r))
    assert lines[:3] == ["A: a.jsonl", "B: b.jsonl", "Game: 3 players  (games: A 100, B 100)"]
    assert lines[4].split() == ["win", "rate", "seat", "0", "30.0%", "50.0%", "+20.0%", "0.001", "0.003",
                                "<-", "differs"]
    assert lines[5].split() == ["mean", "length", "40.00", "40.50", "+0.50", "0.6", "0.6"]
    assert lines[-2:] == ["beyond noise: win rate seat 0", "note: n"]
    r["figures"] = [same]
    assert "beyond noise: nothing" in list(comparison_lines(r))


def test_report_files_refuses_empty_records(tmp_path):
    from gamespec import GamespecError, analysis
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    pytest.importorskip("matplotlib")
    with pytest.raises(analysis.ReportError, match=f"no records in {empty}"):
        analysis.report_files([str(empty)], str(tmp_path / "r.html"))
    assert issubclass(analysis.ReportError, GamespecError) and not (tmp_path / "r.html").exists()


# ------------------------------------------------------------------------------ replay and show: a log's spec
@pytest.fixture
def logs(tmp_path):
    """A full log and seat 1's log of one Klink game, the spec copied beside them."""
    import shutil
    spec = tmp_path / "k.yaml"
    shutil.copy(KLINK, spec)
    assert main(["run", str(spec), "--seed", "4", "--log", str(tmp_path / "g.jsonl"),
                 "--log-for", "1", str(tmp_path / "s1.jsonl")]) == 0
    return tmp_path


def test_find_spec_finds_the_file_with_the_logs_hash(logs, capsys):
    from gamespec.loader import SpecNotFound, find_spec
    from gamespec.interpreter.replay import full_log_header
    header = full_log_header(str(logs / "g.jsonl"))
    assert find_spec(header, str(logs / "g.jsonl")) == str(logs / "k.yaml")
    (logs / "k.yaml").write_text(open(KLINK).read() + "\n# changed\n")
    with pytest.raises(SpecNotFound, match=r"no spec file at the header's path '.*k\.yaml' or beside .*g\.jsonl "
                                           r"has the log's SHA-256 \(\w{12}\.\.\.\); give --spec FILE"):
        find_spec(header, str(logs / "g.jsonl"))
    shutil.copy(KLINK, logs / "other-name.yaml")      # beside the log, under any name
    assert find_spec(header, str(logs / "g.jsonl")) == str(logs / "other-name.yaml")
    with pytest.raises(SpecNotFound, match="has no spec_sha256"):
        find_spec({**header, "spec_sha256": None, "spec": KLINK}, str(logs / "g.jsonl"))


def test_readme_run_then_replay_finds_the_spec_at_the_headers_path(tmp_path, monkeypatch, capsys):
    """README: `gamespec run games/bali.yaml ... --log game.jsonl` then `gamespec replay game.jsonl`
    (issue 27): the header's relative path, from the working folder, and from the log's folder."""
    games = tmp_path / "games"
    games.mkdir()
    shutil.copy(os.path.join(ROOT, "games", "bali.yaml"), games / "bali.yaml")
    monkeypatch.chdir(tmp_path)
    assert main(["run", "games/bali.yaml", "--players", "3", "--seed", "7", "--option", "oracle=true",
                 "--log", "game.jsonl"]) == 0
    capsys.readouterr()
    assert main(["replay", "game.jsonl"]) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    assert "game.jsonl: OK," in out and "chance: verified" in out, out
    # from another folder: the header's relative path is found from the log's folder
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    assert main(["replay", "../game.jsonl", "--json"]) == 0, capsys.readouterr().err
    assert json.loads(capsys.readouterr().out)["spec"].endswith(os.path.join("games", "bali.yaml"))


def test_full_log_header_refuses_a_seats_log_and_a_missing_file(logs):
    from gamespec.errors import StateFormatError
    from gamespec.interpreter.replay import full_log_header
    with pytest.raises(StateFormatError, match=r"s1\.jsonl is the log as seat 1 saw it \(--log-for\); "
                                               r"replay needs the full log \(--log\)"):
        full_log_header(str(logs / "s1.jsonl"))
    with pytest.raises(StateFormatError, match=r"cannot read .*nope\.jsonl: No such file"):
        full_log_header(str(logs / "nope.jsonl"))


def test_show_log_reads_a_seats_log_without_its_spec(logs):
    from gamespec.loader import SpecNotFound
    from gamespec.table import show_log
    full = show_log(str(logs / "g.jsonl"))
    seat = show_log(str(logs / "g.jsonl"), reader=1)
    assert seat == show_log(str(logs / "s1.jsonl")) and full != seat
    (logs / "k.yaml").unlink()
    assert len(show_log(str(logs / "s1.jsonl"))) == len(seat)       # plainer labels, same lines
    with pytest.raises(SpecNotFound):
        show_log(str(logs / "g.jsonl"))                               # a full log needs its spec
    assert show_log(str(logs / "g.jsonl"), spec=KLINK) == full


# ------------------------------------------------------------------------------ authoring: schema, check
def test_schema_text_is_the_file_text_of_each_schema():
    import json

    from gamespec import authoring
    from gamespec.authoring.editor_schema import editor_schema
    assert json.loads(authoring.schema_text()) == editor_schema("2020-12")
    text = authoring.schema_text("log")
    assert text.endswith("}\n") and json.loads(text) == authoring.format_schema("log")
    with pytest.raises(ValueError, match="unknown format 'nope'"):
        authoring.schema_text("nope")


def test_check_file_reports_errors_and_with_strict_warnings(tmp_path):
    from gamespec import authoring
    path = tmp_path / "t.yaml"
    text = open(TINY).read()
    path.write_text(text.replace("zones:\n", "zones:\n  box: {kind: set, visibility: hidden}\n"), encoding="utf-8")
    loose = authoring.check_file(str(path))
    assert loose == {"file": str(path), "ok": True, "errors": [], "warnings": [], "allowed": []}
    opened = []

    class Bar:
        def __enter__(self):
            opened.append(self)
            return lambda done, total: None

        def __exit__(self, *exc):
            return False

    strict = authoring.check_file(str(path), strict=True, games=1, progress=Bar)
    assert strict["ok"] and len(opened) == 1
    assert any("zone 'box' is never used" in w["text"] and ": warning: " in w["text"] for w in strict["warnings"])
    path.write_text(text.replace("deal(deck, hand[actor])", "deal(dekc, hand[actor])"), encoding="utf-8")
    bad = authoring.check_file(str(path), strict=True, progress=Bar)
    assert not bad["ok"] and bad["warnings"] == [] and len(opened) == 1      # no lints over errors
    assert "unknown name 'dekc'" in bad["errors"][0]["text"]


# ------------------------------------------------------------------------------ play (gamespec/table/play.py)
def test_new_table_seats_the_person_and_the_bots_or_refuses(tmp_path):
    import gamespec
    from gamespec import UsageError
    from gamespec.bots import GreedyBot
    from gamespec.table.play import new_table, resume_file
    game = gamespec.load(BACCHUS)
    t = new_table(game, BACCHUS, 3, 1, 7, game.options, ["2=greedy"])
    assert t.seat == 1 and t.seed == 7 and t.kinds == ["random", "random", "greedy"]
    assert t.bots[1] is None and isinstance(t.bots[2], GreedyBot)
    for seat, bots, message in [(3, [], r"--seat 3: no such seat \(seats are 0 to 2\)"),
                                (1, ["1=greedy"], r"--bot names seat 1, which is yours \(--seat 1\)"),
                                (0, ["2=no_such_module_here:Bot"], "cannot import module"),
                                (0, ["7=greedy"], "no seat 7")]:
        with pytest.raises(UsageError, match=message):
            new_table(game, BACCHUS, 3, seat, 7, game.options, bots)
    while t.state.current_player != t.seat:     # the bots play up to the person's turn
        t.bot_turn()
    t.apply(0)
    save = tmp_path / "save.json"
    t.save(str(save))
    again = resume_file(str(save), bots=["0=greedy"])
    assert again.state.to_json() == t.state.to_json() and again.kinds[0] == "greedy"
    with pytest.raises(UsageError, match="no seat 5"):
        resume_file(str(save), bots=["5=greedy"])


# ------------------------------------------------------------------------------ serve (gamespec.web)
def test_web_check_files_and_is_local(tmp_path):
    from gamespec import UsageError, web
    web.check_files([BACCHUS, KLINK])
    with pytest.raises(UsageError, match=r"nope\.yaml: no such file"):
        web.check_files([BACCHUS, str(tmp_path / "nope.yaml")])
    with pytest.raises(UsageError, match="no such file"):
        web.check_files([str(tmp_path)])                   # a folder is not a spec
    assert web.is_local("127.0.0.1") and web.is_local("::1") and web.is_local("localhost")
    assert not web.is_local("0.0.0.0") and not web.is_local("192.168.1.5")


def test_report_of_a_study_where_a_seat_never_wins(tmp_path):
    """Wilson's lower bound at 0 wins is 0 up to rounding (5.6e-17): the error bar must not go
    negative (matplotlib refused it: an internal error)."""
    pytest.importorskip("matplotlib")
    import json

    from gamespec import analysis
    rows = tmp_path / "r.jsonl"
    base = {"game": "G", "spec_sha256": "0" * 64, "players": 3, "options": {}, "bots": ["random"] * 3,
            "cooperative": False, "decisions": 10, "turns": 5, "phases": 1, "seconds": 0.01}
    rows.write_text("".join(json.dumps({**base, "seed": s, "scores": [1, 5, 2], "winners": [1]}) + "\n"
                            for s in range(3)))
    [summary] = analysis.summarize(analysis.read_records(rows))
    assert summary["seats"][0]["win_rate"] == 0
    written = analysis.report_files([str(rows)], str(tmp_path / "r.html"))
    assert written == [str(tmp_path / "r.html")] and "<svg" in (tmp_path / "r.html").read_text()
