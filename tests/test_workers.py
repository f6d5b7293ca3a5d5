"""Where many simulations run (cephsim.tools.workers): the same numbers in this process,
on local processes and on a Dask cluster, for accuracy and for a calibration fit."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from cephsim.cli import app
from cephsim.errors import CephsimError
from cephsim.tools.calibrate.accuracy import run_accuracy
from cephsim.tools.calibrate.cases import load_cases
from cephsim.tools.calibrate.corpus import validation_markdown
from cephsim.tools.calibrate.fit import FitOptions, calibrate
from cephsim.tools.calibrate.params import parse_params
from cephsim.tools.workers import Workers

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "calibration" / "cases"
#: two clusters, one case each: the smallest corpus leave-one-cluster-out can run
SMALL = [CASES / "wido-2019.yaml", CASES / "mako-reef.yaml"]
runner = CliRunner()


def _square(x: int) -> int:
    return x * x


def _fail_at_3(x: int) -> int:
    if x == 3:
        raise ValueError(f"run {x} failed")
    return x


def test_map_keeps_the_order_of_the_runs_wherever_they_run() -> None:
    args = [(x,) for x in range(7)]
    done: list[int] = []
    for jobs in (1, 2):
        with Workers(jobs) as w:
            assert w.map(_square, args, lambda: done.append(1)) == [x * x for x in range(7)]
    assert len(done) == 14  # done() once per run, in both
    with Workers(2) as w:
        assert w.map(_square, []) == []
        with pytest.raises(ValueError, match="run 3 failed"):  # a run's error comes back
            w.map(_fail_at_3, args)


def test_an_unknown_executor_or_a_missing_scheduler_is_a_clear_error() -> None:
    with pytest.raises(CephsimError, match="unknown executor 'ray'"):
        Workers(executor="ray")
    with pytest.raises(CephsimError, match="--scheduler ADDRESS"):
        Workers(executor="dask").map(_square, [(1,), (2,)])


def test_accuracy_is_the_same_on_local_processes_and_a_dask_cluster() -> None:
    """The same small corpus through two local processes and through a LocalCluster of
    two worker processes: the same tables, digit for digit."""
    distributed = pytest.importorskip("distributed")
    cases = load_cases(SMALL)
    v, command = run_accuracy(cases, SMALL, 1, 200, 2, None)
    local = validation_markdown(v, command)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        v2, command2 = run_accuracy(cases, SMALL, 1, 200, None, None, executor="dask",
                                    scheduler=client)
    assert command2 == command  # the command written with the report names no executor
    assert validation_markdown(v2, command2) == local
    assert "| wido-2019" in local and "mako" in local


def test_a_fit_is_the_same_here_and_on_local_processes() -> None:
    cases = load_cases([CASES / "mako-reef.yaml", CASES / "seed001-balanced.yaml"])
    params = parse_params(["scale"], ["reef"], True)

    def fit(workers: Workers | None) -> tuple[list[float], list[tuple]]:
        opts = FitOptions(seeds=1, ios=200, max_evals=2, verify_ios=200, workers=workers)
        res = calibrate(cases, params, opts)
        return [p.value for p in res.params], [(r.case, r.stat, r.before, r.fitted)
                                               for r in res.rows]

    here = fit(None)
    with Workers(2) as w:
        assert fit(w) == here


def test_accuracy_and_calibrate_take_the_executor_options() -> None:
    for cmd in (["accuracy", str(SMALL[0])], ["calibrate", str(SMALL[0])]):
        r = runner.invoke(app, [*cmd, "--scheduler", "tcp://127.0.0.1:1"])
        assert r.exit_code == 2 and "--scheduler only applies with --executor dask" in r.output
    r = runner.invoke(app, ["calibrate", "--network", str(SMALL[0]), "--jobs", "2"])
    assert r.exit_code == 2 and "--jobs: a software-cost fit option" in r.output
