"""Debug levels per subsystem (cephsim/spec/debuglog.py)."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from cephsim.spec.debuglog import DEFAULTS, gathered, levels, lines_per_stage, parse_level


def test_levels_as_ceph_reads_them():
    assert parse_level("1/5") == (1, 5)
    assert parse_level("20") == (20, 20)
    assert parse_level("10/1") == (10, 10)  # gathers at least what it logs
    with pytest.raises(ValueError):
        parse_level("1/5/7")


def test_default_levels_gather_nothing_from_nautilus_and_the_messenger_before():
    """On the success path no line is at or below the default gather levels (osd 1/5: its
    lowest line is at 6), so from Nautilus a default OSD formats none; Luminous and
    Mimic gathered the messenger's up to 5: 3 lines per message."""
    for rel in ("nautilus", "reef", "tentacle"):
        assert all(n == 0 for n in lines_per_stage(levels(rel, False, {})).values())
    old = lines_per_stage(levels("luminous", False, {}))
    assert old["osd.msgr_recv"] == 3 and old["osd.reply_send"] == 3 and old["osd.do_op"] == 0
    assert all(n == 0 for n in lines_per_stage(levels("luminous", True, {})).values())
    # the Nautilus change (PR #26936) reached users in 14.2.1 (backport PR #27197)
    assert lines_per_stage(levels("nautilus", False, {}, "14.2.0"))["osd.msgr_recv"] == 3
    assert lines_per_stage(levels("nautilus", False, {}, "14.2.1"))["osd.msgr_recv"] == 0


@given(a=st.integers(0, 30), b=st.integers(0, 30), sub=st.sampled_from(sorted(DEFAULTS)))
def test_a_higher_gather_level_never_formats_fewer_lines(a, b, sub):
    lo, hi = sorted((a, b))
    base = levels("reef", True, {})
    l1 = lines_per_stage({**base, sub: (0, lo)})
    l2 = lines_per_stage({**base, sub: (0, hi)})
    assert all(l2[s] >= l1[s] for s in l1)


def test_everything_at_20_is_hundreds_of_lines_per_write():
    """The Reef source count: ~400 lines on the primary's write path at 20/20 (86 osd, 29
    optracker, ~117 BlueStore/BlueFS/bdev, the messenger's for 3 received and 3 sent)."""
    lv = {s: (20, 20) for s in DEFAULTS}
    per = lines_per_stage(lv)
    primary = (per["osd.do_op"] + per["osd.bluestore_submit"] + 3 * per["osd.msgr_recv"]
               + 3 * per["osd.repop_send"])
    assert 330 <= primary <= 480, primary
    assert gathered({"osd": {6: 1}}, {"osd": (1, 5)}) == 0
