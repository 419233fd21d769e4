"""Bad specs: every problem is reported as FILE:LINE:COL: error: message at the right place."""
from __future__ import annotations

import os

import pytest

import gamespec
from gamespec.spec.parser import SYNTAX_EXAMPLES, Located, parse

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


def test_schema_errors_quote_a_huge_value_cut_short(tmp_path):
    """A megabyte value in a spec was echoed whole in its error; it is quoted to 60 characters with its
    length said (a huge unknown key and jsonschema's own messages likewise)."""
    huge = "x" * 200_000
    for bad in (TINY.replace("visibility: hidden}", f"visibility: {huge}}}", 1),
                TINY.replace("  deck: {kind: pile, visibility: hidden}", f"  deck: {{kind: pile, {huge}: 1}}"),
                TINY.replace("name: Tiny", f"name: Tiny\ndescription: [{huge}]", 1)):
        assert bad != TINY
        errs, text, path = errors_of(bad, tmp_path)
        assert errs and all(len(e[2]) < 400 for e in errs), [len(e[2]) for e in errs]
        assert len(text) < 2000
    assert "(200000 characters)" in errors_of(TINY.replace("visibility: hidden}", f"visibility: {huge}}}", 1),
                                              tmp_path)[0][0][2]


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


# ---- the checker: specs that can never run do not validate ------------------------------------------
# TINY with variables of every kind and two defines; each case below changes one thing in it.
TYPED = TINY.replace("variables:\n  stopped: {per_player: true, initial: 0}\n", """variables:
  stopped: {per_player: true, initial: 0}
  n: {initial: 0}
  rounds: {type: int}
  had: {type: bool, per_player: true}
  who: {type: player}
  cv: {type: card}
  kept: {type: cards}
  plays: {initial: 0}
marks:
  hint: {initial: 0}
  lit: {type: bool, visibility: hidden}
define:
  total: "size(deck)"
  high(c): "c.value > 3"
functions:
  twice(x): "return 2 * x"
""")
STOP = 'effect: "stopped[actor] = 1"'
SIM = "        - choose: [draw, stop]\n"

# (what, text replaced in TYPED, replacement, where the error points (a needle; its column), message)
BAD_SPECS = [
    ("add text to a number", STOP, "effect: \"n += 'one'\"", "'one'",
     "'+=' on the number variable 'n' needs a number, but this is a text"),
    ("number into a bool", STOP, 'effect: "had[actor] = 3"', "3\"", "'had' holds true/false; it cannot be given a number"),
    ("text into a number", STOP, "effect: \"rounds = 'abc'\"", "'abc'", "'rounds' holds a number; it cannot be given a text"),
    ("bool into a player", STOP, 'effect: "who = true"', "true\"", "'who' holds a player; it cannot be given true/false"),
    ("list into a number", STOP, 'effect: "rounds = [1, 2]"', "[1, 2]",
     "'rounds' holds a number; it cannot be given a list of numbers"),
    ("zone into a number", STOP, 'effect: "rounds = deck"', "deck\"", "'rounds' holds a number; it cannot be given a zone"),
    ("number into a card", STOP, 'effect: "cv = 5"', "5\"", "'cv' holds a card; it cannot be given a number"),
    ("numbers into cards", STOP, 'effect: "kept = [1, 2]"', "[1, 2]",
     "'kept' holds a list of cards; it cannot be given a list of numbers"),
    ("numbers moved as cards", STOP, 'effect: "move([1, 2], deck)"', "[1, 2]",
     "argument 1 of 'move' should be a card, a list of cards or a zone, this is a list of numbers"),
    ("a number moved as a card", STOP, 'effect: "for x in range(3) { move(x, deck) }"', "x, deck",
     "argument 1 of 'move' should be a card, a list of cards or a zone, this is a number"),
    ("arithmetic on text", STOP, "effect: \"rounds = 1 + 'a'\"", "'a'", "'+' needs numbers; this is a text"),
    # another language's signs (parser.CHAR_HINTS): what the author meant
    ("a single slash", STOP, 'effect: "rounds = 7 / 2"', "/ 2",
     "unexpected character '/'; division is '//' (whole numbers, rounded down)"),
    ("an ampersand", STOP, 'effect: "rounds = 1 if true & false else 2"', "& false",
     "unexpected character '&'; write 'and'"),
    ("a bar", STOP, 'effect: "rounds = 1 if true | false else 2"', "| false",
     "unexpected character '|'; write 'or'"),
    ("an exclamation mark", STOP, 'effect: "rounds = 1 if !true else 2"', "!true",
     "unexpected character '!'; write 'not' (and '!=' for not equal)"),
    ("a card compared with a number", STOP, 'effect: "if top(deck) == 5 { rounds = 1 }"', "top(deck) ==",
     "'==' compares a card with a number: they are never equal"),
    ("a number looked for among cards", STOP, 'effect: "if 5 in deck { rounds = 1 }"', "5 in",
     "'in' looks for a number among cards; it can never be found"),
    ("order of texts", STOP, "effect: \"if 'a' < 2 { rounds = 1 }\"", "'a' <", "'<' compares numbers; this is a text"),
    ("a bool as the score", 'score: "sum(c.value for c in hand[p])"', 'score: "size(hand[p]) > 2"', "size(hand[p]) >",
     "this should be a number, but it is true/false"),
    ("true as the next player", "        - choose: [draw, stop]\n", "        - choose: [draw, stop]\n      next: \"true\"\n",
     "true\"", "this should be a player, but it is true/false"),
    ("none as the next player", "        - choose: [draw, stop]\n", "        - choose: [draw, stop]\n      next: \"none\"\n",
     "none\"", "this should be a player, but it is none"),
    ("numbers as a card parameter", "  draw:\n", "  draw:\n    params: {c: {from: \"[1, 2]\"}}\n", "[1, 2]",
     "this should be cards (a zone or a list of cards), but it is a list of numbers"),
    ("a bool as a number bound", "  draw:\n", "  draw:\n    params: {k: {number: [\"0\", \"true\"]}}\n", "true\"",
     "this should be a number, but it is true/false"),
    ("players the wrong way round", "players: [2, 3]", "players: [3, 2]", "[3, 2]",
     "players: the fewest (3) is more than the most (2); write [2, 3]"),
    ("players not whole numbers", "players: [2, 3]", "players: [2.0, 3]", "[2.0, 3]",
     "players is [FEWEST, MOST], two whole numbers such as [2, 4]"),
    ("option default not among its values", "name: Tiny", "name: Tiny\noptions:\n  width: {default: 5, values: [3, 4]}",
     "5,", "option 'width': the default 5 is not one of its values 3, 4"),
    ("initial beyond the number range", "  n: {initial: 0}", "  n: {initial: 9223372036854775808}", "922337",
     "initial value 9223372036854775808 is beyond the engine's number range (-2**63, 2**63)"),
    ("assigning to a define", STOP, 'effect: "total = 3"', "total =",
     "'total' is a define (a named expression); only variables can be assigned: declare it under variables:"),
    ("assigning to a define with arguments", STOP, 'effect: "high(top(deck)) = true"', "= true",
     "'high' is a define (a named expression); only variables can be assigned: declare it under variables:"),
    ("an unclosed '(' is reported at the '('", STOP, 'effect: |\n      rounds = (1 + 2\n      n = 3', "(1 + 2",
     "a '(' is never closed"),
    ("an unclosed '[' inside a block", STOP, 'effect: "if true { kept = [top(deck) }"', "[top",
     "a '[' is never closed"),
    ("a conditional needs else", STOP, 'effect: "rounds = 1 if true"', "true",
     "'if' in a value needs 'else': A if CONDITION else B"),
    ("the branches of a conditional", STOP, "effect: \"rounds = 1 if true else 'x'\"", "1 if",
     "'if ... else' gives a number or a text; both must be of one kind"),
    ("a key indented less than its siblings", "  rounds: {type: int}\n  had:", "  rounds: {type: int}\n had:", "had:",
     "'had' is indented by 1 space, unlike the keys before it (indented by 0 or 2): the keys of one mapping "
     "must line up"),
    ("a key indented more than its sibling", "  hand: {kind: set, per_player: true, visibility: owner}",
     "   hand: {kind: set, per_player: true, visibility: owner}", "hand:",
     "'hand' is indented by 3 spaces, unlike the keys before it (indented by 2): the keys of one mapping must "
     "line up"),
    ("len is size", STOP, 'effect: "rounds = len(deck)"', "len(", "unknown function 'len'; did you mean 'size'?"),
    ("a label names no parameter", "  draw:\n", "  draw:\n    label: \"draw {n}\"\n", "{n}",
     "'{n}' is not a parameter of this action; there are none"),
    ("a misspelt parameter in a label", "  draw:\n",
     "  draw:\n    label: \"take {crad}\"\n    params: {card: {from: deck}}\n", "{crad}",
     "'{crad}' is not a parameter of this action; did you mean 'card'?"),
    ("an expression in a label reading the state", "  draw:\n",
     "  draw:\n    label: \"take {card} of {size(deck)}\"\n    params: {card: {from: deck}}\n", "deck)",
     "'{size(deck)}': a label is built from the action's parameters, options, tables and num_players only "
     "(never the game's state, which the chooser may not know)"),
    ("a misspelt attribute in a label expression", "  draw:\n",
     "  draw:\n    label: \"take {card.valeu}\"\n    params: {card: {from: deck}}\n", "card.valeu",
     "unknown card attribute 'valeu'; did you mean 'value'?"),
    ("a card label with a wrong attribute", "    zone: deck\n", "    zone: deck\n    label: \"{valeu}\"\n", "{valeu}",
     "'{valeu}' is not an attribute of these cards; did you mean 'value'?"),
    ("the closest name, not the likest", STOP, 'effect: "plaes += 1"', "plaes", "unknown variable 'plaes'; did you mean 'plays'?"),
    # per-card marks (docs/language.md, Per-card marks)
    ("a misspelt mark", STOP, "effect: \"n = mark(top(deck), 'hnt')\"", "'hnt'", "unknown mark 'hnt'; did you mean 'hint'?"),
    ("a misspelt mark being set", STOP, "effect: \"set_mark(top(deck), 'lti', true)\"", "'lti'",
     "unknown mark 'lti'; did you mean 'lit'?"),
    ("a mark's name without quotes", STOP, 'effect: "n = mark(top(deck), hint)"', "hint)",
     "argument 2 of 'mark' is a mark's name in quotes: 'hint', 'lit'"),
    ("a number into a bool mark", STOP, "effect: \"set_mark(top(deck), 'lit', 3)\"", "3)",
     "mark 'lit' holds true/false; argument 3 of 'set_mark' should be true or false, this is a number"),
    ("a text into a number mark", STOP, "effect: \"set_mark(deck, 'hint', 'x')\"", "'x')",
     "mark 'hint' holds a number; argument 3 of 'set_mark' should be a number, this is a text"),
    ("a mark of a number", STOP, "effect: \"n = mark(3, 'hint')\"", "3, 'hint'",
     "argument 1 of 'mark' should be a card, this is a number"),
    ("a mark set on numbers", STOP, "effect: \"set_mark([1, 2], 'hint', 1)\"", "[1, 2]",
     "argument 1 of 'set_mark' should be a card, a list of cards or a zone, this is a list of numbers"),
    ("a bool mark added to a number", STOP, "effect: \"n = 1 + mark(top(deck), 'lit') + 'a'\"", "'a'",
     "'+' needs numbers; this is a text"),
    ("set_mark used as a value", STOP, "effect: \"n = set_mark(top(deck), 'hint', 1)\"", "set_mark(",
     "'set_mark(...)' is an effect; it cannot be used as a value"),
    ("a mark read as a statement", STOP, "effect: \"mark(top(deck), 'hint')\"", "mark(",
     "'mark(...)' is a value, not an effect; use it inside a statement"),
    ("a bool as a number mark's initial value", "  hint: {initial: 0}", "  hint: {initial: true}", "true}",
     "initial value of an int mark is a whole number"),
    # simultaneous choices (docs/language.md; tests/test_simultaneous.py)
    ("a misspelt action in a simultaneous step", SIM, "        - simultaneous: [drwa, stop]\n", "drwa",
     "unknown action 'drwa'; did you mean 'draw'?"),
    ("one player in a simultaneous step", SIM, "        - simultaneous: [draw, stop]\n          player: \"0\"\n",
     "player:", "'player' does not belong in a 'simultaneous' step; the choosers are 'players' (a list)"),
    ("repeat in a simultaneous step", SIM, "        - simultaneous: [draw, stop]\n          repeat: true\n",
     "repeat:", "'repeat' does not belong in a 'simultaneous' step; each listed player chooses once"),
    ("a zone as the choosers", SIM, "        - simultaneous: [draw, stop]\n          players: \"deck\"\n", "deck\"",
     "'players' is the list of the players who choose, but it is a zone"),
    ("an order reading a parameter an action lacks", SIM,
     "        - simultaneous: [draw, stop]\n          order: \"card.value\"\n", "card.value",
     "order reads 'card', which action 'draw' does not have: the order of a simultaneous step reads only "
     "parameters every listed action has (it has none)"),
    ("an order reading the game state", SIM, "        - simultaneous: [draw, stop]\n          order: \"size(deck)\"\n",
     "deck)", "the order of a simultaneous step is built from the action's parameters, options, tables and "
     "num_players only (never the game's state, which the chooser may not know)"),
    ("an order that is not a number", SIM, "        - simultaneous: [draw, stop]\n          order: \"1 == 1\"\n",
     "1 == 1", "this should be a number, but it is true/false"),
    ("then without if", SIM, "        - then: [{choose: [draw, stop]}]\n", "then:", "'then' needs 'if: CONDITION'"),
    # reaction windows (docs/language.md; tests/test_reactions.py)
    ("a misspelt response", SIM, SIM + "        - react: [stpo]\n", "stpo", "unknown action 'stpo'; did you mean 'stop'?"),
    ("one player in a window", SIM, SIM + "        - react: [stop]\n          player: \"0\"\n", "player:",
     "'player' does not belong in a 'react' step; who may respond is 'players' (a list)"),
    ("an order in a window", SIM, SIM + "        - react: [stop]\n          order: \"1\"\n", "order:",
     "'order' does not belong in a 'react' step; responses are carried out in the order of 'players', or by "
     "'priority' (a window asked at once)"),
    ("a zone as the responders", SIM, SIM + "        - react: [stop]\n          players: \"deck\"\n", "deck\"",
     "'players' is the list of the players who may respond, but it is a zone"),
    ("a window's outcome named like a variable", SIM, SIM + "        - react: [stop]\n          as: rounds\n", "rounds",
     "'rounds' cannot name a window's outcome: pick a name that is not a global name"),
    ("a window until neither first nor all", SIM, SIM + "        - react: [stop]\n          until: most\n", "most",
     "'until' of a reaction window is 'first' (the first response closes it) or 'all' (every response is carried "
     "out), not 'most'"),
    ("a window that cannot pass", SIM, SIM + "        - react: [stop]\n          if_none: error\n", "error",
     "a reaction window always offers the pass: 'if_none' is 'skip' (skip the players whose only choice is the "
     "pass) or left out (ask them too)"),
    ("a window's outcome read outside it", SIM, SIM + "        - react: [stop]\n          as: whom\n        - do: \"n = whom\"\n",
     "whom\"", "unknown name 'whom'; did you mean 'who'?"),
    # functions (docs/language.md, Functions; tests/test_functions.py)
    ("return outside a function", STOP, 'effect: "return 1"', "return", "'return' belongs in a function's body "
     "(functions:); effects end at their last statement"),
    ("an effect in a function", "functions:\n", "functions:\n  f(x): \"move(top(deck), deck); return 1\"\n", "move(",
     "a function computes a value and has no effects: 'move(...)' belongs in an effect or a named effect (effects:)"),
    ("a function assigning a variable", "functions:\n", "functions:\n  f(x): \"rounds = 1; return 1\"\n", "rounds =",
     "a function cannot change the game's variables ('rounds' is one): return the value and let an effect store it"),
    ("returns of two kinds", "functions:\n", "functions:\n  f(x): \"if x { return 1 } return 'a'\"\n", "return 'a'",
     "function 'f' gives a number on one path and a text on another: every return must give one kind"),
    ("a function with too many arguments", STOP, 'effect: "rounds = twice(1, 2)"', "twice(",
     "'twice' takes 1 argument(s), got 2"),
    ("a function with a named argument", STOP, 'effect: "rounds = twice(x=1)"', "twice(", "'twice' takes no named arguments"),
    ("a function as a value", STOP, 'effect: "rounds = twice"', "twice\"", "'twice' is a function; call it: twice(...)"),
    ("a misspelt function", STOP, 'effect: "rounds = twcie(1)"', "twcie(", "unknown function 'twcie'; did you mean 'twice'?"),
    ("a function's value into a bool", STOP, 'effect: "had[actor] = twice(1)"', "twice(1)",
     "'had' holds true/false; it cannot be given a number"),
    ("a zone family passed to a function", STOP, 'effect: "rounds = twice(hand)"', "hand)",
     "a zone family is not a value; pass one of its zones"),
    # combinatorics and keys
    ("key without a comprehension", STOP, 'effect: "rounds = max([1, 2], key=1)"', "1)\"",
     "'key=' is computed from a loop variable: write max(x for x in xs, key=x.rank)"),
    ("a key that is a card", STOP, 'effect: "cv = max(c for c in deck, key=c)"', "c)\"",
     "a key is a number or a text, this is a card"),
    ("subsets of a number", STOP, 'effect: "kept = subsets(3)"', "3)", "argument 1 of 'subsets' should be a zone or a list, this is int"),
    # team state (docs/language.md, Team state; tests/test_teams.py)
    ("a per-team variable without teams", "  plays: {initial: 0}", "  plays: {initial: 0, per_team: true}", "true}",
     "a per-team variable needs the game's teams: declare them at the top level (teams: \"p % 2\")"),
    ("team() without teams", STOP, 'effect: "rounds = team(actor)"', "team(",
     "'team' needs the game's teams: declare them at the top level (teams: \"p % 2\")"),
    ("teams read from the game state", "players: [2, 3]", "players: [2, 3]\nteams: \"size(deck)\"", "size(",
     "this cannot decide a team at set-up: a team is computed from p (the seat), num_players and options (max, "
     "min, abs, arithmetic and 'if ... else' allowed)"),
    ("team numbers with a gap", "players: [2, 3]", "players: [2, 3]\nteams: \"min(2 * p, num_players - 1)\"", "min(",
     "no player is in team 1 for 3 players and no options; the teams are numbered 0, 1, ... with no gap (teams: [0, 2])"),
    # indexing
    ("indexing a number variable", STOP, 'effect: "n = rounds[1]"', "rounds[",
     "'rounds' is not per player and not a list; it takes no index"),
]


@pytest.mark.parametrize("what,old,new,needle,message", BAD_SPECS, ids=[c[0] for c in BAD_SPECS])
def test_bad_specs_table(tmp_path, what, old, new, needle, message):
    assert old in TYPED, old
    bad = TYPED.replace(old, new, 1)
    errs, text, path = errors_of(bad, tmp_path)
    assert [e[2] for e in errs] == [message], text
    at = bad.index(needle, bad.index(new))      # the needle inside the changed text
    line = bad.count("\n", 0, at) + 1
    col = at - (bad.rfind("\n", 0, at) + 1) + 1
    assert errs[0][:2] == (line, col), text


def test_the_typed_base_spec_is_valid():
    gamespec.load_text(TYPED, "typed.yaml")


def test_a_define_that_fails_to_parse_is_reported_once(tmp_path):
    bad = TYPED.replace('total: "size(deck)"', 'total: "size(deck"').replace(
        STOP, 'effect: "rounds = total + total; n = total"')
    errs, text, _ = errors_of(bad, tmp_path)
    assert len(errs) == 1 and errs[0][3] == "rule-syntax", text


def test_a_wrong_card_attribute_in_a_define_is_reported_once(tmp_path):
    bad = TYPED.replace('high(c): "c.value > 3"', 'high(c): "c.valeu > 3"').replace(
        STOP, 'effect: "if high(top(deck)) or high(top(hand[0])) { rounds = 1 } n = count(c for c in deck if high(c))"')
    errs, text, _ = errors_of(bad, tmp_path)
    assert [e[2] for e in errs] == ["unknown card attribute 'valeu'; did you mean 'value'?"], text


# -- every independent error in one run (issue 27) ------------------------------------------------
STOPPED = 'effect: "stopped[actor] = 1"'
TYPO = 'effect: "stoped[actor] = 1"'
TWO_MISTAKES = [
    # (what, the first mistake as (old, new), the check it fires)
    ("a schema enum", ("deck: {kind: pile, visibility: hidden}", "deck: {kind: piles, visibility: hidden}"), "schema"),
    ("an unknown top-level key", ("zones:", "zonez: {}\nzones:"), "schema"),
    ("an unknown key in a zone", ("deck: {kind: pile, visibility: hidden}", "deck: {kindd: pile, visibility: hidden}"), "schema"),
    ("a duplicate key", ("name: Tiny", "name: Tiny\nname: Again"), "yaml-duplicate-key"),
    ("an unknown action in a step", ("choose: [draw, stop]", "choose: [draww, stop]"), "check"),
    ("a parse error", ('effect: "deal(deck, hand[actor])"', 'effect: "deal(deck, hand[actor]"'), "rule-syntax"),
    ("a bad size", ("count: 2}", 'count: "num_players - 5"}'), "size"),
]


@pytest.mark.parametrize("what,first,check", TWO_MISTAKES, ids=[m[0] for m in TWO_MISTAKES])
def test_two_independent_mistakes_are_both_reported_in_one_run(tmp_path, what, first, check):
    """A spec with two mistakes in different places says both at once (as a compiler does): the
    second no longer appears only after the first is fixed."""
    bad = TINY.replace(*first).replace(STOPPED, TYPO)
    assert bad.count(first[1]) == 1 and TYPO in bad
    errs, text, _ = errors_of(bad, tmp_path)
    assert len(errs) == 2, text
    assert any("unknown variable 'stoped'" in e[2] for e in errs), text
    assert any(e[3].startswith(check) for e in errs if "stoped" not in e[2]), text
    assert [(e[0], e[1]) for e in errs] == sorted((e[0], e[1]) for e in errs)      # in file order


def test_a_declaration_the_schema_refuses_is_reported_once_not_at_every_use(tmp_path):
    """The root cause once: the zone `deck` has a bad kind, and the rules that use it (shuffle, deal,
    end_if) do not each say 'unknown zone deck' as well."""
    bad = TINY.replace("deck: {kind: pile, visibility: hidden}", "deck: {kind: piles, visibility: hidden}")
    errs, text, _ = errors_of(bad, tmp_path)
    assert len(errs) == 1 and "zones.deck.kind is 'piles'" in errs[0][2], text


def test_an_unrepairable_schema_error_still_reports_alone(tmp_path):
    bad = TINY.replace("players: [2, 3]", "players: [2, three]").replace(STOPPED, TYPO)
    errs, text, _ = errors_of(bad, tmp_path)
    assert len(errs) == 1 and "players.1" in errs[0][2], text


def _fan_out(kind, levels=16):
    """2**levels copies of a small rule, in a spec of about 1.6 KB: each level uses the one below twice."""
    if kind == "effects":
        body = "effects:\n  e0(x): \"stopped[x] = 1\"\n" + "".join(
            f"  e{i}(x): \"e{i - 1}(x); e{i - 1}(x)\"\n" for i in range(1, levels + 1))
        return TINY.replace("start: play", body + "start: play").replace(STOPPED, f'effect: "e{levels}(actor)"')
    body = "define:\n  d0(x): \"x + 1\"\n" + "".join(
        f"  d{i}(x): \"d{i - 1}(x) + d{i - 1}(x)\"\n" for i in range(1, levels + 1))
    return TINY.replace("start: play", body + "start: play").replace(
        'score: "sum(c.value for c in hand[p])"', f'score: "d{levels}(1)"')


@pytest.mark.parametrize("kind", ["effects", "define"])
def test_a_fan_out_is_refused_before_it_is_expanded(tmp_path, kind, monkeypatch):
    """Named effects or defines that each use the one below twice, 16 levels deep, would be 2**16
    copies: refused from their sizes, computed before anything is inlined, with one error at the
    root cause (the first level too large), never at its callers or uses."""
    from gamespec.spec import types
    inlined = []
    real = types.clone_stmts

    def counting(stmts):
        out = real(stmts)
        inlined.append(sum(types._size(s) for s in out))
        return out
    monkeypatch.setattr("gamespec.spec.structure.clone_stmts", counting)
    monkeypatch.setattr(types, "clone_stmts", counting)
    bad = _fan_out(kind)
    assert len(bad) < 2500
    errs, text, _ = errors_of(bad, tmp_path)
    assert len(errs) == 1 and errs[0][3] == "rule-size", text
    name = errs[0][2].split("'")[1]
    level = int(name[1:])
    assert 0 < level < 16 and f"{kind if kind == 'define' else 'named effect'} '{name}' grows" in errs[0][2]
    assert errs[0][0] == line_of(bad, f"  {name}(x):")[0]
    # what was checked stayed below the bound: the levels that fit, each once
    assert sum(inlined) <= types.MAX_INLINE_NODES_RULE * 2, sum(inlined)


def test_a_fan_out_that_fits_is_accepted(tmp_path):
    g = gamespec.load_text(_fan_out("effects", levels=6), "fan.yaml")
    s = g.new_game(players=2, seed=1)
    s.apply([a for a in s.legal_actions() if a.name == "stop"][0])
    assert s.v[s.rs.var_base["stopped"]] == 1
