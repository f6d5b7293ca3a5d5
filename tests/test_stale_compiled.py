"""The import-time guard against stale compiled modules (cephsim/_stale.py)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from cephsim import _stale


def _manifest(tmp_path: Path, entries: dict[str, str]) -> Path:
    p = tmp_path / "_compiled.json"
    p.write_text(json.dumps(entries))
    return p


def test_no_manifest_means_pure_python_and_nothing_to_check(tmp_path: Path) -> None:
    assert _stale.stale_modules(tmp_path / "missing.json") == []


def test_matching_hash_is_fresh_and_changed_source_is_stale(tmp_path: Path) -> None:
    rel = "cephsim/model/engine/kernel.py"
    src = _stale.ROOT.parent / rel
    digest = hashlib.sha256(src.read_bytes()).hexdigest()
    assert _stale.stale_modules(_manifest(tmp_path, {rel: digest})) == []
    assert _stale.stale_modules(_manifest(tmp_path, {rel: "0" * 64})) == [rel]
    assert _stale.stale_modules(_manifest(tmp_path, {"cephsim/gone.py": digest})) == [
            "cephsim/gone.py"]


def test_prefer_sources_finds_the_py_file() -> None:
    finder = _stale.PreferSources({"cephsim.model.engine.kernel"})
    spec = finder.find_spec("cephsim.model.engine.kernel", None)
    assert spec is not None and spec.origin is not None and spec.origin.endswith("kernel.py")
    assert finder.find_spec("cephsim.cli", None) is None  # never compiled: left to Python


def test_the_running_build_is_consistent() -> None:
    """Either pure Python, or compiled from exactly these sources (else the guard fell back)."""
    import cephsim.model.writepath as wp

    if wp.__file__.endswith((".so", ".pyd")):
        assert _stale.stale_modules() == []
