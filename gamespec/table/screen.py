"""A seat's observation + the spec's presentation hints → the compact terminal screen: a header, the
others one line each, the shared zones, my area, the last moves; lines of (text, style). Built from
the observation alone (what the seat may know), in the spec's words: zone and variable names from
`presentation:`, cards by their labels, yes/no for booleans.
"""
from __future__ import annotations

import re

from ..spec.presentation import word_key

MAX_PILE = 8            # a longer pile shows its count and its top cards only
LAST_MOVES = 8          # moves shown since the last look (older ones are counted)
_LABEL = re.compile(r"^([^\[]+)\[(.*)\]$")


def split_label(label):
    """'hand[1]' → ('hand', '1'); 'deck' → ('deck', None)."""
    m = _LABEL.match(label)
    return (m.group(1), m.group(2)) if m else (label, None)


def seat_name(p, me) -> str:
    return "you" if p == me else f"player {p}"


class Screen:
    """Draws observations of one seat (None: nobody's, for the final table) in the spec's words."""

    def __init__(self, presentation, labels, players, me, kinds=None):
        self.hints = presentation or {}
        self.labels = labels
        self.P = players
        self.me = me
        self.kinds = kinds or [None] * players

    # -- pieces ---------------------------------------------------------------------------------
    def zone_hint(self, name):
        return (self.hints.get("zones") or {}).get(name) or {"name": name.replace("_", " "), "show": True,
                                                            "area": "shared", "group": None, "per_player": False}

    def value(self, x, player=False, words=None, public=False) -> str:
        """A variable's value in words: the spec's word for it (`words` of its hints), a player-typed
        one ("player": True in its hints) as a person ("you", "player N"); none is "–" where every
        seat sees the variable ("public" in its hints), else "?" (it may be hidden from this seat)."""
        if words and not isinstance(x, (list, dict)) and word_key(x) in words:
            return words[word_key(x)]
        if words and isinstance(x, list):
            return ", ".join(self.value(y, player, words) for y in x) if x else "none"
        if player and type(x) is int and 0 <= x < self.P:
            return seat_name(x, self.me)
        if player and isinstance(x, list):
            return ", ".join(self.value(y, True) for y in x) if x else "none"
        if x is None:
            return "–" if public else "?"
        if isinstance(x, bool):
            return "yes" if x else "no"
        if isinstance(x, dict):
            return self.labels.card(x, "?")
        if isinstance(x, list):
            return ", ".join(self.value(y) for y in x) if x else "none"
        return str(x)

    def cards(self, z) -> str:
        """A zone's cards as the seat sees them: a set by face with counts, a pile bottom to top."""
        cards = z.get("cards") or []
        name = lambda c: self.labels.card(c, "?")
        tag = lambda m: _tag(m, self.hints.get("marks") or {})
        if "marks" in z and any(tag(m) for m in [*z["marks"], *z.get("hidden_marks", ())]):
            # card by card, in order (a mark tells one card from another); a zone whose cards carry
            # no set mark is drawn as any other (a face-down deck is not forty '?')
            return ", ".join([name(c) + tag(m) for c, m in zip(cards, z["marks"])] +
                             ["?" + tag(m) for m in z.get("hidden_marks", ())])
        if "hidden" in z:           # a set: one entry per face, then how many it cannot see
            counts = {}
            for c in sorted((c for c in cards if c is not None), key=_face_order):
                counts[name(c)] = counts.get(name(c), 0) + 1
            parts = [f"{k} ×{n}" if n > 1 else k for k, n in counts.items()]
            if z["hidden"]:
                parts.append(f"{z['hidden']} hidden")
            return ", ".join(parts)
        if not any(c is not None for c in cards):
            return "face down"
        runs = []                   # a pile bottom to top, a run of one label once with its count
        for c in cards:
            k = name(c) if c is not None else "?"
            if runs and runs[-1][0] == k:
                runs[-1][1] += 1
            else:
                runs.append([k, 1])
        shown = runs[-MAX_PILE:]
        text = ", ".join(f"{k} ×{n}" if n > 1 else k for k, n in shown)
        return f"…, {text} (top)" if len(runs) > MAX_PILE else text

    def zone_text(self, title, z) -> str:
        size = z.get("size", 0)
        return f"{title} ({size}): {self.cards(z)}" if size else f"{title}: –"

    def layout(self, obs):
        """(per seat [(title, zone)], per seat [(name, text)], shared groups [(title, [(title, zone)])],
        global variables [(name, text)])."""
        seats = [[] for _ in range(self.P)]
        svars = [[] for _ in range(self.P)]
        groups, order = {}, []
        for label, z in (obs.get("zones") or {}).items():
            name, key = split_label(label)
            h = self.zone_hint(name)
            if h.get("show") is False:
                continue
            per = h.get("per_player") and key is not None and key.isdigit() and int(key) < self.P
            if per and h.get("area") != "shared":
                seats[int(key)].append((h["name"], z))
                continue
            title = h["name"] if key is None else (f"{h['name']} of {seat_name(int(key), self.me)}" if per
                                                   else f"{h['name']} {key}")
            g = h.get("group") or ""
            if g not in groups:
                groups[g] = []
                order.append(g)
            groups[g].append((title, z))
        glob = []
        vh = self.hints.get("variables") or {}
        for name, v in (obs.get("variables") or {}).items():
            h = vh.get(name) or {"name": name.replace("_", " "), "show": True, "per_player": False}
            if h.get("show") is False:
                continue
            if h.get("per_player") and isinstance(v, list) and len(v) == self.P:
                for p, x in enumerate(v):
                    svars[p].append((h["name"], self.value(x, h.get("player"), h.get("words"), h.get("public"))))
            else:
                glob.append((h["name"], self.value(v, h.get("player"), h.get("words"), h.get("public"))))
        return seats, svars, [(g, groups[g]) for g in order], glob

    # -- the screen -----------------------------------------------------------------------------
    def lines(self, obs, header, scores=None, winners=()) -> list:
        me = self.me
        seats, svars, groups, glob = self.layout(obs)
        out = [(header, "bold")]
        order = [(me + k) % self.P for k in range(1, self.P)] if me is not None else list(range(self.P))
        to_move = obs.get("to_move")

        def seat_line(p):
            kind = self.kinds[p]
            who = seat_name(p, me).capitalize() + (f" ({kind})" if kind and p != me else "")
            bits = [f"{n} {v}" for n, v in svars[p]]
            if scores is not None:
                bits.append(f"score {scores[p]}" + (" (winner)" if p in winners else ""))
            head = who + (" · " + " · ".join(bits) if bits else "")
            if p == to_move and not obs.get("terminal"):
                head += "  ◀ to move"
            return head

        for p in order:
            zones = " │ ".join(self.zone_text(t, z) for t, z in seats[p])
            out.append((f"  {seat_line(p)}" + (f" │ {zones}" if zones else ""),
                        "bold yellow" if p in winners else None))
        out.append(("── on the table " + "─" * 40, "dim"))
        if glob:
            out.append(("  " + " · ".join(f"{n} {v}" for n, v in glob), None))
        empty = []
        for g, zones in groups:
            full = [(t, z) for t, z in zones if z.get("size")]
            empty += [t for t, z in zones if not z.get("size")]
            if not full:
                continue
            if g and len(full) > 1:
                out.append((f"  {g}:", "bold"))
                for t, z in full:
                    out.append((f"    {self.zone_text(t, z)}", None))
            else:
                for t, z in full:
                    out.append((f"  {self.zone_text(t, z)}", None))
        if empty:
            out.append((f"  empty: {', '.join(empty)}", "dim"))
        if me is not None:
            out.append((f"── {seat_line(me)} " + "─" * 20, "bold bright_green"))
            for t, z in seats[me]:
                out.append((f"  {self.zone_text(t, z)}", "bright_green"))
        return out

    def moves(self, events, notes=(), start=0) -> list:
        """History events (as this seat saw them) → lines, the last LAST_MOVES of them; `notes` (the
        decisions taken back: {"at": N, "seat", "decision"}) after the lines of decision N (undo.py,
        placed), `start` the number of decisions before the first event."""
        from .undo import placed
        lines = []
        n = start
        pending = placed(notes)

        def flush(upto):
            while pending and pending[0][0] <= upto:
                x = pending.pop(0)[1]
                lines.append((f"  ↶ {seat_name(x['seat'], self.me)} took back decision {x['decision']}", "bold"))

        for ev in events:
            if is_decision(ev):
                flush(n)                # the notes after decision n, its looks and reveals
                n += 1
            who = seat_name(ev.get("player"), self.me)
            if ev.get("event") == "look":
                if "cards" in ev:
                    cards = ", ".join(self.labels.card(c) for c in ev["cards"]) or "nothing"
                    lines.append((f"  {who} looked at: {cards}", "bright_yellow"))
                else:
                    k = ev.get("count", "?")
                    lines.append((f"  {who} looked at {k} card{'s' if k != 1 else ''}", None))
            elif ev.get("event") == "chose":
                lines.append((f"  {who}: chose in secret", None))
            elif ev.get("event") == "reveal":
                lines.append((f"  revealed: {who}: {self.labels.action(ev)}", None))
            elif "action" in ev:
                lines.append((f"  {who}: {self.labels.action(ev)}" + (" (in secret)" if ev.get("secret") else ""),
                              None))
        flush(float("inf"))
        if len(lines) > LAST_MOVES:
            k = len(lines) - LAST_MOVES
            lines = [(f"  … {k} earlier", "dim")] + lines[-LAST_MOVES:]
        return lines


def is_decision(ev) -> bool:
    """Is this history event a decision (numbered in transcripts), not a look or a reveal?"""
    return ev.get("event") == "chose" or ("action" in ev and ev.get("event") != "reveal")


def decisions_in(events) -> int:
    return sum(map(is_decision, events))


def _face_order(face):
    """Numbers by value, then text: a set's cards read 3, 6, 10 rather than 10, 3, 6."""
    return [(k, (0, v, "") if isinstance(v, (int, float)) and not isinstance(v, bool) else (1, 0, str(v)))
            for k, v in sorted(face.items())] if isinstance(face, dict) else []


def _tag(marks, hints=None):
    """' [hint=2, primed]': the marks of a card that are set (not 0 or false), each by the spec's
    word for its value where it gives one (presentation.marks: ' [hinted red]'), else by its name."""
    hints = hints or {}

    def one(k, v):
        h = hints.get(k) or {}
        word = (h.get("words") or {}).get(word_key(v))
        if word:
            return word
        name = h.get("name") or k
        return name if v is True else f"{name}={v}"
    shown = [one(k, v) for k, v in marks.items() if v]
    return f" [{', '.join(shown)}]" if shown else ""
