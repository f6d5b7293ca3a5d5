"""fio 3.x "normal" (human-readable) output for cephsim results.

Line for line this mirrors fio's ``stat.c`` (checked against fio 3.33 and
fio master):

* :func:`num2str` -- ``lib/num2str.c`` ``num2str()`` (k/M suffixes, carry
  rounding, binary vs decimal prefixes), used for IOPS, BW, io sizes and the
  min/max of latency lines (``max=1611.8k``).
* :func:`display_lat` -- ``display_lat`` + ``nsec_to_usec``/``nsec_to_msec``
  (stat.h): a line switches to usec when ``min > 2000 && max > 99999 &&
  stdev > 1000`` (msec: ``> 2e6``, ``> 99999999``, ``> 1e6``).
* :func:`percentile_block` -- ``show_clat_percentiles``: unit from the min/max
  *reported* percentile values, ``(v + 999) / 1000`` rounding up per scale
  step, field width ``max(5, log10(max / divisor) + 1)``, ``(80 - 7) /
  (precision + 10 + width)`` entries per line.
* :func:`ddir_status` -- ``show_ddir_status`` (IOPS/BW header, slat/clat/lat,
  clat percentiles, ``bw (  KiB/s)`` and ``iops`` interval lines).
* :func:`latency_lines` -- ``show_lat_n/u/m`` (5 entries per line, ``%3.2f%%``).
* :func:`job_status` -- ``show_thread_status_normal``; the cpu line is printed
  with the job's ``usr_cpu``/``sys_cpu`` (0.00 by default) and ctx/majf/minf=0;
  IO depths come from ``JobStats.depth_counts()``, submit/complete assume one
  I/O per submit/reap call (``4=100.0%``); the ``latency   :`` line is printed
  as fio 3.33 does (target=0, window=0, percentile=100.00%, depth=iodepth).
* :func:`group_status` -- ``show_group_stats`` (``Run status group N``).

Not emitted: ``; N zone resets`` suffix (fio 3.33 on some writes), disk stats,
the ``Jobs: ...`` status line.  The job header has no pid/date unless a
``timestamp`` is passed (``pid=0:`` then a UTC ``ctime``-style date).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence

from cephsim import __version__
from cephsim.formats.report.fio_stats import (
    DirectionStats,
    GroupDirStats,
    JobStats,
    bw_agg_percent,
    calc_dist,
    group_run_stats,
)
from cephsim.metrics.fio_hist import calc_percentiles

__all__ = [
    "N2S_BIT",
    "N2S_BITPERSEC",
    "N2S_BYTE",
    "N2S_BYTEPERSEC",
    "N2S_NONE",
    "N2S_PERSEC",
    "ctime_utc",
    "ddir_status",
    "display_lat",
    "fio_text",
    "group_status",
    "job_status",
    "latency_lines",
    "num2str",
    "percentile_block",
]

N2S_NONE, N2S_PERSEC, N2S_BYTE, N2S_BIT, N2S_BYTEPERSEC, N2S_BITPERSEC = range(6)
_UNITSTR = ("", "/s", "B", "bit", "B/s", "bit/s")
_SISTR = ("", "k", "M", "G", "T", "P", "E")
_IECSTR = ("", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei")
SIG_FIGS = 4  # fio's default significant_figures


def num2str(num: int, maxlen: int, base: int = 1, pow2: bool = False, units: int = N2S_NONE) -> str:
    """Port of fio ``num2str()`` (lib/num2str.c), including its carry rounding."""
    num = int(num) & 0xFFFFFFFFFFFFFFFF
    thousand = 1024 if pow2 else 1000
    prefix = _IECSTR if pow2 else _SISTR
    post_index = 0
    while base > 1:
        base //= thousand
        post_index += 1
    if units in (N2S_BIT, N2S_BITPERSEC):
        num *= 8
    modulo = None
    carry = False
    while post_index < len(_SISTR):
        if len(str(num)) <= maxlen:
            break
        modulo = num % thousand
        num //= thousand
        carry = modulo >= thousand // 2
        post_index += 1
    if post_index >= len(_SISTR):
        post_index = 0
    if modulo is None:
        return f"{num}{prefix[post_index]}{_UNITSTR[units]}"
    room = maxlen - len(str(num))
    if room <= 1:
        if carry:
            num += 1
        return f"{num}{prefix[post_index]}{_UNITSTR[units]}"
    frac = "%.*f" % (room - 1, modulo / thousand)
    if frac[0] == "1":
        num += 1
    return f"{num}.{frac[2:]}{prefix[post_index]}{_UNITSTR[units]}"


def display_lat(name: str, mn: int, mx: int, mean: float, dev: float) -> str:
    """``display_lat``: e.g. ``    clat (usec): min=692, max=10144, avg=2250.43, stdev=687.75``."""
    base = "(nsec)"
    if mn > 2_000_000 and mx > 99_999_999 and dev > 1_000_000.0:
        mn, mx, mean, dev = mn // 1_000_000, mx // 1_000_000, mean / 1e6, dev / 1e6
        base = "(msec)"
    elif mn > 2000 and mx > 99_999 and dev > 1000.0:
        mn, mx, mean, dev = mn // 1000, mx // 1000, mean / 1000.0, dev / 1000.0
        base = "(usec)"
    return (
        f"    {name} {base}: min={num2str(mn, 6)}, max={num2str(mx, 6)}, "
        f"avg={mean:5.2f}, stdev={dev:5.2f}\n"
    )


def percentile_block(
    plist: Sequence[float], values: Sequence[int], pre: str = "clat", precision: int = 2
) -> str:
    """``show_clat_percentiles`` for already computed (sorted) percentiles."""
    if not values:
        return ""
    minv, maxv = min(values), max(values)
    if minv > 2_000_000 and maxv > 99_999_999:
        scale_down, divisor, unit = 2, 1_000_000, "msec"
    elif minv > 2000 and maxv > 99_999:
        scale_down, divisor, unit = 1, 1000, "usec"
    else:
        scale_down, divisor, unit = 0, 1, "nsec"
    q = maxv // divisor
    time_width = max(5, int(math.log10(q) + 1) if q > 0 else -1_000)
    per_line = (80 - 7) // (precision + 10 + time_width)
    out = [f"    {pre} percentiles ({unit}):\n     |"]
    n = len(values)
    for j, (p, v) in enumerate(zip(plist, values, strict=True)):
        if j != 0 and j % per_line == 0:
            out.append("     |")
        is_last = j == n - 1
        for _ in range(scale_down):
            v = (v + 999) // 1000
        out.append(f" {p:{precision + 3}.{precision}f}th=[{v:{time_width}d}]")
        out.append("\n" if is_last else ",")
        if not is_last and j % per_line == per_line - 1:
            out.append("\n")
    return "".join(out)


def _interval_lines(d: DirectionStats, agg_bytes: int) -> str:
    out = []
    if d.bw_stat is not None:
        b = d.bw_stat
        mn, mx, mean, dev, unit = b.min, b.max, b.mean, b.stddev, "KiB"
        per = bw_agg_percent(mean, agg_bytes)
        if mean > 1024.0 * 1024.0:
            mn, mx = int(mn / 1024.0), int(mx / 1024.0)
            mean, dev, unit = mean / 1024.0, dev / 1024.0, "MiB"
        out.append(
            f"   bw ({unit:>5s}/s): min={mn:5d}, max={mx:5d}, per={per:3.2f}%, "
            f"avg={mean:5.2f}, stdev={dev:5.2f}, samples={b.samples}\n"
        )
    if d.iops_stat is not None:
        s = d.iops_stat
        out.append(
            f"   iops        : min={s.min:5d}, max={s.max:5d}, "
            f"avg={s.mean:5.2f}, stdev={s.stddev:5.2f}, samples={s.samples}\n"
        )
    return "".join(out)


def ddir_status(name: str, d: DirectionStats, agg_bytes: int | None = None) -> str:
    """``show_ddir_status`` for one direction (``name`` = "read"/"write")."""
    runt = d.runtime_ms
    if not runt:
        return ""
    bw = (1000 * d.io_bytes) // runt
    iops = (1000 * d.total_ios) // runt
    out = [
        f"  {name}: IOPS={num2str(iops, SIG_FIGS)}, "
        f"BW={num2str(bw, SIG_FIGS, 1, True, N2S_BYTEPERSEC)} "
        f"({num2str(bw, SIG_FIGS, 1, False, N2S_BYTEPERSEC)})"
        f"({num2str(d.io_bytes, SIG_FIGS, 1, True, N2S_BYTE)}/{runt}msec)\n"
    ]
    for label, s in (("slat", d.slat), ("clat", d.clat), (" lat", d.lat)):
        if s.n:
            out.append(display_lat(label, s.min, s.max, s.mean, s.stddev))
    if d.clat.n:
        plist, vals = calc_percentiles(d.clat_hist.counts, d.percentile_list, d.clat.n)
        out.append(percentile_block(plist, vals, "clat"))
    out.append(_interval_lines(d, bw if agg_bytes is None else agg_bytes))
    return "".join(out)


_LAT_RANGES = ("2", "4", "10", "20", "50", "100", "250", "500", "750", "1000")
_LAT_M_RANGES = (*_LAT_RANGES, "2000", ">=2000")


def _show_lat(pcts: Sequence[float], ranges: Sequence[str], msg: str) -> str:
    out: list[str] = []
    new_line, line = True, 0
    for p, r in zip(pcts, ranges, strict=True):
        if p <= 0.0:
            continue
        if new_line:
            if line:
                out.append("\n")
            out.append(f"  lat ({msg})   : ")
            new_line, line = False, 0
        if line:
            out.append(", ")
        out.append(f"{r}={p:3.2f}%")
        line += 1
        if line == 5:
            new_line = True
    if out:
        out.append("\n")
    return "".join(out)


def latency_lines(job: JobStats) -> str:
    """``show_latencies``: the ``lat (usec)   : 750=68.22%, ...`` lines."""
    n, u, m = job.lat_dist_percent()
    return _show_lat(n, _LAT_RANGES, "nsec") + _show_lat(u, _LAT_RANGES, "usec") + _show_lat(
        m, _LAT_M_RANGES, "msec"
    )




def ctime_utc(ts: int) -> str:
    """C ``ctime()`` layout (``Thu Jan  1 00:00:00 1970``), in UTC."""
    t = time.gmtime(ts)
    return (
        f"{time.strftime('%a %b', t)} {t.tm_mday:2d} "
        f"{time.strftime('%H:%M:%S', t)} {t.tm_year}"
    )


def job_status(
    job: JobStats, groups: dict[int, dict[str, GroupDirStats]], timestamp: int | None = None
) -> str:
    """``show_thread_status_normal`` for one job."""
    if not job.total_ios:
        return ""
    date = f" {ctime_utc(timestamp)}" if timestamp is not None else ""
    out = [f"{job.jobname}: (groupid={job.groupid}, jobs={job.numjobs}): err= 0: pid=0:{date}\n"]
    g = groups.get(job.groupid, {})
    for name, d in job.directions():
        if d is not None and d.io_bytes:
            agg = g[name].agg if name in g else None
            out.append(ddir_status(name, d, agg))
    out.append(latency_lines(job))
    out.append(
        f"  cpu          : usr={job.usr_cpu:3.2f}%, sys={job.sys_cpu:3.2f}%, "
        "ctx=0, majf=0, minf=0\n"
    )
    dd = calc_dist(job.depth_counts())
    out.append(
        "  IO depths    : "
        + ", ".join(f"{k}={v:3.1f}%" for k, v in zip(("1", "2", "4", "8", "16", "32", ">=64"), dd))
        + "\n"
    )
    sub = calc_dist([0, job.total_ios, 0, 0, 0, 0, 0])
    keys = ("0", "4", "8", "16", "32", "64", ">=64")
    line = ", ".join(f"{k}={v:3.1f}%" for k, v in zip(keys, sub))
    out.append(f"     submit    : {line}\n     complete  : {line}\n")
    r = job.read.total_ios if job.read else 0
    w = job.write.total_ios if job.write else 0
    rs = job.read.short_ios if job.read else 0
    ws = job.write.short_ios if job.write else 0
    rd = job.read.drop_ios if job.read else 0
    wd = job.write.drop_ios if job.write else 0
    out.append(
        f"     issued rwts: total={r},{w},0,0 short={rs},{ws},0,0 dropped={rd},{wd},0,0\n"
    )
    out.append(f"     latency   : target=0, window=0, percentile=100.00%, depth={job.iodepth}\n")
    return "".join(out)


def group_status(groupid: int, dirs: dict[str, GroupDirStats]) -> str:
    """``show_group_stats``: ``Run status group N (all jobs):`` and one line per direction."""
    out = [f"\nRun status group {groupid} (all jobs):\n"]
    labels = {"read": "   READ", "write": "  WRITE"}
    for name in ("read", "write"):
        s = dirs.get(name)
        if s is None:
            continue

        def n2s(v: int, pow2: bool, unit: int = N2S_BYTEPERSEC) -> str:
            return num2str(v, SIG_FIGS, 1, pow2, unit)

        out.append(
            f"{labels[name]}: bw={n2s(s.agg, True)} ({n2s(s.agg, False)}), "
            f"{n2s(s.min_bw, True)}-{n2s(s.max_bw, True)} "
            f"({n2s(s.min_bw, False)}-{n2s(s.max_bw, False)}), "
            f"io={n2s(s.iobytes, True, N2S_BYTE)} ({n2s(s.iobytes, False, N2S_BYTE)}), "
            f"run={s.min_run}-{s.max_run}msec\n"
        )
    return "".join(out)


def _bs_str(bs: int) -> str:
    return f"{bs}B-{bs}B"


def fio_text(
    jobs: Sequence[JobStats], *, timestamp: int | None = None, banner: bool = False,
    fio_version: str | None = None,
) -> str:
    """fio-style normal output for ``jobs`` (``__show_run_stats``, normal part).

    ``banner=True`` prepends fio's start-up lines (job line, ``...`` for a job's clones,
    version, ``Starting N processes``) and the blank line fio prints before the results.
    """
    if fio_version is None:
        fio_version = f"cephsim-{__version__}"
    groups = group_run_stats(jobs)
    out: list[str] = []
    if banner:
        for j in jobs:
            out.append(
                f"{j.jobname}: (g={j.groupid}): rw={j.rw}, bs=(R) {_bs_str(j.bs)}, "
                f"(W) {_bs_str(j.bs)}, (T) {_bs_str(j.bs)}, ioengine={j.ioengine}, "
                f"iodepth={j.iodepth}\n"
            )
            if j.numjobs > 1:  # fio: one line for the job, "..." for its clones
                out.append("...\n")
        nproc = sum(j.numjobs for j in jobs)
        out.append(f"{fio_version}\nStarting {nproc} process{'es' if nproc != 1 else ''}\n\n")
    for j in jobs:
        out.append(job_status(j, groups, timestamp))
    for gid, dirs in groups.items():
        out.append(group_status(gid, dirs))
    return "".join(out)
