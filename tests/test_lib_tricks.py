"""Library games of issue 40, trick-taking: Hearts (games/hearts.yaml), Spades (games/spades.yaml) and
Oh Hell (games/oh_hell.yaml). Each important rule is pinned by a test that fails if it is broken.
The check against something outside the project: plain-Python referees and scorers written here (no
engine code) re-derive, over many random hands, every trick's winner, every hand's points (Hearts:
26 a hand, or 78 for the others when one shoots the moon) and every partnership's round score
(Spades: bids, nil, blind nil, bags), and compare with what the engine recorded. The golden logs in
tests/golden/ replay to the results recorded when they were written."""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from gamespec.cli import main

from helpers import arrange, cards_where, load, var
from helpers import face as card_face
from helpers import set_var as set_var_only
from helpers import zone as live_zone

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden"
SUITS = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
RANKS = {"J": 11, "Q": 12, "K": 13, "A": 14}


HEARTS, SPADES, OH_HELL = load("hearts"), load("spades"), load("oh_hell")


# ----------------------------------------------------------------------------- helpers

def face(s, c):
    """A card's (rank, suit)."""
    f = card_face(s, c)
    return f["rank"], f["suit"]


def parse(text):
    """'QS' -> (12, 'spades'); '10H' -> (10, 'hearts')."""
    r, su = text[:-1], text[-1]
    return RANKS.get(r) or int(r), SUITS[su]


def card_id(s, text):
    rank, suit = parse(text)
    return cards_where(s, rank=rank, suit=suit)[0]


def zone(s, name, key=None):
    """A copy of a zone's card ids (a family member by its key), bottom to top."""
    return list(live_zone(s, name, key))


def set_var(s, name, value, p=0):
    """Set a variable and forget the legal actions worked out before (helpers.set_var keeps them)."""
    set_var_only(s, name, value, p)
    s._legal = None
    s._index = None


def before_last_trick(game, seed0, players=4, **options):
    """A state of the first hand just before its last trick, seat 0 to lead it (random legal play
    from the first seed that gets there)."""
    for seed in range(seed0, seed0 + 200):
        s = game.new_game(players=players, seed=seed, options=options)
        rng = random.Random(seed)
        while True:
            if s.legal_actions()[0].name == "play" and not zone(s, "trick") and \
                    all(len(zone(s, "hand", p)) == 1 for p in range(players)):
                break
            s.apply(rng.choice(s.legal_actions()))
        if s.current_player == 0:
            return s
    raise AssertionError("no seed reaches the last trick with seat 0 to lead")


def faces_of(s, name, key=None):
    return sorted(face(s, c) for c in zone(s, name, key))


def legal_cards(s):
    return sorted(face(s, a.bind["card"]) for a in s.legal_actions() if a.name == "play")


def play(s, text):
    c = card_id(s, text)
    [a] = [a for a in s.legal_actions() if a.name == "play" and a.bind["card"] == c]
    s.apply(a)


def full_hands(s, given, avoid=None, size=13):
    """Hands for every seat: the given cards, the rest of the pack dealt in order to the seats
    short of `size` cards, skipping the suits a seat must not hold (avoid: {seat: 'HC'})."""
    hands = {p: [card_id(s, t) for t in given.get(p, [])] for p in range(4)}
    used = {c for cs in hands.values() for c in cs}
    rest = [c for c in range(s.rs.ncards) if c not in used]
    avoid = avoid or {}
    for p in sorted(range(4), key=lambda p: p not in avoid):     # the seats that avoid suits first
        bad = {SUITS[x] for x in avoid.get(p, "")}
        for c in list(rest):
            if len(hands[p]) < size and face(s, c)[1] not in bad:
                hands[p].append(c)
                rest.remove(c)
    assert all(len(h) == size for h in hands.values()), "the layout cannot be filled"
    return hands


def layout(s, place, rest):
    """Every card where `place` says ({(zone, key): [ids]}), all the others in the zone `rest`."""
    used = {c for cs in place.values() for c in cs}
    arrange(s, {**place, rest: [c for c in range(s.rs.ncards) if c not in used]})


def replay(capsys, log, gid):
    assert main(["replay", str(GOLDEN / log), "--spec", str(ROOT / "games" / f"{gid}.yaml"), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def plain_winner(trick, trump=None):
    """The seat that wins a trick [(seat, (rank, suit)), ...] in play order: the highest trump, else
    the highest card of the suit led."""
    led = trick[0][1][1]

    def strength(card):
        rank, suit = card
        return rank + (200 if suit == trump else 100 if suit == led else 0)
    return max(trick, key=lambda pc: strength(pc[1]))[0]


# ============================================================================= Hearts

def hearts_in_play(given, avoid=None, seed=0, **options):
    """A Hearts state at the first trick of hand 1, after the pass: the leader (seat L, the holder of
    the two of clubs) has led it. `given` names cards by seat counted from L (0 = L) and must give L
    the two of clubs; the rest of the pack fills the hands."""
    s = HEARTS.new_game(players=4, seed=seed, options=options)
    while s.legal_actions()[0].name == "pass_card":
        s.apply(s.legal_actions()[0])
    lead = var(s, "to_lead")
    hands = full_hands(s, {(lead + k) % 4: v for k, v in given.items()},
                       {(lead + k) % 4: v for k, v in (avoid or {}).items()})
    two = card_id(s, "2C")
    assert two in hands[lead]
    hands[lead].remove(two)
    arrange(s, {**{("hand", p): hands[p] for p in range(4)}, "trick": [two]}, rest=("deck",))
    s._legal = None
    return s, lead


def test_hearts_deal_and_the_passing_cycle():
    s = HEARTS.new_game(players=4, seed=3)
    assert all(len(zone(s, "hand", p)) == 13 for p in range(4))
    offsets = []
    for _hand in range(5):
        passed = {}
        while s.legal_actions()[0].name == "pass_card":
            p = s.current_player
            a = s.legal_actions()[0]
            passed.setdefault(p, []).append(a.bind["card"])
            s.apply(a)
        if passed:
            assert all(len(v) == 3 for v in passed.values()) and len(passed) == 4
            # each seat's three cards are in one other seat's hand, the same offset for all
            where = {p: {q for q in range(4) for c in cs if c in zone(s, "hand", q)} for p, cs in passed.items()}
            assert all(len(v) == 1 for v in where.values())
            offs = {(next(iter(v)) - p) % 4 for p, v in where.items()}
            assert len(offs) == 1
            offsets.append(offs.pop())
        else:
            offsets.append(0)
        # the holder of the two of clubs has led it
        assert [face(s, c) for c in zone(s, "trick")] == [(2, "clubs")]
        assert s.current_player == (var(s, "to_lead") + 1) % 4
        rng = random.Random(_hand)
        hand_no = var(s, "hand_no")
        while var(s, "hand_no") == hand_no:
            s.apply(rng.choice(s.legal_actions()))
        if s.is_terminal:
            break
    # left, right, across, hold, then left again
    assert offsets == [1, 3, 2, 0, 1]


def test_hearts_a_passer_knows_the_cards_passed_and_the_others_do_not():
    s = HEARTS.new_game(players=4, seed=4)
    chosen = []
    for _ in range(12):
        a = s.legal_actions()[0]
        if s.current_player == 0:
            chosen.append(face(s, a.bind["card"]))
        s.apply(a)
    # seat 1 received seat 0's three cards (a left pass); seat 0 still knows them, seat 2 does not
    hand1 = s.observation(0)["zones"]["hand[1]"]["cards"]
    seen0 = sorted((c["rank"], c["suit"]) for c in hand1 if c)
    assert seen0 == sorted(chosen)
    assert not any(s.observation(2)["zones"]["hand[1]"]["cards"])


def test_hearts_follow_suit_and_no_points_on_the_first_trick():
    # seat 1 holds clubs: must follow; seat 2 has no clubs: may not discard a heart or the queen
    s, lead = hearts_in_play({0: ["2C"], 1: ["5C", "9C", "QS", "AH"], 2: ["KS", "2H", "3D"]}, avoid={2: "C"})
    assert s.current_player == (lead + 1) % 4
    assert all(suit == "clubs" for _, suit in legal_cards(s))
    play(s, "9C")
    cards = legal_cards(s)
    assert (13, "spades") in cards and (3, "diamonds") in cards
    assert not any(suit == "hearts" for _, suit in cards)


def test_hearts_first_trick_points_allowed_with_nothing_else():
    # seat 1 holds only hearts and the queen of spades: anything goes on the first trick
    given = {0: ["2C"], 1: ["QS"] + [f"{r}H" for r in range(2, 14)]}
    s, lead = hearts_in_play(given)
    assert legal_cards(s) == sorted(parse(t) for t in given[1])


def finish_trick(s, rng=None):
    while len(zone(s, "trick")):
        s.apply((rng or random.Random(0)).choice(s.legal_actions()))


def test_hearts_are_not_led_until_broken():
    s, lead = hearts_in_play({0: ["2C", "AC", "5H", "6H"], 1: ["3C"], 2: ["4C"], 3: ["5C"]})
    for t in ("3C", "4C", "5C"):
        play(s, t)
    assert s.current_player == (lead + 3) % 4          # the five of clubs won
    s2, lead2 = hearts_in_play({0: ["2C", "3C", "5H", "6H"], 1: ["AC"], 2: ["4C"], 3: ["5C"]})
    for t in ("AC", "4C", "5C"):
        play(s2, t)
    assert s2.current_player == (lead2 + 1) % 4
    assert not any(suit == "hearts" for _, suit in legal_cards(s2)) and var(s2, "hearts_broken") is False
    # once a heart has been discarded, hearts may be led
    set_var(s2, "hearts_broken", True)
    assert any(suit == "hearts" for _, suit in legal_cards(s2))


def test_hearts_may_be_led_from_a_hand_of_hearts_only():
    hearts = [f"{r}H" for r in range(2, 14)]
    s, lead = hearts_in_play({0: ["2C"], 1: ["AC"] + hearts, 2: ["3C"], 3: ["4C"]})
    for t in ("AC", "3C", "4C"):
        play(s, t)
    assert s.current_player == (lead + 1) % 4 and var(s, "hearts_broken") is False
    assert legal_cards(s) == sorted(parse(t) for t in hearts)


@pytest.mark.parametrize("breaks", [False, True])
def test_hearts_the_queen_of_spades_breaks_hearts_only_with_the_option(breaks):
    s, lead = hearts_in_play({0: ["2C", "5H"], 1: ["AC", "AD"], 2: ["3C", "3D"], 3: ["4C", "KS", "QS"]},
                             avoid={3: "D"}, queen_breaks_hearts=breaks)
    for t in ("AC", "3C", "4C", "AD", "3D"):
        play(s, t)
    assert (12, "spades") in legal_cards(s)          # void in diamonds on the second trick
    play(s, "QS")
    assert var(s, "hearts_broken") is breaks


def hearts_last_trick(taken, last, **options):
    """A Hearts state before the last trick of a hand, seat 0 to lead: `taken` {seat: [cards]} the
    tricks already taken (the rest of the pack goes to seat 3's), `last` {seat: card} the last card
    of each hand."""
    s = before_last_trick(HEARTS, 0, **options)
    place = {("hand", p): [card_id(s, last[p])] for p in range(4)}
    place.update({("taken", p): [card_id(s, t) for t in taken.get(p, [])] for p in range(3)})
    used = {c for cs in place.values() for c in cs}
    place[("taken", 3)] = [c for c in range(s.rs.ncards) if c not in used]
    arrange(s, place)
    set_var(s, "hearts_broken", True)
    return s


def score_last_trick(s):
    for p in range(4):
        assert s.current_player == p
        s.apply(s.legal_actions()[0])
    return [var(s, "hand_points", p) for p in range(4)], [var(s, "points", p) for p in range(4)]


def test_hearts_each_heart_is_one_point_and_the_queen_thirteen():
    hearts = [f"{r}H" for r in range(2, 15)]
    s = hearts_last_trick({0: hearts[:5], 1: hearts[5:8] + ["QS"], 2: hearts[8:12]},
                          {0: "AD", 1: "2D", 2: "3D", 3: "AH"})
    hand, total = score_last_trick(s)
    # seat 0 takes the last trick (ace of diamonds led), with the ace of hearts
    assert hand == [6, 16, 4, 0] and total == hand and sum(hand) == 26


def test_hearts_shooting_the_moon():
    hearts = [f"{r}H" for r in range(2, 14)]
    s = hearts_last_trick({2: hearts + ["QS"]}, {0: "AD", 1: "2D", 2: "AH", 3: "3D"})
    hand, _ = score_last_trick(s)
    # seat 2 discards the ace of hearts onto seat 0's trick: no moon, 25 + 1
    assert hand == [1, 0, 25, 0]
    s = hearts_last_trick({0: hearts + ["QS"]}, {0: "AH", 1: "2D", 2: "3D", 3: "4D"})
    hand, total = score_last_trick(s)
    assert hand == [0, 26, 26, 26] and total == hand


def test_hearts_omnibus_jack_of_diamonds():
    hearts = [f"{r}H" for r in range(2, 15)]
    s = hearts_last_trick({1: hearts + ["QS"]}, {0: "AD", 1: "2D", 2: "JD", 3: "3D"}, jack_of_diamonds=True)
    hand, _ = score_last_trick(s)
    # seat 1 shot the moon; seat 0 took the jack of diamonds
    assert hand == [16, 0, 26, 26]
    s = hearts_last_trick({1: ["QS"]}, {0: "AD", 1: "2D", 2: "JD", 3: "3D"}, jack_of_diamonds=True)
    hand, _ = score_last_trick(s)
    assert hand == [-10, 13, 0, 13]           # seat 3's tricks hold the hearts (the rest of the pack)


def test_hearts_the_game_ends_at_100_and_the_lowest_score_wins():
    hearts = [f"{r}H" for r in range(2, 15)]
    s = hearts_last_trick({1: ["QS"], 2: hearts}, {0: "AD", 1: "2D", 2: "3D", 3: "4D"})
    for p, v in enumerate([99, 40, 60, 30]):
        set_var(s, "points", v, p)
    score_last_trick(s)                       # 99 is not 100: a new hand
    assert not s.is_terminal and [var(s, "points", p) for p in range(4)] == [99, 53, 73, 30]
    s = hearts_last_trick({1: ["QS"], 2: hearts}, {0: "AD", 1: "2D", 2: "3D", 3: "4D"})
    for p, v in enumerate([99, 88, 60, 30]):
        set_var(s, "points", v, p)
    score_last_trick(s)
    assert s.is_terminal and s.scores == [99, 101, 73, 30] and s.winners == [3]
    s = hearts_last_trick({0: ["QS"] + hearts[:-1]}, {0: "AH", 1: "2D", 2: "3D", 3: "4D"})
    for p, v in enumerate([90, 40, 60, 30]):
        set_var(s, "points", v, p)
    score_last_trick(s)                       # seat 0 shoots the moon
    assert not s.is_terminal and [var(s, "points", p) for p in range(4)] == [90, 66, 86, 56]


# --- the outside check: a plain referee and scorer over random hands

def hearts_plain_legal(hand, trick, broken, first):
    if not trick:
        if first:
            return [(2, "clubs")]
        return [c for c in hand if c[1] != "hearts" or broken or all(x[1] == "hearts" for x in hand)]
    led = trick[0][1][1]
    follow = [c for c in hand if c[1] == led]
    if follow:
        return follow
    if first:
        safe = [c for c in hand if c[1] != "hearts" and c != (12, "spades")]
        return safe or list(hand)
    return list(hand)


def hearts_plain_points(tricks, jack=False):
    """Each seat's points for a hand from its 13 tricks, moon included."""
    took = {p: [] for p in range(4)}
    for t in tricks:
        took[plain_winner(t)].extend(c for _, c in t)
    return hearts_plain_points_of(took, jack)


def hearts_plain_points_of(took, jack=False):
    """Each seat's points from the cards it took: 1 a heart, 13 the queen of spades; one seat with
    all 26 scores 0 and the others 26; the jack of diamonds -10 (Omnibus)."""
    pts = {p: sum(1 for c in cs if c[1] == "hearts") + (13 if (12, "spades") in cs else 0) for p, cs in took.items()}
    moon = [p for p, v in pts.items() if v == 26]
    if moon:
        pts = {p: (0 if p == moon[0] else 26) for p in pts}
    if jack:
        for p, cs in took.items():
            pts[p] -= 10 if (11, "diamonds") in cs else 0
    return [pts[p] for p in range(4)]


def hearts_random_hands(hands_wanted, seed0, **options):
    """Random games until `hands_wanted` hands are played: each hand's plays are refereed and
    scored by the plain rules, and compared with the engine. Returns (hands, moons)."""
    done = moons = 0
    seed = seed0
    while done < hands_wanted:
        s = HEARTS.new_game(players=4, seed=seed, options=options)
        rng = random.Random(seed)
        seed += 1
        while not s.is_terminal:
            tricks, cur, broken = [], [], False
            hand_no, before = var(s, "hand_no"), [var(s, "points", p) for p in range(4)]
            while s.legal_actions()[0].name == "pass_card":
                s.apply(rng.choice(s.legal_actions()))
            lead = var(s, "to_lead")
            cur.append((lead, (2, "clubs")))
            while var(s, "hand_no") == hand_no:
                p = s.current_player
                hand = [face(s, c) for c in zone(s, "hand", p)]
                assert legal_cards(s) == sorted(hearts_plain_legal(hand, cur, broken, not tricks))
                a = rng.choice(s.legal_actions())
                card = face(s, a.bind["card"])
                cur.append((p, card))
                broken = broken or card[1] == "hearts" or (options.get("queen_breaks_hearts") and card == (12, "spades"))
                if len(cur) == 4:
                    tricks.append(cur)
                    nxt = plain_winner(cur)
                    cur = []
                s.apply(a)
                if len(cur) == 0 and var(s, "hand_no") == hand_no:
                    assert s.current_player == nxt                     # the winner leads
            pts = hearts_plain_points(tricks, options.get("jack_of_diamonds", False))
            engine = [var(s, "hand_points", p) for p in range(4)]
            assert engine == pts, (seed - 1, hand_no)
            assert [var(s, "points", p) - before[p] for p in range(4)] == pts
            raw = [v + (10 if options.get("jack_of_diamonds") and any(
                c == (11, "diamonds") for t in tricks if plain_winner(t) == p for _, c in t) else 0)
                for p, v in enumerate(pts)]
            assert sum(raw) in (26, 78)
            moons += sum(raw) == 78
            done += 1
            if s.is_terminal:
                assert s.scores == [var(s, "points", p) for p in range(4)]
                best = min(s.scores)
                assert s.winners == [p for p in range(4) if s.scores[p] == best]
                assert max(s.scores) >= 100
    return done, moons


def test_hearts_points_agree_with_a_plain_scorer_over_random_hands():
    done, moons = hearts_random_hands(150, 100)
    assert done >= 150


@pytest.mark.slow
@pytest.mark.parametrize("options", [{}, {"queen_breaks_hearts": True, "jack_of_diamonds": True}])
def test_hearts_points_agree_with_a_plain_scorer_over_a_thousand_hands(options):
    done, moons = hearts_random_hands(1000, 5000, **options)
    assert done >= 1000


def test_hearts_the_plain_scorer_agrees_on_shot_moons():
    # random players almost never shoot the moon: these hands are laid out so that one does (or
    # misses by the last heart), and the plain scorer reads the cards each seat took from the piles
    hearts = [f"{r}H" for r in range(2, 14)]
    results = []
    for shooter, jack in ((0, False), (1, False), (2, False), (0, True)):
        last = {0: "AH", 1: "2D", 2: "3D", 3: "JD"}
        s = hearts_last_trick({shooter: hearts + ["QS"]}, last, jack_of_diamonds=jack)
        took = {p: [face(s, c) for c in zone(s, "taken", p)] for p in range(4)}
        trick = [(p, parse(last[p])) for p in range(4)]
        took[plain_winner(trick)] += [c for _, c in trick]
        score_last_trick(s)             # the next hand gathers the piles: they are read before
        plain = hearts_plain_points_of(took, jack)
        assert [var(s, "hand_points", p) for p in range(4)] == plain
        results.append(plain)
    assert results == [[0, 26, 26, 26], [1, 25, 0, 0], [1, 0, 25, 0], [-10, 26, 26, 26]]


def test_hearts_golden_logs_replay(capsys):
    for log in ("hearts-1.jsonl", "hearts-2.jsonl"):
        out = replay(capsys, log, "hearts")
        assert out["ok"] is True and out["error"] is None
        assert (out["scores"], out["winners"], out["decisions"]) == GOLDEN_RESULTS[log]


# ============================================================================= Spades

def spades_bidding(seed=0, **options):
    return SPADES.new_game(players=4, seed=seed, options=options)


def bid(s, n):
    if n == "nil":
        [a] = [a for a in s.legal_actions() if a.name == "bid_nil"]
    elif n == "blind":
        [a] = [a for a in s.legal_actions() if a.name == "bid_blind_nil"]
    elif n == "look":
        [a] = [a for a in s.legal_actions() if a.name == "skip"]
    else:
        [a] = [a for a in s.legal_actions() if a.name == "bid" and a.bind["n"] == n]
    s.apply(a)


def test_spades_bidding_from_the_dealers_left_and_cards_unseen_until_the_bid():
    s = spades_bidding()
    assert var(s, "dealer") == 3 and s.current_player == 0
    # seat 0 has picked up its cards to bid (no blind nil at 0-0); the others' still lie face down
    assert len(zone(s, "hand", 0)) == 13 and not zone(s, "unseen", 0)
    assert all(len(zone(s, "unseen", p)) == 13 and not zone(s, "hand", p) for p in range(1, 4))
    assert sorted({a.name for a in s.legal_actions()}) == ["bid", "bid_nil"]
    bid(s, 3)
    assert len(zone(s, "hand", 1)) == 13 and s.current_player == 1
    assert s.observation(1)["variables"]["tricks_bid"][0] == 3                         # bids are public
    for n in (4, "nil", 2):
        bid(s, n)
    assert s.current_player == 0 and {a.name for a in s.legal_actions()} == {"play"}


def test_spades_blind_nil_only_when_100_behind_and_then_two_cards_each_way():
    s = spades_bidding()
    set_var(s, "points", -100, 1)                 # seats 1 and 3 are 100 behind
    bid(s, 3)
    assert "bid_blind_nil" in {a.name for a in s.legal_actions()}
    assert s.observation(1)["zones"]["hand[1]"]["cards"] == []   # decided before looking
    bid(s, "blind")
    assert s.current_player == 2 and len(zone(s, "hand", 1)) == 13
    bid(s, 2)
    # seat 3 is the blind nil bidder's partner: no second blind nil on one side
    assert "bid_blind_nil" not in {a.name for a in s.legal_actions()}
    bid(s, 5)
    # the exchange: seat 1 gives two cards to seat 3, who gives two back
    assert s.current_player == 1 and {a.name for a in s.legal_actions()} == {"give_two"}
    given = s.legal_actions()[0]
    s.apply(given)
    assert all(c in zone(s, "hand", 3) for c in given.bind["cards"])
    assert s.current_player == 3 and len(zone(s, "hand", 3)) == 15
    s.apply(s.legal_actions()[0])
    assert all(len(zone(s, "hand", p)) == 13 for p in range(4))
    assert {a.name for a in s.legal_actions()} == {"play"} and s.current_player == 0


def spades_in_play(hands_given, avoid=None, bids=(3, 3, 3, 3), seed=0, **options):
    """A Spades state at the first lead (seat 0, dealer 3) with the given hands."""
    s = spades_bidding(seed=seed, **options)
    for n in bids:
        bid(s, n)
    hands = full_hands(s, hands_given, avoid)
    arrange(s, {("hand", p): hands[p] for p in range(4)})
    s._legal = None
    return s


def test_spades_are_not_led_until_broken():
    s = spades_in_play({0: ["AS", "2D"], 1: ["3D"], 2: ["4D"], 3: ["2S"]}, avoid={3: "D"})
    assert not any(suit == "spades" for _, suit in legal_cards(s))
    for t in ("2D", "3D", "4D", "2S"):
        play(s, t)
    # seat 3 trumped with the two of spades: spades are broken, and seat 3 leads
    assert s.current_player == 3 and var(s, "spades_broken") is True
    assert any(suit == "spades" for _, suit in legal_cards(s))


def test_spades_a_hand_of_spades_may_lead_them():
    s = spades_in_play({0: [f"{r}S" for r in range(2, 15)]})
    assert legal_cards(s) == sorted((r, "spades") for r in range(2, 15))


def spades_last_trick(taken, last, bids, nil=(0, 0, 0, 0), points=(0, 0), bags=(0, 0)):
    """Before the last trick of a hand (seat 0 leads): the bids, nil kinds and tricks taken so far
    per seat, `last` each seat's last card, the sides' points and bags."""
    s = before_last_trick(SPADES, 0)
    for p in range(4):
        set_var(s, "tricks_bid", bids[p], p)
        set_var(s, "nil_bid", nil[p], p)
        set_var(s, "tricks_won", taken[p], p)
    for t in range(2):
        set_var(s, "points", points[t], t)
        set_var(s, "bags", bags[t], t)
    layout(s, {("hand", p): [card_id(s, last[p])] for p in range(4)}, ("deck", None))
    set_var(s, "spades_broken", True)
    return s


@pytest.mark.parametrize("bids,nil,taken,score,bags_after", [
    ((3, 4, 2, 1), (0, 0, 0, 0), (5, 3, 1, 4), [51, 52], [1, 2]),        # 5 bid, 6 made; 5 bid, 7 made
    ((5, 4, 2, 1), (0, 0, 0, 0), (5, 3, 1, 4), [-70, 52], [0, 2]),       # 7 bid, 6 made: set
    ((4, 4, 0, 1), (0, 0, 1, 0), (6, 3, 0, 4), [142, 52], [2, 2]),       # seat 2's nil made
    ((4, 4, 0, 1), (0, 0, 1, 0), (5, 3, 1, 4), [-59, 52], [1, 2]),       # nil failed, partner made 4
    ((4, 4, 0, 1), (0, 0, 2, 0), (6, 3, 0, 4), [242, 52], [2, 2]),       # blind nil made
    ((5, 4, 0, 1), (0, 0, 1, 0), (4, 3, 2, 4), [-150, 52], [0, 2]),      # the nil's tricks do not help
])
def test_spades_round_scores(bids, nil, taken, score, bags_after):
    # the last trick: seat 0 leads the ace of diamonds and takes it; taken[0] counts it
    before = list(taken)
    before[0] -= 1
    assert sum(before) == 12
    s = spades_last_trick(before, {0: "AD", 1: "2D", 2: "3D", 3: "4D"}, bids, nil)
    for _ in range(4):
        s.apply(s.legal_actions()[0])
    assert [var(s, "hand_score", t) for t in range(2)] == score
    assert [var(s, "points", t) for t in range(2)] == score
    assert [var(s, "bags", t) for t in range(2)] == bags_after


def test_spades_ten_bags_cost_a_hundred_and_carry_over():
    s = spades_last_trick([3, 2, 4, 3], {0: "AD", 1: "2D", 2: "3D", 3: "4D"}, (2, 4, 2, 1), bags=(7, 0))
    for _ in range(4):
        s.apply(s.legal_actions()[0])
    # side 0 bid 4, took 8: 40 + 4 bags; 7 + 4 = 11 bags: -100, one bag carried
    assert var(s, "hand_score", 0) == 44 - 100 and var(s, "bags", 0) == 1


@pytest.mark.parametrize("points,ends,winners", [
    ((460, 100), True, [0, 2]), ((400, 100), False, None), ((100, -150), True, [0, 2]),
    ((460, 591), False, None), ((300, 591), True, [1, 3])])
def test_spades_game_to_500_and_out_at_minus_200(points, ends, winners):
    # this hand: side 0 bids 4 and takes 5 (+41); side 1 bids 9 and takes 8 (-90). Level at 501
    # each, another hand is played.
    s = spades_last_trick([3, 4, 1, 4], {0: "AD", 1: "2D", 2: "3D", 3: "4D"}, (2, 5, 2, 4), points=points)
    for _ in range(4):
        s.apply(s.legal_actions()[0])
    assert s.is_terminal is ends
    if ends:
        assert s.winners == winners


def test_spades_round_limit_option():
    s = spades_bidding(seed=1, max_hands=1, lose_at=0)
    rng = random.Random(0)
    while not s.is_terminal:
        s.apply(rng.choice(s.legal_actions()))
    assert var(s, "hands_played") == 1


def spades_plain_round(bids, nils, tricks, bags):
    """Each side's score for a hand and its bags after, from the bids, the nil kinds and each seat's
    tricks, by the rules in words."""
    out, bags = [], list(bags)
    for t in range(2):
        seats = [t, t + 2]
        contract = sum(bids[q] for q in seats if nils[q] == 0)
        got = sum(tricks[q] for q in seats if nils[q] == 0)
        if got >= contract:
            score = 10 * contract + (got - contract)
            bags[t] += got - contract
            while bags[t] >= 10:
                score -= 100
                bags[t] -= 10
        else:
            score = -10 * contract
        for q in seats:
            if nils[q]:
                score += 100 * nils[q] * (1 if tricks[q] == 0 else -1)
        out.append(score)
    return out, bags


def spades_random_hands(hands_wanted, seed0, **options):
    done = seed0
    count = 0
    while count < hands_wanted:
        s = SPADES.new_game(players=4, seed=done, options=options)
        rng = random.Random(done)
        done += 1
        totals, bags = [0, 0], [0, 0]
        while not s.is_terminal:
            played = var(s, "hands_played")
            bids, nils, plays = [0] * 4, [0] * 4, []
            trump_seen = False
            while var(s, "hands_played") == played:
                a = rng.choice(s.legal_actions())
                p = s.current_player
                if a.name == "bid":
                    bids[p] = a.bind["n"]
                elif a.name == "bid_nil":
                    nils[p] = 1
                elif a.name == "bid_blind_nil":
                    nils[p] = 2
                elif a.name == "play":
                    card = face(s, a.bind["card"])
                    if len(plays) % 4 == 0 and card[1] == "spades":
                        hand = [face(s, c) for c in zone(s, "hand", p)]
                        assert trump_seen or all(c[1] == "spades" for c in hand)   # spades broken
                    plays.append((p, card))
                    trump_seen = trump_seen or card[1] == "spades"
                s.apply(a)
            assert len(plays) == 52
            tricks = [0] * 4
            for i in range(0, 52, 4):
                tricks[plain_winner(plays[i:i + 4], trump="spades")] += 1
            if s.is_terminal:                  # (a new hand resets the count)
                assert [var(s, "tricks_won", p) for p in range(4)] == tricks
            score, bags = spades_plain_round(bids, nils, tricks, bags)
            assert [var(s, "hand_score", t) for t in range(2)] == score
            totals = [totals[t] + score[t] for t in range(2)]
            assert [var(s, "points", t) for t in range(2)] == totals
            assert [var(s, "bags", t) for t in range(2)] == bags
            count += 1
        assert s.scores == [totals[p % 2] for p in range(4)]
        best = max(totals)
        assert s.winners == [p for p in range(4) if totals[p % 2] == best]
    return count


def test_spades_round_scores_agree_with_a_plain_scorer_over_random_hands():
    assert spades_random_hands(200, 300) >= 200


@pytest.mark.slow
def test_spades_round_scores_agree_with_a_plain_scorer_over_a_thousand_hands():
    assert spades_random_hands(1000, 7000, lose_at=1000, game_to=1000) >= 1000


def test_spades_golden_logs_replay(capsys):
    for log in ("spades-1.jsonl", "spades-10.jsonl"):        # seed 10 has a blind nil and its exchange
        out = replay(capsys, log, "spades")
        assert out["ok"] is True and out["error"] is None
        assert (out["scores"], out["winners"], out["decisions"]) == GOLDEN_RESULTS[log]
    assert '"bid_blind_nil"' in (GOLDEN / "spades-10.jsonl").read_text()


# ============================================================================= Oh Hell

@pytest.mark.parametrize("players,largest", [(3, 10), (5, 10), (6, 8), (7, 7)])
def test_oh_hell_hand_sizes_down_and_back_up(players, largest):
    s = OH_HELL.new_game(players=players, seed=1)
    sizes = []
    rng = random.Random(0)
    while not s.is_terminal:
        if var(s, "bids_made") == 0 and s.legal_actions()[0].name == "bid":
            sizes.append(var(s, "cards_each"))
            assert all(len(zone(s, "hand", p)) == sizes[-1] for p in range(players))
            assert len(zone(s, "turnup")) == 1
            assert var(s, "dealer") == (len(sizes) - 1 + players - 1) % players       # the deal passes left
            assert s.current_player == (var(s, "dealer") + 1) % players
        s.apply(rng.choice(s.legal_actions()))
    assert sizes == list(range(largest, 0, -1)) + list(range(2, largest + 1))


@pytest.mark.parametrize("schedule,want", [(1, list(range(1, 11)) + list(range(9, 0, -1))), (2, list(range(10, 0, -1)))])
def test_oh_hell_other_schedules(schedule, want):
    s = OH_HELL.new_game(players=4, seed=2, options={"schedule": schedule})
    sizes, rng = [], random.Random(0)
    while not s.is_terminal:
        if var(s, "bids_made") == 0 and s.legal_actions()[0].name == "bid":
            sizes.append(var(s, "cards_each"))
        s.apply(rng.choice(s.legal_actions()))
    assert sizes == want


def test_oh_hell_an_unknown_schedule_is_refused():
    with pytest.raises(Exception, match="schedule.* from 0 to 2, not 7"):
        OH_HELL.new_game(players=4, seed=2, options={"schedule": 7})


def bids_offered(s):
    return sorted(a.bind["n"] for a in s.legal_actions() if a.name == "bid")


def test_oh_hell_the_hook():
    s = OH_HELL.new_game(players=4, seed=3)          # ten cards each
    assert bids_offered(s) == list(range(11))
    for n in (4, 2, 3):
        [a] = [a for a in s.legal_actions() if a.bind["n"] == n]
        s.apply(a)
    assert s.current_player == var(s, "dealer")
    assert bids_offered(s) == [0, 2, 3, 4, 5, 6, 7, 8, 9, 10]      # 1 would make the bids add up to 10
    s = OH_HELL.new_game(players=4, seed=3)
    for n in (5, 4, 3):
        [a] = [a for a in s.legal_actions() if a.bind["n"] == n]
        s.apply(a)
    assert bids_offered(s) == list(range(11))                     # already over: any bid


def test_oh_hell_trumps_win_and_suit_must_be_followed():
    s = OH_HELL.new_game(players=3, seed=4, options={"largest_hand": 2})
    trump = face(s, zone(s, "turnup")[0])[1]
    other = next(x for x in SUITS.values() if x != trump)
    third = next(x for x in SUITS.values() if x not in (trump, other))
    lead = var(s, "dealer") + 1
    rank = {v: k for k, v in SUITS.items()}
    hands = {lead % 3: [f"5{rank[other]}", f"6{rank[third]}"], (lead + 1) % 3: [f"2{rank[trump]}", f"9{rank[third]}"],
             (lead + 2) % 3: [f"A{rank[other]}", f"K{rank[other]}"]}
    layout(s, {**{("hand", p): [card_id(s, t) for t in hs] for p, hs in hands.items()},
               ("turnup", None): zone(s, "turnup")}, ("deck", None))
    s._legal = None
    for _ in range(3):
        s.apply([a for a in s.legal_actions() if a.bind["n"] == 0][0] if s.current_player != var(s, "dealer")
                else [a for a in s.legal_actions() if a.bind["n"] == 1][0])
    play(s, f"5{rank[other]}")
    assert legal_cards(s) == sorted([(2, trump), (9, third)])      # void in the suit led: anything
    play(s, f"2{rank[trump]}")
    assert legal_cards(s) == sorted([(14, other), (13, other)])
    play(s, f"A{rank[other]}")
    assert s.current_player == (lead + 1) % 3 and var(s, "tricks_won", (lead + 1) % 3) == 1   # the trump won


def test_oh_hell_exact_bids_score_ten_plus_the_bid():
    rng = random.Random(5)
    for seed in range(30):
        s = OH_HELL.new_game(players=4, seed=seed)
        before = [0] * 4
        while not s.is_terminal:
            hand_no = var(s, "hand_no")
            trump = face(s, zone(s, "turnup")[0])[1]
            bids, plays = {}, []
            while var(s, "hand_no") == hand_no:
                a = rng.choice(s.legal_actions())
                if a.name == "bid":
                    bids[s.current_player] = a.bind["n"]
                else:
                    plays.append((s.current_player, face(s, a.bind["card"])))
                s.apply(a)
            assert sum(bids.values()) != len(plays) // 4                 # the hook: somebody fails
            tricks = [0] * 4
            for i in range(0, len(plays), 4):
                tricks[plain_winner(plays[i:i + 4], trump=trump)] += 1
            want = [10 + bids[p] if tricks[p] == bids[p] else 0 for p in range(4)]
            assert [var(s, "hand_points", p) for p in range(4)] == want
            before = [before[p] + want[p] for p in range(4)]
            assert [var(s, "points", p) for p in range(4)] == before
        assert s.scores == before and s.winners == [p for p in range(4) if before[p] == max(before)]


def test_oh_hell_golden_logs_replay(capsys):
    for log in ("oh_hell-1.jsonl", "oh_hell-2.jsonl"):
        out = replay(capsys, log, "oh_hell")
        assert out["ok"] is True and out["error"] is None
        assert (out["scores"], out["winners"], out["decisions"]) == GOLDEN_RESULTS[log]


# the results recorded when the golden logs were written (gamespec run ... --seed S --log FILE)
GOLDEN_RESULTS = {
    "hearts-1.jsonl": ([52, 42, 111, 81], [1], 669),         # 4 players, seed 1
    "hearts-2.jsonl": ([100, 86, 76, 76], [2, 3], 669),      # 4 players, seed 2
    "spades-1.jsonl": ([-140, -230, -140, -230], [0, 2], 56),   # 4 players, seed 1
    "spades-10.jsonl": ([-470, -57, -470, -57], [1, 3], 114),   # 4 players, seed 10
    "oh_hell-1.jsonl": ([35, 11, 26], [0], 384),             # 3 players, seed 1
    "oh_hell-2.jsonl": ([20, 47, 20, 30, 63], [4], 640),     # 5 players, seed 2
}


@pytest.mark.parametrize("gid", ["hearts", "oh_hell", "spades"])
def test_the_table_names_the_suit_led_and_a_dash_before_any(gid):
    """presentation: '' (no trick led yet) reads '–', the suit once one is led; the rules' names never
    show (lead suit, to lead)."""
    from gamespec.spec.presentation import of_game
    from gamespec.table.screen import Screen
    from gamespec.table.transcript import Labels
    game = load(f"games/{gid}.yaml")
    s = game.new_game(players=4, seed=5)
    screen = Screen(of_game(game), Labels(s.rs), 4, 0)
    rng = random.Random(2)
    led = set()
    while not s.is_terminal and s.decisions < 120:
        text = "\n".join(t for t, _ in screen.lines(s.view(0).observation, "head"))
        suit = var(s, "lead_suit")
        assert f"Suit led {suit or '–'}" in text, text
        assert "lead suit" not in text and "to lead" not in text and "hand no" not in text, text
        led.add(suit)
        s.apply(rng.choice(s.legal_actions()))
    assert "" in led and len(led) >= 2, led
    if gid == "spades":
        assert "Nil no" in "\n".join(t for t, _ in screen.lines(s.view(0).observation, "head"))
