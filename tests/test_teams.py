"""Team state (docs/language.md, Team state): the spec's `teams`, team variables and zones indexed by
team number, who sees them, observations and determinizations, scoring each team once; with
tests/specs/bags.yaml (a partnership trick-taker with bids, bags and nil)."""
from __future__ import annotations

import os
import random

import pytest

import gamespec
from gamespec.errors import SpecErrors, SpecRuntimeError

HERE = os.path.dirname(os.path.abspath(__file__))
BAGS = os.path.join(HERE, "specs", "bags.yaml")


@pytest.fixture(scope="module")
def bags():
    return gamespec.load(BAGS)


def played(g, seed, until=None):
    s = g.new_game(players=4, seed=seed, log=True)
    rnd = random.Random(seed)
    while not s.is_terminal and not (until and until(s)):
        acts = s.legal_actions()
        s.apply(acts[rnd.randrange(len(acts))])
    return s


def test_observations_show_the_teams_and_one_entry_per_team(bags):
    s = played(bags, 1, until=lambda s: s.phase_name == "play")
    for p in range(4):
        o = s.observation(p)
        assert o["teams"] == [0, 1, 0, 1]
        assert len(o["variables"]["contract"]) == 2 and None not in o["variables"]["contract"]
        # the team's own note: its members see it, the other team does not
        assert [x is not None for x in o["variables"]["hunch"]] == [p % 2 == 0, p % 2 == 1]
        assert set(o["zones"]) >= {"won[0]", "won[1]"}
    assert s.observation(0)["variables"]["contract"] == [bags.evaluate(s, "contract[t]", t=t) for t in (0, 1)]


def test_a_teams_zone_and_variable_are_seen_by_its_members_only(bags):
    rs = bags.ruleset(4, bags.check_options({}))
    assert rs.team_mask == [0b0101, 0b1010]
    assert [rs.zvis[rs.zone_base["won"] + t] for t in (0, 1)] == rs.team_mask       # owner: the members
    assert list(rs.var_sight["hunch"]) == rs.team_mask and list(rs.var_sight["points"]) == [rs.ALL] * 2
    # a card of the other team's tricks that a player never saw stays hidden from them
    s = bags.new_game(players=4, seed=2)
    won0 = rs.zone_base["won"]
    card = s.z[rs.zone_base["hand"] + 0][0]         # in player 0's hand: nobody else saw it
    s.z[rs.zone_base["hand"]].remove(card)
    s.z[won0].append(card)
    s.loc[card] = won0
    shown = [s.observation(p)["zones"]["won[0]"]["cards"][0] for p in range(4)]
    assert [c is not None for c in shown] == [True, False, True, False]


def test_a_determinization_resets_the_other_teams_hidden_values_only(bags):
    s = played(bags, 3, until=lambda s: s.phase_name == "play"
               and bags.evaluate(s, "hunch[0] + hunch[1]") > 0)
    real = [bags.evaluate(s, "hunch[t]", t=t) for t in (0, 1)]
    for p in range(4):
        d = s.determinize(p, random.Random(p))
        got = [bags.evaluate(d, "hunch[t]", t=t) for t in (0, 1)]
        mine = p % 2
        assert got[mine] == real[mine] and got[1 - mine] == 0


def test_each_team_is_scored_once_and_its_members_share_the_result(bags):
    for seed in range(20):
        s = played(bags, seed)
        points = [bags.evaluate(s, "points[t]", t=t) for t in (0, 1)]
        bagged = [bags.evaluate(s, "bags[t]", t=t) for t in (0, 1)]
        assert s.scores == [points[p % 2] for p in range(4)]       # counted once, not once per member
        key = [(points[t], -bagged[t]) for t in (0, 1)]
        best = max(key)
        assert s.winners == [p for p in range(4) if key[p % 2] == best]
        assert s.log_lines()[-1]["scores"] == s.scores


def test_team_built_ins_and_a_team_index_out_of_range(bags):
    for backend in ("codegen", "closures"):
        bags.backend = backend
        s = bags.new_game(players=4, seed=1)
        assert bags.evaluate(s, "[team(q) for q in players]") == [0, 1, 0, 1]
        assert bags.evaluate(s, "[members(t) for t in range(num_teams)]") == [[0, 2], [1, 3]]
        with pytest.raises(SpecRuntimeError, match=r"no team 5 \(teams are 0 to 1\)"):
            bags.evaluate(s, "points[5]")
        with pytest.raises(SpecRuntimeError, match=r"no team -1 \(teams are 0 to 1\)"):
            bags.evaluate(s, "size(won[-1])")
    bags.backend = "codegen"


TEAMS = """
name: Pairs
players: [2, 5]
teams: "p % 2"
cards:
  card: {zone: deck, faces: [{each: {v: [1, 2, 3]}, count: 4}]}
zones:
  deck: {kind: pile, visibility: hidden, on_empty: stop}
  pot:  {kind: pile, per_team: true, visibility: all_but_owner}
variables:
  score: {per_team: true, initial: 0}
on_begin: "shuffle(deck)"
end_if: "size(deck) == 0"
phases:
  play:
    turn:
      steps:
        - choose: [take]
actions:
  take:
    effect: "score[team(actor)] += top(deck).v; deal(deck, pot[team(actor)])"
scoring:
  per_team: true
  score: "score[t]"
"""


def test_teams_are_decided_for_every_player_count_and_all_but_owner_is_the_other_teams():
    g = gamespec.load_text(TEAMS, "pairs.yaml")
    for players in range(2, 6):
        rs = g.ruleset(players, {})
        assert rs.seat_team == [p % 2 for p in range(players)] and rs.T == 2
        base = rs.zone_base["pot"]
        assert [rs.zvis[base + t] for t in (0, 1)] == [rs.ALL & ~rs.team_mask[t] for t in (0, 1)]
        s = g.new_game(players=players, seed=players)
        while not s.is_terminal:
            s.apply(s.legal_actions()[0])
        assert s.scores[0] == g.evaluate(s, "score[0]") and len(set(s.scores[0::2])) == 1


@pytest.mark.parametrize("change,message", [
    (("  per_team: true\n", "  per_team: true\n  teams: \"p\"\n"),
     "a per-team scoring has no 'teams' (the teams are the game's; each team is scored once)"),
    (('teams: "p % 2"\n', ""),
     "a per-team zone needs the game's teams: declare them at the top level (teams: \"p % 2\")"),
    (("  score: \"score[t]\"", "  score: \"score[p]\""), "unknown name 'p'; did you mean 't'?"),
    (("score[team(actor)] +=", "score +="), "'score' is per team; write score[team(player)]"),
    (("score[team(actor)] +=", "score[actor == 0] +="), "'score' is per team; its index is a team number, not true/false"),
    (('teams: "p % 2"', 'teams: "min(2 * p, num_players - 1)"'),
     "no player is in team 1 for 3 players and no options; the teams are numbered 0, 1, ... with no gap (teams: [0, 2])"),
])
def test_team_mistakes_are_reported_where_they_are(change, message):
    with pytest.raises(SpecErrors) as e:
        gamespec.load_text(TEAMS.replace(*change), "bad.yaml")
    assert message in [x.message for x in e.value.errors], str(e.value)


def test_explain_tells_the_teams_and_the_team_scoring(bags):
    from gamespec.authoring import explain
    text = explain(bags, players=4)
    assert "team 0: player 0, player 2; team 1: player 1, player 3" in text
    assert "Each team t scores" in text and "per team" in text
