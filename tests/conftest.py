import os
import sys

# The tests run against the working tree (also when the package is installed elsewhere).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import pytest


@pytest.fixture(scope="session", autouse=True)
def _native_cache(tmp_path_factory):
    """The native engine's build cache: a temporary directory for the whole run (shared by the xdist
    workers; concurrent builds race safely), never the user's ~/.cache/gamespec."""
    root = tmp_path_factory.getbasetemp()
    root = root.parent if os.environ.get("PYTEST_XDIST_WORKER") else root
    d = str(root / "gamespec-native-cache")
    old = os.environ.get("GAMESPEC_CACHE")
    os.environ["GAMESPEC_CACHE"] = d
    yield d
    if old is None:
        os.environ.pop("GAMESPEC_CACHE", None)
    else:
        os.environ["GAMESPEC_CACHE"] = old


_CACHES = {".pytest_cache", ".hypothesis", "__pycache__", ".ruff_cache", ".venv", ".git"}


def _root_snapshot(root):
    """The repository root's entries (a file by size and time of change): what a user keeps there."""
    out = {}
    for name in os.listdir(root):
        if name in _CACHES or name.endswith(".egg-info"):
            continue
        path = os.path.join(root, name)
        st = os.lstat(path)
        out[name] = (st.st_size, st.st_mtime_ns) if os.path.isfile(path) and not os.path.islink(path) else "dir"
    return out


@pytest.fixture(scope="session", autouse=True)
def _repo_root_untouched():
    """Tests write only under their own temporary folders: the run fails (an error at the end) if a
    file in the repository's root appeared, vanished or changed while it ran (a docs test once
    overwrote a user's study records through links)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    before = _root_snapshot(root)
    yield
    after = _root_snapshot(root)
    changed = sorted(n for n in set(before) | set(after) if before.get(n) != after.get(n))
    assert not changed, f"the test run changed the repository's root: {changed}"
