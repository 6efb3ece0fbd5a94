"""Dependencies point one way: sipml → workloads → fabric → photonics → core (style.md). Every import in every
module of a floor, at any depth (lazy imports inside functions included), may name only its own floor or those
below it; inside a floor no modules import each other in a circle (lazy imports count); no function passes 80
lines."""

import ast
from pathlib import Path

import pytest

from tests.source_trees import nodes

ROOT = Path(__file__).resolve().parents[1]
FLOORS = ["core", "photonics", "fabric", "workloads", "sipml"]  # bottom to top


def _imports(path: Path):
    for node in nodes(path):
        if isinstance(node, ast.Import):
            yield from (alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module.split(".")[0]


@pytest.mark.parametrize("floor", FLOORS)
def test_floor_imports_only_itself_and_below(floor):
    allowed = set(FLOORS[: FLOORS.index(floor) + 1])
    forbidden = set(FLOORS) - allowed
    offenders = [(str(path.relative_to(ROOT)), name)
                 for path in sorted((ROOT / floor).rglob("*.py")) for name in _imports(path) if name in forbidden]
    assert offenders == []


def test_layering_rule_sees_a_violation(tmp_path):
    """The check is not vacuous: an upward import is found."""
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from sipml.cli import app\n")
    assert list(_imports(module)) == ["sipml"]


MAX_FUNCTION_LINES = 80


def _modules() -> dict[str, Path]:
    out = {}
    for floor in FLOORS:
        for path in sorted((ROOT / floor).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Module → the project modules it imports at any depth (a package's own __init__ left out: importing any
    module of a package runs it)."""
    graph = {name: set() for name in modules}
    for name, path in modules.items():
        for node in nodes(path):
            targets = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                targets = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
            graph[name] |= {t for t in targets if t in modules and t != name and t not in FLOORS}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, found = {}, {}, [], []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_circle():
    assert cycles(import_graph(_modules())) == []


def test_the_circle_check_sees_a_circle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_function_is_longer_than_100_lines():
    long = [(str(path.relative_to(ROOT)), node.name, node.end_lineno - node.lineno + 1)
            for path in _modules().values() for node in nodes(path)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES]
    assert long == []
