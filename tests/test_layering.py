"""Dependencies point one way: sipml → workloads → fabric → photonics → core (style.md). Every import in every
module of a floor, at any depth (lazy imports inside functions included), may name only its own floor or those
below it."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FLOORS = ["core", "photonics", "fabric", "workloads", "sipml"]  # bottom to top


def _imports(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
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
