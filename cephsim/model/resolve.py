"""Resolve a scenario into a frozen, fully explicit model before simulation.

After this step there are no catalog names, no defaults left to decide and no
units: every host has its concrete CPU (with the C-states it may use under
its tuning), NIC and OSD drives; the network has its switch/router models;
Ceph has its release defaults (shards, threads, BlueStore write mode) and
software costs.  Problems that need the catalog (unknown hardware names, a
``max_cstate`` the platform does not have) are reported here, with the field
path.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from cephsim.catalog.host_memory import memory_per_osd
from cephsim.catalog.load import load_catalog
from cephsim.catalog.models import CPUModel, CState, DiskModel, NICModel, SwitchModel
from cephsim.errors import CephsimError
from cephsim.model.build import BuildEffect, build_effect
from cephsim.model.software import release_costs
from cephsim.monitors.scenario import combine, monitor_setup, site_hop
from cephsim.scenario.schema import (
    CPUTuning,
    Netem,
    Scenario,
    TcpSettings,
    VirtualMachine,
    Workload,
)
from cephsim.spec.debuglog import levels as debug_levels, lines_per_stage
from cephsim.spec.loss import (
    MAX_HEARTBEAT_MISSES_PER_HOUR,
    MAX_TCP_GIVE_UP,
    OSD_HEARTBEAT_GRACE_S,
    TCP_RETRIES2,
    heartbeat_loss_limit,
    heartbeat_misses_per_hour,
    resend_wait_s,
    tcp_give_up,
    tcp_give_up_limit,
)
from cephsim.spec.software import ReleaseCosts
from cephsim.units import format_size, format_span

#: (op shards, threads per shard) for SSD and HDD: osd_op_num_shards_{ssd,hdd} and
#: osd_op_num_threads_per_shard_{ssd,hdd} (src/common/options/osd.yaml.in; read by
#: OSD::get_num_op_shards / get_num_op_threads in src/osd/OSD.cc) ...
OP_SHARDS = {"ssd": (8, 2), "hdd": (5, 1)}
#: ... and where a release changed them: HDD OSDs run one op shard of five threads
#: from ceph/ceph PR #58509 (main, July 2024, so Tentacle; the Squid backport, PR #59973,
#: was still open in Jan 2025)
OP_SHARDS_BY_RELEASE = {("tentacle", "hdd"): (1, 5)}
#: bluestore_prefer_deferred_size_hdd by release (the option's default in each release's
#: tree: src/common/options.cc, later src/common/options/global.yaml.in); 64 KiB from pacific on
#: (ceph/ceph PR #33434)
PREFER_DEFERRED_HDD = {"luminous": 32768, "mimic": 32768, "nautilus": 32768, "octopus": 32768}
#: bluestore_min_alloc_size_hdd by release (same option files; kept at 64 KiB for Octopus
#: by ceph/ceph PR #32809); 4 KiB from pacific on
MIN_ALLOC_HDD = {"luminous": 65536, "mimic": 65536, "nautilus": 65536, "octopus": 65536}
#: threads librbd's I/O dispatch runs on, by release: the tp_librbd op work queue
#: (rbd_op_threads = 1) until Octopus.  From Pacific the I/O path is posted to librados's
#: io_context pool (ceph/ceph PR #35629, "enables the use of multiple client threads for
#: IO"), which src/librbd/AsioEngine.cc sizes max(librados_thread_count = 2,
#: rbd_op_threads = 1): 2 from every release not listed here
LIBRBD_THREADS = {"luminous": 1, "mimic": 1, "nautilus": 1, "octopus": 1}
#: releases whose RocksDB recycles WAL files.  BlueFS dirties a file's metadata when a
#: write grows it (BlueFS::_flush_range), and BlueFS::_fsync then writes and flushes its
#: own log too.  A recycled WAL file is overwritten inside its old size, so its fsync
#: costs one write and one flush; a new WAL file costs two of each.  RocksDB 6.8.0
#: (HISTORY.md, facebook/rocksdb PR #6351) turns recycle_log_file_num off under the
#: default kPointInTimeRecovery.  Ceph shipped older RocksDB until then (Luminous and
#: Mimic 5.x with recycle_log_file_num=4 in bluestore_rocksdb_options, Nautilus 14.2.0
#: a 5.x, 6.1.2 from a 2019 backport, ceph/ceph PR #29440; Octopus branched with 6.1.2)
#: and moved to 6.8.1 in May 2020 (PR #35032, hence Pacific and later); the fix
#: proposed for Ceph was not merged (PR #36579),
#: and Ceph's own remedy, BlueFS's WAL envelope mode, "will reduce ~50% the amount of
#: fdatasync syscalls issued by WAL writes" (PR #62224, 2025, after Squid).
WAL_RECYCLED = {"luminous", "mimic", "nautilus", "octopus"}
#: releases whose BlueFS writes RocksDB WAL files in envelope mode
#: (``bluefs_wal_envelope_mode``, default true; PR #62224, in Tentacle: its fixes are
#: backported to the tentacle branch, PRs #67333 and #68426).  Each WAL append carries
#: its own length, so BlueFS::_fsync touches its log only when the file gets new
#: extents, not for every size change: a commit costs one WAL write and flush again.
WAL_ENVELOPE = {"tentacle"}
#: releases whose BlueStore hands a committed txc's callbacks (the primary's op_commit,
#: the replica's repop_commit) to its own Finisher thread, one per OSD
#: (bluestore_shard_finishers = false), which takes the PG lock and runs them there.
#: From Nautilus the OSD's shard thread runs them from its commit queue instead
#: (ceph/ceph PR #22739, "make osd shard-thread do oncommits", merged autumn 2018,
#: after Mimic 13.2.0).  One thread per OSD: at high load a bottleneck of its own.
COMMIT_FINISHER = {"luminous", "mimic"}
#: Intel cores without Hardware P-states (HWP came with Skylake): intel_pstate picks their
#: P-state itself in active mode (X86_FEATURE_HWP, drivers/cpufreq/intel_pstate.c)
NO_HWP = {"sandybridge", "ivybridge", "haswell", "broadwell", "goldmont"}
#: releases whose bluestore_min_alloc_size_ssd is 16 KiB in every point release (4 KiB
#: from 14.2.8 and Octopus, ceph/ceph PR #30698): a 4 KiB overwrite is a deferred
#: small write there
MIN_ALLOC_SSD_16K = {"luminous", "mimic"}


#: the governors the model runs for a P-state driver's powersave (intel_pstate or
#: amd-pstate-epp in active mode): the kernel's name is powersave, and who picks the clock
PSTATE_POWERSAVE = {"intel_pstate": "intel_pstate picks the P-state, no HWP",
                    "hwp": "HWP/CPPC: the processor picks the clock"}


def kernel_governor(governor: str) -> tuple[str, str | None]:
    """A governor as modelled -> the kernel's name for it (what cpupower frequency-info
    prints), and under powersave with a P-state driver, the model's name for who picks
    the clock (``hwp`` or ``intel_pstate``; None otherwise)."""
    if governor in PSTATE_POWERSAVE:
        return "powersave", governor
    return governor, None


@dataclass(frozen=True, slots=True)
class CPUConfig:
    """A host's CPU as the simulation sees it."""

    model: CPUModel
    cores: int  #: physical cores
    cstates: tuple[CState, ...]  #: allowed idle states, shallowest first
    governor: str  #: as modelled: powersave under a P-state driver is intel_pstate or hwp
    max_hz: float
    min_hz: float
    threads_per_core: int = 1  #: hardware threads per core (1: SMT off or absent)
    smt_yield: float = 1.0  #: a core's work rate with two busy threads, relative to one
    #: the clock ceiling with every core of a socket busy (0 or max_hz: no all-core drop)
    all_core_hz: float = 0.0
    cpufreq_driver: str = "acpi-cpufreq"  #: the kernel's cpufreq driver ('auto' resolved)
    #: how an idle CPU's state is chosen: 'menu' (predicted from its past idle periods),
    #: 'ideal' (from the period's real length), 'haltpoll' (a KVM guest: the states follow
    #: each other as the idle time grows, so the real length decides, as for 'ideal')
    idle_governor: str = "menu"


@dataclass(frozen=True, slots=True)
class HostConfig:
    name: str
    group: str
    cpu: CPUConfig
    nic: NICModel
    bond: int
    disk: DiskModel | None
    osd_ids: tuple[int, ...]
    osd_cores: int | None
    netem: Netem | None
    leaf: int
    client_cores: int | None = None  #: the client side's cpuset (None: the cores the OSDs leave)
    osd_cpu_limit: float | None = None  #: CFS quota of each OSD daemon, in CPUs (None: none)
    osd_cpu_period: int = 100_000_000  #: its CFS period (ns)
    db_disk: DiskModel | None = None  #: a separate RocksDB/WAL device (None: on the data disk)
    #: dm-crypt sector size of the OSDs' devices (0: not encrypted)
    crypt_sector: int = 0
    db_devices: int = 0  #: DB devices on the host, shared round-robin by its OSDs
    osds_per_device: int = 1  #: consecutive OSDs sharing one data drive
    memory: int | None = None  #: the host's RAM (None: a host without OSDs whose RAM is not given)
    #: whether the scenario gave it (else an OSD host's is :func:`assumed_memory`'s)
    memory_given: bool = False
    #: what the OSDs, the clients and the OS leave of it: the kernel's page cache for BlueFS
    #: (:func:`page_cache_bytes`; 0 where there is no memory to leave it)
    page_cache: int = 0


@dataclass(frozen=True, slots=True)
class NetworkConfig:
    mtu: int
    kind: str  #: "switch", "leaf-spine" or "mesh"
    switch: SwitchModel
    spine: SwitchModel | None
    spine_cpu: CPUConfig | None
    link_netem: dict[tuple[str, str], Netem] = field(default_factory=dict)
    tcp: TcpSettings = field(default_factory=TcpSettings)
    mesh_mode: str = "routed"  #: mesh: "routed" (a port per peer) or "broadcast" (one shared rate)
    spines: int = 0  #: leaf-spine: spine routers
    hosts_per_leaf: int = 1  #: leaf-spine: hosts behind one leaf (1: hosts route themselves)


@dataclass(frozen=True, slots=True)
class MetaCache:
    """Where an OSD finds an object's metadata (onode and extent-map shards) for an I/O.

    BlueStore keeps whole onodes, with the extent-map shards loaded so far, in its onode
    (meta) cache; one that is not there is read from RocksDB with one get for the onode
    and one per shard the I/O's range needs (``Collection::get_onode``,
    ``ExtentMap::fault_range``), each served from RocksDB's block cache or, failing that,
    a 4 KiB SST block read from the DB device.  The caches are sized as the release sizes
    them (:func:`meta_cache`); the workload's footprint is the objects it touches."""

    objects: float  #: objects whose metadata one OSD serves for the workload
    onodes: int  #: onodes its onode cache holds
    kv_objects: int  #: objects whose SST blocks its RocksDB block cache (for onodes) holds
    onode_hit: float  #: P(an object the OSD did not just touch is in the onode cache)
    kv_hit: float  #: P(a get for an object not in the onode cache hits the block cache)
    read_shards: float  #: extent-map shard gets of a cold 4 KiB read (fault_range)
    write_shards: float  #: the same for a small write (its +/- max_blob_size window)
    meta_bytes: int  #: the onode cache's memory
    kv_bytes: int  #: the block cache's memory for onode blocks
    #: BlueFS reads through the kernel's page cache (bluefs_buffered_io), and per host:
    #: P(a get that missed the block cache finds its block in the page cache)
    buffered_io: bool = False
    page_hit: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class EcConfig:
    """An erasure-coded pool as the data path sees it."""

    k: int
    m: int
    stripe_unit: int  #: bytes of one chunk
    plugin: str
    technique: str
    optimized: bool  #: Tentacle's optimized EC: partial reads and writes


@dataclass(frozen=True, slots=True)
class CephConfig:
    release: str
    debug_logging: str
    op_shards: int
    threads_per_shard: int
    msgr_workers: int
    librbd_threads: int  #: threads of a librbd client's I/O dispatch (see LIBRBD_THREADS)
    write_mode: str  #: "direct" or "deferred" for the workload's block size
    costs: ReleaseCosts
    tails: bool
    #: how the binaries were built and what it does to RocksDB's work (None: not resolved
    #: from a scenario, e.g. a hand-built config in a test)
    build: BuildEffect | None = None
    wal_log_sync: bool = False  #: each WAL fsync also writes and flushes BlueFS's log
    commit_finisher: bool = False  #: commit callbacks run on BlueStore's finisher thread
    read_cache_hit: float = 0.0  #: probability that a read is served from the primary's buffer cache
    meta: MetaCache | None = None  #: BlueStore's onode and RocksDB block caches (None: always warm)
    ec: EcConfig | None = None  #: the pool's erasure code (None: replicated)
    #: debug log lines gathered per run of a stage (``debuglog.lines_per_stage``), and the
    #: log/gather levels of the counted subsystems
    debug_lines: dict[str, int] = field(default_factory=dict)
    debug_levels: dict[str, tuple[int, int]] = field(default_factory=dict)
    #: what each message pays for on the wire, client <-> OSD and OSD <-> OSD: "none"
    #: (msgr2 crc mode, or v1 unsigned), "signed" (v1 with cephx signatures), "secure"
    client_wire: str = "none"
    cluster_wire: str = "none"


#: BlueStore::MempoolThread::_update_cache_settings: the autotuner sizes the caches up to
#: (1 - osd_memory_expected_fragmentation) x osd_memory_target - osd_memory_base
#: (src/common/options/global.yaml.in defaults 0.15 and 768 MiB; osd_memory_cache_min 128 MiB).
MEMORY_EXPECTED_FRAGMENTATION = 0.15
MEMORY_BASE = 768 * 1024**2
MEMORY_CACHE_MIN = 128 * 1024**2


def cache_bytes(osd_memory_target: int) -> int:
    """The most an OSD's BlueStore caches (onodes, RocksDB blocks, data) may hold."""
    limited = int((1.0 - MEMORY_EXPECTED_FRAGMENTATION) * osd_memory_target)
    return limited - MEMORY_BASE if limited > MEMORY_BASE + MEMORY_CACHE_MIN else MEMORY_CACHE_MIN


def read_cache_hit(state: str, osd_memory_target: int, n_osds: int, data_bytes: int) -> float:
    """Probability that a read finds its 4 KiB in the primary OSD's buffer cache.

    Cold: none (fio's reads of freshly written data; writes bypass the cache).  Warm: the
    data was read before, each object is cached only on its primary (the replicas serve no
    reads), primaries are spread evenly, and a uniform random read hits with probability
    cache / data per OSD.  The whole cache budget counts as data cache: a benchmark's
    onodes and RocksDB blocks are small next to it (an upper bound, noted in the docs)."""
    if state != "warm" or n_osds == 0:
        return 0.0
    return min(1.0, n_osds * cache_bytes(osd_memory_target) / max(1, data_bytes))


#: memory of one cached onode of a written RBD object (its Onode struct plus the blobs,
#: extents and shared blobs of its loaded extent map), from the one published dump: PR
#: #32697 (2020, a write-only run at an 8 GB target) counts 66,560 cached onodes in 45 MB
#: of bluestore_cache_onode and 1.69 GB of bluestore_cache_other before that change
#: (~26 KB each) and 1.05 GB after it (~16.4 KB: the value from Octopus on).  Derived;
#: the dump's workload (how fragmented its objects were) is not stated.
ONODE_BYTES = {"luminous": 26_000, "mimic": 26_000, "nautilus": 26_000}
ONODE_BYTES_LATER = 16_400
#: RocksDB SST bytes of one object's metadata, the unit the block cache keeps: its onode
#: key (~0.5 KB with OI and SnapSet attrs) and extent-map shards (target 500 bytes,
#: bluestore_extent_map_shard_target_size) in 4 KiB blocks (rocksdb_block_size); keys of
#: one object are adjacent.  Estimate: about one block per object.
KV_OBJECT_BYTES = 4096
#: extent-map shard gets per cold object: a read faults the shard holding its range
#: (one); a small write faults +/- max(bluestore_max_blob_size_ssd 64 KiB, min_alloc)
#: around it (``_do_write_small``): PR #32697's dump shows 180,194 shard misses for
#: 66,560 onode misses in its write-only run, 2.7 per onode.  Derived from code / measured.
READ_SHARD_GETS = 1.0
WRITE_SHARD_GETS = 2.7
#: cache ratios (src/common/options): Nautilus and Octopus bluestore_cache_meta_ratio
#: 0.4, kv 0.4 (data 0.2); from Pacific meta 0.45, kv 0.45, kv_onode 0.04 (the 'O'
#: column family's own block cache, which holds the onode blocks: bluestore_rocksdb_cfs
#: 'O(3,0-13)=block_cache={type=binned_lru}'), data 0.06.  Under autotune a cache that
#: uses less than its share (the data cache, when nothing is read: buffered writes are
#: off) leaves it to the others in proportion.
CACHE_RATIOS_NO = {"meta": 0.4, "kv": 0.4, "data": 0.2}
CACHE_RATIOS_PACIFIC = {"meta": 0.45, "kv": 0.45, "kv_onode": 0.04, "data": 0.06}
#: Luminous and Mimic size the cache statically: bluestore_cache_size_{ssd,hdd} 3 / 1 GiB,
#: kv_ratio 0.99 capped at bluestore_cache_kv_max 512 MiB, the rest to metadata
#: (BlueStore::_set_cache_sizes; the Luminous docs' defaults).
STATIC_CACHE = {"ssd": 3 * 1024**3, "hdd": 1024**3}
STATIC_KV_MAX = 512 * 1024**2
STATIC_RELEASES = {"luminous", "mimic"}


def meta_cache(release: str, media: str, target: int, fixed: int | None, objects: float,
               writes_only: bool, sequential: bool) -> MetaCache:
    """The onode and block caches of one OSD against the workload's footprint.

    ``objects``: objects one OSD serves (every copy for writes, the primary's for reads).
    A uniform random workload over more objects than a cache holds hits an LRU with
    probability size / footprint; a sequential one walks objects in order, so a new
    object is cached only if all of them fit.  The block cache sees only the onode
    cache's misses, which it holds most recently loaded first: it helps where it holds
    more objects than the onode cache (stack inclusion)."""
    r = dict(CACHE_RATIOS_NO if release in ("nautilus", "octopus") else CACHE_RATIOS_PACIFIC)
    if release in STATIC_RELEASES or fixed is not None:
        size = fixed if fixed is not None else STATIC_CACHE[media]
        if release in STATIC_RELEASES:
            kv = min(int(0.99 * size), STATIC_KV_MAX)
            meta, kv_onode = size - kv, kv
        else:
            meta = int(r["meta"] * size)
            kv_onode = int(r.get("kv_onode", r["kv"]) * size)
    else:
        budget = cache_bytes(target)
        if writes_only:
            r.pop("data")
        total = sum(r.values())
        meta = int(budget * r["meta"] / total)
        kv_onode = int(budget * r.get("kv_onode", r["kv"]) / total)
    per = ONODE_BYTES.get(release, ONODE_BYTES_LATER)
    onodes = meta // per
    kv_objects = kv_onode // KV_OBJECT_BYTES
    if objects <= 0:
        hit = kv = 1.0
    elif sequential:
        hit = 1.0 if objects <= onodes else 0.0
        kv = 1.0 if objects <= kv_objects else 0.0
    else:
        hit = min(1.0, onodes / objects)
        kv = 1.0 if hit >= 1.0 else max(0.0, min(1.0, (kv_objects - onodes) / (objects - onodes)))
    return MetaCache(objects=objects, onodes=onodes, kv_objects=kv_objects, onode_hit=hit,
                     kv_hit=kv, read_shards=READ_SHARD_GETS, write_shards=WRITE_SHARD_GETS,
                     meta_bytes=meta, kv_bytes=kv_onode)


#: bluefs_buffered_io's default by release (src/common/options.cc, from Quincy
#: src/common/options/global.yaml.in).  Off since ceph/ceph PR #10766 (Aug 2016, so
#: Luminous: PR #20542 turned it on in master in Feb 2018, after 12.2.0, and no Luminous
#: backport of it is listed in the release notes searched); on from Mimic (#20542); off again
#: in master by PR #34224 (March 2020: "after the OSD caused page cache growth due to rocksdb
#: SST file reads, swap began to be aggressively invoked"), on again by PR #38044 (2020-2021:
#: "a huge user-visible improvement in metadata intensive scenarios"), whose Pacific backport
#: (PR #40391, March 2021) is in no changelog after 16.2.0 (16.2.1, 16.2.2): on from 16.2.0
#: on (derived from the changelogs).  Quincy and later: on.
BLUEFS_BUFFERED_IO = {"luminous": False, "mimic": True}
#: ... and where the default flipped inside a release: (first point release, default from it),
#: oldest first.  Nautilus: off from 14.2.10 (PR #34297, its changelog), on from 14.2.22 (PR
#: #40393: "This release sets bluefs_buffered_io to true by default", v14.2.22's notes);
#: Octopus: off from 15.2.2 (PR #34353, v15.2.2's changelog), on from 15.2.13 (PR #40392,
#: v15.2.13's changelog).
BLUEFS_BUFFERED_IO_POINTS: dict[str, tuple[tuple[tuple[int, int, int], bool], ...]] = {
    "nautilus": (((14, 2, 0), True), ((14, 2, 10), False), ((14, 2, 22), True)),
    "octopus": (((15, 2, 0), True), ((15, 2, 2), False), ((15, 2, 13), True)),
}


def bluefs_buffered_io_default(release: str, version: str | None) -> tuple[bool, str]:
    """The release's (or the point release's) bluefs_buffered_io, and what decided it in
    the header's words.  Without a version, where the default changed inside the release,
    its last point releases' default (the one a cluster kept up to date runs)."""
    points = BLUEFS_BUFFERED_IO_POINTS.get(release)
    if points is None:
        return BLUEFS_BUFFERED_IO.get(release, True), f"{release}'s default"
    if version is None:
        last = points[-1]
        v = ".".join(map(str, last[0]))
        return last[1], (f"{release}'s last default (from {v}; it changed inside the release: "
                         "give ceph.version for a point release's)")
    parts = _version_tuple(version)
    value, since = points[0][1], points[0][0]
    for start, on in points:
        if parts is not None and parts >= start:
            value, since = on, start
    return value, f"{version}'s default (since {'.'.join(map(str, since))})"


def _version_tuple(version: str) -> tuple[int, ...] | None:
    try:
        return tuple(int(p) for p in version.split(".")[:3])
    except ValueError:
        return None


#: memory a host keeps for everything but the OSDs and the clients' jobs: the kernel's own
#: (slab, page tables), systemd, sshd, the monitoring agents, the page cache of their files.
#: Estimate: what `free` shows used on an idle storage host is 1-2 GiB; a co-located mon or
#: mgr takes 1-2 GiB more (not counted).
HOST_BASE_BYTES = 2 * 1024**3
#: memory of one fio job of the client side on the host: fio, librbd with its cache
#: (rbd_cache_size 32 MiB) and librados's buffers and threads.  Estimate.
CLIENT_JOB_BYTES = 256 * 1024**2
#: page cache one object's metadata takes once read through it: the object's ~4 KiB of SST
#: blocks (KV_OBJECT_BYTES) are not page-aligned, so a random read of one brings in two 4 KiB
#: pages (the kernel reads a small random read as is, no readahead).  Estimate.
PAGE_OBJECT_BYTES = 8192


def osd_rss(release: str, media: str, target: int, fixed: int | None) -> int:
    """The memory one OSD holds: its osd_memory_target (the autotuner keeps the RSS there);
    with a fixed cache (Luminous, Mimic, or bluestore_cache_size) that cache plus the
    OSD's base (osd_memory_base), which is what the target is sized from."""
    if release in STATIC_RELEASES or fixed is not None:
        return (fixed if fixed is not None else STATIC_CACHE[media]) + MEMORY_BASE
    return target


def assumed_memory(media: str, n_osds: int) -> int:
    """The RAM an OSD host is assumed to have when the scenario does not give its memory:
    the published hosts' median RAM per OSD of its OSDs' media, for its OSDs
    (:func:`cephsim.catalog.host_memory.memory_per_osd`; the hosts, each with its source
    and quote, in catalog/data/host-memory.yaml)."""
    return memory_per_osd()[media].median * n_osds


def memory_decides(r: Resolved) -> bool:
    """Whether the OSD hosts' memory can decide the answer: BlueFS reads through the page
    cache it leaves, and some metadata lookups miss both the onode and the block cache
    (not a cold start's: its page cache is empty whatever the memory)."""
    m = r.ceph.meta
    return (m is not None and m.buffered_io and m.onode_hit < 1.0 and m.kv_hit < 1.0
            and r.scenario.workload.metadata_cache != "cold")


def page_cache_bytes(memory: int | None, n_osds: int, rss: int, jobs: int) -> int:
    """What a host's kernel may keep in its page cache: its memory less the OSDs' RSS, the
    base and the clients' jobs on it (0 where the memory is not known, or is all taken)."""
    if memory is None:
        return 0
    return max(0, memory - n_osds * rss - HOST_BASE_BYTES - jobs * CLIENT_JOB_BYTES)


def page_cache_hit(m: MetaCache, per_osd: int, sequential: bool) -> float:
    """P(a RocksDB get that missed the onode and block caches finds its block in the page
    cache), one OSD's share ``per_osd`` of it against the objects it serves.  The page cache
    holds every block BlueFS read most recently (the block cache's too: it is inclusive), so
    as for the block cache (:func:`meta_cache`) it helps only beyond what the inner caches
    hold; a sequential walk hits only where every object fits."""
    if m.objects <= 0:
        return 1.0
    objects = per_osd // PAGE_OBJECT_BYTES
    if sequential:
        return 1.0 if m.objects <= objects else 0.0
    inner = max(m.onodes, m.kv_objects)
    if m.objects <= inner:
        return 1.0
    return max(0.0, min(1.0, (objects - inner) / (m.objects - inner)))


@dataclass(frozen=True, slots=True)
class WorkloadConfig:
    """What the clients do, as the simulator reads it: the direction of a job's I/Os and
    its image's blocks worked out once, here."""

    rw: str  #: fio's rw: write, randwrite, read, randread, rw, randrw
    bs: int
    iodepth: int
    numjobs: int
    rwmixread: int  #: rw/randrw: percentage of reads
    blocks: int  #: bs-sized blocks of one job's image (at least 1)
    blocks_per_object: int  #: block b of an image lies in object b // blocks_per_object
    engine: str  #: rbd, krbd, cephfs or rados
    sync_io: bool  #: a synchronous fio engine (psync): no slat, the submission is in clat
    image_state: str  #: "written" (overwrites) or "fresh" (never written: appends, no reads)
    random: bool  #: random offsets (randwrite, randread, randrw)
    mixed: bool  #: each I/O's direction drawn (rw, randrw)
    reads: bool  #: every I/O a read (read, randread)


def workload_config(w: Workload) -> WorkloadConfig:
    return WorkloadConfig(
        rw=w.rw, bs=w.bs, iodepth=w.iodepth, numjobs=w.numjobs, rwmixread=w.rwmixread,
        blocks=max(1, w.image_size // w.bs), blocks_per_object=w.blocks_per_object,
        engine=w.engine, sync_io=w.sync_io, image_state=w.image_state,
        random=w.random, mixed=w.mixed, reads=w.reads_only)


@dataclass(frozen=True, slots=True)
class PoolConfig:
    """The pool as placement and the write path read it."""

    size: int  #: copies, or k+m shards
    pg_num: int
    failure_domain: str  #: "host" or "osd"


@dataclass(frozen=True, slots=True)
class Resolved:
    """The fully explicit model handed to the simulator."""

    scenario: Scenario
    hosts: tuple[HostConfig, ...]
    network: NetworkConfig
    ceph: CephConfig
    clients: tuple[str, ...]
    osd_host: dict[int, str]  #: osd id -> host name
    workload: WorkloadConfig
    pool: PoolConfig
    monitors: Any = None  #: :class:`cephsim.monitors.scenario.MonitorSetup` or None

    def host(self, name: str) -> HostConfig:
        for h in self.hosts:
            if h.name == name:
                return h
        raise KeyError(name)

    def with_run(self, **changes: Any) -> Resolved:
        """The same model with ``scenario.run`` fields changed (run length, records...):
        nothing else depends on them, so nothing is resolved again."""
        run = self.scenario.run.model_copy(update=changes)
        return replace(self, scenario=self.scenario.model_copy(update={"run": run}))


def _pick(kind: str, value: Any, path: str) -> Any:
    if not isinstance(value, str):
        return value
    try:
        return load_catalog().get(kind, value)
    except CephsimError as e:
        for p in e.problems:
            p.path = p.path or path
        raise


def _limit_states(states: list[CState], limit: str | int | None, table: str,
                  path: str) -> list[CState]:
    """The states up to ``limit``: a name, or an index as processor.max_cstate=N counts
    (POLL plus the first N others)."""
    if limit is None:
        return states
    names = [s.name for s in states]
    if isinstance(limit, int) or (isinstance(limit, str) and limit.isdigit()):
        n = int(limit)
        has_poll = names[0].upper() == "POLL"
        return states[: n + (1 if has_poll else 0)] or states[:1]
    if limit not in names:
        raise CephsimError.single(
            f"max_cstate {limit!r} is not a state of {table} ({', '.join(names)})", path=path)
    return states[: names.index(limit) + 1]


def vm_states(vm: VirtualMachine, host: list[CState]) -> list[CState]:
    """A KVM guest's idle states as its vCPU lives them, shallowest first: the guest's
    haltpoll spin (POLL), HLT while the host halt-polls (a VM exit and entry), then HLT
    with the vCPU thread scheduled out and the host core in each of its own states
    (plus the host's wake-up of the thread).  Each is entered after the idle time the
    ones before it spin (drivers/cpuidle/cpuidle-haltpoll.c, virt/kvm/kvm_main.c
    kvm_vcpu_halt)."""
    gp, hp = vm.guest_halt_poll, vm.halt_poll

    def state(name: str, exit_ns: int, target: int, penalty: int) -> CState:
        # already validated durations (ns): built without re-parsing them
        return CState.model_construct(name=name, exit_latency_ns=exit_ns,
                                      target_residency_ns=target, wake_penalty_ns=penalty)

    out: list[CState] = []
    if gp > 0:
        out.append(state("POLL", 0, 0, 0))
    if hp > 0:
        out.append(state("HLT", vm.exit_entry, gp, vm.exit_entry))
    extra = vm.exit_entry + vm.host_wakeup
    for h in host:
        out.append(state(f"HLT+host-{h.name}", extra + h.exit_latency_ns,
                         gp + hp + h.target_residency_ns, extra + h.wake_penalty_ns))
    return out


def resolve_cpu(cpu: CPUModel, sockets: int, cstate_id: str | None, tuning: CPUTuning,
                path: str, cpu_path: str | None = None,
                tuning_path: str | None = None, vm: VirtualMachine | None = None) -> CPUConfig:
    """``path``: the host group; ``cpu_path``/``tuning_path`` (default ``path``.cpu and
    ``path``.tuning): where the CPU and its tuning are written, for errors."""
    # the group's own cstates override, else the CPU's (inline: at cpu.cstates)
    table = _pick("cstates", cstate_id or cpu.cstates,
                  f"{path}.cstates" if cstate_id else f"{cpu_path or path + '.cpu'}.cstates")
    states = list(table.states)
    if vm is not None:  # the host's states under a sleeping vCPU, then the guest's view
        states = _limit_states(states, vm.host_max_cstate, table.name, f"{path}.vm.host_max_cstate")
        states = vm_states(vm, states)
    states = _limit_states(states, tuning.max_cstate, table.name,
                           f"{tuning_path or path + '.tuning'}.max_cstate")
    max_hz = cpu.boost_clock_hz if tuning.boost else cpu.base_clock_hz
    # with boost off the clock is capped at base, which every core can hold at once (the
    # catalog keeps all_core_clock between base and boost)
    all_core = (cpu.all_core_clock_hz or max_hz) if tuning.boost else max_hz
    tpc = cpu.threads_per_core if tuning.smt else 1
    driver = tuning.cpufreq_driver
    if driver == "auto":
        driver = "intel_pstate" if cpu.vendor == "intel" else "acpi-cpufreq"
    governor = tuning.governor
    if vm is not None and governor == "auto":
        # a guest has no cpufreq: the host's governor sets the clock, unknown to the
        # guest; a cloud or virtualisation host is assumed to run it at full speed
        governor = "performance"
    if governor == "auto":  # the kernel's default policy for the driver
        governor = "schedutil" if driver == "acpi-cpufreq" else "powersave"
    if governor == "powersave" and driver != "acpi-cpufreq":
        # intel_pstate / amd-pstate-epp in active mode: 'powersave' lets the driver pick the
        # P-state from the load: the processor itself where it has HWP (Skylake and later)
        # or CPPC, intel_pstate's own get_target_pstate() before; only acpi-cpufreq's
        # powersave pins the minimum
        hwp = driver == "amd-pstate-epp" or cpu.microarch not in NO_HWP
        governor = "hwp" if hwp else "intel_pstate"
    return CPUConfig(model=cpu, cores=cpu.cores * sockets, cstates=tuple(states),
                     governor=governor, max_hz=max_hz, min_hz=cpu.min_clock_hz,
                     threads_per_core=tpc, smt_yield=cpu.smt_yield if tpc > 1 else 1.0,
                     all_core_hz=all_core,
                     cpufreq_driver=driver if vm is None else f"kvm guest (host {driver})",
                     idle_governor=tuning.cpuidle_governor if vm is None else "haltpoll")


def profile_path(scenario: Scenario, scenario_path: str | Path | None) -> Path | None:
    """The calibrated profile file ``ceph.profile`` names (relative to the scenario file,
    or to the working directory for a scenario without one); None if it names none."""
    name = scenario.ceph.profile
    if not name:
        return None
    base = Path(scenario_path).resolve().parent if scenario_path else Path.cwd()
    return base / name  # an absolute name stays itself


def write_mode(release: str, media: str, bs: int, version: str | None = None,
               image_state: str = "written") -> str:
    """BlueStore's choice for an aligned write of ``bs`` bytes: an overwrite of allocated
    space (``image_state`` written) or a write into unallocated space (fresh).

    As decided in ``src/os/bluestore/BlueStore.cc``: ``_do_write_data`` (small vs big
    write), ``_do_write_small``, ``BigDeferredWriteContext::can_defer`` and
    ``_do_alloc_write`` (deferred below ``bluestore_prefer_deferred_size``).  A write into
    unallocated space gets a new blob from ``_do_alloc_write``, which defers it only below
    ``prefer_deferred_size`` (0 on SSDs): on flash it goes direct whatever min_alloc_size.
    """
    if media != "hdd" and image_state == "fresh":
        return "direct"
    if media == "hdd":
        prefer = PREFER_DEFERRED_HDD.get(release, 65536)
        mas = MIN_ALLOC_HDD.get(release, 4096)
        # below prefer_deferred: deferred; below min_alloc: a small overwrite, always deferred
        return "deferred" if bs < max(prefer, mas) else "direct"
    # SSD: min_alloc 16 KiB (Luminous, Mimic, 14.2.0-14.2.7) makes a 4 KiB overwrite a
    # deferred small write
    old = release in MIN_ALLOC_SSD_16K or (
        release == "nautilus" and version is not None and _older_than(version, (14, 2, 8)))
    if old and bs < 16384:
        return "deferred"
    return "direct"


def _older_than(version: str, ref: tuple[int, ...]) -> bool:
    parts = _version_tuple(version)
    return parts is not None and parts < ref


def resolve(scenario: Scenario, scenario_path: str | Path | None = None) -> Resolved:
    """Turn a validated scenario into the explicit model (raises CephsimError)."""
    _check_memory(scenario)  # first: a cluster too large to simulate is refused before it is built
    hosts: list[HostConfig] = []
    osd_host: dict[int, str] = {}
    next_osd = 0
    index = 0
    hpl = scenario.network.topology.hosts_per_leaf
    for gi, g in enumerate(scenario.hosts):
        path = f"hosts.{gi}"
        cpu = _pick("cpus", g.cpu, f"{path}.cpu")
        cpucfg = resolve_cpu(cpu, g.sockets, g.cstates, g.tuning, path, vm=g.vm)
        nic = _pick("nics", g.nic, f"{path}.nic")
        disk = _pick("disks", g.osds.disk, f"{path}.osds.disk") if g.osds and g.osds.count else None
        db = (_pick("disks", g.osds.db_disk, f"{path}.osds.db_disk")
              if disk is not None and g.osds and g.osds.db_disk is not None else None)
        if g.osd_cores is not None and g.osd_cores > cpucfg.cores:
            raise CephsimError.single(
                f"osd_cores {g.osd_cores} is more than the host's {cpucfg.cores} cores",
                path=f"{path}.osd_cores")
        if g.osd_cpu_limit is not None and disk is None:
            raise CephsimError.single("osd_cpu_limit on a host group without OSDs",
                                      path=f"{path}.osd_cpu_limit")
        if g.osd_cpu_limit is not None and g.osd_cpu_limit * g.osd_cpu_period < 1_000_000:
            raise CephsimError.single(
                f"osd_cpu_limit {g.osd_cpu_limit} x osd_cpu_period gives a quota under 1 ms per "
                "period, the kernel's minimum (cpu.max)", path=f"{path}.osd_cpu_limit")
        if g.client_cores is not None:
            has_osds = disk is not None
            if has_osds and g.osd_cores is None:
                raise CephsimError.single(
                    "client_cores on a host with OSDs needs osd_cores too (two cpusets that do "
                    "not overlap); without osd_cores the OSDs share every core with the clients",
                    path=f"{path}.client_cores")
            used = g.client_cores + (g.osd_cores if has_osds and g.osd_cores is not None else 0)
            if used > cpucfg.cores:
                raise CephsimError.single(
                    f"client_cores {g.client_cores}"
                    + (f" + osd_cores {g.osd_cores}" if has_osds else "")
                    + f" is more than the host's {cpucfg.cores} cores", path=f"{path}.client_cores")
        for i in range(g.count):
            name = f"{g.name}{i}"
            ids: tuple[int, ...] = ()
            if disk is not None and g.osds:
                ids = tuple(range(next_osd, next_osd + g.osds.count))
                next_osd += g.osds.count
                for o in ids:
                    osd_host[o] = name
            hosts.append(HostConfig(name=name, group=g.name, cpu=cpucfg, nic=nic, bond=g.bond,
                                    disk=disk, osd_ids=ids, osd_cores=g.osd_cores,
                                    netem=g.netem, leaf=index // hpl,
                                    client_cores=g.client_cores, db_disk=db,
                                    crypt_sector=(g.osds.crypt_sector_size if disk is not None and g.osds
                                                  and g.osds.encryption == "luks" else 0),
                                    osd_cpu_limit=g.osd_cpu_limit if ids else None,
                                    osd_cpu_period=g.osd_cpu_period,
                                    db_devices=g.osds.db_devices if db is not None and g.osds else 0,
                                    osds_per_device=g.osds.per_device if disk is not None and g.osds else 1,
                                    memory=(g.memory if g.memory is not None or disk is None
                                            or not ids else assumed_memory(disk.media, len(ids))),
                                    memory_given=g.memory is not None))
            index += 1

    topo = scenario.network.topology
    switch = _pick("switches", topo.switch, "network.topology.switch")
    switch_forwards = topo.kind == "switch" or (topo.kind == "leaf-spine" and topo.hosts_per_leaf > 1)
    if switch.forwarding == "software" and switch_forwards:
        # only a spine has a CPU that forwards (cephsim.model.components.cluster); as the switch
        # or a leaf the box would be a fixed latency, its C-states and clock ignored
        label = topo.switch if isinstance(topo.switch, str) else switch.name
        raise CephsimError.single(
            f"{label!r} forwards in software, which is modelled for a spine only (as the "
            "switch its CPU would be ignored): use kind: leaf-spine with it as the spine, "
            "spines: 1, hosts_per_leaf: 1", path="network.topology.switch")
    spine = spine_cpu = None
    if topo.kind == "leaf-spine":
        if topo.spine is None:
            raise CephsimError.single("leaf-spine topology needs a spine model",
                                      path="network.topology.spine")
        spine = _pick("switches", topo.spine, "network.topology.spine")
        if spine.forwarding == "software":
            if not spine.cpu:
                raise CephsimError.single("a software router needs "
                        "a cpu", path="network.topology.spine")
            rcpu = _pick("cpus", spine.cpu, "network.topology.spine.cpu")
            spine_cpu = resolve_cpu(rcpu, 1, None, topo.spine_tuning or CPUTuning(governor=
                    "ondemand"),
                                    "network.topology.spine", "network.topology.spine.cpu",
                                    "network.topology.spine_tuning")
    if topo.kind == "mesh" and topo.mesh_mode == "broadcast" and \
            len({h.nic.speed_bps for h in hosts}) > 1:
        # every frame goes out on every port, each at its own cable's rate: with mixed
        # speeds the ports no longer carry one shared stream, which is not modelled
        raise CephsimError.single("a broadcast mesh needs one NIC speed on every host "
                                  "(use mesh_mode: routed)", path="network.topology.mesh_mode")
    links: dict[tuple[str, str], Netem] = {}
    for ln in scenario.network.links:
        imp = Netem.model_construct(delay=ln.delay, jitter=ln.jitter, distribution=ln.distribution,
                                    loss=ln.loss)  # already validated as part of the scenario
        links[(ln.src, ln.dst)] = imp
        if ln.both_ways:
            links.setdefault((ln.dst, ln.src), imp)
    _add_site_links(scenario, hosts, links)
    _check_loss(scenario, hosts, links)
    net = NetworkConfig(mtu=scenario.network.mtu, kind=topo.kind, switch=switch, spine=spine,
                        spine_cpu=spine_cpu, link_netem=links, tcp=scenario.network.tcp,
                        mesh_mode=topo.mesh_mode, spines=topo.spines,
                        hosts_per_leaf=topo.hosts_per_leaf)

    ceph = scenario.ceph
    media = "hdd" if any(h.disk and h.disk.media == "hdd" for h in hosts) else "ssd"
    shards, threads = OP_SHARDS_BY_RELEASE.get((ceph.release, media), OP_SHARDS[media])
    profile = profile_path(scenario, scenario_path)
    if profile is not None and not profile.exists():  # the scenario's (or a --set's) slip
        raise CephsimError.single(f"no such profile file {profile}", path="ceph.profile")
    build = build_effect(ceph.build, ceph.release, ceph.version)
    costs = release_costs(ceph.release, profile, ceph.software or None, build.scaled)
    _check_cpu_speed(scenario, hosts, costs)
    dlevels = debug_levels(ceph.release, ceph.debug_logging == "off", ceph.debug, ceph.version)
    clients = tuple(scenario.workload.clients or ())
    if not clients:
        free = [h.name for h in hosts if not h.osd_ids]
        clients = (free[0],) if free else (hosts[0].name,)
    hosts = _page_caches(scenario, hosts, clients, media)
    cephcfg = CephConfig(
        release=ceph.release, debug_logging=ceph.debug_logging,
        op_shards=ceph.op_shards or shards, threads_per_shard=ceph.op_threads_per_shard or threads,
        msgr_workers=ceph.ms_async_op_threads,
        librbd_threads=ceph.librbd_threads or LIBRBD_THREADS.get(ceph.release, 2),
        write_mode=write_mode(ceph.release, media, scenario.workload.bs, ceph.version,
                              scenario.workload.image_state),
        costs=costs, tails=ceph.tails, build=build,
        wal_log_sync=(ceph.release not in WAL_RECYCLED | WAL_ENVELOPE)
        if ceph.wal_log_sync is None else ceph.wal_log_sync,
        commit_finisher=ceph.release in COMMIT_FINISHER,
        # a read of a never-written block finds no object (ENOENT, which librbd turns into
        # zeros): the op runs, no device is read, as for a cache hit
        read_cache_hit=1.0 if scenario.workload.image_state == "fresh" else
        read_cache_hit(scenario.workload.read_cache, ceph.osd_memory_target,
                       next_osd, scenario.workload.numjobs * scenario.workload.image_size),
        meta=_meta_cache(scenario, media, next_osd, hosts),
        debug_lines=lines_per_stage(dlevels), debug_levels=dlevels,
        ec=_ec(scenario),
        **_wire(scenario))

    pool = scenario.pool
    return Resolved(scenario=scenario, hosts=tuple(hosts), network=net, ceph=cephcfg,
                    clients=clients, osd_host=osd_host,
                    workload=workload_config(scenario.workload),
                    pool=PoolConfig(size=pool.size, pg_num=pool.pg_num,
                                    failure_domain=pool.failure_domain),
                    monitors=monitor_setup(scenario, clients))


#: releases whose daemons and clients speak msgr v1 only (msgr2 came with Nautilus)
MSGR_V1_ONLY = {"luminous", "mimic"}


def _wire(scenario: Scenario) -> dict[str, str]:
    """What a message pays for on each kind of connection: msgr2's mode, or on msgr v1
    (Luminous and Mimic; kernel clients mapped with ms_mode=legacy, their default) a
    cephx signature when cephx_sign_messages is on."""
    ceph, w = scenario.ceph, scenario.workload
    v1 = "signed" if ceph.cephx_sign_messages else "none"
    v2 = "secure" if ceph.ms_mode == "secure" else "none"
    cluster = v1 if ceph.release in MSGR_V1_ONLY else v2
    if w.engine in ("krbd", "cephfs"):
        mode = w.kernel_ms_mode or "legacy"
        client = v1 if mode == "legacy" else ("secure" if mode == "secure" else "none")
    else:
        client = cluster
    return {"client_wire": client, "cluster_wire": cluster}


def _ec(scenario: Scenario) -> EcConfig | None:
    """The pool's erasure code (None: replicated); k, m and technique are set by the
    schema for an erasure-coded pool."""
    pool = scenario.pool
    if pool.type != "erasure":
        return None
    assert pool.k is not None and pool.m is not None and pool.technique is not None
    return EcConfig(k=pool.k, m=pool.m, stripe_unit=pool.stripe_unit, plugin=pool.plugin,
                    technique=pool.technique, optimized=pool.ec_optimizations)


def _page_caches(scenario: Scenario, hosts: list[HostConfig], clients: tuple[str, ...],
                 media: str) -> list[HostConfig]:
    """Each host with the page cache its memory leaves (:func:`page_cache_bytes`): the
    OSDs' RSS, the fio jobs it runs (jobs go to the clients round-robin) and the base."""
    w, ceph = scenario.workload, scenario.ceph
    rss = osd_rss(ceph.release, media, ceph.osd_memory_target, ceph.bluestore_cache_size)
    jobs = [clients[j % len(clients)] for j in range(w.numjobs)]
    return [replace(h, page_cache=page_cache_bytes(h.memory, len(h.osd_ids), rss,
                                                   jobs.count(h.name)))
            if h.memory is not None else h for h in hosts]


def _meta_cache(scenario: Scenario, media: str, n_osds: int,
                hosts: list[HostConfig]) -> MetaCache | None:
    """The metadata caches against this workload's objects; None when there is no OSD.
    A fresh image has no metadata to find: a write creates its object (RocksDB's bloom
    filter answers the lookup without a read) and a read finds no object.  With BlueFS's
    buffered reads, each host's page cache is shared by its OSDs' DB reads: an OSD's share
    is the host's page cache over its OSDs."""
    w, ceph = scenario.workload, scenario.ceph
    if n_osds == 0:
        return None
    reads_only = w.reads_only
    # writes touch every copy (every shard of an EC pool); reads the primary's copy, or
    # an EC pool's k data shards
    pool = scenario.pool
    copies = (pool.size if not reads_only else
              (pool.k or 0) if pool.type == "erasure" else 1)
    objects = w.numjobs * -(-w.image_size // w.object_size) * copies / n_osds
    if w.image_state == "fresh":
        objects = 0.0
    m = meta_cache(ceph.release, media, ceph.osd_memory_target, ceph.bluestore_cache_size,
                   objects, writes_only=w.writes_only, sequential=not w.random)
    buffered = (ceph.bluefs_buffered_io if ceph.bluefs_buffered_io is not None else
                bluefs_buffered_io_default(ceph.release, ceph.version)[0])
    sequential = not w.random
    page = {h.name: page_cache_hit(m, h.page_cache // len(h.osd_ids), sequential)
            if buffered else 0.0 for h in hosts if h.osd_ids}
    m = replace(m, buffered_io=buffered, page_hit=page)
    if w.metadata_cache == "cold" and objects > 0:  # the first touch since the hosts started
        m = replace(m, onode_hit=0.0, kv_hit=0.0, page_hit=dict.fromkeys(page, 0.0))
    return m


#: the longest one write's CPU work may take on a host's slowest clock: a quarter of the
#: run's stall watchdog (runner.STALL_NS, 1h without a completed I/O ends the run as a
#: model fault), leaving room for queueing and the per-stage jitter
MAX_WRITE_CPU_NS = 900 * 10**9


def _check_cpu_speed(scenario: Scenario, hosts: list[HostConfig], costs: ReleaseCosts) -> None:
    """An inline CPU so slow (per_clock_speed, min_clock) that one write's CPU work would
    outlast the run's stall watchdog: refused here, not as a 'model stalled' after the run."""
    work_kc = sum(costs.cost(s) for s in costs.kcycles)  # every stage once: an upper bound
    seen: set[str] = set()
    for h in hosts:
        if h.group in seen:
            continue
        seen.add(h.group)
        m = h.cpu.model
        ns = work_kc * 1e3 / (h.cpu.min_hz * m.per_clock_speed) * 1e9
        if ns > MAX_WRITE_CPU_NS:
            gi = next(i for i, g in enumerate(scenario.hosts) if g.name == h.group)
            raise CephsimError.single(
                f"per_clock_speed {m.per_clock_speed:g} at min_clock "
                f"{h.cpu.min_hz / 1e9:g}GHz makes one write's CPU work ({work_kc:.0f} kcycles) "
                f"take about {format_span(int(min(ns, 1e18)))}, over the "
                f"{format_span(MAX_WRITE_CPU_NS)} a run allows (per_clock_speed is relative to "
                "Zen 2 = 1.0)",
                path=f"hosts.{gi}.cpu" + ("" if isinstance(scenario.hosts[gi].cpu, str)
                                          else ".per_clock_speed"))


#: what a run holds in memory, measured with `cephsim run -q` on the quickstart (peak RSS,
#: /usr/bin/time, compiled build, 1,000 I/Os): ~65 MB for one OSD host; per I/O in flight
#: ~9 KiB (its process, events, buffers: 99 MB at 4,096 in flight, 205 MB at 16,384 with
#: 32,768 ops kept); per OSD ~180 KiB (its threads, queues, caches: 141 MB at 10 hosts x 24
#: OSDs, 554 MB at 100 x 24); per host core ~16 KiB (240 one-OSD hosts of 16 cores: 201 MB);
#: per OSD and PG of the pool ~16 bytes (100 x 24 OSDs: 554 MB at 128 PGs, 814 MB at 8,192);
#: ~0.2 KiB per op kept for the library's per-op arrays
MEMORY_BASE_BYTES = 64 * 1024**2
MEMORY_PER_INFLIGHT = 9 * 1024
MEMORY_PER_RECORD = 200
MEMORY_PER_OSD = 180 * 1024
MEMORY_PER_CORE = 16 * 1024
MEMORY_PER_OSD_PG = 16


def cluster_size(scenario: Scenario) -> tuple[int, int, int]:
    """Hosts, OSDs and physical cores the scenario asks for, from its host groups alone."""
    hosts = osds = cores = 0
    for gi, g in enumerate(scenario.hosts):
        hosts += g.count
        osds += g.count * (g.osds.count if g.osds else 0)
        cores += g.count * g.sockets * _pick("cpus", g.cpu, f"hosts.{gi}.cpu").cores
    return hosts, osds, cores


def _memory_parts(scenario: Scenario) -> tuple[int, int, int, int]:
    """The estimate's three parts that a user can lower: the OSDs' (with their PGs), the
    I/Os in flight and the per-op records kept; then the rest (interpreter, hosts' cores)."""
    w, run = scenario.workload, scenario.run
    records = (run.ios or 0) + run.ramp_ios if run.records else 0
    _, osds, cores = cluster_size(scenario)
    return (osds * (MEMORY_PER_OSD + scenario.pool.pg_num * MEMORY_PER_OSD_PG),
            w.iodepth * w.numjobs * MEMORY_PER_INFLIGHT,
            records * MEMORY_PER_RECORD,
            MEMORY_BASE_BYTES + cores * MEMORY_PER_CORE)


def memory_estimate(scenario: Scenario) -> int:
    """Bytes a run of ``scenario`` needs, by the measured costs above: the cluster it builds
    (hosts' cores, OSDs, their PGs), the I/Os in flight and the ops kept."""
    return sum(_memory_parts(scenario))


def _check_memory(scenario: Scenario) -> None:
    cluster, flight, kept, rest = _memory_parts(scenario)
    need = cluster + flight + kept + rest
    if need <= scenario.run.max_memory:
        return
    w, run = scenario.workload, scenario.run
    hosts, osds, _ = cluster_size(scenario)
    inflight = w.iodepth * w.numjobs
    # say what weighs most, and what to lower
    if kept > cluster and kept > flight:
        raise CephsimError.single(
            f"{(run.ios or 0) + run.ramp_ios:,} I/Os with their per-op records (run.ios "
            f"{run.ios or 0:,} + run.ramp_ios {run.ramp_ios:,}, ~{MEMORY_PER_RECORD} bytes "
            f"each) need about {need / 2**30:.1f} GiB of memory, over run.max_memory "
            f"{format_size(run.max_memory)}: set run.records=false (the statistics do not "
            "depend on them; the per-op stage breakdown is left out), lower run.ios, or raise "
            "run.max_memory", path="run.ios")
    if cluster >= flight:
        raise CephsimError.single(
            f"a cluster of {hosts:,} hosts and {osds:,} OSDs ({scenario.pool.pg_num:,} PGs) "
            f"needs about {need / 2**30:.1f} GiB of memory to simulate, over run.max_memory "
            f"{format_size(scenario.run.max_memory)}: model fewer hosts or OSDs (a slice of the "
            "cluster with its per-OSD load gives the same latency), or raise run.max_memory",
            path="hosts")
    raise CephsimError.single(
        f"{w.iodepth} x {w.numjobs} = {inflight:,} I/Os in flight "
        f"(and {scenario.run.ios or 0:,} I/Os recorded) need about {need / 2**30:.1f} GiB of "
        f"memory, over run.max_memory {format_size(scenario.run.max_memory)}: lower "
        "workload.iodepth or workload.numjobs (or run.ios), or raise run.max_memory",
        path="workload.iodepth")


def _loss_source(scenario: Scenario, hosts: dict[str, HostConfig], a: str, b: str,
                 links: dict[tuple[str, str], Netem]) -> str:
    """The field that brings the larger share of the loss from host ``a`` to ``b``."""
    own = hosts[a].netem.loss if hosts[a].netem is not None else 0.0
    link = links[(a, b)].loss if (a, b) in links else 0.0
    if own >= link:
        gi = next(i for i, g in enumerate(scenario.hosts) if g.name == hosts[a].group)
        return f"hosts.{gi}.netem.loss"
    for i, ln in enumerate(scenario.network.links):
        if (ln.src, ln.dst) == (a, b) or (ln.both_ways and (ln.dst, ln.src) == (a, b)):
            return f"network.links.{i}.loss"
    if scenario.sites is not None:  # the WAN between the two hosts' sites
        site = {g.name: g.site for g in scenario.hosts}
        pair = {site[hosts[a].group], site[hosts[b].group]}
        for i, sl in enumerate(scenario.sites.links):
            if set(sl.between) == pair:
                return f"sites.links.{i}.loss"
    return "sites.links"


def _odds(p: float) -> str:
    return f"{p * 100:.3g}% of the time" if p >= 0.01 else f"once in {1 / p:,.0f} messages"


def _check_loss(scenario: Scenario, hosts: list[HostConfig],
                links: dict[tuple[str, str], Netem]) -> None:
    """Refuse a loss rate the modelled cluster would not survive as modelled (see
    MAX_HEARTBEAT_MISSES_PER_HOUR)."""
    by_name = {h.name: h for h in hosts}

    def loss(a: str, b: str) -> float:
        kept = 1.0
        for imp in (by_name[a].netem, links.get((a, b))):
            if imp is not None:
                kept *= 1.0 - imp.loss
        return 1.0 - kept

    worst: tuple[float, str, str] | None = None
    for a in hosts:
        for b in hosts:
            if a.name == b.name:
                continue
            ab = loss(a.name, b.name)
            if ab > 0 and tcp_give_up(ab) > MAX_TCP_GIVE_UP and (worst is None or ab > worst[0]):
                worst = (ab, a.name, b.name)
    if worst is not None:
        ab, a, b = worst
        raise CephsimError.single(
            f"{ab * 100:.3g}% loss from {a} to {b}: a message and all {TCP_RETRIES2} resends "
            f"(tcp_retries2) would be lost {_odds(tcp_give_up(ab))}, and after "
            f"~{resend_wait_s(TCP_RETRIES2) / 60:.0f} min TCP would drop the "
            "connection; Ceph's reconnect and resend are not modelled, so the model takes "
            f"loss below {tcp_give_up_limit() * 100:.0f}% on a path",
            path=_loss_source(scenario, by_name, a, b, links))
    osd_hosts = [h.name for h in hosts if h.osd_ids]
    for i, a in enumerate(osd_hosts):
        for b in osd_hosts[i + 1:]:
            ab, ba = loss(a, b), loss(b, a)
            if ab == 0.0 and ba == 0.0:
                continue
            rate = heartbeat_misses_per_hour(ab, ba)
            if rate >= MAX_HEARTBEAT_MISSES_PER_HOUR:
                src = (a, b) if ab >= ba else (b, a)
                raise CephsimError.single(
                    f"{ab * 100:.3g}% loss from {a} to {b} and {ba * 100:.3g}% back: about "
                    f"{rate:.3g} times an hour a heartbeat ping or its reply would wait for "
                    f"TCP's resends past osd_heartbeat_grace ({OSD_HEARTBEAT_GRACE_S:.0f} s), "
                    "and the OSDs would be reported down and the PGs re-peered, which the model "
                    "does not simulate; lower the loss between OSD hosts (once an hour is "
                    f"{heartbeat_loss_limit() * 100:.0f}% each way)",
                    path=_loss_source(scenario, by_name, *src, links))


def _add_site_links(scenario: Scenario, hosts: list[HostConfig],
                    links: dict[tuple[str, str], Netem]) -> None:
    """Multi-site: every host pair at two linked sites gets the inter-site netem (rtt/2 each
    way), stacked on any ``network.links`` entry of that pair (delays add)."""
    sites = scenario.sites
    if sites is None or not sites.links:
        return

    site_of = {g.name: g.site for g in scenario.hosts}
    for a in hosts:
        for b in hosts:
            if a.name == b.name:
                continue
            sl = sites.link(site_of[a.group], site_of[b.group])
            if sl is None:
                continue
            imp = combine([links.get((a.name, b.name)), site_hop(sl)])
            links[(a.name, b.name)] = Netem.model_construct(
                delay=imp.delay, jitter=imp.jitter, distribution=imp.distribution, loss=imp.loss)


def resolved_dict(r: Resolved) -> dict[str, Any]:
    """Plain-data dump of the resolved model, for result files."""

    def cpu(c: CPUConfig | None) -> Any:
        if c is None:
            return None
        return {
            "model": c.model.model_dump(mode="json", by_alias=True, exclude={"sources"}),
            "cores": c.cores,
            "allowed_cstates": [s.model_dump(mode="json", by_alias=True) for s in c.cstates],
            "governor": c.governor,
            "cpufreq_driver": c.cpufreq_driver,
            "max_hz": c.max_hz,
            "min_hz": c.min_hz,
            "threads_per_core": c.threads_per_core,
            "smt_yield": c.smt_yield,
            "all_core_hz": c.all_core_hz,
        }

    def model(m: Any) -> Any:
        return None if m is None else m.model_dump(mode="json", by_alias=True, exclude={"sources"})

    return {
        "hosts": [{"name": h.name, "group": h.group, "cpu": cpu(h.cpu), "nic": model(h.nic),
                   "bond": h.bond, "disk": model(h.disk), "db_disk": model(h.db_disk),
                   "db_devices": h.db_devices, "osds_per_device": h.osds_per_device,
                   "osd_ids": list(h.osd_ids),
                   "osd_cores": h.osd_cores, "client_cores": h.client_cores,
                   **({"crypt_sector": h.crypt_sector} if h.crypt_sector else {}),
                   **({"osd_cpu_limit": h.osd_cpu_limit, "osd_cpu_period": h.osd_cpu_period}
                      if h.osd_cpu_limit is not None else {}),
                   **({"memory": h.memory, "memory_given": h.memory_given,
                       "page_cache": h.page_cache} if h.memory is not None else {}),
                   "netem": model(h.netem), "leaf": h.leaf}
                  for h in r.hosts],
        "network": {"mtu": r.network.mtu, "kind": r.network.kind,
                    **({"mesh_mode": r.network.mesh_mode} if r.network.kind == "mesh" else {}),
                    "switch": model(r.network.switch) if r.network.kind != "mesh" else None,
                    "spine": model(r.network.spine), "spine_cpu": cpu(r.network.spine_cpu),
                    "links": [{"from": a, "to": b, **model(n)} for (a, b), n in r.network.link_netem.items()],
                    "tcp": model(r.network.tcp)},
        "ceph": {"release": r.ceph.release, "debug_logging": r.ceph.debug_logging,
                 "op_shards": r.ceph.op_shards, "threads_per_shard": r.ceph.threads_per_shard,
                 "msgr_workers": r.ceph.msgr_workers, "librbd_threads": r.ceph.librbd_threads,
                 "write_mode": r.ceph.write_mode, "wal_log_sync": r.ceph.wal_log_sync,
                 "commit_finisher": r.ceph.commit_finisher,
                 "read_cache_hit": r.ceph.read_cache_hit,
                 "metadata_cache": (None if r.ceph.meta is None else
                                    {f: getattr(r.ceph.meta, f) for f in r.ceph.meta.__slots__}),
                 "client_wire": r.ceph.client_wire, "cluster_wire": r.ceph.cluster_wire,
                 "debug_levels": {s: f"{a}/{b}" for s, (a, b) in r.ceph.debug_levels.items()},
                 "debug_lines": r.ceph.debug_lines,
                 "costs": r.ceph.costs.model_dump(mode="json"), "tails": r.ceph.tails},
        "clients": list(r.clients),
        "monitors": r.monitors.describe() if r.monitors is not None else None,
        "scenario": r.scenario.model_dump(mode="json", by_alias=True),
    }
