"""Benchmark: ``attnio check`` on a handful of claims, time per claim and per check.

Run: ``.venv/bin/python benchmarks/check.py``

Checks eight claims (the two of ``examples/claims.toml`` and six planted ones: true and
false lower, upper and tight bounds, dense and sparse, forward and backward, one
asymptotic-only) and prints, per claim, its verdict, the seconds of each check (z3
obligations, pebbling, counting) and the total. The whole run is done twice in one
process: the first pays for compiling the numba kernels and for the exact pebblings,
which later claims of the same pass share; the second run shows the cost of a claim
once those are cached (the ratio is printed). Target: a handful of claims in under a
minute on 2 cores.

Then one typical claim is checked the quick way (``attnio check --claim 'lower:
n**2*d**2/(100*M)' --regime dense --pass forward --cache large``, through
:func:`attnio.claims.parse_claim_text`), with the pebbling cache cleared, and its time is
set against the file-based run of the same process (its mean per claim, cold): the
target is a few seconds for one claim on 2 cores.
"""

from __future__ import annotations

import time
from pathlib import Path

from attnio.bounds import Bound
from attnio.bounds.symbols import M, d, n
from attnio.claims import check, parse_claim_text, parse_claims, read_claims
from attnio.claims.pebbling import clear_cache

ROOT = Path(__file__).resolve().parents[1]

PLANTED = """
[[bound]]
name = "five-nd-lower"
kind = "lower"
regime = "dense"
pass = "forward"
expression = "5*n*d"

[[bound]]
name = "flash-upper-too-low"
kind = "upper"
regime = "dense"
pass = "forward"
algorithm = "flash"
expression = "3*n*d + n**2*d**2/M"
conditions = "M >= 5*d + 4"

[[bound]]
name = "backward-compulsory"
kind = "lower"
regime = "dense"
pass = "backward"
expression = "8*n*d + n"

[[bound]]
name = "theta-nd"
kind = "tight"
regime = "dense"
pass = "forward"
expression = "n*d"
constant = 4

[[bound]]
name = "block-sparse-upper"
kind = "upper"
regime = "sparse"
pass = "forward"
algorithm = "block-sparse-flash"
expression = "3*n*d + 2*n + s*n**2*(3*d + 4)*(2*(5*d + 4)/M + 1/n)"
conditions = "M >= 5*d + 4"
"""


ASYMPTOTIC_ONLY = Bound(
    name="asymptotic-only", kind="lower", regime="dense", pass_="forward", cache="large",
    asymptotic=n**2 * d**2 / M, explicit=None, conditions=None, source="benchmark",
    status="claimed",
)  # fmt: skip


def _run(claims: list) -> tuple[list, float, float]:
    start, cpu = time.perf_counter(), time.process_time()
    reports = check(claims)
    return reports, time.perf_counter() - start, time.process_time() - cpu


def main() -> None:
    claims = [
        *read_claims(ROOT / "examples" / "claims.toml"),
        *parse_claims(PLANTED),
        ASYMPTOTIC_ONLY,
    ]
    clear_cache()
    cold, cold_total, cold_cpu = _run(claims)
    warm, warm_total, warm_cpu = _run(claims)
    print(
        f"{'claim':<24} {'verdict':<24} {'z3':>6} {'pebble':>7} {'count':>6} {'cold':>6} {'warm':>6}"
    )
    for first, second in zip(cold, warm, strict=True):
        by_check = {"z3": 0.0, "pebbling": 0.0, "counting": 0.0}
        for item in first.evidence:
            key = "z3" if item.check in ("z3", "monotonicity", "conditions") else item.check
            by_check[key] = by_check.get(key, 0.0) + item.seconds
        print(
            f"{first.name:<24} {first.verdict:<24} {by_check['z3']:6.1f} "
            f"{by_check['pebbling']:7.1f} {by_check['counting']:6.1f} {first.seconds:6.1f} "
            f"{second.seconds:6.1f}"
        )
    print(
        f"{len(claims)} claims: {cold_total:.1f} s wall / {cold_cpu:.1f} s CPU cold (first in "
        f"this process), {warm_total:.1f} s wall / {warm_cpu:.1f} s CPU with the pebblings "
        f"cached; wall ratio cold / cached {cold_total / warm_total:.2f}"
    )
    one_claim(cold_total / len(claims))


TYPICAL = dict(text="lower: n**2*d**2/(100*M)", regime="dense", pass_="forward", cache="large")
"""The one claim of the quick path (the one on attnio check --help)."""


def one_claim(baseline_per_claim: float) -> None:
    """Time the typical claim from the command line's reader, pebblings not cached."""
    claim = parse_claim_text(**TYPICAL)
    clear_cache()
    (report,), total, cpu = _run([claim])
    by_check: dict[str, float] = {}
    for item in report.evidence:
        by_check[item.check] = by_check.get(item.check, 0.0) + item.seconds
    shown = ", ".join(f"{k} {v:.1f}" for k, v in by_check.items())
    print(
        f"one claim ({TYPICAL['text']}, {TYPICAL['regime']} {TYPICAL['pass_']} "
        f"{TYPICAL['cache']}): {report.verdict}, {total:.1f} s wall / {cpu:.1f} s CPU ({shown}); "
        f"file-based mean per claim (cold) {baseline_per_claim:.1f} s, ratio "
        f"{total / baseline_per_claim:.2f}"
    )


if __name__ == "__main__":
    main()
