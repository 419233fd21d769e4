"""Authoring tools, one face: the reference, specs to start from, the rulebook from a spec, lints, schemas.

    from gamespec import authoring
    authoring.spec_schema_text()            # the spec JSON Schema the checker uses
    authoring.schema_text("spec", draft="7")   # gamespec schema: the same for editors, with hover text
    authoring.write_new("mygame", "trick-taking")
    authoring.explain(game, players=3, options={}, fmt="md")
    authoring.lint("games/mygame.yaml")     # [Finding]
    authoring.format_schema("observation")  # JSON Schemas of the output formats
    authoring.check_file("games/mygame.yaml", strict=True)   # validate + lints: a report entry

Everything is imported lazily: importing this package costs nothing at `gamespec validate` time.
"""
from __future__ import annotations

__all__ = ["explain", "lint", "check_file", "write_new", "templates", "schema_text", "format_schema", "spec_schema_text", "FORMATS"]   # the public face (docs/api.md)

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


def schema_text(name: str = "spec", draft: str = "2020-12") -> str:
    """The spec JSON Schema ("spec": for editors, every key with its reference text as `description`)
    or an output format's (see format_schema), as a file's text; in JSON Schema draft 2020-12 (the
    checker's) or "7" (what yaml-language-server reads). See editor_schema.py."""
    from . import editor_schema as es
    draft = es.check_draft(draft)
    if name == "spec":
        return es.editor_schema_text(draft)
    return es.text(es.convert(format_schema(name), draft))


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


def check_file(path, strict=False, games=None, progress=None) -> dict:
    """`gamespec check` for one file: validate's errors (every player count and option set compiled),
    then with `strict` and no error the lints (`games` sample games each for the deduction lint).
    Returns {file, ok, errors, warnings, allowed (the findings the spec acknowledges, with its
    reason)}, each a dict with its `text`. `progress()` gives a progress
    bar (a context manager) for the sample games, or is None."""
    import contextlib

    import gamespec
    from gamespec.validation import compile_all, error_entry
    entry = {"file": path, "ok": True, "errors": [], "warnings": [], "allowed": []}
    try:
        game = gamespec.load(path)
        entry["errors"], _ = compile_all(game, path)
        if strict and not entry["errors"]:
            with progress() if progress is not None else contextlib.nullcontext() as bar:
                found = lint(path, games=games, progress=bar)
            entry["warnings"] = [w.to_json() | {"text": str(w)} for w in found if not w.allowed]
            entry["allowed"] = [w.to_json() | {"text": str(w)} for w in found if w.allowed]
    except gamespec.SpecErrors as e:
        entry["errors"] = [error_entry(x) for x in e.errors]
    entry["ok"] = not entry["errors"]
    return entry
