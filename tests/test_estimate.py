"""The resource estimate validate prints: memory by the measured per-I/O figures, wall time
scaled from a pilot (its arithmetic checked by hand with a pilot of known cost)."""

from __future__ import annotations

from types import SimpleNamespace

from conftest import ROOT

from cephsim.scenario.load import load_scenario
from cephsim.tools import estimate as est

QS = ROOT / "scenarios" / "quickstart.yaml"


def _fake_pilot(monkeypatch, fill_s: float, per_io_s: float, sim_ns_per_io: int) -> list:
    """Pilots whose loop costs ``fill_s`` plus ``per_io_s`` per I/O."""
    seen = []

    def run(scenario, scenario_path=None, resolved=None):
        seen.append(scenario)
        n = scenario.run.ios
        return SimpleNamespace(wall_s=fill_s + per_io_s * n, sim_end_ns=sim_ns_per_io * n)

    monkeypatch.setattr(est, "run_scenario", run)
    return seen


def test_wall_time_scales_the_pilots_difference_by_ios(monkeypatch):
    """qd 1: pilots of 150 and 300 I/Os whose loops cost 0.05 s of fill plus 1 ms per I/O:
    their difference, 150 ms for 150 I/Os, gives 1 ms per I/O past the fill, so 20,000 +
    200 ramp I/Os take 20.2 s (plus the pilot's setup, here ~0)."""
    seen = _fake_pilot(monkeypatch, 0.05, 0.001, 10**5)
    sc = load_scenario(QS, ["run.ios=20000", "run.ramp_ios=200"])
    est.resolve(sc, QS)  # the catalog loaded once, as in any run after the first: setup ~0
    e = est.estimate(sc, QS)
    assert abs(e.wall_s - 20.2) < 0.05
    assert e.pilot_ios == 300 and e.pilot_inflight == 1 and not e.rough
    assert [(p.run.ios, p.run.ramp_ios) for p in seen] == [(150, 0), (300, 0)]
    assert sc.run.ios == 20000  # the scenario itself is untouched


def test_a_runtime_run_scales_by_simulated_time(monkeypatch):
    """run.runtime 60 s and no ios: the longer pilot's loop, 0.3 s over 300 x 0.1 ms = 30 ms
    simulated, gives 60 s x 10 = 600 s."""
    _fake_pilot(monkeypatch, 0.0, 0.001, 10**5)
    sc = load_scenario(QS, ["run.runtime=60s", "run.ramp_ios=0"])
    sc = sc.model_copy(update={"run": sc.run.model_copy(update={"ios": None})})  # runtime only
    assert abs(est.estimate(sc, QS).wall_s - 600.0) < 0.1


def test_a_deep_wide_scenario_gets_smaller_pilots(monkeypatch):
    """4096 x 1024 in flight: the pilots keep 32 jobs x 16 = 512 in flight (validate stays
    quick; the estimate says it is rougher), 768 and 1536 I/Os, each I/O at their
    difference's cost; the run's own 4,194,304 - 512 I/Os in flight past the pilot's are
    issued at its start and counted as that many more I/Os."""
    seen = _fake_pilot(monkeypatch, 0.5, 0.002, 10**6)
    sc = load_scenario(QS, ["workload.iodepth=4096", "workload.numjobs=1024", "run.ios=20000",
                            "run.ramp_ios=0", "run.max_memory=64GiB"])
    e = est.estimate(sc, QS)
    p = seen[0].workload
    assert (p.numjobs, p.iodepth, e.pilot_inflight, e.rough) == (32, 16, 512, True)
    assert [q.run.ios for q in seen] == [768, 1536]
    assert abs(e.wall_s - 0.002 * (20000 + 4096 * 1024 - 512)) < 0.05


def test_validate_prints_the_estimate_and_warns_of_a_long_run(run_cli, monkeypatch):
    r = run_cli("validate", str(QS))
    assert r.exit_code == 0
    assert "a run needs about" in r.stdout and "MiB of memory" in r.stdout
    assert "of wall time here (from a pilot of 300 I/Os)" in r.stdout
    _fake_pilot(monkeypatch, 0.0, 0.01, 10**5)  # 10 ms per I/O: 10^6 I/Os take ~2.8 h
    r = run_cli("validate", str(QS), "--set", "run.ios=1000000")
    assert r.exit_code == 0
    assert "warning: the run would take about 2.8 h of wall time" in r.stderr


def test_a_cluster_slow_to_build_gets_one_pilot(monkeypatch):
    """A pilot whose cluster took long to build (thousands of OSDs) is not run twice: its
    loop, fill included, is the per-I/O cost (150 I/Os in 0.2 s: 20,200 I/Os in ~26.9 s),
    and the estimate says it is rougher."""
    seen = _fake_pilot(monkeypatch, 0.05, 0.001, 10**5)
    monkeypatch.setattr(est, "SLOW_SETUP_S", -1.0)  # every build counts as slow
    sc = load_scenario(QS, ["run.ios=20000", "run.ramp_ios=200"])
    e = est.estimate(sc, QS)
    assert [p.run.ios for p in seen] == [150] and e.rough and e.pilot_ios == 150
    assert abs(e.wall_s - 0.2 / 150 * 20200) < 0.05


# ------------------------------------------------------------------ memory: the cluster's size


def test_the_memory_estimate_grows_with_the_cluster_by_the_measured_costs():
    """By hand from the constants (resolve.py): quickstart is 3 OSD hosts + 1 client of 16
    cores each, 3 OSDs, 128 PGs, one I/O in flight and 20,500 ops kept; 1,000 hosts x 24
    OSDs adds 23,997 OSDs and 997 hosts of 16 cores."""
    from cephsim.model import resolve as rs

    base = load_scenario(QS)
    small = (rs.MEMORY_BASE_BYTES + rs.MEMORY_PER_INFLIGHT + 20_500 * rs.MEMORY_PER_RECORD
             + 3 * (rs.MEMORY_PER_OSD + 128 * rs.MEMORY_PER_OSD_PG) + 64 * rs.MEMORY_PER_CORE)
    assert rs.memory_estimate(base) == small
    big = load_scenario(QS, ["hosts.osd.count=1000", "hosts.osd.osds.count=24", "run.ios=3000"])
    assert rs.cluster_size(big) == (1001, 24_000, 16_016)
    # the measurement of this case: 4.8 GB peak; the estimate is within 2x of it
    assert 2.4e9 <= rs.memory_estimate(big) <= 9.6e9


def test_a_cluster_too_large_to_simulate_is_refused_before_it_is_built(run_cli):
    """10,000 hosts x 256 OSDs (valid by the schema) would need ~450 GiB: validate refuses it
    at once, naming the hosts and the budget, instead of building 2.56 million OSDs."""
    from conftest import assert_short_error

    r = run_cli("validate", str(QS), "--set", "hosts.osd.count=10000", "--set",
                "hosts.osd.osds.count=256")
    assert_short_error(r, "2,560,000 OSDs", "run.max_memory 8GiB", "hosts.osd.count=10000")


def test_a_run_over_its_memory_budget_stops_with_nothing_written(run_cli, monkeypatch, tmp_path):
    """run.max_memory holds during the run, not only in the estimate: with the estimate's
    check out of the way, a process that holds more than the budget stops the run (here
    after the first 4,096 I/Os, when the reading first exceeds it) with exit 2, and the
    result file is not written."""
    from conftest import assert_short_error

    from cephsim.model import resolve as rs, runner

    monkeypatch.setattr(rs, "_check_memory", lambda scenario: None)
    readings = iter([100 * 2**20] + [10 * 2**30] * 100)  # at the build, then in the run
    monkeypatch.setattr(runner, "resident_bytes", lambda: next(readings))
    out = tmp_path / "r.json"
    r = run_cli("run", str(QS), "--set", "run.ios=20000", "--set", "run.max_memory=1GiB",
                "-f", "json", "-o", str(out))
    assert_short_error(r, "run.max_memory", "1GiB", "after 4,096 I/Os", "10,240 MiB")
    assert not out.exists()
    # and a process already over the budget once the cluster is built does not start
    monkeypatch.setattr(runner, "resident_bytes", lambda: 2 * 2**30)
    r = run_cli("run", str(QS), "--set", "run.max_memory=1GiB", "-o", str(out))
    assert_short_error(r, "after 0 I/Os", "2,048 MiB")
    assert not out.exists()


def test_the_resident_memory_reading_is_this_process():
    from cephsim.model.runner import resident_bytes

    held = resident_bytes()
    assert 20 * 2**20 < held < 8 * 2**30


def test_a_large_clusters_pilot_runs_on_a_slice(monkeypatch):
    """1,000 hosts x 24 OSDs: the pilots build 1/24 of the OSD hosts (42 hosts, 1,008 OSDs;
    the client group as it is), and validate says the estimate came from a slice."""
    seen = _fake_pilot(monkeypatch, 0.0, 0.001, 10**5)
    sc = load_scenario(QS, ["hosts.osd.count=1000", "hosts.osd.osds.count=24", "run.ios=3000"])
    e = est.estimate(sc, QS)
    assert [(g.name, g.count) for g in seen[0].hosts] == [("osd", 42), ("client", 1)]
    assert (e.pilot_osds, e.rough) == (1008, True)
    assert abs(e.wall_s - 0.001 * 3500) < 0.05 * 24  # the slice's setup, x 24 (a few ms here)
    # a slice keeps the hosts the workload names and enough for the pool's copies
    small, f, _ = est.pilot_slice(load_scenario(QS, ["hosts.osd.count=3000", "workload.clients=[osd2000]",
                                             "hosts.osd.osds.count=1"]))
    assert (small.hosts[0].count, f) == (2001, 3000 / 2001)
    tiny, f, _ = est.pilot_slice(load_scenario(QS))
    assert f == 1.0 and tiny.hosts[0].count == 3


def test_validate_names_the_slice(run_cli):
    r = run_cli("validate", str(QS), "--set", "hosts.osd.count=1000", "--set",
                "hosts.osd.osds.count=24", "--set", "run.ios=300")
    assert r.exit_code == 0, r.output
    assert "on a slice of 1,008 OSDs: rougher" in r.stdout
