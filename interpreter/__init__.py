"""The generic interpreter: runs any compiled spec (state, legal actions, effects, observations, bots)."""
from .state import Action, State

__all__ = ["Action", "State"]
