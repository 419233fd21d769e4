"""Labels that show the card at an end of a pile (issue 41): `{top(row[r])}` / `{bottom(pile)}` in an
action's label shows that card as the chooser sees it: its face if they see or know it, else the
handle a view gives a hidden card of a pile ("hidden card N of ZONE"), "nothing" for an empty pile.
The leak property: in every world the chooser cannot tell from the real one (a determinization for
them) the labels of their legal actions are the same; the converse, so that it can fail. Misuse is a
load error at its place. Bali's `take` and No Thanks' `take` show the card they take."""
from __future__ import annotations

import random

import pytest

import gamespec
from gamespec.errors import SpecError, SpecErrors
from helpers import arrange, load, zone

BACKENDS = ["codegen", "closures"]

SPEC = """\
name: Ends
players: [2, 3]
cards:
  number:
    zone: deck
    faces:
      - {each: {value: [1, 2, 3, 4, 5, 6]}, count: 3}
zones:
  deck: {kind: pile, visibility: hidden}
  row: {kind: pile, count: 3, visibility: public}
  stash: {kind: pile, per_player: true, visibility: owner}
  hand: {kind: set, per_player: true, visibility: owner}
  bin: {kind: pile, visibility: public}
variables:
  stopped: {per_player: true, initial: 0}
on_begin: |
  shuffle(deck)
  for r in range(3) { deal(deck, row[r], 2) }
  for p in players { deal(deck, stash[p], 2) }
start: play
phases:
  play:
    turn:
      steps:
        - choose: [take, look, bury, peek, stop]
    end_if: "all(stopped[p] == 1 for p in players) or size(deck) == 0"
    next: end
actions:
  take:
    label: "TAKE_LABEL"
    params:
      r: {zone: row, where: "size(row[r]) > 0"}
    effect: "move(top(row[r]), hand[actor])"
  look:
    label: "look at the deck's top card ({top(deck)})"
    effect: "reveal(top(deck), actor)"
  bury:
    label: "bury the deck's top card face down on the bin (now {top(bin)})"
    effect: "move(top(deck), bin, face='down')"
  peek:
    label: "compare with {q}: {top(stash[q])}"
    params:
      q: {player: true}
    if: "stopped[actor] == 0"
    effect: "stopped[actor] = 0"
  stop:
    effect: "stopped[actor] = 1"
scoring:
  score: "sum(c.value for c in hand[p])"
"""
TAKE = "take the top of {r} ({top(row[r])}, over {bottom(row[r])})"


def game(label=TAKE, backend=None):
    g = gamespec.load_text(SPEC.replace("TAKE_LABEL", label), "ends.yaml")
    if backend is not None:
        g.backend = backend
    return g


def labels(s, p=None):
    """The chooser's labels by action: ("take", r), ("peek", q), or the action's name."""
    p = s.current_player if p is None else p
    out = {}
    for a in s.view(p).legal_actions:
        j = a.to_json(label=False)
        out[(a.name, j["r"]) if "r" in j else (a.name, j["q"]) if "q" in j else a.name] = a.label
    return out


def shown(s, c):
    return s.rs.face_label[s.rs.face_of[c]]


# -- what a label shows ----------------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
def test_the_label_shows_the_face_of_a_card_the_chooser_sees(backend):
    s = game(backend=backend).new_game(players=3, seed=4)
    p = s.current_player
    want = {r: f"take the top of row {r} ({shown(s, zone(s, 'row', r)[-1])}, over {shown(s, zone(s, 'row', r)[0])})"
            for r in range(3)}
    got = labels(s, p)
    assert [got["take", r] for r in range(3)] == [want[r] for r in range(3)]
    # the chooser's own stash (theirs to see) by its top card's face
    assert got["peek", p] == f"compare with player {p}: {shown(s, zone(s, 'stash', p)[-1])}"
    # after a take the row's new top card shows
    under = zone(s, "row", 0)[0]
    s.apply_view_json(p, {"action": "take", "r": 0})
    assert labels(s)["take", 0] == f"take the top of row 0 ({shown(s, under)}, over {shown(s, under)})"


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_card_the_chooser_cannot_see_shows_as_the_views_handle(backend):
    s = game(backend=backend).new_game(players=3, seed=4)
    p = s.current_player
    got = labels(s, p)
    for q in range(3):        # another's stash: its owner sees it, the chooser does not
        if q != p:
            assert got["peek", q] == f"compare with player {q}: hidden card 2 of stash of player {q}"
    deck = zone(s, "deck")
    assert got["look"] == f"look at the deck's top card (hidden card {len(deck)} of deck)"
    # the words of a view's handle for a hidden card of a pile
    hidden = s.view(p).observation["zones"]["deck"]
    assert hidden["size"] == len(deck) and hidden["cards"][-1] is None
    # a card the chooser has been shown (reveal) is theirs to know: its face, for them only
    top = deck[-1]
    s.apply_view_json(p, {"action": "look"})
    assert labels(s)["look"] == f"look at the deck's top card (hidden card {len(deck)} of deck)"
    while s.current_player != p:
        s.apply_view_json(s.current_player, {"action": "peek", "q": s.current_player})
    assert labels(s)["look"] == f"look at the deck's top card ({shown(s, top)})"


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_card_turned_face_down_on_a_public_pile_is_a_handle_and_an_empty_pile_nothing(backend):
    s = game(backend=backend).new_game(players=2, seed=1)
    p = s.current_player
    assert labels(s)["bury"] == "bury the deck's top card face down on the bin (now nothing)"
    s.apply_view_json(p, {"action": "bury"})
    for q in (1 - p, p):
        while s.current_player != q:
            s.apply_view_json(s.current_player, {"action": "peek", "q": 0})
        assert labels(s)["bury"] == "bury the deck's top card face down on the bin (now hidden card 1 of bin)"


def test_a_label_built_without_the_state_shows_a_question_mark():
    """The engine's own Action (state.legal_actions()) has no state to read: '?' (docs/language.md)."""
    s = game().new_game(players=2, seed=1)
    acts = [a.label for a in s.legal_actions()]
    assert "bury the deck's top card face down on the bin (now ?)" in acts
    assert [x for x in acts if x.startswith("take")] == [f"take the top of row {r} (?, over ?)" for r in range(3)]


def test_a_key_the_family_does_not_have_shows_a_question_mark():
    s = game("take {r}: then {top(row[r + 1])}").new_game(players=2, seed=3)
    got = [a.label for a in s.view(s.current_player).legal_actions if a.name == "take"]
    assert got[:2] == [f"take row {r}: then {shown(s, zone(s, 'row', r + 1)[-1])}" for r in range(2)]
    assert got[2] == "take row 2: then ?"


# -- the leak property -----------------------------------------------------------------------------
def _states(g, players, seeds, every=5):
    for seed in seeds:
        s = g.new_game(players=players, seed=seed)
        rnd = random.Random(seed)
        n = 0
        while not s.is_terminal and n < 60:
            if n % every == 0:
                yield s.clone()
            acts = s.legal_actions()
            s.apply(acts[rnd.randrange(len(acts))])
            n += 1


def _view_labels(s, p):
    return [a.label for a in s.view(p).legal_actions]


@pytest.mark.parametrize("players", [2, 3])
def test_every_world_the_chooser_cannot_tell_apart_gives_the_same_labels(players):
    g = game()
    rng = random.Random(7)
    checked = moved = handles = 0
    for s in _states(g, players, range(6)):
        p = s.current_player
        if p is None:
            continue
        mine = _view_labels(s, p)
        handles += any("hidden card" in x for x in mine)
        for _ in range(3):
            d = s.determinize(p, rng)
            assert _view_labels(d, p) == mine
            moved += d.z != s.z
            checked += 1
    assert checked > 30 and moved > checked // 2 and handles > 10


def test_the_converse_a_card_the_chooser_sees_changes_the_label():
    """So the property above can fail: exchanging the top of a row (public) or of the chooser's own stash
    with a card of another face changes their labels; exchanging two cards of another's stash does not."""
    g = game()
    s = g.new_game(players=3, seed=4)
    p = s.current_player
    q = (p + 1) % 3
    before = _view_labels(s, p)
    deck = zone(s, "deck")
    for name, key in (("row", 1), ("stash", p)):
        t = s.clone()
        pile = zone(t, name, key)
        other = next(c for c in deck if shown(t, c) != shown(t, pile[-1]))
        arrange(t, {(name, key): pile[:-1] + [other], "deck": [c for c in deck if c != other] + [pile[-1]]})
        assert _view_labels(t, p) != before, name
    t = s.clone()
    pile = zone(t, "stash", q)
    other = next(c for c in deck if shown(t, c) != shown(t, pile[-1]))
    arrange(t, {("stash", q): pile[:-1] + [other], "deck": [c for c in deck if c != other] + [pile[-1]]})
    assert _view_labels(t, p) == before


def test_bali_labels_are_the_same_in_every_world_its_chooser_cannot_tell_apart():
    g = load("bali")
    rng = random.Random(3)
    checked = 0
    for s in _states(g, 3, range(2), every=7):
        p = s.current_player
        if p is None or not any(a.name == "take" for a in s.view(p).legal_actions):
            continue
        mine = _view_labels(s, p)
        for _ in range(2):
            assert _view_labels(s.determinize(p, rng), p) == mine
            checked += 1
    assert checked >= 4


# -- load errors -----------------------------------------------------------------------------------
def errors_of(text):
    with pytest.raises((SpecError, SpecErrors)) as ei:
        gamespec.load_text(text, "t.yaml")
    return [str(x) for x in getattr(ei.value, "errors", [ei.value])]


@pytest.mark.parametrize("label,at,message", [
    ("{top(5)}", "5", "argument 1 of 'top' should be zone, this is int"),
    ("{top(rwo[r])}", "rwo", "unknown name 'rwo'; did you mean 'row'?"),
    ("{bottom(pile)}", "pile", "unknown name 'pile'"),
    ("{top(row)}", "row", "'row' is a family of zones; name one of them, as in top(row[key])"),
    ("{top(hand[0])}", "hand", "'hand' is a set, which has no order; only a pile has a top and a bottom card"),
    ("{top(row[r], 2)}", "top", "takes one argument, the pile"),
    ("{top(row[r]).value}", "top", "top() shows the card at an end of a pile and stands alone in its placeholder"),
    ("{1 + size([bottom(bin)])}", "bottom", "bottom() shows the card at an end of a pile and stands alone"),
    ("{top(stash[actor])}", "actor", "the key of stash is built from the action's parameters, options, tables "
                                     "and num_players only (never the game's state"),
    ("{top(row[stopped[0]])}", "stopped", "the key of row is built from the action's parameters"),
    ("{top(zone_of(top(bin)))}", "zone_of", "names a pile of the spec"),
    ("{top(row[7])}", "7", "'row' has no member 7"),
    ("{size(row[r])}", "row", "a label is built from the action's parameters, options, tables and num_players "
                              "only (never the game's state"),
])
def test_misuse_is_a_load_error_at_its_place(label, at, message):
    text = SPEC.replace("TAKE_LABEL", f"take {label}")
    line_no, line = next((i, x) for i, x in enumerate(text.split("\n"), 1) if label in x)
    col = line.index(label) + label.index(at) + 1
    errs = errors_of(text)
    assert any(e.startswith(f"t.yaml:{line_no}:{col}: error: ") and message in e for e in errs), (errs, line_no, col)


# -- the library's games ---------------------------------------------------------------------------
def test_bali_take_names_the_card_it_takes_mid_game():
    g = load("bali")
    s = g.new_game(players=3, seed=11, options={"oracle": True, "demon": True})
    rnd = random.Random(11)
    while s.decisions < 25 or not any(a.name == "take" for a in s.legal_actions()):
        acts = s.legal_actions()
        s.apply(acts[rnd.randrange(len(acts))])
    p = s.current_player
    obs = s.observation(p)
    takes = [a for a in s.view(p).legal_actions if a.name == "take"]
    assert takes
    faces = dict(zip(map(tuple, map(sorted, map(dict.items, map(dict, s.rs.faces)))), s.rs.face_label))
    for a in takes:
        r = a.to_json(label=False)["r"]
        top = obs["zones"][f"row[{r}]"]["cards"][-1]          # the row's takeable card, as p sees it
        assert a.label == f"take the bottom card of row {r} ({faces[tuple(sorted(top.items()))]})"
    assert any("(" in a.label and "?" not in a.label for a in takes)


def test_no_thanks_take_names_the_card_on_offer():
    g = load("no_thanks")
    s = g.new_game(players=4, seed=2)
    for _ in range(6):
        p = s.current_player
        card = s.observation(p)["zones"]["offer"]["cards"][-1]["value"]
        assert [a.label for a in s.view(p).legal_actions][-1] == f"take the card ({card}) and the chips on it"
        s.apply(s.legal_actions()[0 if len(s.legal_actions()) > 1 and _ % 2 else -1])
