"""attnio: formal bound verification for the I/O complexity of attention.

The front door: the command line (:mod:`attnio.cli`) and re-exports of the
public API of :mod:`attnio.bounds` and :func:`attnio.check`
(:func:`attnio.claims.check`), loaded on first use so that ``import attnio`` (and
``attnio --version``) stays fast. No logic lives here.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_EXPORTS = {
    "Bound": "attnio.bounds",
    "catalog": "attnio.bounds",
    "crossover": "attnio.bounds",
    "get": "attnio.bounds",
    "render": "attnio.bounds",
    "check": "attnio.claims",
}

__all__ = ["Bound", "__version__", "catalog", "check", "crossover", "get", "render"]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'attnio' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
