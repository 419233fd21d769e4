"""`gamespec graph`: the phase graph as DOT, SVG, PNG or PDF (gamespec.draw; docs/graph.md)."""
from __future__ import annotations

import sys

from ._common import PROG, Fail, load_spec, write


def add_parser(sub, formatter, game_args) -> None:
    g = sub.add_parser(
        "graph", formatter_class=formatter, help="draw the phase graph (dot, svg, png, pdf)",
        description="Write the phase graph: phases, turns, steps, both ways out of every condition,\n"
                    "the triggers and the game's end_if (docs/graph.md). DOT always works; SVG, PNG\n"
                    "and PDF use Graphviz's 'dot' if it is installed, else matplotlib. The format is\n"
                    "--format, else the -o file's extension (.dot .gv .svg .png .pdf; any other is an\n"
                    "error), else DOT on stdout. A picture larger than 200 nodes or 400 edges shows\n"
                    "each phase as one box; if even that is too large, it is refused (DOT is not).",
        epilog="examples:\n"
               "  gamespec graph games/mygame.yaml              # DOT on stdout\n"
               "  gamespec graph games/mygame.yaml -o mygame.svg\n"
               "  gamespec graph games/mygame.yaml -o mygame.pdf --renderer matplotlib\n"
               "  gamespec graph games/mygame.yaml --format png > mygame.png")
    g.add_argument("file", metavar="FILE", help="spec file")
    g.add_argument("--format", "-f", choices=("dot", "svg", "png", "pdf"), default=None,
                   help="output format (default: from -o's extension, else dot)")
    g.add_argument("-o", "--output", metavar="OUT", help="output file (default: stdout)")
    g.add_argument("--renderer", choices=("auto", "graphviz", "matplotlib"), default="auto",
                   help="how SVG/PNG/PDF are drawn (default auto: Graphviz if found, else matplotlib)")
    g.set_defaults(func=cmd_graph)


def cmd_graph(args) -> int:
    from gamespec.draw import format_for, render

    fmt = format_for(args.output, args.format)
    if args.output is None and fmt in ("png", "pdf") and _isatty(sys.stdout):
        raise Fail(f"a {fmt.upper()} is not written to a terminal: give -o FILE.{fmt} (or redirect the output)", 2)
    game = load_spec(args.file)
    data, note = render(game.spec.graph, game.name, fmt, args.renderer)
    if note:
        print(f"{PROG}: note: {note}", file=sys.stderr)
    if args.output:
        write(args.output, data)
    else:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    return 0


def _isatty(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
