"""The Ray backend (gamespec/analysis/ray_backend.py) on a local Ray started by this module (2 CPUs):
the same results and records as local workers, records in seed order, a killed worker's games re-run,
a second driver joining the cluster by its address. Skipped if Ray is not installed; runs in CI."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")

from gamespec import analysis  # noqa: E402
from gamespec.analysis.records import RecordWriter, read_records  # noqa: E402
from gamespec import simulate as sim  # noqa: E402

pytestmark = pytest.mark.ray

ROOT = Path(__file__).resolve().parent.parent
BALI = str(ROOT / "games" / "bali.yaml")
BACCHUS = str(ROOT / "games" / "bacchus.yaml")
TIMING = set(sim.TIMING_FIELDS) | {"backend"}


@pytest.fixture(scope="module")
def cluster():
    if ray.is_initialized():
        ray.shutdown()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        ray.shutdown()


def _study(tmp_path, name, **kw):
    path = tmp_path / name
    with RecordWriter(path) as rec:
        out = analysis.run_study(records=rec, **kw)
    return out, read_records(path)


def _same(out):
    return {k: v for k, v in out.items() if k not in TIMING}


def _no_time(rows):
    return [{k: v for k, v in r.items() if k != "seconds"} for r in rows]


def test_ray_gives_the_results_and_records_of_local_workers(cluster, tmp_path):
    kw = dict(path=BACCHUS, games=40, players=4, seed=11)
    local, local_rows = _study(tmp_path, "local.jsonl", workers=2, **kw)
    remote, remote_rows = _study(tmp_path, "ray.jsonl", backend="ray", **kw)
    assert remote["backend"] == "ray" and remote["workers"] == 2
    assert _same(remote) == _same(local)
    assert _no_time(remote_rows) == _no_time(local_rows)
    assert [r["seed"] for r in remote_rows] == list(range(11, 51))      # streamed back in seed order


def _block_workers():
    """PIDs of Ray worker processes running a block of games right now (their title names the task)."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmd = f.read()
        except OSError:
            continue
        if cmd.startswith(b"ray::_run_block"):
            pids.append(int(entry))
    return pids


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="finds Ray's workers through /proc")
def test_a_killed_worker_has_its_games_re_run(cluster, tmp_path):
    kw = dict(path=BALI, games=96, players=4, seed=0)
    result = {}

    def study():
        try:
            result["out"] = _study(tmp_path, "ray.jsonl", backend="ray", **kw)
        except BaseException as e:          # reported below
            result["error"] = e

    t = threading.Thread(target=study)
    t.start()
    killed = None
    deadline = time.monotonic() + 300   # a last resort: the loop ends once a worker is killed
    while t.is_alive() and killed is None and time.monotonic() < deadline:
        pids = _block_workers()
        if pids:
            os.kill(pids[0], signal.SIGKILL)
            killed = pids[0]
        time.sleep(0.01)
    t.join(600)
    assert not t.is_alive()
    assert "error" not in result, result.get("error")
    assert killed is not None, "no worker was seen playing"
    out, rows = result["out"]
    # nothing lost, nothing counted twice, the same games as a local run
    assert [r["seed"] for r in rows] == list(range(96))
    local = sim.simulate(BALI, workers=1, **{k: v for k, v in kw.items() if k != "path"})
    assert _same({k: v for k, v in out.items() if k not in ("summary", "bots", "deals", "games_played", "restriction", "resumed", "rotations")}) == _same(local)


def test_a_second_driver_joins_the_cluster_by_its_address(cluster, tmp_path):
    path = tmp_path / "joined.csv"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r = subprocess.run([sys.executable, "-m", "gamespec", "simulate", BACCHUS, "--games", "10", "--players", "3",
                        "--seed", "0", "--backend", "ray", "--address", cluster, "--json", "--records", str(path)],
                       capture_output=True, text=True, timeout=120, env=env, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    local = sim.simulate(BACCHUS, games=10, players=3, workers=1)
    assert out["backend"] == "ray" and out["win_rate"] == local["win_rate"]
    assert [x["seed"] for x in read_records(path)] == list(range(10))


def test_address_without_the_ray_backend_is_a_usage_error(capsys):
    from gamespec.cli import main
    assert main(["simulate", BACCHUS, "--games", "1", "--address", "auto"]) == 2
    assert "--address is for --backend ray" in capsys.readouterr().err


def test_an_unreachable_cluster_is_a_clear_error(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r = subprocess.run([sys.executable, "-m", "gamespec", "simulate", BACCHUS, "--games", "2",
                        "--backend", "ray", "--address", "127.0.0.1:1"],
                       capture_output=True, text=True, timeout=60, env=env, cwd=ROOT)
    assert r.returncode == 1 and "cannot start or reach the Ray cluster at 127.0.0.1:1" in r.stderr
    assert "Traceback" not in r.stderr


def test_ray_tasks_send_the_decisions_of_games_still_going(cluster, monkeypatch):
    """Issue 27: progress within long games on Ray too, through an actor the tasks send counts to."""
    from gamespec.analysis import ray_backend
    monkeypatch.setattr(sim, "TICK_SECONDS", 0.0)
    calls = []

    class Recorder:
        counts_decisions = True

        def __call__(self, done, total, decisions=None, finished_decisions=None):
            calls.append((done, total, decisions, finished_decisions))
    out = ray_backend.simulate(BACCHUS, games=2, players=3, seed=3, progress=Recorder(),
                               bots=["ismcts:100", "random", "random"])
    assert any(c[0] == 0 and c[2] for c in calls), calls[:5]
    done, total, decisions, finished = calls[-1]
    assert (done, total) == (2, 2) and decisions == finished == out["decisions_total"]


def test_tune_on_ray_finds_what_local_workers_find(cluster):
    """`gamespec tune --backend ray`: the same search, the same rounds and the same best settings as
    local workers (the games are the same games)."""
    from gamespec.analysis import tune
    head = str(ROOT / "tests" / "specs" / "headstart.yaml")
    kw = dict(params=["bonus"], targets=["fair"], games=24, rounds=2, seed=5)
    local = tune.run(head, workers=1, **kw)
    remote = tune.run(head, backend="ray", **kw)
    assert remote["best"] == local["best"] and remote["rounds"] == local["rounds"]
