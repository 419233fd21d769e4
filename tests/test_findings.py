"""The study in words (gamespec/analysis/findings.py, issue 30): seat advantage with thinking seats
against random ones, a mixed line-up not rotated, bot strength of a rotated study, restricted play's
dominant and useless actions, the per-game metrics or that they were not recorded; every figure with
its 95% interval, bounded for thousands of configurations. Synthetic records with exact counts, so
every interval is checked against stats.wilson."""
from __future__ import annotations

import re
import time

import pytest

from gamespec.analysis import findings as F
from gamespec.analysis import stats, text


def games(wins0, n, bots=("random", "random"), game="G", options=None, trace=False, sha=None):
    """n games of len(bots) seats: seat 0 wins the first wins0, the next seat round the others."""
    P = len(bots)
    out = []
    for i in range(n):
        w = 0 if i < wins0 else 1 + i % (P - 1)
        r = {"game": game, "seed": i, "players": P, "options": dict(options or {}), "bots": list(bots),
             "scores": [10 + 5 * (p == w) for p in range(P)], "winners": [w], "decisions": 20 + i % 5,
             "turns": 4}
        if sha:
            r["spec_sha256"] = sha
        if trace:
            r.update(lead_changes=i % 4, decided_at=(i % 10) / 10, winner_deficit=[0, 0, 3][i % 3],
                     actions={"draw": 10, "pass": 10 + i % 5, "knock": 0, "burn": 1 if i % 100 == 0 else 0})
        out.append(r)
    return out


def rotated(lineup, kind_wins, n, restriction=None, game="G", trace=False):
    """n deals of len(lineup) seats, each played in every rotation (kind i at seat (i + r) mod P): the
    first kind_wins of the n * P games are won by the line-up's first kind, the others by the kind
    after it."""
    P = len(lineup)
    out = []
    g = 0
    for i in range(n):
        for r in range(P):
            bots = [None] * P
            for k, kind in enumerate(lineup):
                bots[(k + r) % P] = kind
            w = r % P if g < kind_wins else (1 + r) % P      # the seat of kind 0, or of kind 1
            rec = {"game": game, "seed": i, "players": P, "options": {}, "bots": bots, "lineup": list(lineup),
                   "rotation": r, "scores": [int(p == w) for p in range(P)], "winners": [w], "decisions": 12,
                   "turns": 3}
            if restriction:
                rec["restriction"] = restriction
            if trace:
                rec.update(lead_changes=1, decided_at=0.5, winner_deficit=0, actions={"a": 12})
            out.append(rec)
            g += 1
    return out


def ci_text(k, n):
    lo, hi = stats.wilson(k, n)
    return f"{100 * k / n:.0f}% [{100 * lo:.0f}, {100 * hi:.0f}]"


def one(items, kind):
    found = [it for it in items if it["kind"] == kind]
    assert len(found) == 1, (kind, [it["text"] for it in items])
    return found[0]


# ------------------------------------------------------------------------------ seat advantage, line-ups

def test_an_advantage_under_random_seats_only_is_mostly_random_play():
    recs = games(252, 400) + games(204, 400, bots=("ismcts:200", "ismcts:200"))
    items = F.finding_items(stats.summarize(recs))
    it = one(items, "lineup")
    assert it["verdict"] == "mostly" and it["config"] == "G: 2 players"
    assert it["text"].startswith(f"seat 0 wins {ci_text(252, 400)} with random seats and {ci_text(204, 400)} with "
                                 "ismcts:200 seats (fair share 50%): the advantage is mostly random play")
    assert ci_text(252, 400) == "63% [58, 68]" and ci_text(204, 400) == "51% [46, 56]"     # the example
    said = F.findings(stats.summarize(recs))
    assert f"G: 2 players: {it['text']}" in said


@pytest.mark.parametrize("random_wins, thinking_wins, verdict, words", [
    (252, 240, "persists", "the advantage persists with ismcts:200 seats"),
    (280, 232, "shrinks", "the advantage persists with ismcts:200 seats but shrinks"),
    (232, 280, "grows", "the advantage persists with ismcts:200 seats and grows"),
    (252, 148, "reverses", "the advantage reverses with ismcts:200 seats"),
    (200, 252, "appears", "an advantage appears only with ismcts:200 seats"),
    (200, 204, "none", "no seat advantage with either line-up"),
])
def test_the_line_up_rule(random_wins, thinking_wins, verdict, words):
    recs = games(random_wins, 400) + games(thinking_wins, 400, bots=("ismcts:200", "ismcts:200"))
    it = one(F.finding_items(stats.summarize(recs)), "lineup")
    assert it["verdict"] == verdict and words in it["text"], it["text"]
    assert f"{ci_text(random_wins, 400)} with random seats and {ci_text(thinking_wins, 400)}" in it["text"]


def test_one_seat_off_its_share_is_no_advantage_when_the_test_of_all_seats_finds_none():
    # seat 0 wins 300 of 1000 at 3 seats: its interval misses 1/3, but the chi-square p is 0.08
    thinking = games(300, 1000, bots=("ismcts:200",) * 3)
    s = stats.summarize(thinking)[0]
    assert s["seats"][0]["ci95"][1] < 1 / 3 and 0.05 < s["seat_advantage"]["p"] < 0.1
    recs = games(334, 1000, bots=("random",) * 3) + thinking
    it = one(F.finding_items(stats.summarize(recs)), "lineup")
    assert it["verdict"] == "none", it["text"]


def test_the_seat_sentence_names_the_test_and_its_verdict_in_stats_words():
    [s] = stats.summarize(games(252, 400))
    seat = one(F.config_findings(s), "seat")["text"]
    adv = s["seat_advantage"]
    assert seat == (f"seat 0 wins {ci_text(252, 400)} and seat 1 {ci_text(148, 400)} of 400 games (fair share "
                    f"50%); chi-square test of equal shares (df 1): p = {adv['p']:.2g}: {stats.seat_verdict(adv)}")
    assert stats.seat_verdict(adv) == "seats differ at the 5% level"


def test_every_bracketed_interval_of_the_seat_sentences_is_wilson():
    recs = games(130, 300, bots=("random",) * 3)
    [s] = stats.summarize(recs)
    seat = one(F.config_findings(s), "seat")["text"]
    got = re.findall(r"seat (\d) (?:wins )?(\d+)% \[(\d+), (\d+)\]", seat)
    assert len(got) == 3
    for p, rate, lo, hi in got:
        x = s["seats"][int(p)]
        wlo, whi = stats.wilson(x["wins"], 300)
        assert (int(rate), int(lo), int(hi)) == (round(100 * x["win_rate"]), round(100 * wlo), round(100 * whi))


def test_a_mixed_line_up_not_rotated_is_a_warning():
    [s] = stats.summarize(games(300, 400, bots=("ismcts:200", "random")))
    it = one(F.config_findings(s), "mixed")
    assert "seat 0 ismcts:200, seat 1 random" in it["text"] and "--rotate" in it["text"]
    assert "mix seat advantage with bot strength" in it["text"]
    assert not [x for x in F.config_findings(s) if x["kind"] == "strength"]     # not without rotation


def test_a_rotated_study_gives_bot_strength_per_kind_with_intervals():
    recs = rotated(["ismcts:200", "random", "random", "random"], kind_wins=490, n=200)     # 800 games
    [s] = stats.summarize(recs)
    assert s["rotated"] and s["rotations"] == 4
    items = F.config_findings(s)
    assert not [x for x in items if x["kind"] == "mixed"]
    st = one(items, "strength")["text"]
    # ismcts:200 held 1 seat in 800 games and won 490; random held 3 seats (2400) and won 310
    assert f"ismcts:200 wins {ci_text(490, 800)} of its seats, random {pct3(310, 2400)}" in st, st
    assert "clearly stronger than random" in st and "4 rotations" in st
    assert "rotated, so free of bot strength" in one(items, "seat")["text"]


def pct3(k, n):
    lo, hi = stats.wilson(k, n)
    d = 1 if hi - lo < 0.02 else 0
    return f"{100 * k / n:.{d}f}% [{100 * lo:.{d}f}, {100 * hi:.{d}f}]"


def test_study_lines_show_bot_strength_metrics_and_findings():
    [s] = stats.summarize(rotated(["ismcts:200", "random"], kind_wins=300, n=200, trace=True))
    r = {"summary": s, "seed": 0, "games_requested": 200, "game": "G", "players": 2, "options": {},
         "games_finished": 400, "seconds": 1.0, "games_per_second": 400.0, "workers": 1, "errors": []}
    lines = list(text.study_lines(r))
    assert lines[-1] == "  errors: 0"
    i = lines.index("  bot strength over 2 rotations (win rate per seat held, fair share 50%):")
    assert lines[i + 2].split()[:4] == ["ismcts:200", "1", "400", "75.0%"]
    assert any(x.startswith("  metrics (400 traced games): ") and "lead changes 1 [1, 1]/game" in x for x in lines)
    assert "  findings:" in lines and any("ismcts:200 wins 75% [71, 79] of its seats" in x for x in lines)


# ------------------------------------------------------------------------------ restricted play

def restricted_study():
    R = "random"
    recs = []
    # the restricted kind's wins out of 400 seat-games (100 deals, 4 rotations): fair is 100
    for res, wins in [("avoid:pass", 40), ("avoid:draw", 98), ("random/avoid:draw", 98), ("always:knock", 160),
                      ("first", 30), ("always:draw", 104), ("avoid:knock", 150)]:
        recs += rotated([res, R, R, R], kind_wins=wins, n=100, restriction=res)
    return stats.summarize(recs)


def test_restriction_costs_classify_dominant_and_useless_actions():
    summaries = restricted_study()
    by = {s["restriction"]: s for s in summaries}
    rc = by["avoid:pass"]["restriction_cost"]
    assert rc["cost"] == pytest.approx(0.25 - 0.10) and F.classify_cost(rc) == "costs"
    assert F.classify_cost(by["avoid:draw"]["restriction_cost"]) == "nothing"
    assert F.classify_cost(by["always:knock"]["restriction_cost"]) == "gains"
    said = F.finding_items(summaries)
    texts = [it["text"] for it in said]
    lo, hi = stats.wilson(40, 400)
    cost = f"{100 * (0.25 - 0.10):.0f} points [{100 * (0.25 - hi):.0f}, {100 * (0.25 - lo):.0f}]"
    assert (f"pass is a dominant action: a seat that never plays pass (avoid:pass) wins {ci_text(40, 400)} "
            f"against the fair 25% with random opponents, a cost of {cost}") in texts
    assert any(t.startswith("knock is a dominant action: a seat that plays knock whenever it can") for t in texts)
    assert any(t.startswith("knock is a harmful action: a seat that never plays knock") for t in texts)
    assert any(t.startswith("the restriction first costs: a seat that always takes the first legal action")
               for t in texts)
    useless = one(said, "restriction_none")["text"]
    assert useless.startswith("no evidence that these restrictions matter (the cost's interval contains 0): ")
    # avoid:draw and random/avoid:draw are one restriction: said once
    assert useless.count("avoid:draw") == 1 and "always:draw" in useless
    verdict = one(said, "actions_verdict")["text"]
    assert "dominant actions: pass, knock" in verdict and "no evidence that they matter: draw" in verdict
    assert "harmful" not in verdict             # knock is dominant (always:knock gains), not also harmful
    assert all(it["config"] == "G: 4 players, against random" for it in said if it["kind"] != "left_out")


def test_a_restriction_of_one_configuration_in_words():
    [s] = stats.summarize(rotated(["avoid:draw", "random"], kind_wins=100, n=100, restriction="avoid:draw"))
    r = F.restriction_sentence(s)
    assert r["verdict"] == "nothing" and r["text"].startswith("no evidence that draw matters: ")
    assert "the interval contains 0" in r["text"]


# ------------------------------------------------------------------------------ metrics

def test_metrics_in_words_with_their_intervals():
    recs = games(200, 400, trace=True) + [{"game": "G", "seed": 400 + i, "players": 2, "options": {},
                                             "bots": ["random"] * 2, "error": "too long",
                                             "reason": "timeout" if i else "budget"} for i in range(3)]
    [s] = stats.summarize(recs)
    items = {it["kind"]: it["text"] for it in F.config_findings(s)}
    lc = s["metrics"]["lead_changes"]
    assert items["lead_changes"].startswith(f"lead changes: {F.num(lc['mean'], lc['ci95'])} per game")
    assert f"{lc['ci95'][0]:.2f}" in items["lead_changes"]
    da = s["metrics"]["decided_at"]
    assert f"leads for good from {F.pct(da['mean'], da['ci95'])} of the game" in items["decided_at"]
    cb = s["metrics"]["comeback"]
    assert f"trailed at some point in {F.pct(cb['rate'], cb['ci95'])}" in items["drama"]
    assert items["never_played"] == "never played in 400 games: knock"
    assert items["rare_actions"].startswith("rarely played (under 1% of decisions): burn")
    assert items["unfinished"].startswith("3 of 403 games did not end (") and "timeout 2, budget 1" in items["unfinished"]
    assert items["draws"] == "draws (a shared win, or no winner): 0.0% [0.0, 1.0] of 400 games"
    d = s["length"]["decisions"]
    assert items["length"].startswith(f"game length: {F.num(d['mean'], d['ci95'])} decisions per game")
    assert "not_recorded" not in items


def test_metrics_not_recorded_say_how_to_record_them():
    [s] = stats.summarize(games(200, 400))
    it = one(F.config_findings(s), "not_recorded")
    assert "not recorded" in it["text"] and "--no-trace" in it["text"] and "predate" in it["text"]
    study = F.findings([s])
    assert sum("not recorded" in t for t in study) == 1


def test_first_seat_advantage_uses_the_z_test_at_three_seats_and_more():
    [s] = stats.summarize(games(180, 300, bots=("random",) * 3))
    fs = s["metrics"]["first_seat"]
    t = one(F.config_findings(s), "first_seat")["text"]
    assert t.startswith(f"first-seat advantage: seat 0 wins {ci_text(180, 300)} against the fair 33%")
    assert fs["p"] < 1e-16 and "(two-sided z-test of a proportion, p < 1e-16)" in t and "the first seat wins above its fair share" in t
    [two] = stats.summarize(games(180, 300))
    assert not [x for x in F.config_findings(two) if x["kind"] == "first_seat"]    # the chi-square says it


# ------------------------------------------------------------------------------ bounded, said once

def test_findings_of_3000_configurations_are_bounded():
    recs = []
    for k in range(3000):
        recs += games(2, 3, options={"k": k})
        recs += games(1, 3, bots=("ismcts:200", "ismcts:200"), options={"k": k})
    summaries = stats.summarize(recs)
    t = time.process_time()
    said = F.findings(summaries)
    assert time.process_time() - t < 2.0
    assert len(said) < 200
    assert sum(1 for x in said if "with random seats and" in x) == F.MAX_COMPARED
    assert f"{3000 - F.MAX_COMPARED} more line-up comparisons are not described here" in said
    assert f"{6000 - F.MAX_DETAILED} more configurations are not described one by one here (their figures are in " \
           "the tables)" in said


def test_duplicate_configurations_say_a_thing_once():
    summaries = stats.summarize(games(252, 400))
    said = F.findings(summaries + summaries)
    assert len(said) == len(set(said))
    assert sum("seat 0 wins 63%" in x for x in said) == 1


def test_a_cooperative_configuration_says_its_success_rate():
    recs = [{"game": "C", "seed": i, "players": 2, "options": {}, "bots": ["random"] * 2, "scores": [3, 3],
             "winners": [0, 1] if i < 30 else [], "cooperative": True, "decisions": 5, "turns": 2} for i in range(100)]
    [s] = stats.summarize(recs)
    assert one(F.config_findings(s), "seat")["text"] == f"the team succeeds in {ci_text(30, 100)} of 100 games"
