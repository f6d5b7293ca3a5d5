"""``cephsim calibrate`` and ``cephsim whatif`` (registered on the main typer app)."""


import json
import sys
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from cephsim.cli.common import (
    ExecOpt,
    ExecutorKind,
    Format,
    JobsOpt,
    SchedOpt,
    check_scheduler,
    emit,
    fail,
)
from cephsim.errors import CephsimError
from cephsim.formats.output import check_outputs, write_atomic

DEFAULT_FIT = ["scale", "tails.kv_stall_rate_hz", "tails.kv_stall.median"]


def register(app: typer.Typer) -> None:

    @app.command()
    def calibrate(
        ctx: typer.Context,
        files: Annotated[list[Path], typer.Argument(
            help="Case files (calibration/cases/*.yaml); with --network: qperf or ping outputs "
                 "or a figures YAML; with --flush-sweeps: one sweep file.",
            show_default=False)],
        fit: Annotated[Optional[list[str]], typer.Option(
            "--fit", help="Free parameter (repeatable or comma-separated): scale, kcycles.<stage> or "
            "<stage> (e.g. kernel.tcp_tx), cpu_jitter_sigma, logging_overhead, tails.kv_stall_rate_hz, "
            "tails.kv_stall.median, tails.kv_stall.sigma; NAME@RELEASE for one release. "
            f"Default: {','.join(DEFAULT_FIT)}.")] = None,
        output: Annotated[Optional[Path], typer.Option(
            "--output", "-o", help="Write the fitted profile (ceph.profile format); with several "
            "releases one file per release (NAME-RELEASE.yaml); with --flush-sweeps, --network or "
            "--cross-validate the report.")] = None,
        format: Annotated[Format, typer.Option("--format", "-f", help="Output format.")] = Format.text,
        seeds: Annotated[int, typer.Option(help="Seeds per evaluation (common random "
                "numbers).", min=1)] = 2,
        seed: Annotated[int, typer.Option(help="First seed.", min=0)] = 1,
        ios: Annotated[int, typer.Option(help="I/Os per seed and case during "
                "the fit.", min=200)] = 4000,
        verify_ios: Annotated[Optional[int], typer.Option(
            help="I/Os of the final verification runs (default: each scenario's run.ios).",
            min=1)] = None,
        max_evals: Annotated[int, typer.Option(
            help="Maximum fit steps (scipy's max_nfev); the finite-difference Jacobian adds one "
            "evaluation per free parameter at each, counted in the report's 'evaluations'.",
            min=1)] = 60,
        shared: Annotated[Optional[bool], typer.Option(
            "--shared/--per-release", help="Bare parameter names: one value for all releases, or "
                    "one per release (default: per release for a fit, shared for "
                    "--cross-validate).")] = None,
        cross_validate: Annotated[bool, typer.Option(
            "--cross-validate", help="Leave-one-out over the cases: fit on the others, predict the "
                                     "left-out one.")] = False,
        network: Annotated[bool, typer.Option(
            "--network", help="Fit the per-hop network model (fixed + per-byte) to qperf outputs "
                              "or ping round trips (halved); one message size, as from a plain "
                              "ping, pins the fixed part only.")] = False,
        flush_sweeps: Annotated[bool, typer.Option(
            "--flush-sweeps", help="Fit consumer drives' flush cost per dirty 4 KiB unit to "
                                   "sync-write job sweeps "
                                   "(calibration/consumer-flush/sweeps.yaml).")] = False,
        speed: Annotated[Optional[str], typer.Option(metavar="RATE", help=
                "--network: link speed, e.g. 10Gbit/s (for the wire share).")] = None,
        kernel_us: Annotated[float, typer.Option(metavar="US", help="--network: kernel TCP stack, "
                "both sides, us.")] = 6.0,
        switch_us: Annotated[float, typer.Option(metavar="US", help="--network: switch "
                "port-to-port latency, us.")] = 0.5,
        links: Annotated[int, typer.Option(help="--network: links a message crosses (2 via one "
                "switch).",
                                           min=1)] = 2,
        store_forward: Annotated[bool, typer.Option(
            "--store-and-forward", help="--network: the switch stores and forwards (serialises "
                                        "every link).")] = False,
        jobs: JobsOpt = None,
        executor: ExecOpt = ExecutorKind.local,
        scheduler: SchedOpt = None,
        quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress lines on stderr.")] = False,
    ) -> None:
        """Fit software costs to measured cases; cross-validate; fit a network hop to qperf or
        ping; or fit consumer drives' flush cost to job sweeps."""
        try:
            _check_modes(ctx, network, flush_sweeps, cross_validate)
            check_scheduler(executor, scheduler)
            if output is not None and (network or flush_sweeps):
                check_outputs({"--output": output}, list(files))
            if flush_sweeps:
                from cephsim.tools.calibrate.flushfit import (  # on use (cli/__init__)
                    fit_sweeps,
                    fit_text as flush_text,
                )

                if len(files) != 1:
                    raise CephsimError.single("--flush-sweeps takes one sweep file "
                                              "(e.g. calibration/consumer-flush/sweeps.yaml)")
                source, fits = fit_sweeps(files[0])
                doc = {"source": source, "fits": [f.to_dict() for f in fits]}
                text = (json.dumps(doc, indent=2) + "\n" if format is Format.json
                        else flush_text(source, fits))
                emit(text, output)
                return
            if network:
                from cephsim.tools.calibrate.netfit import (  # on use (cli/__init__)
                    netfit,
                    netfit_text,
                )
                # netfit checks the figures (speed > 0, latencies finite and >= 0, links >= 1)
                bps = _link_speed(speed) if speed is not None else None
                fits, warn = netfit(list(files), bps, kernel_us * 1e3, switch_us * 1e3, links, store_forward)
                doc = {"fits": [f.to_dict() for f in fits], "warnings": warn}
                text = (json.dumps(doc, indent=2) + "\n" if format is Format.json
                        else netfit_text(fits, warn))
                emit(text, output)
                return
            # on use (cli/__init__)
            from cephsim.tools.calibrate.cases import load_cases
            from cephsim.tools.calibrate.fit import (
                FitOptions,
                calibrate as run_fit,
                fit_text,
                write_profiles,
            )
            from cephsim.tools.calibrate.objective import prepare
            from cephsim.tools.calibrate.params import parse_params
            from cephsim.tools.workers import Workers

            cases = load_cases(list(files))
            if output is not None:  # before a fit of several minutes, not after it
                check_outputs({"--output": output}, list(files) + _case_references(cases))
            progress = None if quiet else (lambda s: print(s, file=sys.stderr, flush=True))
            for c in cases:
                if c.skip_reason and progress:
                    progress(f"skipped: {c.skip_reason}")
            releases = sorted({prepare(c).release for c in cases if not c.skip_reason})
            is_shared = cross_validate if shared is None else shared
            params = parse_params(fit or DEFAULT_FIT, releases, is_shared)
            with Workers(jobs, executor.value, scheduler) as workers:
                opts = FitOptions(seeds=seeds, seed0=seed, ios=ios, verify_ios=verify_ios,
                                  max_evals=max_evals, progress=progress, workers=workers)
                if cross_validate:
                    from cephsim.tools.calibrate.crossval import (  # on use (cli/__init__)
                        cross_validate as cv,
                        cv_text,
                    )

                    folds, skipped = cv(cases, params, opts)
                    text = (json.dumps({"folds": [f.to_dict() for f in folds],
                                        "skipped": skipped,
                                        "parameters": [p.label for p in params]}, indent=2) + "\n"
                            if format is Format.json else cv_text(folds, skipped, params, opts))
                    emit(text, output)
                    return
                res = run_fit(cases, params, opts)
            written = write_profiles(res, output) if output else []
            if format is Format.json:
                doc = res.to_dict()
                doc["profiles"] = [str(p) for p in written]
                text = json.dumps(doc, indent=2) + "\n"
            else:
                text = fit_text(res) + "".join(f"wrote {p}\n" for p in written)
            emit(text, None)
        except CephsimError as e:
            fail(e)

    @app.command()
    def accuracy(
        files: Annotated[Optional[list[Path]], typer.Argument(
            help="Case files or folders of them (default: calibration/cases). Cases marked "
            "'corpus: load' are left out: the headline is low queue depth latency.",
            show_default=False)] = None,
        seeds: Annotated[int, typer.Option(help="Seeds per simulation (common random numbers).",
                                           min=1)] = 2,
        ios: Annotated[int, typer.Option(help="I/Os per seed and simulation.", min=200)] = 3000,
        jobs: Annotated[Optional[int], typer.Option(
            "--jobs", "-j", help="Worker processes (default: every core).", min=1)] = None,
        output: Annotated[Optional[Path], typer.Option(
            "--output", "-o", help="Write the report (markdown; with --format json, JSON) here, "
            "e.g. docs/validation.md.")] = None,
        readme: Annotated[Optional[Path], typer.Option(
            help="Also rewrite the summary between the accuracy markers of this file "
            "(README.md).")] = None,
        ratios: Annotated[Optional[Path], typer.Option(
            help="Release-against-release evidence (default: calibration/release-ratios.yaml "
            "with the default corpus).")] = None,
        format: Annotated[Format, typer.Option("--format", "-f", help="Output format.")] = Format.text,
        executor: ExecOpt = ExecutorKind.local,
        scheduler: SchedOpt = None,
        quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress lines on stderr.")] = False,
    ) -> None:
        """Leave-one-cluster-out: predict each published cluster from a joint fit on the others."""
        try:
            check_scheduler(executor, scheduler)
            # on use (cli/__init__)
            from cephsim.tools.calibrate.accuracy import case_files, replace_block, run_accuracy
            from cephsim.tools.calibrate.cases import load_cases
            from cephsim.tools.calibrate.corpus import summary_lines, validation_markdown

            paths = case_files(files)
            cases = load_cases(list(paths))
            # before a run of minutes, not after it: the outputs, and the README's block
            check_outputs({"--output": output, "--readme": readme},
                          list(paths) + _case_references(cases))
            if readme is not None:
                replace_block(readme, [])
            v, command = run_accuracy(cases, paths, seeds, ios, jobs,
                                      None if quiet else
                                      (lambda s: print(s, file=sys.stderr, flush=True)),
                                      ratios, executor=executor.value, scheduler=scheduler)
            new_readme = None
            if readme is not None:
                new_readme = replace_block(readme, summary_lines(v))
            if format is Format.json:
                text = json.dumps({"command": command, "summary": v.summary(),
                                   "predictions": [p.to_dict() for p in v.predictions],
                                   "scales": {r: {"catalog": v.scale0[r], "fitted": v.full.scale(r),
                                                  "sigma_rel": v.full.sd[r]} for r in v.scale0}},
                                  indent=2) + "\n"
            else:
                text = validation_markdown(v, command)
            emit(text, output)
            if readme is not None and new_readme is not None:
                write_atomic(readme, new_readme)
        except CephsimError as e:
            fail(e)

    @app.command()
    def whatif(
        scenario: Annotated[Path, typer.Argument(help="Scenario YAML file.", show_default=False)],
        set_: Annotated[Optional[list[str]], typer.Option(
            "--set", help="The change to try: dotted.path=value (repeatable).")] = None,
        seed: Annotated[Optional[int], typer.Option(help="Seed (default run.seed).", min=0)] = None,
        ios: Annotated[Optional[int], typer.Option(help="I/Os per run (default "
                "run.ios).", min=1)] = None,
        format: Annotated[Format, typer.Option("--format", "-f", help="Output format.")] = Format.text,
    ) -> None:
        """Simulate a scenario before and after a change; explain the difference hop by hop."""
        try:
            from cephsim.tools.calibrate.whatif import (  # on use (cli/__init__)
                run_pair,
                whatif_text,
            )

            d = run_pair(scenario, list(set_ or []), seed, ios)
            emit(json.dumps(d, indent=2) + "\n" if format is Format.json else whatif_text(d), None)
        except CephsimError as e:
            fail(e)


#: options that only mean something with --network
_NETWORK_OPTIONS = {"speed": "--speed", "kernel_us": "--kernel-us", "switch_us": "--switch-us",
                    "links": "--links", "store_forward": "--store-and-forward"}
#: the options of a software-cost fit (and --cross-validate), meaningless to the other modes
_FIT_OPTIONS = {"fit": "--fit", "seeds": "--seeds", "seed": "--seed", "ios": "--ios",
                "verify_ios": "--verify-ios", "max_evals": "--max-evals", "shared": "--shared",
                "jobs": "--jobs", "executor": "--executor", "scheduler": "--scheduler"}


def _check_modes(ctx: typer.Context, network: bool, flush_sweeps: bool,
                 cross_validate: bool) -> None:
    """--network, --flush-sweeps and --cross-validate are different commands; the network
    options mean nothing without --network."""
    modes = [n for n, on in (("--network", network), ("--flush-sweeps", flush_sweeps),
                             ("--cross-validate", cross_validate)) if on]
    if len(modes) > 1:
        raise CephsimError.single(f"{' and '.join(modes)} are mutually exclusive: "
                                  "give one of them")
    if not network:
        # by name: typer may bring its own copy of click's ParameterSource
        given = [flag for name, flag in _NETWORK_OPTIONS.items()
                 if getattr(ctx.get_parameter_source(name), "name", "DEFAULT")
                 not in ("DEFAULT", "DEFAULT_MAP")]
        if given:
            raise CephsimError.single(f"{', '.join(given)} only appl{'ies' if len(given) == 1 else 'y'} "
                                      "with --network")
    if network or flush_sweeps:
        given = [flag for name, flag in _FIT_OPTIONS.items()
                 if getattr(ctx.get_parameter_source(name), "name", "DEFAULT")
                 not in ("DEFAULT", "DEFAULT_MAP")]
        if given:
            raise CephsimError.single(f"{', '.join(given)}: a software-cost fit option; "
                                      f"{modes[0]} does not use it")


def _link_speed(text: str) -> float:
    from cephsim.units import UnitError, parse_rate_bps  # on use (cli/__init__): pydantic

    try:
        return parse_rate_bps(text)
    except UnitError as e:
        raise CephsimError.single(f"--speed {text!r}: {e}") from None


def _case_references(cases: list[Any]) -> list[Path]:
    """The scenario, measurement and reference files the cases name (so that ``-o``
    cannot replace one of them)."""
    out: list[Path] = []
    for case in cases:
        out.append(case.scenario_path)
        out += [Path(t.file) for t in case.targets if t.file]
        out += [Path(r["file"]) for r in case.references]
        if case.scenario_path.is_file():
            out += _scenario_profile(case.scenario_path)
    return out


def _scenario_profile(scenario: Path) -> list[Path]:
    """A scenario's ``ceph.profile`` file, if it names one (read without --set overrides)."""
    # on use (cli/__init__)
    from cephsim.model.resolve import profile_path
    from cephsim.scenario.load import load_scenario

    try:
        profile = profile_path(load_scenario(scenario, []), scenario)
    except CephsimError:
        return []
    return [profile] if profile else []
