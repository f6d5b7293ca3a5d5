"""Report lines about WAN conditions of a run: retransmission timeouts, multi-site rules.

Called by :func:`cephsim.model.runner.run_scenario`; each function returns sentences that end up
in ``RunResult.warnings`` (the ``warning:`` lines of the text report and
``cephsim.warnings`` in JSON).

* :func:`loss_warnings` -- computed from the measured ops: with netem loss anywhere on the
  data path, the ops that took at least ``TCP_RTO_MIN`` (200 ms) x 0.9 longer than the
  median are the ones that waited for a retransmission timeout (the data-path network model
  charges one for a lost one-segment message and for every lost resend, doubling, and
  counts them, and the losses SACK or the tail-loss probe repaired sooner; only a TCP window
  wait over a round trip of 180 ms or more could add a step that large, and
  :func:`window_warnings` reports those).
* :func:`window_warnings` -- how long messages larger than the TCP window waited for ACKs
  (``network.tcp``; the wait per path is counted by the network model).
* :func:`site_warnings` -- the stretch-mode rule of thumb (Daniel Parkes and Anthony D'Atri,
  "Ceph Stretch Clusters Part 2", ceph.io, 2025,
  https://ceph.io/en/news/blog/2025/stretch-cluuuuuuuuusters-part2/): data sites within
  10 ms RTT of each other, the tie-breaker monitor within 100 ms RTT of the data sites; and,
  from the placement, how many inter-site round trips a write pays (1 when the primary is at the
  client's site and a replica is across the link, 2 when the primary itself is remote).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

TCP_RTO_MIN_NS = 200_000_000
STRETCH_DATA_RTT_NS = 10_000_000
STRETCH_TIEBREAKER_RTT_NS = 100_000_000


def data_loss_sources(r: Any) -> list[str]:
    out = []
    for h in r.hosts:
        if h.netem is not None and h.netem.loss > 0:
            out.append(f"{h.name} egress {h.netem.loss:.2%}")
    for (a, b), n in r.network.link_netem.items():
        if n.loss > 0:
            out.append(f"{a}->{b} {n.loss:.2%}")
    return out


def rto_ops(lat_ns: np.ndarray) -> tuple[int, float]:
    """(ops that waited >= 0.9 x TCP_RTO_MIN beyond the median, the median in ns)."""
    if lat_ns.size == 0:
        return 0, 0.0
    med = float(np.median(lat_ns))
    return int((lat_ns >= med + 0.9 * TCP_RTO_MIN_NS).sum()), med


def loss_warnings(rec: Any, r: Any, paths: dict) -> list[str]:
    """``paths``: the cluster's network paths, whose ``rtos`` and ``fast_recoveries``
    count what the network model charged (warm-up included)."""
    src = data_loss_sources(r)
    if not src:
        return []
    a = rec.arrays()
    lat = a["complete"] - a["submit"]
    n = int(lat.size)
    if n == 0:
        return []
    rtos = sum(p.rtos for p in paths.values())
    fast = sum(p.fast_recoveries for p in paths.values())
    k, med = rto_ops(lat)
    where = ", ".join(src[:4]) + (f" and {len(src) - 4} more" if len(src) > 4 else "")
    p99 = float(np.percentile(lat, 99)) / 1e6
    timeouts = f"{rtos} retransmission timeouts in the run; "
    if fast:
        timeouts += (f"{fast} losses repaired without a timeout (SACK/RACK within a round "
                     f"trip, or the tail-loss probe after 2 RTT + 8 ms); ")
    if k == 0 and not rtos:
        return [f"netem loss ({where}): {timeouts}no op waited for a TCP retransmission "
                f"timeout in {n} ops"]
    if k == 0:  # so many ops lost something that the median itself waited
        return [f"netem loss ({where}): {timeouts}the median op ({med / 1e6:.1f} ms) already "
                f"waited for one (TCP_RTO_MIN 200 ms, doubling per lost resend); "
                f"p99 {p99:.1f} ms, max {float(lat.max()) / 1e6:.1f} ms"]
    return [f"netem loss ({where}): {timeouts}{k} of {n} ops ({k / n:.1%}) took >= 180 ms more "
            f"than the median ({med / 1e6:.1f} ms): TCP retransmission timeouts (TCP_RTO_MIN "
            f"200 ms, doubling per lost resend); p99 {p99:.1f} ms, max {float(lat.max()) / 1e6:.1f} ms"]


def _site_rtt(sites: Any, a: str, b: str) -> int:
    ln = sites.link(a, b)
    return 0 if ln is None else int(ln.rtt)


def site_warnings(r: Any, acting: Sequence[Sequence[int]]) -> list[str]:
    """Stretch-layout warnings; ``acting``: the run's PG acting sets (``Cluster.acting``)."""
    sc = r.scenario
    sites = sc.sites
    if sites is None:
        return []
    out: list[str] = []
    site_of_group = {g.name: g.site for g in sc.hosts}
    host_site = {h.name: site_of_group[h.group] for h in r.hosts}
    data_sites = sorted({host_site[h.name] for h in r.hosts if h.osd_ids})
    for i, a in enumerate(data_sites):
        for b in data_sites[i + 1:]:
            rtt = _site_rtt(sites, a, b)
            if rtt > STRETCH_DATA_RTT_NS:
                out.append(f"stretch rule of thumb violated: data sites {a} and {b} are "
                           f"{rtt / 1e6:g} ms RTT apart (keep data sites within 10 ms RTT); "
                           f"every write pays at least one inter-site round trip")
    mon = r.monitors
    if mon is not None and mon.tiebreaker is not None:
        tb = mon.tiebreaker
        for m in mon.spec.mons:
            if m == tb or mon.sites.get(m) not in data_sites:
                continue
            rtt = mon.mon_rtt_ns(tb, m)
            if rtt > STRETCH_TIEBREAKER_RTT_NS:
                out.append(f"stretch rule of thumb violated: tiebreaker monitor {tb} is "
                           f"{rtt / 1e6:g} ms RTT from monitor {m} at data site "
                           f"{mon.sites.get(m)} (keep the tiebreaker within 100 ms RTT)")
    if len(data_sites) >= 2:
        out += _round_trip_note(r, host_site, sites, acting)
    return out


def _round_trip_note(r: Any, host_site: dict[str, str | None], sites: Any,
                     acting: Sequence[Sequence[int]]) -> list[str]:
    """How many inter-site round trips a write pays, from the placement of the PGs."""
    osd_host = r.osd_host
    out = []
    for c in r.clients:
        cs = host_site[c]
        trips = []
        rtts = []
        for act in acting:
            ps = host_site[osd_host[act[0]]]
            rep_sites = {host_site[osd_host[o]] for o in act[1:]}
            rtt_rep = max((_site_rtt(sites, ps, s) for s in rep_sites), default=0)
            rtt_cli = _site_rtt(sites, cs, ps)
            trips.append((ps != cs) + any(s != ps for s in rep_sites))
            rtts.append(rtt_cli + rtt_rep)
        if not any(rtts):
            continue
        remote = sum(1 for act in acting if host_site[osd_host[act[0]]] != cs)
        out.append(f"multi-site: writes from {c} (site {cs}) pay {np.mean(trips):.2f} inter-site "
                   f"round trips on average ({remote} of {len(acting)} PGs have a remote primary: "
                   f"client->primary and primary->replica both cross; the others only "
                   f"primary->replica): +{np.mean(rtts) / 1e6:.2f} ms per write from placement")
    return out


def monitor_warnings(report: Any) -> list[str]:
    if report is None or report.state == "healthy":
        return []
    return [f"monitors {report.state}: {'; '.join(report.reasons)}; first timer tripped: "
            f"{report.first_timer_tripped or 'none'}"]


def window_warnings(paths: dict, ios: int, rec: Any, tcp: Any) -> list[str]:
    """A line when waiting for the TCP window is a visible part of the latency (>= 1 %)."""
    waits = {k: p.window_stall_ns for k, p in paths.items() if p.window_stall_ns > 0}
    total = sum(waits.values())
    if not ios or not total:
        return []  # the common case: no message ever waited, so the records are not read
    mean_latency_ns = rec.lat_mean()
    if mean_latency_ns <= 0:
        return []
    per_io = total / ios
    if per_io < 0.01 * mean_latency_ns:
        return []
    top = sorted(waits.items(), key=lambda kv: -kv[1])[:3]
    where = ", ".join(f"{a}->{b} {w / 1e9:.1f} s" for (a, b), w in top)
    window = tcp.rmem_max * tcp.window_fraction / 2**20
    return [f"TCP window: messages larger than the window waited for ACKs, {per_io / 1e6:.1f} ms per "
            f"I/O summed over its messages (parallel replica sends each count, so not all of it is "
            f"on the critical path; mean latency {mean_latency_ns / 1e6:.1f} ms); most on {where}; "
            f"receive window {window:.3g} MiB (network.tcp.rmem_max x window_fraction), "
            f"initial window {tcp.initial_window} segments, slow start after idle "
            f"{'on' if tcp.slow_start_after_idle else 'off'}"]
