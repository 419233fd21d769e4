"""The parser's LALR tables ship as plain JSON beside the grammar: nothing is unpickled, nothing is
read from or written to a user cache directory, and the shipped tables are what the grammar builds."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import lark

from gamespec.spec import parser as P

ROOT = Path(__file__).resolve().parent.parent
TABLES = ROOT / "grammar" / P.TABLES_FILE
CORPUS = ["x = f(1) + 2; if a { b = [c for c in d if e] } else { move(top(deck), hand[actor]) }",
          "let n = size(xs) * 2 - 1", "for p in others(current) { score[p] += 1 }",
          "while size(deck) > 0 { deal(deck, pile) }"]
EXPRS = ["not a in b or c not in d", "sum(c.value for c in hand[p] if c.suit == 'x')",
         "max(1, 2, default=3) ** 2 // -x % 4", "[1, 2][0] != none and true"]


def test_shipped_tables_are_built_from_this_grammar():
    stored = json.loads(TABLES.read_text(encoding="utf-8"))
    # the grammar changed without `python -m gamespec.grammar`: the tables would be ignored
    assert stored["grammar_sha256"] == P._sha(P.grammar_text()), "run: python -m gamespec.grammar"
    if stored["lark"] == lark.__version__:
        assert TABLES.read_text(encoding="utf-8") == P.build_tables(), "run: python -m gamespec.grammar"


def test_building_the_tables_is_deterministic():
    # Lark numbers states by set iteration order; the canonical renumbering makes the file stable
    code = "import sys; from gamespec.spec.parser import build_tables; sys.stdout.write(build_tables())"
    outs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env=dict(os.environ, PYTHONHASHSEED=str(seed))).stdout for seed in (1, 2)}
    assert len(outs) == 1


def test_the_parser_comes_from_the_tables_and_parses_like_a_built_one(monkeypatch):
    built = lark.Lark(P.grammar_text(), **P.LARK_OPTIONS)

    class NoBuild(lark.Lark):
        def __init__(self, *a, **k):
            raise AssertionError("the parser was built instead of loaded from the shipped tables")

    P._parser.cache_clear()
    monkeypatch.setattr(P, "Lark", NoBuild)
    try:
        loaded = P._parser()
    finally:
        P._parser.cache_clear()
    for text in CORPUS:
        assert loaded.parse(text, start="start_effects") == built.parse(text, start="start_effects")
    for text in EXPRS:
        assert loaded.parse(text, start="start_expr") == built.parse(text, start="start_expr")


def test_no_user_cache_is_read_or_written(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    env = dict(os.environ, HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"))
    r = subprocess.run([sys.executable, "-m", "gamespec", "validate", str(ROOT / "tests" / "specs" / "tiny.yaml")],
                       env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert list(home.rglob("*")) == []
    src = Path(P.__file__).read_text(encoding="utf-8")
    assert "import pickle" not in src and "cache=" not in src
