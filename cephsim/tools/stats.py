"""Confidence intervals for what-if results (sweeps, comparisons).

- Across seeds (the normal case: K independent replications of one point):
  Student-t interval of the mean of the K per-seed values (:func:`mean_ci`);
  the difference of two configurations is a Welch interval
  (:func:`diff_ci`).  With common random numbers (same seeds for A and B) a
  paired interval is tighter; we report the Welch one, which is never
  optimistic.
- Within one run (K = 1): the t-interval of batch means over consecutive ops
  (:func:`batch_mean_values`), which accounts for the correlation between
  neighbouring ops of a closed-loop queue better than treating ops as
  independent.
- From a fio summary only (mean, stddev, N): the normal interval of the mean
  (:func:`summary_ci`); ops are treated as independent, so it is optimistic.

All intervals are two-sided, 95% by default.  An interval that cannot be
computed (one sample) is ``None``.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

#: a latency distribution whose slowest I/O takes this many times its fastest is drawn on a
#: log time axis: the tail then shows next to the bulk instead of squeezing it into a line
#: (the latency plot, the teaching page's histogram)
TAIL_SPAN = 3.0

LEVEL = 0.95


def _t(df: float, level: float) -> float:
    from scipy.stats import t

    return float(t.ppf(0.5 + level / 2, df))


def mean_ci(values: Sequence[float], level: float = LEVEL) -> tuple[float, float | None]:
    """Mean of ``values`` and the half-width of its t-interval (``None`` for fewer than 2)."""
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        return math.nan, None
    m = float(x.mean())
    if x.size < 2:
        return m, None
    s = float(x.std(ddof=1))
    return m, _t(x.size - 1, level) * s / math.sqrt(x.size)


def diff_ci(a: Sequence[float], b: Sequence[float],
            level: float = LEVEL) -> tuple[float, float | None]:
    """``mean(b) - mean(a)`` and the half-width of the Welch t-interval."""
    xa, xb = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    d = float(xb.mean() - xa.mean())
    if xa.size < 2 or xb.size < 2:
        return d, None
    va, vb = xa.var(ddof=1) / xa.size, xb.var(ddof=1) / xb.size
    se2 = va + vb
    if se2 == 0.0:
        return d, 0.0
    df = se2 ** 2 / ((va ** 2 / (xa.size - 1) if va else 0.0) + (vb ** 2 / (xb.size - 1) if vb else 0.0))
    return d, _t(df, level) * math.sqrt(se2)


def batch_mean_values(samples: Sequence[float], batches: int = 20) -> list[float]:
    """Means of ``batches`` consecutive, equal-sized batches of one run's per-op samples
    (the tail that does not fill a batch is left out); [] with fewer samples than batches.
    Their :func:`mean_ci` is the interval of the run's mean."""
    x = np.asarray(samples, dtype=float)
    n = x.size // batches * batches
    return x[:n].reshape(batches, -1).mean(axis=1).tolist() if n else []


def summary_ci(mean: float, stddev: float | None, n: int | None,
               level: float = LEVEL) -> float | None:
    """Half-width of the interval of a mean known only as (mean, stddev, N)."""
    if stddev is None or not n or n < 2:
        return None
    return _t(n - 1, level) * stddev / math.sqrt(n)


def welch_summary(m1: float, h1: float | None, m2: float,
                  h2: float | None) -> tuple[float, float | None]:
    """Difference ``m2 - m1`` of two means given with half-widths (large-sample combination)."""
    if h1 is None or h2 is None:
        return m2 - m1, None
    return m2 - m1, math.hypot(h1, h2)


def fmt_ci(m: float, h: float | None, digits: int = 1, sep: str = " ± ") -> str:
    """``"123.4 ± 5.6"`` (or just the mean without an interval).

    ``digits`` is the most decimals shown; a non-zero interval is shown with two
    significant digits and the mean to the same decimal place.
    """
    if m is None or (isinstance(m, float) and math.isnan(m)):
        return "-"
    if h is None or (isinstance(h, float) and math.isnan(h)):
        return f"{m:,.{digits}f}"
    d = digits
    if h > 0:
        d = min(digits, max(0, 1 - math.floor(math.log10(h))))
    return f"{m:,.{d}f}{sep}{h:,.{d}f}"
