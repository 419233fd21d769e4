"""A mistyped option, subcommand or choice gets the close spelling and the right usage (issue 27)."""
from __future__ import annotations

import os

import pytest

from gamespec.cli import build_parser, main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BACCHUS = os.path.join(ROOT, "games", "bacchus.yaml")


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_mistyped_option_gets_the_subcommands_usage_and_the_close_spelling(capsys):
    code, out, err = run(capsys, "simulate", BACCHUS, "--gmaes", "10")
    assert code == 2 and out == ""
    assert err.startswith("usage: gamespec simulate ")
    assert "gamespec simulate: error: unrecognized arguments: --gmaes 10 (did you mean --games?)" in err
    code, _, err = run(capsys, "simulate", BACCHUS, "--gmaes=10")
    assert code == 2 and "(did you mean --games?)" in err


SUBCOMMAND_TYPOS = {   # subcommand: (its argv before the typo, the typo, the option meant)
    "validate": ([BACCHUS], "--jsno", "--json"),
    "run": ([BACCHUS], "--plyers", "--players"),
    "simulate": ([BACCHUS], "--recrods", "--records"),
    "report": (["x.jsonl"], "--otuput", "--output"),
    "compare": (["a.jsonl", "b.jsonl"], "--confg", "--config"),
    "graph": ([BACCHUS], "--renderr", "--renderer"),
    "replay": (["g.jsonl"], "--timout", "--timeout"),
    "schema": ([], "--ouptut", "--output"),
    "new": (["x"], "--forse", "--force"),
    "explain": ([BACCHUS], "--fromat", "--format"),
    "check": ([BACCHUS], "--strcit", "--strict"),
    "play": ([BACCHUS], "--resmue", "--resume"),
    "show": (["g.jsonl"], "--jsn", "--json"),
    "serve": ([BACCHUS], "--max-tabels", "--max-tables"),
    "lsp": ([], "--tpc", "--tcp"),
    "list": ([], "--famliy", "--family"),
    "tune": ([BACCHUS], "--tagret", "--target"),
}


def test_every_subcommand_is_covered():
    assert set(SUBCOMMAND_TYPOS) == set(build_parser()._subparsers._group_actions[0].choices)


@pytest.mark.parametrize("command", sorted(SUBCOMMAND_TYPOS))
def test_every_subcommand_suggests_its_options(command, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)       # nothing runs: the typo is refused first
    before, typo, meant = SUBCOMMAND_TYPOS[command]
    code, _, err = run(capsys, command, *before, typo)
    assert code == 2, err
    assert f"usage: gamespec {command} " in err and f"(did you mean {meant}?)" in err, err
    assert not os.listdir(tmp_path)


def test_an_option_of_another_subcommand_says_which(capsys):
    code, _, err = run(capsys, "run", BACCHUS, "--games", "3")
    assert code == 2 and "--games is an option of: simulate" in err, err


def test_a_mistyped_subcommand_gets_the_close_spelling(capsys):
    code, _, err = run(capsys, "simulat", BACCHUS)
    assert code == 2 and "invalid choice: 'simulat'" in err and "did you mean 'simulate'?" in err, err
    code, _, err = run(capsys, "valdiate", BACCHUS)
    assert code == 2 and "did you mean 'validate'?" in err
    code, _, err = run(capsys, "zzzz", BACCHUS)
    assert code == 2 and "did you mean" not in err and "choose from" in err


def test_a_mistyped_choice_gets_the_close_spelling(capsys):
    code, _, err = run(capsys, "simulate", BACCHUS, "--backend", "rey")
    assert code == 2 and "usage: gamespec simulate" in err and "did you mean 'ray'?" in err, err


def test_nothing_is_suggested_when_nothing_is_close(capsys):
    code, _, err = run(capsys, "simulate", BACCHUS, "--zzzzzz")
    assert code == 2 and "unrecognized arguments: --zzzzzz" in err and "did you mean" not in err
