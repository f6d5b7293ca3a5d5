"""Scenarios: the schema (``schema``), reading and validating files (``load``).

The library's entry point is ``cephsim.load`` (docs/api.md), which also checks a scenario
against the catalog; ``load_scenario`` here validates the file alone."""

from __future__ import annotations

from cephsim.scenario.load import load_scenario

__all__ = ["load_scenario"]
