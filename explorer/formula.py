"""Typeset formulas for the explorer's page: a record's statement and conditions as inline SVG.

The page must work with no network, so nothing is typeset in the browser: each formula is
written in LaTeX by :func:`attnio.bounds.render.latex_math` (the tables' printer) and drawn
here by matplotlib's mathtext (Computer Modern, glyphs as paths) into a small SVG that the
page inlines. A piecewise expression becomes one SVG per piece, each with its condition.
The SVGs carry no date, no background and ids unique to the formula, so that many of them
can share one page.
"""

from __future__ import annotations

import functools
import hashlib
import io
import re

import sympy as sp

from attnio.bounds.record import Bound, Kind, Status
from attnio.bounds.render import explicit_relation, latex_math

__all__ = ["condition_svgs", "math_svg", "statement_svgs"]

_ASYMPTOTIC = {Kind.LOWER: r"\Omega", Kind.UPPER: "O", Kind.TIGHT: r"\Theta"}


def _mathtext(expr: sp.Basic) -> str:
    """The tables' LaTeX of ``expr``, in the subset mathtext reads."""
    text = latex_math(expr)
    text = text.replace(r"\penalty900 ", "").replace(r"\allowbreak ", "")
    return text.replace(r"\bigl(", r"\left(").replace(r"\bigr)", r"\right)")


@functools.lru_cache(maxsize=1024)
def math_svg(tex: str, size: float = 11.0) -> str:
    """Return the LaTeX math ``tex`` (no dollar signs) drawn as an inline ``<svg>`` element.

    Raises
    ------
    ValueError
        If mathtext cannot read ``tex``.
    """
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import mathtext
    from matplotlib.font_manager import FontProperties

    buffer = io.BytesIO()
    settings = {"mathtext.fontset": "cm", "svg.fonttype": "path", "svg.hashsalt": "attnio"}
    with matplotlib.rc_context(settings):
        mathtext.math_to_image(f"${tex}$", buffer, prop=FontProperties(size=size), format="svg")
    text = buffer.getvalue().decode("utf-8")
    text = text[text.index("<svg") :]
    text = re.sub(r"\s*<metadata>.*?</metadata>", "", text, flags=re.S)
    text = re.sub(r'\s*<g id="patch_1">.*?</g>', "", text, count=1, flags=re.S)  # background
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    prefix = "m" + hashlib.sha1(tex.encode("utf-8")).hexdigest()[:10] + "-"
    text = re.sub(r'id="([^"]+)"', lambda m: f'id="{prefix}{m.group(1)}"', text)
    text = re.sub(r'href="#([^"]+)"', lambda m: f'href="#{prefix}{m.group(1)}"', text)
    # Inline in HTML: the SVG namespace is implied and SVG 2 reads plain href.
    text = text.replace(' xmlns:xlink="http://www.w3.org/1999/xlink"', "")
    text = text.replace("xlink:href=", "href=")
    text = text.replace("<svg ", '<svg class="ax-math" role="img" ', 1)
    return re.sub(r"\n\s*", "\n", text).strip()


def _pieces(expr: sp.Basic) -> list[tuple[sp.Basic, sp.Basic]]:
    if isinstance(expr, sp.Piecewise):
        return [(piece, cond) for piece, cond in expr.args]
    return [(expr, sp.true)]


def statement_svgs(bound: Bound) -> list[str]:
    """The record's statement typeset, one SVG per line: ``IO >= explicit`` for an explicit
    lower bound, ``IO <= ...`` for an upper bound, ``I/O = ...`` for an algorithm's exact
    count (its words moved, not the optimum IO), else the
    asymptotic ``Omega(...)``, ``O(...)`` or ``Theta(...)``; a piecewise form one line per piece."""
    if bound.explicit is None:
        if bound.asymptotic is None:
            word = "unknown" if bound.status is Status.OPEN else "claimed, not retrieved"
            return [math_svg(r"\mathrm{" + word.replace(" ", r"\ ") + "}")]
        return [math_svg(rf"{_ASYMPTOTIC[bound.kind]}\left({_mathtext(bound.asymptotic)}\right)")]
    lines = []
    pieces = _pieces(bound.explicit)
    for k, (piece, cond) in enumerate(pieces):
        head = explicit_relation(bound) + " " if k == 0 else r"\quad "
        when = ""
        if len(pieces) > 1:
            when = (
                r"\quad\mathrm{otherwise}"
                if cond is sp.true
                else rf"\quad\mathrm{{if}}\ {_mathtext(cond)}"
            )
        lines.append(math_svg(head + _mathtext(piece) + when))
    return lines


def condition_svgs(bound: Bound) -> list[str]:
    """The record's conditions typeset, one SVG per conjunct (none when it always applies)."""
    if bound.conditions is sp.true:
        return []
    parts = bound.conditions.args if isinstance(bound.conditions, sp.And) else (bound.conditions,)
    return [math_svg(_mathtext(part)) for part in sorted(parts, key=sp.default_sort_key)]
