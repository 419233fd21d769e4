"""Logs as JSON lines: the full log (enough to re-check a game independently), a log per player, replay."""
from __future__ import annotations

import json

from gamespec.errors import IllegalAction, SpecRuntimeError, StateFormatError


def header(s) -> dict:
    rs = s.rs
    return {"type": "header", "format": "gamespec-log/1", "game": rs.spec.name,
            "spec": rs.spec.filename, "spec_sha256": rs.spec.sha256, "seed": s.seed,
            "players": rs.P, "options": dict(rs.options),
            "cards": [rs.face_label[f] for f in rs.face_of],
            "faces": [dict(rs.faces[f]) for f in rs.face_of],
            "zones": {rs.zone_label[zi]: list(z) for zi, z in enumerate(s.z)}}


def _need_log(s):
    if s.log is None:
        raise ValueError("this game was started without a log; use new_game(..., log=True)")


def full_log(s) -> list:
    _need_log(s)
    return [{k: v for k, v in line.items() if not k.startswith("_")} for line in s.log]


def log_for(s, player: int) -> list:
    """The log as `player` saw it: hidden zones as sizes, hidden cards as null, card ids never shown."""
    _need_log(s)
    rs = s.rs
    bit = 1 << player
    out = []
    face = lambda c: dict(rs.faces[rs.face_of[c]])
    for line in s.log:
        t = line["type"]
        if t == "header":
            zones = {}
            for label, cards in line["zones"].items():
                zi = rs.zone_label.index(label)
                if rs.zvis[zi] & bit:
                    zones[label] = [face(c) for c in cards]
                else:
                    zones[label] = {"size": len(cards)}
            out.append({k: v for k, v in line.items() if k not in ("cards", "faces", "zones", "seed")}
                       | {"zones": zones, "for_player": player})
        elif t == "chance":
            zi = rs.zone_label.index(line["zone"])
            if rs.zvis[zi] & bit:
                out.append(dict(line, order=[face(c) for c in line["order"]]))
            else:
                out.append({"type": "chance", "event": line["event"], "zone": line["zone"],
                            "size": len(line["order"])})
        elif t == "decision":
            act = dict(line["action"])
            rt = rs.actions.get(act["action"])
            for i, cs, masks in line.get("_cards", ()):
                p = rt.params[i]
                faces = [face(c) if m & bit else None for c, m in zip(cs, masks)]
                act[p.name] = faces[0] if p.kind == "card" else faces
            out.append({"type": "decision", "n": line["n"], "player": line["player"], "action": act})
        elif t == "look":
            if line["player"] == player:
                out.append({"type": "look", "player": player, "cards": [face(c) for c in line["cards"]]})
            else:
                out.append({"type": "look", "player": line["player"], "count": len(line["cards"])})
        else:
            out.append(dict(line))
    return out


def write_jsonl(lines, path):
    with open(path, "w", encoding="utf-8") as f:
        for line in lines:
            f.write(json.dumps(line, separators=(",", ":")) + "\n")


class Script:
    """Chance events taken from a log instead of the RNG (replay without the seed)."""

    def __init__(self, events):
        self.events = list(events)
        self.i = 0

    def next_shuffle(self, s, zi):
        label = s.rs.zone_label[zi]
        if self.i >= len(self.events):
            raise ReplayDivergence(f"the game shuffles '{label}' but the log has no more chance events")
        ev = self.events[self.i]
        self.i += 1
        if ev.get("zone") != label:
            raise ReplayDivergence(f"the game shuffles '{label}' but the log shuffles {ev.get('zone')!r}")
        order = ev.get("order")
        if not isinstance(order, list) or sorted(map(_key, order)) != sorted(map(_key, s.z[zi])):
            raise ReplayDivergence(f"the logged order of '{label}' is not a shuffle of its cards")
        return list(order)


def _key(x):
    return (type(x).__name__, x if isinstance(x, int) else str(x))


class ReplayDivergence(Exception):
    pass


def read_log(path) -> list:
    lines = []
    try:
        with open(path, encoding="utf-8") as f:
            for n, raw in enumerate(f, 1):
                if len(lines) > 10_000_000:
                    raise StateFormatError(f"{path}:{n}: log too long")
                raw = raw.strip()
                if not raw:
                    continue
                try:
                    obj = json.loads(raw)
                except ValueError as e:
                    raise StateFormatError(f"{path}:{n}: not JSON ({e})") from None
                if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
                    raise StateFormatError(f"{path}:{n}: a log line is a JSON object with a 'type'")
                lines.append(obj)
    except UnicodeDecodeError:
        raise StateFormatError(f"{path}: not UTF-8 text") from None
    if not lines or lines[0]["type"] != "header":
        raise StateFormatError(f"{path}: the first line must be the header")
    return lines


def replay(game, lines) -> dict:
    """Re-play a full log. Returns {'ok': bool, 'decisions': n, 'error': message or None}."""
    from .state import State
    h = lines[0]
    try:
        P = h["players"]
        opts = h.get("options") or {}
        if h.get("spec_sha256") not in (None, game.spec.sha256):
            return {"ok": False, "decisions": 0, "error": "the log was written by another version of the spec"}
        chance = [x for x in lines if x["type"] == "chance"]
        decisions = [x for x in lines if x["type"] == "decision"]
        ends = [x for x in lines if x["type"] == "end"]
        script = Script(chance)
        rs = game.ruleset(P, game.check_options(opts))
        if isinstance(h.get("zones"), dict):
            init = {rs.zone_label[zi]: [] for zi in range(rs.nzones)}
            for c, zi in enumerate(rs.init_zone):
                init[rs.zone_label[zi]].append(c)
            if h["zones"] != init:
                return {"ok": False, "decisions": 0,
                        "error": "the initial arrangement in the header is not this spec's"}
        s = State.new(game, rs, h.get("seed"), log=False, script=script)
        for i, d in enumerate(decisions, 1):
            if s.terminal:
                return {"ok": False, "decisions": i - 1, "error": f"decision {i}: the game had already ended"}
            if d.get("player") != s.current_player:
                return {"ok": False, "decisions": i - 1,
                        "error": f"decision {i}: the log says player {d.get('player')} decides, "
                                 f"the game says player {s.current_player}"}
            try:
                s.apply(d.get("action"))
            except IllegalAction as e:
                return {"ok": False, "decisions": i - 1, "error": f"decision {i}: illegal move: {e}"}
        if not s.terminal:
            return {"ok": False, "decisions": len(decisions), "error": "the log ends before the game does"}
        if script.i != len(chance):
            return {"ok": False, "decisions": len(decisions), "error": "the log has chance events the game never used"}
        if ends:
            e = ends[-1]
            if e.get("scores") != s.scores or e.get("winners") != s.winners:
                return {"ok": False, "decisions": len(decisions),
                        "error": f"final scores differ: log {e.get('scores')} / {e.get('winners')}, "
                                 f"replay {s.scores} / {s.winners}"}
        return {"ok": True, "decisions": len(decisions), "error": None, "scores": s.scores,
                "winners": s.winners}
    except ReplayDivergence as e:
        return {"ok": False, "decisions": 0, "error": str(e)}
    except (KeyError, TypeError, ValueError) as e:
        return {"ok": False, "decisions": 0, "error": f"malformed log: {e}"}
    except SpecRuntimeError as e:
        return {"ok": False, "decisions": 0, "error": f"the spec failed during replay: {e}"}
