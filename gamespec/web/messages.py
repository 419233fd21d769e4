"""State + seat → the JSON message that seat's page receives: built from state.view(seat) alone (a
spectator's, seat None, from the public observation: gamespec/web/spectator.py)."""
from __future__ import annotations

import json

from gamespec.table.transcript import Labels


def seat_message(state, seat, table: dict, round_end=None) -> dict:
    """Everything the page of `seat` (None: a spectator) is sent about `state`. `table` holds the
    public facts of the table: {"game", "seats": [kind per seat], "thinks": [a search bot per seat], "undo", "notes", "last"} (no seed,
    no token, nothing of another seat); `round_end` the seat's last round end ({"at", "lines"}:
    gamespec/table/round_end.py, made from the seat's views; a spectator's from the public ones), if any. `stages`: the decision in
    stages when it has many options (gamespec/table/stages.py, from the view's legal actions)."""
    from gamespec.table.stages import stages
    if seat is None:
        from .spectator import public_observation
        view, obs = None, public_observation(state)
    else:
        view = state.view(seat)
        obs = view.observation
    labels = Labels(state.rs)
    faces = {}

    def name(face):
        if face is not None:
            key = json.dumps(face, sort_keys=True)
            faces.setdefault(key, labels.card(face))
        return face

    zones = {}
    for label, z in obs["zones"].items():
        for c in z["cards"]:
            name(c)
        zones[label] = z
    for v in obs["variables"].values():
        for x in (v if isinstance(v, list) else [v]):
            if isinstance(x, dict):
                name(x)
    acts = [] if view is None else [{"label": a.label, "action": a.to_json(label=False)} for a in view.legal_actions]
    last = table.get("last")
    msg = {
        "type": "view",
        "game": table["game"],
        "players": obs["num_players"],
        "seat": seat,
        "seats": list(table["seats"]),
        "thinks": [bool(x) for x in table.get("thinks") or [False] * len(table["seats"])],
        "at": state.decisions,
        "phase": obs["phase"],
        "to_move": obs["to_move"],
        "terminal": obs["terminal"],
        "zones": zones,
        "variables": obs["variables"],
        "cards": [{"face": json.loads(k), "label": v} for k, v in sorted(faces.items())],
        "actions": acts,
        "transcript": transcript_lines(obs["history"], labels, seat, table.get("notes", ())),
        "presentation": table.get("presentation") or {},
        "undo": bool(table.get("undo")),
        "can_undo": bool(table.get("undo")) and seat is not None and last == seat and not obs["terminal"],
        "stages": None if view is None else stages(view.legal_actions, labels),
        "round_end": round_end,
    }
    if obs["terminal"]:
        msg["scores"] = obs["scores"]
        msg["winners"] = obs["winners"]
        msg.update(final_ranking(state.rs, obs["scores"], obs["winners"]))
    return msg


def final_ranking(rs, scores, winners) -> dict:
    """The final ranking in the spec's order: the winners first (the spec's winner rule and its
    tie-breakers chose them), then by score, highest or lowest first as the spec's scoring says;
    seats with the same score (and the same lot) share a place and are marked tied. When seats tied
    on the best score and the tie-breakers chose among them, `tie_break` names them and the rule,
    in the rulebook's words (the rule, never values the rules did not show). Public facts only: the
    final scores and winners every seat sees."""
    if not scores:
        return {}
    low = getattr(rs, "winner", "highest") == "lowest"
    order = sorted(range(len(scores)), key=lambda p: (p not in winners, _key(scores[p], low), p))
    ranking, place = [], 0
    for i, p in enumerate(order):
        same = [q for q in order if q != p and scores[q] == scores[p] and (q in winners) == (p in winners)]
        if i == 0 or not (scores[order[i - 1]] == scores[p] and (order[i - 1] in winners) == (p in winners)):
            place = i + 1
        ranking.append({"place": place, "seat": p, "score": scores[p], "winner": p in winners, "tied": bool(same)})
    out = {"ranking": ranking, "rule": f"the {'lowest' if low else 'highest'} score wins"}
    if winners:
        best = _key(scores[winners[0]], low)
        level = [p for p in range(len(scores)) if _key(scores[p], low) == best]
        if len(level) > len(winners):
            out["tie_break"] = {"among": level, "chosen": list(winners), "rule": _tie_words(rs)}
    return out


def _key(score, low):
    if isinstance(score, bool) or not isinstance(score, (int, float)):
        return 0
    return score if low else -score


def _tie_words(rs) -> list:
    """The spec's tie-breakers in the rulebook's words (in order; more is better)."""
    spec = rs.spec
    tbs = list(getattr(spec, "tie_breakers", None) or [])
    if not tbs:
        return []
    try:
        from gamespec.authoring.rulebook import Words, _reparse
        w = Words(spec)
        w.defines = set(spec.checker.defines) if spec.checker else set()
        return [w.e(_reparse(x, "expr")) for x in tbs]
    except Exception:       # noqa: BLE001 - the rule's own text, when the words cannot be made
        return [getattr(x, "text", str(x)) for x in tbs]


def transcript_lines(history, labels, seat, notes=()) -> list:
    """The observation's history → readable lines, as `seat` saw it; the table's public notes
    (undos: {"at": N, "text"}) after the lines of decision N (gamespec/table/undo.py, placed)."""
    from gamespec.table.round_end import player_name
    from gamespec.table.screen import is_decision
    from gamespec.table.undo import placed
    out = []
    n = 0
    pending = placed(notes)

    def flush(upto):
        while pending and pending[0][0] <= upto:
            x = pending.pop(0)[1]
            text = x["text"] if type(x.get("seat")) is not int or type(x.get("decision")) is not int else \
                f"{player_name(x['seat'], seat)} took back decision {x['decision']}"
            out.append("   ↶ " + text)

    for ev in history:
        who = ev.get("player")
        name = player_name(who, seat)
        if is_decision(ev):
            flush(n)                            # the notes after decision n, its looks and reveals
            n += 1
        if ev.get("event") == "chose":         # another's simultaneous choice, hidden until the reveal
            out.append(f"{n}. {name}: chose in secret")
        elif ev.get("event") == "reveal":
            out.append(f"   revealed: {name}: {labels.action(ev)}")
        elif "action" in ev:
            out.append(f"{n}. {name}: {labels.action(ev)}" + (" (in secret)" if ev.get("secret") else ""))
        elif ev.get("event") == "look":
            if "cards" in ev:
                cards = ", ".join(labels.card(c) for c in ev["cards"]) or "nothing"
                out.append(f"   {name} looked at: {cards}")
            else:
                k = ev.get("count", 0)
                out.append(f"   {name} looked at {k} card{'s' if k != 1 else ''}")
    flush(float("inf"))
    return out


def encode(msg) -> str:
    """The exact text sent over the wire (sorted keys: the same message is the same bytes)."""
    return json.dumps(msg, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
