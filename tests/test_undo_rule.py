"""The undo rule (gamespec/table/undo.py; docs/web.md, Undo) against what a decision makes known
without showing a card: a question answered in a public variable (`specs/asks.yaml`). Once, a seat
could ask "do you hold a r?" for each rank and take each question back, learning the other hand at
decision 0; now the question is refused (`undo-revealed`) at the terminal and in the browser,
by an answer decided by what every seat knows only."""
from __future__ import annotations

import io
import os
import random

import pytest

from helpers import ROOT, find, load

ASKS = os.path.join(ROOT, "tests", "specs", "asks.yaml")


def _terminal(seed=1):
    from gamespec.table.play import Output, Table
    g = load(ASKS)
    out = io.StringIO()
    t = Table(g, ASKS, 2, 0, seed, g.check_options({}), ["random"] * 2, out=Output(out, color=False))
    return t, out


def _index(state, name, **params):
    return state.legal_actions().index(find(state, name, **params))


def test_a_question_taken_back_no_longer_tells_the_other_hand():
    """The attack: ask about each rank, take each question back. Before the rule counted what a
    decision makes known through a variable, all six undos were allowed and the answers were the
    other hand's ranks exactly, the game still at decision 0; now the first is refused, the question
    is asked once, and the table is as the refusal found it."""
    from gamespec.table.undo import REVEALED, UndoRefused, take_back
    t, _ = _terminal()
    answers = {}
    for r in range(1, 7):
        if not any(a.name == "ask" for a in t.state.legal_actions()):
            break                   # the question step is over: no second question this turn
        t.apply(_index(t.state, "ask", r=r))
        answers[r] = t.state.observation(0)["variables"]["holds"]
        with pytest.raises(UndoRefused) as e:
            take_back(t, 0)
        assert e.value.kind == "undo-revealed" and str(e.value) == REVEALED
        assert t.state.decisions == 1 and len(t.actions) == 1 and t.notes == []
    assert len(answers) == 1, answers


def test_asking_nothing_is_taken_back():
    """The rule does not refuse a decision that tells nothing: "ask nothing" is taken back (the
    public worlds agree), and the question is asked again."""
    from gamespec.table.undo import take_back
    t, _ = _terminal()
    skip = next(i for i, a in enumerate(t.state.legal_actions()) if a.name != "ask")
    t.apply(skip)
    note = take_back(t, 0)
    assert note["decision"] == 1 and t.state.decisions == 0
    assert any(a.name == "ask" for a in t.state.legal_actions())


def test_the_terminal_refuses_the_question_with_its_reason():
    """`u` at the terminal (Table.take_back, the rule of every table) says why and keeps the game."""
    from gamespec.table.undo import REVEALED
    t, out = _terminal(seed=4)
    t.apply(_index(t.state, "ask", r=3))
    assert t.take_back() is False
    assert f"Cannot undo: {REVEALED}." in out.getvalue()
    assert t.state.decisions == 1


def test_the_browser_refuses_the_question():
    """The same rule behind `POST /api/seat/TOKEN/undo`: 409 `undo-revealed`, the game untouched;
    a decision that tells nothing is still taken back there."""
    pytest.importorskip("starlette", reason="the web extra is not installed: pip install '.[web]'")
    pytest.importorskip("httpx", reason="the web extra is not installed: pip install '.[web]'")
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
    from gamespec.web import create_app
    app = create_app([ASKS], bot_delay=0, watch=0, sweep=0, allow_hosts=("testserver",))
    with TestClient(app, base_url="http://127.0.0.1") as c:
        r = c.post("/api/tables", json={"spec": "0", "players": 2, "seed": 9, "undo": True,
                                        "seats": ["person", "person"]})
        assert r.status_code == 200, r.text
        d = r.json()
        t = c.app.state.registry.tables[d["table"]]
        toks = [x["link"].rsplit("/", 1)[1] for x in d["seats"]]
        p = t.state.current_player
        r = c.post(f"/api/seat/{toks[p]}/act", json={"at": 0, "action": {"action": "ask", "r": 2}})
        assert r.status_code == 200, r.text
        r = c.post(f"/api/seat/{toks[p]}/undo", json={"at": 1})
        assert r.status_code == 409 and r.json()["error"] == "undo-revealed", r.text
        assert "made something known" in r.json()["message"]
        assert t.state.decisions == 1 and t.notes == []
        # the discard shows a card (undo-revealed); the other seat then asks nothing: taken back
        r = c.post(f"/api/seat/{toks[p]}/act", json={"at": 1, "index": 0})
        assert r.status_code == 200, r.text
        q = t.state.current_player
        assert q != p
        skip = next(i for i, a in enumerate(t.state.view(q).legal_actions) if a.name != "ask")
        r = c.post(f"/api/seat/{toks[q]}/act", json={"at": 2, "index": skip})
        assert r.status_code == 200, r.text
        r = c.post(f"/api/seat/{toks[q]}/undo", json={"at": 3})
        assert r.status_code == 200, r.text
        assert t.state.decisions == 2 and len(t.notes) == 1


def test_the_answer_does_not_depend_on_the_askers_hand():
    """A rule that compared only the asker's worlds would let a question it knows the answer to be
    taken back (it holds every card of the rank: the answer is "no"), and the other seat would learn
    that from the answer. The rule's worlds are drawn from what every seat knows, so the answer is
    the same in every world the other seat cannot tell apart: refused whatever the asker holds."""
    from helpers import arrange, cards_where, zone
    from gamespec.table.undo import informative
    g = load(ASKS)
    s = g.new_game(players=2, seed=3, log=True)
    assert s.current_player == 0 and not any(s.kn)     # nobody remembers a card yet: arranging is safe
    ones = cards_where(s, rank=1)
    others = [c for c in zone(s, "hand", 0) + zone(s, "hand", 1) if c not in ones]
    arrange(s, {("hand", 0): ones + others[:1], ("hand", 1): others[1:6]}, rest="deck")
    assert informative(s, find(s, "ask", r=1))
    for k in range(6):          # worlds seat 1 cannot tell apart: seat 0's hand and the deck drawn again
        d = s.determinize(1, random.Random(k))
        assert all(informative(d, find(d, "ask", r=r)) for r in range(1, 7))


def test_the_answer_is_the_same_in_every_world_a_seat_cannot_tell_apart():
    """The leak property of the whole rule on a few games of `asks` (docs/web.md, Undo): after each
    decision, its undo's answer (with the rule's own number of worlds) in worlds each seat cannot tell
    from this one, the decision played there as that seat saw it, is the answer here."""
    from gamespec.table.undo import refusal
    from web_live import answer_in_worlds
    g = load(ASKS)
    rng = random.Random(7)
    kinds = set()
    for seed in (1, 2):
        s = g.new_game(players=2, seed=seed, log=True)
        while not s.is_terminal:
            p = s.current_player
            before = s.clone()
            legal = s.view(p).legal_actions
            action = legal[rng.randrange(len(legal))]
            s.apply(action.index)
            kinds.add(refusal(before, s, before.legal_actions()[action.index]))
            answer_in_worlds(before, s, before.legal_actions()[action.index], action.to_json(label=False), p, 2, rng)
    assert {None, "revealed", "informative"} <= kinds, kinds


def test_every_question_about_a_rank_the_asker_cannot_know_is_refused():
    """How sure the sampled rule is (docs/web.md, Undo): the first question of 30 games, every rank,
    where the asker does not hold all four: refused each time (the answer is "yes" in at least one
    of the worlds drawn and "no" in another). The answer is deterministic: asked twice, the same."""
    from gamespec.table.undo import informative
    g = load(ASKS)
    asked = 0
    for seed in range(30):
        s = g.new_game(players=2, seed=seed, log=True)
        mine = [c["rank"] for c in s.observation(0)["zones"]["hand[0]"]["cards"]]
        for r in range(1, 7):
            if mine.count(r) == 4:
                continue
            a = find(s, "ask", r=r)
            assert informative(s, a), (seed, r)
            asked += 1
        assert informative(s, a) == informative(s.clone(), a)
    assert asked >= 170
