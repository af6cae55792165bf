"""Tests of the documentation: every docstring example and the README tour run as written."""

from __future__ import annotations

import doctest
import importlib
import pathlib
import pkgutil
import re

import pytest

import attnio

REPO = pathlib.Path(__file__).resolve().parents[1]
PACKAGES = ("attnio", "attnio.bounds", "attnio.pebble", "attnio.algorithms", "attnio.proofs")


def _modules() -> list[str]:
    names = []
    for package in PACKAGES:
        module = importlib.import_module(package)
        names.append(package)
        for info in pkgutil.iter_modules(module.__path__):
            names.append(f"{package}.{info.name}")
    return names


@pytest.mark.parametrize("name", _modules())
def test_docstring_examples_run(name: str) -> None:
    """Every >>> example in every attnio module's docstrings gives the output it shows."""
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0


def test_readme_python_tour_runs() -> None:
    """The README's Python examples give the outputs the README shows."""
    readme = (REPO / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", readme, flags=re.S)
    assert blocks
    for block in blocks:
        test = doctest.DocTestParser().get_doctest(block, {}, "README", "README.md", 0)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        runner.run(test)
        assert runner.failures == 0


def test_version_is_exposed() -> None:
    """attnio exposes a version string that the CLI prints."""
    assert re.fullmatch(r"\d+\.\d+\.\d+", attnio.__version__)
