"""The checked spec: plain dataclasses the checker produces and the compiler consumes."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


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

    @property
    def is_family(self) -> bool:
        return self.per_player or self.keys is not None


@dataclass
class VarDecl:
    name: str
    type: str
    per_player: bool
    initial: Any
    visibility: str


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
    steps_per_decision: int = 100_000
    decisions_per_game: int = 100_000
    graph: Any = None          # networkx DiGraph, set by the graph stage
    checker: Any = None        # the Checker that built this spec (Game.evaluate reuses its names)
