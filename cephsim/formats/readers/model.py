"""Normalized results of the measurement readers.

Every time is an integer number of **nanoseconds** (``*_ns``), every size an
integer number of **bytes**, every rate per second.  A value the file does not
contain (or that we refused to guess, e.g. OCR noise) is ``None`` and comes with
a warning in ``warnings`` (a list of :class:`~cephsim.errors.Problem`, each
naming file and line).  Each measurement carries ``source`` (the file) and
``format`` (which reader produced it).

``to_dict()`` gives a JSON-ready view (percentile keys become strings).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Union

from cephsim.errors import Problem


def _jsonable(value: Any) -> Any:
    if isinstance(value, Problem):
        return str(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {(k if isinstance(k, str) else repr(k) if isinstance(k, float) else str(k)):
                _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


class _ToDict:
    def to_dict(self) -> dict[str, Any]:
        return _jsonable(self)  # type: ignore[no-any-return]


# --------------------------------------------------------------------- fio


@dataclass
class LatencyStats(_ToDict):
    """fio's min/max/mean/stddev/N summary of one latency kind, in ns."""

    min_ns: int | None = None
    max_ns: int | None = None
    mean_ns: int | None = None
    stddev_ns: int | None = None
    n: int | None = None  #: sample count (fio JSON ``N``; absent in text and old JSON)


@dataclass
class LatencyBucket(_ToDict):
    """One entry of fio's ``lat (usec): 750=68.22%`` distribution lines."""

    upper_ns: int  #: bucket upper bound (lower bound for ``>=`` buckets)
    percent: float
    open_ended: bool = False  #: ``>=2000`` style last bucket


@dataclass
class FioDirection(_ToDict):
    """One direction (read/write/trim/mixed/sync) of one fio job."""

    direction: str
    iops: float | None = None
    bw_bytes: float | None = None  #: bytes per second
    io_bytes: int | None = None
    runtime_ms: int | None = None
    total_ios: int | None = None
    slat: LatencyStats | None = None
    clat: LatencyStats | None = None
    lat: LatencyStats | None = None
    #: percentile (e.g. 99.99) -> ns; of ``percentiles_of`` ("clat" by default)
    percentiles: dict[float, int] = field(default_factory=dict)
    percentiles_of: str | None = None
    #: json+ only: bucket midpoint in ns -> I/O count
    bins: dict[int, int] | None = None

    def has_figures(self) -> bool:
        """Whether any figure is above zero (fio writes zeros for a job that did no I/O)."""
        nums = [self.iops, self.bw_bytes, self.io_bytes, self.total_ios,
                *self.percentiles.values(), *(self.bins or {}).values()]
        for ls in (self.slat, self.clat, self.lat):
            if ls is not None:
                nums += [ls.min_ns, ls.max_ns, ls.mean_ns, ls.n]
        return any(v is not None and v > 0 for v in nums)


@dataclass
class FioJob(_ToDict):
    name: str
    groupid: int | None = None
    jobs: int | None = None  #: number of jobs folded in (``jobs=8`` with group_reporting)
    hostname: str | None = None  #: fio client/server mode
    document: int = 0  #: index of the JSON document (``--status-interval``)
    line: int | None = None  #: where the job starts in the file
    directions: dict[str, FioDirection] = field(default_factory=dict)
    latency_buckets: list[LatencyBucket] = field(default_factory=list)


@dataclass
class FioMeasurement(_ToDict):
    source: str
    format: str  #: "fio-text" or "fio-json"
    fio_version: str | None = None
    jobs: list[FioJob] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)
    kind: str = "fio"


# ------------------------------------------------------------ net latency


@dataclass
class QperfResult(_ToDict):
    test: str  #: tcp_lat, udp_lat, tcp_bw, ...
    line: int
    one_way_latency_ns: int | None = None  #: qperf latency is ONE-WAY
    bw_bytes: float | None = None  #: bytes/s (``bw``; ``recv_bw`` for udp_bw)
    send_bw_bytes: float | None = None
    recv_bw_bytes: float | None = None
    msg_size_bytes: int | None = None  #: None when qperf was not run with -v
    msg_rate: float | None = None  #: messages per second
    extra: dict[str, str] = field(default_factory=dict)  #: other -vv lines, raw


@dataclass
class PingSummary(_ToDict):
    """One ping run: round-trip times (RTT, not one-way) in ns."""

    line: int
    rtt_min_ns: int | None = None
    rtt_avg_ns: int | None = None
    rtt_max_ns: int | None = None
    rtt_mdev_ns: int | None = None  #: iputils mdev / BSD stddev; BusyBox has none
    transmitted: int | None = None
    received: int | None = None
    loss_percent: float | None = None
    payload_bytes: int | None = None
    host: str | None = None  #: the address pinged (``PING name (address) ...``)
    samples_ns: list[int] = field(default_factory=list)  #: per-reply ``time=`` values


@dataclass
class NetLatencyMeasurement(_ToDict):
    source: str
    format: str  #: "qperf" or "ping"
    qperf: list[QperfResult] = field(default_factory=list)
    ping: list[PingSummary] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)
    kind: str = "net_latency"


# ------------------------------------------------------------- rados bench


@dataclass
class RadosBenchMeasurement(_ToDict):
    source: str
    format: str = "rados-bench"
    mode: str | None = None  #: write / seq / rand
    total_time_ns: int | None = None
    total_ops: int | None = None
    op_size_bytes: int | None = None
    object_size_bytes: int | None = None
    bandwidth_bytes: float | None = None  #: "MB/sec" is MiB/s -> bytes/s
    avg_iops: float | None = None
    stddev_iops: float | None = None
    max_iops: float | None = None
    min_iops: float | None = None
    avg_latency_ns: int | None = None
    stddev_latency_ns: int | None = None
    max_latency_ns: int | None = None
    min_latency_ns: int | None = None
    warnings: list[Problem] = field(default_factory=list)
    kind: str = "rados_bench"


# --------------------------------------------------------------- perf dump


@dataclass
class AvgCounter(_ToDict):
    """A perf-counter average: lifetime ``avgcount`` and ``sum`` (seconds)."""

    avgcount: int
    sum_ns: int
    avgtime_ns: int | None = None  #: lifetime average (newer releases) - not per run


@dataclass
class PerfDump(_ToDict):
    source: str
    format: str = "perf-dump"
    #: "collection.counter" -> average pair
    averages: dict[str, AvgCounter] = field(default_factory=dict)
    #: "collection.counter" -> plain value (counters, gauges)
    values: dict[str, float] = field(default_factory=dict)
    warnings: list[Problem] = field(default_factory=list)
    kind: str = "perf_dump"


@dataclass
class IntervalAverage(_ToDict):
    """Δsum/Δavgcount of one average counter between two dumps."""

    count: int
    mean_ns: int | None  #: None when count == 0


# ----------------------------------------------------------- historic ops


@dataclass
class OpEvent(_ToDict):
    name: str
    time: str  #: as printed
    offset_ns: int | None  #: since the op's first event; None if the time is unreadable


@dataclass
class HistoricOp(_ToDict):
    description: str
    initiated_at: str | None = None
    duration_ns: int | None = None
    events: list[OpEvent] = field(default_factory=list)
    #: "from -> to" between consecutive op-tracker milestones -> ns (clamped >= 0)
    stages: dict[str, int] = field(default_factory=dict)
    is_write: bool = False


@dataclass
class HistoricOps(_ToDict):
    source: str
    format: str = "historic-ops"
    layout: str = "dict"  #: "dict" (Luminous+), "list" (older type_data list), "crimson"
    size: int | None = None
    duration_s: float | None = None
    ops: list[HistoricOp] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)
    kind: str = "historic_ops"


Measurement = Union[FioMeasurement, NetLatencyMeasurement, RadosBenchMeasurement, PerfDump,
                    HistoricOps]
