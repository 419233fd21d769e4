"""The skill gradient: a ladder of bot kinds (random, greedy, ismcts:100, ismcts:1000, ...), each rung
played against the one below in a rotated study, and one skill-versus-luck index (docs/balance.md).

    from gamespec.analysis import ladder
    out = ladder.run("games/mygame.yaml", ["random", "greedy", "ismcts:100"], games=200, players=3,
                     engine="native")
    out["steps"]        # per step: the stronger rung's win rate with its Wilson interval, fair share
    out["index"]        # skill versus luck: (w - f) / (1 - f) of the strongest rung against the weakest
    out["verdict"]      # "skill matters a lot" / "skill matters a little" / "no evidence skill matters"
    ladder.lines(out)   # the text `simulate --ladder` prints

A step is the line-up [strong, weak, ..., weak], rotated (analysis.study.run_study with rotate=True):
every deal is played once per seat the strong rung can hold, so its win rate is free of seat
advantage. The index compares the strongest rung with the weakest one (an extra study when the ladder
has more than two rungs): w its win rate per game against P - 1 seats of the weakest, f the fair share
(1/P; a team game's fair share of the summary), so 0 is pure luck (the strong rung wins its share) and
1 is pure skill (it always wins), whatever the player count.
"""
from __future__ import annotations

#: the index from which skill "matters a lot" (when its interval also excludes 0): a strong seat that
#: takes at least a quarter of the wins the fair share leaves to the others (2 players: 62.5%; 4: 44%)
A_LOT = 0.25
MAX_RUNGS = 8


def parse_rungs(text) -> list:
    """'random,greedy,ismcts:100' (or a list of kinds) → the kinds, checked; UsageError if bad."""
    from gamespec.bots import make_bots
    from gamespec.errors import UsageError
    kinds = [k.strip() for k in text.split(",")] if isinstance(text, str) else [str(k).strip() for k in text]
    kinds = [k for k in kinds if k]
    if len(kinds) < 2:
        raise UsageError(f"a ladder has at least two rungs, weakest first (e.g. random,greedy,ismcts:100), "
                         f"not {text!r}")
    if len(kinds) > MAX_RUNGS:
        raise UsageError(f"a ladder has at most {MAX_RUNGS} rungs, not {len(kinds)}")
    if len(set(kinds)) != len(kinds):
        raise UsageError(f"a ladder's rungs are different kinds: {','.join(kinds)} repeats one")
    try:
        make_bots(kinds, 0)
    except Exception as e:       # noqa: BLE001 - the registry's message, as a usage error
        raise UsageError(str(e)) from None
    return kinds


def skill_index(wins, n, fair) -> dict:
    """The skill-versus-luck index of a rung winning `wins` (win shares) of `n` games where its fair
    share is `fair`: (w - f) / (1 - f), with the Wilson interval's ends mapped the same way."""
    from .stats import wilson
    if not n or fair is None or fair >= 1:
        return {"index": None, "ci95": [None, None], "win_rate": None, "fair": fair, "games": n}
    lo, hi = wilson(wins, n)
    w = wins / n

    def scale(x):
        return (x - fair) / (1 - fair)
    return {"index": scale(w), "ci95": [scale(lo), scale(hi)], "win_rate": w, "win_ci95": [lo, hi],
            "fair": fair, "games": n}


def verdict(index) -> str:
    """The index in words: 'skill matters a lot' (interval above 0, index >= A_LOT), 'skill matters a
    little' (interval above 0), else 'no evidence skill matters'."""
    ix, (lo, _) = index.get("index"), index.get("ci95") or (None, None)
    if ix is None or lo is None:
        return "skill not measured (no finished games)"
    if lo > 0:
        return "skill matters a lot" if ix >= A_LOT else "skill matters a little"
    return "no evidence skill matters"


def _strong(summary, kind) -> dict:
    k = next((x for x in summary.get("kinds") or () if x["kind"] == kind), None)
    return k or {"wins": 0.0, "seat_games": 0, "win_rate": None, "ci95": [None, None]}


def _step(out, strong, weak) -> dict:
    """One rotated study of [strong, weak, ...] → the step's figures."""
    sm = out["summary"]
    k = _strong(sm, strong)
    fair = sm.get("fair_share")
    n = k["seat_games"]
    ix = skill_index(k["wins"], n, fair)
    lo = k["ci95"][0]
    hi = k["ci95"][1]
    clear = None
    if lo is not None and fair is not None:
        clear = "stronger" if lo > fair else ("weaker" if hi < fair else "no clear difference")
    return {"strong": strong, "weak": weak, "games": n, "deals": out.get("deals"),
            "win_rate": k["win_rate"], "ci95": [lo, hi], "fair": fair, "index": ix["index"],
            "index_ci95": ix["ci95"], "clear": clear, "errors": len(sm.get("errors") or ()),
            "seconds": out.get("seconds"), "config": sm.get("config")}


def run(path, rungs, games=100, players=None, seed=0, options=None, workers=None, engine="native",
        records=None, progress=None, game=None, timeout=None, probe=True) -> dict:
    """Play the ladder `rungs` (weakest first): each rung against the one below (rotated, `games` deals
    each), then, with more than two rungs, the strongest against the weakest for the index. `records`:
    a RecordWriter every game is written to (one configuration per step). `progress(text)` is told
    when a step starts. Returns {"rungs", "players", "options", "steps", "top", "index", "verdict"}."""
    import os

    import gamespec

    from .study import rotations, run_study
    path = os.fspath(path)
    if game is None:
        game = gamespec.load(path)
    rungs = parse_rungs(rungs)
    players = game.min_players if players is None else players
    opts = game.check_options(options)
    plan = [(rungs[i], rungs[i - 1]) for i in range(1, len(rungs))]
    if len(rungs) > 2:
        plan.append((rungs[-1], rungs[0]))
    results = []
    for i, (strong, weak) in enumerate(plan):
        lineup = [strong] + [weak] * (players - 1)
        if progress is not None:
            progress(f"ladder {i + 1}/{len(plan)}: {strong} against {weak} "
                     f"({games} deals x {len(rotations(lineup))} seatings)")
        out = run_study(path, games=games, players=players, seed=seed, options=opts, workers=workers,
                        bots=lineup, records=records, game=game, timeout=timeout, engine=engine,
                        probe=probe and i == 0, rotate=True)
        results.append(_step(out, strong, weak))
    steps = results[:len(rungs) - 1]
    top = results[-1]
    index = {"index": top["index"], "ci95": top["index_ci95"], "win_rate": top["win_rate"],
             "win_ci95": top["ci95"], "fair": top["fair"], "games": top["games"],
             "strong": top["strong"], "weak": top["weak"]}
    return {"game": game.name, "spec": path, "rungs": rungs, "players": players, "options": opts, "seed": seed,
            "games": games, "engine": engine, "steps": steps, "top": top if len(rungs) > 2 else None,
            "index": index, "verdict": verdict(index)}


# -- words --------------------------------------------------------------------------------------------

def _pct(x) -> str:
    return "?" if x is None else f"{100 * x:.0f}%"


def _ci(ci) -> str:
    lo, hi = ci
    return "[?]" if lo is None else f"[{100 * lo:.0f}, {100 * hi:.0f}]"


def _ix(x) -> str:
    return "?" if x is None else f"{x:.2f}"


def sentence(out) -> str:
    """The ladder in one sentence: 'skill matters a lot: ismcts:1000 wins 71% [66, 76] against random
    (fair share 33%): skill-versus-luck index 0.57 [0.49, 0.64] (0 luck, 1 skill)'."""
    ix = out["index"]
    lo, hi = ix["ci95"]
    rng = "[?]" if lo is None else f"[{lo:.2f}, {hi:.2f}]"
    return (f"{out['verdict']}: {ix['strong']} wins {_pct(ix['win_rate'])} {_ci(ix['win_ci95'])} of its games "
            f"against {ix['weak']} (fair share {_pct(ix['fair'])}): skill-versus-luck index {_ix(ix['index'])} "
            f"{rng} (0: luck alone, 1: the stronger always wins)")


def lines(out) -> list:
    """The text `simulate --ladder` prints: the verdict, then one line per step."""
    opts = ", ".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in sorted(out["options"].items()))
    head = f"skill ladder of {out['game']} ({out['players']} players{', ' + opts if opts else ''}; " \
           f"each rung in one seat against the rung below in the others, seats rotated, {out['games']} deals)"
    rows = [sentence(out), "", head,
            f"  {'step':<34} {'win rate':>8}  {'95% interval':<12} {'fair':>5}  {'index':>6}  verdict"]
    shown = list(out["steps"]) + ([out["top"]] if out.get("top") else [])
    for s in shown:
        name = f"{s['strong']} vs {s['weak']}"
        rows.append(f"  {name:<34} {_pct(s['win_rate']):>8}  {_ci(s['ci95']):<12} {_pct(s['fair']):>5}  "
                    f"{_ix(s['index']):>6}  {s['clear']}")
        if s["errors"]:
            rows.append(f"    ({s['errors']} games did not finish: the figures are over the others)")
    return rows


def run_cli(args, game=None) -> int:
    """`gamespec simulate SPEC --ladder KINDS`: args.file, args.ladder, args.games, args.players,
    args.seed, args.option, args.workers, args.engine, args.json, args.records, args.timeout (the
    ones present; the others take their defaults). Prints the ladder; returns the exit code."""
    import json
    import secrets
    import sys

    import gamespec
    from gamespec.config import options_from_pairs, player_count

    from .records import RecordWriter
    if game is None:
        game = gamespec.load(args.file)
    players = player_count(game, getattr(args, "players", None))
    opts = options_from_pairs(game, getattr(args, "option", None) or ())
    seed = getattr(args, "seed", None)
    seed = secrets.randbits(63) if seed is None else seed
    rungs = parse_rungs(args.ladder)
    as_json = getattr(args, "json", False)
    quiet = as_json or getattr(args, "no_progress", False)
    path = getattr(args, "records", None)
    writer = RecordWriter(path) if path else None
    try:
        out = run(args.file, rungs, games=getattr(args, "games", 100), players=players, seed=seed, options=opts,
                  workers=getattr(args, "workers", None), engine=getattr(args, "engine", "native"), records=writer,
                  game=game, timeout=getattr(args, "timeout", None),
                  probe=not getattr(args, "no_probe", False),
                  progress=None if quiet else (lambda text: print(text, file=sys.stderr, flush=True)))
    finally:
        if writer is not None:
            writer.close()
    if as_json:
        print(json.dumps(out, indent=2))
    else:
        for line in lines(out):
            print(line)
        if path:
            print(f"records: {path}")
    return 0


# -- from records (report, compare) ------------------------------------------------------------------

def from_summaries(summaries) -> list:
    """The ladder steps a set of summaries holds: each rotated configuration whose line-up is one kind
    in one seat and another kind in all the others (what run() plays), as run()'s step dicts, grouped
    by (game, players, options): [{"group": label, "steps": [...], "index": ..., "verdict": ...}] with
    the index of the pair whose stronger kind appears most often as the stronger (the top of the
    ladder) against the weakest kind."""
    groups = {}
    for sm in summaries:
        lineup = sm.get("lineup") or []
        if not sm.get("rotated") or len(lineup) < 2 or sm.get("restriction") is not None:
            continue
        strong, rest = lineup[0], lineup[1:]
        if len(set(rest)) != 1 or rest[0] == strong:
            continue
        step = _step({"summary": sm}, strong, rest[0])
        key = (sm["game"], sm["players"], tuple(sorted(sm["options"].items())))
        groups.setdefault(key, []).append(step)
    out = []
    for (name, players, opts), steps in groups.items():
        weaks = {s["weak"] for s in steps}
        strongs = {s["strong"] for s in steps}
        bottom = [k for k in weaks if k not in strongs]
        top = [k for k in strongs if k not in weaks]
        best = next((s for s in steps if s["strong"] in top and s["weak"] in bottom), None) or steps[-1]
        index = {"index": best["index"], "ci95": best["index_ci95"], "win_rate": best["win_rate"],
                 "win_ci95": best["ci95"], "fair": best["fair"], "games": best["games"],
                 "strong": best["strong"], "weak": best["weak"]}
        label = f"{name}, {players} players" + "".join(f", {k}={v}" for k, v in opts)
        out.append({"group": label, "steps": steps, "index": index, "verdict": verdict(index)})
    return out


def summary_sentences(summaries) -> list:
    """For `report` and `compare`: one sentence per ladder found in the summaries (from_summaries),
    prefixed with its group when there are several."""
    groups = from_summaries(summaries)
    out = []
    for g in groups:
        s = sentence({"verdict": g["verdict"], "index": g["index"]})
        out.append(f"{g['group']}: {s}" if len(groups) > 1 else s)
    return out
