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
