"""User claims checked against everything attnio knows (``attnio check``).

``attnio.claims`` owns reading a user's bounds (TOML or :class:`attnio.bounds.Bound`)
and running the catalog's z3 obligations, the exact and heuristic pebblings and the
machine counts against them. It composes the core packages (bounds, pebble,
algorithms, proofs); none of them imports it.

>>> from attnio.claims import parse_claims, check
>>> claims = parse_claims('''
... [[bound]]
... name = "five-nd"
... kind = "lower"
... regime = "dense"
... pass = "forward"
... expression = "5*n*d"
... ''')
>>> check(claims, skip=("pebbling", "counting"))[0].verdict
'refuted'

The verdicts (``refuted``, ``proved``, ``implied-by-catalog``, ``consistent-with-catalog``,
``consistent``, ``unknown``)
are described in :mod:`attnio.claims.verdict`, what each kind of claim asserts in
:mod:`attnio.claims.claim`.
"""

from .catalog_check import check_catalog
from .check import CHECKS, check
from .claim import Claim
from .errors import ClaimError, ClaimFileError
from .reader import parse_claim_text, parse_claims, read_claims
from .verdict import VERDICTS, ClaimReport, Evidence

__all__ = [
    "CHECKS",
    "VERDICTS",
    "Claim",
    "ClaimError",
    "ClaimFileError",
    "ClaimReport",
    "Evidence",
    "check",
    "check_catalog",
    "parse_claim_text",
    "parse_claims",
    "read_claims",
]
