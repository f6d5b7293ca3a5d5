"""How the Ceph binaries were built, and what that does to RocksDB's share of the work.

Upstream Debian/Ubuntu packages compiled the bundled RocksDB without optimisation
(``CMAKE_BUILD_TYPE=None``, no ``-O2``, assertions on) until the point releases below;
RPMs, the upstream containers and source builds were not affected.  The evidence, the
estimate of the factor and what it is checked against are in docs/model.md, "How Ceph
was built".
"""

from __future__ import annotations

import math
from dataclasses import dataclass

#: first point release whose upstream .deb builds pass the parent's flags to RocksDB
#: ("cmake/modules/BuildRocksDB.cmake: inherit parent's CMAKE_CXX_FLAGS", PRs #55500,
#: #55501, #55502 in the 16.2.15, 17.2.8 and 18.2.4 release notes); Squid (19.2.0,
#: September 2024) and later were branched after the fix (PR #54918, December 2023)
FIXED_IN: dict[str, tuple[int, int, int]] = {
    "pacific": (16, 2, 15), "quincy": (17, 2, 8), "reef": (18, 2, 4)}
#: releases built before any fix: every upstream .deb of them has the defect
ALWAYS_AFFECTED = ("luminous", "mimic", "nautilus", "octopus")

#: how much of each stage's CPU work runs RocksDB's code (the rest is Ceph's own:
#: BlueStore, BlueFS, the OSD), read from the code each stage stands for (estimates):
#: osd.kv_apply is RocksDB's non-sync submit (WriteBatch into the memtable skiplists:
#: all RocksDB); osd.kv_sync's per-cycle work is half RocksDB's WriteImpl and WAL
#: record, half BlueFS's flush logic and the hand-off; osd.meta_get is the point lookup
#: through memtables, bloom filters and index blocks (RocksDB) and the onode or shard
#: decode (Ceph's); osd.bluestore_submit builds the txc's WriteBatch (~6 Puts of RocksDB
#: code) among BlueStore's own work
ROCKSDB_SHARE: dict[str, float] = {
    "osd.kv_apply": 1.0, "osd.kv_sync": 0.5, "osd.meta_get": 0.6, "osd.bluestore_submit": 0.15}

#: RocksDB's CPU work in an unoptimised build, per unit of the optimised build's.
#: Derived: a production cluster's RocksDB commit latency fell from ~116 us to ~27 us
#: (x4.3) when rebuilt with optimisation (S. Kooman, ceph.io 2024, chart reading); the
#: counter holds the CPU work c and the device's WAL flush D (a few us on a drive with
#: power-loss protection), so F = (4.3 (D + c) - D) / c; with D ~ c / 5 that is 5.0,
#: and never less than 4.3.  Checked, not fitted, against PR #54891's x2 at saturation
#: and the same production cluster's +15 % at qd=1 (tests/test_build.py).
UNOPTIMISED_FACTOR = 5.0


@dataclass(frozen=True, slots=True)
class BuildEffect:
    """What the scenario's build does to RocksDB's work."""

    build: str  #: as resolved (``unknown`` stays unknown)
    optimised: bool | None  #: RocksDB compiled with optimisation; None: cannot be told
    factor: float  #: the multiplier on RocksDB's share of the stages above
    why: str  #: one line for the report

    def scaled(self, stage: str, kcycles: float) -> float:
        share = ROCKSDB_SHARE.get(stage, 0.0)
        return kcycles * (1.0 + share * (self.factor - 1.0)) if share else kcycles


def _version(v: str) -> tuple[int, int, int]:
    a, b, c = (int(p) for p in v.split(".")[:3])
    return a, b, c


def deb_affected(release: str, version: str | None) -> bool | None:
    """Whether an upstream .deb of this release (and point version) has the defect;
    None when the version is not given and the release's fix came inside it."""
    if release in ALWAYS_AFFECTED:
        return True
    fixed = FIXED_IN.get(release)
    if fixed is None:
        return False  # squid and later
    if version is None:
        return None
    return _version(version) < fixed


def build_effect(build: str, release: str, version: str | None) -> BuildEffect:
    """The RocksDB factor for a build.  Where the build (or, for an upstream .deb, the
    point version) leaves it open, the factor is the geometric middle of the two cases,
    sqrt(F): the report says so and names what would settle it."""
    middle = math.sqrt(UNOPTIMISED_FACTOR)
    if build in ("rpm", "container", "source", "distro"):
        return BuildEffect(build, True, 1.0, f"{build} build: RocksDB optimised")
    affected = deb_affected(release, version)
    if build == "upstream-deb":
        if affected is True:
            return BuildEffect(build, False, UNOPTIMISED_FACTOR,
                               f"upstream .deb of {version or release}: RocksDB built without "
                               f"optimisation (x{UNOPTIMISED_FACTOR:g} on its work)")
        if affected is False:
            return BuildEffect(build, True, 1.0, f"upstream .deb of {version or release}: "
                               "RocksDB optimised (fixed in 16.2.15 / 17.2.8 / 18.2.4)")
        fix = ".".join(map(str, FIXED_IN[release]))
        return BuildEffect(build, None, middle,
                           f"upstream .deb of {release}, point version not given: RocksDB "
                           f"optimised from {fix}, not before; taken halfway (x{middle:.2f}); "
                           "ceph.version settles it")
    # unknown: the build matters only where an upstream .deb could have had the defect
    if affected is False:
        return BuildEffect(build, True, 1.0, f"{version or release}: every build's RocksDB "
                           "is optimised")
    return BuildEffect(build, None, middle,
                       f"build not given: an upstream .deb of {version or release} may have "
                       f"RocksDB unoptimised (x{UNOPTIMISED_FACTOR:g}); taken halfway "
                       f"(x{middle:.2f}); ceph.build settles it")
