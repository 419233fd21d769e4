"""The compile stage: checked Spec + player count + options → Ruleset (card tables, zone/variable
layout, the rules as Python functions, the flow as a flat program of instructions).

- `ruleset.py`      the face: `Ruleset(spec, players, options)`: layout, card tables, compiled rules
- `codegen.py`      the default backend: rule ASTs → generated Python functions
- `closures.py`     the reference backend: rule ASTs → closures (`GAMESPEC_BACKEND=closures`)
- `costs.py`        what a loop iteration or a comprehension item charges (both backends)
- `flow.py`         phases and steps → the program the interpreter runs between decisions
- `fused.py`        per decision point and action, one generated function from the decision to the next
- `depends.py`      what a rule may read or write, so the flow skips checks a block cannot change
- `actions.py`      action declarations → compiled actions (parameters, cost, effect, label)
- `labels.py`       label expressions → their text from an action's parameters alone
- `action_space.py` the fixed numbering of every action a player could see (agents)
- `native/`         the native backend: a Ruleset → C source of whole playouts (docs/native.md)
- `cbuild.py`       that C source → a built, cached and key-checked shared library (the C compiler)

Compiled code calls one run-time library, `interpreter/runtime.py` (docs/runtime.md).
"""
