"""Reading a scenario file: YAML with positions, ``--set`` overrides, validation.

Errors point at the file, line and column of the offending key, with the
dotted field path and, for misspelt keys, a "did you mean" suggestion.  A
value that came from ``--set`` is reported as such instead of a line.
"""

from __future__ import annotations

import copy
import difflib
import io
import re
from pathlib import Path
from typing import Any, Sequence

from pydantic import BaseModel, ValidationError
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.constructor import DuplicateKeyError
from ruamel.yaml.error import MarkedYAMLError

from cephsim.errors import CephsimError, Problem, byte_line_col, not_a_regular_file
from cephsim.scenario.schema import Scenario
from cephsim.units import format_size, format_span, parse_duration_ns, parse_size_bytes


def _yaml() -> YAML:
    y = YAML(typ="rt")
    y.allow_duplicate_keys = False
    return y


#: bounds on a YAML input, checked on its events before anything is built from it: a
#: scenario is a few KiB; its aliases may repeat a host group, not multiply a document
#: ("billion laughs": nine anchors of nine aliases each expand to 10^9 nodes)
MAX_YAML_BYTES = 4 * 1024**2
MAX_YAML_DEPTH = 64
MAX_YAML_NODES = 200_000
#: a plain scalar of more digits than Python's int() reads (it refuses 4,300 and more, with
#: advice about sys.set_int_max_str_digits that means nothing to a user); shorter ones reach
#: the field's own range check, which names the field
MAX_NUMBER_DIGITS = 4000
_LONG_NUMBER = re.compile(r"[-+]?\d{%d,}" % (MAX_NUMBER_DIGITS + 1))


def check_yaml_bounds(text: str, filename: str) -> None:
    """Refuse a YAML text too large, too deep, or whose aliases expand to too many nodes,
    at the line of the node that crosses the bound (a located error, in time linear in the
    text, before the document is built)."""
    from ruamel.yaml.events import (AliasEvent, CollectionEndEvent, CollectionStartEvent,
                                    NodeEvent)

    if len(text) > MAX_YAML_BYTES:
        raise CephsimError.single(f"the file is {len(text.encode()):,} bytes; a scenario or "
                                  f"case file is at most {format_size(MAX_YAML_BYTES)}",
                                  file=filename)
    sizes: dict[str, int] = {}
    stack: list[list[Any]] = []  #: per open collection: [nodes so far, anchor]
    total = 0
    try:
        for ev in YAML(typ="rt").parse(io.StringIO(text)):
            if not isinstance(ev, (NodeEvent, CollectionEndEvent)):
                continue
            line = ev.start_mark.line + 1 if ev.start_mark else None
            if isinstance(ev, CollectionStartEvent):
                stack.append([1, ev.anchor])
                if len(stack) > MAX_YAML_DEPTH:
                    raise CephsimError.single(f"nested more than {MAX_YAML_DEPTH} levels deep",
                                              file=filename, line=line)
                continue
            if isinstance(ev, CollectionEndEvent):
                n, anchor = stack.pop()
                if anchor is not None:
                    sizes[anchor] = n
                size = n
            else:
                value = getattr(ev, "value", None)
                if (isinstance(value, str) and not getattr(ev, "style", None)
                        and _LONG_NUMBER.fullmatch(value)):
                    raise CephsimError.single(
                        f"a number of {len(value.lstrip('+-'))} digits: at most "
                        f"{MAX_NUMBER_DIGITS} are read",
                        file=filename, line=line,
                        column=ev.start_mark.column + 1 if ev.start_mark else None)
                size = sizes.get(ev.anchor, 1) if isinstance(ev, AliasEvent) else 1
                if not isinstance(ev, AliasEvent) and ev.anchor is not None:
                    sizes[ev.anchor] = 1
                total += size
            if stack:
                stack[-1][0] += size
            if total > MAX_YAML_NODES or (stack and stack[-1][0] > MAX_YAML_NODES):
                raise CephsimError.single(
                    f"its aliases expand to more than {MAX_YAML_NODES:,} values (an alias "
                    "repeats its anchor's whole content); refused before building it",
                    file=filename, line=line)
    except CephsimError:
        raise
    except Exception:  # a syntax error: the full parse below reports it, located
        return


def _check_keys(node: Any, filename: str) -> None:
    """Every mapping key is text: ``null: x``, ``1: x`` or ``true: x`` are refused at their
    line (YAML reads them as null, a number, a boolean; a field name is never one)."""
    if isinstance(node, dict):
        for k, v in node.items():
            if not isinstance(k, str):
                line = col = None
                lc = getattr(node, "lc", None)
                if lc is not None:
                    try:
                        line, col = (x + 1 for x in lc.key(k))
                    except (KeyError, TypeError):
                        pass
                shown = ("null" if k is None else str(k).lower() if isinstance(k, bool)
                         else str(k))
                what = ("null" if k is None else "a boolean" if isinstance(k, bool)
                        else "a number" if isinstance(k, (int, float)) else type(k).__name__)
                raise CephsimError.single(f"a key must be text: '{shown}' is read as {what} "
                                          f"(quote it, \"{shown}\", if it is meant as a name)",
                                          file=filename, line=line, column=col)
            _check_keys(v, filename)
    elif isinstance(node, list):
        for v in node:
            _check_keys(v, filename)


def parse_yaml_text(text: str, filename: str) -> Any:
    check_yaml_bounds(text, filename)
    try:
        return _yaml().load(io.StringIO(text))
    except MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line = mark.line + 1 if mark else None
        col = mark.column + 1 if mark else None
        msg = _short_problem(e.problem or e.context or "YAML syntax error")
        raise CephsimError.single(f"YAML syntax error: {msg}", file=filename, line=line,
                                  column=col) from None
    except Exception as e:  # ruamel raises a few unmarked errors (e.g. duplicate keys)
        raise CephsimError.single(f"cannot read YAML: {e}", file=filename) from None


def _short_problem(problem: str) -> str:
    """ruamel's problem text, where a duplicated key's message, which quotes both of its
    values in full, names the key only: 'duplicate key "speed"'."""
    return re.sub(r'^found duplicate key (".*?") with value .*', r"duplicate key \1",
                  problem.strip(), flags=re.S)


def read_text(path: Path, what: str = "file") -> str:
    """A UTF-8 input file's text; a missing, unreadable, binary or oversized file is a
    located error (the size is checked before the file is read)."""
    special = not_a_regular_file(path)
    if special:
        raise CephsimError.single(special, file=str(path))
    try:
        size = path.stat().st_size
    except OSError:
        size = 0  # the read below reports what is wrong
    if size > MAX_YAML_BYTES:
        raise CephsimError.single(f"the {what} is {size:,} bytes; at most "
                                  f"{format_size(MAX_YAML_BYTES)} is read", file=str(path))
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise CephsimError.single(f"no such {what}", file=str(path)) from None
    except IsADirectoryError:
        raise CephsimError.single(f"is a directory, expected a {what}", file=str(path)) from None
    except OSError as e:
        raise CephsimError.single(f"cannot read: {e.strerror or e}", file=str(path)) from None
    bad = data.find(b"\x00")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        bad, why = e.start, f"not UTF-8 text (byte 0x{data[e.start]:02x})"
    else:
        why = "a NUL byte: not a text file"
        if bad < 0:
            return text
    line, col = byte_line_col(data, bad)
    raise CephsimError.single(why, file=str(path), line=line, column=col)


def located(msg: str, file: str, data: Any, *loc: Any) -> Problem:
    """A problem at the key ``loc`` of a YAML document ``data`` read from ``file`` (its line
    and column when the key is there; the file alone for ``loc`` empty)."""
    line, col = _position(data, loc) if loc else (None, None)
    return Problem(msg, file=file, line=line, column=col, path=".".join(map(str, loc)) or None)


def did_you_mean(key: Any, known: Sequence[str]) -> str | None:
    """The known key ``key`` was probably meant as: the same letters in another case
    (``CPU`` for ``cpu``), else the closest spelling; ``hosts[0]`` gets ``hosts.0``."""
    k = str(key)
    m = re.fullmatch(r"(\w+)\[(\d+)\]", k)
    if m and m.group(1) in known:
        return f"{m.group(1)}.{m.group(2)}"
    same = [n for n in known if n.lower() == k.lower()]
    if same:
        return same[0]
    hint = difflib.get_close_matches(k, known, n=1) or difflib.get_close_matches(
        k.lower(), known, n=1)
    return hint[0] if hint else None


def unknown_keys(node: dict[Any, Any], known: Sequence[str], what: str, file: str, data: Any,
                 *loc: Any) -> list[Problem]:
    """One located problem per key of ``node`` (at ``loc`` in ``data``) not in ``known``,
    with a 'did you mean' for a near miss, else the list of keys ``what`` takes.  For the
    hand-read YAML files (case, sweep and figures files); scenarios go through pydantic."""
    out = []
    for k in node:
        if k not in known:
            hint = did_you_mean(k, known)
            out.append(located(f"unknown key in {what}" + (f"; did you mean {hint!r}?" if hint
                                                           else f"; known: {', '.join(known)}"),
                               file, data, *loc, k))
    return out


def read_scenario_data(path: Path, text_keys: bool = True) -> Any:
    """A YAML mapping from ``path``; ``text_keys``: every key must be text (a field name),
    as in a scenario (a flush-sweep file keys its figures by job count)."""
    data = parse_yaml_text(read_text(path), str(path))
    if text_keys:
        _check_keys(data, str(path))
    if data is None:
        raise CephsimError.single("the file is empty", file=str(path))
    if not isinstance(data, dict):
        raise CephsimError.single("a scenario must be a YAML mapping (key: value)", file=str(path), line=1)
    return data


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
    from cephsim.catalog.load import raw_entry

    raw = raw_entry(kind, entry_id)
    if not isinstance(raw, dict) or entry_id.startswith("_"):
        raise CephsimError.single(f"{where}: no {kind[:-1]} {entry_id!r} in the catalog to change "
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


def _position(data: Any, loc: tuple[Any, ...]) -> tuple[int | None, int | None]:
    """Line/column (1-based) of the deepest key of ``loc`` present in the ruamel tree."""
    node, line, col = data, None, None
    for key in loc:
        if isinstance(node, CommentedMap) and key in node:
            where = node.lc.key
        elif isinstance(node, CommentedSeq) and isinstance(key, int) and key < len(node):
            where = node.lc.item
        else:
            break
        try:
            ln, cl = where(key)
            line, col = ln + 1, cl + 1
        except (KeyError, TypeError, AttributeError):
            pass
        node = node[key]
    return line, col


def clean_loc(loc: tuple[Any, ...], data: Any = None) -> tuple[Any, ...]:
    """``loc`` of a pydantic error without the union-member tags pydantic inserts ("str",
    "CPUModel", "function-before[...]", "constant").  With ``data`` (the document the loc
    starts at), a part that is a key actually present there is kept even if it looks like
    a tag: a misspelt ``Size:`` or ``CPU:`` must be named, not dropped."""
    out = []
    node = data
    for part in loc:
        if isinstance(node, dict) and part in node:
            out.append(part)
            node = node[part]
            continue
        if isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            out.append(part)
            node = node[part]
            continue
        if isinstance(part, str) and (part[:1].isupper() or "[" in part or part in
                                      ("str", "int", "constant", "lognormal", "normal", "uniform",
                                       "exponential", "mixture")):
            continue
        out.append(part)
        node = None
    return tuple(out)


def _allowed_keys(model: type[BaseModel], loc: tuple[Any, ...]) -> list[str]:
    """Field names (and aliases) valid at the parent of ``loc`` — for 'did you mean'."""
    cur: Any = model
    for part in loc[:-1]:
        if isinstance(part, int):
            continue
        fields = getattr(cur, "model_fields", None)
        if not fields or part not in fields:
            return []
        ann = fields[part].annotation
        cur = _model_in(ann)
        if cur is None:
            return []
    fields = getattr(cur, "model_fields", {})
    return [f.alias or n for n, f in fields.items()]


def _model_in(ann: Any) -> type[BaseModel] | None:
    if isinstance(ann, type) and issubclass(ann, BaseModel):
        return ann
    for arg in getattr(ann, "__args__", ()) or ():
        m = _model_in(arg)
        if m is not None:
            return m
    return None


def _field_at(model: type[BaseModel], loc: tuple[Any, ...]) -> Any:
    """The pydantic FieldInfo of the field at ``loc`` (None when the walk gets lost)."""
    cur: Any = model
    info = None
    for i, part in enumerate(loc):
        if isinstance(part, int):
            continue
        fields = getattr(cur, "model_fields", None)
        if not fields or part not in fields:
            return None
        info = fields[part]
        if i < len(loc) - 1:
            cur = _model_in(info.annotation)
            if cur is None:
                return None
    return info


def _unit_of(model: type[BaseModel], loc: tuple[Any, ...]) -> Any:
    """units.format_span for a Duration field, units.format_size for a Size field, else None."""
    info = _field_at(model, loc)
    if info is None:
        return None
    meta = list(info.metadata)
    stack = [info.annotation]
    while stack:
        a = stack.pop()
        meta += list(getattr(a, "__metadata__", ()))
        stack += list(getattr(a, "__args__", ()) or ())
    funcs = {getattr(m, "func", None) for m in meta}
    if parse_duration_ns in funcs:
        return format_span
    if parse_size_bytes in funcs:
        return format_size
    return None


#: pydantic's bound errors, reworded with the bound in the field's unit
_BOUNDS = {"greater_than_equal": ("ge", "at least"), "greater_than": ("gt", "more than"),
           "less_than_equal": ("le", "at most"), "less_than": ("lt", "less than")}


def _bound_message(e: Any, model: type[BaseModel], loc: tuple[Any, ...]) -> str | None:
    """'must be at most 1s (got 10s)' for a Duration or Size out of its bounds."""
    if e["type"] not in _BOUNDS or not isinstance(e.get("input"), int):
        return None
    key, words = _BOUNDS[e["type"]]
    bound = (e.get("ctx") or {}).get(key)
    fmt = _unit_of(model, loc)
    if fmt is None or not isinstance(bound, int):
        return None
    return f"must be {words} {fmt(bound)} (got {fmt(e['input'])})"


def validation_problems(err: ValidationError, data: Any, filename: str | None,
                        overridden: dict[tuple[str, ...], str] | None = None,
                        prefix: tuple[str, ...] = ()) -> list[Problem]:
    """Located problems of a validation error of ``data`` (the whole scenario file), or of
    the part of it at ``prefix`` when a sub-model was validated on its own."""
    problems: list[Problem] = []
    seen: set[tuple[str, str]] = set()
    errors = err.errors(include_url=False)
    # a field that takes a catalog name or an inline entry (``nic: intel-i350-1g`` or
    # ``nic: {...}``): when the inline entry is wrong, the "not a string" of the other
    # branch is noise
    others = [tuple(e["loc"]) for e in errors if e["type"] != "string_type"]
    errors = [e for e in errors if not (
        e["type"] == "string_type" and isinstance(e["input"], dict)
        and any(o[:len(e["loc"]) - 1] == tuple(e["loc"][:-1]) for o in others))]
    at = data
    for part in prefix:
        at = at.get(part) if isinstance(at, dict) else None
    for e in errors:
        loc = prefix + clean_loc(tuple(e["loc"]), at)
        msg = e["msg"].removeprefix("Value error, ")
        # cross-field checks name the field they are about: "pool.size: ..."
        head, sep, rest = msg.partition(": ")
        if sep and re.fullmatch(r"[a-z_]+(\.[a-z_0-9]+)*", head):
            loc = loc + tuple(int(p) if p.isdigit() else p for p in head.split("."))
            msg = rest
        path = ".".join(str(p) for p in loc) or "(top level)"
        if e["type"] == "extra_forbidden" and loc:
            hint = did_you_mean(loc[-1], _allowed_keys(Scenario, loc))
            msg = "unknown key" + (f"; did you mean {hint!r}?" if hint else "")
        if not prefix:
            msg = _bound_message(e, Scenario, loc) or msg
        if e["type"] == "union_tag_invalid" or "discriminator" in msg:
            msg = msg.replace("Input tag", "distribution")
        if e["type"] in ("model_type", "model_attributes_type", "dict_type"):
            # pydantic names its class ("a valid dictionary or instance of HostGroup")
            msg = (f"expected a section of fields (key: value), got "
                   f"{_shown(e.get('input'))}")
        key = (path, msg)
        if key in seen:
            continue
        seen.add(key)
        origin = _override_origin(loc, overridden or {}, data if not prefix else None)
        if origin:
            problems.append(Problem(msg, file=origin, path=path))
        else:
            line, col = _position(data, loc)
            if loc and not _present(data, loc) and e["type"] != "missing":
                # a default the file leaves out: say so, or the message seems to point at
                # nothing (at the nearest key the file has, if any)
                msg += f" ({path} is not in the file: its default applies)"
            problems.append(Problem(msg, file=filename, line=line, column=col, path=path))
    return problems


def _shown(v: Any) -> str:
    """A value as the user wrote it, shortened."""
    if isinstance(v, (list, tuple)):
        return "a list"
    text = "null" if v is None else str(v).lower() if isinstance(v, bool) else repr(v)
    return text if len(text) <= 40 else text[:37] + "..."


def _present(data: Any, loc: tuple[Any, ...]) -> bool:
    """Whether every key of ``loc`` is in the document ``data``."""
    node = data
    for key in loc:
        if isinstance(node, dict) and key in node:
            node = node[key]
        elif isinstance(node, list) and isinstance(key, int) and 0 <= key < len(node):
            node = node[key]
        else:
            return False
    return True


def _override_origin(loc: tuple[Any, ...], overridden: dict[tuple[str, ...], str],
                     data: Any = None) -> str | None:
    names = tuple(str(p) for p in loc)
    # an error on a whole block (``run``) may come from any override inside it: name them all
    found = [origin for keys, origin in overridden.items()
             if names[: len(keys)] == keys or keys[: len(names)] == names]
    if not found and data is not None and len(names) > 1 and not _present(data, loc):
        # a field neither the file nor a --set wrote (its default, e.g. no topology.spine),
        # refused because of a --set next to it (topology.kind=leaf-spine): name that --set
        parent = names[:-1]
        found = [origin for keys, origin in overridden.items() if keys[: len(parent)] == parent]
    return ", ".join(found) if found else None


def load_scenario(path: str | Path, overrides: Sequence[str] | None = None) -> Scenario:
    """Read, override and validate a scenario file; raises :class:`CephsimError`."""
    p = Path(path)
    data = read_scenario_data(p)
    overridden: dict[tuple[str, ...], str] = {}
    for text in overrides or []:
        keys, value = parse_override(text)
        overridden[apply_override(data, keys, value, f"--set {text}")] = f"--set {text}"
    try:
        scenario = Scenario.model_validate(data)
    except ValidationError as err:
        raise CephsimError(validation_problems(err, data, str(p), overridden)) from None
    return scenario


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
            loc = tuple(int(x) if x.isdigit() else x for x in p.path.split("."))
            origin = _override_origin(loc, overridden, data)
            if origin:
                p.file = origin
            else:
                p.file = str(path)
                p.line, p.column = _position(data, loc)
    return err


def load_resolved(path: str | Path, overrides: Sequence[str] | None = None):  # noqa: ANN201
    """Load, override, validate and resolve a scenario; every error located in the file.

    Returns ``(scenario, resolved)``.
    """
    from cephsim.resolve import resolve

    sc = load_scenario(path, overrides)
    try:
        return sc, resolve(sc, path)
    except CephsimError as e:
        raise locate(e, path, overrides) from None

