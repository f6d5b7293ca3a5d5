"""The menu cpuidle governor: hand-calculated choices, and what it does with load."""

from __future__ import annotations

import pytest
from conftest import ROOT
from hypothesis import given, strategies as st

from cephsim.api import load_resolved
from cephsim.model.components.cpu import (
    MENU_NEXT_TIMER_NS,
    MENU_TICK_NS,
    MENU_TICK_WAKE_NS,
    MENU_VARIANCE_NS2,
    Core,
    CoreSet,
    menu_predict,
    menu_update,
)
from cephsim.model.runner import run_scenario

US = 1000


def _skx(governor: str = "menu") -> CoreSet:
    """A Xeon Gold 6242 (intel_idle skx: C1 2/2 us, C1E 10/20 us, C6 133/600 us exit/residency;
    wake penalties 2, 10 and 30 us), every state allowed."""
    _, r = load_resolved(ROOT / "scenarios" / "quickstart.yaml",
                         ["hosts.osd.cpu=xeon-6242", "hosts.osd.tuning.max_cstate=null",
                          f"hosts.osd.tuning.cpuidle_governor={governor}"])
    cs = CoreSet("h.cpu", r.hosts[0].cpu, 2)
    assert [s.name for s in r.hosts[0].cpu.cstates] == ["POLL", "C1", "C1E", "C6"]
    assert cs.exits == [0, 2 * US, 10 * US, 133 * US] and cs.residencies[-1] == 600 * US
    assert cs.penalties == [0, 2 * US, 10 * US, 30 * US]
    return cs


def test_eight_alike_periods_predict_themselves_and_a_long_sleep_stays_shallow() -> None:
    """Eight 100 us periods: menu predicts 100 us (variance 0) and picks C1E (C6's 133 us exit
    latency does not fit), so a 2 ms sleep wakes from C1E (10 us), not C6 as an ideal
    governor would (30 us): an under-prediction."""
    cs = _skx()
    core = cs.cores[0]
    core.set_intervals([100 * US] * 8)
    assert menu_predict(core) == 100 * US
    assert cs._menu_select(100 * US) == 2
    assert cs.menu_wake(core, 0, 2_000 * US, cs.deepest_k) == 10 * US  # no tick inside: 0 .. 2 ms < 4 ms
    assert cs.state_hits == [0, 0, 1, 0]
    # the period learnt: 2 ms less C1E's exit latency, into the ring and the running mean
    assert core.ivals[0] == 1_990 * US
    assert core.predicted == MENU_NEXT_TIMER_NS + (1_990 * US - MENU_NEXT_TIMER_NS) // 8
    assert _skx("ideal").wake_penalty(2_000 * US) == 30 * US


def test_mixed_periods_predict_their_mean_and_a_short_sleep_pays_c6() -> None:
    """Periods of 20, 300, 700 and 2000 us do not agree, even with the two largest dropped
    (stddev 279 us against a 340 us mean), so the running mean decides: at 1 ms C6 fits, and
    a 20 us sleep pays C6's 30 us where an ideal governor pays C1E's 10 us: an
    over-prediction.  (Four 20 us and four 2 ms periods would agree once the 2 ms ones are
    dropped: 20 us.)"""
    cs = _skx()
    core = cs.cores[0]
    core.set_intervals([20 * US, 2_000 * US] * 4)
    assert menu_predict(core) == 20 * US
    core.set_intervals([20 * US, 300 * US, 700 * US, 2_000 * US] * 2)
    core.set_predicted(1_000 * US)
    assert menu_predict(core) == 1_000 * US
    assert cs.menu_wake(core, 0, 20 * US, cs.deepest_k) == 30 * US
    assert _skx("ideal").wake_penalty(20 * US) == 10 * US
    # 20 us is under twice C6's exit latency: menu_update halves it
    assert core.ivals[0] == 10 * US


def test_a_tick_inside_the_sleep_counts_as_a_long_period() -> None:
    """A 100 us prediction keeps the tick; the tick 100 us into a 1 ms sleep wakes the CPU,
    which menu_update counts as 45 ms, and the governor chooses again for the remaining 900 us
    (the seven 100 us periods still agree: C1E again)."""
    cs = _skx()
    core = cs.cores[0]
    core.set_intervals([100 * US] * 8)
    core.set_predicted(100 * US)
    since = MENU_TICK_NS - 100 * US
    assert cs.menu_wake(core, since, 1_000 * US, cs.deepest_k) == 10 * US
    after_tick = 100 * US + (MENU_TICK_WAKE_NS - 100 * US) // 8
    assert core.ivals[:2] == [MENU_TICK_WAKE_NS, 890 * US]
    assert core.predicted == after_tick + (890 * US - after_tick) // 8


def _typical_interval(ivals: list[int], predicted: int) -> int:
    """get_typical_interval() as drivers/cpuidle/governors/menu.c writes it: the mean and
    variance of the periods at or under a threshold, the largest dropped while more than 6
    are left; used when they agree, else the running mean."""
    thresh = None
    while True:
        kept = [v for v in ivals if thresh is None or v <= thresh]
        n, top = len(kept), max(kept)
        if top == 0:
            return predicted
        avg = sum(kept) // n
        var = sum((v - avg) ** 2 for v in kept) // n
        if (avg * avg > 36 * var and 4 * n >= 24) or var <= MENU_VARIANCE_NS2:
            return min(avg, predicted)
        if 4 * n <= 24:
            return predicted
        thresh = top - 1


# periods as the model records them: short ones, around the C1E/C6 boundary, the tick's
# 45 ms, the 50 ms cap, and repeats (the largest is dropped with every copy of it)
_PERIOD = st.one_of(st.integers(0, 2_000), st.integers(0, 2_000 * US),
                    st.sampled_from([0, 20 * US, 600 * US, MENU_TICK_WAKE_NS, MENU_NEXT_TIMER_NS]))


_SKX_PACKAGE = _skx().package  # a socket for the bare cores below


@given(st.lists(_PERIOD, min_size=8, max_size=40), st.integers(0, MENU_NEXT_TIMER_NS))
def test_the_prediction_from_the_rings_sums_is_menus_typical_interval(periods, predicted):
    """The prediction kept from running sums equals get_typical_interval computed from the
    ring itself, through any sequence of updates (the ring wraps, old periods leave)."""
    core = Core(0, 1e9, _SKX_PACKAGE)
    for v in periods:
        menu_update(core, v)
    core.set_predicted(predicted)
    assert core.iv_sum == sum(core.ivals) and core.iv_sq == sum(v * v for v in core.ivals)
    assert menu_predict(core) == _typical_interval(core.ivals, predicted)


def test_a_core_sleeps_no_deeper_than_its_other_thread_asked() -> None:
    """Hardware takes the shallower of the two hardware threads' requests for the core.  The
    woken thread's history (eight 5 ms periods) asks for C6; its sibling, idle for 50 us
    after eight 100 us periods, asked for C1E (C6's 133 us exit does not fit 100 us): the
    core is in C1E, the wake costs C1E's 10 us and counts as a C1E exit, while the woken
    thread's governor learns its 2 ms period less C6's exit latency (what it chose)."""
    cs = _skx()
    core, sib = cs.cores[0], cs.cores[2]
    assert core.sibling is sib
    core.set_intervals([5_000 * US] * 8)
    core.set_predicted(5_000 * US)
    sib.set_intervals([100 * US] * 8)
    sib.set_predicted(100 * US)
    now = 10 * MENU_TICK_NS + 200 * US
    sib.busy_until = now - 50 * US  # its tick comes 3.85 ms after it went idle: not yet
    assert cs.requested(sib, now) == 2
    assert cs.menu_wake(core, now - 2_000 * US, 2_000 * US, cs.requested(sib, now)) == 10 * US
    assert cs.state_hits == [0, 0, 1, 0]
    assert core.ivals[0] == 2_000 * US - 133 * US
    # with no sibling request to follow (the deepest state as the limit) the wake pays C6
    core.set_intervals([5_000 * US] * 8)
    assert cs.menu_wake(core, now - 2_000 * US, 2_000 * US, cs.deepest_k) == 30 * US


def test_a_sibling_woken_by_its_tick_sets_no_limit() -> None:
    """A sibling that kept the tick (prediction under 4 ms) and has been idle past that tick
    chose again after it, from a history the model updates only when it wakes: no limit."""
    cs = _skx()
    sib = cs.cores[2]
    sib.set_intervals([100 * US] * 8)
    sib.set_predicted(100 * US)
    sib.busy_until = 10 * MENU_TICK_NS - 100 * US  # its tick 100 us later
    assert cs.requested(sib, 10 * MENU_TICK_NS - 50 * US) == 2
    assert cs.requested(sib, 10 * MENU_TICK_NS + 50 * US) == cs.deepest_k == 3


def test_poll_is_passed_over_for_c1_when_its_exit_latency_fits() -> None:
    """Predicted 1.5 us: C1's 2 us exit latency does not fit, so POLL; at 2 us C1.  A state
    deeper than C1 needs its residency to fit as well: C1E (10/20 us) at 20 us, not at 19."""
    cs = _skx()
    assert cs._menu_select(1_500) == 0
    assert cs._menu_select(2 * US) == 1
    assert cs._menu_select(19 * US) == 1
    assert cs._menu_select(20 * US) == 2
    assert cs._menu_select(599 * US) == 2 and cs._menu_select(600 * US) == 3


def _per_client(jobs: int) -> tuple[float, float]:
    """Mean per-client latency (us) and C-state wake time per op on an all-Sapphire Rapids
    quickstart with every idle state allowed and the kernel's default governors."""
    ov = ["run.ios=4000", "run.ramp_ios=400", "run.records=true", f"workload.numjobs={jobs}"]
    for g in ("osd", "client"):
        ov += [f"hosts.{g}.cpu=xeon-6430", f"hosts.{g}.tuning.max_cstate=null",
               f"hosts.{g}.tuning.governor=auto"]
    sc, r = load_resolved(ROOT / "scenarios" / "quickstart.yaml", ov)
    a = run_scenario(sc, resolved=r).records.arrays()
    return (float((a["complete"] - a["submit"]).mean()) / 1e3, float(a["acc"][:, 2].mean()) / 1e3)


def test_more_clients_make_each_faster_on_a_host_with_deep_idle_states() -> None:
    """With C6 allowed, more concurrent qd=1 clients keep the cores' idle periods short, so
    menu predicts short sleeps and picks shallow states: each client's latency at 4 clients
    is below its latency at 1 and at 2 (docs/model.md, "C-states: the menu governor")."""
    lat = {n: _per_client(n) for n in (1, 2, 4)}
    assert lat[4][0] < lat[2][0] < lat[1][0], lat
    assert lat[4][1] < lat[2][1] < lat[1][1], lat  # the wake-ups are what falls
    assert lat[1][0] / lat[4][0] > 1.15, lat


def test_c1_only_hosts_barely_notice_the_governor() -> None:
    """Limited to C1 (tuned network-latency), the choice is POLL or C1: the governor moves a
    qd=1 write by well under a per cent."""
    out = {}
    for governor in ("menu", "ideal"):
        ov = ["run.ios=2000", "run.records=true"] + [
            f"hosts.{g}.tuning.cpuidle_governor={governor}" for g in ("osd", "client")]
        sc, r = load_resolved(ROOT / "scenarios" / "quickstart.yaml", ov)
        a = run_scenario(sc, resolved=r).records.arrays()
        out[governor] = (float((a["complete"] - a["submit"]).mean()), float(a["acc"][:, 2].mean()))
    assert out["menu"][0] == pytest.approx(out["ideal"][0], rel=0.005), out
    assert abs(out["menu"][1] - out["ideal"][1]) < 1_000, out


def test_a_new_prediction_is_chosen_from_again() -> None:
    """The choice is kept per history; setting the running mean drops it: eight periods
    that do not agree leave the running mean to decide, C1E at 100 us, C6 at 5 ms."""
    cs = _skx()
    core = cs.cores[0]
    core.set_intervals([20 * US, 300 * US, 700 * US, 2_000 * US] * 2)
    core.set_predicted(100 * US)
    assert cs._menu_choice(core) == 2
    core.set_predicted(5_000 * US)
    assert cs._menu_choice(core) == 3
