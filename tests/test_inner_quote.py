"""A quote of a value's own kind inside it (`if: "x == "a""`) is reported as that, at the inner quote,
not as an indentation problem (gamespec/spec/yamlsafe.py, _inner_quote)."""
from __future__ import annotations

import pytest

from gamespec.errors import SpecError
from gamespec.spec.yamlsafe import load_yaml


@pytest.mark.parametrize("text, line, col, kind", [
    ('a:\n  b: 1\n  if: "x == "a""\n', 3, 13, "double"),
    ('a: {if: "x == "a""}\n', 1, 15, "double"),
    ('- "x == "a""\n', 1, 9, "double"),
    ("a: 'x == 'a''\n", 1, 10, "single"),
    ('a: ["x == "a""]\n', 1, 11, "double"),
])
def test_an_inner_quote_is_named(text, line, col, kind):
    with pytest.raises(SpecError) as ei:
        load_yaml(text, "t.yaml")
    e = ei.value
    assert (e.line, e.col) == (line, col), str(e)
    assert f"a {kind} quote inside a {kind}-quoted value" in str(e) and "indented" not in str(e)
    other = "single" if kind == "double" else "double"
    assert f"write the inner text in {other} quotes" in str(e)


def test_what_is_not_an_inner_quote_keeps_its_message():
    assert load_yaml('a: "x" # a comment\nb: \'y\'\n', "t.yaml") == {"a": "x", "b": "y"}
    with pytest.raises(SpecError) as ei:
        load_yaml("a:\n    b: 1\n  c: 2\n", "t.yaml")
    assert "indented" in str(ei.value) and "quote" not in str(ei.value)
