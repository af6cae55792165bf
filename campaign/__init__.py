"""Campaigns: many pebbling and simulation runs, a result store, Dask execution.

``attnio.campaign`` owns campaign specs, the SQLite result store and the
execution on Dask. It reads the core packages; none of them imports it.
"""

__all__: list[str] = []
