"""State → the public observation: what every seat knows (a spectator's view), in the shape of
`state.observation(p)` with `player` None. A card shows its face only when every player sees or
knows it; a variable only when it is public; another's look as a count; a secret choice as "chose".
"""
from __future__ import annotations

from gamespec.interpreter.observe import _sort_key, face_dict, history_entries, render_event


def _public(s, c) -> bool:
    all_ = s.rs.ALL
    return c is not None and (s._vis(c) & all_) == all_


def _face(s, c):
    return face_dict(s.rs, s.rs.face_of[c]) if _public(s, c) else None


def _marks(s, c):
    out = {}
    all_ = s.rs.ALL
    for m, decl in enumerate(s.rs.mark_decl):
        if decl.visibility == "public" or (decl.visibility == "zone" and (s._sight(c) & all_) == all_):
            out[decl.name] = s.mk[m][c]
    return out


def _zone(s, zi):
    rs = s.rs
    cs = s.z[zi]
    views = [_face(s, c) for c in cs]
    pile = rs.zone_decl[zi].kind == "pile"
    if rs.mark_names:
        marks = [_marks(s, c) for c in cs]
        if pile:
            return {"size": len(cs), "cards": views, "marks": marks}
        seen = sorted(((v, mk) for v, mk in zip(views, marks) if v is not None),
                      key=lambda x: (_sort_key(x[0]), sorted(x[1].items())))
        hidden = sorted((mk for v, mk in zip(views, marks) if v is None), key=lambda mk: sorted(mk.items()))
        return {"size": len(cs), "cards": [v for v, _ in seen], "hidden": len(hidden),
                "marks": [mk for _, mk in seen], "hidden_marks": hidden}
    if pile:
        return {"size": len(cs), "cards": views}
    seen = sorted((v for v in views if v is not None), key=_sort_key)
    return {"size": len(cs), "cards": seen, "hidden": len(cs) - len(seen)}


def _value(s, decl, value):
    if decl.visibility != "public":
        return None
    if decl.type == "card":
        return _face(s, value)
    if decl.type == "cards":
        return [_face(s, c) for c in value]
    return list(value) if isinstance(value, list) else value


def _event(s, ev):
    all_ = s.rs.ALL      # a card of an event is shown when every player saw it; the reader is nobody
    return render_event(s, ev, None, lambda m: (m & all_) == all_)


def public_observation(s) -> dict:
    rs = s.rs
    variables = {}
    for name, base in rs.var_base.items():
        decl = rs.spec.variables[name]
        if decl.per_player or decl.per_team:
            variables[name] = [_value(s, decl, s.v[base + k]) for k in range(rs.cells(decl))]
        else:
            variables[name] = _value(s, decl, s.v[base])
    obs = {"player": None, "num_players": rs.P, "phase": s.phase_name, "current": s.cur,
           "to_move": s.current_player, "terminal": s.terminal,
           "zones": {rs.zone_label[zi]: _zone(s, zi) for zi in range(rs.nzones)},
           "variables": variables, "history": [_event(s, ev) for ev in history_entries(s)]}
    if rs.seat_team is not None:
        obs["teams"] = list(rs.seat_team)
    if s.terminal:
        obs["scores"] = list(s.scores)
        obs["winners"] = list(s.winners)
    return obs
