"""Ctrl-C in the middle of a simulation: exit status 130, nothing half-written, no crash
and no process left behind, in whichever build is installed (CI runs this with the
compiled one, where an interrupt inside compiled code must still unwind cleanly)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
QS = str(ROOT / "scenarios" / "quickstart.yaml")


def _cpu_s(pid: int) -> float:
    """CPU seconds a process has used (utime + stime from /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _interrupt(args: list[str], cwd: Path, after_cpu_s: float) -> tuple[int, str]:
    """Start ``cephsim ARGS`` in its own process group, send SIGINT to the group (as a
    terminal's Ctrl-C does) once it has run ``after_cpu_s`` CPU seconds (imports and
    loading take about one: past that it is simulating), and return its exit status
    and stderr."""
    proc = subprocess.Popen([sys.executable, "-m", "cephsim", *args], cwd=cwd,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while _cpu_s(proc.pid) < after_cpu_s:
            assert proc.poll() is None, "the run ended before it could be interrupted"
            assert time.monotonic() < deadline
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    with pytest.raises(ProcessLookupError):  # nothing of the group is left running
        os.killpg(proc.pid, 0)
    return proc.returncode, err.decode(errors="replace")


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
@pytest.mark.parametrize("after", [1.5, 2.5, 4.0])
def test_ctrl_c_during_a_run_exits_130_and_writes_nothing(tmp_path: Path, after: float) -> None:
    out = tmp_path / "result.json"
    rc, err = _interrupt(["run", QS, "--set", "run.ios=3000000", "-q", "-f", "json",
                          "-o", str(out)], tmp_path, after)
    assert rc == 130, err
    assert "fatal" not in err.lower() and "Traceback" not in err, err
    assert list(tmp_path.iterdir()) == []  # no output, no temporary file beside it


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_ctrl_c_during_whatif_exits_130(tmp_path: Path) -> None:
    rc, err = _interrupt(["whatif", QS, "--set", "pool.size=2", "--ios", "3000000"],
                         tmp_path, 2.5)
    assert rc == 130, err
    assert "fatal" not in err.lower() and "Traceback" not in err, err


def test_an_interrupt_inside_a_signal_checking_routine_waits_for_the_boundary() -> None:
    """The mechanism: with the interrupt deferred, routines that check for signals as
    they go (raise_signal does at once; a big-int product does between digit rows, where
    compiled code would abort) run on, and the KeyboardInterrupt comes at the context's
    end, with Python's handler back."""
    from cephsim.model.runner import DeferredInterrupt

    ctrl_c = DeferredInterrupt()
    reached = False
    with pytest.raises(KeyboardInterrupt):
        with ctrl_c:
            signal.raise_signal(signal.SIGINT)
            big = (10**400) * (10**400 + 1)
            reached = big > 10**799
    assert reached and ctrl_c.pending
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_deferred_run_keeps_a_callers_own_handler() -> None:
    from cephsim.model.runner import DeferredInterrupt

    seen: list[int] = []
    old = signal.signal(signal.SIGINT, lambda s, f: seen.append(s))
    try:
        with DeferredInterrupt() as ctrl_c:
            signal.raise_signal(signal.SIGINT)
        assert seen == [signal.SIGINT] and not ctrl_c.pending
    finally:
        signal.signal(signal.SIGINT, old)
