"""Bad input in the monitor-quorum part (``monitors:`` and ``cephsim mon-threshold``): a clear
error at file:line (or naming the --set / option), exit status 2, no traceback, no hang."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import MON, ROOT

from cephsim.api import load_resolved
from cephsim.errors import CephsimError
from cephsim.monitors import MonitorSpec, MonNetwork, simulate_monitors
from cephsim.monitors.links import LinkSpec, TcpParams, TcpStream

#: line of the `duration:` key above; fields added below it start at the next line
DURATION_LINE = MON.count("\n")
OSIRIS = ROOT / "scenarios" / "osiris-mon-rtt-1600ms.yaml"


def _write(tmp_path: Path, extra: str = "") -> Path:
    p = tmp_path / "mon.yaml"
    p.write_text(MON + extra)
    return p


def _problems(path, overrides=()):
    with pytest.raises(CephsimError) as ei:
        load_resolved(path, list(overrides))
    return ei.value.problems


def _one(path, overrides=()):
    [pr] = _problems(path, overrides)
    return pr


def test_base_is_valid(tmp_path):
    _, r = load_resolved(_write(tmp_path))
    assert r.monitors.spec.duration == 300 * 10**9


# --- defects 1 and 2: values that hung or crashed the model are input errors -----------------

@pytest.mark.parametrize("block, key, value, words", [
    ("timers", "mon_tick_interval", "0s", "at least 10ms (got 0s)"),
    ("timers", "mon_lease", "0s", "at least 10ms (got 0s)"),
    ("timers", "mon_lease", "-5s", "at least 10ms (got -5s)"),
    ("timers", "mon_election_timeout", "1ns", "at least 10ms"),
    ("timers", "mon_probe_timeout", "0s", "at least 10ms"),
    ("timers", "mon_elector_ping_timeout", "-2s", "at least 10ms"),
    ("timers", "ms_connection_ready_timeout", "0s", "at least 10ms"),
    ("timers", "ms_initial_backoff", "-200ms", "at least 10ms (got -200ms)"),
    ("timers", "ms_max_backoff", "0s", "at least 10ms"),
    ("timers", "mon_client_hunt_interval", "0s", "at least 10ms"),
    ("timers", "client_mount_timeout", "0s", "must be positive"),
    ("timers", "tcp_min_rto", "-1ms", "must be positive"),
    ("timers", "store_sync_latency", "-5ms", "must not be negative (got -5ms)"),
    ("timers", "paxos_propose_interval", "-1s", "must not be negative"),
    ("timers", "paxos_min_wait", "-1ms", "must not be negative"),
    ("timers", "tcp_mss", "0B", "at least 88 bytes (got 0 bytes)"),
    ("timers", "tcp_mss", "1MiB", "at most 65535B (got 1MiB)"),
    ("timers", "mon_lease_ack_timeout_factor", ".inf", "finite"),
    ("timers", "mon_accept_timeout_factor", ".nan", "finite"),
    ("timers", "mon_lease_renew_interval_factor", ".nan", "finite"),
    ("timers", "handshake_round_trips", "1000000", "less than or equal to 20"),
    ("proposals", "mgr_digest_period", "-1s", "at least 10ms (got -1s)"),
    ("proposals", "log_period", "0s", "at least 10ms"),
    ("proposals", "osdmap_mean_interval", "0s", "at least 10ms"),
    ("proposals", "mgr_digest_size", "-1", "must not be negative"),
    ("proposals", "log_size", "2GiB", "at most 1GiB"),
    ("proposals", "osdmap_size_min", "0B", "must be positive (got 0 bytes)"),
    ("proposals", "message_overhead", "-200", "must not be negative"),
    ("thresholds", "unstable_elections_per_hour", "-1", "greater than or equal to 0"),
    ("thresholds", "unstable_elections_per_hour", ".inf", "finite"),
])
def test_bad_field_points_at_its_line(tmp_path, block, key, value, words):
    p = _write(tmp_path, f"  {block}:\n    {key}: {value}\n")
    pr = _one(p)
    assert (pr.file, pr.line, pr.path) == (str(p), DURATION_LINE + 2, f"monitors.{block}.{key}"), str(pr)
    assert words in pr.message


@pytest.mark.parametrize("value, words", [(".inf", "finite"), ("1e9", "less than or equal to 3600"),
                                          ("-1", "greater than or equal to 0")])
def test_connection_fault_rate_must_be_finite(tmp_path, value, words):
    p = _write(tmp_path, f"  connection_fault_rate_per_hour: {value}\n")
    pr = _one(p)
    assert (pr.file, pr.line, pr.path) == (str(p), DURATION_LINE + 1,
                                           "monitors.connection_fault_rate_per_hour"), str(pr)
    assert words in pr.message


@pytest.mark.parametrize("cmd, key, words", [
    ("{name: health, period: -10s}", "period", "at least 1s (got -10s)"),
    ("{name: health, period: 0s}", "period", "at least 1s"),
    ("{name: health, timeout: -1s}", "timeout", "must be positive (got -1s)"),
    ("{name: rbd_map, kernel_mount_timeout: 0s}", "kernel_mount_timeout", "must be positive"),
])
def test_bad_command_field(tmp_path, cmd, key, words):
    p = _write(tmp_path, f"  commands:\n    - {{name: auth_get_or_create}}\n    - {cmd}\n")
    pr = _one(p)
    assert (pr.file, pr.line, pr.path) == (str(p), DURATION_LINE + 3, f"monitors.commands.1.{key}"), str(pr)
    assert words in pr.message


# --- defect 3: cross-field nonsense ----------------------------------------------------------

def test_osdmap_size_min_above_max(tmp_path):
    p = _write(tmp_path, "  proposals: {osdmap_size_min: 1MiB, osdmap_size_max: 64KiB}\n")
    pr = _one(p)
    assert pr.path == "monitors.proposals.osdmap_size_min" and pr.line == DURATION_LINE + 1
    assert "larger than osdmap_size_max" in pr.message


def test_warmup_longer_than_duration(tmp_path):
    p = _write(tmp_path, "  warmup: 2h\n")
    pr = _one(p)
    assert (pr.file, pr.line, pr.path) == (str(p), DURATION_LINE + 1, "monitors.warmup")
    assert "warmup (2h)" in pr.message and "duration (5min)" in pr.message


def test_duration_capped(tmp_path):
    pr = _one(_write(tmp_path), ["monitors.duration=48h"])
    assert pr.path == "monitors.duration" and "at most 24h" in pr.message
    assert pr.file == "--set monitors.duration=48h"


@pytest.mark.parametrize("timers, key", [
    ("{mon_lease_renew_interval_factor: 0.000001}", "mon_lease_renew_interval_factor"),
    ("{mon_lease: 1s, mon_accept_timeout_factor: 0.001}", "mon_accept_timeout_factor"),
    ("{mon_elector_ping_divisor: 1000}", "mon_elector_ping_divisor"),
    ("{ms_initial_backoff: 20s}", "ms_max_backoff"),
])
def test_derived_timers(tmp_path, timers, key):
    p = _write(tmp_path, f"  timers: {timers}\n")
    pr = _one(p)
    assert pr.path == f"monitors.timers.{key}" and pr.line == DURATION_LINE + 1, str(pr)


def test_monitor_spec_rejects_the_same_directly():
    with pytest.raises(ValueError, match="warmup"):
        MonitorSpec(duration="5min", warmup="2h")
    with pytest.raises(ValueError, match="finite"):
        MonitorSpec(connection_fault_rate_per_hour=float("inf"))


# --- through the CLI: exit 2, one located line, no traceback ---------------------------------

@pytest.mark.parametrize("override, path", [
    ("monitors.connection_fault_rate_per_hour=.inf", "monitors.connection_fault_rate_per_hour"),
    ("monitors.proposals.mgr_digest_period=-1s", "monitors.proposals.mgr_digest_period"),
    ("monitors.timers.mon_tick_interval=0s", "monitors.timers.mon_tick_interval"),
    ("monitors.timers.tcp_mss=0B", "monitors.timers.tcp_mss"),
    ("monitors.commands=[{name: health, period: -10s}]", "monitors.commands.0.period"),
    ("monitors.timers.mon_lease=-5s", "monitors.timers.mon_lease"),
    ("monitors.warmup=2h", "monitors.warmup"),
])
@pytest.mark.parametrize("command", ["validate", "run", "mon-threshold"])
def test_cli_rejects(run_cli, command, override, path):
    r = run_cli(command, OSIRIS, "--set", override)
    assert r.exit_code == 2, r.output
    assert r.exception is None
    assert "Traceback" not in r.output
    assert f"cephsim: error: --set {override}: {path}: " in r.stderr


def test_cli_error_in_file_has_line(run_cli, tmp_path):
    p = _write(tmp_path, "  timers:\n    mon_lease: 0s\n")
    r = run_cli("validate", p)
    assert r.exit_code == 2
    assert f"{p}:{DURATION_LINE + 2}:5: monitors.timers.mon_lease: must be at least 10ms" in r.stderr


# --- defect 4: mon-threshold options ----------------------------------------------------------

@pytest.mark.parametrize("args, words", [
    (["--lo", "5"], "--lo: a bare number is ambiguous here; give a duration with its unit"),
    (["--hi", "12800"], "--hi: a bare number is ambiguous here"),
    (["--tol", "-5"], "--tol: a bare number is ambiguous here"),
    (["--lo", "0"], "--lo: must be positive"),
    (["--lo", "nan"], "--lo: cannot read 'nan' as a duration"),
    (["--seeds=-1"], "--seeds: -1 is negative"),
    (["--seeds", "1,-2"], "--seeds: -2 is negative"),
    (["--seeds", "x"], "--seeds: 'x' is not an integer"),
    (["--points", "1"], "--points: scan between 2 and"),
    (["--points", "100000000"], "--points: scan between 2 and"),
    (["--lo", "2s", "--hi", "1s"], "--lo must be smaller than --hi"),
])
def test_mon_threshold_options(run_cli, args, words):
    r = run_cli("mon-threshold", OSIRIS, *args)
    assert r.exit_code == 2, r.output
    assert r.exception is None
    assert words in r.stderr, r.stderr


def test_mon_threshold_seed_zero_accepted():
    from cephsim.cli.monitors import _seeds

    assert _seeds(["0,1", "2"]) == [0, 1, 2]


# --- a link with 100 % loss: messages never arrive (used to loop forever) ---------------------

def test_total_loss_never_delivers():
    import numpy as np

    lk = LinkSpec(delay_ns=1_000_000, loss=1.0)
    s = TcpStream(lk, LinkSpec(delay_ns=1_000_000), 0, TcpParams())
    at = s.send(0, 100, np.random.default_rng(1))
    assert at > 100 * 86400 * 10**9  # far beyond any run
    assert s.send(at, 100, np.random.default_rng(2)) >= at


def test_total_loss_between_monitors_finishes():
    spec = MonitorSpec(duration="2min", warmup="10s")
    net = MonNetwork.uniform(list(spec.mons), list(spec.clients), 10_000_000, loss=1.0)
    rep = simulate_monitors(spec, net, 1)
    assert rep.state == "broken"
