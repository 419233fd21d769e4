"""Klink (games/klink.yaml): each rule of /work/shared/rules/klink.md pinned by a test that fails if it
is broken. Situations are built by editing a fresh game's JSON at its first decision (player 0 about to
look at the two cards just drawn) and driven with legal actions."""
import collections
import random
from pathlib import Path

import pytest

import gamespec

SPEC = Path(__file__).resolve().parent.parent / "games" / "klink.yaml"
GAME = gamespec.load(str(SPEC))


# ----------------------------------------------------------------------------- helpers

def face(s, c):
    return s.rs.faces[s.rs.face_of[c]]


def zone(s, name, key=None):
    """Card ids of a zone, bottom to top."""
    return s.z[s.rs.zone_base[name] + (key or 0)]


def values(s, name, key=None):
    return sorted(face(s, c)["value"] for c in zone(s, name, key))


def kinds(s, name):
    return sorted(face(s, c)["kind"] for c in zone(s, name))


def var(s, name, p=None):
    return s.v[s.rs.var_base[name] + (p or 0)]


def names(s):
    return sorted({a.name for a in s.legal_actions()})


def matches(s, a, want):
    for k, v in want.items():
        b = a.bind.get(k)
        if isinstance(b, int) and k in ("card", "mine", "theirs"):
            b = face(s, b)["value"]
        elif k == "ab":
            b = face(s, b)["kind"]
        if b != v:
            return False
    return True


def options(s, name, **want):
    return [a for a in s.legal_actions() if a.name == name and matches(s, a, want)]


def act(s, name, **want):
    """Apply the one legal action `name` whose parameters match (card params by value, ab by kind)."""
    found = options(s, name, **want)
    assert found, f"no legal {name} {want}; legal: {[a.to_json() for a in s.legal_actions()]}"
    assert len({a.key() for a in found}) == 1 or not want, f"ambiguous {name} {want}: {found}"
    s.apply(found[0])
    return s


def build(players=3, seed=0, faceup=None, facedown=None, pair=(20, 18), deck_top=(), deck_size=None,
          discard=(), up=("swap", "drop", "hide"), ability_deck=None, ability_discard=(), ability_elsewhere=False,
          variables=None):
    """A state at player 0's first decision (look) of round 1 with the given layout.

    faceup/facedown: {player: [values]}; pair: the two drawn values; deck_top: values on top of the
    number deck, topmost first; deck_size: cut the number deck (after the draw) to this size (the
    rest leave play); discard: dropped number cards;
    up: the 3 face-up abilities; ability_deck: kinds bottom to top (None: all the others, shuffled);
    the others go to the ability discard (or out of play with ability_elsewhere)."""
    s = GAME.new_game(players=players, seed=seed)
    rs = s.rs
    zb = rs.zone_base
    nums, abil = collections.defaultdict(list), collections.defaultdict(list)
    for c in range(rs.ncards):
        f = face(s, c)
        (nums[f["value"]] if f["type"] == "number" else abil[f["kind"]]).append(c)
    zones = [[] for _ in range(rs.nzones)]
    take = lambda v: nums[v].pop()
    takea = lambda k: abil[k].pop()
    for p, vs in (faceup or {}).items():
        zones[zb["faceup"] + p] = [take(v) for v in vs]
    for p, vs in (facedown or {}).items():
        zones[zb["facedown"] + p] = [take(v) for v in vs]
    zones[zb["pair"]] = [take(v) for v in pair]
    zones[zb["number_discard"]] = [take(v) for v in discard]
    top = [take(v) for v in deck_top]
    rest = [c for v in sorted(nums) for c in nums[v]]
    random.Random(seed).shuffle(rest)
    if deck_size is not None:
        n = deck_size - len(top)
        zones[zb["removed"]] += rest[n:]
        rest = rest[:n]
    zones[zb["number_deck"]] = rest + top[::-1]
    zones[zb["abilities_up"]] = [takea(k) for k in up]
    if ability_deck is not None:
        zones[zb["ability_deck"]] = [takea(k) for k in ability_deck]
    zones[zb["ability_discard"]] = [takea(k) for k in ability_discard]
    others = [c for k in sorted(abil) for c in abil[k]]
    if ability_deck is None:
        random.Random(seed).shuffle(others)
        zones[zb["ability_deck"]] = others
    elif ability_elsewhere:
        zones[zb["removed"]] += others
    else:
        zones[zb["ability_discard"]] += others
    d = s.to_json()
    d["zones"] = zones
    d["known"] = [0] * rs.ncards
    for name, val in (variables or {}).items():
        if isinstance(val, list):
            for p, x in enumerate(val):
                d["vars"][rs.var_base[name] + p] = x
        else:
            d["vars"][rs.var_base[name]] = val
    return GAME.arranged_state(d)


def keep(s):
    """The holder looks at the first card and keeps the pair."""
    s.apply(options(s, "look")[0])
    return act(s, "keep")


def end_round(players, faceup=None, facedown=None, pair=(20, 18), **kw):
    """Player 0 keeps `pair` with 1 card left in the number deck, so the round ends after the keep
    (the keep must make no straight)."""
    s = build(players, faceup=faceup, facedown=facedown, pair=pair, deck_size=1, **kw)
    keep(s)
    assert var(s, "rounds") == 2 or s.is_terminal
    return s


def pts(s):
    return [var(s, "round_pts", p) for p in range(s.num_players)]


def totals(s):
    return [var(s, "total", p) for p in range(s.num_players)]


# ----------------------------------------------------------------------------- components, set-up

def test_number_and_ability_cards():
    s = GAME.new_game(players=4, seed=0)
    count = collections.Counter(face(s, c)["value"] for c in range(s.rs.ncards)
                                if face(s, c)["type"] == "number")
    assert sum(count.values()) == 63
    assert all(count[v] == 1 for v in range(-5, 0))
    assert count[0] == 2
    assert all(count[v] == 3 for v in range(1, 17))
    assert all(count[v] == 2 for v in range(17, 21))
    assert set(count) == set(range(-5, 21))
    ab = collections.Counter(face(s, c)["kind"] for c in range(s.rs.ncards) if face(s, c)["type"] == "ability")
    assert ab == {k: 2 for k in ("swap", "drop", "hide", "gift", "peek", "shield")}


@pytest.mark.parametrize("players", [3, 4, 5])
def test_round_setup_and_first_turn(players):
    s = GAME.new_game(players=players, seed=5)
    assert s.current_player == 0                      # the first seat starts the first round
    assert len(zone(s, "pair")) == 2 and len(zone(s, "number_deck")) == 61
    assert len(zone(s, "abilities_up")) == 3 and len(zone(s, "ability_deck")) == 9
    obs = s.observation(1)
    assert len(obs["zones"]["abilities_up"]["cards"]) == 3                    # face up
    assert obs["zones"]["ability_deck"]["cards"] == [None] * 9                # hidden
    assert all(x is None for p in range(players) for x in s.observation(p)["zones"]["pair"]["cards"])
    assert names(s) == ["look"] and len(s.legal_actions()) == 2


def test_players_out_of_range():
    with pytest.raises(Exception):
        GAME.new_game(players=2)
    with pytest.raises(Exception):
        GAME.new_game(players=6)


# ----------------------------------------------------------------------------- look and the pass chain

def test_pass_chain_never_twice_and_forced_keep():
    s = GAME.new_game(players=4, seed=1)
    s.apply(options(s, "look")[0])
    assert names(s) == ["keep", "pass"]
    # the drawer counts as having had the cards: no pass to themselves
    assert sorted(a.bind["to"] for a in options(s, "pass")) == [1, 2, 3]
    act(s, "pass", to=2)
    assert s.current_player == 2 and names(s) == ["look"]      # the receiver looks at one first
    s.apply(options(s, "look")[1])
    assert sorted(a.bind["to"] for a in options(s, "pass")) == [1, 3]
    act(s, "pass", to=1)
    s.apply(options(s, "look")[0])
    assert sorted(a.bind["to"] for a in options(s, "pass")) == [3]
    act(s, "pass", to=3)
    s.apply(options(s, "look")[0])
    assert names(s) == ["keep"]                                 # nobody left: must keep
    assert len(s.legal_actions()) == 1


def test_keeper_plays_next_turn_with_both_cards_face_up():
    s = GAME.new_game(players=3, seed=2)
    drawn = list(zone(s, "pair"))
    s.apply(options(s, "look")[0])
    act(s, "pass", to=2)
    s.apply(options(s, "look")[0])
    act(s, "keep")
    assert sorted(zone(s, "faceup", 2) + zone(s, "facedown", 2)) == sorted(drawn)
    assert all(face(s, c) in s.observation(1)["zones"]["faceup[2]"]["cards"] for c in zone(s, "faceup", 2))
    assert zone(s, "faceup", 0) == [] and zone(s, "faceup", 1) == []
    assert s.current_player == 2 and names(s) == ["look"]     # the keeper draws next
    assert len(zone(s, "pair")) == 2 and len(zone(s, "number_deck")) == 59
    # the new pair can go to anyone but the new drawer, including the previous drawer
    s.apply(options(s, "look")[0])
    assert sorted(a.bind["to"] for a in options(s, "pass")) == [0, 1]


def test_look_is_private_in_observations_history_and_logs():
    s = GAME.new_game(players=4, seed=3, log=True)
    c0, c1 = zone(s, "pair")
    act_look = [a for a in options(s, "look") if a.bind["card"] == c0][0]
    s.apply(act_look)
    assert s.observation(0)["zones"]["pair"]["cards"] == [face(s, c0), None]
    for p in (1, 2, 3):
        assert s.observation(p)["zones"]["pair"]["cards"] == [None, None]
        assert s.observation(p)["history"][-1] == {"player": 0, "event": "look", "count": 1}
    assert s.observation(0)["history"][-1]["cards"] == [face(s, c0)]
    assert s.log_for(0)[-1] == {"type": "look", "player": 0, "cards": [face(s, c0)]}
    for p in (1, 2, 3):
        assert s.log_for(p)[-1] == {"type": "look", "player": 0, "count": 1}
        assert all(line.get("action", {}).get("card") is None
                   for line in s.log_for(p) if line["type"] == "decision")
    # passed on face down: the receiver does not learn what the drawer saw; they look themselves
    act(s, "pass", to=2)
    assert s.observation(2)["zones"]["pair"]["cards"] == [None, None]
    act_look = [a for a in options(s, "look") if a.bind["card"] == c1][0]
    s.apply(act_look)
    assert s.observation(2)["zones"]["pair"]["cards"] == [None, face(s, c1)]
    assert s.observation(0)["zones"]["pair"]["cards"] == [face(s, c0), None]
    assert s.observation(1)["zones"]["pair"]["cards"] == [None, None]
    # once kept, the cards are face up for everybody
    act(s, "keep")
    for p in range(4):
        seen = s.observation(p)["zones"]["faceup[2]"]
        assert seen["hidden"] == 0 and seen["size"] + len(zone(s, "facedown", 2)) == 2


# ----------------------------------------------------------------------------- reset

def test_reset_two_equal_values_turned_face_down():
    s = build(faceup={0: [7, 12]}, pair=(7, 20))
    keep(s)
    assert values(s, "faceup", 0) == [12, 20]
    assert values(s, "facedown", 0) == [7, 7]
    assert s.observation(1)["zones"]["facedown[0]"]["size"] == 2      # still two cards
    assert s.current_player == 0 and names(s) == ["look"]


def test_reset_three_equal_values_one_stays_face_up():
    s = build(faceup={0: [7, 15]}, pair=(7, 7))
    keep(s)
    assert values(s, "faceup", 0) == [7, 15]
    assert len(zone(s, "facedown", 0)) == 2


def test_reset_repeats_until_no_two_share_a_value():
    s = build(faceup={0: [4, 9, 13]}, pair=(4, 9))
    keep(s)
    assert values(s, "faceup", 0) == [13]
    assert values(s, "facedown", 0) == [4, 4, 9, 9]


def test_reset_before_straight():
    # 6, 7 + kept 7, 8: the two 7s go face down, leaving 6, 8: no straight, no ability
    s = build(faceup={0: [6, 7]}, pair=(7, 8))
    keep(s)
    assert values(s, "faceup", 0) == [6, 8]
    assert names(s) == ["look"] and kinds(s, "abilities_up") == ["drop", "hide", "swap"]


def test_kept_value_still_face_up_after_three_way_reset_counts_for_a_straight():
    # 5, 6, 7 (no trigger: arrived by Swap/Gift) + kept 7, 7: two 7s down, one 7 stays -> straight
    s = build(faceup={0: [5, 6, 7]}, pair=(7, 7))
    keep(s)
    assert values(s, "faceup", 0) == [5, 6, 7]
    assert names(s) == ["use_drop", "use_hide"]        # nobody else has a face-up card to swap
    assert s.current_player == 0
    # but 5, 6, 7 + kept 7, 20: both 7s down -> 5, 6, 20: no straight
    s = build(faceup={0: [5, 6, 7]}, pair=(7, 20))
    keep(s)
    assert names(s) == ["look"]


# ----------------------------------------------------------------------------- straights

def test_straight_with_negative_values():
    s = build(faceup={0: [-1]}, pair=(0, 1), up=("drop", "hide", "gift"))
    keep(s)
    assert names(s) == ["use_drop", "use_gift", "use_hide"]
    assert s.current_player == 0


def test_straight_needs_three_consecutive():
    s = build(faceup={0: [-3]}, pair=(-1, 0))
    keep(s)
    assert names(s) == ["look"]


def test_face_down_cards_do_not_count_for_a_straight():
    s = build(faceup={0: [-1]}, facedown={0: [0]}, pair=(1, 15))
    keep(s)
    assert names(s) == ["look"]
    s = build(faceup={0: [-1, 0]}, pair=(1, 15))          # the same with the 0 face up
    keep(s)
    assert "use_drop" in names(s)


def test_straight_must_use_a_card_just_kept():
    s = build(faceup={0: [3, 4, 5]}, pair=(10, 15))       # an old straight does not trigger
    keep(s)
    assert names(s) == ["look"]
    s = build(faceup={0: [3, 4, 5]}, pair=(6, 15))        # extending it does
    keep(s)
    assert "use_drop" in names(s)


def test_straight_ability_is_used_by_the_keeper_not_the_drawer():
    s = build(faceup={2: [4, 5]}, pair=(6, 20))
    s.apply(options(s, "look")[0])
    act(s, "pass", to=2)
    s.apply(options(s, "look")[0])
    act(s, "keep")
    assert s.current_player == 2 and "use_drop" in names(s)
    act(s, "use_drop", card=20)
    assert values(s, "faceup", 2) == [4, 5, 6]
    assert s.current_player == 2 and names(s) == ["look"]


def test_one_ability_per_keep_even_with_two_straights():
    s = build(faceup={0: [1, 2, 9, 10]}, pair=(3, 11))
    keep(s)
    act(s, "use_hide", card=1)
    assert names(s) == ["look"]                          # the next turn, no second ability
    assert len(zone(s, "ability_discard")) == 1


def test_straight_is_mandatory():
    s = build(faceup={0: [4, 5]}, pair=(6, 20))
    keep(s)
    assert "skip" not in names(s)


def test_no_usable_ability_means_none_is_used():
    # Shield needs a face-down card, Swap another player's face-up card: neither can take effect
    s = build(faceup={0: [4, 5]}, pair=(6, 20), up=("shield", "shield", "swap"))
    keep(s)
    assert names(s) == ["look"] and s.current_player == 0
    assert kinds(s, "abilities_up") == ["shield", "shield", "swap"]
    assert zone(s, "ability_discard") == []


# ----------------------------------------------------------------------------- abilities

def test_swap_exchanges_face_up_cards_without_reset_or_straight():
    s = build(faceup={0: [4, 5], 1: [7, 20]}, pair=(6, 20), up=("swap", "peek", "shield"),
              ability_deck=["gift", "drop"], ability_elsewhere=True)
    keep(s)
    # the other player must have a face-up card: player 2 has none
    assert {a.bind["to"] for a in options(s, "use_swap")} == {1}
    act(s, "use_swap", mine=20, to=1, theirs=7)
    assert values(s, "faceup", 0) == [4, 5, 6, 7]          # a new straight: no second ability
    assert values(s, "faceup", 1) == [20, 20]              # equal values: no reset
    assert zone(s, "facedown", 1) == []
    assert names(s) == ["look"] and s.current_player == 0
    # the used card is discarded and the top of the ability deck replaces it
    assert kinds(s, "ability_discard") == ["swap"]
    assert kinds(s, "abilities_up") == ["drop", "peek", "shield"]
    assert kinds(s, "ability_deck") == ["gift"]


def test_drop_discards_a_face_up_card():
    s = build(faceup={0: [4, 5]}, pair=(6, 20), up=("drop", "peek", "peek"))
    keep(s)
    act(s, "use_drop", card=20)
    assert values(s, "faceup", 0) == [4, 5, 6]
    assert values(s, "number_discard") == [20]
    assert s.observation(2)["zones"]["number_discard"]["cards"] == [{"type": "number", "value": 20}]


def test_hide_turns_a_face_up_card_face_down():
    s = build(faceup={0: [4, 5]}, pair=(6, 20), up=("hide", "peek", "peek"))
    keep(s)
    act(s, "use_hide", card=20)
    assert values(s, "faceup", 0) == [4, 5, 6]
    assert values(s, "facedown", 0) == [20]
    assert s.observation(1)["zones"]["facedown[0]"]["size"] == 1


def test_gift_gives_a_face_up_card_without_reset_or_straight():
    s = build(faceup={0: [4, 5], 1: [18, 19]}, pair=(6, 20), up=("gift", "peek", "peek"))
    keep(s)
    assert {a.bind["to"] for a in options(s, "use_gift", card=20)} == {1, 2}
    act(s, "use_gift", card=20, to=1)
    assert values(s, "faceup", 0) == [4, 5, 6]
    assert values(s, "faceup", 1) == [18, 19, 20]          # face up, no straight for the receiver
    assert names(s) == ["look"] and s.current_player == 0
    s = build(faceup={0: [4, 5], 1: [20]}, pair=(6, 20), up=("gift", "peek", "peek"))
    keep(s)
    act(s, "use_gift", card=20, to=1)
    assert values(s, "faceup", 1) == [20, 20] and zone(s, "facedown", 1) == []   # no reset


@pytest.mark.parametrize("first_on_top", [5, 9])
def test_peek_shows_two_cards_to_the_user_only_and_reorders_them(first_on_top):
    s = build(faceup={0: [4, 5]}, pair=(6, 20), deck_top=(5, 9), up=("peek", "drop", "drop"))
    keep(s)
    act(s, "use_peek")
    deck = zone(s, "number_deck")
    assert [face(s, c)["value"] for c in deck[-2:]] == [9, 5]
    seen0 = s.observation(0)["zones"]["number_deck"]["cards"]
    assert seen0[-2:] == [{"type": "number", "value": 9}, {"type": "number", "value": 5}]
    assert all(x is None for x in seen0[:-2])
    for p in (1, 2):
        assert all(x is None for x in s.observation(p)["zones"]["number_deck"]["cards"])
    assert s.current_player == 0 and names(s) == ["peek_order"]
    assert sorted(face(s, a.bind["card"])["value"] for a in s.legal_actions()) == [5, 9]
    act(s, "peek_order", card=first_on_top)
    other = 14 - first_on_top
    # the next turn draws the top card first (it lies at the bottom of the pair)
    assert [face(s, c)["value"] for c in zone(s, "pair")] == [first_on_top, other]
    assert s.observation(0)["zones"]["pair"]["cards"] == [{"type": "number", "value": first_on_top},
                                                          {"type": "number", "value": other}]
    assert s.observation(1)["zones"]["pair"]["cards"] == [None, None]
    assert kinds(s, "ability_discard") == ["peek"]


def test_peek_needs_a_number_card_left():
    s = build(faceup={0: [4, 5]}, pair=(6, 20), deck_size=0, up=("peek", "shield", "shield"))
    keep(s)          # the deck is empty: nothing can take effect; the round ends
    assert var(s, "rounds") == 2
    s = build(faceup={0: [4, 5]}, pair=(6, 20), deck_size=1, up=("peek", "shield", "shield"))
    keep(s)          # with a single card left, Peek looks at that one
    act(s, "use_peek")
    assert s.observation(0)["zones"]["number_deck"]["cards"][0] is not None
    assert s.observation(1)["zones"]["number_deck"]["cards"] == [None]
    assert len(s.legal_actions()) == 1 and names(s) == ["peek_order"]


def test_shield_removes_a_face_down_card_and_needs_one():
    s = build(faceup={0: [4, 5]}, facedown={0: [11, 12]}, pair=(6, 20), up=("shield", "drop", "drop"))
    keep(s)
    assert "use_shield" in names(s)
    act(s, "use_shield")
    assert len(zone(s, "facedown", 0)) == 1
    assert len(zone(s, "removed")) == 1
    assert values(s, "faceup", 0) == [4, 5, 6, 20]
    s = build(faceup={0: [4, 5]}, pair=(6, 20), up=("shield", "drop", "drop"))
    keep(s)
    assert "use_shield" not in names(s) and "use_drop" in names(s)


def test_ability_deck_reshuffles_its_discards_when_empty():
    s = build(faceup={0: [4, 5]}, pair=(6, 20), up=("drop", "hide", "gift"), ability_deck=[],
              ability_discard=["swap", "swap", "peek"])
    keep(s)
    act(s, "use_drop", card=20)
    assert len(zone(s, "abilities_up")) == 3
    assert len(zone(s, "ability_deck")) == 9 + 3 - 3 and zone(s, "ability_discard") == []
    assert sum(len(zone(s, z)) for z in ("abilities_up", "ability_deck", "ability_discard")) == 12


def test_used_ability_is_discarded_before_its_replacement_is_drawn():
    # the deck and the discard are empty: the replacement is the card just used
    s = build(faceup={0: [4, 5]}, pair=(6, 20), up=("drop", "hide", "gift"), ability_deck=[],
              ability_elsewhere=True)
    used = [c for c in zone(s, "abilities_up") if face(s, c)["kind"] == "drop"][0]
    keep(s)
    act(s, "use_drop", card=20)
    assert used in zone(s, "abilities_up")
    assert kinds(s, "abilities_up") == ["drop", "gift", "hide"]


# ----------------------------------------------------------------------------- end of a round

def test_round_ends_when_a_keep_reaches_ten_cards():
    s = build(faceup={0: [1, 3, 5, 7, 9, 11, 13]}, facedown={0: [2]}, pair=(16, 20),
              variables={"total": [0, 0, 0]})
    keep(s)
    assert var(s, "rounds") == 2
    assert pts(s) == [1 + 3 + 5 + 7 + 9 + 11 + 13 + 16 + 20 - 10, 0, 0]
    # next round: everything collected and reshuffled
    assert all(zone(s, "faceup", p) == [] and zone(s, "facedown", p) == [] for p in range(3))
    assert len(zone(s, "number_deck")) == 61 and len(zone(s, "abilities_up")) == 3


def test_next_round_collects_every_card_and_reshuffles():
    s = build(faceup={0: [1], 1: [2, 9]}, facedown={1: [3], 2: [4, 4]}, discard=(5, 6), deck_size=1,
              pair=(16, 20), up=("peek", "peek", "gift"), ability_deck=["drop", "hide"],
              ability_discard=["swap", "swap"])
    keep(s)
    assert var(s, "rounds") == 2
    for p in range(3):
        assert zone(s, "faceup", p) == [] and zone(s, "facedown", p) == []
    assert zone(s, "number_discard") == [] and zone(s, "removed") == []
    assert len(zone(s, "number_deck")) == 61 and len(zone(s, "pair")) == 2
    assert len(zone(s, "abilities_up")) == 3 and len(zone(s, "ability_deck")) == 9
    assert zone(s, "ability_discard") == []
    assert s.kn == [0] * s.rs.ncards          # nobody can follow a card through the shuffle


def test_round_goes_on_at_nine_cards():
    s = build(faceup={0: [1, 3, 5, 7, 9, 11]}, facedown={0: [2]}, pair=(16, 20))
    keep(s)
    assert var(s, "rounds") == 1 and len(zone(s, "faceup", 0)) == 8


def test_round_end_waits_for_the_ability():
    # the keep reaches 10 cards but its Drop brings it back to 9: the round goes on
    s = build(faceup={0: [4, 5, 9, 11, 13, 15]}, facedown={0: [2, 2]}, pair=(6, 20),
              up=("drop", "peek", "peek"))
    keep(s)
    assert var(s, "rounds") == 1 and s.current_player == 0
    act(s, "use_drop", card=20)
    assert var(s, "rounds") == 1 and names(s) == ["look"]
    # a Gift that brings another player to 10 ends it
    s = build(faceup={0: [4, 5], 1: [1]}, facedown={1: [3, 7, 9, 11, 13, 15, 17, 19]}, pair=(6, 20),
              up=("gift", "peek", "peek"))
    keep(s)
    act(s, "use_gift", card=20, to=1)
    assert var(s, "rounds") == 2 and pts(s) == [15 + 10, 21 - 10, 0]


def test_round_ends_when_the_deck_has_fewer_than_two_cards():
    s = build(faceup={0: [1]}, pair=(16, 20), deck_size=1)
    keep(s)
    assert var(s, "rounds") == 2
    s = build(faceup={0: [1]}, pair=(16, 20), deck_size=2)
    keep(s)
    assert var(s, "rounds") == 1 and len(zone(s, "number_deck")) == 0 and len(zone(s, "pair")) == 2


# ----------------------------------------------------------------------------- round scoring

def test_scoring_all_equal_nobody_adds_or_subtracts():
    s = end_round(3, faceup={0: [1], 1: [3, 5, 8, 10], 2: [2, 4]}, facedown={0: [9], 2: [6, 12]},
                  pair=(20, 18))
    assert pts(s) == [1 + 20 + 18, 26, 6]


def test_scoring_several_most_subtract_and_fewest_add():
    # cards: p0 5, p1 5, p2 3
    s = end_round(3, faceup={0: [1, 2, 4], 1: [3, 5, 8, 10, 12], 2: [2, 6]}, facedown={2: [9]},
                  pair=(20, 18))
    assert pts(s) == [1 + 2 + 4 + 38 - 10, 38 - 10, 8 + 10]


def test_scoring_fewest_needs_at_least_one_card():
    # cards: p0 5, p1 0, p2 2 -> p2 adds 10, p1 (no card) neither adds nor subtracts
    s = end_round(3, faceup={0: [1, 2, 4], 2: [11]}, facedown={2: [9]}, pair=(20, 18))
    assert pts(s) == [1 + 2 + 4 + 38 - 10, 0, 11 + 10]
    # 4 players: p3 with one card is the fewest; p2 with 2 adds nothing
    s = end_round(4, faceup={0: [1, 2, 4], 2: [11, 13], 3: [15]}, pair=(20, 18))
    assert pts(s) == [45 - 10, 0, 24, 15 + 10]


def test_scoring_several_fewest_all_add():
    s = end_round(4, faceup={0: [1, 2, 4], 1: [3], 2: [12, 13], 3: [5]}, pair=(20, 18))
    assert pts(s) == [45 - 10, 3 + 10, 25, 5 + 10]


def test_scoring_fewest_equal_to_most_adds_nothing():
    # cards: p0 4, p1 4, p2 0 -> the most subtract, nobody adds
    s = end_round(3, faceup={0: [1, 3], 1: [5, 7, 9, 11]}, pair=(20, 18))
    assert pts(s) == [42 - 10, 32 - 10, 0]


def test_face_down_cards_count_as_cards_but_score_zero():
    # p1: 1 face up + 4 face down = 5 cards (most with p0), worth only its face-up card
    s = end_round(3, faceup={0: [1, 2, 4], 1: [3], 2: [7, 8]}, facedown={1: [10, 10, 11, 11]},
                  pair=(20, 18))
    assert pts(s) == [45 - 10, 3 - 10, 15 + 10]


def test_running_totals_add_each_round():
    s = end_round(3, faceup={0: [1, 2, 4], 2: [11]}, facedown={2: [9]}, pair=(20, 18),
                  variables={"total": [10, -4, 30]})
    assert totals(s) == [10 + 35, -4, 30 + 21]
    assert not s.is_terminal and var(s, "rounds") == 2


def test_game_ends_at_77_and_lowest_total_wins():
    s = end_round(3, faceup={0: [1, 2, 4], 2: [11]}, facedown={2: [9]}, pair=(20, 18),
                  variables={"total": [42, 5, 3]})          # p0: 42 + 35 = 77
    assert s.is_terminal
    assert s.scores == [77, 5, 24] and s.winners == [1]
    s = end_round(3, faceup={0: [1, 2, 4], 2: [11]}, facedown={2: [9]}, pair=(20, 18),
                  variables={"total": [41, 5, 3]})          # 76: another round
    assert not s.is_terminal and var(s, "rounds") == 2 and totals(s) == [76, 5, 24]


def test_lowest_total_tie_is_shared():
    s = end_round(3, faceup={0: [1, 2, 4], 2: [11]}, facedown={2: [9]}, pair=(20, 18),
                  variables={"total": [50, 24, 3]})
    assert s.is_terminal and s.scores == [85, 24, 24] and s.winners == [1, 2]


def test_next_round_starter_is_the_top_scorer_after_the_bonus():
    # p0 scores 45 - 10 = 35 (face values alone would make p0 the top), p2 scores 27 + 10 = 37
    s = end_round(3, faceup={0: [1, 2, 4], 2: [13, 14]}, facedown={2: [9]}, pair=(20, 18))
    assert pts(s) == [35, 0, 37]
    assert s.current_player == 2 and var(s, "starter") == 2
    assert names(s) == ["look"] and len(zone(s, "pair")) == 2


@pytest.mark.parametrize("prev, expected", [(0, 0), (1, 3), (2, 3), (3, 3)])
def test_next_round_starter_tie_first_clockwise_from_previous_starter(prev, expected):
    # p0 and p3 tie at 35 points
    s = end_round(4, faceup={0: [1, 2, 4], 1: [3], 2: [5, 6], 3: [16, 19]}, facedown={3: [12]},
                  pair=(20, 18), variables={"starter": prev})
    assert pts(s) == [35, 13, 11, 35]
    assert var(s, "starter") == expected and s.current_player == expected


# ----------------------------------------------------------------------------- whole games

@pytest.mark.parametrize("players", [3, 4, 5])
def test_random_games_end_with_the_lowest_total_winning(players):
    r = random.Random(players)
    for seed in range(8):
        s = GAME.new_game(players=players, seed=seed)
        n = 0
        while not s.is_terminal:
            acts = s.legal_actions()
            s.apply(acts[r.randrange(len(acts))])
            n += 1
            assert n < 5000
            # invariants: 63 number cards and 12 abilities stay in play, 3 abilities face up
            assert len(zone(s, "abilities_up")) == 3
        t = totals(s)
        assert max(t) >= 77 and s.scores == t
        assert s.winners == [p for p in range(players) if t[p] == min(t)]
