"""Explicit chance (`openspiel.load(spec, chance="explicit")`, docs/agents.md "Explicit chance"):
OpenSpiel's exact algorithms run through gamespec's OpenSpiel game of the two small poker specs and
give what they give on OpenSpiel's own kuhn_poker and leduc_poker."""
import collections
import re
from pathlib import Path

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="the rl extra is not installed (open_spiel)")

from open_spiel.python import policy  # noqa: E402
from open_spiel.python.algorithms import cfr, expected_game_score, exploitability  # noqa: E402

from gamespec.envs import openspiel as gos  # noqa: E402
from gamespec.envs.chance import orders  # noqa: E402
from gamespec.errors import IllegalAction, UsageError  # noqa: E402

GAMES = Path(__file__).resolve().parent.parent / "games"
KUHN = GAMES / "kuhn_poker.yaml"
LEDUC = GAMES / "leduc_holdem.yaml"
LEDUC_VALUE = -0.0856    # the first player's value of Leduc hold'em (OpenSpiel's CFR, to 4 places)


def explicit(path):
    return gos.load(str(path), reward="score", chance="explicit", zero_sum=True)


@pytest.fixture(scope="module")
def kuhn():
    return explicit(KUHN)


@pytest.fixture(scope="module")
def leduc():
    return explicit(LEDUC)


def walk(state, fn):
    """fn(state) at every node of the tree below state (chance nodes included)."""
    fn(state)
    if state.is_terminal():
        return
    for a in state.legal_actions():
        walk(state.child(a), fn)


# ------------------------------------------------------------------------ the chance nodes

def test_a_shuffle_is_chance_nodes_one_per_position_identical_cards_merged(kuhn, leduc):
    assert kuhn.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    s = kuhn.new_initial_state()
    assert s.is_chance_node()
    assert s.chance_outcomes() == [(0, pytest.approx(1 / 3)), (1, pytest.approx(1 / 3)), (2, pytest.approx(1 / 3))]
    assert [s.action_to_string(pyspiel.PlayerId.CHANCE, a) for a in s.legal_actions()] == \
        ["chance: jack", "chance: queen", "chance: king"]
    s.apply_action(2)                   # the top card (player 0's) is the king
    assert s.chance_outcomes() == [(0, 0.5), (1, 0.5)]
    s.apply_action(0)                   # then the jack (player 1's); the queen is forced
    assert not s.is_chance_node() and s.current_player() == 0
    gs = s.gamespec_state
    hands = [[gs.rs.face_label[gs.rs.face_of[c]] for c in gs.z[gs.rs.zone_base["hand"] + p]] for p in (0, 1)]
    assert hands == [["king"], ["jack"]]
    # Leduc: two of each rank, one outcome per rank with their summed probability
    s = leduc.new_initial_state()
    assert s.chance_outcomes() == [(0, pytest.approx(1 / 3))] * 1 + [(1, pytest.approx(1 / 3)), (2, pytest.approx(1 / 3))]
    s.apply_action(0)
    assert s.chance_outcomes() == [(0, pytest.approx(1 / 5)), (1, pytest.approx(2 / 5)), (2, pytest.approx(2 / 5))]
    with pytest.raises(IllegalAction):
        s.apply_action(7)


def test_the_chance_tree_holds_every_distinguishable_order_with_its_probability(leduc):
    """The leaves of the set-up's chance nodes are the 6! / 2!^3 = 90 orders of the deck, each 1/90."""
    leaves = []

    def down(s, p):
        if s.is_chance_node():
            for a, q in s.chance_outcomes():
                down(s.child(a), p * q)
        else:
            leaves.append(p)
    down(leduc.new_initial_state(), 1.0)
    assert len(leaves) == orders([2, 2, 2]) == 90
    assert all(p == pytest.approx(1 / 90) for p in leaves)


def test_a_deck_too_large_to_enumerate_is_refused_with_a_clear_error():
    with pytest.raises(UsageError, match=r"explicit chance: shuffling 'number_deck' \(63 cards, 26 different\) "
                       r"has about 10\^\d+ distinguishable orders, more than the limit of 1,000,000"):
        gos.load(str(GAMES / "klink.yaml"), players=3, chance="explicit")
    with pytest.raises(UsageError, match="chance is 'sampled' or 'explicit'"):
        gos.load(str(KUHN), chance="exact")
    with pytest.raises(UsageError, match="explicit chance plays on the Python engine"):
        gos.load(str(KUHN), chance="explicit", engine="native")


def test_a_declared_zero_sum_is_checked_at_the_end():
    """zero_sum=True is what exploitability asks for; returns that do not sum to 0 are refused (a
    three-player win/loss: +1, -1, -1)."""
    import random
    g = gos.load(str(GAMES / "klink.yaml"), players=3, zero_sum=True, engine="python")
    assert g.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM and g.utility_sum() == 0
    s, r = g.new_initial_state(seed=3), random.Random(0)
    while not s.is_terminal():
        s.apply_action(r.choice(s.legal_actions()))
    with pytest.raises(UsageError, match=r"declared zero-sum .* returns \[") as e:
        s.returns()
    assert "-1.0" in str(e.value)


# ------------------------------------------------------------------------ information states

def _hands_by_infostate(game):
    """{(player, information state string): Counter of (the other's rank, own rank, public ranks)}
    over every decision node of the tree, for both seats (the one acting and the other)."""
    seen = collections.defaultdict(collections.Counter)

    def note(s):
        if s.is_chance_node() or s.is_terminal():
            return
        gs = s._h.s
        base = gs.rs.zone_base["hand"]
        hand = [gs.rs.face_of[gs.z[base + p][0]] for p in (0, 1)]
        board = tuple(gs.rs.face_of[c] for c in gs.z[gs.rs.zone_base["board"]]) if "board" in gs.rs.zone_base else ()
        for p in (0, 1):
            seen[(p, s.information_state_string(p))][(hand[1 - p], hand[p], board)] += 1
    walk(game.new_initial_state(), note)
    return seen


def _acting_infostates(game, rename=lambda k: k):
    """The information state strings of the seat to act, over every decision node."""
    out = set()
    walk(game.new_initial_state(), lambda s: s.is_chance_node() or s.is_terminal()
         or out.add(rename(s.information_state_string())))
    return out


def _ranks(key):
    """An information state string of OpenSpiel's leduc_poker with its card ids (0..5, two suits)
    replaced by their ranks (the spec's identical cards)."""
    return re.sub(r"(Private|Public): (\d)", lambda m: f"{m.group(1)}: {int(m.group(2)) // 2}", key)


@pytest.mark.parametrize("path,deck,count", [(KUHN, {0: 1, 1: 1, 2: 1}, 12), (LEDUC, {0: 2, 1: 2, 2: 2}, 288)],
                         ids=["kuhn", "leduc"])
def test_information_states_hold_only_what_the_seat_may_know(path, deck, count, kuhn, leduc):
    """The leak property over the explicit game: in every information state of a seat (acting or
    not), its own card and the public card are fixed, and the other player's card ranges over every
    rank the deck still holds (so the string never tells it); the seat to act has as many information
    states as in OpenSpiel's own game (kuhn_poker: 12; leduc_poker: 936, 288 once its two suits are
    merged, as the spec's identical cards are)."""
    game = kuhn if path == KUHN else leduc
    for (p, key), hands in _hands_by_infostate(game).items():
        assert len({(mine, board) for _, mine, board in hands}) == 1, key
        _, mine, board = next(iter(hands))
        left = collections.Counter(deck)
        left[mine] -= 1
        for b in board:
            left[b] -= 1
        assert {theirs for theirs, _, _ in hands} == {r for r, k in left.items() if k > 0}, key
    other = pyspiel.load_game("kuhn_poker" if path == KUHN else "leduc_poker")
    assert len(_acting_infostates(game)) == len(_acting_infostates(other, _ranks)) == count


# ------------------------------------------------------------------------ exact algorithms

def test_kuhn_cfr_reaches_minus_one_eighteenth(kuhn):
    solver = cfr.CFRSolver(kuhn)
    for _ in range(200):
        solver.evaluate_and_update_policy()
    v = expected_game_score.policy_value(kuhn.new_initial_state(), [solver.average_policy()] * 2)
    assert round(float(v[0]), 3) == round(-1 / 18, 3) and v[0] + v[1] == pytest.approx(0)


def test_kuhn_uniform_policy_value_and_exploitability_equal_openspiels(kuhn):
    pg = pyspiel.load_game("kuhn_poker")
    ours, theirs = policy.UniformRandomPolicy(kuhn), policy.UniformRandomPolicy(pg)
    assert list(expected_game_score.policy_value(kuhn.new_initial_state(), [ours] * 2)) == pytest.approx(
        list(expected_game_score.policy_value(pg.new_initial_state(), [theirs] * 2)), abs=1e-12)
    assert exploitability.exploitability(kuhn, ours) == pytest.approx(
        exploitability.exploitability(pg, theirs), abs=1e-12)


def test_leduc_uniform_policy_value_and_exploitability_equal_openspiels(leduc):
    pg = pyspiel.load_game("leduc_poker")
    ours, theirs = policy.UniformRandomPolicy(leduc), policy.UniformRandomPolicy(pg)
    v = expected_game_score.policy_value(leduc.new_initial_state(), [ours] * 2)
    w = expected_game_score.policy_value(pg.new_initial_state(), [theirs] * 2)
    assert abs(v[0] - w[0]) < 1e-9 and abs(v[1] - w[1]) < 1e-9 and w[0] == pytest.approx(-0.078125)
    e = exploitability.exploitability(leduc, ours)
    assert abs(e - exploitability.exploitability(pg, theirs)) < 1e-9 and e == pytest.approx(2.3736111, abs=1e-6)


@pytest.mark.slow
def test_leduc_cfr_reaches_the_game_value():
    """OpenSpiel's CFR+ (C++) on the explicit game: the same average policy's value as on OpenSpiel's
    own leduc_poker after as many iterations, near the game value -0.0856 (about 3 minutes)."""
    g = explicit(LEDUC)
    pg = pyspiel.load_game("leduc_poker")
    ours, theirs = pyspiel.CFRPlusSolver(g), pyspiel.CFRPlusSolver(pg)
    for _ in range(100):
        ours.evaluate_and_update_policy()
        theirs.evaluate_and_update_policy()
    v = pyspiel.expected_returns(g.new_initial_state(), ours.average_policy(), -1, True)
    w = pyspiel.expected_returns(pg.new_initial_state(), theirs.average_policy(), -1, True)
    assert v[0] == pytest.approx(w[0], abs=1e-9)
    assert abs(v[0] - LEDUC_VALUE) < 0.002


# ------------------------------------------------------------------------ any small spec

@pytest.mark.parametrize("path", [KUHN, LEDUC, GAMES.parent / "tests" / "specs" / "bluff.yaml",
                                  GAMES.parent / "tests" / "specs" / "sealed.yaml"], ids=lambda p: p.stem)
def test_random_sim_test_on_the_explicit_game(path):
    """OpenSpiel's own API check (chance outcomes summing to 1, legal actions, clones, returns) on
    the explicit game: the poker specs, a spec that shuffles inside a player's action (Bluff: a role
    proved is shuffled back) and one with simultaneous choices."""
    g = gos.load(str(path), chance="explicit")
    pyspiel.random_sim_test(g, num_sims=3, serialize=False, verbose=False)


def test_a_shuffle_inside_a_players_action_is_chance_nodes_after_that_action():
    """Bluff's `prove` shuffles the role back into the court and draws one: the action is played,
    then chance nodes decide the court's new order (9 cards, 3 roles), then play goes on."""
    import random
    g = gos.load(str(GAMES.parent / "tests" / "specs" / "bluff.yaml"), chance="explicit")
    r = random.Random(4)
    found = 0
    for _ in range(30):
        s = g.new_initial_state()
        while not s.is_terminal() and not found:
            if s.is_chance_node():
                outcomes = s.chance_outcomes()
                assert sum(p for _, p in outcomes) == pytest.approx(1)
                if s.gamespec_state is not None:        # a chance node after the set-up: a reshuffle
                    before = s.gamespec_state.decisions      # the State before the action
                    while s.is_chance_node():
                        s.apply_action(r.choice([a for a, _ in s.chance_outcomes()]))
                    assert s.gamespec_state.decisions == before + 1    # the action is done once
                    found += 1
                    break
                s.apply_action(r.choice([a for a, _ in outcomes]))
            else:
                s.apply_action(r.choice(s.legal_actions()))
        if found:
            break
    assert found
