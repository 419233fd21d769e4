"""Actions and logs survive JSON (issue 10): what the engine hands out as JSON comes back accepted.

Generic over every spec in games/ and tests/specs/, every player count and every option set:
- every legal action of random games, through `json.loads(json.dumps(a.to_json()))`, is accepted by
  `apply()` (on a clone, for every action at the first decisions; the chosen one for real, always);
- no loader type (the YAML loader's position-carrying str/dict/list subclasses) reaches run-time
  values: the checked spec holds plain Python values only, and so do actions and observations;
- `gamespec run --log` followed by `gamespec replay` says OK (a few seeds each).
"""
from __future__ import annotations

import dataclasses
import glob
import json
import os
import random

import pytest

from gamespec.spec import yamlsafe
from gamespec.cli import main
from helpers import ROOT, GAMES, config_id, configs, load

SPECS = GAMES + sorted(glob.glob(os.path.join(ROOT, "tests", "specs", "*.yaml")))
CONFIGS = configs(SPECS)
LOADER_TYPES = (yamlsafe.YStr, yamlsafe.YMap, yamlsafe.YList)
PLAIN = (str, int, float, bool, type(None))
ALL_ACTIONS_DECISIONS = 12     # every legal action is tried on a clone at the first decisions
MAX_DECISIONS = 400            # then the game goes on with the chosen action only, up to here


def _loader_values(obj, path="spec", seen=None):
    """Paths inside the checked spec (dataclasses, containers, AST nodes) that hold a loader type."""
    seen = set() if seen is None else seen
    if id(obj) in seen:
        return []
    seen.add(id(obj))
    if isinstance(obj, LOADER_TYPES):
        return [path]
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        out = []
        for f in dataclasses.fields(obj):
            if f.name in ("checker", "graph"):   # tools of the loader, not values the game runs on
                continue
            out += _loader_values(getattr(obj, f.name), f"{path}.{f.name}", seen)
        return out
    if isinstance(obj, dict):
        out = []
        for k, v in obj.items():
            out += _loader_values(k, f"{path}[key {k!r}]", seen) + _loader_values(v, f"{path}[{k!r}]", seen)
        return out
    if isinstance(obj, (list, tuple, set, frozenset)):
        return [p for i, x in enumerate(obj) for p in _loader_values(x, f"{path}[{i}]", seen)]
    return []


def _json_types(obj, path="$"):
    """Paths of values whose type is not exactly a JSON type (a str subclass is not a str here)."""
    if type(obj) in PLAIN:
        return []
    if type(obj) is dict:
        return [p for k, v in obj.items() for p in _json_types(k, f"{path}.key") + _json_types(v, f"{path}.{k}")]
    if type(obj) is list:
        return [p for i, x in enumerate(obj) for p in _json_types(x, f"{path}[{i}]")]
    return [f"{path}: {type(obj).__name__}"]


@pytest.mark.parametrize("path", SPECS, ids=[os.path.basename(p) for p in SPECS])
def test_checked_spec_holds_no_loader_types(path):
    spec = load(path).spec
    assert _loader_values(spec) == []


@pytest.mark.parametrize("cfg", CONFIGS, ids=[config_id(c) for c in CONFIGS])
def test_every_action_survives_json(cfg):
    path, players, opts = cfg
    game = load(path)
    for seed in (1, 2):
        rng = random.Random(seed)
        state = game.new_game(players=players, seed=seed, options=opts)
        n = 0
        while not state.is_terminal and n < MAX_DECISIONS:
            legal = state.legal_actions()
            for a in legal if n < ALL_ACTIONS_DECISIONS else ():
                j = a.to_json()
                assert _json_types(j) == [], j
                back = json.loads(json.dumps(j))
                c = state.clone()
                c.apply(back)          # IllegalAction here is the defect
            a = rng.choice(legal)
            state.apply(json.loads(json.dumps(a.to_json())))
            n += 1
        for p in range(players):
            assert _json_types(state.observation(p)) == []
        assert _json_types(state.to_json()) == []


def _option_args(opts):
    out = []
    for k, v in opts.items():
        out += ["--option", f"{k}={str(v).lower() if isinstance(v, bool) else v}"]
    return out


# the CLI round trip: smallest and largest player counts, every option set, two seeds
CLI_CONFIGS = [c for c in CONFIGS if c[1] in (load(c[0]).min_players, load(c[0]).max_players)]


@pytest.mark.parametrize("cfg", CLI_CONFIGS, ids=[config_id(c) for c in CLI_CONFIGS])
def test_run_log_replays(cfg, tmp_path, capsys):
    path, players, opts = cfg
    for seed in (7, 8):
        log = str(tmp_path / f"game{seed}.jsonl")
        assert main(["run", path, "--players", str(players), "--seed", str(seed), "--log", log]
                    + _option_args(opts)) == 0, capsys.readouterr().err
        capsys.readouterr()
        rc = main(["replay", log, "--spec", path])
        out = capsys.readouterr()
        assert rc == 0, out.err
        assert ": OK," in out.out
