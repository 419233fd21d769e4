"""Golden playthroughs: every game of games/ has at least two recorded games in tests/golden/
(`gamespec run --log`), and `gamespec replay` reproduces each exactly: every decision legal and the
same, every shuffle the one the seed gives, the same scores and winners as its end line. A change to a
game's rules (or to the engine) that changes any of these games fails here, naming the log."""
from __future__ import annotations

import glob
import json
import os

import pytest

from gamespec.cli import main

from helpers import ROOT

GAMES = sorted(os.path.basename(p)[:-5] for p in glob.glob(os.path.join(ROOT, "games", "*.yaml")))
LOGS = sorted(glob.glob(os.path.join(ROOT, "tests", "golden", "*.jsonl")))


def test_every_game_has_two_golden_logs():
    have = {}
    for path in LOGS:
        with open(path, encoding="utf-8") as f:
            header = json.loads(f.readline())
        have.setdefault(os.path.basename(header["spec"])[:-5], []).append(path)
    assert {g: len(have.get(g, [])) >= 2 for g in GAMES} == {g: True for g in GAMES}


@pytest.mark.parametrize("path", LOGS, ids=os.path.basename)
def test_replay_reproduces_the_golden_log(path, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)                       # the header names its spec relative to the checkout
    with open(path, encoding="utf-8") as f:
        lines = [json.loads(x) for x in f]
    end = lines[-1]
    assert end["type"] == "end"
    assert main(["replay", path, "--json"]) == 0, capsys.readouterr().err
    out = json.loads(capsys.readouterr().out)
    assert out["ok"] and out["error"] is None
    assert out["chance"].startswith("verified")
    assert (out["scores"], out["winners"]) == (end["scores"], end["winners"])
    assert out["decisions"] == sum(1 for x in lines if x["type"] == "decision") > 0
