"""Library games of issue 40: No Thanks! (games/no_thanks.yaml), Sushi Go (games/sushi_go.yaml) and
Hanabi (games/hanabi.yaml). Each important rule is pinned by a test that fails if it is broken; each
game is also checked against an independent plain-Python scorer or referee written here (no engine
code), over random games; the golden logs in tests/golden/ replay to the results recorded when they
were written."""
from __future__ import annotations

import collections
import json
import random
from pathlib import Path

import pytest

from gamespec.cli import main

from helpers import face, load, names, var
from helpers import zone as live_zone

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden"


# ----------------------------------------------------------------------------- helpers

def zone(s, name, key=None):
    """A copy of a zone's card ids (a family member by its key), bottom to top."""
    return list(live_zone(s, name, key))


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


# ============================================================================= Sushi Go!

SG = load("sushi_go")


def sg_cards(s):
    """Card ids by face name, each a list to pop from."""
    out = collections.defaultdict(list)
    for c in range(s.rs.ncards):
        out[face(s, c)["name"]].append(c)
    return out


def sg_state(players=3, seed=0, hands=None, belts=None, puddings=None, round_no=1, totals=None):
    """A state at the first decision of a turn of round `round_no`, with the given hands, belts and
    puddings ({p: [face names]}); the other cards stay in the deck, shuffled."""
    s = SG.new_game(players=players, seed=seed)
    rs = s.rs
    zb = rs.zone_base
    pool = sg_cards(s)
    zones = [[] for _ in range(rs.nzones)]
    hands = hands or {p: ["dumpling"] for p in range(players)}
    for name, layout in (("hand", hands), ("belt", belts), ("puddings", puddings)):
        for p, faces in (layout or {}).items():
            zones[zb[name] + p] = [pool[f].pop() for f in faces]
    rest = [c for f in sorted(pool) for c in pool[f]]
    random.Random(seed).shuffle(rest)
    zones[zb["deck"]] = rest
    d = s.to_json()
    d["zones"] = zones
    d["known"] = [0] * rs.ncards
    d["vars"][rs.var_base["round_no"]] = round_no
    for p, t in enumerate(totals or []):
        d["vars"][rs.var_base["total"] + p] = t
    return SG.arranged_state(d)


def names_in(s, zname, p=None):
    return sorted(face(s, c)["name"] for c in zone(s, zname, p))


def choose(s, name, *faces):
    """The current chooser's action `name` whose card parameters are these faces, in order."""
    for a in s.legal_actions():
        if a.name != name:
            continue
        cards = [v for k, v in a.bind.items() if k in ("card", "one", "two")]
        if [face(s, c)["name"] for c in cards] == list(faces):
            s.apply(a)
            return s
    raise AssertionError(f"no {name} {faces}: {[a.to_json() for a in s.legal_actions()]}")


def test_sg_deck_and_deal():
    for players, size in ((2, 10), (3, 9), (4, 8), (5, 7)):
        s = SG.new_game(players=players, seed=players)
        assert [len(zone(s, "hand", p)) for p in range(players)] == [size] * players
        assert len(zone(s, "deck")) == 108 - players * size
    count = collections.Counter(face(s, c)["name"] for c in range(s.rs.ncards))
    assert count == {"tempura": 14, "sashimi": 14, "dumpling": 14, "2 maki rolls": 12,
                     "3 maki rolls": 8, "1 maki roll": 6, "salmon nigiri": 10, "squid nigiri": 5,
                     "egg nigiri": 5, "pudding": 10, "wasabi": 6, "chopsticks": 4}


def test_sg_picks_are_secret_until_all_chose_then_hands_pass_left():
    hands = {0: ["tempura", "sashimi", "pudding"], 1: ["wasabi", "dumpling", "egg nigiri"],
             2: ["squid nigiri", "chopsticks", "1 maki roll"]}
    s = sg_state(hands=hands)
    choose(s, "pick", "sashimi")
    assert s.current_player == 1
    assert zone(s, "belt", 0) == [] and len(zone(s, "hand", 0)) == 3      # stored, not applied
    seen = s.observation(1)
    assert seen["zones"]["belt[0]"]["cards"] == []
    assert "sashimi" not in json.dumps(seen["history"])                     # only *that* 0 chose
    choose(s, "pick", "dumpling")
    choose(s, "pick", "squid nigiri")
    # revealed together: each pick on its belt, and every hand has moved one seat to the left
    assert [names_in(s, "belt", p) for p in range(3)] == [["sashimi"], ["dumpling"], ["squid nigiri"]]
    assert names_in(s, "hand", 1) == ["pudding", "tempura"]
    assert names_in(s, "hand", 2) == ["egg nigiri", "wasabi"]
    assert names_in(s, "hand", 0) == ["1 maki roll", "chopsticks"]
    # everyone sees every belt
    assert [c["name"] for c in s.observation(2)["zones"]["belt[0]"]["cards"]] == ["sashimi"]


def test_sg_chopsticks_take_two_and_go_back_into_the_hand():
    hands = {0: ["tempura", "tempura", "wasabi"], 1: ["egg nigiri"] * 3, 2: ["dumpling"] * 3}
    s = sg_state(hands=hands, belts={0: ["chopsticks"], 1: [], 2: []})
    assert {a.name for a in s.legal_actions()} == {"pick", "pick_two"}
    choose(s, "pick_two", "tempura", "tempura")
    assert "pick_two" not in {a.name for a in s.legal_actions()}          # seat 1 has no chopsticks
    choose(s, "pick", "egg nigiri")
    choose(s, "pick", "dumpling")
    assert [face(s, c)["name"] for c in zone(s, "belt", 0)] == ["tempura", "tempura"]
    assert names_in(s, "hand", 1) == ["chopsticks", "wasabi"]              # passed on with the hand
    assert [len(zone(s, "hand", p)) for p in range(3)] == [2, 2, 2]


def test_sg_chopsticks_cannot_be_used_on_the_turn_they_are_picked():
    s = sg_state(hands={0: ["chopsticks", "tempura", "tempura"], 1: ["dumpling"] * 3, 2: ["dumpling"] * 3})
    assert {a.name for a in s.legal_actions()} == {"pick"}


def dishes(belt):
    return SG.evaluate(sg_state(belts={0: belt}), "dishes(belt[0])")


def test_sg_dishes():
    assert dishes(["tempura"]) == 0 and dishes(["tempura"] * 2) == 5 and dishes(["tempura"] * 5) == 10
    assert dishes(["sashimi"] * 2) == 0 and dishes(["sashimi"] * 3) == 10 and dishes(["sashimi"] * 7) == 20
    assert [dishes(["dumpling"] * n) for n in range(7)] == [0, 1, 3, 6, 10, 15, 15]
    assert dishes(["egg nigiri", "salmon nigiri", "squid nigiri"]) == 6
    assert dishes(["wasabi", "chopsticks", "pudding", "1 maki roll"]) == 0
    # a nigiri goes on a wasabi played before it, one per wasabi
    assert dishes(["wasabi", "squid nigiri"]) == 9
    assert dishes(["squid nigiri", "wasabi"]) == 3
    assert dishes(["wasabi", "egg nigiri", "squid nigiri"]) == 3 + 3
    assert dishes(["wasabi", "wasabi", "egg nigiri", "squid nigiri"]) == 3 + 9
    assert dishes(["salmon nigiri", "wasabi", "tempura", "squid nigiri", "wasabi"]) == 2 + 9


@pytest.mark.parametrize("rolls,want", [
    ([5, 5, 3], [3, 3, 0]),          # tied for the most: split 6, nobody second
    ([6, 3, 3], [6, 1, 1]),          # tied for second: split 3
    ([4, 0, 0], [6, 0, 0]),          # no maki, no points
    ([0, 0, 0], [0, 0, 0]),
    ([3, 3, 3], [2, 2, 2]),
    ([7, 2, 1], [6, 3, 0]),
])
def test_sg_maki_majorities(rolls, want):
    names = {1: "1 maki roll", 2: "2 maki rolls", 3: "3 maki rolls"}
    belts = {}
    for p, n in enumerate(rolls):
        belts[p] = [names[3]] * (n // 3) + ([names[n % 3]] if n % 3 else [])
    s = sg_state(belts=belts)
    assert [SG.evaluate(s, f"maki_points({p})") for p in range(3)] == want


@pytest.mark.parametrize("players,counts,want", [
    (3, [3, 1, 1], [6, -3, -3]),
    (3, [2, 2, 0], [3, 3, -6]),
    (4, [1, 1, 1, 1], [0, 0, 0, 0]),  # all tied: nobody scores
    (2, [0, 2], [0, 6]),              # two players: nobody loses for the fewest
    (5, [0, 0, 0, 0, 1], [-1, -1, -1, -1, 6]),
])
def test_sg_puddings(players, counts, want):
    s = sg_state(players=players, puddings={p: ["pudding"] * n for p, n in enumerate(counts)})
    assert [SG.evaluate(s, f"pudding_points({p})") for p in range(players)] == want


def test_sg_last_turn_scores_the_round_keeps_puddings_and_breaks_ties_by_puddings():
    # round 3, one card left in every hand: the picks end the game
    s = sg_state(round_no=3, totals=[20, 26, 10],
                 hands={0: ["pudding"], 1: ["egg nigiri"], 2: ["tempura"]},
                 belts={0: ["wasabi", "squid nigiri"], 1: ["2 maki rolls"], 2: ["tempura"]},
                 puddings={0: [], 1: ["pudding"], 2: []})
    for _ in range(3):
        s.apply(s.legal_actions()[0])
    assert s.is_terminal
    # seat 0: 9 (squid on wasabi), pudding kept; seat 1: 1 + 6 (maki); seat 2: 5 (tempura pair)
    assert [var(s, "round_pts", p) for p in range(3)] == [9, 7, 5]
    assert [len(zone(s, "puddings", p)) for p in range(3)] == [1, 1, 0]
    # puddings 1, 1, 0: seats 0 and 1 split 6, seat 2 loses 6
    assert s.scores == [29 + 3, 33 + 3, 15 - 6] and s.winners == [1]
    # puddings 2, 1, 0 and 27 points each for seats 0 and 1: the tie goes to more puddings
    s2 = sg_state(round_no=3, totals=[20, 26, 10], hands={0: ["pudding"], 1: ["wasabi"], 2: ["tempura"]},
                  belts={0: ["egg nigiri"], 1: ["egg nigiri"], 2: []}, puddings={0: ["pudding"], 1: ["pudding"]})
    for _ in range(3):
        s2.apply(s2.legal_actions()[0])
    assert s2.scores == [27, 27, 4] and s2.winners == [0]


def sg_plain_round(belts):
    """The rulebook's round scoring of every belt (lists of face dicts in pick order), written out."""
    pts = []
    for belt in belts:
        got, wasabi = 0, 0
        for f in belt:
            if f["kind"] == "wasabi":
                wasabi += 1
            elif f["kind"] == "nigiri":
                got += f["worth"] * (3 if wasabi else 1)
                wasabi -= 1 if wasabi else 0
        kinds = collections.Counter(f["kind"] for f in belt)
        got += 5 * (kinds["tempura"] // 2) + 10 * (kinds["sashimi"] // 3)
        got += [0, 1, 3, 6, 10, 15][min(kinds["dumpling"], 5)]
        pts.append(got)
    rolls = [sum(f["rolls"] for f in belt) for belt in belts]
    ranked = sorted({r for r in rolls if r > 0}, reverse=True)
    if ranked:
        top = [p for p, r in enumerate(rolls) if r == ranked[0]]
        for p in top:
            pts[p] += 6 // len(top)
        if len(top) == 1 and len(ranked) > 1:
            second = [p for p, r in enumerate(rolls) if r == ranked[1]]
            for p in second:
                pts[p] += 3 // len(second)
    return pts


def sg_plain_puddings(counts):
    n = len(counts)
    hi, lo = max(counts), min(counts)
    pts = [0] * n
    if hi == lo:
        return pts
    tops = [p for p in range(n) if counts[p] == hi]
    lows = [p for p in range(n) if counts[p] == lo]
    for p in tops:
        pts[p] += 6 // len(tops)
    if n > 2:
        for p in lows:
            pts[p] -= 6 // len(lows)
    return pts


def sg_outside_check(games, seed):
    rng = random.Random(seed)
    offered_two = dipped = 0
    for i in range(games):
        players = 2 + i % 4
        s = SG.new_game(players=players, seed=seed * 100_000 + i)
        rounds = []              # each round's belts as the last pick is about to be revealed
        while not s.is_terminal:
            legal = s.legal_actions()
            offered_two += any(a.name == "pick_two" for a in legal)
            hands = [zone(s, "hand", p) for p in range(players)]
            if all(len(h) == 1 for h in hands) and len(rounds) < var(s, "round_no"):
                # the last turn of the round: each belt gets the last card of its hand
                rounds.append([[face(s, c) for c in zone(s, "belt", p) + hands[p]] for p in range(players)])
                # the rounds scored so far add up to the engine's totals
                want = [sum(r[p] for r in map(sg_plain_round, rounds[:-1])) for p in range(players)]
                assert [var(s, "total", p) for p in range(players)] == want
            s.apply(rng.choice(legal))
        assert len(rounds) == 3
        per_round = [sg_plain_round(r) for r in rounds]
        dipped += any(f["kind"] == "wasabi" for r in rounds for b in r for f in b)
        puddings = [sum(f["kind"] == "pudding" for r in rounds for f in r[p]) for p in range(players)]
        assert [len(zone(s, "puddings", p)) for p in range(players)] == puddings
        want = [sum(r[p] for r in per_round) + sg_plain_puddings(puddings)[p] for p in range(players)]
        assert s.scores == want, (i, want, s.scores)
        best = max(want)
        tied = [p for p in range(players) if want[p] == best]
        most = max(puddings[p] for p in tied)
        assert s.winners == [p for p in tied if puddings[p] == most]
    # the random games went through the rules the scorer checks
    assert offered_two > games and dipped > games // 2


def test_sg_outside_scorer_matches_the_engine():
    """A plain scorer of the belts (maki, tempura, sashimi, dumplings, nigiri on wasabi, puddings)
    equals the engine's round totals and final scores over random games of 2 to 5 players."""
    sg_outside_check(120, 7)


@pytest.mark.slow
def test_sg_outside_scorer_matches_the_engine_over_1000_games():
    sg_outside_check(1000, 8)


# ============================================================================= Hanabi

HB = load("hanabi")
COLOURS = ["R", "Y", "G", "B", "W"]


def hb_state(players=2, seed=0, hands=None, fireworks=None, deck_top=(), deck_size=None, clues=8, fuses=3,
             discard=()):
    """A state at seat 0's first decision. hands: {p: ["R1", ...]} bottom to top; fireworks: {"R": 3}
    (its cards 1..3); deck_top: faces on top of the deck, topmost first; deck_size: cut the deck to
    this size (the rest go to the discard pile); the other cards of the hands are dealt at random."""
    s = HB.new_game(players=players, seed=seed)
    rs = s.rs
    zb = rs.zone_base
    pool = collections.defaultdict(list)
    for c in range(rs.ncards):
        f = face(s, c)
        pool[f"{f['colour']}{f['number']}"].append(c)
    zones = [[] for _ in range(rs.nzones)]
    for k, n in (fireworks or {}).items():
        zones[zb["firework"] + COLOURS.index(k)] = [pool[f"{k}{v}"].pop() for v in range(1, n + 1)]
    for p, faces in (hands or {}).items():
        zones[zb["hand"] + p] = [pool[f].pop() for f in faces]
    top = [pool[f].pop() for f in deck_top]
    zones[zb["discard"]] = [pool[f].pop() for f in discard]
    rest = [c for f in sorted(pool) for c in pool[f]]
    random.Random(seed).shuffle(rest)
    size = 5 if players <= 3 else 4
    for p in range(players):
        while len(zones[zb["hand"] + p]) < size:
            zones[zb["hand"] + p].append(rest.pop())
    if deck_size is not None:
        keep = deck_size - len(top)
        zones[zb["discard"]] += rest[keep:]
        rest = rest[:keep]
    zones[zb["deck"]] = rest + top[::-1]
    d = s.to_json()
    d["zones"] = zones
    d["known"] = [0] * rs.ncards
    d["vars"][rs.var_base["clue_tokens"]] = clues
    d["vars"][rs.var_base["fuse_tokens"]] = fuses
    return HB.arranged_state(d)


def hb_faces(s, zname, p=None):
    return [f"{face(s, c)['colour']}{face(s, c)['number']}" for c in zone(s, zname, p)]


def heights(s):
    return [len(zone(s, "firework", c)) for c in COLOURS]


def hb_card(s, name, position):
    """Seat's own card action (play/discard) on the card at `position` of their hand."""
    c = zone(s, "hand", s.current_player)[position]
    for a in s.legal_actions():
        if a.name == name and a.bind["card"] == c:
            s.apply(a)
            return s
    raise AssertionError(f"no {name} of position {position}")


def hb_hint(s, name, to, value):
    key = "colour" if name == "hint_colour" else "number"
    [a] = [a for a in s.legal_actions() if a.name == name and a.bind["to"] == to and a.bind[key] == value]
    s.apply(a)
    return s


def test_hb_deck_hands_and_tokens():
    for players, size in ((2, 5), (3, 5), (4, 4), (5, 4)):
        s = HB.new_game(players=players, seed=players)
        assert [len(zone(s, "hand", p)) for p in range(players)] == [size] * players
        assert len(zone(s, "deck")) == 50 - players * size
        assert var(s, "clue_tokens") == 8 and var(s, "fuse_tokens") == 3
    count = collections.Counter((face(s, c)["colour"], face(s, c)["number"]) for c in range(s.rs.ncards))
    assert count == {(k, n): {1: 3, 2: 2, 3: 2, 4: 2, 5: 1}[n] for k in COLOURS for n in range(1, 6)}


def test_hb_hands_face_out():
    s = HB.new_game(players=3, seed=1)
    for p in range(3):
        obs = s.observation(p)["zones"]
        assert obs[f"hand[{p}]"]["cards"] == [None] * 5                 # never one's own cards
        for q in range(3):
            if q != p:
                want = [face(s, c) for c in zone(s, "hand", q)]
                assert [dict(c) for c in obs[f"hand[{q}]"]["cards"]] == [dict(f) for f in want]


def test_hb_a_hint_names_exactly_the_cards_of_its_colour_and_costs_a_clue():
    s = hb_state(players=3, hands={1: ["R1", "B2", "R4", "G1", "R1"]}, clues=5)
    hb_hint(s, "hint_colour", 1, "R")
    assert var(s, "clue_tokens") == 4
    for viewer in (0, 1, 2):
        hand = s.observation(viewer)["zones"]["hand[1]"]
        assert [m["told_colour"] for m in hand["marks"]] == [1, 0, 1, 0, 1]
        assert [m["told_number"] for m in hand["marks"]] == [0] * 5
    assert s.observation(1)["zones"]["hand[1]"]["cards"] == [None] * 5   # the marks, not the faces
    # a number hint names every card of that number, whatever its colour; marks add up
    s.apply([a for a in s.legal_actions() if a.name == "hint_number"][0])     # seat 1 hints someone
    hb_hint(s, "hint_number", 1, 1)                                          # seat 2 hints seat 1
    hand = s.observation(1)["zones"]["hand[1]"]
    assert [m["told_number"] for m in hand["marks"]] == [1, 0, 0, 1, 1]
    assert [m["told_colour"] for m in hand["marks"]] == [1, 0, 1, 0, 1]


def test_hb_hints_name_at_least_one_card_another_player_and_need_a_clue():
    s = hb_state(players=2, hands={1: ["R1", "R2", "R3", "R4", "Y1"]}, clues=1)
    colours = {a.bind["colour"] for a in s.legal_actions() if a.name == "hint_colour"}
    numbers = {a.bind["number"] for a in s.legal_actions() if a.name == "hint_number"}
    assert colours == {"R", "Y"} and numbers == {1, 2, 3, 4}
    assert all(a.bind["to"] == 1 for a in s.legal_actions() if a.name.startswith("hint"))
    s = hb_state(players=2, clues=0)
    assert names(s) == ["discard", "play"]


def test_hb_discard_wins_a_clue_back_but_not_at_eight():
    s = hb_state(players=2, clues=8)
    assert names(s) == ["hint_colour", "hint_number", "play"]
    s = hb_state(players=2, hands={0: ["R1", "Y1", "G1", "B1", "W3"]}, deck_top=["B5"], clues=3)
    hb_card(s, "discard", 4)
    assert var(s, "clue_tokens") == 4 and hb_faces(s, "discard")[-1] == "W3"
    assert hb_faces(s, "hand", 0) == ["R1", "Y1", "G1", "B1", "B5"]      # the drawn card on top


def test_hb_play_fits_or_misfires():
    s = hb_state(players=2, hands={0: ["R3", "Y1", "G2", "B1", "W1"], 1: ["R4", "Y2", "G1", "B2", "W2"]},
                 fireworks={"R": 2}, clues=4)
    hb_card(s, "play", 0)                                                # R3 onto red 2
    assert heights(s) == [3, 0, 0, 0, 0] and var(s, "fuse_tokens") == 3
    hb_card(s, "play", 4)                                                # W2: white is empty
    assert heights(s) == [3, 0, 0, 0, 0] and var(s, "fuse_tokens") == 2
    assert "W2" in hb_faces(s, "discard") and var(s, "clue_tokens") == 4
    assert len(zone(s, "hand", 1)) == 5                                  # a card was drawn


@pytest.mark.parametrize("clues,after", [(5, 6), (8, 8)])
def test_hb_a_five_completing_a_firework_wins_a_clue(clues, after):
    s = hb_state(players=2, hands={0: ["B5", "Y1", "G1", "B1", "W1"]}, fireworks={"B": 4}, clues=clues)
    hb_card(s, "play", 0)
    assert heights(s)[3] == 5 and var(s, "clue_tokens") == after


def test_hb_the_third_misfire_ends_the_game_at_once():
    s = hb_state(players=2, hands={0: ["R2", "Y1", "G1", "B1", "W1"]}, fireworks={"Y": 1, "G": 2}, fuses=1)
    hb_card(s, "play", 0)
    assert s.is_terminal and s.scores == [3, 3] and s.winners == []


def test_hb_after_the_last_card_everyone_plays_one_more_turn():
    for players in (2, 4):
        s = hb_state(players=players, deck_size=1, clues=4)
        hb_card(s, "discard", 0)                                         # draws the last card
        assert len(zone(s, "deck")) == 0 and not s.is_terminal
        for k in range(players):
            assert not s.is_terminal and s.current_player == (1 + k) % players
            hb_card(s, "discard", 0) if var(s, "clue_tokens") < 8 else hb_hint(
                s, "hint_number", (s.current_player + 1) % players,
                face(s, zone(s, "hand", (s.current_player + 1) % players)[0])["number"])
        assert s.is_terminal, players


def test_hb_a_perfect_show_ends_at_once_as_a_success():
    s = hb_state(players=2, hands={0: ["W5", "Y1", "G1", "B1", "R1"]},
                 fireworks={"R": 5, "Y": 5, "G": 5, "B": 5, "W": 4}, clues=2)
    hb_card(s, "play", 0)
    assert s.is_terminal and s.scores == [25, 25] and s.winners == [0, 1]


def hb_referee(log):
    """An independent referee: replays a full log's decisions from its shuffles alone (the deck order
    of the `shuffle` line, hands dealt one card at a time from the top, a card parameter the position
    in the player's hand) and recomputes every play's success, the tokens, the fireworks and the
    score. Returns the state after each decision and the final score."""
    header = log[0]
    players = header["players"]
    faces = header["faces"]
    [shuffle] = [line for line in log if line["type"] == "chance"]
    deck = list(shuffle["order"])
    size = 5 if players <= 3 else 4
    hands = [[] for _ in range(players)]
    for p in range(players):
        for _ in range(size):
            hands[p].append(deck.pop())
    built = {k: 0 for k in COLOURS}
    clues, fuses, left = 8, 3, None
    after, ended = [], False
    for line in log[1:]:
        if line["type"] != "decision":
            continue
        assert not ended, "a decision after the end"
        p, act = line["player"], line["action"]
        if act["action"] in ("hint_colour", "hint_number"):
            assert clues > 0 and act["to"] != p
            key = "colour" if act["action"] == "hint_colour" else "number"
            assert any(faces[c][key] == act[key] for c in hands[act["to"]])
            clues -= 1
        else:
            c = hands[p].pop(act["card"])
            f = faces[c]
            if act["action"] == "discard":
                assert clues < 8
                clues += 1
            elif f["number"] == built[f["colour"]] + 1:
                built[f["colour"]] += 1
                if f["number"] == 5 and clues < 8:
                    clues += 1
            else:
                fuses -= 1
            if deck:
                hands[p].append(deck.pop())
        if left is not None:
            left -= 1
        elif not deck:
            left = players
        after.append((clues, fuses, [built[k] for k in COLOURS]))
        ended = fuses == 0 or sum(built.values()) == 25 or left == 0
    assert ended
    return after, sum(built.values())


def hb_policy(s, rng):
    """Random play that lasts: a card that fits is played more often than not (read from the true
    state), else a random hint or discard, else anything."""
    legal = s.legal_actions()
    me = s.current_player
    fits = [a for a in legal if a.name == "play" and face(s, a.bind["card"])["number"]
            == len(zone(s, "firework", face(s, a.bind["card"])["colour"])) + 1]
    if fits and rng.random() < 0.8:
        return rng.choice(fits)
    safe = [a for a in legal if a.name != "play"]
    if safe and rng.random() < 0.9:
        return rng.choice(safe)
    return rng.choice(legal) if me >= 0 else None


def hb_outside_check(games, seed):
    rng = random.Random(seed)
    scores, ran_out = [], 0
    for i in range(games):
        players = 2 + i % 4
        s = HB.new_game(players=players, seed=seed * 100_000 + i, log=True)
        engine_after = []
        while not s.is_terminal:
            a = hb_policy(s, rng)
            s.apply(a)
            if a.name in ("hint_colour", "hint_number"):
                # knowledge honest: the hinted player learns exactly which of their cards it names
                key, mark = ("colour", "told_colour") if a.name == "hint_colour" else ("number", "told_number")
                value = a.bind[key]
                code = COLOURS.index(value) + 1 if key == "colour" else value
                to = a.bind["to"]
                view = s.observation(to)["zones"][f"hand[{to}]"]
                assert view["cards"] == [None] * len(view["cards"])
                named = [face(s, c)[key] == value for c in zone(s, "hand", to)]
                assert [m[mark] == code for m in view["marks"]] == named
            engine_after.append((var(s, "clue_tokens"), var(s, "fuse_tokens"), heights(s)))
        ran_out += len(zone(s, "deck")) == 0
        log = s.log_lines()
        after, score = hb_referee(log)
        assert after == engine_after, i
        assert s.scores == [score] * players and s.winners == (list(range(players)) if score == 25 else [])
        assert log[-1]["scores"] == s.scores
        scores.append(score)
    # the games went through the rules checked: long games, decks run out, some high scores
    assert ran_out > games // 2 and max(scores) >= 20


def test_hb_outside_referee_matches_the_engine():
    """An independent referee replays random games' logs and recomputes every play, the tokens and
    the score, equal to the engine's; every hint's marks name exactly its cards in the hinted view."""
    hb_outside_check(40, 3)


@pytest.mark.slow
def test_hb_outside_referee_matches_the_engine_over_many_games():
    hb_outside_check(400, 4)


@pytest.mark.parametrize("log,scores,winners,decisions", [
    ("sushi_go-21.jsonl", [37, 46], [1], 60),
    ("sushi_go-22.jsonl", [27, 19, 22, 25, 31], [4], 105),
])
def test_sg_golden_logs(capsys, log, scores, winners, decisions):
    out = replay(capsys, log, "sushi_go")
    assert out["ok"] and out["scores"] == scores and out["winners"] == winners
    assert out["decisions"] == decisions


@pytest.mark.parametrize("log,scores,decisions", [
    ("hanabi-31.jsonl", [2, 2], 15),              # random seats: the third misfire ends it
    ("hanabi-34.jsonl", [0, 0, 0, 0], 76),        # seats that never play but seat 0: the deck runs out
])
def test_hb_golden_logs(capsys, log, scores, decisions):
    out = replay(capsys, log, "hanabi")
    assert out["ok"] and out["scores"] == scores and out["winners"] == []
    assert out["decisions"] == decisions
    lines = [json.loads(x) for x in (GOLDEN / log).read_text(encoding="utf-8").splitlines()]
    after, score = hb_referee(lines)
    assert len(after) == decisions and [score] * len(scores) == scores
