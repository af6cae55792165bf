"""The algorithms by name: what runs each pass and which catalog record holds its exact count.

Names match the ``algorithm`` field of the count records of
:mod:`attnio.bounds.counts`; that field is the one link from an algorithm to its
counts, and :attr:`Algorithm.counts` reads it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from attnio.bounds.counts import COUNTS
from attnio.bounds.record import Regime

from . import (
    approximate,
    flash,
    interval_masks,
    shapes,
    sparse,
    standard,
    stationary,
    streaming,
    tiling,
)
from .errors import UnknownAlgorithmError

PASSES = ("forward", "backward")


@dataclass(frozen=True)
class Algorithm:
    """One algorithm: its runners and count records per pass, and what input it needs.

    Attributes
    ----------
    name : str
        Short name, as in the catalog's ``algorithm`` field.
    runners : dict
        Pass name -> function ``(machine, n, d, **options)``.
    counts : dict
        Pass name -> name of the catalog record holding its exact count: the
        count records whose ``algorithm`` field is ``name``.
    regime : Regime
        Dense, sparse or approximate: the regime of its count records.
    block_shape : callable or None
        For block-sparse algorithms, ``(pass, d, M) -> (rows, cols)`` of a mask block.
    mask_family : str or None
        For algorithms of one mask family (:data:`attnio.bounds.masks.FAMILIES`), its
        name: they run that family's masks, built from indices, and take its parameters.
    shapes : bool
        Whether its runners take ``shape=(n_q, n_kv, heads_q, heads_kv)`` and its count
        records are written in n_q, n_kv, h_q, h_kv (:mod:`attnio.algorithms.shapes`).
    source : str
        Paper algorithm it implements.
    """

    name: str
    runners: dict[str, Callable]
    source: str
    block_shape: Callable[[str, int, int], tuple[int, int]] | None = field(default=None)
    mask_family: str | None = None
    shapes: bool = False

    @property
    def regime(self) -> Regime:
        """The regime of the algorithm's count records (one for every pass)."""
        (regime,) = {record.regime for record in COUNTS if record.algorithm == self.name}
        return regime

    @property
    def counts(self) -> dict[str, str]:
        """Pass name -> name of the count record of that pass (read from the records)."""
        return {
            record.pass_.value: record.name for record in COUNTS if record.algorithm == self.name
        }


ALGORITHMS: dict[str, Algorithm] = {
    algo.name: algo
    for algo in (
        Algorithm(
            "standard",
            {"forward": standard.standard_forward, "backward": standard.standard_backward},
            "DFE22 Alg. 0 and 3",
        ),
        Algorithm(
            "flash",
            {"forward": flash.flash_forward, "backward": flash.flash_backward},
            "DFE22 Alg. 1 and 4",
        ),
        Algorithm(
            "flash2",
            {"forward": flash.flash2_forward, "backward": flash.flash2_backward},
            "D23 Alg. 1 and 2",
        ),
        Algorithm(
            "row-streaming",
            {
                "forward": streaming.row_streaming_forward,
                "backward": streaming.row_streaming_backward,
            },
            "attnio's own: proofs/derivations/lower-sharp.md",
        ),
        Algorithm(
            "score-panel",
            {"forward": standard.score_panel_forward},
            "attnio's own: S written and read once by panels of query rows",
        ),
        Algorithm(
            "two-sweep",
            {"backward": streaming.two_sweep_backward},
            "attnio's own: row streaming's key sweep for dK, dV, then a query sweep for dQ",
        ),
        Algorithm(
            "square-tiling",
            {"forward": tiling.square_tiling_forward},
            "SY24 Alg. 1",
        ),
        Algorithm(
            "output-stationary",
            {
                "forward": stationary.output_stationary_forward,
                "backward": stationary.output_stationary_backward,
            },
            "attnio's own: every product output-stationary, algorithms/stationary.py",
        ),
        Algorithm(
            "tiled-backward",
            {"backward": tiling.tiled_backward},
            "attnio's small-cache backward (stand-in for LLSSZ24 Alg. 6)",
        ),
        Algorithm(
            "block-sparse-flash",
            {
                "forward": sparse.block_sparse_flash_forward,
                "backward": sparse.block_sparse_flash_backward,
            },
            "DFE22 Prop 4",
            sparse.flash_block_shape,
        ),
        Algorithm(
            "sparse-square-tiling",
            {
                "forward": sparse.sparse_square_tiling_forward,
                "backward": sparse.sparse_tiled_backward,
            },
            "SY24 Alg. 1 with empty tiles skipped",
            sparse.tile_block_shape,
        ),
        Algorithm(
            "causal-row-streaming",
            {
                "forward": interval_masks.masked_row_streaming_forward,
                "backward": interval_masks.masked_row_streaming_backward,
            },
            "attnio's own: row streaming restricted to the causal mask",
            mask_family="causal",
        ),
        Algorithm(
            "causal-flash2",
            {
                "forward": interval_masks.masked_flash2_forward,
                "backward": interval_masks.masked_flash2_backward,
            },
            "D23 Alg. 1 and 2 with the blocks above the diagonal skipped",
            mask_family="causal",
        ),
        Algorithm(
            "window-row-streaming",
            {
                "forward": interval_masks.masked_row_streaming_forward,
                "backward": interval_masks.masked_row_streaming_backward,
            },
            "attnio's own: row streaming restricted to a sliding window",
            mask_family="window",
        ),
        Algorithm(
            "window-sliding",
            {
                "forward": interval_masks.sliding_forward,
                "backward": interval_masks.sliding_backward,
            },
            "attnio's own: the window's rows resident as it slides",
            mask_family="window",
        ),
        Algorithm(
            "band-sliding",
            {
                "forward": interval_masks.sliding_forward,
                "backward": interval_masks.sliding_backward,
            },
            "attnio's own: the band's rows resident as it slides",
            mask_family="band",
        ),
        Algorithm(
            "gqa-row-streaming",
            {
                "forward": shapes.gqa_row_streaming_forward,
                "backward": shapes.gqa_row_streaming_backward,
            },
            "attnio's own: row streaming for n_q x n_kv and grouped-query heads",
            shapes=True,
        ),
        Algorithm(
            "split-kv-decode",
            {
                "forward": shapes.split_kv_decode_forward,
                "backward": shapes.split_kv_decode_backward,
            },
            "attnio's own, after FlashDecoding's split of the KV sequence",
            shapes=True,
        ),
        Algorithm(
            "gqa-output-stationary",
            {
                "forward": shapes.gqa_output_stationary_forward,
                "backward": shapes.gqa_output_stationary_backward,
            },
            "attnio's own: output-stationary tiling for n_q x n_kv and grouped-query heads",
            shapes=True,
        ),
        Algorithm(
            "gqa-flash2",
            {"forward": shapes.gqa_flash2_forward, "backward": shapes.gqa_flash2_backward},
            "D23 Alg. 1 and 2 on each key/value head's group of stacked query rows",
            shapes=True,
        ),
        Algorithm(
            "gqa-flash",
            {"forward": shapes.gqa_flash_forward, "backward": shapes.gqa_flash_backward},
            "DFE22 Alg. 1 and 4 on each key/value head's keys and group of stacked query rows",
            shapes=True,
        ),
        Algorithm(
            "gqa-two-sweep",
            {"backward": shapes.gqa_two_sweep_backward},
            "attnio's own: the two-sweep backward on each key/value head's group of stacked "
            "query rows",
            shapes=True,
        ),
        Algorithm(
            "gqa-score-panel",
            {"forward": shapes.gqa_score_panel_forward},
            "attnio's own: the score-panel forward on each key/value head's group of stacked "
            "query rows",
            shapes=True,
        ),
        Algorithm(
            "low-rank",
            {"forward": approximate.low_rank_forward, "backward": approximate.low_rank_backward},
            "polynomial method (AS23), docs/results.md#approximate",
        ),
        Algorithm(
            "low-rank-columns",
            {
                "forward": approximate.column_blocked_forward,
                "backward": approximate.column_blocked_backward,
            },
            "polynomial method (AS23); attnio's own column-blocked schedule, W never stored",
        ),
    )
}
"""Every algorithm, by name."""


def get_algorithm(name: str) -> Algorithm:
    """Return the algorithm called ``name``.

    Raises
    ------
    UnknownAlgorithmError
        If there is none; the message lists the valid names.

    Examples
    --------
    >>> get_algorithm("flash").counts["forward"]
    'flash-forward-count'
    """
    try:
        return ALGORITHMS[name]
    except KeyError:
        raise UnknownAlgorithmError(
            f"algorithm={name!r} is not one of: {', '.join(ALGORITHMS)}"
        ) from None
