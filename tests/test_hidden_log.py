"""Hidden information, logs included: what a player never saw cannot change what they are told.

For every game in games/, player count, option set and player p: take a game in progress (started
with log=True), exchange two cards of different faces that p has never seen — not now, not in any
line of their log — and give the state a new RNG state. p's observation, p's legal actions with
their labels (when p decides) and the log written for p (`state.log_for(p)`) must be identical.
The swap follows the card ids everywhere a state holds them (zones, knowledge, per-card marks, face
overrides, card variables, history, log), like `tests/test_hidden_info.py` does, plus the log.
"""
from __future__ import annotations

import copy
import glob
import os
import random

import pytest

import gamespec

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _configs():
    out = []
    for path in sorted(glob.glob(os.path.join(ROOT, "games", "*.yaml"))):
        try:
            g = gamespec.load(path)
        except gamespec.SpecErrors:
            continue
        for players in sorted({g.min_players, g.max_players}):
            for opts in g.option_sets():
                out.append((path, players, opts))
    return out


CONFIGS = _configs()
_GAMES = {}


def _game(path):
    if path not in _GAMES:
        _GAMES[path] = gamespec.load(path)
    return _GAMES[path]


def ever_seen(state, p):
    """Cards p sees or knows now, or saw in any line of their log."""
    rs = state.rs
    bit = 1 << p
    seen = {c for c in range(rs.ncards) if state._vis(c) & bit}
    for line in state.log:
        t = line["type"]
        if t == "header":
            for label, cards in line["zones"].items():
                if rs.zvis[rs.zone_label.index(label)] & bit:
                    seen.update(cards)
        elif t == "chance":
            if rs.zvis[rs.zone_label.index(line["zone"])] & bit:
                seen.update(line["order"])
        elif t == "look":
            if line["player"] == p:
                seen.update(line["cards"])
        elif t in ("decision", "reveal"):    # a reveal: a simultaneous step's stored choice shown
            for _, cards, masks in line["_cards"]:
                seen.update(c for c, m in zip(cards, masks) if m & bit)
    return seen


def unseen_pairs(state, p, rnd, want=3):
    rs = state.rs
    seen = ever_seen(state, p)
    hidden = [c for c in range(rs.ncards) if c not in seen]
    rnd.shuffle(hidden)
    pairs = []
    for i, a in enumerate(hidden):
        b = next((b for b in hidden[i + 1:i + 40] if rs.face_of[a] != rs.face_of[b]), None)
        if b is not None:
            pairs.append((a, b))
        if len(pairs) >= want:
            break
    return pairs


def swapped(game, state, a, b, rng):
    """The state with cards a and b exchanged everywhere (the log's header, which lists the set-up
    before any shuffle, stays: it shows p only what p may see) and another RNG state."""
    d = copy.deepcopy(state.to_json())
    sw = {a: b, b: a}
    f = lambda c: sw.get(c, c)       # noqa: E731
    d["zones"] = [[f(c) for c in z] for z in d["zones"]]
    d["known"][a], d["known"][b] = d["known"][b], d["known"][a]
    d["face"] = {str(f(int(k))): v for k, v in d["face"].items()}
    for col in d.get("marks", {}).values():      # per-card marks (Hanabi's hints) stay where they lie
        col[a], col[b] = col[b], col[a]
    for i, decl in enumerate(state.rs.var_decl):
        if decl.type == "card" and d["vars"][i] is not None:
            d["vars"][i] = f(d["vars"][i])
        elif decl.type == "cards":
            d["vars"][i] = [f(c) for c in d["vars"][i]]
    if not state.is_terminal:
        for st in state.rs.choose_contexts()[state.pending][1]:
            assert st.iter.ast.t not in ("zone", "cards"), "a loop over cards: extend this swap"
    for ev in d["history"]:
        if ev[0] in ("d", "s", "v"):    # a decision, a simultaneous step's stored choice, its reveal
            for info in ev[4]:
                info[1] = [f(c) for c in info[1]]
        else:
            assert ev[0] == "r", f"a history event {ev[0]!r}: extend this swap"
            ev[2] = [f(c) for c in ev[2]]
    for line in d["log"][1:]:
        if line["type"] == "chance":
            line["order"] = [f(c) for c in line["order"]]
        elif line["type"] == "look":
            line["cards"] = [f(c) for c in line["cards"]]
        elif line["type"] in ("decision", "reveal"):
            for info in line["_cards"]:
                info[1] = [f(c) for c in info[1]]
    d["rng"] = rng
    return game.arranged_state(d)


def _labels(state):
    return [(a.key(), a.label) for a in state.legal_actions()]


@pytest.mark.parametrize("cfg", CONFIGS, ids=[f"{os.path.basename(c[0])[:-5]}-{c[1]}p-"
                                               + "+".join(k for k, v in sorted(c[2].items()) if v) for c in CONFIGS])
def test_unseen_cards_and_the_rng_change_nothing_a_player_is_told(cfg):
    path, players, options = cfg
    game = _game(path)
    checked = games = 0
    # at least 3 games and MIN_SWAPS swaps checked: a short game (Kuhn poker ends within three
    # decisions) plays more games, up to MAX_GAMES
    while games < 3 or checked < MIN_SWAPS and games < MAX_GAMES:
        seed, games = games, games + 1
        rnd = random.Random(seed)
        state = game.new_game(players=players, seed=seed, options=options, log=True)
        for checkpoint in range(3):
            before = None
            for _ in range(rnd.randrange(1, 40)):
                if state.is_terminal:
                    break
                before = state.clone()
                acts = state.legal_actions()
                state.apply(acts[rnd.randrange(len(acts))])
            # a game that ended in this stretch: its last state in progress is checked too
            for s in ([before] if state.is_terminal and before is not None else []) + [state]:
                checked += _check_unseen(game, s, rnd)
            if state.is_terminal:
                break
    assert checked >= MIN_SWAPS, f"{checked} swaps of unseen cards checked in {games} games"


MIN_SWAPS = 18          # swaps of unseen cards checked per configuration, at least
MAX_GAMES = 40


def _check_unseen(game, state, rnd):
    """Every player's observation, log and (if they decide) labelled actions, unchanged by another RNG
    state and by swaps of cards they never saw: the number of swaps checked."""
    checked = 0
    for p in range(state.rs.P):
        obs, log = state.observation(p), state.log_for(p)
        labels = _labels(state) if state.current_player == p else None
        # the RNG alone
        other = swapped(game, state, 0, 0, rnd.getrandbits(63) + 1)
        assert other.observation(p) == obs and other.log_for(p) == log
        for a, b in unseen_pairs(state, p, rnd):
            other = swapped(game, state, a, b, rnd.getrandbits(63) + 1)
            assert other.observation(p) == obs, f"player {p} saw a swap of unseen cards {a}/{b}"
            assert other.log_for(p) == log, f"player {p}'s log shows a swap of unseen cards {a}/{b}"
            if labels is not None:
                assert _labels(other) == labels, f"player {p}'s actions show unseen cards {a}/{b}"
            checked += 1
    return checked


def test_a_seen_card_does_change_the_log():
    """The check has teeth: a card the player saw in their log is caught when swapped."""
    game = _game(CONFIGS[0][0])
    state = game.new_game(players=CONFIGS[0][1], seed=1, log=True)
    rs = state.rs
    for p in range(rs.P):
        seen = ever_seen(state, p)
        a = next(c for c in sorted(seen) if any(rs.face_of[c] != rs.face_of[x] for x in range(rs.ncards)))
        b = next(c for c in range(rs.ncards) if rs.face_of[c] != rs.face_of[a] and state.loc[c] != state.loc[a])
        other = swapped(game, state, a, b, state.rng)
        assert other.observation(p) != state.observation(p) or other.log_for(p) != state.log_for(p)
