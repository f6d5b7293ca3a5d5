"""Figures (matplotlib, headless Agg backend; PNG, SVG or PDF by the file's suffix).

- :func:`plot_latency`: latency CDF and histogram on a log time axis, fio's
  percentiles (p50, p99, p99.9) marked;
- :func:`plot_waterfall`: the timeline of one explained op (from
  :mod:`cephsim.tools.explain`), rows per thread / device / network direction,
  grouped by host, the critical path highlighted;
- :func:`plot_sweep`: a sweep's IOPS and latency percentiles against the swept
  field, with confidence intervals across seeds; for a queue-depth (or
  numjobs) sweep also latency against IOPS;
- :func:`plot_mon_rtt`: the monitor model's verdict, quorum availability and
  election rate against the RTT between monitors.

matplotlib is optional (``pip install 'cephsim[plot]'``) and imported only
when a figure is drawn.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from cephsim.errors import CephsimError

CAT_COLOR = {"cpu": "#4477aa", "net": "#ee6677", "write": "#228833", "flush": "#aa3377",
             "read": "#66ccee", "wait": "#bbbbbb"}


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
    if p.suffix.lower() not in (".png", ".svg", ".pdf"):
        raise CephsimError.single(f"{p}: a figure file must end in .png, .svg or .pdf")
    import matplotlib.pyplot as plt

    from cephsim.formats.output import atomic_path

    try:
        with atomic_path(p, "--plot", suffix=p.suffix) as tmp:
            fig.savefig(tmp, dpi=120, bbox_inches="tight", format=p.suffix.lower()[1:])
    finally:
        plt.close(fig)
    return p


# ------------------------------------------------------------------ latency distribution


def plot_latency(lat_ns: Sequence[int] | np.ndarray, path: str | Path, title: str,
                 percentiles: dict[float, int] | None = None) -> Path:
    """CDF and histogram of per-op latencies (log time axis), fio percentiles marked.

    ``percentiles``: fio-style percentile -> ns (default: computed with fio's histogram)."""
    plt = _plt()
    lat = np.asarray(lat_ns, dtype=np.int64)
    if lat.size == 0:
        raise CephsimError.single("no latencies to plot")
    if percentiles is None:
        from cephsim.formats.report.fio_hist import FioHistogram

        percentiles = FioHistogram.from_samples(lat).percentiles((50.0, 99.0, 99.9))
    us = np.sort(lat) / 1e3
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.2))
    y = np.arange(1, us.size + 1) / us.size
    ax1.plot(us, y, color="#4477aa", lw=1.6, label=f"CDF ({us.size} I/Os)")
    ax1.set_xscale("log")
    ax1.set_xlabel("latency (us, log scale)")
    ax1.set_ylabel("fraction of I/Os completed")
    ax1.set_ylim(0, 1.01)
    ax1.grid(True, which="both", alpha=0.3)
    lo, hi = max(us[0] * 0.9, 1e-3), us[-1] * 1.1
    bins = np.logspace(math.log10(lo), math.log10(hi), 60)
    ax2.hist(us, bins=bins, color="#4477aa", alpha=0.8, label="I/Os per bin")
    ax2.set_xscale("log")
    ax2.set_yscale("log")
    ax2.set_xlabel("latency (us, log scale)")
    ax2.set_ylabel("I/Os (log scale)")
    ax2.grid(True, which="both", alpha=0.3)
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    for ax in (ax1, ax2):
        ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:,.0f}" if x >= 1 else f"{x:g}"))
        ax.xaxis.set_minor_formatter(NullFormatter())
    colors = {50.0: "#228833", 99.0: "#ccbb44", 99.9: "#ee6677"}
    for q, ns in sorted(percentiles.items()):
        c = colors.get(q, "#555555")
        for ax in (ax1, ax2):
            ax.axvline(ns / 1e3, color=c, ls="--", lw=1.2,
                       label=f"p{q:g} = {ns / 1e3:,.0f} us" if ax is ax1 else None)
    ax1.axvline(us.mean(), color="#000000", ls=":", lw=1.2, label=f"mean = {us.mean():,.0f} us")
    ax1.legend(loc="lower right", fontsize=8)
    ax2.legend(loc="upper right", fontsize=8)
    ax1.set_title("cumulative distribution")
    ax2.set_title("histogram (log bins)")
    fig.suptitle(f"{title}: latency per I/O (fio percentiles of clat marked)")
    return _save(fig, path)


# ------------------------------------------------------------------ one op


def plot_waterfall(ex: Any, path: str | Path) -> Path:
    """Gantt chart of an explained op: rows per thread/device/network direction, by host."""
    plt = _plt()
    from matplotlib.patches import Patch

    from cephsim.tools.explain import display_name, row_name

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
            labels.append(display_name(n))
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
    return _save(fig, path)


# ------------------------------------------------------------------ sweeps


def _numeric(values: Sequence[str]) -> tuple[list[float], str] | None:
    """Axis values as numbers with a unit label, or None (categorical)."""
    from cephsim.units import parse_duration_ns, parse_size_bytes

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


def _bars(m: Sequence[float], h: Sequence[float | None], scale: float,
          cut: list[float]) -> list[list[float]]:
    """Asymmetric error bars (lower, upper) for values that cannot be negative.

    A t-interval from a few seeds of a tail percentile can reach below zero; the bar
    then stops at zero (the interval meets the quantity's range) and the cut is counted
    in ``cut`` so that the plot says so, rather than the log axis silently dropping it."""
    lower, upper = [], []
    for v, x in zip(m, h):
        x = x or 0.0
        if x > v:
            cut.append(v)
        lower.append(min(x, v) / scale)
        upper.append(x / scale)
    return [lower, upper]


def plot_sweep(res: Any, path: str | Path) -> Path:
    """IOPS and latency percentiles against the swept field (CI error bars across seeds)."""
    plt = _plt()
    vary = res.varying()
    xa = vary[0]
    other = vary[1] if len(vary) > 1 else None
    num = _numeric(xa.values)
    xs = num[0] if num else list(range(len(xa.values)))
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
    big = max(pr.stat("p999_us")[0] for pr in res.points)
    scale, unit = (1e3, "ms") if big >= 10_000 else (1.0, "us")
    cut: list[float] = []  # values whose interval reached below zero
    for gi, g in enumerate(groups):
        pts = [pr for pr in res.points if other is None or dict(pr.point.settings)[other.path] == g]
        tag = f"{other.path.split('.')[-1]}={g}" if other else ""
        c0 = colors[gi % len(colors)]
        m, h = zip(*(pr.stat("iops") for pr in pts))
        axes[0].errorbar(xs, m, yerr=_bars(m, h, 1.0, cut), marker="o", capsize=3, color=c0,
                         label=tag or "IOPS")
        for k, (key, lab, ls, mk) in enumerate(metrics):
            m, h = zip(*(pr.stat(key) for pr in pts))
            color = c0 if other else colors[k % len(colors)]
            axes[1].errorbar(xs, [v / scale for v in m], yerr=_bars(m, h, scale, cut),
                             ls=ls, marker=mk, capsize=3, color=color,
                             label=f"{lab} {tag}".strip())
            if qd and key in ("mean_us", "p99_us"):
                im = [pr.stat("iops")[0] for pr in pts]
                axes[2].plot(im, [v / scale for v in m], ls=ls, marker=mk, color=color,
                             label=f"{lab} {tag}".strip())
                if k == 0:
                    for x, yv, lab_x in zip(im, m, xa.values):
                        axes[2].annotate(f"{xa.path.split('.')[-1]}={lab_x}", (x, yv / scale),
                                         fontsize=7, textcoords="offset points", xytext=(4, -10))
    for ax in axes[:2]:
        ax.set_xlabel(f"{xa.path}{xunit}")
        if not num:
            ax.set_xticks(xs)
            ax.set_xticklabels(xa.values)
        ax.grid(True, alpha=0.3)
    axes[0].set_ylabel("IOPS")
    axes[0].set_title("throughput")
    axes[0].set_ylim(bottom=0)
    axes[1].set_ylabel(f"latency ({unit})")
    axes[1].set_title("latency (mean = fio lat avg; percentiles of clat)")
    lat_vals = [pr.stat("p999_us")[0] / max(pr.stat("mean_us")[0], 1e-9) for pr in res.points]
    spread = max(pr.stat("p999_us")[0] for pr in res.points) / max(
        min(pr.stat("mean_us")[0] for pr in res.points), 1e-9)
    if spread > 20 or max(lat_vals) > 20:
        axes[1].set_yscale("log")
        axes[1].set_ylabel(f"latency ({unit}, log scale)")
    if num and xs and min(xs) > 0 and max(xs) / min(xs) > 30:
        for ax in axes[:2]:
            ax.set_xscale("log")
            ax.set_xlabel(f"{xa.path}{xunit}, log scale")
            ax.set_xticks(xs)
            ax.set_xticklabels([f"{x:g}" for x in xs])
            ax.minorticks_off()
    if qd:
        axes[2].set_xlabel("IOPS")
        axes[2].set_ylabel(f"latency ({unit})")
        axes[2].set_title("latency vs IOPS as the queue deepens")
        axes[2].grid(True, alpha=0.3)
        axes[2].legend(fontsize=8)
    axes[0].legend(fontsize=8)
    axes[1].legend(fontsize=8)
    k = len(res.seeds)
    fixed = [a for a in res.axes if a not in vary]
    sub = f"{k} seed{'s' * (k > 1)} per point" + (", error bars: 95% CI across "
            "seeds" if k > 1 else "")
    if cut:
        sub += f" ({len(cut)} cut at 0, where a {k}-seed t-interval reaches below it)"
    if fixed:
        sub += "; " + ", ".join(f"{a.path}={a.values[0]}" for a in fixed)
    fig.suptitle(f"{res.scenario}: sweep of {', '.join(a.path for a in vary)}\n{sub}", fontsize=10)
    fig.tight_layout()
    return _save(fig, path)


# ------------------------------------------------------------------ monitors


def plot_mon_rtt(rtts_ms: Sequence[float], path: str | Path, seed: int = 1,
                 duration: str = "1h", title: str = "3 monitors, classic elections") -> Path:
    """Monitor-quorum verdict, availability and elections per hour against mon<->mon RTT."""
    plt = _plt()
    try:
        from cephsim.monitors.links import MonNetwork
        from cephsim.monitors.model import simulate_monitors
        from cephsim.monitors.spec import MonitorSpec
    except ImportError:  # pragma: no cover
        raise CephsimError.single("the monitor model is not available") from None
    spec = MonitorSpec(duration=duration)
    reports = []
    for rtt in rtts_ms:
        net = MonNetwork.uniform(spec.mons, spec.clients, int(rtt * 1e6 / 2))
        reports.append(simulate_monitors(spec, net, seed))
    fig, ax1 = plt.subplots(figsize=(8, 4.3))
    avail = [r.quorum_availability * 100 for r in reports]
    eph = [r.elections_per_hour for r in reports]
    ax1.plot(rtts_ms, avail, marker="o", color="#4477aa", label="quorum availability (%)")
    ax1.set_ylim(-5, 105)
    ax1.set_xlabel("RTT between monitors (ms)")
    ax1.set_ylabel("quorum availability (% of time)")
    ax2 = ax1.twinx()
    ax2.plot(rtts_ms, eph, marker="s", ls="--", color="#ee6677", label="elections per hour")
    ax2.set_ylabel("elections per hour")
    ax2.set_ylim(bottom=0)
    state_color = {"healthy": "#228833", "unstable": "#ccbb44", "broken": "#ee6677"}
    for st, c in state_color.items():
        xs_ = [x for x, r in zip(rtts_ms, reports) if r.state == st]
        ys_ = [a for a, r in zip(avail, reports) if r.state == st]
        if xs_:
            ax1.scatter(xs_, ys_, s=140, color=c, zorder=3, edgecolor="black",
                        label=f"verdict: {st}")
    h1, l1 = ax1.get_legend_handles_labels()
    h2, l2 = ax2.get_legend_handles_labels()
    ax1.legend(h1 + h2, l1 + l2, loc="center left", fontsize=8)
    ax1.grid(True, alpha=0.3)
    ax1.set_title(f"Monitor quorum vs RTT ({title}, {duration} simulated, seed {seed})", fontsize=10)
    fig.tight_layout()
    return _save(fig, path)
