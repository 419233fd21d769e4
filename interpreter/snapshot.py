"""State -> plain JSON data (the saved-state format); never builds a State, so state.py may import it."""
from __future__ import annotations

FORMAT = "gamespec-state/1"


def _lists(x):
    return [_lists(y) for y in x] if isinstance(x, tuple) else x


def to_json(s) -> dict:
    from .observe import history_entries
    rs = s.rs
    return {
        "format": FORMAT, "game": rs.spec.name, "spec_sha256": rs.spec.sha256,
        "players": rs.P, "options": dict(rs.options), "seed": s.seed,
        "zones": [list(z) for z in s.z], "vars": [list(x) if isinstance(x, list) else x for x in s.v],
        "face": {str(c): f for c, f in sorted(s.face.items())}, "known": list(s.kn), "rng": s.rng,
        "pc": s.pc, "pending": s.pending, "actor": s.actor, "current": s.cur, "phase": s.phase,
        "flow": {k: _lists(v) for k, v in s.fenv.items()}, "turns": s.turns, "decisions": s.decisions,
        "terminal": s.terminal, "scores": s.scores, "winners": s.winners,
        "history": [_lists(ev) for ev in history_entries(s)],
        "log": [dict(x, _cards=_lists(x["_cards"])) if "_cards" in x else x for x in s.log]
        if s.log is not None else None,
    }
