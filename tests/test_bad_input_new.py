"""Bad input to this release's features: each answered with a short located error (or
handled), never a traceback."""

from __future__ import annotations

import json

from conftest import ROOT, assert_short_error
from test_user_catalog import INLINE

QS = ROOT / "scenarios" / "quickstart.yaml"


def test_a_date_too_far_for_the_report_is_refused_before_the_run(run_cli, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "9" * 20)
    r = run_cli("run", QS, "--set", "run.ios=200", "-f", "json")
    assert_short_error(r, "SOURCE_DATE_EPOCH", "too far in the future")


def test_inline_base_errors_name_the_set_that_brought_them(tmp_path, run_cli):
    p = tmp_path / "s.yaml"
    p.write_text(INLINE)
    r = run_cli("validate", p, "--set", "hosts.0.osds.disk.base=nope")
    assert_short_error(r, "--set hosts.0.osds.disk.base=nope", "no disk 'nope'")
    assert f"{p}:" not in r.output  # not the file's valid base line
    r = run_cli("validate", p, "--set", "network.topology.switch={base: nope}")
    assert_short_error(r, "no switch 'nope'")  # not 'switche'
    for value in ("null", "[pm9a3]"):
        r = run_cli("validate", p, "--set", f"hosts.0.osds.disk.base={value}")
        assert_short_error(r, "base must be a catalog id (text)")
        assert "None" not in r.output and "['" not in r.output
    p.write_text(INLINE.replace("write_4k: 20us}", "write_4k: 20us, sources: 3}"))
    assert_short_error(run_cli("validate", p), f"{p}:7:", "hosts.0.osds.disk.sources",
                       "sources must map figure names")


def test_init_questions_take_no_nan_or_infinity():
    from cephsim.tools.init.ask import _number

    said: list[str] = []
    answers = iter(["nan", "inf", "1e400", "12"])
    got = _number(lambda prompt: next(answers), said.append, "cores per socket", 16, 1, 512,
                  True)
    assert got == 12
    assert said == ["'nan' is not a number", "'inf' is not a number",
                    "'1e400' is not a number"]


def test_compare_fio_reads_a_result_without_idle_states(tmp_path, run_cli):
    sim = tmp_path / "sim.json"
    assert run_cli("run", QS, "--set", "run.ios=300", "-f", "json", "-o", sim, "-q").exit_code == 0
    doc = json.loads(sim.read_text())
    for g in doc["cephsim"]["assumptions"]["host_groups"]:
        g["idle_states"] = []
    sim.write_text(json.dumps(doc))
    r = run_cli("compare-fio", sim, ROOT / "tests" / "fixtures" / "fio" /
                "randwrite4k_libaio_normal.txt")
    assert r.exit_code == 0 and "Traceback" not in r.output, r.output
    assert "no idle states" in r.stdout


def test_a_site_links_loss_is_blamed_on_that_link(run_cli):
    r = run_cli("validate", ROOT / "scenarios" / "stretch-two-sites.yaml", "--set",
                "sites.links.0.loss=35%")
    assert_short_error(r, "sites.links.0.loss:", "osd_heartbeat_grace")


def test_an_empty_fio_dir_is_refused(run_cli):
    r = run_cli("sweep", QS, "--set", "pool.size=2,3", "--set", "run.ios=200", "-q",
                "--fio-dir", "")
    assert_short_error(r, "--fio-dir: an empty name")


def test_a_ping_fit_whose_wire_outruns_the_latency_is_refused(tmp_path, run_cli):
    text = (ROOT / "tests" / "fixtures" / "ping" / "iputils_loopback_c5.txt").read_text()
    ping = tmp_path / "ping.txt"
    ping.write_text(text.replace("127.0.0.1", "10.0.0.2").replace("localhost", "host2"))
    r = run_cli("calibrate", "--network", ping, "--speed", "1Mbit/s", "-q")
    assert_short_error(r, f"{ping}:1:", "faster than --speed says")


def test_fio_dir_files_keep_their_seeds_and_a_swept_name_its_folder(tmp_path, run_cli):
    out = tmp_path / "fio"
    r = run_cli("sweep", QS, "--set", "name=a/b,c", "--set", "run.ios=200", "--seeds", "2",
                "-q", "--fio-dir", out)
    assert r.exit_code == 0, r.output
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.json"))
    # 'a/b' cannot be a folder: its '/' replaced, and the name's hash keeps it apart from 'a b'
    assert files == ["a_b-c14cddc0/4k/randwrite-1-1.json", "c/4k/randwrite-1-1.json"]
    r = run_cli("compare-fio", out / files[0], ROOT / "tests" / "fixtures" / "fio" /
                "randwrite4k_libaio_normal.txt", "-f", "json")
    sim = next(i for i in json.loads(r.stdout)["inputs"] if i["label"] == "simulated")
    assert sim["seeds"] == [1, 2]
