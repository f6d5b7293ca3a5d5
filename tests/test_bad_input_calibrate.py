"""Bad input to ``calibrate`` (case files, --network figures and options, --flush-sweeps)
and to the measurement readers (``inspect``, ``compare-fio``).  Each must be a short error
(exit 2, no traceback) naming the file and line where there is one, given before any
simulation starts."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import ROOT, assert_short_error

from cephsim.errors import CephsimError
from cephsim.tools.calibrate.fit import FitOptions

SCEN = ROOT / "scenarios" / "mako-reef-qd1.yaml"
FIX = ROOT / "tests" / "fixtures"
FIO_JSON = FIX / "fio" / "randwrite4k_libaio.json"
FIO_TEXT = FIX / "fio" / "randrw_2jobs_normal.txt"
FIGURES = ROOT / "calibration" / "seed002" / "qperf-figures.yaml"
# a case whose only measurement is one value (line 6); sigma (if any) on line 8
CASE = """\
name: t
scenario: {scen}
measurements:
  - source: x
    values:
      {stat}: {value}
"""


def _case(tmp_path: Path, stat: str = "lat.mean", value: str = "421us", extra: str = "") -> Path:
    p = tmp_path / "case.yaml"
    p.write_text(CASE.format(scen=SCEN, stat=stat, value=value) + extra)
    return p


def _calibrate(run_cli, *args):
    return run_cli("calibrate", *args, "--fit", "scale", "--seeds", "1", "--ios", "200",
                   "--max-evals", "1", "--verify-ios", "200", "-q")


# ---------------------------------------------------------------- case files


@pytest.mark.parametrize("stat,value,words", [
    ("iops", "-5", ["finite number > 0"]),
    ("iops", "0", ["finite number > 0"]),
    ("iops", ".nan", ["finite number > 0"]),
    ("iops", ".inf", ["finite number > 0"]),
    ("iops", "5ms", ["plain number"]),
    ("iops", "true", ["plain number"]),
    ("iops", "1" + "0" * 400, ["finite number > 0"]),  # an int no float holds
    ("lat.mean", "-421us", ["must be > 0"]),
    ("lat.mean", "0us", ["must be > 0"]),
    ("lat.mean", "0", ["must be > 0"]),
    ("lat.mean", ".nan", ["bare number"]),
    ("lat.mean", "1e300s", ["too large for a duration"]),
    ("clat.p150", "400us", ["between 0 and 100"]),
    ("clat.p0", "400us", ["between 0 and 100"]),
    ("clat.p100", "400us", ["between 0 and 100"]),
])
def test_measured_value_must_be_positive_and_finite(tmp_path, run_cli, stat, value, words):
    case = _case(tmp_path, stat, value)
    r = _calibrate(run_cli, case)
    assert_short_error(r, f"{case}:6:", f"measurements.0.values.{stat}", *words)


@pytest.mark.parametrize("sigma", ["0", "-0.5", "abc", ".nan", ".inf", "true", "[1]"])
def test_sigma_must_be_a_positive_number(tmp_path, run_cli, sigma):
    case = _case(tmp_path, extra=f"sigma:\n  lat.mean: {sigma}\n")
    r = _calibrate(run_cli, case)
    assert_short_error(r, f"{case}:8:", "sigma.lat.mean", "finite number > 0")


def test_sigma_percentile_out_of_range_and_unused(tmp_path, run_cli):
    r = _calibrate(run_cli, _case(tmp_path, extra="sigma: {clat.p150: 0.3}\n"))
    assert_short_error(r, "case.yaml:7:", "between 0 and 100")
    r = _calibrate(run_cli, _case(tmp_path, extra="sigma: {clat.p99: 0.3}\n"))
    assert_short_error(r, "case.yaml:7:", "sigma.clat.p99", "no measurement gives clat.p99")


@pytest.mark.parametrize("value,words", [
    ("5", ["set:", "dotted.path=value"]),
    ("ceph.release=quincy", ["set:", "a list"]),
    ("[5]", ["set.0", "dotted.path=value"]),
    ("[ceph.release]", ["set.0", "dotted.path=value"]),
])
def test_set_must_be_a_list_of_overrides(tmp_path, run_cli, value, words):
    r = _calibrate(run_cli, _case(tmp_path, extra=f"set: {value}\n"))
    assert_short_error(r, "case.yaml:7:", *words)


def test_unknown_key_in_a_measurement(tmp_path, run_cli):
    case = tmp_path / "case.yaml"
    case.write_text(f"scenario: {SCEN}\nmeasurements:\n  - source: x\n    values: {{iops: 100}}\n"
                    "    foo: 1\n")
    r = _calibrate(run_cli, case)
    assert_short_error(r, f"{case}:5:", "measurements.0.foo", "unknown key")


def test_unknown_key_in_a_reference(tmp_path, run_cli):
    ref = FIX / "ping" / "iputils_loopback_c5.txt"
    r = _calibrate(run_cli, _case(tmp_path, extra=f"reference:\n  - {{file: {ref}, source: x, "
                                                   "nots: y}\n"))
    assert_short_error(r, "case.yaml:8:", "reference.0.nots", "unknown key", "'note'")


def test_values_and_file_in_one_measurement(tmp_path, run_cli):
    case = tmp_path / "case.yaml"
    case.write_text(f"scenario: {SCEN}\nmeasurements:\n  - source: x\n    file: {FIO_TEXT}\n"
                    "    stats: [lat.mean]\n    values: {lat.mean: 5us}\n")
    r = _calibrate(run_cli, case)
    assert_short_error(r, f"{case}:3:", "either a file or values, not both")


@pytest.mark.parametrize("job,words", [("abc", ["job is the number"]), ("1.5", ["job is the number"]),
                                       ("true", ["job is the number"]), ("-1", ["does not exist"])])
def test_bad_job_number(tmp_path, run_cli, job, words):
    case = tmp_path / "case.yaml"
    case.write_text(f"scenario: {SCEN}\nmeasurements:\n  - source: x\n    file: {FIO_TEXT}\n"
                    f"    stats: [lat.mean]\n    job: {job}\n")
    r = _calibrate(run_cli, case)
    assert_short_error(r, f"{case}:6:", "measurements.0.job", *words)


def test_stat_from_a_file_out_of_range(tmp_path, run_cli):
    case = tmp_path / "case.yaml"
    case.write_text(f"scenario: {SCEN}\nmeasurements:\n  - source: x\n    file: {FIO_TEXT}\n"
                    "    stats: [lat.mean, clat.p150]\n")
    r = _calibrate(run_cli, case)
    assert_short_error(r, f"{case}:5:", "measurements.0.stats.1", "between 0 and 100")


def test_case_yaml_syntax_error_has_a_line(tmp_path, run_cli):
    case = tmp_path / "case.yaml"
    case.write_text(f"scenario: {SCEN}\nmeasurements:\n  - source: x\n    values: {{iops: 1\n")
    r = _calibrate(run_cli, case)
    assert_short_error(r, "YAML syntax error")
    assert re.search(re.escape(str(case)) + r":\d+:", r.output), r.output


def test_case_with_duplicate_keys(tmp_path, run_cli):
    r = _calibrate(run_cli, _case(tmp_path, extra="name: again\n"))
    assert_short_error(r, "case.yaml")


@pytest.mark.parametrize("value", ["0", "-5"])
def test_verify_ios_below_one(tmp_path, run_cli, value):
    r = run_cli("calibrate", _case(tmp_path), "--verify-ios", value)
    assert_short_error(r, "--verify-ios")


def test_fit_options_checked_in_the_library():
    with pytest.raises(CephsimError, match="--verify-ios"):
        FitOptions(verify_ios=0)
    with pytest.raises(CephsimError, match="--seeds"):
        FitOptions(seeds=0)


# ---------------------------------------------------------------- --network


def _figures(tmp_path: Path, point: str, top: str = "") -> Path:
    """Two valid points (lines 2-3) and one under test on line 4."""
    p = tmp_path / "fig.yaml"
    p.write_text("points:\n"
                 "  - {group: g, size: 1B, one_way: 11711ns, source: s}\n"
                 "  - {group: g, size: 9000B, one_way: 38444ns, source: s}\n"
                 f"  - {{group: g, source: s, {point}}}\n" + top)
    return p


@pytest.mark.parametrize("point,field,words", [
    ("size: -1B, one_way: 20us", "size", ["at least 1 byte"]),
    ("size: 0B, one_way: 20us", "size", ["at least 1 byte"]),
    ("size: 1ms, one_way: 20us", "size", ["unknown size unit"]),
    ("size: 4KiB, one_way: -5us", "one_way", ["> 0"]),
    ("size: 4KiB, one_way: 0us", "one_way", ["> 0"]),
    ("size: 4KiB, one_way: 72GiB", "one_way", ["unknown time unit"]),
    ("size: 4KiB, one_way: .nan", "one_way", []),
    ("size: 4KiB, one_way: 1e300s", "one_way", []),
    ("size: 4KiB, one_way: 20us, foo: 1", "foo", ["unknown key"]),
])
def test_network_figures_bad_point(tmp_path, run_cli, point, field, words):
    fig = _figures(tmp_path, point)
    r = run_cli("calibrate", "--network", fig)
    assert_short_error(r, f"{fig}:4:", f"points.2.{field}", *words)


def test_network_figures_unknown_top_key_and_missing_field(tmp_path, run_cli):
    fig = _figures(tmp_path, "size: 4KiB, one_way: 20us", top="foo: 1\n")
    assert_short_error(run_cli("calibrate", "--network", fig), f"{fig}:5:", "foo", "unknown key")
    fig = _figures(tmp_path, "size: 4KiB")
    assert_short_error(run_cli("calibrate", "--network", fig), f"{fig}:4:", "missing one_way")


@pytest.mark.parametrize("args,flag", [
    (["--links", "0"], "--links"), (["--links", "-3"], "--links"),
    (["--kernel-us", "nan"], "--kernel-us"), (["--kernel-us", "-1000"], "--kernel-us"),
    (["--kernel-us", "inf"], "--kernel-us"), (["--switch-us", "-1"], "--switch-us"),
    (["--speed", "0Gbit/s"], "--speed"), (["--speed", "-10Gbit/s"], "--speed"),
    (["--speed", "25GHz"], "--speed"), (["--speed", "fast"], "--speed"),
])
def test_network_options(run_cli, args, flag):
    assert_short_error(run_cli("calibrate", "--network", FIGURES, *args), flag)


def test_network_options_need_network(tmp_path, run_cli):
    r = run_cli("calibrate", _case(tmp_path), "--links", "3")
    assert_short_error(r, "--links only applies with --network")


@pytest.mark.parametrize(("mode", "args"), [("--network", ["--seeds", "3"]),
                                            ("--network", ["--fit", "scale"]),
                                            ("--flush-sweeps", ["--max-evals", "5"])])
def test_fit_options_are_refused_by_the_other_modes(run_cli, mode, args):
    """Silently ignoring them would let a user believe they took effect."""
    target = FIGURES if mode == "--network" else ROOT / "calibration" / "consumer-flush" / "sweeps.yaml"
    assert_short_error(run_cli("calibrate", mode, target, *args), args[0], mode)


def test_network_report_goes_to_output(tmp_path, run_cli):
    out = tmp_path / "net.txt"
    r = run_cli("calibrate", "--network", FIGURES, "-o", out)
    assert r.exit_code == 0, r.output
    assert "one-way latency" in out.read_text() and "one-way latency" not in r.stdout


@pytest.mark.parametrize("modes", [["--network", "--flush-sweeps"],
                                   ["--network", "--cross-validate"],
                                   ["--flush-sweeps", "--cross-validate"]])
def test_modes_are_mutually_exclusive(run_cli, modes):
    assert_short_error(run_cli("calibrate", *modes, FIGURES), "mutually exclusive", *modes)


def test_network_qperf_negative_latency(tmp_path, run_cli):
    q = tmp_path / "q.txt"
    q.write_text((FIX / "qperf" / "seed002_tcp_lat_vv_uu.txt").read_text()
                 .replace("latency = ", "latency = -", 1))
    r = run_cli("calibrate", "--network", q)
    assert_short_error(r, f"{q}:", "latency", "> 0")


def test_network_ping_summaries_without_a_payload_size_are_refused(run_cli):
    """Pasted summary lines (seed 001) give round trips but no size: nothing to place."""
    p = FIX / "ping" / "seed001_tuned_rtt_summaries.txt"
    r = run_cli("calibrate", "--network", p)
    assert_short_error(r, f"{p}:4:", "payload size is unknown", "PING host (address)")


@pytest.mark.parametrize("text,line,words", [
    ("PING 10.0.0.2 (10.0.0.2) 56(84) bytes of data.\n\n--- 10.0.0.2 ping statistics ---\n"
     "5 packets transmitted, 0 received, 100% packet loss, time 4081ms\n", 1,
     ["no round trip", "5 sent, 0 received"]),
    ("PING 10.0.0.2 (10.0.0.2) 8(36) bytes of data.\n16 bytes from 10.0.0.2: icmp_seq=1 ttl=64\n"
     "\n--- 10.0.0.2 ping statistics ---\n1 packets transmitted, 1 received, 0% packet loss\n",
     1, ["16 bytes or more", "-s 8"]),
])
def test_network_ping_without_round_trips_is_refused(tmp_path, run_cli, text, line, words):
    p = tmp_path / "ping.txt"
    p.write_text(text)
    assert_short_error(run_cli("calibrate", "--network", p), f"{p}:{line}:", *words)


def test_network_ping_latency_falling_with_size_is_refused(tmp_path, run_cli):
    small, big = tmp_path / "s56.txt", tmp_path / "s8000.txt"
    small.write_text("PING 10.0.0.2 (10.0.0.2) 56(84) bytes of data.\n"
                     "rtt min/avg/max/mdev = 0.200/0.300/0.400/0.050 ms\n")
    big.write_text("PING 10.0.0.2 (10.0.0.2) 8000(8028) bytes of data.\n"
                   "rtt min/avg/max/mdev = 0.100/0.150/0.200/0.050 ms\n")
    assert_short_error(run_cli("calibrate", "--network", small, big), f"{big}:1:",
                       "falls as the message grows")


# ---------------------------------------------------------------- --flush-sweeps


SWEEP = """\
source: "somewhere"
drives:
  intel-545: {{iops: {iops}}}
"""


@pytest.mark.parametrize("iops,words", [
    ("{1: 1500}", ["2 or more jobs"]),
    ("{1: 1500, 8: .inf}", ["total IOPS"]),
    ("{true: 1500, 8: 6460}", ["jobs (integer >= 1)"]),
])
def test_flush_sweep_bad_points(tmp_path, run_cli, iops, words):
    f = tmp_path / "sweeps.yaml"
    f.write_text(SWEEP.format(iops=iops))
    r = run_cli("calibrate", "--flush-sweeps", f)
    assert_short_error(r, f"{f}:3:", "drives.intel-545", *words)
    assert "nan" not in r.stdout


# ---------------------------------------------------------------- readers


def _fio_json(tmp_path: Path, edit) -> tuple[Path, str]:
    doc = json.loads(FIO_JSON.read_text())
    edit(doc["jobs"][0]["write"])
    p = tmp_path / "fio.json"
    text = json.dumps(doc, indent=2)
    p.write_text(text + "\n")
    return p, text


def _line_of(text: str, needle: str) -> int:
    return text[: text.index(needle)].count("\n") + 1


@pytest.mark.parametrize("field,value,words", [
    ("iops", "fast", ["iops", "expected a number"]),
    ("iops", None, ["iops is null", "expected a number"]),
    ("iops", -5, ["cannot be negative"]),
    ("bw", "x", ["expected a number"]),
])
def test_fio_json_bad_direction_field(tmp_path, run_cli, field, value, words):
    def edit(w):
        w[field] = value
    p, text = _fio_json(tmp_path, edit)
    r = run_cli("inspect", p)
    line = _line_of(text, f'"{field}": {json.dumps(value)}')
    assert_short_error(r, f"{p}:{line}:", f"randwrite4k.write.{field}", *words)


@pytest.mark.parametrize("key", ["mean", "min", "max", "stddev"])
def test_fio_json_negative_latency(tmp_path, run_cli, key):
    def edit(w):
        w["clat_ns"][key] = -5
    p, text = _fio_json(tmp_path, edit)
    r = run_cli("inspect", p)
    line = _line_of(text, f'"{key}": -5')
    assert_short_error(r, f"{p}:{line}:", f"randwrite4k.write.clat_ns.{key}", "cannot be negative")


def test_fio_json_negative_percentile(tmp_path, run_cli):
    def edit(w):
        w["clat_ns"]["percentile"]["99.000000"] = -1
    p, _ = _fio_json(tmp_path, edit)
    assert_short_error(run_cli("inspect", p), "percentile 99.000000", "cannot be negative")


def test_fio_json_negative_clat_refused_by_a_case(tmp_path, run_cli):
    def edit(w):
        w["clat_ns"]["mean"] = -5
    p, _ = _fio_json(tmp_path, edit)
    case = tmp_path / "case.yaml"
    case.write_text(f"scenario: {SCEN}\nmeasurements:\n  - {{source: x, file: {p}, "
                    "stats: [clat.mean]}\n")
    assert_short_error(_calibrate(run_cli, case), "cannot be negative")


@pytest.mark.parametrize("glue", ["{", " {", "garbage"])
def test_fio_json_glued_document(tmp_path, run_cli, glue):
    text = FIO_JSON.read_text().rstrip()
    p = tmp_path / "two.json"
    p.write_text(text + glue + text[1:] + "\n")
    end = text.count("\n") + 1
    r = run_cli("inspect", p)
    assert_short_error(r, f"{p}:{end}:", f"extra data after the JSON document at line {end}")


def test_fio_json_documents_on_their_own_lines_still_read(tmp_path, run_cli):
    text = FIO_JSON.read_text().rstrip()
    p = tmp_path / "two.json"
    p.write_text(text + "\n" + text + "\n")
    r = run_cli("inspect", p)
    assert r.exit_code == 0, r.output


def test_fio_text_negative_values(tmp_path, run_cli):
    p = tmp_path / "fio.txt"
    p.write_text(FIO_TEXT.read_text().replace("avg=138.95", "avg=-138.95"))
    assert_short_error(run_cli("inspect", p), f"{p}:9:", "clat avg -138.95", "cannot be negative")
    p.write_text(FIO_TEXT.read_text().replace("IOPS=19.0k", "IOPS=-19.0k"))
    assert_short_error(run_cli("inspect", p), f"{p}:7:", "IOPS", "cannot be negative")


def test_qperf_negative_latency(tmp_path, run_cli):
    src = (FIX / "qperf" / "seed002_tcp_lat_vv_uu.txt").read_text()
    p = tmp_path / "q.txt"
    p.write_text(src.replace("latency = ", "latency = -", 1))
    line = _line_of(src, "latency = ")
    assert_short_error(run_cli("inspect", p), f"{p}:{line}:", "latency", "> 0")


def test_ping_negative_rtt(tmp_path, run_cli):
    src = (FIX / "ping" / "iputils_loopback_c5.txt").read_text()
    m = re.search(r"= (\d)", src)
    assert m
    p = tmp_path / "p.txt"
    p.write_text(src[: m.start(1)] + "-" + src[m.start(1):])
    line = src[: m.start()].count("\n") + 1
    assert_short_error(run_cli("inspect", p), f"{p}:{line}:", "cannot be negative")


def test_compare_fio_direction_must_be_read_or_write(run_cli):
    r = run_cli("compare-fio", FIO_JSON, FIO_JSON, "--direction", "sideways")
    assert_short_error(r, "--direction", "must be read or write")
