"""The package's layout: its import graph has no cycles, counting imports inside functions too (a
function-local import that closes a cycle only hides it), and the layers stay in order."""

from __future__ import annotations

import ast
from pathlib import Path

import cephsim

PKG = Path(cephsim.__file__).resolve().parent


def _modules() -> dict[str, Path]:
    out = {}
    for p in PKG.rglob("*.py"):
        parts = ["cephsim", *p.relative_to(PKG).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = p
    return out


def _targets(mod: str, path: Path, node: ast.AST, mods: dict[str, Path]) -> list[str]:
    names: list[str] = []
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    elif isinstance(node, ast.ImportFrom) and node.module != "__future__":
        base = node.module or ""
        if node.level:
            pkg = mod.split(".") if path.name == "__init__.py" else mod.split(".")[:-1]
            pkg = pkg[:len(pkg) - node.level + 1]
            base = ".".join([*pkg, base] if base else pkg)
        names = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names]
    out = []
    for n in names:
        while n and n not in mods:
            n = n.rpartition(".")[0]
        # importing one's own package (its __init__) is how a submodule is reached, not an edge
        if n.startswith("cephsim") and n != mod and not mod.startswith(n + "."):
            out.append(n)
    return out


def import_graph() -> dict[str, set[str]]:
    mods = _modules()
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for m, p in mods.items():
        for node in ast.walk(ast.parse(p.read_text("utf-8"))):
            graph[m].update(_targets(m, p, node, mods))
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    x = stack.pop()
                    on.discard(x)
                    comp.append(x)
                    if x == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def test_the_checker_finds_a_cycle() -> None:
    g = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(g) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles() -> None:
    found = cycles(import_graph())
    assert not found, "import cycles: " + "; ".join(" <-> ".join(c) for c in found)


#: layers from the bottom up: a module may import its own layer and those below, never
#: above.  The vocabulary (distributions, releases and their stages, debug levels, the
#: monitors' spec) is what both the schema and the model speak.
LAYERS = [("cephsim.errors", "cephsim.units", "cephsim.yamlfile"),
          ("cephsim.model.dists", "cephsim.model.software", "cephsim.model.debuglog",
           "cephsim.model.rng", "cephsim.model.loss", "cephsim.monitors.spec"),
          ("cephsim.scenario.schema", "cephsim.scenario.problems", "cephsim.catalog"),
          ("cephsim.scenario", "cephsim.model", "cephsim.monitors", "cephsim.metrics"),
          ("cephsim.formats",),
          ("cephsim.tools",),
          ("cephsim.cli", "cephsim.__main__")]


def _layer(mod: str) -> int | None:
    """The layer of the longest prefix that names ``mod``."""
    best: tuple[int, int] | None = None
    for i, prefixes in enumerate(LAYERS):
        for p in prefixes:
            if (mod == p or mod.startswith(p + ".")) and (best is None or len(p) > best[0]):
                best = (len(p), i)
    return None if best is None else best[1]


def test_layers_import_downwards_only() -> None:
    up = []
    for m, targets in import_graph().items():
        lm = _layer(m)
        for t in targets:
            lt = _layer(t)
            if lm is not None and lt is not None and lt > lm:
                up.append(f"{m} -> {t}")
    assert not up, "imports from a lower layer into a higher one: " + ", ".join(sorted(up))


def test_module_docstrings_are_short() -> None:
    """A module says what it is in a few lines; the narrative lives in docs/model.md."""
    long = []
    for m, p in _modules().items():
        doc = ast.get_docstring(ast.parse(p.read_text("utf-8")), clean=False)
        if doc and doc.count("\n") + 1 > 30:
            long.append(f"{m} ({doc.count(chr(10)) + 1} lines)")
    assert not long, "module docstrings over 30 lines: " + ", ".join(long)
