"""Per-op records, folded into running statistics as the run goes.

The recorder is attached from outside the model: the workload hands it every
completed op.  Ops are buffered in chunks of :data:`CHUNK` and each chunk is
folded into exact running statistics per direction (integer sums and sums of
squares, fio's latency histograms, its io_u_lat buckets, completions per
bandwidth window), so a run's memory does not grow with its length.  With
``records`` on it also sums the critical-path accumulator and the op-tracker
event times (the breakdown's means).  ``keep_ops`` keeps every op as well
(:meth:`Recorder.arrays`), for the commands that need single ops or exact
quantiles (explain, calibrate, a sweep's comparison).  Statistics never
depend on either option.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from cephsim.metrics.fio_hist import (
    FIO_IO_U_PLAT_NR,
    HIST_MAX_EXACT_NS,
    calc_percentiles,
    latency_bucket_counts,
    plat_val_to_idx,
)


class FinishedOp(Protocol):
    """What a recorder reads of a completed op (the write path's ``Op``): measurement is
    attached from outside, so it names the fields it needs instead of importing the model."""

    is_write: bool
    submit: int
    slat_end: int
    seq: int
    pg: int
    acc: Any  #: per-category ns on the critical path (a list; a tracing list when traced)
    ev: Any  #: per-category event counts
    job: Any  #: the fio job it belongs to (``.name``)


CATEGORIES = ("network", "cpu", "wake", "disk", "queue")

#: ops buffered before they are folded into the statistics (a few MB of Python objects)
CHUNK = 1 << 14
#: fio's bw_avg_time / iops_avg_time default: the bandwidth and IOPS sample window
WINDOW_NS = 500 * 10**6


@dataclass
class Moments:
    """Exact running sums of one latency (integer ns): count, min, max, sum, sum of squares."""

    n: int = 0
    lo: int = 0
    hi: int = 0
    s1: int = 0
    s2: int = 0

    def add(self, x: np.ndarray) -> None:
        if not x.size:
            return
        lo, hi = int(x.min()), int(x.max())
        self.lo, self.hi = (lo, hi) if not self.n else (min(self.lo, lo), max(self.hi, hi))
        self.n += int(x.size)
        v = x.tolist()  # Python ints: the squares of long latencies overflow int64
        self.s1 += sum(v)
        self.s2 += sum(map(int.__mul__, v, v))


@dataclass
class Histogram:
    """fio's latency histogram, counted as the samples come."""

    counts: np.ndarray = field(default_factory=lambda: np.zeros(FIO_IO_U_PLAT_NR, np.int64))
    overflow: int = 0

    def add(self, x: np.ndarray) -> None:
        self.counts += np.bincount(plat_val_to_idx(x), minlength=FIO_IO_U_PLAT_NR)
        self.overflow += int(np.count_nonzero(x >= HIST_MAX_EXACT_NS))


@dataclass
class DirectionSums:
    """One direction's statistics so far: what fio's numbers are computed from."""

    slat: Moments = field(default_factory=Moments)
    clat: Moments = field(default_factory=Moments)
    lat: Moments = field(default_factory=Moments)
    clat_hist: Histogram = field(default_factory=Histogram)
    lat_hist: Histogram = field(default_factory=Histogram)
    lat_n: list[int] = field(default_factory=lambda: [0] * 10)
    lat_u: list[int] = field(default_factory=lambda: [0] * 10)
    lat_m: list[int] = field(default_factory=lambda: [0] * 12)
    #: completions per WINDOW_NS window from the first measured submit
    windows: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    #: with records: sums over the ops of the accumulator (CATEGORIES), of each op-tracker
    #: event time, of max(op_commit, sub_op_commit_rec), of submit and of completion
    acc: list[int] = field(default_factory=lambda: [0] * len(CATEGORIES))
    ev: list[int] = field(default_factory=list)
    ev_commit_last: int = 0
    submit: int = 0
    complete: int = 0

    @property
    def n(self) -> int:
        return self.lat.n

    def add_windows(self, complete: np.ndarray, t0: int) -> None:
        if not complete.size:
            return
        c = np.bincount((complete - t0) // WINDOW_NS)
        if c.size > self.windows.size:
            c[:self.windows.size] += self.windows
            self.windows = c
        else:
            self.windows[:c.size] += c


def _isum(x: np.ndarray) -> int:
    return int(x.sum(dtype=np.int64))


class Recorder:
    def __init__(self, keep_records: bool = True, keep_ops: bool = True) -> None:
        self.keep = keep_records
        self.keep_ops = keep_ops
        self._buf: list[tuple[int, int, int, int, int]] = []  # is_write, submit, slat_end, t, seq
        self._acc: list[list[int]] = []
        self._ev: list[list[int]] = []
        self._n = 0  # ops folded in
        self._last = 0
        self._dirs = {True: DirectionSums(), False: DirectionSums()}
        self._kept: list[dict[str, np.ndarray]] = []
        self._arrays: dict[str, np.ndarray] | None = None
        # The bandwidth windows start at the earliest submit of a measured op.  Ops are
        # issued in sequence order, so that is the op of the lowest measured sequence
        # number, known for sure once every op issued before it has completed: until then
        # completion times wait in _pending.  _done holds the sequence numbers completed
        # above _water, the lowest not yet seen.
        self._t0: int | None = None
        self._min_seq = -1
        self._open = True
        self._done: set[int] = set()
        self._water = 0
        self._pending: list[tuple[np.ndarray, np.ndarray]] = []
        self._settled = False
        self.traces: dict[int, dict[str, object]] = {}  #: op seq -> traced op (see trace.py)

    def add(self, op: FinishedOp, t: int) -> None:
        buf = self._buf
        buf.append((op.is_write, op.submit, op.slat_end, t, op.seq))
        if self.keep:
            self._acc.append(list(op.acc))
            self._ev.append(list(op.ev))
        if type(op.acc) is not list:
            self.traces[op.seq] = {
                "submit": op.submit,
                "slat_end": op.slat_end,
                "complete": t,
                "is_write": op.is_write,
                "acc": list(op.acc),
                "ev": list(op.ev),
                "spans": list(op.acc.spans),  # type: ignore[attr-defined]
                "job": op.job.name,
                "pg": op.pg,
            }
        if len(buf) >= CHUNK:
            self._fold()

    def skip(self, seq: int) -> None:
        """An op completed that is not measured (warm-up)."""
        if self._open:
            self._done.add(seq)

    def _fold(self) -> None:
        if self._settled:
            raise RuntimeError("the recorder's statistics were already read")
        if not self._buf:
            return
        core = np.array(self._buf, dtype=np.int64).reshape(-1, 5)
        self._buf = []
        acc = ev = None
        if self.keep:
            acc = np.array(self._acc, dtype=np.int64)
            ev = np.array(self._ev, dtype=np.int64)
            self._acc, self._ev = [], []
        is_write = core[:, 0].astype(bool)
        submit, slat_end, complete, seq = core[:, 1], core[:, 2], core[:, 3], core[:, 4]
        if self.keep_ops:
            kept = {"is_write": is_write, "submit": submit, "slat_end": slat_end,
                    "complete": complete}
            if acc is not None:
                kept.update(acc=acc, ev=ev, seq=seq)
            self._kept.append(kept)
        self._n += int(core.shape[0])
        self._last = max(self._last, int(complete.max()))
        first = int(np.argmin(seq))
        if self._t0 is None or int(seq[first]) < self._min_seq:
            self._min_seq, self._t0 = int(seq[first]), int(submit[first])
        for w in (True, False):
            mask = is_write if w else ~is_write
            if not mask.any():
                continue
            d = self._dirs[w]
            sub, se, done = submit[mask], slat_end[mask], complete[mask]
            clat, lat = done - se, done - sub
            d.slat.add(se - sub)
            d.clat.add(clat)
            d.lat.add(lat)
            d.clat_hist.add(clat)
            d.lat_hist.add(lat)
            for into, part in zip((d.lat_n, d.lat_u, d.lat_m), latency_bucket_counts(clat)):
                for i, c in enumerate(part):
                    into[i] += c
            if acc is not None and ev is not None:
                a, e = acc[mask], ev[mask]
                for i in range(a.shape[1]):
                    d.acc[i] += _isum(a[:, i])
                sums = [_isum(e[:, i]) for i in range(e.shape[1])]
                d.ev = [x + y for x, y in zip(d.ev, sums)] if d.ev else sums
                if e.shape[1] > 6:
                    d.ev_commit_last += _isum(np.maximum(e[:, 5], e[:, 6]))
                d.submit += _isum(sub)
                d.complete += _isum(done)
        if self._open:
            self._pending.append((is_write, complete))
            self._done.update(seq.tolist())
            while self._water in self._done:
                self._done.discard(self._water)
                self._water += 1
            if self._water >= self._min_seq:  # every op issued before the first has completed
                self._close_t0()
        else:
            self._windows(is_write, complete)

    def _windows(self, is_write: np.ndarray, complete: np.ndarray) -> None:
        assert self._t0 is not None
        self._dirs[True].add_windows(complete[is_write], self._t0)
        self._dirs[False].add_windows(complete[~is_write], self._t0)

    def _close_t0(self) -> None:
        self._open = False
        self._done = set()
        for is_write, complete in self._pending:
            self._windows(is_write, complete)
        self._pending = []

    def _settle(self) -> None:
        """Fold what is buffered; the statistics are final (the run is over)."""
        if self._settled:
            return
        self._fold()
        if self._open and self._t0 is not None:
            self._close_t0()
        self._settled = True

    # --- what the run's reports read -----------------------------------------------------
    def count(self) -> int:
        return self._n + len(self._buf)

    def last_complete(self) -> int:
        return max(self._last, max((c[3] for c in self._buf), default=0))

    def t0(self) -> int:
        """The earliest submit of a measured op (0 without any): where fio's clock starts."""
        self._settle()
        return self._t0 or 0

    def direction(self, is_write: bool) -> DirectionSums | None:
        """One direction's statistics, or None where it had no measured op."""
        self._settle()
        d = self._dirs[is_write]
        return d if d.n else None

    def lat_mean(self) -> float:
        """Mean latency (submit to completion, ns) over every measured op."""
        self._settle()
        n = self._dirs[True].n + self._dirs[False].n
        return (self._dirs[True].lat.s1 + self._dirs[False].lat.s1) / n if n else 0.0

    def lat_max(self) -> int:
        self._settle()
        return max(d.lat.hi for d in self._dirs.values())

    def lat_median(self) -> float:
        """The median latency (ns) over every measured op: exact with ``keep_ops``, else
        fio's histogram median (its bucket's value, within 1/128)."""
        self._settle()
        if self.keep_ops:
            a = self.arrays()
            return float(np.median(a["complete"] - a["submit"]))
        counts = self._dirs[True].lat_hist.counts + self._dirs[False].lat_hist.counts
        return float(calc_percentiles(counts, [50.0])[1][0])

    def arrays(self) -> dict[str, np.ndarray]:
        """Every measured op (``keep_ops``): direction, submit, slat end, completion; with
        records also the accumulator (``acc``), op-tracker times (``ev``) and ``seq``."""
        if not self.keep_ops:
            raise RuntimeError("this run kept no per-op records (keep_ops=False)")
        self._settle()
        if self._arrays is None:
            keys = ("is_write", "submit", "slat_end", "complete")
            if self._kept:
                out = {k: np.concatenate([c[k] for c in self._kept]) for k in keys}
            else:
                out = {"is_write": np.zeros(0, bool),
                       **{k: np.zeros(0, np.int64) for k in keys[1:]}}
            if self._kept and "acc" in self._kept[0]:
                out.update({k: np.concatenate([c[k] for c in self._kept])
                            for k in ("acc", "ev", "seq")})
            self._arrays = out
        return self._arrays
