"""docs/reference.md: every schema key, grammar construct, operator, name and built-in has an entry,
every example validates, and the document is what the generator writes (so it cannot drift)."""
import os

import pytest

from gamespec.authoring import inventory as inv
from gamespec.authoring import reference as ref

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_every_schema_key_grammar_construct_and_builtin_has_an_entry():
    problems = ref.missing()
    assert not problems, "\n".join(problems)


def test_inventory_follows_the_sources():
    ids = {i["id"] for i in inv.inventory()}
    # a sample from each source, so that a broken walker cannot pass with an empty inventory
    for want in ("spec.name", "zone.visibility=owner", "step.if_none", "param.size",
                 "spec.limits.steps_per_decision", "face.<attribute>", "grammar.compare",
                 "grammar.list_comp", "operator.not in", "operator.**", "builtin.is_sole_max",
                 "name.actor"):
        assert want in ids
    from gamespec.spec.builtins import BUILTINS
    assert {f"builtin.{b}" for b in BUILTINS} <= ids


def test_missing_entry_message_names_the_entry(monkeypatch):
    es = dict(ref.entries())
    del es["grammar.compare"]
    del es["zone.visibility=owner"]
    monkeypatch.setattr(ref, "entries", lambda: es)
    msgs = ref.missing()
    assert any("'grammar.compare'" in m and "rules.lark line" in m for m in msgs)
    assert any("'zone.visibility=owner'" in m and "schema.json" in m for m in msgs)


def test_new_grammar_alias_and_schema_key_are_picked_up(monkeypatch):
    text = inv.grammar_text().replace('-> neg', '-> neg\n       | "~" factor -> bitnot')
    monkeypatch.setattr(inv, "grammar_text", lambda: text)
    assert "grammar.bitnot" in {c["id"] for c in inv.grammar_constructs()}
    import copy
    s = copy.deepcopy(inv.spec_schema())
    s["properties"]["scoring"] = {"$ref": "#/$defs/scoring"}
    s["$defs"]["scoring"]["properties"]["cooperative"] = {"type": "boolean"}
    s["$defs"]["zone"]["properties"]["visibility"]["enum"].append("others")
    monkeypatch.setattr(inv, "spec_schema", lambda: s)
    ids = {k["id"] for k in inv.schema_keys()}
    assert {"scoring.cooperative", "zone.visibility=others"} <= ids


@pytest.mark.parametrize("eid", sorted(k for k, v in ref.entries().items() if isinstance(v, dict) and "example" in v))
def test_example_validates(eid):
    assert ref.check_example(eid) is None


def test_every_key_and_builtin_has_an_example():
    es = ref.entries()
    for item in inv.schema_keys() + inv.builtins():
        if "value" in item:
            continue
        assert "example" in es[item["id"]], f"{item['id']} has no example"


def test_a_bad_example_is_caught(monkeypatch):
    es = dict(ref.entries())
    es["builtin.size"] = dict(es["builtin.size"], example={"expr": "size(no_such_zone)"})
    monkeypatch.setattr(ref, "entries", lambda: es)
    assert "unknown name 'no_such_zone'" in ref.check_example("builtin.size")


def test_reference_md_is_generated():
    with open(os.path.join(ROOT, "docs", "reference.md"), encoding="utf-8") as f:
        assert f.read() == ref.render(), "docs/reference.md is stale: python -m gamespec.authoring.reference --write"
