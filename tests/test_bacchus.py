"""Bacchus: every rule of ../shared/rules/bacchus.md, including its [decision] lines."""
from __future__ import annotations

import pytest

from helpers import arrange, cards_where, face, find, load, names, set_var, var, zone

GAME = "bacchus"


def new(players=4, seed=1):
    return load(GAME).new_game(players=players, seed=seed)


@pytest.mark.parametrize("players", [3, 4, 5])
def test_setup_counts(players):
    s = new(players)
    assert s.rs.type_count == {"maenad": 80, "action_card": 36}
    maenads = cards_where(s, type="maenad")
    assert len(maenads) == 80
    for colour in ("yellow", "blue", "green", "pink", "orange"):
        of = [c for c in maenads if face(s, c)["colour"] == colour]
        assert len(of) == 16
        assert sum(face(s, c)["symbol"] == "satyr" for c in of) == 3
        assert sum(face(s, c)["symbol"] == "bacchus" for c in of) == 2
    actions = cards_where(s, type="action_card")
    assert sum(face(s, c)["satyr"] for c in actions) == 12
    designs = {tuple(face(s, c)["numbers"]) for c in actions}
    assert len(designs) == 12
    for p in range(players):
        assert len(zone(s, "hand", p)) == 1
        assert len(zone(s, "actions", p)) == 3
        assert zone(s, "kidnapped", p) == []
    for i in range(5):
        assert len(zone(s, "column", i)) == 14
    assert len(zone(s, "removed")) == 5 + (5 - players)
    assert zone(s, "maenad_deck") == []
    assert len(zone(s, "action_deck")) == 36 - 3 * players
    assert all(zone(s, "bacchanal", b) == [] for b in (1, 2, 3))


def _fresh_turn(s):
    """Skip the optional Bacchus moves so the main action is next."""
    if any(a.name == "bacchus_move" for a in s.legal_actions()):
        s.apply(find(s, "skip"))
    return s


def _no_bacchus_on_top(seed=2):
    for sd in range(seed, seed + 200):
        s = new(seed=sd)
        if "bacchus_move" not in names(s):
            return s
    raise AssertionError("no seed without a Bacchus card on top")


def test_draw_takes_the_top_action_card_and_ends_the_turn():
    s = _fresh_turn(new())
    top = zone(s, "action_deck")[-1]
    s.apply(find(s, "draw"))
    assert top in zone(s, "actions", 0)
    assert len(zone(s, "actions", 0)) == 4
    assert s.cur == 1


def _give_action(s, numbers, satyr=False, player=0):
    card = next(c for c in cards_where(s, type="action_card", satyr=satyr) if face(s, c)["numbers"] == numbers)
    hand = [c for c in zone(s, "actions", player) if c != card]
    arrange(s, {("actions", player): hand[:2] + [card]}, rest=None)
    if card in zone(s, "action_deck"):
        pass
    return card


def _place(s, key, cards):
    """Put cards (bottom -> top) in a zone, sending what was there to 'removed'."""
    old = [c for c in zone(s, *key) if c not in cards]
    arrange(s, {key: cards, "removed": zone(s, "removed") + old})


def test_send_with_three_numbers_follows_the_column_order():
    s = _no_bacchus_on_top()
    card = next(c for c in zone(s, "action_deck") if face(s, c)["numbers"] == [3, 1, 2])
    arrange(s, {("actions", 0): [card], "action_deck": [c for c in zone(s, "action_deck") if c != card]
                + zone(s, "actions", 0)})
    col = list(zone(s, "column", 2))
    s.apply(find(s, "send", col=2))
    assert col[-1] in zone(s, "bacchanal", 3)      # the top card goes to the first number
    assert col[-2] in zone(s, "bacchanal", 1)
    assert col[-3] in zone(s, "bacchanal", 2)
    assert zone(s, "column", 2) == col[:-3]
    assert card in zone(s, "played")


def test_send_with_two_numbers_and_a_short_column():
    s = _no_bacchus_on_top()
    card = next(c for c in zone(s, "action_deck") if face(s, c)["numbers"] == [2, 1])
    arrange(s, {("actions", 0): [card], "action_deck": [c for c in zone(s, "action_deck") if c != card]
                + zone(s, "actions", 0)})
    col = list(zone(s, "column", 0))
    s.apply(find(s, "send", col=0))
    assert col[-1] in zone(s, "bacchanal", 2) and col[-2] in zone(s, "bacchanal", 1)
    assert len(zone(s, "column", 0)) == 12
    # a column of one card sent with three numbers sends that one card
    s2 = _no_bacchus_on_top(50)
    card = next(c for c in zone(s2, "action_deck") if len(face(s2, c)["numbers"]) == 3)
    arrange(s2, {("actions", 0): [card], "action_deck": [c for c in zone(s2, "action_deck") if c != card]
                 + zone(s2, "actions", 0)})
    only = next(c for c in zone(s2, "column", 4) if face(s2, c)["symbol"] == "plain")
    _place(s2, ("column", 4), [only])
    s2._legal = None
    first = face(s2, card)["numbers"][0]
    s2.apply(find(s2, "send", col=4))
    assert zone(s2, "column", 4) == [] and only in zone(s2, "bacchanal", first)


def test_send_needs_a_non_empty_column():
    s = _no_bacchus_on_top()
    _place(s, ("column", 1), [])
    assert all(a.to_json()["col"] != 1 for a in s.legal_actions() if a.name == "send")


def _satyr_setup(seed=3):
    s = _no_bacchus_on_top(seed)
    satyr_card = cards_where(s, type="action_card", satyr=True)[0]
    plain_card = cards_where(s, type="action_card", satyr=False)[0]
    rest = [c for c in cards_where(s, type="action_card") if c not in (satyr_card, plain_card)]
    arrange(s, {("actions", 0): [satyr_card, plain_card], "action_deck": rest,
                ("actions", 1): [], ("actions", 2): [], ("actions", 3): []})
    return s, satyr_card


def test_kidnap_takes_every_satyr_top_and_keeps_one():
    s, satyr_card = _satyr_setup()
    satyrs = cards_where(s, type="maenad", symbol="satyr")
    a, b = [c for c in satyrs if face(s, c)["colour"] == "yellow"][:2]
    d = next(c for c in satyrs if face(s, c)["colour"] == "blue")
    cols = {i: [c for c in zone(s, "column", i) if c not in (a, b, d)] for i in range(5)}
    cols[0] = [x for x in cols[0] if face(s, x)["symbol"] == "plain"][:3] + [a]
    cols[1] = [x for x in cols[1] if face(s, x)["symbol"] == "plain"][:3] + [b]
    cols[2] = [x for x in cols[2] if face(s, x)["symbol"] == "plain"][:3] + [d]
    cols[3] = [x for x in cols[3] if face(s, x)["symbol"] == "plain"][:3]
    cols[4] = [x for x in cols[4] if face(s, x)["symbol"] == "plain"][:3]
    used = {c for cs in cols.values() for c in cs} | {c for p in range(4) for c in zone(s, "hand", p)}
    arrange(s, {**{("column", i): cs for i, cs in cols.items()},
                "removed": [c for c in cards_where(s, type="maenad") if c not in used]})
    s.apply(find(s, "kidnap"))
    assert sorted(zone(s, "kidnapped", 0)) == sorted([a, b, d])
    assert satyr_card in zone(s, "played")
    keeps = [x for x in s.legal_actions() if x.name == "keep_kidnapped"]
    assert len(keeps) == 2              # two yellow satyrs look alike: one choice for them
    assert any(x.name == "skip" for x in s.legal_actions())
    s.apply(next(x for x in keeps if face(s, x.bind["card"])["colour"] == "blue"))
    assert d in zone(s, "hand", 0) and d not in zone(s, "kidnapped", 0)
    assert s.cur == 1


def test_kidnap_needs_a_satyr_on_top():
    s, satyr_card = _satyr_setup(7)
    for i in range(5):
        col = zone(s, "column", i)
        if col and face(s, col[-1])["symbol"] == "satyr":
            _place(s, ("column", i), col[:-1])
    s._legal = None
    assert "kidnap" not in names(s)
    assert "send" in names(s)


def _bacchus_state():
    s = next(st for st in (new(seed=sd) for sd in range(11, 300)) if "bacchus_move" in names(st))
    bac = cards_where(s, type="maenad", symbol="bacchus")
    plain = cards_where(s, type="maenad", symbol="plain")
    b1, b2, b3 = bac[:3]
    cols = {0: plain[0:3] + [b1], 1: plain[3:6] + [b2, b3], 2: plain[6:9], 3: plain[9:12], 4: []}
    used = {c for cs in cols.values() for c in cs} | {c for p in range(4) for c in zone(s, "hand", p)}
    arrange(s, {**{("column", i): cs for i, cs in cols.items()},
                "removed": [c for c in cards_where(s, type="maenad") if c not in used]})
    # a new turn computes which Bacchus cards are movable: replay the turn start
    set_var(s, "movable", [b1, b3])
    return s, (b1, b2, b3)


def test_bacchus_moves_only_cards_on_top_at_turn_start_once_each():
    s, (b1, b2, b3) = _bacchus_state()
    moves = {(a.to_json()["src"], a.to_json()["dst"]) for a in s.legal_actions() if a.name == "bacchus_move"}
    # destinations: another non-empty column (column 4 is empty)
    assert moves == {(0, 1), (0, 2), (0, 3), (1, 0), (1, 2), (1, 3)}
    s.apply(find(s, "bacchus_move", src=1, dst=2))
    assert zone(s, "column", 2)[-1] == b3
    # b2 is revealed by the move: it stays where it is; b3 moved once and cannot move again
    srcs = {a.to_json()["src"] for a in s.legal_actions() if a.name == "bacchus_move"}
    assert srcs == {0}
    s.apply(find(s, "bacchus_move", src=0, dst=2))    # b1 lands on b3
    assert "bacchus_move" not in names(s)
    assert "draw" in names(s) or "send" in names(s)


def test_turn_start_records_the_bacchus_tops():
    s = new(seed=4)
    tops = [zone(s, "column", i)[-1] for i in range(5)]
    want = sorted(c for c in tops if face(s, c)["symbol"] == "bacchus")
    assert sorted(var(s, "movable")) == want


def test_game_ends_when_four_columns_are_empty_even_by_a_bacchus_move():
    s, (b1, b2, b3) = _bacchus_state()
    _place(s, ("column", 2), [])
    _place(s, ("column", 3), [])
    _place(s, ("column", 1), [b3])       # column 1 holds only a Bacchus card
    set_var(s, "movable", [b3])
    s._legal = None
    assert not s.is_terminal
    s.apply(find(s, "bacchus_move", src=1, dst=0))   # empties the fourth column
    assert s.is_terminal


def test_game_ends_when_every_player_passes_in_a_row():
    s = _no_bacchus_on_top()
    arrange(s, {("actions", p): [] for p in range(4)} | {"played": cards_where(s, type="action_card")})
    s._legal = None
    for p in range(4):
        assert names(s) == ["pass"]
        assert s.current_player == p
        s.apply(find(s, "pass"))
    assert s.is_terminal


def _scoring_state():
    s = new(players=4, seed=9)
    by = {}
    for c in cards_where(s, type="maenad"):
        by.setdefault(face(s, c)["colour"], []).append(c)
    take = lambda colour, n: [by[colour].pop() for _ in range(n)]
    b = {1: [], 2: [], 3: []}
    for colour, counts in {"yellow": (3, 4, 2), "blue": (3, 1, 2), "green": (4, 0, 5),
                           "pink": (1, 3, 1), "orange": (2, 3, 4)}.items():
        for k, n in zip((1, 2, 3), counts):
            b[k] += take(colour, n)
    hands = {0: take("yellow", 2), 1: take("blue", 1), 2: take("pink", 1) + take("orange", 1),
             3: take("green", 1) + take("orange", 1)}
    kid = {0: take("pink", 5), 1: take("green", 3), 2: [], 3: take("blue", 2)}
    placement = {("bacchanal", k): v for k, v in b.items()}
    placement.update({("hand", p): h for p, h in hands.items()})
    placement.update({("kidnapped", p): k for p, k in kid.items()})
    placement.update({("column", i): [] for i in range(5)})
    placement["removed"] = [c for cs in by.values() for c in cs]
    return arrange(s, placement)


def test_worked_example_anna_bruno_carlo_dario():
    s = _scoring_state()
    scores = [s.rs.score(s, {"p": p}) for p in range(4)]
    # the seed prints Dario 31, contradicting its own tie rule: by the rule he scores 41
    assert scores == [25, 15, 30, 41]


def test_majority_ties_each_score_and_none_scores_without_a_card():
    s = _scoring_state()
    # give Anna an orange too: three players tie on orange with one card each
    orange = next(c for c in zone(s, "removed") if face(s, c)["colour"] == "orange")
    arrange(s, {("hand", 0): zone(s, "hand", 0) + [orange],
                "removed": [c for c in zone(s, "removed") if c != orange]})
    scores = [s.rs.score(s, {"p": p}) for p in range(4)]
    assert scores == [45, 15, 30, 41]
    # nobody holds a green card: green scores for nobody
    greens = [c for c in zone(s, "hand", 3) if face(s, c)["colour"] == "green"]
    arrange(s, {("hand", 3): [c for c in zone(s, "hand", 3) if c not in greens],
                "removed": zone(s, "removed") + greens})
    assert s.rs.score(s, {"p": 3}) == 22


@pytest.mark.parametrize("n,points", [(0, 0), (1, 0), (2, 2), (3, 4), (4, 6), (5, 8), (9, 16)])
def test_kidnap_table(n, points):
    s = _scoring_state()
    pool = [c for c in zone(s, "removed")][:n]
    arrange(s, {("kidnapped", 1): pool, ("hand", 1): [],
                "removed": [c for c in zone(s, "removed") if c not in pool] + zone(s, "kidnapped", 1)
                + zone(s, "hand", 1)})
    # Bruno holds nothing now, so his score is the kidnap points alone
    assert s.rs.score(s, {"p": 1}) == points


def test_highest_total_wins_and_ties_are_shared():
    s = _scoring_state()
    s.finish()
    assert s.winners == [3]
    t = _scoring_state()
    # move Dario's green to Carlo: Carlo now holds the green majority too
    green = next(c for c in zone(t, "hand", 3) if face(t, c)["colour"] == "green")
    arrange(t, {("hand", 3): [c for c in zone(t, "hand", 3) if c != green], ("hand", 2): zone(t, "hand", 2)
                + [green]})
    scores = [t.rs.score(t, {"p": p}) for p in range(4)]
    assert scores == [25, 15, 49, 22]
    t.finish()
    assert t.winners == [2]


def test_a_shared_win():
    s = _scoring_state()
    green = next(c for c in zone(s, "hand", 3) if face(s, c)["colour"] == "green")
    more = [c for c in zone(s, "removed") if face(s, c)["colour"] != "green"][:4]
    arrange(s, {("hand", 3): [c for c in zone(s, "hand", 3) if c != green],
                ("kidnapped", 3): zone(s, "kidnapped", 3) + more,
                "removed": [c for c in zone(s, "removed") if c not in more] + [green]})
    s.finish()
    assert s.scores == [25, 15, 30, 30]     # Dario: orange 20 (shared) + 6 kidnapped (10)
    assert s.winners == [2, 3]
