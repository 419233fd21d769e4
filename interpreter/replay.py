"""Reading and re-playing logs (JSON lines -> checked lines -> a State re-played against them).

The writing side is interpreter/gamelog.py; this module builds states, so it imports state (never the
reverse)."""
from __future__ import annotations

import json
import os
import stat

from gamespec.errors import GamespecError, IllegalAction, SpecRuntimeError, StateFormatError, ReplayDivergence

from . import rng as _rng
from .snapshot import same_json as _same
from .state import State

__all__ = ["replay", "replay_file", "full_log_header", "read_header", "iter_log", "read_log", "ReplayDivergence"]   # the public face (docs/api.md)


MAX_LOG_BYTES = 64 * 1024 * 1024   # a log is untrusted input: refused beyond this size


class Script:
    """Chance events taken from a log instead of the RNG (replay without the seed).

    With the seed known, each logged order must also be the one the seed gives: a log whose shuffles
    were altered is caught at the first altered one."""

    def __init__(self, events, seed=None, generator=_rng.ALGORITHM):
        """`events`: a list of chance lines, or a function giving the next one (None: no more);
        `generator`: the one the seed shuffles with (the log header's)."""
        if callable(events):
            self.take = events
        else:
            it = iter(list(events))
            self.take = lambda: next(it, None)
        self.i = 0
        self.seed = seed
        self.rng = _rng.seed_state(seed) if seed is not None else None
        self.shuffle = _rng.SHUFFLES[_rng.check_generator(generator)]

    def next_shuffle(self, s, zi):
        label = s.rs.zone_label[zi]
        ev = self.take()
        if ev is None:
            raise ReplayDivergence(f"the game shuffles '{label}' but the log has no more chance events")
        self.i += 1
        if ev.get("zone") != label:
            raise ReplayDivergence(f"chance event {self.i}: the game shuffles '{label}' but the log "
                                   f"shuffles {str(ev.get('zone'))[:60]!r}")
        order = ev.get("order")
        if not isinstance(order, list) or not _permutes(order, s.z[zi]):
            raise ReplayDivergence(f"chance event {self.i}: the logged order of '{label}' is not a "
                                   "shuffle of its cards")
        if self.rng is not None:
            expected = list(s.z[zi])
            self.rng = self.shuffle(self.rng, expected)
            if expected != order:
                raise ReplayDivergence(f"chance event {self.i}: the logged order of '{label}' is not the "
                                       f"shuffle seed {self.seed} gives (the log was altered)")
        return list(order)


def _permutes(order, cards) -> bool:
    """`order` (from a log) holds exactly `cards` (whole numbers), in any order. The usual case, all
    whole numbers, is checked at C speed; anything else by type-tagged keys."""
    if len(order) != len(cards):
        return False
    if set(map(type, order)) <= {int}:
        return sorted(order) == sorted(cards)
    return sorted(map(_key, order)) == sorted(map(_key, cards))


def _key(x):
    return (type(x).__name__, x if isinstance(x, int) else str(x))


def _no_constant(name):
    raise ValueError(f"{name} is not JSON")


MAX_LINE_BYTES = 16 * 1024 * 1024   # one line of a log (a header lists every card: large, but bounded)


def _open(path):
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    f = os.fdopen(fd, "rb")
    if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
        f.close()
        raise StateFormatError(f"{path}: not a regular file")
    return f


def iter_log(path, max_bytes=None):
    """The lines of a log file one by one as (line number, JSON object), read as a stream: memory
    stays bounded by one line whatever the file's size. StateFormatError on the first bad line
    (OSError if unreadable)."""
    for n, obj, _ in _iter_sized(path, max_bytes):
        yield n, obj


def _iter_sized(path, max_bytes=None):
    """iter_log's lines as (line number, JSON object, its size in bytes): replay bounds what it holds
    ahead by bytes."""
    limit = MAX_LOG_BYTES if max_bytes is None else max_bytes
    with _open(path) as f:
        total = 0
        n = 0
        while True:
            raw = f.readline(MAX_LINE_BYTES + 1)
            if not raw:
                break
            n += 1
            total += len(raw)
            if total > limit:
                raise StateFormatError(f"{path}: the log is larger than {limit} bytes")
            if len(raw) > MAX_LINE_BYTES:
                raise StateFormatError(f"{path}:{n}: a line longer than {MAX_LINE_BYTES} bytes")
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                raise StateFormatError(f"{path}:{n}: not UTF-8 text (byte {e.start})") from None
            text = text.strip()
            if not text:
                continue
            yield n, _parse_line(text, f"{path}:{n}"), len(raw)


def _parse_line(text, where):
    try:
        obj = json.loads(text, parse_constant=_no_constant)
    except RecursionError:
        raise StateFormatError(f"{where}: not JSON (nested too deeply)") from None
    except ValueError as e:
        raise StateFormatError(f"{where}: not JSON ({str(e)[:200]})") from None
    if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
        raise StateFormatError(f"{where}: a log line is a JSON object with a 'type'")
    return obj


def read_log(path) -> list:
    """The lines of a log file (JSON objects), all in memory; StateFormatError if it is not one.
    replay_file() streams instead."""
    lines = [obj for _, obj in iter_log(path)]
    if not lines or lines[0]["type"] != "header":
        raise StateFormatError(f"{path}: the first line must be the header")
    return lines


def read_header(path) -> dict:
    """The first line of a log (to find its spec), without reading the rest."""
    for _, obj in iter_log(path):
        if obj["type"] != "header":
            break
        return obj
    raise StateFormatError(f"{path}: the first line must be the header")


def full_log_header(path) -> dict:
    """The header of a full log (to replay it); StateFormatError if the file cannot be read, is not
    a log, or is a seat's log (written by --log-for: it cannot be re-played)."""
    try:
        header = read_header(path)
    except OSError as e:
        raise StateFormatError(f"cannot read {path}: {e.strerror or e}") from None
    if "for_player" in header:
        fp = header["for_player"]
        seat = f"seat {fp}" if type(fp) is int and 0 <= fp < 1000 else "one seat"
        raise StateFormatError(f"{path} is the log as {seat} saw it (--log-for); replay needs the full log (--log)")
    return header


def read_chunks(fd, max_bytes):
    """The bytes of an open file in chunks of at most 1 MiB, max_bytes + 1 of them at the most (so
    a caller sees that a file grew past its cap, without reading the rest)."""
    left = max_bytes + 1
    while left > 0:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            return
        yield chunk
        left -= len(chunk)


class _Malformed(Exception):
    pass


def _header(h, game):
    """(players, options, seed) of a log header, checked."""
    P = h.get("players")
    if type(P) is not int:
        raise _Malformed(f"the header's player count {str(P)[:40]!r} is not a number")
    opts = h.get("options")
    if not isinstance(opts, dict):
        raise _Malformed("the header's options are not a JSON object")
    seed = h.get("seed")
    if seed is not None and (type(seed) is not int or not 0 <= seed < SEED_LIMIT):
        raise _Malformed(f"the header's seed {str(seed)[:40]!r} is not a whole number from 0 to 2**64 - 1")
    if "zones" in h and not isinstance(h["zones"], dict):
        raise _Malformed("the header's zones are not a JSON object")
    return P, game.check_options(opts), seed


def generator_of(h) -> str:
    """The generator a log header names; a log written before shuffles were named used xorshift64*."""
    try:
        return _rng.check_generator(h.get("generator", _rng.XORSHIFT))
    except ValueError as e:
        raise _Malformed(f"the header names an {e}") from None


SEED_LIMIT = 1 << 64
CHANCE_VERIFIED = "verified: every shuffle is the one the header's seed gives"
CHANCE_TRUSTED = "taken on trust: the log has no seed, so its shuffles were replayed as written, not checked"


MAX_AHEAD_LINES = 100_000       # lines a seedless replay may read ahead between a decision and its chance
MAX_AHEAD_BYTES = 8 * 1024 * 1024   # ... and their bytes: parsed lines take ~10 times their text


class _Feed:
    """The log's lines after the header, with a look-ahead for the chance events a seedless replay
    takes as they come (they follow the decision whose effects shuffle). The look-ahead is a deque
    (a line is taken from its front in O(1)) bounded in lines and bytes: a log from a stranger
    cannot make replay hold more than MAX_AHEAD_BYTES of it."""

    def __init__(self, it):
        from collections import deque
        self.it = it
        self.ahead = deque()     # (n, line, bytes) read but not yet compared
        self.scan = 0            # how far in `ahead` the script has looked for chance lines
        self.bytes = 0           # the bytes of the lines in `ahead`
        self.read = 0            # the bytes read so far (a long replay's progress)

    def _read(self):
        item = next(self.it, None)
        if item is None:
            return None
        if len(item) != 3:
            return (item[0], item[1], 0)
        self.read += item[2]
        return item

    def push(self, n, line):
        """Put a line back at the front (the decision the main loop read, compared after apply)."""
        self.ahead.appendleft((n, line, 0))
        self.scan += 1

    def next(self):
        if self.ahead:
            self.scan = max(0, self.scan - 1)
            n, line, size = self.ahead.popleft()
            self.bytes -= size
            return n, line
        item = self._read()
        return (None, None) if item is None else item[:2]

    def next_chance(self):
        while True:
            if self.scan < len(self.ahead):
                n, line, _ = self.ahead[self.scan]
                self.scan += 1
                if line["type"] == "chance":
                    return line
                if line["type"] == "decision":     # chance events of this decision end here
                    self.scan -= 1
                    return None
                continue
            item = self._read()
            if item is None:
                return None
            if len(self.ahead) >= MAX_AHEAD_LINES or self.bytes + item[2] > MAX_AHEAD_BYTES:
                raise _Malformed(f"more than {MAX_AHEAD_LINES} lines or {MAX_AHEAD_BYTES} bytes between a "
                                 "decision and the chance event it waits for")
            self.ahead.append(item)
            self.bytes += item[2]


def _strip(line):
    return {k: v for k, v in line.items() if not k.startswith("_")}


def replay_file(game, path, timeout=None, progress=None) -> dict:
    """Re-play a log file as a stream (see replay())."""
    return replay(game, _iter_sized(path), timeout, progress)


PROGRESS_SECONDS = 10.0     # how often a long replay calls its `progress`
UNFINISHED = "the log ends before the game does"


def other_spec(header, game) -> str:
    """Why a log's header does not fit the spec given: another game, or another version of it."""
    name = header.get("game")
    if isinstance(name, str) and name != game.name:
        shown = name if len(name) <= 80 else name[:77] + "..."
        return f"the log is of the game {shown!r}, not of {game.name!r} (the spec given)"
    return "the log was written by another version of the spec"


def replay(game, lines, timeout=None, progress=None) -> dict:
    """Re-play a full log and check EVERY line against the game it re-plays.

    `lines`: a list of JSON objects, or an iterator of (line number, object) as iter_log gives.
    Returns {'ok', 'decisions' (matched), 'error' (the first difference, or None), 'chance'
    (CHANCE_VERIFIED with a seed, CHANCE_TRUSTED without), 'unfinished' (every line matched but the
    game goes on: a game left before its end, or a cut file; 'ok' is then False), 'scores',
    'winners'}. The log's own
    lines are never trusted: the game writes the log it expects, line by line, and each line of the
    file must be exactly that line (a second header, an unknown line type, a renumbered decision, an
    altered look line, a missing end line... are all differences).

    `progress(decisions, bytes)`, if given, is called every PROGRESS_SECONDS of a long replay with
    the decisions matched and the bytes of the log read so far (replay_file's lines; 0 from a list).
    """
    import time
    from .snapshot import plain
    done = 0
    chance = None

    def fail(msg, unfinished=False):
        return {"ok": False, "decisions": done, "error": msg, "chance": chance, "unfinished": unfinished}

    if isinstance(lines, list):
        if not all(isinstance(x, dict) and isinstance(x.get("type"), str) for x in lines):
            return fail("malformed log: each line is a JSON object with a 'type'")
        lines = iter(enumerate(lines, 1))
    deadline = None if timeout is None else time.monotonic() + timeout
    try:
        first = next(lines, None)
        n, h = (first[0], first[1]) if first is not None else (None, None)
        if h is None or h["type"] != "header":
            return fail("malformed log: the first line must be the header")
        if "for_player" in h:
            return fail("this is a log as one player saw it; replay needs the full log")
        if h.get("spec_sha256") != game.spec.sha256:
            return fail(other_spec(h, game) if "spec_sha256" in h
                        else "malformed log: the header has no spec_sha256")
        P, opts, seed = _header(h, game)
        gen = generator_of(h)
        chance = CHANCE_VERIFIED if seed is not None else CHANCE_TRUSTED
        rs = game.ruleset(P, opts)
        if "zones" in h:
            init = {rs.zone_label[zi]: [] for zi in range(rs.nzones)}
            for c, zi in enumerate(rs.init_zone):
                init[rs.zone_label[zi]].append(c)
            if h["zones"] != init:
                return fail("the initial arrangement in the header is not this spec's")
        feed = _Feed(lines)
        script = Script(feed.next_chance) if seed is None else None
        s = State.new(game, rs, seed, log=True, script=script, generator=gen)
        want = plain(_strip(s.log[0]))
        got = dict(h)
        if not isinstance(got.get("spec"), str):
            return fail("malformed log: the header names no spec")
        got["spec"] = want["spec"]      # where the spec was loaded from is not part of the game
        got.setdefault("seed", None)    # a seedless log: no seed, or a null one
        got.setdefault("generator", _rng.XORSHIFT)   # a log from before shuffles were named
        for key in sorted(set(want) | set(got)):
            if not _same(want.get(key, _MISSING), got.get(key, _MISSING)):
                return fail(f"line {n}: the header's {str(key)[:40]!r} is not this game's")
        chances = 0

        def compare(expected):
            """The file's next lines must be exactly the lines the re-played game wrote."""
            nonlocal chances
            for line in expected:
                line = _strip(line)
                n, got = feed.next()
                t = line["type"]
                if t == "chance":
                    chances += 1
                if got is not None and _same_line(got, line):
                    continue
                line = plain(line)      # a difference: described from here on, never on the fast path
                if got is None:
                    if t == "end":
                        raise _Diverged("the log has no end line (the game ended: "
                                        f"scores {line['scores']}, winners {line['winners']})")
                    raise _Diverged(f"the log ends where the game writes a {t} line")
                if t == "chance" and got["type"] == "chance" and got.get("zone") == line["zone"]:
                    order = got.get("order")
                    if not isinstance(order, list) or sorted(map(_key, order)) != sorted(map(_key, line["order"])):
                        raise _Diverged(f"chance event {chances}: the logged order of '{line['zone']}' is "
                                        "not a shuffle of its cards")
                    raise _Diverged(f"chance event {chances}: the logged order of '{line['zone']}' is not "
                                    f"the shuffle seed {seed} gives (the log was altered)")
                if t == "end" and got["type"] == "end":
                    raise _Diverged(f"final scores differ: log {str(got.get('scores'))[:80]} / "
                                    f"{str(got.get('winners'))[:40]}, replay {line['scores']} / {line['winners']}")
                raise _Diverged(f"line {n}: {_describe(got)} where the re-played game writes {_describe(line)}")

        compare(s.log[1:])
        del s.log[:]
        next_report = time.monotonic() + PROGRESS_SECONDS
        while True:
            n, d = feed.next()
            if d is None:
                break
            if d["type"] != "decision":
                return fail(f"line {n}: {_describe(d)} where the re-played game writes nothing more"
                            if s.terminal else f"line {n}: {_describe(d)} where the game waits for a decision")
            i = done + 1
            if deadline is not None or progress is not None:
                now = time.monotonic()
                if deadline is not None and now > deadline:
                    return fail(f"the replay did not finish within the timeout of {timeout:g} s")
                if progress is not None and now >= next_report:
                    progress(done, feed.read)
                    next_report = now + PROGRESS_SECONDS
            if s.terminal:
                return fail(f"decision {i}: the game had already ended")
            if d.get("player") != s.current_player:
                return fail(f"decision {i}: the log says player {str(d.get('player'))[:20]} decides, "
                            f"the game says player {s.current_player}")
            act = d.get("action")
            if not isinstance(act, dict) or not all(isinstance(k, str) and _plain(v) for k, v in act.items()):
                return fail(f"decision {i}: illegal move: the action is not a JSON object of plain values")
            feed.push(n, d)                     # compared with the decision line the game writes
            try:
                s.apply(act)
            except IllegalAction as e:
                return fail(f"decision {i}: illegal move: {_short(str(e))}")
            compare(s.log)
            del s.log[:]
            done = i
        if not s.terminal:      # every line matched: a game left before its end (or a cut file)
            return fail(UNFINISHED, unfinished=True)
        return {"ok": True, "decisions": done, "error": None, "chance": chance, "unfinished": False,
                "scores": list(s.scores), "winners": list(s.winners)}
    except _Diverged as e:
        return fail(str(e))
    except ReplayDivergence as e:
        return fail(e.message)
    except _Malformed as e:
        return fail(f"malformed log: {e}")
    except StateFormatError as e:
        return fail(str(e))
    except SpecRuntimeError as e:
        return fail(f"the spec failed during replay: {e}")
    except (GamespecError, KeyError, TypeError, ValueError) as e:   # UsageError: players, options
        return fail(f"malformed log: {str(e)[:300]}")
    except RecursionError:
        return fail("malformed log: nested too deeply")


class _Diverged(Exception):
    pass


_MISSING = object()


def _describe(line):
    t = line.get("type")
    if t == "decision":
        return f"decision {str(line.get('n'))[:20]}"
    if t == "reveal":       # a simultaneous step's choice, revealed: say whose and which
        return f"the reveal of player {str(line.get('player'))[:20]}'s {json.dumps(line.get('action'))[:120]}"
    if t in ("chance", "look", "end", "header"):
        return f"a {t} line"
    return f"a line of unknown type {str(t)[:40]!r}"


_CANON = json.JSONEncoder(sort_keys=True, separators=(",", ":"), allow_nan=False, check_circular=False).encode


def _same_line(got, want) -> bool:
    """A file's line is exactly the line the game wrote: the same canonical JSON text (C speed; types
    count, as in _same: true is not 1, 1.0 is not 1; the game's tuples are JSON lists). Falls back to
    _same for what the encoder refuses."""
    try:
        return _CANON(got) == _CANON(want)
    except (TypeError, ValueError, RecursionError):
        from .snapshot import plain
        return _same(got, plain(want))


def _plain(v):
    """A parameter value as a log may hold it: a scalar or a flat list of scalars."""
    scalar = lambda x: x is None or isinstance(x, (bool, int, str))
    return scalar(v) or (isinstance(v, list) and all(scalar(x) for x in v))


def _short(text, limit=300):
    """A message quoting a log's values, cut (a stranger's action can be megabytes long)."""
    return text if len(text) <= limit else text[:limit] + "..."
