"""Search the mon<->mon RTT at which the verdict changes (healthy, unstable, broken).

Verdicts are ordered healthy < unstable < broken.  At each RTT the model runs once per seed
and the **majority** verdict counts (ties go to the worse verdict).

The verdict is *not* monotone in RTT everywhere: near a timer boundary the phase between the
RTT and the fixed timers (``mon_lease`` 5 s renewed every 3 s, ``mon_probe_timeout`` 2 s, the
10 s lease-ack and accept timeouts) decides whether a Paxos update lands in time, so a
narrow window can be better than the RTTs on both sides of it (OSiRIS monitors: broken
3.4-4.4 s, unstable 4.6-4.8 s, broken again from 5.0 s).  Plain bisection between ``lo``
and ``hi`` would report one boundary and hide the rest, so the search first scans a
geometric grid of ``points`` RTTs, then bisects every adjacent pair whose verdicts differ,
in either direction, down to ``tol_ns``.  A window narrower than the grid spacing can still
be missed; the caller reports the spacing.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Sequence

from cephsim.spec.monitors import MonitorSpec

from .links import MonNetwork
from .model import simulate_monitors
from .report import MonitorReport

ORDER = {"healthy": 0, "unstable": 1, "broken": 2}
NAMES = {v: k for k, v in ORDER.items()}


@dataclass
class Threshold:
    from_state: str
    to_state: str
    below_rtt_ns: int  #: largest RTT tried with the ``from`` verdict
    above_rtt_ns: int  #: smallest RTT tried with the ``to`` verdict
    timer: str | None  #: most frequent first-tripped option on the worse side
    detail: str | None  #: an example first_timer_tripped sentence

    @property
    def improves(self) -> bool:
        """The verdict gets *better* as the RTT grows across this boundary (not monotone)."""
        return ORDER[self.to_state] < ORDER[self.from_state]


def verdict(spec: MonitorSpec, make_net: Callable[[int], MonNetwork], rtt_ns: int,
            seeds: Sequence[int]):
    reps = [simulate_monitors(spec, make_net(rtt_ns), s) for s in seeds]
    c = Counter(ORDER[r.state] for r in reps)
    best = max(c.items(), key=lambda kv: (kv[1], kv[0]))[0]
    return best, reps


def scan_grid(lo: int, hi: int, points: int) -> list[int]:
    """``points`` RTTs from ``lo`` to ``hi`` (both included), evenly spaced on a log scale."""
    if points < 2:
        raise ValueError("points must be at least 2")
    ratio = _ratio(lo, hi, points)
    grid = [int(round(lo * ratio ** i)) for i in range(points)]
    grid[0], grid[-1] = lo, hi
    return sorted(set(grid))


def _ratio(lo: int, hi: int, points: int) -> float:
    return (hi / lo) ** (1 / (points - 1))


def grid_spacing(lo: int, hi: int, points: int) -> float:
    """Relative step between neighbouring scan points (0.2 = each is 20 % above the last)."""
    return _ratio(lo, hi, points) - 1 if points > 1 else math.inf


def search_changes(verdict_at: Callable[[int], int], lo: int, hi: int, tol_ns: int,
                   points: int) -> list[tuple[int, int]]:
    """Brackets ``(below, above)`` of every verdict change found between ``lo`` and ``hi``.

    Scan ``points`` RTTs, then bisect each pair of neighbours with different verdicts until
    the bracket is at most ``tol_ns`` wide.  Bisection inside a pair can meet a further
    change; it follows the half where the verdict first differs from the lower end, and the
    rest of the pair is searched again from there, so no change it sees is dropped.
    ``verdict_at`` should cache: the same RTT is asked for more than once.
    """
    out: list[tuple[int, int]] = []
    grid = scan_grid(lo, hi, points)
    for g0, g1 in zip(grid, grid[1:]):
        a = g0
        while verdict_at(a) != verdict_at(g1):  # one or more changes inside (a, g1]
            va, b = verdict_at(a), g1
            while b - a > tol_ns:
                m = (a + b) // 2
                if verdict_at(m) != va:
                    b = m
                else:
                    a = m
            out.append((a, b))
            a = b
    return out


@dataclass
class RttVerdict:
    """One RTT the search simulated: the majority verdict and every seed's report."""

    rtt_ns: int
    state: str
    reports: list[MonitorReport]


@dataclass
class ThresholdSearch:
    """What :func:`search_thresholds` found and every RTT it simulated on the way (the
    scan grid and the bisection points, in RTT order): what ``mon-threshold --plot`` draws."""

    thresholds: list[Threshold]
    tried: list[RttVerdict]
    seeds: list[int]
    lo_ns: int
    hi_ns: int
    points: int
    tol_ns: int


def search_thresholds(spec: MonitorSpec, make_net: Callable[[int], MonNetwork],
                      seeds: Sequence[int] = (1, 2, 3), lo: int = 1_000_000,
                      hi: int = 12_800_000_000, tol_ns: int = 100_000_000,
                      points: int = 33) -> ThresholdSearch:
    """Every verdict boundary between ``lo`` and ``hi`` (ns), in RTT order
    (:func:`search_changes`), with the verdicts and reports of every RTT simulated."""
    cache: dict[int, tuple[int, list]] = {}

    def v(r: int) -> int:
        if r not in cache:
            cache[r] = verdict(spec, make_net, r, seeds)
        return cache[r][0]

    out: list[Threshold] = []
    for a, b in search_changes(v, lo, hi, tol_ns, points):
        worse = b if v(b) > v(a) else a  # the timer that matters trips on the worse side
        reps = cache[worse][1]
        opts = Counter(r.first_timer_option for r in reps if r.first_timer_option)
        timer = opts.most_common(1)[0][0] if opts else None
        detail = next((r.first_timer_tripped for r in reps if r.first_timer_option == timer), None)
        out.append(Threshold(NAMES[v(a)], NAMES[v(b)], a, b, timer, detail))
    tried = [RttVerdict(r, NAMES[st], reps) for r, (st, reps) in sorted(cache.items())]
    return ThresholdSearch(out, tried, list(seeds), lo, hi, points, tol_ns)


def find_thresholds(spec: MonitorSpec, make_net: Callable[[int], MonNetwork],
                    seeds: Sequence[int] = (1, 2, 3), lo: int = 1_000_000,
                    hi: int = 12_800_000_000, tol_ns: int = 100_000_000,
                    points: int = 33) -> list[Threshold]:
    """Every verdict boundary between ``lo`` and ``hi`` (ns), in RTT order
    (:func:`search_changes`)."""
    return search_thresholds(spec, make_net, seeds, lo, hi, tol_ns, points).thresholds
