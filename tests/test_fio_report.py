"""Tests for the fio-compatible statistics and output (cephsim.formats.report.fio_*).

Fixtures in tests/fixtures/fio/ are real fio 3.33 outputs (json+ and
json+,normal).  Golden files in tests/golden/ hold our output for a fixed
synthetic sample set; regenerate them (after checking the diff!) with

    CEPHSIM_REGEN_GOLDEN=1 /work/venv/bin/pytest tests/test_fio_report.py
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from cephsim.errors import CephsimError
from cephsim.formats.report.fio_json import (
    dumps_fio_json,
    fio_json,
    format_time,
    job_options,
    percentile_key,
    report_time_ms,
)
from cephsim.formats.report.fio_stats import (
    DirectionStats,
    GroupDirStats,
    JobStats,
    bw_agg_percent,
    pool_runs,
)
from cephsim.formats.report.fio_text import (
    N2S_BYTE,
    N2S_BYTEPERSEC,
    display_lat,
    fio_text,
    group_status,
    num2str,
    percentile_block,
)
from cephsim.metrics.fio_hist import (
    BUCKET_VALUES,
    DEFAULT_PERCENTILES,
    FIO_IO_U_PLAT_NR,
    HIST_MAX_EXACT_NS,
    FioHistogram,
    calc_percentiles,
    plat_idx_to_val,
    plat_val_to_idx,
)

HERE = Path(__file__).parent
FIXTURES = HERE / "fixtures" / "fio"
GOLDEN = HERE / "golden"
PSYNC_JSON = FIXTURES / "fio-3.33_psync_randwrite.jsonplus.json"
RANDRW_OUT = FIXTURES / "fio-3.33_libaio_randrw.jsonplus_normal.out"


def _load_randrw() -> tuple[dict, str]:
    txt = RANDRW_OUT.read_text()
    start = txt.index("{")
    doc, end = json.JSONDecoder().raw_decode(txt[start:])
    return doc, txt[start + end :]


def _fixture_dirs() -> list[tuple[str, dict]]:
    out = [("psync.write", json.loads(PSYNC_JSON.read_text())["jobs"][0]["write"])]
    doc, _ = _load_randrw()
    out += [(f"randrw.{d}", doc["jobs"][0][d]) for d in ("read", "write")]
    return out


# --------------------------------------------------------------------------- (a)
def test_small_values_map_exactly() -> None:
    v = np.arange(128)
    assert np.array_equal(plat_val_to_idx(v), v)
    assert np.array_equal(plat_idx_to_val(v), v)


@pytest.mark.parametrize(
    ("val", "idx"),
    [(128, 128), (129, 128), (130, 129), (255, 191), (256, 192), (259, 192), (260, 193),
     (511, 255), (512, 256), (1000, 317), (1_000_000, 954),
     (HIST_MAX_EXACT_NS - 1, FIO_IO_U_PLAT_NR - 1), (HIST_MAX_EXACT_NS, FIO_IO_U_PLAT_NR - 1),
     (10**15, FIO_IO_U_PLAT_NR - 1)],
)  # fmt: skip
def test_val_to_idx_boundaries(val: int, idx: int) -> None:
    assert int(plat_val_to_idx(val)[0]) == idx


@pytest.mark.parametrize(
    ("idx", "val"),
    [(128, 129), (129, 131), (191, 255), (192, 258), (256, 516), (1855, 17_112_760_320)],
)
def test_idx_to_val(idx: int, val: int) -> None:
    assert int(plat_idx_to_val(idx)[0]) == val


def test_bucket_value_lies_in_its_bucket() -> None:
    assert np.array_equal(plat_val_to_idx(BUCKET_VALUES), np.arange(FIO_IO_U_PLAT_NR))
    assert np.all(np.diff(BUCKET_VALUES) > 0)


def test_overflow_is_counted_not_silent() -> None:
    h = FioHistogram.from_samples(np.array([5, HIST_MAX_EXACT_NS, 3 * HIST_MAX_EXACT_NS]))
    assert h.overflow == 2
    assert h.total == 3
    assert h.counts[-1] == 2
    d = DirectionStats.from_samples(None, np.array([1000, 2 * HIST_MAX_EXACT_NS]),
                                    bs_bytes=4096, runtime_ns=10**9)  # fmt: skip
    assert d.overflow == 1


def test_rejects_negative_and_float_nan() -> None:
    with pytest.raises(ValueError):
        FioHistogram.from_samples(np.array([-1]))
    with pytest.raises(ValueError):
        FioHistogram.from_samples(np.array([np.nan]))


# --------------------------------------------------------------------------- (b)
@pytest.mark.parametrize(
    ("name", "ddir"), _fixture_dirs(), ids=lambda x: x if isinstance(x, str) else ""
)
def test_percentiles_match_real_fio(name: str, ddir: dict) -> None:
    clat = ddir["clat_ns"]
    samples = FioHistogram.from_bins(clat["bins"]).expand()
    assert samples.size == clat["N"]
    h = FioHistogram.from_samples(samples)
    assert h.bins() == clat["bins"]
    ours = {percentile_key(p): v for p, v in h.percentiles(DEFAULT_PERCENTILES).items()}
    assert ours == clat["percentile"]
    # and through the full DirectionStats -> JSON path
    d = DirectionStats.from_samples(None, samples, bs_bytes=4096, runtime_ns=2 * 10**9)
    assert list(d.clat_percentiles.values()) == list(clat["percentile"].values())


def test_percentile_threshold_uses_fio_long_double() -> None:
    # nr = 1000, p = 99.9: threshold 999.00000000000005684 (long double) > 999,
    # so fio needs all 1000 samples: the 99.9th is the max bucket.
    counts = np.zeros(FIO_IO_U_PLAT_NR, dtype=np.int64)
    counts[10] = 999
    counts[100] = 1
    _, vals = calc_percentiles(counts, [99.9])
    assert vals == (100,)
    _, vals = calc_percentiles(counts, [50.0, 99.0])
    assert vals == (10, 10)


# --------------------------------------------------------------------------- text vs real fio
def test_text_pieces_match_real_fio_normal_output() -> None:
    doc, normal = _load_randrw()
    job = doc["jobs"][0]
    groups = {}
    for dname in ("read", "write"):
        x = job[dname]
        runt = x["runtime"]
        bw = 1000 * x["io_bytes"] // runt
        iops = 1000 * x["total_ios"] // runt
        hdr = (
            f"  {dname}: IOPS={num2str(iops, 4)}, BW={num2str(bw, 4, 1, True, N2S_BYTEPERSEC)} "
            f"({num2str(bw, 4, 1, False, N2S_BYTEPERSEC)})"
            f"({num2str(x['io_bytes'], 4, 1, True, N2S_BYTE)}/{runt}msec)"
        )
        assert hdr in normal
        for key, label in (("slat_ns", "slat"), ("clat_ns", "clat"), ("lat_ns", " lat")):
            s = x[key]
            assert display_lat(label, s["min"], s["max"], s["mean"], s["stddev"]) in normal
        p = FioHistogram.from_bins(x["clat_ns"]["bins"]).percentiles()
        assert percentile_block(list(p), list(p.values())) in normal
        per = bw_agg_percent(x["bw_mean"], bw)
        assert f"per={per:3.2f}%, avg={x['bw_mean']:5.2f}" in normal
        groups[dname] = GroupDirStats(runt, runt, bw, bw, x["io_bytes"], bw)
    assert group_status(0, groups) in normal


@pytest.mark.parametrize(
    ("args", "out"),
    [((20277, 4), "20.3k"), ((1611786, 6), "1611.8k"), ((999, 4), "999"),
     ((83058118, 4, 1, True, N2S_BYTEPERSEC), "79.2MiB/s"),
     ((83058118, 4, 1, False, N2S_BYTEPERSEC), "83.1MB/s"),
     ((166199296, 4, 1, True, N2S_BYTE), "159MiB"), ((979_000, 4), "979k"),
     ((99_999_999, 4), "100.0M")],
)  # fmt: skip
def test_num2str(args: tuple, out: str) -> None:
    assert num2str(*args) == out


# --------------------------------------------------------------------------- (c)
def _synthetic_jobs() -> list[JobStats]:
    """Deterministic (RNG-free) sample set: ~0.7 ms writes with a slow tail."""
    n = 20_000
    i = np.arange(n, dtype=np.int64)
    slat = 2_000 + (i * 7_919) % 9_973
    clat = 600_000 + ((i * 104_729) % 200_003) * 2
    clat[i % 997 == 0] += 9_000_000  # a 10 ms tail
    clat[i % 4_999 == 0] += 150_000_000
    completion = i * 500_000 + 250_000  # 10 s run, 2000 IOPS
    write = DirectionStats.from_samples(
        slat, clat, bs_bytes=4096, runtime_ns=10 * 10**9, completion_ns=completion
    )
    rclat = 90_000 + (i[:5000] * 7_927) % 50_021
    read = DirectionStats.from_samples(
        None, rclat, bs_bytes=4096, runtime_ns=10 * 10**9,
        completion_ns=(i[:5000] + 1) * 2_000_000,
    )  # fmt: skip
    return [
        JobStats("cephsim-w", "randwrite", 4096, iodepth=1, runtime_ns=10 * 10**9, write=write,
                 job_options={"runtime": "10"}),
        JobStats("cephsim-rw", "randrw", 4096, iodepth=4, numjobs=2,
                 runtime_ns=10 * 10**9, read=read, write=write, rwmixread=70,
                 usr_cpu=2.5, sys_cpu=7.25, job_options={"runtime": "10"}),
    ]  # fmt: skip


def _check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("CEPHSIM_REGEN_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    assert path.exists(), f"missing golden {path}; run with CEPHSIM_REGEN_GOLDEN=1"
    assert text == path.read_text()


def test_text_golden() -> None:
    _check_golden("fio_text_synthetic.txt", fio_text(_synthetic_jobs()))


def test_json_plus_golden() -> None:
    doc = fio_json(_synthetic_jobs(), fio_version="cephsim-test", plus=True)
    text = dumps_fio_json(doc)
    assert json.loads(text) == doc
    _check_golden("fio_jsonplus_synthetic.json", text)


# --------------------------------------------------------------------------- (d)
def test_json_has_fio_plot_keys() -> None:
    doc = fio_json(_synthetic_jobs())
    assert list(doc)[:4] == ["fio version", "timestamp", "timestamp_ms", "time"]
    assert doc["time"] == "Thu Jan  1 00:00:00 1970"
    for job in doc["jobs"]:
        for k in ("iodepth", "numjobs", "bs", "rw"):
            assert isinstance(job["job options"][k], str)
        for d in ("read", "write", "trim"):
            for k in ("bw", "iops", "iops_stddev"):
                assert k in job[d]
            assert {"mean", "stddev"} <= set(job[d]["lat_ns"])
        for k in ("latency_ms", "latency_us", "latency_ns", "usr_cpu", "sys_cpu"):
            assert k in job
        assert "bins" not in job["write"]["clat_ns"]
    w = doc["jobs"][0]["write"]
    assert list(w["clat_ns"]["percentile"]) == [
        "1.000000", "5.000000", "10.000000", "20.000000", "30.000000", "40.000000",
        "50.000000", "60.000000", "70.000000", "80.000000", "90.000000", "95.000000",
        "99.000000", "99.500000", "99.900000", "99.950000", "99.990000",
    ]  # fmt: skip
    assert w["iops"] == 2000.0 and w["bw"] == 8000 and w["runtime"] == 10000
    assert w["iops_samples"] == 20 and w["iops_min"] == w["iops_max"] == 2000
    assert doc["jobs"][0]["read"]["total_ios"] == 0
    assert "percentile" not in doc["jobs"][0]["read"]["clat_ns"]
    # same key structure as a real fio document (json+, one job)
    real = json.loads(PSYNC_JSON.read_text())["jobs"][0]
    ours = fio_json(_synthetic_jobs(), plus=True)["jobs"][0]
    assert list(ours) == list(real)
    for d in ("read", "write", "trim"):
        assert list(ours[d]) == list(real[d])
    assert list(ours["write"]["clat_ns"]) == list(real["write"]["clat_ns"])
    assert ours["sync"] == real["sync"]
    assert ours["trim"] == real["trim"]


def test_latency_buckets_sum_to_100() -> None:
    job = fio_json(_synthetic_jobs())["jobs"][1]
    total = sum(job["latency_ns"].values()) + sum(job["latency_us"].values()) + sum(
        job["latency_ms"].values()
    )
    assert total == pytest.approx(100.0, abs=0.05)


# --------------------------------------------------------------------------- (e)
@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.one_of(st.integers(0, 2_000), st.integers(0, 10**9), st.integers(0, 2**40)),
        min_size=1, max_size=300,
    ),  # fmt: skip
    st.lists(st.floats(0.001, 100.0), min_size=1, max_size=20),
)
def test_percentile_properties(values: list[int], plist: list[float]) -> None:
    data = np.array(values, dtype=np.int64)
    h = FioHistogram.from_samples(data)
    assert h.total == data.size
    assert int(h.counts.sum()) == data.size
    keys, vals = calc_percentiles(h.counts, plist)
    assert list(keys) == sorted(keys)
    assert all(a <= b for a, b in zip(vals, vals[1:]))
    lo = int(plat_idx_to_val(plat_val_to_idx(data.min()))[0])
    hi = int(plat_idx_to_val(plat_val_to_idx(data.max()))[0])
    assert all(lo <= v <= hi for v in vals)
    assert h.overflow == int(np.count_nonzero(data >= HIST_MAX_EXACT_NS))


# --------------------------------------------------------------------------- misc
def test_dumps_reproduces_real_fio_json_byte_for_byte() -> None:
    text = PSYNC_JSON.read_text()
    assert dumps_fio_json(json.loads(text)) == text


def test_latency_distribution_lines_match_real_fio() -> None:
    from cephsim.formats.report.fio_text import _LAT_M_RANGES, _LAT_RANGES, _show_lat

    doc, normal = _load_randrw()
    job = doc["jobs"][0]
    lines = (
        _show_lat(list(job["latency_ns"].values()), _LAT_RANGES, "nsec")
        + _show_lat(list(job["latency_us"].values()), _LAT_RANGES, "usec")
        + _show_lat(list(job["latency_ms"].values()), _LAT_M_RANGES, "msec")
    )
    assert lines and lines in normal


def test_latency_bucket_edges() -> None:
    from cephsim.formats.report.fio_stats import latency_bucket_counts

    n, u, m = latency_bucket_counts(
        np.array([0, 1, 2, 999, 1000, 1999, 2000, 999_999, 10**6, 1_999_999, 2 * 10**6,
                  1_999 * 10**6, 2_000 * 10**6, 10**12])
    )  # fmt: skip
    assert n == (2, 1, 0, 0, 0, 0, 0, 0, 0, 1)
    assert u == (2, 1, 0, 0, 0, 0, 0, 0, 0, 1)
    assert m == (2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2)


def test_display_lat_unit_choice() -> None:
    assert display_lat("clat", 10519, 57976, 13462.14, 900.0).startswith("    clat (nsec)")
    assert display_lat("clat", 2001, 100_000, 5000.0, 1000.5).startswith("    clat (usec)")
    line = display_lat("clat", 8_000_000, 259_000_000, 61_060_000.0, 13_080_000.0)
    assert line == "    clat (msec): min=8, max=259, avg=61.06, stdev=13.08\n"


def _read_like_jsonplus_clat2csv(doc: dict) -> dict[tuple[int, str], list[tuple[int, int]]]:
    """What fio's tools/fio_jsonplus_clat2csv reads of a json+ file (written here from its
    description, not copied): every job's read/write/trim 'clat_ns' 'bins', a mapping of a
    latency bucket (ns, as a string) to its count, which it sorts and accumulates."""
    out = {}
    for i, job in enumerate(doc["jobs"]):
        for ddir in ("read", "write", "trim"):
            bins = job.get(ddir, {}).get("clat_ns", {}).get("bins")
            if bins:
                out[(i, ddir)] = sorted((int(k), int(v)) for k, v in bins.items())
    return out


def test_run_json_plus_is_readable_as_fio_writes_it(run_cli, tmp_path):
    QS = str(Path(__file__).resolve().parents[1] / "scenarios" / "quickstart.yaml")
    out = tmp_path / "r.json"
    r = run_cli("run", QS, "--set", "run.ios=800", "--set", "workload.rw=randrw",
                "-f", "json+", "-o", str(out))
    assert r.exit_code == 0, r.output
    doc = json.loads(out.read_text())
    read = _read_like_jsonplus_clat2csv(doc)
    assert {d for _, d in read} == {"read", "write"}
    for (i, ddir), bins in read.items():
        d = doc["jobs"][i][ddir]
        assert sum(c for _, c in bins) == d["total_ios"] == d["clat_ns"]["N"]
        # fio's percentiles come from the same histogram: p99 is the bucket where the
        # running count reaches 99 % of the total
        total, run_ = d["total_ios"], 0
        for ns, c in bins:
            run_ += c
            if run_ >= 0.99 * total:
                break
        assert d["clat_ns"]["percentile"]["99.000000"] == ns
    plain = json.loads(run_cli("run", QS, "--set", "run.ios=200", "-f", "json").stdout)
    assert "bins" not in plain["jobs"][0]["write"]["clat_ns"]


# --------------------------------------------------------------------------- job options
def test_job_options_are_written_as_fio_writes_them() -> None:
    """A mixed job of two jobs folded into one record, against real fio's JSON of the same
    job (fio --rw=randrw --rwmixread=70 --bs=4k --iodepth=4 --numjobs=2 --runtime=3): the
    values are fio's strings; rwmixread follows rw; group_reporting is set, as it must be
    for fio to print one record for two jobs; no runtime unless the job was given one."""
    text = (FIXTURES / "randrw_2jobs_group_reporting_json_and_normal.out").read_text()
    real = json.JSONDecoder().raw_decode(text[text.index("{"):])[0]
    real_opts = real["jobs"][0]["job options"]
    job = JobStats("mixed", "randrw", 4096, iodepth=4, numjobs=2, ioengine="libaio",
                   rwmixread=70, job_options={"runtime": "3"})
    ours = job_options(job)
    for k in ("name", "rw", "rwmixread", "bs", "iodepth", "ioengine", "numjobs", "runtime"):
        assert ours[k] == real_opts[k], k
    keys = list(ours)
    assert keys.index("rwmixread") == keys.index("rw") + 1
    assert ours["group_reporting"] == "1" and keys[-1] == "group_reporting"
    one = job_options(JobStats("w", "randwrite", 4096, rwmixread=70))
    assert "rwmixread" not in one and "group_reporting" not in one and "runtime" not in one
    # fio writes "global options" only when a [global] section set something
    assert "global options" not in real and "global options" not in fio_json([job])
    assert fio_json([job], global_options={"direct": "1"})["global options"] == {"direct": "1"}


@pytest.mark.parametrize(("ns", "text"), [
    (60 * 10**9, "60"), (1_500 * 10**6, "1500ms"), (300 * 10**6, "300ms"), (1_000, "1us"),
    (2_500_000, "2500us"), (400, "1us"), (1_600, "2us")])
def test_fio_time_option(ns: int, text: str) -> None:
    assert format_time(ns) == text


def test_banner_prints_clones_as_fio_does() -> None:
    """fio's start-up lines for a job with numjobs=2: the job line, '...', the version and
    'Starting 2 processes' (the real fixture's first four lines)."""
    real = (FIXTURES / "randrw_2jobs_group_reporting_json_and_normal.out").read_text()
    job = JobStats("mixed", "randrw", 4096, iodepth=4, numjobs=2, ioengine="libaio")
    ours = fio_text([job], banner=True, fio_version="fio-3.33")
    assert ours.startswith("".join(real.splitlines(keepends=True)[:4]) + "\n")


# --------------------------------------------------------------------------- timestamps
def test_timestamp_ms_sets_both_fields() -> None:
    doc = fio_json(_synthetic_jobs(), timestamp_ms=1_700_000_000_123)
    assert (doc["timestamp"], doc["timestamp_ms"]) == (1_700_000_000, 1_700_000_000_123)
    assert doc["time"] == "Tue Nov 14 22:13:20 2023"
    assert fio_json(_synthetic_jobs(), timestamp=5)["timestamp_ms"] == 5000


def test_report_time_is_now_or_source_date_epoch(monkeypatch) -> None:
    import time

    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    before = time.time_ns() // 1_000_000
    now = report_time_ms()
    assert before <= now <= time.time_ns() // 1_000_000
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    assert report_time_ms() == 1_700_000_000_000
    for bad in ("yesterday", "-5", "1.5", "\u00b2"):
        monkeypatch.setenv("SOURCE_DATE_EPOCH", bad)
        with pytest.raises(CephsimError, match="SOURCE_DATE_EPOCH"):
            report_time_ms()


# --------------------------------------------------------------------------- pooled runs
WINDOW_NS = 500 * 10**6
_runs = st.lists(
    st.tuples(st.integers(1, 3),  # run time in whole 500 ms windows
              st.lists(st.tuples(st.integers(0, 10**8), st.integers(0, 2_000_000),
                                 st.floats(0.0, 0.999999)), min_size=1, max_size=40)),
    min_size=1, max_size=4)


def _direction(run: tuple[int, list[tuple[int, int, float]]], offset: int = 0) -> tuple:
    windows, ops = run
    runtime = windows * WINDOW_NS
    clat = np.array([c for c, _, _ in ops], dtype=np.int64)
    slat = np.array([s for _, s, _ in ops], dtype=np.int64)
    done = np.array([int(f * runtime) for _, _, f in ops], dtype=np.int64) + offset
    return slat, clat, done, runtime


@settings(max_examples=150, deadline=None, database=None)
@given(_runs)
def test_pooled_runs_are_the_concatenated_run(runs: list) -> None:
    """Runs pooled from their statistics alone give what one run of all their I/Os, one
    run after another, gives from the samples: counts, histograms and extremes exactly,
    means and deviations to rounding, the bw/iops samples of every window."""
    parts, slats, clats, dones, offset = [], [], [], [], 0
    for run in runs:
        slat, clat, done, runtime = _direction(run)
        parts.append(DirectionStats.from_samples(slat, clat, bs_bytes=4096, runtime_ns=runtime,
                                                 completion_ns=done))
        slats.append(slat)
        clats.append(clat)
        dones.append(done + offset)
        offset += runtime
    pooled = DirectionStats.pooled(parts)
    whole = DirectionStats.from_samples(np.concatenate(slats), np.concatenate(clats),
                                        bs_bytes=4096, runtime_ns=offset,
                                        completion_ns=np.concatenate(dones))
    for k in ("total_ios", "io_bytes", "runtime_ns", "lat_n", "lat_u", "lat_m"):
        assert getattr(pooled, k) == getattr(whole, k), k
    assert pooled.clat_hist == whole.clat_hist and pooled.lat_hist == whole.lat_hist
    for k in ("slat", "clat", "lat"):
        a, b = getattr(pooled, k), getattr(whole, k)
        assert (a.n, a.min, a.max) == (b.n, b.min, b.max)
        assert a.mean == pytest.approx(b.mean, rel=1e-9)
        assert a.stddev == pytest.approx(b.stddev, rel=1e-6, abs=1e-3)
    for k in ("bw_stat", "iops_stat"):
        a, b = getattr(pooled, k), getattr(whole, k)
        assert (a is None) == (b is None)
        if a is not None:
            assert (a.min, a.max, a.samples) == (b.min, b.max, b.samples)
            assert a.mean == pytest.approx(b.mean, rel=1e-9)
            assert a.stddev == pytest.approx(b.stddev, rel=1e-6, abs=1e-6)


def test_pool_runs_adds_run_time_and_weights_cpu() -> None:
    a, b = _synthetic_jobs()[0], _synthetic_jobs()[0]
    b = JobStats(b.jobname, b.rw, b.bs, runtime_ns=30 * 10**9, write=b.write, usr_cpu=4.0,
                 sys_cpu=2.0)
    p = pool_runs([a, b])
    assert p.runtime_ns == 40 * 10**9 and p.write.total_ios == 2 * a.write.total_ios
    assert p.usr_cpu == pytest.approx(3.0) and p.sys_cpu == pytest.approx(1.5)  # 10 s at 0 %
    doc = fio_json([p])["jobs"][0]
    assert doc["job_runtime"] == 40_000 and doc["write"]["total_ios"] == 40_000
    with pytest.raises(ValueError):
        pool_runs([a, JobStats("x", "randread", 4096, read=a.write)])


# --------------------------------------------------------------------------- bw min/mean/max
@settings(max_examples=200, deadline=None, database=None)
@given(st.integers(1, 2_600), st.lists(st.tuples(st.integers(0, 10**7), st.floats(0, 1.2)),
                                       min_size=1, max_size=200),
       st.integers(1, 3))
def test_bw_and_iops_min_mean_max_are_ordered(runtime_ms: int, ops: list, copies: int) -> None:
    """Short runs too (no full window, one, a few; completions after the last full window):
    min <= mean <= max for bw and iops, in the statistics, the JSON and the text, for a
    run and for several pooled; no samples means zeros throughout and no text line."""
    runtime = runtime_ms * 1_000_000
    clat = np.array([c for c, _ in ops], dtype=np.int64)
    done = np.array([int(f * runtime) for _, f in ops], dtype=np.int64)
    d = DirectionStats.from_samples(None, clat, bs_bytes=65536, runtime_ns=runtime,
                                    completion_ns=done)
    for one in (d, DirectionStats.pooled([d] * copies)):
        job = JobStats("j", "randwrite", 65536, runtime_ns=one.runtime_ns, write=one)
        w = fio_json([job])["jobs"][0]["write"]
        text = fio_text([job])
        for k, stat in (("bw", one.bw_stat), ("iops", one.iops_stat)):
            mean = w["bw_mean" if k == "bw" else "iops_mean"]
            assert w[f"{k}_min"] <= mean <= w[f"{k}_max"]
            if stat is None:
                assert w[f"{k}_samples"] == 0 and w[f"{k}_min"] == w[f"{k}_max"] == mean == 0
            else:
                assert stat.min <= stat.mean <= stat.max and w[f"{k}_samples"] == stat.samples
        line = next((x for x in text.splitlines() if x.startswith("   bw (")), None)
        assert (line is None) == (one.bw_stat is None)
        if line is not None:
            vals = dict(kv.split("=") for kv in line.split(": ", 1)[1].split(", "))
            assert float(vals["min"]) <= float(vals["avg"]) <= float(vals["max"])
