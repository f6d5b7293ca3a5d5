"""The teaching view: one op's critical path adds up exactly; ablations are real runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from cephsim.cli import app
from cephsim.tools.explain import explain, render

ROOT = Path(__file__).resolve().parents[1]
WIDO = str(ROOT / "scenarios" / "wido-2019-nautilus.yaml")
SMALL = ["run.ios=1500"]
runner = CliRunner()


@pytest.fixture(scope="module")
def median():
    return explain(WIDO, SMALL, which="median", jobs=2)


@pytest.mark.xdist_group("explain_median")  # one worker runs the explain once
def test_steps_add_up_to_the_latency_exactly(median) -> None:
    ex = median
    steps = ex.steps
    assert steps[0].start == 0 and steps[-1].end == ex.latency_ns
    for a, b in zip(steps, steps[1:]):
        assert a.end == b.start  # contiguous: each step starts where the previous ended
    assert sum(s.dur for s in steps) == ex.latency_ns
    for i in range(5):  # and the split into network/CPU/wake/disk/queue is the op's own
        assert sum(s.cats[i] for s in steps) == ex.acc[i]
    assert sum(ex.acc) == ex.latency_ns
    assert sum(ex.mean_acc_sum) == ex.mean_lat_sum


@pytest.mark.xdist_group("explain_median")  # one worker runs the explain once
def test_the_story_of_a_replicated_write(median) -> None:
    kinds = [s.kind for s in median.steps]
    nets = [s for s in median.steps if s.kind == "net"]
    assert len(nets) == 4  # two round trips: client<->primary, primary<->the last replica
    assert "flush" in kinds and "write" in kinds
    text = render(median)
    for line in text.splitlines():
        assert len(line) <= 100, line
    for part in ("Timeline of the op", "client0 (client)", "(primary: osd.", "(replica 1: osd.",
                 "network (messages on the wire)", "MOSDRepOp", "round trip 1", "round trip 2",
                 "flush", "steps add up exactly: True", "Attribution", "C-state wake-ups",
                 "Ablations", "pool size 2", "25G NICs", "debug logging", "C-states",
                 "governor"):
        assert part in text, part


@pytest.mark.xdist_group("explain_median")  # one worker runs the explain once
def test_ablation_rows_are_real_simulations(median) -> None:
    rows = {r["variant"]: r for r in median.ablation}
    assert len(rows) == 7
    assert all("mean_us" in r for r in rows.values()), rows
    base = median.baseline_mean_us
    assert rows["pool size 2"]["mean_us"] < base  # one replica fewer to wait for
    assert rows["ondemand governor"]["mean_us"] > base  # Ceph's threads run at a low clock
    # Nautilus's default levels gather no line on an I/O's path (cephsim/spec/debuglog.py): the
    # same run, draw for draw
    assert rows["debug logging at defaults"]["mean_us"] == base


def test_explain_cli_p99_and_op_number() -> None:
    r = runner.invoke(app, ["explain", WIDO, "--op", "p99", "--set", "run.ios=800",
                            "--no-ablations", "-q"])
    assert r.exit_code == 0, r.output
    assert "The p99 op (rank 792 of 800" in r.stdout and "Ablations" not in r.stdout
    r = runner.invoke(app, ["explain", WIDO, "--op", "900", "--set", "run.ios=800",
                            "--no-ablations", "-q"])
    assert r.exit_code == 0, r.output
    assert "Op 900 (rank" in r.stdout and "steps add up exactly: True" in r.stdout
    r = runner.invoke(app, ["explain", WIDO, "--op", "3", "--set", "run.ios=800", "-q"])
    assert r.exit_code == 2 and "op 3 was not measured" in r.stderr
    r = runner.invoke(app, ["explain", WIDO, "--op", "fastest", "-q"])
    assert r.exit_code == 2 and "--op 'fastest'" in r.stderr


def test_the_story_of_a_read_adds_up() -> None:
    """A read is one round trip, one device read and software; the story's parts sum to the
    op's latency and no step is described as part of a write."""
    qs = str(ROOT / "scenarios" / "quickstart.yaml")
    ex = explain(qs, ["workload.rw=randread", "run.ios=600", "run.ramp_ios=100"],
                 ablations=False)
    assert not ex.is_write
    kinds = [s.kind for s in ex.steps]
    assert "read" in kinds and "write" not in kinds and "flush" not in kinds
    assert sum(1 for k in kinds if k == "net") == 2
    text = render(ex)
    assert f"together: {ex.latency_ns / 1e3:.1f} us" in text
    assert "submits the read (rbd_aio_read)" in text and "disk read" in text
    for banned in ("write request", "'committed'", "commit_sent", "sub_op_commit_rec"):
        assert banned not in text, banned


def test_a_read_from_a_warm_cache_has_no_device_read() -> None:
    """With the data in BlueStore's buffer cache the shard step serves the read itself, the
    story says so, and the ablation offers the cold cache (and no write-only knobs)."""
    from cephsim.api import load_resolved
    from cephsim.tools.explain import ablation_variants

    qs = str(ROOT / "scenarios" / "quickstart.yaml")
    ov = ["workload.rw=randread", "workload.read_cache=warm", "workload.image_size=1GiB",
          "run.ios=400", "run.ramp_ios=50"]
    ex = explain(qs, ov, ablations=False)
    kinds = [s.kind for s in ex.steps]
    assert "read" not in kinds and sum(1 for k in kinds if k == "net") == 2
    text = render(ex)
    assert "served from the buffer cache" in " ".join(text.split())
    assert "The cache is warm and holds all the data" in text
    assert "0 device reads (served from BlueStore's buffer cache)" in text
    sc, r = load_resolved(qs, ov)
    titles = dict(ablation_variants(sc, r))
    assert titles["cold read cache"] == ["workload.read_cache=cold"]
    assert "pool size 2" not in titles and "no BlueFS log write (WAL envelope)" not in titles


def test_a_gap_before_a_kv_sync_batch_is_drawn_on_the_kv_sync_row() -> None:
    """A queueing gap is drawn on the row of the step after it; a "kv_sync batch" step
    lives on its kv_sync thread's row (the gap used to be looked up under the batch name)."""
    from cephsim.tools.explain import Explanation, Step, timeline

    spans = [("osd0.shard0.t0", "cpu", 0, 0, 40_000, 0, 0),
             ("osd0.kv_sync batch", "wait", 60_000, 100_000, 100_000, 0, 0),
             ("osd0.kv_sync", "cpu", 100_000, 100_000, 140_000, 0, 0)]
    steps = [Step("osd0.shard0.t0", "cpu", 0, 40_000, (0, 40_000, 0, 0, 0)),
             Step("(wait)", "wait", 40_000, 60_000, (0, 0, 0, 0, 20_000)),
             Step("osd0.kv_sync batch", "wait", 60_000, 100_000, (0, 0, 0, 0, 40_000)),
             Step("osd0.kv_sync", "cpu", 100_000, 140_000, (0, 40_000, 0, 0, 0))]
    ex = Explanation(scenario="s", path="p", seed=1, which="median", seq=0, latency_ns=140_000,
                     acc=[0, 80_000, 0, 0, 60_000], steps=steps, spans=spans,
                     host_of={sp[0]: "osdhost0" for sp in spans}, groups=[("osdhost0", "primary")],
                     rank="median")
    rows = {line.split("|")[0].strip(): line.split("|")[1] for line in timeline(ex, width=67).splitlines()
            if line.startswith("  osd")}
    assert set(rows) == {"osd.0.shard0.t0", "osd.0.kv_sync"}
    kv = rows["osd.0.kv_sync"]  # 40 columns of 3.5 us: the gap is columns 11-17
    assert kv[11:17] == "." * 6 and kv[:11].strip() == "", kv


@pytest.mark.parametrize(("name", "sets", "which"), [
    ("quickstart.yaml", ["workload.iodepth=32", "run.ios=4000"], "median"),
    ("quickstart.yaml", ["workload.iodepth=32", "run.ios=4000"], "p90"),
    ("mako-reef-qd1.yaml", ["workload.iodepth=16", "run.ios=1500"], "median"),
])
def test_primary_steps_at_depth_are_named_by_what_ran(name: str, sets: list[str],
                                                      which: str) -> None:
    """At depth, work queues on the primary's shard thread, and the order of its steps no
    longer tells what each is.  Each is named by the label the model gave it: do_op is the
    first primary shard step even after a long wait for the PG lock (sequential writes on
    Mako: every op is on one PG), a reply is a reply, the commit callback the callback."""
    from cephsim.model.steps import BLUESTORE_SUBMIT, COMMIT_CB, DO_OP, REPOP_REPLY, STEPS

    ex = explain(Path(__file__).resolve().parent.parent / "scenarios" / name, sets,
                 which=which, ablations=False)
    shard = [s for s in ex.steps if s.what.startswith("primary op shard")]
    assert shard[0].step == DO_OP and all(s.step != DO_OP for s in shard[1:]), shard
    for s in shard:
        assert s.step in (DO_OP, REPOP_REPLY, COMMIT_CB, BLUESTORE_SUBMIT), s
        assert STEPS[s.step].action in s.what, s
    _osd_steps_say_their_role(ex)
    assert sum(s.dur for s in ex.steps) == ex.latency_ns


def test_from_pacific_a_commit_also_writes_and_flushes_bluefs_log() -> None:
    """Reef's RocksDB does not recycle WAL files, so the WAL fsync also logs the file's new
    size: the last replica's commit on the critical path shows three writes (data, WAL, BlueFS
    log) and three flushes, each named for what it makes durable; Nautilus recycles and
    shows two of each."""
    reef = explain(str(ROOT / "scenarios" / "quickstart.yaml"), ["run.ios=300"], ablations=False)
    naut = explain(str(ROOT / "scenarios" / "quickstart.yaml"),
                   ["run.ios=300", "ceph.release=nautilus", "ceph.version=14.2.22"],
                   ablations=False)
    assert reef.wal_log_sync and not naut.wal_log_sync
    for ex, n in ((reef, 3), (naut, 2)):
        writes = [s.what for s in ex.steps if s.kind == "write"]
        flushes = [s.what for s in ex.steps if s.kind == "flush"]
        assert len(writes) == n and len(flushes) == n, (writes, flushes)
        assert "data to its final place" in writes[0] and "WAL append" in writes[1]
        assert "data durable" in flushes[0] and "RocksDB WAL durable" in flushes[1]
    assert "BlueFS log record" in [s.what for s in reef.steps if s.kind == "write"][2]
    assert "BlueFS's log" in [s.what for s in reef.steps if s.kind == "flush"][2]
    assert "then BlueFS's log" in render(reef) and "then BlueFS's log" not in render(naut)
    kv = [s.what for s in reef.steps if s.resource.endswith(".kv_sync")]
    assert any("WAL flushed; the WAL file grew" in w for w in kv), kv
    assert any("BlueFS log written, issues the flush" in w for w in kv), kv
    assert kv[-1].endswith("BlueFS log flushed, the RocksDB commit completes"), kv
    kv = [s.what for s in naut.steps if s.resource.endswith(".kv_sync")]
    assert kv[-1].endswith("WAL flushed, the RocksDB commit completes"), kv


def test_a_step_is_named_by_its_label_not_by_its_neighbours() -> None:
    """Both replicas' replies reach the primary together and queue on its shard thread:
    the second is still a reply (its label says so), told as queued behind the first;
    a message is named by its label whichever threads surround it."""
    from cephsim.model.steps import DO_OP, NET_REPOP_REPLY, REPOP_REPLY, REPOP_REPLY_RECV
    from cephsim.tools.explain import Step, describe

    steps = [Step("osd4.shard7.t0", "cpu", 0, 100_000, (0, 100_000, 0, 0, 0), step=DO_OP),
             Step("net node3->node2", "net", 100_000, 120_000, (20_000, 0, 0, 0, 0),
                  step=NET_REPOP_REPLY),
             Step("osd4.msgr1", "cpu", 120_000, 125_000, (0, 5_000, 0, 0, 0),
                  step=REPOP_REPLY_RECV),
             Step("osd4.shard7.t1", "cpu", 125_000, 160_000, (0, 35_000, 0, 0, 0),
                  step=REPOP_REPLY),
             Step("osd4.shard7.t1", "cpu", 160_000, 210_000, (0, 30_000, 0, 0, 20_000),
                  step=REPOP_REPLY)]
    describe(steps, {"osd4": "primary"}, 4096, "direct", True)
    assert steps[0].what.startswith("primary op shard (tp_osd_tp): do_op")
    assert steps[1].what == ("network node3->node2: MOSDRepOpReply: the replica's "
                             "'committed' travels back to the primary")
    assert steps[2].what.startswith("primary msgr-worker: TCP receive")
    assert "handles the replica's reply" in steps[3].what and "queued" not in steps[3].what
    assert "handles the replica's reply" in steps[4].what
    assert steps[4].what.endswith("(queued behind the previous step on this thread)")


def test_every_step_the_model_takes_is_in_the_vocabulary() -> None:
    """Replicated and EC writes and reads, the kernel client and librados, dm-crypt, cold
    metadata and metadata from the page cache, Nautilus's deferred writes and Reef's BlueFS
    log: every span of every traced op carries a label from the one table, and every label of
    the table is used."""
    from cephsim.api import load_resolved
    from cephsim.model.runner import run_scenario
    from cephsim.model.steps import BACKGROUND, STEPS, UNLABELLED

    qs = str(ROOT / "scenarios" / "quickstart.yaml")
    luks = ["hosts.0.osds.encryption=luks"]
    variants = [
        ["workload.rw=randrw"],
        ["workload.rw=randrw", "workload.engine=krbd"],
        ["workload.rw=randread", "workload.engine=rados", "workload.read_cache=warm",
         "workload.image_size=1GiB"],
        ["workload.metadata_cache=cold", "ceph.release=mimic", "ceph.version=13.2.10",
         "workload.rw=randrw", *luks],
        ["pool={type: erasure, k: 2, m: 1, pg_num: 64}", "workload.rw=randrw",
         "workload.metadata_cache=cold"],
        # a page cache that holds about 40 % of the blocks the OSD caches miss
        ["workload.image_size=2TiB", "hosts.osd.memory=8GiB"],
    ]
    seen: set[int] = set()
    for ov in variants:
        sc, r = load_resolved(qs, ["run.ios=120", "run.ramp_ios=0", *ov])
        res = run_scenario(sc, scenario_path=qs, resolved=r, trace_ops=set(range(120)))
        for tr in res.records.traces.values():
            for sp in tr["spans"]:
                assert sp[6] != UNLABELLED, (ov, sp)
                seen.add(sp[6])
    assert seen == set(STEPS) - {UNLABELLED} - BACKGROUND, sorted(set(STEPS) - seen)


def test_from_pacific_an_ablation_drops_the_bluefs_log_write() -> None:
    """The what-if of Ceph 20's WAL envelope mode is offered where there is a log write."""
    from cephsim.api import load_resolved
    from cephsim.tools.explain import ablation_variants

    quick = str(ROOT / "scenarios" / "quickstart.yaml")
    for sets, offered in (([], True), (["ceph.release=octopus"], False),
                          (["ceph.release=tentacle"], False)):
        sc, r = load_resolved(quick, sets)
        titles = {t: ov for t, ov in ablation_variants(sc, r)}
        assert ("no BlueFS log write (WAL envelope)" in titles) is offered, titles
    sc, r = load_resolved(quick, [])
    assert dict(ablation_variants(sc, r))["no BlueFS log write (WAL envelope)"] == [
        "ceph.wal_log_sync=false"]


@pytest.mark.parametrize(("engine", "submit", "objecter_in_app"), [
    ("rbd", "(rbd_aio_write)", False),
    ("cephfs", "(pwrite on the CephFS file, O_DIRECT)", False),
    ("krbd", "to /dev/rbdN (a direct block write)", False),
    ("rados", "(rados_aio_write)", True),  # librados runs the Objecter in the caller's thread
])
def test_the_application_steps_are_named_for_the_engine(engine, submit, objecter_in_app) -> None:
    """The fio thread's first step names the call the engine makes; with librados the
    thread's second step is the Objecter, not the completion; the last is the completion."""
    ex = explain(str(ROOT / "scenarios" / "quickstart.yaml"),
                 ["run.ios=200", f"workload.engine={engine}"], ablations=False)
    app_steps = [s.what for s in ex.steps if s.resource.endswith(".app")]
    assert app_steps[0] == "fio thread: submits the write " + submit
    assert ("Objecter" in app_steps[1]) is objecter_in_app
    assert app_steps[-1] == "fio thread: reaps the completion"
    assert len(app_steps) == 2 + objecter_in_app


def test_a_shared_db_device_is_shown_as_each_osd_sees_it() -> None:
    """With osds.db_disk the WAL write and its flush happen on the host's shared DB device;
    the story names it after the op's OSD on that host and says 'DB device', and the
    steps still add up exactly."""
    hdd = str(ROOT / "scenarios" / "hdd-nvme-db.yaml")
    ex = explain(hdd, ["run.ios=300", "run.ramp_ios=20"], which="median", jobs=1)
    db_steps = [s for s in ex.steps if s.resource.endswith(".db")]
    assert db_steps and all(s.resource.split(".")[0].startswith("osd") for s in db_steps)
    assert any(s.what.startswith("DB device write: RocksDB WAL append") for s in db_steps)
    assert not any(".db0" in sp[0] for sp in ex.spans)  # no host-named device left
    assert sum(s.dur for s in ex.steps) == ex.latency_ns
    text = render(ex)
    assert "osd.0.db0" not in text and ".db " in text


def test_a_split_drive_is_shown_as_each_osd_sees_it() -> None:
    """With osds.per_device the data drive is the host's (``<host>.disk0``); the story names
    it after the op's OSD on that host, as for a shared DB device, and still adds up."""
    qs = str(ROOT / "scenarios" / "quickstart.yaml")
    ex = explain(qs, ["run.ios=300", "run.ramp_ios=20", "hosts.0.osds.count=2",
                      "hosts.0.osds.per_device=2"], which="median", jobs=1)
    disk_steps = [s for s in ex.steps if s.resource.endswith(".disk")]
    assert disk_steps and all(s.resource.split(".")[0].startswith("osd") for s in disk_steps)
    assert not any(".disk0" in sp[0] for sp in ex.spans)
    assert sum(s.dur for s in ex.steps) == ex.latency_ns


def test_pick_reaches_both_ends_of_the_distribution():
    """p0/min is the fastest measured op, p100/max the slowest; beyond is refused."""
    import numpy as np
    import pytest

    from cephsim.errors import CephsimError
    from cephsim.tools.explain import pick

    lat = np.array([30, 10, 50, 20, 40])
    seqs = np.array([100, 101, 102, 103, 104])
    assert pick(lat, seqs, "p0")[0] == pick(lat, seqs, "min")[0] == 101
    assert pick(lat, seqs, "p100")[0] == pick(lat, seqs, "max")[0] == 102
    assert "the slowest op (rank 5 of 5" in pick(lat, seqs, "max")[1]
    assert pick(lat, seqs, "median")[0] == 100
    for bad in ("p101", "p-1"):
        with pytest.raises(CephsimError, match="from p0"):
            pick(lat, seqs, bad)


@pytest.mark.xdist_group("explain_median")  # one worker runs the explain once
def test_a_flush_is_named_for_what_the_device_does_with_it(median) -> None:
    """A PLP drive (wido-2019's PM983) is sent no FLUSH: its fdatasync is a system call, and
    the story says so; a consumer SATA SSD's fdatasync is a real cache flush."""
    plp = [s.what for s in median.steps if s.kind == "flush"]
    assert plp and all("no flush is sent" in w and "cache flush" not in w for w in plp), plp
    text = render(median)
    assert "no flush is sent" in text and "1 fdatasync (no flush sent)" in text
    consumer = explain(WIDO, ["run.ios=300", "hosts.0.osds.disk=generic-consumer-sata"],
                       ablations=False)
    flushes = [s.what for s in consumer.steps if s.kind == "flush"]
    assert flushes and all(w.startswith("disk cache flush (fdatasync)") for w in flushes), flushes
    assert "write and a cache flush" in render(consumer)


def _osd_steps_say_their_role(ex) -> None:
    """Every step of an OSD's thread is told as that OSD's role; no OSD step is the
    client's, no client step an OSD's; each message is named by who sends and who takes it."""
    from cephsim.model.steps import STEPS
    from cephsim.tools.explain import osd_of

    roles = {}
    for _, label in ex.groups:
        for part in label.split("; "):
            role, _, osds = part.partition(": ")
            for o in filter(None, osds.split(", ")):
                roles[o.replace("osd.", "osd")] = role
    for s in ex.steps:
        osd = osd_of(s.resource)
        if s.kind == "cpu" and ("msgr" in s.resource or "shard" in s.resource):
            who = roles[osd] if osd else "client"
            assert s.what.startswith(who + " "), (s.resource, who, s.what)
        if s.kind == "net":
            a, b = s.ends
            if "MOSDRepOp:" in s.what:
                assert a == "primary" and b.startswith("replica"), (s.ends, s.what)
            if "MOSDOpReply" in s.what:
                assert (a, b) == ("primary", "client"), (s.ends, s.what)
        # the model's label and the op's roles (its OSDs in the order it reaches them) agree
        actor = STEPS[s.step].actor
        if actor == "client":
            assert osd is None, (s.resource, s.what)
        elif actor == "primary":
            assert roles[osd] == "primary", (s.resource, s.what)
        elif actor == "replica":
            assert roles[osd].startswith(("replica", "shard")), (s.resource, s.what)


@pytest.mark.parametrize("overrides", [
    ["workload.clients=[osd0]"],                   # the client on an OSD host (named like an OSD)
    ["workload.clients=[osd0]", "pool.size=1"],
    ["pool.size=3"],
], ids=["client-on-osd-host", "size-1", "size-3"])
@pytest.mark.parametrize("which", ["median", "p99"])
def test_explain_labels_roles_by_the_op_not_by_the_host(overrides, which):
    from cephsim.tools.explain import explain

    ex = explain(ROOT / "scenarios" / "quickstart.yaml", ["run.ios=400", *overrides], which=which)
    _osd_steps_say_their_role(ex)
    labels = dict(ex.groups)
    assert sum("primary" in v for v in labels.values()) == 1
    n_replicas = sum(v.count("replica") for v in labels.values())
    assert n_replicas == (0 if "pool.size=1" in overrides else 2)


def test_a_local_primary_is_reached_over_loopback():
    """With the client on the host of the op's primary, the client's messenger hands the
    op over on the host; the primary's messenger queues it and, at the end, sends the reply
    to the client: no step calls the primary's threads the client's."""
    from cephsim.tools.explain import explain

    ex = explain(ROOT / "scenarios" / "hci-3node-full-mesh.yaml", ["run.ios=400"])
    _osd_steps_say_their_role(ex)
    for which in ("p50", "p90", "p99"):
        _osd_steps_say_their_role(explain(ROOT / "scenarios" / "quickstart.yaml",
                                          ["run.ios=400", "workload.clients=[osd0]"], which=which))


def test_the_other_kind_of_pool_is_an_ablation() -> None:
    """A replicated pool is offered a 2+1 erasure-coded one (as many OSDs as three copies),
    an erasure-coded pool a replicated one of size 3; both load as real scenarios."""
    from cephsim.api import load_resolved
    from cephsim.tools.explain import ablation_variants

    qs = str(ROOT / "scenarios" / "quickstart.yaml")
    ec = ["pool={type: erasure, k: 2, m: 1, pg_num: 64}"]
    for base, title, kind in (([], "erasure-coded pool (k=2, m=1)", "erasure"),
                              (ec, "replicated pool (size 3)", "replicated")):
        sc, r = load_resolved(qs, base)
        ov = dict(ablation_variants(sc, r))[title]
        sc2, _ = load_resolved(qs, base + ov)
        assert sc2.pool.type == kind and sc2.pool.size == 3
