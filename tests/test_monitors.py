"""Monitor-cluster model (seed 004): verdicts must follow from timers and message sizes."""

import pytest
from hypothesis import given, settings, strategies as st
from pydantic import ValidationError

from cephsim.monitors import (
    LinkSpec,
    MonitorSpec,
    MonNetwork,
    find_thresholds,
    simulate_monitors,
    text_report,
)
from cephsim.monitors.thresholds import ORDER, scan_grid, search_changes

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
    # a statistic with no successful command is a bare '-', never '- s' or '-s'
    if any(c.latency_mean_s is None for c in r.commands.values()):
        assert "- s" not in text_report(r) and "-s " not in text_report(r)


def test_thresholds():
    spec = SPEC
    th = find_thresholds(spec, lambda rtt: MonNetwork.uniform(spec.mons, spec.clients, rtt // 2),
                         seeds=(1, 2, 3), lo=1000 * MS, hi=6400 * MS, tol_ns=200 * MS, points=9)
    pairs = [(t.from_state, t.to_state) for t in th]
    assert pairs[:2] == [("healthy", "unstable"), ("unstable", "broken")], pairs
    assert 1600 * MS < th[0].above_rtt_ns <= 3200 * MS
    assert 3200 * MS < th[1].above_rtt_ns <= 6400 * MS
    # past that, only a window that is better than both sides (and it closes again)
    assert pairs[2:] in ([], [("broken", "unstable"), ("unstable", "broken")]), pairs
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


@settings(max_examples=4, deadline=None)
@given(st.integers(min_value=1, max_value=800), st.integers(min_value=2600, max_value=3200))
def test_regimes_ordered(low_ow, high_ow):
    """Up to 1.6 s RTT the cluster never does worse than from 5.2 s up.  (Between those the
    verdict is not monotone: see test_search_finds_a_window_better_than_both_sides.)"""
    spec = MonitorSpec(duration="15min")
    v = [max(ORDER[simulate_monitors(spec, MonNetwork.uniform(spec.mons, spec.clients, ow * MS), s).state]
             for s in (1, 2)) for ow in (low_ow, high_ow)]
    assert v == [ORDER["healthy"], ORDER["broken"]]


def _steps(changes: list[int], levels: list[int]):
    """A piecewise-constant verdict: levels[i] on [changes[i-1], changes[i])."""
    def f(r: int) -> int:
        return levels[sum(r >= c for c in changes)]
    return f


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=2), min_size=2, max_size=6),
       st.data())
def test_search_finds_every_change_one_per_grid_cell(levels, data):
    """Synthetic verdicts, monotone or not, at most one change per grid cell: every change is
    bracketed within tol, in RTT order, and the brackets never overlap."""
    lo, hi, points, tol = 1_000_000, 12_800_000_000, 33, 50_000_000
    grid = scan_grid(lo, hi, points)
    idx = sorted(data.draw(st.sets(st.integers(min_value=0, max_value=len(grid) - 2),
                                   min_size=len(levels) - 1, max_size=len(levels) - 1)))
    # one change inside each chosen grid cell (grid[i], grid[i + 1]]
    changes = [data.draw(st.integers(min_value=grid[i] + 1, max_value=grid[i + 1])) for i in idx]
    f = _steps(changes, levels)
    found = search_changes(f, lo, hi, tol, points)
    real = [c for c, l0, l1 in zip(changes, levels, levels[1:]) if l0 != l1]
    assert len(found) == len(real)
    for (a, b), c in zip(found, real):
        assert a < c <= b and b - a <= tol
        assert f(a) != f(b)
    assert all(b0 <= a1 for (_, b0), (a1, _) in zip(found, found[1:]))


def test_search_finds_two_changes_inside_one_grid_cell():
    lo, hi = 1_000, 1_000_000
    grid = scan_grid(lo, hi, 4)
    c1, c2 = grid[1] + 100, grid[1] + 5_000  # both inside (grid[1], grid[2]]
    f = _steps([c1, c2], [0, 2, 1])
    found = search_changes(f, lo, hi, 10, 4)
    assert [(f(a), f(b)) for a, b in found] == [(0, 2), (2, 1)]
    assert found[0][0] < c1 <= found[0][1] and found[1][0] < c2 <= found[1][1]


def test_search_finds_a_window_better_than_both_sides():
    """The model's own non-monotone window (uniform 3-mon spec): broken at 4.4 s RTT,
    unstable at 4.6-4.8 s, broken again at 5.0 s; a scan fine enough reports all of it."""
    spec = MonitorSpec(duration="15min")
    th = find_thresholds(spec, lambda rtt: MonNetwork.uniform(spec.mons, spec.clients, rtt // 2),
                         seeds=(1, 2), lo=4_000 * MS, hi=5_400 * MS, tol_ns=100 * MS, points=8)
    assert [(t.from_state, t.to_state) for t in th] == [("broken", "unstable"), ("unstable",
            "broken")]
    assert th[0].improves and not th[1].improves
    assert 4_400 * MS <= th[0].below_rtt_ns < th[0].above_rtt_ns <= 4_600 * MS
    assert 4_800 * MS <= th[1].below_rtt_ns < 5_000 * MS
