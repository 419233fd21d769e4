"""Hidden information, for every game: what a player has never seen cannot change what they observe."""
from __future__ import annotations

import json
import os
import random

import pytest

import gamespec
from helpers import ROOT, config_id, configs, load

CONFIGS = configs()


# history events that name chosen cards, with who saw each (ev[4]): a decision, a simultaneous step's
# stored choice, its reveal; "r" (a look) is (tag, player, cards)
_CHOICES = ("d", "s", "v")


def _sees(state, c, p):
    return bool(state._vis(c) >> p & 1)


def _unseen_pairs(state, p, rnd, want=4):
    """Pairs of cards of different faces that player p can neither see nor remember."""
    rs = state.rs
    from gamespec.interpreter.observe import history_entries
    once_seen = set()   # perfect recall: cards p saw in a past event count as seen
    for ev in history_entries(state):
        if ev[0] in _CHOICES:
            for _, cs, masks in ev[4]:
                once_seen |= {c for c, m in zip(cs, masks) if m >> p & 1}
        elif ev[0] == "r" and ev[1] == p:
            once_seen |= set(ev[2])
    hidden = [c for c in range(rs.ncards) if not _sees(state, c, p) and c not in once_seen]
    rnd.shuffle(hidden)
    pairs = []
    for i, a in enumerate(hidden):
        for b in hidden[i + 1:i + 30]:
            if rs.face_of[a] != rs.face_of[b]:
                pairs.append((a, b))
                break
        if len(pairs) >= want:
            break
    return pairs


def _swap(game, state, a, b, new_rng=None):
    d = state.to_json()
    for z in d["zones"]:
        for i, c in enumerate(z):
            if c == a:
                z[i] = b
            elif c == b:
                z[i] = a
    d["known"][a], d["known"][b] = d["known"][b], d["known"][a]
    sw = {a: b, b: a}
    # per-card marks belong to the card where it lies, like its knowledge: they follow the exchange
    for col in d.get("marks", {}).values():
        col[a], col[b] = col[b], col[a]
    # history and log entries name cards by id: swap there too (they record what each player saw)
    for ev in d["history"]:
        if ev[0] in _CHOICES:
            for info in ev[4]:
                info[1] = [sw.get(c, c) for c in info[1]]
        elif ev[0] == "r":
            ev[2] = [sw.get(c, c) for c in ev[2]]
    d["face"] = {str(sw.get(int(k), int(k))): f for k, f in d["face"].items()}
    for i, decl in enumerate(state.rs.var_decl):
        if decl.type == "card" and d["vars"][i] in sw:
            d["vars"][i] = sw[d["vars"][i]]
        elif decl.type == "cards":
            d["vars"][i] = [sw.get(c, c) for c in d["vars"][i]]
    if not state.is_terminal:     # the flow variables of `for` loops around the pending decision
        for st in state.rs.choose_contexts()[state.pending][1]:
            assert getattr(getattr(st.iter, "ast", None), "t", None) not in ("zone", "cards"), \
                "a loop over cards: extend this swap"
    if new_rng is not None:
        d["rng"] = new_rng
    d["log"] = None
    return game.arranged_state(d)


MIN_SWAPS = 24          # swaps of unseen cards checked per configuration, at least
MAX_GAMES = 100


def _labels(state):
    return [(a.key(), a.label) for a in state.legal_actions()]


@pytest.mark.parametrize("cfg", CONFIGS, ids=[config_id(c) for c in CONFIGS])
def test_unseen_cards_do_not_change_observations(cfg):
    path, players, options = cfg
    game = load(path)
    checked = games = 0
    # at least 12 games and MIN_SWAPS swaps checked: a short game (Kuhn poker ends within three
    # decisions) plays more games, up to MAX_GAMES
    while games < 12 or checked < MIN_SWAPS and games < MAX_GAMES:
        seed, games = games, games + 1
        rnd = random.Random(seed)
        state = game.new_game(players=players, seed=seed, options=options)
        before = None
        for _ in range(rnd.randrange(1, 60)):
            if state.is_terminal:
                break
            before = state.clone()
            acts = state.legal_actions()
            state.apply(acts[rnd.randrange(len(acts))])
        if state.is_terminal:       # the game ended before the drawn depth: its last state in progress
            state = before
        for p in range(players):
            obs = state.observation(p)
            for a, b in _unseen_pairs(state, p, rnd):
                other = _swap(game, state, a, b, new_rng=rnd.getrandbits(63) + 1)
                assert other.observation(p) == obs, f"player {p} saw a swap of unseen cards {a}/{b}"
                if state.current_player == p:
                    assert _labels(other) == _labels(state)
                checked += 1
    assert checked >= MIN_SWAPS, f"{checked} swaps of unseen cards checked in {games} games"


@pytest.mark.parametrize("cfg", CONFIGS, ids=[config_id(c) for c in CONFIGS])
def test_seen_cards_do_change_observations(cfg):
    path, players, options = cfg
    game = load(path)
    state = game.new_game(players=players, seed=5, options=options)
    rs = state.rs
    changed = 0
    for p in range(players):
        seen = [c for c in range(rs.ncards) if _sees(state, c, p)]
        for a in seen[:5]:
            b = next((c for c in range(rs.ncards) if rs.face_of[c] != rs.face_of[a]), None)
            if b is None or state.loc[b] == state.loc[a]:
                continue
            other = _swap(game, state, a, b)
            assert other.observation(p) != state.observation(p)
            changed += 1
    assert changed > 0


@pytest.mark.parametrize("path", sorted({c[0] for c in CONFIGS}))
def test_observation_holds_no_seed_or_rng(path):
    game = load(path)
    state = game.new_game(players=game.min_players, seed=123456789)
    text = json.dumps(state.observation(0))
    assert "123456789" not in text and str(state.rng) not in text
    assert "rng" not in text and "seed" not in text


# -- the five findings of issue 11, each a test that failed before the fix ------------------------

def _play_until(game, players, seed, want, options=None, log=True):
    """Random play (preferring actions named in `want`) until one of them has been played: the state
    right after it and the decision's actor."""
    rnd = random.Random(seed)
    s = game.new_game(players=players, seed=seed, options=options, log=log)
    while not s.is_terminal:
        acts = s.legal_actions()
        pick = [a for a in acts if a.name in want]
        a = rnd.choice(pick) if pick else acts[rnd.randrange(len(acts))]
        actor = s.current_player
        s.apply(a)
        if pick:
            return s, actor, a
    raise AssertionError(f"no {want} played")


def _last_decision(rendered, name):
    return [d for d in rendered if d.get("action") == name][-1]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_finding1_face_down_sacrifice_is_no_face_in_others_history_or_log(seed):
    game = load("bali")
    s, actor, _ = _play_until(game, 3, seed, {"sacrifice_face_down"})
    for p in range(3):
        hist = _last_decision(s.observation(p)["history"], "sacrifice_face_down")
        log = _last_decision([x["action"] for x in s.log_for(p) if x["type"] == "decision"],
                             "sacrifice_face_down")
        if p == actor:
            assert hist["card"] is not None and log["card"] == hist["card"]
        else:
            assert hist["card"] is None and log["card"] is None, f"player {p} saw the face-down card"
        assert s.observation(p)["zones"]["altar"]["cards"][-1] == (hist["card"] if p == actor else None)


def test_finding1_kept_kidnapped_maenad_is_no_face_for_the_others():
    game = load("bacchus")
    for seed in range(40):
        try:
            s, actor, a = _play_until(game, 3, seed, {"keep_kidnapped"})
        except AssertionError:
            continue
        kept = a.bind["card"]
        for p in range(3):
            d = _last_decision(s.observation(p)["history"], "keep_kidnapped")
            line = _last_decision([x["action"] for x in s.log_for(p) if x["type"] == "decision"],
                                  "keep_kidnapped")
            want = s.rs.faces[s.rs.face_of[kept]] if p == actor else None
            assert d["card"] == want and line["card"] == want
        return
    raise AssertionError("no kidnapped maenad kept in 40 games")


def test_finding1_the_cli_log_for_a_seat_has_no_face_down_faces(tmp_path):
    """`gamespec run games/bali.yaml --players 3 --seed 3 --log-for 0`: in seat 0's file no
    face-down sacrifice of another player shows a card."""
    from gamespec.cli import main
    out = tmp_path / "p0.jsonl"
    assert main(["run", os.path.join(ROOT, "games", "bali.yaml"), "--players", "3", "--seed", "3",
                 "--log-for", "0", str(out)]) == 0
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    down = [x for x in lines if x["type"] == "decision" and x["action"]["action"] == "sacrifice_face_down"]
    assert down, "the game has no face-down sacrifice"
    for x in down:
        assert (x["action"]["card"] is None) == (x["player"] != 0)


def test_finding2_the_holder_does_not_get_the_ids_of_the_pair():
    """Klink: before looking, the holder's view of the look actions names the two face-down cards of
    the pair only by position; exchanging them (different faces) changes nothing the holder receives."""
    game = load("klink")
    s = game.new_game(players=3, seed=1)
    rnd = random.Random(1)
    while "look" not in {a.name for a in s.legal_actions()}:
        acts = s.legal_actions()
        s.apply(acts[rnd.randrange(len(acts))])
    p = s.current_player
    view = s.view(p)
    looks = [a for a in view.legal_actions if a.name == "look"]
    pair = s.z[s.rs.zone_base["pair"]]
    assert [a.to_json(label=False)["card"] for a in looks] == [{"zone": "pair", "position": i}
                                                              for i in range(len(pair))]
    assert not any(hasattr(a, attr) for a in looks for attr in ("bind", "args", "seen"))
    a, b = pair
    if s.rs.face_of[a] != s.rs.face_of[b]:
        other = _swap(game, s, a, b)
        assert json.dumps(other.view(p).to_json()) == json.dumps(view.to_json())
    # the label says no more either
    assert all("hidden card" in a.label for a in looks)


def test_finding3_a_game_without_a_seed_draws_64_bits_never_shown_to_players(tmp_path, capsys):
    game = load("bali")
    seeds = {game.new_game(players=2).seed for _ in range(4)}
    assert len(seeds) == 4 and max(seeds).bit_length() > 40 and all(0 <= x < 1 << 64 for x in seeds)
    s = game.new_game(players=2, log=True)
    assert s.log_lines()[0]["seed"] == s.seed
    for p in range(2):
        text = json.dumps([s.observation(p), s.log_for(p), s.view(p).to_json()])
        assert str(s.seed) not in text and str(s.rng) not in text and "seed" not in text
    # `run` without --seed prints the seed it drew (to the operator) and the full log holds it;
    # the log for a seat does not
    from gamespec.cli import main
    full, mine = tmp_path / "full.jsonl", tmp_path / "p0.jsonl"
    assert main(["run", os.path.join(ROOT, "games", "bali.yaml"), "--json", "--log", str(full),
                 "--log-for", "0", str(mine)]) == 0
    seed = json.loads(capsys.readouterr().out)["seed"]
    assert seed.bit_length() > 8 and json.loads(full.read_text().splitlines()[0])["seed"] == seed
    assert str(seed) not in mine.read_text()


FLIP = """
name: Flip
players: [2, 2]
cards:
  number:
    zone: deck
    faces:
      - {each: {value: [1, 2, 3, 4, 5, 6]}, count: 2}
zones:
  deck: {kind: pile, visibility: hidden}
  stash: {kind: set, visibility: hidden}
  table: {kind: pile, visibility: public}
on_begin: "shuffle(deck)"
start: play
phases:
  play:
    turn:
      steps:
        - choose: [flip]
    end_if: "size(deck) == 0"
    next: end
actions:
  flip:
    label: "turn {card} face up"
    params:
      card: {from: "deck"}
    effect: "move(card, table)"
"""


def _flip_game(tmp_path):
    path = tmp_path / "flip.yaml"
    path.write_text(FLIP)
    return gamespec.load(str(path))


def test_finding4_a_card_seen_landing_does_not_make_its_set_forgotten(tmp_path):
    """Player 1 knows every card of a hidden set; one of them is played face up: player 1 still
    knows the others. Moved unseen instead, player 1 can no longer tell them apart."""
    from gamespec.interpreter import runtime
    game = _flip_game(tmp_path)
    for unseen in (False, True):
        s = game.new_game(players=2, seed=5)
        rs = s.rs
        stash, table, deck = (rs.zone_base[n] for n in ("stash", "table", "deck"))
        cards = list(s.z[deck][:4])
        for c in cards:
            runtime.move_card(s, c, stash)
            s.kn[c] |= 1 << 1                   # revealed to player 1
        assert len(s.observation(1)["zones"]["stash"]["cards"]) == 4
        runtime.move_card(s, cards[0], deck if unseen else table)
        left = s.observation(1)["zones"]["stash"]
        assert left["size"] == 3
        assert len(left["cards"]) == (0 if unseen else 3)
        assert len(s.observation(0)["zones"]["stash"]["cards"]) == 0


def test_finding5_own_play_of_an_unseen_card_face_up_shows_in_own_log(tmp_path):
    """A player turns a card of a face-down deck face up (a card they had not seen): their history
    and log show its face, like everyone's."""
    game = _flip_game(tmp_path)
    s = game.new_game(players=2, seed=2, log=True)
    p = s.current_player
    play = s.view(p).legal_actions[0] if hasattr(s, "view") else s.legal_actions()[0]
    s.apply(play)
    face = s.observation(1 - p)["history"][-1]["card"]
    assert face is not None
    assert s.observation(p)["history"][-1]["card"] == face
    assert [x for x in s.log_for(p) if x["type"] == "decision"][-1]["action"]["card"] == face


def test_facing_out_hands_a_player_plays_blind_and_the_others_see_it():
    """all_but_owner: the owner chooses among cards they cannot see (handles, not faces); the others
    saw which card it was, and what a face-down bury was; the owner learns a face-up play."""
    game = gamespec.load(os.path.join(ROOT, "tests", "specs", "facing.yaml"))
    s = game.new_game(players=2, seed=2, log=True)
    p = s.current_player
    q = 1 - p
    hand = s.observation(p)["zones"]["hand[%d]" % p]
    assert hand["hidden"] == 2 and hand["cards"] == []
    assert len(s.observation(q)["zones"]["hand[%d]" % p]["cards"]) == 2
    view = s.view(p)
    bury = next(a for a in view.legal_actions if a.name == "bury")
    assert "hidden" in bury.to_json()["card"]
    s.apply(bury)
    seen_by_q = s.observation(q)["history"][-1]["card"]
    assert seen_by_q is not None and s.observation(p)["history"][-1]["card"] is None
    assert s.observation(q)["zones"]["box[%d]" % p]["cards"] == [seen_by_q]   # q remembers it
    assert s.observation(p)["zones"]["box[%d]" % p]["cards"] == [None]


def test_a_choice_among_cards_is_refused_it_would_show_card_ids(tmp_path):
    text = FLIP.replace('card: {from: "deck"}', 'card: {choice: "cards(deck)"}')
    path = tmp_path / "choice.yaml"
    path.write_text(text)
    with pytest.raises(gamespec.SpecErrors) as e:
        gamespec.load(str(path))
    assert "would name them by engine id" in str(e.value) and "choice.yaml:" in str(e.value)
