"""Checked Spec → phase graph (networkx DiGraph) and its checks: one start, all reachable, end reachable."""
from __future__ import annotations

from .errors import SpecError, SpecErrors

START, END = "<start>", "<end>"


def build(spec):
    """Nodes: phases (and their steps), START and END; edges carry guards as labels."""
    import networkx as nx
    g = nx.DiGraph()
    g.add_node(START, kind="start")
    g.add_node(END, kind="end")
    g.add_edge(START, spec.start, guard="")
    for name, ph in spec.phases.items():
        g.add_node(name, kind="phase")
        if ph.turn is not None:
            tn = f"{name}.turn"
            g.add_node(tn, kind="turn")
            g.add_edge(name, tn, guard=_src(ph.end_if, "not ") or "")
            prev = tn
            prev = _steps(g, ph.turn.steps, prev, tn)
            g.add_edge(prev, tn, guard="next turn")
            g.add_edge(prev, f"{name}.end", guard=_src(ph.end_if) or "phase ends")
            g.add_node(f"{name}.end", kind="phase-end")
            if ph.turn.end_if is not None:
                g.add_edge(tn, f"{name}.end", guard="")
        else:
            g.add_node(f"{name}.end", kind="phase-end")
            g.add_edge(name, f"{name}.end", guard="")
        for cond, target in ph.next:
            g.add_edge(f"{name}.end", END if target == "end" else target, guard=_src(cond) or "")
    if spec.end_if is not None:
        g.graph["end_if"] = _src(spec.end_if)
    return g


def _src(rule, prefix=""):
    if rule is None:
        return None
    text = " ".join((rule.text or rule.where).split())
    return prefix + (text if len(text) <= 48 else text[:45] + "...")


def _steps(g, steps, prev, turn):
    for i, st in enumerate(steps):
        node = st.path
        kind = st.kind
        g.add_node(node, kind=kind, label=_step_label(st))
        g.add_edge(prev, node, guard=_src(st.guard) or "")
        if kind == "if":
            a = _steps(g, st.body, node, turn)
            b = _steps(g, st.orelse, node, turn)
            join = node + ".join"
            g.add_node(join, kind="join")
            g.add_edge(a, join, guard="")
            g.add_edge(b, join, guard="else" if b == node else "")
            prev = join
        elif kind in ("repeat", "while", "for"):
            last = _steps(g, st.body, node, turn)
            g.add_edge(last, node, guard="again")
            prev = node
        else:
            if kind == "choose" and st.repeat:
                g.add_edge(node, node, guard="again")
            prev = node
    return prev


def _step_label(st):
    if st.kind == "choose":
        return "choose: " + ", ".join(st.actions)
    if st.kind == "for":
        return f"for {st.var}"
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


def to_dot(g, name="game") -> str:
    def q(s):
        # DOT string: escape backslashes and quotes; a newline becomes DOT's line break
        return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    shapes = {"start": "circle", "end": "doublecircle", "phase": "box", "turn": "box", "phase-end": "box",
              "choose": "diamond", "join": "point"}
    lines = [f"digraph {q(name)} {{", "  rankdir=TB;", '  node [fontname="Helvetica", fontsize=10];']
    for n, d in g.nodes(data=True):
        label = d.get("label") or n
        if d.get("kind") in ("do", "if", "for", "repeat", "while", "choose"):
            label = f"{n.split('.steps')[-1]}\n{d.get('label', '')}"
        lines.append(f"  {q(n)} [shape={shapes.get(d.get('kind'), 'ellipse')}, label={q(label)}];")
    for a, b, d in g.edges(data=True):
        guard = d.get("guard") or ""
        lines.append(f"  {q(a)} -> {q(b)}" + (f" [label={q(guard)}]" if guard else "") + ";")
    lines.append("}")
    return "\n".join(lines) + "\n"
