"""cephsim: a discrete-event simulator of Ceph replicated write latency.

The library's public face (docs/api.md)::

    import cephsim
    sc = cephsim.load("scenarios/quickstart.yaml", sets=["pool.size=2"])
    res = cephsim.run(sc, seed=1)
    print(cephsim.render(res))          # as `cephsim run` prints it; "json" for fio's JSON

Names outside ``__all__`` are the package's insides and may move.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cephsim._stale import guard as _guard_stale_compiled_modules

if TYPE_CHECKING:
    from cephsim.api import assumptions, load, render, run
    from cephsim.errors import CephsimError
    from cephsim.model.runner import RunResult
    from cephsim.scenario.schema import Scenario

__version__ = "0.1.0"

_guard_stale_compiled_modules()

#: the public names, and the module that holds each
_PUBLIC = {"load": "cephsim.api", "run": "cephsim.api", "render": "cephsim.api",
           "assumptions": "cephsim.api", "RunResult": "cephsim.model.runner",
           "Scenario": "cephsim.scenario.schema", "CephsimError": "cephsim.errors"}

__all__ = ["CephsimError", "RunResult", "Scenario", "__version__", "assumptions", "load", "render",
           "run"]


def __getattr__(name: str) -> Any:
    # on first use: importing any part of the package runs this file first, and a worker
    # process, `cephsim --help` or `import cephsim.units` should not load the whole model
    if name in _PUBLIC:
        import importlib

        value = getattr(importlib.import_module(_PUBLIC[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'cephsim' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
