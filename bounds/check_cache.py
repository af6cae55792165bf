"""The result cache of ``attnio verify``: whole checks whose inputs have not changed.

The proof cache (:mod:`attnio.proofs.cache`) spares z3 an obligation it decided before;
every other check (pebblings, machine runs, the catalog's consistency) would still run
again on a second ``attnio verify``. :class:`CheckCache` stores a check's result, its
verdict and detail, in one small JSON file named by :func:`key`, a SHA-256 digest of
everything a check can depend on:

- the check's name and the tier (``--thorough`` or not);
- :func:`fingerprint`: the bytes and relative path of every file of every installed
  package of attnio (:data:`PACKAGES`: the sources, the catalog, the bibliography, the
  recorded constants and stages, the derivations, the explorer's static files), the
  Python implementation, version and platform, the name and version of every
  distribution installed beside attnio (numpy, numba, sympy, z3-solver, their own
  dependencies and everything else the interpreter can import), and the environment
  variables that steer numba or attnio (:data:`ENVIRONMENT_PREFIXES`).

So any edit of any file of attnio, any upgrade of any installed distribution and a new
interpreter miss the cache for every check at once; no check's dependencies have to be
listed by hand. A failed check is never stored: it runs again on every run until it
passes. Passed and skipped results are stored.

The cache lives in :func:`directory`, beside the proof cache:
``$XDG_CACHE_HOME/attnio/checks``, else ``~/.cache/attnio/checks``
(``%LOCALAPPDATA%\\attnio\\checks`` on Windows).

A cache that cannot be written (a full disk or quota, a read-only or foreign directory)
is never an error: :func:`warn_unwritable` says so once on standard error, naming the
directory and the reason, and the run goes on without storing. The proof cache and the
compiled kernels report through it too, so a full disk under all three costs one line.

The module sits with :mod:`attnio.bounds.checks`, the shape of a check shared by every
suite: it knows nothing of any suite and imports nothing else of attnio (the other
packages are located on disk with :func:`importlib.util.find_spec`, never imported).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

FORMAT = 1
"""Version of the entry layout; part of every key, so a new layout never reads an old one."""

PACKAGES = (
    "attnio",
    "attnio.bounds",
    "attnio.pebble",
    "attnio.algorithms",
    "attnio.proofs",
    "attnio.claims",
    "attnio.testing",
    "attnio.figures",
    "attnio.explorer",
    "attnio.campaign",
)
"""The installed packages of attnio (``[tool.setuptools] packages`` of ``pyproject.toml``;
a test keeps them equal). Every file under each package's directory enters the key."""

ENVIRONMENT_PREFIXES = ("ATTNIO_", "NUMBA_")
"""Environment variables whose names start with one of these enter the key."""

_SKIPPED = ("__pycache__",)
"""Directories of derived files, not read by any check (compiled bytecode)."""


def user_cache(folder: str) -> Path:
    """Return ``folder`` of attnio's directory in the user's cache (not created here):
    ``$XDG_CACHE_HOME/attnio/FOLDER``, else ``~/.cache/attnio/FOLDER``
    (``%LOCALAPPDATA%\\attnio\\FOLDER`` on Windows). The result cache, the proof cache
    (:mod:`attnio.proofs.cache`) and the compiled kernels (:mod:`attnio.pebble._jit`)
    each have one.
    """
    base = os.environ.get("XDG_CACHE_HOME") or os.environ.get("LOCALAPPDATA")
    root = Path(base) if base else Path.home() / ".cache"
    return root / "attnio" / folder


_WARNED: set[tuple[str, int | None]] = set()
"""``(directory, errno)`` already reported by :func:`warn_unwritable` in this process."""

_HELD: list[tuple[str, int | None, str]] | None = None
"""Failures :func:`held_warnings` collects instead of printing (in a worker process)."""


def warn_unwritable(folder: str | Path, error: OSError) -> None:
    """Say once, on standard error, that the cache in ``folder`` cannot be written, and why.

    A cache that cannot store is not an error (the run goes on without it), but the user
    should know why the next run is not faster. One line per directory and reason in a
    process: a cache under attnio's directory of the user's cache (:func:`user_cache`)
    is reported for that whole directory, so a full disk under the result cache, the
    proof cache and the compiled kernels costs one line, not three.

    Parameters
    ----------
    folder : str or Path
        The cache's directory.
    error : OSError
        What writing raised (``ENOSPC``, ``EDQUOT``, ``EROFS``, ``EACCES``, ...).
    """
    folder = Path(folder)
    group = user_cache("")
    if group not in folder.parents and folder != group:
        group = folder
    found = (str(group), error.errno)
    if found in _WARNED:
        return
    _WARNED.add(found)
    if _HELD is not None:
        _HELD.append((str(folder), error.errno, error.strerror or str(error)))
        return
    reason = error.strerror or str(error)
    if error.errno in errno.errorcode:
        reason = f"{reason} ({errno.errorcode[error.errno]})"
    print(
        f"attnio: warning: cannot write the cache in {folder}: {reason}; "
        f"going on without caching in {group}",
        file=sys.stderr,
        flush=True,
    )


@contextlib.contextmanager
def held_warnings() -> Iterator[list[tuple[str, int | None, str]]]:
    """Collect the failures :func:`warn_unwritable` reports inside the block instead of
    printing them, as ``(folder, errno, reason)``; a worker process returns them to its
    parent, which reports them with :func:`warn_held` (once, beside its own)."""
    global _HELD
    saved, _HELD = _HELD, []
    try:
        yield _HELD
    finally:
        _HELD = saved


def warn_held(held: list[tuple[str, int | None, str]]) -> None:
    """Report failures collected by :func:`held_warnings` (elsewhere) with :func:`warn_unwritable`."""
    for folder, number, reason in held:
        warn_unwritable(folder, OSError(number, reason))


def directory() -> Path:
    """Return the result cache's directory (not created here): :func:`user_cache`
    ``checks``, beside the proof cache's ``proofs``."""
    return user_cache("checks")


def package_directories() -> dict[str, list[Path]]:
    """Return the directories of each package of :data:`PACKAGES`, as the import system finds them.

    In a regular installation they are nested under ``site-packages/attnio``; in an
    editable one setuptools maps each package to its own directory of the checkout.

    Raises
    ------
    ModuleNotFoundError
        If a package of :data:`PACKAGES` is not installed.
    """
    found = {}
    for name in PACKAGES:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            raise ModuleNotFoundError(f"attnio's package {name!r} is not installed", name=name)
        found[name] = [Path(location) for location in spec.submodule_search_locations]
    return found


def package_files() -> list[tuple[str, Path]]:
    """Return ``(label, path)`` of every file of every package, sorted by label.

    The label is the package's name and the file's path inside its directory
    (``attnio.bounds:catalog.toml``). A file under two packages' directories (nested
    packages of a regular installation) is listed once, under the first label.
    """
    seen: dict[Path, str] = {}
    for package, roots in package_directories().items():
        for root in roots:
            for folder, subfolders, names in os.walk(root):
                subfolders[:] = sorted(s for s in subfolders if s not in _SKIPPED)
                for name in sorted(names):
                    path = Path(folder, name)
                    label = f"{package}:{path.relative_to(root).as_posix()}"
                    seen.setdefault(path.resolve(), label)
    return sorted(((label, path) for path, label in seen.items()), key=lambda item: item[0])


def _distributions() -> list[str]:
    """``name version`` of every installed distribution the interpreter sees, sorted."""
    found = set()
    for distribution in importlib.metadata.distributions():
        name = distribution.metadata["Name"] or ""
        found.add(f"{name.lower()} {distribution.version}")
    return sorted(found)


def fingerprint() -> str:
    """Return the SHA-256 digest of everything but the check and the tier that enters a key.

    Computed anew on each call (a tenth of a second): a long-lived process sees an
    edited file.

    Examples
    --------
    >>> len(fingerprint())
    64
    """
    digest = hashlib.sha256()

    def add(text: str) -> None:
        digest.update(text.encode("utf-8"))
        digest.update(b"\0")

    add(f"format {FORMAT}")
    add(f"python {sys.implementation.name} {sys.version}")
    add(f"platform {sys.platform} {platform.machine()}")
    for line in _distributions():
        add(f"distribution {line}")
    for name in sorted(os.environ):
        if name.startswith(ENVIRONMENT_PREFIXES):
            add(f"environment {name}={os.environ[name]}")
    for label, path in package_files():
        add(f"file {label}")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


def key(check: str, thorough: bool, inputs: str) -> str:
    """Return the cache key of the check named ``check`` in its tier.

    Parameters
    ----------
    check : str
        The check's name as ``attnio verify`` prints it (``pebble.vertex_counts``).
    thorough : bool
        The tier: ``attnio verify --thorough`` or the default one.
    inputs : str
        :func:`fingerprint` of this run.

    Examples
    --------
    >>> key("bounds.crossovers", False, "0" * 64) == key("bounds.crossovers", True, "0" * 64)
    False
    """
    digest = hashlib.sha256()
    for part in (f"format {FORMAT}", inputs, "thorough" if thorough else "default", check):
        digest.update(part.encode("utf-8"))
        digest.update(b"\0")
    return digest.hexdigest()


class CheckCache:
    """Results of passed and skipped checks on disk, one JSON file per :func:`key`.

    Parameters
    ----------
    root : str or Path or None
        The directory; :func:`directory` when None.
    thorough : bool
        The tier of this run, part of every key.

    Attributes
    ----------
    inputs : str
        :func:`fingerprint` at construction: the package files, interpreter and
        distributions this run's results are stored under.
    hits : int
        Results read back so far.

    Examples
    --------
    >>> import tempfile
    >>> cache = CheckCache(tempfile.mkdtemp())
    >>> cache.load("demo.check") is None
    True
    >>> cache.store("demo.check", True, "3 things agree", 0.5)
    True
    >>> cache.load("demo.check")
    (True, '3 things agree')
    >>> cache.store("demo.failing", False, "1 thing differs", 0.5)
    False
    """

    def __init__(self, root: str | Path | None = None, thorough: bool = False) -> None:
        self.root = Path(root) if root is not None else directory()
        self.thorough = bool(thorough)
        self.inputs = fingerprint()
        self.hits = 0

    def path(self, check: str) -> Path:
        """Return the file that holds (or would hold) the result of ``check``."""
        digest = key(check, self.thorough, self.inputs)
        return self.root / digest[:2] / f"{digest}.json"

    def load(self, check: str) -> tuple[bool | None, str] | None:
        """Return the stored ``(passed, detail)`` of ``check``, or None on a miss.

        An entry that does not parse, names another check or key, or holds a failure
        is a miss (and is removed).
        """
        path = self.path(check)
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
            valid = (
                entry["format"] == FORMAT
                and entry["check"] == check
                and entry["key"] == path.stem
                and (entry["passed"] is True or entry["passed"] is None)
                and isinstance(entry["detail"], str)
            )
        except FileNotFoundError:
            return None
        except (OSError, ValueError, TypeError, KeyError):
            valid = False
        if not valid:
            with contextlib.suppress(OSError):
                path.unlink(missing_ok=True)
            return None
        self.hits += 1
        return entry["passed"], entry["detail"]

    def store(self, check: str, passed: bool | None, detail: str, seconds: float) -> bool:
        """Store a passed or skipped result of ``check``; return whether it was stored.

        A failure (``passed`` False) is never stored. A directory that cannot be
        written is not an error: the result is simply not stored
        (:func:`warn_unwritable` says so once).
        """
        if passed is not True and passed is not None:
            return False
        path = self.path(check)
        entry = {
            "format": FORMAT,
            "key": path.stem,
            "check": check,
            "thorough": self.thorough,
            "passed": passed,
            "detail": str(detail),
            "seconds": round(float(seconds), 3),
            "stored": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        }
        return write_entry(path, entry, self.root)

    def clear(self) -> int:
        """Remove every stored result (of every tier and key); return how many were removed."""
        return clear(self.root)


def write_entry(path: Path, entry: dict, root: str | Path | None = None) -> bool:
    """Write ``entry`` as JSON to ``path`` at once (a temporary file, then a rename), so a
    reader never sees half an entry; return False, leaving nothing behind, where it cannot
    be written (a full disk or quota, a read-only directory: a cache that cannot store is
    not an error, and :func:`warn_unwritable` says so once for the cache's directory
    ``root``, ``path``'s parent when None). Shared with the proof cache
    (:mod:`attnio.proofs.cache`)."""
    temporary = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(
            "w", dir=path.parent, suffix=".tmp", delete=False, encoding="utf-8"
        ) as handle:
            temporary = handle.name
            json.dump(entry, handle)
        os.replace(temporary, path)
    except OSError as error:
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
        warn_unwritable(path.parent if root is None else root, error)
        return False
    return True


def clear(root: str | Path | None = None) -> int:
    """Remove the cache at ``root`` (the result cache's :func:`directory` when None); return
    how many entries (JSON files) it held. The proof cache clears itself with it too.

    Needs no :func:`fingerprint`: every entry goes, whatever it was stored under.
    """
    root = Path(root) if root is not None else directory()
    if not root.is_dir():
        return 0
    removed = sum(1 for _ in root.rglob("*.json"))
    shutil.rmtree(root)
    return removed


__all__ = [
    "ENVIRONMENT_PREFIXES",
    "FORMAT",
    "PACKAGES",
    "CheckCache",
    "clear",
    "directory",
    "fingerprint",
    "held_warnings",
    "key",
    "package_directories",
    "package_files",
    "user_cache",
    "warn_held",
    "warn_unwritable",
    "write_entry",
]
