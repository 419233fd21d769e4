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
