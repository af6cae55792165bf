"""Tests of the package surfaces and the source's shape: no private names across modules, lazy
top-level imports, no import cycle inside a package, no overlong function in proofs/."""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("attnio", "bounds", "pebble", "algorithms", "proofs", "claims", "testing", "figures",
            "explorer", "campaign")  # fmt: skip


def _modules():
    for package in PACKAGES:
        yield from sorted((ROOT / package).glob("*.py"))


def _is_module(folder: Path, name: str) -> bool:
    return (folder / f"{name}.py").exists() or (folder / name / "__init__.py").exists()


def test_reexported_names_do_not_clash():
    """No public name means two things across the core packages."""
    import attnio

    names = [name for names in attnio._PACKAGES.values() for name in names]
    assert len(names) == len(set(names))


def test_no_private_name_is_imported_from_another_module():
    """A module imports only public names from another module (private modules such as
    _kernels may be imported whole, as modules)."""
    offenders = []
    for path in _modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.ImportFrom):
                continue
            source = node.module or ""
            if node.level == 0 and not source.startswith("attnio"):
                continue
            folder = path.parent
            for _ in range(max(node.level - 1, 0)):
                folder = folder.parent
            if node.level:
                folder = folder.joinpath(*source.split(".")) if source else folder
            for alias in node.names:
                if not alias.name.startswith("_") or alias.name.startswith("__"):
                    continue
                if node.level and _is_module(folder, alias.name):
                    continue  # a private module, imported as a module
                offenders.append(f"{path.relative_to(ROOT)}: from {source} import {alias.name}")
    assert not offenders, offenders


def test_importing_attnio_does_not_import_numba_z3_or_matplotlib():
    """``import attnio`` stays fast: the heavy dependencies load only when used."""
    code = (
        "import sys, attnio; "
        "print(sorted(m for m in ('numba', 'z3', 'matplotlib', 'sympy') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout


def test_attnio_reexports_the_public_api_of_the_core_packages():
    """Every name in the __all__ of bounds, pebble, algorithms and proofs is attnio.<name>,
    except check: attnio.check is the claims checker (the obligation checker stays
    attnio.proofs.check)."""
    import attnio

    for package in ("bounds", "pebble", "algorithms", "proofs"):
        module = importlib.import_module(f"attnio.{package}")
        assert set(attnio._PACKAGES[f"attnio.{package}"]) == set(module.__all__), package
        for name in module.__all__:
            if name == "check":  # attnio.check checks users' claims (attnio.claims.check)
                continue
            assert getattr(attnio, name) is getattr(module, name), f"attnio.{name}"
    assert set(attnio.__all__) >= {"solve_exact", "catalog", "simulate", "Dag", "check"}
    from attnio.claims import check

    assert attnio.check is check


def test_exact_solver_is_exported():
    """The exact solver is part of attnio.pebble's public surface."""
    from attnio import pebble

    assert {"solve_exact", "sweep_exact", "Variant"} <= set(pebble.__all__)


def _import_graph(folder: Path, package: str):
    """The graph of which module of ``folder`` (the package ``attnio.<package>``) imports
    which, read from the source: every import counts, at the top, inside a function or under
    ``if TYPE_CHECKING:`` (an annotation's import is still a dependency a reader follows)."""
    import networkx as nx

    graph = nx.DiGraph()
    prefix = f"attnio.{package}."
    for path in folder.glob("*.py"):
        graph.add_node(path.stem)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = []
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                targets = [node.module] if node.module else [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                if node.module.startswith(prefix):
                    targets = [node.module.removeprefix(prefix)]
                elif node.module == prefix[:-1]:
                    targets = [a.name for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name.removeprefix(prefix) for a in node.names
                           if a.name.startswith(prefix)]  # fmt: skip
            for target in targets:
                target = target.split(".")[0]
                if (folder / f"{target}.py").exists() and target != "__init__":
                    graph.add_edge(path.stem, target)
    graph.remove_nodes_from(["__init__"])
    return graph


def test_no_import_cycle_inside_a_package():
    """The modules of each package import one another without a cycle, counting every
    import (lazy ones inside functions and those under ``if TYPE_CHECKING:`` included): a
    function-level or annotation-only import does not hide a circle."""
    import networkx as nx

    for package in PACKAGES:
        graph = _import_graph(ROOT / package, package)
        assert nx.is_directed_acyclic_graph(graph), (package, list(nx.simple_cycles(graph)))


def test_import_graph_sees_a_hidden_cycle(tmp_path):
    """The graph the cycle test reads has the edges a cycle hides in: a TYPE_CHECKING
    import, a function-level import and an absolute ``attnio.<package>`` import."""
    import networkx as nx

    (tmp_path / "a.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .b import B\n"
    )
    (tmp_path / "b.py").write_text("def f():\n    from attnio.pkg.c import C\n")
    (tmp_path / "c.py").write_text("from . import a\n")
    graph = _import_graph(tmp_path, "pkg")
    assert set(graph.edges) == {("a", "b"), ("b", "c"), ("c", "a")}
    assert not nx.is_directed_acyclic_graph(graph)


MAX_FUNCTION_LINES = 80
"""The longest a function in proofs/ may be (``end_lineno - lineno`` of its ``def``)."""


def _long_functions(folder: Path, limit: int) -> list[tuple[str, str, int]]:
    """Every function (methods and nested ones included) of ``folder``'s modules whose
    ``def`` spans more than ``limit`` lines: (file, name, lines)."""
    found = []
    for path in sorted(folder.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno
                if lines > limit:
                    found.append((path.name, node.name, lines))
    return found


def test_no_function_in_proofs_is_longer_than_the_limit(tmp_path):
    """No function in proofs/ spans more than MAX_FUNCTION_LINES lines; the scan finds a
    function one line over the limit and passes one at it."""
    long = _long_functions(ROOT / "proofs", MAX_FUNCTION_LINES)
    assert not long, long

    def source(name: str, lines: int) -> str:
        return f"def {name}():\n" + "".join(f"    x = {i}\n" for i in range(lines))

    at, over = source("at", MAX_FUNCTION_LINES), source("over", MAX_FUNCTION_LINES + 1)
    (tmp_path / "sample.py").write_text(at + "\n\n" + over)
    assert _long_functions(tmp_path, MAX_FUNCTION_LINES) == [
        ("sample.py", "over", MAX_FUNCTION_LINES + 1)
    ]
