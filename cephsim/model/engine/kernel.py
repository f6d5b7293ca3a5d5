"""A light-weight process kernel on top of SimPy's clock.

The full account: docs/model.md, "Inside the model", `cephsim.model.engine.kernel`.
"""

from __future__ import annotations

import math
from heapq import heappop, heappush, heappushpop
from typing import Any, Final, Generator

import simpy

Process = Generator[Any, None, None]

#: SimPy priority of the kernel's wake-up events: after URGENT (0) and NORMAL (1)
KERNEL_PRIORITY = 2
#: "no pending event" as an int time (2**62 ns is 146 years), so horizons stay ints
NEVER = 2**62
#: the slots of an op's accumulator, ``[network, cpu, wake, disk, queue]`` (ns along its
#: critical path); a list indexed by these (Final: compiled, they are plain ints)
ACC_NET: Final = 0
ACC_CPU: Final = 1
ACC_WAKE: Final = 2
ACC_DISK: Final = 3
ACC_QUEUE: Final = 4


class Join:
    """Wait for ``n`` forked branches; the waiter continues at the last arrival."""

    __slots__ = ("kernel", "remaining", "t", "waiter", "last")

    def __init__(self, kernel: Kernel, n: int) -> None:
        self.kernel = kernel
        self.remaining = n
        self.t = 0
        self.waiter: Process | None = None
        self.last: Any = None  #: payload of the branch that arrived last

    def arrive(self, t: int, payload: Any = None) -> None:
        """Called by a branch when it is done, at time ``t``."""
        self.remaining -= 1
        if t >= self.t:
            self.t = t
            self.last = payload
        if self.remaining == 0 and self.waiter is not None:
            self.kernel.schedule(self.t, self.waiter)


def schedule_wakeup(env: simpy.Environment, delay: Any, callback: Any) -> None:
    """Schedule ``callback`` after ``delay`` at KERNEL_PRIORITY: the one place the kernel
    reaches into SimPy's event internals.  SimPy's public events (Timeout) always take
    NORMAL priority, but a kernel wake-up must run after every SimPy event of the same
    instant, so the event is made triggered by hand (``_ok``, ``_value``, as
    ``Timeout.__init__`` does) and handed to ``Environment.schedule`` with its own
    priority.  Checked on SimPy 4.1 (tests/test_engine.py pins the versions)."""
    ev = simpy.Event(env)
    ev._ok = True
    ev._value = None
    ev.callbacks.append(callback)  # type: ignore[union-attr]
    env.schedule(ev, KERNEL_PRIORITY, delay)  # type: ignore[arg-type]


class Kernel:
    """Runs generator processes on SimPy's timeline (see module docstring)."""

    def __init__(self, env: simpy.Environment, fast: bool = True) -> None:
        self.env = env
        self.fast = fast
        self.now: int = int(env.now)
        self._heap: list[tuple[int, int, Process]] = []
        self._seq = 0  #: tie-breaker: equal times run in scheduling order
        self._armed: list[int] = []  #: times of the kernel's pending SimPy wake-up events
        self._wake_at: float = float("inf")  #: earliest of them
        self._draining = False
        self.halted = False  #: set by halt(): stop running continuations at once
        #: while a step runs: a continuation earlier than this may run inline (see must_yield)
        self.horizon: int = -1
        self.steps = 0  #: continuations run (the model's "events")
        #: generator resumptions (steps less those must_yield let run on inline), and of
        #: them the forced ones: a process that yielded a time had to wait in the heap
        #: because another continuation was due first
        self.resumes = 0
        self.forced = 0
        self.simpy_events = 0  #: SimPy events the kernel itself scheduled

    # ------------------------------------------------------------ scheduling
    def spawn(self, proc: Process, t: int | None = None) -> None:
        """Start a generator process at time ``t`` (default: now)."""
        self.schedule(self.now if t is None else t, proc)

    def schedule(self, t: int, proc: Process) -> None:
        self._seq += 1
        heappush(self._heap, (t, self._seq, proc))
        if t < self.horizon:
            self.horizon = t
        if t < self._wake_at and not self._draining:
            self._arm(t)

    def must_yield(self, t: int) -> bool:
        """Whether the running process must yield to continue at ``t``.

        False means nothing else can happen before ``t`` (the fast path's
        condition): the kernel's clock moves to ``t`` and the process simply goes
        on.  Usage: ``if k.must_yield(t): yield t``.
        """
        if t < self.horizon:
            self.now = t
            self.steps += 1
            return False
        return True

    def _arm(self, t: int) -> None:
        env = self.env
        delay: Any = t - env.now  # int or float, exactly as SimPy keeps its clock
        if delay < 0:
            delay = 0
        schedule_wakeup(env, delay, self._wake)
        heappush(self._armed, t)
        self._wake_at = float(t)  # exact below 2**53 ns (104 days)
        self.simpy_events += 1

    def halt(self) -> None:
        """Stop after the current step (the run has what it needs).

        Checked before every step, so fast and slow mode stop at the same point.
        """
        self.halted = True
        self.horizon = -1  # no more inline continuations either

    # ------------------------------------------------------------ running
    def _wake(self, _ev: simpy.Event) -> None:
        armed = self._armed
        heappop(armed)  # SimPy fires wake-ups in time order: this is the earliest
        self._wake_at = armed[0] if armed else float("inf")
        env = self.env
        heap = self._heap
        fast = self.fast
        env_now = env.now
        steps = 0
        forced = 0
        self._draining = True
        # The earliest time a foreign SimPy event could interleave: with the fast path,
        # the next one in SimPy's queue (events at env_now itself run first: anything
        # at env_now is due); without it, every step after env_now takes an event.
        q = env.peek()  # the next foreign event's time (SimPy's public peek; inf if none)
        if q == math.inf:
            q = NEVER
        limit: int = math.floor(env_now) + 1 if (not fast or q <= env_now) else math.ceil(q)
        # One loop runs every continuation that is due (the outer loop) and keeps
        # running each one inline while that is causally safe (the inner loop); it
        # is the whole simulation's inner loop, hence written out in one function.
        item = heappop(heap) if heap else None
        while item is not None:
            t, _, proc = item
            if t > env_now and (not fast or t >= q):
                heappush(heap, item)  # not due yet: a later wake-up runs it
                break
            if self.halted:
                heappush(heap, item)
                break
            # nothing but this process can happen before the horizon (schedule() lowers
            # it when the step forks or wakes another process)
            top = heap[0][0] if heap else NEVER
            self.horizon = top if top < limit else limit
            while True:
                self.now = t
                steps += 1
                # next(proc, None), not proc.send(None) in a try: the same step, but a
                # finished process costs no StopIteration (processes never yield None)
                nxt = next(proc, None)
                if nxt is None:
                    item = heappop(heap) if heap else None
                    break
                if type(nxt) is Join:
                    if nxt.remaining == 0:
                        nxt = nxt.t
                    else:
                        nxt.waiter = proc
                        item = heappop(heap) if heap else None
                        break
                # run inline if nothing else (kernel or SimPy) could happen before nxt
                if nxt < self.horizon:
                    t = nxt
                    continue
                # queue it and take the earliest continuation, in one heap operation
                forced += 1
                self._seq += 1
                item = heappushpop(heap, (nxt, self._seq, proc))
                break
        self.steps += steps
        self.resumes += steps
        self.forced += forced
        self._draining = False
        self.horizon = -1  # outside a step nothing may run inline
        if heap and heap[0][0] < self._wake_at:
            self._arm(heap[0][0])

    def run_until_idle(self) -> None:
        """Convenience for tests: run SimPy until nothing is left."""
        self.env.run()
