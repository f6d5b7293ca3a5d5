"""Clients of the monitors: ``src/mon/MonClient.cc`` hunting + the three seed-004 commands.

Time is integer nanoseconds.

* Hunting (``_reopen_session``): open connections to ``mon_client_hunt_parallel`` mons at
  once; the first AUTH_DONE ends hunting (``_finish_hunting``) and the other pending
  connections are marked down.  Every ``mon_client_hunt_interval`` without AUTH_DONE the
  pending connections are dropped and re-opened (a fresh process keeps the 3 s interval;
  no backoff).  The mon answers the cephx exchange only when it can authenticate (in
  quorum, readable) -- see :mod:`.connection`.
* ``health``: fresh ``ceph`` process: hunt, authenticate, get monmap/config (a read),
  ``health`` (a read on that mon, waiting for a valid lease).
* ``auth_get_or_create``: same session, then a Paxos write: forwarded by a peon to the
  leader, answered after the commit (re-queued, as Ceph resends routed requests, if an
  election intervenes).
* ``rbd_map``: librados session (hunt, monmap/config, OSDMap read) then the kernel
  libceph session (hunt, OSDMap) under ``kernel_mount_timeout``.
* A mon that drops the session (out of quorum > 2 × mon_lease) makes the client re-hunt
  and re-send.

Simplified: requests are single messages; replies route back through the mon the client
talks to; image header reads on OSDs are not modelled (no mon involvement).
"""

from __future__ import annotations

import simpy

from .connection import Timer

SMALL = 300


class Client:
    def __init__(self, cluster, name: str):
        self.cluster, self.env, self.name = cluster, cluster.env, name
        self.reset_ev: simpy.Event = self.env.event()
        self.replies: dict[int, simpy.Event] = {}
        self.auth_ev: simpy.Event | None = None
        self.auth_mon: str | None = None
        cluster.msgr.register(name, self.handle, lossy=True)

    def handle(self, src: str, m: dict) -> None:
        ev = self.replies.pop(m.get("id"), None)
        if ev is not None and not ev.triggered:
            ev.succeed(src)

    def session_reset(self, mon: str) -> None:
        if not self.reset_ev.triggered:
            self.reset_ev.succeed(mon)

    def hunt(self, deadline: int):
        """Generator: returns the mon name of the new session, or None at the deadline."""
        c, t = self.cluster, self.cluster.spec.timers
        while self.env.now < deadline:
            self.auth_ev = self.env.event()
            k = min(t.mon_client_hunt_parallel, len(c.names))
            idx = c.rng.choice(len(c.names), size=k, replace=False)
            tried = [c.names[i] for i in idx]
            for m in tried:
                c.msgr.mark_down(self.name, m)
                c.msgr.connect(self.name, m, on_auth_done=(lambda m=m: self._auth_done(m)))
            wait = min(t.mon_client_hunt_interval, deadline - self.env.now)
            res = yield self.auth_ev | self.env.timeout(max(0, wait))
            if self.auth_ev in res:
                mon = self.auth_ev.value
                for m in tried:
                    if m != mon:
                        c.msgr.mark_down(self.name, m)
                self.reset_ev = self.env.event()
                c.mons[mon].sessions.add(self)
                return mon
            for m in tried:
                c.msgr.mark_down(self.name, m)
            c.rec.trip("mon_client_hunt_interval", f"{self.name}: no AUTH_DONE within "
                       f"mon_client_hunt_interval ({t.mon_client_hunt_interval / 1e9:g} s)",
                       hard=False)
        return None

    def _auth_done(self, mon: str) -> None:
        if self.auth_ev is not None and not self.auth_ev.triggered:
            self.auth_ev.succeed(mon)

    def request(self, kind: str, size: int, deadline: int):
        """Generator: one mon request with re-hunting; True on reply, False at the deadline."""
        c = self.cluster
        while self.env.now < deadline:
            mon = yield from self.hunt(deadline)
            if mon is None:
                return False
            while True:
                rid = c.next_pn()
                ev = self.env.event()
                self.replies[rid] = ev
                c.msgr.send(self.name, mon, {"t": "creq", "kind": kind, "size": size, "id": rid,
                                             "client": self.name}, SMALL)
                res = yield ev | self.reset_ev | self.env.timeout(max(0, deadline - self.env.now))
                if ev in res:
                    return True
                self.replies.pop(rid, None)
                if self.reset_ev in res:
                    break  # re-hunt and resend
                return False
        return False


def handle_at_mon(cluster, mon, src: str, m: dict) -> None:
    kind = m["kind"]
    if kind == "read":
        def serve() -> None:
            ev = mon.wait_readable()
            if ev is None:
                mon.send(src, {"t": "creply", "id": m["id"]}, SMALL + m["size"])
            else:
                ev.callbacks.append(lambda _e: serve())
        serve()
    elif kind == "write":
        if mon.state == "leader":
            cluster.add_write(m["size"], lambda: mon.send(src, {"t": "creply", "id": m["id"]}, SMALL))
        else:
            def forward() -> None:  # peon forwards to the leader (resent after elections)
                if mon.state == "peon":
                    leader = cluster.names[mon.leader]
                    mon.send(leader, {"t": "fwd", "kind": "fwdwrite", "inner": m, "via": mon.name}, SMALL + m[
                            "size"])
                else:
                    ev = mon.wait_readable()
                    if ev is None:
                        Timer(cluster.env, 100_000_000, forward)
                    else:
                        ev.callbacks.append(lambda _e: forward())
            forward()
    elif kind == "fwdwrite":
        inner, via = m["inner"], m["via"]
        client = inner["client"]
        if mon.state == "leader":
            cluster.add_write(inner["size"], lambda: mon.send(via, {"t": "fwd", "kind": "fwdreply",
                    "id": inner["id"], "client": client}, SMALL))
        else:  # lost leadership meanwhile: bounce back to the peon to resend
            mon.send(via, {"t": "fwd", "kind": "write", **{k: v for k, v in inner.items() if k !=
                    "kind"}}, SMALL)
    elif kind == "fwdreply":
        mon.send(m["client"], {"t": "creply", "id": m["id"]}, SMALL)


def _command(cluster, client: Client, cmd):
    env = cluster.env
    start = env.now
    deadline = start + cmd.timeout
    w = cluster.spec.workload
    ok = yield from client.request("read", 2000, deadline)  # monmap + config
    if ok and cmd.name == "health":
        ok = yield from client.request("read", 1000, deadline)
    elif ok and cmd.name == "auth_get_or_create":
        ok = yield from client.request("write", 500, deadline)
    elif ok and cmd.name == "rbd_map":
        osdmap = (w.osdmap_size_min + w.osdmap_size_max) // 2
        ok = yield from client.request("read", osdmap, deadline)
        if ok:  # kernel libceph session, mount_timeout
            kdeadline = min(deadline, env.now + cmd.kernel_mount_timeout)
            ok = yield from client.request("read", osdmap, kdeadline)
    for m in cluster.names:
        cluster.msgr.mark_down(client.name, m)
        cluster.mons[m].sessions.discard(client)
    cluster.rec.command(cmd.name, ok, env.now - start)


def _command_loop(cluster, client_name: str, cmd, idx: int):
    env = cluster.env
    yield env.timeout(cluster.spec.warmup + int(cluster.rng.uniform(0, cmd.period)))
    n = 0
    while env.now + cmd.timeout <= cluster.spec.duration or n == 0:
        c = Client(cluster, f"{client_name}.{cmd.name}.{n}")
        cluster.net.links.update({(c.name, m): cluster.net.link(client_name, m) for m in cluster.names})
        cluster.net.links.update({(m, c.name): cluster.net.link(m, client_name) for m in cluster.names})
        env.process(_command(cluster, c, cmd))
        n += 1
        yield env.timeout(cmd.period)


def start_clients(cluster) -> None:
    for cname in cluster.spec.clients:
        for i, cmd in enumerate(cluster.spec.commands):
            cluster.env.process(_command_loop(cluster, cname, cmd, i))
