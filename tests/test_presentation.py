"""Presentation hints (gamespec/spec/presentation.py, `presentation:` in a spec): defaults read from the
spec, the spec's own words where given, names that do not exist refused at FILE:LINE:COL."""
from __future__ import annotations

import os

import pytest

import gamespec
from helpers import ROOT

KLINK = open(os.path.join(ROOT, "games", "klink.yaml"), encoding="utf-8").read()
BASE = KLINK.split("\n# How the tables draw Klink")[0]


def _load(extra):
    return gamespec.load_text(BASE + "\n" + extra, "k.yaml")


def test_defaults_without_hints():
    p = _load("").spec.presentation
    assert p["value"] == "value" and p["colour"] is None and p["undo"] is False
    assert p["zones"]["number_deck"] == {"name": "number deck", "show": True, "area": "shared", "group": None,
                                        "per_player": False, "family": False, "kind": "pile"}
    assert p["zones"]["faceup"]["area"] == "player" and p["zones"]["faceup"]["per_player"]
    assert p["variables"]["round_pts"] == {"name": "round pts", "show": True, "per_player": True, "player": False,
                                          "words": {}, "public": True}
    assert p["marks"] == {}


def test_colour_defaults_to_a_colour_attribute_with_named_colours():
    p = gamespec.load(os.path.join(ROOT, "games", "bacchus.yaml")).spec.presentation
    assert p["colour"] == "colour" and p["colours"]["yellow"].startswith("#") and len(p["colours"]) == 5
    assert len(set(p["colours"].values())) == 5
    bali = gamespec.load(os.path.join(ROOT, "games", "bali.yaml")).spec.presentation
    assert bali["colour"] == "kind" and bali["colours"]["pepper"] == "#d9534f"     # the spec's own
    assert bali["zones"]["start_pool"]["show"] is False and bali["zones"]["row"]["group"] == "Market"


def test_hints_are_used():
    p = _load("presentation:\n  zones: {pair: {name: The pair, group: Middle}, removed: {show: false}}\n"
              "  variables: {total: {name: Total}, had: {show: false}}\n  undo: true\n").spec.presentation
    assert p["zones"]["pair"]["name"] == "The pair" and p["zones"]["pair"]["group"] == "Middle"
    assert p["zones"]["removed"]["show"] is False and p["variables"]["total"]["name"] == "Total"
    assert p["variables"]["had"]["show"] is False and p["undo"] is True


@pytest.mark.parametrize("extra, where, words", [
    ("presentation:\n  colour: hue\n", "+1:11:", "no card attribute 'hue'"),
    ("presentation:\n  value: kind\n", "+1:10:", "'kind' is not a card attribute with whole-number values"),
    ("presentation:\n  zones: {hand: {name: Hand}}\n", "+1:17:", "no zone 'hand'"),
    ("presentation:\n  variables: {totl: {}}\n", "+1:21:", "no variable 'totl'"),
    ("presentation:\n  zones: {pair: {area: player}}\n", "+1:24:", "'player' is for a per-player zone"),
    ("presentation:\n  colour: kind\n  colours: {mauve: '#aa00aa'}\n", "+2:20:", "has no value 'mauve'"),
])
def test_names_that_do_not_exist_are_errors_at_their_place(extra, where, words):
    with pytest.raises(gamespec.SpecErrors) as e:
        _load(extra)
    text = str(e.value)
    offset, col = where[1:].split(":")[:2]          # the line after BASE's last, and the column
    line = (BASE + "\n").count("\n") + 1 + int(offset)     # "presentation:" is the first line after BASE
    assert text.startswith(f"k.yaml:{line}:{col}:") and words in text, text


@pytest.mark.parametrize("extra", [
    "presentation:\n  colours: {red: 'red'}\n",            # not #rrggbb
    "presentation:\n  zones: {pair: {area: middle}}\n",
    "presentation:\n  shape: round\n",
])
def test_the_schema_checks_the_shape(extra):
    with pytest.raises(gamespec.SpecErrors) as e:
        _load(extra)
    assert "k.yaml:" in str(e.value)


def test_a_player_typed_variable_names_a_person_on_the_screen():
    """A variable of type player shows as 'you' / 'player N' (the words of play), not a bare number:
    its hints say so ("player": True) for the terminal and the browser."""
    from gamespec.spec.presentation import of_game
    from gamespec.table.screen import Screen
    from gamespec.table.transcript import Labels
    g = gamespec.load(os.path.join(ROOT, "games", "klink.yaml"))
    hints = of_game(g)
    assert hints["variables"]["holder"]["player"] is True and hints["variables"]["rounds"]["player"] is False
    s = g.new_game(players=3, seed=3)
    screen = Screen(hints, Labels(s.rs), 3, 1)
    text = "\n".join(t for t, _ in screen.lines(s.view(1).observation, "head"))
    holder = s.view(1).observation["variables"]["holder"]
    want = "you" if holder == 1 else f"player {holder}"
    assert f"Holds the pair {want}" in text, text


# -- words: a value shown in the spec's words (variables and marks) -------------------------------
MARKED = """
marks:
  hint: {initial: 0, visibility: public}
  lit: {type: bool, initial: false, visibility: public}
"""


def test_words_name_values_for_the_tables_and_keep_them_for_the_rules():
    """`words:` of a variable hint and of a mark hint: resolved keyed by value as JSON ("-1",
    "true"), shown by the terminal instead of the value; the observation keeps the value."""
    from gamespec.spec.presentation import of_game, word_key
    from gamespec.table.screen import Screen, _tag
    from gamespec.table.transcript import Labels
    g = _load(MARKED + "presentation:\n  variables: {rounds: {name: Rounds, words: {1: 'the first', -1: 'over'}}}\n"
              "  marks: {hint: {name: clue, words: {2: 'clued twice'}}, lit: {words: {true: 'burning'}}}\n")
    hints = of_game(g)
    assert hints["variables"]["rounds"]["words"] == {"1": "the first", "-1": "over"}
    assert hints["marks"] == {"hint": {"name": "clue", "words": {"2": "clued twice"}},
                              "lit": {"name": "lit", "words": {"true": "burning"}}}
    assert [word_key(v) for v in (-1, True, "x", None)] == ["-1", "true", "x", "null"]
    s = g.new_game(players=3, seed=3)
    obs = s.view(0).observation
    assert obs["variables"]["rounds"] == 1                  # the rules' value, untouched
    screen = Screen(hints, Labels(s.rs), 3, 0)
    text = "\n".join(t for t, _ in screen.lines(obs, "head"))
    assert "Rounds the first" in text and "Rounds 1" not in text, text
    assert screen.value(-1, words=hints["variables"]["rounds"]["words"]) == "over"
    assert screen.value(5, words=hints["variables"]["rounds"]["words"]) == "5"          # no word: the value
    m = hints["marks"]
    assert _tag({"hint": 2, "lit": True}, m) == " [clued twice, burning]"
    assert _tag({"hint": 1, "lit": False}, m) == " [clue=1]"                             # no word: name=value
    assert _tag({"hint": 0, "lit": False}, m) == ""                                      # unset: not shown
    assert _tag({"hint": 2}) == " [hint=2]"                                              # no hints at all


def test_the_web_page_gets_the_words():
    from gamespec.spec.presentation import of_game
    from gamespec.web.messages import seat_message
    g = _load(MARKED + "presentation:\n  variables: {rounds: {words: {0: 'none yet'}}}\n"
              "  marks: {hint: {words: {1: 'clued'}}}\n")
    s = g.new_game(players=3, seed=3)
    msg = seat_message(s, 0, {"game": "k", "seats": ["human"] * 3, "presentation": of_game(g)})
    assert msg["presentation"]["variables"]["rounds"]["words"] == {"0": "none yet"}
    assert msg["presentation"]["marks"]["hint"]["words"] == {"1": "clued"}


@pytest.mark.parametrize("extra,words", [
    ("presentation:\n  marks: {hnit: {name: x}}\n", "presentation.marks: no mark 'hnit' (marks: hint, lit)"),
    ("presentation:\n  variables: {rounds: {words: {[1, 2]: x}}}\n", "a mapping key must be a string, an integer or a boolean"),
    ("presentation:\n  variables: {rounds: {words: {1: ''}}}\n", "k.yaml:"),
    ("presentation:\n  marks: {hint: {show: false}}\n", "k.yaml:"),
])
def test_words_and_mark_hints_are_checked(extra, words):
    with pytest.raises(gamespec.SpecErrors) as e:
        _load(MARKED + extra)
    assert words in str(e.value) and str(e.value).startswith("k.yaml:"), str(e.value)


def test_a_public_variable_without_a_value_reads_as_a_dash_a_hidden_one_as_a_question_mark():
    """none where every seat sees the variable is "no value" (Coup's target before any action: '–');
    a variable the seat may not see arrives as none too, and stays '?'."""
    from gamespec.spec.presentation import of_game
    from gamespec.table.screen import Screen
    from gamespec.table.transcript import Labels
    g = gamespec.load(os.path.join(ROOT, "games", "coup.yaml"))
    hints = of_game(g)
    assert hints["variables"]["victim"]["public"] is True
    s = g.new_game(players=3, seed=3)
    obs = s.view(0).observation
    assert obs["variables"]["victim"] is None and obs["variables"]["claim"] == ""
    text = "\n".join(t for t, _ in Screen(hints, Labels(s.rs), 3, 0).lines(obs, "head"))
    assert "Target –" in text and "Target ?" not in text and "Claim –" in text, text
    screen = Screen(hints, Labels(s.rs), 3, 0)
    assert screen.value(None) == "?" and screen.value(None, public=True) == "–"
    nt = gamespec.load(os.path.join(ROOT, "games", "no_thanks.yaml"))
    assert of_game(nt)["variables"]["chips"]["public"] is False      # owner: another seat's is hidden
    t = nt.new_game(players=3, seed=1)
    obs = t.view(0).observation
    assert obs["variables"]["chips"][1] is None
    text = "\n".join(x for x, _ in Screen(of_game(nt), Labels(t.rs), 3, 0).lines(obs, "head"))
    assert "Player 1 · Chips ? │" in text and "Chips –" not in text, text       # hidden, not "no value"
