"""numba kernels of the pattern databases (private; the driver is :mod:`.patterns`).

A pattern is a set ``P`` of at most ``MAX_PATTERN`` vertices of the DAG, listed
in increasing vertex order; local vertex ``j`` is the ``j``-th of them. An abstract
state is ``(R, B)``: the red local vertices (at most ``M``) and the blue local
non-inputs (inputs of the DAG are always blue). It is stored at index
``rank(R) * 2**b + blue_bits(B)``, where ``b`` is the number of non-inputs in ``P``,
``blue_bits`` packs their blue flags in local order and ``rank`` orders red sets by
size, then by the combinatorial number system (``sum_i C(p_i, i)`` over the sorted
positions ``p_1 < p_2 < ...`` of a set of size ``k``, plus the number of smaller sets).

The kernels take flat arrays:

- ``pred`` (a,) int64: local predecessor bit set of each pattern vertex (predecessors
  outside the pattern are dropped: the abstract game treats them as always red);
- ``is_input`` (a,) int64: 1 for the DAG's inputs;
- ``weight`` (a,) int64: 0 or 1, the cost the pattern charges for one load or store
  of the vertex (a cost partition, see :mod:`.patterns`);
- ``goal`` int64: local bit set of the outputs in ``P`` (they must end blue);
- ``binom`` (64, 64) int64: binomial coefficients ``binom[x, y] = C(x, y)``.
"""

from __future__ import annotations

import numpy as np

from ._jit import njit

UNSET = 1 << 30
"""Distance of an abstract state not yet reached (never left in a finished table)."""


@njit(cache=True)
def binomials(size):
    """Return the (size, size) table of binomial coefficients C(x, y)."""
    out = np.zeros((size, size), dtype=np.int64)
    for x in range(size):
        out[x, 0] = 1
        for y in range(1, x + 1):
            out[x, y] = out[x - 1, y - 1] + out[x - 1, y]
    return out


@njit(cache=True)
def red_offsets(a, M, binom):
    """``offsets[k]`` = number of local red sets smaller than ``k``, for k = 0..min(a, M) + 1."""
    top = min(a, M)
    out = np.zeros(top + 2, dtype=np.int64)
    for k in range(top + 1):
        out[k + 1] = out[k] + binom[a, k]
    return out


@njit(cache=True)
def rank_of(mask, a, offsets, binom):
    """Rank of the local red set ``mask`` (its size must be at most M)."""
    count = 0
    rank = 0
    for j in range(a):
        if (mask >> j) & 1:
            count += 1
            rank += binom[j, count]
    return offsets[count] + rank


@njit(cache=True)
def build_table(pred, is_input, weight, goal, M, binom):
    """Return the optimal abstract cost to the goal from every abstract state.

    The abstract game is the standard red-blue game on the pattern (docs/game.md:
    load and store cost ``weight``, compute and delete 0, at most ``M``
    red), with predecessors outside the pattern always available. The table is
    filled by a 0-1 breadth-first search backwards from the goal states (every
    state whose blue set contains ``goal``), over the reversed moves:

    - ``(R, B)`` with ``j`` red and blue (or an input) comes from ``(R - j, B)`` by a
      load of ``j``;
    - ``(R, B)`` with ``j`` red, a non-input whose local predecessors are in
      ``R - j``, comes from ``(R - j, B)`` by a compute;
    - ``(R, B)`` with ``j`` red and blue, a non-input, comes from ``(R, B - j)`` by a
      store;
    - ``(R, B)`` with ``j`` not red and ``|R| < M`` comes from ``(R + j, B)`` by a
      delete.

    Every state reaches the goal (compute everything from the inputs), so every
    entry ends finite.
    """
    a = pred.size
    b = 0
    blue_pos = np.full(a, -1, dtype=np.int64)
    for j in range(a):
        if is_input[j] == 0:
            blue_pos[j] = b
            b += 1
    offsets = red_offsets(a, M, binom)
    n_red = offsets[min(a, M) + 1]
    subsets = np.empty(n_red, dtype=np.int64)
    for mask in range(1 << a):
        count = 0
        x = mask
        while x:
            x &= x - 1
            count += 1
        if count <= M:
            subsets[rank_of(mask, a, offsets, binom)] = mask
    # the rank of each red set with one local vertex toggled (-1: more than M red)
    toggled = np.full((n_red, a), -1, dtype=np.int64)
    for r in range(n_red):
        red = subsets[r]
        count = 0
        x = red
        while x:
            x &= x - 1
            count += 1
        for j in range(a):
            if (red >> j) & 1 or count < M:
                toggled[r, j] = rank_of(red ^ (np.int64(1) << j), a, offsets, binom)
    blues = np.int64(1) << b
    size = n_red * blues
    dist = np.full(size, UNSET, dtype=np.int64)
    goal_blue = np.int64(0)
    for j in range(a):
        if (goal >> j) & 1:
            goal_blue |= np.int64(1) << blue_pos[j]
    current = np.empty(size, dtype=np.int64)
    following = np.empty(size, dtype=np.int64)
    n_current = 0
    for r in range(n_red):
        for bb in range(blues):
            if (bb & goal_blue) == goal_blue:
                s = r * blues + bb
                dist[s] = 0
                current[n_current] = s
                n_current += 1
    level = 0
    while n_current > 0:
        n_following = 0
        while n_current > 0:
            n_current -= 1
            s = current[n_current]
            if dist[s] != level:
                continue
            r, bb = divmod(s, blues)
            red = subsets[r]
            for j in range(a):
                bit = np.int64(1) << j
                if red & bit:
                    blue_j = is_input[j] != 0 or ((bb >> blue_pos[j]) & 1) != 0
                    # load of j (cost weight) or compute of j (cost 0) from red - j
                    cost = UNSET
                    if blue_j:
                        cost = weight[j]
                    if is_input[j] == 0 and (pred[j] & ~(red & ~bit)) == 0:
                        cost = 0
                    if cost != UNSET:
                        t = toggled[r, j] * blues + bb
                        new = level + cost
                        if new < dist[t]:
                            dist[t] = new
                            if cost == 0:
                                current[n_current] = t
                                n_current += 1
                            else:
                                following[n_following] = t
                                n_following += 1
                    # store of j from the state where j is not blue
                    if is_input[j] == 0 and blue_j:
                        t = s - (np.int64(1) << blue_pos[j])
                        new = level + weight[j]
                        if new < dist[t]:
                            dist[t] = new
                            if weight[j] == 0:
                                current[n_current] = t
                                n_current += 1
                            else:
                                following[n_following] = t
                                n_following += 1
                elif toggled[r, j] >= 0:
                    # delete of j from red + j
                    t = toggled[r, j] * blues + bb
                    if level < dist[t]:
                        dist[t] = level
                        current[n_current] = t
                        n_current += 1
        current, following = following, current
        n_current = n_following
        level += 1
    return dist
