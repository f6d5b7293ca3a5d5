"""The docs stay true: generated blocks come from the current model, the README is short."""

from __future__ import annotations

import re

import pytest
from conftest import ROOT

from cephsim.tools.provenance import MARKER, closing, model_hash, replace_block, stale_blocks

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
EXPECTED = {"README.md": {"tour", "accuracy"}, "docs/scenarios.md": {"qd1-scenarios",
        "load-scenarios"},
            "docs/validation.md": {"validation"}}


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_generated_blocks_come_from_the_current_model(path):
    text = path.read_text()
    stale = stale_blocks(text)
    assert not stale, (f"{path.relative_to(ROOT)}: {', '.join(stale)} made by another version of the "
                       f"model (now {model_hash()}): run python tools/make_docs.py")
    for m in MARKER.finditer(text):
        assert closing(m["name"]) in text[m.end():], f"{m['name']}: no closing marker"


def test_every_expected_block_is_there():
    for rel, names in EXPECTED.items():
        found = {m["name"] for m in MARKER.finditer((ROOT / rel).read_text())}
        assert names <= found, (rel, names - found)


def test_the_readme_is_read_in_five_minutes():
    words = len(re.findall(r"\S+", (ROOT / "README.md").read_text()))
    assert words <= 1500, words


def test_a_block_is_replaced_between_its_markers_only():
    text = ("a\n<!-- generated: t (model 000000000000) by x; do not edit -->\nold\n"
            + closing("t") + "\nb\n")
    new = replace_block(text, "t", "new", "y")
    assert new.startswith("a\n<!-- generated: t (model ") and new.endswith(closing("t") + "\nb\n")
    assert "old" not in new and "\nnew\n" in new and stale_blocks(new) == []
    assert stale_blocks(text) == ["t"]
    with pytest.raises(KeyError):
        replace_block("no markers", "t", "x", "y")
