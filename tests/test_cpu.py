"""CPU model units: the schedutil clock follows a busy thread from core to core."""

from __future__ import annotations

from cephsim.components.cpu import CoreSet, Thread
from cephsim.scenario.load import load_resolved
from conftest import ROOT

US = 1_000


def _cores(n: int) -> CoreSet:
    _, r = load_resolved(ROOT / "scenarios" / "quickstart.yaml",
                      ["hosts.osd.tuning.governor=schedutil"])
    return CoreSet("h.cpu", r.hosts[0].cpu, n)


def _clock_ghz(th: Thread, t: int, kcycles: float = 100.0) -> float:
    """The clock a run of ``kcycles`` started at ``t`` got (no wake-up: handoff=False)."""
    end = th.run(t, kcycles, None, handoff=False)
    return kcycles * 1e3 / (end - t) / th.cores.per_clock


def test_a_busy_thread_keeps_a_high_clock_on_a_core_that_was_idle() -> None:
    cs = _cores(2)
    busy = Thread("busy", cs, home=0, wakeup_kc=0.0)
    t = 0
    for _ in range(2000):  # ~80 % busy for ~250 ms on core 0: its utilisation is high
        t = busy.run(t, 300.0, None, handoff=False) + 25 * US
    lo, hi = cs.min_hz / 1e9, cs.max_hz / 1e9
    on_home = _clock_ghz(busy, t)
    cs.cores[0].busy_until = t + 10**9  # core 0 taken: the thread moves to idle core 1
    t2 = t + 50 * US
    moved = _clock_ghz(busy, t2)
    assert busy.last_core.index == 1
    fresh = Thread("fresh", cs, home=1, wakeup_kc=0.0)
    cold = _clock_ghz(fresh, t2 + 1_000 * US)  # a thread that has not run: core 1's own, low
    assert on_home > 0.9 * hi and moved > 0.9 * hi, (on_home, moved, hi)
    assert cold < lo + 0.5 * (hi - lo), (cold, lo, hi)
