"""The library's public face: load a scenario, run it, render the result.

``cephsim.load``, ``cephsim.run``, ``cephsim.render`` and ``cephsim.assumptions`` are these
functions (docs/api.md); the command line is a thin layer over the same calls.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from cephsim.errors import CephsimError
from cephsim.formats.report.assumptions import assumptions as _assumptions
from cephsim.formats.report.render import render_run
from cephsim.model.resolve import Resolved, resolve
from cephsim.model.runner import RunResult, run_scenario
from cephsim.scenario.load import load_data, load_scenario, locate
from cephsim.scenario.schema import Scenario

Format = Literal["text", "json", "json+"]


def load(source: str | Path | Mapping[str, Any], sets: Sequence[str] = ()) -> Scenario:
    """A scenario from a file (or from the mapping such a file holds), with ``sets``
    applied as ``--set`` applies them (``"pool.size=2"``), validated and checked against
    the catalog.  Raises :class:`CephsimError`, whose ``problems`` name the file, line and
    field."""
    return load_resolved(source, sets)[0]


def run(scenario: Scenario | str | Path, *, seed: int | None = None, keep_ops: bool = True,
        progress: Callable[[int], None] | None = None,
        trace_ops: set[int] | None = None) -> RunResult:
    """Simulate ``scenario`` (a loaded scenario, or a file to load).  ``seed``: instead of
    the scenario's ``run.seed``; the same scenario and seed give bit-identical results.
    ``keep_ops``: keep one row per measured I/O (``result.records.arrays()``); without it the
    run's memory does not grow with its length.  ``progress`` is called now and then with
    the work done; ``trace_ops``: op numbers to trace span by span."""
    sc, r = ((scenario, _resolved(scenario)) if isinstance(scenario, Scenario)
             else load_resolved(scenario))
    return run_scenario(sc, scenario_path=sc.origin.path, seed=seed, resolved=r,
                        trace_ops=trace_ops, progress=progress, keep_ops=keep_ops)


def render(result: RunResult, format: Format = "text") -> str:  # noqa: A002 (the CLI's word)
    """The run as ``cephsim run`` prints it (``"text"``), or as fio's JSON (``"json"``,
    ``"json+"`` with the latency histogram)."""
    if format not in ("text", "json", "json+"):
        raise ValueError(f"format must be 'text', 'json' or 'json+', not {format!r}")
    return render_run(result, format, result.scenario.origin.sets)


def assumptions(result: RunResult) -> dict[str, Any]:
    """What decides the answer, each setting given or assumed (the report's header), then
    every other field as the scenario gave it (``given``, with the ``--set`` that did) or left
    it at its default (``defaults``)."""
    return _assumptions(result.scenario, result.resolved, result.scenario.origin.sets)


def load_resolved(source: str | Path | Mapping[str, Any],
                  sets: Sequence[str] | None = None) -> tuple[Scenario, Resolved]:
    """:func:`load`'s scenario with the frozen model resolved from it (what the commands
    need beside the scenario): resolving is the catalog check, so it is done once."""
    if isinstance(sets, str):
        raise TypeError("sets is a list of 'field=value' texts, e.g. ['pool.size=2']")
    sc = load_data(source, sets) if isinstance(source, Mapping) else load_scenario(source, sets)
    return sc, _resolved(sc)


def _resolved(sc: Scenario) -> Resolved:
    """``sc`` resolved against the catalog; errors located in its file."""
    try:
        return resolve(sc, sc.origin.path)
    except CephsimError as e:
        if sc.origin.path is None:
            raise
        raise locate(e, sc.origin.path, sc.origin.sets) from None
