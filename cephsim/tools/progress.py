"""A progress bar with ETA on stderr, shown only for work that lasts more than a second.

Used by ``cephsim run``, ``sweep`` and ``explain``; ``--quiet`` turns it off.  It
never writes to stdout, so piped output (``--format json``) stays clean.
"""

from __future__ import annotations

import threading
from typing import Any


class ProgressBar:
    """A rich progress bar on stderr that appears only if the work lasts more than ``delay`` s."""

    def __init__(self, total: int, what: str, quiet: bool = False, delay: float = 1.0) -> None:
        self.total, self.what, self.quiet, self.delay = total, what, quiet, delay
        self.done = 0
        self._lock = threading.Lock()
        self._prog: Any = None
        self._task: Any = None
        self._timer: threading.Timer | None = None
        self._closed = False

    def __enter__(self) -> ProgressBar:
        if not self.quiet and self.total > 0:
            self._timer = threading.Timer(self.delay, self._start)
            self._timer.daemon = True
            self._timer.start()
        return self

    def _start(self) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        with self._lock:
            if self._closed:
                return
            self._prog = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                  TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                                  console=Console(stderr=True), transient=True)
            self._task = self._prog.add_task(self.what, total=self.total, completed=self.done)
            self._prog.start()

    def advance(self, n: int = 1) -> None:
        self.update(self.done + n)

    def update(self, done: int) -> None:
        """Set the amount of work done (e.g. I/Os completed so far)."""
        with self._lock:
            self.done = done
            if self._prog is not None:
                self._prog.update(self._task, completed=self.done)

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self._closed = True
            if self._timer is not None:
                self._timer.cancel()
            if self._prog is not None:
                self._prog.stop()
