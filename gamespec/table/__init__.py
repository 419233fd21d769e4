"""At the table: one game with bots (`gamespec run`: table/run.py), transcripts of logs (`gamespec show`,
`run --verbose`) and the terminal game (`gamespec play`, needs the `play` extra: rich)."""
from __future__ import annotations

from .transcript import Labels, live, log_transcript, omniscient, render_line, show_log, transcript

__all__ = ["Labels", "live", "log_transcript", "omniscient", "render_line", "show_log", "transcript"]
