"""Comparisons: differences with confidence intervals and the stages behind them."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from cephsim.cli import app

ROOT = Path(__file__).resolve().parents[1]
QS = ROOT / "scenarios" / "quickstart.yaml"
FIO = ROOT / "tests" / "fixtures" / "fio"
runner = CliRunner()


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
    a, s = doc["sides"]
    d = s["mean_us"]["diff_from_first"]
    assert d["mean"] < 0 and d["ci"] is not None and d["ci"] > 0
    # the categories add up to each mean, so their differences add up to the difference
    assert abs(sum(a["critical_path_us"].values()) - a["mean_us"]["mean"]) < 0.01
    dcat = sum(s["critical_path_us"][c] - a["critical_path_us"][c] for c in a["critical_path_us"])
    assert abs(dcat - d["mean"]) < 0.01
    r = runner.invoke(app, args)
    assert r.exit_code == 0, r.output
    out = r.stdout
    assert "difference" in out and "±" in out and "comes from, along the critical path" in out
    assert "op-tracker stages" in out and "quickstart" in out and "qs-size2" in out


def test_compare_three_and_one_seed(tmp_path: Path) -> None:
    b = _variant(tmp_path, "qs-ondemand", "governor: performance}\n    nic: connectx5-25g\n    osds",
                 "governor: ondemand}\n    nic: connectx5-25g\n    osds")
    c = _variant(tmp_path, "qs-logoff", "debug_logging: default", "debug_logging: \"off\"")
    r = runner.invoke(app, ["compare", str(QS), str(b), str(c), "--set", "run.ios=600",
                            "--seeds", "1", "-q", "-j", "2"])
    assert r.exit_code == 0, r.output
    assert "difference B-A" in r.stdout and "difference C-A" in r.stdout
    assert "batch means" in r.stdout


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
    assert "where its mean latency goes" in out
    r = runner.invoke(app, ["compare-fio", str(sim), str(FIO / "randwrite4k_libaio.json"),
                            "-f", "json"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert doc["sides"][1]["mean_us"]["ci"] is not None  # fio JSON has N and stddev
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
