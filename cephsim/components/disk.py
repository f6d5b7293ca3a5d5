"""A storage device as the OSD sees it: queueing, internal parallelism, flushes.

- Writes and reads are serviced by ``parallelism`` internal channels (dies,
  planes, or one head for an HDD), first come first served: an I/O starts on
  the channel that frees first.
- A flush (``fdatasync`` -> FLUSH command) is a barrier: it waits for every
  channel to drain and holds the whole device while it runs.  On drives with
  power-loss protection it is nearly free; on consumer drives it is a media
  flush of the write cache, which is why concurrent flushing writers collapse
  such drives.
- Service times are drawn from the catalog distributions; an I/O larger than
  4 KiB adds ``(size - 4 KiB) / bandwidth``.
"""

from __future__ import annotations

from typing import Callable

from cephsim.catalog.models import DiskModel


class Disk:
    __slots__ = ("busy_ns", "chan", "flush_s", "flushes", "ios", "name", "read_bw", "read_s",
                 "write_bw", "write_s")

    def __init__(self, name: str, model: DiskModel, write_s: Callable[[], int],
                 flush_s: Callable[[], int], read_s: Callable[[], int]) -> None:
        self.name = name
        self.chan = [0] * model.parallelism  #: time each channel frees
        self.write_s = write_s
        self.flush_s = flush_s
        self.read_s = read_s
        self.write_bw = model.write_bandwidth_bps / 8e9  #: bytes per ns
        self.read_bw = model.read_bandwidth_bps / 8e9
        self.ios = 0
        self.flushes = 0
        self.busy_ns = 0

    def _io(self, t: int, service: int, acc: list[int] | None, kind: str = "io") -> int:
        chan = self.chan
        i = chan.index(min(chan))
        start = chan[i] if chan[i] > t else t
        end = start + service
        chan[i] = end
        self.ios += 1
        self.busy_ns += service
        if acc is not None:
            acc[3] += service
            acc[4] += start - t
            if acc.__class__ is not list:  # a traced op
                acc.spans.append((self.name, kind, t, start, end, 0))  # type: ignore[attr-defined]
        return end

    def write(self, t: int, nbytes: int, acc: list[int] | None) -> int:
        extra = int((nbytes - 4096) / self.write_bw) if nbytes > 4096 else 0
        return self._io(t, self.write_s() + extra, acc, "write")

    def read(self, t: int, nbytes: int, acc: list[int] | None) -> int:
        extra = int((nbytes - 4096) / self.read_bw) if nbytes > 4096 else 0
        return self._io(t, self.read_s() + extra, acc, "read")

    def flush(self, t: int, acc: list[int] | None) -> int:
        chan = self.chan
        drained = max(chan)
        start = drained if drained > t else t
        service = self.flush_s()
        end = start + service
        chan[:] = [end] * len(chan)
        self.flushes += 1
        self.busy_ns += service
        if acc is not None:
            acc[3] += service
            acc[4] += start - t
            if acc.__class__ is not list:  # a traced op
                acc.spans.append((self.name, "flush", t, start, end, 0))  # type: ignore[attr-defined]
        return end
