"""The published JSON Schema of the scenario format."""

from __future__ import annotations

from typing import Any

from cephsim.scenario.schema import Scenario

#: inline catalog entries, which may start from a catalog entry (``base: <id>``, filled in
#: by the loader before validation): with a base, no figure is required
_ENTRIES = ("CPUModel", "DiskModel", "NICModel", "SwitchModel")


def scenario_json_schema() -> dict[str, Any]:
    schema = Scenario.model_json_schema(by_alias=True, mode="validation")
    for name in _ENTRIES:
        d = schema.get("$defs", {}).get(name)
        if d is None:
            continue
        d.setdefault("properties", {})["base"] = {
            "type": "string", "description": "A catalog id to start from: this entry is that "
            "one with the fields given here changed (their sources the user's)."}
        if d.get("required"):
            d["if"] = {"not": {"required": ["base"]}}
            d["then"] = {"required": d.pop("required")}
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "https://cephsim.invalid/scenario.schema.json",
            "title": "cephsim scenario", **schema}
