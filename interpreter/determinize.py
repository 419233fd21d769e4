"""State + player + random.Random → a determinization: a complete State the player cannot tell from
the real one, the cards hidden from them placed uniformly at random (docs/hidden-information.md).

What stays: every card the player sees or knows (the engine's knowledge masks, so also what they
saw move and were shown), every zone's size, faces turned up or down, variables, the flow, the
history and the log as the player saw them, per-card marks at their places (the card drawn for a
place takes its marks, so no real face is tied to a mark the player cannot see). What is drawn:
which hidden card lies in which hidden place, among the cards that may lie there (`state.poss`: the set-up zones whose cards may have
reached that zone, from zone-level moves everyone sees) — uniform over the arrangements consistent
with that when those sets nest (see `_draw`). Knowledge of the other players
stays with the places (they "know" whatever card now lies where they knew one). The RNG state is
fresh, drawn from `rng`; the seed is gone; the history and the log keep only what the player saw
(card ids they did not see are replaced by placeholders: the smallest ids not otherwise named in
that event), so nothing of the real game's hidden cards or seed can be read out of the
determinization. (Another player's history in a determinization is therefore not meaningful.)

Limits: it does not infer from other players' choices (a card they would surely have played), nor
from facts the engine's knowledge masks do not hold (a player who lost track of a set's cards when
one left unseen could still know the rest is one of two faces; a public or hidden variable computed
from hidden cards stays as it is, not recomputed).
"""
from __future__ import annotations

from . import rng as _rng


def determinize(s, p, rng):
    rs = s.rs
    if type(p) is not int or not 0 <= p < rs.P:
        from gamespec.game import UsageError
        raise UsageError(f"no player {p!r} (players are 0 to {rs.P - 1})")
    bit = 1 << p
    n = rs.ncards
    # hidden places in zone order (not by real card id: the same view and rng give the same world)
    hidden = [c for z in s.z for c in z if not s._vis(c) & bit]
    m = list(range(n))               # real card -> the card that lies in its place instead
    for c, x in zip(hidden, _draw(s, hidden, rng)):
        m[c] = x
    return relabel(s, m, p, rng)


def _draw(s, hidden, rng):
    """A card for each hidden place (the place of hidden[i]), at random among the cards that may lie
    there: a card that started in zone o may lie in zone z if o is in s.poss[z] (where the cards
    of zone z may have come from, followed zone by zone: public facts). The most constrained
    places are filled first, each with a card drawn uniformly from those left: exactly uniform when
    these sets nest (the usual case: separate decks that mix into common zones); a dead end (sets
    that overlap otherwise) draws again, and after a few tries the cards are drawn only among those
    of the same origin, which is always possible."""
    rs = s.rs
    origin = rs.init_zone
    allowed = [s.poss[s.loc[c]] for c in hidden]
    if len(set(allowed)) == 1 and all(allowed[0] >> origin[c] & 1 for c in hidden):
        drawn = sorted(hidden)       # the usual case: any hidden card may lie in any hidden place
        rng.shuffle(drawn)
        return drawn
    bucket0 = {}
    for c in sorted(hidden):
        bucket0.setdefault(origin[c], []).append(c)
    size = {}
    for a in set(allowed):
        size[a] = sum(len(cs) for o, cs in bucket0.items() if a >> o & 1)
    order = sorted(range(len(hidden)), key=lambda i: size[allowed[i]])
    for _ in range(20):
        buckets = {o: list(cs) for o, cs in bucket0.items()}
        drawn = [None] * len(hidden)
        for i in order:
            mine = [cs for o, cs in buckets.items() if allowed[i] >> o & 1 and cs]
            total = sum(len(cs) for cs in mine)
            if not total:
                break
            j = rng.randrange(total)
            for cs in mine:
                if j < len(cs):
                    break
                j -= len(cs)
            drawn[i] = cs[j]
            cs[j] = cs[-1]
            cs.pop()
        else:
            return drawn
    groups = {}
    for i, c in enumerate(hidden):
        groups.setdefault(origin[c], []).append(i)
    drawn = [None] * len(hidden)
    for idx in groups.values():
        cs = [hidden[i] for i in idx]
        rng.shuffle(cs)
        for i, c in zip(idx, cs):
            drawn[i] = c
    return drawn


def relabel(s, m, p, rng):
    """A copy of s with card m[c] wherever card c lies (m a permutation of the card ids), the
    history and log as player p saw them, a fresh RNG state from rng and no seed."""
    rs = s.rs
    n = rs.ncards
    bit = 1 << p
    d = s.clone()
    d.z = [[m[c] for c in z] for z in s.z]
    loc = [0] * n
    for zi, z in enumerate(d.z):
        for c in z:
            loc[c] = zi
    d.loc = loc
    kn = [0] * n
    for c in range(n):               # knowledge and turned faces belong to the place
        kn[m[c]] = s.kn[c]
    d.kn = kn
    if s.mk:                         # marks belong to the place too (docs/language.md, Per-card marks)
        mk = []
        for col in s.mk:
            new = [None] * n
            for c in range(n):
                new[m[c]] = col[c]
            mk.append(new)
        d.mk = mk
    d.face = {m[c]: f for c, f in s.face.items()}
    d.v = [_map_var(decl, v, m) for decl, v in zip(rs.var_decl, s.v)]
    if s.fenv:
        d.fenv = _map_flow(s, m)

    def unseen(cs, seen):
        """cs with the ids the player did not see replaced by the smallest ids not named (no trace
        of them: the same for every real card), all different, as a saved state requires."""
        if not any(seen):
            return tuple(range(len(cs)))
        named = {c for c, ok in zip(cs, seen) if ok}
        if len(named) == len(cs):
            return tuple(cs)
        fresh = (x for x in range(n) if x not in named)
        return tuple(c if ok else next(fresh) for c, ok in zip(cs, seen))

    d.hist = _map_history(s.hist, p, bit, unseen)
    if s.log is not None:
        d.log = [_map_line(rs, line, p, bit, unseen) for line in s.log]
    d.seed = None
    d.rng = _rng.seed_state(rng.getrandbits(64))
    d.script = None
    d._legal = None
    d._index = None
    if d.pending >= 0 and getattr(rs.chooses[d.pending], "secret", False):
        _redraw_pending(d, p, rng)
    return d


def _redraw_pending(d, p, rng):
    """A simultaneous step under way: the other players' stored choices, which p cannot know, are
    drawn again, each uniformly among that player's legal actions in the determinized state (the
    state they chose in), in the history and in the log alike; p's own choice stays."""
    from gamespec.compile.flow import pending_choices

    from .state import secret_choice
    evs = pending_choices(d)
    if not any(ev[1] != p for ev in evs):
        return
    ch = d.rs.chooses[d.pending]
    actor = d.actor
    new = []
    for ev in evs:
        legal = None
        if ev[1] != p:
            d.actor = ev[1]
            legal = ch.enumerate(d)
        if legal:       # (none: a legality that reads cards hidden from p; the choice stays as it was)
            ev, line = secret_choice(ev[1], legal[rng.randrange(len(legal))], 0)   # as the engine records it
        else:
            line = None
        new.append((ev, line))
    d.actor = actor
    d._legal = None
    h = d.hist
    for _ in evs:
        h = h[1]
    for ev, _ in new:
        h = (ev, h)
    d.hist = h
    if d.log is not None:       # the stored choices' lines are the last secret decision lines
        k = len(d.log)
        for ev, line in reversed(new):
            k -= 1
            while not (d.log[k].get("type") == "decision" and d.log[k].get("secret")):
                k -= 1
            if line is not None:
                d.log[k] = dict(line, n=d.log[k]["n"])


def _map_var(decl, v, m):
    if decl.type == "card":
        return m[v] if v is not None else None
    if decl.type == "cards":
        return [m[c] for c in v]
    return list(v) if isinstance(v, list) else v


def _map_flow(s, m):
    """The `for` loops around the pending decision: a loop over cards follows the cards' places.
    Flow keys are '#listN' ([items, next index]) and 'VAR#N' (the current item)."""
    from .serial import _layout
    fenv = dict(s.fenv)
    if s.pending < 0:
        return fenv
    over_cards = {st.var for st in _layout(s.rs)[s.pending][1]
                  if getattr(getattr(st.iter, "ast", None), "t", "list") in ("zone", "cards")}
    for k, v in s.fenv.items():
        if k.startswith("#") or k.split("#")[0] not in over_cards:
            continue
        num = k.split("#")[1]
        fenv[k] = m[v]
        items, i = s.fenv[f"#list{num}"]
        fenv[f"#list{num}"] = [[m[c] for c in items], i]
    return fenv


def _map_history(h, p, bit, unseen):
    evs = []
    while h is not None:
        evs.append(h[0])
        h = h[1]
    out = None
    for ev in reversed(evs):
        if ev[0] in ("d", "s", "v"):
            ev = ev[:4] + (_map_info(ev[4], bit, unseen),)
        elif ev[0] == "r" and ev[1] != p:
            ev = ("r", ev[1], unseen(ev[2], [False] * len(ev[2])))
        out = (ev, out)
    return out


def _map_line(rs, line, p, bit, unseen):
    t = line["type"]
    if t == "header":
        return dict(line, seed=None)
    if t == "chance":
        if rs.zvis[rs.zone_label.index(line["zone"])] & bit:
            return dict(line)
        return dict(line, order=list(unseen(line["order"], [False] * len(line["order"]))))
    if t == "look":
        if line["player"] == p:
            return dict(line)
        return dict(line, cards=list(unseen(line["cards"], [False] * len(line["cards"]))))
    if t in ("decision", "reveal"):
        return dict(line, _cards=_map_info(line["_cards"], bit, unseen))
    return dict(line)


def _map_info(info, bit, unseen):
    """A decision's card parameters: the ids the player saw stay, the others are replaced."""
    return tuple((i, unseen(cs, [mk & bit for mk in masks]), masks) for i, cs, masks in info)
