"""Fit free parameters to cases: scipy ``least_squares`` on log-parameters.

Residuals are ``ln(simulated / measured) / sigma`` per case and statistic
(sigma: the statistic's relative tolerance, see :mod:`cases`).  Every
evaluation uses the same seeds (common random numbers) and ``ios`` I/Os per
seed; finite differences use a 4 % relative step, larger than the noise that
remains.  Uncertainty: from the Jacobian at the solution,
``cov(ln p) = (J^T J)^-1 * s^2`` with ``s^2 = max(1, chi^2 / (m - n))`` (m
residuals, n parameters; s^2 = 1 when m <= n), i.e. the spread of the
parameters that the assumed tolerances allow, inflated when the fit is worse
than they say; reported as a relative (1 sigma) uncertainty on each value.
It does not include the simulator's own sampling noise at the fit's I/O count
nor any model error.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np

from cephsim.errors import CephsimError
from cephsim.formats.output import write_atomic
from cephsim.model.software import software_table
from cephsim.tools.calibrate.cases import Case
from cephsim.tools.calibrate.objective import (
    CaseModel,
    param_values,
    prepare,
    rel_error,
    residuals,
    simulate_all,
)
from cephsim.tools.calibrate.params import Param, bounds, fmt_value, set_values, start_value


@dataclass
class FitOptions:
    seeds: int = 2
    seed0: int = 1
    ios: int = 4000
    verify_ios: int | None = None  #: None: each scenario's run.ios
    max_evals: int = 60
    verify: bool = True
    progress: Any = None  #: callable(str) for progress lines
    #: where the cases are simulated (a :class:`~cephsim.tools.workers.Workers`: local
    #: processes or a Dask cluster, the same numbers either way); None: in this process
    workers: Any = None

    def __post_init__(self) -> None:
        for flag, v, lo in (("--seeds", self.seeds, 1), ("--ios", self.ios, 1),
                            ("--max-evals", self.max_evals, 1),
                            ("--verify-ios", self.verify_ios, 1)):
            if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < lo):
                raise CephsimError.single(f"{flag} {v!r}: must be a whole number >= {lo}")


@dataclass
class ParamResult:
    label: str
    name: str
    release: str | None
    start: float
    value: float
    rel_sigma: float | None  #: 1-sigma relative uncertainty

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.label, "start": self.start, "value": self.value,
                "uncertainty_rel": self.rel_sigma,
                "uncertainty_abs": None if self.rel_sigma is None else self.value * self.rel_sigma}


@dataclass
class StatRow:
    case: str
    stat: str
    measured: float
    before: float | None
    fitted: float | None
    unit: str

    @property
    def error(self) -> float | None:
        return None if self.fitted is None else rel_error(self.fitted, self.measured)

    def to_dict(self) -> dict[str, Any]:
        scale = 1e-3 if self.unit == "us" else 1.0
        return {"case": self.case, "stat": self.stat, "unit": self.unit,
                "measured": self.measured * scale,
                "before": None if self.before is None else self.before * scale,
                "fitted": None if self.fitted is None else self.fitted * scale,
                "error_percent": None if self.error is None else round(self.error, 2)}


@dataclass
class FitResult:
    params: list[ParamResult]
    rows: list[StatRow]
    cases: list[str]
    skipped: list[str]
    cost: float
    nfev: int
    wall_s: float
    options: FitOptions
    values_by_release: dict[str, dict[str, float]] = field(default_factory=dict)
    message: str = ""

    def to_dict(self) -> dict[str, Any]:
        o = self.options
        return {"cases": self.cases, "skipped": self.skipped,
                "parameters": [p.to_dict() for p in self.params],
                "statistics": [r.to_dict() for r in self.rows],
                "chi2": 2 * self.cost, "evaluations": self.nfev, "wall_s": round(self.wall_s, 1),
                "fit": {"seeds": list(range(o.seed0, o.seed0 + o.seeds)), "ios_per_seed": o.ios,
                        "verify_ios": o.verify_ios, "uncertainty": "Jacobian of least_squares at "
                                "the solution: sqrt(diag((J^T J)^-1) * max(1, chi2/dof)), on "
                                "ln(value)"},
                "values_by_release": self.values_by_release, "message": self.message}


def fit_models(models: list[CaseModel], params: list[Param], opts: FitOptions) -> tuple[
        np.ndarray, np.ndarray | None, float, int, str]:
    """Least squares on ln(parameters).  Returns x, rel. sigma, cost, nfev, message."""
    from scipy.optimize import least_squares

    if not params:
        raise CephsimError.single("no parameter to fit", path="--fit")
    costs_by_rel = {m.release: m.costs for m in models}
    v0 = [start_value(p, costs_by_rel) for p in params]
    x0 = np.log(np.array(v0))
    lb, ub = zip(*(bounds(p, v) for p, v in zip(params, v0)))
    lo, hi = np.array(lb), np.array(ub)
    x0 = np.clip(x0, lo + 1e-9, hi - 1e-9)
    seeds = list(range(opts.seed0, opts.seed0 + opts.seeds))
    cache: dict[tuple[float, ...], np.ndarray] = {}
    count = [0]

    def fun(x: np.ndarray) -> np.ndarray:
        key = tuple(np.round(x, 12))
        if key in cache:
            return cache[key]
        r: list[float] = []
        stats = simulate_all(models, [param_values(params, x, m.release) for m in models],
                             seeds, opts.ios, True, opts.workers)
        for m, st in zip(models, stats):
            r += residuals(m, st)
        out = np.array(r)
        cache[key] = out
        count[0] += 1
        if opts.progress:
            vals = ", ".join(f"{p.label}={fmt_value(p.name, math.exp(v))}" for p, v in zip(params, x))
            opts.progress(f"  eval {count[0]:3d}: chi2 {float(out @ out):9.3f}  {vals}")
        return out

    res = least_squares(fun, x0, bounds=(lo, hi), diff_step=0.04, x_scale=1.0,
                        max_nfev=opts.max_evals, xtol=1e-3, ftol=1e-4, gtol=1e-6)
    m_, n_ = res.fun.size, res.x.size
    rel = None
    try:
        jtj = res.jac.T @ res.jac
        chi2 = float(res.fun @ res.fun)
        s2 = max(1.0, chi2 / (m_ - n_)) if m_ > n_ else 1.0
        cov = np.linalg.pinv(jtj) * s2
        d = np.diag(cov)
        rel = np.where(d > 0, np.sqrt(np.abs(d)), np.nan)
        # parameters the data cannot move (zero Jacobian column) have no uncertainty estimate
        rel = np.where(np.all(res.jac == 0, axis=0), np.nan, rel)
    except (np.linalg.LinAlgError, ValueError):
        rel = None
    return res.x, rel, float(res.cost), count[0], str(res.message)


def verify(models: list[CaseModel], params: list[Param], x: np.ndarray | None,
           opts: FitOptions) -> dict[str, dict[str, float]]:
    """Final runs (fio histogram percentiles), one per case, at verify_ios (or run.ios)."""
    vals = [param_values(params, x, m.release) if x is not None else {} for m in models]
    stats = simulate_all(models, vals, [opts.seed0], opts.verify_ios, False, opts.workers)
    return {m.case.name: st for m, st in zip(models, stats)}


def calibrate(cases: list[Case], params: list[Param], opts: FitOptions) -> FitResult:
    t0 = time.perf_counter()
    active = [c for c in cases if not c.skip_reason]
    skipped = [c.skip_reason or "" for c in cases if c.skip_reason]
    if not active:
        raise CephsimError.single("no case can run: " + "; ".join(skipped))
    models = [prepare(c) for c in active]
    x, rel, cost, nfev, msg = fit_models(models, params, opts)
    rows: list[StatRow] = []
    if opts.verify:
        before = verify(models, params, None, opts)
        after = verify(models, params, x, opts)
    else:
        before, after = {}, {}
    for m in models:
        for t in m.case.targets:
            rows.append(StatRow(m.case.name, t.stat, t.value, before.get(m.case.name, {}).get(t.stat),
                                after.get(m.case.name, {}).get(t.stat), t.unit))
    costs_by_rel = {m.release: m.costs for m in models}
    pres = []
    for i, p in enumerate(params):
        v0 = start_value(p, costs_by_rel)
        s = None if rel is None or not np.isfinite(rel[i]) else float(rel[i])
        pres.append(ParamResult(p.label, p.name, p.release, v0, math.exp(float(x[i])), s))
    by_rel = {r: param_values(params, x, r) for r in sorted(costs_by_rel)}
    return FitResult(pres, rows, [m.case.name for m in models], skipped, cost, nfev,
                     time.perf_counter() - t0, opts, by_rel, msg)


def profile_documents(res: FitResult) -> dict[str, dict[str, Any]]:
    """One profile document (``ceph.profile`` format) per release."""
    docs = {}
    for rel, vals in res.values_by_release.items():
        if not vals:
            continue
        base = software_table().releases[rel]
        costs = set_values(base, vals)
        doc: dict[str, Any] = {
            "release": rel,
            "basis": (f"fitted by cephsim calibrate on {', '.join(res.cases)} "
                      f"({date.today().isoformat()}; {res.options.seeds} seed(s) x "
                      f"{res.options.ios} I/Os; free: {', '.join(sorted(vals))})"),
        }
        if "scale" in vals:
            doc["scale"] = round(costs.scale, 4)
        kc = {k[8:]: round(v, 3) for k, v in vals.items() if k.startswith("kcycles.")}
        if kc:
            doc["kcycles"] = kc
        for k in ("cpu_jitter_sigma", "logging_overhead"):
            if k in vals:
                doc[k] = round(getattr(costs, k), 4)
        if any(k.startswith("tails.") for k in vals):
            d = costs.tails.kv_stall
            stall: Any = d.model_dump(mode="json")
            if d.dist == "lognormal":
                stall = {"dist": "lognormal", "median": f"{d.median / 1e3:.1f}us",
                         "sigma": round(d.shape, 4)}
                if d.shift:
                    stall["shift"] = f"{d.shift}ns"
            doc["tails"] = {"kv_stall_rate_hz": round(costs.tails.kv_stall_rate_hz, 4),
                            "kv_stall": stall}
        docs[rel] = doc
    return docs


def write_profiles(res: FitResult, output: Path) -> list[Path]:
    import io

    from ruamel.yaml import YAML

    docs = profile_documents(res)
    written = []
    for rel, doc in docs.items():
        path = (
            output
            if len(docs) == 1
            else output.with_name(f"{output.stem}-{rel}{output.suffix or '.yaml'}")
        )
        y = YAML()
        y.default_flow_style = False
        buf = io.StringIO()
        buf.write("# cephsim calibrated profile: reference it from a scenario with\n"
                  f"#   ceph: {{release: {rel}, profile: {path.name}}}\n")
        y.dump(doc, buf)
        write_atomic(path, buf.getvalue())
        written.append(path)
    return written


def fit_text(res: FitResult) -> str:
    o = res.options
    lines = [f"calibrated on {len(res.cases)} case(s): {', '.join(res.cases)}"]
    for s in res.skipped:
        lines.append(f"  skipped: {s}")
    lines.append(f"fit: {res.nfev} evaluations x {o.seeds} seed(s) x {o.ios} I/Os, chi2 "
                 f"{2 * res.cost:.3f}, {res.wall_s:.0f} s ({res.message})")
    lines.append("")
    lines.append("parameters (uncertainty: 1 sigma from the Jacobian, see docs):")
    w = max(len(p.label) for p in res.params)
    for p in res.params:
        unc = "n/a (not constrained)" if p.rel_sigma is None else \
            f"+/- {fmt_value(p.name, p.value * p.rel_sigma)} ({100 * p.rel_sigma:.1f}%)"
        lines.append(f"  {p.label:<{w}}  {fmt_value(p.name, p.start):>16} -> "
                     f"{fmt_value(p.name, p.value):>16}  {unc}")
    lines.append("")
    vi = o.verify_ios if o.verify_ios else "run.ios of each scenario"
    lines.append(f"verification (seed {o.seed0}, {vi}; fio histogram percentiles):")
    lines.append(f"  {'case':<22} {'stat':<11} {'measured':>10} {'before':>10} {'fitted':>10} {'error':>8}")
    for r in res.rows:
        b = "-" if r.before is None else _fmt(r.before, r.unit)
        f = "-" if r.fitted is None else _fmt(r.fitted, r.unit)
        e = "-" if r.error is None else f"{r.error:+.1f}%"
        lines.append(f"  {r.case:<22} {r.stat:<11} {_fmt(r.measured, r.unit):>10} {b:>10} {f:>10} {e:>8}")
    lines.append("  (latencies in us, iops in IOPS; before = catalog values, fitted = with the "
                 "fit; error = (fitted - measured) / measured)")
    return "\n".join(lines) + "\n"


def _fmt(v: float, unit: str) -> str:
    return f"{v / 1e3:.1f}" if unit == "us" else f"{v:.1f}" if unit == "CPUs" else f"{v:.0f}"

