"""Reader for ``rados bench`` summaries (write / seq / rand), text or ``--format json``.

Quirks handled:

- Latencies are in **seconds**; "MB/sec" is computed with 1024*1024 (MiB/s);
  ``Average IOPS`` is an integer.
- Label drift across releases: ``Average Latency(s):`` vs ``Average Latency:``,
  ``Average IOPS`` without a colon, ``Total writes made`` vs ``Total reads made``
  and ``Write size`` vs ``Read size``; labels are matched case-insensitively
  with the unit suffix and colon optional.
- The per-second table (``sec Cur ops started ...``, ``-`` placeholders,
  repeated headers), ``hints = 1``, ``Maintaining 16 concurrent writes ...``
  and cleanup trailers are skipped.
- JSON keys (``average_latency`` ...) are normalised (a historical build
  printed ``"max_latency:"`` with a stray colon); values may be strings.

Refused, at the line and column of the value (JSON: of its key): a summary
value that is not a number (``nan``/``inf`` - rados bench prints them when no
op completed -, ``-``, words; JSON ``null``/``true``), a negative one, a
fraction where a count or size is meant (``Total writes made: 54.4``), and a
zero ``Total time run``, op/object size or average latency (a run of no time or
of 0-byte objects measured nothing - bandwidth and IOPS are divided by the
time - and no op completes in no time).
"""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path
from typing import Any

from cephsim.errors import Problem
from cephsim.formats.readers.common import (
    ReaderError,
    check_range,
    json_documents,
    json_error,
    json_number,
    parse_decimal,
    read_text,
    to_ns,
)
from cephsim.formats.readers.model import RadosBenchMeasurement

_LINE_RE = re.compile(r"^\s*(?P<label>[A-Za-z][A-Za-z ]*?)\s*(?:\((?P<unit>[^)]*)\))?\s*:?\s+"
                      r"(?P<val>\S+)\s*$")
# normalised label -> (attribute, kind)
_LABELS: dict[str, tuple[str, str]] = {
    "total time run": ("total_time_ns", "s"),
    "total writes made": ("total_ops", "int"),
    "total reads made": ("total_ops", "int"),
    "write size": ("op_size_bytes", "int"),
    "read size": ("op_size_bytes", "int"),
    "object size": ("object_size_bytes", "int"),
    "bandwidth": ("bandwidth_bytes", "MiB"),
    "average iops": ("avg_iops", "float"),
    "stddev iops": ("stddev_iops", "float"),
    "max iops": ("max_iops", "float"),
    "min iops": ("min_iops", "float"),
    "average latency": ("avg_latency_ns", "s"),
    "stddev latency": ("stddev_latency_ns", "s"),
    "max latency": ("max_latency_ns", "s"),
    "min latency": ("min_latency_ns", "s"),
}
_JSON_KEYS = {k.replace(" ", "_"): v for k, v in _LABELS.items()}
_JSON_KEYS.update({"total_writes_made": ("total_ops", "int"),
                   "total_reads_made": ("total_ops", "int")})


def looks_like(text: str) -> bool:
    return bool(re.search(r"(?mi)^\s*(Total time run|Bandwidth \(MB/sec\)|Average Latency)", text)
                or ('"average_latency' in text and '"total_time_run' in text)
                # the head of a --format json summary (so a truncated one is called truncated)
                or ('"concurrent_ops"' in text and '"object_prefix"' in text))


def read_rados_bench(path: Path | str, text: str | None = None) -> RadosBenchMeasurement:
    """Read a rados bench summary from ``path`` (or ``text``)."""
    name = str(path)
    if text is None:
        text = read_text(path)
    out = RadosBenchMeasurement(source=name)
    if text.lstrip().startswith("{"):
        docs = json_documents(text, name)
        if docs and isinstance(docs[-1][1], dict):
            _from_json(out, docs[-1][1], name, text, docs[-1][0])
    else:
        _from_text(out, text, name, out.warnings)
    if out.avg_latency_ns is None and out.bandwidth_bytes is None and out.avg_iops is None:
        raise ReaderError.at(name, "no rados bench summary found (expected 'Average "
                             "Latency(s):', 'Bandwidth (MB/sec):' or 'Average IOPS:')")
    return out


#: attributes that must be > 0: a run of no time, or of 0-byte ops, measured nothing; no
#: op completes in no time
_POSITIVE = ("total_time_ns", "op_size_bytes", "object_size_bytes", "avg_latency_ns")


def _store(out: RadosBenchMeasurement, attr: str, kind: str, value: Decimal) -> None:
    if kind == "s":
        setattr(out, attr, to_ns(value, "s"))
    elif kind == "int":
        setattr(out, attr, int(value))
    elif kind == "MiB":
        setattr(out, attr, float(value) * 1024 * 1024)
    else:
        setattr(out, attr, float(value))


def _from_text(out: RadosBenchMeasurement, text: str, name: str, warnings: list[Problem]) -> None:
    for ln, raw in enumerate(text.split("\n"), start=1):
        low = raw.lower()
        if out.mode is None:
            m = re.search(r"rados\b.*\bbench\s+\S+\s+(write|seq|rand)\b", raw)
            if m:
                out.mode = m.group(1)
            elif "concurrent writes of" in low:
                out.mode = "write"
        m = _LINE_RE.match(raw)
        if not m:
            continue
        label = " ".join(m["label"].lower().split())
        if label not in _LABELS:
            continue
        if label == "stddev latency" and "bandwidth" in low:
            continue
        attr, kind = _LABELS[label]
        unit = (m["unit"] or "").strip().lower()
        if kind == "s" and unit not in ("", "s", "sec"):
            raise ReaderError.at(name, f"unknown unit {m['unit']!r} for {label} (rados bench "
                                 "prints seconds)", ln, m.start("unit") + 1)
        col = m.start("val") + 1
        try:
            value = parse_decimal(m["val"])
        except ValueError:
            hint = (" (rados bench prints nan/inf when no op completed)"
                    if m["val"].strip("+-").lower() in ("nan", "inf", "infinity") else "")
            raise ReaderError.at(name, f"{label} is {m['val']!r}, expected a number{hint}",
                                 ln, col) from None
        try:
            check_range(value, f"{label} {m['val']}", integer=kind == "int",
                        positive=attr in _POSITIVE)
        except ValueError as e:
            raise ReaderError.at(name, str(e), ln, col) from None
        _store(out, attr, kind, value)
        if label == "total writes made" and out.mode is None:
            out.mode = "write"
        if label == "total reads made" and out.mode is None:
            out.mode = "read"


def _from_json(out: RadosBenchMeasurement, doc: dict[str, Any], name: str, text: str,
               offset: int) -> None:
    for key, value in doc.items():
        norm = key.strip().rstrip(":").strip().lower()
        if norm not in _JSON_KEYS:
            continue
        attr, kind = _JSON_KEYS[norm]
        try:
            dec = json_number(value, key, strings=True, integer=kind == "int",
                              positive=attr in _POSITIVE)
        except ValueError as e:
            raise json_error(name, text, offset, [key], str(e)) from None
        _store(out, attr, kind, dec)
        if norm == "total_writes_made":
            out.mode = "write"
        elif norm == "total_reads_made" and out.mode is None:
            out.mode = "read"
