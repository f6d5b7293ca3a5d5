"""Bad input outside the scenario file: output targets, seeds, profiles, distributions and
inline hardware.  Each must be a short error (exit 2, no traceback) given before any work,
and leave nothing behind."""

from __future__ import annotations

import os
import stat

import pytest
from conftest import BASE, ROOT, assert_short_error
from pydantic import ValidationError

QS = ROOT / "scenarios" / "quickstart.yaml"


@pytest.mark.parametrize("command", ["run", "explain", "sweep", "compare"])
def test_output_that_is_a_directory(tmp_path, run_cli, command):
    args = [command, QS, "--set", "run.ios=200", "-o", tmp_path]
    r = run_cli(*args)
    assert_short_error(r, "is a directory")
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("command", ["run", "sweep"])
def test_output_that_is_the_input(tmp_path, run_cli, command):
    scen = tmp_path / "s.yaml"
    scen.write_text(BASE)
    r = run_cli(command, scen, "-o", scen)
    assert_short_error(r, "is one of the input files")
    assert scen.read_text() == BASE


def test_output_that_is_the_profile_the_scenario_reads(tmp_path, run_cli):
    """``ceph.profile`` is an input too: -o onto it would replace the calibrated costs."""
    prof = tmp_path / "prof.yaml"
    prof.write_text("release: reef\nscale: 2.0\n")
    scen = tmp_path / "s.yaml"
    scen.write_text((QS.read_text()).replace("ceph: {", "ceph: {profile: prof.yaml, ", 1))
    assert "profile: prof.yaml" in scen.read_text()
    r = run_cli("run", scen, "--set", "run.ios=100", "-o", prof)
    assert_short_error(r, "is one of the input files")
    assert prof.read_text() == "release: reef\nscale: 2.0\n"


def test_calibrate_output_that_is_a_file_the_case_names(tmp_path, run_cli):
    """The case's measurement file and scenario are inputs, though not on the command line."""
    case = ROOT / "calibration" / "cases" / "wido-2019.yaml"
    fio = ROOT / "calibration" / "wido-2019" / "fio-normal.txt"
    before = fio.read_bytes()
    for target in (fio, ROOT / "scenarios" / "wido-2019-nautilus.yaml"):
        r = run_cli("calibrate", case, "--fit", "scale", "--max-evals", "1", "-q", "-o", target)
        assert_short_error(r, "is one of the input files")
    assert fio.read_bytes() == before


def test_output_that_is_a_symlink_loop_or_too_long_a_name(tmp_path, run_cli):
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    assert_short_error(run_cli("run", QS, "--set", "run.ios=100", "-o", tmp_path / "a"),
                       "cannot write there")
    assert_short_error(run_cli("schema", "-o", tmp_path / ("x" * 300 + ".json")),
                       "cannot write there")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "b"]


def test_two_outputs_on_one_file(tmp_path, run_cli):
    out = tmp_path / "same.png"
    r = run_cli("explain", QS, "--set", "run.ios=100", "--no-ablations", "--plot", out, "-o", out)
    assert_short_error(r, "give each output its own name")
    assert not out.exists()


def test_stdout_on_a_full_device_is_a_short_error():
    import subprocess
    import sys

    with open("/dev/full", "w") as full:
        p = subprocess.run([sys.executable, "-m", "cephsim", "schema"], stdout=full,
                           stderr=subprocess.PIPE, text=True, timeout=120)
    assert p.returncode == 2
    assert p.stderr.strip() == "cephsim: error: cannot write the output: No space left on device"


def test_closed_stdout_is_a_short_error():
    """``cephsim ... >&-``: nowhere to print the report."""
    import subprocess
    import sys

    p = subprocess.run([sys.executable, "-m", "cephsim", "schema"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True, timeout=120,
                       preexec_fn=lambda: os.close(1))
    assert p.returncode == 2
    assert p.stderr.strip() == "cephsim: error: stdout is closed; give --output FILE"


def test_output_that_cannot_be_written_in_full_leaves_the_old_file(tmp_path):
    """A file-size limit (as a full disk) stops the write: a short error, and the file
    that was there is untouched, with no temporary file left beside it."""
    import resource
    import subprocess
    import sys

    out = tmp_path / "schema.json"
    out.write_text("old\n")

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))

    p = subprocess.run([sys.executable, "-m", "cephsim", "schema", "-o", str(out)],
                       stderr=subprocess.PIPE, text=True, timeout=120, preexec_fn=limit)
    assert p.returncode == 2
    assert p.stderr.strip().startswith(f"cephsim: error: --output {out}: cannot write: ")
    assert out.read_text() == "old\n"
    assert [q.name for q in tmp_path.iterdir()] == ["schema.json"]


def test_plot_that_is_a_directory(tmp_path, run_cli):
    d = tmp_path / "x.png"
    d.mkdir()
    r = run_cli("explain", QS, "--set", "run.ios=200", "--no-ablations", "--latency-plot", d)
    assert_short_error(r, "--latency-plot", "is a directory")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.png"]


def test_plot_into_a_missing_directory(tmp_path, run_cli):
    r = run_cli("explain", QS, "--set", "run.ios=200", "--plot", tmp_path / "no" / "op.png")
    assert_short_error(r, "--plot", "output directory does not exist")


def test_output_that_is_not_a_regular_file(tmp_path, run_cli):
    """A pipe (or /dev/stdout, a device) must not be replaced by the atomic rename: refused,
    pointing at '-' for stdout, before the run."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    r = run_cli("run", QS, "--set", "run.ios=200", "-q", "-o", fifo)
    assert_short_error(r, "is not a regular file", "--output -")
    assert stat.S_ISFIFO(fifo.lstat().st_mode)


@pytest.mark.skipif(os.geteuid() == 0, reason="root may create files in a read-only directory")
def test_output_in_a_directory_without_write_permission(tmp_path, run_cli):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        r = run_cli("run", QS, "--set", "run.ios=200", "-q", "-o", ro / "r.txt")
        assert_short_error(r, "cannot create a file in")
    finally:
        ro.chmod(0o755)


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux /proc")
def test_output_where_no_file_can_be_created(run_cli):
    """/proc takes no new files, even from root: refused before the run, no traceback."""
    r = run_cli("run", QS, "--set", "run.ios=200", "-q", "-o", "/proc/cephsim-result.txt")
    assert_short_error(r, "cannot create a file in /proc")


def test_output_through_a_symlink_replaces_its_target(tmp_path, run_cli):
    """The rename goes to the link's target: the link stays (and /dev/stdout redirected to a
    file writes that file instead of replacing the /dev/stdout link)."""
    (tmp_path / "runs").mkdir()
    link = tmp_path / "latest.txt"
    link.symlink_to("runs/r.txt")
    r = run_cli("run", QS, "--set", "run.ios=200", "-q", "-o", link)
    assert r.exit_code == 0, r.output
    assert link.is_symlink() and "IOPS=" in (tmp_path / "runs" / "r.txt").read_text()


def test_output_dash_is_stdout(tmp_path, run_cli, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = run_cli("run", QS, "--set", "run.ios=200", "-q", "-f", "json", "-o", "-")
    assert r.exit_code == 0, r.output
    assert '"jobs"' in r.stdout and os.listdir(tmp_path) == []


def test_result_file_follows_the_umask(tmp_path, run_cli):
    out = tmp_path / "r.json"
    old = os.umask(0o022)
    try:
        r = run_cli("run", QS, "--set", "run.ios=200", "-q", "-f", "json", "-o", out)
    finally:
        os.umask(old)
    assert r.exit_code == 0, r.output
    assert stat.S_IMODE(out.stat().st_mode) == 0o644


@pytest.mark.parametrize("command", ["run", "explain", "sweep"])
def test_negative_seed(run_cli, command):
    assert_short_error(run_cli(command, QS, "--seed", "-1"), "--seed")


def test_whatif_refuses_a_bad_set_before_any_run(run_cli, monkeypatch):
    """The "after" side's --set is checked with the "before" side, not after its run."""
    import cephsim.tools.calibrate.whatif as whatif

    monkeypatch.setattr(whatif, "run_scenario", lambda *a, **k: pytest.fail("a side ran"))
    r = run_cli("whatif", QS, "--set", "pool.size=lots")
    assert_short_error(r, "pool.size")
    assert "--set pool.size=lots" in r.stderr


def test_negative_seed_in_whatif_and_calibrate(run_cli):
    """numpy refuses negative seeds with a traceback: the options refuse them first."""
    assert_short_error(run_cli("whatif", QS, "--set", "pool.size=2", "--seed", "-1"), "--seed")
    case = ROOT / "calibration" / "cases" / "mako-reef.yaml"
    assert_short_error(run_cli("calibrate", case, "--seed", "-1"), "--seed")


def test_bench_needs_enough_ios(run_cli):
    assert_short_error(run_cli("bench", "--ios", "0"), "--ios")


@pytest.mark.parametrize(("profile", "words"), [
    ("", ["the profile file is empty"]),
    ("release: zebra\n", ["release 'zebra' is not one of"]),
    ("kcycles: {osd.nosuch: 50}\n", ["unknown software stage(s) osd.nosuch"]),
    ("kcycles: {osd.do_op: -50}\n", ["kcycles.osd.do_op", "greater than or equal to 0"]),
    ("tails: {kv_stall_rate_hz: .inf, kv_stall: 1ms}\n", ["kv_stall_rate_hz", "finite"]),
    # located at file:line:col like a scenario
    ("release: reef\nkcycles: {osd.do_op: [1, 2\n", ["p.yaml:3:1: YAML syntax error"]),
    ("release: reef\nscale: 1\nbogus: 1\n", ["p.yaml:3:1: bogus: Extra inputs"]),
    ("release: reef\nscale: -1\n", ["p.yaml:2:1: scale: Input should be greater than 0"]),
])
def test_bad_profile(tmp_path, run_cli, profile, words):
    prof = tmp_path / "p.yaml"
    prof.write_text(profile)
    scen = tmp_path / "s.yaml"
    scen.write_text(BASE + f"ceph: {{release: reef, profile: {prof}}}\n")
    assert_short_error(run_cli("run", scen), "p.yaml", *words)


@pytest.mark.parametrize("spec", [
    {"dist": "constant", "value": "-1us"},
    {"dist": "lognormal", "median": "10us", "sigma": 6},
    {"dist": "lognormal", "median": "10us", "p99": "10s"},       # sigma 5.9
    {"dist": "lognormal", "median": "10us", "sigma": 0.3, "shift": "-5us"},
    {"dist": "normal", "mean": "10us", "stddev": "5us"},        # goes negative
    {"dist": "uniform", "low": "-5us", "high": "5us"},
    {"dist": "exponential", "mean": "-5us"},
    {"dist": "mixture", "parts": [{"weight": float("inf"), "of": "5us"}]},
])
def test_service_times_cannot_go_negative_or_explode(spec):
    from pydantic import TypeAdapter

    from cephsim.spec.dists import DistSpec

    with pytest.raises(ValidationError):
        TypeAdapter(DistSpec).validate_python(spec)


def test_a_wide_but_sane_normal_is_accepted():
    from pydantic import TypeAdapter

    from cephsim.spec.dists import DistSpec

    d = TypeAdapter(DistSpec).validate_python({"dist": "normal", "mean": "60us", "stddev": "10us"})
    assert d.mean_ns == 60_000


@pytest.mark.parametrize(("change", "words"), [
    ({"min_clock": "5GHz"}, "min_clock <= base_clock <= boost_clock"),
    ({"base_clock": "9GHz"}, "min_clock <= base_clock <= boost_clock"),
    ({"min_clock": "-1GHz"}, "greater than 0"),
    ({"per_clock_speed": float("inf")}, "per_clock_speed"),
])
def test_inline_cpu_figures_are_checked(change, words):
    from cephsim.catalog.load import load_catalog
    from cephsim.catalog.models import CPUModel

    cpu = load_catalog().cpus["epyc-7313p"].model_dump(by_alias=True)
    for k in ("base_clock", "boost_clock", "all_core_clock", "min_clock"):
        cpu[k] = f"{cpu[k] / 1e6:g}MHz"
    with pytest.raises(ValidationError, match=words.replace("(", r"\(")):
        CPUModel.model_validate({**cpu, **change})


def _raw(kind: str, name: str) -> dict:
    """A catalog entry exactly as its data file gives it (units written out)."""
    from ruamel.yaml import YAML

    return YAML(typ="safe").load((ROOT / "cephsim" / "catalog" / "data" / f"{kind}.yaml")
                                 .read_text())[name]


@pytest.mark.parametrize(("kind", "name", "change", "words"), [
    ("disks", "pm9a3", {"write_bandwidth": "0MB/s"}, "below 1 MB/s"),
    ("disks", "pm9a3", {"read_bandwidth": "-1MB/s"}, "below 1 MB/s"),
    ("disks", "generic-consumer-sata", {"flush_per_dirty_unit": "-5us"},
            "greater than or equal to 0"),
    ("switches", "generic-cut-through-25g", {"speed": "0Gbit/s"}, "below 1 Mbit/s"),
    ("switches", "denverton-router-1g", {"forwarding_cycles": -100}, "greater than or equal to 0"),
    ("switches", "denverton-router-1g", {"forwarding_cycles": float("nan")}, "finite"),
])
def test_inline_disk_and_switch_figures_are_checked(kind, name, change, words):
    from cephsim.catalog.models import DiskModel, SwitchModel

    model = {"disks": DiskModel, "switches": SwitchModel}[kind]
    data = _raw(kind, name)
    model.model_validate(data)  # the entry itself is fine
    with pytest.raises(ValidationError, match=words):
        model.model_validate({**data, **change})


def test_cstate_figures_cannot_be_negative():
    from cephsim.catalog.models import CStateTable

    table = _raw("cstates", "amd-acpi-c2-400")
    CStateTable.model_validate(table)
    table["states"][-1]["wake_penalty"] = "-1us"
    with pytest.raises(ValidationError, match="greater than or equal to 0"):
        CStateTable.model_validate(table)


@pytest.mark.parametrize(("sets", "path", "words"), [
    (["pool.pg_num=100000"], "pool.pg_num", "less than or equal to 65536"),
    (["run.ios=2000000000"], "run.ios", "less than or equal to 1000000000"),
    (["hosts.osd.osds.count=300"], "hosts.0.osds.count", "less than or equal to 256"),
    (["run.runtime=25h"], None, "at most 24h"),
])
def test_size_limits(tmp_path, run_cli, sets, path, words):
    scen = tmp_path / "s.yaml"
    scen.write_text(BASE)
    args = ["validate", scen]
    for s in sets:
        args += ["--set", s]
    r = run_cli(*args)
    assert_short_error(r, f"--set {sets[0]}", words, *([f" {path}: "] if path else []))


def test_compare_fio_output_that_is_an_input(tmp_path, run_cli):
    sim = tmp_path / "sim.json"
    r = run_cli("run", QS, "--set", "run.ios=200", "-q", "-f", "json", "-o", sim)
    assert r.exit_code == 0, r.output
    before = sim.read_text()
    assert_short_error(run_cli("compare-fio", sim, sim, "-o", sim), "is one of the input files")
    assert sim.read_text() == before


def test_latency_plot_suffix_names_its_option(run_cli):
    assert_short_error(run_cli("explain", QS, "--latency-plot", "lat.txt"),
                       "--latency-plot lat.txt", ".png, .svg or .pdf")


def test_a_flood_of_problems_is_cut_short(tmp_path, run_cli):
    """Thousands of unknown keys: the first 50 located, then a count (not 2000 lines)."""
    keys = "".join(f"  k{i}: {i}\n" for i in range(2000))
    scen = tmp_path / "s.yaml"
    scen.write_text(BASE + "ceph:\n  release: reef\n" + keys)
    r = run_cli("validate", scen)
    assert_short_error(r, "ceph.k0: unknown key", "... and 1950 more problems")
    assert len(r.stderr.splitlines()) == 52


def test_a_duplicate_key_is_named_without_its_whole_value(tmp_path, run_cli):
    scen = tmp_path / "s.yaml"
    scen.write_text(BASE + "pool: {size: 2, pg_num: 64}\n")
    r = run_cli("validate", scen)
    assert_short_error(r, "s.yaml:", 'duplicate key "pool"')
    assert "original value" not in r.stderr and len(r.stderr) < 300, r.stderr


def test_absurd_delays_and_service_times_are_refused(tmp_path, run_cli):
    """A netem delay past 10 s (a round trip beyond osd_heartbeat_grace) and a service time
    past 30 s (the SCSI command timeout) describe failures, not latencies: refused before
    anything runs (a 1000 s delay used to keep a run busy for minutes)."""
    r = run_cli("run", QS, "--set", "network.links=[{from: client0, to: osd0, delay: 1000s}]")
    assert_short_error(r, "network.links.0.delay", "osd_heartbeat_grace")
    prof = tmp_path / "p.yaml"
    prof.write_text("release: reef\ntails: {kv_stall_rate_hz: 1, kv_stall: 100000s}\n")
    r = run_cli("run", QS, "--set", f"ceph.profile={prof}")
    assert_short_error(r, "p.yaml:2:30: tails.kv_stall", "past 30 s")


def test_a_run_without_progress_gives_up(tmp_path, run_cli, monkeypatch):
    """The safety net behind those limits: a run in which no I/O completes for STALL_NS of
    simulated time stops with a located error and writes nothing (here the limit is cut
    to 1 ms against a valid 5 s delay, so the first I/Os cannot finish in time)."""
    import cephsim.model.runner as runner

    monkeypatch.setattr(runner, "STALL_NS", 1_000_000)
    out = tmp_path / "r.json"
    r = run_cli("run", QS, "--set", "network.links=[{from: client0, to: osd0, delay: 5s}]",
                "-o", out)
    assert_short_error(r, "quickstart.yaml: run: the run gave up: 1ms of simulated time "
                       "passed without one I/O completing", "of 20000 measured I/Os done")
    assert not out.exists()

def test_a_full_mesh_refuses_bonds(tmp_path, run_cli):
    """In a full mesh each port is the cable to one peer (or carries every frame): a bond
    has no meaning there, and is refused at the host group that asks for it."""
    scen = tmp_path / "s.yaml"
    scen.write_text(BASE.replace("    count: 3\n", "    count: 3\n    bond: 2\n", 1)
                    + "network: {topology: {kind: mesh}}\n")
    assert_short_error(run_cli("validate", scen), "hosts.0.bond", "full mesh", "remove bond")
    scen.write_text(BASE + "network: {topology: {kind: mesh, mesh_mode: ring}}\n")
    assert_short_error(run_cli("validate", scen), "network.topology.mesh_mode", "'routed'")


def test_a_broadcast_mesh_needs_one_nic_speed(tmp_path, run_cli):
    """Broadcast bond with mixed NIC speeds: the ports no longer carry one shared stream;
    refused rather than simulated at the wrong rate."""
    scen = tmp_path / "s.yaml"
    mixed = BASE.replace("    nic: connectx5-25g\n", "    nic: intel-i350-1g\n", 1)
    assert mixed != BASE
    scen.write_text(mixed + "network: {topology: {kind: mesh, mesh_mode: broadcast}}\n")
    assert_short_error(run_cli("validate", scen), "network.topology.mesh_mode", "one NIC speed")
    scen.write_text(mixed + "network: {topology: {kind: mesh, mesh_mode: routed}}\n")
    assert run_cli("validate", scen).exit_code == 0


@pytest.mark.parametrize(("value", "words"), [
    ("osd_cpu_limit: 0", ["hosts.0.osd_cpu_limit", "greater than 0"]),
    ("osd_cpu_limit: two", ["hosts.0.osd_cpu_limit", "valid number"]),
    ("osd_cpu_limit: .inf", ["hosts.0.osd_cpu_limit", "finite"]),
    ("osd_cpu_limit: 0.005", ["hosts.0.osd_cpu_limit", "under 1 ms per period"]),
    ("{osd_cpu_limit: 2, osd_cpu_period: 500us}",
     ["hosts.0.osd_cpu_period", "must be at least 1ms (got 500us)"]),
    ("{osd_cpu_limit: 2, osd_cpu_period: 2s}",
     ["hosts.0.osd_cpu_period", "must be at most 1s (got 2s)"]),
])
def test_bad_cpu_quota(tmp_path, run_cli, value, words):
    scen = tmp_path / "s.yaml"
    fields = "".join(f"    {kv.strip()}\n" for kv in value.strip("{}").split(", "))
    scen.write_text(BASE.replace("    count: 3\n", "    count: 3\n" + fields, 1))
    assert_short_error(run_cli("validate", scen), *words)


def test_a_cpu_quota_needs_osds(tmp_path, run_cli):
    scen = tmp_path / "s.yaml"
    scen.write_text(BASE.replace("  - name: client\n", "  - name: client\n    osd_cpu_limit: 2\n", 1))
    assert_short_error(run_cli("validate", scen), "hosts.1.osd_cpu_limit", "without OSDs")


@pytest.mark.parametrize(("override", "words"), [
    ("hosts.0.nic={name: n, sources: {}, speed: 1e-300bit/s, tx_latency: 2us, rx_latency: 3us}",
     ["hosts.0.nic.speed", "below 1 Mbit/s"]),
    ("hosts.0.nic={name: n, sources: {}, speed: 25Gbit/s, speed: 10Gbit/s}",
     ['duplicate key "speed"']),
    ("workload..iodepth=4", ["empty name in the field path"]),
    ("workload.iodepth.=4", ["empty name in the field path"]),
])
def test_bad_overrides_are_named(run_cli, override, words):
    """A rate so small a transfer overflows any clock, a duplicated key inside a --set
    value (it used to turn the value into a string and blame the catalog), and empty
    names in a field path (they used to be skipped silently)."""
    assert_short_error(run_cli("validate", QS, "--set", override), *words)


def test_a_profile_for_another_release_is_used_with_a_warning(tmp_path, run_cli):
    """A profile's release is informational (a test profile may serve every release), but
    using one fitted for Quincy on a Reef scenario is said."""
    prof = tmp_path / "p.yaml"
    prof.write_text("release: quincy\nscale: 2.0\n")
    scen = tmp_path / "s.yaml"
    scen.write_text(BASE + f"ceph: {{release: reef, profile: {prof}}}\n")
    r = run_cli("run", scen)
    assert r.exit_code == 0, r.output
    assert "ceph.profile was fitted for quincy and is used on reef" in r.output
    prof.write_text("release: reef\nscale: 2.0\n")
    assert "ceph.profile was fitted" not in run_cli("run", scen).output


def test_topology_fields_the_kind_does_not_use_are_named(run_cli):
    """A field that the chosen topology ignores is said, not silently dropped."""
    r = run_cli("run", QS, "--set", "run.ios=300", "--set", "network.topology.mesh_mode=routed")
    assert r.exit_code == 0 and "network.topology.mesh_mode: not used by kind switch" in r.output
    r = run_cli("run", QS, "--set", "run.ios=300", "--set", "network.topology.kind=mesh",
                "--set", "network.topology.spines=4")
    assert r.exit_code == 0, r.output
    assert "network.topology.switch, network.topology.spines: not used by kind mesh" in r.output


def test_a_negative_delay_too_small_to_round_is_still_negative(run_cli):
    r = run_cli("validate", QS, "--set", "network.links=[{from: client0, to: osd0, delay: "
            "-1e-30ns}]")
    assert_short_error(r, "network.links.0.delay", "negative")


def test_a_capitalised_key_is_named_and_matched(tmp_path, run_cli):
    """pydantic puts union tags such as 'CPUModel' in error locations and they are dropped,
    but a key really in the file is kept even when capitalised, and matched case-blind."""
    scen = tmp_path / "s.yaml"
    scen.write_text(BASE.replace("pool: {size: 3}", "pool: {Size: 3}").replace("\nrun:", "\nRun:"))
    assert "Size" in scen.read_text() and "Run:" in scen.read_text()
    r = run_cli("validate", scen)
    assert r.exit_code == 2
    assert "pool.Size: unknown key; did you mean 'size'?" in r.stderr, r.stderr
    assert "Run: unknown key; did you mean 'run'?" in r.stderr, r.stderr
    assert "(top level)" not in r.stderr
    r = run_cli("validate", QS, "--set", "hosts[0].nic=x")
    assert_short_error(r, "did you mean 'hosts.0'?")


@pytest.mark.parametrize("command", ["sweep", "compare"])
def test_scheduler_needs_the_dask_executor(run_cli, command):
    assert_short_error(run_cli(command, QS, "--scheduler", "tcp://127.0.0.1:8786"),
                       "--scheduler only applies with --executor dask")


def test_a_bare_block_size_is_bytes_and_the_error_says_how_to_write_kib(run_cli):
    r = run_cli("validate", QS, "--set", "workload.bs=4000")
    assert_short_error(r, "workload.bs", "multiple of 512", "bare number is bytes", "4KiB")


def test_fio_size_spellings_are_binary(run_cli, tmp_path):
    """fio's --bs=4MB / --size=10GB mean MiB / GiB; the scenario reads them the same way."""
    r = run_cli("validate", QS, "--set", "workload.bs=4MB", "--set", "workload.image_size=10GB")
    assert r.exit_code == 0, r.output


@pytest.mark.parametrize(("value", "words"), [
    ("3MiB", ["power of two", "4 KiB", "32 MiB"]), ("64MiB", ["power of two"]),
])
def test_rbd_object_size_is_a_power_of_two(run_cli, value, words):
    r = run_cli("validate", QS, "--set", f"workload.object_size={value}")
    assert_short_error(r, "workload.object_size", *words)


def test_cephfs_object_size_is_a_multiple_of_64k(run_cli):
    r = run_cli("validate", QS, "--set", "workload.engine=cephfs",
                "--set", "workload.object_size=100KiB")
    assert_short_error(r, "workload.object_size", "multiple of 64 KiB")


def test_a_bond_wider_than_the_card_is_said(run_cli):
    r = run_cli("validate", QS, "--set", "hosts.0.bond=4")
    assert r.exit_code == 0, r.output
    assert "bond 4 but a" in r.output and "has 2 ports" in r.output and "2 such cards" in r.output


def test_a_bond_over_a_class_nic_is_not_questioned(run_cli):
    """A class entry's single port is the catalog's assumption, not a datasheet figure:
    'generic-40g, bond: 2' (the RHCS scenario's 2 x 40G) says the hosts have two ports."""
    r = run_cli("validate", QS, "--set", "hosts.0.nic=generic-40g", "--set", "hosts.0.bond=2")
    assert r.exit_code == 0, r.output
    assert "bond 2" not in r.output


@pytest.mark.parametrize("value", ["-1", "true"])
def test_a_negative_or_boolean_cstate_index_is_refused(run_cli, value):
    """processor.max_cstate counts from 0; -1 used to cut the table from its end (POLL only)."""
    r = run_cli("validate", QS, "--set", f"hosts.0.tuning.max_cstate={value}")
    assert_short_error(r, "hosts.0.tuning.max_cstate", "is not a C-state", "index from 0")


def test_a_runtime_shorter_than_one_io_is_an_error_not_an_empty_report(run_cli, tmp_path):
    """run.runtime=1us measures nothing: the run used to exit 0 with an empty report, null
    percentiles and every resource '100 % busy'; now it says why and writes no file."""
    out = tmp_path / "r.json"
    r = run_cli("run", QS, "--set", "run.runtime=1us", "-o", str(out), "-f", "json")
    assert_short_error(r, "run.runtime", "no I/O completed within run.runtime 1us")
    assert not out.exists()


@pytest.mark.parametrize("topology", [
    "network.topology.kind=switch",
    "network.topology={kind: leaf-spine, hosts_per_leaf: 2, spines: 2, switch: denverton-bridge-1g,"
    " spine: generic-cut-through-25g}",
])
def test_a_software_switch_where_only_its_latency_would_count(run_cli, topology):
    """A software bridge or router as the switch (or a leaf) would forward with a fixed
    latency, its CPU ignored: refused, pointing at the spine form that models its CPU."""
    r = run_cli("validate", QS, "--set", topology, "--set", "network.topology.switch=denverton-bridge-1g")
    assert_short_error(r, "forwards in software, which is modelled for a spine only")
    assert "hosts_per_leaf: 1" in r.stderr


def test_a_software_router_as_the_spine_of_self_routing_hosts_is_fine(run_cli):
    """Seed 001's form: hosts route themselves over the spines, the switch model forwards
    nothing, so a software box named there is harmless."""
    r = run_cli("validate", ROOT / "scenarios" / "tuned-routers-balanced.yaml",
                "--set", "network.topology.switch=denverton-bridge-1g")
    assert r.exit_code == 0, r.stderr
