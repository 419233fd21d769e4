"""The native engine on small inline specs (docs/native.md): constructs the shipped specs use little or
not at all — `key=` on max/min/sorted, teams (num_teams, team(), members(), team variables and zones,
per-team scoring) — give exactly the Python engine's games, its errors included; the run-time bounds
checks stop a game in C with the Python engine's error; the loader refuses a state that does not fit
the layout; a spec the generator cannot take (or fails on) falls back with one honest line; and
`gamespec simulate` plays on the native engine by default. Skipped without a C compiler where C is
needed."""
from __future__ import annotations

import json
import os
import random
import subprocess
import sys

import pytest

import gamespec
from gamespec.errors import SpecRuntimeError
from helpers import GAMES, ROOT, skip_without_cc

needs_cc = skip_without_cc()

TINY = open(os.path.join(ROOT, "tests", "specs", "tiny.yaml"), encoding="utf-8").read()
SEEDS = range(10)


def spec(*, players=None, teams=None, variables="", tables="", draw=None, stop=None, score=None, extra=""):
    """Tiny (tests/specs/tiny.yaml) with its parts replaced: each player draws until they stop."""
    text = TINY
    if players is not None:
        text = text.replace("players: [2, 3]", f"players: {players}")
    head = ""
    if teams is not None:
        head += f"teams: {json.dumps(teams)}\n"
    if tables:
        head += f"tables:\n{tables}"
    text = text.replace("cards:\n", head + "cards:\n", 1)
    if variables:
        text = text.replace("variables:\n", "variables:\n" + variables, 1)
    if extra:
        text = text.replace("on_begin:", extra + "on_begin:", 1)
    if draw is not None:
        text = text.replace('effect: "deal(deck, hand[actor])"', "effect: " + json.dumps(draw))
    if stop is not None:
        text = text.replace('effect: "stopped[actor] = 1"', "effect: " + json.dumps(stop))
    if score is not None:
        text = text.replace('score: "sum(c.value for c in hand[p])"', score)
    return text


def outcomes(game, players, seeds=SEEDS):
    """Each game's (scores, winners, decisions), or the SpecRuntimeError it ends in (check, where,
    message): one game per seed, as Game.playouts plays it."""
    out = []
    for s in seeds:
        try:
            r = game.playouts(1, seed=s, players=players)[0]
            out.append(("ok", r.scores, [type(x).__name__ for x in r.scores], r.winners, r.decisions))
        except SpecRuntimeError as e:
            out.append(("error", e.check, e.where, e.message))
    return out


def statuses(game, players, seeds=SEEDS):
    """The C playouts' (status, why) per seed: ST_OK where the game ran to its end in C."""
    from gamespec.compile.cbuild import library
    lib = library(game.ruleset(players, {}))
    assert not isinstance(lib, str), lib
    return [lib.playouts(s, 1)[0][:2] for s in seeds]


def same_games(text, counts, name="inline.yaml", in_c=True):
    """Python and native playouts of `text` agree, game by game, at each player count; with `in_c`
    every game that Python finishes ran to its end in C. Returns {count: outcomes}."""
    from gamespec.interpreter.native_engine import ST_OK
    py = gamespec.load_text(text, name)
    nat = gamespec.load_text(text, name, backend="native")
    got = {}
    for players in counts:
        want = outcomes(py, players)
        assert outcomes(nat, players) == want, players
        if in_c:
            st = statuses(nat, players)
            for (status, why), w in zip(st, want):
                if w[0] == "ok":
                    assert status == ST_OK, (players, status, why)
                else:                   # C stopped the game itself; Python said why
                    assert status != ST_OK, (players, w)
        got[players] = want
    return got


# -- key= on max / min / sorted over a generator ----------------------------------------------------
KEYED = spec(
    variables="  order: {type: list, initial: []}\n  lo: {initial: 0}\n  hi: {initial: 0}\n  pick: {type: list, initial: []}\n",
    stop=("order = sorted(c for c in hand[actor], key=c.value % 2); "
          "lo = min(c.value for c in hand[actor], key=(c.value * 7) % 5, default=-1); "
          "pick += [min(c for c in hand[actor], key=c.value % 2, default=none)]; "
          "hi = max(c.value for c in hand[actor] if c.value > 1, key=c.value % 3, default=0); "
          "stopped[actor] = 1"),
    score='score: "10 * max(c.value for c in hand[p], key=-c.value, default=0) + '
          'index_of(sorted(c.value for c in hand[p], key=-c.value), 5) + '
          'size(sorted(c for c in hand[p] if c.value != 3, key=c.value))"')


@needs_cc
def test_max_min_sorted_with_key_are_pythons():
    """The item with the greatest (least) key, the first such; sorted by key, stable: the same scores
    and the same final variables (sorted cards in their order) as the Python engine."""
    from test_native import _final_values, _strict
    got = same_games(KEYED, (2, 3), "keyed.yaml")
    assert all(o[0] == "ok" for os_ in got.values() for o in os_)
    g = gamespec.load_text(KEYED, "keyed.yaml", backend="native")
    for players in (2, 3):
        for s in SEEDS:
            py, nat = _final_values(g, players, s)
            assert _strict(nat) == _strict(py), (players, s)


def test_key_decides_the_result():
    """(The test above would pass if key= were ignored and the result happened to be the same.)"""
    g = gamespec.load_text(KEYED, "keyed.yaml")
    with_key = outcomes(g, 2)
    plain = gamespec.load_text(KEYED.replace(", key=-c.value, default=0)", ", default=0)"), "plain.yaml")
    assert outcomes(plain, 2) != with_key


KEY_TABLES = ("  mixed: {1: 'a', 2: 1, 3: 'b', 4: 2, 5: 3}\n"
              "  nones: {1: none, 2: 1, 3: 2, 4: 3, 5: 4}\n"
              "  lists: {0: 0, 1: [1, 'a'], 2: [1, 2], 3: [0], 4: [2, 'x'], 5: [2, 'y']}\n"
              "  bools: {1: true, 2: 1, 3: 0, 4: false, 5: 2}\n"
              "  texts: {1: 'b', 2: 'a', 3: 'b', 4: '', 5: 'c'}\n")


@needs_cc
@pytest.mark.parametrize("key", [
    "c.value // (c.value - 3)",       # faults on a 3
    "mixed[c.value]",                 # numbers and texts (typed `any`): not comparable
    "nones[c.value]",                 # none: not comparable, not even with itself
    "lists[c.value]",                 # lists, compared item by item: comparable or not, pair by pair
    "bools[c.value]",                 # bools and numbers compare
    "texts[c.value]",                 # texts compare (by their interned ids, in Python's order)
])
@pytest.mark.parametrize("fn", ["max", "min", "sorted"])
def test_keys_that_fault_or_do_not_compare_end_as_in_python(fn, key):
    extra = ", default=0" if fn != "sorted" else ""
    x = f"{fn}(c.value for c in hand[actor], key={key}{extra})"
    text = spec(tables=KEY_TABLES, variables="  seen: {type: list, initial: []}\n",
                stop=f"seen += [{x}]; stopped[actor] = 1")
    same_games(text, (2, 3), "keys.yaml", in_c=False)


@needs_cc
@pytest.mark.parametrize("key", ["", ", key=-c.value"])
@pytest.mark.parametrize("fn", ["max", "min"])
def test_a_default_is_evaluated_even_when_not_needed(fn, key):
    """`max(... for ..., default=d)`: the default backend evaluates d after the items whether or not
    there are any (so a default that faults stops the game with a card in hand too)."""
    x = f"{fn}(c.value for c in hand[actor]{key}, default=10 // (size(hand[actor]) - 1))"
    text = spec(variables="  seen: {type: list, initial: []}\n", draw=f"deal(deck, hand[actor]); seen += [{x}]")
    got = same_games(text, (2, 3), "default.yaml")
    assert any(o[0] == "error" for o in got[2]) and any(o[0] == "ok" for o in got[2])


# -- teams ------------------------------------------------------------------------------------------
@needs_cc
def test_num_teams_is_the_number_of_teams():
    """num_teams is the teams' count, not the players' (4 players in 2 teams: 2)."""
    text = spec(players="[2, 4]", teams="p % 2", score='score: "sum(c.value for c in hand[p]) * num_teams"')
    got = same_games(text, (2, 3, 4), "teams.yaml")
    py = gamespec.load_text(text, "teams.yaml")
    r = py.playouts(1, seed=0, players=4)[0]
    assert py.ruleset(4, {}).T == 2 and all(s % 2 == 0 for s in r.scores)
    assert got[4][0][1] == r.scores


TEAM_VARS = dict(players="[2, 4]", teams="p % 2",
                 variables="  pts: {per_team: true, initial: 0}\n  flag: {type: bool, per_team: true, initial: false}\n"
                           "  after: {initial: 7}\n")


@needs_cc
def test_team_variables_read_and_write_their_own_cells():
    text = spec(**TEAM_VARS,
                draw="deal(deck, hand[actor]); pts[team(actor)] += 1 + top(hand[actor]).value % 2; "
                     "flag[actor % num_teams] = pts[0] > pts[num_teams - 1]",
                score='score: "10 * pts[team(p)] + (5 if flag[team(p)] else 0) + after + '
                      'sum(pts[t] for t in range(num_teams))"')
    same_games(text, (2, 3, 4), "teamvars.yaml")


@needs_cc
@pytest.mark.parametrize("where", ["write", "read", "add"])
def test_a_team_index_out_of_range_is_pythons_error(where):
    """pts[actor] with 3 or 4 players in 2 teams: Python stops with "no team 2 (teams are 0 to 1)";
    C stops the game too (never writing the next variable's cell), and the error is Python's."""
    effect = {"write": "pts[actor] = 1; deal(deck, hand[actor])",
              "read": "after = pts[actor]; deal(deck, hand[actor])",
              "add": "pts[actor] += 1; deal(deck, hand[actor])"}[where]
    text = spec(**TEAM_VARS, draw=effect, score='score: "after + pts[team(p)]"')
    got = same_games(text, (2, 3, 4), "teamerr.yaml")
    assert all(o[0] == "ok" for o in got[2])
    for players in (3, 4):
        errors = [o for o in got[players] if o[0] == "error"]
        assert errors and all("no team" in o[3] and "(teams are 0 to 1)" in o[3] for o in errors), got[players]


@needs_cc
def test_a_team_index_of_another_kind_is_pythons_error():
    """A value typed `any` used as a team index: a bool (True is no team for Python) or a text."""
    for bad in ("true", "'x'", "none", "1"):
        text = spec(**TEAM_VARS, tables=f"  odd: {{0: {bad}}}\n",
                    draw="deal(deck, hand[actor]); pts[odd[0]] += 1",
                    score='score: "pts[team(p)] + size(won[odd[0]])"',
                    extra="")
        text = text.replace("zones:\n", "zones:\n  won: {kind: pile, per_team: true, visibility: public}\n", 1)
        same_games(text, (2, 4), "teamkind.yaml")


@needs_cc
def test_team_zones_and_members():
    text = spec(**TEAM_VARS,
                draw="deal(deck, hand[actor]); if size(hand[actor]) > 2 { move(top(hand[actor]), won[team(actor)]) }",
                score='score: "sum(c.value for c in won[team(p)]) + 100 * size(members(team(p))) + '
                      'first(members(team(p))) + sum(size(won[t]) for t in range(num_teams))"')
    text = text.replace("zones:\n", "zones:\n  won: {kind: pile, per_team: true, visibility: owner}\n", 1)
    same_games(text, (2, 3, 4), "teamzones.yaml")


@needs_cc
def test_per_team_scoring():
    """scoring.per_team: the score and tie breakers once per team, t the team; its members share it."""
    text = spec(**TEAM_VARS, draw="deal(deck, hand[actor]); pts[team(actor)] += top(hand[actor]).value % 3",
                score='per_team: true\n  score: "pts[t]"\n  tie_breakers: ["-size(members(t))"]')
    same_games(text, (2, 3, 4), "perteam.yaml")
    # random seats in C, untraced and traced (a team's score traced once per team): the games run there
    from gamespec.compile.cbuild import library
    from gamespec.interpreter.native_engine import ST_OK, random_bot_key
    lib = library(gamespec.load_text(text, "perteam.yaml", backend="native").ruleset(4, {}))
    keys = [[random_bot_key(s, p) for p in range(4)] for s in SEEDS]
    assert {r["status"] for r in lib.simulate(list(SEEDS), keys, None, 0, 1)} == {ST_OK}
    assert {r["status"] for r in lib.simulate(list(SEEDS), keys, None, 2, 1)} == {ST_OK}
    # and a random study traces it as the Python loop does (the trace is the Python loop's)
    from gamespec.simulate import TIMING_FIELDS, simulate
    path = os.path.join(ROOT, "tests", "specs", "bags.yaml")
    kw = dict(games=6, players=4, seed=3, workers=1)
    a = simulate(path, engine="native", **kw)
    b = simulate(path, engine="python", **kw)
    for k in TIMING_FIELDS:
        a.pop(k, None)
        b.pop(k, None)
    assert a == b


# -- bounds checks in generated code -----------------------------------------------------------------
@needs_cc
@pytest.mark.parametrize("expr,why", [
    ("[1, 2, 3][size(hand[actor]) + 2]", "F_INDEX"),          # a list index past the end
    ("[1, 2, 3][-4 - size(hand[actor])]", "F_INDEX"),          # before the start
    ("stopped[actor + num_players]", "F_PLAYER"),             # a player out of range
    ("stopped[actor - num_players]", "F_PLAYER"),
    ("tab[size(hand[actor]) + 10]", "F_KEY"),                 # a table without the key
    ("size(pile[size(hand[actor]) + 5])", "F_KEY"),           # a family without the member
])
def test_out_of_range_indices_stop_the_game_in_c_with_pythons_error(expr, why):
    """The generated code checks every index before it reads: the C game stops where Python's does
    (runtime.h's fault code), and the error the native game raises is the Python engine's."""
    from gamespec.interpreter.native_engine import ST_FAULT
    codes = {"F_KEY": 3, "F_INDEX": 4, "F_PLAYER": 6}
    text = spec(tables="  tab: {0: 1, 1: 2}\n", variables="  seen: {initial: 0}\n",
                draw=f"deal(deck, hand[actor]); seen = {expr}")
    text = text.replace("zones:\n", "zones:\n  pile: {kind: pile, count: 3, visibility: public}\n", 1)
    got = same_games(text, (2, 3), "bounds.yaml")
    nat = gamespec.load_text(text, "bounds.yaml", backend="native")
    for players in (2, 3):
        stopped = [st for st, o in zip(statuses(nat, players), got[players]) if o[0] == "error"]
        assert len(stopped) >= len(SEEDS) // 2 and set(stopped) == {(ST_FAULT, codes[why])}, (players, stopped)


# -- the loader: a state that does not fit the layout ------------------------------------------------
_LOADER = r"""
import json, random, sys
import gamespec
from gamespec.compile.cbuild import library
from gamespec.interpreter.native_engine import flatten, rollout, T_LIST, T_INT, T_NONE
path, players, seed, depth = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
g = gamespec.load(path, backend="native")
s = g.new_game(players=players, seed=seed)
r = random.Random(seed)
for _ in range(depth):
    s.apply_index(r.randrange(s.legal_action_count()))
lib = library(s.rs)
good = flatten(lib, s)
rs = s.rs
# where things are in the buffer (interpreter/native_engine.flatten, runtime.c load_state)
def skip_value(b, at):
    t = b[at]
    if t == T_NONE:
        return at + 1
    if t == T_LIST:
        n, at = b[at + 1], at + 2
        for _ in range(n):
            at = skip_value(b, at)
        return at
    return at + 2
at = 18
zones = at
for _ in range(rs.nzones):
    at += 1 + good[at]
at += 2 * rs.ncards + len(rs.mark_init) * rs.ncards
for _ in range(len(rs.var_init)):
    at = skip_value(good, at)
flows = at
for _ in range(len(lib.for_slot)):
    at = skip_value(good, skip_value(good, at + 3))
stored = at
assert good[stored] == 0, good[stored:]

def load(buf):
    from array import array
    import ctypes
    from gamespec.interpreter.native_engine import _ptr
    b = array("q", buf)
    return lib.lib.gs_load(lib.ctx(), _ptr(b, ctypes.c_int64), len(b))

def with_stored(player, act, args):
    return good[:stored] + [1, player, act, T_LIST, len(args)] + [x for a in args for x in (T_INT, a)]

cases = {
    "abi": [good[0] + 1] + good[1:],
    "truncated": good[:-1],
    "trailing": good + [0],
    "empty": [],
    "pending": good[:6] + [len(rs.chooses)] + good[7:],
    "actor": good[:7] + [players] + good[8:],
    "zone count": good[:zones] + [rs.ncards + 1] + good[zones + 1:],
    "card id": good[:zones] + [good[zones]] + [rs.ncards] * good[zones] + good[zones + 1 + good[zones]:],
    "stored count": good[:stored] + [65],
    "stored player": with_stored(players, -1, []),
    "stored negative player": with_stored(-1, -1, []),
    "stored action": with_stored(0, len(lib.meta["actions"]), []),
    "stored action below the skip": with_stored(0, -2, []),
    "stored argument count": with_stored(0, 0, [0] * (len(rs.spec.actions[lib.meta["actions"][0]].params) + 1)),
    "stored args not a list": good[:stored] + [1, 0, -1, T_INT, 3],
}
if lib.for_slot:
    cases["flow index"] = good[:flows + 2] + [-1] + good[flows + 3:]
    cases["flow index too large"] = good[:flows + 2] + [1 << 40] + good[flows + 3:]
out = {k: load(v) for k, v in cases.items()}
out["control"] = load(with_stored(0, -1, []))       # a well-formed stored skip: accepted
out["good"] = load(good)
# and after all that, the context still plays the real state exactly as Python does
r1, r2 = random.Random(5), random.Random(5)
a = rollout(lib, s, r1)
c = s.clone(); c.log = None
b = c.playout(r2, in_place=True)
out["same"] = a == b and r1.getstate() == r2.getstate()
print(json.dumps(out))
"""


@needs_cc
@pytest.mark.parametrize("path,players,depth", [
    (os.path.join(ROOT, "games", "klink.yaml"), 3, 5),
    (os.path.join(ROOT, "tests", "specs", "sealed.yaml"), 2, 0),
    (os.path.join(ROOT, "tests", "specs", "ladder.yaml"), 2, 3),
], ids=["klink", "sealed", "ladder"])
def test_the_loader_refuses_a_state_that_does_not_fit_the_layout(path, players, depth):
    """Buffers that are not a state of this rule set (a wrong ABI, truncated or trailing words, a
    decision point, seat, zone size, card, flow index, stored choice's player, action or argument
    count out of range) are refused by gs_load (-1), never read past: in a child process, so that a
    crash would be a failure and not the end of the run; the context loads the real state afterwards."""
    r = subprocess.run([sys.executable, "-c", _LOADER, path, str(players), "1", str(depth)], capture_output=True,
                       text=True, cwd=ROOT, timeout=300, env=dict(os.environ, PYTHONPATH=ROOT))
    assert r.returncode == 0, r.stderr[-3000:]
    out = json.loads(r.stdout.splitlines()[-1])
    assert out.pop("good") == 0 and out.pop("control") == 0 and out.pop("same") is True
    assert out and {k: v for k, v in out.items() if v != -1} == {}


@needs_cc
def test_a_state_the_loader_refuses_is_played_by_the_python_engine():
    """rollout() hands back None for a state it cannot load: state.playout then plays it in Python."""
    from gamespec.compile.cbuild import library
    from gamespec.interpreter import native_engine as N
    g = gamespec.load(os.path.join(ROOT, "games", "klink.yaml"), backend="native")
    s = g.new_game(players=3, seed=2)
    lib = library(s.rs)
    real = N.flatten
    try:
        N.flatten = lambda lib_, st: real(lib_, st)[:-1]         # one word short
        assert N.rollout(lib, s, random.Random(1)) is None
        r1, r2 = random.Random(1), random.Random(1)
        a = s.playout(r1)
    finally:
        N.flatten = real
    c = s.clone()
    c.log = None
    assert a == c.playout(r2, in_place=True) and r1.getstate() == r2.getstate()


# -- fallbacks: one line, the Python engine's games --------------------------------------------------
def _fallback(text, name, players, monkeypatch_generate=None):
    code = (
        "import json, sys, gamespec\n"
        f"text = {text!r}\n"
        + (monkeypatch_generate or "")
        + f"g = gamespec.load_text(text, {name!r}, backend='native')\n"
        f"a = g.playouts(4, seed=0, players={players}); b = g.playouts(4, seed=0, players={players})\n"
        f"c = gamespec.load_text(text, {name!r}).playouts(4, seed=0, players={players})\n"
        f"print(json.dumps([a == c, b == c, g.native_status({players})]))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300,
                       env=dict(os.environ, PYTHONPATH=ROOT))
    assert r.returncode == 0, r.stderr[-3000:]
    same1, same2, status = json.loads(r.stdout.splitlines()[-1])
    assert same1 and same2
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("gamespec: native engine not used for Tiny") and "Python engine" in lines[0]
    assert status in lines[0]
    return status


def test_a_generator_that_fails_falls_back_with_an_honest_reason():
    """An unexpected exception while generating C (a bug of the native compiler) is no crash: the
    game falls back, the one line names the exception, and the games are the Python engine's."""
    boom = ("import gamespec.compile.native as N, gamespec.compile.native.program as P\n"
            "def boom(rs):\n"
            "    raise AttributeError(\"'Name' object has no attribute 'obj'\")\n"
            "N.generate = P.generate = boom\n")
    status = _fallback(spec(), "boom.yaml", 2, boom)
    assert status == ("the native compiler failed on this spec (AttributeError: 'Name' object has no "
                      "attribute 'obj'); please report it")


def test_a_build_that_fails_unexpectedly_falls_back(monkeypatch, capsys):
    """An exception the build does not expect (here the cache's disk full) is a reason too."""
    from gamespec.compile import cbuild

    def full(source):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(cbuild, "build", full)
    text = spec()
    g = gamespec.load_text(text, "full.yaml", backend="native")
    assert g.playouts(3, seed=0, players=2) == gamespec.load_text(text, "full.yaml").playouts(3, seed=0, players=2)
    assert g.native_status(2) == "the native build failed (OSError: [Errno 28] No space left on device)"
    assert capsys.readouterr().err.count("native engine not used for Tiny (2 players)") == 1


# -- the command line ---------------------------------------------------------------------------------
@needs_cc
def test_cli_simulate_plays_on_the_native_engine_by_default(capsys, monkeypatch):
    import gamespec.interpreter.native_engine as N
    from gamespec.cli import main
    calls = []
    real = N.simulate_games

    def spy(lib, *a, **kw):
        calls.append(lib)
        return real(lib, *a, **kw)
    monkeypatch.setattr(N, "simulate_games", spy)
    args = ["simulate", GAMES[1], "-n", "12", "-p", "3", "--seed", "5", "--workers", "1", "--json"]
    assert main(args) == 0
    default = json.loads(capsys.readouterr().out)
    assert default["engine"] == "native" and calls, default.get("engine")
    calls.clear()
    assert main(args + ["--engine", "python"]) == 0
    python = json.loads(capsys.readouterr().out)
    assert python["engine"] == "python" and not calls
    drop = ("seconds", "games_per_second", "decisions_per_second", "workers", "engine")
    assert {k: v for k, v in default.items() if k not in drop} == {k: v for k, v in python.items() if k not in drop}


def test_cli_simulate_without_a_compiler_says_so_once_and_plays_in_python(tmp_path):
    code = ("import sys\nfrom gamespec.cli import main\n"
            f"sys.exit(main(['simulate', {GAMES[1]!r}, '-n', '6', '-p', '3', '--seed', '5', '--workers', '1', '--json']))\n")
    env = dict(os.environ, CC="/nonexistent", GAMESPEC_CACHE=str(tmp_path / "cache"), PYTHONPATH=ROOT)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "no C compiler found (CC=/nonexistent)" in lines[0], r.stderr
    assert json.loads(r.stdout)["games_finished"] == 6
