"""Leak properties over every channel of a player, for every spec in games/ and tests/specs/, every
player count and option set, random reachable states and every player p:

- a determinization for p (`state.determinize(p, rng)`) leaves every byte p receives unchanged:
  observation(p), log_for(p), the file `gamespec run --log-for` writes, p's view (legal actions:
  labels and JSON), the message of an illegal action (and the state stays as it was), and the
  decision of a bot given its seed;
- the converse, so that the test can fail: exchanging a card p sees or knows with a card of another
  face changes p's channels;
- a determinization keeps no trace of the real seed or RNG state, is a valid state (it saves, loads
  and plays on), and really moves hidden cards.
"""
from __future__ import annotations

import glob
import hashlib
import json
import os
import random

import pytest

import gamespec
from gamespec.errors import IllegalAction
from helpers import config_id, configs
from gamespec.interpreter.determinize import relabel

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPECS = sorted(glob.glob(os.path.join(ROOT, "games", "*.yaml"))) + \
    sorted(glob.glob(os.path.join(ROOT, "tests", "specs", "*.yaml")))
CONFIGS = configs(SPECS)
GAMES_PER_CONFIG = 2
STATES_PER_GAME = 3


def sample_states(game, players, options, salt=0):
    """A few states met in random games with logs (and the final state of each game)."""
    for seed in range(GAMES_PER_CONFIG):
        rnd = random.Random(f"{seed}:{salt}")
        s = game.new_game(players=players, seed=9_876_543_210_123 + seed, options=options, log=True)
        taken = 0
        while not s.is_terminal:
            if taken < STATES_PER_GAME and rnd.random() < 0.08:
                taken += 1
                yield s.clone()
            acts = s.legal_actions()
            s.apply(acts[rnd.randrange(len(acts))])
        yield s


def seats(s, rng):
    """The players checked at state s: all of them up to 4, else the one to move and 3 others drawn
    anew at each state (a 10-player game's every seat at every state cost a minute; over its states
    all seats are met)."""
    players = s.rs.P
    if players <= 4:
        return range(players)
    cur = s.current_player
    rest = [p for p in range(players) if p != cur]
    return sorted(([cur] if cur is not None else []) + rng.sample(rest, 3 if cur is not None else 4))


def bot_decision(view, seed):
    """A bot that reads its whole view: what it picks is a function of the view and its seed."""
    n = view.num_legal_actions
    if n == 0:
        return None
    digest = hashlib.sha256(json.dumps(view.to_json(), sort_keys=True).encode()).hexdigest()
    return random.Random(f"{seed}:{digest}").randrange(n), random.Random(seed).randrange(n)


def illegal_messages(s, p):
    """The messages p gets for illegal actions; the state must stay as it was."""
    before = json.dumps(s.to_json())
    out = []
    view = s.view(p)
    tries = [{"action": "no_such_action"}]
    if view.legal_actions:
        good = view.legal_actions[0].to_json(label=False)
        tries.append(dict(good, extra=1))
        if any(isinstance(v, dict) for v in good.values()):      # a card named by a handle
            tries.append({k: ({"zone": "nowhere", "hidden": 99} if isinstance(v, dict) else v)
                          for k, v in good.items()})
    for d in tries:
        with pytest.raises(IllegalAction) as e:
            s.apply_view_json(p, d)
        out.append(str(e.value))
    try:
        s.apply({"action": "no_such_action"})
    except IllegalAction as e:
        out.append(str(e))
    assert json.dumps(s.to_json()) == before, "an illegal action changed the state"
    return out


def channels(s, p, tmp_path, tag):
    """Every byte player p receives from state s."""
    from gamespec.commands._common import write_jsonl as _write_jsonl
    out = tmp_path / f"{tag}.jsonl"
    _write_jsonl(s.log_for(p), str(out))
    view = s.view(p)
    return {
        "observation": json.dumps(s.observation(p)),
        "log_for": json.dumps(s.log_for(p)),
        "run --log-for": out.read_bytes(),
        "view": json.dumps(view.to_json()),
        "labels": [a.label for a in view.legal_actions],
        "actions": json.dumps([a.to_json() for a in view.legal_actions]),
        "illegal": illegal_messages(s, p),
        "bot": bot_decision(view, seed=7),
        "restricted": restricted_decisions(view, p, seed=7),
    }


def restricted_decisions(view, seat, seed):
    """What the restricted kinds of balance studies choose (docs/bots.md): they read the view only."""
    if view.num_legal_actions == 0:
        return None
    from gamespec.bots import make_bot
    name = view.legal_actions[-1].name
    return [make_bot(kind, seat, seed).choose(view)
            for kind in ("first", f"avoid:{name}", f"always:{name}", f"first/avoid:{name}")]


@pytest.mark.parametrize("cfg", CONFIGS, ids=[config_id(c) for c in CONFIGS])
def test_determinization_leaves_every_channel_of_the_player_unchanged(cfg, tmp_path):
    path, players, options = cfg
    game = gamespec.load(path)
    rng = random.Random(11)
    moved = checked = 0
    for s in sample_states(game, players, options):
        for p in seats(s, rng):
            d = s.determinize(p, rng)
            assert channels(d, p, tmp_path, "d") == channels(s, p, tmp_path, "s"), \
                f"player {p} can tell a determinization from the real state"
            # no trace of the real seed or RNG state; a valid state that plays on
            assert d.seed is None and d.rng != s.rng
            text = json.dumps(d.to_json())
            assert str(s.seed) not in text and str(s.rng) not in text
            again = game.arranged_state(json.loads(text))   # no history of its own to re-play
            assert again == d
            moved += d.z != s.z
            checked += 1
        if not s.is_terminal and checked % 3 == 0:      # a determinization plays on to the end
            d = s.determinize(s.current_player, rng)
            while not d.is_terminal:
                acts = d.legal_actions()
                d.apply(acts[rng.randrange(len(acts))])
    assert checked > 0
    assert moved > 0, "no determinization moved a hidden card: the property would hold trivially"


@pytest.mark.parametrize("cfg", CONFIGS, ids=[config_id(c) for c in CONFIGS])
def test_changing_a_card_the_player_knows_changes_their_channels(cfg, tmp_path):
    path, players, options = cfg
    game = gamespec.load(path)
    rng = random.Random(12)
    changed = 0
    for s in sample_states(game, players, options, salt=1):
        rs = s.rs
        for p in seats(s, rng):
            bit = 1 << p
            known = [c for c in range(rs.ncards) if s._vis(c) & bit]
            if not known:
                continue
            c = rng.choice(known)
            others = [x for x in range(rs.ncards)        # (two cards of one set: no change)
                      if rs.face_of[x] != rs.face_of[c] and s.loc[x] != s.loc[c]]
            if not others:
                continue
            x = rng.choice(others)
            m = list(range(rs.ncards))
            m[c], m[x] = x, c
            d = relabel(s, m, p, rng)
            assert channels(d, p, tmp_path, "d") != channels(s, p, tmp_path, "s"), \
                f"player {p} knows card {c} but does not notice it exchanged with card {x}"
            changed += 1
    assert changed > 0


def test_every_spec_of_the_repository_is_covered():
    """The property runs over every spec in games/ and tests/specs/ (the specs of issue 31's constructs
    among them), at every player count."""
    covered = {c[0] for c in CONFIGS}
    assert covered == set(SPECS)
    for name in ("bluff", "snap", "bags", "melds", "fifteens", "tens", "streak"):
        assert os.path.join(ROOT, "tests", "specs", f"{name}.yaml") in covered


def test_uniformity_of_determinize():
    """Tiny, 2 players, at the first decision: player 0 sees only their (empty) hand; the 10 deck
    cards (values 1-5, twice each) are hidden. Each place gets each value with probability 1/5, and
    the determinized deck is a permutation of the real one. Chi-square over 2000 draws, fixed seeds."""
    game = gamespec.load(os.path.join(ROOT, "tests", "specs", "tiny.yaml"))
    s = game.new_game(players=2, seed=3)
    s.apply(s.legal_actions()[[a.name for a in s.legal_actions()].index("draw")])   # p0 draws one
    s.apply(s.legal_actions()[[a.name for a in s.legal_actions()].index("draw")])   # p1 draws one
    rs = s.rs
    deck = rs.zone_base["deck"]
    mine = s.z[rs.zone_base["hand"]][0]
    rng = random.Random(2024)
    n = 2000
    counts = {}
    pair_same = 0
    for _ in range(n):
        d = s.determinize(0, rng)
        assert d.z[rs.zone_base["hand"]] == [mine]       # what p0 holds and sees stays
        hidden = d.z[deck] + d.z[rs.zone_base["hand"] + 1]
        assert sorted(rs.face_of[c] for c in hidden) == sorted(
            rs.face_of[c] for c in s.z[deck] + s.z[rs.zone_base["hand"] + 1])
        top = rs.faces[rs.face_of[d.z[deck][-1]]]["value"]
        counts[top] = counts.get(top, 0) + 1
        pair_same += rs.face_of[d.z[deck][-1]] == rs.face_of[d.z[deck][-2]]
    # 9 hidden cards: the value p0 holds once, the four others twice
    held = rs.faces[rs.face_of[mine]]["value"]
    expected = {v: n * (1 if v == held else 2) / 9 for v in range(1, 6)}
    chi2 = sum((counts.get(v, 0) - e) ** 2 / e for v, e in expected.items())
    assert chi2 < 18.5, (counts, expected, chi2)       # df 4: p < 0.001
    # two places: same value with probability (4 * 2*1) / (9*8) = 1/9
    e = n / 9
    assert abs(pair_same - e) < 4 * (e * (1 - 1 / 9)) ** 0.5, pair_same


def _wreck(x):
    """Empty every list and dict inside x (what a careless bot might do to its input)."""
    if isinstance(x, dict):
        for v in x.values():
            _wreck(v)
        x.clear()
    elif isinstance(x, list):
        for v in x:
            _wreck(v)
        x.clear()


@pytest.mark.parametrize("path", SPECS, ids=[os.path.basename(p) for p in SPECS])
def test_a_view_is_a_copy_changing_it_changes_nothing_in_the_state(path):
    game = gamespec.load(path)
    for s in sample_states(game, game.min_players, game.option_sets()[-1], salt=2):
        before = json.dumps(s.to_json())
        for p in range(s.num_players):
            view = s.view(p)
            _wreck(view.observation)
            for a in view.legal_actions:
                _wreck(a.to_json())
            _wreck(s.observation(p))
            _wreck(s.log_for(p))
        assert json.dumps(s.to_json()) == before
