"""The JSON Schema published for editors (scenarios/cephsim.schema.json) must agree with
what cephsim itself accepts: every shipped scenario is valid against it, and the things
the loader refuses that a schema can express (unknown keys, wrong types) are refused by
it too.  Validated with the jsonschema package (Draft 2020-12, the dialect the file
declares), i.e. the way an editor's language server reads it."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from cephsim.scenario.jsonschema import scenario_json_schema

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "scenarios" / "cephsim.schema.json"
SCENARIOS = sorted((ROOT / "scenarios").glob("*.yaml")) + [
    ROOT / "tests" / "scenarios" / "constant.yaml", ROOT / "cephsim" / "data" / "bench.yaml"]


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft202012Validator:
    schema = json.loads(SHIPPED.read_text())
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_shipped_schema_is_current():
    assert json.loads(SHIPPED.read_text()) == scenario_json_schema(), \
        "regenerate: cephsim schema > scenarios/cephsim.schema.json"


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.name)
def test_every_shipped_scenario_is_valid_against_the_schema(validator, path):
    doc = yaml.safe_load(path.read_text())
    problems = [f"{'.'.join(map(str, e.absolute_path))}: {e.message[:200]}"
                for e in validator.iter_errors(doc)]
    assert not problems, problems


def _quickstart() -> dict:
    return yaml.safe_load((ROOT / "scenarios" / "quickstart.yaml").read_text())


@pytest.mark.parametrize("edit, where", [
    (lambda d: d["workload"].__setitem__("iodeph", 4), "workload"),          # unknown key
    (lambda d: d.__setitem__("netwrok", {}), ""),                            # unknown section
    (lambda d: d["workload"].__setitem__("iodepth", "four"), "workload.iodepth"),
    (lambda d: d["pool"].__setitem__("size", True), "pool.size"),            # bool is no count
    (lambda d: d["hosts"][0].__setitem__("count", 0), "hosts.0.count"),
])
def test_schema_refuses_what_the_loader_refuses(validator, edit, where):
    doc = _quickstart()
    edit(doc)
    errors = list(validator.iter_errors(doc))
    assert errors
    assert any(".".join(map(str, e.absolute_path)) == where for e in errors), \
        [(list(e.absolute_path), e.message) for e in errors]


@pytest.mark.parametrize("value", ["2us", 0, {"dist": "constant", "value": "2us"},
                                   {"dist": "lognormal", "median": "20us", "p99": "60us"}])
def test_inline_latency_shorthands_are_published(validator, value):
    """An inline NIC's latency may be a bare duration (a constant) as well as a
    distribution; the schema must not flag the shorthand that the loader accepts."""
    doc = _quickstart()
    doc["hosts"][0]["nic"] = {"name": "inline NIC", "speed": "10Gbit/s", "tx_latency": value,
                              "rx_latency": "3us", "sources": {}}
    assert not list(validator.iter_errors(doc))
