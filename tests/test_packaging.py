"""Tests of the packaging: the attnio namespace maps onto this repository's folders."""

from __future__ import annotations

import importlib
import pathlib
import re
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("module", "folder"),
    [
        ("attnio.bounds", "bounds"),
        ("attnio.pebble", "pebble"),
        ("attnio.algorithms", "algorithms"),
        ("attnio.proofs", "proofs"),
        ("attnio", "attnio"),
    ],
)
def test_subpackages_resolve_inside_this_repository(module: str, folder: str) -> None:
    """Each attnio subpackage is imported from this repository's folder, not from a PyPI namesake."""
    imported = importlib.import_module(module)
    assert pathlib.Path(imported.__file__).resolve().parent == REPO / folder


def test_bounds_imports_nothing_else_of_attnio() -> None:
    """attnio.bounds imports no other attnio package (dependencies flow one way)."""
    import ast

    for path in (REPO / "bounds").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            for name in names:
                assert not re.match(r"attnio\.(pebble|algorithms|proofs)", name), path.name


def test_ci_runs_exactly_the_readme_test_command() -> None:
    """.ci/run executes the README's test command verbatim."""
    readme = (REPO / "README.md").read_text()
    blocks = re.findall(r"```bash\n(.*?)\n```", readme, flags=re.S)
    test_command = next(b for b in blocks if "pytest" in b).strip()
    ci = (REPO / ".ci" / "run").read_text()
    assert test_command in ci.splitlines()


@pytest.mark.slow
def test_regular_install_imports_every_subpackage(tmp_path: pathlib.Path) -> None:
    """A regular (non-editable) install places every subpackage and imports it from there."""
    target = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--target",
            str(target),
            str(REPO),
        ],
        check=True,
        timeout=600,
        capture_output=True,
    )
    code = (
        "import attnio.bounds, attnio.pebble, attnio.algorithms, attnio.proofs, "
        "attnio.cli, pathlib; from attnio.bounds import get; "
        "print(pathlib.Path(attnio.bounds.__file__).parent); "
        "print(get('dense-forward-tight').source)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin"},
        check=False,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    where, source = result.stdout.strip().splitlines()
    assert pathlib.Path(where) == target / "attnio" / "bounds"
    assert source == "SY24 Thm 3.1"
