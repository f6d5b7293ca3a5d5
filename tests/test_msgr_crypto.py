"""msgr2 secure mode against the one published qd=1 figure (exact per-message costs are
in tests/test_writepath.py)."""

from __future__ import annotations

from conftest import ROOT

from cephsim.model.runner import run_scenario
from cephsim.scenario.load import load_scenario

REEF = ROOT / "scenarios" / "reef-single-client-qd128.yaml"


def mean_us(*overrides: str) -> float:
    sc = load_scenario(REEF, ["workload.iodepth=1", "run.ios=4000", "run.ramp_ios=300", *overrides])
    a = run_scenario(sc, scenario_path=REEF).records.arrays()
    return (a["complete"] - a["submit"]).mean() / 1e3


def test_secure_mode_costs_a_few_percent_at_qd1_as_the_reef_post_saw():
    """Ceph Reef Encryption Performance (ceph.io, 2023-11-16), single client, 4 KiB, io_depth
    1, messenger crc vs secure: writes ~2,700 vs ~2,550 IOPS (about +20 us), reads ~7,150
    vs ~7,200 (no change); bars read off the post's charts, +/- 3 % each, so the write
    effect is 20 +/- 15 us and the read effect 0 +/- 10 us.  The model's must fall in
    those bands (it gives about +9 us and +4 us: docs/model.md)."""
    w = mean_us("ceph.ms_mode=secure") - mean_us()
    r = mean_us("workload.rw=randread", "ceph.ms_mode=secure") - mean_us("workload.rw=randread")
    assert 5 <= w <= 35, w
    assert 0 <= r <= 10 and r < w, r
