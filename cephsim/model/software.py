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
from typing import Any, Callable, Iterable

from pydantic import ValidationError
from ruamel.yaml import YAML

from cephsim.errors import CephsimError
from cephsim.spec.software import ProfileOverride, ReleaseCosts, SoftwareFile, runs_kernel_code
from cephsim.yamlfile import clean_loc, located, parse_yaml_text, read_text


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
