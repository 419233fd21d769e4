"""Scores and keys per player → per team (scoring.teams): each member gets the team's totals."""
from __future__ import annotations

from gamespec.errors import SpecRuntimeError

from .runtime import INT_LIMIT


def team_totals(s, team_of, scores, keys, sign):
    """(team of each player, each player's team score, each player's team ranking key)."""
    P = len(scores)
    teams = []
    for p in range(P):
        t = team_of(s, {"p": p})
        if t.__class__ is not int:
            raise SpecRuntimeError(f"the team of player {p} is {t!r}; a team is a number", "scoring.teams")
        teams.append(t)
    total, tkey = {}, {}
    for p in range(P):
        t = teams[p]
        total[t] = total.get(t, 0) + scores[p]
        if not -INT_LIMIT < total[t] < INT_LIMIT:      # a score is a number like any other
            raise SpecRuntimeError(f"team {t}'s total score is too large (beyond 2**63)", "scoring.teams",
                                   check="int-size")
        # the team's key: its total score, then the totals of each tie breaker (a player's key holds
        # sign * score first, then the tie breakers)
        k = keys[p][1:]
        tkey[t] = [a + b for a, b in zip(tkey[t], k)] if t in tkey else list(k)
    return teams, [total[teams[p]] for p in range(P)], \
        [(sign * total[teams[p]],) + tuple(tkey[teams[p]]) for p in range(P)]
