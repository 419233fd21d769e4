"""State ⇄ JSON: a complete, checked, plain-data form of a state (saved games are untrusted input)."""
from __future__ import annotations

from gamespec.errors import StateFormatError

FORMAT = "gamespec-state/1"


def _tuples(x):
    return tuple(_tuples(y) for y in x) if isinstance(x, list) else x


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


def _need(cond, msg):
    if not cond:
        raise StateFormatError(f"bad saved state: {msg}")


def _is_int(x, lo=None, hi=None):
    return type(x) is int and (lo is None or x >= lo) and (hi is None or x < hi)


def from_json(game, d):
    """Rebuild a State from to_json() output, checking every field (raises StateFormatError)."""
    from .flow import SUSPEND
    from .state import State
    _need(isinstance(d, dict), "not a JSON object")
    _need(d.get("format") == FORMAT, f"format is not {FORMAT!r}")
    _need(d.get("spec_sha256") == game.spec.sha256, "it was saved from another version of the spec")
    P = d.get("players")
    _need(_is_int(P, game.spec.min_players, game.spec.max_players + 1), "player count out of range")
    try:
        from .ruleset import option_set
        opts = option_set(game.spec, d.get("options") if isinstance(d.get("options"), dict) else {})
    except ValueError as e:
        raise StateFormatError(f"bad saved state: {e}") from None
    rs = game.ruleset(P, opts)
    s = State.__new__(State)
    s.rs, s.game = rs, game
    zones = d.get("zones")
    _need(isinstance(zones, list) and len(zones) == rs.nzones, "wrong number of zones")
    seen = [False] * rs.ncards
    loc = [0] * rs.ncards
    for zi, z in enumerate(zones):
        _need(isinstance(z, list), "a zone is not a list")
        for c in z:
            _need(_is_int(c, 0, rs.ncards), f"card id {c!r} out of range")
            _need(not seen[c], f"card {c} is in two places")
            seen[c] = True
            loc[c] = zi
    _need(all(seen), "cards are missing")
    s.z = [list(z) for z in zones]
    s.loc = loc
    vs = d.get("vars")
    _need(isinstance(vs, list) and len(vs) == len(rs.var_init), "wrong number of variables")
    for x, decl in zip(vs, rs.var_decl):
        if decl.type in ("cards", "list"):
            _need(isinstance(x, list) and all(_scalar(y) for y in x), f"variable '{decl.name}' is not a list")
            if decl.type == "cards":
                _need(all(_is_int(y, 0, rs.ncards) for y in x), f"variable '{decl.name}' names no card")
        elif decl.type == "card":
            _need(x is None or _is_int(x, 0, rs.ncards), f"variable '{decl.name}' names no card")
        else:
            _need(_scalar(x), f"variable '{decl.name}' has a bad value")
            _need(not (type(x) is int and abs(x) >= 1 << 63), f"variable '{decl.name}' is too large")
    s.v = [list(x) if isinstance(x, list) else x for x in vs]
    kn = d.get("known")
    _need(isinstance(kn, list) and len(kn) == rs.ncards and all(_is_int(k, 0, 1 << rs.P) for k in kn),
          "bad knowledge masks")
    s.kn = list(kn)
    face = d.get("face")
    _need(isinstance(face, dict), "bad face overrides")
    s.face = {}
    for k, f in face.items():
        _need(k.isdigit() and _is_int(int(k), 0, rs.ncards) and f in (1, 2), "bad face override")
        s.face[int(k)] = f
    _need(_is_int(d.get("rng"), 1, 1 << 64), "bad RNG state")
    s.rng = d["rng"]
    _need(d.get("seed") is None or _is_int(d.get("seed")), "bad seed")
    s.seed = d.get("seed")
    for key in ("actor", "current"):
        _need(_is_int(d.get(key), 0, P), f"bad {key}")
    s.actor, s.cur = d["actor"], d["current"]
    _need(_is_int(d.get("phase"), -1, len(rs.phases)), "bad phase")
    s.phase = d["phase"]
    for key in ("turns", "decisions"):
        _need(_is_int(d.get(key), 0), f"bad {key}")
    s.turns, s.decisions = d["turns"], d["decisions"]
    _need(isinstance(d.get("terminal"), bool), "bad terminal flag")
    s.terminal = d["terminal"]
    flow = d.get("flow")
    _need(isinstance(flow, dict), "bad flow variables")
    s.fenv = {k: _tuples(v) if False else v for k, v in flow.items()}
    hist = d.get("history")
    _need(isinstance(hist, list), "bad history")
    h = None
    for ev in hist:
        _need(isinstance(ev, list) and ev and ev[0] in ("d", "r"), "bad history event")
        h = (_tuples(ev), h)
    s.hist = h
    log = d.get("log")
    _need(log is None or isinstance(log, list), "bad log")
    s.log = None if log is None else [dict(x, _cards=_tuples(x["_cards"])) if isinstance(x, dict) and "_cards" in x
                                      else x for x in log]
    s.script = None
    s.budget = rs.spec.steps_per_decision
    s._legal = None
    s._index = None
    if s.terminal:
        _need(isinstance(d.get("scores"), list) and len(d["scores"]) == P, "bad scores")
        _need(isinstance(d.get("winners"), list), "bad winners")
        s.scores, s.winners = d["scores"], d["winners"]
        s.pc, s.pending = d.get("pc"), -1
    else:
        s.scores = s.winners = None
        pending = d.get("pending")
        _need(_is_int(pending, 0, len(rs.chooses)), "bad pending decision")
        ch = rs.chooses[pending]
        _need(d.get("pc") == ch.pc, "program counter does not match the pending decision")
        s.pc, s.pending = ch.pc, pending
        try:
            legal = s._enumerate(ch)
        except Exception as e:  # a tampered state can make rules fail: report, do not crash
            raise StateFormatError(f"bad saved state: its rules fail here ({e})") from None
        _need(legal, "no legal action in this state")
        s._legal = legal
    return s


def _scalar(x):
    return x is None or isinstance(x, (bool, int, str))
