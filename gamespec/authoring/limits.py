"""gamespec/mirrors.py LIMITS + the schema's budget maxima → the table of limits in docs/language.md.

    python -m gamespec.authoring.limits --write     # regenerate the table in docs/language.md
    python -m gamespec.authoring.limits --check     # exit 1 if the table there is stale

The table lies between BEGIN and END in docs/language.md ("Limits"); tests/test_limits_table.py
holds it equal to what `table()` makes, so a limit changed in mirrors.py shows in the docs.
"""
from __future__ import annotations

import json
import os
import sys

BEGIN = "<!-- limits table: made by python -m gamespec.authoring.limits --write; do not edit -->"
END = "<!-- end of the limits table -->"
DOC = os.path.join("docs", "language.md")

_WHERE = {"header": "both engines (a `#define` of runtime.h)", "emitted": "both engines (handed to the C generator)",
          "python": "the Python stages (C meets it only through values handed over)"}
_BUDGETS = ("steps_per_decision", "decisions_per_game", "steps_per_game")


def _n(v: int) -> str:
    """A number as the docs write it: 100 000."""
    return f"{v:,}".replace(",", " ")


def _schema_max():
    from importlib import resources
    schema = json.loads(resources.files("gamespec").joinpath("schema.json").read_text(encoding="utf-8"))
    props = schema["properties"]["limits"]["properties"]
    return {k: props[k]["maximum"] for k in _BUDGETS}


def table() -> str:
    """The markdown table of every limit of gamespec/mirrors.py, then what listing choices costs."""
    from gamespec.mirrors import LIMIT, LIMITS
    top = _schema_max()
    rows = ["| Limit | Value | What it bounds | Held by |", "|---|---|---|---|"]
    for x in LIMITS:
        what = x.what.replace("|", "\\|")
        budget = x.name.lower()
        if budget in top:
            what += f"; a spec may set it up to {_n(top[budget])} (`limits.{budget}`)"
        rows.append(f"| `{x.name}` | {_n(x.value)} | {what} | {_WHERE[x.c]} |")
    rows += [
        "",
        f"Listing a decision's choices: a parameter has at most {_n(LIMIT['MAX_CHOICES'])} values (a `number` "
        f"range, the distinct subsets of a `size` parameter: beyond, a run-time spec error, check `budget`); C "
        f"walks at most {_n(LIMIT['MAX_COMBOS_WALKED'])} subsets of one parameter to find them. Each value "
        "listed costs the steps of the rules it runs (its `where`, then the action's `if` and cost), charged "
        f"to the decision's step budget (`limits.steps_per_decision`, default {_n(LIMIT['STEPS_PER_DECISION'])}) "
        "with the effect that led there: a subset parameter over a hand of n cards tries up to 2^n subsets, "
        "so a `where` of 20 steps over 12 cards (4 095 subsets) costs about 80 000 steps. `can()` tries the "
        "same values, a step each. `gamespec check --strict` warns when a sampled decision uses more than "
        "half its step budget (`near-budget`).",
    ]
    return "\n".join(rows)


def _replace(text: str) -> str:
    i, j = text.index(BEGIN), text.index(END)
    return text[:i + len(BEGIN)] + "\n" + table() + "\n" + text[j:]


def main(argv=None) -> int:
    args = sys.argv[1:] if argv is None else argv
    path = DOC
    text = open(path, encoding="utf-8").read()
    want = _replace(text)
    if "--write" in args:
        if want != text:
            with open(path, "w", encoding="utf-8") as f:
                f.write(want)
        print(f"wrote the limits table in {path}")
        return 0
    if want != text:
        print(f"{path}: the limits table is stale: run python -m gamespec.authoring.limits --write")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
