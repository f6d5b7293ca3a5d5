"""Writing result files atomically: a reader never sees half a file."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from cephsim.errors import CephsimError


def write_atomic(path: str | Path, text: str) -> None:
    p = Path(path)
    directory = p.parent if str(p.parent) else Path(".")
    if not directory.is_dir():
        raise CephsimError.single("output directory does not exist", file=str(p))
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, p)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
