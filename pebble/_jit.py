"""numba's ``njit`` with the on-disk cache in a user cache directory, never in the package.

numba caches compiled kernels beside their source file by default
(``<package>/__pycache__``). In an installed package that directory outlives
``pip uninstall`` and then shadows a later editable install of the same package
(Python finds a namespace package ``attnio.pebble`` without ``__init__.py``).
:func:`njit` therefore points the cache of attnio's kernels at
:func:`cache_directory` (``$NUMBA_CACHE_DIR`` when the user set it, else
``$XDG_CACHE_HOME/attnio/numba``, else ``~/.cache/attnio/numba``), and compiles
without an on-disk cache when that directory cannot be written. Only attnio's
kernels are affected; numba's global configuration is restored after each
decoration.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

import numba
from numba.core import config

from attnio.bounds.check_cache import user_cache


def cache_directory() -> Path:
    """Return the directory of attnio's compiled-kernel cache.

    Returns
    -------
    Path
        ``$NUMBA_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/attnio/numba``, else
        ``~/.cache/attnio/numba`` (``%LOCALAPPDATA%\\attnio\\numba`` on Windows).
    """
    if config.CACHE_DIR:
        return Path(config.CACHE_DIR)
    return user_cache("numba")


def _writable(directory: Path) -> bool:
    try:
        directory.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=directory).close()
    except OSError:
        return False
    return True


def njit(**options: object) -> Callable[[Callable], Callable]:
    """Return ``numba.njit(**options)``, caching on disk only in :func:`cache_directory`.

    ``cache=True`` is honoured only when the directory is writable; the cache is
    never written beside the source file.
    """
    cache = bool(options.pop("cache", False))

    def decorate(function: Callable) -> Callable:
        dispatcher = numba.njit(**options)(function)
        if not cache or not hasattr(dispatcher, "enable_caching"):  # NUMBA_DISABLE_JIT=1
            return dispatcher
        directory = cache_directory()
        if not _writable(directory):
            return dispatcher
        saved = config.CACHE_DIR
        config.CACHE_DIR = str(directory)
        try:
            dispatcher.enable_caching()
        finally:
            config.CACHE_DIR = saved
        return dispatcher

    return decorate
