"""Spec path + configuration + seeds + backend → every game's result in seed order → record rows (to a
file as they come) and a summary. The games themselves are played by gamespec.simulate (local
workers) or by the same block function in Ray tasks (ray_backend)."""
from __future__ import annotations

import os

from gamespec import simulate as _sim

from .records import RecordWriter, make_record
from .stats import Summary, config_key

BACKENDS = ("local", "ray")


def run_study(path, games=100, players=None, seed=0, options=None, workers=None, bots=None,
              backend="local", address=None, records=None, progress=None, game=None, timeout=None,
              engine="python", probe=True) -> dict:
    """Play one configuration; returns simulate()'s report plus 'summary' (stats.Summary's dict).

    `records`: a RecordWriter (rows are written to it in seed order, as games finish) or None.
    `progress(done, total)` as games finish. `backend`: "local" (worker processes) or "ray"
    (`address`: None starts a local Ray, "auto" or HOST:PORT joins a cluster). `engine`: "python" or
    "native" (docs/native.md: the same results, faster). `probe`: with random
    bots, first check that random moves finish the game (gamespec.simulate.Unfinished if not).
    """
    import gamespec
    from gamespec.errors import UsageError

    if backend not in BACKENDS:
        raise UsageError(f"unknown backend {backend!r} (known: {', '.join(BACKENDS)})")
    path = os.fspath(path)
    if game is None:
        game = gamespec.load(path)
    players = game.min_players if players is None else players
    opts = game.check_options(options)
    kinds = list(bots) if bots is not None else ["random"] * players
    if len(kinds) != players:
        raise UsageError(f"{len(kinds)} bot kinds for {players} seats")
    from gamespec.bots import make_bots
    make_bots(kinds, 0)              # an unknown kind is a usage error now, not in every game
    coop = bool(getattr(game.spec, "cooperative", False))
    sha = game.spec.sha256
    summary = None

    def on_result(r):
        nonlocal summary
        rec = make_record(r, game.name, sha, players, opts, coop)
        if summary is None:
            summary = Summary(config_key(rec))
        summary.add(rec)
        if records is not None:
            records.write(rec)

    if backend == "local":
        out = _sim.simulate(path, games=games, players=players, seed=seed, options=opts, workers=workers,
                            progress=progress, game=game, bots=kinds, on_result=on_result, timeout=timeout,
                            engine=engine, probe=probe)
    else:
        if probe and games:
            _sim.check_finishes(game, players, opts, kinds)
        from . import ray_backend
        out = ray_backend.simulate(path, games=games, players=players, seed=seed, options=opts,
                                   workers=workers, progress=progress, game=game, bots=kinds,
                                   on_result=on_result, address=address, timeout=timeout, engine=engine)
    if summary is None:
        summary = Summary((game.name, players, tuple(sorted(opts.items())), tuple(kinds)))
        summary.cooperative = coop
    out["bots"] = kinds
    out["backend"] = backend
    out["summary"] = summary.result()
    return out


def open_records(path):
    """A RecordWriter for `path` (.jsonl or .csv), or None for no path."""
    return None if path is None else RecordWriter(path)


def run_sweep(path, sweep, games=100, players=None, seed=0, options=None, workers=None, bots=None,
              backend="local", address=None, records=None, progress=None, game=None, timeout=None,
              engine="python", probe=True) -> list:
    """Run every configuration of the grid `sweep` ([(name, [text values])], see sweep.parse_sweep)
    with the same seeds; returns run_study's result per configuration. `progress` may be a
    ProgressBar (its count then runs over the whole sweep)."""
    import gamespec

    from .sweep import grid

    path = os.fspath(path)
    if game is None:
        game = gamespec.load(path)
    configs = grid(game, sweep, players, options)
    started = False
    if backend == "ray":
        from . import ray_backend
        started = ray_backend.connect(address, workers)     # once for the whole sweep
    try:
        outs = []
        for p, opts in configs:
            kinds = bots(p) if callable(bots) else (bots if bots is not None and len(bots) == p else None)
            outs.append(run_study(path, games=games, players=p, seed=seed, options=opts, workers=workers,
                                  bots=kinds, backend=backend, address=address, records=records,
                                  progress=progress, game=game, timeout=timeout, engine=engine, probe=probe))
            if hasattr(progress, "next_config"):
                progress.next_config(games)
    finally:
        if started:
            import ray
            ray.shutdown()
    return outs


def simulate(game, path, games=100, players=None, seed=None, options=(), sweep=(), workers=None, bots=(),
             backend="local", address=None, records=None, progress=None, timeout=None, engine="python", probe=True) -> dict:
    """A whole `gamespec simulate` request, from its texts: `options` as (NAME, VALUE) pairs, `sweep`
    as NAME=V1,V2 texts, `bots` as SEAT=KIND texts, `records` a file path (.jsonl or .csv); `seed`
    None draws 64 bits of OS entropy (the result names it). `progress(total)` gives the progress bar
    (a context manager) for `total` games, or is None. Every bad request is a UsageError before any
    game is played. Returns {"sweep": [(name, values)], "configs": [run_study's result, ...]}."""
    import contextlib

    from gamespec.bots import bots_from_args, kinds_from_args
    from gamespec.config import options_from_pairs, player_count

    from .sweep import grid, parse_sweep
    axes = parse_sweep(sweep)
    if axes:
        configs = grid(game, axes, players, dict(options))
    else:
        configs = [(player_count(game, players), options_from_pairs(game, options))]
    if seed is None:
        import secrets
        seed = secrets.randbits(64)
    if bots:       # a bad kind or class fails here, once
        for p, _ in configs:
            bots_from_args(bots, p, seed)
    writer = RecordWriter(records) if records else None
    try:
        bar = progress(games * len(configs)) if progress is not None else None
        with bar if bar is not None else contextlib.nullcontext():
            common = dict(games=games, seed=seed, workers=workers, backend=backend, address=address,
                          records=writer, progress=bar, game=game, timeout=timeout, engine=engine, probe=probe)
            if axes:
                outs = run_sweep(path, axes, players=players, options=dict(options),
                                 bots=(lambda p: kinds_from_args(bots, p)) if bots else None, **common)
            else:
                p, opts = configs[0]
                outs = [run_study(path, players=p, options=opts,
                                  bots=kinds_from_args(bots, p) if bots else None, **common)]
    finally:
        if writer is not None:
            writer.close()
    if records:
        for r in outs:
            r["records"] = records
    return {"sweep": axes, "configs": outs}
