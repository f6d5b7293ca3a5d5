"""A user catalog (--catalog DIR, CEPHSIM_CATALOG): new entries, 'base:' entries, shadowing
a shipped id only when said, used by run, sweep and catalog."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import ROOT, assert_short_error

from cephsim.catalog import load as catload

QS = ROOT / "scenarios" / "quickstart.yaml"

DISKS = """\
our-pm9a3:
  base: pm9a3
  name: "our PM9A3 batch: slower flush"
  flush: {dist: constant, value: 20us}
measured-drive:
  name: "a drive we measured ourselves"
  interface: nvme
  media: flash
  plp: true
  parallelism: 8
  write_4k: 20us
  flush: 2us
  read_4k: 90us
  write_bandwidth: 2GB/s
  read_bandwidth: 3GB/s
"""
CPUS = """\
capped-7313p:
  base: epyc-7313p
  name: "EPYC 7313P, boost capped at 3.2 GHz"
  boost_clock: 3.2GHz
  all_core_clock: 3.2GHz
"""


@pytest.fixture(autouse=True)
def _restore_catalog():
    """--catalog sets CEPHSIM_CATALOG in this process (for sweep's workers): put it back."""
    old = os.environ.get(catload.ENV)
    yield
    if old is None:
        os.environ.pop(catload.ENV, None)
    else:
        os.environ[catload.ENV] = old
    catload.reset()


@pytest.fixture
def ucat(tmp_path: Path):
    d = tmp_path / "cat"
    d.mkdir()
    (d / "disks.yaml").write_text(DISKS)
    (d / "cpus.yaml").write_text(CPUS)
    return d


def test_base_entries_change_only_what_they_give(ucat, monkeypatch):
    monkeypatch.setenv(catload.ENV, str(ucat))
    catload.reset()
    c = catload.load_catalog()
    ours, shipped = c.disks["our-pm9a3"], c.disks["pm9a3"]
    assert ours.flush.mean_ns == 20_000 and ours.write_4k == shipped.write_4k
    assert "flush" not in ours.sources and ours.sources["write_4k"] == shipped.sources["write_4k"]
    assert c.cpus["capped-7313p"].boost_clock_hz == 3.2e9
    assert c.cpus["capped-7313p"].cores == c.cpus["epyc-7313p"].cores
    assert c.disks["measured-drive"].sources == {}


def test_run_sweep_and_catalog_use_it(ucat, run_cli):
    over = ["--set", "hosts.0.osds.disk=our-pm9a3", "--set", "hosts.0.cpu=capped-7313p"]
    r = run_cli("--catalog", ucat, "run", QS, *over, "--set", "run.ios=300", "-f", "json")
    assert r.exit_code == 0, r.stderr
    assert r.json()["cephsim"]["power"]["osd"]["mean_clock_ghz"] == pytest.approx(3.2, abs=0.01)
    r = run_cli("--catalog", ucat, "sweep", QS, "--set", "hosts.0.osds.disk=measured-drive,our-pm9a3",
                "--set", "run.ios=200", "-f", "json", "-q")
    assert r.exit_code == 0, r.stderr
    assert len(json.loads(r.stdout)["points"]) == 2
    r = run_cli("--catalog", ucat, "catalog", "disks", "measured-drive")
    assert r.exit_code == 0 and "given by the user" in r.stdout
    # --set into a figure of a user entry
    r = run_cli("--catalog", ucat, "run", QS, "--set", "hosts.0.osds.disk=our-pm9a3",
                "--set", "hosts.0.osds.disk.read_4k=70us", "--set", "run.ios=200")
    assert r.exit_code == 0, r.stderr


def test_shadowing_a_shipped_entry_must_be_said(tmp_path, run_cli, monkeypatch):
    d = tmp_path / "cat"
    d.mkdir()
    (d / "disks.yaml").write_text("pm9a3:\n  base: pm9a3\n  name: mine\n")
    r = run_cli("--catalog", d, "run", QS, "--set", "run.ios=100")
    assert_short_error(r, "disks.yaml", "pm9a3", "shadow: true")
    (d / "disks.yaml").write_text("pm9a3:\n  shadow: true\n  base: pm9a3\n  name: mine\n")
    r = run_cli("--catalog", d, "catalog", "disks", "pm9a3")
    assert r.exit_code == 0 and "mine" in r.stdout


@pytest.mark.parametrize("text,message", [
    ("x:\n  base: no-such-drive\n", "base: no disk 'no-such-drive'"),
    ("x: [1, 2]\n", "an entry is a mapping"),
    ("x:\n  name: y\n  bogus: 1\n", "x.bogus"),
    ("- a\n", "top level must be a mapping"),
])
def test_bad_user_entries_are_located(tmp_path, run_cli, monkeypatch, text, message):
    d = tmp_path / "cat"
    d.mkdir()
    (d / "disks.yaml").write_text(text)
    r = run_cli("--catalog", d, "catalog", "disks")
    assert_short_error(r, message)


INLINE = """\
name: inline-base
hosts:
  - name: osd
    count: 3
    cpu: {base: epyc-7313p, boost_clock: 3.2GHz, all_core_clock: 3.2GHz}
    nic: connectx5-25g
    osds: {count: 1, disk: {base: pm9a3, write_4k: 20us}}
  - name: client
    count: 1
    cpu: epyc-7313p
    nic: connectx5-25g
pool: {size: 3}
ceph: {release: reef}
workload: {rw: randwrite, bs: 4KiB, iodepth: 1}
run: {ios: 300, ramp_ios: 20}
"""


def test_an_inline_entry_can_start_from_a_catalog_one(tmp_path, run_cli):
    """'disk: {base: pm9a3, write_4k: 20us}' in a scenario is the PM9A3 with a slower write:
    every other figure and its source from the catalog, the changed one the user's own."""
    from cephsim.api import load_resolved
    from cephsim.catalog.load import load_catalog

    p = tmp_path / "s.yaml"
    p.write_text(INLINE)
    sc, r = load_resolved(p)
    disk, ref = r.hosts[0].disk, load_catalog().disks["pm9a3"]
    assert disk.write_4k.value == 20_000 and disk.read_4k == ref.read_4k
    assert disk.parallelism == ref.parallelism and disk.flush == ref.flush
    assert "write_4k" not in disk.sources and "read_4k" in disk.sources
    assert "catalog pm9a3, changed" in disk.name
    cpu = r.hosts[0].cpu
    assert cpu.model.boost_clock_hz == 3.2e9 and cpu.model.cores == 16
    r = run_cli("run", p, "-q")
    assert r.exit_code == 0, r.output
    bad = tmp_path / "bad.yaml"
    bad.write_text(INLINE.replace("base: pm9a3", "base: pm9a4"))
    r = run_cli("validate", bad)
    assert_short_error(r, f"{bad}:7:", "hosts.0.osds.disk.base", "no disk 'pm9a4'")
