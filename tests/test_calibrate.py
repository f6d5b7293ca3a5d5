"""Calibration: case loading, parameters, a tiny parameter recovery, netfit, CLI."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cephsim.cli import app
from cephsim.errors import CephsimError
from cephsim.model.software import software_table
from cephsim.tools.calibrate.cases import Case, Target, load_case
from cephsim.tools.calibrate.fit import FitOptions, calibrate
from cephsim.tools.calibrate.netfit import netfit
from cephsim.tools.calibrate.objective import prepare, simulate
from cephsim.tools.calibrate.params import Param, parse_params, set_values

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "calibration" / "cases"
FIX = ROOT / "tests" / "fixtures"
runner = CliRunner()


def test_shipped_cases_load() -> None:
    c = load_case(CASES / "wido-2019.yaml")
    got = {t.stat: t.value for t in c.targets}
    assert got["lat.mean"] == pytest.approx(772_350)
    assert got["clat.p50"] == 734_000 and got["clat.p99"] == 1_745_000 and got["clat.p99.9"] == 4_752_000
    assert all(t.source for t in c.targets) and c.skip_reason is None
    m = load_case(CASES / "mako-reef.yaml")
    assert {t.stat for t in m.targets} == {"lat.mean", "clat.p99", "clat.p99.9"}
    s = load_case(CASES / "seed001-balanced.yaml")
    assert [(t.stat, t.value) for t in s.targets] == [("iops", 259.0)]
    q = load_case(CASES / "mako-reef-qd128.yaml")
    assert [(t.stat, t.value) for t in q.targets] == [("iops", 800_000.0)]
    assert q.skip_reason is None and q.direction == "write"


def _write(tmp: Path, text: str) -> Path:
    p = tmp / "case.yaml"
    p.write_text(text)
    return p


def test_case_errors(tmp_path: Path) -> None:
    scen = ROOT / "scenarios" / "wido-2019-nautilus.yaml"
    with pytest.raises(CephsimError, match="measurement file not found"):
        load_case(_write(tmp_path, f"scenario: {scen}\nmeasurements:\n"
                         "  - {file: nope.txt, source: x, stats: [lat.mean]}\n"))
    with pytest.raises(CephsimError, match="unknown statistic"):
        load_case(_write(tmp_path, f"scenario: {scen}\nmeasurements:\n"
                         "  - {values: {lat.median: 1ms}, source: x}\n"))
    with pytest.raises(CephsimError, match="source"):
        load_case(_write(tmp_path, f"scenario: {scen}\nmeasurements:\n  - {{values: {{lat.mean: 1ms}}}}\n"))
    with pytest.raises(CephsimError, match="no value for clat.p99.9"):
        load_case(
            _write(
                tmp_path,
                f"scenario: {scen}\nmeasurements:\n"
                f"  - {{file: {FIX / 'fio/seed001_tuned_write_lines.txt'}, source: x, stats: "
                f"[clat.p99.9]}}\n",
            )
        )
    with pytest.raises(CephsimError, match="only fio output"):
        load_case(
            _write(
                tmp_path,
                f"scenario: {scen}\nmeasurements:\n"
                f"  - {{file: {FIX / 'ping/iputils_loopback_c5.txt'}, source: x, stats: [lat.mean]}}\n",
            )
        )
    bad_dir = _write(tmp_path, f"scenario: {scen}\ndirection: mixed\nmeasurements:\n"
                     "  - {values: {lat.mean: 1ms}, source: x}\n")
    with pytest.raises(CephsimError, match="direction must be write or read"):
        load_case(bad_dir)
    r = runner.invoke(app, ["calibrate", str(bad_dir), "--fit", "scale"])
    assert r.exit_code == 2 and "direction must be write or read" in r.output
    with pytest.raises(CephsimError, match="no such case file"):
        load_case(tmp_path / "missing.yaml")
    # a missing scenario skips the case with its reason instead of failing
    c = load_case(_write(tmp_path, "scenario: not-there.yaml\nmeasurements:\n  - {values: {iops: "
                                   "100}, source: x}\n"))
    assert c.skip_reason and "not-there.yaml" in c.skip_reason


def test_params() -> None:
    ps = parse_params(
        ["scale,kernel.tcp_tx", "tails.kv_stall.median@reef"], ["nautilus", "reef"], shared=False
    )
    assert [p.label for p in ps] == ["scale@nautilus", "scale@reef",
            "kcycles.kernel.tcp_tx@nautilus",
                                     "kcycles.kernel.tcp_tx@reef", "tails.kv_stall.median@reef"]
    assert [p.label for p in parse_params(["scale"], ["nautilus", "reef"], shared=True)] == ["scale"]
    with pytest.raises(CephsimError, match="unknown parameter"):
        parse_params(["disk.latency"], ["reef"], shared=False)
    with pytest.raises(CephsimError, match="unknown release"):
        parse_params(["scale@bobtail"], ["reef"], shared=False)
    base = software_table().releases["reef"]
    c = set_values(base, {"scale": 2.0, "tails.kv_stall.median": 500_000.0, "kcycles.osd.do_op": 99.0})
    assert c.scale == 2.0 and c.kcycles["osd.do_op"] == 99.0
    assert c.tails.kv_stall.median == 500_000
    assert c.tails.kv_stall.shape == pytest.approx(base.tails.kv_stall.shape)


def test_parameter_recovery(tmp_path: Path) -> None:
    """Simulate with a known scale, treat the result as a measurement, fit, recover it."""
    scen = tmp_path / "tiny.yaml"
    scen.write_text((ROOT / "scenarios" / "quickstart.yaml").read_text()
                    .replace("run: {seed: 1, ios: "
                             "20000, ramp_ios: 500}", "run: {seed: 1, ios: 600, ramp_ios: 50}"))
    truth = software_table().releases["reef"].scale * 1.25
    case = Case(name="synthetic", path=tmp_path / "c.yaml", scenario_path=scen, overrides=[],
                direction="write", targets=[Target("lat.mean", 1.0, 0.02, "synthetic"),
                                            Target("clat.p50", 1.0, 0.03, "synthetic")])
    cm = prepare(case)
    meas = simulate(cm, {"scale": truth}, [7], 600)
    for t in case.targets:
        t.value = meas[t.stat]
    res = calibrate([case], [Param("scale", None)], FitOptions(seeds=1, seed0=7, ios=600, max_evals=12,
                                                               verify=False))
    got = res.params[0]
    assert got.value == pytest.approx(truth, rel=0.03)
    assert got.rel_sigma is not None and 0 < got.rel_sigma < 0.2


def test_netfit_loopback_fixture() -> None:
    fits, warn = netfit([FIX / "qperf" / "loopback_msgsize_sweep_tcp_lat.txt"])
    (f,) = fits
    assert len(f.points) == 6 and f.fixed_se is not None
    # the line passes between the measured points: fixed ~ 30 us, per byte small and positive
    assert 20_000 < f.fixed_ns < 40_000 and 0 < f.per_byte_ns < 1
    assert f.derived["kernel_stack_us_both_sides"] == pytest.approx(f.fixed_ns / 1e3, abs=1e-3)
    # a file whose qperf ran without -v has no message size: left out with a warning
    with pytest.raises(CephsimError, match="no qperf latency with a known message size"):
        netfit([FIX / "qperf" / "loopback_m4K_tcp_udp_lat.txt"])


def test_netfit_seed002() -> None:
    fits, _ = netfit([ROOT / "calibration" / "seed002" / "qperf-figures.yaml"], speed_bps=10e9)
    by = {f.group: f for f in fits}
    slow, fast = by["slowest (10G switch)"], by["fastest (25G switch)"]
    assert slow.per_byte_ns == pytest.approx((72712 - 11711) / 8999, rel=1e-9)
    assert fast.per_byte_ns == pytest.approx((38444 - 11711) / 8999, rel=1e-9)
    assert slow.derived["wire_per_byte_ns"] == pytest.approx(0.8)
    assert "tx_latency" in slow.derived
    with pytest.raises(CephsimError, match="two message sizes"):
        netfit([FIX / "qperf" / "seed002_tcp_lat_vv_uu.txt"])


def test_cli_network_and_errors(tmp_path: Path) -> None:
    r = runner.invoke(app, ["calibrate", "--network", str(FIX / "qperf" /
            "loopback_msgsize_sweep_tcp_lat.txt"),
                            "--format", "json"])
    assert r.exit_code == 0, r.output
    assert '"per_byte_ns"' in r.stdout
    r = runner.invoke(app, ["calibrate", str(CASES / "wido-2019.yaml"), "--fit", "nic.latency"])
    assert r.exit_code == 2 and "cephsim: error:" in r.output and "unknown parameter" in r.output
    r = runner.invoke(app, ["calibrate", str(tmp_path / "none.yaml")])
    assert r.exit_code == 2 and "no such case file" in r.output
    # a missing output directory is reported before the fit starts (nothing is written)
    r = runner.invoke(app, ["calibrate", str(CASES / "wido-2019.yaml"), "-o",
                            str(tmp_path / "missing" / "p.yaml")])
    assert r.exit_code == 2 and "output directory does not exist" in r.output
    assert "missing" in r.output and "eval" not in r.output and not (tmp_path / "missing").exists()
    sweeps = str(ROOT / "calibration" / "consumer-flush" / "sweeps.yaml")
    r = runner.invoke(app, ["calibrate", "--flush-sweeps", sweeps, sweeps])
    assert r.exit_code == 2 and "--flush-sweeps takes one sweep file" in r.output


def test_cli_fit_tiny(tmp_path: Path) -> None:
    """A tiny end-to-end fit through the CLI writes a loadable profile."""
    case = tmp_path / "mako.yaml"
    case.write_text((CASES / "mako-reef.yaml").read_text().replace(
        "../../scenarios/", str(ROOT / "scenarios") + "/"))
    out = tmp_path / "p.yaml"
    r = runner.invoke(app, ["calibrate", str(case), "--fit", "scale", "--seeds", "1", "--ios", "300",
                            "--max-evals", "3", "--verify-ios", "300", "-q", "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert "mako-reef" in r.stdout and "scale@reef" in r.stdout and out.exists()
    from cephsim.model.software import load_profile

    prof = load_profile(out)
    assert prof.release == "reef" and prof.scale is not None and math.isfinite(prof.scale)


def test_file_measurement_follows_the_case_direction(tmp_path: Path) -> None:
    """A read case compares the file's read statistics, a write case its write ones."""
    scen = ROOT / "scenarios" / "quickstart.yaml"
    fio = FIX / "fio" / "randrw_2jobs_normal.txt"  # job 0: read 19000 IOPS, write 8103 IOPS
    for direction, iops, lat_ns in (("read", 19000.0, 143390.0), ("write", 8103.0, 156600.0)):
        c = load_case(_write(tmp_path, f"scenario: {scen}\ndirection: {direction}\nmeasurements:\n"
                             f"  - {{file: {fio}, source: x, stats: [iops, lat.mean]}}\n"))
        assert c.direction == direction
        assert [(t.stat, t.value) for t in c.targets] == [("iops", iops), ("lat.mean", lat_ns)]


def test_cross_validation_labels_each_fitted_value(monkeypatch: pytest.MonkeyPatch) -> None:
    """With per-release parameters a fold reports every parameter it fitted under its own
    label (scale@nautilus and scale@reef are two values, not the left-out release's twice)."""
    from cephsim.tools.calibrate import crossval
    from cephsim.tools.calibrate.fit import ParamResult

    scen = ROOT / "scenarios" / "quickstart.yaml"
    cases = [Case(name=n, path=ROOT / f"{n}.yaml", scenario_path=scen, overrides=[f"ceph.release={rel}"],
                  direction="write", targets=[Target("lat.mean", 1.0, 0.02, "synthetic")])
             for n, rel in (("reef-a", "reef"), ("reef-b", "reef"), ("naut", "nautilus"))]
    fitted = {"scale@nautilus": 3.5, "scale@reef": 2.0}

    def fake_calibrate(train, use, opts):  # noqa: ANN001, ANN202 - stands in for the fit
        class R:
            params = [ParamResult(p.label, p.name, p.release, 1.0, fitted[p.label], None) for p in use]
        return R()

    seen: list[dict[str, float]] = []

    def fake_simulate(cm, values, seeds, ios, exact=True):  # noqa: ANN001, ANN202
        seen.append(dict(values))
        return {"lat.mean": 1.0}

    monkeypatch.setattr(crossval, "calibrate", fake_calibrate)
    monkeypatch.setattr(crossval, "simulate", fake_simulate)
    params = parse_params(["scale"], ["nautilus", "reef"], shared=False)
    folds, _ = crossval.cross_validate(cases, params, FitOptions(seeds=1, ios=200))
    by = {f.left_out: f for f in folds}
    assert by["reef-a"].params == fitted  # trained on reef-b and naut: both releases fitted
    assert by["naut"].params == {"scale@reef": 2.0} and by["naut"].unfitted == ["scale@nautilus"]
    # each left-out case is predicted with its own release's value
    assert seen == [{"scale": 2.0}, {"scale": 2.0}, {}]


def test_errors_are_simulated_minus_measured_over_measured() -> None:
    """The sign every report uses: a prediction above the measurement is a positive error."""
    from cephsim.tools.calibrate.corpus import Prediction
    from cephsim.tools.calibrate.crossval import Fold, cv_text
    from cephsim.tools.calibrate.objective import rel_error

    assert rel_error(1100.0, 1000.0) == pytest.approx(10.0)
    assert rel_error(900.0, 1000.0) == pytest.approx(-10.0)
    p = Prediction("c", "k", "reef", "lat.mean", 1000.0, 1250.0, 1100.0, 1400.0, 1.0, [])
    assert p.error == pytest.approx(25.0)
    fold = Fold("c", ["d"], {}, [], [("lat.mean", 400_000.0, 300_000.0,
                                      rel_error(300_000.0, 400_000.0))], {"lat.mean": "us"})
    text = cv_text([fold], [], [Param("scale", None)], FitOptions(seeds=1))
    assert "error (predicted - measured) / measured" in text
    assert "| lat.mean | 400 us | 300 us | -25.0% |" in text
