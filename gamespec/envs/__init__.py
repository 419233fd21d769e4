"""Agent interfaces over any spec: a PettingZoo AEC environment and an OpenSpiel game (docs/agents.md).

Needs the `rl` extra (`pip install 'gamespec[rl]'`); nothing is imported until asked for.
"""
from __future__ import annotations

from .common import MissingExtra, require, resolve, rewards  # noqa: F401 - the package's face

__all__ = ["pettingzoo_env", "VectorEnv", "observation_layout", "MissingExtra", "rewards"]   # the public face (docs/api.md)


def pettingzoo_env(spec, players=None, options=None, reward="win", seed=None, render_mode=None, engine=None):
    """A PettingZoo AEC environment of the game (gamespec.envs.pz.GamespecAEC). `engine`: None (the
    native per-step state where the native library is available), "native" or "python"."""
    from .pz import GamespecAEC
    game, players, opts = resolve(spec, players, options)
    return GamespecAEC(game, players, opts, reward=reward, seed=seed, render_mode=render_mode, engine=engine)


def VectorEnv(spec, players=None, num_envs=1, seed=0, options=None, **kw):   # noqa: N802 - a class's face
    """Many games stepped in C at once (gamespec.envs.vector.VectorEnv; docs/agents.md)."""
    from .vector import VectorEnv as _V
    game, players, opts = resolve(spec, players, options)
    return _V(game, players, opts, num_envs=num_envs, seed=seed, **kw)


def observation_layout(spec, players=None, options=None):
    """[(name, offset, shape)] of the observation tensor at (players, options)."""
    from gamespec.interpreter.obs_tensor import encoder
    game, players, opts = resolve(spec, players, options)
    return list(encoder(game.ruleset(players, opts)).layout)
