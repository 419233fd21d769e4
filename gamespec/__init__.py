"""gamespec: card games as checked YAML specs, run by a generic interpreter.

    game = gamespec.load("games/mygame.yaml")
    state = game.new_game(players=4, seed=1)
    while not state.is_terminal:
        state.apply(state.legal_actions()[0])
"""
from .errors import (GamespecError, IllegalAction, SpecError, SpecErrors, SpecRuntimeError,
                     StateFormatError)
from .game import Game, UsageError
from .loader import load, load_text

__version__ = "0.1.0"
__all__ = ["load", "load_text", "Game", "GamespecError", "IllegalAction", "SpecError", "SpecErrors",
           "SpecRuntimeError", "StateFormatError", "UsageError"]
