"""Search the mon<->mon RTT at which the verdict changes (healthy→unstable, unstable→broken).

Verdicts are ordered healthy < unstable < broken.  At each RTT the model runs once per seed
and the **majority** verdict counts (ties go to the worse verdict).  Bisection assumes the
verdict is monotone in RTT between ``lo`` and ``hi`` (checked by a property test); each
threshold is returned with its bracket ``(below_ns, above_ns]`` and the option of the most
frequent first-tripped timer in the runs just above the threshold.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Callable, Sequence

from .links import MonNetwork
from .model import simulate_monitors
from .spec import MonitorSpec

ORDER = {"healthy": 0, "unstable": 1, "broken": 2}


@dataclass
class Threshold:
    from_state: str
    to_state: str
    below_rtt_ns: int  #: largest RTT tried with the lower verdict
    above_rtt_ns: int  #: smallest RTT tried with the higher verdict
    timer: str | None  #: most frequent first-tripped option just above
    detail: str | None  #: an example first_timer_tripped sentence


def verdict(spec: MonitorSpec, make_net: Callable[[int], MonNetwork], rtt_ns: int,
            seeds: Sequence[int]):
    reps = [simulate_monitors(spec, make_net(rtt_ns), s) for s in seeds]
    c = Counter(ORDER[r.state] for r in reps)
    best = max(c.items(), key=lambda kv: (kv[1], kv[0]))[0]
    return best, reps


def find_thresholds(spec: MonitorSpec, make_net: Callable[[int], MonNetwork],
                    seeds: Sequence[int] = (1, 2, 3), lo: int = 1_000_000,
                    hi: int = 12_800_000_000, tol_ns: int = 100_000_000) -> list[Threshold]:
    """Bisection over RTT (ns) for each verdict boundary between ``lo`` and ``hi``."""
    cache: dict[int, tuple[int, list]] = {}

    def v(r: int) -> int:
        if r not in cache:
            cache[r] = verdict(spec, make_net, r, seeds)
        return cache[r][0]

    out: list[Threshold] = []
    names = {v_: k for k, v_ in ORDER.items()}
    a = lo
    va = v(lo)
    vb = v(hi)
    while va < vb:
        b = hi
        # find smallest RTT with verdict > va
        while b - a > tol_ns:
            m = (a + b) // 2
            if v(m) > va:
                b = m
            else:
                a = m
        reps = cache[b][1]
        opts = Counter(r.first_timer_option for r in reps if r.first_timer_option)
        timer = opts.most_common(1)[0][0] if opts else None
        detail = next((r.first_timer_tripped for r in reps if r.first_timer_option == timer), None)
        out.append(Threshold(names[va], names[v(b)], a, b, timer, detail))
        a, va = b, v(b)
    return out
