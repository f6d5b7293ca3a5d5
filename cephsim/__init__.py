"""cephsim: a discrete-event simulator of Ceph replicated write latency.

Public API (kept small on purpose):

- :func:`cephsim.scenario.load_scenario` reads and validates a scenario file.
- :func:`cephsim.model.runner.run_scenario` resolves and simulates it and returns a
  :class:`cephsim.model.runner.RunResult`.
"""

from __future__ import annotations

from cephsim._stale import guard as _guard_stale_compiled_modules

__version__ = "0.1.0"

_guard_stale_compiled_modules()

__all__ = ["__version__"]
