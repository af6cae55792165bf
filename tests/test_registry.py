"""Tests of the algorithm registry: names, passes and the catalog records they point to."""

from __future__ import annotations

import pytest

from attnio.algorithms import ALGORITHMS, get_algorithm
from attnio.algorithms.errors import UnknownAlgorithmError
from attnio.bounds import get


def test_every_registered_pass_names_a_catalog_count():
    """Each algorithm's count record exists and names that algorithm and pass."""
    for name, algo in ALGORITHMS.items():
        for pass_, record in algo.counts.items():
            bound = get(record)
            assert bound.algorithm == name and bound.pass_.value == pass_
            assert bound.regime.value == algo.regime


def test_unknown_name_lists_valid_names():
    """get_algorithm refuses an unknown name and lists every valid one."""
    with pytest.raises(UnknownAlgorithmError, match="low-rank"):
        get_algorithm("fast")


def test_runners_and_count_records_cover_the_same_passes():
    """An algorithm runs exactly the passes that have a count record naming it."""
    for algo in ALGORITHMS.values():
        assert set(algo.runners) == set(algo.counts), algo.name
