"""What packet loss costs a connection: Linux TCP's resend timers, and the OSD heartbeat
grace they can run into (the limits the scenario checks hold a lossy run to)."""

from __future__ import annotations

#: Linux's retransmission timer (include/net/tcp.h): a lost segment is resent after
#: TCP_RTO_MIN (the LAN case, where srtt adds little), each lost resend doubles the wait
#: (RFC 6298 backoff) up to TCP_RTO_MAX, and after net.ipv4.tcp_retries2 resends the
#: connection is dropped
TCP_RTO_MIN_NS = 200_000_000
TCP_RTO_MAX_NS = 120_000_000_000
TCP_RETRIES2 = 15
_RTO_MIN_S, _RTO_MAX_S = TCP_RTO_MIN_NS / 1e9, TCP_RTO_MAX_NS / 1e9
#: OSD heartbeats (src/osd/OSD.cc, OSD::heartbeat_entry): each OSD pings each peer on its
#: front and back networks every 0.5 + (rand() % 10) / 10 x osd_heartbeat_interval (6 s)
#: seconds, 3.2 s on average, and reports a peer that has not answered for
#: osd_heartbeat_grace (20 s) to the monitors, which mark it down
OSD_HEARTBEAT_PERIOD_S = 0.5 + 0.45 * 6
OSD_HEARTBEAT_GRACE_S = 20.0
HEARTBEAT_NETWORKS = 2
#: the model keeps every OSD up and every connection open: it refuses a loss at which the
#: peers' heartbeats would miss their grace once an hour or more (Ceph would mark OSDs
#: down and re-peer), or at which more than one message in a million would exhaust
#: TCP's resends (the connection dropped and Ceph's reconnect and resend taking over)
MAX_HEARTBEAT_MISSES_PER_HOUR = 1.0
MAX_TCP_GIVE_UP = 1e-6


def resend_wait_s(lost: int) -> float:
    """How long a one-segment message waits when it was sent ``lost`` times in vain."""
    return sum(min(_RTO_MIN_S * 2**i, _RTO_MAX_S) for i in range(lost))


def tcp_give_up(loss: float) -> float:
    """Chance that TCP drops a connection over one segment: it and all TCP_RETRIES2
    resends lost."""
    return loss ** (TCP_RETRIES2 + 1)


def heartbeat_misses_per_hour(ab: float, ba: float) -> float:
    """Expected heartbeat grace misses per hour between two OSD hosts whose messages are
    lost with ``ab`` one way and ``ba`` the other: a ping and its reply (both one segment)
    come late by their resend waits, and the peer is reported when the two together
    exceed the grace less the time since the last reply (one mean period)."""
    budget = OSD_HEARTBEAT_GRACE_S - OSD_HEARTBEAT_PERIOD_S
    top = TCP_RETRIES2 + 1  # that many losses in a row: TCP gives up, a miss as well

    def p(n: int, loss: float) -> float:
        return loss**n if n == top else loss**n * (1 - loss)

    miss = sum(p(i, ab) * p(j, ba) for i in range(top + 1) for j in range(top + 1)
               if top in (i, j) or resend_wait_s(i) + resend_wait_s(j) > budget)
    # each of the two pings the other, on each heartbeat network
    return 2 * HEARTBEAT_NETWORKS * 3600 / OSD_HEARTBEAT_PERIOD_S * miss


def heartbeat_loss_limit() -> float:
    """The loss, the same both ways, at which heartbeat misses reach
    MAX_HEARTBEAT_MISSES_PER_HOUR (bisection: the rate grows with the loss)."""
    lo, hi = 0.0, 1.0
    for _ in range(50):
        mid = (lo + hi) / 2
        if heartbeat_misses_per_hour(mid, mid) < MAX_HEARTBEAT_MISSES_PER_HOUR:
            lo = mid
        else:
            hi = mid
    return lo


def tcp_give_up_limit() -> float:
    """The loss at which a segment's chance of exhausting TCP's resends is MAX_TCP_GIVE_UP."""
    return MAX_TCP_GIVE_UP ** (1 / (TCP_RETRIES2 + 1))
