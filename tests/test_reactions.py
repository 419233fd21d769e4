"""Reaction windows (docs/language.md, "Reaction windows"): the rules of the two specs that use them
(tests/specs/bluff.yaml: in turn, the first response, nested windows; tests/specs/snap.yaml: at once,
the first response and every response), who is asked and when, the window's outcome, hidden
information (pending at-once choices, a card proved and shuffled back), saved states, replays, both
backends, and the lint of a window that reads hidden facts."""
from __future__ import annotations

import json
import os
import random

import pytest

import gamespec
from gamespec.interpreter import runtime
from gamespec.interpreter.replay import replay
from gamespec.interpreter.runtime import pending_choices

HERE = os.path.dirname(os.path.abspath(__file__))
BLUFF = os.path.join(HERE, "specs", "bluff.yaml")
SNAP = os.path.join(HERE, "specs", "snap.yaml")


@pytest.fixture(scope="module")
def bluff():
    return gamespec.load(BLUFF)


@pytest.fixture(scope="module")
def snap():
    return gamespec.load(SNAP)


def names(s):
    return sorted({a.name for a in s.legal_actions()})


def var(s, name, p=None):
    v = s.observation(0)["variables"][name]
    return v if p is None else v[p]


def roles(s, p):
    return sorted(c["role"] for c in s.observation(p)["zones"][f"hand[{p}]"]["cards"])


def window(s):
    """The reaction window the pending decision belongs to (its step), or None."""
    if s.is_terminal or s.pending < 0:
        return None
    ch = s.rs.chooses[s.pending]
    return ch.step if ch.window is not None else None


# -- in turn, the first response takes the window ----------------------------------------------------
def test_a_claim_asks_the_others_in_turn_and_the_first_challenge_closes_the_window(bluff):
    s = bluff.new_game(players=4, seed=3, log=True)
    s.apply({"action": "tax"})                  # player 0 claims a duke
    asked = []
    while window(s) is not None and s.current_player != 3:
        asked.append(s.current_player)
        assert names(s) == ["challenge", "skip"]
        assert [a.label for a in s.legal_actions()][-1] == "let it stand"
        s.apply({"action": "skip"})
    assert asked == [1, 2] and s.current_player == 3 and s.cur == 0   # others(actor): clockwise from 0
    s.apply({"action": "challenge"})
    # the window closed at the first response: the claimer answers it; nobody else is asked
    assert s.current_player == 0 and window(s) is None
    assert set(names(s)) <= {"prove", "concede"} and "concede" in names(s)
    assert ("prove" in names(s)) == ("duke" in roles(s, 0))


def test_the_outcome_of_a_window_is_read_by_the_steps_that_follow(bluff):
    """`as: challenger` in the then steps: a proved claim makes the challenger lose an influence."""
    for seed in range(40):
        s = bluff.new_game(players=3, seed=seed)
        if "duke" not in roles(s, 0):
            continue
        s.apply({"action": "tax"})
        s.apply({"action": "skip"})             # player 1 lets it stand
        s.apply({"action": "challenge"})        # player 2 challenges
        s.apply(next(a for a in s.legal_actions() if a.name == "prove"))
        assert var(s, "loser") == 2 and var(s, "failed") is False
        assert s.current_player == 2 and names(s) == ["lose"]     # the challenger turns up a card
        s.apply(s.legal_actions()[0])
        assert var(s, "coins") [0] == 5          # the tax was paid: the claim stood
        return
    pytest.fail("no seed gives player 0 a duke")


def test_a_block_can_be_challenged_a_window_inside_a_window(bluff):
    for seed in range(60):
        s = bluff.new_game(players=3, seed=seed)
        if "captain" in roles(s, 1):
            continue                            # the blocker must bluff: the doubt wins
        s.apply({"action": "steal", "q": 1})
        s.apply({"action": "skip"})
        s.apply({"action": "skip"})             # nobody challenges the steal
        assert s.current_player == 1 and names(s) == ["block", "skip"]   # the target may block
        s.apply({"action": "block"})
        assert s.current_player == 2 and names(s) == ["doubt", "skip"]   # others(blocker): 2, then 0
        s.apply({"action": "skip"})
        assert s.current_player == 0
        s.apply({"action": "doubt"})
        assert s.current_player == 1 and names(s) == ["concede"]     # no captain: cannot prove it
        s.apply({"action": "concede"})
        assert var(s, "loser") == 1 and var(s, "failed") is False
        s.apply(s.legal_actions()[0])           # the blocker turns up a card
        assert var(s, "coins") == [4, 0, 2]     # the steal went through
        return
    pytest.fail("no seed without a captain for player 1")


def test_a_block_that_stands_makes_the_action_fail(bluff):
    s = bluff.new_game(players=2, seed=1)
    s.apply({"action": "steal", "q": 1})
    s.apply({"action": "skip"})                 # the challenge window: player 1 lets it stand
    s.apply({"action": "block"})                # the block window: player 1 blocks
    s.apply({"action": "skip"})                 # the doubt window: player 0 believes it
    assert var(s, "coins") == [2, 2] and s.cur == 1     # nothing was stolen; the next turn began


# -- a card shown and shuffled back ---------------------------------------------------------------
def _proved(bluff, seed):
    s = bluff.new_game(players=3, seed=seed, log=True)
    if "duke" not in roles(s, 0):
        return None
    s.apply({"action": "tax"})
    s.apply({"action": "challenge"})
    s.apply(next(a for a in s.legal_actions() if a.name == "prove"))
    return s


def test_a_card_shown_then_shuffled_back_stays_shown(bluff, monkeypatch):
    """The proof moves the card face up, back into the court and shuffles it: everyone saw it, so
    everyone's history and log show it (before issue 31 they showed null)."""
    s = next(x for x in (_proved(bluff, seed) for seed in range(40)) if x is not None)
    for p in range(3):
        ev = [e for e in s.observation(p)["history"] if e.get("action") == "prove"][-1]
        assert ev["card"] == {"type": "role", "role": "duke"}, p
        line = [x for x in s.log_for(p) if x["type"] == "decision"][-1]
        assert line["action"]["card"] == {"type": "role", "role": "duke"}, p
    # without noting what the effect showed before the shuffle, the others would get null
    monkeypatch.setattr(runtime, "watched_shuffle", lambda s, zi, w: None)
    again = next(x for x in (_proved(bluff, seed) for seed in range(40)) if x is not None)
    ev = [e for e in again.observation(1)["history"] if e.get("action") == "prove"][-1]
    assert ev["card"] is None


def test_a_card_chosen_and_shuffled_unseen_stays_hidden(tmp_path):
    """The converse: a card chosen from a hidden hand and shuffled into the deck without being shown
    is not shown in the others' history."""
    spec = TINY_WINDOW.replace('effect: "move(card, shown)"', 'effect: "move(card, deck); shuffle(deck)"').replace(
        'if: "any(c.v == top(shown).v for c in hand[actor])"', 'if: "size(shown) > 0"')
    g = gamespec.load_text(spec, "bury.yaml")
    s = g.new_game(players=2, seed=1)
    s.apply(s.legal_actions()[0])
    ev = [e for e in s.observation(1)["history"] if e.get("action") == "show"][-1]
    assert ev["card"] is None
    ev = [e for e in s.observation(0)["history"] if e.get("action") == "show"][-1]
    assert ev["card"] is not None       # the chooser knows what they chose


# -- who is asked ---------------------------------------------------------------------------------------
TINY_WINDOW = """
name: Echo
players: [2, 3]
cards:
  card: {zone: deck, faces: [{each: {v: [1, 2, 3, 4]}, count: 2}]}
zones:
  deck:  {kind: pile, visibility: hidden}
  hand:  {kind: set, per_player: true, visibility: owner}
  shown: {kind: pile, visibility: public}
variables:
  echoes: {per_player: true}
on_begin: "shuffle(deck); for p in players { deal(deck, hand[p], 2) }"
phases:
  play:
    turn:
      steps:
        - choose: [show]
        - react: [echo]
          as: who
          then: [{do: "echoes[who] += 1"}]
    end_if: "size(hand[current]) == 0"
actions:
  show:
    params: {card: {from: "hand[actor]"}}
    effect: "move(card, shown)"
  echo:
    if: "any(c.v == top(shown).v for c in hand[actor])"
scoring:
  score: "echoes[p]"
"""


@pytest.mark.parametrize("if_none", [None, "skip"])
def test_a_player_whose_only_choice_is_the_pass_is_asked_unless_the_step_says_skip(if_none):
    text = TINY_WINDOW if if_none is None else TINY_WINDOW.replace("          as: who", "          as: who\n          if_none: skip")
    g = gamespec.load_text(text, "echo.yaml")
    asked = skipped = 0
    for seed in range(30):
        s = g.new_game(players=3, seed=seed)
        s.apply(s.legal_actions()[0])
        for q in (1, 2):
            could = g.evaluate(s, "any(c.v == top(shown).v for c in hand[q])", q=q)
            if window(s) is not None and s.current_player == q:
                assert names(s) == (["echo", "skip"] if could else ["skip"])
                asked += 1
                if not could:
                    s.apply({"action": "skip"})
                    continue
                break
            assert if_none == "skip" and not could, "a player who could respond was not asked"
            skipped += 1
    assert asked > 0
    assert (skipped > 0) == (if_none == "skip")


def test_the_responders_are_checked_when_the_window_opens():
    g = gamespec.load_text(TINY_WINDOW.replace("        - react: [echo]", "        - react: [echo]\n          players: \"[1, 1]\""),
                           "echo.yaml")
    with pytest.raises(gamespec.SpecRuntimeError, match="player 1 is listed twice"):
        s = g.new_game(players=2, seed=1)
        s.apply(s.legal_actions()[0])
    g = gamespec.load_text(TINY_WINDOW.replace("        - react: [echo]", "        - react: [echo]\n          players: \"[5]\""),
                           "echo.yaml")
    with pytest.raises(gamespec.SpecRuntimeError, match="may respond in a reaction window is 5"):
        s = g.new_game(players=2, seed=1)
        s.apply(s.legal_actions()[0])


# -- at once ----------------------------------------------------------------------------------------
def _snap_window(snap, players, want, seed_range=range(300)):
    """(state, seed) at the first decision of a snap window where `want(state)` holds."""
    for seed in seed_range:
        s = snap.new_game(players=players, seed=seed, log=True)
        rnd = random.Random(seed)
        while not s.is_terminal:
            w = window(s)
            if w is not None and w.actions == ["snap"] and not pending_choices(s) and want(s):
                return s
            acts = s.legal_actions()
            s.apply(acts[rnd.randrange(len(acts))])
    pytest.fail("no such window in the seeds tried")


def can_snap(snap, s, q):
    return snap.evaluate(s, "any(c.rank == top(centre).rank for c in hand[q])", q=q)


def test_at_once_the_first_snapper_in_seat_order_takes_the_pile_and_the_other_is_revealed(snap):
    s = _snap_window(snap, 3, lambda s: all(can_snap(snap, s, q) for q in others(s)))
    played = s.cur
    first, second = others(s)
    centre = len(s.observation(0)["zones"]["centre"]["cards"])
    before = s.observation(0)["zones"][f"won[{first}]"]["size"]
    hand2 = s.observation(second)["zones"][f"hand[{second}]"]["cards"]
    assert s.current_player == first
    s.apply(next(a for a in s.legal_actions() if a.name == "snap"))
    assert s.current_player == second
    s.apply(next(a for a in s.legal_actions() if a.name == "snap"))
    obs = s.observation(played)
    assert obs["zones"][f"won[{first}]"]["size"] == before + centre + 1    # the pile and the snapping card
    assert s.observation(second)["zones"][f"hand[{second}]"]["cards"] == hand2   # the late snapper keeps theirs
    reveals = [x for x in s.log_lines() if x["type"] == "reveal"][-2:]
    assert [(x["player"], x["action"]["action"]) for x in reveals] == [(second, "snap"), (first, "snap")]


def others(s):
    return [(s.cur + i) % s.num_players for i in range(1, s.num_players)]


def test_at_once_every_chip_is_carried_out_and_the_outcome_is_the_list(snap):
    for seed in range(200):
        s = snap.new_game(players=3, seed=seed)
        rnd = random.Random(seed)
        while not s.is_terminal:
            w = window(s)
            if w is not None and w.actions == ["chip"] and not pending_choices(s) and \
                    all(snap.evaluate(s, "size(hand[q]) > 0", q=q) for q in others(s)):
                before = list(var(s, "bonus"))
                size = s.observation(0)["zones"]["centre"]["size"]
                a, b = others(s)
                s.apply({"action": "skip"} if False else next(x for x in s.legal_actions() if x.name == "chip"))
                s.apply(next(x for x in s.legal_actions() if x.name == "chip"))
                bonus = var(s, "bonus")
                assert [bonus[q] - before[q] for q in (a, b)] == [1, 1]
                assert s.observation(0)["zones"]["centre"]["size"] == size + 2
                return
            acts = s.legal_actions()
            s.apply(acts[rnd.randrange(len(acts))])
    pytest.fail("no chip window with two hands")


def channels(s, p, tmp_path):
    from test_leaks import channels as every_channel
    return every_channel(s, p, tmp_path, "x")


def test_a_pending_response_at_once_is_invisible_to_the_others_until_the_reveal(snap, tmp_path):
    """Two different secret choices of the first responder (a snap with a card, or the pass) leave
    every byte the others receive unchanged until everyone has chosen; then they differ."""
    s = _snap_window(snap, 3, lambda s: can_snap(snap, s, others(s)[0]))
    first = s.current_player
    a, b = s.clone(), s.clone()
    a.apply(next(x for x in a.legal_actions() if x.name == "snap"))
    b.apply({"action": "skip"})
    assert a.to_json() != b.to_json()
    for q in range(3):
        if q != first:
            assert channels(a, q, tmp_path) == channels(b, q, tmp_path), f"player {q} sees the pending response"
    assert channels(a, first, tmp_path) != channels(b, first, tmp_path)
    a.apply({"action": "skip"})
    b.apply({"action": "skip"})
    for q in range(3):
        assert channels(a, q, tmp_path) != channels(b, q, tmp_path), f"player {q} does not see the reveal"


def test_a_determinization_redraws_the_others_pending_responses(snap):
    s = _snap_window(snap, 3, lambda s: can_snap(snap, s, others(s)[0]))
    first, second = others(s)
    s.apply(next(x for x in s.legal_actions() if x.name == "snap"))
    seen = set()
    for k in range(30):
        d = s.determinize(second, random.Random(k))
        seen.add(pending_choices(d)[0][2])
        assert d.view(second).to_json() == s.view(second).to_json()
    assert seen == {"snap", "skip"}, seen     # redrawn: not always the real snap


# -- saved states, replays, both backends ---------------------------------------------------------------
@pytest.mark.parametrize("path", [BLUFF, SNAP], ids=["bluff", "snap"])
def test_a_state_inside_a_window_round_trips_and_a_tampered_window_is_refused(path):
    g = gamespec.load(path)
    found = 0
    for seed in range(12):
        s = g.new_game(players=3, seed=seed, log=True)
        rnd = random.Random(seed)
        while not s.is_terminal:
            if window(s) is not None or any(k.startswith("#as") for k in s.fenv):
                d = json.loads(json.dumps(s.to_json()))
                assert g.state_from_json(d) == s
                for k in [k for k in d["flow"] if k.startswith(("#took", "#as"))]:
                    bad = json.loads(json.dumps(d))
                    bad["flow"][k] = [9, 9] if isinstance(bad["flow"][k], list) else 9
                    with pytest.raises(gamespec.errors.StateFormatError):
                        g.state_from_json(bad)
                    found += 1
            acts = s.legal_actions()
            s.apply(acts[rnd.randrange(len(acts))])
        assert replay(g, s.log_lines())["ok"]
    assert found > 5


@pytest.mark.parametrize("path", [BLUFF, SNAP], ids=["bluff", "snap"])
def test_both_backends_play_the_same_games(path):
    fast = gamespec.load(path)
    ref = gamespec.Game(fast.spec, backend="closures")
    for players in range(fast.spec.min_players, fast.spec.max_players + 1):
        for seed in range(3):
            a = fast.new_game(players=players, seed=seed, log=True)
            b = ref.new_game(players=players, seed=seed, log=True)
            rnd = random.Random(seed)
            while not a.is_terminal:
                i = rnd.randrange(len(a.legal_actions()))
                a.apply(i)
                b.apply(i)
                assert a.to_json() == b.to_json()
            assert a.log_lines() == b.log_lines() and a.scores == b.scores


# -- the lint of a window whose responders are computed from hidden facts -----------------------------
def test_a_window_reading_hidden_cards_is_reported(tmp_path):
    from gamespec.authoring.lints import lint
    hidden = TINY_WINDOW.replace("        - react: [echo]",
                                 "        - react: [echo]\n          players: \"[q for q in others(actor) if any(c.v == 1 for c in hand[q])]\"")
    public = TINY_WINDOW.replace("        - react: [echo]",
                                 "        - react: [echo]\n          players: \"[q for q in others(actor) if size(hand[q]) > 0]\"")
    found = {}
    for name, text in (("hidden", hidden), ("public", public)):
        path = tmp_path / f"{name}.yaml"
        path.write_text(text)
        found[name] = [f for f in lint(str(path), games=1) if f.check == "window-reads-hidden"]
    assert len(found["hidden"]) == 1 and "the zone 'hand'" in found["hidden"][0].message
    assert found["public"] == []
