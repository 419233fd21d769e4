"""Checked Spec + its YAML `presentation:` mapping → the resolved presentation hints (every key with
its default) that the tables draw with, or SpecErrors at FILE:LINE:COL for names that do not exist.

Hints never change the rules: they say how a table names zones and variables, where it lays the
zones out, which card attribute colours a card and which is its corner number (docs/web.md).
"""
from __future__ import annotations

import json

from ..errors import SpecError, SpecErrors
from .yamlsafe import mark_of

COLOUR_NAMES = ("colour", "color", "suit")        # a default colour attribute is one of these...
VALUE_NAMES = ("value", "rank", "number")         # ...and a default corner number one of these
NAMED = {   # colour words → a card colour that reads well with dark text on it
    "red": "#d9534f", "blue": "#4a7fd1", "green": "#3f9c57", "yellow": "#f2cf3a", "orange": "#f08c2e",
    "pink": "#f29fc5", "purple": "#8e63c7", "violet": "#8e63c7", "black": "#3b3b3b", "white": "#f7f7f2",
    "brown": "#9b6a3c", "grey": "#9a9a9a", "gray": "#9a9a9a", "gold": "#d4af37", "silver": "#c0c0c8",
    "cyan": "#45c1d1", "teal": "#2f9a94",
}
PALETTE = ("#4a7fd1", "#d9534f", "#3f9c57", "#f2cf3a", "#8e63c7", "#f08c2e", "#45c1d1", "#9b6a3c",
           "#f29fc5", "#9a9a9a")


def _title(name) -> str:
    return str(name).replace("_", " ")


def word_key(value) -> str:
    """The key a value's word is found by (`words:` of a variable or mark hint): a text as it is,
    any other value as JSON (-1 → "-1", true → "true"); the web page keys them the same way."""
    return value if isinstance(value, str) else json.dumps(value)


def _words(h) -> dict:
    """A hint's words keyed by word_key (the loader allows only texts, whole numbers and true/false
    as mapping keys)."""
    return {word_key(k): text for k, text in (h.get("words") or {}).items()}


def _faces(spec):
    for cls in spec.classes:
        for attrs, *_ in cls.faces:
            yield dict(attrs, type=cls.name)


def resolve(spec, data, filename="<spec>") -> dict:
    """The hints of `spec` (a checked Spec; `data` its YAML mapping, for positions) with defaults."""
    raw = data.get("presentation") if isinstance(data, dict) else None
    raw = raw if isinstance(raw, dict) else {}
    errors = []

    def err(container, key, msg):
        line, col = mark_of(container, key)
        errors.append(SpecError(msg, filename, line, col, check="presentation"))

    faces = list(_faces(spec))
    attrs = [a for a in spec.attributes]
    ints = [a for a in attrs if any(type(f.get(a)) is int for f in faces)]
    colour = raw.get("colour")
    if colour is not None and colour not in attrs:
        err(raw, "colour", f"presentation.colour: no card attribute {colour!r} (attributes: {', '.join(attrs)})")
    if colour is None:
        colour = next((a for a in COLOUR_NAMES if a in attrs), None)
    value = raw.get("value")
    if value is not None and value not in ints:
        err(raw, "value", f"presentation.value: {value!r} is not a card attribute with whole-number values"
                          f" ({', '.join(ints) or 'no attribute has them'})")
    if value is None:
        value = next((a for a in VALUE_NAMES if a in ints), ints[0] if ints else None)
    colours = {}
    given = raw.get("colours") or {}
    values = []
    if colour is not None:
        for f in faces:
            v = f.get(colour)
            if v is not None and not isinstance(v, (list, dict)) and str(v) not in values:
                values.append(str(v))
    for k in given:
        if str(k) not in values:
            err(given, k, f"presentation.colours: {colour!r} has no value {k!r}"
                          f" (values: {', '.join(values) or 'none'})" if colour else
                "presentation.colours needs a colour attribute (presentation.colour)")
    free = iter(c for c in PALETTE if c not in {NAMED.get(v.lower()) for v in values})
    for v in values:
        colours[v] = given.get(v) or NAMED.get(v.lower()) or next(free, "#9a9a9a")

    zones = {}
    zhints = raw.get("zones") or {}
    for name in zhints:
        if name not in spec.zones:
            err(zhints, name, f"presentation.zones: no zone {name!r}")
    for name, decl in spec.zones.items():
        h = zhints.get(name) or {}
        area = h.get("area") or ("player" if decl.per_player else "shared")
        if area == "player" and not decl.per_player:
            err(h, "area", f"presentation.zones.{name}.area: 'player' is for a per-player zone")
            area = "shared"
        zones[name] = {"name": h.get("name") or _title(name), "show": h.get("show", True), "area": area,
                       "group": h.get("group"), "per_player": decl.per_player,
                       "family": decl.is_family, "kind": decl.kind}

    variables = {}
    vhints = raw.get("variables") or {}
    for name in vhints:
        if name not in spec.variables:
            err(vhints, name, f"presentation.variables: no variable {name!r}")
    for name, decl in spec.variables.items():
        h = vhints.get(name) or {}
        variables[name] = {"name": h.get("name") or _title(name), "show": h.get("show", True),
                           "per_player": decl.per_player, "player": decl.type == "player",
                           "words": _words(h),
                           # every seat sees its value, so a none there is "no value" ("–"), not "hidden"
                           # ("?"); a card variable's card may still be one the seat cannot see
                           "public": decl.visibility == "public" and decl.type not in ("card", "cards")}

    marks = {}
    mhints = raw.get("marks") or {}
    declared = getattr(spec, "marks", None) or {}
    for name in mhints:
        if name not in declared:
            err(mhints, name, f"presentation.marks: no mark {name!r}"
                              f" (marks: {', '.join(declared) or 'none declared'})")
    for name in declared:
        h = mhints.get(name) or {}
        marks[name] = {"name": h.get("name") or name, "words": _words(h)}
    if errors:
        raise SpecErrors(errors)
    return {"colour": colour, "value": value, "colours": colours, "zones": zones, "variables": variables,
            "marks": marks, "undo": bool(raw.get("undo", False))}


def of_game(game) -> dict:
    """The resolved hints of a loaded game (resolved now, with defaults, for a Spec built otherwise)."""
    p = getattr(game.spec, "presentation", None)
    if p is None:
        p = game.spec.presentation = resolve(game.spec, {})
    return p
