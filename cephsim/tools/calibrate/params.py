"""Free parameters of a calibration and how they change a release's software costs.

Names (``--fit``):

- ``scale``: the release's common factor on every stage cost of Ceph's own code (kernel
  stages, ``kernel.*`` and ``client.kernel*``, are not scaled);
- ``kcycles.<stage>`` (or just ``<stage>``, e.g. ``kernel.tcp_tx``, ``osd.do_op``):
  one stage's kilocycles before ``scale``;
- ``cpu_jitter_sigma``, ``logging_overhead``;
- ``tails.kv_stall_rate_hz``; ``tails.kv_stall.median`` (the stall duration's
  median; a lognormal keeps its shape, i.e. p99/median); ``tails.kv_stall.sigma``.

``NAME@RELEASE`` restricts a parameter to one release.  A bare name is either
*per release* (expanded into ``NAME@r`` for every release among the cases: the
default of ``cephsim calibrate``) or *shared* (one value for every release:
the default of ``--cross-validate``, so that a left-out case is predicted only
from the others).  Hardware figures (disks, NICs, switches, C-states) are not
free parameters: they come from the catalog.

The optimiser works on ``x = ln(value)``, so every parameter stays positive and
relative changes are what count.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from cephsim.errors import CephsimError
from cephsim.model.software import software_table
from cephsim.spec.dists import LogNormal
from cephsim.spec.software import ReleaseCosts, Tails

SIMPLE = ("scale", "cpu_jitter_sigma", "logging_overhead", "tails.kv_stall_rate_hz",
          "tails.kv_stall.median", "tails.kv_stall.sigma")


@dataclass(frozen=True)
class Param:
    name: str  #: canonical name without release, e.g. ``kcycles.osd.do_op``
    release: str | None  #: None: shared by every release

    @property
    def label(self) -> str:
        return self.name if self.release is None else f"{self.name}@{self.release}"

    def applies(self, release: str) -> bool:
        return self.release is None or self.release == release


def canonical(name: str) -> str:
    """Check a parameter name and give its canonical form (raises CephsimError)."""
    stages = software_table().stages
    if name in SIMPLE:
        return name
    stage = name[len("kcycles."):] if name.startswith("kcycles.") else name
    if stage in stages:
        return f"kcycles.{stage}"
    raise CephsimError.single(
        f"unknown parameter {name!r}; known: {', '.join(SIMPLE)}, kcycles.<stage> or <stage> "
        f"with a stage of software.yaml (e.g. kernel.tcp_tx, osd.do_op); hardware figures are "
        f"not free parameters", path="--fit")


def parse_params(specs: list[str], releases: list[str], shared: bool) -> list[Param]:
    """``--fit`` values (repeatable, comma-separated) -> parameters."""
    names = [s.strip() for spec in specs for s in spec.split(",") if s.strip()]
    if not names:
        raise CephsimError.single("no parameter to fit: give --fit NAME (e.g. --fit "
                                  "scale)", path="--fit")
    known_rel = software_table().releases
    out: list[Param] = []
    for n in names:
        base, at, rel = n.partition("@")
        if at and not (base.strip() and rel.strip()):
            raise CephsimError.single(f"{n!r}: give NAME@RELEASE with both parts (e.g. "
                                      "scale@reef), or a bare NAME for every release",
                                      path="--fit")
        c = canonical(base)
        if rel:
            if rel not in known_rel:
                raise CephsimError.single(f"unknown release {rel!r} in {n!r}; known: "
                                          f"{', '.join(known_rel)}", path="--fit")
            out.append(Param(c, rel))
        elif shared:
            out.append(Param(c, None))
        else:
            out += [Param(c, r) for r in releases]
    seen: set[tuple[str, str | None]] = set()
    uniq = []
    for p in out:
        if (p.name, p.release) in seen:
            continue
        clash = [q for q in uniq if q.name == p.name and (q.release is None or p.release is None)]
        if clash:
            raise CephsimError.single(f"{p.label} overlaps {clash[0].label}", path="--fit")
        seen.add((p.name, p.release))
        uniq.append(p)
    return uniq


def get_value(costs: ReleaseCosts, name: str) -> float:
    if name == "scale":
        return costs.scale
    if name == "cpu_jitter_sigma":
        return costs.cpu_jitter_sigma
    if name == "logging_overhead":
        return costs.logging_overhead
    if name == "tails.kv_stall_rate_hz":
        return costs.tails.kv_stall_rate_hz
    if name in ("tails.kv_stall.median", "tails.kv_stall.sigma"):
        d = costs.tails.kv_stall
        if not isinstance(d, LogNormal):
            raise CephsimError.single(f"{name}: only a lognormal kv_stall can be fitted "
                                      f"(this release has {d.dist})", path="--fit")
        return float(d.median) if name.endswith("median") else d.shape
    if name.startswith("kcycles."):
        return costs.kcycles.get(name[8:], 0.0)
    raise KeyError(name)


def set_values(costs: ReleaseCosts, values: dict[str, float]) -> ReleaseCosts:
    """A copy of ``costs`` with the named parameters set (absolute values)."""
    upd: dict[str, Any] = {}
    kc = dict(costs.kcycles)
    tails = costs.tails
    for name, v in values.items():
        if name in ("scale", "cpu_jitter_sigma", "logging_overhead"):
            upd[name] = v
        elif name.startswith("kcycles."):
            kc[name[8:]] = v
            upd["kcycles"] = kc
        elif name == "tails.kv_stall_rate_hz":
            tails = Tails(kv_stall_rate_hz=v, kv_stall=tails.kv_stall)
        elif name in ("tails.kv_stall.median", "tails.kv_stall.sigma"):
            d = tails.kv_stall
            assert isinstance(d, LogNormal)
            median = int(round(v)) if name.endswith("median") else d.median
            sigma = d.shape if name.endswith("median") else v
            tails = Tails(kv_stall_rate_hz=tails.kv_stall_rate_hz,
                          kv_stall=LogNormal(median=f"{max(1, median)}ns", sigma=sigma,
                                                    shift=f"{d.shift}ns"))
        else:
            raise KeyError(name)
    if tails is not costs.tails:
        upd["tails"] = tails
    return costs.model_copy(update=upd) if upd else costs


def start_value(p: Param, costs_by_release: dict[str, ReleaseCosts]) -> float:
    """Starting value: the catalog's (geometric mean over releases for a shared parameter)."""
    vals = [get_value(c, p.name) for r, c in costs_by_release.items() if p.applies(r)]
    if not vals:
        raise CephsimError.single(f"{p.label}: no case uses release {p.release}", path="--fit")
    if any(v <= 0 for v in vals):
        raise CephsimError.single(f"{p.label}: the starting value is 0; a parameter fitted on a "
                                  "log scale needs a positive start", path="--fit")
    return math.exp(sum(math.log(v) for v in vals) / len(vals))


def bounds(p: Param, v0: float) -> tuple[float, float]:
    """Bounds on ln(value)."""
    if p.name in ("cpu_jitter_sigma", "tails.kv_stall.sigma"):
        return math.log(0.005), math.log(2.0)
    if p.name == "logging_overhead":
        return math.log(1e-3), math.log(2.0)
    return math.log(v0) - math.log(30.0), math.log(v0) + math.log(30.0)


def fmt_value(name: str, v: float) -> str:
    if name == "tails.kv_stall.median":
        return f"{v / 1e3:.4g} us"
    if name == "tails.kv_stall_rate_hz":
        return f"{v:.4g} /s"
    if name.startswith("kcycles."):
        return f"{v:.4g} kcycles"
    return f"{v:.4g}"
