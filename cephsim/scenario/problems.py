"""A scenario's validation errors as problems at its file, line and column, with the
field's path, its unit and a "did you mean" for a misspelt key."""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ValidationError

from cephsim.errors import Problem
from cephsim.scenario.schema import Scenario
from cephsim.units import format_size, format_span, parse_duration_ns, parse_size_bytes
from cephsim.yamlfile import _position, clean_loc, did_you_mean


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
