"""Study results and comparisons → text lines, as `gamespec simulate` and `gamespec compare` print them
(the same figures as their --json output, rounded for reading)."""
from __future__ import annotations

import re


def _num(x, spec=""):
    return "-" if x is None else format(x, spec)


def _pct(x):
    return "-" if x is None else f"{100 * x:.1f}%"


def _ci(c, f):
    return "-" if c is None or c[0] is None else f"{f(c[0])}-{f(c[1])}"


def _dec(x):
    return _num(x, ".2f")


def study_lines(r):
    """One configuration's run_study result → its summary: per seat win rate and score with 95%
    intervals (or the team's success and score), seat advantage, ties and margin, length, speed."""
    from gamespec.config import format_options
    num, pct, ci, dec = _num, _pct, _ci, _dec
    sm = r["summary"]
    last = r["seed"] + r["games_requested"] - 1
    seeds = {0: "no games", 1: f"seed {r['seed']}"}.get(r["games_requested"], f"seeds {r['seed']}..{last}")
    rots = r.get("rotations", 1)
    what = (f"{r['games_requested']} deals x {rots} rotations of the seats" if rots > 1
            else f"{r['games_requested']} games")
    yield f"{r['game']}: {what} ({seeds}), {r['players']} players, options: {format_options(r['options'])}"
    if r.get("interrupted"):
        yield (f"  interrupted: {r['summary']['games_finished']} games finished (the figures below are of those "
               "games)")
    if r.get("resumed"):
        yield (f"  resumed: {r['resumed']} games read back from {r.get('records', 'the records file')}, "
               f"{r.get('games_played', 0)} played now")
    if not sm["games_finished"] and r["errors"]:     # no figures to show: say so, and no empty table
        n, total = len(r["errors"]), sm.get("games", len(r["errors"]))
        which = "the game" if total == 1 else f"all {n} games" if n == total else f"{n} of {total} games"
        yield f"  no game finished: {which} failed (why, and how to play one again: below)"
        yield f"  errors: {n}"
        return
    if sm["cooperative"]:
        sc, su = sm["team_score"], sm["success"]
        q = sc["quantiles"]
        yield f"  cooperative: success rate {pct(su['rate'])} (95% {ci(su['ci95'], pct)})"
        yield (f"  team score: mean {dec(sc['mean'])} (95% {ci(sc['ci95'], dec)}), sd {dec(sc['sd'])}, "
               f"min {num(sc['min'])}, 5/25/50/75/95%: "
               f"{'/'.join(num(q.get(k), 'g') for k in ('5%', '25%', '50%', '75%', '95%'))}, max {num(sc['max'])}")
    else:
        teams = sm.get("teams")
        if teams is not None:
            yield from _team_lines(teams)
        yield (f"  {'seat':>4}  {'win rate':>8}  {'95% interval':>13}  {'score mean':>10}  {'95% interval':>13}"
               f"  {'sd':>6}  {'min':>5}  {'median':>6}  {'max':>5}")
        for x in sm["seats"]:
            sc = x["score"]
            yield (f"  {x['seat']:>4}  {pct(x['win_rate']):>8}  {ci(x['ci95'], pct):>13}  {dec(sc['mean']):>10}"
                   f"  {ci(sc['ci95'], dec):>13}  {dec(sc['sd']):>6}  {num(sc['min']):>5}"
                   f"  {num(sc['quantiles'].get('50%'), 'g'):>6}  {num(sc['max']):>5}")
        adv = sm["seat_advantage"]
        if adv is not None:
            note = " (shared wins counted fractionally)" if adv["fractional_wins"] else ""
            from .findings import seat_words
            from .stats import seat_test_name
            yield (f"  seat advantage ({seat_test_name(adv)}): {adv['statistic']:.2f} (df {adv['df']}), "
                   f"p = {adv['p']:.3g}: {seat_words(sm)}{note}")
        elif teams is not None and teams.get("varies"):
            yield "  seat advantage: not tested (the teams differ from game to game)"
        t, m = sm["ties"], sm["margin"]
        games = "game" if t["count"] == 1 else "games"
        what = "draws (a win shared by teams)" if teams is not None else "shared wins"
        yield (f"  {what}: {t['count']} {games} ({pct(t['rate'])}); margin of victory: mean "
               f"{num(m['mean'], '.2f')}, median {num(m['quantiles'].get('50%'), 'g')}")
    d, tu, ph = (sm["length"][k] for k in ("decisions", "turns", "phases"))
    yield (f"  decisions per game: mean {num(d['mean'], '.1f')} (sd {num(d['sd'], '.1f')}), "
           f"min {num(d['min'])}, median {num(d['quantiles'].get('50%'), 'g')}, max {num(d['max'])}; "
           f"turns mean {num(tu['mean'], '.1f')}; phases mean {num(ph['mean'], '.1f')}")
    yield from _more_lines(sm)
    yield (f"  {r['games_finished']} games finished in {r['seconds']:.2f} s: "
           f"{num(r['games_per_second'], '.1f')} games/s with {r['workers']} worker(s)"
           f"{' on Ray' if r.get('backend') == 'ray' else ''}")
    yield f"  errors: {len(r['errors'])}"


def _team_lines(teams):
    """A team game's teams: members, wins (games the team won alone) with 95% intervals; each seat's
    win rate below is its team's."""
    if teams.get("varies"):
        yield "  teams: they differ from game to game; a seat's win rate is the rate its team won"
        return
    yield f"  {'team':>4}  {'seats':<12}  {'win rate':>8}  {'95% interval':>13}  (a seat's win rate is its team's)"
    for t in teams["teams"]:
        seats = ", ".join(map(str, t["members"]))
        yield f"  {t['team']:>4}  {seats:<12}  {_pct(t['win_rate']):>8}  {_ci(t['ci95'], _pct):>13}"


def _more_lines(sm):
    """Issue 30's lines of a summary: bot strength (a rotated study), the restriction's cost, the
    metrics in one or two compact lines, then the findings for the configuration."""
    from .findings import HOW_TO_RECORD, config_findings, fair_share, num, pct, points
    kinds = sm.get("kinds") or []
    if kinds and sm.get("rotated"):
        yield (f"  bot strength over {sm.get('rotations', 1)} rotations (win rate per seat held, fair share "
               f"{pct(fair_share(sm))}):")
        yield f"    {'kind':<24} {'seats':>5} {'seat-games':>10} {'win rate':>9} {'95% interval':>13}"
        for k in kinds:
            yield (f"    {k['kind']:<24} {k['seats']:>5} {k['seat_games']:>10} {_pct(k['win_rate']):>9}"
                   f" {_ci(k['ci95'], _pct):>13}")
    rc = sm.get("restriction_cost")
    if sm.get("restriction") is not None and rc:
        yield (f"  restriction {sm['restriction']}: wins {pct(rc['win_rate'], rc['ci95'])} against the fair "
               f"{pct(rc['fair'])}: cost {points(rc['cost'], rc['cost_ci95'])}")
    m = sm.get("metrics")
    if m is not None:
        parts = []
        dr = m.get("draws") or {}
        if not sm["cooperative"] and dr.get("rate") is not None:
            parts.append(f"draws {pct(dr['rate'], dr['ci95'])}")
        un = m.get("unfinished") or {}
        if un.get("count"):
            reasons = reason_words(un.get("reasons"))
            parts.append(f"unfinished {un['count']} ({pct(un['rate'], un['ci95'])}{': ' + reasons if reasons else ''})")
        if m.get("recorded"):
            lc, da, wd, cb = (m.get(k) or {} for k in ("lead_changes", "decided_at", "winner_deficit", "comeback"))
            if lc.get("n"):
                parts.append(f"lead changes {num(lc['mean'], lc['ci95'])}/game")
            if da.get("n"):
                parts.append(f"decided at {pct(da['mean'], da['ci95'])}")
            if wd.get("n"):
                parts.append(f"winner deficit {num(wd['mean'], wd['ci95'])}, comebacks {pct(cb.get('rate'), cb.get('ci95'))}")
            if parts:
                yield f"  metrics ({m['recorded']} traced games): " + "; ".join(parts)
            acts = [a for a in m.get("actions") or [] if a.get("count")]
            if acts:
                shown = ", ".join(f"{a['action']} {pct(a['share'])}" for a in acts[:8])
                more = f", {len(acts) - 8} more" if len(acts) > 8 else ""
                never = m.get("never_played") or []
                nv = f"; never played: {', '.join(never[:8])}{' ...' if len(never) > 8 else ''}" if never else ""
                yield f"  actions (share of decisions): {shown}{more}{nv}"
        elif sm["games_finished"]:      # (no game finished: nothing to record, whatever --trace said)
            yield "  metrics: " + "; ".join(parts + [f"lead changes, decisiveness, drama, actions not recorded "
                                                     f"({HOW_TO_RECORD})"])
        elif parts:
            yield "  metrics: " + "; ".join(parts)
    said = ("length", "not_recorded", "draws", "unfinished", "lead_changes", "decided_at", "drama", "actions",
            "never_played")             # in the lines above
    items = [it for it in config_findings(sm) if it["kind"] not in said]
    if items:
        yield "  findings:"
        for it in items:
            yield f"    - {it['text']}"


def verdict_lines(outs):
    """run_study results → the study's verdict (findings.verdict), the line `simulate` opens with."""
    from .findings import verdict
    v = verdict([r["summary"] for r in outs])
    if v is not None:
        yield v


def ranking_lines(outs):
    """run_study results → restricted play as one table, the restricted seat's win rate highest (most
    dominant) first, each with its 95% interval, the cost against the fair share and the verdict;
    nothing without restricted play."""
    from .findings import points, restriction_ranking
    rows = restriction_ranking([r["summary"] for r in outs])
    if not rows:
        return
    several = len({r["group"] for r in rows}) > 1
    width = max(11, *(len(r["restriction"]) for r in rows))
    yield (f"restricted play, most dominant first (the restricted seat's win rate against the fair "
           f"{_pct(rows[0]['fair'])}; cost = fair share - win rate):")
    yield f"  {'restriction':<{width}}  {'win rate':>8}  {'95% interval':>13}  {'cost':>22}  verdict"
    for r in rows:
        cost = points(r["cost"], r["cost_ci95"]) if r["cost"] is not None else "-"
        where = f"  ({r['group']})" if several else ""
        yield (f"  {r['restriction']:<{width}}  {_pct(r['win_rate']):>8}  {_ci(r['ci95'], _pct):>13}  {cost:>22}"
               f"  {r['verdict']}{where}")


MAX_FAILURE_KINDS = 10     # kinds of failure listed; the rest are counted
MAX_SEEDS_SHOWN = 8        # seeds listed per kind

#: why a game did not end (records' `reason`, gamespec.simulate.reason_of) in words, with its count
REASON_WORDS = {"rule": "a rule failed in {n}", "budget": "a budget of the spec ran out in {n}",
                "timeout": "{n} ran past the time limit", "internal": "an internal error in {n}"}


def reason_words(reasons) -> str:
    """{"rule": 20, ...} → 'a rule failed in 20, ...' (an unknown reason as 'NAME in N')."""
    return ", ".join(REASON_WORDS.get(k, k + " in {n}").format(n=v) for k, v in (reasons or {}).items())


def failure_message(e) -> str:
    """A failed game's message as a user reads it: a spec's error as the spec's checker prints it
    (FILE:LINE:COL ...: error: ...), without the Python class name the 'error' field starts with; an
    internal error keeps it (it names the bug)."""
    msg = e["error"]
    if not e.get("internal"):
        msg = re.sub(r"^[A-Z][A-Za-z]*Error: ", "", msg, count=1)
    return msg


def _seeds(seeds) -> str:
    if len(seeds) == 1:
        return f"seed {seeds[0]}"
    if len(seeds) > 3 and seeds == list(range(seeds[0], seeds[0] + len(seeds))):
        return f"seeds {seeds[0]} to {seeds[-1]}"
    shown = ", ".join(map(str, seeds[:MAX_SEEDS_SHOWN])) + (", ..." if len(seeds) > MAX_SEEDS_SHOWN else "")
    return f"seeds {shown}"


def failure_lines(errors, total=None):
    """Failed games ({"seed", "error"} each; "rerun": the command line that plays that game again),
    grouped by message: 'N of TOTAL games failed (seeds ...):' with the message on the next line
    (indented; a spec's error starts with its FILE:LINE:COL), then the command that plays the first
    failed game again, when the errors carry one."""
    groups = {}         # message -> [games, {seed: None}] (a rotated study plays a seed's deal in several seatings)
    for e in errors:
        g = groups.setdefault(failure_message(e), [0, {}])
        g[0] += 1
        g[1][e["seed"]] = None
    for i, (msg, (n, seeds)) in enumerate(groups.items()):
        if i == MAX_FAILURE_KINDS:
            yield f"... and {len(groups) - MAX_FAILURE_KINDS} more kinds of failure"
            break
        count = (f"{n} of {total} games" if total is not None and total > 1
                 else f"{n} game" if n == 1 else f"{n} games")
        yield f"{count} failed ({_seeds(sorted(seeds))}):"
        yield f"  {msg}"
    first = next((e for e in errors if e.get("rerun")), None)
    if first is not None:
        yield f"to play the first failed game again (seed {first['seed']}):"
        yield f"  {first['rerun']}"


def comparison_lines(r):
    """A comparison (analysis.compare's result, with "a" and "b" naming the files) → a table per
    configuration (A, B, B-A, p, Holm-adjusted p, what differs), then what differs beyond noise."""
    yield f"A: {r['a']}"
    yield f"B: {r['b']}"

    def val(f, x):
        if x is None:
            return "-"
        return f"{100 * x:.1f}%" if f["kind"] in ("rate", "share") else f"{x:.2f}"

    def diff(f):
        if f["diff"] is None:
            return "-"
        return f"{100 * f['diff']:+.1f}%" if f["kind"] in ("rate", "share") else f"{f['diff']:+.2f}"

    width = max([20] + [len(f["figure"]) for f in r["figures"][:200]])

    current = None
    for f in r["figures"]:
        if f["config"] != current:
            current = f["config"]
            yield f"{current}  (games: A {f['n_a']}, B {f['n_b']})"
            yield f"  {'figure':<{width}} {'A':>9} {'B':>9} {'B-A':>9} {'p':>8} {'p (Holm)':>9}"
        p = "-" if f["p"] is None else f"{f['p']:.3g}"
        ph = "-" if f["p_holm"] is None else f"{f['p_holm']:.3g}"
        mark = "  <- differs" if f["differs"] else ""
        yield f"  {f['figure']:<{width}} {val(f, f['a']):>9} {val(f, f['b']):>9} {diff(f):>9} {p:>8} {ph:>9}{mark}"
    changes = r.get("changes")
    if changes is None:
        from .comparison import changes as words
        changes = words(r)
    yield "what changed beyond noise, in words:"
    for line in changes:
        yield f"  - {line}"
    by_config = {}
    for f in r["figures"]:
        if f["differs"]:
            by_config.setdefault(f["config"], []).append(f["figure"])
    if not by_config:
        yield "beyond noise: nothing"
    for config, names in by_config.items():
        where = f" ({config})" if len(r["pairs"]) > 1 else ""
        yield f"beyond noise{where}: {', '.join(names)}"
    for side in ("a", "b"):             # the skill ladder of either side (simulate --ladder --records)
        for line in (r.get("ladder") or {}).get(side, []):
            yield f"skill ladder of {side.upper()}: {line}"
    yield "note: " + r["note"]
