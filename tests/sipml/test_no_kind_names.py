"""The application floor names no built-in fabric kind (style.md: "a kind owns its numbers"): no module of sipml/
imports a kind's module, compares a kind with a built-in kind's name, looks a kind up in a table of its own, or keeps
a table keyed by a kind's name. It reads what a kind has through the registry. Built-in DESIGN names ("sip-ring",
"ideal", "fattree-200"), which some kinds share, stay allowed: a design is data, not a kind."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
KIND_MODULES = ("fabric.sip_ring", "fabric.sip_ocs", "fabric.electrical", "fabric.ideal", "fabric.fattree")


def builtin_kinds() -> set[str]:
    """The names of the kinds the package registers itself (`fabric.shipped`)."""
    from fabric.registry import declared

    return {entry.name for entry in declared()}


def design_names() -> set[str]:
    return {path.stem for path in (ROOT / "sipml" / "designs").glob("*.toml")}


def _reads_a_kind(node: ast.AST) -> bool:
    """`x.kind`, `kind`, `x["fabric"]`, `x.get("fabric")` (a row's kind), and the same with "kind"."""
    if isinstance(node, ast.Attribute):
        return node.attr == "kind"
    if isinstance(node, ast.Name):
        return node.id == "kind" or node.id.endswith("_kind")
    if isinstance(node, ast.Subscript):
        return isinstance(node.slice, ast.Constant) and node.slice.value in ("fabric", "kind")
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
        return bool(node.args) and isinstance(node.args[0], ast.Constant) and node.args[0].value in ("fabric", "kind")
    return False


def _names_in(node: ast.AST) -> set[str]:
    """The string constants a comparand spells out: itself, or the items of a tuple, list or set."""
    items = node.elts if isinstance(node, (ast.Tuple, ast.List, ast.Set)) else [node]
    return {item.value for item in items if isinstance(item, ast.Constant) and isinstance(item.value, str)}


def offences(source: str, kinds: set[str], designs: set[str]) -> list[str]:
    """Where `source` names a built-in kind: each as 'line N: what'."""
    tree = ast.parse(source)
    tables = set()  # names bound to a dict literal keyed by a kind's name
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [f"line {node.lineno}: imports {a.name}" for a in node.names if a.name in KIND_MODULES]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules = {node.module, *(f"{node.module}.{a.name}" for a in node.names)}
            out += [f"line {node.lineno}: imports {m}" for m in sorted(modules & set(KIND_MODULES))]
        elif isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            named = set().union(*(_names_in(side) for side in sides)) & kinds
            if named and any(_reads_a_kind(side) for side in sides):
                out.append(f"line {node.lineno}: compares a kind with {', '.join(sorted(named))}")
        elif isinstance(node, ast.Match) and _reads_a_kind(node.subject):
            for case in node.cases:
                for sub in ast.walk(case.pattern):
                    if isinstance(sub, ast.MatchValue) and _names_in(sub.value) & kinds:
                        out.append(f"line {sub.lineno}: matches a kind against {sub.value.value}")
        elif isinstance(node, ast.Dict):
            keys = set().union(*(_names_in(k) for k in node.keys if k is not None))
            if keys & (kinds - designs) or keys >= kinds:  # a kind no design shares a name with, or every kind
                out.append(f"line {node.lineno}: a table keyed by kind names ({', '.join(sorted(keys & kinds))})")
            if keys & kinds:
                tables.add(id(node))
    bound = {t.id for node in ast.walk(tree) if isinstance(node, ast.Assign) and id(node.value) in tables
             for t in node.targets if isinstance(t, ast.Name)}
    for node in ast.walk(tree):
        table = key = None
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
            table, key = node.value.id, node.slice
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
              and isinstance(node.func.value, ast.Name) and node.args):
            table, key = node.func.value.id, node.args[0]
        if table in bound and _reads_a_kind(key):
            out.append(f"line {node.lineno}: looks a kind up in {table}")
    return out


def test_no_module_of_sipml_names_a_built_in_kind():
    kinds, designs = builtin_kinds(), design_names()
    found = {str(path.relative_to(ROOT)): offences(path.read_text(encoding="utf-8"), kinds, designs)
             for path in sorted((ROOT / "sipml").rglob("*.py"))}
    assert {path: lines for path, lines in found.items() if lines} == {}


VIOLATIONS = [
    'if fab.kind == "sip-ring":\n    pass',
    'if est.kind in ("sip-ring", "sip-ocs"):\n    pass',
    'free = f["fabric"] == "ideal"',
    'x = any(r.get("fabric") == "ideal" for r in rows)',
    'if kind != "electrical":\n    pass',
    '_BY_KIND = {"sip-ring": 1, "sip-ocs": 2, "electrical": 3, "ideal": 4}',
    '_NOTES = {"ideal": "not costed"}\nnote = _NOTES.get(est.kind)',
    '_NOTES = {"ideal": "not costed"}\nnote = _NOTES[est.kind]',
    'from fabric.sip_ocs import MULTI_SHOT_PERIOD',
    'from fabric import electrical',
    'import fabric.ideal',
    'match fab.kind:\n    case "sip-ocs":\n        pass',
]


@pytest.mark.parametrize("source", VIOLATIONS)
def test_the_check_sees_each_way_of_naming_a_kind(source):
    assert offences(source, builtin_kinds(), design_names()), source


ALLOWED = [
    'design = load_design("sip-ring")',  # a built-in design, by its name
    'FABRICS = ("sip-ring", "sip-ocs", "ideal", "fattree-200")',
    'if name == "ideal":\n    pass',  # a design's name
    'if link.kind == "ring-wdm":\n    pass',  # a link kind, not a fabric kind
    'for kind, fibers in (("sip-ring", 10), ("sip-ocs", 20)):\n    pass',
    'label = {"sip-ring": "ours"}.get(design_name)',
    'native = _NATIVE.get(values.dtype.kind)',
]


@pytest.mark.parametrize("source", ALLOWED)
def test_the_check_leaves_design_names_alone(source):
    assert offences(source, builtin_kinds(), design_names()) == []
