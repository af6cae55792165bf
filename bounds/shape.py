"""The shape of an attention call: query rows, key rows, query heads, key/value heads.

One check, shared by the graphs (:mod:`attnio.pebble.shapes`), the algorithms
(:mod:`attnio.algorithms.shapes`) and the command line, so that a shape that does not
fit is refused with the same words everywhere.
"""

from __future__ import annotations

from .arguments import positive_integer

SHAPE_NAMES = ("n_q", "n_kv", "heads_q", "heads_kv")
"""The four sizes of a shape, in order, as the claims format and the command line name them."""


def check_shape(
    n_q: object,
    n_kv: object,
    heads_q: object,
    heads_kv: object,
    error: type[Exception] = ValueError,
) -> tuple[int, int, int, int]:
    """Return the shape as four positive integers, heads_q a multiple of heads_kv.

    Raises
    ------
    error
        A size is not a positive integer (the message names it and its value), or
        ``heads_q`` is not a multiple of ``heads_kv``.

    Examples
    --------
    >>> check_shape(1, 65536, 32, 8)
    (1, 65536, 32, 8)
    """
    values = tuple(
        positive_integer(name, value, error)
        for name, value in zip(SHAPE_NAMES, (n_q, n_kv, heads_q, heads_kv), strict=True)
    )
    if values[2] % values[3]:
        raise error(
            f"heads_q={values[2]} must be a multiple of heads_kv={values[3]}: the query "
            "heads are split into groups that share one K and V head"
        )
    return values  # type: ignore[return-value]
