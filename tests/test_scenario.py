"""Loading scenarios: YAML with positions, --set overrides, validation errors with locations."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import BASE, ROOT, TEST_SCENARIOS

from cephsim.errors import CephsimError
from cephsim.model.resolve import resolve
from cephsim.scenario.load import apply_override, load_scenario, parse_override
from cephsim.scenario.schema import Scenario


def write(tmp_path: Path, text: str, name: str = "s.yaml") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def problems(path, overrides=()):
    with pytest.raises(CephsimError) as ei:
        sc = load_scenario(path, list(overrides))
        resolve(sc, path)
    return ei.value.problems


@pytest.mark.parametrize("path", sorted((ROOT / "scenarios").glob("*.yaml"))
                         + sorted((ROOT / "tests" / "scenarios").glob("*.yaml")), ids=lambda p: p.name)
def test_shipped_scenarios_load_and_resolve(path):
    sc = load_scenario(path)
    r = resolve(sc, path)
    assert r.hosts and r.osd_host
    assert isinstance(sc, Scenario)


def test_defaults(tmp_path):
    sc = load_scenario(write(tmp_path, BASE))
    assert sc.workload.bs == 4096 and sc.workload.iodepth == 1
    assert sc.ceph.release == "reef" and sc.run.seed == 1
    r = resolve(sc)
    assert r.clients == ("client0",)
    assert [h.name for h in r.hosts] == ["osd0", "osd1", "osd2", "client0"]
    assert r.ceph.write_mode == "direct"


def test_unknown_key_has_line_path_and_suggestion(tmp_path):
    p = write(tmp_path, BASE.replace("run: {ios: 300}", "run: {ios: 300, sede: 3}"))
    [pr] = problems(p)
    assert pr.file == str(p) and pr.line == 13 and pr.path == "run.sede"
    assert "did you mean 'seed'" in pr.message


def test_nested_unknown_key_in_list_item(tmp_path):
    p = write(tmp_path, BASE.replace("    count: 3\n", "    count: 3\n    tunning: {}\n"))
    [pr] = problems(p)
    assert pr.path == "hosts.0.tunning" and pr.line == 5
    assert "did you mean 'tuning'" in pr.message


def test_several_problems_reported_together(tmp_path):
    p = write(tmp_path, BASE.replace("bs: 4KiB", "bs: 4 parsecs, iodepth: 0"))
    paths = {pr.path for pr in problems(p)}
    assert {"workload.bs", "workload.iodepth"} <= paths


def test_duplicate_key_is_an_error(tmp_path):
    p = write(tmp_path, BASE + "run: {ios: 5}\n")
    [pr] = problems(p)
    assert pr.file == str(p)
    assert "Traceback" not in str(pr)


def test_missing_file():
    [pr] = problems(Path("/nonexistent/x.yaml"))
    assert "no such file" in pr.message


# ------------------------------------------------------------ overrides

def test_parse_override_reads_yaml_values():
    assert parse_override("workload.iodepth=32") == (["workload", "iodepth"], 32)
    assert parse_override("hosts.osd.netem.delay=2ms") == (["hosts", "osd", "netem", "delay"], "2ms")
    assert parse_override("a.b={x: 1}") == (["a", "b"], {"x": 1})
    assert parse_override("ceph.debug_logging=off") == (["ceph", "debug_logging"], "off")


def test_override_list_item_by_name_and_index(tmp_path):
    p = write(tmp_path, BASE)
    sc = load_scenario(p, ["hosts.osd.netem.delay=2ms", "hosts.1.count=2", "pool.size=2"])
    assert sc.hosts[0].netem.delay == 2_000_000
    assert sc.hosts[1].count == 2
    assert sc.pool.size == 2


def test_override_creates_missing_sections(tmp_path):
    p = write(tmp_path, BASE)
    sc = load_scenario(p, ["ceph.tails=false", "network.topology.kind=switch"])
    assert sc.ceph.tails is False


def test_override_error_names_the_override(tmp_path):
    p = write(tmp_path, BASE)
    [pr] = problems(p, ["workload.iodepth=0"])
    assert pr.file == "--set workload.iodepth=0" and pr.path == "workload.iodepth"
    [pr] = problems(p, ["hosts.osdd.count=1"])
    assert "did you mean 'osd'" in pr.message
    [pr] = problems(p, ["hosts.7.count=1"])
    assert "out of range" in pr.message
    [pr] = problems(p, ["pool.size.x=1"])
    assert pr.file == "--set pool.size.x=1"
    assert "pool.size is a number (3), not a section with fields: it has no field 'x'" in pr.message


def test_apply_override_does_not_touch_other_items():
    data = {"hosts": [{"name": "a", "count": 1}, {"name": "b", "count": 1}]}
    apply_override(data, ["hosts", "b", "count"], 5, "--set")
    assert data["hosts"] == [{"name": "a", "count": 1}, {"name": "b", "count": 5}]


@pytest.mark.parametrize("override, changed", [
    ("hosts.client.nic.speed=25Gbit/s", "client"),            # an alias: nic: *nic
    ("hosts.osd.tuning.governor=ondemand", "osd"),            # the anchor's own owner
])
def test_override_through_a_yaml_alias_changes_only_that_host(override, changed):
    """An alias is the anchored node itself: --set must not reach the hosts that share it."""
    sc = load_scenario(TEST_SCENARIOS / "constant.yaml", [override])
    nics = {h.name: h.nic.speed_bps for h in sc.hosts}
    governors = {h.name: h.tuning.governor for h in sc.hosts}
    if changed == "client":
        assert nics == {"osd": 10e9, "client": 25e9}
    else:
        assert governors == {"osd": "ondemand", "client": "performance"}


def test_override_through_a_yaml_merge_key_changes_only_that_host():
    """stretch-two-sites.yaml builds dc2-osd as {<<: *osd, ...}: a nested field set on
    either host stays on that host."""
    path = ROOT / "scenarios" / "stretch-two-sites.yaml"
    for name, other in (("dc1-osd", "dc2-osd"), ("dc2-osd", "dc1-osd")):
        sc = load_scenario(path, [f"hosts.{name}.osds.count=2", f"hosts.{name}.tuning.governor=ondemand"])
        hosts = {h.name: h for h in sc.hosts}
        assert hosts[name].osds.count == 2 and hosts[name].tuning.governor == "ondemand"
        assert hosts[other].osds.count == 1 and hosts[other].tuning.governor == "performance"


# ------------------------------------------------------------ cross-field checks

def test_pool_size_larger_than_hosts(tmp_path):
    [pr] = problems(write(tmp_path, BASE.replace("size: 3", "size: 4")))
    assert "size 4 is larger than the number of OSD hosts (3)" in pr.message


def test_cross_check_errors_point_at_the_field(tmp_path):
    [pr] = problems(write(tmp_path, BASE.replace("size: 3", "size: 4")))
    assert pr.path == "pool.size" and pr.line == 11


def test_resolve_errors_carry_the_field_path(tmp_path):
    p = write(tmp_path, BASE.replace("    nic: connectx5-25g\n    osds", "    nic: connectx5-25g\n"
                                     "    tuning: {max_cstate: C7}\n    osds"))
    [pr] = problems(p)
    assert pr.path == "hosts.0.tuning.max_cstate"
    assert "POLL, C1" in pr.message


def test_max_cstate_by_index_and_name(tmp_path):
    for limit, names in ((1, ["POLL", "C1"]), ("C1", ["POLL", "C1"]), ("POLL", ["POLL"]), (0, [
            "POLL"])):
        p = write(tmp_path, BASE)
        sc = load_scenario(p, [f"hosts.osd.tuning.max_cstate={limit}"])
        r = resolve(sc)
        assert [s.name for s in r.host("osd0").cpu.cstates] == names, limit


@pytest.mark.parametrize(("sets", "msg"), [
    (["ceph.version=16.2.11"], "16.2.11 is not a point release of reef (18.x; 16.x is pacific)"),
    (["ceph.release=tentacle", "ceph.version=21.1.0"], "no modelled release is 21.x"),
])
def test_version_must_belong_to_the_release(sets, msg):
    """A point release of another release is an impossible configuration, not a silent mix
    (version-dependent defaults would be looked up for the wrong release)."""
    with pytest.raises(CephsimError) as e:
        load_scenario(ROOT / "scenarios" / "quickstart.yaml", sets)
    assert msg in str(e.value) and "ceph.version" in str(e.value)
    load_scenario(ROOT / "scenarios" / "quickstart.yaml", ["ceph.release=tentacle",
            "ceph.version=20.2.0"])


def test_version_of_another_release_fails_the_cli_at_its_line(run_cli):
    """Through the CLI: exit status 2, the file and line of the version, the hint, no traceback."""
    path = ROOT / "scenarios" / "tuned-routers-balanced.yaml"
    line = next(i for i, ln in enumerate(path.read_text().splitlines(), 1)
                if "version: 16.2.11" in ln)
    r = run_cli("validate", path, "--set", "ceph.release=reef")
    assert r.exit_code == 2
    assert f"tuned-routers-balanced.yaml:{line}:" in r.stderr
    assert "ceph.version: 16.2.11 is not a point release of reef (18.x; 16.x is pacific)" in r.stderr
    assert "Traceback" not in r.stderr + r.stdout


@pytest.mark.parametrize(("sets", "msg"), [
    (["ceph.release=jewel"], "Input should be 'luminous', 'mimic', 'nautilus'"),
    (["ceph.release=mimic", "ceph.version=12.2.13"],
     "12.2.13 is not a point release of mimic (13.x; 12.x is luminous)"),
])
def test_unknown_release_or_foreign_version_fails_the_cli(run_cli, sets, msg):
    """A release before Luminous (not modelled) or a Luminous point release given to Mimic:
    exit status 2, the offending --set named, the valid choices or the hint, no traceback."""
    args = [a for kv in sets for a in ("--set", kv)]
    r = run_cli("validate", ROOT / "scenarios" / "quickstart.yaml", *args)
    assert r.exit_code == 2
    assert f"--set {sets[-1]}" in r.stderr and msg in r.stderr
    assert "Traceback" not in r.stderr + r.stdout


@pytest.mark.parametrize(("release", "disk", "expected"), [
    ("squid", "generic-hdd-7200", (5, 1)),
    ("tentacle", "generic-hdd-7200", (1, 5)),  # PR #58509: one shard of five threads on HDD
    ("tentacle", "pm983", (8, 2)),
])
def test_op_shards_per_release_and_media(release, disk, expected):
    sc = load_scenario(ROOT / "scenarios" / "quickstart.yaml",
                       [f"ceph.release={release}", f"hosts.0.osds.disk={disk}"])
    c = resolve(sc).ceph
    assert (c.op_shards, c.threads_per_shard) == expected


@pytest.mark.parametrize(("release", "version"), [("luminous", "12.2.13"), ("mimic", "13.2.10")])
def test_luminous_and_mimic_defaults(release, version):
    """The two pre-Nautilus BlueStore releases: 16 KiB min_alloc_size_ssd in every point
    release (a 4 KiB SSD overwrite is deferred), RocksDB recycling its WAL files (no BlueFS
    log sync per commit), commit callbacks on BlueStore's finisher thread, one librbd op
    thread, wpq and notify_one as Nautilus."""
    sc = load_scenario(ROOT / "scenarios" / "quickstart.yaml",
                       [f"ceph.release={release}", f"ceph.version={version}"])
    c = resolve(sc).ceph
    assert (c.write_mode, c.wal_log_sync, c.commit_finisher, c.librbd_threads) == (
        "deferred", False, True, 1)
    assert (c.op_shards, c.threads_per_shard) == (8, 2)
    assert c.costs.osd_op_queue == "wpq" and c.costs.notify_all_on_enqueue is False
    later = resolve(load_scenario(ROOT / "scenarios" / "quickstart.yaml",
                                  ["ceph.release=nautilus"])).ceph
    assert (later.write_mode, later.commit_finisher) == ("direct", False)
    with pytest.raises(CephsimError, match="12.2.13 is not a point release of mimic"):
        load_scenario(ROOT / "scenarios" / "quickstart.yaml",
                      ["ceph.release=mimic", "ceph.version=12.2.13"])


def test_read_cache_hit_follows_the_cache_budget() -> None:
    """Cold: no hits.  Warm: BlueStore's autotuned cache budget (0.85 x osd_memory_target -
    768 MiB, at least 128 MiB) over the data each primary serves, capped at 1."""
    from cephsim.model.resolve import cache_bytes, read_cache_hit

    gib = 1024**3
    assert cache_bytes(4 * gib) == int(0.85 * 4 * gib) - 768 * 1024**2
    assert cache_bytes(896 * 1024**2) == 128 * 1024**2      # the floor
    assert read_cache_hit("cold", 4 * gib, 10, gib) == 0.0
    assert read_cache_hit("warm", 4 * gib, 10, gib) == 1.0
    assert read_cache_hit("warm", 4 * gib, 3, 100 * gib) == 3 * cache_bytes(4 * gib) / (100 * gib)
    assert read_cache_hit("warm", 16 * gib, 3, 100 * gib) > read_cache_hit("warm", 4 * gib, 3, 100 * gib)


def test_osd_memory_target_below_cephs_minimum_is_a_located_error(tmp_path) -> None:
    from cephsim.errors import CephsimError
    from cephsim.scenario.load import load_scenario

    p = tmp_path / "s.yaml"
    p.write_text((ROOT / "scenarios" / "quickstart.yaml").read_text())
    with pytest.raises(CephsimError) as e:
        load_scenario(p, ["ceph.osd_memory_target=512MiB"])
    assert "osd_memory_target" in str(e.value)


def _fails_at(run_cli, tmp_path, text: str, line: int, msg: str, command: str = "validate",
              *extra: str) -> None:
    """``text`` as a scenario file fails ``cephsim <command> FILE <extra>``: exit 2,
    ``s.yaml:<line>:`` and ``msg`` on stderr, no traceback."""
    p = tmp_path / "s.yaml"
    p.write_text(text)
    r = run_cli(command, p, *extra)
    assert r.exit_code == 2, r.output
    assert f"s.yaml:{line}:" in r.stderr and msg in r.stderr, r.stderr
    assert "Traceback" not in r.stderr + r.stdout


@pytest.mark.parametrize(("value", "msg"), [
    ("osd_memory_target: 100MiB", "ceph.osd_memory_target: must be at least 896 MiB (Ceph's "
                                  "minimum), got 100 MiB"),
    ("osd_memory_target: 4GiX", "ceph.osd_memory_target"),
])
def test_bad_osd_memory_target_fails_the_cli_at_its_line(run_cli, tmp_path, value, msg):
    """Below Ceph's 896 MiB minimum, or not a size: exit 2, file:line:column, no traceback."""
    text = (ROOT / "scenarios" / "quickstart.yaml").read_text()
    lines = text.splitlines()
    n = next(i for i, ln in enumerate(lines) if ln.startswith("ceph:"))
    lines[n] = lines[n].rstrip().rstrip("}") + f", {value}}}"
    _fails_at(run_cli, tmp_path, "\n".join(lines) + "\n", n + 1, msg, "validate", "--set",
            "run.ios=100")


def test_unknown_read_cache_state_is_a_clear_error(run_cli):
    r = run_cli("run", ROOT / "scenarios" / "quickstart.yaml", "--set", "workload.read_cache=hot")
    assert r.exit_code == 2
    assert "--set workload.read_cache=hot: workload.read_cache: Input should be 'cold' or 'warm'" in r.stderr
    assert "Traceback" not in r.stderr + r.stdout


@pytest.mark.parametrize(("old", "new", "msg"), [
    ("      per_clock_speed: 1.0\n", "      per_clock_speed: 1.0\n      threads_per_core: 4\n",
     "threads_per_core: Input should be less than or equal to 2"),
    ("      per_clock_speed: 1.0\n", "      per_clock_speed: 1.0\n      smt_yield: 2.5\n",
     "smt_yield: Input should be less than or equal to 2"),
    ("    tuning: &tuning {max_cstate: POLL, governor: performance}\n",
     "    tuning: &tuning {max_cstate: POLL, governor: performance, smt: maybe}\n",
     "tuning.smt: Input should be a valid boolean"),
])
def test_bad_smt_settings_fail_the_cli_at_their_line(run_cli, tmp_path, old, new, msg):
    """4-way SMT (not modelled), an SMT yield above 2 (two threads cannot do more than
    two cores' work) and a non-boolean tuning.smt: exit 2, file:line, no traceback."""
    text = (TEST_SCENARIOS / "constant.yaml").read_text()
    assert old in text
    text = text.replace(old, new, 1)
    line = text[: text.index(new)].count("\n") + 1 + new.count("\n") - 1
    _fails_at(run_cli, tmp_path, text, line, msg)


def test_an_all_core_clock_above_boost_fails_the_cli_at_the_cpu(run_cli, tmp_path):
    """An inline CPU whose all-core clock lies outside [base, boost]: exit 2, the CPU's
    file:line, no traceback."""
    text = (TEST_SCENARIOS / "constant.yaml").read_text()
    old = "      per_clock_speed: 1.0\n"
    text = text.replace(old, old + "      all_core_clock: 1.5GHz\n", 1)
    line = text[: text.index("    cpu: &cpu")].count("\n") + 1
    _fails_at(run_cli, tmp_path, text, line,
              "all_core_clock must lie between base_clock and boost_clock")


@pytest.mark.parametrize(("osds", "msg"), [
    ("{count: 1, disk: pm9a3, db_devices: 2}", "db_devices: needs db_disk"),
    ("{count: 2, disk: generic-hdd-7200, db_disk: pm9a3, db_devices: 3}",
     "3 DB devices for 2 OSDs"),
    ("{count: 2, disk: generic-hdd-7200, db_disk: optane-p4800}", "optane-p4800x"),
    ("{count: 3, disk: pm9a3, per_device: 2}", "3 OSDs do not split evenly over drives of 2"),
    ("{count: 2, disk: pm9a3, per_device: 0}", "greater than or equal to 1"),
])
def test_bad_db_device_settings_fail_the_cli_at_their_line(run_cli, tmp_path, osds, msg):
    """DB devices without a DB model, more DB devices than OSDs, an unknown DB model (with
    the catalog's suggestion), OSDs that do not split evenly over their drives: exit 2,
    file:line, no traceback, nothing run."""
    text = (ROOT / "scenarios" / "quickstart.yaml").read_text()
    old = "osds: {count: 1, disk: pm9a3}"
    assert old in text
    text = text.replace(old, f"osds: {osds}", 1)
    line = text[: text.index("osds: {")].count("\n") + 1
    _fails_at(run_cli, tmp_path, text, line, msg, "run")


def test_set_into_a_catalog_entry_changes_that_figure_only():
    """--set hosts.osd.osds.disk.write_4k=... makes the named catalog drive an inline copy
    of itself with that one figure changed (and its source saying so); the other hosts and
    the catalog keep theirs."""
    from cephsim.api import load_resolved
    from cephsim.catalog.load import load_catalog

    qs = ROOT / "scenarios" / "quickstart.yaml"
    _, base = load_resolved(qs, [])
    sc, r = load_resolved(qs, ["hosts.osd.osds.disk.write_4k=200us"])
    disk = sc.hosts[0].osds.disk
    cat = load_catalog().get("disk", "pm9a3")
    assert not isinstance(disk, str) and "changed by --set" in disk.name
    assert disk.write_4k != cat.write_4k and disk.read_4k == cat.read_4k
    assert disk.sources["write_4k"].source.startswith("--set hosts.osd.osds.disk.write_4k=200us")
    assert disk.sources["read_4k"] == cat.sources["read_4k"]
    assert r.hosts[0].disk.write_4k != base.hosts[0].disk.write_4k
    # a default the file leaves out (the switch) can be changed the same way
    sc2, _ = load_resolved(qs, ["network.topology.switch.latency=5us"])
    assert "changed by --set" in sc2.network.topology.switch.name


def test_set_into_a_catalog_entry_that_does_not_exist_is_refused(run_cli):
    qs = str(ROOT / "scenarios" / "quickstart.yaml")
    r = run_cli("validate", qs, "--set", "hosts.osd.osds.disk=nope-drive",
                "--set", "hosts.osd.osds.disk.write_4k=1ms")
    assert r.exit_code == 2 and "no disk 'nope-drive' in the catalog" in r.output
