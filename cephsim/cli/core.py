"""The ``cephsim`` command: a thin typer layer over the library.

Every command turns a :class:`~cephsim.errors.CephsimError` into a short
message on stderr and exit status 2; nothing is written when a command fails.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from cephsim import __version__
from cephsim.cli.common import (
    Format,
    FormatOpt,
    OutputOpt,
    RunFormat,
    ScenarioArg,
    SeedOpt,
    SetOpt,
    _Group,
    emit,
    fail,
    html_suffix,
    write_page,
)
from cephsim.errors import CephsimError
from cephsim.formats.output import check_outputs
from cephsim.tools.progress import ProgressBar

app = typer.Typer(cls=_Group, add_completion=False, no_args_is_help=True,
                  pretty_exceptions_enable=False,
                  help="cephsim: discrete-event simulator of Ceph replicated write latency.")


def _version(value: bool) -> None:
    if value:
        # on use (cli/__init__), as in every command below
        from cephsim.tools.bench import compiled_build

        typer.echo(f"cephsim {__version__}, {compiled_build()} build")
        raise typer.Exit()


@app.callback()
def _main(version: Annotated[bool, typer.Option(
        "--version", callback=_version, is_eager=True, help="Print the version and exit.")] = False,
          catalog: Annotated[Optional[list[Path]], typer.Option(
              "--catalog", help="A directory of your own catalog files (cpus.yaml, disks.yaml, "
              "nics.yaml, switches.yaml, cstates.yaml; repeatable), added to the shipped "
              "catalog for this command, before CEPHSIM_CATALOG's; an entry may start from "
              "another with 'base: <id>'.")] = None,
          ) -> None:
    """cephsim: discrete-event simulator of Ceph replicated write latency."""
    if catalog:
        import os

        from cephsim.catalog.load import ENV, reset  # on use (cli/__init__)

        # in the environment, so that sweep's worker processes read the same catalog
        os.environ[ENV] = os.pathsep.join([*map(str, catalog),
                                            *filter(None, [os.environ.get(ENV)])])
        reset()


@app.command()
def run(scenario: ScenarioArg, seed: SeedOpt = None, set_: SetOpt = None,
        format: Annotated[RunFormat, typer.Option(
            "--format", "-f", help="Output format: text, json, or json+ (fio's JSON with the "
            "latency bins).")] = RunFormat.text,
        output: OutputOpt = None,
        html: Annotated[Optional[Path], typer.Option("--html", help=
            "Also write the run's teaching page: one self-contained HTML file (no network) "
            "with its median op step by step, where the time went and the latency of "
            "every op (cephsim explain --html adds the what-if runs).")] = None,
        quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
        ) -> None:
    """Simulate a scenario and print a fio-style report (or fio-compatible JSON)."""
    try:
        # on use (cli/__init__)
        from cephsim.api import load_resolved
        from cephsim.formats.report.fio_json import source_date_epoch
        from cephsim.formats.report.render import render_run
        from cephsim.model.resolve import profile_path
        from cephsim.model.runner import progress_total, run_scenario
        from cephsim.scenario.schema import run_warnings

        sc, resolved = load_resolved(scenario, set_)
        profile = profile_path(sc, scenario)  # nor may -o replace the profile it reads
        html_suffix(html)
        check_outputs({"--output": output, "--html": html},
                      [scenario] + ([profile] if profile else []))
        if format is not RunFormat.text:  # a bad SOURCE_DATE_EPOCH stops it before the run
            source_date_epoch()
        for w in run_warnings(sc):  # before the run: a long warm-up shows no progress
            typer.echo(f"warning: {w}", err=True)
        with ProgressBar(progress_total(sc), f"simulating {sc.name}", quiet=quiet) as bar:
            res = run_scenario(sc, scenario_path=scenario, seed=seed, resolved=resolved,
                               progress=bar.update,
                               # every op is kept only for the page: memory flat in run.ios
                               keep_ops=html is not None)
        text = render_run(res, format.value, set_ or [])
        if html is not None:  # the run's median op, traced (one more run, the same seed)
            from cephsim.tools.explain import explain  # on use: a run without --html needs none

            write_page(explain(scenario, set_ or [], seed=seed, ablations=False, quiet=quiet,
                               result=res), html)
        emit(text, output)
    except CephsimError as e:
        fail(e)


@app.command()
def validate(scenario: ScenarioArg, set_: SetOpt = None) -> None:
    """Check a scenario (schema, units, catalog names, consistency, memory) and estimate what
    its run will cost: the memory from the cluster's size and the I/Os in flight, the wall
    time from two short pilot runs of it on this machine (a second or so; longer for a very
    large cluster, which a pilot must build). Where the OSD hosts' memory is assumed and its
    page cache serves metadata the OSDs' caches miss, three more short runs (the published
    hosts' range) tell whether that assumption moves the answer by more than 10 %. The
    scenario's own run is not made."""
    try:
        # on use (cli/__init__)
        from cephsim.api import load_resolved
        from cephsim.model.runner import config_warnings
        from cephsim.scenario.schema import run_warnings
        from cephsim.tools.estimate import LONG_RUN_S, estimate, format_wall
        from cephsim.tools.memory_check import memory_warnings
        from cephsim.tools.sweep import block_axes, grid, validate_points

        sc, r = load_resolved(scenario, set_)
        osds = sum(len(h.osd_ids) for h in r.hosts)
        # a sweep: block's points are checked as `cephsim sweep` would (a --set of the same
        # field replaces that axis, as there)
        fixed = {s.partition("=")[0].strip() for s in set_ or []}
        axes = [a for a in block_axes(scenario)[0] if a.path not in fixed]
        points = grid(axes) if axes else []
        if points:
            validate_points(scenario, points, axes, extra=set_ or [])
        est = estimate(sc, scenario)
        for w in run_warnings(sc) + config_warnings(r) + memory_warnings(sc, r, scenario):
            typer.echo(f"warning: {w}", err=True)
        if est.wall_s > LONG_RUN_S:
            typer.echo(f"warning: the run would take about {format_wall(est.wall_s)} "
                       "of wall time on this machine: shorten run.ios or run.runtime", err=True)
        pool = (f"erasure-coded pool k={sc.pool.k} m={sc.pool.m} ({sc.pool.size} chunks)"
                if sc.pool.type == "erasure" else f"pool size {sc.pool.size}")
        typer.echo(f"{scenario}: ok ({len(r.hosts)} hosts, {osds} OSDs, {pool}, "
                   f"{sc.ceph.release}, {r.ceph.write_mode} writes"
                   + (f"; sweep block: all {len(points)} points valid" if points else "") + ")")
        typer.echo(f"a run needs about {est.memory_bytes / 2**20:.0f} MiB of memory and "
                   f"{format_wall(est.wall_s)} of wall time here (from a pilot of "
                   f"{est.pilot_ios} I/Os"
                   + (f", {est.pilot_inflight} in flight"
                      if est.pilot_inflight < sc.workload.iodepth * sc.workload.numjobs else "")
                   + (f" on a slice of {est.pilot_osds:,} OSDs" if est.pilot_osds else "")
                   + (": rougher" if est.rough else "")
                   + ")" + (", per point" if points else ""))
    except CephsimError as e:
        fail(e)


@app.command()
def schema(output: OutputOpt = None) -> None:
    """Print the JSON Schema of the scenario format (for editor completion)."""
    try:
        from cephsim.scenario.jsonschema import scenario_json_schema  # on use (cli/__init__)

        emit(json.dumps(scenario_json_schema(), indent=2) + "\n", output)
    except CephsimError as e:
        fail(e)


@app.command()
def catalog(kind: Annotated[Optional[str], typer.Argument(
        help="cpus, cstates, disks, nics or switches (default: all).")] = None,
            id_: Annotated[Optional[str], typer.Argument(
                metavar="[ID]", help="One entry: each figure as written, with its basis "
                "(measured, datasheet, derived, estimate, ...), source and note.")] = None) -> None:
    """List the hardware catalog with the source of every figure."""
    try:
        from cephsim.formats.report.catalog_table import catalog_text  # on use (cli/__init__)

        typer.echo(catalog_text(kind, id_), nl=False)
    except CephsimError as e:
        fail(e)


@app.command()
def bench(ios: Annotated[int, typer.Option(min=1000, help="Simulated writes to time.")] = 20000,
          format: FormatOpt = Format.text) -> None:
    """Measure simulation speed next to a bare-SimPy event loop in the same run."""
    from cephsim.tools.bench import bench_text, run_bench  # on use (cli/__init__)

    res = run_bench(ios)
    typer.echo(json.dumps(res, indent=2) if format is Format.json else bench_text(res))


@app.command()
def inspect(files: Annotated[list[Path], typer.Argument(help="Measurement files (fio, qperf, ping, "
        "rados bench, perf dump, historic ops).")],
            format: FormatOpt = Format.text) -> None:
    """Read measurement files and print what was read, in normalised units."""
    try:
        from cephsim.formats.readers.inspect import inspect_paths  # on use (cli/__init__)

        typer.echo(inspect_paths(list(files), format.value), nl=False)
    except CephsimError as e:
        fail(e)


@app.command()
def init(source: Annotated[Path, typer.Option("--from", help="Directory of collected command "
        "outputs (ceph osd metadata/tree/pool ls detail/config dump -f json, ceph versions, "
        "ceph osd erasure-code-profile get NAME -f json saved as NAME.json, lscpu, cpupower "
        "frequency-info/idle-info, ethtool, ethtool -i, ip -j link, nvme list -o json, ping), "
        "recognised by content; a client/ subdirectory holds the client host's own lscpu, "
        "cpupower and ethtool outputs.")],
         output: OutputOpt = None,
         yes: Annotated[bool, typer.Option("--yes", "-y", help="Take the guesses without asking "
                 "(they are listed in the file's header either way).")] = False,
         ask: Annotated[bool, typer.Option("--ask", help="Ask for what the files do not say "
                 "even when stdin is not a terminal (answers one a line; an empty line takes "
                 "the default). At a terminal init asks unless --yes.")] = False) -> None:
    """Write a scenario for an existing cluster from what its operator can collect."""
    try:
        # on use (cli/__init__)
        from cephsim.tools.init.ask import interview
        from cephsim.tools.init.build import build
        from cephsim.tools.init.collect import read_dir

        if yes and ask:
            raise CephsimError.single("--yes takes the guesses, --ask asks for them: give one")
        if output is not None:
            check_outputs({"--output": output})
        got = read_dir(source)
        built = build(got)
        for line in built.notes:
            typer.echo(f"cephsim init: {line}", err=True)
        tty = sys.stdin is not None and sys.stdin.isatty()
        if built.questions and (ask or (tty and not yes)):
            typer.echo(f"cephsim init: {len(built.questions)} things the files do not say "
                       "(Enter takes the [default])", err=True)
            built = interview(got, _read_answer, lambda s: typer.echo(f"  {s}", err=True),
                              built)
        for line in built.guesses:
            typer.echo(f"cephsim init: ASSUMED {line}", err=True)
        if not yes and not ask and built.guesses and tty:
            if not typer.confirm(f"write the scenario with these {len(built.guesses)} "
                                 "assumptions?", default=True, err=True):
                raise typer.Exit(1)
        emit(built.text, output)
    except CephsimError as e:
        fail(e)


def _read_answer(prompt: str) -> str:
    """One answer line from stdin (the prompt on stderr: stdout may carry the scenario)."""
    typer.echo(prompt, err=True, nl=False)
    line = sys.stdin.readline() if sys.stdin is not None else ""
    if not line:
        typer.echo("", err=True)
        raise EOFError
    line = line.rstrip("\r\n")
    if not sys.stdin.isatty():  # piped answers: show them, so the transcript reads as asked
        typer.echo(line, err=True)
    return line


def _degrade_streams() -> None:
    """Text the terminal's encoding cannot show (PYTHONIOENCODING=ascii, a C locale, a
    lone surrogate read from a file) becomes a replacement character instead of a
    traceback halfway through a report."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="replace" if stream is sys.stdout else "backslashreplace")
            except (ValueError, OSError):  # a stream that cannot be changed now: left as is
                pass


def main() -> None:
    _degrade_streams()
    try:
        try:
            app()
        finally:  # a report still in stdout's buffer fails here on a full device
            if sys.stdout is not None:
                sys.stdout.flush()
    except OSError as e:  # stdout full (/dev/full) or a closed pipe: say so, briefly
        import os

        try:  # later flushes (at exit) must not fail again with a traceback
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            sys.stderr.write(f"cephsim: error: cannot write the output: {e.strerror or e}\n")
        except (OSError, AttributeError):
            pass
        raise SystemExit(2) from None


if __name__ == "__main__":
    main()
