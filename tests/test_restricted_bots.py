"""Restricted play (gamespec/bots/restricted.py, docs/bots.md): `all=KIND`, the kinds `first`,
`avoid:ACTION`, `always:ACTION` and `BASE/...`, their parsing, their behaviour in real games, and the
`--restrict` helpers."""
from __future__ import annotations

import os
import random

import pytest

import gamespec
from gamespec.bots import (BotError, FirstBot, GreedyBot, ISMCTSBot, RandomBot, RestrictedBot, check_actions,
                           make_bot, make_bots, parse_kind, parse_restrict, parse_seat, restriction_kinds,
                           seat_kinds, split_kind)
from gamespec.bots.base import resolve

from helpers import ROOT, load, skip_without_cc

GAMES3 = ("bali", "klink", "bacchus")


needs_cc = skip_without_cc()
_native = {}


def native(name):
    if name not in _native:
        _native[name] = gamespec.load(os.path.join(ROOT, "games", f"{name}.yaml"), backend="native")
    return _native[name]


def play(game, bots, seed, players=3, spy=None, limit=2000):
    """Play one game with `bots` (one per seat); `spy(seat, view, position)` sees each decision."""
    s = game.new_game(players=players, seed=seed)
    n = 0
    while not s.is_terminal and n < limit:
        seat = s.current_player
        v = s.view(seat)
        i = resolve(v, bots[seat].choose(v))
        pos = [a.index for a in v.legal_actions].index(i)
        if spy is not None:
            spy(seat, v, pos)
        s.apply(i)
        n += 1
    return s


# -- parsing ------------------------------------------------------------------------------------

def test_all_applies_to_every_seat_and_later_texts_win():
    assert seat_kinds(["all=ismcts:200"], 3) == ["ismcts:200"] * 3
    assert seat_kinds(["all=ismcts:200", "0=random"], 3) == ["random", "ismcts:200", "ismcts:200"]
    assert seat_kinds(["0=random", "all=greedy"], 3) == ["greedy"] * 3          # in order: all= last wins
    assert seat_kinds(["1=first", "all = avoid:pass", "2=greedy/always:keep"], 3) == \
        ["avoid:pass", "avoid:pass", "greedy/always:keep"]
    assert seat_kinds([], 2) == ["random", "random"]
    with pytest.raises(BotError, match="SEAT=KIND or all=KIND"):
        seat_kinds(["everyone=greedy"], 3)
    with pytest.raises(BotError, match="unknown bot kind 'smart'"):
        seat_kinds(["all=smart"], 3)
    with pytest.raises(BotError, match="name one seat here"):      # parse_seat: one seat only
        parse_seat("all=greedy", 3)


def test_the_kinds_parse_into_a_base_and_rules():
    assert parse_kind("first") == ("first", None)
    assert parse_kind("avoid:pass") == ("restricted", "avoid:pass")
    assert parse_kind(" ismcts:200/avoid:pass ") == ("restricted", "ismcts:200/avoid:pass")
    assert split_kind("avoid:pass") == ("random", (("avoid", "pass"),))
    assert split_kind("always:take") == ("random", (("always", "take"),))
    assert split_kind("ismcts:200/avoid:pass") == ("ismcts:200", (("avoid", "pass"),))
    assert split_kind("greedy / always:take") == ("greedy", (("always", "take"),))
    assert split_kind("random/avoid:a/avoid:b") == ("random", (("avoid", "a"), ("avoid", "b")))
    assert split_kind("avoid:a/always:b") == ("random", (("avoid", "a"), ("always", "b")))
    assert split_kind("first/avoid:pass") == ("first", (("avoid", "pass"),))
    assert split_kind("greedy") == ("greedy", ())
    eight = "random/" + "/".join(f"avoid:a{i}" for i in range(8))
    assert len(split_kind(eight)[1]) == 8


@pytest.mark.parametrize("bad, msg", [
    ("avoid", "avoid:ACTION takes an action's name"),
    ("avoid:", "avoid:ACTION takes an action's name"),
    ("always:9lives", "not '9lives'"),
    ("avoid:pa-ss", "not 'pa-ss'"),
    ("greedy/", "an empty restriction"),
    ("greedy//avoid:x", "an empty restriction"),
    ("/avoid:x", "no base kind before the '/'"),
    ("greedy/never:x", "'never:x' is not a restriction; restricted kinds are KIND/avoid:ACTION or KIND/always:ACTION"),
    ("greedy/pass", "'pass' is not a restriction"),
    ("mybots:Cautious/avoid:pass", "a module:Class bot takes no restrictions"),
    ("smart/avoid:pass", "unknown bot kind 'smart'"),
    ("ismcts:0/avoid:pass", "bot kind 'ismcts:0/avoid:pass': ismcts:ITERATIONS takes a whole number >= 1"),
    ("first:2", "takes no argument"),
    ("random/avoid:a/always:a", "the action 'a' is restricted twice"),
    ("random/" + "/".join(f"avoid:a{i}" for i in range(9)), "9 restrictions, at most 8"),
    ("", "a bot kind is random, greedy, ismcts"),
])
def test_every_bad_form_is_refused_with_the_accepted_forms(bad, msg):
    with pytest.raises(BotError, match=msg.replace("(", r"\(").replace(")", r"\)").replace("+", r"\+")):
        parse_kind(bad)
    with pytest.raises(BotError):
        make_bot(bad, 0, 1)


def test_the_messages_name_the_new_kinds_from_the_tables():
    with pytest.raises(BotError) as e:
        parse_kind("smart")
    assert "first" in str(e.value) and "KIND/avoid:ACTION" in str(e.value) and "at most 8" in str(e.value)


def test_make_bot_builds_restricted_bots_on_their_base():
    b = make_bot("ismcts:20/avoid:pass", 1, 7, engine="python")
    assert isinstance(b, RestrictedBot) and isinstance(b.base, ISMCTSBot)
    assert b.base.iterations == 20 and b.base.engine == "python" and (b.base.seed, b.base.seat) == (7, 1)
    assert b.rules == (("avoid", "pass"),) and b.kind_text == "ismcts:20/avoid:pass"
    assert make_bot("ismcts/always:x", 0, 1, engine="native").base.engine == "native"
    assert isinstance(make_bot("avoid:pass", 0, 1).base, RandomBot)
    assert isinstance(make_bot("greedy/always:take", 0, 1).base, GreedyBot)
    assert isinstance(make_bot("first", 0, 1), FirstBot)
    assert type(make_bot("avoid:pass", 0, 1)) is not RandomBot       # not the simulation's fast path
    assert make_bot("ismcts:5/avoid:pass", 0, 1).last_iterations == 0   # the base's attributes


# -- behaviour in real games ---------------------------------------------------------------------

def _actions_seen(game, seeds=range(4)):
    """Action names that were legal together with another name, in random games."""
    seen = {}
    for seed in seeds:
        def spy(seat, v, pos):
            names = {a.name for a in v.legal_actions}
            if len(names) > 1:
                for n in names:
                    seen[n] = seen.get(n, 0) + 1
        play(game, make_bots(["random"] * 3, seed), seed, spy=spy)
    return sorted(seen, key=lambda n: (-seen[n], n))


@pytest.mark.parametrize("name", GAMES3)
def test_avoid_never_plays_the_action_while_another_is_legal(name):
    g = load(name)
    for action in _actions_seen(g)[:3]:
        kind = f"avoid:{action}"
        check_actions([kind], list(g.spec.actions))
        bit = forced = 0
        for seed in range(6):
            bots = make_bots([kind, "random", kind], seed)

            def spy(seat, v, pos):
                nonlocal bit, forced
                if seat == 1:
                    return
                names = [a.name for a in v.legal_actions]
                if any(n != action for n in names):
                    assert names[pos] != action, (name, kind, seed, names)
                    bit += action in names
                else:
                    assert names[pos] == action         # the only option: played
                    forced += 1
            play(g, bots, seed, spy=spy)
        assert bit > 0, (name, action)          # the restriction did remove something


def test_avoid_plays_the_action_when_it_is_the_only_option():
    """Bali's `take` is often the one legal action: avoid:take plays it then."""
    g = load("bali")
    forced = []

    def spy(seat, v, pos):
        names = [a.name for a in v.legal_actions]
        if set(names) == {"take"}:
            forced.append(names[pos])
    for seed in range(3):
        play(g, make_bots(["avoid:take"] * 3, seed), seed, spy=spy)
    assert forced and set(forced) == {"take"}


@pytest.mark.parametrize("name", GAMES3)
def test_always_plays_the_action_whenever_it_is_legal(name):
    g = load(name)
    for action in _actions_seen(g)[:3]:
        kind = f"greedy/always:{action}" if name == "klink" else f"always:{action}"
        hits = 0
        for seed in range(5):
            def spy(seat, v, pos):
                nonlocal hits
                names = [a.name for a in v.legal_actions]
                if seat != 1 and action in names:
                    assert names[pos] == action, (name, kind, seed, names)
                    hits += len(set(names)) > 1
            play(g, make_bots([kind, "random", kind], seed), seed, spy=spy)
        assert hits > 0


def test_several_rules_apply_in_order():
    g = load("bacchus")
    a, b = "draw", "send"                       # legal together in most decisions

    def spy(seat, v, pos):
        names = [x.name for x in v.legal_actions]
        others = [n for n in names if n not in (a, b)]
        if others:
            assert names[pos] not in (a, b)
        elif a in names and b in names:
            assert names[pos] == b              # avoid:a first, then avoid:b finds nothing else
    for seed in range(4):
        play(g, make_bots([f"avoid:{a}/avoid:{b}"] * 3, seed), seed, spy=spy)
    # always:a then always:b: a priority list
    for seed in range(3):
        def spy2(seat, v, pos):
            names = [x.name for x in v.legal_actions]
            if a in names:
                assert names[pos] == a
            elif b in names:
                assert names[pos] == b
        play(g, make_bots([f"always:{a}/always:{b}"] * 3, seed), seed, spy=spy2)


@pytest.mark.parametrize("name", GAMES3)
def test_first_takes_the_first_legal_action(name):
    g = load(name)
    positions = []
    play(g, make_bots(["first"] * 3, 0), 0, spy=lambda seat, v, pos: positions.append(pos))
    assert positions and set(positions) == {0}
    # first among the allowed: the lowest allowed position
    action = _actions_seen(g)[0]

    def spy(seat, v, pos):
        names = [a.name for a in v.legal_actions]
        allowed = [i for i, n in enumerate(names) if n != action] or list(range(len(names)))
        assert pos == allowed[0]
    play(g, make_bots([f"first/avoid:{action}"] * 3, 1), 1, spy=spy)


def _lockstep(game, base_kind, kind, seeds, players=3, engine=None, max_decisions=None):
    """Play games where seat 0 is `kind` and check at each of its decisions that a `base_kind` bot
    of the same seed, asked the same view, makes the same choice (and ends in the same RNG state)."""
    asked = 0
    for seed in seeds:
        r = make_bot(kind, 0, seed, engine=engine)
        b = make_bot(base_kind, 0, seed, engine=engine)
        s = game.new_game(players=players, seed=seed)
        drive = random.Random(seed)
        while not s.is_terminal and (max_decisions is None or asked < max_decisions):
            n = s.legal_action_count()
            if s.current_player == 0:
                v = s.view(0)
                got, want = r.choose(v), b.choose(v)
                assert got == want, (kind, seed)
                if hasattr(b, "rng"):
                    assert r.base.rng.getstate() == b.rng.getstate()
                asked += 1
                s.apply(resolve(v, got))
            else:
                s.apply_index(drive.randrange(n))
    return asked


@pytest.mark.parametrize("name", GAMES3)
@pytest.mark.parametrize("base", ["random", "greedy", "first"])
def test_a_restriction_that_removes_nothing_plays_as_its_base(name, base):
    g = load(name)
    # rules on actions the game never offers: they never remove anything
    assert _lockstep(g, base, f"{base}/avoid:no_such_action/always:nor_this", range(3)) > 20


@pytest.mark.parametrize("engine", ["python", pytest.param("native", marks=needs_cc)])
def test_ismcts_restricted_with_nothing_removed_searches_as_its_base(engine):
    g = native("klink") if engine == "native" else load("klink")
    assert _lockstep(g, "ismcts:20", "ismcts:20/avoid:no_such_action", range(2), engine=engine,
                     max_decisions=12) == 12


def _ismcts_positions(game, action, count, seed=0):
    """Positions where the seat to move has `action` legal along with at least two other actions (so
    that avoiding it leaves a choice)."""
    out = []
    s = game.new_game(players=3, seed=seed)
    r = random.Random(seed)
    while not s.is_terminal and len(out) < count:
        v = s.view(s.current_player)
        names = [a.name for a in v.legal_actions]
        if action in names and sum(n != action for n in names) >= 2:
            out.append(s.clone())
        s.apply_index(r.randrange(s.legal_action_count()))
    return out


@pytest.mark.parametrize("engine", ["python", pytest.param("native", marks=needs_cc)])
def test_ismcts_avoid_picks_the_best_allowed_action_of_the_same_search(engine):
    g = native("klink") if engine == "native" else load("klink")
    states = _ismcts_positions(g, "keep", 6)
    assert len(states) == 6
    for k, s in enumerate(states):
        seat = s.current_player
        v = s.view(seat)
        names = [a.name for a in v.legal_actions]
        allowed = [i for i, n in enumerate(names) if n != "keep"]
        r = make_bot("ismcts:20/avoid:keep", seat, k, engine=engine)
        got = r.choose(v)
        assert names[got] != "keep" and got in allowed
        b = ISMCTSBot(k, seat, iterations=20, engine=engine)
        stats = b._search(v, v.num_legal_actions)
        assert got == ISMCTSBot._best(stats, allowed)
        assert r.base.rng.getstate() == b.rng.getstate() and r.last_iterations == 20
        # always:keep: only keep (a single keep is played without a search)
        a = make_bot("ismcts:20/always:keep", seat, k, engine=engine)
        assert names[a.choose(v)] == "keep"
        assert a.last_iterations == (0 if names.count("keep") == 1 else 20)


@needs_cc
def test_ismcts_restricted_chooses_the_same_on_both_engines():
    for k, s in enumerate(_ismcts_positions(native("klink"), "keep", 4)):
        v = s.view(s.current_player)
        a = make_bot("ismcts:20/avoid:keep", v.player, k, engine="native").choose(v)
        b = make_bot("ismcts:20/avoid:keep", v.player, k, engine="python").choose(v)
        assert a == b


def test_greedy_restricted_picks_the_best_allowed():
    g = load("bali")
    for seed in range(4):
        def spy(seat, v, pos):
            names = [a.name for a in v.legal_actions]
            if "buy" in names and len(set(names)) > 1:
                assert names[pos] != "buy"
        play(g, make_bots(["greedy/avoid:buy"] * 3, seed), seed, spy=spy)


@pytest.mark.parametrize("kind", ["avoid:pass", "greedy/always:keep", "first/avoid:keep", "ismcts:8/avoid:pass"])
def test_the_same_seed_gives_the_same_choices(kind):
    g = load("klink")

    def run(seed):
        out = []
        play(g, make_bots([kind] * 3, seed), seed, spy=lambda seat, v, pos: out.append(pos),
             limit=60 if "ismcts" in kind else 2000)
        return out
    assert run(3) == run(3)
    if not kind.startswith("first"):
        assert run(3) != run(4)


def test_a_class_without_choose_among_is_restricted_too():
    class Plain:
        def __init__(self):
            self.rng = random.Random(0)

        def choose(self, view):
            return 0
    g = load("klink")
    bot = RestrictedBot(Plain(), [("avoid", "keep")], 0, 0)
    for seed in range(3):
        def spy(seat, v, pos):
            names = [a.name for a in v.legal_actions]
            if any(n != "keep" for n in names):
                assert names[pos] != "keep"
        play(g, [bot] * 3, seed, spy=spy)


# -- the --restrict helpers ----------------------------------------------------------------------

def test_check_actions_names_the_unknown_action_and_the_close_one():
    names = list(load("klink").spec.actions)
    check_actions(["random", "avoid:pass", "greedy/always:keep", "mybots:Bot", "avoid:skip"], names)
    with pytest.raises(BotError, match=r"bot kind 'avoid:pas': the game has no action 'pas'; did you mean 'pass'\?"):
        check_actions(["avoid:pas"], names)
    with pytest.raises(BotError, match=r"no action 'kep'; did you mean 'keep'\?.*its actions: look, keep, pass"):
        check_actions(["ismcts:5/avoid:pass/always:kep"], names)
    with pytest.raises(BotError, match="no action 'zzzzzz' \\(its actions"):
        check_actions(["always:zzzzzz"], names)


def test_restriction_kinds():
    assert restriction_kinds(["pass", "take"]) == \
        ["first", "greedy", "avoid:pass", "always:pass", "avoid:take", "always:take"]
    assert restriction_kinds(["pass", "take", "pass"], "ismcts:200") == \
        ["first", "ismcts:200/avoid:pass", "ismcts:200/always:pass", "ismcts:200/avoid:take",
         "ismcts:200/always:take"]
    assert restriction_kinds(["pass"], "greedy") == ["first", "greedy/avoid:pass", "greedy/always:pass"]
    assert restriction_kinds(["pass", "take"], "avoid:pass") == \
        ["first", "avoid:pass/avoid:take", "avoid:pass/always:take"]
    klink = list(load("klink").spec.actions)
    kinds = restriction_kinds(klink)
    assert len(kinds) == 2 + 2 * len(klink)
    for k in kinds:
        make_bot(k, 0, 0)
    with pytest.raises(BotError, match="no restrictions"):
        restriction_kinds(["pass"], "mybots:Bot")


def test_parse_restrict():
    names = ["pass", "take"]
    assert parse_restrict(["avoid:pass"], names) == ["avoid:pass"]
    assert parse_restrict("first, greedy", names) == ["first", "greedy"]
    assert parse_restrict(["first,avoid:pass", "all", "random/avoid:pass"], names) == \
        ["first", "avoid:pass", "greedy", "always:pass", "avoid:take", "always:take"]
    assert parse_restrict(["avoid:pass,greedy", "ismcts:50/avoid:take"], names, "ismcts:50") == \
        ["ismcts:50/avoid:pass", "greedy", "ismcts:50/avoid:take"]
    assert parse_restrict(["all"], names, "ismcts:50") == restriction_kinds(names, "ismcts:50")
    assert parse_restrict([], names) == []
    for bad, msg in [(["avoid:pas"], "did you mean 'pass'"), ([""], "--restrict takes all or bot kinds"),
                     (["first,,greedy"], "an empty item"), (["avoid:"], "--restrict 'avoid:': bot kind"),
                     (["smart"], "unknown bot kind"), (["all=greedy"], "--restrict 'all=greedy'")]:
        with pytest.raises(BotError, match=msg):
            parse_restrict(bad, names)
