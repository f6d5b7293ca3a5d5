"""fio's log-linear latency histogram and histogram-derived percentiles.

This module mirrors, bit for bit, the parts of fio's ``stat.c`` / ``stat.h``
that turn per-I/O latencies into the numbers fio reports:

* ``plat_val_to_idx`` / ``plat_idx_to_val`` (stat.c) with
  ``FIO_IO_U_PLAT_BITS = 6``, ``FIO_IO_U_PLAT_VAL = 64`` and
  ``FIO_IO_U_PLAT_GROUP_NR = 29`` (stat.h), i.e. 1856 buckets: values below
  128 ns map to their own bucket, every further power of two is split into
  64 equal sub-buckets, and a bucket is reported as the *midpoint* of its range
  (so reported latencies are quantised, max. relative error 1/128).
* ``calc_clat_percentiles`` (stat.c): walk the buckets accumulating counts
  and report, for each requested percentile ``p`` (sorted ascending), the value
  of the first bucket whose cumulative count satisfies
  ``sum >= (long double) p / 100.0 * nr``.  The threshold is evaluated in
  ``numpy.longdouble`` exactly as fio's C code does (80-bit extended precision
  on x86-64 Linux), so borderline cases such as ``nr = 1000, p = 99.9`` pick
  the same bucket as fio.
* json+ ``"bins"`` (``add_ddir_lat_json`` in stat.c): ``{"<bucket value ns>":
  count}`` for every non-empty bucket, in bucket order.

Overflow: fio clamps every value >= 2**34 ns (~17.2 s) into the last bucket
(whose reported value is 17_112_760_320 ns) without telling anyone.  We clamp
the same way, but :class:`FioHistogram` carries ``overflow``: the number of
samples that were beyond the histogram range, so callers can warn.

Everything is vectorised with numpy; 10**6 samples take a few milliseconds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = [
    "DEFAULT_PERCENTILES",
    "FIO_IO_U_PLAT_BITS",
    "FIO_IO_U_PLAT_GROUP_NR",
    "FIO_IO_U_PLAT_NR",
    "FIO_IO_U_PLAT_VAL",
    "HIST_MAX_EXACT_NS",
    "LAT_M_EDGES",
    "LAT_N_EDGES",
    "LAT_U_EDGES",
    "FioHistogram",
    "bins_from_counts",
    "calc_percentiles",
    "counts_from_bins",
    "latency_bucket_counts",
    "plat_idx_to_val",
    "plat_val_to_idx",
]

FIO_IO_U_PLAT_BITS = 6
FIO_IO_U_PLAT_VAL = 1 << FIO_IO_U_PLAT_BITS  # 64
FIO_IO_U_PLAT_GROUP_NR = 29
FIO_IO_U_PLAT_NR = FIO_IO_U_PLAT_GROUP_NR * FIO_IO_U_PLAT_VAL  # 1856
#: fio's ``FIO_IO_U_LIST_MAX_LEN``: at most 20 percentiles are reported.
FIO_IO_U_LIST_MAX_LEN = 20
#: First value (ns) that no longer fits the histogram; fio clamps it (and
#: everything larger) into the last bucket.
HIST_MAX_EXACT_NS = 1 << (FIO_IO_U_PLAT_GROUP_NR + FIO_IO_U_PLAT_BITS - 1)  # 2**34

#: fio's default ``percentile_list`` (``def_percentile_list`` in options.c).
DEFAULT_PERCENTILES: tuple[float, ...] = (
    1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0,
    95.0, 99.0, 99.5, 99.9, 99.95, 99.99,
)  # fmt: skip


def _as_ns_array(values: npt.ArrayLike) -> npt.NDArray[np.int64]:
    arr = np.asarray(values)
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)):
            raise ValueError("latencies must be finite")
        arr = arr.astype(np.int64)  # fio stores integer ns; truncate like a C cast
    elif arr.dtype.kind not in "iu":
        raise TypeError(f"latencies must be integer nanoseconds, got dtype {arr.dtype}")
    arr = arr.astype(np.int64, copy=False).ravel()
    if arr.size and int(arr.min()) < 0:
        raise ValueError("latencies must be >= 0 ns")
    return arr


def plat_val_to_idx(values: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """Vectorised fio ``plat_val_to_idx``: bucket index of each value (ns).

    Values >= :data:`HIST_MAX_EXACT_NS` are clamped to the last bucket, as fio does.
    Accepts a scalar or an array; always returns an int64 array.
    """
    v = _as_ns_array(np.atleast_1d(values))
    # Clamping the value first gives the same index as fio's index clamp
    # (2**34 - 1 already maps to FIO_IO_U_PLAT_NR - 1) and keeps floats exact.
    v = np.minimum(v, HIST_MAX_EXACT_NS - 1)
    # msb = position of the most significant bit; exact since v < 2**53.
    _, exp = np.frexp(v.astype(np.float64))
    msb = exp.astype(np.int64) - 1
    error_bits = np.maximum(msb - FIO_IO_U_PLAT_BITS, 0)
    base = (error_bits + 1) << FIO_IO_U_PLAT_BITS
    offset = (FIO_IO_U_PLAT_VAL - 1) & (v >> error_bits)
    idx = np.where(msb <= FIO_IO_U_PLAT_BITS, v, base + offset)
    return np.minimum(idx, FIO_IO_U_PLAT_NR - 1).astype(np.int64)


def plat_idx_to_val(idx: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """Vectorised fio ``plat_idx_to_val``: the value (ns) fio reports for a bucket.

    Below 128 the bucket value is the index itself; above, it is the midpoint
    ``base + (k + 0.5) * 2**error_bits`` (an exact integer for these buckets).
    """
    i = np.atleast_1d(np.asarray(idx, dtype=np.int64))
    if i.size and (int(i.min()) < 0 or int(i.max()) >= FIO_IO_U_PLAT_NR):
        raise ValueError(f"bucket index out of range [0, {FIO_IO_U_PLAT_NR})")
    error_bits = np.maximum((i >> FIO_IO_U_PLAT_BITS) - 1, 0)
    base = np.int64(1) << (error_bits + FIO_IO_U_PLAT_BITS)
    k = i % FIO_IO_U_PLAT_VAL
    # (k + 0.5) * 2**eb == (2k + 1) * 2**(eb - 1), eb >= 1 here.
    mid = base + (((2 * k + 1) << error_bits) >> 1)
    return np.where(i < (FIO_IO_U_PLAT_VAL << 1), i, mid).astype(np.int64)


#: Reported value of every bucket, precomputed.
BUCKET_VALUES: npt.NDArray[np.int64] = plat_idx_to_val(np.arange(FIO_IO_U_PLAT_NR))


def calc_percentiles(
    counts: npt.ArrayLike,
    percentiles: Sequence[float] = DEFAULT_PERCENTILES,
    nr: int | None = None,
) -> tuple[tuple[float, ...], tuple[int, ...]]:
    """fio ``calc_clat_percentiles``: percentile values (ns) from bucket counts.

    ``percentiles`` is sorted ascending (fio sorts its list too) and truncated
    to 20 entries; ``nr`` defaults to the histogram total (fio passes the
    sample count, which equals it).  Returns ``(sorted_percentiles, values)``;
    both are empty when the histogram is empty.
    """
    c = np.asarray(counts, dtype=np.int64)
    if c.shape != (FIO_IO_U_PLAT_NR,):
        raise ValueError(f"counts must have shape ({FIO_IO_U_PLAT_NR},)")
    plist = sorted(float(p) for p in percentiles)[:FIO_IO_U_LIST_MAX_LEN]
    for p in plist:
        if not 0.0 < p <= 100.0:
            raise ValueError(f"percentile {p} outside (0, 100]")
    total = int(c.sum()) if nr is None else int(nr)
    if total <= 0 or not plist:
        return (), ()
    cum = np.cumsum(c).astype(np.longdouble)
    # fio: sum >= ((long double) plist[j].u.f / 100.0 * nr)
    thr = np.asarray(plist, dtype=np.longdouble) / np.longdouble(100.0) * np.longdouble(total)
    idx = np.searchsorted(cum, thr, side="left")
    if int(idx.max()) >= FIO_IO_U_PLAT_NR:
        # fio logs "error calculating latency percentiles" and prints garbage.
        raise ValueError("percentile threshold beyond histogram total (nr > sum of counts?)")
    return tuple(plist), tuple(int(v) for v in BUCKET_VALUES[idx])


def bins_from_counts(counts: npt.ArrayLike) -> dict[str, int]:
    """json+ ``bins``: ``{"<bucket value ns>": count}`` for non-empty buckets, in order."""
    c = np.asarray(counts, dtype=np.int64)
    nz = np.flatnonzero(c)
    return {str(int(BUCKET_VALUES[i])): int(c[i]) for i in nz}


def counts_from_bins(bins: dict[str, int]) -> npt.NDArray[np.int64]:
    """Inverse of :func:`bins_from_counts` (e.g. to re-use a real fio json+ histogram)."""
    counts = np.zeros(FIO_IO_U_PLAT_NR, dtype=np.int64)
    for key, n in bins.items():
        i = int(plat_val_to_idx(int(key))[0])
        if int(BUCKET_VALUES[i]) != int(key):
            raise ValueError(f"{key} is not a fio bucket value")
        counts[i] += int(n)
    return counts


@dataclass(frozen=True, eq=False)
class FioHistogram:
    """A fio latency histogram (``io_u_plat``) plus an overflow count.

    ``counts`` has :data:`FIO_IO_U_PLAT_NR` int64 entries; ``overflow`` is how
    many of the samples were >= :data:`HIST_MAX_EXACT_NS` and therefore sit
    (clamped, as in fio) in the last bucket with a wrong value.
    """

    counts: npt.NDArray[np.int64]
    overflow: int = 0

    def __post_init__(self) -> None:
        c = np.asarray(self.counts, dtype=np.int64)
        if c.shape != (FIO_IO_U_PLAT_NR,):
            raise ValueError(f"counts must have shape ({FIO_IO_U_PLAT_NR},)")
        c = c.copy()
        c.setflags(write=False)
        object.__setattr__(self, "counts", c)

    @classmethod
    def from_samples(cls, samples_ns: npt.ArrayLike) -> FioHistogram:
        v = _as_ns_array(samples_ns)
        counts = np.bincount(plat_val_to_idx(v), minlength=FIO_IO_U_PLAT_NR).astype(np.int64)
        return cls(counts=counts, overflow=int(np.count_nonzero(v >= HIST_MAX_EXACT_NS)))

    @classmethod
    def from_bins(cls, bins: dict[str, int]) -> FioHistogram:
        return cls(counts=counts_from_bins(bins))

    @property
    def total(self) -> int:
        return int(self.counts.sum())

    def percentiles(
        self, percentiles: Sequence[float] = DEFAULT_PERCENTILES
    ) -> dict[float, int]:
        """``{percentile: value_ns}`` exactly as fio reports them (sorted)."""
        plist, vals = calc_percentiles(self.counts, percentiles)
        return dict(zip(plist, vals, strict=True))

    def bins(self) -> dict[str, int]:
        return bins_from_counts(self.counts)

    def expand(self) -> npt.NDArray[np.int64]:
        """One sample per count at the bucket value (for tests / re-binning)."""
        return np.repeat(BUCKET_VALUES, self.counts)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FioHistogram):
            return NotImplemented
        return self.overflow == other.overflow and bool(np.array_equal(self.counts, other.counts))

    __hash__ = None  # type: ignore[assignment]


# Lower edges of the io_u_lat_n/u/m buckets (io_u.c: io_u_mark_lat_*), in the
# bucket's own unit.  Labels ("2", "4", ..., ">=2000") are the *upper* bounds.
LAT_N_EDGES = (0, 2, 4, 10, 20, 50, 100, 250, 500, 750)
LAT_U_EDGES = LAT_N_EDGES
LAT_M_EDGES = (0, 2, 4, 10, 20, 50, 100, 250, 500, 750, 1000, 2000)


def latency_bucket_counts(
    clat_ns: npt.NDArray[np.int64],
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """``io_u_mark_latency`` (io_u.c): counts per nsec/usec/msec bucket."""
    v = clat_ns
    n_part = v[v < 1000]
    u_part = v[(v >= 1000) & (v < 1_000_000)] // 1000
    m_part = v[v >= 1_000_000] // 1_000_000

    def count(vals: npt.NDArray[np.int64], edges: Sequence[int]) -> tuple[int, ...]:
        idx = np.searchsorted(np.asarray(edges), vals, side="right") - 1
        return tuple(int(c) for c in np.bincount(idx, minlength=len(edges)))

    return count(n_part, LAT_N_EDGES), count(u_part, LAT_U_EDGES), count(m_part, LAT_M_EDGES)
