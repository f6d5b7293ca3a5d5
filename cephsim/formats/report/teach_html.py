"""The teaching page: one explained op as a self-contained HTML file.

Renders :func:`cephsim.tools.explain.explanation_data`'s plain data (the step labels the
model emits, the spans, the attribution, the what-if runs) with the page, style and script
in ``teach/``: no network, no library; the data rides in the page as JSON.
"""

from __future__ import annotations

import html
import json
from importlib import resources
from string import Template
from typing import Any

from cephsim import __version__


def _part(name: str) -> str:
    return resources.files("cephsim.formats.report").joinpath("teach", name).read_text("utf-8")


def embed_json(data: Any) -> str:
    """JSON safe inside a <script> element: no ``</`` (which would end it) and no HTML
    comment opener; both are valid JSON escapes."""
    text = json.dumps(_finite(data), separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False)
    return text.replace("</", "<\\/").replace("<!--", "<\\u0021--")


def _finite(x: Any) -> Any:
    """NaN (a figure with no ops behind it) as null: JSON has no NaN."""
    if isinstance(x, float) and x != x:
        return None
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_finite(v) for v in x]
    return x


def _op_word(data: dict[str, Any]) -> str:
    if not data["is_write"]:
        return "read"
    if data.get("erasure"):
        return "erasure-coded write"
    return "replicated write" if data["pool_size"] > 1 else "write"


def render_page(data: dict[str, Any]) -> str:
    """The page for ``data`` (an explanation's data, its ablations with their ops)."""
    assumptions = data.get("assumptions")
    extra = ("" if not assumptions else
             "<details><summary>What decides the answer (given or assumed)</summary>"
             f"<pre>{html.escape(assumptions)}</pre></details>")
    return Template(_part("page.html")).substitute(
        version=html.escape(__version__),
        title=html.escape(f"cephsim explain: {data['scenario']}, one "
                          f"{'write' if data['is_write'] else 'read'} step by step"),
        op_word=_op_word(data),
        scenario=html.escape(data["scenario"]), path=html.escape(data["path"]),
        seed=int(data["seed"]), css=_part("page.css"), js=_part("page.js"),
        data=embed_json(data), assumptions=extra)
