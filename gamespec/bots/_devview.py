"""TEMPORARY development adapter until the real state.view() lands (branch hidden). REMOVE."""
from __future__ import annotations


class _PA:
    def __init__(self, a, i):
        self.index = i
        self.name = a.name
        self.label = a.label
        self._j = a.to_json()

    def to_json(self):
        return dict(self._j)


class DevView:
    def __init__(self, state, p):
        self._s = state
        self.player = p
        self.num_players = state.num_players
        self.to_move = state.current_player
        self.is_terminal = state.is_terminal
        self.phase = state.phase_name
        self.observation = state.observation(p)
        self.legal_actions = ([_PA(a, i) for i, a in enumerate(state.legal_actions())]
                              if state.current_player == p else [])

    def determinize(self, rng):
        return self._s.clone()


def view_of(state, p):
    if hasattr(state, "view"):
        return state.view(p)
    return DevView(state, p)
