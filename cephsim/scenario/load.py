"""Reading a scenario file: YAML with positions, ``--set`` overrides, validation.

Errors point at the file, line and column of the offending key, with the
dotted field path and, for misspelt keys, a "did you mean" suggestion.  A
value that came from ``--set`` is reported as such instead of a line.
"""

from __future__ import annotations

import copy
import difflib
import io
from pathlib import Path
from typing import Any, Mapping, Sequence

from pydantic import ValidationError
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.constructor import DuplicateKeyError

from cephsim.catalog.load import merge_entry, raw_entry
from cephsim.errors import CephsimError
from cephsim.scenario.problems import _override_origin, validation_problems
from cephsim.scenario.schema import Origin, Scenario
from cephsim.yamlfile import _position, _short_problem, read_scenario_data

# ---------------------------------------------------------------- overrides


def parse_override(text: str) -> tuple[list[str], Any]:
    """``workload.iodepth=32`` -> (['workload', 'iodepth'], 32); the value is read as YAML."""
    if "=" not in text:
        raise CephsimError.single(f"--set {text!r}: expected dotted.path=value")
    path, _, raw = text.partition("=")
    if not path.strip():
        raise CephsimError.single(f"--set {text!r}: empty field path")
    keys = path.strip().split(".")
    if not all(keys):
        raise CephsimError.single(f"--set {text!r}: empty name in the field path {path.strip()!r}")
    try:
        value = YAML(typ="safe").load(io.StringIO(raw)) if raw.strip() else ""
    except DuplicateKeyError as e:
        raise CephsimError.single(f"--set {text!r}: {_short_problem(e.problem or '')} "
                                  "in the value") from None
    except Exception:  # not YAML (e.g. 'a: b: c'): taken as the text it is
        value = raw
    return keys, value


def apply_override(data: Any, keys: list[str], value: Any, origin: str) -> tuple[str, ...]:
    """Set ``value`` at ``keys`` in the scenario data; lists are indexed by number or by ``name``.

    Returns the path with list items as indices (as validation errors name them).
    """
    node = data
    resolved: list[str] = []
    expanded: tuple[Any, str] | None = None  #: a catalog entry made inline, and its field
    for i, key in enumerate(keys):
        last = i == len(keys) - 1
        where = ".".join(keys[: i + 1])
        if (not last and isinstance(node, dict) and key in CATALOG_REFS
                and isinstance(node.get(key, CATALOG_DEFAULTS.get(key)), str)):
            # a field of a catalog entry (--set hosts.osd.osds.disk.write_4k=15us): the
            # entry becomes an inline copy of itself, with that figure changed
            node[key] = catalog_copy(CATALOG_REFS[key], node.get(key, CATALOG_DEFAULTS.get(key)),
                                     origin, where)
            expanded = (node[key], keys[i + 1])
        if isinstance(node, list):
            idx = _list_index(node, key, origin, where)
            resolved.append(str(idx))
            if last:
                node[idx] = value
            else:
                node[idx] = _own_copy(node[idx])
                node = node[idx]
            continue
        if not isinstance(node, dict):
            parent = ".".join(keys[:i]) or "(top level)"
            kind = ("a number" if isinstance(node, (int, float)) and not isinstance(node, bool)
                    else "text" if isinstance(node, str) else "a yes/no value"
                    if isinstance(node, bool) else "empty" if node is None else type(node).__name__)
            raise CephsimError.single(f"{where}: {parent} is {kind} ({node!r}), not a section "
                                      f"with fields: it has no field {key!r}", file=origin)
        resolved.append(key)
        if last:
            node[key] = value
            if expanded is not None and isinstance(expanded[0].get("sources"), dict):
                expanded[0]["sources"][expanded[1]] = {
                    "source": f"{origin} (given by the user)", "basis": "estimate",
                    "note": "set on the command line, replacing the catalog's figure"}
        else:
            if key not in node or node[key] is None:
                node[key] = CommentedMap()
            node[key] = _own_copy(node[key])
            node = node[key]
    return tuple(resolved)


#: scenario fields that name a catalog entry, and the catalog kind they name
CATALOG_REFS = {"cpu": "cpus", "nic": "nics", "disk": "disks", "db_disk": "disks",
                "switch": "switches", "spine": "switches"}
#: such a field's default where the scenario may leave it out
CATALOG_DEFAULTS = {"switch": "generic-cut-through-25g"}


def catalog_copy(kind: str, entry_id: str, origin: str, where: str) -> CommentedMap:
    """The catalog entry ``entry_id`` as an inline mapping (figures, sources and all), named
    as changed, so that a --set can change one of its figures."""
    raw = raw_entry(kind, entry_id)
    if not isinstance(raw, dict):
        raise CephsimError.single(f"{where}: no {_ONE[kind]} {entry_id!r} in the catalog to change "
                                  f"(see `cephsim catalog {kind}`)", file=origin)
    out = CommentedMap(copy.deepcopy(raw))
    out["name"] = f"{raw.get('name', entry_id)} (catalog {entry_id}, changed by --set)"
    out["sources"] = dict(out.get("sources") or {})
    return out


def _own_copy(node: Any) -> Any:
    """A shallow copy of a mapping or list on the way to an overridden field.

    A YAML alias (``nic: *nic``) is the anchored node itself, not a copy, so without
    this ``--set hosts.client.nic.speed=25Gbit/s`` would change every host that shares
    the anchor.  The copy keeps the node's line and column, so errors still point at
    the lines that define it.
    """
    if isinstance(node, CommentedSeq):  # (list.copy would drop the line numbers)
        seq = CommentedSeq(node)
        node.copy_attributes(seq)
        return seq
    if isinstance(node, (dict, list)):  # CommentedMap.copy keeps them
        return node.copy()
    return node


def _list_index(node: list[Any], key: str, origin: str, where: str) -> int:
    if key.isdigit():
        idx = int(key)
        if idx >= len(node):
            raise CephsimError.single(f"{where}: index {idx} out of range (list has {len(node)} items)",
                                      file=origin)
        return idx
    for j, item in enumerate(node):
        if isinstance(item, dict) and item.get("name") == key:
            return j
    names = [str(it.get("name")) for it in node if isinstance(it, dict)]
    hint = difflib.get_close_matches(key, names, n=1)
    raise CephsimError.single(
        f"{where}: no item named {key!r}" + (f"; did you mean {hint[0]!r}?" if hint else
                                            f" (items: {', '.join(names)})"), file=origin)


# ---------------------------------------------------------------- validation




def load_scenario(path: str | Path, overrides: Sequence[str] | None = None) -> Scenario:
    """Read, override and validate a scenario file; raises :class:`CephsimError`."""
    p = Path(path)
    return _validate(read_scenario_data(p), str(p), overrides or (), str(p))


def load_data(data: Mapping[str, Any], overrides: Sequence[str] | None = None,
              name: str = "<scenario data>") -> Scenario:
    """Override and validate a scenario given as data (the mapping a scenario file holds;
    left unchanged); errors name ``name`` where a file would be."""
    if not isinstance(data, Mapping):
        raise CephsimError.single("a scenario must be a mapping (key: value), got "
                                  f"{type(data).__name__}", file=name)
    return _validate(copy.deepcopy(dict(data)), name, overrides or (), None)


def _validate(data: Any, origin: str, overrides: Sequence[str], path: str | None) -> Scenario:
    """``origin``: where errors say the data came from; ``path``: the file, if any."""
    overridden: dict[tuple[str, ...], str] = {}
    for text in overrides:
        keys, value = parse_override(text)
        overridden[apply_override(data, keys, value, f"--set {text}")] = f"--set {text}"
    _expand_bases(data, origin, overridden)
    try:
        scenario = Scenario.model_validate(data)
    except ValidationError as err:
        raise CephsimError(validation_problems(err, data, origin, overridden)) from None
    scenario._origin = Origin(path, tuple(overrides))
    return scenario


def _catalog_nodes(data: Any) -> list[tuple[str, str, Any]]:
    """Every place a scenario names a catalog entry: (dotted path, field, its parent)."""
    out: list[tuple[str, str, Any]] = []
    hosts = data.get("hosts") if isinstance(data, dict) else None
    for i, g in enumerate(hosts if isinstance(hosts, list) else []):
        if not isinstance(g, dict):
            continue
        out += [(f"hosts.{i}", k, g) for k in ("cpu", "nic")]
        if isinstance(g.get("osds"), dict):
            out += [(f"hosts.{i}.osds", k, g["osds"]) for k in ("disk", "db_disk")]
    net = data.get("network") if isinstance(data, dict) else None
    topo = net.get("topology") if isinstance(net, dict) else None
    if isinstance(topo, dict):
        out += [("network.topology", k, topo) for k in ("switch", "spine")]
    return out


def _expand_bases(data: Any, origin: str,
                  overridden: dict[tuple[str, ...], str] | None = None) -> None:
    """An inline entry with ``base: <catalog id>`` is that entry with the fields it gives
    changed (as in a catalog of one's own): the base's other fields are filled in, in place,
    so the user's own keys keep their lines for error messages; a changed figure keeps no
    base source (the user's, given or not)."""
    def refuse(where: str, msg: str) -> CephsimError:
        file, line, col = _place(where, data, origin, overridden or {})
        return CephsimError.single(f"{where}: {msg}", file=file, line=line, column=col)

    for path, key, parent in _catalog_nodes(data):
        node = parent.get(key)
        if not isinstance(node, dict) or "base" not in node:
            continue
        base, kind = node["base"], CATALOG_REFS[key]
        if not isinstance(base, str):
            raise refuse(f"{path}.{key}.base", "base must be a catalog id (text), e.g. "
                         f"`base: {_EXAMPLE[kind]}`")
        raw = raw_entry(kind, base)
        if raw is None:  # (the catalog keeps no '_' ids: those are YAML anchors)
            raise refuse(f"{path}.{key}.base", f"no {_ONE[kind]} {base!r} in the catalog to "
                         f"start from (see `cephsim catalog {kind}`)")
        if "sources" in node and not isinstance(node["sources"], dict):
            raise refuse(f"{path}.{key}.sources", "sources must map figure names to their "
                         "source, e.g. `sources: {write_4k: {source: my fio run, basis: "
                         "measured}}`")
        given = {k: v for k, v in node.items() if k != "base"}
        merged = merge_entry(raw, given)
        del node["base"]
        for k, v in merged.items():
            if k not in node or k == "sources":
                node[k] = v
        if "name" not in given:
            node["name"] = f"{raw.get('name', base)} (catalog {base}, changed)"


#: a catalog kind's entries, named one at a time, and an id of each for examples
_ONE = {"cpus": "CPU", "disks": "disk", "nics": "NIC", "switches": "switch"}
_EXAMPLE = {"cpus": "epyc-7313p", "disks": "pm9a3", "nics": "connectx5-25g",
            "switches": "generic-cut-through-25g"}


def locate(err: CephsimError, path: str | Path, overrides: Sequence[str] | None = None) -> CephsimError:
    """Give problems found after validation (e.g. unknown catalog names) their file and line."""
    try:
        data = read_scenario_data(Path(path))
    except CephsimError:
        return err
    overridden = {}
    for text in overrides or []:
        try:
            keys, value = parse_override(text)
            overridden[apply_override(data, keys, value, text)] = f"--set {text}"
        except CephsimError:
            continue
    for p in err.problems:
        if p.file is None and p.path:
            p.file, p.line, p.column = _place(p.path, data, str(path), overridden)
    return err


def _place(where: str, data: Any, origin: str,
           overridden: dict[tuple[str, ...], str]) -> tuple[str, int | None, int | None]:
    """Where the value at dotted path ``where`` came from: the --set that brought it (no
    line), or the file ``origin`` with its line and column."""
    loc = tuple(int(x) if x.isdigit() else x for x in where.split("."))
    by = _override_origin(loc, overridden, data)
    if by:
        return by, None, None
    line, col = _position(data, loc)
    return origin, line, col
