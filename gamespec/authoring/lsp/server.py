"""The language server: pygls over stdio (or TCP), the spec's queries answered by analysis.py.

Diagnostics come in three waves, each replacing the last for the same text:

1. as you type, DEBOUNCE seconds after the last change: the loader's checks (YAML, schema, checker,
   phase graph), the same errors `gamespec validate` prints first;
2. FULL_DELAY seconds later if the text is unchanged: validate's compile of every player count and
   option set (gamespec.validation.compile_all), in a worker thread;
3. when the file is saved: `gamespec check --strict`'s lint findings on the file saved (gamespec.authoring.lints,
   sample games included; none while it has errors), as warnings, in a worker thread.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import os
import time
import urllib.parse

from lsprotocol import types as T
from pygls.lsp.server import LanguageServer

from . import analysis as an

DEBOUNCE = 0.15       # seconds without a change before the as-you-type check
FULL_DELAY = 0.6      # ... and before the compile of every rule set
SOURCE = "gamespec"

_KINDS = {"zone": T.CompletionItemKind.Module, "variable": T.CompletionItemKind.Variable,
          "option": T.CompletionItemKind.EnumMember, "table": T.CompletionItemKind.Struct,
          "define": T.CompletionItemKind.Constant, "function": T.CompletionItemKind.Function,
          "effect": T.CompletionItemKind.Method, "builtin": T.CompletionItemKind.Function,
          "keyword": T.CompletionItemKind.Keyword, "constant": T.CompletionItemKind.Constant,
          "property": T.CompletionItemKind.Property, "key": T.CompletionItemKind.Field}


class Doc:
    """What the server holds for one open document."""

    def __init__(self, uri):
        self.uri = uri
        self.text = None
        self.version = None
        self.analysis = None      # the newest Analysis whose YAML could be read (for navigation)
        self.latest = None        # the Analysis of the newest text (maybe unreadable YAML)
        self.fast = []            # diagnostics of wave 1 and 2, wave 3
        self.full = []
        self.lints = []
        self.task = None
        self.timings = {}


class SpecServer(LanguageServer):
    def __init__(self):
        super().__init__("gamespec", _version())
        self.docs: dict = {}
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="gamespec-check")

    # -- documents
    def doc(self, uri) -> Doc:
        d = self.docs.get(uri)
        if d is None:
            d = self.docs[uri] = Doc(uri)
        return d

    def filename(self, uri) -> str:
        p = urllib.parse.urlparse(uri)
        if p.scheme == "file":
            path = urllib.parse.unquote(p.path)
            try:
                return os.path.relpath(path)
            except ValueError:
                return path
        return uri

    def analysis(self, uri, navigate=False):
        """The Analysis of the document's current text (made now if the debounce has not run yet).
        `navigate`: while the YAML cannot be read, the last one that could (positions may be off)."""
        d = self.doc(uri)
        text = self.workspace.get_text_document(uri).source
        if d.latest is None or d.latest.text != text:
            d.latest = self.check(uri, text)
            if d.latest.data is not None:
                d.analysis = d.latest
        if navigate and d.latest.data is None and d.analysis is not None:
            return d.analysis
        return d.latest

    def check(self, uri, text):
        t0 = time.perf_counter()
        c0 = time.process_time()
        try:
            a = an.analyze(text, self.filename(uri), incremental=True)
        except Exception as e:      # never let a bug of the server take the editor's session down
            a = an.Analysis(text, self.filename(uri), an.Checked([an.SpecError(
                f"internal error of the language server: {type(e).__name__}: {e}", self.filename(uri))]))
        d = self.doc(uri)
        d.timings = {"check_ms": (time.perf_counter() - t0) * 1000, "check_cpu_ms": (time.process_time() - c0) * 1000}
        return a

    # -- diagnostics
    def publish(self, uri):
        d = self.doc(uri)
        self.text_document_publish_diagnostics(T.PublishDiagnosticsParams(
            uri=uri, diagnostics=d.fast + d.full + d.lints, version=d.version))

    def diagnostics(self, a, errors, severity=T.DiagnosticSeverity.Error):
        out = []
        for e in errors:
            if isinstance(e, dict):
                line, col, msg, check = e["line"], e["col"], e["message"], e.get("check", "")
            else:
                line, col, msg, check = e.line, e.col, e.message, getattr(e, "check", "")
            ln, c0, c1 = a.error_span(line, col, msg)
            out.append(T.Diagnostic(
                range=T.Range(T.Position(ln, a.lsp_col(ln, c0)), T.Position(ln, a.lsp_col(ln, c1))),
                message=msg, severity=severity, source=SOURCE, code=check or None))
        return out

    def changed(self, uri, version):
        d = self.doc(uri)
        d.version = version
        if d.task is not None and not d.task.done():
            d.task.cancel()
        d.task = asyncio.ensure_future(self._waves(uri, version))

    async def _waves(self, uri, version):
        d = self.doc(uri)
        await asyncio.sleep(DEBOUNCE)
        a = self.analysis(uri)
        d.fast = self.diagnostics(a, a.errors)
        d.full = []
        self.publish(uri)
        spec = a.checked.spec
        if spec is None:
            return
        await asyncio.sleep(FULL_DELAY)
        if d.version != version:
            return
        loop = asyncio.get_running_loop()
        errors = await loop.run_in_executor(self.pool, _full_check, a.text, a.filename)
        if d.version == version:
            d.fast = []
            d.full = self.diagnostics(a, errors)
            self.publish(uri)

    async def lint(self, uri):
        d = self.doc(uri)
        path = urllib.parse.unquote(urllib.parse.urlparse(uri).path)
        if not uri.startswith("file:") or not os.path.isfile(path):
            return
        version = d.version
        loop = asyncio.get_running_loop()
        found = await loop.run_in_executor(self.pool, _lint, path)
        if d.version != version or d.latest is None:
            return
        a = d.latest
        sev = {"warning": T.DiagnosticSeverity.Warning, "allowed": T.DiagnosticSeverity.Hint}
        d.lints = []
        for f in found:
            dg = self.diagnostics(a, [{"line": f.line, "col": f.col, "message": f.message +
                                       (f" (allowed: {f.allowed})" if f.allowed else ""), "check": f.check}],
                                  sev["allowed" if f.allowed else "warning"])
            d.lints += dg
        self.publish(uri)


def _warm():
    try:
        an.keywords()
        an._face_keys()
        an._entries()
        an.memoize_parses()
    except Exception:
        pass


def _version() -> str:
    try:
        from importlib.metadata import version
        return version("gamespec")
    except Exception:
        return "0"


def _full_check(text, filename):
    """`gamespec validate` on the text: the loader from scratch (no cache), then the compile of every
    player count and option set."""
    from gamespec.game import Game
    from gamespec.validation import compile_all
    try:
        c = an.check_text(text, filename)
        if c.spec is None:
            return c.errors
        errors, _ = compile_all(Game(c.spec), filename)
    except Exception as e:
        return [{"line": 1, "col": 1, "message": f"could not compile the rules: {type(e).__name__}: {e}",
                 "check": "internal"}]
    return errors


def _lint(path):
    from gamespec.authoring.lints import lint
    from gamespec.errors import GamespecError
    try:
        return lint(path)
    except GamespecError:
        return []       # errors are the as-you-type check's
    except Exception:
        return []


# ------------------------------------------------------------------------------------- features
def build() -> SpecServer:
    server = SpecServer()

    @server.feature(T.INITIALIZED)
    def initialized(ls: SpecServer, params: T.InitializedParams):
        ls.pool.submit(_warm)       # the parser, the schema, the reference entries: before the first request

    @server.feature(T.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: SpecServer, params: T.DidOpenTextDocumentParams):
        ls.changed(params.text_document.uri, params.text_document.version)

    @server.feature(T.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: SpecServer, params: T.DidChangeTextDocumentParams):
        ls.changed(params.text_document.uri, params.text_document.version)

    @server.feature(T.TEXT_DOCUMENT_DID_SAVE)
    async def did_save(ls: SpecServer, params: T.DidSaveTextDocumentParams):
        await ls.lint(params.text_document.uri)

    @server.feature(T.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: SpecServer, params: T.DidCloseTextDocumentParams):
        d = ls.docs.pop(params.text_document.uri, None)
        if d is not None and d.task is not None:
            d.task.cancel()
        ls.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[]))

    @server.feature(T.TEXT_DOCUMENT_COMPLETION, T.CompletionOptions(trigger_characters=[".", "(", " ", ","]))
    def completion(ls: SpecServer, params: T.CompletionParams):
        a = ls.analysis(params.text_document.uri)
        if a.data is None:      # the YAML does not read: names from the last text that did
            b = ls.analysis(params.text_document.uri, navigate=True)
            a = b if b.data is not None and _same_line(a, b, params.position.line) else a
        line = params.position.line
        col = a.cp_col(line, params.position.character)
        items = []
        for label, kind, detail, group in a.complete(line, col):
            items.append(T.CompletionItem(label=label, kind=_KINDS.get(kind, T.CompletionItemKind.Text),
                                          detail=detail or None, sort_text=f"{group}{label}"))
        return T.CompletionList(is_incomplete=False, items=items)

    @server.feature(T.TEXT_DOCUMENT_HOVER)
    def hover(ls: SpecServer, params: T.HoverParams):
        a = ls.analysis(params.text_document.uri, navigate=True)
        line = params.position.line
        md = a.hover(line, a.cp_col(line, params.position.character))
        if md is None:
            return None
        return T.Hover(contents=T.MarkupContent(kind=T.MarkupKind.Markdown, value=md))

    def _locations(a, uri, spots):
        return [T.Location(uri=uri, range=_range(a, ln, c, n)) for ln, c, n in spots]

    @server.feature(T.TEXT_DOCUMENT_DEFINITION)
    def definition(ls: SpecServer, params: T.DefinitionParams):
        a = ls.analysis(params.text_document.uri, navigate=True)
        line = params.position.line
        return _locations(a, params.text_document.uri, a.definition(line, a.cp_col(line, params.position.character)))

    @server.feature(T.TEXT_DOCUMENT_REFERENCES)
    def references(ls: SpecServer, params: T.ReferenceParams):
        a = ls.analysis(params.text_document.uri, navigate=True)
        line = params.position.line
        return _locations(a, params.text_document.uri, a.references(
            line, a.cp_col(line, params.position.character), params.context.include_declaration))

    @server.feature(T.TEXT_DOCUMENT_PREPARE_RENAME)
    def prepare_rename(ls: SpecServer, params: T.PrepareRenameParams):
        a = ls.analysis(params.text_document.uri)
        line = params.position.line
        o = a.occurrence_at(line, a.cp_col(line, params.position.character))
        if o is None or o.key is None:
            return None
        return _range(a, o.line, o.col, o.length)

    @server.feature(T.TEXT_DOCUMENT_RENAME)
    def rename(ls: SpecServer, params: T.RenameParams):
        from pygls.exceptions import JsonRpcInvalidParams
        a = ls.analysis(params.text_document.uri)
        line = params.position.line
        spots = a.rename(line, a.cp_col(line, params.position.character), params.new_name)
        if isinstance(spots, str):
            raise JsonRpcInvalidParams(spots)
        edits = [T.TextEdit(range=_range(a, ln, c, n), new_text=params.new_name) for ln, c, n in spots]
        return T.WorkspaceEdit(changes={params.text_document.uri: edits})

    legend = T.SemanticTokensLegend(token_types=list(an.SEMANTIC_TYPES), token_modifiers=list(an.SEMANTIC_MODIFIERS))

    @server.feature(T.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, legend)
    def semantic_tokens(ls: SpecServer, params: T.SemanticTokensParams):
        a = ls.analysis(params.text_document.uri, navigate=True)
        return T.SemanticTokens(data=a.semantic_tokens())

    @server.command("gamespec.timings")
    def timings(ls: SpecServer):
        """The last as-you-type check's time per open document (the bench and the transcript read it)."""
        return {uri: d.timings for uri, d in ls.docs.items()}

    return server


def _range(a, line, col, length):
    return T.Range(T.Position(line, a.lsp_col(line, col)), T.Position(line, a.lsp_col(line, col + length)))


def _same_line(a, b, line):
    return line < len(a.lines) and line < len(b.lines) and a.lines[line] == b.lines[line]


def serve(tcp: int | None = None, host: str = "127.0.0.1") -> None:
    server = build()
    if tcp is not None:
        server.start_tcp(host, tcp)
    else:
        server.start_io()
