"""A release's software costs as written: CPU work per stage of the write path, the
release's scale, logging, variability and the background stalls that make the tail.

The figures live in ``catalog/data/software.yaml`` (read by :mod:`cephsim.model.software`);
a calibrated profile file (``ceph.profile``) overrides any of them.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from cephsim.spec.dists import DistSpec

#: a CPU cost in kilocycles: finite and not negative
Kcycles = Annotated[float, Field(ge=0, allow_inf_nan=False)]


def runs_kernel_code(stage: str) -> bool:
    """Stages that run Linux kernel code (TCP, scheduler, block layer, krbd/CephFS/libceph)
    or a library's (``crypto.*``: OpenSSL's or the kernel's AES; ``ec.*``: the erasure-code
    plugins), not Ceph's own,
    and ``log.line``, a per-line estimate that the corpus fit never sees (no fitted
    cluster gathers a line per op).

    The release's ``scale`` is fitted on end-to-end Ceph latency and stands for what the
    estimated split misses in Ceph's own code; the kernel's costs do not change with the
    Ceph release and are anchored to kernel measurements (qperf's ~6 us of TCP stack per
    round trip, ``calibrate --network``), so the scale does not apply to them.
    """
    return stage.startswith(("kernel.", "client.kernel", "crypto.", "log.", "ec."))


class Tails(BaseModel):
    """Background work that stalls an OSD's commit thread (RocksDB memtable flush and
    compaction write stalls, BlueFS log compaction): a Poisson process per OSD."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kv_stall_rate_hz: float = Field(ge=0, le=1000, allow_inf_nan=False, description=
            "Stalls per second per OSD.")
    kv_stall: DistSpec = Field(description="How long bstore_kv_sync is held up by one stall.")


class ReleaseCosts(BaseModel):
    """Software costs of one release."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    basis: str = Field(description="Where these numbers come from.")
    scale: float = Field(gt=0, allow_inf_nan=False, description="Common factor applied to every "
            "stage cost of Ceph's own code (the fitted part); kernel stages are not scaled.")
    scale_sd: float | None = Field(None, ge=0, allow_inf_nan=False, description=
            "1-sigma uncertainty of ln(scale) from the corpus fit (0.13 = about 13 %); None where "
            "the scale was not fitted.")
    kcycles: dict[str, Kcycles] = Field(description="Per-stage CPU work, kilocycles at per-clock "
            "1.0, before scale.")
    logging_overhead: float = Field(ge=0, allow_inf_nan=False, description=
            "Extra fraction of OSD CPU work at the default debug levels beyond the lines gathered "
            "(debuglog.py): string work done whatever the level, which releases before Nautilus "
            "still did (PRs #20298, #24312).")
    cpu_jitter_sigma: float = Field(ge=0, le=2, description="Per-stage CPU work is multiplied by a "
            "lognormal factor with this sigma (cache misses, interrupts).")
    notify_all_on_enqueue: bool = Field(description="Shard enqueue wakes every thread of the shard "
            "(O15.2.8+); the extra ones wake spuriously.")
    osd_op_queue: Literal["wpq", "mclock_scheduler"]
    tails: Tails
    #: the release a ceph.profile file says it was fitted for (None: no profile, or none
    #: named); informational, reported when it is not the scenario's release
    profile_release: str | None = Field(None, exclude=True)

    def cost(self, stage: str) -> float:
        """Kilocycles of a stage: Ceph's code scaled by the release factor, the kernel's not."""
        return self.kcycles[stage] * (1.0 if runs_kernel_code(stage) else self.scale)


class SoftwareFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    stages: dict[str, str]
    releases: dict[str, ReleaseCosts]


class ProfileOverride(BaseModel):
    """A calibrated profile file: any subset of a release's costs."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    release: str | None = Field(None, description="Release the profile was fitted for "
            "(informational).")
    basis: str | None = None
    scale: float | None = Field(None, gt=0, allow_inf_nan=False)
    kcycles: dict[str, Kcycles] = Field(default_factory=dict)
    logging_overhead: float | None = Field(None, ge=0, allow_inf_nan=False)
    cpu_jitter_sigma: float | None = Field(None, ge=0, le=2)
    tails: Tails | None = None
