"""Shared pytest configuration: hypothesis profiles (fixed seed in CI) and session fixtures.

The fixtures below compute something expensive once per test session; every test that
needs it asks for it by name, so no test depends on another having run first.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "explore", deadline=None, print_blob=True, suppress_health_check=[HealthCheck.too_slow]
)
# Fixed seeds by default, so a run's verdict is reproducible; HYPOTHESIS_PROFILE=explore
# draws fresh examples on every run (to hunt for new counterexamples).
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


LONGEST_FILES = ("test_cli_verify.py", "test_install.py", "test_exact.py", "test_budget.py")
"""Test files that each take a minute or more of one worker (the suite's one thorough
``attnio verify``, the README's two installs, the exhaustive oracles, the solver under
load), run first: a long test that starts late stretches the run's tail while the other
worker idles."""


def pytest_collection_modifyitems(config: pytest.Config, items: list) -> None:
    """Move the tests of :data:`LONGEST_FILES` to the front (stable: order kept otherwise)."""
    rank = {name: k for k, name in enumerate(LONGEST_FILES)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))


def pytest_configure(config: pytest.Config) -> None:
    """Mark the fast tier (``-m "not slow"``) for :func:`strategies.examples`."""
    if (config.option.markexpr or "").split() == ["not", "slow"]:
        os.environ["ATTNIO_FAST_TIER"] = "1"


@pytest.fixture(scope="session")
def compiled_heuristic_kernels() -> None:
    """The heuristic pebbler's numba kernels, compiled (or loaded from cache) once."""
    from attnio.pebble.heuristic import compile_kernels

    compile_kernels()


@pytest.fixture(scope="session")
def generated_obligations() -> list:
    """Every obligation the generator derives from the catalog (sympy work, seconds)."""
    from attnio.proofs import generate

    return generate.obligations()


@pytest.fixture(scope="session")
def derivation_outcomes() -> list:
    """Every derivation step proved by z3 once: the outcomes, in derivation order."""
    from attnio.proofs import prove
    from attnio.proofs.derivation import derivation_obligations

    return [prove(step) for step in derivation_obligations()]


@pytest.fixture
def full_disk(tmp_path):
    """A directory on a real, full file system: a 512 KiB tmpfs mounted at ``tmp_path/full``
    and filled to the last block (root only; skipped where mounting is not permitted)."""
    import shutil
    import subprocess

    folder = tmp_path / "full"
    folder.mkdir()
    mount = shutil.which("mount")
    if mount is None or os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root and mount(8)")
    done = subprocess.run(
        [mount, "-t", "tmpfs", "-o", "size=512k", "tmpfs", str(folder)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs: {done.stderr.strip()}")
    try:
        filler = os.open(folder / "filler", os.O_WRONLY | os.O_CREAT)
        try:
            while os.write(filler, b"\0" * 4096):
                pass
        except OSError:  # ENOSPC: full
            pass
        finally:
            os.close(filler)
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True)
