"""Shared fixtures: the repository root, shipped and test scenarios, a CLI runner."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
TEST_SCENARIOS = Path(__file__).resolve().parent / "scenarios"

#: a small valid scenario; tests break it in one place at a time (line numbers matter)
BASE = """\
name: small
hosts:
  - name: osd
    count: 3
    cpu: epyc-7313p
    nic: connectx5-25g
    osds: {count: 1, disk: pm9a3}
  - name: client
    cpu: epyc-7313p
    nic: connectx5-25g
pool: {size: 3}
workload: {rw: randwrite, bs: 4KiB}
run: {ios: 300}
"""
#: BASE with three monitors and a 5 min quorum run (the ``duration:`` key is its last line)
MON = BASE + """\
monitors:
  mons:
    - {name: a}
    - {name: b}
    - {name: c}
  duration: 5min
"""


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def quickstart() -> Path:
    return ROOT / "scenarios" / "quickstart.yaml"


@pytest.fixture(scope="session")
def constant_scenario() -> Path:
    return TEST_SCENARIOS / "constant.yaml"


@dataclass
class CLIResult:
    exit_code: int
    stdout: str
    stderr: str
    exception: BaseException | None

    @property
    def output(self) -> str:
        return self.stdout + self.stderr

    def json(self) -> Any:
        return json.loads(self.stdout)


def assert_short_error(r: CLIResult, *words: str) -> None:
    """A bad input's answer: exit 2, no exception or traceback, and the message names ``words``."""
    assert r.exit_code == 2, r.output
    assert r.exception is None, repr(r.exception)
    assert "Traceback" not in r.output
    for w in words:
        assert w in r.output, r.output


def _invoke(*args: str, input: str | None = None) -> CLIResult:  # noqa: A002 - CliRunner's word
    from typer.testing import CliRunner

    from cephsim.cli import app

    try:  # click >= 8.2 always separates stderr; older click needs mix_stderr=False
        runner = CliRunner(mix_stderr=False)
    except TypeError:
        runner = CliRunner()
    r = runner.invoke(app, [str(a) for a in args], input=input)
    try:
        err = r.stderr
    except ValueError:
        err = ""
    exc = r.exception if not isinstance(r.exception, SystemExit) else None
    return CLIResult(r.exit_code, r.stdout, err, exc)


@pytest.fixture(scope="session")
def run_cli():
    """``run_cli("run", path, "--set", "run.ios=300")`` -> CLIResult (exit_code, stdout, stderr);
    ``input=`` is what stdin holds."""
    return _invoke
