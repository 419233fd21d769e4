"""Inventory (schema, grammar, built-ins) + data/reference.yaml → docs/reference.md, and its checks.

    python -m gamespec.authoring.reference --write     # regenerate docs/reference.md
    python -m gamespec.authoring.reference --check     # exit 1 if an entry is missing or stale
"""
from __future__ import annotations

import copy
import functools
from importlib import resources

from . import inventory as inv

ENTRIES_PATH = "gamespec/authoring/data/reference.yaml"

# Every example is merged into this small, complete game and must validate there. Expressions and
# statements are put into the `play` action's effect, where `card` is the card played.
BASE_SPEC = """\
name: Example
players: [2, 4]
cards:
  card: {zone: deck, faces: [{each: {rank: [1, 2, 3, 4, 5]}, count: 4}]}
zones:
  deck: {kind: pile, visibility: hidden, on_empty: stop}
  hand: {kind: set, per_player: true, visibility: owner}
  discard: {kind: pile, visibility: public}
variables:
  points: {per_player: true}
on_begin: "shuffle(deck); for p in players { deal(deck, hand[p], 3) }"
end_if: "all(size(hand[p]) == 0 for p in players)"
phases:
  play:
    turn:
      steps:
        - choose: [play]
actions:
  play:
    params: {card: {from: "hand[actor]"}}
    effect: "move(card, discard); points[actor] += card.rank; deal(deck, hand[actor])"
scoring: {score: "points[p]"}
"""
# Top-level keys whose example replaces the base's value instead of being merged into it.
_REPLACE = {"phases", "start", "scoring", "on_begin", "end_if", "on_end", "name", "players",
            "description", "limits"}
SECTIONS = [
    ("spec", "The top level"), ("option", "options.NAME"), ("card_class", "cards.NAME"),
    ("face", "cards.NAME.faces[]"), ("zone", "zones.NAME"), ("variable", "variables.NAME"), ("mark", "marks.NAME"),
    ("phase", "phases.NAME"), ("next", "phases.NAME.next[] (a list of transitions)"),
    ("turn", "phases.NAME.turn"), ("step", "a step of turn.steps (and of nested steps)"),
    ("action", "actions.NAME"), ("param", "actions.NAME.params.NAME"),
    ("trigger", "triggers.NAME"), ("scoring", "scoring"), ("presentation", "presentation"),
    ("zone_hint", "presentation.zones.NAME"), ("variable_hint", "presentation.variables.NAME"),
    ("mark_hint", "presentation.marks.NAME"),
]


@functools.lru_cache(maxsize=1)
def entries() -> dict:
    import yaml
    text = resources.files("gamespec.authoring").joinpath("data/reference.yaml").read_text(encoding="utf-8")
    out = yaml.safe_load(text)
    from gamespec.spec.builtins import TABLE     # the built-ins document themselves in their table
    for b in TABLE:
        out[f"builtin.{b.name}"] = {"signature": b.signature, "text": b.text, "example": b.example}
    return out


def missing() -> list[str]:
    """One message per inventory item without an entry, saying exactly what to add and where."""
    es = entries()
    out = []
    for item in inv.inventory():
        if item["id"] not in es:
            src = {"grammar": f"grammar/rules.lark line {item.get('line')}",
                   "operator": f"grammar/rules.lark line {item.get('line')}",
                   "builtin": "gamespec/spec/builtins.py TABLE", "name": "gamespec/spec/builtins.py CONSTANTS",
                   }.get(item["id"].split(".")[0], "gamespec/schema.json")
            out.append(f"no reference entry for '{item['id']}' (from {src}): add '{item['id']}:' "
                       f"to {ENTRIES_PATH}, then run: python -m gamespec.authoring.reference --write")
        elif isinstance(es[item["id"]], dict) and "see" in es[item["id"]] and es[item["id"]]["see"] not in es:
            out.append(f"reference entry '{item['id']}' points to '{es[item['id']]['see']}', which has no entry")
    for item in inv.builtins():
        e = es.get(item["id"])
        if isinstance(e, dict):
            for kw in item["kwargs"]:
                if f"{kw}=" not in e.get("signature", ""):
                    out.append(f"reference entry '{item['id']}': its signature does not show the named "
                               f"argument '{kw}=' (in gamespec/spec/builtins.py)")
    known = {i["id"] for i in inv.inventory()}
    for k in es:
        if k not in known:
            out.append(f"reference entry '{k}' documents nothing that exists any more: remove it from {ENTRIES_PATH}")
    return out


def example_spec(example) -> str:
    """The base spec with an example merged in, as YAML text."""
    import yaml
    base = yaml.safe_load(BASE_SPEC)
    if isinstance(example, dict) and ("expr" in example or "effects" in example):
        stmt = example.get("effects") or f"let example_value = ({example['expr']})"
        base["actions"]["play"]["effect"] += "\n" + stmt
        frag = example.get("spec") or {}
    else:
        frag = yaml.safe_load(example) if isinstance(example, str) else example
    for k, v in (frag or {}).items():
        if k in _REPLACE or not isinstance(v, dict) or not isinstance(base.get(k), dict):
            base[k] = copy.deepcopy(v)
        else:
            base[k].update(copy.deepcopy(v))
    return yaml.safe_dump(base, sort_keys=False)


def check_example(eid: str) -> str | None:
    """None if the entry's example validates (and builds for every player count), else the errors."""
    import gamespec
    e = entries().get(eid)
    if not isinstance(e, dict) or "example" not in e:
        return None
    text = example_spec(e["example"])
    try:
        g = gamespec.load_text(text, f"<reference example {eid}>")
        for n in range(g.min_players, g.max_players + 1):
            g.ruleset(n, g.check_options({}))
    except gamespec.GamespecError as err:
        return f"{eid}: {err}"
    return None


# ---- rendering --------------------------------------------------------------------------
def _example_md(ex) -> str:
    if isinstance(ex, dict):
        if "expr" in ex:
            return f"`{ex['expr']}`"
        return f"`{ex['effects']}`"
    return "\n```yaml\n" + ex.rstrip() + "\n```\n"


def _esc(s: str) -> str:
    return str(s).replace("|", "\\|").replace("\n", " ")


def render() -> str:
    es = entries()
    keys = inv.schema_keys()
    lines = [
        "# gamespec reference",
        "",
        "<!-- Generated by `python -m gamespec.authoring.reference --write` from gamespec/schema.json,",
        "     grammar/rules.lark, the checker's built-ins and gamespec/authoring/data/reference.yaml.",
        "     Do not edit by hand: edit the YAML table and regenerate (tests/test_reference.py checks). -->",
        "",
        "Every YAML key of a spec (its type, default, what it does, an example), then every statement,",
        "expression, operator, name and built-in of the rule language. Each example is checked: merged into",
        "a small complete game (below), it validates. For editor completion see",
        "[Editor support](tutorial.md#editor-support); for a guided start, [the tutorial](tutorial.md).",
        "",
        "The small game every example is merged into (an example's top-level mapping is merged key by key",
        "into the game's; rule examples are written into the `play` action, where `card` is the card played):",
        "",
        "```yaml", BASE_SPEC.rstrip(), "```", "",
        "## YAML keys", "",
    ]
    by_section = {}
    for k in keys:
        by_section.setdefault(k["section"], []).append(k)
    order = [s for s, _ in SECTIONS] + [s for s in by_section if s not in dict(SECTIONS)]
    titles = dict(SECTIONS)
    for sec in order:
        items = by_section.get(sec)
        if not items:
            continue
        lines += [f"### {titles.get(sec, sec)}", ""]
        for k in items:
            if "value" in k:
                continue
            e = es.get(k["id"], {})
            name = k["key"]
            lines.append(f"#### `{name}`")
            lines.append("")
            req = " (required)" if k["required"] else ""
            lines.append(f"*Type:* {_esc(inv.schema_type(k['schema']))}{req}. *Default:* "
                         f"{_esc(e.get('default', '-'))}. *Id:* `{k['id']}`")
            lines.append("")
            lines.append(e.get("text", ""))
            vals = [v for v in items if v.get("value") is not None and v["id"].startswith(k["id"] + "=")]
            if vals:
                lines.append("")
                for v in vals:
                    lines.append(f"- `{v['value']}`: {es.get(v['id'], '')}")
            if "example" in e:
                lines.append("")
                lines.append("Example:" + ("" if isinstance(e["example"], str) else " " + _example_md(e["example"])))
                if isinstance(e["example"], str):
                    lines.append(_example_md(e["example"]).rstrip())
            lines.append("")
    lines += ["## The rule language", "",
              "Rules are strings inside the YAML. Grammar: `grammar/rules.lark` (Lark, LALR). A rule is at",
              "most 20 000 characters and 60 brackets deep; `#` starts a comment. Ids are the grammar's rule",
              "and alias names.", ""]
    groups = [("Statements and blocks", lambda c: c["name"].endswith(("_stmt", "_clause")) or c["name"] in (
        "block", "start_effects", "target", "target_name", "target_index")),
              ("Expressions", lambda c: True)]
    constructs = [c for c in inv.grammar_constructs() if c["kind"] == "grammar"]
    done = set()
    for title, pred in groups:
        lines += [f"### {title}", "", "| construct | meaning | example |", "| --- | --- | --- |"]
        for c in constructs:
            if c["id"] in done or not pred(c):
                continue
            done.add(c["id"])
            lines.append(_row(f"`{c['name']}`", es.get(c["id"], {})))
        lines.append("")
    lines += ["### Operators", "", "| operator | see |", "| --- | --- |"]
    for c in inv.grammar_constructs():
        if c["kind"] == "operator":
            e = es.get(c["id"], {})
            see = e.get("see")
            lines.append(f"| `{_esc(c['name'])}` | {('`' + see + '`') if see else _esc(e.get('text', ''))} |")
    lines += ["", "### Names", "", "| name | meaning | example |", "| --- | --- | --- |"]
    for c in inv.constants():
        lines.append(_row(f"`{c['name']}`", es.get(c["id"], {})))
    lines += ["", "Also: `it` (the card being placed, in a card's `zone` rule), `p` (the player, in `scoring`),",
              "`end` (the phase target that ends the game), `skip` (the pass of an optional step; reserved).", "",
              "### Built-in functions", "", "| built-in | kind | meaning | example |", "| --- | --- | --- | --- |"]
    for b in inv.builtins():
        e = es.get(b["id"], {})
        kind = "effect" if b["effect"] else "value"
        ex = e.get("example", {})
        exs = ex.get("expr") or ex.get("effects") or ""
        lines.append(f"| `{_esc(e.get('signature', b['name']))}` | {kind} | {_esc(e.get('text', ''))} | `{_esc(exs)}` |")
    lines.append("")
    return "\n".join(lines)


def _row(name, e) -> str:
    if "see" in e and "text" not in e:
        return f"| {name} | see `{e['see']}` | |"
    ex = e.get("example", {})
    exs = ex.get("expr") or ex.get("effects") or "" if isinstance(ex, dict) else ""
    text = e.get("text", "") + (f" (see `{e['see']}`)" if "see" in e else "")
    return f"| {name} | {_esc(text)} | {('`' + _esc(exs) + '`') if exs else ''} |"


def main(argv=None) -> int:
    import argparse
    import os
    import sys
    ap = argparse.ArgumentParser(prog="python -m gamespec.authoring.reference")
    ap.add_argument("--write", action="store_true", help="write docs/reference.md")
    ap.add_argument("--check", action="store_true", help="exit 1 when an entry is missing or the file is stale")
    ap.add_argument("--out", default=os.path.join("docs", "reference.md"))
    a = ap.parse_args(argv)
    problems = missing()
    for p in problems:
        print(p, file=sys.stderr)
    text = render()
    if a.write:
        with open(a.out, "w", encoding="utf-8") as f:
            f.write(text)
        print(f"wrote {a.out}")
    elif a.check:
        try:
            with open(a.out, encoding="utf-8") as f:
                stale = f.read() != text
        except OSError:
            stale = True
        if stale:
            print(f"{a.out} is stale: run python -m gamespec.authoring.reference --write", file=sys.stderr)
            return 1
    else:
        sys.stdout.write(text)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
