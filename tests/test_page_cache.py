"""The kernel's page cache under BlueFS: what a host's memory leaves for it, whether BlueFS
reads through it (``bluefs_buffered_io`` and its default per release and point release),
and RocksDB block-cache misses served from it (``resolve.page_cache_hit``,
``Protocol._metadata``)."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT, assert_short_error
from hypothesis import given, settings, strategies as st

from cephsim.api import load_resolved
from cephsim.catalog.host_memory import gib, memory_per_osd
from cephsim.formats.report.render import render_run
from cephsim.model.resolve import (
    CLIENT_JOB_BYTES,
    HOST_BASE_BYTES,
    MEMORY_BASE,
    PAGE_OBJECT_BYTES,
    STATIC_CACHE,
    MetaCache,
    assumed_memory,
    bluefs_buffered_io_default,
    memory_decides,
    osd_rss,
    page_cache_bytes,
    page_cache_hit,
)
from cephsim.model.runner import run_scenario
from cephsim.scenario.load import load_scenario

QUICKSTART = ROOT / "scenarios" / "quickstart.yaml"  # 3 hosts x 1 OSD, pool size 3, reef
GIB = 1024**3
#: 2 TiB over 3 OSDs of pool size 3: 524,288 objects per OSD, ~83k onodes cached
BIG = ["workload.image_size=2TiB", "hosts.osd.memory=256GiB"]


def run(overrides, seed=1):
    return run_scenario(load_scenario(QUICKSTART, list(overrides)), scenario_path=QUICKSTART,
                        seed=seed)


def mean_us(res) -> float:
    a = res.records.arrays()
    return float((a["complete"] - a["submit"]).mean()) / 1e3


def test_an_image_past_the_osd_caches_but_within_ram_is_served_by_the_page_cache():
    """The must-show case: 2 TiB of image on 256 GiB hosts.  The OSDs' caches hold ~16 %
    of the objects (the block cache less), the page cache left by one 4 GiB OSD and the
    2 GiB base (250 GiB) holds all of their 4 GiB of SST pages.  Buffered BlueFS: every
    block-cache miss is a page-cache hit, no DB device read; O_DIRECT: every one reads the
    device.  The header says which, and that the setting was given."""
    on = run(["run.ios=600", *BIG, "ceph.bluefs_buffered_io=true"])
    off = run(["run.ios=600", *BIG, "ceph.bluefs_buffered_io=false"])
    m = on.resolved.ceph.meta
    host = on.resolved.host("osd0")
    assert host.page_cache == 256 * GIB - 4 * GIB - HOST_BASE_BYTES
    assert m.objects > m.onodes > m.kv_objects  # larger than the OSDs' caches ...
    assert m.objects * PAGE_OBJECT_BYTES < host.page_cache  # ... smaller than the free RAM
    assert m.page_hit == {"osd0": 1.0, "osd1": 1.0, "osd2": 1.0}
    a, b = on.caches["metadata_served"], off.caches["metadata_served"]
    assert a["page_cache"] > 1000 and a["device"] == 0
    assert b["page_cache"] == 0 and b["device"] > 1000
    # the same draws up to the page cache: the same lookups, hits and gets
    assert (a["onode_cache"], a["block_cache"]) == (b["onode_cache"], b["block_cache"])
    assert on.caches["page_cache_hit_ratio"] == 1.0 and off.caches["page_cache_hit_ratio"] == 0.0
    assert mean_us(on) < 0.6 * mean_us(off)
    text_on, text_off = render_run(on, "text"), render_run(off, "text")
    assert "100.0 % from the page cache, 0.0 % read from the DB device" in text_on
    assert ("cephsim: BlueFS: bluefs_buffered_io on (given); page cache the OSD hosts' memory "
            "leaves: 250.0 GiB per host") in text_on
    assert "bluefs_buffered_io off (O_DIRECT: every block-cache miss reads the device) (given)" \
        in text_off
    assert "from the page cache" not in text_off
    doc = json.loads(render_run(on, "json"))["cephsim"]["caches"]
    assert doc["metadata_served"] == a and doc["bluefs_buffered_io"] is True
    assert doc["page_cache_bytes"] == [host.page_cache, host.page_cache]


def test_the_release_default_is_named_as_assumed():
    res = run(["run.ios=200", *BIG])
    text = render_run(res, "text")
    assert "bluefs_buffered_io on (assumed: reef's default)" in text
    res = run(["run.ios=200", *BIG, "ceph.release=nautilus", "ceph.version=14.2.16"])
    assert res.caches["metadata_served"]["page_cache"] == 0
    assert "bluefs_buffered_io off (O_DIRECT: every block-cache miss reads the device) " \
        "(assumed: 14.2.16's default (since 14.2.10))" in render_run(res, "text")


def test_without_the_hosts_memory_the_published_median_per_osd_is_assumed():
    """Memory not given: each OSD host has the published hosts' median RAM per OSD for its
    OSDs (one flash OSD here); the header and the BlueFS line say it was assumed, and a
    host without OSDs is given none (its memory decides nothing)."""
    res = run(["run.ios=300", "workload.image_size=8TiB"])
    r = res.resolved
    per = memory_per_osd()["flash"].median
    assert r.host("osd0").memory == assumed_memory("flash", 1) == per
    assert not r.host("osd0").memory_given
    assert r.host("osd0").page_cache == per - 4 * GIB - HOST_BASE_BYTES
    assert r.host("client0").memory is None
    text = render_run(res, "text")
    assert f"memory {gib(per)} ({gib(per)} per OSD, the published hosts' median)" in text
    assert (f"(the memory not given: {gib(per)} assumed, published hosts' median per "
            "OSD; hosts.memory)") in text
    doc = json.loads(render_run(res, "json"))["cephsim"]
    assert doc["caches"]["memory_given"] is False
    assert doc["caches"]["memory_bytes"] == [per, per]
    given = run(["run.ios=300", "workload.image_size=8TiB", "hosts.osd.memory=64GiB"])
    assert given.resolved.host("osd0").memory_given
    assert "the memory not given" not in render_run(given, "text")


def test_the_assumed_memory_is_named_only_where_it_decides():
    """Every object's onode cached (the quickstart's 10 GiB image): the memory decides
    nothing, and the header does not list it."""
    res = run(["run.ios=200"])
    assert not memory_decides(res.resolved)
    assert "memory" not in render_run(res, "text").split("quickstart: (groupid")[0]
    assert memory_decides(run(["run.ios=200", "workload.image_size=8TiB"]).resolved)
    assert not memory_decides(run(["run.ios=200", "workload.image_size=8TiB",
                                   "ceph.bluefs_buffered_io=false"]).resolved)


def test_the_published_hosts_by_hand():
    """Flash: the ten BlueStore-era hosts' RAM per OSD (catalog/data/host-memory.yaml),
    sorted 1.28, 10.67, 14, 16, 19.2, 21.33, 21.33, 32, 42.67, 49.25 GiB: median (19.2 +
    21.33) / 2 = 20.27, quartiles (inclusive) 14 + 0.25 x 2 = 14.5 and 21.33 + 0.75 x
    10.67 = 29.33.  HDD: the one published BlueStore host, 256 GiB / 24; the
    documentation's 2 x 4 GiB and 128 GiB / 8 either side."""
    m = memory_per_osd()
    assert m["flash"].median == pytest.approx((19.2 + 64 / 3) / 2 * GIB, abs=2**20)
    assert m["flash"].lower == pytest.approx(14.5 * GIB, abs=2**20)
    assert m["flash"].upper == pytest.approx((64 / 3 + 0.75 * 32 / 3) * GIB, abs=2**20)
    assert (m["hdd"].lower, m["hdd"].upper) == (8 * GIB, 16 * GIB)
    assert m["hdd"].median == pytest.approx(256 / 24 * GIB, abs=2**20)
    assert assumed_memory("hdd", 12) == 12 * m["hdd"].median


def test_validate_names_the_memory_where_the_quartiles_move_the_answer(run_cli):
    """8 TiB over three single-OSD hosts: 2.1M objects per OSD, 16 GiB of their SST pages.
    The page cache (the memory less the 4 GiB OSD and the 2 GiB base) holds 14.3 GiB of
    them at the median (20.3 GiB), 8.5 at the low end (14.5), all at the high end (29.3):
    the mean moves by far more than 10 % either way, and validate says so, naming the
    field.  At 2 TiB (4 GiB of pages) every end holds them all: nothing said."""
    r = run_cli("validate", QUICKSTART, "--set", "workload.image_size=8TiB")
    assert r.exit_code == 0
    assert "the OSD hosts' memory is not given (hosts.osd.memory) and decides this answer" \
        in r.output
    assert "(the low end) +" in r.output and "(the high end) -" in r.output
    assert "give the hosts' memory" in r.output
    r = run_cli("validate", QUICKSTART, "--set", "workload.image_size=2TiB")
    assert r.exit_code == 0 and "memory is not given" not in r.output
    r = run_cli("validate", QUICKSTART, "--set", "workload.image_size=8TiB",
                "--set", "hosts.osd.memory=24GiB")
    assert r.exit_code == 0 and "memory is not given" not in r.output


def test_the_memory_check_runs_nothing_where_the_memory_decides_nothing(monkeypatch):
    import cephsim.tools.memory_check as mc

    def boom(*a, **k):
        raise AssertionError("a pilot ran")
    monkeypatch.setattr(mc, "run_scenario", boom)
    sc, r = load_resolved(QUICKSTART, [])
    assert mc.memory_warnings(sc, r, QUICKSTART) == []


def test_part_of_the_pages_fit():
    """8 GiB hosts: 8 - 4 (the OSD) - 2 (base) = 2 GiB of page cache, 262,144 objects'
    pages; beyond the 83k onodes cached it serves (262,144 - onodes) / (524,288 - onodes)
    of the misses (~40 %), drawn on the OSD's own stream; the mean lies between."""
    res = run(["run.ios=1500", "workload.image_size=2TiB", "hosts.osd.memory=8GiB"])
    m = res.resolved.ceph.meta
    p = (2 * GIB // PAGE_OBJECT_BYTES - m.onodes) / (m.objects - m.onodes)
    assert m.page_hit["osd1"] == pytest.approx(p) and 0.35 < p < 0.45
    assert "osd1.pagecache" in res.cluster.streams.names
    c = res.caches
    misses = c["rocksdb_gets"] - c["metadata_served"]["block_cache"]
    sd = (p * (1 - p) / misses) ** 0.5
    assert abs(c["page_cache_hit_ratio"] - p) < 4 * sd
    full = run(["run.ios=1500", *BIG])
    none = run(["run.ios=1500", "workload.image_size=2TiB", "hosts.osd.memory=6GiB"])
    assert none.resolved.ceph.meta.page_hit["osd1"] == 0.0  # 6 - 4 - 2: no page cache
    assert mean_us(full) < mean_us(res) < mean_us(none)


def test_cold_metadata_finds_nothing_in_the_page_cache_either():
    res = run(["run.ios=200", *BIG, "workload.metadata_cache=cold"])
    assert set(res.resolved.ceph.meta.page_hit.values()) == {0.0}
    assert res.caches["metadata_served"]["page_cache"] == 0


def test_free_ram_by_hand():
    """256 GiB, 12 OSDs at 4 GiB, 2 fio jobs: 256 - 48 - 2 (base) - 2 x 0.25 = 205.5 GiB."""
    assert page_cache_bytes(256 * GIB, 12, 4 * GIB, 2) == int(205.5 * GIB)
    assert HOST_BASE_BYTES == 2 * GIB and CLIENT_JOB_BYTES == GIB // 4
    assert page_cache_bytes(None, 12, 4 * GIB, 0) == 0  # a host without OSDs
    assert page_cache_bytes(32 * GIB, 12, 4 * GIB, 0) == 0  # overcommitted: none left
    # the autotuner holds the RSS at the target; a fixed cache is that cache + the base
    assert osd_rss("reef", "ssd", 6 * GIB, None) == 6 * GIB
    assert osd_rss("luminous", "ssd", 4 * GIB, None) == STATIC_CACHE["ssd"] + MEMORY_BASE
    assert osd_rss("luminous", "hdd", 4 * GIB, None) == GIB + MEMORY_BASE
    assert osd_rss("quincy", "ssd", 4 * GIB, 2 * GIB) == 2 * GIB + MEMORY_BASE


def test_a_client_on_an_osd_host_takes_its_share():
    """Two fio jobs on osd0 (hyperconverged): 64 - 4 - 2 - 2 x 0.25 = 57.5 GiB there, 58 on
    the others; each host's OSDs share its page cache."""
    _, r = load_resolved(QUICKSTART, ["hosts.osd.memory=64GiB", "workload.clients=[osd0]",
                                      "workload.numjobs=2", "workload.image_size=1TiB"])
    assert r.host("osd0").page_cache == int(57.5 * GIB)
    assert r.host("osd1").page_cache == 58 * GIB
    assert r.host("client0").page_cache == 0  # no OSDs: no memory assumed there


def test_page_cache_hit_by_hand():
    m = MetaCache(objects=524_288, onodes=83_058, kv_objects=30_000, onode_hit=0.158,
                  kv_hit=0.0, read_shards=1.0, write_shards=2.7, meta_bytes=0, kv_bytes=0)
    assert page_cache_hit(m, 2 * GIB, False) == pytest.approx(
        (262_144 - 83_058) / (524_288 - 83_058))
    assert page_cache_hit(m, 0, False) == 0.0
    assert page_cache_hit(m, 4 * GIB, False) == 1.0  # 524,288 x 8 KiB fit exactly
    assert page_cache_hit(m, 4 * GIB - 1, True) == 0.0  # a sequential walk: all or nothing
    assert page_cache_hit(m, 4 * GIB, True) == 1.0


@settings(max_examples=200, deadline=None)
@given(objects=st.integers(1, 10**8), onodes=st.integers(0, 10**7), kv=st.integers(0, 10**7),
       a=st.integers(0, 2**40), b=st.integers(0, 2**40), seq=st.booleans())
def test_more_page_cache_never_hits_less(objects, onodes, kv, a, b, seq):
    m = MetaCache(objects=objects, onodes=onodes, kv_objects=kv, onode_hit=0.0, kv_hit=0.0,
                  read_shards=1.0, write_shards=2.7, meta_bytes=0, kv_bytes=0)
    lo, hi = page_cache_hit(m, min(a, b), seq), page_cache_hit(m, max(a, b), seq)
    assert 0.0 <= lo <= hi <= 1.0


@pytest.mark.parametrize("release, version, on", [
    ("luminous", None, False), ("luminous", "12.2.13", False),
    ("mimic", "13.2.10", True),
    ("nautilus", "14.2.0", True), ("nautilus", "14.2.9", True), ("nautilus", "14.2.10", False),
    ("nautilus", "14.2.21", False), ("nautilus", "14.2.22", True), ("nautilus", None, True),
    ("octopus", "15.2.1", True), ("octopus", "15.2.2", False), ("octopus", "15.2.12", False),
    ("octopus", "15.2.13", True), ("octopus", None, True),
    ("pacific", "16.2.0", True), ("quincy", None, True), ("reef", None, True),
    ("squid", None, True), ("tentacle", None, True),
])
def test_the_default_history(release, version, on):
    assert bluefs_buffered_io_default(release, version)[0] is on


def test_a_release_whose_default_changed_says_which_it_took():
    assert bluefs_buffered_io_default("octopus", None)[1] == (
        "octopus's last default (from 15.2.13; it changed inside the release: give "
        "ceph.version for a point release's)")
    assert bluefs_buffered_io_default("octopus", "15.2.5")[1] == "15.2.5's default (since 15.2.2)"
    assert bluefs_buffered_io_default("reef", None)[1] == "reef's default"


@pytest.mark.parametrize("value, words", [
    ("100MiB", ["hosts.0.memory", "greater than or equal to 268435456"]),
    ("lots", ["hosts.0.memory"]),
])
def test_a_bad_memory_is_refused(run_cli, value, words):
    r = run_cli("validate", QUICKSTART, "--set", f"hosts.osd.memory={value}")
    assert_short_error(r, *words)
