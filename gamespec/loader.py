"""Spec file → Game: the pipeline load (yamlsafe) → validate (schema) → check → graph, in one call."""
from __future__ import annotations

import hashlib

from .spec import graph as _graph
from .spec.structure import Checker
from .errors import SpecError, SpecErrors
from .game import Game
from .spec.presentation import resolve as presentation
from .spec.schema import validate, without_problems
from .spec.yamlsafe import load_yaml


def load_text(text: bytes | str, filename: str = "<spec>") -> Game:
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    sha = hashlib.sha256(raw).hexdigest()
    try:
        data = load_yaml(raw, filename, keep_going=True)
    except SpecError as e:
        raise SpecErrors([e]) from None
    # Every independent error in one run: a duplicate key keeps its first value, a part the schema
    # refuses is left out, and the rest is checked all the same; an error that only names a part
    # left out (`unknown zone 'deck'`) is its consequence and is not reported again.
    first = list(getattr(data, "soft_errors", ()))
    left_out = set()
    try:
        validate(data, filename)
    except SpecErrors as e:
        first += e.errors
        data, left_out = without_problems(data, getattr(e, "paths", []))
        if data is None:
            raise SpecErrors(first) from None
        try:
            validate(data, filename)
        except SpecErrors:
            raise SpecErrors(first) from None
    try:
        spec, g = _check(data, filename, sha)
    except SpecErrors as e:
        later = [x for x in e.errors if not any(f"'{name}'" in x.message for name in left_out)]
        raise SpecErrors(first + later) from None
    if first:
        raise SpecErrors(first)
    return Game(spec)


def _check(data, filename, sha):
    """Schema-valid data → (Spec, phase graph): check, presentation hints, graph."""
    checker = Checker(data, filename, sha)
    spec = checker.run()
    spec.checker = checker      # Game.evaluate reuses its names
    spec.presentation = presentation(spec, data, filename)     # how tables draw it (docs/web.md)
    g = _graph.build(spec)
    _graph.check(spec, g, data, filename)
    spec.graph = g
    return spec, g


def load(path) -> Game:
    """Load, validate, check and compile-check a spec file; raises SpecErrors with FILE:LINE:COL lines."""
    from .spec.yamlsafe import read_limited
    try:
        raw = read_limited(str(path))
    except SpecError as e:
        raise SpecErrors([e]) from None
    return load_text(raw, str(path))
