"""The language, wider (issue 18): named effects, counting helpers, sizes from the player count, labels
with expressions, and the phase `end_if` before the first turn; each under both backends."""
from __future__ import annotations

import os
import random

import pytest

import gamespec
from gamespec.errors import SpecError, SpecErrors

HERE = os.path.dirname(os.path.abspath(__file__))
SPECS = os.path.join(HERE, "specs")
BACKENDS = ["codegen", "closures"]
TINY = open(os.path.join(SPECS, "tiny.yaml"), encoding="utf-8").read()


def errors_of(text):
    with pytest.raises((SpecError, SpecErrors)) as ei:
        gamespec.load_text(text, "t.yaml")
    e = ei.value
    return [str(x) for x in getattr(e, "errors", [e])]


def play(path, backend, players, seed, options=None):
    g = gamespec.load(path)
    g.backend = backend
    s = g.new_game(players=players, seed=seed, options=options, log=True)
    pick = random.Random(seed)
    labels = []
    while not s.is_terminal:
        acts = s.legal_actions()
        a = acts[pick.randrange(len(acts))]
        labels.append(a.label)
        s.apply(a)
    return s, labels


# -- named effects ----------------------------------------------------------------------------
def test_named_effects_run_the_same_under_both_backends():
    path = os.path.join(SPECS, "sets.yaml")
    for seed in range(6):
        a, la = play(path, "codegen", 3, seed)
        b, lb = play(path, "closures", 3, seed)
        assert la == lb and a.log_lines() == b.log_lines() and (a.scores, a.winners) == (b.scores, b.winners)


@pytest.mark.parametrize("backend", BACKENDS)
def test_named_effect_with_parameters_deals_and_counts(backend):
    g = gamespec.load(os.path.join(SPECS, "sets.yaml"))
    g.backend = backend
    for hs in (4, 6):
        s = g.new_game(players=3, seed=3, options={"hand_size": hs})
        pick = random.Random(hs)
        laid_some = False
        while not s.is_terminal:
            for q in range(3):   # refill(q, n) counted exactly the cards it dealt
                assert g.evaluate(s, f"drawn[{q}]") == g.evaluate(s, f"size(hand[{q}]) + size(laid[{q}])") >= hs
            acts = s.legal_actions()
            a = acts[pick.randrange(len(acts))]
            if a.name == "lay":   # lay_down(actor, rank) moves every card of that rank, three or more
                r = a.to_json(label=False)["rank"]
                p = s.current_player
                before = g.evaluate(s, f"count(c for c in hand[{p}] if c.rank == {r})")
                assert before >= 3
                s.apply(a)
                laid_some = True
                assert g.evaluate(s, f"count(c for c in laid[{p}] if c.rank == {r})") == before
                assert g.evaluate(s, f"count(c for c in hand[{p}] if c.rank == {r})") == 0
            else:
                s.apply(a)
        assert laid_some


def _with_effects(effects, on_begin="shuffle(deck)"):
    text = TINY.replace('on_begin: "shuffle(deck)"', f"effects:\n{effects}\non_begin: \"{on_begin}\"")
    assert text != TINY
    return text


def test_named_effect_recursion_is_an_error_with_a_position():
    errs = errors_of(_with_effects('  a(q): "b(q)"\n  b(q): "a(q)"'))
    assert any("uses itself (a -> b -> a)" in e for e in errs), errs
    assert all(e.startswith("t.yaml:") and e.split(":")[1].isdigit() for e in errs)


def test_named_effect_calling_itself_is_an_error():
    errs = errors_of(_with_effects('  a(q): "if q > 0 { a(q - 1) }"'))
    assert any("named effect 'a' uses itself" in e for e in errs), errs


def test_named_effect_body_is_type_checked_at_validate_time():
    errs = errors_of(_with_effects('  bad(q): "move(q + 1, deck)"'))
    assert any("argument 1 of 'move' should be a card" in e for e in errs), errs


def test_named_effect_arity_and_use_as_a_value():
    errs = errors_of(_with_effects('  give(q): "deal(deck, hand[q])"', "give(0, 1)"))
    assert any("'give' takes 1 argument(s), got 2" in e for e in errs), errs
    errs = errors_of(_with_effects('  give(q): "deal(deck, hand[q])"', "stopped[0] = give(0)"))
    assert any("is a named effect; call it as a statement" in e for e in errs), errs


def test_named_effect_body_sees_only_its_parameters():
    # hygiene: a caller's local is not visible inside the body
    errs = errors_of(_with_effects('  give(q): "deal(deck, hand[k])"', "let k = 0; give(k)"))
    assert any("unknown name 'k'" in e for e in errs), errs


def test_named_effect_misspelt_suggests_it():
    errs = errors_of(_with_effects('  give_one(q): "deal(deck, hand[q])"', "give_on(0)"))
    assert any("did you mean 'give_one'" in e for e in errs), errs


@pytest.mark.parametrize("backend", BACKENDS)
def test_named_effect_parameters_do_not_leak_into_the_caller(backend):
    # the body's `let` and parameter do not overwrite the caller's local of the same name
    text = _with_effects('  give(q): "let n = 2; deal(deck, hand[q], n)"',
                         "let n = 1; give(1); deal(deck, hand[0], n)")
    g = gamespec.load_text(text, "t.yaml")
    g.backend = backend
    s = g.new_game(players=2, seed=1)
    assert g.evaluate(s, "size(hand[0])") == 1 and g.evaluate(s, "size(hand[1])") == 2


# -- counting helpers -------------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("expr,value", [
    ("distinct([3, 1, 3, 2, 1])", [3, 1, 2]), ("count_by([3, 1, 3, 2, 1])", [2, 2, 1]),
    ("distinct([])", []), ("count_by([])", []), ("count_by(['a', 'a'])", [2]),
    ("max(count_by([c.value for c in deck]))", 2), ("size(distinct([c.value for c in deck]))", 5),
    ("count_by([c.value for c in deck])", [2, 2, 2, 2, 2]),
    ("sorted(distinct([c.value for c in deck]))", [1, 2, 3, 4, 5]),
])
def test_counting_helpers(backend, expr, value):
    g = gamespec.load(os.path.join(SPECS, "tiny.yaml"))
    g.backend = backend
    s = g.new_game(players=2, seed=5)
    assert g.evaluate(s, expr) == value


def test_counting_helpers_are_type_checked():
    errs = errors_of(TINY.replace('effect: "stopped[actor] = 1"', 'effect: "stopped[actor] = count_by(3)"'))
    assert any("argument 1 of 'count_by' should be a zone or a list" in e for e in errs), errs
    errs = errors_of(TINY.replace('effect: "stopped[actor] = 1"', 'effect: "stopped[actor] = distinct(hand[actor])"'))
    assert any("cannot be given" in e for e in errs), errs


# -- sizes from the player count and options -------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
def test_sizes_follow_the_player_count(backend):
    g = gamespec.load(os.path.join(SPECS, "sets.yaml"))
    g.backend = backend
    for players, cards, piles in ((2, 32, 3), (3, 64, 4), (4, 64, 5)):
        s = g.new_game(players=players, seed=1)
        assert s.rs.ncards == cards                       # face count "2 if num_players >= 3 else 1"
        assert g.evaluate(s, "indices(market)") == list(range(piles))   # zone count "num_players + 1"
        assert g.evaluate(s, "sorted(distinct([c.rank for c in cards(deck) + cards(hand[0])]))") == \
            list(range(1, 9))                                # each: {rank: "range(1, 9)"}
        assert all(g.evaluate(s, f"size(market[{m}])") == 1 for m in range(piles))
        legal = {tuple(sorted(a.to_json(label=False).items())) for a in s.legal_actions()}
        assert {("action", "take"), ("m", piles - 1)} <= {x for t in legal for x in t}


def _sized(zone_count=None, face_count=None, each=None):
    text = TINY
    if zone_count is not None:
        text = text.replace("  deck: {kind: pile, visibility: hidden}",
                            f"  deck: {{kind: pile, visibility: hidden}}\n  row: {{kind: pile, count: \"{zone_count}\"}}")
    if face_count is not None:
        text = text.replace("count: 2}", f"count: \"{face_count}\"}}")
    if each is not None:
        text = text.replace("{each: {value: [1, 2, 3, 4, 5]}", f"{{each: {{value: {each}}}")
    assert text != TINY
    return text


def test_a_size_reads_only_numbers_players_and_options():
    errs = errors_of(_sized(zone_count="size(deck)"))
    assert any("cannot decide a size at set-up" in e and e.startswith("t.yaml:") for e in errs), errs
    errs = errors_of(_sized(face_count="stopped[0]"))
    assert any("cannot decide a size at set-up" in e for e in errs), errs
    errs = errors_of(_sized(zone_count="num_players > 2"))
    assert any("should be a number" in e for e in errs), errs


def test_a_size_out_of_range_for_some_player_count_is_a_validate_time_error():
    errs = errors_of(_sized(zone_count="num_players - 2"))     # 0 piles with 2 players
    assert any("this size is 0 for 2 players" in e and "must be 1 to 1000" in e for e in errs), errs
    errs = errors_of(_sized(face_count="2 - num_players"))      # a face may have 0 copies, never -1
    assert any("this size is -1 for 3 players" in e and "must be 0 to 1000" in e for e in errs), errs
    assert not any("size is 0" in e for e in errs)


def test_each_as_a_range_and_its_limit():
    g = gamespec.load_text(_sized(each='"range(3, 8)"'), "t.yaml")
    s = g.new_game(players=2, seed=1)
    assert sorted(g.evaluate(s, "distinct([c.value for c in deck])")) == [3, 4, 5, 6, 7]
    errs = errors_of(_sized(each='"range(0, 250)"'))
    assert any("has 250 values; an 'each' list has at most 100" in e for e in errs), errs
    errs = errors_of(_sized(each='"1 to 5"'))
    assert any("range(a, b)" in e for e in errs), errs
    # a written-out list over the limit: the message says the limit and the size, not the list
    errs = errors_of(_sized(each=str(list(range(150)))))
    assert any("has 150 items; at most 100 are allowed" in e for e in errs), errs
    assert all("149" not in e for e in errs)


# -- a phase's end_if before its first turn -------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_phase_whose_end_if_holds_at_its_start_plays_no_turn(backend):
    text = TINY.replace('    end_if: "all(stopped[p] == 1 for p in players) or size(deck) == 0"\n    next: end',
                        '    end_if: "skip_play"\n    on_end: "ended += 1"\n    next: end')
    text = text.replace("variables:\n", "variables:\n  skip_play: {type: bool, initial: true}\n"
                                        "  ended: {initial: 0}\n")
    assert text.count("skip_play") == 2
    g = gamespec.load_text(text, "t.yaml")
    g.backend = backend
    s = g.new_game(players=2, seed=1, log=True)
    assert s.is_terminal and g.evaluate(s, "ended") == 1
    assert not any(x["type"] == "action" for x in s.log_lines())
    # and with the flag off, turns are played until the end_if is set (never here: a draw ends it)
    g2 = gamespec.load_text(text.replace("initial: true", "initial: false"), "t.yaml")
    g2.backend = backend
    assert not g2.new_game(players=2, seed=1).is_terminal


# -- labels with expressions -----------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
def test_label_expressions_show_values_built_from_the_parameters(backend):
    g = gamespec.load(os.path.join(SPECS, "sets.yaml"))
    g.backend = backend
    s = g.new_game(players=3, seed=1)
    labels = [a.label for a in s.legal_actions()]
    assert labels == ["draw from the deck"] + [f"take from pile {m + 1} of 4" for m in range(4)]
    assert [a.label for a in s.view(s.current_player).legal_actions] == labels
    p = gamespec.load(os.path.join(SPECS, "partners.yaml"))
    p.backend = backend
    seen_trump = seen_plain = False
    for seed in range(10):
        st = p.new_game(players=4, seed=seed, options={"trumps": seed % 2 == 0})
        hand = st.z[st.rs.zone_base["hand"]]
        for a in st.legal_actions():
            face = st.rs.faces[st.rs.face_of[hand[a.to_json(label=False)["card"]]]]
            trump = seed % 2 == 0 and face["suit"] == "hearts"
            assert a.label == f"play {face['rank']} of {face['suit']}" + (", a trump" if trump else "")
            seen_trump |= trump
            seen_plain |= not trump and face["suit"] == "hearts"
        assert [a.label for a in st.view(st.current_player).legal_actions] == [a.label for a in st.legal_actions()]
    assert seen_trump and seen_plain


def _labelled(label, params="    params:\n      card: {from: \"deck\"}\n"):
    text = TINY.replace('  draw:\n    if: "stopped[actor] == 0"',
                        f'  draw:\n    label: "{label}"\n{params}    if: "stopped[actor] == 0"')
    assert text != TINY
    return text


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_label_never_shows_an_attribute_of_a_card_the_chooser_does_not_see(backend):
    g = gamespec.load_text(_labelled("take {card}: {card.value} or {2 * card.value}"), "t.yaml")
    g.backend = backend
    s = g.new_game(players=2, seed=1)
    labels = [a.label for a in s.legal_actions() if a.name == "draw"]
    assert labels and all(x.endswith(": ? or ?") and "hidden card" in x for x in labels), labels


@pytest.mark.parametrize("label,message", [
    ("take {stopped[actor]}", "never the game's state"),
    ("take {size(deck)}", "never the game's state"),
    ("take {actor}", "is not a parameter of this action"),
    ("take {actor + 1}", "never the game's state"),
    ("take {card if true else card}", "a card parameter shows as {card} or {card.attr}"),
    ("take {card.colour}", "unknown card attribute 'colour'"),
    ("take {2 +}", "t.yaml:"),
    ("take {crad}", "did you mean 'card'"),
])
def test_label_expressions_are_checked_at_validate_time(label, message):
    errs = errors_of(_labelled(label))
    assert any(message in e and e.startswith("t.yaml:") for e in errs), errs


def test_a_label_is_capped_in_length():
    errs = errors_of(_labelled("take {card} " + "x" * 400))
    assert any("at most 300 are allowed" in e for e in errs), errs


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_hand_size_follows_the_player_count(backend):
    g = gamespec.load(os.path.join(SPECS, "sets.yaml"))
    g.backend = backend
    for players, extra in ((2, 1), (3, 0)):
        s = g.new_game(players=players, seed=4, options={"hand_size": 5})
        # before anyone draws: the dealt hands (the first player has not yet chosen to draw)
        assert [g.evaluate(s, f"drawn[{q}]") for q in range(players)] == [5 + extra] * players


# -- card labels with expressions over the card's attributes ---------------------------------------
def _card_label(label, faces="      - {each: {value: [1, 2, 3, 4, 5]}, count: 2}\n"):
    text = TINY.replace("  number:\n    zone: deck\n    faces:\n      - {each: {value: [1, 2, 3, 4, 5]}, count: 2}\n",
                        f"  number:\n    zone: deck\n    label: \"{label}\"\n    faces:\n{faces}")
    assert text != TINY
    return text


def test_a_card_label_computes_text_from_the_cards_attributes():
    faces = ("      - {each: {value: [1, 2, 3]}, gold: true, count: 1}\n"
             "      - {each: {value: [4, 5]}, gold: false, count: 2}\n")
    g = gamespec.load_text(_card_label("{value}{' gold' if gold else ''} ({value * 10} pts, {gold}, "
                                       "{'high' if value >= 4 and not gold else 'low'})", faces), "t.yaml")
    labels = sorted(set(g.ruleset(2, {}).face_label))
    assert labels == ["1 gold (10 pts, true, low)", "2 gold (20 pts, true, low)", "3 gold (30 pts, true, low)",
                      "4 (40 pts, false, high)", "5 (50 pts, false, high)"]


def test_every_card_label_is_in_the_specs_words():
    """No Python value (True, False, None) in any card's label, in every spec."""
    import glob
    import re
    for path in sorted(glob.glob(os.path.join(HERE, "..", "games", "*.yaml")) + glob.glob(os.path.join(SPECS, "*.yaml"))):
        g = gamespec.load(path)
        rs = g.ruleset(g.spec.min_players, {})
        bad = [x for x in rs.face_label if re.search(r"\b(True|False|None)\b", x)]
        assert not bad, (path, bad[:3])


@pytest.mark.parametrize("label,message", [
    ("{valeu + 1}", "this card has no attribute 'valeu'"),
    ("{value + 'x'}", "'+' takes two whole numbers here"),
    ("{10 // (value - 3)}", "cannot be shown for the number card with value=3: a division by zero"),
    ("{value < 'a'}", "compares a number with a text"),
    ("{size(value)}", "size() is not allowed in a card label"),
    ("{value * 1000000000 * 1000000000}", "a number beyond"),
    ("{value +}", "t.yaml:"),
    ("{valeu}", "did you mean 'value'"),
])
def test_card_label_expressions_are_checked_for_every_face(label, message):
    errs = errors_of(_card_label(label))
    assert any(message in e and e.startswith("t.yaml:") for e in errs), errs
