"""Concurrency: queue-depth sweep on Mako (Little's law, scaling, saturation), I/O accounting,
and hypothesis properties (more OSD cores, faster disks, nothing lost)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import ROOT
from hypothesis import given, settings, strategies as st

from cephsim.model.runner import run_scenario
from cephsim.scenario.load import load_scenario

SC = Path(__file__).resolve().parent.parent / "scenarios"


def _run(name: str, *sets: str):
    res = run_scenario(load_scenario(SC / name, list(sets)), scenario_path=SC / name)
    a = res.records.arrays()
    lat = (a["complete"] - a["submit"]).mean()
    return res, res.iops, lat / 1e9


def _mako(qd: int, ios: int | None = None):
    ios = ios or max(3000, 60 * qd)
    return _run("mako-reef-qd1.yaml", f"workload.iodepth={qd}", "workload.rw=randwrite",
                f"run.ios={ios}", f"run.ramp_ios={max(200, 4 * qd)}")


@pytest.mark.parametrize("qd", [1, 16, 128])
def test_littles_law_mako(qd: int) -> None:
    _, iops, lat = _mako(qd)
    assert iops * lat == pytest.approx(qd, rel=0.02)


def test_qd32_scales_15x_on_60_osds() -> None:
    _, i1, _ = _mako(1)
    _, i32, l32 = _mako(32)
    assert i32 >= 15 * i1


@pytest.mark.slow
def test_qd_sweep_rises_saturates_littles_law() -> None:
    prev_iops, prev_lat, rows = 0.0, 0.0, []
    for qd in (1, 2, 4, 8, 16, 32, 64, 128):
        _, iops, lat = _mako(qd)
        rows.append((qd, iops, lat))
        assert iops * lat == pytest.approx(qd, rel=0.02), rows
        assert iops >= prev_iops * 0.98, rows
        assert lat >= prev_lat * 0.98, rows
        prev_iops, prev_lat = iops, lat
    # saturates: doubling qd at the top gains little, latency grows ~linearly
    assert rows[-1][1] < 1.2 * rows[-2][1]
    assert rows[-1][2] > 1.6 * rows[-2][2]


def test_sequential_writes_serialise_on_one_pg() -> None:
    """rw=write at qd 32: consecutive 4 KiB blocks hit one object, one PG, one PG lock."""
    _, seq, _ = _run("mako-reef-qd1.yaml", "workload.iodepth=32", "run.ios=3000")
    _, rnd, _ = _mako(32, 3000)
    assert seq < rnd / 3


def _pvc(*sets: str):
    return _run("pvc-nvme-cpu-limits.yaml", "run.ios=1500", "run.ramp_ios=300",
                "run.records=true", *sets)


# derandomize: the same examples on every run.  Each simulation is exact for its seed, but
# a short run's interleaving noise at the read plateau (up to ~4 %: 6 vs 7 cores, randread,
# 115.8K vs 111.1K) would otherwise make CI depend on which points a random draw picks.
@settings(max_examples=4, deadline=None, derandomize=True)
@given(st.integers(1, 6), st.integers(1, 4), st.sampled_from(["randwrite", "randread"]))
def test_more_osd_cores_never_lower_throughput(cores: int, extra: int, rw: str) -> None:
    """More cores is more capacity.  The clock is fixed (performance governor): under
    schedutil a load spread over more cores also runs at a lower clock, a real effect of
    per-CPU frequency selection that costs reads a few per cent from 4 to 8 cores."""
    sets = ("workload.iodepth=32", f"workload.rw={rw}", "hosts.pvc.tuning.governor=performance")
    _, lo, _ = _pvc(f"hosts.pvc.osd_cores={cores}", *sets)
    _, hi, _ = _pvc(f"hosts.pvc.osd_cores={cores + extra}", *sets)
    # 1500 I/Os at 32 in flight: where more cores no longer matter (reads plateau at ~111K
    # from 4 cores, set by the client) the two runs differ by interleaving alone, ~2 %
    assert hi >= lo * 0.97


def test_schedutil_reads_do_not_slow_down_with_more_osd_cores() -> None:
    """Seed 003 layout, schedutil, 4k random reads at qd 64: 4 -> 8 dedicated cores.  With
    utilisation tracked per core only, OSD threads spread over 8 cores each looked ~idle
    to schedutil and ran at the lowest clock (69K vs 101K IOPS).  Now the two are within
    a few per cent (1 % at this length, 4 % over 20000 I/Os: the clock per core still
    follows that core's share of the load)."""
    _, four, _ = _pvc("hosts.pvc.osd_cores=4", "workload.rw=randread", "run.ios=6000")
    _, eight, _ = _pvc("hosts.pvc.osd_cores=8", "workload.rw=randread", "run.ios=6000")
    assert eight >= four * 0.93, (four, eight)  # the artifact cost 15-30 %


@settings(max_examples=3, deadline=None, derandomize=True)
@given(st.sampled_from([1, 4, 16]))
def test_faster_disk_never_raises_latency(qd: int) -> None:
    sets = (f"workload.iodepth={qd}", "run.ios=1500", "run.ramp_ios=200")
    _, _, fast = _run("quickstart.yaml", "hosts.osd.osds.disk=pm9a3", *sets)
    _, _, slow = _run("quickstart.yaml", "hosts.osd.osds.disk=samsung-983dct", *sets)
    assert fast <= slow


@settings(max_examples=4, deadline=None, derandomize=True)
@given(st.integers(1, 64), st.integers(1, 4))
def test_nothing_lost(qd: int, jobs: int) -> None:
    res, _, _ = _run("quickstart.yaml", f"workload.iodepth={qd}", f"workload.numjobs={jobs}",
                     "run.ios=800", "run.ramp_ios=100", "run.records=false")
    c = res.io_counts
    assert c["issued"] == c["completed"] + c["in_flight"]
    assert 0 <= c["in_flight"] <= qd * jobs
    assert c["completed"] >= res.records.count() + 100


def test_a_cpu_quota_throttles_and_says_so() -> None:
    """A CFS quota per OSD (osd_cpu_limit, as a Kubernetes CPU limit) below what the OSDs
    use at qd 32: throughput falls, the quota is what saturates, writes wait for the next
    period (the tail reaches into the 100 ms period) and the run warns; a quota far above
    the use changes nothing at all."""
    sets = ("workload.iodepth=32", "hosts.pvc.tuning.governor=performance")
    free, iops_free, _ = _pvc(*sets)
    assert min(free.cpu_cores["osds"].values()) > 2  # what an OSD uses without a limit
    res, iops, _ = _pvc(*sets, "hosts.pvc.osd_cpu_limit=1")
    assert iops < 0.5 * iops_free
    assert res.saturation["saturated"]["kind"] == "cpu quota"
    assert any(w.startswith("CPU quota (osd_cpu_limit 1 per 100 ms)") for w in res.warnings)
    a = res.records.arrays()
    assert (a["complete"] - a["submit"]).max() > 20_000_000  # a throttled write waits ms
    same, iops_same, _ = _pvc(*sets, "hosts.pvc.osd_cpu_limit=1000")
    assert iops_same == iops_free and not any("CPU quota" in w for w in same.warnings)


def test_a_killed_parent_leaves_no_worker_behind(tmp_path):
    """SIGKILL a process whose pool runs two long tasks: the workers die with it (Linux's
    parent-death signal), instead of running on and holding the caller's stdout."""
    import os
    import signal
    import subprocess
    import sys
    import time

    if not sys.platform.startswith("linux"):
        pytest.skip("the parent-death signal is Linux's")
    script = tmp_path / "pool.py"
    script.write_text(
        "import os, sys, time\n"
        "from concurrent.futures import ProcessPoolExecutor\n"
        "from cephsim.tools.workers import worker_init\n"
        "ex = ProcessPoolExecutor(2, initializer=worker_init, initargs=(os.getpid(),))\n"
        "fs = [ex.submit(time.sleep, 60) for _ in range(2)]\n"
        "time.sleep(1.0)\n"
        "print(' '.join(str(p) for p in ex._processes), flush=True)\n"
        "time.sleep(60)\n")
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    pids = [int(p) for p in proc.stdout.readline().split()]
    assert len(pids) == 2
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)

    def alive(pid: int) -> bool:
        try:
            with open(f"/proc/{pid}/stat") as f:
                return f.read().split()[2] != "Z"
        except FileNotFoundError:
            return False

    deadline = time.monotonic() + 10
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(alive(p) for p in pids), pids


def test_a_killed_dask_sweep_leaves_no_work_behind(tmp_path):
    """SIGKILL a sweep that runs on a Dask cluster: the cluster's workers are not the
    sweep's to kill, but the sweep's work must not outlive it.  Its client's connection
    closes with the process, and the scheduler forgets every task the sweep submitted
    (queued ones are never run; a run already in a worker thread finishes and is dropped,
    as Dask cannot interrupt a thread); the sweep leaves no process and no output file."""
    import os
    import signal
    import subprocess
    import sys
    import time

    distributed = pytest.importorskip("distributed")
    out = tmp_path / "s.json"

    def scheduler_state(dask_scheduler):  # runs on the scheduler
        return len(dask_scheduler.tasks), len(dask_scheduler.clients)

    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        base = client.run_on_scheduler(scheduler_state)[1]  # this test's own client(s)
        proc = subprocess.Popen(
            [sys.executable, "-m", "cephsim", "sweep", str(ROOT / "scenarios" / "quickstart.yaml"),
             "--set", "pool.size=1,2,3", "--set", "run.ios=400000", "--executor", "dask",
             "--scheduler", cluster.scheduler_address, "-q", "-o", str(out)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while client.run_on_scheduler(scheduler_state)[0] < 3:  # all three points submitted
            assert proc.poll() is None and time.monotonic() < deadline, "sweep never submitted"
            time.sleep(0.2)
        children = open(f"/proc/{proc.pid}/task/{proc.pid}/children").read().split()
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        deadline = time.monotonic() + 20
        while client.run_on_scheduler(scheduler_state) != (0, base):
            assert time.monotonic() < deadline, client.run_on_scheduler(scheduler_state)
            time.sleep(0.2)
    assert children == [] and not out.exists()
