"""Joint fit of the release cost scales over a corpus of clusters, and leave-one-cluster-out.

One free number per release (``scale``, the factor on Ceph's own stage costs), fitted over
every cluster of the corpus at once, with a random-walk prior that ties each release to its
neighbours (a release with little or no data borrows from them).  Each case's statistics as a
function of its release's scale come from an emulator: the case simulated at a few scales
with common random numbers, ln(statistic) interpolated in ln(scale).  Predictions are then
checked by simulating the case at the predicted scale.  The method is in docs/calibration.md.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, get_args

import numpy as np

from cephsim.errors import CephsimError
from cephsim.model.software import software_table
from cephsim.scenario.schema import Release
from cephsim.tools.calibrate.cases import CPU_STAT, Case, unit_of
from cephsim.tools.calibrate.objective import case_stats, prepare
from cephsim.tools.provenance import closing, opening
from cephsim.tools.workers import Workers
from cephsim.yamlfile import located, parse_yaml_text, read_text

RELEASES: tuple[str, ...] = get_args(Release)

#: Prior: the sd of ln(scale) from one release to the next.  Chosen before the fit from
#: published release-to-release runs on the same hardware, which move per-op CPU by
#: 0-30 % (docs/calibration.md, "The prior between releases").
TAU = 0.20
#: Model error assumed per statistic kind (relative, 1 sigma): how far a calibrated model
#: is expected to miss an unseen cluster, not the measurement's own noise.  Weighs the
#: clusters against the prior; chosen before the fit (docs/calibration.md).
#: (cpu, the OSDs' CPU per host: no qd=1 case gives it; load cases are not fitted.)
MODEL_SIGMA = {"mean": 0.15, "iops": 0.15, "pct": 0.25, "cpu": 0.25}
#: z of a two-sided 90 % normal interval
Z90 = 1.6449
#: median |x| of a standard normal: a robust scale is median |ln predicted/measured| / this
MEDIAN_ABS_NORMAL = 0.6745
#: ln(scale) offsets from the catalog's scale at which each case is simulated
GRID = (-0.5, 0.0, 0.5)


def stat_kind(stat: str) -> str:
    if stat == "iops":
        return "iops"
    if stat == CPU_STAT:
        return "cpu"
    return "mean" if stat.endswith(".mean") else "pct"


@dataclass
class Emulator:
    """ln(statistic) of one case as a quadratic in d = ln(scale / catalog scale), linear
    beyond the simulated grid (no quadratic extrapolation)."""

    stat: str
    coef: tuple[float, float, float]  #: a, b, c of a + b d + c d^2
    lo: float
    hi: float

    def _q(self, d: float) -> tuple[float, float]:
        a, b, c = self.coef
        return a + b * d + c * d * d, b + 2 * c * d

    def __call__(self, d: float) -> float:
        edge = min(max(d, self.lo), self.hi)
        v, slope = self._q(edge)
        return v + slope * (d - edge)

    def slope(self, d: float) -> float:
        return self._q(min(max(d, self.lo), self.hi))[1]


@dataclass
class CaseData:
    case: Case
    release: str
    scale0: float  #: the catalog's scale for the release
    emulators: dict[str, Emulator] = field(default_factory=dict)

    @property
    def cluster(self) -> str:
        return self.case.cluster


@dataclass(frozen=True)
class ReleaseRatio:
    """Evidence that release ``a`` spends ``ratio`` times release ``b``'s CPU per operation
    in Ceph's own code (the same hardware run on both; calibration/release-ratios.yaml)."""

    a: str
    b: str
    ratio: float
    sigma: float
    cluster: str  #: the cluster it was measured on (left out with it)


def load_ratios(path: Path) -> list[ReleaseRatio]:
    """The release-ratio file (calibration/release-ratios.yaml)."""
    data = parse_yaml_text(read_text(path, "release-ratio file"), str(path))
    out = []
    items = data.get("ratios") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise CephsimError([located("a list of {a, b, ratio, sigma, cluster}", str(path), data,
                                    "ratios")])
    for i, r in enumerate(items):
        try:
            rr = ReleaseRatio(str(r["a"]), str(r["b"]), float(r["ratio"]), float(r["sigma"]),
                              str(r["cluster"]))
        except (KeyError, TypeError, ValueError):
            raise CephsimError([located("each ratio is {a, b, ratio, sigma, cluster} with "
                                        "numbers for ratio and sigma", str(path), data,
                                        "ratios", i)]) from None
        if rr.a not in RELEASES or rr.b not in RELEASES:
            raise CephsimError([located(f"a and b are releases ({', '.join(RELEASES)})",
                                        str(path), data, "ratios", i)])
        if not (rr.ratio > 0 and rr.sigma > 0 and math.isfinite(rr.ratio) and math.isfinite(rr.sigma)):
            raise CephsimError([located("ratio and sigma are finite numbers > 0", str(path),
                                        data, "ratios", i)])
        out.append(rr)
    return out


@dataclass
class JointFit:
    x: dict[str, float]  #: ln(scale) per release
    sd: dict[str, float]  #: 1-sigma of ln(scale) per release
    clusters: list[str]

    def scale(self, release: str) -> float:
        return math.exp(self.x[release])


@dataclass
class Prediction:
    case: str
    cluster: str
    release: str
    stat: str
    measured: float
    predicted: float  #: simulated at the predicted scale
    lo: float  #: 68 % interval (parameter uncertainty and the assumed model error)
    hi: float
    scale: float
    trained_on: list[str]
    #: 90 % interval with the model error estimated from the other clusters' misses
    lo90: float = 0.0
    hi90: float = 0.0
    sigma: float = 0.0  #: that estimated model error (ln units); 0: none could be, assumed
    param_var: float = 0.0  #: the fitted scale's share of the variance (ln units squared)

    @property
    def error(self) -> float:
        return 100.0 * (self.predicted - self.measured) / self.measured

    def to_dict(self) -> dict[str, Any]:
        unit = unit_of(self.stat)
        f = 1e-3 if unit == "us" else 1.0
        return {"case": self.case, "cluster": self.cluster, "release": self.release,
                "stat": self.stat, "unit": unit,
                "measured": self.measured * f, "predicted": round(self.predicted * f, 3),
                "interval_68": [round(self.lo * f, 3), round(self.hi * f, 3)],
                "interval_90": [round(self.lo90 * f, 3), round(self.hi90 * f, 3)],
                "model_error_estimated": round(self.sigma, 4),
                "error_percent": round(self.error, 2), "scale": round(self.scale, 4),
                "trained_on": self.trained_on}


# ------------------------------------------------------------------ simulation

def _simulate(case: Case, scale: float, seed: int, ios: int) -> dict[str, float]:
    """One case at one scale and seed: its statistics as fio reports them (ns / IOPS)."""
    return case_stats(case, {"scale": scale}, [seed], ios, exact=False)


def _run_all(jobs: list[tuple[Case, float, int, int]], workers: Workers,
             progress: Callable[[str], None] | None, what: str) -> list[dict[str, float]]:
    if progress:
        progress(f"{what}: {len(jobs)} runs on {workers.describe()}")
    return workers.map(_simulate, jobs)


def _mean_over_seeds(runs: list[dict[str, float]]) -> dict[str, float]:
    return {k: float(np.mean([r[k] for r in runs])) for k in runs[0]}


def case_data(cases: list[Case]) -> list[CaseData]:
    out = []
    for c in cases:
        m = prepare(c)
        out.append(CaseData(c, m.release, m.costs.scale))
    return out


def build_emulators(data: list[CaseData], seeds: list[int], ios: int, workers: Workers,
                    progress: Callable[[str], None] | None = None) -> None:
    """Simulate every case at the grid's scales (common seeds) and fit its emulators."""
    jobs = [(d.case, d.scale0 * math.exp(g), s, ios) for d in data for g in GRID for s in seeds]
    res = _run_all(jobs, workers, progress, "emulator")
    k = 0
    for d in data:
        ys: list[dict[str, float]] = []
        for _ in GRID:
            ys.append(_mean_over_seeds(res[k:k + len(seeds)]))
            k += len(seeds)
        for t in d.case.targets:
            y = np.log([max(v[t.stat], 1e-9) for v in ys])
            c2, c1, c0 = np.polyfit(np.array(GRID), y, 2)
            d.emulators[t.stat] = Emulator(t.stat, (float(c0), float(c1), float(c2)),
                                           GRID[0], GRID[-1])


# ------------------------------------------------------------------ joint fit

#: a statistic informs the scale only if it moves at least this much per unit of ln(scale)
#: at the catalog value (about the share of Ceph's CPU work in it): a run limited by its
#: disks or network cannot say what Ceph's code costs, and a miss there would otherwise
#: drag the scale without bound (docs/calibration.md)
MIN_SLOPE = 0.2


def informs_scale(em: Emulator) -> bool:
    return abs(em.slope(0.0)) >= MIN_SLOPE

def joint_fit(data: list[CaseData], scale0: dict[str, float],
              ratios: list[ReleaseRatio] = ()) -> JointFit:  # type: ignore[assignment]
    """ln(scale) per release: least squares of every case's statistics (weighted so that
    each cluster counts once per release and kind of statistic), the release-against-release
    ratios measured on one cluster, and the random-walk prior."""
    from scipy.optimize import least_squares

    idx = {r: i for i, r in enumerate(RELEASES)}
    x0 = np.array([math.log(scale0[r]) for r in RELEASES])
    # a cluster counts once per release it was run on and kind of statistic, however many
    # figures of that kind it gives there
    per_cluster: dict[tuple[str, str, str], int] = {}
    for d in data:
        for t in d.case.targets:
            if not informs_scale(d.emulators[t.stat]):
                continue
            key = (d.cluster, d.release, stat_kind(t.stat))
            per_cluster[key] = per_cluster.get(key, 0) + 1
    terms = []
    for d in data:
        for t in d.case.targets:
            if not informs_scale(d.emulators[t.stat]):
                continue
            kind = stat_kind(t.stat)
            w = 1.0 / (MODEL_SIGMA[kind] * math.sqrt(per_cluster[(d.cluster, d.release, kind)]))
            terms.append((idx[d.release], math.log(scale0[d.release]), d.emulators[t.stat],
                          math.log(t.value), w))

    def resid(x: np.ndarray) -> np.ndarray:
        r = [w * (em(x[i] - l0) - lm) for i, l0, em, lm, w in terms]
        r += [(x[idx[q.a]] - x[idx[q.b]] - math.log(q.ratio)) / q.sigma for q in ratios]
        r += [(x[i + 1] - x[i]) / TAU for i in range(len(RELEASES) - 1)]
        return np.array(r)

    sol = least_squares(resid, x0, method="trf", x_scale=1.0,
                        bounds=(x0 - math.log(20.0), x0 + math.log(20.0)))
    J = sol.jac
    try:
        cov = np.linalg.inv(J.T @ J)
        sd = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    except np.linalg.LinAlgError:
        sd = np.full(len(RELEASES), math.inf)
    return JointFit({r: float(sol.x[i]) for r, i in idx.items()},
                    {r: float(sd[i]) for r, i in idx.items()},
                    sorted({d.cluster for d in data}))


# ------------------------------------------------------------------ cross-validation

@dataclass
class Validation:
    predictions: list[Prediction]
    folds: dict[str, JointFit]  #: by left-out cluster
    full: JointFit
    scale0: dict[str, float]
    seeds: list[int]
    ios: int
    ratios: list[ReleaseRatio] = field(default_factory=list)

    def errors(self, kind: str) -> list[float]:
        return [abs(p.error) for p in self.predictions if stat_kind(p.stat) == kind]

    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = {"clusters": len(self.folds),
                               "cases": len({p.case for p in self.predictions})}
        for kind, label in (("mean", "mean"), ("pct", "percentiles"), ("iops", "iops")):
            e = self.errors(kind)
            if e:
                out[label] = {"n": len(e), "median_abs_error_percent": round(statistics.median(e), 1),
                              "max_abs_error_percent": round(max(e), 1),
                              "within_15_percent": sum(x <= 15 for x in e),
                              "within_35_percent": sum(x <= 35 for x in e)}
        p99s = [p for p in self.predictions if p.stat.endswith(".p99")]
        p99 = [abs(p.error) for p in p99s]
        if p99:
            out["p99"] = {"n": len(p99), "median_abs_error_percent": round(statistics.median(p99), 1),
                          "max_abs_error_percent": round(max(p99), 1)}
        logs = [math.log(p.predicted / p.measured) for p in self.predictions
                if stat_kind(p.stat) == "mean" and p.predicted > 0]
        if logs:  # the spread a new cluster's mean should be read with (1 sigma, as a factor)
            out["mean_spread_factor"] = round(math.exp(math.sqrt(sum(x * x for x in logs) / len(logs))), 2)
        inside = [p.lo <= p.measured <= p.hi for p in self.predictions]
        out["measured_inside_68_interval"] = f"{sum(inside)}/{len(inside)}"
        means = [p for p in self.predictions if stat_kind(p.stat) == "mean"]
        for label, ps in (("means", means), ("p99", p99s)):
            if ps:
                half = [100 * (math.sqrt(p.hi90 / p.lo90) - 1) for p in ps]
                out[f"interval_90_{label}"] = {
                    "inside": sum(p.lo90 <= p.measured <= p.hi90 for p in ps), "n": len(ps),
                    "median_half_width_percent": round(statistics.median(half), 1)}
        return out


def cross_validate(cases: list[Case], seeds: list[int], ios: int, jobs: int | None = None,
                   progress: Callable[[str], None] | None = None,
                   ratios: list[ReleaseRatio] = (),  # type: ignore[assignment]
                   executor: str = "local", scheduler: Any = None) -> Validation:
    """Leave-one-cluster-out over ``cases``; the simulations on ``jobs`` local processes
    (default: every core) or on a Dask cluster (``executor``, ``scheduler``): the same
    numbers whichever runs them."""
    with Workers(jobs, executor, scheduler) as workers:
        return _cross_validate(cases, seeds, ios, workers, progress, ratios)


def _cross_validate(cases: list[Case], seeds: list[int], ios: int, workers: Workers,
                    progress: Callable[[str], None] | None,
                    ratios: list[ReleaseRatio]) -> Validation:
    active = [c for c in cases if not c.skip_reason]
    data = case_data(active)
    clusters = sorted({d.cluster for d in data})
    if len(clusters) < 2:
        raise CephsimError.single("leave-one-cluster-out needs cases from at least two clusters")
    table = software_table().releases
    scale0 = {r: table[r].scale for r in RELEASES}
    build_emulators(data, seeds, ios, workers, progress)
    full = joint_fit(data, scale0, list(ratios))
    folds: dict[str, JointFit] = {}
    plan: list[tuple[CaseData, JointFit]] = []
    for k in clusters:
        train = [d for d in data if d.cluster != k]
        fit = joint_fit(train, scale0, [q for q in ratios if q.cluster != k])
        folds[k] = fit
        plan += [(d, fit) for d in data if d.cluster == k]
    jobs = [(d.case, fit.scale(d.release), s, ios) for d, fit in plan for s in seeds]
    res = _run_all(jobs, workers, progress, "predictions")
    preds = []
    for n, (d, fit) in enumerate(plan):
        sim = _mean_over_seeds(res[n * len(seeds):(n + 1) * len(seeds)])
        dx = fit.x[d.release] - math.log(d.scale0)
        for t in d.case.targets:
            em = d.emulators[t.stat]
            var = (em.slope(dx) * fit.sd[d.release]) ** 2 + MODEL_SIGMA[stat_kind(t.stat)] ** 2
            half = math.sqrt(var)
            v = sim[t.stat]
            preds.append(Prediction(d.case.name, d.cluster, d.release, t.stat, t.value, v,
                                    v * math.exp(-half), v * math.exp(half),
                                    fit.scale(d.release), fit.clusters,
                                    param_var=(em.slope(dx) * fit.sd[d.release]) ** 2))
    estimated_intervals(preds)
    return Validation(preds, folds, full, scale0, seeds, ios, list(ratios))


def model_error(preds: list[Prediction], kind: str, without: str) -> float:
    """The model's out-of-sample error for statistics of ``kind``, estimated from the
    leave-one-cluster-out misses of every cluster but ``without`` (ln units; 0 where none
    is left).  Robust: each cluster's median |ln predicted/measured| over 0.6745 (a normal's
    median |x|), then the median over clusters, so one cluster's gross miss (a mechanism
    the model lacks there) does not widen every other cluster's interval: it shows as a
    figure outside its own interval instead."""
    per: dict[str, list[float]] = {}
    for p in preds:
        if p.cluster != without and stat_kind(p.stat) == kind and p.predicted > 0:
            per.setdefault(p.cluster, []).append(abs(math.log(p.predicted / p.measured)))
    if not per:
        return 0.0
    return statistics.median(statistics.median(v) for v in per.values()) / MEDIAN_ABS_NORMAL


def estimated_intervals(preds: list[Prediction]) -> None:
    """Each prediction's 90 % interval: the fitted scale's uncertainty and the model error
    estimated without its own cluster (nested: the left-out cluster's misses never size its
    own interval); the assumed MODEL_SIGMA where no other cluster has that kind."""
    for p in preds:
        kind = stat_kind(p.stat)
        s = model_error(preds, kind, p.cluster)
        p.sigma = s
        half = Z90 * math.sqrt(p.param_var + (s if s > 0 else MODEL_SIGMA[kind]) ** 2)
        p.lo90, p.hi90 = p.predicted * math.exp(-half), p.predicted * math.exp(half)


# ------------------------------------------------------------------ report

def _fmt(stat: str, v: float) -> str:
    unit = unit_of(stat)
    return f"{v / 1e3:,.0f} us" if unit == "us" else f"{v:,.1f} CPUs" if unit == "CPUs" else f"{v:,.0f}"


def summary_lines(v: Validation) -> list[str]:
    s = v.summary()
    out = [f"Leave-one-cluster-out over {s['clusters']} published clusters ({s['cases']} cases): "
           "each cluster predicted by a model fitted without it."]
    for label, what in (("mean", "qd=1 mean latency"), ("p99", "p99 latency"),
                        ("iops", "IOPS")):
        if label in s:
            e = s[label]
            out.append(f"- {what}: median |error| {e['median_abs_error_percent']} %, "
                       f"largest {e['max_abs_error_percent']} % ({e['n']} figures)")
    if "mean_spread_factor" in s:
        out.append(f"- out-of-sample spread of the mean latency (RMS of ln predicted/measured): "
                   f"a factor of {s['mean_spread_factor']:.2f}")
    parts = []  # the first says what its percentage is; the second's reads the same
    for label, what, width in (("means", "means", "median half-width "), ("p99", "p99s", "")):
        e = s.get(f"interval_90_{label}")
        if e:
            parts.append(f"{what} {e['inside']}/{e['n']} ({width}"
                         f"{e['median_half_width_percent']} %)")
    if parts:
        out.append("- inside the 90 % interval (model error estimated from other clusters' "
                   "misses): " + ", ".join(parts))
    return out


def validation_markdown(v: Validation, command: str) -> str:
    lines = [
        opening("validation", f"`{command}`"),
        "",
        "# Validation: predicting clusters the calibration never saw",
        "",
        *summary_lines(v),
        "",
        "Each row: the case's cluster was left out, the release scales were fitted "
        "jointly on every other cluster (docs/calibration.md), and the case was "
        f"simulated at the scale so predicted (seeds {', '.join(map(str, v.seeds))}, "
        f"{v.ios} I/Os each, fio's percentile bins).  Error = (predicted - measured) / "
        "measured.  The 68 % interval combines the fitted scale's uncertainty with the "
        "model error assumed per statistic "
        f"({', '.join(f'{k} {int(x * 100)} %' for k, x in MODEL_SIGMA.items())}; "
        f"measured inside: {v.summary()['measured_inside_68_interval']}).  The 90 % interval "
        "puts in its place the model error *estimated* from the out-of-sample misses of the "
        "other clusters (nested: a cluster's own misses never size its interval; robust: the "
        "median over clusters of each cluster's median |ln predicted/measured|, over 0.6745, "
        "so one cluster's gross miss shows as a figure outside its interval instead of "
        "widening all the others; column sigma, in ln units).  The count inside it is the "
        "check: under 90 % says the misses are heavier-tailed than one normal error per "
        "figure (a cluster's misses share a cause, and a lacking mechanism misses by far "
        "more), over 90 % that the interval is wider than the misses justify.",
        "",
        "| cluster | case | release | stat | measured | predicted | 68 % interval | error "
        "| 90 % interval (sigma) | scale used |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    last = None
    for p in sorted(v.predictions, key=lambda p: (p.cluster, p.case)):
        lines.append(f"| {p.cluster if p.cluster != last else ''} | {p.case} | {p.release} | "
                     f"{p.stat} | {_fmt(p.stat, p.measured)} | {_fmt(p.stat, p.predicted)} | "
                     f"{_fmt(p.stat, p.lo)} - {_fmt(p.stat, p.hi)} | {p.error:+.1f} % | "
                     f"{_fmt(p.stat, p.lo90)} - {_fmt(p.stat, p.hi90)} "
                     f"({p.sigma:.2f}{'' if p.sigma else ', assumed'}) | {p.scale:.3g} |")
        last = p.cluster
    lines += ["", "## The scales fitted on the whole corpus", "",
              "| release | catalog | fitted (all clusters) | 1 sigma | clusters of that release |",
              "|---|---|---|---|---|"]
    by_rel: dict[str, set[str]] = {}
    for p in v.predictions:
        by_rel.setdefault(p.release, set()).add(p.cluster)
    for r in RELEASES:
        lines.append(
            f"| {r} | {v.scale0[r]:.3g} | {v.full.scale(r):.3g} | "
            f"{100 * v.full.sd[r]:.0f} % | "
            f"{', '.join(sorted(by_rel.get(r, ()))) or '(none: from the prior)'} |"
        )
    if v.ratios:
        lines += ["", "Release-against-release evidence in the fit "
                      "(calibration/release-ratios.yaml; left out with its cluster): " + "; ".join(
                      f"{q.a}/{q.b} = {q.ratio:g} +/- {q.sigma:g} ({q.cluster})" for q in v.ratios)
                  + ".  Fitted: " + "; ".join(
                      f"{q.a}/{q.b} = {v.full.scale(q.a) / v.full.scale(q.b):.3f}"
                      for q in v.ratios) + "."]
    lines += ["", "## Scale per fold (the release of the left-out cluster)", "",
              "| left out | release | scale without it | 1 sigma |", "|---|---|---|---|"]
    seen = set()
    for p in sorted(v.predictions, key=lambda p: p.cluster):
        if (p.cluster, p.release) in seen:
            continue
        seen.add((p.cluster, p.release))
        f = v.folds[p.cluster]
        lines.append(f"| {p.cluster} | {p.release} | {f.scale(p.release):.3g} | "
                     f"{100 * f.sd[p.release]:.0f} % |")
    lines += ["", closing("validation")]
    return "\n".join(lines) + "\n"
