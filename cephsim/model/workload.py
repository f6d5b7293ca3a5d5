"""fio-like workload: closed-loop jobs, each keeping ``iodepth`` I/Os in flight.

Each job writes its own RBD image.  Offsets are random (rand*) or sequential,
in ``bs`` steps; the object number is ``offset // object_size`` and the PG a
hash of (image, object).  For mixed workloads each I/O is a read with
probability ``rwmixread``%.

I/O accounting (``issued``, ``completed``): an I/O is *issued* when its slot
creates it and *completed* when its completion reaches the slot.  At the stop
every issued I/O is either completed or still in flight (its process halted
with the kernel), so ``issued == completed + in_flight`` with ``in_flight <=
iodepth * numjobs``; nothing is lost or duplicated.
"""

from __future__ import annotations

from typing import Any, Callable, Generator

from cephsim.metrics.trace import TracedAcc
from cephsim.model.components.cluster import ClientJob, Cluster
from cephsim.model.components.placement import object_pg
from cephsim.model.engine.kernel import Join, Kernel
from cephsim.model.writepath import Op, Protocol


class Workload:
    def __init__(self, cluster: Cluster, kernel: Kernel, proto: Protocol,
                 on_complete: Callable[[Op, int], bool]) -> None:
        self.c = cluster
        self.k = kernel
        self.proto = proto
        w = cluster.r.workload
        self.w = w
        self.on_complete = on_complete  #: returns False when the run should stop issuing
        self.blocks = w.blocks
        self.per_object = w.blocks_per_object
        self.random = w.random
        self.mixed = w.mixed
        self.reads = w.reads
        self.stopped = False
        self.issued = 0  #: I/Os handed to the client (Op created), warm-up included
        self.completed = 0  #: I/Os whose completion reached the job (issued - completed = in flight)
        self.trace: set[int] = set()  #: op sequence numbers to trace span by span

    def start(self) -> None:
        for job in self.c.jobs:
            rng = self.c.streams.get(f"{job.name}.offsets")
            state = {"next": 0, "rng": rng, "buf": [], "mix": []}
            for slot in range(self.w.iodepth):
                self.k.spawn(self.issue_loop(job, state, slot))

    def _next_block(self, st: dict[str, Any]) -> int:
        if not self.random:
            b = st["next"]
            st["next"] = (b + 1) % self.blocks
            return b
        if not st["buf"]:
            st["buf"] = st["rng"].integers(0, self.blocks, 4096).tolist()
            if self.mixed:
                st["mix"] = (st["rng"].random(4096) * 100 < self.w.rwmixread).tolist()
        if self.mixed and not st["mix"]:
            st["mix"] = (st["rng"].random(4096) * 100 < self.w.rwmixread).tolist()
        return st["buf"].pop()

    def _is_read(self, st: dict[str, Any]) -> bool:
        if self.mixed:
            if not st["mix"]:
                st["mix"] = (st["rng"].random(4096) * 100 < self.w.rwmixread).tolist()
            return st["mix"].pop()
        return self.reads

    def issue_loop(self, job: ClientJob, st: dict[str, Any], slot: int) -> Generator[Any, Any, None]:
        """Kernel process: one iodepth slot of a job, issuing I/Os back to back."""
        k, proto, c = self.k, self.proto, self.c
        pg_num = c.r.pool.pg_num
        while not self.stopped:
            block = self._next_block(st)
            pg = object_pg(job.index, block // self.per_object, pg_num)
            op = Op(job, not self._is_read(st), self.w.bs, pg, k.now, self.issued, block)
            if self.issued in self.trace:
                op.acc = TracedAcc()
            self.issued += 1
            primary = c.osds[c.acting[pg][0]]
            done = Join(k, 1)
            k.spawn(proto.client_io(op, primary, done))
            yield done
            self.completed += 1
            if not self.on_complete(op, done.t):
                self.stopped = True
