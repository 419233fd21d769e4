"""State + player → observation: only what that player may know, with perfect recall of what they saw."""
from __future__ import annotations


def face_dict(rs, f):
    """Face f as a fresh dict (list attributes copied too: the ruleset's faces are shared)."""
    return {k: list(v) if isinstance(v, list) else v for k, v in rs.faces[f].items()}


def card_view(s, c, bit):
    """The face of card c as a dict if the viewer sees or knows it, else None."""
    if c is None:
        return None
    f = s.face.get(c) if s.face else None
    rs = s.rs
    v = rs.zvis[s.loc[c]] if f is None else (rs.ALL if f == 1 else 0)
    if (v | s.kn[c]) & bit:
        return face_dict(rs, rs.face_of[c])
    return None


def mark_view(s, c, bit):
    """The marks of card c the viewer sees: `public` ones, and `zone` ones if they see the card where
    it lies now (not from memory: a mark may change out of sight)."""
    out = {}
    sees = None
    rs = s.rs
    for m, sight in enumerate(rs.mark_sight):
        if sight is None:       # seen with the card
            if sees is None:
                sees = bool(s._sight(c) & bit)
            if not sees:
                continue
        elif not sight & bit:
            continue
        out[rs.mark_names[m]] = s.mk[m][c]
    return out


def _marked_zone(s, cs, kind, views, bit):
    marks = [mark_view(s, c, bit) for c in cs]
    if kind == "pile":
        return {"size": len(cs), "cards": views, "marks": marks}
    seen = sorted(((v, mk) for v, mk in zip(views, marks) if v is not None),
                  key=lambda x: (_sort_key(x[0]), sorted(x[1].items())))
    hidden = sorted((mk for v, mk in zip(views, marks) if v is None), key=lambda mk: sorted(mk.items()))
    return {"size": len(cs), "cards": [v for v, _ in seen], "hidden": len(hidden),
            "marks": [mk for _, mk in seen], "hidden_marks": hidden}


def zone_view(s, zi, bit):
    rs = s.rs
    cs = s.z[zi]
    decl = rs.zone_decl[zi]
    views = [card_view(s, c, bit) for c in cs]
    if rs.mark_names:       # per-card marks: a "marks" list parallel to "cards" (docs/language.md)
        return _marked_zone(s, cs, decl.kind, views, bit)
    if decl.kind == "pile":
        return {"size": len(cs), "cards": views}   # bottom to top; None = a card you cannot see
    seen = sorted((v for v in views if v is not None), key=_sort_key)   # a set has no order to leak
    return {"size": len(cs), "cards": seen, "hidden": len(cs) - len(seen)}


def _sort_key(face):
    return sorted((k, str(v)) for k, v in face.items())


def sees_variable(rs, decl, bit, owner) -> bool:
    """Does the player with bit mask `bit` see variable decl (owner: the player of a per-player
    variable's entry, None otherwise)? The rule set holds who sees each cell (rs.var_sight)."""
    return bool(rs.var_sight[decl.name][owner if owner is not None else 0] & bit)


def value_view(s, decl, value, bit, owner):
    if not sees_variable(s.rs, decl, bit, owner):
        return None
    if decl.type == "card":
        return card_view(s, value, bit)
    if decl.type == "cards":
        return [card_view(s, c, bit) for c in value]
    return list(value) if isinstance(value, list) else value     # a copy: never the state's own


def observation(s, player: int) -> dict:
    rs = s.rs
    if not isinstance(player, int) or not 0 <= player < rs.P:
        raise ValueError(f"no player {player!r} (players are 0 to {rs.P - 1})")
    bit = 1 << player
    zones = {rs.zone_label[zi]: zone_view(s, zi, bit) for zi in range(rs.nzones)}
    variables = {}
    for name, base in rs.var_base.items():
        decl = rs.spec.variables[name]
        if decl.per_player or decl.per_team:     # one entry per player, or per team
            variables[name] = [value_view(s, decl, s.v[base + k], bit, k) for k in range(rs.cells(decl))]
        else:
            variables[name] = value_view(s, decl, s.v[base], bit, None)
    obs = {
        "player": player,
        "num_players": rs.P,
        "phase": s.phase_name,
        "current": s.cur,
        "to_move": s.current_player,
        "terminal": s.terminal,
        "zones": zones,
        "variables": variables,
        "history": history_view(s, player),
    }
    if rs.seat_team is not None:      # the game's teams (public): which team each seat is in
        obs["teams"] = list(rs.seat_team)
    if s.terminal:
        obs["scores"] = list(s.scores)
        obs["winners"] = list(s.winners)
    return obs


def history_entries(s):
    out = []
    h = s.hist
    while h is not None:
        out.append(h[0])
        h = h[1]
    out.reverse()
    return out


def render_event(s, ev, player, sees=None):
    """One history event as `player` saw it (`sees(mask)`: whether the reader saw a card of the event
    with that mask of seers; default: the player's bit is in it)."""
    rs = s.rs
    bit = 1 << player if sees is None else 0
    tag = ev[0]
    if tag == "s" and ev[1] != player:      # another's pending simultaneous choice: only that they chose
        return {"player": ev[1], "event": "chose"}
    if tag in ("d", "s", "v"):
        _, actor, name, args, cards = ev
        d = {"player": actor, "action": name}
        if tag == "s":
            d["secret"] = True      # the player's own choice, hidden from the others until the reveal
        elif tag == "v":
            d["event"] = "reveal"
        rt = rs.actions.get(name)
        if rt is not None:
            hidden = {i: (cs, masks) for i, cs, masks in cards}
            for i, (p, v) in enumerate(zip(rt.params, args)):
                if i in hidden:
                    cs, masks = hidden[i]
                    faces = [face_dict(rs, rs.face_of[c]) if (m & bit if sees is None else sees(m)) else None
                             for c, m in zip(cs, masks)]
                    d[p.name] = faces[0] if p.kind == "card" else faces
                else:
                    d[p.name] = list(v) if isinstance(v, tuple) else v
        return d
    if ev[0] == "r":
        _, p, cards = ev
        if p == player:
            return {"player": p, "event": "look", "cards": [face_dict(rs, rs.face_of[c]) for c in cards]}
        return {"player": p, "event": "look", "count": len(cards)}
    return {"event": ev[0]}


def history_view(s, player):
    return [render_event(s, ev, player) for ev in history_entries(s)]
