"""Debug logging as Ceph runs it: how many log lines each subsystem formats per op.

A ``dout(n)`` line is formatted in the calling thread (into the in-memory ring) when
``n`` is at most the subsystem's gather level, the second number of ``debug_osd =
1/5``; it is also written to the log file when ``n`` is at most the first.  The counts
below are the lines on the success path of one 4 KiB replicated overwrite and one read,
by subsystem and level, read from the Reef 18.2.7 source (an estimate: +/- 15 % for osd
and optracker, -15/+70 % for bluestore's level-20 lines, +/- 25 % for the messenger).
At the default levels of Nautilus 14.2.1 and later no success-path line is gathered, on the
OSDs or in librbd/librados (every line at or under a default gather level is off the write
path; RocksDB logs only on memtable switches, flushes and compactions:
calibration/research/logging-defaults.md); before, ``debug_ms`` gathered up to 5, three
lines per message.
"""

from __future__ import annotations

#: subsystems whose lines the model counts, with their default log/gather levels
#: (src/common/subsys.h, Reef 18.2.7; identical from Nautilus 14.2.1 on)
DEFAULTS: dict[str, tuple[int, int]] = {
    "osd": (1, 5), "optracker": (0, 5), "bluestore": (1, 5), "bluefs": (1, 5),
    "bdev": (1, 3), "ms": (0, 0), "throttle": (1, 1), "mclock": (1, 5)}
#: releases before Nautilus gathered the messenger's lines up to level 5 (PR #26936
#: set debug_ms to 0/0 for Nautilus; its backport, PR #27197, landed in 14.2.1, so 14.2.0
#: still gathered them)
MS_BEFORE_NAUTILUS = (0, 5)
PRE_NAUTILUS = {"luminous", "mimic"}

# Lines per op: subsystem -> {level: lines}.  A bucket's lines are put at its upper
# level (10, 15, 20, 30) except where the source gives the level (optracker's events at
# 6; issue_repop and do_repop_reply at 7, write_log_and_missing at 6).
#: the primary's OSD work for a write (do_op to the reply), BlueStore excluded
PRIMARY_WRITE = {"osd": {6: 1, 7: 3, 10: 42, 15: 6, 20: 34, 30: 5}, "optracker": {6: 29},
                 "mclock": {20: 4, 30: 6}, "throttle": {10: 12}}
#: one replica's OSD work (do_repop, repop_commit)
REPLICA_WRITE = {"osd": {10: 17, 15: 1, 20: 8, 30: 3}, "optracker": {6: 9},
                 "mclock": {20: 2, 30: 2}, "throttle": {10: 4}}
#: BlueStore, BlueFS and the block device for one write (primary or replica)
BLUESTORE_WRITE = {"bluestore": {10: 15, 15: 3, 20: 47, 30: 16},
                   "bluefs": {10: 13, 20: 15, 30: 2}, "bdev": {5: 6, 10: 6, 20: 12, 30: 6}}
#: the primary's work for a read, BlueStore's included
READ = {"osd": {10: 12, 15: 4, 20: 12, 30: 7}, "optracker": {6: 8}, "mclock": {20: 2, 30: 2},
        "bluestore": {10: 1, 15: 1, 20: 6, 30: 6}, "bdev": {5: 2, 10: 1, 20: 3, 30: 2},
        "throttle": {10: 6}}
#: the messenger (ProtocolV2) per message sent and received
MSG_SENT = {"ms": {1: 1, 5: 2, 10: 3, 15: 1, 20: 4, 30: 5}}
MSG_RECEIVED = {"ms": {1: 1, 5: 2, 10: 2, 15: 1, 20: 23, 30: 17}}


def parse_level(text: str) -> tuple[int, int]:
    """'1/5' -> (1, 5); '20' -> (20, 20), as Ceph reads a debug option."""
    parts = str(text).split("/")
    if len(parts) > 2 or not all(p.strip().isdigit() for p in parts):
        raise ValueError(f"{text!r} is not a debug level: give 'log/gather' such as '1/5', or one number")
    log = int(parts[0])
    gather = int(parts[1]) if len(parts) == 2 else log
    if not (0 <= log <= 99 and 0 <= gather <= 99):
        raise ValueError(f"{text!r}: levels go from 0 to 99")
    return log, max(log, gather)  # Ceph gathers at least what it logs


def levels(release: str, off: bool, overrides: dict[str, str],
           version: str | None = None) -> dict[str, tuple[int, int]]:
    """The log/gather levels of each counted subsystem: the release's (and point
    version's) defaults, all 0/0 with ``debug_logging: off``, then the scenario's own
    ``ceph.debug``."""
    out = {s: (0, 0) for s in DEFAULTS} if off else dict(DEFAULTS)
    if not off and (release in PRE_NAUTILUS or version == "14.2.0"):
        out["ms"] = MS_BEFORE_NAUTILUS
    for s, v in overrides.items():
        out[s] = parse_level(v)
    return out


def gathered(lines: dict[str, dict[int, int]], lv: dict[str, tuple[int, int]]) -> int:
    """Lines of one piece of work that are formatted at these levels."""
    return sum(n for s, by in lines.items() for level, n in by.items() if level <= lv[s][1])


def lines_per_stage(lv: dict[str, tuple[int, int]]) -> dict[str, int]:
    """Gathered lines added to each stage of the write path (per run of the stage)."""
    sent, received = gathered(MSG_SENT, lv), gathered(MSG_RECEIVED, lv)
    return {"osd.do_op": gathered(PRIMARY_WRITE, lv),
            "osd.bluestore_submit": gathered(BLUESTORE_WRITE, lv),
            "osd.do_repop": gathered(REPLICA_WRITE, lv),
            "osd.do_read": gathered(READ, lv),
            "osd.msgr_recv": received,
            "osd.repop_send": sent, "osd.reply_send": sent, "osd.repop_commit": sent}
