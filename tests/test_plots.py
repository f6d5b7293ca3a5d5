"""Figures render headless and produce non-empty PNG and SVG files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from cephsim.tools import plots  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
QS = str(ROOT / "scenarios" / "quickstart.yaml")


def _ok(p: Path, kind: str) -> None:
    assert p.exists() and p.stat().st_size > 1000
    head = p.read_bytes()[:200]
    assert head.startswith(b"\x89PNG") if kind == "png" else b"<svg" in p.read_bytes()[:2000]


@pytest.mark.parametrize("suffix", ["png", "svg"])
def test_latency_cdf_and_histogram(tmp_path: Path, suffix: str) -> None:
    rng = np.random.default_rng(1)
    lat = (rng.lognormal(np.log(330e3), 0.1, 3000)).astype(np.int64)
    p = plots.plot_latency(lat, tmp_path / f"lat.{suffix}", "synthetic")
    _ok(p, suffix)


def test_sweep_curves_and_latency_vs_iops(tmp_path: Path) -> None:
    from cephsim.tools.sweep import run_sweep

    res = run_sweep(QS, ["workload.iodepth=1,4,16", "run.ios=500", "run.ramp_ios=50"], seeds=2,
                    jobs=2)
    _ok(plots.plot_sweep(res, tmp_path / "qd.png"), "png")
    res2 = run_sweep(QS, ["pool.size=1,2", "ceph.debug_logging=default,off", "run.ios=500"],
                     seeds=1, jobs=2)
    _ok(plots.plot_sweep(res2, tmp_path / "grid.svg"), "svg")


def test_waterfall_and_cli_plot(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from cephsim.cli import app

    r = CliRunner().invoke(app, ["explain", QS, "--set", "run.ios=600", "--no-ablations", "-q",
                                 "--plot", str(tmp_path / "op.svg"), "--latency-plot",
                                 str(tmp_path / "lat.png")])
    assert r.exit_code == 0, r.output
    _ok(tmp_path / "op.svg", "svg")
    _ok(tmp_path / "lat.png", "png")
    r = CliRunner().invoke(app, ["sweep", QS, "--set", "pool.size=2,3", "--set", "run.ios=500",
                                 "-q", "-j", "1", "--plot", str(tmp_path / "s.png")])
    assert r.exit_code == 0, r.output
    _ok(tmp_path / "s.png", "png")
    r = CliRunner().invoke(app, ["sweep", QS, "--set", "pool.size=2,3", "--plot",
                                 str(tmp_path / "s.txt")])
    assert r.exit_code == 2 and ".png, .svg" in r.stderr


def test_monitor_state_vs_rtt(tmp_path: Path) -> None:
    _ok(plots.plot_mon_rtt([1, 400], tmp_path / "mon.png", duration="10min"), "png")


def test_sweep_error_bars_stop_at_zero_and_are_counted() -> None:
    """A 3-seed t-interval of p99.9 can reach below zero: the bar stops at zero, the
    upper half is kept, and the cut is counted for the plot's subtitle."""
    from cephsim.tools.plots import _bars

    cut: list[float] = []
    lower, upper = _bars([772.0, 528.0], [1044.0, None], 1.0, cut)
    assert lower == [772.0, 0.0] and upper == [1044.0, 0.0] and cut == [772.0]


def test_explain_plot_labels_name_osds_and_leave_hosts_alone(tmp_path, monkeypatch):
    """Row labels come from the model's names: OSD 0's threads as osd.0.*, a client thread
    on a host named osd0 as osd0.job0.*, and the network rows as host->host (the old string
    edit turned 'osd0->osd1' into 'osd.0->osd1' and the client's rows into 'osd.0.job0')."""
    from cephsim.tools.explain import explain

    figs: list = []
    monkeypatch.setattr(plots, "_save", lambda fig, path: figs.append(fig) or Path(path))
    ex = explain(ROOT / "scenarios" / "quickstart.yaml", ["run.ios=300", "workload.clients=[osd0]"])
    plots.plot_waterfall(ex, tmp_path / "x.png")
    labels = [t.get_text() for t in figs[0].axes[0].get_yticklabels()]
    assert any(lb.startswith("osd0.job0.") for lb in labels), labels
    assert not any(lb.startswith("osd.0.job") for lb in labels), labels
    assert any(lb.startswith("osd.0.msgr") for lb in labels), labels
    assert any("->" in lb and not lb.startswith("osd.") for lb in labels), labels
