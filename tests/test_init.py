"""``cephsim init``: real command outputs (tests/fixtures/init, sources in its SOURCE.md)
become a scenario that validates and runs; bad collections are located errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import ROOT, assert_short_error

from cephsim.tools.init.build import match_cpu, match_disk, match_nic

FIXTURES = ROOT / "tests" / "fixtures" / "init"


def test_parts_match_the_catalog_by_what_they_report():
    assert match_cpu("AMD EPYC 7313P 16-Core Processor")[0] == "epyc-7313p"
    assert match_cpu("Intel(R) Xeon(R) Gold 6242 CPU @ 2.80GHz")[0] == "xeon-6242"
    assert match_cpu("Intel(R) Xeon(R) CPU E5-2683 v4 @ 2.10GHz")[0] == "xeon-e5-2683v4"
    assert match_cpu("Intel(R) Xeon(R) Platinum 8480+")[0] == "xeon-8480plus"
    assert match_cpu("Ampere(R) Altra(R) Processor Q80-30")[0] is None
    assert match_disk("SAMSUNG MZQL23T8HCLS-00A07") == "pm9a3"
    assert match_disk("INTEL SSDSC2KB480G8") == "s4510-480g"
    assert match_disk("no such drive") is None
    assert match_nic("mlx5_core", 25000) == "connectx5-25g"
    assert match_nic("virtio_net", None) == "virtio-net-vhost-25g"


def _write(d: Path, name: str, text: str) -> Path:
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_text(text)
    return d


def test_an_empty_directory(tmp_path, run_cli):
    (tmp_path / "empty").mkdir()
    r = run_cli("init", "--from", tmp_path / "empty", "--yes")
    assert_short_error(r, "no files in it")


def test_truncated_osd_metadata_is_located(tmp_path, run_cli):
    d = _write(tmp_path / "c", "meta.json", '[{"id": 0, "hostname": "a",\n "cpu": "AMD EPYC')
    r = run_cli("init", "--from", d, "--yes")
    assert_short_error(r, "meta.json:2:", "not valid JSON")


@pytest.mark.parametrize("name,text", [
    ("df.json", '{"stats": {"total_bytes": 1}, "pools": []}\n'),   # ceph df -f json
    ("free.txt", "              total        used\nMem:  1 2\n"),  # free
])
def test_output_of_another_command(tmp_path, run_cli, name, text):
    d = _write(tmp_path / "c", name, text)
    r = run_cli("init", "--from", d, "--yes")
    assert_short_error(r, name, "not the output of a command cephsim init reads")


def test_no_osd_hosts_among_the_files(tmp_path, run_cli):
    d = _write(tmp_path / "c", "ping.txt", "rtt min/avg/max/mdev = 0.1/0.2/0.3/0.01 ms\n")
    r = run_cli("init", "--from", d, "--yes")
    assert_short_error(r, "needs one of them")


def test_osd_metadata_without_hostnames(tmp_path, run_cli):
    d = _write(tmp_path / "c", "m.json", '[{"id": 0, "osd_objectstore": "bluestore"}]')
    r = run_cli("init", "--from", d, "--yes")
    assert_short_error(r, "m.json", "no hostname")


def test_every_matching_rule_names_a_catalog_entry():
    from cephsim.catalog.load import load_catalog
    from cephsim.tools.init.build import _rules

    c, r = load_catalog(), _rules()
    assert all(x["id"] in c.disks for x in r["disks"])
    assert all(x["id"] in c.nics for x in r["nics"])


@pytest.mark.parametrize("cluster", ["cluster-a", "cluster-b"])
def test_real_outputs_become_a_scenario_that_validates_and_runs(tmp_path, run_cli, cluster):
    """cluster-a: a real Octopus cluster's osd metadata, tree, pools, versions, lscpu (a KVM
    guest), ethtool (virtio), with cpupower, config dump and nvme list from other
    postings; cluster-b: one Luminous OSD's metadata alone (an unlisted Sandy Bridge CPU,
    an HDD with no model).  Both: neither CPU is in the catalog."""
    out = tmp_path / "s.yaml"
    r = run_cli("init", "--from", FIXTURES / cluster, "-o", out, "--yes")
    assert r.exit_code == 0, r.stderr
    text = out.read_text()
    assert "ASSUMED" in text and "not in the catalog" in text
    assert run_cli("validate", out).exit_code == 0
    r = run_cli("run", out, "--set", "run.ios=300")
    assert r.exit_code == 0, r.stderr
    assert "I/Os measured" in r.stdout


def test_what_cluster_a_says_is_what_the_scenario_says(tmp_path, run_cli):
    from cephsim.scenario.load import load_scenario

    out = tmp_path / "s.yaml"
    run_cli("init", "--from", FIXTURES / "cluster-a", "-o", out, "--yes")
    sc = load_scenario(out)
    osd = sc.hosts[0]
    assert osd.count == 3 and osd.osds.count == 1                   # ceph osd tree
    assert sc.ceph.release == "octopus" and sc.ceph.version == "15.2.14"  # ceph versions
    assert sc.pool.size == 3                                         # pool ls detail
    assert osd.vm is not None and osd.nic == "virtio-net-vhost-25g"  # lscpu, ethtool -i
    assert osd.cpu.microarch == "skylake"                            # 'Skylake, IBRS'
    assert osd.tuning.governor == "performance"                      # cpupower
    assert "cephsim init: ASSUMED" in run_cli("init", "--from", FIXTURES / "cluster-a",
                                              "--yes").stderr


def test_a_ping_between_hosts_is_read_by_the_ping_reader(tmp_path, run_cli):
    """The ping file goes through the same reader as `cephsim inspect` (units included)."""
    import shutil

    d = tmp_path / "c"
    shutil.copytree(FIXTURES / "cluster-a", d)
    (d / "ping.txt").write_text("rtt min/avg/max/mdev = 0.112/0.131/0.150/0.010 ms\n")
    r = run_cli("init", "--from", d, "--yes")
    assert r.exit_code == 0, r.stderr
    assert "ping between hosts: avg 131 us" in r.stderr
