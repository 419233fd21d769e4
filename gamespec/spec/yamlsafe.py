"""Consumes the bytes of one untrusted YAML document; produces position-aware plain data or a SpecError."""
from __future__ import annotations

import os
import re
import stat
from array import array
from typing import NamedTuple

import yaml
from yaml.events import (AliasEvent, DocumentEndEvent, DocumentStartEvent, MappingEndEvent,
                         MappingStartEvent, ScalarEvent, SequenceEndEvent, SequenceStartEvent,
                         StreamEndEvent)
from yaml.tokens import ScalarToken

from gamespec.errors import SpecError

__all__ = ["Mark", "YMap", "YList", "YStr", "mark_of", "load_yaml", "load_yaml_file"]

DEFAULT_MAX_BYTES = 4 * 1024 * 1024
# What an escape ("\e", "\x07", "\u009b") can put in a string and a terminal would obey: C0 but tab and
# line feed, DEL, C1. Raw, the YAML reader already refuses them (check yaml-character).
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_CONTROL_NAMES = {0x00: "NUL", 0x07: "BEL", 0x08: "BS", 0x0B: "VT", 0x0C: "FF", 0x0D: "CR", 0x1B: "ESC",
                  0x7F: "DEL", 0x85: "NEL", 0x9B: "CSI"}


def control_name(char: str) -> str:
    """'U+001B (ESC)': a control character as an error message names it."""
    code = ord(char)
    name = _CONTROL_NAMES.get(code)
    return f"U+{code:04X}" + (f" ({name})" if name else "")


class Mark(NamedTuple):
    """A 1-based position in the spec file."""
    line: int
    col: int


_NOWHERE = Mark(1, 1)


class YMap(dict):
    """A YAML mapping; remembers where it, each key and each value start."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.mark = _NOWHERE
        self.key_marks: dict = {}
        self.value_marks: dict = {}


class YList(list):
    """A YAML sequence; remembers where it and each item start."""

    def __init__(self, *args):
        super().__init__(*args)
        self.mark = _NOWHERE
        self.item_marks: list = []


class YStr(str):
    """A YAML string scalar that remembers where it starts and how it was quoted."""

    def __new__(cls, value: str = "", mark: Mark = _NOWHERE, style: str | None = None):
        self = super().__new__(cls, value)
        self.mark = mark
        self.style = style
        # Where the scalar token itself starts (after any anchor/tag), remembered for locate():
        # (source text, index, 0-based line, 0-based col, end index); None when unknown.
        self._origin = None
        return self

    def locate(self, line: int, col: int) -> Mark:
        """Map a 1-based (line, col) inside this string's value to its position in the file."""
        try:
            return _locate(self, line, col)
        except Exception:  # locate() is used while reporting another error: never fail
            return Mark(max(1, self.mark[0]), max(1, self.mark[1]))

    def forget_positions(self) -> None:
        """Release the lookup tables locate() builds (they are rebuilt if asked for again)."""
        self.__dict__.pop("_tables", None)


def mark_of(container, key_or_index) -> Mark:
    """Mark of a value in a YMap (by key) or a YList (by index); the container's own mark otherwise."""
    fallback = getattr(container, "mark", _NOWHERE)
    try:
        if isinstance(container, YMap):
            return container.value_marks.get(key_or_index, fallback)
        if isinstance(container, YList):
            return container.item_marks[key_or_index]
    except (IndexError, TypeError, KeyError):
        pass
    return fallback


# --------------------------------------------------------------------------- YStr.locate

# PyYAML's line breaks (reader.forward): a lone \r counts, \r\n counts once.
_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")
_DQ_SIMPLE = {"0": "\0", "a": "\x07", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v",
              "f": "\f", "r": "\r", "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\",
              "N": "\x85", "_": "\xa0", "L": "\u2028", "P": "\u2029"}
_DQ_HEX = {"x": 2, "u": 4, "U": 8}


def _value_offset(value: str, line: int, col: int) -> int:
    """Offset in value of a 1-based Lark-style (line, col), clamped into the value."""
    line, col = max(1, int(line)), max(1, int(col))
    pos = 0
    for _ in range(line - 1):
        nl = value.find("\n", pos)
        if nl < 0:
            return len(value)
        pos = nl + 1
    eol = value.find("\n", pos)
    return min(pos + col - 1, len(value) if eol < 0 else eol)


def _walk(src: str, i: int, line: int, col: int, j: int):
    """Advance a 0-based (line, col) from index i to index j of src, counting breaks like PyYAML."""
    while i < j:
        ch = src[i]
        i += 1
        if ch in "\n\x85\u2028\u2029" or (ch == "\r" and (i >= len(src) or src[i] != "\n")):
            line, col = line + 1, 0
        elif ch != "\ufeff":
            col += 1
    return line, col


def _unit(src: str, i: int, style):
    """One source unit of a scalar at i: (length, produced text). Quotes and escapes are one unit."""
    ch = src[i]
    if style == "'" and ch == "'" and src[i + 1:i + 2] == "'":
        return 2, "'"
    if style == '"' and ch == "\\":
        code = src[i + 1:i + 2]
        if code in _DQ_HEX:
            n = _DQ_HEX[code]
            try:
                return 2 + n, chr(int(src[i + 2:i + 2 + n], 16))
            except ValueError:
                return 2 + n, "?"
        m = _BREAK.match(src, i + 1)
        if m:  # escaped line break: produces nothing
            return 1 + len(m.group()), ""
        return 2, _DQ_SIMPLE.get(code, "?")
    return 1, ch


_TABLE_MAX = 200_000   # longer values (refused as rules anyway) are located without a table


def _locate(s: YStr, line: int, col: int) -> Mark:
    """Mark of a value position. The first call builds a table for the string (linear time), so a rule
    with thousands of nodes costs linear time in all, not quadratic (each node asks for its position)."""
    if len(s) > _TABLE_MAX:
        return _locate_at(s, _value_offset(s, line, col))
    tables = s.__dict__.get("_tables")
    if tables is None:
        marks = _marks_table(s)
        tables = s._tables = (_line_starts(s), marks if callable(marks) else _compact(marks))
    starts, marks = tables
    line, col = max(1, int(line)), max(1, int(col))
    if line - 1 >= len(starts):
        off = len(s)
    else:
        pos = starts[line - 1]
        eol = starts[line] - 1 if line < len(starts) else len(s)
        off = min(pos + col - 1, eol)
    if callable(marks):
        return marks(off)
    return Mark(marks[0][off], marks[1][off])


def _compact(marks) -> tuple:
    """A list of Marks as two arrays of ints (a rule of 20000 characters: 160 kB, not 1.5 MB)."""
    return array("q", [m[0] for m in marks]), array("q", [m[1] for m in marks])


def _line_starts(value: str) -> list:
    starts = [0]
    i = value.find("\n")
    while i >= 0:
        starts.append(i + 1)
        i = value.find("\n", i + 1)
    return starts


def _walk_table(src: str, start: int, stop: int, line: int, col: int) -> list:
    """(line, col) for every index start..stop of src, as _walk would compute it from start."""
    out = [(line, col)]
    n = len(src)
    for i in range(start, stop):
        ch = src[i]
        if ch in "\n\x85\u2028\u2029" or (ch == "\r" and (i + 1 >= n or src[i + 1] != "\n")):
            line, col = line + 1, 0
        elif ch != "\ufeff":
            col += 1
        out.append((line, col))
    return out


def _marks_table(s: YStr):
    """For every offset 0..len(s) of the value, its Mark (or a function of the offset when that is O(1)).
    Gives exactly what _locate_at gives, offset by offset."""
    origin = s._origin
    size = len(s)
    if origin is None:
        line0, col0 = s.mark[0], s.mark[1]
        out, nls, last = [], 0, -1
        for off in range(size + 1):
            if last < 0:
                out.append(Mark(max(1, line0), max(1, col0 + off)))
            else:
                out.append(Mark(max(1, line0 + nls), off - last))
            if off < size and s[off] == "\n":
                nls, last = nls + 1, off
        return out
    src, start, tline, tcol, end = origin
    style = s.style or None
    single_line = _BREAK.search(src, start, end) is None

    if style is None and single_line:
        return lambda off: Mark(tline + 1, tcol + 1 + off)

    if style in ("'", '"') and single_line:
        out, i = [], start + 1
        for _ in range(size + 1):
            out.append(Mark(tline + 1, tcol + 1 + (i - start)))
            if i < end - 1:
                i += _unit(src, i, style)[0]
        return out

    if style == "|":
        return _literal_table(s, src, start, tline, tcol)

    # best effort (see _locate_at): precompute the non-blank counts and the non-blank source units
    cnt = [0] * (size + 1)
    k = 0
    for off in range(size):
        cnt[off] = k
        if not s[off].isspace():
            k += 1
    cnt[size] = k
    i = start
    if style in ("'", '"'):
        i += 1
        stop = end - 1
    else:
        stop = end
    if style in ("|", ">"):
        m = _BREAK.search(src, start, end)
        i = m.end() if m else end
    i0 = i
    units = []   # (start, end) of each non-blank unit
    while i < stop:
        n, text = _unit(src, i, style)
        if text and not text.isspace():
            units.append((i, i + n))
        i += n
    targets = []
    for off in range(size + 1):
        k = cnt[off]
        if off < size and not s[off].isspace():
            j = units[k][0] if k < len(units) else stop
        elif k == 0:
            j = min(i0, stop)
        elif k <= len(units):
            j = units[k - 1][1]
        else:
            j = min(units[-1][1] if units else i0, stop)
        targets.append(max(start, min(j, len(src))))
    walk = _walk_table(src, start, max(targets), tline, tcol)
    return [Mark(walk[j - start][0] + 1, walk[j - start][1] + 1) for j in targets]


def _literal_indent(s, src, start, tcol):
    vlines = s.split("\n")
    indent = None
    first = next((n for n, text in enumerate(vlines) if text), None)
    if first is not None:
        pos = start
        for _ in range(first + 1):  # skip the header line, then `first` content lines
            m = _BREAK.search(src, pos)
            if m is None:
                break
            pos = m.end()
        else:
            m = _BREAK.search(src, pos)
            src_line = src[pos:m.start() if m else len(src)]
            indent = len(src_line) - len(vlines[first])
    if indent is None or indent < 0:
        indent = tcol
    return indent


def _literal_table(s, src, start, tline, tcol):
    indent = _literal_indent(s, src, start, tcol)
    out, k, last = [], 0, -1
    for off in range(len(s) + 1):
        out.append(Mark(tline + 2 + k, indent + (off - (last + 1)) + 1))
        if off < len(s) and s[off] == "\n":
            k, last = k + 1, off
    return out


def _locate_at(s: YStr, off: int) -> Mark:
    """Mark of value offset `off`, computed directly (used for very long values only)."""
    origin = s._origin
    if origin is None:  # no source: assume the value is laid out verbatim from .mark
        before = s[:off]
        nl = before.rfind("\n")
        if nl < 0:
            return Mark(max(1, s.mark[0]), max(1, s.mark[1] + off))
        return Mark(max(1, s.mark[0] + before.count("\n")), off - nl)
    src, start, tline, tcol, end = origin
    style = s.style or None
    single_line = _BREAK.search(src, start, end) is None

    if style is None and single_line:  # plain, one line: the value is the source text
        return Mark(tline + 1, tcol + 1 + off)

    if style in ("'", '"') and single_line:  # quoted, one line: step over escapes
        i, v = start + 1, 0
        while v < off and i < end - 1:
            n, _ = _unit(src, i, style)
            i, v = i + n, v + 1
        return Mark(tline + 1, tcol + 1 + (i - start))

    if style == "|":
        # Literal: value line k is source line k after the header, at the block's indentation.
        before = s[:off]
        k = before.count("\n")  # 0-based value line of the target
        vcol = off - (before.rfind("\n") + 1)
        return Mark(tline + 2 + k, _literal_indent(s, src, start, tcol) + vcol + 1)

    # Best effort (folded, multi-line plain or quoted): the k-th non-blank character of the value
    # is the k-th non-blank unit of the source, because folding only adds or removes whitespace.
    k = sum(1 for ch in s[:off] if not ch.isspace())
    target_is_text = off < len(s) and not s[off].isspace()
    i = start
    if style in ("'", '"'):
        i += 1
        stop = end - 1  # the closing quote
    else:
        stop = end
    if style in ("|", ">"):
        m = _BREAK.search(src, start, end)  # skip the header line (indicators, comment)
        i = m.end() if m else end
    seen, last_end = 0, i
    while i < stop and (k or target_is_text):
        n, text = _unit(src, i, style)
        if text and not text.isspace():
            if seen == k and target_is_text:
                break
            seen += 1
            last_end = i + n
            if seen == k and not target_is_text:
                i = last_end
                break
        i += n
    else:
        i = min(last_end, stop) if not target_is_text else stop
    ln, cl = _walk(src, start, tline, tcol, max(start, min(i, len(src))))
    return Mark(ln + 1, cl + 1)


# --------------------------------------------------------------------------- scalar resolution

_CORE = "tag:yaml.org,2002:"
_ALLOWED_TAGS = {_CORE + t for t in ("str", "int", "float", "bool", "null", "map", "seq")}
_NULL = re.compile(r"(?:~|null|Null|NULL|)\Z")
_BOOL = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_INT_DEC = re.compile(r"[-+]?([0-9]+)\Z")
_INT_OCT = re.compile(r"0o([0-7]+)\Z")
_INT_HEX = re.compile(r"0x([0-9a-fA-F]+)\Z")
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?\Z")
_INF = re.compile(r"[-+]?\.(?:inf|Inf|INF)\Z")
_NAN = re.compile(r"\.(?:nan|NaN|NAN)\Z")
_NO_VALUE = object()
_DUPLICATE = object()     # the key of a duplicate entry being read (keep_going): its value is dropped


def _short_tag(tag: str) -> str:
    return "!!" + tag[len(_CORE):] if tag.startswith(_CORE) else tag


def _as_int(text: str, max_digits: int, err):
    """The int a core-schema int scalar denotes, or _NO_VALUE; digits are counted before int()."""
    for pattern, base in ((_INT_DEC, 10), (_INT_OCT, 8), (_INT_HEX, 16)):
        m = pattern.match(text)
        if m:
            if len(m.group(1)) > max_digits:
                raise err(f"integer with {len(m.group(1))} digits; at most {max_digits} digits "
                          f"are allowed", "yaml-int-size")
            try:
                return int(text, 10) if base == 10 else int(m.group(1), base)
            except ValueError:  # Python's own digit limit, reachable with a raised max_digits
                raise err(f"integer with {len(m.group(1))} digits is too large to read",
                          "yaml-int-size") from None
    return _NO_VALUE


def _as_float(text: str):
    if _FLOAT.match(text) or _INF.match(text) or _NAN.match(text):
        return float(text.replace(".inf", "inf").replace(".Inf", "inf").replace(".INF", "inf")
                     .replace(".nan", "nan").replace(".NaN", "nan").replace(".NAN", "nan"))
    return _NO_VALUE


def _resolve(value: str, tag, plain: bool, max_digits: int, err):
    """YAML 1.2 core schema for plain scalars; explicit core tags must match their value."""
    if tag is None:
        if not plain:
            return _NO_VALUE  # quoted and block scalars are strings
        if _NULL.match(value):
            return None
        if value in _BOOL:
            return _BOOL[value]
        result = _as_int(value, max_digits, err)
        return _as_float(value) if result is _NO_VALUE else result
    kind = tag[len(_CORE):]
    if kind == "str":
        return _NO_VALUE
    if kind == "null" and _NULL.match(value):
        return None
    if kind == "bool" and value in _BOOL:
        return _BOOL[value]
    if kind == "int":
        result = _as_int(value, max_digits, err)
        if result is not _NO_VALUE:
            return result
    if kind == "float":
        result = _as_int(value, max_digits, err)
        if result is not _NO_VALUE:
            return float(result)
        result = _as_float(value)
        if result is not _NO_VALUE:
            return result
    raise err(f"{value!r} is not a valid {_short_tag(tag)}", "yaml-tag")


# --------------------------------------------------------------------------- loading

class _Loader(yaml.SafeLoader):
    """SafeLoader whose scanner remembers the last scalar token (events only give the node's
    start, which is the anchor or tag when there is one; locate() needs the scalar's own start)."""

    last_scalar = None

    def get_token(self):
        token = super().get_token()
        if isinstance(token, ScalarToken):
            self.last_scalar = token
        return token


def _position(text: str, index: int) -> Mark:
    line, col = _walk(text, 0, 0, 0, index)
    return Mark(line + 1, col + 1)


class _Frame:
    """A mapping or sequence being built, with what the alias budget needs to know."""
    __slots__ = ("container", "anchor", "token", "nodes_before", "height", "key", "key_mark")

    def __init__(self, container, anchor, token, nodes_before):
        self.container = container
        self.anchor = anchor
        self.token = token          # this frame's in-progress marker in the anchor table
        self.nodes_before = nodes_before
        self.height = 1
        self.key = _NO_VALUE        # for mappings: the key waiting for its value
        self.key_mark = None


def _spaces(n: int) -> str:
    return f"{n} space" + ("" if n == 1 else "s")


def _inner_quote(text: str, exc):
    """A quoted value ended early by a quote of its own kind inside it (`if: "x == "a""`): PyYAML
    reads the inner quote as the end and then finds more text on the line. Said as such, at that
    quote: (message, Mark) or None."""
    pm = exc.problem_mark
    if pm is None or exc.problem is None or not exc.problem.startswith(("expected <block end>", "expected ','")):
        return None
    lines = text.split("\n")
    if not 0 <= pm.line < len(lines):
        return None
    line = lines[pm.line]
    before = line[:pm.column].rstrip(" ")
    rest = line[pm.column:].strip()
    if not before or before[-1] not in "\"'" or not rest or rest.startswith("#"):
        return None
    q = before[-1]
    start = before.rfind(" " + q, 0, len(before) - 1)
    if start < 0 and before.rfind(q, 0, len(before) - 1) < 0:
        return None
    kind, other = ("double", "single") if q == '"' else ("single", "double")
    o = "'" if q == '"' else '"'
    left = rest.split(" #", 1)[0][:40]
    return (f"a {kind} quote inside a {kind}-quoted value ends the value there, leaving {left!r} over: "
            f"write the inner text in {other} quotes ({o}a{o}), or the whole value as a block (|)",
            Mark(pm.line + 1, len(before)))


def _indentation(text: str, exc):
    """PyYAML's words for a key indented unlike its siblings ('expected <block end>, but found ...',
    'mapping values are not allowed here') said as what they mean, at the key: (message, Mark) or None."""
    pm = exc.problem_mark
    if pm is None or exc.problem is None:
        return None
    lines = text.split("\n")
    if not 0 <= pm.line < len(lines):
        return None
    line = lines[pm.line]
    indent = len(line) - len(line.lstrip(" "))
    key = line.strip().split(":", 1)[0].strip().lstrip("-").strip()[:40] or line.strip()[:40]
    above = None
    for j in range(pm.line - 1, -1, -1):     # the nearest line above with content
        t = lines[j].strip()
        if t and not t.startswith("#"):
            above = (j, len(lines[j]) - len(lines[j].lstrip(" ")), t.split(":", 1)[0].strip()[:40])
            break
    at = Mark(pm.line + 1, indent + 1)
    if exc.problem.startswith("expected <block end>") and exc.context_mark is not None:
        others = sorted({exc.context_mark.column} | ({above[1]} if above else set()) - {indent})
        return (f"'{key}' is indented by {_spaces(indent)}, unlike the keys before it (indented by "
                f"{' or '.join(map(str, others))}): the keys of one mapping must line up", at)
    if exc.problem == "mapping values are not allowed here":
        head = line[indent:pm.column].strip()
        if above is not None and above[1] < indent and ":" not in head \
                and not head.startswith(("-", "{", "[", "'", '"')):
            return (f"'{key}' is indented more than '{above[2]}' above it ({_spaces(indent)}, not "
                    f"{above[1]}), so it reads as part of that value: the keys of one mapping must line up", at)
        return ("a ': ' inside a plain value: put the value in quotes", Mark(pm.line + 1, pm.column + 1))
    return None


def load_yaml(data: bytes | str, filename: str = "<spec>", *, max_bytes: int = DEFAULT_MAX_BYTES,
              max_depth: int = 64, max_nodes: int = 100_000, max_scalar: int = 1_500_000,
              max_int_digits: int = 100, keep_going: bool = False) -> object:
    """Parse one YAML document into YMap/YList/YStr/int/float/bool/None; raise SpecError on anything else.

    `keep_going`: a duplicate key is not fatal: its first value stays, and its SpecError is in the
    returned mapping's `soft_errors` (the loader goes on and reports it with every other error)."""

    def err(message, check, mark=_NOWHERE):
        return SpecError(message, filename, mark[0], mark[1], check=check)

    if isinstance(data, (bytearray, memoryview)):
        data = bytes(data)
    if not isinstance(data, (bytes, str)):
        raise TypeError(f"load_yaml() takes bytes or str, not {type(data).__name__}")
    try:
        soft = [] if keep_going else None
        root = _load(data, err, max_bytes, max_depth, max_nodes, max_scalar, max_int_digits, soft)
        if soft:
            if not isinstance(root, YMap):
                raise soft[0]
            root.soft_errors = soft
        return root
    except SpecError:
        raise
    except Exception as exc:  # the contract is SpecError only, even if this module has a bug
        raise err(f"could not read the YAML document: {type(exc).__name__}: {exc}",
                  "yaml-internal") from exc


def _load(data, err, max_bytes, max_depth, max_nodes, max_scalar, max_int_digits, soft=None):
    size = len(data)  # for str, chars <= bytes: a cheap first test before encoding
    if size <= max_bytes and isinstance(data, str):
        size = len(data.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        raise err(f"the file is {size} bytes; a spec may be at most {max_bytes} bytes", "yaml-size")

    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            prefix = data[:exc.start].decode("utf-8")  # valid up to the bad byte
            where = _position(prefix, len(prefix))
            raise err(f"the file is not valid UTF-8: byte 0x{data[exc.start]:02x} at offset "
                      f"{exc.start} (line {where.line}) cannot be decoded", "yaml-encoding",
                      where) from None
    else:
        text = data
    if text.startswith("\ufeff"):
        text = text[1:]  # a BOM is fine; dropping it keeps PyYAML's indexes equal to ours

    loader = None
    try:
        loader = _Loader(text)  # checks for non-printable characters up front
        return _build(loader, text, err, max_depth, max_nodes, max_scalar, max_int_digits, soft)
    except SpecError:
        raise
    except yaml.MarkedYAMLError as exc:
        try:
            indent = _inner_quote(text, exc) or _indentation(text, exc)
        except Exception:   # a nicety: never let it mask the real error
            indent = None
        if indent is not None:
            raise err(indent[0], "yaml-indent" if "indented" in indent[0] else "yaml-syntax", indent[1]) from None
        mark = exc.problem_mark or exc.context_mark
        where = Mark(mark.line + 1, mark.column + 1) if mark else _NOWHERE
        message = exc.problem or exc.context or "invalid YAML"
        if exc.problem and exc.context and exc.context_mark:
            message += (f" ({exc.context} that starts at {exc.context_mark.line + 1}:"
                        f"{exc.context_mark.column + 1})")
        raise err(message, "yaml-syntax", where) from None
    except yaml.reader.ReaderError as exc:
        char = exc.character if isinstance(exc.character, int) else ord(str(exc.character)[:1] or "?")
        raise err(f"character U+{char:04X} is not allowed in a spec (control characters and "
                  f"surrogates cannot appear in YAML)", "yaml-character",
                  _position(text, exc.position)) from None
    except RecursionError:
        raise err("the document is nested too deeply to read", "yaml-depth") from None
    finally:
        if loader is not None:
            loader.dispose()


def _build(loader: _Loader, text: str, err, max_depth, max_nodes, max_scalar, max_int_digits, soft=None):
    """Build the data from the event stream with an explicit stack (nothing recurses)."""

    def at(pm):
        return Mark(pm.line + 1, pm.column + 1)

    loader.get_event()  # StreamStartEvent
    event = loader.get_event()
    if isinstance(event, StreamEndEvent):
        raise err("the file is empty; a spec is a YAML mapping", "yaml-empty")
    doc_start = event  # DocumentStartEvent

    stack: list[_Frame] = []
    anchors: dict = {}   # name -> (value, node count, height) or an in-progress _Frame token
    nodes = 0
    root = _NO_VALUE
    root_is_blank = False

    def count(n, mark):
        nonlocal nodes
        nodes += n
        if nodes > max_nodes:
            raise err(f"the document has more than {max_nodes} nodes once aliases are expanded "
                      f"(each use of an alias counts its whole anchored value)",
                      "yaml-alias-budget", mark)

    def deliver(value, mark, height, is_plain_merge=False):
        """Hand a finished node to its parent (or make it the root)."""
        nonlocal root
        if not stack:
            root = value
            return
        top = stack[-1]
        top.height = max(top.height, height + 1)
        c = top.container
        if isinstance(c, YList):
            c.append(value)
            c.item_marks.append(mark)
            return
        if top.key is _NO_VALUE:  # this node is a key
            if is_plain_merge:
                raise err("merge keys (<<) are not allowed in a spec; write the entries out",
                          "yaml-merge", mark)
            if isinstance(value, (YMap, YList)):
                raise err("a mapping key must be a string, an integer or a boolean, "
                          "not a collection", "yaml-key", mark)
            if value is None or isinstance(value, float):
                raise err(f"a mapping key must be a string, an integer or a boolean, not "
                          f"{'null' if value is None else 'a float'} (quote it to use it as text)",
                          "yaml-key", mark)
            if value in c:
                first = next(k for k in c if k == value)
                same = "" if repr(first) == repr(value) else f" (equal to key {first!r})"
                e = err(f"duplicate key {value!r}{same}; it is first defined on line "
                        f"{c.key_marks[first].line}", "yaml-duplicate-key", mark)
                if soft is None or len(soft) >= 50:
                    raise e
                soft.append(e)
                top.key, top.key_mark = _DUPLICATE, mark   # its value is read, then dropped
                return
            top.key, top.key_mark = value, mark
            return
        if top.key is _DUPLICATE:
            top.key = _NO_VALUE
            return
        c[top.key] = value
        c.key_marks[top.key] = top.key_mark
        c.value_marks[top.key] = mark
        top.key = _NO_VALUE

    def expecting_key():
        return bool(stack) and isinstance(stack[-1].container, YMap) and stack[-1].key is _NO_VALUE

    def check_tag(tag, mark, kind):
        if tag is None:
            return
        if tag not in _ALLOWED_TAGS:
            raise err(f"tag {_short_tag(tag)} is not allowed in a spec", "yaml-tag", mark)
        if kind != "scalar" and tag != _CORE + kind:
            what = "mapping" if kind == "map" else "sequence"
            raise err(f"tag {_short_tag(tag)} cannot be used on a {what}", "yaml-tag", mark)
        if kind == "scalar" and tag in (_CORE + "map", _CORE + "seq"):
            raise err(f"tag {_short_tag(tag)} cannot be used on a scalar", "yaml-tag", mark)

    while True:
        event = loader.get_event()
        cls = type(event)

        if cls is ScalarEvent:
            mark = at(event.start_mark)
            check_tag(event.tag, mark, "scalar")
            count(1, mark)
            value = event.value
            if len(value) > max_scalar:
                raise err(f"a scalar of {len(value)} characters; at most {max_scalar} are allowed",
                          "yaml-scalar-size", mark)
            plain = event.style is None and event.implicit[0]
            result = _resolve(value, event.tag, plain, max_int_digits,
                              lambda m, c: err(m, c, mark))
            if result is _NO_VALUE:
                result = YStr(value, mark, event.style)
                tok = loader.last_scalar
                if tok is not None and tok.end_mark is event.end_mark:
                    sm = tok.start_mark
                    result._origin = (text, sm.index, sm.line, sm.column, tok.end_mark.index)
                bad = CONTROL.search(value)
                if bad:     # every string of a spec may end up on someone's terminal
                    raise err(f"this text contains a control character {control_name(bad.group())}, which a "
                              f"terminal would obey; write what it shows in words", "control-character",
                              _locate_at(result, bad.start()))
            if not stack and plain and value == "" and event.tag is None:
                root_is_blank = True
            if event.anchor is not None:
                anchors[event.anchor] = (result, 1, 0)
            deliver(result, mark, 0, is_plain_merge=plain and value == "<<" and event.tag is None)

        elif cls is MappingStartEvent or cls is SequenceStartEvent:
            mark = at(event.start_mark)
            kind = "map" if cls is MappingStartEvent else "seq"
            check_tag(event.tag, mark, kind)
            if expecting_key():
                raise err("a mapping key must be a string, an integer or a boolean, "
                          "not a collection", "yaml-key", mark)
            if len(stack) + 1 > max_depth:
                raise err(f"the document is nested more than {max_depth} levels deep", "yaml-depth",
                          mark)
            count(1, mark)
            container = YMap() if kind == "map" else YList()
            container.mark = mark
            frame = _Frame(container, event.anchor, object(), nodes - 1)
            if event.anchor is not None:
                anchors[event.anchor] = frame.token
            stack.append(frame)

        elif cls is MappingEndEvent or cls is SequenceEndEvent:
            frame = stack.pop()
            if frame.anchor is not None and anchors.get(frame.anchor) is frame.token:
                anchors[frame.anchor] = (frame.container, nodes - frame.nodes_before, frame.height)
            deliver(frame.container, frame.container.mark, frame.height)

        elif cls is AliasEvent:
            mark = at(event.start_mark)
            entry = anchors.get(event.anchor)
            if entry is None:
                raise err(f"alias *{event.anchor} refers to no anchor defined before it",
                          "yaml-undefined-alias", mark)
            if not isinstance(entry, tuple):
                raise err(f"alias *{event.anchor} is used inside its own anchored value "
                          f"(a recursive structure)", "yaml-recursive-alias", mark)
            value, size, height = entry
            # Aliased data is shared, but whoever walks it pays for every copy: count them all.
            count(size, mark)
            if len(stack) + height > max_depth:
                raise err(f"alias *{event.anchor} makes the document nested more than "
                          f"{max_depth} levels deep", "yaml-depth", mark)
            deliver(value, mark, height)

        elif cls is DocumentEndEvent:
            break

        else:  # DocumentStart/StreamStart/StreamEnd cannot occur inside a document
            raise err("unexpected YAML structure", "yaml-syntax", at(event.start_mark))

    event = loader.get_event()
    if isinstance(event, DocumentStartEvent):
        raise err("a spec file holds one YAML document; found a second one here",
                  "yaml-multidoc", at(event.start_mark))
    if root_is_blank:
        raise err("the file is empty; a spec is a YAML mapping", "yaml-empty", at(doc_start.start_mark))
    return root


def read_limited(path, max_bytes: int = DEFAULT_MAX_BYTES) -> bytes:
    """The bytes of one spec file; its size is checked before it is read (SpecError otherwise)."""
    filename = path if isinstance(path, str) else os.fsdecode(path)

    def err(message, check):
        return SpecError(message, filename, 1, 1, check=check)

    try:
        # O_NONBLOCK: opening a FIFO must not hang; it is then refused as not a regular file.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError as exc:
        raise err(f"cannot open the file: {exc.strerror or exc}", "yaml-io") from None
    try:
        with os.fdopen(fd, "rb") as f:
            st = os.fstat(f.fileno())
            if not stat.S_ISREG(st.st_mode):
                raise err("not a regular file", "yaml-io")
            if st.st_size > max_bytes:
                raise err(f"the file is {st.st_size} bytes; a spec may be at most {max_bytes} bytes",
                          "yaml-size")
            return f.read(max_bytes + 1)  # the file may have grown since fstat
    except SpecError:
        raise
    except OSError as exc:
        raise err(f"cannot read the file: {exc.strerror or exc}", "yaml-io") from None


def load_yaml_file(path, **limits) -> object:
    """Read and load one spec file; its size is checked before it is read."""
    filename = path if isinstance(path, str) else os.fsdecode(path)
    data = read_limited(path, limits.get("max_bytes", DEFAULT_MAX_BYTES))
    return load_yaml(data, filename, **limits)
