"""The checked spec: plain dataclasses the checker produces and the compiler consumes."""
from __future__ import annotations

import dataclasses

from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any

from ..mirrors import DECISIONS_PER_GAME, STEPS_PER_DECISION, STEPS_PER_GAME

_PLAIN = (str, int, float, bool, type(None))


def plain(x, _done=None):
    """The checked spec's values in plain Python types. The YAML loader's str/dict/list subclasses
    carry file positions for the checker's messages; past the checker they would reach run time
    (action parameters, names, JSON) and fail strict type checks. This module's dataclasses are
    converted in place, field by field (the graph and the checker are tools, not values)."""
    t = type(x)
    if t in _PLAIN:
        return x
    if isinstance(x, str):
        return str.__str__(x)
    if isinstance(x, dict):
        return {plain(k, _done): plain(v, _done) for k, v in x.items()}
    if isinstance(x, list):
        return [plain(v, _done) for v in x]
    if isinstance(x, tuple):
        return tuple(plain(v, _done) for v in x)
    if isinstance(x, (set, frozenset)):
        return type(x)(plain(v, _done) for v in x)
    if is_dataclass(x) and type(x).__module__ == __name__:
        _done = set() if _done is None else _done
        if id(x) not in _done:
            _done.add(id(x))
            for f in fields(x):
                if f.name not in ("ast", "graph", "checker"):
                    setattr(x, f.name, plain(getattr(x, f.name), _done))
    return x


@dataclass
class Rule:
    """One parsed rule string, its AST and where it came from (for run-time error messages)."""
    ast: Any                   # expression node, or list of statements
    where: str                 # e.g. "actions.send.effect"
    filename: str
    line: int
    col: int
    text: str = ""             # the source, for pictures and messages

    @property
    def origin(self) -> str:
        return f"{self.filename}:{self.line}:{self.col} ({self.where})"


@dataclass
class CardClass:
    name: str
    zone: Rule | None          # expression with `it` bound: where its cards lie before set-up
    cond: Rule | None          # option expression: the class exists only when it holds
    label: str | None
    faces: list                # [(attrs dict, count, zone Rule|None, cond Rule|None)]
    label_exprs: list = field(default_factory=list)   # [(placeholder text, AST)]: `{expr}` in the label


@dataclass
class ZoneDecl:
    name: str
    kind: str                  # 'pile' | 'set'
    per_player: bool
    keys: list | None          # family keys, or None for a single zone
    visibility: str            # 'public' | 'owner' | 'all_but_owner' | 'hidden'
    refill_from: str | None
    refill_shuffle: bool
    on_empty: str = "error"    # dealing from it when empty: 'error', 'stop' (deal fewer) or 'refill'
    count: Rule | None = None  # `count: EXPR`: a family of 0..n-1, n from num_players and options at set-up
    per_team: bool = False     # one member per team (the spec's `teams`), keyed by team number

    @property
    def is_family(self) -> bool:
        return self.per_player or self.per_team or self.keys is not None or self.count is not None


@dataclass
class VarDecl:
    name: str
    type: str
    per_player: bool
    initial: Any
    visibility: str
    per_team: bool = False     # one cell per team (the spec's `teams`), indexed by team number


@dataclass
class FunctionDecl:
    """A named function (docs/language.md, Functions): a body of statements ending in `return`,
    compiled once (never inlined), called in expressions."""
    name: str
    params: list               # parameter names
    rule: Rule                 # the body (a list of statements), checked with parameters of any kind
    kind: str = "any"          # the kind of its value (as checked on its own)
    elem: str = "any"          # the kind of a list value's items
    weight: int = 1            # steps one call costs (its body's size outside loops)


@dataclass
class MarkDecl:
    """A per-card mark (docs/language.md, Per-card marks): a value every card carries while it moves."""
    name: str
    type: str                  # 'int' | 'bool'
    initial: Any
    visibility: str            # 'zone' (who sees the card where it lies) | 'public' | 'hidden'
    reset_on_shuffle: bool


@dataclass
class Param:
    name: str
    kind: str                  # card | zone | player | number | choice | subset
    source: Rule | None = None # card/subset: zone or list expression; choice: expression
    family: str | None = None  # zone
    lo: Rule | None = None     # number / subset size
    hi: Rule | None = None
    choices: list | None = None
    where: Rule | None = None


@dataclass
class ActionDecl:
    name: str
    label: str | None
    params: list
    cond: Rule | None
    cost: list                 # [(variable name, Rule)]
    effect: Rule | None
    label_exprs: list = field(default_factory=list)   # [(placeholder text, Rule)]: `{expr}` in the label


@dataclass
class Step:
    kind: str                  # do | choose | if | repeat | while | for
    guard: Rule | None = None
    effect: Rule | None = None
    actions: list = field(default_factory=list)
    fallback: list = field(default_factory=list)
    player: Rule | None = None
    optional: str | None = None
    repeat: bool = False
    if_none: str = "error"
    cond: Rule | None = None   # if / until / while
    body: list = field(default_factory=list)
    orelse: list = field(default_factory=list)
    var: str | None = None
    iter: Rule | None = None
    path: str = ""
    # a `simultaneous` step is a `for` over the choosers whose body is one secret `choose`
    # (both marked), followed at run time by the reveal; `order` is the resolution key
    simultaneous: bool = False
    order: Rule | None = None
    # a `react` step (a reaction window, docs/language.md): `actions` the responses, `iter` the
    # players who may respond, `var` the loop variable of the asking (hidden), `bind` the `as` name,
    # `body` / `orelse` its then / else steps; `ask` 'in_turn' | 'at_once', `until` 'first' | 'all'
    ask: str = ""
    until: str = ""
    bind: str | None = None
    priority: list | None = None   # a window asked at once: the responses, the first beats the others
    window: bool = False       # the choose of a window (its responses are noted by the flow)
    inner: Any = None          # a react step's choose step (the responses, asked of each listed player)


@dataclass
class TurnDecl:
    first: Rule | None
    next: Rule | None
    on_begin: Rule | None
    on_end: Rule | None
    end_if: Rule | None
    steps: list


@dataclass
class PhaseDecl:
    name: str
    on_begin: Rule | None
    on_end: Rule | None
    end_if: Rule | None
    next: list                 # [(Rule|None, target name)]; target 'end' ends the game
    turn: TurnDecl | None


@dataclass
class Spec:
    name: str
    filename: str
    sha256: str
    min_players: int
    max_players: int
    options: dict              # name -> default
    option_values: dict        # name -> allowed ints or None
    classes: list
    attributes: list           # every attribute name, 'type' first
    zones: dict                # name -> ZoneDecl (declaration order)
    variables: dict            # name -> VarDecl
    tables: dict               # name -> {key: value}
    on_begin: Rule | None
    end_if: Rule | None
    on_end: Rule | None
    start: str
    phases: dict               # name -> PhaseDecl
    actions: dict              # name -> ActionDecl
    triggers: list             # [(name, cond Rule, effect Rule)]
    score: Rule | None
    winner: str
    tie_breakers: list
    teams: Rule | None = None  # scoring.teams: p's team (a number); a team's members share its score and win
    steps_per_decision: int = STEPS_PER_DECISION
    decisions_per_game: int = DECISIONS_PER_GAME
    cooperative: bool = False  # one team score; winners: every seat if `success` holds, else none
    success: Rule | None = None
    no_winner_if: Rule | None = None   # a competitive game's outcome where nobody wins (a draw for all)
    steps_per_game: int = STEPS_PER_GAME
    graph: Any = None          # networkx DiGraph, set by the graph stage
    checker: Any = None        # the Checker that built this spec (Game.evaluate reuses its names)
    marks: dict = field(default_factory=dict)   # name -> MarkDecl (declaration order)
    functions: dict = field(default_factory=dict)   # name -> FunctionDecl
    teams_of: Rule | None = None   # top-level `teams`: each seat's team (an expression of p), decided at set-up
    per_team: bool = False     # scoring.per_team: score and tie breakers once per team (t)
    option_ranges: dict = field(default_factory=dict)   # name -> [lo, hi] (`range:`, a tunable number)


def rules(obj, seen=None):
    """Every Rule inside a checked Spec (or any part of it), whatever field holds it."""
    seen = set() if seen is None else seen
    stack = [obj]
    while stack:
        x = stack.pop()
        if isinstance(x, Rule):
            yield x
        elif dataclasses.is_dataclass(x) and not isinstance(x, type):
            if id(x) in seen:
                continue
            seen.add(id(x))
            stack.extend(getattr(x, f.name) for f in dataclasses.fields(x)
                         if f.name not in ("graph", "checker", "zones", "variables", "tables"))
        elif isinstance(x, (list, tuple)):
            stack.extend(x)
        elif isinstance(x, dict):
            stack.extend(x.values())
