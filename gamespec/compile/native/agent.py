"""The agent tables of a generated game (`GS_AGENT`, interpreter/native/agent.h): the fixed action ids
(gamespec/compile/action_space.py's ActionSpace, read from the object itself) and the observation
tensor's layout (interpreter/obs_tensor.py's ObservationEncoder). Numbers and ids only; a spec whose
action space cannot be fixed, or a value the generator cannot write, gives `ok = 0` (the per-step
native state is then not offered: docs/agents.md)."""
from __future__ import annotations


def agent_tables(prog, rs) -> list:
    """C lines defining `const AgentTables GS_AGENT`."""
    try:
        act = _actions(prog, rs)
    except Exception:       # ActionSpaceError, a value not interned: no native ids for this spec
        act = None
    try:
        obs = _obs(prog, rs)
    except Exception:
        obs = None
    arr = prog.const_array
    out = []
    if act is None:
        ok, nids, base, adom, doms, cards = 0, 0, arr("int64_t", []), arr("int32_t", []), "NULL", "NULL"
    else:
        ok, nids, base, adom, doms, cards, lines = act
        out += lines
    if obs is None:
        obs = (0, 0, 0, 0, 0, 0, arr("int32_t", []), 0, arr("int32_t", []), arr("int64_t", []), 0,
               arr("int32_t", []), arr("uint64_t", []), arr("int32_t", []))
    highest = 1 if getattr(rs, "winner", "highest") == "highest" else 0
    o = obs
    out.append(f"const AgentTables GS_AGENT = {{{ok}, {nids}LL, {base}, {adom}, {doms}, {cards}, "
               f"{o[0]}, {o[1]}LL, {o[2]}, {o[3]}, {o[4]}, {o[5]}, {o[6]}, {o[7]}, {o[8]}, {o[9]}, "
               f"{o[10]}, {o[11]}, {o[12]}, {o[13]}, {highest}}};")
    return out


def _actions(prog, rs):
    from gamespec.compile.action_space import space, _Values, _Range, _Cards, _Subsets
    sp = space(rs)
    arr = prog.const_array
    doms, cards, lines = [], [], []
    card_index = {}

    def card_dom(c):
        k = id(c)
        if k not in card_index:
            fp = [-1] * max(1, len(rs.faces))
            for f, i in c.face_pos.items():
                fp[f] = i
            zp = [-1] * max(1, rs.nzones)
            for zi, i in c.zone_pos.items():
                zp[zi] = i
            card_index[k] = len(cards)
            cards.append(f"{{{c.size}LL, {len(c.faces)}, {arr('int32_t', [str(x) for x in fp])}, "
                         f"{arr('int32_t', [str(x) for x in zp])}, {c.cap}}}")
        return card_index[k]

    base = []
    first = []
    by_name = sp.by_name
    for name in prog.action_names:
        _, ds, b = by_name[name]
        base.append(f"{b}LL")
        first.append(str(len(doms)))
        for d in ds:
            if d.__class__ is _Range:
                doms.append(f"{{AD_RANGE, {d.size}LL, {d.lo}LL, 0, NULL, 0, 0, NULL}}")
            elif d.__class__ is _Values:
                vals = ", ".join(prog.pool.v(v) for v in d.values) or "{0, T_NONE, 0}"
                name_v = f"AV{len(doms)}"
                lines.append(f"static const V {name_v}[{max(1, d.size)}] = {{{vals}}};")
                direct = _value_index(prog, d.values)
                if direct is None:
                    doms.append(f"{{AD_VALUES, {d.size}LL, 0, {d.size}, {name_v}, 0, 0, NULL}}")
                else:
                    tag, lo, idx = direct
                    doms.append(f"{{AD_VALUES, {d.size}LL, 0, {d.size}, {name_v}, 0, 0, NULL, {tag}, {lo}LL, "
                                f"{len(idx)}LL, {arr('int32_t', [str(x) for x in idx])}}}")
            elif d.__class__ is _Cards:
                doms.append(f"{{AD_CARDS, {d.size}LL, 0, 0, NULL, {card_dom(d)}, 0, NULL}}")
            elif d.__class__ is _Subsets:
                offs, acc = [], 0
                for cnt in d.by_size:
                    offs.append(f"{acc}LL")
                    acc += cnt
                doms.append(f"{{AD_SUBSET, {d.size}LL, {d.lo}LL, 0, NULL, {card_dom(d.cards)}, {d.hi}LL, "
                            f"{arr('int64_t', offs)}}}")
            else:
                raise ValueError("an unknown domain")
    lines.append(f"static const ADom ADOMS[{max(1, len(doms))}] = {{{', '.join(doms) or '{0}'}}};")
    lines.append(f"static const ACards ACARDS[{max(1, len(cards))}] = {{{', '.join(cards) or '{0}'}}};")
    return 1, sp.size, arr("int64_t", base), arr("int32_t", first), "ADOMS", "ACARDS", lines


VALUE_SPAN = 4096      # the longest direct index of a value domain (else the values are scanned)


def _value_index(prog, values):
    """(C tag, lowest key, index) when every value is an int, every one a bool or every one a text (a
    text by its interned id), the keys spanning at most VALUE_SPAN: index[key - lowest] is the value's
    first place (-1: no value); else None (C compares value by value)."""
    if not values:
        return None
    if all(type(v) is bool for v in values):
        tag, keys = "T_BOOL", [int(v) for v in values]
    elif all(type(v) is int for v in values):
        tag, keys = "T_INT", list(values)
    elif all(type(v) is str for v in values):
        tag, keys = "T_STR", [prog.pool.texts(v) for v in values]
    else:
        return None
    lo, hi = min(keys), max(keys)
    if hi - lo + 1 > VALUE_SPAN:
        return None
    idx = [-1] * (hi - lo + 1)
    for place, k in enumerate(keys):
        if idx[k - lo] < 0:
            idx[k - lo] = place
    return tag, lo, idx


_VKIND = {"int": 0, "bool": 0, "str": 1, "player": 2, "card": 3, "cards": 4}


def _obs(prog, rs):
    from gamespec.interpreter.obs_tensor import encoder
    from gamespec.interpreter.snapshot import json_key
    enc = encoder(rs)
    arr = prog.const_array
    oz = []
    for zi, o_size, o_faces, o_hidden, o_top in enc.zones:
        oz += [o_size, o_faces, o_hidden, o_top]
    omk = []
    for zi, m, o_sum, o_top in enc.marks:
        omk += [zi, m, o_sum, o_top]
    sight = [-1 if s is None else int(s) for s in rs.mark_sight]
    ov, osight = [], []
    for decl, slot, owner, o in enc.vars:
        ov += [slot, _VKIND.get(decl.type, 5), o]
        osight.append(f"{int(rs.var_sight[decl.name][owner if owner is not None else 0])}ULL")
    face_slot = [enc.face_id[json_key(f)] for f in rs.faces]
    return (1, enc.size, enc.depth, enc.o_player, enc.o_to_move, enc.o_phase,
            arr("int32_t", [str(x) for x in oz]), len(enc.marks), arr("int32_t", [str(x) for x in omk]),
            arr("int64_t", [f"{x}LL" for x in sight]), len(enc.vars), arr("int32_t", [str(x) for x in ov]),
            arr("uint64_t", osight), arr("int32_t", [str(x) for x in face_slot]))
