"""`gamespec lsp` (docs/editors.md): a real LSP client (pytest-lsp) talks to the server over stdio on the
shipped games; the analysis behind it is checked in process against the loader (same errors), the
YAML and the checker (every name's declaration and uses; a rename keeps the spec valid)."""
from __future__ import annotations

import asyncio
import os
import random
import re
import subprocess
import sys
import time

import pytest

from helpers import ROOT

pytest.importorskip("pygls")
pytest_lsp = pytest.importorskip("pytest_lsp")
from lsprotocol import types as T  # noqa: E402

from gamespec.authoring.lsp import analysis as an  # noqa: E402
from gamespec.errors import SpecErrors  # noqa: E402
from gamespec.loader import load_text  # noqa: E402

GAMES = ["games/bali.yaml", "games/bacchus.yaml", "games/klink.yaml"]


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return f.read()


def loader_errors(text, name):
    try:
        load_text(text, name)
    except SpecErrors as e:
        return [str(x) for x in e.errors]
    return []


def pos(text, needle, after=0):
    i = text.index(needle) + after
    return text.count("\n", 0, i), i - (text.rfind("\n", 0, i) + 1)


# ------------------------------------------------------------------------- in process: the analysis
BROKEN = [
    ("size(row[", "size(rwo["),             # an unknown name, with a did-you-mean
    ("size(row[", "size(row[["),            # a syntax error inside a rule string
    ("players: [2, 4]", "players: [2, 4, 5]"),   # the schema
    ("  demon:\n", "  demon:\n  demon:\n"),      # YAML: a duplicate key
]


@pytest.mark.parametrize("old,new", BROKEN)
def test_the_errors_are_the_loaders(old, new):
    text = read("games/bali.yaml").replace(old, new, 1)
    assert text != read("games/bali.yaml")
    want = loader_errors(text, "games/bali.yaml")
    assert want, "the edit should break the spec"
    got = [str(e) for e in an.check_text(text, "games/bali.yaml").errors]
    assert got == want
    an.YAML_CACHE.last.clear()
    an.check_text(read("games/bali.yaml"), "games/bali.yaml", incremental=True)
    assert [str(e) for e in an.check_text(text, "games/bali.yaml", incremental=True).errors] == want


def test_incremental_check_equals_the_whole_one_after_random_edits():
    """Seeded one-character edits anywhere in bali: the as-you-type check (YAML read a section or an
    entry at a time, parse trees kept) reports what the loader reports."""
    path = "games/bali.yaml"
    text = read(path)
    rng = random.Random(7)
    reads = []
    for _ in range(8):
        i = rng.randrange(len(text))
        edited = text[:i] + rng.choice("x1 (") + text[i:]
        an.check_text(text, path, incremental=True)
        an.YAML_CACHE.reads.clear()
        got = [str(e) for e in an.check_text(edited, path, incremental=True).errors]
        reads += an.YAML_CACHE.reads
        assert got == loader_errors(edited, path), (i, edited[i - 20:i + 20])
    # an edit inside a rule string reads one entry of one section again, not the file
    i = text.index("size(row[") + 5
    an.check_text(text, path, incremental=True)
    an.YAML_CACHE.reads.clear()
    an.check_text(text[:i] + "x" + text[i:], path, incremental=True)
    assert an.YAML_CACHE.reads in (["entry"], ["section"])
    lk = an._lark()
    before = len(lk._gamespec_trees)
    an.check_text(text[:i] + "y" + text[i:], path, incremental=True)
    assert len(lk._gamespec_trees) == before + 1     # one rule string parsed again, the rest kept


def test_the_incremental_check_costs_less_cpu_than_the_whole_one():
    """A budget by CPU time, relative (never wall clock): after a one-character edit in a rule string,
    the as-you-type check of bali spends under 80% of the loader's pipeline's CPU (about 40% measured:
    bench/lsp.py)."""
    path = "games/bali.yaml"
    text = read(path)
    i = text.index("size(row[") + 5
    edits = [text[:i] + ch + text[i:] for ch in "xyzw"]

    def cpu(incremental):
        total = 0.0
        for e in edits:
            an.check_text(text, path, incremental)
            t = time.process_time()
            an.check_text(e, path, incremental)
            total += time.process_time() - t
        return total
    cpu(True)
    whole, inc = cpu(False), cpu(True)
    assert inc < 0.8 * whole, (inc, whole)


def test_error_range_is_the_name_in_the_rule_string():
    text = read("games/bali.yaml").replace("size(row[", "size(rwo[", 1)
    a = an.analyze(text, "games/bali.yaml")
    (e,) = a.errors
    line, c0, c1 = a.error_span(e.line, e.col, e.message)
    assert a.lines[line][c0:c1] == "rwo"
    # an error about a rule's whole value spans the rule string
    text = read("tests/specs/tiny.yaml").replace('score: "sum(c.value for c in hand[p])"', 'score: "hand[p]"')
    a = an.analyze(text, "tiny.yaml")
    (e,) = a.errors
    assert e.message.startswith("this should be")
    line, c0, c1 = a.error_span(e.line, e.col, e.message)
    assert a.lines[line][c0:c1] == "hand[p]"


@pytest.mark.parametrize("path", GAMES)
def test_every_declared_name_is_found_where_the_checker_uses_it(path):
    """Each zone, variable, define and option: its declaration is its YAML key, and every use in a rule
    string that the word search finds inside the rule strings is one of its references."""
    text = read(path)
    a = an.analyze(text, path)
    assert a.errors == []
    kinds = {"zone", "variable", "define", "option"}
    syms = [s for k, s in a.symbols.items() if k[0] in kinds]
    assert len(syms) >= 8
    for s in syms:
        (dl, dc, n) = s.decls[0]
        assert a.lines[dl][dc:dc + n] == s.name
        refs = a.references(dl, dc)
        assert (dl, dc, n) in refs
        for ln, c, m in refs:
            assert a.lines[ln][c:c + m] == s.name
        # every use inside a rule string (a whole word, not after '.', not a local of the same name)
        for rt in a.rules:
            for typ, txt, off in an.lex(rt.value):
                if typ == "NAME" and txt == s.name:
                    ln, c = rt.file_pos(off)
                    o = a.occurrence_at(ln, c)
                    assert o is not None
                    if o.key is not None and o.key[0] not in ("local", "param", "attr"):
                        assert (ln, c, n) in refs, (s.name, ln + 1, c + 1)


@pytest.mark.parametrize("path", GAMES)
def test_renaming_names_of_every_kind_keeps_the_spec_valid(path):
    text = read(path)
    a = an.analyze(text, path)
    done = 0
    chosen = [k for k in a.symbols if k[0] == "zone"][:4] + [k for k in a.symbols if k[0] == "define"][:2] + \
        [k for k in a.symbols if k[0] == "variable"][:2]      # a bounded sample: each rename loads the spec
    for kind in ("attr", "param", "class", "action", "phase", "option"):     # one of each other kind
        chosen += [k for k in a.symbols if k[0] == kind][:1]
    for k in chosen:
        s = a.symbols[k]
        dl, dc, _ = s.decls[0]
        spots = a.rename(dl, dc, s.name + "_x")
        assert isinstance(spots, list) and len(spots) >= 1, (k, spots)
        lines = list(a.lines)
        for ln, c, n in sorted(set(spots), reverse=True):
            lines[ln] = lines[ln][:c] + s.name + "_x" + lines[ln][c + n:]
        renamed = "\n".join(lines)
        assert loader_errors(renamed, path) == [], s.name
        assert re.search(rf"\b{s.name}_x\b", renamed)
        done += 1
    assert done >= 10


def test_locals_and_yaml_values():
    """A `for` variable's uses go to its declaration in the same rule string and rename with it alone;
    a value naming an action completes with the spec's actions."""
    text = read("games/bacchus.yaml")
    a = an.analyze(text, "games/bacchus.yaml")
    needle = "[top(column[i]) for i in indices(column) if size(column[i]) > 0"
    line, col = pos(text, needle, 12)                      # the `i` of column[i]
    decl = pos(text, needle, 20)                           # the `i` after `for`
    assert a.definition(line, col) == [(decl[0], decl[1], 1)]
    spots = a.rename(line, col, "k")
    assert len(spots) == 4 and all(ln == line for ln, _, _ in spots)
    assert "local" in a.hover(line, col)
    line, col = pos(text, "choose: [draw, ", 15)
    got = [x[0] for x in a.complete(line, col)]
    assert set(got) == set(a.data["actions"])


def test_a_name_starting_like_an_operator_word_is_one_name():
    toks = an.lex("in_round[q] and x in xs and not_y not in z")
    assert [t[:2] for t in toks if t[0] in ("NAME", "IN", "COMP_OP")] == [
        ("NAME", "in_round"), ("NAME", "q"), ("NAME", "x"), ("IN", "in"), ("NAME", "xs"), ("NAME", "not_y"),
        ("COMP_OP", "not in"), ("NAME", "z")]


def test_rename_refuses_a_name_taken_or_built_in():
    text = read("games/bacchus.yaml")
    a = an.analyze(text, "games/bacchus.yaml")
    line, col = pos(text, "  hand:", 2)
    assert "already" in a.rename(line, col, "column")
    assert "built-in" in a.rename(line, col, "players")
    assert "not a name" in a.rename(line, col, "2x")


# ---------------------------------------------------------------------------- over stdio: the server
@pytest_lsp.fixture(scope="module", config=pytest_lsp.ClientServerConfig(
    server_command=[sys.executable, "-m", "gamespec", "lsp"]))
async def client(lsp_client: pytest_lsp.LanguageClient):
    await lsp_client.initialize_session(T.InitializeParams(capabilities=pytest_lsp.client_capabilities("visual-studio-code"),
                                                           root_uri="file://" + ROOT))
    yield
    await lsp_client.shutdown_session()


async def diagnostics(client, uri, version):
    """The first diagnostics the server publishes for this version of the document."""
    async def wait():
        while True:
            p = await client.wait_for_notification(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
            if p.uri == uri and p.version == version:
                return list(p.diagnostics)
    return await asyncio.wait_for(wait(), 60)    # a guard against a hang, not a speed test


def open_doc(client, path, text, version=1):
    uri = path.as_uri()
    client.text_document_did_open(T.DidOpenTextDocumentParams(text_document=T.TextDocumentItem(
        uri=uri, language_id="yaml", version=version, text=text)))
    return uri


@pytest.mark.asyncio(loop_scope="module")
async def test_diagnostics_as_you_type_with_their_range(client, tmp_path):
    text = read("games/bacchus.yaml")
    f = tmp_path / "bacchus.yaml"
    f.write_text(text)
    uri = open_doc(client, f, text)
    assert await diagnostics(client, uri, 1) == []
    # type one character into a name inside a rule string
    line, col = pos(text, "size(column[i]) == 0", 5)
    client.text_document_did_change(T.DidChangeTextDocumentParams(
        T.VersionedTextDocumentIdentifier(uri=uri, version=2),
        [T.TextDocumentContentChangePartial(range=T.Range(T.Position(line, col), T.Position(line, col)), text="x")]))
    (d,) = await diagnostics(client, uri, 2)
    edited = text.split("\n")
    edited[line] = edited[line][:col] + "x" + edited[line][col:]
    want = loader_errors("\n".join(edited), str(f))
    assert len(want) == 1 and want[0].endswith(d.message)
    assert (d.range.start.line, d.range.start.character, d.range.end.character) == (line, col, col + 7)
    assert d.severity == T.DiagnosticSeverity.Error and d.source == "gamespec" and d.code == "name"
    # and delete it again: no diagnostic
    client.text_document_did_change(T.DidChangeTextDocumentParams(
        T.VersionedTextDocumentIdentifier(uri=uri, version=3),
        [T.TextDocumentContentChangePartial(range=T.Range(T.Position(line, col), T.Position(line, col + 1)), text="")]))
    assert await diagnostics(client, uri, 3) == []


@pytest.mark.asyncio(loop_scope="module")
async def test_lint_findings_on_save(client, tmp_path):
    text = read("tests/specs/tiny.yaml").replace("variables:\n", "variables:\n  unused_one: {initial: 0}\n")
    f = tmp_path / "tiny.yaml"
    f.write_text(text)
    uri = open_doc(client, f, text)
    assert await diagnostics(client, uri, 1) == []
    client.text_document_did_save(T.DidSaveTextDocumentParams(text_document=T.TextDocumentIdentifier(uri=uri)))
    while True:
        found = await diagnostics(client, uri, 1)
        if found:
            break
    (d,) = [x for x in found if x.code == "unused-variable"]
    line, col = pos(text, "unused_one")
    assert d.severity == T.DiagnosticSeverity.Warning
    assert (d.range.start.line, d.range.start.character) == (line, col)


@pytest.mark.asyncio(loop_scope="module")
async def test_completion_in_rule_strings_and_yaml_keys(client, tmp_path):
    from gamespec.spec.builtins import BUILTINS
    text = read("games/bacchus.yaml")
    f = tmp_path / "bacchus.yaml"
    f.write_text(text)
    uri = open_doc(client, f, text)
    await diagnostics(client, uri, 1)

    async def labels(line, col):
        r = await client.text_document_completion_async(T.CompletionParams(
            text_document=T.TextDocumentIdentifier(uri=uri), position=T.Position(line=line, character=col)))
        items = r.items if isinstance(r, T.CompletionList) else r
        return {i.label: i for i in items}

    # an argument of size(): zones, and zones first (the kind it wants)
    got = await labels(*pos(text, "size(column[i]) == 0", 5))
    assert {"hand", "column", "played"} <= set(got) and "move" not in got
    assert got["played"].sort_text < got["passes"].sort_text
    # the start of an effect: effects (statements), not values
    line, col = pos(text, 'effect: "', 9)
    got = await labels(line, col)
    effects = {n for n, b in BUILTINS.items() if b.statement}
    assert effects <= set(got) and "size" not in got and "let" in got
    # after '.': the card attributes declared by the faces
    got = await labels(*pos(text, "c.colour", 2))
    assert {"colour", "symbol", "numbers", "satyr"} <= set(got) and "hand" not in got
    # a YAML key of a zone
    lines = text.split("\n")
    zl = next(i for i, s in enumerate(lines) if s.startswith("zones:"))
    text2 = "\n".join(lines[:zl + 1] + ["  pile2:", "    vis"] + lines[zl + 1:])
    client.text_document_did_change(T.DidChangeTextDocumentParams(
        T.VersionedTextDocumentIdentifier(uri=uri, version=2), [T.TextDocumentContentChangeWholeDocument(text=text2)]))
    got = await labels(zl + 2, 7)
    assert set(got) == {"visibility"}
    assert "visibility" in got["visibility"].detail.lower() or got["visibility"].detail


@pytest.mark.asyncio(loop_scope="module")
async def test_hover_definition_references_rename_semantic_tokens(client, tmp_path):
    from gamespec.spec.builtins import BUILTINS
    text = read("games/bacchus.yaml")
    f = tmp_path / "bacchus.yaml"
    f.write_text(text)
    uri = open_doc(client, f, text)
    await diagnostics(client, uri, 1)
    doc = T.TextDocumentIdentifier(uri=uri)
    at = T.Position(*pos(text, "size(column[i]) == 0", 1))
    h = await client.text_document_hover_async(T.HoverParams(text_document=doc, position=at))
    assert BUILTINS["size"].signature in h.contents.value and BUILTINS["size"].text in h.contents.value
    use = T.Position(*pos(text, "count(c for c in hand[q]", 17))
    h = await client.text_document_hover_async(T.HoverParams(text_document=doc, position=use))
    decl = pos(text, "  hand:", 2)
    assert "zone" in h.contents.value and "per player" in h.contents.value
    assert f"line {decl[0] + 1}" in h.contents.value
    key = T.Position(*pos(text, "visibility: hidden", 1))
    h = await client.text_document_hover_async(T.HoverParams(text_document=doc, position=key))
    assert "zone.visibility" in h.contents.value
    (loc,) = await client.text_document_definition_async(T.DefinitionParams(text_document=doc, position=use))
    assert (loc.range.start.line, loc.range.start.character, loc.range.end.character) == (decl[0], 2, 6)
    refs = await client.text_document_references_async(T.ReferenceParams(text_document=doc, position=use, context=T.ReferenceContext(include_declaration=True)))
    spots = {(r.range.start.line, r.range.start.character) for r in refs}
    uses = {pos(text[:m.start()] + "@" + text[m.start() + 1:], "@") for m in re.finditer(r"\bhand\[", text)}
    assert uses | {decl} <= spots                  # every use in a rule, the declaration
    assert pos(text, "    hand:", 4) in spots       # and presentation.zones.hand
    assert all(text.split("\n")[ln][c:c + 4] == "hand" for ln, c in spots)
    edit = await client.text_document_rename_async(T.RenameParams(text_document=doc, position=use, new_name="cards_in_hand"))
    edits = edit.changes[uri]
    assert len(edits) == len(refs)
    lines = text.split("\n")
    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        s = lines[e.range.start.line]
        lines[e.range.start.line] = s[:e.range.start.character] + e.new_text + s[e.range.end.character:]
    assert loader_errors("\n".join(lines), str(f)) == []
    toks = await client.text_document_semantic_tokens_full_async(T.SemanticTokensParams(text_document=doc))
    data, line, col, found = toks.data, 0, 0, {}
    for i in range(0, len(data), 5):
        line += data[i]
        col = data[i + 1] + (col if data[i] == 0 else 0)
        found[(line, col)] = an.SEMANTIC_TYPES[data[i + 3]]
    assert found[pos(text, "count(c for c in hand[q]", 17)] == "namespace"       # a zone
    assert found[pos(text, "count(c for c in hand[q]", 0)] == "function"         # a built-in
    assert found[pos(text, "count(c for c in hand[q]", 8)] == "keyword"


def test_command_without_pygls_names_the_extra():
    code = ("import sys; sys.modules['pygls'] = None; from gamespec.cli import main; sys.exit(main(['lsp']))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120,
                       stdin=subprocess.DEVNULL)
    assert r.returncode == 2
    assert "pip install 'gamespec[lsp]'" in r.stderr and "Traceback" not in r.stderr


def test_a_marks_presentation_key_is_a_reference_to_the_mark():
    """presentation.marks.NAME names the mark: found by references, renamed with it."""
    text = read("games/hanabi.yaml")
    a = an.analyze(text, "games/hanabi.yaml")
    decl = pos(text, "  told_colour:", 2)
    key = pos(text, "    told_colour: {words", 4)
    refs = {(ln, c) for ln, c, _ in a.references(*decl)}
    assert decl in refs and key in refs, (decl, key, sorted(refs))
    edits = a.rename(*key, "hinted_colour")
    assert isinstance(edits, list) and {(ln, c) for ln, c, _ in edits} == refs
