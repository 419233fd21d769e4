"""Library games of issue 40: 6 nimmt! (games/six_nimmt.yaml), Love Letter (games/love_letter.yaml)
and Coup (games/coup.yaml). Each important rule is pinned by a test that fails if it is broken; each
game is also checked by a plain-Python referee written here (no engine code) over random games: 6
nimmt!'s placements and penalties re-played from the logged choices, Love Letter's card effects
(who is out and why), Coup's conservation of coins and cards and its challenges' outcomes. The golden
logs in tests/golden/ replay to the results recorded when they were written."""
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


def replay(capsys, log, gid):
    assert main(["replay", str(GOLDEN / log), "--spec", str(ROOT / "games" / f"{gid}.yaml"), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def arrange(game, s, layout, variables=None):
    """A copy of state `s` (at its first decision) with zones laid out: layout {(zone, key): [card
    ids]}; every card not placed goes to the zone named by layout['rest'] (shuffled by its order)."""
    rs = s.rs
    d = s.to_json()
    zones = [[] for _ in range(rs.nzones)]
    placed = set()
    for k, ids in layout.items():
        if k == "rest":
            continue
        name, key = k
        zones[rs.zone_base[name] + key] = list(ids)
        placed |= set(ids)
    rest_zone = layout["rest"]
    zones[rs.zone_base[rest_zone]] = [c for c in range(rs.ncards) if c not in placed] + \
        zones[rs.zone_base[rest_zone]]
    d["zones"] = zones
    d["known"] = [0] * rs.ncards
    for (name, p), v in (variables or {}).items():
        d["vars"][rs.var_base[name] + p] = v
    return game.arranged_state(d)


# ============================================================================= 6 nimmt!

SN = load("six_nimmt")


def sn_heads(n):
    """The rulebook's bull heads, written out."""
    if n == 55:
        return 7
    if n % 11 == 0:
        return 5
    if n % 10 == 0:
        return 3
    if n % 5 == 0:
        return 2
    return 1


def sn_ids(s):
    return {face(s, c)["number"]: c for c in range(s.rs.ncards)}


def sn_state(players=3, hands=None, rows=((10,), (20,), (30,), (40,)), totals=None, seed=0):
    """A state at seat 0's pick with the given hands {p: [numbers]} and rows (numbers, oldest
    first); the other cards lie in the deck."""
    s = SN.new_game(players=players, seed=seed)
    ids = sn_ids(s)
    layout = {("row", r): [ids[n] for n in row] for r, row in enumerate(rows)}
    for p, ns in (hands or {}).items():
        layout[("hand", p)] = [ids[n] for n in ns]
    layout["rest"] = "deck"
    variables = {("total", p): t for p, t in enumerate(totals or [])}
    return arrange(SN, s, layout, variables)


def sn_pick(s, number):
    for a in s.legal_actions():
        if a.name == "pick" and face(s, a.bind["card"])["number"] == number:
            s.apply(a)
            return s
    raise AssertionError(f"no pick of {number}")


def rows_of(s):
    return [[face(s, c)["number"] for c in zone(s, "row", r)] for r in range(4)]


def taken_heads(s, p):
    return sum(face(s, c)["heads"] for c in zone(s, "taken", p))


def test_sn_deck_and_bull_heads():
    s = SN.new_game(players=4, seed=1)
    faces = [face(s, c) for c in range(s.rs.ncards)]
    assert sorted(f["number"] for f in faces) == list(range(1, 105))
    assert all(f["heads"] == sn_heads(f["number"]) for f in faces)
    assert sum(f["heads"] for f in faces) == 171
    assert collections.Counter(f["heads"] for f in faces) == {1: 76, 2: 9, 3: 10, 5: 8, 7: 1}


@pytest.mark.parametrize("players", [2, 5, 10])
def test_sn_deal(players):
    s = SN.new_game(players=players, seed=players)
    assert [len(zone(s, "hand", p)) for p in range(players)] == [10] * players
    assert [len(zone(s, "row", r)) for r in range(4)] == [1, 1, 1, 1]
    assert len(zone(s, "deck")) == 104 - 10 * players - 4


def test_sn_picks_are_secret_then_placed_in_ascending_order():
    s = sn_state(hands={0: [25, 50], 1: [22, 60], 2: [41, 70]})
    sn_pick(s, 25)
    assert s.current_player == 1 and zone(s, "shown", 0) == []          # stored, not applied
    assert "25" not in json.dumps(s.observation(1)["history"])
    sn_pick(s, 22)
    sn_pick(s, 41)
    # 22 then 25 after the 20; 41 after the 40
    assert rows_of(s) == [[10], [20, 22, 25], [30], [40, 41]]
    assert [taken_heads(s, p) for p in range(3)] == [0, 0, 0]
    assert s.current_player == 0 and len(zone(s, "hand", 0)) == 1


def test_sn_the_card_goes_to_the_row_ending_nearest_below():
    s = sn_state(rows=((5,), (33,), (31,), (60,)), hands={0: [34, 1], 1: [32, 2], 2: [61, 3]})
    for n in (34, 32, 61):
        sn_pick(s, n)
    # 32 after the 31 (not the 5); 34 after the 33 (nearest below, though 32 is now also below)
    assert rows_of(s) == [[5], [33, 34], [31, 32], [60, 61]]


def test_sn_the_sixth_card_takes_the_row():
    s = sn_state(rows=((10, 11, 12, 13, 14), (20,), (30,), (40,)), hands={0: [15, 1], 1: [16, 2], 2: [45, 3]})
    for n in (15, 16, 45):
        sn_pick(s, n)
    # 15 is the sixth card: seat 0 takes 10-14 (3 + 5 + 1 + 1 + 1 heads); 15 starts the row, 16 follows
    assert rows_of(s) == [[15, 16], [20], [30], [40, 45]]
    assert taken_heads(s, 0) == 11 and taken_heads(s, 1) == 0
    assert sorted(face(s, c)["number"] for c in zone(s, "taken", 0)) == [10, 11, 12, 13, 14]


def test_sn_a_card_below_every_row_takes_the_row_of_the_players_choice():
    s = sn_state(rows=((10, 55), (20,), (30, 31, 32), (40,)), hands={0: [50, 1], 1: [3, 2], 2: [33, 4]})
    for n in (50, 3, 33):
        sn_pick(s, n)
    # every card is revealed; 3 is below every row's end: its player chooses a row to take
    assert s.current_player == 1 and names(s) == ["take_row"]
    assert sorted(a.bind["r"] for a in s.legal_actions()) == [0, 1, 2, 3]
    assert [len(zone(s, "shown", p)) for p in range(3)] == [1, 1, 1]
    [a] = [a for a in s.legal_actions() if a.bind["r"] == 2]
    s.apply(a)
    # seat 1 took 30-32 (3 + 1 + 1) and 3 starts that row; then 33 goes after the 20 (the row
    # ending nearest below it now), 50 after the 40
    assert taken_heads(s, 1) == 5
    assert rows_of(s) == [[10, 55], [20, 33], [3], [40, 50]]
    assert s.current_player == 0


def test_sn_hand_end_counts_heads_and_66_ends_the_game():
    # last cards of a hand: seat 1's 15 is the sixth card of a row worth 11 heads; seat 1 had 60
    s = sn_state(rows=((10, 11, 12, 13, 14), (20,), (30,), (40,)), hands={0: [21], 1: [15], 2: [41]},
                 totals=[30, 60, 20])
    for n in (21, 15, 41):
        sn_pick(s, n)
    assert s.is_terminal
    assert s.scores == [30, 71, 20] and s.winners == [2]


def test_sn_a_hand_below_66_deals_a_new_hand():
    s = sn_state(rows=((10, 11, 12, 13, 14), (20,), (30,), (40,)), hands={0: [21], 1: [15], 2: [41]},
                 totals=[30, 50, 20])
    for n in (21, 15, 41):
        sn_pick(s, n)
    assert not s.is_terminal
    assert [var(s, "total", p) for p in range(3)] == [30, 61, 20]
    assert var(s, "hands_played") == 2
    # every card back, shuffled, dealt again: ten each and four rows of one
    assert [len(zone(s, "hand", p)) for p in range(3)] == [10, 10, 10]
    assert [len(zone(s, "row", r)) for r in range(4)] == [1, 1, 1, 1]
    assert [len(zone(s, "taken", p)) for p in range(3)] == [0, 0, 0]
    assert len(zone(s, "deck")) == 104 - 34


# ------------------------------------------------------------- 6 nimmt!: the outside referee

def sn_record(players, seed, rng):
    """Play a random game, recording per hand the deal (rows and hands as numbers, read when the hand
    begins) and the choices (each pick's number per player and round, each take_row's row)."""
    s = SN.new_game(players=players, seed=seed)
    hands, last_hand = [], 0
    while not s.is_terminal:
        h = var(s, "hands_played")
        if h != last_hand:
            last_hand = h
            hands.append({"rows": rows_of(s), "picks": [], "takes": []})
        a = rng.choice(s.legal_actions())
        if a.name == "pick":
            if s.current_player == 0:
                hands[-1]["picks"].append({})
            hands[-1]["picks"][-1][s.current_player] = face(s, a.bind["card"])["number"]
        else:
            hands[-1]["takes"].append((s.current_player, a.bind["r"]))
        s.apply(a)
    return s, hands


def sn_referee(players, hands):
    """The rulebook's placement, written out: per round the cards in ascending order, each to the row
    whose last card is nearest below it; the sixth card takes the five; a card below every row takes
    the row its player chose (the logged choice). Returns the bull heads per player and per hand."""
    per_hand = []
    for h in hands:
        rows = [list(r) for r in h["rows"]]
        takes = list(h["takes"])
        got = [0] * players
        for rnd in h["picks"]:
            assert sorted(rnd) == list(range(players))
            for n, p in sorted((n, p) for p, n in rnd.items()):
                below = [r for r in range(4) if rows[r][-1] < n]
                if not below:
                    who, r = takes.pop(0)
                    assert who == p, "the row was chosen by the player of the low card"
                    got[p] += sum(sn_heads(x) for x in rows[r])
                    rows[r] = [n]
                    continue
                r = max(below, key=lambda r: rows[r][-1])
                if len(rows[r]) == 5:
                    got[p] += sum(sn_heads(x) for x in rows[r])
                    rows[r] = [n]
                else:
                    rows[r].append(n)
        assert takes == [], "every row taken by choice was a card below every row"
        per_hand.append(got)
    return [sum(g[p] for g in per_hand) for p in range(players)], per_hand


def sn_check(games, seed0):
    rng = random.Random(seed0)
    played = 0
    for i in range(games):
        players = 2 + (seed0 + i) % 9
        s, hands = sn_record(players, seed0 + i, rng)
        want, per_hand = sn_referee(players, hands)
        assert s.scores == want
        assert s.winners == [p for p in range(players) if want[p] == min(want)]
        assert max(want) >= 66
        # every hand before the last left everyone below 66
        for k in range(1, len(per_hand)):
            assert max(sum(g[p] for g in per_hand[:k]) for p in range(players)) < 66
        played += len(hands)
    return played


def test_sn_outside_referee_matches_the_engine():
    """A plain-Python referee re-plays random games from the recorded deals and choices and gets the
    engine's bull heads, winners and game end."""
    assert sn_check(300, 1000) >= 1000


@pytest.mark.slow
def test_sn_outside_referee_many_hands():
    assert sn_check(3000, 5000) >= 10000


@pytest.mark.parametrize("log,scores,winners,decisions", [
    ("six_nimmt-3.jsonl", [66, 71, 54, 78], [2], 233),
    ("six_nimmt-8.jsonl", [33, 33, 68, 61, 34, 50, 37, 44, 41, 61], [0, 1], 327),
])
def test_sn_golden_logs(capsys, log, scores, winners, decisions):
    out = replay(capsys, log, "six_nimmt")
    assert out["ok"] and out["scores"] == scores and out["winners"] == winners
    assert out["decisions"] == decisions


# ============================================================================= Love Letter

LL = load("love_letter")
LL_VALUE = {"guard": 1, "priest": 2, "baron": 3, "handmaid": 4, "prince": 5, "king": 6, "countess": 7,
            "princess": 8}
LL_TARGETED = {"guard", "priest", "baron", "king"}


def ll_name(s, c):
    return face(s, c)["name"]


def ll_hand(s, p):
    return sorted(ll_name(s, c) for c in zone(s, "hand", p))


def ll_state(players=3, hands=None, deck=None, aside="guard", discards=None, variables=None, seed=0):
    """A state at seat 0's first play (seat 0 holds two cards): hands {p: [names]}, deck (names,
    topmost first; None: every card not placed, shuffled), the card removed face down, discards
    {p: [names]}. Cards not placed when `deck` is given lie face up in the 'removed face up' pile,
    which no rule reads."""
    s = LL.new_game(players=players, seed=seed)
    pool = collections.defaultdict(list)
    for c in range(s.rs.ncards):
        pool[ll_name(s, c)].append(c)
    layout = {("aside", 0): [pool[aside].pop()]}
    for p, ns in (hands or {}).items():
        layout[("hand", p)] = [pool[n].pop() for n in ns]
    for p, ns in (discards or {}).items():
        layout[("discards", p)] = [pool[n].pop() for n in ns]
    rest = [c for n in sorted(pool) for c in pool[n]]
    if deck is None:
        random.Random(seed).shuffle(rest)
        layout[("deck", 0)] = rest
    else:
        top = [pool[n].pop() for n in deck]
        layout[("deck", 0)] = list(reversed(top))
        layout[("open_aside", 0)] = [c for n in sorted(pool) for c in pool[n]]
    layout["rest"] = "deck"
    return arrange(LL, s, layout, {(k, p): v for (k, p), v in (variables or {}).items()})


def ll_play(s, name, **want):
    """Apply the current player's action `name` whose parameters match (q, guess; card by name)."""
    for a in s.legal_actions():
        if a.name != name:
            continue
        got = {k: (ll_name(s, v) if k == "card" else v) for k, v in a.bind.items()}
        if all(got.get(k) == v for k, v in want.items()):
            s.apply(a)
            return s
    raise AssertionError(f"no {name} {want}: {[a.to_json() for a in s.legal_actions()]}")


def in_round(s, players):
    return [var(s, "still_in", p) for p in range(players)]


def test_ll_cards_and_setup():
    s = LL.new_game(players=3, seed=2)
    count = collections.Counter((ll_name(s, c), face(s, c)["value"]) for c in range(s.rs.ncards))
    assert count == {("guard", 1): 5, ("priest", 2): 2, ("baron", 3): 2, ("handmaid", 4): 2,
                     ("prince", 5): 2, ("king", 6): 1, ("countess", 7): 1, ("princess", 8): 1}
    assert len(zone(s, "aside")) == 1 and zone(s, "open_aside") == []
    assert [len(zone(s, "hand", p)) for p in range(3)] == [2, 1, 1]        # seat 0 has drawn
    assert len(zone(s, "deck")) == 16 - 1 - 4
    s2 = LL.new_game(players=2, seed=2)
    assert len(zone(s2, "aside")) == 1 and len(zone(s2, "open_aside")) == 3
    assert len(zone(s2, "deck")) == 16 - 4 - 3
    obs = s2.observation(1)["zones"]
    assert len(obs["open_aside"]["cards"]) == 3 and obs["aside"]["cards"] == [None]   # 3 face up, 1 face down


def test_ll_guard_a_right_guess_knocks_out_a_wrong_one_does_nothing():
    s = ll_state(hands={0: ["guard", "handmaid"], 1: ["priest"], 2: ["baron"]})
    guesses = {a.bind["guess"] for a in s.legal_actions() if a.name == "play_guard"}
    assert "guard" not in guesses and len(guesses) == 7
    ll_play(s, "play_guard", q=2, guess="priest")
    assert in_round(s, 3) == [True, True, True]
    s = ll_state(hands={0: ["guard", "handmaid"], 1: ["priest"], 2: ["baron"]})
    ll_play(s, "play_guard", q=2, guess="baron")
    assert in_round(s, 3) == [True, True, False]
    assert [ll_name(s, c) for c in zone(s, "discards", 2)] == ["baron"]       # the hand, face up
    assert s.current_player == 1


def test_ll_priest_shows_the_hand_to_the_player_only():
    s = ll_state(hands={0: ["priest", "handmaid"], 1: ["king"], 2: ["baron"]})
    ll_play(s, "play_priest", q=1)
    seen = s.observation(0)["zones"]["hand[1]"]
    assert [c["name"] for c in seen["cards"] if c] == ["king"]
    assert not any(s.observation(2)["zones"]["hand[1]"]["cards"])


@pytest.mark.parametrize("mine,theirs,out", [("guard", "king", 0), ("princess", "king", 1), ("prince", "prince", None)])
def test_ll_baron_the_lower_card_is_out(mine, theirs, out):
    s = ll_state(hands={0: ["baron", mine], 1: [theirs], 2: ["guard"]})
    ll_play(s, "play_baron", q=1)
    want = [True, True, True]
    if out is not None:
        want[out] = False
    assert in_round(s, 3) == want
    # both saw the other's card; the third player saw neither
    assert [c["name"] for c in s.observation(0)["zones"]["hand[1]"]["cards"] if c] == ([theirs] if out != 1 else [])


def test_ll_handmaid_protects_until_the_next_turn():
    s = ll_state(hands={0: ["handmaid", "guard"], 1: ["guard", "priest"], 2: ["priest"]},
                 deck=["guard", "baron", "countess", "prince"])
    ll_play(s, "play_handmaid")
    assert var(s, "protected", 0)
    # seat 1 cannot choose seat 0
    assert {a.bind["q"] for a in s.legal_actions() if a.name in ("play_guard", "play_priest")} == {2}
    ll_play(s, "play_priest", q=2)
    ll_play(s, "play_priest", q=1)                 # seat 2
    assert s.current_player == 0 and not var(s, "protected", 0)    # ended at the start of 0's turn


def test_ll_everyone_protected_the_card_is_played_without_effect_and_a_prince_on_oneself():
    # seat 1 is protected, seat 2 is out of the round
    s = ll_state(hands={0: ["guard", "prince"], 1: ["priest"]}, discards={2: ["baron"]},
                 variables={("protected", 1): True, ("still_in", 2): False})
    assert names(s) == ["play_idle", "play_prince"]
    assert {a.bind["q"] for a in s.legal_actions() if a.name == "play_prince"} == {0}
    ll_play(s, "play_idle", card="guard")
    assert in_round(s, 3) == [True, True, False] and ll_hand(s, 0) == ["prince"]


def test_ll_prince_discards_and_draws_and_a_discarded_princess_is_out():
    s = ll_state(hands={0: ["prince", "guard"], 1: ["baron"], 2: ["princess"]}, deck=["king", "guard"])
    ll_play(s, "play_prince", q=1)
    # seat 1 discarded the Baron and drew the King; then, at their turn, the Guard
    assert [ll_name(s, c) for c in zone(s, "discards", 1)] == ["baron"] and ll_hand(s, 1) == ["guard", "king"]
    assert s.current_player == 1 and zone(s, "deck") == []
    s = ll_state(hands={0: ["prince", "guard"], 1: ["baron"], 2: ["princess"]}, deck=["king", "guard"])
    ll_play(s, "play_prince", q=2)
    assert in_round(s, 3) == [True, True, False] and ll_hand(s, 2) == []
    assert len(zone(s, "deck")) == 1                                    # the out player drew nothing


def test_ll_prince_with_an_empty_deck_draws_the_card_removed_face_down():
    s = ll_state(hands={0: ["prince", "guard"], 1: ["baron"], 2: ["priest"]}, deck=[], aside="countess")
    ll_play(s, "play_prince", q=1)
    # the deck was empty: the round ended after this turn; seat 1 held the Countess and won it
    assert [var(s, "affection", p) for p in range(3)] == [0, 1, 0]
    assert var(s, "starter") == 1


def test_ll_king_trades_hands():
    s = ll_state(hands={0: ["king", "guard"], 1: ["princess"], 2: ["baron"]})
    ll_play(s, "play_king", q=1)
    assert ll_hand(s, 0) == ["princess"] and ll_hand(s, 1)[:1] != [] and "guard" in ll_hand(s, 1)
    # the third player does not learn the hands
    assert not any(s.observation(2)["zones"]["hand[0]"]["cards"])


@pytest.mark.parametrize("other", ["king", "prince"])
def test_ll_the_countess_must_be_played_with_the_king_or_a_prince(other):
    s = ll_state(hands={0: ["countess", other], 1: ["guard"], 2: ["guard"]})
    assert names(s) == ["play_countess"]
    s = ll_state(hands={0: ["countess", "baron"], 1: ["guard"], 2: ["guard"]})
    assert names(s) == ["play_baron", "play_countess"]


def test_ll_playing_the_princess_is_out():
    s = ll_state(hands={0: ["princess", "guard"], 1: ["guard"], 2: ["guard"]})
    ll_play(s, "play_princess")
    assert in_round(s, 3) == [False, True, True]


def test_ll_deck_out_highest_card_wins_then_discards_sum():
    # the deck is empty: seat 0's turn is the last; 1 and 2 hold Barons, 2 discarded more
    s = ll_state(hands={0: ["guard", "handmaid"], 1: ["baron"], 2: ["baron"]}, deck=[],
                 discards={1: ["guard"], 2: ["priest"]})
    ll_play(s, "play_handmaid")
    assert [var(s, "affection", p) for p in range(3)] == [0, 0, 1] and var(s, "starter") == 2
    # a tie of both: both win a token
    s = ll_state(hands={0: ["guard", "handmaid"], 1: ["baron"], 2: ["baron"]}, deck=[],
                 discards={1: ["priest"], 2: ["priest"]})
    ll_play(s, "play_handmaid")
    assert [var(s, "affection", p) for p in range(3)] == [0, 1, 1] and var(s, "starter") == 1


@pytest.mark.parametrize("players,goal", [(2, 7), (3, 5), (4, 4)])
def test_ll_tokens_to_win(players, goal):
    hands = {0: ["guard", "handmaid"], 1: ["priest"]} | ({p: ["guard"] for p in range(2, players)})
    s = ll_state(players=players, hands=hands, variables={("affection", 0): goal - 1, ("affection", 1): goal - 2})
    ll_play(s, "play_guard", q=1, guess="priest")
    if players == 2:
        assert s.is_terminal and s.winners == [0] and s.scores[0] == goal
    else:
        assert not s.is_terminal
    s = ll_state(players=players, hands=hands, variables={("affection", 0): goal - 2, ("affection", 1): goal - 2})
    ll_play(s, "play_guard", q=1, guess="priest")
    assert not s.is_terminal


# ------------------------------------------------------------- Love Letter: the outside referee

def ll_snapshot(s, players):
    top = zone(s, "deck")
    return {
        "hands": [[ll_name(s, c) for c in zone(s, "hand", p)] for p in range(players)],
        "in": [var(s, "still_in", p) for p in range(players)],
        "protected": [var(s, "protected", p) for p in range(players)],
        "discard_sum": [sum(face(s, c)["value"] for c in zone(s, "discards", p)) for p in range(players)],
        "deck_top": ll_name(s, top[-1]) if top else None,
        "deck_size": len(top),
        "aside": [ll_name(s, c) for c in zone(s, "aside")],
        "tokens": [var(s, "affection", p) for p in range(players)],
    }


def ll_effect(pre, actor, name, card, q, guess, players):
    """The rulebook's effect of one play, written out: the hands, who is in and why, the discard
    sums after it. Returns (post, reasons)."""
    hands = [list(h) for h in pre["hands"]]
    inside = list(pre["in"])
    sums = list(pre["discard_sum"])
    why = {}
    kind = card
    hands[actor].remove(kind)
    sums[actor] += LL_VALUE[kind]
    others = [p for p in range(players) if p != actor and inside[p] and not pre["protected"][p]]

    def out(p, reason):
        inside[p] = False
        sums[p] += sum(LL_VALUE[x] for x in hands[p])
        hands[p] = []
        why[p] = reason

    if "countess" in pre["hands"][actor] and any(x in pre["hands"][actor] for x in ("king", "prince")):
        assert kind == "countess", "the Countess must be played with the King or a Prince"
    if name == "play_idle":
        assert kind in LL_TARGETED and not others, "without effect only when nobody can be chosen"
    elif kind in LL_TARGETED:
        assert q in others, "a card chooses a player in the round and not protected"
    if name == "play_guard":
        assert guess != "guard"
        if hands[q] == [guess]:
            out(q, "guard")
    elif name == "play_baron":
        mine, theirs = LL_VALUE[hands[actor][0]], LL_VALUE[hands[q][0]]
        if mine < theirs:
            out(actor, "baron")
        elif theirs < mine:
            out(q, "baron")
    elif name == "play_prince":
        assert q == actor or q in others
        lost = hands[q]
        sums[q] += sum(LL_VALUE[x] for x in lost)
        hands[q] = []
        if "princess" in lost:
            inside[q] = False
            why[q] = "prince"
        elif pre["deck_size"]:
            hands[q] = [pre["deck_top"]]
        else:
            hands[q] = list(pre["aside"])
    elif name == "play_king":
        hands[actor], hands[q] = hands[q], hands[actor]
    elif name == "play_princess":
        out(actor, "princess")
    return {"hands": hands, "in": inside, "discard_sum": sums}, why


def ll_round_winners(post, players):
    left = [p for p in range(players) if post["in"][p]]
    if len(left) == 1:
        return left
    best = max(LL_VALUE[post["hands"][p][0]] for p in left)
    tied = [p for p in left if LL_VALUE[post["hands"][p][0]] == best]
    top = max(post["discard_sum"][p] for p in tied)
    return [p for p in tied if post["discard_sum"][p] == top]


def ll_check(games, seed0):
    """Random games; every play is checked against the referee's effect (hands, who is out and why),
    every round's tokens against its winners. Returns the counts of outs by reason."""
    rng = random.Random(seed0)
    reasons = collections.Counter()
    rounds = 0
    for i in range(games):
        players = 2 + (seed0 + i) % 3
        goal = {2: 7, 3: 5, 4: 4}[players]
        s = LL.new_game(players=players, seed=seed0 + i)
        while not s.is_terminal:
            pre = ll_snapshot(s, players)
            actor = s.current_player
            assert pre["in"][actor] and len(pre["hands"][actor]) == 2
            a = rng.choice(s.legal_actions())
            card = ll_name(s, a.bind["card"])
            post, why = ll_effect(pre, actor, a.name, card, a.bind.get("q"), a.bind.get("guess"), players)
            if a.name == "play_priest":
                seen = s.clone()
                seen.apply(a)
                q = a.bind["q"]
                if ll_snapshot(seen, players)["tokens"] == pre["tokens"]:
                    shown = [c["name"] for c in seen.observation(actor)["zones"][f"hand[{q}]"]["cards"] if c]
                    assert post["hands"][q][0] in shown
            s.apply(a)
            got = ll_snapshot(s, players)
            left = sum(post["in"])
            drew_from_deck = a.name == "play_prince" and post["in"][a.bind["q"]] and pre["deck_size"] > 0
            if got["tokens"] != pre["tokens"]:
                # the round ended: one left, or the deck ran out at the end of this turn
                assert left <= 1 or pre["deck_size"] - drew_from_deck == 0
                rounds += 1
                won = ll_round_winners(post, players)
                assert [got["tokens"][p] - pre["tokens"][p] for p in range(players)] == \
                    [1 if p in won else 0 for p in range(players)]
                if s.is_terminal:
                    assert max(got["tokens"]) >= goal and s.winners == [p for p in range(players)
                                                                        if got["tokens"][p] == max(got["tokens"])]
                else:
                    assert max(got["tokens"]) < goal and s.current_player == won[0]
                continue
            assert got["in"] == post["in"], (a, pre, post, got)
            reasons.update(why.values())
            # the next player still in the round, clockwise, has drawn one card
            nxt = s.current_player
            assert nxt == next(p for p in list(range(actor + 1, players)) + list(range(actor + 1))
                               if post["in"][p])
            assert got["deck_size"] == pre["deck_size"] - drew_from_deck - 1
            for p in range(players):
                extra = collections.Counter(got["hands"][p]) - collections.Counter(post["hands"][p])
                assert collections.Counter(post["hands"][p]) <= collections.Counter(got["hands"][p])
                assert sum(extra.values()) == (1 if p == nxt else 0), (p, nxt, post, got)
    return reasons, rounds


def test_ll_outside_referee_matches_the_engine():
    """A plain-Python referee of each card's effect (who is out and why, hands, draws) and of each
    round's winners, over every play of random games."""
    reasons, rounds = ll_check(80, 300)
    assert rounds >= 500
    assert set(reasons) == {"guard", "baron", "prince", "princess"}


@pytest.mark.slow
def test_ll_outside_referee_many_games():
    reasons, rounds = ll_check(400, 7000)
    assert rounds >= 2000


# ============================================================================= Coup

CP = load("coup")
ROLES = ("duke", "assassin", "captain", "ambassador", "contessa")


def role(s, c):
    return face(s, c)["role"]


def cp_hand(s, p):
    return sorted(role(s, c) for c in zone(s, "hand", p))


def cp_lost(s, p):
    return sorted(role(s, c) for c in zone(s, "lost", p))


def coins(s, players):
    return [var(s, "purse", p) for p in range(players)]


def cp_state(players=3, hands=None, lost=None, coins_=None, court_top=(), seed=0):
    """A state at seat 0's action: hands and lost {p: [roles]}, coins per seat (the treasury holds
    the rest of the 50), the court's top cards (topmost first) over the rest, shuffled."""
    s = CP.new_game(players=players, seed=seed)
    pool = collections.defaultdict(list)
    for c in range(s.rs.ncards):
        pool[role(s, c)].append(c)
    layout = {}
    for p, rs_ in (hands or {}).items():
        layout[("hand", p)] = [pool[r].pop() for r in rs_]
    for p, rs_ in (lost or {}).items():
        layout[("lost", p)] = [pool[r].pop() for r in rs_]
    top = [pool[r].pop() for r in court_top]
    rest = [c for r in sorted(pool) for c in pool[r]]
    random.Random(seed).shuffle(rest)
    layout[("court", 0)] = rest + list(reversed(top))
    layout["rest"] = "court"
    cs = coins_ or [2] * players
    variables = {("purse", p): n for p, n in enumerate(cs)}
    variables[("treasury", 0)] = 50 - sum(cs)
    return arrange(CP, s, layout, variables)


def cp_do(s, name, **want):
    """Apply the current decider's action `name` whose parameters match (q; card by role; cards by
    sorted roles)."""
    for a in s.legal_actions():
        if a.name != name:
            continue
        got = {}
        for k, v in a.bind.items():
            got[k] = role(s, v) if k == "card" else sorted(role(s, c) for c in v) if k == "cards" else v
        if all(got.get(k) == v for k, v in want.items()):
            s.apply(a)
            return s
    raise AssertionError(f"no {name} {want}: {[a.to_json() for a in s.legal_actions()]}")


def skip(s, times=1):
    for _ in range(times):
        cp_do(s, "skip")
    return s


def test_cp_setup():
    s = CP.new_game(players=4, seed=1)
    assert collections.Counter(role(s, c) for c in range(s.rs.ncards)) == {r: 3 for r in ROLES}
    assert [len(zone(s, "hand", p)) for p in range(4)] == [2] * 4 and len(zone(s, "court")) == 7
    assert coins(s, 4) == [2] * 4 and var(s, "treasury") == 42
    s2 = CP.new_game(players=2, seed=1)
    assert coins(s2, 2) == [1, 2] and var(s2, "treasury") == 47            # the first player takes 1


def test_cp_income_and_unchallenged_tax():
    s = cp_state(hands={0: ["contessa", "captain"], 1: ["duke", "duke"], 2: ["assassin", "assassin"]})
    cp_do(s, "income")
    assert coins(s, 3) == [3, 2, 2] and s.current_player == 1               # no challenge of income
    cp_do(s, "tax")
    assert s.current_player == 2 and names(s) == ["challenge", "skip"]      # others, from the left
    skip(s, 2)
    assert coins(s, 3) == [3, 5, 2] and s.current_player == 2 and var(s, "treasury") == 40


def test_cp_a_challenge_won_by_the_claimant_shuffles_the_card_back_and_draws():
    s = cp_state(hands={0: ["duke", "captain"], 1: ["contessa", "contessa"], 2: ["assassin", "assassin"]},
                 court_top=["ambassador"])
    cp_do(s, "tax")
    cp_do(s, "challenge")                                                   # seat 1
    assert s.current_player == 0 and names(s) == ["concede", "prove"]
    cp_do(s, "prove", card="duke")
    # everyone saw the Duke; seat 0 keeps two cards, the Duke went back to a shuffled court
    assert s.observation(2)["history"][-1]["card"]["role"] == "duke"           # shown to everyone
    assert s.observation(2)["zones"]["hand[0]"]["cards"] == []                  # the new card is not
    assert len(zone(s, "hand", 0)) == 2 and "captain" in cp_hand(s, 0)
    assert s.current_player == 1 and names(s) == ["lose_influence"]         # the challenger loses
    cp_do(s, "lose_influence", card="contessa")
    assert cp_lost(s, 1) == ["contessa"] and coins(s, 3) == [5, 2, 2]       # the tax still happens
    assert collections.Counter(role(s, c) for c in zone(s, "court")).total() == 15 - 6


def test_cp_a_bluff_called_loses_the_influence_and_the_action():
    s = cp_state(hands={0: ["contessa", "captain"], 1: ["duke", "duke"], 2: ["assassin", "assassin"]},
                 coins_=[4, 2, 2])
    cp_do(s, "assassinate", q=2)
    assert coins(s, 3) == [1, 2, 2]                                         # paid when declared
    skip(s)
    cp_do(s, "challenge")                                                   # seat 2
    assert names(s) == ["concede"]                                          # no Assassin to show
    cp_do(s, "concede")
    assert s.current_player == 0
    cp_do(s, "lose_influence", card="captain")
    # the action fails and its coins come back; the target keeps both cards
    assert coins(s, 3) == [4, 2, 2] and cp_hand(s, 2) == ["assassin", "assassin"]
    assert s.current_player == 1 and var(s, "treasury") == 42


def test_cp_foreign_aid_blocked_by_a_duke_and_the_block_challenged():
    s = cp_state(hands={0: ["contessa", "captain"], 1: ["duke", "captain"], 2: ["assassin", "assassin"]})
    cp_do(s, "foreign_aid")
    assert names(s) == ["block_duke", "skip"]                               # any other player may block
    cp_do(s, "block_duke")                                                  # seat 1
    assert s.current_player == 2 and names(s) == ["challenge_block", "skip"]
    skip(s)
    cp_do(s, "challenge_block")                                             # seat 0 doubts it
    cp_do(s, "prove", card="duke")
    cp_do(s, "lose_influence", card="captain")                              # seat 0 loses
    assert coins(s, 3) == [2, 2, 2] and cp_lost(s, 0) == ["captain"]        # blocked
    # a bluffed block, challenged: the foreign aid goes through
    s = cp_state(hands={0: ["contessa", "captain"], 1: ["ambassador", "captain"], 2: ["assassin", "assassin"]})
    cp_do(s, "foreign_aid")
    skip(s)
    cp_do(s, "block_duke")                                                  # seat 2 bluffs
    cp_do(s, "challenge_block")                                             # seat 0
    cp_do(s, "concede")
    cp_do(s, "lose_influence", card="assassin")
    assert coins(s, 3) == [4, 2, 2] and cp_lost(s, 2) == ["assassin"]


def test_cp_steal_and_its_blocks():
    s = cp_state(hands={0: ["contessa", "captain"], 1: ["duke", "ambassador"], 2: ["assassin", "assassin"]},
                 coins_=[2, 1, 5])
    cp_do(s, "steal", q=1)
    skip(s, 2)                                                              # no challenge
    assert s.current_player == 1 and names(s) == ["block_ambassador", "block_captain", "skip"]
    skip(s)                                                                 # allowed: only 1 coin to take
    assert coins(s, 3) == [3, 0, 5]
    s = cp_state(hands={0: ["contessa", "captain"], 1: ["duke", "ambassador"], 2: ["assassin", "assassin"]})
    cp_do(s, "steal", q=2)
    skip(s, 2)
    assert s.current_player == 2                                            # only the target may block
    cp_do(s, "block_ambassador")
    skip(s, 2)                                                              # nobody doubts it
    assert coins(s, 3) == [2, 2, 2] and s.current_player == 1


def test_cp_assassination_blocked_by_the_contessa_keeps_the_coins_spent():
    s = cp_state(hands={0: ["assassin", "captain"], 1: ["duke", "ambassador"], 2: ["contessa", "duke"]},
                 coins_=[3, 2, 2])
    cp_do(s, "assassinate", q=2)
    skip(s, 2)
    cp_do(s, "block_contessa")
    skip(s, 2)
    assert coins(s, 3) == [0, 2, 2] and cp_hand(s, 2) == ["contessa", "duke"] and s.current_player == 1


def test_cp_double_loss_a_bluffed_contessa_challenged():
    s = cp_state(hands={0: ["assassin", "captain"], 1: ["duke", "ambassador"], 2: ["duke", "captain"]},
                 coins_=[3, 2, 2])
    cp_do(s, "assassinate", q=2)
    skip(s, 2)
    cp_do(s, "block_contessa")
    cp_do(s, "challenge_block")                                             # seat 0
    cp_do(s, "concede")
    cp_do(s, "lose_influence", card="duke")                                 # for the challenge
    cp_do(s, "lose_influence", card="captain")                              # for the assassination
    assert cp_hand(s, 2) == [] and cp_lost(s, 2) == ["captain", "duke"]
    assert s.current_player == 1                                            # seat 2 is out


def test_cp_coup_costs_seven_and_is_forced_at_ten():
    s = cp_state(hands={0: ["assassin", "captain"], 1: ["duke", "ambassador"], 2: ["duke", "captain"]},
                 coins_=[10, 7, 2])
    assert names(s) == ["coup"]
    cp_do(s, "coup", q=1)
    assert s.current_player == 1 and names(s) == ["lose_influence"]         # no challenge, no block
    cp_do(s, "lose_influence", card="duke")
    assert coins(s, 3) == [3, 7, 2] and var(s, "treasury") == 38
    assert "coup" in names(s) and "income" in names(s)                      # 7 coins: may, need not


def test_cp_exchange_draws_two_and_returns_two():
    s = cp_state(hands={0: ["contessa", "captain"], 1: ["duke", "ambassador"], 2: ["duke", "captain"]},
                 court_top=["assassin", "duke"])
    cp_do(s, "exchange")
    skip(s, 2)
    assert names(s) == ["return_two"] and cp_hand(s, 0) == ["assassin", "captain", "contessa", "duke"]
    cp_do(s, "return_two", cards=["captain", "contessa"])
    assert cp_hand(s, 0) == ["assassin", "duke"] and len(zone(s, "court")) == 15 - 6
    assert not any(s.observation(1)["zones"]["hand[0]"]["cards"])           # nobody else sees the hand


def test_cp_the_last_player_with_influence_wins():
    s = cp_state(hands={0: ["assassin", "captain"], 1: ["duke"]}, lost={1: ["duke"], 2: ["captain", "captain"]},
                 coins_=[7, 2, 0])
    cp_do(s, "coup", q=1)
    cp_do(s, "lose_influence", card="duke")
    assert s.is_terminal and s.winners == [0]


# ------------------------------------------------------------- Coup: the outside referee

CP_MAIN = {"income", "foreign_aid", "coup", "tax", "assassinate", "steal", "exchange"}
CP_CLAIM = {"tax": "duke", "assassinate": "assassin", "steal": "captain", "exchange": "ambassador"}
CP_BLOCK = {"block_duke": "duke", "block_contessa": "contessa", "block_captain": "captain",
            "block_ambassador": "ambassador"}


def cp_conserved(s, players, exchanging=False):
    """Coins: the players' and the treasury's always add up to 50; cards: 15, 3 of each role, each
    in the court, a hand, a lost pile; two per player between hand and lost but mid-exchange."""
    assert sum(coins(s, players)) + var(s, "treasury") == 50
    assert min(coins(s, players)) >= 0 and var(s, "treasury") >= 0
    where = [c for name in ("court", "shown") for c in zone(s, name)]
    for p in range(players):
        where += zone(s, "hand", p) + zone(s, "lost", p)
        n = len(zone(s, "hand", p)) + len(zone(s, "lost", p))
        assert n == 2 or (exchanging and n == 4)
    assert sorted(where) == list(range(15)) and zone(s, "shown") == []
    assert collections.Counter(role(s, c) for c in where) == {r: 3 for r in ROLES}


def cp_turn_coins(turn, start, treasury):
    """The coins each player should hold after a turn, from its decisions (name, player, bind-ish
    dict with q, proved flags), the rulebook's actions written out."""
    want = list(start)
    (name, actor, q), rest = turn[0], turn[1:]
    kinds = [d[0] for d in rest]
    claim_lost = "challenge" in kinds and "concede" in kinds[:kinds.index("challenge") + 2]
    block = next((k for k in kinds if k in CP_BLOCK), None)
    failed = claim_lost
    if block and not failed:
        i = kinds.index(block)
        after = kinds[i + 1:]
        doubted = "challenge_block" in after
        failed = not doubted or after[after.index("challenge_block") + 1] == "prove"

    def take(p, n):
        nonlocal treasury
        got = min(n, treasury)
        treasury -= got
        want[p] += got

    if name == "income":
        take(actor, 1)
    elif name == "coup":
        want[actor] -= 7
        treasury += 7
    elif name == "assassinate" and not claim_lost:
        want[actor] -= 3
        treasury += 3
    elif failed:
        pass
    elif name == "foreign_aid":
        take(actor, 2)
    elif name == "tax":
        take(actor, 3)
    elif name == "steal":
        got = min(2, want[q])
        want[q] -= got
        want[actor] += got
    return want


def cp_check(games, seed0):
    rng = random.Random(seed0)
    seen = collections.Counter()
    for i in range(games):
        players = 2 + (seed0 + i) % 5
        s = CP.new_game(players=players, seed=seed0 + i)
        cp_conserved(s, players)
        turn, start, treasury = None, None, None
        challenger = None
        pending_loss = None
        while not s.is_terminal:
            p = s.current_player
            legal = s.legal_actions()
            a = rng.choice(legal)
            lost_before = [len(zone(s, "lost", x)) for x in range(players)]
            if a.name in CP_MAIN:
                if turn:
                    assert coins(s, players) == cp_turn_coins(turn, start, treasury), turn
                turn, start, treasury = [], coins(s, players), var(s, "treasury")
                if start[p] >= 10:
                    assert {x.name for x in legal} == {"coup"}              # forced at 10 coins
            if a.name in ("challenge", "challenge_block"):
                challenger = p
            if a.name in ("prove", "concede"):
                claimed = var(s, "proving")
                held = claimed in cp_hand(s, p)
                # a claimant may show the card only if they hold it; the loser follows what is shown
                assert any(x.name == "prove" for x in legal) == held
                if a.name == "prove":
                    assert role(s, a.bind["card"]) == claimed
                    seen["proved"] += 1
                else:
                    seen["bluff called" if not held else "conceded holding it"] += 1
                pending_loss = challenger if a.name == "prove" else p
                hand_before = len(zone(s, "hand", p))
            turn.append((a.name, p, a.bind.get("q")))
            s.apply(a)
            cp_conserved(s, players, exchanging=names(s) == ["return_two"])
            if a.name == "prove":
                assert len(zone(s, "hand", p)) == hand_before         # shuffled back, a new one drawn
            if a.name in ("prove", "concede"):
                # the next decision is the loser turning up a card
                assert s.current_player == pending_loss and names(s) == ["lose_influence"]
            if a.name == "lose_influence":
                lost_after = [len(zone(s, "lost", x)) for x in range(players)]
                assert [y - x for x, y in zip(lost_before, lost_after)] == [int(x == p) for x in range(players)]
        assert coins(s, players) == cp_turn_coins(turn, start, treasury)
        alive = [x for x in range(players) if zone(s, "hand", x)]
        assert len(alive) == 1 and s.winners == alive
    return seen


def test_cp_outside_referee_matches_the_engine():
    """Coins and cards conserved at every decision; every challenge's loser follows the card shown
    (or not shown); every turn's coins follow its action, challenges and blocks."""
    seen = cp_check(120, 900)
    assert seen["proved"] >= 50 and seen["bluff called"] >= 50 and seen["conceded holding it"] >= 10


@pytest.mark.slow
def test_cp_outside_referee_many_games():
    cp_check(1500, 20000)


@pytest.mark.parametrize("gid,log,scores,winners,decisions", [
    ("love_letter", "love_letter-4.jsonl", [7, 4], [0], 62),
    ("love_letter", "love_letter-5.jsonl", [1, 1, 4, 0], [2], 54),
    ("coup", "coup-6.jsonl", [2, 0, 0], [0], 29),
    ("coup", "coup-9.jsonl", [0, 0, 0, 0, 0, 1], [5], 62),
])
def test_ll_cp_golden_logs(capsys, gid, log, scores, winners, decisions):
    out = replay(capsys, log, gid)
    assert out["ok"] and out["scores"] == scores and out["winners"] == winners
    assert out["decisions"] == decisions
