"""Spec file → Game: the pipeline load (yamlsafe) → validate (schema) → check → graph, in one call."""
from __future__ import annotations

import hashlib

from . import graph as _graph
from .checker import Checker
from .errors import SpecError, SpecErrors
from .game import Game
from .schema import validate
from .yamlsafe import load_yaml


def load_text(text: bytes | str, filename: str = "<spec>", backend: str | None = None) -> Game:
    """`backend`: None (the default, generated Python), "closures" (the reference) or "native"
    (playouts, simulations and search rollouts in compiled C: docs/native.md)."""
    from .game import check_backend
    check_backend(backend)
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
    g = _graph.build(spec)
    _graph.check(spec, g, data, filename)
    spec.graph = g
    return Game(spec, backend=backend)


def load(path, backend: str | None = None) -> Game:
    """Load, validate, check and compile-check a spec file; raises SpecErrors with FILE:LINE:COL lines.
    `backend`: as for load_text ("native": docs/native.md)."""
    from .game import check_backend
    from .yamlsafe import read_limited
    check_backend(backend)
    try:
        raw = read_limited(str(path))
    except SpecError as e:
        raise SpecErrors([e]) from None
    return load_text(raw, str(path), backend=backend)
