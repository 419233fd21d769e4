"""The game library: `gamespec list` names every game of games/ with its players, family and a line of
description; `gamespec new NAME --from ID` starts a spec from any of them."""
from __future__ import annotations

import glob
import json
import os

import pytest

from gamespec.authoring import library
from gamespec.cli import main

from helpers import ROOT, SEED_GAMES

GAMES = sorted(glob.glob(os.path.join(ROOT, "games", "*.yaml")))


def _listed(capsys, *args):
    assert main(["list", "--json", *args]) == 0
    return json.loads(capsys.readouterr().out)


def test_list_names_every_game_with_players_family_and_description(capsys):
    listed = _listed(capsys)
    assert [g["id"] for g in listed] == [os.path.basename(p)[:-5] for p in GAMES]
    for g in listed:
        assert g["players"][0].isdigit(), g
        assert g["family"], f"{g['id']}: its header has no '# family:' line"
        assert 10 <= len(g["description"]) <= 300 and "\n" not in g["description"], g


def test_list_in_words_and_by_family(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split() == ["id", "players", "family", "description"]
    assert all(os.path.basename(p)[:-5] in out for p in GAMES)
    family = _listed(capsys)[0]["family"]
    assert {g["family"] for g in _listed(capsys, "--family", family)} == {family}
    assert main(["list", "--family", "no-such-family"]) == 2
    assert "families:" in capsys.readouterr().err


def test_new_from_a_library_game_writes_its_rules_to_change(tmp_path, capsys):
    for path in GAMES:
        gid = os.path.basename(path)[:-5]
        out = tmp_path / f"my_{gid}.yaml"
        assert main(["new", str(out), "--from", gid]) == 0, gid
        text = out.read_text(encoding="utf-8")
        assert text.startswith("# yaml-language-server: $schema=gamespec.schema.json\n")
        assert text.split("\n", 1)[1] == library.MODELINE.sub("", open(path, encoding="utf-8").read())
    capsys.readouterr()
    firsts = [str(tmp_path / f"my_{os.path.basename(p)[:-5]}.yaml") for p in GAMES[:3]]
    assert main(["validate"] + firsts) == 0


@pytest.mark.parametrize("typo,hint", [("klnk", "did you mean 'klink'?"), ("zzzz", "library game:")])
def test_new_from_an_unknown_id_says_what_there_is(tmp_path, capsys, typo, hint):
    assert main(["new", str(tmp_path / "x"), "--from", typo]) == 2
    err = capsys.readouterr().err
    assert hint in err and "gamespec list" in err
    assert not (tmp_path / "x.yaml").exists()


@pytest.mark.parametrize("path", [p for p in GAMES if p not in SEED_GAMES], ids=lambda p: os.path.basename(p)[:-5])
def test_check_strict_is_clean_on_every_library_game(capsys, path):
    """Every game of the library passes `check --strict`: no warning; a finding that is part of the
    game (counting cards) is acknowledged in the spec with its reason (lints: allow). One game per
    test (they spread over the workers); the seed games' the same assertions in
    tests/test_checker_rules.py (in a child, its CPU bounded) and tests/test_authoring.py."""
    assert main(["check", "--strict", "--json", path]) == 0
    files = json.loads(capsys.readouterr().out)["files"]
    assert [(os.path.basename(f["file"]), f["warnings"]) for f in files] == [(os.path.basename(path), [])]
    for f in files:
        assert all(a["allowed"] for a in f["allowed"]), f["file"]      # the reason the spec gives

