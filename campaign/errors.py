"""Errors of :mod:`attnio.campaign`; each names the argument, its value and what is valid."""

from __future__ import annotations

__all__ = ["CampaignError", "SpecError", "StoreError"]


class CampaignError(ValueError):
    """Base class of every campaign error."""


class SpecError(CampaignError):
    """A campaign spec is malformed: the message names the file, the table and the field."""


class StoreError(CampaignError):
    """A result store cannot be opened, is not attnio's, or holds a result that fails replay."""
