"""Taking a decision back, the one rule of every table (the terminal's `u`, the browser's undo):

- only **one's own last decision**: the last decision of the game is the seat's (nobody has decided
  after it; several decisions in a row are taken back one at a time);
- only while **nothing new became known to anyone**: the state before the decision is rebuilt by
  re-playing the table's decisions without the last one from the seed (exactly that state), and
  for every card and every player what they see or know is compared with now (`learned`);
- **logged**: a public note, "seat 1 took back decision 14", placed after decision 13.

A table here is any object with `game`, `players`, `seed`, `options`, `state` (played with
log=True), `actions` (every decision as the engine's JSON), `deciders` (who took each, public) and
`notes` (a list): gamespec/table/play.py's and gamespec/web/tables.py's tables.
"""
from __future__ import annotations

from gamespec.errors import GamespecError

GAME_OVER = "the game is over"
TOO_LATE = "only your own last decision can be taken back, before anyone decides after it"
REVEALED = "that decision showed a card: it can no longer be taken back"


class UndoRefused(GamespecError):
    """The rule refuses the undo; `.kind`: game-over, undo-too-late or undo-revealed."""

    def __init__(self, message, kind):
        super().__init__(message)
        self.kind = kind


def replay(game, players, seed, options, actions):
    """The state of a new game from `seed` with `actions` (engine JSON) applied in order."""
    state = game.new_game(players=players, seed=seed, options=options, log=True)
    for a in actions:
        state.apply(a)
    return state


def learned(before, after) -> bool:
    """Does any player see or know a card in `after` that they did not in `before`? (What the
    decision itself was is not counted: everyone sees a decision taken.)"""
    rs = after.rs
    for c in range(rs.ncards):
        if after._vis(c) & ~before._vis(c) & rs.ALL:
            return True
    return False


def check_public(table, seat) -> None:
    """UndoRefused if what every seat sees already refuses the undo: the game is over, or the last
    decision of the game is not `seat`'s (the messages' `can_undo` says the same)."""
    if table.state.is_terminal:
        raise UndoRefused(GAME_OVER, "game-over")
    if not table.deciders or table.deciders[-1] != seat:
        raise UndoRefused(TOO_LATE, "undo-too-late")


def check(table, seat):
    """The state before `seat`'s last decision if the rule allows taking it back; UndoRefused
    otherwise. The table is not touched."""
    check_public(table, seat)
    before = replay(table.game, table.players, table.seed, table.options, table.actions[:-1])
    if learned(before, table.state):
        raise UndoRefused(REVEALED, "undo-revealed")
    return before


def take_back(table, seat) -> dict:
    """Take back `seat`'s last decision (UndoRefused, the table untouched, if the rule does not
    allow it): the table's state becomes the state before it, the decision leaves `actions` and
    `deciders`, the note is added to `notes` and returned ({"at", "seat", "decision", "text"})."""
    before = check(table, seat)
    n = len(table.actions)
    table.state = before
    table.actions.pop()
    table.deciders.pop()
    note = {"at": n - 1, "seat": seat, "decision": n, "text": f"seat {seat} took back decision {n}"}
    table.notes.append(note)
    return note
