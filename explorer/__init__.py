"""Interactive exploration of small instances (``attnio explore``, notebook widget).

``attnio.explorer`` owns the front end (shipped as package data, no network), the
local server and the notebook widget. It reads the core packages; none of them
imports it.
"""

__all__: list[str] = []
