"""Monitor elections: ``src/mon/Elector.cc`` + ``src/mon/ElectionLogic.cc``.

Time is integer nanoseconds.  Mixed into :class:`cephsim.monitors.model.Monitor`.

Modelled exactly: odd/even epochs (a restart after a timeout keeps the odd epoch, so late
ACKs of the previous PROPOSE still count; ``acked_me`` is cleared on restart), PROPOSE to
all peers with ``mon_election_timeout``; classic rank rule in ``propose_classic_handler``
(defer -> ACK + timer ``mon_election_timeout + 1 s``, re-armed on every PROPOSE from the
mon deferred to); "old" PROPOSE in a stable epoch from a non-member triggers an election;
victory when every mon ACKed, or on timer expiry with a majority; VICTORY accepted only if
its epoch is own epoch + 1; ``end_election_period`` restarts the election (or bootstraps a
mon that never participated).

Connectivity strategy (simplified): every mon pings its peers every
``mon_elector_ping_timeout / divisor`` and considers a peer dead when its last PING_REPLY is
older than ``mon_elector_ping_timeout``.  Candidate order is rank among mons this mon
considers alive (the 12 h score half-life makes score differences negligible within one
simulated hour, so liveness is what matters), and a VICTORY from a mon it considers dead is
rejected with a new election (``receive_victory_claim`` / ``victory_makes_sense``).
"""

from __future__ import annotations

from .connection import Timer

SMALL_MSG = 300


class ElectorMixin:
    # state initialised in Monitor.__init__: epoch, electing_me, acked_me, leader_acked,
    # election_timer, ever_participated, ping_reply_at

    # -- helpers --------------------------------------------------------------------------
    def _elect_send(self, to: str, op: str, **kw) -> None:
        self.send(to, {"t": "elect", "op": op, "epoch": self.epoch, **kw}, SMALL_MSG)

    def _peer_alive(self, peer: str) -> bool:
        t = self.ping_reply_at.get(peer)
        return t is not None and self.env.now - t <= self.cluster.spec.timers.mon_elector_ping_timeout

    def _wins_over(self, a: int, b: int) -> bool:
        """Would rank ``a`` win over rank ``b`` (from this mon's point of view)?"""
        if self.cluster.spec.election_strategy == "connectivity":
            names = self.cluster.names
            la = a == self.rank or self._peer_alive(names[a])
            lb = b == self.rank or self._peer_alive(names[b])
            if la != lb:
                return la
        return a < b

    def _reset_election_timer(self, plus_ns: int = 0) -> None:
        if self.election_timer:
            self.election_timer.cancel()
        t = self.cluster.spec.timers.mon_election_timeout + plus_ns
        self.election_timer = Timer(self.env, t, self._end_election_period)

    def bump_epoch(self, e: int) -> None:
        if e > self.epoch:
            self.epoch = e
            self.cluster.rec.note_epoch(e)
            if self.state in ("leader", "peon", "probing") or self.state == "electing":
                self.join_election()  # Monitor::join_election -> _reset, ELECTING
            self.electing_me = False
            self.acked_me = set()
            self.leader_acked = -1

    # -- ElectionLogic ------------------------------------------------------------------
    def election_start(self) -> None:
        if self.epoch % 2 == 0:
            self.epoch += 1
            self.cluster.rec.note_epoch(self.epoch)
        self.acked_me = {self.rank}
        self.electing_me = True
        self.leader_acked = -1
        for p in self.peers:
            self._elect_send(p, "propose")
        self._reset_election_timer()

    def _end_election_period(self) -> None:
        self.election_timer = None
        n = len(self.cluster.names)
        if self.electing_me and len(self.acked_me) > n // 2:
            self._declare_victory()
            return
        self.cluster.rec.trip("mon_election_timeout",
                              f"{self.name}: no victory within mon_election_timeout "
                              f"({self.cluster.spec.timers.mon_election_timeout / 1e9:g} s"
                              f"{' + 1 s after deferring' if not self.electing_me else ''})")
        if self.ever_participated:
            self.election_start()
        else:
            self.bootstrap()

    def _declare_victory(self) -> None:
        self.epoch += 1
        self.cluster.rec.note_epoch(self.epoch)
        if self.election_timer:
            self.election_timer.cancel()
            self.election_timer = None
        quorum = set(self.acked_me)
        self.electing_me = False
        self.leader_acked = -1
        for r in quorum:
            if r != self.rank:
                self._elect_send(self.cluster.names[r], "victory", quorum=sorted(quorum))
        self.win_election(quorum)

    def _defer(self, frm: int) -> None:
        self.leader_acked = frm
        self.electing_me = False
        self._elect_send(self.cluster.names[frm], "ack")
        self._reset_election_timer(plus_ns=1_000_000_000)

    def handle_election(self, src: str, m: dict) -> None:
        if self.state == "down":
            return
        frm = self.cluster.rank_of[src]
        op, e = m["op"], m["epoch"]
        if op == "propose":
            if e > self.epoch:
                self.bump_epoch(e)
            elif e < self.epoch:
                if self.epoch % 2 == 0 and frm not in self.quorum:
                    self.start_election()
                return
            if self._wins_over(self.rank, frm):
                if self.leader_acked >= 0:
                    return
                if not self.electing_me:
                    self.start_election()
            elif (self.leader_acked < 0 or self.leader_acked == frm
                  or self._wins_over(frm, self.leader_acked)):
                if self.state != "electing":
                    self.join_election()
                self._defer(frm)
        elif op == "ack":
            if e > self.epoch:
                self.bump_epoch(e)
                self.start_election()
                return
            if e < self.epoch or not self.electing_me:
                return
            self.acked_me.add(frm)
            if len(self.acked_me) == len(self.cluster.names):
                self._declare_victory()
        elif op == "victory":
            self.leader_acked = -1
            if e != self.epoch + 1:
                self.bump_epoch(e)
                self.start_election()
                return
            if (self.cluster.spec.election_strategy == "connectivity"
                    and not self._peer_alive(src)):
                self.cluster.rec.trip("mon_elector_ping_timeout",
                                      f"{self.name} rejects the victory of {src}: no ping reply "
                                      "within mon_elector_ping_timeout")
                self.epoch = e
                self.start_election()
                return
            self.epoch = e
            self.cluster.rec.note_epoch(e)
            if self.election_timer:
                self.election_timer.cancel()
                self.election_timer = None
            self.lose_election(set(m["quorum"]), frm)

    # -- connectivity pings (MMonPing) ----------------------------------------------------
    def ping_tick(self) -> None:
        if self.state == "down":
            return
        for p in self.peers:
            self.send(p, {"t": "ping", "op": "ping"}, SMALL_MSG)
        t = self.cluster.spec.timers
        Timer(self.env, t.mon_elector_ping_timeout // t.mon_elector_ping_divisor, self.ping_tick)

    def handle_ping(self, src: str, m: dict) -> None:
        if m["op"] == "ping":
            self.send(src, {"t": "ping", "op": "reply"}, SMALL_MSG)
        else:
            self.ping_reply_at[src] = self.env.now
