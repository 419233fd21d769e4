"""The tables the two engines mirror (docs/native.md, "One table of mirrors"): each code a game can stop
with and each limit, declared once here and read by the Python engine, the C generator and the native
engine's loader; the C run-time library's copies (`interpreter/native/runtime.h`: its `enum` of codes
and its `#define`d limits) are held equal to these rows by tests/test_mirrors.py.

The other mirrored concepts have their one table where their stage lives: the built-ins in
`gamespec/spec/builtins.py` (each with its C side or the reason it has none), the flow instructions in
`gamespec/compile/flow.py` (`KINDS`). This module is in the base layer: it imports nothing, so every
stage may read it.
"""
from __future__ import annotations

from dataclasses import dataclass


# -- how a game stops --------------------------------------------------------------------------
@dataclass(frozen=True)
class Stop:
    code: int       # the number C's rt_stop(g, code) leaves in g->why
    name: str       # its enumerator in runtime.h
    #: a fault: the `check` of the SpecRuntimeError the Python engine raises for it; a bail: the words
    #: a report says it in (the game is played again on the Python engine, which decides)
    check: str
    what: str = ""


def _f(code, name, check, what):
    return Stop(code, name, check, what)


#: faults: C stops where the Python engine raises SpecRuntimeError(check=...)
FAULTS = (
    _f(1, "F_BUDGET", "budget", "a rule's step budget (limits.steps_per_decision)"),
    _f(2, "F_DIV0", "runtime", "division or modulo by zero"),
    _f(3, "F_KEY", "runtime", "a key a table, a flow variable or a choice does not have"),
    _f(4, "F_INDEX", "runtime", "an index out of range"),
    _f(5, "F_NONE_ATTR", "runtime", "an attribute of none"),
    _f(6, "F_PLAYER", "not-a-player", "a player index that is not a seat"),
    _f(7, "F_INT_SIZE", "int-size", "a number beyond |n| < 2^63, or an exponent out of range"),
    _f(8, "F_VALUE_SIZE", "value-size", "a list or text built beyond MAX_LIST / MAX_TEXT"),
    _f(9, "F_EMPTY_ZONE", "empty-zone", "a deal from an empty zone that stops"),
    _f(10, "F_NO_LEGAL", "no-legal-action", "a decision with no legal action and no fallback"),
    _f(11, "F_TYPE", "type", "a value of the wrong kind where the checker could not tell"),
    _f(12, "F_NO_CARD", "runtime", "none where a card is needed"),
    _f(13, "F_EMPTY_LIST", "runtime", "max()/min() of an empty list without default"),
    _f(14, "F_GAME_BUDGET", "game-budget", "limits.decisions_per_game"),
    _f(15, "F_GAME_STEPS", "game-steps", "limits.steps_per_game"),
    _f(16, "F_FLOW", "runtime", "no phase transition holds, or end_phase()/end_turn() where none is"),
    _f(17, "F_SIMULTANEOUS", "simultaneous", "a simultaneous step's chooser twice"),
    _f(18, "F_CHOICES", "budget", "a parameter with more than MAX_CHOICES values"),
    _f(19, "F_DEAL", "runtime", "a deal of a negative count or more than MAX_DEAL cards"),
    _f(20, "F_MARK", "runtime", "a mark's value of the wrong type"),
    _f(21, "F_RANGE", "budget", "range() of more than MAX_RANGE numbers"),
    _f(22, "F_TEAM", "runtime", "a team index that is not a team"),
    _f(23, "F_REACT", "react", "a reaction window's responder listed twice"),
    _f(24, "F_CALL_DEPTH", "call-depth", "spec functions nested more than MAX_CALL_DEPTH calls"),
)

#: bails: C stops where Python's dynamic semantics go on in a way the C code does not follow
BAILS = (
    _f(64, "B_TYPE", "bail: a value of another kind", "a value of a kind the checker did not promise"),
    _f(65, "B_TEXT", "bail: a text built at run time", "texts are interned ids in C"),
    _f(66, "B_OVERFLOW", "bail: beyond 64 bits", "a partners' tie-breaker total beyond 64 bits"),
    _f(67, "B_MEMORY", "bail: arena memory", "lists beyond ARENA_CAP in one decision"),
    _f(68, "B_CARD", "bail: not a card", "a card value that is not a card id"),
    _f(69, "B_STATE", "bail: state", "a state C cannot hold or continue"),
    _f(70, "B_LIMIT", "bail: a limit", "a C-only limit (MAX_COMBOS_WALKED, MAX_SEARCH)"),
)

#: checks the Python engine raises that no C fault mirrors, with the reason
PYTHON_ONLY_CHECKS = {
    "rule-depth": "Python's own recursion limit (RecursionError) in a rule: C's rules are not recursive",
    "card-count": "raised at set-up while the rule set is compiled, before any C runs",
    "spec": "a spec error, raised before any game runs",
}

#: a game's status after C ran it (runtime.h's ST_*)
STATUS = {"ST_OK": 0, "ST_FAULT": 1, "ST_BAIL": 2, "ST_TIMEOUT": 3, "ST_ERROR": 4}

#: code -> what a report says (native_engine.WHY): a fault's check, a bail's words
WHY = {s.code: s.check for s in FAULTS + BAILS}
#: runtime.h's enumerator -> code
STOP_CODES = {s.name: s.code for s in FAULTS + BAILS}


# -- limits ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Limit:
    name: str
    value: int
    what: str
    #: where C holds it: "header" (a #define of this name in runtime.h, held equal by the mirror
    #: test), "emitted" (the C generator reads it here), "python" (the Python stages decide it: C
    #: never meets it, or only through values the generator hands over; the reason in `what`)
    c: str


def _l(name, value, c, what):
    return Limit(name, value, what, c)


LIMITS = (
    _l("MAX_LIST", 100_000, "header", "items in a list a rule builds (F_VALUE_SIZE); combinatorics' lists"),
    _l("MAX_RANGE", 100_000, "header", "numbers in one range(...) (F_RANGE)"),
    _l("MAX_TEXT", 1_000_000, "header", "characters in a text a rule builds (F_VALUE_SIZE)"),
    _l("MAX_DEAL", 100_000, "header", "cards one deal(...) may name (F_DEAL)"),
    _l("MAX_CHOICES", 10_000, "header", "values of one parameter (F_CHOICES)"),
    _l("MAX_EXPONENT", 64, "header", "the greatest exponent of `**` (F_INT_SIZE)"),
    _l("MAX_CALL_DEPTH", 32, "emitted", "calls of spec functions nested (F_CALL_DEPTH; the generated functions' check)"),
    _l("MAX_CARDS", 100_000, "emitted", "cards of a game (the checker's card-count; the C generator's bound)"),
    _l("MAX_FACES", 10_000, "python", "faces the card classes expand to (the checker: C gets them laid out)"),
    _l("MAX_NATIVE_PLAYERS", 62, "emitted", "seats C holds (knowledge masks of 64 bits); the schema allows 16"),
    _l("MAX_SOURCE_BYTES", 1_000_000, "python", "generated C refused before a compiler runs (cbuild)"),
    _l("ARENA_CAP", 256 << 20, "header", "bytes of lists in one decision in C (beyond: B_MEMORY); Python's "
       "lists are bounded by MAX_LIST and the budgets"),
    _l("MAX_COMBOS_WALKED", 20_000_000, "header", "subsets C walks for one parameter (beyond: B_LIMIT; "
       "Python is bounded by the step budget)"),
    _l("MAX_SEARCH", 100_000, "header", "a C search's listing size and path length (beyond: B_LIMIT)"),
    # a spec's budgets' defaults (the checker's); C gets the spec's values in its Layout
    _l("STEPS_PER_DECISION", 100_000, "python", "limits.steps_per_decision's default"),
    _l("DECISIONS_PER_GAME", 100_000, "python", "limits.decisions_per_game's default"),
    _l("STEPS_PER_GAME", 5_000_000, "python", "limits.steps_per_game's default"),
)

#: name -> value, and each limit as a module constant (from gamespec.mirrors import MAX_LIST)
LIMIT = {x.name: x.value for x in LIMITS}
globals().update(LIMIT)
#: numbers stay strictly between -INT_LIMIT and INT_LIMIT in both engines (C: int64_t, INT64_MIN excluded)
INT_LIMIT = 1 << 63
