"""The layering of the code (docs/pipeline.md, "Layers"): which package may import which, counting the
imports written inside functions too; no import cycle; optional dependencies only where their command
needs them; importing a leaf loads nothing above it."""
from __future__ import annotations

import ast
import glob
import os
import subprocess
import sys

import pytest

from helpers import ROOT

PACKAGES = {"gamespec": "gamespec", "gamespec.interpreter": "interpreter", "gamespec.grammar": "grammar"}

# The layers, lowest first. A module may import its own layer and the layers its row names, nothing
# else: the front end and the run-time library stand on the errors only, the compile stage on both,
# the facade on the compile stage, the apps on the facade, the command line on everything.
LAYERS = {
    "base": set(),
    "front": {"base"},
    "runtime": {"base"},
    "compile": {"base", "front", "runtime"},
    "facade": {"base", "front", "runtime", "compile"},
    "bots": {"base", "front", "runtime", "compile", "facade"},
    "driver": {"base", "front", "runtime", "compile", "facade", "bots"},
    "app": {"base", "front", "runtime", "compile", "facade", "bots", "driver"},
    "cli": {"base", "front", "runtime", "compile", "facade", "bots", "driver", "app"},
}
FACADE = {"gamespec.game", "gamespec.loader", "gamespec.validation", "gamespec.config"}
APPS = ("analysis", "authoring", "envs", "table", "web", "draw")
# apps that stand on another app (the browser table renders transcripts as the terminal table does)
APP_USES = {("web", "table"), ("web", "authoring"), ("table", "authoring")}   # tables show the rulebook (explain)
# optional dependencies (extras): imported inside the function that needs them, or at the top of a
# module that only their command imports
EXTRAS = ("ray", "open_spiel", "pyspiel", "pettingzoo", "gymnasium", "numpy", "starlette", "uvicorn",
          "websockets", "httpx", "playwright", "rich", "cffi", "matplotlib", "tqdm", "pexpect", "pygls", "lsprotocol")
EXTRA_MODULES = {"gamespec.web.server", "gamespec.envs.pz", "gamespec.envs.openspiel", "gamespec.envs.chance",
                 "gamespec.envs.vector",
                 "gamespec.envs.examples", "gamespec.authoring.lsp.server"}


def layer(mod: str) -> str:
    if mod in ("gamespec", "gamespec.errors", "gamespec.mirrors"):
        return "base"
    if mod.startswith(("gamespec.spec", "gamespec.grammar")):
        return "front"
    if mod.startswith("gamespec.interpreter"):
        return "runtime"
    if mod.startswith("gamespec.compile"):
        return "compile"
    if mod in FACADE:
        return "facade"
    if mod.startswith("gamespec.bots"):
        return "bots"
    if mod == "gamespec.simulate":
        return "driver"
    if mod in ("gamespec.cli", "gamespec.__main__") or mod.startswith("gamespec.commands"):
        return "cli"       # gamespec/commands/: sub-commands in modules of their own, part of the command line
    if mod.split(".")[1] in APPS:
        return "app"
    raise AssertionError(f"module {mod} has no layer: add it to tests/test_layers.py")


def _modules():
    mods = {}
    for pkg, folder in PACKAGES.items():
        for dp, _, files in os.walk(os.path.join(ROOT, folder)):
            for f in files:
                if f.endswith(".py"):
                    parts = os.path.relpath(os.path.join(dp, f), os.path.join(ROOT, folder))[:-3].split(os.sep)
                    if parts[-1] == "__init__":
                        parts = parts[:-1]
                    mods[".".join([pkg] + parts)] = os.path.join(dp, f)
    return mods


MODULES = _modules()


def _resolve(name):
    while name and name not in MODULES:
        name = name.rsplit(".", 1)[0] if "." in name else None
    return name


def imports(path, mod):
    """(target, line, in a function, external name) for every import of the module at `path`."""
    tree = ast.parse(open(path, encoding="utf-8").read())
    base = mod if path.endswith("__init__.py") else mod.rsplit(".", 1)[0]
    out = []

    def visit(node, in_function):
        for ch in ast.iter_child_nodes(node):
            inner = in_function or isinstance(ch, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(ch, ast.Import):
                for a in ch.names:
                    out.append((_resolve(a.name), ch.lineno, in_function, a.name))
            elif isinstance(ch, ast.ImportFrom):
                if ch.level:
                    b = base.split(".")
                    m = ".".join(b[:len(b) - (ch.level - 1)] + ([ch.module] if ch.module else []))
                else:
                    m = ch.module
                for a in ch.names:
                    full = f"{m}.{a.name}"
                    out.append((full if full in MODULES else _resolve(m), ch.lineno, in_function, m))
            elif isinstance(ch, ast.Call) and getattr(ch.func, "id", None) == "require" and ch.args \
                    and isinstance(ch.args[0], ast.Constant):
                out.append((None, ch.lineno, in_function, ch.args[0].value))
            visit(ch, inner)
    visit(tree, False)
    return out


def edges():
    for mod, path in MODULES.items():
        for target, line, in_function, name in imports(path, mod):
            yield mod, target, line, in_function, name


def test_every_module_has_a_layer_and_imports_only_downwards():
    bad = []
    for mod, target, line, in_function, _ in edges():
        if target is None or target == mod:
            continue
        a, b = layer(mod), layer(target)
        if a == b:
            if a == "app" and mod.split(".")[1] != target.split(".")[1] and \
                    (mod.split(".")[1], target.split(".")[1]) not in APP_USES:
                bad.append(f"{MODULES[mod]}:{line}: the app {mod} imports another app, {target}")
            continue
        if b not in LAYERS[a]:
            where = " (inside a function)" if in_function else ""
            bad.append(f"{os.path.relpath(MODULES[mod], ROOT)}:{line}: {mod} ({a}) imports {target} ({b}){where}")
    assert not bad, "imports that run up or across the layers:\n" + "\n".join(bad)


def test_no_import_cycle():
    import networkx as nx
    g = nx.DiGraph()
    for mod, target, *_ in edges():
        if target is not None and target != mod:
            g.add_edge(mod, target)
    cycles = [sorted(c) for c in nx.strongly_connected_components(g) if len(c) > 1]
    assert not cycles, f"import cycles: {cycles}"


def test_the_package_faces_import_nothing_when_imported():
    """gamespec/__init__.py and interpreter/__init__.py (gamespec.interpreter) load their faces on first use (PEP 562)."""
    for mod in ("gamespec", "gamespec.interpreter"):
        top = [(name, line) for _, line, in_function, name in imports(MODULES[mod], mod)
               if not in_function and name != "__future__"]
        assert top == [], f"{mod}/__init__.py imports at module level: {top}"


def test_optional_dependencies_are_imported_only_where_needed():
    bad = []
    for mod, target, line, in_function, name in edges():
        if target is None and name and name.split(".")[0] in EXTRAS and not in_function and mod not in EXTRA_MODULES:
            bad.append(f"{os.path.relpath(MODULES[mod], ROOT)}:{line}: {mod} imports {name} at module level")
    assert not bad, "\n".join(bad)


def _loaded(code):
    out = subprocess.run([sys.executable, "-c", code + "\nimport sys; print(' '.join(sorted(sys.modules)))"],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    return set(out.stdout.split())


@pytest.mark.parametrize("leaf", ["gamespec.errors", "gamespec.mirrors", "gamespec.interpreter.rng", "gamespec.interpreter.runtime", "gamespec.spec.ast",
                                  "gamespec.spec.builtins", "gamespec.spec.visibility"])
def test_importing_a_leaf_loads_no_parser_and_nothing_above_it(leaf):
    mods = _loaded(f"import {leaf}")
    own = {m for m in mods if m.startswith("gamespec")}
    assert "lark" not in mods and "yaml" not in mods and "jsonschema" not in mods, sorted(own)
    assert all(LAYERS[layer(leaf)] | {layer(leaf)} >= {layer(m)} for m in own), sorted(own)


def test_validate_loads_no_optional_dependency_no_compiler_and_no_app():
    mods = _loaded("from gamespec.cli import main\n"
                   "assert main(['validate', 'games/bacchus.yaml']) == 0")
    heavy = sorted(m for m in mods if m.split(".")[0] in EXTRAS or m.startswith(("gamespec.analysis",
                   "gamespec.web", "gamespec.envs", "gamespec.bots", "gamespec.table", "gamespec.interpreter.native",
                   "gamespec.compile.native", "gamespec.compile.cbuild", "cffi", "ctypes")))
    assert heavy == [], heavy


def test_every_package_is_shipped():
    """Each folder with an __init__.py is listed in pyproject.toml (a wheel without it would break)."""
    import re
    text = open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8").read()
    listed = set(re.findall(r'"([\w.]+)"', re.search(r"^packages = \[(.*)\]$", text, re.M).group(1)))
    packages = {m for m, path in MODULES.items() if path.endswith("__init__.py")}
    data_only = {"gamespec.games"}      # games/: the library's YAML files, no module (package data)
    assert os.path.isdir(os.path.join(ROOT, "games")) and data_only <= listed
    assert packages == listed - data_only, (sorted(packages - listed), sorted(listed - packages))


FACES = ["gamespec", "gamespec.errors", "gamespec.game", "gamespec.interpreter", "gamespec.interpreter.views", "gamespec.interpreter.replay",
         "gamespec.loader", "gamespec.simulate", "gamespec.bots", "gamespec.analysis", "gamespec.envs",
         "gamespec.authoring"]


@pytest.mark.parametrize("name", FACES)
def test_each_public_module_names_its_face_and_every_name_exists(name):
    """docs/api.md, "The public face": each module lists its face in __all__, and each name there is
    really there."""
    import importlib
    mod = importlib.import_module(name)
    assert getattr(mod, "__all__", None), f"{name} has no __all__"
    missing = [n for n in mod.__all__ if not hasattr(mod, n)]
    assert not missing, f"{name}.__all__ names what it does not have: {missing}"
    doc = open(os.path.join(ROOT, "docs", "api.md"), encoding="utf-8").read()
    assert f"`{name}`" in doc, f"docs/api.md's public face does not name {name}"


def test_the_schema_lists_the_visibility_tables_names():
    """One table of visibilities (gamespec/spec/visibility.py): the schema's enums for zones, variables
    and marks are exactly its names that apply to each."""
    import json
    from gamespec.spec.visibility import TABLE
    with open(os.path.join(ROOT, "gamespec", "schema.json"), encoding="utf-8") as f:
        defs = json.load(f)["$defs"]
    for what in ("zone", "variable", "mark"):
        want = [v.name for v in TABLE if what in v.applies_to]
        assert sorted(defs[what]["properties"]["visibility"]["enum"]) == sorted(want), what


def test_every_public_error_is_defined_in_errors_py():
    """gamespec/errors.py holds every error gamespec raises on purpose (docs/api.md); the modules that
    raise them import them from there. A class elsewhere deriving from one of them is a defect."""
    import ast
    import gamespec.errors as E
    public = set(E.__all__)
    bad = []
    for folder in ("gamespec", "interpreter"):
        for path in glob.glob(os.path.join(ROOT, folder, "**", "*.py"), recursive=True):
            if path.endswith(os.path.join("gamespec", "errors.py")):
                continue
            tree = ast.parse(open(path, encoding="utf-8").read())
            for node in ast.walk(tree):
                if isinstance(node, ast.ClassDef) and any(
                        (b.id if isinstance(b, ast.Name) else getattr(b, "attr", None)) in public for b in node.bases):
                    bad.append(f"{os.path.relpath(path, ROOT)}:{node.lineno}: {node.name}")
    assert not bad, bad


def test_the_package_face_has_every_error_and_the_version():
    """docs/api.md: `gamespec` exposes load, load_text, Game, the errors and __version__; every error of
    gamespec.errors is the same class from the package (gamespec.BotError was missing)."""
    import gamespec
    import gamespec.errors as E
    assert set(gamespec._ERRORS) == set(E.__all__) and "__version__" in gamespec.__all__
    assert all(getattr(gamespec, n) is getattr(E, n) for n in E.__all__)
    assert set(dir(gamespec)) >= set(gamespec.__all__)
