"""Calibration: case loading, parameters, a tiny parameter recovery, netfit, CLI."""

from __future__ import annotations

import json
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
    assert [(t.stat, t.value) for t in q.targets] == [("iops", 800_000.0), ("cpu.osd_host", 66.0)]
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
    # one qperf message size (1 B): the fixed part only, less the wire's 0.8 ns/B at 10 Gbit/s
    (one,), _ = netfit([FIX / "qperf" / "seed002_tcp_lat_vv_uu.txt"], speed_bps=10e9)
    assert one.per_byte_ns is None and one.pinned == ["fixed"]
    assert one.fixed_ns == pytest.approx(11711 - 0.8)
    assert one.derived["per_byte_ns"] is None and "excess_per_byte_ns" not in one.derived


# ------------------------------------------------------------------ netfit from ping

PING = FIX / "ping"


def _ping(tmp_path: Path, name: str, size: int, times_ms: list[float],
          host: str = "10.0.200.1") -> Path:
    """An iputils ping output with these reply times (the summary from them)."""
    p = tmp_path / name
    lines = [f"PING {host} ({host}) {size}({size + 28}) bytes of data."]
    lines += [f"{size + 8} bytes from {host}: icmp_seq={i} ttl=64 time={t:.3f} ms"
              for i, t in enumerate(times_ms, 1)]
    avg = sum(times_ms) / len(times_ms)
    lines += ["", f"--- {host} ping statistics ---",
              f"{len(times_ms)} packets transmitted, {len(times_ms)} received, 0% packet loss",
              f"rtt min/avg/max/mdev = {min(times_ms):.3f}/{avg:.3f}/{max(times_ms):.3f}/0.010 ms"]
    p.write_text("\n".join(lines) + "\n")
    return p


def test_netfit_ping_one_size_pins_the_fixed_part_only() -> None:
    """A plain ping (56 B): half the mean round trip of the replies after the first."""
    (f,), warn = netfit([PING / "iputils_loopback_c5.txt"])
    assert warn == [] and f.group == "ping 127.0.0.1" and f.pinned == ["fixed"]
    # replies 0.832 (left out: the first), 0.061, 0.008, 0.019, 0.018 ms -> 26.5 us / 2
    assert f.fixed_ns == pytest.approx(13_250) and f.per_byte_ns is None
    assert f.fixed_se is None and f.derived["kernel_stack_us_both_sides"] == 13.25
    assert any("per-byte part is not measured" in n for n in f.notes)
    assert any("ICMP echo path" in n for n in f.notes)  # loopback: no NIC figures
    (b,), _ = netfit([PING / "busybox_loopback_c5.txt"])
    assert b.fixed_ns == pytest.approx((81 + 77 + 77 + 75) / 4 / 2 * 1e3)


def test_netfit_ping_two_sizes_pin_both_parts() -> None:
    fits, _ = netfit([PING / "iputils_loopback_c5.txt", PING / "iputils_loopback_s4096_c3.txt"])
    (f,) = fits
    assert f.pinned == ["fixed", "per_byte"] and f.sizes == [56, 4096]
    # 13.25 us at 56 B, (0.049 + 0.045) / 2 / 2 ms = 23.5 us at 4096 B
    assert f.per_byte_ns == pytest.approx((23_500 - 13_250) / (4096 - 56))
    assert f.fixed_ns == pytest.approx(13_250 - 56 * f.per_byte_ns)
    assert f.derived["per_kib_us"] == pytest.approx(f.per_byte_ns * 1.024, abs=1e-3)


def test_netfit_ping_remote_with_speed(tmp_path: Path) -> None:
    """One size with --speed: the wire's 0.8 ns/B at 10 Gbit/s is taken out of the fixed
    part; the NIC entry is what is left after kernel and switch.  Hosts are groups."""
    a = _ping(tmp_path, "a.txt", 56, [0.400, 0.060, 0.060])
    b = _ping(tmp_path, "b.txt", 56, [0.500, 0.080, 0.080], host="10.0.200.2")
    fits, _ = netfit([a, b], speed_bps=10e9, kernel_ns=3000, switch_ns=500)
    by = {f.group: f for f in fits}
    f = by["ping 10.0.200.1"]
    assert f.fixed_ns == pytest.approx(30_000 - 0.8 * 56)
    assert f.derived["nic_tx_plus_rx_us"] == pytest.approx((30_000 - 44.8 - 3000 - 500) / 1e3,
                                                           abs=1e-3)
    assert any("ICMP path" in n for n in f.notes) and any("upper bound" in n for n in f.notes)
    assert by["ping 10.0.200.2"].fixed_ns == pytest.approx(40_000 - 44.8)
    # runs of one size in one file: their mean, with its standard error
    two = tmp_path / "two.txt"
    two.write_text(a.read_text() + "\n" + _ping(tmp_path, "c.txt", 56, [0.4, 0.07, 0.07])
                   .read_text())
    (g,), _ = netfit([two])
    assert g.fixed_ns == pytest.approx(32_500) and g.fixed_se == pytest.approx(2_500)


def test_netfit_ping_and_qperf_are_separate_lines() -> None:
    fits, _ = netfit([PING / "iputils_loopback_c5.txt",
                      FIX / "qperf" / "loopback_msgsize_sweep_tcp_lat.txt"])
    assert sorted(f.group for f in fits) == ["ping 127.0.0.1", "tcp_lat"]


def test_cli_network_ping(tmp_path: Path) -> None:
    r = runner.invoke(app, ["calibrate", "--network", str(PING / "iputils_loopback_c5.txt")])
    assert r.exit_code == 0, r.output
    assert "ping 127.0.0.1: one-way latency = 13.250 us + per-byte part not measured" in r.stdout
    assert "ping round trip / 2" in r.stdout
    r = runner.invoke(app, ["calibrate", "--network", str(PING / "iputils_loopback_c5.txt"),
                            str(PING / "iputils_loopback_s4096_c3.txt"), "-f", "json"])
    assert r.exit_code == 0, r.output
    (f,) = json.loads(r.stdout)["fits"]
    assert f["pinned"] == ["fixed", "per_byte"] and f["sizes_bytes"] == [56, 4096]
    assert f["measured_as"] == "ping round trip / 2" and f["per_byte_ns"] > 0
    # a usable run and a summary without its header: the fit, and a located warning
    mixed = tmp_path / "mixed.txt"
    mixed.write_text((PING / "iputils_loopback_c5.txt").read_text()
                     + "rtt min/avg/max/mdev = 0.010/0.020/0.030/0.005 ms\n")
    r = runner.invoke(app, ["calibrate", "--network", str(mixed)])
    assert r.exit_code == 0, r.output
    assert f"warning: {mixed}:11: a ping summary without its" in r.stdout


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


def test_osd_cpu_statistic_is_the_osds_cpu_summed_per_host(tmp_path: Path) -> None:
    """cpu.osd_host: a plain number of logical CPUs, compared with the OSD daemons' CPU of
    the run summed per OSD host (the run's cpu_cores, by hand), in fit reports as CPUs."""
    scen = ROOT / "scenarios" / "quickstart.yaml"
    c = load_case(_write(tmp_path, f"scenario: {scen}\nmeasurements:\n"
                         "  - {values: {iops: 3000, cpu.osd_host: 0.5}, source: x}\n"))
    assert [(t.stat, t.value, t.unit) for t in c.targets] == [("iops", 3000.0, "IOPS"),
                                                              ("cpu.osd_host", 0.5, "CPUs")]
    assert c.targets[1].sigma == 0.10
    cm = prepare(c)
    from cephsim.model.runner import run_scenario

    sim = simulate(cm, {}, [1], 1000, exact=False)
    r = cm.resolved.with_run(ios=1000, runtime=None)
    res = run_scenario(r.scenario, scenario_path=scen, seed=1, resolved=r)
    osds = res.cpu_cores["osds"]
    hosts = set(res.resolved.osd_host.values())
    assert len(hosts) == 3 and len(osds) == 3  # quickstart: three hosts of one OSD each
    assert sim["cpu.osd_host"] == pytest.approx(sum(osds.values()) / 3)
    assert 0.05 < sim["cpu.osd_host"] < 2.0
    for bad, msg in (("'40'", "plain number of logical CPUs"), ("-3", "finite number > 0")):
        with pytest.raises(CephsimError, match=msg):
            load_case(_write(tmp_path, f"scenario: {scen}\nmeasurements:\n"
                             f"  - {{values: {{cpu.osd_host: {bad}}}, source: x}}\n"))
    fio = FIX / "fio" / "randrw_2jobs_normal.txt"
    with pytest.raises(CephsimError, match="no value for cpu.osd_host"):
        load_case(_write(tmp_path, f"scenario: {scen}\nmeasurements:\n"
                         f"  - {{file: {fio}, source: x, stats: [cpu.osd_host]}}\n"))


def test_the_vitastor_saturation_cases_carry_iops_and_osd_cpu() -> None:
    for name, rw in (("vitastor-octopus-t8q64-write", "write"), ("vitastor-octopus-t8q64-read", "read"),
                     ("vitastor-octopus-ec-t4q128-write", "write"),
                     ("vitastor-octopus-ec-t8q64-read", "read")):
        c = load_case(CASES / f"{name}.yaml")
        assert c.corpus == "load" and c.cluster == "vitastor-octopus" and c.direction == rw
        assert {t.stat for t in c.targets} == {"iops", "cpu.osd_host"} and c.skip_reason is None
