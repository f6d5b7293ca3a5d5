"""Figures (matplotlib, headless Agg backend; PNG, SVG or PDF by the file's suffix).

- :func:`plot_latency`: latency CDF and histogram, fio's percentiles (p50, p99, p99.9)
  marked;
- :func:`plot_waterfall`: the timeline of one explained op (from
  :mod:`cephsim.tools.explain`), rows per thread / device / network direction,
  grouped by host, the critical path highlighted;
- :func:`plot_sweep`: a sweep's IOPS and latency percentiles against the swept
  field, with confidence bands across seeds; for a queue-depth (or numjobs) sweep
  also latency against IOPS;
- :func:`plot_mon_threshold`: the monitor verdict, quorum availability, command success
  and elections against the RTT between monitors (``cephsim mon-threshold --plot``).

Each ``plot_*`` saves the figure its ``*_figure`` builds.  The rules every figure keeps:
a time axis spanning a decade or more (a latency distribution: a tail 3x its fastest I/O)
is logarithmic, with labelled ticks inside the data (``100 us``, ``200 us``, ``500 us``,
``1 ms``), every time tick with its unit; a swept integer field gets integer ticks;
a confidence band is drawn light under its curve and the axis follows the curves, not a
band that blows up; components are named as :func:`cephsim.tools.names.component_label`
names them.  matplotlib is optional (``pip install 'cephsim[plot]'``) and imported only
when a figure is drawn.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from cephsim.errors import CephsimError
from cephsim.formats.output import atomic_path
from cephsim.metrics.fio_hist import FioHistogram
from cephsim.tools.explain import row_name
from cephsim.tools.names import component_label
from cephsim.tools.stats import TAIL_SPAN
from cephsim.units import parse_duration_ns, parse_size_bytes

CAT_COLOR = {"cpu": "#4477aa", "net": "#ee6677", "write": "#228833", "flush": "#aa3377",
             "read": "#66ccee", "wait": "#bbbbbb"}
STATE_COLOR = {"healthy": "#228833", "unstable": "#ccbb44", "broken": "#ee6677"}
#: data whose largest value is at least this many times their smallest get a log axis
LOG_SPAN = 10.0
#: confidence bands: light enough that the curves over them stay readable
BAND_ALPHA = 0.15
#: an axis widens for the bands by at most this share of its curves' span (see :func:`follow`)
BAND_ROOM = 0.15
#: at most this many labelled ticks on a log axis, none closer than this share of its length
MAX_LOG_TICKS = 7
MIN_LOG_GAP = 0.12


def _plt() -> Any:
    try:
        import matplotlib
    except ImportError:
        raise CephsimError.single("plots need matplotlib: pip install 'cephsim[plot]'") from None
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def _save(fig: Any, path: str | Path) -> Path:
    p = Path(path)
    import matplotlib.pyplot as plt

    if p.suffix.lower() not in (".png", ".svg", ".pdf"):
        plt.close(fig)
        raise CephsimError.single(f"{p}: a figure file must end in .png, .svg or .pdf")

    try:
        with atomic_path(p, "--plot", suffix=p.suffix) as tmp:
            fig.savefig(tmp, dpi=120, bbox_inches="tight", format=p.suffix.lower()[1:])
    finally:
        plt.close(fig)
    return p


# ------------------------------------------------------------------ axes


def fmt_duration(ns: float) -> str:
    """A tick label for a time: ``500 ns``, ``250 us``, ``1.5 ms``, ``12.8 s`` (3 significant
    digits, in the largest unit it is at least one of)."""
    if ns == 0:
        return "0"
    ns = float(f"{ns:.3g}")  # first: 999.9 us is "1 ms", not "1000 us"
    for div, unit in ((1e9, "s"), (1e6, "ms"), (1e3, "us"), (1.0, "ns")):
        if abs(ns) >= div:
            break
    return f"{ns / div:.3g} {unit}"


def fmt_count(v: float) -> str:
    """A tick label for a count or a rate: ``0.5``, ``50``, ``2.5k``, ``20k``, ``1.5M``."""
    a = abs(v)
    if a >= 1e6:
        return f"{round(v / 1e6, 2):g}M"
    if a >= 1e3:
        return f"{round(v / 1e3, 2):g}k"
    return f"{v:.0f}" if a >= 1 or v == 0 else f"{v:g}"


def _within(ticks: Sequence[float], lo: float, hi: float) -> list[float]:
    """The ticks from ``lo`` to ``hi``, each end with a relative rounding tolerance."""
    return [t for t in ticks if lo - 1e-9 * abs(lo) <= t <= hi + 1e-9 * abs(hi)]


def linear_ticks(lo: float, hi: float, nbins: int = 5) -> list[float]:
    """Round ticks between ``lo`` and ``hi`` (both included), at most ``nbins`` + 1."""
    from matplotlib.ticker import MaxNLocator

    if hi <= lo:
        return [lo]
    found = MaxNLocator(nbins=nbins, steps=[1, 2, 2.5, 5, 10]).tick_values(lo, hi)
    return [float(t) for t in _within(found, lo, hi)] or [lo, hi]


def log_ticks(lo: float, hi: float, max_ticks: int = MAX_LOG_TICKS) -> list[float]:
    """Ticks for a log axis showing ``lo`` to ``hi`` (> 0), all inside that range: the finest
    of 1-1.5-2-3-4-5-7, 1-2-3-5-7, 1-2-3-5, 1-2-5, 1-3 and the powers of ten (every k-th)
    that gives at most ``max_ticks``, none closer than :data:`MIN_LOG_GAP` of the range;
    round linear steps when the range holds fewer than two."""
    if not (0 < lo <= hi):
        raise ValueError(f"log ticks need 0 < lo <= hi (got {lo}, {hi})")
    e0, e1 = math.floor(math.log10(lo)) - 1, math.ceil(math.log10(hi)) + 1

    def seq(mants: Sequence[float], every: int = 1) -> list[float]:
        return _within([float(f"{m}e{e}") for e in range(e0, e1 + 1) if e % every == 0
                        for m in mants], lo, hi)

    # under a decade or so the round values between 1-2-5 are wanted (700 us, 1 ms, 1.5 ms,
    # 2 ms, 3 ms), over many decades only the powers of ten
    # the finest sequence that is not too many nor too close for their labels (each gap
    # at least MIN_LOG_GAP of the axis)
    span = math.log10(hi / lo) if hi > lo else 1.0
    for mants in ((1, 1.5, 2, 3, 4, 5, 7), (1, 2, 3, 5, 7), (1, 2, 3, 5), (1, 2, 5), (1, 3),
                  (1,)):
        ticks = seq(mants)
        gaps = np.diff(np.log10(ticks)) if len(ticks) > 1 else np.array([span])
        if len(ticks) <= max_ticks and gaps.min() >= MIN_LOG_GAP * span:
            break
    else:
        ticks = seq((1,), math.ceil(len(ticks) / max_ticks))
    return ticks if len(ticks) >= 2 else linear_ticks(lo, hi)


def value_axis(ax: Any, which: str, lo: float, hi: float, fmt: Callable[[float], str],
               log: bool | None = None, pad: float = 0.04) -> bool:
    """Scale, limits, ticks and tick labels of ``ax``'s ``which`` ("x" or "y") axis for data
    from ``lo`` to ``hi``: logarithmic when ``log`` says so (None: when the data span
    :data:`LOG_SPAN` or more), limits the data's with a margin of ``pad`` (in log space
    on a log axis), every major tick labelled by ``fmt`` and inside the data range.
    Call it after drawing: the limits are fixed here.  Returns whether the axis is log."""
    from matplotlib.ticker import (
        FixedLocator,
        FuncFormatter,
        LogLocator,
        NullFormatter,
        NullLocator,
    )

    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise ValueError(f"axis range must be finite (got {lo}, {hi})")
    lo, hi = min(lo, hi), max(lo, hi)
    if log is None:
        log = lo > 0 and hi / lo >= LOG_SPAN
    if log and lo <= 0:
        raise ValueError("a log axis needs positive data")
    axis = ax.xaxis if which == "x" else ax.yaxis
    (ax.set_xscale if which == "x" else ax.set_yscale)("log" if log else "linear")
    set_lim = ax.set_xlim if which == "x" else ax.set_ylim
    if log:
        ticks = log_ticks(lo, hi)
        f = (hi / lo) ** pad if hi > lo else 1.1
        set_lim(lo / f, hi * f)
        axis.set_minor_locator(LogLocator(base=10, subs=tuple(range(2, 10))))
    else:
        ticks = linear_ticks(lo, hi)
        m = (hi - lo) * pad if hi > lo else max(abs(hi) * 0.1, 1.0)
        set_lim(lo - m, hi + m)
        axis.set_minor_locator(NullLocator())
    axis.set_major_locator(FixedLocator(ticks))
    axis.set_major_formatter(FuncFormatter(lambda v, _: fmt(v)))
    axis.set_minor_formatter(NullFormatter())
    return log


def time_axis(ax: Any, which: str, lo: float, hi: float, unit_ns: float,
              log: bool | None = None, pad: float = 0.04) -> bool:
    """:func:`value_axis` for times plotted in units of ``unit_ns`` (1e3: microseconds);
    the ticks carry their unit (``500 us``, ``1 ms``)."""
    return value_axis(ax, which, lo, hi, lambda v: fmt_duration(v * unit_ns), log, pad)


def _geometric(xs: Sequence[float]) -> bool:
    """Whether sorted positive values are spaced more evenly on a log scale than on a linear
    one (1, 2, 4, 8 yes; 1, 5, 10, 15 no)."""
    v = sorted(set(xs))
    if len(v) < 3:
        return True
    lin, lg = np.diff(v), np.diff(np.log(v))
    return float(np.std(lg) / np.mean(lg)) <= float(np.std(lin) / np.mean(lin))


def swept_axis(ax: Any, xs: Sequence[float], integer: bool) -> bool:
    """The x axis of a swept numeric field: log when the values span :data:`LOG_SPAN` or
    more and are spaced geometrically; ticks at the values swept (up to 12), else round
    ones; an integer field's ticks are integers.  Returns whether the axis is log."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, MaxNLocator, NullLocator

    lo, hi = min(xs), max(xs)
    log = lo > 0 and hi / lo >= LOG_SPAN and _geometric(xs)

    def fmt(v: float) -> str:
        return f"{round(v):d}" if integer else f"{v:g}"

    if len(set(xs)) > 12:
        if log:
            value_axis(ax, "x", lo, hi, fmt, log=True)
            ticks = [t for t in ax.get_xticks() if not integer or float(t).is_integer()]
            ax.xaxis.set_major_locator(FixedLocator(ticks or [lo, hi]))
        else:
            ax.xaxis.set_major_locator(MaxNLocator(nbins=8, integer=integer))
            ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: fmt(v)))
        return log
    ax.set_xscale("log" if log else "linear")
    ax.xaxis.set_major_locator(FixedLocator(sorted(set(xs))))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: fmt(v)))
    ax.xaxis.set_minor_locator(NullLocator())
    if log:
        f = (hi / lo) ** 0.05
        ax.set_xlim(lo / f, hi * f)
    return log


def band(m: Sequence[float], h: Sequence[float | None], floor: float = 0.0
         ) -> tuple[list[float], list[float]]:
    """Lower and upper edges of confidence bands ``m`` +- ``h`` (no band where ``h`` is None),
    the lower edge stopped at ``floor``: a t-interval from a few seeds of a tail percentile
    can reach below zero, which the quantity cannot."""
    lower = [max(v - (x or 0.0), floor) for v, x in zip(m, h)]
    upper = [v + (x or 0.0) for v, x in zip(m, h)]
    return lower, upper


def follow(curves: Sequence[float], lower: Sequence[float], upper: Sequence[float],
           log: bool, room: float = BAND_ROOM) -> tuple[float, float]:
    """The range an axis shows: the curves', widened to take in their bands but by at most
    ``room`` times the curves' own span (a factor on a log axis): a band that blows up (a
    tail percentile's t-interval from a few seeds) is cut, and the curves keep the plot."""
    lo, hi = min(curves), max(curves)
    if log:
        f = max(hi / lo, 1.5) ** room
        return max(min(lower, default=lo), lo / f), min(max(upper, default=hi), hi * f)
    m = max(hi - lo, 0.1 * abs(hi)) * room
    return max(min(lower, default=lo), lo - m), min(max(upper, default=hi), hi + m)


def _off_axis(lower: Sequence[float], upper: Sequence[float], lim: tuple[float, float]) -> int:
    """How many of the intervals run past the axis limits (cut at the plot's edge)."""
    lo, hi = lim
    return sum(1 for a, b in zip(lower, upper) if a < lo or b > hi)


# ------------------------------------------------------------------ latency distribution


def latency_figure(lat_ns: Sequence[int] | np.ndarray, title: str,
                   percentiles: dict[float, int] | None = None) -> Any:
    """CDF and histogram of per-op latencies, fio percentiles and the mean marked; the time
    axis is logarithmic when the slowest I/O takes :data:`TAIL_SPAN` times the fastest or more.

    ``percentiles``: fio-style percentile -> ns (default: computed with fio's histogram)."""
    plt = _plt()
    lat = np.asarray(lat_ns, dtype=np.int64)
    if lat.size == 0:
        raise CephsimError.single("no latencies to plot")
    if percentiles is None:
        percentiles = FioHistogram.from_samples(lat).percentiles((50.0, 99.0, 99.9))
    us = np.sort(lat) / 1e3
    marks = [ns / 1e3 for ns in percentiles.values()] + [float(us.mean())]
    lo = max(min(float(us[0]), *marks), 1e-3)
    hi = max(float(us[-1]), *marks, lo * 1.001)
    log = hi / lo >= TAIL_SPAN
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.2))
    y = np.arange(1, us.size + 1) / us.size
    ax1.plot(us, y, color="#4477aa", lw=1.6, label=f"CDF ({us.size} I/Os)")
    ax1.set_ylabel("fraction of I/Os completed")
    ax1.set_ylim(0, 1.01)
    bins = (np.logspace(math.log10(lo), math.log10(hi), 60) if log
            else np.linspace(lo, hi, 60))
    counts, _, _ = ax2.hist(us, bins=bins, color="#4477aa", alpha=0.8, label="I/Os per bin")
    ax2.set_ylabel("I/Os per bin (log scale)")
    value_axis(ax2, "y", 1, max(float(np.max(counts)), 2.0), fmt_count, log=True)
    ax2.set_ylim(bottom=0.7)
    colors = {50.0: "#228833", 99.0: "#ccbb44", 99.9: "#ee6677"}
    for q, ns in sorted(percentiles.items()):
        c = colors.get(q, "#555555")
        for ax in (ax1, ax2):
            ax.axvline(ns / 1e3, color=c, ls="--", lw=1.2,
                       label=f"p{q:g} = {fmt_duration(ns)}" if ax is ax1 else None)
    ax1.axvline(us.mean(), color="#000000", ls=":", lw=1.2,
                label=f"mean = {fmt_duration(us.mean() * 1e3)}")
    for ax in (ax1, ax2):
        time_axis(ax, "x", lo, hi, 1e3, log=log, pad=0.02)
        ax.set_xlabel("latency per I/O" + (" (log scale)" if log else ""))
        ax.grid(True, which="major", alpha=0.3)
    ax1.legend(loc="lower right", fontsize=8)
    ax2.legend(loc="upper right", fontsize=8)
    ax1.set_title("cumulative distribution")
    ax2.set_title("histogram" + (" (log bins)" if log else ""))
    fig.suptitle(f"{title}: latency per I/O (fio percentiles of clat marked)")
    return fig


def plot_latency(lat_ns: Sequence[int] | np.ndarray, path: str | Path, title: str,
                 percentiles: dict[float, int] | None = None) -> Path:
    """:func:`latency_figure`, saved to ``path``."""
    return _save(latency_figure(lat_ns, title, percentiles), path)


# ------------------------------------------------------------------ one op


def waterfall_figure(ex: Any) -> Any:
    """Gantt chart of an explained op: rows per thread/device/network direction, by host,
    each labelled by :func:`~cephsim.tools.names.component_label`."""
    plt = _plt()
    from matplotlib.patches import Patch

    crit = {(s.resource, s.start, s.end) for s in ex.steps}
    rows: list[tuple[str, str]] = []  # (host, row name)
    seen: set[str] = set()
    by_host: dict[str, list[str]] = {}
    for sp in sorted(ex.spans, key=lambda x: (x[2], x[3])):
        name = row_name(sp[0])
        if name not in seen:
            seen.add(name)
            by_host.setdefault(ex.host_of.get(sp[0], ""), []).append(name)
    labels: list[str] = []
    group_bounds: list[tuple[int, int, str]] = []
    for host, role in ex.groups:
        names = by_host.get(host, [])
        if not names:
            continue
        a = len(rows)
        for n in names:
            rows.append((host, n))
            labels.append(component_label(n))
        group_bounds.append((a, len(rows), f"{host} ({role})"))
    index = {n: i for i, (_, n) in enumerate(rows)}
    fig, ax = plt.subplots(figsize=(12, 0.28 * len(rows) + 2.2))
    for sp in ex.spans:
        name = row_name(sp[0])
        yi = index[name]
        on = (sp[0], sp[2], sp[4]) in crit
        color = CAT_COLOR.get(sp[1], "#999999")
        a, s, e = sp[2] / 1e3, sp[3] / 1e3, sp[4] / 1e3
        if on and s > a:
            ax.barh(yi, s - a, left=a, height=0.35, color="#dddddd", edgecolor="none")
        ax.barh(yi, max(e - s, ex.latency_ns / 1e3 / 600), left=s, height=0.7, color=color,
                alpha=1.0 if on else 0.3, edgecolor="black" if on else "none", lw=0.5)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels(labels, fontsize=7)
    ax.invert_yaxis()
    for a, b, title in group_bounds:
        ax.axhline(a - 0.5, color="#888888", lw=0.6)
        ax.text(ex.latency_ns / 1e3 * 1.005, a - 0.3, title, fontsize=8, va="top", ha="left",
                color="#333333")
    ax.set_xlim(0, ex.latency_ns / 1e3 * 1.28)
    ax.set_xlabel("time since the client submitted the write (us)")
    ax.grid(True, axis="x", alpha=0.3)
    handles = [Patch(color=CAT_COLOR["cpu"], label="CPU work"),
               Patch(color=CAT_COLOR["net"], label="network message"),
               Patch(color=CAT_COLOR["write"], label="disk write"),
               Patch(color=CAT_COLOR["flush"], label="disk flush"),
               Patch(color="#dddddd", label="queued (critical path)"),
               Patch(facecolor="white", edgecolor="black", label="outlined: on the critical path; "
                     "faint: parallel branch")]
    ax.legend(handles=handles, loc="lower right", fontsize=7, framealpha=0.9)
    ax.set_title(f"{ex.scenario} (seed {ex.seed}): life of op {ex.seq}, {ex.rank}, "
                 f"{ex.latency_ns / 1e3:.1f} us", fontsize=10)
    return fig


def plot_waterfall(ex: Any, path: str | Path) -> Path:
    """:func:`waterfall_figure`, saved to ``path``."""
    return _save(waterfall_figure(ex), path)


# ------------------------------------------------------------------ sweeps


def _numeric(values: Sequence[str]) -> tuple[list[float], str] | None:
    """Axis values as numbers with a unit label, or None (categorical)."""
    try:
        return [float(v) for v in values], ""
    except ValueError:
        pass
    for parse, unit, div in ((parse_duration_ns, "ms", 1e6), (parse_size_bytes, "KiB", 1024)):
        try:
            xs = [parse(v) / div for v in values]
        except Exception:  # noqa: BLE001 - not this kind of value
            continue
        if unit == "ms" and max(xs) < 1:
            xs, unit = [x * 1e3 for x in xs], "us"
        return xs, unit
    return None


def _integral(values: Sequence[str], xs: Sequence[float]) -> bool:
    """A field swept over whole numbers written as such (``pool.size=2,3``,
    ``workload.iodepth=1,4,16``, ``bs=4KiB,64KiB``): its ticks are whole numbers too."""
    return all(float(x).is_integer() for x in xs) and not any("." in v for v in values)


def sweep_figure(res: Any) -> Any:
    """IOPS and latency percentiles against the swept field, 95 % confidence bands across
    seeds under the curves; for a queue-depth or numjobs sweep also latency against IOPS."""
    plt = _plt()
    from matplotlib.ticker import FuncFormatter

    vary = res.varying()
    xa = vary[0]
    other = vary[1] if len(vary) > 1 else None
    num = _numeric(xa.values)
    xs_of = dict(zip(xa.values, num[0] if num else range(len(xa.values))))
    xunit = f" ({num[1]})" if num and num[1] else ""
    qd = xa.path.endswith("iodepth") or xa.path.endswith("numjobs")
    ncol = 3 if qd else 2
    fig, axes = plt.subplots(1, ncol, figsize=(5.2 * ncol, 4.3))
    groups = other.values if other else [None]
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    metrics = (("mean_us", "mean", "-", "o"), ("p50_us", "p50", "--", "s"),
               ("p99_us", "p99", "-.", "^"), ("p999_us", "p99.9", ":", "v"))
    if other:
        metrics = metrics[:1] + metrics[2:3]
    lat = [pr.stat(key)[0] for pr in res.points for key, *_ in metrics]
    scale = 1e3 if max(lat) >= 10_000 else 1.0  # plotted in ms or us; the ticks say which
    lat_log = min(lat) > 0 and max(lat) / min(lat) >= LOG_SPAN
    # a band's lower edge stops at zero; on a log axis well below the curves instead
    lat_floor = min(lat) / scale * 1e-3 if lat_log else 0.0
    # (axis, lower, upper, drawn) of every band: the axes take them in up to a point, then
    # cut them
    bands: list[tuple[Any, list[float], list[float], Any]] = []
    curves: dict[int, list[float]] = {0: [], 1: [], 2: []}  # the values each axis follows
    iops_x: list[float] = []

    def draw(ax: Any, x: Sequence[float], m: Sequence[float], h: Sequence[float | None],
             floor: float = 0.0, **kw: Any) -> None:
        lower, upper = band(m, h, floor)
        if any(v is not None for v in h):
            drawn = ax.fill_between(x, lower, upper, color=kw["color"], alpha=BAND_ALPHA, lw=0,
                                    zorder=1)
            bands.append((ax, lower, upper, drawn))
        ax.plot(x, m, zorder=3, **kw)

    for gi, g in enumerate(groups):
        pts = [pr for pr in res.points if other is None or dict(pr.point.settings)[other.path] == g]
        pts.sort(key=lambda pr: xs_of[dict(pr.point.settings)[xa.path]])
        xs = [xs_of[dict(pr.point.settings)[xa.path]] for pr in pts]
        tag = f"{other.path.split('.')[-1]}={g}" if other else ""
        c0 = colors[gi % len(colors)]
        m, h = zip(*(pr.stat("iops") for pr in pts))
        draw(axes[0], xs, m, h, marker="o", color=c0, label=tag or "IOPS")
        curves[0] += m
        for k, (key, lab, ls, mk) in enumerate(metrics):
            m, h = zip(*(pr.stat(key) for pr in pts))
            color = c0 if other else colors[k % len(colors)]
            ms = [v / scale for v in m]
            draw(axes[1], xs, ms, [None if x is None else x / scale for x in h], lat_floor,
                 ls=ls, marker=mk, color=color, label=f"{lab} {tag}".strip())
            curves[1] += ms
            if qd and key in ("mean_us", "p99_us"):
                im = [pr.stat("iops")[0] for pr in pts]
                axes[2].plot(im, ms, ls=ls, marker=mk, color=color, label=f"{lab} {tag}".strip())
                curves[2] += ms
                iops_x += im
                if k == 0:
                    for x, yv, pr in zip(im, ms, pts):
                        lab_x = dict(pr.point.settings)[xa.path]
                        axes[2].annotate(f"{xa.path.split('.')[-1]}={lab_x}", (x, yv),
                                         fontsize=7, textcoords="offset points", xytext=(6, -2),
                                         va="center")

    def shown(i: int, log: bool) -> tuple[float, float]:
        edges = [(lo, hi) for ax, lo, hi, _ in bands if ax is axes[i]]
        return follow(curves[i], [v for lo, _ in edges for v in lo],
                      [v for _, hi in edges for v in hi], log)

    top = shown(0, False)[1]
    axes[0].set_ylim(0, top * 1.05 if top > 0 else 1)
    axes[0].yaxis.set_major_formatter(FuncFormatter(lambda v, _: fmt_count(v)))
    time_axis(axes[1], "y", *shown(1, lat_log), scale * 1e3, log=lat_log)
    for ax in axes[:2]:
        if num:
            log = swept_axis(ax, list(xs_of.values()), _integral(xa.values, num[0]))
            ax.set_xlabel(f"{xa.path}{xunit}" + (", log scale" if log else ""))
        else:
            ax.set_xticks(range(len(xa.values)))
            ax.set_xticklabels(xa.values)
            ax.set_xlabel(xa.path)
        ax.grid(True, alpha=0.3)
    axes[0].set_ylabel("IOPS")
    axes[0].set_title("throughput")
    axes[1].set_ylabel("latency" + (" (log scale)" if lat_log else ""))
    axes[1].set_title("latency (mean = fio lat avg; percentiles of clat)")
    if qd:
        value_axis(axes[2], "x", min(iops_x), max(iops_x), fmt_count)
        time_axis(axes[2], "y", min(curves[2]), max(curves[2]), scale * 1e3, log=lat_log)
        axes[2].set_xlabel("IOPS" + (" (log scale)" if axes[2].get_xscale() == "log" else ""))
        axes[2].set_ylabel("latency" + (" (log scale)" if lat_log else ""))
        axes[2].set_title("latency vs IOPS as the queue deepens")
        axes[2].grid(True, alpha=0.3)
    # under the panels: the curves fill the axes, a legend inside would sit on one
    for ax in axes[1:] if other is None else axes:
        ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.17),
                  ncol=4 if other is None else 2, frameon=False)
    k = len(res.seeds)
    fixed = [a for a in res.axes if a not in vary]
    sub = f"{k} seed{'s' * (k > 1)} per point" + (", shaded: 95% CI across seeds" if k > 1 else "")
    cut = 0
    for ax, lo, hi, drawn in bands:
        n = _off_axis(lo, hi, ax.get_ylim())
        if n:  # an interval as wide as the plot says little: a faint wash behind the rest
            drawn.set_alpha(BAND_ALPHA / 2)
        cut += n
    if cut:
        sub += (f" ({cut} interval{'s' * (cut > 1)} far wider than the curves, cut at the "
                "plot's edge)")
    if fixed:
        sub += "; " + ", ".join(f"{a.path}={a.values[0]}" for a in fixed)
    fig.suptitle(f"{res.scenario}: sweep of {', '.join(a.path for a in vary)}\n{sub}", fontsize=10)
    fig.tight_layout()
    return fig


def plot_sweep(res: Any, path: str | Path) -> Path:
    """:func:`sweep_figure`, saved to ``path``."""
    return _save(sweep_figure(res), path)


# ------------------------------------------------------------------ monitors


def _cmd_success(r: Any) -> float | None:
    """Share of all monitor commands that succeeded before their timeout (None: none ran)."""
    att = sum(c.attempts for c in r.commands.values())
    return sum(c.attempts * c.success_rate for c in r.commands.values()) / att if att else None


def mon_threshold_figure(search: Any, title: str, scenario_rtt_ns: int | None = None) -> Any:
    """The monitor verdict against the RTT between monitors (log axis): every RTT that
    :func:`cephsim.monitors.search_thresholds` simulated, shaded by its majority verdict,
    with quorum availability and command success (mean over the seeds, min-max shaded)
    above and elections per hour below; each verdict change found is a dotted line."""
    plt = _plt()
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    tried = sorted(search.tried, key=lambda t: t.rtt_ns)
    if not tried:
        raise CephsimError.single("no RTT was simulated: nothing to plot")
    x = np.array([t.rtt_ns / 1e6 for t in tried])  # ms

    def per_seed(get: Callable[[Any], float | None]) -> tuple[np.ndarray, ...]:
        vals = [[v for v in map(get, t.reports) if v is not None] or [math.nan] for t in tried]
        return tuple(np.array([f(v) for v in vals]) for f in (np.mean, np.min, np.max))

    avail = per_seed(lambda r: r.quorum_availability * 100)
    cmds = per_seed(lambda r: None if _cmd_success(r) is None else _cmd_success(r) * 100)
    eph = per_seed(lambda r: r.elections_per_hour)
    fig, (ax1, ax2) = plt.subplots(2, 1, sharex=True, figsize=(9, 6.2),
                                   gridspec_kw={"height_ratios": [2, 1]})
    # each RTT tried owns the stretch to half-way (on the log axis) to its neighbours
    edges = np.sqrt(x[1:] * x[:-1]) if len(x) > 1 else np.array([])
    left = np.concatenate([[x[0]], edges])
    right = np.concatenate([edges, [x[-1]]])
    for ax in (ax1, ax2):
        for t, a, b in zip(tried, left, right):
            ax.axvspan(a, b, color=STATE_COLOR[t.state], alpha=0.16, lw=0, zorder=0)
    several = len(search.seeds) > 1
    for ax, (m, lo, hi), color, ls, label in (
            (ax1, avail, "#4477aa", "-", "quorum availability (% of time)"),
            (ax1, cmds, "#aa3377", "--", "commands that succeeded (%)"),
            (ax2, eph, "#333333", "-", "elections per hour")):
        if several:
            ax.fill_between(x, lo, hi, color=color, alpha=BAND_ALPHA, lw=0, zorder=1)
        ax.plot(x, m, ls=ls, color=color, marker=".", ms=5, lw=1.4, label=label, zorder=3)
    handles: list[Any] = []
    for th in search.thresholds:
        at = math.sqrt(th.below_rtt_ns * th.above_rtt_ns) / 1e6
        for ax in (ax1, ax2):
            ax.axvline(at, color=STATE_COLOR[th.to_state], ls=":", lw=1.6, zorder=2)
        handles.append(Line2D([], [], color=STATE_COLOR[th.to_state], ls=":", lw=1.6,
                              label=f"{th.from_state} -> {th.to_state}: "
                                    f"{fmt_duration(th.below_rtt_ns)} to "
                                    f"{fmt_duration(th.above_rtt_ns)}"
                                    + (f" ({th.timer})" if th.timer else "")))
    lo_ms, hi_ms = min(search.lo_ns / 1e6, x[0]), max(search.hi_ns / 1e6, x[-1])
    if scenario_rtt_ns and lo_ms <= scenario_rtt_ns / 1e6 <= hi_ms:
        for ax in (ax1, ax2):
            ax.axvline(scenario_rtt_ns / 1e6, color="black", lw=0.9, zorder=2)
        handles.append(Line2D([], [], color="black", lw=0.9,
                              label=f"the scenario as written ({fmt_duration(scenario_rtt_ns)})"))
    states = [s for s in STATE_COLOR if any(t.state == s for t in tried)]
    handles = ([Patch(color=STATE_COLOR[s], alpha=0.35, label=f"verdict: {s}") for s in states]
               + handles)
    ax1.set_ylim(-3, 103)
    ax1.set_ylabel("%")
    ax2.set_ylim(0, max(float(np.nanmax(eph[0])) * 1.15, 1.0))
    ax2.set_ylabel("elections per hour")
    time_axis(ax2, "x", lo_ms, hi_ms, 1e6, log=True, pad=0.01)
    ax2.set_xlabel("RTT between monitors (largest pair; log scale)")
    for ax in (ax1, ax2):
        ax.grid(True, which="major", alpha=0.3)
    h1, _ = ax1.get_legend_handles_labels()
    ax1.legend(handles=h1 + handles, loc="lower left", fontsize=7, framealpha=0.9)
    ax2.legend(loc="upper left", fontsize=7, framealpha=0.9)
    seeds = ", ".join(map(str, search.seeds))
    fig.suptitle(f"{title}: monitor verdict against RTT\nseeds {seeds}, majority verdict per RTT; "
                 f"{len(tried)} RTTs simulated" + ("; shaded: min-max across seeds"
                                                   if several else ""), fontsize=10)
    fig.tight_layout()
    return fig


def plot_mon_threshold(search: Any, path: str | Path, title: str,
                       scenario_rtt_ns: int | None = None) -> Path:
    """:func:`mon_threshold_figure`, saved to ``path``."""
    return _save(mon_threshold_figure(search, title, scenario_rtt_ns), path)
