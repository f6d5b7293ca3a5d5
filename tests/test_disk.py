"""The storage device model (components/disk.py): HDD command queueing; which flushes are
barriers."""

from __future__ import annotations

import numpy as np
import pytest

from cephsim.catalog.load import load_catalog
from cephsim.model.components.disk import NCQ_DEPTH, Disk
from cephsim.model.engine.draw import Sampler

HDD = load_catalog().disks["generic-hdd-7200"]


def _hdd(seed: int) -> Disk:
    rng = np.random.default_rng(seed)
    return Disk("hdd", HDD, Sampler(HDD.write_4k, rng), Sampler(HDD.flush, np.random.default_rng(0)),
                Sampler(HDD.read_4k, np.random.default_rng(1)),
                Sampler(HDD.cache_hit, np.random.default_rng(2)))


def test_hdd_serves_a_batch_shortest_positioning_first() -> None:
    """A batch submitted at once: the first starts at once (one draw); the k-th arrives with
    k-2 waiting behind the one in service and takes the shortest of min(k-2, 31) + 1 draws:
    as a whole, the drive chooses among n-1, n-2, ..., 1 waiting commands."""
    disk = _hdd(5)
    ref = Sampler(HDD.write_4k, np.random.default_rng(5))  # the same stream, drawn by hand
    ends = [disk.write(0, 4096, None) for _ in range(40)]
    t = ref.draw()
    assert ends[0] == t
    for k in range(2, 41):
        t += min(ref.draw() for _ in range(min(k - 2, NCQ_DEPTH - 1) + 1))
        assert ends[k - 1] == t


def test_hdd_alone_takes_one_plain_access() -> None:
    """At queue depth 1 nothing waits: every access is one draw (no reordering gain)."""
    disk = _hdd(9)
    ref = Sampler(HDD.write_4k, np.random.default_rng(9))
    t = 0
    for _ in range(20):
        end = disk.write(t, 4096, None)
        assert end - t == ref.draw()
        t = end + 1


def test_hdd_queueing_raises_throughput_as_order_statistics_say() -> None:
    """64 random 4 KiB writes at once: with uniform access times on [a, b] the shortest of
    m draws averages a + (b - a) / (m + 1), so the expected drain is one plain access plus
    the sum of those over m = min(k - 1, 32), k = 2..64."""
    a, b = HDD.write_4k.low, HDD.write_4k.high
    expected = (a + b) / 2 + sum(a + (b - a) / (min(k - 1, NCQ_DEPTH) + 1) for k in range(2, 65))
    drains = []
    for seed in range(20):
        disk = _hdd(seed)
        drains.append(max(disk.write(0, 4096, None) for _ in range(64)))
    assert np.mean(drains) == pytest.approx(expected, rel=0.01)
    assert np.mean(drains) < 0.65 * 64 * (a + b) / 2  # far better than first come, first served


def test_hdd_flush_neither_drains_nor_holds_the_device() -> None:
    """With its cache off the disk reports no write cache and the block layer sends no
    FLUSH: the flush returns after the syscall, not after the queued writes."""
    disk = _hdd(3)
    busy_until = max(disk.write(0, 4096, None) for _ in range(4))
    end = disk.flush(1_000, None)
    assert end < 100_000 < busy_until
    nxt = disk.write(end, 4096, None)
    assert nxt > busy_until  # the next write still queues behind the four, not the flush


def _flash(disk_id: str) -> Disk:
    m = load_catalog().disks[disk_id]
    rng = np.random.default_rng(2)
    return Disk(disk_id, m, Sampler(m.write_4k, rng), Sampler(m.flush, rng), Sampler(m.read_4k, rng))


def test_a_volatile_cache_flush_is_a_barrier() -> None:
    """Consumer flash (no PLP): FLUSH CACHE waits for the writes in flight and holds the
    device while it programs them."""
    disk = _flash("samsung-860evo-1t")
    busy_until = max(disk.write(0, 4096, None) for _ in range(3))
    end = disk.flush(1_000, None)
    assert end > busy_until
    assert disk.write(end - 1, 4096, None) > end  # a write during the flush waits for it


def test_a_plp_drive_gets_no_flush_command() -> None:
    """A PLP drive reports no volatile cache: fdatasync returns after the syscall, without
    waiting for (or delaying) the other writes in flight."""
    disk = _flash("pm983")
    busy_until = max(disk.write(0, 4096, None) for _ in range(20))  # more than its channels
    end = disk.flush(1_000, None)
    assert end < 1_000 + 20_000 < busy_until
    assert disk.flushes == 1 and disk.merged_flushes == 0


def test_a_bandwidth_bound_drive_reads_as_busy() -> None:
    """Eight 4 MiB writes at once on an NVMe with many channels: the shared data pipe is
    busy for all their bytes beyond 4 KiB while most channels wait on it, so utilisation
    (the busier of channels and pipe) must see the pipe, not the channels' average."""
    disk = _flash("pm983")
    assert len(disk.chan) > 8
    end = max(disk.write(0, 4 << 20, None) for _ in range(8))
    extra = int(((4 << 20) - 4096) / disk.write_bw)
    assert disk.pipe_busy_ns == 8 * extra
    assert disk.pipe_busy_ns / end > 0.9 > disk.busy_ns / len(disk.chan) / end


# ---------------------------------------------------------------- HDD read look-ahead
MIB = 1 << 20


def _hit_ref() -> Sampler:
    """The cache-hit draws of :func:`_ahead` disks, drawn by hand."""
    return Sampler(HDD.cache_hit, np.random.default_rng(7))


def _ahead(seed: int = 4) -> Disk:
    """A generic HDD (read look-ahead on): misses from ``seed``, cache hits from stream 7."""
    rng = np.random.default_rng(seed)
    return Disk("hdd", HDD, Sampler(HDD.write_4k, rng), Sampler(HDD.flush, np.random.default_rng(0)),
                Sampler(HDD.read_4k, rng), Sampler(HDD.cache_hit, np.random.default_rng(7)))


def test_a_sequential_read_stream_is_served_from_the_look_ahead() -> None:
    """The first 4 KiB read of an object positions the head (one random access); the head
    reads on, so each next read arriving later costs exactly one cache-hit draw and
    leaves the actuator free."""
    disk, ref, miss = _ahead(), _hit_ref(), Sampler(HDD.read_4k, np.random.default_rng(4))
    end = disk.read(0, 4096, None, key=1, offset=0)
    assert end == miss.draw()
    for i in range(1, 200):
        t = end + 150_000  # a round trip later
        end = disk.read(t, 4096, None, key=1, offset=i * 4096)
        assert end - t == ref.draw()
    assert disk.cache_hits == 199 and disk.ios == 200
    assert HDD.cache_hit.low <= 60_000 and HDD.cache_hit.high <= 140_000  # far below an access


def test_a_read_waits_for_the_head_to_read_that_far() -> None:
    """Data past the first read is in the cache only once the head has passed it, at the
    media rate: a read of the next 512 KiB asked for at once waits for that, then takes
    a cache hit plus the bytes beyond 4 KiB at the SAS link's 1.2 GB/s."""
    disk, ref = _ahead(), _hit_ref()
    end = disk.read(0, 4096, None, key=1, offset=0)
    off, n = 4096, 512 * 1024
    t = disk.read(0, n, None, key=1, offset=off)
    assert HDD.interface == "sas" and disk.iface_bw == 1.2
    assert t == end + int(n / disk.read_bw) + ref.draw() + int((n - 4096) / 1.2)


def test_cache_hits_share_the_drive_link_one_at_a_time() -> None:
    """Twenty reads of cached data at once are handed over one after another: each ends
    one cache-hit draw after the one before (hits have a ceiling, and keep the drive busy)."""
    disk, ref = _ahead(), _hit_ref()
    t = disk.read(0, 4096, None, key=1, offset=0) + 20_000_000  # the look-ahead is full by then
    ends = [disk.read(t, 4096, None, key=1, offset=(i + 1) * 4096) for i in range(20)]
    expected = t
    for end in ends:
        expected += ref.draw()
        assert end == expected
    assert disk.pipe_busy_ns == ends[-1] - t


def test_a_range_holds_only_its_look_ahead_behind_the_last_read() -> None:
    """After a whole 4 MiB object is read, re-reading all of it is not a hit (the drive
    keeps about ``read_lookahead`` bytes behind the head), re-reading its last 4 KiB is."""
    disk = _ahead()
    obj = 4 * MIB
    t = disk.read(0, obj, None, key=1, offset=0) + 50_000_000
    end = disk.read(t, 4096, None, key=1, offset=obj - 4096)
    assert end - t < 200_000
    t = end + 50_000_000
    assert disk.read(t, obj, None, key=1, offset=0) - t >= HDD.read_4k.low + int((obj - 4096) / 0.2)


def test_the_head_leaving_ends_the_look_ahead() -> None:
    """A write elsewhere moves the head at once: what was read by then (here nothing past
    the first read) stays cached, the rest must be fetched with a new access."""
    disk = _ahead()
    end = disk.read(0, 4096, None, key=1, offset=0)
    disk.write(end, 4096, None)  # the head leaves as the read completes
    assert disk.read(end + 1, 4096, None, key=1, offset=0) - end - 1 < 200_000  # cached
    t = 50_000_000
    assert disk.read(t, 4096, None, key=1, offset=4096) - t >= HDD.read_4k.low  # not read


def test_look_ahead_misses_what_it_cannot_hold() -> None:
    """A jump past the look-ahead window, another object, and a read with no location
    (key -1) all position the head."""
    disk = _ahead()
    t = disk.read(0, 4096, None, key=1, offset=0) + 10_000_000
    for key, off in ((1, 4096 + HDD.read_lookahead_bytes), (2, 0), (-1, 4096)):
        end = disk.read(t, 4096, None, key=key, offset=off)
        assert end - t >= HDD.read_4k.low, (key, off)
        t = end + 10_000_000
    assert disk.cache_hits == 0


def test_the_drive_keeps_its_last_cache_segments() -> None:
    """One read in each of segments+1 objects: the least recently used range is dropped
    (its object misses again), every other is still held."""
    disk = _ahead()
    n = HDD.cache_segments
    t = 0
    for key in range(n + 1):
        t = disk.read(t, 4096, None, key=key, offset=0) + 10_000_000
    for key in range(n, 0, -1):  # newest first: each re-read is a hit
        end = disk.read(t, 4096, None, key=key, offset=4096)
        assert end - t < 200_000, key
        t = end
    assert disk.read(t, 4096, None, key=0, offset=4096) - t >= HDD.read_4k.low


def test_flash_and_cacheless_hdds_refuse_look_ahead_figures() -> None:
    """The read cache is an HDD figure, and it comes whole."""
    from importlib import resources

    from pydantic import ValidationError
    from ruamel.yaml import YAML

    from cephsim.catalog.models import DiskModel

    raw = YAML(typ="safe").load((resources.files("cephsim.catalog") / "data" / "disks.yaml").read_text())
    flash, hdd = raw["pm983"], raw["generic-hdd-7200"]
    with pytest.raises(ValidationError, match="describe an HDD"):
        DiskModel.model_validate({**flash, "read_lookahead": "1MiB"})
    with pytest.raises(ValidationError, match="needs all of"):
        DiskModel.model_validate({**hdd, "cache_segments": None})
    with pytest.raises(ValidationError, match="at least 4KiB"):
        DiskModel.model_validate({**hdd, "read_lookahead": 512})
    with pytest.raises(ValidationError, match="SATA and SAS links only"):
        DiskModel.model_validate({**hdd, "interface": "nvme"})
    plain = {k: v for k, v in hdd.items() if k not in ("read_lookahead", "cache_segments",
            "cache_hit")}
    plain["sources"] = {k: v for k, v in hdd["sources"].items()
                        if k not in ("read_lookahead", "cache_segments", "cache_hit")}
    assert DiskModel.model_validate(plain).read_lookahead_bytes is None
