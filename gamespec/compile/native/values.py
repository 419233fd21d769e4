"""Spec values → C data: interned texts (ids in Python's string order), constant lists, card and
lookup tables. Only numbers and ids are written into the C source, never a spec's text."""
from __future__ import annotations

from ...spec import ast as A
from .errors import NativeUnsupported

INT_MIN, INT_MAX = -(1 << 63) + 1, (1 << 63) - 1      # values a rule may hold (|n| < 2**63)


def collect_texts(rs) -> set:
    """Every text a game's rules can produce: constants, attributes, tables, choices, family keys,
    variables' initial values (a text built at run time bails: docs/native.md)."""
    out = {""}
    spec = rs.spec

    def add(v):
        if isinstance(v, str):
            out.add(str(v))
        elif isinstance(v, (list, tuple)):
            for x in v:
                add(x)
        elif isinstance(v, dict):
            for k, x in v.items():
                add(k)
                add(x)

    for a in rs.faces:
        add(a)
    for name, vals in rs.attr.items():
        add(vals)
    add(spec.tables)
    for keys in rs.zone_keys.values():
        add(keys)
    for x in rs.var_init:
        add(x)
    for decl in spec.actions.values():
        for p in decl.params:
            if p.choices is not None:
                add(p.choices)
    for rule in all_rules(rs):
        for n in A.walk_many(rule.ast) if hasattr(A, "walk_many") else _walk_rule(rule.ast):
            if isinstance(n, A.Const):
                add(n.value)
    return out


def _walk_rule(ast):
    if isinstance(ast, list):
        for st in ast:
            yield from A.walk(st)
    elif ast is not None:
        yield from A.walk(ast)


def all_rules(rs):
    """Every rule of the spec (Rule objects), wherever it sits."""
    spec = rs.spec
    out = []

    def add(r):
        if r is not None and getattr(r, "ast", None) is not None:
            out.append(r)
    for r in (spec.on_begin, spec.end_if, spec.on_end, spec.score, spec.teams, spec.success):
        add(r)
    for r in spec.tie_breakers:
        add(r)
    for _, c, e in spec.triggers:
        add(c)
        add(e)
    for ph in spec.phases.values():
        for r in (ph.on_begin, ph.on_end, ph.end_if):
            add(r)
        for c, _ in ph.next:
            add(c)
        if ph.turn:
            t = ph.turn
            for r in (t.first, t.next, t.on_begin, t.on_end, t.end_if):
                add(r)

            def steps(ss):
                for st in ss:
                    for r in (st.guard, st.effect, st.player, st.cond, st.iter, st.order):
                        add(r)
                    steps(st.body)
                    steps(st.orelse)
            steps(t.steps)
    for decl in spec.actions.values():
        for r in (decl.cond, decl.effect):
            add(r)
        for _, r in decl.cost:
            add(r)
        for p in decl.params:
            for r in (p.source, p.lo, p.hi, p.where):
                add(r)
    return out


class Texts:
    """Interned texts: ids in sorted order, so comparing ids compares the texts as Python does."""

    def __init__(self, texts):
        self.items = sorted(texts)
        self.id = {t: i for i, t in enumerate(self.items)}
        if self.items[0] != "":
            raise AssertionError("the empty text is id 0")

    def __call__(self, text) -> int:
        try:
            return self.id[text]
        except KeyError:
            raise NativeUnsupported("a text the generator did not intern") from None

    def lengths(self):
        return [len(t) for t in self.items]


class Pool:
    """Constant values as C initialisers: scalars inline, lists as static `List` objects."""

    def __init__(self, texts):
        self.texts = texts
        self.decls = []          # C declarations of constant lists
        self._lists = {}         # key -> C name
        self._n = 0

    def v(self, value) -> str:
        """A C expression of type V (a compile-time constant) for a spec value."""
        if value is None:
            return "{0, T_NONE, 0}"
        if isinstance(value, bool):
            return "{%d, T_BOOL, 0}" % int(value)
        if isinstance(value, int):
            if not INT_MIN <= value <= INT_MAX:
                raise NativeUnsupported("a number beyond 64 bits in the spec's data")
            return "{%dLL, T_INT, 0}" % value if value != INT_MIN else "{INT64_MIN, T_INT, 0}"
        if isinstance(value, str):
            return "{%d, T_STR, 0}" % self.texts(value)
        if isinstance(value, (list, tuple)):
            return "{(int64_t)(intptr_t)&%s, T_LIST, 0}" % self.list_name(list(value))
        raise NativeUnsupported(f"a {type(value).__name__} value in the spec's data")

    def list_name(self, items) -> str:
        key = _key(items)
        name = self._lists.get(key)
        if name is None:
            inner = [self.v(x) for x in items]       # nested lists first
            self._n += 1
            name = f"KL{self._n}"
            n = len(items)
            body = ", ".join(inner) if inner else "{0, T_NONE, 0}"
            self.decls.append(f"static struct {{ int32_t n; int32_t pad; V a[{max(1, n)}]; }} {name} = "
                              f"{{{n}, 0, {{{body}}}}};")
            self._lists[key] = name
        return name

    def list_v(self, items) -> str:
        """A C expression of type V for a constant list (usable anywhere, not only in initialisers)."""
        return f"vlist((List *)&{self.list_name(list(items))})"


def _key(v):
    if isinstance(v, (list, tuple)):
        return ("L",) + tuple(_key(x) for x in v)
    return (type(v).__name__, v)


def count_norm(v):
    """A card attribute's value as a count key sees it (Python's equality), None if it cannot."""
    if v is None:
        return ("n",)
    if isinstance(v, bool):
        return ("i", int(v))
    if isinstance(v, int):
        return ("i", v) if -(1 << 62) < v < (1 << 62) else None
    if isinstance(v, str):
        return ("s", v)
    return None
