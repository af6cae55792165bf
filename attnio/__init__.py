"""attnio: formal bound verification for the I/O complexity of attention.

The front door: the command line (:mod:`attnio.cli`) and re-exports of the
public API of :mod:`attnio.bounds`, :mod:`attnio.pebble`,
:mod:`attnio.algorithms` and :mod:`attnio.proofs`. No logic lives here.
"""

from attnio.bounds import Bound, catalog, crossover, get, render

__version__ = "0.1.0"

__all__ = ["Bound", "__version__", "catalog", "crossover", "get", "render"]
