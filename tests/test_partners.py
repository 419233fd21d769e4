"""Trick-taking idioms and teams through tests/specs/partners.yaml: follow suit if able, the highest of
the led suit (or the highest trump) wins, the winner leads; partnerships share score and win; a card
played face up from a hidden hand is known by its face to everyone, in history, log and afterwards."""
from __future__ import annotations

import os
import random

import pytest

import gamespec
from gamespec.errors import SpecError, SpecErrors

HERE = os.path.dirname(os.path.abspath(__file__))
PATH = os.path.join(HERE, "specs", "partners.yaml")
BACKENDS = ["codegen", "closures"]


def game(backend):
    g = gamespec.load(PATH)
    g.backend = backend
    return g


def faces(s, zone):
    rs = s.rs
    zi = rs.zone_base[zone.split("[")[0]] + (int(zone.split("[")[1][:-1]) if "[" in zone else 0)
    return [rs.faces[rs.face_of[c]] for c in s.z[zi]]


def expected_winner(trick, leader, trumps):
    led = trick[0]["suit"]

    def strength(f):
        return f["rank"] + (200 if trumps and f["suit"] == "hearts" else 100 if f["suit"] == led else 0)
    best = max(range(len(trick)), key=lambda i: strength(trick[i]))
    return (leader + best) % 4


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("trumps", [True, False])
def test_trick_taking_rules(backend, trumps):
    g = game(backend)
    for seed in range(4):
        s = g.new_game(players=4, seed=seed, options={"trumps": trumps})
        pick = random.Random(seed)
        tricks_seen = 0
        while not s.is_terminal:
            p = s.current_player
            hand = faces(s, f"hand[{p}]")
            trick = faces(s, "trick")
            leader = g.evaluate(s, "leader")
            legal = [a for a in s.legal_actions()]
            played = [hand[a.to_json(label=False)["card"]] for a in legal]   # a card is its place in the hand
            if trick:   # follow suit if able
                led = trick[0]["suit"]
                follow = [f for f in hand if f["suit"] == led]
                assert sorted(map(str, played)) == sorted(map(str, follow or hand))
                assert (p - leader) % 4 == len(trick)        # play goes clockwise from the leader
            else:
                assert p == leader and sorted(map(str, played)) == sorted(map(str, hand))
            a = legal[pick.randrange(len(legal))]
            card = hand[a.to_json(label=False)["card"]]
            s.apply(a)
            if len(trick) == 3:     # the trick is complete: the highest of the led suit or trump wins
                w = expected_winner(trick + [card], leader, trumps)
                tricks_seen += 1
                assert g.evaluate(s, "leader") == w
                assert faces(s, "trick") == []
                if not s.is_terminal:
                    assert s.current_player == w              # the winner leads
        assert tricks_seen == 8


@pytest.mark.parametrize("backend", BACKENDS)
def test_partnerships_share_score_and_win(backend):
    g = game(backend)
    outcomes = set()
    for seed in range(20):
        s = g.new_game(players=4, seed=seed, log=True)
        pick = random.Random(seed)
        while not s.is_terminal:
            acts = s.legal_actions()
            s.apply(acts[pick.randrange(len(acts))])
        tricks = g.evaluate(s, "[tricks[q] for q in players]")
        team = [tricks[0] + tricks[2], tricks[1] + tricks[3]]
        assert s.scores == [team[0], team[1], team[0], team[1]]
        assert sum(team) == 8
        want = [0, 2] if team[0] > team[1] else [1, 3] if team[1] > team[0] else [0, 1, 2, 3]
        assert s.winners == want
        end = s.log_lines()[-1]
        assert end["type"] == "end" and end["scores"] == s.scores and end["winners"] == want
        assert g.state_from_json(s.to_json()).scores == s.scores
        outcomes.add(tuple(want))
    assert len(outcomes) >= 2


def test_teams_are_type_checked():
    text = open(PATH, encoding="utf-8").read().replace('teams: "p % 2"', "teams: \"led\"")
    with pytest.raises((SpecError, SpecErrors)) as ei:
        gamespec.load_text(text, "t.yaml")
    assert "this should be a number" in str(ei.value) and "t.yaml:" in str(ei.value)


def test_a_card_played_from_a_hidden_hand_is_known_by_its_face_to_everyone():
    g = game("codegen")
    s = g.new_game(players=4, seed=2, log=True)
    a = s.legal_actions()[0]
    face = faces(s, "hand[0]")[a.to_json(label=False)["card"]]
    face = {k: face[k] for k in ("type", "rank", "suit")}
    s.apply(a)
    for q in range(4):
        o = s.observation(q)
        assert o["history"][-1]["card"] == face            # in everyone's history, by its face
        assert s.log_for(q)[-1]["action"]["card"] == face  # and in everyone's log
        assert face in o["zones"]["trick"]["cards"]
    for _ in range(3):
        s.apply(s.legal_actions()[0])
    # the trick went face down to the winner's pile: everyone saw it, everyone still knows it
    w = g.evaluate(s, "leader")
    for q in range(4):
        assert face in s.observation(q)["zones"][f"won[{w}]"]["cards"]
    # nobody knows another player's unplayed cards
    for q in range(4):
        for r in range(4):
            if r != q:
                assert s.observation(q)["zones"][f"hand[{r}]"]["cards"] == []
