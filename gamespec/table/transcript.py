"""Log lines (as one reader saw them) → a readable transcript: who did what by the action's label,
chance events and looks as that reader saw them, the final scores.

Input lines are in the per-reader form of `state.log_for(p)` (a card is its face as a dict, or null
when the reader could not see it). `omniscient(state)` turns a game's full internal log into the
same form with every card shown (the runner's view, for `run --verbose` and `show` without --for).
"""
from __future__ import annotations

from gamespec.interpreter.actions import fill_template
from gamespec.spec.yamlsafe import CONTROL


class Labels:
    """Names of faces and action labels, from the spec's ruleset when it is known."""

    def __init__(self, rs=None):
        self.rs = rs
        self.face_names = {}
        if rs is not None:
            for f, label in zip(rs.faces, rs.face_label):
                self.face_names[_face_key(f)] = label

    def card(self, face, hidden="a hidden card"):
        if face is None:
            return hidden
        if isinstance(face, dict):
            name = self.face_names.get(_face_key(face))
            if name is not None:
                return name
            return " ".join(str(v) for k, v in face.items() if k != "type") or str(face.get("type"))
        return str(face)

    def action(self, act: dict) -> str:
        """The label of an action given as JSON (a logged decision or a history event)."""
        name = act.get("action")
        rt = self.rs.actions.get(name) if self.rs is not None and isinstance(name, str) else None
        if rt is None:
            if name == "skip":
                return "skip"
            args = ", ".join(f"{k}={self._plain(v)}" for k, v in act.items()
                             if k not in ("action", "player", "label", "secret", "event"))
            return f"{name} {args}" if args else str(name)
        shown = {p.name: self.param(name, p.name, act.get(p.name)) for p in rt.params}
        if getattr(rt, "label_exprs", None):       # `{expression}` placeholders, from the parameters
            values = {p.name: (None if p.kind == "card" and not isinstance(act.get(p.name), dict) else act.get(p.name))
                      for p in rt.params}
            for text, fn in rt.label_exprs:
                try:
                    shown[text] = fn(values)            # no state: a pile's end card is '?'
                except Exception:       # noqa: BLE001 - a label is a help: its placeholder shows '?'
                    shown[text] = "?"
        if rt.template:
            template = rt.template
            for text, v in shown.items():       # "(?)": a value a past decision's label cannot tell, left out
                if v == "?":
                    template = template.replace(f" ({{{text}}})", "").replace(f"({{{text}}})", "")
            return fill_template(template, shown)
        return f"{name} " + ", ".join(f"{k}={v}" for k, v in shown.items()) if shown else name

    def param(self, action, param, v) -> str:
        """One parameter's value as an action's label shows it: a card by its label (a card the
        chooser cannot see as "hidden card N"), a zone by its family and key, a player as "player N"."""
        rt = self.rs.actions.get(action) if self.rs is not None and isinstance(action, str) else None
        p = next((x for x in rt.params if x.name == param), None) if rt is not None else None
        if p is None:
            return self._plain(v)
        if p.kind == "card":
            return self.card(v) if v is None or isinstance(v, dict) else f"hidden card {v + 1}" \
                if isinstance(v, int) else str(v)
        if p.kind == "subset":
            vs = v if isinstance(v, list) else []
            return ", ".join(self.card(x) if x is None or isinstance(x, dict) else "a card" for x in vs) or "nothing"
        if p.kind == "zone":
            return f"{p.family.name} of player {v}" if p.family.per_player else f"{p.family.name} {v}"
        if p.kind == "player":
            return f"player {v}"
        return self._plain(v)

    def _plain(self, v):
        if isinstance(v, dict):
            return self.card(v)
        if isinstance(v, list):
            return "[" + ", ".join(self._plain(x) for x in v) + "]"
        if v is None:
            return "a hidden card"
        return str(v)


def _face_key(face):
    return tuple(sorted((k, str(v)) for k, v in face.items()))


def omniscient(state, start=0) -> list:
    """The game's log lines from `start` on, every card shown as its face (needs log=True)."""
    rs = state.rs
    face = lambda c: dict(rs.faces[rs.face_of[c]])
    out = []
    for line in state.log[start:]:
        t = line.get("type")
        if t == "header":
            out.append({k: v for k, v in line.items() if k not in ("cards", "faces", "zones")})
        elif t == "chance":
            out.append(dict(line, order=[face(c) for c in line["order"]]))
        elif t in ("decision", "reveal"):
            act = dict(line["action"])
            rt = rs.actions.get(act["action"])
            for i, cs, _ in line.get("_cards", ()):
                p = rt.params[i]
                faces = [face(c) for c in cs]
                act[p.name] = faces[0] if p.kind == "card" else faces
            if t == "reveal":
                out.append({"type": "reveal", "player": line["player"], "action": act})
            else:
                out.append({"type": "decision", "n": line["n"], "player": line["player"], "action": act}
                           | ({"secret": True} if line.get("secret") else {}))
        elif t == "look":
            out.append({"type": "look", "player": line["player"], "cards": [face(c) for c in line["cards"]]})
        else:
            out.append({k: v for k, v in line.items() if not k.startswith("_")})
    return out


def seat_name(p, reader=None):
    """A player in a transcript: "you" for the reader, else "player N" (the table's word, and the
    spec's labels': docs/play.md, "Player" and "seat")."""
    return "you" if reader is not None and p == reader else f"player {p}"


def printable(text: str) -> str:
    """Text for a terminal: a control character (an ESC in a log's card or name, say) is shown as
    `\\x1b`, never obeyed. A spec cannot hold one (yamlsafe refuses it); a log file can."""
    return CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def render_line(line, labels: Labels, reader=None):
    """One log line → a transcript line (None for lines a reader need not see), safe to print."""
    text = _line_text(line, labels, reader)
    return None if text is None else printable(text)


def _line_text(line, labels, reader):
    t = line.get("type")
    if t == "header":
        who = f" (as player {reader} saw it)" if reader is not None else ""
        seed = f", seed {line['seed']}" if line.get("seed") is not None else ""
        opts = line.get("options") or {}
        o = ", options: " + ", ".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in opts.items()) if opts else ""
        return f"{line.get('game', '?')}: {line.get('players', '?')} players{seed}{o}{who}"
    if t == "chance":
        zone = line.get("zone")
        order = line.get("order")
        if isinstance(order, list):
            n = len(order)
            shown = ""
            if 0 < n <= 12:
                shown = ": " + ", ".join(labels.card(x) for x in order) + " (bottom to top)"
            return f"   ~ {zone} is shuffled ({n} card{'s' if n != 1 else ''}){shown}"
        n = line.get("size", "?")
        return f"   ~ {zone} is shuffled ({n} card{'s' if n != 1 else ''}, unseen)"
    if t == "decision":
        p = line.get("player")
        if line.get("secret") and not isinstance(line.get("action"), dict):
            return f"{line.get('n', '?'):>4}. {seat_name(p, reader)}: chooses in secret"
        act = line.get("action") if isinstance(line.get("action"), dict) else {}
        secret = " (in secret, until the reveal)" if line.get("secret") else ""
        return f"{line.get('n', '?'):>4}. {seat_name(p, reader)}: {labels.action(act)}{secret}"
    if t == "reveal":       # a simultaneous step's choice, revealed and resolved
        p = line.get("player")
        act = line.get("action") if isinstance(line.get("action"), dict) else {}
        return f"      revealed: {seat_name(p, reader)}: {labels.action(act)}"
    if t == "look":
        p = line.get("player")
        if "cards" in line:
            cards = ", ".join(labels.card(c) for c in line["cards"]) or "nothing"
            return f"      {seat_name(p, reader)} look{'' if p == reader else 's'} at: {cards}"
        n = line.get("count", "?")
        return f"      {seat_name(p, reader)} looks at {n} card{'s' if n != 1 else ''}"
    if t == "end":
        return render_end(line.get("scores") or [], line.get("winners") or [], reader)
    return f"      ({t}: {', '.join(f'{k}={v}' for k, v in line.items() if k != 'type')})"


def render_end(scores, winners, reader=None):
    parts = []
    for p, sc in enumerate(scores):
        parts.append(f"{seat_name(p, reader)} {sc}" + (" (winner)" if p in winners else ""))
    return "Game over. Scores: " + ", ".join(parts)


def transcript(lines, labels: Labels, reader=None) -> list:
    """All the lines of a log as transcript text lines."""
    out = []
    for line in lines:
        text = render_line(line, labels, reader)
        if text is not None:
            out.append(text)
    return out


def live(state, emit):
    """A transcript as the game goes (`run --verbose`; every card shown: the runner's view): emits
    the lines so far at once, and returns `after(state)` for play_out, which emits the new ones."""
    labels = Labels(state.rs)
    done = [0]

    def after(s):
        lines = omniscient(s, done[0])
        done[0] = len(s.log)
        for line in lines:
            text = render_line(line, labels)
            if text is not None:
                emit(text)

    after(state)
    return after


def replayed_state(game, lines):
    """A full log → the final State, re-played with its log on (so it can be read for any seat).

    The log is first checked by gamespec.interpreter.replay.replay (a bad log: GamespecError naming the
    first divergence); the game is then played again from its chance events and decisions."""
    from gamespec.errors import StateFormatError
    from gamespec.interpreter.replay import Script, _header, generator_of, replay
    from gamespec.interpreter.state import State

    r = replay(game, lines)
    unfinished = r["unfinished"]     # a game left before its end
    if not r["ok"] and not unfinished:
        raise StateFormatError(f"the log does not replay ({r['decisions']} decisions matched): {r['error']}")
    P, opts, seed = _header(lines[0], game)
    rs = game.ruleset(P, opts)
    gen = generator_of(lines[0])
    s = State.new(game, rs, seed, log=True, generator=gen,
                  script=Script([x for x in lines if x["type"] == "chance"], seed, gen))
    for d in lines:
        if d["type"] == "decision":
            s.apply(d["action"])
    return s


def log_transcript(lines, game=None, reader=None) -> list:
    """A log read from a file → transcript lines, for `reader` (a seat) or for the runner (None).

    A per-seat log (written by --log-for) is shown as is (`reader`, if given, must be its seat);
    a full log is re-played with `game` and then shown as `reader` saw it, or with every card."""
    from gamespec.errors import GamespecError
    header = lines[0]
    own = header.get("for_player")
    labels = None
    if own is not None:
        if reader is not None and reader != own:
            raise GamespecError(f"this log is seat {own}'s own (--log-for); it cannot be shown as seat "
                                f"{reader} saw it (use the full log)")
        if game is not None:
            P, opts, _ = _checked_header(header, game)
            labels = Labels(game.ruleset(P, opts))
        return transcript(lines, labels or Labels(), own)
    if game is None:
        raise GamespecError("a full log is shown by re-playing it: the spec is needed")
    state = replayed_state(game, lines)
    if reader is not None:
        if not isinstance(reader, int) or not 0 <= reader < state.num_players:
            raise GamespecError(f"--for {reader}: no such seat (seats are 0 to {state.num_players - 1})")
        view = state.log_for(reader)
    else:
        view = omniscient(state)
    return transcript(view, Labels(state.rs), reader)


def show_log(path, spec=None, reader=None) -> list:
    """A log file → its transcript lines (`gamespec show`), for `reader` (a seat) or for the runner.
    The spec is the file `spec`, else the one beside the log with the log's SHA-256 (a full log needs
    it; a seat's log reads without it, with plainer labels)."""
    import gamespec
    from gamespec.errors import StateFormatError
    from gamespec.loader import SpecNotFound, find_spec
    from gamespec.interpreter.replay import read_log
    try:
        lines = read_log(path)
    except OSError as e:
        raise StateFormatError(f"cannot read {path}: {e.strerror or e}") from None
    header = lines[0]
    game = None
    if spec or "for_player" not in header:
        game = gamespec.load(spec or find_spec(header, path))
    elif isinstance(header.get("spec"), str):
        try:
            game = gamespec.load(find_spec(header, path))
        except SpecNotFound:
            game = None     # a seat's log reads without the spec (labels are plainer)
    return log_transcript(lines, game, reader)


def _checked_header(header, game):
    from gamespec.errors import StateFormatError
    from gamespec.interpreter.replay import _header, _Malformed, other_spec
    if header.get("spec_sha256") not in (None, game.spec.sha256):
        raise StateFormatError(other_spec(header, game))
    try:
        return _header(header, game)
    except _Malformed as e:
        raise StateFormatError(f"malformed log: {e}") from None
