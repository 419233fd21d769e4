"""Record rows (one or more configurations) → one self-contained HTML report: a summary table per
configuration and matplotlib plots as inline SVG (win rates with Wilson intervals, score histograms per
seat, game-length histogram, configurations side by side); optionally the plots as PNG files too.

Records may come from anyone: every text (game, option, bot names) is drawn as plain text, never as
TeX, and the work is bounded: at most MAX_PLOTTED configurations are plotted and MAX_DETAILED get a
full table, the others one row each of an overview table (the report says so)."""
from __future__ import annotations

import contextlib
import html
import io
import os

from gamespec.errors import GamespecError

from .stats import SEAT_TEST, config_key, config_label, samples, seat_verdict, summarize

FIGURES = ("winrates", "scores", "length")
MAX_PLOTTED = 12       # configurations drawn in the plots (the first ones, in the records' order)
MAX_DETAILED = 100     # configurations with a full table; the others get one row of an overview
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
            fair = 1 / s["players"]
            ax.hlines(fair, min(xs) - width / 2, max(xs) + width / 2, colors=_colour(j), linestyles=":",
                      linewidth=1)
        ax.set_xticks(range(seats), [f"seat {p}" for p in range(seats)])
        ax.set_ylabel("win rate (95% Wilson interval)")
        ax.set_title("Seat win rates (dotted: 1/players)")
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
        extra = (f"<p>Seat advantage ({SEAT_TEST}, df {adv['df']}): statistic {_num(adv['statistic'], '.2f')}, "
                 f"p = {_num(adv['p'], '.3g')}: {seat_verdict(adv)}"
                 f"{' (shared wins counted fractionally)' if adv['fractional_wins'] else ''}. "
                 if adv else "<p>") + \
                (f"Ties: {ties['count']} ({_pct(ties['rate'])}). Margin of victory: mean "
                 f"{_num(m['mean'], '.2f')}, median {_num(m['quantiles'].get('50%'), '.1f')}.</p>")
    d = s["length"]["decisions"]
    t = s["length"]["turns"]
    extra += (f"<p>Length: {_num(d['mean'], '.1f')} decisions per game (sd {_num(d['sd'], '.1f')}, "
              f"5%–95% {_num(d['quantiles'].get('5%'), '.0f')}–{_num(d['quantiles'].get('95%'), '.0f')}), "
              f"{_num(t['mean'], '.1f')} turns. Games: {s['games_finished']} finished"
              f"{', ' + str(len(s['errors'])) + ' failed' if s['errors'] else ''}.</p>")
    return (f"<section class='config'><h3>{e(s['config'])}</h3>"
            f"<table>{''.join(rows)}</table>{extra}</section>")


def _overview(summaries) -> str:
    """One row per configuration: games, win rates (or success rate), the seat test, length."""
    e = html.escape
    rows = ["<tr><th>configuration</th><th>games</th><th>failed</th><th>win rate per seat (or team success)</th>"
            "<th>seat test p</th><th>verdict</th><th>decisions (mean)</th></tr>"]
    for s in summaries:
        if s["cooperative"]:
            rates, p, verdict = f"success {_pct(s['success']['rate'])}", "–", "–"
        else:
            rates = " / ".join(_pct(x["win_rate"]) for x in s["seats"])
            adv = s["seat_advantage"]
            p, verdict = (_num(adv["p"], ".3g"), seat_verdict(adv)) if adv else ("–", "–")
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
    data = samples(records)
    keys = list(data)
    for s, k in zip(summaries, keys):
        s["_key"] = k
    finished = [s for s in summaries if s["games_finished"]]
    plotted = finished[:MAX_PLOTTED]
    figs, svgs = {}, {}
    if plotted:
        with _plain_text():
            figs = {"winrates": plot_winrates(plotted), "scores": plot_scores(plotted, data),
                    "length": plot_length(plotted, data)}
            svgs = {name: _svg(fig) for name, fig in figs.items()}
    captions = {"winrates": "Seat win rates with 95% Wilson intervals (a shared win counts 1/k to each "
                            "of k winners); cooperative configurations: team success rate.",
                "scores": "Final score per seat (team score for cooperative games), one panel per configuration.",
                "length": "Decisions per game, configurations overlaid."}
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


class ReportError(GamespecError):
    """A report that cannot be made (matplotlib missing, no records)."""


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
