"""Writing result files atomically: a reader never sees half a file."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from cephsim.errors import CephsimError


def check_output_dir(path: str | Path) -> Path:
    """The directory ``path`` would be written to; an error if it does not exist.

    Commands that compute for minutes call it before they start, not only at the write.
    """
    p = Path(path)
    directory = p.parent if str(p.parent) else Path(".")
    if not directory.is_dir():
        raise CephsimError.single("output directory does not exist", file=str(p))
    return directory


def write_atomic(path: str | Path, text: str) -> None:
    p = Path(path)
    directory = check_output_dir(p)
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
