"""The ``cephsim`` command line: errors, run output (text and JSON), --set, validate, schema, catalog."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import BASE, ROOT, TEST_SCENARIOS

QS = ROOT / "scenarios" / "quickstart.yaml"
GOLDEN = Path(__file__).parent / "golden" / "run_json_structure.json"

OSDS = "    osds: {count: 1, disk: pm9a3}\n"

# (id, scenario text, --set list, expected line (None: no line), expected field path (None: none),
#  words the message must contain)
BROKEN = [
    ("yaml-syntax", "name: [a\nhosts: []\n", [], 2, None, ["YAML syntax error"]),
    ("unknown-key", BASE.replace("pool: {size: 3}", "pool: {size: 3, sise: 2}"), [], 11,
     "pool.sise", ["unknown key", "did you mean 'size'"]),
    ("wrong-unit", BASE.replace("bs: 4KiB", "bs: 4 parsecs"), [], 12, "workload.bs",
     ["unknown size unit 'parsecs'"]),
    ("bare-duration", BASE.replace(OSDS, OSDS + "    netem: {delay: 15}\n"), [], 8,
     "hosts.0.netem.delay", ["bare number is ambiguous"]),
    ("negative-delay", BASE.replace(OSDS, OSDS + "    netem: {delay: -5ms}\n"), [], 8,
     "hosts.0.netem.delay", ["must not be negative"]),
    ("loss-above-100", BASE.replace(OSDS, OSDS + "    netem: {delay: 1ms, loss: 150%}\n"), [], 8,
     "hosts.0.netem.loss", ["loss must be between 0% and 100%"]),
    ("jitter-without-delay", BASE.replace(OSDS, OSDS + "    netem: {jitter: 1ms}\n"), [], 8,
     "hosts.0.netem.jitter", ["jitter without delay"]),
    ("pool-larger-than-hosts", BASE.replace("size: 3", "size: 4"), [], 11, "pool.size",
     ["size 4 is larger", "number of OSD hosts (3)"]),
    ("unknown-hardware", BASE.replace("    cpu: epyc-7313p\n    nic: connectx5-25g\n    osds",
                                      "    cpu: epyc-9999\n    nic: connectx5-25g\n    osds"),
     [], 5, "hosts.0.cpu", ["unknown cpu 'epyc-9999'", "cephsim catalog cpus"]),
    ("iodepth-0", BASE.replace("bs: 4KiB", "bs: 4KiB, iodepth: 0"), [], 12, "workload.iodepth",
     ["greater than or equal to 1"]),
    ("unknown-client", BASE.replace("bs: 4KiB", "bs: 4KiB, clients: [client7]"), [], 12,
     "workload.clients", ["'client7'"]),
    ("min-size-above-size", BASE.replace("size: 3", "size: 2, min_size: 3"), [], 11, "pool.min_size",
     ["min_size (3) is larger than size (2)"]),
    ("unknown-max-cstate", BASE.replace(OSDS, OSDS + "    tuning: {max_cstate: C9}\n"), [], 8,
     "hosts.0.tuning.max_cstate", ["'C9' is not a state", "POLL, C1"]),
    ("unknown-software-stage", BASE + "ceph: {software: {osd.do_opp: 5}}\n", [], 14, "ceph.software",
     ["unknown software stage", "osd.do_op"]),
    ("empty-file", "", [], None, None, ["the file is empty"]),
    ("not-a-mapping", "- a\n- b\n", [], 1, None, ["must be a YAML mapping"]),
    ("bad-set-path", BASE, ["hosts.osdx.count=2"], None, None,
     ["--set hosts.osdx.count=2", "no item named 'osdx'", "did you mean 'osd'"]),
    ("bad-set-syntax", BASE, ["workload.iodepth"], None, None, ["expected dotted.path=value"]),
    ("bad-set-value", BASE, ["workload.iodepth=0"], None, "workload.iodepth",
     ["--set workload.iodepth=0", "greater than or equal to 1"]),
    ("bad-set-unknown-key", BASE, ["workload.iodept=4"], None, "workload.iodept",
     ["did you mean 'iodepth'"]),
    ("iodepth-bool", BASE.replace("bs: 4KiB", "bs: 4KiB, iodepth: true"), [], 12, "workload.iodepth",
     ["expected a whole number, got true"]),
    ("image-smaller-than-block", BASE.replace("bs: 4KiB", "bs: 4KiB, image_size: 1KiB"), [], 12,
     None, ["smaller than one block"]),
    ("bare-loss", BASE.replace(OSDS, OSDS + "    netem: {delay: 1ms, loss: 1}\n"), [], 8,
     "hosts.0.netem.loss", ["bare number is ambiguous", "'1%'"]),
    ("negative-software-cost", BASE + "ceph: {software: {osd.do_op: -5}}\n", [], 14,
     "ceph.software.osd.do_op", ["greater than or equal to 0"]),
    ("nan-software-cost", BASE + "ceph: {software: {osd.do_op: .nan}}\n", [], 14,
     "ceph.software.osd.do_op", ["finite number"]),
    ("inline-nic-negative-latency",
     BASE.replace("    nic: connectx5-25g\n    osds", "    nic: {name: mine, speed: 25Gbit/s, "
                  "tx_latency: -3us, rx_latency: 5us, sources: {}}\n    osds"), [], 6,
     "hosts.0.nic.tx_latency.value", ["greater than or equal to 0"]),
    ("inline-nic-zero-speed",
     BASE.replace("    nic: connectx5-25g\n    osds", "    nic: {name: mine, speed: 0Gbit/s, "
                  "tx_latency: 3us, rx_latency: 5us, sources: {}}\n    osds"), [], 6,
     "hosts.0.nic.speed", ["below 1 Mbit/s"]),
    ("inline-nic-huge-sigma",
     BASE.replace("    nic: connectx5-25g\n    osds", "    nic: {name: mine, speed: 25Gbit/s, "
                  "tx_latency: 3us, rx_latency: {dist: lognormal, median: 5us, sigma: 1000}, "
                  "sources: {}}\n    osds"), [], 6, "hosts.0.nic.rx_latency.sigma",
     ["less than or equal to 5"]),
    ("too-many-hosts", BASE, ["hosts.osd.count=1000000"], None, "hosts.0.count",
     ["less than or equal to 10000"]),
    ("ramp-time-beyond-a-day", BASE, ["run.ramp_time=1000h"], None, None,
     ["--set run.ramp_time=1000h", "at most 24h"]),
]


@pytest.mark.parametrize(("text", "sets", "line", "path", "words"),
                         [b[1:] for b in BROKEN], ids=[b[0] for b in BROKEN])
@pytest.mark.parametrize("command", ["run", "validate"])
def test_broken_scenario(tmp_path, run_cli, command, text, sets, line, path, words):
    scen = tmp_path / "broken.yaml"
    scen.write_text(text)
    out = tmp_path / "out.json"
    args = [command, scen]
    for s in sets:
        args += ["--set", s]
    if command == "run":
        args += ["-f", "json", "-o", out]
    r = run_cli(*args)
    msg = r.output
    assert r.exit_code == 2, msg
    assert r.exception is None, repr(r.exception)
    assert "Traceback" not in msg
    assert msg.startswith("cephsim: error") or msg.startswith("cephsim: errors")
    assert r.stdout == ""
    if sets:  # a problem in an override is located by the override itself
        assert "--set " in msg
    else:
        assert "broken.yaml" in msg
    if line is not None:
        assert f"broken.yaml:{line}:" in msg, msg
    if path is not None:
        assert f" {path}: " in msg, msg
    for w in words:
        assert w in msg, msg
    assert not out.exists()
    assert not list(tmp_path.glob("out.json*")), "partial output file left behind"


def test_missing_scenario_file(tmp_path, run_cli):
    r = run_cli("run", tmp_path / "nope.yaml")
    assert r.exit_code == 2 and "no such file" in r.output and "Traceback" not in r.output


# ------------------------------------------------------------ run: text and JSON

def test_run_text_output(run_cli):
    r = run_cli("run", QS, "--set", "run.ios=300")
    assert r.exit_code == 0, r.output
    t = r.stdout
    assert "write: IOPS=" in t
    assert "clat percentiles (usec)" in t
    assert "Where the time went" in t
    for label in ("network", "CPU work", "C-state wake-ups", "disk", "queueing",
                  "waiting for subops -> op_commit"):
        assert label in t
    assert "300 I/Os measured" in t


@pytest.fixture(scope="module")
def qs_json():
    from conftest import _invoke

    r = _invoke("run", QS, "--set", "run.ios=300", "--format", "json")
    assert r.exit_code == 0, r.output
    return r.json()


def test_run_json_fio_fields(qs_json):
    job = qs_json["jobs"][0]
    w = job["write"]
    assert w["total_ios"] == 300
    clat = w["clat_ns"]
    p = clat["percentile"]
    assert 100_000 < p["99.000000"] < 5_000_000
    assert p["50.000000"] <= p["99.000000"] <= p["99.900000"]
    for k in ("lat_ns", "slat_ns", "clat_ns"):
        assert {"min", "max", "mean", "stddev"} <= set(w[k]), k
        assert w[k]["min"] <= w[k]["mean"] <= w[k]["max"]
    assert w["lat_ns"]["mean"] == pytest.approx(w["slat_ns"]["mean"] + w["clat_ns"]["mean"], rel=1e-9)
    assert w["iops"] > 0 and w["bw"] > 0
    assert w["bw"] == pytest.approx(w["iops"] * 4, rel=0.01)  # KiB/s at 4 KiB per I/O
    assert job["read"]["total_ios"] == 0


def test_run_json_cephsim_section(qs_json):
    c = qs_json["cephsim"]
    assert c["version"]
    assert c["seed"] == 1
    assert c["scenario"]["name"] == "quickstart"
    assert c["resolved"]["ceph"]["release"] == "reef"
    b = c["breakdown"]["write"]
    assert set(b["critical_path_us"]) == {"network", "cpu", "wake", "disk", "queue"}
    assert sum(b["critical_path_us"].values()) == pytest.approx(b["mean_latency_us"], abs=0.01)
    # the breakdown's mean latency is fio's mean total latency
    assert b["mean_latency_us"] == pytest.approx(qs_json["jobs"][0]["write"]["lat_ns"]["mean"] / 1e3,
                                                 abs=0.001)


def test_run_writes_output_file(tmp_path, run_cli):
    out = tmp_path / "r.json"
    r = run_cli("run", QS, "--set", "run.ios=200", "-f", "json", "-o", out)
    assert r.exit_code == 0 and r.stdout == ""
    assert json.loads(out.read_text())["jobs"][0]["write"]["total_ios"] == 200


def test_seed_option(run_cli):
    a = run_cli("run", QS, "--set", "run.ios=200", "-f", "json", "--seed", "42").json()
    assert a["cephsim"]["seed"] == 42
    # the embedded scenario reruns this run (it said the file's run.seed)
    assert a["cephsim"]["scenario"]["run"]["seed"] == 42
    b = run_cli("run", QS, "--set", "run.ios=200", "-f", "json", "--set", "run.seed=42").json()
    assert b["jobs"] == a["jobs"]


def test_netem_jitter_runs(run_cli):
    """A netem delay with jitter (the usual `tc ... netem delay 1ms 100us`) must simulate."""
    r = run_cli("run", QS, "--set", "run.ios=200", "--set", "hosts.osd.netem.delay=1ms",
                "--set", "hosts.osd.netem.jitter=100us", "-f", "json")
    assert r.exit_code == 0, r.output[-2000:]
    assert r.json()["jobs"][0]["write"]["lat_ns"]["mean"] > 2e6


# ------------------------------------------------------------ --set has its effect

def _run_json(run_cli, *sets):
    args = ["run", QS, "-f", "json"]
    for s in ("run.ios=300",) + sets:
        args += ["--set", s]
    r = run_cli(*args)
    assert r.exit_code == 0, r.output
    return r.json()


def test_set_iodepth_numjobs_rw_bs(run_cli):
    base = _run_json(run_cli)
    j = _run_json(run_cli, "workload.iodepth=4")
    assert j["jobs"][0]["job options"]["iodepth"] == "4"
    assert j["jobs"][0]["write"]["iops"] > 1.5 * base["jobs"][0]["write"]["iops"]
    j = _run_json(run_cli, "workload.numjobs=2")
    assert j["jobs"][0]["job options"]["numjobs"] == "2"
    assert j["cephsim"]["scenario"]["workload"]["numjobs"] == 2
    assert j["jobs"][0]["write"]["iops"] > 1.5 * base["jobs"][0]["write"]["iops"]
    j = _run_json(run_cli, "workload.rw=randread")
    assert j["jobs"][0]["read"]["total_ios"] == 300 and j["jobs"][0]["write"]["total_ios"] == 0
    j = _run_json(run_cli, "workload.bs=64KiB")
    assert j["jobs"][0]["write"]["bw"] == pytest.approx(j["jobs"][0]["write"]["iops"] * 64, rel=0.01)
    assert j["jobs"][0]["write"]["lat_ns"]["mean"] > base["jobs"][0]["write"]["lat_ns"]["mean"]


def test_set_pool_size_seed_ios_runtime(run_cli):
    base = _run_json(run_cli)
    j = _run_json(run_cli, "pool.size=1")
    assert j["cephsim"]["scenario"]["pool"]["size"] == 1
    assert j["jobs"][0]["write"]["lat_ns"]["mean"] < base["jobs"][0]["write"]["lat_ns"]["mean"]
    # one copy: no replica replies to wait for, so no such op-tracker stage (and none negative)
    stages = j["cephsim"]["breakdown"]["write"]["op_tracker_us"]
    assert not any("sub_op_commit_rec" in k for k in stages) and min(stages.values()) >= 0
    assert any("sub_op_commit_rec" in k for k in base["cephsim"]["breakdown"]["write"][
            "op_tracker_us"])
    j = _run_json(run_cli, "run.seed=99")
    assert j["cephsim"]["seed"] == 99
    assert j["jobs"][0]["write"]["lat_ns"] != base["jobs"][0]["write"]["lat_ns"]
    j = _run_json(run_cli, "run.ios=123")
    assert j["jobs"][0]["write"]["total_ios"] == 123
    # runtime alone (ios null): simulated time after ramp bounds the measured window
    j = _run_json(run_cli, "run.ios=null", "run.runtime=50ms")
    w = j["jobs"][0]["write"]
    mean_ns = w["lat_ns"]["mean"]
    assert w["runtime"] <= 50
    assert abs(w["total_ios"] - 50e6 / mean_ns) <= 3
    # both: whichever comes first ends the run, as fio's runtime with a size
    w = _run_json(run_cli, "run.ios=100000", "run.runtime=20ms")["jobs"][0]["write"]
    assert w["runtime"] <= 20 and w["total_ios"] < 100
    w = _run_json(run_cli, "run.ios=40", "run.runtime=10s")["jobs"][0]["write"]
    assert w["total_ios"] == 40


# ------------------------------------------------------------ other commands

def test_validate_ok(run_cli):
    r = run_cli("validate", QS)
    assert r.exit_code == 0
    assert "ok (4 hosts, 3 OSDs, pool size 3, reef, direct writes)" in r.stdout


def test_validate_with_set(run_cli):
    r = run_cli("validate", QS, "--set", "pool.size=2")
    assert r.exit_code == 0 and "pool size 2" in r.stdout


def test_validate_names_an_ec_pools_k_and_m(run_cli):
    """An erasure-coded pool's size is k+m: validate says both, not a bare 'pool size 3'."""
    r = run_cli("validate", QS, "--set", "pool={type: erasure, k: 2, m: 1}",
                "--set", "run.ios=100")
    assert r.exit_code == 0, r.output
    assert "erasure-coded pool k=2 m=1 (3 chunks)" in r.stdout and "pool size" not in r.stdout


def test_schema_is_json_schema(run_cli):
    r = run_cli("schema")
    assert r.exit_code == 0
    s = json.loads(r.stdout)
    assert "$schema" in s
    assert {"hosts", "network", "pool", "ceph", "workload", "run"} <= set(s["properties"])
    assert "hosts" in s.get("required", [])
    # the copy shipped next to the scenarios (their yaml-language-server header points at it)
    shipped = Path(__file__).resolve().parents[1] / "scenarios" / "cephsim.schema.json"
    assert json.loads(shipped.read_text()) == s, "regenerate: cephsim schema > scenarios/cephsim.schema.json"


def test_catalog_disks_lists_pm983_with_source(run_cli):
    r = run_cli("catalog", "disks")
    assert r.exit_code == 0
    lines = r.stdout.splitlines()
    i = next(i for i, ln in enumerate(lines) if ln.split()[:1] == ["pm983"])
    block = "\n".join(lines[i:i + 8])
    # each source line says which figures it backs and on what basis
    assert "write_4k" in block and "flush" in block and "[" in block


def test_catalog_entry_gives_every_figure_its_source(run_cli):
    """`cephsim catalog disks pm983`: each figure as written, its basis and its source."""
    from cephsim.catalog.load import load_catalog

    r = run_cli("catalog", "disks", "pm983")
    assert r.exit_code == 0, r.output
    e = load_catalog().disks["pm983"]
    for f in e.figure_fields():
        assert f"\n  {f}: " in r.stdout, f
    for prov in e.sources.values():
        assert f"{prov.basis}: {prov.source}" in r.stdout
    r = run_cli("catalog", "disks", "pm9833")
    assert r.exit_code == 2 and "did you mean 'pm983'" in r.stderr


def test_catalog_unknown_kind(run_cli):
    r = run_cli("catalog", "toasters")
    assert r.exit_code == 2 and "Traceback" not in r.output


# ------------------------------------------------------------ golden structure

def _skeleton(x):
    """Keys and value kinds, not values (numbers are 'number' whatever their type)."""
    if isinstance(x, dict):
        return {k: _skeleton(v) for k, v in x.items()}
    if isinstance(x, list):
        seen, out = set(), []
        for v in x:
            s = _skeleton(v)
            key = json.dumps(s, sort_keys=True)
            if key not in seen:
                seen.add(key)
                out.append(s)
        return out
    if isinstance(x, bool):
        return "bool"
    if isinstance(x, (int, float)):
        return "number"
    if x is None:
        return "null"
    return "string"


def test_json_structure_matches_golden(run_cli):
    r = run_cli("run", QS, "-f", "json", "--set", "run.ios=300", "--set", "run.seed=3")
    assert r.exit_code == 0
    doc = r.json()
    doc["cephsim"].pop("engine")  # versions of python/numpy/simpy: keys only would be fine, but
    doc["cephsim"]["engine_keys"] = sorted(r.json()["cephsim"]["engine"])
    skel = _skeleton(doc)
    if os.environ.get("CEPHSIM_REGEN_GOLDEN") == "1":
        GOLDEN.write_text(json.dumps(skel, indent=1, sort_keys=True) + "\n")
        pytest.skip("golden file regenerated")
    assert GOLDEN.exists(), "run with CEPHSIM_REGEN_GOLDEN=1 to create the golden file"
    assert skel == json.loads(GOLDEN.read_text())


def test_whatif_reports_a_disk_change_and_its_stages(run_cli):
    """`cephsim whatif` runs the scenario before and after the change: a DB device shows in
    the header and the saving lands in the disk stage only (constant scenario: the other
    stages are identical), in text and in JSON."""
    const = TEST_SCENARIOS / "constant.yaml"
    change = "hosts.osd.osds.db_disk=optane-p4800x"
    r = run_cli("whatif", const, "--set", change, "--ios", "200")
    assert r.exit_code == 0, r.stderr
    assert (
        "disks:  test disk, constant service times -> test disk, constant service times + DB Intel Optane"
        in r.stdout
    )
    text = r.stdout
    r = run_cli("whatif", const, "--set", change, "--ios", "200", "-f", "json")
    assert r.exit_code == 0, r.stderr
    d = json.loads(r.stdout)
    # one sign: after - before, the IOPS change in per cent of before
    gain = 100 * (d["after"]["iops"] / d["before"]["iops"] - 1)
    assert "after - before" in text and f"{gain:+.1f}%" in text and gain > 0
    dmean = d["after"]["mean_us"] - d["before"]["mean_us"]
    assert dmean < 0 and f"{dmean:+.1f}" in text
    b, a = d["before"]["critical_path_us"], d["after"]["critical_path_us"]
    assert a["disk"] < b["disk"]
    assert all(a[k] == b[k] for k in b if k != "disk")
    assert d["after"]["iops"] > d["before"]["iops"]
    assert d["after"]["disks"] == ["test disk, constant service times + DB "
                                   "Intel Optane SSD DC P4800X 375 GB (NVMe, 3D XPoint, PLP)"]


def test_whatif_that_removes_hosts_skips_the_per_hop_table(run_cli):
    """Fewer hosts after the change: both runs are compared, the per-hop table (which needs
    the same hosts on both sides) is left out with a note, not a KeyError."""
    r = run_cli("whatif", QS, "--set", "hosts.0.count=1", "--set", "pool.size=1", "--ios", "300")
    assert r.exit_code == 0, r.output
    assert "the change removes osd1" in r.stdout and "per hop on the critical path" not in r.stdout


def test_whatif_without_a_change_is_a_clear_error(run_cli):
    r = run_cli("whatif", TEST_SCENARIOS / "constant.yaml")
    assert r.exit_code == 2
    assert "needs at least one --set change" in r.stderr
    assert "Traceback" not in r.stderr + r.stdout


def test_validate_prints_the_scenario_warnings_run_would(run_cli):
    r = run_cli("validate", Path(__file__).resolve().parents[1] / "scenarios" / "quickstart.yaml",
                "--set", "network.topology.spines=2")
    assert r.exit_code == 0, r.output
    assert "warning: network.topology.spines: not used by kind switch" in r.stderr


def test_version(run_cli):
    from cephsim import __version__

    r = run_cli("--version")
    assert r.exit_code == 0 and r.stdout.startswith(f"cephsim {__version__}, ")


COMMANDS = ["run", "validate", "schema", "catalog", "bench", "inspect", "calibrate", "whatif",
            "sweep", "compare", "compare-fio", "explain", "mon-threshold"]


@pytest.mark.parametrize("command", [None, *COMMANDS])
def test_help_names_values_as_users_type_them(run_cli, command):
    """--help shows flags bare and names values N / FILE / PATH=VALUE, not Python types."""
    r = run_cli(*([command] if command else []), "--help")
    assert r.exit_code == 0, r.output
    options = "\n".join(line for line in r.output.splitlines() if line.lstrip("│ ").startswith("-"))
    assert "--help" in options
    for python_type in ("<bool>", "<list[str]>", "<int range>", "<str>", "<float>"):
        assert python_type not in options, (command, python_type)
    if command in ("run", "validate", "whatif", "sweep", "compare", "explain", "mon-threshold"):
        assert "--set" in r.output and ("PATH=VALUE" in r.output or "TEXT" in r.output)


def test_a_run_shorter_than_its_queues_is_warned(run_cli):
    """512 in flight, 2000 measured: the averages are dominated by the queues filling."""
    r = run_cli("run", QS, "--set", "workload.iodepth=64", "--set", "workload.numjobs=8",
                "--set", "run.ios=2000", "--set", "run.ramp_ios=200", "-f", "json")
    assert r.exit_code == 0, r.output[-2000:]
    ws = r.json()["cephsim"]["warnings"]
    assert any("only 2000 I/Os measured with 512 in flight" in w and "at least 5120" in w
               for w in ws), ws
    ok = run_cli("run", QS, "--set", "run.ios=300", "-f", "json").json()["cephsim"]["warnings"]
    assert not any("in flight" in w for w in ok)
