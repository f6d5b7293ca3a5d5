"""Parameter sweeps: a grid of scenario variants, each run with K seeds, in parallel.

The full account: docs/model.md, "Inside the model", `cephsim.tools.sweep`.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, Iterable, Sequence

from cephsim import __version__
from cephsim.api import load_resolved
from cephsim.errors import CephsimError, Problem
from cephsim.formats.output import check_output_tree, write_tree
from cephsim.formats.report.fio_bench import bench_path
from cephsim.formats.report.fio_json import (
    dumps_fio_json,
    fio_json,
    report_time_ms,
    source_date_epoch,
)
from cephsim.formats.report.fio_stats import pool_runs
from cephsim.formats.report.summary import breakdown, job_stats
from cephsim.model.runner import run_scenario
from cephsim.scenario.problems import validation_problems
from cephsim.scenario.schema import SweepBlock
from cephsim.tools.progress import ProgressBar
from cephsim.tools.stats import LEVEL, batch_mean_values, fmt_ci, mean_ci
from cephsim.tools.workers import Workers
from cephsim.yamlfile import located, read_scenario_data

#: metrics reported per point: key, column title, unit
METRICS: tuple[tuple[str, str, str], ...] = (
    ("iops", "IOPS", ""),
    ("mean_us", "mean", "us"),
    ("p50_us", "p50", "us"),
    ("p99_us", "p99", "us"),
    ("p999_us", "p99.9", "us"),
)


# ----------------------------------------------------------------- axes and points


@dataclass(frozen=True)
class Axis:
    path: str  #: dotted field path, as for ``--set``
    values: tuple[str, ...]  #: YAML texts of the values
    #: where each value is written, for an axis of a ``sweep:`` block: (file, line, column)
    where: tuple[tuple[str, int | None, int | None], ...] = field(default=(), compare=False)


@dataclass(frozen=True)
class Point:
    index: int
    settings: tuple[tuple[str, str], ...]  #: (path, YAML text) per axis

    @property
    def overrides(self) -> list[str]:
        return [f"{p}={v}" for p, v in self.settings]

    @property
    def label(self) -> str:
        return ", ".join(f"{p}={v}" for p, v in self.settings) or "(scenario as is)"


def split_values(text: str) -> list[str]:
    """``a,b,[1,2],'x,y'`` -> ``['a', 'b', '[1,2]', "'x,y'"]`` (commas inside brackets or quotes stay)."""
    out, cur, depth, quote = [], [], 0, ""
    for ch in text:
        if quote:
            cur.append(ch)
            if ch == quote:
                quote = ""
            continue
        if ch in "'\"":
            quote = ch
        elif ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    out.append("".join(cur).strip())
    return out


def parse_axis(text: str) -> Axis:
    """``path=v1,v2,...`` (a ``--set`` of a sweep)."""
    if "=" not in text:
        raise CephsimError.single(f"--set {text!r}: expected dotted.path=value1,value2,...")
    path, _, raw = text.partition("=")
    path = path.strip()
    if not path or any(not k for k in path.split(".")):
        raise CephsimError.single(f"--set {text!r}: empty field path")
    values = split_values(raw) if raw.strip() else []
    if not values or any(v == "" for v in values):
        raise CephsimError.single(f"--set {text!r}: empty list of values (give path=v1,v2,...)"
                                  if not values else f"--set {text!r}: empty value in the list")
    return Axis(path, tuple(values))


def _yaml_text(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "null"
    if isinstance(v, (dict, list)):
        return json.dumps(v)
    return str(v)


def block_axes(path: str | Path) -> tuple[list[Axis], int | None]:
    """Axes and seeds from the ``sweep:`` block of a scenario file (none if absent).

    The block is parsed by the scenario schema (:class:`SweepBlock`) on its own, so a bad
    block gets the same located message as from ``cephsim run``, and a base scenario that
    only becomes valid at the sweep's points is still accepted here."""
    from pydantic import ValidationError

    data = read_scenario_data(Path(path))
    block = data.get("sweep") if isinstance(data, dict) else None
    if block is None:
        return [], None
    try:
        sweep = SweepBlock.model_validate(block)
    except ValidationError as err:
        raise CephsimError(validation_problems(err, data, str(path), prefix=("sweep",))) from None
    def where(*loc: Any) -> tuple[str, int | None, int | None]:
        at = located("", str(path), data, "sweep", "set", *loc)
        return str(path), at.line, at.column

    axes = [Axis(str(p), tuple(_yaml_text(v) for v in vals),
                 tuple(where(p, i) for i in range(len(vals))))
            for p, vals in sweep.set.items()]
    return axes, sweep.seeds


def merge_axes(block: Sequence[Axis], cli: Sequence[Axis]) -> list[Axis]:
    out = {a.path: a for a in block}
    for a in cli:
        out[a.path] = a
    return list(out.values())


def grid(axes: Sequence[Axis]) -> list[Point]:
    combos = itertools.product(*[[(a.path, v) for v in a.values] for a in axes])
    return [Point(i, tuple(c)) for i, c in enumerate(combos)]


# ----------------------------------------------------------------- validating the points


def validate_points(path: str | Path, points: Sequence[Point],
                    axes: Sequence[Axis] = (), extra: Sequence[str] = ()) -> list[Any]:
    """Load and resolve every point before anything runs; one error naming the failing points.

    A point's values reach the scenario as ``--set`` overrides (after ``extra``, overrides
    of every point); a problem with a value of the scenario's own ``sweep:`` block (in
    ``axes``) is located at that value in the file."""
    written = {f"--set {a.path}={v}": w for a in axes for v, w in zip(a.values, a.where)}
    failures: list[tuple[Point, CephsimError]] = []
    scenarios = []
    for pt in points:
        try:
            scenarios.append(load_resolved(path, [*extra, *pt.overrides])[0])
        except CephsimError as e:
            for p in e.problems:
                if p.file in written:
                    p.message = f"{p.message} (sweep value {p.file.partition('=')[2]})"
                    p.file, p.line, p.column = written[p.file]
            failures.append((pt, e))
    if not failures:
        return scenarios
    n = len(points)
    msgs = {str(e) for _, e in failures}
    problems: list[Problem] = []
    if len(failures) == n and len(msgs) == 1 and n > 1:
        for p in failures[0][1].problems:
            problems.append(Problem(f"{p} (at every one of the {n} sweep points)"))
    else:
        for pt, e in failures[:10]:
            for p in e.problems:
                problems.append(Problem(f"sweep point {pt.index + 1}/{n} ({pt.label}): {p}"))
        if len(failures) > 10:
            problems.append(Problem(f"... and {len(failures) - 10} more failing sweep points"))
    problems.append(Problem("nothing was run"))
    raise CephsimError(problems)


# ----------------------------------------------------------------- tasks


@dataclass(frozen=True)
class Task:
    """One point with one seed: plain data, picklable for process pools and Dask."""

    scenario: str
    overrides: tuple[str, ...]
    seed: int
    records: bool = False  #: keep per-op records (for the breakdown of a comparison)
    fio: bool = False  #: return the run's fio job (``fio_job``: a JobStats) too


def run_task(task: Task) -> dict[str, Any]:
    """Run one task; returns plain numbers (JSON-ready).  Errors come back as ``{"error": ...}``."""
    try:
        return _run_task(task)
    except CephsimError as e:
        return {"error": str(e)}


def _run_task(task: Task) -> dict[str, Any]:
    import numpy as np

    sc, r = load_resolved(task.scenario, task.overrides)
    if sc.run.records != task.records:  # statistics do not depend on it (records.py)
        r = r.with_run(records=task.records)
        sc = r.scenario
    res = run_scenario(sc, scenario_path=task.scenario, seed=task.seed, resolved=r,
                       keep_ops=task.records)  # a comparison's batch means read every op
    js = job_stats(res)
    direction = "write" if js.write is not None else "read"
    d = js.write if js.write is not None else js.read
    out: dict[str, Any] = {"seed": task.seed, "direction": direction, "ios": d.total_ios if d else 0,
                           # randrw: both sides ran; the write side is summarised
                           "mixed": js.write is not None and js.read is not None}
    if task.fio:
        out["fio_job"] = js
    if d is None or d.total_ios == 0:
        out.update({k: math.nan for k, _, _ in METRICS})
        return out
    out.update(direction_figures(d))
    if task.records:  # a comparison: every direction that ran, each with its breakdown
        a = res.records.arrays()
        b = breakdown(res) or {}
        out["by_direction"] = {}
        for name, ds in (("write", js.write), ("read", js.read)):
            if ds is None or ds.total_ios == 0:
                continue
            mask = a["is_write"] if name == "write" else ~a["is_write"]
            lat = (a["complete"] - a["submit"])[mask]
            out["by_direction"][name] = {
                **direction_figures(ds), "ios": ds.total_ios,
                "batch_means_us": batch_mean_values(lat / 1e3), "breakdown": b.get(name),
                "acc_sum_ns": [int(x) for x in np.asarray(a["acc"][mask]).sum(axis=0)]}
    return out


def direction_figures(d: Any) -> dict[str, float]:
    """IOPS and bandwidth over the exact run time, mean (lat) and clat percentiles of one
    direction's :class:`~cephsim.formats.report.fio_stats.DirectionStats`."""
    pct = d.clat_percentiles
    return {"iops": d.iops_exact, "bw_bytes": d.io_bytes * 1e9 / d.runtime_ns if d.runtime_ns
            else 0.0, "mean_us": d.lat.mean / 1e3, "p50_us": pct[50.0] / 1e3,
            "p99_us": pct[99.0] / 1e3, "p999_us": pct[99.9] / 1e3}


# ----------------------------------------------------------------- executors


def execute(tasks: Sequence[Task], *, jobs: int | None = None, executor: str = "local",
            scheduler: Any = None, quiet: bool = True, what: str = "simulating") -> list[dict[str, Any]]:
    """Run tasks (:class:`~cephsim.tools.workers.Workers`); results in task order whatever
    the executor and completion order."""
    with ProgressBar(len(tasks), what, quiet=quiet) as bar, \
            Workers(jobs, executor, scheduler) as workers:
        results = workers.map(run_task, [(t,) for t in tasks], bar.advance)
    errors = [(i, r["error"]) for i, r in enumerate(results) if r and "error" in r]
    if errors:
        i, msg = errors[0]
        raise CephsimError.single(f"run {i + 1} ({' '.join(tasks[i].overrides) or 'as is'}, "
                                  f"seed {tasks[i].seed}) failed: {msg}")
    return results


# ----------------------------------------------------------------- the sweep


@dataclass
class PointResult:
    point: Point
    runs: list[dict[str, Any]]  #: one per seed

    def stat(self, key: str) -> tuple[float, float | None]:
        return mean_ci([r[key] for r in self.runs])

    def fio_job(self) -> Any:
        """The point's seeds as one fio job (runs of a sweep with ``fio_dir``)."""
        if not self.runs or any("fio_job" not in r for r in self.runs):
            raise ValueError("the sweep was run without fio jobs (fio_dir)")
        return pool_runs([r["fio_job"] for r in self.runs])

    @property
    def direction(self) -> str:
        """The side the statistics are of: 'write', 'read', or 'write (randrw)'."""
        d = self.runs[0].get("direction", "write") if self.runs else "write"
        return f"{d} (randrw)" if self.runs and self.runs[0].get("mixed") else d


@dataclass
class SweepResult:
    scenario: str  #: scenario name
    path: str
    axes: list[Axis]
    seeds: list[int]
    points: list[PointResult] = field(default_factory=list)
    #: per point, its fio JSON's place in bench-fio's tree (a sweep run with ``fio_dir``)
    fio_paths: list[PurePosixPath] = field(default_factory=list)

    @property
    def direction(self) -> str:
        """The points' common direction, or 'per point' when the sweep varies it."""
        ds = {pr.direction for pr in self.points}
        return ds.pop() if len(ds) == 1 else ("per point" if ds else "write")

    # ---------------------------------------------------------- views
    def to_dict(self) -> dict[str, Any]:
        pts = []
        for pr in self.points:
            d: dict[str, Any] = {"settings": dict(pr.point.settings), "seeds": len(pr.runs),
                                 "direction": pr.direction}
            for key, _, _ in METRICS:
                m, h = pr.stat(key)
                d[key] = {"mean": _r(m), "ci": _r(h), "values": [_r(r[key]) for r in pr.runs]}
            d["ios_per_run"] = [r["ios"] for r in pr.runs]
            pts.append(d)
        return {"scenario": self.scenario, "file": self.path, "direction": self.direction,
                "axes": [{"path": a.path, "values": list(a.values)} for a in self.axes],
                "seeds": self.seeds, "confidence_level": LEVEL,
                "note": "iops = I/Os over the exact simulated run time (fio rounds it to whole "
                        "ms); mean = fio lat avg; p50/p99/p99.9 = fio clat percentiles; ci = "
                        "half-width of the t-interval across seeds (null with one seed)",
                "points": pts}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2) + "\n"

    def to_csv(self) -> str:
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        head = [a.path for a in self.axes] + ["seeds", "direction"]
        for key, _, _ in METRICS:
            head += [key, f"{key}_ci95"]
        w.writerow(head)
        for pr in self.points:
            row: list[Any] = [v for _, v in pr.point.settings] + [len(pr.runs), pr.direction]
            for key, _, _ in METRICS:
                m, h = pr.stat(key)
                row += [_r(m), "" if h is None else _r(h)]
            w.writerow(row)
        return buf.getvalue()

    def varying(self) -> list[Axis]:
        """Axes with more than one value (the others are fixed overrides)."""
        return [a for a in self.axes if len(a.values) > 1] or self.axes[:1]

    def to_text(self, width: int = 100) -> str:
        from rich import box
        from rich.console import Console
        from rich.table import Table

        k = len(self.seeds)
        vary = self.varying()
        fixed = [a for a in self.axes if a not in vary]
        big = max((pr.stat("p999_us")[0] for pr in self.points), default=0.0)
        scale, unit = (1e3, "ms") if big >= 10_000 else (1.0, "us")
        t = Table(
            title=f"{self.scenario}: {len(self.points)} point{'s' * (len(self.points) != 1)} x "
                  f"{k} seed{'s' * (k > 1)} "
            f"({self.direction})",
            title_justify="left",
            box=box.SIMPLE_HEAD,
            pad_edge=False,
            padding=(0, 1),
        )
        for a in vary:
            t.add_column(short_path(a.path), justify="right", no_wrap=True)
        per_point = self.direction == "per point"
        if per_point:  # e.g. a workload.rw axis: each row says which side it summarises
            t.add_column("stats of", no_wrap=True)
        for key, title, u in METRICS:
            t.add_column(f"{title} ({unit})" if u else title, justify="right", no_wrap=True)
        for pr in self.points:
            cells = [v for p, v in pr.point.settings if any(a.path == p for a in vary)]
            if per_point:
                cells.append(pr.direction)
            for key, _, u in METRICS:
                m, h = pr.stat(key)
                if u:
                    m, h = m / scale, (None if h is None else h / scale)
                    digits = 2 if unit == "ms" else 1
                else:
                    digits = 0 if m >= 100 else 1
                cells.append(fmt_ci(m, h, digits, sep="±"))
            t.add_row(*cells)
        buf = io.StringIO()
        Console(file=buf, width=width, force_terminal=False, color_system=None).print(t)
        seeds = (f"seeds {self.seeds[0]}..{self.seeds[-1]}" if k > 1 else f"seed {self.seeds[0]}")
        note = "".join(f"{short_path(a.path)} = {a.path}\n" for a in vary if short_path(a.path) != a.path)
        if any(pr.direction.endswith("(randrw)") for pr in self.points):
            note += ("randrw: the statistics are the writes'; `cephsim run` reports both "
                     "sides\n")
        if fixed:
            note += "fixed: " + ", ".join(f"{a.path}={a.values[0]}" for a in fixed) + "\n"
        note += (f"{seeds}; IOPS over the exact run time; mean = fio lat avg, "
                 "p50/p99/p99.9 = fio clat percentiles\n"
                 + (f"± = {LEVEL:.0%} t-interval across seeds" if k > 1 else
                    "one seed: no confidence interval (use --seeds K)"))
        return buf.getvalue() + note + "\n"


def short_path(path: str) -> str:
    """Column title for a field path: its last two components when it is long."""
    parts = path.split(".")
    return path if len(path) <= 14 or len(parts) <= 2 else ".".join(parts[-2:])


def _r(x: float | None) -> float | None:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return None
    return round(float(x), 3)


def plan(path: str | Path, cli_axes: Iterable[str] = (), seeds: int | None = None,
         seed: int | None = None) -> tuple[list[Axis], list[Point], list[int], list[Any]]:
    """Axes, grid points and seeds of a sweep; every point validated (nothing run)."""
    b_axes, b_seeds = block_axes(path)
    axes = merge_axes(b_axes, [parse_axis(s) for s in cli_axes])
    points = grid(axes)
    scenarios = validate_points(path, points, axes)
    k = seeds if seeds is not None else (b_seeds or 1)
    if k < 1:
        raise CephsimError.single("--seeds must be at least 1")
    base = scenarios[0].run.seed if seed is None else seed
    return axes, points, [base + i for i in range(k)], scenarios


#: the workload fields bench-fio's tree names a file by (the other axes name its target)
LAYOUT_FIELDS = ("workload.rw", "workload.rwmixread", "workload.bs", "workload.iodepth",
                 "workload.numjobs")


def fio_paths(axes: Sequence[Axis], points: Sequence[Point],
              scenarios: Sequence[Any]) -> list[PurePosixPath]:
    """Each point's fio JSON in bench-fio's tree (:mod:`cephsim.formats.report.fio_bench`).

    The target folder is the scenario's name, followed by the point's values of the axes
    the tree does not name a file by (``quickstart,pool.size=2``), so points that differ
    only there do not share a file; two points that would still share one are an error."""
    # a swept name already names each point's folder
    other = {a.path for a in axes if len(a.values) > 1 and a.path not in LAYOUT_FIELDS
             and a.path != "name"}
    out: list[PurePosixPath] = []
    first: dict[PurePosixPath, Point] = {}
    for pt, sc in zip(points, scenarios, strict=True):
        target = ",".join([sc.name, *(f"{short_path(p)}={v}" for p, v in pt.settings
                                      if p in other)])
        w = sc.workload
        rel = bench_path(target, w.rw, w.rwmixread, w.bs, w.iodepth, w.numjobs)
        if rel in first:
            raise CephsimError.single(
                f"--fio-dir: sweep points {first[rel].index + 1} ({first[rel].label}) and "
                f"{pt.index + 1} ({pt.label}) would both be written to {rel}: the tree names "
                "a file by rw, rwmixread, bs, iodepth and numjobs, and its folder by the other "
                "axes' values; nothing was run")
        first[rel] = pt
        out.append(rel)
    return out


def fio_documents(res: SweepResult, timestamp_ms: int | None = None) -> dict[PurePosixPath, str]:
    """Each point's fio JSON (its seeds pooled as one job), by its place in the tree."""
    ms = report_time_ms() if timestamp_ms is None else timestamp_ms
    out: dict[PurePosixPath, str] = {}
    for pr, rel in zip(res.points, res.fio_paths, strict=True):
        doc = fio_json([pr.fio_job()], fio_version=f"cephsim-{__version__}", timestamp_ms=ms)
        doc["cephsim"] = {
            "version": __version__, "scenario": res.scenario, "file": res.path,
            "settings": dict(pr.point.settings), "seeds": [r["seed"] for r in pr.runs],
            "pooled": "the seeds' runs as one job that ran them one after another: I/Os, "
                      "bytes and run times added, latencies and bw/iops samples pooled"}
        out[rel] = dumps_fio_json(doc)
    return out


def write_fio_dir(res: SweepResult, directory: str | Path) -> list[Path]:
    """Write the sweep's per-point fio JSON files under ``directory`` (bench-fio's tree)."""
    texts = fio_documents(res)  # all made before the first file is written
    return write_tree(directory, {Path(k): v for k, v in texts.items()}, "--fio-dir")


def run_sweep(path: str | Path, cli_axes: Iterable[str] = (), *, seeds: int | None = None,
              seed: int | None = None, jobs: int | None = None, executor: str = "local",
              scheduler: Any = None, quiet: bool = True, fio_dir: str | Path | None = None,
              others: Sequence[Path] = ()) -> SweepResult:
    """Plan (validating every point), run all point x seed tasks, aggregate.

    With ``fio_dir``, every point's fio JSON is placed in bench-fio's tree under it and the
    tree checked writable (``others``: files none may replace) before anything runs; the
    runs keep their fio jobs for :func:`write_fio_dir`."""
    axes, points, seed_list, scenarios = plan(path, cli_axes, seeds, seed)
    places: list[PurePosixPath] = []
    if fio_dir is not None:
        places = fio_paths(axes, points, scenarios)
        check_output_tree(fio_dir, places, "--fio-dir", [Path(path), *others])
        source_date_epoch()  # a bad value stops the sweep before it runs, not after
    tasks = [Task(str(path), tuple(pt.overrides), s, fio=fio_dir is not None)
             for pt in points for s in seed_list]
    res = execute(tasks, jobs=jobs, executor=executor, scheduler=scheduler, quiet=quiet,
                  what=f"sweep: {len(points)} point{'s' * (len(points) != 1)} x {len(seed_list)} "
                       f"seed{'s' * (len(seed_list) != 1)}")
    k = len(seed_list)
    out = SweepResult(scenario=scenarios[0].name, path=str(path), axes=axes, seeds=seed_list,
                      fio_paths=places)
    for i, pt in enumerate(points):
        out.points.append(PointResult(pt, res[i * k:(i + 1) * k]))
    return out

