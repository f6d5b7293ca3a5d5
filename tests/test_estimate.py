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
    difference's cost."""
    seen = _fake_pilot(monkeypatch, 0.5, 0.002, 10**6)
    sc = load_scenario(QS, ["workload.iodepth=4096", "workload.numjobs=1024", "run.ios=20000",
                            "run.ramp_ios=0", "run.max_memory=64GiB"])
    e = est.estimate(sc, QS)
    p = seen[0].workload
    assert (p.numjobs, p.iodepth, e.pilot_inflight, e.rough) == (32, 16, 512, True)
    assert [q.run.ios for q in seen] == [768, 1536]
    assert abs(e.wall_s - 0.002 * 20000) < 0.05


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
