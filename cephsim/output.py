"""Writing result files atomically: a reader never sees half a file."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from cephsim.errors import CephsimError


def check_output_dir(path: str | Path, option: str = "--output") -> Path:
    """The directory ``path`` would be written to; an error if it does not exist or if
    ``path`` is itself a directory.

    Commands that compute for minutes call it (through :func:`check_outputs`) before
    they start, not only at the write.
    """
    p = Path(path)
    if p.is_dir():
        raise CephsimError.single(f"{option} {p}: is a directory; give a file name")
    directory = p.parent if str(p.parent) else Path(".")
    if not directory.is_dir():
        raise CephsimError.single(f"{option} {p}: output directory does not exist")
    return directory


def check_outputs(outputs: dict[str, Path | None], inputs: Sequence[Path] = ()) -> None:
    """Refuse, before any work, output files that cannot be written or would replace
    an input (``cephsim run s.yaml -o s.yaml`` would overwrite the scenario)."""
    ins = [_same_key(i) for i in inputs]
    for option, path in outputs.items():
        if path is None:
            continue
        check_output_dir(path, option)
        if _same_key(path) in ins:
            raise CephsimError.single(f"{option} {path}: is one of the input files; "
                                      "write the result somewhere else")


def _same_key(p: Path) -> tuple[int, int] | str:
    try:
        st = p.stat()
        return (st.st_dev, st.st_ino)
    except OSError:
        return str(p.resolve())


def file_mode() -> int:
    """The mode a plain ``open(path, "w")`` would give: 0666 less the umask (mkstemp's
    temporary files are 0600, which would make results unreadable to the group)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


@contextmanager
def atomic_path(path: str | Path, option: str = "--output", suffix: str = ".tmp") -> Iterator[str]:
    """A temporary file beside ``path`` to write to; it replaces ``path`` (with the mode a
    plain ``open`` would give) only if the block succeeds, and is removed otherwise."""
    p = Path(path)
    directory = check_output_dir(p, option)
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=suffix, dir=directory)
    os.close(fd)
    try:
        yield tmp
        os.chmod(tmp, file_mode())
        os.replace(tmp, p)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_atomic(path: str | Path, text: str) -> None:
    with atomic_path(path) as tmp:
        Path(tmp).write_text(text, encoding="utf-8")
