"""Tests for gamespec.spec.yamlsafe: positions, YAML 1.2 core-schema resolution, and a hostile corpus."""
import math
import os
import time
import tracemalloc

import pytest

from gamespec.errors import SpecError
from gamespec.spec.yamlsafe import Mark, YList, YMap, YStr, load_yaml, load_yaml_file, mark_of


def fails(data, check, **limits):
    """Load data, expect a SpecError with this check, and return it."""
    with pytest.raises(SpecError) as info:
        load_yaml(data, "t.yaml", **limits)
    assert info.value.check == check, str(info.value)
    assert info.value.filename == "t.yaml"
    return info.value


# --------------------------------------------------------------------------- positions

DOC = """\
name: Hearts
players: 4
expr: "draw(p,\\t 2)"
sq: 'it''s x y'
rule: |
  first line
    second(x)
items:
  - one
  - &t two
more: *t
"""


def test_types_and_marks_of_a_normal_document():
    d = load_yaml(DOC.encode(), "t.yaml")
    assert type(d) is YMap and type(d["items"]) is YList and type(d["name"]) is YStr
    assert d == {"name": "Hearts", "players": 4, "expr": "draw(p,\t 2)", "sq": "it's x y",
                 "rule": "first line\n  second(x)\n", "items": ["one", "two"], "more": "two"}
    assert d.mark == Mark(1, 1)
    assert d.key_marks["players"] == Mark(2, 1)
    assert d.value_marks["players"] == Mark(2, 10)
    assert d.value_marks["expr"] == Mark(3, 7)
    assert d["name"].mark == Mark(1, 7) and d["name"].style is None
    assert d["expr"].style == '"' and d["sq"].style == "'" and d["rule"].style == "|"
    assert d["items"].mark == Mark(9, 3)
    assert d["items"].item_marks == [Mark(9, 5), Mark(10, 5)]
    assert mark_of(d, "more") == Mark(11, 7)
    assert mark_of(d["items"], 1) == Mark(10, 5)
    assert mark_of(d["items"], 7) == d["items"].mark  # falls back to the container
    assert mark_of(d, "missing") == d.mark


def test_locate_plain_quoted_and_literal():
    d = load_yaml(DOC.encode())
    assert d["name"].locate(1, 3) == Mark(1, 9)          # plain: value col 3 is file col 7 + 2
    # double quotes: the opening quote adds a column, the \t escape is two source characters
    assert d["expr"].locate(1, 1) == Mark(3, 8)
    assert d["expr"].locate(1, 10) == Mark(3, 18)         # the '2' after "\t "
    # single quotes: '' is one character of the value
    assert d["sq"].locate(1, 8) == Mark(4, 14)            # the 'y'
    # literal block: content starts on the next line, at the block's indentation
    assert d["rule"].locate(1, 1) == Mark(6, 3)
    assert d["rule"].locate(2, 3) == Mark(7, 5)           # 's' of second(x)
    # .mark is where PyYAML starts the node (the anchor); locate() counts from the scalar itself
    tagged = load_yaml('a: &x !!str "foo"\n')["a"]
    assert tagged.mark == Mark(1, 4) and tagged.locate(1, 2) == Mark(1, 15)


def test_locate_best_effort_folded_and_multiline_never_fails():
    d = load_yaml(b"fold: >\n  one two\n  three four\nml: plain words\n  continue here\n")
    assert d["fold"] == "one two three four\n"
    assert d["fold"].locate(1, 9) == Mark(3, 3)           # 't' of three
    assert d["ml"].locate(1, 13) == Mark(5, 3)            # 'c' of continue
    for s in (d["fold"], d["ml"], YStr("bare")):
        for line, col in ((0, 0), (-3, -9), (99, 99), (1, 10**9)):
            m = s.locate(line, col)
            assert isinstance(m, Mark) and m.line >= 1 and m.col >= 1


def test_crlf_and_bom():
    d = load_yaml(b"\xef\xbb\xbfa: 1\r\nb: |\r\n  x\r\n  yy\r\n")
    assert d == {"a": 1, "b": "x\nyy\n"}
    assert d.value_marks["b"] == Mark(2, 4)
    assert d["b"].locate(2, 2) == Mark(4, 4)


# --------------------------------------------------------------------------- core schema

@pytest.mark.parametrize("text, expected", [
    ("no", "no"), ("yes", "yes"), ("on", "on"), ("off", "off"), ("Yes", "Yes"), ("y", "y"),
    ("1:30", "1:30"), ("2024-01-01", "2024-01-01"), ("1_000", "1_000"), ("0b101", "0b101"),
    ("'true'", "true"), ('"12"', "12"), ("'null'", "null"), ("hello world", "hello world"),
    ("true", True), ("True", True), ("TRUE", True), ("false", False), ("False", False),
    ("FALSE", False), ("null", None), ("Null", None), ("NULL", None), ("~", None), ("", None),
    ("0", 0), ("-17", -17), ("+12", 12), ("007", 7), ("0o17", 15), ("0x1F", 31),
    ("1.5", 1.5), ("-2.", -2.0), (".5", 0.5), ("1e3", 1000.0), ("-1.5E-2", -0.015),
    (".inf", math.inf), ("-.Inf", -math.inf), ("+.INF", math.inf),
    ("!!str 12", "12"), ("!!float 1", 1.0), ('!!int "5"', 5), ("!!bool true", True),
    ("!!null ''", None),
])
def test_core_schema_resolution(text, expected):
    value = load_yaml(f"v: {text}\n")["v"]
    assert value == expected
    assert type(value) is (YStr if isinstance(expected, str) else type(expected))


def test_nan():
    value = load_yaml("v: .NaN")["v"]
    assert isinstance(value, float) and math.isnan(value)


def test_tag_must_match_its_value():
    fails("v: !!int x", "yaml-tag")
    fails("v: !!bool yes", "yaml-tag")
    fails("!!seq {a: 1}", "yaml-tag")


# --------------------------------------------------------------------------- hostile corpus

BILLION_LAUGHS = """\
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
"""


def test_billion_laughs_fails_fast_with_bounded_memory():
    assert len(BILLION_LAUGHS) == 342
    tracemalloc.start()
    start = time.process_time()      # CPU time: a loaded machine stretches wall time, not this
    try:
        e = fails(BILLION_LAUGHS.encode(), "yaml-alias-budget")
        elapsed = time.process_time() - start
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert elapsed < 1.0
    assert peak < 10 * 1024 * 1024
    assert e.line == 6  # the first alias of *e that crosses 200 000 nodes


def test_aliases_within_budget_are_allowed_and_counted():
    doc = "a: &a [1, 2, 3]\nb: [*a, *a]\n"
    d = load_yaml(doc)
    assert d["b"] == [[1, 2, 3], [1, 2, 3]]
    # 1 map + 2 keys + 4 (list a) + 1 (list b) + 2*4 (expansions) = 16 nodes
    assert load_yaml(doc, max_nodes=16) == d
    fails(doc, "yaml-alias-budget", max_nodes=15)


def test_recursive_anchor():
    e = fails("a: &a [*a]", "yaml-recursive-alias")
    assert (e.line, e.col) == (1, 8)


def test_undefined_alias():
    fails("a: *nowhere", "yaml-undefined-alias")


def test_deep_flow_sequences():
    e = fails("[" * 1000 + "]" * 1000, "yaml-depth")
    assert (e.line, e.col) == (1, 65)  # the 65th '['


def test_deep_nested_mappings():
    block = "".join(" " * i + "a:\n" for i in range(1000))
    e = fails(block, "yaml-depth")
    assert e.line == 65
    fails("{a: " * 1000 + "}" * 1000, "yaml-depth")


def test_depth_limit_counts_aliased_structures():
    chain = "a0: &a0 []\n" + "".join(f"a{i}: &a{i} [*a{i - 1}]\n" for i in range(1, 80))
    fails(chain, "yaml-depth")
    assert load_yaml("[[[[x]]]]", max_depth=4) == [[[["x"]]]]
    fails("[[[[[x]]]]]", "yaml-depth", max_depth=4)


def test_file_too_large(tmp_path):
    data = b"a: " + b"x" * (5 * 1024 * 1024)
    e = fails(data, "yaml-size")
    assert (e.line, e.col) == (1, 1)
    path = tmp_path / "big.yaml"
    path.write_bytes(data)
    with pytest.raises(SpecError) as info:
        load_yaml_file(str(path))
    assert info.value.check == "yaml-size" and info.value.filename == str(path)


def test_load_yaml_file_reads_a_spec_and_reports_io_errors(tmp_path):
    path = tmp_path / "ok.yaml"
    path.write_bytes(b"a: [1, two]\n")
    assert load_yaml_file(str(path)) == {"a": [1, "two"]}
    with pytest.raises(SpecError) as info:
        load_yaml_file(str(tmp_path / "missing.yaml"))
    assert info.value.check == "yaml-io"
    with pytest.raises(SpecError) as info:
        load_yaml_file(str(tmp_path))  # a directory
    assert info.value.check == "yaml-io"
    if hasattr(os, "mkfifo"):  # a FIFO must be refused, not block forever
        fifo = tmp_path / "fifo"
        os.mkfifo(fifo)
        with pytest.raises(SpecError) as info:
            load_yaml_file(str(fifo))
        assert info.value.check == "yaml-io"


def test_huge_scalar():
    data = b"a: " + b"x" * (2 * 1024 * 1024)
    e = fails(data, "yaml-scalar-size", max_bytes=3 * 1024 * 1024, max_scalar=1_500_000)
    assert (e.line, e.col) == (1, 4)


def test_huge_integer():
    fails("a: " + "9" * 5000, "yaml-int-size")
    fails("a: 0x" + "f" * 101, "yaml-int-size")
    assert load_yaml("a: " + "9" * 100)["a"] == int("9" * 100)
    # above Python's own 4300-digit limit: still a SpecError, never a ValueError
    fails("a: " + "9" * 5000, "yaml-int-size", max_int_digits=10_000)


def test_duplicate_keys():
    e = fails("a: 1\nb: 2\na: 3\n", "yaml-duplicate-key")
    assert (e.line, e.col) == (3, 1)
    assert "'a'" in e.message and "line 1" in e.message
    fails("1: a\ntrue: b\n", "yaml-duplicate-key")  # equal keys in Python


def test_python_object_tag_is_refused_and_nothing_runs(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(os, "system", lambda cmd: calls.append(cmd) or 0)
    e = fails('a: !!python/object/apply:os.system ["echo hi"]', "yaml-tag")
    assert "!!python/object/apply:os.system" in e.message
    marker = tmp_path / "pwned"
    fails(f'!!python/object/apply:os.system ["touch {marker}"]', "yaml-tag")
    fails("%TAG !e! tag:yaml.org,2002:python/\n---\na: !e!name:os.system x", "yaml-tag")
    assert calls == [] and not marker.exists()


@pytest.mark.parametrize("doc", ["a: !!binary aGk=", "a: !!timestamp 2024-01-01", "!!set {a, b}",
                                 "!!omap [a: 1]", "a: !foo 1", "a: ! x"])
def test_other_tags(doc):
    assert "is not allowed in a spec" in fails(doc, "yaml-tag").message


def test_invalid_utf8():
    e = fails(b"a: 1\nb: caf\xe9\n", "yaml-encoding")
    assert (e.line, e.col) == (2, 7)
    assert "offset 11" in e.message and "line 2" in e.message
    e = fails(b"\xc3\xa9: 1\n\xc3\xa9 \xc3\xa9 \xff", "yaml-encoding")  # é: 1 / é é <bad>
    assert (e.line, e.col) == (2, 5)  # columns count characters, not bytes


def test_control_character():
    fails("a: \x01", "yaml-character")


@pytest.mark.parametrize("doc", [b"", b"# only a comment\n", b"\n\n", b"---\n"])
def test_empty(doc):
    e = fails(doc, "yaml-empty")
    assert e.message == "the file is empty; a spec is a YAML mapping"


def test_two_documents():
    e = fails("a: 1\n---\nb: 2\n", "yaml-multidoc")
    assert (e.line, e.col) == (2, 1)


def test_merge_key():
    fails("base: &b {x: 1}\nderived:\n  <<: *b\n  y: 2\n", "yaml-merge")
    assert load_yaml("'<<': 1") == {"<<": 1}  # quoted, it is just a string


def test_keys_must_be_scalars():
    fails("? [a, b]\n: 1\n", "yaml-key")
    fails("{{a: 1}: 2}", "yaml-key")
    fails("a: &m {x: 1}\n*m : 2\n", "yaml-key")
    fails("~: 1", "yaml-key")


def test_syntax_error_position():
    e = fails("a: b\nc: d: e\n", "yaml-syntax")
    assert (e.line, e.col) == (2, 5)
    assert "': ' inside a plain value" in e.message
    assert str(e) == "t.yaml:2:5: error: " + e.message


@pytest.mark.parametrize("text,at,message", [
    # PyYAML says "mapping values are not allowed here" or "expected <block end>, but found
    # '<block mapping start>'": say which key is indented unlike its siblings, at the key
    ("a: b\n  c: d\n", (2, 3), "'c' is indented more than 'a' above it (2 spaces, not 0), so it reads as "
                               "part of that value: the keys of one mapping must line up"),
    ("a:\n    b: 1\n  c: 2\n", (3, 3), "'c' is indented by 2 spaces, unlike the keys before it (indented by 0 "
                                     "or 4): the keys of one mapping must line up"),
    ("z:\n  h:\n    kind: set\n   per_player: true\n", (4, 4),
     "'per_player' is indented by 3 spaces, unlike the keys before it (indented by 2 or 4): the keys of one "
     "mapping must line up"),
])
def test_misindented_keys_are_named(text, at, message):
    e = fails(text, "yaml-indent")
    assert (e.line, e.col) == at and e.message == message
