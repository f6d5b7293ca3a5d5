"""Reader for fio's normal ("human") output, fio 2.x and 3.x.

Quirks handled:

- The time unit is per line, in parentheses: ``clat (usec):``, ``slat (nsec):``,
  ``lat (msec):``; the percentile block has its own unit
  (``clat percentiles (usec):``).  A well-formed but unknown unit (``(fsec)``)
  is an error; everything is converted to integer ns.
- Values carry decimal suffixes, even in latency lines (``max=1122.1k``) and on
  IOPS (``IOPS=25.4k``).  ``BW=`` is binary (KiB/MiB/GiB) in fio 3; fio 2's
  ``bw=...KB/s`` is also 1024-based.
- ``read:``/``write:``/``trim:``/``mixed:`` blocks per job, several jobs,
  ``group_reporting`` (one block, ``jobs=N``), an ``fsync/fdatasync`` block
  whose ``sync (usec)`` lines become direction ``sync``.
- ``lat (usec)   : 750=68.22%`` lines are a bucket distribution (share of
  I/Os per latency bucket, keys are upper bounds), not latencies.
- Noise is skipped: ``Jobs: 1 (f=1): [w(1)]...`` status lines, run-status and
  disk-stat trailers, job banners, shell prompts.  ``write:`` lines without a
  job header (pasted into a blog post) become unnamed jobs.
- OCR-damaged text (``stdev=4zz.19``, ``10.00th=[ oct``, ``tue. 1.14``) is
  never guessed: the value becomes missing with a warning naming line and
  column; the rest of the file is read.
"""

from __future__ import annotations

import re
from pathlib import Path

from cephsim.errors import Problem
from cephsim.formats.readers.common import (
    FIO_UNITS,
    ReaderError,
    parse_decimal,
    read_text,
    require_figures,
    to_ns,
    warn,
)
from cephsim.formats.readers.model import (
    FioDirection,
    FioJob,
    FioMeasurement,
    LatencyBucket,
    LatencyStats,
)

_JOB_RE = re.compile(r"^(?P<name>\S.*?):\s*\(groupid=(?P<g>\d+),\s*jobs=(?P<j>\d+)\)")
_DIR_RE = re.compile(r"^\s*(?P<dir>read|write|trim|mixed)\s*:\s*(?P<rest>(?:IOPS|iops|io)=.*)$")
_STATS_RE = re.compile(r"^\s*(?P<kind>slat|clat|lat|sync)\s*\(\s*(?P<unit>[^)]*?)\s*\)\s*:?"
                       r"(?P<rest>.*)$")
_PCT_HDR_RE = re.compile(r"^\s*(?P<kind>slat|clat|lat|sync)\s+percentiles\s*"
                         r"\(\s*(?P<unit>[^)]*?)\s*\)\s*:?\s*$")
_PCT_ITEM_RE = re.compile(r"(?P<p>\d+(?:\.\d+)?)th=\[(?P<v>[^\]]*?)"
                          r"(?:\]|(?=\s*,?\s*\d+(?:\.\d+)?th=\[)|$)")
_LABELLESS_RE = re.compile(r"^\s*:\s*\S")
_SYNC_HDR_RE = re.compile(r"^\s*fsync/fdatasync/sync_file_range:\s*$")
_IOPS_RE = re.compile(r"(?:IOPS|iops)=\s*(?P<v>[^,\s]*)")
_BW3_RE = re.compile(r"BW=\s*(?P<v>[\d.]+)\s*(?P<u>[A-Za-z]*)/s")
_BW2_RE = re.compile(r"\bbw=\s*(?P<v>[\d.]+)\s*(?P<u>[A-Za-z]*)/s")
_IORT3_RE = re.compile(r"\((?P<io>[\d.]+)\s*(?P<u>[A-Za-z]*)/(?P<rt>\d+)msec\)")
_IO2_RE = re.compile(r"\bio=\s*(?P<io>[\d.]+)\s*(?P<u>[A-Za-z]*)")
_WORD_RE = re.compile(r"^[A-Za-zµ]+$")

_BW3_UNITS = {"B": 1, "KiB": 1024, "MiB": 1024**2, "GiB": 1024**3, "TiB": 1024**4,
              "kB": 1000, "KB": 1000, "MB": 1000**2, "GB": 1000**3, "TB": 1000**4}
_BW2_UNITS = {"B": 1, "KB": 1024, "MB": 1024**2, "GB": 1024**3, "TB": 1024**4,
              "KiB": 1024, "MiB": 1024**2, "GiB": 1024**3}
_STAT_KEYS = {"min": "min_ns", "max": "max_ns", "avg": "mean_ns", "stdev": "stddev_ns"}


def looks_like(text: str) -> bool:
    """Cheap content sniff used by :mod:`cephsim.formats.readers.detect`."""
    return bool(re.search(r"\(groupid=\d+,\s*jobs=\d+\)", text)
                or re.search(r"(?m)^\s*(read|write|trim|mixed)\s*:\s*(IOPS|iops|io)=", text))


class _State:
    def __init__(self, name: str) -> None:
        self.name = name
        self.warnings: list[Problem] = []
        self.jobs: list[FioJob] = []
        self.job: FioJob | None = None
        self.direction: FioDirection | None = None

    def w(self, message: str, line: int, column: int | None = None) -> None:
        self.warnings.append(warn(self.name, message, line, column))


def read_fio_text(path: Path | str, text: str | None = None) -> FioMeasurement:
    """Read fio normal output from ``path`` (or from ``text`` if given)."""
    name = str(path)
    if text is None:
        text = read_text(path)
    st = _State(name)
    lines = text.split("\n")
    version = None
    i = 0
    while i < len(lines):
        raw = lines[i]
        ln = i + 1
        i += 1
        s = raw.strip()
        if not s:
            continue
        if version is None and re.fullmatch(r"fio-\d[\w.\-]*", s):
            version = s
            continue
        if s.startswith(("Jobs:", "Run status group", "Disk stats")):
            continue
        m = _JOB_RE.match(raw)
        if m:
            st.job = FioJob(name=m["name"].strip(), groupid=int(m["g"]), jobs=int(m["j"]),
                            line=ln)
            st.jobs.append(st.job)
            st.direction = None
            continue
        m = _DIR_RE.match(raw)
        if m:
            _direction_line(st, m["dir"], m["rest"], raw, ln)
            continue
        if _SYNC_HDR_RE.match(raw) and st.job is not None:
            st.direction = st.job.directions.setdefault("sync", FioDirection("sync"))
            continue
        m = _PCT_HDR_RE.match(raw)
        if m:
            i = _percentiles(st, m["kind"], m["unit"], lines, i, ln)
            continue
        m = _STATS_RE.match(raw)
        if m:
            _stats_or_buckets(st, m, raw, ln)
            continue
        if _LABELLESS_RE.match(raw) and st.job is not None:
            st.w("values without a label (damaged text?); line skipped", ln,
                 raw.index(":") + 1)
            continue
    if not any(j.directions for j in st.jobs):
        raise ReaderError.at(name, "no fio results found (expected lines such as "
                             "'write: IOPS=..., BW=...' after a '(groupid=0, jobs=1)' header)")
    require_figures(name, st.jobs, "the fio output", next((j.line for j in st.jobs if j.line), None))
    return FioMeasurement(source=name, format="fio-text", fio_version=version, jobs=st.jobs,
                          warnings=st.warnings)


def _number(st: _State, text: str, raw: str, start: int, ln: int, what: str):
    """A count, rate or latency: unreadable -> warning and None; negative -> error."""
    try:
        v = parse_decimal(text)
    except ValueError:
        st.w(f"unreadable {what} {text.strip()!r}; left missing", ln, start + 1)
        return None
    if v < 0:
        raise ReaderError.at(st.name, f"{what} {text.strip()}: cannot be negative", ln,
                             start + 1 + len(text) - len(text.lstrip()))
    return v


def _direction_line(st: _State, direction: str, rest: str, raw: str, ln: int) -> None:
    if st.job is None or direction in st.job.directions:
        # a bare 'write:' line (no job header) or a second block: an unnamed job
        st.job = FioJob(name="(unnamed)", line=ln)
        st.jobs.append(st.job)
    d = st.direction = st.job.directions.setdefault(direction, FioDirection(direction))
    off = raw.index(rest)
    m = _IOPS_RE.search(rest)
    if m:
        v = _number(st, m["v"], raw, off + m.start("v"), ln, "IOPS")
        d.iops = float(v) if v is not None else None
    else:
        st.w("no IOPS= value", ln)
    m3 = _BW3_RE.search(rest)
    m2 = None if m3 else _BW2_RE.search(rest)
    for m, units in ((m3, _BW3_UNITS), (m2, _BW2_UNITS)):
        if m:
            if m["u"] not in units:
                raise ReaderError.at(st.name, f"unknown bandwidth unit {m['u'] + '/s'!r} "
                                     f"(known: {', '.join(u + '/s' for u in units)})",
                                     ln, off + m.start("u") + 1)
            v = _number(st, m["v"], raw, off + m.start("v"), ln, "bandwidth")
            d.bw_bytes = float(v * units[m["u"]]) if v is not None else None
    m = _IORT3_RE.search(rest)
    if m and m["u"] in _BW3_UNITS:
        d.io_bytes = int(parse_decimal(m["io"]) * _BW3_UNITS[m["u"]])
        d.runtime_ms = int(m["rt"])
    elif not m3:
        m = _IO2_RE.search(rest)
        if m and m["u"] in _BW2_UNITS:
            d.io_bytes = int(parse_decimal(m["io"]) * _BW2_UNITS[m["u"]])
        r = re.search(r"\brunt=\s*(\d+)msec", rest)
        if r:
            d.runtime_ms = int(r.group(1))


def _check_unit(st: _State, unit: str, raw: str, ln: int) -> bool:
    if unit in FIO_UNITS:
        return True
    col = raw.index("(") + 2
    if _WORD_RE.match(unit):
        raise ReaderError.at(st.name, f"unknown time unit {unit!r} (fio prints nsec, usec "
                             "or msec)", ln, col)
    st.w(f"unreadable unit {unit!r}; line skipped", ln, col)
    return False


def _stats_or_buckets(st: _State, m: re.Match[str], raw: str, ln: int) -> None:
    kind, unit, rest = m["kind"], m["unit"], m["rest"]
    if not rest.strip():
        st.w(f"'{kind} ({unit})' label without values (damaged text?); skipped", ln)
        return
    if not _check_unit(st, unit, raw, ln):
        return
    off = m.start("rest")
    if "%" in rest and not re.search(r"\b(min|avg)\s*=", rest):
        if kind == "lat" and st.job is not None:
            _buckets(st, unit, rest, raw, off, ln)
        return
    d = st.direction
    if d is None:
        st.w(f"'{kind}' statistics outside a read/write block; skipped", ln)
        return
    stats = LatencyStats()
    seen: set[str] = set()
    for piece in re.finditer(r"[^,]+", rest):
        text = piece.group()
        if not text.strip():
            continue
        col0 = off + piece.start()
        kv = re.match(r"\s*(\w+)\s*=(.*)$", text)
        if not kv or kv.group(1) not in _STAT_KEYS:
            st.w(f"unreadable field {text.strip()!r}; skipped", ln,
                 col0 + len(text) - len(text.lstrip()) + 1)
            continue
        key = kv.group(1)
        seen.add(key)
        v = _number(st, kv.group(2), raw, col0 + kv.start(2), ln, f"{kind} {key}")
        if v is not None:
            setattr(stats, _STAT_KEYS[key], to_ns(v, unit))
    for key in _STAT_KEYS:
        if key not in seen:
            st.w(f"{kind} {key} missing", ln)
    target = "lat" if kind == "sync" else kind
    setattr(d, target, stats)


def _buckets(st: _State, unit: str, rest: str, raw: str, off: int, ln: int) -> None:
    assert st.job is not None
    for piece in re.finditer(r"[^,]+", rest):
        text = piece.group().strip()
        if not text:
            continue
        b = re.fullmatch(r"(>=)?\s*(\d+(?:\.\d+)?)\s*=\s*(\d+(?:\.\d+)?)%", text)
        if not b:
            st.w(f"unreadable latency bucket {text!r}; skipped", ln, off + piece.start() + 1)
            continue
        st.job.latency_buckets.append(LatencyBucket(
            upper_ns=to_ns(parse_decimal(b.group(2)), unit), percent=float(b.group(3)),
            open_ended=bool(b.group(1))))


def _percentiles(st: _State, kind: str, unit: str, lines: list[str], i: int, hdr: int) -> int:
    ok = _check_unit(st, unit, lines[hdr - 1], hdr)
    d = st.direction
    if d is None:
        st.w(f"'{kind} percentiles' outside a read/write block; skipped", hdr)
    stored = "lat" if kind == "sync" else kind
    # one percentile set per direction: clat (fio's default) wins over lat
    keep = ok and d is not None and (d.percentiles_of is None
                                     or (stored == "clat" and d.percentiles_of == "lat"))
    if keep and d is not None:
        d.percentiles = {}
        d.percentiles_of = stored
    while i < len(lines) and "th=[" in lines[i]:
        raw, ln = lines[i], i + 1
        i += 1
        if not keep or d is None:
            continue
        for m in _PCT_ITEM_RE.finditer(raw):
            v = _number(st, m["v"], raw, m.start("v"), ln, f"{m['p']}th percentile")
            if v is not None:
                d.percentiles[float(m["p"])] = to_ns(v, unit)
    return i
