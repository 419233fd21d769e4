"""Shared test helpers: find specs, pick actions, arrange cards in a state."""
from __future__ import annotations

import glob
import os
import random

import gamespec

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GAMES = sorted(glob.glob(os.path.join(ROOT, "games", "*.yaml")))
# the three seed games get every configuration of every generic test; the library's other games (docs/
# games.md) their ends (fewest and most players, and the last option set), and the heaviest generic tests
# run on them in the slow run only (library_slow): the default run stays near 10 minutes
SEED_GAMES = [os.path.join(ROOT, "games", f"{n}.yaml") for n in ("bacchus", "bali", "klink")]
LIBRARY_GAMES = [p for p in GAMES if p not in SEED_GAMES]


def library_slow(paths=None, ids=None):
    """`paths` (default GAMES) as pytest parameters, each library game's marked slow."""
    import pytest
    paths = GAMES if paths is None else paths
    return [pytest.param(p, marks=pytest.mark.slow, id=ids(p) if ids else None) if p in LIBRARY_GAMES
            else pytest.param(p, id=ids(p) if ids else None) for p in paths]

_loaded = {}


def load(path_or_name):
    path = path_or_name if os.sep in path_or_name or path_or_name.endswith(".yaml") else \
        os.path.join(ROOT, "games", f"{path_or_name}.yaml")
    if path not in _loaded:
        _loaded[path] = gamespec.load(path)
    return _loaded[path]


def configs(paths=None):
    """(path, players, options) for every spec, player count and option set."""
    out = []
    for path in paths or GAMES:
        g = load(path)
        sets = g.option_sets()
        if path in LIBRARY_GAMES:       # its ends: fewest and most players, and the last option set
            ends = [(g.min_players, sets[0]), (g.max_players, sets[0]), (g.max_players, sets[-1])]
            out += [(path, p, opts) for i, (p, opts) in enumerate(ends) if (p, opts) not in ends[:i]]
            continue
        for p in range(g.min_players, g.max_players + 1):
            for opts in sets:
                out.append((path, p, opts))
    return out


def config_id(cfg):
    path, p, opts = cfg
    on = [k for k, v in sorted(opts.items()) if v is True] + \
         [f"{k}={v}" for k, v in sorted(opts.items()) if not isinstance(v, bool)]
    return f"{os.path.basename(path)[:-5]}-{p}p" + ("-" + "+".join(on) if on else "")


def find(state, name, **params):
    """The legal action called `name` whose JSON parameters include `params`."""
    for a in state.legal_actions():
        if a.name != name:
            continue
        j = a.to_json(label=False)
        if all(j.get(k) == v for k, v in params.items()):
            return a
    raise AssertionError(f"no legal {name} {params}; legal: {[a.to_json(label=False) for a in state.legal_actions()]}")


def names(state):
    return sorted({a.name for a in state.legal_actions()})


def zi(state, name, key=None):
    rs = state.rs
    z = rs.spec.zones[name]
    base = rs.zone_base[name]
    if key is None:
        return base
    if z.per_player:
        return base + key
    return base + z.keys.index(key)


def zone(state, name, key=None):
    return state.z[zi(state, name, key)]


def face(state, c):
    return state.rs.faces[state.rs.face_of[c]]


def cards_where(state, **attrs):
    return [c for c in range(state.rs.ncards)
            if all(face(state, c).get(k) == v for k, v in attrs.items())]


def var(state, name, player=None):
    base = state.rs.var_base[name]
    return state.v[base + (player or 0)]


def set_var(state, name, value, player=None):
    state.v[state.rs.var_base[name] + (player or 0)] = value


def arrange(state, placement: dict, rest: tuple | None = None):
    """Put the given card ids in the given zones (lists bottom -> top); every other card keeps its
    zone unless `rest=(name, key)` sends it there. Works on the internals: tests only."""
    placed = {c for cs in placement.values() for c in cs}
    if len(placed) != sum(len(cs) for cs in placement.values()):
        raise ValueError("a card placed twice")
    targets = {zi(state, *k) if isinstance(k, tuple) else zi(state, k): cs for k, cs in placement.items()}
    new = [[c for c in z if c not in placed] for z in state.z]
    if rest is not None:
        r = zi(state, *rest) if isinstance(rest, tuple) else zi(state, rest)
        moved = [c for i, z in enumerate(new) if i not in targets and i != r for c in z]
        for i in range(len(new)):
            if i not in targets and i != r:
                new[i] = []
        new[r] = new[r] + moved
    for i, cs in targets.items():
        new[i] = list(cs)
    state.z = new
    state.loc = [0] * state.rs.ncards
    for i, z in enumerate(new):
        for c in z:
            state.loc[c] = i
    state._legal = None
    state._index = None
    return state


def play_random(state, rnd: random.Random, limit=100_000):
    n = 0
    while not state.is_terminal and n < limit:
        acts = state.legal_actions()
        state.apply(acts[rnd.randrange(len(acts))])
        n += 1
    return n


def compiler_reason():
    """Why the native engine cannot be built here (no C compiler), or None."""
    from gamespec.compile.cbuild import NativeUnavailable, compiler
    try:
        compiler()
    except NativeUnavailable as e:
        return str(e)
    return None


def skip_without_cc():
    """A skipif mark for tests of the native engine."""
    import pytest
    why = compiler_reason()
    return pytest.mark.skipif(why is not None, reason=f"native engine: {why}")
