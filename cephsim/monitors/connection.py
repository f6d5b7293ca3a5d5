"""Messenger model: msgr2 connection set-up, ``ms_connection_ready_timeout``, lossless peers.

Time is integer nanoseconds.

Models (``src/msg/async/ProtocolV2.cc``, ``AsyncConnection.cc``):

* A connection needs ``handshake_round_trips`` (6 for Quincy+ msgr2.1, 5 for N-P) small
  request/response exchanges before it is READY: TCP handshake, banner+HELLO,
  AUTH_REQUEST/AUTH_REPLY_MORE, AUTH_REQUEST_MORE/AUTH_DONE, COMPRESSION, IDENT.  Each
  exchange goes through the :class:`~cephsim.monitors.links.TcpStream` of its direction,
  so netem delay, jitter and loss (SYN loss -> 1 s initial RTO) all apply.
* ``AsyncConnection::tick``: the connecting side faults the connection if it is not READY
  within ``ms_connection_ready_timeout`` of starting; mon<->mon connections are
  *lossless peers* and reconnect with backoff ``ms_initial_backoff`` (0.2 s) doubling to
  ``ms_max_backoff`` (15 s), keeping their queued messages.  Client connections are lossy:
  a fault or ``mark_down`` drops them and whatever was queued (MonClient re-hunts).
* On a client connection the server can answer the cephx AUTH_REQUEST_MORE only when it is
  able to authenticate (``auth_gate``: the mon must be in quorum with a readable
  AuthMonitor); the client is told at AUTH_DONE (``on_auth_done``), which is what ends
  MonClient hunting, before READY.

Simplified: one connection per unordered node pair (msgr2 connection races are resolved
instantly), 200-byte handshake frames, no ms_connection_idle_timeout (900 s, never reached
with lease traffic).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import simpy

from .links import MonNetwork, TcpParams, TcpStream

HANDSHAKE_FRAME_BYTES = 200


class Timer:
    """A cancellable one-shot callback on the SimPy clock."""

    __slots__ = ("active", "when")

    def __init__(self, env: simpy.Environment, delay_ns: int, fn: Callable[[], None]):
        self.active = True
        self.when = env.now + int(delay_ns)
        ev = env.timeout(max(0, int(delay_ns)))
        ev.callbacks.append(lambda _e: self._fire(fn))

    def _fire(self, fn: Callable[[], None]) -> None:
        if self.active:
            self.active = False
            fn()

    def cancel(self) -> None:
        self.active = False


def call_at(env: simpy.Environment, when_ns: int, fn: Callable[[], None]) -> None:
    ev = env.timeout(max(0, int(when_ns) - env.now))
    ev.callbacks.append(lambda _e: fn())


@dataclass
class Conn:
    a: str
    b: str
    lossy: bool
    state: str = "down"  # down | connecting | ready
    attempt: int = 0
    queue: list = field(default_factory=list)
    backoff_ns: int = 0
    ready_since: int | None = None


class Messenger:
    """All connections of the simulated cluster, keyed by unordered node pair."""

    def __init__(self, env: simpy.Environment, net: MonNetwork, tcp: TcpParams,
                 rng: np.random.Generator, *, handshake_round_trips: int,
                 ready_timeout_ns: int, initial_backoff_ns: int, max_backoff_ns: int,
                 on_trip: Callable[[str, str], None]):
        self.env, self.net, self.tcp, self.rng = env, net, tcp, rng
        self.n_rt = handshake_round_trips
        self.ready_timeout_ns = ready_timeout_ns
        self.initial_backoff_ns, self.max_backoff_ns = initial_backoff_ns, max_backoff_ns
        self.on_trip = on_trip
        self.handlers: dict[str, Callable[[str, Any], None]] = {}
        self.auth_gate: dict[str, Callable[[], simpy.Event | None]] = {}
        self.streams: dict[tuple[str, str], TcpStream] = {}
        self.conns: dict[frozenset, Conn] = {}
        self.lossy_nodes: set[str] = set()
        self.connects = 0
        self.connect_failures = 0

    # -- plumbing ---------------------------------------------------------------------
    def register(self, name: str, handler: Callable[[str, Any], None], *, lossy: bool = False,
                 auth_gate: Callable[[], simpy.Event | None] | None = None) -> None:
        self.handlers[name] = handler
        if lossy:
            self.lossy_nodes.add(name)
        if auth_gate is not None:
            self.auth_gate[name] = auth_gate

    def stream(self, a: str, b: str) -> TcpStream:
        s = self.streams.get((a, b))
        if s is None:
            s = TcpStream(self.net.link(a, b), self.net.link(b, a), self.net.base_one_way_ns, self.tcp)
            self.streams[(a, b)] = s
        return s

    def conn(self, a: str, b: str) -> Conn:
        key = frozenset((a, b))
        c = self.conns.get(key)
        if c is None:
            c = Conn(a, b, lossy=bool({a, b} & self.lossy_nodes))
            self.conns[key] = c
        return c

    def establish(self, a: str, b: str) -> None:
        """Mark a connection READY without a handshake (it existed before netem was applied)."""
        c = self.conn(a, b)
        c.state, c.ready_since = "ready", self.env.now

    def retransmits(self) -> int:
        return sum(s.retransmits for s in self.streams.values())

    # -- sending ------------------------------------------------------------------------
    def send(self, src: str, dst: str, msg: Any, size_bytes: int) -> None:
        c = self.conn(src, dst)
        if c.state == "ready":
            self._transmit(c, src, dst, msg, size_bytes)
            return
        c.queue.append((src, dst, msg, size_bytes))
        if c.state == "down" and not c.lossy:
            self.connect(src, dst)

    def _transmit(self, c: Conn, src: str, dst: str, msg: Any, size: int) -> None:
        at = self.stream(src, dst).send(self.env.now, size, self.rng)
        attempt = c.attempt

        def deliver() -> None:
            if c.lossy and c.attempt != attempt:
                return  # connection was reset: lossy peers lose in-flight messages
            h = self.handlers.get(dst)
            if h is not None:
                h(src, msg)
        call_at(self.env, at, deliver)

    # -- connection life cycle ------------------------------------------------------------
    def connect(self, src: str, dst: str, on_auth_done: Callable[[], None] | None = None,
                on_fail: Callable[[], None] | None = None) -> Conn:
        c = self.conn(src, dst)
        if c.state != "down":
            return c
        c.state = "connecting"
        c.attempt += 1
        self.connects += 1
        attempt = c.attempt

        def timeout() -> None:
            if c.attempt == attempt and c.state == "connecting":
                self.connect_failures += 1
                self.on_trip("ms_connection_ready_timeout",
                             f"a new {src}->{dst} connection needs {self.n_rt} round trips")
                self._fault(c)
                if on_fail:
                    on_fail()
        Timer(self.env, self.ready_timeout_ns, timeout)
        self.env.process(self._handshake(c, attempt, src, dst, on_auth_done))
        return c

    def _handshake(self, c: Conn, attempt: int, src: str, dst: str,
                   on_auth_done: Callable[[], None] | None):
        env = self.env
        for step in range(self.n_rt):
            t = self.stream(src, dst).send(env.now, HANDSHAKE_FRAME_BYTES, self.rng)
            yield env.timeout(t - env.now)
            if c.attempt != attempt:
                return
            if step == 3 and dst in self.auth_gate:  # AUTH_REQUEST_MORE needs a quorum
                ev = self.auth_gate[dst]()
                if ev is not None:
                    yield ev
                    if c.attempt != attempt:
                        return
            t = self.stream(dst, src).send(env.now, HANDSHAKE_FRAME_BYTES, self.rng)
            yield env.timeout(t - env.now)
            if c.attempt != attempt:
                return
            if step == 3 and on_auth_done is not None:
                on_auth_done()
        c.state, c.ready_since, c.backoff_ns = "ready", env.now, 0
        queued, c.queue = c.queue, []
        for (s, d, m, size) in queued:
            self._transmit(c, s, d, m, size)

    def _fault(self, c: Conn) -> None:
        c.attempt += 1
        c.state = "down"
        c.ready_since = None
        if c.lossy:
            c.queue.clear()
            return
        c.backoff_ns = (self.initial_backoff_ns if c.backoff_ns == 0
                        else min(self.max_backoff_ns, 2 * c.backoff_ns))
        if c.queue:
            s, d = c.queue[0][0], c.queue[0][1]
            Timer(self.env, c.backoff_ns, lambda: self.connect(s, d))

    def mark_down(self, a: str, b: str) -> None:
        """Drop a connection (MonClient closing its pending hunt connections)."""
        c = self.conn(a, b)
        if c.state != "down":
            c.attempt += 1
            c.state = "down"
            c.ready_since = None
            c.queue.clear()

    def fault(self, a: str, b: str) -> None:
        """Inject a connection failure (e.g. a TCP reset); lossless peers reconnect."""
        self._fault(self.conn(a, b))
