"""Saved JSON -> State: a saved state is untrusted input, accepted only if it is what its own history produces.

`from_json` (Game.state_from_json) reads from the file only what a game is made of: the spec's
fingerprint, players, options, seed (or, without a seed, the logged chance events) and the recorded
decisions. It re-plays those decisions from a new game and compares the result with every field of
the file: knowledge, faces, zones, variables, scores, winners, history and log are never read, only
checked. Anything else raises StateFormatError and nothing else.

`arranged` (Game.arranged_state) builds a position written by hand (tests, puzzles, determinized
states for search): every field is checked for shape and consistency (cards in exactly one place, the
pending decision really pending, ...) but knowledge and history are taken as given, so it is never
for files from strangers.
"""
from __future__ import annotations

import re
import weakref

from gamespec.errors import GamespecError, IllegalAction, SpecRuntimeError, StateFormatError

from .rng import XORSHIFT, check_generator
from .snapshot import FORMAT, to_json  # noqa: F401 - to_json is the other half of this module's contract
from .snapshot import same_json as _same
from gamespec.mirrors import INT_LIMIT

# INT_LIMIT (gamespec/mirrors.py): numbers of the rule language are bounded by it
MAX_SEED_BITS = 4096
SEED_LIMIT = 1 << 64         # seeds are 0 .. 2**64 - 1 (gamespec.game.check_seed)
MAX_SAVED_LIST = 1_000_000   # no list of a saved state is longer than this (a guard, not a rule)

_KEYS = {"format", "game", "spec_sha256", "players", "options", "seed", "zones", "vars", "face", "known",
         "rng", "pc", "pending", "actor", "current", "phase", "flow", "turns", "decisions", "terminal",
         "scores", "winners", "history", "log"}
_OPTIONAL = {"marks", "generator"}
_LOG_KEYS = {"chance": {"type", "event", "zone", "order"}, "look": {"type", "player", "cards"},
             "decision": {"type", "n", "player", "action", "_cards"}, "end": {"type", "scores", "winners"},
             "reveal": {"type", "player", "action", "_cards"}}
_SECRET_KEYS = _LOG_KEYS["decision"] | {"secret"}    # a simultaneous step's choice (docs/language.md)
_LIST_KEY = re.compile(r"#list([0-9]{1,9})\Z")
_VAR_KEY = re.compile(r"([A-Za-z][A-Za-z0-9_]*)#([0-9]{1,9})\Z")
_DIGITS = re.compile(r"[0-9]{1,9}\Z")


def _tuples(x):
    return tuple(_tuples(y) for y in x) if isinstance(x, list) else x


def _lists(x):
    return [_lists(y) for y in x] if isinstance(x, tuple) else x


class _Bad(Exception):
    pass


def _need(cond, msg):
    if not cond:
        raise _Bad(msg)


def _is_int(x, lo=None, hi=None):
    return type(x) is int and (lo is None or x >= lo) and (hi is None or x < hi)


def _scalar(x):
    """A value of the rule language: none, a bool, a bounded int or a string."""
    return x is None or type(x) is bool or isinstance(x, str) or (type(x) is int and -INT_LIMIT < x < INT_LIMIT)


def _value(x):
    """A scalar, or a list of scalars (card attributes may be lists)."""
    return _scalar(x) or (type(x) is list and len(x) <= MAX_SAVED_LIST and all(_scalar(y) for y in x))


def _list(x, what):
    _need(type(x) is list and len(x) <= MAX_SAVED_LIST, f"{what} is not a list")
    return x


def _cards(x, rs, what):
    _list(x, what)
    _need(all(_is_int(c, 0, rs.ncards) for c in x), f"{what} names a card that does not exist")
    return x


def from_json(game, d):
    """A saved state, re-played from its own history and compared field by field (StateFormatError only)."""
    return _guard(_verified, game, d)


def arranged(game, d):
    """A position written by hand: checked field by field, knowledge taken as given (StateFormatError only)."""
    return _guard(_from_json, game, d)


def _guard(fn, game, d):
    try:
        return fn(game, d)
    except _Bad as e:
        raise StateFormatError(f"bad saved state: {e}") from None
    except StateFormatError:
        raise
    except RecursionError:
        raise StateFormatError("bad saved state: nested too deeply") from None
    except Exception as e:  # noqa: BLE001 - the contract is StateFormatError only, even after a bug here
        raise StateFormatError(f"bad saved state (internal error while checking it: "
                               f"{type(e).__name__}: {e})") from None


def _shape(d, rs):
    """The fields whose size the game fixes, checked before anything is re-played: a state padded
    there is refused at once, whatever it holds."""
    def bad(key, why):
        raise _Bad(f"its field '{key}' is not what its own history produces: {why}")
    zones = d["zones"]
    if type(zones) is not list or len(zones) != rs.nzones or not all(type(z) is list for z in zones):
        bad("zones", f"the game has {rs.nzones} zones")
    held = sum(map(len, zones))
    if held != rs.ncards:
        bad("zones", f"they hold {held} cards, the game has {rs.ncards}")
    for key, n, what in (("known", rs.ncards, "cards"), ("vars", len(rs.var_init), "variables")):
        if type(d[key]) is not list or len(d[key]) != n:
            bad(key, f"the game has {n} {what}")
    if type(d["face"]) is not dict or len(d["face"]) > rs.ncards:
        bad("face", f"the game has {rs.ncards} cards")


def _verified(game, d):
    """Re-play the recorded decisions (and chance: the seed, or the logged shuffles) and compare."""
    from .replay import ReplayDivergence, Script
    _, P, opts, rs = _game_fields(game, d)
    _shape(d, rs)
    _marks(d, rs)       # well-formed before anything is re-played
    seed = d["seed"]
    _need(seed is None or _is_int(seed, 0, SEED_LIMIT), "bad seed (a whole number from 0 to 2**64 - 1)")
    hist = _list(d["history"], "history")
    decisions = []
    for ev in hist:
        if type(ev) is list and ev and ev[0] in ("d", "s"):   # "s": a simultaneous step's choice
            _need(len(decisions) < rs.max_decisions, "the history holds more decisions than the game allows")
            _need(len(ev) == 5 and _is_int(ev[1], 0, P), "bad history event")
            rt = _check_action(ev[2], ev[3], rs, "a history event")
            act = {"action": ev[2]}
            if rt is not None:
                act.update(zip((p.name for p in rt.params), ev[3]))
            decisions.append((ev[1], act))
    log = d["log"]
    _need(log is None or type(log) is list, "the log is not a list")
    script = None
    if seed is None:    # chance taken from the logged shuffles (a game re-played from a seedless log)
        _need(log is not None, "a state without a seed needs its log (the shuffles it re-plays)")
        script = Script([x for x in log if isinstance(x, dict) and x.get("type") == "chance"])
    from .state import State
    try:
        s = State.new(game, rs, seed, log=log is not None, script=script,
                      generator=d.get("generator", XORSHIFT))
        for k, (player, act) in enumerate(decisions, 1):
            _need(not s.terminal, f"decision {k} of its history comes after the game's end")
            _need(player == s.current_player, f"decision {k} of its history is player {player}'s, "
                                              f"but player {s.current_player} decides")
            s.apply(act)
    except IllegalAction as e:
        raise _Bad(f"decision {k} of its history is not legal: {str(e)[:200]}") from None
    except ReplayDivergence as e:
        raise _Bad(f"its logged chance events do not re-play: {e.message}") from None
    except SpecRuntimeError as e:
        raise _Bad(f"its history does not re-play: {str(e)[:300]}") from None
    s.script = None
    got = s.to_json()
    if log is not None and log and isinstance(log[0], dict) and isinstance(log[0].get("spec"), str) \
            and got["log"]:
        got["log"][0]["spec"] = log[0]["spec"]      # the path the spec was loaded from may differ
        if "generator" not in log[0] and "generator" not in d:
            del got["log"][0]["generator"]           # a state saved before shuffles were named
    for key in _ORDER + (("marks",) if rs.mark_names else ()):
        _need(_same(got[key], d[key]), f"its field '{key}' is not what its own history produces")
    return s


_ORDER = ("format", "game", "spec_sha256", "players", "options", "seed", "history", "decisions", "terminal",
          "zones", "vars", "face", "known", "rng", "pc", "pending", "actor", "current", "phase", "flow", "turns",
          "scores", "winners", "log")


MAX_STATE_BYTES = 16 * 1024 * 1024   # a saved state file: refused beyond this before it is read (a real
                                     # game's state takes about 250 bytes a decision: 16 MiB hold 60,000)


def read_file(path, max_bytes=None) -> dict:
    """A saved state's file → its JSON object, refused early and only with StateFormatError: not a
    regular file (a FIFO or device: refused without blocking), larger than max_bytes
    (MAX_STATE_BYTES) — both from fstat, before a byte is read —, not UTF-8 JSON (NaN and
    Infinity are not JSON), or not an object. Then Game.state_from_json checks what it holds."""
    import json
    import os
    import stat
    limit = MAX_STATE_BYTES if max_bytes is None else max_bytes
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError as e:
        raise StateFormatError(f"cannot read {path}: {e.strerror or e}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise StateFormatError(f"{path}: not a regular file")
        if st.st_size > limit:
            raise StateFormatError(f"{path}: {st.st_size} bytes, larger than a saved state may be ({limit} "
                                   "bytes; refused unread)")
        from .replay import read_chunks
        chunks = list(read_chunks(fd, limit))
    except OSError as e:
        raise StateFormatError(f"cannot read {path}: {e.strerror or e}") from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > limit:
        raise StateFormatError(f"{path}: larger than a saved state may be ({limit} bytes)")
    if not data.lstrip()[:1] == b"{":
        raise StateFormatError(f"{path}: bad saved state: not a JSON object")

    def constant(name):
        raise ValueError(f"{name} is not JSON")
    try:
        d = json.loads(data.decode("utf-8"), parse_constant=constant)
    except UnicodeDecodeError as e:
        raise StateFormatError(f"{path}: bad saved state: not UTF-8 text (byte {e.start})") from None
    except RecursionError:
        raise StateFormatError(f"{path}: bad saved state: nested too deeply") from None
    except ValueError as e:
        raise StateFormatError(f"{path}: bad saved state: not JSON ({str(e)[:200]})") from None
    if not isinstance(d, dict):
        raise StateFormatError(f"{path}: bad saved state: not a JSON object")
    return d


def _game_fields(game, d):
    """The fields that say which game this is: (data, players, options, rule set), checked."""
    _need(isinstance(d, dict), "not a JSON object")
    _need(d.get("format") == FORMAT, f"format is not {FORMAT!r}")
    _need(d.get("spec_sha256") == game.spec.sha256, "it was saved from another version of the spec")
    _need(set(d) - _OPTIONAL == _KEYS, "unexpected or missing fields: "
          + ", ".join(sorted(map(str, (set(d) - _OPTIONAL) ^ _KEYS)))[:200])
    try:    # a state saved before shuffles were named used the earlier generator (docs/api.md)
        check_generator(d.get("generator", XORSHIFT))
    except ValueError as e:
        raise _Bad(str(e)) from None
    _need(d["game"] == game.spec.name, "it was saved from another game")
    P = d["players"]
    _need(_is_int(P, game.spec.min_players, game.spec.max_players + 1), "player count out of range")
    _need(isinstance(d["options"], dict) and all(isinstance(k, str) for k in d["options"]), "bad options")
    try:
        opts = game.check_options(d["options"])     # UsageError is a ValueError
    except ValueError as e:
        raise _Bad(str(e)) from None
    _need(opts == d["options"] and all(type(v) is type(opts[k]) for k, v in d["options"].items()),
          "bad options")
    try:
        rs = game.ruleset(P, opts)
    except GamespecError as e:
        raise _Bad(f"the spec cannot be set up with these players and options ({e})") from None
    # per-card marks: the field exists exactly when the game declares marks
    _need(("marks" in d) == bool(rs.mark_names),
          "unexpected field: marks (this game declares none)" if "marks" in d else "missing field: marks")
    return d, P, opts, rs


def _from_json(game, d):
    from .state import State
    _, P, opts, rs = _game_fields(game, d)
    s = State.__new__(State)
    s.rs, s.game = rs, game

    zones = _list(d["zones"], "zones")
    _need(len(zones) == rs.nzones, "wrong number of zones")
    seen = [False] * rs.ncards
    loc = [0] * rs.ncards
    for zi, z in enumerate(zones):
        _cards(z, rs, "a zone")
        for c in z:
            _need(not seen[c], f"card {c} is in two places")
            seen[c] = True
            loc[c] = zi
    _need(all(seen), "cards are missing")
    s.z = [list(z) for z in zones]
    s.loc = loc

    vs = _list(d["vars"], "vars")
    _need(len(vs) == len(rs.var_init), "wrong number of variables")
    for x, decl in zip(vs, rs.var_decl):
        if decl.type == "cards":
            _need(type(x) is list, f"variable '{decl.name}' is not a list")
            _cards(x, rs, f"variable '{decl.name}'")
        elif decl.type == "list":
            _need(type(x) is list and len(x) <= MAX_SAVED_LIST and all(_value(y) for y in x),
                  f"variable '{decl.name}' is not a list of values")
        elif decl.type == "card":
            _need(x is None or _is_int(x, 0, rs.ncards), f"variable '{decl.name}' names no card")
        else:
            _need(_scalar(x), f"variable '{decl.name}' has a bad value (or is too large)")
    s.v = [list(x) if isinstance(x, list) else x for x in vs]

    kn = _list(d["known"], "known")
    _need(len(kn) == rs.ncards and all(_is_int(k, 0, 1 << rs.P) for k in kn), "bad knowledge masks")
    s.kn = list(kn)
    s.mk = _marks(d, rs)
    s.poss = rs.any_poss      # not saved: a loaded state's determinizations assume nothing of it
    s.shuffles = 0
    face = d["face"]
    _need(isinstance(face, dict), "bad face overrides")
    s.face = {}
    for k, f in face.items():
        _need(isinstance(k, str) and _DIGITS.match(k) and int(k) < rs.ncards and _is_int(f, 1, 3)
              and str(int(k)) == k, "bad face override")
        s.face[int(k)] = f
    _need(_is_int(d["rng"], 1, 1 << 64), "bad RNG state")
    s.rng = d["rng"]
    s.gen = d.get("generator", XORSHIFT)
    seed = d["seed"]
    _need(seed is None or (type(seed) is int and seed.bit_length() <= MAX_SEED_BITS), "bad seed")
    s.seed = seed
    for key in ("actor", "current"):
        _need(_is_int(d[key], 0, P), f"bad {key}")
    s.actor, s.cur = d["actor"], d["current"]
    _need(_is_int(d["phase"], -1, len(rs.phases)), "bad phase")
    s.phase = d["phase"]
    for key in ("turns", "decisions"):
        _need(_is_int(d[key], 0, INT_LIMIT), f"bad {key}")
    s.turns, s.decisions = d["turns"], d["decisions"]
    _need(type(d["terminal"]) is bool, "bad terminal flag")
    s.terminal = d["terminal"]

    hist = _list(d["history"], "history")
    h = None
    ndec = 0
    for ev in hist:
        _check_event(ev, rs)
        ndec += ev[0] in ("d", "s")
        h = (_tuples(ev), h)
    _need(ndec == s.decisions, "the history does not hold one entry per decision")
    s.hist = h

    if s.terminal:
        scores, winners = d["scores"], d["winners"]
        _need(type(scores) is list and len(scores) == P and all(_is_int(x) for x in scores), "bad scores")
        # a cooperative team that failed, or a game whose no_winner_if held, has no winner; else someone wins
        _need(type(winners) is list and (winners or rs.success is not None or rs.no_winner is not None)
              and all(_is_int(w, 0, P) for w in winners)
              and winners == sorted(set(winners)), "bad winners")
    else:
        _need(d["scores"] is None and d["winners"] is None, "a game in progress has no scores")
    log = d["log"]
    if log is not None:
        _check_log(_list(log, "log"), rs, s, d)
    s.log = None if log is None else [dict(x, _cards=_tuples(x["_cards"])) if "_cards" in x else dict(x)
                                      for x in log]
    s.script = None
    s.budget = rs.spec.steps_per_decision
    s.spent = 0
    from .state import _lock
    s.watch = None
    s._busy = _lock()
    s._legal = None
    s._index = None
    s._wants_actions = False

    flow = d["flow"]
    _need(isinstance(flow, dict) and all(isinstance(k, str) for k in flow), "bad flow variables")
    if s.terminal:
        scores, winners = d["scores"], d["winners"]
        _need(d["pending"] == -1 and type(d["pending"]) is int, "a finished game has no pending decision")
        _need(_is_int(d["pc"], 0, len(rs.prog)), "bad program counter")
        for v in flow.values():
            _need(_value(v) or (type(v) is list and len(v) == 2 and type(v[0]) is list
                                and _value(v[0]) and _is_int(v[1], 0, len(v[0]) + 1)),
                  "bad flow variables")
        s.fenv = dict(flow)
        s.scores, s.winners = list(scores), list(winners)
        s.pc, s.pending = d["pc"], -1
        return s

    s.scores = s.winners = None
    pending = d["pending"]
    _need(_is_int(pending, 0, len(rs.chooses)), "bad pending decision")
    ch = rs.chooses[pending]
    _need(_is_int(d["pc"]) and d["pc"] == ch.pc, "program counter does not match the pending decision")
    ph, fors = rs.choose_contexts()[pending]
    _need(s.phase == ph, "the phase does not match the pending decision")
    _check_flow(flow, fors, ch, rs, rs.choose_windows()[pending])
    s.fenv = {k: (list(v) if type(v) is list else v) for k, v in flow.items()}
    s.pc, s.pending = ch.pc, pending
    _check_pending(s, ch)
    return s


def _marks(d, rs):
    """The per-card marks of a saved state: {name: [value per card]} for exactly the declared marks."""
    if not rs.mark_names:
        return []
    ms = d["marks"]
    _need(isinstance(ms, dict) and list(ms) == rs.mark_names,
          f"marks are {{{', '.join(rs.mark_names)}}}, one list per mark, in that order")
    out = []
    for decl, col in zip(rs.mark_decl, ms.values()):
        _need(type(col) is list and len(col) == rs.ncards, f"mark '{decl.name}' needs one value per card")
        if decl.type == "bool":
            _need(all(type(x) is bool for x in col), f"mark '{decl.name}' holds true or false")
        else:
            _need(all(_is_int(x, -INT_LIMIT + 1, INT_LIMIT) for x in col), f"mark '{decl.name}' holds whole numbers below 2**63")
        out.append(list(col))
    return out


# -- the flow variables of the `for` steps around a decision ------------------------------
_HEADERS = weakref.WeakKeyDictionary()    # per Ruleset: the log header of a new game, seed aside


def _check_flow(flow, fors, ch, rs, windows=()):
    """Each `for` around the decision has its list [items, next index] and its variable = the item;
    each reaction window around it, who has responded (`#took<n>`, while it asks) or its outcome
    (`#as<n>`, in its then/else steps): players, each once."""
    lists = sorted((int(m.group(1)), k) for k in flow if (m := _LIST_KEY.match(k)))
    vars_ = sorted((int(m.group(2)), m.group(1), k) for k in flow if (m := _VAR_KEY.match(k)))
    _need(len(lists) == len(vars_) == len(fors) and len(flow) == 2 * len(fors) + len(windows),
          "the flow variables do not match the loops around the pending decision")
    for uid, mode, st in windows:
        k = f"#took{uid}" if mode == "ask" else f"#as{uid}"
        _need(k in flow, f"flow variable {k!r} is missing")
        v = flow[k]
        if mode == "then" and st.until == "first":
            _need(v is None or _is_int(v, 0, rs.P), f"flow variable {k!r} names no player")
        else:
            _need(type(v) is list and len(v) <= rs.P and all(_is_int(p, 0, rs.P) for p in v)
                  and len(set(v)) == len(v), f"flow variable {k!r} is not a list of players")
    for st, (_, lkey), (_, var, vkey) in zip(fors, lists, vars_):
        _need(var == st.var, f"flow variable {vkey!r} is not the loop variable '{st.var}'")
        pair = flow[lkey]
        _need(type(pair) is list and len(pair) == 2 and type(pair[0]) is list and len(pair[0]) <= MAX_SAVED_LIST,
              f"flow variable {lkey!r} is not [items, index]")
        items, i = pair
        _need(_is_int(i, 1, len(items) + 1), f"flow variable {lkey!r} has a bad index")
        t = getattr(getattr(st.iter, "ast", None), "t", "list")
        if t in ("zone", "cards"):
            _cards(items, rs, f"flow variable {lkey!r}")
        elif t == "players":
            _need(all(_is_int(p, 0, rs.P) for p in items), f"flow variable {lkey!r} names no player")
        else:
            _need(all(_value(x) for x in items), f"flow variable {lkey!r} holds a bad value")
        _need(_same(flow[vkey], items[i - 1]), f"flow variable {vkey!r} is not the current item")
    for key in (getattr(ch, "names", None) or {}).values():
        _need(key in flow, f"flow variable {key!r} is missing")


def _check_pending(s, ch):
    """The decision is really pending: its condition holds, its player decides, it offers a choice."""
    try:
        # `actor` in these expressions read the previous decider when they ran: not checkable here
        if ch.guard is not None and not ch.guard_reads_actor:
            _need(ch.guard(s, dict(s.fenv)), "the pending decision's condition does not hold")
        if ch.player is None:
            _need(s.actor == s.cur, "the deciding player is not the current player")
        elif not ch.player_reads_actor:
            _need(ch.player(s, dict(s.fenv)) == s.actor, "the deciding player is not the one the step names")
        legal = s._enumerate(ch)
    except _Bad:
        raise
    except Exception as e:  # noqa: BLE001 - a tampered state can make rules fail: report, do not crash
        raise _Bad(f"its rules fail here ({e})") from None
    _need(legal, "no legal action in this state")
    s.budget = s.rs.spec.steps_per_decision
    s._legal = legal


# -- history and log ------------------------------------------------------------------------
def _check_cards_info(info, rt, rs, what):
    """The `_cards` of a decision: [param index, card ids, who saw each] per card parameter, in order."""
    _list(info, what)
    want = [i for i, p in enumerate(rt.params) if p.kind in ("card", "subset")] if rt is not None else []
    _need([x[0] if type(x) is list and x and _is_int(x[0]) else None for x in info] == want,
          f"{what} has bad card entries")
    for i, cs, masks in (x if len(x) == 3 else (None, None, None) for x in info):
        _need(cs is not None, f"{what} has bad card entries")
        _cards(cs, rs, what)
        _list(masks, what)
        _need(len(masks) == len(cs) and all(_is_int(m, 0, 1 << rs.P) for m in masks), f"{what} has bad masks")
        if rt.params[i].kind == "card":
            _need(len(cs) == 1, f"{what} has bad card entries")


def _check_action(name, args, rs, what):
    """An action as recorded: a known name (or skip) and one plain value per parameter."""
    if name == "skip":
        _need(args == [], f"{what}: a pass has no parameters")
        return None
    rt = rs.actions.get(name) if isinstance(name, str) else None
    _need(rt is not None, f"{what}: no action named {str(name)[:50]!r}")
    _need(type(args) is list and len(args) == len(rt.params) and all(_value(a) for a in args),
          f"{what}: bad parameters")
    return rt


def _check_event(ev, rs):
    _need(type(ev) is list and ev and ev[0] in ("d", "r", "s", "v"), "bad history event")
    if ev[0] != "r":    # a decision, a simultaneous step's stored choice or its reveal
        _need(len(ev) == 5 and _is_int(ev[1], 0, rs.P), "bad history event")
        rt = _check_action(ev[2], ev[3], rs, "a history event")
        _check_cards_info(ev[4], rt, rs, "a history event")
    else:
        _need(len(ev) == 3 and _is_int(ev[1], 0, rs.P), "bad history event")
        _cards(ev[2], rs, "a history event")
        _need(len(ev[2]) > 0, "bad history event")


def _check_log(log, rs, s, d):
    from types import SimpleNamespace

    from .gamelog import header
    _need(log and isinstance(log[0], dict) and log[0].get("type") == "header", "the log has no header")
    want = _HEADERS.get(rs)
    if want is None:
        init = [[] for _ in range(rs.nzones)]
        for c, zi in enumerate(rs.init_zone):
            init[zi].append(c)
        want = _HEADERS[rs] = header(SimpleNamespace(rs=rs, seed=None, z=init, gen=None))
    got = dict(log[0])
    _need(isinstance(got.get("spec"), str), "the log header names no spec")
    _need("seed" in got and _same(got["seed"], s.seed), "the log header's seed is not the state's")
    _need(got.get("generator", XORSHIFT) == s.gen, "the log header's generator is not the state's")
    got["spec"], got["seed"], got["generator"] = want["spec"], None, None
    _need(got == want, "the log header is not this game's")
    n = 0
    labels = set(rs.zone_label)
    for k, line in enumerate(log[1:], 2):
        what = f"log line {k}"
        _need(isinstance(line, dict) and isinstance(line.get("type"), str) and line["type"] in _LOG_KEYS,
              f"{what} is not a log line")
        t = line["type"]
        _need(set(line) == _LOG_KEYS[t] or (t == "decision" and set(line) == _SECRET_KEYS
                                            and line["secret"] is True),
              f"{what} has unexpected or missing fields")
        if t == "chance":
            _need(line["event"] == "shuffle" and isinstance(line["zone"], str) and line["zone"] in labels,
                  f"{what} is a bad chance event")
            _cards(line["order"], rs, what)
            _need(len(set(line["order"])) == len(line["order"]), f"{what} names a card twice")
        elif t == "look":
            _need(_is_int(line["player"], 0, rs.P), f"{what} names no player")
            _cards(line["cards"], rs, what)
            _need(len(line["cards"]) > 0, f"{what} shows no card")
        elif t in ("decision", "reveal"):
            if t == "decision":
                n += 1
                _need(_is_int(line["n"]) and line["n"] == n, f"{what} is not decision {n}")
            _need(_is_int(line["player"], 0, rs.P), f"{what} names no player")
            act = line["action"]
            _need(isinstance(act, dict) and isinstance(act.get("action"), str), f"{what} has no action")
            rt = rs.actions.get(act["action"])
            names = [p.name for p in rt.params] if rt is not None else []
            _need(set(act) == {"action", *names}, f"{what}: the action has the wrong parameters")
            _check_action(act["action"], [act[x] for x in names], rs, what)
            _check_cards_info(line["_cards"], rt, rs, what)
        else:   # end
            _need(k == len(log) and s.terminal, f"{what}: the game has not ended")
            _need(line["scores"] == d["scores"] and line["winners"] == d["winners"],
                  f"{what}: the final scores differ from the state's")
    _need(n == s.decisions, "the log does not hold one line per decision")
    _need(not s.terminal or log[-1].get("type") == "end", "the log of a finished game ends without its end")
