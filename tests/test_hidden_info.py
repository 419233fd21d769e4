"""Hidden information, for every game: what a player has never seen cannot change what they observe."""
from __future__ import annotations

import json
import random

import pytest

from helpers import config_id, configs, load

CONFIGS = configs()


def _sees(state, c, p):
    return bool(state._vis(c) >> p & 1)


def _unseen_pairs(state, p, rnd, want=4):
    """Pairs of cards of different faces that player p can neither see nor remember."""
    rs = state.rs
    from interpreter.observe import history_entries
    once_seen = set()   # perfect recall: cards p saw in a past event count as seen
    for ev in history_entries(state):
        if ev[0] == "d":
            for _, cs, masks in ev[4]:
                once_seen |= {c for c, m in zip(cs, masks) if m >> p & 1}
        elif ev[0] == "r" and ev[1] == p:
            once_seen |= set(ev[2])
    hidden = [c for c in range(rs.ncards) if not _sees(state, c, p) and c not in once_seen]
    rnd.shuffle(hidden)
    pairs = []
    for i, a in enumerate(hidden):
        for b in hidden[i + 1:i + 30]:
            if rs.face_of[a] != rs.face_of[b]:
                pairs.append((a, b))
                break
        if len(pairs) >= want:
            break
    return pairs


def _swap(game, state, a, b, new_rng=None):
    d = state.to_json()
    for z in d["zones"]:
        for i, c in enumerate(z):
            if c == a:
                z[i] = b
            elif c == b:
                z[i] = a
    d["known"][a], d["known"][b] = d["known"][b], d["known"][a]
    sw = {a: b, b: a}
    # history and log entries name cards by id: swap there too (they record what each player saw)
    for ev in d["history"]:
        if ev[0] == "d":
            for info in ev[4]:
                info[1] = [sw.get(c, c) for c in info[1]]
        elif ev[0] == "r":
            ev[2] = [sw.get(c, c) for c in ev[2]]
    d["face"] = {str(sw.get(int(k), int(k))): f for k, f in d["face"].items()}
    for i, decl in enumerate(state.rs.var_decl):
        if decl.type == "card" and d["vars"][i] in sw:
            d["vars"][i] = sw[d["vars"][i]]
        elif decl.type == "cards":
            d["vars"][i] = [sw.get(c, c) for c in d["vars"][i]]
    if new_rng is not None:
        d["rng"] = new_rng
    d["log"] = None
    return game.arranged_state(d)


def _labels(state):
    return [(a.key(), a.label) for a in state.legal_actions()]


@pytest.mark.parametrize("cfg", CONFIGS, ids=[config_id(c) for c in CONFIGS])
def test_unseen_cards_do_not_change_observations(cfg):
    path, players, options = cfg
    game = load(path)
    checked = 0
    for seed in range(12):
        rnd = random.Random(seed)
        state = game.new_game(players=players, seed=seed, options=options)
        for _ in range(rnd.randrange(1, 60)):
            if state.is_terminal:
                break
            acts = state.legal_actions()
            state.apply(acts[rnd.randrange(len(acts))])
        if state.is_terminal:
            continue
        for p in range(players):
            obs = state.observation(p)
            for a, b in _unseen_pairs(state, p, rnd):
                other = _swap(game, state, a, b, new_rng=rnd.getrandbits(63) + 1)
                assert other.observation(p) == obs, f"player {p} saw a swap of unseen cards {a}/{b}"
                if state.current_player == p:
                    assert _labels(other) == _labels(state)
                checked += 1
    assert checked > 0


@pytest.mark.parametrize("cfg", CONFIGS, ids=[config_id(c) for c in CONFIGS])
def test_seen_cards_do_change_observations(cfg):
    path, players, options = cfg
    game = load(path)
    rnd = random.Random(5)
    state = game.new_game(players=players, seed=5, options=options)
    rs = state.rs
    changed = 0
    for p in range(players):
        seen = [c for c in range(rs.ncards) if _sees(state, c, p)]
        for a in seen[:5]:
            b = next((c for c in range(rs.ncards) if rs.face_of[c] != rs.face_of[a]), None)
            if b is None or state.loc[b] == state.loc[a]:
                continue
            other = _swap(game, state, a, b)
            assert other.observation(p) != state.observation(p)
            changed += 1
    assert changed > 0


@pytest.mark.parametrize("path", sorted({c[0] for c in CONFIGS}))
def test_observation_holds_no_seed_or_rng(path):
    game = load(path)
    state = game.new_game(players=game.min_players, seed=123456789)
    text = json.dumps(state.observation(0))
    assert "123456789" not in text and str(state.rng) not in text
    assert "rng" not in text and "seed" not in text
