"""Shared plumbing for the measurement readers: one error path, decoding, numbers.

Every reader reports problems the same way: a :class:`ReaderError` (a
:class:`~cephsim.errors.CephsimError`) whose :class:`~cephsim.errors.Problem`
names the file, the 1-based line and, where known, the column.  Non-fatal
oddities (an OCR-damaged number, a value we refuse to guess) become *warnings*,
which are also :class:`Problem` objects and travel with the result.

Quirks handled here:

- Files are decoded as UTF-8 (a BOM is dropped; CRLF/CR become LF).  A file
  that is empty, contains NUL bytes or is not valid UTF-8 is rejected with the
  position of the first offending byte, so a binary file never reaches a
  parser and never yields a half-read result.
- Tool output uses decimal ``k``/``M``/``G``/``T`` suffixes on counts and on
  fio latency values (``max=1122.1k``); :func:`parse_number` understands them.
  Numbers are parsed with :class:`decimal.Decimal` so ``772.35`` usec becomes
  exactly ``772350`` ns.
- Thousands separators (``33,152`` in qperf) are accepted where a caller asks.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Sequence
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from cephsim.errors import CephsimError, Problem, byte_line_col, not_a_regular_file

#: nanoseconds per unit, for every unit spelling the supported tools print
TIME_UNITS_NS: dict[str, int] = {
    "ns": 1, "nsec": 1,
    "us": 1_000, "usec": 1_000, "µs": 1_000,
    "ms": 1_000_000, "msec": 1_000_000,
    "s": 1_000_000_000, "sec": 1_000_000_000,
}
#: fio's normal output prints only these three in ``clat (usec)`` etc.
FIO_UNITS = ("nsec", "usec", "msec")

_SUFFIX = {"": 1, "k": 1_000, "K": 1_000, "M": 1_000_000, "G": 1_000_000_000,
           "T": 1_000_000_000_000}
_NUMBER_RE = re.compile(r"^\s*([-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)\s*([kKMGT]?)\s*$")
_NUMBER_COMMAS_RE = re.compile(r"^\s*([-+]?\d{1,3}(?:,\d{3})+(?:\.\d*)?)\s*([kKMGT]?)\s*$")


class ReaderError(CephsimError):
    """A measurement file could not be read (subclass of :class:`CephsimError`)."""

    @classmethod
    def at(cls, file: str, message: str, line: int | None = None,
           column: int | None = None) -> ReaderError:
        return cls([Problem(message, file=file, line=line, column=column)])


def warn(file: str, message: str, line: int | None = None,
         column: int | None = None) -> Problem:
    """A non-fatal problem (same shape as an error)."""
    return Problem(message, file=file, line=line, column=column)


def require_figures(name: str, jobs: Sequence[Any], what: str, line: int | None) -> None:
    """Refuse a fio output whose every figure of every job is 0 (fio's report of a job that
    did no I/O): it carries no measurement.  ``what`` names the format in the message."""
    if not any(d.has_figures() for j in jobs for d in j.directions.values()):
        raise ReaderError.at(name, f"{what} carries no measurement: every figure of every "
                             "job is 0 (no I/O completed)", line)


def line_col(text: str, offset: int) -> tuple[int, int]:
    """1-based (line, column) of character ``offset`` in ``text``."""
    offset = max(0, min(offset, len(text)))
    line = text.count("\n", 0, offset) + 1
    start = text.rfind("\n", 0, offset) + 1
    return line, offset - start + 1


def decode(data: bytes, name: str) -> str:
    """Bytes -> text, rejecting empty, binary (NUL) and non-UTF-8 content."""
    if not data.strip():
        raise ReaderError.at(name, "file is empty" if not data else "file contains only whitespace")
    nul = data.find(b"\x00")
    if nul >= 0:
        raise ReaderError.at(name, "binary data (NUL byte); expected the text output of a "
                             "measurement tool", *byte_line_col(data, nul))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ReaderError.at(name, f"not UTF-8 text (byte 0x{data[exc.start]:02x}); "
                             "is this a binary file?", *byte_line_col(data, exc.start)) from None
    if text.startswith("\ufeff"):
        text = text[1:]
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    m = _LONG_DIGITS.search(text)
    if m:  # no tool prints such a number; Python's int() would refuse it past 4300 digits
        line, col = line_col(text, m.start())
        raise ReaderError.at(name, f"a number of {len(m.group())} digits is not a measurement "
                             f"(at most {MAX_DIGITS} digits are read)", line, col)
    return text


#: the longest run of digits a measurement file may hold: fio prints nanosecond totals and
#: byte counts of up to ~20 digits; longer runs are damage, not data
MAX_DIGITS = 40
_LONG_DIGITS = re.compile(r"\d{%d,}" % (MAX_DIGITS + 1))


def read_text(path: Path | str) -> str:
    """Read a measurement file as text (see :func:`decode`)."""
    p = Path(path)
    special = not_a_regular_file(p)
    if special:
        raise ReaderError.at(str(p), special)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise ReaderError.at(str(p), "no such file") from None
    except IsADirectoryError:
        raise ReaderError.at(str(p), "is a directory, expected a file") from None
    except OSError as exc:
        raise ReaderError.at(str(p), f"cannot read: {exc.strerror or exc}") from None
    return decode(data, str(p))


def parse_decimal(text: str, commas: bool = False) -> Decimal:
    """``"1122.1k"`` -> ``Decimal("1122100")``; raises ValueError if unreadable."""
    m = _NUMBER_RE.match(text)
    if not m and commas:
        m = _NUMBER_COMMAS_RE.match(text)
    if not m:
        raise ValueError(f"not a number: {text.strip()!r}")
    try:
        value = Decimal(m.group(1).replace(",", "")) * _SUFFIX[m.group(2)]
    except InvalidOperation:  # pragma: no cover - regex already restricts
        raise ValueError(f"not a number: {text.strip()!r}") from None
    if not value.is_finite() or abs(value) > Decimal(10) ** 30:
        raise ValueError(f"number out of range: {text.strip()!r}")
    return value


def parse_number(text: str, commas: bool = False) -> float:
    """Like :func:`parse_decimal` but returns a float."""
    return float(parse_decimal(text, commas))


def to_ns(value: Decimal | float | int, unit: str) -> int:
    """A duration in ``unit`` (nsec/usec/msec/ns/us/ms/sec/s) -> integer ns."""
    try:
        factor = TIME_UNITS_NS[unit]
    except KeyError:
        raise ValueError(f"unknown time unit {unit!r}") from None
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError("not a finite number")
        value = Decimal(repr(value))
    return int((Decimal(value) * factor).to_integral_value())


def finite_number(value: Any) -> float | None:
    """A JSON value as a finite float, or None (bools and strings are not numbers)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        f = float(value)
    except OverflowError:
        return None
    return f if math.isfinite(f) else None


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not valid JSON")


def json_documents(text: str, name: str, *, pairs_hook: Callable[[list[tuple[str, Any]]], Any]
                   | None = None, require_line_start: bool = True) -> list[tuple[int, Any]]:
    """All top-level JSON objects in ``text``, with their start offsets.

    Text before, between and after the documents (a fio banner, trailing normal
    output, ``--status-interval`` concatenation) is skipped.  A document that
    starts at the beginning of a line but does not parse (truncated, garbled)
    is an error with the line and column where decoding stopped.
    """
    decoder = json.JSONDecoder(object_pairs_hook=pairs_hook, parse_constant=_reject_constant)
    docs: list[tuple[int, Any]] = []
    pos = 0
    starts = re.compile(r"(?m)^[ \t]*(\{)" if require_line_start else r"\{")
    while True:
        m = starts.search(text, pos)
        if not m:
            return docs
        start = m.start(1) if require_line_start else m.start()
        try:
            obj, end = decoder.raw_decode(text, start)
        except json.JSONDecodeError as exc:
            truncated = _unclosed(text, start)
            line, col = line_col(text, len(text.rstrip()) if truncated else exc.pos)
            what = ("JSON document ends early (truncated file?)" if truncated
                    else f"invalid JSON: {exc.msg}")
            raise ReaderError.at(name, f"{what} (document starting at line "
                                 f"{line_col(text, start)[0]})", line, col) from None
        except (RecursionError, ValueError) as exc:
            # NaN/Infinity (_reject_constant): point at the constant itself, not at the
            # document's start; other errors (the pairs hook, deep nesting) stay there
            const = _first_constant(text, start) if str(exc).endswith("is not valid JSON") \
                else None
            line, col = line_col(text, start if const is None else const)
            raise ReaderError.at(name, f"invalid JSON: {exc}", line, col) from None
        docs.append((start, obj))
        _check_glued(text, end, start, name)
        pos = end


def _check_glued(text: str, end: int, start: int, name: str) -> None:
    """A document must end its line: ``}{`` (a second document glued to the first) or
    ``}garbage`` would otherwise be skipped without a word.  Closing punctuation of an
    enclosing list (``},`` / ``}]``) is fine."""
    nl = text.find("\n", end)
    rest = text[end: len(text) if nl < 0 else nl]
    stripped = rest.lstrip(" \t")
    if not stripped or stripped[0] in ",]":
        return
    off = end + len(rest) - len(stripped)
    line, col = line_col(text, off)
    raise ReaderError.at(name, f"extra data after the JSON document at line {line} (document "
                         f"starting at line {line_col(text, start)[0]}); put each document "
                         "on its own line", line, col)


_CONSTANT_RE = re.compile(r'"(?:[^"\\]|\\.)*"|(-?Infinity|NaN)')


def _first_constant(text: str, start: int) -> int | None:
    """Offset of the first bare ``NaN``/``Infinity`` (outside strings) from ``start``."""
    for m in _CONSTANT_RE.finditer(text, start):
        if m.group(1):
            return m.start(1)
    return None


def _unclosed(text: str, start: int) -> bool:
    """True if the JSON value starting at ``start`` is still open at the end of ``text``."""
    depth, in_str, esc = 0, False, False
    for ch in text[start:]:
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                return False
    return True


class DuplicateKeys:
    """``object_pairs_hook`` that keeps every value of a repeated JSON key.

    Plain ``json.load`` silently keeps only the last of two equal keys (Crimson's
    repeated ``blocking_event``).  Here the first value stays under the key and
    later ones go under ``"key#2"``, ``"key#3"``...; each repetition is recorded
    in :attr:`seen` so the reader can warn about it.
    """

    def __init__(self) -> None:
        self.seen: list[str] = []

    def __call__(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in pairs:
            if key in out:
                n = 2
                while f"{key}#{n}" in out:
                    n += 1
                self.seen.append(key)
                out[f"{key}#{n}"] = value
            else:
                out[key] = value
        return out


# ------------------------------------------------------------ JSON field checks

_WS_RE = re.compile(r"[ \t\n\r]*")
_SKIP = json.JSONDecoder()  # only to step over values (accepts NaN: the file was read already)


def json_offset(text: str, start: int, path: Sequence[str | int], at_value: bool = False) -> int:
    """Offset in ``text`` of the field at ``path`` (keys and list indexes) of the JSON
    document starting at ``start``: the member's key for an object member (its value with
    ``at_value``), the value for a list item.  ``key#2`` is the second ``key`` of an object
    (:class:`DuplicateKeys`).

    The decoder keeps no positions, so the document is walked along ``path`` only (other
    values are stepped over); where the walk cannot go on, the deepest position found is
    returned, at worst ``start``.  Used on the error path only."""
    at = pos = start
    try:
        for step in path:
            pos = _WS_RE.match(text, pos).end()  # type: ignore[union-attr]
            if text[pos] == "{" and isinstance(step, str):
                want, _, nth_s = step.rpartition("#")
                if not (want and nth_s.isdigit()):
                    want, nth_s = step, "1"
                nth = int(nth_s)
                pos = _WS_RE.match(text, pos + 1).end()  # type: ignore[union-attr]
                found = None
                while text[pos] != "}":
                    key_at = pos
                    key, pos = json.decoder.scanstring(text, pos + 1)
                    pos = _WS_RE.match(text, pos).end()  # type: ignore[union-attr]
                    pos = _WS_RE.match(text, pos + 1).end()  # type: ignore[union-attr]  # ':'
                    if key == want:
                        nth -= 1
                        if nth == 0:
                            found = pos if at_value else key_at
                            break
                    _, pos = _SKIP.raw_decode(text, pos)
                    pos = _WS_RE.match(text, pos).end()  # type: ignore[union-attr]
                    if text[pos] == ",":
                        pos = _WS_RE.match(text, pos + 1).end()  # type: ignore[union-attr]
                if found is None:
                    return at
                at = found
            elif text[pos] == "[" and isinstance(step, int):
                pos = _WS_RE.match(text, pos + 1).end()  # type: ignore[union-attr]
                for _ in range(step):
                    _, pos = _SKIP.raw_decode(text, pos)
                    pos = _WS_RE.match(text, pos).end()  # type: ignore[union-attr]
                    if text[pos] != ",":
                        return at
                    pos = _WS_RE.match(text, pos + 1).end()  # type: ignore[union-attr]
                if text[pos] == "]":
                    return at
                at = pos
            else:
                return at
    except (IndexError, ValueError, RecursionError, AttributeError):
        return at
    return at


def json_error(name: str, text: str, start: int, path: Sequence[str | int], message: str,
               shown: str | None = None) -> ReaderError:
    """A :class:`ReaderError` for the field at ``path`` of the JSON document at ``start``,
    located at that field's line and column (see :func:`json_offset`); ``shown`` is the
    dotted path printed with the message (default: ``path`` joined with dots)."""
    line, col = line_col(text, json_offset(text, start, path))
    return ReaderError([Problem(message, file=name, line=line, column=col,
                                path=shown if shown is not None else ".".join(map(str, path)))])


def json_number(value: Any, key: str, *, strings: bool = False, integer: bool = False,
                positive: bool = False) -> Decimal:
    """A JSON value the tool always writes as a finite number >= 0 (> 0 with
    ``positive``; whole with ``integer``; a numeric string too with ``strings``).

    Raises :class:`ValueError` whose message reads like the fio JSON reader's
    (``iops is "fast", expected a number`` / ``... cannot be negative``)."""
    shown = json.dumps(value) if not isinstance(value, float) or math.isfinite(value) \
        else repr(value)
    if isinstance(value, bool) or value is None or isinstance(value, (list, dict)):
        raise ValueError(f"{key} is {shown}, expected a number")
    if isinstance(value, str):
        if not strings:
            raise ValueError(f"{key} is {shown}, expected a number (not a string)")
        try:
            number = parse_decimal(value)
        except ValueError:
            raise ValueError(f"{key} is {shown}, expected a number") from None
    elif isinstance(value, (int, float)):
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"{key} is out of range (too large for a number), expected a "
                             "finite number")
        number = Decimal(value) if isinstance(value, int) else Decimal(repr(value))
        if abs(number) > Decimal(10) ** 30:
            raise ValueError(f"{key} is out of range ({shown}), expected a finite number")
    else:  # pragma: no cover - json gives no other types
        raise ValueError(f"{key} is {shown}, expected a number")  # noqa: TRY004 - one error type
    return check_range(number, f"{key} is {shown}", integer=integer, positive=positive)


def check_range(number: Decimal, shown: str, *, integer: bool = False,
                positive: bool = False) -> Decimal:
    """A figure a tool always writes as >= 0 (> 0 with ``positive``; whole with
    ``integer``), else a :class:`ValueError` that starts with ``shown`` (the figure as
    the file has it)."""
    if number < 0:
        raise ValueError(f"{shown}: cannot be negative")
    if positive and number == 0:
        raise ValueError(f"{shown}: must be > 0")
    if integer and number != number.to_integral_value():
        raise ValueError(f"{shown}, expected a whole number")
    return number
