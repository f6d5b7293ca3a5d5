"""Tracing one op's life, span by span, for the teaching view.

An op's time accumulator is normally a plain ``list`` (``[network, cpu,
wake, disk, queue]``).  For an op being traced it is a :class:`TracedAcc`, a
``list`` subclass that also collects *spans*: ``(resource, kind, t_arrive,
t_start, t_end, wake_ns)``.  Components check ``type(acc) is not list``
(one pointer comparison) and append a span; nothing else changes, so a traced
run gives exactly the same results as an untraced one.

Branches of a forked op (replicas, local commit) share the span list, so the
trace shows everything that happened in parallel; the accumulator itself is
copied per branch, and the join keeps the one of the branch that arrived
last, which is the critical path.
"""

from __future__ import annotations

from typing import Any

Span = tuple[str, str, int, int, int, int, int]


class TracedAcc(list):  # type: ignore[type-arg]
    """A time accumulator that also records spans."""

    __slots__ = ("spans",)

    def __init__(self, values: Any = (0, 0, 0, 0, 0), spans: list[Span] | None = None) -> None:
        super().__init__(values)
        self.spans: list[Span] = [] if spans is None else spans


def fork(acc: list[int]) -> list[int]:
    """A copy of an accumulator for a parallel branch (keeping the trace, if any)."""
    if type(acc) is list:
        return list(acc)
    return TracedAcc(acc, acc.spans)  # type: ignore[attr-defined]
