"""Measurement readers: values read equal the files, bad files give located CephsimErrors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from cephsim.errors import CephsimError
from cephsim.formats.readers.common import ReaderError, decode, parse_decimal, to_ns
from cephsim.formats.readers.detect import read_any, read_text_any
from cephsim.formats.readers.fio_json import read_fio_json
from cephsim.formats.readers.fio_text import read_fio_text
from cephsim.formats.readers.historic_ops import read_historic_ops
from cephsim.formats.readers.inspect import inspect_paths
from cephsim.formats.readers.model import (
    FioMeasurement,
    HistoricOps,
    NetLatencyMeasurement,
    PerfDump,
    RadosBenchMeasurement,
)
from cephsim.formats.readers.perf_dump import diff_perf_dumps, read_perf_dump

FIX = Path(__file__).parent / "fixtures"
FIO = FIX / "fio"


def only_direction(m: FioMeasurement, job: int = 0, direction: str = "write"):
    return m.jobs[job].directions[direction]


# ------------------------------------------------------------------ common

def test_numbers_and_units():
    assert parse_decimal("1122.1k") == 1122100
    assert parse_decimal("25.4k") == 25400
    assert parse_decimal("33,152", commas=True) == 33152
    assert to_ns(parse_decimal("772.35"), "usec") == 772350
    assert to_ns(0.000812, "s") == 812000
    with pytest.raises(ValueError):
        parse_decimal("4zz.19")
    with pytest.raises(ValueError):
        to_ns(1, "fsec")


# ------------------------------------------------------------- fio text

def test_seed000_reads_values_and_warns_about_ocr_noise():
    path = FIO / "seed000_wido2019_normal.txt"
    m = read_any(path)
    assert isinstance(m, FioMeasurement) and m.format == "fio-text"
    job = m.jobs[0]
    assert job.name == "rbd w iodepth 1" and job.jobs == 1
    d = job.directions["write"]
    assert d.iops == 1292
    assert d.bw_bytes == 5171 * 1024
    assert d.lat.mean_ns == 772350 and d.lat.stddev_ns == 422550
    assert d.lat.min_ns == 551_000 and d.lat.max_ns == 48_278_000
    assert d.clat.mean_ns == 765030 and d.clat.stddev_ns is None  # stdev=4zz.19
    assert d.slat.mean_ns == 7330 and d.slat.stddev_ns is None  # "tue. 1.14"
    assert d.percentiles_of == "clat"
    assert d.percentiles[50.0] == 734_000
    assert d.percentiles[99.0] == 1_745_000
    assert d.percentiles[99.99] == 11_600_000
    assert d.percentiles[20.0] == 701_000
    assert 10.0 not in d.percentiles  # "10.00th=[ oct" is not guessed
    where = {(w.line, w.column) for w in m.warnings}
    assert (5, 55) in where  # stdev=4zz.19
    assert (8, 47) in where  # oct
    assert any(w.line == 4 and "tue. 1.14" in w.message for w in m.warnings)
    assert all(w.file == str(path) for w in m.warnings)


def test_seed001_bare_write_lines_become_unnamed_jobs():
    m = read_fio_text(FIO / "seed001_tuned_write_lines.txt")
    assert [j.directions["write"].iops for j in m.jobs] == [259, 315, 195, 215]
    assert m.jobs[0].directions["write"].bw_bytes == 1040 * 1024
    assert m.jobs[0].directions["write"].runtime_ms == 120059


def test_fio_text_two_jobs_without_group_reporting():
    m = read_fio_text(FIO / "randrw_2jobs_normal.txt")
    assert len(m.jobs) == 2 and m.fio_version == "fio-3.33"
    r = m.jobs[0].directions["read"]
    assert r.iops == 19000  # "IOPS=19.0k"
    assert r.slat.max_ns == 159888 and r.clat.mean_ns == 138950
    assert r.percentiles[99.99] == 1_795_000
    assert m.jobs[1].directions["write"].iops == 8119
    assert m.jobs[0].latency_buckets[0].upper_ns == 10_000
    assert not m.warnings


def test_fio_text_sync_block():
    m = read_fio_text(FIO / "randwrite4k_psync_fsync_jsonplus_and_normal.out")
    sync = m.jobs[0].directions["sync"]
    assert sync.lat.mean_ns == 305000 and sync.percentiles[99.99] == 2_802_000
    w = m.jobs[0].directions["write"]
    assert w.slat is None and w.clat.mean_ns == 3231  # nsec line: avg=3230.99
    assert w.percentiles[99.99] == 856064


def test_fio_text_unknown_unit_is_an_error(tmp_path):
    src = (FIO / "randwrite4k_libaio_normal.txt").read_text().replace("clat (nsec)", "clat (fsec)")
    p = tmp_path / "bad_unit.txt"
    p.write_text(src)
    with pytest.raises(CephsimError) as exc:
        read_any(p)
    prob = exc.value.problems[0]
    assert prob.file == str(p) and prob.line == 7 and "fsec" in prob.message


def test_fio_text_k_suffix_in_latency_line():
    text = ("j: (groupid=0, jobs=1): err= 0: pid=1\n"
            "  read: IOPS=25.4k, BW=99.3MiB/s (104MB/s)(5958MiB/60001msec)\n"
            "    slat (nsec): min=1322, max=1122.1k, avg=3050.12, stdev=2000.5\n")
    d = read_fio_text("x.txt", text).jobs[0].directions["read"]
    assert d.iops == 25400 and d.slat.max_ns == 1_122_100
    assert d.bw_bytes == pytest.approx(99.3 * 1024**2) and d.runtime_ms == 60001


# ------------------------------------------------------------- fio JSON

def _raw_json(path: Path) -> dict:
    text = path.read_text()
    start = text.index("{\n")
    return json.JSONDecoder().raw_decode(text, start)[0]


@pytest.mark.parametrize("name", ["randwrite4k_libaio.json", "randwrite4k_libaio_jsonplus.json",
                                  "randrw_2jobs_group_reporting_json_and_normal.out"])
def test_fio_json_values_equal_json_load(name):
    path = FIO / name
    raw = _raw_json(path)
    m = read_any(path)
    assert m.format == "fio-json" and m.fio_version == raw["fio version"]
    for job, rj in zip(m.jobs, raw["jobs"]):
        assert job.name == rj["jobname"]
        for dname, d in job.directions.items():
            rd = rj[dname]
            assert d.iops == rd["iops"] and d.bw_bytes == rd["bw_bytes"]
            assert d.total_ios == rd["total_ios"]
            assert d.lat.mean_ns == round(rd["lat_ns"]["mean"])
            assert d.clat.max_ns == rd["clat_ns"]["max"] and d.clat.n == rd["clat_ns"]["N"]
            assert d.percentiles == {float(k): v for k, v in rd["clat_ns"]["percentile"].items()}
            if "bins" in rd["clat_ns"]:
                assert d.bins == {int(k): v for k, v in rd["clat_ns"]["bins"].items()}
        assert set(job.directions) == {k for k in ("read", "write", "trim")
                                       if rj[k]["total_ios"] > 0}


def test_fio_text_and_json_from_same_run_agree():
    text = read_fio_text(FIO / "randwrite4k_libaio_normal.txt").jobs[0].directions["write"]
    js = read_fio_json(FIO / "randwrite4k_libaio_jsonplus.json").jobs[0].directions["write"]
    assert text.iops == pytest.approx(js.iops, rel=0.01)  # "IOPS=11.3k"
    assert text.bw_bytes == pytest.approx(js.bw_bytes, rel=0.01)
    for kind in ("slat", "clat", "lat"):
        a, b = getattr(text, kind), getattr(js, kind)
        assert a.mean_ns == pytest.approx(b.mean_ns, rel=1e-3)
        assert a.max_ns == pytest.approx(b.max_ns, rel=1e-3)
    for p, v in js.percentiles.items():
        # text prints percentiles rounded up to whole units of its line
        assert text.percentiles[p] == pytest.approx(v, rel=0.01, abs=1000)


def test_fio_json_with_banner_and_trailing_normal_output_reads():
    m = read_any(FIO / "randwrite4k_libaio_jsonplus_and_normal.out")
    assert m.format == "fio-json" and m.jobs[0].line == 4


def test_fio_json_status_interval_concatenated_and_mixed():
    m = read_fio_json(FIO / "randwrite4k_status_interval.json")
    assert [j.document for j in m.jobs] == [0, 1, 2]
    mixed = read_fio_json(FIO / "randrw_unified_mixed.json")
    assert set(mixed.jobs[0].directions) == {"mixed"}


def test_fio2_usec_keys(tmp_path):
    doc = {"fio version": "fio-2.2.10", "jobs": [{"jobname": "old", "groupid": 0,
           "write": {"io_bytes": 1000, "bw": 5171, "iops": 1292.8, "runtime": 60001,
                     "total_ios": 77563,
                     "slat": {"min": 2, "max": 115, "mean": 7.33, "stddev": 1.14},
                     "clat": {"min": 545, "max": 48271, "mean": 765.03, "stddev": 422.19,
                              "percentile": {"50.000000": 734, "99.990000": 11600}},
                     "lat": {"min": 551, "max": 48278, "mean": 772.35, "stddev": 422.55}},
           "read": {"total_ios": 0, "iops": 0}}]}
    p = tmp_path / "fio2.json"
    p.write_text(json.dumps(doc))
    d = read_any(p).jobs[0].directions
    assert set(d) == {"write"}
    w = d["write"]
    assert w.lat.mean_ns == 772350 and w.clat.min_ns == 545000
    assert w.percentiles == {50.0: 734000, 99.99: 11600000}
    assert w.bw_bytes == 5171 * 1024


def test_truncated_json_error_has_position(tmp_path):
    text = (FIO / "randwrite4k_libaio.json").read_text()
    p = tmp_path / "trunc.json"
    p.write_text(text[: len(text) // 2])
    with pytest.raises(CephsimError) as exc:
        read_any(p)
    prob = exc.value.problems[0]
    assert prob.file == str(p) and prob.line is not None and prob.column is not None
    assert "truncated" in prob.message


# ---------------------------------------------------------- net latency

def test_qperf_seed002_one_way_ns():
    m = read_any(FIX / "qperf" / "seed002_tcp_lat_vv_uu.txt")
    assert isinstance(m, NetLatencyMeasurement) and m.format == "qperf"
    r = m.qperf[0]
    assert (r.test, r.one_way_latency_ns, r.msg_size_bytes, r.msg_rate) == \
        ("tcp_lat", 11711, 1, 85393)
    assert not m.warnings


def test_qperf_loopback_files():
    sweep = read_any(FIX / "qperf" / "loopback_msgsize_sweep_tcp_lat.txt")
    assert [r.msg_size_bytes for r in sweep.qperf] == [1, 8, 64, 512, 4096, 32768]
    assert sweep.qperf[0].one_way_latency_ns == 25900
    vv = read_any(FIX / "qperf" / "loopback_vv_m1_tcp_udp_lat.txt")
    assert [(r.test, r.one_way_latency_ns) for r in vv.qperf] == [("tcp_lat", 30200),
                                                                   ("udp_lat", 28200)]
    assert vv.qperf[0].msg_rate == 33200
    bw = read_any(FIX / "qperf" / "loopback_vv_tcp_udp_bw.txt")
    assert bw.qperf[0].bw_bytes == pytest.approx(1.66e9)
    assert bw.qperf[1].send_bw_bytes == pytest.approx(9.4e9)
    assert bw.qperf[1].msg_size_bytes == 32768
    plain = read_any(FIX / "qperf" / "loopback_m4K_tcp_udp_lat.txt")
    assert plain.qperf[0].msg_size_bytes is None and len(plain.warnings) == 2


def test_qperf_unknown_unit(tmp_path):
    p = tmp_path / "q.txt"
    p.write_text("tcp_lat:\n    latency  =  26.1 fortnights\n")
    with pytest.raises(CephsimError) as exc:
        read_any(p)
    assert exc.value.problems[0].line == 2


def test_ping_variants():
    seed = read_any(FIX / "ping" / "seed001_tuned_rtt_summaries.txt")
    assert [p.rtt_avg_ns for p in seed.ping] == [299000, 310000, 281000, 263000]
    assert seed.ping[2].rtt_max_ns == 1_112_000 and seed.ping[3].rtt_mdev_ns == 34000
    ip = read_any(FIX / "ping" / "iputils_loopback_c5.txt").ping[0]
    assert (ip.rtt_min_ns, ip.rtt_avg_ns, ip.rtt_max_ns, ip.rtt_mdev_ns) == \
        (8000, 187000, 832000, 322000)
    assert ip.transmitted == 5 and ip.received == 5 and ip.loss_percent == 0
    assert ip.samples_ns[0] == 832000 and ip.payload_bytes == 56
    bb = read_any(FIX / "ping" / "busybox_loopback_c5.txt").ping[0]
    assert (bb.rtt_min_ns, bb.rtt_avg_ns, bb.rtt_max_ns, bb.rtt_mdev_ns) == \
        (29000, 67000, 81000, None)
    assert bb.received == 5 and len(bb.samples_ns) == 5
    # the address pinged, for the network fit's groups; summaries alone have none
    assert ip.host == bb.host == "127.0.0.1" and seed.ping[0].host is None


def test_ping_header_names_the_address_ipv4_and_ipv6():
    from cephsim.formats.readers.ping import read_ping

    summary = "rtt min/avg/max/mdev = 0.010/0.020/0.030/0.005 ms\n"
    for header, host, size in (("PING ceph-osd1 (10.0.0.11) 56(84) bytes of data.", "10.0.0.11", 56),
                               ("PING ::1(::1) 1000 data bytes", "::1", 1000),
                               ("PING fe80::1 (fe80::1) 8000 data bytes", "fe80::1", 8000),
                               ("PING 10.1.2.3 (10.1.2.3): 56 data bytes", "10.1.2.3", 56)):
        run = read_ping("p.txt", header + "\n" + summary).ping[0]
        assert (run.host, run.payload_bytes, run.rtt_avg_ns) == (host, size, 20000), header


# ------------------------------------------------------------- Ceph tools

def test_rados_bench_variants():
    w = read_any(FIX / "rados" / "write_quincy_like.txt")
    assert isinstance(w, RadosBenchMeasurement) and w.mode == "write"
    assert w.avg_latency_ns == 300_001_000 and w.min_latency_ns == 63_151_000
    assert w.avg_iops == 52 and w.bandwidth_bytes == pytest.approx(210.854 * 1024**2)
    assert w.total_time_ns == 10_320_000_000 and w.op_size_bytes == 4194304
    old = read_any(FIX / "rados" / "seq_old_labels.txt")
    assert old.mode == "read" and old.avg_iops == 269 and old.avg_latency_ns == 58_472_200
    js = read_any(FIX / "rados" / "write_format_json.json")
    assert js.max_latency_ns == 862_328_000 and js.avg_latency_ns == w.avg_latency_ns


def test_perf_dump_and_diff():
    before = read_perf_dump(FIX / "perf" / "osd0_perf_dump_before.json")
    after = read_any(FIX / "perf" / "osd0_perf_dump_after.json")
    assert isinstance(after, PerfDump)
    assert before.averages["osd.op_w_latency"].sum_ns == 418_494_610_000
    assert before.values["osd.op_w"] == 549
    diff = diff_perf_dumps(before, after)
    assert diff["osd.op_w_latency"].count == 10000
    assert diff["osd.op_w_latency"].mean_ns == 772_000
    assert diff["bluestore.kv_sync_lat"].mean_ns == 300_000
    assert diff["throttle-osd_client_bytes.wait"].mean_ns is None
    with pytest.raises(CephsimError) as exc:
        diff_perf_dumps(after, before)
    assert exc.value.problems[0].path == "bluestore.kv_flush_lat"


def test_historic_ops_dict_layout_stages():
    m = read_any(FIX / "historic" / "dict_layout_reef.json")
    assert isinstance(m, HistoricOps) and m.layout == "dict" and m.size == 20
    op = m.ops[0]
    assert op.is_write and not m.ops[1].is_write
    assert op.duration_ns == 812_000
    assert op.stages["queued_for_pg -> reached_pg"] == 60_000
    assert op.stages["waiting for subops from -> op_commit"] == 200_000
    # the LAST sub_op_commit_rec (slowest replica) gates commit_sent
    assert op.stages["op_commit -> sub_op_commit_rec"] == 300_000
    assert op.stages["sub_op_commit_rec -> commit_sent"] == 30_000


def test_historic_ops_list_layout():
    m = read_historic_ops(FIX / "historic" / "list_layout_2017_filestore.json")
    assert m.layout == "list" and len(m.ops) == 1
    op = m.ops[0]
    assert op.stages["op_commit -> sub_op_commit_rec"] == 2_700_000
    assert op.events[-1].offset_ns == 4_512_000


def test_historic_ops_duplicate_keys_are_reported():
    m = read_any(FIX / "historic" / "crimson_duplicate_keys.json")
    assert m.layout == "crimson"
    assert any("blocking_event" in w.message for w in m.warnings)


# --------------------------------------------------------------- bad files

@pytest.mark.parametrize("content, needle", [
    (b"", "empty"),
    (b"   \n\n", "whitespace"),
    (b"\x7fELF\x02\x01\x01\x00\x00\x00", "binary"),
    (b"latency = \xff\xfe 12 us\n", "UTF-8"),
    (b"hello world\nnothing to see\n", "unrecognised"),
])
def test_bad_files_are_located_errors(tmp_path, content, needle):
    p = tmp_path / "bad.out"
    p.write_bytes(content)
    with pytest.raises(CephsimError) as exc:
        read_any(p)
    prob = exc.value.problems[0]
    assert prob.file == str(p) and needle in prob.message
    if needle in ("binary", "UTF-8"):
        assert prob.line == 1 and prob.column is not None


def test_missing_file(tmp_path):
    with pytest.raises(CephsimError):
        read_any(tmp_path / "nope.txt")


# ------------------------------------------------------------------ inspect

def test_inspect_text_and_json():
    paths = [FIO / "seed000_wido2019_normal.txt", FIX / "qperf" / "seed002_tcp_lat_vv_uu.txt",
             FIX / "perf" / "osd0_perf_dump_before.json",
             FIX / "perf" / "osd0_perf_dump_after.json",
             FIX / "historic" / "dict_layout_reef.json"]
    text = inspect_paths(paths, "text")
    assert "fio-text" in text and "772.35 us" in text and "p99.99 11.6 ms" in text
    assert "one-way latency 11.711 us" in text
    assert "osd.op_w_latency: 10000 ops, mean 772 us" in text
    assert "4zz.19" in text  # the warning is shown
    doc = json.loads(inspect_paths(paths, "json"))
    assert doc["files"][0]["measurement"]["jobs"][0]["directions"]["write"]["iops"] == 1292
    assert doc["perf_intervals"][0]["averages"]["osd.op_w_latency"]["mean_ns"] == 772000


def test_inspect_collects_all_problems(tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.bin"
    a.write_text('{"fio version": "fio-3.33", "jobs": [')
    b.write_bytes(b"\x00\x01")
    with pytest.raises(CephsimError) as exc:
        inspect_paths([a, FIO / "seed000_wido2019_normal.txt", b], "text")
    assert [p.file for p in exc.value.problems] == [str(a), str(b)]


# --------------------------------------------------------------- hypothesis

def _only_cephsim_errors(data: bytes) -> None:
    try:
        text = decode(data, "fuzz")
    except ReaderError:
        return
    try:
        read_text_any("fuzz", text)
    except CephsimError:
        pass


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=400))
def test_fuzz_bytes(data):
    _only_cephsim_errors(data)


_SNIPPETS = ["write: IOPS=", "clat (usec): min=", "avg=", "stdev=", "clat percentiles (usec):\n",
             " |  1.00th=[", "]", "(groupid=0, jobs=1)", "tcp_lat:\n", "latency = ", " us",
             "rtt min/avg/max/mdev = ", "/", " ms", "{", "}", '"fio version"', '"jobs": [',
             '"ops": [', '"description"', '"avgcount": ', '"sum": ', "Average Latency(s): ",
             "\n", ",", "k", "1.5", "12", "=", ":", "msg_size = ", "KiB (4,096)", '"', "[", "-"]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(st.sampled_from(_SNIPPETS), st.text(max_size=8)), max_size=40))
def test_fuzz_text(parts):
    _only_cephsim_errors("".join(parts).encode("utf-8", "surrogatepass"))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=1, max_value=6000))
def test_any_truncation_of_real_fixture(cut):
    text = (FIO / "randwrite4k_libaio.json").read_text()[:cut]
    try:
        read_text_any("cut.json", text)
    except CephsimError:
        pass
