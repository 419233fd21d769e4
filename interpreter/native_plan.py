"""The determinization plan built in C (interpreter/native/plan.c; docs/native.md, "The plan in C").

C keeps State.poss (per zone, the set-up zones its cards may come from) in the struct, moved by every
move as the Python engine moves it, and builds from the struct the array `native_engine.flatten_plan`
makes from `determinize.determinizer(s, p).parts`: no Python State needed at a search's decision.
What depends only on the rule set and the player (the card variables, the variables a player cannot
see with their initial values, the flow slots that are loops over cards around each decision point,
the simultaneous decision points, the marks' visibilities) is one table per library, made here once
and handed to C (gs_plan_tables)."""
from __future__ import annotations

import ctypes
import threading
from array import array

from .native_values import _Unflattenable, _buf, _ptr, _value

_P = ctypes.POINTER
_vp, _i32, _i64, _u64 = ctypes.c_void_p, ctypes.c_int32, ctypes.c_int64, ctypes.c_uint64
_lock = threading.Lock()


def plan_tables(lib):
    """The rule set's part of every plan, as gs_plan_tables reads it (plan.c)."""
    from .determinize import _secret_vars
    rs = lib.rs
    nfor = len(lib.for_slot)
    out = [rs.P, len(rs.chooses), nfor, len(rs.mark_decl), len(rs.var_init)]
    var_of = {}                 # flow slot -> the loop's variable (its fenv key is 'VAR#uid')
    for kind, a in rs.flow_code:
        if kind == "for_next":
            uid = a["lkey"][len("#list"):]
            slot = lib.for_slot.get(uid)
            if slot is not None:
                var_of[slot] = a["key"].split("#")[0]
    contexts = rs.choose_contexts()
    for ch, decl in enumerate(rs.chooses):
        over_cards = {st.var for st in contexts[ch][1]
                      if getattr(getattr(st.iter, "ast", None), "t", "list") in ("zone", "cards")}
        out.append(int(bool(getattr(decl, "secret", False))))
        out += [int(var_of.get(k) in over_cards) for k in range(nfor)]
    card_vars = [i for i, decl in enumerate(rs.var_decl) if decl.type in ("card", "cards")]
    out += [len(card_vars)] + card_vars
    for p in range(rs.P):
        secret = _secret_vars(rs, p)
        toks = []
        try:
            for i, init in secret:
                toks.append(i)
                _value(lib, init, toks)
        except _Unflattenable:
            out += [0, 0, 0]
            continue
        out += [1, len(secret), len(toks)] + toks
    vis = {"zone": 0, "public": 1, "hidden": 2}
    out += [vis.get(d.visibility, 2) for d in rs.mark_decl]
    return out


def ready(lib):
    """The library's C side of the plans set up (once): True, or False if C refused the table."""
    ok = getattr(lib, "_plan_ok", None)
    if ok is not None:
        return ok
    with _lock:
        ok = getattr(lib, "_plan_ok", None)
        if ok is None:
            c = lib.lib
            c.gs_plan_tables.argtypes = [_P(_i64), _i64]
            c.gs_plan_tables.restype = ctypes.c_int
            for f in (c.gs_plan, c.gs_st_plan):
                f.argtypes = [_vp, _i64, _P(_i64), _i64]
                f.restype = _i64
            for f in (c.gs_poss, c.gs_st_poss):
                f.argtypes = [_vp, _P(_u64), _i64]
                f.restype = _i64
            for f in (c.gs_set_poss, c.gs_st_set_poss):
                f.argtypes = [_vp, _P(_u64), _i64]
                f.restype = ctypes.c_int
            t = array("q", plan_tables(lib))
            ok = lib._plan_ok = c.gs_plan_tables(_ptr(t, _i64), len(t)) == 0
    return ok


def _words(lib):
    return (lib.rs.nzones + 63) // 64


def poss_words(lib, poss):
    """State.poss (a tuple of ints, bit zi a set-up zone) as C keeps it: nzones x pw 64-bit words."""
    pw = _words(lib)
    out = array("Q")
    mask = (1 << 64) - 1
    for x in poss:
        out.extend((x >> (64 * k)) & mask for k in range(pw))
    return out


def poss_of(lib, ctx, native_state=False):
    """The C struct's possibility sets as State.poss (a tuple of ints)."""
    ready(lib)
    pw = _words(lib)
    n = lib.rs.nzones * pw
    b = _buf("Q", n)
    f = lib.lib.gs_st_poss if native_state else lib.lib.gs_poss
    if f(ctx, _ptr(b, _u64), n) != n:
        raise ValueError("the native engine did not give its possibility sets")
    return tuple(sum(b[z * pw + k] << (64 * k) for k in range(pw)) for z in range(lib.rs.nzones))


def set_poss(lib, ctx, poss, native_state=False):
    """The possibility sets of a Python state just loaded into C (the loader resets them to
    rs.any_poss, what a loaded Python state assumes): True if C took them."""
    if not ready(lib):
        return False
    b = poss_words(lib, poss)
    f = lib.lib.gs_st_set_poss if native_state else lib.lib.gs_set_poss
    return f(ctx, _ptr(b, _u64), len(b)) == 0


def plan(lib, ctx, player, native_state=False):
    """The plan C builds for `player` from the game in `ctx` (a NativeLib context, or with
    native_state a NativeState's pointer): the list flatten_plan gives, or None where it gives None
    (or C has no table)."""
    if not ready(lib):
        return None
    f = lib.lib.gs_st_plan if native_state else lib.lib.gs_plan
    cap = 256 + 16 * lib.rs.ncards
    while True:
        b = _buf("q", cap)
        n = f(ctx, player, _ptr(b, _i64), cap)
        if n >= 0:
            return list(b[:n])
        if n != -1:
            return None
        cap *= 4


def search_state(lib, ctx, player, n_root, rng, iterations, c, deadline=None, native_state=False, wctx=None):
    """An ISMCTS search in C of the game in `ctx` (a NativeLib context holding a loaded state, or
    with native_state a NativeState's pointer) for `player`, its plan built in C: (root statistics
    {position: (visits, reward)}, iterations), `rng` (a random.Random) advanced exactly as the
    Python search advances it; None if C cannot (no plan, a stop: the caller searches in Python
    from the rng as it was)."""
    if not ready(lib):
        return None
    c_ = lib.lib
    version, words, gauss = rng.getstate()
    mt = array("I", words)
    visits, reward = _buf("q", n_root), _buf("d", n_root)
    done, why = _buf("q", 1), _buf("i", 1)
    P = _P
    if native_state:
        f = c_.gs_st_ismcts
        f.restype = ctypes.c_int
        f.argtypes = [_vp, _vp, _i64, _i64, ctypes.c_double, ctypes.c_double, _i64, P(ctypes.c_uint32), P(_i64),
                      P(ctypes.c_double), P(_i64), P(_i32)]
        rc = f(ctx, wctx or lib.world_ctx(), player, iterations, float(c), float(deadline or 0), n_root,
               _ptr(mt, ctypes.c_uint32), _ptr(visits, _i64), _ptr(reward, ctypes.c_double), _ptr(done, _i64),
               _ptr(why, _i32))
    else:
        b = plan(lib, ctx, player)
        if b is None:
            return None
        pb = array("q", b)
        rc = c_.gs_ismcts(ctx, wctx or lib.world_ctx(), _ptr(pb, _i64), len(pb), iterations, float(c),
                          float(deadline or 0), n_root, _ptr(mt, ctypes.c_uint32), _ptr(visits, _i64),
                          _ptr(reward, ctypes.c_double), _ptr(done, _i64), _ptr(why, _i32))
    if rc != 0:
        return None
    rng.setstate((version, tuple(mt), gauss))
    return {i: (v, r) for i, (v, r) in enumerate(zip(visits[:n_root], reward[:n_root])) if v}, done[0]


def ismcts_choose(bot, ns):
    """ISMCTSBot.choose on a NativeState (interpreter/native_step.py) without its Python State: the
    position in the state's listing (legal_ids_in_order) the bot would choose at the view of the
    seat to move, bot.rng advanced as that choice advances it; the search and its plan in C. A state
    C does not hold, or a search C stops, is chosen by bot.choose on the Python State's view."""
    legal = ns.legal_ids_in_order()
    n = len(legal)
    if n == 1:
        return 0
    lib = ns.kit.lib
    if ns.in_c:
        import time
        deadline = None if bot.seconds is None else time.perf_counter() + bot.seconds
        got = search_state(lib, ns._p, ns.current_player, n, bot.rng, bot.iterations, bot.c, deadline,
                           native_state=True)
        if got is not None:
            children, bot.last_iterations = got
            return bot._best(children, range(n))
    s = ns.python_state()
    return bot.choose(s.view(s.current_player))
