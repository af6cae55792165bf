"""The campaign report: exact optima, bound comparisons, refutations, IO(M) figures.

Every pebbling result is a proven fact about its DAG: ``lower <= IO(G, M) <= upper``
(an exact result proves both; a heuristic pebbling, replayed, proves the upper one).
A catalog lower bound L that applies to the DAG's cell is

- *confirmed* at that point when ``L <= lower``,
- *refuted* when ``L > upper`` (a replayed pebbling costs less than L),
- *undecided* otherwise.

A simulated run is compared with its own count record (they must be equal) and with
every explicit lower bound of its cell (a count below one refutes the bound).
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from attnio.bounds import Bound, Kind, Pass, Regime, catalog, get
from attnio.bounds.schema import JSON_SCHEMA_VERSION

__all__ = ["Comparison", "Report", "build_report"]


@dataclass(frozen=True)
class Comparison:
    """One catalog lower bound at one result's point: its value and what the result says."""

    bound: str
    label: str
    M: int
    point: dict
    value: float
    lower: int
    upper: int
    verdict: str
    """``confirmed``, ``undecided`` or ``refuted``; against a count, ``consistent`` or ``refuted``."""
    by: str = "pebbling"
    """``pebbling`` (``lower <= IO <= upper`` proven) or ``count`` (``upper`` words moved by
    a simulated algorithm, so ``IO <= upper``; ``lower`` is 0)."""

    def to_dict(self) -> dict:
        """Plain values."""
        return {
            "bound": self.bound,
            "instance": self.label,
            "M": self.M,
            "point": self.point,
            "value": self.value,
            "lower": self.lower,
            "upper": self.upper,
            "verdict": self.verdict,
            "by": self.by,
        }


@dataclass
class Report:
    """What a store holds, arranged for a paper: optima per instance and bound comparisons."""

    optima: dict = field(default_factory=dict)
    """``(instance, variant) -> {M: (lower, upper, solver)}``, the tightest proven per M."""
    comparisons: list[Comparison] = field(default_factory=list)
    count_comparisons: list[Comparison] = field(default_factory=list)
    """Explicit lower bounds against simulated counts: a count below a bound refutes it."""
    counts: list[dict] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    """Units skipped with the reason (an M below an algorithm's least feasible memory)."""
    vertices: dict = field(default_factory=dict)
    """``instance -> number of vertices`` of each pebbled DAG."""
    records: dict = field(default_factory=dict)
    """``bound name -> Bound`` of every compared lower bound."""

    @property
    def refutations(self) -> list[Comparison]:
        """The comparisons in which a result refutes a catalog bound."""
        return [c for c in self.comparisons + self.count_comparisons if c.verdict == "refuted"]

    def to_dict(self) -> dict:
        """Plain values, with the JSON schema version."""
        return {
            "schema": JSON_SCHEMA_VERSION,
            "optima": [
                {"instance": inst, "variant": var, "M": M, "lower": lo, "upper": hi, "solver": how}
                for (inst, var), row in sorted(self.optima.items())
                for M, (lo, hi, how) in sorted(row.items())
            ],
            "comparisons": [c.to_dict() for c in self.comparisons + self.count_comparisons],
            "counts": self.counts,
            "refutations": [c.to_dict() for c in self.refutations],
            "errors": self.errors,
            "skipped": self.skipped,
        }

    # ------------------------------------------------------------ rendering

    def markdown(self) -> str:
        """The report as Markdown: optima table, refutations, count checks, errors."""
        lines = ["## IO(G, M): proven optima (a range where only bounds are proven)", ""]
        for (inst, variant), row in sorted(self.optima.items()):
            Ms = sorted(row)
            lines += [f"**{inst}, {variant}**", ""]
            lines.append("| M | " + " | ".join(str(M) for M in Ms) + " |")
            lines.append("|---|" + "---|" * len(Ms))
            lines.append("| Q | " + " | ".join(_cell(*row[M][:2]) for M in Ms) + " |")
            for bound, values in self._compared(inst, variant):
                cells = (_markdown_value(values.get(M)) for M in Ms)
                lines.append(f"| {_reader_name(bound)} | " + " | ".join(cells) + " |")
            lines.append("")
        if self.comparisons:
            lines += [
                "Rows under Q: each explicit lower bound's value at that M",
                "(- where its conditions do not hold). Unmarked: at most the",
                "proven lower bound on Q (confirmed); ? between the proven",
                "bounds (undecided); x above the cost of a replayed pebbling",
                "(refuted).",
                "",
            ]
        confirmed = sum(c.verdict == "confirmed" for c in self.comparisons)
        undecided = sum(c.verdict == "undecided" for c in self.comparisons)
        lines += [
            "## Catalog lower bounds against the results",
            "",
            f"{len(self.comparisons)} comparisons: {confirmed} confirmed, {undecided} undecided, "
            f"{len(self.refutations)} refuted.",
            "",
        ]
        if self.refutations:
            lines += [
                "| bound | instance | M | bound's value | proven Q range |",
                "|---|---|---|---|---|",
            ]
            for c in self.refutations:
                lines.append(
                    f"| {c.bound} | {c.label} | {c.M} | {c.value:g} | {_cell(c.lower, c.upper)} |"
                )
            lines.append("")
        if self.counts:
            bad = [c for c in self.counts if c["matches"] is False]
            lines += [
                "## Machine counts against their closed forms",
                "",
                f"{len(self.counts)} simulated runs, {len(bad)} differ from their count record.",
                f"{len(self.count_comparisons)} comparisons with explicit lower bounds, "
                f"{sum(c.verdict == 'refuted' for c in self.count_comparisons)} refuted.",
                "",
            ]
        if self.errors:
            lines += ["## Units that failed", ""] + [f"- {e}" for e in self.errors] + [""]
        if self.skipped:
            lines += ["## Units skipped", ""] + [f"- {s}" for s in self.skipped] + [""]
        return "\n".join(lines)

    def _compared(self, inst: str, variant: str) -> list[tuple[Bound, dict]]:
        """The bounds compared on one instance and variant: ``(record, {M: (value, verdict)})``."""
        found: dict[str, dict] = {}
        for c in self.comparisons:
            if c.label == f"{inst} ({variant})":
                found.setdefault(c.bound, {})[c.M] = (c.value, c.verdict)
        return [(self.records[name], values) for name, values in found.items()]

    def latex(self) -> str:
        """The optima and the compared lower bounds as booktabs tables, then the refutations.

        One table per instance and variant, rendered by
        :func:`attnio.bounds.render.render_pebblings_latex` (the table ``attnio pebble
        --sweep --format latex`` writes) with a column per compared lower bound, cited in
        the caption. Refuted bounds are listed after the tables.
        """
        from attnio.bounds.render import latex_escape, render_pebblings_latex

        tables = []
        for index, ((inst, variant), row) in enumerate(sorted(self.optima.items())):
            rows = [
                {
                    "M": M,
                    "io": hi,
                    "optimal": lo == hi,
                    "lower": lo,
                    "upper": hi,
                    "method": "exact" if how == "exact" else how,
                }
                for M, (lo, hi, how) in sorted(row.items())
            ]
            tables.append(
                render_pebblings_latex(
                    rows,
                    latex_escape(inst),
                    self.vertices[inst],
                    variant,
                    table_label=f"tab:attnio-campaign-{index + 1}",
                    compared=self._compared(inst, variant),
                )
            )
        if self.refutations:
            items = [
                rf"\item {latex_escape(_reader_name(self.records[c.bound]))} "
                rf"(\texttt{{{latex_escape(c.bound)}}}) on {latex_escape(c.label)} at $M = {c.M}$: "
                rf"${c.value:g} > {c.upper}$, "
                + ("the cost of a replayed pebbling." if c.by == "pebbling" else "its count.")
                for c in self.refutations
            ]
            tables.append(
                "Lower bounds refuted by these results:\n\\begin{itemize}\n"
                + "\n".join(items)
                + "\n\\end{itemize}"
            )
        return "\n".join(tables)


def _reader_name(bound: Bound) -> str:
    from attnio.bounds.labels import label

    try:
        return label(bound)
    except ValueError:  # a record of one's own, without a reader's label
        return bound.name


def _markdown_value(entry: tuple[float, str] | None) -> str:
    if entry is None:
        return "-"
    value, verdict = entry
    text = str(int(value)) if float(value).is_integer() else f"{value:.4g}"
    return text + {"confirmed": "", "undecided": " ?", "refuted": " x"}[verdict]


def _cell(lower: int, upper: int) -> str:
    return str(upper) if lower == upper else f"[{lower}, {upper}]"


def _point(params: dict) -> tuple[dict, tuple[Regime, Pass] | None]:
    """The catalog parameters of a pebble unit's DAG and its catalog cell."""
    from attnio.pebble.builders import BUILDERS

    desc = params["dag"]
    spec = BUILDERS.get(desc.get("kind"))
    if spec is None:
        return {}, None
    point: dict = {"n": desc["n"], "d": desc["d"], "M": params["M"]}
    if "mask" in desc:
        from attnio.pebble.builders import mask_from_spec

        point["Z"] = int(mask_from_spec(desc["mask"], desc["n"]).sum())
    if "degree" in desc:
        from attnio.bounds.symbols import feature_rank

        point["g"] = desc["degree"]
        point["r"] = int(feature_rank(desc["d"], desc["degree"]))
    return point, (spec.regime, spec.pass_)


def _applicable(cell: tuple[Regime, Pass], point: dict, bounds: Sequence[Bound | str] | None):
    regime, pass_ = cell
    records = (
        [get(b) if isinstance(b, str) else b for b in bounds]
        if bounds is not None
        else catalog(regime=regime.value, pass_=pass_.value, kind="lower")
    )
    for record in records:
        if record.explicit is None or record.kind is not Kind.LOWER:
            continue
        if record.regime is not regime or record.pass_ is not pass_:
            continue
        if not set(record.parameters) <= set(point):
            continue
        used = {k: v for k, v in point.items() if k in record.parameters}
        if record.applies(**used):
            yield record, used


def build_report(records: list[dict], bounds: Sequence[Bound | str] | None = None) -> Report:
    """Arrange store records (from :func:`attnio.campaign.load`) into a :class:`Report`.

    ``bounds`` restricts the comparisons to those lower bounds: catalog record names,
    or :class:`~attnio.bounds.Bound` records of one's own (to test a new bound against
    every result a store holds). By default every explicit catalog lower bound whose
    regime, pass and conditions apply is compared.
    """
    report = Report()
    best: dict = defaultdict(dict)
    for record in records:
        params, result = record["params"], record["result"]
        if record["status"] == "error":
            report.errors.append(f"{record['label']}: {result.get('error')}")
            continue
        if record["status"] == "skipped":
            report.skipped.append(f"{record['label']}: {result.get('reason')}")
            continue
        if record["kind"] == "simulate":
            report.counts.append(
                {
                    "label": record["label"],
                    "io": result["io"],
                    "closed_form": result["closed_form"],
                    "matches": result["matches"],
                    "record": result["record"],
                }
            )
            _compare_count(report, record, bounds)
            continue
        slot = (params["dag"]["name"], params["variant"])
        report.vertices[slot[0]] = params["vertices"]
        lower = result["lower"]  # heuristics report the compulsory I/O, also a proven bound
        known = best[slot].get(params["M"])
        if known is None:
            best[slot][params["M"]] = (lower, result["upper"], params["solver"])
        else:
            lo, hi, how = known
            how = params["solver"] if result["upper"] < hi else how
            best[slot][params["M"]] = (max(lo, lower), min(hi, result["upper"]), how)
    report.optima = dict(best)
    for (label, variant), row in sorted(best.items()):
        sample = next(
            r for r in records if r["kind"] == "pebble" and r["params"]["dag"]["name"] == label
        )
        for M, (lower, upper, _) in sorted(row.items()):
            point, cell = _point({**sample["params"], "M": M})
            if cell is None:
                continue
            for bound, used in _applicable(cell, point, bounds):
                report.records[bound.name] = bound
                value = float(bound.evaluate(**used))
                verdict = (
                    "refuted" if value > upper else "confirmed" if value <= lower else "undecided"
                )
                report.comparisons.append(
                    Comparison(
                        bound.name, f"{label} ({variant})", M, used, value, lower, upper, verdict
                    )
                )
    return report


def _compare_count(report: Report, record: dict, bounds: Sequence[Bound | str] | None) -> None:
    """Compare a simulated count with the explicit lower bounds of its regime and pass."""
    from attnio.algorithms import ALGORITHMS

    params, io = record["params"], record["result"]["io"]
    algorithm = ALGORITHMS.get(params["algorithm"])
    if algorithm is None:
        return
    cell = (Regime(algorithm.regime), Pass(params["pass"]))
    point = {"n": params["n"], "d": params["d"], "M": params["M"]}
    for bound, used in _applicable(cell, point, bounds):
        report.records[bound.name] = bound
        value = float(bound.evaluate(**used))
        verdict = "refuted" if value > io else "consistent"
        report.count_comparisons.append(
            Comparison(
                bound.name, record["label"], params["M"], used, value, 0, io, verdict, "count"
            )
        )


def write_figures(report: Report, folder: str) -> list[str]:
    """Write one IO(M) figure per DAG instance and variant into ``folder`` (PDF and PNG).

    Drawn by :mod:`attnio.figures`, like ``attnio plot pebbling``: proven optima as
    filled markers, proven bounds as bars, and the compared lower bounds, each only
    where it holds and is positive (the caption, written beside each figure as a
    ``.txt`` file, says what was left out).
    """
    from pathlib import Path

    from attnio.bounds import get
    from attnio.figures import IOFigure, Series, draw, save
    from attnio.figures.data import bound_series

    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for (label, variant), row in sorted(report.optima.items()):
        Ms = sorted(row)
        proven = tuple(float(row[M][1]) if row[M][0] == row[M][1] else math.nan for M in Ms)
        series = [Series("Exact optimum", "exact", tuple(Ms), proven, "exact")]
        if any(row[M][0] != row[M][1] for M in Ms):
            high = tuple(math.nan if row[M][0] == row[M][1] else float(row[M][1]) for M in Ms)
            low = tuple(math.nan if row[M][0] == row[M][1] else float(row[M][0]) for M in Ms)
            series.append(
                Series("Proven bounds", "exact-bounds", tuple(Ms), high, "exact", None, low)
            )
        mine = [c for c in report.comparisons if c.label == f"{label} ({variant})"]
        omitted = []
        for name in sorted({c.bound for c in mine}):
            point = next(c.point for c in mine if c.bound == name)
            fixed = {k: v for k, v in point.items() if k != "M"}
            one, notes = bound_series(get(name), Ms, "lower", **fixed)
            if notes:
                omitted.append(f"{one.label}: {', '.join(notes)}")
            if not all(math.isnan(v) for v in one.values):
                series.append(one)
        first = next(c for c in mine) if mine else None
        n_, d_ = (first.point.get("n", 0), first.point.get("d", 0)) if first else (0, 0)
        data = IOFigure(
            "backward" if "backward" in label else "forward",
            n_,
            d_,
            tuple(series),
            None,
            tuple(omitted),
            subject=f"pebbling {label} ({report.vertices[label]} vertices, {variant} game)",
            log=False,
        )
        fig = draw(data)
        # Masks such as local:1 name the instance; a colon is no file name on Windows.
        stem = re.sub(
            r"[^A-Za-z0-9_.-]", "-", f"{label}-{variant}".replace(" ", "_").replace("=", "")
        )
        for suffix in ("pdf", "png"):
            path = out / f"{stem}.{suffix}"
            save(fig, path)
            written.append(str(path))
        caption = out / f"{stem}.txt"
        caption.write_text(data.caption() + "\n", encoding="utf-8")
        written.append(str(caption))
    return written
