"""Writing logs (state -> JSON lines): the full log (enough to re-check a game independently), a log per player.

Reading and re-playing them is interpreter/replay.py (which builds states; this module never does)."""
from __future__ import annotations

import json

from .observe import face_dict


def header(s) -> dict:
    rs = s.rs
    return {"type": "header", "format": "gamespec-log/1", "game": rs.spec.name,
            "spec": rs.spec.filename, "spec_sha256": rs.spec.sha256, "seed": s.seed, "generator": s.gen,
            "players": rs.P, "options": dict(rs.options),
            "cards": [rs.face_label[f] for f in rs.face_of],
            "faces": [face_dict(rs, f) for f in rs.face_of],
            "zones": {rs.zone_label[zi]: list(z) for zi, z in enumerate(s.z)}}


def _need_log(s):
    if s.log is None:
        raise ValueError("this game was started without a log; use new_game(..., log=True)")


def _copy(x):
    """A deep copy of plain JSON data (a log line handed out is never the state's own)."""
    if isinstance(x, dict):
        return {k: _copy(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_copy(v) for v in x]
    return x


def full_log(s) -> list:
    _need_log(s)
    return [{k: _copy(v) for k, v in line.items() if not k.startswith("_")} for line in s.log]


def log_for(s, player: int) -> list:
    """The log as `player` saw it: hidden zones as sizes, hidden cards as null, card ids never shown."""
    _need_log(s)
    rs = s.rs
    bit = 1 << player
    out = []
    face = lambda c: face_dict(rs, rs.face_of[c])
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
            out.append({k: _copy(v) for k, v in line.items() if k not in ("cards", "faces", "zones", "seed", "generator")}
                       | {"zones": zones, "for_player": player})
        elif t == "chance":
            zi = rs.zone_label.index(line["zone"])
            if rs.zvis[zi] & bit:
                out.append({k: _copy(v) for k, v in line.items()} | {"order": [face(c) for c in line["order"]]})
            else:
                out.append({"type": "chance", "event": line["event"], "zone": line["zone"],
                            "size": len(line["order"])})
        elif t == "decision" and line.get("secret") and line["player"] != player:
            # another's simultaneous choice: only that they chose, until the reveal line
            out.append({"type": "decision", "n": line["n"], "player": line["player"], "secret": True})
        elif t in ("decision", "reveal"):
            act = _copy(line["action"])
            rt = rs.actions.get(act["action"])
            for i, cs, masks in line.get("_cards", ()):
                p = rt.params[i]
                faces = [face(c) if m & bit else None for c, m in zip(cs, masks)]
                act[p.name] = faces[0] if p.kind == "card" else faces
            if t == "reveal":
                out.append({"type": "reveal", "player": line["player"], "action": act})
            else:
                out.append({"type": "decision", "n": line["n"], "player": line["player"], "action": act}
                           | ({"secret": True} if line.get("secret") else {}))
        elif t == "look":
            if line["player"] == player:
                out.append({"type": "look", "player": player, "cards": [face(c) for c in line["cards"]]})
            else:
                out.append({"type": "look", "player": line["player"], "count": len(line["cards"])})
        else:
            out.append(_copy(line))
    return out


def write_jsonl(lines, path):
    with open(path, "w", encoding="utf-8") as f:
        for line in lines:
            f.write(json.dumps(line, separators=(",", ":")) + "\n")
