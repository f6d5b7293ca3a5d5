"""Loading the hardware catalog shipped in ``cephsim/catalog/data``.

:func:`load_catalog` reads ``cpus.yaml``, ``cstates.yaml``, ``disks.yaml``,
``nics.yaml`` and ``switches.yaml`` once (the result is cached), validates every
entry against its model in :mod:`cephsim.catalog.models` and returns a
:class:`Catalog`.  Each file's top level maps a short lowercase id to an entry;
top-level keys starting with ``_`` hold shared YAML anchors (provenance blocks)
and are skipped.

A user catalog adds to it: directories named in ``CEPHSIM_CATALOG`` (``os.pathsep``
between them; ``cephsim --catalog DIR`` sets it) may hold files of the same names.  Their
entries join the shipped ones; one that reuses a shipped id must say ``shadow: true``;
``base: <id>`` starts from another entry and changes the fields it gives (a figure it
changes loses the base's source: the user's own, unless given).

Any problem (unreadable YAML, a bad field, an unknown id asked of
:meth:`Catalog.get`) is raised as a :class:`~cephsim.errors.CephsimError` that
names the file and entry id.  :func:`catalog_rows` flattens the catalog into
short rows for the ``cephsim catalog [KIND]`` listing.
"""

from __future__ import annotations

import copy
import difflib
import os
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic_core import PydanticUndefined
from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from cephsim.catalog.models import CPUModel, CStateTable, DiskModel, NICModel, SwitchModel
from cephsim.errors import CephsimError, Problem
from cephsim.units import format_duration
from cephsim.yamlfile import parse_yaml_text, read_text

#: kind -> (data file, model)
KINDS: dict[str, tuple[str, type[BaseModel]]] = {
    "cpus": ("cpus.yaml", CPUModel),
    "cstates": ("cstates.yaml", CStateTable),
    "disks": ("disks.yaml", DiskModel),
    "nics": ("nics.yaml", NICModel),
    "switches": ("switches.yaml", SwitchModel),
}
_SINGULAR = {"cpu": "cpus", "cstate": "cstates", "disk": "disks", "nic": "nics",
             "switch": "switches", "router": "switches", "routers": "switches"}


def _kind(kind: str) -> str:
    k = kind.strip().lower()
    k = _SINGULAR.get(k, k)
    if k not in KINDS:
        hint = difflib.get_close_matches(k, list(KINDS), n=1)
        extra = f"; did you mean {hint[0]!r}?" if hint else ""
        raise CephsimError.single(f"unknown catalog kind {kind!r} (kinds: {', '.join(KINDS)}){extra}")
    return k


def _one(kind: str) -> str:
    """One entry of a kind, in words: ``disks`` -> ``disk``."""
    return "switch" if kind == "switches" else kind[:-1]


@dataclass(frozen=True)
class Catalog:
    """All catalog entries, by kind and id."""

    cpus: dict[str, CPUModel] = field(default_factory=dict)
    cstates: dict[str, CStateTable] = field(default_factory=dict)
    disks: dict[str, DiskModel] = field(default_factory=dict)
    nics: dict[str, NICModel] = field(default_factory=dict)
    switches: dict[str, SwitchModel] = field(default_factory=dict)

    @staticmethod
    def kinds() -> list[str]:
        return list(KINDS)

    def of(self, kind: str) -> dict[str, Any]:
        """The id -> entry mapping of one kind (``"disks"`` or ``"disk"``)."""
        return getattr(self, _kind(kind))

    def get(self, kind: str, id: str) -> Any:  # noqa: A002 - "id" is the user's word
        """The entry ``id`` of ``kind``; a CephsimError with a suggestion if unknown."""
        k = _kind(kind)
        entries = self.of(k)
        if id in entries:
            return entries[id]
        close = difflib.get_close_matches(str(id).lower(), list(entries), n=3, cutoff=0.5)
        hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
        raise CephsimError.single(
            f"unknown {_one(k)} {id!r} in the catalog{hint} "
            f"(list them with `cephsim catalog {k}`)")


def _read(filename: str) -> dict[str, Any]:
    try:
        text = resources.files("cephsim.catalog").joinpath("data", filename).read_text("utf-8")
    except OSError as e:
        raise CephsimError.single(f"cannot read catalog file: {e}", file=_path(filename)) from None
    try:
        data = YAML(typ="safe").load(text)
    except YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        raise CephsimError([Problem(f"cannot read YAML: {getattr(e, 'problem', e)}", file=_path(filename),
                                    line=mark.line + 1 if mark else None,
                                    column=mark.column + 1 if mark else None)]) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise CephsimError.single("top level must be a mapping from id to "
                                  "entry", file=_path(filename))
    return data


def _path(filename: str) -> str:
    return f"cephsim/catalog/data/{filename}"


#: the environment variable naming user catalog directories
ENV = "CEPHSIM_CATALOG"


def user_dirs() -> list[Path]:
    """The user catalog directories, in the order they are read (later ones win)."""
    return [Path(d) for d in os.environ.get(ENV, "").split(os.pathsep) if d.strip()]


def _read_user(path: Path) -> dict[str, Any]:
    data = parse_yaml_text(read_text(path, "catalog file"), str(path))
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise CephsimError.single("top level must be a mapping from id to entry", file=str(path))
    return data


def merge_entry(base: dict[str, Any], change: dict[str, Any]) -> dict[str, Any]:
    """``base`` with the fields ``change`` gives; a changed figure keeps no base source."""
    out = copy.deepcopy(dict(base))
    sources = dict(out.get("sources") or {})
    for k, v in change.items():
        if k == "sources":
            continue
        out[k] = copy.deepcopy(v)
        sources.pop(k, None)
    sources.update(change.get("sources") or {})
    out["sources"] = sources
    return out


@lru_cache(maxsize=None)
def raw_entries(kind: str) -> dict[str, tuple[dict[str, Any], str]]:
    """Every entry of ``kind`` as written (user entries merged onto their base), with the
    file it comes from: id -> (raw mapping, file)."""
    filename, _ = KINDS[kind]
    out = {str(i): (r, _path(filename)) for i, r in _read(filename).items()
           if not str(i).startswith("_")}
    shipped = set(out)
    for d in user_dirs():
        if not d.is_dir():
            raise CephsimError.single(f"{d}: not a directory", path=f"{ENV} / --catalog")
        p = d / filename
        if not p.is_file():
            continue
        for i, raw in _read_user(p).items():
            i = str(i)
            if i.startswith("_"):
                continue
            if not isinstance(raw, dict):
                raise CephsimError.single("an entry is a mapping of its "
                        "fields", file=str(p), path=i)
            raw = dict(raw)
            shadow = raw.pop("shadow", False)
            if i in shipped and shadow is not True:
                raise CephsimError.single(
                    f"{i!r} is a shipped {_one(kind)}: give another id, or 'shadow: true' to "
                    "replace it", file=str(p), path=i)
            base = raw.pop("base", None)
            if base is not None:
                if str(base) not in out:
                    raise CephsimError.single(f"base: no {_one(kind)} {base!r} to start from",
                                              file=str(p), path=f"{i}.base")
                if "sources" in raw and not isinstance(raw["sources"], dict):
                    raise CephsimError.single("sources must map figure names to their source",
                                              file=str(p), path=f"{i}.sources")
                raw = merge_entry(out[str(base)][0], raw)
            out[i] = (raw, str(p))
    return out


def raw_entry(kind: str, id: str) -> dict[str, Any] | None:  # noqa: A002 - the user's word
    """One entry as written (None if there is none)."""
    got = raw_entries(_kind(kind)).get(id)
    return None if got is None else got[0]


def _load_kind(kind: str) -> dict[str, Any]:
    _, model = KINDS[kind]
    out: dict[str, Any] = {}
    problems: list[Problem] = []
    for id_, (raw, origin) in raw_entries(kind).items():
        if id_ != id_.lower() or " " in id_:
            problems.append(Problem("ids must be lowercase without spaces", file=origin, path=id_))
            continue
        try:
            out[id_] = model.model_validate(raw)
        except ValidationError as e:
            for err in e.errors():
                loc = ".".join(str(x) for x in err["loc"])
                problems.append(Problem(err["msg"], file=origin, path=f"{id_}.{loc}" if loc else id_))
    if problems:
        raise CephsimError(problems)
    return out


@lru_cache(maxsize=1)
def load_catalog() -> Catalog:
    """Read and validate every catalog file, the user's included (once per process)."""
    return Catalog(**{kind: _load_kind(kind) for kind in KINDS})


def reset() -> None:
    """Forget the loaded catalog (after ``CEPHSIM_CATALOG`` changed)."""
    load_catalog.cache_clear()
    raw_entries.cache_clear()


# ---------------------------------------------------------------------------
# listing
# ---------------------------------------------------------------------------

def _dist(spec: Any) -> str:
    return format_duration(spec.mean_ns)


def _rate(bps: float) -> str:
    return f"{bps / 1e9:g}Gbit/s" if bps >= 1e9 else f"{bps / 1e6:g}Mbit/s"


def _figures(kind: str, e: Any) -> str:
    if kind == "cpus":
        return (
            f"{e.vendor} {e.microarch}, {e.cores}c, {e.base_clock_hz / 1e9:g}/{e.boost_clock_hz / 1e9:g} GHz "
            f"(min {e.min_clock_hz / 1e9:g}), x{e.per_clock_speed:g}/clk, cstates={e.cstates}"
        )
    if kind == "cstates":
        return ", ".join(f"{s.name} {format_duration(s.exit_latency_ns)}/{format_duration(s.wake_penalty_ns)}"
                         for s in e.states) + "  (declared exit / wake penalty)"
    if kind == "disks":
        return (
            f"{e.interface}{' PLP' if e.plp else ''}, write {_dist(e.write_4k)} + flush {_dist(e.flush)}, "
            f"read {_dist(e.read_4k)}, x{e.parallelism}"
        )
    if kind == "nics":
        return f"{_rate(e.speed_bps)} x{e.ports}, tx {_dist(e.tx_latency)}, rx {_dist(e.rx_latency)}"
    if kind == "switches":
        extra = f", cpu {e.cpu}, {e.forwarding_cycles:g} cycles/pkt" if e.forwarding == "software" else ""
        return f"{e.kind} {e.forwarding} {_rate(e.speed_bps)}, {_dist(e.latency)}{extra}"
    return ""


def _value_text(v: Any) -> str:
    """A figure as written in the data file (units kept), on one line."""
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {_value_text(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(_value_text(x) for x in v) + "]"
    return str(v)


def entry_figures(kind: str, id: str) -> list[dict[str, Any]]:  # noqa: A002 - the user's word
    """Every figure of one entry as written in its data file, with its provenance:
    ``[{field, value, basis, source, note}]``; ``value`` None is the model's default."""
    k = _kind(kind)
    e = load_catalog().get(k, id)
    raw = raw_entry(k, id) or {}
    if k == "cstates":
        pairs = [(f"{st['name']}.{f}", st.get(f)) for st in raw.get("states", [])
                 for f in CStateTable.figure_fields()]
    else:
        pairs = [(f, raw.get(f)) for f in e.figure_fields()]
    out = []
    for f, v in pairs:
        prov = e.sources.get(f)
        if v is None and k != "cstates":  # not written: the model's default applies
            name, info = next(((n, i) for n, i in type(e).model_fields.items()
                               if (i.alias or n) == f), (f, None))
            if info is not None and info.default not in (None, PydanticUndefined):
                v = f"{info.default} (default)"
            elif isinstance(getattr(e, name, None), (int, float)):
                # a required figure the file leaves out, computed on loading (per_clock_speed
                # from single_thread): its value, not the absent default's repr
                v = f"{getattr(e, name):g} (derived)"
        out.append({"field": f, "value": None if v is None else _value_text(v),
                    "basis": prov.basis if prov else None, "source": prov.source if prov else None,
                    "note": prov.note if prov else None})
    return out


def catalog_rows(kind: str | None = None) -> list[dict[str, Any]]:
    """One row per entry (kind, id, name, figures, bases, sources) for listings.

    ``figures`` is a short human string of mean values; ``sources`` the distinct
    sources cited, ``bases`` the distinct bases (measured, estimate, ...).
    """
    cat = load_catalog()
    kinds = [_kind(kind)] if kind else cat.kinds()
    rows: list[dict[str, Any]] = []
    for k in kinds:
        for id_, e in sorted(cat.of(k).items()):
            provs = list(e.sources.values())
            rows.append({
                "kind": k,
                "id": id_,
                "name": e.name,
                "figures": _figures(k, e),
                "bases": sorted({p.basis for p in provs}),
                "sources": sorted({p.source for p in provs}),
                # which figures each (source, basis) backs, in the file's field order
                "backing": _backing(e.sources),
            })
    return rows


def _backing(sources: dict[str, Any]) -> list[tuple[str, str, list[str]]]:
    """(source, basis, [fields]) groups of an entry's provenance, first citation first."""
    groups: dict[tuple[str, str], list[str]] = {}
    for f, p in sources.items():
        groups.setdefault((p.source, p.basis), []).append(f)
    return [(src, basis, fields) for (src, basis), fields in groups.items()]
