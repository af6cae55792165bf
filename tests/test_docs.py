"""Tests of the documentation: every docstring example and the README tour run as written."""

from __future__ import annotations

import doctest
import importlib
import pathlib
import pkgutil
import re

import pytest

import attnio

REPO = pathlib.Path(__file__).resolve().parents[1]
PACKAGES = ("attnio", "attnio.bounds", "attnio.pebble", "attnio.algorithms", "attnio.proofs")


def _modules() -> list[str]:
    names = []
    for package in PACKAGES:
        module = importlib.import_module(package)
        names.append(package)
        for info in pkgutil.iter_modules(module.__path__):
            names.append(f"{package}.{info.name}")
    return names


@pytest.mark.parametrize("name", _modules())
def test_docstring_examples_run(name: str) -> None:
    """Every >>> example in every attnio module's docstrings gives the output it shows."""
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0


def _pages() -> list[pathlib.Path]:
    """The Markdown a user reads: the README and every docs/ page."""
    return [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


def test_python_tour_runs() -> None:
    """The Python examples (>>>) of the README and the docs pages give the outputs shown."""
    examples = 0
    for page in _pages():
        blocks = re.findall(r"```python\n(.*?)```", page.read_text(), flags=re.S)
        for block in blocks:
            test = doctest.DocTestParser().get_doctest(block, {}, page.name, str(page), 0)
            examples += len(test.examples)
            runner = doctest.DocTestRunner(
                optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
            )
            runner.run(test)
            assert runner.failures == 0, page.name
    assert examples >= 5


_SECONDS = re.compile(r"\s+\d+\.\d{3}$")


@pytest.mark.slow
def test_readme_console_blocks_are_real_output(capsys, monkeypatch) -> None:
    """Each README console block of an attnio command (but ``attnio check``, which
    test_cli_check compares) is the command's output at COLUMNS=100, line by line; only a
    table's last column of seconds may differ."""
    import shlex

    from attnio.cli import main

    monkeypatch.setenv("COLUMNS", "100")
    readme = (REPO / "README.md").read_text()
    blocks = re.findall(r"```console\n\$ (attnio [^\n]*)\n(.*?)```", readme, flags=re.S)
    compared = 0
    for command, shown in blocks:
        if command.startswith("attnio check"):
            continue
        assert main(shlex.split(command)[1:]) == 0, command
        printed = capsys.readouterr().out
        strip = [_SECONDS.sub(" #", line.rstrip()) for line in printed.splitlines()]
        assert strip == [_SECONDS.sub(" #", line.rstrip()) for line in shown.splitlines()]
        compared += 1
    assert compared >= 2


def test_readme_is_a_front_door() -> None:
    """The README is at most about 200 lines and names the three uses in its first screen
    (its first 40 lines)."""
    lines = (REPO / "README.md").read_text().splitlines()
    assert len(lines) <= 200, len(lines)
    first = "\n".join(lines[:40]).lower()
    for use in ("checking a bound", "paper tables and figures", "exploring an instance"):
        assert use in first, use


_MARKDOWN_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def test_every_relative_link_resolves() -> None:
    """Every relative link of README.md and docs/*.md names a file that exists, and every
    #anchor a heading of its page."""
    checked, broken = 0, []
    for page in _pages():
        for target in _MARKDOWN_LINK.findall(page.read_text()):
            if re.match(r"[a-z]+:", target):  # http:, https:, mailto:
                continue
            path, _, anchor = target.partition("#")
            resolved = (page.parent / path).resolve() if path else page
            checked += 1
            if not resolved.exists():
                broken.append(f"{page.relative_to(REPO)}: {target}")
            elif anchor and resolved.suffix == ".md" and anchor not in _anchors(resolved):
                broken.append(f"{page.relative_to(REPO)}: {target} (no such heading)")
    assert checked >= 30
    assert not broken, "\n".join(broken)


def test_version_is_exposed() -> None:
    """attnio exposes a version string that the CLI prints."""
    assert re.fullmatch(r"\d+\.\d+\.\d+", attnio.__version__)


# ------------------------------------------------------------------ docs/ pages and pointers
DOCS = REPO / "docs"
_OUTSIDE_POINTER = re.compile(r"\.\./shared|theory\.md")
_PROCESS_WORDS = re.compile(r"\bthe (issue|brief)\b|\bissue's\b|\bproject brief\b|\bthis branch\b")
_DOC_PATH = re.compile(r"docs/([A-Za-z0-9_-]+\.md)(#[A-Za-z0-9_-]+)?")
_RELATIVE_LINK = re.compile(r"\]\(([A-Za-z0-9_-]+\.md)?(#[A-Za-z0-9_-]+)?\)")
_TEXT_SUFFIXES = {".py", ".md", ".toml", ".txt", ".cfg", ".in", ".yml", ".yaml", ""}


def _tracked_files() -> list[pathlib.Path]:
    """The repository's tracked text files (git), or its source tree when git is unavailable."""
    import subprocess

    try:
        listed = subprocess.run(
            ["git", "ls-files"], cwd=REPO, check=True, capture_output=True, text=True, timeout=60
        ).stdout.split()
        paths = [REPO / name for name in listed]
    except (OSError, subprocess.SubprocessError):
        skip = {".git", ".venv", "build", "dist", ".hypothesis", ".pytest_cache", "__pycache__"}
        paths = [
            p for p in REPO.rglob("*") if p.is_file() and not skip & set(p.relative_to(REPO).parts)
        ]
    return [p for p in paths if p.is_file() and p.suffix in _TEXT_SUFFIXES]


def _anchors(page: pathlib.Path) -> set[str]:
    """GitHub-style anchors of a Markdown page's headings."""
    anchors = set()
    for line in page.read_text().splitlines():
        heading = re.match(r"#{1,6}\s+(.*)", line)
        if heading:
            text = re.sub(r"[^\w\s-]", "", heading.group(1).strip().lower().replace("`", ""))
            anchors.add(re.sub(r"\s", "-", text))
    return anchors


def test_docs_pages_exist_and_the_index_lists_them() -> None:
    """docs/ holds the theory pages and its index links every one of them."""
    expected = {
        "README.md",
        "game.md",
        "notation.md",
        "results.md",
        "evidence.md",
        "verdicts.md",
        "derivations.md",
        "references.md",
    }
    present = {p.name for p in DOCS.glob("*.md")}
    assert expected <= present
    index = (DOCS / "README.md").read_text()
    for name in present - {"README.md"}:
        assert f"]({name})" in index, name


def test_nothing_outside_docs_points_at_material_outside_the_repository() -> None:
    """No tracked file outside docs/ points at a sibling folder or theory file outside the repository."""
    offenders = []
    for path in _tracked_files():
        if path.is_relative_to(DOCS):
            continue
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if _OUTSIDE_POINTER.search(line):
                offenders.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
    assert not offenders, "\n".join(offenders)


def test_code_and_comments_carry_no_process_words() -> None:
    """Python sources speak of the code, not of the process that produced it."""
    offenders = []
    for path in _tracked_files():
        if path.suffix != ".py" or path == pathlib.Path(__file__).resolve():
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if _PROCESS_WORDS.search(line):
                offenders.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
    assert not offenders, "\n".join(offenders)


def test_every_docs_pointer_resolves() -> None:
    """Every docs/<page>.md path (and #anchor) named in code, README or docs exists."""
    pointers = 0
    missing = []
    for path in _tracked_files():
        text = path.read_text(errors="replace")
        found = [(m.group(1), m.group(2)) for m in _DOC_PATH.finditer(text)]
        if path.is_relative_to(DOCS) and path.suffix == ".md":
            found += [(m.group(1) or path.name, m.group(2)) for m in _RELATIVE_LINK.finditer(text)]
        for page, anchor in found:
            pointers += 1
            target = DOCS / page
            if not target.is_file():
                missing.append(f"{path.relative_to(REPO)}: docs/{page}")
            elif anchor and anchor[1:] not in _anchors(target):
                missing.append(f"{path.relative_to(REPO)}: docs/{page}{anchor}")
    assert pointers >= 20
    assert not missing, "\n".join(missing)


def test_readme_links_the_docs() -> None:
    """The README, what a user reads first, links the docs index."""
    assert "](docs/README.md)" in (REPO / "README.md").read_text()


def test_results_page_names_every_record_and_only_records() -> None:
    """docs/results.md presents every catalog record, and every record name it shows exists."""
    from attnio.bounds import catalog

    names = {bound.name for bound in catalog()}
    text = (DOCS / "results.md").read_text()
    shown = set(re.findall(r"`([a-z0-9]+(?:-[a-z0-9]+)+)`", text))
    assert shown == names, (sorted(shown - names), sorted(names - shown))


def test_evidence_page_defines_every_level() -> None:
    """docs/evidence.md has a table row for every evidence level a record can carry."""
    from attnio.bounds import Status

    text = (DOCS / "evidence.md").read_text()
    for status in Status:
        assert f"| `{status.value}` |" in text, status.value
