"""The compile stage: checked Spec + player count + options → Ruleset (card tables, zone/variable
layout, the rules as Python functions, the flow as a flat program of instructions).

- `ruleset.py`  the face: `Ruleset(spec, players, options)`; option sets
- `closures.py` the reference backend: rule ASTs → closures (`GAMESPEC_BACKEND=closures`)
- `codegen.py`  the default backend: rule ASTs → generated Python functions
- `flow.py`     phases and steps → the program the interpreter runs between decisions
- `depends.py`  what a rule may read or write, so the flow skips checks a block cannot change
"""
