"""``cephsim inspect FILE...``: show what cephsim reads from measurement files.

For each file: the detected format and the values in normalized units (IOPS,
mean and percentiles, one-way latency per message size, per-stage durations),
then the reader's warnings.  Perf dumps given in sequence are also diffed
(interval averages between consecutive dumps).  Every unreadable file is
reported; the problems of all files are raised together as one
:class:`CephsimError`, so the user fixes everything in one go.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any, Literal

from cephsim.errors import CephsimError, Problem
from cephsim.formats.readers.detect import read_any
from cephsim.formats.readers.model import (
    FioMeasurement,
    HistoricOps,
    LatencyStats,
    Measurement,
    NetLatencyMeasurement,
    PerfDump,
    RadosBenchMeasurement,
)
from cephsim.formats.readers.perf_dump import diff_perf_dumps

_KEY_PERCENTILES = (50.0, 90.0, 99.0, 99.9, 99.99)
_PERF_HINTS = ("op_w_latency", "op_w_process_latency", "op_w_prepare_latency", "subop_w_latency",
               "commit_lat", "kv_sync_lat", "kv_flush_lat", "kv_commit_lat", "op_latency")


def fmt_ns(ns: int | float | None) -> str:
    """``772350`` -> ``'772.35 us'``; ``None`` -> ``'?'``."""
    if ns is None:
        return "?"
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if abs(ns) >= scale:
            return f"{ns / scale:.6g} {unit}"
    return f"{ns:.6g} ns"


def _fmt_bytes_rate(b: float | None) -> str:
    if b is None:
        return "?"
    return f"{b / 1024**2:.4g} MiB/s"


def _fmt_pct(p: float) -> str:
    return f"p{p:g}"


def _stats_line(kind: str, s: LatencyStats | None) -> str | None:
    if s is None:
        return None
    n = f", N={s.n}" if s.n is not None else ""
    return (f"{kind:<5} mean {fmt_ns(s.mean_ns)}, stddev {fmt_ns(s.stddev_ns)}, "
            f"min {fmt_ns(s.min_ns)}, max {fmt_ns(s.max_ns)}{n}")


def _fio(m: FioMeasurement) -> list[str]:
    out = [f"  fio version: {m.fio_version or 'unknown'}; {len(m.jobs)} job block(s)"]
    for job in m.jobs:
        extra = []
        if job.jobs is not None:
            extra.append(f"jobs={job.jobs}")
        if job.hostname:
            extra.append(f"host={job.hostname}")
        if job.document:
            extra.append(f"document {job.document + 1}")
        if job.line:
            extra.append(f"line {job.line}")
        out.append(f"  job {job.name!r}" + (f" ({', '.join(extra)})" if extra else ""))
        for d in job.directions.values():
            iops = f"{d.iops:.6g}" if d.iops is not None else "?"
            out.append(f"    {d.direction}: IOPS {iops}, BW {_fmt_bytes_rate(d.bw_bytes)}"
                       + (f", {d.total_ios} I/Os" if d.total_ios is not None else ""))
            for kind in ("slat", "clat", "lat"):
                line = _stats_line(kind, getattr(d, kind))
                if line:
                    out.append(f"      {line}")
            if d.percentiles:
                shown = [p for p in _KEY_PERCENTILES if p in d.percentiles] or \
                    sorted(d.percentiles)[-5:]
                out.append(f"      {d.percentiles_of} percentiles: " + ", ".join(
                    f"{_fmt_pct(p)} {fmt_ns(d.percentiles[p])}" for p in shown)
                    + f" ({len(d.percentiles)} read)")
            if d.bins:
                out.append(f"      json+ bins: {len(d.bins)} buckets, "
                           f"{sum(d.bins.values())} I/Os")
    return out


def _net(m: NetLatencyMeasurement) -> list[str]:
    out = []
    for r in m.qperf:
        size = f"{r.msg_size_bytes} B" if r.msg_size_bytes is not None else "size unknown"
        if r.one_way_latency_ns is not None:
            out.append(f"  {r.test} ({size}): one-way latency {fmt_ns(r.one_way_latency_ns)}"
                       f" (round trip ~{fmt_ns(2 * r.one_way_latency_ns)})")
        else:
            bw = r.bw_bytes if r.bw_bytes is not None else r.send_bw_bytes
            out.append(f"  {r.test} ({size}): bandwidth {_fmt_bytes_rate(bw)}")
    for p in m.ping:
        size = f"{p.payload_bytes} B payload" if p.payload_bytes is not None else "payload ?"
        loss = f", loss {p.loss_percent:g}% of {p.transmitted}" if p.loss_percent is not None \
            else ""
        out.append(f"  ping (line {p.line}, {size}): RTT min {fmt_ns(p.rtt_min_ns)}, avg "
                   f"{fmt_ns(p.rtt_avg_ns)}, max {fmt_ns(p.rtt_max_ns)}, mdev "
                   f"{fmt_ns(p.rtt_mdev_ns)}{loss}")
        if p.rtt_avg_ns is not None:
            out.append(f"    one-way ~ RTT/2 = {fmt_ns(p.rtt_avg_ns / 2)}")
        if len(p.samples_ns) > 1:
            out.append(f"    {len(p.samples_ns)} replies: median "
                       f"{fmt_ns(statistics.median(p.samples_ns))}, first "
                       f"{fmt_ns(p.samples_ns[0])}")
    return out


def _rados(m: RadosBenchMeasurement) -> list[str]:
    return [f"  mode {m.mode or '?'}, op size {m.op_size_bytes or '?'} B, "
            f"{m.total_ops if m.total_ops is not None else '?'} ops",
            f"  bandwidth {_fmt_bytes_rate(m.bandwidth_bytes)}, average IOPS "
            f"{m.avg_iops if m.avg_iops is not None else '?'}",
            f"  latency mean {fmt_ns(m.avg_latency_ns)}, stddev {fmt_ns(m.stddev_latency_ns)}, "
            f"min {fmt_ns(m.min_latency_ns)}, max {fmt_ns(m.max_latency_ns)}"]


def _perf(m: PerfDump) -> list[str]:
    out = [f"  {len(m.averages)} average counters, {len(m.values)} plain counters "
           "(lifetime averages below; diff two dumps for a test interval)"]
    for key, c in m.averages.items():
        if key.split(".")[-1] in _PERF_HINTS and c.avgcount:
            out.append(f"  {key}: {c.avgcount} ops, lifetime mean {fmt_ns(c.sum_ns / c.avgcount)}")
    return out


def _historic(m: HistoricOps) -> list[str]:
    writes = [op for op in m.ops if op.is_write]
    out = [f"  layout {m.layout}; {len(m.ops)} ops ({len(writes)} writes); ring size "
           f"{m.size if m.size is not None else '?'}"]
    ops = writes or m.ops
    durations = [op.duration_ns for op in ops if op.duration_ns is not None]
    if durations:
        out.append(f"  op duration: median {fmt_ns(statistics.median(durations))}, "
                   f"max {fmt_ns(max(durations))}")
    stages: dict[str, list[int]] = {}
    for op in ops:
        for k, v in op.stages.items():
            stages.setdefault(k, []).append(v)
    for k, vs in stages.items():
        out.append(f"    {k:<50} n={len(vs):<4} median {fmt_ns(statistics.median(vs))}, "
                   f"max {fmt_ns(max(vs))}")
    return out


def _describe(m: Measurement) -> list[str]:
    if isinstance(m, FioMeasurement):
        return _fio(m)
    if isinstance(m, NetLatencyMeasurement):
        return _net(m)
    if isinstance(m, RadosBenchMeasurement):
        return _rados(m)
    if isinstance(m, PerfDump):
        return _perf(m)
    return _historic(m)


def inspect_paths(paths: list[Path], fmt: Literal["text", "json"] = "text") -> str:
    """Read every file and describe it; raise CephsimError with all problems."""
    results: list[tuple[Path, Measurement]] = []
    problems: list[Problem] = []
    for p in paths:
        try:
            results.append((p, read_any(p)))
        except CephsimError as exc:
            problems.extend(exc.problems)
    dumps = [m for _, m in results if isinstance(m, PerfDump)]
    intervals: list[tuple[PerfDump, PerfDump, dict[str, Any]]] = []
    for before, after in zip(dumps, dumps[1:]):
        try:
            intervals.append((before, after, diff_perf_dumps(before, after)))
        except CephsimError as exc:
            problems.extend(exc.problems)
    if problems:
        raise CephsimError(problems)
    if fmt == "json":
        doc = {"files": [{"path": str(p), "format": m.format, "kind": m.kind,
                          "measurement": m.to_dict()} for p, m in results],
               "perf_intervals": [{"before": b.source, "after": a.source,
                                   "averages": {k: v.to_dict() for k, v in d.items()}}
                                  for b, a, d in intervals]}
        return json.dumps(doc, indent=2)
    lines: list[str] = []
    for p, m in results:
        lines.append(f"{p}: {m.format}")
        lines.extend(_describe(m))
        if m.warnings:
            lines.append(f"  {len(m.warnings)} warning(s):")
            lines.extend(f"    {w}" for w in m.warnings)
    for b, a, d in intervals:
        lines.append(f"perf dump interval {b.source} -> {a.source}:")
        shown = {k: v for k, v in d.items() if v.count and k.split(".")[-1] in _PERF_HINTS}
        for k, v in (shown or {k: v for k, v in d.items() if v.count}).items():
            lines.append(f"  {k}: {v.count} ops, mean {fmt_ns(v.mean_ns)}")
    return "\n".join(lines) + "\n"
