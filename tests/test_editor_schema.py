"""The spec schema editors use (issue 39): every key carries its reference text as hover text, in
draft 2020-12 and in draft 07 (yaml-language-server's), and both forms check what the checker checks."""
import copy
import functools
import glob
import json
import os
import random
from importlib import resources

import pytest
from jsonschema import Draft7Validator, Draft202012Validator

import gamespec
from gamespec import authoring
from gamespec.authoring import editor_schema as es
from gamespec.authoring.inventory import schema_keys
from gamespec.authoring.reference import entries
from gamespec.spec.schema import schema as checker_schema
from gamespec.spec.yamlsafe import load_yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPECS = sorted(glob.glob(os.path.join(ROOT, "games", "*.yaml"))) + \
    sorted(glob.glob(os.path.join(ROOT, "tests", "specs", "*.yaml"))) + \
    sorted(glob.glob(os.path.join(ROOT, "docs", "tutorial", "*.yaml")))
VALIDATORS = {"2020-12": Draft202012Validator, "7": Draft7Validator}
SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
SCHEMA_ONE = ("items", "additionalItems", "additionalProperties", "not", "if", "then", "else", "contains",
              "propertyNames")
SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")


@functools.lru_cache(maxsize=None)
def _form(draft):
    return es.editor_schema(draft)


@functools.lru_cache(maxsize=None)
def _validator(draft):
    return VALIDATORS[draft](_form(draft))


def _keys(node, path=""):
    """Every key an editor hovers over: each value of a `properties` anywhere in the schema, and the
    free-key schema of a mapping that also has fixed keys; (pointer, node). Walked here, not with
    editor_schema.py's own walk."""
    if not isinstance(node, dict):
        return
    for kw, v in node.items():
        if kw in SCHEMA_MAPS and isinstance(v, dict):
            for k, sub in v.items():
                if kw == "properties":
                    yield f"{path}/properties/{k}", sub
                yield from _keys(sub, f"{path}/{kw}/{k}")
        elif kw in SCHEMA_ONE:
            subs = v if isinstance(v, list) else [v]
            for i, sub in enumerate(subs):
                if kw == "additionalProperties" and isinstance(sub, dict) and node.get("properties"):
                    yield f"{path}/{kw}", sub
                yield from _keys(sub, f"{path}/{kw}" + (f"/{i}" if isinstance(v, list) else ""))
        elif kw in SCHEMA_LISTS and isinstance(v, list):
            for i, sub in enumerate(v):
                yield from _keys(sub, f"{path}/{kw}/{i}")


def _strip(node):
    """A schema without the hover text editor_schema.py adds (a key named `description` stays)."""
    if isinstance(node, list):
        return [_strip(x) for x in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for kw, v in node.items():
        if kw in es.ANNOTATIONS:
            continue
        if kw in SCHEMA_MAPS and isinstance(v, dict):
            out[kw] = {k: _strip(sub) for k, sub in v.items()}
        elif kw in SCHEMA_ONE or kw in SCHEMA_LISTS:
            out[kw] = _strip(v)
        else:
            out[kw] = v
    return out


def _unwrap_refs(node):
    """Draft 07's allOf [{$ref}] beside the hover text, back to the $ref it wraps."""
    if isinstance(node, dict):
        out = {k: _unwrap_refs(v) for k, v in node.items()}
        if list(out.get("allOf", [])) and len(out["allOf"]) == 1 and set(out["allOf"][0]) == {"$ref"} \
                and not {"description", "markdownDescription"} & set(out):
            out.update(out.pop("allOf")[0])
        return out
    if isinstance(node, list):
        return [_unwrap_refs(x) for x in node]
    return node


# ---- coverage: every key has its hover text --------------------------------------------------------
def test_every_schema_key_has_a_reference_entry():
    assert es.problems() == [], "\n".join(es.problems())


@pytest.mark.parametrize("draft", es.DRAFTS)
def test_every_property_of_both_forms_has_a_description(draft):
    keys = list(_keys(_form(draft)))
    assert len(keys) >= len([k for k in schema_keys() if "=" not in k["id"]])
    bare = [p for p, n in keys if not (isinstance(n, dict) and n.get("description") and n.get("markdownDescription"))]
    assert not bare, f"{len(bare)} of {len(keys)} keys without a description: {bare}"


def test_the_hover_text_is_the_reference_entry():
    e = entries()
    for form, defs in ((_form("2020-12"), "$defs"), (_form("7"), "definitions")):
        kind = form[defs]["zone"]["properties"]["kind"]
        assert kind["description"].startswith(e["zone.kind"]["text"])
        assert "Default: pile." in kind["description"] and "\n- set: " in kind["description"]
        assert kind["enumDescriptions"] == [e["zone.kind=pile"], e["zone.kind=set"]]
        name = form["properties"]["name"]
        assert name["description"] == e["spec.name"]["text"] + "\n\nRequired."
        assert "```yaml\n" + e["spec.name"]["example"] in name["markdownDescription"]
        attr = form[defs]["face"]["additionalProperties"]       # a card attribute's free key
        assert attr["description"].startswith(e["face.<attribute>"]["text"])


def test_the_ids_are_the_references_ids():
    ours = {kid for kid, _, _ in es.described_nodes(checker_schema())}
    assert ours == {k["id"] for k in schema_keys() if "=" not in k["id"]}


def test_a_key_without_a_reference_entry_is_named_and_left_bare():
    s = copy.deepcopy(checker_schema())
    s["$defs"]["zone"]["properties"]["brand_new"] = {"type": "string"}
    s["properties"]["limits"]["properties"]["also_new"] = {"type": "integer"}
    out, missing = es.annotate(s)
    assert sorted(missing) == [("spec.limits.also_new", "/properties/limits/properties/also_new"),
                               ("zone.brand_new", "/$defs/zone/properties/brand_new")]
    assert out["$defs"]["zone"]["properties"]["brand_new"] == {"type": "string"}
    assert out["$defs"]["zone"]["properties"]["kind"]["description"]


# ---- both forms check what the checker checks ------------------------------------------------------
def test_both_forms_are_the_checkers_schema_with_text_added():
    assert _form("2020-12")["$schema"].endswith("/2020-12/schema")
    assert _form("7")["$schema"] == "http://json-schema.org/draft-07/schema#"
    Draft202012Validator.check_schema(_form("2020-12"))
    Draft7Validator.check_schema(_form("7"))
    assert _strip(_form("2020-12")) == checker_schema()
    assert _unwrap_refs(_strip(_form("7"))) == es.to_draft7(checker_schema())
    text = es.editor_schema_text("7")
    assert "$defs" not in text and "prefixItems" not in text and "#/definitions/effects" in text


@pytest.mark.parametrize("path", SPECS, ids=lambda p: os.path.relpath(p, ROOT))
def test_the_shipped_specs_validate_against_both_forms(path):
    with open(path, "rb") as f:
        data = load_yaml(f.read(), path)
    for draft in es.DRAFTS:
        errors = [f"{'.'.join(map(str, e.absolute_path))}: {e.message}" for e in _validator(draft).iter_errors(data)]
        assert not errors, f"draft {draft}: {errors}"


def _bad_specs():
    with open(os.path.join(ROOT, "docs", "tutorial", "step1.yaml"), "rb") as f:
        good = json.loads(json.dumps(load_yaml(f.read(), "step1.yaml")))
    zone, phase = next(iter(good["zones"])), next(iter(good["phases"]))
    for what, change in [
        ("an unknown top-level key", lambda d: d.update(colour="red")),
        ("players not a pair", lambda d: d.update(players=[2])),
        ("a zone kind not in the enum", lambda d: d["zones"][zone].update(kind="heap")),
        ("a rule that is not text", lambda d: d.update(on_begin=5)),     # a $ref beside hover text
        ("a step's repeat of the wrong type", lambda d: d["phases"][phase].update(
            turn={"steps": [{"choose": ["x"], "repeat": 5}]})),
        ("a missing required key", lambda d: d.pop("phases")),
    ]:
        bad = copy.deepcopy(good)
        change(bad)
        yield what, bad


@pytest.mark.parametrize("what,bad", list(_bad_specs()), ids=lambda x: x if isinstance(x, str) else "")
def test_a_bad_spec_fails_both_forms_where_the_checker_does(what, bad):
    checker = {tuple(e.absolute_path) for e in Draft202012Validator(checker_schema()).iter_errors(bad)}
    assert checker, f"the checker accepts {what}"
    for draft in es.DRAFTS:
        got = {tuple(e.absolute_path) for e in _validator(draft).iter_errors(bad)}
        assert got == checker, f"draft {draft}, {what}"


# ---- the conversion to draft 07 ----------------------------------------------------------------------
def test_to_draft7_rewrites_what_draft7_lacks():
    s = {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
         "properties": {"pair": {"type": "array", "prefixItems": [{"type": "integer"}, {"$ref": "#/$defs/word"}],
                                 "items": False},
                        "card": {"$ref": "#/$defs/word", "description": "a sibling draft 07 ignores", "maxLength": 3},
                        "a": {}, "b": {}, "c": {}},
         "dependentRequired": {"a": ["b"]}, "dependentSchemas": {"c": {"required": ["a"]}},
         "$defs": {"word": {"type": "string"}}}
    d7 = es.to_draft7(s)
    Draft7Validator.check_schema(d7)
    assert "$defs" not in d7 and d7["definitions"] == {"word": {"type": "string"}}
    assert d7["properties"]["pair"] == {"type": "array", "items": [{"type": "integer"}, {"$ref": "#/definitions/word"}],
                                        "additionalItems": False}
    assert d7["properties"]["card"]["allOf"] == [{"$ref": "#/definitions/word"}]
    assert d7["dependencies"] == {"a": ["b"], "c": {"required": ["a"]}}
    for x in ({"pair": [1, "w"]}, {"pair": [1, "w", 3]}, {"pair": ["w"]}, {"card": "toolong"}, {"card": 1},
              {"a": 1}, {"a": 1, "b": 2}, {"c": 1}, {"c": 1, "a": 1, "b": 1}, {}):
        assert Draft7Validator(d7).is_valid(x) == Draft202012Validator(s).is_valid(x), x


def test_to_draft7_refuses_what_it_cannot_say_naming_where():
    s = {"type": "object", "$defs": {"step": {"type": "object", "unevaluatedProperties": False}}}
    with pytest.raises(es.EditorSchemaError, match=r"'unevaluatedProperties' \(at /\$defs/step"):
        es.to_draft7(s)


# ---- what ships and what the commands emit -----------------------------------------------------------
def test_the_shipped_editor_schema_is_what_the_code_emits():
    for draft, rel in es.SHIPPED.items():
        shipped = resources.files("gamespec.authoring").joinpath(rel).read_text(encoding="utf-8")
        assert shipped == es.editor_schema_text(draft), \
            f"gamespec/authoring/{rel} is stale: run python -m gamespec.authoring.editor_schema --write"


def test_schema_text_takes_a_draft():
    assert json.loads(authoring.schema_text()) == _form("2020-12")
    assert json.loads(authoring.schema_text("spec", draft="7")) == _form("7")
    for name in authoring.FORMATS:
        d7 = json.loads(authoring.schema_text(name, draft="7"))
        Draft7Validator.check_schema(d7)
        assert "$defs" not in json.dumps(d7) and _unwrap_refs(d7)["$id"] == authoring.format_schema(name)["$id"]
        assert json.loads(authoring.schema_text(name)) == authoring.format_schema(name)
    with pytest.raises(ValueError, match="unknown JSON Schema draft '6'"):
        authoring.schema_text("spec", draft="6")


def test_the_format_schemas_in_draft7_still_check_the_outputs():
    game = gamespec.load(os.path.join(ROOT, "docs", "tutorial", "step1.yaml"))
    s = game.new_game(players=game.max_players, seed=2, log=True)
    rng = random.Random(2)
    while not s.is_terminal:
        s.apply(rng.choice(s.legal_actions()))
    v = {n: Draft7Validator(json.loads(authoring.schema_text(n, draft="7"))) for n in authoring.FORMATS}
    v["observation"].validate(s.observation(0))
    v["state"].validate(s.to_json())
    for line in s.log_lines():
        v["log"].validate(line)
    for line in s.log_for(1):
        v["log-for"].validate(line)
    broken = s.observation(0)
    broken["player"] = "me"
    assert not v["observation"].is_valid(broken)


def test_new_writes_the_draft7_editor_schema_and_refreshes_the_old_one(tmp_path):
    folder = tmp_path / "specs"
    folder.mkdir()
    beside = folder / "gamespec.schema.json"
    beside.write_text(authoring.spec_schema_text(), encoding="utf-8")       # what an older gamespec wrote
    from gamespec.authoring.starters import write_starter
    r = write_starter(str(folder / "mine"))
    assert r["schema_status"] == "refreshed"
    assert beside.read_text(encoding="utf-8") == es.editor_schema_text("7")
    assert write_starter(str(folder / "more"))["schema_status"] == "up to date"
