"""The run's running statistics (cephsim/metrics/records.py) give what fio computes from
every op, whatever the chunking, and a run that keeps no ops reports the same."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest
from conftest import ROOT
from hypothesis import given, settings, strategies as st

from cephsim.formats.report.fio_stats import DirectionStats, LatencySummary
from cephsim.metrics import records
from cephsim.metrics.records import Moments, Recorder

QS = ROOT / "scenarios" / "quickstart.yaml"


def _moments(x: np.ndarray) -> Moments:
    m = Moments()
    m.add(x)
    return m


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 2**40), min_size=1, max_size=300))
def test_moments_give_fios_summary(xs):
    x = np.array(xs, dtype=np.int64)
    a, b = LatencySummary.from_samples(x), LatencySummary.from_moments(_moments(x))
    assert (a.n, a.min, a.max, a.mean) == (b.n, b.min, b.max, b.mean)  # the mean exactly
    assert b.stddev == pytest.approx(a.stddev, rel=1e-12, abs=1e-9)


def test_moments_by_hand():
    m = _moments(np.array([2, 4, 4, 4, 5, 5, 7, 9]))
    s = LatencySummary.from_moments(m)
    assert (s.n, s.min, s.max, s.mean) == (8, 2, 9, 5.0)
    assert s.stddev == pytest.approx((32 / 7) ** 0.5, rel=1e-15)  # sum of squares 32


def _run(monkeypatch, chunk: int, keep_ops: bool, sets=()):
    from cephsim.model.runner import run_scenario
    from cephsim.scenario.load import load_scenario

    monkeypatch.setattr(records, "CHUNK", chunk)
    sc = load_scenario(QS, ["run.ios=2500", *sets])
    return run_scenario(sc, scenario_path=QS, keep_ops=keep_ops)


@pytest.mark.parametrize("sets", [(), ("workload.rw=randrw", "workload.iodepth=4",
                                       "run.runtime=1200ms", "run.ios=100000")])
def test_streamed_statistics_are_those_of_every_op(monkeypatch, sets):
    """Folded in chunks of 97 ops (a prime: chunks end anywhere), the statistics are
    those fio computes from all the ops at once (the kept ones, of the same run)."""
    res = _run(monkeypatch, 97, True, sets)
    a = res.records.arrays()
    t0 = int(a["submit"].min())
    for w in (True, False):
        mask = a["is_write"] if w else ~a["is_write"]
        d = res.records.direction(w)
        if not mask.any():
            assert d is None
            continue
        sub, se, done = a["submit"][mask], a["slat_end"][mask], a["complete"][mask]
        want = DirectionStats.from_samples(se - sub, done - se, done - sub, bs_bytes=4096,
                                           runtime_ns=res.runtime_ns, completion_ns=done - t0)
        got = DirectionStats.from_sums(d, sync_io=False, bs_bytes=4096,
                                       runtime_ns=res.runtime_ns)
        assert got.clat_hist == want.clat_hist and got.lat_hist == want.lat_hist
        assert (got.lat_n, got.lat_u, got.lat_m) == (want.lat_n, want.lat_u, want.lat_m)
        assert got.bw_stat == want.bw_stat and got.iops_stat == want.iops_stat
        assert want.bw_stat is not None and want.bw_stat.samples >= 1
        for k in ("slat", "clat", "lat"):
            g, e = getattr(got, k), getattr(want, k)
            assert (g.n, g.min, g.max, g.mean) == (e.n, e.min, e.max, e.mean)
            assert g.stddev == pytest.approx(e.stddev, rel=1e-12)
        assert got.total_ios == want.total_ios == int(mask.sum())


def test_a_run_without_its_ops_reports_the_same(monkeypatch):
    from cephsim.formats.report.summary import result_document

    docs = []
    for chunk, keep in ((97, True), (records.CHUNK, False)):
        res = _run(monkeypatch, chunk, keep)
        d = result_document(res, timestamp_ms=0)
        docs.append(json.dumps({k: d[k] for k in ("jobs",)} | {
            k: d["cephsim"][k] for k in ("breakdown", "warnings", "io_counts")}, sort_keys=True))
    assert docs[0] == docs[1]
    with pytest.raises(RuntimeError, match="keep_ops"):
        res.records.arrays()


def _op(seq: int, submit: int, is_write: bool = True):
    return SimpleNamespace(seq=seq, submit=submit, slat_end=submit, is_write=is_write,
                           acc=[0, 0, 0, 0, 0], ev=[0] * 8, job=None, pg=0)


def test_bandwidth_windows_start_at_the_earliest_measured_submit(monkeypatch):
    """Op 0 is slow: ops 1.. complete (and are folded) first; the windows still start at
    op 0's submit once it completes, as fio's clock does."""
    monkeypatch.setattr(records, "CHUNK", 4)
    rec = Recorder()
    ms = 10**6
    for i in range(1, 9):  # submitted at i ms, done 1 ms later
        rec.add(_op(i, i * ms), i * ms + ms)
    assert rec._open  # op 0 is in flight: the start is not known yet
    rec.add(_op(0, 0), 700 * ms)  # the first op, done in the second 500 ms window
    d = rec.direction(True)
    assert d is not None and d.windows.tolist() == [8, 1]
    assert rec.t0() == 0


def test_warm_up_ops_count_as_completed_for_the_start(monkeypatch):
    monkeypatch.setattr(records, "CHUNK", 2)
    rec = Recorder()
    rec.skip(0)
    rec.add(_op(2, 5), 10)
    rec.add(_op(3, 6), 11)
    assert rec._open  # op 1 still in flight
    rec.skip(1)
    rec.add(_op(4, 7), 12)
    rec.add(_op(5, 8), 13)
    assert not rec._open and rec.t0() == 5
