"""What every agent interface shares: a spec or Game → (Game, players, options), final rewards, and
the import of an optional dependency that names its extra."""
from __future__ import annotations

from gamespec.errors import MissingExtra


def require(module: str):
    """Import an optional dependency or say which extra brings it."""
    import importlib
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingExtra(f"gamespec.envs needs {module.split('.')[0]}: pip install 'gamespec[rl]'") from None


def resolve(spec, players=None, options=None):
    """(Game, players, checked options) from a spec path or a loaded Game; bad players or options
    raise UsageError."""
    import gamespec
    from gamespec.game import Game
    game = spec if isinstance(spec, Game) else gamespec.load(str(spec))
    players = game.min_players if players is None else players
    opts = game.check_options(options)
    game.ruleset(players, opts)          # checks the player count
    return game, players, opts


def rewards(state, kind="win"):
    """Final rewards per player. 'win': +1 to each winner, -1 to each other player, 0 to everyone
    when all tie. 'score': the final score, negated when the lowest score wins (higher is better)."""
    P = state.num_players
    if kind == "score":
        sign = 1 if state.rs.winner == "highest" else -1
        return [float(sign * x) for x in state.scores]
    if kind != "win":
        from gamespec.errors import UsageError
        raise UsageError(f"reward is 'win' or 'score', not {kind!r}")
    if len(state.winners) == P:
        return [0.0] * P
    w = set(state.winners)
    return [1.0 if p in w else -1.0 for p in range(P)]


ENGINES = (None, "auto", "native", "python")


def native_kit(game, players, opts, engine=None):
    """The native per-step kit (gamespec.interpreter.native_step.StepKit) of (game, players, options),
    or None: `engine` None/"auto" uses it where the native library is available (else one line on
    stderr says why, and the Python engine plays), "python" never, "native" insists (UsageError
    with the reason if it cannot)."""
    from gamespec.errors import UsageError
    if engine not in ENGINES:
        raise UsageError(f"engine is 'auto', 'native' or 'python', not {engine!r}")
    if engine == "python":
        return None
    from gamespec.compile.cbuild import tell
    rs = game.ruleset(players, opts)
    kit = game.step_kit(players, opts)
    if isinstance(kit, str):
        if engine == "native":
            raise UsageError(f"the native engine is not available for {game.name} ({players} players): {kit}")
        tell(game, rs, kit)
        return None
    return kit
