"""Checked rule ASTs → what their run-time checks cost: the steps a loop iteration or a comprehension
item charges. Shared by both Python backends and the native generator. (Which operations are
checked for the number range is decided at the operation: `+`, `-`, `sum`, `*`, `**`.)"""
from __future__ import annotations

from gamespec.spec import ast as A


NODES_PER_STEP = 8   # a loop iteration costs one step per this many nodes of its body (at least one)


def _weight(roots):
    """max(1, nodes // NODES_PER_STEP) over `roots`; a nested loop or comprehension charges its own
    iterations, so only its head counts here."""
    stack = [r for r in roots if r is not None]
    n = 0
    while stack:
        x = stack.pop()
        n += 1
        if isinstance(x, A.For):
            stack.append(x.iter)
        elif isinstance(x, A.While):
            stack.append(x.cond)
        elif isinstance(x, A.Comp):
            stack.append(x.iter)
        else:
            stack.extend(x.children())
    return max(1, n // NODES_PER_STEP)


def loop_weight(st):
    """Steps one iteration of a `for`/`while` costs: its body's size, so that a step budget bounds
    work even when each iteration runs a long body."""
    return _weight(list(st.body) + ([st.cond] if isinstance(st, A.While) else []))


def comp_weight(n, key=None):
    """Steps one item of a comprehension costs: the size of its condition and element (and of the
    `key=` of a max, min or sorted)."""
    return _weight([n.elt, n.cond, key])


def function_weight(decl):
    """Steps one call of a spec function costs (docs/language.md, Functions): one, and one per
    NODES_PER_STEP nodes of its body outside its loops (they charge their own iterations)."""
    return _weight(list(decl.rule.ast))


def untyped(n):
    """True when a side of the operation may hold a string or a list (typed 'any' by the checker)."""
    return getattr(n.left, "t", "any") == "any" or getattr(n.right, "t", "any") == "any"
