"""Calibration case files.

The full account: docs/model.md, "Inside the model", `cephsim.tools.calibrate.cases`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cephsim.errors import CephsimError
from cephsim.formats.readers.common import finite_number
from cephsim.formats.readers.detect import read_any
from cephsim.formats.readers.model import FioMeasurement
from cephsim.units import format_duration, parse_duration_ns
from cephsim.yamlfile import located, parse_yaml_text, read_text, unknown_keys

STAT_RE = re.compile(r"^(?:(lat|clat|slat)\.(mean|p\d+(?:\.\d+)?)|iops|cpu\.osd_host)$")
#: the OSD daemons' CPU use on a host with OSDs, in logical CPUs (top's %CPU / 100, summed
#: over the host's OSD processes), averaged over the hosts with OSDs: what a source means
#: by "total CPU usage by OSDs about 40 virtual cores on each node"
CPU_STAT = "cpu.osd_host"

#: default relative tolerance (1 sigma) per statistic kind: what a residual is divided by
DEFAULT_SIGMA = {"mean": 0.02, "p50": 0.03, "p90": 0.04, "p95": 0.05, "p99": 0.08,
                 "p99.5": 0.15, "p99.9": 0.25, "p99.95": 0.35, "p99.99": 0.5, "iops": 0.03,
                 "cpu": 0.10}


def check_stat(name: str) -> str:
    if not STAT_RE.match(name):
        raise ValueError(f"unknown statistic {name!r}; use lat.mean, clat.mean, slat.mean, "
                         "lat.pNN, clat.pNN (e.g. clat.p99.9), iops or cpu.osd_host")
    p = stat_percentile(name)
    if p is not None and not 0.0 < p < 100.0:
        raise ValueError(f"a percentile is between 0 and 100 (exclusive), e.g. clat.p99.9; "
                         f"got p{p:g}")
    return name


def stat_percentile(name: str) -> float | None:
    """99.9 for ``clat.p99.9``; None for means, iops and cpu.osd_host."""
    if name in ("iops", CPU_STAT):
        return None
    what = name.split(".", 1)[1]
    return float(what[1:]) if what.startswith("p") else None


def unit_of(stat: str) -> str:
    """The unit a statistic is shown in: IOPS, CPUs, or us (latencies, held in ns)."""
    return {"iops": "IOPS", CPU_STAT: "CPUs"}.get(stat, "us")


def default_sigma(name: str) -> float:
    if name == "iops":
        return DEFAULT_SIGMA["iops"]
    if name == CPU_STAT:
        return DEFAULT_SIGMA["cpu"]
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
        return unit_of(self.stat)


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
    #: the cluster the measurement was taken on: leave-one-cluster-out leaves out all of
    #: its cases together (default: the case's own name)
    cluster: str = ""
    corpus: str = "qd1"
    assumptions: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.cluster = self.cluster or self.name


_CASE_KEYS = ("name", "description", "scenario", "set", "direction", "measurements",
              "reference", "sigma", "notes", "cluster", "corpus", "assumptions", "written")
_FILE_KEYS = ("file", "source", "quote", "job", "stats", "note")
_VALUES_KEYS = ("values", "source", "quote", "note")
#: what a case is for: ``qd1`` (the leave-one-cluster-out corpus: low queue depth latency),
#: ``load`` (saturation or mid queue depth: checked, not in the corpus fit)
CORPUS_ROLES = ("qd1", "load")
_REFERENCE_KEYS = ("file", "source", "note")


class _Where:
    """Builds errors located at a key of the case file (file:line:col: dotted.path: ...)."""

    def __init__(self, path: Path, data: Any = None) -> None:
        self.path, self.data = path, data

    def err(self, msg: str, *loc: Any) -> CephsimError:
        return CephsimError([located(msg, str(self.path), self.data, *loc)])

    def unknown_keys(self, node: dict[Any, Any], known: tuple[str, ...], what: str,
                     *loc: Any) -> None:
        problems = unknown_keys(node, known, what, str(self.path), self.data, *loc)
        if problems:
            raise CephsimError(problems[:1])


def _positive_number(v: Any) -> float | None:
    """A finite number > 0 (not a bool, not a string, not an int too large for a float),
    else None."""
    f = finite_number(v)
    return f if f is not None and f > 0 else None


def _measured_value(stat: str, v: Any) -> float:
    """A value under ``values:``: IOPS and CPUs as plain numbers, a latency with its unit; > 0."""
    if stat in ("iops", CPU_STAT):
        what = ("iops is a plain number of I/Os per second (e.g. 2500)" if stat == "iops" else
                f"{stat} is a plain number of logical CPUs busy (e.g. 40)")
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ValueError(f"{what}, got {v!r}")
        f = _positive_number(v)
        if f is None:
            raise ValueError(f"a measured {stat} must be a finite number > 0, got {v!r}")
        return f
    ns = parse_duration_ns(v)  # a UnitError (a ValueError) for a bad or overflowing unit
    if ns <= 0:
        raise ValueError(f"a measured latency must be > 0, got {v!r}")
    return float(ns)


def _read_case_yaml(path: Path) -> Any:
    return parse_yaml_text(read_text(path, "case file"), str(path))


def load_case(path: str | Path) -> Case:
    """Read and check a case file (raises CephsimError located at the file and line)."""
    path = Path(path)
    data = _read_case_yaml(path)
    w = _Where(path, data)
    if data is None:
        raise w.err("the case file is empty")
    if not isinstance(data, dict):
        raise CephsimError.single("a case file must be a YAML mapping (key: value)",
                                  file=str(path), line=1)
    w.unknown_keys(data, _CASE_KEYS, "a case file")
    base = path.parent
    if "scenario" not in data:
        raise w.err("missing: the scenario this case calibrates", "scenario")
    if not isinstance(data["scenario"], str) or not data["scenario"].strip():
        raise w.err("the path of a scenario file (relative to the case file)", "scenario")
    scen = (base / data["scenario"]).resolve()
    name = str(data.get("name") or path.stem)
    raw_set = data.get("set")
    if raw_set is None:
        overrides: list[str] = []
    elif isinstance(raw_set, list):
        for i, s in enumerate(raw_set):
            if not isinstance(s, str) or "=" not in s:
                raise w.err(f"each override is a string dotted.path=value, got {s!r}", "set", i)
        overrides = list(raw_set)
    else:
        raise w.err("a list of dotted.path=value overrides, e.g. [ceph.release=quincy]",
                    "set")
    direction = data.get("direction", "write")
    if direction not in ("write", "read"):
        raise w.err("direction must be write or read", "direction")
    sig_over = data.get("sigma")
    if sig_over is None:
        sig_over = {}
    if not isinstance(sig_over, dict):
        raise w.err("a mapping stat: relative tolerance (e.g. {clat.p99.9: 0.3})",
                    "sigma")
    sigmas: dict[str, float] = {}
    for k, v in sig_over.items():
        try:
            check_stat(str(k))
        except ValueError as e:
            raise w.err(str(e), "sigma", k) from None
        f = _positive_number(v)
        if f is None:
            raise w.err(f"a relative tolerance is a finite number > 0 (0.05 = 5 %), got {v!r}",
                        "sigma", k)
        sigmas[str(k)] = f

    def sigma(stat: str) -> float:
        return sigmas.get(stat, default_sigma(stat))

    targets: list[Target] = []
    where_stat: dict[str, tuple[Any, ...]] = {}
    meas = data.get("measurements")
    if not isinstance(meas, list) or not meas:
        raise w.err("a case needs a list of measurements", "measurements")
    for i, m in enumerate(meas):
        loc: tuple[Any, ...] = ("measurements", i)
        if not isinstance(m, dict):
            raise w.err("each measurement is a mapping (file or values, source, stats)", *loc)
        if "file" in m and "values" in m:
            raise w.err("a measurement has either a file or values, not both; "
                        "make them two measurements", *loc)
        if "file" not in m and "values" not in m:
            raise w.err("a measurement has either a file or values", *loc)
        w.unknown_keys(m, _FILE_KEYS if "file" in m else _VALUES_KEYS,
                       "a file measurement" if "file" in m else "a values measurement", *loc)
        src = m.get("source")
        if not src or not isinstance(src, str):
            raise w.err("every measurement needs its source (where the numbers come from)",
                        *loc, "source")
        if "file" in m:
            new = _from_file(w, loc, base, m, src, sigma, direction)
            for t in new:
                where_stat.setdefault(t.stat, loc + ("stats",))
            targets += new
        else:
            vals = m["values"]
            if not isinstance(vals, dict) or not vals:
                raise w.err("values must be a mapping stat: value", *loc, "values")
            for stat, v in vals.items():
                stat_s = str(stat)
                try:
                    check_stat(stat_s)
                    value = _measured_value(stat_s, v)
                except (ValueError, CephsimError) as e:
                    raise w.err(str(e), *loc, "values", stat) from None
                where_stat.setdefault(stat_s, loc + ("values", stat))
                targets.append(Target(stat_s, value, sigma(stat_s), src))
    refs = []
    raw_refs = data.get("reference")
    if raw_refs is not None and not isinstance(raw_refs, list):
        raise w.err("reference is a list of {file, source, note}", "reference")
    for i, r in enumerate(raw_refs or []):
        if not isinstance(r, dict) or "file" not in r or "source" not in r:
            raise w.err("a reference is {file, source, note}", "reference", i)
        w.unknown_keys(r, _REFERENCE_KEYS, "a reference", "reference", i)
        if not isinstance(r["file"], str):
            raise w.err("the path of a file (relative to the case file)", "reference", i, "file")
        f = base / r["file"]
        if not f.is_file():
            raise w.err(f"reference file not found: {f}", "reference", i, "file")
        refs.append({**r, "file": str(f)})
    seen = [t.stat for t in targets]
    dup = sorted({s for s in seen if seen.count(s) > 1})
    if dup:
        raise w.err(f"statistic(s) given twice: {', '.join(dup)}", *where_stat[dup[0]])
    _check_percentile_order(w, targets, where_stat)
    unused = [s for s in sigmas if s not in seen]
    if unused:
        raise w.err(f"no measurement gives {unused[0]}: its tolerance would be unused",
                    "sigma", unused[0])
    skip = None
    if not scen.exists():
        skip = (f"scenario {data['scenario']} does not exist (yet); case skipped "
                f"({path})")
    cluster = data.get("cluster", name)
    if not isinstance(cluster, str) or not cluster.strip():
        raise w.err("cluster names the measured cluster (a short id shared by its cases)",
                    "cluster")
    corpus = data.get("corpus", "qd1")
    if corpus not in CORPUS_ROLES:
        raise w.err(f"corpus is one of {', '.join(CORPUS_ROLES)}, got {corpus!r}", "corpus")
    assumptions = data.get("assumptions", [])
    if not isinstance(assumptions, list) or not all(isinstance(a, str) for a in assumptions):
        raise w.err("assumptions is a list of sentences, one per assumption", "assumptions")
    return Case(name=name, path=path, scenario_path=scen, overrides=overrides,
                direction=direction, targets=targets, description=str(data.get("description", "")),
                references=refs, skip_reason=skip, notes=str(data.get("notes", "")),
                cluster=cluster.strip(), corpus=corpus, assumptions=list(assumptions))


def _check_percentile_order(w: _Where, targets: list[Target],
                            where_stat: dict[str, tuple[Any, ...]]) -> None:
    """Percentiles of one latency kind cannot decrease: p50 <= p99 <= p99.9 ..."""
    by_kind: dict[str, list[tuple[float, Target]]] = {}
    for t in targets:
        p = stat_percentile(t.stat)
        if p is not None:
            by_kind.setdefault(t.stat.split(".", 1)[0], []).append((p, t))
    for pts in by_kind.values():
        pts.sort(key=lambda x: x[0])
        for (_, lo), (_, hi) in zip(pts, pts[1:]):
            if hi.value < lo.value:
                raise w.err(f"{hi.stat} ({format_duration(hi.value)}) is below {lo.stat} "
                            f"({format_duration(lo.value)}): percentiles cannot decrease",
                            *where_stat[hi.stat])


def _from_file(w: _Where, loc: tuple[Any, ...], base: Path, m: dict[str, Any], src: str,
               sigma: Any, direction: str) -> list[Target]:
    """The statistics of the case's ``direction`` (write or read) in one fio output."""
    if not isinstance(m["file"], str) or not m["file"].strip():
        raise w.err("the path of a measurement file (relative to the case file)", *loc, "file")
    f = base / m["file"]
    if not f.exists():
        raise w.err(f"measurement file not found: {f}", *loc, "file")
    if f.is_dir():
        raise w.err(f"{f} is a directory, expected a measurement file", *loc, "file")
    stats = m.get("stats")
    if not isinstance(stats, list) or not stats:
        raise w.err("list the statistics to match from this file", *loc, "stats")
    for j, s in enumerate(stats):
        try:
            if not isinstance(s, str):
                raise ValueError(f"a statistic name such as lat.mean, got {s!r}")
            check_stat(s)
        except ValueError as e:
            raise w.err(str(e), *loc, "stats", j) from None
    job_i = m.get("job", 0)
    if isinstance(job_i, bool) or not isinstance(job_i, int):
        raise w.err(f"job is the number of a fio job block (0, 1, ...), got {job_i!r}",
                    *loc, "job")
    meas = read_any(f)
    if not isinstance(meas, FioMeasurement):
        raise w.err(f"{f}: only fio output can be matched (this is {meas.format}); "
                    "list it under reference", *loc, "file")
    if not 0 <= job_i < len(meas.jobs):
        raise w.err(f"{f} has {len(meas.jobs)} job block(s); job {job_i} does not exist",
                    *loc, "job")
    d = meas.jobs[job_i].directions.get(direction)
    if d is None:
        raise w.err(f"{f}: job {job_i} has no {direction} results", *loc, "file")
    out = []
    for j, s in enumerate(stats):
        v = _fio_value(d, s)
        if v is None:
            raise w.err(f"{f}: the file has no value for {s}", *loc, "stats", j)
        if _positive_number(v) is None:
            raise w.err(f"{f}: the file's {s} is {v!r}; a measured value must be > 0",
                        *loc, "stats", j)
        out.append(Target(s, float(v), sigma(s), src, str(f)))
    return out


def _fio_value(d: Any, stat: str) -> float | None:
    if stat == "iops":
        return d.iops
    if stat == CPU_STAT:  # fio does not measure the OSDs
        return None
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
