"""Why the native compiler cannot take a spec (the game then stays on the Python engine)."""
from __future__ import annotations


class NativeUnsupported(Exception):
    """A construct or a size the native compiler does not handle; str() says what, in a few words."""
