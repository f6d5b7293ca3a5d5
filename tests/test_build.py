"""How Ceph was built (ceph.build): which builds have RocksDB unoptimised, what it costs,
and two published measurements of the fix it is checked against (not fitted on)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from cephsim.model.build import (
    ROCKSDB_SHARE,
    UNOPTIMISED_FACTOR,
    build_effect,
    deb_affected,
)
from cephsim.model.resolve import resolve
from cephsim.model.runner import run_scenario
from cephsim.scenario.load import load_scenario

SC = Path(__file__).resolve().parent.parent / "scenarios"


@pytest.mark.parametrize("release, version, affected", [
    ("luminous", None, True), ("nautilus", "14.2.2", True), ("octopus", "15.2.17", True),
    ("pacific", "16.2.14", True), ("pacific", "16.2.15", False),
    ("quincy", "17.2.7", True), ("quincy", "17.2.8", False),
    ("reef", "18.2.2", True), ("reef", "18.2.4", False), ("reef", None, None),
    ("squid", None, False), ("tentacle", "20.2.0", False)])
def test_which_upstream_debs_have_the_defect(release, version, affected) -> None:
    # the release notes' fix: 16.2.15, 17.2.8, 18.2.4; Squid was branched after it
    assert deb_affected(release, version) is affected


def test_other_builds_are_optimised_and_unknown_is_halfway() -> None:
    for b in ("rpm", "container", "source", "distro"):
        e = build_effect(b, "nautilus", "14.2.2")
        assert e.optimised is True and e.factor == 1.0
    assert build_effect("upstream-deb", "quincy", "17.2.7").factor == UNOPTIMISED_FACTOR
    mid = build_effect("unknown", "reef", None)
    assert mid.optimised is None and mid.factor == pytest.approx(math.sqrt(UNOPTIMISED_FACTOR))
    assert "halfway" in mid.why
    # nothing to be unsure of where no build had the defect
    assert build_effect("unknown", "squid", None).factor == 1.0
    assert build_effect("upstream-deb", "reef", None).optimised is None


def _costs(*sets: str):
    sc = load_scenario(SC / "quickstart.yaml", ["ceph.release=quincy", *sets])
    return resolve(sc, SC / "quickstart.yaml").ceph.costs


def test_the_factor_acts_on_rocksdb_share_only() -> None:
    opt = _costs("ceph.build=rpm").kcycles
    deb = _costs("ceph.build=upstream-deb", "ceph.version=17.2.7").kcycles
    for stage, v in opt.items():
        share = ROCKSDB_SHARE.get(stage, 0.0)
        # hand-calculated: kcycles x (1 + share x (F - 1)); every other stage untouched
        assert deb[stage] == pytest.approx(v * (1 + share * (UNOPTIMISED_FACTOR - 1)))
    assert deb["osd.kv_apply"] == pytest.approx(5 * opt["osd.kv_apply"])
    assert deb["osd.do_op"] == opt["osd.do_op"]


def test_a_stage_override_is_the_cost_as_given_whatever_the_build() -> None:
    a = _costs("ceph.build=rpm", "ceph.software={osd.kv_apply: 30}")
    b = _costs("ceph.build=upstream-deb", "ceph.version=17.2.7",
               "ceph.software={osd.kv_apply: 30}")
    assert a.cost("osd.kv_apply") == pytest.approx(30) == pytest.approx(b.cost("osd.kv_apply"))


def test_pr54891_doubles_4k_randwrite_at_saturation() -> None:
    """PR #54891: "4K random write performance on the cluster doubled" once the 17.2.7
    Focal .debs were rebuilt; the model, not fitted on it, within 30 % of x2: the
    unoptimised build runs into bstore_kv_sync, the fixed one into the messenger and CPU."""
    path = SC / "tibps-quincy-randwrite.yaml"
    small = ["hosts.node.count=3", "workload.numjobs=30", "workload.iodepth=16",
             "workload.clients=[node0,node1,node2]", "run.ios=8000", "run.ramp_ios=4000"]
    deb = run_scenario(load_scenario(path, [*small, "ceph.version=17.2.7"]), scenario_path=path)
    fixed = run_scenario(load_scenario(path, [*small, "ceph.version=17.2.8"]),
                         scenario_path=path)
    ratio = fixed.iops / deb.iops
    assert 1.4 <= ratio <= 2.6, ratio
    assert deb.saturation["busiest"][0]["resource"].endswith(".kv_sync")
    assert not fixed.saturation["busiest"][0]["resource"].endswith(".kv_sync")


def test_the_production_rebuild_gains_about_15_percent_at_qd1() -> None:
    """The BIT cluster's CephFS qd=1 writes from a VM: ~705 -> ~810 IOPS (+15 %) after the
    rebuild; the model within 30 % of that gain (10.5-19.5 %), its hardware assumed."""
    path = SC / "bit-cephfs-vm-qd1.yaml"
    deb = run_scenario(load_scenario(path, ["run.ios=6000"]), scenario_path=path)
    opt = run_scenario(load_scenario(path, ["run.ios=6000", "ceph.build=source"]),
                       scenario_path=path)
    gain = opt.iops / deb.iops - 1.0
    assert 0.105 <= gain <= 0.195, gain
