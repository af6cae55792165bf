"""The numba kernels' pure-Python paths: the oracle tests re-run with NUMBA_DISABLE_JIT=1.

Compiled kernels are invisible to coverage and to Python debuggers. Running the
kernel-versus-reference tests (marker ``kernel_oracle``) once more with the JIT off
executes every kernel line as Python, with a few hypothesis examples each.
"""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys

import pytest

from attnio.pebble import _exact_kernels, _kernels, _pattern_kernels
from strategies import JIT_DISABLED

REPO = pathlib.Path(__file__).resolve().parents[1]
ORACLE_MODULES = (
    "tests/test_heuristic.py",
    "tests/test_exact.py",
    "tests/test_patterns.py",
    "tests/test_kernels_nojit.py",
)


@pytest.mark.kernel_oracle
@pytest.mark.parametrize("module", [_kernels, _exact_kernels, _pattern_kernels])
def test_kernels_are_compiled_unless_the_jit_is_off(module) -> None:
    """Each kernel module's functions are numba dispatchers, or plain functions with the JIT off."""
    functions = [
        value
        for value in vars(module).values()
        if callable(value) and getattr(value, "__module__", None) == module.__name__
    ]
    compiled = [f for f in functions if hasattr(f, "py_func")]
    assert functions
    assert compiled == ([] if JIT_DISABLED else functions)


@pytest.mark.slow
def test_oracle_tests_pass_with_the_jit_off() -> None:
    """With NUMBA_DISABLE_JIT=1 every kernel still agrees with its pure-Python reference."""
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "-n",
        "0",  # one process: this test's own worker is already one of the suite's
        # Plain numpy int64 arithmetic warns where the compiled kernels wrap around silently
        # (the state hash); the wrapped values are the same, so that warning is expected here.
        "-W",
        "ignore:overflow encountered in scalar multiply:RuntimeWarning",
        "-m",
        "kernel_oracle",
        *ORACLE_MODULES,
    ]
    result = subprocess.run(
        command, cwd=REPO, env=env, capture_output=True, text=True, timeout=1800
    )
    tail = result.stdout[-4000:] + result.stderr[-2000:]
    assert result.returncode == 0, tail
    summary = result.stdout.strip().splitlines()[-1]
    passed = re.search(r"(\d+) passed", summary)
    assert passed and int(passed.group(1)) >= 15, tail
    assert not re.search(r"skipped|xfail|error", summary), tail
