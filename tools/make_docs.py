"""Rewrite the generated numbers and figures in README.md and docs/ from runs of the current model.

    python tools/make_docs.py            # all blocks and figures (a few minutes on two cores)
    python tools/make_docs.py --figures  # only the figures (docs/*.png)
    python tools/make_docs.py --check    # only say which blocks are stale (what CI tests)

Each block sits between markers that carry a hash of the model's sources
(cephsim/tools/provenance.py); a test fails when a block was made by another version of the
model.  The measured column of each table is data (with its source in the scenario file),
not output; everything else here is printed by the model, seed 1, each scenario's own
run length.  Each figure is drawn by the command shown with it (:data:`FIGURES`), run in
this process: the same code as a reader's ``--plot``.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from cephsim.tools.layout import picture
from cephsim.tools.provenance import replace_block, stale_blocks

ROOT = Path(__file__).resolve().parents[1]
HOW = "python tools/make_docs.py"
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


@dataclass(frozen=True)
class Row:
    label: str
    scenario: str
    overrides: tuple[str, ...] = ()
    measured: str = "—"
    kind: str = "qd1"  #: qd1: latency figures; load: IOPS and mean latency


QD1 = [
    Row("`wido-2019-nautilus.yaml` (seed 000, 2019: Nautilus 14.2.2, EPYC 7351P, PM983)",
        "wido-2019-nautilus", (), "IOPS 1292, mean 772 us, p50 734, p99 1745, p99.9 4752"),
    Row("`mako-reef-qd1.yaml` (upstream perf lab, Reef, EPYC 7742, PM983, 100GbE)",
        "mako-reef-qd1", (), "mean 421 us, p99 465, p99.9 750"),
    Row("the same as Quincy (`--set ceph.release=quincy`)", "mako-reef-qd1",
        ("ceph.release=quincy",), "mean 417 us, p99 465, p99.9 741"),
    Row("the same, random reads (`--set workload.rw=randread`), cold cache", "mako-reef-qd1",
        ("workload.rw=randread",), "~130 us (Reef encryption post)"),
    Row("the same, warm cache (`--set workload.read_cache=warm --set "
        "ceph.osd_memory_target=16GiB`)",
        "mako-reef-qd1", ("workload.rw=randread", "workload.read_cache=warm",
                          "ceph.osd_memory_target=16GiB"), "~130 us (Reef encryption post)"),
    Row("`wido-2024-test1.yaml` (C-states on, ondemand, logging default)", "wido-2024-test1",
        (), "charts only (slowest of the three)"),
    Row("`wido-2024-test2.yaml` (C1 only, performance, logging default)", "wido-2024-test2",
        (), "charts only"),
    Row("`wido-2024-test3.yaml` (C1 only, performance, logging off)", "wido-2024-test3",
        (), "charts only (fastest)"),
    Row("`seed002-nvme-slow-nic.yaml` (seed 002: the slowest NIC and switch pair)",
        "seed002-nvme-slow-nic", (), "~0.8 ms (stated)"),
    Row("`tuned-routers-balanced.yaml` (seed 001: 1GbE routed, consumer SATA, CephFS, 8 jobs)",
        "tuned-routers-balanced", (), "259 IOPS"),
    Row("`tuned-routers-network-latency.yaml` (the same, routers tuned)",
        "tuned-routers-network-latency", (), "315 IOPS"),
    Row("`quickstart.yaml` (3 NVMe hosts, 25GbE, Reef)", "quickstart"),
    Row("`hdd-nvme-db.yaml` (HDD OSDs with an NVMe DB device)", "hdd-nvme-db"),
    Row("`hci-3node-full-mesh.yaml` (3 hyperconverged nodes, switchless 25GbE mesh)",
        "hci-3node-full-mesh"),
]

LOAD = [
    Row("`classic-osd-single-node.yaml`: one OSD, size 1, librbd on the same node, 32 jobs x qd 1",
        "classic-osd-single-node", (), "65.9k IOPS, clat 0.48 ms", "load"),
    Row("the same at qd 64 (2048 in flight)", "classic-osd-single-node",
        ("workload.iodepth=64",), "104.8k IOPS, clat 19.5 ms", "load"),
    Row("the same, randread", "classic-osd-single-node", ("workload.rw=randread",),
        "108.4k IOPS at 0.29 ms", "load"),
    Row("`nvme-krbd-randrw-qd64.yaml`: one krbd client, randrw 75/25, qd 64, Pacific",
        "nvme-krbd-randrw-qd64", (), "88.5k read + 30.5k write IOPS", "load"),
    Row("`mako-reef-randwrite-qd128.yaml`: 60 colocated librbd clients x qd 128",
        "mako-reef-randwrite-qd128", (), "~800k IOPS", "load"),
    Row("`reef-single-client-qd128.yaml`: one librbd client, qd 128, randwrite",
        "reef-single-client-qd128", (), "~1.5 ms", "load"),
    Row("`micron-9200-luminous-randwrite.yaml`: Micron's RA, Luminous 12.2.5, 100 jobs x qd 32",
        "micron-9200-luminous-randwrite", (), "495k IOPS at 6.5 ms", "load"),
    Row("`rhcs32-allflash-luminous-randwrite.yaml`: Red Hat's 2019 tuned RHCS 3.2 cluster",
        "rhcs32-allflash-luminous-randwrite", (), "463k IOPS at 11 ms", "load"),
    Row("Vitastor's Octopus cluster (`calibration/scenarios/vitastor-octopus-t8q64.yaml`): "
        "8 jobs x qd 64, randwrite, size 2", "../calibration/scenarios/vitastor-octopus-t8q64", (),
        "~100k IOPS, OSDs ~40 CPUs per host", "load"),
    Row("the same, randread", "../calibration/scenarios/vitastor-octopus-t8q64",
        ("workload.rw=randread",), "~480k IOPS, OSDs ~40 CPUs per host", "load"),
]


def _run(row: Row):  # noqa: ANN202 - a RunResult
    from cephsim.model.runner import run_scenario
    from cephsim.scenario.load import load_scenario

    path = ROOT / "scenarios" / f"{row.scenario}.yaml"
    return run_scenario(load_scenario(path, list(row.overrides)), scenario_path=path, seed=1)


def _cell(row: Row) -> str:
    from cephsim.formats.report.summary import job_stats
    from cephsim.tools.calibrate.objective import osd_cpu_per_host

    res = _run(row)
    js = job_stats(res)
    if row.kind == "load":
        parts = []
        for name, d in (("read", js.read), ("write", js.write)):
            if d is not None and d.total_ios:
                parts.append(f"{d.iops / 1e3:.1f}k {name} IOPS, mean {d.lat.mean / 1e6:.2f} ms")
        return "; ".join(parts) + f"; OSDs {osd_cpu_per_host(res):.1f} CPUs per host"
    d = js.write if js.write is not None else js.read
    pct = d.clat_percentiles
    return (f"IOPS {d.iops:.0f}, mean {d.lat.mean / 1e3:.0f} us, p50 {pct[50.0] / 1e3:.0f}, "
            f"p99 {pct[99.0] / 1e3:.0f}, p99.9 {pct[99.9] / 1e3:.0f}")


def table(rows: list[Row]) -> str:
    out = ["| scenario | measured | cephsim (seed 1) |", "|---|---|---|"]
    for r in rows:
        print(f"  {r.scenario} {' '.join(r.overrides)}", file=sys.stderr, flush=True)
        out.append(f"| {r.label} | {r.measured} | {_cell(r)} |")
    return "\n".join(out)


def tour() -> str:
    from cephsim.formats.report.render import render_run

    text = render_run(_run(Row("", "wido-2019-nautilus")), "text")
    keep = [ln for ln in text.splitlines()
            if ln.startswith(("cephsim:", "  write:", "     lat (", "    clat percentiles",
                              "     |  1.00th", "     | 99.00th", "Where the time", "  write: mean",
                              "    network", "    CPU work", "    C-state", "    disk",
                              "    queueing"))]
    return "```text\n$ cephsim run scenarios/wido-2019-nautilus.yaml\n" + "\n".join(keep) + "\n```"


def accuracy() -> tuple[list[str], str]:
    from cephsim.tools.calibrate.accuracy import case_files, run_accuracy
    from cephsim.tools.calibrate.cases import load_cases
    from cephsim.tools.calibrate.corpus import summary_lines, validation_markdown

    paths = case_files(None)
    v, command = run_accuracy(load_cases(list(paths)), paths, 2, 3000, None,
                              lambda s: print("  " + s, file=sys.stderr, flush=True))
    return summary_lines(v), validation_markdown(v, command)


#: the figures under docs/, each as the command that draws it (paths from the repository root)
FIGURES = [
    ("explain", "scenarios/wido-2019-nautilus.yaml", "--set", "run.ios=5000", "--no-ablations",
     "-q", "--plot", "docs/explain-wido-2019-median.png", "--latency-plot",
     "docs/latency-wido-2019.png"),
    ("sweep", "scenarios/quickstart.yaml", "--set", "workload.iodepth=1,2,4,8,16,32", "--set",
     "run.ios=5000", "--seeds", "3", "-q", "--plot", "docs/sweep-quickstart-iodepth.png"),
    ("mon-threshold", "scenarios/osiris-mon-rtt-1600ms.yaml", "--lo", "100ms", "--plot",
     "docs/mon-state-vs-rtt.png"),
]


def figures() -> None:
    import contextlib
    import io

    from typer.main import get_command

    from cephsim.cli import app

    command = get_command(app)
    for args in FIGURES:
        print(f"  cephsim {' '.join(args)}", file=sys.stderr, flush=True)
        with contextlib.redirect_stdout(io.StringIO()):  # the figure is the output wanted
            command.main(list(args), prog_name="cephsim", standalone_mode=False)


def layers() -> None:
    """docs/model.md's layout picture, from the table the import test holds the package to."""
    page = ROOT / "docs" / "model.md"
    page.write_text(replace_block(page.read_text(), "layers", picture(), "tools/make_docs.py"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="only report stale blocks")
    ap.add_argument("--figures", action="store_true", help="only redraw the figures")
    ap.add_argument("--layers", action="store_true", help="only redraw docs/model.md's layers")
    args = ap.parse_args()
    if args.check:
        stale = {p.relative_to(ROOT).as_posix(): stale_blocks(p.read_text()) for p in DOCS}
        stale = {k: v for k, v in stale.items() if v}
        for k, v in stale.items():
            print(f"{k}: stale: {', '.join(v)}")
        return 1 if stale else 0
    import os

    os.chdir(ROOT)  # the accuracy command's default corpus and the figures' paths are relative
    if args.figures:
        print("figures:", file=sys.stderr)
        figures()
        return 0
    layers()
    if args.layers:
        return 0
    print("accuracy (leave-one-cluster-out):", file=sys.stderr)
    summary, validation = accuracy()
    (ROOT / "docs" / "validation.md").write_text(validation)
    readme = (ROOT / "README.md").read_text()
    readme = replace_block(readme, "accuracy", "\n".join(summary), "cephsim accuracy --readme")
    print("tour:", file=sys.stderr)
    readme = replace_block(readme, "tour", tour(), HOW)
    (ROOT / "README.md").write_text(readme)
    scen = ROOT / "docs" / "scenarios.md"
    text = scen.read_text()
    print("qd=1 scenarios:", file=sys.stderr)
    text = replace_block(text, "qd1-scenarios", table(QD1), HOW)
    print("scenarios under load:", file=sys.stderr)
    text = replace_block(text, "load-scenarios", table(LOAD), HOW)
    scen.write_text(text)
    print("figures:", file=sys.stderr)
    figures()
    return 0


if __name__ == "__main__":
    sys.exit(main())
