"""A two-level memory machine that counts every word moved between slow and fast memory.

Slow memory holds named two-dimensional arrays and is unbounded. Fast memory
holds named buffers whose sizes add up to at most ``M`` words. Moving one word
either way costs one I/O; arithmetic happens only on fast buffers. The machine
records loads, stores and the peak number of words held in fast memory, and
raises :class:`~attnio.algorithms.errors.CapacityError` the moment a step would
exceed ``M``, naming the step.

An algorithm is written once against this interface and runs in two modes:

* numeric (``numeric=True``): slow arrays are float64 NumPy arrays, each fast
  buffer is a NumPy array, the algorithm does its arithmetic on them;
* counting (``numeric=False``): the machine keeps only shapes, transfers return
  ``None`` and the algorithm skips its arithmetic, executing the same loop nest
  and the same transfers, so that large n are cheap.

A transfer of an r x c slice costs r * c words and is charged in one step.
Scalar loop registers (one accumulator per output word while it is being
computed) are not charged: every vector or matrix an algorithm keeps is a named
buffer and is charged in full.

References
----------
HK81 (the red-blue pebble game this machine instantiates, with I/O = R1 + R2 moves).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attnio.bounds.arguments import positive_integer

from .errors import AlgorithmParameterError, CapacityError, MachineError


@dataclass(frozen=True)
class Counts:
    """What one run of an algorithm cost.

    Attributes
    ----------
    loads, stores : int
        Words moved slow -> fast and fast -> slow.
    peak : int
        Largest number of words held in fast memory at once.
    M : int
        Fast-memory size the run was given.
    """

    loads: int
    stores: int
    peak: int
    M: int

    @property
    def io(self) -> int:
        """Total I/O, loads plus stores."""
        return self.loads + self.stores


class TwoLevelMachine:
    """Slow memory of named arrays, fast memory of at most ``M`` words, counted transfers.

    Parameters
    ----------
    M : int
        Fast-memory size in words, at least 1.
    numeric : bool
        Carry real float64 data (``True``) or only count (``False``).
    algorithm : str
        Name used in capacity errors.

    Examples
    --------
    >>> import numpy as np
    >>> machine = TwoLevelMachine(8, algorithm="demo")
    >>> machine.put("X", np.arange(6.0).reshape(2, 3))
    >>> block = machine.load("x", "X", 0, 2, 0, 2)
    >>> machine.store("x", "X", 0, 2, 1, 3)
    >>> machine.free("x")
    >>> (machine.loads, machine.stores, machine.peak)
    (4, 4, 4)
    """

    __slots__ = (
        "M",
        "_fast",
        "_shapes",
        "_step",
        "algorithm",
        "loads",
        "numeric",
        "peak",
        "slow",
        "stores",
        "trace",
        "used",
    )

    def __init__(self, M: int, *, numeric: bool = True, algorithm: str = "algorithm") -> None:
        self.M = positive_integer("M", M, AlgorithmParameterError)
        self.numeric = bool(numeric)
        self.algorithm = algorithm
        self.loads = 0
        self.stores = 0
        self.used = 0
        self.peak = 0
        self.slow: dict[str, np.ndarray | None] = {}
        self._shapes: dict[str, tuple[int, int]] = {}
        self._fast: dict[str, tuple[int, np.ndarray | None]] = {}
        self._step = ""
        self.trace = None  # a Trace (attnio.algorithms.trace) records the run as a pebbling

    # ------------------------------------------------------------ slow memory
    def put(self, name: str, value: np.ndarray | tuple[int, int]) -> None:
        """Place an input in slow memory at no cost (an array, or a shape when counting)."""
        if isinstance(value, tuple):
            shape = value
            data = None
            if self.numeric:
                raise MachineError(f"array {name!r}: a numeric machine needs data, got a shape")
        else:
            data = np.asarray(value, dtype=np.float64)
            if data.ndim == 1:
                data = data.reshape(-1, 1)
            shape = data.shape
            if not self.numeric:
                data = None
        if len(shape) != 2:
            raise MachineError(f"array {name!r}: shape {shape} is not two-dimensional")
        self._shapes[name] = (int(shape[0]), int(shape[1]))
        self.slow[name] = data

    def create(self, name: str, rows: int, cols: int) -> None:
        """Reserve an uninitialised slow array (an output or an intermediate) at no cost.

        Its entries are NaN in numeric mode, so reading a word never written shows up.
        """
        self._shapes[name] = (rows, cols)
        self.slow[name] = np.full((rows, cols), np.nan) if self.numeric else None

    def shape(self, name: str) -> tuple[int, int]:
        """Return the shape of slow array ``name``."""
        try:
            return self._shapes[name]
        except KeyError:
            raise MachineError(
                f"no slow array {name!r}; held: {sorted(self._shapes) or 'none'}"
            ) from None

    def result(self, name: str) -> np.ndarray | None:
        """Return slow array ``name`` (``None`` when counting)."""
        self.shape(name)
        return self.slow[name]

    # ------------------------------------------------------------ fast memory
    def step(self, label: str) -> None:
        """Name the algorithm step that follows, for capacity errors."""
        self._step = label

    def _overflow(self, buf: str, words: int, used: int) -> None:
        held = ", ".join(f"{k}={v[0]}" for k, v in self._fast.items())
        raise CapacityError(
            f"{self.algorithm}, step {self._step!r}: buffer {buf!r} of {words} words "
            f"would raise fast memory to {used} > M={self.M} (held: {held or 'nothing'})"
        )

    def alloc(self, buf: str, rows: int, cols: int = 1, fill: float = 0.0) -> np.ndarray | None:
        """Allocate a fast buffer of ``rows * cols`` words filled with ``fill`` (no I/O)."""
        words = rows * cols
        fast = self._fast
        if buf in fast:
            raise MachineError(f"{self.algorithm}: fast buffer {buf!r} is already allocated")
        used = self.used + words
        if used > self.M:
            self._overflow(buf, words, used)
        self.used = used
        if used > self.peak:
            self.peak = used
        if self.trace is not None:
            self.trace.on_alloc(buf, rows, cols)
        if self.numeric:
            data = np.full((rows, cols), fill)
            fast[buf] = (words, data)
            return data
        fast[buf] = (words, None)
        return None

    def free(self, *bufs: str) -> None:
        """Release fast buffers (no I/O)."""
        fast = self._fast
        for buf in bufs:
            entry = fast.pop(buf, None)
            if entry is None:
                raise MachineError(f"{self.algorithm}: no fast buffer {buf!r} to free")
            self.used -= entry[0]
            if self.trace is not None:
                self.trace.on_free(buf)

    def load(self, buf: str, name: str, r0: int, r1: int, c0: int, c1: int) -> np.ndarray | None:
        """Copy ``slow[name][r0:r1, c0:c1]`` into a new fast buffer ``buf``; costs its size."""
        try:
            rows, cols = self._shapes[name]
        except KeyError:
            rows, cols = self.shape(name)
        if not (0 <= r0 < r1 <= rows and 0 <= c0 < c1 <= cols):
            raise MachineError(
                f"{self.algorithm}: slice [{r0}:{r1}, {c0}:{c1}] is empty or outside "
                f"{name!r} of shape {(rows, cols)}"
            )
        words = (r1 - r0) * (c1 - c0)
        fast = self._fast
        if buf in fast:
            raise MachineError(f"{self.algorithm}: fast buffer {buf!r} is already allocated")
        used = self.used + words
        if used > self.M:
            self._overflow(buf, words, used)
        self.used = used
        if used > self.peak:
            self.peak = used
        self.loads += words
        if self.trace is not None:
            self.trace.on_load(buf, name, r0, r1, c0, c1)
        if self.numeric:
            data = self.slow[name][r0:r1, c0:c1].copy()
            fast[buf] = (words, data)
            return data
        fast[buf] = (words, None)
        return None

    def store(self, buf: str, name: str, r0: int, r1: int, c0: int, c1: int) -> None:
        """Copy fast buffer ``buf`` into ``slow[name][r0:r1, c0:c1]``; costs its size."""
        try:
            words, data = self._fast[buf]
        except KeyError:
            raise MachineError(f"{self.algorithm}: no fast buffer {buf!r} to store") from None
        try:
            rows, cols = self._shapes[name]
        except KeyError:
            rows, cols = self.shape(name)
        if not (0 <= r0 < r1 <= rows and 0 <= c0 < c1 <= cols) or (r1 - r0) * (c1 - c0) != words:
            raise MachineError(
                f"{self.algorithm}: buffer {buf!r} of {words} words does not fit slice "
                f"[{r0}:{r1}, {c0}:{c1}] of {name!r} of shape {(rows, cols)}"
            )
        self.stores += words
        if self.trace is not None:
            self.trace.on_store(buf, name, r0, r1, c0, c1)
        if self.numeric:
            self.slow[name][r0:r1, c0:c1] = data.reshape(r1 - r0, c1 - c0)

    def data(self, buf: str) -> np.ndarray | None:
        """Return fast buffer ``buf``'s array (``None`` when counting)."""
        try:
            return self._fast[buf][1]
        except KeyError:
            raise MachineError(f"{self.algorithm}: no fast buffer {buf!r}") from None

    def replace(self, buf: str, value: np.ndarray) -> None:
        """Overwrite numeric buffer ``buf`` in place with ``value`` of the same size."""
        words, data = self._fast[buf]
        if value.size != words:
            raise MachineError(
                f"{self.algorithm}: buffer {buf!r} holds {words} words, got {value.size}"
            )
        data[...] = value.reshape(data.shape)

    def counts(self) -> Counts:
        """Return the loads, stores and peak so far."""
        return Counts(self.loads, self.stores, self.peak, self.M)


def blocks(total: int, size: int) -> list[tuple[int, int]]:
    """Return the ``[start, stop)`` ranges that cut ``range(total)`` into blocks of ``size``.

    The last block is shorter when ``size`` does not divide ``total``.

    Examples
    --------
    >>> blocks(5, 2)
    [(0, 2), (2, 4), (4, 5)]
    """
    return [(start, min(start + size, total)) for start in range(0, total, size)]
