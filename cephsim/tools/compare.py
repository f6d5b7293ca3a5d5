"""Side-by-side comparisons: scenarios against each other, or a simulation against fio.

``compare(paths)`` runs every scenario with the same K seeds (common random
numbers) and reports IOPS, mean, p50, p99 and p99.9 of each, the difference of
every scenario from the first with a 95% confidence interval (Welch, across
seeds; with one seed, batch means within the run), and which critical-path
categories and op-tracker stages account for the difference of the means.
The categories add up exactly to each scenario's mean latency, so their
differences add up to the difference of the means.

``compare_fio(simulated, measured)`` does the same for two fio results (a
cephsim JSON output and a real fio JSON or normal output), with intervals of
the means from fio's own mean, stddev and N (treating ops as independent, so
optimistic).
"""

from __future__ import annotations

import io
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from cephsim.errors import CephsimError
from cephsim.metrics.records import CATEGORIES
from cephsim.tools.stats import LEVEL, diff_ci, fmt_ci, mean_ci, welch_summary

ROWS = (("iops", "IOPS", ""), ("mean_us", "mean latency", "us"), ("p50_us", "p50 (clat)", "us"),
        ("p99_us", "p99 (clat)", "us"), ("p999_us", "p99.9 (clat)", "us"))
CAT_LABEL = {"network": "network", "cpu": "CPU work", "wake": "C-state wake-ups", "disk": "disk",
             "queue": "queueing"}


@dataclass
class Side:
    """One column of a comparison."""

    name: str
    source: str
    values: dict[str, list[float]]  #: metric -> per-seed values (one value for fio files)
    ci: dict[str, float | None] = field(default_factory=dict)  #: known half-widths (fio, K=1)
    batch: list[list[float]] = field(default_factory=list)  #: per-seed batch means (us)
    cats_us: dict[str, float] | None = None  #: mean critical path per category
    stages_us: dict[str, float] | None = None  #: op-tracker stages
    #: what decides the answer, given or assumed (None: a measured file)
    assumptions: dict[str, Any] | None = None


@dataclass
class Comparison:
    sides: list[Side]
    seeds: list[int] = field(default_factory=list)
    kind: str = "scenarios"  #: or "fio"
    notes: list[str] = field(default_factory=list)

    def stat(self, s: Side, key: str) -> tuple[float, float | None]:
        vals = s.values.get(key) or []
        if not vals or vals[0] is None:
            return math.nan, None
        if len(vals) > 1:
            return mean_ci(vals)
        return vals[0], s.ci.get(key)

    def diff(self, a: Side, b: Side, key: str) -> tuple[float, float | None]:
        va, vb = a.values.get(key) or [], b.values.get(key) or []
        if not va or not vb or va[0] is None or vb[0] is None:
            return math.nan, None
        if len(va) > 1 and len(vb) > 1:
            return diff_ci(va, vb)
        (ma, ha), (mb, hb) = self.stat(a, key), self.stat(b, key)
        return welch_summary(ma, ha, mb, hb)

    # ------------------------------------------------------------------ views
    def to_dict(self) -> dict[str, Any]:
        base = self.sides[0]
        out: dict[str, Any] = {"kind": self.kind, "seeds": self.seeds, "confidence_level": LEVEL,
                               "sides": []}
        for s in self.sides:
            d: dict[str, Any] = {"name": s.name, "source": s.source}
            for key, _, _ in ROWS:
                m, h = self.stat(s, key)
                d[key] = {"mean": _r(m), "ci": _r(h), "values": [_r(v) for v in s.values.get(key, [])]}
                if s is not base:
                    dm, dh = self.diff(base, s, key)
                    d[key]["diff_from_first"] = {"mean": _r(dm), "ci": _r(dh)}
            d["critical_path_us"] = s.cats_us
            d["op_tracker_us"] = s.stages_us
            d["assumptions"] = s.assumptions
            out["sides"].append(d)
        out["notes"] = self.notes
        return out

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2) + "\n"

    def to_text(self, width: int = 100) -> str:
        from rich import box
        from rich.console import Console
        from rich.table import Table

        from cephsim.formats.report.assumptions import compare_text

        base = self.sides[0]
        t = Table(box=box.SIMPLE_HEAD, pad_edge=False, title_justify="left",
                  title="compared with " + base.name + (f" ({len(self.seeds)} seeds each)"
                                                          if len(self.seeds) > 1 else ""))
        t.add_column("", no_wrap=True)
        for i, s in enumerate(self.sides):
            t.add_column(s.name, justify="right", no_wrap=True)
            if i:
                t.add_column(f"difference {_letter(i)}-A" if len(self.sides) > 2 else "difference",
                             justify="right", no_wrap=True)
        for key, title, unit in ROWS:
            cells = [f"{title} ({unit})" if unit else title]
            for i, s in enumerate(self.sides):
                m, h = self.stat(s, key)
                digits = 0 if key == "iops" and m >= 100 else 1
                cells.append(fmt_ci(m, h, digits))
                if i:
                    dm, dh = self.diff(base, s, key)
                    pct = f" ({100 * dm / self.stat(base, key)[0]:+.1f}%)" if self.stat(base, key)[0] else ""
                    cells.append(_signed(dm, dh, digits) + pct if not math.isnan(dm) else "-")
            t.add_row(*cells)
        buf = io.StringIO()
        buf.write(compare_text([(s.name, s.assumptions) for s in self.sides], width))
        con = Console(file=buf, width=width, force_terminal=False, color_system=None)
        if len(self.sides) > 2:
            for i, s in enumerate(self.sides):
                buf.write(f"{_letter(i)} = {s.name} ({s.source})\n")
        con.print(t)
        buf.write(self._explain_text())
        import textwrap

        for n in self.notes:
            buf.write(textwrap.fill(n, width, initial_indent="note: ",
                                    subsequent_indent="      ") + "\n")
        return buf.getvalue()

    def _explain_text(self) -> str:
        base = self.sides[0]
        lines: list[str] = []
        for i, s in enumerate(self.sides[1:], 1):
            if base.cats_us is None or s.cats_us is None:
                continue
            dm = sum(s.cats_us.values()) - sum(base.cats_us.values())
            lines.append(f"\nWhere the difference of the mean ({dm:+.1f} us, {s.name} - {base.name})\n"
                         "comes from, along the critical path:")
            parts = sorted(CATEGORIES, key=lambda c: -abs(s.cats_us[c] - base.cats_us[c]))
            for c in parts:
                d = s.cats_us[c] - base.cats_us[c]
                share = 100 * d / dm if dm else 0.0
                lines.append(f"  {CAT_LABEL[c]:<18} {base.cats_us[c]:9.1f} -> {s.cats_us[c]:9.1f} us"
                             f"  {d:+9.1f} us  ({share:5.1f}% of the difference)")
            lines.append(f"  {'total':<18} {sum(base.cats_us.values()):9.1f} -> "
                         f"{sum(s.cats_us.values()):9.1f} us  {dm:+9.1f} us")
            if base.stages_us and s.stages_us:
                lines.append("  op-tracker stages (primary), mean time between events:")
                keys = [k for k in base.stages_us if k in s.stages_us]
                keys.sort(key=lambda k: -abs(s.stages_us[k] - base.stages_us[k]))
                for k in keys[:6]:
                    d = s.stages_us[k] - base.stages_us[k]
                    lines.append(f"    {k:<48} {base.stages_us[k]:8.1f} -> {s.stages_us[k]:8.1f}"
                                 f"  {d:+8.1f} us")
        if self.kind == "fio" and base.cats_us is not None and all(s.cats_us is None for s in self.sides[1:]):
            lines.append(f"\n{base.name}: where its mean latency goes\n(the measured file has no "
                         "per-stage times to compare with):")
            for c in CATEGORIES:
                lines.append(f"  {CAT_LABEL[c]:<18} {base.cats_us[c]:9.1f} us")
        return "\n".join(lines) + ("\n" if lines else "")


def _letter(i: int) -> str:
    return chr(ord("A") + i)


def _signed(m: float, h: float | None, digits: int) -> str:
    s = fmt_ci(m, h, digits)
    return s if s.startswith("-") else "+" + s


def _r(x: float | None) -> float | None:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return None
    return round(float(x), 3)


# ------------------------------------------------------------------ scenarios


def compare(paths: Sequence[str | Path], overrides: Sequence[str] | None = None, *, seeds: int = 3,
            seed: int | None = None, jobs: int | None = None, executor: str = "local",
            scheduler: Any = None, quiet: bool = True) -> Comparison:
    from cephsim.formats.report.assumptions import assumptions
    from cephsim.scenario.load import load_resolved
    from cephsim.tools.sweep import Task, execute

    if len(paths) < 2:
        raise CephsimError.single("compare needs at least two scenarios")
    if seeds < 1:
        raise CephsimError.single("--seeds must be at least 1")
    ov = list(overrides or [])
    loaded = [load_resolved(p, ov) for p in paths]  # every file validated before anything runs
    scs = [sc for sc, _ in loaded]
    base = scs[0].run.seed if seed is None else seed
    seed_list = [base + k for k in range(seeds)]
    tasks = [Task(str(p), tuple(ov), s, records=True) for p in paths for s in seed_list]
    res = execute(tasks, jobs=jobs, executor=executor, scheduler=scheduler, quiet=quiet,
                  what=f"compare: {len(paths)} scenarios x {seeds} seeds")
    names = [sc.name for sc in scs]
    if len(set(names)) < len(names):
        names = [f"{sc.name} ({Path(p).name})" for sc, p in zip(scs, paths)]
    sides = []
    k = len(seed_list)
    for i, p in enumerate(paths):
        runs = res[i * k:(i + 1) * k]
        side = Side(name=names[i], source=str(p),
                    values={key: [r[key] for r in runs] for key, _, _ in ROWS},
                    assumptions=assumptions(*loaded[i], ov))
        side.batch = [r.get("batch_means_us", []) for r in runs]
        if k == 1:
            side.ci["mean_us"] = mean_ci(side.batch[0])[1] if side.batch[0] else None
        cats = [[a / r["ios"] / 1e3 for a in r["acc_sum_ns"]] for r in runs if r.get("acc_sum_ns")]
        if cats:
            side.cats_us = {c: sum(x[j] for x in cats) / len(cats) for j, c in enumerate(CATEGORIES)}
        stages = [r["breakdown"]["op_tracker_us"] for r in runs if r.get("breakdown")]
        if stages:
            side.stages_us = {s: sum(x[s] for x in stages) / len(stages) for s in stages[0]}
        sides.append(side)
    cmp_ = Comparison(sides, seeds=seed_list)
    if k == 1:
        cmp_.notes.append("one seed: the interval of the mean is from batch means within the run; "
                          "use --seeds K for intervals across seeds")
    cmp_.notes.append("IOPS over the exact run time; mean = fio lat avg; percentiles = fio clat "
                      "percentiles; ± = "
                      f"{LEVEL:.0%} confidence interval" + (" across seeds (Welch for differences)"
                                                           if k > 1 else ""))
    return cmp_


# ------------------------------------------------------------------ fio files


def _fio_side(path: str | Path, direction: str | None) -> tuple[Side, str]:
    from cephsim.formats.readers.detect import read_any
    from cephsim.formats.readers.model import FioMeasurement
    from cephsim.tools.stats import summary_ci

    m = read_any(path)
    if not isinstance(m, FioMeasurement) or not m.jobs:
        raise CephsimError.single(f"not a fio result (read as {getattr(m, 'format', '?')})",
                                  file=str(path))
    job = m.jobs[0]
    d = direction or ("write" if "write" in job.directions else next(iter(job.directions), None))
    if d is None or d not in job.directions:
        raise CephsimError.single(f"no {d or 'read/write'} results in the first job", file=str(path))
    fd = job.directions[d]
    lat = fd.lat or fd.clat
    pct = fd.percentiles or {}

    def p(q: float) -> float | None:
        v = pct.get(q)
        return v / 1e3 if v is not None else None

    mean = lat.mean_ns / 1e3 if lat and lat.mean_ns is not None else None
    side = Side(name=job.name, source=str(path),
                values={"iops": [fd.iops], "mean_us": [mean], "p50_us": [p(50.0)],
                        "p99_us": [p(99.0)], "p999_us": [p(99.9)]})
    if lat is not None and mean is not None:
        n = lat.n or fd.total_ios
        h = summary_ci(lat.mean_ns, lat.stddev_ns, n)
        side.ci["mean_us"] = h / 1e3 if h is not None else None
    # a cephsim result carries its breakdown
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
        b = ((doc.get("cephsim") or {}).get("breakdown") or {}).get(d)
        side.assumptions = (doc.get("cephsim") or {}).get("assumptions")
        if b:
            side.cats_us = dict(b["critical_path_us"])
            side.stages_us = dict(b["op_tracker_us"])
            side.name = f"{side.name} (cephsim)"
    except (ValueError, OSError, AttributeError, KeyError, TypeError):
        pass
    return side, d


def compare_fio(simulated: str | Path, measured: str | Path,
                direction: str | None = None) -> Comparison:
    if direction is not None and direction not in ("read", "write"):
        raise CephsimError.single(f"--direction {direction!r}: must be read or write")
    a, d = _fio_side(simulated, direction)
    b, _ = _fio_side(measured, d)
    if a.name == b.name:
        a.name, b.name = f"{a.name} (A)", f"{b.name} (B)"
    if not b.name.endswith("(cephsim)") and not b.name.endswith("(B)"):
        b.name = f"{b.name} (measured)"
    c = Comparison([a, b], kind="fio")
    for side in (a, b):
        missing = [label for key, label in (("mean_us", "mean"), ("p50_us", "p50"),
                                            ("p99_us", "p99"), ("p999_us", "p99.9"))
                   if side.values[key][0] is None]
        if missing:  # shown as '-': say why rather than leave a blank
            c.notes.append(f"{side.source} gives no {', '.join(missing)} for {d}s: the file may be "
                           "cut short, or fio ran with a percentile_list without them")
    c.notes.append(f"{d} direction; mean = fio lat avg; percentiles as each file reports them "
                   "(clat by default); ± on means = 95% interval from fio's mean, stddev and N "
                   "(ops treated as independent: optimistic); none on IOPS and percentiles")
    return c
