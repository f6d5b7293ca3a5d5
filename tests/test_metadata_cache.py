"""BlueStore's metadata caches: the onode cache and RocksDB's block cache against the
objects a workload touches (``resolve.meta_cache``, ``Protocol._metadata``)."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT
from hypothesis import given, settings, strategies as st

from cephsim.formats.report.render import render_run
from cephsim.model.resolve import (
    CACHE_RATIOS_PACIFIC,
    KV_OBJECT_BYTES,
    ONODE_BYTES_LATER,
    STATIC_KV_MAX,
    cache_bytes,
    meta_cache,
)
from cephsim.model.runner import run_scenario
from cephsim.scenario.load import load_scenario

QUICKSTART = ROOT / "scenarios" / "quickstart.yaml"  # 3 hosts x 1 OSD, pool size 3, reef
GIB = 1024**3
RELEASES = ["luminous", "nautilus", "octopus", "pacific", "reef", "squid"]


def run(overrides, seed=1):
    return run_scenario(load_scenario(QUICKSTART, list(overrides)), scenario_path=QUICKSTART,
                        seed=seed)


def test_reef_cache_split_by_hand():
    """4 GiB target, write-only: the autotuner's budget 0.85 x 4 GiB - 768 MiB, shared by
    meta 0.45, kv 0.45 and kv_onode 0.04 (the idle data cache's 0.06 flows to them)."""
    budget = int(0.85 * 4 * GIB) - 768 * 1024**2
    assert cache_bytes(4 * GIB) == budget
    m = meta_cache("reef", "ssd", 4 * GIB, None, objects=200_000, writes_only=True,
                   sequential=False)
    meta = int(budget * 0.45 / 0.94)
    assert m.meta_bytes == meta and m.onodes == meta // ONODE_BYTES_LATER
    assert m.kv_bytes == int(budget * 0.04 / 0.94)
    assert m.onode_hit == pytest.approx(m.onodes / 200_000)
    # the onode blocks' own cache holds fewer objects than the onode cache: no help
    assert m.kv_objects == m.kv_bytes // KV_OBJECT_BYTES < m.onodes and m.kv_hit == 0.0
    # with reads the data cache keeps its 0.06
    r = meta_cache("reef", "ssd", 4 * GIB, None, 200_000, writes_only=False, sequential=False)
    assert r.meta_bytes == int(budget * CACHE_RATIOS_PACIFIC["meta"])


def test_luminous_static_cache_by_hand():
    """Luminous: 3 GiB on flash, RocksDB's share capped at 512 MiB, the rest to onodes."""
    m = meta_cache("luminous", "ssd", 4 * GIB, None, 1000, writes_only=True, sequential=False)
    assert m.kv_bytes == STATIC_KV_MAX and m.meta_bytes == 3 * GIB - STATIC_KV_MAX
    assert m.onode_hit == 1.0 and m.kv_hit == 1.0


def test_sequential_walks_miss_once_the_objects_do_not_fit():
    big = meta_cache("reef", "ssd", 4 * GIB, None, 10**7, writes_only=True, sequential=True)
    small = meta_cache("reef", "ssd", 4 * GIB, None, 10, writes_only=True, sequential=True)
    assert big.onode_hit == 0.0 and small.onode_hit == 1.0


@settings(max_examples=300, deadline=None, database=None)
@given(release=st.sampled_from(RELEASES), media=st.sampled_from(["ssd", "hdd"]),
       t1=st.integers(1, 64), t2=st.integers(1, 64), objects=st.floats(0, 1e8),
       writes=st.booleans(), seq=st.booleans())
def test_more_memory_never_means_more_metadata_reads(release, media, t1, t2, objects, writes, seq):
    """A larger osd_memory_target never lowers the onode cache's hit ratio nor raises the
    chance that a lookup must read the DB device: (1 - onode hit) x (1 - block-cache hit)."""
    lo, hi = sorted((t1, t2))
    a = meta_cache(release, media, lo * GIB, None, objects, writes, seq)
    b = meta_cache(release, media, hi * GIB, None, objects, writes, seq)
    assert b.onode_hit >= a.onode_hit
    assert (1 - b.onode_hit) * (1 - b.kv_hit) <= (1 - a.onode_hit) * (1 - a.kv_hit) + 1e-12


def test_a_big_image_misses_and_the_header_says_so():
    """2 TiB on 3 OSDs of pool size 3: 524,288 objects per OSD, ~83k onodes cached; the
    run's hit ratio is the resolved probability within binomial noise, every miss makes
    3.7 gets on average (onode + 2.7 shards), none from the small onode block cache."""
    res = run(["run.ios=2000", "workload.image_size=2TiB"])
    m = res.resolved.ceph.meta
    assert m.objects == pytest.approx(2 * 1024**4 / (4 * 1024**2))
    c = res.caches
    n = c["onode_lookups"]
    assert n == 3 * (2000 + res.scenario.run.ramp_ios)  # every copy of every write
    sd = (m.onode_hit * (1 - m.onode_hit) / n) ** 0.5
    assert abs(c["onode_hit_ratio"] - m.onode_hit) < 4 * sd
    misses = n * (1 - c["onode_hit_ratio"])
    assert c["rocksdb_gets"] / misses == pytest.approx(3.7, abs=0.1)
    assert c["block_cache_hit_ratio"] == 0.0
    text = render_run(res, "text")
    assert "cephsim: BlueStore caches: onode cache hits" in text and "524,288 objects per OSD" in text
    doc = json.loads(render_run(res, "json"))
    assert doc["cephsim"]["caches"]["onode_lookups"] == n


def test_cold_metadata_costs_device_reads_on_the_critical_path():
    """A randread that misses pays two synchronous 4 KiB reads (onode, shard) before the
    data read: the disk time per op rises by about 2 x miss ratio x one read."""
    warm = run(["run.ios=1500", "workload.rw=randread"])
    # 6 GiB hosts: the 4 GiB OSD and the 2 GiB base leave no page cache
    cold = run(["run.ios=1500", "workload.rw=randread", "workload.image_size=4TiB",
                "hosts.osd.memory=6GiB"])
    assert warm.caches["onode_lookups"] == 0  # everything fits: nothing drawn
    miss = 1 - cold.caches["onode_hit_ratio"]
    assert miss > 0.7
    w, c = (r.records.arrays()["acc"] for r in (warm, cold))
    disk_w, disk_c = w[:, 3].mean(), c[:, 3].mean()  # acc: network, cpu, wake, disk, queue
    assert disk_c / disk_w == pytest.approx(1 + 2 * miss, rel=0.15)


def test_a_fresh_image_has_no_metadata_to_read():
    res = run(["run.ios=500", "workload.image_size=4TiB", "workload.image_state=fresh"])
    assert res.caches["objects_per_osd"] == 0 and res.caches["onode_lookups"] == 0


@pytest.mark.parametrize("rw", ["randread", "randwrite"])
def test_a_larger_memory_target_never_slows_cold_metadata(rw):
    """The same seed at 4 and 16 GiB over a 1 TiB image: more onodes cached, lower mean."""
    ov = ["run.ios=1500", f"workload.rw={rw}", "workload.image_size=1TiB"]
    small, big = run(ov), run([*ov, "ceph.osd_memory_target=16GiB"])
    assert big.caches["onode_hit_ratio"] > small.caches["onode_hit_ratio"]
    a, b = (r.records.arrays() for r in (small, big))
    assert (b["complete"] - b["submit"]).mean() < (a["complete"] - a["submit"]).mean()


def test_small_images_are_bit_identical_to_always_warm_metadata():
    """Every object fits: no stream is opened and no draw is made, so the result does not
    depend on the cache model at all (the same bytes as before it existed)."""
    res = run(["run.ios=300"])
    assert res.caches["onode_lookups"] == 0
    assert not any(n.endswith(".meta") for n in res.cluster.streams.names)


def test_cold_metadata_costs_what_vitastor_measured_for_a_cold_ec_read():
    """The one published cold-vs-warm metadata figure: Vitastor's Ceph 15.2.4 cluster
    (calibration/scenarios/vitastor-octopus.yaml), 'T1Q1 read: 1500 iops with cold cache
    (~0.66ms latency), 2300 iops after 2 minute metadata cache warmup (~0.435ms latency)'
    for its EC 2+1 pool (docs/performance/comparison1.en.md).  An EC read reads its two
    data shards in parallel, each on an OSD that must load the object's onode and shard,
    so the cold penalty is that of one replicated read's metadata: the model's replicated
    read, every object cold against every object cached, must add 225 us within 30 %."""
    path = ROOT / "calibration" / "scenarios" / "vitastor-octopus.yaml"

    def mean_us(img: str) -> tuple[float, float]:
        sc = load_scenario(path, ["workload.rw=randread", f"workload.image_size={img}",
                                  "run.ios=3000"])
        res = run_scenario(sc, scenario_path=path)
        a = res.records.arrays()
        return (a["complete"] - a["submit"]).mean() / 1e3, res.caches.get("onode_hit_ratio", 1.0)

    warm, hit_w = mean_us("10GiB")
    cold, hit_c = mean_us("400TiB")
    assert hit_w == 1.0 and hit_c < 0.05
    assert cold - warm == pytest.approx(225, rel=0.30), (warm, cold)
