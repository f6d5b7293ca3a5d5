"""Reader for ping output (Linux iputils, BusyBox, macOS/BSD).

Quirks handled:

- ping reports **round-trip** times (RTT) in ms - stored as ``rtt_*_ns``; it
  is not one-way like qperf.
- Summary line variants: iputils ``rtt min/avg/max/mdev = a/b/c/d ms``
  (flood mode appends ``, ipg/ewma x/y ms``, ignored), BSD/macOS
  ``round-trip min/avg/max/stddev = ...``, BusyBox ``round-trip min/avg/max =
  ...`` (no deviation).
- Loss line ``N packets transmitted, M received, [+E errors,] X% packet loss``
  (BusyBox says ``M packets received``).
- Per-reply ``time=0.061 ms`` samples are kept (the first reply is often an
  ARP/ND warm-up outlier); payload size and address from the ``PING host (ip)
  56(84) bytes`` header.
- Several runs per file (one summary each), summaries pasted without the rest
  of the output.  An unreadable number in a summary is left missing with a
  warning; an unknown unit is an error.
"""

from __future__ import annotations

import re
from pathlib import Path

from cephsim.errors import Problem
from cephsim.formats.readers.common import (
    TIME_UNITS_NS,
    ReaderError,
    parse_decimal,
    read_text,
    to_ns,
    warn,
)
from cephsim.formats.readers.model import NetLatencyMeasurement, PingSummary

_SUMMARY_RE = re.compile(r"^\s*(?:rtt|round-trip)\s+(?P<labels>min/avg/max(?:/\w+)?)\s*=\s*"
                         r"(?P<vals>\S+)\s+(?P<unit>\S+?)\s*(?:,.*)?$")
_LOSS_RE = re.compile(r"(?P<tx>\d+) packets transmitted, (?P<rx>\d+) (?:packets )?received"
                      r".*?(?P<loss>[\d.]+)% packet loss")
# iputils writes "PING ::1(::1) 56 data bytes" for IPv6: no space before the address
_HEADER_RE = re.compile(r"^PING (?P<name>[^\s(]+) ?\((?P<addr>[^)]*)\):? (?P<size>\d+)"
                        r"(?:\(\d+\))? (?:data )?bytes")
_REPLY_RE = re.compile(r"\btime[=<]\s*(?P<t>[\d.]+)\s*(?P<unit>ms|us|usec|s)\b")


def looks_like(text: str) -> bool:
    return bool(re.search(r"(?m)^\s*(rtt|round-trip)\s+min/avg/max", text)
                or _LOSS_RE.search(text))


def read_ping(path: Path | str, text: str | None = None) -> NetLatencyMeasurement:
    """Read ping output from ``path`` (or ``text``)."""
    name = str(path)
    if text is None:
        text = read_text(path)
    warnings: list[Problem] = []
    runs: list[PingSummary] = []
    pending = PingSummary(line=0)
    touched = False
    for ln, raw in enumerate(text.split("\n"), start=1):
        m = _HEADER_RE.match(raw.strip())
        if m:
            if touched:  # previous run had no summary line (e.g. 100% loss)
                runs.append(pending)
            pending = PingSummary(line=ln, payload_bytes=int(m["size"]),
                                  host=m["addr"].strip() or m["name"])
            touched = True
            continue
        m = _REPLY_RE.search(raw)
        if m and "bytes from" in raw:
            try:
                pending.samples_ns.append(to_ns(parse_decimal(m["t"]), m["unit"]))
                touched = True
            except ValueError:
                warnings.append(warn(name, f"unreadable reply time {m['t']!r}", ln,
                                     m.start("t") + 1))
            continue
        m = _LOSS_RE.search(raw)
        if m:
            pending.transmitted, pending.received = int(m["tx"]), int(m["rx"])
            pending.loss_percent = float(m["loss"])
            pending.line = pending.line or ln
            touched = True
            continue
        m = _SUMMARY_RE.match(raw)
        if m:
            _summary(pending, m, raw, ln, name, warnings)
            runs.append(pending)
            pending, touched = PingSummary(line=0), False
    if touched:
        runs.append(pending)
    if not runs:
        raise ReaderError.at(name, "no ping summary found (expected e.g. 'rtt min/avg/max/mdev "
                             "= 0.034/0.048/0.080/0.016 ms')")
    return NetLatencyMeasurement(source=name, format="ping", ping=runs, warnings=warnings)


def _summary(run: PingSummary, m: re.Match[str], raw: str, ln: int, name: str,
             warnings: list[Problem]) -> None:
    unit = m["unit"]
    if unit not in TIME_UNITS_NS:
        raise ReaderError.at(name, f"unknown time unit {unit!r} in ping summary", ln,
                             m.start("unit") + 1)
    labels = m["labels"].split("/")
    vals = m["vals"].split("/")
    run.line = run.line or ln
    if len(vals) != len(labels):
        warnings.append(warn(name, f"{len(labels)} labels but {len(vals)} values; summary "
                             "left missing", ln, m.start("vals") + 1))
        return
    col = m.start("vals") + 1
    for label, val in zip(labels, vals):
        attr = {"min": "rtt_min_ns", "avg": "rtt_avg_ns", "max": "rtt_max_ns"}.get(
            label, "rtt_mdev_ns")
        try:
            value = parse_decimal(val)
        except ValueError:
            warnings.append(warn(name, f"unreadable {label} {val!r}; left missing", ln, col))
        else:
            if value < 0:
                raise ReaderError.at(name, f"{label} round-trip time {val} {unit}: cannot be "
                                     "negative", ln, col)
            setattr(run, attr, to_ns(value, unit))
        col += len(val) + 1
