"""The one error type users see.

Every problem with user input (a scenario, an override, a measurement file, a
catalog name) is raised as a :class:`CephsimError` carrying *where* it is
(file, line, column, dotted field path) and *what* is wrong.  The CLI prints
``file:line:col: field: message`` and exits with status 2; no traceback.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field


@dataclass
class Problem:
    """One located problem in an input."""

    message: str
    file: str | None = None
    line: int | None = None  #: 1-based
    column: int | None = None  #: 1-based
    path: str | None = None  #: dotted field path, e.g. ``network.hosts.delay``

    def __str__(self) -> str:
        where = ""
        if self.file:
            where = self.file
            if self.line is not None:
                where += f":{self.line}"
                if self.column is not None:
                    where += f":{self.column}"
            where += ": "
        what = f"{self.path}: " if self.path else ""
        return f"{where}{what}{self.message}"


@dataclass
class CephsimError(Exception):
    """A user-facing error: bad input, impossible configuration, unreadable file."""

    problems: list[Problem] = field(default_factory=list)

    @classmethod
    def single(cls, message: str, **where: object) -> CephsimError:
        return cls([Problem(message, **where)])  # type: ignore[arg-type]

    def __str__(self) -> str:
        return "\n".join(str(p) for p in self.problems)


_SPECIAL = ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISSOCK, "a socket"),
            (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


def not_a_regular_file(path: object) -> str | None:
    """Why an input path cannot be read as a file, if it is a pipe, socket or device (one
    would block the read forever, or never end); None for a regular file, a directory or a
    path that does not exist (left to the reader's own messages).  ``stat`` does not open
    the file, so it cannot block."""
    try:
        mode = os.stat(str(path)).st_mode
    except (OSError, ValueError):
        return None
    for test, kind in _SPECIAL:
        if test(mode):
            return f"is {kind}, expected a regular file"
    return None


def byte_line_col(data: bytes, offset: int) -> tuple[int, int]:
    """1-based (line, column) of byte ``offset`` in ``data``: where a bad byte of an input
    file is reported."""
    return data.count(b"\n", 0, offset) + 1, offset - (data.rfind(b"\n", 0, offset) + 1) + 1
