"""Simulate calibration cases and compare them with their measurements.

Common random numbers: every evaluation of the objective runs each case with
the same seeds (``seed0 .. seed0+K-1``), so two parameter vectors differ only
by the parameters, not by the draws; the per-component random streams of
:mod:`cephsim.model.rng` keep that true as far as the model allows.  During the fit
the statistics come from the raw per-op samples of all seeds pooled
(``numpy.quantile``, continuous in the parameters); verification runs report
fio's own histogram percentiles, like the measured files.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cephsim.api import load_resolved
from cephsim.errors import CephsimError
from cephsim.formats.report.summary import job_stats
from cephsim.model.resolve import Resolved
from cephsim.model.runner import run_scenario
from cephsim.spec.software import ReleaseCosts
from cephsim.tools.calibrate.cases import CPU_STAT, Case, stat_percentile
from cephsim.tools.calibrate.params import Param, set_values


@dataclass
class CaseModel:
    """A case with its scenario loaded and resolved once."""

    case: Case
    scenario: Any
    resolved: Resolved
    release: str = field(init=False)

    def __post_init__(self) -> None:
        self.release = self.resolved.ceph.release

    @property
    def costs(self) -> ReleaseCosts:
        return self.resolved.ceph.costs


def prepare(case: Case) -> CaseModel:
    if case.skip_reason:
        raise CephsimError.single(case.skip_reason)
    sc, r = load_resolved(case.scenario_path, case.overrides or None)
    return CaseModel(case, sc, r)


#: this process's prepared cases (a worker of a pool or a Dask cluster keeps its own)
_PREPARED: dict[tuple[str, str], CaseModel] = {}


def _key(case: Case) -> tuple[str, str]:
    return str(case.path), case.name


def prepared(case: Case) -> CaseModel:
    """:func:`prepare`, once per case and process."""
    key = _key(case)
    if key not in _PREPARED:
        _PREPARED[key] = prepare(case)
    return _PREPARED[key]


def case_stats(case: Case, values: dict[str, float], seeds: list[int], ios: int | None,
               exact: bool = True) -> dict[str, float]:
    """:func:`simulate` of a case by the case alone (what a worker process is sent): it
    is prepared there, once per process, as :func:`prepare` prepares it here."""
    return simulate(prepared(case), values, seeds, ios, exact)


def simulate_all(models: list[CaseModel], values: list[dict[str, float]], seeds: list[int],
                 ios: int | None, exact: bool, workers: Any = None) -> list[dict[str, float]]:
    """:func:`simulate` of each model with its values: here, one after the other, or
    (``workers``, a :class:`~cephsim.tools.workers.Workers`) in parallel, in order."""
    if workers is None:
        return [simulate(m, v, seeds, ios, exact) for m, v in zip(models, values)]
    for m in models:  # runs the workers make in this process use these, not a second load
        _PREPARED.setdefault(_key(m.case), m)
    return workers.map(case_stats, [(m.case, v, seeds, ios, exact)
                                    for m, v in zip(models, values)])


def param_values(params: list[Param], x: np.ndarray, release: str) -> dict[str, float]:
    return {p.name: math.exp(float(v)) for p, v in zip(params, x) if p.applies(release)}


def with_costs(cm: CaseModel, values: dict[str, float]) -> Resolved:
    if not values:
        return cm.resolved
    costs = set_values(cm.costs, values)
    return dataclasses.replace(cm.resolved, ceph=dataclasses.replace(cm.resolved.ceph, costs=costs))


def simulate(cm: CaseModel, values: dict[str, float], seeds: list[int], ios: int | None,
             exact: bool = True) -> dict[str, float]:
    """The case's statistics with the given parameter values (ns / IOPS)."""
    r = with_costs(cm, values)
    sc = cm.scenario
    if ios is not None:
        r = r.with_run(ios=ios, runtime=None)
        sc = r.scenario
    lat, clat, slat, iops, cpu = [], [], [], [], []
    results = []
    for s in seeds:
        res = run_scenario(sc, scenario_path=cm.case.scenario_path, seed=s, resolved=r)
        results.append(res)
        a = res.records.arrays()
        mask = a["is_write"] if cm.case.direction == "write" else ~a["is_write"]
        sub, se, done = a["submit"][mask], a["slat_end"][mask], a["complete"][mask]
        lat.append(done - sub)
        clat.append(done - se)
        slat.append(se - sub)
        iops.append(mask.sum() / (res.runtime_ns / 1e9))
        cpu.append(osd_cpu_per_host(res))
    if not exact and len(seeds) == 1:
        return _fio_stats(cm, results[0])
    arrs = {"lat": np.concatenate(lat), "clat": np.concatenate(clat), "slat": np.concatenate(slat)}
    out: dict[str, float] = {}
    for t in cm.case.targets:
        if t.stat == "iops":
            out[t.stat] = float(np.mean(iops))
            continue
        if t.stat == CPU_STAT:
            out[t.stat] = float(np.mean(cpu))
            continue
        kind = t.stat.split(".")[0]
        p = stat_percentile(t.stat)
        x = arrs[kind]
        if x.size == 0:
            raise CephsimError.single(f"case {cm.case.name}: the simulation produced no "
                                      f"{cm.case.direction} I/O")
        out[t.stat] = float(x.mean()) if p is None else float(np.quantile(x, p / 100.0))
    return out


def osd_cpu_per_host(res: Any) -> float:
    """The OSD daemons' CPU in a run (logical CPUs busy, as top shows it) summed per host,
    averaged over the hosts with OSDs."""
    per_osd = res.cpu_cores.get("osds") or {}
    hosts = set(res.resolved.osd_host.values())
    return sum(per_osd.values()) / len(hosts) if hosts else 0.0


def _fio_stats(cm: CaseModel, res: Any) -> dict[str, float]:
    js = job_stats(res)
    d = js.write if cm.case.direction == "write" else js.read
    out: dict[str, float] = {}
    for t in cm.case.targets:
        if t.stat == "iops":
            out[t.stat] = float(d.iops)
            continue
        if t.stat == CPU_STAT:
            out[t.stat] = osd_cpu_per_host(res)
            continue
        kind = t.stat.split(".")[0]
        p = stat_percentile(t.stat)
        if p is None:
            out[t.stat] = float(getattr(d, kind).mean)
        else:
            pct = d.clat_percentiles if kind == "clat" else d.lat_percentiles
            hit = [v for k, v in pct.items() if abs(float(k) - p) < 1e-9]
            if hit:
                out[t.stat] = float(hit[0])
            else:  # not in fio's default list: exact quantile
                a = res.records.arrays()
                m = a["is_write"] if cm.case.direction == "write" else ~a["is_write"]
                start = a["slat_end"] if kind == "clat" else a["submit"]
                out[t.stat] = float(np.quantile((a["complete"] - start)[m], p / 100.0))
    return out


def residuals(cm: CaseModel, sim: dict[str, float]) -> list[float]:
    """ln(simulated / measured) / sigma per target (sigma: relative tolerance)."""
    return [math.log(max(sim[t.stat], 1e-9) / t.value) / t.sigma for t in cm.case.targets]


def rel_error(sim: float, meas: float) -> float:
    return 100.0 * (sim - meas) / meas
