"""Attention algorithms on a two-level memory machine that counts every word moved.

``attnio.algorithms`` may read :mod:`attnio.bounds`; it must not import
``attnio.pebble`` or ``attnio.proofs``.
"""
