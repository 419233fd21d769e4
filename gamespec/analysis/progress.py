"""Progress of long work on a stream (stderr): `bar(done, total, decisions=, finished_decisions=)` as
games are played → games done, decisions made (in games still going too: an ISMCTS game takes
minutes), their rate and an ETA. On a terminal a tqdm bar (tqdm imported only then); elsewhere
nothing, unless forced (`--progress`): then a plain line every few seconds. Never on stdout, so
never in `--json` output."""
from __future__ import annotations

import time


def is_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def clock(seconds) -> str:
    """0:07, 12:30, 3:04:05."""
    s = int(round(seconds))
    h, s = divmod(s, 3600)
    m, s = divmod(s, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


class ProgressBar:
    """Counts games over a whole study (a sweep adds its configurations' totals up front) and the
    decisions the games have made so far; the ETA comes from the decisions (their rate, and the
    decisions a finished game took on average) once a game has finished, else from the games."""

    counts_decisions = True      # gamespec.simulate passes decision counts to such a callback

    def __init__(self, stream, total, enabled=True, desc="games", delay=0.5, interval=0.1, force=False,
                 line_seconds=5.0):
        self.bar = None
        self.stream = stream
        self.desc = desc
        self.total = total
        self.offset = 0                 # games of the configurations already done (a sweep)
        self.d_offset = self.fd_offset = 0
        self.games = 0
        self.decisions = None           # None: the caller gives no decision counts
        self.finished_decisions = 0
        self.grows = not total          # 0: the caller learns the total as it goes
        self.start = time.monotonic()
        self.lines = False
        self.line_seconds = line_seconds
        self.last_line = self.start
        if enabled and is_terminal(stream):
            from tqdm import tqdm
            fmt = None if self.grows else "{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} [{elapsed}, {rate_fmt}{postfix}]"
            self.bar = tqdm(total=total, file=stream, unit="game", desc=desc, leave=False, bar_format=fmt,
                            dynamic_ncols=True, mininterval=interval, delay=delay, smoothing=0.1)
        elif enabled and force:
            self.lines = True

    @property
    def shown(self) -> bool:
        return self.bar is not None or self.lines

    def __call__(self, done, total, decisions=None, finished_decisions=None):
        if not self.shown:
            return
        if self.grows:
            self.total = total
        self.games = self.offset + done
        if decisions is not None:
            self.decisions = self.d_offset + decisions
            self.finished_decisions = self.fd_offset + (finished_decisions or 0)
        if self.bar is not None:
            if self.grows and self.bar.total != total:   # a total known only as it goes
                self.bar.total = total
            if not self.grows:
                self.bar.set_postfix_str(self.status(), refresh=False)
            self.bar.update(self.games - self.bar.n)
        elif time.monotonic() - self.last_line >= self.line_seconds:
            self.print_line()

    def eta(self):
        """Seconds still to go, or None (not known yet)."""
        total, games = self.total, self.games
        if not total:
            return None
        if games >= total:
            return 0.0
        elapsed = time.monotonic() - self.start
        if self.decisions and self.finished_decisions and games:
            expected = self.finished_decisions / games * total     # decisions the whole study takes
            return max(0.0, expected - self.decisions) / (self.decisions / elapsed) if elapsed > 0 else None
        if games:
            return elapsed * (total - games) / games
        return None

    def status(self) -> str:
        """'1,234 decisions (56.1/s), ETA 2:10' (what the bar shows after its count)."""
        parts = []
        elapsed = max(1e-9, time.monotonic() - self.start)
        if self.decisions is not None:
            parts.append(f"{self.decisions:,} decisions ({self.decisions / elapsed:,.1f}/s)")
        eta = self.eta()
        parts.append("ETA " + (clock(eta) if eta is not None else "after the first game"))
        return ", ".join(parts)

    def print_line(self):
        self.last_line = time.monotonic()
        total = f"/{self.total}" if self.total else ""
        print(f"{self.desc}: {self.games}{total} games, elapsed {clock(self.last_line - self.start)}, "
              f"{self.status()}", file=self.stream, flush=True)

    def next_config(self, games):
        """The current configuration is over: the next one's counts start after its `games`."""
        self.offset += games
        if self.decisions is not None:
            self.d_offset, self.fd_offset = self.decisions, self.finished_decisions

    def close(self):
        if self.bar is not None:
            self.bar.close()
            self.bar = None
        elif self.lines:
            self.print_line()
            self.lines = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
