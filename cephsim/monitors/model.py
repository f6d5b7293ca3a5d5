"""Monitor cluster as a SimPy discrete-event model of Ceph's ``src/mon`` code.

Time is **integer nanoseconds** (``env.now``).  All randomness comes from the
``numpy.random.Generator`` built from the ``seed`` argument (no global RNG).

Pieces and the Ceph mechanism each models:

* :class:`Monitor` -- ``src/mon/Monitor.cc``: ``bootstrap()`` / PROBING (probe every peer,
  ``mon_probe_timeout`` re-bootstraps, late replies still counted while probing, a reply
  from an in-quorum mon or a majority ``outside_quorum`` starts an election), ``_reset``
  (``exited_quorum``), ``win_election``/``lose_election``, ``tick`` every
  ``mon_tick_interval`` dropping client sessions after ``2 × mon_lease`` out of quorum,
  read requests served when Paxos is readable, writes forwarded from peons to the leader
  and answered after the commit.  Elections: :mod:`.elector`; Paxos: :mod:`.paxos`.
* :class:`Cluster` -- the Paxos services' pending changes (mgr digests replace each other,
  log batches and client writes add up, an OSDMap epoch), the proposal workload
  generator, and the measurement :class:`~cephsim.monitors.report.Recorder`.
* Connections: :mod:`.connection`; links and TCP: :mod:`.links`; clients: :mod:`.monclient`.

Simplified: no store sync (mons never fall behind by more than a few versions), no
monmap changes, no clock skew, CPU time of mon operations is zero.
"""

from __future__ import annotations

import math

import numpy as np
import simpy

from cephsim.spec.monitors import MonitorSpec

from .connection import Messenger, Timer
from .elector import ElectorMixin
from .links import MonNetwork, TcpParams
from .monclient import handle_at_mon, start_clients
from .paxos import PaxosMixin
from .report import MonitorReport, Recorder

SMALL = 300


class Monitor(ElectorMixin, PaxosMixin):
    def __init__(self, cluster: Cluster, name: str, rank: int):
        self.cluster, self.env, self.name, self.rank = cluster, cluster.env, name, rank
        self.peers = [n for n in cluster.names if n != name]
        self.state = "probing"
        self.quorum: set[int] = set()
        self.leader = -1
        self.outside_quorum: set[str] = set()
        self.probe_timer = None
        self.exited_quorum: int | None = 0
        self.sessions: set = set()
        self.readers: list[simpy.Event] = []
        # elector
        self.epoch = 0
        self.electing_me = False
        self.acked_me: set[int] = set()
        self.leader_acked = -1
        self.election_timer = None
        self.ever_participated = False
        self.ping_reply_at: dict[str, int] = {}
        # paxos
        self.pstate = "recovering"
        self.last_committed = 1
        self.uncommitted = None
        self.accepted_pn = 0
        self.lease_expire = 0
        self.p_timers: dict = {}
        self.new_value = None
        self.accepted: set[int] = set()
        self.acked_lease: set[int] = set()
        self.num_last: set[int] = set()
        self.recovery_value = None
        self.last_commit_time = -(10**18)
        self.propose_timer = None

    def send(self, to: str, msg: dict, size: int) -> None:
        self.cluster.msgr.send(self.name, to, msg, size)

    # -- Monitor state machine ---------------------------------------------------------------
    def _reset(self) -> None:
        if self.probe_timer:
            self.probe_timer.cancel()
            self.probe_timer = None
        if self.quorum:
            self.exited_quorum = self.env.now
        if self.state == "leader":
            self.cluster.leader_lost(self)
        self.quorum = set()
        self.outside_quorum = set()
        if self.propose_timer:
            self.propose_timer.cancel()
            self.propose_timer = None
        self.paxos_restart()

    def bootstrap(self) -> None:
        self.cluster.rec.count("bootstraps")
        if self.election_timer:
            self.election_timer.cancel()
            self.election_timer = None
        self._reset()
        self.state = "probing"
        for p in self.peers:
            self.send(p, {"t": "probe", "op": "probe"}, SMALL)
        t = self.cluster.spec.timers.mon_probe_timeout

        def probe_timeout() -> None:
            self.probe_timer = None
            self.cluster.rec.trip("mon_probe_timeout", f"{self.name}: no probe quorum within "
                                  f"mon_probe_timeout ({t / 1e9:g} s)", hard=False)
            self.bootstrap()
        self.probe_timer = Timer(self.env, t, probe_timeout)

    def start_election(self) -> None:
        self._reset()
        self.state = "electing"
        self.election_start()

    def join_election(self) -> None:
        self._reset()
        self.state = "electing"

    def win_election(self, quorum: set[int]) -> None:
        self.state, self.quorum, self.leader = "leader", set(quorum), self.rank
        self.exited_quorum = None
        self.ever_participated = True
        self.cluster.rec.victory(self.env.now)
        self.cluster.leader = self
        self.leader_init()

    def lose_election(self, quorum: set[int], leader: int) -> None:
        self._reset()
        self.state, self.quorum, self.leader = "peon", set(quorum), leader
        self.exited_quorum = None
        self.ever_participated = True
        self.peon_init()

    def handle(self, src: str, m: dict) -> None:
        t = m["t"]
        if t == "probe":
            self._handle_probe(src, m)
        elif t == "elect":
            self.handle_election(src, m)
        elif t == "paxos":
            self.handle_paxos(src, m)
        elif t == "ping":
            self.handle_ping(src, m)
        else:
            self.cluster.handle_client_msg(self, src, m)

    def _handle_probe(self, src: str, m: dict) -> None:
        if m["op"] == "probe":
            self.send(src, {"t": "probe", "op": "reply", "quorum": sorted(self.quorum)}, SMALL)
            return
        if self.state != "probing":
            return
        if m["quorum"]:
            if self.cluster.rank_of[self.name] not in m["quorum"]:
                self.start_election()  # "peer is in quorum, calling election"
            return
        self.outside_quorum.add(src)
        if len(self.outside_quorum) + 1 > len(self.cluster.names) // 2:
            self.start_election()

    def tick(self) -> None:
        t = self.cluster.spec.timers
        if (self.exited_quorum is not None and self.sessions
                and self.env.now > self.exited_quorum + 2 * t.mon_lease):
            self.cluster.rec.trip("mon_lease", f"{self.name} out of quorum longer than "
                                  f"2 × mon_lease ({2 * t.mon_lease / 1e9:g} s): client sessions "
                                  "dropped", hard=False)
            for s in list(self.sessions):
                s.session_reset(self.name)
            self.sessions.clear()
        Timer(self.env, t.mon_tick_interval, self.tick)

    # -- readers --------------------------------------------------------------------------
    def wait_readable(self) -> simpy.Event | None:
        if self.is_readable():
            return None
        ev = self.env.event()
        self.readers.append(ev)
        return ev

    def kick_readers(self) -> None:
        if self.readers and self.is_readable():
            rs, self.readers = self.readers, []
            for ev in rs:
                if not ev.triggered:
                    ev.succeed()


class Cluster:
    def __init__(self, spec: MonitorSpec, net: MonNetwork, seed: int):
        self.spec, self.net = spec, net
        self.env = simpy.Environment()
        self.rng = np.random.default_rng(seed)
        self.rec = Recorder(self.env, spec)
        t = spec.timers
        self.tcp = TcpParams(t.tcp_initial_window_segments, t.tcp_mss, t.tcp_min_rto)
        self.msgr = Messenger(self.env, net, self.tcp, self.rng,
                              handshake_round_trips=t.handshake_round_trips,
                              ready_timeout_ns=t.ms_connection_ready_timeout,
                              initial_backoff_ns=t.ms_initial_backoff,
                              max_backoff_ns=t.ms_max_backoff, on_trip=self.rec.trip)
        self.names = list(spec.mons)
        self.rank_of = {n: i for i, n in enumerate(self.names)}
        self.mons = {n: Monitor(self, n, i) for i, n in enumerate(self.names)}
        self.leader: Monitor | None = None
        self.pending: dict[str, int] = {}
        self.pending_writes: list = []
        self.inflight: dict[int, list] = {}
        self.values: dict[int, int] = {}
        self._pn = 0
        for n, mon in self.mons.items():
            self.msgr.register(n, mon.handle, auth_gate=mon.wait_readable)
        if spec.initial_connections == "established":
            for a in self.names:
                for b in self.names:
                    if a < b:
                        self.msgr.establish(a, b)

    # -- pending proposals -----------------------------------------------------------------
    def next_pn(self) -> int:
        self._pn += 1
        return self._pn

    def add_pending(self, service: str, size: int, replace: bool = False) -> None:
        self.pending[service] = size if replace else self.pending.get(service, 0) + size
        if self.leader is not None:
            self.leader.maybe_propose()

    def add_write(self, size: int, done) -> None:
        self.pending_writes.append((size, done))
        if self.leader is not None:
            self.leader.maybe_propose()

    def has_pending(self) -> bool:
        return bool(self.pending) or bool(self.pending_writes)

    def take_pending(self, mon: Monitor) -> tuple[int, list]:
        size = self.spec.workload.message_overhead + sum(self.pending.values())
        size += sum(s for s, _ in self.pending_writes)
        writes = self.pending_writes
        self.pending, self.pending_writes = {}, []
        self.inflight[id(mon)] = writes
        return size, writes

    def requeue_inflight(self, mon: Monitor) -> None:
        writes = self.inflight.pop(id(mon), None)
        if writes:
            self.pending_writes = writes + self.pending_writes

    def committed(self, v: int, size: int, writes: list, mon: Monitor) -> None:
        self.values[v] = size
        self.inflight.pop(id(mon), None)
        self.rec.count("commits")
        for _s, done in writes:
            done()

    def value_bytes(self, lo: int, hi: int) -> int:
        return sum(self.values.get(v, 0) for v in range(lo, hi + 1))

    def leader_lost(self, mon: Monitor) -> None:
        if self.leader is mon:
            self.leader = None

    def rounds_for(self, size: int) -> int:
        segs = math.ceil(size / self.tcp.mss_bytes)
        w, k, sent = self.tcp.initial_window_segments, 0, 0
        while sent < segs:
            sent, w, k = sent + w, w * 2, k + 1
        return k

    # -- workload ----------------------------------------------------------------------------
    def _workload(self):
        w = self.spec.workload
        nxt = {"mgr": w.mgr_digest_period, "log": w.log_period,
               "osd": int(self.rng.exponential(w.osdmap_mean_interval))}
        while True:
            key = min(nxt, key=nxt.get)
            yield self.env.timeout(max(0, nxt[key] - self.env.now))
            if key == "mgr":
                self.add_pending("mgrstat", w.mgr_digest_size, replace=True)
                nxt["mgr"] += w.mgr_digest_period
            elif key == "log":
                self.add_pending("logm", w.log_size)
                nxt["log"] += w.log_period
            else:
                lo, hi = math.log(w.osdmap_size_min), math.log(w.osdmap_size_max)
                size = int(math.exp(self.rng.uniform(lo, hi)))
                self.add_pending("osdmap", max(size, self.pending.get("osdmap", 0)), replace=True)
                nxt["osd"] += max(1, int(self.rng.exponential(w.osdmap_mean_interval)))

    def _faults(self):
        rate = self.spec.connection_fault_rate_per_hour
        pairs = [(a, b) for a in self.names for b in self.names if a < b]
        while True:
            yield self.env.timeout(int(self.rng.exponential(3600e9 / (rate * len(pairs)))))
            a, b = pairs[int(self.rng.integers(len(pairs)))]
            self.rec.count("connection_faults")
            self.msgr.fault(a, b)

    def handle_client_msg(self, mon: Monitor, src: str, m: dict) -> None:
        handle_at_mon(self, mon, src, m)

    # -- run ---------------------------------------------------------------------------------
    def run(self) -> MonitorReport:
        for i, mon in enumerate(self.mons.values()):
            Timer(self.env, int(self.rng.uniform(0, 1e6)), mon.bootstrap)
            Timer(self.env, int(self.rng.uniform(0, self.spec.timers.mon_tick_interval)), mon.tick)
            if self.spec.election_strategy == "connectivity":
                Timer(self.env, int(self.rng.uniform(0, 1e9)), mon.ping_tick)
        self.env.process(self._workload())
        if self.spec.connection_fault_rate_per_hour > 0:
            self.env.process(self._faults())
        self.env.process(self.rec.sampler(self))
        start_clients(self)
        self.env.run(until=self.spec.duration)
        return self.rec.report(self)


def simulate_monitors(spec: MonitorSpec, net: MonNetwork, seed: int) -> MonitorReport:
    """Run the monitor cluster of ``spec`` over ``net`` for ``spec.duration``; see report."""
    missing = [n for n in list(spec.mons) + list(spec.clients) if n not in net.nodes]
    if missing:
        raise ValueError(f"nodes missing from the MonNetwork: {missing}")
    return Cluster(spec, net, seed).run()
