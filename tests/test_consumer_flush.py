"""Consumer (no-PLP) flush cost: the Disk model replays the job sweeps it is fitted to.

TheJJ ceph-diskbench (components.yaml): N fio jobs, each a 4 KiB write + fdatasync at
qd 1.  Replayed through :class:`Disk` (flush merging, per-dirty-unit program cost),
the class value ``CONSUMER_PROGRAM_NS`` must give the measured totals.
"""

from __future__ import annotations

import heapq

import numpy as np
import pytest

from cephsim.catalog.load import load_catalog
from cephsim.components.disk import Disk
from cephsim.engine.draw import Sampler


def _sweep_iops(disk_id: str, jobs: int, seconds: float = 20.0, seed: int = 1) -> float:
    model = load_catalog().disks[disk_id]
    rng = np.random.default_rng(seed)
    d = Disk("d", model, Sampler(model.write_4k, rng), Sampler(model.flush, rng),
             Sampler(model.read_4k, rng))
    horizon = int(seconds * 1e9)
    ev = [(0, j, False) for j in range(jobs)]  # (time, job, next step is the flush)
    heapq.heapify(ev)
    done = 0
    while ev:
        t, j, flush = heapq.heappop(ev)
        if t > horizon:
            break
        if flush:
            done += 1
            heapq.heappush(ev, (d.flush(t, None), j, False))
        else:
            heapq.heappush(ev, (d.write(t, 4096, None), j, True))
    return done / seconds


@pytest.mark.parametrize(("disk_id", "jobs", "measured"), [
    ("samsung-860evo-1t", 1, 490),    # 1-job figure: the catalog flush alone
    ("samsung-860evo-1t", 14, 1728),  # the proxy CONSUMER_PROGRAM_NS["sata"] is fitted to
    ("samsung-970pro", 2, 840),       # NVMe class value: least squares over 2..5 jobs
    ("samsung-970pro", 5, 785),
])
def test_consumer_sweep_replay_matches_measurement(disk_id: str, jobs: int, measured: int) -> None:
    assert _sweep_iops(disk_id, jobs) == pytest.approx(measured, rel=0.25)


def test_860evo_14_jobs_within_10_percent() -> None:
    assert _sweep_iops("samsung-860evo-1t", 14) == pytest.approx(1728, rel=0.10)


def test_plp_drive_pays_no_per_unit_flush_cost() -> None:
    # a PLP drive scales with jobs (PM863a: 17983 -> 58876 IOPS from 1 to 10 jobs)
    one, ten = _sweep_iops("pm863a", 1, 2.0), _sweep_iops("pm863a", 10, 2.0)
    assert ten > 2.5 * one
