"""Whole-number options declare the values a game works at (`range: [LOW, HIGH]` or `values: [...]`):
every game of games/ does, the `option-no-range` lint of `check --strict` names one that does not at
its FILE:LINE:COL, a value outside the range is refused in one line (exit 2) by the commands that take
`--option` and by the API, and every game sets up and plays at both ends of each of its ranges."""
from __future__ import annotations

import os
import random
import subprocess
import sys
import time

import pytest

import gamespec
from gamespec.authoring import lints
from gamespec.cli import main
from gamespec.errors import UsageError

from helpers import GAMES, ROOT, load

HOLDEM = os.path.join(ROOT, "games", "holdem.yaml")


def _declared(path):
    """{option: (values, range)} for the spec's whole-number options, read from the checked spec."""
    spec = load(path).spec
    return {n: (spec.option_values.get(n), spec.option_ranges.get(n)) for n, d in spec.options.items()
            if not isinstance(d, bool)}


def test_every_whole_number_option_of_the_library_declares_its_values_or_range():
    """One test over every game (not one per game: those of the library would run only under -m slow)."""
    bare = [(os.path.basename(p), n) for p in GAMES for n, (values, span) in _declared(p).items()
            if not values and not span]
    assert bare == [], f"add range: [LOW, HIGH] (or values: [...]) to {bare}"
    assert len(GAMES) >= 18


def test_the_library_declares_ranges_that_contain_their_defaults():
    spans = {(os.path.basename(p), n): span for p in GAMES for n, (_, span) in _declared(p).items() if span}
    assert len(spans) >= 15          # the 15 bare options of crazy_eights ... spades before this test
    for (game, name), (lo, hi) in spans.items():
        default = load(os.path.join(ROOT, "games", game)).spec.options[name]
        assert lo <= default <= hi, (game, name)
    assert spans[("holdem.yaml", "starting_stack")][1] == 1000     # the bound its doc states


SPEC = """\
name: Ranges
players: [2, 2]
options:
  count: {default: 3, doc: "cards dealt"}
  bonus: {default: 0, range: [0, 3]}
  listed: {default: 2, values: [2, 3]}
  quick: {default: false}
cards:
  n: {zone: deck, faces: [{each: {rank: [1, 2, 3, 4]}, count: 2}]}
zones:
  deck: {kind: pile, visibility: hidden}
  hand: {kind: set, per_player: true, visibility: owner}
  pile: {kind: pile, visibility: public}
variables:
  points: {per_player: true}
on_begin: "shuffle(deck); for p in players { deal(deck, hand[p], count if quick else listed) }"
end_if: "all(size(hand[q]) == 0 for q in players)"
phases:
  play:
    turn: {steps: [{choose: [play]}]}
actions:
  play:
    params: {card: {from: "hand[actor]"}}
    effect: "move(card, pile); points[actor] += card.rank + bonus"
scoring: {score: "points[p]"}
"""


def test_the_lint_names_a_whole_number_option_without_values_or_range_at_its_place(tmp_path, capsys):
    p = tmp_path / "spec.yaml"
    p.write_text(SPEC, encoding="utf-8")
    found = [f for f in lints.lint(str(p), games=0) if f.check == "option-no-range"]
    line = SPEC.splitlines().index('  count: {default: 3, doc: "cards dealt"}') + 1
    assert [(f.name, f.line, f.col) for f in found] == [("count", line, 3)]     # not bonus, listed, quick
    assert "option 'count' accepts any whole number" in found[0].message
    assert "range: [LOW, HIGH]" in found[0].message and "range: [1, 10]" in found[0].message
    # as check --strict prints it, and it makes the exit code 1
    assert main(["check", "--strict", "--lint-games", "0", str(p)]) == 1
    err = capsys.readouterr().err.splitlines()
    mine = [x for x in err if x.endswith("[option-no-range]")]
    assert len(mine) == 1 and mine[0].startswith(f"{p}:{line}:3: warning: option 'count' accepts any whole number")
    # the fix it names silences it
    p.write_text(SPEC.replace('count: {default: 3,', 'count: {default: 3, range: [1, 4],'), encoding="utf-8")
    assert not [f for f in lints.lint(str(p), games=0) if f.check == "option-no-range"]


def test_the_lint_is_not_one_a_spec_may_acknowledge(tmp_path):
    """Declaring the range is always the fix: `lints: allow` does not name this lint (an error, like
    any rule that is not a lint of the table)."""
    assert "option-no-range" not in lints.CHECKS
    p = tmp_path / "spec.yaml"
    p.write_text(SPEC + "lints:\n  allow:\n    - {rule: option-no-range, why: \"any count\"}\n", encoding="utf-8")
    with pytest.raises(gamespec.SpecErrors, match="option-no-range"):
        gamespec.load(str(p))


@pytest.mark.parametrize("command", [["simulate", "--games", "1"], ["run"], ["play"]])
@pytest.mark.parametrize("value", ["5000", "-5", "1"])
def test_an_out_of_range_value_is_refused_in_one_line_by_each_command(command, value, capsys):
    assert main(command + ["--option", f"starting_stack={value}", HOLDEM]) == 2
    out, err = capsys.readouterr()
    assert err.splitlines() == [f"gamespec: error: option 'starting_stack' is a whole number from 2 to 1000, not {value}"]
    assert "Traceback" not in out + err


def test_an_out_of_range_value_is_refused_by_the_program_with_exit_code_2():
    r = subprocess.run([sys.executable, "-m", "gamespec", "simulate", HOLDEM, "-n", "1", "-O", "starting_stack=5000"],
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 2
    assert r.stderr.strip() == "gamespec: error: option 'starting_stack' is a whole number from 2 to 1000, not 5000"


def test_an_out_of_range_value_is_refused_by_the_api():
    game = gamespec.load(HOLDEM)
    for bad in (5000, -1, 0, 1):
        with pytest.raises(UsageError, match=rf"^option 'starting_stack' is a whole number from 2 to 1000, not {bad}$"):
            game.new_game(players=2, seed=1, options={"starting_stack": bad})
    with pytest.raises(UsageError, match="option 'hand_limit' is a whole number from 0 to 50, not 51"):
        game.new_game(players=2, seed=1, options={"hand_limit": 51})
    assert game.new_game(players=2, seed=1, options={"starting_stack": 1000, "hand_limit": 50}).decisions == 0


def _ends():
    out = []
    for path in GAMES:
        spec = load(path).spec
        for name, (lo, hi) in spec.option_ranges.items():
            for players in sorted({spec.min_players, spec.max_players}):
                out += [(path, name, lo, players), (path, name, hi, players)]
    return out


def test_every_game_sets_up_and_plays_at_both_ends_of_each_range():
    """Each end of each declared range, alone (the other options at their defaults), at the fewest and
    the most players: the game sets up and takes random decisions (a few each, to keep this short)."""
    ends = _ends()
    t0 = time.process_time()
    assert len(ends) >= 2 * 15
    played = 0
    for path, name, value, players in ends:
        s = load(path).new_game(players=players, seed=7, options={name: value})
        rng = random.Random(value)
        for _ in range(8):
            if s.is_terminal:
                break
            s.apply_index(rng.randrange(s.legal_action_count()))
            played += 1
        assert s.is_terminal or s.legal_action_count() > 0, (path, name, value, players)
    assert played >= 6 * len(ends)       # nearly every end plays its 8 decisions
    assert time.process_time() - t0 < 10
