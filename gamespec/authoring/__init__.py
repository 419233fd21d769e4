"""Authoring tools, one face: the reference, specs to start from, the rulebook from a spec, lints, schemas.

    from gamespec import authoring
    authoring.spec_schema_text()            # the spec JSON Schema (gamespec schema)
    authoring.write_new("mygame", "trick-taking")
    authoring.explain(game, players=3, options={}, fmt="md")
    authoring.lint("games/mygame.yaml")     # [Finding]
    authoring.format_schema("observation")  # JSON Schemas of the output formats

Everything is imported lazily: importing this package costs nothing at `gamespec validate` time.
"""
from __future__ import annotations

FORMATS = ("observation", "log", "log-for", "state")


def spec_schema_text() -> str:
    from importlib import resources
    return resources.files("gamespec").joinpath("schema.json").read_text(encoding="utf-8")


def format_schema(name: str) -> dict:
    """The JSON Schema of an output format: observation, log (full log line), log-for, state."""
    import json
    from importlib import resources
    if name not in FORMATS:
        raise ValueError(f"unknown format '{name}' (formats: {', '.join(FORMATS)})")
    return json.loads(resources.files("gamespec.authoring").joinpath(f"schemas/{name}.json").read_text(encoding="utf-8"))


def write_new(name, template=None, force=False):
    from .starters import DEFAULT_TEMPLATE, write_new as _w
    return _w(name, template or DEFAULT_TEMPLATE, force)


def templates() -> dict:
    from .starters import TEMPLATES
    return dict(TEMPLATES)


def explain(game, players=None, options=None, fmt="md") -> str:
    from .rulebook import explain as _e
    return _e(game, players, options, fmt)


def lint(path, games=None, progress=None):
    from .lints import SAMPLE_GAMES, lint as _l
    return _l(path, games=SAMPLE_GAMES if games is None else games, progress=progress)
