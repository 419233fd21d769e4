"""An action + what its chooser saw → the texts of its label's `{expression}` placeholders (compiled by
gamespec/compile/labels.py): from its parameters alone, cards as the faces the chooser saw, so a label
holds only what the chooser knows. The one placeholder that reads the state, `{top(pile)}` /
`{bottom(pile)}`, shows the card at that end of the pile as the chooser sees it (`end_card_text`)."""
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


def fill_expressions(rt, shown, args, seen, state=None, chooser=None):
    """Adds each `{expression}` placeholder's text to `shown` (keyed by its text, as written). With the
    state and the chooser (a view's label), a zone end shows its card; without them, '?'."""
    if rt.label_exprs:
        values = expression_values(rt, args, seen)
        for text, fn in rt.label_exprs:
            shown[text] = fn(values, state, chooser)
    return shown


def end_card_text(s, p, zi, top):
    """The card at the top (else the bottom) of pile zi as player p sees it now: its label if p sees or
    knows its face, else the handle a view gives a hidden card of a pile ("hidden card N of ZONE", N
    counted from the bottom: a pile's size is public); "nothing" for an empty pile."""
    cs = s.z[zi]
    if not cs:
        return "nothing"
    pos = len(cs) - 1 if top else 0
    c = cs[pos]
    rs = s.rs
    if s._vis(c) >> p & 1:
        return rs.face_label[rs.face_of[c]]
    return pile_handle(pos, zone_words(rs, zi))


def zone_words(rs, zi):
    """Zone zi in a label's words, as a zone parameter reads: "deck", "hand of player 2" (a
    player's zone), "bank of team 1", "row 3" (another family's key); never the JSON key "hand[2]"."""
    d, k = rs.zone_decl[zi], rs.zone_key[zi]
    if k is None:
        return d.name
    if d.per_player:
        return f"{d.name} of player {k}"
    if d.per_team:
        return f"{d.name} of team {k}"
    return f"{d.name} {k}"


def pile_handle(pos, zone):
    """The words for a card of a pile its chooser cannot see, at position `pos` from the bottom."""
    return f"hidden card {pos + 1} of {zone}"
