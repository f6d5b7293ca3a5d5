"""Scenarios: the schema (``schema``), reading and validating files (``load``).

``cephsim.scenario.load_scenario`` is the library's entry point (docs/api.md)."""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    # lazily, so that importing the schema alone does not pull in the loader (which
    # resolves against the catalog and the monitors' model)
    if name in ("load_scenario", "load_resolved"):
        from cephsim.scenario import load

        return getattr(load, name)
    raise AttributeError(f"module 'cephsim.scenario' has no attribute {name!r}")


__all__ = ["load_scenario", "load_resolved"]
