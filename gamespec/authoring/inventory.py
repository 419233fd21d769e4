"""Spec JSON Schema + rule grammar + checker built-ins → the inventory of things the reference documents.

Every id this module yields must have an entry in data/reference.yaml; the ids are derived from the
sources (never listed by hand), so a key, construct or built-in added anywhere shows up here.
"""
from __future__ import annotations

import re


def spec_schema() -> dict:
    from gamespec.spec.schema import schema
    return schema()


def _resolve(node, root):
    ref = node.get("$ref") if isinstance(node, dict) else None
    if ref and ref.startswith("#/$defs/"):
        name = ref[len("#/$defs/"):]
        return name, root["$defs"][name]
    return None, node


def schema_keys() -> list[dict]:
    """Every key of the spec schema as {id, section, key, schema, required, enum}, in schema order.

    The id is `SECTION.KEY` where SECTION is the nearest enclosing `$defs` entry ('spec' for the top
    level) and KEY the path inside it (`limits.steps_per_decision`, `<attribute>` for free keys);
    enum values get `SECTION.KEY=VALUE`.
    """
    root = spec_schema()
    out, seen = [], set()

    def emit(section, path, node, required):
        kid = f"{section}.{path}"
        if kid in seen:
            return
        seen.add(kid)
        out.append({"id": kid, "section": section, "key": path, "schema": node, "required": required})
        for v in _enums(node, root):
            vid = f"{kid}={v}"
            if vid not in seen:
                seen.add(vid)
                out.append({"id": vid, "section": section, "key": f"{path}={v}", "schema": None,
                            "required": False, "value": v})

    visited_defs = set()

    def walk(section, prefix, node):
        name, node = _resolve(node, root)
        if name is not None:
            if name not in visited_defs:
                visited_defs.add(name)
                walk(name, "", node)
            return
        if not isinstance(node, dict):
            return
        for branch in node.get("anyOf", []) + node.get("oneOf", []):
            walk(section, prefix, branch)
        if "items" in node and isinstance(node["items"], dict):
            walk(section, prefix, node["items"])
        props = node.get("properties", {})
        req = set(node.get("required", []))
        for key, sub in props.items():
            path = f"{prefix}.{key}" if prefix else key
            emit(section, path, sub, key in req)
            walk(section, path, sub)
        extra = node.get("additionalProperties")
        if isinstance(extra, dict) and props:      # a mapping with fixed keys and free ones
            path = f"{prefix}.<attribute>" if prefix else "<attribute>"
            emit(section, path, extra, False)
            walk(section, path, extra)
        elif isinstance(extra, dict):              # a mapping NAME: ...
            walk(section, prefix, extra)

    walk("spec", "", root)
    return out


def _enums(node, root):
    _, node = _resolve(node, root)
    vals = []
    if isinstance(node, dict):
        vals += [v for v in node.get("enum", []) if isinstance(v, str)]
        for b in node.get("anyOf", []) + node.get("oneOf", []):
            vals += _enums(b, root)
    return vals


def schema_type(node) -> str:
    """A short human name for a schema node's type."""
    root = spec_schema()
    name, node = _resolve(node, root)
    if name is not None:
        return {"effects": "effects (rule text)", "value": "value", "scalar": "scalar",
                "steps": "list of steps", "next": "phase name or list of {if, goto}"}.get(name, name.replace("_", " "))
    if not isinstance(node, dict):
        return "any"
    if "enum" in node:
        return " | ".join(str(v) for v in node["enum"])
    if "anyOf" in node:
        return " or ".join(dict.fromkeys(schema_type(b) for b in node["anyOf"]))
    t = node.get("type")
    if isinstance(t, list):
        return " or ".join(t)
    if t == "array":
        items = node.get("items")
        n = node.get("minItems"), node.get("maxItems")
        inner = schema_type(items) if items else "any"
        return f"[{inner}, {inner}]" if n == (2, 2) else f"list of {inner}"
    if t == "object":
        extra = node.get("additionalProperties")
        if isinstance(extra, dict) and not node.get("properties"):
            return f"mapping NAME → {schema_type(extra)}"
        return "mapping"
    return t or "any"


# ---- grammar ---------------------------------------------------------------------------
_RULE = re.compile(r"^(\??)([a-z_][a-z0-9_]*)\s*:", re.M)
_ALIAS = re.compile(r"->\s*([a-z_][a-z0-9_]*)")
_TERM = re.compile(r"^([A-Z_]+_OP)(?:\.\d+)?\s*:(.*)$", re.M)
_LIT = re.compile(r'"((?:[^"\\]|\\.)*)"|/((?:[^/\\]|\\.)*)/')


def grammar_text() -> str:
    from ..spec.parser import grammar_text as text     # package data when installed, else the source tree
    return text()


def grammar_constructs() -> list[dict]:
    """Every construct of the rule grammar: named rules (not `?`-inlined), `-> alias` names and the
    literals of the *_OP operator terminals, each as {id, kind, name, line}."""
    text = grammar_text()
    out, seen = [], set()

    def add(kind, name, pos):
        kid = f"{kind}.{name}"
        if kid not in seen:
            seen.add(kid)
            out.append({"id": kid, "kind": kind, "name": name, "line": text.count("\n", 0, pos) + 1})

    for m in _RULE.finditer(text):
        if not m.group(1):
            add("grammar", m.group(2), m.start())
    for m in _ALIAS.finditer(text):
        add("grammar", m.group(1), m.start())
    for m in _TERM.finditer(text):
        body = m.group(2)
        # an operator may continue on the next lines ("| ...")
        rest = text[m.end():]
        for line in rest.split("\n")[1:]:
            if line.strip().startswith("|"):
                body += line
            else:
                break
        for lm in _LIT.finditer(body):
            if lm.group(1) is not None:
                op = lm.group(1)
            else:
                op = re.sub(r"\[ \\t\\r\\n\]\+", " ", lm.group(2)).replace("\\b", "")
            add("operator", op, m.start())
    return out


def builtins() -> list[dict]:
    from gamespec.spec.builtins import TABLE
    return [{"id": f"builtin.{b.name}", "name": b.name, "min": b.min_args, "max": b.max_args,
             "kwargs": list(b.kwargs), "effect": b.statement} for b in TABLE]


def constants() -> list[dict]:
    from gamespec.spec.builtins import CONSTANTS
    return [{"id": f"name.{n}", "name": n, "type": t} for n, t in CONSTANTS.items()]


def inventory() -> list[dict]:
    """Everything the reference must document, each with its id."""
    return schema_keys() + grammar_constructs() + builtins() + constants()
