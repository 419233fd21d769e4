"""State + player + random.Random → a determinization: a complete State the player cannot tell from
the real one, the cards hidden from them placed uniformly at random (docs/hidden-information.md).

What stays: every card the player sees or knows (the engine's knowledge masks, so also what they
saw move and were shown), every zone's size, faces turned up or down, variables, the flow, the
history and the log as the player saw them. What is drawn: which hidden card lies in which hidden
place — a uniform permutation of the cards hidden from the player over their places, so every
arrangement of faces consistent with the counts is equally likely. Knowledge of the other players
stays with the places (they "know" whatever card now lies where they knew one). The RNG state is
fresh, drawn from `rng`; the seed is gone; the history and the log keep only what the player saw
(card ids they did not see are replaced by random ones), so nothing of the real game's hidden
cards or seed can be read out of the determinization.

Limits: it does not infer from other players' choices (a card they would surely have played), nor
from facts the engine's knowledge masks do not hold (a player who lost track of a set's cards when
one left unseen could still know the rest is one of two faces; a public or hidden variable computed
from hidden cards is kept as it is, not recomputed).
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
    hidden = [c for c in range(n) if not s._vis(c) & bit]
    drawn = list(hidden)
    rng.shuffle(drawn)
    m = list(range(n))               # real card -> the card that lies in its place instead
    for c, x in zip(hidden, drawn):
        m[c] = x

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
    d.face = {m[c]: f for c, f in s.face.items()}
    d.v = [_map_var(decl, v, m) for decl, v in zip(rs.var_decl, s.v)]
    if s.fenv:
        d.fenv = _map_flow(s, m)

    def unseen(c):                   # a card id the player did not see: no trace of it
        return rng.randrange(n)

    d.hist = _map_history(s.hist, p, bit, unseen)
    if s.log is not None:
        d.log = [_map_line(rs, line, p, bit, unseen) for line in s.log]
    d.seed = None
    d.rng = _rng.seed_state(rng.getrandbits(64))
    d.script = None
    d._legal = None
    d._index = None
    return d


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
        if ev[0] == "d":
            info = tuple((i, tuple(c if mk & bit else unseen(c) for c, mk in zip(cs, masks)), masks)
                         for i, cs, masks in ev[4])
            ev = ev[:4] + (info,)
        elif ev[0] == "r" and ev[1] != p:
            ev = ("r", ev[1], tuple(unseen(c) for c in ev[2]))
        out = (ev, out)
    return out


def _map_line(rs, line, p, bit, unseen):
    t = line["type"]
    if t == "header":
        return dict(line, seed=None)
    if t == "chance":
        if rs.zvis[rs.zone_label.index(line["zone"])] & bit:
            return dict(line)
        return dict(line, order=[unseen(c) for c in line["order"]])
    if t == "look":
        if line["player"] == p:
            return dict(line)
        return dict(line, cards=[unseen(c) for c in line["cards"]])
    if t == "decision":
        info = tuple((i, tuple(c if mk & bit else unseen(c) for c, mk in zip(cs, masks)), masks)
                     for i, cs, masks in line["_cards"])
        return dict(line, _cards=info)
    return dict(line)
