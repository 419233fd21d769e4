"""Kuhn poker and Leduc hold'em (games/kuhn_poker.yaml, games/leduc_holdem.yaml): each rule of
OpenSpiel's kuhn_poker and leduc_poker pinned by a test that fails if it is broken, driven through
the state API from deals found by seed; and the golden logs replayed."""
import json
import re
from pathlib import Path

import pytest

import gamespec
from gamespec.cli import main

from helpers import face, var, zone

ROOT = Path(__file__).resolve().parent.parent
KUHN = gamespec.load(str(ROOT / "games" / "kuhn_poker.yaml"))
LEDUC = gamespec.load(str(ROOT / "games" / "leduc_holdem.yaml"))
RANK = {"jack": 1, "queen": 2, "king": 3}


def ranks(s, name, key=None):
    return [face(s, c)["rank"] for c in zone(s, name, key)]


def deal(game, mine, theirs, board=None):
    """A new game where player 0 holds rank `mine` and player 1 rank `theirs` (and, for Leduc, the
    public card to come has rank `board`): the first seed that deals so."""
    for seed in range(2000):
        s = game.new_game(seed=seed)
        if ranks(s, "hand", 0) == [mine] and ranks(s, "hand", 1) == [theirs] and \
                (board is None or ranks(s, "deck")[-1] == board):
            return s
    raise AssertionError("no such deal")


def names(s):
    """The legal actions' names, a repeated name as often as it is legal (helpers.names counts it once)."""
    return sorted(a.name for a in s.legal_actions())


def play(s, *moves):
    for m in moves:
        assert s.current_player is not None, "the hand is over"
        [a] = [a for a in s.legal_actions() if a.name == m]
        s.apply(a)
    return s


# ----------------------------------------------------------------------------- Kuhn poker

def test_kuhn_deal_ante_and_first_player():
    s = deal(KUHN, 3, 1)
    assert [var(s, "staked", p) for p in (0, 1)] == [1, 1]             # ante 1 each
    assert s.current_player == 0 and names(s) == ["bet", "check"]   # player 0 acts first; no fold
    assert len(zone(s, "deck")) == 1                    # the third card stays out


@pytest.mark.parametrize("mine,theirs,moves,scores", [
    (3, 1, ["check", "check"], [1, -1]),            # both check: the higher card takes the antes
    (1, 2, ["check", "check"], [-1, 1]),
    (1, 3, ["bet", "fold"], [1, -1]),               # a bet folded to: the bettor wins the ante
    (3, 1, ["check", "bet", "fold"], [-1, 1]),      # check, bet, fold: the bettor wins
    (2, 3, ["check", "bet", "call"], [-2, 2]),      # a called bet: the higher card takes 2
    (3, 2, ["bet", "call"], [2, -2]),
])
def test_kuhn_betting_and_payoffs(mine, theirs, moves, scores):
    s = play(deal(KUHN, mine, theirs), *moves)
    assert s.is_terminal and s.scores == scores


def test_kuhn_a_bet_is_called_or_folded_and_ends_the_hand():
    s = play(deal(KUHN, 2, 1), "check", "bet")
    assert s.current_player == 0 and names(s) == ["call", "fold"]
    play(s, "call")
    assert s.is_terminal and s.decisions == 3


def test_kuhn_cards_are_hidden_from_the_other_player():
    s = deal(KUHN, 3, 1)
    obs = s.observation(0)
    assert [c["name"] for c in obs["zones"]["hand[0]"]["cards"]] == ["king"]
    assert obs["zones"]["hand[1]"]["cards"] == [] and obs["zones"]["hand[1]"]["hidden"] == 1
    assert obs["zones"]["deck"]["cards"] == [None]                  # a pile face down: not its face


# ----------------------------------------------------------------------------- Leduc hold'em

def test_leduc_fold_only_facing_a_bet_and_at_most_two_raises_a_round():
    s = deal(LEDUC, 1, 2, 3)
    assert s.current_player == 0 and names(s) == ["bet", "check"]
    play(s, "bet")
    assert s.current_player == 1 and names(s) == ["call", "fold", "raise"]
    play(s, "raise")
    assert names(s) == ["call", "fold"]          # the bet and a raise: the cap of 2 is reached
    play(s, "call")
    assert var(s, "round") == 2 and s.current_player == 0 and names(s) == ["bet", "check"]


def test_leduc_bets_are_2_in_the_first_round_and_4_in_the_second():
    s = play(deal(LEDUC, 1, 2, 3), "bet")
    assert [var(s, "staked", p) for p in (0, 1)] == [3, 1]
    play(s, "raise")
    assert [var(s, "staked", p) for p in (0, 1)] == [3, 5]         # call 2 and raise 2
    play(s, "call", "bet")
    assert [var(s, "staked", p) for p in (0, 1)] == [9, 5]
    play(s, "raise")
    assert [var(s, "staked", p) for p in (0, 1)] == [9, 13]


def test_leduc_the_public_card_is_dealt_after_the_first_round_and_seen_by_both():
    s = deal(LEDUC, 1, 2, 3)
    assert ranks(s, "board") == []
    play(s, "check")
    assert ranks(s, "board") == [] and var(s, "round") == 1     # one check does not end the round
    play(s, "check")
    assert ranks(s, "board") == [3]
    for p in (0, 1):
        assert [c["name"] for c in s.observation(p)["zones"]["board"]["cards"]] == ["king"]


def test_leduc_player_0_starts_the_second_round():
    s = play(deal(LEDUC, 1, 2, 3), "check", "bet", "call")     # player 1 bet, player 0 bet_called
    assert var(s, "round") == 2 and s.current_player == 0


@pytest.mark.parametrize("mine,theirs,board,scores", [
    (1, 3, 1, [1, -1]),     # a pair with the public card beats a higher card
    (3, 1, 1, [-1, 1]),
    (2, 3, 1, [-1, 1]),     # no pair: the higher private card
    (3, 2, 2, [-1, 1]),     # the pair again (queen and queen)
    (2, 2, 1, [0, 0]),      # equal ranks split the pot
])
def test_leduc_showdown(mine, theirs, board, scores):
    s = play(deal(LEDUC, mine, theirs, board), "check", "check", "check", "check")
    assert s.is_terminal and s.scores == scores
    assert sorted(s.winners) == ([0, 1] if scores == [0, 0] else [scores.index(1)])


def test_leduc_a_showdown_after_bets_pays_the_chips_put_in():
    s = play(deal(LEDUC, 3, 1, 2), "bet", "call", "bet", "raise", "call")
    assert [var(s, "staked", p) for p in (0, 1)] == [11, 11] and s.scores == [11, -11]


def test_leduc_a_fold_loses_what_was_put_in_and_ends_the_hand_at_once():
    s = play(deal(LEDUC, 3, 1, 2), "bet", "raise", "fold")
    assert s.is_terminal and s.scores == [-3, 3] and ranks(s, "board") == []
    s = play(deal(LEDUC, 3, 1, 2), "check", "check", "bet", "fold")
    assert s.is_terminal and s.scores == [1, -1]


def test_leduc_the_other_private_card_stays_hidden_until_the_end():
    s = play(deal(LEDUC, 3, 1, 2), "check", "check")
    obs = s.observation(1)
    assert obs["zones"]["hand[0]"]["cards"] == [] and obs["zones"]["hand[0]"]["hidden"] == 1
    assert [c["name"] for c in obs["zones"]["hand[1]"]["cards"]] == ["jack"]


# ----------------------------------------------------------------------------- golden logs

@pytest.mark.parametrize("name,scores,winners,decisions", [
    ("kuhn_poker-1", [1, -1], [0], 2),        # check, check: the king shows down
    ("kuhn_poker-2", [-2, 2], [1], 2),        # bet, call: the king beats the jack
    ("leduc_holdem-1", [-5, 5], [1], 5),      # a second-round bet raised and folded to
    ("leduc_holdem-7", [0, 0], [0, 1], 4),    # two jacks split the pot
])
def test_golden_logs_replay(name, scores, winners, decisions, capsys):
    assert main(["replay", str(ROOT / "tests" / "golden" / f"{name}.jsonl"), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["ok"] and (got["scores"], got["winners"], got["decisions"]) == (scores, winners, decisions)


@pytest.mark.parametrize("gid", ["kuhn_poker", "leduc_holdem"])
def test_the_table_speaks_poker_and_says_nobody_folded_with_a_dash(gid):
    """presentation: poker's words, the counters the rules keep left out, 'Folded –' (a public player
    variable with no value) until someone folds, then the player."""
    from gamespec.spec.presentation import of_game
    from gamespec.table.screen import Screen
    from gamespec.table.transcript import Labels
    game = {"kuhn_poker": KUHN, "leduc_holdem": LEDUC}[gid]
    s = game.new_game(players=2, seed=4)
    screen = Screen(of_game(game), Labels(s.rs), 2, 0)
    text = "\n".join(t for t, _ in screen.lines(s.view(0).observation, "head"))
    assert "Folded –" in text and "In the pot 1" in text and "made" not in text.replace("Bet made", ""), text
    while not s.is_terminal:                 # bet until the other may fold, then fold
        acts = s.legal_actions()
        pick = ([a for a in acts if a.name == "fold"] or [a for a in acts if a.name in ("bet", "raise")]
                or acts)[0]
        s.apply(pick)
        if pick.name == "fold":
            break
    assert var(s, "folded_by") is not None
    text = "\n".join(t for t, _ in screen.lines(s.view(0).observation, "head"))
    assert re.search(r"Folded (you|player 1)", text), text
