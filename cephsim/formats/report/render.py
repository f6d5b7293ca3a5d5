"""Render a run as text (fio normal output + breakdown) or fio-compatible JSON."""

from __future__ import annotations

from typing import Any, Sequence

from cephsim.catalog.host_memory import gib
from cephsim.formats.report.assumptions import assumptions, header_text
from cephsim.formats.report.fio_json import dumps_fio_json
from cephsim.formats.report.fio_text import fio_text
from cephsim.formats.report.summary import (
    breakdown_text,
    job_stats,
    result_document,
    saturation_text,
)
from cephsim.model.runner import RunResult
from cephsim.monitors import text_report


def write_path(res: RunResult) -> str:
    """The BlueStore write path the run's writes take, as the header names it."""
    w = res.scenario.workload
    if w.image_state == "fresh":
        return f"{res.resolved.ceph.write_mode} BlueStore writes: allocation into a fresh image"
    return f"{res.resolved.ceph.write_mode} BlueStore writes"


def cache_text(res: RunResult) -> str:
    """What the OSDs found in their caches: the onode (metadata) cache and, for the
    onodes not there, RocksDB's block cache; reads also the data cache."""
    c = res.caches
    if not c:
        return ""
    if c["objects_per_osd"] == 0:
        meta = "no object metadata to find (a fresh image)"
    elif c["onode_lookups"] == 0:  # every object fits: the run never looks beyond the cache
        meta = (f"every object's onode cached ({c['objects_per_osd']:,.0f} objects per OSD, "
                f"room for {c['onodes_cached']:,})")
    else:
        meta = (f"onode cache hits {100 * c['onode_hit_ratio']:.1f} % "
                f"({c['objects_per_osd']:,.0f} objects per OSD, {c['onodes_cached']:,} cached)")
        served = c.get("metadata_served") or {}
        if c["rocksdb_gets"] and served.get("page_cache"):
            gets = c["rocksdb_gets"]
            meta += (f", RocksDB gets {100 * c['block_cache_hit_ratio']:.1f} % from the block "
                     f"cache, {100 * served['page_cache'] / gets:.1f} % from the page cache, "
                     f"{100 * served['device'] / gets:.1f} % read from the DB device")
        elif c["rocksdb_gets"]:
            meta += (f", RocksDB gets {100 * c['block_cache_hit_ratio']:.1f} % from the block "
                     "cache, the rest read from the DB device")
    data = ""
    if res.scenario.workload.rw != "write" and res.scenario.workload.rw != "randwrite":
        data = f"; reads from the data cache {100 * c['data_cache_hit_probability']:.0f} %"
    return f"cephsim: BlueStore caches: {meta}{data}\n" + _bluefs_text(c)


def _bluefs_text(c: dict[str, Any]) -> str:
    """Whether BlueFS reads through the kernel's page cache, given or the release's default,
    and what the OSD hosts' memory leaves it; only where a RocksDB get missed the block cache
    (elsewhere it decides nothing)."""
    served = c.get("metadata_served")
    if not served or not served["page_cache"] + served["device"]:
        return ""
    on = ("on" if c["bluefs_buffered_io"] else
          "off (O_DIRECT: every block-cache miss reads the device)")
    why = "given" if c["bluefs_buffered_io_given"] else f"assumed: {c['bluefs_buffered_io_default']}"
    text = f"cephsim: BlueFS: bluefs_buffered_io {on} ({why})"
    if c["bluefs_buffered_io"]:
        if not c["memory_given"] and "memory_bytes" not in c:  # a result file of before
            return text + "; no page cache assumed (the OSD hosts' memory not given)\n"
        text += (f"; page cache the OSD hosts' memory leaves: {_gib_range(c['page_cache_bytes'])} "
                 "per host")
        if not c["memory_given"]:
            text += (f" (the memory not given: {_gib_range(c['memory_bytes'])} assumed, "
                     "published hosts' median per OSD; hosts.memory)")
    return text + "\n"


def _gib_range(lo_hi: list[int]) -> str:
    """'20.3 GiB', or '20.3 GiB to 40.5 GiB' where the hosts differ."""
    lo, hi = lo_hi
    return gib(lo) + ("" if lo == hi else f" to {gib(hi)}")


def render_run(res: RunResult, fmt: str, overrides: Sequence[str] = ()) -> str:
    """The run as text or fio's JSON; ``overrides``: the --set texts the scenario was loaded
    with, which the header names as given."""
    if fmt in ("json", "json+"):
        return dumps_fio_json(result_document(res, plus=fmt == "json+",
                                              overrides=overrides)) + "\n"
    sc = res.scenario
    pool = (f"pool size {sc.pool.size}" if sc.pool.type == "replicated" else
            f"EC {sc.pool.k}+{sc.pool.m} {sc.pool.plugin}"
            + (", optimized" if sc.pool.ec_optimizations else ""))
    head = (f"cephsim: {sc.name} (seed {res.seed}, {res.records.count()} I/Os measured, "
            f"{sc.ceph.release}, {pool}, "
            f"{write_path(res)})\n")
    # every header line starts 'cephsim:', which fio's text reader skips as noise
    decides = header_text(assumptions(sc, res.resolved, overrides), "cephsim: ",
                          clocks={g: p["mean_clock_ghz"] for g, p in res.power.items()})
    text = head + decides + cache_text(res) + fio_text([job_stats(res)])
    text += "\nWhere the time went (mean per I/O):\n" + breakdown_text(res)
    text += saturation_text(res)
    if res.monitors is not None:
        text += "\nMonitors (simulated separately; the data path does not use them):\n"
        text += "\n".join("  " + ln for ln in text_report(res.monitors).splitlines()) + "\n"
    for w in res.warnings:
        text += f"warning: {w}\n"
    return text
