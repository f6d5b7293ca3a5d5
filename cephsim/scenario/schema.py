"""The scenario file format: pydantic models that *are* the documentation.

A scenario describes one experiment: which hosts (CPU, tuning, NIC, OSDs and
their disks), how they are networked (switch or routed leaf-spine, MTU,
netem-style impairments), the pool, the Ceph release and settings, the fio-like
workload and the run length.  Every field has a description; ``cephsim
schema`` publishes the JSON Schema for editors.

Units are strings parsed here, once (``"25Gbit/s"``, ``"15us"``, ``"4KiB"``);
unknown keys are errors.  Hardware is named from the catalog
(``cpu: epyc-7351p``) or given inline with the same fields as a catalog entry.
Cross-field checks that need the whole scenario (a pool larger than the
number of OSD hosts, a client that does not exist) are in
:func:`Scenario._cross_checks`; checks that need the catalog happen when the
scenario is resolved (:mod:`cephsim.model.resolve`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PrivateAttr,
    WithJsonSchema,
    field_validator,
    model_validator,
)

from cephsim.catalog.models import CPUModel, DiskModel, NICModel, SwitchModel
from cephsim.spec.debuglog import parse_level
from cephsim.spec.loss import TCP_RETRIES2, resend_wait_s
from cephsim.spec.monitors import (
    ClientCommand,
    MonThresholds,
    ProposalWorkload as MonWorkload,
    TimerOptions,
)
from cephsim.spec.software import Kcycles
from cephsim.units import (
    DAY_NS,
    PERCENT_JSON,
    Duration,
    Size,
    format_duration,
    format_size,
    format_span,
    parse_percent,
)


def _loss(v: Any) -> float:
    """A loss rate: '1%' or 0.  A bare number is refused: netem users write '1' for 1 %,
    while a bare fraction would read it as 100 %."""
    if isinstance(v, (int, float)) and not isinstance(v, bool) and v != 0:
        raise ValueError(f"a bare number is ambiguous here; give a percentage such as "
                         f"'{v}%' or '{v * 100:g}%'")
    return parse_percent(v)


def _not_bool(v: Any) -> Any:
    if isinstance(v, bool):
        raise ValueError(f"expected a whole number, got {str(v).lower()}")
    return v


Fraction = Annotated[float, BeforeValidator(_loss), WithJsonSchema(PERCENT_JSON)]
#: a count or other whole number; YAML's true/false is not 1/0 here
Int = Annotated[int, BeforeValidator(_not_bool)]

#: Ceph's floor for osd_memory_target (896 MiB)
MIN_OSD_MEMORY_TARGET = 896 * 1024**2


def _memory_target(v: int) -> int:
    if v < MIN_OSD_MEMORY_TARGET:
        raise ValueError(f"must be at least 896 MiB (Ceph's minimum), got {v / 1024**2:g} MiB")
    return v

#: smallest host memory accepted (a host.memory under this is a typo: a unit left out)
MIN_HOST_MEMORY = 256 * 1024**2

#: smallest fixed BlueStore cache accepted: less holds a handful of onodes
MIN_BLUESTORE_CACHE = 16 * 1024**2


def _cache_size(v: int) -> int:
    if v < MIN_BLUESTORE_CACHE:
        raise ValueError(f"must be at least 16 MiB, got {v / 1024**2:g} MiB")
    return v


Release = Literal["luminous", "mimic", "nautilus", "octopus", "pacific", "quincy", "reef", "squid",
        "tentacle"]
#: the major version number of each release (a point release x.y.z belongs to one)
RELEASE_MAJOR = {"luminous": 12, "mimic": 13, "nautilus": 14, "octopus": 15, "pacific": 16, "quincy": 17,
        "reef": 18, "squid": 19, "tentacle": 20}


class _M(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


#: Longest one-way delay a data-path impairment may add: a round trip past
#: osd_heartbeat_grace (20 s) gets OSDs marked down, and there is no cluster left to measure
MAX_NETEM_DELAY_NS = 10 * 10**9


def check_impairment(delay: int, jitter: int, loss: float, delay_field: str = "delay",
                     delay_text: str = "a delay", max_delay: int = MAX_NETEM_DELAY_NS) -> None:
    """netem's own rules, shared by every place that accepts an impairment (raises ValueError)."""
    if delay < 0:
        raise ValueError(f"{delay_field}: must not be negative (got {format_span(delay)})")
    if delay + jitter > max_delay:
        raise ValueError(f"{delay_field}: {(delay + jitter) / 1e9:g} s with its jitter is past "
                         f"{max_delay / 1e9:g} s: a round trip beyond osd_heartbeat_grace "
                         "(20 s) marks the OSDs down")
    if jitter < 0:
        raise ValueError(f"jitter: must not be negative (got {format_span(jitter)})")
    if jitter > 0 and delay == 0:
        raise ValueError(f"jitter: jitter without delay: netem needs {delay_text} for jitter to apply")
    if not 0.0 <= loss <= 1.0:
        raise ValueError(f"loss: loss must be between 0% and 100% (got {loss * 100:.10g}%)")
    if loss == 1.0:
        raise ValueError("loss: 100% also loses every resend, so no write would ever complete "
                         f"(TCP gives up after {TCP_RETRIES2} resends, "
                         f"~{resend_wait_s(TCP_RETRIES2) / 60:.0f} min); use less than 100%")


class Netem(_M):
    """netem-style impairment on a host's egress (or one link), as ``tc qdisc ... netem``."""

    delay: Duration = Field(0, description="Added one-way delay per packet, e.g. '160ms'.")
    jitter: Duration = Field(0, description="Delay variation: half-width of a uniform range (netem "
            "default) or the standard deviation with distribution 'normal'.")
    distribution: Literal["uniform", "normal"] = Field("uniform", description=
            "Shape of the jitter, as netem's 'distribution' keyword (none = uniform).")
    loss: Fraction = Field(0.0, description="Packet loss probability per segment, e.g. '1%' (below "
            "100%). What a loss costs is Linux TCP's recovery: a hole SACK reveals ~1.25 round "
            "trips, a message's lost last segment the tail-loss probe (2 RTT + 8 ms), a lost "
            "one-segment message a retransmission timeout (200 ms); a lost resend waits for the "
            "timeout, twice the previous one each time.")

    @model_validator(mode="after")
    def _check(self) -> Netem:
        check_impairment(self.delay, self.jitter, self.loss)
        return self


class CPUTuning(_M):
    """Power-management settings of a host (what tuned / kernel command lines change)."""

    max_cstate: str | int | None = Field(
        None,
        description="Deepest idle state the kernel may use, by name ('C1', 'POLL') or index "
        "(processor.max_cstate=1 -> 1). null = all states the platform offers.",
    )
    governor: Literal["auto", "performance", "ondemand", "schedutil", "conservative", "powersave"] = Field(
        "auto", description="cpufreq governor deciding the clock CPU work runs at. 'auto': the "
        "kernel's default for the driver (powersave under intel_pstate and amd-pstate-epp, "
        "schedutil under acpi-cpufreq). 'powersave' depends on the driver (cpufreq_driver): the "
        "minimum clock under acpi-cpufreq, but the driver's load-following choice under "
        "intel_pstate (HWP on Skylake and later: the processor decides) or amd-pstate-epp (CPPC)."
    )
    cpufreq_driver: Literal["auto", "intel_pstate", "amd-pstate-epp", "acpi-cpufreq"] = Field(
        "auto", description="The kernel's cpufreq driver. 'auto': intel_pstate (active mode) on "
                            "Intel CPUs, the default since Linux 3.9, and acpi-cpufreq otherwise "
                            "(amd-pstate-epp needs CPPC enabled in the firmware and Linux 6.5+; "
                            "set it when the host runs it). Under intel_pstate and amd-pstate-epp, "
                            "'powersave' is the dynamic default, not the minimum clock."
    )
    cpuidle_governor: Literal["menu", "ideal"] = Field(
        "menu", description="How each idle CPU's state is chosen. 'menu': the kernel's default "
        "cpuidle governor (drivers/cpuidle/governors/menu.c), which predicts the idle time from "
        "the CPU's recent idle periods when it goes idle, so it can choose a state too deep for a "
        "short sleep or too shallow for a long one. 'ideal': a governor that knows each idle "
        "period's length (the deepest state whose target residency fits it): a bound for "
        "comparison, not a kernel governor. A KVM guest's vCPUs use haltpoll either way.")

    @field_validator("max_cstate", mode="before")
    @classmethod
    def _state_index_from_zero(cls, v: Any) -> Any:
        if isinstance(v, bool) or (isinstance(v, int) and v < 0):
            raise ValueError(f"{v!r} is not a C-state: give an index from 0 "
                             "(processor.max_cstate=N) or a state name such as 'C1'")
        return v
    boost: bool = Field(True, description="Turbo/boost enabled (max clock = boost clock, else base "
            "clock).")
    smt: bool = Field(True, description="SMT / Hyper-Threading enabled in the firmware: each core "
                                        "runs the CPU's threads_per_core hardware threads (two "
                                        "busy siblings share the core: each runs at smt_yield/2 of "
                                        "its solo speed). false = one thread per core.")


class OSDGroup(_M):
    """The OSDs of one host: how many, and on which drive model."""

    count: Int = Field(1, ge=0, le=256, description="OSD daemons per host (one drive each, or "
            "per_device of them per drive).")
    disk: str | DiskModel = Field(description="Catalog disk id (see `cephsim catalog disks`) or an "
            "inline disk model (which may start from a catalog one: "
            "{base: pm9a3, write_4k: 20us}).")
    db_disk: str | DiskModel | None = Field(None, description="A separate RocksDB device "
            "(BlueStore block.db; the WAL goes with it): catalog disk id or inline model.  Every "
            "kv commit's WAL write and flush (and a deferred write's data, which rides in the WAL) "
            "goes there; data writes, deferred writes' final place and reads go to `disk`.  null = "
            "RocksDB on the data disk (one device per OSD).")
    db_devices: Int = Field(1, ge=1, description="DB devices per host when db_disk is set; the "
            "host's OSDs share them round-robin (one NVMe in front of 12 HDDs: 1).")
    encryption: Literal["none", "luks"] = Field("none", description="'luks': the OSDs' devices are "
            "dm-crypt (ceph-volume --dmcrypt, Rook encryptedDevice): every block write is "
            "encrypted by a kcryptd worker and submitted by the device's dmcrypt_write thread, "
            "every block read decrypted by a kcryptd worker on completion (two hand-offs per "
            "write, one per read, and the cipher's CPU); flushes pass straight through.")
    crypt_sector_size: Literal[512, 4096] = Field(512, description="encryption luks: the dm-crypt "
            "sector size (cryptsetup --sector-size; LUKS2 default 512): a 4 KiB block is 8 cipher "
            "requests at 512, one at 4096.")
    per_device: Int = Field(1, ge=1, description="OSD daemons sharing each data drive "
            "(`ceph-volume lvm batch --osds-per-device`): consecutive OSDs split one drive, whose "
            "channels, queue, volatile cache and flushes they share; each OSD keeps its own "
            "threads.  count must be a multiple (12 OSDs on 6 NVMe: count 12, per_device 2).")

    @model_validator(mode="after")
    def _drives(self) -> OSDGroup:
        if self.count % self.per_device:
            raise ValueError(f"per_device: {self.count} OSDs do not split evenly over drives of "
                             f"{self.per_device} OSDs each (count must be a multiple of per_device)")
        if self.db_disk is None and self.db_devices != 1:
            raise ValueError("db_devices: needs db_disk (the model of the DB devices)")
        if self.db_disk is not None and self.db_devices > max(1, self.count):
            raise ValueError(f"db_devices: {self.db_devices} DB devices for {self.count} OSDs "
                             "(each DB device serves at least one OSD)")
        return self


class VirtualMachine(_M):
    """The group's hosts are KVM guests: how their idle vCPUs wake.

    An idle guest vCPU executes HLT (after spinning for ``guest_halt_poll`` if the guest
    runs cpuidle-haltpoll); HLT exits to the host, which spins for ``halt_poll`` in case
    an interrupt comes, then schedules the vCPU thread out and lets the physical core
    idle in its own C-states.  A wake-up then costs the VM exit and re-entry, and after
    the host gave up polling also the host's wake-up of the vCPU thread and its core's
    C-state exit.  The guest sets no clock: its vCPUs run at the host's (performance
    unless tuning.governor says what the host runs)."""

    halt_poll: Duration = Field(200_000, ge=0, le=10**9, description=
            "The host's KVM halt_poll_ns: how long it spins on a halted vCPU before scheduling it "
            "out (x86 default 200us; it adapts between 0 and this, modelled at the ceiling). 0: no "
            "halt polling.")
    guest_halt_poll: Duration = Field(0, ge=0, le=10**9, description=
            "The guest's cpuidle-haltpoll spin before HLT (guest_halt_poll_ns, 200us when the "
            "driver runs). 0 (default): plain HLT, as the driver loads only when the host declares "
            "dedicated CPUs (KVM_HINTS_REALTIME) or with cpuidle_haltpoll.force=1.")
    exit_entry: Duration = Field(500, ge=0, le=10**6, description="HLT exit, re-entry and the "
            "interrupt's injection, per wake of a halted vCPU (estimate: 0.25-0.45 us per guest "
            "context switch in the LKML 'idle polling' measurements of 2017, "
            "https://lkml.iu.edu/hypermail/linux/kernel/1708.3/03774.html).")
    host_wakeup: Duration = Field(2000, ge=0, le=10**6, description="The host waking and switching "
            "to the vCPU thread once halt polling gave up (estimate: a futex-style wake-to-run on "
            "the host plus loading the vCPU's state), on top of the host core's C-state exit.")
    host_max_cstate: str | int | None = Field(None, description="Deepest idle state of the host's "
            "cores under a sleeping vCPU (the host's max_cstate; name or index); null = every "
            "state of the CPU's table.")


class HostGroup(_M):
    """A group of identical hosts, named ``<name>0``, ``<name>1``, ..."""

    name: str = Field(pattern=r"^[a-z][a-z0-9-]*$", description="Group name; hosts are named "
            "name0, name1, ...")
    count: Int = Field(1, ge=1, le=10000, description="Number of hosts in the group.")
    cpu: str | CPUModel = Field(description="Catalog CPU id (see `cephsim catalog cpus`) or an "
            "inline CPU model (which may start from a catalog one: {base: <id>, ...}).")
    sockets: Int = Field(1, ge=1, description="CPU sockets per host.")
    cstates: str | None = Field(None, description="C-state table id; default is the CPU's platform "
            "table.")
    tuning: CPUTuning = Field(default_factory=CPUTuning, description=
            "C-state limit and frequency governor.")
    nic: str | NICModel = Field(description="Catalog NIC id (see `cephsim catalog nics`) or an "
            "inline NIC model (which may start from a catalog one: {base: <id>, ...}).")
    bond: Int = Field(1, ge=1, description="Links bonded (LACP); one flow uses one link, so "
            "latency is per link.")
    osds: OSDGroup | None = Field(None, description="OSDs on each host of the group; omit for "
            "client-only hosts.")
    osd_cores: Int | None = Field(None, ge=1, description="Physical cores the OSD daemons may use "
            "(a cpuset holding both hardware threads of each core when SMT is on); null (or every "
            "core) = all cores, shared with everything else.")
    client_cores: Int | None = Field(None, ge=1, description="Physical cores (with their SMT "
            "siblings) the client side may use (fio and librbd/librados or the kernel client; a "
            "cpuset such as systemd's user.slice); null = every core not given to the OSDs.  On a "
            "host with OSDs it needs osd_cores (the two sets do not overlap).")
    osd_cpu_limit: float | None = Field(None, gt=0, le=1024, allow_inf_nan=False, description=
            "CPU limit of each OSD daemon as a CFS bandwidth quota, in CPUs (cgroup v2 cpu.max = "
            "limit x period; Kubernetes resources.limits.cpu, e.g. a Rook OSD pod's): its threads "
            "may run on any of its cores (all, or osd_cores), but together for at most this many "
            "CPUs' worth of time per osd_cpu_period; past that every one of them waits for the "
            "next period (throttling). Unlike osd_cores (a cpuset shared by the host's OSDs) it is "
            "per daemon and fractional (e.g. 2.5). null = no quota.")
    osd_cpu_period: Duration = Field(100_000_000, ge=1_000_000, le=1_000_000_000, description=
            "The CFS period of osd_cpu_limit (cpu.max's second field; the kernel default 100ms, "
            "allowed 1ms-1s).")
    netem: Netem | None = Field(None, description="netem on this host's egress (every packet it "
            "sends).")
    vm: VirtualMachine | None = Field(None, description="The hosts are KVM virtual machines on "
            "hosts of this CPU: vCPU wake-ups through HLT exits and halt polling replace the "
            "bare-metal C-states (tuning.max_cstate POLL = the guest's idle=poll). The virtual NIC "
            "is the group's nic (e.g. virtio-net-vhost-25g).")
    site: str | None = Field(None, description="Site (data centre) of these hosts, one of "
            "`sites.names`; traffic to hosts at another site gets the inter-site link's delay. "
            "Required when `sites` is given.")
    memory: Size | None = Field(None, ge=MIN_HOST_MEMORY, description="RAM of each host (MemTotal of "
            "/proc/meminfo, `free -b`'s total), e.g. '256GiB'. What the OSDs' osd_memory_target, "
            "the clients' fio jobs and a base for the OS leave of it is the kernel's page cache, "
            "which serves RocksDB's block-cache misses when ceph.bluefs_buffered_io is on "
            "(docs/model.md). null = not known: an OSD host is assumed to have the published "
            "hosts' median RAM per OSD for its OSDs (by their media; "
            "calibration/research/host-memory.md), named in the run's header where it decides "
            "the answer; `validate` warns where the published hosts' quartiles would move the "
            "mean latency by more than 10 %.")


class LinkNetem(Netem):
    """netem between two nodes: from -> to, and (both_ways, the default) to -> from too, so a
    'delay: 5ms' link adds 10 ms to a round trip across it."""

    src: str = Field(alias="from", description="Sending node: a host name, e.g. 'osd0' (monitor "
            "links: a monitor or client host name).")
    dst: str = Field(alias="to", description="Receiving node: a host name, e.g. 'client0' (monitor "
            "links: a monitor or client host name).")
    both_ways: bool = Field(True, description="Apply the same impairment in the reverse direction "
            "too (default), so the delay counts once each way; false: from -> to only.")


class Topology(_M):
    """How hosts are connected."""

    kind: Literal["switch", "leaf-spine", "mesh"] = Field("switch", description=
            "'switch': every host on one switch; 'leaf-spine': hosts spread over leaf switches "
            "joined by spine switches or routers; 'mesh': no switch, every pair of hosts cabled "
            "directly (the small-cluster 'full mesh' of Proxmox VE's Ceph guide: a 3-node mesh "
            "uses 2 NIC ports per host).")
    mesh_mode: Literal["routed", "broadcast"] = Field("routed", description=
            "mesh: 'routed' (static routes or FRR/OpenFabric): a message to a peer leaves on that "
            "peer's own port, so a host sends to its peers in parallel; 'broadcast' (a Linux "
            "broadcast bond): every frame leaves on every port, so all of a host's traffic shares "
            "one port's rate.")
    switch: str | SwitchModel = Field("generic-cut-through-25g", description=
            "The switch (or, leaf-spine, the leaf switch) model; not used by a mesh.")
    spine: str | SwitchModel | None = Field(None, description="leaf-spine: the spine switch or "
            "router model.")
    hosts_per_leaf: Int = Field(1, ge=1, description="leaf-spine: hosts attached to each leaf "
            "switch (in host order); 1 means every host routes itself and connects straight to the "
            "spines (BGP on the host).")
    spines: Int = Field(2, ge=1, description="leaf-spine: number of spine switches/routers; flows "
            "are spread over them by hash (ECMP).")
    spine_tuning: CPUTuning | None = Field(None, description="leaf-spine with software routers: "
            "the routers' power tuning (tuned profile).")


class TcpSettings(_M):
    """The hosts' TCP settings that decide how fast a large message crosses a long round trip."""

    rmem_max: Size = Field(6 * 1024 * 1024, ge=65536, description="Largest receive buffer "
            "autotuning may grow to (net.ipv4.tcp_rmem's third value; Linux default 6 MiB since "
            "4.20; WAN-tuned hosts often use 64-256 MiB). Ceph's ms_tcp_rcvbuf = 0 leaves it to "
            "the kernel.")
    window_fraction: float = Field(0.5, gt=0, le=1, description="Share of the receive buffer "
            "advertised as window (tcp_adv_win_scale = 1 gives 1/2; kernels from 6.6 estimate it "
            "from the driver's buffer truesize, typically 0.5-0.7).")
    initial_window: Int = Field(10, ge=1, le=1000, description="Initial congestion window in "
            "segments (RFC 6928; Linux default 10, route option initcwnd).")
    slow_start_after_idle: bool = Field(True, description="net.ipv4.tcp_slow_start_after_idle: a "
            "connection idle for an RTO restarts from the initial window (Linux default on).")


class Network(_M):
    """Links, MTU, topology and impairments."""

    mtu: Int = Field(1500, ge=576, le=9216, description="Ethernet MTU in bytes on every link.")
    topology: Topology = Field(default_factory=Topology)
    links: list[LinkNetem] = Field(default_factory=list, description=
            "netem on individual host-to-host directions.")
    tcp: TcpSettings = Field(default_factory=TcpSettings, description=
            "TCP window settings of every host (only matter for messages larger than the window "
            "over a long round trip: large blocks with netem or WAN delay).")


_NAME = r"^[a-z][a-z0-9-]*$"


class SiteLink(_M):
    """The WAN between two sites, as netem on both directions of every path that crosses it."""

    between: list[str] = Field(min_length=2, max_length=2, description=
            "The two site names, e.g. [dc1, dc2].")
    rtt: Duration = Field(description="Round-trip time the link adds (each direction gets rtt/2 of "
                                      "netem delay), e.g. '10ms'.")
    jitter: Duration = Field(0, description="netem jitter per direction: half-width of a uniform "
            "range, or the standard deviation with distribution 'normal'.")
    distribution: Literal["uniform", "normal"] = Field("uniform", description=
            "Shape of the jitter (netem 'distribution').")
    loss: Fraction = Field(0.0, description="Packet loss per segment and direction, e.g. '0.1%' "
            "(below 100%); recovered as for host netem (SACK ~1.25 round trips, tail-loss probe 2 "
            "RTT + 8 ms, 200 ms retransmission timeout for a one-segment message or a lost "
            "resend).")

    @model_validator(mode="after")
    def _check(self) -> SiteLink:
        check_impairment(self.rtt, self.jitter, self.loss, "rtt", "a delay (here rtt > 0)",
                         max_delay=2 * MAX_NETEM_DELAY_NS)
        if self.between[0] == self.between[1]:
            raise ValueError(f"between: a link joins two different sites (got {self.between[0]!r} twice)")
        return self


class Sites(_M):
    """Sites (data centres) and the links between them: stretch and multi-site clusters.

    Hosts name their site (``hosts[].site``), monitors theirs (``monitors.mons[].site``).
    Every message between two hosts at different sites gets the netem of the link
    between those sites (on top of any host or link netem); hosts at the same site see
    only the local network.  Sites without a link between them are joined without added
    delay."""

    names: list[str] = Field(min_length=1, description="Site names, e.g. [dc1, dc2, tiebreaker].")
    links: list[SiteLink] = Field(default_factory=list, description="Inter-site links with their "
            "round-trip time.")

    @model_validator(mode="after")
    def _check(self) -> Sites:
        import re
        for i, n in enumerate(self.names):
            if not re.match(_NAME, n):
                raise ValueError(
                    f"names.{i}: site names are lower-case letters, digits and '-', starting with "
                    f"a letter (got {n!r})"
                )
        if len(set(self.names)) != len(self.names):
            raise ValueError("names: site names must be unique")
        seen: set[frozenset[str]] = set()
        for i, ln in enumerate(self.links):
            for n in ln.between:
                if n not in self.names:
                    raise ValueError(
                        f"links.{i}.between: no site named {n!r} (sites: {', '.join(self.names)})"
                    )
            key = frozenset(ln.between)
            if key in seen:
                raise ValueError(
                    f"links.{i}.between: a second link between {ln.between[0]} and {ln.between[1]}"
                )
            seen.add(key)
        return self

    def link(self, a: str | None, b: str | None) -> SiteLink | None:
        if a is None or b is None or a == b:
            return None
        for ln in self.links:
            if {a, b} == set(ln.between):
                return ln
        return None


class MonitorNode(_M):
    """One ceph-mon daemon."""

    name: str = Field(pattern=_NAME, description="Monitor name (mon.<name>); rank order is list "
            "order (rank 0 first, the classic election winner).")
    site: str | None = Field(None, description="Site of this monitor (one of `sites.names`); "
            "default: the site of `host`.")
    host: str | None = Field(None, description="Scenario host this monitor runs on (e.g. 'osd0'): "
            "it shares that host's egress netem and site, and a monitor client on the same host "
            "reaches it without the network.")
    netem: Netem | None = Field(None, description="netem on this monitor host's egress (seed 004: "
            "the delay script on every interface of a monitor host); default: the netem of `host`.")


class MonLink(LinkNetem):
    """netem on the path between two monitor-cluster nodes (monitors or client hosts)."""


class Monitors(_M):
    """The monitor cluster, simulated with its own discrete-event model (:mod:`cephsim.monitors`).

    Clients run ``ceph health``, ``ceph auth get-or-create`` and ``rbd map`` against it
    (the data path never goes through the monitors).  Every path between two nodes carries
    netem: the sender's egress netem (a monitor's ``netem`` or its host's, a client host's
    ``netem``), the inter-site link when the two nodes are at different sites, and any
    ``links`` entry for that pair; delays add up."""

    mons: list[MonitorNode] = Field(min_length=1, description="Monitors in rank order.")
    tiebreaker: str | None = Field(None, description="Stretch mode: the tie-breaker monitor (one "
            "of `mons`, at a site without OSDs). Implies the connectivity election strategy.")
    election_strategy: Literal["classic", "connectivity"] | None = Field(None, description=
            "mon_election_default_strategy; default: connectivity with a tiebreaker (stretch mode "
            "requires it), else classic.")
    clients: list[str] | None = Field(None, description="Hosts that run the monitor commands; "
            "default: the workload's client hosts.")
    links: list[MonLink] = Field(default_factory=list, description="netem on individual "
            "monitor<->monitor or client<->monitor paths.")
    timers: TimerOptions = Field(default_factory=TimerOptions, description=
            "Ceph timer options (mon.yaml.in / global.yaml.in defaults).")
    proposals: MonWorkload = Field(default_factory=MonWorkload, description=
            "Paxos proposal workload (mgr reports, cluster log, OSDMap epochs).")
    commands: list[ClientCommand] | None = Field(None, description="Client command kinds (default: "
            "health, auth_get_or_create, rbd_map, each every 120 s).")
    duration: Duration = Field(30 * 60 * 10**9, description="Simulated monitor time, e.g. '30min' "
            "(default 30 min).")
    warmup: Duration = Field(60 * 10**9, description="Clients start after this, e.g. '60s' "
            "(default 60 s).")
    initial_connections: Literal["established", "none"] = Field("established", description=
            "'established': mon<->mon connections exist at t=0 (netem added to a running cluster, "
            "seed 004); 'none': cold start.")
    connection_fault_rate_per_hour: float = Field(0.0, ge=0, description=
            "Injected mon<->mon connection resets per hour per pair.")
    thresholds: MonThresholds = Field(default_factory=MonThresholds, description=
            "Verdict thresholds (healthy / unstable / broken).")

    @model_validator(mode="after")
    def _check(self) -> Monitors:
        names = [m.name for m in self.mons]
        if len(set(names)) != len(names):
            raise ValueError("mons: monitor names must be unique")
        if self.tiebreaker is not None and self.tiebreaker not in names:
            raise ValueError(
                f"tiebreaker: {self.tiebreaker!r} is not a monitor (monitors: {', '.join(names)})"
            )
        if self.tiebreaker is not None and self.election_strategy == "classic":
            raise ValueError("election_strategy: stretch mode (a tiebreaker) requires the "
                             "connectivity strategy")
        if self.duration <= 0:
            raise ValueError("duration: must be positive")
        return self

    @property
    def strategy(self) -> str:
        return self.election_strategy or ("connectivity" if self.tiebreaker else "classic")


#: erasure-code techniques per plugin (src/erasure-code/jerasure, src/erasure-code/isa)
EC_TECHNIQUES = {"jerasure": ("reed_sol_van", "reed_sol_r6_op", "cauchy_orig", "cauchy_good",
                              "liberation", "blaum_roth", "liber8tion"),
                 "isa": ("reed_sol_van", "cauchy")}


class Pool(_M):
    """The pool the workload writes to: replicated, or erasure-coded."""

    type: Literal["replicated", "erasure"] = Field("replicated", description=
            "'replicated' (size copies) or 'erasure' (k data and m coding chunks per stripe on k+m "
            "OSDs; RBD and CephFS data on such a pool, their metadata on a replicated one, which "
            "the data path does not touch for an overwrite).")
    k: Int | None = Field(None, ge=1, le=32, description="erasure: data chunks per stripe (default "
            "profile: 2).")
    m: Int | None = Field(None, ge=1, le=16, description="erasure: coding chunks per stripe "
            "(default profile: 2).")
    plugin: Literal["jerasure", "isa"] = Field("jerasure", description=
            "erasure: the erasure-code plugin (Ceph's default jerasure; isa is Intel's ISA-L).")
    technique: str | None = Field(None, description="erasure: the plugin's technique (default "
            "reed_sol_van; jerasure: reed_sol_van, reed_sol_r6_op, cauchy_orig, cauchy_good, "
            "liberation, blaum_roth, liber8tion; isa: reed_sol_van, cauchy). With m=1 every "
            "technique is a plain XOR.")
    stripe_unit: Size = Field(4096, description="erasure: bytes of one chunk of a stripe "
            "(osd_pool_erasure_code_stripe_unit, 4 KiB); a stripe holds k of them.")
    allow_ec_overwrites: bool = Field(True, description="erasure: partial overwrites allowed "
            "(needed for RBD and CephFS data; Luminous on, BlueStore only).")
    ec_optimizations: bool = Field(False, description="erasure, Tentacle on "
            "(allow_ec_optimizations): partial reads (only the shards that hold the data) and "
            "partial writes (read only what the parity update needs).")
    size: Int = Field(3, ge=1, le=48, description="Replicas per object (an erasure-coded pool's "
            "size is k+m, set from them).")
    min_size: Int | None = Field(None, ge=1, description="Replicas needed for I/O (default size - "
            "size//2).")
    pg_num: Int = Field(128, ge=1, le=65536, description="Placement groups (at most "
            "mon_max_pool_pg_num, 65536).")
    failure_domain: Literal["host", "osd"] = Field(
        "host", description="CRUSH rule's failure domain: 'host' (the default rule: replicas on "
        "distinct hosts) or 'osd' (distinct OSDs, possibly on one host: single-node clusters; a "
        "replica on the primary's host is reached over loopback).")

    @model_validator(mode="after")
    def _sizes(self) -> Pool:
        if self.type == "erasure":
            # k, m and technique default to Ceph's default profile (k=2 m=2, jerasure
            # reed_sol_van) and size is k + m, as Ceph sets it; a size given with them must
            # agree.  Set here, not before validation, so that the fields stay unset
            # (model_fields_set): the report names them as defaults, not as given
            k, m = self.k or 2, self.m or 2
            if "size" in self.model_fields_set and self.size != k + m:
                raise ValueError(f"size: an erasure-coded pool's size is k+m = {k + m}; set it to "
                                 f"that or remove size (got {self.size!r})")
            for f, v in (("k", k), ("m", m), ("size", k + m),
                         ("technique", self.technique or "reed_sol_van")):
                object.__setattr__(self, f, v)
        if self.type == "replicated":
            for f in ("k", "m", "technique"):
                if getattr(self, f) is not None:
                    raise ValueError(f"{f}: applies to erasure-coded pools (type: erasure)")
        else:
            tech = self.technique
            if tech not in EC_TECHNIQUES[self.plugin]:
                raise ValueError(f"technique: {tech!r} is not a technique of the {self.plugin} "
                                 f"plugin ({', '.join(EC_TECHNIQUES[self.plugin])})")
            if self.stripe_unit < 4096 or self.stripe_unit % 4096:
                raise ValueError("stripe_unit: a multiple of 4 KiB (BlueStore's block)")
        if self.min_size is not None and self.min_size > self.size:
            raise ValueError(f"min_size: min_size ({self.min_size}) is larger than size ({self.size})")
        return self


class Ceph(_M):
    """Ceph release and the settings that matter for latency."""

    release: Release = Field("reef", description="Ceph release: luminous (12), mimic (13), "
            "nautilus (14), octopus (15), pacific (16), quincy (17), reef (18), squid (19) or "
            "tentacle (20).")
    version: str | None = Field(None, pattern=r"^\d+\.\d+\.\d+$", description=
            "Point release, e.g. '14.2.2'; matters where a default changed inside a release "
            "(min_alloc_size_ssd 16 KiB before 14.2.8).")
    build: Literal["upstream-deb", "distro", "rpm", "container", "source", "unknown"] = Field(
        "unknown", description="How the Ceph binaries were built: 'upstream-deb' (the project's "
        "Debian/Ubuntu packages: their bundled RocksDB was compiled without optimisation until "
        "16.2.15, 17.2.8 and 18.2.4, which multiplies RocksDB's work in the commit and metadata "
        "path), 'distro' (the distribution's own packages), 'rpm', 'container' (cephadm, Rook: "
        "upstream images), 'source', or 'unknown' (the default: where an upstream .deb could have "
        "had the defect, the model takes the geometric middle of the two builds and the report "
        "says so). `ceph versions` and the hosts' package manager tell which.")
    debug_logging: Literal["default", "off"] = Field("default", description=
            "'default': the release's debug levels (from Nautilus no success-path line is "
            "gathered; Luminous and Mimic gather the messenger's up to level 5, and their OSDs do "
            "some string work whatever the level: the release's logging_overhead); 'off': every "
            "subsystem 0/0. ceph.debug then sets single subsystems.")
    debug: dict[Literal["osd", "optracker", "bluestore", "bluefs", "bdev", "ms", "throttle",
            "mclock"], str | int] = Field(default_factory=dict, description=
                    "Debug levels of single subsystems as Ceph writes them, 'log/gather' "
                    "(debug_osd = 20/20 -> {osd: '20/20'}; '10' means 10/10): every line up to the "
                    "gather level is formatted in the thread that logs it, costing CPU on the op's "
                    "path (log.line per line; the lines per op and level are counted from the Reef "
                    "source: cephsim/spec/debuglog.py). On top of debug_logging.")
    op_shards: Int | None = Field(None, ge=1, description="osd_op_num_shards override (default per "
            "release and media).")
    op_threads_per_shard: Int | None = Field(None, ge=1, description=
            "osd_op_num_threads_per_shard override.")
    ms_async_op_threads: Int = Field(3, ge=1, description="Messenger worker threads per process.")
    librbd_threads: Int | None = Field(None, ge=1, description="Threads a librbd client's I/O "
            "dispatch runs on; default per release: 1 (rbd_op_threads) up to Octopus, 2 "
            "(librados_thread_count, the asio io_context pool) from Pacific.")
    profile: str | None = Field(None, description="Calibrated software-cost profile file (YAML) "
            "that overrides the release defaults; relative to the scenario file.")
    software: dict[str, Kcycles] = Field(default_factory=dict, description=
            "Per-stage software cost overrides in kilocycles at reference per-clock speed, e.g. "
            "{osd.do_op: 120}.")
    tails: bool = Field(True, description="Model background stalls (RocksDB flush/compaction, "
            "BlueFS log) that cause tail latency.")
    osd_memory_target: Annotated[Size, AfterValidator(_memory_target)] = Field(
        4 * 1024**3, json_schema_extra={"minimum": MIN_OSD_MEMORY_TARGET}, description=
                "osd_memory_target per OSD (default 4 GiB, at least 896 MiB as in Ceph). "
                "BlueStore's cache autotuner may use up to (1 - osd_memory_expected_fragmentation "
                "0.15) x target - osd_memory_base 768 MiB for its caches: the onode cache and "
                "RocksDB's block cache against the objects the workload touches decide how often "
                "an I/O must first read its object's metadata from the DB device (the report's "
                "header gives the hit ratios), and with workload.read_cache=warm the budget bounds "
                "how much of the workload's data the OSDs' buffer caches hold.")
    ms_mode: Literal["crc", "secure"] = Field("crc", description="msgr2 connection mode of the "
            "daemons and the librbd/librados clients (ms_cluster_mode, ms_service_mode, "
            "ms_client_mode; Nautilus on): 'crc' (the default 'crc secure' settles on crc: CRC32C "
            "only, nothing signed) or 'secure' (every frame AES-128-GCM encrypted and "
            "authenticated, on both ends).")
    cephx_sign_messages: bool = Field(True, description="cephx signs each message on msgr v1 "
            "connections (the default): every connection on Luminous and Mimic, and kernel clients "
            "mapped with ms_mode=legacy (workload.kernel_ms_mode). msgr2 connections ignore it "
            "(crc mode signs nothing; secure mode authenticates every frame).")
    bluestore_cache_size: Annotated[Size, AfterValidator(_cache_size)] | None = Field(
        None,
        json_schema_extra={"minimum": MIN_BLUESTORE_CACHE},
        description="A fixed BlueStore cache per OSD "
        "(bluestore_cache_autotune off), split by the release's ratios. null = as the "
        "release sizes it: Luminous and Mimic 3 GiB on flash, 1 GiB on HDD "
        "(bluestore_cache_size_ssd/hdd); from Nautilus the autotuner under "
        "osd_memory_target.",
    )
    bluefs_buffered_io: bool | None = Field(None, description="BlueFS reads RocksDB's files "
            "through the kernel's page cache (true) or with O_DIRECT (false): with it on, a "
            "block-cache miss may be served from the host's RAM (hosts' memory) instead of the DB "
            "device. null = the release's default, which changed inside Nautilus and Octopus: "
            "true in Mimic, 14.2.0-14.2.9, 14.2.22, 15.2.0-15.2.1, from 15.2.13 and from Pacific "
            "on; false in Luminous, 14.2.10-14.2.21 and 15.2.2-15.2.12 (ceph.version picks the "
            "point release; without it the release's last default, named as assumed in the "
            "header).")
    wal_log_sync: bool | None = Field(None, description="Each RocksDB WAL fsync also writes and "
            "flushes BlueFS's own log, because the WAL file grew (one more write and flush per "
            "commit cycle). null = per release: no for luminous to octopus (their RocksDB recycles "
            "WAL files), yes for pacific to squid (RocksDB >= 6.8 does not), no again for tentacle "
            "(bluefs_wal_envelope_mode, default on: the WAL records carry their own length). false "
            "on an earlier release models envelope mode.")

    @field_validator("debug")
    @classmethod
    def _debug_levels(cls, v: dict[str, str | int]) -> dict[str, str]:
        out = {}
        for name, level in v.items():
            if isinstance(level, bool):
                raise ValueError(f"{name}: {level!r} is not a debug level")
            try:
                log, gather = parse_level(str(level))
            except ValueError as e:
                raise ValueError(f"{name}: {e}") from None
            out[name] = f"{log}/{gather}"
        return out

    @model_validator(mode="after")
    def _version_of_release(self) -> Ceph:
        if self.version is not None:
            major = int(self.version.split(".")[0])
            if major != RELEASE_MAJOR[self.release]:
                named = next((r for r, m in RELEASE_MAJOR.items() if m == major), None)
                hint = f"{major}.x is {named}" if named else f"no modelled release is {major}.x"
                raise ValueError(f"version: {self.version} is not a point release of {self.release} "
                                 f"({RELEASE_MAJOR[self.release]}.x; {hint}); "
                                 "give a matching version, or null for the release's defaults")
        return self


class Workload(_M):
    """fio-like workload."""

    rw: Literal["write", "randwrite", "read", "randread", "rw", "randrw"] = Field("randwrite", description=
            "I/O pattern, as fio's rw=.")
    rwmixread: Int = Field(50, ge=0, le=100, description="rw/randrw: percentage of reads.")
    bs: Size = Field(4096, description="Block size, e.g. '4KiB' or fio's '4k'. Sizes are binary in "
                                       "every spelling, as fio and rbd read them (4KB = 4kB = 4KiB "
                                       "= 4096 bytes); a bare number is bytes.")
    iodepth: Int = Field(1, ge=1, le=4096, description="I/Os in flight per job.")
    numjobs: Int = Field(1, ge=1, le=1024, description="Independent jobs (each with its own image "
            "and iodepth).")
    engine: Literal["rbd", "krbd", "cephfs", "rados"] = Field("rbd", description=
            "Client: librbd (fio rbd engine), kernel rbd, CephFS kernel client, or librados.")
    ioengine: Literal["libaio", "psync"] | None = Field(None, description=
            "fio's I/O engine on a kernel client (krbd, cephfs): 'libaio' (asynchronous; the "
            "default) or 'psync' (pwrite, fio's default when --ioengine is not given): one I/O at "
            "a time per job (iodepth 1), and fio records no slat, so clat is the whole I/O. The "
            "same path through the client either way. Not for rbd and rados, which are fio's own "
            "asynchronous engines.")
    kernel_ms_mode: Literal["legacy", "crc", "secure"] | None = Field(None, description=
            "A kernel client's messenger (krbd/CephFS mount option ms_mode): 'legacy' (the "
            "default: msgr v1, messages signed when ceph.cephx_sign_messages), 'crc' or 'secure' "
            "(msgr2, kernel 5.11 on). Not for rbd and rados, which follow ceph.ms_mode.")
    clients: list[str] | None = Field(None, description="Client host names; jobs are spread over "
            "them. Default: the first host without OSDs.")
    image_size: Size = Field(10 * 1024**3, description="RBD image size per job (sets how many "
            "objects/PGs are touched); '10GB' means 10 GiB, as fio's --size and rbd create --size "
            "read it.")
    object_size: Size = Field(4 * 1024**2, description="RADOS object size.")
    image_state: Literal["written", "fresh"] = Field("written", description=
            "What the image held before the run. 'written' (default): every block was written "
            "before (a prefill, or a benchmark after others), so a write is an overwrite of "
            "allocated space. 'fresh': the image was just created: a write lands in unallocated "
            "space and takes BlueStore's allocation path (a new blob written directly, even where "
            "min_alloc_size is larger than the write and an overwrite would be deferred), and a "
            "read of a never-written block finds no object and reads no device.")
    metadata_cache: Literal["steady", "cold"] = Field("steady", description=
            "State of the OSDs' metadata caches (onodes, RocksDB blocks). 'steady' (default): what "
            "the workload's own access pattern leaves in them (every object cached when they all "
            "fit). 'cold': nothing cached, the first touch of every object since the hosts started "
            "(the kernel's page cache empty too): each I/O first reads its object's onode and "
            "extent-map shard from the DB device.")
    read_cache: Literal["cold", "warm"] = Field("cold", description="State of the OSDs' BlueStore "
            "buffer caches (bluestore_default_buffered_read is on) for reads. 'cold' (default): "
            "every read goes to the device, as on a first pass over freshly written data (writes "
            "do not fill the cache: bluestore_default_buffered_write is off). 'warm': the data was "
            "read before (e.g. by an earlier test of the same suite), so each read hits the "
            "primary's cache with the probability cache bytes / data bytes, capped at 1 (see "
            "ceph.osd_memory_target).")

    @property
    def fio_ioengine(self) -> str:
        """The ioengine fio reports: rbd, rados, or the kernel client's libaio / psync."""
        if self.engine in ("rbd", "rados"):
            return self.engine
        return self.ioengine or "libaio"

    @property
    def sync_io(self) -> bool:
        """A synchronous fio engine: no submission latency is recorded (fio's slat)."""
        return self.ioengine == "psync"

    # the direction test, told once: fio's rw as the model, its reports and what-ifs read it
    @property
    def random(self) -> bool:
        """Random offsets (randwrite, randread, randrw); otherwise a sequential walk."""
        return self.rw.startswith("rand")

    @property
    def mixed(self) -> bool:
        """Each I/O's direction drawn, rwmixread % of them reads (rw, randrw)."""
        return self.rw in ("rw", "randrw")

    @property
    def reads_only(self) -> bool:
        """Every I/O a read (read, randread)."""
        return self.rw in ("read", "randread")

    @property
    def writes_only(self) -> bool:
        """Every I/O a write (write, randwrite)."""
        return self.rw in ("write", "randwrite")

    @property
    def blocks_per_object(self) -> int:
        """Blocks of ``bs`` to an object: block b of an image (counted from its start) lies
        in object b // blocks_per_object."""
        return max(1, self.object_size // self.bs)

    @model_validator(mode="after")
    def _bs(self) -> Workload:
        if self.bs <= 0 or self.bs % 512:
            hint = ""
            if self.bs > 0 and self.bs % 1000 == 0:  # a bare 4000 is bytes, not 4 KiB
                hint = "; a bare number is bytes: write 4KiB (or fio's 4k)"
            raise ValueError(f"bs: must be a positive multiple of 512 bytes (got {self.bs}){hint}")
        obj = self.object_size
        if self.engine in ("rbd", "krbd") and (obj & (obj - 1) or not 4096 <= obj <= 32 * 2**20):
            raise ValueError(f"object_size: an RBD image's objects are a power of two from 4 KiB "
                             f"to 32 MiB (rbd create --object-size, image order 12-25); got "
                             f"{format_size(obj)}")
        if self.engine == "cephfs" and obj % 65536:
            raise ValueError(f"object_size: a CephFS file layout's object size is a multiple of "
                             f"64 KiB; got {format_size(obj)}")
        if self.bs > self.object_size:
            raise ValueError("bs larger than the object size is not modelled")
        if self.ioengine is not None and self.engine not in ("krbd", "cephfs"):
            raise ValueError(f"ioengine: applies to the kernel clients (krbd, cephfs); with "
                             f"engine {self.engine} fio runs its own asynchronous {self.engine} "
                             f"engine: remove ioengine")
        if self.kernel_ms_mode is not None and self.engine not in ("krbd", "cephfs"):
            raise ValueError(f"kernel_ms_mode: applies to the kernel clients (krbd, cephfs); "
                             f"engine {self.engine} follows ceph.ms_mode: remove kernel_ms_mode")
        if self.ioengine == "psync" and self.iodepth > 1:
            raise ValueError(f"iodepth {self.iodepth} with ioengine psync: a synchronous engine "
                             f"has one I/O in flight per job (fio ignores iodepth); set iodepth: 1, "
                             f"or more numjobs, or ioengine: libaio")
        if self.image_size < self.bs:
            raise ValueError(f"image_size ({self.image_size} bytes) is smaller than one block "
                             f"(bs {self.bs} bytes)")
        return self


class Run(_M):
    """Run length and randomness."""

    seed: Int = Field(1, ge=0, description="Seed of every random stream in the run.")
    ios: Int | None = Field(None, ge=1, le=10**9, description="Stop after this many I/Os complete "
            "after ramp (per run).")
    runtime: Duration | None = Field(None, description="Simulated time after ramp, e.g. '60s'. "
            "Given with ios, the run ends at whichever comes first (as fio's runtime with a size).")
    ramp_time: Duration = Field(0, description="Simulated warm-up excluded from statistics, like "
            "fio's ramp_time.")
    ramp_ios: Int = Field(200, ge=0, le=10**9, description="I/Os excluded from statistics at the "
            "start (in addition to ramp_time).")
    records: bool = Field(True, description="Keep per-op stage records (breakdown, op-tracker "
            "times). Statistics do not depend on it.")
    fast_path: bool = Field(True, description="Engine optimisation that runs causally-safe steps "
            "without a SimPy event; results are identical either way.")
    max_memory: Size = Field(8 * 1024**3, ge=64 * 1024**2, description=
            "The most memory a run may use. Checked twice: before it starts, by an estimate from "
            "the cluster's size (hosts' cores, OSDs and their PGs), the I/Os in flight and the ops "
            "kept, so a scenario over it is refused at validate and run naming what to lower; and "
            "during the run, against the memory its process holds (read every 4,096 I/Os), which "
            "stops it with nothing written. Raise it on a larger machine.")

    @model_validator(mode="after")
    def _length(self) -> Run:
        if self.ios is None and self.runtime is None:
            object.__setattr__(self, "ios", 20000)
        if self.runtime is not None and self.runtime <= 0:
            raise ValueError("runtime must be positive")
        if self.ramp_time < 0:
            raise ValueError("ramp_time must not be negative")
        if self.ramp_time > DAY_NS or (self.runtime or 0) > DAY_NS:
            raise ValueError("runtime and ramp_time are simulated time, at most 24h each (a "
                             "few seconds of simulated time already hold many thousand I/Os)")
        return self


#: the slowest mean an I/O slot plausibly sees (a busy HDD): the measured part of an ios-run
#: lasts less than ios x this / I/Os in flight
_SLOWEST_IO_NS = 10_000_000


def run_warnings(s: Scenario) -> list[str]:
    """A warm-up (run.ramp_time) longer than the measured run: the simulation spends most of
    its time, with no progress shown, before measuring (``run`` and ``validate`` print it)."""
    run = s.run
    if run.ramp_time <= 0:
        return []
    ramp = format_span(run.ramp_time)
    if run.runtime is not None and run.ramp_time > run.runtime:
        return [f"run.ramp_time {ramp} is longer than run.runtime {format_span(run.runtime)}: "
                "most of the simulation is warm-up, with no progress shown"]
    in_flight = s.workload.numjobs * s.workload.iodepth
    if run.runtime is None and run.ios is not None:
        bound = run.ios * _SLOWEST_IO_NS // in_flight
        if run.ramp_time > bound:
            return [f"run.ramp_time {ramp} is longer than the measured run ({run.ios} I/Os, "
                    f"{in_flight} in flight: under {format_duration(bound)} even at 10ms each): "
                    "most of the simulation is warm-up, with no progress shown"]
    return []


def _some_values(values: list[Any]) -> list[Any]:
    if not values:
        raise ValueError("empty list of values")
    return values


class SweepBlock(_M):
    """Axes of a what-if sweep, read by ``cephsim sweep`` (``cephsim run`` ignores it)."""

    set: dict[str, Annotated[list[Any], AfterValidator(_some_values)]] = Field(description=
            "Field path -> list of values; the sweep runs every combination, e.g. "
            "{workload.iodepth: [1, 8, 32]}.")
    seeds: Int = Field(1, ge=1, description="Seeds per point (run.seed, run.seed+1, ...).")


def _printable(v: str, allowed: str) -> str:
    """``v`` if it is text a terminal and a file can show: no control character (an escape
    sequence would reach the terminal raw) and no lone surrogate (no encoding writes one)."""
    for i, ch in enumerate(v):
        if ch in allowed:
            continue
        if "\ud800" <= ch <= "\udfff" or not ch.isprintable():
            raise ValueError(f"character {i + 1} is {ascii(ch)}, not printable text "
                             "(no control characters, escape sequences or lone surrogates)")
    return v


@dataclass(frozen=True)
class Origin:
    """Where a scenario was read from: its file (None for one given as data), whose folder
    relative paths in it start from, and the ``--set`` texts applied on top, which reports
    name as given."""

    path: str | None = None
    sets: tuple[str, ...] = ()


class Scenario(_M):
    """A cephsim scenario: cluster, network, pool, Ceph, workload and run."""

    # not a field: the schema is what a user writes; where it was read from is the loader's
    _origin: Origin = PrivateAttr(default_factory=Origin)

    name: str = Field("scenario", min_length=1, max_length=200, description="Short name used "
            "in reports (printable text: no control characters; file names made from it keep "
            "letters, digits and ._,=+-).")
    description: str = Field("", description="What question this scenario answers.")

    @field_validator("name")
    @classmethod
    def _printable_name(cls, v: str) -> str:
        return _printable(v, "")

    @field_validator("description")
    @classmethod
    def _printable_description(cls, v: str) -> str:
        return _printable(v, "\n\t")
    hosts: list[HostGroup] = Field(min_length=1, description="Host groups (OSD hosts and client "
            "hosts).")
    network: Network = Field(default_factory=Network)
    pool: Pool = Field(default_factory=Pool)
    ceph: Ceph = Field(default_factory=Ceph)
    workload: Workload = Field(default_factory=Workload)
    run: Run = Field(default_factory=Run)
    sites: Sites | None = Field(None, description="Sites and inter-site links (multi-site / "
            "stretch clusters); hosts and monitors name their site.")
    sweep: SweepBlock | None = Field(None, description="Axes for `cephsim sweep` (ignored by "
            "`cephsim run`).")
    monitors: Monitors | None = Field(None, description="Monitor cluster, its links and the "
            "clients running monitor commands; simulated after the data path.")

    @property
    def origin(self) -> Origin:
        """Where this scenario was read from (kept by copies made from it)."""
        return self._origin

    def host_groups(self) -> dict[str, HostGroup]:
        """Every host by name (``{group.name}{i}``) -> its group.  Names are unique
        (checked below), so a host named ``a00`` is group ``a0``'s, never group ``a``'s."""
        return {f"{g.name}{i}": g for g in self.hosts for i in range(g.count)}

    @model_validator(mode="after")
    def _cross_checks(self) -> Scenario:
        names = [f"{g.name}{i}" for g in self.hosts for i in range(g.count)]
        if len(set(names)) != len(names):
            raise ValueError("hosts: host group names produce duplicate host names")
        topo = self.network.topology
        if topo.kind == "leaf-spine":
            routers = {f"spine{s}" for s in range(topo.spines)}
            for gi, g in enumerate(self.hosts):
                clash = sorted(routers & {f"{g.name}{i}" for i in range(g.count)})
                if clash:
                    raise ValueError(f"hosts.{gi}.name: host {clash[0]} has the name of a spine "
                                     f"router of the leaf-spine (spine0..spine{topo.spines - 1}); "
                                     "rename the group")
        if topo.kind == "mesh":
            for gi, g in enumerate(self.hosts):
                if g.bond > 1:
                    raise ValueError(f"hosts.{gi}.bond: in a full mesh each NIC port is the link "
                                     "to one peer (mesh_mode routed) or carries every frame "
                                     "(broadcast): bonding is not used; remove bond")
        osd_hosts = [f"{g.name}{i}" for g in self.hosts if g.osds and g.osds.count > 0
                     for i in range(g.count)]
        if not osd_hosts:
            raise ValueError("hosts: no host has OSDs")
        n_osds = sum(g.count * g.osds.count for g in self.hosts if g.osds)
        if self.pool.type == "erasure":
            if not self.pool.allow_ec_overwrites and not self.workload.reads_only:
                raise ValueError("pool.allow_ec_overwrites: RBD and CephFS write into an "
                                 "erasure-coded pool only with overwrites allowed")
            if self.pool.ec_optimizations and self.ceph.release != "tentacle":
                raise ValueError(f"pool.ec_optimizations: the optimized EC path came with "
                                 f"Tentacle (20); release {self.ceph.release} has the classic one")
            host_domain = self.pool.failure_domain == "host"
            where = "OSD hosts" if host_domain else "OSDs"
            count = len(osd_hosts) if host_domain else n_osds
            if self.pool.size > count:
                raise ValueError(
                    f"pool.k: k+m = {self.pool.size} shards need as many {where}, there are "
                    f"{count} (lower k or m, or pool.failure_domain: osd)")
        if self.pool.failure_domain == "host" and self.pool.size > len(osd_hosts):
            raise ValueError(
                f"pool.size: size {self.pool.size} is larger than the number of OSD hosts "
                f"({len(osd_hosts)}): CRUSH cannot place the replicas on distinct hosts "
                "(pool.failure_domain: osd places them on distinct OSDs)")
        if self.pool.size > n_osds:
            raise ValueError(f"pool.size: size {self.pool.size} is larger than the number of "
                             f"OSDs ({n_osds})")
        clients = self.workload.clients
        if clients:
            for c in clients:
                if c not in names:
                    raise ValueError(f"workload.clients: no host named {c!r} (hosts: {', '.join(names)})")
        for i, ln in enumerate(self.network.links):
            for h in (ln.src, ln.dst):
                if h not in names:
                    raise ValueError(f"network.links: no host named {h!r}")
            if ln.src == ln.dst:
                raise ValueError(f"network.links.{i}.to: a link from {ln.src!r} to itself; a "
                                 "link joins two different hosts")
        _check_sites(self)
        _check_monitors(self, names)
        return self


def _site_error(path: str, site: str, sites: Sites | None) -> ValueError:
    if sites is None:
        return ValueError(f"{path}: site {site!r} given but the scenario has no `sites` section")
    return ValueError(f"{path}: no site named {site!r} (sites: {', '.join(sites.names)})")


def _check_sites(s: Scenario) -> None:
    for gi, g in enumerate(s.hosts):
        if g.site is not None and (s.sites is None or g.site not in s.sites.names):
            raise _site_error(f"hosts.{gi}.site", g.site, s.sites)
        if s.sites is not None and g.site is None:
            raise ValueError(f"hosts.{gi}.site: every host group needs a site when `sites` is given "
                             f"(sites: {', '.join(s.sites.names)})")


def _check_monitors(s: Scenario, names: list[str]) -> None:
    m = s.monitors
    if m is None:
        return
    mon_names = [x.name for x in m.mons]
    for i, mon in enumerate(m.mons):
        if mon.host is not None and mon.host not in names:
            raise ValueError(
                f"monitors.mons.{i}.host: no host named {mon.host!r} (hosts: {', '.join(names)})"
            )
        if mon.site is not None and (s.sites is None or mon.site not in s.sites.names):
            raise _site_error(f"monitors.mons.{i}.site", mon.site, s.sites)
    for i, c in enumerate(m.clients or []):
        if c not in names:
            raise ValueError(f"monitors.clients.{i}: no host named {c!r} (hosts: {', '.join(names)})")
        if c in mon_names:
            raise ValueError(
                f"monitors.clients.{i}: {c!r} is both a host and a monitor name; rename the monitor"
            )
    nodes = set(mon_names) | set(m.clients or []) | set(s.workload.clients or [])
    if not m.clients and not s.workload.clients:
        nodes |= set(names)  # the default client host is decided when resolving
    for i, ln in enumerate(m.links):
        for key, n in (("from", ln.src), ("to", ln.dst)):
            if n not in nodes:
                raise ValueError(f"monitors.links.{i}.{key}: no monitor or monitor client named {n!r} "
                                 f"(monitors: {', '.join(mon_names)})")
        if ln.src == ln.dst:
            raise ValueError(f"monitors.links.{i}.to: a link from {ln.src!r} to itself; a link "
                             "joins two different monitors or a monitor and a client")
    if m.tiebreaker is not None and s.sites is not None:
        tb = next(x for x in m.mons if x.name == m.tiebreaker)
        host_group = s.host_groups().get(tb.host) if tb.host else None
        site = tb.site or (host_group.site if host_group else None)
        data_sites = {g.site for g in s.hosts if g.osds and g.osds.count > 0}
        if site is None:
            raise ValueError(
                f"monitors.tiebreaker: the tiebreaker {tb.name!r} has no site; give "
                f"monitors.mons.{mon_names.index(tb.name)}.site"
            )
        if site in data_sites:
            raise ValueError(
                f"monitors.tiebreaker: the tiebreaker {tb.name!r} is at site {site!r}, which holds OSDs; "
                "stretch mode needs it at a third site"
            )
