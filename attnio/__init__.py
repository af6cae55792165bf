"""attnio: formal bound verification for the I/O complexity of attention.

The front door: the command line (:mod:`attnio.cli`) and re-exports of the
public API of :mod:`attnio.bounds`, :mod:`attnio.pebble`,
:mod:`attnio.algorithms` and :mod:`attnio.proofs`. No logic lives here.
"""

from attnio.bounds import Bound, catalog, crossover, get, render

__version__ = "0.1.0"

__all__ = ["Bound", "__version__", "catalog", "crossover", "explore", "get", "render"]


def __getattr__(name: str) -> object:
    # attnio.explore is imported on first use: the explorer is not needed by the
    # other commands, and its widget needs the optional notebook extra.
    if name == "explore":
        from attnio.explorer import explore

        return explore
    raise AttributeError(f"module 'attnio' has no attribute {name!r}")
