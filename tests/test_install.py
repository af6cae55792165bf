"""The README's two commands work one after the other in one clone (slow: two pip installs).

A numba cache written into ``site-packages/attnio/pebble/__pycache__`` by the
first command once survived ``pip uninstall`` and shadowed the editable install
of the second (``ImportError: cannot import name 'load_dag'``).

Command 1 runs ``attnio verify``, whose ``proofs.obligations`` check proves the whole
obligation catalog (every expected-true obligation proved, every planted claim
refuted): this test is also the suite's whole-catalog proof, which takes over ten
minutes of processor time and so runs once.
"""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[1]

FIRST = "{python} -m venv .venv && .venv/bin/pip install . && .venv/bin/attnio verify"
SECOND = (
    '{python} -m venv .venv && .venv/bin/pip install -e ".[test]" '
    "&& .venv/bin/python -m pytest --collect-only -q"
)


def _clone(target: pathlib.Path) -> None:
    """Copy the working tree's tracked and unignored files (a clone of the current state)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        check=True,
        capture_output=True,
    ).stdout.split(b"\0")
    for raw in filter(None, listed):
        source = REPO / raw.decode()
        if source.is_file():
            destination = target / raw.decode()
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, destination)


def _shell(command: str, cwd: pathlib.Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    return subprocess.run(
        ["bash", "-c", command.format(python=sys.executable)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=3600,
    )


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("git") is None, reason="git is needed to list the files")
def test_readme_commands_in_one_clone(tmp_path) -> None:
    """Command 1 (install, verify), then command 2 (editable install, pytest), then --version."""
    clone = tmp_path / "attnio"
    _clone(clone)
    first = _shell(FIRST, clone)
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
    installed = list((clone / ".venv").rglob("site-packages/attnio"))
    assert installed and not list(installed[0].rglob("*.nb[ic]")), "numba cache in the package"
    second = _shell(SECOND, clone)
    assert second.returncode == 0, second.stdout[-3000:] + second.stderr[-3000:]
    version = _shell(".venv/bin/attnio --version", clone)
    assert version.returncode == 0 and version.stdout.startswith("attnio "), version.stderr
    where = _shell(".venv/bin/python -c 'import attnio.pebble as p; print(p.__file__)'", clone)
    assert where.stdout.strip() == str(clone / "pebble" / "__init__.py"), where.stderr
