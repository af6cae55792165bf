"""Tests of attnio.bounds.labels: every record has a reader's label."""

from __future__ import annotations

import dataclasses

import pytest

from attnio.bounds import UnknownBoundError, catalog, get
from attnio.bounds.labels import label


def test_every_record_has_a_label_that_is_not_its_name() -> None:
    """Each catalog record has a non-empty label, and no label is an internal record name."""
    names = {b.name for b in catalog()}
    for bound in catalog():
        assert label(bound).strip() and label(bound) not in names


def test_labels_are_unique_within_a_regime_and_pass() -> None:
    """Two records of one (regime, pass) never share a label, so a legend is unambiguous."""
    seen: dict[tuple, str] = {}
    for bound in catalog():
        key = (bound.regime, bound.pass_, label(bound))
        assert key not in seen, (bound.name, seen.get(key))
        seen[key] = bound.name


def test_missing_label_raises() -> None:
    """A record without a label raises UnknownBoundError naming the field to add."""
    bound = dataclasses.replace(get("dense-forward-tight"), label="")
    with pytest.raises(UnknownBoundError, match="'label' field"):
        label(bound)
