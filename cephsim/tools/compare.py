"""Side-by-side comparisons: scenarios against each other, or a simulation against fio.

``compare(paths)`` runs every scenario with the same K seeds (common random numbers) and,
for each direction (write, read) the scenarios share, reports IOPS, bandwidth, mean, p50,
p99 and p99.9 of each, the difference of every scenario from the first (the baseline) with
a 95% confidence interval (Welch, across seeds; with one seed, batch means within the
run), the change in per cent of the baseline, and which critical-path categories and
op-tracker stages account for the difference of the means.  The categories add up exactly
to each scenario's mean latency, so their differences add up to the difference of the means.

``compare_fio(simulated, measured)`` does the same for a simulated result (a cephsim JSON
output) against a measured one (a real fio JSON or normal output), the measurement being
the baseline; intervals of the means come from fio's own mean, stddev and N (treating ops
as independent, so optimistic).

One sign everywhere: difference = other - baseline, change = (other - baseline) / baseline;
for compare-fio (simulated - measured) / measured.  Text, markdown and JSON are three views
of one :class:`Comparison` and say which side is which in their headings.
"""

from __future__ import annotations

import io
import json
import math
import re
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from cephsim import __version__
from cephsim.api import load_resolved
from cephsim.errors import CephsimError
from cephsim.formats.readers.common import read_text
from cephsim.formats.readers.detect import read_text_any
from cephsim.formats.readers.model import FioMeasurement
from cephsim.formats.report.assumptions import assumptions, compare_text
from cephsim.metrics.records import CATEGORIES
from cephsim.tools.stats import LEVEL, diff_ci, fmt_ci, mean_ci, summary_ci, welch_summary
from cephsim.tools.sweep import Task, execute

#: the rows of every table: key, label, unit
METRICS = (("iops", "IOPS", ""), ("bw_mib_s", "bandwidth", "MiB/s"),
           ("mean_us", "mean latency", "us"), ("p50_us", "p50", "us"), ("p99_us", "p99", "us"),
           ("p999_us", "p99.9", "us"))
PERCENTILES = ("p50_us", "p99_us", "p999_us")
DIRECTIONS = ("write", "read")
CAT_LABEL = {"network": "network", "cpu": "CPU work", "wake": "C-state wake-ups", "disk": "disk",
             "queue": "queueing"}
MIB = 1024 * 1024


@dataclass
class Input:
    """One thing compared: a scenario run with K seeds, or a result file."""

    label: str  #: "A", "B", ... (scenarios) or "measured", "simulated" (compare-fio)
    name: str  #: scenario or fio job name
    source: str  #: the file
    seeds: list[int] = field(default_factory=list)  #: simulated seeds; [] for a measurement
    origin: str = "simulated"  #: "simulated, cephsim-0.3", "measured, fio-3.33", ...
    #: what decides the answer, given or assumed (None: a measured file)
    assumptions: dict[str, Any] | None = None


@dataclass
class Side:
    """One input in one direction: one cell per metric."""

    values: dict[str, list[float | None]]  #: metric -> per-seed values (one for a file)
    ci: dict[str, float | None] = field(default_factory=dict)  #: known half-widths (K=1, fio)
    cats_us: dict[str, float] | None = None  #: mean critical path per category
    stages_us: dict[str, float] | None = None  #: op-tracker stages
    percentiles_of: str = "clat"  #: what the percentiles are of (fio: clat unless lat_percentiles)
    #: what the mean is of: fio's lat, or where a file has none, slat + clat or clat alone
    mean_of: str = "lat"


@dataclass
class Comparison:
    inputs: list[Input]  #: the baseline first
    tables: dict[str, list[Side]]  #: direction -> one side per input, in the order of inputs
    kind: str = "scenarios"  #: or "fio"
    overrides: list[str] = field(default_factory=list)  #: --set given to every scenario
    notes: list[str] = field(default_factory=list)
    #: compare-fio: how the two jobs differ where they may still be compared (also in notes)
    warnings: list[str] = field(default_factory=list)

    # ------------------------------------------------------------------ statistics
    @property
    def base(self) -> Input:
        return self.inputs[0]

    def stat(self, s: Side, key: str) -> tuple[float, float | None]:
        vals = s.values.get(key) or []
        if not vals or any(v is None for v in vals):
            return math.nan, None
        if len(vals) > 1:
            return mean_ci(vals)  # type: ignore[arg-type]
        return float(vals[0]), s.ci.get(key)  # type: ignore[arg-type]

    def diff(self, a: Side, b: Side, key: str) -> tuple[float, float | None]:
        """``b - a`` (other minus baseline) and the half-width of its interval."""
        va, vb = a.values.get(key) or [], b.values.get(key) or []
        if not va or not vb or any(v is None for v in va + vb):
            return math.nan, None
        if len(va) > 1 and len(vb) > 1:
            return diff_ci(va, vb)  # type: ignore[arg-type]
        (ma, ha), (mb, hb) = self.stat(a, key), self.stat(b, key)
        return welch_summary(ma, ha, mb, hb)

    def change(self, a: Side, b: Side, key: str) -> float:
        """``100 (b - a) / a`` of the means (nan without a baseline figure, or one of 0)."""
        ma = self.stat(a, key)[0]
        dm = self.diff(a, b, key)[0]
        return 100.0 * dm / ma if math.isfinite(ma) and ma and math.isfinite(dm) else math.nan

    def pct_label(self, direction: str) -> str:
        """The percentiles' kind, when every side has the same one."""
        kinds = {s.percentiles_of for s in self.tables[direction]}
        return f" ({kinds.pop()})" if len(kinds) == 1 else ""

    def minus(self, other: Input) -> str:
        return f"{other.label} - {self.base.label}"

    def ratio(self, other: Input) -> str:
        return f"({other.label} - {self.base.label}) / {self.base.label}"

    def convention(self) -> str:
        others = ", ".join(i.label for i in self.inputs[1:])
        gen = "X" if len(self.inputs) > 2 else self.inputs[1].label
        text = (f"difference = {gen} - {self.base.label}, change = ({gen} - {self.base.label}) / "
                f"{self.base.label}")
        return text + (f" for X = {others}" if len(self.inputs) > 2 else "")

    def _row(self, direction: str,
             key: str) -> tuple[str, list[tuple[str, tuple[str, str] | None]]]:
        """One metric's row as text: its title, then per input the value and (but for the
        baseline) the difference and the change in per cent.  Decimals follow the baseline's
        figure, so that a row reads in one precision."""
        title, unit = next((t, u) for k, t, u in METRICS if k == key)
        title += self.pct_label(direction) if key in PERCENTILES else ""
        sides = self.tables[direction]
        means = [self.stat(s, key)[0] for s in sides]
        digits = _digits(key, next((m for m in means if math.isfinite(m)), math.nan))
        cells: list[tuple[str, tuple[str, str] | None]] = []
        for i, s in enumerate(sides):
            m, h = self.stat(s, key)
            change = None
            if i:
                dm, dh = self.diff(sides[0], s, key)
                pct = self.change(sides[0], s, key)
                change = ("-" if math.isnan(dm) else _signed(dm, dh, digits),
                          "-" if math.isnan(pct) else f"{pct:+.1f} %")
            cells.append((fmt_ci(m, h, digits), change))
        return (f"{title} ({unit})" if unit else title), cells

    # ------------------------------------------------------------------ JSON
    def to_dict(self) -> dict[str, Any]:
        base = self.base
        out: dict[str, Any] = {
            "kind": self.kind, "baseline": base.label,
            "convention": {"difference": f"other - {base.label}",
                           "change_percent": f"100 * (other - {base.label}) / {base.label}",
                           "other": [i.label for i in self.inputs[1:]]},
            "inputs": [{"label": i.label, "role": "baseline" if i is base else "compared",
                        "name": i.name, "source": i.source, "origin": i.origin,
                        "seeds": i.seeds, "assumptions": i.assumptions} for i in self.inputs],
            "overrides": self.overrides, "confidence_level": LEVEL, "directions": {}}
        for direction, sides in self.tables.items():
            rows = []
            for key, label, unit in METRICS:
                row: dict[str, Any] = {"metric": key, "label": label + (
                    self.pct_label(direction) if key in PERCENTILES else ""),
                                       "unit": unit or None, "values": {}, "differences": {}}
                for inp, s in zip(self.inputs, sides):
                    m, h = self.stat(s, key)
                    row["values"][inp.label] = {"mean": _r(m), "ci": _r(h),
                                                "per_seed": [_r(v) for v in s.values.get(key, [])]}
                    if inp is not base:
                        dm, dh = self.diff(sides[0], s, key)
                        row["differences"][inp.label] = {
                            "of": self.minus(inp), "difference": _r(dm), "ci": _r(dh),
                            "change_percent": _r(self.change(sides[0], s, key))}
                rows.append(row)
            out["directions"][direction] = {
                "metrics": rows,
                "critical_path_us": {i.label: s.cats_us for i, s in zip(self.inputs, sides)},
                "op_tracker_us": {i.label: s.stages_us for i, s in zip(self.inputs, sides)},
                "percentiles_of": {i.label: s.percentiles_of for i, s in zip(self.inputs, sides)},
                "mean_of": {i.label: s.mean_of for i, s in zip(self.inputs, sides)}}
        out["notes"] = self.notes
        return out

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2) + "\n"

    # ------------------------------------------------------------------ text
    def to_text(self, width: int = 100) -> str:
        from rich import box
        from rich.console import Console
        from rich.measure import Measurement
        from rich.table import Table

        buf = io.StringIO()
        buf.write(compare_text([(f"{i.label} {i.name}", i.assumptions) for i in self.inputs],
                               width))
        wide = Console(file=io.StringIO(), width=1000, force_terminal=False, color_system=None)
        for inp in self.inputs:
            role = " (baseline)" if inp is self.base else ""
            seeds = (f", seed{'s' * (len(inp.seeds) > 1)} {_seeds(inp.seeds)}" if inp.seeds
                     else "")
            buf.write(textwrap.fill(f"{inp.label}{role} = {inp.name} ({inp.source}: "
                                    f"{inp.origin}{seeds})", width, subsequent_indent="    ",
                                    break_on_hyphens=False, break_long_words=False) + "\n")
        buf.write(f"{self.convention()}\n")
        for direction, sides in self.tables.items():
            t = Table(box=box.SIMPLE_HEAD, pad_edge=False, title_justify="left",
                      title=f"\n{direction}: compared with {self.base.label}")
            t.add_column("", no_wrap=True, min_width=len("p99.9 (clat) (us)"))
            for i, inp in enumerate(self.inputs):
                # with more than two, the legend above names them: letters keep the table narrow
                t.add_column(inp.label if len(self.inputs) > 2 else f"{inp.label}\n{inp.name}",
                             justify="right", no_wrap=True)
                if i:
                    t.add_column(f"{self.minus(inp)}\n(% of {self.base.label})", justify="right",
                                 no_wrap=True)
            for key, _, _ in METRICS:
                title, cells = self._row(direction, key)
                row = [title]
                for value, change in cells:
                    row.append(value)
                    if change is not None:
                        diff, pct = change
                        row.append(diff + ("" if pct == "-" else f" ({pct.replace(' ', '')})"))
                t.add_row(*row)
            # several scenarios may need more than `width`: wider lines rather than cut figures
            need = Measurement.get(wide, wide.options, t).maximum
            Console(file=buf, width=max(width, need), force_terminal=False,
                    color_system=None).print(t)
            buf.write(self._explain_text(direction))
        for n in self.notes:
            buf.write(textwrap.fill(n, width, initial_indent="note: ",
                                    subsequent_indent="      ") + "\n")
        return buf.getvalue()

    def _breakdowns(self, direction: str) -> list[tuple[Input, Side, Side, float, list[str]]]:
        """Each other side with a breakdown beside the baseline's: (input, baseline side,
        its side, the difference of the critical paths' totals, the categories by how much
        they moved, largest first)."""
        sides = self.tables[direction]
        b0 = sides[0]
        out = []
        for inp, s in zip(self.inputs[1:], sides[1:]):
            if b0.cats_us is None or s.cats_us is None:
                continue
            bc, sc = b0.cats_us, s.cats_us
            dm = sum(sc.values()) - sum(bc.values())
            order = sorted(CATEGORIES, key=lambda c: -abs(sc[c] - bc[c]))
            out.append((inp, b0, s, dm, order))
        return out

    def _explain_text(self, direction: str) -> str:
        base = self.base
        lines: list[str] = []
        for inp, b0, s, dm, order in self._breakdowns(direction):
            bc, sc = b0.cats_us or {}, s.cats_us or {}
            lines.append(f"\nWhere the difference of the {direction} mean ({dm:+.1f} us, "
                         f"{self.minus(inp)}) comes from, along the critical path:")
            for c in order:
                d = sc[c] - bc[c]
                share = 100 * d / dm + 0.0 if dm else 0.0  # + 0.0: no "-0.0"
                lines.append(f"  {CAT_LABEL[c]:<18} {bc[c]:9.1f} -> {sc[c]:9.1f} us"
                             f"  {d:+9.1f} us  ({share:5.1f}% of the difference)")
            lines.append(f"  {'total':<18} {sum(bc.values()):9.1f} -> "
                         f"{sum(sc.values()):9.1f} us  {dm:+9.1f} us")
            if b0.stages_us and s.stages_us:
                lines.append("  op-tracker stages (primary), mean time between events:")
                for k in _stage_order(b0.stages_us, s.stages_us)[:6]:
                    d = s.stages_us[k] - b0.stages_us[k]
                    lines.append(f"    {k:<48} {b0.stages_us[k]:8.1f} -> {s.stages_us[k]:8.1f}"
                                 f"  {d:+8.1f} us")
        lone = self._lone_breakdown(direction)
        if lone is not None:
            inp, s = lone
            lines.append(f"\n{inp.label} ({inp.name}): where its {direction} mean latency goes\n"
                         f"(the {base.label} file has no per-stage times to compare with):")
            for c in CATEGORIES:
                lines.append(f"  {CAT_LABEL[c]:<18} {s.cats_us[c]:9.1f} us")  # type: ignore[index]
        return "\n".join(lines) + ("\n" if lines else "")

    def _lone_breakdown(self, direction: str) -> tuple[Input, Side] | None:
        """compare-fio: the simulated side's breakdown when the measured file has none."""
        sides = self.tables[direction]
        if self.kind != "fio" or sides[0].cats_us is not None or sides[1].cats_us is None:
            return None
        return self.inputs[1], sides[1]

    # ------------------------------------------------------------------ markdown
    def to_markdown(self) -> str:
        """A report in the style of cbt's comparison reports (GitHub-flavoured markdown)."""
        base = self.base
        if self.kind == "fio":
            what = "cephsim compare-fio: simulated against measured"
        else:
            others = (_md(self.inputs[1].name) if len(self.inputs) == 2
                      else f"{len(self.inputs) - 1} scenarios")
            what = f"cephsim compare: {others} against {_md(base.name)}"
        out = [f"# {what}", "",
               "| | name | file | seeds | origin |", "| :--- | :--- | :--- | :--- | :--- |"]
        for inp in self.inputs:
            role = " (baseline)" if inp is base else ""
            out.append(f"| {inp.label}{role} | {_md(inp.name)} | `{_md(inp.source)}` | "
                       f"{_seeds(inp.seeds) or '-'} | {inp.origin} |")
        out.append("")
        if self.overrides:
            out += ["Every scenario with " + ", ".join(f"`--set {_md(o)}`" for o in self.overrides)
                    + ".", ""]
        out += [f"Sign: {self.convention()}; a positive change is a higher figure than "
                f"{base.label}'s (faster for IOPS and bandwidth, slower for latencies).", ""]
        for direction, sides in self.tables.items():
            out += [f"## {direction}", ""]
            head = ["metric"]
            for i, inp in enumerate(self.inputs):
                head.append(f"{inp.label}: {_md(inp.name)}")
                if i:
                    head += [self.minus(inp), f"change {self.ratio(inp)}"]
            out += ["| " + " | ".join(head) + " |",
                    "| :--- |" + " ---: |" * (len(head) - 1)]
            for key, _, _ in METRICS:
                title, cells = self._row(direction, key)
                row = [title]
                for value, change in cells:
                    row += [value, *(change or ())]
                out.append("| " + " | ".join(row) + " |")
            out.append("")
            out += self._explain_markdown(direction)
        if self.notes:
            out += ["## Notes", ""] + [f"- {n}" for n in self.notes] + [""]
        return "\n".join(out)

    def _explain_markdown(self, direction: str) -> list[str]:
        base = self.base
        out: list[str] = []
        for inp, b0, s, dm, order in self._breakdowns(direction):
            bc, sc = b0.cats_us or {}, s.cats_us or {}
            out += [f"### {direction}: where {self.minus(inp)} of the mean latency comes from",
                    "", f"Along the critical path ({dm:+.1f} us in all):", "",
                    f"| category | {base.label} (us) | {inp.label} (us) | {self.minus(inp)} (us) "
                    f"| share of {self.minus(inp)} |", "| :--- | ---: | ---: | ---: | ---: |"]
            for c in order:
                d = sc[c] - bc[c]
                share = f"{100 * d / dm + 0.0:.1f} %" if dm else "-"
                out.append(f"| {CAT_LABEL[c]} | {bc[c]:,.1f} | {sc[c]:,.1f} | "
                           f"{d:+,.1f} | {share} |")
            out += [f"| total | {sum(bc.values()):,.1f} | {sum(sc.values()):,.1f} | "
                    f"{dm:+,.1f} | {'100.0 %' if dm else '-'} |", ""]
            if b0.stages_us and s.stages_us:
                out += ["Op-tracker stages at the primary, mean time between events:", "",
                        f"| stage | {base.label} (us) | {inp.label} (us) | "
                        f"{self.minus(inp)} (us) |", "| :--- | ---: | ---: | ---: |"]
                for k in _stage_order(b0.stages_us, s.stages_us):
                    d = s.stages_us[k] - b0.stages_us[k]
                    out.append(f"| {_md(k)} | {b0.stages_us[k]:,.1f} | {s.stages_us[k]:,.1f} | "
                               f"{d:+,.1f} |")
                out.append("")
        lone = self._lone_breakdown(direction)
        if lone is not None:
            inp, s = lone
            cats = s.cats_us or {}
            total = sum(cats.values())
            out += [f"### {direction}: where the {inp.label} mean latency goes", "",
                    f"The {base.label} file has no per-stage times to compare with.", "",
                    f"| category | {inp.label} (us) | share |", "| :--- | ---: | ---: |"]
            out += [f"| {CAT_LABEL[c]} | {cats[c]:,.1f} | "
                    + (f"{100 * cats[c] / total:.1f} %" if total else "-") + " |"
                    for c in CATEGORIES]
            out += [f"| total | {total:,.1f} | {'100.0 %' if total else '-'} |", ""]
        return out


def _stage_order(a: dict[str, float], b: dict[str, float]) -> list[str]:
    keys = [k for k in a if k in b]
    keys.sort(key=lambda k: -abs(b[k] - a[k]))
    return keys


def _digits(key: str, m: float) -> int:
    if key == "iops":
        return 0 if m >= 100 else 1
    if key == "bw_mib_s":
        return 2 if m < 100 else 1
    return 1


def _signed(m: float, h: float | None, digits: int) -> str:
    s = fmt_ci(m, h, digits)
    return s if s.startswith("-") else "+" + s


def _seeds(seeds: list[int]) -> str:
    if len(seeds) > 2 and seeds == list(range(seeds[0], seeds[-1] + 1)):
        return f"{seeds[0]}-{seeds[-1]}"
    return ", ".join(map(str, seeds))


def _md(text: str) -> str:
    """Text for a markdown table cell: a '|' would end the cell."""
    return str(text).replace("|", "\\|")


def _r(x: float | None) -> float | None:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return None
    return round(float(x), 3)


# ------------------------------------------------------------------ scenarios


def planned_directions(sc: Any) -> list[str]:
    """The directions a scenario's workload issues (randrw with rwmixread 0 or 100: one)."""
    w = sc.workload
    dirs = []
    if w.writes_only or (w.mixed and w.rwmixread < 100):
        dirs.append("write")
    if w.reads_only or (w.mixed and w.rwmixread > 0):
        dirs.append("read")
    return dirs


def compare(paths: Sequence[str | Path], overrides: Sequence[str] | None = None, *, seeds: int = 3,
            seed: int | None = None, jobs: int | None = None, executor: str = "local",
            scheduler: Any = None, quiet: bool = True) -> Comparison:
    if len(paths) < 2:
        raise CephsimError.single("compare needs at least two scenarios")
    if seeds < 1:
        raise CephsimError.single("--seeds must be at least 1")
    ov = list(overrides or [])
    loaded = [load_resolved(p, ov) for p in paths]  # every file validated before anything runs
    scs = [sc for sc, _ in loaded]
    planned = [planned_directions(sc) for sc in scs]
    directions = [d for d in DIRECTIONS if all(d in p for p in planned)]
    if not directions:  # known from the workloads: say so before minutes of simulation
        raise CephsimError.single(
            "the scenarios share no direction to compare: "
            + "; ".join(f"{p} {'+'.join(d) or 'no I/O'}" for p, d in zip(paths, planned)))
    base = scs[0].run.seed if seed is None else seed
    seed_list = [base + k for k in range(seeds)]
    tasks = [Task(str(p), tuple(ov), s, records=True) for p in paths for s in seed_list]
    res = execute(tasks, jobs=jobs, executor=executor, scheduler=scheduler, quiet=quiet,
                  what=f"compare: {len(paths)} scenarios x {seeds} seeds")
    names = [sc.name for sc in scs]
    if len(set(names)) < len(names):
        names = [f"{sc.name} ({Path(p).name})" for sc, p in zip(scs, paths)]
    k = len(seed_list)

    inputs = [Input(_letter(i), names[i], str(p), seed_list, f"simulated, cephsim-{__version__}",
                    assumptions(*loaded[i], ov)) for i, p in enumerate(paths)]
    cmp_ = Comparison(inputs, {d: [] for d in directions}, overrides=ov)
    empty: list[str] = []
    for i in range(len(paths)):
        runs = res[i * k:(i + 1) * k]
        for d in directions:
            per = [r.get("by_direction", {}).get(d) for r in runs]
            if any(x is None for x in per):  # e.g. randrw with a tiny run and few reads
                empty.append(f"{inputs[i].label} {d}")
                cmp_.tables[d].append(Side({key: [None] * k for key, _, _ in METRICS}))
                continue
            cmp_.tables[d].append(_run_side(per))
    if empty:
        cmp_.notes.append(f"no I/O in some seeds' runs ({', '.join(empty)}): shown as '-'")
    # a percentile the same in every seed: its interval 0.0 says less than it seems
    one_bin = []
    for d, sides in cmp_.tables.items():
        same = {i: [t for key, t, _ in METRICS if key in PERCENTILES and k > 1
                    and None not in s.values[key] and len(set(s.values[key])) == 1]
                for i, s in enumerate(sides)}
        shown = [t for _, t, _ in METRICS if any(t in x for x in same.values())]
        if shown:
            one_bin.append(f"{d} {', '.join(shown)} ("
                           + ", ".join(inputs[i].label for i, x in same.items() if x) + ")")
    if one_bin:
        cmp_.notes.append(
            f"{'; '.join(one_bin)}: every seed gave the same figure, so its interval is 0; fio "
            "reports a percentile as the midpoint of its latency bin (64 bins per power of two, "
            "each 0.8-1.6 % of the value wide), and these seeds fell in one bin: their spread is "
            "within the bin's width, not none")
    if k == 1:
        cmp_.notes.append("one seed: the interval of the mean is from batch means within the run; "
                          "use --seeds K for intervals across seeds")
    cmp_.notes.append("IOPS and bandwidth over the exact run time; mean = fio lat avg; "
                      "percentiles = fio clat percentiles; ± = "
                      f"{LEVEL:.0%} confidence interval" + (" across seeds (Welch for differences)"
                                                           if k > 1 else ""))
    return cmp_


def _run_side(per: list[dict[str, Any]]) -> Side:
    """One scenario's side in one direction from its runs (one per seed)."""
    vals: dict[str, list[float | None]] = {key: [r[key] for r in per] for key, _, _ in METRICS
                                           if key != "bw_mib_s"}
    vals["bw_mib_s"] = [r["bw_bytes"] / MIB for r in per]
    side = Side(vals)
    if len(per) == 1:
        batch = per[0].get("batch_means_us") or []
        side.ci["mean_us"] = mean_ci(batch)[1] if batch else None
    cats = [[a / r["ios"] / 1e3 for a in r["acc_sum_ns"]] for r in per if r.get("acc_sum_ns")]
    if cats:
        side.cats_us = {c: sum(x[j] for x in cats) / len(cats) for j, c in enumerate(CATEGORIES)}
    stages = [r["breakdown"]["op_tracker_us"] for r in per if r.get("breakdown")]
    if stages:
        side.stages_us = {s: sum(x[s] for x in stages) / len(stages) for s in stages[0]}
    return side


def printable(text: str) -> str:
    """A name read from a file as it can be printed: a control character (an escape
    sequence would reach the terminal raw) or lone surrogate written as its escape."""
    return "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text)


def _letter(i: int) -> str:
    return chr(ord("A") + i)


# ------------------------------------------------------------------ fio files


@dataclass
class _FioFile:
    path: str
    job: Any  #: the first job (FioJob)
    version: str | None
    cephsim: dict[str, Any] | None  #: the cephsim object of a cephsim output
    options: dict[str, str] = field(default_factory=dict)  #: the first job's fio options

    def directions(self) -> list[str]:
        return [d for d in DIRECTIONS if d in self.job.directions
                and self.job.directions[d].has_figures()]


def _read_fio(path: str | Path) -> _FioFile:
    text = read_text(path)  # read once: for fio's jobs and for a cephsim object beside them
    m = read_text_any(str(path), text)
    if not isinstance(m, FioMeasurement) or not m.jobs:
        raise CephsimError.single(f"not a fio result (read as {getattr(m, 'format', '?')})",
                                  file=str(path))
    ceph = None
    try:  # a cephsim result carries its seed and breakdown beside fio's jobs
        doc = json.loads(text)
        if isinstance(doc, dict) and isinstance(doc.get("cephsim"), dict):
            ceph = doc["cephsim"]
    except ValueError:  # fio's text output, or JSON with a banner before it
        pass
    return _FioFile(str(path), m.jobs[0], m.fio_version, ceph, _job_options(text))


def _job_options(text: str) -> dict[str, str]:
    """The first job's options: its JSON's global options under its own ("job options"),
    wherever the JSON document starts (after a banner, beside normal output); else what
    the normal output's header line of the job says (rw, bs, ioengine, iodepth)."""
    for m in re.finditer(r"^\{", text, re.M):
        try:
            doc, _ = json.JSONDecoder().raw_decode(text, m.start())
        except ValueError:
            continue
        jobs = doc.get("jobs") if isinstance(doc, dict) else None
        if isinstance(jobs, list) and jobs and isinstance(jobs[0], dict):
            glob = doc.get("global options")
            own = jobs[0].get("job options")
            return {str(k): str(v) for k, v in {**(glob if isinstance(glob, dict) else {}),
                                                **(own if isinstance(own, dict) else {})}.items()}
    m = re.search(r"^\S+: \(g=\d+\): rw=(\w+), bs=\(R\) ([^-,\s]+)-[^,]*, \(W\) ([^-,\s]+)-[^,]*,"
                  r".*?ioengine=([\w-]+), iodepth=(\d+)", text, re.M)
    if m:
        return {"rw": m[1], "bs": m[3] if "write" in m[1] or m[1] in ("rw", "readwrite") else m[2],
                "ioengine": m[4], "iodepth": m[5], "_source": "header"}
    return {}


#: fio's spellings of the same pattern
RW_ALIASES = {"readwrite": "rw", "randreadwrite": "randrw"}


def _fio_bytes(text: str | None) -> int | None:
    """A fio size option's bytes: '4k', '4096', '4KiB', '4096B', '64k' (fio's k is 1024)."""
    m = re.fullmatch(r"(\d+)\s*([kmgt]?)(?:i?b)?", (text or "").strip().split(",")[0].lower())
    return int(m[1]) * 1024 ** " kmgt".index(m[2] or " ") if m else None


def _num_opt(opts: dict[str, str], key: str, default: int) -> int:
    v = opts.get(key, "")
    return int(v) if v.isdigit() else default


def job_differences(sim: _FioFile, meas: _FioFile) -> tuple[list[str], list[str]]:
    """Whether the two files describe the same job: (differences that make the comparison
    meaningless, each named: refused without --force; differences that leave it meaningful
    but worth a word: warned)."""
    refuse: list[str] = []
    warn: list[str] = []
    if sim.cephsim is None:
        refuse.append(f"{sim.path}, given as the simulated result, is not a cephsim result "
                      + ("(and the measured one is: the two files are swapped)"
                         if meas.cephsim is not None else "(cephsim run -f json writes one)"))
    so, mo = sim.options, meas.options
    if not mo:
        warn.append(f"{meas.path} names none of the job's options: its rw, block size and "
                    "queue depth could not be checked")
        return refuse, warn
    rw = [RW_ALIASES.get(o.get("rw", "read"), o.get("rw", "read")) for o in (mo, so)]
    if rw[0] != rw[1]:
        refuse.append(f"rw: measured {rw[0]}, simulated {rw[1]}")
    elif rw[0] in ("rw", "randrw") and "rwmixread" in mo and "rwmixread" in so:
        mix = [_num_opt(o, "rwmixread", 50) for o in (mo, so)]
        if mix[0] != mix[1]:
            refuse.append(f"rwmixread: measured {mix[0]}, simulated {mix[1]}")
    bs = [_fio_bytes(o.get("bs") or o.get("blocksize") or "4k") for o in (mo, so)]
    if bs[0] != bs[1]:
        refuse.append(f"block size: measured {mo.get('bs') or mo.get('blocksize')}, "
                      f"simulated {so.get('bs')}")
    for key, label in (("iodepth", "queue depth (iodepth)"), ("numjobs", "jobs (numjobs)")):
        v = [_num_opt(o, key, 1) for o in (mo, so)]
        if key == "numjobs" and meas.job.jobs:  # group_reporting folded this many
            v[0] = max(v[0], meas.job.jobs)
        if v[0] != v[1]:
            refuse.append(f"{label}: measured {v[0]}, simulated {v[1]}")
    # the engine and the way writes reach the disk: a different path, still a comparison
    # the scenario may mean (a krbd or libaio measurement against a kernel-client model)
    scenario = (sim.cephsim or {}).get("scenario")  # a sweep point's names it only
    workload = scenario.get("workload") if isinstance(scenario, dict) else None
    client = str(workload.get("engine", "")) if isinstance(workload, dict) else ""
    eng = [mo.get("ioengine", "psync"), so.get("ioengine", "psync")]
    if eng[0] != eng[1]:
        warn.append(f"ioengine: measured {eng[0]}, simulated {eng[1]}"
                    + (f" (the scenario's client is {client})" if client else ""))
    target = mo.get("filename") or mo.get("directory")
    if target and eng[0] != "rbd" and not target.startswith("/dev/rbd") and \
            client in ("rbd", "krbd"):
        warn.append(f"the measured job ran on {target}, not an RBD image or /dev/rbd device "
                    "(a local file or another device?)")
    for key in ("fsync", "fdatasync"):
        n = _num_opt(mo, key, 0)
        if n and n != _num_opt(so, key, 0):
            warn.append(f"{key}={n} in the measurement: an {key} after every "
                        + ("write" if n == 1 else f"{n} writes")
                        + ", I/O the simulation does not issue")
    if mo.get("sync", "0") not in ("0", "none", "false") and mo.get("sync") != so.get("sync"):
        warn.append(f"sync={mo['sync']} in the measurement (O_SYNC/O_DSYNC writes)")
    # (normal output's header does not say; JSON lists every option given, so none is 0)
    if eng[0] != "rbd" and mo.get("_source") != "header" and \
            mo.get("direct", "0") in ("0", "false") and so.get("direct") != "0":
        warn.append("direct=0 (fio's default) in the measurement: its writes went through the "
                    "page cache")
    return refuse, warn


def _fio_input(f: _FioFile, label: str) -> Input:
    if f.cephsim is not None:
        # one run's seed, or a sweep point's pooled seeds (sweep --fio-dir)
        seeds = f.cephsim.get("seeds", [f.cephsim.get("seed")])
        seeds = seeds if isinstance(seeds, list) else [seeds]
        ok = [x for x in seeds if isinstance(x, int) and not isinstance(x, bool)]
        told = f.cephsim.get("assumptions")
        return Input(label, printable(f.job.name), f.path, ok if len(ok) == len(seeds) else [],
                     f"simulated, {f.version or 'cephsim'}",
                     told if isinstance(told, dict) else None)
    return Input(label, printable(f.job.name), f.path, [], f"measured, {f.version or 'fio'}")


def _fio_side(f: _FioFile, d: str) -> Side:
    fd = f.job.directions[d]
    pct = fd.percentiles or {}

    def p(q: float) -> float | None:
        v = pct.get(q)
        return v / 1e3 if v is not None else None

    mean, mean_of, lat = _fio_mean(fd)
    side = Side({"iops": [fd.iops], "bw_mib_s": [fd.bw_bytes / MIB if fd.bw_bytes is not None
                                                 else None],
                 "mean_us": [mean], "p50_us": [p(50.0)], "p99_us": [p(99.0)],
                 "p999_us": [p(99.9)]}, percentiles_of=fd.percentiles_of or "clat",
                mean_of=mean_of)
    if lat is not None and mean is not None:
        h = summary_ci(lat.mean_ns, lat.stddev_ns, lat.n or fd.total_ios)
        side.ci["mean_us"] = h / 1e3 if h is not None else None
    try:
        b = (f.cephsim or {}).get("breakdown") or {}
        if b.get(d):
            side.cats_us = {c: _finite(b[d]["critical_path_us"][c]) for c in CATEGORIES}
            side.stages_us = {str(k): _finite(v) for k, v in b[d]["op_tracker_us"].items()}
    except (AttributeError, KeyError, TypeError, ValueError):
        # an edited or foreign 'cephsim' object: the figures still compare, without it
        side.cats_us = side.stages_us = None
    return side


def _fio_mean(fd: Any) -> tuple[float | None, str, Any]:
    """A direction's mean latency (us), what it is of, and the statistics whose stddev
    and count give its interval (None where none do).  fio's lat is slat + clat for every
    I/O, so a file without lat (``disable_lat``, a report cut short) has the same mean in
    slat's and clat's means (their covariance unknown: no interval); with no slat either,
    clat's mean is all there is (the whole I/O under a synchronous engine, which records no
    slat; the I/O less its submission otherwise)."""
    lat, slat, clat = fd.lat, fd.slat, fd.clat
    if lat is not None and lat.mean_ns is not None:
        return lat.mean_ns / 1e3, "lat", lat
    if clat is None or clat.mean_ns is None:
        return None, "lat", None
    if slat is not None and slat.mean_ns is not None:
        return (slat.mean_ns + clat.mean_ns) / 1e3, "slat + clat", None
    return clat.mean_ns / 1e3, "clat", clat


def _finite(v: Any) -> float:
    if isinstance(v, bool) or not math.isfinite(float(v)):
        raise ValueError(v)
    return float(v)


def compare_fio(simulated: str | Path, measured: str | Path,
                direction: str | None = None, force: bool = False) -> Comparison:
    """``simulated`` against ``measured`` (the baseline), in every direction both have.
    The two must describe the same job (:func:`job_differences`): a different rw, mix,
    block size, queue depth or number of jobs, or a simulated file that is no cephsim
    result, is refused (``force``: compared, with each difference in the notes); a
    different engine, sync mode or target is compared, each difference in the notes."""
    if direction is not None and direction not in DIRECTIONS:
        raise CephsimError.single(f"--direction {direction!r}: must be read or write")
    sim, meas = _read_fio(simulated), _read_fio(measured)
    refuse, warn = job_differences(sim, meas)
    if refuse and not force:
        raise CephsimError.single(
            "the two files describe different jobs: " + "; ".join(refuse)
            + " (give --force to compare them all the same)", file=meas.path,
            line=meas.job.line)
    # refusals name the first job's line: the job compared
    if direction is not None:
        for f in (sim, meas):
            if direction not in f.directions():
                raise CephsimError.single(f"no {direction} results in the first job "
                                          f"({printable(f.job.name)})", file=f.path,
                                          line=f.job.line)
        directions = [direction]
    else:
        for f in (sim, meas):
            if not f.directions():
                raise CephsimError.single(f"no read/write results in the first job "
                                          f"({printable(f.job.name)})", file=f.path,
                                          line=f.job.line)
        directions = [d for d in DIRECTIONS if d in sim.directions() and d in meas.directions()]
        if not directions:
            raise CephsimError.single(
                f"no direction in common: this measurement has {'+'.join(meas.directions())}, "
                f"the simulated {sim.path} has {'+'.join(sim.directions())}",
                file=meas.path, line=meas.job.line)
    inputs = [_fio_input(meas, "measured"), _fio_input(sim, "simulated")]
    c = Comparison(inputs, {d: [_fio_side(meas, d), _fio_side(sim, d)] for d in directions},
                   kind="fio")
    c.warnings = [*(f"compared with --force: {x}" for x in refuse), *warn]
    c.notes += [f"not like for like: {x}" for x in c.warnings]
    if meas.cephsim is not None:
        c.notes.append(f"the measured file {meas.path} is itself a cephsim result: it stands as "
                       "the baseline all the same")
    if direction is None:
        for f in (sim, meas):
            left = [d for d in f.directions() if d not in directions]
            if left:
                c.notes.append(f"{f.path} also has {', '.join(left)} results, which the other "
                               "file has not: not compared")
    for d in directions:
        for inp, side in zip(inputs, c.tables[d]):
            missing = [label for key, label in (("mean_us", "mean"), ("p50_us", "p50"),
                                                ("p99_us", "p99"), ("p999_us", "p99.9"))
                       if side.values[key][0] is None]
            if missing:  # shown as '-': say why rather than leave a blank
                c.notes.append(f"{inp.source} gives no {', '.join(missing)} for {d}s: the file "
                               "may be cut short, or fio ran with a percentile_list without them")
        kinds = {s.percentiles_of for s in c.tables[d]}
        if len(kinds) > 1:
            c.notes.append(f"{d} percentiles: " + ", ".join(
                f"{i.label} of {s.percentiles_of}" for i, s in zip(inputs, c.tables[d]))
                           + " (fio lat_percentiles): lat includes the submission latency")
        for inp, side in zip(inputs, c.tables[d]):
            if side.mean_of != "lat" and side.values["mean_us"][0] is not None:
                c.notes.append(f"{inp.source} has no lat for {d}s: its mean is {side.mean_of}'s"
                               + (" (the I/O less its submission, unless its engine is "
                                  "synchronous)" if side.mean_of == "clat" else ""))
    c.notes.append("mean = fio lat avg; percentiles as each file reports them (clat by default); "
                   "± on means = 95% interval from fio's mean, stddev and N (ops treated as "
                   "independent: optimistic); none on IOPS, bandwidth and percentiles")
    return c
