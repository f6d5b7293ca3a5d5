"""Units, parsed once at the edge.

Inside the engine every quantity has one unit, carried in the variable name:

- time: integer **nanoseconds** (``*_ns``).  Integers keep sums exact, so a
  constant-service-time scenario gives exactly the hand-computed latency.
- sizes: integer **bytes** (``*_bytes``), binary in every spelling, as fio (its default
  ``kb_base=1024``) and ``rbd create --size`` read them: ``4k`` = ``4KB`` = ``4kB`` =
  ``4KiB`` = 4096, ``75GB`` = 75 GiB.  A fio command line or a benchmark write-up says
  ``--size=10GB`` and means 10 GiB; taking it as 10e9 would quietly shrink the image.
  Rates stay decimal (``GB/s``, ``Gbit/s``), as datasheets and NICs state them.
- link rates: **bits per second** (``*_bps``) as floats.
- clock frequencies: **Hz** (``*_hz``) as floats.

Strings such as ``"15us"``, ``"4KiB"``, ``"25Gbit/s"``, ``"3.7GHz"`` are
accepted in scenario and catalog files; bare numbers are rejected for
dimensioned fields (a bare ``15`` could be µs or ms), except zero.
"""

from __future__ import annotations

import math
import re
from typing import Annotated

from pydantic import BeforeValidator, WithJsonSchema

_NUM = r"(?P<num>[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)"

_TIME_NS = {
    "ns": 1.0, "nsec": 1.0,
    # the micro sign U+00B5 (what a keyboard's AltGr+m types) and the Greek mu U+03BC (what
    # a Greek layout or a copied SI table gives): both read as micro
    "us": 1e3, "\u00b5s": 1e3, "\u03bcs": 1e3, "usec": 1e3,
    "ms": 1e6, "msec": 1e6,
    "s": 1e9, "sec": 1e9,
    "min": 60e9, "h": 3600e9,
}
_SIZE_B = {
    "b": 1, "": 1,
    "k": 1024, "kib": 1024, "ki": 1024,
    "m": 1024**2, "mib": 1024**2, "mi": 1024**2,
    "g": 1024**3, "gib": 1024**3, "gi": 1024**3,
    "t": 1024**4, "tib": 1024**4, "ti": 1024**4,
    "kb": 1024, "mb": 1024**2, "gb": 1024**3, "tb": 1024**4,
}
_RATE_BPS = {
    "bit/s": 1.0, "bps": 1.0, "b/s": 1.0,
    "kbit/s": 1e3, "kbps": 1e3, "kb/s": 1e3,
    "mbit/s": 1e6, "mbps": 1e6, "mb/s": 1e6,
    "gbit/s": 1e9, "gbps": 1e9, "gb/s": 1e9, "gbit": 1e9, "g": 1e9, "gbe": 1e9,
    "tbit/s": 1e12,
}
_BYTE_RATE_BPS = {"b/s": 8.0, "kib/s": 8 * 1024.0, "mib/s": 8 * 1024.0**2, "gib/s": 8 * 1024.0**3,
                  "kbyte/s": 8e3, "mbyte/s": 8e6, "gbyte/s": 8e9}
_FREQ_HZ = {"hz": 1.0, "khz": 1e3, "mhz": 1e6, "ghz": 1e9}

#: one day: the longest simulated duration a scenario may ask for (run.runtime,
#: run.ramp_time, monitors.duration); a few seconds already hold many thousand I/Os
DAY_NS = 86_400 * 10**9

_RE = re.compile(rf"^\s*{_NUM}\s*(?P<unit>[a-zA-Z\u00b5\u03bc/%]*)\s*$")


#: JSON Schema of a value written with its unit, for editors (validation is done here, not
#: by the schema): a duration or size string, or a bare 0 / bare bytes
DURATION_JSON = {"anyOf": [{"type": "string", "examples": ["15us", "160ms", "5s"]},
                           {"type": "integer", "const": 0}]}
SIZE_JSON = {"anyOf": [{"type": "string", "examples": ["4KiB", "4k", "1GiB"]},
                       {"type": "integer", "minimum": 0}]}
PERCENT_JSON = {"anyOf": [{"type": "string", "examples": ["1%", "0.1%"]},
                          {"type": "number", "const": 0}]}
RATE_JSON = {"type": "string", "examples": ["25Gbit/s", "10GbE", "3GB/s"]}
FREQUENCY_JSON = {"type": "string", "examples": ["3.7GHz", "2400MHz"]}


class UnitError(ValueError):
    """A value with a missing, unknown or wrong unit."""


def _split(value: object, kind: str, example: str) -> tuple[float, str]:
    if isinstance(value, bool):
        raise UnitError(f"expected a {kind} such as {example!r}, got {value!r}")
    if isinstance(value, (int, float)):
        if value == 0:
            return 0.0, ""
        raise UnitError(f"a bare number is ambiguous here; give a {kind} with its unit, "
                        f"such as {example!r}")
    if not isinstance(value, str):
        raise UnitError(f"expected a {kind} such as {example!r}, got {value!r}")
    m = _RE.match(value)
    if not m:
        raise UnitError(f"cannot read {value!r} as a {kind} (example: {example!r})")
    num = float(m.group("num"))
    if not math.isfinite(num):
        raise UnitError(f"{value!r} is not a finite {kind}")
    return num, m.group("unit")


def _scaled(num: float, factor: float, value: object, kind: str) -> float:
    """``num * factor``, refused when the product overflows (``"1e300s"``)."""
    result = num * factor
    if not math.isfinite(result):
        raise UnitError(f"{value!r} is too large for a {kind}")
    return result


def parse_duration_ns(value: object) -> int:
    """``"15us"`` -> 15000.  Rounds to the nearest nanosecond."""
    num, unit = _split(value, "duration", "15us")
    if unit == "" and num == 0:
        return 0
    key = unit.lower()  # (the micro sign and mu are their own lower case)
    if key not in _TIME_NS:
        raise UnitError(f"unknown time unit {unit!r} in {value!r} "
                        f"(use ns, us, ms, s, min, h)")
    x = _scaled(num, _TIME_NS[key], value, "duration")
    ns = int(round(x))
    # a negative value below half a nanosecond stays negative, so the fields that refuse
    # negative delays see it ('-1e-30ns' would otherwise round to an accepted 0)
    return -1 if ns == 0 and x < 0 else ns


def parse_size_bytes(value: object) -> int:
    """``"4KiB"`` / ``"4k"`` / ``"4K"`` / ``"4KB"`` / ``"4kB"`` -> 4096: binary whatever the
    spelling, as fio and rbd read sizes (see the module docstring).

    Bare integers are bytes.
    """
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    num, unit = _split(value, "size", "4KiB")
    key = unit.lower()
    if key not in _SIZE_B:
        raise UnitError(f"unknown size unit {unit!r} in {value!r} (use B, KiB, MiB, GiB, TiB, "
                        "or fio's k, m, g)")
    result = _scaled(num, _SIZE_B[key], value, "size")
    if result != int(result):
        raise UnitError(f"{value!r} is not a whole number of bytes")
    return int(result)


def parse_rate_bps(value: object) -> float:
    """``"25Gbit/s"`` / ``"10GbE"`` -> bits per second; ``"3GB/s"`` (bytes) is accepted too."""
    num, unit = _split(value, "link rate", "25Gbit/s")
    key = unit.lower()
    if unit in ("GB/s", "MB/s", "kB/s", "KB/s"):
        return _scaled(num, {"g": 8e9, "m": 8e6, "k": 8e3}[unit[0].lower()], value, "link rate")
    if key in _BYTE_RATE_BPS and unit not in ("b/s",):
        return _scaled(num, _BYTE_RATE_BPS[key], value, "link rate")
    if key not in _RATE_BPS:
        raise UnitError(f"unknown rate unit {unit!r} in {value!r} (use bit/s, Mbit/s, Gbit/s)")
    return _scaled(num, _RATE_BPS[key], value, "link rate")


def parse_frequency_hz(value: object) -> float:
    """``"3.7GHz"`` -> 3.7e9."""
    num, unit = _split(value, "clock frequency", "3.7GHz")
    key = unit.lower()
    if key not in _FREQ_HZ:
        raise UnitError(f"unknown frequency unit {unit!r} in {value!r} (use MHz, GHz)")
    return _scaled(num, _FREQ_HZ[key], value, "clock frequency")


def parse_percent(value: object) -> float:
    """``"1%"`` -> 0.01; a bare number is a fraction in [0, 1]."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if not math.isfinite(value):
            raise UnitError(f"{value!r} is not a finite percentage")
        return float(value)
    num, unit = _split(value, "percentage", "1%")
    if unit != "%":
        raise UnitError(f"expected a percentage such as '1%', got {value!r}")
    return num / 100.0


#: a model field written with its unit (``delay: 160ms``), held in ns / bytes, published to
#: editors as a unit string: the one definition the scenario and monitor schemas share
Duration = Annotated[int, BeforeValidator(parse_duration_ns), WithJsonSchema(DURATION_JSON)]
Size = Annotated[int, BeforeValidator(parse_size_bytes), WithJsonSchema(SIZE_JSON)]


def format_duration(ns: float) -> str:
    """Human display: picks ns/us/ms/s like fio does."""
    a = abs(ns)
    if a < 1e3:
        return f"{ns:.0f}ns"
    if a < 1e6:
        return f"{ns / 1e3:.4g}us"
    if a < 1e9:
        return f"{ns / 1e6:.4g}ms"
    return f"{ns / 1e9:.4g}s"


def format_span(ns: int) -> str:
    """A duration for error messages, in the largest unit it reaches ('2h', '5min', '-5s',
    '1.5us') with up to six significant digits (:func:`format_duration` keeps four, fio's way)."""
    for unit, f in (("h", 3600 * 10**9), ("min", 60 * 10**9), ("s", 10**9), ("ms", 10**6),
                    ("us", 10**3)):
        if abs(ns) >= f:
            return f"{ns / f:g}{unit}"
    return f"{ns}ns" if ns else "0s"


def format_size(nbytes: int) -> str:
    for unit, factor in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if nbytes >= factor and nbytes % factor == 0:
            return f"{nbytes // factor}{unit}"
    return f"{nbytes}B"

