"""ISMCTSBot: single-observer information-set MCTS (Cowling, Powley & Whitehouse 2012).

One tree for the bot's information set. Each iteration draws a determinization of the bot's view
(from one `view.determinizer()` per decision: the worlds of `view.determinize(rng)`, hidden cards
resampled, without redoing the draw-independent work), walks the tree restricted to the actions
legal in that world (UCB1 with availability counts: a child's exploration term counts the iterations
in which it could have been chosen, not its parent's visits), expands one untried action, plays the
world out at random in the engine (`playout(rng, in_place=True)`), and backs the result up: each
node is scored from the viewpoint of the player who made its move (1 for a win, 1/k for a win shared
by k, 0 otherwise).

Edges are identified without hidden information: at the root by the position of the action in the
bot's own legal list (a determinization keeps it), below by (player, action name, action arguments),
where a card argument is a position, never a card id.
"""
from __future__ import annotations

import math
import random
import time

from .base import Bot, BotError


class _Node:
    __slots__ = ("player", "children", "visits", "avail", "reward")

    def __init__(self, player):
        self.player = player        # who made the move leading here (None at the root)
        self.children = {}          # edge key -> _Node
        self.visits = 0
        self.avail = 0
        self.reward = 0.0


class ISMCTSBot(Bot):
    """`iterations` determinize-select-expand-rollout-backup iterations per decision (and, if
    `seconds` is given, no more than that long). Seeded: the same seed, seat and views give the
    same choices (a time budget makes the number of iterations, and so the choice, depend on speed)."""

    kind = "ismcts"
    thinks = True                # a decision can take seconds: the terminal says so first
    DEFAULT_ITERATIONS = 1000

    def __init__(self, seed: int = 0, seat: int = 0, iterations: int = DEFAULT_ITERATIONS,
                 seconds: float | None = None, exploration: float = 0.7, engine: str | None = None):
        super().__init__(seed, seat)
        # "native": the whole search in C (docs/native.md), the same choices; "python"; None: native
        # when the game was loaded with backend="native"
        if engine not in (None, "native", "python"):
            raise ValueError(f"the engine is native or python, not {engine!r}")
        self.engine = engine
        if iterations < 1:
            raise ValueError("ISMCTS needs at least 1 iteration")
        self.iterations = iterations
        self.seconds = seconds
        self.c = exploration
        self.rng = random.Random(f"gamespec.ISMCTSBot:{seed}:{seat}")
        self.last_iterations = 0

    def __repr__(self):
        return f"ISMCTSBot(seed={self.seed}, seat={self.seat}, iterations={self.iterations})"

    def choose(self, view):
        n_legal = view.num_legal_actions
        if n_legal == 1:
            return 0
        return self._best(self._search(view, n_legal), range(n_legal))

    def choose_among(self, view, allowed):
        """The search as `choose` runs it (the same iterations, the same rng use), then the best of
        the positions `allowed` by the same order (most visits, then mean reward, then the lower
        position; an allowed action the search never tried counts 0 visits). Only the decision is
        restricted: the look-ahead still considers every action, at this decision and below."""
        allowed = list(allowed)
        if len(allowed) == 1:
            return allowed[0]
        return self._best(self._search(view, view.num_legal_actions), allowed)

    @staticmethod
    def _best(children, candidates):
        """The most visited candidate position (ties: the higher mean reward, then the lower position)."""
        def key(i):
            v, r = children.get(i, (0, 0.0))
            return (v, r / max(1, v), -i)
        return max(candidates, key=key)

    def _search(self, view, n_legal):
        """One search of the view: the root's statistics {position: (visits, reward)} of the
        actions tried; sets last_iterations."""
        rng = self.rng
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        got = self._native(view, rng, deadline)
        if got is not None:
            children, self.last_iterations = got
            return children
        root = _Node(None)
        world_of = view.determinizer()      # the draw-independent work once per decision
        it = 0
        while it < self.iterations:
            if deadline is not None and it and time.perf_counter() >= deadline:
                break
            it += 1
            self._iterate(root, world_of(rng), rng, n_legal)
        self.last_iterations = it
        return {i: (ch.visits, ch.reward) for i, ch in root.children.items()}

    def _native(self, view, rng, deadline):
        """The search in C when this bot's engine is native (None: the Python search runs, from the
        same rng state)."""
        state = view._state()
        if self.engine == "python" or (self.engine is None and state.rs.backend != "native"):
            return None
        lib = state.game.native_library(state.rs)
        if lib is None:
            return None
        from gamespec.interpreter.native_engine import search
        return search(lib, view, rng, self.iterations, self.c, deadline)

    def _iterate(self, root, world, rng, n_root):
        c = self.c
        log, sqrt = math.log, math.sqrt
        path = [root]
        # the root: edges are positions in the seat's own legal list (the index API, no actions built)
        n = world.legal_action_count()
        if n != n_root:
            raise BotError(f"a determinization gave seat {world.current_player} {n} legal actions, its "
                           f"view {n_root}: the determinizer does not keep the seat's choices")
        node, actor, legal, keys = root, world.current_player, None, range(n)
        # selection and expansion
        while True:
            children = node.children
            untried = []
            for i, k in enumerate(keys):
                ch = children.get(k)
                if ch is None:
                    untried.append(i)
                else:
                    ch.avail += 1
            if untried:
                i = untried[rng.randrange(len(untried))] if len(untried) > 1 else untried[0]
                ch = children[keys[i]] = _Node(actor)
                ch.avail = 1
                if legal is None:
                    world.apply_index(i)
                else:
                    world.apply(legal[i])
                path.append(ch)
                break
            best_i, best_v = 0, -1.0
            for i, k in enumerate(keys):
                ch = children[k]
                v = ch.reward / ch.visits + c * sqrt(log(ch.avail) / ch.visits)
                if v > best_v:
                    best_i, best_v = i, v
            node = children[keys[best_i]]
            if legal is None:
                world.apply_index(best_i)
            else:
                world.apply(legal[best_i])
            path.append(node)
            if world.terminal:
                break
            # below the root: edges by (player, action name, arguments); a card argument is a
            # position, so the same edge is found in every determinization
            legal = world.legal_actions()
            actor = world.current_player
            keys = [(actor, a[0], a[1]) for a in legal]
        # random playout, in the engine
        if not world.terminal:
            world.playout(rng, in_place=True)
        winners = world.winners
        share = 1.0 / len(winners) if winners else 0.0    # a cooperative game lost: nobody wins
        for nd in path:
            nd.visits += 1
            if nd.player is not None and nd.player in winners:
                nd.reward += share
