"""The resource estimate validate prints: memory by the measured per-I/O figures, wall time
scaled from a pilot (its arithmetic checked by hand with a pilot of known cost)."""

from __future__ import annotations

from types import SimpleNamespace

from conftest import ROOT

from cephsim.scenario.load import load_scenario
from cephsim.tools import estimate as est

QS = ROOT / "scenarios" / "quickstart.yaml"


def _fake_pilot(monkeypatch, wall_s: float, sim_ns: int) -> list:
    seen = []

    def run(scenario, scenario_path=None):
        seen.append(scenario)
        return SimpleNamespace(wall_s=wall_s, sim_end_ns=sim_ns)

    monkeypatch.setattr(est, "run_scenario", run)
    return seen


def test_wall_time_scales_the_pilot_by_ios_and_counts_the_fill(monkeypatch):
    """qd 1: a 300-I/O pilot whose loop took 0.301 s costs 1 ms per I/O (300 + 1 in flight),
    so 20,000 + 200 ramp I/Os take 20.201 s (plus the pilot's setup, here ~0)."""
    seen = _fake_pilot(monkeypatch, 0.301, 10**8)
    sc = load_scenario(QS, ["run.ios=20000", "run.ramp_ios=200"])
    e = est.estimate(sc, QS)
    assert abs(e.wall_s - 20.201) < 0.05
    assert e.pilot_ios == 300 and e.pilot_inflight == 1
    p = seen[0]
    assert (p.run.ios, p.run.ramp_ios, p.run.records) == (300, 0, False)
    assert sc.run.ios == 20000  # the scenario itself is untouched


def test_a_runtime_run_scales_by_simulated_time(monkeypatch):
    """run.runtime 60 s and no ios: a pilot loop of 0.5 s over 0.1 s simulated gives 300 s."""
    _fake_pilot(monkeypatch, 0.5, 10**8)
    sc = load_scenario(QS, ["run.runtime=60s", "run.ramp_ios=0"])
    sc = sc.model_copy(update={"run": sc.run.model_copy(update={"ios": None})})
    assert abs(est.estimate(sc, QS).wall_s - 300.0) < 0.1


def test_a_deep_wide_scenario_gets_a_smaller_pilot(monkeypatch):
    """4096 x 1024 in flight: the pilot keeps 32 jobs x 16 = 512 in flight (validate stays
    quick), and the fill it would skip counts at the pilot's per-I/O cost."""
    seen = _fake_pilot(monkeypatch, 1.024, 10**9)
    sc = load_scenario(QS, ["workload.iodepth=4096", "workload.numjobs=1024", "run.ios=200",
                            "run.ramp_ios=0", "run.max_memory=64GiB"])
    e = est.estimate(sc, QS)
    p = seen[0].workload
    assert (p.numjobs, p.iodepth, e.pilot_inflight) == (32, 16, 512)
    per_io = 1.024 / (200 + 512)
    assert abs(e.wall_s - per_io * (200 + 4096 * 1024)) < 0.5


def test_validate_prints_the_estimate_and_warns_of_a_long_run(run_cli, monkeypatch):
    r = run_cli("validate", str(QS))
    assert r.exit_code == 0
    assert "a run needs about" in r.stdout and "MiB of memory" in r.stdout
    assert "of wall time here (from a pilot of 300 I/Os)" in r.stdout
    _fake_pilot(monkeypatch, 3.0, 10**8)  # 10 ms per I/O: 10^6 I/Os take ~2.8 h
    r = run_cli("validate", str(QS), "--set", "run.ios=1000000")
    assert r.exit_code == 0
    assert "warning: the run would take about 2.8 h of wall time" in r.stderr
