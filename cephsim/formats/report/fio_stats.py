"""Per-job, per-direction statistics computed the way fio computes them.

What each piece mirrors in fio (``stat.c`` unless noted):

* :class:`LatencySummary` -- ``struct io_stat`` + ``calc_lat``: min, max, mean
  and the *sample* standard deviation ``sqrt(S / (N - 1))`` (0 when N <= 1).
* :class:`DirectionStats` -- one ``read``/``write`` block of a ``thread_stat``:
  ``runtime`` in integer ms, ``bw_bytes = 1000 * io_bytes // runtime_ms``,
  ``bw = bw_bytes // 1024`` (KiB/s), ``iops = 1000.0 * total_ios / runtime_ms``
  (``add_ddir_status_json``), the clat (and lat) histogram
  (:mod:`cephsim.metrics.fio_hist`) and percentiles, and the
  ``latency_ns/us/ms`` bucket counts of ``io_u_mark_latency`` (io_u.c), which
  fio fills from *completion* latency.
* ``bw_*`` / ``iops_*`` interval statistics -- ``__add_samples``: every
  ``bw_avg_time`` / ``iops_avg_time`` (500 ms default) fio records the rate
  over the elapsed window (``delta * 1000 / spent / 1024`` KiB/s, ``delta *
  1000 / spent`` IOPS, integer arithmetic) and skips windows without I/O.  We
  do the same over fixed, *full* windows of ``interval_ms`` starting at the
  measurement start, when the caller passes per-op completion times; without
  them these statistics are absent (``None``) and reported as zeros, like a
  fio run with ``disable_bw_measurement``.

* :func:`pool_runs` -- runs of one job as one that ran them one after another:
  summaries merged as ``sum_stat`` merges them (``bw``/``iops`` samples pooled, not
  summed as for concurrent jobs), histograms, counts and run times added.

Deviation from fio, on purpose: ``runtime_ms`` is ``runtime_ns // 10**6`` but
at least 1 ms when there was any I/O (fio would print nothing for a 0 ms run).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from cephsim.metrics.fio_hist import (
    DEFAULT_PERCENTILES,
    HIST_MAX_EXACT_NS,
    LAT_M_EDGES,
    LAT_N_EDGES,
    LAT_U_EDGES,
    FioHistogram,
    latency_bucket_counts,
)
from cephsim.metrics.records import WINDOW_NS, DirectionSums, Moments

__all__ = [
    "LAT_M_EDGES",
    "LAT_N_EDGES",
    "LAT_U_EDGES",
    "DirectionStats",
    "IntervalSummary",
    "JobStats",
    "LatencySummary",
    "GroupDirStats",
    "bw_agg_percent",
    "calc_dist",
    "group_run_stats",
    "latency_bucket_counts",
    "pool_runs",
]


@dataclass(frozen=True)
class LatencySummary:
    """fio ``io_stat`` summary: min/max (int ns), mean/stddev (float ns), N."""

    min: int = 0
    max: int = 0
    mean: float = 0.0
    stddev: float = 0.0
    n: int = 0

    @classmethod
    def from_samples(cls, ns: npt.NDArray[np.int64]) -> LatencySummary:
        n = int(ns.size)
        if n == 0:
            return cls()
        f = ns.astype(np.float64)
        mean = float(f.mean())
        dev = float(np.sqrt(np.sum((f - mean) ** 2) / (n - 1))) if n > 1 else 0.0
        return cls(min=int(ns.min()), max=int(ns.max()), mean=mean, stddev=dev, n=n)

    @classmethod
    def from_moments(cls, m: Moments) -> LatencySummary:
        """The same summary from a run's exact running sums (:class:`Moments`): the mean
        is the sum over the count, the squared deviations from that mean are summed
        exactly and rounded once, where :meth:`from_samples` rounds as it adds (numpy's
        pairwise sum: the two agree to the last bit or two of the standard deviation)."""
        n = m.n
        if n == 0:
            return cls()
        mean = m.s1 / n
        dev = 0.0
        if n > 1:
            p, q = float(mean).as_integer_ratio()  # sum (x - p/q)^2, exactly, over q^2
            ss = Fraction(m.s2 * q * q - 2 * p * q * m.s1 + n * p * p, q * q)
            dev = float(np.sqrt(np.float64(float(ss)) / (n - 1)))
        return cls(min=m.lo, max=m.hi, mean=mean, stddev=dev, n=n)

    @classmethod
    def pooled(cls, parts: Sequence[LatencySummary]) -> LatencySummary:
        """The summary of all the parts' samples together, from the summaries alone."""
        n, mn, mx, mean, sq = _pool([(p.n, p.min, p.max, p.mean, p.stddev) for p in parts])
        return cls(min=mn, max=mx, mean=mean, stddev=sq, n=n)


def _pool(parts: Sequence[tuple[int, int, int, float, float]]) -> tuple[int, int, int, float,
                                                                        float]:
    """(n, min, max, mean, sample stddev) of the union of sample sets given by theirs.

    fio's ``sum_stat`` (not ``pure_sum``): the mean weighted by the sample counts and the
    sums of squared deviations added with the between-set term, ``S = sum(S_i + n_i
    (mean_i - mean)^2)``, ``S_i = stddev_i^2 (n_i - 1)``; min and max over the sets.
    """
    full = [p for p in parts if p[0] > 0]
    if not full:
        return 0, 0, 0, 0.0, 0.0
    n = sum(p[0] for p in full)
    mean = sum(p[0] * p[3] for p in full) / n
    s = sum(p[4] ** 2 * (p[0] - 1) + p[0] * (p[3] - mean) ** 2 for p in full)
    # the weighted mean of numbers in [min, max] can leave it by a rounding step
    lo, hi = min(p[1] for p in full), max(p[2] for p in full)
    mean = min(max(mean, float(lo)), float(hi))
    return n, lo, hi, mean, float(np.sqrt(s / (n - 1))) if n > 1 else 0.0


@dataclass(frozen=True)
class IntervalSummary:
    """fio ``bw_stat`` / ``iops_stat``: stats over per-interval rate samples."""

    min: int
    max: int
    mean: float
    stddev: float
    samples: int

    @classmethod
    def from_rates(cls, rates: npt.NDArray[np.int64]) -> IntervalSummary | None:
        s = LatencySummary.from_samples(rates)
        if s.n == 0:
            return None
        return cls(min=s.min, max=s.max, mean=s.mean, stddev=s.stddev, samples=s.n)

    @classmethod
    def pooled(cls, parts: Sequence[IntervalSummary | None]) -> IntervalSummary | None:
        """All the parts' interval samples together (runs without samples add none)."""
        full = [p for p in parts if p is not None]
        if not full:
            return None
        n, mn, mx, mean, dev = _pool([(p.samples, p.min, p.max, p.mean, p.stddev) for p in full])
        return cls(min=mn, max=mx, mean=mean, stddev=dev, samples=n)


def _ns_array(x: npt.ArrayLike | None, name: str) -> npt.NDArray[np.int64]:
    if x is None:
        return np.zeros(0, dtype=np.int64)
    a = np.asarray(x)
    if a.dtype.kind not in "iu":
        raise TypeError(f"{name} must be integer nanoseconds (got dtype {a.dtype})")
    a = a.astype(np.int64, copy=False).ravel()
    if a.size and int(a.min()) < 0:
        raise ValueError(f"{name} has negative latencies")
    return a


def _interval_rates(
    completion_ns: npt.NDArray[np.int64], bs_bytes: int, interval_ms: int, runtime_ns: int
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """(bw KiB/s, iops) per full interval with I/O, as fio's ``__add_samples``.

    Windows are ``[k * interval, (k + 1) * interval)`` from time 0 (measurement
    start); only windows that end within ``runtime_ns`` count, and completions
    before 0 (warm-up) are ignored.
    """
    width = interval_ms * 1_000_000
    n_full = int(runtime_ns // width)
    if completion_ns.size == 0 or n_full == 0:
        z = np.zeros(0, dtype=np.int64)
        return z, z
    win = completion_ns[completion_ns >= 0] // width
    return _window_rates(np.bincount(win[win < n_full], minlength=n_full), bs_bytes, interval_ms)


def _window_rates(counts: npt.NDArray[np.int64], bs_bytes: int,
                  interval_ms: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """(bw KiB/s, iops) of the windows' I/O counts, windows without I/O left out."""
    ios = counts.astype(np.int64)
    ios = ios[ios > 0]  # fio: "No entries for interval" -> no sample
    bw = (ios * bs_bytes * 1000) // interval_ms // 1024
    iops = (ios * 1000) // interval_ms
    return bw.astype(np.int64), iops.astype(np.int64)


@dataclass(frozen=True, eq=False)
class DirectionStats:
    """Statistics of one I/O direction of one job, as fio reports them."""

    slat: LatencySummary
    clat: LatencySummary
    lat: LatencySummary
    bs_bytes: int
    runtime_ns: int
    total_ios: int
    io_bytes: int
    clat_hist: FioHistogram
    lat_hist: FioHistogram
    percentile_list: tuple[float, ...] = DEFAULT_PERCENTILES
    lat_n: tuple[int, ...] = (0,) * 10
    lat_u: tuple[int, ...] = (0,) * 10
    lat_m: tuple[int, ...] = (0,) * 12
    bw_stat: IntervalSummary | None = None
    iops_stat: IntervalSummary | None = None
    short_ios: int = 0
    drop_ios: int = 0

    @classmethod
    def from_samples(
        cls,
        slat_ns: npt.ArrayLike | None,
        clat_ns: npt.ArrayLike,
        lat_ns: npt.ArrayLike | None = None,
        *,
        bs_bytes: int,
        runtime_ns: int,
        completion_ns: npt.ArrayLike | None = None,
        interval_ms: int = 500,
        percentile_list: Sequence[float] = DEFAULT_PERCENTILES,
    ) -> DirectionStats:
        """Build from per-op latencies (integer ns, warm-up already excluded).

        ``slat_ns`` may be ``None``/empty (sync engines: fio prints no slat).
        ``lat_ns`` defaults to ``slat + clat`` (or ``clat`` without slat).
        ``completion_ns``: per-op completion times (ns since measurement start)
        enabling the ``bw_*``/``iops_*`` interval statistics.
        """
        clat = _ns_array(clat_ns, "clat_ns")
        slat = _ns_array(slat_ns, "slat_ns")
        if slat.size and slat.size != clat.size:
            raise ValueError("slat_ns and clat_ns must have the same length")
        if lat_ns is None:
            lat = clat + slat if slat.size else clat
        else:
            lat = _ns_array(lat_ns, "lat_ns")
            if lat.size != clat.size:
                raise ValueError("lat_ns and clat_ns must have the same length")
        if bs_bytes <= 0:
            raise ValueError("bs_bytes must be > 0")
        if runtime_ns < 0:
            raise ValueError("runtime_ns must be >= 0")
        n = int(clat.size)
        bw_stat = iops_stat = None
        if completion_ns is not None:
            comp = np.asarray(completion_ns).astype(np.int64, copy=False).ravel()
            if comp.size != clat.size:
                raise ValueError("completion_ns and clat_ns must have the same length")
            bw, iops = _interval_rates(comp, bs_bytes, interval_ms, runtime_ns)
            bw_stat, iops_stat = IntervalSummary.from_rates(bw), IntervalSummary.from_rates(iops)
        ln, lu, lm = latency_bucket_counts(clat)
        return cls(
            slat=LatencySummary.from_samples(slat),
            clat=LatencySummary.from_samples(clat),
            lat=LatencySummary.from_samples(lat),
            bs_bytes=int(bs_bytes),
            runtime_ns=int(runtime_ns),
            total_ios=n,
            io_bytes=n * int(bs_bytes),
            clat_hist=FioHistogram.from_samples(clat),
            lat_hist=FioHistogram.from_samples(lat),
            percentile_list=tuple(float(p) for p in percentile_list),
            lat_n=ln,
            lat_u=lu,
            lat_m=lm,
            bw_stat=bw_stat,
            iops_stat=iops_stat,
        )

    @classmethod
    def from_sums(cls, d: DirectionSums, *, sync_io: bool, bs_bytes: int, runtime_ns: int,
                  percentile_list: Sequence[float] = DEFAULT_PERCENTILES) -> DirectionStats:
        """Build from a run's running statistics (:class:`DirectionSums`, fio's 500 ms
        bandwidth windows): what :meth:`from_samples` gives for the same ops."""
        if bs_bytes <= 0:
            raise ValueError("bs_bytes must be > 0")
        n_full = int(runtime_ns // WINDOW_NS)
        bw_stat = iops_stat = None
        if d.n and n_full:
            counts = np.zeros(n_full, dtype=np.int64)
            w = d.windows[:n_full]
            counts[:w.size] = w
            bw, iops = _window_rates(counts, bs_bytes, WINDOW_NS // 1_000_000)
            bw_stat, iops_stat = IntervalSummary.from_rates(bw), IntervalSummary.from_rates(iops)
        return cls(
            slat=LatencySummary() if sync_io else LatencySummary.from_moments(d.slat),
            clat=LatencySummary.from_moments(d.clat),
            lat=LatencySummary.from_moments(d.lat),
            bs_bytes=int(bs_bytes),
            runtime_ns=int(runtime_ns),
            total_ios=d.n,
            io_bytes=d.n * int(bs_bytes),
            clat_hist=FioHistogram(counts=d.clat_hist.counts.copy(), overflow=d.clat_hist.overflow),
            lat_hist=FioHistogram(counts=d.lat_hist.counts.copy(), overflow=d.lat_hist.overflow),
            percentile_list=tuple(float(p) for p in percentile_list),
            lat_n=tuple(d.lat_n),
            lat_u=tuple(d.lat_u),
            lat_m=tuple(d.lat_m),
            bw_stat=bw_stat,
            iops_stat=iops_stat,
        )

    @classmethod
    def pooled(cls, parts: Sequence[DirectionStats]) -> DirectionStats:
        """One direction of runs that ran one after another (see :func:`pool_runs`)."""
        if not parts:
            raise ValueError("nothing to pool")
        first = parts[0]
        for d in parts[1:]:
            if d.bs_bytes != first.bs_bytes or d.percentile_list != first.percentile_list:
                raise ValueError("pooled runs must have the same block size and percentiles")

        def add(which: str) -> tuple[int, ...]:
            return tuple(int(x) for x in np.sum([getattr(d, which) for d in parts], axis=0))

        def hist(which: str) -> FioHistogram:
            hs = [getattr(d, which) for d in parts]
            return FioHistogram(counts=np.sum([h.counts for h in hs], axis=0),
                                overflow=sum(h.overflow for h in hs))

        return cls(
            slat=LatencySummary.pooled([d.slat for d in parts]),
            clat=LatencySummary.pooled([d.clat for d in parts]),
            lat=LatencySummary.pooled([d.lat for d in parts]),
            bs_bytes=first.bs_bytes,
            runtime_ns=sum(d.runtime_ns for d in parts),
            total_ios=sum(d.total_ios for d in parts),
            io_bytes=sum(d.io_bytes for d in parts),
            clat_hist=hist("clat_hist"),
            lat_hist=hist("lat_hist"),
            percentile_list=first.percentile_list,
            lat_n=add("lat_n"),
            lat_u=add("lat_u"),
            lat_m=add("lat_m"),
            bw_stat=IntervalSummary.pooled([d.bw_stat for d in parts]),
            iops_stat=IntervalSummary.pooled([d.iops_stat for d in parts]),
            short_ios=sum(d.short_ios for d in parts),
            drop_ios=sum(d.drop_ios for d in parts),
        )

    # --- fio-derived quantities -------------------------------------------------
    @property
    def runtime_ms(self) -> int:
        ms = self.runtime_ns // 1_000_000
        return max(ms, 1) if self.total_ios else ms

    @property
    def bw_bytes(self) -> int:
        """Bytes/s, fio integer arithmetic on the ms runtime."""
        return (1000 * self.io_bytes) // self.runtime_ms if self.runtime_ms else 0

    @property
    def bw(self) -> int:
        """KiB/s (fio JSON ``bw``)."""
        return self.bw_bytes // 1024

    @property
    def iops(self) -> float:
        return 1000.0 * self.total_ios / self.runtime_ms if self.runtime_ms else 0.0

    @property
    def iops_exact(self) -> float:
        """I/Os per second of the exact simulated run time.  fio's ``iops`` divides by
        whole milliseconds; a short, fast run (5000 I/Os in ~129 ms) then gives the same
        figure for every seed, and statistics across seeds need the unrounded one."""
        return self.total_ios * 1e9 / self.runtime_ns if self.runtime_ns else 0.0

    @property
    def clat_percentiles(self) -> dict[float, int]:
        return self.clat_hist.percentiles(self.percentile_list)

    @property
    def lat_percentiles(self) -> dict[float, int]:
        return self.lat_hist.percentiles(self.percentile_list)

    @property
    def overflow(self) -> int:
        """Samples >= 2**34 ns (~17.2 s) clamped into fio's last bucket (clat or lat)."""
        return max(self.clat_hist.overflow, self.lat_hist.overflow)


@dataclass(frozen=True)
class JobStats:
    """One fio job (``thread_stat``) with its read/write directions.

    ``bs`` in bytes; ``runtime_ns`` is the job's run time (``job_runtime``).
    ``rwmixread``: the read share (%) of a mixed job (``rw``/``randrw``), shown among its
    options.  ``job_options`` are further entries for JSON ``"job options"`` (strings, in
    the order given: e.g. ``runtime`` as the user wrote it).  ``usr_cpu``/``sys_cpu``: the
    job thread's CPU time in user space and in the kernel, % of the run time.
    """

    jobname: str
    rw: str
    bs: int
    iodepth: int = 1
    numjobs: int = 1
    ioengine: str = "cephsim"
    runtime_ns: int = 0
    read: DirectionStats | None = None
    write: DirectionStats | None = None
    usr_cpu: float = 0.0
    sys_cpu: float = 0.0
    groupid: int = 0
    job_options: Mapping[str, str] = field(default_factory=dict)
    rwmixread: int | None = None
    #: I/O counts per fio depth level (1, 2, 4, 8, 16, 32, >=64); default: all
    #: I/Os at the level of ``iodepth`` (a closed-loop job keeps the queue full).
    iodepth_counts: tuple[int, ...] | None = None

    def directions(self) -> list[tuple[str, DirectionStats | None]]:
        return [("read", self.read), ("write", self.write)]

    @property
    def total_ios(self) -> int:
        return sum(d.total_ios for _, d in self.directions() if d is not None)

    @property
    def overflow(self) -> int:
        return sum(d.overflow for _, d in self.directions() if d is not None)

    def depth_counts(self) -> tuple[int, ...]:
        if self.iodepth_counts is not None:
            if len(self.iodepth_counts) != 7:
                raise ValueError("iodepth_counts needs 7 entries")
            return tuple(int(c) for c in self.iodepth_counts)
        d = self.iodepth
        level = 0 if d < 2 else 1 if d < 4 else 2 if d < 8 else 3 if d < 16 else (
            4 if d < 32 else 5 if d < 64 else 6)
        counts = [0] * 7
        counts[level] = self.total_ios
        return tuple(counts)

    def lat_dist_percent(self) -> tuple[list[float], list[float], list[float]]:
        """``stat_calc_lat_n/u/m``: % of all I/Os per bucket; non-zero < 0.01 -> 0.01."""
        total = self.total_ios
        dirs = [d for _, d in self.directions() if d is not None]

        def pct(which: str, nr: int) -> list[float]:
            out = []
            for i in range(nr):
                c = sum(getattr(d, which)[i] for d in dirs)
                v = (c / total) * 100.0 if total else 0.0  # same op order as fio
                out.append(0.01 if (c and v < 0.01) else v)
            return out

        return pct("lat_n", 10), pct("lat_u", 10), pct("lat_m", 12)


def pool_runs(jobs: Sequence[JobStats]) -> JobStats:
    """Runs of one job (e.g. one per seed) as one job that ran them one after another.

    Like fio's ``loops``: I/Os, bytes and run times add up, latencies and the ``bw``/
    ``iops`` interval samples are pooled, so IOPS is all I/Os over all the run time and
    each statistic is that of all the samples together.  CPU use is weighted by run time
    (fio adds up CPU time and run time).  The runs must be of the same job (rw, bs,
    iodepth, numjobs); name, engine and options are the first run's.
    """
    if not jobs:
        raise ValueError("nothing to pool")
    first = jobs[0]
    for j in jobs[1:]:
        if (j.rw, j.bs, j.iodepth, j.numjobs) != (first.rw, first.bs, first.iodepth,
                                                   first.numjobs):
            raise ValueError("pooled runs must be of the same job (rw, bs, iodepth, numjobs)")

    def direction(name: str) -> DirectionStats | None:
        parts = [d for d in (getattr(j, name) for j in jobs) if d is not None]
        return DirectionStats.pooled(parts) if parts else None

    total_ns = sum(j.runtime_ns for j in jobs)

    def cpu(which: str) -> float:
        if not total_ns:
            return 0.0
        return sum(getattr(j, which) * j.runtime_ns for j in jobs) / total_ns

    depths = None
    if any(j.iodepth_counts is not None for j in jobs):
        depths = tuple(int(x) for x in np.sum([j.depth_counts() for j in jobs], axis=0))
    return JobStats(jobname=first.jobname, rw=first.rw, bs=first.bs, iodepth=first.iodepth,
                    numjobs=first.numjobs, ioengine=first.ioengine, runtime_ns=total_ns,
                    read=direction("read"), write=direction("write"), usr_cpu=cpu("usr_cpu"),
                    sys_cpu=cpu("sys_cpu"), groupid=first.groupid,
                    job_options=dict(first.job_options), rwmixread=first.rwmixread,
                    iodepth_counts=depths)


#: Re-exported for callers that want to warn about clamped samples.
HISTOGRAM_LIMIT_NS = HIST_MAX_EXACT_NS


@dataclass(frozen=True)
class GroupDirStats:
    """One direction of fio's ``group_run_stats`` (``__show_run_stats``)."""

    min_run: int  # ms
    max_run: int  # ms
    min_bw: int  # bytes/s
    max_bw: int  # bytes/s
    iobytes: int
    agg: int  # bytes/s = iobytes * 1000 // max_run


def group_run_stats(jobs: Sequence[JobStats]) -> dict[int, dict[str, GroupDirStats]]:
    """``{groupid: {"read"|"write": GroupDirStats}}`` as in fio's ``__show_run_stats``."""
    acc: dict[int, dict[str, list[int]]] = {}
    for job in jobs:
        g = acc.setdefault(job.groupid, {})
        for name, d in job.directions():
            if d is None or not d.runtime_ms or not d.total_ios:
                continue
            run = d.runtime_ms
            bw = d.io_bytes * 1000 // run
            if name not in g:
                g[name] = [run, run, bw, bw, 0]
            s = g[name]
            s[0], s[1] = min(s[0], run), max(s[1], run)
            s[2], s[3] = min(s[2], bw), max(s[3], bw)
            s[4] += d.io_bytes
    out: dict[int, dict[str, GroupDirStats]] = {}
    for gid in sorted(acc):
        out[gid] = {
            name: GroupDirStats(s[0], s[1], s[2], s[3], s[4], s[4] * 1000 // s[1])
            for name, s in sorted(acc[gid].items(), key=lambda kv: kv[0] != "read")
        }
    return out


def bw_agg_percent(mean_kib: float, agg_bytes: int) -> float:
    """``convert_agg_kbytes_percent``: note fio truncates ``mean`` to ``int`` first."""
    p = 100.0
    if agg_bytes > 1024:
        p = int(mean_kib) * 100.0 / (agg_bytes / 1024.0)
        p = min(p, 100.0)
    return p


def calc_dist(counts: Sequence[int]) -> list[float]:
    """fio's ``stat_calc_dist``: shares in percent, a non-zero share below 0.1 shown as 0.1."""
    total = sum(counts)
    out = []
    for c in counts:
        v = (c / total) * 100.0 if total else 0.0
        out.append(0.1 if (c and v < 0.1) else v)
    return out
