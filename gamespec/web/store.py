"""Tables ↔ files in the state directory (`gamespec serve --state-dir DIR`): each table is its
verified full log (`ID.jsonl`, the lines `gamespec replay` checks) and a small record (`ID.json`:
spec file, seats, tokens, settings, notes). On start every record is read back: its seats must be
kinds a page may choose (a record is data: a kind naming code is refused, nothing imported), its
log is checked by interpreter/replay.py against the spec served now and re-played to the same
state; a table that fails is skipped with a message, never trusted. Files are written atomically,
mode 0600 (a record holds the seats' secret tokens).
"""
from __future__ import annotations

import json
import os
import re

from gamespec.errors import GamespecError

RECORD_FORMAT = "gamespec-table/1"
MAX_FILE_BYTES = 16 * 1024 * 1024
_ID = re.compile(r"^[0-9]{1,12}$")


def _write(path, text):
    tmp = path + ".tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def _read(path):
    with open(path, "rb") as f:
        data = f.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise ValueError(f"larger than {MAX_FILE_BYTES} bytes")
    return data.decode("utf-8")


class Store:
    """The state directory: save, forget and load tables."""

    def __init__(self, directory):
        self.dir = directory
        os.makedirs(directory, mode=0o700, exist_ok=True)

    def _paths(self, tid):
        return os.path.join(self.dir, f"{tid}.json"), os.path.join(self.dir, f"{tid}.jsonl")

    def save(self, t) -> None:
        rec, log = self._paths(t.id)
        lines = t.state.log_lines()
        _write(log, "".join(json.dumps(x, sort_keys=True, separators=(",", ":")) + "\n" for x in lines))
        _write(rec, json.dumps({
            "format": RECORD_FORMAT, "id": t.id, "spec": os.path.abspath(t.spec.path),
            "spec_sha256": t.game.spec.sha256, "players": t.players, "options": t.options,
            "seed": t.seed, "seed_chosen": t.seed_chosen, "kinds": t.kinds, "tokens": t.tokens,
            "watch_token": t.watch_token, "undo": t.allow_undo, "notes": t.notes}, sort_keys=True))

    def forget(self, tid) -> None:
        for p in self._paths(tid):
            try:
                os.remove(p)
            except FileNotFoundError:
                pass

    def load(self, registry, table_class, person, log=print) -> list:
        """Every saved table rebuilt and checked, in id order; messages for those skipped."""
        from gamespec.interpreter.replay import replay

        PERSON, Table = person, table_class       # (tables.py makes the store: no import back)
        by_path = {os.path.abspath(f.path): f for f in registry.specs.values()}
        out = []
        names = sorted((n[:-5] for n in os.listdir(self.dir) if n.endswith(".json") and _ID.match(n[:-5])), key=int)
        for tid in names:
            rec_path, log_path = self._paths(tid)
            try:
                rec = json.loads(_read(rec_path))
                lines = [json.loads(x) for x in _read(log_path).splitlines() if x.strip()]
                ok = (isinstance(rec, dict) and rec.get("format") == RECORD_FORMAT and rec.get("id") == tid
                      and isinstance(rec.get("kinds"), list) and isinstance(rec.get("tokens"), list)
                      and len(rec["kinds"]) == len(rec["tokens"]) == rec.get("players")
                      and all((k == PERSON) == isinstance(x, str) for k, x in zip(rec["kinds"], rec["tokens"]))
                      and isinstance(rec.get("watch_token"), str) and isinstance(rec.get("notes"), list)
                      and isinstance(rec.get("options"), dict) and type(rec.get("seed")) is int)
                if not ok:
                    raise ValueError("not a table record")
                registry.check_seats(rec["kinds"])      # a page's rule: no module:Class, no CPU hog
                spec = by_path.get(rec.get("spec"))
                if spec is None or spec.game is None:
                    raise ValueError(f"its spec {rec.get('spec')!r} is not served now (or has errors)")
                if spec.game.spec.sha256 != rec.get("spec_sha256"):
                    raise ValueError("its spec file has changed since")
                result = replay(spec.game, lines)
                decisions = [x for x in lines if x.get("type") == "decision"]
                if not (result["ok"] or result["unfinished"]):
                    raise ValueError(f"its log does not verify: {result['error']}")
                t = Table(tid, spec, rec["players"], spec.game.check_options(rec["options"]), rec["seed"],
                          rec["kinds"], registry.bot_factory, undo=rec.get("undo"), tokens=rec["tokens"],
                          watch_token=rec["watch_token"])
                t.start(spec.game, [d["action"] for d in decisions])
                if t.state.log_lines() != lines:
                    raise ValueError("its log does not re-play to the same game")
                t.seed_chosen = bool(rec.get("seed_chosen"))
                t.notes = [n for n in rec["notes"] if isinstance(n, dict) and type(n.get("at")) is int
                           and isinstance(n.get("text"), str)]
            except (OSError, ValueError, KeyError, TypeError, RecursionError, GamespecError) as e:
                log(f"gamespec serve: table {tid} ({rec_path}) not resumed: {str(e)[:300]}")
                continue
            out.append(t)
        return out
