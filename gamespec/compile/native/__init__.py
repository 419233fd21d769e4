"""The native backend's generator: a Ruleset → one C translation unit (docs/native.md).

Imported only when a native game is played (never by `gamespec validate` or `import gamespec`)."""
from __future__ import annotations

from .errors import NativeUnsupported
from .program import generate

__all__ = ["NativeUnsupported", "generate"]
