"""Rule strings → AST: Lark LALR parse with size and depth caps, positions mapped into the YAML file."""
from __future__ import annotations

import functools
import hashlib
import json
import re
from pathlib import Path

import lark
from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from . import ast as A
from ..errors import SpecError

MAX_RULE_CHARS = 20_000     # a rule longer than this is surely a mistake or an attack
MAX_RULE_DEPTH = 60         # nesting of brackets and operators, checked before any recursive pass

_TOKEN_NAMES = {
    "LPAR": "'('", "RPAR": "')'", "LSQB": "'['", "RSQB": "']'", "LBRACE": "'{'", "RBRACE": "'}'",
    "COMMA": "','", "DOT": "'.'", "SEMICOLON": "';'", "EQUAL": "'='", "NAME": "a name", "INT": "a number",
    "STRING": "a string", "COMP_OP": "a comparison", "ADD_OP": "'+' or '-'", "MUL_OP": "'*', '//' or '%'",
    "MINUS": "'-'", "ASSIGN_OP": "'=', '+=' or '-='", "$END": "the end of the rule", "POW_OP": "'**'",
    "IF": "'if'", "ELSE": "'else'", "FOR": "'for'", "IN": "'in'", "COLON": "':'", "OR": "'or'",
    "AND": "'and'", "NOT": "'not'", "ELIF": "'elif'", "LET": "'let'", "WHILE": "'while'",
    "RETURN": "'return'",
}


# Bad examples -> friendly messages (Lark's match_examples); the table doubles as test data.
SYNTAX_EXAMPLES = {
    "expr": {
        "'=' assigns; to compare two values write '=='": ["a = 1", "x == 1 and y = 2"],
        "a '(' is never closed": ["f(a", "(a + b", "max(1, 2"],
        "a '[' is never closed": ["[1, 2", "xs[1"],
        "two values with nothing between them; a missing operator or ','?": ["a b", "f(a b)", "[1 2]"],
        "the expression ends too early after an operator": ["a +", "a and", "not"],
        "'if' in a value needs 'else': A if CONDITION else B": ["a if b", "f(a if b)", "[a if b]"],
    },
    "effects": {
        "a '{' block is never closed": ["if a { b = 1", "for x in xs { move(x, d)"],
        "'if' is written: if CONDITION { EFFECTS }": ["if a b = 1", "if a then { b = 1 }"],
        "'for' is written: for NAME in LIST { EFFECTS }": ["for x xs { }", "for in xs { }"],
        "an effect is an assignment or a call such as move(...)": ["1 + 2", "a", "x.y = 2"],
        "a value over a list (max(x for x in xs), ...) is not an effect; use it in one: y = max(...)":
            ["max(c.value for c in cs)", "sum(x for x in xs if x > 1)"],
        "'=' assigns; to compare two values write '=='": ["if a = 1 { b = 2 }"],
        "'if' in a value needs 'else': A if CONDITION else B": ["x = a if b", "let y = 1 if a"],
        "a conditional value that ends an effect is not chained; write x = a if c else (b if d else e)":
            ["x = a if c else b if d else e", "let y = 1 if a else 2 if b else 3"],
    },
}


def grammar_text() -> str:
    """The grammar: package data when installed, the source tree's grammar/ otherwise."""
    try:
        from importlib.resources import files
        return (files("gamespec.grammar") / "rules.lark").read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError, OSError):
        return (Path(__file__).resolve().parents[2] / "grammar" / "rules.lark").read_text(encoding="utf-8")


LARK_OPTIONS = dict(parser="lalr", start=["start_effects", "start_expr"], propagate_positions=True,
                    maybe_placeholders=True)
TABLES_FILE = "rules_tables.json"   # the LALR tables built ahead of time, beside the grammar


@functools.lru_cache(maxsize=1)
def _parser() -> Lark:
    """The LALR parser, from the tables shipped as package data (plain JSON: loading never runs
    code, unlike a pickled cache). Tables built for another grammar or Lark version are ignored and
    the parser is built in memory instead (about 0.1 s)."""
    text = grammar_text()
    stored = _stored_tables()
    if stored is not None and stored.get("grammar_sha256") == _sha(text) \
            and stored.get("lark") == lark.__version__:
        try:
            return Lark._load_from_dict(stored["data"], stored["memo"])
        except Exception:   # tables Lark cannot read: build them instead, never fail here
            pass
    return Lark(text, **LARK_OPTIONS)


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _stored_tables():
    try:
        from importlib.resources import files
        raw = (files("gamespec.grammar") / TABLES_FILE).read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError, OSError):
        try:
            raw = (Path(__file__).resolve().parents[2] / "grammar" / TABLES_FILE).read_text(encoding="utf-8")
        except OSError:
            return None
    try:
        return json.loads(raw, object_hook=_int_keys)
    except ValueError:
        return None


def _int_keys(d):
    return {k: v for k, v in d["$int"]} if set(d) == {"$int"} else d


def _json_ready(x):
    if isinstance(x, dict):
        if x and all(isinstance(k, int) for k in x):   # JSON keys are strings: keep ints as pairs
            return {"$int": [[k, _json_ready(v)] for k, v in sorted(x.items())]}
        return {k: _json_ready(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_json_ready(v) for v in x]
    return x


def build_tables(text: str | None = None) -> str:
    """The JSON text of grammar/rules_tables.json: the same bytes for the same grammar and Lark
    version (Lark numbers states and rules arbitrarily; they are renumbered canonically)."""
    from lark.grammar import Rule
    from lark.lexer import TerminalDef
    text = grammar_text() if text is None else text
    data, memo = Lark(text, **LARK_OPTIONS).memo_serialize([TerminalDef, Rule])
    data, memo = _canonical(data, memo)
    return json.dumps({"grammar_sha256": _sha(text), "lark": lark.__version__,
                       "data": _json_ready(data), "memo": _json_ready(memo)},
                      sort_keys=True, separators=(",", ":")) + "\n"


def _canonical(data, memo):
    """Lark's serialized LALR tables with every arbitrary numbering replaced by a canonical one."""
    key = {old: json.dumps(v, sort_keys=True, default=str) for old, v in memo.items()}
    order = sorted(memo, key=lambda o: key[o])
    renum = {old: new for new, old in enumerate(order)}

    def refs(x):
        if isinstance(x, dict):
            if set(x) == {"@"}:
                return {"@": renum[x["@"]]}
            return {k: refs(v) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return [refs(v) for v in x]
        return x

    memo = {renum[o]: memo[o] for o in order}
    data = refs(data)
    pt = data["parser"]["parser"]
    tok = pt["tokens"]
    states = {s: {tok[t]: a for t, a in acts.items()} for s, acts in pt["states"].items()}
    # states numbered in breadth-first order from the start states, shifts taken by token name
    seen, queue = {}, [pt["start_states"][k] for k in sorted(pt["start_states"])]
    while queue:
        s = queue.pop(0)
        if s in seen:
            continue
        seen[s] = len(seen)
        for t in sorted(states[s]):
            act, arg = states[s][t]
            if act == 0:
                queue.append(arg)
    for s in sorted(states):          # unreachable ones (none expected), for completeness
        seen.setdefault(s, len(seen))
    names = sorted({t for acts in states.values() for t in acts})
    tid = {t: i for i, t in enumerate(names)}
    pt["tokens"] = {i: t for t, i in tid.items()}
    pt["states"] = {seen[s]: {tid[t]: ([0, seen[arg]] if act == 0 else [act, arg])
                              for t, (act, arg) in sorted(states[s].items())}
                    for s in sorted(states, key=seen.get)}
    pt["start_states"] = {k: seen[v] for k, v in pt["start_states"].items()}
    pt["end_states"] = {k: seen[v] for k, v in pt["end_states"].items()}
    return data, memo


class Located:
    """Maps positions inside a rule string to positions in the spec file."""

    def __init__(self, text: str, filename: str, locate=None, where: str = ""):
        self.text = text
        self.filename = filename
        self._locate = locate
        self.where = where  # e.g. "actions.send.effect", used in run-time error messages

    def pos(self, line: int, col: int) -> tuple[int, int]:
        if self._locate is not None:
            m = self._locate(line, col)
            return m[0], m[1]
        return line, col

    def error(self, msg: str, line: int = 1, col: int = 1, check: str = "rule-syntax") -> SpecError:
        fl, fc = self.pos(line, col)
        return SpecError(msg, self.filename, fl, fc, check=check)


def _precheck(src: Located) -> None:
    text = src.text
    if len(text) > MAX_RULE_CHARS:
        raise src.error(f"rule is {len(text)} characters long; the limit is {MAX_RULE_CHARS}",
                        check="rule-length")
    depth = 0
    line, col = 1, 0
    for ch in text:  # bracket depth, before the parser builds anything
        col += 1
        if ch == "\n":
            line, col = line + 1, 0
        elif ch in "([{":
            depth += 1
            if depth > MAX_RULE_DEPTH:
                raise src.error(f"brackets nested more than {MAX_RULE_DEPTH} deep", line, col,
                                check="rule-depth")
        elif ch in ")]}":
            depth -= 1


def _tree_depth(tree: Tree) -> tuple[int, Tree]:
    worst, at = 0, tree
    stack = [(tree, 1)]
    while stack:
        t, d = stack.pop()
        if d > worst:
            worst, at = d, t
        for c in t.children:
            if isinstance(c, Tree):
                stack.append((c, d + 1))
    return worst, at


def _friendly(e: UnexpectedInput, kind: str) -> str:
    start = "start_expr" if kind == "expr" else "start_effects"
    if isinstance(e, UnexpectedCharacters):
        return _syntax_message(e)
    try:
        label = e.match_examples(lambda t: _parser().parse(t, start=start), SYNTAX_EXAMPLES[kind],
                                 use_accepts=True)
    except Exception:  # the matcher is a nicety; never let it mask the real error
        label = None
    if not label:
        return _syntax_message(e)
    tok = getattr(e, "token", None)
    if tok is None or tok.type == "$END":
        return label
    return f"{label} (found '{tok.value}')"


# characters other languages use where this one has a word or another sign: what the author meant
CHAR_HINTS = {
    "/": "division is '//' (whole numbers, rounded down)",
    "&": "write 'and'",
    "|": "write 'or'",
    "!": "write 'not' (and '!=' for not equal)",
}


def _syntax_message(e: UnexpectedInput) -> str:
    if isinstance(e, UnexpectedCharacters):
        hint = CHAR_HINTS.get(e.char)
        return f"unexpected character {e.char!r}" + (f"; {hint}" if hint else "")
    if isinstance(e, UnexpectedEOF) or (isinstance(e, UnexpectedToken) and e.token.type == "$END"):
        exp = sorted({_TOKEN_NAMES.get(t, t) for t in getattr(e, "expected", ())})
        return "the rule ends too early" + (f"; expected {', '.join(exp[:6])}" if exp else "")
    tok = e.token
    exp = sorted({_TOKEN_NAMES.get(t, t.lower() if t.isupper() else t) for t in e.expected})
    if tok.type == "EQUAL" or (tok.type == "ASSIGN_OP" and tok.value == "="):
        return "unexpected '='; to compare, write '=='"
    shown = f"'{tok.value}'" if tok.type != "$END" else "the end of the rule"
    return f"unexpected {shown}" + (f"; expected {', '.join(exp[:6])}" if exp else "")


def parse(src: Located, kind: str = "expr"):
    """Parse one rule string: kind 'expr' gives an expression node, 'effects' a list of statements."""
    _precheck(src)
    try:
        tree = _parser().parse(src.text, start="start_expr" if kind == "expr" else "start_effects")
    except UnexpectedInput as e:
        line = getattr(e, "line", 1) or 1
        col = getattr(e, "column", 1) or 1
        if line < 1:  # end of input: point at the last character
            lines = src.text.split("\n")
            line, col = len(lines), max(1, len(lines[-1]))
        msg = _friendly(e, kind)
        opened = _unclosed_before(src.text, line, col)
        if opened is not None:     # the parser notices only later (often a line later): point at it
            ch, bl, bc = opened
            raise src.error(f"a '{ch}' {'block ' if ch == '{' else ''}is never closed", bl, bc) from None
        called = _assigned_call(src.text, e)
        if called is not None:
            err = src.error(f"only variables can be assigned; '{called}(...)' is not a variable", line, col)
            err.assigned = called      # the checker names a define more precisely
            raise err from None
        raise src.error(msg, line, col) from None
    depth, at = _tree_depth(tree)
    if depth > MAX_RULE_DEPTH * 2:
        raise src.error(f"expression nested more than {MAX_RULE_DEPTH * 2} levels deep",
                        *_meta(at), check="rule-depth")
    for tok in tree.scan_values(lambda v: isinstance(v, Token) and v.type == "NAME"):
        if tok.startswith("_"):   # no way to name anything of the implementation (__class__, ...)
            raise src.error(f"'{tok}': names starting with '_' are reserved", *_meta(tok), check="name")
    b = _Builder(src)
    if kind == "expr":
        return b.expr(tree.children[0])
    return b.stmts(tree.children)


def _brackets(text: str):
    """(char, line, col) of each bracket in order, skipping strings and comments."""
    line, col, quote, comment = 1, 0, None, False
    for ch in text:
        col += 1
        if ch == "\n":
            line, col, comment = line + 1, 0, False
            quote = None
            continue
        if comment:
            continue
        if quote:
            if ch == quote:
                quote = None
            continue
        if ch in "'\"":
            quote = ch
        elif ch == "#":
            comment = True
        elif ch in "()[]{}":
            yield ch, line, col


def _unclosed_before(text: str, line: int, col: int):
    """The innermost bracket opened before (line, col) that the whole rule never closes, or None."""
    pairs = {")": "(", "]": "[", "}": "{"}
    stack = []
    for ch, bl, bc in _brackets(text):
        if ch in "([{":
            stack.append((ch, bl, bc))
        elif stack and stack[-1][0] == pairs[ch]:
            stack.pop()
        elif stack:         # `[1, 2 }`: the '[' is the one left open
            return stack[-1] if (stack[-1][1], stack[-1][2]) < (line, col) else None
        else:
            return None     # a stray closing bracket: the parser's own message says more
    before = [b for b in stack if (b[1], b[2]) < (line, col)]
    return before[-1] if before else None


def _assigned_call(text: str, e) -> str | None:
    """The name of `f(...)` in `f(...) = v`, when that is where the parser stopped."""
    tok = getattr(e, "token", None)
    if tok is None or tok.type not in ("EQUAL", "ASSIGN_OP") or tok.start_pos is None:
        return None
    head = text[:tok.start_pos].rstrip()
    if not head.endswith(")"):
        return None
    depth = 0
    for i in range(len(head) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(head[i], 0)
        if depth == 0:
            m = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\s*$", head[:i])
            return m.group(1) if m else None
    return None


def _meta(t) -> tuple[int, int]:
    if isinstance(t, Token):
        return t.line or 1, t.column or 1
    m = t.meta
    return (getattr(m, "line", 1) or 1), (getattr(m, "column", 1) or 1)


class _Builder:
    """Lark tree → AST dataclasses (depth is already capped, so recursion is bounded)."""

    def __init__(self, src: Located):
        self.src = src

    def at(self, t):
        return self.src.pos(*_meta(t))

    def expr(self, t):
        if isinstance(t, Token):
            if t.type == "NAME":
                return A.Name(*self.at(t), id=str(t))
            raise self.src.error(f"unexpected {t!r}", *_meta(t))
        d = t.data
        ch = t.children
        pos = self.at(t)
        if d == "int_lit":
            text = str(ch[0])
            if len(text) > 18:
                raise self.src.error("integer literal too large (at most 18 digits)", *_meta(t),
                                     check="rule-int-size")
            return A.Const(*pos, value=int(text))
        if d == "str_lit":
            return A.Const(*pos, value=str(ch[0])[1:-1])
        if d == "true_lit":
            return A.Const(*pos, value=True)
        if d == "false_lit":
            return A.Const(*pos, value=False)
        if d == "none_lit":
            return A.Const(*pos, value=None)
        if d == "name":
            return A.Name(*pos, id=str(ch[0]))
        if d == "list_lit":
            return A.ListLit(*pos, items=[self.expr(c) for c in ch if c is not None])
        if d == "list_comp":
            return self.comp(ch[1], self.expr(ch[0]), pos)
        if d in ("or_", "and_"):
            return A.BoolOp(*pos, op=d[:-1], left=self.expr(ch[0]), right=self.expr(ch[1]))
        if d == "not_":
            return A.Unary(*pos, op="not", operand=self.expr(ch[0]))
        if d == "cond_expr":
            return A.IfExp(*pos, body=self.expr(ch[0]), cond=self.expr(ch[1]), orelse=self.expr(ch[2]))
        if d == "neg":
            return A.Unary(*pos, op="-", operand=self.expr(ch[0]))
        if d == "compare":
            op = " ".join(str(ch[1]).split())
            return A.Compare(*pos, op=op, left=self.expr(ch[0]), right=self.expr(ch[2]))
        if d == "binop":
            return A.BinOp(*pos, op=str(ch[1]), left=self.expr(ch[0]), right=self.expr(ch[2]))
        if d == "index":
            return A.Index(*pos, obj=self.expr(ch[0]), index=self.expr(ch[1]))
        if d == "attr":
            return A.Attr(*pos, obj=self.expr(ch[0]), name=str(ch[1]))
        if d == "call":
            return self.call(ch[0], ch[1], pos)
        if d == "call_comp":
            comp = self.comp(ch[2], self.expr(ch[1]), pos)
            comp.gen = True
            kwargs = {}
            for kw in ch[3:]:
                key = str(kw.children[0])
                if key in kwargs:
                    raise self.src.error(f"argument '{key}' given twice", *_meta(kw))
                kwargs[key] = self.expr(kw.children[1])
            return A.Call(*pos, func=str(ch[0]), args=[comp], kwargs=kwargs)
        raise self.src.error(f"unsupported construct {d}", *_meta(t))  # grammar and builder disagree

    def comp(self, t, elt, pos):
        var, it, cond = t.children
        return A.Comp(*pos, elt=elt, var=str(var), iter=self.expr(it),
                      cond=self.expr(cond) if cond is not None else None)

    def call(self, name, arglist, pos):
        args, kwargs = [], {}
        if arglist is not None:
            for a in arglist.children:
                if isinstance(a, Tree) and a.data == "kwarg":
                    key = str(a.children[0])
                    if key in kwargs:
                        raise self.src.error(f"argument '{key}' given twice", *_meta(a))
                    kwargs[key] = self.expr(a.children[1])
                else:
                    if kwargs:
                        raise self.src.error("a positional argument after a named one", *_meta(a))
                    args.append(self.expr(a))
        return A.Call(*pos, func=str(name), args=args, kwargs=kwargs)

    def block(self, t):
        return self.stmts([c for c in t.children if isinstance(c, Tree)])

    def stmts(self, trees):
        out = []
        for c in trees:
            s = self.stmt(c)
            out.extend(s if isinstance(s, list) else [s])
        return out

    def target(self, tgt):
        if tgt.data == "target_name":
            return A.Name(*self.at(tgt), id=str(tgt.children[0]))
        return A.Index(*self.at(tgt), obj=A.Name(*self.at(tgt), id=str(tgt.children[0])),
                       index=self.expr(tgt.children[1]))

    def if_stmt(self, ch, pos):
        branches = [(self.expr(ch[0]), self.block(ch[1]))]
        orelse = []
        for c in ch[2:]:
            if c.data == "elif_clause":
                branches.append((self.expr(c.children[0]), self.block(c.children[1])))
            else:
                orelse = self.block(c.children[0])
        return A.If(*pos, branches=branches, orelse=orelse)

    def stmt(self, t):
        d = t.data
        ch = t.children
        pos = self.at(t)
        if d == "let_stmt":
            return A.Let(*pos, name=str(ch[0]), value=self.expr(ch[1]))
        if d == "assign_stmt":
            return A.Assign(*pos, target=self.target(ch[0]), op=str(ch[1]), value=self.expr(ch[2]))
        if d == "let_if":      # `let x = v` followed by an if statement (see the grammar)
            return [A.Let(*pos, name=str(ch[0]), value=self.expr(ch[1])), self.if_stmt(ch[2:], self.at(ch[2]))]
        if d == "assign_if":
            return [A.Assign(*pos, target=self.target(ch[0]), op=str(ch[1]), value=self.expr(ch[2])),
                    self.if_stmt(ch[3:], self.at(ch[3]))]
        if d == "call_stmt":
            return A.CallStmt(*pos, call=self.call(ch[0], ch[1], pos))
        if d == "if_stmt":
            return self.if_stmt(ch, pos)
        if d == "for_stmt":
            return A.For(*pos, var=str(ch[0]), iter=self.expr(ch[1]), body=self.block(ch[2]))
        if d == "return_stmt":
            return A.Return(*pos, value=self.expr(ch[0]))
        if d == "while_stmt":
            return A.While(*pos, cond=self.expr(ch[0]), body=self.block(ch[1]))
        raise self.src.error(f"unsupported statement {d}", *_meta(t))

