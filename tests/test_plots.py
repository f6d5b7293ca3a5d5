"""Figures: what they show, read back through matplotlib's objects (scales, ticks and their
labels, legends, bands), and that they render headless to PNG and SVG."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("matplotlib")
import matplotlib  # noqa: E402

matplotlib.use("Agg", force=True)
import matplotlib.pyplot as plt  # noqa: E402
from hypothesis import (  # noqa: E402
    given,
    settings,
    strategies as st,  # noqa: E402
)

from cephsim.tools import plots  # noqa: E402
from cephsim.tools.names import component_label, osd_name  # noqa: E402
from cephsim.tools.sweep import Axis, Point, PointResult, SweepResult  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
QS = str(ROOT / "scenarios" / "quickstart.yaml")
OSIRIS = ROOT / "scenarios" / "osiris-mon-rtt-1600ms.yaml"
TIME_LABEL = re.compile(r"^\d+(\.\d+)? (ns|us|ms|s)$")


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _ok(p: Path, kind: str) -> None:
    assert p.exists() and p.stat().st_size > 1000
    head = p.read_bytes()[:200]
    assert head.startswith(b"\x89PNG") if kind == "png" else b"<svg" in p.read_bytes()[:2000]


def _ticks(ax, which: str) -> list[tuple[float, str]]:
    """The major ticks matplotlib draws on an axis (inside the view), with their labels."""
    ax.figure.canvas.draw()
    axis = ax.xaxis if which == "x" else ax.yaxis
    lo, hi = sorted(ax.get_xlim() if which == "x" else ax.get_ylim())
    return [(t.get_loc(), t.label1.get_text()) for t in axis.get_major_ticks()
            if t.label1.get_visible() and lo <= t.get_loc() <= hi]


def _log_axes_are_labelled(fig) -> int:
    """Every log axis of ``fig`` has at least two labelled major ticks, all in view and none
    with an empty label; returns how many log axes there were."""
    n = 0
    for ax in fig.axes:
        for which in "xy":
            if (ax.get_xscale() if which == "x" else ax.get_yscale()) != "log":
                continue
            n += 1
            if which == "x" and not ax.xaxis.get_tick_params()["labelbottom"]:
                continue  # a shared axis: its twin below carries the labels
            ticks = _ticks(ax, which)
            assert len(ticks) >= 2, (ax.get_title(), which, ticks)
            assert all(label for _, label in ticks), (ax.get_title(), which, ticks)
    return n


def _legend(ax) -> list[str]:
    leg = ax.get_legend()
    return [t.get_text() for t in leg.get_texts()] if leg else []


def _osd_forms(labels: list[str], hosts: set[str]) -> set[str]:
    """How the labels spell an OSD: 'osd.N' (Ceph's name) and/or 'osdN' (the model's),
    host names excepted (a host may be called osd0)."""
    forms = set()
    for label in labels:
        for word in re.split(r"->|\.(?!\d)", label):
            if re.fullmatch(r"osd\.\d+", word) or re.match(r"osd\.\d+-con$", word):
                forms.add("osd.N")
            elif re.match(r"osd\d+", word) and word not in hosts:
                forms.add("osdN")
    return forms


# ------------------------------------------------------------------ ticks and labels


def test_durations_are_labelled_in_their_unit():
    f = plots.fmt_duration
    assert [f(100e3), f(200e3), f(500e3), f(1e6)] == ["100 us", "200 us", "500 us", "1 ms"]
    assert [f(1.5e6), f(250), f(12.8e9), f(0)] == ["1.5 ms", "250 ns", "12.8 s", "0"]
    assert f(999_900) == "1 ms" and f(1_234_000) == "1.23 ms"  # 3 significant digits first
    assert [plots.fmt_count(v) for v in (0.5, 50, 2500, 20000, 1.5e6)] == \
        ["0.5", "50", "2.5k", "20k", "1.5M"]


def test_log_ticks_are_round_values_inside_the_range():
    assert plots.log_ticks(100, 1000) == [100, 200, 300, 500, 700, 1000]
    assert plots.log_ticks(100, 12_800) == [100, 200, 500, 1000, 2000, 5000, 10_000]
    assert plots.log_ticks(1, 12_800) == [1, 10, 100, 1000, 10_000]  # 1 ms .. 12.8 s in ms
    assert plots.log_ticks(650, 4200) == [700, 1000, 1500, 2000, 3000, 4000]
    # less than a factor 1.5: round linear steps, still inside
    assert plots.log_ticks(4200, 5200) == [4200, 4400, 4600, 4800, 5000, 5200]


@settings(max_examples=300, deadline=None)
@given(st.floats(1e-6, 1e12), st.floats(1.0001, 1e9))
def test_log_ticks_property(lo, ratio):
    hi = lo * ratio
    ticks = plots.log_ticks(lo, hi)
    assert 2 <= len(ticks) <= max(plots.MAX_LOG_TICKS, 6), (lo, hi, ticks)
    assert ticks == sorted(set(ticks))
    assert all(lo * (1 - 1e-9) <= t <= hi * (1 + 1e-9) for t in ticks), (lo, hi, ticks)
    if ratio >= 3:  # round values, apart enough for their labels
        assert all(float(f"{t:.2g}") == t for t in ticks), ticks
        gaps = np.diff(np.log10(ticks))
        assert gaps.min() >= plots.MIN_LOG_GAP * math.log10(ratio) * (1 - 1e-9), ticks


def test_the_checker_catches_an_unlabelled_log_axis():
    """matplotlib's own log axis over 330-450 us has no labelled major tick inside: the
    checker the figures' tests use refuses it; value_axis over the same data passes."""
    fig, ax = plt.subplots()
    ax.plot([330, 450], [0, 1])
    ax.set_xscale("log")
    with pytest.raises(AssertionError):
        _log_axes_are_labelled(fig)
    plots.time_axis(ax, "x", 330, 450, 1e3, log=True)
    assert _log_axes_are_labelled(fig) == 1
    assert [label for _, label in _ticks(ax, "x")] == ["350 us", "375 us", "400 us", "425 us",
                                                       "450 us"]


# ------------------------------------------------------------------ latency distribution


def _tailed(n: int = 4000) -> np.ndarray:
    rng = np.random.default_rng(1)
    bulk = rng.lognormal(np.log(330e3), 0.08, n)
    tail = rng.uniform(1e6, 9e6, n // 100)  # 1 % of I/Os 1-9 ms: a tail 30x the fastest
    return np.concatenate([bulk, tail]).astype(np.int64)


def test_latency_figure_log_time_axis_ticks_inside_the_data():
    lat = _tailed()
    fig = plots.latency_figure(lat, "synthetic")
    ax1, ax2 = fig.axes
    lo, hi = lat.min() / 1e3, lat.max() / 1e3
    for ax in (ax1, ax2):
        assert ax.get_xscale() == "log" and "log scale" in ax.get_xlabel()
        ticks = _ticks(ax, "x")
        assert len(ticks) >= 3, ticks
        assert all(lo <= v <= hi for v, _ in ticks), (lo, hi, ticks)
        assert all(TIME_LABEL.match(label) for _, label in ticks), ticks
        assert any(label.endswith(" us") for _, label in ticks)
        assert any(label.endswith(" ms") for _, label in ticks)
    assert ax2.get_yscale() == "log"
    assert all(re.fullmatch(r"\d+(\.\d+)?k?", label) for _, label in _ticks(ax2, "y"))
    assert _log_axes_are_labelled(fig) == 3
    legend = _legend(ax1)
    assert legend[0] == f"CDF ({lat.size} I/Os)"
    assert [x.split(" = ")[0] for x in legend[1:]] == ["p50", "p99", "p99.9", "mean"]
    assert all(TIME_LABEL.match(x.split(" = ")[1]) for x in legend[1:]), legend


def test_latency_figure_narrow_distribution_is_linear_with_units():
    rng = np.random.default_rng(1)
    lat = rng.normal(330e3, 10e3, 3000).astype(np.int64)
    fig = plots.latency_figure(lat, "narrow")
    ax1 = fig.axes[0]
    assert ax1.get_xscale() == "linear" and "log" not in ax1.get_xlabel()
    ticks = _ticks(ax1, "x")
    assert len(ticks) >= 3 and all(label.endswith(" us") for _, label in ticks), ticks
    assert all(lat.min() / 1e3 <= v <= lat.max() / 1e3 for v, _ in ticks)


@pytest.mark.parametrize("suffix", ["png", "svg"])
def test_latency_plot_writes_the_file(tmp_path: Path, suffix: str) -> None:
    _ok(plots.plot_latency(_tailed(), tmp_path / f"lat.{suffix}", "synthetic"), suffix)


# ------------------------------------------------------------------ sweeps


def _sweep(path: str, values: list[str], per_point: list[dict[str, list[float]]],
           other: Axis | None = None) -> SweepResult:
    """A sweep result with the given per-seed values (every metric a list over seeds)."""
    axes = [Axis(path, tuple(values))] + ([other] if other else [])
    pts = []
    for i, (v, vals) in enumerate(zip(values, per_point)):
        n = len(vals["iops"])
        runs = [{k: vals[k][s] for k in vals} for s in range(n)]
        pts.append(PointResult(Point(i, ((path, v),)), runs))
    return SweepResult("stub", "stub.yaml", axes, list(range(1, len(per_point[0]["iops"]) + 1)),
                       pts)


def _point(iops: float, mean: float, spread: float = 0.01, p999: list[float] | None = None,
           seeds: int = 3) -> dict[str, list[float]]:
    k = [1 + spread * (s - (seeds - 1) / 2) for s in range(seeds)]
    return {"iops": [iops * x for x in k], "mean_us": [mean * x for x in k],
            "p50_us": [mean * 0.97 * x for x in k], "p99_us": [mean * 1.3 * x for x in k],
            "p999_us": p999 or [mean * 2 * x for x in k]}


def test_sweep_bands_light_under_the_curves_and_the_axis_follows_the_curves():
    """One p99.9 interval blows up (a 3-seed t-interval of 400, 400, 20000 us): the latency
    axis stops near the curves, the band is cut and said to be, every band is light and
    under its curve."""
    pts = [_point(3000 * d, 330 + 5 * d) for d in (1, 2, 4, 8)]
    pts[2]["p999_us"] = [400.0, 400.0, 20_000.0]
    fig = plots.sweep_figure(_sweep("workload.iodepth", ["1", "2", "4", "8"], pts))
    lat_ax = fig.axes[1]
    curves = [y for line in lat_ax.get_lines() for y in line.get_ydata()]
    assert max(curves) > 6000  # the mean of that p99.9 (6933 us) is a curve point
    lo, hi = lat_ax.get_ylim()
    band_top = max(v for c in lat_ax.collections for v in c.get_paths()[0].vertices[:, 1])
    assert band_top > 30_000 and hi < band_top / 1.5, (hi, band_top)  # the band is cut...
    # ...and the axis shows the curves' span and at most BAND_ROOM of it more at either end
    # (and 4 % margins)
    span = math.log10(max(curves) / min(curves))
    assert math.log10(hi / lo) <= span * (1 + 2 * plots.BAND_ROOM) * 1.09, (lo, hi, span)
    bands = [c for ax in fig.axes for c in ax.collections if c.get_paths()]
    assert len(bands) == 5  # IOPS and the four latency metrics
    line_z = min(line.get_zorder() for ax in fig.axes for line in ax.get_lines())
    for b in bands:
        assert b.get_alpha() is not None and b.get_alpha() <= 0.3, b.get_alpha()
        assert b.get_zorder() < line_z
    # the band the axis cuts is a fainter wash than the others
    alphas = sorted(c.get_alpha() for c in lat_ax.collections)
    assert alphas == [plots.BAND_ALPHA / 2] + [plots.BAND_ALPHA] * 3, alphas
    assert "cut at the plot's edge" in fig._suptitle.get_text()
    assert _legend(lat_ax) == ["mean", "p50", "p99", "p99.9"]
    assert lat_ax.get_yscale() == "log" and "log scale" in lat_ax.get_ylabel()
    assert _log_axes_are_labelled(fig) == 2  # latency on both latency panels
    assert all(TIME_LABEL.match(label) for _, label in _ticks(lat_ax, "y"))


def test_sweep_narrow_latencies_on_a_linear_axis_with_units():
    pts = [_point(3000, 330), _point(5000, 340), _point(6000, 360)]
    fig = plots.sweep_figure(_sweep("pool.size", ["1", "2", "3"], pts))
    lat_ax = fig.axes[1]
    assert lat_ax.get_yscale() == "linear"
    ticks = _ticks(lat_ax, "y")
    assert ticks and all(label.endswith(" us") for _, label in ticks), ticks
    assert "cut" not in fig._suptitle.get_text()


@pytest.mark.parametrize("path, values, scale", [
    ("pool.size", ["1", "2", "3"], "linear"),
    ("pool.size", ["2", "3"], "linear"),
    ("workload.iodepth", ["1", "2", "4", "8", "16", "32", "64"], "log"),
    ("workload.numjobs", ["1", "5", "10", "15", "20"], "linear"),
])
def test_integer_fields_get_integer_ticks(path, values, scale):
    pts = [_point(1000 * (i + 1), 300 + 10 * i) for i in range(len(values))]
    fig = plots.sweep_figure(_sweep(path, values, pts))
    for ax in fig.axes[:2]:
        assert ax.get_xscale() == scale
        ticks = _ticks(ax, "x")
        assert [label for _, label in ticks] == values, ticks
        assert all(float(v).is_integer() for v, _ in ticks)
        assert ax.get_xlabel().startswith(path)


def test_many_integer_values_get_integer_ticks_between_them():
    """More values than fit as ticks: round ticks, never 2.5 for a whole-number field."""
    values = [str(v) for v in range(1, 18)]  # matplotlib's own ticks: 0, 2.5, 5, ...
    pts = [_point(1000 * v, 300 + v) for v in range(1, 18)]
    fig = plots.sweep_figure(_sweep("workload.numjobs", values, pts))
    ticks = _ticks(fig.axes[0], "x")
    assert len(ticks) >= 3
    assert all(float(v).is_integer() and label == str(int(v)) for v, label in ticks), ticks


def test_fractional_fields_keep_their_fractions():
    values = ["0.25", "0.5", "0.75", "1"]
    pts = [_point(1000, 300 + 10 * i) for i in range(4)]
    fig = plots.sweep_figure(_sweep("network.tcp.window_fraction", values, pts))
    assert [label for _, label in _ticks(fig.axes[0], "x")] == values


def test_queue_depth_sweep_draws_latency_against_iops():
    pts = [_point(3000 * d ** 0.8, 330 * d ** 0.3) for d in (1, 2, 4, 8, 16, 32)]
    fig = plots.sweep_figure(_sweep("workload.iodepth", ["1", "2", "4", "8", "16", "32"], pts))
    ax = fig.axes[2]
    assert ax.get_xlabel().startswith("IOPS") and _legend(ax) == ["mean", "p99"]
    xs = [x for line in ax.get_lines() for x in line.get_xdata()]
    ticks = _ticks(ax, "x")
    assert len(ticks) >= 2 and all(min(xs) <= v <= max(xs) for v, _ in ticks), ticks
    texts = [t.get_text() for t in ax.texts]
    assert texts == [f"iodepth={d}" for d in (1, 2, 4, 8, 16, 32)]


def test_band_stops_at_the_floor():
    """A 3-seed t-interval of p99.9 can reach below zero: the band stops at zero, the upper
    half is kept; no interval (one seed) is no band."""
    lower, upper = plots.band([772.0, 528.0], [1044.0, None])
    assert lower == [0.0, 528.0] and upper == [1816.0, 528.0]
    assert plots.band([100.0], [150.0], floor=0.1) == ([0.1], [250.0])


def test_sweep_through_the_model_and_the_cli(tmp_path: Path) -> None:
    from cephsim.tools.sweep import run_sweep

    res = run_sweep(QS, ["pool.size=1,2", "ceph.debug_logging=default,off", "run.ios=300"],
                    seeds=1, jobs=1)
    fig = plots.sweep_figure(res)
    assert [label for _, label in _ticks(fig.axes[0], "x")] == ["1", "2"]
    assert _legend(fig.axes[0]) == ["debug_logging=default", "debug_logging=off"]
    assert not [c for ax in fig.axes for c in ax.collections]  # one seed: no band
    _ok(plots.plot_sweep(res, tmp_path / "grid.svg"), "svg")
    from typer.testing import CliRunner

    from cephsim.cli import app

    r = CliRunner().invoke(app, ["sweep", QS, "--set", "pool.size=2,3", "--set", "run.ios=300",
                                 "-q", "-j", "1", "--plot", str(tmp_path / "s.png")])
    assert r.exit_code == 0, r.output
    _ok(tmp_path / "s.png", "png")
    r = CliRunner().invoke(app, ["sweep", QS, "--set", "pool.size=2,3", "--plot",
                                 str(tmp_path / "s.txt")])
    assert r.exit_code == 2 and ".png, .svg" in r.stderr


# ------------------------------------------------------------------ names


def test_component_labels_name_osds_as_ceph_does():
    cases = {"osd6.msgr0": "osd.6.msgr0", "osd12.kv_sync batch": "osd.12.kv_sync",
             "osd0.shard2.t1": "osd.0.shard2.t1", "client0.job0.app": "client0.job0.app",
             "client0.osd3-con.kworker": "client0.osd.3-con.kworker",
             "osd0.job0.app": "osd0.job0.app",  # a client on a host named osd0
             "osd0.osd1-con.kworker": "osd0.osd.1-con.kworker",
             "net osd0->osd1": "osd0->osd1", "node2->node1": "node2->node1"}
    assert {k: component_label(k) for k in cases} == cases
    assert osd_name("osd6") == osd_name(6) == "osd.6"
    with pytest.raises(ValueError):
        osd_name("node6")


def test_the_checker_catches_a_mix_of_osd_spellings():
    """The old string edits labelled OSD 0 osd.0 and left a kernel client's connection to
    OSD 1 as osd1: the name check flags the mix, and passes host names called osd0."""
    hosts = {"client0", "osd0"}
    assert _osd_forms(["osd.0.msgr0", "client0.osd1-con.kworker"], hosts) == {"osd.N", "osdN"}
    assert _osd_forms(["osd.0.msgr0", "osd.0->osd1"], {"osd0"}) == {"osd.N", "osdN"}
    assert _osd_forms(["osd.0.msgr0", "osd0.job0.app", "osd0->osd1", "client0.osd.1-con.kworker"],
                      {"osd0", "osd1", "client0"}) == {"osd.N"}


def _waterfall(tmp_path: Path, scenario: Path, overrides: list[str]):
    from cephsim.tools.explain import explain

    ex = explain(scenario, ["run.ios=300", *overrides], ablations=False)
    fig = plots.waterfall_figure(ex)
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    titles = [t.get_text() for t in fig.axes[0].texts]
    return ex, labels, titles


def test_explain_plot_labels_name_osds_and_leave_hosts_alone(tmp_path):
    """Row labels come from the model's names: OSD 0's threads as osd.0.*, a client thread
    on a host named osd0 as osd0.job0.*, and the network rows as host->host (the old string
    edit turned 'osd0->osd1' into 'osd.0->osd1' and the client's rows into 'osd.0.job0')."""
    ex, labels, _ = _waterfall(tmp_path, ROOT / "scenarios" / "quickstart.yaml",
                               ["workload.clients=[osd0]"])
    assert any(lb.startswith("osd0.job0.") for lb in labels), labels
    assert not any(lb.startswith("osd.0.job") for lb in labels), labels
    assert any(lb.startswith("osd.0.msgr") for lb in labels), labels
    assert any("->" in lb and not lb.startswith("osd.") for lb in labels), labels
    hosts = {h for h, _ in ex.groups}
    assert _osd_forms(labels, hosts) == {"osd.N"}, labels


def test_explain_plot_names_each_osd_one_way_everywhere(tmp_path):
    """A kernel client has a worker per OSD connection: its row names the OSD as the OSD's
    own rows and the group titles do (osd.N), and they name the same OSDs."""
    ex, labels, titles = _waterfall(tmp_path, ROOT / "scenarios" / "wido-2019-nautilus.yaml",
                                    ["workload.engine=krbd"])
    conn = [lb for lb in labels if "-con." in lb]
    assert conn and all(re.fullmatch(r"client0\.osd\.\d+-con\.kworker", lb) for lb in conn), conn
    assert not any(re.search(r"osd\d", lb) for lb in labels + titles), labels + titles
    rows = {int(m) for lb in labels for m in re.findall(r"^osd\.(\d+)\.", lb)}
    in_titles = {int(m) for t in titles for m in re.findall(r"osd\.(\d+)", t)}
    assert rows and rows == in_titles, (rows, titles)
    assert {int(re.search(r"osd\.(\d+)-con", lb)[1]) for lb in conn} <= rows


def test_waterfall_and_cli_plot(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from cephsim.cli import app

    r = CliRunner().invoke(app, ["explain", QS, "--set", "run.ios=600", "--no-ablations", "-q",
                                 "--plot", str(tmp_path / "op.svg"), "--latency-plot",
                                 str(tmp_path / "lat.png")])
    assert r.exit_code == 0, r.output
    _ok(tmp_path / "op.svg", "svg")
    _ok(tmp_path / "lat.png", "png")


# ------------------------------------------------------------------ monitors


@pytest.fixture(scope="module")
def mon_search():
    from cephsim.api import load_resolved
    from cephsim.monitors import search_thresholds

    sc, r = load_resolved(OSIRIS, [])
    s = r.monitors
    found = search_thresholds(s.spec, s.net_at_rtt, seeds=[1, 2], lo=400_000_000,
                              hi=6_400_000_000, tol_ns=400_000_000, points=5)
    return sc.name, s.max_mon_rtt_ns(), found


@pytest.mark.xdist_group("mon_search")  # one worker runs the search once
def test_threshold_search_keeps_every_rtt_it_simulated(mon_search):
    _, _, found = mon_search
    rtts = [t.rtt_ns for t in found.tried]
    assert rtts == sorted(set(rtts)) and rtts[0] == 400_000_000 and rtts[-1] == 6_400_000_000
    assert len(rtts) > 5  # the scan, then the bisection points
    assert all(len(t.reports) == 2 for t in found.tried)
    for th in found.thresholds:  # each bracket's ends were simulated with those verdicts
        by = {t.rtt_ns: t.state for t in found.tried}
        assert (by[th.below_rtt_ns], by[th.above_rtt_ns]) == (th.from_state, th.to_state)


@pytest.mark.xdist_group("mon_search")  # one worker runs the search once
def test_mon_threshold_figure_log_rtt_axis_and_verdicts(mon_search):
    name, base, found = mon_search
    fig = plots.mon_threshold_figure(found, name, base)
    top, bottom = fig.axes
    assert bottom.get_xscale() == "log" and "log scale" in bottom.get_xlabel()
    ticks = _ticks(bottom, "x")
    assert [label for _, label in ticks] == ["500 ms", "700 ms", "1 s", "2 s", "3 s", "5 s"], ticks
    assert all(400 <= v <= 6400 for v, _ in ticks)
    assert _log_axes_are_labelled(fig) == 2
    legend = _legend(top)
    states = {t.state for t in found.tried}
    assert {"healthy", "broken"} <= states
    assert [x for x in legend if x.startswith("verdict: ")] == \
        [f"verdict: {s}" for s in plots.STATE_COLOR if s in states]
    changes = [x for x in legend if " -> " in x]
    assert len(changes) == len(found.thresholds) >= 1
    assert changes[0].startswith(f"{found.thresholds[0].from_state} -> ")
    assert any(x.startswith("the scenario as written (1.6 s)") for x in legend), legend
    assert legend[:2] == ["quorum availability (% of time)", "commands that succeeded (%)"]
    assert _legend(bottom) == ["elections per hour"]
    bands = [c for c in top.collections if c.get_paths() and c.get_alpha() == plots.BAND_ALPHA]
    assert len(bands) == 2  # min-max over the two seeds, light
    # the verdict shading: one stretch per RTT tried, coloured by its verdict
    spans = [p for p in top.patches if p.get_zorder() == 0]
    assert len(spans) == len(found.tried)


def test_mon_threshold_cli_plot(tmp_path: Path, run_cli) -> None:
    out = tmp_path / "mon.png"
    r = run_cli("mon-threshold", OSIRIS, "--seeds", "1", "--lo", "1s", "--hi", "6400ms",
                "--points", "4", "--tol", "800ms", "--plot", out)
    assert r.exit_code == 0, r.output
    assert "healthy -> unstable" in r.stdout or "healthy -> broken" in r.stdout, r.stdout
    _ok(out, "png")
    r = run_cli("mon-threshold", OSIRIS, "--plot", tmp_path / "mon.txt")
    assert r.exit_code == 2 and "--plot" in r.output and ".png, .svg or .pdf" in r.output
    assert not (tmp_path / "mon.txt").exists() and "Traceback" not in r.output
    r = run_cli("mon-threshold", OSIRIS, "--plot", tmp_path / "no" / "such" / "dir.png")
    assert r.exit_code == 2 and "--plot" in r.output and "Traceback" not in r.output


@pytest.mark.xdist_group("mon_search")  # one worker runs the search once
def test_every_figure_has_math_free_finite_limits(mon_search):
    """No figure is left with an autoscaled log axis (math.inf or a non-positive limit)."""
    name, base, found = mon_search
    figs = [plots.latency_figure(_tailed(), "t"), plots.mon_threshold_figure(found, name, base),
            plots.sweep_figure(_sweep("workload.iodepth", ["1", "4", "16"],
                                      [_point(1000, 300), _point(3000, 900), _point(5000, 9000)]))]
    for fig in figs:
        for ax in fig.axes:
            for lim, scale in ((ax.get_xlim(), ax.get_xscale()), (ax.get_ylim(), ax.get_yscale())):
                assert all(math.isfinite(v) for v in lim)
                assert scale != "log" or min(lim) > 0
        _log_axes_are_labelled(fig)
