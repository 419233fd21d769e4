"""Which cards decide games: the win-rate lift of holding a card class (or face) in the opening hand and
of playing it, with intervals and Holm's correction over every comparison (docs/balance.md, part 3).

    from gamespec.analysis import lift
    out = lift.run("games/mygame.yaml", games=2000, players=3, seed=0)
    out["features"]         # every (held | played, class or face): lift, 95% interval, p, Holm-adjusted p
    out["findings"]         # only what is beyond noise: "a crown in the opening hand: +9% [5, 13]"
    lift.lines(out)

The games are played by the Python loop (gamespec.simulate.play_out: random seats there, or any
bots, ISMCTS searching in C with engine="native"), which shows every decision: a seat's **opening
hand** is the cards in its own hidden per-player zones (visibility owner or hidden: a hand, not a
table) when it makes its first decision; a card is **played** by a seat when the seat's own decision
moves it out of those zones (onto a table, a discard pile, an altar: wherever the rules send it).
Each (game, seat) is one observation: its win share (1/k of a win shared by k) and, per card class
and face, whether it held / played one. The lift is the win rate of the seats that did minus that of
the seats that did not, **within each seat** (stratified(): a card only one seat ever holds is a seat's
advantage, not the card's, and is not compared), weighted across seats; with one seat compared, its
95% interval is Newcombe's hybrid Wilson interval (Newcombe 1998, method 10) and its p the pooled
two-proportion z-test, with several a normal interval from the seats' variances; every p of the study
(both kinds, every class and face) is adjusted by Holm's method and only those below 0.05 after
adjustment are findings. The seats of one game are not independent (one's win is another's loss), so
the p-values are somewhat optimistic for games with few seats: the correction is the guard.
"""
from __future__ import annotations

import math
import os

#: a class's faces are compared one by one when it has at most this many
FEW_FACES = 6
#: a seat's comparison needs at least this many observations on each side (with and without)
MIN_SIDE = 10
MAX_FINDINGS = 20


def newcombe(x1, n1, x2, n2):
    """Newcombe's hybrid score interval (lo, hi) of p1 - p2 from the two Wilson intervals."""
    from .stats import wilson
    if not n1 or not n2:
        return None, None
    p1, p2 = x1 / n1, x2 / n2
    l1, u1 = wilson(x1, n1)
    l2, u2 = wilson(x2, n2)
    d = p1 - p2
    return (d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2))


def stratified(strata):
    """The lift within seats: strata [(wins with, n with, wins without, n without)] per seat, those with
    both sides held; the difference of win rates weighted n1 n0 / (n1 + n0) (Cochran-Mantel-Haenszel's
    weights for a risk difference). One stratum: Newcombe's interval and the two-proportion z-test;
    several: a normal interval whose variance adds the strata's Agresti-Caffo variances (one win and
    one loss added to each side, so a rate of 0 or 1 still has a spread). A seat with fewer than
MIN_SIDE observations on a side is left out; None without a stratum."""
    from gamespec.analysis.stats import norm_sf
    keep = [x for x in strata if x[1] >= MIN_SIDE and x[3] >= MIN_SIDE]
    if not keep:
        return None
    if len(keep) == 1:
        from .comparison import two_proportions
        w1, n1, w0, n0 = keep[0]
        lo, hi = newcombe(w1, n1, w0, n0)
        return {"lift": w1 / n1 - w0 / n0, "ci95": [lo, hi], "p": two_proportions(w1, n1, w0, n0), "strata": 1}
    weights = [n1 * n0 / (n1 + n0) for _, n1, _, n0 in keep]
    total = sum(weights)
    lift = sum(wt * (w1 / n1 - w0 / n0) for wt, (w1, n1, w0, n0) in zip(weights, keep)) / total
    var = 0.0
    for wt, (w1, n1, w0, n0) in zip(weights, keep):
        a, b = (w1 + 1) / (n1 + 2), (w0 + 1) / (n0 + 2)
        var += (wt / total) ** 2 * (a * (1 - a) / (n1 + 2) + b * (1 - b) / (n0 + 2))
    se = math.sqrt(var)
    p = 2 * norm_sf(abs(lift) / se) if se > 0 else (1.0 if lift == 0 else 0.0)
    return {"lift": lift, "ci95": [lift - 1.96 * se, lift + 1.96 * se], "p": p, "strata": len(keep)}


def _hand_zones(rs) -> dict:
    """seat -> the zone indexes of its hidden per-player zones (visibility not public)."""
    out = {}
    for name, keys in rs.zone_keys.items():
        base = rs.zone_base[name]
        decl = rs.zone_decl[base]
        if not decl.per_player or decl.visibility == "public":
            continue
        for k, key in enumerate(keys):
            if isinstance(key, int):
                out.setdefault(key, []).append(base + k)
    return out


def features(rs) -> list:
    """The things compared: ("class", name) for every card class, ("face", index) for each face of a
    class with at most FEW_FACES faces (when the class has more than one)."""
    by_class = {}
    for i, f in enumerate(rs.faces):
        by_class.setdefault(f.get("type"), []).append(i)
    out = []
    for cls, faces in by_class.items():
        out.append(("class", cls))
        if 1 < len(faces) <= FEW_FACES:
            out += [("face", i) for i in faces]
    return out


def _label(rs, feat) -> str:
    kind, x = feat
    return str(x) if kind == "class" else str(rs.face_label[x])


def play_game(game, players, seed, options, kinds, engine, rs, hands):
    """One game → (win share per seat, per seat the faces in its opening hand, per seat the faces it
    played) as sets of face indexes."""
    from gamespec.bots import make_bots
    from gamespec.simulate import play_out
    state = game.new_game(players=players, seed=seed, options=options)
    face_of = rs.face_of
    opening = [None] * players
    played = [set() for _ in range(players)]
    before = {}

    def held(st, p):
        z = st.z
        return {c for zi in hands.get(p, ()) for c in z[zi]}

    def on_move(st, action):
        p = st.current_player
        h = held(st, p)
        if opening[p] is None:
            opening[p] = {face_of[c] for c in h}
        before["p"], before["h"] = p, h

    def after(st):
        p = before["p"]
        gone = before["h"] - held(st, p)
        if gone:
            played[p].update(face_of[c] for c in gone)
    play_out(state, make_bots(kinds, seed, engine=engine), seed, after=after, on_move=on_move)
    winners = list(state.winners)
    share = [0.0] * players
    for w in winners:
        share[w] = 1.0 / len(winners)
    return share, [o or set() for o in opening], played


def run(path, games=1000, players=None, seed=0, options=None, bots=None, engine="python", game=None,
        progress=None) -> dict:
    """Play `games` games (seeds seed ..) and measure each class's and face's lift (module doc)."""
    import gamespec
    from gamespec.errors import UsageError

    from .comparison import holm
    path = os.fspath(path)
    if game is None:
        game = gamespec.load(path)
    players = game.min_players if players is None else players
    opts = game.check_options(options)
    rs = game.ruleset(players, opts)
    if getattr(game.spec, "cooperative", False):
        raise UsageError(f"{game.name} is cooperative: a card's lift is a seat's win rate with and without it, "
                         "and a cooperative game has no seat win rates")
    if not isinstance(games, int) or games < 1:
        raise UsageError(f"the number of games is a whole number >= 1, not {games!r}")
    kinds = list(bots) if bots else ["random"] * players
    hands = _hand_zones(rs)
    feats = features(rs)
    face_class = [f.get("type") for f in rs.faces]
    # per feature and kind, per seat: [wins with, n with]; the seat's totals give the without side
    stats = {(k, f): [[0.0, 0] for _ in range(players)] for f in feats for k in ("held", "played")}
    seat_w, seat_n, failed = [0.0] * players, [0] * players, 0
    for g in range(games):
        try:
            share, opening, played = play_game(game, players, seed + g, opts, kinds, engine, rs, hands)
        except gamespec.GamespecError:
            failed += 1
            continue
        for p in range(players):
            seat_w[p] += share[p]
            seat_n[p] += 1
            for kind, faces in (("held", opening[p]), ("played", played[p])):
                classes = {face_class[i] for i in faces}
                for f in feats:
                    has = f[1] in classes if f[0] == "class" else f[1] in faces
                    if has:
                        s = stats[(kind, f)][p]
                        s[0] += share[p]
                        s[1] += 1
        if progress is not None and (g + 1) % 500 == 0:
            progress(f"lift: {g + 1} of {games} games")
    rows = []
    for (kind, f), by_seat in stats.items():
        strata = [(w1, n1, seat_w[p] - w1, seat_n[p] - n1) for p, (w1, n1) in enumerate(by_seat)]
        est = stratified(strata)
        if est is None:
            continue        # no seat both with and without it: nothing to compare (or only seat against seat)
        w1 = sum(x[0] for x in strata)
        n1 = sum(x[1] for x in strata)
        w0 = sum(x[2] for x in strata)
        n0 = sum(x[3] for x in strata)
        rows.append({"kind": kind, "feature": f[0], "name": _label(rs, f), "class": f[1] if f[0] == "class"
                     else face_class[f[1]], "with": {"n": n1, "win_rate": w1 / n1 if n1 else None},
                     "without": {"n": n0, "win_rate": w0 / n0 if n0 else None}, "lift": est["lift"],
                     "ci95": est["ci95"], "p": est["p"], "seats_compared": est["strata"]})
    for r, adj in zip(rows, holm([r["p"] for r in rows])):
        r["p_holm"] = adj
        r["beyond_noise"] = adj is not None and adj < 0.05
    rows.sort(key=lambda r: (not r["beyond_noise"], -abs(r["lift"])))
    found = [r for r in rows if r["beyond_noise"]]
    return {"game": game.name, "spec": path, "players": players, "options": opts, "seed": seed, "games": games,
            "failed": failed, "bots": kinds, "hand_zones": sorted({rs.zone_label[z].split("[")[0]
                                                                    for zs in hands.values() for z in zs}),
            "features": rows, "findings": [sentence(r) for r in found[:MAX_FINDINGS]],
            "left_out": max(0, len(found) - MAX_FINDINGS), "compared": len(rows)}


def _signed(x) -> str:
    v = round(100 * x)
    return f"+{v}%" if v > 0 else f"{v}%"


def sentence(r) -> str:
    """'a crown in the opening hand: +9% [5, 13]' / 'playing a crown: ...' (with the win rates)."""
    what = r["name"]
    head = f"a {what} in the opening hand" if r["kind"] == "held" else f"playing a {what}"
    lo, hi = r["ci95"]
    return (f"{head}: {_signed(r['lift'])} [{100 * lo:.0f}, {100 * hi:.0f}] (wins {100 * r['with']['win_rate']:.0f}% "
            f"of {r['with']['n']} seats, against {100 * r['without']['win_rate']:.0f}% without; Holm-adjusted "
            f"p = {r['p_holm']:.2g})")


def lines(out) -> list:
    rows = [f"which cards decide games: {out['game']}, {out['players']} players, {out['games']} games "
            f"({', '.join(out['bots'])}); opening hand: {', '.join(out['hand_zones']) or 'no hidden per-player zone'}"]
    if out["findings"]:
        rows += [f"  {s}" for s in out["findings"]]
        if out["left_out"]:
            rows.append(f"  ({out['left_out']} more beyond noise)")
    else:
        rows.append(f"  no card's lift is beyond noise ({out['compared']} comparisons, Holm-adjusted p >= 0.05)")
    rows.append(f"({out['compared']} comparisons: holding and playing each class, and each face of a class with "
                f"at most {FEW_FACES}; Holm's correction over all of them)")
    if out["failed"]:
        rows.append(f"({out['failed']} games did not finish and are left out)")
    return rows


def run_cli(args, game=None) -> int:
    """`gamespec simulate SPEC --lift`: args.file, args.games, args.players, args.seed, args.option,
    args.bot, args.engine, args.json (the ones present). Prints the lifts; returns the exit code."""
    import json
    import secrets
    import sys

    import gamespec
    from gamespec.bots import kinds_from_args
    from gamespec.config import options_from_pairs, player_count
    if game is None:
        game = gamespec.load(args.file)
    players = player_count(game, getattr(args, "players", None))
    opts = options_from_pairs(game, getattr(args, "option", None) or ())
    seed = getattr(args, "seed", None)
    seed = secrets.randbits(63) if seed is None else seed
    bots = kinds_from_args(getattr(args, "bot", None), players) if getattr(args, "bot", None) else None
    as_json = getattr(args, "json", False)
    out = run(args.file, games=getattr(args, "games", 1000), players=players, seed=seed, options=opts, bots=bots,
              engine=getattr(args, "engine", "python"), game=game,
              progress=None if as_json else (lambda t: print(t, file=sys.stderr, flush=True)))
    if as_json:
        print(json.dumps(out, indent=2))
    else:
        for line in lines(out):
            print(line)
    return 0
