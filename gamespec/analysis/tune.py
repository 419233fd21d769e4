"""Which numbers to change: a sequential search over a spec's whole-number options for the settings
that best meet balance targets (docs/balance.md, "Tuning").

    from gamespec.analysis import tune
    out = tune.run("games/mygame.yaml", params=["hand", "bonus"], targets=["fair", "length=40..60"],
                   players=3, games=100, engine="native")
    out["best"], out["runner_up"]     # settings with each target's figure and 95% interval
    out["diff"]                       # the unified diff that makes the best settings the spec's defaults
    tune.lines(out)                   # what `gamespec tune` prints

The search is successive halving (Jamieson & Talwalkar 2016; Karnin et al. 2013) with elimination:
every candidate (the cross product of the tuned options' declared values) plays `games` games with the
same seeds (common random numbers); then, round after round, the candidates still in the running play
as many games again as they have played (so their intervals narrow by about 1/sqrt(2) a round), and
after each round are dropped (1) every candidate whose loss interval lies wholly above the best
candidate's (clearly worse), then (2) the worse half of the rest by their loss (two always stay).
The last two play on, doubling their games, until their loss intervals part or the rounds run out.
The games go where the answer is still uncertain: a setting clearly worse stops playing at once; the
close ones play on.
"""
from __future__ import annotations

import math
import os
import re

#: rounds of halving at most (the last survivors have played games * 2**(MAX_ROUNDS - 1) games)
MAX_ROUNDS = 6
MAX_CANDIDATES = 256
TARGET_WORDS = "fair, decided_late, length=LO..HI"


class _Rows:
    """A records sink for run_study that keeps the rows (the next round resumes from them)."""

    def __init__(self):
        self.rows = []

    def write(self, rec):
        self.rows.append(rec)


# -- targets ------------------------------------------------------------------------------------------

def parse_targets(texts) -> list:
    """['fair', 'decided_late', 'length=40..60'] → [{"name", ...}]; UsageError for a bad one."""
    from gamespec.errors import UsageError
    out = []
    for text in texts or ():
        for part in str(text).split(","):
            t = part.strip()
            if not t:
                continue
            if t in ("fair", "decided_late"):
                out.append({"name": t, "text": t})
                continue
            m = re.fullmatch(r"length\s*=\s*(\d+(?:\.\d+)?)\s*\.\.\s*(\d+(?:\.\d+)?)", t)
            if m:
                lo, hi = float(m.group(1)), float(m.group(2))
                if lo > hi:
                    raise UsageError(f"the target {t!r} has its range backwards: write length={m.group(2)}..{m.group(1)}")
                out.append({"name": "length", "text": t, "range": [lo, hi]})
                continue
            raise UsageError(f"unknown target {t!r}: the targets are {TARGET_WORDS} (decisions per game)")
    if not out:
        raise UsageError(f"give at least one --target: {TARGET_WORDS}")
    names = [t["text"] for t in out]
    if len(set(names)) != len(names):
        raise UsageError(f"a target is given twice: {', '.join(names)}")
    return out


def _dist(x, lo, hi) -> float:
    return max(0.0, lo - x, x - hi)


def target_figures(sm, target) -> dict:
    """A summary (stats.Summary.result()) → the target's figure with its 95% interval and its loss
    (0: met) with an interval: {"figure", "ci95", "loss", "loss_ci95", "words"}."""
    name = target["name"]
    if name == "fair":
        seats = sm.get("seats") or []
        f = sm.get("fair_share")
        if not seats or f is None or sm.get("games_finished", 0) == 0:
            return {"figure": None, "ci95": [None, None], "loss": math.inf, "loss_ci95": [math.inf, math.inf],
                    "words": "no finished games"}
        worst = max(seats, key=lambda s: abs(s["win_rate"] - f))
        loss = abs(worst["win_rate"] - f)
        lo = max(_dist(f, *s["ci95"]) for s in seats)
        hi = max(max(abs(s["ci95"][0] - f), abs(s["ci95"][1] - f)) for s in seats)
        adv = sm.get("seat_advantage") or {}
        return {"figure": worst["win_rate"], "ci95": list(worst["ci95"]), "seat": worst["seat"], "fair": f,
                "p": adv.get("p"), "loss": loss, "loss_ci95": [lo, hi],
                "words": f"seat {worst['seat']} wins {_pct(worst['win_rate'])} {_ci(worst['ci95'])} (fair {_pct(f)})"}
    if name == "decided_late":
        d = (sm.get("metrics") or {}).get("decided_at") or {}
        if not d.get("n"):
            return {"figure": None, "ci95": [None, None], "loss": math.inf, "loss_ci95": [math.inf, math.inf],
                    "words": "decisiveness not recorded (no sole winner, or no score expression)"}
        m, (lo, hi) = d["mean"], d["ci95"]
        lo = m if lo is None else lo
        hi = m if hi is None else hi
        return {"figure": m, "ci95": [lo, hi], "loss": 1 - m, "loss_ci95": [max(0.0, 1 - hi), min(1.0, 1 - lo)],
                "words": f"decided at {_pct(m)} {_ci([lo, hi])} of the game"}
    # length: decisions per game, the distance from the range relative to its middle
    d = (sm.get("length") or {}).get("decisions") or {}
    if not d.get("n"):
        return {"figure": None, "ci95": [None, None], "loss": math.inf, "loss_ci95": [math.inf, math.inf],
                "words": "no finished games"}
    a, b = target["range"]
    scale = max(1.0, (a + b) / 2)
    m, (lo, hi) = d["mean"], d["ci95"]
    lo = m if lo is None else lo
    hi = m if hi is None else hi
    near = 0.0 if hi >= a and lo <= b else min(_dist(lo, a, b), _dist(hi, a, b))
    far = max(_dist(lo, a, b), _dist(hi, a, b))
    return {"figure": m, "ci95": [lo, hi], "loss": _dist(m, a, b) / scale, "loss_ci95": [near / scale, far / scale],
            "words": f"{m:.1f} [{lo:.1f}, {hi:.1f}] decisions a game (target {a:g}..{b:g})"}


def evaluate(sm, targets) -> dict:
    """The candidate's figures per target and its loss: the sum of the targets' losses (each 0 when
    met: the fair target in win-rate points, decided_late as 1 - decided at, length as the distance
    from the range over the range's middle), its interval the sum of theirs."""
    figs = [dict(target_figures(sm, t), target=t["text"]) for t in targets]
    return {"figures": figs, "loss": sum(f["loss"] for f in figs),
            "loss_ci95": [sum(f["loss_ci95"][0] for f in figs), sum(f["loss_ci95"][1] for f in figs)]}


# -- the search space ---------------------------------------------------------------------------------

def tunable(game) -> dict:
    """The spec's tunable numbers: {option: [values]} for every whole-number option with declared
    values (`values: [...]`, or the range form `range: [lo, hi]` where the loader gives it)."""
    spec = game.spec
    out = {}
    for name, default in spec.options.items():
        if isinstance(default, bool):
            continue
        vals = (spec.option_values or {}).get(name)
        span = (getattr(spec, "option_ranges", None) or {}).get(name)
        if vals:
            out[name] = list(vals)
        elif span:
            out[name] = range(span[0], span[1] + 1)       # lazy: a wide range is refused by its length
    return out


def candidates(game, params, fixed) -> tuple:
    """The tuned options' names and every combination of their values: (names, [{name: value}])."""
    import difflib
    import itertools
    import math

    from gamespec.errors import UsageError
    space = tunable(game)
    if not space:
        raise UsageError(f"{game.name} has no tunable numbers: a whole-number option with declared values "
                         "(options: NAME: {default: 3, values: [2, 3, 4]}, or range: [2, 9]) is one")
    names = list(dict.fromkeys(params)) if params else list(space)
    for n in names:
        if n not in space:
            if n in game.spec.options:
                why = ("is true or false" if isinstance(game.spec.options[n], bool)
                       else "declares no values (add values: [...] or range: [LOW, HIGH] to search it)")
                raise UsageError(f"option '{n}' {why}; the tunable numbers of {game.name} are {', '.join(space)}")
            close = difflib.get_close_matches(n, list(space), n=1)
            raise UsageError(f"unknown option '{n}'" + (f"; did you mean '{close[0]}'?" if close else "")
                             + f" (tunable: {', '.join(space)})")
        if n in fixed:
            raise UsageError(f"option '{n}' is both tuned (--param) and fixed (--option)")
    # counted before the cross product is built: ranges of several options multiply fast
    count = math.prod(len(space[n]) for n in names)
    if count > MAX_CANDIDATES:
        raise UsageError(f"{count} combinations of {', '.join(names)}: at most {MAX_CANDIDATES} are searched "
                         "(tune fewer options at once, or fix some with --option)")
    return names, [dict(zip(names, vs)) for vs in itertools.product(*(space[n] for n in names))]


# -- the search ---------------------------------------------------------------------------------------

def run(path, params=(), targets=("fair",), games=100, players=None, seed=0, options=None, bots=None,
        engine="native", workers=None, rounds=None, progress=None, game=None, timeout=None, backend="local",
        address=None) -> dict:
    """Successive halving over the tuned options' values (module doc). `games`: the first round's
    games per candidate; `rounds`: at most this many rounds (default: until one candidate is left or
    MAX_ROUNDS); `bots`: a kind per seat (default random; thinking seats, e.g. ["ismcts:100"] * P);
    `backend`/`address`: "local" worker processes or "ray" (a Ray cluster, as simulate --backend ray);
    `options`: other options fixed. `progress(text)` is told what each round plays. Returns the
    candidates with their figures, the rounds (who was dropped and why), the best, the runner-up and
    the spec diff that makes the best settings the defaults."""
    import gamespec
    from gamespec.errors import UsageError

    from .study import run_study
    path = os.fspath(path)
    if game is None:
        game = gamespec.load(path)
    targets = parse_targets(targets)
    players = game.min_players if players is None else players
    fixed = dict(options or {})
    names, combos = candidates(game, params, fixed)
    kinds = list(bots) if bots else ["random"] * players
    if len(kinds) != players:
        raise UsageError(f"{len(kinds)} bot kinds for {players} seats")
    rounds = MAX_ROUNDS if rounds is None else rounds
    if not isinstance(games, int) or games < 2:
        raise UsageError(f"tune plays at least 2 games per candidate in a round, not {games!r}")
    cands = []
    for c in combos:
        opts = game.check_options({**fixed, **c})
        game.ruleset(players, opts)
        cands.append({"settings": c, "options": opts, "rows": _Rows(), "games": 0, "alive": True,
                      "dropped": None})
    log = []
    alive = list(range(len(cands)))
    per = games
    for r in range(rounds):
        target_n = per if r == 0 else cands[alive[0]]["games"] * 2
        if progress is not None:
            progress(f"tune round {r + 1}: {len(alive)} setting{'s' if len(alive) != 1 else ''} x "
                     f"{target_n} games each")
        for i in alive:
            c = cands[i]
            out = run_study(path, games=target_n, players=players, seed=seed, options=c["options"], workers=workers,
                            bots=kinds, records=c["rows"], game=game, timeout=timeout, engine=engine,
                            probe=(r == 0 and i == alive[0]), done=list(c["rows"].rows), backend=backend,
                            address=address)
            c["games"] = target_n
            c["summary"] = out["summary"]
            c.update(evaluate(out["summary"], targets))
        ranked = sorted(alive, key=lambda i: (cands[i]["loss"], i))
        best = cands[ranked[0]]
        dropped = []
        last = r == rounds - 1
        if not last and len(ranked) > 1:
            keep = []
            for i in ranked:
                c = cands[i]
                if i != ranked[0] and c["loss_ci95"][0] > best["loss_ci95"][1]:
                    c["dropped"] = {"round": r + 1, "why": "clearly worse: its loss interval lies above the best's"}
                    dropped.append(i)
                else:
                    keep.append(i)
            half = max(2, math.ceil(len(keep) / 2))
            for i in keep[half:]:
                c = cands[i]
                c["dropped"] = {"round": r + 1, "why": "in the worse half by its loss"}
                dropped.append(i)
            alive = [i for i in keep if i not in dropped]
        log.append({"round": r + 1, "games": target_n, "played": len(ranked),
                    "dropped": [cands[i]["settings"] for i in dropped],
                    "why": [cands[i]["dropped"]["why"] for i in dropped]})
        if len(alive) <= 1 or last:
            break
        if len(alive) == 2 and not _overlap(cands[alive[0]], cands[alive[1]]):
            break
    order = sorted(range(len(cands)), key=lambda i: (-cands[i]["games"], cands[i]["loss"], i))
    best = cands[order[0]]
    runner = next((cands[i] for i in order[1:]), None)
    text = _read(path)
    return {"game": game.name, "spec": path, "players": players, "bots": kinds, "engine": engine, "seed": seed,
            "targets": [t["text"] for t in targets], "params": names, "fixed": fixed,
            "candidates": [_public(c) for c in cands], "rounds": log,
            "games_played": sum(c["games"] for c in cands),
            "best": _public(best), "runner_up": _public(runner) if runner else None,
            "settled": runner is None or best["loss_ci95"][1] < runner["loss_ci95"][0],
            "diff": spec_diff(text, path, best["settings"], game.spec.options) if text is not None else None}


def _overlap(a, b) -> bool:
    return not (a["loss_ci95"][0] > b["loss_ci95"][1] or b["loss_ci95"][0] > a["loss_ci95"][1])


def _public(c) -> dict:
    return {"settings": dict(c["settings"]), "games": c["games"], "loss": c.get("loss"),
            "loss_ci95": c.get("loss_ci95"), "figures": c.get("figures"), "dropped": c["dropped"],
            "errors": len((c.get("summary") or {}).get("errors") or ())}


def _read(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError:
        return None


# -- the diff -----------------------------------------------------------------------------------------

def set_defaults(text, settings) -> tuple:
    """The spec's text with each option's `default:` set to `settings[name]`, changing only that value
    (flow `name: {default: 3, ...}` or block `name:` / `  default: 3`); (text, names not found)."""
    lines = text.splitlines(keepends=True)
    start = next((i for i, ln in enumerate(lines) if re.match(r"^options\s*:", ln)), None)
    missing = []
    if start is None:
        return text, list(settings)
    end = next((i for i in range(start + 1, len(lines)) if re.match(r"^[A-Za-z_]", lines[i])), len(lines))
    for name, value in settings.items():
        done = False
        for i in range(start + 1, end):
            m = re.match(r"^(\s+)" + re.escape(name) + r"\s*:(.*)$", lines[i].rstrip("\r\n"))
            if not m:
                continue
            indent = len(m.group(1))
            if "default" in m.group(2):
                new, k = re.subn(r"(default\s*:\s*)-?\d+", lambda mm: mm.group(1) + str(value), lines[i], count=1)
                done = k == 1
                lines[i] = new
            else:
                for j in range(i + 1, end):
                    s = lines[j]
                    if s.strip() and not s.lstrip().startswith("#") and len(s) - len(s.lstrip()) <= indent:
                        break
                    new, k = re.subn(r"^(\s+default\s*:\s*)-?\d+", lambda mm: mm.group(1) + str(value), s, count=1)
                    if k:
                        lines[j] = new
                        done = True
                        break
            break
        if not done:
            missing.append(name)
    return "".join(lines), missing


def spec_diff(text, path, settings, defaults) -> str:
    """The unified diff that makes `settings` the spec's defaults ('' when they already are)."""
    import difflib
    change = {k: v for k, v in settings.items() if defaults.get(k) != v}
    if not change:
        return ""
    new, missing = set_defaults(text, change)
    out = "".join(difflib.unified_diff(text.splitlines(keepends=True), new.splitlines(keepends=True),
                                       fromfile=f"a/{os.path.basename(path)}", tofile=f"b/{os.path.basename(path)}"))
    if missing:
        out += "".join(f"# set the default of option '{n}' to {change[n]} by hand (not found in the text)\n"
                       for n in missing)
    return out


# -- words --------------------------------------------------------------------------------------------

def _pct(x) -> str:
    return "?" if x is None else f"{100 * x:.0f}%"


def _ci(ci) -> str:
    lo, hi = ci
    return "[?]" if lo is None else f"[{100 * lo:.0f}, {100 * hi:.0f}]"


def _settings(s) -> str:
    return ", ".join(f"{k}={v}" for k, v in s.items())


def _loss(c) -> str:
    lo, hi = c["loss_ci95"]
    return f"{c['loss']:.3f} [{lo:.3f}, {hi:.3f}]"


def lines(out) -> list:
    """What `gamespec tune` prints: the best settings and the runner-up with their figures, every
    round (who stopped playing, and why), the diff."""
    bots = out["bots"]
    who = f"{bots[0]} seats" if len(set(bots)) == 1 else "seats " + ",".join(bots)
    rows = [f"tune {out['game']} ({out['players']} players, {who}, engine {out['engine']}): "
            f"{', '.join(out['params'])} for {', '.join(out['targets'])}; "
            f"{out['games_played']} games in {len(out['rounds'])} round{'s' if len(out['rounds']) != 1 else ''} "
            "of successive halving"]
    best, ru = out["best"], out["runner_up"]
    rows.append(f"best: {_settings(best['settings'])} ({best['games']} games; loss {_loss(best)})")
    rows += [f"  {f['target']}: {f['words']}" for f in best["figures"]]
    if ru is not None:
        rows.append(f"runner-up: {_settings(ru['settings'])} ({ru['games']} games; loss {_loss(ru)})")
        rows += [f"  {f['target']}: {f['words']}" for f in ru["figures"]]
        rows.append("the best is clearly ahead (the loss intervals do not overlap)" if out["settled"] else
                    "the best and the runner-up are within noise of each other: play more games "
                    "(--games) to tell them apart")
    rows.append("")
    rows.append("rounds (the loss is 0 when every target is met; its interval from the figures' 95% intervals):")
    for r in out["rounds"]:
        s = f"  round {r['round']}: {r['played']} setting{'s' if r['played'] != 1 else ''} x {r['games']} games"
        if r["dropped"]:
            s += "; stopped: " + "; ".join(f"{_settings(d)} ({w})" for d, w in zip(r["dropped"], r["why"]))
        rows.append(s)
    rows.append("")
    if out["diff"]:
        rows.append("to make the best settings the defaults:")
        rows += out["diff"].rstrip("\n").split("\n")
    elif out["diff"] == "":
        rows.append("the best settings are the spec's defaults already")
    return rows
