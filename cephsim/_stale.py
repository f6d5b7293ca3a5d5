"""Run the sources, not stale machine code, after an edit to a compiled module.

The install compiles the hot path in place (``hatch_build.py``) and records a
hash of each compiled source in ``cephsim/_compiled.json``.  Python imports an
extension module before the ``.py`` of the same name, so after editing one of
those sources an editable install would silently keep running the old code.
:func:`guard` compares the hashes once, at ``import cephsim``; if any source
changed it makes every compiled module load from its ``.py`` (all or none:
compiled code checks the exact classes of its arguments, so it cannot be mixed
with pure-Python versions of its neighbours) and warns once.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import sys
import warnings
from pathlib import Path
from types import ModuleType
from typing import Sequence

ROOT = Path(__file__).resolve().parent
MANIFEST = ROOT / "_compiled.json"


def stale_modules(manifest: Path = MANIFEST) -> list[str]:
    """Compiled modules whose source differs from what was compiled."""
    try:
        recorded: dict[str, str] = json.loads(manifest.read_text())
    except (OSError, ValueError):
        return []  # pure-Python install (or an unreadable manifest: nothing to check)
    stale = []
    for rel, digest in recorded.items():
        src = ROOT.parent / rel
        try:
            if hashlib.sha256(src.read_bytes()).hexdigest() != digest:
                stale.append(rel)
        except OSError:
            stale.append(rel)
    return stale


class PreferSources(importlib.abc.MetaPathFinder):
    """Finds cephsim's compiled modules as their ``.py`` sources instead."""

    def __init__(self, names: set[str]) -> None:
        self.names = names

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self.names:
            return None
        src = ROOT.parent.joinpath(*fullname.split(".")).with_suffix(".py")
        return importlib.util.spec_from_file_location(fullname, src)


def guard() -> None:
    stale = stale_modules()
    if not stale:
        return
    recorded = json.loads(MANIFEST.read_text())
    names = {rel[:-3].replace("/", ".") for rel in recorded}
    sys.meta_path.insert(0, PreferSources(names))
    warnings.warn(f"cephsim: {', '.join(stale)} changed since the hot path was compiled; "
                  "running the pure-Python sources (same results, slower). Reinstall "
                  "(pip install -e .) to compile again.", RuntimeWarning, stacklevel=3)
