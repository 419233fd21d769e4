"""The checker says what the engines do (issue 36): a number compared with true/false, the kind of
max/min of texts and the built-ins that take lists of numbers, a spec's name shadowing a built-in
(in both engines, with a `check --strict` warning), and `check --strict` on the shipped games, its
CPU time bounded."""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys

import pytest

import gamespec
from gamespec.authoring import lints
from helpers import GAMES, ROOT, skip_without_cc

needs_cc = skip_without_cc()

TINY = open(os.path.join(ROOT, "tests", "specs", "tiny.yaml"), encoding="utf-8").read()
SCORE = 'score: "sum(c.value for c in hand[p])"'


def with_score(expr, head=""):
    """Tiny with `expr` added to every score (and `head` before on_begin: defines, functions)."""
    return TINY.replace(SCORE, f'score: "{expr} + sum(c.value for c in hand[p])"').replace(
        "on_begin:", head + "on_begin:", 1)


def bonus(text, backend=None, seeds=range(4)):
    """What `text` adds to every score on top of the cards' values (the same in every game)."""
    g = gamespec.load_text(text, "inline.yaml", **({"backend": backend} if backend else {}))
    plain = gamespec.load_text(TINY, "plain.yaml")
    got = set()
    for s in seeds:
        a, b = g.playouts(1, seed=s, players=2)[0], plain.playouts(1, seed=s, players=2)[0]
        got |= {x - y for x, y in zip(a.scores, b.scores)}
    assert len(got) == 1, got
    return got.pop()


def errors(text):
    with pytest.raises(gamespec.SpecErrors) as e:
        gamespec.load_text(text, "bad.yaml")
    return [str(x) for x in e.value.errors]


def at(text, needle):
    """FILE:LINE:COL of the first occurrence of needle in text."""
    for i, line in enumerate(text.splitlines(), 1):
        if needle in line:
            return f"bad.yaml:{i}:{line.index(needle) + 1}"
    raise AssertionError(needle)


# -- a number and true/false -----------------------------------------------------------------------
TRUTH = with_score("(1000 if 0 == false else 0) + (100 if 1 == true else 0) + (10 if 2 == true else 0) + "
                   "(1 if 0 != false else 0) + (20000 if true in [1, 5] else 0)")


def test_a_number_compared_with_true_or_false_validates_and_is_what_python_says():
    """Python's 0 == False: the checker refused it as 'never equal' though the engine said equal."""
    assert bonus(TRUTH) == 21100


@needs_cc
def test_a_number_compared_with_true_or_false_is_the_same_in_c():
    from gamespec.interpreter.native_engine import ST_OK
    from test_native_inline import statuses
    assert bonus(TRUTH, "native") == 21100
    assert all(st == ST_OK for st, _ in statuses(gamespec.load_text(TRUTH, "t.yaml", backend="native"), 2))


def test_a_text_compared_with_a_truth_value_is_still_never_equal():
    text = with_score("(1 if 'a' == true else 0)")
    assert f"{at(text, chr(39) + 'a' + chr(39) + ' ==')}: error: '==' compares a text with true/false: they are " \
           "never equal" in errors(text)[0]


# -- max/min of texts, lists of numbers ------------------------------------------------------------
def test_max_of_texts_is_a_text():
    text = with_score("max(['a', 'b']) + 1")
    assert errors(text) == [f"{at(text, 'max(')}: error: '+' needs numbers; this is a text"]
    text = with_score("min(['b', 'a'], default='z') + 1")
    assert errors(text) == [f"{at(text, 'min(')}: error: '+' needs numbers; this is a text"]


MAX_TEXT = with_score("(1000 if max(['a', 'b']) == 'b' else 0) + (100 if min(['b', 'c']) == 'b' else 0) + "
                      "(10 if first(sorted(['b', 'a'])) == 'a' else 0) + max([1, 2])")


def test_max_of_texts_compared_with_a_text_validates_and_is_true():
    assert bonus(MAX_TEXT) == 1112


@needs_cc
def test_max_of_texts_is_the_same_in_c():
    assert bonus(MAX_TEXT, "native") == 1112


@pytest.mark.parametrize("expr, name", [("sum(['a', 'b'])", "sum"), ("product(['a'])", "product"),
                                        ("longest_run(['a'])", "longest_run"), ("size(runs(['a']))", "runs")])
def test_builtins_of_numbers_refuse_a_list_of_texts(expr, name):
    text = with_score(expr)
    arg = expr[expr.index(name + "(") + len(name) + 1:]
    assert errors(text) == [f"{at(text, arg[:5])}: error: argument 1 of '{name}' should be a list of numbers, "
                            "this is a list of texts"]


def test_first_of_a_list_of_texts_is_a_text():
    text = with_score("first(['a']) + 1")
    assert errors(text) == [f"{at(text, 'first(')}: error: '+' needs numbers; this is a text"]


# -- a spec's name shadows a built-in --------------------------------------------------------------
SHADOW_HEAD = ('define:\n'
               '  runs(xs): "[10 * x for x in xs]"\n'
               '  max(a, b): "a if a < b else b"\n')
SHADOW = with_score("sum(runs([1, 2])) + max(7, 5) + size(others(actor)) * 0", SHADOW_HEAD)


def test_a_define_named_like_a_builtin_shadows_it():
    """`runs` (added by a later release) and `max`: the spec's defines are what runs."""
    assert bonus(SHADOW) == 30 + 5
    assert bonus(SHADOW, "closures") == 35


@needs_cc
def test_a_define_named_like_a_builtin_shadows_it_in_c():
    from gamespec.interpreter.native_engine import ST_OK
    from test_native_inline import statuses
    assert bonus(SHADOW, "native") == 35
    assert all(st == ST_OK for st, _ in statuses(gamespec.load_text(SHADOW, "s.yaml", backend="native"), 2))


FN_HEAD = ('functions:\n'
           '  range(n): "return [n, n]"\n'
           '  max(a, b): |\n'
           '    if a < b { return a }\n'
           '    return b\n')
FN = with_score("sum(range(3)) + max(7, 5) + sum([i for i in range(2)])", FN_HEAD)


@pytest.mark.parametrize("backend", ["codegen", "closures", "native"])
def test_a_function_named_like_a_builtin_shadows_it(backend):
    """No later stage takes the call for the built-in (codegen's fast paths for `range`, ...)."""
    assert bonus(FN, backend) == 6 + 5 + 4


def test_shadowing_warns_under_strict(tmp_path):
    p = tmp_path / "s.yaml"
    text = SHADOW.replace("define:\n", "functions:\n  sorted(xs): \"return xs\"\ndefine:\n", 1)
    p.write_text(text, encoding="utf-8")
    found = {f.message.split("'")[1]: f for f in lints.lint(str(p), games=1) if f.check == "shadows-builtin"}
    assert sorted(found) == ["max", "runs", "sorted"]
    for name, f in found.items():
        line = next(i for i, x in enumerate(text.splitlines(), 1) if x.startswith(f"  {name}("))
        assert (f.line, f.col) == (line, 3), name
    assert str(found["runs"]) == (f"{p}:{found['runs'].line}:3: warning: 'runs' shadows the built-in of that "
                                  "name: every call of 'runs' in this spec is the define's [shadows-builtin]")
    assert found["sorted"].message.endswith("is the function's")


def test_the_builtin_names_cannot_be_taken_and_a_value_is_not_an_effect():
    text = with_score("0", 'define:\n  players: "3"\n')
    where = at(text, 'players: "3"')
    assert errors(text) == [f"{where}: error: 'players' is already a name"]
    text = TINY.replace('effect: "stopped[actor] = 1"', 'effect: "runs([1]); stopped[actor] = 1"').replace(
        "on_begin:", 'define:\n  runs(xs): "xs"\non_begin:', 1)
    assert errors(text) == [f"{at(text, 'runs([1])')}: error: 'runs(...)' is this spec's define, a value, not "
                            "an effect; use it inside a statement"]


# -- check --strict on the shipped games -----------------------------------------------------------
def test_check_strict_on_the_shipped_games_is_fast_and_clean():
    """Its CPU time (a child's) is bounded, and it exits 0 on the shipped games: Bali's only findings
    (with the Oracle the face-down set-up offerings follow from the public supply: true deductions,
    the game's rules) are acknowledged by the spec and listed as allowed, with its reason."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    seed_games = [p for p in GAMES if os.path.basename(p) in ("bali.yaml", "bacchus.yaml", "klink.yaml")]
    r = subprocess.run([sys.executable, "-m", "gamespec", "check", "--strict", "--json"] + seed_games,   # the
                       # library's games: tests/test_library.py
                       capture_output=True, text=True, cwd=ROOT)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    assert cpu < 30, cpu
    report = json.loads(r.stdout)
    assert r.returncode == 0 and report["ok"], report
    assert [w for f in report["files"] for w in f["warnings"]] == []
    seeds = [f for f in report["files"] if os.path.basename(f["file"]) in ("bali.yaml", "bacchus.yaml", "klink.yaml")]
    allowed = {(os.path.basename(f["file"]), w["check"], w["name"]) for f in seeds for w in f["allowed"]}
    assert ("bali.yaml", "deducible-hidden", "altar") in allowed
    assert {(g, c) for g, c, _ in allowed} <= {("bali.yaml", "deducible-hidden")}, allowed
    assert all("oracle=true" in w["message"] and w["allowed"] for f in seeds for w in f["allowed"])
    assert all(w["allowed"] for f in report["files"] for w in f["allowed"])     # the library's: with a reason
