"""Per-game results → record rows (one per game) → a JSONL or CSV file written as games finish; and
record files → rows again (the same rows from either format)."""
from __future__ import annotations

import csv
import json
import math
import os

from gamespec.errors import RecordsError

FORMATS = {".jsonl": "jsonl", ".csv": "csv"}
MAX_LINE = 1 << 20          # a record line from a stranger's file: refuse absurd lines


TRACE_FIELDS = ("lead_changes", "decided_at", "winner_deficit", "actions")


def make_record(result, game, spec_sha256, players, options, cooperative=False, lineup=None, rotation=None,
                restriction=None) -> dict:
    """One game's result (from gamespec.simulate.play_one, or its error) → a record row (`teams`: the
    result's scoring teams, each seat's team number, or null without teams). `lineup` and
    `rotation`: a rotated study's unrotated line-up and this game's rotation; `restriction`: the
    restricted kind of a restricted-play study (docs/analysis.md)."""
    rec = {"game": game, "spec_sha256": spec_sha256, "seed": result["seed"], "players": players,
           "options": dict(options), "bots": list(result.get("bots") or ["random"] * players)}
    if lineup is not None:
        rec["lineup"] = list(lineup)
        rec["rotation"] = rotation or 0
    if restriction is not None:
        rec["restriction"] = restriction
    if "error" in result:
        rec["error"] = result["error"]
        rec["reason"] = result.get("reason") or ("internal" if result.get("internal") else "rule")
        return rec
    teams = result.get("teams")
    rec.update(scores=list(result["scores"]), winners=list(result["winners"]),
               teams=list(teams) if teams is not None else None,
               cooperative=bool(cooperative), decisions=result["decisions"], turns=result["turns"],
               phases=result.get("phases"), seconds=result.get("seconds"))
    if "actions" in result:
        for k in TRACE_FIELDS:
            rec[k] = result.get(k)
    return rec


def format_of(path) -> str:
    ext = os.path.splitext(os.fspath(path))[1].lower()
    fmt = FORMATS.get(ext)
    if fmt is None:
        raise RecordsError(f"{path}: a records file ends in .jsonl or .csv, not {ext or 'nothing'!r}")
    return fmt


CSV_FIELDS = ["game", "spec_sha256", "seed", "players", "options", "bots", "scores", "winners", "teams",
              "cooperative", "decisions", "turns", "phases", "seconds", "error", "reason", "lineup", "rotation",
              "restriction", "lead_changes", "decided_at", "winner_deficit", "actions"]


def _csv_value(v):
    if isinstance(v, dict):
        return ";".join(f"{k}={_plain(x)}" for k, x in v.items())
    if isinstance(v, list):
        return ";".join(_plain(x) for x in v)
    if v is None:
        return ""
    return _plain(v)


def _plain(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v)
    return str(v)


class RecordWriter:
    """Writes record rows to a .jsonl or .csv file, one line per row, flushed per row (an interrupted
    study keeps what it played). Use as a context manager."""

    def __init__(self, path, append=False):
        """`append`: add rows to an existing file (--resume), whose CSV header must be this one."""
        self.path = os.fspath(path)
        self.format = format_of(self.path)
        header = not (append and os.path.exists(self.path) and os.path.getsize(self.path) > 0)
        if not header and self.format == "csv":
            with open(self.path, encoding="utf-8", newline="") as f:
                first = next(csv.reader([f.readline(MAX_LINE)]), [])
            if first != CSV_FIELDS:
                raise RecordsError(f"{self.path}: its CSV header is not this version's ({', '.join(CSV_FIELDS)}): "
                                   "rows cannot be appended to it")
        try:
            self.file = open(self.path, "a" if append else "w", encoding="utf-8", newline="")
        except OSError as e:
            raise RecordsError(f"cannot write {self.path}: {e.strerror or e}") from None
        self.count = 0
        if self.format == "csv":
            self.csv = csv.writer(self.file, lineterminator="\n")
            if header:
                self.csv.writerow(CSV_FIELDS)

    def write(self, rec):
        try:
            if self.format == "jsonl":
                self.file.write(json.dumps(rec, separators=(",", ":")) + "\n")
            else:
                self.csv.writerow([_csv_value(rec.get(f)) for f in CSV_FIELDS])
            self.file.flush()
        except OSError as e:
            raise RecordsError(f"cannot write {self.path}: {e.strerror or e}") from None
        self.count += 1

    def close(self):
        self.file.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


# -- reading -------------------------------------------------------------------------------------

def read_records(path) -> list:
    """A .jsonl or .csv records file → its rows (dicts as written). RecordsError names the line."""
    return list(iter_records(path))


def iter_records(path):
    """The rows of a records file one by one (a large file is never held whole)."""
    path = os.fspath(path)
    fmt = format_of(path)
    try:
        with open(path, encoding="utf-8", newline="") as f:
            yield from (_read_jsonl(f, path) if fmt == "jsonl" else _read_csv(f, path))
    except OSError as e:
        raise RecordsError(f"cannot read {path}: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise RecordsError(f"{path}: not a text file (UTF-8)") from None


class RecordFiles:
    """Record files that can be read more than once (a summary pass, then a plotting pass), row by
    row, without holding them in memory."""

    def __init__(self, paths):
        self.paths = [os.fspath(p) for p in paths]

    def __iter__(self):
        for p in self.paths:
            yield from iter_records(p)


REASONS = ("timeout", "budget", "rule", "internal")     # why a game did not end (gamespec.simulate.reason_of)
NUMBER_LIMIT = 1 << 63     # the rule language's numbers are below this: so are a record's
SEED_LIMIT = 1 << 64
MAX_TEXT = 1000            # a game, option or bot name
MAX_OPTIONS = 256
MAX_PLAYERS = 64


def _is_number(x) -> bool:
    """A score: a whole number or a finite float, below 2**63 in size (NaN, infinities, 1e308 and
    10**400 are not: they would crash or swamp the statistics and the plots)."""
    if type(x) is int:
        return -NUMBER_LIMIT < x < NUMBER_LIMIT
    return type(x) is float and math.isfinite(x) and -NUMBER_LIMIT < x < NUMBER_LIMIT


def _is_count(x) -> bool:
    return type(x) is int and 0 <= x < NUMBER_LIMIT


def _is_text(x) -> bool:
    return isinstance(x, str) and len(x) <= MAX_TEXT


def _is_scalar(v):
    return v is None or type(v) is bool or _is_number(v) or _is_text(v)


def _check(rec, where):
    """A record row as read from a file (anyone's): every field the analysis uses, checked."""
    if not isinstance(rec, dict):
        raise RecordsError(f"{where}: a record is a JSON object")
    fmt = rec.get("format")
    if isinstance(fmt, str) and fmt.startswith(("gamespec-log/", "gamespec-state/")):
        kind = "a game log (gamespec run --log)" if fmt.startswith("gamespec-log/") else "a saved game state"
        raise RecordsError(f"{where}: this is {kind}, not a records file: records are written by "
                           "gamespec simulate --records FILE (gamespec show or replay read a game log)")
    if not (type(rec.get("seed")) is int and 0 <= rec["seed"] < SEED_LIMIT):
        raise RecordsError(f"{where}: the record has no whole-number 'seed' (0 to 2**64 - 1)")
    if type(rec.get("players")) is not int:
        raise RecordsError(f"{where}: the record has no whole-number 'players'")
    if not 1 <= rec["players"] <= MAX_PLAYERS:
        raise RecordsError(f"{where}: 'players' is {rec['players']}")
    P = rec["players"]
    opts = rec.get("options", {})
    if not (isinstance(opts, dict) and len(opts) <= MAX_OPTIONS and all(_is_text(k) for k in opts)
            and all(_is_scalar(v) for v in opts.values())):
        raise RecordsError(f"{where}: 'options' is not an object of plain values (names and values of at "
                           f"most {MAX_TEXT} characters, numbers below 2**63)")
    bots = rec.get("bots", [])
    if not (isinstance(bots, list) and len(bots) in (0, P) and all(_is_text(b) for b in bots)):
        raise RecordsError(f"{where}: 'bots' is not a list of {P} names (of at most {MAX_TEXT} characters)")
    if not (rec.get("game") is None or _is_text(rec.get("game", ""))):
        raise RecordsError(f"{where}: 'game' is not a name (of at most {MAX_TEXT} characters)")
    if "lineup" in rec:
        lineup = rec["lineup"]
        if not (isinstance(lineup, list) and len(lineup) == P and all(_is_text(b) for b in lineup)):
            raise RecordsError(f"{where}: 'lineup' is not a list of {P} names (of at most {MAX_TEXT} characters)")
        if not (type(rec.get("rotation")) is int and 0 <= rec["rotation"] < P):
            raise RecordsError(f"{where}: 'rotation' is not a whole number from 0 to {P - 1}")
    if not (rec.get("restriction") is None or _is_text(rec["restriction"])):
        raise RecordsError(f"{where}: 'restriction' is not a name (of at most {MAX_TEXT} characters)")
    if "error" in rec:
        if not isinstance(rec["error"], str):
            raise RecordsError(f"{where}: 'error' is not a message")
        if rec.get("reason") not in (None,) + REASONS:
            raise RecordsError(f"{where}: 'reason' is one of {', '.join(REASONS)}")
        return rec
    sc, w = rec.get("scores"), rec.get("winners")
    if not (isinstance(sc, list) and len(sc) == P and all(_is_number(x) for x in sc)):
        raise RecordsError(f"{where}: 'scores' is not a list of {P} numbers (finite, below 2**63)")
    if not (isinstance(w, list) and all(type(x) is int and 0 <= x < P for x in w) and len(set(w)) == len(w)):
        raise RecordsError(f"{where}: 'winners' is not a list of seats (each at most once)")
    _check_teams(rec, where, P, sc, w)
    for key in ("decisions", "turns"):
        if not _is_count(rec.get(key, 0)):
            raise RecordsError(f"{where}: '{key}' is not a whole number from 0 to 2**63 - 1")
    if not (rec.get("phases") is None or _is_count(rec["phases"])):
        raise RecordsError(f"{where}: 'phases' is not a whole number from 0 to 2**63 - 1")
    secs = rec.get("seconds")
    if not (secs is None or (type(secs) in (int, float) and math.isfinite(secs) and 0 <= secs <= 1e9)):
        raise RecordsError(f"{where}: 'seconds' is not a number of seconds from 0 to 1e9")
    if type(rec.get("cooperative", False)) is not bool:
        raise RecordsError(f"{where}: 'cooperative' is not true or false")
    if not (rec.get("lead_changes") is None or _is_count(rec["lead_changes"])):
        raise RecordsError(f"{where}: 'lead_changes' is not a whole number from 0 to 2**63 - 1")
    d = rec.get("decided_at")
    if not (d is None or (type(d) in (int, float) and 0 <= d <= 1)):
        raise RecordsError(f"{where}: 'decided_at' is not a fraction from 0 to 1")
    d = rec.get("winner_deficit")
    if not (d is None or (_is_number(d) and d >= 0)):
        raise RecordsError(f"{where}: 'winner_deficit' is not a number >= 0 (finite, below 2**63)")
    acts = rec.get("actions")
    if not (acts is None or (isinstance(acts, dict) and len(acts) <= MAX_OPTIONS
                             and all(_is_text(k) and _is_count(v) for k, v in acts.items()))):
        raise RecordsError(f"{where}: 'actions' is not an object of action names and counts (at most "
                           f"{MAX_OPTIONS} names)")
    return rec


def _seats(xs):
    return ", ".join(map(str, xs))


def _check_teams(rec, where, P, scores, winners):
    """`teams` (absent or null: no teams) is each seat's team, numbered 0, 1, ... with no gap, as the
    game numbers them; what the engine does with teams holds: partners share their team's score and
    win together (the winners are whole teams); a cooperative game has none (its seats are one team)."""
    teams = rec.get("teams")
    if teams is None:
        return
    if not (isinstance(teams, list) and len(teams) == P and all(type(t) is int and 0 <= t < P for t in teams)):
        raise RecordsError(f"{where}: 'teams' is not a list of {P} team numbers (each seat's team, from 0 "
                           f"to {P - 1}), nor null")
    used = set(teams)
    if used != set(range(len(used))):
        gap = min(set(range(max(used) + 1)) - used)
        raise RecordsError(f"{where}: 'teams' {teams} has no seat in team {gap}: teams are numbered 0, 1, ... "
                           "with no gap")
    if rec.get("cooperative") is True:
        raise RecordsError(f"{where}: a cooperative record has no 'teams' (its seats are one team), "
                           f"not {teams}")
    members = {}
    for p, t in enumerate(teams):
        members.setdefault(t, []).append(p)
    won = set(winners)
    for t, ms in sorted(members.items()):
        if won & set(ms) and not set(ms) <= won:
            raise RecordsError(f"{where}: 'winners' [{_seats(winners)}] contradict 'teams' {teams}: partners win "
                               f"together, and team {t} (seats {_seats(ms)}) has winners and losers")
        if len({scores[p] for p in ms}) > 1:
            raise RecordsError(f"{where}: 'scores' contradict 'teams' {teams}: partners share their team's "
                               f"score, and team {t} (seats {_seats(ms)}) has the scores "
                               f"{_seats(scores[p] for p in ms)}")


def _no_constant(name):
    raise ValueError(f"{name} is not a number in JSON")


def _read_jsonl(f, path):
    for i, line in enumerate(iter(lambda: f.readline(MAX_LINE), ""), 1):
        if len(line) >= MAX_LINE:
            raise RecordsError(f"{path}:{i}: line too long")
        if not line.strip():
            continue
        try:
            rec = json.loads(line, parse_constant=_no_constant)
        except ValueError as e:
            raise RecordsError(f"{path}:{i}: not JSON: {e}") from None
        except RecursionError:
            raise RecordsError(f"{path}:{i}: nested too deeply") from None
        yield _check(rec, f"{path}:{i}")


def _scalar(text):
    if text == "true":
        return True
    if text == "false":
        return False
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def _read_csv(f, path):
    csv.field_size_limit(MAX_LINE)
    reader = csv.reader(f)
    try:
        header = next(reader)
    except StopIteration:
        return
    except csv.Error as e:
        raise RecordsError(f"{path}:1: {e}") from None
    missing = [x for x in ("seed", "players", "scores", "winners") if x not in header]
    if missing:
        raise RecordsError(f"{path}:1: not a records file (no column {missing[0]!r})")
    try:
        for i, cells in enumerate(reader, 2):
            if not cells:
                continue
            raw = dict(zip(header, cells))
            rec = {}
            for k, v in raw.items():
                if k in ("game", "spec_sha256", "error", "reason", "restriction"):
                    if v != "" or k == "game":
                        rec[k] = v
                elif k in ("options", "actions"):
                    if v != "" or k == "options":
                        rec[k] = {n: _scalar(x) for n, _, x in (p.partition("=") for p in v.split(";") if p)}
                elif k in ("bots", "lineup"):
                    if v != "" or k == "bots":
                        rec[k] = [b for b in v.split(";") if b]
                elif k in ("scores", "winners"):
                    if "error" not in raw or raw["error"] == "":
                        rec[k] = [_scalar(x) for x in v.split(";") if x != ""]
                elif k == "teams":          # an empty cell: no teams (null, as in JSONL)
                    if raw.get("error", "") == "":
                        rec[k] = [_scalar(x) for x in v.split(";") if x != ""] if v != "" else None
                elif v != "":
                    rec[k] = _scalar(v)
                elif k in ("phases", "seconds") and raw.get("error", "") == "":
                    rec[k] = None
            if raw.get("error", "") == "":
                rec.setdefault("cooperative", False)
                if "actions" in rec:       # a traced game: its empty cells are nulls, as in JSONL
                    for k in TRACE_FIELDS:
                        rec.setdefault(k, None)
            yield _check(rec, f"{path}:{i}")
    except csv.Error as e:
        raise RecordsError(f"{path}:{reader.line_num}: {e}") from None
