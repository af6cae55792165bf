"""Shared hypothesis strategies: they live in :mod:`attnio.testing.strategies` (public).

Only the test-run configuration below stays here.
"""

import os

from attnio.testing.strategies import *  # noqa: F403
from attnio.testing.strategies import (  # noqa: F401 (names the star import leaves out)
    _M,
    _d,
    _n,
    _proof_extend,
    _proof_leaves,
)

# ---------------------------------------------------------------- kernels as plain Python
JIT_DISABLED = os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0")
"""Whether numba runs the kernels as plain Python (``NUMBA_DISABLE_JIT=1``)."""


FAST_TIER_SHARE = 4
"""The fast tier (``pytest -m "not slow"``) runs a quarter of each property's examples."""


def examples(count: int) -> int:
    """Return ``count`` hypothesis examples, or a quarter of them (at least 5) in the fast tier.

    ``tests/conftest.py`` sets ``ATTNIO_FAST_TIER`` when pytest runs with ``-m "not slow"``;
    the full suite (CI) runs every property with its whole ``count``.
    """
    if os.environ.get("ATTNIO_FAST_TIER") == "1":
        return max(5, count // FAST_TIER_SHARE)
    return count


def oracle_examples(count: int) -> int:
    """Return ``count`` hypothesis examples, or a few when the kernels run as plain Python.

    The kernel-versus-reference oracle tests (marker ``kernel_oracle``) run a second time
    under ``NUMBA_DISABLE_JIT=1`` (tests/test_kernels_nojit.py), where each example is
    slow; a few examples there exercise every Python path of the kernels.
    """
    return min(count, 10) if JIT_DISABLED else examples(count)
