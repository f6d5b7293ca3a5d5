"""A storage device as the OSD sees it: queueing, internal parallelism, bandwidth, flushes.

The full account: docs/model.md, "Inside the model", `cephsim.model.components.disk`.
"""

from __future__ import annotations

import math
from collections import deque

from cephsim.catalog.models import DiskModel
from cephsim.model.engine.draw import Sampler
from cephsim.model.engine.kernel import ACC_DISK, ACC_QUEUE

#: commands a SATA disk holds (NCQ); SAS TCQ allows more, but the choice gains little past this
NCQ_DEPTH = 32
#: a look-ahead the head has not left yet ends "never"
HEAD_STAYS = 1 << 62
# fields of a cached look-ahead range (a list, so the active one can be updated in place)
SEG_KEY, SEG_LO, SEG_T0, SEG_OFF0, SEG_STOP, SEG_HI = range(6)
#: bytes per ns an HDD's cache hands over on its link: SATA 3 and SAS-3 signal at 6 and
#: 12 Gbit/s with 8b/10b coding (the payload gets 8/10 of that)
INTERFACE_BYTES_PER_NS = {"sata": 0.6, "sas": 1.2}


class Disk:
    __slots__ = ("active", "barrier", "busy_ns", "bw_free", "cache_hits", "chan", "dirty",
                 "flush_end", "flush_s", "flush_start", "flushes", "hit_s", "iface_bw", "ios",
                 "lookahead", "max_segments", "merged_flushes", "name", "per_dirty_ns",
                 "pipe_busy_ns", "read_bw", "read_s", "segments", "waiting", "write_bw", "write_s")

    def __init__(self, name: str, model: DiskModel, write_s: Sampler, flush_s: Sampler,
                 read_s: Sampler, hit_s: Sampler | None = None) -> None:
        """``hit_s`` draws a read served from the drive's cache: needed when the model has
        a read look-ahead (``model.read_lookahead``), else unused."""
        self.name = name
        self.chan = [0] * model.parallelism  #: time each channel frees
        self.write_s = write_s
        self.flush_s = flush_s
        self.read_s = read_s
        self.write_bw = model.write_bandwidth_bps / 8e9  #: bytes per ns
        self.read_bw = model.read_bandwidth_bps / 8e9
        self.bw_free = 0  #: when the device-wide data pipe frees
        #: no-PLP flash: NAND program cost per dirty 4 KiB unit at the next flush
        self.per_dirty_ns = model.flush_per_dirty_unit_ns or 0
        self.dirty = 0.0  #: 4 KiB units written since the last flush started (no-PLP only)
        self.flush_start = -1
        self.flush_end = -1
        self.ios = 0
        self.flushes = 0
        self.merged_flushes = 0
        self.busy_ns = 0  #: summed over channels
        #: time the device-wide data pipe moved bytes: a drive can be bandwidth-bound
        #: while most of its channels are idle
        self.pipe_busy_ns = 0
        hdd = model.media == "hdd"
        #: a flush drains and holds the device: only a volatile cache gets one (no-PLP
        #: flash; a PLP drive's cache and an HDD with its cache off report none)
        self.barrier = not hdd and not model.plp
        #: HDD: start times of the commands still waiting (None: no reordering modelled)
        self.waiting: deque[int] | None = deque() if hdd else None
        #: read look-ahead: the ranges held in the drive's cache, least recently used
        #: first (SEG_* fields), and the one the head is still reading on (if any)
        self.lookahead = model.read_lookahead_bytes or 0
        self.max_segments = model.cache_segments or 0
        if self.lookahead and hit_s is None:
            raise ValueError(f"{name}: a drive with read look-ahead needs a cache-hit sampler")
        self.hit_s = hit_s
        # the catalog allows a look-ahead on SATA and SAS HDDs only (DiskModel)
        self.iface_bw = INTERFACE_BYTES_PER_NS[model.interface] if self.lookahead else 0.0
        self.segments: list[list[int]] = []
        self.active: list[int] | None = None
        self.cache_hits = 0

    def _io(self, t: int, sampler: Sampler, extra: int, acc: list[int] | None,
            kind: str, step: int) -> int:
        """One access arriving at ``t``: its service time drawn from ``sampler`` (the
        command-queue choice on an HDD), on the first free channel, behind the data pipe
        for the bytes beyond 4 KiB.  Returns its completion time."""
        service = self._access(t, sampler)
        chan = self.chan
        i = chan.index(min(chan))
        start = chan[i] if chan[i] > t else t
        seg = self.active
        if seg is not None:  # the head leaves the range it was reading on
            if start < seg[SEG_STOP]:
                seg[SEG_STOP] = start
            self.active = None
        if extra:  # the bytes beyond 4 KiB go through the shared data pipe first
            p0 = self.bw_free if self.bw_free > start else start
            self.bw_free = p0 + extra
            self.pipe_busy_ns += extra
            end = self.bw_free + service
        else:
            end = start + service
        chan[i] = end
        self.ios += 1
        self.busy_ns += end - start
        if self.waiting is not None:
            self.waiting.append(end - service)  # when it starts (one channel: in order)
        if acc is not None:
            acc[ACC_DISK] += end - start
            acc[ACC_QUEUE] += start - t
            if type(acc) is not list:  # a traced op
                acc.spans.append((self.name, kind, t, start, end, 0, step))  # type: ignore[attr-defined]
        return end

    def _access(self, t: int, s: Sampler) -> int:
        """Service time of an access arriving at ``t``: one draw, or on an HDD the
        shortest of one draw per command it can be chosen among."""
        w = self.waiting
        if w is None:
            return s.draw()
        while w and w[0] <= t:
            w.popleft()
        best = s.draw()
        for _ in range(min(len(w), NCQ_DEPTH - 1)):
            x = s.draw()
            if x < best:
                best = x
        return best

    def write(self, t: int, nbytes: int, acc: list[int] | None, step: int = 0) -> int:
        """A write of ``nbytes``; ``step`` names it for a traced op's span."""
        extra = int((nbytes - 4096) / self.write_bw) if nbytes > 4096 else 0
        if self.per_dirty_ns:
            self.dirty += math.ceil(nbytes / 4096)
        return self._io(t, self.write_s, extra, acc, "write", step)

    def read(self, t: int, nbytes: int, acc: list[int] | None, key: int = -1,
             offset: int = 0, step: int = 0) -> int:
        """A read of ``nbytes`` at ``offset`` bytes into region ``key`` (an object; -1: no
        location known, never a cache hit).  Returns its completion time."""
        extra = int((nbytes - 4096) / self.read_bw) if nbytes > 4096 else 0
        if not self.lookahead or key < 0:
            return self._io(t, self.read_s, extra, acc, "read", step)
        end = self._cached(t, key, offset, nbytes, acc, step)
        if end >= 0:
            return end
        end = self._io(t, self.read_s, extra, acc, "read", step)
        # the head stays on the track and reads on past this read into the cache
        segs = self.segments
        for k in range(len(segs) - 1, -1, -1):
            if segs[k][SEG_KEY] == key:  # this object's older range: replaced
                del segs[k]
        if len(segs) >= self.max_segments:
            del segs[0]
        e = offset + nbytes
        lo = e - self.lookahead if e - self.lookahead > offset else offset
        seg = [key, lo, end, e, HEAD_STAYS, e + self.lookahead]
        segs.append(seg)
        self.active = seg
        return end

    def _cached(self, t: int, key: int, offset: int, nbytes: int,
                acc: list[int] | None, step: int) -> int:
        """A read served from a look-ahead range, or -1 when none holds all of it.  The
        data at byte x of a range is in the cache once the head has read that far,
        ``(x - off0) / media rate`` after its read-on began, if it had not left by then."""
        segs = self.segments
        e = offset + nbytes
        for k in range(len(segs) - 1, -1, -1):
            seg = segs[k]
            if seg[SEG_KEY] != key or offset < seg[SEG_LO] or e > seg[SEG_HI]:
                continue
            off0 = seg[SEG_OFF0]
            avail = seg[SEG_T0] + (int((e - off0) / self.read_bw) if e > off0 else 0)
            if avail > seg[SEG_STOP]:  # the head went elsewhere before reading that far
                continue
            ready = avail if avail > t else t  # the head has read it
            start = self.bw_free if self.bw_free > ready else ready  # the link is free
            dur = self.hit_s.draw()  # type: ignore[union-attr]
            if nbytes > 4096:
                dur += int((nbytes - 4096) / self.iface_bw)
            end = start + dur
            self.bw_free = end
            self.pipe_busy_ns += dur
            lo = e - self.lookahead  # the range keeps what lies behind this read, up to a limit
            if lo > seg[SEG_LO]:
                seg[SEG_LO] = lo
            if e + self.lookahead > seg[SEG_HI]:  # and a hit keeps the read-on going
                seg[SEG_HI] = e + self.lookahead
            if k != len(segs) - 1:  # most recently used last
                segs.append(segs.pop(k))
            self.cache_hits += 1
            self.ios += 1
            if acc is not None:  # waiting for the head to read that far is disk time too
                acc[ACC_DISK] += end - t - (start - ready)
                acc[ACC_QUEUE] += start - ready
                if type(acc) is not list:  # a traced op
                    spans = acc.spans  # type: ignore[attr-defined]
                    spans.append((self.name, "read", t, start, end, 0, step))
            return end
        return -1

    def background(self, nbytes: float) -> None:
        """Bytes written off any op's path that dirty a volatile cache (no-PLP drives)."""
        if self.per_dirty_ns:
            self.dirty += nbytes / 4096

    def flush(self, t: int, acc: list[int] | None, step: int = 0) -> int:
        if self.flush_start >= t:  # a queued flush not yet started covers this request
            self.merged_flushes += 1
            end = self.flush_end
            if acc is not None:
                acc[ACC_QUEUE] += end - t
            return end
        service = self.flush_s.draw()
        if self.barrier:  # FLUSH CACHE: drains the channels, then holds the whole device
            chan = self.chan
            drained = max(chan)
            start = drained if drained > t else t
            if self.per_dirty_ns:
                if self.dirty > 1:
                    service += int((self.dirty - 1) * self.per_dirty_ns)
                self.dirty = 0.0
            end = start + service
            chan[:] = [end] * len(chan)
            self.flush_start, self.flush_end = start, end
            self.busy_ns += service * len(chan)
        else:  # no volatile cache: the block layer sends no command, only the syscall
            start, end = t, t + service
        self.flushes += 1
        if acc is not None:
            acc[ACC_DISK] += service
            acc[ACC_QUEUE] += start - t
            if type(acc) is not list:  # a traced op
                acc.spans.append((self.name, "flush", t, start, end, 0, step))  # type: ignore[attr-defined]
        return end
