"""Game + players + options → PettingZoo AEC environment: Discrete(N) actions with an action mask,
the observation tensor, rewards at the end (docs/agents.md)."""
from __future__ import annotations

from gamespec.errors import IllegalAction

from .common import native_kit, require, rewards

np = require("numpy")
spaces = require("gymnasium.spaces")
pettingzoo = require("pettingzoo")


class GamespecAEC(pettingzoo.AECEnv):
    """Agents `player_0..`; `observe(a)` = {"observation": float32 tensor, "action_mask": int8 (N,)}.

    `reset(seed=)` reseeds the env's generator and starts a game with the next seed drawn from it
    (no seed: the next one of the generator the constructor's seed made); reset's `options` are
    not game options (those are fixed when the env is made)."""

    def __init__(self, game, players, options, reward="win", seed=None, render_mode=None, engine=None):
        super().__init__()
        if reward not in ("win", "score"):
            from gamespec.errors import UsageError
            raise UsageError(f"reward is 'win' or 'score', not {reward!r}")
        from gamespec.compile.action_space import space
        from gamespec.interpreter.obs_tensor import encoder
        self.game = game
        self.players = players
        self.options_ = dict(options)
        self.reward = reward
        self.render_mode = render_mode
        rs = game.ruleset(players, self.options_)
        self._space = space(rs)
        self._enc = encoder(rs)
        self._kit = native_kit(game, players, self.options_, engine)   # the game in C where it can be
        self.metadata = {"name": f"gamespec_{game.name}", "render_modes": ["ansi"], "is_parallelizable": False}
        self.possible_agents = [f"player_{p}" for p in range(players)]
        self._index = {a: p for p, a in enumerate(self.possible_agents)}
        n = self._space.size
        obs = spaces.Dict({
            "observation": spaces.Box(-np.inf, np.inf, (self._enc.size,), np.float32),
            "action_mask": spaces.Box(0, 1, (n,), np.int8),
        })
        self.observation_spaces = {a: obs for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(n) for a in self.possible_agents}
        self._seeds = np.random.default_rng(seed)
        self._s = None
        self._native = False     # the game is a native per-step state (gamespec.interpreter.native_step)
        self._legal = {}

    @property
    def state(self):
        """The gamespec State (the real one, hidden cards included; not for agents): on the native
        engine, the Python engine's State of the game, re-played from its ids when asked."""
        s = self._s
        return s.python_state() if hasattr(s, "python_state") else s

    @state.setter
    def state(self, s):
        self._s = s
        self._native = hasattr(s, "python_state")

    @property
    def engine(self):
        """'native' while the game lives in C, else 'python'."""
        return "native" if getattr(self._s, "in_c", False) else "python"

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed=None, options=None):
        if seed is not None:
            self._seeds = np.random.default_rng(seed)
        game_seed = int(self._seeds.integers(0, 2 ** 63))
        self._native = self._kit is not None
        if self._native:
            self._s = self._kit.new_game(game_seed)
        else:
            self._s = self.game.new_game(players=self.players, seed=game_seed, options=self.options_)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._after_move()

    def _after_move(self):
        s = self._s
        if s.is_terminal:
            self._legal = {}
            for a, r in zip(self.possible_agents, rewards(s, self.reward)):
                self.rewards[a] = r
            self.terminations = {a: True for a in self.agents}
            for a in self.agents:
                self.infos[a] = {"scores": list(s.scores), "winners": list(s.winners)}
            # agent_selection stays where it is; each agent is removed by its dead step
        elif self._native:      # C checks an id when it is played: no id -> index map
            self.agent_selection = self.possible_agents[s.current_player]
        else:
            self._legal = {i: k for k, i in enumerate(self._space.legal_ids(s))}   # id -> index
            self.agent_selection = self.possible_agents[s.current_player]

    def observe(self, agent):
        p = self._index[agent]
        s = self._s
        if self._native:
            to_move = s.current_player == p       # (None at the end)
            mask = s.legal_action_mask() if to_move else np.zeros(self._space.size, np.int8)
            return {"observation": s.observation_tensor(p), "action_mask": mask}
        mask = np.zeros(self._space.size, np.int8)
        if not s.is_terminal and s.current_player == p:
            mask[list(self._legal)] = 1
        return {"observation": s.observation_tensor(p), "action_mask": mask}

    def _illegal(self, agent, action):
        return IllegalAction(f"action id {action!r} is not legal for {agent} now "
                             f"(see observe(agent)['action_mask'])")

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        s = self._s
        if self._native:
            if action is None:
                raise self._illegal(agent, action)
            try:
                s.apply_id(int(action))       # C checks it (IllegalAction, the game unchanged)
            except IllegalAction:
                raise self._illegal(agent, action) from None
            self._cumulative_rewards[agent] = 0.0
            self.rewards = dict.fromkeys(self.agents, 0.0)
        else:
            k = self._legal.get(int(action)) if action is not None else None
            if k is None:
                raise self._illegal(agent, action)
            self._cumulative_rewards[agent] = 0.0
            self.rewards = dict.fromkeys(self.agents, 0.0)
            s.apply(k)
        self._after_move()
        self._accumulate_rewards()

    def render(self):
        if self.render_mode is None:
            return None
        return repr(self.state)

    def close(self):
        pass
