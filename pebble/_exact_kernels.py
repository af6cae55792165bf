"""numba kernels of the exact pebbling search (private; the driver is :mod:`.exact`).

States are five one-word bit sets (int64, vertex ``v`` is bit ``v``, at most
:data:`MAX_VERTICES` vertices so the sign bit is never touched): ``red``, ``blue``
(inputs always included), ``computed`` (one-shot only, else 0), ``pending`` (stored
non-outputs not loaded since; only with RELOAD_AFTER_STORE, else 0) and ``unused`` (red
pebbles not yet used by a compute or a store; only with USE_BEFORE_DELETE, else 0). The search is A*
with a bucket queue over ``f = g + h`` (integer costs 0/1), duplicate queue entries
instead of decrease-key, and re-opening of closed states whose cost improves, so it is
exact for any admissible ``h`` (consistency only makes it faster). The move rules and
the pruning switches are argued in :mod:`.exact`; this module only implements them.

The kernels take a handful of flat arrays and return numbers or status codes:

- ``graph`` (3, V) int64: rows ``G_PRED`` (predecessor bit set of each vertex),
  ``G_SUCC`` (successors), ``G_REACH`` (the vertex and all its descendants);
- ``params`` int64: ``P_V, P_INPUTS, P_OUTPUTS, P_M, P_ONESHOT, P_FLAGS, P_SINGLE``
  (the vertices with exactly one successor) and, read only with ADDITIVE_PATTERNS,
  ``P_CHARGED`` (the vertices some pattern database charges);
- ``patterns``: the pattern databases (built by :mod:`._pattern_kernels`) as
  :func:`pattern_sum` reads them (read only with the PATTERN_DATABASES flag);
- ``symmetry`` (K, 8, 256) int64: byte lookup tables of K automorphisms, the identity
  first (:func:`attnio.pebble.symmetry.lookup_tables`; read only with the SYMMETRY flag);
- ``keys`` (capacity, W) int64: the state words of each stored state, only those the
  search can set (:func:`key_columns`): ``red`` and ``blue`` always, then ``computed``
  (one-shot), ``pending`` (RELOAD_AFTER_STORE) and ``unused`` (USE_BEFORE_DELETE), so
  W is 2 to 5; a word that is always 0 is not stored;
- ``links`` (capacity, 3) int32: columns ``L_G`` (the state's cost), ``L_PARENT`` (the
  row of the state it was reached from, -1 at the start) and ``L_MOVE``
  (``2 * code + closed``): a state costs ``8 W + 12`` bytes of rows, against 64 for the
  earlier (capacity, 8) int64 row;
- ``slots`` int32: open-addressing hash table of state rows (-1 = empty), size a power
  of 2, at most half full (:data:`SLOTS_FULL` asks the driver to double it);
- ``buckets``: head entry of the queue list of each ``f`` value (-1 = empty);
- ``entries`` (capacity, 3) int32: columns ``E_STATE``, ``E_NEXT`` (linked lists) and
  ``E_G`` (the state's cost when queued: an entry is stale once the cost improved);
- ``counters``: the ``C_*`` scalars, kept between calls so a search resumes; the driver
  may set ``C_MAX_BYTES`` (0: no cap) after :func:`init_search`, and the search then
  never lets :func:`search_bytes` exceed it (TABLE_FULL or QUEUE_FULL instead).
"""

from __future__ import annotations

import numpy as np

from ._jit import njit
from .moves import COMPUTE, DELETE, LOAD, STORE

MAX_VERTICES = 62
"""Largest vertex count of the one-word bit-set state encoding (bits 0..61 of an int64)."""

# pruning / heuristic switches (bit flags), each argued in exact.py
DELETE_WHEN_FULL = 1
OUTPUT_MACRO = 2
LAZY_STORE = 4
DEAD_PEBBLES = 8
HEURISTIC = 16
RELOAD_AFTER_STORE = 32
USE_BEFORE_DELETE = 64
SINGLE_SUCCESSOR = 128
PATTERN_DATABASES = 256
SYMMETRY = 512
EAGER_OUTPUT = 1024
ADDITIVE_PATTERNS = 2048
ALL_FLAGS = (
    DELETE_WHEN_FULL
    | OUTPUT_MACRO
    | LAZY_STORE
    | DEAD_PEBBLES
    | HEURISTIC
    | RELOAD_AFTER_STORE
    | USE_BEFORE_DELETE
    | SINGLE_SUCCESSOR
    | PATTERN_DATABASES
    | SYMMETRY
    | EAGER_OUTPUT
    | ADDITIVE_PATTERNS
)

# transitions recorded for the certificate: code = sym * SYM_CODE + kind * 64 + vertex,
# where sym is the index of the automorphism that turned the result into the stored
# representative (rule symmetry; 0, the identity, otherwise)
SYM_CODE = 512
K_LOAD, K_STORE, K_COMPUTE, K_DELETE = LOAD, STORE, COMPUTE, DELETE  # the moves' op codes
K_WRITEBACK = 4  # store v, then delete v
K_OUTPUT = 5  # compute output v, store it, delete its red pebble
NO_MOVE = -1

# status codes of search()
PAUSED = 0
OPTIMAL = 1
TABLE_FULL = 2
QUEUE_FULL = 3
SLOTS_FULL = 4  # the hash table is half full: the driver doubles it and resumes
_GO_ON = -1  # internal: the successor was handled, keep expanding

G_PRED, G_SUCC, G_REACH = 0, 1, 2
P_V, P_INPUTS, P_OUTPUTS, P_M, P_ONESHOT, P_FLAGS, P_SINGLE, P_CHARGED = 0, 1, 2, 3, 4, 5, 6, 7
S_RED, S_BLUE = 0, 1  # the first two columns of ``keys``; the others: key_columns()
L_G, L_PARENT, L_MOVE = 0, 1, 2
E_STATE, E_NEXT, E_G = 0, 1, 2
LINK_BYTES = 12
"""Bytes of a state's ``links`` row (three int32)."""
ENTRY_BYTES = 12
"""Bytes of one queue entry (three int32)."""
SLOT_BYTES = 4
"""Bytes of one hash slot (int32)."""
MAX_ROWS = (1 << 31) - 1
"""Most states or queue entries an int32 row index addresses."""

C_STATES = 0  # states in the table
C_ENTRIES = 1  # queue entries ever allocated
C_BUCKET = 2  # smallest f bucket that may be non-empty
C_UPPER = 3  # cost of the best complete pebbling known (search or seed)
C_GOAL = 4  # table index of the best goal state found, -1 if none (the seed is best)
C_EXPANDED = 5  # states expanded
C_FREE = 6  # head of the free list of queue entries, -1 if none
C_LOWER = 7  # f of the last entry taken from the queue: a proven lower bound
C_MAX_BYTES = 8  # cap on search_bytes(), 0 for none (set by the driver after init_search)
C_BYTES = 9  # search_bytes(), kept up to date (the driver resets it when it grows slots)
N_COUNTERS = 10

MAX_PATTERN = 24
"""Most vertices in one pattern (the build enumerates all 2**a local red sets)."""

INFO_BLUE = 4
INFO_OFFSETS = INFO_BLUE + MAX_PATTERN
INFO_WIDTH = INFO_OFFSETS + MAX_PATTERN + 2
"""Columns of a pattern's row of ``info`` (see :func:`pattern_sum`)."""

INFEASIBLE = 1 << 40

_K1 = np.int64(-7046029254386353131)  # 0x9E3779B97F4A7C15 as int64
_K2 = np.int64(-4417276706812531889)  # 0xC2B2AE3D27D4EB4F
_K3 = np.int64(1609587929392839161)  # 0x165667B19E3779F9
_K4 = np.int64(-3372029247567499371)  # 0xD6E8FEB86659FD95
_K5 = np.int64(-7723592293110705685)  # 0x94D049BB133111EB


@njit(cache=True)
def popcount(x):
    """Number of set bits of a non-negative int64."""
    count = 0
    while x:
        x &= x - 1
        count += 1
    return count


@njit(cache=True)
def key_columns(params):
    """Columns of ``computed``, ``pending`` and ``unused`` in ``keys`` (-1: not stored), and W.

    A word is stored only where the search can make it non-zero: ``computed`` in the
    one-shot variant, ``pending`` with RELOAD_AFTER_STORE, ``unused`` with
    USE_BEFORE_DELETE; an absent word reads as 0.
    """
    width = 2
    comp = pend = unused = -1
    if params[P_ONESHOT] != 0:
        comp = width
        width += 1
    if params[P_FLAGS] & RELOAD_AFTER_STORE:
        pend = width
        width += 1
    if params[P_FLAGS] & USE_BEFORE_DELETE:
        unused = width
        width += 1
    return comp, pend, unused, width


@njit(cache=True)
def _word(keys, idx, col):
    return keys[idx, col] if col >= 0 else np.int64(0)


@njit(cache=True)
def read_state(keys, params, idx):
    """The five state words of row ``idx`` (absent words are 0)."""
    comp, pend, unused, _ = key_columns(params)
    return (
        keys[idx, S_RED],
        keys[idx, S_BLUE],
        _word(keys, idx, comp),
        _word(keys, idx, pend),
        _word(keys, idx, unused),
    )


@njit(cache=True)
def search_bytes(keys, slots, entries, buckets, counters):
    """Bytes the search's arrays hold now: the rows of the stored states, every hash
    slot, the queue entries ever used (later ones are never touched) and the buckets."""
    row = keys.shape[1] * 8 + LINK_BYTES
    return (
        counters[C_STATES] * row
        + slots.size * SLOT_BYTES
        + counters[C_ENTRIES] * ENTRY_BYTES
        + buckets.size * 8
    )


@njit(cache=True)
def _hash(red, blue, computed, pending, unused, mask):
    h = red * _K1 ^ blue * _K2 ^ computed * _K3 ^ pending * _K4 ^ unused * _K5
    h ^= h >> 31
    h *= _K1
    h ^= h >> 29
    return h & mask


@njit(cache=True)
def dead_mask(graph, params, blue, computed):
    """Vertices whose red pebble can never be useful again (exact.py, rule dead-pebbles).

    Standard: no output still lacking a blue pebble is reachable from the vertex (the
    vertex included). One-shot, also: a non-output whose successors are all computed.
    """
    missing = params[P_OUTPUTS] & ~blue
    oneshot = params[P_ONESHOT] != 0
    dead = np.int64(0)
    for v in range(params[P_V]):
        bit = np.int64(1) << v
        unreachable = (graph[G_REACH, v] & missing) == 0
        finished = (params[P_OUTPUTS] & bit) == 0 and (graph[G_SUCC, v] & ~computed) == 0
        if unreachable or (oneshot and finished):
            dead |= bit
    return dead


@njit(cache=True)
def proxied(graph, params, pebbles):
    """Vertices with one successor, and that successor in ``pebbles`` (rule single-successor).

    With ``pebbles`` the red set: their red pebble is redundant. With the blue set:
    they are never loaded or stored again.
    """
    out = np.int64(0)
    single = params[P_SINGLE]
    for v in range(params[P_V]):
        bit = np.int64(1) << v
        if (single & bit) != 0 and (graph[G_SUCC, v] & ~pebbles) == 0:
            out |= bit
    return out


@njit(cache=True)
def heuristic(graph, params, red, blue, computed, pending):
    """Admissible and consistent lower bound on the I/O still needed (exact.py, heuristic).

    One store per output without a blue pebble, plus one load per vertex that must
    become red again and can do so only by a load, plus one load per pending vertex not
    already counted. INFEASIBLE when a needed vertex can never become red again
    (one-shot: computed, and its red and blue pebbles are gone).
    """
    return heuristic_parts(graph, params, red, blue, computed, pending, np.int64(0))[0]


@njit(cache=True)
def heuristic_parts(graph, params, red, blue, computed, pending, charged):
    """:func:`heuristic`, and the part of it on vertices outside ``charged``.

    Every move the plain heuristic counts is a load or a store of one vertex, each
    vertex's moves counted at most once; the second value counts only those of
    vertices outside ``charged`` (rule additive-patterns). Both are INFEASIBLE together.
    """
    missing = params[P_OUTPUTS] & ~blue
    oneshot = params[P_ONESHOT] != 0
    need = missing
    loads = np.int64(0)
    for v in range(params[P_V] - 1, -1, -1):
        bit = np.int64(1) << v
        if (need & bit) == 0 or (red & bit) != 0:
            continue
        if params[P_INPUTS] & bit:
            loads |= bit
        elif blue & bit:
            if oneshot:
                loads |= bit
        elif oneshot and (computed & bit) != 0:
            return INFEASIBLE, INFEASIBLE
        else:
            need |= graph[G_PRED, v]
    outside = ~charged
    total = popcount(missing) + popcount(loads | pending)
    return total, popcount(missing & outside) + popcount((loads | pending) & outside)


@njit(cache=True)
def pattern_sum(patterns, red, blue):
    """Sum over the patterns of the table entry of the projected state ``(red, blue)``.

    ``patterns = (vertices, info, costs, binom)``: ``vertices`` (K, MAX_PATTERN) holds
    the DAG vertex of each local vertex (-1 past the end); row ``k`` of ``info``
    (K, INFO_WIDTH) holds the size ``a``, the blue-bit count ``b``, the offset of the
    table in ``costs``, then from column ``INFO_BLUE`` the blue-bit position of each
    local vertex (-1 for an input) and from column ``INFO_OFFSETS`` the red-set
    offsets (:func:`red_offsets`). A state never holds more than M red pebbles, so
    every projected red set has a rank.
    """
    vertices, info, costs, binom = patterns
    total = 0
    for k in range(vertices.shape[0]):
        a = info[k, 0]
        b = info[k, 1]
        rank = 0
        count = 0
        bits = np.int64(0)
        for j in range(a):
            v = vertices[k, j]
            vbit = np.int64(1) << v
            if red & vbit:
                count += 1
                rank += binom[j, count]
            pos = info[k, INFO_BLUE + j]
            if pos >= 0 and (blue & vbit) != 0:
                bits |= np.int64(1) << pos
        index = (info[k, INFO_OFFSETS + count] + rank) * (np.int64(1) << b) + bits
        total += costs[info[k, 2] + index]
    return total


@njit(cache=True)
def state_h(graph, params, patterns, red, blue, computed, pending):
    """The larger of the enabled heuristics (HEURISTIC, PATTERN_DATABASES), else 0.

    With ADDITIVE_PATTERNS (and both others), the pattern sum also gets the plain
    heuristic's moves on the vertices no pattern charges (exact.py, additive-patterns).
    With neither HEURISTIC nor PATTERN_DATABASES the search is Dijkstra's algorithm.
    """
    flags = params[P_FLAGS]
    h = 0
    outside = 0
    if flags & HEURISTIC:
        charged = params[P_CHARGED] if flags & ADDITIVE_PATTERNS else np.int64(-1)
        h, outside = heuristic_parts(graph, params, red, blue, computed, pending, charged)
    if h < INFEASIBLE and flags & PATTERN_DATABASES:
        if not flags & ADDITIVE_PATTERNS:
            outside = 0
        h = max(h, pattern_sum(patterns, red, blue) + outside)
    return h


@njit(cache=True)
def permute(symmetry, k, bits):
    """Image of the vertex set ``bits`` under automorphism ``k`` (byte lookup tables)."""
    out = np.int64(0)
    byte = 0
    while bits:
        value = bits & 255
        if value:
            out |= symmetry[k, byte, value]
        bits >>= 8
        byte += 1
    return out


@njit(cache=True)
def canonical(symmetry, red, blue, computed, pending, unused):
    """The smallest image of the state over the automorphisms, and the index of its map.

    Images compare field by field (red, blue, computed, pending, unused) as integers; on
    a tie the earlier automorphism wins (the identity is first). Reference:
    :func:`attnio.pebble.symmetry.canonical_state`.
    """
    best = (red, blue, computed, pending, unused)
    which = 0
    for k in range(1, symmetry.shape[0]):
        r = permute(symmetry, k, red)
        if r > best[0]:
            continue  # the common case: decided by the red set alone
        image = (
            r,
            permute(symmetry, k, blue),
            permute(symmetry, k, computed),
            permute(symmetry, k, pending),
            permute(symmetry, k, unused),
        )
        for field in range(5):
            if image[field] != best[field]:
                if image[field] < best[field]:
                    best = image
                    which = k
                break
    return best[0], best[1], best[2], best[3], best[4], which


@njit(cache=True)
def _lookup(keys, params, slots, red, blue, computed, pending, unused):
    """Return (slot, index) of the state; index -1 and its free slot if absent."""
    comp, pend, use, _ = key_columns(params)
    mask = slots.size - 1
    slot = _hash(red, blue, computed, pending, unused, mask)
    while True:
        idx = slots[slot]
        if idx < 0:
            return slot, -1
        if (
            keys[idx, S_RED] == red
            and keys[idx, S_BLUE] == blue
            and _word(keys, idx, comp) == computed
            and _word(keys, idx, pend) == pending
            and _word(keys, idx, use) == unused
        ):
            return slot, idx
        slot = (slot + 1) & mask


@njit(cache=True)
def _write_state(keys, params, idx, red, blue, computed, pending, unused):
    comp, pend, use, _ = key_columns(params)
    keys[idx, S_RED] = red
    keys[idx, S_BLUE] = blue
    if comp >= 0:
        keys[idx, comp] = computed
    if pend >= 0:
        keys[idx, pend] = pending
    if use >= 0:
        keys[idx, use] = unused


@njit(cache=True)
def _push(state, f, g, buckets, entries, counters):
    """Push a queue entry; return False when the entry pool is exhausted."""
    e = counters[C_FREE]
    if e >= 0:
        counters[C_FREE] = entries[e, E_NEXT]
    else:
        e = counters[C_ENTRIES]
        if e >= entries.shape[0]:
            return False
        cap = counters[C_MAX_BYTES]
        if cap > 0 and counters[C_BYTES] + ENTRY_BYTES > cap:
            return False
        counters[C_ENTRIES] = e + 1
        counters[C_BYTES] += ENTRY_BYTES
    entries[e, E_STATE] = state
    entries[e, E_NEXT] = buckets[f]
    entries[e, E_G] = g
    buckets[f] = e
    if f < counters[C_BUCKET]:
        counters[C_BUCKET] = f
    return True


@njit(cache=True)
def init_search(graph, params, patterns, keys, links, slots, buckets, entries, counters, upper):
    """Reset the search, insert the start state (no red, inputs blue) and queue it.

    ``upper`` is the cost of a known complete pebbling (the seed); only states with
    ``f < upper`` are ever queued, and ``buckets`` must have ``upper`` entries.
    ``counters[C_MAX_BYTES]`` is reset to 0 (no cap).
    """
    slots[:] = -1
    buckets[:] = -1
    counters[:] = 0
    counters[C_UPPER] = upper
    counters[C_GOAL] = -1
    counters[C_FREE] = -1
    counters[C_BUCKET] = buckets.size
    zero = np.int64(0)
    blue = params[P_INPUTS]
    h0 = state_h(graph, params, patterns, zero, blue, zero, zero)
    counters[C_LOWER] = min(h0, upper)
    slot, _ = _lookup(keys, params, slots, zero, blue, zero, zero, zero)
    _write_state(keys, params, 0, zero, blue, zero, zero, zero)
    links[0, L_G] = 0
    links[0, L_PARENT] = -1
    links[0, L_MOVE] = 2 * NO_MOVE
    slots[slot] = 0
    counters[C_STATES] = 1
    counters[C_BYTES] = search_bytes(keys, slots, entries, buckets, counters)
    if (params[P_OUTPUTS] & ~blue) == 0 and upper > 0:
        counters[C_UPPER] = 0  # every output is an input: the empty pebbling is optimal
        counters[C_GOAL] = 0
        counters[C_LOWER] = 0
        return
    if h0 < upper:
        _push(0, h0, 0, buckets, entries, counters)


@njit(cache=True)
def _relax(ctx, counters, parent, red, blue, computed, pending, unused, g, code, dead):
    """Offer a successor reached with cost ``g``; return _GO_ON, TABLE_FULL or QUEUE_FULL.

    ``ctx`` is ``(graph, params, patterns, keys, links, slots, buckets, entries,
    symmetry)``. ``dead`` is the parent's dead set, or -1 when the move changed the blue
    or computed set (it depends on nothing else), in which case it is recomputed.
    Returns SLOTS_FULL too (before anything changed) when a new state would fill the
    hash table past half.
    """
    graph, params, patterns, keys, links, slots, buckets, entries, symmetry = ctx
    flags = params[P_FLAGS]
    if flags & DEAD_PEBBLES:
        if dead < 0:
            dead = dead_mask(graph, params, blue, computed)
        red &= ~dead
        unused &= ~dead
        blue &= ~(dead & ~params[P_OUTPUTS])  # never loaded again: forget, merging states
    if flags & SINGLE_SUCCESSOR and params[P_ONESHOT] == 0:
        spare = proxied(graph, params, red)
        red &= ~spare
        unused &= ~spare
        if pending & dead:
            return _GO_ON  # a stored vertex that will never be loaded: the store was wasted
    if flags & SYMMETRY:
        red, blue, computed, pending, unused, sym = canonical(
            symmetry, red, blue, computed, pending, unused
        )
        code += sym * SYM_CODE
    h = state_h(graph, params, patterns, red, blue, computed, pending)
    if h >= INFEASIBLE:
        return _GO_ON
    f = g + h
    if f >= counters[C_UPPER]:
        return _GO_ON
    cap = counters[C_MAX_BYTES]
    if counters[C_FREE] < 0 and (
        counters[C_ENTRIES] >= entries.shape[0]
        or (cap > 0 and counters[C_BYTES] + ENTRY_BYTES > cap)
    ):
        return QUEUE_FULL  # checked before the table changes, so a retry loses nothing
    slot, idx = _lookup(keys, params, slots, red, blue, computed, pending, unused)
    if idx < 0:
        idx = counters[C_STATES]
        if 2 * (idx + 1) > slots.size:
            return SLOTS_FULL
        row = keys.shape[1] * 8 + LINK_BYTES
        if idx >= keys.shape[0] or (cap > 0 and counters[C_BYTES] + row + ENTRY_BYTES > cap):
            return TABLE_FULL
        counters[C_STATES] = idx + 1
        counters[C_BYTES] += row
        slots[slot] = idx
        _write_state(keys, params, idx, red, blue, computed, pending, unused)
    elif links[idx, L_G] <= g:
        return _GO_ON
    links[idx, L_G] = g
    links[idx, L_PARENT] = parent
    links[idx, L_MOVE] = 2 * code  # not closed
    if (params[P_OUTPUTS] & ~blue) == 0:
        counters[C_UPPER] = g  # a complete pebbling cheaper than any known
        counters[C_GOAL] = idx
        return _GO_ON
    if not _push(idx, f, g, buckets, entries, counters):
        return QUEUE_FULL
    return _GO_ON


@njit(cache=True)
def search(
    graph, params, patterns, symmetry, keys, links, slots, buckets, entries, counters, budget
):
    """Expand up to ``budget`` states; return PAUSED, OPTIMAL, TABLE_FULL, QUEUE_FULL or
    SLOTS_FULL.

    OPTIMAL: no queue entry has ``f < counters[C_UPPER]``, so the upper bound is the
    optimum; its pebbling ends in table row ``counters[C_GOAL]``, or is the seed if
    that is -1. Otherwise ``min(counters[C_LOWER], counters[C_UPPER])`` is a proven
    lower bound: it was the smallest ``f`` in the queue when it was read, and some
    queued state of an optimal pebbling always has ``f`` at most the optimum.
    """
    ctx = (graph, params, patterns, keys, links, slots, buckets, entries, symmetry)
    done = 0
    while True:
        upper = counters[C_UPPER]
        b = counters[C_BUCKET]
        while b < upper and buckets[b] < 0:
            b += 1
        counters[C_BUCKET] = b
        if b >= upper:
            counters[C_LOWER] = upper
            return OPTIMAL
        counters[C_LOWER] = b
        if done >= budget:
            return PAUSED
        e = buckets[b]
        s = entries[e, E_STATE]
        buckets[b] = entries[e, E_NEXT]
        if links[s, L_MOVE] & 1 or links[s, L_G] != entries[e, E_G]:
            entries[e, E_NEXT] = counters[C_FREE]  # duplicate entry: the state was reached
            counters[C_FREE] = e  # more cheaply since, or already expanded
            continue
        links[s, L_MOVE] |= 1  # closed
        done += 1
        counters[C_EXPANDED] += 1
        status = _expand(ctx, counters, s)
        if status != _GO_ON:
            # out of room: put the entry back (it was never freed), so the state is
            # expanded again, in full, once the driver has grown the arrays
            links[s, L_MOVE] &= ~1
            counters[C_EXPANDED] -= 1
            entries[e, E_NEXT] = buckets[b]
            buckets[b] = e
            counters[C_BUCKET] = min(counters[C_BUCKET], b)
            return status
        entries[e, E_NEXT] = counters[C_FREE]
        counters[C_FREE] = e


@njit(cache=True)
def _expand(ctx, counters, s):
    """Offer every successor of state ``s`` under the enabled rules (see exact.py)."""
    graph, params, keys, links = ctx[0], ctx[1], ctx[3], ctx[4]
    red, blue, computed, pending, unused = read_state(keys, params, s)
    g = np.int64(links[s, L_G])
    flags = params[P_FLAGS]
    inputs = params[P_INPUTS]
    outputs = params[P_OUTPUTS]
    oneshot = params[P_ONESHOT] != 0
    full = popcount(red) >= params[P_M]
    dead = np.int64(0)
    if flags & DEAD_PEBBLES:
        dead = dead_mask(graph, params, blue, computed)
    same = dead if not oneshot else np.int64(-1)  # compute changes the one-shot computed set
    macro = (flags & OUTPUT_MACRO) != 0
    lazy = (flags & LAZY_STORE) != 0
    reload = (flags & RELOAD_AFTER_STORE) != 0
    track = (flags & USE_BEFORE_DELETE) != 0
    may_delete = full or (flags & DELETE_WHEN_FULL) == 0
    frozen = np.int64(0)  # never loaded or stored (rule single-successor)
    if flags & SINGLE_SUCCESSOR and not oneshot:
        frozen = proxied(graph, params, blue)
    if flags & EAGER_OUTPUT and not full:
        # an output ready to compute is finished at once, and nothing else is tried
        ready = outputs & ~red & ~blue & ~computed
        for v in range(params[P_V]):
            bit = np.int64(1) << v
            if (ready & bit) != 0 and (graph[G_PRED, v] & ~red) == 0:
                done = computed | bit if oneshot else computed
                return _relax(ctx, counters, s, red, blue | bit, done, pending,
                              unused & ~graph[G_PRED, v], g + 1, K_OUTPUT * 64 + v, -1)  # fmt: skip
    for v in range(params[P_V]):
        bit = np.int64(1) << v
        is_output = (outputs & bit) != 0
        is_input = (inputs & bit) != 0
        if red & bit:
            stores = (blue & bit) == 0 and not is_input and (frozen & bit) == 0
            marked = pending | bit if reload and not is_output else pending
            if stores and (is_output or not lazy):
                st = _relax(ctx, counters, s, red, blue | bit, computed, marked, unused & ~bit,
                            g + 1, K_STORE * 64 + v, -1)  # fmt: skip
                if st != _GO_ON:
                    return st
            if may_delete and not (track and (unused & bit) != 0):
                st = _relax(ctx, counters, s, red & ~bit, blue, computed, pending, unused, g,
                            K_DELETE * 64 + v, dead)  # fmt: skip
                if st != _GO_ON:
                    return st
            if may_delete and lazy and stores and not is_output:
                st = _relax(ctx, counters, s, red & ~bit, blue | bit, computed, marked,
                            unused & ~bit, g + 1, K_WRITEBACK * 64 + v, -1)  # fmt: skip
                if st != _GO_ON:
                    return st
            continue
        if full or (dead & bit) != 0:
            continue
        if (blue & bit) != 0 and not (macro and is_output) and (frozen & bit) == 0:
            fresh = unused | bit if track else unused
            st = _relax(ctx, counters, s, red | bit, blue, computed, pending & ~bit, fresh,
                        g + 1, K_LOAD * 64 + v, dead)  # fmt: skip
            if st != _GO_ON:
                return st
        if is_input or (graph[G_PRED, v] & ~red) != 0 or (oneshot and (computed & bit) != 0):
            continue
        done = computed | bit if oneshot else computed
        used = unused & ~graph[G_PRED, v]
        if macro and is_output:
            if (blue & bit) == 0:
                st = _relax(ctx, counters, s, red, blue | bit, done, pending, used, g + 1,
                            K_OUTPUT * 64 + v, -1)  # fmt: skip
                if st != _GO_ON:
                    return st
        else:
            fresh = used | bit if track else used
            st = _relax(ctx, counters, s, red | bit, blue, done, pending, fresh, g,
                        K_COMPUTE * 64 + v, same)  # fmt: skip
            if st != _GO_ON:
                return st
    return _GO_ON


@njit(cache=True)
def rehash(keys, params, count, slots):
    """Rebuild the hash table ``slots`` (all -1 on entry) for rows ``0..count-1`` of ``keys``."""
    mask = slots.size - 1
    for idx in range(count):
        red, blue, computed, pending, unused = read_state(keys, params, idx)
        slot = _hash(red, blue, computed, pending, unused, mask)
        while slots[slot] >= 0:
            slot = (slot + 1) & mask
        slots[slot] = idx
