"""The write path's step vocabulary: one table of every step the model's protocol takes.

Each span a traced op records carries one of these ids (``writepath`` passes it to the
component that does the work); ``explain``'s text, its timeline and the reports render
from this table, so the story is told once.  The narrative: docs/model.md.
"""

from __future__ import annotations

from typing import Final, NamedTuple


class Label(NamedTuple):
    """What one step is: who runs it, on which thread, doing what, following which Ceph
    (or kernel) code."""

    actor: str  #: client, primary, replica (a replica or an EC shard), osd (either), net
    thread: str  #: as the text names it: "msgr-worker", "op shard", "bstore_kv_sync", ...
    action: str  #: what it does; {kib} {op} {call} {dev} are filled in by the renderer
    follows: str  #: the Ceph or kernel function it models


UNLABELLED: Final = 0
# --- client
CLIENT_SUBMIT: Final = 1
LIBRBD_DISPATCH: Final = 2
OBJECTER: Final = 3
KERNEL_SEND: Final = 4
CLIENT_SEND: Final = 5
NET_OSDOP_WRITE: Final = 6
NET_OSDOP_READ: Final = 7
NET_REPLY_WRITE: Final = 8
NET_REPLY_READ: Final = 9
CLIENT_RECV: Final = 10
KERNEL_COMPLETE: Final = 11
FINISHER: Final = 12
CLIENT_COMPLETE: Final = 13
# --- primary
OSD_RECV_OP: Final = 20
DO_OP: Final = 21
REPLY_SEND: Final = 22
REPLY_DATA_SEND: Final = 23
REPOP_SEND: Final = 24
NET_REPOP: Final = 25
REPOP_REPLY_RECV: Final = 26
REPOP_REPLY: Final = 27
COMMIT_CB: Final = 28
DO_READ_CACHED: Final = 29
DO_READ_SUBMIT: Final = 30
# --- replica
REPOP_RECV: Final = 40
DO_REPOP: Final = 41
REPOP_COMMIT: Final = 42
REPOP_REPLY_SEND: Final = 43
NET_REPOP_REPLY: Final = 44
# --- BlueStore, on any OSD of the op
BLUESTORE_SUBMIT: Final = 50
DATA_WRITE: Final = 51
AIO_DATA_DONE: Final = 52
KV_BATCH_WAIT: Final = 53
KV_TAKE_FLUSH: Final = 54
DATA_FLUSH: Final = 55
KV_APPLY_AFTER_FLUSH: Final = 56
KV_TAKE_APPLY: Final = 57
WAL_WRITE: Final = 58
WAL_AIO_DONE: Final = 59
KV_WAL_WRITTEN: Final = 60
WAL_FLUSH: Final = 61
KV_LOG_SUBMIT: Final = 62
LOG_WRITE: Final = 63
LOG_AIO_DONE: Final = 64
KV_LOG_WRITTEN: Final = 65
LOG_FLUSH: Final = 66
KV_DONE_AFTER_WAL: Final = 67
KV_DONE_AFTER_LOG: Final = 68
KV_FINAL: Final = 69
META_GET: Final = 70
META_IO_SUBMIT: Final = 71
META_READ: Final = 72
META_READ_DONE: Final = 73
DATA_READ: Final = 74
DATA_READ_DONE: Final = 75
CRYPT_ENCRYPT: Final = 76
CRYPT_SUBMIT: Final = 77
CRYPT_DECRYPT: Final = 78
META_PAGE_CACHE: Final = 79
# --- erasure-coded pools
EC_DO_OP: Final = 80
EC_ENCODE: Final = 81
EC_SUBWRITE_SEND: Final = 82
NET_EC_SUBWRITE: Final = 83
EC_SUBWRITE_RECV: Final = 84
EC_SUBWRITE: Final = 85
EC_SUBWRITE_COMMIT: Final = 86
EC_SUBWRITE_REPLY_SEND: Final = 87
NET_EC_SUBWRITE_REPLY: Final = 88
EC_SUBWRITE_REPLY_RECV: Final = 89
EC_SUBWRITE_REPLY: Final = 90
EC_DO_READ: Final = 91
EC_SUBREAD_SEND: Final = 92
NET_EC_SUBREAD: Final = 93
EC_SUBREAD_RECV: Final = 94
EC_SUBREAD: Final = 95
EC_SUBREAD_IO_SUBMIT: Final = 96
EC_SUBREAD_REPLY_SEND: Final = 97
NET_EC_SUBREAD_REPLY: Final = 98
EC_SUBREAD_REPLY_RECV: Final = 99
EC_SUBREAD_REPLY: Final = 100
EC_ROLLFORWARD: Final = 101

STEPS: Final[dict[int, Label]] = {
    UNLABELLED: Label("osd", "", "", ""),
    # the client
    CLIENT_SUBMIT: Label("client", "fio thread", "submits the {op} {call}",
                         "fio's io_u -> the engine's submit"),
    LIBRBD_DISPATCH: Label("client", "librbd", "image request -> object -> Objecter picks the PG "
                           "and primary OSD", "librbd ImageDispatcher -> ObjectDispatcher -> "
                           "Objecter::op_submit"),
    OBJECTER: Label("client", "fio thread", "librados Objecter (op_submit): picks the PG and "
                    "primary OSD, builds the MOSDOp", "Objecter::op_submit"),
    KERNEL_SEND: Label("client", "kernel client (libceph kworker)", "maps the request to an object "
            "and OSD, encodes and sends the MOSDOp", "libceph ceph_osdc_start_request"),
    CLIENT_SEND: Label("client", "client msgr-worker", "encodes MOSDOp, kernel TCP send",
                       "AsyncConnection::send_message"),
    NET_OSDOP_WRITE: Label("net", "", "MOSDOp: the write request and its {kib} KiB travel to "
                           "the primary", "MOSDOp"),
    NET_OSDOP_READ: Label("net", "", "MOSDOp: the read request travels to the primary", "MOSDOp"),
    NET_REPLY_WRITE: Label("net", "", "MOSDOpReply: 'committed' travels back to the client",
                           "MOSDOpReply"),
    NET_REPLY_READ: Label("net", "", "MOSDOpReply: the {kib} KiB of data travel back to the "
                          "client", "MOSDOpReply"),
    CLIENT_RECV: Label("client", "client msgr-worker", "TCP receive, decodes the reply",
                       "ProtocolV2 read -> Objecter::handle_osd_op_reply"),
    KERNEL_COMPLETE: Label("client", "kernel client (libceph)", "reads the reply, completes "
                           "the request, wakes fio", "libceph handle_reply"),
    FINISHER: Label("client", "librados finisher", "runs the completion callback",
                    "librados AioCompletion"),
    CLIENT_COMPLETE: Label("client", "fio thread", "reaps the completion", "fio io_getevents"),
    # the primary
    OSD_RECV_OP: Label("primary", "msgr-worker", "TCP receive, decodes the message, queues the "
                       "op to its PG's shard (initiated -> queued_for_pg)",
                       "OSD::ms_fast_dispatch -> enqueue_op"),
    DO_OP: Label("primary", "op shard (tp_osd_tp)", "do_op, PG log entry, transaction, "
                 "MOSDRepOps (reached_pg -> waiting for subops)",
                 "PrimaryLogPG::do_op -> execute_ctx -> issue_repop"),
    REPLY_SEND: Label("primary", "msgr-worker", "sends MOSDOpReply to the client (commit_sent)",
                      "PrimaryLogPG::eval_repop"),
    REPLY_DATA_SEND: Label("primary", "msgr-worker", "sends MOSDOpReply with the data to the "
                           "client", "PrimaryLogPG::do_op reply"),
    REPOP_SEND: Label("primary", "msgr-worker", "encodes and sends the MOSDRepOp",
                      "ReplicatedBackend::issue_op"),
    NET_REPOP: Label("net", "", "MOSDRepOp: the data and PG log entry travel to a replica",
                     "MOSDRepOp"),
    REPOP_REPLY_RECV: Label("primary", "msgr-worker", "TCP receive, decodes the replica's reply",
                            "OSD::ms_fast_dispatch"),
    REPOP_REPLY: Label("primary", "op shard", "handles the replica's reply (sub_op_commit_rec)",
                       "ReplicatedBackend::do_repop_reply"),
    COMMIT_CB: Label("primary", "op shard", "commit callback (op_commit)",
                     "ReplicatedBackend::op_commit"),
    DO_READ_CACHED: Label("primary", "op shard (tp_osd_tp)", "do_op for a read: object "
                          "context, BlueStore read served from the buffer cache (no device "
                          "I/O), builds the reply", "PrimaryLogPG::do_read -> BlueStore::_do_read"),
    DO_READ_SUBMIT: Label("primary", "op shard (tp_osd_tp)", "do_op for a read: object "
                          "context, BlueStore read (onode, extents), submits the device read",
                          "PrimaryLogPG::do_read -> BlueStore::_do_read"),
    # a replica
    REPOP_RECV: Label("replica", "msgr-worker", "TCP receive, decodes the MOSDRepOp, queues it "
                      "to its PG's shard", "OSD::ms_fast_dispatch"),
    DO_REPOP: Label("replica", "op shard", "do_repop (applies the PG log entry)",
                    "ReplicatedBackend::do_repop"),
    REPOP_COMMIT: Label("replica", "op shard", "repop_commit, queues the reply",
                        "ReplicatedBackend::repop_commit"),
    REPOP_REPLY_SEND: Label("replica", "msgr-worker", "sends the reply to the primary",
                            "MOSDRepOpReply"),
    NET_REPOP_REPLY: Label("net", "", "MOSDRepOpReply: the replica's 'committed' travels back "
                           "to the primary", "MOSDRepOpReply"),
    # BlueStore
    BLUESTORE_SUBMIT: Label("osd", "op shard", "BlueStore queue_transaction: the transaction "
                            "starts its commit", "BlueStore::queue_transactions"),
    DATA_WRITE: Label("osd", "disk", "disk write: the data to its final place (direct, aio)",
                      "BlueStore::_do_alloc_write / _do_write_small"),
    AIO_DATA_DONE: Label("osd", "bstore_aio", "I/O completion interrupt -> queues the "
                         "transaction for bstore_kv_sync", "BlueStore::_txc_finish_io"),
    KV_BATCH_WAIT: Label("osd", "bstore_kv_sync", "waits for bstore_kv_sync to pick up its "
                         "transaction (group commit: the previous batch, or a background "
                         "RocksDB stall, must finish)", "BlueStore::_kv_sync_thread"),
    KV_TAKE_FLUSH: Label("osd", "bstore_kv_sync", "takes everything queued as one batch, "
                         "flushes the data", "BlueStore::_kv_sync_thread (bdev->flush)"),
    DATA_FLUSH: Label("osd", "disk", "makes the data durable before the RocksDB commit",
                      "KernelDevice::flush"),
    KV_APPLY_AFTER_FLUSH: Label("osd", "bstore_kv_sync", "data flushed; applies each queued "
                                "transaction to RocksDB (one _txc_apply_kv per txc)",
                                "BlueStore::_txc_apply_kv"),
    KV_TAKE_APPLY: Label("osd", "bstore_kv_sync", "takes everything queued as one batch, "
                         "applies each transaction to RocksDB (one _txc_apply_kv per txc)",
                         "BlueStore::_txc_apply_kv"),
    WAL_WRITE: Label("osd", "disk", "{dev} write: RocksDB WAL append (BlueFS, O_DIRECT)",
                     "RocksDB WAL -> BlueFS::_flush_range"),
    WAL_AIO_DONE: Label("osd", "bstore_aio", "I/O completion interrupt -> wakes bstore_kv_sync "
                        "waiting in BlueFS", "KernelDevice::_aio_thread"),
    KV_WAL_WRITTEN: Label("osd", "bstore_kv_sync", "WAL written, issues the flush",
                          "BlueFS::_fsync"),
    WAL_FLUSH: Label("osd", "disk", "makes the RocksDB WAL durable", "BlueFS::_flush_bdev"),
    KV_LOG_SUBMIT: Label("osd", "bstore_kv_sync", "WAL flushed; the WAL file grew, so BlueFS "
                         "writes the new size to its own log", "BlueFS::_flush_and_sync_log"),
    LOG_WRITE: Label("osd", "disk", "{dev} write: BlueFS log record (the WAL file grew: its new "
                     "size, _flush_and_sync_log)", "BlueFS::_flush_and_sync_log"),
    LOG_AIO_DONE: Label("osd", "bstore_aio", "I/O completion interrupt -> wakes bstore_kv_sync "
                        "waiting in BlueFS", "KernelDevice::_aio_thread"),
    KV_LOG_WRITTEN: Label("osd", "bstore_kv_sync", "BlueFS log written, issues the flush",
                          "BlueFS::_flush_and_sync_log"),
    LOG_FLUSH: Label("osd", "disk", "makes BlueFS's log (the WAL's new size) durable",
                     "BlueFS::_flush_bdev"),
    KV_DONE_AFTER_WAL: Label("osd", "bstore_kv_sync", "WAL flushed, the RocksDB commit completes",
                             "BlueStore::_kv_sync_thread"),
    KV_DONE_AFTER_LOG: Label("osd", "bstore_kv_sync", "BlueFS log flushed, the RocksDB commit "
                             "completes", "BlueStore::_kv_sync_thread"),
    KV_FINAL: Label("osd", "bstore_kv_final", "runs the commit callbacks",
                    "BlueStore::_kv_finalize_thread"),
    META_GET: Label("osd", "op shard", "looks up the object's metadata in RocksDB (the onode "
                    "or an extent-map shard)", "BlueStore::get_onode / fault_range"),
    META_IO_SUBMIT: Label("osd", "op shard", "RocksDB block cache miss: reads 4 KiB of the DB "
                          "device (BlueFS, synchronous)", "BlueFS::_read"),
    META_READ: Label("osd", "disk", "{dev} read: a RocksDB block the cache did not hold",
                     "BlueFS::_read"),
    META_READ_DONE: Label("osd", "op shard", "the metadata read completes and wakes the thread",
                          "BlueFS::_read"),
    META_PAGE_CACHE: Label("osd", "op shard", "RocksDB block cache miss served from the kernel's "
                           "page cache (buffered BlueFS read: a copy, no device I/O)",
                           "BlueFS::_read_random (buffered pread)"),
    DATA_READ: Label("osd", "disk", "disk read: the data from its place on the device "
                     "(O_DIRECT)", "BlueStore::_do_read"),
    DATA_READ_DONE: Label("osd", "op shard", "read complete, builds the reply",
                          "BlueStore::_do_read"),
    CRYPT_ENCRYPT: Label("osd", "kcryptd", "dm-crypt encrypts the write",
            "kcryptd_crypt_write_convert"),
    CRYPT_SUBMIT: Label("osd", "dmcrypt_write", "dm-crypt submits the encrypted write",
                        "dmcrypt_write"),
    CRYPT_DECRYPT: Label("osd", "kcryptd", "dm-crypt decrypts the read",
            "kcryptd_crypt_read_convert"),
    # erasure-coded pools
    EC_DO_OP: Label("primary", "op shard (tp_osd_tp)", "do_op, plans the EC write "
            "(read-modify-write), PG log entry", "ECBackend::submit_transaction -> start_rmw"),
    EC_ENCODE: Label("primary", "op shard", "encodes the stripe (data and parity chunks)",
                     "ECUtil::encode"),
    EC_SUBWRITE_SEND: Label("primary", "msgr-worker", "encodes and sends the MOSDECSubOpWrite",
                            "ECBackend::try_reads_to_commit"),
    NET_EC_SUBWRITE: Label("net", "", "an EC sub-op (MOSDECSubOpWrite with its chunk and the PG "
                           "log entry) travels to a shard", "MOSDECSubOpWrite"),
    EC_SUBWRITE_RECV: Label("replica", "msgr-worker", "TCP receive, decodes the sub-write, "
                            "queues it to its PG's shard", "OSD::ms_fast_dispatch"),
    EC_SUBWRITE: Label("replica", "op shard", "handle_sub_write (applies the PG log entry)",
                       "ECBackend::handle_sub_write"),
    EC_SUBWRITE_COMMIT: Label("replica", "op shard", "sub-write committed, queues the reply",
                              "ECBackend::handle_sub_write"),
    EC_SUBWRITE_REPLY_SEND: Label("replica", "msgr-worker", "sends the reply to the primary",
                                  "MOSDECSubOpWriteReply"),
    NET_EC_SUBWRITE_REPLY: Label("net", "", "an EC sub-op reply ('committed') travels back to "
                                 "the primary", "MOSDECSubOpWriteReply"),
    EC_SUBWRITE_REPLY_RECV: Label("primary", "msgr-worker", "TCP receive, decodes the shard's "
                                  "reply", "OSD::ms_fast_dispatch"),
    EC_SUBWRITE_REPLY: Label("primary", "op shard", "handles the shard's reply "
                             "(handle_sub_write_reply)", "ECBackend::handle_sub_write_reply"),
    EC_DO_READ: Label("primary", "op shard (tp_osd_tp)", "do_op for a read: object context, "
                      "plans the sub-reads", "ECBackend::objects_read_async"),
    EC_SUBREAD_SEND: Label("primary", "msgr-worker", "encodes and sends the MOSDECSubOpRead",
                           "ECBackend::start_read_op"),
    NET_EC_SUBREAD: Label("net", "", "an EC sub-op (MOSDECSubOpRead) travels to a shard",
                          "MOSDECSubOpRead"),
    EC_SUBREAD_RECV: Label("replica", "msgr-worker", "TCP receive, decodes the sub-read, "
                           "queues it to its PG's shard", "OSD::ms_fast_dispatch"),
    EC_SUBREAD: Label("osd", "op shard", "handle_sub_read: finds its chunk",
                      "ECBackend::handle_sub_read"),
    EC_SUBREAD_IO_SUBMIT: Label("osd", "op shard", "submits the chunk's device read",
                                "BlueStore::read"),
    EC_SUBREAD_REPLY_SEND: Label("replica", "msgr-worker", "sends the chunk to the primary",
                                 "MOSDECSubOpReadReply"),
    NET_EC_SUBREAD_REPLY: Label("net", "", "an EC sub-op reply (the chunk read) travels back "
                                "to the primary", "MOSDECSubOpReadReply"),
    EC_SUBREAD_REPLY_RECV: Label("primary", "msgr-worker", "TCP receive, decodes the shard's "
                                 "chunk", "OSD::ms_fast_dispatch"),
    EC_SUBREAD_REPLY: Label("primary", "op shard", "handles the chunk (handle_sub_read_reply)",
                            "ECBackend::handle_sub_read_reply"),
    EC_ROLLFORWARD: Label("primary", "op shard", "the write has committed everywhere and "
                          "nothing waits behind it: an empty transaction to every shard rolls "
                          "them forward (drops the rollback copy)", "ECBackend::try_finish_rmw"),
}

#: steps that run after an op has completed, on no op's path: a traced op never shows them
BACKGROUND: Final[frozenset[int]] = frozenset({EC_ROLLFORWARD})
