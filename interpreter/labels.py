"""An action + what its chooser saw → the texts of its label's `{expression}` placeholders (compiled by
gamespec/compile/labels.py): from its parameters alone, cards as the faces the chooser saw, so a label
holds only what the chooser knows."""
from __future__ import annotations


def expression_values(rt, args, seen):
    """The values label expressions read: raw parameters, and cards as the faces the chooser saw."""
    rs = rt.rs
    out = {}
    for p, v, f in zip(rt.params, args, seen):
        if p.kind == "card":
            out[p.name] = rs.faces[f] if f is not None else None
        elif p.kind == "subset":
            out[p.name] = [rs.faces[x] if x is not None else None for x in (f or ())] if f else [None] * len(v)
        else:
            out[p.name] = list(v) if isinstance(v, tuple) else v
    return out


def fill_expressions(rt, shown, args, seen):
    """Adds each `{expression}` placeholder's text to `shown` (keyed by its text, as written)."""
    if rt.label_exprs:
        values = expression_values(rt, args, seen)
        for text, fn in rt.label_exprs:
            shown[text] = fn(values)
    return shown
