"""Campaign specs: a TOML file that names many runs, expanded into units of work.

A spec has ``[[pebble]]`` tables (DAG families pebbled by solvers) and
``[[simulate]]`` tables (algorithms run on the two-level machine), and an optional
``[compare]`` table (which catalog bounds the report compares with). Integer fields
take a number, a list of numbers, or an inclusive range ``"lo:hi"``. Example::

    [[pebble]]
    dag = "attention-forward"       # a builder kind; or graph = "g.dot"
    n = 2
    d = [1, 2]
    M = "3:8"                       # sizes below a DAG's minimum are skipped, and counted
    variants = ["standard", "oneshot"]
    solvers = ["exact", "belady"]   # exact, belady, lru, search
    exact = { max_states = 4000000, time_limit = 60 }

    [[simulate]]
    algorithm = ["flash", "square-tiling"]
    pass = "forward"
    n = [256, 512]
    d = 16
    M = [64, 256, 1024]

    [compare]
    bounds = "applicable"           # or a list of catalog record names

Every unit of work has a key: the SHA-256 of the DAG's content (or the simulation's
parameters), M, the variant, the solver and its options, and attnio's version. A
result store answers a unit whose key it holds without running it again. The exact
solver's limits (``max_states``, ``time_limit``) are *not* part of its key: a stored
result with proven bounds only is run again when the spec raises a limit, and the
two runs' bounds are combined (both are proven, so the tighter of each holds).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from attnio.bounds import Regime, catalog

from .errors import SpecError

if TYPE_CHECKING:
    from attnio.pebble import Dag

__all__ = [
    "EXACT_LIMITS",
    "SOLVERS",
    "Spec",
    "Unit",
    "dag_digest",
    "dag_from_json",
    "dag_to_json",
    "read_spec",
]

SOLVERS = ("exact", "belady", "lru", "search")
"""Pebbling solvers a spec may name: the exact A* search and three heuristics."""

EXACT_LIMITS = ("max_states", "time_limit")
"""Exact-solver options that bound the effort but never change a proven result."""

_SOLVER_OPTIONS = {
    "exact": {"max_states", "time_limit", "rules"},
    "belady": set(),
    "lru": set(),
    "search": {"iterations", "time_limit", "seed"},
}
_PEBBLE_FIELDS = {"dag", "graph", "n", "d", "M", "mask", "degree", "tree", "variants", "solvers"}
_PEBBLE_FIELDS |= set(SOLVERS)
_SIMULATE_FIELDS = {
    "algorithm",
    "pass",
    "n",
    "d",
    "M",
    "block_density",
    "degree",
    "seed",
    "numeric",
}


@dataclass(frozen=True)
class Unit:
    """One unit of work: a pebbling of one DAG at one M, or one simulated run.

    Attributes
    ----------
    kind : {"pebble", "simulate"}
    key : str
        Hex SHA-256 of everything that determines the result (see the module docstring).
    params : dict
        Plain JSON values. Pebble units: ``dag`` (the DAG's description: builder kind
        and sizes, or the file it came from), ``dag_digest``, ``M``, ``variant``,
        ``solver``, ``options``. Simulate units: ``algorithm``, ``pass``, ``n``, ``d``,
        ``M`` and the options.
    dag_json : str or None
        Pebble units: the DAG in attnio's JSON graph format, which the worker rebuilds
        and the store keeps so a certificate can be replayed when it is read back.
    """

    kind: str
    key: str
    params: dict
    dag_json: str | None = field(default=None, repr=False, compare=False)

    @property
    def label(self) -> str:
        """A short human-readable name, e.g. ``attention-forward n=2 d=1 M=3 standard exact``."""
        p = self.params
        if self.kind == "pebble":
            return f"{p['dag']['name']} M={p['M']} {p['variant']} {p['solver']}"
        return f"{p['algorithm']} {p['pass']} n={p['n']} d={p['d']} M={p['M']}"


@dataclass(frozen=True)
class Spec:
    """A parsed campaign: its units, the sizes it skipped, and the bounds to compare."""

    path: str
    units: tuple[Unit, ...]
    skipped: tuple[str, ...]
    bounds: tuple[str, ...] | None
    """Catalog record names the report compares with; ``None`` means every applicable one."""


def dag_to_json(dag: Dag) -> str:
    """Return ``dag`` as compact JSON: vertex labels and edges as pairs of positions."""
    return json.dumps(
        {"nodes": list(dag.labels), "edges": dag.edges().tolist()}, separators=(",", ":")
    )


def dag_from_json(text: str) -> Dag:
    """Rebuild a DAG written by :func:`dag_to_json`."""
    from attnio.pebble import Dag

    data = json.loads(text)
    return Dag.from_edges(data["nodes"], data["edges"])


def dag_digest(dag_json: str) -> str:
    """Return the hex SHA-256 of a DAG's canonical JSON (attnio's graph format)."""
    data = json.loads(dag_json)
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def _key(kind: str, params: dict, version: str) -> str:
    keyed = {k: v for k, v in params.items() if k != "dag"}
    if params.get("solver") == "exact":
        keyed["options"] = {k: v for k, v in params["options"].items() if k not in EXACT_LIMITS}
    text = json.dumps({"kind": kind, "version": version, **keyed}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


# --------------------------------------------------------------------- reading


def read_spec(path: str | Path, *, version: str | None = None) -> Spec:
    """Read and expand the campaign spec at ``path``.

    Raises
    ------
    SpecError
        Unknown tables or fields, wrong types, unknown DAG kinds, solvers or
        algorithms, or a spec with no unit of work; the message names the table and
        field.
    OSError
        The file cannot be read.
    """
    path = Path(path)
    raw = path.read_bytes()
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise SpecError(f"campaign spec {str(path)!r} is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as error:
        raise SpecError(f"campaign spec {str(path)!r}: not valid TOML ({error})") from None
    if version is None:
        from attnio import __version__ as version
    unknown = set(data) - {"pebble", "simulate", "compare"}
    if unknown:
        raise SpecError(
            f"campaign spec {str(path)!r}: unknown tables {sorted(unknown)}; "
            "valid: [[pebble]], [[simulate]], [compare]"
        )
    bounds = _compare(data, path)
    units: list[Unit] = []
    skipped: list[str] = []
    for index, table in enumerate(_tables(data, "pebble", path)):
        where = f"campaign spec {str(path)!r} [[pebble]] #{index + 1}"
        units += _pebble_units(table, where, path.parent, version, skipped)
    for index, table in enumerate(_tables(data, "simulate", path)):
        where = f"campaign spec {str(path)!r} [[simulate]] #{index + 1}"
        units += _simulate_units(table, where, version)
    if not units:
        raise SpecError(f"campaign spec {str(path)!r} names no unit of work")
    seen: dict[str, Unit] = {}
    for unit in units:
        seen.setdefault(unit.key, unit)
    return Spec(str(path), tuple(seen.values()), tuple(skipped), bounds)


def _tables(data: dict, name: str, path: Path) -> list[dict]:
    tables = data.get(name, [])
    if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
        raise SpecError(
            f"campaign spec {str(path)!r}: {name} must be an array of tables [[{name}]]"
        )
    return tables


def _compare(data: dict, path: Path) -> tuple[str, ...] | None:
    table = data.get("compare", {})
    if not isinstance(table, dict) or set(table) - {"bounds"}:
        raise SpecError(f"campaign spec {str(path)!r} [compare]: only the field 'bounds' is valid")
    bounds = table.get("bounds", "applicable")
    if bounds == "applicable":
        return None
    if not isinstance(bounds, list) or not all(isinstance(b, str) for b in bounds):
        raise SpecError(
            f"campaign spec {str(path)!r} [compare] bounds={bounds!r} must be "
            '"applicable" or a list of catalog record names'
        )
    names = {b.name for b in catalog()}
    missing = [b for b in bounds if b not in names]
    if missing:
        raise SpecError(
            f"campaign spec {str(path)!r} [compare] bounds names unknown records {missing}"
        )
    return tuple(bounds)


def _integers(table: dict, name: str, where: str, default: list[int] | None = None) -> list[int]:
    """A number, a list of numbers, or an inclusive range "lo:hi", as a list of integers."""
    if name not in table:
        if default is None:
            raise SpecError(f"{where}: field {name!r} is required")
        return default
    value = table[name]
    if isinstance(value, str):
        parts = value.split(":")
        try:
            lo, hi = (int(p) for p in parts)
        except ValueError:
            raise SpecError(
                f'{where}: {name}={value!r} must be an integer, a list, or a range "lo:hi"'
            ) from None
        if not 1 <= lo <= hi:
            raise SpecError(f"{where}: {name}={value!r} needs 1 <= lo <= hi")
        values = list(range(lo, hi + 1))
    elif isinstance(value, list):
        values = value
    else:
        values = [value]
    if not values or not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        raise SpecError(f"{where}: {name}={value!r} must hold integers")
    if any(v < 1 for v in values):
        raise SpecError(f"{where}: {name}={value!r} must hold positive integers")
    if len(values) > 10_000:
        raise SpecError(f"{where}: {name}={value!r} has {len(values)} values; at most 10000")
    return sorted(set(values))


def _strings(table: dict, name: str, where: str, valid: tuple[str, ...], default: list[str]):
    value = table.get(name, default)
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise SpecError(f"{where}: {name}={value!r} must be a string or a list of strings")
    bad = [v for v in value if v not in valid]
    if bad:
        raise SpecError(f"{where}: {name} has {bad}; valid: {list(valid)}")
    return list(dict.fromkeys(value))


def _options(table: dict, solver: str, where: str) -> dict:
    options = table.get(solver, {})
    if not isinstance(options, dict):
        raise SpecError(f"{where}: {solver} must be a table of options, got {options!r}")
    unknown = set(options) - _SOLVER_OPTIONS[solver]
    if unknown:
        raise SpecError(
            f"{where}: {solver} options {sorted(unknown)} are unknown; "
            f"valid: {sorted(_SOLVER_OPTIONS[solver])}"
        )
    for key, value in options.items():
        if key == "rules":
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise SpecError(f"{where}: {solver}.rules={value!r} must be a list of names")
        elif key == "seed":
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise SpecError(f"{where}: {solver}.seed={value!r} must be a nonnegative integer")
        elif isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
            raise SpecError(f"{where}: {solver}.{key}={value!r} must be a positive number")
        elif key in ("max_states", "iterations") and not isinstance(value, int):
            raise SpecError(f"{where}: {solver}.{key}={value!r} must be an integer")
    if solver == "search":
        options = {"seed": 0, **options}
    return dict(sorted(options.items()))


def _pebble_units(
    table: dict, where: str, base: Path, version: str, skipped: list[str]
) -> list[Unit]:
    from attnio.pebble import KINDS, build, load_dag

    unknown = set(table) - _PEBBLE_FIELDS
    if unknown:
        raise SpecError(
            f"{where}: unknown fields {sorted(unknown)}; valid: {sorted(_PEBBLE_FIELDS)}"
        )
    if ("dag" in table) == ("graph" in table):
        raise SpecError(f"{where}: give exactly one of dag (a builder kind) and graph (a file)")
    variants = _strings(table, "variants", where, ("standard", "oneshot"), ["standard"])
    solvers = _strings(table, "solvers", where, SOLVERS, ["exact"])
    options = {solver: _options(table, solver, where) for solver in solvers}
    Ms = _integers(table, "M", where)

    dags: list[tuple[dict, Dag]] = []
    if "graph" in table:
        file = table["graph"]
        if not isinstance(file, str):
            raise SpecError(f"{where}: graph={file!r} must be a path")
        path = Path(file) if Path(file).is_absolute() else base / file
        dags.append(({"name": Path(file).name, "graph": file}, load_dag(path)))
    else:
        kind = table["dag"]
        if kind not in KINDS:
            raise SpecError(f"{where}: dag={kind!r} is not one of {list(KINDS)}")
        tree = table.get("tree", "chain")
        masks = table.get("mask", ["causal"])
        masks = [masks] if isinstance(masks, str) else masks
        degrees = _integers(table, "degree", where, default=[2])
        sparse = kind.startswith("sparse")
        for n_, d_ in itertools.product(_integers(table, "n", where), _integers(table, "d", where)):
            for mask, degree in itertools.product(
                masks if sparse else [None], degrees if kind.startswith("approx") else [None]
            ):
                desc: dict = {"kind": kind, "n": n_, "d": d_, "tree": tree}
                extra = {}
                if mask is not None:
                    desc["mask"] = extra["mask"] = mask
                if degree is not None:
                    desc["degree"] = extra["degree"] = degree
                name = f"{kind} n={n_} d={d_}" + "".join(f" {k}={v}" for k, v in extra.items())
                desc["name"] = name
                dags.append((desc, build(kind, n_, d_, tree=tree, **extra)))

    units = []
    for desc, dag in dags:
        dag_json = dag_to_json(dag)
        digest = dag_digest(dag_json)
        feasible = [M for M in Ms if M >= dag.min_memory]
        if len(feasible) < len(Ms):
            skipped.append(
                f"{desc['name']}: M < {dag.min_memory} (its minimum) skipped "
                f"({len(Ms) - len(feasible)} sizes)"
            )
        for M, variant, solver in itertools.product(feasible, variants, solvers):
            params = {
                "dag": desc,
                "dag_digest": digest,
                "vertices": dag.num_vertices,
                "M": M,
                "variant": variant,
                "solver": solver,
                "options": options[solver],
            }
            units.append(Unit("pebble", _key("pebble", params, version), params, dag_json))
    return units


def _simulate_units(table: dict, where: str, version: str) -> list[Unit]:
    from attnio.algorithms import ALGORITHMS

    unknown = set(table) - _SIMULATE_FIELDS
    if unknown:
        raise SpecError(
            f"{where}: unknown fields {sorted(unknown)}; valid: {sorted(_SIMULATE_FIELDS)}"
        )
    algorithms = _strings(table, "algorithm", where, tuple(ALGORITHMS), [])
    passes = _strings(table, "pass", where, ("forward", "backward"), ["forward"])
    numeric = table.get("numeric", False)
    if not isinstance(numeric, bool):
        raise SpecError(f"{where}: numeric={numeric!r} must be true or false")
    seed = table.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise SpecError(f"{where}: seed={seed!r} must be a nonnegative integer")
    density = table.get("block_density")
    if density is not None and (
        isinstance(density, bool) or not isinstance(density, int | float) or not 0 < density <= 1
    ):
        raise SpecError(f"{where}: block_density={density!r} must be in (0, 1]")
    degree = table.get("degree")
    if degree is not None and (
        isinstance(degree, bool) or not isinstance(degree, int) or degree < 0
    ):
        raise SpecError(f"{where}: degree={degree!r} must be a nonnegative integer")
    units = []
    for algorithm, pass_ in itertools.product(algorithms, passes):
        algo = ALGORITHMS[algorithm]
        if pass_ not in algo.runners:
            raise SpecError(f"{where}: {algorithm} has no {pass_} pass")
        options: dict = {"numeric": numeric, "seed": seed}
        if algo.regime is Regime.SPARSE:
            if density is None:
                raise SpecError(f"{where}: {algorithm} is sparse and needs block_density")
            options["block_density"] = float(density)
        if algo.regime is Regime.APPROXIMATE:
            if degree is None:
                raise SpecError(f"{where}: {algorithm} needs degree")
            options["degree"] = degree
        for n_, d_, M in itertools.product(
            _integers(table, "n", where), _integers(table, "d", where), _integers(table, "M", where)
        ):
            params = {"algorithm": algorithm, "pass": pass_, "n": n_, "d": d_, "M": M, **options}
            units.append(Unit("simulate", _key("simulate", params, version), params))
    return units
