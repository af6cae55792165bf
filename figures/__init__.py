"""Publication figures: I/O against M for algorithms, pebblings and bounds.

``attnio.figures`` owns the plots. It reads the core packages; none of them imports it.
"""

__all__: list[str] = []
