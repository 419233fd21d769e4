"""Progress on long runs (issue 27): `simulate` with an ISMCTS seat printed nothing for minutes. The
games and the decisions of games still going reach the progress bar from every backend (this
process, local workers, Ray), with their rate and an ETA; on stderr, on a terminal or when forced,
never in --json output."""
from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from gamespec.analysis import progress as prog
from gamespec.analysis.progress import ProgressBar, clock
from gamespec.cli import main
from gamespec import simulate as sim
from helpers import skip_without_cc

ROOT = Path(__file__).resolve().parent.parent
BACCHUS = str(ROOT / "games" / "bacchus.yaml")
TINY = str(ROOT / "tests" / "specs" / "tiny.yaml")


class Recorder:
    """A progress callback that takes decision counts, as ProgressBar does."""
    counts_decisions = True

    def __init__(self):
        self.calls = []

    def __call__(self, done, total, decisions=None, finished_decisions=None):
        self.calls.append((done, total, decisions, finished_decisions))


def _during_games(calls, total):
    """Calls made while no game had finished yet, with decisions counted."""
    return [c for c in calls if c[0] == 0 and c[2]]


def test_serial_progress_counts_the_decisions_of_a_game_still_going(monkeypatch):
    monkeypatch.setattr(sim, "TICK_SECONDS", 0.0)       # every decision is sent on
    rec = Recorder()
    out = sim.simulate(BACCHUS, games=2, players=3, seed=1, workers=1, progress=rec,
                       bots=["ismcts:10", "random", "random"])
    assert _during_games(rec.calls, 2), rec.calls[:5]
    done, total, decisions, finished = rec.calls[-1]
    assert (done, total) == (2, 2) and decisions == finished == out["decisions_total"]
    assert [c[2] for c in rec.calls] == sorted(c[2] for c in rec.calls)    # never goes back


def test_a_plain_progress_callback_still_gets_done_and_total():
    calls = []
    sim.simulate(TINY, games=3, seed=2, workers=1, progress=lambda d, t: calls.append((d, t)))
    assert calls == [(1, 3), (2, 3), (3, 3)]


@pytest.mark.parametrize("engine,iterations", [("python", 100), pytest.param("native", 2000, marks=skip_without_cc())])
def test_local_workers_send_the_decisions_of_games_still_going(monkeypatch, engine, iterations):
    """Each worker's counts reach the main process through shared counters while its block of games
    is still being played (a block of ISMCTS games takes long), on either engine."""
    monkeypatch.setattr(sim, "TICK_SECONDS", 0.0)
    rec = Recorder()
    out = sim.simulate(BACCHUS, games=2, players=3, seed=3, workers=2, progress=rec, engine=engine,
                       bots=[f"ismcts:{iterations}", "random", "random"])
    assert out["workers"] == 2 and out["engine"] == engine
    assert _during_games(rec.calls, 2), rec.calls[:5]
    done, total, decisions, finished = rec.calls[-1]
    assert (done, total) == (2, 2) and decisions == finished == out["decisions_total"]


# ------------------------------------------------------------------------------ the bar itself

class _Tty(io.StringIO):
    def isatty(self):
        return True


class _Clock:
    def __init__(self):
        self.t = 1000.0

    def __call__(self):
        return self.t


def test_the_eta_comes_from_the_decisions_once_a_game_has_finished(monkeypatch):
    now = _Clock()
    monkeypatch.setattr(prog.time, "monotonic", now)
    bar = ProgressBar(io.StringIO(), 10, force=True, line_seconds=1e9)
    now.t += 10
    bar(0, 10, decisions=50, finished_decisions=0)
    assert bar.eta() is None and "50 decisions (5.0/s), ETA after the first game" in bar.status()
    now.t += 20           # 30 s: 150 decisions; one game finished, of 100: the study takes ~1000
    bar(1, 10, decisions=150, finished_decisions=100)
    assert bar.eta() == pytest.approx((1000 - 150) / (150 / 30))
    assert bar.status().endswith("ETA " + clock(850 / 5))
    bar(10, 10, decisions=1000, finished_decisions=1000)
    assert bar.eta() == 0


def test_without_decision_counts_the_eta_comes_from_the_games(monkeypatch):
    now = _Clock()
    monkeypatch.setattr(prog.time, "monotonic", now)
    bar = ProgressBar(io.StringIO(), 8, force=True, line_seconds=1e9)
    now.t += 6
    bar(2, 8)
    assert bar.eta() == pytest.approx(18) and "decisions" not in bar.status()


def test_forced_progress_off_a_terminal_is_plain_lines_and_a_sweep_counts_on(monkeypatch):
    now = _Clock()
    monkeypatch.setattr(prog.time, "monotonic", now)
    out = io.StringIO()
    bar = ProgressBar(out, 20, force=True, line_seconds=5)
    now.t += 1
    bar(1, 10, decisions=30, finished_decisions=30)
    assert out.getvalue() == ""                # not before line_seconds
    now.t += 5
    bar(2, 10, decisions=70, finished_decisions=60)
    bar.next_config(10)
    now.t += 5
    bar(1, 10, decisions=20, finished_decisions=20)
    assert bar.games == 11 and bar.decisions == 90
    bar.close()
    lines = out.getvalue().splitlines()
    assert len(lines) == 3 and "\r" not in out.getvalue()
    assert lines[0] == "games: 2/20 games, elapsed 0:06, 70 decisions (11.7/s), ETA 0:45"
    assert lines[-1].startswith("games: 11/20 games, elapsed 0:11, 90 decisions")


def test_nothing_is_shown_off_a_terminal_unless_forced():
    quiet = io.StringIO()
    bar = ProgressBar(quiet, 10)
    bar(5, 10, decisions=100, finished_decisions=100)
    bar.close()
    assert quiet.getvalue() == "" and not bar.shown
    tty = _Tty()
    bar = ProgressBar(tty, 10, delay=0, interval=0)
    bar(5, 10, decisions=100, finished_decisions=90)
    bar.close()
    assert "5/10" in tty.getvalue() and "100 decisions" in tty.getvalue() and "ETA" in tty.getvalue()


# ------------------------------------------------------------------------------ the command line

def test_simulate_progress_forced_goes_to_stderr_never_into_json(capsys):
    code = main(["simulate", BACCHUS, "--games", "3", "--workers", "1", "--json", "--progress",
                 "--bot", "0=ismcts:5"])
    out, err = capsys.readouterr()
    assert code == 0
    json.loads(out)                                       # stdout: the JSON and nothing else
    assert "games: 3/3 games" in err and "decisions (" in err and "ETA" in err, err


def test_progress_and_no_progress_are_exclusive(capsys):
    assert main(["simulate", BACCHUS, "--progress", "--no-progress"]) == 2
    assert "not allowed with argument" in capsys.readouterr().err


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pseudo-terminal test")
@pytest.mark.parametrize("engine,iterations", [("python", 300), ("native", 24000)])
def test_an_ismcts_run_shows_decisions_and_an_eta_on_a_terminal(engine, iterations):
    """The run of the issue, small: one ISMCTS seat, one worker; the bar moves within the first game,
    on either engine (the native one searches in C: more iterations for a game as long; the first game
    must outlast the bar's 0.5 s delay with room to spare: at 6,000 it took 0.63 s on a fast hour and
    the bar first showed 1/2)."""
    from test_analysis import _stderr_on_a_terminal
    code, err = _stderr_on_a_terminal(["simulate", BACCHUS, "--games", "2", "--players", "3", "--workers", "1",
                                       "--engine", engine, "--bot", f"0=ismcts:{iterations}"], cols=160, wait=300)
    assert code == 0, err
    assert "0/2 [" in err and " decisions (" in err and "ETA after the first game" in err, err[-2000:]
    assert "ETA 0:" in err
