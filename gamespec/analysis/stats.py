"""Record rows → a summary per configuration: win rates with Wilson intervals, a chi-square test of no
seat advantage, score and length distributions, margins, ties; cooperative: team score and success.

The distributions (normal, Student t, chi-square) are computed here from the regularised incomplete
beta and gamma functions, so no SciPy is needed.
"""
from __future__ import annotations

import functools
import math

from gamespec.errors import RecordsError
from gamespec.simulate import sides

Z95 = 1.959963984540054          # the normal 97.5% quantile
QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)


# -- special functions ---------------------------------------------------------------------------

def _betacf(a, b, x):
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 500):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def betainc(a, b, x):
    """The regularised incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbeta = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(lbeta) * _betacf(a, b, x) / a
    return 1.0 - math.exp(lbeta) * _betacf(b, a, 1.0 - x) / b


def gammaincc(a, x):
    """The regularised upper incomplete gamma function Q(a, x)."""
    if x <= 0.0:
        return 1.0
    if x < a + 1.0:             # series for P
        term = total = 1.0 / a
        ap = a
        for _ in range(1000):
            ap += 1.0
            term *= x / ap
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(-x + a * math.log(x) - math.lgamma(a)))
    tiny = 1e-300               # continued fraction for Q
    b = x + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    for i in range(1, 1000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = b + an / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return math.exp(-x + a * math.log(x) - math.lgamma(a)) * h


def norm_sf(z):
    """P(Z > z) for a standard normal Z."""
    return 0.5 * math.erfc(z / math.sqrt(2.0))


def t_sf(t, df):
    """P(T > t) for Student's t with df degrees of freedom (df may be fractional: Welch)."""
    if math.isinf(df):
        return norm_sf(t)
    x = df / (df + t * t)
    tail = 0.5 * betainc(df / 2.0, 0.5, x)
    return tail if t >= 0 else 1.0 - tail


@functools.lru_cache(maxsize=4096)
def t_ppf(p, df):
    """The p-quantile of Student's t (bisection on t_sf; p in (0, 1)). Cached: every configuration of
    a sweep with the same game count asks for the same quantile (200 bisection steps each)."""
    lo, hi = -1e3, 1e3
    for _ in range(200):
        mid = (lo + hi) / 2
        if 1.0 - t_sf(mid, df) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def chi2_sf(x, df):
    """P(X > x) for a chi-square X with df degrees of freedom."""
    return gammaincc(df / 2.0, x / 2.0)


# -- estimates -----------------------------------------------------------------------------------

def wilson(successes, n, z=Z95):
    """The Wilson score interval (lo, hi) of a proportion; (None, None) for n = 0."""
    if n <= 0:
        return None, None
    p = successes / n
    den = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return max(0.0, centre - half), min(1.0, centre + half)


def chi_square_equal(counts):
    """Goodness of fit of counts to equal shares → (statistic, df, p); None with < 2 cells or no count."""
    k = len(counts)
    total = sum(counts)
    if k < 2 or total <= 0:
        return None
    e = total / k
    stat = sum((c - e) ** 2 / e for c in counts)
    return stat, k - 1, chi2_sf(stat, k - 1)


def quantile(sorted_xs, q):
    """Linear interpolation between order statistics (NumPy's default)."""
    n = len(sorted_xs)
    if n == 0:
        return None
    h = (n - 1) * q
    i = int(math.floor(h))
    j = min(i + 1, n - 1)
    return sorted_xs[i] + (h - i) * (sorted_xs[j] - sorted_xs[i])


def describe(xs, lo=None, hi=None):
    """Mean with a 95% t interval, sd, min, quantiles, max of a list of numbers. `lo`/`hi`: the range
    the quantity cannot leave (a share 0..1, a count >= 0): the interval is cut to it (a few games'
    t interval can reach past it: "decided at 68% [-2, 138]")."""
    n = len(xs)
    if n == 0:
        return {"n": 0, "mean": None, "ci95": [None, None], "sd": None, "min": None, "max": None,
                "quantiles": {}}
    mean = math.fsum(xs) / n
    sd = math.sqrt(math.fsum((x - mean) ** 2 for x in xs) / (n - 1)) if n > 1 else 0.0
    if n > 1:
        half = t_ppf(0.975, n - 1) * sd / math.sqrt(n)
        ci = [mean - half if lo is None else max(lo, mean - half), mean + half if hi is None else min(hi, mean + half)]
    else:
        ci = [None, None]
    s = sorted(xs)
    return {"n": n, "mean": mean, "ci95": ci, "sd": sd, "min": s[0], "max": s[-1],
            "quantiles": {f"{round(q * 100)}%": quantile(s, q) for q in QUANTILES}}


SEAT_TEST = "chi-square test of equal shares"


def seat_verdict(adv, alpha=0.05) -> str:
    """The seat test's result in words (the same words in `simulate`'s text and the report); in a
    team game the test is over the teams (adv["over"] == "teams") and says so."""
    who = "teams" if adv.get("over") == "teams" else "seats"
    return (f"{who} differ at the {alpha:.0%} level" if adv["p"] < alpha
            else f"no evidence that {who} differ")


def seat_test_name(adv) -> str:
    """SEAT_TEST, 'over teams' where the seats play in teams."""
    return f"{SEAT_TEST} over teams" if adv.get("over") == "teams" else SEAT_TEST


def members_text(ms) -> str:
    """'seats 0, 2' (or 'seat 1')."""
    return ("seat " if len(ms) == 1 else "seats ") + ", ".join(map(str, ms))


def win_shares(winners, teams) -> tuple:
    """A finished competitive game → (the sides sharing its win, each winner's share). Without teams
    a shared win counts 1/k to each of its k winners (as ever); in a team game (`teams`: each seat's)
    the sides are the winning teams, a team that wins alone counts 1 to every partner, and a win
    shared by teams (a draw) counts to none."""
    k = sides(winners, teams)
    if teams is None:
        return k, 1.0 / k if k else 0.0
    return k, 1.0 if k == 1 else 0.0


class TeamsSeen:
    """The teams of one configuration's finished competitive records, row by row: whether they play
    in teams (every record says the seats' teams, or none does: a mix is refused, RecordsError), the
    one team list of them all (`fixed`), or that they vary from game to game (scoring.teams decided
    during play), and the sum of 1/teams over the games one team won (the fair share's)."""

    def __init__(self, label):
        self.label = label
        self.first = None            # (seed, teams) of the first record
        self.fixed = None
        self.varies = False
        self.inverse_sum = 0.0       # sum over the games one team won of 1/T

    def add(self, rec):
        teams = rec.get("teams")
        if self.first is None:
            self.first = (rec.get("seed"), teams)
            self.fixed = teams
        elif (teams is None) != (self.first[1] is None):
            a, b = (self.first, (rec.get("seed"), teams))
            said, silent = (a, b) if a[1] is not None else (b, a)
            raise RecordsError(f"the records of {self.label} disagree about teams: seed {said[0]} says the seats' "
                               f"teams {said[1]}, seed {silent[0]} says none (records written before records said "
                               "the teams count a team's win as a shared one): report them apart")
        elif teams != self.fixed:
            self.varies = True
        if teams is not None and sides(rec["winners"], teams) == 1:
            self.inverse_sum += 1 / len(set(teams))
        return teams

    @property
    def team_game(self) -> bool:
        return self.first is not None and self.first[1] is not None


# -- the summary ---------------------------------------------------------------------------------

def config_key(rec) -> tuple:
    """The configuration of a record: (game, players, options, line-up), hashable. The line-up is the
    bots per seat, or for a rotated study the unrotated line-up (all its rotations are one
    configuration)."""
    opts = rec.get("options") or {}
    return (rec.get("game"), rec.get("players"), tuple(sorted(opts.items())),
            tuple(rec.get("lineup") or rec.get("bots") or ()))


def proportion(count, n) -> dict:
    """{'count', 'rate', 'ci95'} with the Wilson interval."""
    lo, hi = wilson(count, n)
    return {"count": count, "rate": count / n if n else None, "ci95": [lo, hi]}


def one_proportion_p(x, n, p0):
    """Two-sided z-test of a proportion x/n against p0 → p (None without games)."""
    if n <= 0 or not 0 < p0 < 1:
        return None
    z = (x / n - p0) / math.sqrt(p0 * (1 - p0) / n)
    return 2 * norm_sf(abs(z))


def config_label(key) -> str:
    game, players, opts, bots = key
    parts = [f"{players} players"] + [f"{k}={_fmt(v)}" for k, v in opts]
    if bots and any(b != "random" for b in bots):
        parts.append("bots=" + ",".join(bots))
    return f"{game}: " + ", ".join(parts)


def _fmt(v):
    return ("true" if v else "false") if isinstance(v, bool) else str(v)


class Summary:
    """Record rows of one configuration (fed one by one) → the summary dict. Keeps the per-game
    numbers the quantiles need (a few numbers a game), not the rows."""

    def __init__(self, key):
        self.key = key
        self.players = key[1]
        self.cooperative = False
        self.n = 0
        self.errors = []
        self.scores = [[] for _ in range(self.players)]
        self.shares = [0.0] * self.players
        self.outright = [0] * self.players       # games won alone
        self.ties = 0
        self.successes = 0
        self.margins = []
        self.decisions, self.turns, self.phases = [], [], []
        # issue 30: line-up, rotations, bot strength, restriction, per-game metrics
        self.lineup = list(key[3])
        self.rotations = set()
        self.kind_wins = {}                      # kind -> win shares over the seats it held
        self.teams = TeamsSeen(config_label(key))   # the seats' teams (a team game: a team's win is a win)
        self.team_wins = {}                      # team -> win shares (the teams as the records number them)
        self.restriction = None
        self.no_winner = 0
        self.traced = 0
        self.lead_changes, self.decided_at, self.deficits = [], [], []
        self.comebacks = 0
        self.actions = {}                        # name -> [count, games played in]
        self.traced_decisions = 0
        self.reasons = {}

    def add(self, rec):
        if rec.get("rotation") is not None:
            self.rotations.add(rec["rotation"])
        if rec.get("restriction") is not None:
            self.restriction = rec["restriction"]
        if "error" in rec:
            self.errors.append({"seed": rec.get("seed"), "error": rec["error"]})
            reason = rec.get("reason") or "rule"
            self.reasons[reason] = self.reasons.get(reason, 0) + 1
            return
        self.n += 1
        scores, winners = rec["scores"], rec["winners"]
        self._trace(rec, winners)
        if rec.get("cooperative"):
            self.cooperative = True
            self.scores[0].append(scores[0])
            self.successes += bool(winners)
        else:
            for p, sc in enumerate(scores):
                self.scores[p].append(sc)
            teams = self.teams.add(rec)
            # the sides sharing the win: the winners, or the winning teams (a team's win counts 1 to every
            # partner, as a sole winner's does; a draw between teams to none: win_shares)
            k, share = win_shares(winners, teams)
            bots = rec.get("bots") or ()
            for p in winners:
                self.shares[p] += share
                if len(bots) == len(scores):
                    self.kind_wins[bots[p]] = self.kind_wins.get(bots[p], 0.0) + share
            if teams is not None and k == 1:
                t = teams[winners[0]]
                self.team_wins[t] = self.team_wins.get(t, 0) + 1
            if k == 1:
                self.outright[winners[0]] += 1
            elif k > 1:
                self.ties += 1
            else:
                self.no_winner += 1
            losers = [scores[p] for p in range(len(scores)) if p not in winners]
            if winners and losers:
                w = scores[winners[0]]
                self.margins.append(min(abs(w - s) for s in losers))
        self.decisions.append(rec.get("decisions", 0))
        self.turns.append(rec.get("turns", 0))
        if rec.get("phases") is not None:
            self.phases.append(rec["phases"])

    def _trace(self, rec, winners):
        if rec.get("actions") is None:
            return
        self.traced += 1
        self.traced_decisions += rec.get("decisions", 0)
        for name, c in rec["actions"].items():
            a = self.actions.get(name)
            if a is None:
                a = self.actions[name] = [0, 0]
            a[0] += c
            a[1] += c > 0
        if rec.get("lead_changes") is not None:
            self.lead_changes.append(rec["lead_changes"])
        if rec.get("decided_at") is not None:
            self.decided_at.append(rec["decided_at"])
        if rec.get("winner_deficit") is not None:
            self.deficits.append(rec["winner_deficit"])
            self.comebacks += rec["winner_deficit"] > 0

    def _kinds(self, n):
        """Bot strength: each kind's win shares over the seats it held (pooled over seats)."""
        lineup = self.lineup
        if len(set(lineup)) < 2 or len(lineup) != self.players:
            return []
        out = []
        for kind in dict.fromkeys(lineup):
            seats = lineup.count(kind)
            m = n * seats
            w = self.kind_wins.get(kind, 0.0)
            lo, hi = wilson(w, m)
            out.append({"kind": kind, "seats": seats, "seat_games": m, "wins": w,
                        "win_rate": w / m if m else None, "ci95": [lo, hi]})
        return out

    def _metrics(self, n):
        total = n + len(self.errors)
        traced = self.traced
        acts = []
        for name, (count, games) in sorted(self.actions.items(), key=lambda kv: (-kv[1][0], kv[0])):
            lo, hi = wilson(games, traced)
            acts.append({"action": name, "count": count,
                         "share": count / self.traced_decisions if self.traced_decisions else None,
                         "per_game": count / traced if traced else None, "games": games,
                         "games_rate": games / traced if traced else None, "ci95": [lo, hi]})
        m = {"recorded": traced,
             "lead_changes": describe(self.lead_changes, lo=0),
             "decided_at": describe(self.decided_at, lo=0, hi=1),
             "winner_deficit": describe(self.deficits, lo=0),
             "comeback": proportion(self.comebacks, len(self.deficits)),
             "draws": proportion(self.ties + self.no_winner, n) if not self.cooperative else proportion(0, 0),
             "first_seat": None,
             "actions": acts,
             "never_played": [a["action"] for a in acts if a["count"] == 0] if traced else [],
             "unfinished": dict(proportion(len(self.errors), total), reasons=dict(self.reasons))}
        fair = self.fair_share()
        if not self.cooperative and n and fair is not None and fair < 1:
            lo, hi = wilson(self.shares[0], n)
            m["first_seat"] = {"win_rate": self.shares[0] / n, "ci95": [lo, hi], "fair": fair,
                               "p": one_proportion_p(self.shares[0], n, fair)}
        return m

    def fair_share(self):
        """A seat's fair share of the wins: 1/P; in a team game its team's, an equal part of the games
        not drawn, (1 - draw rate)/T (with teams that vary, 1/T of each game one team won, averaged)."""
        if not self.teams.team_game:
            return 1 / self.players if self.players else None
        return self.teams.inverse_sum / self.n if self.n else None

    def _teams(self, n):
        """The teams of a team game: each seat's (fixed) or that they vary, each team's members and
        wins (fixed teams only), and the test of equal shares over the teams."""
        ts = self.teams
        if not ts.team_game:
            return None, None
        if ts.varies:
            return {"seats": None, "varies": True, "count": None, "teams": []}, None
        members = {}
        for p, t in enumerate(ts.fixed):
            members.setdefault(t, []).append(p)
        rows = []
        for t in sorted(members):
            w = self.team_wins.get(t, 0)
            lo, hi = wilson(w, n)
            rows.append({"team": t, "members": members[t], "wins": w, "win_rate": w / n if n else None,
                         "ci95": [lo, hi]})
        # the games one team won, against equal shares: whole counts, so exact (draws left out)
        test = chi_square_equal([r["wins"] for r in rows]) if n else None
        adv = None if test is None else {
            "test": "chi-square goodness of fit of the teams' wins (games one team won) to equal shares",
            "over": "teams", "statistic": test[0], "df": test[1], "p": test[2], "fractional_wins": False}
        return {"seats": list(ts.fixed), "varies": False, "count": len(members), "teams": rows}, adv

    def result(self) -> dict:
        n = self.n
        game, players, opts, bots = self.key
        out = {"config": config_label(self.key), "game": game, "players": players, "options": dict(opts),
               "bots": list(bots), "cooperative": self.cooperative, "games": n + len(self.errors),
               "games_finished": n, "errors": self.errors}
        out["lineup"] = list(self.lineup)
        out["rotated"] = len(self.rotations) > 1
        out["rotations"] = max(1, len(self.rotations))
        out["kinds"] = [] if self.cooperative else self._kinds(n)
        out["restriction"] = self.restriction
        if self.restriction is not None:
            k = next((x for x in out["kinds"] if x["kind"] == self.restriction), None)
            fair = self.fair_share() if self.teams.team_game else 1 / players
            if k is not None and k["win_rate"] is not None:
                lo, hi = k["ci95"]
                out["restriction_cost"] = {"fair": fair, "win_rate": k["win_rate"], "ci95": [lo, hi],
                                           "cost": fair - k["win_rate"], "cost_ci95": [fair - hi, fair - lo]}
            else:
                out["restriction_cost"] = None
        out["metrics"] = self._metrics(n)
        if self.cooperative:
            lo, hi = wilson(self.successes, n)
            out["success"] = {"count": self.successes, "rate": self.successes / n if n else None,
                              "ci95": [lo, hi]}
            out["team_score"] = describe(self.scores[0])
        else:
            seats = []
            for p in range(players):
                lo, hi = wilson(self.shares[p], n)
                seats.append({"seat": p, "wins": self.shares[p], "win_rate": self.shares[p] / n if n else None,
                              "ci95": [lo, hi], "score": describe(self.scores[p])})
            out["seats"] = seats
            out["fair_share"] = self.fair_share()
            teams, team_test = self._teams(n)
            out["teams"] = teams
            if teams is not None:       # partners win together: the test is over the teams
                out["seat_advantage"] = team_test
            else:
                test = chi_square_equal(self.shares) if n else None
                out["seat_advantage"] = None if test is None else {
                    "test": "chi-square goodness of fit to equal win shares", "over": "seats", "statistic": test[0],
                    "df": test[1], "p": test[2], "fractional_wins": self.ties > 0}
            lo, hi = wilson(self.ties, n)
            out["ties"] = {"count": self.ties, "rate": self.ties / n if n else None, "ci95": [lo, hi]}
            out["margin"] = describe(self.margins)
        out["length"] = {"decisions": describe(self.decisions, lo=0), "turns": describe(self.turns, lo=0),
                         "phases": describe(self.phases, lo=0)}
        return out


def summarize(records) -> list:
    """Record rows (any configurations, any order) → one summary dict per configuration, in order of
    first appearance."""
    groups = {}
    for rec in records:
        key = config_key(rec)
        s = groups.get(key)
        if s is None:
            s = groups[key] = Summary(key)
        s.add(rec)
    return [s.result() for s in groups.values()]


def samples(records):
    """Record rows → {config key: per-game lists} for plots and tests: scores per seat, decisions,
    win indicators per seat (shares: win_shares), draws ('ties': a win shared by several sides),
    successes; in a team game with the same teams in every game, 'teams' (each seat's) and
    'team_shares' ({team: 1 for each game it won alone, else 0})."""
    out = {}
    for rec in records:
        key = config_key(rec)
        d = out.get(key)
        if d is None:
            P = key[1]
            d = out[key] = {"scores": [[] for _ in range(P)], "decisions": [], "turns": [],
                            "shares": [[] for _ in range(P)], "ties": [], "success": [],
                            "cooperative": False, "team_shares": {}, "_teams": TeamsSeen(config_label(key))}
        if "error" in rec:
            continue
        scores, winners = rec["scores"], rec["winners"]
        d["decisions"].append(rec.get("decisions", 0))
        d["turns"].append(rec.get("turns", 0))
        if rec.get("cooperative"):
            d["cooperative"] = True
            d["scores"][0].append(scores[0])
            d["success"].append(1 if winners else 0)
            continue
        teams = d["_teams"].add(rec)
        k, share = win_shares(winners, teams)
        for p, sc in enumerate(scores):
            d["scores"][p].append(sc)
            d["shares"][p].append(share if p in winners else 0.0)
        if teams is not None:
            won = teams[winners[0]] if k == 1 else None
            for t in range(len(set(teams))):
                d["team_shares"].setdefault(t, []).append(1.0 if t == won else 0.0)
        d["ties"].append(1 if k > 1 else 0)
    for d in out.values():
        ts = d.pop("_teams")
        d["teams"] = ts.fixed if ts.team_game and not ts.varies else None
        d["teams_vary"] = ts.varies
        if d["teams"] is None:
            d["team_shares"] = {}
    return out
