"""Issue 41 item 5: a study stopped with Ctrl-C prints the summary of the games finished, says how to
--resume, and its worker processes shut down cleanly (no leaked-semaphore warning)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

import gamespec.simulate as sim

HERE = os.path.dirname(__file__)
NO_THANKS = os.path.join(os.path.dirname(HERE), "games", "no_thanks.yaml")


def test_ctrl_c_prints_the_games_finished_and_how_to_resume(capsys, monkeypatch, tmp_path):
    from gamespec.cli import main
    real = sim.simulate

    def stopped(path, games=100, on_result=None, **kw):      # 5 games, then Ctrl-C
        def counted(r, seen=[]):
            on_result(r)
            seen.append(r)
            if len(seen) == 5:
                raise KeyboardInterrupt
        return real(path, games=games, on_result=counted, **kw)
    monkeypatch.setattr(sim, "simulate", stopped)
    rec = tmp_path / "study.jsonl"
    args = ["simulate", NO_THANKS, "-p", "3", "-n", "50", "--workers", "1", "--seed", "3", "--no-progress",
            "--engine", "python", "--records", str(rec)]
    assert main(args) == 130
    out, err = capsys.readouterr()
    assert out.startswith("verdict: ")
    assert "interrupted: 5 games finished" in out
    assert "interrupted after 5 finished game(s)" in err and "--resume" in err
    assert len(rec.read_text().splitlines()) == 5
    # --resume goes on from there: the 5 games count, 45 are played
    monkeypatch.setattr(sim, "simulate", real)
    assert main(args + ["--resume"]) == 0
    out = capsys.readouterr().out
    assert "resumed: 5 games read back" in out and "45 played now" in out
    # without --records, it says how to be able to go on
    monkeypatch.setattr(sim, "simulate", stopped)
    assert main(args[:-2]) == 130
    assert "--records FILE" in capsys.readouterr().err


@pytest.mark.slow
def test_sigint_stops_the_workers_cleanly(tmp_path):
    rec = tmp_path / "r.jsonl"
    p = subprocess.Popen([sys.executable, "-m", "gamespec", "simulate", NO_THANKS, "-p", "3", "-n", "200000",
                          "--workers", "2", "--engine", "python", "--records", str(rec), "--progress"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        while not (rec.exists() and rec.read_text().count("\n") >= 10):     # games are in
            assert p.poll() is None
            time.sleep(0.2)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 130
    assert out.startswith("verdict: ") and "interrupted:" in out
    assert "--resume" in err and "leaked" not in err and "Traceback" not in err
