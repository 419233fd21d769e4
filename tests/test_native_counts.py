"""Zone counts by attribute (docs/native.md, "Zone counts by attribute"; issue 37 part 3): the native engine
keeps, per zone a count reads, how many of its cards have each combination of fixed attributes, so
that `count(c for c in <zone> if c.a == x and ...)` is one read. These tests hold the kept counts to
a recount after every change (a test build, `cc -DGS_CHECK_COUNTS`: every move, deal, new game,
load, copy and determinization recounts and sums the differences), on random games, mid-game states
(loaded, determinized) and ISMCTS searches (copies, determinizations); and the games with counts
to the Python engine's."""
from __future__ import annotations

import ctypes
import os
import random

import pytest

import gamespec
from helpers import GAMES, ROOT, skip_without_cc

needs_cc = skip_without_cc()

SPECS = sorted(GAMES) + sorted(os.path.join(ROOT, "tests", "specs", f) for f in os.listdir(os.path.join(ROOT, "tests", "specs"))
                               if f.endswith(".yaml"))

# Every kind of attribute (texts with none, numbers, bools, a mix of kinds) counted by one, two and
# three attributes, with constants, parameters, loop items and values of other kinds (True == 1, a
# text never equals a number), in listings, effects, conditions and the score; cards moved by every
# kind of move: move (top, bottom, face down, a list, a whole zone), deal (a refill with a shuffle,
# face down), determinizations of hidden hands and a hidden pile.
INLINE = """
name: Counted
players: [2, 4]
cards:
  gem:
    zone: deck
    faces:
      - {each: {kind: [ruby, jade, opal]}, rank: 1, shiny: true, mix: 1, count: 4}
      - {each: {kind: [ruby, jade]}, rank: 2, shiny: false, mix: ruby, count: 3}
      - {rank: 3, shiny: true, mix: true, count: 5}
zones:
  deck: {kind: pile, visibility: hidden, on_empty: {refill_from: discard, shuffle: true}}
  discard: {kind: pile, visibility: public}
  hand: {kind: set, per_player: true, visibility: owner}
  shelf: {kind: pile, per_player: true, visibility: public}
  vault: {kind: pile, visibility: hidden}
  bins: {kind: set, keys: [ruby, jade, opal], visibility: public}
variables:
  points: {per_player: true, initial: 0}
  rounds: {initial: 0}
define:
  kinds: "['ruby', 'jade', 'opal']"
  held(q, k): "count(c for c in hand[q] if c.kind == k)"
  pair(q, k, r): "count(c for c in hand[q] if c.kind == k and c.rank == r)"
  shining(q): "count(c for c in shelf[q] if c.shiny == true and c.rank == 1 and c.kind == 'ruby')"
on_begin: |
  shuffle(deck)
  for p in players { deal(deck, hand[p], 3) }
  deal(deck, vault, 2, face='down')
start: play
phases:
  play:
    turn:
      on_begin: "rounds += 1"
      steps:
        - choose: [draw, shelve, bury, sort, swap, cash]
    end_if: "rounds > 24"
    next: end
actions:
  draw:
    effect: "deal(deck, hand[actor])"
  shelve:
    params:
      kind: {choice: [ruby, jade, opal, 1, true], where: "held(actor, kind) > 0"}
    effect: |
      move(first(c for c in hand[actor] if c.kind == kind), shelf[actor], at='bottom')
      points[actor] += count(c for c in shelf[actor] if c.mix == kind)
  bury:
    params:
      card: {from: "hand[actor]"}
    if: "count(c for c in hand[actor] if c.mix == 1) + count(c for c in hand[actor] if c.mix == 'ruby') > 0"
    effect: |
      move(card, discard)
      move(top(shelf[actor], 2), vault, face='down')
  sort:
    if: "size(shelf[actor]) > 0"
    effect: |
      for c in shelf[actor] { move(c, bins[kinds[c.rank % 3]]) }
      points[actor] += sum(count(c for c in bins[k] if c.kind == k) for k in kinds)
  swap:
    if: "size(vault) > 1"
    effect: |
      move(vault, discard)
      move(bins['opal'], hand[actor])
  cash:
    if: "pair(actor, 'jade', 2) + count(c for c in hand[actor] if c.rank == true) >= 2"
    effect: |
      points[actor] += pair(actor, 'jade', 2) * 3
      if size(discard) > 0 { points[actor] += count(c for c in zone_of(top(discard)) if c.kind == none) }
      move(hand[actor], discard)
scoring:
  score: "points[p] + sum(held(p, k) for k in kinds) + shining(p) + count(c for c in discard if c.kind == 'opal' and c.shiny == 1)"
"""


@pytest.fixture(scope="module")
def check_cache(tmp_path_factory):
    """The check build's cache, shared by this module's tests (Bali's 4-player check library is
    compiled once, not once per test)."""
    return tmp_path_factory.mktemp("check-build") / "cache"


def _check_build(monkeypatch, cache):
    """Later libraries are built with -DGS_CHECK_COUNTS, in a cache of their own."""
    cc = os.environ.get("CC") or "cc"
    monkeypatch.setenv("CC", cc + " -DGS_CHECK_COUNTS")
    monkeypatch.setenv("GAMESPEC_CACHE", str(cache))


def _lib(game, players):
    lib = game.native_library(game.ruleset(players, {}))
    assert not isinstance(lib, str), lib
    lib.lib.gs_cnt_bad.restype = ctypes.c_int64
    return lib


def _source(game, players):
    from gamespec.compile.native import generate
    return generate(game.ruleset(players, {}))[0]


def _exercise(game, players, py=None, seeds=range(6), searches=True):
    """Random games (both generators), rollouts from random mid-game states (loaded, some
    determinized first) and native ISMCTS searches: each against the Python engine."""
    from gamespec.bots.ismcts import ISMCTSBot
    from gamespec.interpreter.native_engine import rollout
    lib = _lib(game, players)
    for gen in ("fast", "default"):
        kw = {} if gen == "default" else {"generator": gen}
        runs = game.playouts(len(seeds), seed=seeds.start, players=players, **kw)
        if py is not None:
            assert runs == py.playouts(len(seeds), seed=seeds.start, players=players, **kw)
    searched = 0
    for seed in seeds:
        s = game.new_game(players=players, seed=seed)
        r = random.Random(seed)
        for _ in range(r.randrange(1, 40)):
            if s.is_terminal:
                break
            s.apply_index(r.randrange(s.legal_action_count()))
        if s.is_terminal:
            continue
        if seed % 2:
            s = s.determinize(s.current_player, random.Random(seed))
        r1, r2 = random.Random(seed), random.Random(seed)
        got = rollout(lib, s, r1)
        c = s.clone()
        c.log = None
        if got is not None:
            assert got == c.playout(r2, in_place=True)
        if searches and s.legal_action_count() > 1 and searched < 2:
            v = s.view(s.current_player)
            bot = ISMCTSBot(seed=seed, seat=v.player, iterations=25, engine="native")
            bot.choose(v)
            searched += 1
    return lib


@needs_cc
def test_the_seed_games_read_kept_counts():
    """Bali's and Bacchus's counts by kind and colour are kept (the mechanism is in use where the
    figures are measured), and a spec without such a count keeps none."""
    for stem, least in (("bali", 8), ("bacchus", 2)):
        g = gamespec.load(os.path.join(ROOT, "games", stem + ".yaml"), backend="native")
        src = _source(g, 4)
        assert "gen_cnt_move" in src
        assert src.count("g->cnt[") >= least, stem
    tiny = gamespec.load(os.path.join(ROOT, "tests", "specs", "tiny.yaml"), backend="native")
    src = _source(tiny, 2)
    assert "gen_cnt_move" not in src and "g->cnt[" not in src


@needs_cc
def test_an_inline_spec_of_every_attribute_kind_and_move_plays_as_python():
    """INLINE (counts over texts with none, numbers, bools and mixed kinds, by one to three
    attributes, compared with values of every kind; cards moved every way) plays the Python engine's
    games, and reads kept counts."""
    py = gamespec.load_text(INLINE, "counted.yaml")
    nat = gamespec.load_text(INLINE, "counted.yaml", backend="native")
    for players in (2, 3, 4):
        src = _source(nat, players)
        assert src.count("g->cnt[") >= 8 and "gen_cnt_move" in src
        for gen in ({}, {"generator": "fast"}):
            a = nat.playouts(40, seed=5, players=players, **gen)
            b = py.playouts(40, seed=5, players=players, **gen)
            assert a == b, (players, gen)
        lib = _lib(nat, players)
        st = [lib.playouts(s, 1, "splitmix64")[0][0] for s in range(20)]
        assert all(x == 0 for x in st), st          # every game ran to its end in C


@needs_cc
@pytest.mark.parametrize("stem", ["bali", "bacchus", "inline"])
def test_kept_counts_equal_a_recount_after_every_change(stem, monkeypatch, check_cache):
    """In the check build the kept counts are recounted after every move, deal, new game, copy and
    determinization: no difference over random games, loaded and determinized mid-game states and
    searches (and the games are the Python engine's)."""
    _check_build(monkeypatch, check_cache)
    if stem == "inline":
        game = gamespec.load_text(INLINE, "counted.yaml", backend="native")
        py = gamespec.load_text(INLINE, "counted.yaml")
    else:
        game = gamespec.load(os.path.join(ROOT, "games", stem + ".yaml"), backend="native")
        py = gamespec.load(os.path.join(ROOT, "games", stem + ".yaml"))
    lib = _exercise(game, 3 if stem != "bali" else 4, py)
    assert lib.lib.gs_cnt_bad() == 0


@needs_cc
def test_the_check_build_finds_a_wrong_count(monkeypatch, check_cache):
    """The check is not vacuous: a count made wrong on purpose is found at the next move."""
    _check_build(monkeypatch, check_cache)
    game = gamespec.load(os.path.join(ROOT, "games", "bali.yaml"), backend="native")
    lib = _lib(game, 4)
    lib.lib.gs_cnt_poke.argtypes = [ctypes.c_void_p]
    s = game.new_game(players=4, seed=3)
    game.playouts(2, seed=0, players=4)
    assert lib.lib.gs_cnt_bad() == 0
    words = random.Random(1).getstate()[1]
    assert lib.load(s)
    lib.rollout(words)
    assert lib.lib.gs_cnt_bad() == 0
    assert lib.load(s)
    lib.lib.gs_cnt_poke(lib.ctx())
    lib.rollout(words)                     # plays on from the count made wrong
    assert lib.lib.gs_cnt_bad() > 0


@needs_cc
@pytest.mark.slow
@pytest.mark.parametrize("path", SPECS, ids=lambda p: os.path.basename(p)[:-5])
def test_kept_counts_hold_in_every_spec(path, monkeypatch, check_cache):
    """Every spec of games/ and tests/specs/, at its fewest and most players, in the check build."""
    _check_build(monkeypatch, check_cache)
    game = gamespec.load(path, backend="native")
    for players in sorted({game.min_players, game.max_players}):
        if game.native_status(players) is not None:
            continue
        lib = _exercise(game, players, gamespec.load(path), seeds=range(4), searches=False)
        assert lib.lib.gs_cnt_bad() == 0, players


@needs_cc
def test_the_inline_paths_of_is_max_and_dense_rank_play_as_python():
    """is_max / is_sole_max and dense_rank over a few numbers take an inline path in C (runtime.h,
    runtime.c); with bools among the ints, duplicates, negative indices, texts and empty hands they
    give the Python engine's games."""
    from test_native_inline import same_games, spec
    score = ('score: "dense_rank([c.value for c in hand[p]] + [true, 0, 1], -1 - p) * 100'
             ' + (10 if is_sole_max([size(hand[q]) for q in players], p, min=1) else 0)'
             ' + (20 if is_max([sum(c.value for c in hand[q]) for q in players] + [true], -1 - p, min=2) else 0)'
             ' + dense_rank([\'x\', \'y\', \'x\'], p % 3) * 1000'
             ' + (3 if is_max([\'b\', \'a\', \'b\'], p % 3) else 0)"')
    same_games(spec(score=score), [2, 3])
