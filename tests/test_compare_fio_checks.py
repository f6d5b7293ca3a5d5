"""compare-fio compares like with like: the two files must describe the same job (rw, mix,
block size, queue depth, jobs; the simulated one a cephsim result), else a refusal naming
each difference (--force compares all the same); a different engine, sync mode or target is
compared with a warning naming it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import ROOT, assert_short_error

FIO = ROOT / "tests" / "fixtures" / "fio"
#: real fio 3.33: --ioengine=psync --fsync=1 on a local file (tests/fixtures/README.md)
PSYNC_FSYNC = FIO / "randwrite4k_psync_fsync_jsonplus_and_normal.out"
LIBAIO = FIO / "randwrite4k_libaio.json"


@pytest.fixture(scope="module")
def sim(tmp_path_factory) -> Path:
    """The quickstart simulated (librbd, 4 KiB random writes, queue depth 1), briefly."""
    from conftest import _invoke

    out = tmp_path_factory.mktemp("sim") / "sim.json"
    r = _invoke("run", ROOT / "scenarios" / "quickstart.yaml", "--set", "run.ios=200", "-q",
                "-f", "json", "-o", out)
    assert r.exit_code == 0, r.output
    return out


def _edited(tmp_path: Path, name: str = "m.json", **options: str) -> Path:
    """The real libaio job with some of its options changed, its results moved to the
    direction its rw names."""
    doc = json.loads(LIBAIO.read_text())
    job = doc["jobs"][0]
    job["job options"].update(options)
    if "read" in options.get("rw", "write"):
        job["read"], job["write"] = job["write"], job["read"]
    if "jobname" in options:
        job["jobname"] = options["jobname"]
    p = tmp_path / name
    p.write_text(json.dumps(doc))
    return p


def test_psync_fsync_on_a_local_file_against_rbd_names_every_difference(run_cli, sim):
    """The issue's -80.6 % 'without a word': now each difference is named, on stderr and in
    the notes, and the comparison still runs (the job itself, 4 KiB randwrite at qd 1, is
    the same)."""
    r = run_cli("compare-fio", sim, PSYNC_FSYNC, "-f", "json")
    assert r.exit_code == 0, r.output
    for words in ("ioengine: measured psync, simulated rbd (the scenario's client is rbd)",
                  "fsync=1 in the measurement: an fsync after every write",
                  "the measured job ran on /tmp/fiot/t1, not an RBD image or /dev/rbd device",
                  "direct=0"):
        assert f"warning: not like for like: {words}" in r.stderr, r.stderr
        assert any(words in n for n in r.json()["notes"])


def test_another_job_is_refused_naming_each_difference(tmp_path, run_cli, sim):
    """A 64k randread at queue depth 32 is another job: exit 2, every difference named;
    --force compares it, each difference then in the notes."""
    m = _edited(tmp_path, rw="randread", bs="64k", iodepth="32")
    r = run_cli("compare-fio", sim, m)
    assert_short_error(r, f"{m}:", "describe different jobs", "rw: measured randread, simulated "
                       "randwrite", "block size: measured 64k, simulated 4k",
                       "queue depth (iodepth): measured 32, simulated 1", "--force")
    m = _edited(tmp_path, bs="64KiB", numjobs="4")
    r = run_cli("compare-fio", sim, m, "--force", "-f", "json")
    assert r.exit_code == 0, r.output
    notes = " ".join(r.json()["notes"])
    assert "compared with --force: block size: measured 64KiB" in notes
    assert "jobs (numjobs): measured 4, simulated 1" in notes and "rw:" not in notes


def test_the_same_job_in_other_spellings_passes(tmp_path, run_cli, sim):
    """fio's 4096 and 4KiB are its 4k; a libaio job on /dev/rbd0 (krbd) gets the engine's
    warning only."""
    m = _edited(tmp_path, bs="4096", filename="/dev/rbd0")
    r = run_cli("compare-fio", sim, m)
    assert r.exit_code == 0, r.output
    assert "ioengine: measured libaio, simulated rbd" in r.stderr
    assert "not an RBD image" not in r.stderr and "block size" not in r.stderr


def test_a_measured_file_given_as_the_simulated_one_is_refused(run_cli, sim):
    assert_short_error(run_cli("compare-fio", LIBAIO, sim), "is not a cephsim result",
                       "the two files are swapped")
    assert_short_error(run_cli("compare-fio", LIBAIO, PSYNC_FSYNC), "is not a cephsim result",
                       "cephsim run -f json writes one")


def test_normal_output_is_checked_from_its_header_line(run_cli, sim):
    """fio's normal output names rw, bs, ioengine and iodepth on the job's first line; a
    randrw qd4 run is another job."""
    r = run_cli("compare-fio", sim, FIO / "randrw_2jobs_normal.txt")
    assert_short_error(r, "rw: measured randrw, simulated randwrite",
                       "queue depth (iodepth): measured 4, simulated 1")
    r = run_cli("compare-fio", sim, FIO / "randwrite4k_libaio_normal.txt")
    assert r.exit_code == 0 and "direct=0" not in r.stderr  # the header does not say


def test_a_job_name_with_an_escape_sequence_is_printed_escaped(tmp_path, run_cli, sim):
    m = _edited(tmp_path, jobname="evil\x1b[2Jname")
    r = run_cli("compare-fio", sim, m)
    assert r.exit_code == 0, r.output
    assert "\x1b" not in r.stdout and "evil\\x1b[2Jname" in r.stdout
