"""Reader for fio ``--output-format=json`` and ``json+``.

Quirks handled:

- fio 3.x keys ``slat_ns``/``clat_ns``/``lat_ns`` are in ns; fio 2.x wrote
  ``slat``/``clat``/``lat`` in **usec** (detected by key name, converted).
- ``bw`` is KiB/s (``bw_bytes`` is used when present), ``runtime`` ms.
- Percentile keys are strings with six decimals (``"99.990000"``); they sit
  under ``clat_ns`` by default, under ``lat_ns`` with ``lat_percentiles=1``.
- json+ adds ``bins`` (bucket midpoint in ns -> count) next to the percentiles.
- Text before the document (job banner), after it (``json,normal`` output) and
  several concatenated documents (``--status-interval``) are handled with
  ``json.JSONDecoder.raw_decode``; a document that does not decode is an error
  with line and column.  ``NaN``/``Infinity`` are rejected.
- ``unified_rw_reporting`` gives a ``mixed`` direction; client/server mode
  gives ``client_stats`` (entries with ``hostname``; the last is "All clients").
- Directions with ``total_ios == 0`` (fio prints all directions) are skipped.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cephsim.errors import Problem
from cephsim.formats.readers.common import (
    ReaderError,
    finite_number,
    json_documents,
    json_number,
    json_offset,
    line_col,
    read_text,
    require_figures,
    warn,
)
from cephsim.formats.readers.model import FioDirection, FioJob, FioMeasurement, LatencyStats

DIRECTIONS = ("read", "write", "trim", "mixed", "sync")


def is_fio_document(obj: Any) -> bool:
    return isinstance(obj, dict) and ("fio version" in obj or isinstance(obj.get("jobs"), list)
                                      or isinstance(obj.get("client_stats"), list))


def looks_like(text: str) -> bool:
    return '"fio version"' in text or ('"jobs"' in text and '"jobname"' in text)


def read_fio_json(path: Path | str, text: str | None = None) -> FioMeasurement:
    """Read fio JSON/json+ from ``path`` (or ``text``)."""
    name = str(path)
    if text is None:
        text = read_text(path)
    docs = [(off, d) for off, d in json_documents(text, name) if is_fio_document(d)]
    if not docs:
        raise ReaderError.at(name, "no fio JSON document found (expected an object with "
                             "\"fio version\" and \"jobs\")")
    warnings: list[Problem] = []
    jobs: list[FioJob] = []
    version = None
    for index, (offset, doc) in enumerate(docs):
        line = line_col(text, offset)[0]
        if isinstance(doc.get("fio version"), str):
            version = doc["fio version"]
        entries: list[Any] = []
        if isinstance(doc.get("jobs"), list):
            entries += doc["jobs"]
        if isinstance(doc.get("client_stats"), list):
            entries += doc["client_stats"]
        n_jobs = len(doc["jobs"]) if isinstance(doc.get("jobs"), list) else 0
        for j, entry in enumerate(entries):
            if not isinstance(entry, dict):
                warnings.append(warn(name, f"document {index + 1}: job entry {j + 1} is not "
                                     "an object; skipped", line))
                continue
            try:
                job = _job(entry, index, line, name, warnings)
            except ReaderError as e:
                _locate(e, text, offset, entry,
                        ["jobs", j] if j < n_jobs else ["client_stats", j - n_jobs])
                raise
            if job.directions:
                jobs.append(job)
    if not jobs:
        raise ReaderError.at(name, "fio JSON contains no job with completed I/O "
                             "(all directions have total_ios == 0)", line_col(text, docs[0][0])[0])
    require_figures(name, jobs, "fio JSON", line_col(text, docs[0][0])[0])
    return FioMeasurement(source=name, format="fio-json", fio_version=version, jobs=jobs,
                          warnings=warnings)


def _locate(err: ReaderError, text: str, offset: int, entry: dict[str, Any],
            at: list[str | int]) -> None:
    """Move a field error from the document's first line to the field's own line: its
    path (``<jobname>.write.clat_ns...``) below the job entry at ``at`` in the document
    (readers.common.json_offset walks it)."""
    jobname = entry.get("jobname")
    skip = len(str(jobname).split(".")) if jobname is not None else 1
    for p in err.problems:
        if p.path:
            keys: list[str | int] = list(p.path.split(".")[skip:])
            p.line, p.column = line_col(text, json_offset(text, offset, [*at, *keys]))


def _int(v: Any) -> int | None:
    f = finite_number(v)
    return int(f) if f is not None else None


def _job(entry: dict[str, Any], index: int, line: int, name: str,
         warnings: list[Problem]) -> FioJob:
    jobname = entry.get("jobname")
    job = FioJob(name=str(jobname) if jobname is not None else "(unnamed)",
                 groupid=_int(entry.get("groupid")), document=index, line=line,
                 hostname=entry.get("hostname") if isinstance(entry.get("hostname"), str)
                 else None)
    opts = entry.get("job options")
    if isinstance(opts, dict) and str(opts.get("numjobs", "")).isdigit():
        job.jobs = int(opts["numjobs"])
    for direction in DIRECTIONS:
        block = entry.get(direction)
        if not isinstance(block, dict):
            continue
        d = _direction(direction, block, f"{job.name}.{direction}", name, line, warnings)
        if d is not None:
            job.directions[direction] = d
    return job


def _field(block: dict[str, Any], key: str, where: str, name: str, line: int) -> float | None:
    """A number fio always writes as a number >= 0: absent -> None; anything else -> error."""
    if key not in block:
        return None
    try:
        return float(json_number(block[key], key))
    except ValueError as e:
        raise ReaderError([Problem(str(e), file=name, line=line, path=f"{where}.{key}")]) from None


def _direction(direction: str, block: dict[str, Any], where: str, name: str, line: int,
               warnings: list[Problem]) -> FioDirection | None:
    total = _field(block, "total_ios", where, name, line)
    if total == 0:
        return None
    d = FioDirection(direction, total_ios=None if total is None else int(total))
    d.iops = _field(block, "iops", where, name, line)
    bw_bytes = _field(block, "bw_bytes", where, name, line)
    bw = _field(block, "bw", where, name, line)
    d.bw_bytes = bw_bytes if bw_bytes is not None else (bw * 1024 if bw is not None else None)
    d.io_bytes = _int(block.get("io_bytes"))
    if d.io_bytes is None and finite_number(block.get("io_kbytes")) is not None:
        d.io_bytes = int(block["io_kbytes"]) * 1024
    d.runtime_ms = _int(block.get("runtime"))
    for kind in ("slat", "clat", "lat"):
        if isinstance(block.get(f"{kind}_ns"), dict):
            stats, factor = block[f"{kind}_ns"], 1
        elif isinstance(block.get(kind), dict):  # fio 2.x: usec
            stats, factor = block[kind], 1000
        else:
            continue
        parsed = _stats(stats, factor, f"{where}.{f'{kind}_ns' if factor == 1 else kind}", name,
                        line)
        if parsed.n == 0:
            continue  # e.g. slat with a sync engine: fio prints zeros
        setattr(d, kind, parsed)
        pct = stats.get("percentile")
        if isinstance(pct, dict) and pct and (d.percentiles_of is None
                                               or (kind == "clat" and d.percentiles_of == "lat")):
            d.percentiles = _percentiles(pct, factor, f"{where}.{kind}", name, line, warnings)
            d.percentiles_of = kind
        bins = stats.get("bins")
        if isinstance(bins, dict) and bins:
            d.bins = _bins(bins, factor, f"{where}.{kind}", name, line, warnings)
    if d.iops is None and d.lat is None and d.clat is None:
        if total is None and not block:
            return None
        warnings.append(warn(name, f"{where}: neither iops nor latency statistics", line))
    return d


def _stats(stats: dict[str, Any], factor: int, where: str, name: str, line: int) -> LatencyStats:
    out = LatencyStats()
    for key, attr in (("min", "min_ns"), ("max", "max_ns"), ("mean", "mean_ns"),
                      ("stddev", "stddev_ns")):
        v = _field(stats, key, where, name, line)
        if v is not None:
            setattr(out, attr, round(v * factor))
    n = _field(stats, "N", where, name, line)
    out.n = None if n is None else int(n)
    return out


def _percentiles(pct: dict[str, Any], factor: int, where: str, name: str, line: int,
                 warnings: list[Problem]) -> dict[float, int]:
    out: dict[float, int] = {}
    for key, value in pct.items():
        v = finite_number(value)
        try:
            p = float(key)
        except ValueError:
            p = -1.0
        if v is None or not 0.0 <= p <= 100.0:
            warnings.append(warn(name, f"{where}.percentile: unreadable entry "
                                 f"{key!r}: {value!r}; skipped", line))
            continue
        if v < 0:
            raise ReaderError([Problem(f"percentile {key} is {json.dumps(value)}: a latency "
                                       "cannot be negative", file=name, line=line,
                                       path=f"{where}.percentile")])
        out[p] = round(v * factor)
    return out


def _bins(bins: dict[str, Any], factor: int, where: str, name: str, line: int,
          warnings: list[Problem]) -> dict[int, int]:
    out: dict[int, int] = {}
    for key, value in bins.items():
        count = _int(value)
        if not key.isdigit() or count is None:
            warnings.append(warn(name, f"{where}.bins: unreadable entry {key!r}: {value!r}; "
                                 "skipped", line))
            continue
        out[int(key) * factor] = count
    return dict(sorted(out.items()))
