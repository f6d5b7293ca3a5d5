"""Sweeps: grid, seeds, confidence intervals, determinism across executors, early errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cephsim.cli import app
from cephsim.errors import CephsimError

ROOT = Path(__file__).resolve().parents[1]
QS = str(ROOT / "scenarios" / "quickstart.yaml")
SMALL = ["--set", "run.ios=500", "--set", "run.ramp_ios=50"]
runner = CliRunner()


def _sweep(*args: str, scenario: str = QS) -> dict:
    r = runner.invoke(app, ["sweep", scenario, *args, *SMALL, "--format", "json", "--quiet"])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def _means(doc: dict) -> list[float]:
    return [p["mean_us"]["mean"] for p in doc["points"]]


def test_netem_delay_sweep_is_monotone_with_cis() -> None:
    doc = _sweep("--set", "hosts.osd.netem.delay=0ms,40ms,160ms", "--seeds", "2", "--jobs", "2")
    assert [p["settings"]["hosts.osd.netem.delay"] for p in doc["points"]] == ["0ms", "40ms",
            "160ms"]
    means = _means(doc)
    assert means == sorted(means) and means[0] < 1_000 < 100_000 < means[1] < means[2]
    # three one-way OSD-host delays per replicated write (primary->replica, reply, reply to client)
    assert means[2] == pytest.approx(3 * 160_000 + means[0], rel=0.01)
    for p in doc["points"]:
        assert p["seeds"] == 2 and p["mean_us"]["ci"] is not None
        assert len(p["mean_us"]["values"]) == 2
    iops = [p["iops"]["mean"] for p in doc["points"]]
    assert iops == sorted(iops, reverse=True)


def test_pool_size_sweep_is_monotone() -> None:
    doc = _sweep("--set", "pool.size=1,2,3", "--seeds", "2", "--jobs", "2")
    means = _means(doc)
    assert means[0] < means[1] < means[2]
    assert all(p["p99_us"]["ci"] is not None for p in doc["points"])


def test_pool_size_sweep_one_to_four_on_a_ten_host_cluster() -> None:
    """pool.size 1..4 needs four failure domains: the 10-host perf-lab scenario has them."""
    mako = str(ROOT / "scenarios" / "mako-reef-qd1.yaml")
    doc = _sweep("--set", "pool.size=1,2,3,4", "--set", "pool.pg_num=256", "--seeds", "2",
                 "--jobs", "2", scenario=mako)
    means = _means(doc)
    assert means == sorted(means) and means[0] < means[3]
    assert all(p["mean_us"]["ci"] is not None for p in doc["points"])


def test_same_numbers_with_one_and_two_jobs() -> None:
    args = ("--set", "pool.size=1,3", "--set", "hosts.osd.tuning.governor=performance,ondemand",
            "--seeds", "2")
    one, two = _sweep(*args, "--jobs", "1"), _sweep(*args, "--jobs", "2")
    assert one == two
    assert len(one["points"]) == 4 and one["seeds"] == [1, 2]


def test_dask_executor_matches_local() -> None:
    distributed = pytest.importorskip("distributed")
    from cephsim.tools.sweep import run_sweep

    axes = ["pool.size=2,3", "run.ios=500", "run.ramp_ios=50"]
    local = run_sweep(QS, axes, seeds=2, jobs=2)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        remote = run_sweep(QS, axes, seeds=2, executor="dask", scheduler=client)
    assert remote.to_dict() == local.to_dict()


def test_text_and_csv_outputs(tmp_path: Path) -> None:
    out = tmp_path / "s.csv"
    r = runner.invoke(app, ["sweep", QS, "--set", "pool.size=2,3", *SMALL, "-f", "csv", "-o",
                            str(out), "-q", "-j", "1"])
    assert r.exit_code == 0, r.output
    lines = out.read_text().splitlines()
    assert lines[0].startswith("pool.size,run.ios,run.ramp_ios,seeds,direction,iops,iops_ci95,mean_us")
    assert len(lines) == 3
    r = runner.invoke(app, ["sweep", QS, "--set", "pool.size=2,3", *SMALL, "-q", "-j", "1"])
    assert r.exit_code == 0
    assert "pool.size" in r.stdout and "p99.9 (us)" in r.stdout and "one seed" in r.stdout
    assert all(len(x) <= 100 for x in r.stdout.splitlines())


def test_a_sweep_over_rw_labels_each_point(tmp_path: Path) -> None:
    """Sweeping workload.rw mixes sides: each row says whose statistics it holds (it was
    labelled with the first point's direction), and randrw says it shows the writes."""
    r = runner.invoke(app, ["sweep", QS, "--set", "workload.rw=randread,randwrite,randrw",
                            *SMALL, "-f", "json", "-q", "-j", "1"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert d["direction"] == "per point"
    assert [p["direction"] for p in d["points"]] == ["read", "write", "write (randrw)"]
    r = runner.invoke(app, ["sweep", QS, "--set", "workload.rw=randread,randrw", *SMALL, "-q",
                            "-j", "1"])
    assert r.exit_code == 0, r.output
    assert "(per point)" in r.stdout and "stats of" in r.stdout
    assert "randrw: the statistics are the writes'" in r.stdout


def test_sweep_block_in_the_scenario(tmp_path: Path) -> None:
    sc = tmp_path / "qs-sweep.yaml"
    sc.write_text(Path(QS).read_text() + "\nsweep:\n  seeds: 2\n  set:\n    pool.size: [1, 3]\n")
    r = runner.invoke(app, ["sweep", str(sc), *SMALL, "-f", "json", "-q", "-j", "1"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert doc["seeds"] == [1, 2]
    assert [p["settings"]["pool.size"] for p in doc["points"]] == ["1", "3"]
    # the command line adds axes and wins over the block
    r = runner.invoke(app, ["sweep", str(sc), "--set", "pool.size=2", *SMALL, "--seeds", "1",
                            "-f", "json", "-q", "-j", "1"])
    assert [p["settings"]["pool.size"] for p in json.loads(r.stdout)["points"]] == ["2"]


@pytest.mark.parametrize("args, expect", [
    (["--set", "hosts.osd.netem.delai=0ms,40ms"], "did you mean 'delay'"),
    (["--set", "pool.size="], "empty list of values"),
    (["--set", "pool.size=1,,3"], "empty value"),
    (["--set", "pool.size=2,3,4"], "sweep point 3/3 (pool.size=4"),
    (["--set", "pool.size=2,3", "--set", "hosts.osd.nic=connectx5-25g,nope-nic"],
     "hosts.osd.nic=nope-nic"),
])
def test_bad_sweeps_fail_before_any_run(args: list[str], expect: str, monkeypatch) -> None:
    import cephsim.tools.sweep as sweep

    def boom(task):  # noqa: ANN001
        raise AssertionError("a run started before the sweep was validated")

    monkeypatch.setattr(sweep, "run_task", boom)
    r = runner.invoke(app, ["sweep", QS, *args, "-q", "-j", "1"])
    assert r.exit_code == 2, r.output
    assert expect in r.stderr, r.stderr
    assert "nothing was run" in r.stderr or "--set" in r.stderr
    assert "Traceback" not in r.output


@pytest.mark.parametrize("block, line, path, expect", [
    ("sweep:\n  set:\n    pool.size: 3\n", 3, "sweep.set.pool.size", "valid list"),
    ("sweep:\n  set:\n    pool.size: []\n", 3, "sweep.set.pool.size", "empty list of values"),
    ("sweep:\n  seeds: 0\n  set: {pool.size: "
     "[2]}\n", 2, "sweep.seeds", "greater than or equal to 1"),
    ("sweep:\n  sets: {pool.size: [2]}\n", 2, "sweep.sets", "unknown key; did you mean 'set'?"),
])
def test_a_bad_sweep_block_is_located_and_nothing_runs(tmp_path: Path, monkeypatch, block: str,
                                                       line: int, path: str, expect: str) -> None:
    """The block has one parser (the schema's): `cephsim sweep` and `cephsim validate` give
    the same located message for it."""
    import cephsim.tools.sweep as sweep

    def boom(task):  # noqa: ANN001
        raise AssertionError("a run started before the sweep block was validated")

    monkeypatch.setattr(sweep, "run_task", boom)
    base = Path(QS).read_text()
    sc = tmp_path / "bad-sweep.yaml"
    sc.write_text(base + "\n" + block)
    at = f"bad-sweep.yaml:{base.count(chr(10)) + 1 + line}:"
    for cmd in (["sweep", str(sc), "-q", "-j", "1"], ["validate", str(sc)]):
        r = runner.invoke(app, cmd)
        assert r.exit_code == 2, r.output
        assert at in r.stderr and f" {path}: " in r.stderr and expect in r.stderr, r.stderr
        assert "Traceback" not in r.output


def test_invalid_point_names_only_the_bad_points() -> None:
    from cephsim.tools.sweep import run_sweep

    with pytest.raises(CephsimError) as e:
        run_sweep(QS, ["pool.size=3,4", "workload.iodepth=1,2"])
    msg = str(e.value)
    assert "sweep point 3/4 (pool.size=4, workload.iodepth=1)" in msg
    assert "sweep point 4/4" in msg and "point 1/4" not in msg


def test_a_bad_value_of_the_sweep_block_is_located_at_that_value(tmp_path: Path) -> None:
    """A value that only fails once applied (a point of the grid) is reported at its place
    in the file, not as an anonymous --set; a bad value from the command line stays --set."""
    base = Path(QS).read_text()
    sc = tmp_path / "sw.yaml"
    sc.write_text(base + "\nsweep:\n  set:\n    workload.iodepth: [1, four]\n")
    line = base.count("\n") + 4
    r = runner.invoke(app, ["sweep", str(sc), "-q", "-j", "1"])
    assert r.exit_code == 2, r.output
    assert f"sw.yaml:{line}:27: workload.iodepth: " in r.stderr, r.stderr
    assert "(sweep value four)" in r.stderr and "--set" not in r.stderr
    r = runner.invoke(app, ["validate", str(sc)])  # validate checks the points too
    assert r.exit_code == 2 and f"sw.yaml:{line}:27: workload.iodepth: " in r.stderr, r.output
    r = runner.invoke(app, ["validate", str(sc), "--set", "workload.iodepth=8"])  # axis replaced
    assert r.exit_code == 0 and "ok (" in r.stdout, r.output
    r = runner.invoke(app, ["sweep", str(sc), "--set", "workload.iodepth=1,five", "-q", "-j", "1"])
    assert r.exit_code == 2 and "--set workload.iodepth=five" in r.stderr, r.stderr


def test_an_interrupted_pool_stops_at_once():
    """Ctrl-C during a parallel sweep: the queued runs are cancelled and the running ones
    ended, instead of the executor's shutdown waiting for every queued run to finish."""
    import signal
    import time
    from concurrent.futures import ProcessPoolExecutor

    from cephsim.tools import workers

    ex = ProcessPoolExecutor(max_workers=2, initializer=workers.worker_init)
    futs = [ex.submit(time.sleep, 60) for _ in range(5)]
    deadline = time.monotonic() + 30
    while not (futs[0].running() and futs[1].running()) and time.monotonic() < deadline:
        time.sleep(0.05)
    procs = list(ex._processes.values())
    assert procs and all(p.is_alive() for p in procs)
    t0 = time.monotonic()
    workers.stop_pool(ex)
    assert time.monotonic() - t0 < 10
    assert not any(p.is_alive() for p in procs), [(p.pid, p.exitcode, p.is_alive()) for p in procs]
    # queued runs cancelled; the running ones (and the one the pool had already handed to
    # its call queue) end with BrokenProcessPool: none completes
    assert all(f.cancelled() or f.exception(timeout=10) is not None for f in futs)
    # the workers ignore SIGINT (the terminal sends it to the whole process group)
    old = signal.getsignal(signal.SIGINT)
    try:
        workers.worker_init()
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, old)
