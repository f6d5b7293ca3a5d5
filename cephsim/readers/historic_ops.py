"""Reader for ``ceph daemon osd.N dump_historic_ops`` (and ``..._by_duration``,
``dump_historic_slow_ops``, ``dump_ops_in_flight``).

Quirks handled:

- Layouts: current ``{"size", "duration", "ops": [{"description",
  "initiated_at", "duration", "type_data": {"flag_point", "events": [{"event",
  "time", "duration"}]}}]}``; older (FileStore era) ``type_data`` is a *list*
  ``[flag_point, {client, tid}, [events]]`` with ``"num to keep"``/``"Ops"``
  headers and naive local times; Crimson ops have ``detail`` maps instead.
- Duplicate JSON keys (Crimson's repeated ``blocking_event``) are not lost:
  an ``object_pairs_hook`` keeps every value (``key#2``...) and each
  repetition is reported as a warning.
- Times: ISO with ``+0000`` offset, or ``2017-10-13 16:04:19.121867`` (naive);
  ``0.000000`` placeholders are unreadable times.  Per-event ``duration``
  fields can be garbage (``4294967295.99`` unsigned wrap) so stage durations
  are recomputed from the timestamps and clamped at zero.
- Event names carry data (``waiting for subops from 9,17``,
  ``sub_op_commit_rec from 41``): milestones are matched by prefix; the last
  ``sub_op_commit_rec`` (slowest replica) is the one that gates ``commit_sent``.

Per op, ``stages`` maps ``"a -> b"`` to the time between consecutive
milestones (``initiated``, ``queued_for_pg``, ``reached_pg``, ``started``,
``waiting for subops from``, ``op_commit``, ``sub_op_commit_rec``,
``commit_sent``, ``done``) in time order.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from cephsim.errors import Problem
from cephsim.readers.common import (DuplicateKeys, ReaderError, finite_number, json_documents,
                                    read_text, to_ns, warn)
from cephsim.readers.model import HistoricOp, HistoricOps, OpEvent

MILESTONES = ("initiated", "queued_for_pg", "reached_pg", "started", "waiting for subops from",
              "op_commit", "sub_op_commit_rec", "commit_sent", "done")
_TIME_FORMATS = ("%Y-%m-%dT%H:%M:%S.%f%z", "%Y-%m-%d %H:%M:%S.%f%z", "%Y-%m-%dT%H:%M:%S.%f",
                 "%Y-%m-%d %H:%M:%S.%f", "%Y-%m-%dT%H:%M:%S%z", "%Y-%m-%d %H:%M:%S")


def is_historic(obj: Any) -> bool:
    if not isinstance(obj, dict):
        return False
    ops = obj.get("ops", obj.get("Ops"))
    return isinstance(ops, list) and ("num to keep" in obj or "size" in obj or "duration" in obj
                                      or any(isinstance(o, dict) and "description" in o
                                             for o in ops))


def looks_like(text: str) -> bool:
    return bool(re.search(r'"(ops|Ops)"\s*:', text)) and '"description"' in text


def parse_time(value: Any) -> datetime | None:
    """An op-tracker timestamp as an aware datetime (naive times taken as UTC)."""
    if not isinstance(value, str):
        return None
    for fmt in _TIME_FORMATS:
        try:
            t = datetime.strptime(value.strip(), fmt)
        except ValueError:
            continue
        return t if t.tzinfo else t.replace(tzinfo=timezone.utc)
    return None


def read_historic_ops(path: Path | str, text: str | None = None) -> HistoricOps:
    """Read a historic-ops dump from ``path`` (or ``text``)."""
    name = str(path)
    if text is None:
        text = read_text(path)
    hook = DuplicateKeys()
    docs = [d for _, d in json_documents(text, name, pairs_hook=hook) if is_historic(d)]
    if not docs:
        raise ReaderError.at(name, "no dump_historic_ops output found (expected JSON with an "
                             "\"ops\" list of ops with \"description\")")
    doc = docs[-1]
    out = HistoricOps(source=name)
    for key in sorted(set(hook.seen)):
        out.warnings.append(warn(name, f"duplicate JSON key {key!r} repeated "
                                 f"{hook.seen.count(key)} time(s); later values kept as "
                                 f"'{key}#2'... (plain JSON readers would drop them)"))
    size = finite_number(doc.get("size", doc.get("num to keep")))
    out.size = int(size) if size is not None else None
    out.duration_s = finite_number(doc.get("duration", doc.get("duration to keep")))
    layouts: set[str] = set()
    for i, op in enumerate(doc.get("ops", doc.get("Ops")) or []):
        if not isinstance(op, dict):
            out.warnings.append(warn(name, f"ops[{i}] is not an object; skipped"))
            continue
        out.ops.append(_op(op, i, name, out.warnings, layouts))
    out.layout = ("list" if "list" in layouts else "crimson" if "crimson" in layouts
                  else "dict")
    if "crimson" in layouts:
        out.warnings.append(warn(name, "Crimson op layout ('detail' blocks): per-stage "
                                 "durations are not read, only op durations"))
    return out


def _events(op: dict[str, Any], layouts: set[str]) -> list[Any]:
    td = op.get("type_data")
    if isinstance(td, dict):
        layouts.add("dict")
        ev = td.get("events")
        return ev if isinstance(ev, list) else []
    if isinstance(td, list):
        layouts.add("list")
        for item in td:
            if isinstance(item, list) and any(isinstance(e, dict) and "event" in e
                                              for e in item):
                return item
        return []
    if "detail" in op or "type" in op:
        layouts.add("crimson")
    return []


def _op(op: dict[str, Any], i: int, name: str, warnings: list[Problem],
        layouts: set[str]) -> HistoricOp:
    desc = str(op.get("description", ""))
    out = HistoricOp(description=desc,
                     initiated_at=op.get("initiated_at") if isinstance(op.get("initiated_at"),
                                                                        str) else None)
    dur = finite_number(op.get("duration"))
    if dur is not None and 0 <= dur < 1e6:
        out.duration_ns = to_ns(dur, "s")
    out.is_write = bool(re.search(r"write|omap-set|append|ondisk\+write", desc)) or \
        desc.startswith(("osd_repop", "osd_sub_op"))
    raw_events = _events(op, layouts)
    t0: datetime | None = None
    bad = 0
    for e in raw_events:
        if not isinstance(e, dict) or not isinstance(e.get("event"), str):
            bad += 1
            continue
        t = parse_time(e.get("time"))
        if t is not None and t0 is None:
            t0 = t
        offset = None
        if t is not None and t0 is not None:
            offset = (t - t0) // _ONE_US * 1000
        out.events.append(OpEvent(name=e["event"], time=str(e.get("time")), offset_ns=offset))
    if bad:
        warnings.append(warn(name, f"ops[{i}]: {bad} malformed event(s) skipped"))
    if any(ev.offset_ns is None for ev in out.events):
        warnings.append(warn(name, f"ops[{i}]: unreadable event time(s); those events have no "
                             "offset"))
    out.stages = _stages(out.events)
    if out.duration_ns is None and out.events and out.events[-1].offset_ns is not None:
        out.duration_ns = max(0, max(e.offset_ns or 0 for e in out.events))
    return out


_ONE_US = datetime(2000, 1, 1, 0, 0, 0, 1) - datetime(2000, 1, 1)


def _milestone(name: str) -> str | None:
    for m in MILESTONES:
        if name == m or name.startswith(m + " ") or (m.endswith("from") and name.startswith(m)):
            return m
    return None


def _stages(events: list[OpEvent]) -> dict[str, int]:
    """Durations between consecutive milestones (first occurrence; last sub_op_commit_rec)."""
    at: dict[str, int] = {}
    for ev in events:
        m = _milestone(ev.name)
        if m is None or ev.offset_ns is None:
            continue
        if m not in at or m == "sub_op_commit_rec":
            at[m] = ev.offset_ns
    order = sorted(at.items(), key=lambda kv: (kv[1], MILESTONES.index(kv[0])))
    return {f"{a} -> {b}": max(0, tb - ta) for (a, ta), (b, tb) in zip(order, order[1:])}
