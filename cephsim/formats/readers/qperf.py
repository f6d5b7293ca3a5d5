"""Reader for qperf output (``tcp_lat``, ``udp_lat``, ``tcp_bw``, ``udp_bw``, ...).

Quirks handled:

- qperf's ``latency`` is **one-way** (elapsed time / messages counted in both
  directions), not a round trip; it is stored as ``one_way_latency_ns``.
- Units are auto-scaled (``ns``, ``us``, ``ms``, ``sec``), 3 significant digits,
  thousands separated by commas unless ``-uu``; bandwidth is ``KB/sec``,
  ``MB/sec``, ``GB/sec`` (decimal) or bits with ``--use_bits_per_sec``
  (``Gb/sec``).  An unknown unit is an error.
- ``-v``/``-vv``/``-vu`` add ``msg_size``, ``msg_rate``, cpu and time lines;
  ``msg_size = 4 KiB (4,096)`` carries the exact byte count in parentheses.
  Without ``-v`` the message size is not printed: it stays ``None`` with a
  warning (we do not assume qperf's 1-byte default - ``-m 4K`` may have been
  used).
- Several tests per file, ``-oo msg_size:...`` sweeps (one block per size),
  shell prompts and wrapper-log text around the blocks, unindented blocks
  (copied from web pages).
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
from cephsim.formats.readers.model import NetLatencyMeasurement, QperfResult

_TEST_RE = re.compile(r"^\s*(?P<test>(?:tcp|udp|sctp|rds|sdp|rc|uc|ud|xrc)_[a-z_]+):\s*$")
_KV_RE = re.compile(r"^\s*(?P<key>[a-z_]+)\s*=\s*(?P<val>.*?)\s*$")
_VAL_RE = re.compile(r"^(?P<num>[-+]?[\d,]*\.?\d+(?:[eE][-+]?\d+)?)\s*(?P<unit>\S*)")

_BW_UNITS = {  # bytes per second per unit
    "bytes/sec": 1, "B/sec": 1, "KB/sec": 1e3, "MB/sec": 1e6, "GB/sec": 1e9, "TB/sec": 1e12,
    "KiB/sec": 1024, "MiB/sec": 1024**2, "GiB/sec": 1024**3,
    "bits/sec": 1 / 8, "b/sec": 1 / 8, "Kb/sec": 1e3 / 8, "Mb/sec": 1e6 / 8, "Gb/sec": 1e9 / 8,
    "Tb/sec": 1e12 / 8,
}
_SIZE_UNITS = {"bytes": 1, "byte": 1, "B": 1, "KB": 1000, "MB": 1000**2, "GB": 1000**3,
               "KiB": 1024, "MiB": 1024**2, "GiB": 1024**3}
_RATE_UNITS = {"/sec": 1, "K/sec": 1e3, "M/sec": 1e6, "G/sec": 1e9}


def looks_like(text: str) -> bool:
    return bool(re.search(r"(?m)^\s*(?:tcp|udp|sctp|rds|sdp|rc|uc|ud|xrc)_[a-z_]+:\s*$", text)
                and re.search(r"(?m)^\s*(latency|bw|send_bw|recv_bw)\s*=", text))


def read_qperf(path: Path | str, text: str | None = None) -> NetLatencyMeasurement:
    """Read qperf output from ``path`` (or ``text``)."""
    name = str(path)
    if text is None:
        text = read_text(path)
    warnings: list[Problem] = []
    results: list[QperfResult] = []
    current: QperfResult | None = None
    for ln, raw in enumerate(text.split("\n"), start=1):
        m = _TEST_RE.match(raw)
        if m:
            current = QperfResult(test=m["test"], line=ln)
            results.append(current)
            continue
        m = _KV_RE.match(raw)
        if current is None or not m:
            if raw.strip():
                current = None
            continue
        _field(current, m["key"], m["val"], raw, ln, name, warnings)
    results = [r for r in results if _has_value(r)]
    if not results:
        raise ReaderError.at(name, "no qperf results found (expected e.g. 'tcp_lat:' followed "
                             "by 'latency = 26.1 us')")
    for r in results:
        if r.msg_size_bytes is None:
            default = "1 byte" if r.test.endswith("_lat") else "64 KiB (tcp) / 32 KiB (udp)"
            warnings.append(warn(name, f"{r.test}: message size not printed (run qperf with -v); "
                                 f"left unknown (qperf's default is {default})", r.line))
    return NetLatencyMeasurement(source=name, format="qperf", qperf=results, warnings=warnings)


def _has_value(r: QperfResult) -> bool:
    return any(v is not None for v in (r.one_way_latency_ns, r.bw_bytes, r.send_bw_bytes,
                                       r.recv_bw_bytes))


def _split(val: str, raw: str, ln: int, name: str, warnings: list[Problem], key: str
           ) -> tuple[float, str, object] | None:
    m = _VAL_RE.match(val)
    col = raw.index("=") + 2
    if not m:
        warnings.append(warn(name, f"unreadable {key} value {val!r}; left missing", ln, col))
        return None
    try:
        num = parse_decimal(m["num"], commas=True)
    except ValueError:
        warnings.append(warn(name, f"unreadable {key} value {val!r}; left missing", ln, col))
        return None
    return float(num), m["unit"], num


def _field(r: QperfResult, key: str, val: str, raw: str, ln: int, name: str,
           warnings: list[Problem]) -> None:
    if key not in ("latency", "bw", "send_bw", "recv_bw", "msg_size", "msg_rate"):
        r.extra[key] = val
        return
    parsed = _split(val, raw, ln, name, warnings, key)
    if parsed is None:
        return
    num, unit, exact = parsed
    col = raw.index(unit, raw.index("=")) + 1 if unit else None
    if num < 0 or (key == "latency" and num == 0):
        raise ReaderError.at(name, f"{key} = {val}: " + ("a latency must be > 0" if key == "latency"
                                                         else "cannot be negative"),
                             ln, raw.index("=") + 2)
    if key == "latency":
        if unit not in TIME_UNITS_NS:
            raise ReaderError.at(name, f"unknown latency unit {unit!r} (qperf prints ns, us, "
                                 "ms or sec)", ln, col)
        r.one_way_latency_ns = to_ns(exact, unit)  # type: ignore[arg-type]
    elif key in ("bw", "send_bw", "recv_bw"):
        if unit not in _BW_UNITS:
            raise ReaderError.at(name, f"unknown bandwidth unit {unit!r} (known: "
                                 f"{', '.join(_BW_UNITS)})", ln, col)
        setattr(r, f"{key}_bytes", num * _BW_UNITS[unit])
        if key == "recv_bw" and r.bw_bytes is None:
            r.bw_bytes = num * _BW_UNITS[unit]
    elif key == "msg_size":
        exact_m = re.search(r"\(([\d,]+)\)", val)
        if exact_m:
            r.msg_size_bytes = int(exact_m.group(1).replace(",", ""))
        elif unit in _SIZE_UNITS or unit == "":
            r.msg_size_bytes = int(num * _SIZE_UNITS.get(unit, 1))
        else:
            warnings.append(warn(name, f"unknown msg_size unit {unit!r}; left missing", ln, col))
    elif key == "msg_rate":
        if unit in _RATE_UNITS:
            r.msg_rate = num * _RATE_UNITS[unit]
        else:
            warnings.append(warn(name, f"unknown msg_rate unit {unit!r}; left missing", ln, col))
