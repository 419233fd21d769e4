"""The code passes ruff (pyflakes and pycodestyle, configured in pyproject.toml): no unused import or
variable, no undefined name, no syntax the linter refuses."""
from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from helpers import ROOT


def _ruff():
    exe = shutil.which("ruff", path=str(__import__("pathlib").Path(sys.executable).parent)) or shutil.which("ruff")
    if exe is None:
        pytest.skip("ruff is not installed (it is in the test extra: pip install '.[test]')")
    return exe


def test_ruff_finds_nothing():
    out = subprocess.run([_ruff(), "check", "--no-cache", "."], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
