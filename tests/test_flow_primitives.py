"""Flow and action primitives through the test-only specs in tests/specs/ (Ladder, Bidders)."""
from __future__ import annotations

import json
import os
import random

import pytest

import gamespec
from helpers import arrange, face, find, names, zone

HERE = os.path.dirname(os.path.abspath(__file__))
SPECS = ["ladder", "bidders", "tiny", "facing"]


def load(name):
    return gamespec.load(os.path.join(HERE, "specs", f"{name}.yaml"))


# six games of every player count and option set; the JSON round trip at every step of the first two
# and every 8th step of the others (a state's JSON holds its history: every step costs a long game's
# square); the slow run the other four at every step
@pytest.mark.parametrize("name,seeds,every_step", [pytest.param(n, range(6), range(2), id=n) for n in SPECS]
                         + [pytest.param(n, range(2, 6), range(2, 6), id=n + "-every-step", marks=pytest.mark.slow)
                            for n in SPECS])
def test_test_specs_play_to_the_end_with_invariants(name, seeds, every_step):
    g = load(name)
    for players in range(g.min_players, g.max_players + 1):
        for opts in g.option_sets():
            for seed in seeds:
                rnd = random.Random(seed)
                s = g.new_game(players=players, seed=seed, options=opts)
                step = 0
                while not s.is_terminal:
                    # state_from_json re-plays the history (linear): every 8th step, the fields otherwise
                    rebuild = g.state_from_json if step % 8 == 0 else g.arranged_state
                    if seed in every_step or step % 8 == 0:
                        assert rebuild(json.loads(json.dumps(s.to_json()))) == s
                    step += 1
                    acts = s.legal_actions()
                    s.apply(acts[rnd.randrange(len(acts))])
                assert sorted(c for z in s.z for c in z) == list(range(s.rs.ncards))


def test_fallback_only_when_no_main_action_and_subsets_dedupe():
    g = load("ladder")
    s = g.new_game(players=2, seed=1)
    assert s.current_player == 1          # first: prev_player(0)
    # a hand that can neither climb nor jump onto a ladder topped by a 9
    nine = next(c for c in range(s.rs.ncards) if face(s, c) == {"type": "rung", "suit": "red", "value": 9})
    low = [c for c in range(s.rs.ncards) if face(s, c)["value"] in (1, 2) and c != nine]
    arrange(s, {"ladder": [nine], ("hand", 1): low[:3]})
    acts = s.legal_actions()
    assert {a.name for a in acts} == {"dump"}
    sizes = sorted(len(a.args[0]) for a in acts)
    # 3 cards (values 1,1,2 or 1,2,2): single dumps dedupe by face, pairs by the multiset of faces
    hand_faces = sorted(json.dumps(face(s, c), sort_keys=True) for c in low[:3])
    singles = len(set(hand_faces))
    assert sizes.count(1) == singles
    s.apply(acts[-1])
    assert all(s.face.get(c) == 2 for c in zone(s, "pit"))   # dumped face down
    # with a climbable card, the fallback disappears
    s2 = g.new_game(players=2, seed=1)
    seven = next(c for c in range(s2.rs.ncards) if face(s2, c)["value"] == 7)
    eight = next(c for c in range(s2.rs.ncards) if face(s2, c)["value"] == 8)
    arrange(s2, {"ladder": [seven], ("hand", 1): [eight] + low[:2]})
    assert names(s2) == ["climb"]


def test_for_step_asks_every_player_from_the_auctioneers_left():
    g = load("bidders")
    s = g.new_game(players=4, seed=2)
    order = []
    while len(order) < 4:
        order.append(s.current_player)
        s.apply(find(s, "bid", n=0))
    assert order == [1, 2, 3, 0]


def test_sole_highest_bid_wins_and_a_tie_goes_to_the_bottom():
    g = load("bidders")
    s = g.new_game(players=3, seed=4)
    prize = zone(s, "block")[-1]
    for n in (2, 5, 1):     # player 1, 2, 0 bid
        s.apply(find(s, "bid", n=n))
    assert prize in zone(s, "vault", 2)
    assert s.kn[prize] >> 2 & 1 or s.rs.zvis[s.loc[prize]] >> 2 & 1
    coins = s.v[s.rs.var_base["coins"] + 2]
    assert coins == 6 - 5
    # a tie: the prize goes under the pile
    while names(s) != ["bid"]:
        s.apply(s.legal_actions()[-1])
    prize = zone(s, "block")[-1]
    for _ in range(3):
        s.apply(find(s, "bid", n=1))
    assert zone(s, "prizes")[0] == prize


def test_trigger_ends_the_game_and_lowest_score_wins():
    g = load("bidders")
    s = g.new_game(players=3, seed=5)
    arrange(s, {"prizes": [], "spent": zone(s, "spent") + zone(s, "prizes")})
    # the block still holds the current prize; a tie sends it back under an empty pile
    for _ in range(3):
        s.apply(find(s, "bid", n=0))
    # the prize went to the bottom of 'prizes': the next turn takes it again; win it now
    while not s.is_terminal and names(s) != ["bid"]:
        s.apply(s.legal_actions()[0])
    for n in (1, 0, 0):
        if s.is_terminal:
            break
        s.apply(find(s, "bid", n=n))
    assert s.is_terminal     # the trigger fired: nothing left to auction
    best = min(s.scores)
    assert all(s.scores[w] == best for w in s.winners)


def test_optional_step_is_skipped_when_only_the_pass_remains():
    g = load("bidders")
    s = g.new_game(players=3, seed=6)
    arrange(s, {"prizes": [], "spent": zone(s, "spent") + zone(s, "prizes")})
    for n in (0, 0, 0):
        s.apply(find(s, "bid", n=n))
    # peek needs a prize in the pile; the tie put one there, so peeking is offered
    assert "peek" in names(s) or s.is_terminal
