"""Reader for ``ceph daemon osd.N dump_historic_ops`` (and ``..._by_duration``,
``dump_historic_slow_ops``, ``dump_ops_in_flight``).

The full account: docs/model.md, "Inside the model", `cephsim.formats.readers.historic_ops`.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from cephsim.errors import Problem
from cephsim.formats.readers.common import (
    DuplicateKeys,
    ReaderError,
    json_documents,
    json_error,
    json_number,
    read_text,
    to_ns,
    warn,
)
from cephsim.formats.readers.model import HistoricOp, HistoricOps, OpEvent

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
    docs = [(off, d) for off, d in json_documents(text, name, pairs_hook=hook)
            if is_historic(d)]
    if not docs:
        raise ReaderError.at(name, "no dump_historic_ops output found (expected JSON with an "
                             "\"ops\" list of ops with \"description\")")
    offset, doc = docs[-1]
    out = HistoricOps(source=name)
    for key in sorted(set(hook.seen)):
        out.warnings.append(warn(name, f"duplicate JSON key {key!r} repeated "
                                 f"{hook.seen.count(key)} time(s); later values kept as "
                                 f"'{key}#2'... (plain JSON readers would drop them)"))

    def header(*keys: str, integer: bool = False) -> float | None:
        key = next((k for k in keys if k in doc), None)
        if key is None:
            return None
        try:
            return float(json_number(doc[key], key, integer=integer))
        except ValueError as e:
            raise json_error(name, text, offset, [key], str(e)) from None

    size = header("size", "num to keep", integer=True)
    out.size = int(size) if size is not None else None
    out.duration_s = header("duration", "duration to keep")
    layouts: set[str] = set()
    ops_key = "ops" if "ops" in doc else "Ops"
    for i, op in enumerate(doc.get(ops_key) or []):
        if not isinstance(op, dict):
            out.warnings.append(warn(name, f"ops[{i}] is not an object; skipped"))
            continue
        where = _Where(name, text, offset, [ops_key, i])
        out.ops.append(_op(op, i, where, out.warnings, layouts))
    out.layout = ("list" if "list" in layouts else "crimson" if "crimson" in layouts
                  else "dict")
    if "crimson" in layouts:
        out.warnings.append(warn(name, "Crimson op layout ('detail' blocks): per-stage "
                                 "durations are not read, only op durations"))
    return out


class _Where:
    """Where an op sits in the file, to locate an error at one of its fields."""

    def __init__(self, name: str, text: str, offset: int, path: list[str | int]) -> None:
        self.name, self.text, self.offset, self.path = name, text, offset, path

    def error(self, message: str, *sub: str | int) -> ReaderError:
        path = self.path + list(sub)
        shown = ".".join(str(k) for k in path)
        return json_error(self.name, self.text, self.offset, path, message, shown)


def _events(op: dict[str, Any], layouts: set[str]) -> tuple[list[Any], list[str | int]]:
    """The op's event list and its path inside the op (for locating errors)."""
    td = op.get("type_data")
    if isinstance(td, dict):
        layouts.add("dict")
        ev = td.get("events")
        return (ev, ["type_data", "events"]) if isinstance(ev, list) else ([], [])
    if isinstance(td, list):
        layouts.add("list")
        for j, item in enumerate(td):
            if isinstance(item, list) and any(isinstance(e, dict) and "event" in e
                                              for e in item):
                return item, ["type_data", j]
        return [], []
    if "detail" in op or "type" in op:
        layouts.add("crimson")
    return [], []


#: the commits of an op's write and its replicas, marked by different threads: these two
#: milestones may be listed out of time order among themselves
_INTERLEAVED = ("op_commit", "sub_op_commit_rec")
#: an op duration this long (~11.6 days) is an unsigned wrap-around, not a measurement
_WRAPPED_S = 1e6


def _op(op: dict[str, Any], i: int, where: _Where, warnings: list[Problem],
        layouts: set[str]) -> HistoricOp:
    name = where.name
    desc = str(op.get("description", ""))
    out = HistoricOp(description=desc,
                     initiated_at=op.get("initiated_at") if isinstance(op.get("initiated_at"),
                                                                        str) else None)
    if "duration" in op:
        try:
            dur = float(json_number(op["duration"], "duration"))
        except ValueError as e:
            raise where.error(str(e), "duration") from None
        if dur < _WRAPPED_S:
            out.duration_ns = to_ns(dur, "s")
        else:
            warnings.append(warn(name, f"ops[{i}]: duration {op['duration']} s is an unsigned "
                                 "wrap-around; recomputed from the events"))
    out.is_write = bool(re.search(r"write|omap-set|append|ondisk\+write", desc)) or \
        desc.startswith(("osd_repop", "osd_sub_op"))
    raw_events, ev_path = _events(op, layouts)
    t0: datetime | None = None
    bad = 0
    last: tuple[str, datetime, str] | None = None  # latest milestone so far: name, time, raw
    backwards: Problem | None = None  # the first milestone stamped before an earlier one
    for k, e in enumerate(raw_events):
        if not isinstance(e, dict) or not isinstance(e.get("event"), str):
            bad += 1
            continue
        t = parse_time(e.get("time"))
        if t is not None and t0 is None:
            t0 = t
        offset = None
        if t is not None and t0 is not None:  # parse_time gives aware times only
            offset = (t - t0) // _ONE_US * 1000
        m = _milestone(e["event"])
        if m is not None and t is not None:
            if last is not None and t < last[1] and backwards is None and not (
                    m in _INTERLEAVED and _milestone(last[0]) in _INTERLEAVED):
                back = (last[1] - t) // _ONE_US
                backwards = where.error(
                    f"{e['event']!r} at {e['time']} is {back} us earlier than {last[0]!r} "
                    f"({last[2]}) listed before it: time goes backwards within the op (clock "
                    "step or edited file?); its stages are left out",
                    *ev_path, k, "time").problems[0]
            if last is None or t >= last[1]:
                last = (e["event"], t, str(e["time"]))
        out.events.append(OpEvent(name=e["event"], time=str(e.get("time")), offset_ns=offset))
    if bad:
        warnings.append(warn(name, f"ops[{i}]: {bad} malformed event(s) skipped"))
    if any(ev.offset_ns is None for ev in out.events):
        warnings.append(warn(name, f"ops[{i}]: unreadable event time(s); those events have no "
                             "offset"))
    if backwards is not None:  # one clock step must not sink the whole file, nor skew stages
        warnings.append(backwards)
    else:
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
