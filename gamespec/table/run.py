"""One game with bots (`gamespec run`): spec, configuration, seed and bots → the played State, its
result record and the outcome as text lines. A failed game keeps its State (the partial log shows how
the game got there)."""
from __future__ import annotations

from gamespec.errors import SpecRuntimeError, GameFailed
from gamespec.errors import UsageError


def log_seats(pairs, players: int) -> list:
    """`--log-for N FILE` pairs (N as typed) → [(seat, file)], each seat checked (UsageError)."""
    out = []
    for n, path in pairs or ():
        try:
            seat = int(n)
        except ValueError:
            raise UsageError(f"--log-for takes a seat number and a file, not {n!r}") from None
        if not 0 <= seat < players:
            raise UsageError(f"--log-for {seat}: no such seat (seats are 0 to {players - 1})")
        out.append((seat, path))
    return out


def play_game(game, players: int, seed: int, options: dict, bots=None, timeout=None, log=False,
              transcript=None):
    """Set up and play one game → (state, failure): failure is None, or the GameFailed to raise once
    the caller has written what it wants of the state (its log). A game that cannot even be set up
    raises GameFailed. `bots`: one per seat (None: random bots); `transcript(text)` receives the
    live transcript, line by line (it needs the log: `log` is then on)."""
    from gamespec.simulate import play_out

    from .transcript import live
    try:
        state = game.new_game(players=players, seed=seed, options=options, log=log or transcript is not None)
    except SpecRuntimeError as e:
        raise GameFailed(f"the game failed while setting up (seed {seed}): {e}") from None
    after = live(state, transcript) if transcript is not None else None
    try:
        play_out(state, bots, seed=seed, timeout=timeout, after=after)   # views only for bots that use them
    except SpecRuntimeError as e:
        n = state.decisions
        return state, GameFailed(f"the game failed (seed {seed}, after {n} decision{'' if n == 1 else 's'}): {e}")
    return state, None


def game_result(state, spec_path, seed: int, options: dict, kinds=None, log=None, log_for=()) -> dict:
    """The record of a finished game, as `run --json` prints it."""
    result = {"game": state.game.name, "spec": spec_path, "players": state.num_players, "seed": seed,
              "options": options, "scores": list(state.scores), "winners": list(state.winners),
              "decisions": state.decisions, "turns": state.turns}
    if kinds:
        result["bots"] = list(kinds)
    if log:
        result["log"] = log
    if log_for:
        result["log_for"] = {str(seat): path for seat, path in log_for}
    return result


def outcome_lines(result, log_for=()):
    """A game_result as text: the configuration, each seat's score, the winners, the logs written."""
    from gamespec.config import format_options
    scores, winners = result["scores"], result["winners"]
    yield (f"{result['game']}: {result['players']} players, seed {result['seed']}, "
           f"options: {format_options(result['options'])}")
    width = max(len(str(s)) for s in scores)
    for p, sc in enumerate(scores):
        mark = "  winner" if p in winners else ""
        yield f"  seat {p}: {sc:>{width}}{mark}"
    if winners:
        kind = "winners (shared)" if len(winners) > 1 else "winner"
        who = f"{kind}: {', '.join(f'seat {p}' for p in winners)}"
    else:
        who = "no winner"
    yield f"{who}; {result['decisions']} decisions, {result['turns']} turns"
    if result.get("log"):
        yield f"log: {result['log']}"
    for seat, path in log_for:
        yield f"log for seat {seat}: {path}"
