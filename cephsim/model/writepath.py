"""The replicated write (and read) protocol, as readable kernel processes.

The full account: docs/model.md, "Inside the model", `cephsim.model.writepath`.
"""

from __future__ import annotations

import math
from typing import Any, Final, Generator

from cephsim.metrics.trace import TracedAcc, fork
from cephsim.model.components.cluster import OSD, ClientJob, Cluster
from cephsim.model.components.cpu import Thread
from cephsim.model.components.disk import Disk
from cephsim.model.engine.draw import Coin, Jitter
from cephsim.model.engine.kernel import (
    ACC_CPU,
    ACC_DISK,
    ACC_NET,
    ACC_QUEUE,
    ACC_WAKE,
    Join,
    Kernel,
)
from cephsim.model.steps import (
    AIO_DATA_DONE,
    BLUESTORE_SUBMIT,
    CLIENT_COMPLETE,
    CLIENT_RECV,
    CLIENT_SEND,
    CLIENT_SUBMIT,
    COMMIT_CB,
    CRYPT_DECRYPT,
    CRYPT_ENCRYPT,
    CRYPT_SUBMIT,
    DATA_FLUSH,
    DATA_READ,
    DATA_READ_DONE,
    DATA_WRITE,
    DO_OP,
    DO_READ_CACHED,
    DO_READ_SUBMIT,
    DO_REPOP,
    EC_DO_OP,
    EC_DO_READ,
    EC_ENCODE,
    EC_ROLLFORWARD,
    EC_SUBREAD,
    EC_SUBREAD_IO_SUBMIT,
    EC_SUBREAD_RECV,
    EC_SUBREAD_REPLY,
    EC_SUBREAD_REPLY_RECV,
    EC_SUBREAD_REPLY_SEND,
    EC_SUBREAD_SEND,
    EC_SUBWRITE,
    EC_SUBWRITE_COMMIT,
    EC_SUBWRITE_RECV,
    EC_SUBWRITE_REPLY,
    EC_SUBWRITE_REPLY_RECV,
    EC_SUBWRITE_REPLY_SEND,
    EC_SUBWRITE_SEND,
    FINISHER,
    KERNEL_COMPLETE,
    KERNEL_SEND,
    KV_APPLY_AFTER_FLUSH,
    KV_BATCH_WAIT,
    KV_DONE_AFTER_LOG,
    KV_DONE_AFTER_WAL,
    KV_FINAL,
    KV_LOG_SUBMIT,
    KV_LOG_WRITTEN,
    KV_TAKE_APPLY,
    KV_TAKE_FLUSH,
    KV_WAL_WRITTEN,
    LIBRBD_DISPATCH,
    LOG_AIO_DONE,
    LOG_FLUSH,
    LOG_WRITE,
    META_GET,
    META_IO_SUBMIT,
    META_PAGE_CACHE,
    META_READ,
    META_READ_DONE,
    NET_EC_SUBREAD,
    NET_EC_SUBREAD_REPLY,
    NET_EC_SUBWRITE,
    NET_EC_SUBWRITE_REPLY,
    NET_OSDOP_READ,
    NET_OSDOP_WRITE,
    NET_REPLY_READ,
    NET_REPLY_WRITE,
    NET_REPOP,
    NET_REPOP_REPLY,
    OBJECTER,
    OSD_RECV_OP,
    REPLY_DATA_SEND,
    REPLY_SEND,
    REPOP_COMMIT,
    REPOP_RECV,
    REPOP_REPLY,
    REPOP_REPLY_RECV,
    REPOP_REPLY_SEND,
    REPOP_SEND,
    WAL_AIO_DONE,
    WAL_FLUSH,
    WAL_WRITE,
)

# header bytes of the messages (MOSDOp, MOSDRepOp carrying the transaction and
# log entry, replies), from the msgr2 frame layout plus typical encodings
#: the labels (cephsim.model.steps) of a message's send, wire and receive, and of a
#: BlueFS append's write, completion, kv_sync's wake-up and flush
REPOP_MSG: Final = (REPOP_SEND, NET_REPOP, REPOP_RECV)
REPOP_REPLY_MSG: Final = (REPOP_REPLY_SEND, NET_REPOP_REPLY, REPOP_REPLY_RECV)
EC_SUBWRITE_MSG: Final = (EC_SUBWRITE_SEND, NET_EC_SUBWRITE, EC_SUBWRITE_RECV)
EC_SUBWRITE_REPLY_MSG: Final = (EC_SUBWRITE_REPLY_SEND, NET_EC_SUBWRITE_REPLY,
                                EC_SUBWRITE_REPLY_RECV)
EC_SUBREAD_MSG: Final = (EC_SUBREAD_SEND, NET_EC_SUBREAD, EC_SUBREAD_RECV)
EC_SUBREAD_REPLY_MSG: Final = (EC_SUBREAD_REPLY_SEND, NET_EC_SUBREAD_REPLY, EC_SUBREAD_REPLY_RECV)
WAL_STEPS: Final = (WAL_WRITE, WAL_AIO_DONE, KV_WAL_WRITTEN, WAL_FLUSH)
LOG_STEPS: Final = (LOG_WRITE, LOG_AIO_DONE, KV_LOG_WRITTEN, LOG_FLUSH)
META_READ_STEPS: Final = (META_READ, META_READ_DONE)
DATA_READ_STEPS: Final = (DATA_READ, DATA_READ_DONE)

OSDOP_HDR = 300
REPOP_HDR = 600
REPLY_BYTES = 250
#: an EC sub-read request (MOSDECSubOpRead: the shard's extents to read); a sub-write
#: (MOSDECSubOpWrite: the shard's transaction and log entry) is REPOP_HDR plus its chunk
EC_READ_HDR = 300
#: RocksDB keys an EC shard's rollback copy adds, in units of a write's ~6 (onode, extent
#: shard, PG log entry, PG info, two freelist merges): the generation object's onode, its
#: extent shard and the shared blob the clone_range makes (an estimate from the code)
EC_ROLLBACK_KEYS = 0.5

# BlueStore throttles: option defaults in src/common/options/global.yaml.in (all releases)
THROTTLE_BYTES = 64 * 1024**2            #: bluestore_throttle_bytes
THROTTLE_DEFERRED_BYTES = 128 * 1024**2  #: bluestore_throttle_deferred_bytes
COST_PER_IO = {"ssd": 4000, "hdd": 670000}  #: bluestore_throttle_cost_per_io_{ssd,hdd}
#: RocksDB bytes per txc (pg log entry + dup, object_info, onode / extent-map shard,
#: allocator keys): ~1.5 KiB.  Estimate (not measured; order of magnitude from the
#: encodings).  Rewritten by memtable flush + leveled compaction: write amplification
#: ~10 (RocksDB wiki, Leveled Compaction / Tuning Guide: typically 10-30).  Estimate.
KV_TXC_BYTES = 1536
ROCKSDB_WRITE_AMP = 10

# op-tracker events recorded per op (indices into Op.ev)
EVENTS = ("initiated", "queued_for_pg", "reached_pg", "started", "waiting_for_subops",
          "op_commit", "sub_op_commit_rec", "commit_sent", "done")
(E_INIT, E_QUEUED, E_REACHED, E_STARTED, E_WAITSUB, E_OPCOMMIT, E_SUBREC, E_SENT,
 E_DONE) = range(len(EVENTS))


def _fork(acc: list[int]) -> list[int]:
    """:func:`cephsim.metrics.trace.fork`, with the untraced case inline (compiled)."""
    if type(acc) is list:
        return acc.copy()
    return fork(acc)


def deferred_runs(extents: list[tuple[int, int, int]], per_object: int) -> list[int]:
    """Bytes of each device write a BlueStore deferred batch makes.

    ``extents``: the batch's writes as (image, block, bytes), blocks counted in writes of
    ``bytes`` from the image's start, ``per_object`` of them to an object.  The batch keeps
    them in a map by device offset, so a block written twice is written once (the later
    write replaced the earlier) and blocks that follow each other are one I/O
    (``BlueStore::_deferred_submit_unlock``).  Objects are assumed laid out contiguously
    on the device, and different objects (or images) apart.
    """
    runs: list[int] = []
    prev: tuple[int, int] | None = None  # (image, block) the last run ended at
    for image, block, nbytes in sorted(set(extents)):
        if (prev is not None and (image, block) == (prev[0], prev[1] + 1)
                and block // per_object == prev[1] // per_object):
            runs[-1] += nbytes
        else:
            runs.append(nbytes)
        prev = (image, block)
    return runs


def ec_plan(ec: Any, per: int, block: int, nbytes: int,
            is_write: bool) -> tuple[list[tuple[int, int]], list[tuple[int, int]], int]:
    """What an EC pool's primary does for an op of ``nbytes`` at ``block`` (in blocks of
    ``nbytes``, ``per`` to an object): the shard reads [(shard, bytes)] first
    (a write's read-modify-write, or a read's own), the sub-writes [(shard, bytes)],
    and the data bytes it encodes.  Shards 0..k-1 hold data chunks of ``stripe_unit``
    bytes in turn, k..k+m-1 the coding chunks of each stripe.

    Classic EC (to Squid; ECTransaction::get_write_plan, ECBackend): a write that does
    not cover whole stripes reads the stripes it touches from all k data shards and
    re-encodes them; every shard gets a sub-write (the PG log entry), with data where
    its chunks changed (the coding shards always).  A read reads the stripes it touches
    from all k data shards.  Optimized EC (Tentacle, pool.ec_optimizations): a read
    reads only the shards holding its data; a partial write reads the cheaper of the
    untouched data chunks or the old touched chunks and the coding chunks, and writes
    only the shards that change."""
    su, kk, m = ec.stripe_unit, ec.k, ec.m
    width = su * kk
    off = (block % per) * nbytes  # within the object
    end = off + nbytes
    touched: dict[int, int] = {}  # data shard -> bytes of this op on it
    c = off // su
    while c * su < end:
        lo, hi = max(off, c * su), min(end, (c + 1) * su)
        touched[c % kk] = touched.get(c % kk, 0) + hi - lo
        c += 1
    s0, s1 = off // width, (end - 1) // width  # stripes touched
    stripes = s1 - s0 + 1
    head, tail = off % width != 0, end % width != 0  # the first / last stripe partly written
    partial = int(head or tail) if s0 == s1 else int(head) + int(tail)
    if not is_write:
        if ec.optimized:
            return sorted(touched.items()), [], 0
        return [(i, su * stripes) for i in range(kk)], [], 0
    reads: list[tuple[int, int]] = []
    if partial:
        if not ec.optimized:
            reads = [(i, su * partial) for i in range(kk)]
        else:
            others = [i for i in range(kk) if i not in touched]
            delta = list(touched) + list(range(kk, kk + m))
            pick = others if len(others) <= len(delta) else delta
            reads = [(i, su * partial) for i in sorted(pick)]
    writes = [(i, touched.get(i, 0)) for i in range(kk)] + [(kk + j, su * stripes) for j in range(m)]
    if ec.optimized:
        writes = [(i, b) for i, b in writes if b]
    return reads, writes, su * kk * stripes


class KvTxc:
    """A transaction queued for the kv_sync thread (BlueStore's kv_queue): when it was
    queued, its op's accumulator, the waiter its commit wakes, the data it carries in
    the WAL (deferred writes) and what it holds of the kv throttle."""

    __slots__ = ("acc", "cost", "enqueued", "keys", "nbytes", "wait")

    def __init__(self, enqueued: int, acc: Any, wait: Any, nbytes: int, cost: int,
                 keys: float = 0.0) -> None:
        self.enqueued = enqueued
        self.acc = acc
        self.wait = wait
        self.nbytes = nbytes
        self.cost = cost
        self.keys = keys  #: RocksDB keys beyond a write's, in units of a write's (EC rollback)


class Op:
    """One client I/O in flight."""

    __slots__ = ("acc", "block", "ev", "is_write", "job", "nbytes", "pg", "seq", "submit",
                 "slat_end")

    def __init__(self, job: ClientJob, is_write: bool, nbytes: int, pg: int, t: int,
                 seq: int = 0, block: int = 0) -> None:
        self.seq = seq  #: issue order over the whole run (0, 1, 2, ...)
        self.block = block  #: where in the job's image, in blocks of nbytes
        self.job = job
        self.is_write = is_write
        self.nbytes = nbytes
        self.pg = pg
        self.submit = t
        self.slat_end = t
        self.acc = [0, 0, 0, 0, 0]
        self.ev = [0] * len(EVENTS)


def object_key(op: Op, per: int) -> int:
    """The object an op falls in, as one number: (its job's image, object number), with
    ``per`` blocks of the op's size to an object."""
    return (op.job.index << 32) + op.block // per


class Stages:
    """Each stage's kilocycles (the release's table with its scale, logging and debug lines),
    looked up by name once per run: the write path reads them ~70 times per write, and a
    native attribute costs less than a dict lookup by string (both give the same float)."""

    __slots__ = ("client_complete", "client_finisher", "client_kernel", "client_kernel_complete",
                 "client_msgr_recv", "client_msgr_send", "client_objecter", "client_submit",
                 "kernel_crypt_per_kib", "kernel_crypt_queue", "kernel_crypt_sector",
                 "kernel_io_complete", "kernel_io_submit", "kernel_pagecache_read",
                 "kernel_tcp_rx", "kernel_tcp_tx", "kernel_wakeup", "osd_aio_complete",
                 "osd_bluestore_submit", "osd_commit_cb", "osd_do_op", "osd_do_read",
                 "osd_do_repop", "osd_ec_read_reply", "osd_ec_rmw", "osd_ec_rollback",
                 "osd_ec_rollforward", "osd_ec_subread", "osd_kv_apply", "osd_kv_final",
                 "osd_kv_sync", "osd_meta_get", "osd_msgr_recv", "osd_reply_send",
                 "osd_repop_commit", "osd_repop_reply", "osd_repop_send")

    def __init__(self, cost: dict[str, float]) -> None:
        self.client_complete = cost["client.complete"]
        self.client_finisher = cost["client.finisher"]
        self.client_kernel = cost["client.kernel"]
        self.client_kernel_complete = cost["client.kernel_complete"]
        self.client_msgr_recv = cost["client.msgr_recv"]
        self.client_msgr_send = cost["client.msgr_send"]
        self.client_objecter = cost["client.objecter"]
        self.client_submit = cost["client.submit"]
        self.kernel_crypt_per_kib = cost["kernel.crypt_per_kib"]
        self.kernel_crypt_queue = cost["kernel.crypt_queue"]
        self.kernel_crypt_sector = cost["kernel.crypt_sector"]
        self.kernel_io_complete = cost["kernel.io_complete"]
        self.kernel_io_submit = cost["kernel.io_submit"]
        self.kernel_pagecache_read = cost["kernel.pagecache_read"]
        self.kernel_tcp_rx = cost["kernel.tcp_rx"]
        self.kernel_tcp_tx = cost["kernel.tcp_tx"]
        self.kernel_wakeup = cost["kernel.wakeup"]
        self.osd_aio_complete = cost["osd.aio_complete"]
        self.osd_bluestore_submit = cost["osd.bluestore_submit"]
        self.osd_commit_cb = cost["osd.commit_cb"]
        self.osd_do_op = cost["osd.do_op"]
        self.osd_do_read = cost["osd.do_read"]
        self.osd_do_repop = cost["osd.do_repop"]
        self.osd_ec_read_reply = cost["osd.ec_read_reply"]
        self.osd_ec_rmw = cost["osd.ec_rmw"]
        self.osd_ec_rollback = cost["osd.ec_rollback"]
        self.osd_ec_rollforward = cost["osd.ec_rollforward"]
        self.osd_ec_subread = cost["osd.ec_subread"]
        self.osd_kv_apply = cost["osd.kv_apply"]
        self.osd_kv_final = cost["osd.kv_final"]
        self.osd_kv_sync = cost["osd.kv_sync"]
        self.osd_meta_get = cost["osd.meta_get"]
        self.osd_msgr_recv = cost["osd.msgr_recv"]
        self.osd_reply_send = cost["osd.reply_send"]
        self.osd_repop_commit = cost["osd.repop_commit"]
        self.osd_repop_reply = cost["osd.repop_reply"]
        self.osd_repop_send = cost["osd.repop_send"]


class Protocol:
    """Ceph's I/O path over a built :class:`Cluster`."""

    def __init__(self, cluster: Cluster, kernel: Kernel, jitter: Jitter) -> None:
        self.c = cluster
        self.k = kernel
        r = cluster.r
        costs = r.ceph.costs
        log = 1.0 + (costs.logging_overhead if r.ceph.debug_logging == "default" else 0.0)
        self.cost = {s: costs.cost(s) * (log if s.startswith("osd.") else 1.0)
                     for s in costs.kcycles}
        # debug lines formatted in the thread that logs them, at the scenario's levels
        for s, n in r.ceph.debug_lines.items():
            self.cost[s] += n * self.cost["log.line"]
        self.st = Stages(self.cost)
        self.jitter = jitter  #: multiplicative CPU-work factors (``jitter.draw()``)
        self.per_kib = self.cost["kernel.per_kib"]
        #: per message on each end, by connection kind: (kcycles, kcycles per KiB) of the
        #: messenger's crypto (msgr2 secure mode, or a v1 cephx signature)
        wire = {"none": (0.0, 0.0), "signed": (self.cost["crypto.sign_msg"], 0.0),
                "secure": (self.cost["crypto.secure_frame"], self.cost["crypto.secure_per_kib"])}
        self.wire = {"client": wire[r.ceph.client_wire], "cluster": wire[r.ceph.cluster_wire]}
        #: a librbd dispatch thread's work per op, by is_write (a write also runs the
        #: layers a read skips); summed once here, not per op
        self.librbd_kc = {w: sum(self.cost[s] for s in ("client.librbd", "client.objecter")
                                 + (("client.librbd_write",) if w else ()))
                          for w in (False, True)}
        self.engine = r.workload.engine
        #: fio's synchronous engine (psync): its clat clock (issue_time) starts before the
        #: syscall, so the submission is part of clat and no slat is recorded
        self.sync_io = r.workload.sync_io
        self.size = r.pool.size
        self.ec = r.ceph.ec
        if self.ec is not None:  # the plugin's encoding work: per stripe and per KiB x parity
            per_kib = self.cost[f"ec.{self.ec.plugin}_per_kib"]
            self.ec_encode = (self.cost["ec.encode_call"], per_kib * self.ec.m)
        #: an EC overwrite keeps what it overwrites until the entry is rolled forward
        #: (ECTransaction::generate_transactions); a fresh image's writes append, keeping none
        self.ec_rollback = self.ec is not None and r.workload.image_state == "written"
        #: per PG: EC writes in its pipeline, and whether a roll-forward rides on the next
        self.ec_pipeline: dict[int, int] = {}
        self.ec_trim_pending: dict[int, bool] = {}
        self.deferred = r.ceph.write_mode == "deferred"
        self.wal_log_sync = r.ceph.wal_log_sync
        self.notify_all = costs.notify_all_on_enqueue
        hdd = any(h.disk and h.disk.media == "hdd" for h in r.hosts)
        self.batch_ops = 64 if hdd else 16  #: bluestore_deferred_batch_ops_{hdd,ssd}
        self.blocks_per_object = r.workload.blocks_per_object
        self.cost_per_io = COST_PER_IO["hdd" if hdd else "ssd"]
        # whether a read finds its data in the primary's BlueStore buffer cache: one coin
        # per OSD on its own stream (osdN.cache), opened only if the outcome is uncertain
        hit = r.ceph.read_cache_hit
        self.cache_hit: dict[int, Coin] = {
            o.id: Coin(hit, cluster.streams.get(f"{o.name}.cache") if 0.0 < hit < 1.0 else None)
            for o in cluster.osds.values()}
        # whether an object's metadata is in the onode cache, and each RocksDB get of it in
        # the block cache: one stream per OSD (osdN.meta), opened only if a draw is uncertain
        m = r.ceph.meta
        self.meta = m if m is not None and m.onode_hit < 1.0 else None
        #: per OSD: onode cache hit, block cache hit, one more shard (read, write)
        self.meta_coins: dict[int, tuple[Coin, Coin, Coin, Coin]] = {}
        #: per OSD: a block-cache miss found in the host's page cache (buffered BlueFS), on
        #: its own stream (osdN.pagecache), opened only if the outcome is uncertain: with no
        #: page cache the coin draws nothing and every other stream is as before
        self.page_coins: dict[int, Coin] = {}
        if self.meta is not None:
            m = self.meta
            for o in cluster.osds.values():
                rng = cluster.streams.get(f"{o.name}.meta")
                self.meta_coins[o.id] = (Coin(m.onode_hit, rng), Coin(m.kv_hit, rng),
                                         Coin(m.read_shards % 1.0, rng),
                                         Coin(m.write_shards % 1.0, rng))
                p = m.page_hit.get(r.osd_host[o.id], 0.0)
                self.page_coins[o.id] = Coin(
                    p, cluster.streams.get(f"{o.name}.pagecache") if 0.0 < p < 1.0 else None)

    # ------------------------------------------------------------ helpers
    def msg(self, conn: str, nbytes: int) -> float:
        """Kilocycles one end of a message of ``nbytes`` spends on the messenger's crypto
        over a ``conn`` ("client" or "cluster") connection: none in crc mode."""
        frame, per_kib = self.wire[conn]
        return frame + per_kib * nbytes / 1024.0 if frame else 0.0

    def kc(self, stage: float, nbytes: int = 0) -> float:
        """Kilocycles of a stage (``self.st``'s, with variability) plus per-KiB payload work."""
        base = stage * self.jitter.draw()
        if nbytes:
            base += self.per_kib * nbytes / 1024.0
        return base

    def _shard(self, osd: OSD, pg: int, t: int, acc: list[int]) -> tuple[Thread, int]:
        """The shard thread that picks up a PG item queued at ``t``, and when the PG lock is
        free; the wait for the lock is queueing time of the op (``acc``)."""
        threads = osd.shards[pg % len(osd.shards)]
        # the first of the least busy threads (as min(threads, key=free_at)), and whether
        # all of them are idle at t; a plain loop, as this runs a few times per op
        th = threads[0]
        idle = th.free_at <= t
        for x in threads[1:]:
            if x.free_at < th.free_at:
                th = x
            if x.free_at > t:
                idle = False
        if self.notify_all and len(threads) > 1 and idle:
            # notify_all on an empty shard queue: the sibling wakes, finds nothing, sleeps
            for x in threads:
                if x is not th:
                    x.run(t, self.st.kernel_wakeup, None)
        t_lock = max(t, osd.pg_lock.get(pg, 0))
        acc[ACC_QUEUE] += t_lock - t
        return th, t_lock

    def _metadata(self, op: Op, osd: OSD, th: Thread, t: int, acc: list[int],
                  write: bool, attrs_only: bool = False) -> Generator[Any, Any, int]:
        """The op's object metadata, in thread ``th`` (which holds the PG lock): found in
        the onode cache, or loaded with one RocksDB get for the onode and one per extent-map
        shard the I/O needs, each from the block cache, or with buffered BlueFS reads
        (bluefs_buffered_io) from the host's page cache (a copy), or else a 4 KiB read of
        the DB device that the thread waits for (BlueFS reads synchronously).
        ``attrs_only``: the object context's attributes, which live in the onode (no shard;
        an EC primary's getattr).
        The object a job just touched stays cached, with what of it was loaded."""
        m = self.meta
        assert m is not None  # callers look only when metadata can miss
        obj = object_key(op, self.blocks_per_object)
        osd.meta_lookups += 1
        last = osd.meta_last.get(op.job.index)
        onode, kv, rfrac, wfrac = self.meta_coins[osd.id]
        if last is not None and last[0] == obj:
            if attrs_only or last[1]:
                osd.meta_hits += 1
                return t
            gets = 0  # the onode is there, its shards are not yet
        elif onode.draw():  # a cached onode keeps the shards it loaded
            osd.meta_hits += 1
            osd.meta_last[op.job.index] = (obj, True)
            return t
        else:
            gets = 1
        osd.meta_last[op.job.index] = (obj, not attrs_only)
        if not attrs_only:
            # the shards: a fractional mean, one more with that probability
            gets += int(m.write_shards if write else m.read_shards)
            if (wfrac if write else rfrac).draw():
                gets += 1
        k = self.k
        page = self.page_coins[osd.id]
        for _ in range(gets):
            osd.kv_gets += 1
            t = th.run(t, self.kc(self.st.osd_meta_get), acc, handoff=False, step=META_GET)  # goes on working
            if kv.draw():
                osd.kv_hits += 1
                continue
            if page.draw():  # buffered BlueFS: the block is in RAM, pread copies it
                osd.page_hits += 1
                t = th.run(t, self.kc(self.st.kernel_pagecache_read), acc, handoff=False,
                           step=META_PAGE_CACHE)
                continue
            if k.must_yield(t):
                yield t
            t = th.run(t, self.kc(self.st.kernel_io_submit), acc, handoff=False, step=META_IO_SUBMIT)
            if k.must_yield(t):
                yield t
            t = yield from self._read_block(osd, osd.db, th, t, 4096, acc, META_READ_STEPS)
        if k.must_yield(t):
            yield t
        return t

    def _read_block(self, osd: OSD, disk: Disk, th: Thread, t: int, nbytes: int,
                    acc: list[int], steps: tuple[int, int], key: int = -1,
                    offset: int = 0) -> Generator[Any, Any, int]:
        """A read of ``nbytes`` that thread ``th`` blocks on: the device (``key``, ``offset``:
        where, for an HDD's look-ahead), dm-crypt's decryption on completion (crypt_endio:
        a kcryptd worker), then the completion that wakes the thread."""
        k = self.k
        read, done = steps  # labels: the device read, the completion that wakes ``th``
        t = disk.read(t, nbytes, acc, key, offset, read)
        if k.must_yield(t):
            yield t
        if osd.crypt_sector:
            t = self._next_kcryptd(osd).run(t, self._crypt_kc(osd, nbytes), acc,
                                            step=CRYPT_DECRYPT)
            if k.must_yield(t):
                yield t
        return th.run(t, self.kc(self.st.kernel_io_complete), acc, step=done)

    def _reply_data(self, op: Op, worker: Thread, t: int) -> int:
        """A read's MOSDOpReply with its data, built and sent by the msgr-worker owning the
        client connection."""
        t = worker.run(t, self.kc(self.st.osd_reply_send) + self.kc(self.st.kernel_tcp_tx, op.nbytes)
                       + self.msg("client", REPLY_BYTES + op.nbytes), op.acc, step=REPLY_DATA_SEND)
        op.ev[E_SENT] = op.ev[E_DONE] = t
        return t

    # ------------------------------------------------------------ client side
    def client_io(self, op: Op, primary: OSD, done: Join) -> Generator[Any, Any, None]:
        """Kernel process: one fio I/O from submission to completion.

        rbd (librbd): fio thread -> librbd dispatch thread (one op thread before Pacific, an
        io_context pool of two after) -> msgr-worker; reply: msgr-worker -> librados
        finisher -> fio thread.  (From Pacific the finisher strand runs on the same pool;
        here it is its own serial thread, so it does not take CPU from the dispatch.)
        rados (librados directly): the caller runs the Objecter itself.  krbd / CephFS
        kernel client: the fio thread's syscall queues the request to a kworker on its
        CPU (rbd / VFS work, libceph encode), which sends it; the reply is read by
        libceph's work item for that OSD connection (:meth:`Cluster.kernel_conn`), which
        completes the request and wakes fio.
        """
        k, c, acc, job = self.k, self.c, op.acc, op.job
        engine = self.engine
        kernel_client = engine in ("krbd", "cephfs")
        waited = acc[ACC_QUEUE]
        t = job.app.run(k.now, self.kc(self.st.client_submit), acc, handoff=False, step=CLIENT_SUBMIT)
        waited = acc[ACC_QUEUE] - waited
        if waited:
            # The fio thread was busy (reaping or submitting other I/Os).  fio takes an io_u
            # and starts its clock (start_time, in get_io_u) only when the thread gets to
            # it, so that wait is in no latency fio reports: slat is the submission itself.
            acc[ACC_QUEUE] -= waited
            op.submit += waited
            if type(acc) is not list:  # traced: the first span starts with the clock
                name, kind, _, start, end, pen, step = acc.spans[-1]  # type: ignore[attr-defined]
                acc.spans[-1] = (name, kind, start, start, end, pen, step)  # type: ignore[attr-defined]
        op.slat_end = op.submit if self.sync_io else t
        out = OSDOP_HDR + (op.nbytes if op.is_write else 0)
        if kernel_client:
            sender = job.kworker
            if k.must_yield(t):
                yield t
            t = sender.run(t, self.kc(self.st.client_kernel) + self.kc(self.st.kernel_tcp_tx, out)
                           + self.msg("client", out), acc, step=KERNEL_SEND)
        else:
            if engine == "rbd":
                if k.must_yield(t):
                    yield t
                pool = job.librbd  # the first idle dispatch thread, else the least busy
                th = pool[0]
                if th.free_at > t:
                    for x in pool[1:]:
                        if x.free_at < th.free_at:
                            th = x
                t = th.run(t, self.librbd_kc[op.is_write] * self.jitter.draw(), acc, step=LIBRBD_DISPATCH)
            else:  # rados: aio_write runs the Objecter in the caller's thread
                t = job.app.run(t, self.kc(self.st.client_objecter), acc, handoff=False, step=OBJECTER)
            if k.must_yield(t):
                yield t
            sender = job.worker(primary.id)
            t = sender.run(t, self.kc(self.st.client_msgr_send) + self.kc(self.st.kernel_tcp_tx, out)
                           + self.msg("client", out), acc, step=CLIENT_SEND)
        t = yield from c.path(job.host, primary.host).transfer(
            k, t, out, acc, NET_OSDOP_WRITE if op.is_write else NET_OSDOP_READ)
        if k.must_yield(t):
            yield t
        if op.is_write:
            t = yield from (self.primary_write(op, primary, t) if self.ec is None else
                            self.ec_write(op, primary, t))
            back = REPLY_BYTES
        else:
            t = yield from (self.primary_read(op, primary, t) if self.ec is None else
                            self.ec_read(op, primary, t))
            back = REPLY_BYTES + op.nbytes
        t = yield from c.path(primary.host, job.host).transfer(
            k, t, back, acc, NET_REPLY_WRITE if op.is_write else NET_REPLY_READ)
        if k.must_yield(t):
            yield t
        if kernel_client:
            t = c.kernel_conn(job.host, primary.id).run(
                t, self.kc(self.st.client_kernel_complete) + self.kc(self.st.kernel_tcp_rx, back)
                + self.msg("client", back), acc, step=KERNEL_COMPLETE)
        else:
            t = sender.run(t, self.kc(self.st.client_msgr_recv) + self.kc(self.st.kernel_tcp_rx, back)
                           + self.msg("client", back), acc, step=CLIENT_RECV)
            if k.must_yield(t):
                yield t
            t = job.finisher.run(t, self.kc(self.st.client_finisher), acc, step=FINISHER)
        if k.must_yield(t):
            yield t
        t = job.app.run(t, self.kc(self.st.client_complete), acc, step=CLIENT_COMPLETE)
        if k.must_yield(t):
            yield t
        done.arrive(t, op)

    # ------------------------------------------------------------ primary OSD
    def receive_op(self, op: Op, osd: OSD, t: int,
                   inbytes: int) -> Generator[Any, Any, tuple[Thread, Thread, int]]:
        """The msgr-worker owning the client connection reads the op and fast-dispatches it
        to the PG's shard; returns (worker, shard thread, time the shard thread gets the PG)."""
        acc, ev, k = op.acc, op.ev, self.k
        worker = osd.worker(op.job.name)
        ev[E_INIT] = t
        t = worker.run(t, self.kc(self.st.osd_msgr_recv) + self.kc(self.st.kernel_tcp_rx, inbytes)
                       + self.msg("client", inbytes), acc, step=OSD_RECV_OP)
        ev[E_QUEUED] = t
        if k.must_yield(t):
            yield t
        th, t_lock = self._shard(osd, op.pg, t, acc)
        ev[E_REACHED] = ev[E_STARTED] = t_lock  # dequeued by the shard thread
        return worker, th, t_lock

    def primary_write(self, op: Op, osd: OSD, t: int) -> Generator[Any, Any, int]:
        acc, ev, k = op.acc, op.ev, self.k
        worker, th, t_lock = yield from self.receive_op(op, osd, t, OSDOP_HDR + op.nbytes)
        t = th.run(t_lock, self.kc(self.st.osd_do_op), acc, step=DO_OP)
        if self.meta is not None:  # find_object_context -> getattr -> get_onode
            t = yield from self._metadata(op, osd, th, t, acc, True)
        ev[E_WAITSUB] = t
        replicas = self.c.acting[op.pg][1:]
        branches = Join(k, len(replicas) + 1)
        for i, rid in enumerate(replicas):
            k.spawn(self.replicate(op, osd, self.c.osds[rid], i, _fork(acc), branches), t)
        k.spawn(self.local_commit(op, osd, th, _fork(acc), branches), t)
        yield branches
        return self._reply_committed(op, worker, branches)

    def _reply_committed(self, op: Op, worker: Thread, branches: Join) -> int:
        """The last of the op's commits (the local one, the replicas' or shards' replies)
        completes it: eval_repop builds the MOSDOpReply and the msgr-worker owning the
        client connection sends it."""
        acc = op.acc
        acc[:] = branches.last
        t = worker.run(branches.t, self.kc(self.st.osd_reply_send)
                       + self.kc(self.st.kernel_tcp_tx, REPLY_BYTES) + self.msg("client", REPLY_BYTES),
                       acc, step=REPLY_SEND)
        op.ev[E_SENT] = op.ev[E_DONE] = t
        return t

    def _osd_message(self, frm: OSD, to: OSD, t: int, nbytes: int, acc: list[int],
                     steps: tuple[int, int, int],
                     send_kc: float = 0.0) -> Generator[Any, Any, int]:
        """A message of ``nbytes`` from one OSD to another over their connection: the
        sender's msgr-worker (``send_kc`` of the sender's own work, the kernel's send, any
        crypto), the wire, the receiver's msgr-worker (read, decode, fast dispatch).
        ``steps``: the labels of the send, the wire and the receive.  Returns when the
        receiver has dispatched it."""
        k = self.k
        send, wire, recv = steps
        t = frm.worker(to.id).run(t, send_kc + self.kc(self.st.kernel_tcp_tx, nbytes)
                                  + self.msg("cluster", nbytes), acc, step=send)
        t = yield from self.c.path(frm.host, to.host).transfer(k, t, nbytes, acc, wire)
        if k.must_yield(t):
            yield t
        t = to.worker(frm.id).run(t, self.kc(self.st.osd_msgr_recv) + self.kc(self.st.kernel_tcp_rx, nbytes)
                                  + self.msg("cluster", nbytes), acc, step=recv)
        if k.must_yield(t):
            yield t
        return t

    def replicate(self, op: Op, prim: OSD, rep: OSD, i: int, acc: list[int],
                  join: Join, data: int | None = None, extra: float = 0.0,
                  keys: float = 0.0) -> Generator[Any, Any, None]:
        """Branch: MOSDRepOp to one replica (or an EC pool's MOSDECSubOpWrite to one shard,
        carrying ``data`` bytes), its commit, the reply back at the primary."""
        k = self.k
        t = k.now
        data = op.nbytes if data is None else data
        nbytes = REPOP_HDR + data
        # tp_osd_tp encodes the MOSDRepOp (fast-dispatch type: encoded in the caller) and
        # hands it to the msgr-worker owning the replica connection; the replica's
        # msgr-worker reads and decodes it and fast-dispatches it to the PG's shard
        # (ProtocolV2 -> OSD::ms_fast_dispatch), as for a client op
        ec = self.ec is not None
        t = yield from self._osd_message(prim, rep, t, nbytes, acc,
                                         EC_SUBWRITE_MSG if ec else REPOP_MSG,
                                         self.kc(self.st.osd_repop_send, nbytes))
        th, t_lock = self._shard(rep, op.pg, t, acc)
        t = th.run(t_lock, self.kc(self.st.osd_do_repop), acc, step=EC_SUBWRITE if ec else DO_REPOP)
        if self.meta is not None:  # queue_transactions -> _write -> get_onode, fault_range
            t = yield from self._metadata(op, rep, th, t, acc, True)
        t = yield from self.bluestore_commit(op, rep, th, t, acc, nbytes=data, extra=extra,
                                             keys=keys)
        # repop_commit in the shard's first thread (Luminous, Mimic: BlueStore's finisher,
        # under the PG lock), reply via the msgr-worker
        t = rep.commit_thread(op.pg).run(t, self.kc(self.st.osd_repop_commit), acc,
                                         step=EC_SUBWRITE_COMMIT if ec else REPOP_COMMIT)
        if k.must_yield(t):
            yield t
        t = yield from self._osd_message(rep, prim, t, REPLY_BYTES, acc,
                                         EC_SUBWRITE_REPLY_MSG if ec else REPOP_REPLY_MSG)
        th, t_lock = self._shard(prim, op.pg, t, acc)
        t = th.run(t_lock, self.kc(self.st.osd_repop_reply), acc,
                   step=EC_SUBWRITE_REPLY if ec else REPOP_REPLY)
        prim.hold_pg(op.pg, t)
        op.ev[E_SUBREC] = max(op.ev[E_SUBREC], t)
        join.arrive(t, acc)

    def local_commit(self, op: Op, osd: OSD, th: Thread, acc: list[int],
                     join: Join, data: int | None = None, extra: float = 0.0,
                     keys: float = 0.0) -> Generator[Any, Any, None]:
        """Branch: the primary's own BlueStore transaction (an EC pool: its own shard's,
        ``data`` bytes), then its commit callback."""
        t = self.k.now
        if data is not None and self.meta is not None:  # an EC primary's own sub-write
            t = yield from self._metadata(op, osd, th, t, acc, True)
        t = yield from self.bluestore_commit(op, osd, th, t, acc, handoff=False, nbytes=data,
                                             extra=extra, keys=keys)
        t = osd.commit_thread(op.pg).run(t, self.kc(self.st.osd_commit_cb), acc, step=COMMIT_CB)
        osd.hold_pg(op.pg, t)
        op.ev[E_OPCOMMIT] = t
        join.arrive(t, acc)

    # ------------------------------------------------------------ BlueStore
    def bluestore_commit(self, op: Op, osd: OSD, th: Thread, t: int, acc: list[int],
                         handoff: bool = False, nbytes: int | None = None,
                         extra: float = 0.0, keys: float = 0.0) -> Generator[Any, Any, int]:
        """queue_transactions -> (data aio) -> kv_sync batch -> kv_final. Returns commit time.
        ``nbytes``: the data the transaction writes (default the op's; an EC shard's chunk,
        or 0 for a shard that only records the log entry); ``extra``: kilocycles of work
        the transaction adds (an EC shard's rollback copy) and ``keys`` the RocksDB keys it
        adds, in units of a write's."""
        k = self.k
        nbytes = op.nbytes if nbytes is None else nbytes
        cost = nbytes + self.cost_per_io
        deferred = self.deferred
        while (osd.throttle_kv + cost > THROTTLE_BYTES and osd.throttle_kv > 0) or (
                deferred and osd.throttle_deferred + cost > THROTTLE_BYTES + THROTTLE_DEFERRED_BYTES
                and osd.throttle_deferred > 0):
            wait = Join(k, 1)
            osd.throttle_waiters.append(wait)
            osd.throttled += 1
            yield wait
            acc[ACC_QUEUE] += wait.t - t
            t = wait.t
        osd.throttle_kv += cost
        if deferred:
            osd.throttle_deferred += cost
        work = self.kc(self.st.osd_bluestore_submit) + self.kc(self.st.kernel_io_submit)
        if extra:
            work += extra * self.jitter.draw()
        t = th.run(t, work, acc, handoff=handoff, step=BLUESTORE_SUBMIT)
        osd.hold_pg(op.pg, t)  # PG lock held until here
        if k.must_yield(t):
            yield t
        if not self.deferred and nbytes:
            if osd.crypt_sector:
                t = yield from self._encrypt(osd, t, nbytes, acc)
            t = osd.disk.write(t, nbytes, acc, step=DATA_WRITE)
            if k.must_yield(t):
                yield t
            t = osd.aio_data.run(
                t, self.kc(self.st.osd_aio_complete) + self.kc(self.st.kernel_io_complete), acc,
                step=AIO_DATA_DONE)
            if k.must_yield(t):
                yield t
        wait = Join(k, 1)
        osd.kv_pending.append(KvTxc(t, acc, wait, nbytes, cost, keys))
        if not osd.kv_running:
            osd.kv_running = True
            self.k.spawn(self.kv_sync_loop(osd), t)
        yield wait
        t = wait.t
        t = osd.kv_final.run(t, self.kc(self.st.osd_kv_final), acc, step=KV_FINAL)
        if k.must_yield(t):
            yield t
        if self.deferred and nbytes:
            self._deferred_apply(osd, t, cost, op, nbytes)
        return t

    def kv_sync_loop(self, osd: OSD) -> Generator[Any, Any, None]:
        """bstore_kv_sync: commit everything queued since the last cycle in one batch."""
        k, disk, kv = self.k, osd.disk, osd.kv_sync
        # bdev->flush() of the data device (BlueStore::_kv_sync_thread, force_flush): when
        # this cycle's txcs wrote data there (aios); with a separate DB device also when
        # deferred writes have completed since (deferred_done), as the WAL sync on the
        # other device cannot make them stable.  On one shared device it does.
        separate = osd.db is not disk
        while osd.kv_pending:
            batch, osd.kv_pending = osd.kv_pending, []
            start = max(k.now, kv.free_at)
            traced = False
            for b in batch:
                if type(b.acc) is not list:
                    traced = True
            cyc = TracedAcc() if traced else [0, 0, 0, 0, 0]
            # _txc_apply_kv, once per txc: a non-sync RocksDB write each.  This is the
            # part of a cycle that grows with the batch, so at high load the single
            # kv_sync thread, not the cores, can be what an OSD's write rate runs into.
            apply = self.st.osd_kv_apply * len(batch)
            if self.ec is not None:  # the rollback copies' keys
                apply += self.st.osd_kv_apply * sum(b.keys for b in batch)
            if not self.deferred or (osd.kv_need_flush and separate):
                osd.kv_need_flush = False
                t = kv.run(start, self.kc(self.st.osd_kv_sync) * 0.5, cyc, step=KV_TAKE_FLUSH)
                if k.must_yield(t):
                    yield t
                t = disk.flush(t, cyc, DATA_FLUSH)  # bdev->flush(): fdatasync of the data device
                kv.free_at = t
                if k.must_yield(t):
                    yield t
                t = kv.run(t, (self.st.kernel_io_complete + apply) * self.jitter.draw(), cyc,
                           step=KV_APPLY_AFTER_FLUSH)
            else:  # nothing to flush: straight to the applies
                t = kv.run(start, (self.st.osd_kv_sync * 0.5 + apply) * self.jitter.draw(), cyc,
                           step=KV_TAKE_APPLY)
            if k.must_yield(t):
                yield t
            # after the applies, before the sync (as BlueStore::_kv_sync_thread does)
            self._release_kv(osd, batch, t)
            data = sum(b.nbytes for b in batch) if self.deferred else 0  # deferred data rides in the WAL
            # the WAL record is the batch's RocksDB WriteBatch: every txc's keys and values
            # (KV_TXC_BYTES), the same bytes the memtable later flushes (RocksDB wiki,
            # Write Ahead Log File Format); BlueFS writes whole 4 KiB blocks
            wal = 4096 * math.ceil((data + KV_TXC_BYTES * len(batch)) / 4096)
            t = yield from self._bluefs_append_sync(osd, t, wal, cyc, WAL_STEPS)  # the RocksDB WAL
            if self.wal_log_sync:
                # the WAL file grew, so BlueFS's own log must record the new size before
                # the fsync returns (BlueFS::_fsync -> _flush_and_sync_log): one more
                # 4 KiB write and one more flush per cycle (see resolve.WAL_RECYCLED).
                # Back from fdatasync, then the log record's aio submit (the WAL append's
                # submit is part of osd.kv_sync's per-cycle cost; this one is not).
                t = kv.run(t, self.kc(self.st.kernel_io_complete) + self.kc(self.st.kernel_io_submit), cyc,
                           step=KV_LOG_SUBMIT)
                if k.must_yield(t):
                    yield t
                t = yield from self._bluefs_append_sync(osd, t, 4096, cyc, LOG_STEPS)  # op_file_update
            t = kv.run(t, self.kc(self.st.kernel_io_complete) + self.kc(self.st.osd_kv_sync) * 0.5, cyc,
                       step=KV_DONE_AFTER_LOG if self.wal_log_sync else KV_DONE_AFTER_WAL)
            osd.kv_cycles += 1
            osd.kv_batched += len(batch)
            osd.db.background(len(batch) * KV_TXC_BYTES * ROCKSDB_WRITE_AMP)
            c0, c1, c2, c3, c4 = cyc
            for b in batch:
                t_enq, acc, wait = b.enqueued, b.acc, b.wait
                acc[ACC_NET] += c0
                acc[ACC_CPU] += c1
                acc[ACC_WAKE] += c2
                acc[ACC_DISK] += c3
                acc[ACC_QUEUE] += c4 + start - t_enq
                if type(acc) is not list:  # a traced op: the batch it rode in
                    acc.spans.append((f"{osd.name}.kv_sync batch", "wait", t_enq, start, start, 0,
                                      KV_BATCH_WAIT))
                    acc.spans.extend(cyc.spans)  # type: ignore[union-attr]
                wait.arrive(t)
            if k.must_yield(t):
                yield t
        osd.kv_running = False

    def _bluefs_append_sync(self, osd: OSD, t: int, nbytes: int, acc: list[int],
                            steps: tuple[int, int, int, int]) -> Generator[Any, Any, int]:
        """bstore_kv_sync appends ``nbytes`` to a BlueFS file and syncs it: the O_DIRECT aio
        write, its completion on BlueFS's bstore_aio thread waking kv_sync, then fdatasync
        of the device (the DB device, or the data disk when RocksDB shares it).  Returns
        when the flush is done."""
        k, disk, kv = self.k, osd.db, osd.kv_sync
        write, done, wake, flush = steps  # labels: the WAL's or BlueFS log's
        if osd.crypt_sector:  # block.db is encrypted as the data device is
            t = yield from self._encrypt(osd, t, nbytes, acc)
        t = disk.write(t, nbytes, acc, write)
        kv.free_at = t
        if k.must_yield(t):
            yield t
        t = osd.aio_bluefs.run(t, self.kc(self.st.kernel_io_complete), acc, step=done)
        if k.must_yield(t):
            yield t
        t = kv.run(t, 0.0, acc, step=wake)  # bstore_aio wakes kv_sync waiting in BlueFS
        if k.must_yield(t):
            yield t
        t = disk.flush(t, acc, flush)  # fdatasync of the BlueFS device
        kv.free_at = t
        if k.must_yield(t):
            yield t
        return t

    # ------------------------------------------------------------ dm-crypt
    def _crypt_kc(self, osd: OSD, nbytes: int) -> float:
        """kcryptd's work for one bio: the hop, one cipher request per sector, the bytes."""
        sectors = -(-nbytes // osd.crypt_sector)
        return (self.kc(self.st.kernel_crypt_queue) + sectors * self.st.kernel_crypt_sector
                + self.st.kernel_crypt_per_kib * nbytes / 1024.0)

    @staticmethod
    def _next_kcryptd(osd: OSD) -> Thread:
        w = osd.kcryptd[osd.crypt_next % len(osd.kcryptd)]
        osd.crypt_next += 1
        return w

    def _encrypt(self, osd: OSD, t: int, nbytes: int, acc: list[int]) -> Generator[Any, Any, int]:
        """A block write through dm-crypt: kcryptd encrypts the bio (crypt_convert), then
        the device's dmcrypt_write thread submits it (kcryptd_crypt_write_io_submit ->
        dmcrypt_write, drivers/md/dm-crypt.c); two hand-offs, each may wake a thread."""
        k = self.k
        t = self._next_kcryptd(osd).run(t, self._crypt_kc(osd, nbytes), acc, step=CRYPT_ENCRYPT)
        if k.must_yield(t):
            yield t
        assert osd.crypt_write is not None
        t = osd.crypt_write.run(t, self.kc(self.st.kernel_crypt_queue), acc, step=CRYPT_SUBMIT)
        if k.must_yield(t):
            yield t
        return t

    # ------------------------------------------------------------ throttles
    def _release_kv(self, osd: OSD, batch: list, t: int) -> None:
        """kv_sync releases the kv throttle of a batch it applied (called at kernel time t)."""
        osd.throttle_kv -= sum(b.cost for b in batch)
        self._wake_throttled(osd, t)

    def _wake_throttled(self, osd: OSD, t: int) -> None:
        if osd.throttle_waiters:
            waiters, osd.throttle_waiters = osd.throttle_waiters, []
            for w in waiters:  # FIFO: each re-checks the throttle when it runs
                w.arrive(t)

    def _release_deferred(self, osd: OSD, amount: int) -> Generator[Any, Any, None]:
        """Kernel process started when a deferred batch's writes complete (deferred_done):
        the next kv cycle must flush the data device before they count as stable."""
        osd.throttle_deferred -= amount
        osd.kv_need_flush = True
        self._wake_throttled(osd, self.k.now)
        return
        yield  # pragma: no cover

    def _deferred_apply(self, osd: OSD, t: int, cost: int, op: Op, nbytes: int) -> None:
        """Deferred writes reach their final place later, in batches, off the latency path.

        Submitted when ``bluestore_deferred_batch_ops`` are queued or the deferred
        throttle is past its midpoint (``BlueStore::_deferred_queue`` / ``deferred_try_submit``
        in ``src/os/bluestore/BlueStore.cc``); the deferred throttle
        is released when the batch's writes have completed.  A batch keeps its writes by
        device offset and submits each contiguous run as one I/O
        (``_deferred_submit_unlock``), so sequential small writes reach an HDD as a few
        large writes, not one access each.
        """
        osd.deferred_bytes += cost
        osd.deferred_extents.append((op.job.index, op.block, nbytes))
        past_mid = osd.throttle_deferred > (THROTTLE_BYTES + THROTTLE_DEFERRED_BYTES) // 2
        if len(osd.deferred_extents) >= self.batch_ops or past_mid:
            end = t
            for nbytes in deferred_runs(osd.deferred_extents, self.blocks_per_object):
                if osd.crypt_sector:  # off every op's path: the workers' CPU only
                    self._next_kcryptd(osd).run(t, self._crypt_kc(osd, nbytes), None)
                end = max(end, osd.disk.write(t, nbytes, None))
            self.k.spawn(self._release_deferred(osd, osd.deferred_bytes), end)
            osd.deferred_bytes = 0
            osd.deferred_extents = []

    # ------------------------------------------------------------ erasure-coded pools
    def ec_write(self, op: Op, osd: OSD, t: int) -> Generator[Any, Any, int]:
        """An EC pool's primary: plan, read what the parity needs (read-modify-write),
        encode, sub-writes to the shards (its own committed locally), reply when all
        have committed (ECBackend::submit_transaction, start_rmw, try_reads_to_commit,
        try_finish_rmw)."""
        acc, ev, k = op.acc, op.ev, self.k
        worker, th, t_lock = yield from self.receive_op(op, osd, t, OSDOP_HDR + op.nbytes)
        t = th.run(t_lock, self.kc(self.st.osd_do_op) + self.kc(self.st.osd_ec_rmw), acc, step=EC_DO_OP)
        if self.meta is not None:  # the object context: its own shard object's attributes
            t = yield from self._metadata(op, osd, th, t, acc, True, attrs_only=True)
        ev[E_WAITSUB] = t
        reads, writes, encoded = ec_plan(self.ec, self.blocks_per_object, op.block, op.nbytes, True)
        pg = op.pg
        self.ec_pipeline[pg] = self.ec_pipeline.get(pg, 0) + 1
        # what a shard's transaction keeps for rollback (with data: touch + clone_range),
        # and the previous entry's copy it trims when no roll-forward of its own came
        clone = self.st.osd_ec_rollback if self.ec_rollback else 0.0
        trim = clone if self.ec_trim_pending.pop(pg, False) else 0.0
        if reads:
            osd.hold_pg(op.pg, t)  # the op waits for its reads without the PG lock
            t, th = yield from self._ec_reads(op, osd, reads, t)  # acc (op.acc) updated
        call, per_kib = self.ec_encode
        t = th.run(t, (call + per_kib * encoded / 1024.0) * self.jitter.draw(), acc,
                   handoff=False, step=EC_ENCODE)
        shards = self.c.acting[op.pg]
        branches = Join(k, len(writes))
        for idx, nbytes in writes:
            rid = shards[idx]
            extra = (clone if nbytes else 0.0) + trim
            keys = extra / clone * EC_ROLLBACK_KEYS if extra else 0.0
            if rid == osd.id:
                k.spawn(self.local_commit(op, osd, th, _fork(acc), branches, nbytes, extra,
                                          keys), t)
            else:
                k.spawn(self.replicate(op, osd, self.c.osds[rid], idx, _fork(acc), branches,
                                       nbytes, extra, keys), t)
        yield branches
        t = self._reply_committed(op, worker, branches)
        left = self.ec_pipeline[pg] - 1
        self.ec_pipeline[pg] = left
        if self.ec_rollback:
            if left == 0:  # nothing behind it in the PG's pipeline: roll forward now
                k.spawn(self._ec_rollforward(op, osd, [i for i, _ in writes]), branches.t)
            else:  # the next write's transactions carry it
                self.ec_trim_pending[pg] = True
        return t

    def _ec_rollforward(self, op: Op, osd: OSD, shard_idx: list[int]) -> Generator[Any, Any, None]:
        """ECBackend::try_finish_rmw: a write that has committed everywhere with nothing
        waiting in its PG's pipeline is followed by an empty op to every shard it wrote,
        whose transaction rolls the entry forward and drops the rollback copy
        (trim_rollback_object).  Off the client's path, but its sub-writes take the shards'
        threads, kv_sync cycles and devices like a write's."""
        k = self.k
        nop = Op(op.job, True, 0, op.pg, k.now, op.seq, op.block)
        acc = nop.acc
        th, t_lock = self._shard(osd, op.pg, k.now, acc)
        t = th.run(t_lock, self.kc(self.st.osd_ec_rollforward), acc, step=EC_ROLLFORWARD)
        if k.must_yield(t):
            yield t
        trim = self.st.osd_ec_rollback
        join = Join(k, len(shard_idx))
        shards = self.c.acting[op.pg]
        for idx in shard_idx:
            rid = shards[idx]
            if rid == osd.id:
                k.spawn(self.local_commit(nop, osd, th, _fork(acc), join, 0, trim,
                                          EC_ROLLBACK_KEYS), t)
            else:
                k.spawn(self.replicate(nop, osd, self.c.osds[rid], idx, _fork(acc), join, 0,
                                       trim, EC_ROLLBACK_KEYS), t)
        yield join

    def ec_read(self, op: Op, osd: OSD, t: int) -> Generator[Any, Any, int]:
        """An EC pool's primary serves a read from the shards that hold it (all k data
        shards before Tentacle's optimized EC); with every data shard read the code is
        systematic, so nothing is decoded."""
        acc = op.acc
        worker, th, t_lock = yield from self.receive_op(op, osd, t, OSDOP_HDR)
        t = th.run(t_lock, self.kc(self.st.osd_do_read), acc, step=EC_DO_READ)
        if self.meta is not None:  # the object context: its own shard object's attributes
            t = yield from self._metadata(op, osd, th, t, acc, False, attrs_only=True)
        osd.hold_pg(op.pg, t)
        reads, _, _ = ec_plan(self.ec, self.blocks_per_object, op.block, op.nbytes, False)
        t, th = yield from self._ec_reads(op, osd, reads, t)
        osd.hold_pg(op.pg, t)
        return self._reply_data(op, worker, t)

    def _ec_reads(self, op: Op, osd: OSD, reads: list[tuple[int, int]],
                  t: int) -> Generator[Any, Any, tuple[int, Thread]]:
        """Sub-reads to the shards in parallel (the primary's own shard through its own op
        queue); returns when the last reply has been handled, and the shard thread that
        handled it (it goes on with the op)."""
        k, acc = self.k, op.acc
        shards = self.c.acting[op.pg]
        join = Join(k, len(reads))
        for idx, nbytes in reads:
            k.spawn(self._ec_subread(op, osd, self.c.osds[shards[idx]], idx, nbytes,
                                     _fork(acc), join), t)
        yield join
        acc2, th = join.last
        op.acc[:] = acc2
        return join.t, th

    def _ec_subread(self, op: Op, prim: OSD, rep: OSD, idx: int, nbytes: int,
                    acc: list[int], join: Join) -> Generator[Any, Any, None]:
        """Branch: MOSDECSubOpRead to one shard (or to the primary itself, without the
        network), the shard reads its chunk (its object's metadata first), the reply back
        and its handling at the primary (handle_sub_read_reply, under the PG lock)."""
        k = self.k
        t = k.now
        local = rep is prim
        if not local:
            t = yield from self._osd_message(prim, rep, t, EC_READ_HDR, acc, EC_SUBREAD_MSG,
                                             self.kc(self.st.osd_repop_send))
        th, t_lock = self._shard(rep, op.pg, t, acc)
        t = th.run(t_lock, self.kc(self.st.osd_ec_subread), acc, step=EC_SUBREAD)
        if self.meta is not None:  # the shard's own object
            t = yield from self._metadata(op, rep, th, t, acc, False)
        t = th.run(t, self.kc(self.st.kernel_io_submit), acc, handoff=False, step=EC_SUBREAD_IO_SUBMIT)
        if k.must_yield(t):
            yield t
        per = self.blocks_per_object
        t = yield from self._read_block(rep, rep.disk, th, t, nbytes, acc, DATA_READ_STEPS,
                                        object_key(op, per), (op.block % per) * op.nbytes)
        if not local:
            t = yield from self._osd_message(rep, prim, t, REPLY_BYTES + nbytes, acc,
                                             EC_SUBREAD_REPLY_MSG)
            th, t_lock = self._shard(prim, op.pg, t, acc)
            t = th.run(t_lock, self.kc(self.st.osd_ec_read_reply), acc, step=EC_SUBREAD_REPLY)
        else:
            t = th.run(t, self.kc(self.st.osd_ec_read_reply), acc, handoff=False, step=EC_SUBREAD_REPLY)
        prim.hold_pg(op.pg, t)
        join.arrive(t, (acc, th))

    # ------------------------------------------------------------ reads
    def primary_read(self, op: Op, osd: OSD, t: int) -> Generator[Any, Any, int]:
        acc, k = op.acc, self.k
        worker, th, t_lock = yield from self.receive_op(op, osd, t, OSDOP_HDR)
        if self.cache_hit[osd.id].draw():
            # BlueStore::_do_read finds every extent in the onode's buffer cache: no device
            # I/O, the shard thread builds the reply from the cached buffers
            t = th.run(t_lock, self.kc(self.st.osd_do_read), acc, step=DO_READ_CACHED)
        else:
            if self.meta is not None:  # the data is not cached: is its onode?
                t_lock = yield from self._metadata(op, osd, th, t_lock, acc, False)
            t = th.run(t_lock, self.kc(self.st.osd_do_read) + self.kc(self.st.kernel_io_submit), acc,
                       step=DO_READ_SUBMIT)
            if k.must_yield(t):
                yield t
            per = self.blocks_per_object  # where: the object and the offset in it
            t = yield from self._read_block(osd, osd.disk, th, t, op.nbytes, acc,
                                            DATA_READ_STEPS, object_key(op, per),
                                            op.block % per * op.nbytes)
        osd.hold_pg(op.pg, t)
        if k.must_yield(t):
            yield t
        return self._reply_data(op, worker, t)
