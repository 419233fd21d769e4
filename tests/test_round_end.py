"""A round's end as a seat sees it (gamespec/table/round_end.py, issue 41): the block the terminal
prints and the browser's message carries (`round_end`) is one computation, from the seat's views
only: the same text in every world the seat cannot tell apart, at every phase end of whole games; a
spectator's from the public observation, the same in every world any seat cannot tell apart."""
from __future__ import annotations

import os
import random

import pytest

from gamespec.table.round_end import PhaseEnds
from gamespec.table.screen import Screen
from gamespec.table.transcript import Labels
from helpers import ROOT, load

# games whose phases have an on_end that sets per-player values (round scores)
ENDS = ["sushi_go", "klink", "hearts", "six_nimmt"]


def _path(name):
    return os.path.join(ROOT, "games", f"{name}.yaml")


@pytest.mark.parametrize("name", ENDS)
def test_the_round_end_block_is_the_same_in_every_world_the_seat_cannot_tell_apart(name):
    g = load(_path(name))
    ends = PhaseEnds(g.spec)
    labels = None
    players = g.min_players + 1 if g.min_players < g.max_players else g.min_players
    rng = random.Random(5)
    s = g.new_game(players=players, seed=11, log=True)
    labels = Labels(s.rs)
    blocks = 0
    while not s.is_terminal:
        acts = s.legal_actions()
        a = acts[rng.randrange(len(acts))]
        watched = ends.watches(s.phase_name)
        if watched:
            prev = s.clone()
            before = [ends.before(s, p) for p in range(players)]
        s.apply(a)
        if not watched:
            continue
        for p in range(players):
            value = Screen({}, labels, players, p).value
            got = ends.block(before[p], s, p, value)
            if got is None:
                continue
            blocks += 1
            for _ in range(2):          # the worlds of seat p, before and after the decision
                d_before = prev.determinize(p, random.Random(rng.getrandbits(32)))
                d_after = s.determinize(p, random.Random(rng.getrandbits(32)))
                assert ends.block(ends.before(d_before, p), d_after, p, value) == got
    assert blocks >= players          # at least one end, seen by every seat


def test_the_block_says_what_was_scored_how_and_who_did_best_in_the_players_words():
    g = load(_path("sushi_go"))
    ends = PhaseEnds(g.spec, {"variables": {"round_pts": {"name": "Last round"}}})
    s = g.new_game(players=3, seed=1, log=True)
    found = None
    while found is None and not s.is_terminal:
        before = ends.before(s, 1)
        s.apply(s.legal_actions()[0])
        found = ends.block(before, s, 1)
    assert found is not None
    text = [t for t, _ in found]
    kinds = [k for _, k in found]
    assert text[0] == "── the round phase ends ──" and kinds[0] == "title"
    assert text[1].startswith("  Last round (round_pts): player 0 ") and ", you " in text[1]
    assert "seat" not in " ".join(text)          # during play: "player N", "you"
    assert "how-title" in kinds and "how" in kinds and kinds[-1] == "best"
    pts = s.view(1).observation["variables"]["round_pts"]
    assert text[-1].endswith(f"({max(pts)})")


def test_the_browser_message_carries_the_terminal_block_until_the_next_round_end():
    """The web table keeps each person's last block (from that seat's views) in its message, and the
    spectators' (from the public observation); a bot's seat has none."""
    from gamespec.web.tables import SpecFile, Table, _look
    path = _path("sushi_go")
    t = Table("1", SpecFile(path), 3, {}, 4, ["person", "person", "random"], bot_factory=lambda k, p, seed: None)
    ends = PhaseEnds(t.game.spec, t.public()["presentation"])
    labels = Labels(t.state.rs)
    rng = random.Random(2)
    seen = 0
    while not t.state.is_terminal:
        s = t.state
        p = s.current_player
        before = [ends.before(s, q) for q in range(2)]
        public = ends.before(s, None, _look)
        watched = ends.watches(s.phase_name)
        t.act(p, {"at": s.decisions, "index": rng.randrange(len(s.view(p).legal_actions))}) if p < 2 else \
            t._play(rng.randrange(len(s.legal_actions())))
        for q in range(2):
            got = ends.block(before[q], t.state, q, Screen({}, labels, 3, q).value) if watched else None
            msg = t.message(q)["round_end"]
            if got is not None:
                seen += 1
                assert msg == {"at": t.state.decisions, "lines": [{"text": x, "kind": k} for x, k in got]}
            else:
                assert msg is None or msg["at"] < t.state.decisions
        got = ends.block(public, t.state, None, Screen({}, labels, 3, None).value, _look) if watched else None
        if got is not None:
            seen += 1
            assert t.message(None)["round_end"] == {"at": t.state.decisions,
                                                    "lines": [{"text": x, "kind": k} for x, k in got]}
        assert t.message(2)["round_end"] is None            # a bot's seat
    assert seen == 9                    # three rounds, two people and the spectators


@pytest.mark.parametrize("name", ["klink", "sushi_go"])
def test_the_spectators_block_is_the_same_in_every_world_any_seat_cannot_tell_apart(name):
    from gamespec.web.tables import _look
    g = load(_path(name))
    ends = PhaseEnds(g.spec)
    players = g.min_players + 1
    rng = random.Random(3)
    s = g.new_game(players=players, seed=12, log=True)
    value = Screen({}, Labels(s.rs), players, None).value
    blocks = 0
    while not s.is_terminal:
        acts = s.legal_actions()
        watched = ends.watches(s.phase_name)
        prev, before = (s.clone(), ends.before(s, None, _look)) if watched else (None, None)
        s.apply(acts[rng.randrange(len(acts))])
        got = ends.block(before, s, None, value, _look) if watched else None
        if got is None:
            continue
        blocks += 1
        assert not any("you" in x.split() for x, _ in got)
        for q in range(players):
            d_before = prev.determinize(q, random.Random(rng.getrandbits(32)))
            d_after = s.determinize(q, random.Random(rng.getrandbits(32)))
            assert ends.block(ends.before(d_before, None, _look), d_after, None, value, _look) == got
    assert blocks >= 1


def test_the_block_shows_a_value_by_the_specs_word_for_it():
    """presentation words reach the block too: the value a round end set, by its word."""
    g = load(_path("sushi_go"))
    s = g.new_game(players=3, seed=1, log=True)
    found = None
    probe = PhaseEnds(g.spec)
    while found is None and not s.is_terminal:
        before = probe.before(s, 1)
        s.apply(s.legal_actions()[0])
        found = probe.block(before, s, 1)
    seen = s.view(1).observation["variables"]["round_pts"]
    words = {str(seen[0]): "a word for it"}
    s = g.new_game(players=3, seed=1, log=True)
    ends = PhaseEnds(g.spec, {"variables": {"round_pts": {"name": "Last round", "words": words}}})
    found = None
    while found is None and not s.is_terminal:
        before = ends.before(s, 1)
        s.apply(s.legal_actions()[0])
        found = ends.block(before, s, 1)
    assert found[1][0].startswith("  Last round (round_pts): player 0 a word for it, "), found[1]
