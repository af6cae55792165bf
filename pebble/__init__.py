"""The red-blue pebble game: attention DAGs, a move replayer, heuristic and exact pebbling.

``attnio.pebble`` may read :mod:`attnio.bounds`; it must not import
``attnio.algorithms`` or ``attnio.proofs``.
"""
