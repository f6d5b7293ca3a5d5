"""What every ``cephsim`` command shares: option types, --help tidying, and how a
command fails (a short message, exit status 2) or writes its output (atomically)."""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer
from typer.core import TyperGroup

from cephsim.errors import CephsimError
from cephsim.formats.output import STDOUT, write_atomic

#: what --help shows for an option's value, by the type name typer would print
_METAVARS = {"<bool>": "", "<int>": "N", "<int range>": "N", "<float>": "X", "<path>": "FILE",
             "<list[Path]>": "FILE", "<str>": "TEXT", "<list[str]>": "TEXT"}


def _tidy_metavar(param: object, ctx: object) -> None:
    """Name an option's value the way users type it (N, FILE, PATH=VALUE) rather than by
    its Python type (typer 0.29 prints <int range>, <list[str]>, and <bool> after every
    flag).  A no-op where typer has no such display (older releases)."""
    show = getattr(param, "display_type_rich", None)
    opts = getattr(param, "opts", ())
    if show is None or getattr(param, "metavar", "") is not None or not any(
            o.startswith("-") for o in opts):  # arguments keep their names
        return
    shown = show(ctx)
    if "--set" in opts:
        param.metavar = "PATH=VALUE"  # type: ignore[attr-defined]
    elif shown in _METAVARS:
        param.metavar = _METAVARS[shown]  # type: ignore[attr-defined]


class _Group(TyperGroup):
    """The command group; tidies every command's --help as typer builds it (so the
    installed script and typer's test runner show the same thing)."""

    def get_command(self, ctx, cmd_name):  # type: ignore[no-untyped-def]
        cmd = super().get_command(ctx, cmd_name)
        if cmd is not None:
            for param in [*cmd.params, cmd.get_help_option(ctx)]:
                if param is not None:
                    _tidy_metavar(param, ctx)
        return cmd

    def get_params(self, ctx):  # type: ignore[no-untyped-def]
        params = super().get_params(ctx)
        for param in params:
            _tidy_metavar(param, ctx)
        return params


class Format(str, Enum):
    text = "text"
    json = "json"


class RunFormat(str, Enum):
    """``run``'s formats: fio's normal output, its JSON, or json+ (JSON with each
    direction's latency histogram bins, as fio's --output-format=json+ writes them)."""
    text = "text"
    json = "json"
    jsonplus = "json+"


ScenarioArg = Annotated[Path, typer.Argument(help="Scenario YAML file.", show_default=False)]
SetOpt = Annotated[Optional[list[str]], typer.Option(
    "--set", help="Override a field: dotted.path=value (YAML value, units allowed). "
    "Repeatable; a later --set of the same field wins.")]
SeedOpt = Annotated[Optional[int], typer.Option("--seed", min=0, help="Seed (overrides run.seed).")]
FormatOpt = Annotated[Format, typer.Option("--format", "-f", help="Output format.")]
OutputOpt = Annotated[Optional[Path], typer.Option("--output", "-o", help=
        "Write to this file (atomically) instead of stdout ('-': stdout).")]


class ExecutorKind(str, Enum):
    """Where many simulations run (:class:`cephsim.tools.workers.Workers`)."""
    local = "local"
    dask = "dask"


JobsOpt = Annotated[Optional[int], typer.Option("--jobs", "-j", min=1,
                                                help="Parallel local processes (default: all "
                                                        "cores).")]
ExecOpt = Annotated[ExecutorKind, typer.Option("--executor", help="local process pool or a Dask "
        "cluster.")]
SchedOpt = Annotated[Optional[str], typer.Option("--scheduler", metavar="ADDRESS", help=
        "Dask scheduler address (tcp://host:8786).")]


def check_scheduler(executor: ExecutorKind, scheduler: str | None) -> None:
    if scheduler is not None and executor is not ExecutorKind.dask:
        raise CephsimError.single("--scheduler only applies with --executor dask")


#: problems printed at most: a file with thousands of wrong keys gets the first ones and a
#: count, not a screen flood (fixing these usually fixes or reveals the rest)
MAX_PROBLEMS_SHOWN = 50


def fail(err: CephsimError) -> None:
    shown = [f"  {p}" for p in err.problems[:MAX_PROBLEMS_SHOWN]]
    if len(err.problems) > MAX_PROBLEMS_SHOWN:
        shown.append(f"  ... and {len(err.problems) - MAX_PROBLEMS_SHOWN} more problems")
    typer.echo(f"cephsim: error: {err}" if len(err.problems) <= 1 else
               "cephsim: errors:\n" + "\n".join(shown), err=True)
    raise typer.Exit(2)


def emit(text: str, output: Path | None) -> None:
    if output is None or str(output) == STDOUT:
        if sys.stdout is None:  # started with stdout closed (cmd >&-)
            raise CephsimError.single("stdout is closed; give --output FILE")
        sys.stdout.write(text)
        return

    write_atomic(output, text)


def plot_suffix(plot: Path | None, option: str = "--plot") -> None:
    """Refuse, before any work, a figure file matplotlib would not know how to write."""
    if plot is not None and plot.suffix.lower() not in (".png", ".svg", ".pdf"):
        raise CephsimError.single(f"{option} {plot}: the file must end in .png, .svg or .pdf")


def html_suffix(path: Path | None, option: str = "--html") -> None:
    """Refuse, before any work, a page file a browser would not open as HTML."""
    if path is not None and path.suffix.lower() not in (".html", ".htm"):
        raise CephsimError.single(f"{option} {path}: the file must end in .html or .htm")


def write_page(ex: object, path: Path) -> None:
    """The teaching page of an explanation (cephsim.tools.explain), written atomically."""
    # on use (cli/__init__)
    from cephsim.formats.report.teach_html import render_page
    from cephsim.tools.explain import explanation_data

    write_atomic(path, render_page(explanation_data(ex)))  # type: ignore[arg-type]
