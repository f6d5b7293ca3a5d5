"""Network hops: NICs, serialisation, switches and routers, netem.

A message of ``n`` payload bytes from host A to host B:

1. netem on A's egress (and on the A->B link, if set): added delay with
   uniform (netem default) or normal jitter; a lost segment costs one TCP
   retransmission timeout (``TCP_RTO_MIN`` = 200 ms; a message of k segments
   loses one with probability 1-(1-p)^k).
2. A's NIC transmit latency, then serialisation of the frames on A's link
   (a FIFO per NIC port, so concurrent messages queue).  Frames carry
   ``MTU - 52`` bytes of TCP payload and 90 bytes of headers, preamble and
   inter-frame gap on the wire.
3. Each switch hop: forwarding latency (cut-through forwards after the
   header; store-and-forward waits for the whole frame), then the egress port
   towards the next hop, another FIFO at the port speed.  A software router
   forwards on a CPU core: it pays its own C-state wake-ups and runs at its
   governor's clock, which is what tuned profiles change.
4. B's NIC receive latency (including interrupt moderation).

Bonded links (LACP, ``bond: N``): a flow (one TCP connection, i.e. one
host pair and direction here) is hashed onto one member link, on the host's
transmit side *and* on the switch port towards the receiving host (802.3ad
layer3+4 hashing); a single flow never goes faster than one member, but
several flows spread over the members.

Messages between two daemons on the same host go over loopback: no NIC, no
wire, no switch (``Path(loopback=True)``); only the TCP stack CPU remains,
charged to the threads as always.

Shared links serialise: every message (client payloads, and the replication
traffic that doubles or triples the bytes a write puts on the wire) queues
FIFO on each transmit port it crosses.

The kernel TCP stack's CPU cost is not here: it is charged to the sending and
receiving threads (``kernel.tcp_tx`` / ``kernel.tcp_rx``), so it competes for
cores like the rest of the software.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Generator

from cephsim.components.cpu import Thread
from cephsim.engine.draw import Sampler
from cephsim.engine.kernel import Kernel

TCP_HEADERS = 52  #: IP (20) + TCP (20) + timestamps option (12)
WIRE_OVERHEAD = 90  #: per frame: TCP/IP 52 + Ethernet 18 + preamble/IFG 20
TCP_RTO_MIN_NS = 200_000_000


class Port:
    """A transmit port: frames leave one after another at the line rate."""

    __slots__ = ("bps", "busy_ns", "free_at", "name")

    def __init__(self, name: str, bps: float) -> None:
        self.name = name
        self.bps = bps
        self.free_at = 0
        self.busy_ns = 0

    def send(self, t: int, wire_bytes: int) -> tuple[int, int]:
        """Start sending at ``t`` (or when free); return (start, end)."""
        start = self.free_at if self.free_at > t else t
        dur = int(wire_bytes * 8e9 / self.bps + 0.5)
        self.free_at = start + dur
        self.busy_ns += dur
        return start, start + dur


class Impairment:
    """netem on one direction: delay, jitter, loss."""

    __slots__ = ("delay", "jitter", "loss", "uniform")

    def __init__(self, delay: Sampler | None, loss: float,
                 uniform: Callable[[], float] | None) -> None:
        self.delay = delay
        self.loss = loss
        self.uniform = uniform  #: U[0,1) draws for loss


class Hop:
    """One forwarding element on a path."""

    __slots__ = ("cut_through", "egress", "latency", "router")

    def __init__(self, latency: Sampler, egress: Port, cut_through: bool,
                 router: Thread | None = None) -> None:
        self.latency = latency
        self.egress = egress
        self.cut_through = cut_through
        self.router = router


class Path:
    """Everything between two hosts' sockets, in one direction."""

    __slots__ = ("_shapes", "forwarding_kc", "hops", "impairments", "loopback", "mss",
                 "rx_latency", "tx_latency", "uplink", "name")

    def __init__(self, uplink: Port, hops: list[Hop], tx_latency: Sampler,
                 rx_latency: Sampler, impairments: list[Impairment], mtu: int,
                 forwarding_kc: float, name: str = "", loopback: bool = False) -> None:
        self.name = name
        self.loopback = loopback  #: same host: no NIC, wire or switch
        self.uplink = uplink
        self.hops = hops
        self.tx_latency = tx_latency
        self.rx_latency = rx_latency
        self.impairments = impairments
        self.mss = mtu - TCP_HEADERS
        self.forwarding_kc = forwarding_kc
        self._shapes: dict[int, tuple[int, int, int]] = {}

    def _shape(self, nbytes: int) -> tuple[int, int, int]:
        """Frames, wire bytes, and the first frame's time on the uplink, of a message."""
        shape = self._shapes.get(nbytes)
        if shape is None:  # a handful of message sizes recur: compute each once
            frames = max(1, math.ceil(nbytes / self.mss))
            first = min(nbytes, self.mss) + WIRE_OVERHEAD
            shape = (frames, nbytes + frames * WIRE_OVERHEAD, int(first * 8e9 / self.uplink.bps))
            self._shapes[nbytes] = shape
        return shape

    def transfer(self, k: Kernel, t: int, nbytes: int,
                 acc: list[int] | None) -> Generator[Any, None, int]:
        """Kernel sub-process: deliver ``nbytes`` sent at ``t``; returns arrival time at B."""
        t0 = t
        if self.loopback:
            return t
        frames, wire, first_ns = self._shape(nbytes)
        for imp in self.impairments:
            if imp.delay is not None:
                t += max(0, imp.delay.draw())
            if imp.loss > 0.0 and imp.uniform is not None:
                if imp.uniform() < 1.0 - (1.0 - imp.loss) ** frames:
                    t += TCP_RTO_MIN_NS
        t += self.tx_latency.draw()
        if k.must_yield(t):
            yield t
        start, end = self.uplink.send(t, wire)
        queued = start - t
        for hop in self.hops:
            head = start + first_ns if hop.cut_through else end
            ready = head + hop.latency.draw()
            if hop.router is not None:
                if k.must_yield(ready):
                    yield ready
                ready = hop.router.run(ready, self.forwarding_kc * frames, None)
            if k.must_yield(ready):
                yield ready
            s2, e2 = hop.egress.send(ready, wire)
            queued += s2 - ready
            # the egress cannot finish before the last bit has arrived
            start, end = s2, max(e2, end + (e2 - s2 if not hop.cut_through else 0))
        t = end + self.rx_latency.draw()
        if acc is not None:
            acc[0] += t - t0 - queued
            acc[4] += queued
            if type(acc) is not list:  # a traced op: one span per message
                acc.spans.append((self.name, "net", t0, t0, t, queued))  # type: ignore[attr-defined]
        return t
