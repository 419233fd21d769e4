"""Simultaneous choices (docs/language.md, "Simultaneous choices"): the rules of the two specs that
use them (tests/specs/sixes.yaml, tests/specs/sealed.yaml), the reveal and its order, the leak
property of pending choices, determinization, replay and the JSON round trip, both backends, bots,
and the run-time errors of the construct."""
from __future__ import annotations

import json
import os
import random

import pytest

import gamespec
from gamespec.interpreter.runtime import pending_choices
from gamespec.errors import SpecRuntimeError
from gamespec.interpreter.replay import replay

HERE = os.path.dirname(os.path.abspath(__file__))
SIXES = os.path.join(HERE, "specs", "sixes.yaml")
SEALED = os.path.join(HERE, "specs", "sealed.yaml")


@pytest.fixture(scope="module")
def sealed():
    return gamespec.load(SEALED)


@pytest.fixture(scope="module")
def sixes():
    return gamespec.load(SIXES)


def bid(s, amount):
    s.apply({"action": "bid", "amount": amount})


def coins(s):
    return s.observation(0)["variables"]["coins"]


def won(s, p):
    return [c["worth"] for c in s.observation(p)["zones"][f"won[{p}]"]["cards"]]


# -- the sealed-bid game's rules -------------------------------------------------------------
def test_the_highest_bid_takes_the_prize_and_only_the_winner_pays(sealed):
    s = sealed.new_game(players=3, seed=1, log=True)
    prize = s.observation(0)["zones"]["block"]["cards"][0]["worth"]
    bid(s, 3)
    bid(s, 5)
    assert coins(s) == [12, 12, 12], "a stored bid is not paid before the reveal"
    assert s.observation(0)["zones"]["block"]["size"] == 1, "nothing moves before the reveal"
    bid(s, 4)
    assert coins(s) == [12, 7, 12]
    assert won(s, 1) == [prize] and won(s, 0) == [] and won(s, 2) == []
    # the reveal, from the highest bid down (order: -amount)
    reveals = [(x["player"], x["action"]["amount"]) for x in s.log_lines() if x["type"] == "reveal"]
    assert reveals == [(1, 5), (2, 4), (0, 3)]


def test_a_tie_goes_to_the_earlier_chooser_and_zero_never_wins(sealed):
    s = sealed.new_game(players=3, seed=2)
    bid(s, 0)
    bid(s, 6)
    bid(s, 6)
    assert coins(s) == [12, 6, 12] and len(won(s, 1)) == 1 and won(s, 2) == []
    bid(s, 0)
    bid(s, 0)
    bid(s, 0)
    obs = s.observation(0)
    assert obs["zones"]["lost"]["size"] == 1 and coins(s) == [12, 6, 12]


def test_a_bid_is_at_most_the_coins_held(sealed):
    s = sealed.new_game(players=2, seed=3)
    assert [a.to_json(label=False)["amount"] for a in s.legal_actions()] == list(range(13))
    bid(s, 12)
    bid(s, 1)
    assert [a.to_json(label=False)["amount"] for a in s.legal_actions()] == list(range(1))


# -- the 6-nimmt-like game's rules, against a hand-written resolution ---------------------------------
def heads(n):
    return 7 if n == 55 else 5 if n % 11 == 0 else 3 if n % 10 == 0 else 2 if n % 5 == 0 else 1


def resolve_by_hand(rows, picks, penalty):
    """rows: 4 lists of numbers; picks: {player: number}. The rules of sixes.yaml, written out."""
    rows = [list(r) for r in rows]
    penalty = list(penalty)
    for p, n in sorted(picks.items(), key=lambda x: x[1]):
        low = [r[-1] if r[-1] < n else 0 for r in rows]
        if max(low) == 0:
            hs = [sum(heads(x) for x in r) for r in rows]
            i = hs.index(min(hs))
            penalty[p] += hs[i]
            rows[i] = [n]
        else:
            i = low.index(max(low))
            if len(rows[i]) >= 4:
                penalty[p] += sum(heads(x) for x in rows[i])
                rows[i] = [n]
            else:
                rows[i].append(n)
    return rows, penalty


def table(s):
    obs = s.observation(0)
    return ([[c["number"] for c in obs["zones"][f"row[{i}]"]["cards"]] for i in range(4)],
            obs["variables"]["penalty"])


@pytest.mark.parametrize("players", [2, 3, 5])
def test_sixes_resolves_the_picks_in_ascending_order_as_the_rules_say(sixes, players):
    rounds = 0
    for seed in range(4):
        s = sixes.new_game(players=players, seed=seed, log=True)
        rnd = random.Random(seed)
        while not s.is_terminal:
            rows, penalty = table(s)
            picks = {}
            for _ in range(players):
                acts = s.legal_actions()
                a = acts[rnd.randrange(len(acts))]
                picks[s.current_player] = s.rs.faces[s.rs.face_of[a.bind["card"]]]["number"]
                n0 = len(s.log_lines())
                s.apply(a)
            want_rows, want_penalty = resolve_by_hand(rows, picks, penalty)
            assert table(s) == (want_rows, want_penalty)
            shown = [(x["player"], x["action"]["card"]["number"]) for x in s.log_for(0)[n0:]
                     if x["type"] == "reveal"]
            assert shown == sorted(picks.items(), key=lambda x: x[1]), "revealed in ascending order"
            rounds += 1
        assert s.scores == s.observation(0)["variables"]["penalty"]
        assert s.winners == [p for p in range(players) if s.scores[p] == min(s.scores)]
    assert rounds == 4 * 6


# -- the leak property of pending choices ---------------------------------------------------------
def channels(s, p, tmp_path):
    from test_leaks import channels as every_channel
    return every_channel(s, p, tmp_path, "x")


@pytest.mark.parametrize("path,players", [(SEALED, 3), (SIXES, 4)], ids=["sealed", "sixes"])
def test_a_pending_choice_is_invisible_to_the_others_until_the_reveal(path, players, tmp_path):
    """Any two choices of player 0 leave every byte the others receive unchanged while the round is
    under way (card, face and non-card parameters alike); the chooser's own channels change, and
    after the reveal everyone's do (so the test can fail)."""
    game = gamespec.load(path)
    s = game.new_game(players=players, seed=5, log=True)
    s.apply(s.legal_actions()[0])       # a previous round, so that the history is not empty
    while s.current_player != 0 or pending_choices(s):
        s.apply(s.legal_actions()[-1])
    first = s.legal_actions()
    a, b = s.clone(), s.clone()
    a.apply(a.legal_actions()[0])
    b.apply(b.legal_actions()[len(first) - 1])
    assert a.to_json() != b.to_json()
    for q in range(1, players):
        assert channels(a, q, tmp_path) == channels(b, q, tmp_path), f"player {q} sees player 0's pending choice"
    assert channels(a, 0, tmp_path) != channels(b, 0, tmp_path)
    # the legal actions of the next chooser do not depend on the pending choice
    assert [x.to_json() for x in a.legal_actions()] == [x.to_json() for x in b.legal_actions()]
    # everyone else chooses the same; then the reveal shows the choices to everyone
    while pending_choices(a):
        i = a.legal_actions().index(a.legal_actions()[0])
        a.apply(i)
        b.apply(i)
    for q in range(players):
        assert channels(a, q, tmp_path) != channels(b, q, tmp_path), f"player {q} does not see the reveal"


def test_the_history_and_log_show_others_only_that_they_chose(sealed):
    s = sealed.new_game(players=3, seed=7, log=True)
    bid(s, 9)
    assert s.observation(1)["history"] == [{"player": 0, "event": "chose"}]
    assert s.observation(0)["history"] == [{"player": 0, "action": "bid", "secret": True, "amount": 9}]
    assert s.log_for(2)[-1] == {"type": "decision", "n": 1, "player": 0, "secret": True}
    for p in (1, 2):
        text = json.dumps([s.observation(p), s.log_for(p), s.view(p).observation])
        assert '"amount": 9' not in text and '"amount"' not in text
    bid(s, 2)
    bid(s, 2)
    assert {"player": 0, "action": "bid", "event": "reveal", "amount": 9} in s.observation(2)["history"]


def test_a_determinization_redraws_the_others_pending_choices(sealed):
    """The ISMCTS bot searches determinizations: one that kept player 0's real bid would let player 1
    read it. Player 1's determinizations draw player 0's bid among their legal bids; player 0's
    keep it."""
    s = sealed.new_game(players=3, seed=8, log=True)
    bid(s, 7)
    rng = random.Random(1)
    drawn = set()
    for _ in range(60):
        d = s.determinize(1, rng)
        (ev,) = pending_choices(d)
        drawn.add(ev[3][0])
        assert json.dumps(d.observation(1)) == json.dumps(s.observation(1))
        line = [x for x in d.log_lines() if x["type"] == "decision"][-1]
        assert line["action"]["amount"] == ev[3][0], "the log holds the drawn choice, not the real one"
    assert len(drawn) > 5 and drawn <= set(range(13))
    assert all(pending_choices(s.determinize(0, rng))[0][3] == (7,) for _ in range(10))
    # a determinization plays on through the reveal
    d = s.determinize(1, rng)
    while not d.is_terminal:
        d.apply(d.legal_actions()[0])


def test_a_determinization_redraws_a_pending_card_among_the_choosers_cards(sixes):
    s = sixes.new_game(players=3, seed=4, log=True)
    s.apply(s.legal_actions()[0])
    real = pending_choices(s)[0]
    rng = random.Random(2)
    faces = set()
    for _ in range(40):
        d = s.determinize(2, rng)
        ev = pending_choices(d)[0]
        (i, (c,), _), = ev[4]
        assert d.loc[c] == d.rs.zone_label.index("hand[0]"), "drawn among player 0's cards"
        faces.add(d.rs.face_of[c])
    assert len(faces) > 1 and real[1] == 0


# -- replay, saved states, both backends ---------------------------------------------------------
@pytest.mark.parametrize("path,players", [(SEALED, 4), (SIXES, 3)], ids=["sealed", "sixes"])
def test_the_full_log_replays_and_the_state_round_trips_through_json(path, players):
    game = gamespec.load(path)
    s = game.new_game(players=players, seed=11, log=True)
    rnd = random.Random(3)
    mid = None
    while not s.is_terminal:
        if mid is None and pending_choices(s) and s.decisions > players:
            mid = s.clone()
        acts = s.legal_actions()
        s.apply(acts[rnd.randrange(len(acts))])
    lines = json.loads(json.dumps(s.log_lines()))
    r = replay(game, lines)
    assert r["ok"] and r["decisions"] == s.decisions and r["scores"] == s.scores
    for st in (mid, s):
        text = json.dumps(st.to_json())
        assert game.state_from_json(json.loads(text)) == st
    # the saved state of a round under way goes on exactly as the original
    again = game.state_from_json(json.loads(json.dumps(mid.to_json())))
    while not mid.is_terminal:
        i = rnd.randrange(len(mid.legal_actions()))
        mid.apply(i)
        again.apply(i)
    assert again == mid


def test_a_changed_secret_choice_in_a_log_or_saved_state_is_caught(sealed):
    s = sealed.new_game(players=3, seed=12, log=True)
    for amount in (4, 2, 3, 1, 1):
        bid(s, amount)
    lines = json.loads(json.dumps(s.log_lines()))
    first = next(x for x in lines if x["type"] == "decision")
    assert first["secret"] is True and first["action"]["amount"] == 4
    first["action"]["amount"] = 1
    r = replay(sealed, lines)
    # the re-played game reveals the changed bid where the log reveals the real one
    assert not r["ok"] and "the reveal of player" in r["error"] and '"amount": 4' in r["error"], r
    d = s.to_json()
    d["history"][0][3] = [1]
    with pytest.raises(gamespec.errors.StateFormatError):
        sealed.state_from_json(json.loads(json.dumps(d)))


@pytest.mark.parametrize("path", [SEALED, SIXES], ids=["sealed", "sixes"])
def test_both_backends_play_the_same_games(path):
    fast = gamespec.load(path)
    ref = gamespec.Game(fast.spec, backend="closures")
    for players in range(fast.spec.min_players, fast.spec.max_players + 1):
        a = fast.new_game(players=players, seed=players, log=True)
        b = ref.new_game(players=players, seed=players, log=True)
        rnd = random.Random(players)
        while not a.is_terminal:
            i = rnd.randrange(len(a.legal_actions()))
            a.apply(i)
            b.apply(i)
        assert a.log_lines() == b.log_lines() and a.scores == b.scores
        assert any(x["type"] == "reveal" for x in a.log_lines())


# -- bots ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["random", "greedy", "ismcts:30"])
def test_bots_play_simultaneous_games_to_the_end(kind, sealed, sixes):
    from gamespec.bots import make_bots, play_turn
    for game, players in ((sealed, 3), (sixes, 2)):
        s = game.new_game(players=players, seed=21)
        bots = make_bots([kind] * players, seed=21)
        while not s.is_terminal:
            play_turn(s, bots)
        assert s.winners


# -- run-time errors ---------------------------------------------------------------------------------
def test_a_seat_listed_twice_is_a_run_time_error(tmp_path):
    text = open(SEALED, encoding="utf-8").read().replace(
        '        - simultaneous: [bid]\n', '        - simultaneous: [bid]\n          players: "[0, 1, 0]"\n')
    game = gamespec.load_text(text, "twice.yaml")
    with pytest.raises(SpecRuntimeError, match="player 0 is listed twice"):
        game.new_game(players=3, seed=1)


def test_the_choosers_can_be_some_players_only():
    text = open(SEALED, encoding="utf-8").read().replace(
        '        - simultaneous: [bid]\n', '        - simultaneous: [bid]\n          players: "others(0)"\n')
    game = gamespec.load_text(text, "others.yaml")
    s = game.new_game(players=3, seed=1)
    seen = []
    for _ in range(4):
        seen.append(s.current_player)
        s.apply(0)
    assert seen == [1, 2, 1, 2]


# -- agents: sequential with hidden moves (docs/agents.md) ---------------------------------------------
@pytest.mark.filterwarnings("ignore:Observation")
@pytest.mark.parametrize("path", [SEALED, SIXES], ids=["sealed", "sixes"])
def test_pettingzoo_env_presents_the_choices_in_turn(path):
    pytest.importorskip("pettingzoo", reason="the rl extra is not installed")
    from pettingzoo.test import api_test

    from gamespec.envs import pettingzoo_env
    game = gamespec.load(path)
    for players in (game.spec.min_players, game.spec.max_players):
        api_test(pettingzoo_env(path, players=players, seed=1), num_cycles=200)


def test_pettingzoo_observation_hides_a_pending_bid():
    np = pytest.importorskip("numpy")
    pytest.importorskip("pettingzoo", reason="the rl extra is not installed")
    from gamespec.envs import pettingzoo_env
    seen = []
    for amount in (2, 11):
        env = pettingzoo_env(SEALED, players=3, seed=4)
        env.reset(seed=4)
        assert env.agent_selection == env.agents[0]
        mask = env.observe(env.agents[0])["action_mask"]
        ids = [i for i, ok in enumerate(mask) if ok]
        env.step(ids[amount])           # the amounts 0..12 in order
        assert env.agent_selection == env.agents[1]
        seen.append([env.observe(a) for a in env.agents[1:]])
    for a, b in zip(*seen):
        assert np.array_equal(a["observation"], b["observation"])
        assert np.array_equal(a["action_mask"], b["action_mask"])


def test_openspiel_game_resamples_the_others_pending_choices():
    pytest.importorskip("pyspiel", reason="the rl extra is not installed")
    import pyspiel

    from gamespec.envs import openspiel
    g = openspiel.load(SEALED, players=3)
    pyspiel.random_sim_test(g, num_sims=2, serialize=False, verbose=False)
    st = g.new_initial_state(seed=6)
    st.apply_action(st.legal_actions()[9])      # player 0 bids 9
    p = st.current_player()
    assert p == 1 and '"amount": 9' not in st.information_state_string(p)
    drawn = set()
    for _ in range(30):
        r = st.resample_from_infostate(p, pyspiel.UniformProbabilitySampler(0., 1.))
        assert r.information_state_string(p) == st.information_state_string(p)
        assert r.legal_actions() == st.legal_actions()
        drawn.add(pending_choices(r.gamespec_state)[0][3])
    assert len(drawn) > 3, "a resampled world keeps player 0's real bid"


def test_a_pass_is_hidden_like_any_choice_and_resolves_last():
    text = open(SEALED, encoding="utf-8").read().replace(
        '          order: "-amount"\n', '          order: "-amount"\n          optional: "no bid"\n')
    game = gamespec.load_text(text, "optional.yaml")
    s = game.new_game(players=3, seed=2, log=True)
    s.apply({"action": "skip"})
    assert s.observation(1)["history"] == [{"player": 0, "event": "chose"}]
    assert s.observation(0)["history"] == [{"player": 0, "action": "skip", "secret": True}]
    bid(s, 3)
    s.apply({"action": "skip"})
    assert [(x["player"], x["action"]["action"]) for x in s.log_for(2) if x["type"] == "reveal"] == \
        [(1, "bid"), (0, "skip"), (2, "skip")]
    assert coins(s) == [12, 9, 12] and len(won(s, 1)) == 1
    assert replay(game, json.loads(json.dumps(s.log_lines())))["ok"] is False   # unfinished: no end
    while not s.is_terminal:
        s.apply(0)
    assert replay(game, json.loads(json.dumps(s.log_lines())))["ok"]


def test_a_guard_skips_the_whole_step():
    text = open(SEALED, encoding="utf-8").read().replace(
        '        - simultaneous: [bid]\n', '        - simultaneous: [bid]\n          if: "size(prizes) % 2 == 0"\n')
    game = gamespec.load_text(text, "guarded.yaml")
    s = game.new_game(players=2, seed=2, log=True)
    while not s.is_terminal:
        s.apply(0)
    assert s.decisions == 2 * 4         # 8 prizes: a round with bids every other turn
    assert s.observation(0)["zones"]["lost"]["size"] == 8


# -- the web page and the terminal table ------------------------------------------------------------------
def test_a_seats_web_message_holds_no_pending_choice_of_another(sealed):
    from gamespec.web.messages import encode, seat_message
    table = {"game": "Sealed", "seats": ["person"] * 3}
    got = []
    for amount in (1, 10):
        s = sealed.new_game(players=3, seed=9)
        bid(s, amount)
        got.append([encode(seat_message(s, q, table)) for q in range(3)])
        assert json.loads(got[-1][1])["transcript"] == ["1. player 0: chose in secret"]
        assert json.loads(got[-1][0])["transcript"] == [f"1. you: bid {amount} (in secret)"]
    assert got[0][1:] == got[1][1:] and got[0][0] != got[1][0]


def test_the_web_leak_property_on_a_simultaneous_game():
    pytest.importorskip("starlette", reason="the web extra is not installed")
    pytest.importorskip("httpx", reason="the web extra is not installed")
    from test_web import _leak_games
    _leak_games(SEALED, [(None, 3)])


def test_the_transcript_shows_a_choice_in_secret_then_its_reveal(sealed):
    from gamespec.table.transcript import Labels, transcript
    s = sealed.new_game(players=2, seed=9, log=True)
    bid(s, 4)
    assert transcript(s.log_for(1), Labels(s.rs), 1)[-1] == "   1. player 0: chooses in secret"
    bid(s, 6)
    lines = transcript(s.log_for(1), Labels(s.rs), 1)
    assert lines[-2:] == ["      revealed: you: bid 6", "      revealed: player 0: bid 4"]


@pytest.mark.parametrize("path", [SEALED, SIXES], ids=["sealed", "sixes"])
def test_outputs_validate_against_the_format_schemas(path):
    pytest.importorskip("jsonschema")
    from test_formats import _play, _validator
    obs, full, lfor, st = (_validator(n) for n in ("observation", "log", "log-for", "state"))
    game = gamespec.load(path)
    s, states = _play(game, 3, {}, seed=3)
    for x in states + [s]:
        for p in range(3):
            obs.validate(x.observation(p))
        st.validate(x.to_json())
    assert any(x["type"] == "reveal" for x in s.log_lines())
    for line in s.log_lines():
        full.validate(line)
    for p in range(3):
        for line in s.log_for(p):
            lfor.validate(line)
    mid = game.new_game(players=3, seed=1, log=True)
    mid.apply(0)
    obs.validate(mid.observation(1))
    for line in mid.log_for(1):
        lfor.validate(line)


def test_an_end_during_the_reveal_drops_the_choices_not_yet_resolved():
    text = open(SEALED, encoding="utf-8").read().replace(
        "        taken = true\n", "        taken = true\n        end_turn()\n")
    assert "end_turn()" in text
    game = gamespec.load_text(text, "ends.yaml")
    s = game.new_game(players=3, seed=1, log=True)
    bid(s, 3)
    bid(s, 5)
    bid(s, 4)
    assert [(x["player"], x["action"]["amount"]) for x in s.log_lines() if x["type"] == "reveal"] == [(1, 5)]
    assert s.observation(0)["history"][-1] == {"player": 1, "action": "bid", "event": "reveal", "amount": 5}
    assert coins(s) == [12, 7, 12] and s.current_player == 0 and not pending_choices(s)
    bid(s, 1)       # the next round starts afresh: its reveal takes only its own choices
    bid(s, 0)
    bid(s, 0)
    assert [x["action"]["amount"] for x in s.log_lines() if x["type"] == "reveal"] == [5, 1]
    while not s.is_terminal:
        s.apply(0)
    assert replay(game, json.loads(json.dumps(s.log_lines())))["ok"]
    assert game.state_from_json(json.loads(json.dumps(s.to_json()))) == s
