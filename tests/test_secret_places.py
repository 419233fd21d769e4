"""A card chosen at a place of a pile that another player was not shown (issue 36): nothing of the
place reaches that player. A pile's cards are listed at their places, so what a player remembers of
a pile would show where a card went in (a bomb buried just above a chosen card: the cards remembered
above it move up one) or came out; such a player forgets what they remembered of that pile
(docs/hidden-information.md).

- `tests/specs/reinsert.yaml`: a player peeks at the top of the deck, another buries a card above a
  card of the deck they choose: every place gives the peeker the same bytes;
- over every spec in games/ and tests/specs/: at random states, the decisions the mover could take
  that differ only in cards another player is not shown (and leave the table looking the same to that
  player) give that player the same bytes;
- Bali's oracle: a face-up card on the altar shows on which side of it a face-down card was kept
  (as at a table); the others forget the altar all the same;
- the native engine forgets the same: what each player knows at the end of a C rollout is the
  Python playout's.
"""
from __future__ import annotations

import json
import os
import random

import pytest

import gamespec
from helpers import config_id, configs, skip_without_cc
from test_leaks import SPECS

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REINSERT = os.path.join(ROOT, "tests", "specs", "reinsert.yaml")
CONFIGS = configs(SPECS)


needs_cc = skip_without_cc()


def bytes_for(s, p):
    """What player p receives: observation, log and view."""
    return (json.dumps(s.observation(p)), json.dumps(s.log_for(p)), json.dumps(s.view(p).to_json()))


def play(s, name):
    s.apply(next(a for a in s.legal_actions() if a.name == name))


def deck_faces(s, p):
    return [c and c["value"] for c in s.observation(p)["zones"]["deck"]["cards"]]


def test_a_card_buried_at_a_secret_place_shows_the_peeker_nothing_of_the_place():
    s = gamespec.load(REINSERT).new_game(players=2, seed=3, log=True)
    play(s, "draw")
    play(s, "peek")         # player 1 remembers the top three cards of the deck
    assert deck_faces(s, 1)[-3:] == [8, 7, 3]
    outcomes = set()
    buried = 0
    for a in s.legal_actions():
        if a.name != "bury":
            continue
        t = s.clone()
        t.apply(a)
        outcomes.add(bytes_for(t, 1))
        buried += 1
        assert deck_faces(t, 1) == [None] * 8     # the peeker forgot the deck
    assert buried == 7
    assert len(outcomes) == 1, f"player 1 tells {len(outcomes)} places of the bomb apart"


def test_the_chooser_keeps_what_they_knew_of_the_pile():
    """The player who chose the place knows it: their memory of the deck stays, the cards above the
    bomb one place higher."""
    s = gamespec.load(REINSERT).new_game(players=2, seed=3)
    play(s, "peek")         # player 0 remembers the top three cards
    play(s, "draw")
    assert deck_faces(s, 0) == [None] * 5 + [7, 3]      # player 1 drew the top card
    s.apply(next(a for a in s.legal_actions() if a.name == "bury" and a.to_json()["under"] == 4))
    assert deck_faces(s, 0) == [None] * 5 + [0, 7, 3]   # the bomb (0) above the fifth card


def test_a_look_at_a_chosen_card_moves_nothing_and_keeps_what_others_knew():
    """An action whose effect moves no card shows no place: the others forget nothing."""
    s = gamespec.load(REINSERT).new_game(players=2, seed=3)
    play(s, "draw")
    play(s, "peek")
    before = deck_faces(s, 1)
    assert not s.rs.actions["spy"].hides_place and s.rs.actions["bury"].hides_place
    for a in [a for a in s.legal_actions() if a.name == "spy"]:
        t = s.clone()
        t.apply(a)
        assert deck_faces(t, 1) == before


BALI = os.path.join(ROOT, "games", "bali.yaml")


def _altar_choices():
    """States of Bali's oracle variant (2 players) where the mover keeps one of the top cards of the
    altar: (state, the other player, the face-down choices in altar order (listing positions), the
    altar as the other sees it, the altar cards the other remembers face down)."""
    game = gamespec.load(BALI)
    for seed in range(400):
        s = game.new_game(players=2, seed=seed, options={"oracle": True}, log=True)
        rnd = random.Random(seed)
        while not s.is_terminal:
            acts = s.legal_actions()
            keeps = [i for i, a in enumerate(acts) if a.name == "oracle_keep"]
            if keeps:
                p = 1 - s.current_player
                altar = s.observation(p)["zones"]["altar"]["cards"]
                pile = s.z[s.rs.zone_label.index("altar")]
                at = {i: pile.index(acts[i][2][0]) for i in keeps}     # [2]: the chosen card ids
                down = sorted((i for i in keeps if altar[at[i]] is None), key=at.get)
                known = [c for c, face in zip(pile, altar) if face is not None and not s._sight(c) >> p & 1]
                yield s, p, [(i, at[i]) for i in down], altar, known
            s.apply(acts[rnd.randrange(len(acts))])


def test_a_face_up_card_in_a_pile_shows_between_which_cards_one_was_taken():
    """A real table shows it, and so does the view: a face-down card taken from a pile that holds a
    face-up one leaves the face-up card one place lower or not, so the other player sees on which side
    of it the card lay. Their history still shows no card (they were not shown it)."""
    found = next(((s, p, down) for s, p, down, altar, _ in _altar_choices() if len(down) >= 2 and
                  any(altar[k] is not None for k in range(down[0][1], down[-1][1]))), None)
    assert found, "no oracle choice of two face-down altar cards around a face-up one in 400 games"
    s, p, down = found
    after = []
    for i, _ in (down[0], down[-1]):
        t = s.clone()
        t.apply_index(i)
        after.append(t)
    assert _decision_as_seen(s, after[0], p) == _decision_as_seen(s, after[1], p), "the histories differ"
    assert _sight(after[0], p) != _sight(after[1], p), "the face-up card lies at the same place"
    assert after[0].observation(p)["history"][-1]["card"] is None


def test_a_face_down_card_taken_from_a_pile_makes_the_others_forget_it():
    """...and they forget what they knew of the pile (docs/hidden-information.md, Limits): less than a
    real player could keep, never more."""
    found = next(((s, p, down, known) for s, p, down, _, known in _altar_choices() if down and known), None)
    assert found, "no oracle choice of a face-down altar card another player remembers cards beside, in 400 games"
    s, p, down, known = found
    for i, _ in down:
        t = s.clone()
        t.apply_index(i)
        altar = t.z[t.rs.zone_label.index("altar")]
        faces = t.observation(p)["zones"]["altar"]["cards"]
        remembered = [c for c, face in zip(altar, faces) if face is not None and not t._sight(c) >> p & 1]
        assert remembered == [], f"player {p} still remembers altar cards {remembered} (before: {known})"


MIN_GROUPS = 4          # groups of at least two different decisions compared, per configuration
QUIET_GAMES = 6         # games without any card hidden from another player: nothing to compare
MAX_GAMES = 200


@pytest.mark.parametrize("cfg", CONFIGS, ids=[config_id(c) for c in CONFIGS])
def test_choices_a_player_is_not_shown_leave_their_bytes_unchanged(cfg):
    """Decisions of the mover that a player p sees alike once their effect has run give p the same
    bytes: where the cards were taken from or put in does not show, nor what was chosen in secret.
    Seen alike: the same events in p's history (the same action and non-card parameters, every chosen
    card null: cards p was not shown; or, for a simultaneous step's stored choice, only that the mover
    chose) and the same sight of the table (what p sees now, memory aside: a face-up card left in a
    pile shows between which cards a face-down one was taken, as it would at a real table). What may
    differ is then only what p remembers, and it must not.

    Games are played until MIN_GROUPS groups of two or more such decisions were compared; a
    configuration where QUIET_GAMES games met no card hidden from another player is skipped, saying so."""
    path, players, options = cfg
    game = gamespec.load(path)
    rnd = random.Random(36)
    groups = hidden = games = 0
    for games in range(1, MAX_GAMES + 1):
        for s in _states(game, players, options, games):
            acts = [i for i, a in enumerate(s.legal_actions()) if a[4] is not None and a[4].card_params]
            acts = rnd.sample(acts, min(len(acts), 8))
            after = []
            for i in acts:
                t = s.clone()
                t.apply_index(i)
                after.append(t)
            for p in range(players):
                if p == s.current_player:
                    continue
                seen = {}
                for i, t in zip(acts, after):
                    ev = _decision_as_seen(s, t, p)
                    if ev is not None:
                        hidden += 1
                        seen.setdefault((ev, _sight(t, p)), {}).setdefault(bytes_for(t, p), []).append(i)
                for (ev, _), outcomes in seen.items():
                    assert len(outcomes) == 1, \
                        f"player {p} tells apart choices they were not shown ({ev}): " + \
                        "; ".join(str([s.legal_actions()[i] for i in ix]) for ix in outcomes.values())
                    groups += sum(len(ix) for ix in outcomes.values()) > 1
        if groups >= MIN_GROUPS or (hidden == 0 and games >= QUIET_GAMES):
            break
    if hidden == 0:
        pytest.skip(f"in {games} random games every card chosen was shown to every other player")
    assert groups >= MIN_GROUPS, f"only {groups} groups compared in {games} games ({hidden} hidden choices)"


def _states(game, players, options, seed):
    """A few states of one random game (with a log) where the mover has to choose."""
    rnd = random.Random(f"{seed}:36")
    s = game.new_game(players=players, seed=36_000 + seed, options=options, log=True)
    taken = 0
    while not s.is_terminal:
        if taken < 8 and rnd.random() < 0.1:
            taken += 1
            yield s.clone()
        acts = s.legal_actions()
        s.apply(acts[rnd.randrange(len(acts))])


def _sight(t, p):
    """What p sees of state t now, memory aside: p's observation with p's memory of cards cleared,
    without the history (compared as events)."""
    u = t.clone()
    forget = ~(1 << p)
    for c in range(len(u.kn)):
        u.kn[c] &= forget
    o = u.observation(p)
    o.pop("history", None)
    return json.dumps(o, sort_keys=True)


def _decision_as_seen(s, t, p):
    """The decision taken from s to t as p's history shows it, with the events its effect recorded (a
    simultaneous step's reveals, looks), if p was shown none of their cards; else None. Another's
    stored simultaneous choice shows p only that they chose ({"event": "chose"}, no action)."""
    before = len(s.observation(p)["history"])
    new = t.observation(p)["history"][before:]      # the decision's event is recorded above s's history
    assert new and new[0].get("player") == s.current_player, f"no decision of the mover recorded: {new}"
    for ev in new:
        params = [v for k, v in ev.items() if k not in ("player", "action", "event", "secret")]
        if any(isinstance(v, dict) or isinstance(v, list) and any(isinstance(x, dict) for x in v) for v in params):
            return None
    return json.dumps(new, sort_keys=True)


@needs_cc
@pytest.mark.parametrize("players", [2, 3])
def test_the_native_engine_forgets_the_same_places(players):
    """Rollouts from early states of Reinsert (peeks and burials to come) in C and in Python: the
    same knowledge at the end, card by card (the struct's knowledge section, State.kn)."""
    from gamespec.compile.cbuild import library
    from gamespec.interpreter.native_engine import ST_OK
    game = gamespec.load(REINSERT, backend="native")
    for seed in range(12):
        s = game.new_game(players=players, seed=seed)
        r = random.Random(seed)
        for _ in range(2):
            s.apply_index(r.randrange(s.legal_action_count()))
        lib = library(s.rs)
        assert lib.load(s)
        assert lib.rollout(random.Random(seed).getstate()[1])[0] == ST_OK
        flat = lib.dump()
        py = s.clone()
        py.log = None
        py.playout(random.Random(seed), in_place=True)
        i = 5 + 13                       # the header (native_engine.flatten), then the zones
        for _ in range(s.rs.nzones):
            i += 1 + flat[i]
        assert flat[i:i + s.rs.ncards] == list(py.kn), f"seed {seed}: C and Python know different cards"
