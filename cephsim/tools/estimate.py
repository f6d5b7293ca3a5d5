"""What a run will cost before it starts: memory from the measured per-I/O figures, wall
time from two short pilots of the same scenario on this machine."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from cephsim.model.resolve import cluster_size, memory_estimate, resolve
from cephsim.model.runner import run_scenario
from cephsim.scenario.schema import Scenario

#: the shorter pilot's least length (at least one and a half queues' worth): a fraction
#: of a second on the quickstart
PILOT_IOS = 150
#: the most I/Os in flight and jobs a pilot keeps (a deeper or wider scenario's pilot runs
#: smaller, so validate stays quick; its estimate is then rougher and says so)
PILOT_INFLIGHT = 512
PILOT_JOBS = 32
#: a pilot whose cluster took longer than this to build is not run a second time (the
#: estimate counts the fill then, and says it is rougher)
SLOW_SETUP_S = 2.0
#: a wall time over this gets a warning at validate
LONG_RUN_S = 3600.0
#: the most OSDs a pilot builds: a larger cluster's pilot runs on a slice of its OSD hosts
#: (each group cut by one factor), and the slice's setup time is scaled back up by OSDs
PILOT_OSDS = 1000


@dataclass(frozen=True)
class Estimate:
    memory_bytes: int  #: what the run holds at its peak (I/Os in flight, records)
    wall_s: float  #: its wall time on this machine
    pilot_ios: int  #: the longer pilot's I/Os
    pilot_inflight: int  #: the I/Os in flight in the pilot (the run's, or fewer: PILOT_INFLIGHT)
    rough: bool = False  #: the pilot ran shallower than the run: a rougher estimate
    pilot_osds: int = 0  #: the OSDs of the pilot's cluster, where it was a slice (else 0)


def estimate(scenario: Scenario, path: str | Path | None = None) -> Estimate:
    """Run two short pilots of the scenario (its first I/Os) and scale the cost of the I/Os
    past the fill to the run's length: I/Os for ``run.ios``, simulated time for
    ``run.runtime`` and ``run.ramp_time`` (whichever the run stops at first).  A run whose
    work per I/O keeps growing after the pilots (large writes filling an image's objects,
    queues still building) takes longer: up to about twice as long on the shipped scenarios'
    deepest variants.  The pilots are runs of their own: they change nothing in the run."""
    run, w = scenario.run, scenario.workload
    inflight = w.iodepth * w.numjobs
    total = None if run.ios is None else run.ios + run.ramp_ios
    jobs, depth = pilot_load(scenario)
    # two pilots, of n and 2n I/Os: the difference of their loops is the cost of n I/Os past
    # the fill, where a deep queue's per-I/O work has settled (the fill is cheaper)
    n = max(PILOT_IOS, (3 * jobs * depth) // 2)
    if total is not None:
        n = max(1, min(n, total // 2))
    pilot, scale, slice_osds = pilot_cut(scenario, n)
    t0 = time.perf_counter()
    resolved = resolve(pilot, path)  # once: the pilots differ only in their length
    resolving = time.perf_counter() - t0
    runs = []
    for k in (n, 2 * n):
        r = resolved.with_run(ios=k)
        t0 = time.perf_counter()
        res = run_scenario(r.scenario, scenario_path=path, resolved=r)
        runs.append((res, time.perf_counter() - t0 + resolving))  # a run resolves, then runs
        if runs[0][1] - runs[0][0].wall_s > SLOW_SETUP_S:  # a huge cluster: one pilot will do
            break
    res, took = runs[-1]
    setup = max(0.0, took - res.wall_s) * scale  # building the cluster goes by its OSDs
    if len(runs) == 1:
        per_io, rough = res.wall_s / n, True
    else:
        steady = (res.wall_s - runs[0][0].wall_s) / n
        per_io = steady if steady > 0 else res.wall_s / (2 * n)  # timer noise on tiny pilots
        rough = jobs * depth < inflight
    per_sim_ns = res.wall_s / max(1, res.sim_end_ns)
    # a run issues every I/O its queues hold at its start, however few it measures, and each
    # of them gets most of its work done before the run ends (FIFO queues all along the
    # path): the ones past the pilot's depth are counted as that many more I/Os.  Per-I/O
    # work still grows with depth (a larger event heap, colder caches), so a run far deeper
    # than the pilot takes longer still: 4,096 x 64 in flight on the quickstart ~4x
    extra = per_io * max(0, inflight - jobs * depth)
    loop = []
    if total is not None:
        loop.append(per_io * total + per_sim_ns * run.ramp_time + extra)
    if run.runtime is not None:
        loop.append(per_sim_ns * (run.runtime + run.ramp_time) + per_io * run.ramp_ios + extra)
    return Estimate(memory_estimate(scenario), setup + min(loop), len(runs) * n, jobs * depth,
                    rough=rough or scale > 1, pilot_osds=slice_osds)


def pilot_load(scenario: Scenario) -> tuple[int, int]:
    """The jobs and the depth a pilot keeps: at most PILOT_JOBS jobs, PILOT_INFLIGHT I/Os
    in flight."""
    w = scenario.workload
    jobs = min(w.numjobs, PILOT_JOBS)
    return jobs, max(1, min(w.iodepth, PILOT_INFLIGHT // jobs))


def pilot_cut(scenario: Scenario, ios: int) -> tuple[Scenario, float, int]:
    """The scenario as a pilot of ``ios`` measured I/Os runs it (no warm-up, no time limit,
    :func:`pilot_load`'s jobs and depth, :func:`pilot_slice`'s cluster), with the slice's
    factor and OSDs."""
    jobs, depth = pilot_load(scenario)
    run, w = scenario.run, scenario.workload
    pilot = scenario.model_copy(update={
        "run": run.model_copy(update={"ios": ios, "ramp_ios": 0, "ramp_time": 0, "runtime": None}),
        "workload": w.model_copy(update={"iodepth": depth, "numjobs": jobs})})
    return pilot_slice(pilot)


def pilot_slice(scenario: Scenario) -> tuple[Scenario, float, int]:
    """A cluster past :data:`PILOT_OSDS` cut to a slice of about that many OSDs: every host
    group with OSDs keeps 1/f of its hosts (enough for the pool's copies on distinct hosts,
    and every host the workload names as a client), with the factor by which its OSDs were
    cut and the slice's OSDs; a smaller cluster is returned as it is, with 1 and 0."""
    _, osds, _ = cluster_size(scenario)
    if osds <= PILOT_OSDS:
        return scenario, 1.0, 0
    f = -(-osds // PILOT_OSDS)
    named = scenario.workload.clients or []
    groups = []
    for g in scenario.hosts:
        if not (g.osds and g.osds.count):
            groups.append(g)
            continue
        used = [int(c[len(g.name):]) for c in named
                if c.startswith(g.name) and c[len(g.name):].isdigit()]
        keep = max(-(-g.count // f), min(g.count, scenario.pool.size), max(used, default=-1) + 1)
        groups.append(g.model_copy(update={"count": keep}))
    small = scenario.model_copy(update={"hosts": groups})
    kept = cluster_size(small)[1]
    return small, osds / max(1, kept), kept


def format_wall(seconds: float) -> str:
    """'0.8 s', '42 s', '3.5 min', '2.1 h'."""
    if seconds < 60:
        return f"{seconds:.2g} s" if seconds < 10 else f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{seconds / 60:.2g} min"
    return f"{seconds / 3600:.2g} h"
