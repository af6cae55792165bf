"""Public hypothesis strategies and assertion helpers for users' own property tests.

``attnio.testing`` owns the strategies attnio's own tests use (parameter points,
DAGs, masks, move sequences) and assertions that raise with a readable
counterexample. It reads the core packages; none of them imports it.
"""

__all__: list[str] = []
