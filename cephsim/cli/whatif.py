"""What-if commands: ``sweep``, ``compare``, ``compare-fio``, ``explain``.

Registered on the main typer app by :func:`register` (see ``cephsim/cli/__init__.py``).
Progress bars go to stderr (and only when a command runs for more than a
second); ``--quiet`` turns them off.  Errors are short, on stderr, exit 2.
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer

from cephsim.cli.common import (
    ExecOpt,
    ExecutorKind,
    JobsOpt,
    SchedOpt,
    check_scheduler,
    emit,
    fail,
    html_suffix,
    plot_suffix,
    write_page,
)
from cephsim.errors import CephsimError
from cephsim.formats.output import check_outputs


class SweepFormat(str, Enum):
    text = "text"
    json = "json"
    csv = "csv"


class CmpFormat(str, Enum):
    text = "text"
    json = "json"
    markdown = "markdown"


def _render(c: object, format: CmpFormat) -> str:
    """A comparison in the chosen format (cephsim.tools.compare.Comparison)."""
    return {CmpFormat.text: c.to_text, CmpFormat.json: c.to_json,  # type: ignore[attr-defined]
            CmpFormat.markdown: c.to_markdown}[format]()  # type: ignore[attr-defined]


QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar (for scripts).")]
SetOpt = Annotated[Optional[list[str]], typer.Option(
    "--set", help="path=v1,v2,... (a sweep axis) or path=value. Repeatable.")]
OutOpt = Annotated[Optional[Path], typer.Option("--output", "-o", help=
        "Write to this file instead of stdout.")]
SeedOpt = Annotated[Optional[int], typer.Option("--seed", min=0, help=
        "Base seed (default: run.seed).")]


def register(app: typer.Typer) -> None:
    @app.command()
    def sweep(
        scenario: Annotated[
            Path,
            typer.Argument(
                help="Scenario YAML file (may hold a sweep: block).", show_default=False
            ),
        ],
        set_: SetOpt = None,
        seeds: Annotated[
            Optional[int],
            typer.Option(
                "--seeds",
                "-k",
                min=1,
                help="Seeds per grid point (default 1, or the sweep block's).",
            ),
        ] = None,
        seed: SeedOpt = None,
        jobs: JobsOpt = None,
        executor: ExecOpt = ExecutorKind.local,
        scheduler: SchedOpt = None,
        format: Annotated[
            SweepFormat, typer.Option("--format", "-f", help="Output format.")
        ] = SweepFormat.text,
        output: OutOpt = None,
        plot: Annotated[
            Optional[Path],
            typer.Option("--plot", help="Also draw the sweep curves (.png, .svg or .pdf)."),
        ] = None,
        fio_dir: Annotated[
            Optional[str],
            typer.Option("--fio-dir", metavar="DIR", help=
                "Also write each point as fio's JSON (its seeds pooled as one job) in the "
                "tree fio-plot's bench-fio writes, for fio-plot to graph next to measured "
                "runs: DIR/<scenario>/<bs>/<rw>-<iodepth>-<numjobs>.json (rw, randrw: "
                "DIR/<scenario>/<rw><rwmixread>/<bs>/...); the values of other axes are "
                "added to the <scenario> folder's name (quickstart,pool.size=2)."),
        ] = None,
        quiet: QuietOpt = False,
    ) -> None:
        """Run a grid of variants (all combinations of the --set lists), each with K seeds."""
        try:
            from cephsim.tools.sweep import run_sweep, write_fio_dir  # on use (cli/__init__)

            plot_suffix(plot)
            check_scheduler(executor, scheduler)
            check_outputs({"--output": output, "--plot": plot}, [scenario])
            res = run_sweep(scenario, set_ or [], seeds=seeds, seed=seed, jobs=jobs,
                            executor=executor.value, scheduler=scheduler, quiet=quiet,
                            fio_dir=fio_dir, others=[p for p in (output, plot) if p])
            text = {"text": res.to_text, "json": res.to_json, "csv": res.to_csv}[format.value]()
            if fio_dir is not None:
                write_fio_dir(res, fio_dir)
            if plot is not None:
                from cephsim.tools.plots import plot_sweep  # on use (cli/__init__): matplotlib

                plot_sweep(res, plot)
            emit(text, output)
        except CephsimError as e:
            fail(e)

    @app.command()
    def compare(
        scenarios: Annotated[
            list[Path],
            typer.Argument(
                help="Two or more scenario files; the first is the baseline.", show_default=False
            ),
        ],
        set_: Annotated[
            Optional[list[str]],
            typer.Option("--set", help="Override a field in every scenario. Repeatable."),
        ] = None,
        seeds: Annotated[int, typer.Option("--seeds", "-k", min=1, help="Seeds per scenario.")] = 3,
        seed: SeedOpt = None,
        jobs: JobsOpt = None,
        executor: ExecOpt = ExecutorKind.local,
        scheduler: SchedOpt = None,
        format: Annotated[
            CmpFormat, typer.Option("--format", "-f", help="Output format: text, json, or "
                                    "markdown (a report with a table per direction).")
        ] = CmpFormat.text,
        output: OutOpt = None,
        quiet: QuietOpt = False,
    ) -> None:
        """Side by side: IOPS, bandwidth and latency of each scenario per direction, the
        difference from the first (B - A, change = (B - A) / A) with confidence intervals,
        and the stages behind it."""
        try:
            from cephsim.tools.compare import compare as do_compare  # on use (cli/__init__)

            check_scheduler(executor, scheduler)
            check_outputs({"--output": output}, list(scenarios))

            c = do_compare(scenarios, set_ or [], seeds=seeds, seed=seed, jobs=jobs,
                           executor=executor.value, scheduler=scheduler, quiet=quiet)
            emit(_render(c, format), output)
        except CephsimError as e:
            fail(e)

    @app.command("compare-fio")
    def compare_fio(simulated: Annotated[Path, typer.Argument(help="cephsim JSON output (cephsim "
            "run -f json).", show_default=False)],
                    measured: Annotated[Path, typer.Argument(help="Real fio result: JSON or normal "
                            "output.", show_default=False)],
                    direction: Annotated[Optional[str], typer.Option(
                            "--direction", metavar="read|write", help=
                                    "Only this direction (default: every direction both files "
                                    "have).")] = None,
                    format: Annotated[CmpFormat, typer.Option("--format", "-f", help=
                            "Output format: text, json, or markdown (a report with a table "
                            "per direction).")] = CmpFormat.text,
                    output: OutOpt = None,
                    force: Annotated[bool, typer.Option("--force", help=
                            "Compare two jobs that differ in rw, rwmixread, block size, queue "
                            "depth or numjobs, or a simulated file that is no cephsim result "
                            "(refused otherwise); each difference is named.")] = False) -> None:
        """Compare a simulated result with a measured fio result, side by side: the measurement
        is the baseline, change = (simulated - measured) / measured.

        The two must describe the same job: a different rw, rwmixread, block size, queue
        depth or numjobs, or a simulated file that is not a cephsim result (the two swapped),
        is refused (exit 2) unless --force.  A different ioengine (libaio against a librbd
        simulation), fsync/fdatasync/sync/direct, or a target that is no RBD image is
        compared, each named in a warning on stderr and in the notes."""
        try:
            from cephsim.tools.compare import compare_fio as do  # on use (cli/__init__)

            check_outputs({"--output": output}, [simulated, measured])

            c = do(simulated, measured, direction, force=force)
            for w in c.warnings:
                typer.echo(f"warning: not like for like: {w}", err=True)
            emit(_render(c, format), output)
        except CephsimError as e:
            fail(e)

    @app.command()
    def explain(scenario: Annotated[Path, typer.Argument(help="Scenario YAML file.", show_default=False)],
                op: Annotated[str, typer.Option("--op", metavar="OP", help=
                        "median, p99 (any pNN from p0 to p100), min, max, or an op "
                        "number.")] = "median",
                set_: Annotated[Optional[list[str]], typer.Option("--set", help=
                        "Override a field. Repeatable.")] = None,
                seed: Annotated[Optional[int], typer.Option("--seed", min=0, help=
                        "Seed (overrides run.seed).")] = None,
                plot: Annotated[Optional[Path], typer.Option("--plot", help=
                        "Also draw the op's timeline (.png, .svg or .pdf).")] = None,
                latency_plot: Annotated[Optional[Path], typer.Option(
                        "--latency-plot", help="Also draw the run's latency CDF and histogram "
                                "(.png, .svg or .pdf).")] = None,
                ablations: Annotated[bool, typer.Option("--ablations/--no-ablations", help=
                        "Run the what-if ablations.")] = True,
                html: Annotated[Optional[Path], typer.Option("--html", help=
                        "Also write the teaching page: one self-contained HTML file (no "
                        "network) with the op's sequence diagram and timeline, where its "
                        "time went, the run's latency distribution and each ablation's own "
                        "op to switch to (each ablation is then traced too: two runs "
                        "each).")] = None,
                jobs: JobsOpt = None, output: OutOpt = None, quiet: QuietOpt = False) -> None:
        """The life of one simulated write, where its time went, and what each knob is worth."""
        try:
            from cephsim.tools.explain import (
                explain as do,  # on use (cli/__init__)
                render,
            )

            plot_suffix(plot)
            plot_suffix(latency_plot, "--latency-plot")
            html_suffix(html)
            check_outputs({"--output": output, "--plot": plot, "--latency-plot": latency_plot,
                           "--html": html}, [scenario])
            ex = do(scenario, set_ or [], which=op, seed=seed, ablations=ablations, jobs=jobs,
                    quiet=quiet, trace_ablations=html is not None)
            if html is not None:
                write_page(ex, html)
            if plot is not None:
                from cephsim.tools.plots import plot_waterfall  # on use (cli/__init__): matplotlib

                plot_waterfall(ex, plot)
            if latency_plot is not None:
                from cephsim.tools.plots import plot_latency  # on use (cli/__init__): matplotlib

                plot_latency(ex.latencies_ns, latency_plot, f"{ex.scenario} (seed {ex.seed})")
            emit(render(ex), output)
        except CephsimError as e:
            fail(e)
