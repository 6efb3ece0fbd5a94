"""The project's Python sources as the tests that read them see them: each file's syntax tree and every node of it,
parsed and walked once per test process (several checks read every module: layering, import circles, function
lengths, references, caches, kind names)."""

import ast
import functools
from pathlib import Path


@functools.cache
def tree(path: Path) -> ast.Module:
    """The syntax tree of the file at `path` (read-only by convention: the tests share it)."""
    return ast.parse(path.read_text(encoding="utf-8"))


@functools.cache
def nodes(path: Path) -> tuple[ast.AST, ...]:
    """Every node of `tree(path)`, in `ast.walk`'s order."""
    return tuple(ast.walk(tree(path)))
