"""Record rows (one or more configurations) → one self-contained HTML report: the study in words first
(findings.py: the list at the top, then per configuration), a summary table per configuration, then
matplotlib plots as inline SVG (win rates with Wilson intervals, score histograms per seat, game-length
histogram, configurations side by side; bot strength per kind for rotated studies, restriction costs,
lead changes and decisiveness when recorded), every figure with its 95% interval; optionally the plots
as PNG files too.

Records may come from anyone: every text (game, option, bot names) is drawn as plain text, never as
TeX, and the work is bounded: at most MAX_PLOTTED configurations are plotted and MAX_DETAILED get a
full table, the others one row each of an overview table (the report says so)."""
from __future__ import annotations

import contextlib
import html
import io
import os

from gamespec.errors import ReportError

from .comparison import per_game
from .findings import classify_cost, config_findings, finding_items, num, pct, points
from .findings import fair_share, seat_words, verdict
from .stats import config_key, config_label, members_text, samples, seat_test_name, seat_verdict, summarize

FIGURES = ("winrates", "strength", "restrictions", "scores", "length", "lead_changes", "decided_at")
MAX_PLOTTED = 12       # configurations drawn in the plots (the first ones, in the records' order)
MAX_DETAILED = 100     # configurations with a full table; the others get one row of an overview
MAX_RESTRICTIONS_PLOTTED = 40    # restricted-play configurations in the restriction-cost plot
COLOURS = ["#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3", "#8c8c8c",
           "#ccb974", "#64b5cd"]


def _figure(w, h):
    from matplotlib.figure import Figure
    return Figure(figsize=(w, h), layout="constrained")


@contextlib.contextmanager
def _plain_text():
    """While figures are made and drawn: a '$' in a name is a dollar sign, not TeX (mathtext would
    parse, and fail on, any text between two of them); SVG text stays text (searchable, small)."""
    import matplotlib
    with matplotlib.rc_context({"text.parse_math": False, "text.usetex": False, "svg.fonttype": "none"}):
        yield


def _colour(i):
    return COLOURS[i % len(COLOURS)]


def plot_winrates(summaries):
    """Seat win rates with Wilson 95% bars, configurations side by side; success rates for
    cooperative configurations."""
    comp = [s for s in summaries if not s["cooperative"]]
    coop = [s for s in summaries if s["cooperative"]]
    panels = (1 if comp else 0) + (1 if coop else 0)
    fig = _figure(max(6.0, 1.2 + 0.5 * sum(s["players"] for s in comp) + 0.8 * len(coop)), 3.6)
    axes = fig.subplots(1, max(1, panels), squeeze=False)[0]
    i = 0
    if comp:
        ax = axes[i]
        i += 1
        width = 0.8 / len(comp)
        seats = max(s["players"] for s in comp)
        for j, s in enumerate(comp):
            xs = [p + (j - (len(comp) - 1) / 2) * width for p in range(s["players"])]
            rates = [x["win_rate"] or 0.0 for x in s["seats"]]
            # max(0, ...): at 0 or all wins Wilson's bound equals the rate only up to rounding
            lo = [max(0.0, r - (x["ci95"][0] if x["ci95"][0] is not None else r)) for r, x in zip(rates, s["seats"])]
            hi = [max(0.0, (x["ci95"][1] if x["ci95"][1] is not None else r) - r) for r, x in zip(rates, s["seats"])]
            ax.bar(xs, rates, width * 0.9, yerr=[lo, hi], capsize=3, color=_colour(j),
                   label=_short(s), error_kw={"elinewidth": 1})
            fair = fair_share(s)
            ax.hlines(fair, min(xs) - width / 2, max(xs) + width / 2, colors=_colour(j), linestyles=":",
                      linewidth=1)
        ax.set_xticks(range(seats), [f"seat {p}" for p in range(seats)])
        ax.set_ylabel("win rate (95% Wilson interval)")
        ax.set_title("Seat win rates (dotted: the fair share)")
        ax.legend(fontsize=7, loc="upper right")
    if coop:
        ax = axes[i]
        rates = [s["success"]["rate"] or 0.0 for s in coop]
        lo = [max(0.0, r - (s["success"]["ci95"][0] or 0.0)) for r, s in zip(rates, coop)]
        hi = [max(0.0, (s["success"]["ci95"][1] or 0.0) - r) for r, s in zip(rates, coop)]
        ax.bar(range(len(coop)), rates, 0.6, yerr=[lo, hi], capsize=3,
               color=[_colour(j) for j in range(len(coop))])
        ax.set_xticks(range(len(coop)), [_short(s) for s in coop], rotation=20, fontsize=7, ha="right")
        ax.set_ylabel("success rate (95% Wilson interval)")
        ax.set_title("Team success rate")
    return fig


def plot_scores(summaries, data):
    """Score histograms per seat (team score for cooperative games), one panel per configuration,
    shared score axis."""
    n = len(summaries)
    fig = _figure(7.0, 1.2 + 2.0 * n)
    games = {s["game"] for s in summaries}
    axes = fig.subplots(n, 1, squeeze=False, sharex=len(games) == 1)[:, 0]
    bins = {}           # the same bins for every configuration of a game, so panels compare
    for g in games:
        xs = [x for s in summaries if s["game"] == g for seat in data[s["_key"]]["scores"] for x in seat]
        bins[g] = _bins(min(xs, default=0), max(xs, default=1))
    for ax, s in zip(axes, summaries):
        d = data[s["_key"]]
        if s["cooperative"]:
            ax.hist(d["scores"][0], bins=bins[s["game"]], color=_colour(0), alpha=0.8, label="team score")
        else:
            for p, xs in enumerate(d["scores"]):
                ax.hist(xs, bins=bins[s["game"]], histtype="step", linewidth=1.4, color=_colour(p), label=f"seat {p}")
        ax.set_title(config_label(s["_key"]), fontsize=9)
        ax.set_ylabel("games")
        ax.legend(fontsize=7, loc="upper right")
    for ax in axes if len(games) > 1 else axes[-1:]:
        ax.set_xlabel("final score")
    return fig


def plot_length(summaries, data):
    """Decisions per game, configurations overlaid."""
    fig = _figure(7.0, 3.2)
    ax = fig.subplots()
    xs_all = [x for s in summaries for x in data[s["_key"]]["decisions"]]
    bins = _bins(min(xs_all, default=0), max(xs_all, default=1))
    for j, s in enumerate(summaries):
        ax.hist(data[s["_key"]]["decisions"], bins=bins, histtype="step", linewidth=1.4, color=_colour(j),
                label=_short(s))
    ax.set_xlabel("decisions per game")
    ax.set_ylabel("games")
    ax.set_title("Game length")
    ax.legend(fontsize=7, loc="upper right")
    return fig


def _strength_rows(summaries):
    return [(s, k) for s in summaries if s.get("rotated") and not s["cooperative"] and s.get("restriction") is None
            for k in s.get("kinds") or [] if k.get("win_rate") is not None]


def plot_strength(summaries):
    """Bot strength in rotated studies: each kind's win rate per seat it held, Wilson 95% bars, and
    the fair share 1/P of its configuration."""
    import textwrap
    rows = _strength_rows(summaries)
    # long names (a restricted kind, a configuration with options) are wrapped, and the figure is as
    # wide as its labels need: a label is never cut off at the figure's edge
    labels = [textwrap.fill(f"{k['kind']} ({_short(s)})", 44, break_long_words=True) for s, k in rows]
    lines = sum(x.count("\n") + 1 for x in labels)
    widest = max((len(line) for x in labels for line in x.split("\n")), default=0)
    fig = _figure(max(7.0, 4.5 + 0.065 * widest), 1.0 + 0.2 * lines + 0.12 * len(rows))
    ax = fig.subplots()
    ys = list(range(len(rows)))[::-1]
    rates = [k["win_rate"] for _, k in rows]
    lo = [max(0.0, k["win_rate"] - k["ci95"][0]) for _, k in rows]
    hi = [max(0.0, k["ci95"][1] - k["win_rate"]) for _, k in rows]
    configs = list(dict.fromkeys(id(s) for s, _ in rows))
    ax.barh(ys, rates, 0.7, xerr=[lo, hi], capsize=3, error_kw={"elinewidth": 1},
            color=[_colour(configs.index(id(s))) for s, _ in rows])
    ax.scatter([fair_share(s) for s, _ in rows], ys, marker="|", s=200, color="#222", zorder=3,
               label="fair share")
    ax.set_yticks(ys, labels, fontsize=7)
    ax.set_xlabel("win rate per seat held (95% Wilson interval)")
    ax.set_title("Bot strength (rotated seats)")
    ax.legend(fontsize=7, loc="lower right")
    return fig


def _restriction_rows(summaries):
    return [s for s in summaries if s.get("restriction") is not None and s.get("restriction_cost")
            and s["restriction_cost"].get("win_rate") is not None][:MAX_RESTRICTIONS_PLOTTED]


VERDICT_COLOURS = {"costs": "#c44e52", "gains": "#55a868", "nothing": "#8c8c8c"}


def plot_restrictions(summaries):
    """The cost of each restriction (fair share minus the restricted seat's win rate), in percentage
    points with its 95% interval; red: a clear cost, green: a clear gain, grey: the interval holds 0."""
    rows = _restriction_rows(summaries)
    fig = _figure(7.0, 1.0 + 0.3 * len(rows))
    ax = fig.subplots()
    ys = list(range(len(rows)))[::-1]
    costs = [100 * s["restriction_cost"]["cost"] for s in rows]
    cis = [sorted(s["restriction_cost"]["cost_ci95"]) for s in rows]
    lo = [max(0.0, c - 100 * ci[0]) for c, ci in zip(costs, cis)]
    hi = [max(0.0, 100 * ci[1] - c) for c, ci in zip(costs, cis)]
    ax.barh(ys, costs, 0.7, xerr=[lo, hi], capsize=3, error_kw={"elinewidth": 1},
            color=[VERDICT_COLOURS[classify_cost(s["restriction_cost"])] for s in rows])
    ax.axvline(0, color="#222", linewidth=0.8)
    ax.set_yticks(ys, [f"{s['restriction']} ({_short(s)})" for s in rows], fontsize=7)
    ax.set_xlabel("cost in points (95% interval)")
    ax.set_title("Restricted play: cost of each restriction")
    return fig


METRIC_PLOTS = {"lead_changes": ("lead changes per game", "Lead changes"),
                "decided_at": ("decided at (fraction of the game's decisions)", "Decisiveness")}


def _metric_rows(summaries, name):
    return [s for s in summaries if ((s.get("metrics") or {}).get(name) or {}).get("n")]


def plot_metric(summaries, mdata, name):
    """A per-game metric's histogram, configurations overlaid; the mean as a line with its 95% t
    interval as a band."""
    xlabel, title = METRIC_PLOTS[name]
    rows = _metric_rows(summaries, name)
    fig = _figure(7.0, 3.2)
    ax = fig.subplots()
    xs_all = [x for s in rows for x in mdata[s["_key"]][name]]
    if name == "decided_at":
        bins = [k / 20 for k in range(21)]
    else:
        bins = _bins(min(xs_all, default=0), max(xs_all, default=1))
    for j, s in enumerate(rows):
        d = s["metrics"][name]
        ax.hist(mdata[s["_key"]][name], bins=bins, histtype="step", linewidth=1.4, color=_colour(j),
                label=_short(s))
        ax.axvline(d["mean"], color=_colour(j), linewidth=1, linestyle="--")
        if d["ci95"][0] is not None:
            ax.axvspan(d["ci95"][0], d["ci95"][1], color=_colour(j), alpha=0.15, linewidth=0)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("games")
    ax.set_title(f"{title} (dashed: mean, band: its 95% interval)")
    ax.legend(fontsize=7, loc="upper right")
    return fig


def _means(summaries, get, percent=False) -> str:
    def one(s):
        d = get(s)
        return pct(d["mean"], d["ci95"]) if percent else num(d["mean"], d["ci95"])
    return "; ".join(f"{_short(s)} {one(s)}" for s in summaries if get(s).get("n")) + "."


def _bins(lo, hi, most=40):
    lo, hi = int(lo // 1), int(-(-hi // 1))
    span = max(1, hi - lo + 1)
    step = max(1, -(-span // most))
    return [lo - 0.5 + k * step for k in range(span // step + 2)]


def _short(s):
    return config_label(s["_key"]).split(": ", 1)[-1]


def _svg(fig) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None})
    text = buf.getvalue()
    text = text[text.index("<svg"):]            # without the XML declaration and DOCTYPE
    a, b = text.find("<metadata>"), text.find("</metadata>")
    if 0 <= a < b:                              # creator/licence RDF: nothing a reader needs
        text = text[:a] + text[b + len("</metadata>"):]
    return text


def _num(x, spec=".3f"):
    return "–" if x is None else format(x, spec)


def _pct(x):
    return "–" if x is None else f"{100 * x:.1f}%"


def _ci(ci, pct=True):
    if ci is None or ci[0] is None:
        return "–"
    f = _pct if pct else (lambda v: _num(v, ".2f"))
    return f"{f(ci[0])} – {f(ci[1])}"


def _table(s) -> str:
    e = html.escape
    rows = []
    if s["cooperative"]:
        sc = s["team_score"]
        rows.append("<tr><th>success rate</th><th>95% interval</th><th>team score mean</th>"
                    "<th>95% interval</th><th>sd</th><th>5%</th><th>median</th><th>95%</th></tr>")
        q = sc["quantiles"]
        rows.append(f"<tr class='team'><td>{_pct(s['success']['rate'])}</td><td>{_ci(s['success']['ci95'])}</td>"
                    f"<td>{_num(sc['mean'], '.2f')}</td><td>{_ci(sc['ci95'], False)}</td>"
                    f"<td>{_num(sc['sd'], '.2f')}</td><td>{_num(q.get('5%'), '.1f')}</td>"
                    f"<td>{_num(q.get('50%'), '.1f')}</td><td>{_num(q.get('95%'), '.1f')}</td></tr>")
        extra = ""
    else:
        teams = s.get("teams")
        if teams is not None and not teams.get("varies"):
            rows.append("<tr><th>team</th><th>seats</th><th>win rate (games it won alone)</th>"
                        "<th>95% interval</th></tr>")
            rows += [f"<tr class='team' data-team='{t['team']}' data-win-rate='{t['win_rate']!r}'>"
                     f"<td>{t['team']}</td><td>{', '.join(map(str, t['members']))}</td><td>{_pct(t['win_rate'])}</td>"
                     f"<td>{_ci(t['ci95'])}</td></tr>" for t in teams["teams"]]
        rows.append("<tr><th>seat</th><th>win rate</th><th>95% interval</th><th>score mean</th>"
                    "<th>95% interval</th><th>sd</th><th>5%</th><th>median</th><th>95%</th></tr>")
        for x in s["seats"]:
            sc = x["score"]
            q = sc["quantiles"]
            rows.append(f"<tr class='seat' data-seat='{x['seat']}' data-win-rate='{x['win_rate']!r}'>"
                        f"<td>{x['seat']}</td><td>{_pct(x['win_rate'])}</td><td>{_ci(x['ci95'])}</td>"
                        f"<td>{_num(sc['mean'], '.2f')}</td><td>{_ci(sc['ci95'], False)}</td>"
                        f"<td>{_num(sc['sd'], '.2f')}</td><td>{_num(q.get('5%'), '.1f')}</td>"
                        f"<td>{_num(q.get('50%'), '.1f')}</td><td>{_num(q.get('95%'), '.1f')}</td></tr>")
        adv = s["seat_advantage"]
        ties = s["ties"]
        m = s["margin"]
        extra = (f"<p>Seat advantage ({seat_test_name(adv)}, df {adv['df']}): statistic "
                 f"{_num(adv['statistic'], '.2f')}, p = {_num(adv['p'], '.3g')}: {html.escape(seat_words(s))}"
                 f"{' (shared wins counted fractionally)' if adv['fractional_wins'] else ''}. "
                 if adv else "<p>") + \
                ("A seat's win rate is its team's: the games its team won alone. " if teams is not None else "") + \
                (f"{'Draws (a win shared by teams)' if teams is not None else 'Ties'}: {ties['count']} "
                 f"({_pct(ties['rate'])}). Margin of victory: mean "
                 f"{_num(m['mean'], '.2f')}, median {_num(m['quantiles'].get('50%'), '.1f')}.</p>")
    d = s["length"]["decisions"]
    t = s["length"]["turns"]
    extra += (f"<p>Length: {_num(d['mean'], '.1f')} decisions per game (sd {_num(d['sd'], '.1f')}, "
              f"5%–95% {_num(d['quantiles'].get('5%'), '.0f')}–{_num(d['quantiles'].get('95%'), '.0f')}), "
              f"{_num(t['mean'], '.1f')} turns. Games: {s['games_finished']} finished"
              f"{', ' + str(len(s['errors'])) + ' failed' if s['errors'] else ''}.</p>")
    kinds = s.get("kinds") or []
    if kinds and s.get("rotated"):
        krows = ["<tr><th>kind</th><th>seats</th><th>seat-games</th><th>win rate per seat held</th>"
                 "<th>95% interval</th></tr>"]
        krows += [f"<tr class='kind' data-kind='{e(k['kind'], quote=True)}' data-win-rate='{k['win_rate']!r}'>"
                  f"<td>{e(k['kind'])}</td><td>{k['seats']}</td><td>{k['seat_games']}</td>"
                  f"<td>{_pct(k['win_rate'])}</td><td>{_ci(k['ci95'])}</td></tr>" for k in kinds]
        extra += (f"<p>Bot strength over {s.get('rotations', 1)} rotations of the seats (free of seat "
                  f"advantage; fair share {pct(fair_share(s))}):</p><table class='kinds'>{''.join(krows)}</table>")
    rc = s.get("restriction_cost")
    if s.get("restriction") is not None and rc and rc.get("win_rate") is not None:
        extra += (f"<p class='restriction'>Restriction {e(s['restriction'])}: the restricted seat wins "
                  f"{pct(rc['win_rate'], rc['ci95'])} against the fair {pct(rc['fair'])}: cost "
                  f"{points(rc['cost'], rc['cost_ci95'])}.</p>")
    return (f"<section class='config'><h3>{e(s['config'])}</h3>{_finding_list(config_findings(s))}"
            f"<table>{''.join(rows)}</table>{extra}</section>")


def _finding_list(items) -> str:
    e = html.escape
    return ("<ul class='findings'>" + "".join(
        f"<li class='finding' data-kind='{e(it['kind'], quote=True)}'>{e(it['text'])}</li>" for it in items)
        + "</ul>") if items else ""


def _study_findings(summaries) -> str:
    e = html.escape
    several = len(summaries) > 1
    lis = []
    for it in finding_items(summaries, headlines=True):
        where = f"<b>{e(it['config'])}</b>: " if several and it["config"] else ""
        lis.append(f"<li class='finding' data-kind='{e(it['kind'], quote=True)}'>{where}{e(it['text'])}</li>")
    return "<section class='findings'><h2>Findings</h2><ul class='findings'>" + "".join(lis) + "</ul></section>"


def _overview(summaries) -> str:
    """One row per configuration: games, win rates (or success rate), the seat test, length."""
    e = html.escape
    rows = ["<tr><th>configuration</th><th>games</th><th>failed</th><th>win rate per seat (or team success)</th>"
            "<th>seat test p</th><th>verdict</th><th>decisions (mean)</th></tr>"]
    for s in summaries:
        if s["cooperative"]:
            rates, p, verdict = f"success {_pct(s['success']['rate'])}", "–", "–"
        elif (s.get("teams") or {}).get("teams"):
            rates = " / ".join(f"team {t['team']} ({members_text(t['members'])}) {_pct(t['win_rate'])}"
                               for t in s["teams"]["teams"])
            adv = s["seat_advantage"]
            p, verdict = (_num(adv["p"], ".3g"), seat_verdict(adv)) if adv else ("–", "–")
        else:
            rates = " / ".join(_pct(x["win_rate"]) for x in s["seats"])
            adv = s["seat_advantage"]
            p, verdict = (_num(adv["p"], ".3g"), e(seat_words(s))) if adv else ("–", "–")
        rows.append(f"<tr class='overview'><td>{e(s['config'])}</td><td>{s['games_finished']}</td>"
                    f"<td>{len(s['errors'])}</td><td>{rates}</td><td>{p}</td><td>{verdict}</td>"
                    f"<td>{_num(s['length']['decisions']['mean'], '.1f')}</td></tr>")
    return f"<table class='overview'>{''.join(rows)}</table>"


STYLE = """body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1100px;color:#222}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.2em .6em;text-align:right}
th{background:#f0f0f0}h1{font-size:1.5em}section.config{margin-bottom:1.5em}figure{margin:1em 0}
figure svg{max-width:100%;height:auto}figcaption{color:#555;font-size:.9em}"""


def build(records, title="gamespec balance report", sources=()):
    """Record rows → (html text, {figure name: matplotlib Figure})."""
    summaries = summarize(records)
    if not summaries:
        raise ValueError("no records to report on")
    mdata = {}
    data = samples(per_game(records, mdata))
    keys = list(data)
    for s, k in zip(summaries, keys):
        s["_key"] = k
    finished = [s for s in summaries if s["games_finished"]]
    plotted = finished[:MAX_PLOTTED]
    figs, svgs = {}, {}
    if plotted:
        with _plain_text():
            figs = {"winrates": plot_winrates(plotted)}
            if _strength_rows(plotted):
                figs["strength"] = plot_strength(plotted)
            if _restriction_rows(finished):
                figs["restrictions"] = plot_restrictions(finished)
            figs["scores"] = plot_scores(plotted, data)
            figs["length"] = plot_length(plotted, data)
            for name in METRIC_PLOTS:
                if _metric_rows(plotted, name):
                    figs[name] = plot_metric(plotted, mdata, name)
            svgs = {name: _svg(fig) for name, fig in figs.items()}
    captions = {"winrates": "Seat win rates with 95% Wilson intervals (a shared win counts 1/k to each "
                            "of k winners; in a team game a seat's rate is its team's, the games the team won "
                            "alone); dotted: the fair share; cooperative configurations: team success rate.",
                "scores": "Final score per seat (team score for cooperative games), one panel per configuration. "
                          "Means with 95% t intervals: " + "; ".join(
                              f"{_short(s)}: " + (f"team {num(s['team_score']['mean'], s['team_score']['ci95'])}"
                                                  if s["cooperative"] else ", ".join(
                                  f"seat {x['seat']} {num(x['score']['mean'], x['score']['ci95'])}"
                                  for x in s["seats"])) for s in plotted) + ".",
                "length": "Decisions per game, configurations overlaid. Means: " + _means(
                    plotted, lambda s: s["length"]["decisions"]),
                "strength": "Bot strength in rotated studies: each kind's win rate per seat it held, with 95% "
                            "Wilson intervals; the mark is the fair share (1/players; in a team game the "
                            "team's). " + "; ".join(
                                f"{k['kind']} ({_short(s)}) {pct(k['win_rate'], k['ci95'])}"
                                for s, k in _strength_rows(plotted)),
                "restrictions": "Restricted play: the fair share (1/players; in a team game the team's) minus "
                                "the restricted seat's win rate, "
                                "in percentage points, with 95% intervals (red: a clear cost, green: a clear gain, "
                                "grey: the interval contains 0). " + "; ".join(
                                    f"{s['restriction']} ({_short(s)}) "
                                    f"{points(s['restriction_cost']['cost'], s['restriction_cost']['cost_ci95'])}"
                                    for s in _restriction_rows(finished)),
                "lead_changes": "Lead changes per game (times the sole leader changed), configurations overlaid. "
                                "Means: " + _means(_metric_rows(plotted, "lead_changes"),
                                                   lambda s: s["metrics"]["lead_changes"]),
                "decided_at": "Decisiveness: the fraction of the game's decisions after which the final sole "
                              "winner led for good (0: from the start, 1: only at the end). Means: " + _means(
                                  _metric_rows(plotted, "decided_at"), lambda s: s["metrics"]["decided_at"],
                                  percent=True)}
    e = html.escape
    parts = [f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{e(title)}</title>",
             f"<style>{STYLE}</style></head><body><h1>{e(title)}</h1>"]
    if sources:
        parts.append("<p>Records: " + ", ".join(e(os.fspath(x)) for x in sources) + "</p>")
    n = len(summaries)
    if len(finished) > MAX_PLOTTED or n > MAX_DETAILED:
        parts.append(f"<p class='note'>{n} configurations: the plots show the first {len(plotted)} with finished "
                     f"games, the tables all of them ({min(n, MAX_DETAILED)} in full, the others one row "
                     "each).</p>")
    v = verdict(summaries)          # the answer first: fair? decided early? does skill matter?
    if v is not None:
        parts.append(f"<p class='verdict'><b>{e(v)}</b></p>")
    from .ladder import summary_sentences
    for line in summary_sentences(summaries):      # a skill ladder in the records (simulate --ladder)
        parts.append(f"<p class='ladder'>{e(line)}</p>")
    parts.append(_study_findings(summaries))
    parts.append("<h2>Summary</h2>")
    parts.extend(_table(s) for s in summaries[:MAX_DETAILED])
    if n > MAX_DETAILED:
        parts.append(f"<h2>Other configurations</h2><p>the other {n - MAX_DETAILED} configurations have one "
                     "row each:</p>")
        parts.append(_overview(summaries[MAX_DETAILED:]))
    for name in FIGURES:
        if name in svgs:
            parts.append(f"<figure id='{name}'>{svgs[name]}<figcaption>{e(captions[name])}"
                         "</figcaption></figure>")
    parts.append("</body></html>\n")
    for s in summaries:
        s.pop("_key", None)
    return "".join(parts), figs


def write_report(records, out, png=False, sources=(), title=None) -> list:
    """Write the HTML report to `out` (and OUT-NAME.png per figure with png=True); returns the files."""
    text, figs = build(records, title or "gamespec balance report", sources)
    written = []
    with open(out, "w", encoding="utf-8") as f:
        f.write(text)
    written.append(os.fspath(out))
    if png:
        stem = os.path.splitext(os.fspath(out))[0]
        with _plain_text():
            for name, fig in figs.items():
                path = f"{stem}-{name}.png"
                fig.savefig(path, format="png", dpi=110)
                written.append(path)
    return written


def report_files(paths, out, png=False, title=None) -> list:
    """Records files → the report (write_report): read again for each pass, never held whole; returns
    the files written. ReportError without matplotlib or without any record."""
    from .records import RecordFiles
    try:
        __import__("matplotlib")   # a clear message if the extra is missing
    except ImportError:
        raise ReportError("the report needs matplotlib: pip install 'gamespec[report]'") from None
    rows = RecordFiles(paths)
    if next(iter(rows), None) is None:
        raise ReportError(f"no records in {', '.join(map(os.fspath, paths))}")
    return write_report(rows, out, png=png, sources=paths, title=title)


__all__ = ["build", "write_report", "report_files", "ReportError", "config_key"]
