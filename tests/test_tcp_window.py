"""TCP windows on the data path: a message larger than the window waits for ACKs once per
round trip, where that round trip is longer than the window's time on the wire."""

from __future__ import annotations

import pytest
from conftest import ROOT

from cephsim.model.components.network import WIRE_OVERHEAD, Path, Port, TcpWindow
from cephsim.model.engine.draw import fixed
from cephsim.model.runner import run_scenario
from cephsim.scenario.load import load_scenario
from cephsim.scenario.schema import TcpSettings

MS = 1_000_000
OSD_NETEM = ROOT / "scenarios" / "osiris-osd-netem.yaml"


def path(tcp: TcpWindow | None = None, gbps: float = 10.0, mtu: int = 1500) -> Path:
    """A path with the scenario's default TCP settings unless ``tcp`` is given."""
    return Path(Port("a.nic0.tx", gbps * 1e9), [], fixed(0), fixed(0), [], mtu, 0.0,
                tcp or TcpWindow.of(TcpSettings()))


def test_slow_start_by_hand():
    p = path()
    seg = (1448 + WIRE_OVERHEAD) * 8 / 10  # ns per full frame at 10 Gb/s: 1230.4
    rtt = 100 * MS
    # 100 segments from a fresh window of 10: rounds of 10, 20, 40 wait; the last 30 go
    # out in the fourth round of 80 without waiting
    expect = int(3 * rtt - (10 + 20 + 40) * seg)
    assert p._window_stall(0, 100, rtt) == expect
    assert p.cwnd == 80
    p.last_send = 10  # busy: the next message starts from the grown window
    assert p._window_stall(20, 100, rtt) == int(rtt - 80 * seg)
    assert p.cwnd == 160
    # idle for more than an RTO (srtt + 200 ms): back to the initial window
    p.last_send = 0
    assert p._window_stall(rtt + 200 * MS + 1, 11, rtt) == int(rtt - 10 * seg)
    assert p.cwnd == 20


def test_receive_window_caps_the_window():
    p = path(TcpWindow(10, 64 * 1448, True))  # a 64-segment receive window
    for _ in range(10):
        p.last_send = 10**12
        p._window_stall(10**12, 1000, 50 * MS)
    assert p.cwnd == 64
    # with the window at its cap, 640 segments need 10 windows: 9 waits of one round trip
    p.last_send = 10**12
    seg = (1448 + WIRE_OVERHEAD) * 8 / 10
    assert p._window_stall(10**12, 640, 50 * MS) == int(9 * (50 * MS - 64 * seg))


def test_no_wait_when_the_window_covers_the_round_trip():
    # LAN: 20 us round trip, 10 Gb/s: 10 segments take 12.3 us, 20 take 24.6 us > 20 us
    p = path()
    seg = (1448 + WIRE_OVERHEAD) * 8 / 10
    assert p._window_stall(0, 1000, 20_000) == int(20_000 - 10 * seg)
    assert p.cwnd >= 1000 // 2
    p.last_send = 0
    assert p._window_stall(1, 1000, 20_000) == 0


def test_no_restart_when_slow_start_after_idle_is_off():
    p = path(TcpWindow(10, 3 * 2**20, False))
    p._window_stall(0, 1000, 10 * MS)
    grown = p.cwnd
    p.last_send = 0
    p._window_stall(10**12, 11, 10 * MS)
    assert p.cwnd == grown


def _bw(overrides: list[str]) -> float:
    res = run_scenario(load_scenario(OSD_NETEM, ["run.ios=60", "run.ramp_ios=16", *overrides]),
                       scenario_path=OSD_NETEM)
    a = res.records.arrays()
    return a["complete"].size * 4 / ((a["complete"].max() - a["submit"].min()) / 1e9)


def test_wan_tuned_buffers_help_4m_writes_over_320ms():
    """160 ms each way on one storage block: a 4 MiB message does not fit a default 3 MiB
    window (two round trips), a 128 MiB receive buffer lets it through in one."""
    default, tuned = _bw([]), _bw(["network.tcp.rmem_max=256MiB"])
    assert tuned > default * 1.3, (default, tuned)


def test_small_messages_never_see_the_window():
    """4 KiB writes: every message fits the initial window, so TCP settings change nothing,
    bit for bit."""
    base = ["workload.bs=4KiB", "workload.iodepth=4", "run.ios=200", "run.ramp_ios=10"]
    a = run_scenario(load_scenario(OSD_NETEM, base), scenario_path=OSD_NETEM).records.arrays()
    b = run_scenario(load_scenario(OSD_NETEM, base + ["network.tcp.rmem_max=64KiB",
                                                      "network.tcp.slow_start_after_idle=false"]),
                     scenario_path=OSD_NETEM).records.arrays()
    assert (a["complete"] == b["complete"]).all()


@pytest.mark.parametrize("key,value", [("network.tcp.rmem_max", "1KiB"),
                                       ("network.tcp.initial_window", "0"),
                                       ("network.tcp.window_fraction", "1.5"),
                                       ("network.tcp.cwnd", "10")])
def test_bad_tcp_settings_are_clean_errors(run_cli, key, value):
    r = run_cli("validate", OSD_NETEM, "--set", f"{key}={value}")
    assert r.exit_code == 2 and key.rsplit(".", 1)[1] in r.output and "Traceback" not in r.output


def test_report_names_the_window_wait_and_its_settings(run_cli):
    r = run_cli("run", OSD_NETEM, "--set", "run.ios=40", "--set", "run.ramp_ios=16")
    assert r.exit_code == 0, r.output
    line = next(ln for ln in r.stdout.splitlines() if "TCP window:" in ln)
    assert "receive window 3 MiB" in line and "um-stor0" in line
    # a LAN run at 4 KiB never waits for the window: no such line
    q = run_cli("run", ROOT / "scenarios" / "quickstart.yaml", "--set", "run.ios=300")
    assert q.exit_code == 0 and "TCP window" not in q.stdout
