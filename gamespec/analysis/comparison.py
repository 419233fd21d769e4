"""Two record sets → per figure (seat win rates, tie or success rate, score means, game length): both
values, the difference, a two-sided p-value (two-proportion z or Welch t), Holm-adjusted over all the
figures, and whether it is beyond noise at the 5% family-wise level."""
from __future__ import annotations

import math

from .stats import _fmt, config_label, norm_sf, samples, t_sf

ALPHA = 0.05
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
    ga, gb = samples(records_a), samples(records_b)
    count = {"A": lambda k: len(ga[k]["decisions"]), "B": lambda k: len(gb[k]["decisions"])}
    ga = select(select(ga, list(pick), "A", count["A"]), list(pick_a), "A", count["A"])
    gb = select(select(gb, list(pick), "B", count["B"]), list(pick_b), "B", count["B"])
    pairs = _pairs(ga, gb)
    if not pairs:
        raise ValueError("the two record sets share no configuration (and do not hold one each): "
                         f"A has: {listing(ga, count['A'])}. B has: {listing(gb, count['B'])}. "
                         "Pick one of each with --config KEY=VALUE (both files) or --config-a / --config-b "
                         "KEY=VALUE (one file); KEY is game, players, bots or an option")
    figures = []
    for ka, kb in pairs:
        a, b = ga[ka], gb[kb]
        label = config_label(ka) if ka == kb else _versus(ka, kb)

        def rate(name, xa, xb):
            na, nb = len(xa), len(xb)
            sa, sb = math.fsum(xa), math.fsum(xb)
            figures.append({"config": label, "figure": name, "kind": "rate", "a": sa / na if na else None,
                            "b": sb / nb if nb else None, "p": two_proportions(sa, na, sb, nb),
                            "n_a": na, "n_b": nb})

        def mean(name, xa, xb):
            figures.append({"config": label, "figure": name, "kind": "mean", "a": _mean(xa), "b": _mean(xb),
                            "p": welch(xa, xb), "n_a": len(xa), "n_b": len(xb)})

        if a["cooperative"] or b["cooperative"]:
            rate("success rate", a["success"], b["success"])
            mean("team score", a["scores"][0], b["scores"][0])
        else:
            for p in range(min(len(a["shares"]), len(b["shares"]))):
                rate(f"seat {p} win rate", a["shares"][p], b["shares"][p])
            rate("tie rate", a["ties"], b["ties"])
            for p in range(min(len(a["scores"]), len(b["scores"]))):
                mean(f"seat {p} score", a["scores"][p], b["scores"][p])
        mean("decisions per game", a["decisions"], b["decisions"])
        mean("turns per game", a["turns"], b["turns"])
    adjusted = holm([f["p"] for f in figures])
    for f, adj in zip(figures, adjusted):
        f["diff"] = None if f["a"] is None or f["b"] is None else f["b"] - f["a"]
        f["p_holm"] = adj
        f["differs"] = adj is not None and adj < ALPHA
    m = sum(1 for f in figures if f["p"] is not None)
    return {"pairs": [[config_label(ka), config_label(kb)] for ka, kb in pairs], "figures": figures,
            "differ": [f"{f['config']}: {f['figure']}" for f in figures if f["differs"]],
            "alpha": ALPHA, "note": NOTE.format(m=m, alpha=ALPHA)}
