"""Two record sets → per figure (seat win rates, tie or success rate, score means, game length, and the
per-game metrics when both record them: lead changes, decisiveness, winner deficit, action shares;
draw and unfinished rates): both values with their 95% intervals, the difference, a two-sided p-value
(two-proportion z or Welch t), Holm-adjusted over all the figures, whether it is beyond noise at the 5%
family-wise level, and what changed in words (two versions of a spec: paired by configuration)."""
from __future__ import annotations

import math

from .findings import num, pct, points, pvalue
from .stats import _fmt, config_key, config_label, describe, members_text, norm_sf, samples, sides, t_sf, wilson

ALPHA = 0.05
MAX_ACTION_FIGURES = 30    # action shares compared per pair of configurations (the most played ones)
MAX_CHANGES = 50           # "what changed" sentences; the rest are counted
MAX_VERSIONS = 4           # spec versions (SHA-256) noted per configuration
NOTE = ("p-values are two-sided (two-proportion z-test for rates, Welch's t-test for means) and "
        "Holm-adjusted over all {m} figures compared (family-wise error {alpha:.0%}); a figure 'differs' "
        "only if its adjusted p < {alpha}. With the same seeds in both studies the tests are "
        "conservative.")


def two_proportions(x1, n1, x2, n2):
    """Pooled two-proportion z-test → p (None if undefined)."""
    if n1 == 0 or n2 == 0:
        return None
    p = (x1 + x2) / (n1 + n2)
    se = math.sqrt(p * (1 - p) * (1 / n1 + 1 / n2))
    if se == 0:
        return 1.0 if x1 / n1 == x2 / n2 else 0.0
    z = (x1 / n1 - x2 / n2) / se
    return 2 * norm_sf(abs(z))


def welch(a, b):
    """Welch's unequal-variance t-test → p (None with fewer than 2 values on a side)."""
    n1, n2 = len(a), len(b)
    if n1 < 2 or n2 < 2:
        return None
    m1, m2 = math.fsum(a) / n1, math.fsum(b) / n2
    v1 = math.fsum((x - m1) ** 2 for x in a) / (n1 - 1)
    v2 = math.fsum((x - m2) ** 2 for x in b) / (n2 - 1)
    se2 = v1 / n1 + v2 / n2
    if se2 == 0:
        return 1.0 if m1 == m2 else 0.0
    t = (m1 - m2) / math.sqrt(se2)
    df = se2 ** 2 / ((v1 / n1) ** 2 / (n1 - 1) + (v2 / n2) ** 2 / (n2 - 1))
    return 2 * t_sf(abs(t), df)


def holm(ps):
    """Holm's step-down adjustment of p-values (None stays None)."""
    idx = sorted((i for i, p in enumerate(ps) if p is not None), key=lambda i: ps[i])
    m = len(idx)
    out = [None] * len(ps)
    running = 0.0
    for rank, i in enumerate(idx):
        running = max(running, min(1.0, (m - rank) * ps[i]))
        out[i] = running
    return out


def _mean(xs):
    return math.fsum(xs) / len(xs) if xs else None


def per_game(records, into):
    """Yield every row of `records` unchanged, noting per configuration (stats.config_key) in `into`
    the per-game figures the metrics need: 'lead_changes', 'decided_at', 'winner_deficit' (traced
    games that have them), 'draws' (finished competitive games: 1 for a shared win or no winner),
    'no_winner' (their count), 'unfinished' (every game: 1 for an error row), 'shares' ({action:
    [share of the game's decisions]}, traced games), 'counts' ({action: total}), 'traced', 'sha' (the
    spec versions seen, at most MAX_VERSIONS)."""
    for rec in records:
        key = config_key(rec)
        d = into.get(key)
        if d is None:
            d = into[key] = {"lead_changes": [], "decided_at": [], "winner_deficit": [], "draws": [],
                             "no_winner": 0, "unfinished": [], "shares": {}, "counts": {}, "traced": 0,
                             "sha": []}
        sha = rec.get("spec_sha256")
        if sha and sha not in d["sha"] and len(d["sha"]) < MAX_VERSIONS:
            d["sha"].append(sha)
        if "error" in rec:
            d["unfinished"].append(1)
            yield rec
            continue
        d["unfinished"].append(0)
        if not rec.get("cooperative"):
            k = sides(rec.get("winners") or (), rec.get("teams"))     # a team's win is a win
            d["draws"].append(1 if k != 1 else 0)
            d["no_winner"] += k == 0
        acts = rec.get("actions")
        if acts is not None:
            d["traced"] += 1
            for name in ("lead_changes", "decided_at", "winner_deficit"):
                if rec.get(name) is not None:
                    d[name].append(rec[name])
            n = rec.get("decisions") or 0
            for name, c in acts.items():
                d["counts"][name] = d["counts"].get(name, 0) + c
                if n:
                    d["shares"].setdefault(name, []).append(c / n)
        yield rec


def _pairs(a_groups, b_groups):
    common = [k for k in a_groups if k in b_groups]
    if common:
        return [(k, k) for k in common]
    if len(a_groups) == 1 and len(b_groups) == 1:
        return [(next(iter(a_groups)), next(iter(b_groups)))]
    return []


def _versus(ka, kb) -> str:
    """'Game: 4 players, x=1 vs x=2': what the two configurations share, then how they differ."""
    ga, pa, oa, ba = ka
    gb, pb, ob, bb = kb
    if ga != gb:
        return f"{config_label(ka)} vs {config_label(kb)}"
    da, db = dict(oa), dict(ob)
    same = [f"{pa} players"] if pa == pb else []
    same += [f"{k}={_fmt(v)}" for k, v in oa if db.get(k, object()) == v]
    diff_a = ([] if pa == pb else [f"{pa} players"]) + [f"{k}={_fmt(v)}" for k, v in oa if db.get(k, object()) != v]
    diff_b = ([] if pa == pb else [f"{pb} players"]) + [f"{k}={_fmt(v)}" for k, v in ob if da.get(k, object()) != v]
    if ba != bb:
        diff_a.append("bots=" + ",".join(ba))
        diff_b.append("bots=" + ",".join(bb))
    return f"{ga}: {', '.join(same) + ': ' if same else ''}{', '.join(diff_a)} vs {', '.join(diff_b)}"


def compare(records_a, records_b, pick=(), pick_a=(), pick_b=()) -> dict:
    """Record rows of A and B → {'pairs': [...], 'figures': [...], 'differ': [...], 'note': str}.

    `pick` ((KEY, VALUE) pairs, as `--config KEY=VALUE` gives them) keeps the configurations of both
    that match, `pick_a`/`pick_b` those of one side. Then configurations present in both are paired;
    if none is, the single configuration of each is. Raises ValueError (a PickError for a --config
    that names or matches nothing) listing the configurations of each, if nothing can be paired."""
    from .pick import listing
    from .pick import pick as select
    xa, xb = {}, {}
    la, lb = [], []         # the rows a skill ladder is made of (one kind against another), held in passing
    records_a, records_b = _ladder_rows(records_a, la), _ladder_rows(records_b, lb)
    ga, gb = samples(per_game(records_a, xa)), samples(per_game(records_b, xb))
    count = {"A": lambda k: len(ga[k]["decisions"]), "B": lambda k: len(gb[k]["decisions"])}
    ga = select(select(ga, list(pick), "A", count["A"]), list(pick_a), "A", count["A"])
    gb = select(select(gb, list(pick), "B", count["B"]), list(pick_b), "B", count["B"])
    pairs = _pairs(ga, gb)
    if not pairs:
        raise ValueError("the two record sets share no configuration (and do not hold one each): "
                         f"A has: {listing(ga, count['A'])}. B has: {listing(gb, count['B'])}. "
                         "Pick one of each with --config KEY=VALUE (both files) or --config-a / --config-b "
                         "KEY=VALUE (one file); KEY is game, players, bots or an option")
    figures, versions = [], []
    for ka, kb in pairs:
        a, b = ga[ka], gb[kb]
        label = config_label(ka) if ka == kb else _versus(ka, kb)

        def rate(name, xa, xb):
            na, nb = len(xa), len(xb)
            sa, sb = math.fsum(xa), math.fsum(xb)
            figures.append({"config": label, "figure": name, "kind": "rate", "a": sa / na if na else None,
                            "b": sb / nb if nb else None, "p": two_proportions(sa, na, sb, nb),
                            "n_a": na, "n_b": nb, "ci_a": list(wilson(sa, na)), "ci_b": list(wilson(sb, nb))})

        def mean(name, xa, xb, kind="mean", lo=None, hi=None):
            figures.append({"config": label, "figure": name, "kind": kind, "a": _mean(xa), "b": _mean(xb),
                            "p": welch(xa, xb), "n_a": len(xa), "n_b": len(xb),
                            "ci_a": describe(xa, lo, hi)["ci95"], "ci_b": describe(xb, lo, hi)["ci95"]})

        if a["cooperative"] or b["cooperative"]:
            rate("success rate", a["success"], b["success"])
            mean("team score", a["scores"][0], b["scores"][0])
        elif a["teams"] is not None and a["teams"] == b["teams"]:
            # the same teams on both sides: partners win and score together, so each team's figures once
            members = {}
            for p, t in enumerate(a["teams"]):
                members.setdefault(t, []).append(p)
            for t, ms in sorted(members.items()):
                rate(f"team {t} ({members_text(ms)}) win rate", a["team_shares"][t], b["team_shares"][t])
            rate("draw rate", xa[ka]["draws"], xb[kb]["draws"])
            for t, ms in sorted(members.items()):
                mean(f"team {t} ({members_text(ms)}) score", a["scores"][ms[0]], b["scores"][ms[0]])
        else:
            for p in range(min(len(a["shares"]), len(b["shares"]))):
                rate(f"seat {p} win rate", a["shares"][p], b["shares"][p])
            if a["teams"] is None and b["teams"] is None and not a["teams_vary"] and not b["teams_vary"]:
                rate("tie rate", a["ties"], b["ties"])
            else:       # teams on a side: its draws are wins shared by teams (or no winner)
                rate("draw rate", xa[ka]["draws"], xb[kb]["draws"])
            for p in range(min(len(a["scores"]), len(b["scores"]))):
                mean(f"seat {p} score", a["scores"][p], b["scores"][p])
        mean("decisions per game", a["decisions"], b["decisions"], lo=0)
        mean("turns per game", a["turns"], b["turns"], lo=0)
        ea, eb = xa[ka], xb[kb]
        for field, name, kind, hi in (("lead_changes", "lead changes per game", "mean", None),
                                      ("decided_at", "decided at", "share", 1),
                                      ("winner_deficit", "winner deficit", "mean", None)):
            if ea[field] and eb[field]:            # traced on both sides (none for a cooperative game)
                mean(name, ea[field], eb[field], kind, lo=0, hi=hi)
        if (ea["no_winner"] or eb["no_winner"]) and not any(f["config"] == label and f["figure"] == "draw rate"
                                                            for f in figures):    # else the tie rate says it
            rate("draw rate", ea["draws"], eb["draws"])
        if any(ea["unfinished"]) or any(eb["unfinished"]):
            rate("unfinished rate", ea["unfinished"], eb["unfinished"])
        if ea["traced"] and eb["traced"]:
            both = [n for n in ea["shares"] if n in eb["shares"]]
            both.sort(key=lambda n: (-(ea["counts"].get(n, 0) + eb["counts"].get(n, 0)), n))
            for name in both[:MAX_ACTION_FIGURES]:
                mean(f"share of decisions: {name}", ea["shares"][name], eb["shares"][name], "share")
        versions.append([ea["sha"], eb["sha"]])
    adjusted = holm([f["p"] for f in figures])
    for f, adj in zip(figures, adjusted):
        f["diff"] = None if f["a"] is None or f["b"] is None else f["b"] - f["a"]
        f["p_holm"] = adj
        f["differs"] = adj is not None and adj < ALPHA
    m = sum(1 for f in figures if f["p"] is not None)
    out = {"pairs": [[config_label(ka), config_label(kb)] for ka, kb in pairs], "figures": figures,
           "differ": [f"{f['config']}: {f['figure']}" for f in figures if f["differs"]],
           "versions": versions, "alpha": ALPHA, "note": NOTE.format(m=m, alpha=ALPHA)}
    out["changes"] = changes(out)
    # a skill ladder on either side (simulate --ladder --records): its sentence, A's and B's
    from .ladder import summary_sentences
    from .stats import summarize
    out["ladder"] = {"a": summary_sentences(summarize(la)) if la else [],
                     "b": summary_sentences(summarize(lb)) if lb else []}
    return out


def _ladder_rows(records, keep):
    """The records, passed through in one pass; those whose seats hold exactly two bot kinds, one of
    them in a single seat (a ladder's step), also appended to `keep`."""
    for r in records:
        bots = r.get("bots") if isinstance(r, dict) else None
        if isinstance(bots, list) and bots and all(isinstance(b, str) for b in bots):
            kinds = set(bots)
            if len(kinds) == 2 and min(bots.count(k) for k in kinds) == 1:
                keep.append(r)
        yield r


def _value(f, x, ci):
    return pct(x, ci) if f["kind"] in ("rate", "share") else num(x, ci)


def change_sentence(f) -> str:
    """One figure beyond noise in words: 'lead changes per game: 1.20 [1.05, 1.35] in A, 2.31 [2.10,
    2.52] in B, up 1.11 (Holm-adjusted p = 3e-12)'."""
    d = f["diff"]
    way = "up" if d > 0 else "down"
    size = points(abs(d)) if f["kind"] in ("rate", "share") else f"{abs(d):.3g}"
    return (f"{f['figure']}: {_value(f, f['a'], f.get('ci_a'))} in A, {_value(f, f['b'], f.get('ci_b'))} in B, "
            f"{way} {size} (Holm-adjusted {pvalue(f['p_holm'])})")


def changes(r) -> list:
    """A comparison → what changed beyond noise, in words: which spec versions were paired, then one
    sentence per figure that differs (prefixed by its configuration when several were paired), or
    that nothing did."""
    out = []
    several = len(r["pairs"]) > 1
    for pair, (sa, sb) in zip(r["pairs"], r.get("versions") or []):
        la, lb = pair
        if sa and sb and set(sa) != set(sb):
            where = la if la == lb else f"{la} and {lb}"
            short = lambda shas: " or ".join(x[:12] for x in shas)       # noqa: E731
            out.append(f"A and B are different versions of the spec (SHA-256 {short(sa)} and {short(sb)}), "
                       f"paired by configuration: {where}")
    differ = [f for f in r["figures"] if f["differs"]]
    for f in differ[:MAX_CHANGES]:
        out.append((f"{f['config']}: " if several else "") + change_sentence(f) if f.get("diff") is not None
                   else f"{f['config']}: {f['figure']} differs")
    if len(differ) > MAX_CHANGES:
        out.append(f"and {len(differ) - MAX_CHANGES} more figures differ beyond noise")
    if not differ:
        m = sum(1 for f in r["figures"] if f["p"] is not None)
        out.append(f"nothing changed beyond noise: no figure's Holm-adjusted p is below {r.get('alpha', ALPHA)} "
                   f"({m} figures compared)")
    return out
