"""The blocks of seeds of a study → Ray tasks (each runs gamespec.simulate's block function on the
spec's text) → results fed in seed order to the accumulator and `on_result`, as for local workers.

A task whose worker dies is re-run by Ray (max_retries); a block's results come back once, from the
run that finished, so nothing is lost or counted twice. Ray is imported only here.
"""
from __future__ import annotations

import os
import time

from gamespec.errors import GamespecError

from gamespec import simulate as _sim

#: Ray re-runs a task this many times when its worker process or node dies.
MAX_RETRIES = 4

_remote_block = None


def _ray():
    try:
        import ray
    except ImportError:
        from gamespec.errors import UsageError
        raise UsageError("the Ray backend needs Ray: pip install 'gamespec[ray]'") from None
    return ray


def connect(address=None, workers=None):
    """Initialise Ray unless it already is; returns True if this call started it (then the caller
    shuts it down). address None: a local Ray with `workers` CPUs; "auto" or HOST:PORT: a cluster."""
    ray = _ray()
    if ray.is_initialized():
        return False
    kw = dict(include_dashboard=False, log_to_driver=False, logging_level="ERROR",
              configure_logging=True)
    if address not in (None, "auto") and "://" not in address:
        _reachable(address)         # Ray itself would retry for minutes
    try:
        if address is None:
            ray.init(num_cpus=workers or os.cpu_count() or 1, **kw)
        else:
            ray.init(address=address, **kw)
    except (ConnectionError, RuntimeError, ValueError) as e:
        where = "a local Ray" if address is None else f"the Ray cluster at {address}"
        raise GamespecError(f"cannot start or reach {where}: {e}") from None
    return True


def _reachable(address, timeout=5.0):
    """HOST:PORT accepts a TCP connection, else a GamespecError naming it."""
    import socket
    host, sep, port = address.rpartition(":")
    if not sep or not host or not port.isdigit():
        from gamespec.errors import UsageError
        raise UsageError(f"--address takes 'auto' or HOST:PORT, not {address!r}")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as e:
        raise GamespecError(f"cannot start or reach the Ray cluster at {address}: {e.strerror or e} "
                            "(is 'ray start --head' running there?)") from None


_counter_class = None


def _counter():
    """A Ray actor that adds up the decision counts the tasks send (progress within long games)."""
    global _counter_class
    if _counter_class is None:
        ray = _ray()

        @ray.remote(num_cpus=0)
        class Counter:
            def __init__(self):
                self.counts = [0, 0, 0]

            def add(self, d, g, fd):
                self.counts[0] += d
                self.counts[1] += g
                self.counts[2] += fd

            def read(self):
                return list(self.counts)
        _counter_class = Counter
    return _counter_class.remote()


class _Send:
    """A task's Ticks.send: one actor call, not waited for (picklable: an actor handle)."""

    def __init__(self, actor):
        self.actor = actor

    def __call__(self, d, g, fd):
        self.actor.add.remote(d, g, fd)


def _block_task():
    global _remote_block
    if _remote_block is None:
        ray = _ray()
        _remote_block = ray.remote(max_retries=MAX_RETRIES)(_sim._run_block)
    return _remote_block


def simulate(path, games=100, players=None, seed=0, options=None, workers=None, progress=None,
             game=None, bots=None, on_result=None, address=None, timeout=None, engine="python", trace=None) -> dict:
    """gamespec.simulate.simulate's contract, with the blocks played as Ray tasks."""
    import gamespec
    from gamespec.errors import UsageError
    from gamespec.spec.yamlsafe import read_limited

    path = os.fspath(path)
    if game is None:
        game = gamespec.load(path)
    players = game.min_players if players is None else players
    opts = game.check_options(options)
    game.ruleset(players, opts)
    _sim.check_timeout(timeout)
    if not isinstance(games, int) or games < 0:
        raise UsageError(f"the number of games is a whole number >= 0, not {games!r}")
    if workers is not None and (not isinstance(workers, int) or workers < 1):
        raise UsageError(f"the number of workers is a whole number >= 1, not {workers!r}")
    text = read_limited(path)
    ray = _ray()
    started = connect(address, workers)
    try:
        cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        size = _sim._block_size(games, cpus)
        blocks = [(first, min(size, seed + games - first)) for first in range(seed, seed + games, size)]
        acc = _sim.Accumulator(players)
        t0 = time.perf_counter()
        text_ref = ray.put(text)
        task = _block_task()
        counts = _sim.Counts() if _sim.wants_decisions(progress) else None
        actor = _counter() if counts is not None else None
        ticks = (_Send(actor), _sim.TICK_SECONDS) if actor is not None else None
        refs = {task.remote(path, game.spec.sha256, players, opts, first, count, bots, text_ref, timeout,
                            ticks, engine, trace): first
                for first, count in blocks}
        collect = _sim.InOrder(blocks, acc, on_result)
        try:
            while refs:
                ready, _ = ray.wait(list(refs), num_returns=1,
                                    timeout=None if counts is None else max(0.05, 2 * _sim.TICK_SECONDS))
                for ref in ready:
                    refs.pop(ref)
                    try:
                        first, results = ray.get(ref)
                    except ray.exceptions.RayError as e:
                        raise GamespecError(f"a Ray task failed (after {MAX_RETRIES} retries): "
                                            f"{type(e).__name__}: {e}") from None
                    collect.add(first, results)
                if counts is not None:
                    counts.decisions, counts.games, counts.finished_decisions = ray.get(actor.read.remote())
                _sim.report_progress(progress, collect.done, games, counts)
        except BaseException:
            for ref in refs:
                try:
                    ray.cancel(ref, force=True)
                except Exception:       # noqa: BLE001 - already finished or gone: nothing to stop
                    pass
            raise
        seconds = time.perf_counter() - t0
        if actor is not None:     # the actor may not have counted the last sends yet: the totals are known
            counts.decisions = max(counts.decisions, acc.decisions)
            counts.finished_decisions = max(counts.finished_decisions, acc.decisions)
            _sim.report_progress(progress, collect.done, games, counts)
            ray.kill(actor)
    finally:
        if started:
            ray.shutdown()
    return _sim.summary(game, path, players, opts, seed, games, acc, seconds, cpus, engine)
