"""Network hops: NICs, serialisation, switches and routers, netem.

The full account: docs/model.md, "Inside the model", `cephsim.model.components.network`.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Generator

from cephsim.model.components.cpu import Thread
from cephsim.model.engine.draw import Sampler
from cephsim.model.engine.kernel import ACC_NET, ACC_QUEUE, Kernel
from cephsim.spec.loss import TCP_RETRIES2, TCP_RTO_MAX_NS, TCP_RTO_MIN_NS

TCP_HEADERS = 52  #: IP (20) + TCP (20) + timestamps option (12)
WIRE_OVERHEAD = 90  #: per frame: TCP/IP 52 + Ethernet 18 + preamble/IFG 20
#: TCP_TIMEOUT_MIN (2 jiffies) at CONFIG_HZ=250, the tail-loss probe's floor above 2 x srtt
TCP_TIMEOUT_MIN_NS = 8_000_000

class TcpWindow:
    """The hosts' TCP window settings as one flow uses them (from scenario ``network.tcp``)."""

    __slots__ = ("initial", "max_bytes", "restart_after_idle")

    def __init__(self, initial: int, max_bytes: int, restart_after_idle: bool) -> None:
        self.initial = initial  #: segments
        self.max_bytes = max_bytes  #: largest window advertised: rmem_max x window_fraction
        self.restart_after_idle = restart_after_idle

    @classmethod
    def of(cls, settings: Any) -> TcpWindow:
        """From a :class:`cephsim.scenario.schema.TcpSettings`."""
        return cls(settings.initial_window, int(settings.rmem_max * settings.window_fraction),
                   settings.slow_start_after_idle)


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

    __slots__ = ("_shapes", "cwnd", "fast_recoveries", "forwarding_kc", "hops", "impairments",
                 "last_send", "loopback", "lossy", "mss", "rev_delay_ns", "rx_latency", "rtos",
                 "tcp", "tx_latency", "uplink", "name", "window_stall_ns")

    def __init__(self, uplink: Port, hops: list[Hop], tx_latency: Sampler,
                 rx_latency: Sampler, impairments: list[Impairment], mtu: int,
                 forwarding_kc: float, tcp: TcpWindow, name: str = "", loopback: bool = False,
                 rev_delay_ns: int = 0) -> None:
        self.name = name
        self.loopback = loopback  #: same host: no NIC, wire or switch
        self.uplink = uplink
        self.hops = hops
        self.tx_latency = tx_latency
        self.rx_latency = rx_latency
        self.impairments = impairments
        #: (loss, U[0,1) draws) of the impairments that drop segments (each its own stream)
        self.lossy: list[tuple[float, Callable[[], float]]] = [
            (imp.loss, imp.uniform) for imp in impairments
            if imp.loss > 0.0 and imp.uniform is not None]
        self.mss = mtu - TCP_HEADERS
        self.forwarding_kc = forwarding_kc
        self._shapes: dict[int, tuple[int, int, int, int]] = {}
        self.tcp = tcp
        self.cwnd = tcp.initial  #: congestion window, segments
        self.last_send = -(10**18)  #: when this flow last put data on the wire
        self.rev_delay_ns = rev_delay_ns  #: mean netem delay of the opposite direction (the ACKs' way)
        self.window_stall_ns = 0  #: total time messages waited for the window (a metric)
        self.rtos = 0  #: retransmission timeouts this path's messages waited for (a metric)
        self.fast_recoveries = 0  #: losses repaired without a timeout: RACK or tail-loss probe

    def _shape(self, nbytes: int) -> tuple[int, int, int, int]:
        """Frames, wire bytes, and the first and the last frame's wire bytes, of a message."""
        shape = self._shapes.get(nbytes)
        if shape is None:  # a handful of message sizes recur: compute each once
            frames = max(1, math.ceil(nbytes / self.mss))
            first = min(nbytes, self.mss) + WIRE_OVERHEAD
            last = nbytes - (frames - 1) * self.mss + WIRE_OVERHEAD
            shape = (frames, nbytes + frames * WIRE_OVERHEAD, first, last)
            self._shapes[nbytes] = shape
        return shape

    def transfer(self, k: Kernel, t: int, nbytes: int, acc: list[int] | None,
                 step: int = 0) -> Generator[Any, None, int]:
        """Kernel sub-process: deliver ``nbytes`` sent at ``t``; returns arrival time at B.
        ``step``: which message it is, for a traced op's span."""
        t0 = t
        if self.loopback:
            return t
        frames, wire, first_b, last_b = self._shape(nbytes)
        netem = 0  # this message's added delay (one way)
        for imp in self.impairments:
            if imp.delay is not None:
                d = imp.delay.draw()
                if d > 0:
                    netem += d
        t += netem
        lat = self.tx_latency.draw()  # fixed latencies of the way, without wire and queues
        t += lat
        if k.must_yield(t):
            yield t
        start, end = self.uplink.send(t, wire)
        queued = start - t
        in_bps = self.uplink.bps  # the rate of the link the hop receives from
        for hop in self.hops:
            # Frames pipeline through every hop: a cut-through switch forwards a frame as
            # soon as its header is in (its latency is first bit in to first bit out), a
            # store-and-forward switch or a router once the whole frame is in.  So a hop
            # holds a message back by at most one frame, never by the whole message.
            # Cut-through needs an egress no faster than the ingress: a faster port would
            # run out of bits mid-frame, so switches store and forward from a slower port
            # to a faster one (a 10G host into a 100G uplink).
            out_bps = hop.egress.bps
            cut = hop.cut_through and out_bps <= in_bps
            head = start if cut else start + int(first_b * 8e9 / in_bps)
            hl = hop.latency.draw()
            lat += hl
            ready = head + hl
            if hop.router is not None:
                if k.must_yield(ready):
                    yield ready
                ready = hop.router.run(ready, self.forwarding_kc * frames, None)
            if k.must_yield(ready):
                yield ready
            s2, e2 = hop.egress.send(ready, wire)
            queued += s2 - ready
            # nor can the last frame leave before it has arrived, plus the hop's latency
            # (store-and-forward: in full, so its own time on this port still follows)
            last_out = end + hl if cut else end + hl + int(last_b * 8e9 / out_bps)
            start, end = s2, max(e2, last_out)
            in_bps = out_bps
        rx = self.rx_latency.draw()
        t = end + rx
        # round trip: both ways' fixed latencies, this way's netem, the ACKs' netem
        rtt = 2 * (lat + rx) + netem + self.rev_delay_ns
        if frames > self.tcp.initial:  # only a message bigger than a window can wait for one
            stall = self._window_stall(t0, frames, rtt)
            t += stall
            end += stall  # ACK-clocked: its last segment left that much later
        if self.lossy:
            t += self._loss_wait(frames, rtt)
        self.last_send = end
        if acc is not None:
            acc[ACC_NET] += t - t0 - queued
            acc[ACC_QUEUE] += queued
            if type(acc) is not list:  # a traced op: one span per message
                acc.spans.append((self.name, "net", t0, t0, t, queued, step))  # type: ignore[attr-defined]
        return t

    def _loss_wait(self, frames: int, rtt: int) -> int:
        """How much later a message of ``frames`` segments is complete because netem dropped
        some of them (step 6 of the module docstring); 0 if none was dropped."""
        last_lost = self._segment_lost()
        gap = frames - 1  # segments between the latest hole and the last one (frames - 1: no hole)
        if frames > 1:
            for loss, uniform in self.lossy:
                # the segments before the last one, counted backwards from it, survive
                # until the first one that is dropped: a geometric count (one draw)
                u = uniform()
                k = 0 if loss >= 1.0 else int(math.log1p(-u) / math.log1p(-loss))
                if k < gap:
                    gap = k
        hole = gap < frames - 1
        if not (last_lost or hole):
            return 0
        rto = TCP_RTO_MIN_NS  # the timeout a lost resend waits for
        if frames == 1:
            wait = TCP_RTO_MIN_NS  # the probe would wait as long: the RTO fires
            self.rtos += 1
            rto = 2 * TCP_RTO_MIN_NS  # and backs off
        elif last_lost:
            wait = 2 * rtt + TCP_TIMEOUT_MIN_NS + (rtt if hole else 0)
            self.fast_recoveries += 1
        else:
            # the hole's resend lands 1.25 rtt after it would have; the segments after it
            # take (gap + 1) segment times to arrive, which the resend can hide behind
            seg_ns = (self.mss + WIRE_OVERHEAD) * 8e9 / self.uplink.bps
            wait = max(0, int(rtt * 1.25 - (gap + 1) * seg_ns))
            self.fast_recoveries += 1
        resends = 1
        while resends < TCP_RETRIES2 and self._segment_lost():
            wait += rto  # only the retransmission timeout finds a lost resend
            self.rtos += 1
            rto = min(2 * rto, TCP_RTO_MAX_NS)
            resends += 1
        return wait

    def _segment_lost(self) -> bool:
        """Whether one segment is dropped on this path (one draw on each lossy impairment's
        stream, so every stream's sequence is the same whatever the others draw)."""
        lost = False
        for loss, uniform in self.lossy:
            if uniform() < loss:
                lost = True
        return lost

    def _window_stall(self, t0: int, frames: int, rtt: int) -> int:
        """Time a message of ``frames`` segments, sent at ``t0``, waits for ACKs.

        ``rtt``: the round trip outside the wire and the queues.  Each full window takes
        max(rtt, the window's time on the wire) to come back as ACKs; the part beyond its
        wire time is the stall.
        """
        tcp = self.tcp
        if tcp.restart_after_idle and t0 - self.last_send > rtt + TCP_RTO_MIN_NS:
            self.cwnd = tcp.initial  # idle longer than an RTO (srtt + 200 ms): slow start again
        wmax = max(tcp.initial, tcp.max_bytes // self.mss)
        seg_ns = (self.mss + WIRE_OVERHEAD) * 8e9 / self.uplink.bps
        w, left, waited = self.cwnd, frames, 0.0
        while left > w:
            left -= w
            wire = w * seg_ns
            if wire < rtt:
                waited += rtt - wire
            w = min(2 * w, wmax)
        self.cwnd = w
        stall = int(waited)
        self.window_stall_ns += stall
        return stall
