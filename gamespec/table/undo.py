"""Taking a decision back, the one rule of every table (the terminal's `u`, the browser's undo):

- only **one's own last decision**: the last decision of the game is the seat's (nobody has decided
  after it; several decisions in a row are taken back one at a time);
- only while **nothing new became known to anyone**: the state before the decision is rebuilt by
  re-playing the table's decisions without the last one from the seed (exactly that state), and
  for every card and every player what they see or know is compared with now, with what the
  decision showed on its way, and a decision that shuffled is refused (`news`); and what a seat
  observes otherwise (a public variable, a score, the flow, its legal actions) is compared in worlds
  drawn from what every seat knows (`informative`); `refusal` gives the first reason, and a seat is
  told one of two (`undo-shuffled`, `undo-revealed`: the shown card and the informative answer
  are one reason for them);
- **logged**: a public note, "player 1 took back decision 14", placed after decision 13.

A table here is any object with `game`, `players`, `seed`, `options`, `state` (played with
log=True), `actions` (every decision as the engine's JSON), `deciders` (who took each, public) and
`notes` (a list): gamespec/table/play.py's and gamespec/web/tables.py's tables.
"""
from __future__ import annotations

from gamespec.errors import UndoRefused

GAME_OVER = "the game is over"
TOO_LATE = "only your own last decision can be taken back, before anyone decides after it"
SHUFFLED = "that decision led to a shuffle: it can no longer be taken back"
REVEALED = "that decision made something known (a card shown, or an answer that depends on cards not " \
    "everyone sees): it can no longer be taken back"
# A card shown (news) and an answer that depends on hidden cards (informative) are one public reason:
# which of the two held can depend on what the decision chose where others do not see it (a look at a
# card the chooser already knew shows nothing new), so naming them apart would tell (a leak found by
# the every-world test on tests/specs/reinsert.yaml)
MESSAGES = {"revealed": REVEALED, "shuffled": SHUFFLED}
PUBLIC = {"shuffled": "shuffled", "revealed": "revealed", "informative": "revealed"}


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
        elif ev[0] == "r" and ev[2]:    # a look: player ev[1] saw these cards
            # whether the looker knew them already can depend on which cards they chose where the
            # others do not see (a look at a card of a hidden pile): any look refuses, so the answer
            # tells nothing of that choice (found by the every-world test on tests/specs/reinsert.yaml)
            return "revealed"
    return None


WORLDS = 32     # public worlds drawn per undo (docs/web.md, Undo: what the rule guarantees)
FULL = 8        # in the first FULL of them every card of a seat's view is compared, in the rest its sizes


def informative(before, action, worlds=WORLDS) -> bool:
    """Could the decision `action` (one of before.legal_actions(), or its engine JSON), played from
    `before`, tell a seat something through what it observes up to the next decision: its view (a
    public or its own variable, a score, the phase, who moves next, its legal actions and their
    labels, the history it gets)?

    Worlds every seat could hold are drawn from what every seat knows (`_public_world`, seeded by the
    decision count); in each the decision is played (the legal action everyone would take for it:
    same name and values, same cards where everyone knows them, a card from the same zone where
    not), and for each seat q it is played again in a determinization of that world for q (the
    action q would take for it). Any difference in what q observes after the two: True. A world
    where q's version of the decision is not legal is not one q could hold, and is skipped.

    Nothing of the real game's hidden cards goes into the answer (only what every seat knows and the
    decision as everyone saw it), so the answer tells nobody anything; the price is that a decision
    telling something only in rare worlds may pass (docs/web.md, Undo)."""
    import random
    rs = before.rs
    a = _legal(before, action)
    want = _trace(before, a, rs.ALL)
    rng = random.Random(before.decisions)       # public: the same worlds for every world of the game
    base = before.clone()
    base.log = None                             # nobody reads it here
    base.hist = _pending_only(before.hist)      # the rules read no more of the history
    for k in range(worlds):
        full = k < FULL
        w = _public_world(base, rng)
        x = _matching(w, want, rs.ALL)
        if x is None:
            continue
        after = _played(w, x)
        for q in range(rs.P):
            w2 = w.determinize(q, rng)
            w2.rng = w.rng                      # the same chance in both: only the cards differ
            y = _matching(w2, _trace(w, x, 1 << q), 1 << q)
            if y is not None and _seen(after, q, full) != _seen(_played(w2, y), q, full):
                return True
    return False


def _pending_only(h):
    """History h cut to the stored choices of a simultaneous step under way (the secret events on
    top, interpreter/runtime.py pending_choices): all of it that the rules read. The rest is the same
    before and after in every world, and a seat's comparison needs only what the decision adds."""
    evs = []
    while h is not None and h[0][0] == "s":
        evs.append(h[0])
        h = h[1]
    out = None
    for ev in reversed(evs):
        out = (ev, out)
    return out


def _legal(s, action):
    """The Action of s.legal_actions() that `action` (an Action or its engine JSON) is."""
    if isinstance(action, dict):
        want = {k: v for k, v in action.items() if k != "label"}
        return next(a for a in s.legal_actions() if a.to_json(label=False) == want)
    return action


def _trace(s, a, mask):
    """Action a of state s as the players of bit mask `mask` all see it: its name and values, a card
    by its id where they all see or know it, else by its zone only."""
    rt = a[4]
    if rt is None:                      # an optional step's skip
        return (a[0],)

    def card(c):
        return (0, c) if s._vis(c) & mask == mask else (1, s.loc[c])
    out = [a[0]]
    for prm, v, b in zip(rt.params, a[1], a[2]):
        if prm.kind == "card":
            out.append(card(b))
        elif prm.kind == "subset":
            out.append(tuple(sorted(map(card, b))))
        else:
            out.append(v)
    return tuple(out)


def _matching(s, want, mask):
    """The first legal action of s that the players of `mask` see as `want` (_trace), or None."""
    for a in s.legal_actions():
        if a[0] == want[0] and _trace(s, a, mask) == want:
            return a
    return None


def _public_world(s, rng):
    """A world every seat could hold, drawn from what every seat knows: the cards not every seat
    sees or knows dealt again among their places (the determinizations' draw), then each seat's
    determinization step with no card moved, so that whatever some seat does not see (a variable,
    a mark, a pending secret choice, the history's card ids) is what a determinization gives it."""
    from gamespec.interpreter.determinize import _drawer, relabel
    rs = s.rs
    everyone = rs.ALL
    places = [(zi, i) for zi, z in enumerate(s.z) for i, c in enumerate(z) if s._vis(c) & everyone != everyone]
    hidden = [s.z[zi][i] for zi, i in places]
    m = list(range(rs.ncards))
    if hidden:
        for c, x in zip(hidden, _drawer(s, hidden)(rng)):
            m[c] = x
    w = s
    for p in range(rs.P):
        w = relabel(w, m if p == 0 else range(rs.ncards), p, rng)
    return w


def _played(s, a):
    """A copy of s with a played, or None if a rule failed on the way (the same in every world
    alike: a failure where another world plays on is a difference)."""
    from gamespec.errors import GamespecError
    d = s.clone()
    try:
        d.apply(a)
    except GamespecError:
        return None
    return d


def _seen(s, q, full):
    """What seat q observes of state s (None: a rule failed): its observation when `full`, else all
    of it but the cards in the zones (their sizes instead), which is most of the cost; and, when it
    is to move, its legal actions as it sees them, labels included."""
    if s is None:
        return None
    if full:
        obs = s.observation(q)
    else:
        from gamespec.interpreter.observe import history_view, value_view
        rs = s.rs
        bit = 1 << q
        values = {}
        for name, base in rs.var_base.items():          # as observe.observation
            decl = rs.spec.variables[name]
            if decl.per_player or decl.per_team:
                values[name] = [value_view(s, decl, s.v[base + k], bit, k) for k in range(rs.cells(decl))]
            else:
                values[name] = value_view(s, decl, s.v[base], bit, None)
        obs = {"phase": s.phase_name, "current": s.cur, "to_move": s.current_player, "terminal": s.terminal,
               "sizes": [len(z) for z in s.z], "variables": values, "history": history_view(s, q),
               "scores": s.scores if s.terminal else None}
    if not s.is_terminal and s.current_player == q:
        obs["actions"] = [a.to_json() for a in s.view(q).legal_actions]
    return obs


def refusal(before, after, action, worlds=WORLDS):
    """Why the rule refuses to take back the decision `action` (an Action of before's legal
    actions, or its engine JSON) that led from `before` to `after`: None if it does not, else
    "shuffled", "revealed" (news) or "informative" (informative, `worlds` drawn), the first that
    holds."""
    return news(before, after) or ("informative" if informative(before, action, worlds) else None)


def answer(before, after, action, worlds=WORLDS):
    """What a seat is told of the undo of `action` (from `before` to `after`): None (taken back),
    "shuffled" or "revealed" (refusal's reasons, the last two made one: PUBLIC)."""
    why = refusal(before, after, action, worlds)
    return None if why is None else PUBLIC[why]


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
    why = answer(before, table.state, table.actions[-1])
    if why is not None:
        raise UndoRefused(MESSAGES[why], f"undo-{why}")
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
    note = {"at": n - 1, "seat": seat, "decision": n, "text": f"player {seat} took back decision {n}"}
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

