"""YAML data → the same data, checked against the JSON Schema shipped as gamespec/schema.json."""
from __future__ import annotations

import difflib
import functools
import json
from importlib import resources

from ..errors import SpecError, SpecErrors


@functools.lru_cache(maxsize=1)
def schema() -> dict:
    return json.loads(resources.files("gamespec").joinpath("schema.json").read_text(encoding="utf-8"))


@functools.lru_cache(maxsize=1)
def _validator():
    import jsonschema  # imported here: only commands that validate pay for it
    cls = jsonschema.validators.validator_for(schema())
    return cls(schema())


def _locate(data, path, key_of_last=False):
    node, mark = data, getattr(data, "mark", (1, 1))
    parent, last = None, None
    for p in path:
        try:
            marks = node.value_marks if isinstance(node, dict) else node.item_marks
            mark = marks[p]
        except (AttributeError, KeyError, IndexError, TypeError):
            pass
        parent, last = node, p
        try:
            node = node[p]
        except (KeyError, IndexError, TypeError):
            break
    if key_of_last and isinstance(parent, dict):
        try:
            mark = parent.key_marks[last]
        except (AttributeError, KeyError):
            pass
    return mark[0], mark[1]


def _where(path):
    return ".".join(str(p) for p in path) or "the top level"


def _friendly(err):
    v = err.validator
    inst = err.instance
    if v == "additionalProperties":
        allowed = list(err.schema.get("properties", {}))
        extra = [k for k in inst if k not in allowed] if isinstance(inst, dict) else []
        k = extra[0] if extra else "?"
        close = difflib.get_close_matches(str(k), allowed, n=1)
        hint = f"; did you mean '{close[0]}'?" if close else (f"; allowed: {', '.join(allowed)}" if allowed else "")
        return f"unknown key '{k}' in {_where(err.absolute_path)}{hint}", list(err.absolute_path) + [k], True
    if v == "required":
        missing = err.message.split("'")[1] if "'" in err.message else err.message
        return f"{_where(err.absolute_path)} needs '{missing}'", list(err.absolute_path), False
    if v == "type":
        want = err.validator_value
        want = " or ".join(want) if isinstance(want, list) else want
        got = type(inst).__name__.replace("YStr", "string").replace("YMap", "mapping").replace("YList", "list")
        got = {"str": "string", "dict": "mapping", "list": "list", "NoneType": "nothing", "bool": "boolean",
               "int": "integer"}.get(got, got)
        extra = ""
        if "boolean" in want and isinstance(inst, str) and inst.lower() in ("yes", "no", "on", "off"):
            extra = " (write true or false; 'yes'/'no' are strings here)"
        return f"{_where(err.absolute_path)} should be {want}, not {got}{extra}", list(err.absolute_path), False
    if v == "enum":
        opts = [str(x) for x in err.validator_value]
        close = difflib.get_close_matches(str(inst), opts, n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        return (f"{_where(err.absolute_path)} is {inst!r}; it must be one of {', '.join(opts)}{hint}",
                list(err.absolute_path), False)
    if v in ("maxItems", "minItems", "maxProperties", "maxLength") and isinstance(inst, (list, dict, str)):
        # say the limit and the size, never the whole (possibly huge) value
        what = {"maxItems": ("at most", "items"), "minItems": ("at least", "items"),
                "maxProperties": ("at most", "keys"), "maxLength": ("at most", "characters")}[v]
        return (f"{_where(err.absolute_path)} has {len(inst)} {what[1]}; {what[0]} {err.validator_value} are allowed",
                list(err.absolute_path), False)
    if v in ("anyOf", "oneOf") and err.context:
        sized = [e for e in err.context if e.validator in ("maxItems", "minItems", "maxLength", "maxProperties")]
        if sized:   # the value has the right shape and the wrong size: say that, not another shape
            return _friendly(sized[0])
        best = min(err.context, key=lambda e: (len(e.absolute_path) * -1, e.validator != "type"))
        return _friendly(best)
    return f"{_where(err.absolute_path)}: {err.message}", list(err.absolute_path), False


def validate(data, filename: str) -> None:
    if not isinstance(data, dict):
        raise SpecErrors([SpecError("a spec is a YAML mapping (name: ..., players: ..., ...)", filename, 1, 1,
                                    check="schema")])
    errors = []
    seen = set()
    for err in sorted(_validator().iter_errors(data), key=lambda e: list(map(str, e.absolute_path))):
        msg, path, is_key = _friendly(err)
        line, col = _locate(data, path, key_of_last=is_key)
        if (line, col, msg) in seen:
            continue
        seen.add((line, col, msg))
        errors.append(SpecError(msg, filename, line, col, check="schema"))
        if len(errors) >= 50:
            break
    if errors:
        raise SpecErrors(errors)
