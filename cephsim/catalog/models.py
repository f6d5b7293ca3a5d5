"""Hardware catalog entries: what each piece of hardware *is*, as data.

Every numeric figure in a catalog entry names where it comes from in the
entry's ``sources`` mapping (field name -> :class:`Provenance`), with a
``basis`` that says whether it was measured, read off a datasheet or a kernel
table, derived by arithmetic from such a figure, or is our own estimate.  A
test checks that no figure is without a source.

Behaviour (how a C-state is chosen, how a flush serialises a drive) lives in
``cephsim/components``; these models only hold numbers.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema, field_validator, model_validator

from cephsim.spec.dists import DistSpec, Dur
from cephsim.units import (
    FREQUENCY_JSON,
    RATE_JSON,
    SIZE_JSON,
    parse_duration_ns,
    parse_frequency_hz,
    parse_rate_bps,
    parse_size_bytes,
)

#: unit-string fields as editors see them (the field validators parse them)
Hz = Annotated[float, WithJsonSchema(FREQUENCY_JSON)]
Bps = Annotated[float, WithJsonSchema(RATE_JSON)]
Bytes = Annotated[int, WithJsonSchema(SIZE_JSON)]

Basis = Literal["measured", "datasheet", "kernel-table", "derived", "estimate", "calibrated"]


class Provenance(BaseModel):
    """Where one figure comes from."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    source: str = Field(description="URL or reference (document, section) of the figure.")
    basis: Basis = Field(description="measured | datasheet | kernel-table | derived | estimate | "
                                     "calibrated")
    note: str | None = Field(None, description="How it was derived, or why it is an estimate.")


class _Entry(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(description="Human-readable product name.")
    sources: dict[str, Provenance] = Field(
        default_factory=dict,
        description="Provenance of every figure, keyed by field name (dotted for nested fields). "
                    "Every shipped figure has one; a figure of your own without one is 'given by "
                    "the user'."
    )

    #: fields that are descriptive, not figures, and need no source
    descriptive_fields: ClassVar[tuple[str, ...]] = ("name", "sources", "notes", "vendor",
            "microarch", "interface",
                                     "media", "kind", "cstates", "forwarding", "cpu")

    def figure_fields(self) -> list[str]:
        """Fields that are figures and need a source, named as in data files (the alias if any)."""
        return [info.alias or f for f, info in type(self).model_fields.items()
                if f not in self.descriptive_fields]

    @model_validator(mode="after")
    def _known_sources(self) -> _Entry:
        known = self.figure_fields()
        unknown = sorted(k for k in self.sources if k not in known)
        if unknown:
            raise ValueError(f"sources names unknown figure field(s) {unknown}; figure fields are {known}")
        return self


def _d(v: Any) -> int:
    return parse_duration_ns(v)


class CState(BaseModel):
    """One idle state as the kernel declares it, plus what a wake-up really costs."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    exit_latency_ns: Dur = Field(ge=0, alias="exit_latency", description=
            "Declared worst-case exit latency (kernel table or ACPI _CST); steers the idle "
            "governor.")
    target_residency_ns: Dur = Field(ge=0, alias="target_residency", description=
            "Declared target residency: the governor picks this state only for idle periods at "
            "least this long.")
    wake_penalty_ns: Dur = Field(ge=0, alias="wake_penalty", description=
            "Time actually added to the first work after a wake from this state (exit + cold "
            "caches).")

    _v = field_validator("exit_latency_ns", "target_residency_ns", "wake_penalty_ns", mode="before")(
        lambda cls, v: _d(v))


class CStateTable(BaseModel):
    """The idle states of one platform, shallowest first (POLL first)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    states: list[CState] = Field(min_length=1)
    sources: dict[str, Provenance] = Field(default_factory=dict)
    notes: str | None = None

    @model_validator(mode="after")
    def _ordered(self) -> CStateTable:
        res = [s.target_residency_ns for s in self.states]
        if res != sorted(res):
            raise ValueError("states must be listed shallowest first (non-decreasing target "
                             "residency)")
        known = {f"{s.name}.{f}" for s in self.states for f in self.figure_fields()}
        unknown = sorted(k for k in self.sources if k not in known)
        if unknown:
            raise ValueError(f"sources name unknown state figure(s) {unknown}")
        return self

    @staticmethod
    def figure_fields() -> list[str]:
        """Per-state figures that need a source, keyed ``<state>.<field>`` in ``sources``."""
        return ["exit_latency", "target_residency", "wake_penalty"]


#: The reference core's single-thread figure per benchmark: the EPYC 7742 (Zen 2, the core the
#: per-stage costs are counted on, per_clock_speed 1.0) at its 3.4 GHz boost.  The same figure
#: as the epyc-7742 catalog entry's ``single_thread`` (a test checks that they agree).
SINGLE_THREAD_REFERENCE: dict[str, tuple[float, float]] = {"passmark-st": (2100.0, 3.4)}


class SingleThread(BaseModel):
    """A public single-thread benchmark score of one CPU model, run at its boost clock."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    benchmark: Literal["passmark-st"] = Field(
        description="passmark-st: PassMark's CPU 'Single Thread Rating' (cpubenchmark.net).")
    score: float = Field(gt=0, allow_inf_nan=False)


class CPUModel(_Entry):
    """A CPU SKU."""

    vendor: Literal["amd", "intel", "arm", "other"]
    microarch: str = Field(description="e.g. zen1, zen2, zen3, zen4, broadwell, cascadelake")
    cores: int = Field(gt=0, description="Physical cores per socket.")
    threads_per_core: int = Field(2, ge=1, le=2, description="Hardware threads per core (SMT / "
            "Hyper-Threading) when the firmware enables it: 1 or 2 (4- and 8-way SMT are not "
            "modelled).")
    smt_yield: float = Field(1.25, ge=1.0, le=2.0, description="Work a core does with two busy "
            "hardware threads, relative to one thread alone: each of the two then runs at "
            "smt_yield/2 of its solo speed.")
    base_clock_hz: Hz = Field(gt=0, alias="base_clock")
    boost_clock_hz: Hz = Field(gt=0, alias="boost_clock", description=
            "Maximum single-core boost clock.")
    all_core_clock_hz: Hz | None = Field(
        None, alias="all_core_clock",
        description="Boost clock with every core of the socket busy (all-core turbo); between one "
                    "and all busy cores the ceiling falls linearly from boost_clock to it.  Omit "
                    "for a SKU without turbo (the ceiling stays at boost_clock).")
    min_clock_hz: Hz = Field(gt=0, alias="min_clock", description="Lowest P-state the frequency "
            "governor can select.")
    per_clock_speed: float = Field(gt=0, le=10, allow_inf_nan=False, description=
            "Work done per cycle relative to the reference core (Zen 2 = 1.0) for Ceph-like code.  "
            "Derived from single_thread when that is given and this is not; given, it wins.")
    single_thread: SingleThread | None = Field(
        None, description="A public single-thread benchmark of this exact model; unless "
        "per_clock_speed is given, it is (score / boost clock) relative to the reference core's "
        "(EPYC 7742).")
    cstates: str = Field(description="Name of the C-state table (cstates.yaml) this platform uses "
                                     "by default.")
    notes: str | None = None

    _f = field_validator("base_clock_hz", "boost_clock_hz", "min_clock_hz", mode="before")(
        lambda cls, v: parse_frequency_hz(v))
    _a = field_validator("all_core_clock_hz", mode="before")(
        lambda cls, v: None if v is None else parse_frequency_hz(v))
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    @model_validator(mode="before")
    @classmethod
    def _derive_per_clock(cls, data: Any) -> Any:
        """per_clock_speed from the single-thread benchmark: score per boost GHz, relative
        to the reference core's.  A benchmark runs one thread at the boost clock, so its
        score over that clock is work per cycle."""
        if (not isinstance(data, dict) or data.get("single_thread") is None
                or data.get("per_clock_speed") is not None):  # given: it wins (a what-if)
            return data
        st = SingleThread.model_validate(data["single_thread"])
        ref = SINGLE_THREAD_REFERENCE.get(st.benchmark)
        boost = data.get("boost_clock", data.get("boost_clock_hz"))
        if ref is None or boost is None:
            return data
        boost_hz = float(boost) if isinstance(boost, (int, float)) else parse_frequency_hz(boost)
        per_ghz = st.score / (boost_hz / 1e9)
        out = {**data, "per_clock_speed": round(per_ghz / (ref[0] / ref[1]), 3)}
        src = dict(data.get("sources") or {})
        if "per_clock_speed" not in src and "single_thread" in src:
            s = src["single_thread"]
            s = s.model_dump() if isinstance(s, Provenance) else dict(s)
            src["per_clock_speed"] = {
                "source": s.get("source", ""), "basis": "derived",
                "note": f"{st.benchmark} {st.score:g} at the {boost_hz / 1e9:g} GHz "
                        f"boost = {per_ghz:.0f} per GHz, relative to the EPYC 7742's "
                        f"{ref[0] / ref[1]:.0f} ({ref[0]:g} at {ref[1]:g} GHz)"}
            out["sources"] = src
        return out

    @model_validator(mode="after")
    def _clock_order(self) -> CPUModel:
        if not self.min_clock_hz <= self.base_clock_hz <= self.boost_clock_hz:
            raise ValueError("clocks must satisfy min_clock <= base_clock <= boost_clock")
        ac = self.all_core_clock_hz
        if ac is not None and not self.base_clock_hz <= ac <= self.boost_clock_hz:
            raise ValueError("all_core_clock must lie between base_clock and boost_clock")
        return self


def _lookahead_bytes(v: Any) -> int:
    n = parse_size_bytes(v)
    if n < 4096:
        raise ValueError(f"read_lookahead must be at least 4KiB (got {n} bytes)")
    return n


def _rate_at_least(floor_bps: float, what: str):  # noqa: ANN202 - validator factory
    """A rate parsed from its text, refused below ``floor_bps`` (a 1e-300 B/s disk would
    make one write last longer than any clock can count)."""
    def check(cls: Any, v: Any) -> float:
        bps = parse_rate_bps(v)
        if bps < floor_bps:
            raise ValueError(f"{v!r} is below {what}, the slowest this model takes")
        return bps
    return check


class DiskModel(_Entry):
    """A storage device, seen from the OSD (kernel block layer included)."""

    interface: Literal["nvme", "sata", "sas"]
    media: Literal["flash", "hdd"]
    plp: bool = Field(description="Power-loss protection: the drive reports a write-through cache, "
                                  "so a flush is cheap.")
    parallelism: int = Field(ge=1, description="Writes the device services concurrently (internal "
            "channels/dies); flushes occupy the whole device.")
    write_4k: DistSpec = Field(description="Service time of one 4 KiB direct write (no flush).")
    flush: DistSpec = Field(description="Service time of a cache flush (fdatasync) after writes; "
                                        "small on PLP drives.")
    read_4k: DistSpec = Field(description="Service time of one 4 KiB random read.")
    write_bandwidth_bps: Bps = Field(gt=0, alias="write_bandwidth", description=
            "Sustained write bandwidth; sets the extra time of larger writes.")
    read_bandwidth_bps: Bps = Field(gt=0, alias="read_bandwidth", description=
            "Sustained read bandwidth.")
    flush_per_dirty_unit_ns: Dur | None = Field(
        None, ge=0, alias="flush_per_dirty_unit",
        description="Flash without PLP only (required there): what a FLUSH CACHE costs per further "
                    "4 KiB unit written since the previous flush, beyond the one unit that `flush` "
                    "already covers (NAND programming of data and mapping).")
    read_lookahead_bytes: Bytes | None = Field(
        None, alias="read_lookahead",
        description="HDD only: how far the drive goes on reading past a read into its cache "
                    "(read look-ahead), as long as the head is not needed elsewhere; a later "
                    "read inside it is served from the cache (`cache_hit`).  Bytes, e.g. 1MiB.")
    cache_segments: int | None = Field(
        None, ge=1,
        description="HDD only: how many look-ahead ranges the drive's cache keeps (its cache "
                    "segments); interleaved sequential streams beyond this evict each other.")
    cache_hit: DistSpec | None = Field(
        None, description="HDD only: service time of a 4 KiB read served from the drive's "
                          "cache (command overhead and transfer, no mechanical work).")
    notes: str | None = None

    _r = field_validator("write_bandwidth_bps", "read_bandwidth_bps", mode="before")(
        _rate_at_least(8e6, "1 MB/s"))
    _u = field_validator("flush_per_dirty_unit_ns", mode="before")(
        lambda cls, v: None if v is None else _d(v))
    _b = field_validator("read_lookahead_bytes", mode="before")(
        lambda cls, v: None if v is None else _lookahead_bytes(v))
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    @model_validator(mode="after")
    def _volatile_cache_cost(self) -> DiskModel:
        volatile = not self.plp and self.media == "flash"
        if volatile and self.flush_per_dirty_unit_ns is None:
            raise ValueError("flash without PLP needs flush_per_dirty_unit (the flush cost per "
                             "further dirty 4 KiB unit; see calibration/consumer-flush)")
        if not volatile and self.flush_per_dirty_unit_ns is not None:
            raise ValueError("flush_per_dirty_unit applies to flash without PLP only (a PLP "
                             "drive's cache is write-through; the HDD model runs with its cache "
                             "off)")
        lookahead = (self.read_lookahead_bytes, self.cache_segments, self.cache_hit)
        if self.media != "hdd" and any(x is not None for x in lookahead):
            raise ValueError("read_lookahead, cache_segments and cache_hit describe an HDD's read "
                             "cache (flash reads have no positioning time to save)")
        if self.media == "hdd" and any(x is None for x in lookahead) and any(
                x is not None for x in lookahead):
            raise ValueError("an HDD's read cache needs all of read_lookahead, cache_segments "
                             "and cache_hit (or none of them: no look-ahead)")
        if self.read_lookahead_bytes is not None and self.interface == "nvme":
            raise ValueError("the HDD read-cache model knows SATA and SAS links only")
        return self


class NICModel(_Entry):
    """A network adapter with its driver's default interrupt moderation."""

    speed_bps: Bps = Field(gt=0, alias="speed", description="Line rate per port.")
    ports: int = Field(1, ge=1)
    tx_latency: DistSpec = Field(description="NIC + driver transmit latency per message (doorbell "
            "to wire).")
    rx_latency: DistSpec = Field(description="NIC + driver receive latency per message (wire to "
            "socket), including interrupt moderation at low packet rates.")
    notes: str | None = None

    _r = field_validator("speed_bps", mode="before")(_rate_at_least(1e6, "1 Mbit/s"))
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class SwitchModel(_Entry):
    """A switch, or a router that forwards in hardware or in software."""

    kind: Literal["switch", "router"]
    forwarding: Literal["cut-through", "store-and-forward", "software"] = Field(
        description="cut-through: a frame leaves once its header is in (but is stored first "
                    "when the egress port is faster than the ingress); store-and-forward: once "
                    "the whole frame is in; software: a router whose CPU forwards each packet.")
    speed_bps: Bps = Field(gt=0, alias="speed", description="Port speed.")
    latency: DistSpec = Field(description="Port-to-port forwarding latency for a small frame "
            "(excludes serialisation).")
    cpu: str | None = Field(None, description="Software routers: the CPU model that forwards (its "
            "C-states and clock matter).")
    forwarding_cycles: float | None = Field(None, ge=0, allow_inf_nan=False, description=
            "Software routers: CPU cycles per forwarded packet at the reference per-clock speed.")
    notes: str | None = None

    _r = field_validator("speed_bps", mode="before")(_rate_at_least(1e6, "1 Mbit/s"))
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

