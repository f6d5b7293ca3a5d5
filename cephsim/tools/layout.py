"""The package's layers, bottom up: what may import what.

A module may import its own layer and those below it, never above, function-local imports
included (``tests/test_imports.py`` holds the package to this table, and the layout picture
in docs/model.md is drawn from it by ``tools/make_docs.py``).
"""

from __future__ import annotations

import textwrap

#: (parts, what they hold), from the bottom up; a part is a folder (``name/``) or a module
#: at the package's top (``name.py``)
LAYERS: list[tuple[tuple[str, ...], str]] = [
    (("errors.py", "units.py", "yamlfile.py", "_stale.py", "data/"),
     "located errors, units, bounded YAML reading; the stale-build guard; the bench's "
     "scenario"),
    (("spec/",), "the words schema and model share: distributions, software costs as "
     "written, debug levels, TCP loss rules, the monitors' inputs"),
    (("catalog/",), "hardware entries, a source per figure; the software cost table"),
    (("scenario/",), "the schema (the documentation), --set overrides, located errors"),
    (("metrics/", "monitors/"), "per-op records and traces (attached from outside); the "
     "monitor quorum model, run beside the write path"),
    (("model/",), "resolve (scenario + catalog -> frozen model), components, the write "
     "path, the workload, the runner"),
    (("formats/",), "readers of measurements; reports: fio text/JSON, breakdown, teaching page"),
    (("api.py", "__init__.py"), "the public face: cephsim.load, run, render"),
    (("tools/",), "sweep, compare, explain, plots, calibrate, init, bench"),
    (("cli/", "__main__.py"), "the typer commands"),
]


def part_of(module: str) -> str:
    """The part of the table a dotted module name belongs to (``cephsim.model.runner`` ->
    ``model/``; ``cephsim`` -> ``__init__.py``)."""
    names = module.split(".")[1:]
    if not names:
        return "__init__.py"
    return f"{names[0]}/" if len(names) > 1 or _is_folder(names[0]) else f"{names[0]}.py"


def _is_folder(name: str) -> bool:
    return any(f"{name}/" in parts for parts, _ in LAYERS)


def layer_of(module: str) -> int:
    """The layer (0 = bottom) of a dotted module name; KeyError for one the table lacks."""
    part = part_of(module)
    for i, (parts, _) in enumerate(LAYERS):
        if part in parts:
            return i
    raise KeyError(f"{module} ({part}) is in no layer of cephsim.tools.layout.LAYERS")


def picture(columns: int = 96, width: int = 20) -> str:
    """The layers as docs/model.md draws them, top first, each above what it may import."""
    lines = ["cephsim/  (each layer imports only from itself and the layers below it)"]
    for parts, what in reversed(LAYERS):
        label = ", ".join(parts)
        text = textwrap.wrap(what, columns - width - 4)
        if len(label) > width:  # a long list of parts gets a line of its own
            lines.append(f"  {label}")
            label = ""
        lines += [f"  {label if k == 0 else '':<{width}}  {t}" for k, t in enumerate(text)]
    return "```\n" + "\n".join(lines) + "\n```"
