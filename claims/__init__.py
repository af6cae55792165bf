"""User claims checked against everything attnio knows (``attnio check``).

``attnio.claims`` owns reading a user's bounds (TOML or :class:`attnio.bounds.Bound`)
and running the catalog's z3 obligations, the exact and heuristic pebblings and the
machine counts against them. It composes the core packages (bounds, pebble,
algorithms, proofs); none of them imports it.
"""

__all__: list[str] = []
