"""One spec's text -> Analysis: its errors, its names, and what an editor asks about them (no pygls here).

The errors are the loader's (gamespec/loader.py: YAML, schema, checker, phase graph, in that order and
with the same rules for what is reported), computed by the same functions; the checker is subclassed
only to note each rule string it parses and the scope it checks it in. Names:

- declarations come from the YAML loader's marks (gamespec/spec/yamlsafe.py: `key_marks`): options,
  zones, variables, tables, marks, card classes and their attributes, actions and their parameters,
  phases, triggers, defines, functions, named effects (and the parameters in their keys);
- uses come from the rule strings, cut into tokens by the grammar's own Lark lexer
  (gamespec/spec/parser.py) and placed in the file by YStr.locate, and from YAML values that name an
  action, a phase or a zone (`choose: [ACTION]`, `goto: PHASE`);
- kinds come from the checker: the kind it gave each name node, the scope of each rule, the declared
  type of each variable.

Positions in this module are 0-based (line, column) in code points; `lsp_col`/`cp_col` convert columns
to and from the UTF-16 units LSP counts in.
"""
from __future__ import annotations

import bisect
import dataclasses
import functools
import hashlib
import re
import threading

from gamespec.errors import SpecError, SpecErrors

NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
DEFINE_KEY = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\((.*)\))?\s*$")
# sections whose keys declare a name, with the kind of name (the symbol's namespace)
SECTIONS = (("options", "option"), ("zones", "zone"), ("variables", "variable"), ("tables", "table"),
            ("marks", "mark"), ("cards", "class"), ("actions", "action"), ("phases", "phase"),
            ("triggers", "trigger"), ("define", "define"), ("functions", "function"), ("effects", "effect"))
GLOBAL_KINDS = ("option", "zone", "variable", "table", "define", "function", "effect")
# YAML keys whose text is prose, never a name
PROSE_KEYS = {"name", "description", "doc", "label", "text", "why", "title"}
SEMANTIC_TYPES = ("keyword", "variable", "parameter", "function", "property", "string", "number", "operator",
                  "comment", "namespace", "enumMember", "macro", "type", "event")
SEMANTIC_MODIFIERS = ("declaration", "readonly", "defaultLibrary")


# ---------------------------------------------------------------------------------------------- data
@dataclasses.dataclass
class Symbol:
    """A named thing of the spec: `key` identifies it (kind, name[, owner])."""
    key: tuple
    name: str
    kind: str
    decls: list = dataclasses.field(default_factory=list)      # [(line, col, length)] 0-based
    detail: str = ""


@dataclasses.dataclass
class Occurrence:
    line: int           # 0-based, in the file
    col: int
    length: int
    key: tuple | None   # the Symbol it names (None: a built-in, a keyword, an unknown name)
    role: str           # semantic token type
    name: str = ""
    decl: bool = False
    mods: tuple = ()


@dataclasses.dataclass
class RuleText:
    """One rule string of the spec as the checker parsed it."""
    value: str
    where: str
    kind: str           # expr | effects
    ystr: object
    start: tuple = (0, 0)     # file position of the value's first character (0-based)
    end: tuple = (0, 0)       # ... of its end
    scope: dict | None = None  # name -> kind, as the checker checked it
    offsets: list | None = None   # file (line, col) of each value offset, built on demand

    def file_pos(self, off: int) -> tuple:
        m = self.ystr.locate(*_value_linecol(self.value, off))
        return m[0] - 1, m[1] - 1

    def positions(self) -> list:
        if self.offsets is None:
            self.offsets = [self.file_pos(i) for i in range(len(self.value) + 1)]
        return self.offsets

    def offset_at(self, line: int, col: int) -> int | None:
        """The value offset at a file position inside this string, or None."""
        if not (self.start <= (line, col) <= self.end):
            return None
        pos = self.positions()
        i = bisect.bisect_right(pos, (line, col)) - 1
        return max(0, i)


def _value_linecol(value: str, off: int) -> tuple:
    line = value.count("\n", 0, off) + 1
    col = off - (value.rfind("\n", 0, off) + 1) + 1
    return line, col


# ------------------------------------------------------------------------------------ the checking
def _recording_checker():
    from gamespec.spec.structure import Checker

    class Recording(Checker):
        """The checker, noting each rule string it parses and the scope it checks it in."""

        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            self.rule_texts = []        # RuleText
            self.rule_of = {}           # id(Rule) -> [RuleText]
            self.scopes = {}            # id(Rule) -> scope dict

        def rule(self, container, key, where, kind="expr"):
            before = len(self.rule_texts)
            text = container[key]
            r = super().rule(container, key, where, kind)
            if isinstance(text, str) and hasattr(text, "locate"):
                self.rule_texts.append(RuleText(str(text), where, kind, text))
            if r is not None:
                self.rule_of[id(r)] = self.rule_texts[before:]
            return r

        def _note_scope(self, r, scope):
            if r is not None and scope is not None:
                names = {}
                for n in scope.all():
                    names[n] = scope.get(n)
                for rt in self.rule_of.get(id(r), ()):
                    if rt.scope is None:
                        rt.scope = names

        def check_rule(self, r, scope, expect="any"):
            self._note_scope(r, scope)
            return super().check_rule(r, scope, expect)

        def effects(self, container, key, where, scope):
            if container is None or key not in container:
                return None
            before = len(self.rule_texts)
            r = super().effects(container, key, where, scope)
            names = {n: scope.get(n) for n in scope.all()}
            for rt in self.rule_texts[before:]:
                if rt.scope is None:
                    rt.scope = names
            return r

    return Recording


@dataclasses.dataclass
class Checked:
    errors: list                 # SpecError, as `gamespec validate` would print them
    data: object = None          # the YAML data (None if the YAML could not be read)
    checker: object = None
    spec: object = None          # the checked Spec (None with errors)


def check_text(text: str, filename: str, incremental: bool = False) -> Checked:
    """gamespec.loader.load_text's pipeline, errors collected instead of raised (the same functions in
    the same order: tests/test_lsp.py holds the errors equal to load_text's).

    `incremental` (as you type): the YAML of the top-level sections an edit left alone is not read
    again (YamlCache), and each rule string's Lark parse tree is held (memoize_parses); the checker
    itself runs whole. The server's second wave checks again without the cache."""
    raw = text.encode("utf-8", "surrogatepass")
    if incremental:
        memoize_parses()
    _TREES.on = incremental     # this thread's checks use the held parse trees, or not
    try:
        return _check_text(text, filename, incremental, raw)
    finally:
        _TREES.on = False


def _check_text(text, filename, incremental, raw):
    from gamespec.spec import graph as _graph
    from gamespec.spec.presentation import resolve as presentation
    from gamespec.spec.schema import validate, without_problems
    from gamespec.spec.yamlsafe import load_yaml
    sha = hashlib.sha256(raw).hexdigest()
    try:
        if incremental:
            data = YAML_CACHE.load(text, filename)
        else:
            data = load_yaml(raw, filename, keep_going=True)
    except SpecError as e:
        return Checked([e])
    first = list(getattr(data, "soft_errors", ()))
    left_out = set()
    checked = data
    try:
        validate(data, filename)
    except SpecErrors as e:
        first += e.errors
        checked, left_out = without_problems(data, getattr(e, "paths", []))
        if checked is None:
            return Checked(SpecErrors(first).errors, data)
        try:
            validate(checked, filename)
        except SpecErrors:
            return Checked(SpecErrors(first).errors, data)
    ck = _recording_checker()(checked, filename, sha)
    try:
        spec = ck.run()
        spec.checker = ck
        spec.presentation = presentation(spec, checked, filename)
        g = _graph.build(spec)
        _graph.check(spec, g, checked, filename)
        spec.graph = g
    except SpecErrors as e:
        later = [x for x in e.errors if not any(f"'{name}'" in x.message for name in left_out)]
        return Checked(SpecErrors(first + later).errors, data, ck)
    if first:
        return Checked(SpecErrors(first).errors, data, ck)
    return Checked([], data, ck, spec)


# ------------------------------------------------------------------------------ the incremental part
MEMO_TREES = 4096       # Lark trees of rule strings held (the largest shipped spec has under 100)


_TREES = threading.local()      # .on: the incremental check running in this thread uses the held trees


def memoize_parses() -> None:
    """Keep the Lark parse tree of each rule string by (text, start rule), in this process: a one-character
    edit parses again only the rule string it changed. The trees are read, never changed, by the parser's
    AST builder (gamespec/spec/parser.py), which places every node in the file anew each time. Only checks
made with `incremental` use them; any other parse in the process goes to Lark as before."""
    lk = _lark()
    if getattr(lk, "_gamespec_trees", None) is not None:
        return
    import collections
    orig = lk.parse
    trees = collections.OrderedDict()

    def parse(text, start=None, on_error=None):
        if on_error is not None or not getattr(_TREES, "on", False):
            return orig(text, start=start, on_error=on_error)
        key = (text, start)
        t = trees.get(key)
        if t is None:
            t = trees[key] = orig(text, start=start)
            if len(trees) > MEMO_TREES:
                trees.popitem(last=False)
        else:
            trees.move_to_end(key)
        return t

    lk.parse = parse
    lk._gamespec_trees = trees


_TOP_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)[ \t]*:(?:[ \t]|$)")
_ENTRY_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_]*(?:\([^()\n]*\))?)[ \t]*:(?:[ \t]|$)")
# where an anchor, an alias or a tag may start a node (a `*` inside a rule string is a product)
_ALIAS = re.compile(r"(?:^[ \t-]*|[:,\[{-][ \t]+|[\[{,])[&*!][^\s]|^(?:---|\.\.\.|%)", re.M)


class YamlCache:
    """The YAML of a spec read a top-level section at a time when it can be: after an edit that keeps
    every section's key and line count, only the section that changed is read again (its text padded
    with blank lines, so every mark is the file's), and the data is the last data with that section's
    value replaced. Anything else (a new section, a line added or removed, anchors, aliases, tags,
    several documents, an error in the section) reads the whole text, as the loader does."""

    def __init__(self):
        self.last = {}      # filename -> (blocks, root, soft errors)
        self.reads = []     # what each load read: "whole", "section" or "entry" (the tests look)

    @staticmethod
    def entries(first, btext):
        """A section `key:` whose value is a block mapping, cut into its entries: (key line, [(entry key,
        first line, text)]), or None. The first entry keeps the comments above it."""
        lines = btext.split("\n")
        h = next((j for j, s in enumerate(lines) if s and not s[0].isspace() and s[0] != "#"), None)
        if h is None or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*[ \t]*:[ \t]*(#.*)?", lines[h]):
            return None
        body = [(j, s) for j, s in enumerate(lines) if j > h and s.strip() and not s.lstrip().startswith("#")]
        if not body:
            return None
        n = len(body[0][1]) - len(body[0][1].lstrip(" "))
        starts = []
        for j, s in body:
            ind = len(s) - len(s.lstrip(" "))
            if ind < n or s[:ind].count("\t"):
                return None
            if ind == n:
                m = _ENTRY_KEY.match(s[n:])
                if not m or s[n] == "-":
                    return None
                starts.append((j, m.group(1)))
        out = []
        for k, (j, key) in enumerate(starts):
            lo = h + 1 if k == 0 else j
            hi = starts[k + 1][0] if k + 1 < len(starts) else len(lines)
            out.append((key, first + lo, "\n".join(lines[lo:hi])))
        return lines[h], out

    def _section(self, key, first, btext, pblock, proot, filename):
        """The section's new data {key: value}: only its changed entry read again when it can be."""
        from gamespec.spec.yamlsafe import YMap, load_yaml
        pvalue = proot.get(key)
        new, old = self.entries(first, btext), self.entries(pblock[1], pblock[2])
        if new is not None and old is not None and new[0] == old[0] and isinstance(pvalue, YMap) \
                and [e[0] for e in new[1]] == list(pvalue) and len(set(pvalue)) == len(new[1]):
            same = all(a[0] == b[0] and a[1] == b[1] and a[2].count("\n") == b[2].count("\n")
                       for a, b in zip(new[1], old[1])) and len(new[1]) == len(old[1])
            changed = [k for k, (a, b) in enumerate(zip(new[1], old[1])) if a[2] != b[2]] if same else []
            if len(changed) == 1:
                ekey, efirst, etext = new[1][changed[0]]
                try:
                    part = load_yaml("\n" * efirst + etext, filename, keep_going=True)
                except SpecError:
                    part = None
                if isinstance(part, YMap) and list(part) == [ekey] and not getattr(part, "soft_errors", None):
                    value = YMap()
                    value.mark = pvalue.mark
                    for k in pvalue:
                        src = part if k == ekey else pvalue
                        value[k] = src[k]
                        value.key_marks[k] = src.key_marks[k]
                        value.value_marks[k] = src.value_marks[k]
                    self.reads.append("entry")
                    out = YMap({key: value})
                    out.key_marks[key] = proot.key_marks[key]      # the lines above did not move
                    out.value_marks[key] = proot.value_marks[key]
                    return out
        try:
            part = load_yaml("\n" * first + btext, filename, keep_going=True)
        except SpecError:
            return None
        self.reads.append("section")
        return part

    @staticmethod
    def blocks(text):
        if "\r" in text or text.startswith("\ufeff") or _ALIAS.search(text):
            return None
        lines = text.split("\n")
        starts = []
        for i, s in enumerate(lines):
            if s and not s[0].isspace() and s[0] != "#":
                m = _TOP_KEY.match(s)
                if not m:
                    return None
                starts.append((i, m.group(1)))
        if not starts:
            return None
        out = []
        for k, (i, key) in enumerate(starts):
            first = 0 if k == 0 else i
            end = starts[k + 1][0] if k + 1 < len(starts) else len(lines)
            out.append((key, first, "\n".join(lines[first:end])))
        return out

    def load(self, text, filename):
        from gamespec.spec.yamlsafe import YMap, load_yaml
        blocks = self.blocks(text)
        prev = self.last.get(filename)
        if blocks is not None and prev is not None:
            pblocks, proot, psoft = prev
            same = len(blocks) == len(pblocks) and all(
                a[0] == b[0] and a[1] == b[1] and a[2].count("\n") == b[2].count("\n") for a, b in zip(blocks, pblocks))
            changed = [i for i, (a, b) in enumerate(zip(blocks, pblocks)) if a[2] != b[2]] if same else None
            if changed == []:
                return proot
            if changed is not None and len(changed) == 1 and len(set(b[0] for b in blocks)) == len(blocks):
                i = changed[0]
                key, first, btext = blocks[i]
                part = self._section(key, first, btext, pblocks[i], proot, filename)
                if isinstance(part, YMap) and list(part) == [key]:
                    root = YMap()
                    root.mark = proot.mark
                    for k in proot:
                        src = part if k == key else proot
                        root[k] = src[k]
                        root.key_marks[k] = src.key_marks[k]
                        root.value_marks[k] = src.value_marks[k]
                    lo, hi = first + 1, first + btext.count("\n") + 1
                    soft = [e for e in psoft if not lo <= e.line <= hi] + list(getattr(part, "soft_errors", ()))
                    if soft:
                        root.soft_errors = soft
                    self.last[filename] = (blocks, root, soft)
                    return root
        root = load_yaml(text.encode("utf-8", "surrogatepass"), filename, keep_going=True)
        self.reads.append("whole")
        if blocks is not None and isinstance(root, YMap) and [b[0] for b in blocks] == list(root):
            self.last[filename] = (blocks, root, list(getattr(root, "soft_errors", ())))
        else:
            self.last.pop(filename, None)
        return root


YAML_CACHE = YamlCache()


# ------------------------------------------------------------------------------------------ lexing
@functools.lru_cache(maxsize=1)
def _lark():
    from gamespec.spec.parser import _parser
    return _parser()


@functools.lru_cache(maxsize=1)
def keywords() -> dict:
    """Terminal name -> keyword text, for the grammar's alphabetic string terminals (if, for, let...)."""
    out = {}
    for t in _lark().terminals:
        p = t.pattern
        if type(p).__name__ == "PatternStr" and NAME_RE.fullmatch(p.value):
            out[t.name] = p.value
    return out


@functools.lru_cache(maxsize=4096)
def lex(value: str) -> tuple:
    """(type, text, start offset) of each token of a rule string, by the grammar's lexer; a character
    no terminal matches is skipped (the checker reports it)."""
    from lark.exceptions import UnexpectedCharacters
    out = []
    base = 0
    lk = _lark()
    while base <= len(value):
        try:
            for tok in lk.lex(value[base:]):
                out.append((tok.type, str(tok), base + tok.start_pos))
            break
        except UnexpectedCharacters as e:
            base += e.pos_in_stream + 1
            out = [t for t in out if t[2] < base - 1]
            # tokens before the bad character were yielded already; lexing resumes after it
    # Out of a parser's context the lexer may cut a name that starts like an operator word (`in_round`
    # as `in` `_round`): a word followed at once by more word characters is one name.
    merged = []
    for tok in out:
        if merged and merged[-1][2] + len(merged[-1][1]) == tok[2] and NAME_RE.fullmatch(merged[-1][1]) \
                and re.match(r"[A-Za-z0-9_]", tok[1]):
            prev = merged.pop()
            text = prev[1] + tok[1]
            merged.append(("NAME" if NAME_RE.fullmatch(text) else tok[0], text, prev[2]))
        else:
            merged.append(tok)
    return tuple(merged)


COMMENT_RE = re.compile(r"#[^\n]*")


# -------------------------------------------------------------------------------------- the index
class Analysis:
    """Everything known about one text of a spec."""

    def __init__(self, text: str, filename: str = "<spec>", checked: Checked | None = None,
                 incremental: bool = False):
        self.text = text
        self.filename = filename
        self.lines = text.split("\n")
        self.checked = checked if checked is not None else check_text(text, filename, incremental)
        self.errors = self.checked.errors
        self.data = self.checked.data
        ck = self.checked.checker
        self.rules: list = list(getattr(ck, "rule_texts", ()))
        self.symbols: dict = {}
        self.occurrences: list = []
        self.value_kinds: dict = {}     # YAML key -> kinds of the names its values are, in this spec
        self.unresolved: set = set()    # names of YAML values that could be an action or a phase
        self._by_line: dict | None = None
        if self.data is not None and hasattr(self.data, "key_marks"):
            self._declarations()
            self._rule_names()
            self._yaml_names()

    # -- positions
    def lsp_col(self, line: int, col: int) -> int:
        """A code-point column -> UTF-16 units (what LSP counts by default)."""
        s = self.lines[line] if 0 <= line < len(self.lines) else ""
        if s.isascii():
            return col
        return len(s[:col].encode("utf-16-le")) // 2

    def cp_col(self, line: int, col16: int) -> int:
        s = self.lines[line] if 0 <= line < len(self.lines) else ""
        if s.isascii():
            return col16
        units = 0
        for i, ch in enumerate(s):
            if units >= col16:
                return i
            units += 2 if ord(ch) > 0xFFFF else 1
        return len(s)

    # -- declarations
    def _symbol(self, key, name, kind, detail=""):
        s = self.symbols.get(key)
        if s is None:
            s = self.symbols[key] = Symbol(key, name, kind, detail=detail)
        return s

    def _declare(self, key, name, kind, mark, length, detail="", offset=0):
        s = self._symbol(key, name, kind, detail)
        line, col = mark[0] - 1, mark[1] - 1 + offset
        s.decls.append((line, col, length))
        self.occurrences.append(Occurrence(line, col, length, key, _ROLE.get(kind, "variable"), name, True,
                                           ("declaration",)))

    def _key_at(self, mapping, key):
        """(mark, offset of the key's text): a quoted key's text starts after its quote."""
        mark = mapping.key_marks.get(key)
        if mark is None:
            return None, 0
        quoted = getattr(key, "style", None) in ("'", '"')
        return mark, 1 if quoted else 0

    def _declarations(self):
        d = self.data
        ck = self.checked.checker
        for section, kind in SECTIONS:
            m = d.get(section)
            if not hasattr(m, "key_marks"):
                continue
            for key in m:
                mark, off = self._key_at(m, key)
                if mark is None:
                    continue
                text = str(key)
                if kind in ("define", "function", "effect"):
                    dm = DEFINE_KEY.match(text)
                    if not dm:
                        continue
                    name = dm.group(1)
                    self._declare((kind if kind != "define" else "define", name), name, kind, mark, len(name),
                                  self._detail(kind, name, m[key], text), off + dm.start(1))
                    if dm.group(2) is not None:
                        for pm in NAME_RE.finditer(dm.group(2)):
                            p = pm.group()
                            self._declare(("param", section, name, p), p, "param", mark, len(p),
                                          f"parameter of {kind} {name}", off + dm.start(2) + pm.start())
                    continue
                if not isinstance(key, str) or not NAME_RE.fullmatch(text):
                    continue
                self._declare((kind, text), text, kind, mark, len(text), self._detail(kind, text, m[key], text), off)
                if kind == "action" and hasattr(m[key], "get") and hasattr(m[key].get("params"), "key_marks"):
                    ps = m[key]["params"]
                    for p in ps:
                        pmk, poff = self._key_at(ps, p)
                        if pmk is not None and NAME_RE.fullmatch(str(p)):
                            self._declare(("param", "actions", text, str(p)), str(p), "param", pmk, len(str(p)),
                                          self._param_detail(text, str(p), ps[p]), poff)
                if kind == "class" and hasattr(m[key], "get"):
                    for face in (m[key].get("faces") or []):
                        self._attributes(face, ck)

    def _attributes(self, face, ck):
        if not hasattr(face, "key_marks"):
            return
        fixed = _face_keys()
        for k in face:
            mark, off = self._key_at(face, k)
            if k == "each" and hasattr(face[k], "key_marks"):
                for e in face[k]:
                    em, eoff = self._key_at(face[k], e)
                    if em is not None and NAME_RE.fullmatch(str(e)):
                        self._declare(("attr", str(e)), str(e), "attr", em, len(str(e)), "card attribute", eoff)
            elif k not in fixed and mark is not None and NAME_RE.fullmatch(str(k)):
                self._declare(("attr", str(k)), str(k), "attr", mark, len(str(k)), "card attribute", off)

    def _detail(self, kind, name, value, key_text):
        ck = self.checked.checker
        if kind == "zone":
            z = getattr(ck, "zones", {}).get(name) if ck is not None else None
            v = value if hasattr(value, "get") else {}
            parts = [str(v.get("kind", "pile"))]
            for k in ("per_player", "per_team"):
                if v.get(k):
                    parts.append(k.replace("_", " "))
            if v.get("count") is not None:
                parts.append(f"count {v.get('count')}")
            if v.get("keys") is not None:
                parts.append(f"keys {list(v.get('keys'))}")
            parts.append(f"visibility {v.get('visibility', 'public')}")
            what = "zone family" if z is not None and getattr(z, "is_family", False) else "zone"
            return f"{what}: " + ", ".join(parts)
        if kind == "variable":
            v = getattr(ck, "variables", {}).get(name) if ck is not None else None
            vv = value if hasattr(value, "get") else {}
            t = getattr(v, "type", None) or vv.get("type", "int")
            parts = [f"{_words(t)}"]
            for k in ("per_player", "per_team"):
                if vv.get(k):
                    parts.append(k.replace("_", " "))
            parts.append(f"initial {vv.get('initial', 'the type default')}")
            parts.append(f"visibility {vv.get('visibility', 'public')}")
            return "variable: " + ", ".join(str(p) for p in parts)
        if kind == "option":
            dflt = value.get("default") if hasattr(value, "get") else None
            t = "true/false" if isinstance(dflt, bool) else "a number"
            extra = f", values {list(value.get('values'))}" if hasattr(value, "get") and value.get("values") else ""
            return f"option: {t}, default {str(dflt).lower() if isinstance(dflt, bool) else dflt}{extra}"
        if kind == "mark":
            vv = value if hasattr(value, "get") else {}
            return f"mark: {_words(vv.get('type', 'int'))} on each card, visibility {vv.get('visibility', 'zone')}"
        if kind in ("define", "function", "effect"):
            what = {"define": "define (a named expression, inlined)", "function": "function",
                    "effect": "named effect"}[kind]
            kinds = getattr(ck, "function_kinds", {}).get(name) if ck is not None and kind == "function" else None
            ret = f", gives {_words(kinds[0])}" if kinds else ""
            body = str(value).strip().replace("\n", " ")
            return f"{what}{ret}: {key_text} = {body[:200]}"
        if kind == "table":
            return f"table: {len(value) if hasattr(value, '__len__') else '?'} keys"
        return {"class": "card class", "action": "action", "phase": "phase", "trigger": "trigger"}.get(kind, kind)

    def _param_detail(self, action, p, value):
        kinds = [k for k in ("from", "zone", "player", "number", "choice") if hasattr(value, "get") and k in value]
        how = f" ({kinds[0]}: {value[kinds[0]]})" if kinds else ""
        return f"parameter of action {action}{how}"

    # -- uses in rule strings
    def _rule_names(self):
        for rt in self.rules:
            try:
                rt.start = rt.file_pos(0)
                rt.end = rt.file_pos(len(rt.value))
            except Exception:       # a position we cannot place: the rule takes no part
                continue
            self._rule_tokens(rt)

    def _local_key(self, rt, name, off):
        return ("local", rt.where, rt.start, name, off)

    def _rule_tokens(self, rt):
        toks = lex(rt.value)
        kw = keywords()
        owner = _owner(rt.where)
        # local declarations: `let NAME`, `for NAME in` (statements and comprehensions)
        locals_ = {}
        for i, (typ, txt, off) in enumerate(toks):
            if typ == "NAME" and i > 0 and toks[i - 1][0] in ("LET", "FOR"):
                locals_.setdefault(txt, []).append(off)
        depth = 0
        calls = []      # open call names, for mark names and string arguments
        for i, (typ, txt, off) in enumerate(toks):
            prev = toks[i - 1][0] if i else None
            nxt = toks[i + 1] if i + 1 < len(toks) else (None, None, None)
            if typ == "LPAR":
                depth += 1
                calls.append(toks[i - 1][1] if prev == "NAME" else None)
            elif typ == "RPAR":
                depth = max(0, depth - 1)
                if calls:
                    calls.pop()
            role, key, decl, mods = None, None, False, ()
            if typ in kw:
                role = "keyword"
            elif typ == "INT":
                role = "number"
            elif typ == "STRING":
                role = "string"
                inner = txt[1:-1]
                if calls and calls[-1] in ("mark", "set_mark") and ("mark", inner) in self.symbols:
                    key = ("mark", inner)
                elif ("class", inner) in self.symbols:
                    key = ("class", inner)
                if key is not None:       # the name inside the quotes is the symbol's occurrence
                    self._add(rt, off + 1, len(inner), key, "string", inner)
                    continue
            elif typ in ("COMP_OP", "ADD_OP", "MUL_OP", "POW_OP", "ASSIGN_OP", "EQUAL", "MINUS"):
                role = "operator"
            elif typ == "NAME":
                role, key, decl, mods = self._resolve(rt, toks, i, txt, off, locals_, owner, depth, prev, nxt)
            if role is not None:
                self._add(rt, off, len(txt), key, role, txt, decl, mods)
        for m in COMMENT_RE.finditer(rt.value):
            if not any(t[0] == "STRING" and t[2] <= m.start() < t[2] + len(t[1]) for t in toks):
                self._add(rt, m.start(), len(m.group()), None, "comment", "")

    def _resolve(self, rt, toks, i, txt, off, locals_, owner, depth, prev, nxt):
        from gamespec.spec.builtins import BUILTINS, CONSTANTS
        if prev == "DOT":
            return "property", ("attr", txt) if ("attr", txt) in self.symbols else None, False, ()
        if prev in ("LET", "FOR"):
            return "parameter", self._local_key(rt, txt, off), True, ("declaration",)
        if depth and nxt[0] in ("EQUAL", "ASSIGN_OP") and nxt[1] == "=" and prev in ("COMMA", "LPAR"):
            return "parameter", None, False, ()          # a named argument: key=, default=
        if txt in locals_:
            decls = locals_[txt]
            before = [o for o in decls if o < off]
            at = before[-1] if before else decls[0]
            return "parameter", self._local_key(rt, txt, at), False, ()
        if owner is not None:
            pk = ("param",) + owner + (txt,)
            if pk in self.symbols:
                return "parameter", pk, False, ()
        if nxt[0] == "LPAR":
            for kind in ("function", "define", "effect"):
                if (kind, txt) in self.symbols:
                    return ("macro" if kind == "define" else "function"), (kind, txt), False, ()
            if txt in BUILTINS:
                return "function", None, False, ("defaultLibrary",)
            return "function", None, False, ()
        for kind in ("zone", "variable", "option", "table", "define"):
            if (kind, txt) in self.symbols:
                return _ROLE[kind], (kind, txt), False, ()
        if txt in CONSTANTS:
            return "variable", None, False, ("readonly", "defaultLibrary")
        return "parameter", None, False, ()           # a name the scope gives (p, it, a step's variable)

    def _add(self, rt, off, length, key, role, name, decl=False, mods=()):
        try:
            line, col = rt.file_pos(off)
            eline, ecol = rt.file_pos(off + length)
        except Exception:
            return
        if eline != line:
            ecol = len(self.lines[line]) if line < len(self.lines) else col + length
        self.occurrences.append(Occurrence(line, col, max(1, ecol - col), key, role, name, decl, mods))

    # -- uses in YAML: values naming an action, a phase, a zone or a variable; keys naming a zone or variable
    def _yaml_names(self):
        kinds = {}          # name -> the symbols of these kinds it may be (an action and a phase may share one)
        for kind in ("action", "phase", "zone", "variable"):
            for k, s in self.symbols.items():
                if k[0] == kind:
                    kinds.setdefault(s.name, []).append(k)
        ambiguous = []
        rule_ids = {id(rt.ystr) for rt in self.rules}
        stack = [(self.data, ())]
        seen = set()
        while stack:
            node, path = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            if hasattr(node, "key_marks"):
                named = _NAMED_KEYS.get(path[-1:] if len(path) == 3 and path[0] == "actions" else path)
                for k, v in node.items():
                    if named is not None and (named, str(k)) in self.symbols:
                        mark, off = self._key_at(node, k)
                        if mark is not None:
                            self._use((named, str(k)), mark, off, str(k))
                    if str(k) == "label" and isinstance(v, str) and hasattr(v, "locate"):
                        self._label_names(v, path)
                    if str(k) in PROSE_KEYS and not (str(k) == "name" and path[:1] == ("lints",)):
                        continue
                    stack.append((v, path + (str(k),)))
            elif isinstance(node, list):
                for v in node:
                    stack.append((v, path))
            elif isinstance(node, str) and hasattr(node, "mark") and id(node) not in rule_ids:
                keys = kinds.get(str(node), [])
                if not keys and path[:1] == ("presentation",) and ("attr", str(node)) in self.symbols:
                    keys = [("attr", str(node))]       # presentation names the attribute cards are drawn by
                if not keys or not NAME_RE.fullmatch(str(node)) or path[:1] == ("cards",):
                    continue
                if len(keys) > 1:
                    ambiguous.append((node, path, keys))
                    continue
                self._value_use(keys[0], node, path)
        for node, path, keys in ambiguous:      # by what the same key names elsewhere in this spec
            fits = [k for k in keys if path and k[0] in self.value_kinds.get(path[-1], ())]
            if len(fits) == 1:
                self._value_use(fits[0], node, path)
            else:
                self.unresolved.add(str(node))

    def _value_use(self, key, node, path):
        quoted = 1 if getattr(node, "style", None) in ("'", '"') else 0
        self._use(key, node.mark, quoted, str(node))
        if path:
            self.value_kinds.setdefault(path[-1], set()).add(key[0])

    def _label_names(self, label, path):
        """The names inside a label's {placeholders}: a card class's attributes, an action's parameters."""
        if path[:1] == ("cards",):
            owner = None
        elif len(path) == 2 and path[0] == "actions":
            owner = ("actions", path[1])
        else:
            return
        for m in re.finditer(r"\{([^{}\n]*)\}", str(label)):
            toks = lex(m.group(1))
            for i, (typ, txt, off) in enumerate(toks):
                if typ != "NAME":
                    continue
                if i and toks[i - 1][0] == "DOT":
                    key = ("attr", txt)
                else:
                    key = ("attr", txt) if owner is None else ("param",) + owner + (txt,)
                    if key not in self.symbols:     # a label's expression may read the spec's tables...
                        key = next((g for g in ((k, txt) for k in ("table", "option", "define", "variable", "zone"))
                                    if g in self.symbols), key)
                if key in self.symbols:
                    try:
                        at = label.locate(*_value_linecol(str(label), m.start(1) + off))
                    except Exception:
                        continue
                    self._use(key, at, 0, txt)

    def _use(self, key, mark, off, name):
        self.occurrences.append(Occurrence(mark[0] - 1, mark[1] - 1 + off, len(name), key,
                                           _ROLE.get(key[0], "variable"), name))

    # ------------------------------------------------------------------------------ queries
    def by_line(self) -> dict:
        if self._by_line is None:
            self._by_line = {}
            for o in self.occurrences:
                self._by_line.setdefault(o.line, []).append(o)
        return self._by_line

    def occurrence_at(self, line: int, col: int):
        for o in self.by_line().get(line, ()):
            if o.col <= col <= o.col + o.length:
                return o
        return None

    def rule_at(self, line: int, col: int):
        for rt in self.rules:
            if rt.start <= (line, col) <= rt.end:
                off = rt.offset_at(line, col)
                if off is not None:
                    return rt, off
        return None, None

    def definition(self, line: int, col: int) -> list:
        """[(line, col, length)] where the name at the position is declared."""
        o = self.occurrence_at(line, col)
        if o is None or o.key is None:
            return []
        s = self.symbols.get(o.key)
        if s is not None:
            return list(s.decls[:1]) or []
        if o.key[0] == "local":
            for x in self.occurrences:
                if x.key == o.key and x.decl:
                    return [(x.line, x.col, x.length)]
        return []

    def references(self, line: int, col: int, include_declaration: bool = True) -> list:
        o = self.occurrence_at(line, col)
        if o is None or o.key is None:
            return []
        return sorted({(x.line, x.col, x.length) for x in self.occurrences
                       if x.key == o.key and (include_declaration or not x.decl)})

    def rename(self, line: int, col: int, new: str):
        """[(line, col, length)] to replace by `new`, or an error message (str)."""
        from gamespec.spec.builtins import BUILTINS, CONSTANTS
        o = self.occurrence_at(line, col)
        if o is None or o.key is None:
            return "no name of this spec here (built-ins and keywords cannot be renamed)"
        if not NAME_RE.fullmatch(new) or new.startswith("_"):
            return f"'{new}' is not a name (letters, digits and '_', not starting with '_' or a digit)"
        if new in CONSTANTS or new in keywords().values():
            return f"'{new}' is a built-in name"
        kind = o.key[0]
        if kind in ("action", "phase") and o.name in self.unresolved:
            return (f"'{o.name}' names both an action and a phase, and a YAML value here could be either: "
                    "rename it by hand")
        if kind in GLOBAL_KINDS and any(s.name == new for k, s in self.symbols.items() if k[0] in GLOBAL_KINDS):
            return f"'{new}' is already a name of this spec"
        if kind in ("define", "function", "effect") and new in BUILTINS:
            return f"'{new}' is a built-in function"
        if any(s.name == new and k[0] == kind for k, s in self.symbols.items()):
            return f"'{new}' is already the name of a {kind}"
        return self.references(line, col, True)

    def hover(self, line: int, col: int) -> str | None:
        """Markdown for the name, built-in or YAML key at the position."""
        from gamespec.spec.builtins import BUILTINS, CONSTANTS
        o = self.occurrence_at(line, col)
        if o is not None:
            if o.key is not None and o.key in self.symbols:
                s = self.symbols[o.key]
                where = f"declared at line {s.decls[0][0] + 1}" if s.decls else ""
                kind = self._kind_of(o)
                t = f"; here {_words(kind)}" if kind and s.kind in ("param", "variable", "define", "function") else ""
                return f"**{s.name}** — {s.detail}{t}\n\n{where}"
            if o.key is not None and o.key[0] == "local":
                kind = self._kind_of(o)
                for x in self.occurrences:      # a declaration has no node of its own: a use's kind
                    if kind is None and x.key == o.key and not x.decl:
                        kind = self._node_kinds().get((x.line + 1, x.col + 1))
                d = self.definition(line, col)
                return (f"**{o.name}** — local name" + (f", {_words(kind)}" if kind else "")
                        + (f"\n\ndeclared at line {d[0][0] + 1}" if d else ""))
            if o.role in ("function",) and o.name in BUILTINS:
                return _entry_md(f"builtin.{o.name}", o.name)
            if o.name in CONSTANTS and o.key is None:
                e = _entry_md(f"name.{o.name}", o.name)
                return e or f"**{o.name}** — built-in name, {_words(CONSTANTS[o.name])}"
            if o.role == "keyword":
                return None
            if o.role == "parameter" and o.key is None and o.name:
                kind = self._kind_of(o)
                if kind:
                    return f"**{o.name}** — {_words(kind)} (given by the scope of this rule)"
        return self.key_hover(line, col)

    def _kind_of(self, o):
        """The kind the checker gave the name at this occurrence (the rule's scope, else the name node's
        kind in the checked rules), or None."""
        rt, _ = self.rule_at(o.line, o.col)
        if rt is not None and rt.scope and o.name in rt.scope:
            return rt.scope[o.name]
        kinds = self._node_kinds()
        return kinds.get((o.line + 1, o.col + 1))

    @functools.cached_property
    def _node_kinds_map(self):
        from gamespec.spec import ast as A
        out = {}
        ck = self.checked.checker
        if ck is None:
            return out
        seen = set()
        from gamespec.authoring.lints import rules
        for r in (rules(self.checked.spec) if self.checked.spec is not None else ()):
            roots = r.ast if isinstance(r.ast, list) else [r.ast]
            for root in roots:
                if isinstance(root, A.Node):
                    for n in A.walk(root):
                        if isinstance(n, A.Name) and getattr(n, "t", None) and id(n) not in seen:
                            seen.add(id(n))
                            out.setdefault((n.line, n.col), n.t)
        return out

    def _node_kinds(self):
        return self._node_kinds_map

    def data_at(self, line: int, col: int):
        """(YAML path, is a key, the value there) of the key or scalar at the position, from the data's marks."""
        if self.data is None:
            return None
        stack = [(self.data, ())]
        while stack:
            node, path = stack.pop()
            if hasattr(node, "key_marks"):
                for k, v in node.items():
                    m = node.key_marks.get(k)
                    if m is not None and m[0] - 1 == line and m[1] - 1 <= col <= m[1] - 1 + len(str(k)):
                        return path + (str(k),), True, v
                    stack.append((v, path + (str(k),)))
            elif isinstance(node, list):
                for v in node:
                    stack.append((v, path + ("-",)))
            elif isinstance(node, str) and hasattr(node, "mark") and "\n" not in node:
                m = node.mark
                if m[0] - 1 == line and m[1] - 1 <= col <= m[1] - 1 + len(node):
                    return path, False, node
        return None

    def key_hover(self, line: int, col: int) -> str | None:
        """The reference entry of the YAML key (or of the enum value) at the position."""
        if _word_at(self.lines[line] if line < len(self.lines) else "", col) is None:
            return None
        found = self.data_at(line, col)
        if found is not None:
            path, is_key, value = found
            ident = schema_id(list(path))
            if ident is None:
                return None
            if not is_key:
                e = _entry_md(f"{ident}={value}", f"{path[-1]}: {value}")
                return e
            return _entry_md(ident, path[-1])
        path = yaml_path_at(self.lines, line, col)
        ident = schema_id(path) if path else None
        return _entry_md(ident, path[-1]) if ident else None

    def error_span(self, line: int, col: int, message: str = "") -> tuple:
        """A 1-based error position -> a 0-based (line, start, end) on one line: the token there, or the
        whole rule string when the error is about the rule's value as a whole ("this should be ...")."""
        ln, c0, c1 = error_range(self.lines, line, col)
        if message.startswith("this should be"):
            rt, off = self.rule_at(ln, c0)
            if rt is not None and off == 0 and rt.end[0] == ln:
                return ln, c0, rt.end[1]
        return ln, c0, c1

    # -- semantic tokens
    def semantic_tokens(self) -> list:
        """The LSP encoding (5 integers a token) of the rule strings' tokens, in file order."""
        out = []
        pl = pc = end = 0
        for o in sorted(self.occurrences, key=lambda o: (o.line, o.col)):
            if o.role not in SEMANTIC_TYPES:
                continue
            line, col = o.line, self.lsp_col(o.line, o.col)
            length = self.lsp_col(o.line, o.col + o.length) - col
            if out and line == pl and col < end:
                continue        # overlapping (the same rule string seen twice): the first wins
            mods = 0
            for m in o.mods:
                mods |= 1 << SEMANTIC_MODIFIERS.index(m)
            # each token: line delta, start delta (from the previous token's start on the same line),
            # length, type, modifiers
            out += [line - pl, col - pc if line == pl else col, length, SEMANTIC_TYPES.index(o.role), mods]
            pl, pc, end = line, col, col + length
        return out

    # -- completion
    def complete(self, line: int, col: int) -> list:
        """[(label, kind, detail, sort group)] for the position: names in a rule string, keys in YAML."""
        rt, off = self.rule_at(line, col)
        if rt is not None:
            return self.complete_rule(rt, off)
        return self.complete_value(line, col) or complete_keys(self.lines, line, col)

    def complete_value(self, line: int, col: int) -> list:
        """A YAML value that names something (`choose: [ACTION, ...]`, `goto: PHASE`): the names of the
        kinds this spec's values under the same key name."""
        cur = self.lines[line][:col] if line < len(self.lines) else ""
        m = re.match(r"^\s*(?:-\s+)*([A-Za-z_]\w*)\s*:\s*(\[(?:[^\]]*,)?\s*)?([A-Za-z_]\w*)?$", cur)
        if not m or m.group(1) not in self.value_kinds:
            return []
        partial = m.group(3) or ""
        kinds = self.value_kinds[m.group(1)]
        return _filter([(s.name, {"action": "function", "phase": "event"}.get(s.kind, s.kind), s.detail, 0)
                        for k, s in self.symbols.items() if k[0] in kinds], partial)

    def complete_rule(self, rt, off) -> list:
        from gamespec.spec.builtins import BUILTINS, CONSTANTS
        from gamespec.spec.types import fits
        head = rt.value[:off]
        m = re.search(r"[A-Za-z_][A-Za-z0-9_]*$", head)
        partial = m.group() if m else ""
        head = head[:len(head) - len(partial)]
        accepts, statement = _accepts(head, rt.kind)
        out = []
        if head.rstrip().endswith("."):
            for k, s in self.symbols.items():
                if k[0] == "attr":
                    out.append((s.name, "property", "card attribute", 0))
            out.append(("type", "property", "the card's class name", 1))
            return _filter(out, partial)
        if accepts is not None and "NAME" not in accepts:
            return _filter([(kwd, "keyword", "", 2) for t, kwd in keywords().items() if t in accepts], partial)
        want = _expected_kind(head, statement)
        scope = dict(rt.scope or {})
        owner = _owner(rt.where)
        for k, s in self.symbols.items():
            if k[0] == "param" and owner is not None and k[1:3] == owner:
                scope.setdefault(s.name, "any")
        for name in re.findall(r"\b(?:let|for)\s+([A-Za-z_][A-Za-z0-9_]*)", head):
            scope.setdefault(name, "any")

        def group(kind):
            return 0 if want is not None and kind is not None and fits(kind, want) else 1

        ck = self.checked.checker
        for name, kind in scope.items():
            if name in CONSTANTS and kind == CONSTANTS[name] and statement:
                continue            # a statement starts with an effect or a variable to assign
            if name in CONSTANTS and kind == CONSTANTS[name]:
                out.append((name, "constant", f"built-in name: {_words(kind)}", group(kind)))
            elif (("zone", name) not in self.symbols and ("variable", name) not in self.symbols
                  and ("option", name) not in self.symbols):
                out.append((name, "variable", f"{_words(kind) if kind else 'local name'}", group(kind)))
        if not rt.scope and not statement:
            for name, kind in CONSTANTS.items():
                out.append((name, "constant", f"built-in name: {_words(kind)}", group(kind)))
        for k, s in self.symbols.items():
            if k[0] == "zone" and not statement:
                fam = ck is not None and getattr(getattr(ck, "zones", {}).get(s.name), "is_family", False)
                out.append((s.name, "zone", s.detail, group("family" if fam else "zone")))
            elif k[0] == "variable":
                v = getattr(ck, "variables", {}).get(s.name) if ck is not None else None
                out.append((s.name, "variable", s.detail, group(getattr(v, "type", None))))
            elif k[0] == "option" and not statement:
                d = s.detail
                out.append((s.name, "option", d, group("bool" if "true/false" in d else "int")))
            elif k[0] == "table" and not statement:
                out.append((s.name, "table", s.detail, 1))
            elif k[0] == "define" and not statement:
                out.append((s.name, "define", s.detail, 1))
            elif k[0] == "function" and not statement:
                out.append((s.name, "function", s.detail, 1))
            elif k[0] == "effect" and statement:
                out.append((s.name, "effect", s.detail, 0))
        for name, b in BUILTINS.items():
            if b.statement == statement:
                res = b.result if b.result not in ("elem", "same", "numbers") else None
                out.append((name, "builtin", b.signature, 0 if statement else group(res)))
        for t, kwd in keywords().items():
            if accepts is None or t in accepts:
                out.append((kwd, "keyword", "", 2))
        return _filter(out, partial)


# mappings whose keys name a declared thing: (path) -> the kind of name ('actions', NAME, 'cost': variables)
_NAMED_KEYS = {("presentation", "zones"): "zone", ("presentation", "variables"): "variable",
               ("presentation", "marks"): "mark", ("cost",): "variable"}

_ROLE = {"option": "enumMember", "zone": "namespace", "variable": "variable", "table": "type", "mark": "event",
         "class": "type", "action": "function", "phase": "event", "trigger": "event", "define": "macro",
         "function": "function", "effect": "function", "param": "parameter", "attr": "property"}


def _owner(where: str):
    """(section, name) whose parameters are in scope in the rule at `where`."""
    parts = where.split(".")
    if len(parts) >= 2 and parts[0] in ("actions", "define", "functions", "effects"):
        return parts[0], parts[1].split("[")[0]
    return None


@functools.lru_cache(maxsize=1)
def _face_keys() -> frozenset:
    from gamespec.spec.schema import schema
    return frozenset(schema().get("$defs", {}).get("face", {}).get("properties", {}))


def _words(kind) -> str:
    from gamespec.spec.types import words
    return words(kind) if kind else "a value"


def _filter(items, partial):
    seen, out = set(), []
    for label, kind, detail, grp in items:
        if label in seen or not label.startswith(partial) or label.startswith("_"):
            continue
        seen.add(label)
        out.append((label, kind, detail, grp))
    return out


def _accepts(head: str, kind: str):
    """(terminals the grammar accepts after `head`, whether a statement may start there); (None, guess)
    when the head does not parse (then every name is offered)."""
    from lark.exceptions import UnexpectedInput
    try:
        ip = _lark().parse_interactive(head, start="start_effects" if kind == "effects" else "start_expr")
        ip.exhaust_lexer()
        acc = ip.accepts()
    except UnexpectedInput:
        return None, kind == "effects" and not head.strip()
    except Exception:
        return None, False
    return acc, "LET" in acc


def _expected_kind(head: str, statement: bool):
    """The kind a built-in's argument wants at the end of `head` (`size(` wants a zone or a list)."""
    from gamespec.spec.builtins import BUILTINS
    depth, commas = 0, 0
    for i in range(len(head) - 1, -1, -1):
        ch = head[i]
        if ch in ")]}":
            depth += 1
        elif ch in "([{":
            if depth == 0:
                if ch != "(":
                    return None
                m = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\s*$", head[:i])
                b = BUILTINS.get(m.group(1)) if m else None
                if b is None:
                    return None
                if b.many is not None and commas:
                    return b.many
                if commas < len(b.args) and b.args[commas] is not None:
                    return b.args[commas][0]
                return None
            depth -= 1
        elif ch == "," and depth == 0:
            commas += 1
    return "bool" if head.rstrip().endswith(("if", "while", "and", "or", "not")) else None


# ------------------------------------------------------------------------- YAML keys and the schema
_KEY_LINE = re.compile(r"^(\s*)(?:-\s+)*([A-Za-z_][\w.()<>, ]*?|\"[^\"]*\"|'[^']*')\s*:(?:\s|$)")


def yaml_path_at(lines: list, line: int, col: int | None = None) -> list:
    """The YAML path (keys, '-' for a list item) of the key on `line` (or of a key being typed there),
    from indentation alone: it works while the document does not parse."""
    if line >= len(lines):
        return []
    cur = lines[line]
    indent = len(cur) - len(cur.lstrip(" "))
    m = re.match(r"^(\s*)((?:-\s+)*)([A-Za-z_][\w]*)?", cur)
    dashes = m.group(2).count("-") if m else 0
    own = m.group(3) if m and m.group(3) else ""
    path = [own] if own else [""]
    path = ["-"] * dashes + path
    col0 = indent
    for j in range(line - 1, -1, -1):
        s = lines[j]
        if not s.strip() or s.lstrip().startswith("#"):
            continue
        ind = len(s) - len(s.lstrip(" "))
        if ind >= col0:
            continue
        km = re.match(r"^(\s*)((?:-\s+)*)([A-Za-z_][\w.()<>, ]*?|\"[^\"]*\"|'[^']*')\s*:(\s|$)", s)
        if km:
            item_dashes = km.group(2).count("-")
            key = km.group(3).strip("'\"")
            # `- key:` opens an item whose keys line up with `key`
            key_col = ind + len(km.group(2))
            if key_col < col0:
                path = [key] + path
                path = ["-"] * item_dashes + path
                col0 = ind
        elif s.lstrip().startswith("-"):
            path = ["-"] + path
            col0 = ind
        if col0 == 0:
            break
    return path


def _schema_node(path):
    """(section, key path inside it, schema node) for a YAML path, or None."""
    from gamespec.spec.schema import schema
    root = schema()
    section, prefix, node = "spec", [], root

    def resolve(n):
        nonlocal section, prefix
        while isinstance(n, dict) and "$ref" in n and n["$ref"].startswith("#/$defs/"):
            section, prefix = n["$ref"][len("#/$defs/"):], []
            n = root["$defs"][section]
        return n

    def branches(n):
        out = [n]
        for b in n.get("anyOf", []) + n.get("oneOf", []) if isinstance(n, dict) else []:
            out.append(b)
        return out

    node = resolve(node)
    for step in path:
        found = None
        for b in branches(node):
            b = _resolve_plain(b, root)
            if step == "-":
                if isinstance(b, dict) and isinstance(b.get("items"), dict):
                    found = ("items", b["items"])
                    break
            else:
                props = b.get("properties", {}) if isinstance(b, dict) else {}
                if step in props:
                    found = (step, props[step])
                    break
        if found is None:
            for b in branches(node):
                b = _resolve_plain(b, root)
                extra = b.get("additionalProperties") if isinstance(b, dict) else None
                if step != "-" and isinstance(extra, dict):
                    found = ("<attribute>" if b.get("properties") else None, extra)
                    break
        if found is None:
            return None
        label, sub = found
        if label not in (None, "items"):
            prefix = prefix + [label]
        if isinstance(sub, dict) and "$ref" in sub:
            node = resolve(sub)
        else:
            node = sub
    return section, prefix, node


def _resolve_plain(n, root):
    while isinstance(n, dict) and "$ref" in n and n["$ref"].startswith("#/$defs/"):
        n = root["$defs"][n["$ref"][len("#/$defs/"):]]
    return n


def schema_id(path) -> str | None:
    """The reference id (data/reference.yaml) of the key at a YAML path: `zone.kind`, `spec.players`."""
    if not path or path[-1] in ("", "-"):
        return None
    parent = _schema_node(path[:-1])
    whole = _schema_node(path)
    if whole is None:
        return None
    section, prefix, _ = whole
    if prefix:
        return f"{section}.{'.'.join(prefix)}"
    # the key opened a $defs entry (zones.NAME -> zone): name it by the key it is under
    if parent is not None:
        psec, pprefix, _ = parent
        return f"{psec}.{'.'.join(pprefix + [path[-1]])}" if (pprefix or psec == "spec") else None
    return None


def complete_keys(lines, line, col) -> list:
    """The schema's keys at a YAML position (the keys already there are left out)."""
    from gamespec.spec.schema import schema
    cur = lines[line][:col] if line < len(lines) else ""
    if not re.fullmatch(r"\s*(?:-\s+)*[A-Za-z_]*", cur):
        return []
    partial = re.search(r"[A-Za-z_]*$", cur).group()
    probe = list(lines)
    probe[line] = cur[:len(cur) - len(partial)] + "x"
    path = yaml_path_at(probe, line)
    found = _schema_node(path[:-1])
    if found is None:
        return []
    _, _, node = found
    root = schema()
    keys = []
    for b in [node] + (node.get("anyOf", []) + node.get("oneOf", []) if isinstance(node, dict) else []):
        b = _resolve_plain(b, root)
        if isinstance(b, dict):
            keys += [k for k in b.get("properties", {}) if k not in keys]
    present = _sibling_keys(lines, line)
    out = []
    for k in keys:
        if k in present or not k.startswith(partial):
            continue
        ident = schema_id(path[:-1] + [k])
        e = _entries().get(ident) if ident else None
        detail = (e.get("text", "") if isinstance(e, dict) else str(e or ""))[:120]
        out.append((k, "key", detail, 0))
    return out


def _sibling_keys(lines, line):
    cur = lines[line]
    indent = len(cur) - len(cur.lstrip(" -"))
    out = set()
    for step in (-1, 1):
        j = line + step
        while 0 <= j < len(lines):
            s = lines[j]
            if s.strip() and not s.lstrip().startswith("#"):
                ind = len(s) - len(s.lstrip(" -"))
                if ind < indent:
                    break
                if ind == indent:
                    m = re.match(r"^\s*(?:-\s+)*([A-Za-z_]\w*)\s*:", s)
                    if m:
                        out.add(m.group(1))
            j += step
    return out


def _word_at(s, col):
    for m in NAME_RE.finditer(s):
        if m.start() <= col <= m.end():
            return m.group()
    return None


@functools.lru_cache(maxsize=1)
def _entries() -> dict:
    from gamespec.authoring.reference import entries
    return entries()


def _entry_md(ident: str, title: str) -> str | None:
    e = _entries().get(ident)
    if e is None:
        return None
    if isinstance(e, str):
        return f"**{title}** — {e}"
    if "see" in e and "text" not in e:
        return _entry_md(e["see"], title)
    out = [f"**{e.get('signature', title)}**"]
    if e.get("default") is not None:
        out.append(f"*Default:* {e['default']}")
    if e.get("text"):
        out.append(str(e["text"]))
    ex = e.get("example")
    if isinstance(ex, dict) and (ex.get("expr") or ex.get("effects")):
        out.append(f"Example: `{ex.get('expr') or ex.get('effects')}`")
    elif isinstance(ex, str):
        out.append("```yaml\n" + ex.rstrip() + "\n```")
    out.append(f"(reference: `{ident}`)")
    return "\n\n".join(out)


# ----------------------------------------------------------------------------------- diagnostics
def error_range(lines: list, line: int, col: int) -> tuple:
    """A SpecError's 1-based position -> a 0-based range (line, start col, end col): the name, string,
    number or character it points at."""
    ln, c = max(0, line - 1), max(0, col - 1)
    s = lines[ln] if ln < len(lines) else ""
    if c >= len(s):
        return ln, max(0, len(s) - 1) if s else 0, len(s) if s else 0
    m = NAME_RE.match(s, c) or re.compile(r"[0-9]+").match(s, c)
    if m:
        return ln, c, m.end()
    if s[c] in "'\"":
        end = s.find(s[c], c + 1)
        if end > c:
            return ln, c, end + 1
    return ln, c, c + 1


def analyze(text: str, filename: str = "<spec>", incremental: bool = False) -> Analysis:
    """The Analysis of a spec's text; `incremental` reuses what the last call for the same filename read
    (check_text)."""
    return Analysis(text, filename, incremental=incremental)
