"""``cephsim catalog``: the hardware catalog with the source of every figure."""

from __future__ import annotations

from cephsim.catalog.load import catalog_rows, entry_figures, load_catalog


def catalog_text(kind: str | None, id: str | None = None) -> str:  # noqa: A002
    """All entries (of ``kind``): a summary line and which source backs which figures; or,
    with ``id``, each figure of that entry as written, with its basis, source and note."""
    if id is not None:
        return _entry_text(kind or "", id)
    out = []
    current = None
    for row in catalog_rows(kind):
        if row["kind"] != current:
            current = row["kind"]
            out.append(f"\n{current}:")
        out.append(f"  {row['id']:<30} {row['name']}")
        if row.get("figures"):
            out.append(f"      {row['figures']}")
        for src, basis, fields in row["backing"]:
            out.append(f"      {', '.join(fields)} [{basis}]: {src}")
    out.append("\nper figure, with values and notes: cephsim catalog KIND ID")
    return "\n".join(out).lstrip("\n") + "\n"


def _entry_text(kind: str, id: str) -> str:  # noqa: A002

    e = load_catalog().get(kind, id)
    lines = [f"{id}: {e.name}"]
    if getattr(e, "notes", None):
        lines.append(f"  notes: {' '.join(str(e.notes).split())}")
    for f in entry_figures(kind, id):
        value = f["value"] if f["value"] is not None else "(not given)"
        lines.append(f"  {f['field']}: {value}")
        if f["source"] is None:
            lines.append("      given by the user (no source)")
            continue
        lines.append(f"      {f['basis']}: {f['source']}")
        if f["note"]:
            lines.append(f"      note: {' '.join(str(f['note']).split())}")
    return "\n".join(lines) + "\n"
