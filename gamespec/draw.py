"""Phase graph (gamespec/spec/graph.py) → a picture: DOT text, or SVG / PNG / PDF drawn by Graphviz or
matplotlib, bounded in size (docs/graph.md).

    data, note = render(spec.graph, "My game", format_for("mygame.pdf"))
"""
from __future__ import annotations

import os

from .errors import DrawError
from .errors import UsageError
from .spec.graph import ASIDE, END, START

FORMATS = ("dot", "svg", "png", "pdf")
EXTENSIONS = {".dot": "dot", ".gv": "dot", ".svg": "svg", ".png": "png", ".pdf": "pdf"}
MAX_NODES = 200          # a picture larger than this is collapsed to phases, or refused
MAX_EDGES = 400
MAX_INCHES = 400         # a side of the matplotlib drawing
MAX_PIXELS = 40_000_000  # a PNG; its resolution is lowered to fit, down to MIN_DPI
MIN_DPI = 20
DPI = 100
CHECKS_CAPTION = "checked after every block of effects"


# ------------------------------------------------------------------------------ format
def format_for(output: str | None, fmt: str | None = None) -> str:
    """The format: `fmt` if given, else from the output file's extension, else DOT (for stdout).
    An unknown extension, or one that contradicts `fmt`, is a UsageError."""
    names = ", ".join(sorted(EXTENSIONS))
    if fmt is not None and fmt not in FORMATS:
        raise UsageError(f"unknown picture format {fmt!r}: use one of {', '.join(FORMATS)}")
    if output is None:
        return fmt or "dot"
    ext = os.path.splitext(output)[1].lower()
    known = EXTENSIONS.get(ext)
    if fmt is None:
        if known is None:
            what = f"the extension {ext!r}" if ext else "no extension"
            raise UsageError(f"cannot tell the picture format of {output!r} ({what}): name the file "
                             f"{names}, or give --format ({', '.join(FORMATS)})")
        return known
    if known is not None and known != fmt:
        raise UsageError(f"--format {fmt} contradicts the file name {output!r} ({ext} is {known})")
    return fmt


# ------------------------------------------------------------------------------ render
def render(g, name: str, fmt: str, renderer: str = "auto") -> tuple[bytes, str | None]:
    """The picture as bytes, and a note for the user (None, or what was collapsed)."""
    if fmt == "dot":
        return to_dot(g, name).encode("utf-8"), None
    if fmt not in FORMATS:
        raise UsageError(f"unknown picture format {fmt!r}: use one of {', '.join(FORMATS)}")
    g, note = bounded(g)
    if renderer not in ("auto", "graphviz", "matplotlib"):
        raise UsageError(f"unknown renderer {renderer!r}: use auto, graphviz or matplotlib")
    import shutil
    if renderer in ("auto", "graphviz") and shutil.which("dot"):
        return _graphviz(to_dot(g, name), fmt), note
    if renderer == "graphviz":
        raise DrawError("Graphviz's 'dot' program is not on the PATH: install Graphviz "
                        "(e.g. apt-get install graphviz) or use --renderer matplotlib")
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise DrawError(f"drawing {fmt.upper()} needs Graphviz's 'dot' program or matplotlib: install one "
                        "(pip install gamespec[plot], or apt-get install graphviz), "
                        "or use --format dot") from None
    import io
    buf = io.BytesIO()
    draw_matplotlib(g, name, buf, fmt)
    return buf.getvalue(), note


def bounded(g):
    """The graph itself if it fits the picture bounds, else its phases (steps collapsed), else
    DrawError. Returns (graph, note or None)."""
    n, m = g.number_of_nodes(), g.number_of_edges()
    if n <= MAX_NODES and m <= MAX_EDGES:
        return g, None
    c = collapse(g)
    cn, cm = c.number_of_nodes(), c.number_of_edges()
    if cn <= MAX_NODES and cm <= MAX_EDGES:
        return c, (f"the phase graph has {n} nodes and {m} edges (a picture shows at most {MAX_NODES} "
                   f"and {MAX_EDGES}): each phase's turn and steps are collapsed into its box")
    raise DrawError(f"the phase graph is too large to draw: {n} nodes and {m} edges ({cn} nodes and {cm} "
                    f"edges with each phase's steps collapsed); a picture shows at most {MAX_NODES} nodes "
                    f"and {MAX_EDGES} edges. Use --format dot for the graph as text")


def _owner(n, d, phases):
    """The phase a node belongs to (None for the start, the end and the checks)."""
    if d.get("kind") in ("start", "end") or d.get("kind") in ASIDE:
        return None
    if n in phases:
        return n
    if n.startswith("phases."):
        return n.split(".")[1]
    return n.rsplit(".", 1)[0]           # NAME.turn, NAME.turn-end, NAME.end


def collapse(g):
    """Each phase, its turn and its steps as one node; edges between phases stay (labels merged)."""
    import networkx as nx
    phases = {n for n, k in g.nodes(data="kind") if k == "phase"}
    owner = {n: _owner(n, d, phases) or n for n, d in g.nodes(data=True)}
    steps = {}
    for n, d in g.nodes(data=True):
        if owner[n] != n and d.get("kind") in STEP_KINDS:
            steps[owner[n]] = steps.get(owner[n], 0) + 1
    c = nx.DiGraph(**g.graph)
    for n, d in g.nodes(data=True):
        if owner[n] == n:
            d = dict(d)
            if n in phases:
                k = steps.get(n, 0)
                d["label"] = f"{n}\n({k} step{'' if k == 1 else 's'})"
            c.add_node(n, **d)
    for a, b, d in g.edges(data=True):
        oa, ob = owner[a], owner[b]
        if oa == ob and oa in phases and not (g.nodes[a].get("kind") == "phase-end" and b in phases):
            continue                       # inside a phase (a phase's next may lead back to it: it stays)
        guard = d.get("guard") or ""
        if c.has_edge(oa, ob):
            old = c.edges[oa, ob].get("guard") or ""
            parts = old.split(" or ")
            if old and guard and guard not in parts:
                c.edges[oa, ob]["guard"] = old + " or " + guard if len(parts) < 3 else old.rstrip(" .") + " ..."
            elif not guard:
                c.edges[oa, ob]["guard"] = ""
        else:
            c.add_edge(oa, ob, **d)
    return c


# ------------------------------------------------------------------------------ DOT
_SHAPES = {"start": "circle", "end": "doublecircle", "phase": "box", "turn": "box", "phase-end": "box",
           "turn-end": "box", "choose": "diamond", "trigger": "note", "end-if": "note", "join": "point"}
STEP_KINDS = ("do", "if", "for", "repeat", "while", "choose")


def _q(s):
    # a DOT string: escape backslashes and quotes; a newline becomes DOT's line break
    return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def node_label(n, d) -> str:
    kind = d.get("kind")
    if kind in ("start", "end"):
        return kind
    if kind == "join":
        return ""
    if kind in STEP_KINDS:
        return f"{n.split('.steps')[-1]}\n{d.get('label', kind)}"
    return d.get("label") or str(n)


def to_dot(g, name="game") -> str:
    lines = [f"digraph {_q(name)} {{", "  rankdir=TB;", '  node [fontname="Helvetica", fontsize=10];',
             '  edge [fontname="Helvetica", fontsize=9];']
    aside = [n for n, k in g.nodes(data="kind") if k in ASIDE]

    def node(n, d, indent="  "):
        return f"{indent}{_q(n)} [shape={_SHAPES.get(d.get('kind'), 'ellipse')}, label={_q(node_label(n, d))}];"

    for n, d in g.nodes(data=True):
        if d.get("kind") not in ASIDE:
            lines.append(node(n, d))
    if aside:
        lines += ["  subgraph cluster_checks {", f"    label={_q(CHECKS_CAPTION)};", "    style=dashed;"]
        lines += [node(n, g.nodes[n], "    ") for n in aside]
        lines.append("  }")
    for a, b, d in g.edges(data=True):
        attrs = [f"label={_q(d['guard'])}"] if d.get("guard") else []
        if d.get("style"):
            attrs.append(f"style={d['style']}")
        lines.append(f"  {_q(a)} -> {_q(b)}" + (f" [{', '.join(attrs)}]" if attrs else "") + ";")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _graphviz(dot: str, fmt: str) -> bytes:
    import subprocess
    try:
        p = subprocess.run(["dot", f"-T{fmt}"], input=dot.encode("utf-8"), capture_output=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise DrawError(f"Graphviz 'dot' failed: {e}") from None
    if p.returncode != 0:
        msg = p.stderr.decode("utf-8", "replace").strip().splitlines()
        raise DrawError(f"Graphviz 'dot' failed: {msg[0] if msg else 'exit code ' + str(p.returncode)}")
    return p.stdout


# ------------------------------------------------------------------------------ matplotlib
def layers(g):
    """Layered layout: back edges found by a DFS from '<start>' are set aside, every other node goes
    one layer below its lowest predecessor (longest path), '<end>' last. Returns (layers, depth,
    back edges); layers list their nodes in DFS discovery order."""
    import networkx as nx

    state, found, back = {}, [], set()
    roots = ([START] if START in g else []) + [n for n in g.nodes if n != START]
    for r in roots:
        if r in state:
            continue
        state[r] = 1
        found.append(r)
        stack = [(r, iter(g.successors(r)))]
        while stack:
            n, it = stack[-1]
            for m in it:
                st = state.get(m)
                if st is None:
                    state[m] = 1
                    found.append(m)
                    stack.append((m, iter(g.successors(m))))
                    break
                if st == 1:          # on the stack: a back edge (or a self-loop)
                    back.add((n, m))
            else:
                state[n] = 2
                stack.pop()
    dag = nx.DiGraph()
    dag.add_nodes_from(found)
    dag.add_edges_from(e for e in g.edges if e not in back)
    depth = {}
    for n in nx.topological_sort(dag):
        depth[n] = max((depth[p] + 1 for p in dag.predecessors(n)), default=0)
    if END in depth:
        depth[END] = max((d for n, d in depth.items() if n != END), default=-1) + 1
    out = {}
    for n in found:
        out.setdefault(depth[n], []).append(n)
    return [out[k] for k in sorted(out)], depth, back


def draw_matplotlib(g, name, out, fmt) -> None:
    """Draw the phase graph with matplotlib (no Graphviz): layered boxes, arrows going down, edges
    going back up routed in lanes on the right, guards as small labels; the triggers and the game's
    end_if in a column on the left, the end_if's dashed edge going round to '<end>'."""
    from matplotlib.figure import Figure
    from matplotlib.patches import Circle, FancyArrowPatch, FancyBboxPatch, Rectangle
    from matplotlib.path import Path

    font = 9
    char_w, line_h = 0.075, 0.19          # inches at 9 pt; 1 data unit = 1 inch
    gap_x, gap_y, lane_gap = 0.5, 0.8, 0.28
    kinds = dict(g.nodes(data="kind"))
    aside = [n for n in g.nodes if kinds.get(n) in ASIDE]
    flow = g.subgraph([n for n in g.nodes if kinds.get(n) not in ASIDE])
    lays, depth, back = layers(flow)
    labels = {n: node_label(n, d) for n, d in g.nodes(data=True)}
    size = {}
    for n, text in labels.items():
        if kinds.get(n) == "join":
            size[n] = (0.12, 0.12)
        else:
            lines = text.split("\n")
            size[n] = (max(len(s) for s in lines) * char_w + 0.3, len(lines) * line_h + 0.2)

    # place the layers top-down; order each by the mean x of its predecessors (one barycentre pass)
    pos = {}
    y = 0.0
    for layer in lays:
        def bary(n):
            xs = [pos[m][0] for m in flow.predecessors(n) if m in pos and (m, n) not in back]
            return sum(xs) / len(xs) if xs else 0.0
        layer = sorted(layer, key=bary)
        total = sum(size[n][0] for n in layer) + gap_x * (len(layer) - 1)
        x = -total / 2
        h = max(size[n][1] for n in layer)
        for n in layer:
            w = size[n][0]
            pos[n] = (x + w / 2, y - h / 2)
            x += w + gap_x
        y -= h + gap_y

    def right(n):
        return pos[n][0] + size[n][0] / 2

    rightmost = dict.fromkeys(pos, False)
    for layer in lays:
        rightmost[max(layer, key=lambda n: pos[n][0])] = True

    leftmost = dict.fromkeys(pos, False)
    for layer in lays:
        leftmost[min(layer, key=lambda n: pos[n][0])] = True

    nodes_right = max(right(n) for n in pos)
    # edges down past a layer (a skipped step): in lanes on the left, so as to cross no box
    skips = sorted((e for e in flow.edges if e not in back and depth[e[1]] - depth[e[0]] > 1),
                   key=lambda e: abs(pos[e[0]][1] - pos[e[1]][1]))
    nodes_left = min(pos[n][0] - size[n][0] / 2 for n in pos)
    left_lane = {e: nodes_left - 0.35 - i * lane_gap for i, e in enumerate(skips)}
    nodes_left = min([nodes_left] + [x - 0.3 for x in left_lane.values()])
    # the checks: a column left of the flow, the game's end_if last (its edge goes down from it)
    box = None
    if aside:
        aside.sort(key=lambda n: kinds[n] == "end-if")
        col_w = max([size[n][0] for n in aside] + [len(CHECKS_CAPTION) * char_w * 0.8 + 0.2])
        cx = nodes_left - 0.8 - col_w / 2
        ya = -0.35
        for n in aside:
            pos[n] = (cx, ya - size[n][1] / 2)
            ya -= size[n][1] + 0.3
        box = (cx - col_w / 2 - 0.15, ya + 0.15, col_w + 0.3, -ya + 0.05)
    ups = sorted((e for e in flow.edges if e in back and e[0] != e[1]),
                 key=lambda e: abs(pos[e[0]][1] - pos[e[1]][1]))
    lane = {e: nodes_right + 0.35 + i * lane_gap for i, e in enumerate(ups)}
    loops_right = max((right(a) + 0.7 for a, b in flow.edges if a == b), default=nodes_right)
    title_w = len(name) * char_w * 1.4 + 0.4
    xmin = min(pos[n][0] - size[n][0] / 2 for n in pos) - 0.4
    xmax = max([nodes_right + 0.4, loops_right] + [x + 0.3 for x in lane.values()])
    # forward-edge labels go right of the edge's middle
    for a, b, d in flow.edges(data=True):
        if (a, b) not in back and (a, b) not in left_lane and d.get("guard"):
            xmax = max(xmax, (pos[a][0] + pos[b][0]) / 2 + 0.1 + min(len(d["guard"]), 40) * char_w * 0.8)
    xmax = max(xmax, xmin + title_w)
    ymax, ymin = 0.6, min(y + gap_y - 0.3, min(pos[n][1] - size[n][1] / 2 for n in pos) - 0.3)
    width, height = xmax - xmin, ymax - ymin
    if width > MAX_INCHES or height > MAX_INCHES:
        raise DrawError(f"the picture would be {width:.0f} x {height:.0f} inches (at most {MAX_INCHES} a side): "
                        "use --format dot for the graph as text")
    dpi = DPI
    if fmt == "png" and width * height * dpi * dpi > MAX_PIXELS:
        dpi = int((MAX_PIXELS / (width * height)) ** 0.5)
        if dpi < MIN_DPI:
            raise DrawError(f"the picture would be {width:.0f} x {height:.0f} inches, too large for a PNG "
                            f"(at most {MAX_PIXELS // 1_000_000} million pixels at {MIN_DPI} dpi or more): "
                            "use SVG or PDF")
    fig = Figure(figsize=(width, height))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(xmin, xmax)
    ax.set_ylim(ymin, ymax)
    ax.axis("off")
    ax.text(xmin + 0.2, ymax - 0.25, name, fontsize=font + 3, fontweight="bold", va="center")
    if box is not None:
        ax.add_patch(Rectangle(box[:2], box[2], box[3], facecolor="none", edgecolor="#999999",
                               linestyle="--", linewidth=0.8, zorder=0))
        ax.text(box[0] + 0.1, box[1] + box[3] - 0.12, CHECKS_CAPTION, fontsize=font - 2, color="#666666",
                va="center")

    colours = {"start": "#333333", "end": "#333333", "phase": "#cfe2f3", "turn": "#d9ead3",
               "phase-end": "#eeeeee", "turn-end": "#eeeeee", "choose": "#fff2cc",
               "trigger": "#f4cccc", "end-if": "#f4cccc"}
    for n, (cx, cy) in pos.items():
        w, h = size[n]
        kind = kinds.get(n)
        if kind == "join":
            ax.add_patch(Circle((cx, cy), 0.05, facecolor="#444444", edgecolor="none", zorder=2))
            continue
        ax.add_patch(FancyBboxPatch((cx - w / 2, cy - h / 2), w, h,
                                    boxstyle="round,pad=0,rounding_size=0.08",
                                    facecolor=colours.get(kind, "#f4f4f4"), edgecolor="#555555",
                                    linewidth=0.8, zorder=2))
        ax.text(cx, cy, labels[n], ha="center", va="center", fontsize=font, zorder=3,
                color="white" if kind in ("start", "end") else "black")

    def short(text):
        return text if len(text) <= 40 else text[:39] + "…"

    arrow = dict(arrowstyle="-|>", mutation_scale=9, color="#444444", linewidth=0.8,
                 shrinkA=0, shrinkB=0, zorder=1)

    def path(verts, **extra):
        return FancyArrowPatch(path=Path(verts, [Path.MOVETO] + [Path.LINETO] * (len(verts) - 1)),
                               **arrow, **extra)

    for a, b, d in g.edges(data=True):
        guard = short(d.get("guard") or "")
        (xa, ya), (xb, yb) = pos[a], pos[b]
        wa, ha = size[a]
        wb, hb = size[b]
        if a in aside or b in aside:     # from the checks column: down its left side, then across
            x = box[0] - 0.1 if box else xa - wa / 2
            ax.add_patch(path([(xa - wa / 2, ya), (x, ya), (x, yb), (xb - wb / 2, yb)],
                              linestyle="--" if d.get("style") == "dashed" else "-"))
            if guard:
                ax.text(x + 0.08, yb + 0.1, guard, fontsize=font - 2, color="#666666", ha="left",
                        va="bottom", zorder=4)
        elif a == b:                # self-loop: a small arc on the right
            p1, p2 = (xa + wa / 2, ya + ha / 4), (xa + wa / 2, ya - ha / 4)
            ax.add_patch(FancyArrowPatch(p1, p2, connectionstyle="arc3,rad=-1.6", **arrow))
            if guard:
                ax.text(xa + wa / 2 + 0.3, ya, guard, fontsize=font - 2, color="#666666",
                        ha="left", va="center", zorder=4)
        elif (a, b) in back:        # up: out to a lane on the right, up, back in
            x = lane[(a, b)]
            k = ups.index((a, b))
            if rightmost[a]:        # directly out of its right side
                verts = [(xa + wa / 2, ya), (x, ya)]
            else:                   # up into the gap above its layer, so as to cross no box
                yg = ya + ha / 2 + 0.12 + 0.06 * (k % 5)
                verts = [(xa + wa / 4, ya + ha / 2), (xa + wa / 4, yg), (x, yg)]
            if rightmost[b]:
                verts += [(x, yb), (xb + wb / 2, yb)]
            else:
                yg = yb + hb / 2 + 0.14 + 0.06 * (k % 5)
                verts += [(x, yg), (xb + wb / 4, yg), (xb + wb / 4, yb + hb / 2)]
            ax.add_patch(path(verts))
            if guard:
                ax.text(x - 0.04, (ya + yb) / 2, guard, fontsize=font - 2, color="#666666",
                        ha="right", va="center", rotation=90, zorder=4,
                        bbox=dict(facecolor="white", edgecolor="none", pad=0.5, alpha=0.8))
        elif (a, b) in left_lane:   # down past a layer: out to a lane on the left, down, back in
            x = left_lane[(a, b)]
            k = skips.index((a, b))
            if leftmost[a]:
                verts = [(xa - wa / 2, ya), (x, ya)]
            else:                   # down into the gap below its layer first
                yg = ya - ha / 2 - 0.12 - 0.06 * (k % 5)
                verts = [(xa - wa / 4, ya - ha / 2), (xa - wa / 4, yg), (x, yg)]
            if leftmost[b]:
                verts += [(x, yb), (xb - wb / 2, yb)]
            else:
                yg = yb + hb / 2 + 0.14 + 0.06 * (k % 5)
                verts += [(x, yg), (xb - wb / 4, yg), (xb - wb / 4, yb + hb / 2)]
            ax.add_patch(path(verts))
            if guard:
                ax.text(x + 0.04, (ya + yb) / 2, guard, fontsize=font - 2, color="#666666",
                        ha="left", va="center", rotation=90, zorder=4,
                        bbox=dict(facecolor="white", edgecolor="none", pad=0.5, alpha=0.8))
        else:                       # down: bottom centre to top centre
            p1, p2 = (xa, ya - ha / 2), (xb, yb + hb / 2)
            ax.add_patch(FancyArrowPatch(p1, p2, **arrow))
            if guard:
                ax.text((p1[0] + p2[0]) / 2 + 0.08, (p1[1] + p2[1]) / 2, guard, fontsize=font - 2,
                        color="#666666", ha="left", va="center", zorder=4)
    import matplotlib
    # SVG text as text (searchable, smaller); fixed ids and no date: the same spec gives the same file
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "gamespec"}):
        fig.savefig(out, format=fmt, dpi=dpi, metadata=_metadata(fmt))


def _metadata(fmt):
    # no creation date: the same spec gives the same file
    return {"svg": {"Date": None}, "pdf": {"CreationDate": None}, "png": {}}.get(fmt, {})
