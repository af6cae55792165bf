"""numba's ``njit`` with the on-disk cache in a user cache directory, never in the package.

numba caches compiled kernels beside their source file by default
(``<package>/__pycache__``). In an installed package that directory outlives
``pip uninstall`` and then shadows a later editable install of the same package
(Python finds a namespace package ``attnio.pebble`` without ``__init__.py``).
:func:`njit` therefore points the cache of attnio's kernels at
:func:`cache_directory` (``$NUMBA_CACHE_DIR`` when the user set it, else
``$XDG_CACHE_HOME/attnio/numba``, else ``~/.cache/attnio/numba``) and nowhere
else. A cache that cannot be written (a full disk or quota, a read-only or
foreign directory) is found where it fails, when numba saves a kernel: the kernel
stays compiled in memory, :func:`attnio.bounds.check_cache.warn_unwritable` says
so once on standard error, and no kernel tries that directory again in this
process. A cache that cannot be read is a miss. Only attnio's kernels are
affected; numba's global configuration is restored after each decoration.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import numba
from numba.core import config
from numba.core.caching import FunctionCache, UserProvidedCacheLocator

from attnio.bounds import check_cache
from attnio.bounds.check_cache import user_cache

_FAILED: set[str] = set()
"""Cache directories a kernel could not be saved in during this process."""


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


class _Locator(UserProvidedCacheLocator):
    """numba's locator of ``config.CACHE_DIR``, kept even where that directory cannot be
    written: numba's own falls back to the package's ``__pycache__`` then."""

    @classmethod
    def from_function(cls, py_func: Callable, py_file: str) -> _Locator | None:
        if not config.CACHE_DIR or not os.path.exists(py_file):
            return None
        return cls(py_func, py_file)


class _CacheImpl(FunctionCache._impl_class):
    _locator_classes = [_Locator]  # noqa: RUF012 (numba's own attribute)


class _Cache(FunctionCache):
    """numba's per-function cache whose failed reads are misses and failed writes a warning.

    Parameters
    ----------
    py_func : callable
        The kernel's Python function.
    directory : Path
        :func:`cache_directory` at decoration, named by the warning.
    """

    _impl_class = _CacheImpl

    def __init__(self, py_func: Callable, directory: Path) -> None:
        super().__init__(py_func)
        self.directory = directory

    def load_overload(self, sig: object, target_context: object) -> object:
        try:
            return super().load_overload(sig, target_context)
        except OSError:
            return None

    def save_overload(self, sig: object, data: object) -> None:
        if str(self.directory) in _FAILED:
            return
        try:
            super().save_overload(sig, data)
        except OSError as error:  # ENOSPC, EDQUOT, EROFS, EACCES, ...: numba's save failed
            _FAILED.add(str(self.directory))
            check_cache.warn_unwritable(self.directory, error)


def njit(**options: object) -> Callable[[Callable], Callable]:
    """Return ``numba.njit(**options)``, caching on disk only in :func:`cache_directory`.

    With ``cache=True`` the kernel is saved there after compiling and loaded from there
    instead of compiling; the cache is never written beside the source file, and a
    directory that cannot be written costs a warning, never the kernel.
    """
    cache = bool(options.pop("cache", False))

    def decorate(function: Callable) -> Callable:
        dispatcher = numba.njit(**options)(function)
        if not cache or not hasattr(dispatcher, "enable_caching"):  # NUMBA_DISABLE_JIT=1
            return dispatcher
        directory = cache_directory()
        saved = config.CACHE_DIR
        config.CACHE_DIR = str(directory)
        try:
            # what Dispatcher.enable_caching does, with attnio's cache class
            dispatcher._cache = _Cache(dispatcher.py_func, directory)
        except (OSError, RuntimeError):  # no source file to key the cache on
            pass
        finally:
            config.CACHE_DIR = saved
        return dispatcher

    return decorate
