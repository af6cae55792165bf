"""Tests of attnio.pebble._jit: numba's on-disk cache stays out of the package."""

from __future__ import annotations

import os
import subprocess
import sys

from attnio.pebble import _jit


def test_cache_directory_follows_xdg(monkeypatch, tmp_path):
    """Without NUMBA_CACHE_DIR the cache sits under $XDG_CACHE_HOME/attnio/numba."""
    monkeypatch.setattr(_jit.config, "CACHE_DIR", "")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert _jit.cache_directory() == tmp_path / "attnio" / "numba"


def test_cache_directory_honours_numba_cache_dir(monkeypatch, tmp_path):
    """A user's NUMBA_CACHE_DIR wins over attnio's default."""
    monkeypatch.setattr(_jit.config, "CACHE_DIR", str(tmp_path))
    assert _jit.cache_directory() == tmp_path


def test_kernels_cache_outside_the_package(tmp_path):
    """Compiling a kernel writes its cache under XDG_CACHE_HOME and nothing beside the source."""
    code = (
        "from attnio.pebble import _jit\n"
        "@_jit.njit(cache=True)\n"
        "def twice(x):\n    return 2 * x\n"
        "assert twice(21) == 42\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(tmp_path)
    script = tmp_path / "kernel_probe.py"
    script.write_text(code)
    subprocess.run([sys.executable, str(script)], check=True, env=env, timeout=300)
    assert not list((tmp_path / "__pycache__").glob("*.nb[ic]"))
    assert list((tmp_path / "attnio" / "numba").rglob("*.nbi"))
