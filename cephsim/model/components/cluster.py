"""Builds the simulated cluster from the resolved model: hosts, threads, disks, paths.

Every component gets a dotted name (``osd3.kv_sync``, ``osd3.disk``, ``host2.db0``,
``host2.disk0`` for a drive split by several OSDs, ``host2.cpu``, ``client0.job0.msgr1``)
that also names its random stream and its metrics.  Nothing here knows the Ceph protocol: that is
:mod:`cephsim.model.writepath`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Hashable

from cephsim.catalog.models import DiskModel
from cephsim.model.components.cpu import CoreSet, Package, Quota, Thread
from cephsim.model.components.disk import Disk
from cephsim.model.components.network import Hop, Impairment, Path, Port, TcpWindow
from cephsim.model.components.placement import acting_sets
from cephsim.model.engine.draw import Sampler, fixed
from cephsim.model.resolve import HostConfig, Resolved
from cephsim.model.rng import Streams, stable_hash
from cephsim.spec.dists import Normal, Uniform

#: kcryptd workers per encrypted OSD (dm-crypt's kcryptd is an unbound workqueue with up to
#: one worker per online CPU, unless same_cpu_crypt: a pool of parallel workers here)
KCRYPTD_WORKERS = 8


@dataclass
class OSD:
    id: int
    name: str
    host: str
    msgr: list[Thread]
    shards: list[list[Thread]]  #: shard -> its threads (thread 0 runs commit callbacks)
    aio_data: Thread
    aio_bluefs: Thread
    kv_sync: Thread
    kv_final: Thread
    disk: Disk  #: the data device (block)
    db: Disk  #: where RocksDB and its WAL live: a shared DB device, or ``disk`` itself
    #: BlueStore's Finisher, where Luminous and Mimic run commit callbacks (resolve.COMMIT_FINISHER)
    finisher: Thread | None = None
    pg_lock: dict[int, int] = field(default_factory=dict)
    kv_pending: list = field(default_factory=list)
    kv_running: bool = False
    kv_need_flush: bool = False
    #: the deferred writes queued, not yet applied: (image, block, bytes), blocks counted in ``bs``
    deferred_extents: list = field(default_factory=list)
    deferred_bytes: int = 0  #: their throttle cost
    throttle_kv: int = 0  #: bluestore_throttle_bytes in use, txc costs (BlueStoreThrottle)
    throttle_deferred: int = 0  #: the deferred throttle in use
    throttle_waiters: list = field(default_factory=list)
    throttled: int = 0  #: txcs that had to wait for a throttle
    kv_cycles: int = 0
    kv_batched: int = 0
    conns: dict = field(default_factory=dict)
    #: dm-crypt (encryption: luks): the kcryptd workers that encrypt and decrypt, the
    #: device's dmcrypt_write thread that submits writes, the sector size (0: none).
    #: Kernel threads: not in the OSD's cgroup (its quota) nor in its %CPU.
    kcryptd: list = field(default_factory=list)
    crypt_write: Thread | None = None
    crypt_sector: int = 0
    crypt_next: int = 0  #: round robin over the kcryptd workers
    #: metadata caches: lookups and onode-cache hits, RocksDB gets and block-cache hits,
    #: the block-cache misses the kernel's page cache served (buffered BlueFS reads),
    #: and the object each job last touched here (it stays cached)
    meta_lookups: int = 0
    meta_hits: int = 0
    kv_gets: int = 0
    kv_hits: int = 0
    page_hits: int = 0
    meta_last: dict = field(default_factory=dict)

    def threads(self) -> list[Thread]:
        """Every thread of this OSD daemon."""
        return [*self.msgr, *(t for shard in self.shards for t in shard), self.aio_data,
                self.aio_bluefs, self.kv_sync, self.kv_final,
                *([self.finisher] if self.finisher else [])]

    def commit_thread(self, pg: int) -> Thread:
        """Where a committed txc's callback runs: the PG's shard's first thread, or
        (Luminous, Mimic) BlueStore's one finisher thread."""
        return self.finisher or self.shards[pg % len(self.shards)][0]

    def hold_pg(self, pg: int, t: int) -> None:
        """The PG lock of ``pg`` is held until at least ``t``."""
        held = self.pg_lock.get(pg, 0)
        self.pg_lock[pg] = t if t > held else held

    def worker(self, peer: Hashable) -> Thread:
        """The msgr-worker owning the connection to ``peer``: fixed when the connection
        is made, on the worker with the fewest connections (NetworkStack::get_worker)."""
        return _worker(self.msgr, self.conns, peer)


@dataclass
class ClientJob:
    """One fio job: its own process (librbd/librados) or kernel client."""

    index: int
    name: str
    host: str
    app: Thread  #: the fio thread
    librbd: list[Thread]  #: librbd's I/O dispatch threads (rbd engine; one before Pacific)
    msgr: list[Thread]  #: librados messenger workers (rbd, rados engines)
    finisher: Thread  #: librados finisher (rbd, rados engines)
    kworker: Thread  #: kernel client submission (krbd, cephfs engines): rbd/VFS work on fio's CPU
    conns: dict = field(default_factory=dict)

    def worker(self, peer: Hashable) -> Thread:
        """The librados msgr-worker owning the connection to ``peer`` (see OSD.worker)."""
        return _worker(self.msgr, self.conns, peer)


def _worker(workers: list[Thread], conns: dict, peer: Hashable) -> Thread:
    w = conns.get(peer)
    if w is None:
        load = [0] * len(workers)
        for i in conns.values():
            load[i] += 1
        w = conns[peer] = load.index(min(load))
    return workers[w]


class Cluster:
    """All simulated components, wired."""

    def __init__(self, r: Resolved, streams: Streams) -> None:
        self.r = r
        self.streams = streams
        costs = r.ceph.costs
        self.wakeup_kc = costs.cost("kernel.wakeup")
        self.coresets: dict[str, CoreSet] = {}
        self.quotas: dict[str, Quota] = {}  #: per-OSD CFS CPU quotas (osd_cpu_limit)
        self.host_cores: dict[str, tuple[CoreSet, CoreSet]] = {}
        for h in r.hosts:
            self._build_cores(h)
        self.osds: dict[int, OSD] = {}
        #: every separate DB device, by name (``<host>.db0``); shared by OSDs round-robin
        self.db_disks: dict[str, Disk] = {}
        #: data drives split by several OSDs (osds.per_device > 1), by name (``<host>.disk0``)
        self.shared_disks: dict[str, Disk] = {}
        for h in r.hosts:
            dbs = [self._disk(f"{h.name}.db{i}", h.db_disk) for i in range(h.db_devices)
                   if h.db_disk is not None]
            self.db_disks.update((d.name, d) for d in dbs)
            per = h.osds_per_device
            for i, o in enumerate(h.osd_ids):
                data = None
                if per > 1:  # ceph-volume batch: consecutive OSDs on one drive
                    name = f"{h.name}.disk{i // per}"
                    if name not in self.shared_disks:
                        assert h.disk is not None
                        self.shared_disks[name] = self._disk(name, h.disk)
                    data = self.shared_disks[name]
                self.osds[o] = self._build_osd(h, o, dbs[i % len(dbs)] if dbs else None, data)
        self.jobs: list[ClientJob] = []
        for j in range(r.workload.numjobs):
            host = r.clients[j % len(r.clients)]
            self.jobs.append(self._build_job(host, j))
        #: kernel client (krbd, cephfs): libceph's work item per OSD connection, shared by
        #: the jobs of a host (one ceph client instance per host)
        self.kernel_conns: dict[tuple[str, int], Thread] = {}
        self.ports: dict[str, Port] = {}
        self.paths: dict[tuple[str, str], Path] = {}
        self._routers: list[Thread] = []
        self._build_fabric()
        self.acting = acting_sets(r.pool.pg_num, r.pool.size,
                                  {h.name: h.osd_ids for h in r.hosts}, r.pool.failure_domain)

    # ------------------------------------------------------------------ hosts
    def _build_cores(self, h: HostConfig) -> None:
        total = h.cpu.cores
        clients = h.client_cores
        # one boost ceiling per socket, whichever core sets its cores are in; the OSD
        # cpuset takes the first cores (socket 0 first), the rest follow
        sockets = [Package(h.cpu) for _ in range(max(1, total // h.cpu.model.cores))]
        if h.osd_cores is not None and h.osd_ids and (clients or h.osd_cores < total):
            osd = CoreSet(f"{h.name}.osd_cpu", h.cpu, h.osd_cores, sockets)
            rest = CoreSet(f"{h.name}.cpu", h.cpu, clients or total - h.osd_cores, sockets,
                           first=h.osd_cores)
        else:
            # the OSDs (if any) share every core with the client side; so they do when their
            # cpuset is every core: nothing is left to confine the rest to, so it is not
            # confined (osd_cores = all cores is no limit)
            osd = rest = CoreSet(f"{h.name}.cpu", h.cpu, clients or total, sockets)
        self.coresets[osd.name] = osd
        self.coresets[rest.name] = rest
        self.host_cores[h.name] = (osd, rest)

    def _thread(self, name: str, cores: CoreSet, iowait: bool = False) -> Thread:
        # spread threads' home cores deterministically over the set's physical cores
        # (their first hardware threads: an idle machine runs one thread per core)
        home = stable_hash("home", name) % cores.n_physical
        return Thread(name, cores, home, self.wakeup_kc, iowait)

    def sampler(self, name: str, spec: object) -> Sampler:
        return Sampler(spec, self.streams.get(name))

    def _disk(self, name: str, model: DiskModel) -> Disk:
        hit = (self.sampler(f"{name}.cache_hit", model.cache_hit)
               if model.cache_hit is not None else None)
        return Disk(name, model, self.sampler(f"{name}.write", model.write_4k),
                    self.sampler(f"{name}.flush", model.flush),
                    self.sampler(f"{name}.read", model.read_4k), hit)

    def disks(self) -> list[Disk]:
        """Every device once: the OSDs' data disks, then the separate DB devices."""
        data = {id(o.disk): o.disk for o in self.osds.values()}  # a shared drive once
        return list(data.values()) + list(self.db_disks.values())

    def _build_osd(self, h: HostConfig, o: int, db: Disk | None, data: Disk | None = None) -> OSD:
        cores = self.host_cores[h.name][0]
        c = self.r.ceph
        n = f"osd{o}"
        assert h.disk is not None
        disk = data or self._disk(f"{n}.disk", h.disk)
        osd = OSD(
            id=o, name=n, host=h.name,
            msgr=[self._thread(f"{n}.msgr{i}", cores) for i in range(c.msgr_workers)],
            shards=[[self._thread(f"{n}.shard{s}.t{i}", cores) for i in range(c.threads_per_shard)]
                    for s in range(c.op_shards)],
            aio_data=self._thread(f"{n}.bstore_aio", cores, iowait=True),
            aio_bluefs=self._thread(f"{n}.bluefs_aio", cores, iowait=True),
            kv_sync=self._thread(f"{n}.kv_sync", cores, iowait=True),
            kv_final=self._thread(f"{n}.kv_final", cores),
            disk=disk, db=db or disk,
            finisher=self._thread(f"{n}.finisher", cores) if c.commit_finisher else None)
        if h.crypt_sector:
            # kcryptd runs several encryptions in parallel (unbound workqueue, a worker per
            # CPU at most: a pool per OSD here); one dmcrypt_write kthread per mapped device
            # sorts and submits the encrypted writes
            osd.kcryptd = [self._thread(f"{n}.kcryptd{i}", cores) for i in range(KCRYPTD_WORKERS)]
            osd.crypt_write = self._thread(f"{n}.dmcrypt_write", cores)
            osd.crypt_sector = h.crypt_sector
        if h.osd_cpu_limit is not None:  # the daemon's cgroup: every thread of this OSD
            quota = self.quotas[f"{n}.cpu_quota"] = Quota(f"{n}.cpu_quota", h.osd_cpu_limit,
                                                          h.osd_cpu_period)
            for th in osd.threads():
                th.quota = quota
        return osd

    def _build_job(self, host: str, j: int) -> ClientJob:
        cores = self.host_cores[host][1]
        n = f"{host}.job{j}"
        nl = self.r.ceph.librbd_threads
        return ClientJob(index=j, name=n, host=host, app=self._thread(f"{n}.app", cores),
                         librbd=[self._thread(f"{n}.librbd" if nl == 1 else f"{n}.librbd{i}", cores)
                                 for i in range(nl)],
                         msgr=[self._thread(f"{n}.msgr{i}", cores)
                               for i in range(self.r.ceph.msgr_workers)],
                         finisher=self._thread(f"{n}.finisher", cores),
                         kworker=self._thread(f"{n}.kworker", cores))

    def kernel_conn(self, host: str, osd: int) -> Thread:
        """The kworker running libceph's work for ``host``'s connection to ``osd``.

        Linux queues ``ceph_con_workfn`` per connection on the ceph-msgr workqueue, from
        the CPU that received the packets (RSS spreads connections over CPUs): replies
        from different OSDs are read and completed in parallel, those from one OSD in
        order.  Created on first use.
        """
        th = self.kernel_conns.get((host, osd))
        if th is None:
            th = self.kernel_conns[(host, osd)] = self._thread(
                f"{host}.osd{osd}-con.kworker", self.host_cores[host][1])
        return th

    # ------------------------------------------------------------------ network
    def _build_fabric(self) -> None:
        r = self.r
        net = r.network
        self.sw_ports: dict[str, Port] = {}
        if net.kind == "mesh":  # no switch: the hosts' own ports are the whole fabric
            return
        for h in r.hosts:
            speed = min(h.nic.speed_bps, net.switch.speed_bps)
            # one switch port per bond member towards the host (LACP hashes each flow to one)
            for lane in range(h.bond):
                key = h.name if lane == 0 else f"{h.name}#{lane}"
                name = f"switch.port.{h.name}" + (f".{lane}" if lane else "")
                self.sw_ports[key] = Port(name, speed)
        if net.kind == "leaf-spine" and net.spine is not None:
            spines = net.spines
            if net.hosts_per_leaf > 1:
                # a spine's port faces a leaf, not a host: all traffic from spine s to the hosts
                # of one leaf shares that link, which runs at the slower end's rate
                link = min(net.switch.speed_bps, net.spine.speed_bps)
                self.spine_ports = {(s, f"leaf{leaf}"): Port(f"spine{s}.port.leaf{leaf}", link)
                                    for s in range(spines) for leaf in sorted({h.leaf for h in r.hosts})}
            else:  # hosts route themselves: a spine port per host
                self.spine_ports = {(s, h.name): Port(f"spine{s}.port.{h.name}",
                                                      min(h.nic.speed_bps, net.spine.speed_bps))
                                    for s in range(spines) for h in r.hosts}
            self.spine_lat = [self.sampler(f"spine{s}.latency", net.spine.latency) for s in range(spines)]
            self.spine_threads: list[Thread | None] = []
            for s in range(spines):
                if net.spine_cpu is not None:
                    cs = CoreSet(f"spine{s}.cpu", net.spine_cpu, net.spine_cpu.cores)
                    self.coresets[cs.name] = cs
                    # forwarding runs in softirq: no scheduler wake-up, only C-state exits
                    self.spine_threads.append(Thread(f"spine{s}.softirq", cs, 0, 0.0))
                else:
                    self.spine_threads.append(None)
            self.leaf_lat = self.sampler("leaf.latency", net.switch.latency)
        else:
            self.switch_lat = self.sampler("switch.latency", net.switch.latency)

    def _impairment(self, name: str, imp: Any) -> Impairment:
        delay: Any = None
        if imp.delay > 0:
            if imp.jitter == 0:
                d = imp.delay
                delay = fixed(d)
            # built without the service-time checks: netem's jitter may reach below zero
            # (10ms +- 20ms, or a normal 10ms/5ms), and netem then sends at once, as
            # Path.transfer does with a draw <= 0
            elif imp.distribution == "uniform":
                spec: Any = Uniform.model_construct(low=imp.delay - imp.jitter,
                                                    high=imp.delay + imp.jitter)
                delay = self.sampler(f"{name}.delay", spec)
            else:
                spec = Normal.model_construct(mean=imp.delay, stddev=imp.jitter)
                delay = self.sampler(f"{name}.delay", spec)
        uni = None
        if imp.loss > 0:
            g = self.streams.get(f"{name}.loss")
            uni = g.random
        return Impairment(delay, imp.loss, uni)

    def path(self, src: str, dst: str) -> Path:
        key = (src, dst)
        p = self.paths.get(key)
        if p is None:
            p = self.paths[key] = self._build_path(src, dst)
        return p

    def _build_path(self, src: str, dst: str) -> Path:
        r = self.r
        net = r.network
        a, b = r.host(src), r.host(dst)
        if src == dst:  # daemons on the same host talk over loopback
            return Path(Port(f"{src}.lo", a.nic.speed_bps), [], fixed(0), fixed(0), [], net.mtu,
                        0.0, TcpWindow.of(net.tcp), name=f"lo {src}", loopback=True)
        hops: list[Hop] = []
        fwd_kc = 0.0
        if net.kind == "mesh":
            # a cable straight to the peer: no switch, so no forwarding latency and no port
            # to queue at but the sender's
            if net.mesh_mode == "routed":  # the peer's own port: sends to peers in parallel
                bps = min(a.nic.speed_bps, b.nic.speed_bps)  # the link trains to the slower end
                uplink = self.ports.setdefault(f"{src}.nic-{dst}", Port(f"{src}.nic-{dst}.tx", bps))
            else:  # broadcast bond: every frame on every port, so one rate for everything
                uplink = self.ports.setdefault(f"{src}.nic0",
                                               Port(f"{src}.nic0.tx", a.nic.speed_bps))
            return self._path(src, dst, uplink, hops, fwd_kc)
        lane = stable_hash("bond", src, dst) % a.bond
        # the host's link to its switch trains to the slower end (a 10G NIC in a 1G port
        # sends at 1G), as the switch's port towards the host does (_build_fabric)
        uplink_name, uplink_bps = f"{src}.nic{lane}", min(a.nic.speed_bps, net.switch.speed_bps)
        dlane = stable_hash("bond", src, dst) % b.bond  # the switch hashes the flow too
        dport = dst if dlane == 0 else f"{dst}#{dlane}"
        if net.kind == "leaf-spine" and net.spine is not None:
            spines = net.spines
            leafed = net.hosts_per_leaf > 1
            ct = net.switch.forwarding == "cut-through"
            if leafed and a.leaf == b.leaf:
                hops.append(Hop(self.leaf_lat, self.sw_ports[dport], ct))
            else:
                s = stable_hash("ecmp", src, dst) % spines
                if leafed:
                    # the leaf's uplink to spine s is shared by every flow hashed onto it
                    up = self.ports.setdefault(f"leaf{a.leaf}.up{s}", Port(
                        f"leaf{a.leaf}.up{s}", min(net.switch.speed_bps, net.spine.speed_bps)))
                    hops.append(Hop(self.leaf_lat, up, ct))
                else:
                    # a self-routing host has a link to each spine (seed 001: one per spine
                    # router), so the spine that ECMP picks is also the port the host sends on
                    uplink_name = f"{src}.spine{s}" + (f"#{lane}" if lane else "")
                    uplink_bps = min(a.nic.speed_bps, net.spine.speed_bps)
                router = self.spine_threads[s]
                port = self.spine_ports[(s, f"leaf{b.leaf}" if leafed else dst)]
                cut_through = net.spine.forwarding == "cut-through"
                hops.append(Hop(self.spine_lat[s], port, cut_through, router))
                if router is not None:
                    fwd_kc = (net.spine.forwarding_cycles or 0.0) / 1e3
                if leafed:
                    hops.append(Hop(self.leaf_lat, self.sw_ports[dport], ct))
        else:
            hops.append(Hop(self.switch_lat, self.sw_ports[dport],
                            net.switch.forwarding == "cut-through"))
        uplink = self.ports.setdefault(uplink_name, Port(f"{uplink_name}.tx", uplink_bps))
        return self._path(src, dst, uplink, hops, fwd_kc)

    def _path(self, src: str, dst: str, uplink: Port, hops: list[Hop], fwd_kc: float) -> Path:
        """The path src -> dst over ``uplink`` and ``hops``, with both ends' NIC latencies and
        the netem of the way (and of the way back, for the ACKs)."""
        r = self.r
        net = r.network
        a, b = r.host(src), r.host(dst)
        imps = []
        if a.netem is not None:
            imps.append(self._impairment(f"{src}.netem.{dst}", a.netem))
        if key_imp := net.link_netem.get((src, dst)):
            imps.append(self._impairment(f"link.{src}.{dst}.netem", key_imp))
        # the ACKs come back through the opposite direction's netem (mean delay)
        back = [b.netem, net.link_netem.get((dst, src))]
        return Path(uplink, hops, self.sampler(f"{src}.nic.tx.{dst}", a.nic.tx_latency),
                    self.sampler(f"{dst}.nic.rx.{src}", b.nic.rx_latency), imps, net.mtu, fwd_kc,
                    TcpWindow.of(net.tcp), name=f"net {src}->{dst}",
                    rev_delay_ns=sum(n.delay for n in back if n is not None))
