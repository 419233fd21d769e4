"""The docs cannot rot (issue 10): their Python runs, their tables match the code, the specs stand alone.

- every ```python block of README.md and docs/*.md runs as written, from the repository's root
  (a block marked ```python no-run is listed, not run: keep them few);
- what the docs say about JSON and actions is what the code does;
- docs/primitives.md's last table lists every built-in and, for each, exactly the specs whose rules
  call it (read from the parsed rules, defines expanded);
- the specs in games/ point to nothing a user of the repository cannot see.
"""
from __future__ import annotations

import dataclasses
import glob
import json
import os
import re

import pytest

import gamespec
from gamespec.spec import ast as A
from gamespec.spec.builtins import BUILTINS
from gamespec.spec.model import Rule
from helpers import GAMES, ROOT, load

DOCS = [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
TEST_SPECS = sorted(glob.glob(os.path.join(ROOT, "tests", "specs", "*.yaml")))


def _python_blocks(path):
    """(line, code, run?) of each ```python block; ```python no-run marks one that is not run."""
    text = open(path, encoding="utf-8").read()
    out = []
    for m in re.finditer(r"^```python([^\n]*)\n(.*?)^```", text, re.S | re.M):
        info = m.group(1).strip()
        assert info in ("", "no-run"), f"{path}: unknown block marker ```python {info}"
        line = text.count("\n", 0, m.start(2)) + 1
        out.append((line, m.group(2), info == ""))
    return out


SNIPPETS = [(path, line, code) for path in DOCS for line, code, run in _python_blocks(path) if run]
NOT_RUN = [(path, line) for path in DOCS for line, code, run in _python_blocks(path) if not run]


def test_the_docs_have_python_to_run():
    names = {os.path.relpath(p, ROOT) for p, _, _ in SNIPPETS}
    assert {"README.md", os.path.join("docs", "api.md")} <= names
    assert len(NOT_RUN) <= len(SNIPPETS) // 2, f"most Python in the docs is not run: {NOT_RUN}"


# What the snippets read, copied (never linked: a link to a user's file of the name a snippet writes,
# say bali.jsonl, would let the snippet overwrite it in the checkout)
SNIPPET_INPUTS = ("games", os.path.join("tests", "specs"))


def run_snippet(path, line, code, root, folder):
    """Run a doc's snippet as if from `root`, in `folder`: the inputs it reads are copies there."""
    import shutil
    for sub in SNIPPET_INPUTS:
        shutil.copytree(os.path.join(root, sub), os.path.join(folder, sub))
    here = os.getcwd()
    os.chdir(folder)
    try:
        # compiled under the doc's name, shifted to its line: a failure points into the doc
        exec(compile("\n" * (line - 1) + code, path, "exec"), {"__name__": "__doc_snippet__"})
    finally:
        os.chdir(here)


@pytest.mark.parametrize("path,line,code", SNIPPETS,
                         ids=[f"{os.path.relpath(p, ROOT)}:{n}" for p, n, _ in SNIPPETS])
def test_python_snippet_runs(path, line, code, tmp_path):
    run_snippet(path, line, code, ROOT, tmp_path)


def test_a_snippet_never_writes_into_the_folder_it_reads(tmp_path):
    """A user's study in the checkout (bali.jsonl, report.html: the names docs/api.md's snippet
    writes) survives the docs test: a stand-in root holds them, the snippet runs, they are unchanged."""
    root = tmp_path / "root"
    for sub in SNIPPET_INPUTS:
        import shutil
        shutil.copytree(os.path.join(ROOT, sub), root / sub)
    mine = {"bali.jsonl": "my 12,000-game study\n", "report.html": "<p>my report</p>\n"}
    for name, text in mine.items():
        (root / name).write_text(text)
    writes = [(p, n, c) for p, n, c in SNIPPETS if "bali.jsonl" in c]
    assert writes, "no snippet writes bali.jsonl any more: pick the snippet this test guards"
    for p, n, c in writes:
        run_snippet(p, n, c, str(root), tmp_path / "run")
    assert {name: (root / name).read_text() for name in mine} == mine
    assert (tmp_path / "run" / "bali.jsonl").is_file()       # the snippet wrote its own, where it ran


def test_docs_say_how_actions_become_json():
    state = gamespec.load(os.path.join(ROOT, "games", "bali.yaml")).new_game(players=3, seed=7)
    with pytest.raises(TypeError):
        json.dumps(state.legal_actions())          # an Action is not JSON ...
    json.dumps([a.to_json() for a in state.legal_actions()])   # ... its to_json() is
    for path in DOCS:
        for n, text in enumerate(open(path, encoding="utf-8"), 1):
            if "legal_actions()" in text and "json" in text.lower():
                assert "to_json()" in text, f"{path}:{n} says actions are JSON without to_json(): {text}"


# ------------------------------------------------------------------------------ primitives table
def _rules(obj, seen):
    if id(obj) in seen:
        return
    seen.add(id(obj))
    if isinstance(obj, Rule):
        yield obj
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            if f.name not in ("graph", "checker"):
                yield from _rules(getattr(obj, f.name), seen)
    elif isinstance(obj, dict):
        for v in obj.values():
            yield from _rules(v, seen)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            yield from _rules(v, seen)


def _calls(path):
    out = set()
    for r in _rules(load(path).spec, set()):
        for node in r.ast if isinstance(r.ast, list) else [r.ast]:
            out |= {x.func for x in A.walk(node) if isinstance(x, A.Call)}
    return out


def _table():
    text = open(os.path.join(ROOT, "docs", "primitives.md"), encoding="utf-8").read()
    head = "## Where each built-in is used"
    assert head in text, "docs/primitives.md has no table of where each built-in is used"
    rows = {}
    for m in re.finditer(r"^\| `(\w+)\(\)` \| ([^|]*) \| ([^|]*) \|$", text[text.index(head):], re.M):
        rows[m.group(1)] = tuple(tuple(sorted(x.strip() for x in m.group(c).split(",") if x.strip() != "-"))
                                 for c in (2, 3))
    return rows


def test_primitives_table_covers_every_builtin():
    rows = _table()
    assert sorted(rows) == sorted(BUILTINS)


def test_primitives_table_says_which_spec_uses_each():
    rows = _table()
    games = {p: _calls(p) for p in GAMES}
    tests = {p: _calls(p) for p in TEST_SPECS}

    def users(specs, name):
        return tuple(sorted(os.path.basename(p)[:-5] for p, calls in specs.items() if name in calls))

    for name in BUILTINS:
        want = (users(games, name), users(tests, name))
        assert rows.get(name) == want, \
            f"docs/primitives.md: expected the row | `{name}()` | {', '.join(want[0]) or '-'} | " \
            f"{', '.join(want[1]) or '-'} |"


# ------------------------------------------------------------------------------ games stand alone
@pytest.mark.parametrize("path", GAMES, ids=[os.path.basename(p) for p in GAMES])
def test_game_spec_points_to_nothing_unseen(path):
    text = open(path, encoding="utf-8").read()
    assert "shared/" not in text
    assert "digest" not in text.lower()      # the rules digest those comments pointed to


# ------------------------------------------------------------------------------ the map of the tests
def test_the_tests_map_names_every_test_file():
    """tests/README.md is the map of the test files: each one has its row, and no row names a file
    that is gone."""
    text = open(os.path.join(ROOT, "tests", "README.md"), encoding="utf-8").read()
    named = set(re.findall(r"`(test_\w+\.py)`", text))
    files = {os.path.basename(p) for p in glob.glob(os.path.join(ROOT, "tests", "test_*.py"))}
    assert not files - named, f"tests/README.md has no row for {sorted(files - named)}"
    assert not named - files, f"tests/README.md names missing files {sorted(named - files)}"


# ------------------------------------------------------------------------------ idioms' fragments
EXPR_KEYS = {"if", "players", "end_if", "score", "teams", "where", "order"}
EFFECT_KEYS = {"do", "effect", "on_end", "on_begin"}


def _rules_in(node, key=None, under=None):
    """(kind, text) of every rule string of a YAML fragment, by the key it sits under."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _rules_in(v, k, key)
    elif isinstance(node, list):
        for v in node:
            yield from _rules_in(v, key, under)
    elif isinstance(node, str) and node != "...":
        if key in EXPR_KEYS or key == "tie_breakers":
            yield "expr", node
        elif key in EFFECT_KEYS or under in ("functions", "effects"):
            yield "effects", node


def test_the_idioms_fragments_are_yaml_whose_rules_parse():
    """docs/idioms.md shows excerpts of specs (`[...]` stands for the rest): each is YAML, and each rule
    in it parses with the grammar (the complete specs in tests/specs/ are checked whole elsewhere)."""
    import yaml
    from gamespec.spec.parser import Located, parse
    text = open(os.path.join(ROOT, "docs", "idioms.md"), encoding="utf-8").read()
    blocks = re.findall(r"^```yaml\n(.*?)^```", text, re.S | re.M)
    assert len(blocks) >= 4
    parsed = 0
    for block in blocks:
        data = yaml.safe_load(block)
        for kind, rule in _rules_in(data):
            parse(Located(rule, "docs/idioms.md", None, "rule"), kind)
            parsed += 1
    assert parsed >= 15, parsed
