"""The teaching view: the life of one simulated write, and what each knob is worth.

``explain(path)`` runs a scenario with per-op records, picks one op (the one
whose latency is the median, the p99, or a given sequence number), runs the
same scenario and seed again tracing that op span by span (tracing never
changes the results, so it is the same op with the same latency), and then:

1. reconstructs the op's **critical path** from its spans: the chain of
   steps (CPU work in a thread, a network message, a disk write or flush, a
   wait) that starts at submission and ends at completion, each step starting
   where the previous one ended.  Parallel branches (the other replica, the
   local commit when a replica was slower) are shown but not on the path.
   The chain is the one whose time split [network, CPU, wake-up, disk,
   queueing] equals the op's own accumulator exactly, so its step durations
   add up to the op's latency to the nanosecond;
2. draws it as a text Gantt chart (rows per thread, disk and network
   direction, grouped by host: client, primary, replicas), and lists the
   steps with what Ceph does in each, as the model labelled them
   (:mod:`cephsim.model.steps`);
3. attributes this op and the mean over all measured ops to network, CPU
   work, C-state wake-ups, disk and queueing;
4. runs ablations, each a real simulation with the same seed (common random
   numbers): C-states, governor, NIC speed, debug logging, pool size.
"""

from __future__ import annotations

import bisect
import io
import math
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from cephsim.api import load_resolved
from cephsim.errors import CephsimError
from cephsim.formats.report.assumptions import assumptions, header_text
from cephsim.formats.report.summary import job_stats, tracker_intervals
from cephsim.metrics.fio_hist import DEFAULT_PERCENTILES, FioHistogram
from cephsim.metrics.records import CATEGORIES
from cephsim.metrics.trace import Span
from cephsim.model.runner import run_scenario
from cephsim.model.steps import CLIENT_SEND, STEPS, WAL_WRITE
from cephsim.tools.names import component_label, osd_id, osd_name, osd_of
from cephsim.tools.progress import ProgressBar
from cephsim.tools.stats import TAIL_SPAN
from cephsim.tools.sweep import Task, direction_figures, execute
from cephsim.tools.workers import Workers

CAT_LABEL = {"network": "network", "cpu": "CPU work", "wake": "C-state wake-ups",
             "disk": "disk", "queue": "queueing"}
WIDTH = 100


@dataclass
class Step:
    """One step of the critical path."""

    resource: str  #: thread, disk, ``net A->B``, or ``(wait)`` for a gap
    kind: str  #: cpu, net, write, flush, read, wait
    start: int  #: ns since submission (the step's arrival)
    end: int
    cats: tuple[int, int, int, int, int]  #: network, cpu, wake, disk, queue (ns)
    host: str = ""
    what: str = ""
    #: a network step's sender and receiver roles (client, primary, replica N): decided by
    #: the threads on either side of it, not by the hosts, which may hold several roles
    ends: tuple[str, str] = ("", "")
    step: int = 0  #: what the model says it is (cephsim.model.steps)

    @property
    def dur(self) -> int:
        return self.end - self.start


@dataclass
class Explanation:
    scenario: str
    path: str
    seed: int
    which: str
    seq: int
    latency_ns: int
    acc: list[int]  #: the op's own [network, cpu, wake, disk, queue]
    steps: list[Step]
    spans: list[Span]  #: all spans, times since submission
    host_of: dict[str, str]  #: resource -> host
    groups: list[tuple[str, str]]  #: (host, role) in display order
    rank: str  #: e.g. "median (rank 750 of 1500)"
    mean_n: int = 0
    mean_acc_sum: list[int] = field(default_factory=list)  #: sums over all measured ops
    mean_lat_sum: int = 0
    write_mode: str = ""
    wal_log_sync: bool = False  #: each WAL fsync also writes BlueFS's log (Pacific to Squid)
    read_cache_hit: float = 0.0  #: P(a read is served from the primary's buffer cache)
    pool_size: int = 3
    is_write: bool = True  #: the traced op is a write (else a read)
    #: devices (as the steps name them) whose fdatasync sends FLUSH CACHE: a volatile
    #: cache; a PLP drive or an HDD with its cache off gets none (None: every device)
    cache_flushed: set[str] | None = None
    ablation: list[dict[str, Any]] = field(default_factory=list)
    baseline_mean_us: float = 0.0
    baseline_p99_us: float = 0.0
    latencies_ns: Any = None  #: every measured op's latency (for the CDF plot)
    #: what decides the answer, given or assumed (:mod:`cephsim.formats.report.assumptions`)
    assumptions: dict[str, Any] | None = None
    roles: dict[str, str] = field(default_factory=dict)  #: OSD (``osd6``) -> its role in the op
    bs: int = 4096
    engine: str = "rbd"
    #: op-tracker intervals at the primary (ns): this op's, and the mean over all measured ops
    tracker_op: dict[str, int] = field(default_factory=dict)
    tracker_mean: dict[str, float] = field(default_factory=dict)
    #: the run's fio-style figures of the explained direction (mean_us, p99_us, ...), as a
    #: sweep's point reports them (:func:`cephsim.tools.sweep.direction_figures`)
    figures: dict[str, float] = field(default_factory=dict)


# ------------------------------------------------------------------ pick and trace


def pick(lat: np.ndarray, seqs: np.ndarray, which: str) -> tuple[int, str]:
    """Sequence number of the op to explain, and how it was chosen."""
    n = lat.size
    if n == 0:
        raise CephsimError.single("no I/O was measured")
    if which in ("median", "p50"):
        q = 0.5
    elif which in ("min", "max"):
        q = 0.0 if which == "min" else 1.0
    elif which.startswith("p") and _num(which[1:]) is not None:
        q = _num(which[1:]) / 100.0
        if not 0 <= q <= 1:
            raise CephsimError.single(f"--op {which}: a percentile from p0 (the fastest op) "
                                      "to p100 (the slowest)")
    elif which.isdigit():
        seq = int(which)
        hit = np.nonzero(seqs == seq)[0]
        if not hit.size:
            raise CephsimError.single(f"--op {which}: op {seq} was not measured (measured ops: "
                                      f"{int(seqs.min())}..{int(seqs.max())}, after the ramp)")
        i = int(hit[0])
        rank = int((lat < lat[i]).sum()) + 1
        return seq, f"op {seq} (rank {rank} of {n} by latency)"
    else:
        raise CephsimError.single(f"--op {which!r}: expected median, p99 (any pNN, p0..p100), "
                                  "min, max or an op number")
    order = np.argsort(lat, kind="stable")
    k = max(0, min(n - 1, math.ceil(q * n) - 1))
    i = int(order[k])
    name = {0.0: "fastest", 0.5: "median", 1.0: "slowest"}.get(q) or f"p{_fmt_q(q * 100)}"
    return int(seqs[i]), f"the {name} op (rank {k + 1} of {n} by latency)"


def _num(s: str) -> float | None:
    try:
        return float(s)
    except ValueError:
        return None


def _fmt_q(x: float) -> str:
    return f"{x:g}"


def span_cats(sp: Span) -> tuple[int, int, int, int, int]:
    name, kind, arrive, start, end, extra, _ = sp
    if kind == "cpu":
        return (0, end - start - extra, extra, 0, start - arrive)
    if kind == "net":
        return (end - start - extra, 0, 0, 0, extra + (start - arrive))
    if kind in ("write", "flush", "read"):
        return (0, 0, 0, end - start, start - arrive)
    return (0, 0, 0, 0, end - arrive)  # wait


def critical_path(spans: Sequence[Span], submit: int,
                  complete: int, acc: Sequence[int], budget: int = 200_000) -> list[Step]:
    """The chain of spans from ``submit`` to ``complete`` whose time split equals ``acc``.

    Gaps between consecutive spans (waiting for a PG lock) count as queueing.
    """
    by_end: dict[int, list[int]] = {}
    for i, sp in enumerate(spans):
        by_end.setdefault(sp[4], []).append(i)
    ends = sorted(by_end)
    cats = [span_cats(sp) for sp in spans]
    target = tuple(int(x) for x in acc)
    used: set[int] = set()
    chain: list[tuple[int, int]] = []  # (span index, gap after it)
    nodes = [0]

    def fits(c: tuple[int, ...], rem: list[int]) -> bool:
        return all(x <= r for x, r in zip(c, rem))

    def dfs(t: int, rem: list[int]) -> bool:
        nodes[0] += 1
        if nodes[0] > budget:
            return False
        if t == submit:
            return not any(rem)
        if t < submit:
            return False
        cands = [(i, 0) for i in by_end.get(t, []) if i not in used]
        if rem[4] > 0:  # a gap (queueing) before time t
            lo = bisect.bisect_left(ends, t - rem[4])
            hi = bisect.bisect_left(ends, t)
            for e in reversed(ends[lo:hi]):
                cands += [(i, t - e) for i in by_end[e] if i not in used]
        for i, gap in cands:
            c = cats[i]
            need = list(c)
            need[4] += gap
            if not fits(need, rem):
                continue
            used.add(i)
            chain.append((i, gap))
            if dfs(spans[i][2], [r - x for r, x in zip(rem, need)]):
                return True
            chain.pop()
            used.discard(i)
        return False

    import sys

    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 10_000))
    try:
        found = dfs(complete, list(target))
    finally:
        sys.setrecursionlimit(old)
    if not found:
        chain.clear()
        _greedy(spans, submit, complete, by_end, ends, chain)
    steps: list[Step] = []
    for i, gap in reversed(chain):
        sp = spans[i]
        steps.append(Step(sp[0], sp[1], sp[2] - submit, sp[4] - submit, cats[i], step=sp[6]))
        if gap:
            steps.append(Step("(wait)", "wait", sp[4] - submit, sp[4] + gap - submit, (0, 0, 0, 0, gap)))
    return steps


def _greedy(spans: Any, submit: int, complete: int, by_end: dict[int, list[int]],
            ends: list[int], chain: list[tuple[int, int]]) -> None:
    """Fallback: follow the latest-ending predecessor (still contiguous, sums to the latency)."""
    t, used = complete, set()
    while t > submit:
        hi = bisect.bisect_right(ends, t)
        pick_i = None
        for e in reversed(ends[:hi]):
            cand = [i for i in by_end[e] if i not in used and spans[i][2] >= submit]
            if cand:
                pick_i = (max(cand, key=lambda i: spans[i][4] - spans[i][2]), t - e)
                break
        if pick_i is None:
            break
        used.add(pick_i[0])
        chain.append(pick_i)
        t = spans[pick_i[0]][2]


# ------------------------------------------------------------------ hosts and wording


def _host_of(resource: str, osd_host: dict[int, str]) -> str:
    if resource.startswith("net "):
        return "network"
    osd = osd_id(resource)
    if osd is not None:
        return osd_host.get(osd, f"osd{osd}")
    return resource.split(".", 1)[0]


def _net_ends(resource: str) -> tuple[str, str]:
    """The two hosts of a network resource ``net A->B``."""
    a, b = resource[4:].split("->")
    return a, b


def _shared_spans_per_osd(spans: list, shared: dict[str, str],
                          osd_host: dict[int, str]) -> list:
    """A device shared by a host's OSDs (a DB device ``<host>.db0``, a split data drive
    ``<host>.disk0``: ``shared`` maps its name to ``db`` or ``disk``) is shown as the op's
    OSD on that host sees it, ``osdN.db`` / ``osdN.disk``: one op uses one OSD per host,
    and its kv_sync cycle is that OSD's."""
    if not shared:
        return spans
    osd_on: dict[str, str] = {}
    for sp in spans:
        i = osd_id(sp[0])
        if sp[0] not in shared and i is not None:
            osd_on.setdefault(osd_host.get(i, ""), f"osd{i}")
    out = []
    for sp in spans:
        role = shared.get(sp[0])
        if role is not None:
            osd = osd_on.get(sp[0].rsplit(".", 1)[0])
            if osd is not None:
                sp = (f"{osd}.{role}", *sp[1:])
        out.append(sp)
    return out


def row_name(resource: str) -> str:
    """The timeline row (and the table's "where") of a resource: ``A->B`` for the network,
    a kv_sync batch on its kv_sync thread's row."""
    return resource[4:] if resource.startswith("net ") else resource.removesuffix(" batch")


def _thread(resource: str) -> str:
    """Kind of thread or device: app, librbd, msgr, finisher, kworker, shard, kv_sync, ..."""
    if resource.startswith("net "):
        return "net"
    tail = resource.split(".")[-1] if not resource.endswith(" batch") else "kv_sync"
    if tail.startswith("msgr"):
        return "msgr"
    if tail.startswith("librbd"):
        return "librbd"
    if tail.startswith("t") and tail[1:].isdigit():
        return "shard"
    return tail


#: how the application hands an I/O to the client, per engine: (write, read)
SUBMIT_CALL = {"rbd": ("(rbd_aio_write)", "(rbd_aio_read)"),
               "rados": ("(rados_aio_write)", "(rados_aio_read)"),
               "krbd": ("to /dev/rbdN (a direct block write)", "from /dev/rbdN (a direct block "
                       "read)"),
               "cephfs": ("(pwrite on the CephFS file, O_DIRECT)", "(pread on the CephFS file, "
                       "O_DIRECT)")}


def flush_sent(resource: str, cache_flushed: set[str] | None) -> bool:
    """Whether a flush step on ``resource`` sends FLUSH CACHE (a volatile cache), given the
    devices that have one (``Explanation.cache_flushed``; None: every device)."""
    return cache_flushed is None or resource in cache_flushed


def op_roles(spans: Sequence[tuple[Any, ...]], other: str = "replica") -> dict[str, str]:
    """Each OSD's role in this op, by its name (``osd6``): the first OSD the op reaches is
    its primary, the others replicas (``other``: an EC pool's shards) in the order the op
    reaches them."""
    roles: dict[str, str] = {}
    for sp in sorted(spans, key=lambda x: (x[2], x[3])):
        head = osd_of(sp[0])
        if head is not None and head not in roles:
            roles[head] = "primary" if not roles else f"{other} {len(roles)}"
    return roles


def role_for(resource: str, roles: dict[str, str]) -> str:
    """The role of the thread or device ``resource`` in the op: its OSD's, else the client's."""
    if resource.startswith("net ") or resource == "(wait)":
        return ""
    osd = osd_of(resource)
    return "client" if osd is None else roles.get(osd, "client")


def label_fields(nbytes: int, is_write: bool, engine: str) -> dict[str, Any]:
    """What a label's action leaves to the renderer: ``{kib}``, ``{op}``, ``{call}``."""
    return {"kib": nbytes // 1024, "op": "write" if is_write else "read",
            "call": SUBMIT_CALL[engine][not is_write]}


def describe(steps: list[Step], roles: dict[str, str], nbytes: int, write_mode: str,
             is_write: bool = True, engine: str = "rbd",
             cache_flushed: set[str] | None = None) -> None:
    """Fill ``Step.what`` from each step's label (:mod:`cephsim.model.steps`): who ran it
    (its OSD's role in the op, or the client), on which thread, doing what."""
    def side(k: int) -> str:  # the role of the thread at step k (a net step has none)
        return role_for(steps[k].resource, roles) if 0 <= k < len(steps) else ""

    fields = label_fields(nbytes, is_write, engine)
    for j, s in enumerate(steps):
        if s.resource == "(wait)":  # a gap between two spans: no component ran
            s.what = ("waits: the PG lock (another op on this PG, or this op's other branch) "
                      "or a busy thread")
            continue
        label = STEPS[s.step]
        dev = "DB device" if _thread(s.resource) == "db" else "disk"
        action = label.action.format(dev=dev, **fields)
        if s.kind == "net":
            a, b = _net_ends(s.resource)
            s.ends = (side(j - 1), side(j + 1))
            s.what = f"network {a}->{b}: {action}"
        elif s.kind == "flush":
            if flush_sent(s.resource, cache_flushed):
                s.what = f"{dev} cache flush (fdatasync): {action}"
            else:  # PLP flash or an HDD with its cache off: no FLUSH command is sent
                s.what = (f"fdatasync on the {dev}: {action} (no volatile cache: the system "
                          "call only, no flush is sent)")
        elif s.kind in ("write", "read"):
            s.what = action + ("; deferred: the data rides in the WAL"
                               if s.step == WAL_WRITE and write_mode == "deferred" else "")
        elif s.kind == "wait":
            s.what = action
        elif label.actor == "client":
            s.what = f"{label.thread}: {action}"
            if s.step == CLIENT_SEND and j + 1 < len(steps) and steps[j + 1].kind != "net":
                s.what += " (loopback: to this host)"
        else:
            s.what = f"{role_for(s.resource, roles)} {label.thread}: {action}"
        prev = steps[j - 1] if j else None
        if s.cats[4] and prev is not None and prev.resource == s.resource and s.kind == "cpu":
            s.what += " (queued behind the previous step on this thread)"


# ------------------------------------------------------------------ the run


def explain(path: str | Path, overrides: Sequence[str] | None = None, which: str = "median",
            seed: int | None = None, ablations: bool = True, jobs: int | None = None,
            quiet: bool = True, trace_ablations: bool = False,
            result: Any = None) -> Explanation:
    """Explain one op of a scenario (``which``: see :func:`pick`).  ``trace_ablations``:
    each ablation is explained too (its own run and traced op, the same ``which``), in
    ``row["op"]`` as :func:`explanation_data` (the teaching page switches between them).
    ``result``: the scenario's run (a RunResult of ``path`` and ``overrides``) when the
    caller has one with per-op records; only the traced run is then simulated."""
    overrides = list(overrides or [])
    sc, r = load_resolved(path, overrides)
    decides = assumptions(sc, r, overrides)  # as loaded: records switched on below is ours
    if not sc.run.records:
        r = r.with_run(records=True)
        sc = r.scenario
    seed = sc.run.seed if seed is None else seed

    if result is not None and "acc" not in result.records.arrays():
        result = None  # run without records: explain needs its own
    with ProgressBar(2 if result is None else 1, "explain: run, then trace one op",
                     quiet=quiet) as bar:
        if result is None:
            res = run_scenario(sc, scenario_path=path, seed=seed, resolved=r)
            bar.advance()
        else:
            res, seed, r = result, result.seed, result.resolved
            sc = r.scenario
        a = res.records.arrays()
        mask = a["is_write"] if a["is_write"].any() else ~a["is_write"]
        lat_all = a["complete"] - a["submit"]
        seqs = a["seq"]
        seq, rank = pick(lat_all[mask], seqs[mask], which)
        tres = run_scenario(sc, scenario_path=path, seed=seed, resolved=r, trace_ops={seq})
        bar.advance()
    tr = tres.records.traces.get(seq)
    i = int(np.nonzero(seqs == seq)[0][0])
    if tr is None or tr["complete"] - tr["submit"] != int(lat_all[i]):  # pragma: no cover
        raise CephsimError.single(f"internal: traced op {seq} differs from the untraced run")
    submit, complete = int(tr["submit"]), int(tr["complete"])
    acc = [int(x) for x in tr["acc"]]
    shared = {**dict.fromkeys(res.cluster.db_disks, "db"),
              **dict.fromkeys(res.cluster.shared_disks, "disk")}
    spans = _shared_spans_per_osd(list(tr["spans"]), shared, r.osd_host)
    steps = critical_path(spans, submit, complete, acc)
    host_of = {sp[0]: _host_of(sp[0], r.osd_host) for sp in spans}
    for s in steps:
        s.host = host_of.get(s.resource, "")
    # roles by thread, not by host (a host may run the client and an OSD of the op):
    # the OSDs in the order the op reaches them, everything else the client
    roles = op_roles(spans, "shard" if r.scenario.pool.type == "erasure" else "replica")
    parts: dict[str, list[str]] = {}  #: host -> its roles in the op, in order
    order = sorted(spans, key=lambda x: (x[2], x[3]))
    client = host_of.get(order[0][0], "client") if order else "client"
    parts[client] = ["client"]
    for head, role in roles.items():
        h = next(host_of[sp[0]] for sp in order if osd_of(sp[0]) == head)
        parts.setdefault(h, []).append(f"{role}: {osd_name(head)}")
    groups: list[tuple[str, str]] = [(h, "; ".join(p)) for h, p in parts.items()]
    groups.insert(1, ("network", "messages on the wire"))
    is_write = bool(a["is_write"][i])
    rel = [(sp[0], sp[1], sp[2] - submit, sp[3] - submit, sp[4] - submit, sp[5], sp[6])
           for sp in spans]
    # a device's own name and, for one shared by a host's OSDs, the per-OSD name it is shown as
    cache_flushed = set()
    for osd in res.cluster.osds.values():
        for dev, role in ((osd.disk, "disk"), (osd.db, "db" if osd.db is not osd.disk else "disk")):
            if dev.barrier:
                cache_flushed.update((dev.name, f"{osd.name}.{role}"))
    describe(steps, roles, sc.workload.bs, r.ceph.write_mode, is_write, sc.workload.engine,
             cache_flushed)
    ex = Explanation(scenario=sc.name, path=str(path), seed=seed, which=which, seq=seq,
                     latency_ns=complete - submit, acc=acc, steps=steps,
                     spans=rel,
                     host_of=host_of, groups=groups, rank=rank, mean_n=int(mask.sum()),
                     mean_acc_sum=[int(x) for x in a["acc"][mask].sum(axis=0)],
                     mean_lat_sum=int(lat_all[mask].sum()), write_mode=r.ceph.write_mode,
                     wal_log_sync=r.ceph.wal_log_sync, read_cache_hit=r.ceph.read_cache_hit,
                     pool_size=sc.pool.size, is_write=is_write, cache_flushed=cache_flushed,
                     assumptions=decides, roles=roles, bs=sc.workload.bs,
                     engine=sc.workload.engine)
    ex.baseline_mean_us = ex.mean_lat_sum / ex.mean_n / 1e3
    ex.latencies_ns = lat_all[mask]

    copies = sc.pool.size > 1
    one = tracker_intervals(np.asarray([tr["ev"]], dtype=np.int64), np.asarray([submit]),
                            np.asarray([complete]), is_write, copies)
    ex.tracker_op = {k: int(v[0]) for k, v in one.items()}
    every = tracker_intervals(a["ev"][mask], a["submit"][mask], a["complete"][mask], is_write,
                              copies)
    ex.tracker_mean = {k: float(v.mean()) for k, v in every.items()}
    js = job_stats(res)
    d = js.write if js.write is not None else js.read
    ex.baseline_p99_us = d.clat_percentiles[99.0] / 1e3 if d is not None else math.nan
    if d is not None and d.total_ios:
        ex.figures = direction_figures(d)
    if ablations:
        ex.ablation = run_ablations(path, overrides, sc, r, seed, jobs=jobs, quiet=quiet,
                                    trace=trace_ablations, which=which)
    return ex


# ------------------------------------------------------------------ ablations


def ablation_variants(sc: Any, r: Any) -> list[tuple[str, list[str]]]:
    """(title, overrides) of each what-if, chosen against the scenario as it is."""
    groups = list(range(len(sc.hosts)))
    out: list[tuple[str, list[str]]] = []

    def all_groups(field_: str, value: str) -> list[str]:
        return [f"hosts.{i}.{field_}={value}" for i in groups]

    pinned = all(str(g.tuning.max_cstate).upper() in ("C1", "POLL", "0", "1") for g in sc.hosts)
    if pinned:
        out.append(("C-states not pinned (all states)", all_groups("tuning.max_cstate", "null")))
    else:
        out.append(("C-states pinned (max_cstate C1)", all_groups("tuning.max_cstate", "C1")))
    out.append(("idle=poll (max_cstate POLL)", all_groups("tuning.max_cstate", "POLL")))
    if all(g.tuning.governor == "performance" for g in sc.hosts):
        out.append(("ondemand governor", all_groups("tuning.governor", "ondemand")))
    else:
        out.append(("performance governor", all_groups("tuning.governor", "performance")))
    speed = max(h.nic.speed_bps for h in r.hosts)
    mesh = r.network.kind == "mesh"  # no switch to change: the NICs are the whole network
    if speed <= 10e9:
        nic = all_groups("nic", "connectx5-25g") + (
            [] if mesh else ["network.topology.switch=generic-cut-through-25g"])
        out.append((f"25G NICs{'' if mesh else ' and switch'} (connectx5-25g)", nic))
    else:
        nic = all_groups("nic", "generic-10g") + (
            [] if mesh else ["network.topology.switch=generic-cut-through-10g"])
        out.append((f"10G NICs{'' if mesh else ' and switch'} (generic-10g)", nic))
    if sc.ceph.debug_logging == "default":
        out.append(("debug logging off (0/0)", ["ceph.debug_logging=off"]))
    else:
        out.append(("debug logging at defaults", ["ceph.debug_logging=default"]))
    if not sc.workload.reads_only:  # a read is served by the primary alone, without a commit
        if sc.pool.size != 2:
            out.append(("pool size 2", ["pool.size=2"]))
        else:
            out.append(("pool size 3", ["pool.size=3"]))
        if r.ceph.wal_log_sync:  # Pacific to Squid: what Tentacle's envelope mode saves
            out.append(("no BlueFS log write (WAL envelope)", ["ceph.wal_log_sync=false"]))
    # the other kind of pool, on as many OSDs as three copies take: a 2+1 stripe
    if sc.pool.type == "replicated":
        out.append(("erasure-coded pool (k=2, m=1)",
                    ["pool.type=erasure", "pool.k=2", "pool.m=1", "pool.size=3"]))
    else:
        out.append(("replicated pool (size 3)", ["pool.type=replicated", "pool.k=null",
                                                 "pool.m=null", "pool.technique=null",
                                                 "pool.size=3"]))
    if not sc.workload.writes_only:
        if sc.workload.read_cache == "cold":
            out.append(("warm read cache", ["workload.read_cache=warm"]))
        else:
            out.append(("cold read cache", ["workload.read_cache=cold"]))
    return out


def run_ablations(path: str | Path, overrides: list[str], sc: Any, r: Any, seed: int,
                  jobs: int | None = None, quiet: bool = True, trace: bool = False,
                  which: str = "median") -> list[dict[str, Any]]:
    """One row per :func:`ablation_variants`: its mean and p99 (a full run, the same seed),
    or why it cannot run; with ``trace`` also its explained op (``op``)."""
    rows: list[dict[str, Any]] = []
    tasks = []
    for title, ov in ablation_variants(sc, r):
        row: dict[str, Any] = {"variant": title, "set": ov}
        try:
            load_resolved(path, overrides + ov)
        except CephsimError as e:
            row["error"] = str(e).splitlines()[0]
            rows.append(row)
            continue
        row["task"] = len(tasks)
        tasks.append(Task(str(path), tuple(overrides + ov), seed))
        rows.append(row)
    if trace:
        res = _explain_all([(str(path), list(t.overrides), which, seed) for t in tasks],
                           jobs, quiet)
    else:
        res = execute(tasks, jobs=jobs, quiet=quiet, what="explain: ablations") if tasks else []
    for row in rows:
        if "task" in row:
            out = res[row.pop("task")]
            row["mean_us"] = out["mean_us"]
            row["p99_us"] = out["p99_us"]
            if "op" in out:
                row["op"] = out["op"]
    return rows


def _explain_variant(job: tuple[str, list[str], str, int]) -> dict[str, Any]:
    """One ablation explained (in a worker process): its figures and its op's data."""
    path, ov, which, seed = job
    try:
        vex = explain(path, ov, which=which, seed=seed, ablations=False)
    except CephsimError as e:
        return {"error": str(e)}
    return {"mean_us": vex.figures.get("mean_us", math.nan),
            "p99_us": vex.figures.get("p99_us", math.nan), "op": explanation_data(vex)}


def _explain_all(jobs_: list[tuple[str, list[str], str, int]], jobs: int | None,
                 quiet: bool) -> list[dict[str, Any]]:
    """:func:`_explain_variant` of each, on ``jobs`` processes (default: all cores)."""
    with ProgressBar(len(jobs_), "explain: ablations, each op traced", quiet=quiet) as bar, \
            Workers(jobs) as workers:
        out: list[dict[str, Any]] = workers.map(_explain_variant, [(j,) for j in jobs_],
                                                bar.advance)
    for i, o in enumerate(out):
        if "error" in o:
            raise CephsimError.single(f"ablation {' '.join(jobs_[i][1])} failed: {o['error']}")
    return out


# ------------------------------------------------------------------ text


def _round_parts(parts_ns: Sequence[float], total_ns: float, unit: float = 100.0) -> list[int]:
    """Largest-remainder rounding of parts to ``unit`` ns so they add up to the rounded total."""
    total = round(total_ns / unit)
    raw = [p / unit for p in parts_ns]
    base = [math.floor(x) for x in raw]
    short = total - sum(base)
    order = sorted(range(len(raw)), key=lambda i: raw[i] - base[i], reverse=True)
    for i in order[:max(0, short)]:
        base[i] += 1
    return base


def timeline(ex: Explanation, width: int = WIDTH) -> str:
    """Text Gantt chart: rows per thread/device/network direction, grouped by host."""
    label_w = 24
    bar_w = width - label_w - 3
    total = max(1, ex.latency_ns)
    per = total / bar_w

    def col(t: int) -> int:
        return min(bar_w - 1, max(0, int(t / per)))

    crit = {(s.resource, s.start, s.end) for s in ex.steps}
    rows: dict[str, list[str]] = {}
    order: dict[str, list[str]] = {}
    for sp in sorted(ex.spans, key=lambda x: (x[2], x[3])):
        name = row_name(sp[0])
        host = ex.host_of.get(sp[0], "")
        if name not in rows:
            rows[name] = [" "] * bar_w
            order.setdefault(host, []).append(name)
        cells = rows[name]
        on = (sp[0], sp[2], sp[4]) in crit
        kind = sp[1]
        ch = {"cpu": "#", "net": "~", "write": "W", "flush": "F", "read": "R", "wait": "."}[kind]
        if not on:
            ch = {"#": "+", "~": "-", "W": "w", "F": "f", "R": "r", ".": " "}[ch]
        if on and sp[3] > sp[2]:  # queued before it started
            for c in range(col(sp[2]), col(sp[3])):
                if cells[c] == " ":
                    cells[c] = "."
        a, b = col(sp[3]), max(col(sp[3]) + 1, col(sp[4]))
        if kind == "wait":
            a, b = col(sp[2]), max(col(sp[2]), col(sp[4]))
        for c in range(a, min(b, bar_w)):
            if on or cells[c] in " .":
                cells[c] = ch
    for s in ex.steps:  # gaps (PG lock) drawn on the row of the step that waited
        if s.kind == "wait" and s.resource == "(wait)":
            nxt = ex.steps[ex.steps.index(s) + 1] if s is not ex.steps[-1] else None
            if nxt is not None:
                name = row_name(nxt.resource)
                if name in rows:
                    for c in range(col(s.start), col(s.end)):
                        if rows[name][c] == " ":
                            rows[name][c] = "."
    out = io.StringIO()
    # ruler
    step_us = _nice_step(total / 1e3 / 6)
    ruler = [" "] * bar_w
    ticks = [" "] * bar_w
    t_us = 0.0
    while t_us * 1e3 <= total:
        c = col(int(t_us * 1e3))
        lab = f"{t_us:g}"
        if c + len(lab) <= bar_w:
            ruler[c:c + len(lab)] = list(lab)
        ticks[c] = "|"
        t_us += step_us
    out.write(f"{'time since submission (us)':<{label_w}} " + "".join(ruler).rstrip() + "\n")
    out.write(" " * (label_w + 1) + "+" + "".join(ticks)[1:] + "+\n")
    for host, role in ex.groups:
        names = order.get(host, [])
        if not names:
            continue
        out.write(f"{host} ({role})"[:width] + "\n")
        for name in names:
            short = component_label(name)
            if host != "network" and not osd_of(name):  # under its host's title: no host
                short = short.removeprefix(f"{host}.")
            out.write(f"  {short[:label_w - 2]:<{label_w - 2}} |{''.join(rows[name])}|\n")
    out.write(f"{'':<{label_w}} one column = {per / 1e3:.1f} us\n")
    out.write("legend: on the critical path  # CPU  ~ network  W disk write  R disk read  "
              "F disk flush  . waiting\n        in parallel, not on it  + CPU  - network  "
              "w write  r read  f flush\n")
    return out.getvalue()


def _nice_step(x: float) -> float:
    if x <= 0:
        return 1.0
    e = 10 ** math.floor(math.log10(x))
    for m in (1, 2, 5, 10):
        if m * e >= x:
            return m * e
    return 10 * e


def steps_table(ex: Explanation) -> str:
    lines = [f"{'#':>3} {'at (us)':>8} {'takes':>8}  {'where':<22} what"]
    for i, s in enumerate(ex.steps, 1):
        where = component_label(s.resource)
        head = f"{i:>3} {s.start / 1e3:8.1f} {s.dur / 1e3:8.1f}  {where[:22]:<22} "
        wrapped = textwrap.wrap(s.what, WIDTH - len(head)) or [""]
        lines.append(head + wrapped[0])
        lines += [" " * len(head) + w for w in wrapped[1:]]
    total = sum(s.dur for s in ex.steps)
    lines.append(f"    {'':>8} {total / 1e3:8.1f}  = the op's latency ({total} ns; "
                 f"steps add up exactly: {total == ex.latency_ns})")
    return "\n".join(lines) + "\n"


def _us(ns: float) -> str:
    return f"{ns / 1e3:.1f} us"


def _software_lines(st: list[Step], net_ns: int, disk_ns: int, queues: str) -> list[str]:
    """The software part of the story and the total, the same for writes and reads."""
    cpu = sum(s.cats[1] for s in st)
    wake = sum(s.cats[2] for s in st)
    queue = sum(s.cats[4] for s in st)
    hand = sum(1 for s in st if s.kind == "cpu")
    return [
        f"  software: {_us(cpu)} of CPU work in {hand} thread steps, {_us(wake)} of C-state wake-ups,",
        f"            {_us(queue)} waiting in queues ({queues})",
        f"  together: {_us(net_ns + disk_ns + cpu + wake + queue)}, "
        f"the op's latency (network queueing counted as queueing)",
    ]


def story(ex: Explanation) -> str:
    """Why this op cost what it did: a write's two round trips, flushes and software; a
    read's one round trip, device read and software."""
    if not ex.is_write:
        return _read_story(ex)
    st = ex.steps
    net = [s for s in st if s.kind == "net"]
    rt1 = [s for s in net if "client" in _roles_of(ex, s)]
    rt2 = [s for s in net if s not in rt1]
    disk_w = sum(s.cats[3] for s in st if s.kind == "write")
    disk_f = sum(s.cats[3] for s in st if s.kind == "flush")
    nflush = sum(1 for s in st if s.kind == "flush")
    # a drive without a volatile cache (PLP; an HDD with its cache off) gets no FLUSH command
    real_flush = not nflush or any(s.kind == "flush" and flush_sent(s.resource, ex.cache_flushed)
                                   for s in st)
    replica = next((_net_ends(s.resource)[1] for s in rt2), None)
    replica = f"{replica} ({dict(ex.groups).get(replica, 'replica')})" if replica else None
    lines = [
        f"Why {_us(ex.latency_ns)}?  A replicated write is acknowledged only when every one of the "
        f"{ex.pool_size} copies",
        "is on stable storage. So the client sends the write to the primary OSD and waits for its "
        "reply",
        "(network round trip 1); the primary forwards it to the other replicas and waits for their",
        "replies (round trip 2, in parallel with its own commit); each copy commits through a disk",
        *(["write and a cache flush; and every step in between is software: a hand-off to another "
           "thread",
           "(a queue, perhaps a C-state wake-up) and CPU work at the core's "
           "clock."] if real_flush else
          ["write and an fdatasync (no volatile write cache, so no flush is sent); and",
           "every step in between is software: a hand-off to another thread (a queue, perhaps a",
           "C-state wake-up) and CPU work at the core's clock."]),
        "For this op, along its critical path:",
        f"  round trip 1, client <-> primary, on the wire: {_us(sum(s.cats[0] for s in rt1))}",
    ]
    if rt2:
        lines.append(f"  round trip 2, primary <-> {replica} (the last to answer), on the wire: "
                     f"{_us(sum(s.cats[0] for s in rt2))}")
    else:
        lines.append("  round trip 2: none on the critical path (pool size 1, or the local commit "
                     "was slower)")
    order = ("deferred: the 4 KiB ride in the RocksDB WAL" if ex.write_mode == "deferred"
             else "direct data write, then WAL")
    if ex.wal_log_sync:
        order += ", then BlueFS's log"
    syncs = (f"{nflush} flush{'es' * (nflush != 1)}" if real_flush else
             f"{nflush} fdatasync{'s' * (nflush != 1)} (no flush sent)")
    disk_line = f"  disk: {_us(disk_w)} writing + {_us(disk_f)} in {syncs} ({order})"
    if len(disk_line) > 100:  # the report stays within 100 columns
        disk_line = f"  disk: {_us(disk_w)} writing + {_us(disk_f)} in {syncs}\n        ({order})"
    lines.append(disk_line)
    lines += _software_lines(st, sum(s.cats[0] for s in net), disk_w + disk_f,
                             "busy threads, the PG lock, kv_sync batches")
    return "\n".join(lines) + "\n"


def _read_story(ex: Explanation) -> str:
    st = ex.steps
    net = sum(s.cats[0] for s in st if s.kind == "net")
    disk = sum(s.cats[3] for s in st)
    nread = sum(1 for s in st if s.kind == "read")
    h = ex.read_cache_hit
    cache = ("The cache is cold (workload.read_cache), so every read goes to the device."
             if h <= 0 else "The cache is warm and holds all the data: no read goes to the device."
             if h >= 1 else f"The cache is warm and holds {100 * h:.0f} % of the data: that share "
             "of reads skips the device.")
    lines = [
        f"Why {_us(ex.latency_ns)}?  A read is served by the primary OSD alone (the replicas are not",
        "asked): the client sends the request to the primary and waits for the data (one network",
        "round trip); the primary reads the object's extents through BlueStore, from its buffer",
        "cache or with one device read; and every step in between is software: a hand-off to",
        "another thread (a queue, perhaps a C-state wake-up) and CPU work at the core's clock.",
        cache,
        "For this op, along its critical path:",
        f"  round trip, client <-> primary, on the wire: {_us(net)}",
        f"  disk: {_us(disk)} in {nread} device read{'s' * (nread != 1)}"
        + (" (served from BlueStore's buffer cache)" if nread == 0 else ""),
    ]
    lines += _software_lines(st, net, disk, "busy threads, the PG lock")
    return "\n".join(lines) + "\n"


def _roles_of(ex: Explanation, s: Step) -> str:
    """The roles of a network step's two ends, e.g. 'client primary'."""
    return " ".join(s.ends)


def attribution(ex: Explanation) -> str:
    op = ex.acc
    mean_parts = [x / ex.mean_n for x in ex.mean_acc_sum]
    mean_total = ex.mean_lat_sum / ex.mean_n
    r_op = _round_parts(op, ex.latency_ns)
    r_mean = _round_parts(mean_parts, mean_total)
    lines = [f"{'where the time went':<22} {'this op (us)':>14} {'%':>6}   "
             f"{'mean of ' + str(ex.mean_n) + ' ops (us)':>22} {'%':>6}"]
    for i, c in enumerate(CATEGORIES):
        lines.append(f"  {CAT_LABEL[c]:<20} {r_op[i] / 10:>14.1f} {100 * op[i] / ex.latency_ns:>6.1f}   "
                     f"{r_mean[i] / 10:>22.1f} {100 * mean_parts[i] / mean_total:>6.1f}")
    lines.append(f"  {'total = latency':<20} {sum(r_op) / 10:>14.1f} {100.0:>6.1f}   "
                 f"{sum(r_mean) / 10:>22.1f} {100.0:>6.1f}")
    ok = sum(op) == ex.latency_ns and sum(ex.mean_acc_sum) == ex.mean_lat_sum
    lines.append(f"  (exact in ns: op {sum(op)} = {ex.latency_ns}; all ops {sum(ex.mean_acc_sum)} = "
                 f"{ex.mean_lat_sum}: {ok})")
    return "\n".join(lines) + "\n"


def ablation_text(ex: Explanation) -> str:
    base = ex.baseline_mean_us
    lines = [f"{'what if (one change, same seed ' + str(ex.seed) + ')':<44} {'mean (us)':>10} "
             f"{'change':>10} {'%':>7}  {'p99 (us)':>9}",
             f"  {'the scenario as it is':<42} {base:>10.1f} {'':>10} {'':>7}  "
             f"{ex.baseline_p99_us:>9.1f}"]
    for row in ex.ablation:
        if "error" in row:
            lines.append(f"  {row['variant']:<42} n/a: {row['error']}"[:WIDTH])
            continue
        m = row["mean_us"]
        lines.append(f"  {row['variant']:<42} {m:>10.1f} {m - base:>+10.1f} "
                     f"{100 * (m - base) / base:>+6.1f}%  {row['p99_us']:>9.1f}")
    lines.append("  each row is a full simulation of the same scenario with one change "
                 "(common random")
    lines.append("  numbers); change = row - as is, % of as is")
    return "\n".join(lines) + "\n"


def render(ex: Explanation) -> str:
    head = (f"cephsim explain: {ex.scenario} (seed {ex.seed})\n"
            f"{ex.rank[0].upper() + ex.rank[1:]}: op {ex.seq}, latency {ex.latency_ns / 1e3:.1f} us\n")
    rule = "-" * WIDTH + "\n"
    if ex.assumptions is not None:
        head += rule + header_text(ex.assumptions, width=WIDTH)
    parts = [head, rule, "Timeline of the op, hop by hop and thread by thread:\n\n", timeline(ex),
             "\n", rule, "Its critical path, step by step (each step starts where the previous "
             "one ended):\n\n", steps_table(ex), "\n", rule, story(ex), "\n", rule,
             "Attribution (critical path; a mean over all measured ops on the right):\n\n",
             attribution(ex)]
    if ex.ablation:
        parts += ["\n", rule, "Ablations: what the mean latency would be with one change\n\n",
                  ablation_text(ex)]
    return "".join(parts)


# ------------------------------------------------------------------ data (the teaching page)


def timeline_rows(ex: Explanation) -> list[tuple[str, str, list[str]]]:
    """The timeline's rows grouped by host, as the text and the figures show them: (host,
    its roles, its rows in the order the op first reaches them); hosts without a row left
    out."""
    by_host: dict[str, list[str]] = {}
    seen: set[str] = set()
    for sp in sorted(ex.spans, key=lambda x: (x[2], x[3])):
        name = row_name(sp[0])
        if name not in seen:
            seen.add(name)
            by_host.setdefault(ex.host_of.get(sp[0], ""), []).append(name)
    return [(h, role, by_host[h]) for h, role in ex.groups if by_host.get(h)]


def _lanes(ex: Explanation) -> list[dict[str, str]]:
    """The sequence diagram's lanes: the client, then each OSD of the op by its role."""
    host_of_osd = {osd_of(res): h for res, h in ex.host_of.items() if osd_of(res)}
    client_host = next((h for h, role in ex.groups if role.startswith("client")), "client")
    lanes = [{"id": "client", "host": client_host, "osd": ""}]
    lanes += [{"id": role, "host": host_of_osd.get(osd, ""), "osd": osd_name(osd)}
              for osd, role in ex.roles.items()]
    return lanes


def _step_lanes(ex: Explanation) -> list[tuple[str, str]]:
    """Each step's lane and, for a message, the lane it goes to."""
    own = [role_for(s.resource, ex.roles) for s in ex.steps]
    out = []
    for j, s in enumerate(ex.steps):
        if s.kind == "net":
            a, b = s.ends
            out.append((a or "client", b or "client"))
        elif s.resource == "(wait)":  # waited for by the step after it
            k = next((k for k in range(j + 1, len(own)) if own[k]), None)
            lane = own[k] if k is not None else next((x for x in reversed(own[:j]) if x),
                                                     "client")
            out.append((lane, ""))
        else:
            out.append((own[j], ""))
    return out


def latency_summary(lat_ns: Any, bins: int = 48, points: int = 201) -> dict[str, Any]:
    """A run's latency distribution, small enough to embed: fio's percentiles (its
    histogram's, as ``run`` reports them), the CDF at ``points`` quantiles and a histogram
    (logarithmic bins when the slowest op takes :data:`~cephsim.tools.stats.TAIL_SPAN`
    times the fastest or more, as the latency plot)."""
    lat = np.sort(np.asarray(lat_ns, dtype=np.int64))
    if lat.size == 0:
        return {"n": 0}
    pct = FioHistogram.from_samples(lat).percentiles(DEFAULT_PERCENTILES)
    q = np.linspace(0.0, 1.0, points)
    cdf = np.quantile(lat, q, method="inverted_cdf")
    lo, hi = int(lat[0]), int(lat[-1])
    log = lo > 0 and hi / lo >= TAIL_SPAN
    edges = (np.geomspace(lo, hi, bins + 1) if log else np.linspace(lo, max(hi, lo + 1),
                                                                    bins + 1))
    counts, _ = np.histogram(lat, bins=edges)
    return {"n": int(lat.size), "mean_ns": float(lat.mean()), "min_ns": lo, "max_ns": hi,
            "percentiles_ns": {f"{p:g}": int(v) for p, v in pct.items()},
            "cdf_ns": [int(x) for x in cdf], "cdf_q": [float(x) for x in q],
            "hist": {"log": bool(log), "edges_ns": [float(x) for x in edges],
                     "counts": [int(x) for x in counts]}}


def explanation_data(ex: Explanation) -> dict[str, Any]:
    """The explanation as plain data (JSON-ready), what the teaching page renders: the
    critical path's steps with their labels (:mod:`cephsim.model.steps`), every span, the
    lanes and rows, the attribution, the op-tracker intervals, the run's latency
    distribution and the ablations (each with its own op when traced)."""
    fields = label_fields(ex.bs, ex.is_write, ex.engine)
    rows = timeline_rows(ex)
    row_index = {n: k for k, n in enumerate(n for _, _, names in rows for n in names)}
    row_list = [{"host": h, "role": role, "rows": [component_label(n) for n in names]}
                for h, role, names in rows]
    crit = {(s.resource, s.start, s.end): i for i, s in enumerate(ex.steps)}
    lanes = _step_lanes(ex)
    steps = []
    for i, s in enumerate(ex.steps):
        label = STEPS[s.step]
        steps.append({
            "n": i + 1, "where": "" if s.resource == "(wait)" else component_label(s.resource),
            "host": s.host, "lane": lanes[i][0], "to": lanes[i][1], "kind": s.kind,
            "start_ns": s.start, "dur_ns": s.dur, "cats_ns": dict(zip(CATEGORIES, s.cats)),
            "what": s.what, "actor": label.actor, "thread": label.thread,
            "follows": label.follows})
    spans = []
    for sp in ex.spans:
        name = row_name(sp[0])
        label = STEPS[sp[6]]
        dev = "DB device" if _thread(sp[0]) == "db" else "disk"
        try:
            action = label.action.format(dev=dev, **fields)
        except (KeyError, IndexError):  # pragma: no cover - every label names known fields
            action = label.action
        spans.append({"row": row_index.get(name, 0), "kind": sp[1], "arrive_ns": sp[2],
                      "start_ns": sp[3], "end_ns": sp[4],
                      "step": crit.get((sp[0], sp[2], sp[4]), -1),
                      "what": f"{label.thread}: {action}" if label.thread and sp[1] == "cpu"
                      else action, "follows": label.follows})
    n = max(ex.mean_n, 1)
    out: dict[str, Any] = {
        "scenario": ex.scenario, "path": ex.path, "seed": ex.seed, "which": ex.which,
        "rank": ex.rank, "seq": ex.seq, "is_write": ex.is_write, "pool_size": ex.pool_size,
        "erasure": any(r.startswith("shard") for r in ex.roles.values()),
        "latency_ns": ex.latency_ns, "lanes": _lanes(ex), "rows": row_list, "steps": steps,
        "spans": spans,
        "attribution": {"categories": [{"id": c, "label": CAT_LABEL[c]} for c in CATEGORIES],
                        "op_ns": dict(zip(CATEGORIES, ex.acc)),
                        "mean_ns": {c: x / n for c, x in zip(CATEGORIES, ex.mean_acc_sum)},
                        "mean_latency_ns": ex.mean_lat_sum / n, "ops": ex.mean_n},
        "op_tracker": {"op_ns": ex.tracker_op, "mean_ns": ex.tracker_mean},
        "mean_us": ex.figures.get("mean_us", ex.baseline_mean_us),
        "p99_us": ex.figures.get("p99_us", ex.baseline_p99_us),
        "latency": latency_summary(ex.latencies_ns if ex.latencies_ns is not None else []),
        "story": story(ex),
        "ablations": [{k: v for k, v in row.items()} for row in ex.ablation],
    }
    if ex.assumptions is not None:
        out["assumptions"] = header_text(ex.assumptions, width=WIDTH)
    return out
