"""State + a legal action → the legal action played when its chooser picks blind from a set: one drawn
by the game's generator among those the chooser cannot tell apart (docs/hidden-information.md, "A
blind pick from a set is a draw"). The native engine mirrors it (runtime.c, rt_blind_pick).

A set has no order at a table, but the engine keeps its cards in the order they came: the chooser's
k-th hidden card of a set must not be the k-th to have come, or a player who watched them come could
aim at one.
"""
from __future__ import annotations

from . import rng
from .snapshot import json_key


def blind_zones(s, a, rt):
    """The sets holding a card that action a chooses and its chooser cannot tell apart (the listing's
    `seen` is None for it), as a sorted list; empty in the usual case."""
    is_set = s.rs.zone_is_set
    loc = s.loc
    bind, seen = a[2], a[3]
    zones = None
    for i, single in rt.card_params:
        if single:
            if seen[i] is None and is_set[loc[bind[i]]]:
                zones = (zones or set()) | {loc[bind[i]]}
        else:
            fs = seen[i] or (None,) * len(bind[i])
            for c, f in zip(bind[i], fs):
                if f is None and is_set[loc[c]]:
                    zones = (zones or set()) | {loc[c]}
    return sorted(zones) if zones else []


def _signature(s, b, rt, bit):
    """What the chooser tells apart of legal action b: per parameter its value, a card it cannot tell
    apart in a set replaced by that set (a list of cards as a sorted multiset)."""
    is_set, loc, vis = s.rs.zone_is_set, s.loc, s._vis
    kinds = rt.param_kinds
    out = []
    for j, kind in enumerate(kinds):
        v = b[2][j]
        if kind == 1:
            out.append(("z", loc[v]) if is_set[loc[v]] and not vis(v) & bit else ("c", v))
        elif kind == 2:
            out.append(tuple(sorted((("z", loc[c]) if is_set[loc[c]] and not vis(c) & bit else ("c", c))
                                    for c in v)))
        else:
            out.append(("v", json_key(b[1][j])))
    return b[0], tuple(out)


def _rank(s, b, rt, pos, bit):
    """Where b's cards that the chooser cannot tell apart lie in their reordered sets, parameter by
    parameter (a list's positions sorted): the class member ranked first is played."""
    is_set, loc, vis = s.rs.zone_is_set, s.loc, s._vis
    out = []
    for j, kind in enumerate(rt.param_kinds):
        v = b[2][j]
        if kind == 1:
            if is_set[loc[v]] and not vis(v) & bit:
                out.append(pos[v])
        elif kind == 2:
            out.extend(sorted(pos[c] for c in v if is_set[loc[c]] and not vis(c) & bit))
    return out


def blind_pick(s, a, rt):
    """None when a (one of s._legal) is played as chosen; else, when a picks blind from a set and
    others look the same to its chooser, the one drawn among them (the sets reordered first)."""
    zones = blind_zones(s, a, rt)
    if not zones:
        return None
    bit = 1 << s.actor
    want = _signature(s, a, rt, bit)
    name = a[0]
    klass = [b for b in s._legal if b[0] == name and b[4] is rt and _signature(s, b, rt, bit) == want]
    if len(klass) < 2:
        return None
    for zi in zones:
        reorder_set(s, zi)
    pos = {c: i for zi in zones for i, c in enumerate(s.z[zi])}
    return min(klass, key=lambda b: _rank(s, b, rt, pos, bit))


def _cards_key(s, b, rt, bit):
    """Legal action b by its cards (a card the chooser sees by its face: identical-looking cards are
    one choice, listed by the first of them) and other values, whatever the order of the sets."""
    face_of, vis = s.rs.face_of, s._vis
    out = []
    for j, kind in enumerate(rt.param_kinds):
        v = b[2][j]
        if kind == 1:
            out.append(("f", face_of[v]) if vis(v) & bit else ("c", v))
        elif kind == 2:
            out.append(tuple(sorted(("f", face_of[c]) if vis(c) & bit else ("c", c) for c in v)))
        else:
            out.append(("v", json_key(b[1][j])))
    return b[0], tuple(out)


def stored_values(s, ch, b, rt):
    """The values under which the drawn action b is found again once the sets are reordered (its
    cards' places in a set changed): what a simultaneous step stores for its reveal (flow._stored).
    The listing is made again at decision point ch, on a fresh step budget."""
    s.budget = s.rs.max_steps
    bit = 1 << s.actor
    want = _cards_key(s, b, rt, bit)
    for x in ch.enumerate(s):
        if x[0] == b[0] and x[4] is rt and _cards_key(s, x, rt, bit) == want:
            return x[1]
    return b[1]         # (the same cards lie in the same zones: not reached)


def reorder_set(s, zi):
    """Put set zi in an order drawn by the game's generator (a log replay's order when replaying): a
    chance event in the full log, and nothing a shuffle does besides (a set has no order to lose)."""
    cs = s.z[zi]
    if s.script is not None:
        cs[:] = s.script.next_shuffle(s, zi)
    else:
        s.rng = rng.SHUFFLES[s.gen](s.rng, cs)
    if s.log is not None:
        s.log.append({"type": "chance", "event": "shuffle", "zone": s.rs.zone_label[zi], "order": list(cs)})
