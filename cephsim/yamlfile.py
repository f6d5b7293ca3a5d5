"""YAML files read with bounds, and problems located at their file, line and column.

Every file cephsim reads as YAML (scenarios, catalog entries, cases, profiles, sweeps)
goes through :func:`parse_yaml_text`; errors name the key's line and column.
"""

from __future__ import annotations

import difflib
import io
import re
from pathlib import Path
from typing import Any, Sequence

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import MarkedYAMLError

from cephsim.errors import CephsimError, Problem, byte_line_col, not_a_regular_file
from cephsim.units import format_size


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
    from ruamel.yaml.events import AliasEvent, CollectionEndEvent, CollectionStartEvent, NodeEvent

    if len(text) > MAX_YAML_BYTES:
        raise CephsimError.single(f"the file is {len(text.encode()):,} bytes; a scenario or "
                                  f"case file is at most {format_size(MAX_YAML_BYTES)}",
                                  file=filename)
    sizes: dict[str, int] = {}
    stack: list[list[Any]] = []  #: per open collection: [nodes so far, anchor]
    total = 0
    aliased = False  #: whether an alias has repeated an anchor's content so far
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
                aliased = aliased or isinstance(ev, AliasEvent)
                if not isinstance(ev, AliasEvent) and ev.anchor is not None:
                    sizes[ev.anchor] = 1
                total += size
            if stack:
                stack[-1][0] += size
            if total > MAX_YAML_NODES or (stack and stack[-1][0] > MAX_YAML_NODES):
                # name the cause the file has: aliases multiplying it, or plain size
                raise CephsimError.single(
                    f"its aliases expand to more than {MAX_YAML_NODES:,} values (an alias "
                    "repeats its anchor's whole content); refused before building it"
                    if aliased else f"it holds more than {MAX_YAML_NODES:,} values (a "
                    "scenario holds a few hundred); refused before building it",
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
        raise CephsimError.single("a scenario must be a YAML mapping "
                                  "(key: value)", file=str(path), line=1)
    return data


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
