"""Tests of attnio.pebble._jit: numba's on-disk cache stays out of the package."""

from __future__ import annotations

import errno
import os
import pathlib
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


def _fresh_kernels() -> tuple:
    """Two new cached kernels, decorated now (so they take the cache directory of now)."""

    @_jit.njit(cache=True)
    def triple(x):
        return 3 * x

    @_jit.njit(cache=True)
    def square(x):
        return x * x

    return triple, square


def test_a_full_kernel_cache_warns_once_and_keeps_the_kernels(monkeypatch, tmp_path, capsys):
    """Where numba's save of a compiled kernel raises ENOSPC (a full disk), every kernel
    still compiles and answers right, nothing is left in the directory, no later kernel
    tries it again, and one line on stderr names the directory and the reason."""
    from numba.core import caching

    monkeypatch.setattr(_jit.check_cache, "_WARNED", set())
    monkeypatch.setattr(_jit, "_FAILED", set())
    monkeypatch.setattr(_jit.config, "CACHE_DIR", str(tmp_path))
    calls = []

    def full(source, target, *args, **kwargs):
        calls.append(target)
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(target))

    monkeypatch.setattr(caching.os, "replace", full)
    triple, square = _fresh_kernels()
    assert (triple(14), square(7), triple(2.5)) == (42, 49, 7.5)
    assert len(calls) == 1  # the first save failed; no other was tried
    assert not [p for p in tmp_path.rglob("*") if p.is_file()]
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(tmp_path) in err and "ENOSPC" in err, err


def test_a_real_full_disk_keeps_the_kernels(monkeypatch, full_disk, capsys):
    """On a real full file system (a full tmpfs) the kernels compile, answer and warn once."""
    monkeypatch.setattr(_jit.check_cache, "_WARNED", set())
    monkeypatch.setattr(_jit, "_FAILED", set())
    monkeypatch.setattr(_jit.config, "CACHE_DIR", str(full_disk / "numba"))
    triple, square = _fresh_kernels()
    assert (triple(14), square(7)) == (42, 49)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "No space left on device" in err, err


def test_an_unwritable_kernel_cache_is_never_the_package(monkeypatch, tmp_path, capsys):
    """A cache directory that cannot be created (its parent is a file) is not replaced by
    numba's fallback beside the source file: the kernel runs uncached, with one warning."""
    monkeypatch.setattr(_jit.check_cache, "_WARNED", set())
    monkeypatch.setattr(_jit, "_FAILED", set())
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setattr(_jit.config, "CACHE_DIR", str(blocker / "numba"))
    triple, _ = _fresh_kernels()
    assert triple(5) == 15
    assert not list((pathlib.Path(__file__).parent / "__pycache__").glob("test_jit.*.nb[ic]"))
    assert capsys.readouterr().err.count("\n") == 1
