"""Taking a decision back, the one rule of every table (the terminal's `u`, the browser's undo):

- only **one's own last decision**: the last decision of the game is the seat's (nobody has decided
  after it; several decisions in a row are taken back one at a time);
- only while **nothing new became known to anyone**: the state before the decision is rebuilt by
  re-playing the table's decisions without the last one from the seed (exactly that state), and
  for every card and every player what they see or know is compared with now, with what the
  decision showed on its way, and a decision that shuffled is refused (`news`);
- **logged**: a public note, "seat 1 took back decision 14", placed after decision 13.

A table here is any object with `game`, `players`, `seed`, `options`, `state` (played with
log=True), `actions` (every decision as the engine's JSON), `deciders` (who took each, public) and
`notes` (a list): gamespec/table/play.py's and gamespec/web/tables.py's tables.
"""
from __future__ import annotations

from gamespec.errors import UndoRefused

GAME_OVER = "the game is over"
TOO_LATE = "only your own last decision can be taken back, before anyone decides after it"
REVEALED = "that decision showed a card: it can no longer be taken back"
SHUFFLED = "that decision led to a shuffle: it can no longer be taken back"


def replay(game, players, seed, options, actions):
    """The state of a new game from `seed` with `actions` (engine JSON) applied in order."""
    state = game.new_game(players=players, seed=seed, options=options, log=True)
    for a in actions:
        state.apply(a)
    return state


def news(before, after):
    """What the decision from `before` to `after` (and the play up to the next decision) made known:
    None if nothing, else why not:

    - "shuffled": it shuffled a pile (the order drawn is the chance's; whether anyone learned from it,
      say by drawing a card they had seen before, depends on cards they may not see: a refusal by
      that would tell them, so every shuffle refuses);
    - "revealed": a player sees or knows a card in `after` that they did not in `before`, or saw one
      during the decision (its events in the history keep who saw each of their cards; a look).

    What the decision itself was is not counted: everyone sees a decision taken. Whatever decides the
    answer is what every seat knows (the zones' moves, who knows which place), so the answer tells
    nobody anything of a card (tests/test_web.py, the leak property)."""
    from gamespec.interpreter.observe import history_entries
    if after.shuffles != before.shuffles:
        return "shuffled"
    rs = after.rs
    known = before._vis
    for c in range(rs.ncards):
        if after._vis(c) & ~known(c) & rs.ALL:
            return "revealed"
    old = history_entries(before)
    for k, ev in enumerate(history_entries(after)):
        if k < len(old) and ev == old[k]:
            continue                    # an event of before: nothing it shows is new
        if ev[0] in ("d", "s", "v"):    # a decision (a secret one, a revealed one): who saw its cards
            for _, cards, masks in ev[4]:
                if any(m & ~known(c) & rs.ALL for c, m in zip(cards, masks)):
                    return "revealed"
        elif ev[0] == "r":              # a look: player ev[1] saw these cards
            if any(not known(c) >> ev[1] & 1 for c in ev[2]):
                return "revealed"
    return None


def learned(before, after) -> bool:
    """Did the decision from `before` to `after` make anything known (news)?"""
    return news(before, after) is not None


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
    why = news(before, table.state)
    if why == "shuffled":
        raise UndoRefused(SHUFFLED, "undo-shuffled")
    if why is not None:
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


def placed(notes) -> list:
    """The notes in the order a history shows them, each with the decision it follows: a note goes
    after decision `at`, or earlier when a later undo took that decision back too (then the notes
    read in the order they were made: "took back decision 15", "took back decision 14")."""
    out = []
    low = float("inf")
    for x in reversed(notes):
        low = min(low, x["at"])
        out.append((low, x))
    out.reverse()
    return sorted(out, key=lambda pair: pair[0])          # stable: the same place keeps the order made

