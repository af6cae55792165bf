"""z3 proofs of the inequalities between the catalog's bounds.

``attnio.proofs`` reads :mod:`attnio.bounds`; it must not import
``attnio.pebble`` or ``attnio.algorithms``.
"""
