"""The output formats (observation, full log lines, log-for lines, saved state) validate against
their JSON Schemas (package data, versioned), for real games of every spec we ship."""
import glob
import os
import random

import jsonschema
import pytest

import gamespec
from gamespec import authoring
from gamespec.authoring.starters import TEMPLATES, spec_text

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPECS = sorted(glob.glob(os.path.join(ROOT, "games", "*.yaml"))) + \
    sorted(glob.glob(os.path.join(ROOT, "docs", "tutorial", "*.yaml"))) + \
    [os.path.join(ROOT, "tests", "specs", f"{n}.yaml") for n in ("bluff", "snap", "bags", "tens")]   # windows, teams


def _validator(name):
    s = authoring.format_schema(name)
    cls = jsonschema.validators.validator_for(s)
    cls.check_schema(s)
    return cls(s)


def _games():
    for path in SPECS:
        yield os.path.relpath(path, ROOT), gamespec.load(path)
    for t in TEMPLATES:
        yield f"template {t}", gamespec.load_text(spec_text("t", t), f"<{t}>")


def _play(game, players, options, seed):
    s = game.new_game(players=players, seed=seed, options=options, log=True)
    rng = random.Random(seed)
    states = [s.clone()]
    while not s.is_terminal:
        s.apply(rng.choice(s.legal_actions()))
        if s.decisions % 40 == 1:
            states.append(s.clone())
    states.append(s)
    return s, states


@pytest.mark.parametrize("label,game", list(_games()), ids=lambda x: x if isinstance(x, str) else "")
def test_outputs_validate(label, game):
    obs, full, lfor, st = (_validator(n) for n in ("observation", "log", "log-for", "state"))
    for players in (game.max_players,):          # the most seats: the most views per state
        for opts in game.option_sets()[:2]:
            s, states = _play(game, players, opts, seed=players)
            seen = set()
            for x in states:
                for p in range(players):
                    _check(obs, x.observation(p), seen)
                _check(st, x.to_json(), seen)
            for line in s.log_lines():
                _check(full, line, seen)
            for p in range(players):
                for line in s.log_for(p):
                    _check(lfor, line, seen)


def _shape(v):
    """What a schema checks of a value, short of its numbers and texts: the keys, the nesting, the
    types (a long game's thousands of log lines have a few dozen shapes)."""
    if isinstance(v, dict):
        return tuple(sorted((k, _shape(x)) for k, x in v.items()))
    if isinstance(v, list):
        return ("[]",) + tuple(sorted(set(map(_shape, v)), key=repr))
    return type(v).__name__


def _check(validator, value, seen):
    """Validates each shape of output once (per validator); every output of a short game is a new
    shape often enough that the seed games' outputs are nearly all checked."""
    key = (id(validator), _shape(value))
    if key not in seen:
        seen.add(key)
        validator.validate(value)


def test_schemas_are_versioned_and_catch_a_broken_output():
    for name in authoring.FORMATS:
        assert authoring.format_schema(name)["$id"].endswith("/1.json")
    game = gamespec.load(os.path.join(ROOT, "games", "klink.yaml"))
    s = game.new_game(players=3, seed=1, log=True)
    o = s.observation(0)
    o["zones"]["number_deck"]["cards"][0] = 17           # a card id where a face or null belongs
    with pytest.raises(jsonschema.ValidationError):
        _validator("observation").validate(o)
    line = s.log_for(1)[0]
    line["seed"] = 1                                       # the seed never reaches a player's log
    with pytest.raises(jsonschema.ValidationError):
        _validator("log-for").validate(line)
    d = s.to_json()
    d["format"] = "gamespec-state/2"
    with pytest.raises(jsonschema.ValidationError):
        _validator("state").validate(d)
