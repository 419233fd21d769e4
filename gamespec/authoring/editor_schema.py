"""gamespec/schema.json + data/reference.yaml → the spec schema editors use: hover text on every key.

    editor_schema("2020-12")   # the checker's schema, each property with `description` (and VS Code's
                               # `markdownDescription`) from its reference entry
    editor_schema("7")         # the same in draft 07, the draft yaml-language-server understands
    python -m gamespec.authoring.editor_schema --write   # regenerate the shipped SHIPPED file
    python -m gamespec.authoring.editor_schema --check   # exit 1 if it is stale or a key has no entry

The descriptions are never written into gamespec/schema.json by hand: a key's text lives once, in
data/reference.yaml (which also makes docs/reference.md), under the id inventory.py gives it
(`SECTION.KEY`, the section being the enclosing `$defs` entry, `spec` at the top level).
"""
from __future__ import annotations

import copy
import json

DRAFTS = ("2020-12", "7")
META = {"2020-12": "https://json-schema.org/draft/2020-12/schema",
        "7": "http://json-schema.org/draft-07/schema#"}
SHIPPED = {"7": "schemas/spec.draft-07.json"}      # package data of gamespec.authoring, per draft
ANNOTATIONS = ("description", "markdownDescription", "enumDescriptions", "markdownEnumDescriptions")

# Keywords whose value is a subschema, a list of them, or a mapping NAME → subschema.
_ONE = ("items", "additionalItems", "additionalProperties", "not", "if", "then", "else", "contains",
        "propertyNames", "unevaluatedProperties", "unevaluatedItems")
_LIST = ("allOf", "anyOf", "oneOf", "prefixItems")
_MAP = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
# 2019-09/2020-12 keywords with no draft-07 form: editor_schema("7") refuses a schema using them.
_NO_DRAFT7 = ("unevaluatedProperties", "unevaluatedItems", "$dynamicRef", "$dynamicAnchor", "$recursiveRef",
              "$recursiveAnchor", "minContains", "maxContains", "$vocabulary")


class EditorSchemaError(ValueError):
    """The schema uses something the draft-07 form cannot say (a message naming where)."""


def _subschemas(node, path):
    """(subschema, its JSON pointer) for each direct subschema of a schema node."""
    if not isinstance(node, dict):
        return
    for kw, v in node.items():
        if kw in _ONE and isinstance(v, dict):
            yield v, f"{path}/{kw}"
        elif kw in _ONE and isinstance(v, list):          # draft 07 items: [...]
            yield from ((s, f"{path}/{kw}/{i}") for i, s in enumerate(v))
        elif kw in _LIST and isinstance(v, list):
            yield from ((s, f"{path}/{kw}/{i}") for i, s in enumerate(v))
        elif kw in _MAP and isinstance(v, dict):
            yield from ((s, f"{path}/{kw}/{_esc(k)}") for k, s in v.items())


def _esc(key: str) -> str:
    return str(key).replace("~", "~0").replace("/", "~1")


def described_nodes(schema: dict):
    """Every node an editor shows hover text for, as (id, JSON pointer, node): each value of a
    `properties`, and the free-key schema (`additionalProperties`) of a mapping that also has fixed
    keys (id `...<attribute>`). The id is the reference's, as inventory.schema_keys makes it."""
    out = []

    def walk(node, section, prefix, path):
        if not isinstance(node, dict):
            return
        props = node.get("properties") if isinstance(node.get("properties"), dict) else {}
        for key, sub in props.items():
            kpath = f"{prefix}.{key}" if prefix else str(key)
            out.append((f"{section}.{kpath}", f"{path}/properties/{_esc(key)}", sub))
            walk(sub, section, kpath, f"{path}/properties/{_esc(key)}")
        extra = node.get("additionalProperties")
        if isinstance(extra, dict) and props:
            kpath = f"{prefix}.<attribute>" if prefix else "<attribute>"
            out.append((f"{section}.{kpath}", f"{path}/additionalProperties", extra))
            walk(extra, section, kpath, f"{path}/additionalProperties")
        for sub, spath in _subschemas(node, path):
            kw = spath[len(path) + 1:].split("/", 1)[0]
            if kw in ("properties", "$defs", "definitions") or (kw == "additionalProperties" and props):
                continue
            walk(sub, section, prefix, spath)

    walk(schema, "spec", "", "")
    for kw in ("$defs", "definitions"):
        for name, sub in (schema.get(kw) or {}).items():
            walk(sub, name, "", f"/{kw}/{_esc(name)}")
    return out


def _reference_entries() -> dict:
    from .reference import entries
    return entries()


def _base_schema() -> dict:
    from gamespec.spec.schema import schema
    return copy.deepcopy(schema())


def _enum_nodes(node, defs):
    """The enum-holding nodes of a key's schema: inline (themselves or an anyOf/oneOf branch) and
    through a $ref to a $defs entry. (node, inline) pairs."""
    out = []

    def visit(n, inline, depth=0):
        if not isinstance(n, dict) or depth > 8:
            return
        ref = n.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/") and ref[8:] in defs:
            visit(defs[ref[8:]], False, depth + 1)
        if isinstance(n.get("enum"), list):
            out.append((n, inline))
        for b in (n.get("anyOf") or []) + (n.get("oneOf") or []):
            visit(b, inline, depth + 1)

    visit(node, True)
    return out


def _texts(kid, node, entries, defs):
    """(description, markdownDescription, {id(enum node): (plain, markdown) per value}) of a key."""
    e = entries.get(kid)
    if isinstance(e, dict) and "see" in e and "text" not in e:
        e = entries.get(e["see"], e)
    if not isinstance(e, dict):
        return None
    text = str(e.get("text", "")).strip()
    default = e.get("default")
    plain, md = [text], [text]
    default = str(default).strip() if default is not None else ""
    if default.startswith("(") and default.endswith(")"):         # "(required)", "(required unless ...)"
        plain.append(default[1:-1][:1].upper() + default[2:-1] + ".")
        md.append(f"*{plain[-1]}*")
    elif default not in ("", "-"):
        plain.append(f"Default: {default}.")
        md.append(f"*Default:* {default}")
    enums, vals_plain, vals_md = {}, [], []
    for enode, inline in _enum_nodes(node, defs):
        per_value = []
        for v in enode["enum"]:
            vt = entries.get(f"{kid}={v}") if isinstance(v, str) else None
            vt = str(vt).strip() if vt is not None else ""
            per_value.append((vt, vt))
            if vt:
                vals_plain.append(f"- {v}: {vt}")
                vals_md.append(f"- `{v}`: {vt}")
        if inline:
            enums[id(enode)] = (enode, per_value)
    if vals_plain:
        plain.append("Values:\n" + "\n".join(vals_plain))
        md.append("\n".join(vals_md))
    ex = e.get("example")
    if isinstance(ex, str) and ex.strip():
        md.append("Example:\n```yaml\n" + ex.rstrip() + "\n```")
    return "\n\n".join(p for p in plain if p), "\n\n".join(p for p in md if p), enums


def _annotated(node, description, markdown):
    """A copy of the node with its hover text first (so the file reads key, text, schema)."""
    rest = {k: v for k, v in node.items() if k not in ("description", "markdownDescription")}
    return {"description": description, "markdownDescription": markdown, **rest}


def annotate(schema: dict, entries: dict | None = None) -> tuple[dict, list[tuple[str, str]]]:
    """(a copy of the 2020-12 schema with hover text on every described node, [(id, pointer)] of
    the nodes whose id has no reference entry: those keep no description)."""
    entries = _reference_entries() if entries is None else entries
    out = copy.deepcopy(schema)
    defs = out.get("$defs") or {}
    missing, todo = [], []
    for kid, path, node in described_nodes(out):
        t = _texts(kid, node, entries, defs)
        if t is None:
            missing.append((kid, path))
        else:
            todo.append((path, node, t))
    # replace deepest first, so a parent's copy holds its children's text
    for path, node, (plain, md, enums) in sorted(todo, key=lambda x: -x[0].count("/")):
        for enode, per_value in enums.values():
            if any(p for p, _ in per_value):
                enode["enumDescriptions"] = [p for p, _ in per_value]
                enode["markdownEnumDescriptions"] = [m for _, m in per_value]
        parent, key = _parent(out, path)
        parent[key] = _annotated(parent[key], plain, md)
    return out, missing


def _parent(root, pointer):
    parts = [p.replace("~1", "/").replace("~0", "~") for p in pointer.split("/")[1:]]
    node = root
    for p in parts[:-1]:
        node = node[int(p)] if isinstance(node, list) else node[p]
    last = parts[-1]
    return node, (int(last) if isinstance(node, list) else last)


# ---- draft 2020-12 → draft 07 --------------------------------------------------------------------
def to_draft7(schema: dict) -> dict:
    """The same schema in draft 07: $defs → definitions (and every $ref to them), prefixItems →
    items as a list (items → additionalItems), dependentRequired/dependentSchemas → dependencies,
    a $ref with sibling keywords (which draft 07 ignores) → allOf [{$ref}] beside them. A keyword
    draft 07 has no form for raises EditorSchemaError naming where it is."""

    def conv(node, path):
        if isinstance(node, list):
            return [conv(x, f"{path}/{i}") for i, x in enumerate(node)]
        if not isinstance(node, dict):
            return node
        for kw in _NO_DRAFT7:
            if kw in node:
                raise EditorSchemaError(f"draft 07 has no '{kw}' (at {path or '/'} of the spec schema): "
                                        "say it another way in gamespec/schema.json, or teach "
                                        "gamespec/authoring/editor_schema.py to_draft7 its draft-07 form")
        out = {}
        for kw, v in node.items():
            p = f"{path}/{_esc(kw)}"
            if kw in ("properties", "patternProperties", "$defs", "definitions"):
                out["definitions" if kw == "$defs" else kw] = {k: conv(s, f"{p}/{_esc(k)}") for k, s in v.items()}
            elif kw == "$ref" and isinstance(v, str):
                out[kw] = v.replace("#/$defs/", "#/definitions/", 1) if v.startswith("#/$defs/") else v
            elif kw == "$schema":
                out[kw] = META["7"]
            elif kw == "prefixItems":
                out["items"] = conv(v, p)
                if "items" in node:
                    out["additionalItems"] = conv(node["items"], f"{path}/items")
            elif kw == "items" and "prefixItems" in node:
                continue
            elif kw in ("dependentRequired", "dependentSchemas"):
                deps = out.setdefault("dependencies", {})
                for k, s in v.items():
                    deps[k] = list(s) if kw == "dependentRequired" else conv(s, f"{p}/{_esc(k)}")
            elif kw in ("enum", "const", "default", "examples", "required") or kw in ANNOTATIONS:
                out[kw] = copy.deepcopy(v)
            else:
                out[kw] = conv(v, p)
        if "$ref" in out and len(out) > 1:
            ref = out.pop("$ref")
            out["allOf"] = [{"$ref": ref}] + out.get("allOf", [])
        return out

    return conv(schema, "")


# ---- the public face ---------------------------------------------------------------------------
def check_draft(draft) -> str:
    d = str(draft)
    d = {"07": "7", "draft-07": "7", "draft7": "7", "2020": "2020-12"}.get(d, d)
    if d not in DRAFTS:
        raise ValueError(f"unknown JSON Schema draft '{draft}' (drafts: {', '.join(DRAFTS)})")
    return d


def editor_schema(draft="2020-12") -> dict:
    """The spec schema with hover text on every key, in draft 2020-12 (the checker's) or 7."""
    draft = check_draft(draft)
    out, _ = annotate(_base_schema())
    return to_draft7(out) if draft == "7" else out


def convert(schema: dict, draft="2020-12") -> dict:
    """Any gamespec schema (the output formats' too) in the given draft."""
    return to_draft7(schema) if check_draft(draft) == "7" else schema


def text(schema: dict) -> str:
    """A schema as the text of a file."""
    return json.dumps(schema, indent=2) + "\n"


def editor_schema_text(draft="2020-12") -> str:
    return text(editor_schema(draft))


def problems() -> list[str]:
    """One message per key of gamespec/schema.json with no reference entry to describe it."""
    from .reference import ENTRIES_PATH
    _, missing = annotate(_base_schema())
    return [f"no reference entry for '{kid}' (gamespec/schema.json {path}): add '{kid}:' to "
            f"{ENTRIES_PATH}, then run: python -m gamespec.authoring.reference --write" for kid, path in missing]


def main(argv=None) -> int:
    import argparse
    import os
    import sys
    ap = argparse.ArgumentParser(prog="python -m gamespec.authoring.editor_schema")
    ap.add_argument("--write", action="store_true", help="write the shipped editor schema file(s)")
    ap.add_argument("--check", action="store_true", help="exit 1 when a shipped file is stale")
    ap.add_argument("--draft", choices=DRAFTS, default="7", help="the draft to print (default: 7)")
    a = ap.parse_args(argv)
    bad = problems()
    for p in bad:
        print(p, file=sys.stderr)
    here = os.path.dirname(os.path.abspath(__file__))
    if a.write or a.check:
        stale = False
        for draft, rel in SHIPPED.items():
            path = os.path.join(here, rel)
            want = editor_schema_text(draft)
            if a.write:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(want)
                print(f"wrote {path}")
            else:
                try:
                    with open(path, encoding="utf-8") as f:
                        stale = stale or f.read() != want
                except OSError:
                    stale = True
                if stale:
                    print(f"{path} is stale: run python -m gamespec.authoring.editor_schema --write", file=sys.stderr)
        return 1 if bad or stale else 0
    sys.stdout.write(editor_schema_text(a.draft))
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
