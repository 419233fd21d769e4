"""A progress bar (tqdm) on a stream: `bar(done, total)` as games finish; shown only when the stream
is a terminal and not turned off (--json, --no-progress). tqdm is imported only when shown."""
from __future__ import annotations


def is_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class ProgressBar:
    """Counts games over a whole study (a sweep adds its configurations' totals up front)."""

    def __init__(self, stream, total, enabled=True, desc="games", delay=0.5, interval=0.1):
        self.bar = None
        self.offset = 0                 # games of the configurations already done (a sweep)
        self.grows = not total          # 0: the caller learns the total as it goes
        if enabled and is_terminal(stream):
            from tqdm import tqdm
            self.bar = tqdm(total=total, file=stream, unit="game", desc=desc, leave=False,
                            dynamic_ncols=True, mininterval=interval, delay=delay, smoothing=0.1)

    def __call__(self, done, total):
        if self.bar is not None:
            if self.grows and self.bar.total != total:   # a total known only as it goes
                self.bar.total = total
            self.bar.update(self.offset + done - self.bar.n)

    def next_config(self, games):
        """The current configuration is over: the next one's counts start after its `games`."""
        self.offset += games

    def close(self):
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
