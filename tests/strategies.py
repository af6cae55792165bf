"""Shared hypothesis strategies: they live in :mod:`attnio.testing.strategies` (public)."""

from attnio.testing.strategies import *  # noqa: F403
from attnio.testing.strategies import (  # noqa: F401 (names the star import leaves out)
    _M,
    _d,
    _n,
    _proof_extend,
    _proof_leaves,
)
