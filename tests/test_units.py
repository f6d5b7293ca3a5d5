"""Unit parsing at the edge: durations, sizes, rates, frequencies, percentages."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from cephsim.units import (
    UnitError,
    format_duration,
    format_size,
    parse_duration_ns,
    parse_frequency_hz,
    parse_percent,
    parse_rate_bps,
    parse_size_bytes,
)


@pytest.mark.parametrize(("text", "ns"), [
    ("15us", 15_000), ("15 us", 15_000), ("15µs", 15_000), ("15usec", 15_000),
    ("1.5ms", 1_500_000), ("2s", 2_000_000_000), ("250ns", 250), ("0.5ns", 0), ("1.5ns", 2),
    ("1min", 60_000_000_000), ("1e3us", 1_000_000), ("160MS", 160_000_000), (".5us", 500),
    (0, 0), ("0", 0),
])
def test_parse_duration(text, ns):
    assert parse_duration_ns(text) == ns


@pytest.mark.parametrize("bad", [15, 2.5, -3, True, None, [1], "15", "15 parsecs", "15 kg", "us",
                                 "15 u s", "nan us", "inf ms", "", "1.2.3us"])
def test_parse_duration_rejects(bad):
    with pytest.raises(UnitError):
        parse_duration_ns(bad)


def test_bare_number_message_says_why():
    with pytest.raises(UnitError, match="bare number is ambiguous"):
        parse_duration_ns(15)
    with pytest.raises(UnitError, match="unknown time unit 'parsecs'"):
        parse_duration_ns("4 parsecs")


@pytest.mark.parametrize(("text", "n"), [
    ("4KiB", 4096), ("4k", 4096), ("4K", 4096), ("4KB", 4096), ("4kB", 4096), ("1MiB", 1 << 20),
    ("1M", 1 << 20), ("1MB", 1 << 20), ("1mb", 1 << 20), ("75GB", 75 << 30), ("1TB", 1 << 40), (
            "10GiB", 10 << 30), ("512B", 512), ("512", 512),
    (4096, 4096), ("0.5KiB", 512),
])
def test_parse_size(text, n):
    assert parse_size_bytes(text) == n


@pytest.mark.parametrize("bad", ["4 parsecs", "4 Kibble", "0.3KiB", "1.5B", True, None, "KiB", 4.5])
def test_parse_size_rejects(bad):
    with pytest.raises(UnitError):
        parse_size_bytes(bad)


@pytest.mark.parametrize(("text", "bps"), [
    ("25Gbit/s", 25e9), ("10GbE", 10e9), ("100 Mbit/s", 100e6), ("1Gbps", 1e9),
    ("3GB/s", 24e9), ("1.4GB/s", 11.2e9), ("1MiB/s", 8 * 1024**2), ("1kbit/s", 1e3),
])
def test_parse_rate(text, bps):
    assert parse_rate_bps(text) == pytest.approx(bps, rel=1e-12)


@pytest.mark.parametrize("bad", [25, "25", "25 furlongs/fortnight", "25Hz", "GB/s", 1e9])
def test_parse_rate_rejects(bad):
    with pytest.raises(UnitError):
        parse_rate_bps(bad)


@pytest.mark.parametrize(("text", "hz"), [("3.7GHz", 3.7e9), ("1500MHz", 1.5e9), ("800 mhz", 8e8),
                                          ("1kHz", 1e3), ("50Hz", 50.0)])
def test_parse_frequency(text, hz):
    assert parse_frequency_hz(text) == pytest.approx(hz, rel=1e-12)


@pytest.mark.parametrize("bad", [3.7, 3700000000, "3.7", "3.7GB", "3.7 GHzz", "fast"])
def test_parse_frequency_rejects(bad):
    with pytest.raises(UnitError):
        parse_frequency_hz(bad)


@pytest.mark.parametrize(("text", "frac"), [("1%", 0.01), ("0.5 %", 0.005), (0.2, 0.2), (0, 0.0),
                                            ("100%", 1.0)])
def test_parse_percent(text, frac):
    assert parse_percent(text) == pytest.approx(frac)


@pytest.mark.parametrize("bad", ["1", "1 percent", "1ms"])
def test_parse_percent_rejects(bad):
    with pytest.raises(UnitError):
        parse_percent(bad)


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=0, max_value=10**15))
def test_duration_round_trip_ns(n):
    assert parse_duration_ns(f"{n}ns") == n
    assert parse_duration_ns(f"{n} ns") == n


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=0, max_value=10**12))
def test_duration_round_trip_us(n):
    assert parse_duration_ns(f"{n}us") == n * 1000
    assert parse_duration_ns(f"{n}µs") == n * 1000


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=0, max_value=10**9), st.sampled_from(["ns", "us", "ms", "s"]))
def test_format_duration_is_readable_back(n, unit):
    """format_duration keeps 4 significant digits: parsing it back is within 0.05 %."""
    ns = parse_duration_ns(f"{n}{unit}")
    back = parse_duration_ns(format_duration(ns))
    assert abs(back - ns) <= max(1, 5e-4 * ns)


@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=1, max_value=1 << 40))
def test_size_round_trip(n):
    assert parse_size_bytes(format_size(n)) == n


@pytest.mark.parametrize("parse, text", [
    (parse_duration_ns, "1e300s"), (parse_size_bytes, "1e300GiB"),
    (parse_rate_bps, "1e300Tbit/s"), (parse_rate_bps, "1e300GB/s"),
    (parse_frequency_hz, "1e305GHz"),
])
def test_overflowing_values_are_unit_errors(parse, text):
    """A number that is finite as written but overflows once scaled to the base unit is a
    UnitError (a clear message at the field), not an OverflowError traceback."""
    with pytest.raises(UnitError, match="too large"):
        parse(text)


def test_bare_nan_percentage_is_refused():
    with pytest.raises(UnitError, match="finite"):
        parse_percent(float("nan"))


def test_tiny_negative_duration_stays_negative():
    """'-1e-30ns' rounds to no nanoseconds but is still negative: it must reach the fields'
    'must not be negative' check instead of passing as 0."""
    assert parse_duration_ns("-1e-30ns") < 0
    assert parse_duration_ns("-0.4ns") < 0
    assert parse_duration_ns("0.4ns") == 0
    assert parse_duration_ns("-0ns") == 0
