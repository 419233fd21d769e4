"""The knowledge model as authors meet it (docs/language.md, "What each player knows"): hand passing,
hand trading and drafting specs in tests/specs/, checked through observation(p) and log_for(p): each
player knows exactly what the engine's rule says a person at the table knows."""
from __future__ import annotations

import os

import pytest

import gamespec
from helpers import find

HERE = os.path.dirname(os.path.abspath(__file__))
SPECS = os.path.join(HERE, "specs")
BACKENDS = ["codegen", "closures"]


def load(name, backend="codegen", text=None):
    g = gamespec.load_text(text, f"{name}.yaml") if text else gamespec.load(os.path.join(SPECS, f"{name}.yaml"))
    g.backend = backend
    return g


def zone(s, p, name):
    return s.observation(p)["zones"][name]


def real(s, name):
    rs = s.rs
    base, _, key = name.partition("[")
    zi = rs.zone_base[base] + (int(key[:-1]) if key else 0)
    return sorted((dict(rs.faces[rs.face_of[c]]) for c in s.z[zi]), key=repr)


def srt(cards):
    return sorted((c for c in cards if c is not None), key=repr)


# -- passing -----------------------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
def test_passing_players_know_the_cards_they_passed_and_nothing_else(backend):
    g = load("passing", backend)
    s = g.new_game(players=3, seed=5, log=True)
    passed = {}
    for p in range(3):
        a = s.legal_actions()[0]
        ids = s.z[s.rs.zone_base["hand"] + p]
        passed[p] = srt(dict(s.rs.faces[s.rs.face_of[ids[i]]]) for i in a.to_json(label=False)["cards"])
        s.apply(a)
        assert len(passed[p]) == 2
        if p < 2:
            assert srt(real(s, f"outbox[{p}]")) == passed[p]
        if p < 2:   # a pending pass is hidden from the others: not in their zones, nor in their history
            for q in range(3):
                if q != p:
                    assert zone(s, q, f"outbox[{p}]")["cards"] == []
                    assert s.observation(q)["history"][-1]["cards"] == [None, None]
                    assert all("cards" not in line.get("action", {}) or line["action"]["cards"] == [None, None]
                               for line in s.log_for(q)[-1:])
    # handed over together: p knows exactly the two cards they passed among the left player's five
    for p in range(3):
        left = (p + 1) % 3
        z = zone(s, p, f"hand[{left}]")
        assert srt(z["cards"]) == passed[p] and z["hidden"] == 3
        assert srt(zone(s, left, f"hand[{left}]")["cards"]) == real(s, f"hand[{left}]")
        third = (p + 2) % 3
        assert zone(s, third, f"hand[{left}]")["cards"] == []
    # the left player plays one of the passed cards face up: everyone sees its face, in the history
    # and the log; the passer still knows the other passed card
    assert s.phase_name == "play" and s.current_player == 0
    hand0 = sorted(s.z[s.rs.zone_base["hand"]])
    for a in s.legal_actions():
        pos = a.to_json(label=False)["card"]
        face = dict(s.rs.faces[s.rs.face_of[s.z[s.rs.zone_base["hand"]][pos]]])
        if face in passed[2]:
            break
    s.apply(a)
    for q in range(3):
        assert s.observation(q)["history"][-1]["card"] == face
        assert s.log_for(q)[-1]["action"]["card"] == face
        assert zone(s, q, "shown[0]")["cards"] == [face]
    other = [c for c in passed[2] if c != face] or [face]
    assert all(c in zone(s, 2, "hand[0]")["cards"] for c in other[:1])
    assert zone(s, 2, "hand[0]")["hidden"] == 3
    del hand0


# -- trading -----------------------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
def test_traders_know_both_hands_and_others_neither(backend):
    g = load("trading", backend)
    s = g.new_game(players=3, seed=3, log=True)
    h0, h1 = real(s, "hand[0]"), real(s, "hand[1]")
    s.apply(find(s, "trade", to=1))
    assert real(s, "hand[0]") == h1 and real(s, "hand[1]") == h0
    for p in (0, 1):        # each trader still knows the hand they gave away, and sees the new one
        for h in ("hand[0]", "hand[1]"):
            z = zone(s, p, h)
            assert srt(z["cards"]) == real(s, h) and z["hidden"] == 0
    for h in ("hand[0]", "hand[1]"):
        assert zone(s, 2, h)["cards"] == [] and zone(s, 2, h)["hidden"] == 4
    # player 1 draws and discards one of the cards they got face up: player 0 sees which card left
    # and still knows the other three
    s.apply(find(s, "draw"))
    assert s.current_player == 1 and {a.name for a in s.legal_actions()} == {"throw"}
    for a in s.legal_actions():
        pos = a.to_json(label=False)["card"]
        face = dict(s.rs.faces[s.rs.face_of[s.z[s.rs.zone_base["hand"] + 1][pos]]])
        if face in h0:
            break
    s.apply(a)
    rest = list(h0)
    rest.remove(face)
    assert srt(zone(s, 0, "hand[1]")["cards"]) == srt(rest)
    assert zone(s, 2, "discard")["cards"][-1] == face


def test_a_trade_through_a_hidden_set_forgets_the_hand_that_waited_there():
    """The pitfall docs/language.md warns about: the hand parked in a hidden set is forgotten by its
    old owner when it leaves (cards taken out of a set they cannot see cannot be told apart)."""
    text = open(os.path.join(SPECS, "trading.yaml"), encoding="utf-8").read()
    text = text.replace("swap:    {kind: pile, visibility: hidden", "swap:    {kind: set, visibility: hidden")
    assert "kind: set, visibility: hidden" in text
    g = load("trading", text=text)
    s = g.new_game(players=3, seed=3)
    h0, h1 = real(s, "hand[0]"), real(s, "hand[1]")
    s.apply(find(s, "trade", to=1))
    assert srt(zone(s, 0, "hand[1]")["cards"]) == h0     # moved straight from hand to hand: kept
    assert zone(s, 1, "hand[0]")["cards"] == [] and real(s, "hand[0]") == h1   # parked in the set: lost


# -- drafting ----------------------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
def test_drafters_know_their_picks_and_the_pack_they_passed_until_it_is_picked_from(backend):
    g = load("draft", backend)
    s = g.new_game(players=3, seed=2, log=True)
    packs = [real(s, f"pack[{q}]") for q in range(3)]
    for p in range(3):
        s.apply(s.legal_actions()[0])
        for q in range(3):
            if q != p:   # a pick is private: others see a pick happened, not which card
                assert s.observation(q)["history"][-1]["card"] is None
                assert zone(s, q, f"picks[{p}]")["cards"] == []
    # the packs passed left: each player still knows the three cards of the pack they passed
    for p in range(3):
        left = (p + 1) % 3
        z = zone(s, p, f"pack[{left}]")
        assert srt(z["cards"]) == real(s, f"pack[{left}]") and len(z["cards"]) == 3
        assert all(c in packs[p] for c in z["cards"])
        assert srt(zone(s, p, f"picks[{p}]")["cards"]) == real(s, f"picks[{p}]")
    # player 0 picks from the pack player 2 passed: player 2 cannot tell which card went, so they
    # forget that pack (no inference by elimination), as docs/language.md says; player 0 still knows
    # the pack they passed, not yet picked from
    assert s.current_player == 0
    s.apply(s.legal_actions()[0])
    assert zone(s, 2, "pack[0]")["cards"] == [] and zone(s, 2, "pack[0]")["hidden"] == 2
    assert srt(zone(s, 0, "pack[1]")["cards"]) == real(s, "pack[1]")
    while not s.is_terminal:
        s.apply(s.legal_actions()[0])
    for q in range(3):      # revealed at the end
        assert srt(zone(s, 0, f"table[{q}]")["cards"]) == real(s, f"table[{q}]")


def test_others_see_that_a_private_look_happened_and_how_many_cards():
    g = gamespec.load(os.path.join(HERE, "..", "games", "klink.yaml"))
    s = g.new_game(players=3, seed=4, log=True)
    holder = s.current_player
    s.apply(find(s, "look", card=0))
    mine = [x for x in s.log_for(holder) if x["type"] == "look"][-1]
    assert mine["player"] == holder and len(mine["cards"]) == 1 and mine["cards"][0] is not None
    for q in range(3):
        if q != holder:
            theirs = [x for x in s.log_for(q) if x["type"] == "look"][-1]
            assert theirs == {"type": "look", "player": holder, "count": 1}
