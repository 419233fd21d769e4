"""The primitive effects every rule compiles to: moving, dealing, shuffling and revealing cards."""
from __future__ import annotations

from gamespec.compile.closures import fault

from . import rng


def move_card(s, c, dst, face=0, bottom=False):
    """Move card c onto zone dst; players who could see it and no longer can remember it, and
    players who could not see the set it was taken from, and do not see the card where it lands,
    lose track of it and of the set's other cards."""
    s.budget -= 1          # every card moved is a step: no loop can shuffle cards about forever
    if s.budget < 0:
        fault("step budget exhausted: cards keep moving", "budget")
    loc = s.loc
    z = s.z
    src = loc[c]
    cs = z[src]
    if cs[-1] == c:        # c is in its zone, so the zone is not empty
        cs.pop()
    else:
        cs.remove(c)
    if bottom:
        z[dst].insert(0, c)
    else:
        z[dst].append(c)
    loc[c] = dst
    ps = s.poss
    if ps[src] & ~ps[dst]:      # the zone may now hold cards from where src's came from
        s.poss = ps[:dst] + (ps[dst] | ps[src],) + ps[dst + 1:]
    rs = s.rs
    vis = rs.zvis
    sface = s.face
    if sface or face:      # a face-up or face-down card shows what its face says, not its zone
        f = sface.pop(c, 0) if sface else 0
        old = vis[src] if f == 0 else (rs.ALL if f == 1 else 0)
        if face:
            sface[c] = face
            new = rs.ALL if face == 1 else 0
        else:
            new = vis[dst]
        blind = rs.ALL & ~old & ~new if src in rs.set_zones else 0
    else:
        old = vis[src]
        new = vis[dst]
        blind = rs.set_blind[src] & ~new
    if blind:
        lose_track(s, c, cs, blind)
    lost = old & ~new
    if lost:
        s.kn[c] |= lost


def lose_track(s, c, cs, blind):
    """Card c was taken out of an unordered zone, now holding cs, that the players in `blind` cannot
    see and do not see it land: they cannot tell which card left, so they can follow neither it nor
    the ones that stay (no inference by elimination); a player who sees the card land knows which
    card left: the rest stay known to them."""
    keep = ~blind
    kn = s.kn
    kn[c] &= keep
    if any(map(kn.__getitem__, cs)):     # usually nobody knows any of them: a C-level check
        for x in cs:
            kn[x] &= keep


def move_public(s, c, dst):
    """move_card(s, c, dst) onto a zone every player sees (face unchanged): nobody loses track of
    c (they see where it lands) and nobody is left blind to which card left a set (they see it).
    (Fused functions write moves out inline, CodeGen._inline_move; the rule functions call these.)"""
    if s.face:
        return move_card(s, c, dst)
    s.budget -= 1
    if s.budget < 0:
        fault("step budget exhausted: cards keep moving", "budget")
    loc = s.loc
    z = s.z
    src = loc[c]
    cs = z[src]
    if cs[-1] == c:
        cs.pop()
    else:
        cs.remove(c)
    z[dst].append(c)
    loc[c] = dst
    ps = s.poss
    if ps[src] & ~ps[dst]:
        widen(s, src, dst)


def move_plain(s, c, dst):
    """move_card(s, c, dst) face unchanged, on top, onto a zone not every player sees (no face
    turned anywhere: the short way). Its first half is move_public's on purpose: a call between them
    costs more than the branches this saves."""
    if s.face:
        return move_card(s, c, dst)
    s.budget -= 1
    if s.budget < 0:
        fault("step budget exhausted: cards keep moving", "budget")
    loc = s.loc
    z = s.z
    src = loc[c]
    cs = z[src]
    if cs[-1] == c:
        cs.pop()
    else:
        cs.remove(c)
    z[dst].append(c)
    loc[c] = dst
    ps = s.poss
    if ps[src] & ~ps[dst]:
        widen(s, src, dst)
    rs = s.rs
    vis = rs.zvis
    new = vis[dst]
    blind = rs.set_blind[src] & ~new
    if blind:
        lose_track(s, c, cs, blind)
    lost = vis[src] & ~new
    if lost:
        s.kn[c] |= lost


def widen(s, src, dst):
    """Zone dst may now hold cards from where src's came from (the possibility sets, see move_card)."""
    ps = s.poss
    s.poss = ps[:dst] + (ps[dst] | ps[src],) + ps[dst + 1:]


def deal(s, src, dst, n, face=0):
    """Move n cards from the top of src; an empty src does what its zone declares (on_empty)."""
    z = s.z
    cs = z[src]
    if 0 < n <= len(cs) and n <= s.budget and not face and not s.face and src != dst:
        # no refill, no face, the budget suffices: the n moves at once, the same outcome
        s.budget -= n
        tail = cs[-n:]
        del cs[-n:]
        tail.reverse()
        z[dst] += tail
        loc = s.loc
        for c in tail:
            loc[c] = dst
        ps = s.poss
        if ps[src] & ~ps[dst]:
            s.poss = ps[:dst] + (ps[dst] | ps[src],) + ps[dst + 1:]
        rs = s.rs
        new = rs.zvis[dst]
        blind = rs.set_blind[src] & ~new
        kn = s.kn
        if blind:       # as move_card: the moved cards and the ones left behind
            keep = ~blind
            for c in tail:
                kn[c] &= keep
            if any(map(kn.__getitem__, cs)):
                for x in cs:
                    kn[x] &= keep
        lost = rs.zvis[src] & ~new
        if lost:
            for c in tail:
                kn[c] |= lost
        return
    for _ in range(n):
        if not z[src]:
            refill = s.rs.refill.get(src)
            if refill is None:
                if src in s.rs.stop_when_empty:
                    return
                fault(f"deal from the empty zone '{s.rs.zone_label[src]}' (declare on_empty: stop, "
                      "or on_empty: {refill_from: ZONE}, to allow it)", "empty-zone")
            r, shuffle_it = refill
            for c in list(z[r]):
                move_card(s, c, src)
            if shuffle_it:
                shuffle(s, src)
            if not z[src]:
                if src in s.rs.stop_when_empty:
                    return
                fault(f"deal from the empty zone '{s.rs.zone_label[src]}' after refilling it from "
                      f"'{s.rs.zone_label[r]}'", "empty-zone")
        move_card(s, z[src][-1], dst, face)


def shuffle(s, zi):
    cs = s.z[zi]
    if s.script is not None:   # replaying a log: the order comes from the log, not the RNG
        order = s.script.next_shuffle(s, zi)
        cs[:] = order
    else:
        s.rng = rng.SHUFFLES[s.gen](s.rng, cs)
    s.shuffles += 1       # apply() checks whether a decision's effect shuffled
    kn = s.kn
    if any(map(kn.__getitem__, cs)):    # nobody can follow a card through a shuffle (often nobody did)
        for c in cs:
            kn[c] = 0
    if s.rs.mark_reset:   # marks declared reset_on_shuffle go back to their initial value
        for m, init in s.rs.mark_reset:
            col = s.mk[m]
            for c in cs:
                col[c] = init
    if s.log is not None:
        s.log.append({"type": "chance", "event": "shuffle", "zone": s.rs.zone_label[zi],
                      "order": list(cs)})


def reveal(s, cards, p):
    bit = 1 << p
    for c in cards:
        s.kn[c] |= bit
    if cards:
        s.hist = (("r", p, tuple(cards)), s.hist)
        if s.log is not None:
            s.log.append({"type": "look", "player": p, "cards": list(cards)})


def get_mark(s, c, m):
    """The value of mark number m on card c."""
    if c is None:
        fault("mark: there is no card (none)")
    return s.mk[m][c]


def set_mark(s, cards, m, v):
    """Set mark number m to v on each card of `cards`; the value is checked against the declared type
    (a value typed only at run time, an item of a mixed list, may be wrong)."""
    decl = s.rs.mark_decl[m]
    if decl.type == "bool":
        if v.__class__ is not bool:
            fault(f"set_mark: mark '{decl.name}' is true or false, not {_shown(v)}")
    else:
        if v.__class__ is bool:
            v = int(v)
        elif v.__class__ is not int:
            fault(f"set_mark: mark '{decl.name}' is a number, not {_shown(v)}")
        if not -_LIMIT < v < _LIMIT:
            fault("integer too large (beyond 2**63)", "int-size")
    s.budget -= len(cards)      # a step per card, as for moving: no loop marks cards forever
    if s.budget < 0:
        fault("step budget exhausted: cards keep being marked", "budget")
    col = s.mk[m]
    for c in cards:
        if c is None:
            fault("set_mark: there is no card (none)")
        col[c] = v


_LIMIT = 1 << 63


def _shown(v):
    return "none" if v is None else ("a text" if isinstance(v, str) else "a list" if isinstance(v, list)
                                     else repr(v)[:40])
