"""`pip install .` gives a working gamespec with the grammar and schema found as package data."""
from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys

import pytest

from helpers import ROOT


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    target = tmp_path_factory.mktemp("site")
    src = tmp_path_factory.mktemp("src") / "gamespec"
    # build from a copy so the build never writes into the working tree
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(".git", ".venv", "build", "*.egg-info",
                                                              "__pycache__", ".hypothesis", ".pytest_cache"))
    cmd = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), str(src)]
    if importlib.util.find_spec("setuptools") is not None and importlib.util.find_spec("wheel") is not None:
        cmd.insert(4, "--no-build-isolation")   # offline-friendly when the build tools are at hand
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return target


def _env(target):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(target)
    return env


def test_installed_package_loads_a_spec_from_elsewhere(installed, tmp_path):
    assert (installed / "gamespec" / "grammar" / "rules.lark").is_file()
    assert (installed / "gamespec" / "grammar" / "rules_tables.json").is_file()   # no parser built at start
    assert (installed / "gamespec" / "schema.json").is_file()
    code = ("import gamespec, sys; g = gamespec.load(sys.argv[1]); s = g.new_game(players=3, seed=1);"
            "print(gamespec.__file__, len(s.legal_actions()))")
    r = subprocess.run([sys.executable, "-c", code, os.path.join(ROOT, "games", "bacchus.yaml")],
                       capture_output=True, text=True, cwd=tmp_path, env=_env(installed), timeout=120)
    assert r.returncode == 0, r.stderr
    assert str(installed) in r.stdout


def test_one_top_level_name_is_installed(installed, tmp_path):
    """The run time installs as gamespec.interpreter: a top-level `interpreter` would overwrite (or be
    overwritten by) another distribution's package of that name."""
    tops = sorted(p.name for p in installed.iterdir()
                  if (p / "__init__.py").is_file() or p.suffix == ".py")
    assert tops == ["gamespec"], tops
    assert (installed / "gamespec" / "interpreter" / "native" / "runtime.c").is_file()
    # a foreign `interpreter` on the path changes nothing
    (tmp_path / "interpreter").mkdir()
    (tmp_path / "interpreter" / "__init__.py").write_text("raise SystemExit('the foreign interpreter was imported')\n")
    code = ("import gamespec, sys; g = gamespec.load(sys.argv[1]); s = g.new_game(players=3, seed=1);"
            "import gamespec.interpreter as i; print(i.__file__)")
    env = _env(installed)
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), str(installed)])
    r = subprocess.run([sys.executable, "-c", code, os.path.join(ROOT, "games", "bacchus.yaml")],
                       capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert str(installed / "gamespec" / "interpreter") in r.stdout


def test_installed_console_script(installed, tmp_path):
    script = installed / "bin" / "gamespec"
    assert script.is_file()
    r = subprocess.run([sys.executable, str(script), "validate", os.path.join(ROOT, "games", "bacchus.yaml")],
                       capture_output=True, text=True, cwd=tmp_path, env=_env(installed), timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr


def test_installed_authoring_data(installed, tmp_path):
    """Templates, the reference table and the format schemas ship as package data."""
    data = installed / "gamespec" / "authoring"
    for f in ("data/reference.yaml", "templates/take-that.yaml", "templates/trick-taking.yaml",
              "templates/set-collection.yaml", "schemas/observation.json", "schemas/log.json",
              "schemas/log-for.json", "schemas/state.json"):
        assert (data / f).is_file(), f
    script = str(installed / "bin" / "gamespec")
    for args in (["new", "g", "--from", "set-collection"], ["validate", "g.yaml"], ["explain", "g.yaml"],
                 ["schema", "--format", "state"]):
        r = subprocess.run([sys.executable, script] + args, capture_output=True, text=True, cwd=tmp_path,
                           env=_env(installed), timeout=120)
        assert r.returncode == 0, r.stdout + r.stderr


def test_installed_web_assets(installed):
    """The page of `gamespec serve` (plain HTML/CSS/JS) ships as package data."""
    static = installed / "gamespec" / "web" / "static"
    for f in ("lobby.html", "seat.html", "style.css", "lobby.js", "seat.js"):
        assert (static / f).is_file(), f


def test_installed_library_of_games(installed, tmp_path):
    """The library's games ship as package data and are found from anywhere: `gamespec list` names
    every game of games/, `new --from` copies one (a namespace's MultiplexedPath once hid them)."""
    import glob
    import json
    script = str(installed / "bin" / "gamespec")
    r = subprocess.run([sys.executable, script, "list", "--json"], capture_output=True, text=True, cwd=tmp_path,
                       env=_env(installed), timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    listed = json.loads(r.stdout)
    ids = {g["id"] for g in (listed["games"] if isinstance(listed, dict) else listed)}
    assert ids == {os.path.basename(p)[:-5] for p in glob.glob(os.path.join(ROOT, "games", "*.yaml"))}
    r = subprocess.run([sys.executable, script, "new", "mine", "--from", "hearts"], capture_output=True, text=True,
                       cwd=tmp_path, env=_env(installed), timeout=120)
    assert r.returncode == 0 and (tmp_path / "mine.yaml").is_file(), r.stdout + r.stderr
