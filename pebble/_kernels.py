"""numba kernels of the heuristic pebbler. Flat arrays in, numbers and status codes out.

The driver (:mod:`attnio.pebble.player`) validates every argument; the slow,
obviously correct twin of :func:`play_order` is
:func:`attnio.pebble.reference.play_order`, and the tests require identical
move sequences from both.
"""

from __future__ import annotations

import numpy as np

from ._jit import njit
from .moves import COMPUTE, DELETE, LOAD, STORE  # op codes, read by the kernels as constants

OK = 0
MOVE_BUFFER_FULL = 1
NO_VICTIM = 2
MISSING_VALUE = 3

BELADY = 0
LRU = 1


@njit(cache=True, nogil=True)
def _sift_up(keys, verts, vers, pos):
    while pos > 0:
        parent = (pos - 1) >> 1
        if keys[parent] >= keys[pos]:
            break
        keys[parent], keys[pos] = keys[pos], keys[parent]
        verts[parent], verts[pos] = verts[pos], verts[parent]
        vers[parent], vers[pos] = vers[pos], vers[parent]
        pos = parent


@njit(cache=True, nogil=True)
def _sift_down(keys, verts, vers, size):
    pos = 0
    while True:
        left = 2 * pos + 1
        if left >= size:
            break
        best = left
        if left + 1 < size and keys[left + 1] > keys[left]:
            best = left + 1
        if keys[pos] >= keys[best]:
            break
        keys[best], keys[pos] = keys[pos], keys[best]
        verts[best], verts[pos] = verts[pos], verts[best]
        vers[best], vers[pos] = vers[pos], vers[best]
        pos = best


@njit(cache=True, nogil=True)
def _push(keys, verts, vers, size, key, vertex, ver):
    keys[size] = key
    verts[size] = vertex
    vers[size] = ver
    _sift_up(keys, verts, vers, size)
    return size + 1


@njit(cache=True, nogil=True)
def _compact(keys, verts, vers, size, red, version):
    """Drop stale heap entries (one valid entry per red vertex remains); return the new size."""
    count = 0
    for k in range(size):
        w = verts[k]
        if red[w] and version[w] == vers[k]:
            keys[count] = keys[k]
            verts[count] = w
            vers[count] = vers[k]
            _sift_up(keys, verts, vers, count)
            count += 1
    return count


@njit(cache=True, nogil=True)
def _key(policy, vertex, nv, use_ptr, use_pos, consumed, tick):
    if policy == BELADY:
        return use_pos[use_ptr[vertex] + consumed[vertex]] * nv + vertex
    return -tick


@njit(cache=True, nogil=True)
def _pop_victim(keys, verts, vers, size, red, version, pinned, step, aside):
    """Pop the best unpinned red vertex; pinned entries popped on the way go to ``aside``.

    Returns ``(victim or -1, new size, number set aside)``.
    """
    naside = 0
    while size > 0:
        vertex = verts[0]
        ver = vers[0]
        size -= 1
        if size > 0:
            keys_top = keys[size]
            keys[0] = keys_top
            verts[0] = verts[size]
            vers[0] = vers[size]
            _sift_down(keys, verts, vers, size)
        if not red[vertex] or version[vertex] != ver:
            continue
        if pinned[vertex] == step:
            aside[naside] = vertex
            naside += 1
            continue
        return vertex, size, naside
    return -1, size, naside


@njit(cache=True, nogil=True)
def play_order(pred_ptr, pred_idx, order, is_input, is_output, memory, policy, record, moves):
    """Play ``order`` (the non-input vertices, topologically) with ``memory`` red pebbles.

    Before computing ``order[t]`` its predecessors are pinned and the missing
    ones loaded (ascending). When all red pebbles are
    in use, the policy's victim among the unpinned red vertices is evicted:
    stored first if it is not blue (every red value is still needed, dead
    values being deleted at once), then deleted. BELADY evicts the largest
    (next use, vertex), LRU the least recently touched. After the computation,
    predecessors without further use are deleted, and an output is stored and
    deleted. Returns ``(status, loads, stores, computes, moves made)``; with
    ``record`` the moves are written to ``moves`` as ``(op, vertex)`` rows.
    """
    nv = pred_ptr.size - 1
    steps = order.size
    use_ptr = np.zeros(nv + 1, dtype=np.int64)
    for t in range(steps):
        v = order[t]
        for e in range(pred_ptr[v], pred_ptr[v + 1]):
            use_ptr[pred_idx[e] + 1] += 1
    for v in range(nv):
        use_ptr[v + 1] += use_ptr[v]
    fill = use_ptr[:-1].copy()
    use_pos = np.empty(use_ptr[nv], dtype=np.int64)
    for t in range(steps):
        v = order[t]
        for e in range(pred_ptr[v], pred_ptr[v + 1]):
            p = pred_idx[e]
            use_pos[fill[p]] = t
            fill[p] += 1
    consumed = np.zeros(nv, dtype=np.int64)
    red = np.zeros(nv, dtype=np.bool_)
    blue = is_input.copy()
    pinned = np.full(nv, -1, dtype=np.int64)
    version = np.zeros(nv, dtype=np.int64)
    capacity = 4 * memory + 64
    keys = np.empty(capacity, dtype=np.int64)
    verts = np.empty(capacity, dtype=np.int64)
    vers = np.empty(capacity, dtype=np.int64)
    aside = np.empty(memory + 1, dtype=np.int64)
    size = 0
    tick = 0
    reds = 0
    loads = 0
    stores = 0
    computes = 0
    made = 0
    limit = moves.shape[0] if record else 0

    for t in range(steps):
        v = order[t]
        start = pred_ptr[v]
        stop = pred_ptr[v + 1]
        for e in range(start, stop):
            pinned[pred_idx[e]] = t
        # load the missing predecessors; they get heap entries after the computation (a red
        # vertex without a valid entry cannot be chosen, which pins it)
        for e in range(start, stop):
            p = pred_idx[e]
            if red[p]:
                continue
            if not blue[p]:
                return MISSING_VALUE, loads, stores, computes, made
            # Making room (pop a victim, store it if needed, delete it) is written out here and
            # again before the compute below on purpose: one shared njit helper, even with
            # inline="always", cost 25-60% of the moves/s in benchmarks/heuristic.py.
            if reds == memory:
                victim, size, naside = _pop_victim(
                    keys, verts, vers, size, red, version, pinned, t, aside
                )
                for a in range(naside):
                    w = aside[a]
                    version[w] += 1
                    tick += 1
                    size = _push(
                        keys, verts, vers, size,
                        _key(policy, w, nv, use_ptr, use_pos, consumed, tick), w, version[w],
                    )  # fmt: skip
                if victim < 0:
                    return NO_VICTIM, loads, stores, computes, made
                if not blue[victim]:
                    blue[victim] = True
                    stores += 1
                    if record:
                        if made >= limit:
                            return MOVE_BUFFER_FULL, loads, stores, computes, made
                        moves[made, 0] = STORE
                        moves[made, 1] = victim
                    made += 1
                red[victim] = False
                reds -= 1
                if record:
                    if made >= limit:
                        return MOVE_BUFFER_FULL, loads, stores, computes, made
                    moves[made, 0] = DELETE
                    moves[made, 1] = victim
                made += 1
            red[p] = True
            version[p] += 1  # no valid entry until the computation is done
            reds += 1
            loads += 1
            if record:
                if made >= limit:
                    return MOVE_BUFFER_FULL, loads, stores, computes, made
                moves[made, 0] = LOAD
                moves[made, 1] = p
            made += 1
        if reds == memory:
            victim, size, naside = _pop_victim(
                keys, verts, vers, size, red, version, pinned, t, aside
            )
            for a in range(naside):
                w = aside[a]
                version[w] += 1
                tick += 1
                size = _push(
                    keys,
                    verts,
                    vers,
                    size,
                    _key(policy, w, nv, use_ptr, use_pos, consumed, tick),
                    w,
                    version[w],
                )
            if victim < 0:
                return NO_VICTIM, loads, stores, computes, made
            if not blue[victim]:
                blue[victim] = True
                stores += 1
                if record:
                    if made >= limit:
                        return MOVE_BUFFER_FULL, loads, stores, computes, made
                    moves[made, 0] = STORE
                    moves[made, 1] = victim
                made += 1
            red[victim] = False
            reds -= 1
            if record:
                if made >= limit:
                    return MOVE_BUFFER_FULL, loads, stores, computes, made
                moves[made, 0] = DELETE
                moves[made, 1] = victim
            made += 1
        red[v] = True
        reds += 1
        computes += 1
        if record:
            if made >= limit:
                return MOVE_BUFFER_FULL, loads, stores, computes, made
            moves[made, 0] = COMPUTE
            moves[made, 1] = v
        made += 1
        for e in range(start, stop):
            p = pred_idx[e]
            consumed[p] += 1
            version[p] += 1
            if use_ptr[p] + consumed[p] == use_ptr[p + 1]:
                red[p] = False
                reds -= 1
                if record:
                    if made >= limit:
                        return MOVE_BUFFER_FULL, loads, stores, computes, made
                    moves[made, 0] = DELETE
                    moves[made, 1] = p
                made += 1
            else:
                # Belady: the next use moved on; LRU: p was touched at this step
                if size == capacity:
                    size = _compact(keys, verts, vers, size, red, version)
                tick += 1
                size = _push(
                    keys,
                    verts,
                    vers,
                    size,
                    _key(policy, p, nv, use_ptr, use_pos, consumed, tick),
                    p,
                    version[p],
                )
        if is_output[v]:
            blue[v] = True
            red[v] = False
            reds -= 1
            stores += 1
            if record:
                if made + 1 >= limit:
                    return MOVE_BUFFER_FULL, loads, stores, computes, made
                moves[made, 0] = STORE
                moves[made, 1] = v
                moves[made + 1, 0] = DELETE
                moves[made + 1, 1] = v
            made += 2
        else:
            version[v] += 1
            if size == capacity:
                size = _compact(keys, verts, vers, size, red, version)
            tick += 1
            size = _push(
                keys,
                verts,
                vers,
                size,
                _key(policy, v, nv, use_ptr, use_pos, consumed, tick),
                v,
                version[v],
            )
    return OK, loads, stores, computes, made
