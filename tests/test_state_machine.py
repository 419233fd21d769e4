"""Stateful testing of every game: legal actions mixed with well-formed illegal ones.

For each spec in games/ that loads, a hypothesis RuleBasedStateMachine starts a game (any player count,
option set and seed) and then plays legal actions, actions taken from earlier states, and legal
actions with one parameter changed. An illegal action must raise IllegalAction and leave the state
exactly as it was. After every step: a clone equals the state, a JSON round trip (through
state_from_json, which checks everything) equals the state, every card lies in exactly one place,
and the legal actions are empty only at the end.
"""
from __future__ import annotations

import glob
import json
import os
import random

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

import gamespec
from gamespec import IllegalAction

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCALE = float(os.environ.get("GAMESPEC_FUZZ_EXAMPLES", "1"))


def _games():
    out = {}
    for path in sorted(glob.glob(os.path.join(ROOT, "games", "*.yaml"))):
        try:
            out[os.path.basename(path)[:-5]] = gamespec.load(path)
        except gamespec.SpecErrors:      # a spec being written may not load yet: not this test's business
            pass
    return out


GAMES = _games()


def _key(a):
    """A JSON action as a strict key (true is not 1, 1.0 is not 1)."""
    return json.dumps(a, sort_keys=True)


def _changed(value, how):
    """The value of one parameter, changed but still well-formed."""
    if isinstance(value, bool) or value is None:
        return [0, "x", 1][how % 3]
    if isinstance(value, int):
        return value + [-2, -1, 1, 2, 7, 100, -100][how % 7]
    if isinstance(value, str):
        return [value + "x", value[:-1], value.upper(), "", 3][how % 5]
    if isinstance(value, list):
        return [value[:-1], value + value[:1], list(reversed(value)) + [len(value)], [v + 1 for v in value
                if isinstance(v, int)], 5][how % 5]
    return None


class GameMachine(RuleBasedStateMachine):
    game = None

    @initialize(players=st.integers(0, 100), opt=st.integers(0, 100), seed=st.integers(0, 2 ** 31),
                log=st.booleans())
    def start(self, players, opt, seed, log):
        g = self.game
        self.players = g.min_players + players % (g.max_players - g.min_players + 1)
        options = g.option_sets()
        self.state = g.new_game(players=self.players, seed=seed, options=options[opt % len(options)], log=log)
        self.pool = []          # actions (JSON) legal in earlier states
        self.illegal = 0

    def _legal(self):
        return self.state.legal_actions()

    @precondition(lambda self: not self.state.is_terminal)
    @rule(i=st.integers(0, 10 ** 6), as_json=st.booleans())
    def play_legal(self, i, as_json):
        acts = self._legal()
        a = acts[i % len(acts)]
        j = a.to_json(label=False)
        if len(self.pool) < 400:
            self.pool.append(j)
        self.state.apply(j if as_json else a)

    @precondition(lambda self: not self.state.is_terminal)
    @rule(k=st.integers(1, 60), seed=st.integers(0, 1000))
    def play_many(self, k, seed):
        """Runs of legal moves, so that games also reach their end within a test run."""
        rnd = random.Random(seed)
        for _ in range(k):
            if self.state.is_terminal:
                break
            acts = self._legal()
            self.state.apply(acts[rnd.randrange(len(acts))])

    @precondition(lambda self: not self.state.is_terminal and self.pool)
    @rule(i=st.integers(0, 10 ** 6))
    def play_from_another_state(self, i):
        self._try(dict(self.pool[i % len(self.pool)]))

    @precondition(lambda self: not self.state.is_terminal)
    @rule(i=st.integers(0, 10 ** 6), j=st.integers(0, 100), how=st.integers(0, 100))
    def play_with_a_parameter_changed(self, i, j, how):
        acts = self._legal()
        a = acts[i % len(acts)].to_json(label=False)
        keys = [k for k in a if k != "action"]
        if keys:
            k = keys[j % len(keys)]
            a[k] = _changed(a[k], how)
        else:   # no parameter: the name is the one to change
            names = sorted(self.state.rs.actions) + ["skip"]
            a["action"] = names[how % len(names)]
            for p in self.state.rs.actions[a["action"]].params if a["action"] != "skip" else ():
                a[p.name] = how
        self._try(a)

    @precondition(lambda self: self.state.is_terminal)
    @rule(i=st.integers(0, 10 ** 6))
    def play_after_the_end(self, i):
        before = self.state.to_json()
        cand = dict(self.pool[i % len(self.pool)]) if self.pool else {"action": "skip"}
        with pytest.raises(IllegalAction):
            self.state.apply(cand)
        assert self.state.to_json() == before

    def _try(self, cand):
        legal = {_key(x.to_json(label=False)) for x in self._legal()}
        if _key(cand) in legal:
            return
        before = self.state.to_json()
        with pytest.raises(IllegalAction):
            self.state.apply(cand)
        assert self.state.to_json() == before, "an illegal action changed the state"
        assert {_key(x.to_json(label=False)) for x in self._legal()} == legal
        self.illegal += 1

    @invariant()
    def consistent(self):
        s = self.state
        assert s.clone() == s
        again = self.game.state_from_json(json.loads(json.dumps(s.to_json())))
        assert again == s
        assert [_key(a.to_json()) for a in again.legal_actions()] == [_key(a.to_json()) for a in s.legal_actions()]
        where = {}
        for zi, z in enumerate(s.z):
            for c in z:
                assert c not in where, f"card {c} is in two places"
                where[c] = zi
        assert sorted(where) == list(range(s.rs.ncards)), "a card is missing"
        assert all(s.loc[c] == zi for c, zi in where.items())
        assert bool(s.legal_actions()) != s.is_terminal


def _machine(name, examples):
    cls = type(f"{name.title()}Machine", (GameMachine,), {"game": GAMES[name]})
    cls.TestCase.settings = settings(max_examples=max(1, int(examples * SCALE)), stateful_step_count=50,
                                     deadline=None, database=None, derandomize=True,
                                     suppress_health_check=list(HealthCheck))
    return cls


SEEDS = ("bacchus", "bali", "klink")   # the library's other games run in the slow run
# the default run: 12 machines of 50 steps for each seed game; the slow run: 30 for every game
DEFAULT_EXAMPLES, SLOW_EXAMPLES = 12, 30


@pytest.mark.parametrize("name,examples",
                         [(n, DEFAULT_EXAMPLES) for n in sorted(GAMES) if n in SEEDS]
                         + [pytest.param(n, SLOW_EXAMPLES, marks=pytest.mark.slow) for n in sorted(GAMES)])
def test_game_state_machine(name, examples):
    _machine(name, examples).TestCase().runTest()


def test_the_games_load():
    assert "bacchus" in GAMES
