"""The ``cephsim`` command: a thin typer layer over the library.

Every command turns a :class:`~cephsim.errors.CephsimError` into a short message on
stderr and exit status 2; nothing is written when a command fails.  ``core`` holds the
app and the commands on one scenario; ``calibrate``, ``whatif`` and ``monitors`` add
their groups; ``common`` is what they share.  Commands import the library when they run
(each such import says "on use"), so that ``cephsim --help`` or a mistyped option answers
without loading the model and its schema, SimPy, numpy or scipy (about a second).
"""

from __future__ import annotations

from cephsim.cli import calibrate, monitors, whatif
from cephsim.cli.core import app, main

calibrate.register(app)
whatif.register(app)
monitors.register(app)

__all__ = ["app", "main"]
