"""No-limit Texas hold'em (games/holdem.yaml): each rule (blinds, the minimum raise, all-in for less,
side pots, split pots, the odd chip) pinned by a test that fails if it is broken, driven through the
state API from arranged deals; the outside check: a plain-Python seven-card evaluator and pot
splitter, written here, against the engine's showdowns over random games; the golden logs replayed."""
import itertools
import json
import random
from pathlib import Path

import pytest

import gamespec
from gamespec.cli import main

from helpers import cards_where, names, var, zone
from helpers import face as card_face

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "games" / "holdem.yaml"
GAME = gamespec.load(str(SPEC))
RANKS = {"A": 14, "K": 13, "Q": 12, "J": 11, "T": 10, **{str(n): n for n in range(2, 10)}}


# ----------------------------------------------------------------------------- helpers

def face(s, c):
    """A card's (rank, suit)."""
    f = card_face(s, c)
    return f["rank"], f["suit"]


def vals(s, name):
    return [var(s, name, p) for p in range(s.rs.P)]


def card_id(s, text):
    """The card id of 'Ah', 'Tc', '2d'."""
    [c] = cards_where(s, rank=RANKS[text[0]], suit=text[1])
    return c


def arrange(players, holes, board, chips=None, seed=0, **options):
    """A game at its first decision whose hole cards are `holes` (per seat, e.g. ['Ah', 'Kd']) and
    whose board will come out as `board` (five cards, flop first); `chips`: each seat's stack before
    the blinds (default: the starting stack)."""
    s = GAME.new_game(players=players, seed=seed, options=options or None)
    d = s.to_json()
    rs = s.rs
    zb = rs.zone_base
    used = set()

    def take(t):
        c = card_id(s, t)
        assert c not in used
        used.add(c)
        return c

    zones = [[] for _ in range(rs.nzones)]
    for p, h in enumerate(holes):
        zones[zb["hand"] + p] = [take(t) for t in h]
    fl = [take(t) for t in board]
    rest = [c for c in range(rs.ncards) if c not in used]
    random.Random(seed).shuffle(rest)
    burns = rest[:3]
    rest = rest[3:]
    top = [burns[0], *fl[:3], burns[1], fl[3], burns[2], fl[4]]    # topmost first
    zones[zb["deck"]] = rest + top[::-1]
    d["zones"] = zones
    d["known"] = [0] * rs.ncards
    if chips is not None:
        for p, n in enumerate(chips):
            d["vars"][rs.var_base["chips"] + p] = n - var(s, "put_in", p)
    return GAME.arranged_state(d)


def sizes(s, name):
    return sorted(a.bind["to"] for a in s.legal_actions() if a.name == name)


def act(s, name, to=None):
    assert not s.is_terminal
    found = [a for a in s.legal_actions() if a.name == name and (to is None or a.bind.get("to") == to)]
    assert len(found) == 1, f"no single legal {name} {to}: {[a.to_json() for a in s.legal_actions()]}"
    s.apply(found[0])
    return s


def play(s, *moves):
    for m in moves:
        if isinstance(m, tuple):
            act(s, *m)
        else:
            act(s, m)
    return s


# ----------------------------------------------------------------------------- an evaluator

def five_value(cards):
    """(category, tie-break ranks) of five (rank, suit) cards: higher is better."""
    rs = sorted((r for r, _ in cards), reverse=True)
    flush = len({s for _, s in cards}) == 1
    distinct = sorted(set(rs), reverse=True)
    straight_high = None
    if len(distinct) == 5:
        if rs[0] - rs[4] == 4:
            straight_high = rs[0]
        elif rs == [14, 5, 4, 3, 2]:            # the wheel: the ace plays low
            straight_high = 5
    groups = sorted(((rs.count(r), r) for r in distinct), reverse=True)
    shape = [n for n, _ in groups]
    kick = [r for _, r in groups]
    if straight_high and flush:
        return (8, [straight_high])
    if shape == [4, 1]:
        return (7, kick)
    if shape == [3, 2]:
        return (6, kick)
    if flush:
        return (5, kick)
    if straight_high:
        return (4, [straight_high])
    if shape == [3, 1, 1]:
        return (3, kick)
    if shape == [2, 2, 1]:
        return (2, kick)
    if shape == [2, 1, 1, 1]:
        return (1, kick)
    return (0, kick)


def best_of_seven(cards):
    return max(five_value(f) for f in itertools.combinations(cards, 5))


def split_pots(put_in, live, value, button):
    """Each seat's winnings: a pot per distinct contribution of a live player, shared by the best
    hands among the live players who put in that much; odd chips one each from the button's left."""
    n = len(put_in)
    order = [(button + 1 + i) % n for i in range(n)]
    won = [0] * n
    prev = 0
    for level in sorted({put_in[q] for q in live}):
        amount = sum(min(x, level) - min(x, prev) for x in put_in)
        elig = [q for q in live if put_in[q] >= level]
        best = max(value[q] for q in elig)
        winners = [q for q in order if q in elig and value[q] == best]
        for i, q in enumerate(winners):
            won[q] += amount // len(winners) + (1 if i < amount % len(winners) else 0)
        prev = level
    return won


def test_the_test_evaluator_ranks_the_categories():
    h = lambda t: [(RANKS[x[0]], x[1]) for x in t.split()]
    order = ["2c 3d 5h 7s 9c Jd Kh",            # high card
             "2c 2d 5h 7s 9c Jd Kh",            # pair
             "2c 2d 5h 5s 9c Jd Kh",            # two pair
             "2c 2d 2h 7s 9c Jd Kh",            # trips
             "Ac 2d 3h 4s 5c Jd Kh",            # the wheel
             "6c 2d 3h 4s 5c Jd Kh",            # a six-high straight
             "2c 4c 5c 7c 9c Jd Kh",            # flush
             "2c 2d 2h 7s 7c Jd Kh",            # full house
             "2c 2d 2h 2s 9c Jd Kh",            # quads
             "Ac 2c 3c 4c 5c Jd Kh",            # steel wheel
             "Tc Jc Qc Kc Ac 2d 3h"]            # royal flush
    vals = [best_of_seven(h(t)) for t in order]
    assert [v[0] for v in vals] == [0, 1, 2, 3, 4, 4, 5, 6, 7, 8, 8]
    assert vals == sorted(vals) and len({repr(v) for v in vals}) == 11


# ----------------------------------------------------------------------------- blinds and turn order

def test_blinds_are_posted_left_of_the_button_and_the_next_player_acts_first():
    s = GAME.new_game(players=4, seed=1)
    assert var(s, "button") == 0
    assert vals(s, "put_in") == [0, 1, 2, 0] and vals(s, "chips") == [100, 99, 98, 100]
    assert s.current_player == 3                              # left of the big blind
    assert names(s) == ["call", "fold", "raise"]
    play(s, "fold", "fold", "fold")                           # folded round to the big blind
    # the next hand has begun: the big blind won the small blind's chip
    assert [c + p for c, p in zip(vals(s, "chips"), vals(s, "put_in"))] == [100, 99, 101, 100]
    assert var(s, "button") == 1 and vals(s, "put_in") == [0, 0, 1, 2]   # the button moves left
    assert s.current_player == 0


def test_the_big_blind_has_the_option_and_heads_up_the_button_posts_the_small_blind():
    s = GAME.new_game(players=2, seed=1, options={"small_blind": 5, "big_blind": 10})
    assert var(s, "button") == 0 and vals(s, "put_in") == [5, 10]
    assert s.current_player == 0                              # the button acts first before the flop
    act(s, "call")
    assert s.current_player == 1 and names(s) == ["check", "raise"]    # the big blind's option
    act(s, "check")
    assert len(zone(s, "board")) == 3 and len(zone(s, "burned")) == 1
    assert s.current_player == 1                              # after the flop the big blind first
    assert names(s) == ["bet", "check"]


def test_a_short_big_blind_posts_all_in_and_the_others_still_call_the_full_blind():
    # seat 0, the button, has 1 chip; everyone folds to the big blind; next hand seat 0 is the big blind
    s = arrange(3, [["Ah", "Ad"], ["Kh", "Kd"], ["Qh", "Qd"]], ["2c", "7d", "9h", "Js", "3c"],
                chips=[1, 100, 100])
    play(s, "fold", "fold")
    assert var(s, "button") == 1 and var(s, "bb_seat") == 0
    assert vals(s, "put_in") == [1, 0, 1] and var(s, "chips", 0) == 0     # all-in for 1
    assert var(s, "to_call") == 2 and s.current_player == 1
    act(s, "call")
    assert var(s, "put_in", 1) == 2                          # the full big blind


# ----------------------------------------------------------------------------- bet sizes

def test_the_minimum_raise_is_the_last_raise_size_and_a_bet_at_least_the_big_blind():
    s = GAME.new_game(players=3, seed=2)
    assert sizes(s, "raise")[0] == 4 and sizes(s, "raise")[-1] == 100     # raise to 4 .. all-in
    assert sizes(s, "raise") == list(range(4, 101))
    act(s, "raise", 10)                                      # a raise of 8
    assert sizes(s, "raise")[0] == 18                         # so at least 8 more: to 18
    act(s, "raise", 30)                                      # a raise of 20
    assert sizes(s, "raise")[0] == 50
    play(s, "fold", "call")
    assert len(zone(s, "board")) == 3
    assert sizes(s, "bet") == list(range(2, 71))              # the big blind to all-in (70 behind)


def test_an_all_in_for_less_than_a_full_raise_does_not_reopen_the_betting():
    # seat 0 is the button; seat 1 posts 1, seat 2 posts 2; seat 2 has 12 chips in all
    s = arrange(4, [["Ah", "Ad"], ["Kh", "Kd"], ["Qh", "Qd"], ["Jh", "Jd"]],
                ["2c", "7d", "9h", "4s", "3c"], chips=[100, 100, 12, 100])
    act(s, "raise", 8)                                       # seat 3 raises 6, to 8
    act(s, "call")                                           # seat 0
    act(s, "call")                                           # seat 1
    assert s.current_player == 2 and sizes(s, "raise") == [12]   # all-in for less than 14
    act(s, "raise", 12)
    assert var(s, "to_call") == 12 and var(s, "last_raise") == 6
    # seat 3 has acted and faces 4 more, less than a full raise: call or fold only
    assert s.current_player == 3 and names(s) == ["call", "fold"]
    act(s, "call")
    assert names(s) == ["call", "fold"]
    play(s, "call", "call")
    assert len(zone(s, "board")) == 3


def test_an_all_in_for_less_still_lets_a_player_yet_to_act_raise():
    s = arrange(3, [["Ah", "Ad"], ["Kh", "Kd"], ["Qh", "Qd"]], ["2c", "7d", "9h", "4s", "3c"],
                chips=[3, 100, 100])
    assert sizes(s, "raise") == [3]                          # the button: all-in for 3 (< 4)
    act(s, "raise", 3)
    assert var(s, "last_raise") == 2 and var(s, "to_call") == 3
    assert s.current_player == 1 and "raise" in names(s)     # the blinds have not acted
    assert sizes(s, "raise")[0] == 5                          # 3 + the last full raise (2)


def test_short_all_ins_adding_up_to_a_full_raise_reopen_the_betting():
    s = arrange(4, [["Ah", "Ad"], ["Kh", "Kd"], ["Qh", "Qd"], ["Jh", "Jd"]],
                ["2c", "7d", "9h", "4s", "3c"], chips=[13, 15, 100, 100])
    act(s, "raise", 10)                                      # seat 3: to 10, a raise of 8
    act(s, "raise", 13)                                      # seat 0: all-in, 3 more
    act(s, "raise", 15)                                      # seat 1: all-in, 2 more
    act(s, "call")                                           # seat 2
    # seat 3 faced 10 and now faces 15: 5 more, less than 8: no raise
    assert s.current_player == 3 and names(s) == ["call", "fold"]
    s = arrange(4, [["Ah", "Ad"], ["Kh", "Kd"], ["Qh", "Qd"], ["Jh", "Jd"]],
                ["2c", "7d", "9h", "4s", "3c"], chips=[15, 19, 100, 100])
    act(s, "raise", 10)
    act(s, "raise", 15)
    act(s, "raise", 19)                                      # 9 more in all: a full raise
    act(s, "call")
    assert s.current_player == 3 and "raise" in names(s)


# ----------------------------------------------------------------------------- pots

def test_side_pots_go_to_the_best_hand_among_those_who_put_in_enough():
    # seat 0 (20 chips) holds the best hand, seat 1 (50) the second, seat 2 (100) the worst
    s = arrange(3, [["Ah", "Ad"], ["Kh", "Kd"], ["Qh", "Jd"]], ["2c", "7d", "9h", "4s", "3c"],
                chips=[20, 50, 100], hand_limit=1)
    play(s, ("raise", 20), ("raise", 50), ("raise", 100))
    assert s.is_terminal
    # the main pot 3 x 20 to seat 0, the side pot 2 x 30 to seat 1, seat 2's last 50 back to it
    assert vals(s, "pot_won") == [60, 60, 50]
    assert s.scores == [60, 60, 50]
    assert all(len(zone(s, "shown", p)) == 2 for p in range(3))   # shown down
    assert len(zone(s, "board")) == 5


def test_a_folded_player_s_chips_stay_in_the_pots_they_reach():
    s = arrange(4, [["Ah", "Ad"], ["Kh", "Kd"], ["Qh", "Jd"], ["5h", "6d"]],
                ["2c", "7d", "9h", "4s", "Tc"], chips=[100, 10, 100, 100], hand_limit=1)
    # seat 3 raises to 30, seat 0 folds, seat 1 all-in for 10, seat 2 calls 30, seat 3 checks down
    play(s, ("raise", 30), "fold", "call", "call")
    play(s, "check", "check", "check", "check", "check", "check")
    assert s.is_terminal
    # main pot: 10 from seats 1, 2, 3 = 30, won by seat 1 (kings); side pot 20 + 20 between seats
    # 2 (queen high) and 3 (ten high); seat 0 folded before putting anything in
    b = [(RANKS[t[0]], t[1]) for t in ["2c", "7d", "9h", "4s", "Tc"]]
    v2 = best_of_seven(b + [(12, "h"), (11, "d")])
    v3 = best_of_seven(b + [(5, "h"), (6, "d")])
    side_winner = 2 if v2 > v3 else 3
    want = [0, 30, 0, 0]
    want[side_winner] = 40
    assert vals(s, "pot_won") == want
    assert sum(s.scores) == 310


def test_a_tie_splits_the_pot_and_the_odd_chip_goes_left_of_the_button():
    # the board is a straight both remaining players play; the pot is 5 (2 + the small blind's 1 + 2)
    s = arrange(3, [["2h", "2d"], ["Kh", "Kd"], ["3h", "3d"]], ["Tc", "Jd", "Qh", "Ks", "Ac"],
                hand_limit=1)
    play(s, "call", "fold", "check")                         # the button calls, the SB folds
    play(s, "check", "check", "check", "check", "check", "check")
    assert s.is_terminal
    # seat 2 (the first winner left of the button, seat 0) takes the odd chip
    assert vals(s, "pot_won") == [2, 0, 3]
    assert s.scores == [100, 99, 101]


def test_the_best_five_of_seven_decides_with_kickers():
    # both have a pair of aces with the board; seat 1's king kicker beats seat 0's queen
    s = arrange(2, [["Ah", "Qd"], ["Ad", "Kc"]], ["As", "7d", "9h", "4s", "2c"], hand_limit=1)
    play(s, "call", "check", *["check"] * 6)
    assert s.is_terminal and vals(s, "pot_won") == [0, 4]
    # the wheel loses to a six-high straight
    s = arrange(2, [["Ah", "Qd"], ["6d", "Kc"]], ["2s", "3d", "4h", "5s", "Jc"], hand_limit=1)
    play(s, "call", "check", *["check"] * 6)
    assert vals(s, "pot_won") == [0, 4]


def test_a_set_number_of_hands_or_until_one_player_has_every_chip():
    s = GAME.new_game(players=3, seed=4, options={"hand_limit": 2})
    while not s.is_terminal:
        act(s, "fold" if "fold" in names(s) else "check")
    assert var(s, "hands_played") == 2 and sum(s.scores) == 300
    s = GAME.new_game(players=3, seed=4, options={"hand_limit": 0})
    while not s.is_terminal:
        ups = sizes(s, "raise") + sizes(s, "bet")
        act(s, "raise" if "raise" in names(s) else "bet", ups[-1]) if ups else act(s, names(s)[0])
    assert sorted(s.scores) == [0, 0, 300]


# ----------------------------------------------------------------------------- the outside check

def random_showdowns(n, seed):
    """Play random one-hand games until n showdowns; check each against the plain evaluator."""
    rng = random.Random(seed)
    got = games = 0
    while got < n:
        games += 1
        P = rng.randint(2, 9)
        opts = {"hand_limit": 1}
        s = GAME.new_game(players=P, seed=rng.getrandbits(32), options=opts)
        # uneven stacks, so that side pots are common
        d = s.to_json()
        for p in range(P):
            if var(s, "put_in", p) == 0:
                d["vars"][s.rs.var_base["chips"] + p] = rng.randint(1, 100)
        s = GAME.arranged_state(d)
        button = var(s, "button")
        total = sum(vals(s, "chips")) + sum(vals(s, "put_in"))
        while not s.is_terminal:
            acts = s.legal_actions()
            kinds = sorted({a.name for a in acts})
            w = {"fold": 1, "check": 4, "call": 4, "bet": 2, "raise": 2}
            k = rng.choices(kinds, weights=[w[x] for x in kinds])[0]
            s.apply(rng.choice([a for a in acts if a.name == k]))
        assert sum(s.scores) == total                          # no chip made or lost
        live = [p for p in range(P) if len(zone(s, "shown", p))]
        if len(live) < 2:
            continue
        board = [face(s, c) for c in zone(s, "board")]
        assert len(board) == 5
        value = {p: best_of_seven(board + [face(s, c) for c in zone(s, "shown", p)]) for p in live}
        assert vals(s, "pot_won") == split_pots(vals(s, "put_in"), live, value, button)
        got += 1
    return games


def test_showdowns_match_a_plain_evaluator_and_pot_splitter():
    assert random_showdowns(400, seed=1) >= 400


@pytest.mark.slow
def test_showdowns_match_a_plain_evaluator_and_pot_splitter_many():
    random_showdowns(1500, seed=2)


# ----------------------------------------------------------------------------- golden logs

@pytest.mark.parametrize("name,scores,winners,decisions", [
    ("holdem-7", [300, 0, 0], [0], 8),                        # 3 players, played out to one
    ("holdem-11", [0, 0, 0, 0, 0, 600], [5], 43),             # 6 players
])
def test_golden_logs_replay(name, scores, winners, decisions, capsys):
    path = ROOT / "tests" / "golden" / f"{name}.jsonl"
    assert main(["replay", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["scores"] == scores and out["winners"] == winners and out["decisions"] == decisions


def test_the_table_shows_the_street_by_name_and_leaves_the_bookkeeping_out():
    """presentation: the street's number in words (pre-flop ... showdown), the rules' own flags
    (dealt_in, has_acted, faced) not drawn, the others in poker's words."""
    from gamespec.spec.presentation import of_game
    from gamespec.table.screen import Screen
    from gamespec.table.transcript import Labels
    s = GAME.new_game(players=3, seed=3)
    screen = Screen(of_game(GAME), Labels(s.rs), 3, 0)
    seen = set()
    rng = random.Random(1)
    while not s.is_terminal and len(seen) < 4 and s.decisions < 400:
        text = "\n".join(t for t, _ in screen.lines(s.view(0).observation, "head"))
        street = var(s, "street")
        words = ["pre-flop", "flop", "turn", "river", "showdown"][street]
        assert f"Street {words}" in text, text
        seen.add(street)
        for hidden in ("dealt in", "has acted", "faced", "Street 0", "sb seat"):
            assert hidden not in text, text
        assert "To call" in text and "Small blind" in text and "Chips" in text
        s.apply(rng.choice(s.legal_actions()))
    assert len(seen) >= 2, seen
