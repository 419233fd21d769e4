"""State -> plain JSON data (the saved-state format); never builds a State, so state.py may import it."""
from __future__ import annotations

FORMAT = "gamespec-state/1"


def plain(x):
    """A fresh copy as plain JSON data (dicts and lists, tuples become lists): nothing returned by
    the API is shared with the state, so changing it cannot change the game."""
    if isinstance(x, dict):
        return {k: plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [plain(v) for v in x]
    return x


def to_json(s) -> dict:
    from .observe import history_entries
    rs = s.rs
    d = {
        "format": FORMAT, "game": rs.spec.name, "spec_sha256": rs.spec.sha256,
        "players": rs.P, "options": dict(rs.options), "seed": s.seed,
        "zones": [list(z) for z in s.z], "vars": [plain(x) for x in s.v],
        "face": {str(c): f for c, f in sorted(s.face.items())}, "known": list(s.kn), "rng": s.rng,
        "generator": s.gen,
        "pc": s.pc, "pending": s.pending, "actor": s.actor, "current": s.cur, "phase": s.phase,
        "flow": {k: plain(v) for k, v in s.fenv.items()}, "turns": s.turns, "decisions": s.decisions,
        "terminal": s.terminal, "scores": plain(s.scores), "winners": plain(s.winners),
        "history": [plain(ev) for ev in history_entries(s)],
        "log": [plain(x) for x in s.log] if s.log is not None else None,
    }
    if rs.mark_names:     # per-card marks: only in the saved states of games that declare them
        d["marks"] = {name: list(col) for name, col in zip(rs.mark_names, s.mk)}
    return d


def same_json(a, b):
    """Equal as JSON values, types included (True is not 1); iterative, so any depth is fine."""
    stack = [(a, b)]
    while stack:
        a, b = stack.pop()
        if isinstance(a, str) or isinstance(b, str):
            if not (isinstance(a, str) and isinstance(b, str) and a == b):
                return False
        elif type(a) is not type(b):
            return False
        elif type(a) is list:
            if len(a) != len(b):
                return False
            stack.extend(zip(a, b))
        elif type(a) is dict:
            if a.keys() != b.keys():
                return False
            stack.extend((a[k], b[k]) for k in a)
        elif a != b:
            return False
    return True


def json_key(v):
    """A JSON value as a hashable key (true is not 1, a list is not a tuple: their keys differ)."""
    if isinstance(v, dict):
        return tuple(sorted((k, json_key(x)) for k, x in v.items()))
    if isinstance(v, list):
        return ("__list__",) + tuple(json_key(x) for x in v)
    if isinstance(v, bool):
        return ("__bool__", v)
    return v
