"""The published JSON Schema of the scenario format."""

from __future__ import annotations

from typing import Any

from cephsim.scenario.schema import Scenario


def scenario_json_schema() -> dict[str, Any]:
    schema = Scenario.model_json_schema(by_alias=True, mode="validation")
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "https://cephsim.invalid/scenario.schema.json",
            "title": "cephsim scenario", **schema}
