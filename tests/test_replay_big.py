"""Issue 36: `replay` of a big log answers, in time linear in the log's size with a small constant.

The slow shape was a log of many small decisions, each among many legal actions: a replayed decision
is a JSON action, and finding it among the legal ones built a dict of all of them (more work than
the game's own listing). CPU is measured in child processes (never wall time): ratios, plus a
generous absolute bound."""
from __future__ import annotations

import contextlib
import io
import json
import multiprocessing
import resource

import pytest

import gamespec

WIDE_PICKS = """name: Picks
players: [2, 2]
limits: {decisions_per_game: 1000000, steps_per_game: 20000000}
cards:
  number:
    zone: deck
    faces:
      - {each: {value: [1, 2, 3]}, count: 1}
zones:
  deck: {kind: pile, visibility: hidden}
variables:
  n: {initial: 0}
  total: {per_player: true, initial: 0}
start: play
phases:
  play:
    turn:
      steps:
        - choose: [pick]
    end_if: "n >= DECISIONS"
    next: end
actions:
  pick:
    label: "pick {k}"
    params:
      k: {number: [0, WIDTH]}
    effect: "n = n + 1; total[actor] += k"
scoring:
  score: "total[p]"
"""


def _game(decisions, width):
    return gamespec.load_text(WIDE_PICKS.replace("DECISIONS", str(decisions)).replace("WIDTH", str(width)),
                              "picks.yaml")


def _play(game, log=False):
    """One game, every decision spread over the legal actions; its log lines as a file holds them."""
    s = game.new_game(players=2, seed=5, log=log)
    lines = []
    while True:
        if log:
            lines += [{k: v for k, v in x.items() if not k.startswith("_")} for x in s.log]
            del s.log[:]
        if s.is_terminal:
            return lines
        s.apply_index(s.decisions * 7919 % s.legal_action_count())


def _write_log(game, path):
    with open(path, "w", encoding="utf-8") as f:
        for x in _play(game, log=True):
            f.write(json.dumps(x, separators=(",", ":")) + "\n")


def _in_child(fn, *args):
    """fn(*args) in a forked child: (its result, the child's CPU seconds)."""
    ctx = multiprocessing.get_context("fork")
    r, w = ctx.Pipe(duplex=False)

    def run():
        w.send(fn(*args))
        w.close()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = ctx.Process(target=run)
    p.start()
    w.close()
    value = r.recv()
    p.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert p.exitcode == 0
    return value, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _replay_path(spec, path):
    from gamespec.interpreter.replay import replay_file
    game = gamespec.load_text(spec, "picks.yaml")
    game.ruleset(2, {})     # compiled before the clock that matters: only the replay is compared
    r = replay_file(game, str(path))
    return {k: r[k] for k in ("ok", "decisions", "error")}


def test_replay_cpu_grows_linearly_with_the_logs_size(tmp_path):
    """A log of 4x the decisions (3 MB) replays in under 8x the CPU of the small one: whatever is
    done per decision does not grow with the game so far."""
    cpu = {}
    for decisions in (8_000, 32_000):
        spec = WIDE_PICKS.replace("DECISIONS", str(decisions)).replace("WIDTH", "9")
        path = tmp_path / f"picks{decisions}.jsonl"
        _write_log(gamespec.load_text(spec, "picks.yaml"), path)
        r, secs = _in_child(_replay_path, spec, path)
        assert r == {"ok": True, "decisions": decisions, "error": None}, r
        cpu[decisions] = secs
    assert (tmp_path / "picks32000.jsonl").stat().st_size > 2_000_000
    assert cpu[32_000] < 8 * cpu[8_000] + 0.5, cpu
    assert cpu[32_000] < 60, cpu      # ~2 s on a laptop


def _play_and_replay(width, decisions, rounds):
    """CPU seconds of playing a game of wide decisions by index and of replaying its log, `rounds`
    times each, interleaved (play then replay, replay then play, alternately: a change of the
    machine's load between the two of a round touches both orders alike), after one untimed round.

    The heap this child inherits from its parent (in a full run, pytest's every test and game) is
    frozen first: the collector's passes over it are no cost of the code measured, and they diluted
    the ratio (the dict-building replay read 1.3x with a million inherited objects, 1.7x without)."""
    import gc
    import time
    from gamespec.interpreter.replay import replay
    gc.collect()
    gc.freeze()
    game = _game(decisions, width)
    lines = json.loads(json.dumps(_play(game, log=True)))
    _play(game)                                             # warm-up: nothing timed is a first time
    assert replay(game, lines)["ok"]
    play, rep = [], []
    for k in range(rounds):
        for phase in ("play", "replay") if k % 2 == 0 else ("replay", "play"):
            t = time.process_time()
            if phase == "play":
                _play(game)
                play.append(time.process_time() - t)
            else:
                r = replay(game, lines)
                rep.append(time.process_time() - t)
                assert r["ok"] and r["decisions"] == decisions, r
    return play, rep


# `slow`: CPU time, several seconds of it; it runs with `-m slow`. Each round's ratio compares two
# phases a fraction of a second apart, and the median of 31 rounds is what is held to 1.3: a busy
# round (another process on the core) moves one ratio, not the median. Seen on the shared 2-vCPU
# machine (other test runs, two allocating processes beside it): 1.03-1.22 now, 1.40-1.86 with the
# dict-of-all-actions look-up that issue 36 removed.
@pytest.mark.slow
def test_a_replayed_decision_costs_about_what_playing_it_costs(tmp_path):
    """Each decision has 4,001 legal actions: the game lists them all to play one (the engine's own
    cost). Replay finds the logged one among them by a scan at C speed; it built a dict of them all,
    which cost half as much again as the game itself (1.5x or more; now about 1.1x)."""
    (play, rep), _ = _in_child(_play_and_replay, 4000, 50, 31)
    ratios = sorted(r / p for p, r in zip(play, rep))
    median = ratios[len(ratios) // 2]
    assert median < 1.3, (f"replay costs {median:.2f}x the CPU of playing the same game (median of "
                          f"{len(ratios)} rounds; {ratios[0]:.2f}-{ratios[-1]:.2f}; play {min(play):.3f} s)")


def test_a_strict_json_action_is_still_found_among_many(tmp_path):
    """The scan keeps apply()'s strictness: 1 is not true, 1.0 is not 1; a list is no number."""
    from gamespec.errors import IllegalAction
    s = _game(10, 50).new_game(players=2, seed=1)
    for bad in (True, 1.0, [1], "1"):
        with pytest.raises(IllegalAction, match="not legal now"):
            s.apply({"action": "pick", "k": bad})
    s.apply({"action": "pick", "k": 50})
    assert s.decisions == 1


def test_a_long_replay_reports_its_progress(tmp_path, monkeypatch):
    """`replay` of a long log says on stderr how far it got (every PROGRESS_SECONDS; 0 here), never
    on stdout, and still ends with its answer."""
    from gamespec import cli
    from gamespec.interpreter import replay as rp
    spec = tmp_path / "picks.yaml"
    spec.write_text(WIDE_PICKS.replace("DECISIONS", "300").replace("WIDTH", "9"), encoding="utf-8")
    log = tmp_path / "picks.jsonl"
    _write_log(gamespec.load(str(spec)), log)
    monkeypatch.setattr(rp, "PROGRESS_SECONDS", 0.0)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(["replay", str(log), "--json"])
    assert code == 0
    assert json.loads(out.getvalue())["decisions"] == 300
    lines = err.getvalue().splitlines()
    assert len(lines) == 300 and all("decisions matched" in x and "MB read" in x for x in lines), lines[:3]
    assert "299 decisions matched" in lines[-1] and "--timeout" in lines[-1]


def test_an_enormous_illegal_action_is_named_briefly(tmp_path):
    """A stranger's decision with a megabyte-long action: the divergence quotes a few hundred
    characters of it, not the megabyte."""
    from gamespec.interpreter.replay import replay
    game = _game(10, 9)
    lines = json.loads(json.dumps(_play(game, log=True)))
    lines[1]["action"]["k"] = "9" * 1_000_000
    r = replay(game, lines)
    assert not r["ok"] and "decision 1: illegal move" in r["error"], r["error"][:200]
    assert len(r["error"]) < 400
