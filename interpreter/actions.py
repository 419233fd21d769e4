"""Legal actions as values: Action (what `legal_actions()` lists and scripts see as JSON) and the label
template filler. The compiled actions that make them are gamespec/compile/actions.py."""
from __future__ import annotations

import re
from operator import itemgetter


class Action(tuple):
    """One legal action: (name, args, bind, seen, rt, label, pos) in a tuple, cheap to make by the dozen.

    Equality and hashing use (name, args) only. `args` are the JSON values in parameter order, `bind`
    the values the effect sees in the same order (card ids: never shown; the `bind` property gives them
    by parameter name), `seen` per parameter the face the chooser sees
    (face id) or None. The label is built only when asked for. `pos` is its index in the list of
    legal actions it was made for (so apply() finds it in O(1)), -1 if none.
    """
    __slots__ = ()
    name = property(itemgetter(0))
    args = property(itemgetter(1))
    seen = property(itemgetter(3))
    _rt = property(itemgetter(4))

    # made from one 7-tuple, Action((name, args, bind, seen, rt, label, pos)): tuple's own
    # constructor, in C (a Python __new__ would cost a frame per action made)

    def key(self):
        return (self[0], self[1])

    @property
    def bind(self) -> dict:
        """The values the effect sees, by parameter name (card parameters: card ids)."""
        rt = self[4]
        return dict(zip(rt.keys, self[2])) if rt is not None else {}

    def __eq__(self, other):
        return isinstance(other, Action) and self[0] == other[0] and self[1] == other[1]

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash((self[0], self[1]))

    def __repr__(self):
        return f"Action({self.to_json(label=False)!r})"

    def __reduce__(self):
        return (_from_json_only, (self[0], self[1]))

    @property
    def label(self) -> str:
        if self[5] is not None:
            return self[5]
        return self[4].render_label(self) if self[4] is not None else self[0]

    def to_json(self, label=True) -> dict:
        d = {"action": self[0]}
        if self[4] is not None:
            for p, v in zip(self[4].params, self[1]):
                d[p.name] = list(v) if isinstance(v, tuple) else v
        if label:
            d["label"] = self.label
        return d


def _from_json_only(name, args):
    return Action((name, args, None, (), None, None, -1))


def action_key(obj):
    """(name, args) of an Action or of its JSON form, with the spec's parameter order."""
    if isinstance(obj, Action):
        return obj.key()
    return None


_PLACEHOLDER = re.compile(r"\{([^{}\n]*)\}")


MAX_LABEL = 1000   # characters in a label: longer ones end in '…' (a template may repeat a long attribute)


def fill_template(template, values):
    """`{name}` and checked `{expression}` placeholders, each looked up by its text in `values` (filled
    by interpreter/labels.py): nothing is evaluated here (templates come from strangers).

    Built piece by piece and cut at MAX_LABEL characters, never built whole first."""
    out = []
    room = MAX_LABEL
    pos = 0
    for m in _PLACEHOLDER.finditer(template):
        for piece in (template[pos:m.start()], str(values.get(m.group(1), m.group(0)))[:room + 1]):
            out.append(piece[:room + 1])
            room -= len(piece)
            if room < 0:
                return "".join(out)[:MAX_LABEL - 1] + "…"
        pos = m.end()
    out.append(template[pos:pos + room + 1])
    if len(template) - pos > room:
        return "".join(out)[:MAX_LABEL - 1] + "…"
    return "".join(out)


