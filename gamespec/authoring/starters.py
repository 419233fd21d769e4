"""Template name + game name → a commented spec to start from file (templates are package data)."""
from __future__ import annotations

import os
import re
from importlib import resources

TEMPLATES = {
    "take-that": "draw and play; thieves and bombs hit other players' vaults",
    "trick-taking": "follow suit, the highest card of the suit led wins the trick",
    "set-collection": "take cards from an open market; sets of a kind score more and more",
}
DEFAULT_TEMPLATE = "take-that"


class NewSpecError(Exception):
    """A request `gamespec new` cannot do: a usage error (code 2: unknown template, file exists,
    bad name) or a failure to write (code 1)."""

    def __init__(self, message, code=2):
        super().__init__(message)
        self.code = code


def template_text(template: str) -> str:
    if template not in TEMPLATES:
        import difflib

        from .library import ids
        games = ids()
        close = difflib.get_close_matches(template, list(TEMPLATES) + games, n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        raise NewSpecError(f"unknown template '{template}'{hint} (templates: {', '.join(TEMPLATES)}; or a "
                           f"library game: {', '.join(games)}; see gamespec list)")
    return resources.files("gamespec.authoring").joinpath(f"templates/{template}.yaml").read_text(encoding="utf-8")


SCHEMA_FILE = "gamespec.schema.json"   # written beside a new spec; its modeline names it (relative)


def schema_path() -> str:
    """The schema inside the installed package (the checker's; editors get editor_schema.py's form)."""
    import gamespec
    return os.path.join(os.path.dirname(os.path.abspath(gamespec.__file__)), "schema.json")


def spec_text(name: str, template: str = DEFAULT_TEMPLATE, path: str | None = None) -> str:
    """The spec to start from for `name`: its modeline names SCHEMA_FILE beside it (never a path into
    the installed package, which moves or vanishes with its virtualenv)."""
    from .library import ids, starter_text
    if template not in TEMPLATES and template in ids():      # a library game: its rules, to change
        return starter_text(template, SCHEMA_FILE)
    title = " ".join(w.capitalize() for w in re.split(r"[-_\s]+", name) if w) or "My Game"
    file = path or f"{name}.yaml"
    return (template_text(template).replace("$SCHEMA", SCHEMA_FILE).replace("$TITLE", title)
            .replace("$FILE", file))


def _schema_beside(spec_path) -> tuple:
    """Write SCHEMA_FILE beside the spec, the draft-07 editor schema (hover text on every key): (its
    path, 'written' | 'up to date' | 'refreshed' | 'left alone').
    An older gamespec schema there is refreshed; any other file of that name is not touched."""
    import json

    from .editor_schema import editor_schema_text
    path = os.path.join(os.path.dirname(spec_path) or ".", SCHEMA_FILE)
    text = editor_schema_text("7")     # the modeline is yaml-language-server's, which reads draft 07
    status = "written"
    if os.path.lexists(path):
        try:
            with open(path, encoding="utf-8") as f:
                old = f.read(1 << 22)
        except (OSError, UnicodeDecodeError):
            return path, "left alone"
        if old == text:
            return path, "up to date"
        try:
            ours = json.loads(old).get("$id") == json.loads(text)["$id"]
        except (ValueError, AttributeError, RecursionError):
            ours = False
        if not ours or not os.path.isfile(path) or os.path.islink(path):
            return path, "left alone"
        status = "refreshed"
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        raise NewSpecError(f"cannot write {path}: {e.strerror or e}", code=1) from None
    return path, status


def output_path(name: str) -> str:
    return name if name.endswith((".yaml", ".yml")) else f"{name}.yaml"


def write_new(name: str, template: str = DEFAULT_TEMPLATE, force: bool = False) -> str:
    """Write the spec to start from, NAME.yaml (or NAME if it ends in .yaml), and the schema beside
    it; returns the spec's path."""
    return write_starter(name, template, force)["file"]


def write_starter(name: str, template: str = DEFAULT_TEMPLATE, force: bool = False) -> dict:
    """write_new's work: {'file': the spec, 'schema': SCHEMA_FILE's path, 'schema_status': what was
    done to it (see _schema_beside)}."""
    if not name or not re.match(r"^[\w./\\-]+$", name):
        raise NewSpecError(f"'{name}' is not a usable file name (letters, digits, '-', '_', '.', '/')")
    path = output_path(name)
    base = os.path.splitext(os.path.basename(path))[0]
    text = spec_text(base, template, path)
    if os.path.exists(path) and not force:
        raise NewSpecError(f"{path} exists; pick another name or pass --force to overwrite it")
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        raise NewSpecError(f"cannot write {path}: {e.strerror or e}", code=1) from None
    schema, status = _schema_beside(path)
    return {"file": path, "schema": schema, "schema_status": status}
