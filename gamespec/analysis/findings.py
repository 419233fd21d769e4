"""Summaries (stats.summarize's dicts) → the study in words: what the figures say, every figure with
its 95% interval in brackets ("seat 0 wins 63% [58, 68] with random seats and 51% [46, 56] with
ismcts:200 seats (fair share 50%): the advantage is mostly random play").

The rules behind each sentence are in docs/analysis.md ("Findings: the study in words"). The work is
bounded whatever the records hold: the cross-configuration sentences and the per-configuration detail
are capped (the list says how many were left out), and a sentence is said once.

Texts from records (game, option, bot and action names) are strangers' text: the sentences are plain
text, to be escaped by whoever puts them in HTML.
"""
from __future__ import annotations

import math

from .stats import SEAT_TEST, _fmt, members_text, seat_test_name, seat_verdict

MAX_DETAILED = 20       # configurations described one by one in the study's list (the first ones)
MAX_COMPARED = 20       # line-up comparisons (same game, players and options, other line-up)
MAX_RESTRICTION_GROUPS = 10
MAX_NAMED = 12          # restrictions, kinds, actions named in one sentence; the rest are counted
MAX_SEATS_LISTED = 4    # seat win rates listed one by one; above, the best and the worst seat
RARE_SHARE = 0.01       # "rarely played": under 1% of the decisions of the traced games
ALPHA = 0.05
WIDE = 0.10      # a verdict of "fair" needs every win rate known to within this (half its 95% interval)

HOW_TO_RECORD = "simulate records them unless told --no-trace (every engine, every kind of seat)"


# -- numbers in words ----------------------------------------------------------------------------

def _has(ci):
    return ci is not None and len(ci) == 2 and ci[0] is not None and ci[1] is not None


def _pct_digits(*xs):
    vals = [x for x in xs if x is not None]
    if len(xs) == 3 and xs[1] is not None and xs[2] is not None and xs[2] - xs[1] < 0.02:
        return 1
    return 1 if any(0 < abs(x) < 0.01 for x in vals) else 0


def pct(x, ci=None) -> str:
    """'63% [58, 68]' (a rate with its interval, in %); one decimal for narrow intervals or rates
    under 1%."""
    if x is None:
        return "-"
    if not _has(ci):
        d = _pct_digits(x)
        return f"{100 * x:.{d}f}%"
    d = _pct_digits(x, ci[0], ci[1])
    return f"{100 * x:.{d}f}% [{100 * ci[0]:.{d}f}, {100 * ci[1]:.{d}f}]"


def points(x, ci=None) -> str:
    """A difference of rates in percentage points: '13 points [10, 16]'."""
    if x is None:
        return "-"
    d = _pct_digits(x, min(ci), max(ci)) if _has(ci) else _pct_digits(x)
    v = f"{100 * x:.{d}f}"
    unit = "point" if v.lstrip("-") in ("1", "1.0") else "points"
    if not _has(ci):
        return f"{v} {unit}"
    return f"{v} {unit} [{100 * ci[0]:.{d}f}, {100 * ci[1]:.{d}f}]"


def _mean_digits(ci):
    if not _has(ci):
        return 2
    half = (ci[1] - ci[0]) / 2
    if not math.isfinite(half):
        return 2
    if half <= 0:
        return None
    return max(0, min(3 if half < 0.01 else 2, 1 - math.floor(math.log10(half))))


def num(x, ci=None) -> str:
    """A mean with its interval: '1.83 [1.62, 2.04]' (the decimals follow the interval's width)."""
    if x is None:
        return "-"
    if not _has(ci):
        return _plain(x)
    d = _mean_digits(ci)
    if d is None:                   # no spread: every game the same
        return f"{_plain(x)} [{_plain(ci[0])}, {_plain(ci[1])}]"
    return f"{x:.{d}f} [{ci[0]:.{d}f}, {ci[1]:.{d}f}]"


def _plain(x):
    if x is None:
        return "-"
    if isinstance(x, int) or float(x).is_integer() and abs(x) < 1e15:
        return str(int(x))
    return f"{x:.3g}"


def pvalue(p) -> str:
    if p is None:
        return "-"
    return "p < 1e-16" if p < 1e-16 else f"p = {p:.2g}"


def _games(n):
    return f"{n} game{'' if n == 1 else 's'}"


def _names(names, limit=MAX_NAMED):
    names = list(names)
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


# -- kinds, line-ups, restrictions ---------------------------------------------------------------

def _lineup(s):
    return list(s.get("lineup") or s.get("bots") or [])


def lineup_name(s) -> str:
    """'random seats', 'ismcts:200 seats' or 'the rotated line-up a, b'."""
    lu = _lineup(s)
    if lu and len(set(lu)) == 1:
        return f"{lu[0]} seats"
    what = "the rotated line-up" if s.get("rotated") else "the line-up"
    return f"{what} {', '.join(lu)}"


def _clean_seats(s) -> bool:
    """Seat figures free of bot strength: every seat the same kind, or a rotated study."""
    lu = _lineup(s)
    return len(set(lu)) <= 1 or bool(s.get("rotated"))


def parse_restriction(text):
    """'ismcts:200/avoid:pass' → (base, [(rule, action)]): base 'ismcts:200', rules [('avoid', 'pass')];
    'first' / 'greedy' → (None, [('first', None)])."""
    parts = str(text).split("/")
    rules, base = [], []
    for part in parts:
        head, sep, tail = part.partition(":")
        if sep and head in ("avoid", "always"):
            rules.append((head, tail))
        else:
            base.append(part)
    if not rules:
        return None, [(str(text), None)]
    return ("/".join(base) or None), rules


def _normal_restriction(text):
    """The restriction as it plays: a plain rule's base is random (`avoid:pass` is `random/avoid:pass`)."""
    base, rules = parse_restriction(text)
    return (base or "random", tuple(rules))


def _seat_words(rule):
    """What a seat of a built-in kind does, in the bot table's words (gamespec/bots/registry.py)."""
    from ..bots.registry import KINDS
    kind = KINDS.get(rule)
    return kind.seat_words if kind is not None and kind.seat_words else None


def _opponents(s):
    r = s.get("restriction")
    others = [k for k in dict.fromkeys(_lineup(s)) if k != r]
    return ", ".join(others) if others else "the others"


def classify_cost(rc) -> str:
    """'costs' (the cost's interval lies above 0), 'gains' (below 0) or 'nothing' (it contains 0)."""
    lo, hi = sorted(rc["cost_ci95"])
    if lo > 0:
        return "costs"
    if hi < 0:
        return "gains"
    return "nothing"


def restriction_sentence(s) -> dict | None:
    """One restricted-play configuration → {'kind': 'restriction', 'verdict', 'rule', 'action', 'text'}."""
    r, rc = s.get("restriction"), s.get("restriction_cost")
    if r is None:
        return None
    if not rc or rc.get("win_rate") is None or not _has(rc.get("cost_ci95")):
        return {"kind": "restriction", "verdict": None, "rule": None, "action": None, "restriction": r,
                "text": f"restriction {r}: no finished game, no cost to report"}
    verdict = classify_cost(rc)
    base, rules = parse_restriction(r)
    rule, action = rules[0] if len(rules) == 1 else (None, None)
    wins = f"wins {pct(rc['win_rate'], rc['ci95'])} against the fair {pct(rc['fair'])}"
    vs = f" with {_opponents(s)} opponents"
    cost = f"a cost of {points(rc['cost'], rc['cost_ci95'])}"
    gain = f"a gain of {points(-rc['cost'], [-rc['cost_ci95'][1], -rc['cost_ci95'][0]])}"
    if rule == "avoid":
        who = f"a seat that never plays {action} ({r})"
        text = {"costs": f"{action} is a dominant action: {who} {wins}{vs}, {cost}",
                "gains": f"{action} is a harmful action: {who} {wins}{vs}, {gain}",
                "nothing": f"no evidence that {action} matters: {who} {wins}{vs} "
                           f"(cost {points(rc['cost'], rc['cost_ci95'])}: the interval contains 0)"}[verdict]
    elif rule == "always":
        who = f"a seat that plays {action} whenever it can ({r})"
        text = {"gains": f"{action} is a dominant action: {who} {wins}{vs}, {gain}",
                "costs": f"always playing {action} costs: {who} {wins}{vs}, {cost} "
                         f"({action} is not always the right move)",
                "nothing": f"no evidence that always playing {action} matters: {who} {wins}{vs} "
                           f"(cost {points(rc['cost'], rc['cost_ci95'])}: the interval contains 0)"}[verdict]
    else:
        how = (_seat_words(rule) if rule is not None else None) or f"is restricted to {r}"
        who = f"a seat that {how} ({r})"
        text = {"costs": f"the restriction {r} costs: {who} {wins}{vs}, {cost}",
                "gains": f"the restriction {r} gains: {who} {wins}{vs}, {gain}",
                "nothing": f"no evidence that the restriction {r} matters: {who} {wins}{vs} "
                           f"(cost {points(rc['cost'], rc['cost_ci95'])}: the interval contains 0)"}[verdict]
    return {"kind": "restriction", "verdict": verdict, "rule": rule, "action": action, "restriction": r,
            "text": text}


# -- one configuration ---------------------------------------------------------------------------

def _item(kind, text, config):
    return {"kind": kind, "text": text, "config": config}


def seat_sentence(s) -> str | None:
    """Seat win rates against the fair share, the chi-square test and its verdict (or the team's
    success rate)."""
    n = s.get("games_finished", 0)
    if not n:
        return f"no game finished (of {_games(s.get('games', 0))})"
    if s.get("cooperative"):
        su = s.get("success") or {}
        return f"the team succeeds in {pct(su.get('rate'), su.get('ci95'))} of {_games(n)}"
    seats = s.get("seats") or []
    if not seats:
        return None
    teams = s.get("teams")
    if teams is not None:
        return _team_sentence(s, n)
    P = len(seats)
    fair = 1 / P
    if P <= MAX_SEATS_LISTED:
        rates = [f"seat {x['seat']} {'wins ' if i == 0 else ''}{pct(x['win_rate'], x['ci95'])}"
                 for i, x in enumerate(seats)]
        text = ", ".join(rates[:-1]) + " and " + rates[-1] if P > 1 else rates[0]
    else:
        order = sorted(seats, key=lambda x: (-(x["win_rate"] or 0), x["seat"]))
        best, worst = order[0], order[-1]
        text = (f"the best seat, seat {best['seat']}, wins {pct(best['win_rate'], best['ci95'])} and the "
                f"worst, seat {worst['seat']}, {pct(worst['win_rate'], worst['ci95'])}")
    rotated = "; rotated, so free of bot strength" if s.get("rotated") and len(set(_lineup(s))) > 1 else ""
    text += f" of {_games(n)} (fair share {pct(fair)}{rotated})"
    adv = s.get("seat_advantage")
    if adv:
        frac = ", shared wins counted fractionally" if adv.get("fractional_wins") else ""
        text += (f"; {SEAT_TEST} (df {adv['df']}{frac}): {pvalue(adv['p'])}: {seat_words(s)}")
    return text


DOMINANT = 0.9     # a kind holding one seat that wins this share of its seats decides the games


def seat_test_blind(s) -> str | None:
    """Why the seat test of a rotated study tells little, or None: one kind, holding a single seat,
    wins at least DOMINANT of its seats, so the game goes to whoever holds it whichever seat that is,
    and only the games it lost could show a seat advantage ("no evidence that seats differ" would be
    an artefact of its strength)."""
    if not s.get("rotated"):
        return None
    kinds = [k for k in s.get("kinds") or [] if k.get("win_rate") is not None and k.get("seats") == 1]
    if not kinds:
        return None
    top = max(kinds, key=lambda k: k["win_rate"])
    if top["win_rate"] < DOMINANT:
        return None
    lost = round(top["seat_games"] - top["wins"])
    return (f"the seat test is not informative here: {top['kind']} wins {pct(top['win_rate'], top['ci95'])} "
            f"of its seats, so the game goes to whoever holds it, whichever seat that is; only the {lost} "
            f"game{'' if lost == 1 else 's'} it did not win could show a seat advantage (one kind at every "
            "seat, --bot all=KIND, tests the seats)")


def seat_words(s) -> str:
    """The seat test's verdict in words (stats.seat_verdict), or why it is not informative."""
    return seat_test_blind(s) or seat_verdict(s["seat_advantage"])


def fair_share(s):
    """A seat's fair share of the wins: 1/P, or in a team game its team's equal part of the games not
    drawn (stats.Summary.fair_share)."""
    f = s.get("fair_share")
    return f if f is not None else 1 / s["players"]


def _units(s) -> int:
    """The sides that compete: the teams of a team game (fixed teams), else the seats."""
    teams = s.get("teams")
    return teams["count"] if teams and teams.get("count") else s.get("players", 0)


def _team_sentence(s, n) -> str:
    """A team game: each team's wins (games it won alone; a seat wins with its team), the draws, the
    fair share and the test over the teams."""
    teams = s["teams"]
    fair = fair_share(s)
    dr = (s.get("metrics") or {}).get("draws") or {}
    draws = f", draws {pct(dr['rate'], dr.get('ci95'))}" if dr.get("rate") is not None else ""
    if teams.get("varies"):
        seats = s.get("seats") or []
        rates = ", ".join(f"seat {x['seat']} {pct(x['win_rate'], x['ci95'])}" for x in seats[:MAX_SEATS_LISTED])
        more = f" and {len(seats) - MAX_SEATS_LISTED} more seats" if len(seats) > MAX_SEATS_LISTED else ""
        return (f"each seat wins with its team, and the teams differ from game to game: {rates}{more} of "
                f"{_games(n)}{draws} (fair share {pct(fair)}: an equal part of the games no team shared); "
                "the teams are not tested for equal shares")
    rows = teams["teams"]
    named = [f"team {t['team']} ({members_text(t['members'])}) {'wins ' if i == 0 else ''}"
             f"{pct(t['win_rate'], t['ci95'])}" for i, t in enumerate(rows)]
    if len(rows) > MAX_SEATS_LISTED:
        order = sorted(rows, key=lambda t: (-(t["win_rate"] or 0), t["team"]))
        best, worst = order[0], order[-1]
        text = (f"the best team, team {best['team']} ({members_text(best['members'])}), wins "
                f"{pct(best['win_rate'], best['ci95'])} and the worst, team {worst['team']} "
                f"({members_text(worst['members'])}), {pct(worst['win_rate'], worst['ci95'])}")
    else:
        text = ", ".join(named[:-1]) + " and " + named[-1] if len(named) > 1 else named[0]
    text += (f" of {_games(n)}{draws} (a team's win is a win for each of its seats; fair share {pct(fair)}: "
             f"an equal part of the games not drawn)")
    adv = s.get("seat_advantage")
    if adv:
        text += f"; {seat_test_name(adv)} (df {adv['df']}): {pvalue(adv['p'])}: {seat_verdict(adv)}"
    return text


def _first_seat(s):
    fs = (s.get("metrics") or {}).get("first_seat")
    if not fs or _units(s) <= 2 or fs.get("win_rate") is None:
        return None
    side = ("above" if fs["ci95"][0] > fs["fair"] else "below" if fs["ci95"][1] < fs["fair"] else None) \
        if _has(fs.get("ci95")) else None
    verdict = (f"the first seat wins {side} its fair share" if side and fs.get("p") is not None and fs["p"] < ALPHA
               else "no evidence of a first-seat advantage")
    if seat_test_blind(s):         # as blind as the test of all seats: one kind decides the games
        verdict = "not informative here, as the seat test (one kind wins nearly every game it plays)"
    return (f"first-seat advantage: seat 0 wins {pct(fs['win_rate'], fs['ci95'])} against the fair "
            f"{pct(fs['fair'])} (two-sided z-test of a proportion, {pvalue(fs.get('p'))}): {verdict}")


def strength_sentence(s) -> str | None:
    """Bot strength per kind (a rotated study): win rate per seat held."""
    kinds = [k for k in s.get("kinds") or [] if k.get("win_rate") is not None]
    if len(kinds) < 2 or not s.get("rotated"):
        return None
    order = sorted(kinds, key=lambda k: -k["win_rate"])
    fair = fair_share(s)
    parts = [f"{k['kind']} wins {pct(k['win_rate'], k['ci95'])} of its seats" if i == 0
             else f"{k['kind']} {pct(k['win_rate'], k['ci95'])}" for i, k in enumerate(order[:MAX_NAMED])]
    more = f" and {len(order) - MAX_NAMED} more kinds" if len(order) > MAX_NAMED else ""
    text = (f"bot strength over {s.get('rotations', 1)} rotations of the seats (free of seat advantage; "
            f"fair share {pct(fair)}): {', '.join(parts)}{more}")
    best, worst = order[0], order[-1]
    if _has(best["ci95"]) and _has(worst["ci95"]) and best["ci95"][0] > worst["ci95"][1]:
        text += f": {best['kind']} is clearly stronger than {worst['kind']} (their intervals do not overlap)"
    else:
        text += f": no clear difference in strength between {best['kind']} and {worst['kind']}"
    return text


def mixed_sentence(s) -> str | None:
    lu = _lineup(s)
    if len(set(lu)) < 2 or s.get("rotated") or s.get("cooperative"):
        return None
    seats = (", ".join(f"seat {i} {k}" for i, k in enumerate(lu)) if len(lu) <= 6
             else "kinds " + _names(dict.fromkeys(lu)))
    return (f"the line-up mixes kinds ({seats}) and was not rotated: the seat figures mix seat advantage "
            "with bot strength; simulate with --rotate to separate them")


def metric_items(s, config=None) -> list:
    """The per-game metrics in words (or that they were not recorded)."""
    out = []
    n = s.get("games_finished", 0)
    d = (s.get("length") or {}).get("decisions") or {}
    if d.get("n"):
        q = d.get("quantiles") or {}
        t = (s.get("length") or {}).get("turns") or {}
        spread = (f", 5-95% {_plain(q.get('5%'))}-{_plain(q.get('95%'))}" if q.get("5%") is not None else "")
        out.append(_item("length", f"game length: {num(d['mean'], d['ci95'])} decisions per game (sd "
                         f"{_plain(d['sd'])}{spread}); {num(t.get('mean'), t.get('ci95'))} turns", config))
    m = s.get("metrics")
    if m is None:
        return out + [_item("not_recorded", "lead changes, decisiveness, drama and action usage are not in "
                            f"these summaries; {HOW_TO_RECORD}", config)]
    dr = m.get("draws") or {}
    if not s.get("cooperative") and n and dr.get("rate") is not None:
        what = ("a win shared by teams, or no winner" if s.get("teams") is not None
                else "a shared win, or no winner")
        out.append(_item("draws", f"draws ({what}): {pct(dr['rate'], dr['ci95'])} of {_games(n)}", config))
    fs = _first_seat(s)
    if fs:
        out.append(_item("first_seat", fs, config))
    un = m.get("unfinished") or {}
    if un.get("count"):
        reasons = ", ".join(f"{k} {v}" for k, v in sorted((un.get("reasons") or {}).items(), key=lambda kv: -kv[1]))
        out.append(_item("unfinished", f"{un['count']} of {_games(s.get('games', 0))} did not end "
                         f"({pct(un['rate'], un['ci95'])}){': ' + reasons if reasons else ''}", config))
    rec = m.get("recorded", 0)
    if not rec:
        if n:
            out.append(_item("not_recorded", "lead changes, decisiveness, drama and action usage were not "
                             "recorded (the games ran with --no-trace, or the records predate "
                             f"them); {HOW_TO_RECORD}", config))
        return out
    lc = m.get("lead_changes") or {}
    if lc.get("n"):
        q = lc.get("quantiles") or {}
        out.append(_item("lead_changes", f"lead changes: {num(lc['mean'], lc['ci95'])} per game (median "
                         f"{_plain(q.get('50%'))}, max {_plain(lc['max'])}; {_games(lc['n'])} traced)", config))
    da = m.get("decided_at") or {}
    if da.get("n"):
        q = da.get("quantiles") or {}
        out.append(_item("decided_at", f"decisiveness: the final winner leads for good from {pct(da['mean'], da['ci95'])} "
                         f"of the game on average (median {pct(q.get('50%'))}; 0% = from the start, 100% = only "
                         f"at the end; {_games(da['n'])} with a sole winner)", config))
    wd, cb = m.get("winner_deficit") or {}, m.get("comeback") or {}
    if wd.get("n"):
        out.append(_item("drama", f"drama: the winner trailed at some point in {pct(cb.get('rate'), cb.get('ci95'))} "
                         f"of {_games(wd['n'])} with a sole winner (comebacks); its largest deficit averages "
                         f"{num(wd['mean'], wd['ci95'])} points (max {_plain(wd['max'])})", config))
    acts = m.get("actions") or []
    if acts:
        top = [a for a in acts if a.get("count") and (a.get("share") or 0) >= RARE_SHARE][:3]
        if top:
            out.append(_item("actions", "most played: " + ", ".join(
                f"{a['action']} {pct(a['share'])} of decisions (in {pct(a['games_rate'], a['ci95'])} of games)"
                for a in top), config))
        rare = [a for a in acts if a.get("count") and a.get("share") is not None and a["share"] < RARE_SHARE]
        if rare:
            rare.sort(key=lambda a: a["share"])
            out.append(_item("rare_actions", f"rarely played (under {pct(RARE_SHARE)} of decisions): " + _names(
                f"{a['action']} {pct(a['share'])} (in {pct(a['games_rate'], a['ci95'])} of games)"
                for a in rare), config))
    never = m.get("never_played") or []
    if never:
        out.append(_item("never_played", f"never played in {_games(rec)}: {_names(never)}", config))
    return out


def config_findings(s) -> list:
    """One configuration's summary → its sentences ({'kind', 'text', 'config'}): seats, a mixed line-up
    not rotated, bot strength, its restriction's cost, the metrics."""
    label = s.get("config")
    out = []
    seat = seat_sentence(s)
    if seat:
        out.append(_item("seat", seat, label))
    mixed = mixed_sentence(s)
    if mixed and not s.get("restriction"):
        out.append(_item("mixed", mixed, label))
    st = strength_sentence(s)
    if st and not s.get("restriction"):
        out.append(_item("strength", st, label))
    r = restriction_sentence(s)
    if r:
        out.append(dict(r, config=label))
    out.extend(metric_items(s, label))
    return out


# -- across configurations -----------------------------------------------------------------------

def _side(x, fair):
    ci = x.get("ci95")
    if x.get("win_rate") is None or not _has(ci):
        return None
    return "above" if ci[0] > fair else "below" if ci[1] < fair else "fair"


def _group_label(s):
    parts = [f"{s['players']} players"] + [f"{k}={_fmt(v)}" for k, v in sorted((s.get("options") or {}).items())]
    return f"{s['game']}: " + ", ".join(parts)


def lineup_verdict(ref, other) -> dict:
    """Two summaries of one game, player count and options with seat figures free of bot strength
    (docs: "Findings") → {'seat', 'verdict', 'text'}. The seat is the one whose interval under `ref`
    lies furthest from the fair share 1/P (else under `other`); the verdict compares which side of
    1/P each interval lies: 'mostly', 'persists', 'shrinks', 'grows', 'reverses', 'appears', 'none'."""
    fair = fair_share(ref)

    def side(s, x):
        # a seat is off its fair share only where the seat test finds that seats differ: an interval
        # of one seat among P that misses 1/P is no evidence when the test of all seats finds none
        adv = s.get("seat_advantage")
        return _side(x, fair_share(s)) if adv is not None and adv["p"] < ALPHA else "fair"

    rs, os_ = ref["seats"], other["seats"]
    off_r = [x for x in rs if side(ref, x) in ("above", "below")]
    off_o = [x for x in os_ if side(other, x) in ("above", "below")]
    # the furthest from the fair share (to rounding); of two as far, the advantaged one, then the first
    pick = max(off_r or off_o or rs[:1],
               key=lambda x: (round(abs(x["win_rate"] - fair), 9), x["win_rate"] > fair, -x["seat"]))
    seat = pick["seat"]
    a, b = rs[seat], os_[seat]
    sa, sb = side(ref, a), side(other, b)
    rname, oname = lineup_name(ref), lineup_name(other)
    if sa in ("above", "below"):
        if sb == "fair":
            verdict = "mostly"
        elif sb != sa:
            verdict = "reverses"
        elif a["ci95"][0] > b["ci95"][1] or b["ci95"][0] > a["ci95"][1]:
            verdict = "shrinks" if abs(b["win_rate"] - fair) < abs(a["win_rate"] - fair) else "grows"
        else:
            verdict = "persists"
    else:
        verdict = "appears" if sb in ("above", "below") else "none"
    short = rname[:-6] if rname.endswith(" seats") else rname
    words = {"mostly": f"the advantage is mostly {short} play",
             "persists": f"the advantage persists with {oname}",
             "shrinks": f"the advantage persists with {oname} but shrinks",
             "grows": f"the advantage persists with {oname} and grows",
             "reverses": f"the advantage reverses with {oname}",
             "appears": f"an advantage appears only with {oname}",
             "none": "no seat advantage with either line-up"}[verdict]
    tests = ""
    aa, ab = ref.get("seat_advantage"), other.get("seat_advantage")
    if aa and ab:
        tests = f"; {seat_test_name(aa)}: {pvalue(aa['p'])} and {pvalue(ab['p'])}"
    fo = fair_share(other)
    fairs = f"fair share {pct(fair)}" if pct(fair) == pct(fo) else f"fair shares {pct(fair)} and {pct(fo)}"
    text = (f"seat {seat} wins {pct(a['win_rate'], a['ci95'])} with {rname} and {pct(b['win_rate'], b['ci95'])} "
            f"with {oname} ({fairs}): {words}{tests}")
    if verdict == "mostly" and ab and ab["p"] < ALPHA:
        text += f" (but seats still differ with {oname})"
    return {"seat": seat, "verdict": verdict, "text": text}


def _comparable(s):
    return (not s.get("cooperative") and s.get("games_finished") and s.get("seats")
            and s.get("restriction") is None and _clean_seats(s))


def _lineup_items(summaries, limit):
    groups = {}
    for s in summaries:
        if _comparable(s):
            key = (s["game"], s["players"], tuple(sorted((s.get("options") or {}).items(), key=lambda kv: kv[0])))
            groups.setdefault(key, {}).setdefault(tuple(_lineup(s)), s)     # a line-up once per group
    out, left = [], 0
    for members in groups.values():
        if len(members) < 2:
            continue
        ms = list(members.values())
        ref = next((s for s in ms if set(_lineup(s)) == {"random"}), ms[0])
        for other in ms:
            if other is ref:
                continue
            if len(out) >= limit:
                left += 1
                continue
            v = lineup_verdict(ref, other)
            out.append(dict(_item("lineup", v["text"], _group_label(ref)), verdict=v["verdict"], seat=v["seat"],
                            configs=[ref.get("config"), other.get("config")]))
    if left:
        out.append(_item("left_out", f"{left} more line-up comparisons are not described here", None))
    return out


def _restriction_items(summaries):
    groups = {}
    for s in summaries:
        if s.get("restriction") is None:
            continue
        key = (s["game"], s["players"], tuple(sorted((s.get("options") or {}).items(), key=lambda kv: kv[0])),
               _opponents(s))
        g = groups.setdefault(key, {"label": _group_label(s), "opponents": _opponents(s), "seen": {}})
        g["seen"].setdefault(_normal_restriction(s["restriction"]), s)      # the same restriction once
    out = []
    for gi, g in enumerate(groups.values()):
        if gi == MAX_RESTRICTION_GROUPS:
            out.append(_item("left_out", f"{len(groups) - gi} more groups of restricted-play studies are not "
                             "described here", None))
            break
        label = g["label"] + (f", against {g['opponents']}" if g["opponents"] else "")
        pooled = pooled_seats(list(g["seen"].values()))
        if pooled is not None:
            out.append(_item("seat", pooled["text"], label))
        rs = [restriction_sentence(s) for s in g["seen"].values()]
        none = [r for r in rs if r["verdict"] is None]
        clear = [(s, r) for s, r in zip(g["seen"].values(), rs) if r["verdict"] in ("costs", "gains")]
        clear.sort(key=lambda sr: -abs(sr[0]["restriction_cost"]["cost"]))
        for s, r in clear[:MAX_NAMED]:
            out.append(dict(r, config=label))
        if len(clear) > MAX_NAMED:
            out.append(_item("left_out", f"{len(clear) - MAX_NAMED} more restrictions with a clear cost or gain "
                             "are not described here", label))
        useless = [(s, r) for s, r in zip(g["seen"].values(), rs) if r["verdict"] == "nothing"]
        if useless:
            listed = [f"{r['restriction']} (cost {points(s['restriction_cost']['cost'], s['restriction_cost']['cost_ci95'])})"
                      for s, r in useless]
            out.append(_item("restriction_none", "no evidence that these restrictions matter (the cost's interval "
                             f"contains 0): {_names(listed)}", label))
        if none:
            out.append(_item("restriction_none", f"no finished game for {_names(r['restriction'] for r in none)}",
                             label))
        # the actions of the design, from avoid:X and always:X
        dominant, harmful, idle = [], [], {}
        for r in rs:
            if r["action"] is None or r["verdict"] is None:
                continue
            a = r["action"]
            if (r["rule"], r["verdict"]) in (("avoid", "costs"), ("always", "gains")):
                dominant.append(a)
            elif (r["rule"], r["verdict"]) == ("avoid", "gains"):
                harmful.append(a)
            idle[a] = idle.get(a, True) and r["verdict"] == "nothing"
        dominant = list(dict.fromkeys(dominant))
        harmful = list(dict.fromkeys(x for x in harmful if x not in dominant))
        idle_names = [a for a, v in idle.items() if v]
        parts = []
        if dominant:
            parts.append(f"dominant actions: {_names(dominant)}")
        if harmful:
            parts.append(f"harmful actions: {_names(harmful)}")
        if idle_names:
            parts.append(f"no evidence that they matter: {_names(idle_names)}")
        if parts:
            out.append(_item("actions_verdict", "the actions of the design, by restricted play: "
                             + "; ".join(parts), label))
    return out


def pooled_seats(group) -> dict | None:
    """The seats of restricted-play studies of one game, player count and options, pooled: each is
    rotated (every seat holds the restricted kind equally often), so the seat figures are free of the
    restriction; a study whose seat test is blind (seat_test_blind) is left out. → {'seats': [(seat,
    win rate, ci95)], 'games', 'p', 'differ', 'text'} or None (no finished game, a team game)."""
    from .stats import chi_square_equal, wilson
    used = [s for s in group if s.get("games_finished") and s.get("seats") and s.get("teams") is None
            and not s.get("cooperative") and not seat_test_blind(s)]
    if not used:
        return None
    P = len(used[0]["seats"])
    used = [s for s in used if len(s["seats"]) == P]
    n = sum(s["games_finished"] for s in used)
    wins = [sum(s["seats"][p]["wins"] for s in used) for p in range(P)]
    test = chi_square_equal(wins)
    if test is None:
        return None
    seats = [(p, wins[p] / n, list(wilson(wins[p], n))) for p in range(P)]
    fair = 1 / P
    differ = test[2] < ALPHA
    shown = sorted(seats, key=lambda x: (-abs(x[1] - fair), x[0]))[:MAX_SEATS_LISTED]
    rates = ", ".join(f"seat {p} {'wins ' if i == 0 else ''}{pct(r, ci)}" for i, (p, r, ci) in enumerate(shown))
    text = (f"seats over the restricted-play studies ({_games(n)} of {len(used)} rotated "
            f"stud{'y' if len(used) == 1 else 'ies'} pooled, free of the restrictions): {rates} (fair share "
            f"{pct(fair)}); {SEAT_TEST} (df {test[1]}): {pvalue(test[2])}: "
            f"{'seats differ at the 5% level' if differ else 'no evidence that seats differ'}")
    return {"seats": seats, "games": n, "p": test[2], "differ": differ, "text": text}


def _restriction_word(r) -> str:
    """A restriction's verdict in a few words (the ranking table)."""
    rule, v, a = r["rule"], r["verdict"], r["action"]
    if v is None:
        return "no finished game"
    if (rule, v) in (("avoid", "costs"), ("always", "gains")):
        return f"{a} is dominant"
    if (rule, v) == ("avoid", "gains"):
        return f"{a} is harmful"
    if (rule, v) == ("always", "costs"):
        return f"{a} is not always right"
    return {"costs": "costs", "gains": "gains", "nothing": "no evidence it matters"}[v]


def restriction_ranking(summaries) -> list:
    """Restricted-play configurations → rows {'restriction', 'config', 'win_rate', 'ci95', 'fair',
    'cost', 'cost_ci95', 'verdict'}, the restricted seat's win rate highest (most dominant) first."""
    rows = []
    for s in summaries:
        r = restriction_sentence(s)
        if r is None:
            continue
        rc = s.get("restriction_cost") or {}
        rows.append({"restriction": s["restriction"], "config": s.get("config"), "group": _group_label(s),
                     "win_rate": rc.get("win_rate"),
                     "ci95": rc.get("ci95"), "fair": rc.get("fair"), "cost": rc.get("cost"),
                     "cost_ci95": rc.get("cost_ci95"), "verdict": _restriction_word(r)})
    rows.sort(key=lambda x: (x["win_rate"] is None, -(x["win_rate"] or 0)))
    return rows


def _fairness(summaries):
    """The verdict's first part: do the seats differ?"""
    if all(s.get("cooperative") for s in summaries):
        s = summaries[0]
        su = s.get("success") or {}
        return f"cooperative: the team succeeds in {pct(su.get('rate'), su.get('ci95'))} of {_games(s['games_finished'])}"
    tests, blind = [], []        # (p, seats [(seat, rate, ci)], fair, where)
    for s in summaries:
        adv = s.get("seat_advantage")
        if s.get("restriction") is not None or s.get("cooperative") or not adv or not _clean_seats(s):
            continue
        b = seat_test_blind(s)
        if b:
            blind.append(b)
            continue
        rows = (s.get("teams") or {}).get("teams") or []
        seats = ([(f"team {t['team']} ({members_text(t['members'])})", t["win_rate"], t["ci95"]) for t in rows]
                 if rows else [(f"seat {x['seat']}", x["win_rate"], x["ci95"]) for x in s["seats"]])
        tests.append((adv["p"], seats, fair_share(s), s.get("config"), "teams" if rows else "seats"))
    groups = {}
    for s in summaries:
        if s.get("restriction") is not None:
            groups.setdefault((s["game"], s["players"], tuple(sorted((s.get("options") or {}).items()))), []).append(s)
    for g in groups.values():
        pooled = pooled_seats(g)
        if pooled is not None:
            tests.append((pooled["p"], [(f"seat {p}", r, ci) for p, r, ci in pooled["seats"]], 1 / g[0]["players"],
                          f"{_group_label(g[0])}, restricted play pooled", "seats"))
    several = len(tests) > 1
    differ = [t for t in tests if t[0] < ALPHA]
    if differ:
        p, seats, fair, where, _ = min(differ, key=lambda t: t[0])
        who, rate, ci = max(seats, key=lambda x: (abs((x[1] or 0) - fair), -seats.index(x)))
        return (f"not fair: {who} wins {pct(rate, ci)} against the fair {pct(fair)} ({pvalue(p)}"
                f"{', ' + where if several and where else ''})")
    if tests:
        p = min(t[0] for t in tests)
        units = "teams" if all(t[4] == "teams" for t in tests) else "seats"     # a team game: its teams
        text = (f"fair: no evidence that {units} differ ({pvalue(p)}"
                f"{f', the lowest of {len(tests)} tests' if several else ''})")
        half = max(((ci[1] - ci[0]) / 2 for t in tests for _, _, ci in t[1]
                    if ci and None not in ci), default=0.0)
        if half > WIDE:     # a few games show no difference because they could show none
            text = (f"fairness not settled: no evidence that {units} differ ({pvalue(p)}), but a win "
                    f"rate is known only to within ±{round(100 * half)} points: play more games "
                    "(--games) to tell")
        for s in summaries:         # the first seat's own test (from 3 seats) may see what the test of all misses
            fs = (s.get("metrics") or {}).get("first_seat")
            if (s.get("restriction") is None and _clean_seats(s) and not seat_test_blind(s) and fs
                    and _units(s) > 2 and fs.get("p") is not None and fs["p"] < ALPHA):
                side = "above" if fs["win_rate"] > fs["fair"] else "below"
                return (f"not quite fair: no evidence that seats differ overall ({pvalue(p)}), but the first "
                        f"seat wins {side} its fair share: seat 0 wins "
                        f"{pct(fs['win_rate'], fs['ci95'])} against {pct(fs['fair'])} ({pvalue(fs['p'])})")
        return text
    if blind:
        return "fairness not measured: " + blind[0]
    return "fairness not measured (no seat figures free of bot strength)"


def _decided(summaries):
    """The verdict's second part: when is the game decided?"""
    plain = [s for s in summaries if s.get("restriction") is None] or summaries
    for s in plain:
        da = (s.get("metrics") or {}).get("decided_at") or {}
        if da.get("n"):
            m = da["mean"]
            when = "early" if m < 1 / 3 else "late" if m >= 2 / 3 else "midway"
            return f"decided {when}: the final winner leads for good from {pct(m, da.get('ci95'))} of the game"
    return "when it is decided: not recorded"


def _skill(summaries):
    """The verdict's third part: does playing better win more?"""
    for s in summaries:
        kinds = [k for k in s.get("kinds") or [] if k.get("win_rate") is not None]
        if s.get("restriction") is None and s.get("rotated") and len(kinds) > 1:
            order = sorted(kinds, key=lambda k: -k["win_rate"])
            best, worst = order[0], order[-1]
            figs = (f"{best['kind']} wins {pct(best['win_rate'], best['ci95'])} of its seats, {worst['kind']} "
                    f"{pct(worst['win_rate'], worst['ci95'])}")
            if _has(best["ci95"]) and _has(worst["ci95"]) and best["ci95"][0] > worst["ci95"][1]:
                return f"skill matters: {figs}"
            return f"no evidence that skill matters: {figs}"
    rows = [r for r in restriction_ranking(summaries) if r["win_rate"] is not None]
    if rows:
        clear = [r for r in rows if _has(r["cost_ci95"]) and (min(r["cost_ci95"]) > 0 or max(r["cost_ci95"]) < 0)]
        if clear:
            r = max(clear, key=lambda r: abs(r["cost"]))
            return (f"choices matter: {r['restriction']} wins {pct(r['win_rate'], r['ci95'])} against the fair "
                    f"{pct(r['fair'])} ({r['verdict']}; {len(clear)} of {len(rows)} restrictions differ)")
        return f"no evidence that choices matter ({len(rows)} restrictions, none differs)"
    if any(s.get("restriction") is None and len(set(s.get("lineup") or ())) > 1 for s in summaries):
        # bots differ, each one seat throughout: a bot's wins mix its skill with its seat's advantage
        return ("skill not measured (the seats' bots differ but each keeps its seat, so skill and seat "
                "are not told apart: --rotate seats each bot in every seat)")
    return ("skill not measured (every seat plays alike: --bot 0=ismcts:200 --rotate, or --restrict all, "
            "measures it)")


def verdict(summaries) -> str | None:
    """The study's one-line answer: is it fair, is it decided early, does skill matter? Each part from
    the figures of findings (the same tests); None when no game finished."""
    summaries = [s for s in summaries if s.get("games_finished")]
    if not summaries:
        return None
    return "verdict: " + "; ".join((_fairness(summaries), _decided(summaries), _skill(summaries)))


HEADLINES = ("seat", "mixed", "strength", "first_seat", "unfinished", "never_played", "rare_actions")


def finding_items(summaries, detailed=MAX_DETAILED, compared=MAX_COMPARED, headlines=False) -> list:
    """Summaries (one per configuration) → the study in words, as dicts {'kind', 'text', 'config'} (the
    configuration's label, or a group's for sentences about several; None for the study). In order: an
    overview of many configurations, line-up comparisons, restricted play, then each of the first
    `detailed` configurations (restricted ones are in their group's sentences), the metrics not
    recorded, and what was left out. `headlines`: of each configuration only the verdicts (HEADLINES:
    seats, line-up, bot strength, first seat, unfinished games, actions never or rarely played), not
    every metric (a report gives those per configuration). Bounded: the sentences do not grow with the
    configurations."""
    summaries = list(summaries)
    out = []
    comp = [s for s in summaries if not s.get("cooperative") and s.get("seat_advantage")
            and s.get("restriction") is None]
    if len(summaries) > 1 and comp:
        differ = sum(1 for s in comp if s["seat_advantage"]["p"] < ALPHA)
        teams = any(s["seat_advantage"].get("over") == "teams" for s in comp)
        out.append(_item("overview", f"seats differ at the 5% level ({SEAT_TEST}"
                         f"{'; over the teams where seats play in teams' if teams else ''}) in {differ} of "
                         f"{len(comp)} configurations with seat win rates", None))
    out.extend(_lineup_items(summaries, compared))
    out.extend(_restriction_items(summaries))
    plain = [s for s in summaries if s.get("restriction") is None]
    unrecorded = []
    for s in plain[:detailed]:
        for it in config_findings(s):
            if it["kind"] == "not_recorded":
                unrecorded.append(s.get("config"))
            elif not headlines or it["kind"] in HEADLINES:
                out.append(it)
    unrecorded += [s.get("config") for s in plain[detailed:] if s.get("games_finished")
                   and not (s.get("metrics") or {}).get("recorded")]
    if unrecorded:
        which = ("the study" if len(summaries) == 1 else _names(unrecorded, 3) if len(unrecorded) <= 3
                 else f"{len(unrecorded)} configurations")
        out.append(_item("not_recorded", f"lead changes, decisiveness, drama and action usage were not recorded "
                         f"for {which} (the games ran with --no-trace, or the records predate them); "
                         f"{HOW_TO_RECORD}", None))
    if len(plain) > detailed:
        out.append(_item("left_out", f"{len(plain) - detailed} more configurations are not described one by one "
                         "here (their figures are in the tables)", None))
    seen, unique = set(), []
    for it in out:                      # duplicate configurations say a thing once
        key = (it["config"], it["text"])
        if key not in seen:
            seen.add(key)
            unique.append(it)
    return unique


def findings(summaries, detailed=MAX_DETAILED, compared=MAX_COMPARED) -> list:
    """Summaries → the study in words: one sentence a finding, each figure with its 95% interval in
    brackets, prefixed by its configuration (or group) when the study has several."""
    summaries = list(summaries)
    several = len(summaries) > 1
    return [f"{it['config']}: {it['text']}" if several and it["config"] else it["text"]
            for it in finding_items(summaries, detailed, compared)]


__all__ = ["findings", "finding_items", "verdict", "restriction_ranking", "seat_test_blind", "seat_words", "config_findings", "lineup_verdict", "restriction_sentence",
           "classify_cost", "pct", "points", "num"]
