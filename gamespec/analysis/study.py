"""Spec path + configuration + seeds + backend → every game's result in seed order → record rows (to a
file as they come) and a summary. The games themselves are played by gamespec.simulate (local
workers) or by the same block function in Ray tasks (ray_backend)."""
from __future__ import annotations

import os

from gamespec import simulate as _sim

from .records import RecordWriter, make_record
from .stats import Summary, config_key, config_label

BACKENDS = ("local", "ray")


def rotations(lineup) -> list:
    """The distinct rotations of a line-up: [(r, seating)], rotation r seating kind lineup[i] at seat
    (i + r) mod P (all seats alike: one; [a, b, a, b]: two)."""
    P = len(lineup)
    out, seen = [], set()
    for r in range(P):
        seating = [None] * P
        for i, k in enumerate(lineup):
            seating[(i + r) % P] = k
        if tuple(seating) not in seen:
            seen.add(tuple(seating))
            out.append((r, seating))
    return out


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during a study: `partial` holds run_study's result for each configuration begun, of
    the games finished (the one running marked 'interrupted'); `records` the records file, if any
    (what --resume continues)."""

    def __init__(self, partial, records=None):
        super().__init__()
        self.partial = list(partial)
        self.records = records


def run_study(path, games=100, players=None, seed=0, options=None, workers=None, bots=None,
              backend="local", address=None, records=None, progress=None, game=None, timeout=None,
              engine="python", probe=True, rotate=False, restriction=None, trace=None, done=(), generator=None) -> dict:
    """Play one configuration; returns simulate()'s report plus 'summary' (stats.Summary's dict).

    `records`: a RecordWriter (rows are written to it in seed order, as games finish) or None.
    `progress(done, total)` as games finish. `backend`: "local" (worker processes) or "ray"
    (`address`: None starts a local Ray, "auto" or HOST:PORT joins a cluster). `engine`: "python" or
    "native" (docs/native.md: the same results, faster). `probe`: with random
    bots, first check that random moves finish the game (gamespec.simulate.Unfinished if not).
    `rotate`: play every seed once per distinct rotation of the line-up `bots` (rotations());
    `restriction`: the restricted kind of a restricted-play configuration (written in its records);
    `trace`: record each game's metrics (gamespec.simulate.traces: None = yes, on every engine; False: no);
    `done`: this configuration's rows already in the records file (--resume): they count in the
    summary and their games are not played again. `generator`: "fast" for splitmix64 shuffles and
    random seats (guessable, for studies: docs/native.md "Fast generator"; local backend only).
    """
    import gamespec
    from gamespec.errors import UsageError
    from gamespec.game import check_generator
    from gamespec.interpreter.rng import ALGORITHM

    if backend not in BACKENDS:
        raise UsageError(f"unknown backend {backend!r} (known: {', '.join(BACKENDS)})")
    generator = check_generator(generator)
    if generator != ALGORITHM and backend != "local":
        raise UsageError(f"the {generator} generator is for the local backend")
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
    rots = rotations(kinds) if rotate else [(0, kinds)]
    rotated = len(rots) > 1
    summary = Summary((game.name, players, tuple(sorted(opts.items())), tuple(kinds)))
    summary.cooperative = coop
    prior = {}
    done = list(done)
    _check_teams(done, game, game.ruleset(players, opts), config_label(summary.key))
    for row in done:
        prior.setdefault(row.get("rotation") or 0, []).append(row)
    runs, resumed = [], 0
    try:
        for r, seating in rots:
            old = sorted(prior.pop(r, []), key=lambda row: row["seed"])
            if [row["seed"] for row in old] != list(range(seed, seed + len(old))) or len(old) > games:
                raise UsageError(f"the records file holds {len(old)} games of {config_label(summary.key)}"
                                 f"{f' (rotation {r})' if rotated else ''} that are not seeds {seed} to "
                                 f"{seed + games - 1} from the first: resume with the same --seed and --games")
            for row in old:
                summary.add(row)
            resumed += len(old)
            left = games - len(old)
            if left == 0:
                continue

            def on_result(res, seating=seating, r=r):
                rec = make_record(res, game.name, sha, players, opts, coop, kinds if rotated else None,
                                  r if rotated else None, restriction)
                summary.add(rec)
                if records is not None:
                    records.write(rec)

            first = seed + len(old)
            common = dict(games=left, players=players, seed=first, options=opts, workers=workers, progress=progress,
                          game=game, bots=seating, on_result=on_result, timeout=timeout, engine=engine, trace=trace)
            if generator != ALGORITHM:
                common["generator"] = generator
            if backend == "local":
                out = _sim.simulate(path, probe=probe and not runs, **common)
            else:
                if probe and not runs and left:
                    _sim.check_finishes(game, players, opts, seating, timeout)
                from . import ray_backend
                out = ray_backend.simulate(path, address=address, **common)
            runs.append(out)
            if hasattr(progress, "next_config"):
                progress.next_config(left)
    except KeyboardInterrupt:       # the games finished so far, summarized (Ctrl-C: docs/analysis.md)
        sm = summary.result()
        out = _merged(runs, sm, game, path, players, opts, seed, engine)
        out.update(games_requested=games, deals=games, rotations=len(rots), games_played=sm["games_finished"] - resumed,
                   resumed=resumed, restriction=restriction, bots=kinds, backend=backend, summary=sm, interrupted=True)
        raise Interrupted([out]) from None
    if prior:
        raise UsageError(f"the records file holds games of {config_label(summary.key)} in rotations this study "
                         f"does not play ({', '.join(map(str, sorted(prior)))}): resume with the same --bot and --rotate")
    sm = summary.result()
    if len(runs) == 1 and not resumed:
        out = runs[0]
    else:
        out = _merged(runs, sm, game, path, players, opts, seed, engine)
    out["games_requested"] = games
    out["deals"] = games
    out["rotations"] = len(rots)
    out["games_played"] = sum(x["games_requested"] for x in runs)
    out["resumed"] = resumed
    out["restriction"] = restriction
    out["bots"] = kinds
    out["backend"] = backend
    if generator != ALGORITHM:
        out["generator"] = generator
    out["summary"] = sm
    return out


def _check_teams(rows, game, rs, label):
    """--resume: the rows already recorded say the teams this spec's games have (gamespec.simulate
    setup_teams; any teams where they are decided during play, none where each seat scores alone)."""
    from gamespec.errors import UsageError
    expect, in_play = _sim.setup_teams(rs), _sim.teams_in_play(rs)
    for row in rows:
        if "error" in row or row.get("cooperative"):
            continue
        got = row.get("teams")
        if ((got is not None) if in_play else got == expect):
            continue
        if expect is None and not in_play:
            why = f"says the seats play in teams {got}, but {game.name} scores each seat alone"
        elif got is None:
            why = (f"says no teams, but {game.name}'s seats play in teams"
                   f"{f' {expect}' if expect is not None else ''} (a record written before records said the teams)")
        else:
            why = f"says the teams {got}, but {game.name}'s are {expect}"
        raise UsageError(f"the records file's game of {label} with seed {row.get('seed')} {why}: it cannot be "
                         "resumed; start a new records file")


def _merged(runs, sm, game, path, players, opts, seed, engine) -> dict:
    """One result for a configuration played in several runs (rotations, a resumed study): the
    figures from the summary of all its games, the timing summed over the runs."""
    seconds = sum(x["seconds"] for x in runs)
    played = sum(x["games_finished"] for x in runs)
    decisions = sum(x["decisions_total"] for x in runs)
    seats = sm.get("seats") or []
    length = sm["length"]["decisions"]
    return {"game": game.name, "spec": path, "players": players, "options": opts, "seed": seed, "engine": engine,
            "games_finished": sm["games_finished"],
            "win_rate": [x["win_rate"] for x in seats], "wins": [x["wins"] for x in seats],
            "shared_wins": (sm.get("ties") or {}).get("count", 0),
            "score_mean": [x["score"]["mean"] for x in seats],
            "score_min": [x["score"]["min"] for x in seats], "score_max": [x["score"]["max"] for x in seats],
            "decisions_mean": length["mean"], "decisions_min": length["min"], "decisions_max": length["max"],
            "decisions_total": decisions,
            "errors": [e for x in runs for e in x["errors"]],
            "seconds": seconds, "games_per_second": played / seconds if seconds > 0 else None,
            "decisions_per_second": decisions / seconds if seconds > 0 else None,
            "workers": max((x["workers"] for x in runs), default=0)}


def open_records(path):
    """A RecordWriter for `path` (.jsonl or .csv), or None for no path."""
    return None if path is None else RecordWriter(path)


def run_sweep(path, sweep, games=100, players=None, seed=0, options=None, workers=None, bots=None,
              backend="local", address=None, records=None, progress=None, game=None, timeout=None,
              engine="python", probe=True, rotate=False, trace=None, restrict=None, done=None, generator=None) -> list:
    """Run every configuration of the grid `sweep` ([(name, [text values])], see sweep.parse_sweep)
    with the same seeds; returns run_study's result per configuration. `progress` may be a
    ProgressBar (its count then runs over the whole sweep). `bots`: a line-up, or a function of the
    player count giving one; `restrict(players, options)`: the restricted-play line-ups [(restriction,
    line-up)] of a configuration (each a rotated study), or None; `done`: rows already recorded by
    configuration key (resume)."""
    import gamespec

    from .sweep import grid

    path = os.fspath(path)
    if game is None:
        game = gamespec.load(path)
    configs = grid(game, sweep, players, options) if sweep else [(players, options or {})]
    started = False
    if backend == "ray":
        from . import ray_backend
        started = ray_backend.connect(address, workers)     # once for the whole sweep
    try:
        outs = []
        try:
            _sweep(outs, configs, path, games, seed, workers, bots, backend, address, records, progress, game,
                   timeout, engine, probe, rotate, trace, restrict, done, generator)
        except Interrupted as e:        # the configurations finished, then the one interrupted
            e.partial[:0] = outs
            raise
        except KeyboardInterrupt:
            raise Interrupted(outs) from None
    finally:
        if started:
            import ray
            ray.shutdown()
    return outs


def _sweep(outs, configs, path, games, seed, workers, bots, backend, address, records, progress, game, timeout,
           engine, probe, rotate, trace, restrict, done, generator):
    """run_sweep's configurations, each run_study's result appended to `outs`."""
    for p, opts in configs:
        kinds = bots(p) if callable(bots) else (bots if bots is not None and len(bots) == p else None)
        plans = restrict(p, opts) if restrict is not None else [(None, kinds)]
        for restriction, lineup in plans:
            lineup = lineup if lineup is not None else ["random"] * p
            key = (game.name, p, tuple(sorted(game.check_options(opts).items())), tuple(lineup))
            outs.append(run_study(path, games=games, players=p, seed=seed, options=opts, workers=workers,
                                  bots=lineup, backend=backend, address=address, records=records,
                                  progress=progress, game=game, timeout=timeout, engine=engine, probe=probe,
                                  rotate=rotate or restriction is not None, restriction=restriction,
                                  trace=trace, done=(done or {}).pop(key, ()), generator=generator))


def simulate(game, path, games=100, players=None, seed=None, options=(), sweep=(), workers=None, bots=(),
             backend="local", address=None, records=None, progress=None, timeout=None, engine="python", probe=True,
             rotate=False, restrict=(), trace=None, resume=False, generator=None) -> dict:
    """A whole `gamespec simulate` request, from its texts: `options` as (NAME, VALUE) pairs, `sweep`
    as NAME=V1,V2 texts, `bots` as SEAT=KIND or all=KIND texts, `records` a file path (.jsonl or
    .csv); `seed` None draws 64 bits of OS entropy (the result names it). `rotate`: every seed once
    per rotation of the seats; `restrict`: --restrict texts (restricted play: one rotated study per
    restriction, one restricted seat against full players of the --bot all=KIND kind); `trace`: see
    gamespec.simulate.traces; `resume`: continue the records file (the games it holds are not played
    again). `progress(total)` gives the progress bar (a context manager) for `total` games, or is
    None. Every bad request is a UsageError before any game is played. Returns {"sweep": [(name,
    values)], "configs": [run_study's result, ...]}."""
    import contextlib

    from gamespec.bots import bots_from_args, kinds_from_args
    from gamespec.config import options_from_pairs, player_count
    from gamespec.errors import UsageError

    from .sweep import grid, parse_sweep
    axes = parse_sweep(sweep)
    if axes:
        configs = grid(game, axes, players, dict(options))
    else:
        configs = [(player_count(game, players), options_from_pairs(game, options))]
    done = None
    if resume:
        if not records:
            raise UsageError("--resume continues a records file: give it with --records FILE")
        done, seed = resumable(records, game, seed)
    if seed is None:
        import secrets
        seed = secrets.randbits(64)
    if bots:       # a bad kind or class fails here, once
        for p, _ in configs:
            bots_from_args(bots, p, seed)
    plans = {}      # (players, options) -> [(restriction or None, line-up)]: what run_sweep plays
    for p, opts in configs:
        kinds = kinds_from_args(bots, p) if bots else ["random"] * p
        _check_actions(game, p, opts, kinds)
        plans[_plan_key(game, p, opts)] = (restricted_lineups(game, p, opts, restrict, kinds) if restrict
                                     else [(None, kinds)])
    total = sum(games * (len(rotations(lineup)) if rotate or restriction is not None else 1)
                for plan in plans.values() for restriction, lineup in plan)
    if done:
        planned = {(game.name, *key, tuple(lineup)) for key, plan in plans.items() for _, lineup in plan}
        other = [k for k in done if k not in planned]
        if other:
            raise UsageError(f"{records} holds games of configurations this request does not play "
                             f"({', '.join(config_label(k) for k in other[:5])}): resume with the arguments "
                             "that wrote it")
        total -= sum(len(rows) for rows in done.values())
    writer = RecordWriter(records, append=bool(resume)) if records else None
    try:
        bar = progress(max(0, total)) if progress is not None else None
        with bar if bar is not None else contextlib.nullcontext():
            outs = run_sweep(path, axes, games=games, players=players if axes else configs[0][0],
                             options=dict(options) if axes else configs[0][1], seed=seed, workers=workers,
                             backend=backend, address=address, records=writer, progress=bar, game=game,
                             timeout=timeout, engine=engine, probe=probe, rotate=rotate, trace=trace,
                             bots=(lambda p: kinds_from_args(bots, p)) if bots else None,
                             restrict=(lambda p, opts: plans[_plan_key(game, p, opts)]) if restrict else None,
                             done=done, generator=generator)
    except Interrupted as e:
        e.records = records
        for r in e.partial:
            r["records"] = records
        raise
    finally:
        if writer is not None:
            writer.close()
    if records:
        for r in outs:
            r["records"] = records
    return {"sweep": axes, "configs": outs}


def _plan_key(game, players, opts) -> tuple:
    """A configuration of a request: its player count and complete option set."""
    return players, tuple(sorted(game.check_options(opts).items()))


def _check_actions(game, players, opts, kinds):
    """A restricted kind that names an action the spec lacks is a UsageError (with the close name)."""
    from gamespec.bots import registry
    from gamespec.errors import UsageError
    try:
        registry.check_actions(kinds, _sim.action_names(game.ruleset(players, opts)))
    except registry.BotError as e:
        raise UsageError(str(e)) from None


def restricted_lineups(game, players, opts, texts, kinds) -> list:
    """--restrict texts → [(restriction, line-up)]: one restricted seat, the others full players of
    the one kind the --bot texts give every seat (default random)."""
    from gamespec.bots import registry
    from gamespec.errors import UsageError
    if getattr(game.spec, "cooperative", False):
        raise UsageError(f"{game.name} is cooperative: restricted play measures a restricted seat's win rate "
                         "against its fair share, and a cooperative game has no seat win rates; compare the "
                         "success rates of two studies instead (--bot all=KIND, then gamespec compare)")
    if len(set(kinds)) != 1:
        raise UsageError("--restrict plays restricted seats against full players of one kind: give it with "
                         f"--bot all=KIND, not the line-up {','.join(kinds)}")
    full = kinds[0]
    names = _sim.action_names(game.ruleset(players, opts))
    try:
        restricted = registry.parse_restrict(texts, names, full)
    except registry.BotError as e:
        raise UsageError(str(e)) from None
    return [(r, [r] + [full] * (players - 1)) for r in restricted if r != full]


def resumable(path, game, seed):
    """--resume: the rows of the records file at `path` by configuration key, and the study's seed
    (the smallest seed of the rows; a --seed that differs is a UsageError). A missing or empty file
    resumes nothing. A last line cut off by an interruption (no newline) is dropped from the file."""
    from gamespec.errors import UsageError

    from .records import read_records
    path = os.fspath(path)
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        return {}, seed
    _drop_cut_line(path)
    rows = read_records(path)
    if not rows:
        return {}, seed
    other = next((r for r in rows if r.get("spec_sha256") != game.spec.sha256), None)
    if other is not None:
        raise UsageError(f"{path} was written for another version of the spec (SHA-256 "
                         f"{str(other.get('spec_sha256'))[:12]}..., this one {game.spec.sha256[:12]}...): "
                         "it cannot be resumed; start a new records file")
    first = min(r["seed"] for r in rows)
    if seed is not None and seed != first:
        raise UsageError(f"{path} starts at seed {first}, not --seed {seed}: resume with --seed {first} (or "
                         "without --seed)")
    done = {}
    for r in rows:
        done.setdefault(config_key(r), []).append(r)
    return done, first


def _drop_cut_line(path):
    with open(path, "rb+") as f:
        f.seek(0, os.SEEK_END)
        size = f.tell()
        if size == 0:
            return
        f.seek(size - 1)
        if f.read(1) == b"\n":
            return
        back = min(size, 1 << 20)          # a record line is at most MAX_LINE long
        f.seek(size - back)
        tail = f.read(back)
        cut = tail.rfind(b"\n")
        f.truncate(size - back + cut + 1 if cut >= 0 else 0)
