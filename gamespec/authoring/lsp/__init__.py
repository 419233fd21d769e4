"""`gamespec lsp`: a language server for spec files (docs/editors.md).

    analysis.py   text -> Analysis: the checker's errors (the loader's pipeline, FILE:LINE:COL), every
                  declaration and every use of a name (YAML marks, Lark tokens of the rule strings),
                  and the queries an editor asks (completion, hover, definition, references, rename,
                  semantic tokens), in plain Python: no pygls, testable alone
    server.py     the pygls server: documents, debounced checks, the LSP messages (needs the `lsp` extra)

An app above the front end: it reads the spec the way `validate` does and never runs a game.
"""
from __future__ import annotations

__all__ = ["analyze", "serve"]


def analyze(text: str, filename: str = "<spec>"):
    """The Analysis of one spec's text (gamespec.authoring.lsp.analysis.Analysis)."""
    from .analysis import analyze as _a
    return _a(text, filename)


def serve(tcp: int | None = None, host: str = "127.0.0.1") -> None:
    """Run the language server on stdio (or on a TCP port); needs pygls (`pip install 'gamespec[lsp]'`)."""
    from .server import serve as _s
    _s(tcp=tcp, host=host)
