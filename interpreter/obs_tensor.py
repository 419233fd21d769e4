"""State + player → flat float32 tensor of what that player may know, with a layout derived from the
spec (docs/agents.md). Same visibility rules as observe.py (it reuses them); needs numpy."""
from __future__ import annotations

from collections import defaultdict

from .snapshot import json_key as _key
from .observe import value_view

PILE_DEPTH = 8      # a pile's top cards encoded one-hot, from the top down


def encoder(rs) -> "ObservationEncoder":
    enc = rs.__dict__.get("_obs_encoder")
    if enc is None:
        enc = rs._obs_encoder = ObservationEncoder(rs)
    return enc


class ObservationEncoder:
    """`size`, `layout` [(name, offset, shape)], `encode(state, player)` → numpy float32 (size,)."""

    def __init__(self, rs):
        self.rs = rs          # (numpy is imported by encode: the layout alone needs none)
        P, F = rs.P, len(rs.faces)
        self.F = F
        self.face_id = {_key(f): i for i, f in enumerate(rs.faces)}
        self.phase_index = {ph: i for i, ph in enumerate(rs.spec.phases)}
        self.depth = min(PILE_DEPTH, rs.ncards)
        layout = []
        off = 0

        def add(name, *shape):
            nonlocal off
            n = 1
            for d in shape:
                n *= d
            layout.append((name, off, shape))
            off += n
            return off - n

        self.o_player = add("player", P)
        self.o_to_move = add("to_move", P + 1)
        self.o_phase = add("phase", max(1, len(self.phase_index)))
        self.zones = []          # (zone index, offset of size, of faces, of hidden, of top or -1)
        for zi, label in enumerate(rs.zone_label):
            o_size = add(f"zone {label} size", 1)
            o_faces = add(f"zone {label} faces", F)
            o_hidden = add(f"zone {label} hidden", 1)
            o_top = add(f"zone {label} top", self.depth, F + 1) if rs.zone_decl[zi].kind == "pile" else -1
            self.zones.append((zi, o_size, o_faces, o_hidden, o_top))
        self.marks = []          # (zone index, mark index, offset of the sum, of the top values or -1)
        for zi, label in enumerate(rs.zone_label):
            for m, name in enumerate(rs.mark_names):
                o_sum = add(f"zone {label} mark {name}", 1)
                o_top = add(f"zone {label} mark {name} top", self.depth) if rs.zone_decl[zi].kind == "pile" else -1
                self.marks.append((zi, m, o_sum, o_top))
        self.vars = []           # (decl, slot, owner, offset)
        for name, base in rs.var_base.items():
            decl = rs.spec.variables[name]
            owners = range(rs.cells(decl)) if decl.per_player or decl.per_team else [None]
            for k, owner in enumerate(owners):
                label = name if owner is None else f"{name}[{owner}]"
                t = decl.type
                if t in ("int", "bool", "str"):
                    o = add(f"var {label}", 2)
                elif t == "player":
                    o = add(f"var {label}", P + 1)
                elif t == "card":
                    o = add(f"var {label}", F + 1)
                else:    # cards, list
                    o = add(f"var {label}", F + 2)
                self.vars.append((decl, base + k, owner, o))
        self.layout = layout
        self.size = off

    def encode(self, s, player):
        rs = self.rs
        if type(player) is not int or not 0 <= player < rs.P:
            from gamespec.errors import UsageError
            raise UsageError(f"no player {player!r} (players are 0 to {rs.P - 1})")
        t = defaultdict(float)      # the few non-zero entries: cheaper than numpy element writes
        P, F = rs.P, self.F
        t[self.o_player + player] = 1
        t[self.o_to_move + (P if s.terminal else s.actor)] = 1
        if s.phase >= 0:
            t[self.o_phase + s.phase] = 1
        bit = 1 << player
        zvis, kn, face_of, face, ALL = rs.zvis, s.kn, rs.face_of, s.face, rs.ALL
        depth = self.depth
        F1 = F + 1
        for zi, o_size, o_faces, o_hidden, o_top in self.zones:
            cs = s.z[zi]
            if not cs:
                continue
            t[o_size] = len(cs)
            zv = zvis[zi]
            if not face and zv & bit:            # p sees the whole zone
                for c in cs:
                    t[o_faces + face_of[c]] += 1
                if o_top >= 0:
                    for d, c in enumerate(cs[:-depth - 1:-1]):
                        t[o_top + d * F1 + face_of[c]] = 1
                continue
            hidden = 0
            for c in cs:
                f = face.get(c) if face else None
                v = zv if f is None else (ALL if f == 1 else 0)
                if (v | kn[c]) & bit:
                    t[o_faces + face_of[c]] += 1
                else:
                    hidden += 1
            t[o_hidden] = hidden
            if o_top >= 0:
                for d, c in enumerate(cs[:-depth - 1:-1]):
                    f = face.get(c) if face else None
                    v = zv if f is None else (ALL if f == 1 else 0)
                    t[o_top + d * F1 + (face_of[c] if (v | kn[c]) & bit else F)] = 1
        if self.marks:
            self._encode_marks(s, bit, t)
        for decl, slot, owner, o in self.vars:
            v = value_view(s, decl, s.v[slot], bit, owner)
            if v is None:
                continue        # not visible to this player (or no card): all zero
            ty = decl.type
            if ty in ("int", "bool"):
                t[o] = float(v)
                t[o + 1] = 1
            elif ty == "str":
                t[o + 1] = 1
            elif ty == "player":
                t[o + (v if isinstance(v, int) and 0 <= v < P else P)] = 1
            elif ty == "card":
                if v is not None:   # None: no card, or one p cannot see (the observation says None too)
                    t[o + self.face_id[_key(v)]] = 1
                    t[o + F] = 1
            else:
                if decl.type == "cards":
                    for x in v:
                        if x is not None:
                            t[o + self.face_id[_key(x)]] += 1
                t[o + F] = len(v)
                t[o + F + 1] = 1
        import numpy as np
        out = np.zeros(self.size, np.float32)
        if t:
            n = len(t)
            out[np.fromiter(t.keys(), np.intp, n)] = np.fromiter(t.values(), np.float32, n)
        return out


    def _encode_marks(self, s, bit, t):
        """Per zone and mark: the sum of the values this player sees, and a pile's top values (a mark
        they do not see counts 0, as the observation leaves it out)."""
        rs = self.rs
        seen = {}
        for zi, m, o_sum, o_top in self.marks:
            cs = s.z[zi]
            if not cs:
                continue
            sight = rs.mark_sight[m]
            if sight is not None and not sight & bit:       # a mark this player does not see
                continue
            col = s.mk[m]
            if sight is None:                                # seen with the card
                sees = seen.get(zi)
                if sees is None:
                    sees = seen[zi] = [bool(s._sight(c) & bit) for c in cs]
            else:
                sees = None
            t[o_sum] = float(sum(col[c] for i, c in enumerate(cs) if sees is None or sees[i]))
            if o_top >= 0:
                n = len(cs)
                for d in range(min(self.depth, n)):
                    i = n - 1 - d
                    if sees is None or sees[i]:
                        t[o_top + d] = float(col[cs[i]])
