"""Bad specs: every problem is reported as FILE:LINE:COL: error: message at the right place."""
from __future__ import annotations

import os

import pytest

import gamespec
from gamespec.parser import SYNTAX_EXAMPLES, Located, parse

HERE = os.path.dirname(os.path.abspath(__file__))
TINY = open(os.path.join(HERE, "specs", "tiny.yaml"), encoding="utf-8").read()


def errors_of(text, tmp_path, name="bad.yaml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(gamespec.SpecErrors) as ei:
        gamespec.load(str(path))
    return [(e.line, e.col, e.message, e.check) for e in ei.value.errors], str(ei.value), str(path)


def line_of(text, needle):
    for i, line in enumerate(text.splitlines(), 1):
        if needle in line:
            return i, line.index(needle) + 1
    raise AssertionError(needle)


def test_tiny_is_valid_and_plays():
    g = gamespec.load_text(TINY, "tiny.yaml")
    s = g.new_game(players=2, seed=3)
    while not s.is_terminal:
        s.apply(s.legal_actions()[0])
    assert s.winners


def test_yaml_error_position(tmp_path):
    bad = TINY.replace("  deck: {kind: pile, visibility: hidden}", "  deck: {kind: pile, visibility: hidden")
    errs, text, path = errors_of(bad, tmp_path)
    assert errs[0][3] == "yaml-syntax"
    assert text.startswith(f"{path}:")
    assert errs[0][0] >= line_of(TINY, "deck: {kind")[0]


def test_schema_error_names_the_key_and_suggests(tmp_path):
    bad = TINY.replace("  deck: {kind: pile, visibility: hidden}", "  deck: {kind: pile, visibilty: hidden}")
    errs, text, path = errors_of(bad, tmp_path)
    line, col = line_of(bad, "visibilty")
    assert (errs[0][0], errs[0][1]) == (line, col)
    assert "unknown key 'visibilty'" in errs[0][2] and "did you mean 'visibility'" in errs[0][2]
    assert f"{path}:{line}:{col}: error: " in text


def test_schema_type_error(tmp_path):
    bad = TINY.replace("players: [2, 3]", "players: [2, three]")
    errs, _, _ = errors_of(bad, tmp_path)
    line, col = line_of(bad, "three")
    assert (errs[0][0], errs[0][1]) == (line, col)
    assert "integer" in errs[0][2]


def test_yes_no_are_strings_not_booleans(tmp_path):
    bad = TINY.replace("name: Tiny", "name: Tiny\noptions:\n  fast: {default: no}")
    errs, _, _ = errors_of(bad, tmp_path)
    assert "boolean" in errs[0][2] and "'yes'/'no' are strings" in errs[0][2]


def test_rule_syntax_error_position(tmp_path):
    bad = TINY.replace('effect: "stopped[actor] = 1"', 'effect: "stopped[actor] = = 1"')
    errs, text, _ = errors_of(bad, tmp_path)
    line, col = line_of(bad, "= = 1")
    assert errs[0][:2] == (line, col + 2)
    assert errs[0][3] == "rule-syntax"


def test_rule_syntax_error_in_a_block_scalar(tmp_path):
    bad = TINY.replace('on_begin: "shuffle(deck)"', "on_begin: |\n  shuffle(deck)\n  x = (1 + \n")
    errs, _, _ = errors_of(bad, tmp_path)
    line, _ = line_of(bad, "x = (1 +")
    assert errs[0][0] == line and errs[0][3] == "rule-syntax"


def test_unknown_zone_did_you_mean(tmp_path):
    bad = TINY.replace('effect: "deal(deck, hand[actor])"', 'effect: "deal(dekc, hand[actor])"')
    errs, text, _ = errors_of(bad, tmp_path)
    line, col = line_of(bad, "dekc")
    assert errs[0][:2] == (line, col)
    assert "unknown name 'dekc'; did you mean 'deck'?" in errs[0][2]


def test_unknown_function_and_attribute(tmp_path):
    bad = TINY.replace('score: "sum(c.value for c in hand[p])"', 'score: "summ(c.valeu for c in hand[p])"')
    errs, _, _ = errors_of(bad, tmp_path)
    assert "unknown function 'summ'; did you mean 'sum'?" in errs[0][2]
    bad = TINY.replace('score: "sum(c.value for c in hand[p])"', 'score: "sum(c.valeu for c in hand[p])"')
    errs, _, _ = errors_of(bad, tmp_path)
    assert "unknown card attribute 'valeu'; did you mean 'value'?" in errs[0][2]


def test_arity_and_type_errors(tmp_path):
    bad = TINY.replace('effect: "deal(deck, hand[actor])"', 'effect: "shuffle(deck, deck)"')
    errs, _, _ = errors_of(bad, tmp_path)
    assert "'shuffle' takes 1 argument(s), got 2" in errs[0][2] and errs[0][3] == "arity"
    bad = TINY.replace('effect: "deal(deck, hand[actor])"', 'effect: "deal(deck, hand)"')
    errs, _, _ = errors_of(bad, tmp_path)
    assert errs[0][3] == "type"


def test_unreachable_phase(tmp_path):
    bad = TINY.replace("actions:\n", "  lost:\n    next: end\nactions:\n", 1)
    errs, text, _ = errors_of(bad, tmp_path)
    line, col = line_of(bad, "  lost:")
    assert errs[0][3] == "graph-unreachable"
    assert errs[0][:2] == (line, col + 2)
    assert "phase 'lost' is unreachable" in errs[0][2]


def test_unknown_phase_and_action(tmp_path):
    bad = TINY.replace("    next: end", "    next: ned").replace("choose: [draw, stop]", "choose: [draw, stpo]")
    errs, _, _ = errors_of(bad, tmp_path)
    msgs = [e[2] for e in errs]
    assert any("unknown action 'stpo'; did you mean 'stop'?" in m for m in msgs)
    assert any("unknown phase 'ned'; did you mean 'end'?" in m for m in msgs)


def test_several_errors_are_reported_together_in_file_order(tmp_path):
    bad = TINY.replace("deal(deck, hand[actor])", "deal(dekc, hand[actor])").replace(
        "sum(c.value for", "sum(c.valeu for")
    errs, text, _ = errors_of(bad, tmp_path)
    assert len(errs) == 2
    assert errs[0][0] < errs[1][0]
    assert len(text.splitlines()) == 2


def test_a_loop_without_exit(tmp_path):
    bad = TINY.replace("    next: end", "    next: play").replace(
        '    end_if: "all(stopped[p] == 1 for p in players) or size(deck) == 0"\n', "")
    errs, _, _ = errors_of(bad, tmp_path)
    assert {e[3] for e in errs} & {"graph-no-end", "graph-loop"}


def test_specs_cannot_name_python(tmp_path):
    for rule in ("__import__('os')", "c.__class__", "_secret(1)"):
        bad = TINY.replace('score: "sum(c.value for c in hand[p])"', f'score: "{rule}"')
        errs, _, _ = errors_of(bad, tmp_path)
        assert errs, rule


@pytest.mark.parametrize("kind", ["expr", "effects"])
def test_friendly_syntax_messages_table(kind):
    # the table of bad examples doubles as test data: each example gets its own message
    for message, examples in SYNTAX_EXAMPLES[kind].items():
        for ex in examples:
            with pytest.raises(gamespec.SpecError) as ei:
                parse(Located(ex, "x.yaml"), kind)
            assert ei.value.message.startswith(message), (ex, ei.value.message)
