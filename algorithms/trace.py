"""A machine run recorded as a pebbling of the graph of the computation it performs.

A :class:`Trace` attached to a :class:`~attnio.algorithms.machine.TwoLevelMachine`
(``machine.trace = Trace(graph, inputs)``) follows every word: which vertex of the graph
each slow word and each fast buffer word holds. The machine itself reports its loads,
stores, allocations and frees; the algorithm reports only what the machine cannot see,
its arithmetic: :meth:`Trace.compute` puts the value of a vertex into a fast word, and
:meth:`Trace.bind` copies a vertex already in fast memory into another word. From these
the trace writes red-blue pebble game moves (HK81; ``docs/game.md``):

* a load of a word holding a vertex is a load move; a store, a store move;
* a compute is a compute move of the vertex, after computing (as *scratch*) every
  predecessor that is in no fast word, each deleted as soon as its successor is computed;
* a vertex's red pebble is deleted when no fast word holds it and it is not scratch.

Words that hold no vertex (a buffer filled with a constant, 0 or -inf) move no pebble;
a load of a vertex that is red already, or a store of one that is blue already, is no
move either. :attr:`Trace.unmatched` counts those words, so that
``machine.loads + machine.stores - trace.unmatched`` is the I/O of the pebbling. The
pebbling may hold more red pebbles than the machine's words: the scratch values of a
summation tree or an update in place, which the machine does not charge; a replayer
shows the exact number.

The graph is read duck-typed (``labels``, ``predecessors(v)``, ``indegree``), so this
module does not import :mod:`attnio.pebble`; ``attnio.pebble.moves.replay`` checks the
moves.

References
----------
HK81 (the red-blue pebble game); docs/game.md (the rules the replayer enforces).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from .errors import MachineError
from .machine import Counts, TwoLevelMachine

__all__ = ["Trace", "record"]


class Trace:
    """Pebble-game moves of a machine run on ``graph``.

    Parameters
    ----------
    graph : Dag-like
        The graph of the computation (``labels``, ``predecessors(v)``, ``indegree``);
        a label ``"A=B"`` names one vertex by both names.
    inputs : mapping
        Slow array name -> label prefix of its words: word (r, c) of array ``name`` holds
        the vertex ``f"{prefix}[r,c]"``, or ``f"{prefix}[r]"`` for a one-column array.

    Attributes
    ----------
    moves : list of (str, int)
        The moves so far, ``(op, vertex)``.
    unmatched : int
        Words the machine moved that are no pebble move (constants, repeated loads or
        stores of one vertex).
    """

    def __init__(self, graph: object, inputs: Mapping[str, str]) -> None:
        self.graph = graph
        self.moves: list[tuple[str, int]] = []
        self.unmatched = 0
        self._index: dict[str, int] = {}
        for v, label in enumerate(graph.labels):  # type: ignore[attr-defined]
            for part in label.split("="):
                self._index.setdefault(part, v)
        self._inputs = dict(inputs)
        self._slow: dict[tuple[str, int, int], int | None] = {}
        self._fast: dict[str, list[int | None]] = {}
        self._cols: dict[str, int] = {}
        self._held: dict[int, int] = {}
        self._red: set[int] = set()
        self._blue: set[int] = {
            v
            for v, degree in enumerate(graph.indegree.tolist())  # type: ignore[attr-defined]
            if degree == 0
        }

    # ------------------------------------------------------------ vertices
    def vertex(self, label: str) -> int:
        """The vertex named ``label``."""
        try:
            return self._index[label]
        except KeyError:
            raise MachineError(f"trace: the graph has no vertex {label!r}") from None

    def _slow_word(self, name: str, r: int, c: int) -> int | None:
        key = (name, r, c)
        if key in self._slow:
            return self._slow[key]
        prefix = self._inputs.get(name)
        if prefix is None:
            return None
        label = f"{prefix}[{r},{c}]"
        if label not in self._index and c == 0:
            label = f"{prefix}[{r}]"
        return self.vertex(label)

    def _hold(self, v: int | None) -> None:
        if v is not None:
            self._held[v] = self._held.get(v, 0) + 1

    def _release(self, v: int | None) -> None:
        if v is None:
            return
        self._held[v] -= 1
        if self._held[v] == 0:
            del self._held[v]
            self._drop(v)

    def _drop(self, v: int) -> None:
        if v in self._red and v not in self._held:
            self._red.discard(v)
            self.moves.append(("delete", v))

    # ------------------------------------------------------------ machine events
    def on_alloc(self, buf: str, rows: int, cols: int) -> None:
        """A new fast buffer of constants: its words hold no vertex."""
        self._fast[buf] = [None] * (rows * cols)
        self._cols[buf] = cols

    def on_load(self, buf: str, name: str, r0: int, r1: int, c0: int, c1: int) -> None:
        """Words of slow ``name`` into the new buffer ``buf``: a load move for each vertex."""
        words: list[int | None] = []
        for r in range(r0, r1):
            for c in range(c0, c1):
                v = self._slow_word(name, r, c)
                if v is None or v in self._red:
                    self.unmatched += 1
                else:
                    if v not in self._blue:
                        raise MachineError(
                            f"trace: {self.graph.labels[v]!r} loaded but never stored"
                        )  # type: ignore[attr-defined]
                    self._red.add(v)
                    self.moves.append(("load", v))
                self._hold(v)
                words.append(v)
        self._fast[buf] = words
        self._cols[buf] = c1 - c0

    def on_store(self, buf: str, name: str, r0: int, r1: int, c0: int, c1: int) -> None:
        """Buffer ``buf`` into slow ``name``: a store move for each vertex not yet blue."""
        words = iter(self._fast[buf])
        for r in range(r0, r1):
            for c in range(c0, c1):
                v = next(words)
                self._slow[name, r, c] = v
                if v is None or v in self._blue:
                    self.unmatched += 1
                else:
                    self._blue.add(v)
                    self.moves.append(("store", v))

    def on_free(self, buf: str) -> None:
        """Buffer ``buf`` released: every vertex no other word holds loses its red pebble."""
        for v in self._fast.pop(buf):
            self._release(v)
        del self._cols[buf]

    # ------------------------------------------------------------ arithmetic
    def _word(self, buf: str, at: tuple[int, int] | int) -> int:
        if isinstance(at, tuple):
            return at[0] * self._cols[buf] + at[1]
        return at

    def _ensure(self, v: int) -> bool:
        """Make ``v`` red, computing predecessors as scratch; True when it was computed."""
        if v in self._red:
            return False
        if self.graph.indegree[v] == 0:  # type: ignore[attr-defined]
            raise MachineError(
                f"trace: input {self.graph.labels[v]!r} is used but not in fast memory"  # type: ignore[attr-defined]
            )
        missing = [p for p in self.graph.predecessors(v).tolist() if p not in self._red]  # type: ignore[attr-defined]
        # The predecessor that needs the most scratch first (Sethi and Ullman's order): a
        # product computed first would stay red all through a deeper sibling's subtree.
        needs: dict[int, int] = {}
        missing.sort(key=lambda p: -self._scratch(p, needs))
        made = [p for p in missing if self._ensure(p)]
        self.moves.append(("compute", v))
        self._red.add(v)
        for p in made:
            self._drop(p)
        return True

    def _scratch(self, v: int, needs: dict[int, int]) -> int:
        """Red pebbles :meth:`_ensure` needs to compute ``v`` from what is red now: 0 for a
        red vertex, else the Ershov number over its missing predecessors, taken in the
        order :meth:`_ensure` takes them (memoized in ``needs``)."""
        if v in self._red or self.graph.indegree[v] == 0:  # type: ignore[attr-defined]
            return 0
        if v not in needs:
            below = sorted(
                (self._scratch(p, needs) for p in self.graph.predecessors(v).tolist()),  # type: ignore[attr-defined]
                reverse=True,
            )
            needs[v] = max([1] + [need + i for i, need in enumerate(below)])
        return needs[v]

    def compute(self, label: str, buf: str | None = None, at: tuple[int, int] | int = 0) -> None:
        """Compute the vertex ``label`` into word ``at`` ((row, col) or flat) of ``buf``.

        Predecessors in no fast word are computed first as scratch and deleted once used;
        the word's previous vertex is released after the compute (no sliding: the new
        value takes a red pebble of its own while the old one is still there). With
        ``buf=None`` the value goes to a register the machine does not charge (a scalar
        such as a rescale factor), held until :meth:`release`.
        """
        v = self.vertex(label)
        self._ensure(v)
        self._hold(v)
        if buf is None:
            return
        word = self._word(buf, at)
        old = self._fast[buf][word]
        self._fast[buf][word] = v
        self._release(old)

    def release(self, label: str) -> None:
        """Let go of the register holding ``label`` (see :meth:`compute`)."""
        self._release(self.vertex(label))

    def bind(self, buf: str, at: tuple[int, int] | int, label: str | None) -> None:
        """Word ``at`` of ``buf`` now holds the vertex ``label`` (red already), or a constant."""
        v = None if label is None else self.vertex(label)
        if v is not None and v not in self._red:
            raise MachineError(f"trace: {label!r} is not in fast memory")
        word = self._word(buf, at)
        old = self._fast[buf][word]
        self._fast[buf][word] = v
        self._hold(v)
        self._release(old)

    def copy(
        self, buf: str, at: tuple[int, int] | int, src: str, src_at: tuple[int, int] | int
    ) -> None:
        """Word ``at`` of ``buf`` now holds what word ``src_at`` of ``src`` holds (a copy)."""
        v = self._fast[src][self._word(src, src_at)]
        word = self._word(buf, at)
        old = self._fast[buf][word]
        self._fast[buf][word] = v
        self._hold(v)
        self._release(old)


def record(
    runner: Callable[[TwoLevelMachine, int, int], None],
    graph: object,
    n: int,
    d: int,
    M: int,
    inputs: Mapping[str, tuple[int, int]],
) -> tuple[Trace, Counts]:
    """Run ``runner`` on a counting machine with a :class:`Trace` of ``graph`` attached.

    ``inputs`` maps each slow input array to its shape; its words are the graph's input
    vertices of the same name (``"Q[r,c]"``, ``"L[r]"``).

    Examples
    --------
    >>> from attnio.algorithms.streaming import row_streaming_forward
    >>> from attnio.pebble.builders import streaming_forward
    >>> from attnio.pebble.moves import replay
    >>> trace, counts = record(row_streaming_forward, streaming_forward(2, 1), 2, 1, 10,
    ...                        {"Q": (2, 1), "K": (2, 1), "V": (2, 1)})
    >>> replay(streaming_forward(2, 1), trace.moves, 10).io == counts.io
    True
    """
    machine = TwoLevelMachine(M, numeric=False, algorithm=getattr(runner, "__name__", "run"))
    for name, shape in inputs.items():
        machine.put(name, shape)
    trace = Trace(graph, {name: name for name in inputs})
    machine.trace = trace
    runner(machine, n, d)
    return trace, machine.counts()
