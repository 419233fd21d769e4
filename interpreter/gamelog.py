"""Logs as JSON lines: the full log (enough to re-check a game independently), a log per player, replay."""
from __future__ import annotations

import json
import os
import stat

from gamespec.errors import GamespecError, IllegalAction, SpecRuntimeError, StateFormatError

from . import rng as _rng
from .observe import face_dict


def header(s) -> dict:
    rs = s.rs
    return {"type": "header", "format": "gamespec-log/1", "game": rs.spec.name,
            "spec": rs.spec.filename, "spec_sha256": rs.spec.sha256, "seed": s.seed,
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
            out.append({k: _copy(v) for k, v in line.items() if k not in ("cards", "faces", "zones", "seed")}
                       | {"zones": zones, "for_player": player})
        elif t == "chance":
            zi = rs.zone_label.index(line["zone"])
            if rs.zvis[zi] & bit:
                out.append({k: _copy(v) for k, v in line.items()} | {"order": [face(c) for c in line["order"]]})
            else:
                out.append({"type": "chance", "event": line["event"], "zone": line["zone"],
                            "size": len(line["order"])})
        elif t == "decision":
            act = _copy(line["action"])
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
            out.append(_copy(line))
    return out


def write_jsonl(lines, path):
    with open(path, "w", encoding="utf-8") as f:
        for line in lines:
            f.write(json.dumps(line, separators=(",", ":")) + "\n")


MAX_LOG_BYTES = 64 * 1024 * 1024   # a log is untrusted input: refused beyond this size
MAX_SEED_BITS = 4096


class Script:
    """Chance events taken from a log instead of the RNG (replay without the seed).

    With the seed known, each logged order must also be the one the seed gives: a log whose shuffles
    were altered is caught at the first altered one."""

    def __init__(self, events, seed=None):
        self.events = list(events)
        self.i = 0
        self.seed = seed
        self.rng = _rng.seed_state(seed) if seed is not None else None

    def next_shuffle(self, s, zi):
        label = s.rs.zone_label[zi]
        if self.i >= len(self.events):
            raise ReplayDivergence(f"the game shuffles '{label}' but the log has no more chance events")
        ev = self.events[self.i]
        self.i += 1
        if ev.get("zone") != label:
            raise ReplayDivergence(f"chance event {self.i}: the game shuffles '{label}' but the log "
                                   f"shuffles {str(ev.get('zone'))[:60]!r}")
        order = ev.get("order")
        if not isinstance(order, list) or sorted(map(_key, order)) != sorted(map(_key, s.z[zi])):
            raise ReplayDivergence(f"chance event {self.i}: the logged order of '{label}' is not a "
                                   "shuffle of its cards")
        if self.rng is not None:
            expected = list(s.z[zi])
            self.rng = _rng.shuffle(self.rng, expected)
            if expected != order:
                raise ReplayDivergence(f"chance event {self.i}: the logged order of '{label}' is not the "
                                       f"shuffle seed {self.seed} gives (the log was altered)")
        return list(order)


def _key(x):
    return (type(x).__name__, x if isinstance(x, int) else str(x))


class ReplayDivergence(SpecRuntimeError):
    """The game and the log disagree. A SpecRuntimeError so that the rule running the shuffle lets it
    through unchanged, like any run-time error."""


def _no_constant(name):
    raise ValueError(f"{name} is not JSON")


def read_log(path) -> list:
    """The lines of a log file (JSON objects); StateFormatError if it is not one (OSError if unreadable)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise StateFormatError(f"{path}: not a regular file")
        data = f.read(MAX_LOG_BYTES + 1)
    if len(data) > MAX_LOG_BYTES:
        raise StateFormatError(f"{path}: the log is larger than {MAX_LOG_BYTES} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise StateFormatError(f"{path}: not UTF-8 text (byte {e.start})") from None
    del data
    lines = []
    for n, raw in enumerate(text.split("\n"), 1):
        raw = raw.strip()
        if not raw:
            continue
        try:
            obj = json.loads(raw, parse_constant=_no_constant)
        except RecursionError:
            raise StateFormatError(f"{path}:{n}: not JSON (nested too deeply)") from None
        except ValueError as e:
            raise StateFormatError(f"{path}:{n}: not JSON ({str(e)[:200]})") from None
        if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
            raise StateFormatError(f"{path}:{n}: a log line is a JSON object with a 'type'")
        lines.append(obj)
    if not lines or lines[0]["type"] != "header":
        raise StateFormatError(f"{path}: the first line must be the header")
    return lines


def _plain(v):
    """A parameter value as a log may hold it: a scalar or a flat list of scalars."""
    scalar = lambda x: x is None or isinstance(x, (bool, int, str))
    return scalar(v) or (isinstance(v, list) and all(scalar(x) for x in v))


class _Malformed(Exception):
    pass


def _header(h, game):
    """(players, options, seed) of a log header, checked."""
    P = h.get("players")
    if type(P) is not int:
        raise _Malformed(f"the header's player count {str(P)[:40]!r} is not a number")
    opts = h.get("options")
    if opts is None:
        opts = {}
    if not isinstance(opts, dict):
        raise _Malformed("the header's options are not a JSON object")
    seed = h.get("seed")
    if seed is not None and (type(seed) is not int or seed.bit_length() > MAX_SEED_BITS):
        raise _Malformed(f"the header's seed {str(seed)[:40]!r} is not a whole number")
    if "zones" in h and not isinstance(h["zones"], dict):
        raise _Malformed("the header's zones are not a JSON object")
    return P, game.check_options(opts), seed


def replay(game, lines) -> dict:
    """Re-play a full log. Returns {'ok': bool, 'decisions': n, 'error': message or None}.

    n is the number of decisions that matched; the error names the first one that did not (or the
    first chance event that did not)."""
    done = 0

    def fail(msg):
        return {"ok": False, "decisions": done, "error": msg}

    try:
        if not isinstance(lines, list) or not lines or not all(
                isinstance(x, dict) and isinstance(x.get("type"), str) for x in lines):
            return fail("malformed log: each line is a JSON object with a 'type'")
        h = lines[0]
        if h["type"] != "header":
            return fail("malformed log: the first line must be the header")
        if h.get("spec_sha256") not in (None, game.spec.sha256):
            return fail("the log was written by another version of the spec")
        P, opts, seed = _header(h, game)
        chance = [x for x in lines if x["type"] == "chance"]
        decisions = [x for x in lines if x["type"] == "decision"]
        ends = [x for x in lines if x["type"] == "end"]
        script = Script(chance, seed)
        rs = game.ruleset(P, opts)
        if "zones" in h:
            init = {rs.zone_label[zi]: [] for zi in range(rs.nzones)}
            for c, zi in enumerate(rs.init_zone):
                init[rs.zone_label[zi]].append(c)
            if h["zones"] != init:
                return fail("the initial arrangement in the header is not this spec's")
        from .state import State
        s = State.new(game, rs, seed, log=False, script=script)
        for i, d in enumerate(decisions, 1):
            if s.terminal:
                return fail(f"decision {i}: the game had already ended")
            if d.get("player") != s.current_player:
                return fail(f"decision {i}: the log says player {str(d.get('player'))[:20]} decides, "
                            f"the game says player {s.current_player}")
            act = d.get("action")
            if not isinstance(act, dict) or not all(isinstance(k, str) and _plain(v) for k, v in act.items()):
                return fail(f"decision {i}: illegal move: the action is not a JSON object of plain values")
            try:
                s.apply(act)
            except IllegalAction as e:
                return fail(f"decision {i}: illegal move: {e}")
            done = i
        if not s.terminal:
            return fail("the log ends before the game does")
        if script.i != len(chance):
            return fail("the log has chance events the game never used")
        if ends:
            e = ends[-1]
            if e.get("scores") != s.scores or e.get("winners") != s.winners:
                return fail(f"final scores differ: log {str(e.get('scores'))[:80]} / "
                            f"{str(e.get('winners'))[:40]}, replay {s.scores} / {s.winners}")
        return {"ok": True, "decisions": len(decisions), "error": None, "scores": s.scores,
                "winners": s.winners}
    except ReplayDivergence as e:
        return fail(e.message)
    except _Malformed as e:
        return fail(f"malformed log: {e}")
    except SpecRuntimeError as e:
        return fail(f"the spec failed during replay: {e}")
    except (GamespecError, KeyError, TypeError, ValueError) as e:   # UsageError: players, options
        return fail(f"malformed log: {str(e)[:300]}")
    except RecursionError:
        return fail("malformed log: nested too deeply")
