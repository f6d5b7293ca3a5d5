"""What-if: change hardware in a scenario, simulate both, explain the difference per hop.

The per-hop explanation is analytic (one switch, or a full mesh): the mean one-way
time of each message on a write's critical path, from the catalog figures the
simulator samples (NIC tx/rx means, switch latency, serialisation of the frames
at the link speeds, store-and-forward or cut-through), without queueing and
without the kernel TCP cost (software, unchanged by a NIC swap).  The simulated
difference is the authority; the per-hop sum shows where it comes from.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from cephsim.api import load_resolved
from cephsim.errors import CephsimError
from cephsim.formats.report.summary import breakdown, job_stats
from cephsim.model.components.network import TCP_HEADERS, WIRE_OVERHEAD
from cephsim.model.runner import run_scenario
from cephsim.model.writepath import OSDOP_HDR, REPLY_BYTES, REPOP_HDR


def one_way_ns(r: Any, src: str, dst: str, nbytes: int) -> dict[str, float]:
    """Mean one-way time of an ``nbytes`` message src -> dst, by part (ns)."""
    net = r.network
    if src == dst:  # loopback: no NIC, wire or switch
        return {"nic_tx": 0.0, "serialisation": 0.0, "switch": 0.0, "nic_rx": 0.0}
    if net.kind not in ("switch", "mesh"):
        raise CephsimError.single("per-hop explanation is only computed for a single-switch "
                                  "or full-mesh topology")
    a, b = r.host(src), r.host(dst)
    mss = net.mtu - TCP_HEADERS
    frames = max(1, math.ceil(nbytes / mss))
    wire = nbytes + frames * WIRE_OVERHEAD
    if net.kind == "mesh":  # one cable: the message's time on the wire, no switch
        up = wire * 8e9 / min(a.nic.speed_bps, b.nic.speed_bps)
        return {"nic_tx": float(a.nic.tx_latency.mean_ns), "serialisation": up, "switch": 0.0,
                "nic_rx": float(b.nic.rx_latency.mean_ns)}
    up = wire * 8e9 / a.nic.speed_bps
    first = (min(nbytes, mss) + WIRE_OVERHEAD) * 8e9 / a.nic.speed_bps
    egress = wire * 8e9 / min(b.nic.speed_bps, net.switch.speed_bps)
    sw = float(net.switch.latency.mean_ns)
    if net.switch.forwarding == "cut-through":
        serial = first + egress
    else:  # store-and-forward: the whole message in, then out
        serial = up + egress
    return {"nic_tx": float(a.nic.tx_latency.mean_ns), "serialisation": serial, "switch": sw,
            "nic_rx": float(b.nic.rx_latency.mean_ns)}


def critical_hops(r: Any) -> list[tuple[str, str, str, int, int]]:
    """(label, src, dst, bytes, multiplicity on the critical path) for one replicated write."""
    bs = r.scenario.workload.bs
    client = r.clients[0]
    osd_hosts = [h.name for h in r.hosts if h.osd_ids]
    if len(osd_hosts) < 2:
        raise CephsimError.single("the per-hop explanation needs at least two OSD hosts")
    # a primary on another host than the client (hyperconverged: the local one is loopback)
    remote = [h for h in osd_hosts if h != client]
    prim = remote[0] if remote else osd_hosts[0]
    rep = next(h for h in osd_hosts if h != prim)
    hops = [("client -> primary (MOSDOp)", client, prim, OSDOP_HDR + bs, 1)]
    if r.scenario.pool.size > 1:
        hops += [("primary -> replica (MOSDRepOp)", prim, rep, REPOP_HDR + bs, 1),
                 ("replica -> primary (MOSDRepOpReply)", rep, prim, REPLY_BYTES, 1)]
    hops.append(("primary -> client (MOSDOpReply)", prim, client, REPLY_BYTES, 1))
    return hops


def run_pair(scenario: Path, sets: list[str], seed: int | None, ios: int | None) -> dict[str, Any]:
    if not sets:
        raise CephsimError.single("what-if needs at least one --set change", path="--set")
    out: dict[str, Any] = {"scenario": str(scenario), "changes": sets}
    extra = [f"run.ios={ios}"] if ios else []
    # both sides loaded before either runs: a bad --set is refused at once, not after the
    # "before" run has taken its seconds
    loaded = {label: load_resolved(scenario, s or None)
              for label, s in (("before", extra), ("after", extra + sets))}
    for label, (sc, r) in loaded.items():
        res = run_scenario(sc, scenario_path=scenario, seed=seed, resolved=r)
        d = job_stats(res).write
        if d is None:
            raise CephsimError.single("the scenario has no writes")
        bd = breakdown(res) or {}
        out[label] = {
            "resolved": r,
            "iops": d.iops,
            "mean_us": d.lat.mean / 1e3,
            "p99_us": d.clat_percentiles.get(99.0, 0) / 1e3,
            "critical_path_us": bd.get("write", {}).get("critical_path_us", {}),
            "nic": sorted({h.nic.name for h in r.hosts}),
            "switch": (
                r.network.switch.name
                if r.network.kind != "mesh"
                else f"none (full mesh, {r.network.mesh_mode})"
            ),
            "disks": sorted(
                {
                    h.disk.name
                    + (f" ({h.osds_per_device} OSDs each)" if h.osds_per_device > 1 else "")
                    + (f" + DB {h.db_disk.name}" if h.db_disk else "")
                    for h in r.hosts
                    if h.disk is not None
                }
            ),
        }
    hops = []
    try:
        after_hosts = {h.name for h in out["after"]["resolved"].hosts}
        for lab, src, dst, n, k in critical_hops(out["before"]["resolved"]):
            if src not in after_hosts or dst not in after_hosts:
                raise CephsimError.single(
                    f"the per-hop table compares the same hosts before "
                    f"and after; the change removes {src if src not in after_hosts else dst}"
                )
            b = one_way_ns(out["before"]["resolved"], src, dst, n)
            a = one_way_ns(out["after"]["resolved"], src, dst, n)
            hops.append({"hop": lab, "bytes": n, "count": k, "before_us": {x: v / 1e3 for x, v in b.items()},
                         "after_us": {x: v / 1e3 for x, v in a.items()},
                         "delta_us": (sum(a.values()) - sum(b.values())) * k / 1e3})
    except CephsimError as e:
        out["hops_note"] = str(e)
        hops = []  # a partial table would mislead
    out["hops"] = hops
    for k in ("before", "after"):
        out[k].pop("resolved")
    return out


def whatif_text(d: dict[str, Any]) -> str:
    b, a = d["before"], d["after"]
    gain = 100 * (a["iops"] / b["iops"] - 1)
    lines = [
        f"what-if on {d['scenario']}: {' ; '.join(d['changes'])}",
        f"  before: NIC {', '.join(b['nic'])}, switch {b['switch']}",
        f"  after:  NIC {', '.join(a['nic'])}, switch {a['switch']}",
        *(
            [f"  disks:  {'; '.join(b['disks'])} -> {'; '.join(a['disks'])}"]
            if b["disks"] != a["disks"]
            else []
        ),
        "",
        f"  {'':<22}{'before':>10}{'after':>10}{'after - before':>16}",
        f"  {'IOPS':<22}{b['iops']:>10.0f}{a['iops']:>10.0f}{gain:>+15.1f}%",
        "  "
        f"{'mean latency (us)':<22}{b['mean_us']:>10.1f}{a['mean_us']:>10.1f}"
        f"{a['mean_us'] - b['mean_us']:>+16.1f}",
        f"  {'clat p99 (us)':<22}{b['p99_us']:>10.1f}{a['p99_us']:>10.1f}"
        f"{a['p99_us'] - b['p99_us']:>+16.1f}",
    ]
    for cat in b["critical_path_us"]:
        x, y = b["critical_path_us"][cat], a["critical_path_us"].get(cat, 0.0)
        lines.append(f"  {'  ' + cat + ' (us)':<22}{x:>10.1f}{y:>10.1f}{y - x:>+16.1f}")
    if d["hops"]:
        lines += [
            "",
            "  per hop on the critical path (mean one-way, catalog figures, no queueing; us):",
            f"  {'hop':<38}{'bytes':>6}  {'tx':>5} {'wire':>6} {'switch':>6} {'rx':>6} = "
            f"{'total':>6}   after - before",
        ]
        tot = 0.0
        for h in d["hops"]:
            for lab, part in (("before", h["before_us"]), ("after", h["after_us"])):
                lines.append(f"  {(h['hop'] if lab == 'before' else '  (' + lab + ')'):<38}"
                             f"{h['bytes'] if lab == 'before' else '':>6}  {part['nic_tx']:>5.1f} "
                             f"{part['serialisation']:>6.1f} {part['switch']:>6.1f} {part['nic_rx']:>6.1f} = "
                             f"{sum(part.values()):>6.1f}" + (f"   {h['delta_us']:+.1f}" if lab ==
                                     'after' else ""))
            tot += h["delta_us"]
        lines.append(f"  sum over the critical path: {tot:+.1f} us  (simulated mean latency change "
                     f"{a['mean_us'] - b['mean_us']:+.1f} us; the replica hops are in parallel with the "
                     "primary's own commit and count only when they are the longer branch)")
    elif d.get("hops_note"):
        lines.append(f"  ({d['hops_note']})")
    return "\n".join(lines) + "\n"
