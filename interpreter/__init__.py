"""The generic interpreter: runs any compiled spec (state, legal actions, effects, observations, views).

`State` and `Action` load on first use (PEP 562), so that importing a leaf (`gamespec.interpreter.rng`,
`gamespec.interpreter.runtime`) loads nothing else.
"""
from __future__ import annotations

__all__ = ["Action", "State"]


def __getattr__(name):
    if name in __all__:
        from . import state
        value = getattr(state, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'gamespec.interpreter' has no attribute {name!r}")
