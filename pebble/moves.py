"""Moves of the red-blue pebble game and the pure-Python replayer, the oracle of every pebbling.

The rules are those of docs/game.md (HK81; one-shot variant PW20):

- ``load`` (R1, cost 1): put a red pebble on a vertex that has a blue one.
- ``store`` (R2, cost 1): put a blue pebble on a vertex that has a red one.
- ``compute`` (R3, cost 0): put a red pebble on a non-input vertex whose
  predecessors all carry red pebbles; the new pebble counts towards ``M``.
- ``delete`` (R4, cost 0): remove the red pebble of a vertex.

Conventions this replayer pins (each is reported as illegal, with the reason):

- a move that would add a pebble the vertex already has (load or compute onto a
  red vertex, store onto a blue vertex) is illegal: it is never needed and an
  engine producing one has a bug;
- ``delete`` removes a red pebble only; blue pebbles are never removed
  (blue is unlimited, so removing one never helps);
- in the one-shot variant a non-input vertex may be computed at most once;
- at the end every output must be blue, else :class:`IllegalMoveError` with
  ``index == len(moves)`` and ``move is None``.

Op codes for the kernels: ``LOAD = 0``, ``STORE = 1``, ``COMPUTE = 2``,
``DELETE = 3``; :func:`encode_moves` and :func:`decode_moves` convert to and
from an ``(k, 2)`` int64 array of ``(op, vertex)`` rows.

Move files are JSON lines, one ``{"op": "load", "vertex": 3, "label": "Q[0,1]"}``
per move (``label`` optional on reading; when present it must match the vertex).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np

from .dag import Dag
from .errors import IllegalMoveError, MoveFormatError
from .variants import GAME_VARIANTS, VARIANTS, Variant, as_variant

__all__ = [
    "COMPUTE",
    "DELETE",
    "LOAD",
    "OPS",
    "STORE",
    "VARIANTS",
    "Move",
    "Replay",
    "check_variant",
    "decode_moves",
    "encode_moves",
    "read_moves",
    "replay",
    "write_moves",
]

LOAD, STORE, COMPUTE, DELETE = 0, 1, 2, 3
OPS: tuple[str, ...] = ("load", "store", "compute", "delete")
"""Op names by op code."""
_CODES = {name: code for code, name in enumerate(OPS)}


class Move(NamedTuple):
    """One move: ``op`` in ``OPS`` and the vertex index it acts on."""

    op: str
    vertex: int


class Replay(NamedTuple):
    """What a legal pebbling cost: ``io = loads + stores``, and the peak number of red pebbles."""

    io: int
    loads: int
    stores: int
    computes: int
    peak_red: int


def check_variant(variant: str) -> Variant:
    """Return ``variant`` as a :class:`Variant` (equal to its string), else raise :class:`PebbleParameterError`."""
    return as_variant(variant)


def replay(
    dag: Dag, moves: Iterable[Move | tuple[str, int]], M: int, variant: str = "standard"
) -> Replay:
    """Play ``moves`` on ``dag`` with at most ``M`` red pebbles, enforcing every rule.

    Parameters
    ----------
    dag : Dag
        The graph; its sources start blue, its sinks must end blue.
    moves : iterable of Move or (op, vertex)
        The pebbling, in order.
    M : int
        The number of red pebbles, at least ``dag.min_memory``.
    variant : {"standard", "oneshot"}
        ``"oneshot"`` forbids computing a vertex twice.

    Returns
    -------
    Replay
        ``io``, ``loads``, ``stores``, ``computes`` and ``peak_red``.

    Raises
    ------
    IllegalMoveError
        At the first illegal move (``index``, ``move``, ``reason``), or with
        ``index == len(moves)`` if some output is not blue at the end.
    MemoryTooSmallError, PebbleParameterError
        ``M`` below ``dag.min_memory`` or not a positive integer; unknown variant.

    Examples
    --------
    >>> g = Dag.from_edges(["a", "b"], [(0, 1)])
    >>> replay(g, [Move("load", 0), Move("compute", 1), Move("store", 1)], M=2)
    Replay(io=2, loads=1, stores=1, computes=1, peak_red=2)
    """
    M = dag.validate_memory(M)
    recomputation = GAME_VARIANTS[check_variant(variant)].recomputation
    count = dag.num_vertices
    indegree = dag.indegree.tolist()
    pred_ptr = dag.pred_ptr.tolist()
    pred_idx = dag.pred_idx.tolist()
    red = [False] * count
    blue = [d == 0 for d in indegree]
    computed = [False] * count
    reds = peak = loads = stores = computes = 0
    index = -1
    for index, raw in enumerate(moves):
        op, vertex = _parse(index, raw, count)
        move = Move(op, vertex)
        label = dag.labels[vertex]
        if op == "load":
            if red[vertex]:
                raise IllegalMoveError(index, move, f"vertex {label!r} already has a red pebble")
            if not blue[vertex]:
                raise IllegalMoveError(index, move, f"vertex {label!r} has no blue pebble to load")
            if reds == M:
                raise IllegalMoveError(index, move, f"all M={M} red pebbles are in use")
            red[vertex] = True
            reds += 1
            loads += 1
        elif op == "store":
            if not red[vertex]:
                raise IllegalMoveError(index, move, f"vertex {label!r} has no red pebble to store")
            if blue[vertex]:
                raise IllegalMoveError(index, move, f"vertex {label!r} already has a blue pebble")
            blue[vertex] = True
            stores += 1
        elif op == "compute":
            if indegree[vertex] == 0:
                raise IllegalMoveError(index, move, f"vertex {label!r} is an input; load it")
            if red[vertex]:
                raise IllegalMoveError(index, move, f"vertex {label!r} already has a red pebble")
            for p in pred_idx[pred_ptr[vertex] : pred_ptr[vertex + 1]]:
                if not red[p]:
                    raise IllegalMoveError(
                        index, move, f"predecessor {dag.labels[p]!r} of {label!r} is not red"
                    )
            if not recomputation and computed[vertex]:
                raise IllegalMoveError(
                    index, move, f"vertex {label!r} computed twice in the one-shot variant"
                )
            if reds == M:
                raise IllegalMoveError(index, move, f"all M={M} red pebbles are in use")
            red[vertex] = True
            computed[vertex] = True
            reds += 1
            computes += 1
        else:
            if not red[vertex]:
                raise IllegalMoveError(index, move, f"vertex {label!r} has no red pebble to delete")
            red[vertex] = False
            reds -= 1
        peak = max(peak, reds)
    missing = [dag.labels[v] for v in dag.outputs.tolist() if not blue[v]]
    if missing:
        shown = ", ".join(repr(x) for x in missing[:5]) + (" ..." if len(missing) > 5 else "")
        raise IllegalMoveError(
            index + 1, None, f"{len(missing)} output(s) not blue at the end: {shown}"
        )
    return Replay(loads + stores, loads, stores, computes, peak)


def _parse(index: int, raw: object, count: int) -> tuple[str, int]:
    try:
        op, vertex = raw  # type: ignore[misc]
    except (TypeError, ValueError):
        raise IllegalMoveError(index, None, f"{raw!r} is not an (op, vertex) pair") from None
    if op not in _CODES:
        raise IllegalMoveError(index, (op, vertex), f"op {op!r} is not one of {OPS}")
    if isinstance(vertex, bool) or not isinstance(vertex, int | np.integer):
        raise IllegalMoveError(index, (op, vertex), f"vertex {vertex!r} is not an integer")
    if not 0 <= vertex < count:
        raise IllegalMoveError(index, (op, vertex), f"vertex {vertex} is outside 0..{count - 1}")
    return op, int(vertex)


def encode_moves(moves: Iterable[Move | tuple[str, int]]) -> np.ndarray:
    """Return moves as an ``(k, 2)`` int64 array of ``(op code, vertex)`` rows.

    Examples
    --------
    >>> encode_moves([Move("load", 0), Move("delete", 0)]).tolist()
    [[0, 0], [3, 0]]
    """
    rows = []
    for index, (op, vertex) in enumerate(moves):
        if op not in _CODES:
            raise MoveFormatError(f"move {index}: op {op!r} is not one of {OPS}")
        rows.append((_CODES[op], int(vertex)))
    return np.asarray(rows, dtype=np.int64).reshape(-1, 2)


def decode_moves(array: np.ndarray) -> list[Move]:
    """Return the :class:`Move` list of an ``(k, 2)`` array of ``(op code, vertex)`` rows."""
    array = np.asarray(array)
    if array.ndim != 2 or array.shape[1] != 2:
        raise MoveFormatError(f"move array of shape {array.shape} must have shape (k, 2)")
    if array.size and (
        array.dtype.kind not in "iu" or array[:, 0].min() < 0 or array[:, 0].max() >= len(OPS)
    ):
        bad = next(i for i, code in enumerate(array[:, 0].tolist()) if code not in range(len(OPS)))
        raise MoveFormatError(f"move {bad}: op code {array[bad, 0]!r} is not one of 0..3")
    if not array.size:
        return []
    ops = np.asarray(OPS, dtype=object)[array[:, 0]].tolist()
    out = list(map(Move, ops, array[:, 1].tolist()))
    return out


def write_moves(path: str | Path, moves: Sequence[Move], dag: Dag | None = None) -> None:
    """Write moves as JSON lines ``{"op": ..., "vertex": ..., "label": ...}``.

    ``label`` is written when ``dag`` is given.
    """
    lines = []
    for op, vertex in moves:
        record: dict[str, object] = {"op": op, "vertex": int(vertex)}
        if dag is not None:
            record["label"] = dag.labels[vertex]
        lines.append(json.dumps(record))
    Path(path).write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def read_moves(path: str | Path, dag: Dag | None = None) -> list[Move]:
    """Read a JSON-lines move file written by :func:`write_moves`.

    Blank lines are skipped. When ``dag`` is given, a line's ``label`` (if any)
    must name the same vertex as its ``vertex``.

    Raises
    ------
    MoveFormatError
        A line is not valid JSON or not a move object; a label disagrees.
    """
    moves = []
    text = Path(path).read_text(encoding="utf-8")
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"move file {str(path)!r} line {number}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise MoveFormatError(f"{where}: not valid JSON ({error})") from None
        if (
            not isinstance(record, dict)
            or not {"op", "vertex"} <= set(record) <= {"op", "vertex", "label"}
            or record["op"] not in _CODES
            or isinstance(record["vertex"], bool)
            or not isinstance(record["vertex"], int)
        ):
            raise MoveFormatError(
                f'{where}: expected {{"op": one of {list(OPS)}, "vertex": int, "label": str}}, '
                f"got {line.strip()!r}"
            )
        vertex = record["vertex"]
        if (
            dag is not None
            and "label" in record
            and (not 0 <= vertex < dag.num_vertices or dag.labels[vertex] != record["label"])
        ):
            raise MoveFormatError(
                f"{where}: vertex {vertex} does not carry label {record['label']!r} in this graph"
            )
        moves.append(Move(record["op"], vertex))
    return moves
