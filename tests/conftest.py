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


# The library's games (games/ beyond the three seed games) in the default run: the tests the issue asks
# of every game (random simulation, the leak property, native = Python, the rulebook, check --strict,
# golden playthroughs, their own rules); every other per-game test runs them in the slow run (-m slow),
# where the seed games and tests/specs/ keep them all in the default run.
_LIBRARY_DEFAULT = {"test_simulation.py", "test_leaks.py", "test_native.py", "test_authoring.py",
                    "test_library.py", "test_golden_logs.py", "test_generic_engine.py", "test_openspiel_chance.py"}


def _library_ids():
    import glob
    import os
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    paths = sorted(glob.glob(os.path.join(root, "games", "*.yaml")))
    paths = [p for p in paths if os.path.basename(p)[:-5] not in ("bacchus", "bali", "klink")]
    return set(paths), {os.path.basename(p)[:-5] for p in paths} | {os.path.basename(p) for p in paths}


def _names_a_library_game(value, paths, names) -> bool:
    if isinstance(value, str):
        return value in paths or value in names
    if isinstance(value, (tuple, list)) and value:
        return any(_names_a_library_game(v, paths, names) for v in value[:2])
    return False


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    import os
    paths, names = _library_ids()
    slow = pytest.mark.slow
    for item in items:
        module = os.path.basename(str(item.fspath))
        if module in _LIBRARY_DEFAULT or module.startswith("test_lib_"):
            continue
        spec = getattr(item, "callspec", None)
        if spec is not None and any(_names_a_library_game(v, paths, names) for v in spec.params.values()):
            item.add_marker(slow)
