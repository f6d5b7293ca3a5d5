"""Bad input to the Ceph-side measurement readers - rados bench output, ``perf dump`` JSON,
``dump_historic_ops`` JSON - and to flush sweep files.  Each must be a short error (exit 2,
no traceback) naming the file, line and column of the bad figure, given before anything is
written; a valid file still reads to the same values."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import ROOT, assert_short_error

from cephsim.tools.calibrate.flushfit import MAX_SWEEP_JOBS, load_sweeps

FIX = ROOT / "tests" / "fixtures"
RADOS_TEXT = FIX / "rados" / "write_quincy_like.txt"
RADOS_JSON = FIX / "rados" / "write_format_json.json"
PERF_BEFORE = FIX / "perf" / "osd0_perf_dump_before.json"
PERF_AFTER = FIX / "perf" / "osd0_perf_dump_after.json"
HIST_DICT = FIX / "historic" / "dict_layout_reef.json"
HIST_LIST = FIX / "historic" / "list_layout_2017_filestore.json"
FIO_JSON = FIX / "fio" / "randwrite4k_libaio.json"


def _edit(tmp_path: Path, src: Path, old: str, new: str, name: str =
        "bad.out") -> tuple[Path, int, int]:
    """``src`` with the first ``old`` replaced by ``new``; the 1-based line and column of it."""
    text = src.read_text()
    assert old in text, old
    at = text.index(old)
    p = tmp_path / name
    p.write_text(text.replace(old, new, 1))
    line = text.count("\n", 0, at) + 1
    return p, line, at - (text.rfind("\n", 0, at) + 1) + 1


def _inspect_json(run_cli, *paths: Path) -> dict:
    r = run_cli("inspect", "--format", "json", *paths)
    assert r.exit_code == 0, r.output
    return r.json()


# ---------------------------------------------------------------- rados bench (text)


@pytest.mark.parametrize("old,new,words", [
    ("Average Latency(s):     0.300001", "Average Latency(s):     -0.300001",
     ["average latency -0.300001", "cannot be negative"]),
    ("Average Latency(s):     0.300001", "Average Latency(s):     nan",
     ["average latency is 'nan'", "expected a number", "no op completed"]),
    ("Average Latency(s):     0.300001", "Average Latency(s):     inf", ["expected a number"]),
    ("Average Latency(s):     0.300001", "Average Latency(s):     0", ["must be > 0"]),
    ("Average IOPS:           52", "Average IOPS:           fast", ["'fast'", "expected a number"]),
    ("Bandwidth (MB/sec):     210.854", "Bandwidth (MB/sec):     -210.854", ["cannot be negative"]),
    ("Max latency(s):         0.862328", "Max latency(s):         -", ["'-'", "expected a number"]),
    ("Total time run:         10.32", "Total time run:         0", ["total time run 0",
                                                                     "must be > 0"]),
    ("Total writes made:      544", "Total writes made:      54.4", ["expected a whole number"]),
    ("Write size:             4194304", "Write size:             0", ["must be > 0"]),
    ("Object size:            4194304", "Object size:            -4194304",
     ["cannot be negative"]),
])
def test_rados_bench_text_bad_value(tmp_path, run_cli, old, new, words):
    label = old.split(":")[0]
    p, line, _ = _edit(tmp_path, RADOS_TEXT, old, new)
    col = len(old) - len(old.split()[-1]) + 1  # the value's column
    r = run_cli("inspect", p)
    assert_short_error(r, f"{p}:{line}:{col}:", *words)
    assert label.split("(")[0].strip().lower() in r.output.lower()


@pytest.mark.parametrize("key,value,words", [
    ("average_latency", '"-0.3"', ['average_latency is "-0.3"', "cannot be negative"]),
    ("average_latency", "null", ["average_latency is null", "expected a number"]),
    ("average_latency", '"nan"', ["expected a number"]),
    ("average_latency", "1e400", ["expected a finite number"]),
    ("average_iops", "true", ["average_iops is true", "expected a number"]),
    ("total_time_run", '"0"', ["must be > 0"]),
    ("total_writes_made", '"54.4"', ["expected a whole number"]),
])
def test_rados_bench_json_bad_value(tmp_path, run_cli, key, value, words):
    doc = RADOS_JSON.read_text()
    m = re.search(rf'"{key}":("[^"]*"|[^,}}]+)', doc)
    assert m
    p = tmp_path / "rados.json"
    p.write_text(doc[: m.start(1)] + value + doc[m.end(1):])
    r = run_cli("inspect", p)
    assert_short_error(r, f"{p}:1:{m.start() + 1}:", f"{key}:", *words)


def test_rados_bench_json_truncated(tmp_path, run_cli):
    p = tmp_path / "rados.json"
    p.write_text(RADOS_JSON.read_text()[:200])
    assert_short_error(run_cli("inspect", p), f"{p}:1:", "truncated")


def test_rados_bench_through_compare_fio_writes_nothing(tmp_path, run_cli):
    p, line, _ = _edit(tmp_path, RADOS_TEXT, "Average Latency(s):     0.300001",
                       "Average Latency(s):     -0.3")
    out = tmp_path / "cmp.txt"
    r = run_cli("compare-fio", FIO_JSON, p, "-o", out)
    assert_short_error(r, f"{p}:{line}:", "cannot be negative")
    assert not out.exists()
    assert list(tmp_path.iterdir()) == [p]


def test_rados_bench_valid_files_unchanged(run_cli):
    doc = _inspect_json(run_cli, RADOS_TEXT, RADOS_JSON, FIX / "rados" / "seq_old_labels.txt")
    text, js, old = (f["measurement"] for f in doc["files"])
    assert text["mode"] == "write" and text["avg_latency_ns"] == 300_001_000
    assert text["min_latency_ns"] == 63_151_000 and text["max_latency_ns"] == 862_328_000
    assert text["total_time_ns"] == 10_320_000_000 and text["total_ops"] == 544
    assert text["op_size_bytes"] == text["object_size_bytes"] == 4194304
    assert text["avg_iops"] == 52 and text["bandwidth_bytes"] == pytest.approx(210.854 * 1024**2)
    assert text["warnings"] == []
    for k in ("avg_latency_ns", "max_latency_ns", "min_latency_ns", "total_ops", "avg_iops",
              "op_size_bytes", "total_time_ns"):
        assert js[k] == text[k], k
    assert old["mode"] == "read" and old["avg_iops"] == 269
    assert old["avg_latency_ns"] == 58_472_200 and old["total_ops"] == 544


# ---------------------------------------------------------------- perf dump


_OP_W = '"op_w_latency": { "avgcount": 549, "sum": 418.494610000, "avgtime": 0.762285264 }'


@pytest.mark.parametrize("new,field,words", [
    ('"avgcount": -549, "sum": 418.494610000, "avgtime": 0.762285264', "avgcount",
     ["avgcount is -549", "cannot be negative"]),
    ('"avgcount": 549.5, "sum": 418.494610000, "avgtime": 0.762285264', "avgcount",
     ["expected a whole number"]),
    ('"avgcount": "549", "sum": 418.494610000, "avgtime": 0.762285264', "avgcount",
     ['avgcount is "549"', "expected a number"]),
    ('"avgcount": true, "sum": 418.494610000, "avgtime": 0.762285264', "avgcount",
     ["avgcount is true", "expected a number"]),
    ('"avgcount": 549, "sum": -418.49461, "avgtime": 0.762285264', "sum",
     ["cannot be negative"]),
    ('"avgcount": 549, "sum": null, "avgtime": 0.762285264', "sum", ["sum is null"]),
    ('"avgcount": 549, "sum": 1e400, "avgtime": 0.762285264', "sum",
     ["expected a finite number"]),
    ('"avgcount": 549, "sum": 418.494610000, "avgtime": -0.7', "avgtime",
     ["cannot be negative"]),
    ('"avgcount": 0, "sum": 418.494610000, "avgtime": 0.762285264', "sum",
     ["avgcount is 0", "time without any event"]),
])
def test_perf_dump_bad_average(tmp_path, run_cli, new, field, words):
    p, line, _ = _edit(tmp_path, PERF_BEFORE, _OP_W, '"op_w_latency": { ' + new + " }")
    text = p.read_text()
    line_text = text.split("\n")[line - 1]
    col = line_text.index(f'"{field}"') + 1
    r = run_cli("inspect", p)
    assert_short_error(r, f"{p}:{line}:{col}:", f"osd.op_w_latency.{field}:", *words)


def test_perf_dump_average_missing_sum(tmp_path, run_cli):
    p, line, col = _edit(tmp_path, PERF_BEFORE, _OP_W, '"op_w_latency": { "avgcount": 549 }')
    r = run_cli("inspect", p)
    assert_short_error(r, f"{p}:{line}:{col}:", "osd.op_w_latency:", "sum is missing")


@pytest.mark.parametrize("new,words", [
    ('"op_w": -549', ["op_w is -549", "cannot be negative"]),
    ('"op_w": "549"', ['op_w is "549"', "expected a number"]),
    ('"op_w": null', ["op_w is null"]),
])
def test_perf_dump_bad_plain_counter(tmp_path, run_cli, new, words):
    p, line, col = _edit(tmp_path, PERF_BEFORE, '"op_w": 549', new)
    assert_short_error(run_cli("inspect", p), f"{p}:{line}:{col}:", "osd.op_w:", *words)


def test_perf_dump_bare_nan_is_located(tmp_path, run_cli):
    p, line, col = _edit(tmp_path, PERF_BEFORE, "418.494610000", "NaN")
    assert_short_error(run_cli("inspect", p), f"{p}:{line}:{col}:", "NaN is not valid JSON")


def test_perf_dump_truncated(tmp_path, run_cli):
    p = tmp_path / "perf.json"
    text = PERF_BEFORE.read_text()
    p.write_text(text[: text.index(_OP_W) + 30])
    assert_short_error(run_cli("inspect", p), f"{p}:", "truncated")


def test_perf_dump_interval_sum_without_count(tmp_path, run_cli):
    # the after dump's kv_flush_lat keeps the before dump's count but gains time
    before = json.loads(PERF_BEFORE.read_text())
    after = json.loads(PERF_AFTER.read_text())
    after["bluestore"]["kv_flush_lat"]["avgcount"] = before["bluestore"]["kv_flush_lat"]["avgcount"]
    p = tmp_path / "after.json"
    p.write_text(json.dumps(after, indent=4) + "\n")
    r = run_cli("inspect", PERF_BEFORE, p)
    assert_short_error(r, f"{p}:", "bluestore.kv_flush_lat", "avgcount did not")


def test_perf_dump_valid_files_unchanged(run_cli):
    doc = _inspect_json(run_cli, PERF_BEFORE, PERF_AFTER)
    before = doc["files"][0]["measurement"]
    assert before["averages"]["osd.op_w_latency"] == {
        "avgcount": 549, "sum_ns": 418_494_610_000, "avgtime_ns": 762_285_264}
    assert before["averages"]["throttle-osd_client_bytes.wait"] == {
        "avgcount": 0, "sum_ns": 0, "avgtime_ns": 0}
    assert before["values"]["osd.op_w"] == 549 and before["warnings"] == []
    interval = doc["perf_intervals"][0]["averages"]
    assert interval["osd.op_w_latency"] == {"count": 10000, "mean_ns": 772_000}
    assert interval["bluestore.kv_sync_lat"]["mean_ns"] == 300_000
    assert interval["throttle-osd_client_bytes.wait"] == {"count": 0, "mean_ns": None}


# ---------------------------------------------------------------- historic ops


@pytest.mark.parametrize("src,old,new,path,words", [
    (HIST_DICT, '"duration": 0.000812', '"duration": -0.000812', "ops.0.duration",
     ["cannot be negative"]),
    (HIST_DICT, '"duration": 0.000812', '"duration": "0.000812"', "ops.0.duration",
     ["expected a number"]),
    (HIST_DICT, '"duration": 0.000812', '"duration": null', "ops.0.duration",
     ["duration is null"]),
    (HIST_DICT, '"duration": 0.000812', '"duration": 1e400', "ops.0.duration",
     ["expected a finite number"]),
    (HIST_DICT, '"duration": 0.000090', '"duration": false', "ops.1.duration",
     ["duration is false"]),
    (HIST_DICT, '"size": 20', '"size": 2.5', "size", ["expected a whole number"]),
    (HIST_DICT, '"size": 20', '"size": -20', "size", ["cannot be negative"]),
    (HIST_DICT, '"duration": 600', '"duration": "ten minutes"', "duration",
     ["expected a number"]),
    (HIST_LIST, '"num to keep": 20', '"num to keep": -1', "num to keep", ["cannot be negative"]),
    (HIST_LIST, '"duration": 0.004512', '"duration": -1', "Ops.0.duration",
     ["cannot be negative"]),
])
def test_historic_ops_bad_number(tmp_path, run_cli, src, old, new, path, words):
    p, line, col = _edit(tmp_path, src, old, new)
    assert_short_error(run_cli("inspect", p), f"{p}:{line}:{col}:", f"{path}:", *words)


def test_historic_ops_time_going_backwards_warns_and_drops_that_ops_stages(tmp_path, run_cli):
    """A milestone stamped before an earlier one (a clock step): a warning naming it, and
    that op gets no stages; the rest of the dump stays usable."""
    # op_commit (event 9) put before 'waiting for subops from' (event 8)
    old = '"time": "2024-12-28T10:19:26.467000+0000"'
    p, _, _ = _edit(tmp_path, HIST_DICT, old, '"time": "2024-12-28T10:19:26.466000+0000"')
    r = run_cli("inspect", p)
    assert r.exit_code == 0, r.output
    for words in ("ops.0.type_data.events.9.time", "'op_commit'",
                  "800 us earlier than 'waiting for subops from 9,17'", "stages are left out"):
        assert words in r.output, r.output
    good, bad = _inspect_json(run_cli, HIST_DICT), _inspect_json(run_cli, p)
    assert good != bad  # the stepped op's stages are gone, the others are read as before


def test_historic_ops_time_going_backwards_list_layout(tmp_path, run_cli):
    old = '"time": "2017-10-13 16:04:19.126379"'  # done, before commit_sent
    p, _, _ = _edit(tmp_path, HIST_LIST, old, '"time": "2017-10-13 16:04:19.121000"')
    r = run_cli("inspect", p)
    assert r.exit_code == 0, r.output
    assert "Ops.0.type_data.2.13.time" in r.output and "earlier than 'commit_sent'" in r.output


def test_historic_ops_messenger_stamps_and_commit_race_are_not_errors(tmp_path, run_cli):
    # header_read before initiated is in the fixture already (a messenger stamp); here the
    # first replica's sub_op_commit_rec is also listed before the local op_commit although
    # it came later (the two are marked by different threads)
    text = HIST_DICT.read_text()
    a = '{ "event": "op_commit", "time": "2024-12-28T10:19:26.467000+0000", "duration": 0.0002 },'
    b = ('{ "event": "sub_op_commit_rec", "time": "2024-12-28T10:19:26.467150+0000", '
         '"duration": 0.00015 },')
    assert a in text and b in text
    p = tmp_path / "race.json"
    p.write_text(text.replace(a, "@@").replace(b, a).replace("@@", b))
    assert p.read_text().index(b) < p.read_text().index(a)
    doc = _inspect_json(run_cli, p)
    op = doc["files"][0]["measurement"]["ops"][0]
    assert op["stages"]["op_commit -> sub_op_commit_rec"] == 300_000
    assert op["stages"]["sub_op_commit_rec -> commit_sent"] == 30_000
    assert [e["name"] for e in op["events"]][:3] == ["initiated", "throttled", "header_read"]


def test_historic_ops_truncated(tmp_path, run_cli):
    p = tmp_path / "historic.json"
    text = HIST_DICT.read_text()
    p.write_text(text[: text.index('"event": "op_commit"')])
    assert_short_error(run_cli("inspect", p), f"{p}:", "truncated")


def test_historic_ops_wrapped_duration_is_a_warning(tmp_path, run_cli):
    p, _, _ = _edit(tmp_path, HIST_DICT, '"duration": 0.000812', '"duration": 4294967295.99')
    m = _inspect_json(run_cli, p)["files"][0]["measurement"]
    assert m["ops"][0]["duration_ns"] == 812_000  # from the events, as before
    assert any("wrap-around" in w for w in m["warnings"])


def test_historic_ops_valid_files_unchanged(run_cli):
    doc = _inspect_json(run_cli, HIST_DICT, HIST_LIST)
    reef, old = (f["measurement"] for f in doc["files"])
    assert reef["layout"] == "dict" and reef["size"] == 20 and reef["duration_s"] == 600
    op = reef["ops"][0]
    assert op["is_write"] and op["duration_ns"] == 812_000
    assert op["stages"] == {
        "initiated -> queued_for_pg": 36_000, "queued_for_pg -> reached_pg": 60_000,
        "reached_pg -> started": 60_000, "started -> waiting for subops from": 100_000,
        "waiting for subops from -> op_commit": 200_000,
        "op_commit -> sub_op_commit_rec": 300_000, "sub_op_commit_rec -> commit_sent": 30_000,
        "commit_sent -> done": 26_000}
    assert reef["ops"][1]["duration_ns"] == 90_000 and reef["warnings"] == []
    assert old["layout"] == "list" and old["size"] == 20
    assert old["ops"][0]["stages"]["op_commit -> sub_op_commit_rec"] == 2_700_000
    assert old["ops"][0]["events"][-1]["offset_ns"] == 4_512_000


# ---------------------------------------------------------------- flush sweeps


SWEEP = """\
source: "somewhere"
drives:
  intel-545: {{iops: {iops}}}
"""


@pytest.mark.parametrize("iops,key,words", [
    ("{1: 1500, 1025: 6460}", "1025", ["1025 jobs", f"at most {MAX_SWEEP_JOBS}"]),
    ("{1: 1500, 100000: 6460}", "100000", [f"at most {MAX_SWEEP_JOBS}"]),
    ("{1: 1500, 8.5: 6460}", "8.5", ["8.5 is not a number of jobs", "integer >= 1"]),
    ("{1: 1500, '8': 6460}", "8", ["'8' is not a number of jobs"]),
    ("{1: 1500, 0: 6460}", "0", ["0 is not a number of jobs"]),
    ("{1: 1500, -8: 6460}", "-8", ["-8 is not a number of jobs"]),
    ("{false: 1500, 8: 6460}", "False", ["False is not a number of jobs"]),
])
def test_flush_sweep_bad_jobs(tmp_path, run_cli, iops, key, words):
    f = tmp_path / "sweeps.yaml"
    f.write_text(SWEEP.format(iops=iops))
    r = run_cli("calibrate", "--flush-sweeps", f)
    assert_short_error(r, f"{f}:3:", f"drives.intel-545.iops.{key}:", *words)
    assert "2 or more jobs" not in r.output  # no follow-on complaint about the refused point


def test_flush_sweep_accepts_the_bound(tmp_path):
    f = tmp_path / "sweeps.yaml"
    f.write_text(SWEEP.format(iops=f"{{1: 1500, {MAX_SWEEP_JOBS}: 6460}}"))
    source, sweeps = load_sweeps(f)  # reading only: no replay
    assert source == "somewhere"
    assert sweeps["intel-545"][0] == {1: 1500.0, MAX_SWEEP_JOBS: 6460.0}


def test_flush_sweep_shipped_file_still_reads():
    _, sweeps = load_sweeps(ROOT / "calibration" / "consumer-flush" / "sweeps.yaml")
    assert sweeps["intel-545"][0] == {1: 1500.0, 8: 6460.0}
    assert sweeps["pm883-vwc-on"][0] == {1: 5094.0, 16: 27521.0}


# --------------------------------------------------- numbers of any length (issue: tracebacks)

from hypothesis import (  # noqa: E402
    HealthCheck,
    given,
    settings,
    strategies as st,  # noqa: E402
)

_LONG_CASES = [  # (fixture, a number in it, the commands that read it)
    (FIX / "fio" / "randwrite4k_libaio_normal.txt", "msec", ("inspect", "compare-fio")),
    (FIO_JSON, '"runtime" : ', ("inspect", "compare-fio")),
    (FIX / "ping" / "iputils_loopback_c5.txt", " packets transmitted", ("inspect",)),
    (FIX / "qperf" / "loopback_m4K_tcp_udp_lat.txt", "latency", ("inspect", "calibrate --network")),
]


def _with_long_number(src: Path, near: str, digits: int, tmp_path: Path) -> tuple[Path, int]:
    """``src`` with the first run of digits next to ``near`` made ``digits`` long."""
    text = src.read_text()
    at = text.index(near)
    m = list(re.finditer(r"\d+", text[:at + len(near) + 40]))
    m = [x for x in m if abs(x.start() - at) < 60][-1]
    p = tmp_path / f"long{src.suffix}"
    p.write_text(text[:m.start()] + "9" * digits + text[m.end():])
    return p, text.count("\n", 0, m.start()) + 1


@pytest.mark.parametrize(("src", "near", "commands"), _LONG_CASES, ids=lambda v: getattr(v, "name",
        ""))
def test_a_number_too_long_to_be_a_measurement_is_a_located_error(tmp_path, run_cli, src, near, commands):
    """A file whose figure was replaced by 5,000 nines (Python's int() refuses more than 4,300
    digits) is refused where it stands, by every command that reads such files."""
    bad, line = _with_long_number(src, near, 5000, tmp_path)
    for cmd in commands:
        args = cmd.split() + [str(bad)]
        if cmd == "compare-fio":
            args = ["compare-fio", str(bad), str(bad)]
        r = run_cli(*args)
        assert_short_error(r, f"{bad}:{line}:", "a number of 5000 digits")


@settings(max_examples=25, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(digits=st.integers(1, 6000), which=st.sampled_from(range(len(_LONG_CASES))))
def test_numbers_of_any_length_never_break_a_reader(tmp_path, run_cli, digits, which):
    src, near, _ = _LONG_CASES[which]
    bad, _line = _with_long_number(src, near, digits, tmp_path)
    r = run_cli("inspect", str(bad))
    assert r.exit_code in (0, 2), r.output
    assert r.exception is None and "Traceback" not in r.output
