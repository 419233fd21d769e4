"""Library games of issue 40: No Thanks! (games/no_thanks.yaml), Sushi Go (games/sushi_go.yaml) and
Hanabi (games/hanabi.yaml). Each important rule is pinned by a test that fails if it is broken; each
game is also checked against an independent plain-Python scorer or referee written here (no engine
code), over random games; the golden logs in tests/golden/ replay to the results recorded when they
were written."""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

import gamespec
from gamespec.cli import main

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden"


def load(gid):
    return gamespec.load(str(ROOT / "games" / f"{gid}.yaml"))


# ----------------------------------------------------------------------------- helpers

def face(s, c):
    return s.rs.faces[s.rs.face_of[c]]


def zone(s, name, key=0):
    """Card ids of a zone (a family member by its index), bottom to top."""
    return list(s.z[s.rs.zone_base[name] + key])


def var(s, name, p=0):
    return s.v[s.rs.var_base[name] + p]


def names(s):
    return sorted({a.name for a in s.legal_actions()})


def play_random(s, rng, before=None):
    """Random legal actions to the end; before(s) is called before each decision."""
    while not s.is_terminal:
        if before:
            before(s)
        s.apply(rng.choice(s.legal_actions()))
    return s


def replay(capsys, log, gid):
    assert main(["replay", str(GOLDEN / log), "--spec", str(ROOT / "games" / f"{gid}.yaml"), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


# ============================================================================= No Thanks!

NT = load("no_thanks")


def nt_plain_score(values, chips):
    """The rulebook's scoring, written out: each run of consecutive cards counts its lowest card
    only; each chip is a point off."""
    held = set(values)
    return sum(v for v in held if v - 1 not in held) - chips


def nt_state(players=3, seed=0, offer=20, chips=None, taken=None, on_card=0, deck_top=()):
    """A state at seat 0's decision with `offer` face up, `taken` {p: [values]}, `chips` per seat,
    `on_card` chips on the offer and `deck_top` (topmost first) on the deck."""
    s = NT.new_game(players=players, seed=seed)
    rs = s.rs
    by_value = {face(s, c)["value"]: c for c in range(rs.ncards)}
    d = s.to_json()
    zones = [[] for _ in range(rs.nzones)]
    used = {offer, *deck_top, *(v for vs in (taken or {}).values() for v in vs)}
    rest = [by_value[v] for v in sorted(by_value) if v not in used]
    random.Random(seed).shuffle(rest)
    zb = rs.zone_base
    zones[zb["box"]] = rest[:9]
    zones[zb["deck"]] = rest[9:] + [by_value[v] for v in reversed(deck_top)]
    zones[zb["offer"]] = [by_value[offer]]
    for p, vs in (taken or {}).items():
        zones[zb["taken"] + p] = [by_value[v] for v in vs]
    d["zones"] = zones
    d["known"] = [0] * rs.ncards
    for p, n in enumerate(chips or []):
        d["vars"][rs.var_base["chips"] + p] = n
    d["vars"][rs.var_base["chips_on_card"]] = on_card
    return NT.arranged_state(d)


def act(s, name):
    [a] = [a for a in s.legal_actions() if a.name == name]
    s.apply(a)
    return s


@pytest.mark.parametrize("players,chips", [(3, 11), (4, 11), (5, 11), (6, 9), (7, 7)])
def test_nt_setup(players, chips):
    s = NT.new_game(players=players, seed=players)
    values = sorted(face(s, c)["value"] for c in range(s.rs.ncards))
    assert values == list(range(3, 36))                          # 33 cards, 3 to 35, once each
    assert len(zone(s, "box")) == 9 and len(zone(s, "deck")) == 23 and len(zone(s, "offer")) == 1
    assert [var(s, "chips", p) for p in range(players)] == [chips] * players
    # nine removed unseen: nobody sees the box; the offer is public
    for p in range(players):
        obs = s.observation(p)
        assert obs["zones"]["box"]["cards"] == [] and obs["zones"]["box"]["hidden"] == 9
        assert obs["zones"]["offer"]["cards"][0]["value"] == face(s, zone(s, "offer")[0])["value"]


def test_nt_chips_are_hidden_from_the_others():
    s = NT.new_game(players=4, seed=1)
    obs = s.observation(2)["variables"]["chips"]
    assert obs[2] == 11 and obs[0] is None and obs[1] is None and obs[3] is None


def test_nt_paying_a_chip_passes_the_card_on():
    s = nt_state(chips=[3, 5, 5], offer=30, on_card=2)
    act(s, "pay")
    assert var(s, "chips", 0) == 2 and var(s, "chips_on_card") == 3
    assert s.current_player == 1 and face(s, zone(s, "offer")[0])["value"] == 30


def test_nt_without_chips_a_player_must_take():
    s = nt_state(chips=[0, 5, 5])
    assert names(s) == ["take"]


def test_nt_the_taker_gets_the_chips_and_decides_on_the_next_card():
    s = nt_state(chips=[1, 5, 5], offer=20, on_card=4, deck_top=(7,))
    act(s, "take")
    assert [face(s, c)["value"] for c in zone(s, "taken", 0)] == [20]
    assert var(s, "chips", 0) == 5 and var(s, "chips_on_card") == 0
    assert s.current_player == 0                                  # the same player goes again
    assert face(s, zone(s, "offer")[0])["value"] == 7
    act(s, "pay")
    assert s.current_player == 1


def test_nt_runs_score_their_lowest_card_and_chips_count_off():
    # seat 0 holds 10-13 and 20: 10 + 20; taking 21 extends the run 20-21, scoring nothing more
    s = nt_state(chips=[5, 5, 5], taken={0: [10, 11, 12, 13, 20], 1: [30]}, offer=21, on_card=2)
    assert NT.evaluate(s, "card_points(0)") == 30
    act(s, "take")
    assert NT.evaluate(s, "card_points(0)") == 30 and var(s, "chips", 0) == 7
    assert NT.evaluate(s, "card_points(1)") == 30


def test_nt_the_game_ends_when_the_last_card_is_taken_and_lowest_wins():
    s = NT.new_game(players=3, seed=2)
    d = s.to_json()
    # leave one card in the deck: two takes end the game
    rs = s.rs
    deck = d["zones"][rs.zone_base["deck"]]
    d["zones"][rs.zone_base["box"]] += deck[:-1]
    d["zones"][rs.zone_base["deck"]] = deck[-1:]
    s = NT.arranged_state(d)
    act(s, "take")
    assert not s.is_terminal
    act(s, "pay")
    assert not s.is_terminal
    act(s, "take")
    assert s.is_terminal
    pts = [NT.evaluate(s, f"card_points({p})") - var(s, "chips", p) for p in range(3)]
    assert s.scores == pts
    assert s.winners == [p for p in range(3) if pts[p] == min(pts)]


def test_nt_outside_scorer_matches_the_engine():
    """A plain scorer of the tableaux (runs, chips) equals the engine's scores over random games; the
    chips are conserved and every card in play ends taken."""
    rng = random.Random(40)
    for i in range(150):
        players = 3 + i % 5
        s = play_random(NT.new_game(players=players, seed=i), rng)
        taken = [[face(s, c)["value"] for c in zone(s, "taken", p)] for p in range(players)]
        chips = [var(s, "chips", p) for p in range(players)]
        assert sum(len(t) for t in taken) == 24
        assert sum(chips) == players * {6: 9, 7: 7}.get(players, 11)
        want = [nt_plain_score(taken[p], chips[p]) for p in range(players)]
        assert s.scores == want
        assert s.winners == [p for p in range(players) if want[p] == min(want)]


@pytest.mark.parametrize("log,scores,winners,decisions", [
    ("no_thanks-11.jsonl", [113, 98, 113], [1], 57),
    ("no_thanks-12.jsonl", [51, 65, 40, 46, 49, 33, -1], [6], 46),
])
def test_nt_golden_logs(capsys, log, scores, winners, decisions):
    out = replay(capsys, log, "no_thanks")
    assert out["ok"] and out["scores"] == scores and out["winners"] == winners
    assert out["decisions"] == decisions
