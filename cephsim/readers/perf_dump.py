"""Reader for ``ceph daemon osd.N perf dump`` / ``ceph tell osd.N perf dump``.

Quirks handled:

- The document is a map of collections (``osd``, ``bluestore``, ``bluefs``,
  ``throttle-*`` ...) to counters.  A counter is a number, or an *average*
  ``{"avgcount": n, "sum": seconds}`` (newer releases add ``avgtime``, a
  lifetime average), or a histogram/other map (skipped).
- ``sum`` is a lifetime total in **seconds**: the meaningful average for a test
  is Δsum/Δavgcount between two dumps taken before and after it -
  :func:`diff_perf_dumps`.  A counter that went backwards (OSD restart,
  ``perf reset``) is an error rather than a negative latency.
- Text before/after the JSON (a shell prompt) is skipped; if a file holds
  several dumps the last one is used, with a warning.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cephsim.errors import CephsimError, Problem
from cephsim.readers.common import (ReaderError, finite_number, json_documents, read_text, to_ns,
                                    warn)
from cephsim.readers.model import AvgCounter, IntervalAverage, PerfDump


def is_perf_dump(obj: Any) -> bool:
    if not isinstance(obj, dict) or not obj:
        return False
    for coll in obj.values():
        if isinstance(coll, dict):
            for c in coll.values():
                if isinstance(c, dict) and "avgcount" in c and "sum" in c:
                    return True
    return False


def looks_like(text: str) -> bool:
    return '"avgcount"' in text and '"sum"' in text


def read_perf_dump(path: Path | str, text: str | None = None) -> PerfDump:
    """Read one perf dump from ``path`` (or ``text``)."""
    name = str(path)
    if text is None:
        text = read_text(path)
    docs = [d for _, d in json_documents(text, name) if is_perf_dump(d)]
    if not docs:
        raise ReaderError.at(name, "no perf dump found (expected JSON collections with "
                             "{\"avgcount\": ..., \"sum\": ...} counters)")
    out = PerfDump(source=name)
    if len(docs) > 1:
        out.warnings.append(warn(name, f"{len(docs)} perf dumps in one file; using the last "
                                 "(give before/after dumps as two files to get interval "
                                 "averages)"))
    for coll, counters in docs[-1].items():
        if not isinstance(counters, dict):
            continue
        for key, c in counters.items():
            full = f"{coll}.{key}"
            if isinstance(c, dict):
                _average(out, full, c, name)
            else:
                v = finite_number(c)
                if v is not None:
                    out.values[full] = v
    return out


def _average(out: PerfDump, full: str, c: dict[str, Any], name: str) -> None:
    if "avgcount" not in c or "sum" not in c:
        return  # histogram or other structure
    count, total = finite_number(c["avgcount"]), finite_number(c["sum"])
    if count is None or total is None or count < 0 or total < 0:
        out.warnings.append(warn(name, f"{full}: unreadable average {c!r}; skipped"))
        return
    avgtime = finite_number(c.get("avgtime"))
    out.averages[full] = AvgCounter(
        avgcount=int(count), sum_ns=to_ns(total, "s"),
        avgtime_ns=to_ns(avgtime, "s") if avgtime is not None else None)


def diff_perf_dumps(before: PerfDump, after: PerfDump) -> dict[str, IntervalAverage]:
    """Per-counter averages over the interval between two dumps (Δsum/Δavgcount).

    Only counters present in both dumps are returned.  Raises
    :class:`CephsimError` listing every counter that went backwards.
    """
    out: dict[str, IntervalAverage] = {}
    problems: list[Problem] = []
    for key, a in after.averages.items():
        b = before.averages.get(key)
        if b is None:
            continue
        dcount, dsum = a.avgcount - b.avgcount, a.sum_ns - b.sum_ns
        if dcount < 0 or dsum < 0:
            problems.append(Problem(f"counter went backwards between {before.source} and this "
                                    "dump (OSD restart or 'perf reset'?)", file=after.source,
                                    path=key))
            continue
        out[key] = IntervalAverage(count=dcount,
                                   mean_ns=round(dsum / dcount) if dcount else None)
    if problems:
        raise CephsimError(problems)
    return out
