"""More bad input found by fuzzing: each is a short error (exit 2, no traceback) naming the
file and line, the option or the --set it came from."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import BASE, MON, ROOT, assert_short_error

OSIRIS = ROOT / "scenarios" / "osiris-mon-rtt-1600ms.yaml"


def _write(tmp_path: Path, text: str, name: str = "s.yaml") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


# ---------------------------------------------------------------- calibrate --flush-sweeps


def test_flush_sweep_with_an_empty_iops_mapping(tmp_path, run_cli):
    f = _write(tmp_path, 'source: "x"\ndrives:\n  intel-545: {iops: {}}\n', "sweeps.yaml")
    r = run_cli("calibrate", "--flush-sweeps", f)
    assert_short_error(r, f"{f}:3:", "drives.intel-545.iops", "iops is empty")
    assert r.stdout == ""


# ---------------------------------------------------------------- calibrate --fit


@pytest.mark.parametrize("fit", ["scale@", "@reef", "@", "scale@ "])
def test_fit_release_with_an_empty_part(run_cli, fit):
    case = ROOT / "calibration" / "cases" / "wido-2019.yaml"
    r = run_cli("calibrate", case, "--fit", fit, "--max-evals", "1", "-q")
    assert_short_error(r, "--fit", "NAME@RELEASE with both parts")


# ---------------------------------------------------------------- mon-threshold --seeds


@pytest.mark.parametrize("seeds", ["1,,2", "1,", ",", ""])
def test_mon_threshold_seeds_with_an_empty_item(run_cli, seeds):
    r = run_cli("mon-threshold", OSIRIS, "--seeds", seeds)
    assert_short_error(r, "--seeds", "empty item")


def test_mon_threshold_seeds_lists_still_read():
    from cephsim.cli.monitors import _seeds

    assert _seeds(["1, 2 3", "4"]) == [1, 2, 3, 4]


# ---------------------------------------------------------------- links to oneself


def test_monitor_link_to_itself(tmp_path, run_cli):
    p = _write(tmp_path, MON + "  links:\n    - {from: a, to: a, delay: 5ms}\n")
    line = (MON.count("\n")) + 2
    r = run_cli("validate", p)
    assert_short_error(r, f"{p}:{line}:", "monitors.links.0.to", "to itself")


def test_network_link_to_itself(tmp_path, run_cli):
    p = _write(tmp_path, BASE.replace(
        "run: {ios: 300}", "network: {links: [{from: osd0, to: osd0, delay: 1ms}]}\nrun: {ios: 300}"))
    r = run_cli("validate", p)
    assert_short_error(r, f"{p}:13:", "network.links.0.to", "to itself")


# ---------------------------------------------------------------- fio output with no I/O


FIO_NORMAL = ROOT / "tests" / "fixtures" / "fio" / "randwrite4k_libaio_normal.txt"
FIO_JSON = ROOT / "tests" / "fixtures" / "fio" / "randwrite4k_libaio.json"


def _zeroed_fio_text(tmp_path: Path) -> Path:
    """fio's normal output with every figure of the job 0 (as for a job that did no I/O)."""
    import re

    head, sep, job = FIO_NORMAL.read_text().partition("randwrite4k: (groupid")
    first, _, rest = job.partition("\n")
    p = tmp_path / "fio.txt"
    p.write_text(head + sep + first + "\n" + re.sub(r"\d+(\.\d+)?k?", "0", rest))
    return p


def _zeroed_fio_json(tmp_path: Path) -> Path:
    import json

    def zero(o):
        if isinstance(o, dict):
            return {k: zero(v) for k, v in o.items() if k != "total_ios"}
        if isinstance(o, list):
            return [zero(v) for v in o]
        return 0 if isinstance(o, (int, float)) and not isinstance(o, bool) else o

    p = tmp_path / "fio.json"
    p.write_text(json.dumps(zero(json.loads(FIO_JSON.read_text())), indent=2) + "\n")
    return p


@pytest.mark.parametrize("make", [_zeroed_fio_text, _zeroed_fio_json])
def test_fio_output_with_every_figure_zero_carries_no_measurement(tmp_path, run_cli, make):
    p = make(tmp_path)
    assert_short_error(run_cli("inspect", p), f"{p}:", "carries no measurement")
    case = _write(tmp_path, f"scenario: {ROOT / 'scenarios' / 'mako-reef-qd1.yaml'}\n"
                  f"measurements:\n  - {{source: x, file: {p.name}, stats: [iops]}}\n", "case.yaml")
    r = run_cli("calibrate", case, "--fit", "scale", "--max-evals", "1", "-q")
    assert_short_error(r, f"{p}:", "carries no measurement")


# ---------------------------------------------------------------- calibrate --network


def test_network_fit_latency_falling_with_size(tmp_path, run_cli):
    f = _write(tmp_path, "points:\n"
               "  - {group: g, size: 1B, one_way: 50us, source: a}\n"
               "  - {group: g, size: 9000B, one_way: 20us, source: b}\n", "figures.yaml")
    r = run_cli("calibrate", "--network", f)
    assert_short_error(r, f"{f}:3:", "g: the one-way latency falls as the message grows")
    assert r.stdout == ""


# ---------------------------------------------------------------- calibration cases


def test_case_percentiles_must_not_decrease(tmp_path, run_cli):
    case = _write(tmp_path, f"scenario: {ROOT / 'scenarios' / 'mako-reef-qd1.yaml'}\n"
                  "measurements:\n  - source: x\n    values:\n"
                  "      clat.p50: 400us\n      clat.p99.9: 900us\n      clat.p99: 300us\n",
                  "case.yaml")
    r = run_cli("calibrate", case, "--fit", "scale", "--max-evals", "1", "-q")
    assert_short_error(r, f"{case}:7:", "measurements.0.values.clat.p99:",
                       "clat.p99 (300us) is below clat.p50 (400us)", "cannot decrease")


# ---------------------------------------------------------------- bounds in the field's unit


@pytest.mark.parametrize("field, value, words", [
    ("osd_cpu_period", "10s", "must be at most 1s (got 10s)"),
    ("osd_cpu_period", "0.5ms", "must be at least 1ms (got 500us)"),
])
def test_duration_bound_in_human_units(tmp_path, run_cli, field, value, words):
    p = _write(tmp_path, BASE.replace("    count: 3\n", f"    count: 3\n    {field}: {value}\n", 1))
    r = run_cli("validate", p)
    assert_short_error(r, f"{p}:5:", f"hosts.0.{field}: {words}")
    assert "000000" not in r.output
    r = run_cli("validate", p, "--set", f"hosts.0.{field}=1h")
    assert_short_error(r, f"--set hosts.0.{field}=1h", "must be at most 1s (got 1h)")


def test_size_bound_in_human_units(tmp_path, run_cli):
    p = _write(tmp_path, BASE + "network: {tcp: {rmem_max: 1KiB}}\n")
    assert_short_error(run_cli("validate", p), f"{p}:14:", "network.tcp.rmem_max",
                       "must be at least 64KiB (got 1KiB)")


# ---------------------------------------------------------------- micro: U+00B5 and U+03BC


@pytest.mark.parametrize("micro", ["\u00b5", "\u03bc"])
def test_micro_sign_and_greek_mu_both_read_as_microseconds(tmp_path, run_cli, micro):
    from cephsim.units import parse_duration_ns

    assert parse_duration_ns(f"15{micro}s") == 15_000
    p = _write(tmp_path, BASE.replace("    count: 3\n",
                                      f"    count: 3\n    netem: {{delay: 150{micro}s}}\n", 1))
    r = run_cli("validate", p)
    assert r.exit_code == 0, r.output


def test_other_greek_units_still_refused(tmp_path, run_cli):
    p = _write(tmp_path, BASE.replace("    count: 3\n", "    count: 3\n    netem: {delay: "
            "150\u03bcm}\n", 1))
    assert_short_error(run_cli("validate", p), f"{p}:5:", "unknown time unit")


# ---------------------------------------------------------------- pipes and devices as input


def _within(seconds: float, fn, *args):
    """``fn(*args)`` in a thread: a read that blocks fails the test instead of hanging it."""
    import threading

    out: list = []
    t = threading.Thread(target=lambda: out.append(fn(*args)), daemon=True)
    t.start()
    t.join(seconds)
    assert out, f"still running after {seconds}s (blocked on the input?)"
    return out[0]


@pytest.mark.parametrize("args", [["inspect"], ["validate"], ["run"], ["calibrate"],
                                  ["calibrate", "--network"], ["calibrate", "--flush-sweeps"],
                                  ["mon-threshold"]])
def test_a_fifo_as_input_is_refused_up_front(tmp_path, run_cli, args):
    import os

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    r = _within(60, run_cli, *args, fifo)
    assert_short_error(r, f"{fifo}: is a named pipe (FIFO), expected a regular file")


def test_a_device_as_input_is_refused(run_cli):
    assert_short_error(run_cli("inspect", "/dev/null"),
                       "/dev/null: is a character device, expected a regular file")


# ---------------------------------------------------------------- a warm-up longer than the run


@pytest.mark.parametrize("sets, words", [
    (["run.ramp_time=1h"], "run.ramp_time 1h is longer than the measured run (300 I/Os, 1 in flight"),
    (["run.runtime=10s", "run.ramp_time=20s"], "run.ramp_time 20s is longer than run.runtime 10s"),
])
def test_warm_up_longer_than_the_run_is_warned(tmp_path, run_cli, sets, words):
    p = _write(tmp_path, BASE)
    args = [a for s in sets for a in ("--set", s)]
    r = run_cli("validate", p, *args)
    assert r.exit_code == 0, r.output
    assert f"warning: {words}" in r.stderr, r.stderr


def test_short_warm_up_is_not_warned(tmp_path, run_cli):
    r = run_cli("validate", _write(tmp_path, BASE), "--set", "run.ramp_time=1s")
    assert r.exit_code == 0 and "warning" not in r.stderr, r.output


def test_run_prints_the_warm_up_warning_before_simulating(tmp_path, run_cli):
    """The run itself (kept short: 10ms measured after a 20ms warm-up)."""
    r = run_cli("run", _write(tmp_path, BASE), "-q", "--set", "run.runtime=10ms",
                "--set", "run.ramp_time=20ms", "--set", "run.ios=null")
    assert r.exit_code == 0, r.output
    assert "warning: run.ramp_time 20ms is longer than run.runtime 10ms" in r.stderr


# ---------------------------------------------------------------- an inline CPU too slow to run


def _inline_cpu_scenario(tmp_path: Path, **change) -> Path:
    import json

    from ruamel.yaml import YAML

    cpu = YAML(typ="safe").load((ROOT / "cephsim" / "catalog" / "data" / "cpus.yaml")
                                .read_text())["epyc-7313p"]
    cpu.update(change)
    return _write(tmp_path, BASE.replace("    cpu: "
            "epyc-7313p\n", f"    cpu: {json.dumps(cpu)}\n", 1))


def test_inline_cpu_too_slow_for_a_run_is_refused_by_validate(tmp_path, run_cli):
    """per_clock_speed 1e-9 passed validate, then the run gave up after 1h of simulated time
    without an I/O and called it a model fault."""
    p = _inline_cpu_scenario(tmp_path, per_clock_speed=1e-9)
    for cmd in ("validate", "run"):
        r = run_cli(cmd, p)
        assert_short_error(r, f"{p}:5:", "hosts.0.cpu.per_clock_speed: per_clock_speed 1e-09",
                           "over the 15min a run allows")
        assert "please report" not in r.output


def test_slow_but_runnable_inline_cpu_still_validates(tmp_path, run_cli):
    r = run_cli("validate", _inline_cpu_scenario(tmp_path, per_clock_speed=0.05))
    assert r.exit_code == 0, r.output


# ---------------------------------------------------------------- errors at the right place


def test_inline_cpu_unknown_cstates_points_at_the_cpu(tmp_path, run_cli):
    """Was blamed on hosts.0.cstates (a key the file does not have) at the group's line."""
    p = _inline_cpu_scenario(tmp_path, cstates="nosuch")
    assert_short_error(run_cli("validate", p), f"{p}:5:", "hosts.0.cpu.cstates: unknown cstate "
            "'nosuch'")


def test_group_cstates_override_still_named_as_such(tmp_path, run_cli):
    r = run_cli("validate", _write(tmp_path, BASE), "--set", "hosts.osd.cstates=zz")
    assert_short_error(r, "--set hosts.osd.cstates=zz: hosts.0.cstates: unknown cstate 'zz'")


@pytest.mark.parametrize("setting, words", [
    ("monitors.duration=1s", "--set monitors.duration=1s: monitors.duration: the clients start "
                             "after warmup (1min), which must be shorter than duration (1s)"),
    ("monitors.warmup=10min", "--set monitors.warmup=10min: monitors.warmup: the clients start "
                              "after warmup (10min)"),
    ("network.topology.kind=leaf-spine", "--set network.topology.kind=leaf-spine: "
            "network.topology.spine: leaf-spine topology needs a spine model"),
    ("ceph.profile=nosuch.yaml", "--set ceph.profile=nosuch.yaml: ceph.profile: no such profile "
                                 "file"),
])
def test_set_errors_name_the_set(tmp_path, run_cli, setting, words):
    """These were reported at the file (a line of the monitors block, or no line at all)."""
    p = _write(tmp_path, MON)
    r = run_cli("validate", p, "--set", setting)
    assert_short_error(r, words)
    assert f"{p}:" not in r.output


def test_monitor_duration_below_default_warmup_points_at_duration(tmp_path, run_cli):
    p = _write(tmp_path, MON.replace("duration: 5min", "duration: 30s"))
    line = MON.count("\n")
    assert_short_error(run_cli("validate", p), f"{p}:{line}:3: monitors.duration: the clients start")
    p.write_text(MON.replace("duration: 5min", "duration: 30s") + "  warmup: 1min\n")
    assert_short_error(run_cli("validate", p), f"{p}:{line + 1}:3: monitors.warmup: the clients start")


def test_missing_profile_points_at_the_scenario_line(tmp_path, run_cli):
    p = _write(tmp_path, BASE.replace("pool: {size: 3}\n", "pool: {size: 3}\nceph: {profile: "
            "nosuch.yaml}\n"))
    assert_short_error(run_cli("validate", p), f"{p}:12:", "ceph.profile: no such profile file")


@pytest.mark.parametrize(("sets", "words"), [
    (["workload.ioengine=psync"], ["ioengine", "kernel clients", "engine rbd"]),
    (["workload.engine=krbd", "workload.ioengine=psync", "workload.iodepth=8"],
     ["iodepth 8 with ioengine psync", "set iodepth: 1"]),
    (["workload.engine=krbd", "workload.ioengine=posixaio"], ["ioengine", "libaio", "psync"]),
])
def test_ioengine_that_does_not_fit_the_client(run_cli, sets, words):
    args = [a for s in sets for a in ("--set", s)]
    r = run_cli("validate", str(ROOT / "scenarios" / "quickstart.yaml"), *args)
    assert_short_error(r, *words)


def test_a_run_too_big_for_memory_is_refused_before_it_starts(run_cli):
    """iodepth 4096 x numjobs 1024 (4M I/Os in flight) would need tens of GiB: validate and
    run refuse it with the estimate and what to lower, instead of dying out of memory."""
    qs = str(ROOT / "scenarios" / "quickstart.yaml")
    big = ["--set", "workload.iodepth=4096", "--set", "workload.numjobs=1024", "--set",
            "run.ios=200"]
    for cmd in ("validate", "run"):
        r = run_cli(cmd, qs, *big)
        assert_short_error(r, "--set workload.iodepth=4096", "4,194,304 I/Os in flight",
                           "GiB of memory", "run.max_memory 8GiB")
    # the limit is the user's to move
    r = run_cli("validate", qs, *big, "--set", "run.max_memory=64GiB")
    assert r.exit_code == 0, r.output


def test_a_run_whose_records_would_not_fit_names_the_records(run_cli):
    """A billion I/Os on the quickstart: the per-op records weigh ~186 GiB, the cluster
    ~0.1: the refusal names run.ios and run.records, not the cluster's size; without the
    records the same run fits."""
    qs = str(ROOT / "scenarios" / "quickstart.yaml")
    r = run_cli("validate", qs, "--set", "run.ios=1000000000")
    assert_short_error(r, "run.ios", "1,000,000,500 I/Os with their per-op records",
                       "186.3 GiB of memory", "set run.records=false", "run.max_memory 8GiB")
    assert "hosts or OSDs" not in r.output
    r = run_cli("validate", qs, "--set", "run.ios=1000000000", "--set", "run.records=false")
    assert r.exit_code == 0, r.output


def test_the_memory_estimate_covers_a_measured_run():
    """The estimate is not below what a 16,384-in-flight run measured (205 MB peak RSS)."""
    from cephsim.model.resolve import memory_estimate
    from cephsim.scenario.load import load_scenario

    sc = load_scenario(ROOT / "scenarios" / "quickstart.yaml",
                       ["workload.iodepth=64", "workload.numjobs=256", "run.ios=32768",
                        "run.ramp_ios=0"])
    assert memory_estimate(sc) >= 205 * 1000 * 1000


def _alias_bomb(levels: int, duplicate: bool) -> str:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    for i in range(1, levels + 1):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]")
    lines.append(f"x: *a{levels}")
    if duplicate:
        lines.append("x: 1")  # ruamel's duplicate-key message quoted the whole expansion
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("duplicate", [True, False])
def test_an_alias_bomb_is_refused_at_once(tmp_path, run_cli, duplicate):
    import time

    p = tmp_path / "bomb.yaml"
    p.write_text(_alias_bomb(9, duplicate))
    t0 = time.monotonic()
    r = run_cli("validate", str(p))
    assert time.monotonic() - t0 < 2.0
    assert_short_error(r, f"{p}:", "aliases expand to more than")


def test_an_oversized_or_too_deep_file_is_refused(tmp_path, run_cli):
    big = tmp_path / "big.yaml"
    big.write_text("name: t\n# " + "x" * (5 * 1024 * 1024) + "\n")
    assert_short_error(run_cli("validate", str(big)), f"{big}:", "at most 4MiB is read")
    deep = tmp_path / "deep.yaml"
    deep.write_text("name: t\nhosts: " + "[" * 200 + "]" * 200 + "\n")
    assert_short_error(run_cli("validate", str(deep)), f"{deep}:2:", "nested more than 64 levels")


def test_anchors_that_share_a_host_group_still_load():
    """The bound counts expanded values, so ordinary anchors (a host group's cpu and nic
    shared by another group) are untouched: every shipped scenario still loads."""
    from cephsim.scenario.load import load_scenario

    for f in sorted((ROOT / "scenarios").glob("*.yaml")):
        load_scenario(f, [])


@pytest.mark.parametrize(("content", "where", "words"), [
    (b"name: t\nnull: x\n", ":2:1:", "a key must be text: 'null' is read as null"),
    (b"name: t\nhosts:\n  - 1: x\n", ":3:5:", "'1' is read as a number"),
    (b"name: t\nfoo: caf\xe9\n", ":2:9:", "not UTF-8 text (byte 0xe9)"),
    (b"name: t\x00\n", ":1:8:", "a NUL byte"),
    (b"name: t\nhosts: [3]\n", ":2:9:", "expected a section of fields (key: value), got 3"),
])
def test_a_file_error_is_blamed_on_its_line_not_on_a_bystander_set(tmp_path, run_cli, content, where, words):
    """Each problem of the file itself is located at its line and column, even with a
    --set on the command line (a non-string key used to be blamed on an unrelated --set)."""
    p = tmp_path / "s.yaml"
    p.write_bytes(content)
    r = run_cli("validate", str(p), "--set", "run.ios=200")
    assert_short_error(r, f"{p}{where}", words)
    assert "--set run.ios" not in r.output


def test_override_messages_say_what_is_there(run_cli):
    qs = str(ROOT / "scenarios" / "quickstart.yaml")
    assert_short_error(run_cli("validate", qs, "--set", "hosts.0=3"), "--set hosts.0=3",
                       "expected a section of fields (key: value), got 3")
    assert_short_error(run_cli("run", qs, "--set", "run.ios=100", "-o", ""),
                       "an empty name (or '.') is the current directory")


def test_the_fuzz_script_finds_nothing_unclean_in_a_short_run(tmp_path):
    """tools/fuzz.py (the robustness benchmark; docs/robustness.md has its full run) on a
    few dozen mutations of each kind: every answer is exit 0 or a located exit 2."""
    import subprocess
    import sys

    report = tmp_path / "r.md"
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "fuzz.py"), "--scenarios", "40",
                        "--files", "40", "--seed", "7", "--report", str(report)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    assert "Cases that are not clean (0)" in report.read_text()


def test_a_yaml_number_too_long_to_be_a_figure_is_located(tmp_path, run_cli):
    p = tmp_path / "s.yaml"
    p.write_text("name: t\npool: {size: " + "9" * 5000 + "}\n")
    assert_short_error(run_cli("validate", str(p)), f"{p}:2:14:", "a number of 5000 digits")


def test_an_error_about_a_default_says_the_file_leaves_it_out(tmp_path, run_cli):
    """classic-osd-single-node without its pool section: the default size 3 cannot be
    placed on its one host.  The file has no line for it; the message says it is the
    default, instead of pointing at nothing."""
    text = (ROOT / "scenarios" / "classic-osd-single-node.yaml").read_text()
    p = tmp_path / "s.yaml"
    p.write_text("\n".join(ln for ln in text.split("\n") if not ln.startswith("pool:")) + "\n")
    assert_short_error(run_cli("validate", str(p)), f"{p}", "pool.size: size 3 is larger",
                       "pool.size is not in the file: its default applies")


# ---------------------------------------------------------------- session 28 fields

QS = ROOT / "scenarios" / "quickstart.yaml"


@pytest.mark.parametrize("override,words", [
    ("ceph.debug={osd: 'x'}", ("ceph.debug", "osd", "not a debug level")),
    ("ceph.debug={osd: '1/5/7'}", ("ceph.debug", "not a debug level")),
    ("ceph.debug={rgw: 1}", ("ceph.debug.rgw",)),
    ("ceph.bluestore_cache_size=1MiB", ("ceph.bluestore_cache_size", "at least 16 MiB")),
    ("workload.kernel_ms_mode=secure", ("kernel_ms_mode", "applies to the kernel clients")),
    ("ceph.ms_mode=tls", ("ceph.ms_mode",)),
    ("hosts.0.vm={halt_poll: -1us}", ("hosts.0.vm.halt_poll",)),
    ("hosts.0.vm={host_max_cstate: C9}", ("hosts.0.vm.host_max_cstate", "not a state")),
    ("workload.metadata_cache=lukewarm", ("workload.metadata_cache",)),
])
def test_new_fields_refuse_bad_values_with_a_located_error(run_cli, override, words):
    r = run_cli("run", QS, "--set", override, "--set", "run.ios=100")
    assert_short_error(r, *words)


def test_a_file_too_large_in_values_is_not_called_an_alias_bomb(monkeypatch):
    """The bound on values names the cause the file has: plain size, or aliases repeating
    an anchor (a bound of 50 here, so that the file stays small and the test quick)."""
    import cephsim.yamlfile as yf
    from cephsim.errors import CephsimError

    monkeypatch.setattr(yf, "MAX_YAML_NODES", 50)
    plain = "".join(f"k{i}: {i}\n" for i in range(40))  # 80 values, no alias
    with pytest.raises(CephsimError) as e:
        yf.check_yaml_bounds(plain, "plain.yaml")
    msg = str(e.value)
    assert "plain.yaml" in msg and "holds more than 50 values" in msg and "alias" not in msg
    aliased = "a: &a [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n" + "".join(f"b{i}: *a\n" for i in range(6))
    with pytest.raises(CephsimError) as e:
        yf.check_yaml_bounds(aliased, "aliased.yaml")
    assert "aliases expand to more than 50 values" in str(e.value)
