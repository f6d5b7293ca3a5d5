"""Fit a consumer drive's flush cost per dirty 4 KiB unit to its measured job sweep.

A drive without power-loss protection acknowledges writes from a volatile cache and
pays at FLUSH CACHE for everything written since the previous flush.  The catalog
holds two figures for it: ``flush`` (the flush after one 4 KiB write: the 1-job
sync-write latency minus the write) and ``flush_per_dirty_unit`` (what each further
dirty unit adds).  The second cannot be read off a datasheet; it shows in a sweep of
N fio jobs, each writing 4 KiB and calling fdatasync at queue depth 1:

    fio --filename=/dev/sdX --direct=1 --fdatasync=1 --ioengine=pvsync --iodepth=1 \\
        --rw=write --bs=4k --numjobs=N --time_based --runtime=20 --group_reporting

Concurrent flushes merge in the block layer, so N jobs commit several writes per
flush; how far the total grows with N is set by the per-unit cost.  The fit replays
the sweep through :class:`cephsim.model.components.disk.Disk` itself (the drive's catalog
write, flush and parallelism; flush merging) and picks the per-unit cost whose replay
gives the measured totals (least squares on ln(simulated / measured) over the points
with N >= 2; one point determines it, several are averaged).

Sweep files (``calibration/consumer-flush/sweeps.yaml``)::

    source: <where the numbers come from>
    drives:
      <catalog disk id>: {iops: {1: 490, 14: 1728}, note: optional}
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cephsim.catalog.load import load_catalog
from cephsim.catalog.models import DiskModel
from cephsim.errors import CephsimError, Problem
from cephsim.model.components.disk import Disk
from cephsim.model.engine.draw import Sampler
from cephsim.yamlfile import located, read_scenario_data, unknown_keys

#: simulated seconds per replayed sweep point (a few thousand flushes at these rates)
REPLAY_SECONDS = 20.0
#: most jobs in one sweep point, the same bound a scenario puts on ``workload.numjobs``:
#: each fio job is a thread or process doing sync writes at queue depth 1, so 1024 on one
#: drive is far past the point where flush merging saturates (the sweeps in
#: calibration/consumer-flush/sweeps.yaml stop at 16), and the replay simulates every job
#: for REPLAY_SECONDS, so a typo such as ``80000`` would run for ages before anything
#: is printed
MAX_SWEEP_JOBS = 1024
_BOUNDS_NS = (5_000.0, 10_000_000.0)


def replay_sync_sweep(model: DiskModel, jobs: int, per_unit_ns: int | None = None,
                      seconds: float = REPLAY_SECONDS, seed: int = 1) -> float:
    """Total IOPS of ``jobs`` fio jobs doing 4 KiB write + fdatasync at qd 1 on this drive."""
    if per_unit_ns is not None:
        model = model.model_copy(update={"flush_per_dirty_unit_ns": per_unit_ns})
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


@dataclass(frozen=True)
class SweepFit:
    disk: str
    points: dict[int, float]  #: jobs -> measured total IOPS
    fitted_ns: int | None  #: None: no point with 2 or more jobs
    catalog_ns: int | None
    replay_fitted: dict[int, float]  #: jobs -> replayed IOPS with the fitted value
    replay_catalog: dict[int, float]  #: jobs -> replayed IOPS with the catalog value
    note: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"disk": self.disk, "measured_iops": self.points, "fitted_ns": self.fitted_ns,
                "catalog_ns": self.catalog_ns, "replay_fitted_iops": self.replay_fitted,
                "replay_catalog_iops": self.replay_catalog, "note": self.note}


def fit_per_unit(model: DiskModel, points: dict[int, float], seed: int = 1) -> int | None:
    """The per-unit flush cost (ns) whose replay matches the multi-job points best."""
    from scipy.optimize import minimize_scalar

    multi = {n: v for n, v in points.items() if n >= 2}
    if not multi:
        return None

    def loss(x: float) -> float:
        c = int(math.exp(x))
        return sum(math.log(replay_sync_sweep(model, n, c, seed=seed) / v) ** 2 for n, v in multi.items())

    lo, hi = (math.log(b) for b in _BOUNDS_NS)
    res = minimize_scalar(loss, bounds=(lo, hi), method="bounded", options={"xatol": 0.005})
    return int(round(math.exp(res.x), -3))  # whole microseconds


def load_sweeps(path: str | Path) -> tuple[str, dict[str, tuple[dict[int, float], str | None]]]:
    """Read a sweep file; errors point at the file and line."""
    p = Path(path)
    data = read_scenario_data(p, text_keys=False)
    cat = load_catalog()
    problems: list[Problem] = []

    def bad(msg: str, *loc: Any) -> None:
        problems.append(located(msg, str(p), data, *loc))

    problems += unknown_keys(data, ("source", "method", "drives"), "a sweep file", str(p), data)
    if not isinstance(data.get("source"), str):
        bad("source: say where the measurements come from (a URL or document)")
    drives = data.get("drives")
    out: dict[str, tuple[dict[int, float], str | None]] = {}
    if not isinstance(drives, dict) or not drives:
        bad("drives: a mapping of catalog disk id -> {iops: {jobs: total IOPS}}")
        raise CephsimError(problems)
    for disk, entry in drives.items():
        if disk not in cat.disks:
            bad(f"unknown disk {disk!r}; see `cephsim catalog disks`", "drives", disk)
            continue
        model = cat.disks[disk]
        if model.plp or model.media != "flash":
            bad("not a flash drive without PLP: its flush has no per-unit cost to "
                "fit", "drives", disk)
            continue
        if isinstance(entry, dict):  # first: a misspelt 'iops' gets its 'did you mean'
            problems += unknown_keys(entry, ("iops", "note"), "a drive", str(p), data, "drives",
                                     disk)
        if not isinstance(entry, dict) or not isinstance(entry.get("iops"), dict):
            bad("give iops: {jobs: total IOPS, ...}", "drives", disk)
            continue
        pts: dict[int, float] = {}
        before = len(problems)
        for n, v in entry["iops"].items():
            if isinstance(n, bool) or not isinstance(n, int) or n < 1:
                bad(f"{n!r} is not a number of jobs: each point is <jobs (integer >= 1)>: "
                    "<total IOPS (> 0)>", "drives", disk, "iops", n)
                continue
            if n > MAX_SWEEP_JOBS:
                bad(f"{n} jobs: at most {MAX_SWEEP_JOBS} jobs per point (as workload.numjobs)",
                    "drives", disk, "iops", n)
                continue
            if not (isinstance(v, (int, float)) and not isinstance(v, bool)
                    and math.isfinite(v) and v > 0):
                bad("each point is <jobs (integer >= 1)>: <total IOPS "
                    "(> 0)>", "drives", disk, "iops", n)
                continue
            pts[n] = float(v)
        # (after a refused point the remaining ones are not judged as a whole)
        if len(problems) == before and not pts:
            bad("iops is empty: a sweep needs at least one point with 2 or more jobs "
                "(e.g. {1: 1500, 8: 6460})", "drives", disk, "iops")
            continue
        if len(problems) == before and not any(n >= 2 for n in pts):
            bad("a sweep needs at least one point with 2 or more jobs (e.g. {1: 1500, 8: 6460}): "
                "the 1-job point alone cannot show the cost per dirty unit",
                "drives", disk, "iops")
            continue
        note = entry.get("note")
        if note is not None and not isinstance(note, str):
            bad("a note is a string", "drives", disk, "note")
        out[str(disk)] = (pts, note)
    if problems:
        raise CephsimError(problems)
    return str(data["source"]), out


def fit_sweeps(path: str | Path, seed: int = 1) -> tuple[str, list[SweepFit]]:
    source, sweeps = load_sweeps(path)
    cat = load_catalog()
    fits = []
    for disk, (pts, note) in sweeps.items():
        model = cat.disks[disk]
        c = fit_per_unit(model, pts, seed)
        fits.append(SweepFit(
            disk, pts, c, model.flush_per_dirty_unit_ns,
            {n: replay_sync_sweep(model, n, c, seed=seed) for n in pts} if c is not None else {},
            {n: replay_sync_sweep(model, n, seed=seed) for n in pts}, note))
    return source, fits


def fit_text(source: str, fits: list[SweepFit]) -> str:
    lines = [
        f"flush cost per dirty 4 KiB unit, fitted by replaying job sweeps ({source})",
        f"  {'disk':<22} {'fitted':>9} {'catalog':>9}   jobs: measured / replay(fitted) / "
        "replay(catalog) IOPS",
    ]
    for f in fits:
        fit = "-" if f.fitted_ns is None else f"{f.fitted_ns / 1e3:.0f} us"
        cat = "-" if f.catalog_ns is None else f"{f.catalog_ns / 1e3:.0f} us"
        pts = "; ".join(f"{n}: {v:.0f} / {f.replay_fitted.get(n, float('nan')):.0f} / "
                        f"{f.replay_catalog[n]:.0f}" for n, v in sorted(f.points.items()))
        lines.append(f"  {f.disk:<22} {fit:>9} {cat:>9}   {pts}")
    return "\n".join(lines) + "\n"
