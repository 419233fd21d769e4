"""gamespec: card games as checked YAML specs, run by a generic interpreter.

    game = gamespec.load("games/mygame.yaml")
    state = game.new_game(players=4, seed=1)
    while not state.is_terminal:
        state.apply(state.legal_actions()[0])
"""
from __future__ import annotations

# The public face (docs/api.md), loaded on first use (PEP 562): importing a leaf module such as
# gamespec.errors or gamespec.interpreter.rng loads no parser, no checker and no Lark.
_FACE = {"load": "loader", "load_text": "loader", "Game": "game"}
# every error gamespec raises: gamespec.errors.__all__, spelled again so that this face imports nothing
# (tests/test_layers.py holds the two lists equal)
_ERRORS = ("GamespecError", "SpecError", "SpecErrors", "SpecRuntimeError", "UsageError", "IllegalAction",
           "StateFormatError", "BotError", "SpecNotFound", "MissingExtra", "GameTooLong", "Unfinished",
           "DrawError", "RecordsError", "ReportError", "ActionSpaceError", "ReplayDivergence", "WebError",
           "GameFailed", "UndoRefused", "NativeGameStopped")
_FACE.update(dict.fromkeys(_ERRORS, "errors"))

__all__ = ["load", "load_text", "Game", *_ERRORS, "__version__"]


class _Beside:
    """In a checkout, the run time sits beside this package (interpreter/, as grammar/ does) and is
    imported as gamespec.interpreter, the name it is installed under (pyproject.toml's package-dir):
    one top-level name, `gamespec`, and no clash with another distribution's `interpreter`. Answers for
    that one name only; installed, gamespec/interpreter/ exists and this finder is never added."""

    def __init__(self, folder):
        self.folder = folder

    def find_spec(self, name, path=None, target=None):
        if name != __name__ + ".interpreter":
            return None
        import os
        from importlib.util import spec_from_file_location
        return spec_from_file_location(name, os.path.join(self.folder, "__init__.py"),
                                       submodule_search_locations=[self.folder])


def _add_beside():
    import os     # already loaded by the interpreter's start; imported here to keep this face import-free
    import sys
    here = os.path.dirname(os.path.abspath(__file__))
    folder = os.path.join(os.path.dirname(here), "interpreter")
    if not os.path.isdir(os.path.join(here, "interpreter")) and os.path.isfile(os.path.join(folder, "__init__.py")) \
            and not any(type(f).__name__ == "_Beside" for f in sys.meta_path):
        sys.meta_path.append(_Beside(folder))


_add_beside()


def __getattr__(name):
    module = _FACE.get(name)
    if module is not None:
        from importlib import import_module
        value = getattr(import_module(f"{__name__}.{module}"), name)
        globals()[name] = value      # once: later lookups do not come here
        return value
    # The version lives in pyproject.toml only: read from the installed metadata, on first use (the
    # import of importlib.metadata is not paid by `gamespec validate`).
    if name == "__version__":
        return _version()
    raise AttributeError(f"module 'gamespec' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_FACE) | {"__version__"})


def _version() -> str:
    from importlib import metadata
    try:
        return metadata.version("gamespec")
    except metadata.PackageNotFoundError:   # a checkout that is not installed: its pyproject.toml
        import os
        import re
        path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "pyproject.toml")
        try:
            with open(path, encoding="utf-8") as f:
                m = re.search(r'^version\s*=\s*"([^"]+)"', f.read(), re.M)
        except OSError:
            m = None
        return m.group(1) if m else "unknown"
