"""`validate`'s check of an assumption that can move the answer a long way: the OSD hosts'
memory, where the scenario does not give it.

What the memory leaves of the kernel's page cache serves RocksDB's block-cache misses
(BlueFS's buffered reads), so on an image whose metadata outgrows the OSDs' caches it
decides whether a write reads its onode from RAM or from the DB device.  Where that can
happen, the scenario is run three times, briefly and on the same seed (so the runs differ
only by the memory): at the assumed memory (the published hosts' median per OSD) and at
the published hosts' quartiles either side; a run that moves the mean latency by more than
:data:`MOVES` is named.
"""

from __future__ import annotations

from pathlib import Path

from cephsim.catalog.host_memory import gib, memory_per_osd
from cephsim.model.resolve import (
    Resolved,
    cluster_size,
    memory_decides,
    resolve,
)
from cephsim.model.runner import run_scenario
from cephsim.scenario.schema import Scenario
from cephsim.tools.estimate import pilot_cut, pilot_load

#: the change of the mean latency past which the assumed memory is named
MOVES = 0.10
#: the pilots' measured I/Os (at least this, or the run's own if fewer; a deep queue's
#: pilot runs three queues' worth): the same seed in each, so the difference between them
#: is the memory's, with little sampling noise of its own (the scenario's jobs, depth and
#: cluster cut as validate's time estimate cuts them: :func:`_pilot_scenario`)
PILOT_IOS = 2000


def memory_warnings(sc: Scenario, r: Resolved, path: str | Path | None = None) -> list[str]:
    """What `validate` says where the OSD hosts' memory is assumed and moves the mean
    latency by more than :data:`MOVES` between the published hosts' quartiles; else
    nothing (and nothing is run)."""
    assumed = [i for i, g in enumerate(sc.hosts)
               if g.memory is None and g.osds is not None and g.osds.count > 0]
    if not assumed or not memory_decides(r):
        return []
    media = [next(h.disk.media for h in r.hosts if h.group == sc.hosts[i].name and h.disk)
             for i in assumed]
    small, n = _pilot_scenario(sc)

    def pilot(per_osd: list[int] | None) -> float:
        hosts = list(small.hosts)
        if per_osd is not None:
            for i, m in zip(assumed, per_osd):
                g = hosts[i]
                assert g.osds is not None
                hosts[i] = g.model_copy(update={"memory": m * g.osds.count})
        rr = resolve(small.model_copy(update={"hosts": hosts}), path)
        a = run_scenario(rr.scenario, scenario_path=path, resolved=rr).records.arrays()
        lat = a["complete"] - a["submit"]
        return float(lat.mean()) if len(lat) else 0.0

    base = pilot(None)
    if base <= 0.0:
        return []
    moves = []
    for q, label in ((0, "low"), (1, "high")):
        per = [memory_per_osd()[m].upper if q else memory_per_osd()[m].lower for m in media]
        moves.append((per, label, pilot(per) / base - 1.0))
    if max(abs(d) for _, _, d in moves) <= MOVES:
        return []
    fields = ", ".join(f"hosts.{sc.hosts[i].name}.memory" for i in assumed)
    per_now = ", ".join(f"{gib(memory_per_osd()[m].median)} per {m} OSD"
                        for m in dict.fromkeys(media))
    told = "; ".join(f"with {', '.join(gib(x) for x in dict.fromkeys(per))} per OSD "
                     f"(the {label} end) {100 * d:+.0f} %" for per, label, d in moves)
    return [f"the OSD hosts' memory is not given ({fields}) and decides this answer: "
            f"assumed {per_now} (the published hosts' median; their range: the quartiles for "
            "flash, the documentation's for HDD), whose page cache serves the "
            f"metadata the OSDs' caches miss; {told} on the mean latency (pilots of {n:,} "
            "I/Os, same seed): give the hosts' memory"]


def _pilot_scenario(sc: Scenario) -> tuple[Scenario, int]:
    """The pilots' scenario and their I/Os: as `validate`'s time estimate cuts its pilots
    (at most PILOT_JOBS jobs of PILOT_INFLIGHT in flight, a slice of a cluster past
    PILOT_OSDS), with the image scaled so that each OSD serves the metadata of as many
    objects as in the scenario (its footprint is what the memory decides on)."""
    w = sc.workload
    jobs, depth = pilot_load(sc)
    n = max(PILOT_IOS, 3 * jobs * depth)
    if sc.run.ios is not None:
        n = min(n, sc.run.ios)
    small, _, kept = pilot_cut(sc, n)
    osds = cluster_size(sc)[1]
    if jobs < w.numjobs or kept:  # objects per OSD go as jobs x image / OSDs
        image = w.image_size * w.numjobs * (kept or osds) // (jobs * osds)
        image = max(w.object_size, -(-image // w.object_size) * w.object_size)
        small = small.model_copy(update={"workload": small.workload.model_copy(
            update={"image_size": image})})
    return small, n
