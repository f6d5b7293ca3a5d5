"""The corpus fit: release scales with a random-walk prior, leave-one-cluster-out, `accuracy`."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cephsim.cli import app
from cephsim.scenario.load import load_scenario
from cephsim.tools.calibrate import corpus
from cephsim.tools.calibrate.cases import Case, Target, load_cases
from cephsim.tools.calibrate.corpus import RELEASES, TAU, CaseData, Emulator, joint_fit

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "calibration" / "cases"
runner = CliRunner()


def _case(name: str, cluster: str, release: str, measured: float, slope: float = 1.0,
          at_catalog: float | None = None, stats: tuple[str, ...] = ("lat.mean",)) -> CaseData:
    """A case whose ln(statistic) is exactly linear in ln(scale): at the catalog scale it
    gives ``at_catalog`` (default: the measured value)."""
    c = Case(name=name, path=Path(f"{name}.yaml"), scenario_path=Path("x.yaml"), overrides=[],
             direction="write", targets=[Target(s, measured, 0.02, "synthetic") for s in stats],
             cluster=cluster)
    d = CaseData(c, release, 2.0)
    a = math.log(at_catalog if at_catalog is not None else measured)
    for s in stats:
        d.emulators[s] = Emulator(s, (a, slope, 0.0), -0.5, 0.5)
    return d


SCALE0 = {r: 2.0 for r in RELEASES}


def test_fit_recovers_the_scale_each_cluster_needs() -> None:
    # slope 1: the statistic is proportional to the scale; a cluster 20 % slow at the
    # catalog scale needs the scale 20 % lower.  Two clusters of one release agree.
    data = [_case("a", "a", "reef", 400e3, at_catalog=480e3),
            _case("b", "b", "reef", 800e3, at_catalog=960e3)]
    fit = joint_fit(data, SCALE0)
    assert fit.scale("reef") == pytest.approx(2.0 / 1.2, rel=1e-4)
    # releases without data follow their neighbours (the prior's minimum: no change)
    assert fit.scale("tentacle") == pytest.approx(fit.scale("reef"), rel=1e-4)
    assert fit.scale("luminous") == pytest.approx(fit.scale("reef"), rel=1e-4)
    assert fit.sd["tentacle"] > fit.sd["squid"] > fit.sd["reef"]


def test_a_release_between_two_with_data_is_interpolated() -> None:
    # nautilus needs 2x the catalog, quincy 1x; octopus and pacific, with no data, sit on
    # the straight line in ln(scale) between them (equal steps of the random walk)
    data = [_case("n", "n", "nautilus", 2.0, at_catalog=1.0),
            _case("q", "q", "quincy", 1.0, at_catalog=1.0)]
    fit = joint_fit(data, SCALE0)
    xn, xq = fit.x["nautilus"], fit.x["quincy"]
    assert fit.x["octopus"] == pytest.approx(xn + (xq - xn) / 3, abs=1e-6)
    assert fit.x["pacific"] == pytest.approx(xn + 2 * (xq - xn) / 3, abs=1e-6)
    # the prior pulls the two ends towards each other, by a hand-calculable amount:
    # minimise (u - ln2)^2/s^2 + v^2/s^2 + (v - u)^2/(3 tau^2)  (u, v: the two ln offsets)
    s2, t2 = 0.15 ** 2, 3 * TAU ** 2
    gap = math.log(2) * t2 / (t2 + 2 * s2)  # the fitted v - u ... as a ratio of ln 2
    assert (xn - xq) == pytest.approx(gap, rel=1e-4)


def test_a_cluster_with_many_statistics_counts_once() -> None:
    # cluster a gives three means that want +20 %, cluster b one that wants -20 %: each
    # cluster weighs the same, so the fit lands in the middle
    data = [_case("a", "a", "reef", 1.2, at_catalog=1.0, stats=("lat.mean", "clat.mean", "slat.mean")),
            _case("b", "b", "reef", 0.8, at_catalog=1.0)]
    fit = joint_fit(data, SCALE0)
    assert fit.x["reef"] - math.log(2.0) == pytest.approx((math.log(1.2) + math.log(0.8)) / 2,
                                                        abs=1e-6)


def test_emulator_is_linear_beyond_its_grid() -> None:
    em = Emulator("lat.mean", (1.0, 0.5, 0.2), -0.5, 0.5)
    assert em(0.0) == pytest.approx(1.0)
    assert em(0.5) == pytest.approx(1.0 + 0.25 + 0.05)
    slope = 0.5 + 2 * 0.2 * 0.5
    assert em(1.5) == pytest.approx(em(0.5) + slope * 1.0)


def test_no_fitted_parameter_belongs_to_one_cluster() -> None:
    """The corpus fit has one parameter per release, never per case or cluster; no case
    carries software costs of its own; and leaving out any one cluster leaves every
    release's scale determined (by the other clusters and the prior), so no parameter
    exists only because of one cluster."""
    cases = [c for c in load_cases(sorted(CASES.glob("*.yaml"))) if not c.skip_reason]
    for c in cases:
        assert not any(o.split("=", 1)[0].strip().startswith(("ceph.profile", "ceph.software",
                                                               "ceph.scale"))
                       for o in c.overrides), c.name
        sc = load_scenario(c.scenario_path, c.overrides)
        assert sc.ceph.profile is None, f"{c.name}: a case's scenario may not name a profile"
        assert not sc.ceph.software, f"{c.name}: a case's scenario may not set stage costs"
    qd1 = [c for c in cases if c.corpus == "qd1"]
    clusters = sorted({c.cluster for c in qd1})
    data = [_case(c.name, c.cluster, load_scenario(c.scenario_path, c.overrides).ceph.release,
                  1.0) for c in qd1]
    fit = joint_fit(data, SCALE0)
    assert set(fit.x) == set(RELEASES)
    for k in clusters:
        f = joint_fit([d for d in data if d.cluster != k], SCALE0)
        assert all(math.isfinite(f.sd[r]) for r in RELEASES), k


def test_every_case_names_its_source_quote_and_assumptions() -> None:
    sources = (ROOT / "calibration" / "SOURCES.md").read_text()
    for c in load_cases(sorted(CASES.glob("*.yaml"))):
        for t in c.targets:
            urls = re.findall(r"https?://[^\s)'\"]+", t.source)
            for u in urls:
                assert u.rstrip(".,;") in sources, f"{c.name}: {u} is not in calibration/SOURCES.md"


TINY = """\
name: tiny
description: "a 1-host size-1 pool: the smallest thing that runs"
hosts:
  - {name: node, count: 1, cpu: epyc-7742, tuning: {max_cstate: C1, governor: performance},
     nic: generic-25g, osds: {count: 1, disk: pm983}}
  - {name: client, count: 1, cpu: epyc-7742, tuning: {max_cstate: C1, governor: performance},
     nic: generic-25g}
network: {mtu: 1500, topology: {kind: switch, switch: generic-cut-through-25g}}
pool: {size: 1, pg_num: 8}
ceph: {release: RELEASE}
workload: {rw: randwrite, bs: 4KiB, iodepth: 1, numjobs: 1, engine: rbd}
run: {seed: 1, ios: 300, ramp_ios: 20}
"""


def _tiny_cases(tmp: Path) -> list[Path]:
    out = []
    for name, rel, mean in (("one", "reef", "150us"), ("two", "quincy", "170us")):
        (tmp / f"{name}.scen.yaml").write_text(TINY.replace("RELEASE", rel))
        p = tmp / f"{name}.yaml"
        p.write_text(f"name: {name}\ncluster: {name}\ncorpus: qd1\nscenario: {name}.scen.yaml\n"
                     f"measurements:\n  - values: {{lat.mean: {mean}}}\n    source: synthetic\n")
        out.append(p)
    return out


def test_accuracy_command_on_two_tiny_cases(tmp_path: Path) -> None:
    files = _tiny_cases(tmp_path)
    readme = tmp_path / "README.md"
    readme.write_text("intro\n<!-- generated: accuracy (model 000000000000) by hand -->\n"
                      "old\n<!-- end generated: accuracy -->\nrest\n")
    out = tmp_path / "validation.md"
    r = runner.invoke(app, ["accuracy", *map(str, files), "--seeds", "1", "--ios", "200",
                            "-j", "1", "-q", "-o", str(out), "--readme", str(readme)])
    assert r.exit_code == 0, r.output
    text = out.read_text()
    assert "Leave-one-cluster-out over 2 published clusters (2 cases)" in text
    rows = [ln for ln in text.splitlines() if "| lat.mean |" in ln]
    assert [r.split("|")[2].strip() for r in rows] == ["one", "two"]
    new = readme.read_text()
    assert "old" not in new and new.startswith("intro\n") and new.endswith("rest\n")
    assert "qd=1 mean latency: median |error|" in new
    from cephsim.tools.provenance import stale_blocks
    assert stale_blocks(new) == [] and stale_blocks(out.read_text()) == []


def test_accuracy_refuses_a_readme_without_markers(tmp_path: Path) -> None:
    files = _tiny_cases(tmp_path)
    readme = tmp_path / "README.md"
    readme.write_text("no markers\n")
    r = runner.invoke(app, ["accuracy", *map(str, files), "--seeds", "1", "--ios", "200",
                            "-j", "1", "-q", "--readme", str(readme)])
    assert r.exit_code == 2 and "no accuracy block" in r.output
    assert readme.read_text() == "no markers\n"


def test_accuracy_needs_two_clusters(tmp_path: Path) -> None:
    files = _tiny_cases(tmp_path)[:1]
    r = runner.invoke(app, ["accuracy", *map(str, files), "--seeds", "1", "--ios", "200", "-q"])
    assert r.exit_code == 2 and "at least two clusters" in r.output


def test_corpus_sigmas_are_the_documented_ones() -> None:
    doc = (ROOT / "docs" / "calibration.md").read_text()
    assert f"tau = {TAU:.2f}" in doc
    assert "15 % for a mean latency or IOPS, 25 % for a percentile" in doc
    assert corpus.MODEL_SIGMA == {"mean": 0.15, "iops": 0.15, "pct": 0.25, "cpu": 0.25}
    assert "25 % too for\n  the OSDs' CPU per host" in doc


def test_a_release_ratio_ties_two_releases_and_leaves_with_its_cluster() -> None:
    from cephsim.tools.calibrate.corpus import ReleaseRatio

    # nautilus's only cluster wants 2x the catalog; a ratio measured elsewhere says
    # nautilus costs exactly quincy's; quincy's cluster wants 1x
    data = [_case("n", "n", "nautilus", 2.0, at_catalog=1.0),
            _case("q", "q", "quincy", 1.0, at_catalog=1.0)]
    free = joint_fit(data, SCALE0)
    tied = joint_fit(data, SCALE0, [ReleaseRatio("nautilus", "quincy", 1.0, 0.001, "lab")])
    assert free.x["nautilus"] - free.x["quincy"] > 0.3
    assert tied.x["nautilus"] - tied.x["quincy"] == pytest.approx(0.0, abs=1e-3)
    # with both clusters weighing alike, the tied scale sits halfway (in ln)
    assert tied.x["quincy"] - math.log(2.0) == pytest.approx(math.log(2.0) / 2, abs=1e-3)


def test_the_shipped_release_ratios_load_and_bad_ones_are_located(tmp_path: Path) -> None:
    from cephsim.errors import CephsimError
    from cephsim.tools.calibrate.corpus import load_ratios

    rs = load_ratios(ROOT / "calibration" / "release-ratios.yaml")
    assert {(r.a, r.b) for r in rs} == {("pacific", "quincy"), ("quincy", "reef"),
                                        ("nautilus", "octopus"), ("octopus", "pacific")}
    assert {r.cluster for r in rs} == {"mako", "perf-lab-2021"}
    bad = tmp_path / "r.yaml"
    bad.write_text("ratios:\n  - {a: pacific, b: quincy, ratio: 1.06, sigma: 0.05, cluster: x}\n"
                   "  - {a: pacific, b: kraken, ratio: 1.0, sigma: 0.1, cluster: x}\n")
    with pytest.raises(CephsimError, match=r"r.yaml:3:.*a and b are releases"):
        load_ratios(bad)
    bad.write_text("ratios:\n  - {a: pacific, b: quincy, ratio: -1, sigma: 0.05, cluster: x}\n")
    with pytest.raises(CephsimError, match=r"r.yaml:2:.*finite numbers > 0"):
        load_ratios(bad)


def test_a_statistic_the_scale_barely_moves_does_not_fit_it() -> None:
    # a disk-bound case (slope 0.05) misses by 2x whatever the scale: it must not drag the
    # reef scale, which the CPU-bound case pins
    cpu_bound = _case("c", "c", "reef", 1.0, slope=0.8, at_catalog=1.0)
    disk_bound = _case("d", "d", "reef", 2.0, slope=0.05, at_catalog=1.0)
    alone = joint_fit([cpu_bound], SCALE0)
    both = joint_fit([cpu_bound, disk_bound], SCALE0)
    assert both.x["reef"] == pytest.approx(alone.x["reef"], abs=1e-6)
    assert corpus.informs_scale(cpu_bound.emulators["lat.mean"])
    assert not corpus.informs_scale(disk_bound.emulators["lat.mean"])


def test_a_named_ratio_file_that_is_missing_is_an_error(tmp_path: Path) -> None:
    files = _tiny_cases(tmp_path)
    r = runner.invoke(app, ["accuracy", *map(str, files), "--ratios", str(tmp_path / "nope.yaml"),
                            "--seeds", "1", "--ios", "200", "-q"])
    assert r.exit_code == 2 and "no such release-ratio file" in r.output


# ------------------------------------------------------------------ estimated model error


def _pred(cluster: str, stat: str, measured: float, predicted: float):
    from cephsim.tools.calibrate.corpus import Prediction

    return Prediction(f"{cluster}-case", cluster, "reef", stat, measured, predicted,
                      predicted, predicted, 1.0, [])


def test_the_model_error_is_estimated_without_the_left_out_cluster_and_robustly():
    """By hand: clusters a, b, c miss their means by x e^0.1, x e^-0.2 and x e^2 (a gross
    miss).  For a: the median over b and c of their median |ln| = (0.2 + 2) / 2 = 1.1, over
    0.6745; for c: the median of a and b, 0.15 / 0.6745 = 0.222, so c's miss is outside its
    interval and does not size it."""
    import math

    from cephsim.tools.calibrate.corpus import estimated_intervals, model_error

    ps = [_pred("a", "lat.mean", 100.0, 100.0 * math.exp(0.1)),
          _pred("b", "lat.mean", 100.0, 100.0 * math.exp(-0.2)),
          _pred("b", "lat.mean", 100.0, 100.0 * math.exp(-0.2)),
          _pred("c", "lat.mean", 100.0, 100.0 * math.exp(2.0)),
          _pred("c", "clat.p99", 100.0, 150.0)]
    assert model_error(ps, "mean", "a") == pytest.approx(1.1 / 0.6745)
    assert model_error(ps, "mean", "c") == pytest.approx(0.15 / 0.6745)
    assert model_error(ps, "pct", "c") == 0.0  # no other cluster gives a percentile
    estimated_intervals(ps)
    c = ps[3]
    half = 1.6449 * 0.15 / 0.6745
    assert (c.lo90, c.hi90) == pytest.approx((c.predicted * math.exp(-half),
                                              c.predicted * math.exp(half)))
    assert not c.lo90 <= c.measured <= c.hi90
    assert ps[0].lo90 <= ps[0].measured <= ps[0].hi90
    # none to estimate from: the assumed model error (25 % for a percentile)
    p99 = ps[4]
    assert p99.sigma == 0.0
    assert p99.hi90 / p99.predicted == pytest.approx(math.exp(1.6449 * 0.25))
