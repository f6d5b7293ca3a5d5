"""Monitor Paxos: ``src/mon/Paxos.cc``.  Mixed into ``Monitor``.

The full account: docs/model.md, "Inside the model", `cephsim.monitors.paxos`.
"""

from __future__ import annotations

from .connection import Timer

SMALL = 300


class PaxosMixin:
    # state from Monitor.__init__: pstate, last_committed, uncommitted, accepted_pn,
    # lease_expire, p_timers{}, new_value, accepted, num_last, last_commit_time, ...

    def _ptimer(self, name: str, delay_ns: int, fn) -> None:
        old = self.p_timers.get(name)
        if old:
            old.cancel()
        self.p_timers[name] = Timer(self.env, delay_ns, fn)

    def _pcancel(self, name: str) -> None:
        t = self.p_timers.pop(name, None)
        if t:
            t.cancel()

    def cancel_events(self) -> None:
        for t in self.p_timers.values():
            t.cancel()
        self.p_timers.clear()

    def _paxos_send(self, to: str, op: str, size: int = SMALL, **kw) -> None:
        self.send(to, {"t": "paxos", "op": op, "pn": self.accepted_pn,
                       "lc": self.last_committed, **kw}, size)

    @property
    def _t(self):
        return self.cluster.spec.timers

    # -- roles ----------------------------------------------------------------------------
    def paxos_restart(self) -> None:
        self.cancel_events()
        self.pstate = "recovering"
        self.cluster.requeue_inflight(self)

    def leader_init(self) -> None:
        self.cancel_events()
        self.cluster.requeue_inflight(self)
        self.lease_expire = 0
        if len(self.quorum) == 1:
            self.pstate = "active"
            self._finish_round()
            return
        self.pstate = "recovering"
        self.accepted_pn = self.cluster.next_pn()
        self.num_last = {self.rank}
        self.recovery_value = self.uncommitted
        for r in self.quorum:
            if r != self.rank:
                self._paxos_send(self.cluster.names[r], "collect")
        t = int(self._t.mon_accept_timeout_factor * self._t.mon_lease)
        self._ptimer("collect", t, lambda: self._paxos_timeout(
            "collect", "collect timeout: not every peon answered COLLECT with LAST"))

    def peon_init(self) -> None:
        self.cancel_events()
        self.pstate = "recovering"
        self.lease_expire = 0
        self._reset_lease_timeout()

    def _paxos_timeout(self, what: str, why: str) -> None:
        opt = {"collect": "mon_accept_timeout_factor", "accept": "mon_accept_timeout_factor",
               "lease_ack": "mon_lease_ack_timeout_factor",
               "lease": "mon_lease_ack_timeout_factor"}[what]
        budget = (self._t.mon_accept_timeout_factor if opt == "mon_accept_timeout_factor"
                  else self._t.mon_lease_ack_timeout_factor) * self._t.mon_lease / 1e9
        self.cluster.rec.trip(opt, f"{opt} × mon_lease ({budget:g} s) on {self.name}: {why}")
        self.p_timers.pop(what, None)
        self.bootstrap()

    def _reset_lease_timeout(self) -> None:
        t = int(self._t.mon_lease_ack_timeout_factor * self._t.mon_lease)
        self._ptimer("lease", t, lambda: self._paxos_timeout("lease", self._lease_timeout_why()))

    def _lease_timeout_why(self) -> str:
        if self.pstate == "updating":
            return ("peon lease timeout: a Paxos update (BEGIN -> ACCEPT -> commit -> COMMIT, "
                    "which carries the value again, with the next LEASE queued behind it) kept "
                    "this peon without a LEASE since the last one")
        if self.pstate == "recovering":
            return "peon lease timeout: no LEASE after the election (collect/recovery too slow)"
        return "peon lease timeout: no LEASE from the leader"

    # -- dispatch ---------------------------------------------------------------------------
    def handle_paxos(self, src: str, m: dict) -> None:
        if self.state not in ("leader", "peon"):
            return  # "election in progress, dropping"
        if self.state == "peon" and self.cluster.rank_of[src] != self.leader:
            return
        getattr(self, "_h_" + m["op"])(src, m)

    def _h_collect(self, src: str, m: dict) -> None:
        if m["pn"] < self.accepted_pn:
            return
        self.accepted_pn = m["pn"]
        # Paxos::handle_collect: the uncommitted value is offered only if the leader is not
        # ahead of us (collect->last_committed <= last_committed)
        unc = (self.uncommitted if self.uncommitted and m["lc"] <= self.last_committed
               and self.uncommitted[0] == self.last_committed + 1 else None)
        extra = self.cluster.value_bytes(m["lc"] + 1, self.last_committed)
        size = SMALL + extra + (unc[1] if unc else 0)
        self._paxos_send(src, "last", size, unc=unc)

    def _h_last(self, src: str, m: dict) -> None:
        if self.pstate != "recovering" or m["pn"] != self.accepted_pn:
            return
        frm = self.cluster.rank_of[src]
        if m["lc"] > self.last_committed:
            self.last_committed = m["lc"]  # learn committed values from the peon
            self.uncommitted = None
        elif m["lc"] < self.last_committed:
            extra = self.cluster.value_bytes(m["lc"] + 1, self.last_committed)
            self._paxos_send(src, "commit", SMALL + extra)  # share_state
        unc = m.get("unc")
        if unc and unc[0] == self.last_committed + 1:
            self.recovery_value = unc
        self.num_last.add(frm)
        if self.num_last == self.quorum:
            self._pcancel("collect")
            rv = self.recovery_value
            if rv and rv[0] == self.last_committed + 1:
                self.cluster.rec.count("recovery_reproposals")
                self._begin(rv[1], [])
            else:
                self.uncommitted = None
                self.pstate = "active"
                self.extend_lease()
                self._finish_round()

    # -- normal rounds --------------------------------------------------------------------
    def maybe_propose(self) -> None:
        if self.state != "leader" or self.pstate != "active" or self.propose_timer:
            return
        if not self.cluster.has_pending():
            return
        now = self.env.now
        at = max(now + self._t.paxos_min_wait, self.last_commit_time + self._t.paxos_propose_interval)

        def fire() -> None:
            self.propose_timer = None
            if self.state == "leader" and self.pstate == "active" and self.cluster.has_pending():
                self.cancel_events()
                size, writes = self.cluster.take_pending(self)
                self._begin(size, writes)
        self.propose_timer = Timer(self.env, at - now, fire)

    def _begin(self, size: int, writes: list) -> None:
        self.pstate = "updating"
        v = self.last_committed + 1
        self.uncommitted = (v, size)
        self.new_value = (v, size, writes)
        self.accepted = {self.rank}
        self.cluster.rec.proposal(size)
        if len(self.quorum) == 1:
            self._commit_start()
            return
        epoch = self.epoch

        def send_begin() -> None:  # leader stores the value before sending BEGIN
            if self.state != "leader" or self.epoch != epoch or self.pstate != "updating":
                return
            for r in self.quorum:
                if r != self.rank:
                    self._paxos_send(self.cluster.names[r], "begin", SMALL + size, v=v, vsize=size)
            t = int(self._t.mon_accept_timeout_factor * self._t.mon_lease)
            self._ptimer("accept", t, lambda: self._paxos_timeout(
                "accept", f"BEGIN of a {size / 1000:.0f} kB value not ACCEPTed by every peon "
                f"(transfer from the initial TCP window takes "
                f"{self.cluster.rounds_for(size)} round trips)"))
        Timer(self.env, self._t.store_sync_latency, send_begin)

    def _h_begin(self, src: str, m: dict) -> None:
        if m["pn"] < self.accepted_pn:
            return
        self.pstate = "updating"
        self.lease_expire = 0
        self.uncommitted = (m["v"], m["vsize"])
        epoch = self.epoch
        Timer(self.env, self._t.store_sync_latency,
              lambda: self.state == "peon" and self.epoch == epoch and self._paxos_send(src,
                      "accept"))

    def _h_accept(self, src: str, m: dict) -> None:
        if m["pn"] != self.accepted_pn or self.pstate != "updating":
            return
        self.accepted.add(self.cluster.rank_of[src])
        if self.accepted == self.quorum:
            self._pcancel("accept")
            self._commit_start()

    def _commit_start(self) -> None:
        self.pstate = "writing"
        epoch = self.epoch
        Timer(self.env, self._t.store_sync_latency,
              lambda: self.state == "leader" and self.epoch == epoch and self._commit_finish())

    def _commit_finish(self) -> None:
        v, size, writes = self.new_value
        self.last_committed = v
        self.uncommitted = None
        self.cluster.committed(v, size, writes, self)
        for r in self.quorum:
            if r != self.rank:
                self._paxos_send(self.cluster.names[r], "commit", SMALL + size)
        self.new_value = None
        self.last_commit_time = self.env.now
        self.pstate = "active"
        if len(self.quorum) > 1:
            self.extend_lease()
        self._finish_round()

    def _finish_round(self) -> None:
        self.pstate = "active"
        self.kick_readers()
        self.maybe_propose()

    def _h_commit(self, src: str, m: dict) -> None:
        self.last_committed = max(self.last_committed, m["lc"])
        if self.uncommitted and self.uncommitted[0] <= self.last_committed:
            self.uncommitted = None

    # -- leases -----------------------------------------------------------------------------
    def extend_lease(self) -> None:
        now = self.env.now
        self.lease_expire = now + self._t.mon_lease
        self.acked_lease = {self.rank}
        for r in self.quorum:
            if r != self.rank:
                self._paxos_send(self.cluster.names[r], "lease", expire=self.lease_expire)
        if "lease_ack" not in self.p_timers:
            t = int(self._t.mon_lease_ack_timeout_factor * self._t.mon_lease)
            self._ptimer("lease_ack", t, lambda: self._paxos_timeout(
                "lease_ack", "not every peon acked the LEASE"))
        renew = int(self._t.mon_lease_renew_interval_factor * self._t.mon_lease)
        self._ptimer("renew", renew, self._lease_renew)
        self.kick_readers()

    def _lease_renew(self) -> None:
        self.p_timers.pop("renew", None)
        if self.state == "leader":
            self.extend_lease()

    def _h_lease(self, src: str, m: dict) -> None:
        if self.state != "peon" or m["lc"] != self.last_committed:
            return
        self.lease_expire = max(self.lease_expire, m["expire"])
        self.pstate = "active"
        self._paxos_send(src, "lease_ack")
        self._reset_lease_timeout()
        self.kick_readers()

    def _h_lease_ack(self, src: str, m: dict) -> None:
        if "lease_ack" not in self.p_timers:
            return  # stray
        self.acked_lease.add(self.cluster.rank_of[src])
        if self.acked_lease == self.quorum:
            self._pcancel("lease_ack")

    def is_readable(self) -> bool:
        return (self.state in ("leader", "peon") and self.pstate in ("active", "updating", "writing")
                and self.last_committed > 0
                and (len(self.quorum) == 1 or self.env.now < self.lease_expire))
