"""gamespec schema / new / explain / check --strict, the games' modelines and the tutorial's specs."""
import glob
import json
import os
import random

import pytest

import gamespec
from gamespec.authoring import lints
from gamespec.authoring.rulebook import explain, golden_specs
from gamespec.authoring.starters import TEMPLATES
from gamespec.cli import main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GAMES = sorted(glob.glob(os.path.join(ROOT, "games", "*.yaml")))
TUTORIAL = sorted(glob.glob(os.path.join(ROOT, "docs", "tutorial", "step*.yaml")))


def _play_all(game, seeds=3):
    for n in range(game.min_players, game.max_players + 1):
        for opts in game.option_sets():
            for seed in range(seeds):
                s = game.new_game(players=n, seed=seed, options=opts)
                rng = random.Random(seed)
                while not s.is_terminal:
                    s.apply(rng.choice(s.legal_actions()))
                assert len(s.scores) == n and s.winners


# ---- editor support ----------------------------------------------------------------------------
def test_schema_command_prints_the_spec_schema(capsys):
    from gamespec.authoring.editor_schema import editor_schema
    assert main(["schema"]) == 0
    assert json.loads(capsys.readouterr().out) == editor_schema("2020-12")
    assert main(["schema", "--draft", "7"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out == editor_schema("7") and "definitions" in out and "$defs" not in out
    assert main(["schema", "--format", "observation"]) == 0
    assert "observation" in json.loads(capsys.readouterr().out)["$id"]


@pytest.mark.parametrize("path", GAMES + TUTORIAL, ids=os.path.basename)
def test_spec_starts_with_a_modeline_to_the_schema(path):
    """The modeline names the draft-07 form with every key's hover text (what yaml-language-server
    reads; gamespec/schema.json is the checker's draft 2020-12 form, without that text)."""
    with open(path, encoding="utf-8") as f:
        first = f.readline()
    assert first.startswith("# yaml-language-server: $schema=")
    target = os.path.normpath(os.path.join(os.path.dirname(path), first.split("$schema=", 1)[1].strip()))
    assert target == os.path.join(ROOT, "gamespec", "authoring", "schemas", "spec.draft-07.json")
    with open(target, encoding="utf-8") as f:
        assert json.load(f)["$schema"].startswith("http://json-schema.org/draft-07/")


# ---- gamespec new ------------------------------------------------------------------------------
@pytest.mark.parametrize("template", list(TEMPLATES))
def test_new_writes_a_commented_starter_that_validates_and_runs(template, tmp_path, capsys):
    out = tmp_path / "my-game"
    assert main(["new", str(out), "--from", template]) == 0
    path = tmp_path / "my-game.yaml"
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# yaml-language-server: $schema=")
    schema = os.path.normpath(os.path.join(tmp_path, text.splitlines()[0].split("$schema=")[1]))
    assert schema == str(tmp_path / "gamespec.schema.json")
    from gamespec.authoring.editor_schema import editor_schema_text
    assert open(schema, encoding="utf-8").read() == editor_schema_text("7")    # what yaml-language-server reads
    assert text.count("\n#") + text.count("  # ") >= 5, "a starter explains itself in comments"
    assert "$TITLE" not in text and "name: My Game" in text
    assert main(["validate", str(path)]) == 0
    _play_all(gamespec.load(str(path)))
    assert main(["new", str(out), "--from", template]) == 2          # never overwrites
    assert "exists" in capsys.readouterr().err


def test_new_writes_the_schema_beside_the_spec_not_into_the_venv(tmp_path, capsys):
    """Issue 27: the modeline pointed into site-packages and broke when the virtualenv moved. It
    names gamespec.schema.json beside the spec, which moves with the folder."""
    import json
    import shutil
    folder = tmp_path / "project"
    folder.mkdir()
    assert main(["new", str(folder / "one"), "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["schema"] == str(folder / "gamespec.schema.json") and r["schema_status"] == "written"
    first = (folder / "one.yaml").read_text(encoding="utf-8").splitlines()[0]
    assert first == "# yaml-language-server: $schema=gamespec.schema.json"
    assert "site-packages" not in first and ".venv" not in first
    moved = shutil.copytree(folder, tmp_path / "elsewhere" / "moved")   # the folder moves: still found
    assert json.loads((moved / "gamespec.schema.json").read_text())["$id"].endswith("/spec.json")
    assert main(["validate", str(moved / "one.yaml")]) == 0
    capsys.readouterr()
    # a second spec shares it; an older gamespec schema is refreshed; another file is left alone
    assert main(["new", str(folder / "two")]) == 0
    assert "up to date" in capsys.readouterr().out
    (folder / "gamespec.schema.json").write_text(json.dumps({"$id": "https://gamespec.dev/schema/spec.json"}))
    assert main(["new", str(folder / "three")]) == 0
    assert "refreshed" in capsys.readouterr().out
    assert (folder / "gamespec.schema.json").read_text() == (moved / "gamespec.schema.json").read_text()
    (folder / "gamespec.schema.json").write_text("my notes\n")
    assert main(["new", str(folder / "four")]) == 0
    assert "is not a gamespec schema and was left alone" in capsys.readouterr().err
    assert (folder / "gamespec.schema.json").read_text() == "my notes\n"


def test_new_unknown_template_is_a_usage_error(tmp_path, capsys):
    assert main(["new", str(tmp_path / "x"), "--from", "trick-taker"]) == 2
    err = capsys.readouterr().err
    assert "unknown template 'trick-taker'; did you mean 'trick-taking'?" in err
    assert not os.path.exists(tmp_path / "x.yaml")


def test_new_help_lists_every_template(capsys):
    assert main(["new", "--help"]) == 0
    out = capsys.readouterr().out
    from gamespec.authoring.starters import DEFAULT_TEMPLATE
    for t, what in TEMPLATES.items():
        assert f"  {t:<15} {what}" in out
    assert f"{DEFAULT_TEMPLATE} (default)" in out


# ---- the tutorial ------------------------------------------------------------------------------
@pytest.mark.parametrize("path", TUTORIAL, ids=os.path.basename)
def test_tutorial_step_validates_and_runs(path):
    assert main(["validate", path]) == 0
    _play_all(gamespec.load(path))


def test_tutorial_has_its_steps_in_order():
    assert [os.path.basename(p) for p in TUTORIAL] == [f"step{i}.yaml" for i in range(1, len(TUTORIAL) + 1)]
    with open(os.path.join(ROOT, "docs", "tutorial.md"), encoding="utf-8") as f:
        doc = f.read()
    for p in TUTORIAL:
        assert f"tutorial/{os.path.basename(p)}" in doc


# ---- gamespec explain --------------------------------------------------------------------------
@pytest.mark.parametrize("name,path", golden_specs(ROOT), ids=lambda x: os.path.basename(x))
def test_explain_matches_the_golden_file(name, path):
    """Regenerate after an intended change: python -m gamespec.authoring.rulebook --write-golden"""
    assert len(golden_specs(ROOT)) >= 3
    text = explain(gamespec.load(path))
    with open(os.path.join(ROOT, "tests", "golden", f"{name}.md"), encoding="utf-8") as f:
        assert text == f.read(), f"tests/golden/{name}.md differs; regenerate if intended"


def test_explain_follows_players_and_options(capsys):
    bali = os.path.join(ROOT, "games", "bali.yaml")
    assert main(["explain", bali, "--players", "3", "--option", "oracle=true"]) == 0
    md = capsys.readouterr().out
    assert "| oracle | oracle | - | 8 |" in md and "**3 players**" in md
    assert main(["explain", bali]) == 0
    assert "| oracle | oracle |" not in capsys.readouterr().out       # no oracles without the option
    assert main(["explain", bali, "--format", "html"]) == 0
    html = capsys.readouterr().out
    assert html.startswith("<!DOCTYPE html>") and "<table>" in html and "<script" not in html
    assert main(["explain", bali, "--players", "9"]) == 2


def test_explain_puts_every_action_and_the_scoring_in_words():
    game = gamespec.load(os.path.join(ROOT, "games", "bacchus.yaml"))
    md = explain(game)
    for a in game.spec.actions:
        assert f"(*{a}*)" in md
    assert "the number of cards in *action_deck* is more than 0" in md     # draw's condition
    assert "Each player p scores" in md and "The highest score wins." in md
    assert md.index("### Table *kidnap_points*") > md.index("## Scoring")    # a scoring table
    assert "| maenad | yellow satyr maenad | symbol satyr, colour yellow | 3 |" in md


# ---- gamespec check --strict -------------------------------------------------------------------
def _lint_text(tmp_path, text):
    p = tmp_path / "spec.yaml"
    p.write_text(text, encoding="utf-8")
    return [(f.check, f.message) for f in lints.lint(str(p), games=2)]


BASE = """\
name: Lint
players: [2, 3]
options:
  fast: {default: false}
cards:
  n: {zone: deck, faces: [{each: {rank: [1, 2, 3]}, count: 4}]}
zones:
  deck: {kind: pile, visibility: hidden}
  hand: {kind: set, per_player: true, visibility: owner}
  pile: {kind: pile, visibility: public}
  box: {kind: set, visibility: hidden}
variables:
  points: {per_player: true}
  spare: {initial: 0}
  written: {initial: 0, visibility: hidden}
  shown: {initial: 0}
define:
  twice(x): "2 * x"
  unused(x): "3 * x"
on_begin: "shuffle(deck); for p in players { deal(deck, hand[p], 3) }"
end_if: "all(size(hand[q]) == 0 for q in players)"
phases:
  play:
    turn: {steps: [{choose: [play]}]}
actions:
  play:
    params: {card: {from: "hand[actor]"}}
    effect: "move(card, pile); points[actor] += twice(card.rank); written = 1; shown = 1"
  never:
    effect: "points[actor] += 1"
scoring: {score: "points[p]"}
"""


def test_lints_find_what_is_unused(tmp_path):
    found = _lint_text(tmp_path, BASE)
    checks = {(c, m.split("'")[1]) for c, m in found}
    assert ("unused-zone", "box") in checks
    assert ("unused-variable", "spare") in checks and ("unused-variable", "written") in checks
    assert ("unused-define", "unused") in checks and ("unused-define", "twice") not in checks
    assert ("action-never-offered", "never") in checks and ("action-never-offered", "play") not in checks
    assert ("option-no-effect", "fast") in checks
    assert not any(n in ("deck", "hand", "pile", "points", "play", "shown") for _, n in checks)
    assert "set but never read" in [m for c, m in found if c == "unused-variable" and "'written'" in m][0]


def test_lints_quiet_when_everything_is_used(tmp_path):
    text = BASE.replace("  box: {kind: set, visibility: hidden}\n", "").replace(
        "  spare: {initial: 0}\n  written: {initial: 0, visibility: hidden}\n", "").replace('  unused(x): "3 * x"\n', "").replace(
        "; written = 1; shown = 1", "; shown = 1").replace("  never:\n    effect: \"points[actor] += 1\"\n", "").replace(
        "deal(deck, hand[p], 3)", "deal(deck, hand[p], 3); if fast { deal(deck, pile, 1) }")
    assert [c for c, _ in _lint_text(tmp_path, text) if c != "deducible-hidden"] == []


FACE_DOWN = """\
name: FaceDown
players: [2, 2]
cards:
  gem: {zone: "supply[it.colour]", faces: [{each: {colour: [red, blue]}, count: 3}]}
  coin: {zone: bank, faces: [{count: 4}]}
zones:
  supply: {kind: pile, keys: [red, blue], visibility: public}
  pool: {kind: pile, visibility: hidden}
  bank: {kind: pile, visibility: hidden}
  vault: {kind: pile, visibility: public}
  purse: {kind: set, per_player: true, visibility: owner}
variables:
  done: {per_player: true, type: bool}
on_begin: |
  for q in players { deal(bank, purse[q], 1) }
  for k in indices(supply) { move(supply[k], pool) }
  shuffle(pool)
  deal(pool, vault, 1, face='down')
  for c in pool { move(c, supply[c.colour]) }
end_if: "all(done[q] for q in players)"
phases:
  play:
    turn: {steps: [{choose: [hide]}]}
actions:
  hide:
    params: {c: {zone: supply, where: "size(supply[c]) > 0"}}
    effect: "move(top(supply[c]), vault, face='down'); done[actor] = true"
scoring: {score: "0"}
"""


def test_deducible_hidden_finds_a_face_down_card_given_away_by_a_public_supply(tmp_path):
    found = _lint_text(tmp_path, FACE_DOWN)
    msgs = [m for c, m in found if c == "deducible-hidden"]
    assert len(msgs) == 1 and "'vault'" in msgs[0], found
    # the coins in the purses and the bank are not deducible: two zones share them
    assert not any("purse" in m or "bank" in m for m in msgs)


def test_deducible_hidden_stays_quiet_when_two_hidden_zones_may_hold_the_cards(tmp_path):
    # the random gem may now also go into a purse: two hidden zones may hold gems
    text = FACE_DOWN.replace("deal(pool, vault, 1, face='down')",
                             "deal(pool, vault, 1, face='down'); deal(pool, purse[0], 1)")
    found = _lint_text(tmp_path, text)
    assert not [m for c, m in found if c == "deducible-hidden"], found


PEEK = """\
name: Peek
players: [2, 2]
cards:
  n: {zone: deck, faces: [{each: {rank: [1, 2, 3, 4, 5, 6]}, count: 2}]}
zones:
  deck: {kind: pile, visibility: hidden}
  hand: {kind: set, per_player: true, visibility: owner}
  pile: {kind: pile, visibility: public}
variables:
  pot: {initial: 0, visibility: hidden}
on_begin: "shuffle(deck); for p in players { deal(deck, hand[p], 3) }; pot = top(deck).rank"
end_if: "all(size(hand[q]) == 0 for q in players)"
phases:
  play:
    turn: {steps: [{choose: [take, play, bet]}]}
actions:
  take:
    params: {card: {from: "hand[next_player(actor)]"}}
    effect: "move(card, pile)"
  play:
    params: {card: {from: "hand[actor]"}}
    effect: "move(card, pile)"
  bet:
    if: "size(deck) > 5"
    effect: "deal(deck, pile, 1)"
scoring: {score: "size(hand[p]) + pot"}
"""


def test_choice_reveals_hidden_is_quiet_when_conditions_read_only_what_the_chooser_sees(tmp_path):
    found = _lint_text(tmp_path, PEEK)
    assert not [m for c, m in found if c == "choice-reveals-hidden"], found


@pytest.mark.parametrize("change, action", [
    # a parameter's where reads the face of a card in another player's hidden hand
    (('{from: "hand[next_player(actor)]"}', '{from: "hand[next_player(actor)]", where: "card.rank > 3"}'), "take"),
    # an action's if reads a hidden variable
    (('if: "size(deck) > 5"', 'if: "pot > 3"'), "bet"),
])
def test_choice_reveals_hidden_finds_a_condition_reading_what_the_chooser_cannot_see(tmp_path, change, action):
    found = _lint_text(tmp_path, PEEK.replace(*change))
    msgs = [m for c, m in found if c == "choice-reveals-hidden"]
    assert len(msgs) == 1 and f"'{action}'" in msgs[0] and "witness: 2 players, seed" in msgs[0], found


def test_choice_reveals_hidden_finds_a_condition_reading_a_hidden_mark(tmp_path):
    """A hidden mark read by a condition is found from the rules alone (no sampled game needed)."""
    text = PEEK.replace("variables:", "marks:\n  sealed: {type: bool, visibility: hidden}\nvariables:").replace(
        '{from: "hand[actor]"}', '{from: "hand[actor]", where: "not mark(card, \'sealed\')"}')
    found = _lint_text(tmp_path, text)
    msgs = [m for c, m in found if c == "choice-reveals-hidden"]
    assert len(msgs) == 1 and "'play'" in msgs[0] and "hidden mark 'sealed'" in msgs[0], found
    quiet = text.replace("sealed: {type: bool, visibility: hidden}", "sealed: {type: bool, visibility: public}")
    assert not [m for c, m in _lint_text(tmp_path, quiet) if c == "choice-reveals-hidden"]


def test_zone_classes_over_approximate_the_moves():
    game = gamespec.load(os.path.join(ROOT, "games", "bali.yaml"))
    may = lints.zone_classes(game.spec)
    assert may["altar"] == {"offering"}
    assert may["stock"] == {"offering"}
    assert {"stonemason", "priest", "shrine", "farmer", "oracle"} <= may["hand"]


def test_check_strict_on_the_three_games(capsys):
    """The lint results reported to the coordinator (the games' rules are not changed here); the
    library's games: tests/test_library.py."""
    seeds = [os.path.join(ROOT, "games", f"{n}.yaml") for n in ("bacchus", "bali", "klink")]
    assert main(["check", "--json"] + seeds) == 0
    capsys.readouterr()
    assert main(["check", "--strict", "--json"] + seeds) == 0
    files = json.loads(capsys.readouterr().out)["files"]
    report = {os.path.basename(f["file"]): [(w["check"], w["message"].split("'")[1]) for w in f["warnings"]]
              for f in files}
    allowed = {os.path.basename(f["file"]): [(w["check"], w["name"]) for w in f["allowed"]] for f in files}
    assert report == {"bacchus.yaml": [], "klink.yaml": [], "bali.yaml": []}
    # 'rounds' in Klink is only written, but players see it; Bali's define sole_farmers was unused and is gone
    assert allowed["bacchus.yaml"] == allowed["klink.yaml"] == []
    assert ("deducible-hidden", "altar") in allowed["bali.yaml"]     # the Oracle's 4 face-down offerings


def test_a_spec_acknowledges_a_finding_with_its_reason(tmp_path, capsys):
    """`lints: {allow: [{rule, name, why}]}`: the finding is listed as allowed with the reason, no
    longer a warning; a name narrows it to one finding; an entry matching nothing is a warning."""
    p = tmp_path / "spec.yaml"
    p.write_text(BASE, encoding="utf-8")
    assert main(["check", "--strict", "--lint-games", "0", "--json", str(p)]) == 1
    before = json.loads(capsys.readouterr().out)["files"][0]["warnings"]
    assert ("unused-zone", "box") in {(w["check"], w["name"]) for w in before}
    allow = ("lints:\n  allow:\n    - {rule: unused-zone, name: box, why: \"the box is only drawn\"}\n"
             "    - {rule: unused-define, why: \"kept for a variant\"}\n")
    p.write_text(BASE + allow, encoding="utf-8")
    code = main(["check", "--strict", "--lint-games", "0", "--json", str(p)])
    entry = json.loads(capsys.readouterr().out)["files"][0]
    assert {(w["check"], w["name"], w["allowed"]) for w in entry["allowed"]} == {
        ("unused-zone", "box", "the box is only drawn"), ("unused-define", "unused", "kept for a variant")}
    left = {(w["check"], w["name"]) for w in entry["warnings"]}
    assert left == {(w["check"], w["name"]) for w in before} - {("unused-zone", "box"), ("unused-define", "unused")}
    assert code == (1 if left else 0)
    main(["check", "--strict", "--lint-games", "0", str(p)])
    err = capsys.readouterr().err
    assert ": allowed: zone 'box' is never used" in err and "(the spec says: the box is only drawn)" in err
    # stale: nothing to allow
    p.write_text(BASE + allow.replace("name: box", "name: bxo"), encoding="utf-8")
    main(["check", "--strict", "--lint-games", "0", "--json", str(p)])
    entry = json.loads(capsys.readouterr().out)["files"][0]
    stale = [w for w in entry["warnings"] if w["check"] == "allow-unused"]
    line = (BASE + allow).splitlines().index("    - {rule: unused-zone, name: box, why: \"the box is only drawn\"}") + 1
    assert len(stale) == 1 and "no unused-zone about 'bxo' finding" in stale[0]["message"], stale
    assert stale[0]["line"] == line
    # a rule that does not exist is an error at its place, like every other key
    p.write_text(BASE + allow.replace("rule: unused-zone", "rule: unused-zoen"), encoding="utf-8")
    assert main(["check", "--strict", str(p)]) == 1
    assert "unused-zoen" in capsys.readouterr().err


def test_the_schema_names_every_lint_an_acknowledgement_may_allow():
    """One table of lints (gamespec/authoring/lints.py CHECKS): the schema's enum of allow.rule is it."""
    from gamespec.authoring.lints import CHECKS
    with open(os.path.join(ROOT, "gamespec", "schema.json"), encoding="utf-8") as f:
        enum = json.load(f)["$defs"]["allow"]["properties"]["rule"]["enum"]
    assert sorted(enum) == sorted(CHECKS)


def test_check_prints_warnings_at_their_declaration_and_errors_like_validate(tmp_path, capsys):
    p = tmp_path / "spec.yaml"
    p.write_text(BASE, encoding="utf-8")
    assert main(["check", str(p)]) == 0                   # without --strict: validate only
    assert capsys.readouterr().out.strip() == f"{p}: ok"
    assert main(["check", "--strict", "--lint-games", "0", str(p)]) == 1
    err = capsys.readouterr().err.splitlines()
    box_line = BASE.splitlines().index("  box: {kind: set, visibility: hidden}") + 1
    assert f"{p}:{box_line}:3: warning: zone 'box' is never used by any rule" in err[0] or \
        any(line.startswith(f"{p}:{box_line}:3: warning: zone 'box'") for line in err)
    assert all(": warning: " in line and line.endswith("]") for line in err)
    p.write_text(BASE.replace("move(card, pile)", "move(card, piel)"), encoding="utf-8")
    assert main(["check", "--strict", str(p)]) == 1
    err = capsys.readouterr().err
    assert "error: unknown name 'piel'; did you mean 'pile'?" in err and ": warning:" not in err


def test_explain_shows_a_construct_it_has_no_phrase_for_instead_of_dropping_it():
    from gamespec.spec import ast as A
    from gamespec.authoring.rulebook import Words
    game = gamespec.load(os.path.join(ROOT, "games", "klink.yaml"))

    class Ternary(A.Node):          # stands for a construct added to the grammar later
        def __init__(self, *parts):
            super().__init__(1, 1)
            self.parts = list(parts)

    w = Words(game.spec)
    text = w.e(Ternary(A.Name(1, 1, id="current"), A.Const(1, 1, value=3)))
    assert text == "`Ternary`(the current player; 3)"


def _sample_node(cls):
    """An instance of AST class `cls` with small, valid parts (a comprehension, a call, ...)."""
    from gamespec.spec import ast as A
    x, one = A.Name(1, 1, id="x"), A.Const(1, 1, value=1)
    samples = {
        "Const": dict(value=3), "Name": dict(id="current"), "ListLit": dict(items=[one]),
        "Comp": dict(elt=x, var="x", iter=A.Name(1, 1, id="players"), cond=None), "Call": dict(func="abs", args=[one]),
        "Index": dict(obj=A.Name(1, 1, id="players"), index=one), "Attr": dict(obj=x, name="rank"),
        "BinOp": dict(op="+", left=one, right=one), "Compare": dict(op="<", left=one, right=one),
        "BoolOp": dict(op="and", left=one, right=one), "IfExp": dict(cond=one, body=one, orelse=x),
        "Unary": dict(op="-", operand=one), "Let": dict(name="y", value=one),
        "Assign": dict(target=A.Name(1, 1, id="y"), op="+=", value=one), "Return": dict(value=one),
        "CallStmt": dict(call=A.Call(1, 1, func="shuffle", args=[A.Name(1, 1, id="deck")])),
        "If": dict(branches=[(one, [])], orelse=[]), "For": dict(var="x", iter=A.Name(1, 1, id="players"), body=[]),
        "While": dict(cond=one, body=[]),
    }
    assert cls.__name__ in samples, f"no sample for the AST class {cls.__name__}: add one here"
    return cls(1, 1, **samples[cls.__name__])


def test_explain_has_words_for_every_construct_of_the_language_and_every_visibility():
    """Every AST class (gamespec/spec/ast.py), every built-in, every visibility and every kind of step
    is said in words: a construct added without words fails here (the fallback shows it as code)."""
    import inspect

    from gamespec.authoring.rulebook import Words
    from gamespec.spec import ast as A
    from gamespec.spec.builtins import TABLE
    from gamespec.spec.visibility import TABLE as VIS
    game = gamespec.load(os.path.join(ROOT, "tests", "specs", "bluff.yaml"))
    w = Words(game.spec)
    classes = [c for _, c in inspect.getmembers(A, inspect.isclass) if issubclass(c, A.Node) and c is not A.Node]
    statements = {"Let", "Assign", "Return", "CallStmt", "If", "For", "While"}
    assert statements < {c.__name__ for c in classes}
    for cls in classes:
        node = _sample_node(cls)
        if cls.__name__ in statements:
            text = json.dumps(w.stmt(node))
        else:
            text = w.e(node)
        assert f"`{cls.__name__}`(" not in text and "`" not in text, (cls.__name__, text)   # not the fallback
    # every built-in function has words (an aggregate's, or its one- or two-argument form)
    for b in TABLE:
        assert b.words or b.words2 or b.agg_words, f"built-in {b.name} has no words for explain"
    # every visibility is said in words, not by its name
    for v in VIS:
        assert v.words and v.words != v.name and "_" not in v.words, v.name
    md = explain(gamespec.load(os.path.join(ROOT, "tests", "specs", "facing.yaml")))
    assert "all_but_owner" not in md and "everyone but its owner" in md
    # every kind of step: a reaction window, nested, and its outcome
    md = explain(game)
    assert "A chance to respond" in md and "If someone responded:" in md and "If nobody did:" in md
    assert "*challenger* is the player who responded" in md
    for spec in ("bluff", "snap", "melds", "fifteens", "bags", "tens"):
        md = explain(gamespec.load(os.path.join(ROOT, "tests", "specs", f"{spec}.yaml")), players=4 if spec == "bags" else None)
        assert "`" not in md.replace("```", ""), (spec, [ln for ln in md.splitlines() if "`" in ln][:3])
