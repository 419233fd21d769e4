"""Spec file → Game: the pipeline load (yamlsafe) → validate (schema) → check → graph, in one call."""
from __future__ import annotations

import hashlib

from .spec import graph as _graph
from .spec.structure import Checker
from .errors import SpecError, SpecErrors
from .game import Game
from .spec.presentation import resolve as presentation
from .spec.schema import validate
from .spec.yamlsafe import load_yaml


def load_text(text: bytes | str, filename: str = "<spec>") -> Game:
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    sha = hashlib.sha256(raw).hexdigest()
    try:
        data = load_yaml(raw, filename)
    except SpecError as e:
        raise SpecErrors([e]) from None
    validate(data, filename)
    checker = Checker(data, filename, sha)
    spec = checker.run()
    spec.checker = checker      # Game.evaluate reuses its names
    spec.presentation = presentation(spec, data, filename)     # how tables draw it (docs/web.md)
    g = _graph.build(spec)
    _graph.check(spec, g, data, filename)
    spec.graph = g
    return Game(spec)


def load(path) -> Game:
    """Load, validate, check and compile-check a spec file; raises SpecErrors with FILE:LINE:COL lines."""
    from .spec.yamlsafe import read_limited
    try:
        raw = read_limited(str(path))
    except SpecError as e:
        raise SpecErrors([e]) from None
    return load_text(raw, str(path))
