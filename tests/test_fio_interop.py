"""fio interoperability: a sweep's per-point fio JSON in the tree fio-plot reads, the job
options fio would list, the job thread's CPU use, the report's time."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import ROOT, TEST_SCENARIOS
from typer.testing import CliRunner

from cephsim.cli import app

QS = str(ROOT / "scenarios" / "quickstart.yaml")
CONSTANT = str(TEST_SCENARIOS / "constant.yaml")
SMALL = ["--set", "run.ios=300", "--set", "run.ramp_ios=30"]
runner = CliRunner()


def _invoke(args: list[str], env: dict[str, str] | None = None):
    return runner.invoke(app, [str(a) for a in args], env=env)


# --------------------------------------------------------------------------- fio-plot's view
def read_like_fio_plot(folder: Path, rw: str, iodepths: list[int], numjobs: list[int],
                       side: str | None = None) -> list[dict]:
    """What fio-plot's JSON import takes from one folder (``fio-plot -i FOLDER -r RW -d ...
    -n ...``), written from the keys and the file naming it reads, not from its code:

    - every ``*.json`` directly in the folder that parses and has at least two of the
      top-level keys ``fio version``, ``global options``, ``client_stats``, ``jobs``;
    - the first job's ``job options``, with ``global options`` laid over them, must hold
      ``rw``, ``iodepth`` and ``numjobs``: ``rw`` the one asked for, ``iodepth`` and
      ``numjobs`` (integers in strings) in the lists asked for;
    - per job: the direction read for the pattern (randread/read: ``read``,
      randwrite/write: ``write``, a mixed one: the side asked for), the options' iodepth,
      numjobs, bs and rw, the direction's ``bw``, ``iops``, ``iops_stddev``,
      ``lat_ns`` ``mean`` and ``stddev``, the job's ``latency_ns/us/ms``, ``usr_cpu``,
      ``sys_cpu``; the jobs of one file as one row (iops and bw added, lat averaged);
    - rows sorted by (iodepth, numjobs).
    The files are also expected to be named as bench-fio names them,
    ``<rw>-<iodepth>-<numjobs>.json`` (fio-plot's log import depends on that naming).
    """
    direction = {"randread": "read", "read": "read", "randwrite": "write", "write": "write"}
    rows = []
    for f in sorted(folder.glob("*.json")):
        doc = json.loads(f.read_text())
        tops = {"fio version", "global options", "client_stats", "jobs"}
        assert len(tops & set(doc)) >= 2, f
        glob_opts = doc.get("global options", {})
        opts = {**doc["jobs"][0]["job options"], **glob_opts}
        if not {"rw", "iodepth", "numjobs"} <= set(opts) or opts["rw"] != rw:
            continue
        if int(opts["iodepth"]) not in iodepths or int(opts["numjobs"]) not in numjobs:
            continue
        assert f.name == f"{opts['rw']}-{opts['iodepth']}-{opts['numjobs']}.json"
        mode = direction.get(rw, side)
        jobs = []
        for job in doc["jobs"]:
            o = {**job["job options"], **glob_opts}
            d = job[mode]
            jobs.append({"iodepth": int(o["iodepth"]), "numjobs": int(o["numjobs"]),
                         "bs": o["bs"], "rw": o["rw"], "bw": d["bw"], "iops": d["iops"],
                         "iops_stddev": d["iops_stddev"], "lat": d["lat_ns"]["mean"],
                         "lat_stddev": d["lat_ns"]["stddev"], "latency_ms": job["latency_ms"],
                         "latency_us": job["latency_us"], "latency_ns": job["latency_ns"],
                         "cpu_usr": job["usr_cpu"], "cpu_sys": job["sys_cpu"],
                         "options": o, "file": f})
        row = dict(jobs[0])
        row["iops"] = sum(j["iops"] for j in jobs)
        row["bw"] = sum(j["bw"] for j in jobs)
        row["lat"] = sum(j["lat"] for j in jobs) / len(jobs)
        rows.append(row)
    return sorted(rows, key=lambda r: (r["iodepth"], r["numjobs"]))


def test_a_sweep_is_read_as_fio_plot_reads_bench_fio_output(tmp_path: Path) -> None:
    """iodepth x numjobs, two seeds: one file per point where bench-fio puts it; read as
    fio-plot reads them, each point has its iodepth, numjobs and rw, the IOPS of all its
    seeds' I/Os over all their run time and the mean latency of all of them (from the
    sweep's own per-seed figures), and the fio thread's CPU use."""
    out = tmp_path / "sim"
    r = _invoke(["sweep", QS, "--set", "workload.iodepth=1,2", "--set", "workload.numjobs=1,2",
                 *SMALL, "--seeds", "2", "-j", "2", "-f", "json", "-q", "--fio-dir", out])
    assert r.exit_code == 0, r.output
    sweep = json.loads(r.stdout)
    folder = out / "quickstart" / "4k"
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()) == [
        f"quickstart/4k/randwrite-{d}-{n}.json" for d in (1, 2) for n in (1, 2)]
    rows = read_like_fio_plot(folder, "randwrite", [1, 2], [1, 2])
    assert [(x["iodepth"], x["numjobs"]) for x in rows] == [(1, 1), (1, 2), (2, 1), (2, 2)]
    assert read_like_fio_plot(folder, "randread", [1, 2], [1, 2]) == []
    assert len(read_like_fio_plot(folder, "randwrite", [2], [1, 2])) == 2
    for row, pt in zip(rows, sweep["points"], strict=True):
        assert pt["settings"] == {"workload.iodepth": str(row["iodepth"]),
                                  "workload.numjobs": str(row["numjobs"]), "run.ios": "300",
                                  "run.ramp_ios": "30"}
        assert (row["rw"], row["bs"]) == ("randwrite", "4k")
        ios, iops = pt["ios_per_run"], pt["iops"]["values"]
        seconds = sum(n / v for n, v in zip(ios, iops, strict=True))
        runtime_ms = int(seconds * 1000)  # fio divides by whole milliseconds
        assert row["iops"] == pytest.approx(sum(ios) / seconds, rel=2 / runtime_ms)
        mean_ns = sum(n * m * 1000 for n, m in zip(ios, pt["mean_us"]["values"], strict=True))
        assert row["lat"] == pytest.approx(mean_ns / sum(ios), abs=1.0)  # us to 3 decimals
        assert row["cpu_usr"] > row["cpu_sys"] > 0  # rbd: librbd is fio's user space
        assert sum(row["latency_us"].values()) + sum(row["latency_ms"].values()) == \
            pytest.approx(100.0, abs=0.05)
        assert ("group_reporting" in row["options"]) == (row["numjobs"] > 1)
        doc = json.loads(row["file"].read_text())
        assert doc["cephsim"]["seeds"] == [1, 2]
        assert doc["jobs"][0]["write"]["total_ios"] == sum(ios)


def test_a_point_of_one_seed_is_the_run_itself(tmp_path: Path) -> None:
    """With one seed, a point's file holds exactly the job `cephsim run` reports for it."""
    out = tmp_path / "sim"
    r = _invoke(["sweep", QS, "--set", "workload.iodepth=1,4", *SMALL, "-q", "-j", "1",
                 "--fio-dir", out])
    assert r.exit_code == 0, r.output
    run = _invoke(["run", QS, "--set", "workload.iodepth=4", *SMALL, "-f", "json", "-q"])
    assert run.exit_code == 0, run.output
    doc = json.loads((out / "quickstart" / "4k" / "randwrite-4-1.json").read_text())
    assert doc["jobs"] == json.loads(run.stdout)["jobs"]


def test_mixed_patterns_and_other_axes_get_their_folders(tmp_path: Path) -> None:
    """randrw goes to <rw><rwmixread>/<bs>, as bench-fio writes a mix; an axis the tree does
    not name files by (pool.size) names the target folder, so its points stay apart."""
    out = tmp_path / "sim"
    r = _invoke(["sweep", QS, "--set", "workload.rw=randwrite,randrw", "--set",
                 "workload.rwmixread=70", "--set", "pool.size=2,3", *SMALL, "-q", "-j", "2",
                 "--fio-dir", out])
    assert r.exit_code == 0, r.output
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.json"))
    assert files == ["quickstart,pool.size=2/4k/randwrite-1-1.json",
                     "quickstart,pool.size=2/randrw70/4k/randrw-1-1.json",
                     "quickstart,pool.size=3/4k/randwrite-1-1.json",
                     "quickstart,pool.size=3/randrw70/4k/randrw-1-1.json"]
    folder = out / "quickstart,pool.size=3" / "randrw70" / "4k"
    reads = read_like_fio_plot(folder, "randrw", [1], [1], side="read")[0]
    writes = read_like_fio_plot(folder, "randrw", [1], [1], side="write")[0]
    assert reads["options"]["rwmixread"] == "70"
    assert reads["iops"] / (reads["iops"] + writes["iops"]) == pytest.approx(0.7, abs=0.08)
    assert reads["lat"] < writes["lat"]  # a replicated write waits for the replicas
    w2 = read_like_fio_plot(out / "quickstart,pool.size=2" / "4k", "randwrite", [1], [1])[0]
    w3 = read_like_fio_plot(out / "quickstart,pool.size=3" / "4k", "randwrite", [1], [1])[0]
    assert w2["lat"] < w3["lat"]


def test_points_that_would_share_a_file_are_refused_before_running(tmp_path: Path,
                                                                   monkeypatch) -> None:
    import cephsim.tools.sweep as sweep

    def no_run(*a, **k):
        raise AssertionError("the sweep ran")

    monkeypatch.setattr(sweep, "execute", no_run)
    out = tmp_path / "sim"
    r = _invoke(["sweep", QS, "--set", "workload.bs=4k,4KiB", *SMALL, "-q", "--fio-dir", out])
    assert r.exit_code == 2 and "Traceback" not in r.output
    assert "would both be written to quickstart/4k/randwrite-1-1.json" in r.output
    assert not out.exists()


def test_a_fio_dir_that_cannot_be_one_is_refused_before_running(tmp_path: Path,
                                                                 monkeypatch) -> None:
    import cephsim.tools.sweep as sweep

    monkeypatch.setattr(sweep, "execute", lambda *a, **k: pytest.fail("the sweep ran"))
    f = tmp_path / "file"
    f.write_text("keep")
    r = _invoke(["sweep", QS, *SMALL, "-q", "--fio-dir", f])
    assert r.exit_code == 2 and "is not a directory" in r.output and f.read_text() == "keep"
    blocked = tmp_path / "sim" / "quickstart" / "4k" / "randwrite-1-1.json"
    blocked.mkdir(parents=True)
    r = _invoke(["sweep", QS, *SMALL, "-q", "--fio-dir", tmp_path / "sim"])
    assert r.exit_code == 2 and "is not a regular file" in r.output
    r = _invoke(["sweep", QS, *SMALL, "-q", "--fio-dir", tmp_path / "x"],
                env={"SOURCE_DATE_EPOCH": "soon"})
    assert r.exit_code == 2 and "SOURCE_DATE_EPOCH" in r.output and not (tmp_path / "x").exists()


def test_the_fio_dir_is_created_and_timestamped(tmp_path: Path) -> None:
    out = tmp_path / "new" / "deeper"
    r = _invoke(["sweep", CONSTANT, "--set", "workload.iodepth=1,2", "-q", "-j", "1",
                 "--fio-dir", out], env={"SOURCE_DATE_EPOCH": "1700000000"})
    assert r.exit_code == 0, r.output
    for d in (1, 2):
        doc = json.loads((out / "constant" / "4k" / f"randwrite-{d}-1.json").read_text())
        assert (doc["timestamp"], doc["time"]) == (1_700_000_000, "Tue Nov 14 22:13:20 2023")


# --------------------------------------------------------------------------- job options
def test_run_lists_the_options_a_fio_command_line_would_give(run_cli) -> None:
    r = run_cli("run", QS, "--set", "workload.rw=randrw", "--set", "workload.rwmixread=70",
                "--set", "workload.numjobs=2", "--set", "run.ios=null", "--set",
                "run.runtime=150ms", "--set", "run.ramp_time=20ms", "-f", "json", "-q")
    assert r.exit_code == 0, r.output
    job = r.json()["jobs"][0]
    assert job["job options"] == {"name": "quickstart", "rw": "randrw", "rwmixread": "70",
                                  "bs": "4k", "ioengine": "rbd", "iodepth": "1",
                                  "numjobs": "2", "time_based": "1", "runtime": "150ms",
                                  "ramp_time": "20ms", "group_reporting": "1"}
    assert 100 < job["job_runtime"] <= 150  # the measured time is job_runtime, not an option
    # a number of I/Os with a runtime: whichever comes first ends it, as fio's runtime with
    # a size, so the run is not time based; a plain I/O count is no fio option at all
    both = run_cli("run", QS, "--set", "run.runtime=2s", *SMALL, "-f", "json", "-q").json()
    assert both["jobs"][0]["job options"]["runtime"] == "2"
    assert "time_based" not in both["jobs"][0]["job options"]
    plain = run_cli("run", QS, *SMALL, "-f", "json", "-q").json()["jobs"][0]["job options"]
    assert list(plain) == ["name", "rw", "bs", "ioengine", "iodepth", "numjobs"]


# --------------------------------------------------------------------------- CPU
@pytest.mark.parametrize(("engine", "busy_us", "sys_us"), [
    ("rbd", 8 + 5 + 3, 3),  # submit + reap in librbd (user), the wake-up (kernel)
    ("rados", 8 + 8 + 5 + 3, 3),  # the Objecter runs in fio's thread too
    ("krbd", 8 + 5 + 3, 8 + 5 + 3),  # io_submit, io_getevents: system calls
])
def test_cpu_is_the_fio_thread_busy_time(run_cli, engine: str, busy_us: int,
                                         sys_us: int) -> None:
    """The constant scenario: 1 kcycle = 1 us, no jitter, no idle-state exits.  At one I/O
    in flight the fio thread works busy_us per I/O, whose latency (submit to reap) is the
    whole cycle: usr + sys = busy / latency, the kernel's share sys_us / busy_us."""
    r = run_cli("run", CONSTANT, "--set", f"workload.engine={engine}", "-f", "json", "-q")
    assert r.exit_code == 0, r.output
    job = r.json()["jobs"][0]
    usr, sys_ = job["usr_cpu"], job["sys_cpu"]
    lat_us = job["write"]["lat_ns"]["mean"] / 1000
    assert usr + sys_ == pytest.approx(100 * busy_us / lat_us, rel=1e-4)
    assert sys_ / (usr + sys_) == pytest.approx(sys_us / busy_us, rel=1e-4)
    text = run_cli("run", CONSTANT, "--set", f"workload.engine={engine}", "-q").stdout
    assert f"cpu          : usr={usr:3.2f}%, sys={sys_:3.2f}%," in text


def test_cpu_of_several_jobs_is_their_mean(run_cli) -> None:
    """fio adds the jobs' CPU times and run times: two jobs each as busy as one alone."""
    one = run_cli("run", CONSTANT, "-f", "json", "-q").json()["jobs"][0]
    two = run_cli("run", CONSTANT, "--set", "workload.numjobs=2", "-f", "json", "-q").json()
    two = two["jobs"][0]
    per = two["write"]["lat_ns"]["mean"] / one["write"]["lat_ns"]["mean"]
    total = one["usr_cpu"] + one["sys_cpu"]
    assert two["usr_cpu"] + two["sys_cpu"] == pytest.approx(total / per, rel=0.02)


# --------------------------------------------------------------------------- time
def test_run_json_is_stamped_now_or_at_source_date_epoch(run_cli, tmp_path: Path) -> None:
    import time

    before = int(time.time())
    doc = run_cli("run", CONSTANT, "-f", "json", "-q").json()
    assert before <= doc["timestamp"] <= time.time()
    assert doc["timestamp_ms"] // 1000 == doc["timestamp"]
    assert re.fullmatch(r"\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}", doc["time"])
    r = _invoke(["run", CONSTANT, "-f", "json", "-q"], env={"SOURCE_DATE_EPOCH": "86400"})
    assert json.loads(r.stdout)["time"] == "Fri Jan  2 00:00:00 1970"
    out = tmp_path / "r.json"
    r = _invoke(["run", CONSTANT, "-f", "json", "-q", "-o", out],
                env={"SOURCE_DATE_EPOCH": "tomorrow"})
    assert r.exit_code == 2 and "SOURCE_DATE_EPOCH='tomorrow'" in r.output
    assert not out.exists()
