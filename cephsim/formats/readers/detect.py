"""Auto-detect a measurement file's format from its content and read it.

The extension is ignored (``output.3``, ``json_output.0.host`` are common cbt
names).  Each reader has a cheap ``looks_like(text)`` sniff; candidates are
tried in a fixed order (JSON formats first, because ``json,normal`` fio output
contains both) and the first that reads the file wins.  If a candidate
recognises the file but finds it broken (truncated JSON, unknown unit), its
error is raised as is - it is more useful than "unknown format".  Otherwise a
:class:`CephsimError` lists every format tried.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from cephsim.formats.readers import (
    fio_json,
    fio_text,
    historic_ops,
    perf_dump,
    ping,
    qperf,
    rados_bench,
)
from cephsim.formats.readers.common import ReaderError, read_text
from cephsim.formats.readers.model import Measurement

Reader = Callable[[str, str], Measurement]

#: (format name, sniff, reader) in the order they are tried
FORMATS: list[tuple[str, Callable[[str], bool], Reader]] = [
    ("fio-json", fio_json.looks_like, lambda p, t: fio_json.read_fio_json(p, t)),
    ("historic-ops", historic_ops.looks_like,
     lambda p, t: historic_ops.read_historic_ops(p, t)),
    ("perf-dump", perf_dump.looks_like, lambda p, t: perf_dump.read_perf_dump(p, t)),
    ("rados-bench", rados_bench.looks_like, lambda p, t: rados_bench.read_rados_bench(p, t)),
    ("fio-text", fio_text.looks_like, lambda p, t: fio_text.read_fio_text(p, t)),
    ("qperf", qperf.looks_like, lambda p, t: qperf.read_qperf(p, t)),
    ("ping", ping.looks_like, lambda p, t: ping.read_ping(p, t)),
]


def detect_format(text: str) -> list[str]:
    """Names of the formats whose sniff matches ``text``, in trial order."""
    return [name for name, sniff, _ in FORMATS if sniff(text)]


def read_text_any(name: str, text: str) -> Measurement:
    """Detect and read already-decoded ``text`` (``name`` is used in messages)."""
    errors: list[ReaderError] = []
    for _fmt, sniff, reader in FORMATS:
        if not sniff(text):
            continue
        try:
            return reader(name, text)
        except ReaderError as exc:
            errors.append(exc)
    located = [e for e in errors if any(p.line is not None for p in e.problems)]
    if located:
        raise located[0]
    tried = ", ".join(f for f, _, _ in FORMATS)
    detail = "; ".join(p.message for e in errors for p in e.problems)
    raise ReaderError.at(name, f"unrecognised measurement file (tried {tried})"
                         + (f": {detail}" if detail else ""))


def read_any(path: Path | str) -> Measurement:
    """Read any supported measurement file, detecting its format from content."""
    return read_text_any(str(path), read_text(path))
