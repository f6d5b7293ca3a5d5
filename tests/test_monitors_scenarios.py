"""Issue 4: the OSiRIS monitor scenarios (seed 004) through `cephsim run` and `mon-threshold`."""

from __future__ import annotations

import pytest
from conftest import ROOT

from cephsim.formats.report.render import render_run
from cephsim.model.runner import run_scenario
from cephsim.scenario.load import load_scenario

SCEN = {r: ROOT / "scenarios" / f"osiris-mon-rtt-{r}ms.yaml" for r in (1600, 3200, 6400)}
EXPECTED = {1600: "healthy", 3200: "unstable", 6400: "broken"}


def _run(path, seed, extra=()):
    return run_scenario(load_scenario(path, ["run.ios=20", "run.ramp_ios=4", *extra]),
                        scenario_path=path, seed=seed)


@pytest.mark.parametrize("rtt", sorted(SCEN))
@pytest.mark.parametrize("seed", [4, 11])
def test_verdict_from_protocol_with_varied_seeds(rtt, seed):
    res = _run(SCEN[rtt], seed)
    assert res.monitors.state == EXPECTED[rtt], res.monitors.reasons
    text = render_run(res, "text")
    assert f"monitor cluster: {EXPECTED[rtt].upper()}" in text
    if rtt == 3200:
        assert "peon lease timeout" in res.monitors.first_timer_tripped
    if rtt == 6400:
        assert all(c.success_rate < 0.5 for c in res.monitors.commands.values())


def test_json_carries_monitors(run_cli):
    r = run_cli("run", SCEN[3200], "-f", "json", "--set", "run.ios=20", "--seed", "2")
    assert r.exit_code == 0, r.output
    mon = r.json()["cephsim"]["monitors"]
    assert mon["state"] == "unstable"
    assert mon["first_timer_option"] == "mon_lease_ack_timeout_factor"
    assert 3000 < mon["network"]["mon_rtt_ms"]["um-wsu"] < 3300
    assert {"quorum_availability", "elections_per_hour", "time_to_first_quorum_s", "commands"} <= set(mon)


def test_mon_threshold_cli(run_cli):
    r = run_cli("mon-threshold", SCEN[1600], "--seeds", "1,2", "--tol", "200ms",
                "--lo", "1s", "--hi", "6400ms", "--points", "9")
    assert r.exit_code == 0, r.output
    assert "scanned 9 RTTs from 1000 to 6400 ms (26% apart)" in r.stdout
    lines = [ln for ln in r.stdout.splitlines() if "->" in ln and "RTT" in ln]
    import re
    (lo1, hi1), (lo2, hi2) = [tuple(map(int, re.search(r"between (\d+) and (\d+) ms", ln).groups()))
                              for ln in lines[:2]]
    assert "healthy -> unstable" in lines[0] and "unstable -> broken" in lines[1]
    assert 1600 < hi1 <= 3200 and 3200 < hi2 <= 6400, r.stdout
    assert all("timer responsible: mon_" in ln for ln in lines)
    # anything further is a window better than both sides, and the report says so
    assert len(lines) in (2, 4), r.stdout
    assert ("not monotone" in r.stdout) == (len(lines) == 4)


def test_mon_threshold_reports_a_non_monotone_window(run_cli):
    r = run_cli("mon-threshold", SCEN[3200], "--seeds", "1", "--tol", "200ms",
                "--lo", "4200ms", "--hi", "5200ms", "--points", "6")
    assert r.exit_code == 0, r.output
    assert "broken -> unstable" in r.stdout and "unstable -> broken" in r.stdout, r.stdout
    assert "first timer tripped just below" in r.stdout and "not monotone" in r.stdout


def test_mon_threshold_bad_points(run_cli):
    r = run_cli("mon-threshold", SCEN[1600], "--points", "1")
    assert r.exit_code == 2 and "--points" in r.output and "Traceback" not in r.output


def test_mon_threshold_without_monitors_is_a_clean_error(run_cli):
    r = run_cli("mon-threshold", ROOT / "scenarios" / "quickstart.yaml")
    assert r.exit_code == 2 and "no monitors section" in r.output and "Traceback" not in r.output


def test_netem_impairments_stack_as_netem_would():
    """Delays add, jitters add in quadrature, losses compound; jitter alone is dropped."""
    from cephsim.monitors.scenario import Imp, combine

    both = combine([Imp(delay=3_000, jitter=300), None, Imp(delay=4_000, jitter=400, loss=0.5),
                    Imp(loss=0.5)])
    assert (both.delay, both.jitter, both.loss) == (7_000, 500, 0.75)
    alone = combine([Imp(jitter=300), Imp(loss=0.1)])
    assert (alone.delay, alone.jitter) == (0, 0) and alone.loss == pytest.approx(0.1)
