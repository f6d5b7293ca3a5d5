"""Monitor-cluster model (seed 004): verdicts must follow from timers and message sizes."""

import pytest
from hypothesis import given, settings, strategies as st
from pydantic import ValidationError

from cephsim.monitors import (LinkSpec, MonNetwork, MonitorSpec, find_thresholds,
                              simulate_monitors, text_report)

MS = 1_000_000
SPEC = MonitorSpec(duration="30min")
SEEDS = (1, 2, 3)


def net(one_way_ms: float, **kw) -> MonNetwork:
    return MonNetwork.uniform(SPEC.mons, SPEC.clients, int(one_way_ms * MS), **kw)


def run(one_way_ms, seed, spec=SPEC, **kw):
    return simulate_monitors(spec, net(one_way_ms, **kw), seed)


@pytest.mark.parametrize("seed", SEEDS)
def test_rtt_1600_healthy(seed):
    r = run(800, seed)
    assert r.state == "healthy", text_report(r)


@pytest.mark.parametrize("seed", SEEDS)
def test_rtt_3200_unstable(seed):
    r = run(1600, seed)
    assert r.state == "unstable", text_report(r)
    assert r.elections_per_hour > SPEC.thresholds.unstable_elections_per_hour


@pytest.mark.parametrize("seed", SEEDS)
def test_rtt_6400_broken(seed):
    r = run(3200, seed)
    assert r.state == "broken", text_report(r)
    for cmd in ("health", "auth_get_or_create", "rbd_map"):
        assert r.commands[cmd].success_rate < 0.5


def test_thresholds():
    spec = SPEC
    th = find_thresholds(spec, lambda rtt: MonNetwork.uniform(spec.mons, spec.clients, rtt // 2),
                         seeds=(1, 2, 3), lo=1 * MS, hi=6400 * MS, tol_ns=200 * MS)
    assert [(t.from_state, t.to_state) for t in th] == [("healthy", "unstable"),
                                                        ("unstable", "broken")]
    assert 1600 * MS < th[0].above_rtt_ns <= 3200 * MS
    assert 3200 * MS < th[1].above_rtt_ns <= 6400 * MS
    assert all(t.timer for t in th)


def test_low_rtt_quorum_fast_no_elections():
    r = run(0.5, 1)
    assert r.state == "healthy"
    assert r.time_to_first_quorum_s < 3
    assert r.elections == 0
    assert all(c.success_rate == 1.0 for c in r.commands.values())
    assert r.first_timer_tripped is None


def test_loss_low_rtt_healthy_with_retransmissions():
    r = run(0.5, 1, loss=0.01)
    assert r.state == "healthy", text_report(r)
    assert r.counters["retransmitted_segments"] > 0


def test_link_validation():
    with pytest.raises(ValidationError, match="jitter needs a delay"):
        LinkSpec(jitter_ns=10 * MS)
    with pytest.raises(ValidationError, match="loss must be"):
        LinkSpec(delay_ns=MS, loss=1.5)
    with pytest.raises(ValidationError, match="delay must be >= 0"):
        LinkSpec(delay_ns=-1)
    assert LinkSpec(delay_ns="800ms", loss="1%").delay_ns == 800 * MS


def test_spec_units_and_extra_forbid():
    s = MonitorSpec(duration="10min", timers={"mon_lease": "5s"})
    assert s.timers.mon_lease == 5_000_000_000 and s.duration == 600_000_000_000
    with pytest.raises(ValidationError):
        MonitorSpec(bogus=1)
    with pytest.raises(ValidationError):
        MonitorSpec(timers={"mon_lease": 5})


def test_report_json():
    r = run(0.5, 2, spec=MonitorSpec(duration="5min"))
    assert '"state"' in r.model_dump_json()


ORDER = {"healthy": 0, "unstable": 1, "broken": 2}


@settings(max_examples=4, deadline=None)
@given(st.integers(min_value=1, max_value=3200), st.integers(min_value=1, max_value=3200))
def test_more_rtt_never_better(a, b):
    lo, hi = sorted((a, b))
    spec = MonitorSpec(duration="15min")
    v = [max(ORDER[simulate_monitors(spec, MonNetwork.uniform(spec.mons, spec.clients, ow * MS), s).state]
             for s in (1, 2)) for ow in (lo, hi)]
    assert v[0] <= v[1]
