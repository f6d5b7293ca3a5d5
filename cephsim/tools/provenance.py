"""Which version of the model produced a generated table: a hash of the model's sources.

Generated blocks in README.md and docs/ carry it in their opening marker; a test fails when
a block's hash is not the current one, so a change to the model cannot leave old numbers
in the docs (regenerate them with ``python tools/make_docs.py``).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  #: the cephsim package
#: what decides a simulated number: the model, its data, and the statistics reported
MODEL_SOURCES = ("spec", "model", "metrics", "catalog", "scenario/schema.py", "units.py",
                 "formats/report/fio_stats.py",
                 "tools/calibrate/corpus.py", "tools/calibrate/objective.py")
#: an opening marker: <!-- generated: NAME (model HASH) ... -->
MARKER = re.compile(r"<!-- generated: (?P<name>[\w.-]+) \(model (?P<hash>[0-9a-f]{12})\)")


def model_hash() -> str:
    """12 hex digits of sha256 over the model's source and data files (path and bytes)."""
    h = hashlib.sha256()
    files: list[Path] = []
    for rel in MODEL_SOURCES:
        p = ROOT / rel
        files += sorted(q for q in p.rglob("*") if q.suffix in (".py", ".yaml")) if p.is_dir() else [p]
    for f in files:
        h.update(f.relative_to(ROOT).as_posix().encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:12]


def opening(name: str, how: str) -> str:
    return f"<!-- generated: {name} (model {model_hash()}) by {how}; do not edit -->"


def closing(name: str) -> str:
    return f"<!-- end generated: {name} -->"


def replace_block(text: str, name: str, body: str, how: str) -> str:
    """``text`` with the block ``name`` (between its markers) replaced by ``body``.
    Raises KeyError when the block's markers are missing."""
    start = re.search(r"<!-- generated: " + re.escape(name) + r" \(model [0-9a-f]{12}\)[^\n]*-->",
                      text)
    end = text.find(closing(name))
    if start is None or end < start.end():
        raise KeyError(name)
    return text[:start.start()] + opening(name, how) + "\n" + body.rstrip("\n") + "\n" + text[end:]


def stale_blocks(text: str) -> list[str]:
    """Names of the generated blocks in ``text`` made by another version of the model."""
    now = model_hash()
    return [m["name"] for m in MARKER.finditer(text) if m["hash"] != now]
