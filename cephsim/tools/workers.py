"""Where a tool's simulations run: in this process, on a pool of local processes (every
core by default), or on a Dask cluster (``--executor dask --scheduler ADDRESS``).

Every tool that runs many simulations (sweep, compare, explain's ablations, calibrate,
accuracy) hands them to :class:`Workers`.  Results come back in the order the runs were
given, whichever executor ran them and in whatever order they finished, and each run is
a pure function of its arguments (its scenario, overrides and seed), so the numbers are
the same whichever runs them.
"""

from __future__ import annotations

import os
from concurrent.futures import Executor, Future, ProcessPoolExecutor, as_completed
from typing import Any, Callable, Sequence

from cephsim.errors import CephsimError

EXECUTORS = ("local", "dask")


class Workers:
    """Runs ``fn(*args)`` for many argument tuples; a context manager that keeps its local
    pool (and the per-process caches in its workers) or its Dask client for every
    :meth:`map` inside it, and closes them at the end.

    ``jobs``: local processes (default: every core; 1 runs everything in this process).
    ``scheduler``: a Dask scheduler address, or a ``distributed.Client`` to use as is."""

    def __init__(self, jobs: int | None = None, executor: str = "local",
                 scheduler: Any = None) -> None:
        if executor not in EXECUTORS:
            raise CephsimError.single(f"unknown executor {executor!r} (local or dask)")
        self.executor = executor
        self.scheduler = scheduler
        self.jobs = jobs or os.cpu_count() or 1
        self._pool: ProcessPoolExecutor | None = None
        self._client: Any = None
        self._own_client = False

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def describe(self) -> str:
        """Where the runs go, for a progress line."""
        if self.executor == "dask":
            return f"a Dask cluster ({self.scheduler})" if isinstance(self.scheduler, str) \
                else "a Dask cluster"
        return f"{self.jobs} worker(s)"

    def map(self, fn: Callable[..., Any], args: Sequence[tuple[Any, ...]],
            done: Callable[[], None] | None = None) -> list[Any]:
        """``[fn(*a) for a in args]``, run where this object sends runs; ``done()`` after each
        finishes.  An exception in a run is raised here (the other runs are stopped); so is
        Ctrl-C, after the local workers are killed (see :func:`stop_pool`)."""
        if not args:
            return []
        if self.executor == "local" and (self.jobs <= 1 or len(args) <= 1):
            out = []
            for a in args:
                out.append(fn(*a))
                if done:
                    done()
            return out
        ex = self._get_executor(len(args))
        results: list[Any] = [None] * len(args)
        futs: dict[Future[Any], int] = {}
        try:
            for i, a in enumerate(args):
                futs[ex.submit(fn, *a)] = i
            for f in as_completed(futs):
                results[futs[f]] = f.result()
                if done:
                    done()
        except BaseException:  # Ctrl-C or a failed run: stop now, not after every queued run
            if self._pool is not None:
                stop_pool(self._pool)
                self._pool = None
            else:
                for f in futs:
                    f.cancel()
            raise
        return results

    def _get_executor(self, n_tasks: int) -> Executor:
        if self.executor == "dask":
            if self._client is None:
                self._client, self._own_client = dask_client(self.scheduler)
            return self._client.get_executor(pure=False)
        if self._pool is None:
            self._pool = new_pool(min(self.jobs, n_tasks))
        return self._pool

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None
        if self._client is not None and self._own_client:
            self._client.close()
        self._client = None


def new_pool(workers: int) -> ProcessPoolExecutor:
    """A process pool whose workers ignore Ctrl-C and die with this process
    (:func:`worker_init`); stop it early with :func:`stop_pool`."""
    return ProcessPoolExecutor(max_workers=workers, initializer=worker_init,
                               initargs=(os.getpid(),))


def worker_init(parent: int | None = None) -> None:
    """Workers ignore Ctrl-C: the terminal sends it to the whole process group, and a
    worker would report the interrupted run and take the next one (concurrent.futures
    catches BaseException per task).  The parent stops them (:func:`stop_pool`).

    They also die with their parent: killed outright (SIGKILL, an OOM kill), the parent
    cannot stop them, and orphaned workers would run on and hold the caller's stdout (a
    pipe into ``tee`` would never close).  Linux's parent-death signal does it; where
    there is none, nothing changes."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if parent is None:
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        PR_SET_PDEATHSIG = 1
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: no parent-death signal
        return
    if os.getppid() != parent:  # the parent died before the signal was armed
        os._exit(1)


def stop_pool(ex: ProcessPoolExecutor) -> None:
    """End the running runs and cancel the queued ones: a plain shutdown would wait for
    every queued run to finish first.  The workers hold nothing to clean up (results come
    back whole or not at all), so they are killed; the executor then sees its workers gone,
    fails what it had handed them, and its shutdown reaps them."""
    for p in list((getattr(ex, "_processes", None) or {}).values()):
        if p.exitcode is None:
            p.kill()
    ex.shutdown(wait=True, cancel_futures=True)


def dask_client(scheduler: Any) -> tuple[Any, bool]:
    """A client of the scheduler at ``scheduler`` (an address, or a ``Client`` used as is),
    and whether it is ours to close."""
    try:
        from distributed import Client
    except ImportError:
        raise CephsimError.single("--executor dask needs Dask: pip install "
                                  "'cephsim[dask]'") from None
    if isinstance(scheduler, Client):
        return scheduler, False
    if not scheduler:
        raise CephsimError.single("--executor dask needs --scheduler ADDRESS (e.g. "
                                  "tcp://host:8786)")
    try:
        return Client(scheduler, timeout="10s"), True
    except (OSError, TimeoutError) as e:
        raise CephsimError.single(f"cannot reach the Dask scheduler at {scheduler}: {e}") from None
