"""Leave-one-out cross-validation over calibration cases.

For each case: fit the parameters on all the *other* cases, then predict the
left-out one (a verification run) and compare with its measurements.  By
default parameters are shared across releases, so the prediction uses nothing
fitted on the left-out case.  A per-release parameter whose release has no
training case keeps its catalog value and is flagged: the catalog values were
themselves set on these clusters, so such a fold is not out-of-sample for it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cephsim.errors import CephsimError
from cephsim.tools.calibrate.cases import Case
from cephsim.tools.calibrate.fit import FitOptions, calibrate
from cephsim.tools.calibrate.objective import prepare, rel_error, simulate
from cephsim.tools.calibrate.params import Param, fmt_value


@dataclass
class Fold:
    left_out: str
    trained_on: list[str]
    params: dict[str, float]
    unfitted: list[str]  #: parameters with no training case (catalog value used)
    rows: list[tuple[str, float, float, float]]  #: stat, measured, predicted, error %
    unit: dict[str, str]

    def to_dict(self) -> dict[str, Any]:
        return {"left_out": self.left_out, "trained_on": self.trained_on, "parameters": self.params,
                "not_fitted_catalog_value": self.unfitted,
                "predictions": [{"stat": s, "unit": self.unit[s],
                                 "measured": m / 1e3 if self.unit[s] == "us" else m,
                                 "predicted": p / 1e3 if self.unit[s] == "us" else p,
                                 "error_percent": round(e, 2)} for s, m, p, e in self.rows]}


def cross_validate(cases: list[Case], params: list[Param], opts: FitOptions) -> tuple[list[Fold], list[str]]:
    active = [c for c in cases if not c.skip_reason]
    skipped = [c.skip_reason or "" for c in cases if c.skip_reason]
    if len(active) < 2:
        raise CephsimError.single("cross-validation needs at least two cases that can run"
                                  + (": " + "; ".join(skipped) if skipped else ""))
    prepared = [prepare(c) for c in active]  # loaded and resolved once, not in every fold
    folds = []
    for i, c in enumerate(active):
        train = active[:i] + active[i + 1:]
        if opts.progress:
            opts.progress(f"fold {i + 1}/{len(active)}: leave out {c.name}")
        train_rel = {pm.release for j, pm in enumerate(prepared) if j != i}
        use = [p for p in params if p.release is None or p.release in train_rel]
        unfitted = [p.label for p in params if p not in use]
        m = prepared[i]
        values: dict[str, float] = {}  #: by name: what the left-out case is predicted with
        fitted: dict[str, float] = {}  #: by label: every parameter this fold fitted
        if use:
            fopts = FitOptions(**{**opts.__dict__, "verify": False})
            res = calibrate(train, use, fopts)
            values = {p.name: pr.value for p, pr in zip(use, res.params) if p.applies(m.release)}
            fitted = {p.label: pr.value for p, pr in zip(use, res.params)}
        pred = simulate(m, values, [opts.seed0], opts.verify_ios, exact=False)
        rows = [(t.stat, t.value, pred[t.stat], rel_error(pred[t.stat], t.value)) for t in c.targets]
        folds.append(Fold(c.name, [t.name for t in train], fitted,
                          unfitted, rows, {t.stat: t.unit for t in c.targets}))
    return folds, skipped


def cv_text(folds: list[Fold], skipped: list[str], params: list[Param], opts: FitOptions) -> str:
    lines = [f"leave-one-out cross-validation, free: {', '.join(p.label for p in params)} "
             f"({opts.seeds} seed(s) x {opts.ios} I/Os per fit; prediction: seed {opts.seed0}, "
             f"{opts.verify_ios or 'run.ios'} I/Os)"]
    for s in skipped:
        lines.append(f"  skipped: {s}")
    lines.append("")
    lines.append("| left out | trained on | stat | measured | predicted | error (predicted - "
                 "measured) / measured |")
    lines.append("|---|---|---|---|---|---|")
    for f in folds:
        for j, (s, m, p, e) in enumerate(f.rows):
            u = f.unit[s]
            fm = (lambda v: f"{v / 1e3:.0f} us") if u == "us" else (lambda v: f"{v:.0f}")
            lines.append(f"| {f.left_out if j == 0 else ''} | {', '.join(f.trained_on) if j == 0 else ''} "
                         f"| {s} | {fm(m)} | {fm(p)} | {e:+.1f}% |")
    lines.append("")
    for f in folds:
        ps = ", ".join(f"{k}={fmt_value(k.split('@')[0], v)}" for k, v in f.params.items())
        lines.append(f"  without {f.left_out}: {ps or '(nothing fitted)'}"
                     + (f"; catalog value (no training case of that release): {', '.join(f.unfitted)}"
                        if f.unfitted else ""))
    return "\n".join(lines) + "\n"
