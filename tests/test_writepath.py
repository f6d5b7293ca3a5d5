"""The write (and read) path, checked against a latency computed by hand.

``tests/scenarios/constant.yaml`` makes every service time constant: a 1 GHz
CPU with per-clock 1.0 (so 1 kilocycle = 1 us), only the POLL idle state (no
wake-up penalty), the ``performance`` governor (fixed clock), constant disk,
NIC and switch latencies, no CPU jitter, no background stalls, debug logging
off, one thread per op shard (no spurious notify_all wake-ups) and plenty of
cores (no core contention).  With one client at queue depth 1 every I/O then
takes exactly the same time, and that time is the sum written out below,
stage by stage, from the protocol in ``cephsim/model/writepath.py``:

- every hand-off to a sleeping thread also costs ``kernel.wakeup`` kcycles;
  work that a thread simply continues (``handoff=False``) does not;
- a CPU stage of ``k`` kcycles lasts ``int(k*1e3/(f*per_clock)*1e9 + 0.5)`` ns
  (rounded per stage, as ``Thread.run`` does);
- a message of ``n`` bytes: NIC tx latency, then the cut-through switch's latency
  (first bit in to first bit out), then the whole message on the egress port
  (``int(wire*8e9/bps + 0.5)``), then NIC rx latency; ``wire = n + 90*frames``
  with ``frames = ceil(n / (mtu - 52))``.  A store-and-forward switch also waits
  for the first frame (``int(first*8e9/bps)``, truncated) and no more: frames
  pipeline.

The hand sum is written independently of the simulator's code: if a stage is
dropped, charged twice, gets a wake-up it should not have, or the rounding
changes, the equality fails.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from cephsim.model.runner import run_scenario
from cephsim.scenario.load import load_scenario

HERE = Path(__file__).parent
CONSTANT = HERE / "scenarios" / "constant.yaml"

# --- the numbers of tests/scenarios/constant.yaml and profiles/constant.yaml
KC = {
    "client.submit": 8, "client.librbd": 26, "client.librbd_write": 7, "client.msgr_send": 12,
    "client.msgr_recv": 11, "client.finisher": 9, "client.complete": 5, "osd.msgr_recv": 18,
            "osd.do_op": 80,
    "osd.repop_send": 14, "osd.bluestore_submit": 45, "osd.aio_complete": 9.5, "osd.kv_sync": 9,
    "osd.kv_apply": 28,
    "osd.kv_final": 14, "osd.commit_cb": 12, "osd.repop_reply": 10, "osd.reply_send": 16,
    "osd.do_repop": 42, "osd.repop_commit": 24, "osd.do_read": 70, "kernel.wakeup": 3,
    "kernel.tcp_tx": 7, "kernel.tcp_rx": 9, "kernel.per_kib": 0.5, "kernel.io_submit": 4,
    "kernel.io_complete": 3.25, "kernel.crypt_queue": 2, "kernel.crypt_sector": 0.5,
    "kernel.crypt_per_kib": 1, "osd.meta_get": 6, "crypto.secure_frame": 1.5,
    "crypto.secure_per_kib": 0.75, "crypto.sign_msg": 1.25, "log.line": 0.5,
}
HZ, PER_CLOCK = 1e9, 1.0
DISK_WRITE, DISK_FLUSH, DISK_READ = 20_000, 7_000, 50_000
NIC_TX, NIC_RX, NIC_BPS = 2_000, 3_000, 10e9
SWITCH_LAT = 500  # switch port 25G, but the egress towards a 10G host runs at 10G
MTU = 1500
BS = 4096
OSDOP_HDR, REPOP_HDR, REPLY = 300, 600, 250


def cpu(kcycles: float, woken: bool = True) -> int:
    """Duration of one thread run (ns); a woken thread pays kernel.wakeup first."""
    if woken:
        kcycles += KC["kernel.wakeup"]
    return int(kcycles * 1e3 / (HZ * PER_CLOCK) * 1e9 + 0.5)


def kc(stage: str, nbytes: int = 0) -> float:
    k = float(KC[stage])
    if nbytes:
        k += KC["kernel.per_kib"] * nbytes / 1024.0
    return k


def wire(n: int) -> tuple[int, int]:
    """(serialisation time of the whole message, time until the first frame's header is out)."""
    frames = max(1, math.ceil(n / (MTU - 52)))
    w = n + frames * 90
    first = min(n, MTU - 52) + 90
    return int(w * 8e9 / NIC_BPS + 0.5), int(first * 8e9 / NIC_BPS)


def net(n: int) -> int:
    """One message through NIC, cut-through switch, NIC (no queueing)."""
    ser, _ = wire(n)
    return NIC_TX + SWITCH_LAT + ser + NIC_RX


def bluestore(wal_log_sync: bool = True, db: tuple[int, int] | None = None) -> int:
    """From queue_transactions (continued by the shard thread) to the end of kv_final.

    ``wal_log_sync``: the WAL file grows with every commit (Pacific and later: RocksDB no
    longer recycles WAL files), so BlueFS's fsync also writes and flushes its own log.
    ``db``: (write, flush) of a separate DB device, which takes the WAL and the log; the
    data write and its flush stay on the data disk.
    """
    wal_write, wal_flush = db or (DISK_WRITE, DISK_FLUSH)
    t = cpu(kc("osd.bluestore_submit") + kc("kernel.io_submit"), woken=False)
    t += DISK_WRITE                                                       # data aio
    t += cpu(kc("osd.aio_complete") + kc("kernel.io_complete"))          # bstore_aio
    # one bstore_kv_sync cycle with a single txc
    t += cpu(kc("osd.kv_sync") * 0.5)
    t += DISK_FLUSH                                                       # bdev flush
    t += cpu(kc("kernel.io_complete") + kc("osd.kv_apply"))              # the txc into RocksDB
    t += wal_write                                                        # BlueFS WAL 4 KiB
    t += cpu(kc("kernel.io_complete"))                                   # bluefs aio thread
    t += cpu(0.0)                                                         # kv_sync woken
    t += wal_flush                                                        # BlueFS fsync
    if wal_log_sync:                                                      # _flush_and_sync_log
        t += cpu(kc("kernel.io_complete") + kc("kernel.io_submit"))     # back from fdatasync
        t += wal_write                                                    # BlueFS log 4 KiB
        t += cpu(kc("kernel.io_complete"))                               # bluefs aio thread
        t += cpu(0.0)                                                     # kv_sync woken
        t += wal_flush
    t += cpu(kc("kernel.io_complete") + kc("osd.kv_sync") * 0.5)
    t += cpu(kc("osd.kv_final"))                                         # bstore_kv_final
    return t


def client_send(out: int) -> int:
    """fio's submit, the librbd dispatch thread (with its write-only layers for a write:
    ``out`` carries the data), the msgr-worker's send."""
    librbd = kc("client.librbd") + (kc("client.librbd_write") if out > OSDOP_HDR else 0)
    return (cpu(kc("client.submit"), woken=False) + cpu(librbd)
            + cpu(kc("client.msgr_send") + kc("kernel.tcp_tx", out)))


def client_recv(back: int) -> int:
    return (cpu(kc("client.msgr_recv") + kc("kernel.tcp_rx", back)) + cpu(kc("client.finisher"))
            + cpu(kc("client.complete")))


def expected_write_size1(wal_log_sync: bool = True, db: tuple[int, int] | None = None) -> int:
    out = OSDOP_HDR + BS
    t = client_send(out) + net(out)
    t += cpu(kc("osd.msgr_recv") + kc("kernel.tcp_rx", out))            # primary msgr-worker
    t += cpu(kc("osd.do_op"))                                            # tp_osd_tp
    t += bluestore(wal_log_sync, db)
    t += cpu(kc("osd.commit_cb"))                                        # shard thread woken again
    t += cpu(kc("osd.reply_send") + kc("kernel.tcp_tx", REPLY))
    t += net(REPLY)
    return t + client_recv(REPLY)


def expected_write_size3() -> int:
    """Two replicas in parallel with the local commit.

    Contention that exists even at queue depth 1: both MOSDRepOps leave the
    primary's NIC at the same instant, so the second waits one serialisation
    time on the uplink; the second reply then finds the primary's (single)
    shard thread busy with the first reply's repop_reply and runs right after
    it (the PG lock is released at that same instant, so the thread counts as
    woken again).  The local commit finishes long before the replies arrive.
    """
    out = OSDOP_HDR + BS
    t = client_send(out) + net(out)
    t += cpu(kc("osd.msgr_recv") + kc("kernel.tcp_rx", out))
    t += cpu(kc("osd.do_op"))
    t_fork = t
    rep = REPOP_HDR + BS
    # first replica branch
    t = t_fork + cpu(kc("osd.repop_send", rep) + kc("kernel.tcp_tx", rep))
    t += net(rep)
    t += cpu(kc("osd.msgr_recv") + kc("kernel.tcp_rx", rep))           # replica msgr-worker
    t += cpu(kc("osd.do_repop"))                                         # replica tp_osd_tp
    t += bluestore()
    t += cpu(kc("osd.repop_commit"))
    t += cpu(kc("kernel.tcp_tx", REPLY))
    t += net(REPLY)
    t += cpu(kc("osd.msgr_recv") + kc("kernel.tcp_rx", REPLY))         # primary msgr-worker
    first_reply_done = t + cpu(kc("osd.repop_reply"))
    # the second replica's reply arrives one repop serialisation later and is decoded on
    # the msgr-worker of its own connection, in parallel; it reaches the shard thread
    # while the first repop_reply is still running (asserted so the formula stays honest)
    second_arrives = t + wire(rep)[0]
    assert second_arrives - t < cpu(kc("osd.repop_reply"))
    local = t_fork + bluestore() + cpu(kc("osd.commit_cb"))
    assert local < second_arrives
    t = first_reply_done + cpu(kc("osd.repop_reply"))
    t += cpu(kc("osd.reply_send") + kc("kernel.tcp_tx", REPLY))
    t += net(REPLY)
    return t + client_recv(REPLY)


def expected_read_size1() -> int:
    out = OSDOP_HDR
    back = REPLY + BS
    t = client_send(out) + net(out)
    t += cpu(kc("osd.msgr_recv") + kc("kernel.tcp_rx", out))
    t += cpu(kc("osd.do_read") + kc("kernel.io_submit"))
    t += DISK_READ
    t += cpu(kc("kernel.io_complete"))                                  # shard thread wakes on completion
    t += cpu(kc("osd.reply_send") + kc("kernel.tcp_tx", BS))            # per-KiB on the payload only
    t += net(back)
    return t + client_recv(back)


def expected_read_size1_cached() -> int:
    """A read that finds its data in BlueStore's buffer cache: no device I/O, so neither
    the io_submit/io_complete kernel work nor the shard thread's wake-up on completion."""
    out = OSDOP_HDR
    back = REPLY + BS
    t = client_send(out) + net(out)
    t += cpu(kc("osd.msgr_recv") + kc("kernel.tcp_rx", out))
    t += cpu(kc("osd.do_read"))
    t += cpu(kc("osd.reply_send") + kc("kernel.tcp_tx", BS))
    t += net(back)
    return t + client_recv(back)


def _run(*overrides: str):
    sc = load_scenario(CONSTANT, list(overrides))
    res = run_scenario(sc, scenario_path=CONSTANT)
    return res, res.records.arrays()


def test_constant_scenario_is_really_constant():
    res, a = _run()
    assert res.resolved.ceph.costs.cpu_jitter_sigma == 0.0
    assert res.resolved.ceph.tails is False
    assert [s.wake_penalty_ns for s in res.resolved.hosts[0].cpu.cstates] == [0]
    lat = a["complete"] - a["submit"]
    assert lat.size == 300
    assert np.unique(lat).size == 1


def test_write_latency_size1_equals_hand_sum_exactly():
    _, a = _run()
    lat = a["complete"] - a["submit"]
    exp = expected_write_size1()
    assert a["is_write"].all()
    assert (lat == exp).all(), f"simulated {sorted(set(lat.tolist()))} ns, hand sum {exp} ns"
    # slat: the application thread's submit stage only
    assert ((a["slat_end"] - a["submit"]) == cpu(kc("client.submit"), woken=False)).all()


def test_write_latency_recycled_wal_equals_hand_sum_exactly():
    """Octopus's RocksDB recycles WAL files: the fsync leaves BlueFS's log alone."""
    res, a = _run("ceph.release=octopus")
    assert res.resolved.ceph.wal_log_sync is False
    lat = a["complete"] - a["submit"]
    exp = expected_write_size1(wal_log_sync=False)
    assert (lat == exp).all(), f"simulated {sorted(set(lat.tolist()))} ns, hand sum {exp} ns"
    assert (a["acc"][:, 3] == 2 * DISK_WRITE + 2 * DISK_FLUSH).all()


def test_deferred_write_pays_the_bluefs_log_write_too() -> None:
    """Deferred writes (14.2.2's 16 KiB min_alloc) ride in the WAL; with the log sync the
    commit still gains exactly the log chain: back from fdatasync + submit, the 4 KiB log
    write, the aio completion, kv_sync woken, the flush.  Ops whose cycle also flushes an
    applied deferred batch differ, so the fastest op of each run is compared."""
    base = ("ceph.release=nautilus", "ceph.version=14.2.2")
    r0, a0 = _run(*base, "ceph.wal_log_sync=false")
    r1, a1 = _run(*base, "ceph.wal_log_sync=true")
    assert r0.resolved.ceph.write_mode == r1.resolved.ceph.write_mode == "deferred"
    l0, l1 = a0["complete"] - a0["submit"], a1["complete"] - a1["submit"]
    chain = (cpu(kc("kernel.io_complete") + kc("kernel.io_submit")) + DISK_WRITE
             + cpu(kc("kernel.io_complete")) + cpu(0.0) + DISK_FLUSH)
    assert l1.min() - l0.min() == chain
    assert (a1["acc"].sum(axis=1) == l1).all()


@pytest.mark.parametrize(("sets", "log_sync"), [
    (("ceph.wal_log_sync=false",), False),  # Reef with Ceph 20's WAL envelope mode
    (("ceph.release=octopus", "ceph.wal_log_sync=true"), True),  # an Octopus that cannot recycle
    (("ceph.release=pacific",), True),  # the first release with RocksDB >= 6.8
    (("ceph.release=squid",), True),  # the last release before the WAL envelope
    (("ceph.release=tentacle",), False),  # bluefs_wal_envelope_mode on by default
])
def test_wal_log_sync_override(sets: tuple[str, ...], log_sync: bool) -> None:
    res, a = _run(*sets)
    assert res.resolved.ceph.wal_log_sync is log_sync
    lat = a["complete"] - a["submit"]
    assert (lat == expected_write_size1(wal_log_sync=log_sync)).all()


DB_WRITE, DB_FLUSH = 6_000, 1_000
DB_DISK = ("{name: test DB device, interface: nvme, media: flash, plp: true, parallelism: 4, "
           "write_4k: 6us, flush: 1us, read_4k: 9us, write_bandwidth: 2GB/s, "
           "read_bandwidth: 3GB/s, sources: {}}")


def test_separate_db_device_equals_hand_sum_exactly():
    """osds.db_disk: the data write and the bdev flush stay on the data disk; the WAL
    append, its fsync and BlueFS's log write and flush go to the DB device."""
    res, a = _run(f"hosts.osd.osds.db_disk={DB_DISK}")
    lat = a["complete"] - a["submit"]
    exp = expected_write_size1(db=(DB_WRITE, DB_FLUSH))
    assert (lat == exp).all(), f"simulated {sorted(set(lat.tolist()))} ns, hand sum {exp} ns"
    assert (a["acc"][:, 3] == DISK_WRITE + DISK_FLUSH + 2 * DB_WRITE + 2 * DB_FLUSH).all()
    dbs = res.cluster.db_disks
    assert list(dbs) == ["osd0.db0"]
    osd = res.cluster.osds[0]
    assert osd.db is dbs["osd0.db0"] and osd.db is not osd.disk
    n = int(a["complete"].size) + 20  # measured + ramp
    assert osd.disk.ios == n and osd.db.ios == 2 * n  # data / WAL + log, one op per cycle
    assert "osd0.db0" in res.utilization


def test_db_devices_are_shared_round_robin():
    res, _ = _run(f"hosts.osd.osds.db_disk={DB_DISK}", "hosts.osd.osds.count=4",
                  "hosts.osd.osds.db_devices=2", "run.ios=40", "run.ramp_ios=0")
    osds = res.cluster.osds
    assert [osds[i].db.name for i in range(4)] == ["osd0.db0", "osd0.db1", "osd0.db0", "osd0.db1"]


def test_osds_per_device_share_one_drive():
    """osds.per_device: consecutive OSDs split one drive (``<host>.disk0``), so its channels
    cap them together.  With the test disk made the bottleneck (one channel, 200 us per
    4 KiB write; size 1 and RocksDB on a fast DB device, so every op is one write to the
    drive and nothing else is), two OSDs on one drive commit at
    most 5000 writes/s between them and reach it; on two drives the busier one caps them at
    5000/s over its OSD's share of the PGs.
    Each OSD keeps its own threads, and the drive is listed once in the utilisation."""
    slow = ("hosts.osd.osds.disk={name: slow, interface: nvme, media: flash, plp: true, "
            "parallelism: 1, write_4k: 200us, flush: 1us, read_4k: 50us, write_bandwidth: 2GB/s, "
            "read_bandwidth: 3GB/s, sources: {}}")
    load = ("hosts.osd.osds.count=2", f"hosts.osd.osds.db_disk={DB_DISK}", "workload.iodepth=32",
            "run.ios=3000", "run.ramp_ios=600")
    shared, _ = _run(slow, *load, "hosts.osd.osds.per_device=2")
    apart, _ = _run(slow, *load)
    o = shared.cluster.osds
    assert o[0].disk is o[1].disk and o[0].disk.name == "osd0.disk0"
    assert o[0].kv_sync is not o[1].kv_sync
    assert [d.name for d in shared.cluster.disks()] == ["osd0.disk0", "osd0.db0"]
    assert [d.name for d in apart.cluster.disks()] == ["osd0.disk", "osd1.disk", "osd0.db0"]
    assert 0.9 * 5000 <= shared.iops <= 5000 * 1.001
    assert shared.saturation["saturated"]["resource"] == "osd0.disk0"
    # apart, the busier drive caps the run: 5000/s over its OSD's share of the PGs
    share = max(sum(a[0] == o for a in apart.cluster.acting) for o in (0, 1)) / len(apart.cluster.acting)
    assert 0.9 * 5000 / share <= apart.iops <= 5000 / share * 1.001
    assert apart.iops > 1.4 * shared.iops


def test_deferred_data_flush_only_with_a_separate_db_device():
    """BlueStore::_kv_sync_thread's force_flush: on one shared device the BlueFS sync makes
    applied deferred writes stable, so a deferred commit never flushes the data device on
    its own; with a separate DB device the cycle after a deferred batch has completed
    (deferred_done) flushes the data device first."""
    deferred = ("ceph.release=nautilus", "ceph.version=14.2.2")  # 16 KiB min_alloc: deferred
    res, _ = _run(*deferred)
    assert res.resolved.ceph.write_mode == "deferred" and not res.resolved.ceph.wal_log_sync
    osd = res.cluster.osds[0]
    assert osd.disk.flushes == osd.kv_cycles  # the WAL fsync only
    res, _ = _run(*deferred, f"hosts.osd.osds.db_disk={DB_DISK}")
    osd = res.cluster.osds[0]
    assert osd.db.flushes == osd.kv_cycles
    batches = osd.kv_cycles // 16  # bluestore_deferred_batch_ops_ssd, one txc per cycle at qd 1
    assert batches - 1 <= osd.disk.flushes <= batches
    assert osd.disk.ios == 16 * batches  # the deferred writes reach the data disk, in batches


def test_write_breakdown_size1_by_category():
    """The critical-path split is exact too: disk = data, WAL and BlueFS log, each written
    and flushed; no waits, no wakes."""
    _, a = _run()
    acc = a["acc"]
    network, cpu_ns, wake, disk, queue = acc.T
    assert (disk == 3 * DISK_WRITE + 3 * DISK_FLUSH).all()
    assert (wake == 0).all()
    assert (queue == 0).all()
    assert (network == net(OSDOP_HDR + BS) + net(REPLY)).all()
    assert (acc.sum(axis=1) == a["complete"] - a["submit"]).all()


def test_write_latency_size3_equals_hand_sum_exactly():
    _, a = _run("hosts.osd.count=3", "pool.size=3")
    lat = a["complete"] - a["submit"]
    exp = expected_write_size3()
    assert (lat == exp).all(), f"simulated {sorted(set(lat.tolist()))} ns, hand sum {exp} ns"
    assert (a["acc"].sum(axis=1) == lat).all()


def test_read_latency_size1_equals_hand_sum_exactly():
    _, a = _run("workload.rw=randread")
    lat = a["complete"] - a["submit"]
    exp = expected_read_size1()
    assert not a["is_write"].any()
    assert (lat == exp).all(), f"simulated {sorted(set(lat.tolist()))} ns, hand sum {exp} ns"
    assert (a["acc"].sum(axis=1) == lat).all()


def test_warm_read_cache_read_equals_hand_sum_exactly():
    """A 1 GiB image against the default 4 GiB osd_memory_target: all of it fits, every
    read is a cache hit, and the latency is the hand sum without the device read."""
    res, a = _run("workload.rw=randread", "workload.read_cache=warm", "workload.image_size=1GiB")
    assert res.resolved.ceph.read_cache_hit == 1.0
    lat = a["complete"] - a["submit"]
    exp = expected_read_size1_cached()
    assert (lat == exp).all(), f"simulated {sorted(set(lat.tolist()))} ns, hand sum {exp} ns"
    assert exp < expected_read_size1() - DISK_READ
    assert (a["acc"][:, 3] == 0).all()                      # no disk time at all


def test_partly_warm_cache_mixes_the_two_exact_latencies():
    """Data larger than the cache: each read is either the cached or the device hand sum,
    and the share of cached reads matches the resolved hit probability."""
    res, a = _run("workload.rw=randread", "workload.read_cache=warm", "workload.image_size=8GiB",
                  "run.ios=2000")
    h = res.resolved.ceph.read_cache_hit
    assert 0.25 < h < 0.35                              # 2.65 GiB of cache for 8 GiB of data
    lat = a["complete"] - a["submit"]
    assert set(np.unique(lat).tolist()) == {expected_read_size1_cached(), expected_read_size1()}
    share = float((lat == expected_read_size1_cached()).mean())
    assert abs(share - h) < 4 * math.sqrt(h * (1 - h) / lat.size)


def test_debug_logging_default_scales_osd_stages_only():
    """With debug logging on, only osd.* stages grow by logging_overhead (0.25 in the profile)."""
    _, a = _run("ceph.debug_logging=default")
    lat = a["complete"] - a["submit"]
    assert np.unique(lat).size == 1
    assert int(lat[0]) > expected_write_size1()
    # the client-side stages are unchanged: slat is still the bare client.submit cost
    assert ((a["slat_end"] - a["submit"]) == cpu(kc("client.submit"), woken=False)).all()


# ------------------------------------------------------------ realistic scenarios

@pytest.mark.parametrize("overrides", [
    ["run.ios=800"],
    ["run.ios=800", "workload.iodepth=4"],
    ["run.ios=600", "workload.rw=randrw", "workload.iodepth=2", "workload.numjobs=2"],
], ids=["qd1", "qd4", "randrw-2jobs"])
def test_breakdown_adds_up_exactly_on_quickstart(repo_root, overrides):
    """For every op the five categories sum to its latency, to the nanosecond."""
    path = repo_root / "scenarios" / "quickstart.yaml"
    sc = load_scenario(path, overrides)
    res = run_scenario(sc, scenario_path=path)
    a = res.records.arrays()
    lat = a["complete"] - a["submit"]
    assert (a["acc"] >= 0).all()
    bad = np.nonzero(a["acc"].sum(axis=1) != lat)[0]
    assert bad.size == 0, (f"{bad.size} ops whose breakdown does not add up, e.g. op {bad[0]}: "
                           f"acc={a['acc'][bad[0]].tolist()} latency={int(lat[bad[0]])}")


def test_op_tracker_events_are_ordered_on_quickstart(repo_root):
    path = repo_root / "scenarios" / "quickstart.yaml"
    res = run_scenario(load_scenario(path, ["run.ios=500"]), scenario_path=path)
    a = res.records.arrays()
    ev = a["ev"]
    # initiated <= queued_for_pg <= reached_pg <= waiting_for_subops <= op_commit, sub_op_commit_rec
    assert (a["submit"] <= ev[:, 0]).all()
    assert (np.diff(ev[:, [0, 1, 2, 4]], axis=1) >= 0).all()
    assert (ev[:, 5] >= ev[:, 4]).all() and (ev[:, 6] >= ev[:, 4]).all()
    assert (ev[:, 7] >= np.maximum(ev[:, 5], ev[:, 6])).all()
    assert (a["complete"] > ev[:, 7]).all()


# --------------------------------------------------------------------- full mesh

def _switch_part(n: int) -> int:
    """What the cut-through switch adds to one message: its own latency (the egress port
    then runs at the sender's rate, as the cable does)."""
    return SWITCH_LAT


@pytest.mark.parametrize("mtu", [1500, 9000])
def test_store_and_forward_switch_adds_one_frame_per_message_exactly(mtu):
    """A store-and-forward switch waits for each frame in full, so every message arrives
    later by its first frame's time at the link rate, however many frames follow it
    (frames pipeline; the 4 KiB write is 3 frames at MTU 1500, one at 9000)."""
    _, ct = _run(f"network.mtu={mtu}")
    _, sf = _run(f"network.mtu={mtu}", "network.topology.switch.forwarding=store-and-forward")
    messages = [OSDOP_HDR + BS, REPLY]
    first = [int((min(n, mtu - 52) + 90) * 8e9 / NIC_BPS) for n in messages]
    lat_ct, lat_sf = ct["complete"] - ct["submit"], sf["complete"] - sf["submit"]
    assert (lat_sf - lat_ct == sum(first)).all(), (sorted(set((lat_sf - lat_ct).tolist())), first)


FAST_BPS = 25e9  # the client's NIC in the speed-mismatch tests; the switch ports run at 25G


def _into_faster_port(n: int) -> int:
    """What a message from a 10G host gains when the switch forwards it onto a 25G port.

    Cut-through cannot feed a faster port (it would run dry mid-frame), so the switch
    stores each frame before sending it: the first frame leaves once it is in, and the
    last one once it is in (plus the switch latency), then takes its own time at 25G.
    Relative to the 10G-to-10G case, where the message ends SWITCH_LAT after its last bit
    left the sender.
    """
    mss = MTU - 52
    frames = max(1, math.ceil(n / mss))
    w = n + 90 * frames
    first, last = min(n, mss) + 90, n - (frames - 1) * mss + 90
    in_end = int(w * 8e9 / NIC_BPS + 0.5)
    out_end = max(int(first * 8e9 / NIC_BPS) + SWITCH_LAT + int(w * 8e9 / FAST_BPS + 0.5),
                  in_end + SWITCH_LAT + int(last * 8e9 / FAST_BPS))
    return out_end - (in_end + SWITCH_LAT)


@pytest.mark.parametrize("rw", ["randwrite", "randread"])
def test_cut_through_switch_stores_and_forwards_into_a_faster_port_exactly(rw):
    """Client on 25G, OSD on 10G, cut-through switch.  The request goes 25G -> 10G: cut
    through, and the client's faster uplink does not matter (the 10G port is the slower
    one), so it costs what it does between two 10G hosts.  The reply goes 10G -> 25G:
    stored and forwarded.  The write's one-frame reply gains its time at 25G (109 ns);
    the read's 4-frame reply (4346 bytes: its last frame carries 2 bytes) gains only that
    small last frame's time at 25G (29 ns), not a full frame's."""
    _, a = _run(f"workload.rw={rw}", f"hosts.client.nic.speed={FAST_BPS / 1e9:g}Gbit/s")
    lat = a["complete"] - a["submit"]
    if rw == "randwrite":
        exp = expected_write_size1() + _into_faster_port(REPLY)
        assert _into_faster_port(REPLY) == 109
    else:
        exp = expected_read_size1() + _into_faster_port(REPLY + BS)
        assert _into_faster_port(REPLY + BS) == 29
    assert (lat == exp).all(), f"simulated {sorted(set(lat.tolist()))} ns, hand sum {exp} ns"


def test_a_fast_nic_in_a_slow_switch_runs_at_the_switch_speed_exactly():
    """Links train to the slower end: 10G NICs in a 1G switch send at 1G, on the host's
    uplink (where the primary's two MOSDRepOps queue) as on the switch's ports, so the
    run is bit-identical to one with 1G NICs of the same latencies."""
    slow = ("hosts.osd.count=3", "pool.size=3", "network.topology.switch.speed=1Gbit/s")
    res10, a10 = _run(*slow)
    _, a1 = _run(*slow, "hosts.osd.nic.speed=1Gbit/s", "hosts.client.nic.speed=1Gbit/s")
    assert (a10["complete"] - a10["submit"] == a1["complete"] - a1["submit"]).all()
    assert res10.utilization["osd0.nic0.tx"] > 0


@pytest.mark.parametrize("mode", ["routed", "broadcast"])
def test_full_mesh_write_size1_is_the_switch_sum_minus_the_switch_exactly(mode):
    """A full mesh cables hosts directly: each message loses exactly the switch's part."""
    _, a = _run("network.topology.kind=mesh", f"network.topology.mesh_mode={mode}")
    lat = a["complete"] - a["submit"]
    exp = expected_write_size1() - _switch_part(OSDOP_HDR + BS) - _switch_part(REPLY)
    assert (lat == exp).all(), f"simulated {sorted(set(lat.tolist()))} ns, hand sum {exp} ns"


def test_routed_mesh_write_size3_equals_hand_sum_exactly():
    """Size 3 over a routed mesh: four messages on the critical path, none through a switch;
    the two MOSDRepOps leave on two different ports, so the second no longer waits for the
    first (off the critical path either way: the shard thread serialises the replies)."""
    res, a = _run("hosts.osd.count=3", "pool.size=3", "network.topology.kind=mesh")
    lat = a["complete"] - a["submit"]
    out, rep = OSDOP_HDR + BS, REPOP_HDR + BS
    exp = expected_write_size3() - sum(_switch_part(n) for n in (out, rep, REPLY, REPLY))
    assert (lat == exp).all(), f"simulated {sorted(set(lat.tolist()))} ns, hand sum {exp} ns"
    assert not [k for k in res.utilization if k.startswith("switch")]
    assert {"osd0.nic-osd1.tx", "osd0.nic-osd2.tx", "client0.nic-osd0.tx"} <= set(res.utilization)


def test_broadcast_mesh_shares_one_port_and_routed_does_not():
    """64 KiB writes, size 3: in a broadcast bond the two replica messages queue on one
    rate, so a write takes longer than over the routed mesh, by at most one message's time
    on the wire (the second MOSDRepOp's wait)."""
    base = ("hosts.osd.count=3", "pool.size=3", "network.topology.kind=mesh",
            "workload.bs=64KiB", "network.tcp.initial_window=1000")
    routed, ra = _run(*base)
    bcast, ba = _run(*base, "network.topology.mesh_mode=broadcast")
    r_lat = (ra["complete"] - ra["submit"]).mean()
    b_lat = (ba["complete"] - ba["submit"]).mean()
    ser = wire(REPOP_HDR + 64 * 1024)[0]
    assert r_lat < b_lat <= r_lat + ser
    assert "osd0.nic0.tx" in bcast.utilization and "osd0.nic-osd1.tx" not in bcast.utilization


# --------------------------------------------------------------------- dm-crypt

def crypt(nbytes: int, sector: int) -> int:
    """One block write through dm-crypt: a kcryptd worker ciphers the bio (the hop, one
    request per sector, the bytes), then dmcrypt_write submits it; both are woken."""
    work = kc("kernel.crypt_queue") + math.ceil(nbytes / sector) * KC["kernel.crypt_sector"] \
        + KC["kernel.crypt_per_kib"] * nbytes / 1024
    return cpu(work) + cpu(kc("kernel.crypt_queue"))


@pytest.mark.parametrize("sector", [512, 4096])
def test_encrypted_write_adds_dm_crypt_to_each_device_write_exactly(sector):
    """luks: the data write, the WAL write and BlueFS's log write (Reef) each pass through
    kcryptd and dmcrypt_write; the flushes do not.  512-byte sectors cost 8 cipher requests
    per 4 KiB block, 4096-byte ones one."""
    _, a = _run("hosts.osd.osds.encryption=luks", f"hosts.osd.osds.crypt_sector_size={sector}")
    lat = a["complete"] - a["submit"]
    exp = expected_write_size1() + 3 * crypt(BS, sector)
    assert (lat == exp).all(), f"simulated {sorted(set(lat.tolist()))} ns, hand sum {exp} ns"


def test_encrypted_read_is_decrypted_once_exactly():
    """A read: the device, then a kcryptd worker decrypts on completion (one hand-off)."""
    _, a = _run("workload.rw=randread", "hosts.osd.osds.encryption=luks")
    lat = a["complete"] - a["submit"]
    work = kc("kernel.crypt_queue") + 8 * KC["kernel.crypt_sector"] + KC["kernel.crypt_per_kib"] * 4
    exp = expected_read_size1() + cpu(work)
    assert (lat == exp).all(), f"simulated {sorted(set(lat.tolist()))} ns, hand sum {exp} ns"


# --------------------------------------------------------------------- deferred batches

def test_a_deferred_batch_merges_contiguous_blocks_within_an_object():
    """4 blocks per object: blocks 4-7 of image 0 (object 1, block 6 written twice: once)
    are one 16 KiB write; block 8 follows 7 but starts object 2; block 10 leaves a gap;
    image 1's block 9 is another image."""
    from cephsim.model.writepath import deferred_runs
    k4 = 4096
    extents = [(0, 5, k4), (0, 4, k4), (0, 6, k4), (0, 6, k4), (0, 7, k4), (0, 8, k4),
               (0, 10, k4), (1, 9, k4)]
    assert deferred_runs(extents, 4) == [4 * k4, k4, k4, k4]
    assert deferred_runs(extents, 16) == [5 * k4, k4, k4]  # one object: 4-8 run on
    assert deferred_runs([], 4) == []


def test_sequential_small_writes_on_hdd_cost_what_random_ones_do():
    """HDD OSDs with an NVMe DB: a 4 KiB write is deferred (it rides in the WAL on the
    NVMe) and reaches the HDD later in batches of 64.  Sequential writes send every batch
    to the same three OSDs; merged into one 256 KiB write per batch, the HDDs keep up, so
    the deferred throttle never stalls the ops (it did, 17x the random latency, when each
    block was a separate random access)."""
    path = Path(__file__).resolve().parent.parent / "scenarios" / "hdd-nvme-db.yaml"
    lat = {}
    for rw in ("write", "randwrite"):
        res = run_scenario(load_scenario(path, [f"workload.rw={rw}", "run.ios=2500",
                                                "run.ramp_ios=300"]), scenario_path=path)
        a = res.records.arrays()
        lat[rw] = float((a["complete"] - a["submit"]).mean())
    assert lat["write"] < 1.15 * lat["randwrite"], lat


def test_sequential_hdd_reads_hit_the_drive_look_ahead_exactly():
    """The constant disk made an HDD with a read look-ahead: a sequential read stream
    positions the head once per 4 MiB object (the hand sum with the device read) and
    every other read is served from the drive's cache (the hand sum with ``cache_hit``)."""
    hdd = "hosts.osd.osds.disk."
    _, a = _run("workload.rw=read", "run.ios=1100", "run.ramp_ios=0", hdd + "media=hdd",
                hdd + "interface=sata", hdd + "plp=false", hdd + "parallelism=1", hdd + "read_lookahead=1MiB",
                hdd + "cache_segments=4", hdd + "cache_hit=5us")
    lat = a["complete"] - a["submit"]
    miss, hit = expected_read_size1(), expected_read_size1() - DISK_READ + 5_000
    first_of_object = (a["seq"] % 1024) == 0  # blocks 0 and 1024 (4 KiB blocks, 4 MiB objects)
    assert first_of_object.sum() == 2
    assert (lat[first_of_object] == miss).all(), sorted(set(lat[first_of_object].tolist()))
    assert (lat[~first_of_object] == hit).all(), sorted(set(lat[~first_of_object].tolist()))


def test_fio_clock_starts_when_its_thread_takes_the_io(tmp_path):
    """A saturated fio thread: at queue depth 8, 400 us of completion work per I/O makes
    the thread the bottleneck, so freed slots wait for it.  fio starts an I/O's clock in
    get_io_u, when the thread gets to it: slat stays exactly the submission, that wait is
    in no reported latency, and throughput is the thread's rate (1 / (400 + 8 us))."""
    prof = (HERE / "scenarios" / "profiles" / "constant.yaml").read_text()
    assert "  client.complete: 5\n" in prof
    (tmp_path / "profiles").mkdir()
    (tmp_path / "profiles" / "constant.yaml").write_text(
        prof.replace("  client.complete: 5\n", "  client.complete: 400\n"))
    scen = tmp_path / "constant.yaml"
    scen.write_text(CONSTANT.read_text())
    sc = load_scenario(scen, ["workload.iodepth=8", "run.ios=2000", "run.ramp_ios=200"])
    res = run_scenario(sc, scenario_path=scen)
    a = res.records.arrays()
    slat = a["slat_end"] - a["submit"]
    assert (slat == cpu(kc("client.submit"), woken=False)).all()
    per_io = cpu(kc("client.submit"), woken=False) + cpu(400, woken=False)  # never idle
    assert res.iops == pytest.approx(1e9 / per_io, rel=0.01)
    # Little's law over fio's own latency falls short of the depth by the uncounted wait
    lat = (a["complete"] - a["submit"]).mean() / 1e9
    assert res.iops * lat < 0.9 * 8


def test_psync_reports_the_same_io_without_slat():
    """fio's synchronous engine starts clat before the syscall and records no slat: the
    simulated I/O is the same as with libaio, only the split fio reports differs."""
    from cephsim.formats.report.summary import job_stats

    aio, a = _run("workload.engine=krbd")
    sync, s = _run("workload.engine=krbd", "workload.ioengine=psync")
    assert (a["complete"] - a["submit"] == s["complete"] - s["submit"]).all()
    assert ((a["slat_end"] - a["submit"]) > 0).all()
    assert (s["slat_end"] == s["submit"]).all()
    ja, js = job_stats(aio), job_stats(sync)
    assert ja.ioengine == "libaio" and js.ioengine == "psync"
    assert js.write.slat.n == 0 and ja.write.slat.n == a["submit"].size
    assert js.write.clat.mean == js.write.lat.mean == ja.write.lat.mean


@pytest.mark.parametrize(("release", "version", "disk", "state", "expect"), [
    ("nautilus", "14.2.2", "pm983", "written", "deferred"),  # 16 KiB min_alloc: overwrite deferred
    ("nautilus", "14.2.2", "pm983", "fresh", "direct"),      # a new blob: direct on flash
    ("reef", None, "pm983", "written", "direct"),
    ("reef", None, "pm983", "fresh", "direct"),
    ("nautilus", "14.2.5", "generic-hdd-7200", "fresh", "deferred"),  # below prefer_deferred
])
def test_the_write_path_follows_the_image_state(release, version, disk, state, expect):
    from cephsim.api import load_resolved

    _, r = load_resolved(Path(__file__).resolve().parents[1] / "scenarios" / "quickstart.yaml",
                         [f"ceph.release={release}", f"ceph.version={version or 'null'}",
                          f"hosts.osd.osds.disk={disk}", f"workload.image_state={state}"])
    assert r.ceph.write_mode == expect


def test_a_read_of_a_fresh_image_reads_no_device():
    """A never-written block has no object: the OSD answers ENOENT (librbd returns zeros)
    without a device read, so the read is faster than one of written data, by about the
    device's read time."""
    from cephsim.model.runner import run_scenario
    from cephsim.scenario.load import load_scenario

    qs = Path(__file__).resolve().parents[1] / "scenarios" / "quickstart.yaml"
    base = ["workload.rw=randread", "run.ios=400"]
    written = run_scenario(load_scenario(qs, base), scenario_path=qs)
    fresh = run_scenario(load_scenario(qs, [*base, "workload.image_state=fresh"]), scenario_path=qs)
    assert fresh.resolved.ceph.read_cache_hit == 1.0
    assert sum(d.ios for d in fresh.cluster.disks()) == 0 < sum(d.ios for d in written.cluster.disks())
    a, b = written.records.arrays(), fresh.records.arrays()
    assert (b["complete"] - b["submit"]).mean() < (a["complete"] - a["submit"]).mean()


# ------------------------------------------------------------ messenger crypto

def _with_msg(base: float, extra: float) -> int:
    """How much longer a thread run gets when ``extra`` kcycles join its ``base``."""
    return cpu(base + extra) - cpu(base)


def test_secure_mode_adds_aes_gcm_at_each_end_of_each_message_exactly():
    """ms_mode secure: the MOSDOp and the reply are each encrypted by the sender's and
    decrypted by the receiver's msgr-worker: a frame cost plus a per-KiB cost each time."""
    _, a = _run("ceph.ms_mode=secure")
    lat = a["complete"] - a["submit"]
    out = OSDOP_HDR + BS

    def m(n: int) -> float:
        return KC["crypto.secure_frame"] + KC["crypto.secure_per_kib"] * n / 1024

    extra = (_with_msg(kc("client.msgr_send") + kc("kernel.tcp_tx", out), m(out))
             + _with_msg(kc("osd.msgr_recv") + kc("kernel.tcp_rx", out), m(out))
             + _with_msg(kc("osd.reply_send") + kc("kernel.tcp_tx", REPLY), m(REPLY))
             + _with_msg(kc("client.msgr_recv") + kc("kernel.tcp_rx", REPLY), m(REPLY)))
    exp = expected_write_size1() + extra
    assert (lat == exp).all(), f"simulated {sorted(set(lat.tolist()))} ns, hand sum {exp} ns"


def test_msgr_v1_signatures_cost_one_signature_per_message_end():
    """Luminous speaks msgr v1: with cephx_sign_messages each of the 4 message ends of a
    size-1 write computes or checks one signature (1.25 kcycles = 1.25 us here)."""
    _, signed = _run("ceph.release=luminous")
    _, plain = _run("ceph.release=luminous", "ceph.cephx_sign_messages=false")
    d = (signed["complete"] - signed["submit"]) - (plain["complete"] - plain["submit"])
    assert (d == 4 * 1250).all(), sorted(set(d.tolist()))


def test_crc_mode_signs_nothing():
    """msgr2 in crc mode (the default from Nautilus): cephx_sign_messages changes nothing."""
    _, a = _run("ceph.cephx_sign_messages=false")
    assert ((a["complete"] - a["submit"]) == expected_write_size1()).all()


# ------------------------------------------------------------ metadata caches

def test_a_cold_object_costs_its_gets_and_reads_exactly():
    """A 16 MiB fixed cache against a 16 TiB image: almost every write misses the onode
    cache and makes 1 + 2.7 gets on average (3 or 4), none in the block cache, each a
    RocksDB lookup in the shard thread, a 4 KiB read it waits for and the completion
    (the thread wakes for it).  BlueFS with O_DIRECT: every block-cache miss reads the
    device, whatever the hosts' memory."""
    res, a = _run("ceph.bluestore_cache_size=16MiB", "workload.image_size=16TiB",
                  "ceph.bluefs_buffered_io=false")
    m = res.resolved.ceph.meta
    assert m.onode_hit < 1e-3 and m.kv_hit == 0.0
    get = (cpu(kc("osd.meta_get"), woken=False) + cpu(kc("kernel.io_submit"), woken=False)
           + DISK_READ + cpu(kc("kernel.io_complete")))
    lat = a["complete"] - a["submit"]
    base = expected_write_size1()
    # do_op's run ends where the first get begins; the thread woken by the last read's
    # completion continues into queue_transactions without another wake
    seen = {int(x) for x in lat}
    allowed = {base} | {base + k * get for k in (3, 4)}
    assert seen <= allowed, (sorted(seen), sorted(allowed))
    n4 = int((lat == base + 4 * get).sum())
    n3 = int((lat == base + 3 * get).sum())
    assert n3 + n4 >= 0.95 * lat.size and 0.55 < n4 / (n3 + n4) < 0.85  # 0.7 expected


# ------------------------------------------------------------ debug levels

def test_debug_osd_20_formats_the_primarys_86_osd_lines_in_do_op_exactly():
    """debug_osd 20/20 (everything else 0/0 here): the primary's success path has 86 osd
    lines up to level 20 (cephsim/spec/debuglog.py), formatted in tp_osd_tp at 0.5 us each."""
    _, a = _run("ceph.debug.osd=20/20")
    lat = a["complete"] - a["submit"]
    exp = expected_write_size1() + _with_msg(kc("osd.do_op"), 86 * KC["log.line"])
    assert (lat == exp).all(), f"simulated {sorted(set(lat.tolist()))} ns, hand sum {exp} ns"


def test_debug_ms_0_5_gathers_three_lines_per_message_at_each_osd_end():
    """Luminous's messenger default: the OSD's receive of the MOSDOp and its send of the
    reply each gather 3 lines (one at level 1, two at 5)."""
    _, a = _run("ceph.debug.ms=0/5")
    lat = a["complete"] - a["submit"]
    out = OSDOP_HDR + BS
    exp = (expected_write_size1()
           + _with_msg(kc("osd.msgr_recv") + kc("kernel.tcp_rx", out), 3 * KC["log.line"])
           + _with_msg(kc("osd.reply_send") + kc("kernel.tcp_tx", REPLY), 3 * KC["log.line"]))
    assert (lat == exp).all(), f"simulated {sorted(set(lat.tolist()))} ns, hand sum {exp} ns"
