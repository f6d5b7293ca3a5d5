"""Comparisons: differences with confidence intervals and the stages behind them, in text,
JSON and markdown, with one sign: other - baseline (simulated - measured for compare-fio)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cephsim import __version__
from cephsim.cli import app

ROOT = Path(__file__).resolve().parents[1]
QS = ROOT / "scenarios" / "quickstart.yaml"
FIO = ROOT / "tests" / "fixtures" / "fio"
GOLDEN = ROOT / "tests" / "golden"
SIM_RW = FIO / "cephsim_quickstart_randrw_qd4.json"  # cephsim run output, trimmed (README)
MEAS_RW = FIO / "randrw_2jobs_group_reporting_json_and_normal.out"
runner = CliRunner()


def _check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("CEPHSIM_REGEN_GOLDEN") == "1":
        path.write_text(text)
    assert path.exists(), f"missing golden {path}; run with CEPHSIM_REGEN_GOLDEN=1"
    assert text == path.read_text()


def _variant(tmp_path: Path, name: str, old: str, new: str) -> Path:
    text = QS.read_text()
    assert old in text
    p = tmp_path / f"{name}.yaml"
    p.write_text(text.replace(old, new).replace("name: quickstart", f"name: {name}"))
    return p


def test_compare_two_scenarios(tmp_path: Path) -> None:
    b = _variant(tmp_path, "qs-size2", "pool: {size: 3", "pool: {size: 2")
    args = ["compare", str(QS), str(b), "--set", "run.ios=600", "--set", "run.ramp_ios=50",
            "--seeds", "2", "-q", "-j", "2"]
    r = runner.invoke(app, [*args, "-f", "json"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert doc["baseline"] == "A" and list(doc["directions"]) == ["write"]
    w = doc["directions"]["write"]
    mean = next(m for m in w["metrics"] if m["metric"] == "mean_us")
    d = mean["differences"]["B"]
    assert d["of"] == "B - A" and d["difference"] < 0 and d["ci"] is not None and d["ci"] > 0
    a_mean, b_mean = mean["values"]["A"]["mean"], mean["values"]["B"]["mean"]
    assert d["change_percent"] == pytest.approx(100 * (b_mean - a_mean) / a_mean, abs=2e-3)
    # the categories add up to each mean, so their differences add up to the difference
    cp = w["critical_path_us"]
    assert abs(sum(cp["A"].values()) - a_mean) < 0.01
    assert abs(sum(cp["B"][c] - cp["A"][c] for c in cp["A"]) - d["difference"]) < 0.01
    # bandwidth is IOPS x 4 KiB
    iops = next(m for m in w["metrics"] if m["metric"] == "iops")["values"]["A"]["mean"]
    bw = next(m for m in w["metrics"] if m["metric"] == "bw_mib_s")["values"]["A"]["mean"]
    assert bw == pytest.approx(iops * 4096 / 2**20, rel=1e-3)
    r = runner.invoke(app, args)
    assert r.exit_code == 0, r.output
    out = r.stdout
    assert "B - A" in out and "(% of A)" in out and "±" in out
    assert "comes from, along the critical path" in out and "A (baseline) = quickstart" in out
    assert "op-tracker stages" in out and "quickstart" in out and "qs-size2" in out
    # markdown: the same numbers as the JSON, a table per direction
    r = runner.invoke(app, [*args, "-f", "markdown"])
    assert r.exit_code == 0, r.output
    md = r.stdout
    assert md.startswith("# cephsim compare: qs-size2 against quickstart\n")
    assert "## write" in md and "## read" not in md
    assert "| metric | A: quickstart | B: qs-size2 | B - A | change (B - A) / A |" in md
    row = next(ln for ln in md.splitlines() if ln.startswith("| mean latency (us) |"))
    assert row.split(" | ")[-1] == f"{d['change_percent']:+.1f} % |"


def test_compare_three_and_one_seed(tmp_path: Path) -> None:
    b = _variant(tmp_path, "qs-ondemand", "governor: performance}\n    nic: connectx5-25g\n    osds",
                 "governor: ondemand}\n    nic: connectx5-25g\n    osds")
    c = _variant(tmp_path, "qs-logoff", "debug_logging: default", "debug_logging: \"off\"")
    r = runner.invoke(app, ["compare", str(QS), str(b), str(c), "--set", "run.ios=600",
                            "--seeds", "1", "-q", "-j", "2"])
    assert r.exit_code == 0, r.output
    assert "B - A" in r.stdout and "C - A" in r.stdout and "for X = B, C" in r.stdout
    assert "batch means" in r.stdout
    assert "…" not in r.stdout  # wider lines rather than cut figures


def test_compare_errors_before_running(tmp_path: Path) -> None:
    r = runner.invoke(app, ["compare", str(QS), str(tmp_path / "missing.yaml")])
    assert r.exit_code == 2 and "missing.yaml: no such file" in r.stderr
    r = runner.invoke(app, ["compare", str(QS)])
    assert r.exit_code == 2 and "at least two" in r.stderr


def test_compare_fio_simulated_vs_measured(tmp_path: Path) -> None:
    sim = tmp_path / "sim.json"
    r = runner.invoke(app, ["run", str(ROOT / "scenarios" / "wido-2019-nautilus.yaml"), "--set",
                            "run.ios=1000", "-f", "json", "-o", str(sim)])
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["compare-fio", str(sim), str(FIO / "seed000_wido2019_normal.txt")])
    assert r.exit_code == 0, r.output
    out = r.stdout
    assert "IOPS" in out and "1,292" in out and "772.4" in out and "p99.9" in out
    assert "where its write mean latency goes" in out
    assert "simulated - measured" in out and "(% of measured)" in out
    r = runner.invoke(app, ["compare-fio", str(sim), str(FIO / "randwrite4k_libaio.json"),
                            "-f", "json"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    mean = next(m for m in doc["directions"]["write"]["metrics"] if m["metric"] == "mean_us")
    assert mean["values"]["measured"]["ci"] is not None  # fio JSON has N and stddev
    r = runner.invoke(app, ["compare-fio", str(sim), str(ROOT / "pyproject.toml")])
    assert r.exit_code == 2
    assert "gives no" not in runner.invoke(
        app, ["compare-fio", str(sim), str(FIO / "seed000_wido2019_normal.txt")]).stdout
    # a measured file cut inside its percentile table: the '-' cells are explained
    text = (FIO / "randwrite4k_libaio_normal.txt").read_text()
    cut = tmp_path / "cut.txt"
    cut.write_text(text[:text.index("99.00th")])
    r = runner.invoke(app, ["compare-fio", str(sim), str(cut)])
    assert r.exit_code == 0, r.output
    assert "cut.txt gives no p99, p99.9 for writes" in " ".join(r.stdout.split())


# ------------------------------------------------------------ markdown reports and the sign

_NUM = re.compile(r"^[+-]?[\d,]+(?:\.(\d+))?")


def _md_tables(md: str) -> dict[str, dict[str, list[str]]]:
    """direction -> metric title -> the row's cells, from the per-direction tables."""
    out: dict[str, dict[str, list[str]]] = {}
    direction = None
    for ln in md.splitlines():
        if ln.startswith("## ") and ln != "## Notes":
            direction = ln[3:]
            out[direction] = {}
        elif ln == "## Notes":
            direction = None
        elif ln.startswith("### "):
            direction = None  # the breakdown tables below a direction's table
        elif direction and ln.startswith("| ") and not ln.startswith("| metric"):
            cells = [c.strip() for c in ln.strip("|").split(" | ")]
            out[direction][cells[0]] = cells[1:]
    return out


def _agrees(cell: str, value: float | None) -> bool:
    """A shown figure is the JSON's, rounded to the decimals shown."""
    if value is None:
        return cell == "-"
    m = _NUM.match(cell)
    assert m, cell
    half = 0.5 * 10 ** -len(m.group(1) or "")
    return abs(float(m.group(0).replace(",", "")) - value) <= half + 1e-9


def _md_agrees_with_json(md: str, doc: dict) -> None:
    tables = _md_tables(md)
    assert list(tables) == list(doc["directions"])
    labels = [i["label"] for i in doc["inputs"]]
    for direction, body in doc["directions"].items():
        for row in body["metrics"]:
            unit = f" ({row['unit']})" if row["unit"] else ""
            cells = tables[direction][row["label"] + unit]
            cells = list(reversed(cells))
            for lab in labels:
                assert _agrees(cells.pop(), row["values"][lab]["mean"]), (direction, row, lab)
                if lab == doc["baseline"]:
                    continue
                d = row["differences"][lab]
                assert _agrees(cells.pop(), d["difference"]), (direction, row, lab)
                pct = cells.pop()
                assert pct == ("-" if d["change_percent"] is None
                               else f"{d['change_percent']:+.1f} %"), (direction, row, lab)


#: canned per-seed results (IOPS, mean us, critical path us by category, stages) per scenario
#: and direction: A's writes 990/1000/1010 IOPS at 500 us, B's 1190/1200/1210 at 400 us
#: (all from less CPU work); reads the same IOPS, B 25 us slower on its disk.
_CANNED = {
    "A": {"write": ([990, 1000, 1010], 500.0, (50, 300, 10, 100, 40),
                    {"submit -> initiated": 40.0, "waiting for subops -> op_commit": 200.0}),
          "read": ([1980, 2000, 2020], 250.0, (25, 150, 5, 60, 10),
                   {"submit -> initiated": 30.0, "reached_pg -> commit_sent": 100.0})},
    "B": {"write": ([1190, 1200, 1210], 400.0, (50, 200, 10, 100, 40),
                    {"submit -> initiated": 30.0, "waiting for subops -> op_commit": 120.0}),
          "read": ([1980, 2000, 2020], 275.0, (25, 150, 5, 85, 10),
                   {"submit -> initiated": 30.0, "reached_pg -> commit_sent": 125.0})},
}


def _fake_execute(tasks, **_kw):
    out = []
    for t in tasks:
        side = _CANNED["A" if "quickstart" in t.scenario else "B"]
        k = t.seed - 1  # seeds 1, 2, 3
        by = {}
        for d, (iops, mean, cats, stages) in side.items():
            assert abs(sum(cats) - mean) < 1e-9  # as in a real run: the categories add up
            by[d] = {"iops": iops[k], "bw_bytes": iops[k] * 4096.0, "mean_us": mean,
                     "p50_us": 0.9 * mean, "p99_us": 1.5 * mean, "p999_us": 2.0 * mean,
                     "ios": 1000, "batch_means_us": [],
                     "acc_sum_ns": [c * 1e3 * 1000 for c in cats],
                     "breakdown": {"op_tracker_us": stages}}
        out.append({"seed": t.seed, **by["write"], "by_direction": by})
    return out


def test_compare_markdown_golden_and_sign(monkeypatch: pytest.MonkeyPatch) -> None:
    """Canned runs instead of simulations (the report, not the model, is under test): the
    numbers can be checked by hand and the golden file does not move with the model."""
    import cephsim.tools.compare as compare_mod

    monkeypatch.setattr(compare_mod, "execute", _fake_execute)  # where compare calls it
    monkeypatch.chdir(ROOT)  # relative paths in the report
    args = ["compare", "scenarios/quickstart.yaml", "tests/scenarios/constant.yaml", "--set",
            "workload.rw=randrw", "-q"]
    r = runner.invoke(app, [*args, "-f", "markdown"])
    assert r.exit_code == 0, r.output
    md = r.stdout.replace(__version__, "VERSION")
    _check_golden("compare_randrw.md", md)
    t = _md_tables(md)
    # B - A = +200 IOPS: Welch over 3 seeds each (s = 10): t(4 df) 2.776 x 8.165 = 22.7
    assert t["write"]["IOPS"] == ["1,000 ± 25", "1,200 ± 25", "+200 ± 23", "+20.0 %"]
    assert t["write"]["mean latency (us)"][2:] == ["-100.0 ± 0.0", "-20.0 %"]
    assert t["read"]["mean latency (us)"][2:] == ["+25.0 ± 0.0", "+10.0 %"]
    # reads: no change, s = 20 IOPS = 0.078 MiB/s: 2.776 x 0.0638 = 0.177
    assert t["read"]["bandwidth (MiB/s)"][2:] == ["+0.00 ± 0.18", "+0.0 %"]
    assert "| CPU work | 300.0 | 200.0 | -100.0 | 100.0 % |" in md
    assert "| disk | 60.0 | 85.0 | +25.0 | 100.0 % |" in md
    r = runner.invoke(app, [*args, "-f", "json"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert [i["seeds"] for i in doc["inputs"]] == [[1, 2, 3], [1, 2, 3]]
    assert doc["overrides"] == ["workload.rw=randrw"]
    _md_agrees_with_json(md, doc)
    iops = doc["directions"]["write"]["metrics"][0]["differences"]["B"]
    assert iops["difference"] == 200.0 and iops["change_percent"] == 20.0
    r = runner.invoke(app, args)
    assert r.exit_code == 0, r.output
    assert "+200 ± 23 (+20.0%)" in r.stdout and "-100.0 ± 0.0 (-20.0%)" in r.stdout


def test_compare_refuses_scenarios_without_a_shared_direction(tmp_path: Path) -> None:
    b = _variant(tmp_path, "qs-read", "rw: randwrite", "rw: randread")
    r = runner.invoke(app, ["compare", str(QS), str(b)])
    assert r.exit_code == 2 and "share no direction" in r.stderr
    assert f"{QS} write" in r.stderr and f"{b} read" in r.stderr


def test_compare_fio_markdown_golden(monkeypatch: pytest.MonkeyPatch) -> None:
    """A stored cephsim randrw result against a real fio randrw run: a table per direction."""
    monkeypatch.chdir(ROOT)
    # the measurement ran 2 jobs (group_reporting), the simulation 1: --force compares them,
    # the difference named in the notes
    args = ["compare-fio", str(SIM_RW.relative_to(ROOT)), str(MEAS_RW.relative_to(ROOT)),
            "--force"]
    r = runner.invoke(app, [*args, "-f", "markdown"])
    assert r.exit_code == 0, r.output
    md = r.stdout
    _check_golden("compare_fio_randrw.md", md)
    assert md.startswith("# cephsim compare-fio: simulated against measured\n")
    assert "| measured (baseline) | mixed |" in md and "| simulated | quickstart |" in md
    assert "## write" in md and "## read" in md
    r = runner.invoke(app, [*args, "-f", "json"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert doc["baseline"] == "measured" and doc["inputs"][1]["seeds"] == [1]
    assert doc["convention"]["change_percent"] == "100 * (other - measured) / measured"
    _md_agrees_with_json(md, doc)
    # --direction keeps one table
    r = runner.invoke(app, [*args, "-f", "markdown", "--direction", "read"])
    assert r.exit_code == 0 and "## read" in r.stdout and "## write" not in r.stdout


def _measured_fio(path: Path, direction: str = "write") -> Path:
    """A hand-made fio JSON result: 1000 IOPS (4 KiB), lat mean 400 us, clat p50 380 us."""
    block = {"io_bytes": 4096 * 3000, "bw_bytes": 4096000, "iops": 1000.0, "runtime": 3000,
             "total_ios": 3000,
             "clat_ns": {"min": 100000, "max": 2000000, "mean": 390000, "stddev": 50000,
                         "N": 3000, "percentile": {"50.000000": 380000, "99.000000": 600000,
                                                   "99.900000": 900000}},
             "lat_ns": {"min": 110000, "max": 2010000, "mean": 400000, "stddev": 50000,
                        "N": 3000}}
    path.write_text(json.dumps({"fio version": "fio-3.33", "jobs": [
        {"jobname": "hand-made", "groupid": 0, direction: block}]}))
    return path


def test_compare_fio_sign_on_a_hand_made_measurement(tmp_path: Path) -> None:
    """Simulated IOPS above a measured 1000: the change is positive, and it is
    (simulated - measured) / measured, whichever way the files are named."""
    meas = _measured_fio(tmp_path / "measured.json")
    sim = json.loads(SIM_RW.read_text())["jobs"][0]["write"]
    sim_iops, sim_lat_us = sim["iops"], sim["lat_ns"]["mean"] / 1e3
    want_iops = 100 * (sim_iops - 1000) / 1000
    want_lat = 100 * (sim_lat_us - 400) / 400
    assert want_iops > 0 and want_lat < 0  # the fixture: more IOPS, lower latency than 1000/400
    r = runner.invoke(app, ["compare-fio", str(SIM_RW), str(meas), "-f", "json"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert list(doc["directions"]) == ["write"]  # the measurement has no reads
    rows = {m["metric"]: m for m in doc["directions"]["write"]["metrics"]}
    assert rows["iops"]["values"]["measured"]["mean"] == 1000.0
    assert rows["iops"]["differences"]["simulated"]["difference"] == pytest.approx(
        sim_iops - 1000, abs=1e-3)
    assert rows["iops"]["differences"]["simulated"]["change_percent"] == pytest.approx(
        want_iops, abs=1e-3)
    assert rows["mean_us"]["differences"]["simulated"]["change_percent"] == pytest.approx(
        want_lat, abs=1e-3)
    assert rows["bw_mib_s"]["values"]["measured"]["mean"] == pytest.approx(4096000 / 2**20,
                                                                             abs=1e-3)
    assert any("also has read results" in n for n in doc["notes"])
    r = runner.invoke(app, ["compare-fio", str(SIM_RW), str(meas)])
    assert f"({want_iops:+.1f}%)" in r.stdout and f"({want_lat:+.1f}%)" in r.stdout
    r = runner.invoke(app, ["compare-fio", str(SIM_RW), str(meas), "-f", "markdown"])
    assert f"| {want_iops:+.1f} % |" in r.stdout
    # the second file is the baseline: swapped, the hand-made file is the 'simulated' one,
    # which it is not (no cephsim object): refused, compared with --force
    r = runner.invoke(app, ["compare-fio", str(meas), str(SIM_RW), "-f", "json"])
    assert r.exit_code == 2 and "the two files are swapped" in r.stderr
    r = runner.invoke(app, ["compare-fio", str(meas), str(SIM_RW), "-f", "json", "--force"])
    rows = {m["metric"]: m for m in json.loads(r.stdout)["directions"]["write"]["metrics"]}
    assert rows["iops"]["differences"]["simulated"]["change_percent"] == pytest.approx(
        100 * (1000 - sim_iops) / sim_iops, abs=1e-3)


def test_compare_fio_without_a_shared_direction(tmp_path: Path) -> None:
    reads = _measured_fio(tmp_path / "reads.json", "read")
    r = runner.invoke(app, ["compare-fio", str(FIO / "randwrite4k_libaio.json"), str(reads),
                            "--force"])
    assert r.exit_code == 2 and f"{reads}:1: no direction in common" in r.stderr
    assert "this measurement has read" in r.stderr and "has write" in r.stderr
    r = runner.invoke(app, ["compare-fio", str(SIM_RW), str(reads), "--direction", "write"])
    assert r.exit_code == 2 and f"{reads}:1: no write results" in r.stderr


def test_compare_fio_ignores_a_broken_breakdown(tmp_path: Path) -> None:
    """An edited 'cephsim' object: the figures still compare, without the breakdown."""
    doc = json.loads(SIM_RW.read_text())
    doc["cephsim"]["breakdown"]["write"]["critical_path_us"]["cpu"] = "lots"
    doc["cephsim"]["seed"] = True
    sim = tmp_path / "sim.json"
    sim.write_text(json.dumps(doc))
    r = runner.invoke(app, ["compare-fio", str(sim), str(MEAS_RW), "-f", "markdown", "--force"])
    assert r.exit_code == 0, r.output
    assert "### write: where" not in r.stdout and "### read: where" in r.stdout
    assert f"| simulated | quickstart | `{sim}` | - |" in r.stdout


def test_compare_fio_mean_is_lat_or_says_what_it_is(run_cli, tmp_path: Path) -> None:
    """fio's lat is slat + clat per I/O: a file without lat (disable_lat) has the same mean
    from slat's and clat's; without slat too, clat's mean is all there is, and the notes say
    which it is (not "mean = fio lat avg" over a clat figure)."""
    src = FIO / "randwrite4k_libaio.json"  # write: slat 21128.5, clat 66107.9, lat 87236.3 ns
    doc = json.loads(src.read_text())
    del doc["jobs"][0]["write"]["lat_ns"]
    (tmp_path / "no_lat.json").write_text(json.dumps(doc))
    del doc["jobs"][0]["write"]["slat_ns"]
    (tmp_path / "no_slat.json").write_text(json.dumps(doc))
    seen = {}
    for name in ("no_lat.json", "no_slat.json"):
        r = run_cli("compare-fio", src, tmp_path / name, "-f", "json", "--force")
        assert r.exit_code == 0, r.stderr
        out = json.loads(r.stdout)
        w = out["directions"]["write"]
        mean = next(m for m in w["metrics"] if m["metric"] == "mean_us")["values"]
        assert mean["simulated"]["mean"] == pytest.approx(87.236, abs=1e-3)  # lat avg
        seen[name] = (mean["measured"]["mean"], w["mean_of"]["measured"], " ".join(out["notes"]))
    assert seen["no_lat.json"][:2] == (pytest.approx(21.128 + 66.108, abs=1e-3), "slat + clat")
    assert "no_lat.json has no lat for writes: its mean is slat + clat's" in seen["no_lat.json"][2]
    assert seen["no_slat.json"][:2] == (pytest.approx(66.108, abs=1e-3), "clat")
    assert ("no_slat.json has no lat for writes: its mean is clat's (the I/O less its "
            "submission" in seen["no_slat.json"][2])
    assert "randwrite4k_libaio.json has no lat" not in seen["no_lat.json"][2]
