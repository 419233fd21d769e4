"""Why the native compiler cannot take a spec (the game then stays on the Python engine)."""
from __future__ import annotations


class NativeUnsupported(Exception):
    """A construct or a size the native compiler does not handle; str() says what, in a few words."""


class SourceTooLarge(Exception):
    """The generated C is over the size bound (program.MAX_SOURCE_BYTES): refused before any compiler
    runs, since a compiler's time grows with it (about 10 s of CPU per MB at -O2)."""

    def __init__(self, size, limit, more=False):
        super().__init__(f"the generated C would be {'more than ' if more else ''}{size / 1e6:.1f} MB, "
                         f"over the limit of {limit / 1e6:g} MB")
        self.size = size
