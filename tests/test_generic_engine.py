"""The engine stays generic: no name a game defines appears in gamespec/, interpreter/ or grammar/,
and every primitive of the language is documented with at least two uses."""
from __future__ import annotations

import glob
import os
import re

import pytest

from gamespec.spec.builtins import BUILTINS
from gamespec.spec.yamlsafe import load_yaml_file

from helpers import GAMES, ROOT

# Generic words a game may also use as a name; each is a word of the card-game domain or of the
# language itself, not a rule of one game.
ALLOWED = {
    "deck": "every card game has decks", "hand": "every card game has hands",
    "discard": "generic pile", "top": "a builtin", "played": "generic pile", "removed": "generic pile",
    "players": "a builtin constant", "value": "generic attribute", "kind": "a zone field (pile/set)",
    "type": "the card class attribute", "stock": "generic", "supply": "generic", "market": "generic",
    "pile": "zone kind", "set": "zone kind", "count": "a builtin", "total": "generic counter",
    "points": "generic counter", "score": "scoring key", "round": "generic", "row": "generic",
    "column": "generic", "first": "a builtin", "had": "generic English", "holder": "generic",
    "actions": "the spec key", "passes": "generic", "faceup": "generic", "facedown": "generic",
    "pair": "generic", "keeper": "generic", "revealed": "generic", "plain": "generic English",
    "up": "move(face='up')", "down": "move(face='down')", "none": "a literal", "true": "a literal",
    "false": "a literal", "number": "param kind", "choice": "param kind", "player": "param kind",
    "zone": "param kind", "from": "param kind", "next": "hook name", "start": "spec key",
    "collection": "generic", "tableau": "generic", "pool": "generic", "box": "generic",
    "stones": None, "vp": None,
    # ordinary English and card-table words the library's games (games/) name variables with, which the
    # engine's code also uses in their plain sense: no rule of a game
    "card": "the domain's word", "called": "generic English", "done": "generic English",
    "drawn": "generic English", "finished": "generic English", "free": "generic English",
    "hands": "the domain's word", "leader": "generic (a study's leader, a trick's leader)",
    "need": "generic English", "offer": "generic English", "place": "generic English",
    "ranking": "generic (a final ranking)", "rounds": "generic counter", "taken": "generic English",
    "won": "generic English", "guard": "a code word (a transition's guard) and a card's name",
    # CSS colour words: gamespec/spec/presentation.py's default card colours for an attribute's values
    "yellow": "a colour word", "blue": "a colour word", "green": "a colour word", "pink": "a colour word",
    "orange": "a colour word",
}
ALLOWED = {k: v for k, v in ALLOWED.items() if v}


def spec_names():
    names = set()
    for path in GAMES:
        d = load_yaml_file(path)
        names |= set(d.get("cards", {}))
        for cl in d.get("cards", {}).values():
            for f in cl["faces"]:
                for k, v in f.items():
                    if k in ("count", "zone", "if"):
                        continue
                    if k == "each":
                        for attr, vals in v.items():
                            names |= {x for x in vals if isinstance(x, str)}
                    elif isinstance(v, str):
                        names.add(v)
        # card types, attribute values, counters and options (the list)
        for key in ("variables", "options"):
            names |= set(d.get(key) or {})
    return {n for n in names if isinstance(n, str) and len(n) > 2}


def engine_words():
    words = {}
    for folder in ("gamespec", "interpreter", "grammar"):
        for path in glob.glob(os.path.join(ROOT, folder, "**", "*"), recursive=True):
            if not path.endswith((".py", ".lark", ".json")):
                continue
            text = open(path, encoding="utf-8").read()
            for w in set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text)):
                words.setdefault(w.lower(), path)
    return words


def test_no_game_vocabulary_in_the_engine():
    words = engine_words()
    leaks = sorted((n, words[n.lower()]) for n in spec_names()
                   if n.lower() in words and n.lower() not in ALLOWED)
    assert not leaks, f"game names in the engine: {leaks}"


def test_guard_sees_the_games():
    names = spec_names()
    assert {"maenad", "yellow", "satyr", "passes"} <= names


def _uses():
    texts = []
    for path in GAMES + sorted(glob.glob(os.path.join(ROOT, "tests", "specs", "*.yaml"))):
        texts.append((path, open(path, encoding="utf-8").read()))
    return texts


@pytest.mark.parametrize("name", sorted(BUILTINS))
def test_every_builtin_is_documented_with_two_uses(name):
    doc = open(os.path.join(ROOT, "docs", "primitives.md"), encoding="utf-8").read()
    assert f"`{name}(" in doc, f"{name} is not documented in docs/primitives.md"
    users = [p for p, t in _uses() if re.search(rf"\b{name}\(", t)]
    assert len(users) >= 2, f"{name} is used in fewer than two specs of games/ and tests/specs/: {users}"
