"""fio 3.x ``--output-format=json`` / ``json+`` documents for cephsim results.

Mirrors fio's ``stat.c``: ``__show_run_stats`` (top level: "fio version",
"timestamp", "timestamp_ms", "time", "global options", "jobs"),
``show_thread_status_json`` (per job, same key order as fio 3.33),
``add_ddir_status_json`` (read/write/trim blocks, with zeros for directions
without I/O, exactly as fio prints them) and ``add_ddir_lat_json``
(``slat_ns``/``clat_ns``/``lat_ns``; ``percentile`` only under ``clat_ns``, as
with fio's defaults ``clat_percentiles=1``, ``lat_percentiles=0``; ``bins``
only with ``plus=True``, i.e. json+).

Floats are rounded to 6 decimals, the precision fio prints with ``%f``;
:func:`dumps_fio_json` renders a document the way fio's ``json.c`` prints it
(2-space indent, ``"key" : value``, floats ``%f``) so the file is textually
similar to fio's.

``"job options"`` are what a fio command line for the job would give (fio lists the
options it was given, in order, as strings: ``json_add_job_opts``): name, rw,
``rwmixread`` for a mixed job, bs, ioengine, iodepth, numjobs, the job's own
``job_options`` (e.g. the user's ``runtime``), and ``group_reporting`` when the job
folds several jobs into one record (numjobs > 1), as it does.  fio writes ``"global
options"`` only when a ``[global]`` section set something; so do we.

``bw_*``/``iops_*`` interval statistics are present only if the direction was
built with per-op completion times (see :mod:`cephsim.formats.report.fio_stats`);
otherwise they are zeros with ``*_samples = 0``.  ctx/majf/minf are zeros; CPU is
the :class:`JobStats`' own.  ``latency_depth`` is ``iodepth``,
``latency_target``/``latency_window`` 0 and ``latency_percentile`` 100.0, as
fio 3.33 prints for jobs without ``latency_target``.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Mapping, Sequence
from typing import Any

from cephsim import __version__
from cephsim.errors import CephsimError
from cephsim.formats.report.fio_stats import (
    DirectionStats,
    GroupDirStats,
    JobStats,
    LatencySummary,
    bw_agg_percent,
    calc_dist,
    group_run_stats,
)
from cephsim.formats.report.fio_text import ctime_utc
from cephsim.metrics.fio_hist import bins_from_counts, calc_percentiles

__all__ = ["MIXED_RW", "dumps_fio_json", "fio_json", "format_bs", "format_time", "job_options",
           "percentile_key", "report_time_ms", "source_date_epoch"]

#: fio's mixed patterns: their jobs carry ``rwmixread``
MIXED_RW = ("rw", "readwrite", "randrw")


def _f(x: float) -> float:
    return round(float(x), 6)


def percentile_key(p: float) -> str:
    """fio's percentile key: ``snprintf("%f")`` -> ``"99.900000"``."""
    return "%f" % p


def format_bs(bs: int) -> str:
    """Block size as a fio option string (``4096`` -> ``"4k"``)."""
    for suffix, mult in (("g", 1 << 30), ("m", 1 << 20), ("k", 1 << 10)):
        if bs % mult == 0:
            return f"{bs // mult}{suffix}"
    return str(bs)


def format_time(ns: int) -> str:
    """A duration as a fio time option (``runtime``, ``ramp_time``): whole seconds bare
    (fio's default unit), else ms or us, fio's finest unit (sub-us rounded, at least 1)."""
    if ns % 1_000_000_000 == 0:
        return str(ns // 1_000_000_000)
    if ns % 1_000_000 == 0:
        return f"{ns // 1_000_000}ms"
    return f"{max(1, round(ns / 1000))}us"


def source_date_epoch() -> int | None:
    """``SOURCE_DATE_EPOCH`` (reproducible-builds.org): the time, in whole seconds since
    1970, that reports give instead of the current time; None when it is not set."""
    raw = os.environ.get("SOURCE_DATE_EPOCH")
    if raw is None or raw.strip() == "":
        return None
    if not (raw.strip().isascii() and raw.strip().isdigit()):  # int() refuses "²"
        raise CephsimError.single(f"SOURCE_DATE_EPOCH={raw!r}: not a whole number of seconds "
                                  "since 1970 (unset it for the current time)")
    if len(raw.strip()) > 12:  # past the year 33,000: no date to print
        raise CephsimError.single(f"SOURCE_DATE_EPOCH={raw.strip()[:20]}...: too far in the "
                                  "future to be a date (unset it for the current time)")
    value = int(raw.strip())
    try:
        time.gmtime(value)
    except (OverflowError, OSError, ValueError):
        raise CephsimError.single(f"SOURCE_DATE_EPOCH={value}: not a date this system can "
                                  "print (unset it for the current time)") from None
    return value


def report_time_ms() -> int:
    """When a report is written, in ms since 1970, as fio's JSON gives it: now, or
    ``SOURCE_DATE_EPOCH`` when set (reproducible output)."""
    fixed = source_date_epoch()
    return fixed * 1000 if fixed is not None else time.time_ns() // 1_000_000


def _lat_json(
    s: LatencySummary, hist_counts: Any | None, plist: Sequence[float], plus: bool
) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "min": int(s.min),
        "max": int(s.max),
        "mean": _f(s.mean),
        "stddev": _f(s.stddev),
        "N": int(s.n),
    }
    if hist_counts is not None and s.n:
        keys, vals = calc_percentiles(hist_counts, plist, s.n)
        obj["percentile"] = {percentile_key(p): int(v) for p, v in zip(keys, vals, strict=True)}
        if plus:
            obj["bins"] = bins_from_counts(hist_counts)
    return obj


def _ddir_json(
    d: DirectionStats | None, group: GroupDirStats | None, *, plus: bool
) -> dict[str, Any]:
    if d is None:
        zero = LatencySummary()
        return {
            "io_bytes": 0, "io_kbytes": 0, "bw_bytes": 0, "bw": 0, "iops": 0.0,
            "runtime": 0, "total_ios": 0, "short_ios": 0, "drop_ios": 0,
            "slat_ns": _lat_json(zero, None, (), plus),
            "clat_ns": _lat_json(zero, None, (), plus),
            "lat_ns": _lat_json(zero, None, (), plus),
            "bw_min": 0, "bw_max": 0, "bw_agg": 0.0, "bw_mean": 0.0, "bw_dev": 0.0,
            "bw_samples": 0,
            "iops_min": 0, "iops_max": 0, "iops_mean": 0.0, "iops_stddev": 0.0,
            "iops_samples": 0,
        }  # fmt: skip
    obj: dict[str, Any] = {
        "io_bytes": d.io_bytes,
        "io_kbytes": d.io_bytes >> 10,
        "bw_bytes": d.bw_bytes,
        "bw": d.bw,
        "iops": _f(d.iops),
        "runtime": d.runtime_ms,
        "total_ios": d.total_ios,
        "short_ios": d.short_ios,
        "drop_ios": d.drop_ios,
        "slat_ns": _lat_json(d.slat, None, d.percentile_list, plus),
        "clat_ns": _lat_json(d.clat, d.clat_hist.counts, d.percentile_list, plus),
        "lat_ns": _lat_json(d.lat, None, d.percentile_list, plus),
    }
    b = d.bw_stat
    if b is not None:
        agg = group.agg if group is not None else d.bw_bytes
        obj.update(
            bw_min=b.min, bw_max=b.max, bw_agg=_f(bw_agg_percent(b.mean, agg)),
            bw_mean=_f(b.mean), bw_dev=_f(b.stddev), bw_samples=b.samples,
        )  # fmt: skip
    else:
        obj.update(bw_min=0, bw_max=0, bw_agg=0.0, bw_mean=0.0, bw_dev=0.0, bw_samples=0)
    i = d.iops_stat
    if i is not None:
        obj.update(
            iops_min=i.min, iops_max=i.max, iops_mean=_f(i.mean), iops_stddev=_f(i.stddev),
            iops_samples=i.samples,
        )  # fmt: skip
    else:
        obj.update(iops_min=0, iops_max=0, iops_mean=0.0, iops_stddev=0.0, iops_samples=0)
    return obj




_LAT_KEYS = ("2", "4", "10", "20", "50", "100", "250", "500", "750", "1000")
_LAT_M_KEYS = (*_LAT_KEYS, "2000", ">=2000")


def job_options(job: JobStats) -> dict[str, str]:
    """The job's ``"job options"``: as fio lists the options of ``fio --name=... --rw=...``."""
    opts: dict[str, str] = {"name": job.jobname, "rw": job.rw}
    if job.rw in MIXED_RW and job.rwmixread is not None:
        opts["rwmixread"] = str(job.rwmixread)
    opts.update({"bs": format_bs(job.bs), "ioengine": job.ioengine,
                 "iodepth": str(job.iodepth), "numjobs": str(job.numjobs)})
    opts.update({str(k): str(v) for k, v in job.job_options.items()})
    if job.numjobs > 1:  # one record for all the jobs: what group_reporting makes fio print
        opts.setdefault("group_reporting", "1")
    return opts


def _job_json(
    job: JobStats, groups: Mapping[int, Mapping[str, GroupDirStats]], *, plus: bool
) -> dict[str, Any]:
    opts = job_options(job)
    g = groups.get(job.groupid, {})
    run_ms = job.runtime_ns // 1_000_000
    root: dict[str, Any] = {
        "jobname": job.jobname,
        "groupid": job.groupid,
        "error": 0,
        "eta": 0,
        "elapsed": math.ceil(job.runtime_ns / 1e9),
        "job options": opts,
        "read": _ddir_json(job.read, g.get("read"), plus=plus),
        "write": _ddir_json(job.write, g.get("write"), plus=plus),
        "trim": _ddir_json(None, None, plus=plus),
        "sync": {"total_ios": 0, "lat_ns": _lat_json(LatencySummary(), None, (), plus)},
        "job_runtime": run_ms,
        "usr_cpu": _f(job.usr_cpu),
        "sys_cpu": _f(job.sys_cpu),
        "ctx": 0,
        "majf": 0,
        "minf": 0,
    }
    levels = ("1", "2", "4", "8", "16", "32", ">=64")
    root["iodepth_level"] = {k: _f(v) for k, v in zip(levels, calc_dist(job.depth_counts()))}
    sub = calc_dist([0, job.total_ios, 0, 0, 0, 0, 0])
    sub_keys = ("0", "4", "8", "16", "32", "64", ">=64")
    root["iodepth_submit"] = {k: _f(v) for k, v in zip(sub_keys, sub)}
    root["iodepth_complete"] = {k: _f(v) for k, v in zip(sub_keys, sub)}
    n, u, m = job.lat_dist_percent()
    root["latency_ns"] = {k: _f(v) for k, v in zip(_LAT_KEYS, n)}
    root["latency_us"] = {k: _f(v) for k, v in zip(_LAT_KEYS, u)}
    root["latency_ms"] = {k: _f(v) for k, v in zip(_LAT_M_KEYS, m)}
    root["latency_depth"] = job.iodepth
    root["latency_target"] = 0
    root["latency_percentile"] = 100.0
    root["latency_window"] = 0
    return root


def fio_json(
    jobs: Sequence[JobStats],
    *,
    fio_version: str | None = None,
    timestamp: int = 0,
    timestamp_ms: int | None = None,
    plus: bool = False,
    global_options: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """A fio 3.x JSON (``plus=True``: json+) document for ``jobs``.

    ``timestamp`` is seconds since the epoch, ``timestamp_ms`` milliseconds (given, it
    sets both); the default 0 gives reproducible output, :func:`report_time_ms` the time
    a report is written.  ``"time"`` is the UTC ``ctime``.  ``fio_version`` defaults to
    ``"cephsim-<version>"``.  Key order is fixed (fio's); ``"global options"`` only when
    there are any.
    """
    if fio_version is None:
        fio_version = f"cephsim-{__version__}"
    ms = int(timestamp) * 1000 if timestamp_ms is None else int(timestamp_ms)
    groups = group_run_stats(jobs)
    doc: dict[str, Any] = {
        "fio version": fio_version,
        "timestamp": ms // 1000,
        "timestamp_ms": ms,
        "time": ctime_utc(ms // 1000),
    }
    if global_options:
        doc["global options"] = {str(k): str(v) for k, v in global_options.items()}
    doc["jobs"] = [_job_json(j, groups, plus=plus) for j in jobs]
    return doc


def dumps_fio_json(doc: Any) -> str:
    """Render like fio's ``json_print_object``: 2-space indent, ``" : "``, floats ``%f``."""
    import json

    def render(v: Any, level: int) -> str:
        pad = "  " * (level + 1)
        if isinstance(v, dict):
            if not v:
                return "{\n\n" + "  " * level + "}"  # fio prints an empty line
            items = [f"{pad}{json.dumps(str(k))} : {render(x, level + 1)}" for k, x in v.items()]
            return "{\n" + ",\n".join(items) + "\n" + "  " * level + "}"
        if isinstance(v, list | tuple):
            if not v:
                return "[\n\n" + "  " * level + "]"
            items = [f"{pad}{render(x, level + 1)}" for x in v]
            return "[\n" + ",\n".join(items) + "\n" + "  " * level + "]"
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, int):
            return str(v)
        if isinstance(v, float):
            return "%f" % v
        if v is None:
            return "null"
        return json.dumps(str(v))

    return render(doc, 0) + "\n"
