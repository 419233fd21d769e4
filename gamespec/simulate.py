"""Play games with bots and aggregate the outcomes: one game (`play`, `play_one`) or many (`simulate`).

`simulate` plays seeds S, S+1, ..., S+N-1. With several workers each worker process (started with the
"spawn" method, so nothing depends on fork) loads the spec itself from its path and plays contiguous
blocks of seeds; the blocks' per-game results are fed to one accumulator in seed order, so every
number but the timing is identical whatever the number of workers.
"""
from __future__ import annotations

import os
import time
import traceback

from gamespec.errors import GamespecError, Unfinished

from gamespec.bots import RandomBot
from gamespec.interpreter.rng import ALGORITHM

__all__ = ["play", "play_out", "play_one", "simulate", "MAX_GAMES"]   # the public face (docs/api.md)

#: The most games one simulate() call plays (operator input is bounded like any other).
MAX_GAMES = 10_000_000

#: Fields of a simulate() report that depend on how it ran (timing, workers, engine), not on the games.
TIMING_FIELDS = ("seconds", "games_per_second", "decisions_per_second", "workers", "engine")


def play(game, players, seed, options=None, bots=None, log=False, observe=None, timeout=None):
    """Play one game to its end with bots (default: a RandomBot per seat); returns the final State.

    `observe=True` builds every seat's view for every decision, even for a random bot (a smoke
    test of the views; the outcome is the same).
    """
    state = game.new_game(players=players, seed=seed, options=options, log=log)
    return play_out(state, bots, seed, observe, timeout)


def check_timeout(timeout):
    """None or a number of seconds > 0 (UsageError otherwise)."""
    from gamespec.errors import UsageError
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float))
                                or not 0 < timeout <= 10 ** 9):
        raise UsageError(f"the timeout is a number of seconds > 0, not {timeout!r}")
    return timeout


def timed_out(timeout, decisions):
    from gamespec import SpecRuntimeError
    return SpecRuntimeError(f"the game did not end within the timeout of {timeout:g} s "
                            f"({decisions} decisions played)", check="timeout")


def play_out(state, bots=None, seed=0, observe=None, timeout=None, after=None, on_move=None):
    """Play an already started game to its end (so a caller keeps the State if a rule fails).

    Each bot sees only its seat's view (gamespec.bots.decide). A plain RandomBot is asked without a
    view (`pick(n)`: the same draw, without the cost of building one) unless `observe` is true.
    `on_move(state, action)` is called before a decision is applied, `after(state)` after it (live
    transcripts, game traces). `timeout` (seconds): past it,
    SpecRuntimeError (check 'timeout') between two decisions; one decision is bounded by the spec's
    step budget."""
    from gamespec.bots import decide
    deadline = None if check_timeout(timeout) is None else time.monotonic() + timeout
    n = state.num_players
    if bots is None:
        bots = [RandomBot(seed, seat) for seat in range(n)]
    if len(bots) != n:
        raise ValueError(f"{len(bots)} bots for {n} seats")
    fast = [b.pick if type(b) is RandomBot and not observe else None for b in bots]
    while not state.is_terminal:
        if deadline is not None and time.monotonic() > deadline:
            raise timed_out(timeout, state.decisions)
        p = state.current_player
        pick = fast[p]
        if pick is not None:
            legal = state.legal_actions()
            action = legal[pick(len(legal))]
        else:
            i, _ = decide(state, bots[p])
            action = state.legal_actions()[i]
        if on_move is not None:
            on_move(state, action)
        state.apply(action)
        if after is not None:
            after(state)
    return state


ENGINES = ("native", "python")


def check_engine(engine):
    """'native' (random seats as whole games in C, ISMCTS searches in C: docs/native.md) or 'python'."""
    if engine not in ENGINES:
        from gamespec.errors import UsageError
        raise UsageError(f"the engine is native or python, not {str(engine)[:40]!r}")
    return engine


def play_one(game, players, seed, options=None, bots=None, timeout=None, ticks=None, engine="python",
             trace=False, generator=None) -> dict:
    """One game with bots (`bots`: a kind per seat, default "random" everywhere) → its result:
    {'seed', 'bots', 'scores', 'winners', 'decisions', 'turns', 'phases', 'seconds'}, and 'teams'
    (each seat's scoring team, final_teams) where the spec scores teams. May raise.
    `trace`: also 'lead_changes', 'decided_at', 'winner_deficit' and 'actions' (GameTrace).

    'phases' counts the phases played: one plus the phase changes seen between two decisions.
    `timeout` (seconds): past it, SpecRuntimeError (check 'timeout') between two decisions.
    `ticks`: a Ticks told of every decision (progress within long games).
    `generator`: "fast" shuffles and draws the random seats' decisions with splitmix64 (guessable, for
    studies: docs/native.md "Fast generator").
    """
    from gamespec.bots import make_bots
    t0 = time.perf_counter()
    kinds = list(bots) if bots is not None else ["random"] * players
    if engine == "native" and generator is None:
        got = _on_native_state(game, players, seed, options, kinds, timeout, ticks, t0, trace)
        if got is not None:
            return got
    state = game.new_game(players=players, seed=seed, options=options, generator=generator)
    seen = {"phases": 0, "last": None}

    tick = ticks.decision if ticks is not None else None

    def count(st):
        if tick is not None:
            tick()
        if not st.is_terminal and st.phase != seen["last"]:
            seen["phases"] += 1
            seen["last"] = st.phase
    if not state.is_terminal:          # as count() would, without counting a decision
        seen["phases"] += 1
        seen["last"] = state.phase
    tr = GameTrace(state) if trace else None
    after = count if tr is None else (lambda st: (count(st), tr.after(st)))
    seats = make_bots(kinds, seed, engine=engine)
    if generator is not None and state.gen != ALGORITHM:    # the random seats draw from the game's generator
        seats = [RandomBot(seed, p, state.gen) if type(b) is RandomBot else b for p, b in enumerate(seats)]
    play_out(state, seats, seed, timeout=timeout, after=after, on_move=None if tr is None else tr.move)
    out = {"seed": seed, "bots": kinds, "scores": list(state.scores), "winners": list(state.winners),
           "decisions": state.decisions, "turns": state.turns, "phases": seen["phases"],
           "seconds": time.perf_counter() - t0}
    if tr is not None:
        out.update(tr.result(state))
    teams = final_teams(state)
    if teams is not None:           # last, as play_many adds them to the games played in C
        out["teams"] = teams
    return out


def _on_native_state(game, players, seed, options, kinds, timeout, ticks, t0, trace=False):
    """play_one's game held in C (interpreter/native_step.NativeState) when every seat is a random or an
    ISMCTS bot: a random seat draws as play_out draws, an ISMCTS seat searches from the struct with its
    plan built in C (native_plan.ismcts_choose: its seat's information only, no Python State, no
    view); traced, each action counted by its id's name and the scores after each decision
    evaluated in C (NativeState.trace_scores). The same game, decisions and result as on the Python
    State. None where it cannot (another kind of bot, no native per-step kit): the caller plays on
    the Python State."""
    from gamespec.bots import ISMCTSBot, make_bots
    from gamespec.bots.registry import parse_kind
    if not all(parse_kind(k)[0] in ("random", "ismcts") for k in kinds):    # (a user's class is made once, later)
        return None
    seats = make_bots(kinds, seed, engine="native")
    if not all(type(b) is RandomBot or (type(b) is ISMCTSBot and b.engine != "python") for b in seats):
        return None
    kit = game.step_kit(players, options)
    if isinstance(kit, str):
        return None
    from gamespec.interpreter.native_plan import ismcts_choose
    deadline = None if check_timeout(timeout) is None else time.monotonic() + timeout
    tick = ticks.decision if ticks is not None else None
    ns = kit.new_game(seed)
    rs = kit.rs
    tr = GameTrace(ns) if trace else None
    if tr is not None:
        import bisect
        blocks = rs.action_space().blocks
        bases = [b[2] for b in blocks]
    phases, last = (0, None) if ns.is_terminal else (1, ns.phase)
    while not ns.is_terminal:
        if deadline is not None and time.monotonic() > deadline:
            raise timed_out(timeout, ns.decisions)
        bot = seats[ns.current_player]
        legal = ns.legal_ids_in_order()
        i = legal[bot.pick(len(legal)) if type(bot) is RandomBot else ismcts_choose(bot, ns)]
        ns.apply_id(i)
        if tick is not None:
            tick()
        if not ns.is_terminal and ns.phase != last:
            phases += 1
            last = ns.phase
        if tr is not None:
            name = blocks[bisect.bisect_right(bases, i) - 1][0]
            tr.actions[name] = tr.actions.get(name, 0) + 1
            if tr.scored and not ns.is_terminal:
                sc = ns.trace_scores(tr.units)
                if sc is None:          # C cannot say: the Python State's (re-played) scores
                    tr.after(ns.python_state())
                else:
                    tr._note([tr.sign * v for v in sc])
    out = {"seed": seed, "bots": kinds, "scores": list(ns.scores), "winners": list(ns.winners),
           "decisions": ns.decisions, "turns": ns.turns, "phases": phases, "seconds": time.perf_counter() - t0}
    if tr is not None:
        out.update(tr.result(ns))
    teams = final_teams(ns.python_state()) if teams_in_play(rs) else setup_teams(rs)
    if teams is not None:
        out["teams"] = teams
    return out


# -- teams: who shares a score and a win ------------------------------------------------------------

def _renumbered(teams) -> list:
    """Team numbers as 0, 1, ... in the order the seats first show them ([5, 3, 5, 3] -> [0, 1, 0, 1])."""
    seen = {}
    return [seen.setdefault(t, len(seen)) for t in teams]


def setup_teams(rs):
    """The teams that share a score and a win, when they are known before the game is played: the
    game's teams (top-level `teams`) for scoring.per_team; for scoring.teams, its values when its
    expression reads only p, num_players and options (renumbered 0, 1, ... in seat order). None
    without scoring teams (each seat scores alone: top-level teams with per-seat scoring too) or
    when scoring.teams reads the state (decided during play: see final_teams)."""
    if rs.per_team:
        return list(rs.seat_team)
    rule = getattr(rs.spec, "teams", None)
    if rule is None or getattr(rs.spec, "cooperative", False):
        return None
    from gamespec.spec import ast as A
    from gamespec.spec.sizes import _value
    for n in A.walk(rule.ast):
        ok = isinstance(n, (A.Const, A.BinOp, A.Compare, A.BoolOp, A.Unary, A.IfExp)) or (
            isinstance(n, A.Name) and (n.id in ("p", "num_players") or n.id in rs.options)) or (
            isinstance(n, A.Call) and n.func in ("max", "min", "abs") and not n.kwargs
            and not any(isinstance(a, A.Comp) for a in n.args))
        if not ok or (isinstance(n, A.BinOp) and n.op == "**"):
            return None
    try:
        teams = [_value(rule.ast, rs.P, rs.options, {"p": p}) for p in range(rs.P)]
    except (ZeroDivisionError, KeyError, TypeError, ValueError):     # the game says so where it ends
        return None
    return _renumbered(teams) if all(t.__class__ is int for t in teams) else None


def teams_in_play(rs) -> bool:
    """Whether the scoring teams are decided during play (scoring.teams reading the state)."""
    return (not rs.per_team and getattr(rs.spec, "teams", None) is not None
            and not getattr(rs.spec, "cooperative", False) and setup_teams(rs) is None)


def final_teams(state):
    """A finished game's scoring teams, each seat's team number (setup_teams, or scoring.teams
    evaluated on the final state as State.finish evaluates it, renumbered 0, 1, ... in seat order);
    None without scoring teams."""
    rs = state.rs
    if not teams_in_play(rs):
        return setup_teams(rs)
    return _renumbered([rs.team_of(state, {"p": p}) for p in range(state.num_players)])


def sides(winners, teams=None) -> int:
    """How many sides share a game's win: its winners, or, in a team game (`teams`: each seat's team),
    its winning teams. A team that wins alone is one side: each partner counts the win, as a sole
    winner does; several winning teams are a draw, which counts to none (docs/analysis.md, "Teams")."""
    return len({teams[p] for p in winners}) if teams else len(winners)


def action_names(rs) -> list:
    """The names of every action a seat may be offered: the spec's, and 'skip' where a step is
    optional (the fixed action numbering's blocks, docs/agents.md)."""
    try:
        from gamespec.compile.action_space import space
        return list(space(rs).by_name)
    except GamespecError:        # a numbering too large to build: the spec's own actions
        return list(rs.actions)


_TRACED = {}       # id(rule set) -> (rule set, names): trace_names once per configuration


def trace_names(rs) -> list:
    """action_names less the actions no state of this configuration can offer (an action an option
    switches off: gamespec/compile/possible.py), so that a study's "never played" names only
    actions the configuration could have played. One that is played all the same is counted where
    it is first played."""
    hit = _TRACED.get(id(rs))
    if hit is not None and hit[0] is rs:
        return hit[1]
    names = action_names(rs)
    from gamespec.compile.possible import possible_actions
    ok = possible_actions(rs)
    if ok is not None:
        names = [a for a in names if a not in rs.actions or a in ok]
    if len(_TRACED) > 64:
        _TRACED.clear()
    _TRACED[id(rs)] = (rs, names)
    return names


class GameTrace:
    """One game, decision by decision → the metrics of docs/analysis.md ("Per-game metrics"): the spec's
    score for every seat after each decision (its score expression on the state as it is; the final
    scores at the end), signed so that higher is better, gives the sole leader after each decision;
    from those: lead changes, when the final sole winner led for good, how far it trailed. Every
    action of the spec is counted by name. Updated as the game goes (a few numbers a seat, as its C
    mirror in interpreter/native/runtime.c), not as the sequence of scores."""

    __slots__ = ("rs", "P", "units", "sign", "actions", "scored", "n", "changes", "last", "not_led", "gap")

    def __init__(self, state):
        rs = self.rs = state.rs
        self.P = P = state.num_players
        self.sign = 1 if rs.winner != "lowest" else -1
        self.actions = dict.fromkeys(trace_names(rs), 0)
        self.scored = rs.score is not None and not getattr(rs.spec, "cooperative", False)
        self.n = self.changes = 0           # scored positions so far; times the sole leader changed
        self.last = None                    # the last sole leader
        # who leads: a seat, or a team when the spec scores teams (scoring.per_team): partners share
        # a score, so no seat of a team could ever lead alone
        self.units = units = rs.T if rs.per_team else P
        self.not_led = [-1] * units         # per seat (team): the last position it was not the sole leader
        self.gap = [0] * units              # per seat (team): its largest distance from the best score

    def move(self, state, action):
        name = action[0]
        self.actions[name] = self.actions.get(name, 0) + 1

    def after(self, state):
        if not self.scored or state.is_terminal:
            return              # the final scores are taken in result()
        rs, sign = self.rs, self.sign
        sc = []
        # the game's step accounting is the game's: each evaluation gets a rule's allowance of its
        # own (so it is bounded like any rule) and the state's budget and steps are put back, so a
        # traced game is the same game as an untraced one
        budget, spent = state.budget, state.spent
        # scoring.per_team: each team's score once (`t`), each seat its team's, as at the end
        per_team = rs.per_team
        names, keys = ("t", range(rs.T)) if per_team else ("p", range(self.P))
        try:
            for k in keys:
                state.budget = rs.max_steps
                try:
                    v = rs.score(state, {names: k})
                except GamespecError:     # a rule that cannot be evaluated yet counts as 0
                    v = 0
                # so does a value that is no number yet (none, a text): the final scores are checked
                # where the game ends, not here
                sc.append(sign * v if type(v) in (int, float, bool) else 0)
        finally:
            state.budget, state.spent = budget, spent

        self._note(sc)

    def _note(self, sc, leader=None):
        best = max(sc)
        if leader is None:
            at = [p for p, v in enumerate(sc) if v == best]
            leader = at[0] if len(at) == 1 else None
        if leader is not None:
            self.changes += self.last is not None and leader != self.last
            self.last = leader
        for p, v in enumerate(sc):
            if p != leader:
                self.not_led[p] = self.n
            if best - v > self.gap[p]:
                self.gap[p] = best - v
        self.n += 1

    def result(self, state) -> dict:
        out = {"actions": dict(self.actions)}
        if not self.scored:
            out.update(lead_changes=None, decided_at=None, winner_deficit=None)
            return out
        winners, final = state.winners, state.scores
        if self.units != self.P:            # teams: each team's score (its members share it) and winners
            team = self.rs.seat_team
            final = [next(final[p] for p in range(self.P) if team[p] == t) for t in range(self.units)]
            winners = sorted({team[p] for p in winners})
        # a tie-breaker's sole winner leads at the end
        self._note([self.sign * s for s in final], winners[0] if len(winners) == 1 else None)
        out["lead_changes"] = self.changes
        if len(winners) != 1:
            out.update(decided_at=None, winner_deficit=None)
            return out
        w, n = winners[0], self.n
        since = self.not_led[w] + 1         # the final run of positions the winner led
        out["decided_at"] = min(since, n - 1) / (n - 1) if n > 1 else 0.0
        out["winner_deficit"] = self.gap[w]
        return out


#: Why a game did not end, from the check of the error that stopped it (records' `reason`).
REASONS = {"timeout": "timeout", "budget": "budget", "game-budget": "budget", "game-steps": "budget"}


def reason_of(error) -> str:
    """'timeout', 'budget' (a step or decision budget of the spec ran out) or 'rule' (a rule failed)."""
    return REASONS.get(getattr(error, "check", None), "rule")


def _play_safe(game, players, seed, options, bots=None, timeout=None, engine="python", ticks=None,
               trace=False, generator=None) -> dict:
    """play_one, with an exception turned into {'seed', 'error', 'reason', 'internal'[, 'traceback']}."""
    try:
        kw = {} if engine == "python" else {"engine": engine}
        if trace:
            kw["trace"] = True
        if generator is not None and generator != ALGORITHM:
            kw["generator"] = generator
        r = play_one(game, players, seed, options, bots, timeout, ticks, **kw)
        if ticks is not None:
            ticks.game(r["decisions"])
        return r
    except GamespecError as e:
        if ticks is not None:
            ticks.game(0)
        return {"seed": seed, "error": f"{type(e).__name__}: {e}", "reason": reason_of(e), "internal": False}
    except Exception as e:  # an interpreter bug: keep the traceback
        if ticks is not None:
            ticks.game(0)
        return {"seed": seed, "error": f"{type(e).__name__}: {e}", "reason": "internal", "internal": True,
                "traceback": traceback.format_exc()}


# -- can random moves finish this game? -------------------------------------------------------------
#: The probe's bounds: games of at most PROBE_DECISIONS decisions each, PROBE_TOTAL decisions and
#: PROBE_CPU seconds of CPU time in all (whichever comes first), at most PROBE_GAMES games.
PROBE_GAMES = 20
PROBE_DECISIONS = 5_000
PROBE_TOTAL = 50_000
PROBE_CPU = 5.0


def finish_probe(game, players, options, games=PROBE_GAMES, max_decisions=None, stop_at_first=True,
                 cpu=PROBE_CPU):
    """Play sample games with uniformly random moves (seeds 0, 1, ...), each stopped after
    `max_decisions` decisions (default: PROBE_DECISIONS, or the spec's own limit if lower), until one
    ends (`stop_at_first`), `games` were tried, or PROBE_TOTAL decisions or `cpu` CPU seconds were
    spent (checked between decisions: a game cut by it is not counted as tried, so a probe that ran
    out of time says nothing). Returns {'tried', 'ended', 'max_decisions', 'decisions', 'errors'}.
    A rule that fails is counted in 'errors' (it is `simulate`'s business to report it)."""
    import random
    limit = min(max_decisions or PROBE_DECISIONS, game.spec.decisions_per_game)
    t0 = time.process_time()
    tried = ended = spent = errors = 0
    for seed in range(games):
        if spent >= PROBE_TOTAL or time.process_time() - t0 > cpu:
            break
        tried += 1
        rnd = random.Random(seed)
        cut = False
        try:
            s = game.new_game(players=players, seed=seed, options=options)
            while not s.is_terminal and s.decisions < limit:
                if time.process_time() - t0 > cpu:
                    cut = True
                    break
                s.apply_index(rnd.randrange(s.legal_action_count()))
        except GamespecError:
            errors += 1
            continue
        if cut:
            tried -= 1
            break
        spent += s.decisions
        if s.is_terminal:
            ended += 1
            if stop_at_first:
                break
    return {"tried": tried, "ended": ended, "max_decisions": limit, "decisions": spent, "errors": errors}


def check_finishes(game, players, options, bots=None, timeout=None):
    """With random bots only (the default): Unfinished when no sample game of random moves ends. The
    probe spends no more CPU time than a game's `timeout` (seconds) would allow."""
    if not all(b == "random" for b in (bots or ["random"])):
        return
    found = finish_probe(game, players, options, cpu=PROBE_CPU if timeout is None else min(PROBE_CPU, timeout))
    if found["ended"] == 0 and found["tried"] > found["errors"]:
        raise Unfinished(unfinished_message(found, players, options))


def unfinished_message(probe, players, options) -> str:
    """What to tell the user when no sample game ended (the lint and simulate say the same)."""
    opts = ", ".join(f"{k}={str(v).lower()}" for k, v in (options or {}).items())
    return (f"0 of {probe['tried']} sample games ended within {probe['max_decisions']} decisions of random moves "
            f"({players} players{', ' + opts if opts else ''}): random bots cannot finish this game. A game "
            "played to a target score may never end by chance; give it a bound for simulations, such as an "
            "option max_rounds that ends it (docs/idioms.md, \"Games to a target score\")")


# -- progress within games: decisions counted where they are played, sent on now and then ---------
#: At most this often a worker sends its decision counts (a lock, or a Ray actor call, each time).
TICK_SECONDS = 0.25


class Ticks:
    """Where games are played: counts decisions (of games finished or not), finished games and the
    decisions of those, and hands them to `send(decisions, games, finished_decisions)` as deltas at
    most every `interval` seconds (and on flush()). A call per decision: a counter and a clock read."""

    __slots__ = ("send", "interval", "d", "g", "fd", "last")

    def __init__(self, send, interval=None):
        self.send = send
        self.interval = TICK_SECONDS if interval is None else interval
        self.d = self.g = self.fd = 0
        self.last = time.monotonic()

    def decision(self):
        self.d += 1
        if time.monotonic() - self.last >= self.interval:
            self.flush()

    def game(self, decisions):
        self.g += 1
        self.fd += decisions
        if time.monotonic() - self.last >= self.interval:
            self.flush()

    def flush(self):
        self.last = time.monotonic()
        if self.d or self.g:
            d, g, fd = self.d, self.g, self.fd
            self.d = self.g = self.fd = 0
            self.send(d, g, fd)


class Counts:
    """The main process's totals of what the Ticks sent: decisions, finished games, their decisions."""

    def __init__(self):
        self.decisions = self.games = self.finished_decisions = 0

    def add(self, d, g, fd):
        self.decisions += d
        self.games += g
        self.finished_decisions += fd


def wants_decisions(progress) -> bool:
    """A progress callback that takes decision counts (progress.ProgressBar) is called as
    progress(done, total, decisions=, finished_decisions=); a plain one as progress(done, total)."""
    return bool(getattr(progress, "counts_decisions", False))


def report_progress(progress, done, total, counts):
    if progress is None:
        return
    if counts is None:
        progress(done, total)
    else:
        progress(max(done, counts.games), total, decisions=counts.decisions,
                 finished_decisions=counts.finished_decisions)


_WORKER_TICKS = None     # in a local worker process: its Ticks (shared counters), when progress is shown


def _shared_send(values):
    lock = values[0].get_lock()

    def send(d, g, fd):
        with lock:
            values[0].value += d
            values[1].value += g
            values[2].value += fd
    return send


class InOrder:
    """Blocks of results finish in any order; hands each result to `acc` (and `on_result`) in seed order,
    so a parallel run reports exactly what a serial one would."""

    def __init__(self, blocks, acc, on_result=None):
        self.order = [first for first, _ in blocks]
        self.acc, self.on_result = acc, on_result
        self.pending, self.next, self.done = {}, 0, 0   # first seed -> results waiting for earlier blocks

    def add(self, first, results):
        if isinstance(results, dict):                    # a worker's fatal error (see _run_block)
            raise GamespecError(results["fatal"])
        self.pending[first] = results
        self.done += len(results)
        while self.next < len(self.order) and self.order[self.next] in self.pending:
            for r in self.pending.pop(self.order[self.next]):
                self.acc.add(r)
                if self.on_result is not None:
                    self.on_result(r)
            self.next += 1


def summary(game, path, players, opts, seed, games, acc, seconds, workers, engine="python") -> dict:
    """The report of a simulation run (serial, process pool or Ray)."""
    out = {"game": game.name, "spec": path, "players": players, "options": opts, "seed": seed,
           "games_requested": games, "engine": engine}
    out.update(acc.report())
    out["seconds"] = seconds
    out["games_per_second"] = acc.n / seconds if seconds > 0 else None
    out["decisions_per_second"] = acc.decisions / seconds if seconds > 0 else None
    out["workers"] = workers
    return out


class Accumulator:
    """Per-game results (fed in seed order) → the report. Integer sums, so exact."""

    def __init__(self, players):
        self.P = players
        self.n = 0
        self.score_sum = [0] * players
        self.score_min = [None] * players
        self.score_max = [None] * players
        self.shares = [{} for _ in range(players)]   # seat -> {k: games won shared by k sides (sides())}
        self.shared_games = 0
        self.decisions = 0
        self.decisions_min = None
        self.decisions_max = None
        self.errors = []

    def add(self, r):
        if "error" in r:
            self.errors.append(r)
            return
        self.n += 1
        for p, sc in enumerate(r["scores"]):
            self.score_sum[p] += sc
            if self.score_min[p] is None or sc < self.score_min[p]:
                self.score_min[p] = sc
            if self.score_max[p] is None or sc > self.score_max[p]:
                self.score_max[p] = sc
        k = sides(r["winners"], r.get("teams"))     # a team's win is a win, not a shared one
        if k > 1:
            self.shared_games += 1
        if r.get("teams") is None or k == 1:      # a draw between teams counts to no team (docs/analysis.md)
            for p in r["winners"]:
                self.shares[p][k] = self.shares[p].get(k, 0) + 1
        d = r["decisions"]
        self.decisions += d
        self.decisions_min = d if self.decisions_min is None else min(self.decisions_min, d)
        self.decisions_max = d if self.decisions_max is None else max(self.decisions_max, d)

    def report(self) -> dict:
        from fractions import Fraction
        n = self.n

        def mean(total):
            return total / n if n else None

        wins = [sum((Fraction(c, k) for k, c in sh.items()), Fraction(0)) for sh in self.shares]
        return {
            "games_finished": n,
            "win_rate": [float(w / n) if n else None for w in wins],
            "wins": [float(w) for w in wins],
            "shared_wins": self.shared_games,
            "score_mean": [mean(s) for s in self.score_sum],
            "score_min": list(self.score_min),
            "score_max": list(self.score_max),
            "decisions_mean": mean(self.decisions),
            "decisions_min": self.decisions_min,
            "decisions_max": self.decisions_max,
            "decisions_total": self.decisions,
            "errors": [dict(e) for e in self.errors],
        }


# -- worker side (top-level functions: picklable under "spawn") ------------------------------------
_GAMES = {}


def _worker_game(path, sha, text=None):
    key = (path, sha)
    g = _GAMES.get(key)
    if g is None:
        import gamespec
        g = gamespec.load(path) if text is None else gamespec.load_text(text, path)
        if g.spec.sha256 != sha:
            raise GamespecError(f"{path}: the spec file changed while the simulation ran")
        _GAMES.clear()
        _GAMES[key] = g
    return g


def _worker_init(shared=None, interval=None):
    """Workers ignore Ctrl-C: the main process handles it and stops them. `shared`: three counters
    (decisions, games, finished games' decisions) for the progress of games still going."""
    import signal
    global _WORKER_TICKS, _IN_WORKER
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _IN_WORKER = True
    if shared is not None:
        _WORKER_TICKS = Ticks(_shared_send(shared), interval)


def _run_block(path, sha, players, options, first, count, bots=None, text=None, timeout=None, ticks=None,
               engine="python", trace=None, generator=None):
    """Play seeds first .. first+count-1 in a worker; returns (first, [result per seed]) or a fatal error.

    `text`: the spec's bytes, for a worker that cannot read `path` (a Ray node); else it reads `path`.
    `ticks`: (send, interval) for the progress of games still going (a Ray task's: an actor's
    method); a local worker uses the counters its initializer was given.
    """
    try:
        game = _worker_game(path, sha, text)
    except GamespecError as e:      # sent back as text: the error classes do not all pickle
        return first, {"fatal": str(e)}
    tk = Ticks(*ticks) if ticks is not None else _WORKER_TICKS
    try:
        return first, play_many(game, players, range(first, first + count), options, bots, timeout, engine, tk,
                                trace, generator)
    finally:
        if tk is not None:
            tk.flush()


def traces(trace) -> bool:
    """Whether games record their trace (GameTrace): `trace` True or False says so; None (the default)
    means yes: the Python loop records it as it plays, and so does the C code that plays whole games
    of random seats on the native engine (NativeTrace). False spares the cost."""
    return True if trace is None else bool(trace)


class NativeTrace:
    """GameTrace's fields from the C code's counters (interpreter/native_engine.py, NativeLib.simulate):
    `mode` 1 counts the actions only (no score expression, a cooperative game), 2 also follows the
    score's leaders; `sign` as GameTrace's; `teams` (the count, each seat's) where teams lead. The
    same fields, in the same order, as GameTrace.result."""

    def __init__(self, rs, lib):
        self.rs = rs
        self.sign = 1 if rs.winner != "lowest" else -1
        self.mode = 1 if rs.score is None or getattr(rs.spec, "cooperative", False) else 2
        self.names = trace_names(rs)
        self.by_index = dict(enumerate(lib.meta["actions"]))
        self.by_index[-1] = "skip"
        # scoring.per_team: the teams lead, as in GameTrace (C evaluates the score once per team)
        self.teams = (rs.T, list(rs.seat_team)) if rs.per_team else None

    def fields(self, raw) -> dict:
        changes, n, since, deficit, acts = raw
        actions = dict.fromkeys(self.names, 0)
        # a name not in the numbering is added where GameTrace.move adds it: at its first use
        for a, (count, _) in sorted(acts.items(), key=lambda kv: kv[1][1]):
            name = self.by_index[a]
            actions[name] = actions.get(name, 0) + count
        out = {"actions": actions}
        if self.mode == 1:
            out.update(lead_changes=None, decided_at=None, winner_deficit=None)
        elif since < 0:
            out.update(lead_changes=changes, decided_at=None, winner_deficit=None)
        else:
            out.update(lead_changes=changes, decided_at=min(since, n - 1) / (n - 1) if n > 1 else 0.0,
                       winner_deficit=deficit if deficit > 0 else 0)
        return out


def play_many(game, players, seeds, options, bots=None, timeout=None, engine="python", ticks=None,
              trace=None, generator=None) -> list:
    """_play_safe for each seed, in order. With the native engine and a random bot in every seat the
    games are played in C (each seat's RandomBot stream mirrored), their traces recorded there too
    (NativeTrace), a game the C code stops played again by _play_safe: the same results either way.
    `ticks` is told of each game (a native game's decisions all at once, at its end). `trace`: see
    traces(). `generator`: as play_one's."""
    kinds = list(bots) if bots is not None else ["random"] * players
    trace = traces(trace)
    from gamespec.game import check_generator
    generator = check_generator(generator)
    if engine == "native" and all(k == "random" for k in kinds) and seeds:
        rs = game.ruleset(players, game.check_options(options))
        lib = None
        if teams_in_play(rs):       # C gives no final state to read them from
            if not _IN_WORKER:
                from gamespec.compile.cbuild import tell
                tell(game, rs, "its scoring teams are decided during play, and a study records each game's "
                               "teams from its final state")
        else:
            lib = _native_library(game, rs)
        if lib is not None:
            from gamespec.interpreter.native_engine import simulate_games
            nt = None
            if trace:                   # made once per rule set (the action numbering is not free)
                nt = lib.__dict__.get("native_trace")
                if nt is None or nt.rs is not rs:
                    nt = lib.__dict__["native_trace"] = NativeTrace(rs, lib)
            out = simulate_games(lib, game, players, list(seeds), options, kinds, timeout, _play_safe, timed_out, nt,
                                 lambda why: _tell_bail(game, rs, why), generator)
            teams = setup_teams(rs)
            if teams is not None:       # as play_one gives them (the games C played have none yet)
                for r in out:
                    if "error" not in r:
                        r.setdefault("teams", list(teams))
            if ticks is not None:
                for r in out:
                    ticks.game(r.get("decisions", 0))
            return out
    return [_play_safe(game, players, seed, options, bots, timeout, engine, ticks, trace, generator) for seed in seeds]


_IN_WORKER = False     # a pool's worker: the main process has said why the native engine is not used


def _native_library(game, rs):
    """game.native_library(rs), saying why not in one line: in the main process only (a study's
    workers would each say it again)."""
    if not _IN_WORKER:
        return game.native_library(rs)
    from gamespec.compile.cbuild import library
    lib = library(rs)
    return None if isinstance(lib, str) else lib


def _tell_bail(game, rs, why):
    """Once per configuration (and process): the C code stopped a game, the Python engine played it.
    Not for a fault (a rule's run-time error): the Python engine meets it too, and the game's failure,
    reported with its seed and FILE:LINE:COL, says all (a line saying it is played again would promise
    a game that does not come)."""
    from gamespec.mirrors import FAULTS
    if any(why == f.check for f in FAULTS):
        return
    from gamespec.compile.cbuild import tell
    tell(game, rs, why, bail=True)


def _block_size(games, workers):
    # enough blocks to balance the load and update the progress, few enough to keep overhead low
    return max(1, min(250, -(-games // (workers * 16))))


def simulate(path, games=100, players=None, seed=0, options=None, workers=None, progress=None,
             game=None, bots=None, on_result=None, timeout=None, engine="python", probe=True, trace=None,
             generator=None) -> dict:
    """Play `games` games with bots (a kind per seat; default random), seeds seed .. seed+games-1;
    aggregate in seed order.

    `progress(done, total)` is called in this process as games finish; `on_result(result)` with each
    game's result (or error) in seed order, as soon as the games before it are in. `game` may be the Game
    already loaded from `path` (worker processes always load `path` themselves). Raises SpecErrors
    (bad spec), UsageError (bad players/options/counts); a game that raises is reported in 'errors'.

    With random bots (the default) and `probe`, sample games are played first (finish_probe): when
    none ends within its bound, Unfinished says so at once, instead of every game running into the
    spec's decision budget. `trace`: whether each result carries its GameTrace metrics (see traces()).
    `generator="fast"`: splitmix64 shuffles and random seats (guessable, for studies only; the report
    then says "generator": "splitmix64"; docs/native.md "Fast generator").
    """
    import gamespec
    from gamespec.errors import UsageError

    path = os.fspath(path)
    if game is None:
        game = gamespec.load(path)
    players = game.min_players if players is None else players
    opts = game.check_options(options)
    game.ruleset(players, opts)          # checks the player count (and compiles once, early)
    if not isinstance(games, int) or isinstance(games, bool) or not 0 <= games <= MAX_GAMES:
        raise UsageError(f"the number of games is a whole number from 0 to {MAX_GAMES}, not {str(games)[:40]}")
    from gamespec.interpreter.rng import check_seed
    check_seed(seed)
    if games:
        check_seed(seed + games - 1, what="the last game's seed")
    check_timeout(timeout)
    check_engine(engine)
    from gamespec.game import check_generator
    generator = check_generator(generator)
    if engine == "native":       # built (or found in the cache) once, before any worker starts
        game.native_library(game.ruleset(players, opts))
    if workers is None:         # all cores, but no more than one per 20 games (start-up costs)
        workers = max(1, min(os.cpu_count() or 1, games // 20))
    if not isinstance(workers, int) or workers < 1:
        raise UsageError(f"the number of workers is a whole number >= 1, not {workers!r}")
    if probe and games:
        check_finishes(game, players, opts, bots, timeout)
    size = _block_size(games, workers)
    blocks = [(first, min(size, seed + games - first)) for first in range(seed, seed + games, size)]
    used = max(1, min(workers, len(blocks)))

    acc = Accumulator(players)
    done = 0
    counts = Counts() if wants_decisions(progress) else None
    t0 = time.perf_counter()
    if used == 1:
        ticks = None
        if counts is not None:
            def send(d, g, fd):
                counts.add(d, g, fd)
                report_progress(progress, done, games, counts)
            ticks = Ticks(send)
        step = 1 if engine != "native" else 64      # native games come in blocks (progress per block)
        for first in range(seed, seed + games, step):
            for r in play_many(game, players, range(first, min(first + step, seed + games)), opts, bots,
                               timeout, engine, ticks, trace, generator):
                acc.add(r)
                if on_result is not None:
                    on_result(r)
                done += 1
            if ticks is not None:
                ticks.flush()
            report_progress(progress, done, games, counts)
    else:
        import multiprocessing
        from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

        ctx = multiprocessing.get_context("spawn")
        collect = InOrder(blocks, acc, on_result)
        shared = [ctx.Value("q", 0) for _ in range(3)] if counts is not None else None
        with ProcessPoolExecutor(max_workers=used, mp_context=ctx, initializer=_worker_init,
                                 initargs=(shared, TICK_SECONDS)) as ex:
            futures = {ex.submit(_run_block, path, game.spec.sha256, players, opts, first, count, bots, None, timeout,
                                 None, engine, trace, generator)
                       for first, count in blocks}
            try:
                while futures:
                    # with decision counts, wake up now and then: a block of long games takes long
                    finished, futures = wait(futures, return_when=FIRST_COMPLETED,
                                             timeout=None if counts is None else max(0.05, TICK_SECONDS))
                    for f in finished:
                        collect.add(*f.result())
                    if counts is not None:
                        with shared[0].get_lock():
                            counts.decisions, counts.games, counts.finished_decisions = (v.value for v in shared)
                    report_progress(progress, collect.done, games, counts)
            except BaseException:       # Ctrl-C, a fatal error: stop now, not after every block
                procs = list((getattr(ex, "_processes", None) or {}).values())
                ex.shutdown(wait=False, cancel_futures=True)
                for proc in procs:
                    proc.terminate()
                # and wait for them: a worker still running at exit leaves its queues' and counters'
                # semaphores to the resource tracker, which then warns of leaked semaphores
                for proc in procs:
                    proc.join(5)
                ex.shutdown(wait=True)
                raise
    seconds = time.perf_counter() - t0

    out = summary(game, path, players, opts, seed, games, acc, seconds, used, engine)
    if generator != ALGORITHM:
        out["generator"] = generator
    if bots is not None:
        out["bots"] = list(bots)
    return out
