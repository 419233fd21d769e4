"""At the table: transcripts of logs (`gamespec show`, `run --verbose`) and the terminal game
(`gamespec play`, needs the `play` extra: rich)."""
from __future__ import annotations

from .transcript import Labels, log_transcript, omniscient, render_line, transcript

__all__ = ["Labels", "log_transcript", "omniscient", "render_line", "transcript"]
