"""Game + players + options → pyspiel Python game: sequential, imperfect information, sampled chance,
terminal returns, ids from gamespec/compile/action_space.py, observation and information-state tensors
from interpreter/obs_tensor.py, a measured maximum game length, `resample_from_infostate` on determinize()
(docs/agents.md)."""
from __future__ import annotations

import json
import random

from gamespec.errors import GamespecError, GameTooLong, IllegalAction, StateFormatError, UsageError
from gamespec.interpreter.state import State

from .chance import MAX_ORDERS, ExplicitObserver, ExplicitState
from .common import native_kit, require, resolve, rewards

np = require("numpy")
pyspiel = require("pyspiel")

SCORE_BOUND = 1e6    # |utility| bound declared for reward='score' (OpenSpiel wants one; specs give none)
LENGTH_GAMES = 200   # random games played to measure the maximum game length
LENGTH_FACTOR = 2    # the declared bound: LENGTH_FACTOR x the longest of them, + LENGTH_MARGIN
LENGTH_MARGIN = 16
LENGTH_FIXED_CAP = 4   # a fixed-policy game longer than this times the random bound is left out


class _Fixed:
    """A policy in the form of a random source: always the first legal action, or always the last;
    it gives up (_Endless) after `cap` decisions."""
    def __init__(self, last, cap):
        self.last, self.left = last, cap

    def randrange(self, n):
        self.left -= 1
        if self.left < 0:
            raise _Endless
        return n - 1 if self.last else 0


class _Endless(Exception):
    pass


def measured_length(game, players, options, games=LENGTH_GAMES) -> int:
    """The maximum game length declared to OpenSpiel: twice the longest of `games` random games
    (seeds 0..games-1, so the same every time) and of two fixed-policy games (always the first legal
    action, always the last: a policy that keeps refusing or paying can outlast every random game)
    plus LENGTH_MARGIN, never above the spec's own budget
    (limits.decisions_per_game, which ends any game that would run longer). A fixed policy whose
    game has not ended after LENGTH_FIXED_CAP times the random games' bound may never end it (a
    game of passes): no bound covers it, and it is left out."""
    longest = max((p.decisions for p in game.playouts(games, seed=0, players=players, options=options)),
                  default=0)
    cap = min(LENGTH_FIXED_CAP * (LENGTH_FACTOR * longest + LENGTH_MARGIN),
              game.spec.decisions_per_game - 1)     # given up before the spec's budget faults
    for last in (False, True):
        s = game.new_game(players=players, seed=0, options=options)
        s.log = None
        try:
            s.playout(_Fixed(last, cap), in_place=True)
        except _Endless:
            continue
        longest = max(longest, s.decisions)
    return min(game.spec.decisions_per_game, LENGTH_FACTOR * longest + LENGTH_MARGIN)


def load(spec, players=None, options=None, reward="win", max_game_length=None, engine=None,
         chance="sampled", zero_sum=False):
    """The OpenSpiel game of a spec (a path or a gamespec Game) at (players, options).
    `max_game_length`: the bound declared to OpenSpiel (default: measured_length). `engine`: None
    (states held in C where the native library is available), "native" or "python".
    `chance`: "sampled" (shuffles inside apply_action, from the state's seeded RNG) or "explicit"
    (each shuffle as chance nodes with their outcomes and probabilities, for exact algorithms;
    small decks only; the Python engine plays: gamespec/envs/chance.py). `zero_sum=True` declares
    the utilities zero-sum (what exploitability asks for), checked at every end of game."""
    from gamespec.errors import UsageError
    if reward not in ("win", "score"):
        raise UsageError(f"reward is 'win' or 'score', not {reward!r}")
    if chance not in ("sampled", "explicit"):
        raise UsageError(f"chance is 'sampled' or 'explicit', not {chance!r}")
    if type(zero_sum) is not bool:
        raise UsageError(f"zero_sum is True or False, not {zero_sum!r}")
    game, players, opts = resolve(spec, players, options)
    if max_game_length is not None and (type(max_game_length) is not int or max_game_length < 1):
        raise UsageError(f"max_game_length is a whole number >= 1, not {max_game_length!r}")
    if chance == "explicit":
        if engine == "native":
            raise UsageError("explicit chance plays on the Python engine (engine='python' or None)")
        engine = "python"
    g = GamespecGame(game, players, opts, reward, max_game_length, engine, chance, zero_sum)
    if chance == "explicit":
        g.new_initial_state()      # a deck too large to enumerate is refused here (UsageError)
    return g


class GamespecGame(pyspiel.Game):
    def __init__(self, game, players, options, reward="win", max_game_length=None, engine=None,
                 chance="sampled", zero_sum=False):
        from gamespec.compile.action_space import space
        from gamespec.interpreter.obs_tensor import encoder
        self.gs_game = game
        self.gs_players = players
        self.gs_options = dict(options)
        self.gs_reward = reward
        rs = self.gs_rs = game.ruleset(players, self.gs_options)
        self.gs_chance = chance
        self.gs_zero_sum = zero_sum
        self.gs_chance_limit = MAX_ORDERS
        self.gs_nodes = {}          # explicit chance: the nodes reached, per path (envs/chance.py)
        self.gs_space = space(rs)
        self.gs_encoder = encoder(rs)
        self.gs_kit = native_kit(game, players, self.gs_options, engine)
        bound = 1.0 if reward == "win" else SCORE_BOUND
        if max_game_length is None:
            max_game_length = measured_length(game, players, self.gs_options)
        self.gs_max_length = max_game_length
        gtype = pyspiel.GameType(
            short_name="python_gamespec",
            long_name=f"gamespec {game.name}",
            dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
            chance_mode=(pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC if chance == "explicit"
                         else pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC),
            information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
            utility=(pyspiel.GameType.Utility.ZERO_SUM if zero_sum
                     else pyspiel.GameType.Utility.GENERAL_SUM),
            reward_model=pyspiel.GameType.RewardModel.TERMINAL,
            max_num_players=players,
            min_num_players=players,
            provides_information_state_string=True,
            provides_information_state_tensor=True,
            provides_observation_string=True,
            provides_observation_tensor=True,
            parameter_specification={})
        info = pyspiel.GameInfo(
            num_distinct_actions=self.gs_space.size,
            # explicit: an outcome is a face's index, or (marked twins) faces + a card id
            max_chance_outcomes=len(rs.faces) + rs.ncards if chance == "explicit" else 0,
            num_players=players,
            min_utility=-bound,
            max_utility=bound,
            utility_sum=0.0 if zero_sum else None,
            max_game_length=max_game_length)
        super().__init__(gtype, info, {})
        self._seeds = random.Random()

    def new_initial_state(self, seed=None):
        """A new game; seed None draws one from this game object's generator (`seed_games(n)`)."""
        if self.gs_chance == "explicit":     # no randomness left to seed: chance is in the tree
            return ExplicitState(self)
        if seed is None:
            seed = self._seeds.getrandbits(63)
        if self.gs_kit is not None:
            return GamespecState(self, self.gs_kit.new_game(seed))
        s = self.gs_game.new_game(players=self.gs_players, seed=seed, options=self.gs_options)
        return GamespecState(self, s)

    def deserialize_state(self, text):
        """A state from serialize()'s text: the game of its seed with its actions replayed (the same
        game, history() included); StateFormatError for text that is not one, or does not replay."""
        if not isinstance(text, (str, bytes)) or len(text) > 64 * (self.gs_max_length + 4) + 200:
            raise StateFormatError("not a serialized gamespec OpenSpiel state (not a text of its size: a seed "
                                   f"and at most {self.gs_max_length} action ids)")
        try:
            d = json.loads(text)
        except (TypeError, ValueError):
            raise StateFormatError("not a serialized gamespec OpenSpiel state (not JSON)") from None
        if not isinstance(d, dict) or d.get("format") != SERIAL_FORMAT or type(d.get("seed")) is not int \
                or not isinstance(d.get("history"), list) \
                or not all(type(a) is int and 0 <= a < self.gs_space.size for a in d["history"]):
            raise StateFormatError(f"not a serialized gamespec OpenSpiel state ({SERIAL_FORMAT}: a seed and "
                                   "a list of action ids)")
        if self.gs_chance == "explicit":
            raise StateFormatError("a game with explicit chance does not deserialize states")
        st = self.new_initial_state(seed=d["seed"])
        for i, a in enumerate(d["history"]):
            try:
                st.apply_action(a)
            except GamespecError as e:      # illegal, too long, a rule that fails
                raise StateFormatError(f"action {i + 1} of the serialized state does not replay: {e}") from None
        return st

    def seed_games(self, seed):
        """Make the seeds of later new_initial_state() calls reproducible."""
        self._seeds = random.Random(seed)

    def make_py_observer(self, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        if self.gs_chance == "explicit":
            return ExplicitObserver(GamespecObserver(self, recall))
        return GamespecObserver(self, recall)

    def gs_checked(self, r):
        """The returns r, refused (UsageError) when the game was declared zero-sum and they are not."""
        if self.gs_zero_sum and abs(sum(r)) > 1e-9:
            from gamespec.errors import UsageError
            raise UsageError(f"the game was declared zero-sum (load(..., zero_sum=True)) but a game "
                             f"ended with returns {r}")
        return r

    def gs_tensor(self, s, player, info):
        """The observation tensor of gamespec State s for player (info: the information-state one)."""
        return _as_list((_info_tensor if info else _tensor)(self.gs_encoder, s, player))


SERIAL_FORMAT = "gamespec-openspiel-state/1"


class _Holder:
    """The gamespec state and its legal actions; deep-copied by clone(), never the rule set.
    `native`: s is a native per-step state (legality checked in C, no id -> index map needed);
    `bound`: the game's max_game_length (read here, not through get_game() at every action)."""
    __slots__ = ("s", "legal", "native", "bound")

    def __init__(self, s, bound):
        self.s = s
        self.legal = None
        self.native = s.__class__ is not State
        self.bound = bound

    def __deepcopy__(self, memo):
        return _Holder(self.s.clone(), self.bound)


class GamespecState(pyspiel.State):
    def __init__(self, game, s):
        super().__init__(game)
        self._h = _Holder(s, game.gs_max_length)

    @property
    def gamespec_state(self):
        """The wrapped gamespec State (the real one: it holds hidden information); on the native
        engine, the Python engine's State of the game (re-played from its ids when asked)."""
        return _py(self._h.s)

    def _legal(self):
        h = self._h
        if h.legal is None:
            s = h.s
            ids = s.legal_ids_in_order() if s.__class__ is not State else self.get_game().gs_space.legal_ids(s)
            h.legal = {i: k for k, i in enumerate(ids)}
        return h.legal

    def current_player(self):
        h = self._h
        if h.native:        # None at the end
            p = h.s.current_player
            return pyspiel.PlayerId.TERMINAL if p is None else p
        s = h.s
        return pyspiel.PlayerId.TERMINAL if s.is_terminal else s.current_player

    def legal_actions(self, player=None):
        """pyspiel's State.legal_actions, answered here for Python callers: the C++ method would
        call back into Python three times (is_terminal, current_player, _legal_actions) and convert
        the list twice. C++ callers still reach _legal_actions; both give the same list (tested)."""
        h = self._h
        if h.native:
            s = h.s
            p = s.current_player
            if p is None or (player is not None and player != p):
                return []
            return s.legal_action_ids()
        return pyspiel.State.legal_actions(self) if player is None else pyspiel.State.legal_actions(self, player)

    def _legal_actions(self, player):
        h = self._h
        s = h.s
        if h.native:
            return s.legal_action_ids() if player == s.current_player else []
        if s.is_terminal or player != s.current_player:
            return []
        return sorted(self._legal())

    def _apply_action(self, action):
        h = self._h
        s = h.s
        if h.native:    # C checks the id (IllegalAction, state unchanged)
            if s.decisions >= h.bound:
                if int(action) not in s.legal_action_ids():
                    raise IllegalAction(f"action id {action} is not legal now")
                self._too_long(h.bound)
            try:
                s.apply_id(int(action))
            except IllegalAction:
                raise IllegalAction(f"action id {action} is not legal now") from None
            h.legal = None
            return
        k = self._legal().get(int(action))
        if k is None:
            raise IllegalAction(f"action id {action} is not legal now")
        if s.decisions >= h.bound:       # the declared bound holds: never a longer game
            self._too_long(h.bound)
        if s.__class__ is State:
            s.apply(k)
        else:
            s.apply_id(int(action))
        h.legal = None

    @staticmethod
    def _too_long(bound):
        raise GameTooLong(f"the game has made {bound} decisions without ending: more than the "
                          f"max_game_length declared to OpenSpiel ({bound}); load(..., "
                          "max_game_length=N) declares a larger one")

    def _action_to_string(self, player, action):
        s = self._h.s
        if not s.is_terminal and player == s.current_player:
            k = self._legal().get(int(action))
            s = _py(s)
            if k is not None:     # the label as the player sees it (views.py), never engine ids
                from gamespec.interpreter.views import view_action
                return view_action(s, player, s.legal_actions()[k], k).label
        return json.dumps(self.get_game().gs_space.describe(int(action)), sort_keys=True)

    def is_terminal(self):
        return self._h.s.is_terminal

    def returns(self):
        s = self._h.s
        if not s.is_terminal:
            return [0.0] * s.num_players
        return self.get_game().gs_checked(rewards(s, self.get_game().gs_reward))

    def serialize(self):
        """The game's seed and its action history as JSON (OpenSpiel's own form of a state: the game's
        deserialize_state replays them). A state made by resample_from_infostate has no history of its
        own (its world is not the seed's game): UsageError. The text holds the seed: it is the whole
        game, like a save, not a player's channel."""
        s = self._h.s
        if getattr(self, "_resampled", False):
            raise UsageError("a state made by resample_from_infostate has no history to serialize (its "
                             "hidden cards were redrawn); serialize the state it was resampled from")
        return json.dumps({"format": SERIAL_FORMAT, "seed": s.seed, "history": self.history()})

    def resample_from_infostate(self, player_id, probability_sampler=None):
        """A state `player_id` cannot tell from this one: hidden cards redrawn by
        state.determinize(player_id, rng), rng seeded from the sampler; the rest of the game's
        randomness is a fresh RNG (interpreter/determinize.py). Its history() is empty and its
        move_number() 0: the real history's ids name the cards their choosers saw, and the world has
        no history of its own; the player's history is in its information_state_string."""
        if probability_sampler is not None and callable(probability_sampler):
            seed = int(probability_sampler() * 2 ** 53)
        else:
            seed = random.getrandbits(53)
        s = self._h.s
        world = _py(s).determinize(player_id, random.Random(seed))
        # a new pyspiel state, not a clone: a clone's history() holds every seat's real action ids, and
        # an id names the card its chooser saw (the world's own past is not known: its history is empty)
        new = GamespecState(self.get_game(), world if s.__class__ is State else s.kit.from_state(world))
        new._resampled = True
        return new

    def observation_tensor(self, player=None):
        """state.observation_tensor(player) as a list (pyspiel's own path builds a new game per
        call to learn the tensor size, so Python callers get this shortcut; same values)."""
        s = self._h.s
        if player is None:
            player = s.current_player
        if s.__class__ is not State:        # native: the list made from the non-zero places C lists
            got = s.tensor_list(player)
            return got if got is not None else _as_list(s.observation_tensor(player))
        return _as_list(_tensor(self.get_game().gs_encoder, s, player))

    def information_state_tensor(self, player=None):
        """The player's information as a tensor: the observation tensor (what the player sees and
        knows now: its cards, the cards it has been shown, the public state) followed by how many
        decisions have been made (docs/agents.md). Not perfect recall: the history is in
        information_state_string only."""
        s = self._h.s
        if player is None:
            player = s.current_player
        if s.__class__ is not State:        # native: the observation's list, then the decisions
            got = s.tensor_list(player)
            if got is None:
                return _as_list(s.information_state_tensor(player))
            got.append(float(s.decisions))
            return got
        return _as_list(_info_tensor(self.get_game().gs_encoder, s, player))

    def __str__(self):
        """The whole state (hidden cards and seed included: OpenSpiel's debug string, not a
        player channel; players get information_state_string / observation_string / tensors)."""
        s = _py(self._h.s)
        return json.dumps(s.to_json(), sort_keys=True, default=str)


def _py(s):
    """The Python engine's State of a gamespec State or of a native per-step state."""
    return s if s.__class__ is State else s.python_state()


def _as_list(t):
    """t.tolist(), faster for a mostly-zero tensor: one shared 0.0, a float made only per non-zero
    place (a 3,318-float tensor holds a few hundred; tolist makes 3,318 floats)."""
    nz = (t != 0).nonzero()[0]          # 5x faster than t.nonzero() on float32 (numpy 2); no -0.0 occurs
    n = len(t)
    if 4 * len(nz) > n:
        return t.tolist()
    out = [0.0] * n
    for i, v in zip(nz.tolist(), t[nz].tolist()):
        out[i] = v
    return out


def _tensor(enc, s, player):
    """The observation tensor: from C for a native per-step state (the same bytes)."""
    return enc.encode(s, player) if s.__class__ is State else s.observation_tensor(player)


def _info_tensor(enc, s, player):
    """The information-state tensor: the observation tensor, then the number of decisions so far."""
    out = np.empty(enc.size + 1, np.float32)
    out[:enc.size] = _tensor(enc, s, player)
    out[enc.size] = s.decisions
    return out


class GamespecObserver:
    """PyObserver. Information state (perfect_recall): tensor = the observation tensor and the
    decision count, string = JSON of state.observation(p) with the history as p saw it. Observation:
    tensor = state.observation_tensor(p), string without the history."""

    def __init__(self, game, perfect_recall):
        enc = game.gs_encoder
        self.enc = enc
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(enc.size + (1 if perfect_recall else 0), np.float32)
        self._at = None         # the tensor's address (read once: .ctypes.data costs more than a row)
        self.dict = {"observation": self.tensor[:enc.size]}
        if perfect_recall:
            self.dict["decisions"] = self.tensor[enc.size:]

    def set_from(self, state, player):
        s = state._h.s
        if s.__class__ is not State:      # native: C writes into this observer's own array
            at = self._at
            if at is None:
                at = self._at = self.tensor.ctypes.data
            if s.tensor_into(player, at):
                if self.perfect_recall:
                    self.tensor[-1] = s.decisions
                return
        if self.perfect_recall:
            self.tensor[:] = _info_tensor(self.enc, state._h.s, player)
        else:
            self.tensor[:] = _tensor(self.enc, state._h.s, player)

    def string_from(self, state, player):
        obs = _py(state._h.s).observation(player)
        if not self.perfect_recall:
            obs.pop("history", None)
        return json.dumps(obs, sort_keys=True, separators=(",", ":"))
