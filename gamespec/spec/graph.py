"""Checked Spec → phase graph (networkx DiGraph) and its checks: one start, all reachable, end reachable.

What the graph holds: docs/graph.md; drawing it: gamespec/draw.py."""
from __future__ import annotations

from ..errors import SpecError, SpecErrors

START, END = "<start>", "<end>"
GAME_END_IF = "<end_if>"
ASIDE = ("trigger", "end-if")     # node kinds outside the flow: checked after every block of effects


def build(spec):
    """Nodes: START, END, phases, turns, steps, turn and phase ends, triggers and the game's end_if;
    edges carry their condition as `guard` (both ways out of every condition: docs/graph.md)."""
    import networkx as nx
    g = nx.DiGraph()
    g.add_node(START, kind="start")
    g.add_node(END, kind="end")
    _link(g, [(START, "")], spec.start)
    for name, ph in spec.phases.items():
        g.add_node(name, kind="phase")
        pend = f"{name}.end"
        if ph.turn is not None:
            tn, te = f"{name}.turn", f"{name}.turn-end"
            g.add_node(tn, kind="turn")
            _link(g, [(name, _src(ph.end_if, "not "))], tn)
            exits = _steps(g, ph.turn.steps, [(tn, "")])
            g.add_node(te, kind="turn-end", label="end of turn")
            _link(g, exits, te)
            if ph.turn.end_if is not None:      # the turn ends early, after any block of effects
                _link(g, [(tn, "end_if: " + _src(ph.turn.end_if))], te)
            _link(g, [(te, _src(ph.end_if, "not ") or "next turn")], tn)
            g.add_node(pend, kind="phase-end")
            if ph.end_if is not None:           # also checked before the first turn
                _link(g, [(name, _src(ph.end_if))], pend)
            _link(g, [(te, _src(ph.end_if) or "end_phase()")], pend)
        else:
            g.add_node(pend, kind="phase-end")
            _link(g, [(name, "")], pend)
        for cond, target in ph.next:
            _link(g, [(pend, _src(cond))], END if target == "end" else target)
    for name, cond, _ in spec.triggers:
        g.add_node(f"<trigger {name}>", kind="trigger", label=f"trigger {name}\nif {_src(cond)}")
    if spec.end_if is not None:
        g.graph["end_if"] = _src(spec.end_if)
        g.add_node(GAME_END_IF, kind="end-if", label=f"game end_if\n{_src(spec.end_if)}")
        g.add_edge(GAME_END_IF, END, guard="the game ends", style="dashed")
    return g


def _src(rule, prefix=""):
    if rule is None:
        return ""
    text = " ".join((rule.text or rule.where).split())
    text = text if len(text) <= 48 else text[:45] + "..."
    return f"{prefix}({text})" if prefix and " " in text else prefix + text


def _both(a, b):
    return f"{a}, {b}" if a and b else a or b


def _link(g, exits, node, guard=""):
    """An edge from each pending exit (node, label) to `node`; parallel ways merge their labels."""
    for src, label in exits:
        text = _both(label, guard)
        if g.has_edge(src, node):
            old = g.edges[src, node]["guard"]
            if text not in old.split(" or "):
                g.edges[src, node]["guard"] = f"{old} or {text}" if old and text else ""
        else:
            g.add_edge(src, node, guard=text)


def _steps(g, steps, exits):
    """Add the steps after the pending exits; returns the exits after the last step."""
    for st in steps:
        node = st.path
        if st.guard and len(exits) > 1:     # merge the ways in first: skips must not pile up
            join = node + ".join"
            g.add_node(join, kind="join")
            _link(g, exits, join)
            exits = [(join, "")]
        g.add_node(node, kind=st.kind, label=_step_label(st))
        _link(g, exits, node, _src(st.guard))
        skipped = [(n, _both(lab, _src(st.guard, "not "))) for n, lab in exits] if st.guard else []
        kind = st.kind
        if kind == "if":
            out = _steps(g, st.body, [(node, "yes")]) + _steps(g, st.orelse, [(node, "no")])
        elif kind == "while":
            body = _steps(g, st.body, [(node, "yes")])
            _link(g, body, node, "again")
            out = [(node, "no")]
        elif kind == "repeat":
            cond = _src(st.cond)
            body = _steps(g, st.body, [(node, "")])
            _link(g, body, node, "not " + cond if cond else "again")
            out = [(n, _both(lab, cond)) for n, lab in body]
        elif kind == "for":
            body = _steps(g, st.body, [(node, f"each {st.var}")])
            _link(g, body, node, "next")
            out = [(node, "done")]
        elif kind == "react":       # a reaction window: its then steps if someone responded, else its else
            out = _steps(g, st.body, [(node, "someone responded")]) + \
                _steps(g, st.orelse, [(node, "nobody responded")])
        else:
            if kind == "choose" and st.repeat:
                g.add_edge(node, node, guard="again")
            out = [(node, "")]
        exits = out + skipped
    return exits


def _step_label(st):
    if st.kind == "choose":
        return ("choose in secret: " if st.simultaneous else "choose: ") + ", ".join(st.actions)
    if st.kind == "for" and st.simultaneous:   # a loop over the choosers, then the reveal
        return f"simultaneous: {', '.join(st.body[0].actions)} by {_src(st.iter)}, then reveal"
    if st.kind == "react":
        how = "at once" if st.ask == "at_once" else "in turn"
        return f"react: {', '.join(st.actions)} by {_src(st.iter)}, {how}, until {st.until}"
    if st.kind == "for":
        return f"for {st.var} in {_src(st.iter)}" if st.iter is not None else f"for {st.var}"
    if st.kind == "if":
        return f"if {_src(st.cond)}"
    if st.kind == "while":
        return f"while {_src(st.cond)}"
    if st.kind == "repeat":
        return f"repeat until {_src(st.cond)}" if st.cond is not None else "repeat"
    return st.kind


def check(spec, g, data, filename):
    """Every phase reachable from the start; the end reachable from every node; loops have exits."""
    import networkx as nx
    errors = []
    phases_marks = getattr(data.get("phases"), "key_marks", {}) if isinstance(data, dict) else {}

    def pos(name):
        m = phases_marks.get(name.split(".")[0])
        return (m[0], m[1]) if m else (1, 1)

    reach = nx.descendants(g, START) | {START}
    for name in spec.phases:
        if name not in reach:
            errors.append(SpecError(f"phase '{name}' is unreachable: no 'next' leads to it and it is not the start",
                                    filename, *pos(name), check="graph-unreachable"))
    can_end = nx.ancestors(g, END) | {END}
    if spec.end_if is None:
        for name in spec.phases:
            if name in reach and name not in can_end:
                errors.append(SpecError(f"the game can never end once phase '{name}' begins: no path leads to "
                                        "'end' and there is no game end_if", filename, *pos(name),
                                        check="graph-no-end"))
    for comp in nx.strongly_connected_components(g):
        if len(comp) == 1:
            n = next(iter(comp))
            if not g.has_edge(n, n):
                continue
        if not any(not g.has_edge(a, b) or b not in comp for a in comp for b in g.successors(a)) and \
                spec.end_if is None:
            first = sorted(comp)[0]
            errors.append(SpecError(f"a loop through {', '.join(sorted(comp))} has no exit",
                                    filename, *pos(first), check="graph-loop"))
    if errors:
        raise SpecErrors(errors)
