"""Choosing in stages: a decision with many options (more than THRESHOLD) is made one step at a time,
each stage short: first the action (when several action names are legal), then its first parameter,
then the next... Each stage lists the distinct values of its step among the options still possible,
with how many options each leads to; a step where every option still possible has the same value is
no stage (skipped); a value that leads to one option is that option, shown by its whole label.

Built from a view's legal actions alone (`PlayerAction.name`, `.label`, `.to_json()`: what the
chooser may know) and the spec's labels (`Labels`: a card by its label, a zone by its name, a player
as "player N"), so the stages tell a seat nothing its view does not. The terminal (`gamespec play`)
and the browser (`gamespec serve`: the message's `stages`, drawn by static/seat.js) both use it.

A stage (a node) is JSON: {"step": "action" or a parameter's name, "title", "path": [the labels
chosen to reach it], "choices": [choice]}; a choice is {"label", "count", and either "option": its
position among the legal actions and "full": its whole label, or "next": the next stage}, with "face": the card (a parameter's
card, as the view holds it) where the step is a card, so that the card can be picked on the table.
"""
from __future__ import annotations

import json
import math

THRESHOLD = 12          # more options than this: choose in stages


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def stages(actions, labels, threshold=THRESHOLD):
    """A view's legal actions → the first stage (a node, above), or None when they are few enough to
    be listed at once (at most `threshold`)."""
    if len(actions) <= threshold:
        return None
    opts = []
    for pos, a in enumerate(actions):
        d = a.to_json(label=False)
        name = d.pop("action", a.name)
        steps = [("action", name)] + [(k, v) for k, v in d.items()]
        opts.append({"pos": pos, "label": a.label, "name": name, "steps": steps})
    return _node(opts, 0, [], labels, threshold)


def _key(step):
    return json.dumps(step, sort_keys=True)


def _node(opts, i, path, labels, threshold):
    """The stage that tells `opts` apart, from step i on (steps all of them share are skipped)."""
    while True:
        vals = {_key(o["steps"][i]) if i < len(o["steps"]) else None for o in opts}
        if len(vals) > 1 or vals == {None}:
            break
        i += 1
    if vals == {None} or all(i >= len(o["steps"]) for o in opts):      # the same JSON twice: by label
        return {"step": "option", "title": "which one", "path": list(path),
                "choices": [{"label": o["label"], "count": 1, "option": o["pos"]} for o in opts]}
    groups = {}
    for o in opts:
        st = o["steps"][i] if i < len(o["steps"]) else None
        groups.setdefault(_key(st), (st, []))[1].append(o)
    items = list(groups.values())
    first = items[0][0]
    step = first[0] if first is not None else "option"
    if all(st is not None and _is_number(st[1]) for st, _ in items):
        items.sort(key=lambda x: x[0][1])
    choices = []
    for st, group in items:
        if st is None:
            label = "(none)"
        elif st[0] == "action":
            label = str(st[1]).replace("_", " ")
        else:
            label = labels.param(group[0]["name"], st[0], st[1])
        c = {"label": label, "count": len(group)}
        if st is not None and st[0] != "action" and isinstance(st[1], dict):
            c["face"] = st[1]
        if len(group) == 1:             # the option itself: its whole label where the step is the action
            if st is None or st[0] == "action":
                c["label"] = group[0]["label"]
            c["full"] = group[0]["label"]
            c["option"] = group[0]["pos"]
        else:
            c["next"] = _node(group, i + 1, path + [label], labels, threshold)
        choices.append(c)
    title = "what to do" if step == "action" else _title(labels, items[0][1][0]["name"], step)
    node = {"step": step, "title": title, "path": list(path), "choices": choices}
    if len(choices) > threshold and all(st is not None and _is_number(st[1]) for st, _ in items):
        node["choices"] = _ranges(choices, [st[1] for st, _ in items], path, step, title, threshold)
    elif len(choices) > threshold and all("face" in c for c in choices):
        node["choices"] = _by_attribute(choices, path, step, title, threshold)
    return node


def _by_attribute(choices, path, step, title, threshold, used=()):
    """A stage of more cards than `threshold` → the cards grouped by one attribute of their faces
    (the one with the fewest values, at least two: "suit" and one of its values), each group a stage; a group still
    too long is grouped by another attribute. Left as it is when no attribute divides it."""
    keys = {k for c in choices for k in c["face"] if k not in used}
    best = None
    for k in sorted(keys):
        vals = []
        for c in choices:
            v = json.dumps(c["face"].get(k), sort_keys=True)
            if v not in vals:
                vals.append(v)
        if 2 <= len(vals) <= threshold and (best is None or len(vals) < len(best[1])):
            best = (k, vals)
    if best is None:
        return choices
    k, vals = best
    out = []
    for v in vals:
        part = [c for c in choices if json.dumps(c["face"].get(k), sort_keys=True) == v]
        if len(part) == 1:
            out.append(part[0])
            continue
        x = json.loads(v)
        shown = "yes" if x is True else "no" if x is False else "?" if x is None else \
            ", ".join(map(str, x)) if isinstance(x, list) else str(x)
        label = f"{k.replace('_', ' ')} {shown}"
        inner = part if len(part) <= threshold else _by_attribute(part, path + [label], step, title, threshold,
                                                                 tuple(used) + (k,))
        out.append({"label": label, "count": sum(c["count"] for c in part),
                    "next": {"step": step, "title": title, "path": path + [label], "choices": inner}})
    return out


def _title(labels, action, param) -> str:
    """A stage's title: the parameter's name, or the name of the zones it chooses among."""
    rs = getattr(labels, "rs", None)
    rt = rs.actions.get(action) if rs is not None else None
    p = next((x for x in rt.params if x.name == param), None) if rt is not None else None
    if p is not None and p.kind == "zone" and getattr(p, "family", None) is not None:
        return str(p.family.name).replace("_", " ")
    return param.replace("_", " ")


def _ranges(choices, values, path, step, title, threshold):
    """A stage of more numbers than `threshold` → ranges of consecutive values ("3 to 14"), each a
    stage of at most `threshold` (ranges of ranges when there are very many)."""
    size = threshold
    while math.ceil(len(choices) / size) > threshold:
        size *= threshold
    out = []
    for k in range(0, len(choices), size):
        part, vals = choices[k:k + size], values[k:k + size]
        label = f"{vals[0]} to {vals[-1]}" if len(part) > 1 else part[0]["label"]
        if len(part) == 1:
            out.append(part[0])
            continue
        inner = part if len(part) <= threshold else _ranges(part, vals, path + [label], step, title, threshold)
        out.append({"label": label, "count": sum(c["count"] for c in part),
                    "next": {"step": step, "title": title, "path": path + [label], "choices": inner}})
    return out


def leaves(node) -> list:
    """Every option position a stage leads to, in order (each once: tests check it)."""
    out = []
    for c in node["choices"]:
        if "option" in c:
            out.append(c["option"])
        else:
            out += leaves(c["next"])
    return out


def walk(node, path):
    """The stage reached from `node` by choosing the choices at positions `path` (None: no such)."""
    for k in path:
        if not 0 <= k < len(node["choices"]) or "next" not in node["choices"][k]:
            return None
        node = node["choices"][k]["next"]
    return node
