"""From a scenario's ``monitors`` and ``sites`` sections to the monitor model's inputs.

:func:`monitor_setup` turns a validated :class:`~cephsim.scenario.schema.Scenario` (plus
the data-path client hosts chosen by :mod:`cephsim.model.resolve`) into a :class:`MonitorSetup`:
the :class:`~cephsim.spec.monitors.MonitorSpec` and the :class:`MonNetwork` of netem
settings for every directed pair of nodes (monitors and client hosts).

The netem of a directed pair ``x -> y`` is the sum of (delays add, like stacked qdiscs):

* the sender's egress netem: a monitor's ``netem`` (or the netem of the scenario host it
  runs on), a client host's ``netem``;
* the inter-site link, when ``x`` and ``y`` are at different sites (``rtt / 2`` each way);
* every ``monitors.links`` entry for that pair.

A monitor client on the same host as a monitor reaches it without any netem (loopback).
Jitters of stacked impairments combine as a root sum of squares (exact for normal jitter,
an approximation for uniform jitter); losses combine as ``1 - prod(1 - p)``.

:meth:`MonitorSetup.net_at_rtt` rescales every delay so that the largest monitor<->monitor
round trip equals a given RTT: what ``cephsim mon-threshold`` searches over.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable

from pydantic import ValidationError

from cephsim.errors import CephsimError, Problem
from cephsim.scenario.problems import validation_problems
from cephsim.spec.monitors import MonitorSpec, _default_commands

from .links import LinkSpec, MonNetwork

if TYPE_CHECKING:
    from cephsim.scenario.schema import Scenario


@dataclass(frozen=True)
class Imp:
    """One netem impairment (ns, fraction)."""

    delay: int = 0
    jitter: int = 0
    distribution: str = "uniform"
    loss: float = 0.0


def combine(imps: Iterable[Any]) -> Imp:
    """Stack netem impairments (objects with delay, jitter, distribution, loss): delays
    add, jitters add in quadrature, losses compound.  Jitter without any delay is dropped,
    as netem ignores it."""
    delay, jit2, dist, keep = 0, 0.0, "uniform", 1.0
    for i in imps:
        if i is None:
            continue
        delay += int(i.delay)
        if i.jitter:
            if jit2 == 0.0:
                dist = i.distribution
            jit2 += float(i.jitter) ** 2
        keep *= 1.0 - float(i.loss)
    return Imp(delay=delay, jitter=int(round(math.sqrt(jit2))) if delay else 0, distribution=dist,
               loss=min(1.0, max(0.0, 1.0 - keep)))


def site_hop(link: Any) -> Imp:
    """One direction of an inter-site link (a ``sites.links`` entry): half its RTT, with
    its jitter and loss."""
    return Imp(delay=link.rtt // 2, jitter=link.jitter, distribution=link.distribution,
               loss=link.loss)


@dataclass(frozen=True)
class MonitorSetup:
    """Everything the monitor model needs, plus where each node is."""

    spec: MonitorSpec
    net: MonNetwork
    sites: dict[str, str | None] = field(default_factory=dict)  #: node -> site
    tiebreaker: str | None = None

    def mon_rtt_ns(self, a: str, b: str) -> int:
        return self.net.link(a, b).delay_ns + self.net.link(b, a).delay_ns

    def max_mon_rtt_ns(self) -> int:
        m = self.spec.mons
        return max((self.mon_rtt_ns(a, b) for a in m for b in m if a < b), default=0)

    def net_at_rtt(self, rtt_ns: int) -> MonNetwork:
        """The same network with every delay (and jitter) scaled so that the largest
        monitor<->monitor RTT is ``rtt_ns``.  A network without any monitor<->monitor delay
        gets seed 004's layout instead (:meth:`MonNetwork.uniform`: every mon<->mon path at
        ``rtt_ns``, the client next to the first monitor)."""
        base = self.max_mon_rtt_ns()
        if base <= 0:
            return MonNetwork.uniform(list(self.spec.mons), list(self.spec.clients), rtt_ns // 2)
        f = rtt_ns / base
        links = {k: LinkSpec(delay_ns=int(round(v.delay_ns * f)), jitter_ns=int(round(v.jitter_ns * f)),
                             distribution=v.distribution, loss=v.loss)
                 for k, v in self.net.links.items()}
        return MonNetwork(nodes=list(self.net.nodes), links=links, base_one_way_ns=self.net.base_one_way_ns)

    def describe(self) -> dict[str, Any]:
        """Plain data for result files: nodes, sites and the RTT of every monitor pair."""
        m = list(self.spec.mons)
        return {
            "mons": m, "clients": list(self.spec.clients), "tiebreaker": self.tiebreaker,
            "election_strategy": self.spec.election_strategy, "sites": dict(self.sites),
            "mon_rtt_ms": {f"{a}-{b}": round(self.mon_rtt_ns(a, b) / 1e6, 3)
                           for i, a in enumerate(m) for b in m[i + 1:]},
            "client_rtt_ms": {f"{c}-{a}": round(self.mon_rtt_ns(c, a) / 1e6, 3)
                              for c in self.spec.clients for a in m},
        }


#: MonitorSpec's ``workload`` is the scenario's ``monitors.proposals``
_SPEC, _SCENARIO = "monitors.workload", "monitors.proposals"


def _spec_problems(err: ValidationError, given: set[str] | None = None) -> list[Problem]:
    """The monitor model's validation errors as problems at the scenario's field paths (no
    file yet: :func:`cephsim.scenario.load.locate` adds the file and line).  ``given``: the
    ``monitors`` fields the scenario (or a --set) wrote; 'warmup must be shorter than
    duration' is put on duration when only duration was written (the warmup is the default)."""
    problems = validation_problems(err, None, None, prefix=("monitors",))
    for p in problems:
        if p.path and (p.path + ".").startswith(_SPEC + "."):
            p.path = _SCENARIO + p.path[len(_SPEC):]
        if (p.path == "monitors.warmup" and given is not None and "warmup" not in given
                and "duration" in given and "shorter than duration" in p.message):
            p.path = "monitors.duration"
    return problems


def monitor_setup(scenario: Scenario, default_clients: Iterable[str]) -> MonitorSetup | None:
    """Build the monitor model's inputs from a validated scenario (None without monitors)."""
    mcfg = scenario.monitors
    if mcfg is None:
        return None
    hosts = scenario.host_groups()
    clients = list(mcfg.clients or default_clients)
    mons = [m.name for m in mcfg.mons]
    try:
        spec = MonitorSpec(
            mons=mons,
            election_strategy=mcfg.strategy,
            timers=mcfg.timers,
            workload=mcfg.proposals,
            clients=clients,
            commands=list(mcfg.commands) if mcfg.commands else _default_commands(),
            duration=f"{mcfg.duration}ns",
            warmup=f"{mcfg.warmup}ns",
            initial_connections=mcfg.initial_connections,
            connection_fault_rate_per_hour=mcfg.connection_fault_rate_per_hour,
            thresholds=mcfg.thresholds,
        )
    except ValidationError as err:
        # checks of the monitor model beyond the scenario schema (duration vs warmup, finite
        # fault rate, ...): name the scenario field; cephsim.scenario.load.locate adds the line
        raise CephsimError(_spec_problems(err, set(mcfg.model_fields_set))) from None

    egress: dict[str, Any] = {}
    site: dict[str, str | None] = {}
    machine: dict[str, str] = {}  # node -> the host it runs on (for loopback)
    for m in mcfg.mons:
        h = hosts.get(m.host) if m.host else None
        egress[m.name] = m.netem if m.netem is not None else (h.netem if h is not None else None)
        site[m.name] = m.site or (h.site if h is not None else None)
        machine[m.name] = m.host or f"mon:{m.name}"
    for c in clients:
        g = hosts[c]
        egress[c] = g.netem
        site[c] = g.site
        machine[c] = c

    explicit: dict[tuple[str, str], list[Any]] = {}
    for ln in mcfg.links:
        explicit.setdefault((ln.src, ln.dst), []).append(ln)
        if ln.both_ways and ln.src != ln.dst:
            explicit.setdefault((ln.dst, ln.src), []).append(ln)

    nodes = mons + clients
    links: dict[tuple[str, str], LinkSpec] = {}
    for a in nodes:
        for b in nodes:
            if a == b or (a in clients and b in clients):
                continue
            if machine[a] == machine[b]:
                continue  # loopback: a client on the monitor's own host
            parts: list[Any] = [egress[a]]
            if scenario.sites is not None:
                sl = scenario.sites.link(site[a], site[b])
                if sl is not None:
                    parts.append(site_hop(sl))
            parts += explicit.get((a, b), [])
            imp = combine(parts)
            if imp.delay or imp.loss:
                links[(a, b)] = LinkSpec(delay_ns=imp.delay, jitter_ns=imp.jitter,
                                         distribution=imp.distribution, loss=imp.loss)
    return MonitorSetup(spec=spec, net=MonNetwork(nodes=nodes, links=links), sites=site,
                        tiebreaker=mcfg.tiebreaker)
