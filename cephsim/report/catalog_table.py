"""``cephsim catalog``: the hardware catalog as a table with sources."""

from __future__ import annotations

from cephsim.catalog.load import catalog_rows


def catalog_text(kind: str | None) -> str:
    rows = catalog_rows(kind)
    out = []
    current = None
    for row in rows:
        if row["kind"] != current:
            current = row["kind"]
            out.append(f"\n{current}:")
        out.append(f"  {row['id']:<30} {row['name']}")
        if row.get("figures"):
            out.append(f"      {row['figures']}")
        for src in row.get("sources", []):
            out.append(f"      source: {src}")
    return "\n".join(out).lstrip("\n") + "\n"
