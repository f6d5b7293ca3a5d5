"""The storage device model (components/disk.py): HDD command queueing; which flushes are
barriers."""

from __future__ import annotations

import numpy as np
import pytest

from cephsim.catalog.load import load_catalog
from cephsim.components.disk import NCQ_DEPTH, Disk
from cephsim.engine.draw import Sampler

HDD = load_catalog().disks["generic-hdd-7200"]


def _hdd(seed: int) -> Disk:
    rng = np.random.default_rng(seed)
    return Disk("hdd", HDD, Sampler(HDD.write_4k, rng), Sampler(HDD.flush, np.random.default_rng(0)),
                Sampler(HDD.read_4k, np.random.default_rng(1)))


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
