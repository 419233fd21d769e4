"""Every state a validated spec reaches is a state the engine accepts back: random play over every
spec in games/ and tests/specs/, every player count and option set, each state reloaded from its own
to_json() (a spec whose rules can put a value of the wrong kind in a variable fails here)."""
from __future__ import annotations

import glob
import json
import os
import random

import pytest

from helpers import ROOT, config_id, configs, load

SPECS = sorted(glob.glob(os.path.join(ROOT, "games", "*.yaml"))) + \
    sorted(glob.glob(os.path.join(ROOT, "tests", "specs", "*.yaml")))
CONFIGS = configs(SPECS)
CHECKS_PER_GAME = 12      # states checked per game, spread over its length (each reload replays it)


@pytest.mark.parametrize("cfg", CONFIGS, ids=[config_id(c) for c in CONFIGS])
def test_every_reached_state_reloads_from_its_own_json(cfg):
    path, players, opts = cfg
    g = load(path)
    pick = random.Random(players)
    s = g.new_game(players=players, seed=11, options=opts)
    states = [json.loads(json.dumps(s.to_json()))]
    while not s.is_terminal:
        acts = s.legal_actions()
        s.apply(acts[pick.randrange(len(acts))])
        states.append(json.loads(json.dumps(s.to_json())))
    step = max(1, len(states) // CHECKS_PER_GAME)
    for data in states[::step] + [states[-1]]:
        back = g.state_from_json(data)
        assert back.to_json() == data
