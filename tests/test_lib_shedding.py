"""Library games of the shedding and rummy families: Crazy Eights, President, Gin Rummy
(games/crazy_eights.yaml, games/president.yaml, games/gin_rummy.yaml).

Each important rule is pinned by a test that fails if it is broken. Positions are built by editing a
fresh game's JSON at its first decision (arranged_state) and driven with legal actions. The outside
checks: Gin Rummy's deadwood and layoffs against a plain-Python brute force over every arrangement
of disjoint melds; President's card exchange read from what the Scum remembers passing."""
from __future__ import annotations

import itertools
import json
import random
from pathlib import Path

import pytest

import gamespec
from gamespec.cli import main

from helpers import cards_where, face, var
from helpers import zone as live_zone

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden"
EIGHTS = gamespec.load(str(ROOT / "games" / "crazy_eights.yaml"))
PRES = gamespec.load(str(ROOT / "games" / "president.yaml"))
GIN = gamespec.load(str(ROOT / "games" / "gin_rummy.yaml"))
SUITS = ["♣", "♦", "♥", "♠"]


# ----------------------------------------------------------------------------- helpers

def card(s, text):
    """The card id of a face written like 'Q♠', '10♥', 'A♣'."""
    ids = cards_where(s, name=text[:-1], suit=text[-1])
    assert len(ids) == 1, text
    return ids[0]


def zid(s, name, key=0):
    """A zone's index in the state's JSON: a family member by its index (0 for a single zone)."""
    return s.rs.zone_base[name] + key


def zone(s, name, key=None):
    """A copy of a zone's card ids (a family member by its key), bottom to top."""
    return list(live_zone(s, name, key))


def faces_of(s, name, key=None):
    return sorted(face(s, c)["name"] + face(s, c)["suit"] for c in zone(s, name, key))


def arrange(game, players, zones, variables=None, seed=0, options=None, rest="stock"):
    """A fresh game's first decision with the zones given ({(zone, key): [faces]}, a pile's faces
    bottom to top); every card not placed goes to `rest` (shuffled by the seed) and all knowledge is
    cleared. variables: {name: value or [value per player]}."""
    s = game.new_game(players=players, seed=seed, options=options)
    d = s.to_json()
    out = [[] for _ in d["zones"]]
    placed = set()
    for (name, key), faces in zones.items():
        ids = [card(s, f) for f in faces]
        out[zid(s, name, key)] = ids
        placed |= set(ids)
    left = [c for c in range(s.rs.ncards) if c not in placed]
    random.Random(seed).shuffle(left)
    out[zid(s, rest)] = left + out[zid(s, rest)]
    d["zones"] = out
    d["known"] = [0] * s.rs.ncards
    for name, val in (variables or {}).items():
        if isinstance(val, list):
            for p, x in enumerate(val):
                d["vars"][s.rs.var_base[name] + p] = x
        else:
            d["vars"][s.rs.var_base[name]] = val
    return game.arranged_state(d)


def legal(s, name=None):
    return [a for a in s.legal_actions() if name is None or a.name == name]


def names(s):
    return sorted({a.name for a in s.legal_actions()})


def act(s, name, **want):
    """Apply the legal action `name` whose parameters match: card parameters by face ('Q♠')."""
    for a in legal(s, name):
        ok = True
        for k, v in want.items():
            b = a.bind.get(k)
            if isinstance(v, str) and isinstance(b, int) and k in ("card",):
                b = face(s, b)["name"] + face(s, b)["suit"]
            if b != v:
                ok = False
        if ok:
            s.apply(a)
            return s
    raise AssertionError(f"no legal {name} {want}: {[a.to_json() for a in s.legal_actions()]}")


def cards_played(s, name):
    return sorted({face(s, a.bind["card"])["name"] + face(s, a.bind["card"])["suit"] for a in legal(s, name)})


def replay(capsys, path):
    assert main(["replay", str(path), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


# ============================================================================= Crazy Eights

@pytest.mark.parametrize("players,each", [(2, 7), (3, 5), (7, 5)])
def test_eights_deal(players, each):
    for seed in range(6):
        s = EIGHTS.new_game(players=players, seed=seed)
        assert all(len(zone(s, "hand", p)) == each for p in range(players))
        assert len(zone(s, "discard")) == 1
        assert face(s, zone(s, "discard")[0])["rank"] != 8          # an eight turned up is buried
        assert var(s, "called") == face(s, zone(s, "discard")[0])["suit"]
        assert s.current_player == 1                                   # the dealer's left begins


def test_eights_buried_starter():
    # an eight turned as the starter goes back into the stock (a new shuffle) and another is turned
    found = 0
    for seed in range(120):
        s = EIGHTS.new_game(players=3, seed=seed, log=True)
        shuffles = sum(1 for line in s.log_lines() if line.get("event") == "shuffle")
        assert face(s, zone(s, "discard")[-1])["rank"] != 8
        assert len(zone(s, "discard")) == 1 and len(zone(s, "stock")) == 52 - 15 - 1
        found += shuffles > 1
    assert found >= 3          # about one deal in 13 turns an eight first


def eights_table(hand1, top, called=None, hand0=("K♣", "5♦"), hand2=("A♠", "8♥"), stock=None, **kw):
    zones = {("hand", 0): list(hand0), ("hand", 1): list(hand1), ("hand", 2): list(hand2), ("discard", 0): [top]}
    if stock is not None:            # the cards left over go under the starter in the discard pile
        zones[("stock", 0)] = list(stock)
        kw.setdefault("rest", "discard")
    return arrange(EIGHTS, 3, zones, variables={"called": called or top[-1]}, **kw)


def test_eights_match_suit_or_rank_and_eights_anywhere():
    s = eights_table(["7♦", "9♥", "3♣", "8♠", "Q♦"], "7♥")
    assert s.current_player == 1
    assert cards_played(s, "play") == ["7♦", "9♥"]               # the suit, or the rank
    eights = legal(s, "play_eight")
    assert len(eights) == 4 and {a.bind["suit"] for a in eights} == set(SUITS)   # any suit named
    assert names(s) == ["play", "play_eight"]                     # no draw, no pass when able to play


def test_eights_named_suit_must_be_followed():
    s = eights_table(["8♠", "2♦"], "7♥", hand2=["A♠", "7♣", "5♥", "8♦"])
    act(s, "play_eight", card="8♠", suit="♣")
    assert var(s, "called") == "♣" and s.current_player == 2
    # the 5♥ matches neither the called clubs nor the eight's rank; another eight is always fine
    assert cards_played(s, "play") == ["7♣"]
    assert cards_played(s, "play_eight") == ["8♦"]
    act(s, "play", card="7♣")
    assert var(s, "called") == "♣" and s.current_player == 0


def test_eights_draw_only_until_able_then_pass_on_empty_stock():
    s = eights_table(["2♠", "3♠"], "7♥", stock=["9♥", "K♦", "Q♣"])     # Q♣ on top
    assert names(s) == ["draw"]                                     # nothing to play: must draw
    act(s, "draw")
    assert s.current_player == 1 and names(s) == ["draw"]          # Q♣ does not fit: draw again
    act(s, "draw")
    assert s.current_player == 1 and names(s) == ["draw"]
    act(s, "draw")
    assert "9♥" in faces_of(s, "hand", 1) and s.current_player == 1   # the turn goes on
    assert names(s) == ["play"] and cards_played(s, "play") == ["9♥"]   # able now: no more drawing
    act(s, "play", card="9♥")
    assert len(zone(s, "stock")) == 0
    # player 2 (A♠ 8♥) can play the eight: no draw
    assert s.current_player == 2 and names(s) == ["play_eight"]
    # with the stock empty, a player who cannot play passes
    s = eights_table(["2♠", "3♠"], "7♥", stock=[])
    assert names(s) == ["pass"]


def test_eights_draw_limit_then_pass():
    s = eights_table(["2♠", "3♠"], "7♥", stock=["K♦", "Q♣", "J♦"], options={"draw_limit": 1})
    act(s, "draw")                                                  # J♦: still nothing to play
    assert names(s) == ["pass"]
    act(s, "pass")
    assert s.current_player == 2 and var(s, "stuck") == 0         # the stock is not empty: not blocked


def test_eights_going_out_scores_the_other_hands():
    # player 1 plays their last card; hands left: K♣ 5♦ (15) and A♠ 8♥ (1 + 50)
    s = eights_table(["9♥"], "7♥", options={"goal": 500})
    act(s, "play", card="9♥")
    assert [var(s, "hand_pts", p) for p in range(3)] == [0, 15 + 51, 0]
    assert [var(s, "points", p) for p in range(3)] == [0, 66, 0]
    assert var(s, "hands") == 2 and var(s, "dealer") == 1          # a new hand, dealt by the next seat
    assert s.current_player == 2


def test_eights_game_ends_at_goal():
    s = eights_table(["9♥"], "7♥", options={"goal": 60})
    act(s, "play", card="9♥")
    assert s.is_terminal and s.scores == [0, 66, 0] and s.winners == [1]


def test_eights_blocked_hand_lowest_scores_differences():
    # stock empty; nobody holds a heart, a 7 or an eight: everyone passes in turn
    s = eights_table(["2♠", "3♣"], "7♥", hand0=["K♣", "Q♦"], hand2=["A♠", "4♦"], stock=[],
                     options={"goal": 500})
    assert names(s) == ["pass"]
    act(s, "pass")
    act(s, "pass")
    assert var(s, "stuck") == 2 and var(s, "hands") == 1
    act(s, "pass")
    # worths: player 0 20, player 1 5, player 2 5: the two lowest each score 15 + 0
    assert [var(s, "hand_pts", p) for p in range(3)] == [0, 15, 15]
    assert var(s, "hands") == 2


# ============================================================================= President

ORDER = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2"]


def strength(s, c):
    return ORDER.index(face(s, c)["name"])


def test_president_deal_and_first_lead():
    for players in (4, 5, 7):
        s = PRES.new_game(players=players, seed=players)
        sizes = sorted(len(zone(s, "hand", p)) for p in range(players))
        assert sum(sizes) == 52 and sizes[-1] - sizes[0] <= 1
        assert card(s, "3♣") in zone(s, "hand", s.current_player)       # the 3 of clubs leads
        assert names(s) == ["play"]                                      # no pass when leading


def pres_table(hands, leader=0, **kw):
    """A first trick to be led by `leader`, the hands given, the other cards already played."""
    zones = {("hand", p): h for p, h in enumerate(hands)}
    s = arrange(PRES, len(hands), zones, rest="played", **kw)
    d = s.to_json()
    d["current"] = d["actor"] = leader
    return PRES.arranged_state(d)


def test_president_beat_with_as_many_of_a_higher_rank():
    s = pres_table([["5♣", "5♦", "9♠"], ["4♣", "4♦", "6♥", "6♠", "2♣"], ["J♣", "J♦", "J♥", "3♦"],
                    ["K♣", "7♦", "7♥", "A♠"]])
    plays = {(a.bind["r"], a.bind["n"]) for a in legal(s, "play")}
    assert plays == {("5", 1), ("5", 2), ("9", 1)}
    act(s, "play", r="5", n=2)
    assert var(s, "need") == 2 and s.current_player == 1
    # a higher pair only: not the 4s (lower), not a single, not the lone 2
    assert {(a.bind["r"], a.bind["n"]) for a in legal(s, "play")} == {("6", 2)}
    assert "pass" in names(s)
    act(s, "pass")
    assert {(a.bind["r"], a.bind["n"]) for a in legal(s, "play")} == {("J", 2)}   # three jacks: a pair of them
    act(s, "play", r="J", n=2)
    act(s, "pass")                    # player 3: a pair of 7s is lower
    act(s, "pass")                    # player 0
    # player 1 passed before but may play again in the same trick: not with a pair of 6s
    assert s.current_player == 1 and legal(s, "play") == []
    act(s, "pass")
    # everyone else has passed: the trick is cleared and its last player (2) leads anything
    assert zone(s, "table") == [] and var(s, "need") == 0 and s.current_player == 2
    assert names(s) == ["play"]
    assert ("3", 1) in {(a.bind["r"], a.bind["n"]) for a in legal(s, "play")}


def test_president_two_is_highest_and_going_out_passes_the_lead_on():
    s = pres_table([["A♣"], ["2♦", "4♦"], ["K♥", "5♠"], ["Q♠", "6♦"]])
    act(s, "play", r="A", n=1)
    assert var(s, "finished") == [0]                                  # out first: the President
    assert {a.bind["r"] for a in legal(s, "play")} == {"2"}
    act(s, "play", r="2", n=1)
    act(s, "pass")
    act(s, "pass")
    assert s.current_player == 1                                      # trick cleared: player 1 leads
    act(s, "play", r="4", n=1)
    assert var(s, "finished") == [0, 1]
    act(s, "play", r="K", n=1)
    act(s, "pass")                    # player 3
    # the trick's last player (2) leads again
    assert s.current_player == 2 and var(s, "need") == 0
    act(s, "play", r="5", n=1)
    assert var(s, "ranking") == [0, 1, 2, 3]                          # player 3 is the Scum
    assert [var(s, "points", p) for p in range(4)] == [3, 2, 1, 0]
    assert var(s, "round_no") == 2 and var(s, "dealer") == 3


def finish_round(s, rnd):
    r = var(s, "round_no")
    while var(s, "round_no") == r and not s.is_terminal:
        a = legal(s)
        s.apply(a[rnd.randrange(len(a))])


@pytest.mark.parametrize("players,exchange", [(4, 2), (6, 2), (5, 1)])
def test_president_exchange_gives_the_presidents_the_scums_best_cards(players, exchange):
    """Outside check: what the Scum remembers passing is in the President's hand, and is at least as
    high as every card the Scum keeps; the President then gives back cards of their choice."""
    for seed in range(4):
        rnd = random.Random(seed)
        s = PRES.new_game(players=players, seed=seed, options={"exchange": exchange})
        finish_round(s, rnd)
        rank = var(s, "ranking")
        pres, scum = rank[0], rank[-1]
        assert s.current_player == pres and names(s) == ["give_back"]
        seen = s.observation(scum)["zones"][f"hand[{pres}]"]["cards"]
        passed = [f for f in seen if f is not None]
        assert len(passed) == exchange
        pres_hand = [face(s, c) for c in zone(s, "hand", pres)]
        assert all(f in pres_hand for f in passed)
        kept = [ORDER.index(face(s, c)["name"]) for c in zone(s, "hand", scum)]
        assert min(ORDER.index(f["name"]) for f in passed) >= max(kept)
        # the others did not see which cards moved
        other = next(q for q in range(players) if q not in (pres, scum))
        assert all(x is None for x in s.observation(other)["zones"][f"hand[{pres}]"]["cards"])
        # the President gives back any cards: here the lowest ones
        given = []
        for _ in range(exchange):
            low = min(legal(s, "give_back"), key=lambda a: strength(s, a.bind["card"]))
            given.append(low.bind["card"])
            s.apply(low)
        assert all(c in zone(s, "hand", scum) for c in given)
        if exchange == 2:    # then the Vice-Scum's best card to the Vice-President, and one back
            vp, vs = rank[1], rank[-2]
            assert s.current_player == vp
            seen = [f for f in s.observation(vs)["zones"][f"hand[{vp}]"]["cards"] if f is not None]
            assert len(seen) == 1
            assert ORDER.index(seen[0]["name"]) >= max(ORDER.index(face(s, c)["name"]) for c in zone(s, "hand", vs))
            s.apply(legal(s, "give_back")[0])
        # play begins, led by the Scum
        assert names(s) == ["play"] and s.current_player == scum
        sizes = [len(zone(s, "hand", p)) for p in range(players)]
        assert sum(sizes) == 52


def test_president_rounds_and_scores():
    s = PRES.new_game(players=4, seed=9, options={"rounds": 2})
    rnd = random.Random(9)
    while not s.is_terminal:
        a = legal(s)
        s.apply(a[rnd.randrange(len(a))])
    assert var(s, "round_no") == 2
    assert sorted(s.scores) != [0, 0, 0, 0] and sum(s.scores) == 2 * (3 + 2 + 1)


# ============================================================================= Gin Rummy: the outside check

def val(rank):
    return min(rank, 10)


def brute_melds(cards):
    """Every meld in cards ((rank, suit) pairs): every 3 or 4 of a rank, every run of 3+ in a suit."""
    out = []
    for k in (3, 4):
        for combo in itertools.combinations(cards, k):
            if len({r for r, _ in combo}) == 1:
                out.append(frozenset(combo))
    for suit in SUITS:
        ranks = sorted(r for r, s_ in cards if s_ == suit)
        for lo in range(1, 12):
            for hi in range(lo + 2, 14):
                if all(r in ranks for r in range(lo, hi + 1)):
                    out.append(frozenset((r, suit) for r in range(lo, hi + 1)))
    return out


def brute_deadwood(cards):
    """The least deadwood over ALL sets of pairwise-disjoint melds: every subset of the melds is
    walked (each meld in or out, in list order), a subset with two melds sharing a card skipped."""
    melds = brute_melds(cards)
    total = sum(val(r) for r, _ in cards)
    best = total

    def walk(i, used):
        nonlocal best
        if i == len(melds):
            best = min(best, total - sum(val(r) for r, _ in used))
            return
        walk(i + 1, used)                       # meld i left out
        if not used & melds[i]:
            walk(i + 1, used | melds[i])        # meld i laid
    walk(0, frozenset())
    return best


def brute_layoff(defender, knocker_melds):
    """The defender's least deadwood when any subset of their cards may be laid off on the knocker's
    melds (each card fitting a set of three of its rank, or extending a run, one after another)."""
    def lay_all(lay):
        """The cards of `lay` that go on the melds, one at a time, as long as one fits."""
        melds = [set(m) for m in knocker_melds]
        left = list(lay)
        progress = True
        while left and progress:
            progress = False
            for c in list(left):
                for m in melds:
                    rs = {r for r, _ in m}
                    if len(rs) == 1:
                        fits = c[0] in rs and len(m) < 4
                    else:
                        fits = {s_ for _, s_ in m} == {c[1]} and c[0] in (min(rs) - 1, max(rs) + 1)
                    if fits:
                        m.add(c)
                        left.remove(c)
                        progress = True
                        break
        return [c for c in lay if c not in left]

    # laying off only grows the melds, so every card ever laid off is among those laid when all try
    could = lay_all(defender)
    best = brute_deadwood(defender)
    for k in range(1, len(could) + 1):
        for lay in itertools.combinations(could, k):
            if len(lay_all(lay)) == k:
                best = min(best, brute_deadwood([c for c in defender if c not in lay]))
    return best


def pairs(s, ids):
    return [(face(s, c)["rank"], face(s, c)["suit"]) for c in ids]


def random_hand(rnd, n=10):
    """Uniform hands (2 in 5), or hands from 12 to 24 cards of a few ranks and suits (many
    overlapping melds)."""
    if rnd.random() < 0.4:
        pool = [(r, s_) for r in range(1, 14) for s_ in SUITS]
    else:
        lo = rnd.randrange(1, 9)
        suits = rnd.sample(SUITS, rnd.choice([3, 4]))
        pool = [(r, s_) for r in range(lo, lo + rnd.choice([4, 5, 6])) for s_ in suits]
    assert len(pool) >= n
    return rnd.sample(pool, n)


def ids_of(s, hand):
    by = {(face(s, c)["rank"], face(s, c)["suit"]): c for c in range(s.rs.ncards)}
    return [by[x] for x in hand]


def test_gin_deadwood_is_the_least_over_all_arrangements():
    """1,000 random hands of 10 cards and 100 of 11: the spec's deadwood equals the brute force's."""
    rnd = random.Random(40)
    s = GIN.new_game(players=2, seed=0)
    hands = [random_hand(rnd, 10 if i < 1000 else 11) for i in range(1100)]
    want = [brute_deadwood(h) for h in hands]
    got = []
    for i in range(0, len(hands), 100):    # a fresh state per batch: evaluate() spends its budget
        s = GIN.new_game(players=2, seed=0)
        got += GIN.evaluate(s, "[deadwood(h) for h in hs]", hs=[ids_of(s, h) for h in hands[i:i + 100]])
    knock = GIN.evaluate(s, "[low_enough(h) for h in hs]", hs=[ids_of(s, h) for h in hands[:150]])
    assert knock == [w <= 10 for w in want[:150]]
    assert got == want
    assert sum(1 for h, w in zip(hands, want) if w <= 10) >= 100       # many knockable hands among them
    # the arrangement laid at a knock leaves exactly that deadwood
    s = GIN.new_game(players=2, seed=0)
    arr = GIN.evaluate(s, "[arrangement(h) for h in hs]", hs=[ids_of(s, h) for h in hands[:300]])
    for h, ms, w in zip(hands, arr, want):
        used = [c for m in ms for c in m]
        assert len(used) == len(set(used))
        for m in ms:
            assert frozenset(pairs(s, m)) in brute_melds(h)
        assert sum(val(r) for r, _ in h) - sum(val(r) for r, _ in pairs(s, used)) == w


def random_layoff_case(rnd):
    """Knocker's melds (one to three, disjoint) and a defender's ten cards, often next to them."""
    deck = [(r, s_) for r in range(1, 14) for s_ in SUITS]
    melds = []
    used = set()
    for _ in range(rnd.choice([1, 2, 2, 3])):
        for _try in range(20):
            if rnd.random() < 0.5:
                r = rnd.randrange(1, 14)
                m = rnd.sample([(r, s_) for s_ in SUITS], rnd.choice([3, 3, 4]))
            else:
                n = rnd.choice([3, 3, 4, 5])
                lo = rnd.randrange(1, 15 - n)
                suit = rnd.choice(SUITS)
                m = [(r, suit) for r in range(lo, lo + n)]
            if not used & set(m):
                melds.append(m)
                used |= set(m)
                break
    rest = [c for c in deck if c not in used]
    near = [c for c in rest if any(abs(c[0] - r) <= 2 and (c[1] == s_ or c[0] == r) for r, s_ in used)]
    k = rnd.randrange(3, 9)
    defender = rnd.sample(near, min(k, len(near)))
    defender += rnd.sample([c for c in rest if c not in defender], 10 - len(defender))
    return melds, defender


def test_gin_layoffs_are_the_best_over_all_choices():
    """Layoffs: for random knocker melds and defender hands, the spec's deadwood after laying off
    equals the brute force's (every subset of cards laid off, own melds of the rest)."""
    rnd = random.Random(41)
    s = GIN.new_game(players=2, seed=0)
    cases = [random_layoff_case(rnd) for _ in range(150)]
    got = GIN.evaluate(s, "[after_layoffs(c[0], c[1]) for c in cs]",
                       cs=[[ids_of(s, d), [ids_of(s, m) for m in ms]] for ms, d in cases])
    want = [brute_layoff(d, ms) for ms, d in cases]
    assert got == want
    assert sum(1 for (ms, d), w in zip(cases, want) if w < brute_deadwood(d)) >= 40   # layoffs mattered


def greedy_gin(s, rnd):
    """A simple player that knocks whenever it may, keeps melded cards and throws high loose cards."""
    acts = legal(s)
    knocks = [a for a in acts if a.name == "knock"]
    if knocks:
        return min(knocks, key=lambda a: rnd.random())
    throws = [a for a in acts if a.name == "discard"]
    if throws:
        free = set(var(s, "free", s.current_player))
        loose = [a for a in throws if a.bind["card"] in free] or throws
        return max(loose, key=lambda a: (face(s, a.bind["card"])["rank"], rnd.random()))
    takes = [a for a in acts if a.name == "take_discard"]
    if takes and rnd.random() < 0.3:
        return takes[0]
    others = [a for a in acts if a.name != "take_discard"] or acts
    return others[rnd.randrange(len(others))]


def play_knocks(n_games, seed0, check_legal=False):
    """Hands at knocks in games played by greedy players: each hand's recorded deadwood (knocker,
    defender before and after layoffs) is checked against the brute force."""
    knocks = 0
    for g in range(n_games):
        rnd = random.Random(seed0 + g)
        s = GIN.new_game(players=2, seed=seed0 + g)
        while not s.is_terminal:
            if check_legal and legal(s, "discard"):
                p = s.current_player
                hand = zone(s, "hand", p)
                taken = var(s, "taken")
                ok = sorted(c for c in hand if c != taken and brute_deadwood(pairs(s, [x for x in hand if x != c])) <= 10)
                assert sorted(a.bind["card"] for a in legal(s, "knock")) == ok
            s.apply(greedy_gin(s, rnd))
        kn = var(s, "knocker")
        if kn is None or kn < 0:
            continue
        knocks += 1
        d = 1 - kn
        melds = [pairs(s, zone(s, "meld", i)) for i in range(3) if zone(s, "meld", i)]
        knocker_cards = [c for m in melds for c in m] + pairs(s, zone(s, "spread", kn))
        defender = pairs(s, zone(s, "spread", d))
        assert len(knocker_cards) == 10 and len(defender) == 10
        assert var(s, "knock_dw") == brute_deadwood(knocker_cards) <= 10
        assert var(s, "own_dw") == brute_deadwood(defender)
        for m in melds:
            assert frozenset(m) in brute_melds(m)
        want = var(s, "own_dw") if var(s, "knock_dw") == 0 else brute_layoff(defender, melds)
        assert var(s, "final_dw") == want
        kd, fd = var(s, "knock_dw"), var(s, "final_dw")
        pts = [var(s, "hand_pts", p) for p in range(2)]
        if kd == 0:
            assert pts[kn] == 25 + fd
        elif kd < fd:
            assert pts[kn] == fd - kd
        else:
            assert pts[d] == 25 + kd - fd
    return knocks


def test_gin_hands_at_knocks_match_the_brute_force():
    assert play_knocks(40, 500) >= 15


@pytest.mark.slow
def test_gin_hands_at_knocks_match_the_brute_force_many():
    assert play_knocks(400, 5000, check_legal=True) >= 150


# ============================================================================= Gin Rummy: the rules

def gin_table(hand0, hand1, upcard, stock_top=(), variables=None, options=None, dealer=0):
    """Player 1 (non-dealer) to decide on the upcard. stock_top: the stock's top cards, topmost last."""
    zones = {("hand", 0): hand0, ("hand", 1): hand1, ("discard", 0): [upcard]}
    s = arrange(GIN, 2, zones, variables=variables, options=options)
    if stock_top:
        d = s.to_json()
        z = d["zones"][zid(s, "stock")]
        for f in stock_top:
            z.remove(card(s, f))
            z.append(card(s, f))
        s = GIN.arranged_state(d)
    return s


H_RUNS = ["A♣", "2♣", "3♣", "4♥", "5♥", "6♥", "9♠", "9♦", "9♥", "K♦"]         # deadwood 10
H_LOOSE = ["K♣", "Q♦", "J♥", "10♠", "8♣", "7♦", "6♠", "5♣", "3♦", "2♥"]        # no meld


def test_gin_upcard_offer_then_stock():
    s = gin_table(H_LOOSE, H_RUNS, "7♠")
    assert s.current_player == 1 and names(s) == ["refuse", "take_discard"]
    act(s, "refuse")
    assert s.current_player == 0 and names(s) == ["refuse", "take_discard"]
    act(s, "refuse")
    # both refused: the non-dealer must draw from the stock
    assert s.current_player == 1 and names(s) == ["draw"]
    act(s, "draw")
    assert names(s) in (["discard", "knock"], ["discard"])


def test_gin_taken_card_cannot_be_thrown_back():
    s = gin_table(H_LOOSE, H_RUNS, "7♠")
    act(s, "take_discard")
    assert "7♠" not in cards_played(s, "discard") and len(legal(s, "discard")) == 10


def test_gin_knock_needs_ten_or_less():
    s = gin_table(H_LOOSE, H_RUNS, "Q♠")
    act(s, "take_discard")
    # discarding K♦ leaves Q♠ (10): deadwood 10, a knock; discarding a meld card leaves more
    assert cards_played(s, "knock") == ["K♦"]
    s2 = gin_table(H_LOOSE, ["A♣", "2♣", "3♣", "4♥", "5♥", "6♥", "9♠", "9♦", "J♠", "K♦"], "Q♠")
    act(s2, "take_discard")
    assert legal(s2, "knock") == []                      # 9 + 9 + 10 + 10 at best


def test_gin_knock_scores_the_difference_and_lays_off():
    # knocker (1): A-2-3♣, 4-5-6♥, 9♠9♦9♥, draws 2♦ and knocks throwing K♦: deadwood 2
    s = gin_table(["4♣", "7♥", "9♣", "K♣", "Q♦", "J♠", "10♦", "8♠", "6♦", "5♠"], H_RUNS, "J♦",
                  stock_top=["2♦"])
    act(s, "refuse")
    act(s, "refuse")
    act(s, "draw")
    act(s, "knock", card="K♦")
    assert s.is_terminal
    # defender: 4♣ lays off on A-2-3♣, 7♥ on 4-5-6♥, 9♣ on the nines: 79 - 20 = 59 left
    assert var(s, "knock_dw") == 2 and var(s, "own_dw") == 79 and var(s, "final_dw") == 59
    assert s.scores == [0, 57] and s.winners == [1]
    assert len(zone(s, "meld", 0)) + len(zone(s, "meld", 1)) + len(zone(s, "meld", 2)) == 9


def test_gin_undercut():
    # A♠ fits the aces and the spade run: A-A-A, 2-3-4♠, J-Q-K♥ leave 5 (A-4♠ would leave 7)
    defender = ["A♠", "A♥", "A♦", "2♠", "3♠", "4♠", "K♥", "Q♥", "J♥", "5♦"]
    s = gin_table(defender, H_RUNS, "J♦", stock_top=["8♦"])
    act(s, "refuse")
    act(s, "refuse")
    act(s, "draw")
    act(s, "knock", card="K♦")                          # knocker's deadwood 8
    assert var(s, "knock_dw") == 8 and var(s, "own_dw") == var(s, "final_dw") == 5
    assert s.scores == [25 + 8 - 5, 0] and s.winners == [0]
    # a tie is an undercut too
    s = gin_table(["A♠", "A♥", "A♦", "2♠", "3♠", "4♠", "K♥", "Q♥", "J♥", "8♣"], H_RUNS, "J♦",
                  stock_top=["8♦"])
    act(s, "refuse")
    act(s, "refuse")
    act(s, "draw")
    act(s, "knock", card="K♦")
    assert s.scores == [25, 0] and s.winners == [0]


def test_gin_bonus_and_no_layoffs_against_gin():
    # the non-dealer takes the upcard 9♣ and knocks throwing K♦: all ten cards melded, gin
    s = gin_table(["4♣", "7♥", "8♦", "K♣", "Q♦", "J♠", "10♠", "8♠", "6♦", "5♠"],
                  ["A♣", "2♣", "3♣", "4♥", "5♥", "6♥", "9♠", "9♦", "9♥", "K♦"], "9♣")
    act(s, "take_discard")
    act(s, "knock", card="K♦")
    assert var(s, "knock_dw") == 0
    # no layoffs against gin: 4♣ and 7♥ stay deadwood
    assert var(s, "final_dw") == var(s, "own_dw") == 4 + 7 + 8 + 10 + 10 + 10 + 10 + 8 + 6 + 5
    assert s.scores == [0, 25 + 78]


def test_gin_stock_down_to_two_cancels_the_hand():
    s = gin_table(H_LOOSE, ["K♥", "Q♠", "J♦", "10♥", "8♥", "7♠", "6♣", "5♦", "3♥", "2♠"], "4♦")
    d = s.to_json()
    z = d["zones"][zid(s, "stock")]
    d["zones"][zid(s, "stock")] = z[-3:]
    d["zones"][zid(s, "spread", 0)] = z[:-3]           # out of play
    s = GIN.arranged_state(d)
    act(s, "refuse")
    act(s, "refuse")
    act(s, "draw")
    s.apply(legal(s, "discard")[0])
    assert s.is_terminal and s.scores == [0, 0] and s.winners == [0, 1]


def test_gin_game_to_100_with_bonuses():
    s = gin_table(["4♣", "7♥", "9♣", "K♣", "Q♦", "J♠", "10♦", "8♠", "6♦", "5♠"], H_RUNS, "J♦",
                  stock_top=["2♦"], options={"game_to": 100}, variables={"points": [20, 60], "won": [1, 2]})
    act(s, "refuse")
    act(s, "refuse")
    act(s, "draw")
    act(s, "knock", card="K♦")
    # 60 + 57 = 117 >= 100: game bonus 100, line bonus 25 per hand won (1 and 3)
    assert s.is_terminal and s.scores == [20 + 25, 117 + 100 + 75] and s.winners == [1]
    s = gin_table(["4♣", "7♥", "9♣", "K♣", "Q♦", "J♠", "10♦", "8♠", "6♦", "5♠"], H_RUNS, "J♦",
                  stock_top=["2♦"], options={"game_to": 100, "bonuses": False},
                  variables={"points": [0, 60], "won": [0, 2]})
    act(s, "refuse")
    act(s, "refuse")
    act(s, "draw")
    act(s, "knock", card="K♦")
    assert s.scores == [0, 117]
    # a shutout: the loser won no hand, the game bonus is 200
    s = gin_table(["4♣", "7♥", "9♣", "K♣", "Q♦", "J♠", "10♦", "8♠", "6♦", "5♠"], H_RUNS, "J♦",
                  stock_top=["2♦"], options={"game_to": 100}, variables={"points": [0, 60], "won": [0, 2]})
    act(s, "refuse")
    act(s, "refuse")
    act(s, "draw")
    act(s, "knock", card="K♦")
    assert s.scores == [0, 117 + 200 + 75]


def test_gin_next_hand_dealt_by_the_winner():
    s = gin_table(["4♣", "7♥", "9♣", "K♣", "Q♦", "J♠", "10♦", "8♠", "6♦", "5♠"], H_RUNS, "J♦",
                  stock_top=["2♦"], options={"game_to": 100})
    act(s, "refuse")
    act(s, "refuse")
    act(s, "draw")
    act(s, "knock", card="K♦")
    assert not s.is_terminal and var(s, "hands") == 2 and var(s, "dealer") == 1
    assert s.current_player == 0 and all(len(zone(s, "hand", p)) == 10 for p in range(2))
    assert var(s, "points", 1) == 57


# ============================================================================= golden logs

# written with `gamespec run games/<id>.yaml --players P --seed S [-O ...] --log FILE`: (decisions,
# scores, winners) as recorded then
GOLDEN_LOGS = {
    "crazy_eights-7.jsonl": (21, [0, 0, 49], [2]),                      # 3 players, one hand
    "crazy_eights-12.jsonl": (66, [0, 0, 101, 0, 70], [2]),             # 5 players, goal=100, draw_limit=3
    "president-3.jsonl": (308, [8, 7, 2, 1], [0]),                      # 4 players, rounds=3
    "president-5.jsonl": (323, [7, 5, 3, 7, 4, 4], [0]),                # 6 players, exchange=1
    "gin_rummy-8.jsonl": (148, [27, 0], [0]),                           # one hand, each ended by a knock
    "gin_rummy-55.jsonl": (61, [0, 60], [1]),
}


@pytest.mark.parametrize("name", sorted(GOLDEN_LOGS))
def test_golden_logs_replay(name, capsys):
    out = replay(capsys, GOLDEN / name)
    want = GOLDEN_LOGS[name]
    assert out["ok"] is True and out["error"] is None
    assert (out["decisions"], out["scores"], out["winners"]) == want


@pytest.mark.parametrize("name", ["gin_rummy-8.jsonl", "gin_rummy-55.jsonl"])
def test_golden_gin_knocks_match_the_brute_force(name):
    """The golden Gin logs re-played through the Python API: the knock's deadwood, the defender's
    before and after laying off, are the brute force's."""
    lines = [json.loads(x) for x in (GOLDEN / name).read_text(encoding="utf-8").splitlines()]
    head = lines[0]
    s = GIN.new_game(players=head["players"], seed=head["seed"], options=head["options"])
    for x in lines:
        if x["type"] == "decision":
            s.apply(x["action"])
    assert s.is_terminal and s.scores == lines[-1]["scores"]
    kn = var(s, "knocker")
    melds = [pairs(s, zone(s, "meld", i)) for i in range(3) if zone(s, "meld", i)]
    knocker_cards = [c for m in melds for c in m] + pairs(s, zone(s, "spread", kn))
    defender = pairs(s, zone(s, "spread", 1 - kn))
    assert var(s, "knock_dw") == brute_deadwood(knocker_cards) <= 10
    assert var(s, "own_dw") == brute_deadwood(defender)
    assert var(s, "final_dw") == (var(s, "own_dw") if var(s, "knock_dw") == 0 else brute_layoff(defender, melds))
