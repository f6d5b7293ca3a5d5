"""Run a scenario: resolve, build, simulate, summarise.

``run_scenario(scenario) -> RunResult``.  The result holds fio-style
statistics per direction, the per-op records (when kept), the critical-path
breakdown and resource utilisation, and everything needed to reproduce it
(resolved scenario, seed, versions).
"""

from __future__ import annotations

import gc
import heapq
import os
import platform
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np
import simpy

from cephsim import __version__
from cephsim.errors import CephsimError
from cephsim.metrics.records import Recorder
from cephsim.model.components.cluster import Cluster
from cephsim.model.engine.draw import Jitter as _Jitter, Sampler
from cephsim.model.engine.kernel import Kernel
from cephsim.model.resolve import (
    Resolved,
    bluefs_buffered_io_default,
    kernel_governor,
    memory_estimate,
    resolve,
)
from cephsim.model.rng import Streams
from cephsim.model.workload import Workload
from cephsim.model.writepath import Op, Protocol
from cephsim.monitors import simulate_monitors
from cephsim.monitors.wan import (
    data_loss_sources,
    loss_warnings,
    monitor_warnings,
    site_warnings,
    window_warnings,
)
from cephsim.scenario.schema import Scenario
from cephsim.units import format_duration, format_size


@dataclass
class RunResult:
    """Everything a run produced."""

    resolved: Resolved
    seed: int
    records: Recorder
    runtime_ns: int  #: measured window (after ramp)
    sim_end_ns: int
    wall_s: float
    kernel_steps: int
    simpy_events: int
    #: of the steps, generator resumptions, and the forced ones among them (a yield that
    #: waited because another continuation was due first): what the fast path could not fold
    kernel_resumes: int = 0
    kernel_forced: int = 0
    utilization: dict[str, float] = field(default_factory=dict)
    #: cores busy per daemon: {"osds": {"osd.0": ...}, "clients": {host: ...}[, "routers"]}
    cpu_cores: dict[str, dict[str, float]] = field(default_factory=dict)
    #: per host whose chip boosts less with more busy cores: its one-core and all-core
    #: ceilings and the ceiling its busy core time ran under on average (GHz)
    cpu_clock: dict[str, dict[str, float]] = field(default_factory=dict)
    #: per host group: cpufreq driver, governor (the kernel's name; clock_picked_by: hwp or
    #: intel_pstate under a P-state driver's powersave), idle states allowed, and the
    #: mean clock its work ran at (GHz): what decides the CPU part of the answer
    power: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: BlueStore's caches against the workload: objects per OSD, onodes and blocks cached,
    #: and the hit ratios the run saw (onode cache per lookup, block cache per get)
    caches: dict[str, Any] = field(default_factory=dict)
    #: the busiest resources, busiest first, and whether the top one saturated
    saturation: dict[str, Any] = field(default_factory=dict)
    #: I/O accounting at the stop: issued == completed + in_flight (nothing lost)
    io_counts: dict[str, int] = field(default_factory=dict)
    engine: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    monitors: Any = None  #: :class:`cephsim.monitors.MonitorReport` when the scenario has monitors
    #: the simulated components as the run left them (threads, disks, ports), for inspection
    cluster: Any = field(default=None, repr=False, compare=False)

    @property
    def iops(self) -> float:
        """Measured I/Os per second of the measured window (after ramp)."""
        return self.records.count() / (self.runtime_ns / 1e9)

    @property
    def scenario(self) -> Scenario:
        return self.resolved.scenario


#: a quiet stretch (no event at all) longer than this skips the stalls it would hold
QUIET_NS = 60 * 10**9


def _stall_process(env: simpy.Environment, threads: list[Any], rate_hz: float,
                   durs: list[Sampler], gaps: list[np.random.Generator],
                   window_ns: int):  # noqa: ANN202 - SimPy process
    """SimPy process: background work (RocksDB flush/compaction) stalls each OSD's
    bstore_kv_sync at the times of a Poisson process of its own (``gaps``, ``durs``: its
    streams).

    One process serves every OSD so that, when it wakes, the earliest event left in the
    queue is the next thing that happens: through a quiet stretch longer than QUIET_NS
    (a message waiting out TCP's backed-off resends) an idle thread's stalls that end long
    before that event are skipped instead of simulated one by one, and the Poisson process
    restarts ``window_ns`` before the event (it is memoryless, so the event meets the
    stalls it would have met, unless a chain of stalls longer than the window runs into
    it).  Otherwise the work would grow with simulated time, not with what happens."""
    mean_gap_ns = 1e9 / rate_hz
    due = [(int(g.exponential(mean_gap_ns)) + 1, i) for i, g in enumerate(gaps)]
    heapq.heapify(due)
    while True:
        t, i = due[0]
        if t > env.now:
            yield env.timeout(t - env.now)
        heapq.heappop(due)
        threads[i].block(t, durs[i].draw())
        nxt = t + int(gaps[i].exponential(mean_gap_ns)) + 1
        queue = env._queue
        if queue and window_ns:
            horizon = queue[0][0] - window_ns  # stalls that end before it touch nothing
            if horizon - nxt > QUIET_NS and threads[i].free_at <= nxt:
                nxt = horizon + int(gaps[i].exponential(mean_gap_ns)) + 1
        heapq.heappush(due, (nxt, i))


#: Simulated time without one completed I/O after which a run gives up.  The scenario
#: checks keep every delay under 10 s and every service time under 30 s, so an hour
#: without a completion means the model stalled (an I/O lost, a wait never ended): a
#: safety net that turns it into an error, where background processes (kv stalls) would
#: otherwise keep the run going for ever.  A long but moving run is never stopped.
STALL_NS = 3_600 * 10**9


def _watchdog(env: simpy.Environment, completed: Callable[[], int],
              give_up: Callable[[], None]):  # noqa: ANN202 - SimPy process
    seen = -1
    while True:
        yield env.timeout(STALL_NS)
        now = completed()
        if now == seen:  # a whole STALL_NS without a completion
            give_up()
            return
        seen = now


#: how often (in completed I/Os, warm-up included) a run compares the memory its process
#: holds with run.max_memory; one reading is a system call of a few microseconds
MEMORY_CHECK_EVERY = 4096


def resident_bytes() -> int:
    """The memory this process holds now (Linux: /proc/self/statm), else its peak so far
    (getrusage), else 0 where neither exists."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError, AttributeError):
        pass
    try:
        import resource
    except ImportError:  # Windows
        return 0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024  # bytes on macOS, KiB on Linux


def _over_memory(scenario: Scenario, path: str | Path | None, held: int, done: int) -> CephsimError:
    return CephsimError.single(
        f"the run stopped after {done:,} I/Os: its process held {held / 2**20:,.0f} MiB of "
        f"memory, over run.max_memory {format_size(scenario.run.max_memory)} (estimated "
        f"{memory_estimate(scenario) / 2**20:,.0f} MiB before it started); nothing was written: "
        "lower workload.iodepth, workload.numjobs or the cluster's size, or raise run.max_memory",
        file=str(path) if path else None, path="run.max_memory")


class DeferredInterrupt:
    """Ctrl-C during the simulation, taken at a step boundary rather than where it lands.

    Python raises KeyboardInterrupt wherever the interpreter next checks for signals, and
    CPython checks inside some C routines too: big-integer multiplication checks between
    digit rows (longobject.c's SIGCHECK).  Compiled (mypyc) code calls that routine for
    an int product past 2**62 and takes its failure for memory exhaustion: it prints
    "fatal: out of memory" and aborts the process (an early build did, 5 times in 6).
    So while the loop runs, SIGINT only marks the interrupt pending; the loop ends at the
    next step and the KeyboardInterrupt is raised here, in plain Python, after the
    previous handler is back.  Only in the main thread (the only one signals reach), and
    only over Python's own handler: workers that ignore SIGINT, or a caller's own
    handler, are left alone."""

    def __init__(self) -> None:
        self.pending = False
        self._old: Any = None

    def __enter__(self) -> DeferredInterrupt:
        import signal
        import threading

        if (threading.current_thread() is threading.main_thread()
                and signal.getsignal(signal.SIGINT) is signal.default_int_handler):
            self._old = signal.signal(signal.SIGINT, self._mark)
        return self

    def _mark(self, signum: int, frame: Any) -> None:
        self.pending = True

    def __exit__(self, exc_type: Any, *exc: object) -> None:
        import signal

        if self._old is not None:
            signal.signal(signal.SIGINT, self._old)
            self._old = None
        if self.pending and exc_type is None:
            raise KeyboardInterrupt


def run_scenario(scenario: Scenario, *, scenario_path: str | Path | None = None,
                 seed: int | None = None, resolved: Resolved | None = None,
                 trace_ops: set[int] | None = None,
                 progress: Callable[[int], None] | None = None,
                 keep_ops: bool = True) -> RunResult:
    """Simulate a scenario.  ``trace_ops``: op sequence numbers to trace span by span
    (``RunResult.records.traces``); tracing never changes the results.  ``progress`` is
    called now and then with the work done: measured I/Os (run.ios) or simulated ms
    (run.runtime), out of :func:`progress_total`.  ``keep_ops``: keep every measured op
    (``RunResult.records.arrays()``); without it the run's memory does not grow with its
    length (the reports read running statistics; a scenario with netem loss keeps them
    anyway, for its warning's exact median and p99)."""
    r = resolved or resolve(scenario, scenario_path)
    run = scenario.run
    seed = run.seed if seed is None else seed
    streams = Streams(seed)
    env = simpy.Environment()
    kernel = Kernel(env, fast=run.fast_path)
    cluster = Cluster(r, streams)
    costs = r.ceph.costs
    proto = Protocol(cluster, kernel, _Jitter(costs.cpu_jitter_sigma, streams.get("cpu.jitter")))

    rec = Recorder(keep_records=run.records, keep_ops=keep_ops or bool(data_loss_sources(r)))
    budget = run.max_memory
    held = resident_bytes()  # the cluster is built: the largest part of a big one's memory
    if held > budget:
        raise _over_memory(scenario, scenario_path, held, 0)

    ramp_ios, ramp_ns = run.ramp_ios, run.ramp_time
    target = run.ios
    horizon = None
    state = {"issued_done": 0, "measured": 0, "t_first": None, "stop": False, "overrun": False,
             "held": 0}

    def stop() -> None:
        state["stop"] = True
        kernel.halt()  # in-flight I/Os are not completed or counted

    def on_complete(op: Op, t: int) -> bool:
        if state["stop"]:
            return False
        state["issued_done"] += 1
        if not state["issued_done"] % MEMORY_CHECK_EVERY:  # the budget holds during the run too
            now = resident_bytes()
            if now > budget:
                state["held"] = now
                stop()
                return False
        if state["issued_done"] <= ramp_ios or op.submit < ramp_ns:
            rec.skip(op.seq)
            return True
        if state["t_first"] is None:
            state["t_first"] = op.submit
        if horizon is not None and t > horizon_abs():
            stop()
            return False
        rec.add(op, t)
        state["measured"] += 1
        if progress is not None and not state["measured"] & 255:
            progress(state["measured"] if horizon is None else (t - state["t_first"]) // 1_000_000)
        if target is not None and state["measured"] >= target:
            stop()
        return not state["stop"]

    def give_up() -> None:
        state["overrun"] = True
        stop()

    def horizon_abs() -> int:
        return (state["t_first"] or 0) + (run.runtime or 0)

    if run.runtime is not None:  # with run.ios too, whichever comes first ends it (as fio)
        horizon = run.runtime

    if r.ceph.tails and costs.tails.kv_stall_rate_hz > 0:
        osds = list(cluster.osds.values())
        stall = costs.tails.kv_stall
        busy = costs.tails.kv_stall_rate_hz * stall.mean_ns / 1e9
        env.process(_stall_process(
            env, [osd.kv_sync for osd in osds], costs.tails.kv_stall_rate_hz,
            [Sampler(stall, streams.get(f"{osd.name}.stall")) for osd in osds],
            [streams.get(f"{osd.name}.stall.gaps") for osd in osds],
            # the window: 1000 mean stalls, or none where stalls run into each other
            max(10 * 10**9, int(1000 * stall.mean_ns)) if busy < 0.5 else 0))

    env.process(_watchdog(env, lambda: state["issued_done"], give_up))
    wl = Workload(cluster, kernel, proto, on_complete)
    wl.trace = set(trace_ops or ())
    wl.start()
    wall0 = time.perf_counter()
    # The model allocates many short-lived objects (generators, tuples) that reference
    # counting frees; a rarer cyclic GC saves a few per cent and changes no result.
    gc_threshold = gc.get_threshold()
    gc.set_threshold(100_000, 50, 50)
    try:
        # run until the workload stops; background processes never end on their own
        with DeferredInterrupt() as ctrl_c:
            while not state["stop"] and env._queue and not ctrl_c.pending:
                env.step()
    finally:
        gc.set_threshold(*gc_threshold)
    wall = time.perf_counter() - wall0
    if state["held"]:
        raise _over_memory(scenario, scenario_path, state["held"], state["issued_done"])
    if state["overrun"]:
        goal = (f"{target} measured I/Os" if target is not None
                else f"{format_duration(run.runtime or 0)} of measured run time")
        raise CephsimError.single(
            f"the run gave up: {format_duration(STALL_NS)} of simulated time passed without one "
            f"I/O completing ({state['measured']} of {goal} done before, "
            f"{state['issued_done']} I/Os completed in all, ramp included); the scenario's "
            "delays or service times cannot be that long, so the model stalled: please report "
            "it", file=str(scenario_path) if scenario_path else None, path="run")

    if state["measured"] == 0:  # only a runtime shorter than one I/O gets here
        raise CephsimError.single(
            f"no I/O completed within run.runtime {format_duration(run.runtime or 0)} after the "
            f"ramp ({state['issued_done']} completed during the ramp): there is nothing to "
            "report; give a runtime of at least a few I/Os' latency, or run.ios",
            file=str(scenario_path) if scenario_path else None, path="run.runtime")

    mon_report = None
    if r.monitors is not None:  # the monitor cluster, simulated on its own (no data-path I/O)
        mon_report = simulate_monitors(r.monitors.spec, r.monitors.net, seed)
    t_first = state["t_first"] or 0
    t_last = rec.last_complete()
    runtime = max(1, t_last - t_first)
    util = _utilization(cluster, t_last)
    counts = {"issued": wl.issued, "completed": wl.completed,
              "in_flight": wl.issued - wl.completed}
    return RunResult(resolved=r, seed=seed, records=rec, runtime_ns=runtime, sim_end_ns=kernel.now,
                     wall_s=wall, kernel_steps=kernel.steps, simpy_events=kernel.simpy_events,
                     kernel_resumes=kernel.resumes, kernel_forced=kernel.forced,
                     utilization=util, cpu_cores=_daemon_cpu(cluster, t_last),
                     cpu_clock=_clock_ceilings(cluster), power=_power(cluster, r), caches=_caches(cluster, r),
                     saturation=_saturation(cluster, t_last), io_counts=counts,
                     cluster=cluster,
                     engine={"python": platform.python_version(), "simpy": simpy.__version__,
                             "numpy": np.__version__, "cephsim": __version__},
                     warnings=_warnings(rec, r, runtime) + _quota_warnings(cluster, t_last)
                     + loss_warnings(rec, r, cluster.paths) + site_warnings(r, cluster.acting)
                     + window_warnings(cluster.paths, wl.issued, rec, r.network.tcp)
                     + monitor_warnings(mon_report),
                     monitors=mon_report)


def progress_total(scenario: Scenario) -> int:
    """The total that ``run_scenario``'s ``progress`` counts towards."""
    run = scenario.run
    return run.ios if run.ios is not None else (run.runtime or 0) // 1_000_000


def _utilization(cluster: Cluster, t_end: int) -> dict[str, float]:
    """Busy fraction of the main resources over the whole simulated time (0..1).

    Cores: the busy fraction of a core set (a host's cores, or the OSDs' cpuset
    ``<host>.osd_cpu`` when ``osd_cores`` is set and ``<host>.cpu`` the rest, or the
    ``client_cores`` cpuset).  Disks: busy channel time over
    all channels (a flush holds all of them).  ``<osd>.kv_sync``: the single
    bstore_kv_sync thread.  Network: each transmit port (host NIC members
    ``<host>.nicN.tx``, in a routed full mesh ``<host>.nic-<peer>.tx``, switch ports
    towards hosts, spine/leaf ports), the
    serialisation time of the frames it sent.  Work reserved past the last
    completion is clipped at 1.
    """
    out: dict[str, float] = {}
    span = max(1, t_end)

    def put(name: str, busy: float) -> None:
        out[name] = round(min(1.0, busy / span), 6)

    for name, cs in cluster.coresets.items():
        put(name, cs.busy_ns / len(cs.cores))
    for d in cluster.disks():
        put(d.name, _disk_busy_ns(d))
    for osd in cluster.osds.values():
        put(f"{osd.name}.kv_sync", osd.kv_sync.busy_ns)
    for p in _ports(cluster):
        if p.busy_ns:
            put(p.name, p.busy_ns)
    for q in cluster.quotas.values():  # CPU time used of what the quota allows
        put(q.name, q.charged_ns / q.limit)
    return dict(sorted(out.items()))


def _daemon_cpu(cluster: Cluster, t_end: int) -> dict[str, dict[str, float]]:
    """Cores busy per daemon over the run, like ``top``'s %CPU / 100: each OSD's own
    threads (messenger workers, op shards, BlueStore threads), the client side of each
    host (fio, librbd/librados or kernel client threads), each software router.

    Kernel work done on a thread's behalf (syscalls, TCP, block layer) is part of its
    runs and counts here; C-state exits count as busy, as the core is not idle.  The
    window runs to the end of the last work any core has reserved, so a cpuset of N
    cores never shows more than N.
    """
    reserved = max((c.busy_until for cs in cluster.coresets.values() for c in cs.cores),
                   default=0)
    span = max(1, t_end, reserved)
    osds: dict[str, float] = {}
    on_osds: set[int] = set()
    for osd in sorted(cluster.osds.values(), key=lambda o: o.id):
        threads = osd.threads()
        on_osds.update(id(t) for t in threads)
        osds[f"osd.{osd.id}"] = round(sum(t.busy_ns for t in threads) / span, 3)
    clients: dict[str, float] = {}
    routers: dict[str, float] = {}
    for name, cs in cluster.coresets.items():
        busy = sum(t.busy_ns for t in cs.threads if id(t) not in on_osds)
        if not busy:
            continue
        owner = name.rsplit(".", 1)[0]
        into = clients if owner in cluster.host_cores else routers  # a spine's softirq
        into[owner] = round(into.get(owner, 0.0) + busy / span, 3)
    out = {"osds": osds, "clients": clients}
    if routers:
        out["routers"] = routers
    return out


def _clock_ceilings(cluster: Cluster) -> dict[str, dict[str, float]]:
    """The boost ceiling each host's busy cores ran under (hosts whose chip has an all-core
    drop and did any work)."""
    out: dict[str, dict[str, float]] = {}
    for host, (osd, rest) in cluster.host_cores.items():
        sockets = [p for p in dict.fromkeys(osd.packages + rest.packages) if p.drop]
        busy = sum(p.busy_ns for p in sockets)
        if busy:  # the sockets' ceilings, weighted by their busy core time
            first = sockets[0]
            out[host] = {"boost_ghz": round(first.max_hz / 1e9, 3),
                         "all_core_ghz": round(first.all_core_hz / 1e9, 3),
                         "mean_ceiling_ghz": round(sum(p.hz_ns for p in sockets) / busy / 1e9, 3)}
    return out


def _power(cluster: Cluster, r: Resolved) -> dict[str, dict[str, Any]]:
    """What decides a host group's CPU speed: the cpufreq driver, the governor (as the
    kernel names it) and who picks the clock under it, the idle states allowed, and the
    clock its work ran at on average (GHz, busy time weighted; wake-up exits not counted)."""
    out: dict[str, dict[str, Any]] = {}
    for h in r.hosts:
        c = h.cpu
        governor, by = kernel_governor(c.governor)
        g = out.setdefault(h.group, {"cpufreq_driver": c.cpufreq_driver, "governor": governor,
                                     "clock_picked_by": by,
                                     "idle_states": [s.name for s in c.cstates],
                                     "_kc": 0.0, "_ns": 0})
        for cs in dict.fromkeys(cluster.host_cores[h.name]):
            g["_kc"] += sum(t.kc for t in cs.threads) / cs.per_clock
            g["_ns"] += sum(t.busy_ns for t in cs.threads) - cs.wake_ns
    for g in out.values():
        kc, ns = g.pop("_kc"), g.pop("_ns")
        g["mean_clock_ghz"] = round(kc * 1e3 / ns, 3) if ns > 0 else None
    return out


def _caches(cluster: Cluster, r: Resolved) -> dict[str, Any]:
    """The metadata caches as resolved, and what the run's I/Os found in them (whole run,
    warm-up included): the onode cache per lookup, RocksDB's block cache per get."""
    m = r.ceph.meta
    if m is None:
        return {}
    osds = cluster.osds.values()
    look = sum(o.meta_lookups for o in osds)
    gets = sum(o.kv_gets for o in osds)
    kv, page = sum(o.kv_hits for o in osds), sum(o.page_hits for o in osds)
    hits = sum(o.meta_hits for o in osds)
    pc = {h.name: h.page_cache for h in r.hosts if h.osd_ids}
    mem = {h.name: h.memory or 0 for h in r.hosts if h.osd_ids}
    return {"objects_per_osd": round(m.objects, 1), "onodes_cached": m.onodes,
            "onode_cache_bytes": m.meta_bytes, "block_cache_bytes": m.kv_bytes,
            "objects_in_block_cache": m.kv_objects,
            "onode_lookups": look,
            "onode_hit_ratio": round(hits / look, 4) if look else 1.0,
            "rocksdb_gets": gets,
            "block_cache_hit_ratio": round(kv / gets, 4) if gets else None,
            "data_cache_hit_probability": r.ceph.read_cache_hit,
            # the kernel's page cache under BlueFS: whether BlueFS reads through it, what the
            # OSD hosts' memory leaves for it (least and most over the hosts), and where the
            # run's metadata was found: lookups the onode cache served, then RocksDB gets
            "bluefs_buffered_io": m.buffered_io,
            "bluefs_buffered_io_given": r.scenario.ceph.bluefs_buffered_io is not None,
            "bluefs_buffered_io_default": bluefs_buffered_io_default(
                r.ceph.release, r.scenario.ceph.version)[1],
            "memory_given": any(h.memory_given for h in r.hosts if h.osd_ids),
            "memory_bytes": ([min(mem.values()), max(mem.values())] if mem else [0, 0]),
            "page_cache_bytes": [min(pc.values()), max(pc.values())] if pc else [0, 0],
            "page_cache_hit_ratio": (round(page / (gets - kv), 4) if gets > kv else None),
            "metadata_served": {"onode_cache": hits, "block_cache": kv, "page_cache": page,
                                "device": gets - kv - page}}


def _ports(cluster: Cluster) -> list[Any]:
    ports = list(cluster.ports.values()) + list(getattr(cluster, "sw_ports", {}).values())
    ports += list(getattr(cluster, "spine_ports", {}).values())
    return ports


#: a resource busy at least this fraction of the run is reported as saturated
SATURATED = 0.85


def _saturation(cluster: Cluster, t_end: int) -> dict[str, Any]:
    """Which resource limits throughput: the busiest cores, disk, thread or link.

    Single threads count too (one bstore_kv_sync, a librbd dispatch thread, one
    msgr-worker can cap a run while the host's cores are mostly idle).
    """
    span = max(1, t_end)
    cand: list[tuple[float, str, str]] = []
    for name, cs in cluster.coresets.items():
        cand.append((cs.busy_ns / (span * len(cs.cores)), name, "cpu"))
        for th in cs.threads:
            cand.append((th.busy_ns / span, th.name, "thread"))
    for d in cluster.disks():
        cand.append((_disk_busy_ns(d) / span, d.name, "disk"))
    for p in _ports(cluster):
        cand.append((p.busy_ns / span, p.name, "network"))
    for q in cluster.quotas.values():
        cand.append((q.charged_ns / (span * q.limit), q.name, "cpu quota"))
    seen: set[str] = set()
    top = []
    for u, name, kind in sorted(cand, key=lambda x: -x[0]):
        if name in seen:
            continue
        seen.add(name)
        top.append({"resource": name, "kind": kind, "utilization": round(min(1.0, u), 4)})
        if len(top) == 5:
            break
    sat = bool(top) and top[0]["utilization"] >= SATURATED
    return {"saturated": top[0] if sat else None, "threshold": SATURATED, "busiest": top}


def _quota_warnings(cluster: Cluster, t_end: int) -> list[str]:
    """How often the OSDs' CPU quotas (osd_cpu_limit) throttled them: with a quota, a
    burst waits for the next CFS period even on idle cores, which shows in the tail."""
    qs = [q for q in cluster.quotas.values() if q.throttles]
    if not qs:
        return []
    worst = max(qs, key=lambda q: len(q.throttled_periods))
    periods = max(1, t_end // worst.period_ns)
    return [f"CPU quota (osd_cpu_limit {worst.limit:g} per {worst.period_ns / 1e6:g} ms): "
            f"{len(qs)} of {len(cluster.quotas)} OSD daemons were throttled; most "
            f"{worst.name}, in {100 * min(1.0, len(worst.throttled_periods) / periods):.0f} % of "
            f"its periods (cpu.stat nr_throttled / nr_periods), a throttled thread waiting "
            f"{worst.throttled_ns / worst.throttles / 1e6:.1f} ms on average for the next one"]


def _disk_busy_ns(d: Any) -> float:
    """A drive's busy time: its channels' on average, or its data pipe's when that is
    busier (4 MiB I/Os can saturate the bandwidth with most channels idle)."""
    return max(d.busy_ns / len(d.chan), d.pipe_busy_ns)


def _warnings(rec: Recorder, r: Resolved, runtime: int) -> list[str]:
    """``runtime``: the measured window, the one the reported IOPS are over (ns)."""
    w = []
    n = rec.count()
    if n and n < 10_000:
        w.append(f"only {n} I/Os measured: p99.9 and beyond rest on fewer than 10 samples")
    wl = r.scenario.workload
    in_flight = wl.numjobs * wl.iodepth
    if n and n < 10 * in_flight:
        # the first I/Os of a run see empty queues: with few I/Os per slot the averages
        # are dominated by the fill (IOPS x latency falls well short of the I/Os in flight)
        w.append(f"only {n} I/Os measured with {in_flight} in flight: queues have not settled, "
                 f"so IOPS and latency are biased low; measure at least {10 * in_flight} "
                 "(run.ios)")
    elif n:
        w += littles_law_warning(n, rec.lat_mean(), runtime, in_flight,
                                 lambda: float(rec.lat_max()) / max(1.0, rec.lat_median()))
    return w + config_warnings(r)


#: how far IOPS x mean latency may stray from the I/Os in flight before a run is flagged
LITTLE_TOLERANCE = 0.2
#: a run whose longest I/O is this many times its median has outliers that can straddle
#: the measured window (retransmission timeouts, long stalls)
OUTLIER_SPREAD = 20.0


def littles_law_warning(n: int, mean_ns: float, runtime_ns: int, in_flight: int,
                        spread: float | Callable[[], float]) -> list[str]:
    """A closed loop keeps ``in_flight`` I/Os outstanding, so IOPS x mean latency (Little's
    law) comes out near it, or below it where the job's own thread is busy (fio's clock
    starts when the thread takes an I/O).  More than that, or less with a few I/Os far
    longer than the median (``spread``: longest / median), means such I/Os straddle the
    ends of the measured window, and IOPS and latency do not describe the same run yet.
    ``spread`` may be a function, called only where the occupancy is low."""
    occupancy = n * mean_ns / runtime_ns
    high = occupancy > in_flight * (1 + LITTLE_TOLERANCE)
    low = (occupancy < in_flight * (1 - LITTLE_TOLERANCE)
           and (spread() if callable(spread) else spread) > OUTLIER_SPREAD)
    if not (high or low):
        return []
    return [f"IOPS x mean latency is {occupancy:.2f} I/Os, not the {in_flight} in flight: a few "
            "I/Os far longer than the rest straddle the ends of the measured window, so IOPS "
            "and latency do not yet describe the same steady run; measure longer (run.ios)"]


def config_warnings(r: Resolved) -> list[str]:
    """What the scenario itself gets a warning for (``cephsim validate`` prints these too):
    fields its topology ignores, a profile fitted for another release, a mesh's ports, a bond
    wider than the NIC."""
    w = []
    topo = r.scenario.network.topology
    unused = {"mesh": ("switch", "spine", "spines", "hosts_per_leaf", "spine_tuning"),
              "switch": ("mesh_mode", "spine", "spines", "hosts_per_leaf", "spine_tuning"),
              "leaf-spine": ("mesh_mode",)}[topo.kind]
    ignored = [f for f in unused if f in topo.model_fields_set]
    if ignored:
        w.append(f"{', '.join(f'network.topology.{f}' for f in ignored)}: not used by kind "
                 f"{topo.kind}")
    fitted = r.ceph.costs.profile_release
    if fitted is not None and fitted != r.ceph.release:
        w.append(f"ceph.profile was fitted for {fitted} and is used on {r.ceph.release}: its "
                 f"costs stand for {fitted}'s code path")
    if r.network.kind == "mesh":
        short = sorted({f"{h.nic.name} ({h.nic.ports})" for h in r.hosts
                        if h.nic.ports < len(r.hosts) - 1 and not _ports_assumed(h.nic)})
        if short:
            w.append(f"full mesh of {len(r.hosts)} hosts: each needs {len(r.hosts) - 1} NIC ports, "
                     f"the catalog gives {', '.join(short)}; the model gives every peer its own "
                     "link anyway (check the cards, or give an inline NIC with its ports)")
    bonds = sorted({(h.group, h.bond, h.nic.name, h.nic.ports) for h in r.hosts
                    if h.bond > h.nic.ports and not _ports_assumed(h.nic)})
    for group, bond, nic, ports in bonds:
        w.append(f"hosts {group}: bond {bond} but a {nic} has {ports} port{'s' * (ports != 1)}; "
                 f"the model bonds {bond} links anyway, as if the host had "
                 f"{-(-bond // ports)} such cards")
    return w


def _ports_assumed(nic: Any) -> bool:
    """A class entry's port count is the catalog's assumption (one port), not the card's:
    a bond or a mesh over it states how many ports the hosts have, so nothing to warn."""
    ports = nic.sources.get("ports")
    return ports is not None and ports.basis == "estimate"
