"""Where fio-plot looks for fio JSON files: the tree its ``bench-fio`` writes.

``bench-fio`` (github.com/louwrentius/fio-plot) runs one fio job per combination of its
settings and writes each one's ``--output-format=json`` to
``<output>/<target>/<bs>/<rw>-<iodepth>-<numjobs>.json``; a mixed pattern (rw, randrw)
gets a folder per read share, ``<output>/<target>/<rw><rwmixread>/<bs>/...``.  The target
is the base name of the device or file benchmarked, the block size as it was given
(``4k``).  ``fio-plot -i <output>/<target>/<bs>`` reads every ``.json`` in that one
folder whose first job's ``"job options"`` (merged with ``"global options"``) have the
``rw`` it is asked for and an ``iodepth`` and ``numjobs`` in its lists, and labels a
comparison by the folders above the files.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import PurePosixPath

from cephsim.formats.report.fio_json import MIXED_RW, format_bs

__all__ = ["bench_path", "folder_name"]


def folder_name(text: str) -> str:
    """``text`` as one folder name: letters and digits (any script's) and ``._,=+-`` kept,
    every other character (``/``, spaces, controls) ``_``, no leading dot (hidden).  Where
    a character was replaced, 8 hex digits of the text's hash follow, so that two names
    that differ only there ('a/b', 'a b') do not share a folder."""
    name = "".join(c if c.isalnum() or c in "._,=+-" else "_" for c in text)
    name = re.sub(r"^\.+", lambda m: "_" * len(m[0]), name)
    if name != text or not name:
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]
        name = f"{name}-{digest}"
    return name


def bench_path(target: str, rw: str, rwmixread: int, bs: int, iodepth: int,
               numjobs: int) -> PurePosixPath:
    """The file bench-fio would write for one job, relative to its output folder."""
    top = PurePosixPath(folder_name(target))
    if rw in MIXED_RW:
        top /= f"{rw}{rwmixread}"
    return top / format_bs(bs) / f"{rw}-{iodepth}-{numjobs}.json"
