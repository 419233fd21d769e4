"""Spec file → Game: the pipeline load (yamlsafe) → validate (schema) → check → graph, in one call;
and the spec file that goes with a log (`find_spec`)."""
from __future__ import annotations

import hashlib
import os
import stat

from gamespec.interpreter.replay import read_chunks

from .errors import SpecError, SpecErrors, SpecNotFound
from .game import Game
from .spec import graph as _graph
from .spec.presentation import resolve as presentation
from .spec.schema import validate, without_problems
from .spec.structure import Checker
from .spec.yamlsafe import load_yaml

__all__ = ["load", "load_text", "find_spec", "SpecNotFound"]   # the public face (docs/api.md)


def load_text(text: bytes | str, filename: str = "<spec>", backend: str | None = None) -> Game:
    """`backend`: None (the default, generated Python), "closures" (the reference) or "native"
    (playouts, simulations and search rollouts in compiled C: docs/native.md)."""
    from .game import check_backend
    check_backend(backend)
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
    return Game(spec, backend=backend)


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


def load(path, backend: str | None = None) -> Game:
    """Load, validate, check and compile-check a spec file; raises SpecErrors with FILE:LINE:COL lines.
    `backend`: as for load_text ("native": docs/native.md)."""
    from .game import check_backend
    from .spec.yamlsafe import read_limited
    check_backend(backend)
    try:
        raw = read_limited(str(path))
    except SpecError as e:
        raise SpecErrors([e]) from None
    return load_text(raw, str(path), backend=backend)


# -- the spec of a log -------------------------------------------------------------------------
MAX_SPEC_CANDIDATES = 200   # spec files beside a log that find_spec may hash


def _has_sha(path, sha, max_bytes) -> bool:
    """True if `path` is a regular file of at most max_bytes whose SHA-256 is `sha`. Opened without
    blocking (a FIFO or a device is refused by fstat before any read), read at most max_bytes + 1
    bytes, and nothing of it is ever shown: only its hash is compared."""
    import hashlib
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except (OSError, ValueError):
        return False
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > max_bytes:
            return False
        h = hashlib.sha256()
        size = 0
        for chunk in read_chunks(fd, max_bytes):
            h.update(chunk)
            size += len(chunk)
        return size <= max_bytes and h.hexdigest() == sha
    except OSError:
        return False
    finally:
        os.close(fd)


def _header_paths(header, log_path) -> list:
    """Where the header says the spec was: its path as written (relative to the working folder),
    and relative to the log's folder."""
    spec = header.get("spec")
    if not isinstance(spec, str) or not spec or len(spec) > 4096 or "\0" in spec:
        return []
    if os.path.isabs(spec):
        return [spec]
    return list(dict.fromkeys([spec, os.path.join(os.path.dirname(os.path.abspath(log_path)), spec)]))


def find_spec(header, log_path) -> str:
    """The spec of a log: the file at the header's 'spec' path (as written, then relative to the
    log's folder), else a .yaml file beside the log, whichever first has the header's SHA-256
    (SpecNotFound otherwise). A log from a stranger could name any file: a file is accepted only if
    it is a regular file under the spec size cap whose hash is the log's, and no file's contents
    are ever shown."""
    from .spec.yamlsafe import DEFAULT_MAX_BYTES
    sha = header.get("spec_sha256")
    if not isinstance(sha, str) or len(sha) != 64:
        raise SpecNotFound(f"the header of {log_path} has no spec_sha256; give --spec FILE")
    tried = _header_paths(header, log_path)
    for path in tried:
        if _has_sha(path, sha, DEFAULT_MAX_BYTES):
            return path
    folder = os.path.dirname(os.path.abspath(log_path))
    try:
        names = sorted(n for n in os.listdir(folder) if n.endswith((".yaml", ".yml")))
    except OSError as e:
        raise SpecNotFound(f"cannot list {folder}: {e.strerror or e}; give --spec FILE") from None
    for name in names[:MAX_SPEC_CANDIDATES]:
        path = os.path.join(folder, name)
        if _has_sha(path, sha, DEFAULT_MAX_BYTES):
            return path
    where = f"at the header's path {header['spec'][:200]!r} or " if tried else ""
    raise SpecNotFound(f"no spec file {where}beside {log_path} has the log's SHA-256 ({sha[:12]}...); "
                       "give --spec FILE")
