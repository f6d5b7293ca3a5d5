"""RAM per OSD of published Ceph OSD hosts (``cephsim/catalog/data/host-memory.yaml``): what
a host whose memory the scenario does not give is assumed to have, by its OSDs' media, and
the range `validate` tries.

Flash: the median and quartiles of the published BlueStore-era hosts' RAM over their OSDs
(each host with its source and quote in the file).  HDD: one BlueStore-era host was found,
so its median is that host's and the range is the documentation's (estimates, said so).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from cephsim.catalog.load import _read
from cephsim.units import parse_size_bytes


@dataclass(frozen=True, slots=True)
class MemoryPerOSD:
    lower: int  #: the lower quartile (bytes of RAM per OSD)
    median: int
    upper: int  #: the upper quartile


@lru_cache(maxsize=1)
def memory_per_osd() -> dict[str, MemoryPerOSD]:
    """Per OSD media ('flash', 'hdd'): the published hosts' RAM per OSD."""
    data = _read("host-memory.yaml")
    def per_osd(h: dict[str, Any]) -> float:
        return parse_size_bytes(h["ram"]) / h["osds"]

    q1, q2, q3 = statistics.quantiles([per_osd(h) for h in data["flash"]["hosts"]], n=4,
                                      method="inclusive")
    hdd = data["hdd"]
    return {"flash": MemoryPerOSD(_mib(q1), _mib(q2), _mib(q3)),
            "hdd": MemoryPerOSD(*(_mib(per_osd(hdd[k])) for k in ("lower", "median", "upper")))}


def _mib(x: float) -> int:
    """Bytes, to the nearest MiB (the figures' own precision is far coarser)."""
    return round(x / 2**20) * 2**20


def gib(nbytes: int) -> str:
    """'20.3 GiB': a memory size as the report and validate say it."""
    return f"{nbytes / 2**30:.1f} GiB"
