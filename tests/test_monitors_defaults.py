"""The monitor model's proposal-size defaults: the verdicts must not hinge on them.

Defaults and their sources are documented in cephsim/spec/monitors.py (ProposalWorkload).  These
runs vary the estimated sizes over their plausible range (OSDMap for ~100-1000 OSDs, mgr
digests, log batches) and check that 1600 / 3200 / 6400 ms keep their verdicts."""

import pytest

from cephsim.monitors import MonitorSpec, MonNetwork, simulate_monitors

MS = 1_000_000
VARIANTS = [
    {"osdmap_size_min": "32KiB", "osdmap_size_max": "96KiB"},
    {"osdmap_size_min": "700KiB", "osdmap_size_max": "1400KiB"},
    {"mgr_digest_size": "15KiB"},
    {"mgr_digest_size": "60KiB"},
]


@pytest.mark.parametrize("wl", VARIANTS, ids=lambda w: ",".join(f"{k}={v}" for k, v in w.items()))
def test_verdicts_robust_to_proposal_sizes(wl):
    spec = MonitorSpec(duration="30min", workload=wl)
    got = [simulate_monitors(spec, MonNetwork.uniform(spec.mons, spec.clients, ow * MS), 3).state
           for ow in (800, 1600, 3200)]
    assert got == ["healthy", "unstable", "broken"]


def test_mgr_report_every_mgr_tick_period():
    assert MonitorSpec().workload.mgr_digest_period == 2_000_000_000
