"""Measurements of a monitor-cluster run and the verdict (healthy / unstable / broken).

Times in the report are seconds (floats) for readability; the model runs in integer ns.

* quorum availability: fraction of sampled instants (every 100 ms) at which some mon is
  leader, its Paxos has finished recovery and its own lease is valid (it can serve reads;
  ``Paxos::is_readable`` on the leader).
* elections per hour: election victories after the first quorum, per simulated hour.
* time to form quorum: first recovered quorum after t=0, and median length of the gaps
  without a recovered quorum afterwards.
* ``first_timer_tripped``: the first *hard* timer that fired (one that tears the quorum
  down or fails a connection), as a sentence naming the Ceph option; ``timer_trips``
  counts all trips by option name (soft ones included: probe, hunt, session drop).
"""

from __future__ import annotations

import statistics
from collections import Counter
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field


class CommandStats(BaseModel):
    model_config = ConfigDict(extra="forbid")
    attempts: int = Field(description="Commands that finished (success or timeout).")
    success_rate: float = Field(description="Fraction that succeeded before their timeout.")
    latency_mean_s: float | None = Field(description="Mean latency of successful commands.")
    latency_p50_s: float | None = Field(description="Median latency of successful commands.")
    latency_p99_s: float | None = Field(description="99th percentile latency of successful "
            "commands.")


class MonitorReport(BaseModel):
    model_config = ConfigDict(extra="forbid")
    state: Literal["healthy", "unstable", "broken"] = Field(description=
            "Verdict per spec.thresholds.")
    reasons: list[str] = Field(description="Which thresholds decided the verdict.")
    duration_s: float = Field(description="Simulated time.")
    quorum_availability: float = Field(description="Fraction of time with a leader holding a valid "
            "lease.")
    elections_per_hour: float = Field(description="Election victories after the first quorum, per "
            "hour.")
    elections: int = Field(description="Election victories after the first quorum.")
    time_to_first_quorum_s: float | None = Field(description="From t=0 to the first recovered "
            "quorum.")
    median_time_to_reform_s: float | None = Field(description="Median gap without a recovered "
            "quorum after the first.")
    commands: dict[str, CommandStats] = Field(description="Per command kind.")
    first_timer_tripped: str | None = Field(description="First hard timer that fired, naming the "
            "Ceph option.")
    first_timer_option: str | None = Field(description="Option name of first_timer_tripped.")
    timer_trips: dict[str, int] = Field(description="Trips by Ceph option name.")
    counters: dict[str, int] = Field(description="Commits, bootstraps, retransmitted segments, "
            "connection set-ups...")
    proposal_bytes_mean: float | None = Field(description="Mean Paxos value size proposed.")


class Recorder:
    def __init__(self, env, spec):
        self.env, self.spec = env, spec
        self.trips: Counter = Counter()
        self.first_trip: tuple[str, str] | None = None
        self.counters: Counter = Counter()
        self.victories: list[int] = []
        self.cmds: dict[str, list[tuple[bool, int]]] = {}
        self.samples_ok = 0
        self.samples = 0
        self.quorum_up: list[int] = []
        self.quorum_gaps: list[int] = []
        self.first_quorum: int | None = None
        self.proposals: list[int] = []
        self.max_epoch = 0

    def trip(self, option: str, sentence: str, hard: bool = True) -> None:
        self.trips[option] += 1
        if hard and self.first_trip is None:
            self.first_trip = (option, sentence)

    def count(self, key: str, n: int = 1) -> None:
        self.counters[key] += n

    def note_epoch(self, e: int) -> None:
        self.max_epoch = max(self.max_epoch, e)

    def victory(self, now: int) -> None:
        self.victories.append(now)

    def proposal(self, size: int) -> None:
        self.proposals.append(size)

    def command(self, name: str, ok: bool, latency_ns: int) -> None:
        self.cmds.setdefault(name, []).append((ok, latency_ns))

    def sampler(self, cluster):
        step = 100_000_000
        was_up, down_since = False, 0
        while True:
            ldr = cluster.leader
            rec_ok = ldr is not None and ldr.state == "leader" and ldr.pstate != "recovering"
            ok = rec_ok and ldr.is_readable()
            self.samples += 1
            self.samples_ok += ok
            if rec_ok and not was_up:
                if self.first_quorum is None:
                    self.first_quorum = self.env.now
                else:
                    self.quorum_gaps.append(self.env.now - down_since)
            if was_up and not rec_ok:
                down_since = self.env.now
            was_up = rec_ok
            yield self.env.timeout(step)

    def report(self, cluster) -> MonitorReport:
        dur_s = self.spec.duration / 1e9
        after = [v for v in self.victories if self.first_quorum is not None and v > self.first_quorum]
        eph = len(after) / (dur_s / 3600.0)
        avail = self.samples_ok / max(1, self.samples)
        cmds = {}
        for name, rs in self.cmds.items():
            lat = np.array([lt for ok, lt in rs if ok], dtype=float) / 1e9
            cmds[name] = CommandStats(
                attempts=len(rs), success_rate=sum(ok for ok, _ in rs) / len(rs),
                latency_mean_s=float(lat.mean()) if lat.size else None,
                latency_p50_s=float(np.percentile(lat, 50)) if lat.size else None,
                latency_p99_s=float(np.percentile(lat, 99)) if lat.size else None)
        th = self.spec.thresholds
        reasons: list[str] = []
        state = "healthy"
        bad = [n for n, c in cmds.items() if c.success_rate < th.broken_min_success]
        if bad:
            state = "broken"
            reasons.append(f"commands failing: {', '.join(bad)} (success < {th.broken_min_success:g})")
        if self.first_quorum is None:
            state = "broken"
            reasons.append("no quorum ever formed")
        if state != "broken":
            if eph > th.unstable_elections_per_hour:
                state = "unstable"
                reasons.append(f"{eph:.1f} elections/h > {th.unstable_elections_per_hour:g}")
            if avail < th.unstable_min_availability:
                state = "unstable"
                reasons.append(f"quorum availability {avail:.3f} < {th.unstable_min_availability:g}")
        counters = dict(self.counters)
        counters["retransmitted_segments"] = cluster.msgr.retransmits()
        counters["rto_events"] = sum(s.rto_events for s in cluster.msgr.streams.values())
        counters["connection_setups"] = cluster.msgr.connects
        counters["connection_setup_failures"] = cluster.msgr.connect_failures
        counters["max_election_epoch"] = self.max_epoch
        return MonitorReport(
            state=state, reasons=reasons, duration_s=dur_s, quorum_availability=avail,
            elections_per_hour=eph, elections=len(after),
            time_to_first_quorum_s=None if self.first_quorum is None else self.first_quorum / 1e9,
            median_time_to_reform_s=(statistics.median(self.quorum_gaps) / 1e9
                                     if self.quorum_gaps else None),
            commands=cmds,
            first_timer_tripped=self.first_trip[1] if self.first_trip else None,
            first_timer_option=self.first_trip[0] if self.first_trip else None,
            timer_trips=dict(self.trips), counters=counters,
            proposal_bytes_mean=float(np.mean(self.proposals)) if self.proposals else None)


def text_report(r: MonitorReport) -> str:
    def secs(x: float | None, unit: str = " s") -> str:  # a bare dash (not "- s") for none
        return "-" if x is None else f"{x:.2f}{unit}"

    def col(x: float | None) -> str:
        return f"{secs(x, 's'):>8}"

    lines = [
        f"monitor cluster: {r.state.upper()}"
        + (f"  ({'; '.join(r.reasons)})" if r.reasons else ""),
        f"  simulated            {r.duration_s:.0f} s",
        f"  quorum availability  {r.quorum_availability:.3f}",
        f"  elections            {r.elections} ({r.elections_per_hour:.1f}/h)",
        f"  first quorum after   {secs(r.time_to_first_quorum_s)}; median re-form "
        f"{secs(r.median_time_to_reform_s)}",
        "  commands             success  mean     p50      p99",
    ]
    for n, c in r.commands.items():
        lines.append(f"    {n:<19}{c.success_rate:>6.0%}  {col(c.latency_mean_s)} {col(c.latency_p50_s)} "
                     f"{col(c.latency_p99_s)}  (n={c.attempts})")
    lines.append(f"  first timer tripped  {r.first_timer_tripped or 'none'}")
    if r.timer_trips:
        lines.append("  timer "
                     "trips     "
                     "     " + ", ".join(f"{k}={v}" for k, v in sorted(r.timer_trips.items())))
    lines.append("  counters       "
                 "      " + ", ".join(f"{k}={v}" for k, v in sorted(r.counters.items())))
    return "\n".join(lines)
