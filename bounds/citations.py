"""Citations of the catalog's sources: BibTeX keys, theorem locators and the shipped .bib.

A record's ``source`` names papers by their short names (``SY24 Thm 3.1``) and attnio's own
work by path (``proofs/derivations/lower-large.md``, ``attnio.algorithms.flash``).
:func:`citations` turns it into ``(key, locator)`` pairs, :func:`cite_latex` into
``\\cite[Thm.~3.1]{saha2024io}``, and :func:`bibliography` returns the BibTeX entries of
``references.bib`` (package data) for a set of keys.
"""

from __future__ import annotations

import functools
import pathlib
import re
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import metadata, resources

from .errors import RecordError
from .record import Bound

KEYS: dict[str, str] = {
    "HK81": "hong1981io",
    "SY24": "saha2024io",
    "LLSSZ24": "li2024finegrained",
    "SZP26": "sobczyk2026approaching",
    "DFE22": "dao2022flashattention",
    "D23": "dao2023flashattention2",
    "AS23": "alman2023fast",
    "AS24": "alman2024finegrained",
    "SLLG17": "smith2017tight",
    "PS14": "pagh2014input",
    "PW20": "papp2020hardness",
    "DL18": "demaine2018redblue",
}
"""Short name used in the catalog's sources -> BibTeX key in ``references.bib``."""

ATTNIO_KEY = "attnio"
"""BibTeX key of attnio itself, cited for its own derivations and exact counts."""

NO_SOURCE = frozenset({"none published"})
"""Sources that name nothing to cite: the record says that no result is published."""

_ATTNIO_MARKERS = ("proofs/derivations", "docs/", "attnio.", "trivial")
_SHORT = re.compile(r"\b(" + "|".join(sorted(KEYS, key=len, reverse=True)) + r")\b")
_SHORT_LIKE = re.compile(r"\b[A-Z]{1,8}\d{2}\b")
_LOCATOR = re.compile(
    r"\s*((?:Thm|Lemma|Prop|Alg|Cor|Def)\.?)\s*(\d+(?:\.\d+)?(?:\s*,\s*\d+(?:\.\d+)?)*)"
)
_LOCATOR_WORDS = {
    "Thm": "Thm.",
    "Lemma": "Lem.",
    "Prop": "Prop.",
    "Alg": "Alg.",
    "Cor": "Cor.",
    "Def": "Def.",
}


@dataclass(frozen=True)
class Citation:
    """One cited work: its BibTeX key and, when the source names one, a locator."""

    key: str
    locator: str = ""

    def latex(self) -> str:
        """Return ``\\cite[locator]{key}`` (``~`` ties the locator's number to its word)."""
        if not self.locator:
            return rf"\cite{{{self.key}}}"
        tied = re.sub(r"([A-Za-z.]) (\d)", r"\1~\2", self.locator)
        return rf"\cite[{tied}]{{{self.key}}}"


def citations(bound: Bound) -> tuple[Citation, ...]:
    """Return the works ``bound.source`` cites, papers first in order, then attnio.

    Raises
    ------
    RecordError
        If the source names something that looks like a paper's short name but has no
        BibTeX key, or names nothing at all and is not in :data:`NO_SOURCE`.

    Examples
    --------
    >>> from attnio.bounds import get
    >>> citations(get("dense-forward-tight"))
    (Citation(key='saha2024io', locator='Thm. 3.1'),)
    """
    source = bound.source
    unknown = {m for m in _SHORT_LIKE.findall(source) if m not in KEYS}
    if unknown:
        raise RecordError(
            f"bound {bound.name!r}: source {source!r} names {sorted(unknown)}, which have no "
            f"BibTeX key (known: {', '.join(KEYS)})"
        )
    found: list[Citation] = []
    matches = list(_SHORT.finditer(source))
    for k, match in enumerate(matches):
        end = matches[k + 1].start() if k + 1 < len(matches) else len(source)
        parts = []
        for loc in _LOCATOR.finditer(source, match.end(), end):
            numbers = re.sub(r"\s*,\s*", ", ", loc.group(2))
            parts.append(f"{_LOCATOR_WORDS[loc.group(1).rstrip('.')]} {numbers}")
        citation = Citation(KEYS[match.group(1)], ", ".join(parts))
        if all(c.key != citation.key for c in found):
            found.append(citation)
    if any(marker in source for marker in _ATTNIO_MARKERS):
        found.append(Citation(ATTNIO_KEY))
    if not found and source not in NO_SOURCE:
        raise RecordError(
            f"bound {bound.name!r}: source {source!r} cites nothing; name a paper "
            f"({', '.join(KEYS)}), an attnio derivation, or write 'none published'"
        )
    return tuple(found)


def cite_latex(bound: Bound) -> str:
    """Return the LaTeX citations of ``bound`` (``--`` when nothing is published).

    Works cited without a locator share one ``\\cite``.

    Examples
    --------
    >>> from attnio.bounds import get
    >>> print(cite_latex(get("dense-forward-lower-small-explicit")))
    \\cite[Thm.~3.7]{saha2024io}, \\cite{smith2017tight,attnio}
    """
    cites = citations(bound)
    if not cites:
        return "--"
    parts = [c.latex() for c in cites if c.locator]
    bare = [c.key for c in cites if not c.locator]
    if bare:
        parts.append(rf"\cite{{{','.join(bare)}}}")
    return ", ".join(parts)


def bibtex() -> str:
    """Return the whole shipped ``references.bib``."""
    return resources.files(__package__).joinpath("references.bib").read_text(encoding="utf-8")


_DERIVATION_FILE = re.compile(r"proofs/derivations/[\w.-]+\.md")


def derivation_files(bounds: Iterable[Bound]) -> list[str]:
    """The derivation files (``proofs/derivations/*.md``) the sources of ``bounds`` name,
    in first-seen order.

    Examples
    --------
    >>> from attnio.bounds import get
    >>> derivation_files([get("dense-forward-lower-large-sharp")])
    ['proofs/derivations/lower-sharp.md']
    """
    found: list[str] = []
    for bound in bounds:
        for path in _DERIVATION_FILE.findall(bound.source):
            if path not in found:
                found.append(path)
    return found


def version() -> str:
    """attnio's package version (``unknown`` when it is not installed as a package)."""
    try:
        return metadata.version("attnio")
    except metadata.PackageNotFoundError:
        return "unknown"


@functools.cache
def commit() -> str:
    """The git commit of the source attnio runs from, or ``unknown``.

    Read with ``git rev-parse --short=12 HEAD`` only when this package's own folder is tracked in the
    work tree whose root holds it (a source checkout or an editable install); ``+dirty``
    follows when tracked files differ from it. An installed wheel records no commit, and a
    git repository that merely contains the installation (a virtual environment inside
    another project) is never asked: that would name a wrong commit, so it is ``unknown``.
    """
    return commit_of(pathlib.Path(__file__).resolve().parent)


def commit_of(here: pathlib.Path) -> str:
    """:func:`commit` for a package folder ``here`` (``.../bounds``): the commit of the git
    work tree rooted at its parent that tracks ``here/catalog.toml``, else ``unknown``."""
    root = here.parent

    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(
                ["git", "-C", str(root), *args],
                capture_output=True,
                text=True,
                timeout=10,
                check=False,
            )
        except (OSError, subprocess.SubprocessError):
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    top = git("rev-parse", "--show-toplevel")
    if top is None or pathlib.Path(top).resolve() != root:
        return "unknown"
    if git("ls-files", "--error-unmatch", f"{here.name}/catalog.toml") is None:
        return "unknown"
    head = git("rev-parse", "--short=12", "HEAD")
    if not head:
        return "unknown"
    dirty = git("status", "--porcelain", "--untracked-files=no")
    return head + ("+dirty" if dirty else "")


def attnio_entry(bounds: Iterable[Bound] = ()) -> str:
    """The BibTeX entry of attnio that names the version, the commit
    (:func:`commit`) and the derivation files of ``bounds`` (all of the catalog's when
    none are given), so that a paper cites the proof it checked."""
    from .catalog import catalog

    files = derivation_files(list(bounds) or catalog())
    # \slash: a path may break after each slash in a narrow column
    where = ", ".join(f.replace("/", r"\slash ") for f in files) or r"docs\slash derivations.md"
    return (
        f"@misc{{{ATTNIO_KEY},\n"
        "  author       = {{The attnio developers}},\n"
        "  title        = {{attnio}: Formal Bound Verification for the {I/O} Complexity of "
        "Attention},\n"
        f"  howpublished = {{Software, version {version()}, commit {commit()}}},\n"
        "  year         = {2026},\n"
        f"  note         = {{Derivations: {where}; exact counts reproduced by its two-level "
        "machine}\n"
        "}\n"
    )


def bibtex_for(bounds: Iterable[Bound] = ()) -> str:
    """``references.bib`` with attnio's entry replaced by :func:`attnio_entry` of ``bounds``:
    what ``attnio table --bib`` writes."""
    text = bibtex()
    start = text.index(f"@misc{{{ATTNIO_KEY},")
    end = text.index("\n}\n", start) + 3
    return text[:start] + attnio_entry(bounds) + text[end:]


def entries() -> dict[str, str]:
    """Return each BibTeX entry of ``references.bib`` by key."""
    found: dict[str, str] = {}
    for chunk in re.split(r"\n(?=@)", bibtex()):
        head = re.match(r"@\w+\{([^,]+),", chunk.strip())
        if head is not None:
            found[head.group(1)] = chunk.strip() + "\n"
    return found


def bibliography(keys: object = None) -> str:
    """Return the BibTeX entries for ``keys`` (every entry when ``None``), in file order.

    Raises
    ------
    RecordError
        If a key has no entry.
    """
    every = entries()
    wanted = list(every) if keys is None else list(dict.fromkeys(keys))
    missing = [k for k in wanted if k not in every]
    if missing:
        raise RecordError(f"no BibTeX entry for keys {missing}; known: {', '.join(every)}")
    return "\n".join(every[k] for k in every if k in wanted)
