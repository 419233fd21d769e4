"""state.determinize(p, rng): what it keeps, what it draws, and from what (docs/hidden-information.md).

The leak properties over every channel are in tests/test_leaks.py; here: cards only go where they may
lie, the draws are uniform, the real game is untouched, and misuse gets a clear error.
"""
from __future__ import annotations

import json
import os
import random

import pytest

import gamespec
from helpers import ROOT, load
from hypothesis import given, settings, strategies as st

TINY = os.path.join(ROOT, "tests", "specs", "tiny.yaml")


def _played(game, players, seed, n, log=False):
    rnd = random.Random(seed)
    s = game.new_game(players=players, seed=seed, log=log)
    for _ in range(n):
        if s.is_terminal:
            break
        acts = s.legal_actions()
        s.apply(acts[rnd.randrange(len(acts))])
    return s


def test_cards_only_go_where_they_may_lie():
    """Bacchus: maenads and action cards are separate decks; no determinization puts a maenad into a
    hand of action cards or the action deck, nor an action card among maenads."""
    game = load("bacchus")
    rng = random.Random(3)
    checked = 0
    for seed in range(4):
        s = _played(game, 4, seed, 25)
        rs = s.rs
        for p in range(4):
            d = s.determinize(p, rng)
            for zi, cs in enumerate(d.z):
                types = {rs.faces[rs.face_of[c]]["type"] for c in cs}
                real = {rs.faces[rs.face_of[c]]["type"] for c in s.z[zi]}
                assert types == real, (rs.zone_label[zi], types, real)
            checked += 1
    assert checked == 16


def test_origins_are_public_facts():
    """`poss` follows zone-level moves only: two games whose hidden cards differ, played with the
    same decisions as far as zones go, have the same `poss`; and every card lies where poss allows."""
    game = load("bali")
    for seed in range(3):
        s = _played(game, 3, seed, 60)
        rs = s.rs
        for c in range(rs.ncards):
            assert s.poss[s.loc[c]] >> rs.init_zone[c] & 1
        d = s.determinize(0, random.Random(seed))
        assert d.poss == s.poss
        for c in range(rs.ncards):
            assert d.poss[d.loc[c]] >> rs.init_zone[c] & 1


def test_the_real_state_is_untouched_and_the_copy_is_independent():
    game = load("klink")
    s = _played(game, 4, 2, 30, log=True)
    before = json.dumps(s.to_json())
    d = s.determinize(s.current_player, random.Random(1))
    assert json.dumps(s.to_json()) == before
    rnd = random.Random(9)
    while not d.is_terminal:
        acts = d.legal_actions()
        d.apply(acts[rnd.randrange(len(acts))])
    assert json.dumps(s.to_json()) == before
    assert not s.is_terminal


def test_view_determinize_is_state_determinize():
    game = load("bali")
    s = _played(game, 3, 4, 40)
    for p in range(3):
        a = s.view(p).determinize(random.Random(5))
        b = s.determinize(p, random.Random(5))
        assert a == b


def test_same_rng_same_determinization_and_fresh_rng_states():
    game = load("bacchus")
    s = _played(game, 3, 1, 20)
    assert s.determinize(1, random.Random(7)) == s.determinize(1, random.Random(7))
    rngs = {s.determinize(1, random.Random(k)).rng for k in range(20)}
    assert len(rngs) == 20 and s.rng not in rngs


def test_what_the_player_sees_stays_and_the_rest_is_drawn():
    """Player 0's hand and every public card stay; the hidden cards are a permutation of the real
    hidden cards, and over a few draws the opponents' hands change."""
    game = load("bacchus")
    s = _played(game, 3, 6, 15)
    rs = s.rs
    seen = [c for c in range(rs.ncards) if s._vis(c) & 1]
    hidden = sorted(c for c in range(rs.ncards) if not s._vis(c) & 1)
    rng = random.Random(1)
    changed = 0
    for _ in range(20):
        d = s.determinize(0, rng)
        assert all(d.loc[c] == s.loc[c] and d.z[s.loc[c]].index(c) == s.z[s.loc[c]].index(c) for c in seen)
        assert sorted(c for c in range(rs.ncards) if not d._vis(c) & 1) == hidden
        changed += any(d.z[rs.zone_base["actions"] + q] != s.z[rs.zone_base["actions"] + q] for q in (1, 2))
    assert changed > 10


def test_a_loaded_state_determinizes_too():
    game = load("klink")
    s = _played(game, 3, 3, 12, log=True)
    loaded = game.state_from_json(json.loads(json.dumps(s.to_json())))
    d = loaded.determinize(0, random.Random(2))
    assert d.observation(0) == s.observation(0) and d.log_for(0) == s.log_for(0)


def test_terminal_states_determinize():
    game = gamespec.load(TINY)
    s = _played(game, 2, 1, 10_000, log=True)
    assert s.is_terminal
    d = s.determinize(1, random.Random(0))
    assert d.is_terminal and d.scores == s.scores and d.observation(1) == s.observation(1)


@pytest.mark.parametrize("bad", [-1, 3, "0", None, True])
def test_a_bad_player_is_a_clear_error(bad):
    game = gamespec.load(TINY)
    s = game.new_game(players=3, seed=1)
    with pytest.raises(gamespec.UsageError) as e:
        s.determinize(bad, random.Random(0))
    assert "no player" in str(e.value)
    with pytest.raises(gamespec.UsageError) as e:
        s.view(bad)
    assert "no player" in str(e.value)


def test_uniformity_when_origins_nest():
    """A hidden zone that may hold cards of two origins next to zones holding one origin only: the
    sequential draw (most constrained places first) is exactly uniform; check one place's face
    counts against the exact probabilities by chi-square (fixed seeds)."""
    game = load("bacchus")
    s = _played(game, 3, 11, 30)
    rs = s.rs
    # the place: the top of another player's maenad hand if any, else of the maenad deck
    rng = random.Random(5)
    target = None
    for name in ("hand", "kidnapped"):
        for q in (1, 2):
            zi = rs.zone_base[name] + q
            if s.z[zi] and not s._vis(s.z[zi][-1]) & 1:
                target = (zi, len(s.z[zi]) - 1)
                break
        if target:
            break
    if target is None:
        zi = rs.zone_base["maenad_deck"]
        target = (zi, len(s.z[zi]) - 1)
    zi, pos = target
    hidden = [c for c in range(rs.ncards) if not s._vis(c) & 1]
    allowed = [c for c in hidden if s.poss[zi] >> rs.init_zone[c] & 1]
    expected = {}
    for c in allowed:
        expected[rs.face_of[c]] = expected.get(rs.face_of[c], 0) + 1
    n = 1500
    counts = {}
    for _ in range(n):
        d = s.determinize(0, rng)
        f = rs.face_of[d.z[zi][pos]]
        counts[f] = counts.get(f, 0) + 1
    assert set(counts) <= set(expected)
    total = len(allowed)
    # merge faces into a few bins (colours) so that each bin expects enough draws
    def key(f):
        return rs.faces[f].get("colour", rs.faces[f]["type"])
    exp_bins, got_bins = {}, {}
    for f, k in expected.items():
        exp_bins[key(f)] = exp_bins.get(key(f), 0) + n * k / total
    for f, k in counts.items():
        got_bins[key(f)] = got_bins.get(key(f), 0) + k
    chi2 = sum((got_bins.get(b, 0) - e) ** 2 / e for b, e in exp_bins.items())
    assert chi2 < 20.5, (got_bins, exp_bins)      # df <= 4: p < 0.001


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000), depth=st.integers(0, 80), who=st.integers(0, 4))
def test_determinizations_are_valid_states(seed, depth, who):
    """Any reachable Klink state, any player: the determinization saves, loads as an arranged
    position (every consistency check of a saved state passes; a determinization has no history
    of its own to re-play, so the strict `state_from_json` is not for it) and shows that player the
    same observation."""
    game = load("klink")
    players = 3 + seed % 3
    s = _played(game, players, seed, depth, log=True)
    p = who % players
    d = s.determinize(p, random.Random(seed))
    again = game.arranged_state(json.loads(json.dumps(d.to_json())))
    assert again.observation(p) == s.observation(p)


# ------------------------------------------------------------------------------ determinizer

@pytest.mark.parametrize("name", ["bacchus", "bali", "klink"])
def test_a_determinizer_draws_what_determinize_draws(name):
    """view.determinizer() does the draw-independent work once; each world it draws is the one
    determinize draws from the same rng, and its worlds are independent copies."""
    game = load(name)
    for seed, n in [(1, 5), (2, 25), (3, 60)]:
        s = _played(game, 4, seed, n, log=True)
        before = json.dumps(s.to_json())
        for p in range(4):
            draw = s.view(p).determinizer()
            worlds = [draw(random.Random(k)) for k in range(3)]
            for k, w in enumerate(worlds):
                assert w.to_json() == s.determinize(p, random.Random(k)).to_json()
                assert w.view(p).to_json() == s.view(p).to_json()
            a, b = worlds[0], worlds[1]
            if not a.is_terminal:       # playing one world changes neither the other nor the real game
                b0 = json.dumps(b.to_json())
                a.playout(random.Random(4), in_place=True)
                assert json.dumps(b.to_json()) == b0
        assert json.dumps(s.to_json()) == before


def test_a_determinizer_refuses_once_the_game_moved_on():
    from gamespec.game import UsageError
    game = load("bacchus")
    s = _played(game, 3, 1, 10)
    draw = s.view(0).determinizer()
    draw(random.Random(1))
    s.apply(s.legal_actions()[0])
    with pytest.raises(UsageError, match="earlier moment"):
        draw(random.Random(1))


SECRETS = os.path.join(ROOT, "tests", "specs", "secrets.yaml")


def _var(s, name, q=0):
    return s.v[s.rs.var_base[name] + q]


def test_a_variable_the_player_cannot_see_takes_its_initial_value():
    """Secrets: `luck` is an owner variable, `bonus` a hidden one. In p's determinization p's own luck
    and the public `rounds` stay; the others' luck and the bonus are their initial 0, whatever the
    real values (a chip's value, 1 to 9)."""
    game = gamespec.load(SECRETS)
    for seed in range(3):
        s = _played(game, 3, seed, 2)
        assert _var(s, "bonus") > 0 and all(_var(s, "luck", q) > 0 for q in range(3))
        for p in range(3):
            d = s.determinize(p, random.Random(seed))
            assert _var(d, "luck", p) == _var(s, "luck", p)
            assert [_var(d, "luck", q) for q in range(3) if q != p] == [0, 0]
            assert _var(d, "bonus") == 0
            assert _var(d, "rounds") == _var(s, "rounds") == 2
            d.playout(random.Random(1), in_place=True)      # and it plays on to the end
            assert d.is_terminal


def test_determinizations_do_not_depend_on_variables_the_player_cannot_see():
    """Two states that differ only in variables p cannot see (the bonus, another player's luck) give p
    the same observation and, from the same rng, the same determinization: a bot searching it cannot
    learn them. Changing p's own luck changes both (so the comparison can fail)."""
    game = gamespec.load(SECRETS)
    s = _played(game, 3, 4, 1)
    for p in range(3):
        t = s.clone()
        t.v[t.rs.var_base["bonus"]] += 1
        for q in range(3):
            if q != p:
                t.v[t.rs.var_base["luck"] + q] += 1
        assert t.observation(p) == s.observation(p)
        one = json.dumps(s.determinize(p, random.Random(9)).to_json(), sort_keys=True)
        two = json.dumps(t.determinize(p, random.Random(9)).to_json(), sort_keys=True)
        assert one == two
        u = s.clone()
        u.v[u.rs.var_base["luck"] + p] += 1
        assert u.observation(p) != s.observation(p)
        assert json.dumps(u.determinize(p, random.Random(9)).to_json(), sort_keys=True) != one


@pytest.mark.parametrize("name", ["bali", "klink"])
def test_the_mapped_history_kept_between_decisions_is_the_history_mapped_anew(name):
    """determinize maps only the events since its last call (the mapped head is kept per ruleset):
    at every decision of a game, for every player, the history it gives is the one mapped from
    scratch; a branch (a clone played otherwise) gets its own."""
    from gamespec.interpreter.determinize import _map_history, _unseen
    game = load(name)
    s = _played(game, 3, 5, 0)
    rs = s.rs
    rnd = random.Random(5)
    branch = None
    while not s.is_terminal:
        for p in range(3):
            cached = _map_history(s.hist, p, 1 << p, _unseen(rs.ncards), rs)
            assert cached == _map_history(s.hist, p, 1 << p, _unseen(rs.ncards))
            d = s.determinize(p, rnd)
            assert d.hist == cached
        if s.decisions == 20:
            branch = s.clone()
        acts = s.legal_actions()
        s.apply(acts[rnd.randrange(len(acts))])
    assert rs.__dict__.get("_mapped_history"), "nothing was kept: the test would hold trivially"
    while branch is not None and not branch.is_terminal:
        acts = branch.legal_actions()
        branch.apply(acts[-1])
        p = branch.current_player if branch.current_player is not None else 0
        assert _map_history(branch.hist, p, 1 << p, _unseen(rs.ncards), rs) == \
            _map_history(branch.hist, p, 1 << p, _unseen(rs.ncards))
