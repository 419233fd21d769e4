"""The index API and in-engine playouts: legal_action_count / apply_index play the same game as
apply(legal_actions()[i]); state.playout(rng) and game.playouts(n, seed, ...) are the random loop,
deterministic, and leave the state they start from as it was."""
from __future__ import annotations

import glob
import os
import random

import pytest

from gamespec.errors import IllegalAction
from gamespec.game import UsageError
from helpers import GAMES, ROOT, config_id, configs, load

SPECS = GAMES + sorted(glob.glob(os.path.join(ROOT, "tests", "specs", "*.yaml")))
CONFIGS = configs(SPECS)
SEEDS = (0, 1, 2)


def _standard(game, players, options, seed, log=False):
    """The standard loop: legal_actions() then apply(actions[rng.randrange(n)])."""
    rnd = random.Random(seed)
    s = game.new_game(players=players, seed=seed, options=options, log=log)
    while not s.is_terminal:
        acts = s.legal_actions()
        s.apply(acts[rnd.randrange(len(acts))])
    return s


@pytest.mark.parametrize("cfg", CONFIGS, ids=[config_id(c) for c in CONFIGS])
def test_apply_index_plays_the_same_game_as_apply(cfg):
    path, players, options = cfg
    game = load(path)
    for seed in SEEDS:
        ref = _standard(game, players, options, seed, log=True)
        rnd = random.Random(seed)
        s = game.new_game(players=players, seed=seed, options=options, log=True)
        while not s.is_terminal:
            n = s.legal_action_count()
            assert n == len(s.legal_actions()) > 0
            s.apply_index(rnd.randrange(n))
        assert s.legal_action_count() == 0
        assert s.log_lines() == ref.log_lines()
        assert s.to_json() == ref.to_json()
        assert (s.scores, s.winners) == (ref.scores, ref.winners)


@pytest.mark.parametrize("cfg", CONFIGS, ids=[config_id(c) for c in CONFIGS])
def test_playouts_are_the_standard_loop(cfg):
    path, players, options = cfg
    game = load(path)
    got = game.playouts(3, seed=40, players=players, options=options)
    assert [r.seed for r in got] == [40, 41, 42]
    for r in got:
        ref = _standard(game, players, options, r.seed)
        assert (r.scores, r.winners, r.decisions) == (ref.scores, ref.winners, ref.decisions)


def test_apply_index_needs_a_legal_index_and_leaves_the_state_as_it_was():
    game = load("bacchus")
    s = game.new_game(players=4, seed=3, log=True)
    s.apply_index(0)
    before, log_before = s.to_json(), s.log_lines()
    n = s.legal_action_count()
    for bad in (-1, n, n + 5, 2 ** 70, -2 ** 70, True, 0.0, "0", None):
        with pytest.raises(IllegalAction):
            s.apply_index(bad)
        assert s.to_json() == before and s.log_lines() == log_before
    s.apply_index(n - 1)
    assert s.to_json() != before
    end = _standard(game, 4, {}, 3)
    assert end.legal_action_count() == 0
    with pytest.raises(IllegalAction):
        end.apply_index(0)


def test_playout_matches_the_standard_loop_from_mid_game_and_leaves_the_state():
    for path in SPECS:
        game = load(path)
        s = game.new_game(players=game.min_players, seed=11, log=True)
        rnd = random.Random(4)
        for _ in range(5):
            if s.is_terminal:
                break
            s.apply_index(rnd.randrange(s.legal_action_count()))
        before, log_before = s.to_json(), s.log_lines()
        legal_before = s.legal_actions()
        scores = s.playout(random.Random(99))
        assert s.to_json() == before and s.log_lines() == log_before
        assert s.legal_actions() == legal_before
        twin = s.clone()
        r2 = random.Random(99)
        while not twin.is_terminal:
            acts = twin.legal_actions()
            twin.apply(acts[r2.randrange(len(acts))])
        assert scores == twin.scores, path
        assert s.playout(random.Random(99)) == scores        # same rng seed: same result
        in_place = s.clone()
        assert in_place.playout(random.Random(99), in_place=True) == scores
        assert in_place.is_terminal and in_place.to_json() == twin.to_json()


def test_playouts_are_deterministic_and_depend_on_the_seed():
    game = load("klink")
    a = game.playouts(20, seed=7, players=4)
    assert a == game.playouts(20, seed=7, players=4)
    b = game.playouts(20, seed=8, players=4)
    assert a[1:] == b[:-1]              # game g uses seed + g
    assert [r.scores for r in a] != [r.scores for r in game.playouts(20, seed=1000, players=4)]
    assert all(r.decisions > 0 and len(r.scores) == 4 for r in a)
    assert game.playouts(0, seed=7, players=4) == []


def test_playouts_reject_bad_requests():
    game = load("bacchus")
    for kw in ({"n": -1}, {"n": "3"}, {"n": 2, "seed": "x"}, {"n": 2, "seed": True},
               {"n": 2, "players": 9}, {"n": 2, "players": 4, "options": {"nope": True}}):
        with pytest.raises(UsageError):
            game.playouts(**kw)


def test_listings_hold_plain_tuples_until_actions_are_asked_for_then_actions():
    """Generated listings build no Action for a state played by index; once its legal_actions() are
    asked for, the current listing is converted once and later listings are made of Actions, which
    apply() finds again by position (and a clone keeps that). Mixing the two plays the same game."""
    from gamespec.interpreter.actions import Action
    game = load(os.path.join(ROOT, "games", "bacchus.yaml"))
    ref = _standard(game, 4, {}, 3, log=True)
    rnd = random.Random(3)
    s = game.new_game(players=4, seed=3, log=True)
    for _ in range(6):                          # by index: plain tuples, no Action made
        assert s.legal_action_count() > 0 and type(s._legal[0]) is tuple and not s._wants_actions
        s.apply_index(rnd.randrange(s.legal_action_count()))
    acts = s.legal_actions()                    # converted once: the same Actions on every call
    assert all(type(a) is Action for a in acts) and s.legal_actions() == acts
    assert all(x is y for x, y in zip(s.legal_actions(), acts))
    s.apply(acts[rnd.randrange(len(acts))])
    assert s._wants_actions and all(type(a) is Action for a in s._legal)    # listed as Actions now
    c = s.clone()
    assert c._wants_actions and c.legal_actions() == s.legal_actions()
    while not s.is_terminal:
        acts = s.legal_actions()
        s.apply(acts[rnd.randrange(len(acts))])
    assert s.log_lines() == ref.log_lines() and s.scores == ref.scores


@pytest.mark.parametrize("name", ["bacchus", "klink", "bali"])
def test_a_parameterless_action_is_made_once_per_position_and_plays_anywhere(name):
    """Generated listings hand out one Action per (parameterless action or skip, position), and per
    (action whose parameters are seats, family keys or choices, their values, position), made when
    the rules are compiled: listings
    of different decisions and states share it, apply() finds it by position in any of them, and
    the games are those of the reference closures."""
    import gamespec
    game = load(os.path.join(ROOT, "games", name + ".yaml"))
    ref = gamespec.Game(game.spec, backend="closures")

    def made_once(a):
        ps = a[4].params if a[4] is not None else ()
        return not a.args or all(p.kind in ("player", "zone", "choice") for p in ps)
    for seed in SEEDS:
        made, shared = {}, 0
        rnd = random.Random(seed)
        s = game.new_game(players=4, seed=seed, log=True)
        first = True        # (the first listing was made before Actions were asked for: converted)
        while not s.is_terminal:
            acts = s.legal_actions()
            for a in acts if not first else ():
                if made_once(a):
                    key = (s.pending, a.name, a.args, a[6])     # per decision point: two may list a skip
                    shared += key in made
                    assert made.setdefault(key, a) is a
            first = False
            a = acts[rnd.randrange(len(acts))]
            if made_once(a):            # played from another state's listing (a clone's)
                c = s.clone()
                c.apply(a)
                s.apply(a)
                assert c.log_lines() == s.log_lines()
            else:
                s.apply(a)
        assert s.log_lines() == _standard(ref, 4, {}, seed, log=True).log_lines()
        assert shared > 40
