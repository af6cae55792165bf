"""The README's two commands work one after the other in one clone (slow: two pip installs).

A numba cache written into ``site-packages/attnio/pebble/__pycache__`` by the
first command once survived ``pip uninstall`` and shadowed the editable install
of the second (``ImportError: cannot import name 'load_dag'``).

Command 1 is the README's ``attnio verify`` on a small selection of checks: one that
compiles the numba kernels (so the cache location is exercised) and one that runs z3
on the planted false claim. The whole catalog is proved once in the
suite, by ``test_cli_verify.py::test_verify_thorough_passes_every_check``.
"""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[1]

MAIN_JOB = "python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/attnio verify"
"""The README's first command, as the README shows it."""
SELECTION = "pebble.kernel_matches_reference,proofs.planted_refuted"
FIRST = MAIN_JOB.replace("python3", "{python}", 1) + f" --only '{SELECTION}'"
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


def _shell(command: str, cwd: pathlib.Path, cache: pathlib.Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env["XDG_CACHE_HOME"] = str(cache)  # the user's cache directory, here a scratch one
    env.pop("NUMBA_CACHE_DIR", None)
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
    """Command 1 (install, verify a selection), then command 2 (editable install, pytest),
    then --version; the numba kernels are cached in the user's cache directory, never
    inside the installed package."""
    assert MAIN_JOB in (REPO / "README.md").read_text(encoding="utf-8")
    clone, cache = tmp_path / "attnio", tmp_path / "cache"
    _clone(clone)
    first = _shell(FIRST, clone, cache)
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
    assert "2 passed, 0 failed" in first.stdout, first.stdout
    assert first.stderr.count(": pass (") == 2, first.stderr  # one progress line per check
    installed = list((clone / ".venv").rglob("site-packages/attnio"))
    assert installed and not list(installed[0].rglob("*.nb[ic]")), "numba cache in the package"
    assert list((cache / "attnio" / "numba").rglob("*.nbi")), "no numba cache written"
    second = _shell(SECOND, clone, cache)
    assert second.returncode == 0, second.stdout[-3000:] + second.stderr[-3000:]
    version = _shell(".venv/bin/attnio --version", clone, cache)
    assert version.returncode == 0 and version.stdout.startswith("attnio "), version.stderr
    where = _shell(
        ".venv/bin/python -c 'import attnio.pebble as p; print(p.__file__)'", clone, cache
    )
    assert where.stdout.strip() == str(clone / "pebble" / "__init__.py"), where.stderr
