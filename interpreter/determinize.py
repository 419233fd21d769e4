"""State + player + random.Random → a determinization: a complete State the player cannot tell from
the real one, the cards hidden from them placed uniformly at random (docs/hidden-information.md).

What stays: every card the player sees or knows (the engine's knowledge masks, so also what they
saw move and were shown), every zone's size, faces turned up or down, variables, the flow, the
history and the log as the player saw them, per-card marks at their places (the card drawn for a
place takes its marks, so no real face is tied to a mark the player cannot see). A variable the
player cannot see (`hidden`, or another player's `owner` one) and a mark they cannot see (`hidden`,
or `zone` on a card they do not see where it lies) take their initial values: the real values are
exactly what they do not know (card variables excepted: they name the cards now in the same places). What is drawn:
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
one left unseen could still know the rest is one of two faces; a public variable computed from hidden
cards stays as it is, not recomputed; a variable the player cannot see is not drawn from the values
it could have, only reset).
"""
from __future__ import annotations

from . import rng as _rng
from .observe import sees_variable


def determinize(s, p, rng):
    return determinizer(s, p)(rng)


def determinizer(s, p):
    """State + player → a function rng → a determinization, the same as determinize(s, p, rng).

    What does not depend on the draw is worked out once (which places are hidden and which cards may
    lie there, the history and log as the player saw them, the flow's card loops), so a search bot
    drawing many worlds of one view pays per world only for the draw and the cards it moves. The
    function refuses to draw once `s` has moved on (UsageError)."""
    rs = s.rs
    if type(p) is not int or not 0 <= p < rs.P:
        from gamespec.errors import UsageError
        raise UsageError(f"no player {p!r} (players are 0 to {rs.P - 1})")
    bit = 1 << p
    # hidden places in zone order (not by real card id: the same view and rng give the same world)
    places = [(zi, i) for zi, z in enumerate(s.z) for i, c in enumerate(z) if not s._vis(c) & bit]
    hidden = [s.z[zi][i] for zi, i in places]
    draw = _drawer(s, hidden)
    hist = _map_history(s.hist, p, bit, _unseen(rs.ncards), rs)
    log = None if s.log is None else [_map_line(rs, line, p, bit, _unseen(rs.ncards)) for line in s.log]
    card_vars = [i for i, decl in enumerate(rs.var_decl) if decl.type in ("card", "cards")]
    secret = _secret_vars(rs, p)
    flow = _flow_cards(s)
    at = s.decisions

    def world(rng):
        if s.decisions != at:
            from gamespec.errors import UsageError
            raise UsageError("this determinizer is of an earlier moment of the game; make a new one")
        drawn = draw(rng)
        d = s.clone()
        m = list(range(rs.ncards))      # real card -> the card that lies in its place instead
        z, loc, kn, kn0 = d.z, d.loc, d.kn, s.kn
        for (zi, i), c, x in zip(places, hidden, drawn):
            m[c] = x
            z[zi][i] = x
            loc[x] = zi
            kn[x] = kn0[c]           # knowledge belongs to the place
        _finish(d, s, m, p, card_vars, flow, hist, log, rng, secret)
        return d
    world.parts = (places, hidden, draw, card_vars, secret, flow)     # for the native search
    return world


def _drawer(s, hidden):
    """A function rng → a card for each hidden place (the place of hidden[i]), at random among the
    cards that may lie there: a card that started in zone o may lie in zone z if o is in s.poss[z]
    (where the cards of zone z may have come from, followed zone by zone: public facts). The most
    constrained places are filled first, each with a card drawn uniformly from those left: exactly
    uniform when these sets nest (the usual case: separate decks that mix into common zones); a dead
    end (sets that overlap otherwise) draws again, and after a few tries the cards are drawn only
    among those of the same origin, which is always possible."""
    rs = s.rs
    origin = rs.init_zone
    allowed = [s.poss[s.loc[c]] for c in hidden]
    if len(set(allowed)) == 1 and all(allowed[0] >> origin[c] & 1 for c in hidden):
        cards = sorted(hidden)       # the usual case: any hidden card may lie in any hidden place

        def shuffled(rng):
            drawn = list(cards)
            rng.shuffle(drawn)
            return drawn
        shuffled.plan = ("shuffle", cards)      # what a native search draws the same way
        return shuffled
    bucket0 = {}
    for c in sorted(hidden):
        bucket0.setdefault(origin[c], []).append(c)
    size = {}
    for a in set(allowed):
        size[a] = sum(len(cs) for o, cs in bucket0.items() if a >> o & 1)
    order = sorted(range(len(hidden)), key=lambda i: size[allowed[i]])
    groups = {}
    for i, c in enumerate(hidden):
        groups.setdefault(origin[c], []).append(i)

    origins = list(bucket0)
    # per place in filling order: the buckets (origins) its card may come from, as positions
    plan = [(i, [k for k, o in enumerate(origins) if allowed[i] >> o & 1]) for i in order]

    def constrained(rng):
        for _ in range(20):
            buckets = [list(cs) for cs in bucket0.values()]
            drawn = [None] * len(hidden)
            for i, ks in plan:
                if len(ks) == 1:
                    cs = buckets[ks[0]]
                    if not cs:
                        break
                    j = rng.randrange(len(cs))
                else:
                    mine = [buckets[k] for k in ks]
                    total = sum(map(len, mine))
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
        drawn = [None] * len(hidden)
        for idx in groups.values():
            cs = [hidden[i] for i in idx]
            rng.shuffle(cs)
            for i, c in zip(idx, cs):
                drawn[i] = c
        return drawn
    constrained.plan = ("constrained", [list(cs) for cs in bucket0.values()], plan, list(groups.values()))
    return constrained


def _draw(s, hidden, rng):
    return _drawer(s, hidden)(rng)


def _unseen(n):
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
    return unseen


def _secret_vars(rs, p):
    """[(index, initial value)] of the variables player p cannot see (`hidden`, or `owner` of another
    player), cards and lists of cards excepted: their real values are what p does not know."""
    out = []
    for name, base in rs.var_base.items():
        decl = rs.spec.variables[name]
        if decl.type in ("card", "cards"):
            continue
        for q in range(rs.cells(decl)):
            if not sees_variable(rs, decl, 1 << p, q if rs.cells(decl) > 1 or decl.per_player else None):
                out.append((base + q, rs.var_init[base + q]))
    return out


def _finish(d, s, m, p, card_vars, flow, hist, log, rng, secret=()):
    """What follows the cards' places in d (a copy of s with its zones, places and knowledge
    relabelled by m): turned faces, marks, card variables, the flow's card loops; then the history and
    log as the player saw them, a fresh RNG state from rng and no seed; a simultaneous step's pending
    choices of the others drawn again."""
    d.face = {m[c]: f for c, f in s.face.items()} if s.face else {}
    if s.mk:                         # marks belong to the place too (docs/language.md, Per-card marks)
        # a mark p cannot see takes its initial value: its real value is what p does not know
        mk = []
        blind = None                 # the places p does not see (by the card now there), if needed
        for col, sight, init in zip(s.mk, s.rs.mark_sight, s.rs.mark_init):
            if sight == 0:                  # nobody sees it
                mk.append([init] * len(col))
                continue
            new = [None] * len(col)
            for c, x in enumerate(col):
                new[m[c]] = x
            if sight is None:               # seen with the card
                if blind is None:
                    bit = 1 << p
                    blind = [m[c] for c in range(len(col)) if not s._sight(c) & bit]
                for c in blind:
                    new[c] = init
            mk.append(new)
        d.mk = mk
    for i, init in secret:      # a variable p cannot see: its initial value, which the spec makes public
        d.v[i] = list(init) if isinstance(init, list) else init
    if card_vars:
        v = d.v
        for i in card_vars:
            x = v[i]
            if isinstance(x, list):
                v[i] = [m[c] for c in x]
            elif x is not None:
                v[i] = m[x]
    if flow:
        fenv = d.fenv = dict(s.fenv)
        for k, num in flow:
            fenv[k] = m[s.fenv[k]]
            items, i = s.fenv[num]
            fenv[num] = [[m[c] for c in items], i]
    d.hist = hist
    d.log = None if log is None else list(log)
    d.seed = None
    d.rng = _rng.seed_state(rng.getrandbits(64))
    d.script = None
    d._legal = None
    d._index = None
    d._wants_actions = False
    if d.pending >= 0 and getattr(s.rs.chooses[d.pending], "secret", False):
        _redraw_pending(d, p, rng)


def _redraw_pending(d, p, rng):
    """A simultaneous step under way: the other players' stored choices, which p cannot know, are
    drawn again, each uniformly among that player's legal actions in the determinized state (the
    state they chose in), in the history and in the log alike; p's own choice stays."""
    from .runtime import pending_choices, secret_choice
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
            legal = d._enumerate(ch)
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
    unseen = _unseen(n)
    hist = _map_history(s.hist, p, bit, unseen)
    log = None if s.log is None else [_map_line(rs, line, p, bit, unseen) for line in s.log]
    card_vars = [i for i, decl in enumerate(rs.var_decl) if decl.type in ("card", "cards")]
    _finish(d, s, m, p, card_vars, _flow_cards(s), hist, log, rng, _secret_vars(rs, p))
    return d


def _flow_cards(s):
    """The `for` loops over cards around the pending decision, whose current item and list follow
    the cards' places: [(item key, list key)]. Flow keys are '#listN' ([items, next index]) and
    'VAR#N' (the current item)."""
    if not s.fenv or s.pending < 0:
        return []
    over_cards = {st.var for st in s.rs.choose_contexts()[s.pending][1]
                  if getattr(getattr(st.iter, "ast", None), "t", "list") in ("zone", "cards")}
    out = []
    for k in s.fenv:
        if k.startswith("#") or k.split("#")[0] not in over_cards:
            continue
        out.append((k, f"#list{k.split('#')[1]}"))
    return out


_HIST_CACHE = 256       # mapped history heads held per ruleset (each keeps its history alive)


def _map_history(h, p, bit, unseen, rs=None):
    """The history (a linked list of events, newest first) as player p saw it. Each event's mapping
    depends on the event and p only, and histories share their past: the mapped head of an earlier
    call is held (per ruleset, by node identity), so the next decision maps only its new events
    instead of the whole game (a search or a lint determinizing at every decision was quadratic)."""
    cache = None if rs is None else rs.__dict__.setdefault("_mapped_history", {})
    evs = []
    out = None
    node = h
    while node is not None:
        if cache is not None:
            hit = cache.get((id(node), p))
            if hit is not None and hit[0] is node:
                out = hit[1]
                break
        evs.append(node[0])
        node = node[1]
    for ev in reversed(evs):
        if ev[0] in ("d", "s", "v"):
            ev = ev[:4] + (_map_info(ev[4], bit, unseen),)
        elif ev[0] == "r" and ev[1] != p:
            ev = ("r", ev[1], unseen(ev[2], [False] * len(ev[2])))
        out = (ev, out)
    if cache is not None and h is not None and evs:
        if len(cache) >= _HIST_CACHE:
            cache.clear()
        cache[(id(h), p)] = (h, out)
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
