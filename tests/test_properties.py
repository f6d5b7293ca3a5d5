"""Properties of the model that must hold for any seed (hypothesis drives the seeds).

Each property compares runs of the *same* scenario that differ in one thing,
so it is a statement about the model, not about a particular random draw.
"""

from __future__ import annotations

import json

import numpy as np
from conftest import ROOT, TEST_SCENARIOS
from hypothesis import HealthCheck, Phase, example, given, settings, strategies as st
from test_writepath import expected_write_size1

from cephsim.formats.report.render import render_run
from cephsim.model.runner import run_scenario
from cephsim.scenario.load import load_scenario

QUICKSTART = ROOT / "scenarios" / "quickstart.yaml"
CONSTANT = TEST_SCENARIOS / "constant.yaml"
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
# few examples, no shrinking (each example is a simulation run), no example database
FEW = settings(max_examples=6, deadline=None, database=None, derandomize=False,
               phases=[Phase.explicit, Phase.generate],
               suppress_health_check=[HealthCheck.too_slow])


def run(path, overrides=(), seed=None):
    return run_scenario(load_scenario(path, list(overrides)), scenario_path=path, seed=seed)


def lat(res):
    a = res.records.arrays()
    return a["complete"] - a["submit"]


def jobs_json(res) -> str:
    doc = json.loads(render_run(res, "json"))
    return json.dumps(doc["jobs"], sort_keys=True)


# ------------------------------------------------------------ lower bound

@FEW
@given(seed=SEEDS, sigma=st.floats(min_value=0.05, max_value=1.5))
def test_latency_never_below_sum_of_minimum_stage_times(seed, sigma):
    """Random service times with a hard minimum (lognormal ``shift``) never beat the minimum.

    The constant scenario at queue depth 1, pool size 1 is a pure chain of
    stages (no fork, nothing concurrent), so every op's latency is the sum of
    its stage times.  Replacing each device and NIC service time by
    ``shift + lognormal`` with ``shift`` = the constant value keeps every stage
    at or above its constant time, hence every op at or above the hand sum of
    :func:`test_writepath.expected_write_size1` - and, with sigma > 0, above it
    on average.  (CPU jitter stays 0: its lognormal factor has mean 1 and goes
    below 1, so it has no such bound.)
    """
    d = f"{{dist: lognormal, median: 4us, sigma: {sigma}, shift: %s}}"
    res = run(CONSTANT, [
        "run.ios=300",
        "hosts.osd.osds.disk.write_4k=" + d % "20us",
        "hosts.osd.osds.disk.flush=" + d % "7us",
        "hosts.osd.nic.tx_latency=" + d % "2us",  # the NIC is shared by both groups (YAML anchor)
        "hosts.osd.nic.rx_latency=" + d % "3us",
        "network.topology.switch.latency=" + d % "500ns",
    ], seed=seed)
    x = lat(res)
    floor = expected_write_size1()
    assert x.min() >= floor, (int(x.min()), floor)
    # 8 random stages of median 4 us each: the mean must be well above the floor
    assert x.mean() > floor + 8 * 3_000


# ------------------------------------------------------------ netem

NO_JITTER = "ceph.profile=" + str(TEST_SCENARIOS / "profiles" / "no-jitter.yaml")


def _delay_all(d_us: int) -> list[str]:
    return [f"hosts.osd.netem.delay={d_us}us", f"hosts.client.netem.delay={d_us}us"]


@FEW
@given(seed=SEEDS, delay_us=st.integers(min_value=1, max_value=400), size=st.sampled_from([1, 2, 3]))
@example(seed=16645, delay_us=128, size=1)  # the case the menu governor made 80 ns short
def test_netem_delay_adds_one_delay_per_message_to_every_op(seed, delay_us, size):
    """A write crosses 2 messages (size 1) or 4 (size >= 2) on its critical path.

    Op by op comparison needs the runs to draw the same random numbers for the
    same stages.  Two things break that without changing the model: the single
    CPU-jitter stream is consumed in event order (which differs between the
    replica branches when timing shifts) and background stalls fall on other
    ops.  With both off, each op must be slower by at least one delay per
    message on its critical path (and nothing else gets faster).  A third is the
    menu governor: it picks a CPU's idle state from its past idle periods, so the
    delayed run can wake an op's thread from a shallower state than the undelayed
    run's misprediction did (80 ns faster on seed 16645, 128 us, size 1).  The
    'ideal' governor, which sees each period's length, keeps the comparison exact.
    """
    base = ["run.ios=300", f"pool.size={size}", "ceph.tails=false", NO_JITTER,
            "hosts.osd.tuning.cpuidle_governor=ideal", "hosts.client.tuning.cpuidle_governor=ideal"]
    l0 = lat(run(QUICKSTART, base, seed=seed))
    l1 = lat(run(QUICKSTART, base + _delay_all(delay_us), seed=seed))
    hops = 2 if size == 1 else 4
    assert (l1 - l0 >= hops * delay_us * 1000).all(), (l1 - l0).min()


@FEW
@given(seed=SEEDS, delay_us=st.integers(min_value=20, max_value=400), size=st.sampled_from([1, 2, 3]))
def test_netem_delay_never_lowers_mean_on_realistic_scenario(seed, delay_us, size):
    """Tails and jitter on: the mean rises by hops*d up to a few us of reshuffled randomness."""
    base = ["run.ios=300", f"pool.size={size}"]
    m0 = lat(run(QUICKSTART, base, seed=seed)).mean()
    m1 = lat(run(QUICKSTART, base + _delay_all(delay_us), seed=seed)).mean()
    hops = 2 if size == 1 else 4
    assert m1 > m0
    assert m1 - m0 >= hops * delay_us * 1000 - 20_000, (m0, m1)


def test_netem_on_client_only_delays_two_messages(quickstart):
    r0 = run(quickstart, ["run.ios=300", "ceph.tails=false"])
    r1 = run(quickstart, ["run.ios=300", "ceph.tails=false", "hosts.client.netem.delay=1ms"])
    # per op, in integer ns (two float means can differ by a rounding error)
    diff = lat(r1) - lat(r0)
    # only client -> primary is delayed; a second delayed hop would add another 1 ms
    assert diff.min() >= 1_000_000 and diff.mean() < 1_500_000, (diff.min(), diff.mean())


# ------------------------------------------------------------ pool size, reads

@FEW
@given(seed=SEEDS)
@example(seed=1485361)
def test_larger_pool_size_never_lowers_mean_write_latency(seed):
    """Size 3 waits for the slower of two replicas instead of one: ~2 % (7 us) more on
    the quickstart.  The third replica's stages take draws from the shared CPU-jitter
    stream, so the runs are not coupled op by op; over 300 I/Os one background stall can
    cover the gap (seed 1485361: 361.4 against 360.3 us), over 1500 it cannot."""
    means = [lat(run(QUICKSTART, ["run.ios=1500", f"pool.size={s}"], seed=seed)).mean()
             for s in (1, 2, 3)]
    assert means[0] < means[1] <= means[2] * 1.001, means


@FEW
@given(seed=SEEDS)
def test_reads_are_faster_than_writes(seed):
    w = run(QUICKSTART, ["run.ios=300", "workload.rw=randwrite"], seed=seed)
    r = run(QUICKSTART, ["run.ios=300", "workload.rw=randread"], seed=seed)
    assert r.records.arrays()["is_write"].sum() == 0
    assert lat(r).mean() < lat(w).mean()
    assert np.median(lat(r)) < np.median(lat(w))


@FEW
@given(seed=SEEDS, image_gib=st.integers(1, 64))
def test_a_warmer_read_cache_never_slows_reads(seed, image_gib):
    """Cold >= partly warm >= all warm, in mean read latency: a cache hit only removes
    work (the device read and its kernel I/O path).  Where two runs' hit rates are nearly
    equal (8 GiB: 0.994 vs 1.0) the comparison is within noise, not below it: a miss runs
    one more CPU stage, which takes one more factor from the shared CPU-jitter stream and
    shifts every later op's draws (seen: all-warm 0.12 % slower than 0.994-warm on one
    seed).  So all-warm may exceed partly-warm by 0.5 % at most, and must be strictly
    faster once the hit rates differ by more than 0.1."""
    ov = ["run.ios=300", "workload.rw=randread", f"workload.image_size={image_gib}GiB"]
    cold = lat(run(QUICKSTART, ov, seed=seed)).mean()
    w = run(QUICKSTART, [*ov, "workload.read_cache=warm"], seed=seed)
    h = run(QUICKSTART, [*ov, "workload.read_cache=warm", "ceph.osd_memory_target=64GiB"], seed=seed)
    warm, hot = lat(w).mean(), lat(h).mean()
    assert warm <= cold and hot <= warm * 1.005, (hot, warm, cold)
    if h.resolved.ceph.read_cache_hit - w.resolved.ceph.read_cache_hit > 0.1:
        assert hot < warm, (hot, warm)


@FEW
@given(seed=SEEDS, cpu=st.sampled_from(["epyc-7313p", "xeon-6430", "xeon-e5-2683v4"]),
       governor=st.sampled_from(["performance", "auto", "schedutil"]))
def test_limiting_c_states_never_slows_a_qd1_write(seed, cpu, governor):
    """All idle states vs at most C1: a shallower limit only removes wake-up exits.  (POLL
    is not in this comparison: polling cores hold the chip at its all-core clock, which
    can cost more than the exits it saves; see test_cpu.)"""
    base = ["run.ios=300", f"hosts.osd.cpu={cpu}", f"hosts.client.cpu={cpu}",
            f"hosts.osd.tuning.governor={governor}", f"hosts.client.tuning.governor={governor}"]
    deep = lat(run(QUICKSTART, [*base, "hosts.osd.tuning.max_cstate=null",
                                "hosts.client.tuning.max_cstate=null"], seed=seed)).mean()
    c1 = lat(run(QUICKSTART, [*base, "hosts.osd.tuning.max_cstate=C1",
                              "hosts.client.tuning.max_cstate=C1"], seed=seed)).mean()
    assert c1 <= deep * 1.002, (c1, deep)


@FEW
@given(seed=SEEDS, cpu=st.sampled_from(["epyc-7313p", "xeon-6430", "xeon-e5-2683v4"]),
       governor=st.sampled_from(["auto", "schedutil", "ondemand", "conservative", "powersave"]))
def test_the_performance_governor_is_never_slower_than_a_load_following_one(seed, cpu, governor):
    base = ["run.ios=300", f"hosts.osd.cpu={cpu}", f"hosts.client.cpu={cpu}"]
    follow = lat(run(QUICKSTART, [*base, f"hosts.osd.tuning.governor={governor}",
                                  f"hosts.client.tuning.governor={governor}"], seed=seed)).mean()
    perf = lat(run(QUICKSTART, [*base, "hosts.osd.tuning.governor=performance",
                                "hosts.client.tuning.governor=performance"], seed=seed)).mean()
    assert perf <= follow * 1.002, (perf, follow)


def test_mixed_workload_reads_faster_than_writes(quickstart):
    res = run(quickstart, ["run.ios=600", "workload.rw=randrw", "workload.rwmixread=50"])
    a = res.records.arrays()
    x = a["complete"] - a["submit"]
    w = a["is_write"]
    assert 0.35 < w.mean() < 0.65
    assert x[~w].mean() < x[w].mean()


# ------------------------------------------------------------ determinism

@FEW
@given(seed=SEEDS)
def test_statistics_do_not_depend_on_records(seed):
    on = run(QUICKSTART, ["run.ios=300", "workload.iodepth=2"], seed=seed)
    off = run(QUICKSTART, ["run.ios=300", "workload.iodepth=2", "run.records=false"], seed=seed)
    assert "acc" not in off.records.arrays()
    assert jobs_json(on) == jobs_json(off)


@FEW
@given(seed=SEEDS)
def test_same_seed_same_bytes_different_seed_different_samples(seed):
    a = run(QUICKSTART, ["run.ios=300"], seed=seed)
    b = run(QUICKSTART, ["run.ios=300"], seed=seed)
    c = run(QUICKSTART, ["run.ios=300"], seed=seed + 1)
    assert jobs_json(a) == jobs_json(b)
    assert np.array_equal(a.records.arrays()["acc"], b.records.arrays()["acc"])
    assert not np.array_equal(lat(a), lat(c))
    assert jobs_json(a) != jobs_json(c)


def test_seed_argument_overrides_run_seed(quickstart):
    a = run(quickstart, ["run.ios=200", "run.seed=5"])
    b = run(quickstart, ["run.ios=200", "run.seed=9"], seed=5)
    assert a.seed == b.seed == 5
    assert np.array_equal(lat(a), lat(b))


def test_polling_idle_gives_the_published_qd1_gain_on_an_intel_pstate_host():
    """ceph/ceph PR #5013 (2015, an OSD on an SSD, Intel with intel_idle; hardware not
    given): 'I can improve 1 iodepth for ssd osd from 900 iops to 2000iops via this'
    (holding /dev/cpu_dma_latency at 0, so idle CPUs poll): x2.2.  A Broadwell host of that
    era under the kernel's defaults (intel_pstate powersave, all C-states) against the same
    host polling must give that gain within 30 %: the clock goes up (the driver sees C0)
    and the C-state exits go."""
    base = ["run.ios=1500", "hosts.osd.cpu=xeon-e5-2695v4", "hosts.client.cpu=xeon-e5-2695v4",
            "hosts.osd.osds.disk=s4510", "hosts.osd.tuning.governor=auto",
            "hosts.client.tuning.governor=auto"]
    default = lat(run(QUICKSTART, [*base, "hosts.osd.tuning.max_cstate=null",
                                   "hosts.client.tuning.max_cstate=null"])).mean()
    polling = lat(run(QUICKSTART, [*base, "hosts.osd.tuning.max_cstate=POLL",
                                   "hosts.client.tuning.max_cstate=POLL"])).mean()
    gain = default / polling
    assert 2.2 / 1.3 <= gain <= 2.2 * 1.3, gain
