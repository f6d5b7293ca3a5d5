"""Calibration case files.

A case pairs one scenario with measurements taken on the cluster it models::

    name: wido-2019
    description: ...
    scenario: ../../scenarios/wido-2019-nautilus.yaml   # relative to the case file
    set: [ceph.release=quincy]                         # optional --set overrides
    direction: write                                   # fio direction compared (default write)
    measurements:
      - file: ../wido-2019/fio-normal.txt              # any file `cephsim inspect` reads
        source: "seed 000, ..."                        # where the file comes from (required)
        job: 0                                         # fio job block (default 0)
        stats: [lat.mean, clat.p50, clat.p99, clat.p99.9]
      - values: {lat.mean: 421us, clat.p99: 465us}     # published figures without a file
        source: "https://..."
    reference:                                         # kept with the case, not fitted
      - {file: ../x/ping.txt, source: "...", note: "why it is not fitted"}
    sigma: {clat.p99.9: 0.3}                           # optional: relative tolerance per stat

Statistics: ``lat.mean``, ``clat.mean``, ``slat.mean``, ``lat.pNN`` /
``clat.pNN`` (fio percentiles, e.g. ``clat.p99.9``) and ``iops``.
A missing scenario makes the case *skipped* (with the reason); anything else
that is wrong (missing measurement file, unknown statistic, a statistic the
file does not contain) is a :class:`CephsimError` naming the case file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

from cephsim.errors import CephsimError
from cephsim.units import parse_duration_ns

STAT_RE = re.compile(r"^(?:(lat|clat|slat)\.(mean|p\d+(?:\.\d+)?)|iops)$")

#: default relative tolerance (1 sigma) per statistic kind: what a residual is divided by
DEFAULT_SIGMA = {"mean": 0.02, "p50": 0.03, "p90": 0.04, "p95": 0.05, "p99": 0.08,
                 "p99.5": 0.15, "p99.9": 0.25, "p99.95": 0.35, "p99.99": 0.5, "iops": 0.03}


def check_stat(name: str) -> str:
    if not STAT_RE.match(name):
        raise ValueError(f"unknown statistic {name!r}; use lat.mean, clat.mean, slat.mean, "
                         "lat.pNN, clat.pNN (e.g. clat.p99.9) or iops")
    return name


def stat_percentile(name: str) -> float | None:
    """99.9 for ``clat.p99.9``; None for means and iops."""
    if name == "iops":
        return None
    what = name.split(".", 1)[1]
    return float(what[1:]) if what.startswith("p") else None


def default_sigma(name: str) -> float:
    if name == "iops":
        return DEFAULT_SIGMA["iops"]
    what = name.split(".", 1)[1]
    if what == "mean":
        return DEFAULT_SIGMA["mean"]
    p = float(what[1:])
    for key in ("p50", "p90", "p95", "p99", "p99.5", "p99.9", "p99.95", "p99.99"):
        if p <= float(key[1:]):
            return DEFAULT_SIGMA[key]
    return 0.5


@dataclass
class Target:
    """One measured statistic to match."""

    stat: str
    value: float  #: ns for latencies, 1/s for iops
    sigma: float  #: relative tolerance used to weigh the residual
    source: str
    file: str | None = None

    @property
    def unit(self) -> str:
        return "IOPS" if self.stat == "iops" else "us"


@dataclass
class Case:
    name: str
    path: Path
    scenario_path: Path
    overrides: list[str]
    direction: str
    targets: list[Target]
    description: str = ""
    references: list[dict[str, Any]] = field(default_factory=list)
    skip_reason: str | None = None
    notes: str = ""


def _err(path: Path, msg: str, key: str | None = None) -> CephsimError:
    return CephsimError.single(msg, file=str(path), path=key)


def load_case(path: str | Path) -> Case:
    """Read and check a case file (raises CephsimError)."""
    path = Path(path)
    try:
        data = YAML(typ="safe").load(path.read_text("utf-8"))
    except FileNotFoundError:
        raise _err(path, "no such case file") from None
    except Exception as e:  # noqa: BLE001 - any YAML/decoding problem is a user error
        raise _err(path, f"cannot read case file: {e}") from None
    if not isinstance(data, dict):
        raise _err(path, "a case file must be a YAML mapping")
    known = {"name", "description", "scenario", "set", "direction", "measurements",
             "reference", "sigma", "notes"}
    for k in data:
        if k not in known:
            raise _err(path, f"unknown key; known: {', '.join(sorted(known))}", str(k))
    base = path.parent
    if "scenario" not in data:
        raise _err(path, "missing: the scenario this case calibrates", "scenario")
    scen = (base / str(data["scenario"])).resolve()
    name = str(data.get("name") or path.stem)
    overrides = [str(s) for s in (data.get("set") or [])]
    direction = str(data.get("direction", "write"))
    if direction not in ("write", "read"):
        raise _err(path, "direction must be write or read", "direction")
    sig_over = data.get("sigma") or {}
    if not isinstance(sig_over, dict):
        raise _err(path, "sigma must be a mapping stat: relative tolerance", "sigma")
    for k in sig_over:
        try:
            check_stat(str(k))
        except ValueError as e:
            raise _err(path, str(e), f"sigma.{k}") from None
    targets: list[Target] = []
    meas = data.get("measurements")
    if not isinstance(meas, list) or not meas:
        raise _err(path, "a case needs a list of measurements", "measurements")
    for i, m in enumerate(meas):
        key = f"measurements.{i}"
        if not isinstance(m, dict):
            raise _err(path, "each measurement is a mapping (file or values, source, stats)", key)
        src = m.get("source")
        if not src:
            raise _err(path, "every measurement needs its source", f"{key}.source")
        if "file" in m:
            targets += _from_file(path, key, base / str(m["file"]), m, str(src), sig_over,
                                  direction)
        elif "values" in m:
            vals = m["values"]
            if not isinstance(vals, dict) or not vals:
                raise _err(path, "values must be a mapping stat: value", f"{key}.values")
            for stat, v in vals.items():
                stat = str(stat)
                try:
                    check_stat(stat)
                    value = float(v) if stat == "iops" else float(parse_duration_ns(v))
                except (ValueError, CephsimError) as e:
                    raise _err(path, str(e), f"{key}.values.{stat}") from None
                targets.append(Target(stat, value, float(sig_over.get(stat, default_sigma(stat))),
                                      str(src)))
        else:
            raise _err(path, "a measurement has either a file or values", key)
    refs = []
    for i, r in enumerate(data.get("reference") or []):
        if not isinstance(r, dict) or "file" not in r or "source" not in r:
            raise _err(path, "a reference is {file, source, note}", f"reference.{i}")
        f = base / str(r["file"])
        if not f.exists():
            raise _err(path, f"reference file not found: {f}", f"reference.{i}.file")
        refs.append({**r, "file": str(f)})
    seen = [t.stat for t in targets]
    dup = sorted({s for s in seen if seen.count(s) > 1})
    if dup:
        raise _err(path, f"statistic(s) given twice: {', '.join(dup)}", "measurements")
    skip = None
    if not scen.exists():
        skip = (f"scenario {data['scenario']} does not exist (yet); case skipped "
                f"({path})")
    return Case(name=name, path=path, scenario_path=scen, overrides=overrides,
                direction=direction, targets=targets, description=str(data.get("description", "")),
                references=refs, skip_reason=skip, notes=str(data.get("notes", "")))


def _from_file(case_path: Path, key: str, f: Path, m: dict[str, Any], src: str,
               sig_over: dict[str, Any], direction: str) -> list[Target]:
    """The statistics of the case's ``direction`` (write or read) in one fio output."""
    from cephsim.readers.detect import read_any
    from cephsim.readers.model import FioMeasurement

    if not f.exists():
        raise _err(case_path, f"measurement file not found: {f}", f"{key}.file")
    stats = m.get("stats")
    if not isinstance(stats, list) or not stats:
        raise _err(case_path, "list the statistics to match from this file", f"{key}.stats")
    for s in stats:
        try:
            check_stat(str(s))
        except ValueError as e:
            raise _err(case_path, str(e), f"{key}.stats") from None
    meas = read_any(f)
    if not isinstance(meas, FioMeasurement):
        raise _err(case_path, f"{f}: only fio output can be matched (this is {meas.format}); "
                   "list it under reference", f"{key}.file")
    job_i = int(m.get("job", 0))
    if not 0 <= job_i < len(meas.jobs):
        raise _err(case_path, f"{f} has {len(meas.jobs)} job block(s); job {job_i} does not exist",
                   f"{key}.job")
    d = meas.jobs[job_i].directions.get(direction)
    if d is None:
        raise _err(case_path, f"{f}: job {job_i} has no {direction} results", f"{key}.file")
    out = []
    for s in map(str, stats):
        v = _fio_value(d, s)
        if v is None:
            raise _err(case_path, f"{f}: the file has no value for {s}", f"{key}.stats")
        out.append(Target(s, float(v), float(sig_over.get(s, default_sigma(s))), src, str(f)))
    return out


def _fio_value(d: Any, stat: str) -> float | None:
    if stat == "iops":
        return d.iops
    kind, what = stat.split(".", 1)
    if what == "mean":
        ls = getattr(d, kind)
        return None if ls is None else ls.mean_ns
    p = float(what[1:])
    if (d.percentiles_of or "clat") != kind:
        return None
    for k, v in d.percentiles.items():
        if abs(float(k) - p) < 1e-9:
            return v
    return None


def load_cases(paths: list[str | Path]) -> list[Case]:
    cases = [load_case(p) for p in paths]
    names = [c.name for c in cases]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise CephsimError.single(f"case name(s) given twice: {', '.join(dup)}")
    return cases
