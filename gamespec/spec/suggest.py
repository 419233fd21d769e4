"""A misspelt name + the names it could be → '; did you mean X?' (fewest edits, then likeness), with a
work budget shared by all the errors of a spec."""
from __future__ import annotations

import difflib


def _edits(a: str, b: str, limit: int) -> int:
    """Levenshtein distance, or limit + 1 once it is sure to exceed `limit` (band of width 2*limit)."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [limit + 1] * len(b)
        lo, hi = max(1, i - limit), min(len(b), i + limit)
        for j in range(lo, hi + 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != b[j - 1]))
        if min(cur[max(0, lo - 1):hi + 1]) > limit:
            return limit + 1
        prev = cur
    return min(prev[-1], limit + 1)


MAX_SUGGEST_WORK = 1_000_000   # comparison steps for did-you-mean hints, all errors of a spec (~1 s)


def suggest(name: str, candidates, budget: list | None = None) -> str:
    """'; did you mean X?' for the closest candidate: fewest edits first, then difflib's likeness.
    `budget` ([work left]) bounds the work over all of a spec's errors (a hostile spec may have
    thousands of misspelt names and hundreds of near-identical candidates)."""
    cands = sorted(set(c for c in candidates if isinstance(c, str)))
    name = str(name)[:64]
    limit = max(1, len(name) // 4)
    if budget is not None:
        budget[0] -= len(cands) * (len(name) + 1) * (2 * limit + 1)
        if budget[0] < 0:
            return ""
    low = name.lower()
    scored = []
    for c in cands:
        d = _edits(low, c.lower()[:64], limit)
        if d <= limit:
            scored.append((d, c))
    if scored:
        least = min(d for d, _ in scored)
        ties = sorted(c for d, c in scored if d == least)[:5]
        best = max(ties, key=lambda c: difflib.SequenceMatcher(None, name, c).ratio())
    else:
        close = difflib.get_close_matches(name, cands, n=1, cutoff=0.6)
        if not close:
            return ""
        best = close[0]
    return f"; did you mean '{best}'?"
