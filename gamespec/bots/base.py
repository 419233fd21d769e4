"""The bot interface: `choose(view) -> PlayerAction or index`, plus the helpers every bot shares."""
from __future__ import annotations

import random

from gamespec.errors import SpecRuntimeError, BotError


class Bot:
    """Base class of the shipped bots (subclassing it is optional: any object with `choose` will do).

    `choose(view)` gets the PlayerView of the seat to move (state.view(seat)): only what that seat
    may know. It returns one of `view.legal_actions` or its position in that list. A bot that needs
    a full game to search calls `view.determinize(rng)`: a State consistent with the view, the hidden
    cards drawn at random, on which it may play freely.
    """

    #: the kind name used by `--bot SEAT=KIND` (set by each shipped bot)
    kind = "bot"
    #: whether a decision may take noticeable time (a search bot): the terminal table says
    #: "player N is thinking…" before asking it. False for the instant kinds (random, first, greedy)
    thinks = False

    def __init__(self, seed: int = 0, seat: int = 0):
        self.seed = seed
        self.seat = seat

    def choose(self, view):  # pragma: no cover - interface
        raise NotImplementedError

    def choose_among(self, view, allowed):
        """The bot's choice among the positions `allowed` (a non-empty subset of the positions in
        `view.legal_actions`, in order): a restricted kind asks this when its rule removes some
        actions (gamespec/bots/restricted.py). Returns a position in `allowed`.

        This default asks `choose(view)` and keeps its answer if it is allowed, else picks uniformly
        among `allowed` with the bot's own seeded `self.rng` (or, for a bot without one, a
        `random.Random` seeded from its class, seed and seat). The shipped bots override it."""
        return default_choose_among(self, view, allowed)

    def __repr__(self):
        return f"{type(self).__name__}(seed={self.seed}, seat={self.seat})"


def may_take_time(bot) -> bool:
    """Whether a decision of `bot` may take noticeable time: its class says so (`thinks`); a bot
    that wraps another (a restricted kind: its `base`) when that one does. Any object may be a bot:
    one without the attribute is taken to answer at once."""
    for _ in range(8):          # (a wrapper of a wrapper ...: bounded)
        if getattr(bot, "thinks", False) is True:
            return True
        bot = getattr(bot, "__dict__", {}).get("base")
        if bot is None:
            return False
    return False


def default_choose_among(bot, view, allowed):
    """Bot.choose_among for any bot object (one not subclassing Bot too)."""
    allowed = list(allowed)
    i = position(view, bot.choose(view))
    if i in allowed:
        return i
    rng = getattr(bot, "rng", None)
    if not isinstance(rng, random.Random):
        rng = getattr(bot, "_among_rng", None)
        if rng is None:
            rng = random.Random(f"gamespec.{type(bot).__name__}.among:{getattr(bot, 'seed', 0)}:"
                                f"{getattr(bot, 'seat', 0)}")
            try:
                bot._among_rng = rng
            except AttributeError:      # __slots__: a fresh stream each time, still seeded
                pass
    return allowed[rng.randrange(len(allowed))]


def position(view, choice) -> int:
    """A bot's answer (a PlayerAction of `view` or an index) → its position in `view.legal_actions`
    (BotError otherwise)."""
    legal = view.legal_actions
    if isinstance(choice, int) and not isinstance(choice, bool):
        if not 0 <= choice < len(legal):
            raise BotError(f"the bot of seat {view.player} chose action {choice}, but there are "
                           f"{len(legal)} legal actions (0 to {len(legal) - 1})")
        return choice
    for i, a in enumerate(legal):
        if a is choice:
            return i
    raise BotError(f"the bot of seat {view.player} answered {choice!r}: not one of its view's legal "
                   "actions nor a position in that list")


def resolve(view, choice):
    """A bot's answer → the position in the legal list of the state the view was made from.

    A bot may answer with a PlayerAction of `view` or with its index in `view.legal_actions`;
    anything else is a BotError (the state is not touched)."""
    legal = view.legal_actions
    if isinstance(choice, int) and not isinstance(choice, bool):
        if not 0 <= choice < len(legal):
            raise BotError(f"the bot of seat {view.player} chose action {choice}, but there are "
                           f"{len(legal)} legal actions (0 to {len(legal) - 1})")
        return legal[choice].index
    for a in legal:
        if a is choice:
            return a.index
    raise BotError(f"the bot of seat {view.player} answered {choice!r}: not one of its view's legal "
                   "actions nor a position in that list")


def score_of(state, seat: int):
    """The spec's own score for `seat` in `state`, signed so that higher is better for that seat.

    At the end: the final score. Before it: the spec's score expression evaluated on the state as it
    is (a rule that cannot be evaluated yet counts as 0)."""
    rs = state.rs
    sign = 1 if rs.winner == "highest" else -1
    if state.is_terminal:
        return sign * state.scores[seat]
    if rs.score is None:
        return 0
    try:
        return sign * rs.score(state, {"p": seat})
    except SpecRuntimeError:
        return 0


def world_action(world, view, i):
    """The action of `world` (a determinization of `view`) at the position of view.legal_actions[i].

    A determinization keeps what the seat knows, so the seat's own legal actions come in the same
    order in the world as in the view."""
    return world.legal_actions()[i]
