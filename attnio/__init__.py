"""attnio: formal bound verification for the I/O complexity of attention.

The front door: the command line (:mod:`attnio.cli`) and re-exports of the
public API of :mod:`attnio.bounds`, :mod:`attnio.pebble`,
:mod:`attnio.algorithms` and :mod:`attnio.proofs`, and :func:`attnio.check`
(:func:`attnio.claims.check`, loaded on first use). No logic lives here.
"""

from attnio.bounds import Bound, catalog, crossover, get, render

__version__ = "0.1.0"

__all__ = ["Bound", "__version__", "catalog", "check", "crossover", "get", "render"]


def __getattr__(name: str) -> object:
    # attnio.check (attnio.claims.check) pulls in z3, numba and the algorithms: load it
    # only when asked for, so that ``import attnio`` stays cheap.
    if name == "check":
        from attnio.claims import check

        return check
    raise AttributeError(f"module 'attnio' has no attribute {name!r}")
