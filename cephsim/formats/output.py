"""Writing result files atomically: a reader never sees half a file."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from cephsim.errors import CephsimError

#: ``-o -``: the text goes to stdout, as if ``-o`` had not been given
STDOUT = "-"


def check_output_dir(path: str | Path, option: str = "--output") -> Path:
    """The directory ``path`` would be written to; an error unless a new file can be
    created there and renamed over ``path`` (which must be a regular file if it exists).

    Commands that compute for minutes call it (through :func:`check_outputs`) before
    they start, not only at the write.
    """
    p, directory = _where(path, option)
    fd, probe = _temp_file(path, option, p, directory, ".probe")
    os.close(fd)
    os.unlink(probe)
    return directory


def _where(path: str | Path, option: str) -> tuple[Path, Path]:
    """The file a rename will replace and its directory, after the checks that need no
    write: ``path`` is not a directory, not a device or pipe, and its directory exists."""
    try:
        return _where_checked(path, option)
    except (OSError, RuntimeError) as e:  # a symlink loop, a name too long for the system
        reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        raise CephsimError.single(f"{option} {path}: cannot write there: {reason}") from None


def _where_checked(path: str | Path, option: str) -> tuple[Path, Path]:
    given = Path(path)
    if str(path) in ("", "."):  # typer reads an empty value as the path '.'
        raise CephsimError.single(f"{option}: an empty name (or '.') is the current directory; "
                                  "give a file name")
    if given.is_dir():
        raise CephsimError.single(f"{option} {path}: is a directory; give a file name")
    if given.exists() and not given.is_file():  # (both follow symlinks)
        # a device, a pipe, /dev/stdout on a terminal or pipe: the rename would replace the
        # device node or the link itself (as root, /dev/stdout became a plain file)
        raise CephsimError.single(
            f"{option} {path}: is not a regular file; results are written to a new file that "
            f"replaces it whole (use '{option} -' or leave {option} out for stdout)")
    p = _target(given)
    directory = p.parent if str(p.parent) else Path(".")
    if not directory.is_dir():
        raise CephsimError.single(f"{option} {path}: output directory does not exist")
    return p, directory


def _temp_file(path: str | Path, option: str, p: Path, directory: Path,
               suffix: str) -> tuple[int, str]:
    """A new file beside ``p`` (read-only mounts, /proc, /sys and permissions refuse it)."""
    try:
        return tempfile.mkstemp(prefix=f".{p.name}.", suffix=suffix, dir=directory)
    except OSError as e:
        raise CephsimError.single(f"{option} {path}: cannot create a file in {directory} "
                                  f"({e.strerror or e})") from None


def _target(p: Path) -> Path:
    """The file a rename must replace: a symlink's target (``results.json`` -> ``runs/r.json``
    stays a link; ``/dev/stdout`` redirected to a file replaces that file, not the link)."""
    return p.resolve() if p.is_symlink() else p


def check_outputs(outputs: dict[str, Path | None], inputs: Sequence[Path] = ()) -> None:
    """Refuse, before any work, output files that cannot be written or would replace
    an input (``cephsim run s.yaml -o s.yaml`` would overwrite the scenario)."""
    ins = [_same_key(i) for i in inputs]
    seen: dict[tuple[int, int] | str, str] = {}
    for option, path in outputs.items():
        if path is None or str(path) == STDOUT:
            continue
        check_output_dir(path, option)
        key = _same_key(path)
        if key in ins:
            raise CephsimError.single(f"{option} {path}: is one of the input files; "
                                      "write the result somewhere else")
        if key in seen:
            raise CephsimError.single(f"{option} {path}: is also {seen[key]}'s file; give each "
                                      "output its own name")
        seen[key] = option


def _same_key(p: Path) -> tuple[int, int] | str:
    try:
        st = Path(p).stat()
        return (st.st_dev, st.st_ino)
    except (OSError, RuntimeError):
        try:
            return str(Path(p).resolve())
        except (OSError, RuntimeError):  # a symlink loop: compared by its name
            return str(Path(p).absolute())


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
    p, directory = _where(path, option)
    fd, tmp = _temp_file(path, option, p, directory, suffix)  # (creating it is the probe)
    os.close(fd)
    try:
        yield tmp
        os.chmod(tmp, file_mode())
        try:
            os.replace(tmp, p)
        except OSError as e:
            raise CephsimError.single(f"{option} {path}: cannot replace it: {e.strerror or e}") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_atomic(path: str | Path, text: str) -> None:
    with atomic_path(path) as tmp:
        try:
            Path(tmp).write_text(text, encoding="utf-8", errors="replace")
        except OSError as e:  # disk full, a file-size limit: nothing replaces ``path``
            raise CephsimError.single(f"--output {path}: cannot write: {e.strerror or e}") from None


def check_output_tree(root: str | Path, files: Sequence[str | Path], option: str,
                      others: Sequence[Path] = ()) -> None:
    """Refuse, before any work, a tree of result files that cannot be written: ``root``
    (created with its parents if missing) or a folder on the way that is not a folder, a
    file's place taken by something other than a regular file, no folder to create
    things in, or a file that is one of ``others`` (the inputs and the other outputs).
    ``files`` are relative to ``root``."""
    if not str(root).strip():  # before Path(): Path("") is "."
        raise CephsimError.single(f"{option}: an empty name; give a directory")
    root = Path(root)
    if root.exists() and not root.is_dir():
        raise CephsimError.single(f"{option} {root}: is not a directory")
    base = root
    while not base.exists():  # the nearest folder that exists: the tree is created in it
        if base.parent == base:
            break
        base = base.parent
    if not base.is_dir():
        raise CephsimError.single(f"{option} {root}: {base} is not a directory")
    fd, probe = _temp_file(root, option, root, base, ".probe")
    os.close(fd)
    os.unlink(probe)
    keys = {_same_key(p) for p in others if p is not None and str(p) != STDOUT}
    for rel in files:
        path = root / rel
        for folder in list(reversed(path.parents))[len(root.parents) + 1:]:
            if folder.exists() and not folder.is_dir():
                raise CephsimError.single(f"{option} {root}: {folder} is not a directory")
        if path.is_dir() or (path.exists() and not path.is_file()):
            raise CephsimError.single(f"{option} {root}: {path} is not a regular file; results "
                                      "are written to new files that replace it")
        if _same_key(path) in keys:
            raise CephsimError.single(f"{option} {root}: {path} is one of the input or output "
                                      "files; write the results somewhere else")


def write_tree(root: str | Path, texts: dict[Path, str], option: str) -> list[Path]:
    """Write each text to its file under ``root`` (folders created as needed), each file
    atomically; returns the paths written.  Check first with :func:`check_output_tree`."""
    root = Path(root)
    written = []
    for rel, text in texts.items():
        path = root / rel
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise CephsimError.single(f"{option} {root}: cannot create {path.parent} "
                                      f"({e.strerror or e})") from None
        with atomic_path(path, option) as tmp:
            try:
                Path(tmp).write_text(text, encoding="utf-8", errors="replace")
            except OSError as e:
                raise CephsimError.single(f"{option} {path}: cannot write: "
                                          f"{e.strerror or e}") from None
        written.append(path)
    return written
