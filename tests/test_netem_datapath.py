"""Issue 4 data path under netem: qd=1 latency per delay, rados bench throughput, loss."""

from __future__ import annotations

import numpy as np
from conftest import ROOT
from hypothesis import HealthCheck, Phase, given, settings, strategies as st

from cephsim.formats.report.render import render_run
from cephsim.model.runner import run_scenario
from cephsim.scenario.load import load_scenario

OSD_NETEM = ROOT / "scenarios" / "osiris-osd-netem.yaml"
QUICKSTART = ROOT / "scenarios" / "quickstart.yaml"
FEW = settings(max_examples=3, deadline=None, database=None,
               phases=[Phase.explicit, Phase.generate], suppress_health_check=[HealthCheck.too_slow])


def run(path, overrides=(), seed=1):
    return run_scenario(load_scenario(path, list(overrides)), scenario_path=path, seed=seed)


def lat(res):
    a = res.records.arrays()
    return a["complete"] - a["submit"]


def _block_delay(d_ms: float) -> list[str]:
    return [f"network.links.{i}.delay={d_ms}ms" for i in range(3)]


def write_bw(d_ms: float, seed: int = 1, rw: str = "write") -> float:
    res = run(OSD_NETEM, [*_block_delay(d_ms), "run.ios=80", f"workload.rw={rw}"], seed)
    a = res.records.arrays()
    return a["complete"].size * 4 / ((a["complete"].max() - a["submit"].min()) / 1e9)  # MiB/s


@FEW
@given(delay_ms=st.integers(min_value=1, max_value=20))
def test_hdd_rados_qd1_grows_by_4d_when_every_host_is_delayed(delay_ms):
    """OSiRIS cluster, rados engine, qd=1: every host's egress delayed by d -> +4d per write
    (client->primary, primary->replicas, replicas->primary, primary->client)."""
    base = ["workload.iodepth=1", "workload.bs=4KiB", "run.ios=30", "run.ramp_ios=2",
            "ceph.tails=false"]
    delayed = base + [f"hosts.{g}.netem.delay={delay_ms}ms" for g in (
            "um-stor", "wsu-stor", "msu-stor", "client")]
    m0, m1 = lat(run(OSD_NETEM, base)).mean(), lat(run(OSD_NETEM, delayed)).mean()
    assert m1 - m0 >= 4 * delay_ms * 1e6 * 0.98, (m0, m1)


@FEW
@given(d=st.lists(st.sampled_from([0, 20, 40, 80, 160]), min_size=2, max_size=2, unique=True))
def test_rados_bench_write_throughput_falls_as_delay_grows(d):
    lo, hi = sorted(d)
    # averaged over two seeds: a 20 ms step moves an 80-I/O run on HDDs by about as much
    # as changing the seed does (+-3 %); the mean must not rise beyond 2 %
    def bw(ms: float) -> float:
        return float(np.mean([write_bw(ms, seed=s) for s in (1, 2)]))

    assert bw(hi) <= bw(lo) * 1.02


def test_rados_bench_sweep_table_write_and_randread():
    rows = {d: (write_bw(d), write_bw(d, rw="randread")) for d in (0, 40, 160)}
    print("\ndelay/dir  write MiB/s  randread MiB/s")
    for d, (w, r) in rows.items():
        print(f"{d:6d} ms  {w:10.1f}  {r:13.1f}")
    assert rows[160][0] < 0.7 * rows[0][0]
    assert rows[160][1] < 0.7 * rows[0][1]
    assert rows[0][0] >= rows[40][0] * 0.98 >= rows[160][0] * 0.98


def test_one_percent_loss_on_replies_shows_retransmission_timeouts_in_tail_and_report():
    """Loss on the OSD hosts' egress drops replies (one segment each): nothing follows a
    lost reply to be SACKed and the probe waits as long as the RTO, so the op waits 200 ms.
    Each write sends three one-segment replies from OSD hosts (two sub-op replies, one to
    the client): ~3 % of ops at 1 % loss (the MOSDRepOps' losses cost far less)."""
    res = run(QUICKSTART, ["run.ios=2000", "ceph.tails=false", "hosts.osd.netem.loss=1%"])
    x = lat(res)
    med = np.median(x)
    slow = (x >= med + 180e6).sum()
    assert 0.01 * x.size < slow < 0.06 * x.size
    assert np.percentile(x, 99.9) > 200e6
    text = render_run(res, "text")
    line = next(ln for ln in text.splitlines() if ln.startswith("warning: netem loss"))
    assert f"{slow} of {x.size} ops" in line and "retransmission timeout" in line
    import json
    assert any("retransmission" in w for w in json.loads(render_run(res, "json"))["cephsim"][
            "warnings"])


def test_one_percent_loss_on_4k_requests_is_repaired_without_timeouts():
    """Loss on the client's egress drops segments of the 4 KiB writes' MOSDOps (4 segments
    at MTU 1500; at quickstart's 9000 they are one segment, and a loss costs an RTO): a hole
    is SACKed and resent within about a round trip, a lost last segment by the tail-loss
    probe after 2 x srtt + 8 ms; only a lost resend waits 200 ms
    (1 % of 1 %).  So ~1 % of ops are 8-9 ms slower, almost none 200 ms."""
    res = run(QUICKSTART, ["run.ios=2000", "ceph.tails=false", "hosts.client.netem.loss=1%",
                           "network.mtu=1500"])
    x = lat(res)
    extra = x - np.median(x)
    probe = ((extra > 8e6) & (extra < 10e6)).sum()
    assert 0.002 * x.size < probe < 0.03 * x.size
    assert (extra >= 180e6).sum() <= 2
    paths = res.cluster.paths.values()
    assert sum(p.fast_recoveries for p in paths) > sum(p.rtos for p in paths)
    line = next(w for w in res.warnings if w.startswith("netem loss"))
    assert "without a timeout" in line


def test_no_loss_no_rto_warning():
    res = run(QUICKSTART, ["run.ios=300"])
    assert not any("netem loss" in w for w in res.warnings)


def test_jitter_reaching_below_zero_is_netem_not_an_error():
    """netem 10ms +- 20ms (uniform) or normal 10ms / 5ms: some draws fall below zero and
    netem sends those packets at once; the run must accept them (the service-time checks
    that refuse negative device times do not apply) and add at least the clamped mean."""
    base = ["run.ios=200", "run.ramp_ios=20", "ceph.tails=false"]
    plain = lat(run(QUICKSTART, base)).mean()
    for link in ("{from: client0, to: osd0, delay: 10ms, jitter: 20ms}",
                 "{from: client0, to: osd0, delay: 10ms, jitter: 5ms, distribution: normal}"):
        res = run(QUICKSTART, [*base, f"network.links=[{link}]"])
        extra = lat(res).mean() - plain
        # ops with a primary on osd0 pay the delay both ways (the link is both_ways);
        # uniform -10..30 ms clamped at 0 has mean 11.25 ms, the normal ~10 ms
        assert extra > 0
        assert lat(res).min() >= lat(run(QUICKSTART, base)).min()


def test_a_lost_resend_doubles_the_timeout_exactly():
    """Loss on the OSD's egress alone touches one message per write on the size-1
    constant-time cluster, the one-segment reply, so every op's extra wait is a sum of
    backed-off timeouts: 0, 200, 200+400, 200+400+800 ms ...  At 40 % loss some resends
    are lost again, and nothing falls between those steps (one RTO per lost message would
    give only 0 and 200)."""
    constant = ROOT / "tests" / "scenarios" / "constant.yaml"
    res = run(constant, ["run.ios=400", "hosts.osd.netem.loss=40%"])
    x = lat(res)
    extra = x - x.min()
    steps = {0, *(200_000_000 * (2**k - 1) for k in range(1, 16))}
    assert set(np.unique(extra).tolist()) <= steps, sorted(set(np.unique(extra).tolist()) - steps)
    assert (extra >= 600_000_000).any()  # a lost resend: 200 + 400 ms
    assert sum(p.rtos for p in res.cluster.paths.values()) >= (extra > 0).sum()


def test_loss_in_a_multi_segment_message_is_repaired_by_sack_or_probe_exactly():
    """Loss on the client's egress alone, constant-time cluster: the MOSDOp (4396 bytes)
    is 4 segments at MTU 1500.  Round trip outside the wire: 2 x (NIC tx 2 us + switch
    0.5 us + NIC rx 3 us) = 11 us; a segment takes 1230.4 ns at 10G.  A hole k segments
    before the last is resent 1.25 rtt after it would have arrived, k + 1 segment times
    before the last one: max(0, 13750 - (k + 1) x 1230.4) ns later.  A lost last segment
    waits for the tail-loss probe: 2 x 11 us + 8 ms, one rtt more if a hole came with
    it.  A lost resend adds 200, then 400 ms ...  Nothing else occurs."""
    constant = ROOT / "tests" / "scenarios" / "constant.yaml"
    res = run(constant, ["run.ios=600", "hosts.client.netem.loss=40%"])
    x = lat(res)
    extra = x - x.min()
    rtt, seg = 11_000, 1538 * 8e9 / 10e9
    first = {0, *(max(0, int(rtt * 1.25 - (k + 1) * seg)) for k in range(3)),
             2 * rtt + 8_000_000, 3 * rtt + 8_000_000}
    chains = {200_000_000 * (2**j - 1) for j in range(0, 16)}
    allowed = {f + c for f in first for c in chains}
    seen = set(np.unique(extra).tolist())
    assert seen <= allowed, sorted(seen - allowed)[:5]
    assert {12_519, 11_289, 10_058, 8_022_000, 8_033_000} <= seen  # every kind happened
    assert (extra >= 200_000_000).any()  # and a lost resend


def test_total_loss_is_refused(run_cli):
    r = run_cli("validate", str(QUICKSTART), "--set", "hosts.client.netem.loss=100%")
    assert r.exit_code == 2 and "no write would ever complete" in r.output


def test_resend_waits_and_give_up_by_hand():
    """One-segment message, LAN: 200 ms, then 400, 800 ... to 120 s; 15 resends."""
    from cephsim.spec.loss import resend_wait_s, tcp_give_up, tcp_give_up_limit

    assert resend_wait_s(0) == 0.0
    assert resend_wait_s(1) == 0.2
    assert abs(resend_wait_s(3) - 1.4) < 1e-12
    # 200 ms x (2^10 - 1) until the doubling reaches 120 s, then 5 x 120 s
    assert abs(resend_wait_s(15) - (0.2 * 1023 + 5 * 120)) < 1e-9
    assert tcp_give_up(0.5) == 0.5**16
    assert abs(tcp_give_up(tcp_give_up_limit()) - 1e-6) < 1e-12


@settings(max_examples=60, deadline=None, database=None)
@given(a=st.floats(0.0, 0.99), b=st.floats(0.0, 0.99), c=st.floats(0.0, 0.99))
def test_heartbeat_misses_grow_with_loss_and_do_not_care_which_way(a, b, c):
    from cephsim.spec.loss import heartbeat_misses_per_hour as hb

    assert hb(a, b) == hb(b, a) or abs(hb(a, b) - hb(b, a)) <= 1e-12 * hb(a, b)
    lo, hi = sorted((a, c))
    assert hb(lo, b) <= hb(hi, b) * (1 + 1e-12)
    assert hb(0.0, 0.0) == 0.0


def test_heartbeat_miss_needs_seven_losses_in_a_row():
    """With a lossless reply, a ping is late past the 16.8 s budget (grace 20 s less the 3.2 s
    mean period) only after 7 lost sends (25.4 s; 6 give 12.6 s): p^7 per ping, four ping
    streams between two OSD hosts (each way, front and back), one every 3.2 s."""
    from cephsim.spec.loss import heartbeat_misses_per_hour as hb

    p = 0.1
    assert abs(hb(p, 0.0) - 4 * 3600 / 3.2 * p**7) < 1e-9 * hb(p, 0.0)


def test_loss_the_cluster_would_not_survive_is_refused(run_cli):
    """99.9 % on every host (a cluster that would flap and drop its connections) and on the
    client alone (TCP would give up on most messages) are refused with the field to change;
    below the limits the run is accepted."""
    from cephsim.spec.loss import heartbeat_loss_limit, tcp_give_up_limit

    hb, tcp = heartbeat_loss_limit(), tcp_give_up_limit()
    assert 0.25 < hb < 0.30 and 0.40 < tcp < 0.45
    r = run_cli("validate", str(QUICKSTART), "--set", "hosts.osd.netem.loss=99.9%",
                "--set", "hosts.client.netem.loss=99.9%")
    assert r.exit_code == 2 and "hosts.0.netem.loss" in r.output and "tcp_retries2" in r.output
    r = run_cli("validate", str(QUICKSTART), "--set", "hosts.client.netem.loss=99.9%")
    assert r.exit_code == 2 and "hosts.1.netem.loss" in r.output
    for loss, ok in ((hb - 0.005, True), (hb + 0.005, False)):
        r = run_cli("validate", str(QUICKSTART), "--set", f"hosts.osd.netem.loss={loss:.1%}")
        assert (r.exit_code == 0) == ok, r.output
        assert ok or "osd_heartbeat_grace" in r.output
    r = run_cli("validate", str(QUICKSTART), "--set", f"hosts.client.netem.loss={tcp - 0.005:.1%}")
    assert r.exit_code == 0, r.output
    r = run_cli("validate", str(QUICKSTART), "--set",
                "network.links=[{from: osd1, to: osd2, loss: 35%}]")
    assert r.exit_code == 2 and "network.links.0.loss" in r.output


class _Thread:
    def __init__(self):
        self.free_at = 0
        self.stalls = []

    def block(self, t, d):
        self.stalls.append(t)
        self.free_at = max(self.free_at, t) + d


def _stalls(events_at, rate_hz=10.0):
    """Run the kv stall process for two OSDs beside events at ``events_at`` (ns)."""
    import simpy

    from cephsim.model.engine.draw import Sampler
    from cephsim.model.runner import _stall_process
    from cephsim.spec.dists import LogNormal

    env = simpy.Environment()
    threads = [_Thread(), _Thread()]
    spec = LogNormal.model_validate({"median": "1ms", "p99": "5ms"})
    gaps = [np.random.default_rng(s) for s in (1, 2)]
    durs = [Sampler(spec, np.random.default_rng(s)) for s in (3, 4)]
    window = 10 * 10**9
    env.process(_stall_process(env, threads, rate_hz, durs, gaps, window))
    for t in events_at:
        env.timeout(t)
    env.run(until=max(events_at))
    return threads, window


def test_stalls_keep_their_poisson_times_while_things_happen():
    """With an event every 100 ms no stretch is quiet: each OSD's stalls fall at the
    running sum of its own gap stream, as if each had a process of its own."""
    threads, _ = _stalls(range(10**8, 300 * 10**9, 10**8))
    for i, th in enumerate(threads):
        g = np.random.default_rng(i + 1)
        t, want = 0, []
        while True:
            t += int(g.exponential(1e8)) + 1
            if t >= 300 * 10**9 - 10**8:
                break
            want.append(t)
        assert th.stalls[:len(want)] == want


def test_a_quiet_hour_costs_the_stalls_near_its_end_only():
    """Nothing happens for an hour (a message waiting out backed-off resends): instead of
    36,000 stalls per OSD the process simulates those of the window before the next event
    (10 s, ~100 at 10 Hz), and the event still meets stalls as often as a Poisson process
    has them."""
    hour = 3600 * 10**9
    threads, window = _stalls([hour])
    for th in threads:
        assert len(th.stalls) < 300
        near = [t for t in th.stalls if hour - window <= t < hour]
        assert 50 < len(near) < 160  # Poisson(100)


def test_model_doc_quotes_the_loss_limits_the_code_derives():
    from cephsim.spec.loss import heartbeat_loss_limit, tcp_give_up_limit

    text = " ".join((ROOT / "docs" / "model.md").read_text().split())
    assert f"about {tcp_give_up_limit() * 100:.0f} % on a path" in text
    assert f"about {heartbeat_loss_limit() * 100:.0f} % each way" in text
