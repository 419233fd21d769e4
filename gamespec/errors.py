"""Error types shared by every stage: spec errors carry FILE:LINE:COL, run-time errors name the rule."""
from __future__ import annotations

# the public face (docs/api.md): every error gamespec raises on purpose, defined here, re-exported
# by the modules that raise them (`from gamespec.simulate import Unfinished` still works)
__all__ = ["GamespecError", "SpecError", "SpecErrors", "SpecRuntimeError", "UsageError", "IllegalAction",
           "StateFormatError", "BotError", "SpecNotFound", "MissingExtra", "GameTooLong", "Unfinished",
           "DrawError", "RecordsError", "ReportError", "ActionSpaceError", "ReplayDivergence", "WebError",
           "GameFailed", "UndoRefused", "NativeGameStopped"]


class GamespecError(Exception):
    """Base class of every error gamespec raises on purpose."""


class SpecError(GamespecError):
    """One problem in a spec file, at a position: prints as `FILE:LINE:COL: error: message`."""

    def __init__(self, message: str, filename: str = "<spec>", line: int = 1, col: int = 1,
                 check: str = "spec"):
        super().__init__(message)
        self.message = message
        self.filename = filename
        self.line = line
        self.col = col
        self.check = check  # which check fired (tests assert on it)

    def __str__(self) -> str:
        return f"{self.filename}:{self.line}:{self.col}: error: {self.message}"

    def __reduce__(self):   # picklable, so worker processes can send errors back
        return (SpecError, (self.message, self.filename, self.line, self.col, self.check))


class SpecErrors(GamespecError):
    """Several spec errors found in one pass, reported together, in file order."""

    def __init__(self, errors: list[SpecError]):
        self.errors = sorted(errors, key=lambda e: (e.filename, e.line, e.col))
        super().__init__("\n".join(str(e) for e in self.errors))

    def __str__(self) -> str:
        return "\n".join(str(e) for e in self.errors)

    def __reduce__(self):
        return (SpecErrors, (self.errors,))


class SpecRuntimeError(GamespecError):
    """A rule failed while the game ran (loop budget, division by zero, no legal action...)."""

    def __init__(self, message: str, where: str = "", check: str = "runtime"):
        super().__init__(message)
        self.message = message
        self.where = where
        self.check = check

    def __str__(self) -> str:
        return f"{self.where}: error: {self.message}" if self.where else f"error: {self.message}"

    def __reduce__(self):
        return (SpecRuntimeError, (self.message, self.where, self.check))


class UsageError(GamespecError, ValueError):
    """A bad request to a valid game (player count, option value, seed, a bot's name)."""


class IllegalAction(GamespecError):
    """An action that is not legal in this state; the state is left unchanged."""


class StateFormatError(GamespecError):
    """A saved state or log that is corrupted, tampered with or from another spec."""


class BotError(GamespecError):
    """A bot that cannot be made (bad kind, unloadable class) or that answered with no legal action."""


class SpecNotFound(GamespecError):
    """No spec file beside a log has the log's SHA-256 (the caller may ask for the spec's path)."""


class MissingExtra(GamespecError, ImportError):
    """An optional dependency of gamespec.envs is not installed."""


class GameTooLong(GamespecError):
    """A game longer than the max_game_length declared to OpenSpiel (state unchanged)."""


class Unfinished(GamespecError):
    """Random moves did not finish any sample game: a simulation would only hit the game's budgets."""


class DrawError(GamespecError):
    """The picture cannot be made: too large, or no program to draw it with."""


class RecordsError(GamespecError):
    """A records file that cannot be written or read (named, with the line)."""


class ReportError(GamespecError):
    """A report that cannot be made (matplotlib missing, no records)."""


class ActionSpaceError(GamespecError, ValueError):
    """The spec's actions have no finite static numbering of acceptable size."""


class ReplayDivergence(SpecRuntimeError):
    """The game and the log disagree. A SpecRuntimeError so that the rule running the shuffle lets it
    through unchanged, like any run-time error."""


class WebError(GamespecError):
    """A request the server refuses; `.status` is its HTTP status, `.kind` a short machine name."""

    def __init__(self, message, status=400, kind="bad-request"):
        super().__init__(message)
        self.status = status
        self.kind = kind


class GameFailed(GamespecError):
    """A game that failed while set up or played; the message names its seed (to repeat it)."""


class UndoRefused(GamespecError):
    """The rule refuses the undo; `.kind`: game-over, undo-too-late, undo-revealed (the decision made something
    known) or undo-shuffled."""

    def __init__(self, message, kind):
        super().__init__(message)
        self.kind = kind


class NativeGameStopped(GamespecError):
    """A game of a vector environment that the C code stopped (a fault of the spec, or a case it
    leaves to Python): the seed says which; the per-step state
    (`gamespec.envs.common.native_kit(...).new_game(seed)`) plays it on the Python engine, which gives
    its own error. Raised by gamespec.envs.vector."""
