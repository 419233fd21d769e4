"""The functions behind the `gamespec` commands, called directly (the commands themselves are
tested through `main` in tests/test_cli.py and others): each takes plain values and returns results."""
from __future__ import annotations

import os

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
