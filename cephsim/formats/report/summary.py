"""From a :class:`~cephsim.model.runner.RunResult` to fio-style statistics and the breakdown.

- ``job_stats``: one fio job (as with ``group_reporting``) per run, read and
  write directions computed exactly as fio does (:mod:`cephsim.formats.report.fio_stats`),
  the job's options as fio lists them and its CPU use (``fio_cpu``).
- ``breakdown``: where the time of the measured ops went, along each op's
  critical path (network, CPU work, C-state wake penalties, disk, queueing:
  these add up to the mean latency), plus the mean time between consecutive
  op-tracker events at the primary (as ``dump_historic_ops`` would show them).
- ``result_document``: the fio-compatible JSON with a ``cephsim`` object.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from cephsim import __version__
from cephsim.formats.report.assumptions import assumptions
from cephsim.formats.report.fio_json import (
    MIXED_RW,
    fio_json,
    format_time,
    report_time_ms,
)
from cephsim.formats.report.fio_stats import DirectionStats, JobStats
from cephsim.metrics.records import CATEGORIES
from cephsim.model.resolve import resolved_dict
from cephsim.model.runner import RunResult


def job_stats(res: RunResult) -> JobStats:
    w = res.scenario.workload
    dirs: dict[str, DirectionStats | None] = {"read": None, "write": None}
    for name, is_write in (("write", True), ("read", False)):
        d = res.records.direction(is_write)
        if d is not None:  # the running statistics give what fio computes from every op
            dirs[name] = DirectionStats.from_sums(d, sync_io=w.sync_io, bs_bytes=w.bs,
                                                  runtime_ns=res.runtime_ns)
    usr, sys_ = fio_cpu(res)
    return JobStats(jobname=res.scenario.name, rw=w.rw, bs=w.bs, iodepth=w.iodepth,
                    numjobs=w.numjobs, ioengine=w.fio_ioengine, runtime_ns=res.runtime_ns,
                    read=dirs["read"], write=dirs["write"], usr_cpu=usr, sys_cpu=sys_,
                    rwmixread=w.rwmixread if w.rw in MIXED_RW else None,
                    job_options=run_options(res))


def run_options(res: RunResult) -> dict[str, str]:
    """The run's length as fio options: the user's ``runtime`` (not the measured time,
    which is ``job_runtime``), ``time_based`` when the runtime alone ends the run (with
    run.ios too, whichever comes first ends it, as fio's runtime with a size), and
    ``ramp_time``.  A run ended by a number of I/Os has no fio option of its own (fio's
    number_ios counts per job and the ramp in)."""
    run = res.scenario.run
    out: dict[str, str] = {}
    if run.runtime is not None:
        if run.ios is None:
            out["time_based"] = "1"
        out["runtime"] = format_time(run.runtime)
    if run.ramp_time:
        out["ramp_time"] = format_time(run.ramp_time)
    return out


def fio_cpu(res: RunResult) -> tuple[float, float]:
    """``usr_cpu``, ``sys_cpu``: the fio job threads' CPU time in user space and in the
    kernel, % of the run, as fio reports them for ``group_reporting`` jobs.

    fio takes each job thread's own CPU time (``getrusage(RUSAGE_THREAD)``; librbd's and
    the kernel client's threads are not in it) over the job's run time, and with
    group_reporting adds both up over the jobs: the mean over the jobs here.  What is
    simulated is each fio thread's busy time (``app`` of each client job: submit and reap
    for every I/O, the wake-ups, and on a deep idle state the exit latency, which Linux
    would count as idle) over the simulated time up to the run's end, warm-up included
    (the model keeps one running total per thread).

    What is derived is the split: the thread's work per I/O, by the stages' costs, is in
    user space where the engine is a library in fio's process (rbd, rados: fio's own
    work, rbd_aio_write or librados' Objecter, reaping the completion) and in the kernel
    where it is a system call (krbd, CephFS: io_submit/io_getevents or pwrite into the
    block layer); the model does not cost fio's own bookkeeping apart from the call it
    makes, so there usr stays 0.  Each I/O's completion is taken to wake the thread from
    its sleep in the reap call (scheduler work, in the kernel): so it is at one I/O in
    flight per job; with more, the thread is sometimes still busy and sys is an upper
    bound.
    """
    cluster = res.cluster
    jobs = getattr(cluster, "jobs", None) or []
    if not jobs:
        return 0.0, 0.0
    end = max(res.sim_end_ns, res.records.last_complete(), *(j.app.free_at for j in jobs))
    busy = sum(min(1.0, j.app.busy_ns / end) for j in jobs) / len(jobs) if end > 0 else 0.0
    costs = res.resolved.ceph.costs
    engine = res.scenario.workload.engine
    calls = costs.cost("client.submit") + costs.cost("client.complete")
    wake = costs.cost("kernel.wakeup")
    if engine in ("rbd", "rados"):
        user = calls + (costs.cost("client.objecter") if engine == "rados" else 0.0)
        kernel = wake
    else:
        user, kernel = 0.0, calls + wake
    share = user / (user + kernel) if user + kernel > 0 else 0.0
    return 100.0 * busy * share, 100.0 * busy * (1.0 - share)


def breakdown(res: RunResult) -> dict[str, Any] | None:
    if not res.records.keep:
        return None
    out: dict[str, Any] = {}
    for name, is_write in (("write", True), ("read", False)):
        d = res.records.direction(is_write)
        if d is None:
            continue
        n = d.n
        ev = d.ev

        def mean_us(total: int, n: int = n) -> float:  # the mean over this direction's ops
            return round(total / n / 1e3, 3)

        cats = {c: round(d.acc[i] / n / 1e3, 3) for i, c in enumerate(CATEGORIES)}
        stages = {"submit -> initiated": mean_us(ev[0] - d.submit),
                  "initiated -> queued_for_pg": mean_us(ev[1] - ev[0]),
                  "queued_for_pg -> reached_pg": mean_us(ev[2] - ev[1])}
        if name == "write":
            stages["reached_pg -> waiting for subops"] = mean_us(ev[4] - ev[2])
            stages["waiting for subops -> op_commit"] = mean_us(ev[5] - ev[4])
            if res.scenario.pool.size > 1:  # with one copy there are no replica replies
                stages["waiting for subops -> sub_op_commit_rec "
                       "(last)"] = mean_us(ev[6] - ev[4])
            stages["last commit -> commit_sent"] = mean_us(ev[7] - d.ev_commit_last)
        else:
            stages["reached_pg -> commit_sent"] = mean_us(ev[7] - ev[2])
        stages["commit_sent -> client completion"] = mean_us(d.complete - ev[7])
        out[name] = {"mean_latency_us": round(d.lat.s1 / n / 1e3, 3),
                     "critical_path_us": cats, "op_tracker_us": stages}
    return out


def tracker_intervals(ev: np.ndarray, submit: np.ndarray, complete: np.ndarray, write: bool,
                      replicas: bool) -> dict[str, np.ndarray]:
    """The time between consecutive op-tracker events at the primary (ns), per op: rows of
    ``ev`` (:data:`cephsim.model.writepath.EVENTS`), each op's submission and completion.
    ``replicas``: the pool has other copies to wait for (size > 1)."""
    stages = {"submit -> initiated": ev[:, 0] - submit,
              "initiated -> queued_for_pg": ev[:, 1] - ev[:, 0],
              "queued_for_pg -> reached_pg": ev[:, 2] - ev[:, 1]}
    if write:
        last = np.maximum(ev[:, 5], ev[:, 6])
        stages["reached_pg -> waiting for subops"] = ev[:, 4] - ev[:, 2]
        stages["waiting for subops -> op_commit"] = ev[:, 5] - ev[:, 4]
        if replicas:  # with one copy there are no replica replies
            stages["waiting for subops -> sub_op_commit_rec (last)"] = ev[:, 6] - ev[:, 4]
        stages["last commit -> commit_sent"] = ev[:, 7] - last
    else:
        stages["reached_pg -> commit_sent"] = ev[:, 7] - ev[:, 2]
    stages["commit_sent -> client completion"] = complete - ev[:, 7]
    return stages


def _mean_us(x: np.ndarray) -> float:
    return round(float(x.mean()) / 1e3, 3) if x.size else 0.0


def result_document(res: RunResult, plus: bool = False,
                    overrides: Sequence[str] = (),
                    timestamp_ms: int | None = None) -> dict[str, Any]:
    """fio's JSON of the run with a ``cephsim`` object; timestamped now (or at
    ``SOURCE_DATE_EPOCH``, or ``timestamp_ms``)."""
    doc = fio_json([job_stats(res)], plus=plus, fio_version=f"cephsim-{__version__}",
                   timestamp_ms=report_time_ms() if timestamp_ms is None else timestamp_ms)
    scenario = res.scenario.model_dump(mode="json", by_alias=True)
    scenario["run"]["seed"] = res.seed  # after --seed too, the embedded scenario reruns this run
    doc["cephsim"] = {
        "version": __version__,
        "seed": res.seed,
        "scenario": scenario,
        # what decides the answer, given or assumed (``overrides``: the --set texts)
        "assumptions": assumptions(res.scenario, res.resolved, overrides),
        "resolved": resolved_dict(res.resolved),
        "breakdown": breakdown(res),
        "utilization": res.utilization,
        "cpu_cores": res.cpu_cores,
        "cpu_clock": res.cpu_clock,
        "power": res.power,
        "caches": res.caches,
        "saturation": res.saturation,
        "io_counts": res.io_counts,
        "engine": {**res.engine, "kernel_steps": res.kernel_steps, "simpy_events": res.simpy_events,
                   "simulated_ns": res.sim_end_ns},
        "warnings": res.warnings,
        "monitors": (None if res.monitors is None else
                     {**res.monitors.model_dump(mode="json"),
                      "network": res.resolved.monitors.describe()}),
    }
    return doc


def breakdown_text(res: RunResult) -> str:
    b = breakdown(res)
    if not b:
        return "  (per-op records were off: run.records=false)\n"
    lines = []
    for name, d in b.items():
        total = d["mean_latency_us"]
        lines.append(f"  {name}: mean latency {total:.1f} us along the critical path:")
        for cat, us in d["critical_path_us"].items():
            share = 100 * us / total if total else 0.0
            bar = "#" * int(round(share / 2.5))
            label = {"cpu": "CPU work", "wake": "C-state wake-ups", "queue": "queueing"}.get(cat, cat)
            lines.append(f"    {label:<18} {us:9.1f} us  {share:5.1f}%  {bar}")
        lines.append("    op-tracker (primary), mean time between events:")
        for st, us in d["op_tracker_us"].items():
            lines.append(f"      {st:<44} {us:9.1f} us")
    return "\n".join(lines) + "\n"


def saturation_text(res: RunResult) -> str:
    """One "saturated:" line (or the busiest resource) and the top utilisations."""
    sat = getattr(res, "saturation", None) or {}
    top = sat.get("busiest") or []
    if not top:
        return ""
    s = sat.get("saturated")
    if s:
        head = f"saturated: {s['resource']} ({s['kind']}, {100 * s['utilization']:.0f}% busy)"
    else:
        head = (f"saturated: none (busiest {top[0]['resource']}, {top[0]['kind']}, "
                f"{100 * top[0]['utilization']:.0f}% busy)")
    rest = ", ".join(f"{x['resource']} {100 * x['utilization']:.0f}%" for x in top)
    return f"{head}\n  utilisation (busiest first): {rest}\n" + cpu_text(res)


def cpu_text(res: RunResult) -> str:
    """One line: cores busy per OSD daemon (mean and range) and on each client host."""
    cpu = res.cpu_cores
    osds = list((cpu.get("osds") or {}).values())
    if not osds:
        return ""
    n = len(osds)
    line = f"  CPU, cores busy (top's %CPU / 100): OSD daemons {sum(osds) / n:.2f} each"
    if n > 1:
        line += f" ({min(osds):.2f}-{max(osds):.2f}, {n} daemons)"
    clients = cpu.get("clients") or {}
    if clients:
        line += "; client side: " + ", ".join(f"{h} {c:.2f}" for h, c in clients.items())
    return line + "\n" + clock_text(res)


def clock_text(res: RunResult) -> str:
    """One line when busy cores held some host's boost clock down noticeably (> 0.5 %)."""
    clk = getattr(res, "cpu_clock", None) or {}
    low = {h: c for h, c in clk.items() if c["mean_ceiling_ghz"] < 0.995 * c["boost_ghz"]}
    if not low:
        return ""
    means = [c["mean_ceiling_ghz"] for c in low.values()]
    first = next(iter(low.values()))
    lo, hi = f"{min(means):.2f}", f"{max(means):.2f}"
    if len(low) == 1:
        span = f"{lo} GHz on {next(iter(low))}"
    else:
        span = f"{lo if lo == hi else f'{lo}-{hi}'} GHz over {len(low)} hosts"
    return (f"  clock ceiling while busy (fewer GHz with more busy cores): {span}"
            f" (boost {first['boost_ghz']:.2f} at one busy core, {first['all_core_ghz']:.2f} at all)\n")
