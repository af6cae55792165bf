"""Public hypothesis strategies and assertion helpers for users' own property tests.

``attnio.testing`` owns the strategies attnio's own tests use (parameter points,
DAGs, masks, move sequences) and assertions that raise with a readable
counterexample. It reads the core packages; none of them imports it.

Example (a complete pytest file)::

    from hypothesis import given, settings
    from attnio.bounds import Bound
    from attnio.bounds.symbols import M, d, n
    from attnio.testing import assert_lower_bound, attention_dags

    MINE = Bound(name="mine", kind="lower", regime="dense", pass_="forward", cache="any",
                 asymptotic=None, explicit=4 * n * d, conditions=None, source="draft",
                 status="claimed")

    @settings(max_examples=20, deadline=None)
    @given(attention_dags(kinds=("attention-forward",), max_n=2, max_d=2))
    def test_mine_is_below_every_pebbling(instance):
        assert_lower_bound(MINE, instance, instance.dag.min_memory + 1)
"""

from .assertions import LowerBoundExceededError, assert_lower_bound, assert_upper_bound
from .strategies import (
    DagInstance,
    attention_dags,
    block_masks,
    connected_dags,
    dag_and_memory,
    dags,
    edge_lists,
    masks,
    move_sequences,
    parameter_points,
    pebbling_instances,
    points,
    problem_sizes,
    records,
    restrict,
    tile_mask_point,
    tile_masks,
    topological_orders,
    variants,
)

__all__ = [
    "DagInstance",
    "LowerBoundExceededError",
    "assert_lower_bound",
    "assert_upper_bound",
    "attention_dags",
    "block_masks",
    "connected_dags",
    "dag_and_memory",
    "dags",
    "edge_lists",
    "masks",
    "move_sequences",
    "parameter_points",
    "pebbling_instances",
    "points",
    "problem_sizes",
    "records",
    "restrict",
    "tile_mask_point",
    "tile_masks",
    "topological_orders",
    "variants",
]
