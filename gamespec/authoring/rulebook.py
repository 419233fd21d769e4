"""Game + players + options → the rulebook in words (Markdown or HTML), for people who never read YAML.

Rules are re-parsed from their text (so defines keep their names and become a glossary) and put
into words by `Words`; anything it has no phrase for is shown as code, never dropped.
"""
from __future__ import annotations

import html as _html
from collections import Counter

from gamespec.spec import ast as A
from gamespec.spec.builtins import BUILTINS, TABLE
from gamespec.spec.visibility import VISIBILITIES

_CMP = {"==": "is", "!=": "is not", "<": "is less than", "<=": "is at most", ">": "is more than",
        ">=": "is at least", "in": "is in", "not in": "is not in"}
_BIN = {"+": "plus", "-": "minus", "*": "times", "//": "divided by (rounded down)", "%": "modulo",
        "**": "to the power of"}
_AGG = {b.name: b.agg_words for b in TABLE if b.agg_words}      # the built-ins' words: their table


class Words:
    """AST → English. `actor` reads as 'the player', `current` as 'the current player'."""

    def __init__(self, spec):
        self.spec = spec
        self.defines = set()
        self.functions = set(getattr(spec, "functions", None) or {})
        self.effects = set(spec.checker.named_effects) if getattr(spec, "checker", None) else set()

    # -- expressions
    def e(self, n) -> str:
        m = getattr(self, "_" + type(n).__name__, None)
        if m is not None:
            return m(n)
        # a construct with no phrase yet (added to the language later): its name and its parts
        parts = [self.e(c) for c in n.children()] if isinstance(n, A.Node) else []
        return f"`{type(n).__name__}`(" + "; ".join(parts) + ")"

    def _Const(self, n):
        v = n.value
        if v is None:
            return "nothing"
        if isinstance(v, bool):
            return "true" if v else "false"
        return f"'{v}'" if isinstance(v, str) else str(v)

    def _Name(self, n):
        i = n.id
        fixed = {"players": "all players", "num_players": "the number of players", "num_teams": "the number of teams",
                 "current": "the current player", "actor": "the acting player", "it": "the card"}
        if i in fixed:
            return fixed[i]
        if i in self.spec.zones:
            return f"*{i}*"
        if i in self.spec.variables:
            return f"**{i}**"
        if i in self.spec.options:
            return f"option *{i}*"
        if i in self.defines or i in self.functions:
            return f"*{i}*"
        return i

    def _ListLit(self, n):
        return "[" + ", ".join(self.e(x) for x in n.items) + "]"

    def _Comp(self, n):
        s = f"{self.e(n.elt)} for each {n.var} in {self.e(n.iter)}"
        if n.cond is not None:
            s += f" where {self.e(n.cond)}"
        return s if n.gen else f"the list of {s}"

    def _aggregate(self, f, c, kw):
        """`f(elt for var in iter if cond)` as a sentence."""
        rng = f"{c.var} in {self.e(c.iter)}" + (f" where {self.e(c.cond)}" if c.cond is not None else "")
        plain = isinstance(c.elt, A.Name) and c.elt.id == c.var
        elt = self.e(c.elt)
        if f == "any":
            return f"for at least one {rng}, {elt}"
        if f == "all":
            return f"for every {rng}, {elt}"
        if f == "count":
            return f"the number of {rng}" if plain else f"the number of {rng} for which {elt}"
        if f in ("first", "last"):
            return f"the {f} {rng}" + ("" if plain else f": {elt}")
        if f == "sorted":
            return f"{elt} for each {rng}, in increasing order"
        word = {"sum": "the sum", "max": "the greatest", "min": "the least", "product": "the product"}[f]
        s = f"{word} of {elt} over each {rng}"
        if "default" in kw:
            s += f" ({kw['default']} if there are none)"
        return s

    def _keyed(self, f, c, kwargs):
        """`max(e for x in xs if c, key=k)` and `sorted(..., key=k)` as words."""
        rng = f"{c.var} in {self.e(c.iter)}" + (f" where {self.e(c.cond)}" if c.cond is not None else "")
        key = self.e(kwargs["key"])
        plain = isinstance(c.elt, A.Name) and c.elt.id == c.var
        what = "" if plain else f" ({self.e(c.elt)})"
        if f == "sorted":
            return f"each {rng}{what}, in increasing order of {key}"
        s = f"the {c.var}{what} of {rng} with the {'greatest' if f == 'max' else 'least'} {key} (the first such)"
        if "default" in kwargs:
            s += f" ({self.e(kwargs['default'])} if there are none)"
        return s

    def _Index(self, n):
        if isinstance(n.obj, A.Name):
            o = n.obj.id
            if o in self.spec.zones:
                z = self.spec.zones[o]
                who = self.e(n.index)
                return f"*{o}* of {who}" if z.per_player else f"*{o}* {who}"
            if o in self.spec.variables:
                return f"**{o}** of {self.e(n.index)}"
            if o in self.spec.tables:
                return f"table *{o}* at {self.e(n.index)}"
        return f"item {self.e(n.index)} of {self.e(n.obj)}"

    def _Attr(self, n):
        return f"the {'class' if n.name == 'type' else n.name} of {self.e(n.obj)}"

    def _BinOp(self, n):
        return f"{self.e(n.left)} {_BIN.get(n.op, n.op)} {self.e(n.right)}"

    def _Compare(self, n):
        return f"{self.e(n.left)} {_CMP.get(n.op, n.op)} {self.e(n.right)}"

    def _BoolOp(self, n):
        def side(x):
            s = self.e(x)
            return f"({s})" if isinstance(x, A.BoolOp) and x.op != n.op else s
        return f"{side(n.left)} {n.op} {side(n.right)}"

    def _Unary(self, n):
        return f"not ({self.e(n.operand)})" if n.op == "not" else f"minus {self.e(n.operand)}"

    def _IfExp(self, n):
        return f"{self.e(n.body)} if {self.e(n.cond)}, else {self.e(n.orelse)}"

    def _Call(self, n):
        f, a = n.func, n.args
        if "key" in n.kwargs and len(a) == 1 and isinstance(a[0], A.Comp) and a[0].gen and f in ("max", "min", "sorted"):
            return self._keyed(f, a[0], n.kwargs)
        kw = {k: self.e(v) for k, v in n.kwargs.items()}
        if f in self.defines or f in self.functions:
            return f"*{f}*" + (f"({', '.join(self.e(x) for x in a)})" if a else "")
        if f in _AGG and len(a) == 1 and isinstance(a[0], A.Comp) and a[0].gen:
            return self._aggregate(f, a[0], kw)
        if f in _AGG and a:
            s = f"{_AGG[f]} {self.e(a[0])}"
            if len(a) == 2 and f in ("first", "last"):
                s = f"the {f} {self.e(a[1])} of {self.e(a[0])}"
            elif len(a) > 1:
                s = f"{_AGG[f]} of {', '.join(self.e(x) for x in a)}"
            if "default" in kw:
                s += f" ({kw['default']} if there are none)"
            return s
        simple = len(a) > 1 and isinstance(a[1], (A.Const, A.Name))
        b = BUILTINS.get(f)
        if f == "mark" and len(a) == 2 and isinstance(a[1], A.Const):
            return f"the *{a[1].value}* mark on {self.e(a[0])}"
        args = [self.e(x) for x in a]
        if f in ("is_max", "is_sole_max") and len(a) == 2:
            return b.words2.format(*args) + (f" and at least {kw['min']}" if "min" in kw else "")
        if f in ("top", "bottom") and len(a) == 2 and not simple:
            return f"the {f} cards of {args[0]}, as many as {args[1]}"
        if b is not None and len(a) == 1 and b.words:      # named arguments said after: can(act, card=c)
            return b.words.format(*args) + (f" ({', '.join(f'{k} = {v}' for k, v in kw.items())})" if kw else "")
        if b is not None and len(a) == 2 and b.words2:
            return b.words2.format(*args)
        return f"`{f}`(" + ", ".join(args + [f"{k}={v}" for k, v in kw.items()]) + ")"

    # -- statements
    def stmts(self, ss) -> list:
        out = []
        for s in ss:
            out.extend(self.stmt(s))
        return out

    def stmt(self, s) -> list:
        if isinstance(s, A.Let):
            return [f"Let {s.name} be {self.e(s.value)}."]
        if isinstance(s, A.Assign):
            t, v = self.e(s.target if not isinstance(s.target, A.Index) else s.target), self.e(s.value)
            return [{"=": f"Set {t} to {v}.", "+=": f"Add {v} to {t}.", "-=": f"Take {v} from {t}."}[s.op]]
        if isinstance(s, A.CallStmt):
            c = s.call
            a = [self.e(x) for x in c.args]
            kw = {k: getattr(v, "value", None) for k, v in c.kwargs.items()}
            if c.func == "move":
                face = " face down" if kw.get("face") == "down" else (" face up" if kw.get("face") == "up" else "")
                at = " at the bottom" if kw.get("at") == "bottom" else ""
                return [f"Move {a[0]} to {a[1]}{face}{at}."]
            if c.func == "deal":
                n = a[2] if len(a) > 2 else "1"
                face = " face down" if kw.get("face") == "down" else ""
                return [f"Deal {n} card{'' if n == '1' else 's'} from {a[0]} to {a[1]}{face}."]
            if c.func == "shuffle":
                return [f"Shuffle {a[0]}."]
            if c.func == "set_mark" and len(c.args) == 3 and isinstance(c.args[1], A.Const):
                return [f"Set the *{c.args[1].value}* mark on {a[0]} to {a[2]}."]
            if c.func == "reveal":
                return [f"{a[1][0].upper() + a[1][1:]} secretly looks at {a[0]}."]
            b = BUILTINS.get(c.func)
            if b is not None and b.statement and b.words and len(a) == b.words.count("{"):
                return [b.words.format(*a)]
            if c.func in self.effects:      # a named effect: its steps are listed under "Named effects"
                return [f"Do *{c.func}*" + (f" with {', '.join(a)}" if a else "") + "."]
            return [f"`{c.func}`({', '.join(a)})."]
        if isinstance(s, A.If):
            out = []
            for i, (c, body) in enumerate(s.branches):
                out.append({"text": f"{'If' if i == 0 else 'Otherwise, if'} {self.e(c)}:", "sub": self.stmts(body)})
            if s.orelse:
                out.append({"text": "Otherwise:", "sub": self.stmts(s.orelse)})
            return out
        if isinstance(s, A.For):
            return [{"text": f"For each {s.var} in {self.e(s.iter)}:", "sub": self.stmts(s.body)}]
        if isinstance(s, A.While):
            return [{"text": f"As long as {self.e(s.cond)}:", "sub": self.stmts(s.body)}]
        if isinstance(s, A.Return):
            return [f"The value is {self.e(s.value)}."]
        parts = [self.e(c) for c in s.children()] if isinstance(s, A.Node) else []
        return [f"`{type(s).__name__}`(" + "; ".join(parts) + ")."]


def _reparse(rule, kind):
    from gamespec.spec.parser import Located, parse
    if rule is None:
        return None
    text = rule.text if rule.text else None
    if text is None:
        return rule.ast
    try:
        return parse(Located(text, rule.filename), kind)
    except Exception:
        return rule.ast


class Doc:
    """A tiny document model: blocks rendered to Markdown or HTML."""

    def __init__(self):
        self.blocks = []

    def h(self, level, text):
        self.blocks.append(("h", level, text))

    def p(self, text):
        self.blocks.append(("p", text))

    def ul(self, items, ordered=False):
        self.blocks.append(("ol" if ordered else "ul", items))

    def table(self, head, rows):
        self.blocks.append(("table", head, rows))

    def markdown(self) -> str:
        out = []
        for b in self.blocks:
            if b[0] == "h":
                out.append("#" * b[1] + " " + b[2])
            elif b[0] == "p":
                out.append(b[1])
            elif b[0] in ("ul", "ol"):
                out.append("\n".join(_md_items(b[1], b[0] == "ol", 0)))
            else:
                out.append("| " + " | ".join(b[1]) + " |\n| " + " | ".join("---" for _ in b[1]) + " |")
                out[-1] += "".join("\n| " + " | ".join(str(c).replace("|", "\\|") for c in r) + " |" for r in b[2])
        return "\n\n".join(out) + "\n"

    def html(self, title) -> str:
        import re

        def inline(t):
            t = _html.escape(str(t))
            t = re.sub(r"`([^`]*)`", r"<code>\1</code>", t)
            t = re.sub(r"\*\*([^*]+)\*\*", r"<b>\1</b>", t)
            return re.sub(r"\*([^*]+)\*", r"<i>\1</i>", t)

        def items(xs, ordered):
            tag = "ol" if ordered else "ul"
            s = f"<{tag}>"
            for x in xs:
                if isinstance(x, dict):
                    s += f"<li>{inline(x['text'])}{items(x['sub'], False)}</li>"
                else:
                    s += f"<li>{inline(x)}</li>"
            return s + f"</{tag}>"

        out = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{_html.escape(title)}</title>"
               "<style>body{font-family:sans-serif;max-width:50em;margin:auto}table{border-collapse:collapse}"
               "td,th{border:1px solid #999;padding:2px 6px}</style></head><body>"]
        for b in self.blocks:
            if b[0] == "h":
                out.append(f"<h{b[1]}>{inline(b[2])}</h{b[1]}>")
            elif b[0] == "p":
                out.append(f"<p>{inline(b[1])}</p>")
            elif b[0] in ("ul", "ol"):
                out.append(items(b[1], b[0] == "ol"))
            else:
                out.append("<table><tr>" + "".join(f"<th>{inline(c)}</th>" for c in b[1]) + "</tr>"
                           + "".join("<tr>" + "".join(f"<td>{inline(c)}</td>" for c in r) + "</tr>" for r in b[2])
                           + "</table>")
        return "\n".join(out) + "\n</body></html>\n"


def _md_items(xs, ordered, depth):
    out = []
    for i, x in enumerate(xs, 1):
        mark = f"{i}." if ordered else "-"
        pad = "   " * depth
        if isinstance(x, dict):
            out.append(f"{pad}{mark} {x['text']}")
            out.extend(_md_items(x["sub"], False, depth + 1))
        else:
            out.append(f"{pad}{mark} {x}")
    return out


def rulebook(game, players=None, options=None) -> Doc:
    spec = game.spec
    players = players or spec.min_players
    opts = game.check_options(options or {})
    rs = game.ruleset(players, opts)
    w = Words(spec)
    w.defines = set(spec.checker.defines) if spec.checker else set()
    d = Doc()
    d.h(1, f"{spec.name}: the rules")
    raw = spec.checker.data if spec.checker else {}
    if raw.get("description"):
        d.p(str(raw["description"]).strip())
    d.p(f"For {spec.min_players} to {spec.max_players} players. This rulebook is written for "
        f"**{players} players**" + (", options: " + ", ".join(f"{k} = {str(v).lower()}" for k, v in opts.items())
                                    if opts else "") + ".")
    if spec.options:
        d.h(2, "Options")
        d.table(["option", "default", "what it does"],
                [[k, str(v).lower(), str(raw["options"][k].get("doc", ""))] for k, v in spec.options.items()])

    d.h(2, "Components")
    counts = Counter(rs.face_of)
    rows = []
    for f, face in enumerate(rs.faces):
        attrs = ", ".join(f"{k} {v}" for k, v in face.items() if k != "type")
        rows.append([face["type"], rs.face_label[f], attrs or "-", str(counts[f])])
    d.table(["class", "card", "attributes", "copies"], rows)
    d.p(f"{len(rs.face_of)} cards in all.")
    d.h(2, "Where cards lie")
    zrows = []
    for z in spec.zones.values():
        form = ("one per player" if z.per_player else "one per team" if z.per_team else
                f"{len(z.keys)} of them ({', '.join(map(str, z.keys))})" if z.keys is not None else "one")
        doc = str((raw.get("zones") or {}).get(z.name, {}).get("doc", ""))
        zrows.append([z.name, "ordered pile" if z.kind == "pile" else "unordered set", form,
                      VISIBILITIES[z.visibility].words, doc])
    d.table(["zone", "kind", "how many", "who sees the cards", "notes"], zrows)
    d.p("Everyone always sees how many cards a zone holds. A player remembers a card they saw, until it is shuffled.")
    if spec.variables:
        d.h(2, "Counters and markers")
        d.table(["name", "per player", "starts at", "who sees it", "notes"],
                [[v.name, "yes" if v.per_player else "per team" if v.per_team else "no",
                  "none" if v.initial is None else str(v.initial).lower(),
                  VISIBILITIES[v.visibility].words if v.visibility != "owner" else
                  ("its team only" if v.per_team else "its player only"),
                  str((raw.get("variables") or {}).get(v.name, {}).get("doc", ""))] for v in spec.variables.values()])
    if getattr(spec, "marks", None):
        d.h(2, "Marks on cards")
        d.p("Each card carries these marks wherever it goes.")
        d.table(["mark", "starts at", "who sees it", "on a shuffle", "notes"],
                [[m.name, str(m.initial).lower(), VISIBILITIES[m.visibility].words,
                  "back to its start" if m.reset_on_shuffle else "unchanged",
                  str((raw.get("marks") or {}).get(m.name, {}).get("doc", ""))] for m in spec.marks.values()])
    score_rules = [r for r in [spec.score] + list(spec.tie_breakers) if r is not None]
    scoring_tables = [t for t in spec.tables if any(
        isinstance(n, A.Name) and n.id == t for r in score_rules for n in A.walk(_reparse(r, "expr")))]
    for t, vals in spec.tables.items():
        if t not in scoring_tables:
            d.h(3, f"Table *{t}*")
            d.table(["key", "value"], [[str(k), str(v)] for k, v in vals.items()])
    if spec.teams_of is not None:
        d.h(2, "Teams")
        d.p(f"Player p is in team {w.e(_reparse(spec.teams_of, 'expr'))}: "
            + "; ".join(f"team {t}: " + ", ".join(f"player {p}" for p in ms) for t, ms in enumerate(rs.team_members))
            + ". Everyone knows the teams.")
    if raw.get("define"):
        d.h(2, "Terms")
        items = []
        for key, body in raw["define"].items():
            from gamespec.spec.parser import Located, parse
            try:
                text = w.e(parse(Located(str(body), spec.filename), "expr"))
            except Exception:
                text = f"`{body}`"
            items.append(f"*{key}*: {text}")
        d.ul(items)

    effs = (spec.checker.named_effects if spec.checker else {})
    if effs:
        d.h(2, "Named effects")
        d.p("Blocks of effects the rules below refer to by name:")
        d.ul([{"text": f"*{name}*" + (f"({', '.join(params)})" if params else "") + ":",
               "sub": w.stmts(_reparse(r, "effects"))} for name, (params, r) in effs.items()])
    if getattr(spec, "functions", None):
        d.h(2, "Computations")
        d.p("Values worked out step by step (each may use the others, and itself, on fewer cards):")
        d.ul([{"text": f"*{f.name}*({', '.join(f.params)}):", "sub": w.stmts(_reparse(f.rule, "effects"))}
              for f in spec.functions.values()])

    d.h(2, "Set-up")
    if spec.on_begin is not None:
        d.ul(w.stmts(_reparse(spec.on_begin, "effects")), ordered=True)
    else:
        d.p("Nothing to set up: the cards start where the components table says.")

    d.h(2, "How a game flows")
    d.p(f"The game starts with the phase *{spec.start}*.")
    for ph in spec.phases.values():
        d.h(3, f"Phase *{ph.name}*")
        items = []
        if ph.on_begin is not None:
            items.append({"text": "When the phase begins:", "sub": w.stmts(_reparse(ph.on_begin, "effects"))})
        t = ph.turn
        if t is not None:
            first = _who(w, t.first) if t.first else "the current player"
            nxt = w.e(_reparse(t.next, "expr")) if t.next else "the next player clockwise"
            items.append(f"Players take turns: {first} plays first; after each turn, {nxt} plays.")
            if t.on_begin is not None:
                items.append({"text": "At the start of every turn:", "sub": w.stmts(_reparse(t.on_begin, "effects"))})
            items.append({"text": "A turn:", "sub": _steps(w, t.steps, spec)})
            if t.on_end is not None:
                items.append({"text": "At the end of every turn:", "sub": w.stmts(_reparse(t.on_end, "effects"))})
            if t.end_if is not None:
                items.append(f"A turn ends at once when {w.e(_reparse(t.end_if, 'expr'))}.")
        if ph.end_if is not None:
            items.append(f"The phase ends (checked between turns) when {w.e(_reparse(ph.end_if, 'expr'))}.")
        if ph.on_end is not None:
            items.append({"text": "When the phase ends:", "sub": w.stmts(_reparse(ph.on_end, "effects"))})
        for cond, target in ph.next:
            go = "the game ends" if target == "end" else f"phase *{target}* follows"
            items.append(f"Then, {('if ' + w.e(_reparse(cond, 'expr')) + ', ') if cond else ''}{go}.")
        d.ul(items)
    if spec.triggers:
        d.h(3, "Happens by itself")
        d.p("After every effect, each of these happens whenever its condition holds:")
        d.ul([{"text": f"*{n}*: when {w.e(_reparse(c, 'expr'))}:", "sub": w.stmts(_reparse(e, "effects"))}
              for n, c, e in spec.triggers])

    d.h(2, "Actions")
    for a in spec.actions.values():
        d.h(3, f"{_label(a.label)} (*{a.name}*)" if a.label else a.name)
        items = []
        for prm in a.params:
            items.append(_param(w, prm, spec))
        if a.cond is not None:
            items.append(f"Allowed only if {w.e(_reparse(a.cond, 'expr'))}.")
        for var, amount in a.cost:
            items.append(f"Costs {w.e(_reparse(amount, 'expr'))} from the player's **{var}** (they must have that many).")
        if a.effect is not None:
            items.append({"text": "Effect:", "sub": w.stmts(_reparse(a.effect, "effects"))})
        d.ul(items or ["No choice to make and no effect."])

    d.h(2, "End of the game")
    ends = []
    if spec.end_if is not None:
        ends.append(f"The game ends at once, after any effect, when {w.e(_reparse(spec.end_if, 'expr'))}.")
    for ph in spec.phases.values():
        for cond, target in ph.next:
            if target == "end":
                ends.append(f"When phase *{ph.name}* ends" + (f", if {w.e(_reparse(cond, 'expr'))}" if cond else "") + ".")
    ends.append("When an effect says so (\"the game ends now\").")
    d.ul(ends)
    if spec.on_end is not None:
        d.p("When the game ends:")
        d.ul(w.stmts(_reparse(spec.on_end, "effects")))

    d.h(2, "Scoring")
    if spec.score is not None and spec.per_team:
        d.p(f"Each team t scores {w.e(_reparse(spec.score, 'expr'))}, once; every member of a team has its score.")
    if spec.score is not None:
        if not spec.per_team:
            d.p(f"Each player p scores {w.e(_reparse(spec.score, 'expr'))}.")
        for t in scoring_tables:
            d.h(3, f"Table *{t}*")
            d.table(["key", "points"], [[str(k), str(v)] for k, v in spec.tables[t].items()])
        d.p(f"The {'highest' if spec.winner == 'highest' else 'lowest'} score wins.")
        if spec.tie_breakers:
            d.p("Ties are broken by, in order (more is better):")
            d.ul([w.e(_reparse(t, "expr")) for t in spec.tie_breakers], ordered=True)
        d.p("A tie that remains is shared.")
    else:
        d.p("There is no score: every player shares the win.")
    return d


def _param(w, prm, spec):
    if prm.kind == "card":
        s = f"Choose a card *{prm.name}* from {w.e(_reparse(prm.source, 'expr'))}"
    elif prm.kind == "subset":
        s = (f"Choose {w.e(_reparse(prm.lo, 'expr'))} to {w.e(_reparse(prm.hi, 'expr'))} cards *{prm.name}* from "
             f"{w.e(_reparse(prm.source, 'expr'))}")
    elif prm.kind == "zone":
        s = f"Choose *{prm.name}*, one of *{prm.family}*"
    elif prm.kind == "player":
        s = f"Choose a player *{prm.name}*"
    elif prm.kind == "number":
        s = f"Choose a number *{prm.name}* from {w.e(_reparse(prm.lo, 'expr'))} to {w.e(_reparse(prm.hi, 'expr'))}"
    elif prm.choices is not None:
        s = f"Choose *{prm.name}*: one of {', '.join(map(str, prm.choices))}"
    else:
        s = f"Choose *{prm.name}* from {w.e(_reparse(prm.source, 'expr'))}"
    if prm.where is not None:
        s += f", such that {w.e(_reparse(prm.where, 'expr'))}"
    return s + "."


def _steps(w, steps, spec) -> list:
    out = []
    for st in steps:
        guard = f"If {w.e(_reparse(st.guard, 'expr'))}: " if st.guard is not None else ""
        if st.kind == "do":
            sub = w.stmts(_reparse(st.effect, "effects")) if st.effect else []
            out.append({"text": guard + "Do:", "sub": sub} if len(sub) != 1 or not isinstance(sub[0], str)
                       else guard + sub[0])
        elif st.kind == "choose":
            who = _who(w, st.player) if st.player is not None else "the current player"
            names = [_action_name(spec, a) for a in st.actions]
            s = f"{guard}{who[0].upper() + who[1:]} chooses one action: {', '.join(names)}"
            if st.optional:
                s += f", or passes (\"{st.optional}\")"
            if st.fallback:
                s += f"; only if none is possible: {', '.join(_action_name(spec, a) for a in st.fallback)}"
            if st.repeat:
                s += "; then again, until they pass"
            if st.if_none == "skip":
                s += "; if no action is possible, this is skipped"
            out.append(s + ".")
        elif st.kind == "if":
            out.append({"text": f"If {w.e(_reparse(st.cond, 'expr'))}:", "sub": _steps(w, st.body, spec)})
            if st.orelse:
                out.append({"text": "Otherwise:", "sub": _steps(w, st.orelse, spec)})
        elif st.kind == "repeat":
            out.append({"text": guard + f"Repeat, until {w.e(_reparse(st.cond, 'expr'))}:", "sub": _steps(w, st.body, spec)})
        elif st.kind == "while":
            out.append({"text": guard + f"As long as {w.e(_reparse(st.cond, 'expr'))}:", "sub": _steps(w, st.body, spec)})
        elif st.kind == "react":        # docs/language.md, "Reaction windows"
            names = [_action_name(spec, a) for a in st.actions]
            who = w.e(_reparse(st.iter, "expr"))
            how = ("at the same time, in secret (the choices are revealed when all have chosen)"
                   if st.ask == "at_once" else "one at a time, in that order")
            until = ("every response is carried out, in that order" if st.until == "all" else
                     "the first of them, in that order, who responds takes it (the other choices are revealed "
                     "without effect)" if st.ask == "at_once" else
                     "the first who responds takes it and the players after them are not asked")
            s = (f"{guard}A chance to respond: {who} may each respond {how} with {', '.join(names)}, or pass "
                 f"(\"{st.optional}\"); {until}; a player who can only pass is "
                 + ("skipped" if st.if_none == "skip" else "still asked") + ".")
            if st.bind:
                s += (f" *{st.bind}* is the list of those who responded." if st.until == "all"
                      else f" *{st.bind}* is the player who responded.")
            out.append(s)
            if st.body:
                out.append({"text": "If someone responded:", "sub": _steps(w, st.body, spec)})
            if st.orelse:
                out.append({"text": "If nobody did:", "sub": _steps(w, st.orelse, spec)})
        elif st.kind == "for" and st.simultaneous:     # docs/language.md, "Simultaneous choices"
            inner = st.body[0]
            names = [_action_name(spec, a) for a in inner.actions]
            s = (f"{guard}At the same time, {w.e(_reparse(st.iter, 'expr'))} each choose one action in secret: "
                 f"{', '.join(names)}")
            if inner.optional:
                s += f", or pass (\"{inner.optional}\")"
            s += "; when all have chosen, the choices are revealed and carried out"
            s += (f" in ascending order of {w.e(_reparse(st.order, 'expr'))}" if st.order is not None
                  else " in that order of players")
            out.append(s + ".")
        elif st.kind == "for":
            out.append({"text": guard + f"For each {st.var} in {w.e(_reparse(st.iter, 'expr'))}:",
                        "sub": _steps(w, st.body, spec)})
    return out


def _who(w, rule):
    """A player expression as a subject: a number or a bare name reads 'player N'."""
    node = _reparse(rule, "expr")
    text = w.e(node)
    if isinstance(node, (A.Const, A.Name)) and not text.startswith("the "):
        return f"player {text}"
    return text


def _action_name(spec, name):
    a = spec.actions.get(name)
    return f"\"{_label(a.label)}\"" if a is not None and a.label else name


_END_CARD = __import__("re").compile(r"\{\s*(top|bottom)\(\s*([^{}()]+?)\s*\)\s*\}")


def _label(text):
    """A label's placeholders in italics; `{top(z)}` says it is a card (the one at that end, shown
    as the chooser sees it)."""
    text = _END_CARD.sub(lambda m: f"{{the card at {m.group(1)}({m.group(2)})}}", text)
    return text.replace("{", "*").replace("}", "*")


def explain(game, players=None, options=None, fmt="md") -> str:
    d = rulebook(game, players, options)
    return d.html(f"{game.name}: the rules") if fmt == "html" else d.markdown()


def golden_specs(root="."):
    """The specs with golden rulebooks: every games/*.yaml, as (name, path)."""
    import glob
    import os
    return [(os.path.splitext(os.path.basename(p))[0], p)
            for p in sorted(glob.glob(os.path.join(root, "games", "*.yaml")))]


def main(argv=None) -> int:
    """python -m gamespec.authoring.rulebook --write-golden: regenerate tests/golden/*.md."""
    import argparse
    import os

    import gamespec
    ap = argparse.ArgumentParser(prog="python -m gamespec.authoring.rulebook")
    ap.add_argument("--write-golden", action="store_true")
    a = ap.parse_args(argv)
    if a.write_golden:
        os.makedirs(os.path.join("tests", "golden"), exist_ok=True)
        for g, path in golden_specs():
            text = explain(gamespec.load(path))
            with open(os.path.join("tests", "golden", f"{g}.md"), "w", encoding="utf-8") as f:
                f.write(text)
            print(f"wrote tests/golden/{g}.md")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
