"""The language server's speed (docs/editors.md): a re-check of a spec after a one-character edit, and
an editor's session over stdio, with its JSON-RPC transcript.

    python bench/lsp.py                       # games/bali.yaml and games/bacchus.yaml, 200 edits each
    python bench/lsp.py --edits 500 --spec games/bali.yaml
    python bench/lsp.py --transcript bench/results/lsp_transcript.txt

    PYTHONPATH=... python bench/lsp.py --screenshot docs/img/editor-neovim.png   # needs nvim, pyte, chromium

Part 1, in process: N one-character edits at random places of the spec (a seeded RNG; a character
typed inside a rule string, a digit, a letter of a key...), each followed by the as-you-type check
(gamespec.authoring.lsp.analysis.analyze: the loader's checks plus the index of names), timed in wall
and CPU time; p50, p95 and the worst. Part 2, a real session: `gamespec lsp` started as an editor
starts it, spoken to over stdio (initialize -> didOpen -> diagnostics -> completion -> hover ->
definition -> references -> semantic tokens -> an edit -> its diagnostics), each answer's time
measured, the messages written abridged to the transcript.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)


def percentile(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def one_char_edits(text, n, seed=0):
    """n texts, each `text` with one character typed or deleted at a random place (seeded)."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        i = rng.randrange(len(text))
        if rng.random() < 0.5:
            ch = rng.choice("abcxyz019 ")
            out.append(text[:i] + ch + text[i:])
        else:
            out.append(text[:i] + text[i + 1:])
    return out


def recheck(path, edits, seed=0, incremental=True):
    """Each edit is checked after the original text (as an editor's buffer: the text before the edit was
    checked last); only the check after the edit is timed."""
    from gamespec.authoring.lsp.analysis import analyze
    text = open(path, encoding="utf-8").read()
    analyze(text, path, incremental)         # warm: the parser's tables, the schema, the reference entries
    wall, cpu, errs = [], [], 0
    for t in one_char_edits(text, edits, seed):
        analyze(text, path, incremental)
        w0, c0 = time.perf_counter(), time.process_time()
        a = analyze(t, path, incremental)
        wall.append((time.perf_counter() - w0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
        errs += bool(a.errors)
    return {"spec": path, "edits": edits, "with_errors": errs, "incremental": incremental,
            "wall_ms": {"p50": round(statistics.median(wall), 1), "p95": round(percentile(wall, 0.95), 1),
                        "max": round(max(wall), 1)},
            "cpu_ms": {"p50": round(statistics.median(cpu), 1), "p95": round(percentile(cpu, 0.95), 1),
                       "max": round(max(cpu), 1)}}


# ------------------------------------------------------------------------------ a stdio client
class Client:
    """A minimal LSP client over a subprocess's pipes, keeping every message (for the transcript)."""

    def __init__(self, cmd):
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                  cwd=ROOT)
        self.n = 0
        self.log = []       # (t seconds since start, direction, message)
        self.t0 = time.perf_counter()
        self.pending = []

    def _send(self, msg):
        body = json.dumps(msg).encode()
        self.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.p.stdin.flush()
        self.log.append((time.perf_counter() - self.t0, "->", msg))

    def _read(self):
        length = None
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise EOFError("the server closed its output")
            line = line.strip()
            if not line:
                break
            k, v = line.split(b":", 1)
            if k.lower() == b"content-length":
                length = int(v)
        msg = json.loads(self.p.stdout.read(length))
        self.log.append((time.perf_counter() - self.t0, "<-", msg))
        return msg

    def request(self, method, params):
        self.n += 1
        rid = self.n
        t = time.perf_counter()
        self._send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        while True:
            m = self._read()
            if m.get("id") == rid and "method" not in m:
                return m.get("result", m.get("error")), (time.perf_counter() - t) * 1000
            if "method" in m and "id" in m:      # a request of the server's (configuration...): answer none
                self._send({"jsonrpc": "2.0", "id": m["id"], "result": None})
            else:
                self.pending.append(m)

    def notify(self, method, params):
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def wait(self, method, version=None):
        t = time.perf_counter()
        while True:
            for i, m in enumerate(self.pending):
                if m.get("method") == method and (version is None or m["params"].get("version") == version):
                    del self.pending[i]
                    return m["params"], (time.perf_counter() - t) * 1000
            m = self._read()
            if "method" in m and "id" in m:
                self._send({"jsonrpc": "2.0", "id": m["id"], "result": None})
            else:
                self.pending.append(m)

    def close(self):
        try:
            self.request("shutdown", None)
            self.notify("exit", None)
            self.p.wait(timeout=10)
        except Exception:
            self.p.kill()


def _pos_of(text, needle, after=0):
    i = text.index(needle) + after
    line = text.count("\n", 0, i)
    return {"line": line, "character": i - (text.rfind("\n", 0, i) + 1)}


def session(path, edits=20):
    """An editor's session with the server; returns (timings, the client's message log)."""
    uri = "file://" + os.path.abspath(path)
    text = open(path, encoding="utf-8").read()
    c = Client([sys.executable, "-m", "gamespec", "lsp"])
    times = {}
    try:
        _, times["initialize_ms"] = c.request("initialize", {"processId": os.getpid(), "rootUri": "file://" + ROOT,
                                                            "capabilities": {}})
        c.notify("initialized", {})
        t = time.perf_counter()
        c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1,
                                                          "text": text}})
        diag, _ = c.wait("textDocument/publishDiagnostics", 1)
        times["open_to_diagnostics_ms"] = (time.perf_counter() - t) * 1000
        times["diagnostics"] = len(diag["diagnostics"])
        # a rule string: the cursor after `size(` of the first rule that has one
        at = _pos_of(text, "size(", 5)
        res, times["completion_ms"] = c.request("textDocument/completion", {"textDocument": {"uri": uri}, "position": at})
        times["completion_items"] = len(res["items"]) if isinstance(res, dict) else len(res or [])
        name_at = _pos_of(text, "size(", 1)
        _, times["hover_builtin_ms"] = c.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": name_at})
        inner = _pos_of(text, "size(", 5)
        _, times["hover_name_ms"] = c.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": inner})
        _, times["definition_ms"] = c.request("textDocument/definition", {"textDocument": {"uri": uri}, "position": inner})
        refs, times["references_ms"] = c.request("textDocument/references", {
            "textDocument": {"uri": uri}, "position": inner, "context": {"includeDeclaration": True}})
        times["references"] = len(refs or [])
        toks, times["semantic_tokens_ms"] = c.request("textDocument/semanticTokens/full", {"textDocument": {"uri": uri}})
        times["semantic_tokens"] = len(toks["data"]) // 5
        # one-character edits, each answered by its diagnostics (the debounce is part of the wait)
        lat = []
        version = 1
        for k in range(edits):
            version += 1
            pos = _pos_of(text, "size(", 5)
            ch = "x" if k % 2 == 0 else ""
            rng = {"start": pos, "end": pos if ch else {"line": pos["line"], "character": pos["character"] + 1}}
            if ch:
                text = text[:_offset(text, pos)] + ch + text[_offset(text, pos):]
            else:
                text = text[:_offset(text, pos)] + text[_offset(text, pos) + 1:]
            t = time.perf_counter()
            c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                "contentChanges": [{"range": rng, "text": ch}]})
            c.wait("textDocument/publishDiagnostics", version)
            lat.append((time.perf_counter() - t) * 1000)
            time.sleep(0.05)
        tm, _ = c.request("workspace/executeCommand", {"command": "gamespec.timings", "arguments": []})
        times["edit_to_diagnostics_ms"] = {"p50": round(statistics.median(lat), 1), "p95": round(percentile(lat, 0.95), 1),
                                           "debounce_included_ms": 150}
        times["server_check_ms_last"] = {k: round(v, 1) for k, v in (tm or {}).get(uri, {}).items()}
    finally:
        c.close()
    return times, c.log


def _offset(text, pos):
    lines = text.split("\n")
    return sum(len(x) + 1 for x in lines[:pos["line"]]) + pos["character"]


def abridge(msg, width=300):
    s = json.dumps(msg)
    if "semanticTokens" in s and "data" in s and len(s) > width:
        return s[:width] + f"... ({len(s)} characters)"
    if "\"text\":" in s and len(s) > width:
        return s[:width] + f"... ({len(s)} characters)"
    return s if len(s) <= 2 * width else s[:2 * width] + f"... ({len(s)} characters)"


def write_transcript(path, times, log, spec):
    with open(path, "w", encoding="utf-8") as f:
        f.write(f"# `gamespec lsp` on {spec}: an editor's session over stdio (bench/lsp.py --transcript)\n")
        f.write("# -> client to server, <- server to client; long messages abridged; t in seconds\n\n")
        shown = 0
        for t, d, m in log:
            method = m.get("method", "")
            if method == "textDocument/didChange" and shown > 0:
                shown += 1
                if shown > 3:       # the edits repeat: the first two are shown
                    continue
            if method == "textDocument/didChange":
                shown = max(shown, 1)
            f.write(f"[{t:7.3f}] {d} {abridge(m)}\n")
        f.write("\n# timings (ms)\n")
        f.write(json.dumps(times, indent=2) + "\n")


# ------------------------------------------------------------------------------ the screenshot
NVIM_INIT = """
vim.o.number = true
vim.o.termguicolors = true
vim.o.signcolumn = "yes"
vim.o.updatetime = 300
vim.cmd("syntax on")
vim.cmd("highlight NormalFloat guibg=#2c313a guifg=#e0e0e0")
vim.cmd("highlight Pmenu guibg=#2c313a guifg=#e0e0e0")
vim.cmd("highlight SignColumn guibg=NONE")
vim.cmd("highlight LineNr guifg=#6a7080")
vim.diagnostic.config({virtual_text = true, underline = true, signs = true})
local client = vim.lsp.start_client({name = "gamespec", cmd = {PYTHON, "-m", "gamespec", "lsp"}, root_dir = ROOT})
vim.api.nvim_create_autocmd("FileType", {pattern = "yaml", callback = function(a)
  vim.lsp.buf_attach_client(a.buf, client)
end})
"""


def screenshot(out, spec="games/bacchus.yaml", rows=34, cols=118):
    """Neovim in a pseudo-terminal with the server attached: a zone name misspelt in a rule string, the
    diagnostic shown, a hover opened; the terminal's screen rendered by pyte to HTML and by Chromium to
    PNG. Needs nvim (0.7+), pexpect, pyte and chromium."""
    import html
    import shutil
    import tempfile

    import pexpect
    import pyte
    tmp = tempfile.mkdtemp(prefix="gamespec-shot-")
    init = os.path.join(tmp, "init.lua")
    with open(init, "w") as f:
        f.write(NVIM_INIT.replace("PYTHON", json.dumps(sys.executable)).replace("ROOT", json.dumps(ROOT)))
    name = os.path.join(tmp, os.path.basename(spec))
    shutil.copy(os.path.join(ROOT, spec), name)
    text = open(name, encoding="utf-8").read()
    line, col = _pos_of(text, "count(c for c in hand[q]", 17).values()
    screen = pyte.Screen(cols, rows)
    stream = pyte.ByteStream(screen)
    child = pexpect.spawn("nvim", ["-u", init, os.path.basename(name)], dimensions=(rows, cols), cwd=tmp,
                          env=dict(os.environ, TERM="xterm-256color", COLORTERM="truecolor"))

    def pump(seconds):
        end = time.time() + seconds
        while time.time() < end:
            try:
                stream.feed(child.read_nonblocking(65536, timeout=0.2))
            except pexpect.TIMEOUT:
                pass
            except pexpect.EOF:
                return
    pump(4)
    child.send(f":{line + 1}\r")
    child.send(f"0{col}l")
    pump(1)
    child.send("ix\x1b")                       # type one character: `hand` becomes `xhand`
    pump(4)
    child.send("zz")
    child.send("0" + str(col - 17) + "l")       # onto `count`
    pump(1)
    child.send(":lua vim.lsp.buf.hover()\r")
    pump(3)
    child.terminate(force=True)
    cells = []
    default_fg, default_bg = "#d8d8d8", "#1e1e1e"
    for y in range(rows):
        row = screen.buffer[y]
        parts = []
        for x in range(cols):
            ch = row[x]
            fg = _colour(ch.fg, default_fg)
            bg = _colour(ch.bg, default_bg)
            if ch.reverse:
                fg, bg = bg, fg
            style = f"color:{fg};background:{bg}" + (";font-weight:bold" if ch.bold else "") + \
                (";text-decoration:underline" if ch.underscore else "")
            parts.append(f'<span style="{style}">{html.escape(ch.data or " ")}</span>')
        cells.append("".join(parts))
    page = os.path.join(tmp, "screen.html")
    with open(page, "w", encoding="utf-8") as f:
        f.write("<html><body style='margin:0;background:%s'><pre style='margin:8px;font:14px/1.25 "
                "DejaVu Sans Mono, monospace'>%s</pre></body></html>" % (default_bg, "\n".join(cells)))
    width, height = int(cols * 8.45) + 16, int(rows * 17.5) + 16
    subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    f"--window-size={width},{height}", f"--screenshot={os.path.abspath(out)}", "file://" + page],
                   check=True, capture_output=True, timeout=120)
    shutil.rmtree(tmp, ignore_errors=True)
    return out


_NAMED = {"black": "#1e1e1e", "red": "#e06c75", "green": "#98c379", "brown": "#e5c07b", "yellow": "#e5c07b",
          "blue": "#61afef", "magenta": "#c678dd", "cyan": "#56b6c2", "white": "#d8d8d8",
          "brightblack": "#5c6370", "brightred": "#ff7b86", "brightgreen": "#b5e890", "brightyellow": "#ffd68a",
          "brightblue": "#82c4ff", "brightmagenta": "#e29cf5", "brightcyan": "#7fd6e0", "brightwhite": "#ffffff"}


def _colour(c, default):
    if c == "default" or not c:
        return default
    if re.fullmatch(r"[0-9a-fA-F]{6}", c):
        return "#" + c
    return _NAMED.get(c, default)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--spec", action="append", help="spec file (repeatable; default bali and bacchus)")
    ap.add_argument("--edits", type=int, default=200)
    ap.add_argument("--transcript", metavar="FILE", help="also run an editor's session and write its transcript")
    ap.add_argument("--json", metavar="FILE", help="write the figures as JSON")
    ap.add_argument("--screenshot", metavar="PNG", help="only make the Neovim screenshot (needs nvim, pyte, chromium)")
    a = ap.parse_args(argv)
    if a.screenshot:
        print(screenshot(a.screenshot))
        return 0
    specs = a.spec or ["games/bali.yaml", "games/bacchus.yaml"]
    out = {"recheck": [recheck(s, a.edits, incremental=inc) for s in specs for inc in (False, True)]}
    for r in out["recheck"]:
        how = "incremental" if r["incremental"] else "whole (the loader's pipeline)"
        print(f"{r['spec']}: re-check after a one-character edit, {how} ({r['edits']} edits, {r['with_errors']} with errors): "
              f"wall p50 {r['wall_ms']['p50']} ms, p95 {r['wall_ms']['p95']} ms, max {r['wall_ms']['max']} ms; "
              f"CPU p50 {r['cpu_ms']['p50']} ms, p95 {r['cpu_ms']['p95']} ms")
    if a.transcript:
        times, log = session(specs[0])
        out["session"] = times
        write_transcript(a.transcript, times, log, specs[0])
        print(json.dumps(times, indent=2))
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
