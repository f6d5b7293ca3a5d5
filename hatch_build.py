"""Build hook: keep the source tree free of stale compiled modules.

The optional mypyc build (``[tool.hatch.build.targets.wheel.hooks.mypyc]`` in
pyproject.toml, off unless ``HATCH_BUILD_HOOK_ENABLE_MYPYC=true``) compiles in
place: ``cephsim/**/<module>.cpython-*.so`` next to the sources and one shared
``*__mypyc.*.so`` at the project root.  Python imports an extension module
before the ``.py`` of the same name, so after a compiled *editable* install
those files would shadow every later edit and every pure-Python reinstall.

This hook runs first on every wheel or editable build and deletes them; the
mypyc hook, when enabled, then builds fresh ones.  It needs nothing but hatchling.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

EXTENSIONS = (".so", ".pyd")


def compiled_artifacts(root: Path) -> list[Path]:
    """Extension modules mypyc may have left in the source tree."""
    found = [p for p in (root / "cephsim").rglob("*") if p.suffix in EXTENSIONS]
    found += [p for p in root.glob("*__mypyc.*") if p.suffix in EXTENSIONS]
    return found


class CleanCompiled(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def _clean(self, what: str) -> None:
        removed = compiled_artifacts(Path(self.root))
        for path in removed:
            path.unlink(missing_ok=True)
        if removed:
            self.app.display_info(f"cephsim: removed {len(removed)} {what} compiled module(s)")

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        self._clean("stale")
        if "mypyc" not in self.build_config.hook_config:
            self.app.display_info("cephsim: pure-Python build "
                                  "(HATCH_BUILD_HOOK_ENABLE_MYPYC=true compiles the hot path)")

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        # A regular wheel carries its own copies: leave no compiled modules in the
        # source tree that would shadow its .py files (an editable install needs them).
        if version != "editable":
            self._clean("in-tree")
