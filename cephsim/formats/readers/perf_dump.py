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

Refused, at the field's line and column: an ``avgcount`` that is not a whole
number >= 0; a ``sum``/``avgtime`` or plain counter that is negative, not a
number (a string, ``null``, ``true``) or out of range (``1e400``; bare
``NaN``/``Infinity`` are not JSON); an average with only one of ``avgcount``
and ``sum``; a ``sum`` > 0 with ``avgcount`` 0 (Ceph reads the pair
consistently, so time without a count means an edited or damaged file - and
the count is the divisor of every mean).  Truncated JSON is an error (see
:func:`~cephsim.formats.readers.common.json_documents`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cephsim.errors import CephsimError, Problem
from cephsim.formats.readers.common import (
    ReaderError,
    json_documents,
    json_error,
    json_number,
    read_text,
    to_ns,
    warn,
)
from cephsim.formats.readers.model import AvgCounter, IntervalAverage, PerfDump


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
    docs = [(off, d) for off, d in json_documents(text, name) if is_perf_dump(d)]
    if not docs:
        raise ReaderError.at(name, "no perf dump found (expected JSON collections with "
                             "{\"avgcount\": ..., \"sum\": ...} counters)")
    out = PerfDump(source=name)
    if len(docs) > 1:
        out.warnings.append(warn(name, f"{len(docs)} perf dumps in one file; using the last "
                                 "(give before/after dumps as two files to get interval "
                                 "averages)"))
    offset, doc = docs[-1]
    for coll, counters in doc.items():
        if not isinstance(counters, dict):
            continue
        for key, c in counters.items():
            full = f"{coll}.{key}"
            if isinstance(c, dict):
                _average(out, coll, key, c, name, text, offset)
                continue
            try:
                out.values[full] = float(json_number(c, key))
            except ValueError as e:
                raise json_error(name, text, offset, [coll, key], str(e)) from None
    return out


def _average(out: PerfDump, coll: str, key: str, c: dict[str, Any], name: str, text: str,
             offset: int) -> None:
    if "avgcount" not in c and "sum" not in c:
        return  # histogram or other structure
    full = f"{coll}.{key}"
    for need in ("avgcount", "sum"):
        if need not in c:
            raise json_error(name, text, offset, [coll, key],
                             f"an average counter has avgcount and sum; {need} is missing")

    def number(field: str, **kw: bool) -> Any:
        try:
            return json_number(c[field], field, **kw)
        except ValueError as e:
            raise json_error(name, text, offset, [coll, key, field], str(e),
                             f"{full}.{field}") from None

    count = number("avgcount", integer=True)
    total = number("sum")
    avgtime = number("avgtime") if "avgtime" in c else None
    if count == 0 and total > 0:
        raise json_error(name, text, offset, [coll, key, "sum"],
                         f"sum is {c['sum']} but avgcount is 0: time without any event "
                         "(edited or damaged dump?)", f"{full}.sum")
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
        if dcount == 0 and dsum > 0:
            problems.append(Problem(f"sum grew by {dsum} ns since {before.source} but avgcount "
                                    "did not: time without any event (dumps of different OSDs, "
                                    "or an edited file?)", file=after.source, path=key))
            continue
        out[key] = IntervalAverage(count=dcount,
                                   mean_ns=round(dsum / dcount) if dcount else None)
    if problems:
        raise CephsimError(problems)
    return out
