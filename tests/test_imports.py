"""The package's layout: its import graph has no cycles, counting imports inside functions too (a
function-local import that closes a cycle only hides it), and the layers of
``cephsim.tools.layout`` stay in order."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import cephsim
from cephsim.tools.layout import layer_of, part_of, picture

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


def test_every_module_has_a_layer() -> None:
    lost = []
    for m in _modules():
        try:
            layer_of(m)
        except KeyError:
            lost.append(m)
    assert not lost, "modules in no layer of cephsim.tools.layout.LAYERS: " + ", ".join(lost)


def test_layers_import_downwards_only() -> None:
    """Function-local and type-checking imports count too: each is an edge all the same."""
    up = [f"{m} -> {t}" for m, targets in import_graph().items() for t in targets
          if layer_of(t) > layer_of(m)]
    assert not up, "imports from a lower layer into a higher one: " + ", ".join(sorted(up))


def test_the_checker_sees_an_upward_import() -> None:
    assert layer_of("cephsim.scenario.load") < layer_of("cephsim.model.resolve")
    assert layer_of("cephsim.units") == 0 and layer_of("cephsim.spec.dists") == 1
    assert layer_of("cephsim") == layer_of("cephsim.api")
    assert part_of("cephsim.model.engine.kernel") == "model/"


def test_the_layout_page_draws_this_table() -> None:
    text = (PKG.parent / "docs" / "model.md").read_text("utf-8")
    block = re.search(r"<!-- generated: layers [^\n]*-->\n(.*?)\n<!-- end generated: layers -->",
                      text, re.S)
    assert block, "docs/model.md has no generated 'layers' block"
    assert block.group(1) == picture(), "docs/model.md's layers: run python tools/make_docs.py"


def test_module_docstrings_are_short() -> None:
    """A module says what it is in a few lines; the narrative lives in docs/model.md."""
    long = []
    for m, p in _modules().items():
        doc = ast.get_docstring(ast.parse(p.read_text("utf-8")), clean=False)
        if doc and doc.count("\n") + 1 > 30:
            long.append(f"{m} ({doc.count(chr(10)) + 1} lines)")
    assert not long, "module docstrings over 30 lines: " + ", ".join(long)


def _local_imports() -> list[tuple[str, int, bool]]:
    """Every import of a cephsim module inside a function: (module, line, says why), where
    saying why is a comment on the import or above its group of imports."""
    out = []
    mods = _modules()
    for m, p in mods.items():
        lines = p.read_text("utf-8").splitlines()
        tree = ast.parse("\n".join(lines))
        nodes = {n.lineno: n for fn in ast.walk(tree)
                 if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
                 for n in ast.walk(fn) if isinstance(n, (ast.Import, ast.ImportFrom))
                 and _targets(m, p, n, mods)}
        covered = {i for n in nodes.values() for i in range(n.lineno, n.end_lineno + 1)}
        for n in nodes.values():
            why = any("#" in lines[i - 1] for i in range(n.lineno, n.end_lineno + 1))
            i = n.lineno - 1
            while i in covered:
                i -= 1
            why = why or lines[i - 1].strip().startswith("#")
            out.append((m, n.lineno, why))
    return out


def test_function_local_imports_are_few_and_say_why() -> None:
    """An import inside a function hides an edge from a reader of the module's head: it is
    kept only where it earns its place (the command line's start-up, a lazy public name),
    and says so."""
    found = _local_imports()
    silent = [f"{m}:{line}" for m, line, why in found if not why]
    assert not silent, "function-local imports without a comment saying why: " + ", ".join(silent)
    assert len(found) < 60, f"{len(found)} function-local imports of cephsim modules"


def test_the_command_line_starts_without_the_model() -> None:
    """What the command line's on-use imports buy: `cephsim --help` loads typer and the
    commands, not the model, its schema or the numeric stack (about a second)."""
    code = ("import sys, cephsim.cli; print(sorted({m.split('.')[0] if not m.startswith('cephsim')"
            " else '.'.join(m.split('.')[:2]) for m in sys.modules}))")
    loaded = set(ast.literal_eval(subprocess.run([sys.executable, "-c", code], check=True,
                                                  capture_output=True, text=True).stdout))
    heavy = {"pydantic", "numpy", "scipy", "simpy", "cephsim.model", "cephsim.scenario"}
    assert not loaded & heavy, f"`import cephsim.cli` loads {sorted(loaded & heavy)}"


#: the simulator proper: it reads the resolved model (cephsim.model.resolve), never the
#: scenario as the user wrote it (resolve, the runner's reports and their warnings still do)
SIMULATOR = ("model/components", "model/engine", "model/writepath.py", "model/workload.py")


def test_the_simulator_reads_only_the_resolved_model() -> None:
    found = []
    graph = import_graph()
    for m, p in _modules().items():
        rel = p.relative_to(PKG).as_posix()
        if not rel.startswith(SIMULATOR):
            continue
        for node in ast.walk(ast.parse(p.read_text("utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr == "scenario":
                found.append(f"{rel}:{node.lineno} reads .scenario")
        found += [f"{rel} imports {t}" for t in graph[m]
                  if t.startswith("cephsim.scenario")]
    assert not found, "; ".join(found)
