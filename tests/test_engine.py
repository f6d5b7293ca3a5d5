"""The process kernel: fast path equivalence, Join semantics, interleaving with SimPy."""

from __future__ import annotations

import numpy as np
import pytest
import simpy

from cephsim.model.engine.kernel import Join, Kernel
from cephsim.model.runner import run_scenario
from cephsim.scenario.load import load_scenario


def _arrays(path, overrides):
    res = run_scenario(load_scenario(path, overrides), scenario_path=path)
    return res, res.records.arrays()


@pytest.mark.parametrize("overrides", [
    ["run.ios=500"],                                      # qd1, tails on (background stalls)
    ["run.ios=500", "workload.iodepth=4"],
    ["run.ios=400", "workload.rw=randrw", "workload.numjobs=2", "workload.iodepth=2"],
], ids=["qd1-tails", "qd4", "randrw-2jobs"])
def test_fast_path_is_bit_identical(quickstart, overrides):
    fast, a = _arrays(quickstart, overrides + ["run.fast_path=true"])
    slow, b = _arrays(quickstart, overrides + ["run.fast_path=false"])
    assert fast.resolved.ceph.tails
    for key in ("is_write", "submit", "slat_end", "complete", "acc", "ev"):
        assert np.array_equal(a[key], b[key]), key
    # the fast path really avoided SimPy events (otherwise this test proves nothing)
    assert fast.simpy_events < slow.simpy_events


def test_fast_path_identical_with_netem_jitter(quickstart):
    o = ["run.ios=300", "hosts.osd.netem.delay=50us", "hosts.osd.netem.jitter=20us",
         "workload.iodepth=3"]
    _, a = _arrays(quickstart, o + ["run.fast_path=true"])
    _, b = _arrays(quickstart, o + ["run.fast_path=false"])
    assert np.array_equal(a["complete"] - a["submit"], b["complete"] - b["submit"])
    assert np.array_equal(a["acc"], b["acc"])


# ------------------------------------------------------------------ kernel unit tests

@pytest.fixture(params=[True, False], ids=["fast", "slow"])
def kernel(request):
    return Kernel(simpy.Environment(), fast=request.param)


def test_process_sees_its_own_times(kernel):
    seen = []

    def proc():
        seen.append(kernel.now)
        yield 10
        seen.append(kernel.now)
        yield 25
        seen.append(kernel.now)

    kernel.spawn(proc(), 5)
    kernel.run_until_idle()
    assert seen == [5, 10, 25]
    assert kernel.now == 25


def test_join_waits_for_last_arrival_and_keeps_its_payload(kernel):
    out = {}
    join = Join(kernel, 3)

    def branch(delay, name):
        yield kernel.now + delay
        join.arrive(kernel.now, name)

    def waiter():
        yield join
        out["t"] = kernel.now
        out["last"] = join.last

    for d, n in ((30, "a"), (70, "b"), (50, "c")):
        kernel.spawn(branch(d, n))
    kernel.spawn(waiter())
    kernel.run_until_idle()
    assert out == {"t": 70, "last": "b"}


def test_join_already_complete_continues_at_join_time(kernel):
    """Yielding a Join whose branches all arrived continues at the last arrival, not later."""
    out = []
    join = Join(kernel, 2)
    join.arrive(40, "x")
    join.arrive(15, "y")  # arrives "earlier" in time: does not replace the payload

    def waiter():
        yield 10
        yield join
        out.append((kernel.now, join.last))

    kernel.spawn(waiter())
    kernel.run_until_idle()
    assert out == [(40, "x")]


def test_join_tie_takes_later_payload(kernel):
    join = Join(kernel, 2)
    join.arrive(20, "first")
    join.arrive(20, "second")
    assert join.t == 20 and join.last == "second" and join.remaining == 0


def test_same_time_continuations_run_in_spawn_order(kernel):
    order = []

    def p(name):
        yield 100
        order.append(name)
        yield 100
        order.append(name + "'")

    for n in "abc":
        kernel.spawn(p(n))
    kernel.run_until_idle()
    assert order == ["a", "b", "c", "a'", "b'", "c'"]


def test_background_simpy_process_interleaves_in_time_order(kernel):
    """A SimPy process and kernel processes touching one shared log see one global time order."""
    env = kernel.env
    log = []

    def bg():
        for _ in range(5):
            yield env.timeout(35)
            log.append(("bg", int(env.now)))

    def kp(name, step, n):
        t = kernel.now
        for _ in range(n):
            t += step
            yield t
            log.append((name, kernel.now))

    env.process(bg())
    kernel.spawn(kp("k10", 10, 8))
    kernel.spawn(kp("k25", 25, 6))
    kernel.run_until_idle()
    times = [t for _, t in log]
    assert times == sorted(times), log
    assert len(log) == 5 + 8 + 6
    # the SimPy event at 70 (bg) comes before the kernel continuation at 70 (priority 2)
    at70 = [n for n, t in log if t == 70]
    assert at70[0] == "bg"
    assert set(at70) == {"bg", "k10"}


def test_fast_path_does_not_overtake_simpy_event(kernel):
    """A kernel process must not run past a pending SimPy event that changes shared state."""
    env = kernel.env
    state = {"x": 0}
    seen = []

    def bg():
        yield env.timeout(50)
        state["x"] = 1

    def kp():
        for t in (20, 40, 60, 80):
            yield t
            seen.append((kernel.now, state["x"]))

    env.process(bg())
    kernel.spawn(kp())
    kernel.run_until_idle()
    assert seen == [(20, 0), (40, 0), (60, 1), (80, 1)]


def test_fast_path_uses_fewer_simpy_events():
    k_fast = Kernel(simpy.Environment(), fast=True)
    k_slow = Kernel(simpy.Environment(), fast=False)
    for k in (k_fast, k_slow):
        def p(k=k):
            for i in range(1, 101):
                yield i * 7
        k.spawn(p())
        k.run_until_idle()
        assert k.now == 700
    assert k_fast.simpy_events < 5 < k_slow.simpy_events
    assert k_fast.steps == k_slow.steps


def test_resumptions_and_forced_yields_counted_by_hand():
    """Alone, a process runs inline: every yield resumes it at once (4 resumptions, none
    forced).  Two interleaved ones (A at 10, 30; B at 20, 40): each of their 4 yields
    finds the other due first, so each waits in the heap: 6 resumptions, 4 forced."""
    k = Kernel(simpy.Environment(), fast=True)

    def alone():
        for t in (10, 20, 30):
            yield t

    k.spawn(alone())
    k.run_until_idle()
    assert (k.resumes, k.forced) == (4, 0)

    k = Kernel(simpy.Environment(), fast=True)
    order = []

    def p(name, times):
        for t in times:
            yield t
            order.append((name, k.now))

    k.spawn(p("a", (10, 30)))
    k.spawn(p("b", (20, 40)))
    k.run_until_idle()
    assert order == [("a", 10), ("b", 20), ("a", 30), ("b", 40)]
    assert (k.resumes, k.forced) == (6, 4)
    assert k.steps == k.resumes  # nothing here went on through must_yield


@pytest.mark.parametrize("fast", ["true", "false"])
@pytest.mark.parametrize("depth", [1, 4])
def test_run_measures_exactly_run_ios(quickstart, fast, depth):
    """``run.ios`` is the number of measured I/Os, whatever the queue depth and engine path."""
    res, a = _arrays(quickstart, ["run.ios=500", f"workload.iodepth={depth}", f"run.fast_path={fast}"])
    assert res.records.count() == 500
    assert a["submit"].size == 500


def test_the_kernel_relies_on_simpy_internals_it_was_checked_on() -> None:
    """schedule_wakeup makes a triggered event by hand (SimPy's private ``_ok`` and
    ``_value``, as Timeout does) so that it can take the kernel's own priority; this pins
    the SimPy versions that was checked on and what it relies on: the callback runs once,
    at the given delay, after a NORMAL event of the same instant."""
    import simpy

    from cephsim.model.engine.kernel import schedule_wakeup

    assert simpy.__version__.startswith("4."), simpy.__version__
    env = simpy.Environment()
    seen: list[tuple[str, float]] = []
    schedule_wakeup(env, 5, lambda ev: seen.append(("kernel", env.now)))
    env.timeout(5).callbacks.append(lambda ev: seen.append(("normal", env.now)))
    assert env.peek() == 5
    env.run()
    assert seen == [("normal", 5), ("kernel", 5)]
