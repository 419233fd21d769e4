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
        return f"unknown key {_short(str(k))} in {_where(err.absolute_path)}{hint}", list(err.absolute_path) + [k], True
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
        return (f"{_where(err.absolute_path)} is {_short(inst)}; it must be one of {', '.join(opts)}{hint}",
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
    return f"{_where(err.absolute_path)}: {_cut(err.message)}", list(err.absolute_path), False


SHOWN = 60      # characters of a bad value an error message quotes (a spec's value can be megabytes)


def _short(v) -> str:
    """repr(v), cut to SHOWN characters with its length said."""
    r = repr(v)
    if len(r) <= SHOWN:
        return r
    n = f" ({len(v)} characters)" if isinstance(v, str) else ""
    return r[:SHOWN - 3] + "..." + n


def _cut(msg: str) -> str:
    """jsonschema's own message (it quotes the whole value), cut to a readable length."""
    return msg if len(msg) <= 4 * SHOWN else msg[:4 * SHOWN - 3] + "..."


def validate(data, filename: str) -> None:
    if not isinstance(data, dict):
        raise SpecErrors([SpecError("a spec is a YAML mapping (name: ..., players: ..., ...)", filename, 1, 1,
                                    check="schema")])
    errors = []
    paths = []
    seen = set()
    for err in sorted(_validator().iter_errors(data), key=lambda e: list(map(str, e.absolute_path))):
        msg, path, is_key = _friendly(err)
        paths.append((list(err.absolute_path), path if is_key else None))
        line, col = _locate(data, path, key_of_last=is_key)
        if (line, col, msg) in seen:
            continue
        seen.add((line, col, msg))
        errors.append(SpecError(msg, filename, line, col, check="schema"))
        if len(errors) >= 50:
            break
    if errors:
        e = SpecErrors(errors)
        e.paths = paths      # where each problem is: the loader checks the rest of the spec around them
        raise e


# The sections whose entries are declarations by name: a broken entry can be left out and the rest of
# the spec still checked (the errors that only say its name is unknown are its consequences).
NAMED = ("options", "cards", "zones", "variables", "marks", "tables", "define", "effects", "triggers",
         "actions", "phases")


def without_problems(data, paths):
    """A copy of the spec data without the parts the schema refused, and the names it left out; or
    None when a refused part is not one that can be left out (a top-level value such as `players`).

    An unknown key is dropped by itself; any other problem inside a declaration (`zones.deck...`)
    drops that declaration."""
    from .yamlsafe import YMap
    copies = {}

    def copy_of(path):
        """The mapping at `path`, copied (once) along with the mappings above it."""
        key = tuple(path)
        if key not in copies:
            parent = copy_of(path[:-1]) if path else None
            if path and parent is None:
                return None
            node = parent.get(path[-1]) if path else data
            if not isinstance(node, dict):
                return None
            new = YMap(node)
            for attr in ("mark", "key_marks", "value_marks"):
                setattr(new, attr, getattr(node, attr, {} if attr != "mark" else None))
            if path:
                parent[path[-1]] = new
            copies[key] = new
        return copies[key]

    root = copy_of([])
    left_out = set()
    for at, unknown_key in paths:
        if unknown_key is not None and (len(unknown_key) == 1 or unknown_key[0] not in NAMED or len(unknown_key) > 2):
            holder = copy_of(unknown_key[:-1])
            if holder is not None:
                holder.pop(unknown_key[-1], None)
                continue
        if len(at) >= 2 and at[0] in NAMED:
            holder = copy_of(at[:1])
            if holder is not None:
                holder.pop(at[1], None)
                left_out.add(str(at[1]))
                continue
        return None, set()
    return root, left_out
