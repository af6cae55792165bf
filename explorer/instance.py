"""One explored instance: a DAG, where it came from, and the pebblings and bounds computed for it.

An :class:`Instance` answers everything the page asks: pebblings by method
(:func:`Instance.solve`), the catalog's bounds at a memory size
(:func:`Instance.bounds`) and the IO(M) curve (:func:`Instance.curve`). Every
pebbling is re-checked by the independent replayer :func:`attnio.pebble.replay`
before it is shown; ``optimal`` is shown only when the exact solver proved it.
Results are cached, so a page that asks twice is answered at once.

References
----------
HK81 (the game), PW20 (one-shot variant); the catalog's sources are named per record.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass, field

import sympy as sp

from attnio.bounds import Kind, Status, catalog
from attnio.bounds.errors import BoundError
from attnio.bounds.labels import label
from attnio.bounds.schema import JSON_SCHEMA_VERSION
from attnio.bounds.symbols import feature_rank
from attnio.pebble import (
    VARIANTS,
    Dag,
    Move,
    Pebbling,
    builders,
    compulsory_io,
    replay,
    solve_heuristic,
)
from attnio.pebble.exact import EXACT_MAX_VERTICES, solve_exact, sweep_exact
from attnio.pebble.heuristic import compile_kernels

from .errors import RequestError, TooLargeToDrawError
from .formula import condition_svgs, statement_svgs
from .layout import MAX_DRAW_VERTICES, layout

__all__ = ["CURVE_POINTS", "METHODS", "Instance"]

METHODS = ("exact", "belady", "lru", "search")
"""Pebbling methods the page can ask for."""

CURVE_POINTS = 16
"""Most memory sizes one IO(M) curve request may cover."""

_REGIMES = {
    "attention-forward": ("dense", "forward"),
    "attention-backward": ("dense", "backward"),
    "sparse-forward": ("sparse", "forward"),
    "sparse-backward": ("sparse", "backward"),
    "approx-forward": ("approximate", "forward"),
    "approx-backward": ("approximate", "backward"),
    "approx-backward-product": ("approximate", "backward"),
}

_SEARCH_ITERATIONS = 2000

_COMPILING = threading.Lock()


@dataclass
class Instance:
    """A DAG to explore, with its origin and a cache of what was computed for it.

    Build one with :meth:`from_builder` or :meth:`from_dag`.

    Parameters
    ----------
    dag : Dag
        At most :data:`~attnio.explorer.layout.MAX_DRAW_VERTICES` vertices.
    title : str
        What the page calls it.
    kind : str or None
        The builder family (one of :data:`attnio.pebble.KINDS`) or ``None`` for a file.
    params : dict
        The builder's arguments (``n``, ``d``, ``tree``, ``mask``, ``degree``).
    moves : list of Move or None
        A pebbling given on the command line, offered to the page.
    exact_seconds : float
        Time limit of one exact solve; past it the page gets proven bounds.
    curve_states : int
        State-table size of the exact solve at each point of the IO(M) curve: which
        points are proven does not depend on the machine's load.
    curve_seconds : float
        A guard: time limit of the exact solve at each point of the curve.
    max_states : int
        State-table size of the exact solver.
    """

    dag: Dag
    title: str
    kind: str | None = None
    params: dict[str, object] = field(default_factory=dict)
    moves: list[Move] | None = None
    moves_name: str | None = None
    exact_seconds: float = 20.0
    curve_states: int = 600_000
    curve_seconds: float = 60.0
    max_states: int = 4_000_000
    _cache: dict = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _compiled: threading.Event = field(default_factory=threading.Event, repr=False)

    def __post_init__(self) -> None:
        if self.dag.num_vertices > MAX_DRAW_VERTICES:
            raise TooLargeToDrawError(self.dag.num_vertices, MAX_DRAW_VERTICES)

    # ------------------------------------------------------------------ constructors

    @classmethod
    def from_builder(
        cls,
        kind: str,
        n: int,
        d: int,
        *,
        tree: str = "chain",
        mask: str = "causal",
        degree: int = 2,
        **options: object,
    ) -> Instance:
        """Build the attention DAG ``kind`` at (n, d) (see :func:`attnio.pebble.build`).

        Examples
        --------
        >>> Instance.from_builder("attention-forward", 2, 1).dag.num_vertices
        26
        """
        estimate = builders.estimate_vertices(kind, n, d, degree=degree)
        if not kind.startswith("sparse") and estimate > MAX_DRAW_VERTICES:
            raise TooLargeToDrawError(estimate, MAX_DRAW_VERTICES)
        # sparse kinds are estimated with every pair allowed; the built graph is checked
        dag = builders.build(
            kind, n, d, tree=tree, mask=mask, degree=degree, max_vertices=20 * MAX_DRAW_VERTICES
        )
        params: dict[str, object] = {"n": n, "d": d, "tree": tree}
        extra = ""
        if kind.startswith("sparse"):
            params["mask"] = mask
            extra = f", mask {mask}"
        if kind.startswith("approx"):
            params["degree"] = degree
            extra = f", degree {degree}"
        title = f"{kind}, n={n}, d={d}{extra}"
        return cls(dag, title, kind, params, **options)  # type: ignore[arg-type]

    @classmethod
    def from_dag(cls, dag: Dag, title: str = "graph", **options: object) -> Instance:
        """Explore any DAG (drawn in topological layers)."""
        return cls(dag, title, None, {}, **options)  # type: ignore[arg-type]

    # ------------------------------------------------------------------ queries

    def describe(self, M: int, variant: str = "standard") -> dict[str, object]:
        """Return the page's starting data: the drawn DAG, M, variant and what the page may ask.

        Examples
        --------
        >>> data = Instance.from_builder("attention-forward", 2, 1).describe(4)
        >>> data["dag"]["outputs"], data["M"]
        ([24, 25], 4)
        """
        dag = self.dag
        M = self.check_memory(M)
        if variant not in VARIANTS:
            raise RequestError(f"variant={variant!r} must be one of {VARIANTS}")
        return {
            "schema": JSON_SCHEMA_VERSION,
            "title": self.title,
            "kind": self.kind,
            "params": self.params,
            "M": M,
            "variant": variant,
            "variants": list(VARIANTS),
            "methods": list(self.methods()),
            "min_memory": dag.min_memory,
            "max_memory": self.max_memory,
            "compulsory": compulsory_io(dag),
            "moves_file": self.moves_name,
            "formulas": self.formulas(),
            "dag": {
                "labels": list(dag.labels),
                "preds": [dag.predecessors(v).tolist() for v in range(dag.num_vertices)],
                "inputs": dag.inputs.tolist(),
                "outputs": dag.outputs.tolist(),
                "edges": dag.num_edges,
                "layout": layout(dag, staged=self.kind is not None),
            },
        }

    def records(self) -> list:
        """The catalog's records for this DAG's regime and pass (none for a graph file)."""
        if self.kind is None:
            return []
        regime, pass_ = _REGIMES[self.kind]
        return catalog(regime=regime, pass_=pass_)

    def formulas(self) -> dict[str, dict[str, object]]:
        """Each record's reader's label and its statement and conditions typeset as SVG
        (:mod:`attnio.explorer.formula`), keyed by record name; the page shows these, never
        the record names."""
        return {
            bound.name: {
                "label": label(bound),
                "statement": statement_svgs(bound),
                "conditions": condition_svgs(bound),
            }
            for bound in self.records()
        }

    @property
    def max_memory(self) -> int:
        """The largest M the page may ask for (enough to hold every vertex at once)."""
        return max(self.dag.num_vertices, self.dag.min_memory)

    def methods(self) -> tuple[str, ...]:
        """The methods that apply: the exact solver only up to its vertex limit."""
        if self.dag.num_vertices <= EXACT_MAX_VERTICES:
            return METHODS
        return tuple(m for m in METHODS if m != "exact")

    def check_memory(self, M: object) -> int:
        """Return ``M`` if it is an integer in ``min_memory .. max_memory``, else raise."""
        low, high = self.dag.min_memory, self.max_memory
        if isinstance(M, bool) or not isinstance(M, int) or not low <= M <= high:
            raise RequestError(
                f"M={M!r} must be an integer from {low} (max in-degree + 1) to {high}"
            )
        return M

    def solve(self, M: int, variant: str, method: str) -> dict[str, object]:
        """Pebble with ``method``; return the pebbling with its moves, re-checked by the replayer.

        ``exact`` reports ``optimal`` only when proven; under its time or state limit it
        reports the proven bounds ``lower <= IO <= upper`` and the best pebbling found.
        """
        M = self.check_memory(M)
        if method not in self.methods():
            raise RequestError(f"method={method!r} must be one of {self.methods()}")
        key = ("solve", M, variant, method)
        with self._lock:
            if key in self._cache:
                return self._cache[key]
        self.compile()
        if method == "exact":
            found = solve_exact(
                self.dag,
                M,
                variant=variant,
                max_states=self.max_states,
                time_limit=self.exact_seconds,
            )
        else:
            options = {"iterations": _SEARCH_ITERATIONS, "seed": 0} if method == "search" else {}
            found = solve_heuristic(
                self.dag, M, heuristic=method, variant=variant, moves=True, **options
            )
        out = self._pebbling(found, variant)
        with self._lock:
            self._cache[key] = out
        return out

    def compile(self) -> None:
        """Compile the solvers' kernels once (numba; cached on disk after the first run), so
        that compilation never eats into an exact solve's time limit."""
        if self._compiled.is_set():
            return
        with _COMPILING:
            if not self._compiled.is_set():
                tiny = Dag.from_edges(4, [(0, 2), (1, 2), (2, 3), (0, 3)])
                for variant in VARIANTS:
                    solve_exact(tiny, 3, variant=variant)
                compile_kernels()
                self._compiled.set()

    def _pebbling(self, found: Pebbling, variant: str) -> dict[str, object]:
        moves = found.moves or []
        checked = replay(self.dag, moves, found.M, variant)
        if checked.io != found.io:  # pragma: no cover - a solver bug, never shown as a result
            raise AssertionError(f"replayer says io={checked.io}, solver says {found.io}")
        return {
            "method": found.method,
            "M": found.M,
            "variant": variant,
            "io": found.io,
            "loads": found.loads,
            "stores": found.stores,
            "optimal": found.optimal,
            "lower": found.lower,
            "upper": found.upper,
            "seconds": round(found.seconds, 3),
            "states_explored": found.states_explored,
            "peak_red": checked.peak_red,
            "moves": [[op, int(v)] for op, v in moves],
        }

    def given_moves(self) -> dict[str, object]:
        """Return the pebbling given on the command line (``--moves``), not yet checked."""
        if self.moves is None:
            raise RequestError("no moves file was given on the command line (--moves FILE)")
        return {"name": self.moves_name, "moves": [[op, int(v)] for op, v in self.moves]}

    # ------------------------------------------------------------------ bounds

    def catalog_parameters(self) -> dict[str, object]:
        """The catalog symbols this instance fixes, besides M (n, d; Z for masks; g, r)."""
        if self.kind is None:
            return {}
        n, d = self.params["n"], self.params["d"]
        out: dict[str, object] = {"n": n, "d": d}
        if self.kind.startswith("sparse"):
            mask = builders.mask_from_spec(str(self.params["mask"]), int(n))  # type: ignore[arg-type]
            out["Z"] = int(mask.sum())
        if self.kind.startswith("approx"):
            degree = int(self.params["degree"])  # type: ignore[arg-type]
            out["g"] = degree
            out["r"] = int(feature_rank(int(d), degree))  # type: ignore[arg-type]
        return out

    def bounds(self, M: int) -> dict[str, object]:
        """The catalog's records for this DAG's regime and pass, evaluated at (n, d, M).

        Each row carries the record's kind, evidence status, source and algorithm,
        and either its value (``applies`` true), ``applies`` false (outside its
        conditions) or a ``missing`` parameter this DAG does not fix (for example a
        tiling's block density). Lower bounds bound every pebbling of this DAG;
        algorithm counts are the exact costs of those algorithms on the two-level
        machine, whose computation may differ from this DAG (online softmax).
        """
        M = self.check_memory(M)
        key = ("bounds", M)
        with self._lock:
            if key in self._cache:
                return self._cache[key]
        compulsory = compulsory_io(self.dag)
        point = {**self.catalog_parameters(), "M": M}
        rows = [_row(bound, point, compulsory) for bound in self.records()]
        out = {"M": M, "rows": rows, "compulsory": compulsory, "bite": _bite(self.records(), point)}
        with self._lock:
            self._cache[key] = out
        return out

    def curve(self, variant: str, low: int, high: int) -> dict[str, object]:
        """IO(M) for M in ``low..high``: proven optimum where the exact solver finishes in time,
        otherwise its proven bounds with the best heuristic pebbling as the upper value; and
        the catalog's explicit bounds at each M."""
        low, high = self.check_memory(low), self.check_memory(high)
        if not low <= high or high - low + 1 > CURVE_POINTS:
            raise RequestError(
                f"curve M={low}..{high} must have low <= high and at most {CURVE_POINTS} points"
            )
        key = ("curve", variant, low, high)
        with self._lock:
            if key in self._cache:
                return self._cache[key]
        self.compile()
        Ms = list(range(low, high + 1))
        exact: list[Pebbling | None] = [None] * len(Ms)
        if "exact" in self.methods():
            exact = list(
                sweep_exact(
                    self.dag,
                    Ms,
                    variant=variant,
                    max_states=self.curve_states,
                    time_limit=self.curve_seconds,
                )
            )
        points = []
        best_upper = math.inf
        for M, proven in zip(Ms, exact, strict=True):
            if proven is not None and proven.optimal:
                upper, lower, method = proven.io, proven.lower, "exact"
            else:
                found = solve_heuristic(
                    self.dag, M, heuristic="search", variant=variant,
                    iterations=_SEARCH_ITERATIONS // 4, seed=0,
                )  # fmt: skip
                upper, method = found.io, "search"
                lower = found.lower if proven is None else max(found.lower, proven.lower)
                if proven is not None and proven.upper < upper:
                    upper, method = proven.upper, "exact (bounds)"
            best_upper = min(best_upper, upper)  # more memory never costs more
            points.append(
                {
                    "M": M,
                    "upper": int(best_upper),
                    "lower": int(lower),
                    "optimal": bool(proven is not None and proven.optimal),
                    "method": method,
                }
            )
        series = []
        base = self.catalog_parameters()
        for bound in self.records():
            if bound.explicit is None:
                continue
            values = [_row(bound, {**base, "M": M}).get("value") for M in Ms]
            if any(v is not None and v > 0 for v in values):
                series.append(
                    {
                        "name": bound.name,
                        "label": label(bound),
                        "kind": bound.kind.value,
                        "status": bound.status.value,
                        "count": _is_count(bound),
                        "values": values,
                    }
                )
        out = {"variant": variant, "points": points, "bounds": series}
        with self._lock:
            self._cache[key] = out
        return out


def _is_count(bound) -> bool:
    """Whether ``bound`` is an algorithm's exact count (an upper bound derived by attnio)."""
    return bound.kind is Kind.UPPER and bound.algorithm is not None and bound.explicit is not None


BITE_LIMIT = 2**24
"""Largest n :func:`_bite` tries."""


def _bite(records: list, point: dict[str, object]) -> dict[str, object] | None:
    """Where the derived lower bounds start to bite at this page's d and M: the least n (up to
    :data:`BITE_LIMIT`) at which a ``derived`` explicit lower bound other than the compulsory
    I/O exceeds the compulsory I/O record, with that record's label; ``None`` for a DAG whose
    records depend on more than n, d and M (a mask, a rank), or when none does.

    Found by doubling n, then bisecting between the last n where none exceeded it and the
    first where one did, then checked at the n returned (each record is evaluated exactly).
    """
    if set(point) != {"n", "d", "M"}:
        return None
    floor = next(
        (b for b in records if b.kind is Kind.LOWER and b.name.endswith("-compulsory")), None
    )
    derived = [
        b
        for b in records
        if b.kind is Kind.LOWER
        and b.status is Status.DERIVED
        and b.explicit is not None
        and b is not floor
        and set(b.parameters) <= {"n", "d", "M"}
    ]
    if floor is None or not derived:
        return None

    def above(n: int) -> object:
        at = {**point, "n": n}
        least = floor.evaluate(**{k: at[k] for k in floor.parameters})
        best = None
        for bound in derived:
            here = {k: at[k] for k in bound.parameters}
            if bound.applies(**here):
                value = bound.evaluate(**here)
                if value > least and (best is None or value > best[1]):
                    best = (bound, value)
        return best

    low, high = int(point["n"]), int(point["n"])
    while above(high) is None:
        low, high = high, high * 2
        if high > BITE_LIMIT:
            return None
    given = {"d": int(point["d"]), "M": int(point["M"]), "page_n": int(point["n"])}
    if high == int(point["n"]):
        return {"n": high, "label": label(above(high)[0]), "here": True, **given}
    while high - low > 1:
        middle = (low + high) // 2
        if above(middle) is None:
            low = middle
        else:
            high = middle
    return {"n": high, "label": label(above(high)[0]), "here": False, **given}


def _row(bound, point: dict[str, object], compulsory: int | None = None) -> dict[str, object]:
    """One record at ``point``. A lower bound whose value is at most zero, or below this
    DAG's compulsory I/O ``compulsory``, is marked ``vacuous``: it holds but says nothing here."""
    row: dict[str, object] = {
        "name": bound.name,
        "label": label(bound),
        "kind": bound.kind.value,
        "status": bound.status.value,
        "source": bound.source,
        "algorithm": bound.algorithm,
        "count": _is_count(bound),
        "notation": bound.notation,
        "explicit": None if bound.explicit is None else sp.sstr(bound.explicit),
        "conditions": sp.sstr(bound.conditions),
    }
    missing = sorted(set(bound.parameters) - set(point))
    if missing:
        row["missing"] = missing
        return row
    try:
        row["applies"] = bound.applies(**point)
    except BoundError as error:
        row["applies"] = None
        row["note"] = str(error)
        return row
    if row["applies"] and bound.explicit is not None:
        value = bound.evaluate(**point)
        row["value"] = float(value)
        # a rational value exactly; an irrational one (a square root in the record) as a
        # decimal, which is what a reader can compare with the I/O counts on the page
        row["exact"] = sp.sstr(value) if value.is_Rational else f"≈ {float(value):.6g}"
        if bound.kind is not Kind.UPPER:
            floor = 0 if compulsory is None else compulsory
            row["vacuous"] = bool(value <= 0 or value < floor)
    return row
