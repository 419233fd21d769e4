"""Rule-language AST: small dataclasses, each carrying the file position of its first token."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(eq=False)
class Node:
    line: int
    col: int

    def children(self) -> list["Node"]:
        out = []
        for v in self.__dict__.values():
            if isinstance(v, Node):
                out.append(v)
            elif isinstance(v, list):
                out.extend(x for x in v if isinstance(x, Node))
            elif isinstance(v, dict):
                out.extend(x for x in v.values() if isinstance(x, Node))
        return out


# --- expressions -------------------------------------------------------------------------
@dataclass(eq=False)
class Const(Node):
    value: Any = None          # int, str, bool or None


@dataclass(eq=False)
class Name(Node):
    id: str = ""


@dataclass(eq=False)
class ListLit(Node):
    items: list = field(default_factory=list)


@dataclass(eq=False)
class Comp(Node):
    """`elt for var in iter if cond`, either as a list or as the argument of an aggregate."""
    elt: Node = None
    var: str = ""
    iter: Node = None
    cond: Node | None = None
    gen: bool = False          # True for the argument form `sum(x for ...)`, False for `[x for ...]`


@dataclass(eq=False)
class Call(Node):
    func: str = ""
    args: list = field(default_factory=list)
    kwargs: dict = field(default_factory=dict)


@dataclass(eq=False)
class Index(Node):
    obj: Node = None
    index: Node = None


@dataclass(eq=False)
class Attr(Node):
    obj: Node = None
    name: str = ""


@dataclass(eq=False)
class BinOp(Node):
    op: str = ""
    left: Node = None
    right: Node = None


@dataclass(eq=False)
class Compare(Node):
    op: str = ""
    left: Node = None
    right: Node = None


@dataclass(eq=False)
class BoolOp(Node):
    op: str = ""               # 'and' | 'or'
    left: Node = None
    right: Node = None


@dataclass(eq=False)
class IfExp(Node):
    """`body if cond else orelse`: a value chosen by a condition."""
    cond: Node = None
    body: Node = None
    orelse: Node = None


@dataclass(eq=False)
class Unary(Node):
    op: str = ""               # '-' | 'not'
    operand: Node = None


# --- statements --------------------------------------------------------------------------
@dataclass(eq=False)
class Let(Node):
    name: str = ""
    value: Node = None


@dataclass(eq=False)
class Assign(Node):
    target: Node = None        # Name or Index(Name, expr)
    op: str = "="
    value: Node = None


@dataclass(eq=False)
class Return(Node):
    """`return value`: ends a function's call with that value (functions only)."""
    value: Node = None


@dataclass(eq=False)
class CallStmt(Node):
    call: Call = None


@dataclass(eq=False)
class If(Node):
    branches: list = field(default_factory=list)   # [(cond, [stmts])]
    orelse: list = field(default_factory=list)

    def children(self):
        out = []
        for cond, body in self.branches:
            out.append(cond)
            out.extend(body)
        return out + list(self.orelse)


@dataclass(eq=False)
class For(Node):
    var: str = ""
    iter: Node = None
    body: list = field(default_factory=list)


@dataclass(eq=False)
class While(Node):
    cond: Node = None
    body: list = field(default_factory=list)


def walk(node: Node):
    """Every node below `node`, iteratively (the tree's depth is capped, but stay iterative anyway)."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(n.children())
