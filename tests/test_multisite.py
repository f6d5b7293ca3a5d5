"""Issue 4 multi-site: inter-site RTT on the data path, stretch warnings, located errors."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import ROOT

from cephsim.model.runner import run_scenario
from cephsim.scenario.load import load_scenario

STRETCH = ROOT / "scenarios" / "stretch-two-sites.yaml"
MS = 1_000_000


def run(overrides=(), seed=1):
    return run_scenario(load_scenario(STRETCH, ["run.ios=400", "ceph.tails=false", *overrides]),
                        scenario_path=STRETCH, seed=seed)


def mean_lat(res):
    a = res.records.arrays()
    return float((a["complete"] - a["submit"]).mean())


def test_added_write_latency_per_inter_site_round_trip():
    """Each write pays 1 inter-site RTT (local primary) or 2 (remote primary)."""
    base = mean_lat(run(["sites.links.0.rtt=0ms"]))
    per_rtt = {}
    for rtt in (2, 4, 8):
        added = mean_lat(run([f"sites.links.0.rtt={rtt}ms"])) - base
        per_rtt[rtt] = added / (rtt * MS)
    print("\nadded write latency per inter-site RTT:", {k: round(v, 2) for k, v in per_rtt.items()})
    for v in per_rtt.values():
        assert 1.0 <= v <= 2.0
    # and it matches the placement: 66 of 128 PGs have a remote primary -> ~1.52 RTT
    assert abs(per_rtt[8] - 1.52) < 0.15


def test_every_write_pays_at_least_one_rtt():
    a0 = run(["sites.links.0.rtt=0ms"]).records.arrays()
    a1 = run(["sites.links.0.rtt=8ms"]).records.arrays()
    l0, l1 = a0["complete"] - a0["submit"], a1["complete"] - a1["submit"]
    assert np.min(l1) >= 8 * MS
    assert np.percentile(l1 - l0, 5) > 7 * MS


def test_stretch_rule_of_thumb_warnings():
    ok = run()
    assert not any("rule of thumb" in w for w in ok.warnings)
    assert any(w.startswith("multi-site: writes from client0") for w in ok.warnings)
    bad = run(["sites.links.0.rtt=20ms", "sites.links.1.rtt=150ms"])
    assert any("data sites dc1 and dc2 are 20 ms RTT apart" in w for w in bad.warnings)
    assert any("tiebreaker monitor e is 150 ms RTT" in w for w in bad.warnings)
    assert bad.monitors is not None and bad.monitors.state in ("healthy", "unstable", "broken")


def test_stretch_json_and_connectivity(run_cli):
    r = run_cli("run", STRETCH, "-f", "json", "--set", "run.ios=50", "--set",
            "sites.links.0.rtt=20ms")
    assert r.exit_code == 0, r.output
    c = r.json()["cephsim"]
    assert c["monitors"]["network"]["election_strategy"] == "connectivity"
    assert c["monitors"]["network"]["tiebreaker"] == "e"
    assert any("stretch rule of thumb violated" in w for w in c["warnings"])


# ------------------------------------------------------------ bad input

BAD = [
    ("negative-mon-delay", "  links: [{from: a, to: b, delay: -5ms}]\n", "monitors.links.0.delay",
            "must not be negative"),
    ("mon-loss-above-100", "  links: [{from: a, to: b, delay: 5ms, loss: 150%}]\n",
            "monitors.links.0.loss",
     "loss must be between 0% and 100%"),
    ("mon-jitter-without-delay", "  links: [{from: a, to: b, jitter: 5ms}]\n",
            "monitors.links.0.jitter", "jitter without delay"),
    ("tiebreaker-not-a-mon", "  tiebreaker: z\n", "monitors.tiebreaker",
            "'z' is not a monitor (monitors: a, b, e)"),
    ("mon-unknown-site", "  mons: [{name: a, site: dc9}, {name: b, site: dc1}, {name: e, site: "
                         "arbiter}]\n",
     "monitors.mons.0.site", "no site named 'dc9'"),
    ("link-unknown-node", "  links: [{from: a, to: q, delay: 5ms}]\n", "monitors.links.0.to",
            "no monitor or monitor client named 'q'"),
]

BASE = """\
name: ms
sites:
  names: [dc1, dc2, arbiter]
  links:
    - {between: [dc1, dc2], rtt: 4ms}
hosts:
  - name: osd
    site: dc1
    count: 3
    cpu: epyc-7313p
    nic: connectx5-25g
    osds: {count: 1, disk: pm9a3}
  - {name: client, site: dc1, cpu: epyc-7313p, nic: connectx5-25g}
run: {ios: 50}
monitors:
  mons: [{name: a, site: dc1}, {name: b, site: dc1}, {name: e, site: arbiter}]
"""


def _check(run_cli, tmp_path, text, path, words, line=None):
    f = tmp_path / "broken.yaml"
    f.write_text(text)
    r = run_cli("run", f)
    assert r.exit_code == 2, r.output
    assert "Traceback" not in r.output and r.exception is None
    assert r.output.startswith("cephsim: error")
    assert "broken.yaml:" in r.output and f" {path}: " in r.output, r.output
    assert words in r.output, r.output
    if line is not None:
        assert f"broken.yaml:{line}:" in r.output, r.output


@pytest.mark.parametrize(("extra", "path", "words"), [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_monitor_input(run_cli, tmp_path, extra, path, words):
    text = BASE
    if extra.startswith("  mons:"):
        text = text.replace("  mons: [{name: a, site: dc1}, {name: b, site: dc1}, {name: e, site: "
                            "arbiter}]\n", extra)
    else:
        text = text + extra
    _check(run_cli, tmp_path, text, path, words, line=16 if extra.startswith("  mons:") else 17)


def test_bad_site_of_host(run_cli, tmp_path):
    _check(run_cli, tmp_path, BASE.replace("  - {name: client, "
            "site: dc1,", "  - {name: client, site: dc7,"),
           "hosts.1.site", "no site named 'dc7' (sites: dc1, dc2, arbiter)", line=13)


@pytest.mark.parametrize(("link", "field", "words"), [
    ("{between: [dc1, dc2], rtt: -4ms}", "rtt", "must not be negative"),
    ("{between: [dc1, dc2], rtt: 4ms, loss: 101%}", "loss", "loss must be between 0% and 100%"),
    ("{between: [dc1, dc2], jitter: 1ms, rtt: 0ms}", "jitter", "jitter without delay"),
    ("{between: [dc1, dc3], rtt: 4ms}", "between", "no site named 'dc3'"),
])
def test_bad_site_link(run_cli, tmp_path, link, field, words):
    _check(run_cli, tmp_path, BASE.replace("{between: [dc1, dc2], rtt: 4ms}", link),
           f"sites.links.0.{field}", words, line=5)


def test_tiebreaker_at_a_data_site(run_cli, tmp_path):
    _check(run_cli, tmp_path, BASE + "  tiebreaker: b\n", "monitors.tiebreaker", "holds OSDs")


def test_host_netem_errors_still_located(run_cli, tmp_path):
    _check(run_cli, tmp_path, BASE.replace("    count: 3\n", "    count: 3\n    netem: {delay: "
            "-1ms}\n"),
           "hosts.0.netem.delay", "must not be negative", line=10)


def test_tiebreaker_site_comes_from_its_hosts_own_group(tmp_path):
    """Host ``a00`` is group ``a0``'s (at the arbiter site), not group ``a``'s host 0 (dc1):
    the tiebreaker placed on it is accepted.  A name-prefix lookup took it for ``a``'s."""
    text = BASE + "  tiebreaker: e\n"
    text = text.replace("{name: e, site: arbiter}", "{name: e, host: a00}")
    text = text.replace("  - {name: client, site: dc1,",
                        "  - {name: a, site: dc1, cpu: epyc-7313p, nic: connectx5-25g}\n"
                        "  - {name: a0, site: arbiter, cpu: epyc-7313p, nic: connectx5-25g}\n"
                        "  - {name: client, site: dc1,")
    f = tmp_path / "groups.yaml"
    f.write_text(text)
    s = load_scenario(f)
    assert s.host_groups()["a00"].name == "a0" and s.host_groups()["a0"].name == "a"
    assert s.monitors is not None and s.monitors.tiebreaker == "e"
