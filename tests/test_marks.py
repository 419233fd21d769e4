"""Per-card marks (docs/language.md, Per-card marks): the rules of tests/specs/signals.yaml (a hint
game: hints are public marks on cards their owner cannot see), marks travelling with moves, reset on
shuffle when declared and not otherwise, who sees which mark, the leak properties of the new channel,
saved states, and both backends."""
from __future__ import annotations

import json
import os
import random
import re

import pytest

import gamespec
from gamespec.errors import SpecErrors, SpecRuntimeError, StateFormatError
from helpers import ROOT, arrange, cards_where, find, set_var, var, zi
from gamespec.interpreter.determinize import relabel

SIGNALS = os.path.join(ROOT, "tests", "specs", "signals.yaml")
BACKENDS = ("codegen", "closures")
NONE = {"told_colour": 0, "told_rank": 0}

# Tokens (tests/specs/tokens.yaml) uses the cases Signals does not: a `zone` mark, a `hidden` bool
# mark, a `public` mark, a mark without reset_on_shuffle and one with it; hands are owner piles,
# `box` a hidden set, `pool` a public set, `table` a public pile.
TOKENS_PATH = os.path.join(ROOT, "tests", "specs", "tokens.yaml")
TOKENS = open(TOKENS_PATH, encoding="utf-8").read()


@pytest.fixture(params=BACKENDS)
def signals(request):
    return gamespec.Game(gamespec.load(SIGNALS).spec, backend=request.param)


@pytest.fixture(params=BACKENDS)
def tokens(request):
    return gamespec.Game(gamespec.load(TOKENS_PATH).spec, backend=request.param)


def card(s, colour, rank, k=0):
    return cards_where(s, colour=colour, rank=rank)[k]


def hand_of(s, p):
    return s.z[zi(s, "hand", p)]


def mk(s, name, c):
    return s.mk[s.rs.mark_index[name]][c]


def set_mk(s, name, c, v):
    s.mk[s.rs.mark_index[name]][c] = v


def place(s, placement):
    """These zones hold these cards (bottom to top), every other card lies in the deck."""
    placed = {c for cs in placement.values() for c in cs}
    arrange(s, dict(placement, deck=[c for c in range(s.rs.ncards) if c not in placed]))
    s.kn = [0] * s.rs.ncards
    return s


def deal_hands(s, h0, h1):
    """Signals, 2 players: these hands (bottom to top), every other card in the deck."""
    return place(s, {("hand", 0): h0, ("hand", 1): h1})


def start(game, players=2, seed=1):
    s = game.new_game(players=players, seed=seed, log=True)
    assert s.current_player == 0
    return s


def standard(game):
    s = start(game)
    return deal_hands(s, [card(s, "red", 1), card(s, "blue", 2), card(s, "green", 3), card(s, "red", 4)],
                      [card(s, "red", 1, 1), card(s, "blue", 1), card(s, "red", 2), card(s, "green", 1)])


# -- the rules of Signals ---------------------------------------------------------------------
def test_a_colour_hint_marks_exactly_the_cards_of_that_colour(signals):
    s = standard(signals)
    h1 = list(hand_of(s, 1))
    s.apply(find(s, "tell_colour", to=1, colour="red"))
    assert [mk(s, "told_colour", c) for c in h1] == [1, 0, 1, 0]
    assert [mk(s, "told_rank", c) for c in h1] == [0, 0, 0, 0]
    assert var(s, "clues") == 4
    z = s.observation(1)["zones"]["hand[1]"]     # the owner: no faces, but which cards were hinted
    assert z["cards"] == [None] * 4
    assert z["marks"] == [{"told_colour": 1, "told_rank": 0}, NONE, {"told_colour": 1, "told_rank": 0}, NONE]


def test_a_rank_hint_marks_a_list_of_cards(signals):
    s = standard(signals)
    h1 = list(hand_of(s, 1))
    s.apply(find(s, "tell_rank", to=1, rank=1))
    assert [mk(s, "told_rank", c) for c in h1] == [1, 1, 0, 1]
    assert all(mk(s, "told_colour", c) == 0 for c in h1)


def test_a_hint_must_tell_something_new(signals):
    s = standard(signals)
    s.apply(find(s, "tell_colour", to=1, colour="red"))
    assert {a.to_json()["to"] for a in s.legal_actions() if a.name.startswith("tell")} == {0}   # not oneself
    s.apply(find(s, "discard", card=3))          # player 1 drops the green 1 and draws
    told = {(a.to_json()["colour"]) for a in s.legal_actions() if a.name == "tell_colour"}
    assert "red" not in told and "blue" in told  # the where clause reads the marks


def test_hints_cost_clues_and_discards_earn_them(signals):
    s = standard(signals)
    assert "discard" not in {a.name for a in s.legal_actions()}     # 5 clues: the most
    set_var(s, "clues", 0)
    s._legal = None
    assert {a.name for a in s.legal_actions()} == {"play", "discard"}
    s.apply(find(s, "discard", card=0))
    assert var(s, "clues") == 1 and len(hand_of(s, 0)) == 4


def test_marks_travel_with_the_card_and_a_fully_told_play_returns_a_clue(signals):
    s = standard(signals)
    r1 = card(s, "red", 1, 1)
    s.apply(find(s, "tell_colour", to=1, colour="red"))
    s.apply(find(s, "tell_rank", to=0, rank=4))                 # player 1's turn
    s.apply(find(s, "tell_rank", to=1, rank=1))                 # player 0: clues 5 -> 2
    assert var(s, "clues") == 2
    s.apply(find(s, "play", card=0))                            # player 1 plays the red 1: told both
    assert s.z[zi(s, "stack", "red")] == [r1]
    assert var(s, "clues") == 3
    for p in (0, 1):      # on the public stack, everyone sees the card and its marks
        z = s.observation(p)["zones"]["stack[red]"]
        assert z["cards"] == [{"type": "card", "colour": "red", "rank": 1}]
        assert z["marks"] == [{"told_colour": 1, "told_rank": 1}]
    # the hand closed up: the other red card's hint moved with it to its new place
    assert s.observation(1)["zones"]["hand[1]"]["marks"][:3] == [
        {"told_colour": 0, "told_rank": 1}, {"told_colour": 1, "told_rank": 0}, {"told_colour": 0, "told_rank": 1}]


def test_a_wrong_play_burns_a_fuse_and_the_discard_keeps_the_hint(signals):
    s = standard(signals)
    b2 = card(s, "blue", 2)
    s.apply(find(s, "tell_colour", to=1, colour="blue"))
    s.apply(find(s, "tell_rank", to=0, rank=2))
    s.apply(find(s, "play", card=1))                            # player 0 plays the blue 2: too early
    assert var(s, "burned") == 1 and s.z[zi(s, "discard")] == [b2]
    assert s.observation(1)["zones"]["discard"]["marks"] == [{"told_colour": 0, "told_rank": 2}]


def test_the_game_ends_when_the_fuses_burn(signals):
    s = standard(signals)
    set_var(s, "burned", 2)
    s.apply(find(s, "play", card=1))
    assert s.is_terminal and s.winners == [] and s.scores == [0, 0]


def test_the_team_wins_by_completing_every_stack(signals):
    s = start(signals)
    stacks = {k: [card(s, k, r) for r in (1, 2, 3, 4)] for k in ("red", "blue", "green")}
    r4 = stacks["red"].pop()
    place(s, {("stack", "red"): stacks["red"], ("stack", "blue"): stacks["blue"],
              ("stack", "green"): stacks["green"], ("hand", 0): [r4], ("hand", 1): [card(s, "red", 1, 1)]})
    s.apply(find(s, "play", card=0))
    assert s.is_terminal and s.winners == [0, 1] and s.scores == [12, 12]


# -- reset on shuffle -------------------------------------------------------------------------
def test_a_reshuffled_card_loses_the_marks_declared_reset_on_shuffle(signals):
    s = standard(signals)
    deck = list(s.z[zi(s, "deck")])
    arrange(s, {"deck": [], "discard": deck})
    for c in deck:                      # hints left on the discards
        set_mk(s, "told_colour", c, 2)
    kept = hand_of(s, 1)[0]
    set_mk(s, "told_rank", kept, 1)     # a hint in a hand, which is not shuffled
    dropped = hand_of(s, 0)[0]
    set_var(s, "clues", 4)
    s._legal = None
    s.apply(find(s, "discard", card=0))     # the deck is empty: the discards are shuffled back in
    assert any(line.get("event") == "shuffle" and line["zone"] == "deck" for line in s.log_lines())
    drawn = hand_of(s, 0)[-1]
    for c in s.z[zi(s, "deck")] + [drawn, dropped]:
        assert mk(s, "told_colour", c) == 0 and mk(s, "told_rank", c) == 0
    assert mk(s, "told_rank", kept) == 1


def test_marks_without_reset_on_shuffle_survive_it(tokens):
    s = tokens.new_game(players=2, seed=4)
    rs = s.rs
    table = [c for c in range(rs.ncards) if c not in hand_of(s, 0) + hand_of(s, 1)][:3]
    arrange(s, {"table": table})
    for i, c in enumerate(table):
        set_mk(s, "tokens", c, i + 1)
        set_mk(s, "worn", c, 5)
        set_mk(s, "badge", c, 9)
        set_mk(s, "seal", c, True)
    s.apply(find(s, "stir"))
    assert sorted(s.z[zi(s, "table")]) == sorted(table)
    for i, c in enumerate(table):
        assert (mk(s, "tokens", c), mk(s, "badge", c), mk(s, "seal", c)) == (i + 1, 9, True)
        assert mk(s, "worn", c) == 0        # the one declared reset_on_shuffle


# -- rules reading and setting marks (both backends) --------------------------------------------
def test_set_mark_and_mark_in_effects_and_where_clauses(tokens):
    s = tokens.new_game(players=2, seed=4)
    assert not any(a.name == "lay" for a in s.legal_actions())     # no card has a token yet
    c = hand_of(s, 0)[1]
    s.apply(find(s, "charge", card=1))
    assert (mk(s, "tokens", c), mk(s, "worn", c), mk(s, "seal", c)) == (1, 2, True)
    assert [mk(s, "badge", x) for x in hand_of(s, 0)] == [1, 1]
    s.apply(find(s, "charge", card=0))     # player 1
    s.apply(find(s, "lay", card=1))        # player 0: only the charged card may be laid
    assert s.z[zi(s, "table")] == [c]


def test_marks_values_are_checked_at_run_time_the_same_under_both_backends():
    spec = TOKENS.replace("set_mark(hand[actor], 'badge', actor + 1)",
                          "set_mark(hand[actor], 'badge', [1, 'x'][rounds + 1])")
    msgs = set()
    for backend in BACKENDS:
        game = gamespec.Game(gamespec.load_text(spec, "t.yaml").spec, backend=backend)
        s = game.new_game(players=2, seed=4)
        with pytest.raises(SpecRuntimeError) as e:
            s.apply(find(s, "charge", card=0))
        msgs.add(str(e.value))
        assert "set_mark: mark 'badge' is a number, not a text" in str(e.value)
    assert len(msgs) == 1


def test_a_game_without_marks_refuses_mark_names():
    bad = re.sub(r"\nmarks:\n(  .*\n)+", "\n", TOKENS)
    assert "marks:" not in bad
    with pytest.raises(SpecErrors) as e:
        gamespec.load_text(bad, "t.yaml")
    assert "unknown mark 'tokens'; this game declares no marks (see marks:)" in str(e.value)
    assert "t.yaml:" in str(e.value)


# -- who sees a mark ----------------------------------------------------------------------------
def test_visibility_zone_public_hidden(tokens):
    s = tokens.new_game(players=2, seed=4)
    a, b = hand_of(s, 0)
    for c in range(s.rs.ncards):
        set_mk(s, "tokens", c, 3)
        set_mk(s, "worn", c, 4)
        set_mk(s, "badge", c, 5)
        set_mk(s, "seal", c, True)
    seen = {"tokens": 3, "badge": 5, "worn": 4}
    mine = s.observation(0)["zones"]["hand[0]"]
    theirs = s.observation(1)["zones"]["hand[0]"]
    assert mine["marks"] == [seen, seen] and mine["cards"][0] is not None
    assert theirs["cards"] == [None, None] and theirs["marks"] == [{"badge": 5}, {"badge": 5}]
    deck = s.observation(0)["zones"]["deck"]
    assert deck["marks"] == [{"badge": 5}] * deck["size"]
    assert all("seal" not in m for p in (0, 1) for z in s.observation(p)["zones"].values() for m in z["marks"])


def test_a_remembered_card_shows_its_face_but_not_its_zone_marks(tokens):
    s = tokens.new_game(players=2, seed=4)
    c = hand_of(s, 0)[1]
    s.apply(find(s, "charge", card=1))
    s.apply(find(s, "charge", card=0))
    s.apply(find(s, "lay", card=1))            # c goes to the public table
    s.apply(find(s, "charge", card=0))
    s.apply(find(s, "box_it", card=0))         # player 0 puts it in the hidden box: they remember it
    box = s.observation(0)["zones"]["box"]
    assert box["cards"] == [{"type": "chip", "value": s.rs.faces[s.rs.face_of[c]]["value"]}]
    assert box["marks"] == [{"badge": 1}]      # tokens and worn may change out of sight
    assert s.observation(1)["zones"]["box"] == box     # player 1 saw it on the table too


def test_a_set_lists_marks_by_face_and_its_hidden_marks_sorted(tokens):
    s = tokens.new_game(players=2, seed=4)
    rest = [c for c in range(s.rs.ncards) if c not in hand_of(s, 0) + hand_of(s, 1)]
    by_value = sorted(rest, key=lambda c: s.rs.faces[s.rs.face_of[c]]["value"])
    lo, hi = by_value[0], by_value[-1]
    arrange(s, {"pool": [hi, lo], "box": [by_value[1], by_value[2]]})
    set_mk(s, "tokens", hi, 7)
    set_mk(s, "badge", by_value[1], 2)
    set_mk(s, "badge", by_value[2], 1)
    pool = s.observation(1)["zones"]["pool"]
    assert [f["value"] for f in pool["cards"]] == sorted(f["value"] for f in pool["cards"])
    assert pool["marks"][-1]["tokens"] == 7 and pool["marks"][0]["tokens"] == 0
    box = s.observation(0)["zones"]["box"]
    assert box["cards"] == [] and box["hidden"] == 2
    assert box["hidden_marks"] == [{"badge": 1}, {"badge": 2}]     # sorted: the box's order is hidden


def test_a_card_turned_down_hides_its_zone_marks(tokens):
    s = tokens.new_game(players=2, seed=4)
    c = hand_of(s, 0)[0]
    set_mk(s, "tokens", c, 2)
    s.face[c] = 2                              # face down
    assert s.observation(0)["zones"]["hand[0]"]["marks"][0] == {"badge": 0}
    s.face[c] = 1                              # face up: everyone sees it and its zone marks
    assert s.observation(1)["zones"]["hand[0]"]["marks"][0] == {"tokens": 2, "badge": 0, "worn": 0}


def test_a_game_without_marks_shows_none_and_saves_none():
    g = gamespec.load(os.path.join(ROOT, "tests", "specs", "tiny.yaml"))
    s = g.new_game(players=2, seed=1)
    assert s.mk == [] and "marks" not in s.to_json()
    assert all("marks" not in z for z in s.observation(0)["zones"].values())
    d = s.to_json()
    d["marks"] = {}
    with pytest.raises(StateFormatError, match="declares none"):
        g.state_from_json(d)


def test_the_observation_tensor_holds_only_visible_marks(signals):
    pytest.importorskip("numpy")
    s = standard(signals)
    s.apply(find(s, "tell_colour", to=1, colour="red"))
    t1 = s.observation_tensor(1)
    enc = s.rs._obs_encoder
    off = {name: (o, shape) for name, o, shape in enc.layout}
    o, _ = off["zone hand[1] mark told_colour"]
    assert t1[o] == 2                            # two red cards hinted: public, the owner sees them
    o, _ = off["zone hand[1] mark told_colour top"]
    assert list(t1[o:o + 4]) == [0, 1, 0, 1]     # from the top down


# -- leaks: the new channel ---------------------------------------------------------------------
def _states(game, players, n=3, seed=0):
    rnd = random.Random(seed)
    for k in range(n):
        s = game.new_game(players=players, seed=100 + k, log=True)
        while not s.is_terminal:
            if rnd.random() < 0.15:
                yield s.clone()
            acts = s.legal_actions()
            s.apply(acts[rnd.randrange(len(acts))])


def _channels(s, p):
    view = s.view(p)
    return (json.dumps(s.observation(p)), json.dumps(s.log_for(p)), json.dumps(view.to_json()),
            json.dumps(s.observation_tensor(p).tolist()) if _numpy() else "")


def _numpy():
    try:
        import numpy  # noqa: F401
        return True
    except ImportError:
        return False


def _shuffle_marks(s, rnd):
    for col, decl in zip(s.mk, s.rs.mark_decl):
        for c in range(len(col)):
            col[c] = rnd.random() < 0.5 if decl.type == "bool" else rnd.randrange(4)
    s._legal = s._index = None      # the legal actions may read marks: list them again


def _game(which, backend):
    spec = gamespec.load(SIGNALS).spec if which == "signals" else gamespec.load(TOKENS_PATH).spec
    return gamespec.Game(spec, backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("which,players", [("signals", 2), ("signals", 3), ("tokens", 2)])
def test_determinize_leaves_every_byte_the_player_receives_unchanged(which, players, backend):
    game = _game(which, backend)
    rnd = random.Random(5)
    moved = checked = 0
    for s in _states(game, players):
        _shuffle_marks(s, rnd)          # marks everywhere, on cards each player may or may not see
        for p in range(players):
            d = s.determinize(p, rnd)
            assert _channels(d, p) == _channels(s, p), f"player {p} can tell the determinization apart"
            assert game.arranged_state(json.loads(json.dumps(d.to_json()))) == d
            moved += d.z != s.z
            checked += 1
    assert checked and moved


@pytest.mark.parametrize("which,players", [("signals", 2), ("tokens", 2)])
def test_changing_a_mark_the_player_sees_changes_what_they_receive(which, players):
    """The converse (so the property above can fail), and the complement: a mark they cannot see
    changes nothing they receive."""
    game = _game(which, "codegen")
    rnd = random.Random(6)
    seen_changed = unseen_same = 0
    for s in _states(game, players):
        rs = s.rs
        for p in range(players):
            bit = 1 << p
            for m, decl in enumerate(rs.mark_decl):
                placed = [c for z in s.z for c in z]
                c = rnd.choice(placed)
                visible = decl.visibility == "public" or (decl.visibility == "zone" and s._sight(c) & bit)
                t = s.clone()
                col = t.mk[m]
                col[c] = (not col[c]) if decl.type == "bool" else col[c] + 1
                t._legal = t._index = None
                if visible:
                    assert _channels(t, p) != _channels(s, p), f"player {p} does not see mark {decl.name}"
                    seen_changed += 1
                else:
                    assert _channels(t, p) == _channels(s, p), f"player {p} sees hidden mark {decl.name}"
                    unseen_same += 1
    assert seen_changed and (unseen_same or which == "signals")     # signals: public marks only


def test_a_mark_the_player_cannot_see_takes_its_initial_value_in_a_determinization(tokens):
    """Marks belong to the place, and a mark the player cannot see there (a hidden one anywhere, a
    zone one on a card they do not see) takes its initial value: its real value is what they do not
    know, and a search bot's playouts would read it. Two games that differ only in such marks give
    the same determinization; a mark they see stays at its place."""
    s = tokens.new_game(players=2, seed=4)
    seal, tok = s.rs.mark_index["seal"], s.rs.mark_index["tokens"]
    deck = s.z[zi(s, "deck")]
    mine, theirs = hand_of(s, 0)[0], hand_of(s, 1)[0]
    t = s.clone()
    set_mk(t, "seal", deck[0], True)            # hidden: nobody sees it
    set_mk(t, "tokens", theirs, 3)              # on a card in player 1's hand: player 0 does not see it
    set_mk(t, "tokens", mine, 2)                # on player 0's own card: they see it
    set_mk(s, "tokens", mine, 2)
    for _ in range(5):
        seed = random.randrange(10 ** 6)
        d, e = s.determinize(0, random.Random(seed)), t.determinize(0, random.Random(seed))
        assert json.dumps(d.to_json(), sort_keys=True) == json.dumps(e.to_json(), sort_keys=True)
        assert not any(e.mk[seal]) and e.mk[tok][mine] == 2 and sum(e.mk[tok]) == 2
    # player 1 sees their own hand: the tokens on their card stay (the seal is still nobody's)
    f = t.determinize(1, random.Random(1))
    assert f.mk[tok][hand_of(f, 1)[0]] == 3 and not any(f.mk[seal])


def test_exchanging_two_hidden_cards_changes_nothing_a_player_receives(signals):
    """Two real games that differ in which hidden card lies where (marks at their places) look the
    same to a player who sees neither card."""
    s = standard(signals)
    s.apply(find(s, "tell_colour", to=1, colour="red"))
    h1 = hand_of(s, 1)
    m = list(range(s.rs.ncards))
    m[h1[0]], m[h1[1]] = h1[1], h1[0]      # player 1 sees neither card of their own hand
    t = relabel(s, m, 1, random.Random(0))
    assert _channels(t, 1)[0] == _channels(s, 1)[0]
    assert _channels(t, 0)[0] != _channels(s, 0)[0]      # player 0 sees them: they notice


# -- saved states -------------------------------------------------------------------------------
def test_json_round_trip_replays_the_marks(signals):
    rnd = random.Random(3)
    for s in _states(signals, 2, n=2):
        d = json.loads(json.dumps(s.to_json()))
        assert list(d["marks"]) == ["told_colour", "told_rank"]
        back = signals.state_from_json(d)
        assert back == s and back.mk == s.mk
        if any(any(col) for col in s.mk):
            bad = json.loads(json.dumps(d))
            col = bad["marks"]["told_rank"]
            i = max(range(len(col)), key=lambda k: col[k])
            col[i] = 0
            with pytest.raises(StateFormatError, match="'marks' is not what its own history produces"):
                signals.state_from_json(bad)
        arranged = dict(d, marks={"told_colour": [rnd.randrange(4) for _ in range(s.rs.ncards)],
                                  "told_rank": [0] * s.rs.ncards})
        t = signals.arranged_state(arranged)
        assert t.mk[0] == arranged["marks"]["told_colour"] and t.to_json() == arranged


@pytest.mark.parametrize("damage,message", [
    (lambda d: d.pop("marks"), "missing field: marks"),
    (lambda d: d["marks"].pop("told_rank"), "one list per mark"),
    (lambda d: d["marks"].update(extra=[]), "one list per mark"),
    (lambda d: d["marks"]["told_rank"].pop(), "one value per card"),
    (lambda d: d["marks"]["told_rank"].__setitem__(0, "x"), "whole numbers"),
    (lambda d: d["marks"]["told_rank"].__setitem__(0, True), "whole numbers"),
    (lambda d: d["marks"]["told_rank"].__setitem__(0, 1 << 63), "whole numbers"),
    (lambda d: d.__setitem__("marks", [[0]]), "one list per mark"),
])
def test_bad_saved_marks_are_refused(signals, damage, message):
    s = standard(signals)
    d = json.loads(json.dumps(s.to_json()))
    damage(d)
    for load in (signals.state_from_json, signals.arranged_state):
        with pytest.raises(StateFormatError, match=message):
            load(json.loads(json.dumps(d)))


def test_a_bool_mark_saves_as_bools(tokens):
    s = tokens.new_game(players=2, seed=4)
    s.apply(find(s, "charge", card=0))
    d = json.loads(json.dumps(s.to_json()))
    assert set(map(type, d["marks"]["seal"])) == {bool}
    assert tokens.state_from_json(d) == s
    d["marks"]["seal"][0] = 1
    with pytest.raises(StateFormatError, match="true or false"):
        tokens.arranged_state(d)


# -- both backends --------------------------------------------------------------------------------
@pytest.mark.parametrize("text", ["signals", "tokens"])
def test_both_backends_play_the_same_games_marks_included(text):
    games = [_game(text, b) for b in BACKENDS]
    marked = 0
    for seed in range(6):
        out = []
        for game in games:
            rnd = random.Random(seed)
            s = game.new_game(players=2, seed=seed, log=True)
            while not s.is_terminal:
                acts = s.legal_actions()
                s.apply(acts[rnd.randrange(len(acts))])
            out.append(s.to_json())
        assert out[0] == out[1]
        marked += any(any(col) for col in out[0]["marks"].values())
    assert marked


# -- the terminal table and the web page show the marks the seat sees -------------------------------
def test_the_terminal_and_the_web_page_show_the_seat_its_marks(signals):
    import io
    from gamespec.table.play import Output, Table
    from gamespec.web.messages import seat_message
    s = standard(signals)
    s.apply(find(s, "tell_colour", to=1, colour="red"))
    t = Table(signals, SIGNALS, 2, 1, 1, signals.check_options({}), ["random"] * 2)
    out = io.StringIO()
    t.out = Output(out, color=False)
    t.state = s
    t.show(s.view(1))
    screen = out.getvalue()
    assert "? [told_colour=1], ?, ? [told_colour=1], ?" in screen      # hand[1]: marks, no faces
    # the face-down deck carries no set mark: drawn as any pile, not one '?' per card
    size = len(s.z[zi(s, "deck")])
    assert size > 4 and f"deck ({size}): face down" in screen and "?, ?, ?, ?, ?" not in screen
    msg = seat_message(s, 1, {"game": "Signals", "seats": ["human", "random"]})
    assert msg["zones"]["hand[1]"]["marks"][0] == {"told_colour": 1, "told_rank": 0}
    assert msg["zones"]["hand[1]"]["cards"] == [None] * 4
    d = s.determinize(1, random.Random(2))
    assert seat_message(d, 1, {"game": "Signals", "seats": ["human", "random"]}) == msg


def test_a_label_cannot_show_a_mark():
    bad = TOKENS.replace('label: "charge {card}"', "label: \"charge {mark(card, 'tokens')}\"")
    assert bad != TOKENS
    with pytest.raises(SpecErrors) as e:
        gamespec.load_text(bad, "t.yaml")
    assert "a label is built from the action's parameters" in str(e.value)
