"""Per-release software costs (the calibrated part of the model).

The costs live in ``catalog/data/software.yaml``: CPU work per stage of the
write path in kilocycles at the reference per-clock speed, a per-release
scale, the extra CPU of default debug logging, per-stage CPU variability, and
the background-stall process that makes the tail.  A calibrated profile file
(``ceph.profile`` in a scenario, written by ``cephsim calibrate``) overrides
any of these.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Callable, Iterable, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from ruamel.yaml import YAML

from cephsim.errors import CephsimError
from cephsim.model.dists import DistSpec

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


@lru_cache(maxsize=1)
def software_table() -> SoftwareFile:
    text = resources.files("cephsim.catalog").joinpath("data/software.yaml").read_text("utf-8")
    data = YAML(typ="safe").load(text)
    return SoftwareFile.model_validate(data)


def release_costs(release: str, profile_path: Path | None = None,
                  overrides: dict[str, float] | None = None,
                  build: Callable[[str, float], float] | None = None) -> ReleaseCosts:
    """The costs for a release, with a profile file, the build's effect on each stage
    (``build(stage, kcycles)``, :mod:`cephsim.model.build`) and per-stage overrides applied
    in that order: an override is the stage's cost as given, whatever the build."""
    table = software_table()
    base = table.releases[release]
    update: dict[str, Any] = {}
    if profile_path is not None:
        prof = load_profile(profile_path)
        # the profile's release is informational (a test profile may serve every release),
        # but it must name one
        if prof.release is not None and prof.release not in table.releases:
            raise CephsimError.single(
                f"release {prof.release!r} is not one of {', '.join(table.releases)}",
                file=str(profile_path), path="release")
        _check_stages(prof.kcycles, file=str(profile_path), path="kcycles")
        update["profile_release"] = prof.release
        if prof.scale is not None:
            update["scale_sd"] = None  # the profile's own fit, whose uncertainty it does not give
        for field in ("basis", "scale", "logging_overhead", "cpu_jitter_sigma", "tails"):
            v = getattr(prof, field)
            if v is not None:
                update[field] = v
        if prof.kcycles:
            update["kcycles"] = {**base.kcycles, **prof.kcycles}
    if build is not None:
        kc0 = update.get("kcycles", base.kcycles)
        kc1 = {k: build(k, v) for k, v in kc0.items()}
        if kc1 != kc0:
            update["kcycles"] = kc1
    if overrides:
        _check_stages(overrides, path="ceph.software")
        # overrides are absolute (already scaled) kilocycles: express them pre-scale
        kc = dict(update.get("kcycles", base.kcycles))
        scale = update.get("scale", base.scale)
        for k, v in overrides.items():
            kc[k] = v if runs_kernel_code(k) else v / scale
        update["kcycles"] = kc
    return base.model_copy(update=update) if update else base


def _check_stages(names: Iterable[str], **where: str) -> None:
    known = software_table().stages
    unknown = sorted(set(names) - set(known))
    if unknown:
        raise CephsimError.single(
            f"unknown software stage(s) {', '.join(unknown)}; known: {', '.join(known)}", **where)


def load_profile(path: Path) -> ProfileOverride:
    # the scenario loader's reader: syntax errors and bad fields at file:line:col
    from cephsim.yamlfile import clean_loc, located, parse_yaml_text, read_text

    data = parse_yaml_text(read_text(path, "profile file"), str(path))
    if not data:
        raise CephsimError.single("the profile file is empty (expected scale, kcycles, ...)",
                                  file=str(path))
    try:
        return ProfileOverride.model_validate(data)
    except ValidationError as err:
        raise CephsimError([located(e["msg"].removeprefix("Value error, "), str(path), data,
                                    *clean_loc(tuple(e["loc"]), data))
                            for e in err.errors(include_url=False)]) from None
