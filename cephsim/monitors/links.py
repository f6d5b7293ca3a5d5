"""Links between monitor-cluster nodes: netem delay/jitter/loss plus a TCP transfer model.

Time is integer nanoseconds (``*_ns``) as everywhere in cephsim.

What is modelled (per *directed* pair of nodes, i.e. per TCP direction):

* **netem** (``tc qdisc ... netem delay D J [distribution] loss P``): every packet is
  delayed ``D`` plus a jitter term -- uniform on ``[-J, +J]`` by default, or normal with
  standard deviation ``J`` (``normal``, like netem's table) -- clipped at zero; each packet
  is dropped independently with probability ``P``.  netem refuses a jitter without a
  delay; we do the same.
* **TCP** [external, Linux]: a message of ``S`` bytes is ``ceil(S / MSS)`` segments.
  Slow start from the initial window (RFC 6928: 10 segments); the window doubles every
  round trip while the sender is window-limited, so a message needing ``k`` windows
  arrives ``(k-1)·RTT + one_way`` after it was sent.  Congestion-window restart after idle
  (RFC 2861 / ``tcp_slow_start_after_idle``): if nothing is in flight and nothing was sent
  for longer than the RTO the window falls back to the initial window; an application-
  limited sender also halves its window toward the used window once per RTO
  (``tcp_cwnd_application_limited``).  A lost segment is repaired by fast retransmit
  (+1 RTT, window halved) when at least 3 later segments of the same window produce
  duplicate ACKs, else by a retransmission timeout (RTO = srtt + max(min_rto, 4·rttvar),
  1 s before the first sample as in RFC 6298, doubling on repeated loss; window to 1).
  Every retransmitted segment is counted.
* Messages on one direction are delivered in order (one TCP stream per connection).

Simplified: bandwidth is unlimited (RTT dominates at the delays studied), ACK loss is
ignored, the jitter of a message is that of its last window, and reordering by netem
jitter is not modelled beyond the in-order delivery of a stream.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from cephsim.units import parse_duration_ns, parse_percent


def _dur(v: object) -> int:
    if isinstance(v, int) and not isinstance(v, bool):
        return v
    return parse_duration_ns(v)


class LinkSpec(BaseModel):
    """netem settings on one direction of one link (``tc qdisc add dev X root netem ...``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    delay_ns: int = Field(0, description="netem `delay`: constant one-way delay added to every "
            "packet (int ns or a string such as '800ms').")
    jitter_ns: int = Field(0, description="netem jitter: half-width of the uniform jitter, or the "
                           "standard deviation for `distribution: normal`.")
    distribution: Literal["uniform", "normal"] = Field(
        "uniform", description="netem jitter distribution: uniform (netem default) or normal.")
    loss: float = Field(0.0, description="netem `loss`: independent per-packet drop probability, "
                        "a fraction in [0, 1] or a string such as '1%'.")

    @field_validator("delay_ns", "jitter_ns", mode="before")
    @classmethod
    def _parse_dur(cls, v: object) -> int:
        return _dur(v)

    @field_validator("loss", mode="before")
    @classmethod
    def _parse_loss(cls, v: object) -> float:
        return parse_percent(v)

    @model_validator(mode="after")
    def _check(self) -> LinkSpec:
        if self.delay_ns < 0:
            raise ValueError(f"netem delay must be >= 0, got {self.delay_ns} ns")
        if self.jitter_ns < 0:
            raise ValueError(f"netem jitter must be >= 0, got {self.jitter_ns} ns")
        if self.jitter_ns > 0 and self.delay_ns == 0:
            raise ValueError("netem jitter needs a delay: 'delay 0 jitter J' is rejected by tc; "
                             "give a delay > 0 or drop the jitter")
        if not 0.0 <= self.loss <= 1.0:
            raise ValueError(f"loss must be a fraction in [0, 1] (0%..100%), got {self.loss!r}")
        return self

    def sample_delay_ns(self, rng: np.random.Generator) -> int:
        if self.jitter_ns == 0:
            return self.delay_ns
        if self.distribution == "uniform":
            j = rng.uniform(-self.jitter_ns, self.jitter_ns)
        else:
            j = rng.normal(0.0, self.jitter_ns)
        return max(0, int(self.delay_ns + j))


#: base one-way latency of an unshaped LAN hop (added to netem delay)
BASE_ONE_WAY_NS = 100_000


@dataclass
class MonNetwork:
    """Nodes (monitors and client hosts) and the netem settings of every directed pair."""

    nodes: list[str]
    links: dict[tuple[str, str], LinkSpec]
    base_one_way_ns: int = BASE_ONE_WAY_NS

    def link(self, a: str, b: str) -> LinkSpec:
        return self.links.get((a, b)) or LinkSpec()

    def one_way_ns(self, a: str, b: str) -> int:
        return self.link(a, b).delay_ns + self.base_one_way_ns

    @classmethod
    def uniform(cls, mon_names: list[str], client_names: list[str], one_way_delay_ns: int,
                jitter_ns: int = 0, loss: float = 0.0,
                client_to_mon_delay_ns: int | dict[str, int] | None = None,
                distribution: str = "uniform") -> MonNetwork:
        """Same netem on every mon<->mon direction.

        ``client_to_mon_delay_ns``: ``None`` (default, the seed-004 set-up: the CLI /
        rbd host sits next to the first monitor, so that mon is unshaped while the others are
        behind ``one_way_delay_ns``); an int (same delay to every mon) or a per-mon dict.
        """
        mon_link = LinkSpec(delay_ns=one_way_delay_ns, jitter_ns=jitter_ns, loss=loss,
                            distribution=distribution)
        links: dict[tuple[str, str], LinkSpec] = {}
        for a in mon_names:
            for b in mon_names:
                if a != b:
                    links[(a, b)] = mon_link
        for c in client_names:
            for i, m in enumerate(mon_names):
                if client_to_mon_delay_ns is None:
                    d = 0 if i == 0 else one_way_delay_ns
                elif isinstance(client_to_mon_delay_ns, dict):
                    d = client_to_mon_delay_ns.get(m, one_way_delay_ns)
                else:
                    d = client_to_mon_delay_ns
                lk = LinkSpec(delay_ns=d, jitter_ns=jitter_ns if d else 0,
                              loss=loss if d else 0.0, distribution=distribution)
                links[(c, m)] = lk
                links[(m, c)] = lk
        return cls(nodes=list(mon_names) + list(client_names), links=links)


#: A message whose retransmissions are still failing this long after it was sent (a link
#: with 100 % loss, or nearly) is treated as never arriving: far beyond any simulated run.
NEVER_AFTER_NS = 365 * 86400 * 10**9


@dataclass
class TcpParams:
    initial_window_segments: int = 10
    mss_bytes: int = 1448
    min_rto_ns: int = 200_000_000
    initial_rto_ns: int = 1_000_000_000


@dataclass
class TcpStream:
    """One direction of a TCP connection: congestion window, RTT estimator, in-order delivery."""

    fwd: LinkSpec
    rev: LinkSpec
    base_ns: int
    p: TcpParams
    cwnd: float = 0.0
    srtt_ns: float | None = None
    rttvar_ns: float = 0.0
    last_send_ns: int = -(10**18)
    last_ack_ns: int = -(10**18)
    cwnd_stamp_ns: int = 0
    last_delivery_ns: int = 0
    used_segments: int = 0
    retransmits: int = 0
    rto_events: int = 0
    stats: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.cwnd = float(self.p.initial_window_segments)

    def rto_ns(self) -> float:
        if self.srtt_ns is None:
            return float(self.p.initial_rto_ns)
        # Linux tcp_set_rto: srtt + rttvar, rttvar floored at TCP_RTO_MIN
        return self.srtt_ns + max(float(self.p.min_rto_ns), 4.0 * self.rttvar_ns)

    def _rtt_sample(self, r: float) -> None:
        if self.srtt_ns is None:
            self.srtt_ns, self.rttvar_ns = r, r / 2.0
        else:
            self.rttvar_ns = 0.75 * self.rttvar_ns + 0.25 * abs(self.srtt_ns - r)
            self.srtt_ns = 0.875 * self.srtt_ns + 0.125 * r

    def send(self, now: int, size_bytes: int, rng: np.random.Generator) -> int:
        """Time at which the whole message of ``size_bytes`` is at the receiver."""
        iw = self.p.initial_window_segments
        rto = self.rto_ns()
        # RFC 2861 / Linux: restart after idle, decay while application-limited
        if now > self.last_ack_ns and now - max(self.last_send_ns, self.last_ack_ns) > rto:
            self.cwnd = float(iw)
        elif now - self.cwnd_stamp_ns > rto and self.cwnd > iw:
            halvings = min(30, int((now - self.cwnd_stamp_ns) // rto))
            used = max(iw, self.used_segments)
            for _ in range(halvings):
                self.cwnd = max(float(used), (self.cwnd + used) / 2.0)
            self.cwnd_stamp_ns = now
        segs = max(1, math.ceil(size_bytes / self.p.mss_bytes))
        t = float(max(now, self.last_send_ns))  # queue behind the previous message
        remaining = segs
        loss = self.fwd.loss
        arrival = t
        while remaining > 0:
            w = max(1, int(self.cwnd))
            n = min(w, remaining)
            owd = self.base_ns + self.fwd.sample_delay_ns(rng)
            back = self.base_ns + self.rev.sample_delay_ns(rng)
            rtt = owd + back
            lost_at = []
            if loss > 0.0:
                drops = rng.random(n) < loss
                lost_at = list(np.nonzero(drops)[0])
            if not lost_at:
                arrival = t + owd
                self._rtt_sample(rtt)
                remaining -= n
                if n >= w:  # window-limited: slow start doubles the window
                    self.cwnd = min(self.cwnd * 2.0, 65535.0)
                    self.cwnd_stamp_ns = int(t)
                    self.used_segments = 0
                else:
                    self.used_segments = max(self.used_segments, n)
                if remaining > 0:
                    t += rtt
                continue
            # repair: fast retransmit if >= 3 dupacks follow the first loss, else RTO
            first = lost_at[0]
            self.retransmits += len(lost_at)
            if n - 1 - first >= 3:
                t += rtt  # one extra round trip for the retransmission
                self.cwnd = max(2.0, self.cwnd / 2.0)
            else:
                backoff = rto
                while True:
                    self.rto_events += 1
                    t += rtt / 2 + backoff  # timer runs from the send; segment resent
                    if rng.random() >= loss:
                        break
                    self.retransmits += 1
                    backoff *= 2
                    if t - now > NEVER_AFTER_NS:  # 100 % loss, or as good as: never arrives
                        break
                self.cwnd = 1.0
            arrival = t + owd
            remaining -= n
            if remaining > 0:
                t += rtt
        deliver = max(int(arrival), self.last_delivery_ns)
        self.last_delivery_ns = deliver
        self.last_send_ns = int(t)
        self.last_ack_ns = int(t + (arrival - t) + self.base_ns + self.rev.delay_ns)
        return deliver
