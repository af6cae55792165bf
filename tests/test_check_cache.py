"""Tests of attnio.bounds.check_cache: whole checks' results on disk, keyed on every input."""

from __future__ import annotations

import errno
import json
import os
import tomllib
from pathlib import Path

import pytest

from attnio.bounds import check_cache
from attnio.bounds.check_cache import CheckCache

REPOSITORY = Path(__file__).resolve().parent.parent


@pytest.fixture
def extra_package(tmp_path, monkeypatch) -> Path:
    """A file of a stand-in package beside the real ones, to edit without touching attnio."""
    folder = tmp_path / "package"
    folder.mkdir()
    (folder / "module.py").write_text("VALUE = 1\n", encoding="utf-8")
    real = check_cache.package_directories

    def with_extra() -> dict[str, list[Path]]:
        return {**real(), "attnio.extra": [folder]}

    monkeypatch.setattr(check_cache, "package_directories", with_extra)
    return folder / "module.py"


def test_packages_are_the_ones_setuptools_installs() -> None:
    """PACKAGES names exactly the packages pyproject.toml installs, so no installed file of
    attnio is left out of the key."""
    config = tomllib.loads((REPOSITORY / "pyproject.toml").read_text(encoding="utf-8"))
    assert set(check_cache.PACKAGES) == set(config["tool"]["setuptools"]["packages"])


def test_every_installed_file_is_hashed() -> None:
    """The files of the key cover every module, the catalog, the bibliography, the recorded
    constants and stages, the derivations and the explorer's static files."""
    labels = {label for label, _ in check_cache.package_files()}
    for expected in (
        "attnio:_cli_verify.py",
        "attnio.bounds:catalog.toml",
        "attnio.bounds:references.bib",
        "attnio.pebble:_kernels.py",
        "attnio.algorithms:flash.py",
        "attnio.proofs:constants.json",
        "attnio.proofs:stages.json",
        "attnio.proofs:derivations/lower-sharp.md",
        "attnio.explorer:static/explorer.js",
        "attnio.campaign:__init__.py",
    ):
        assert expected in labels, expected
    assert not any("__pycache__" in label for label in labels)


def test_fingerprint_changes_with_each_input(extra_package, monkeypatch) -> None:
    """An edited package file, another version of an installed distribution, another
    interpreter and a numba or attnio environment variable each change the fingerprint;
    nothing changed, it stays the same."""
    base = check_cache.fingerprint()
    assert check_cache.fingerprint() == base
    changed = set()
    extra_package.write_text("VALUE = 2\n", encoding="utf-8")
    changed.add(check_cache.fingerprint())
    extra_package.write_text("VALUE = 1\n", encoding="utf-8")
    assert check_cache.fingerprint() == base
    with monkeypatch.context() as patch:
        original = check_cache._distributions()
        assert any(line.startswith("numpy ") for line in original)
        bumped = [f"{line}.post1" if line.startswith("z3-solver ") else line for line in original]
        patch.setattr(check_cache, "_distributions", lambda: bumped)
        changed.add(check_cache.fingerprint())
    with monkeypatch.context() as patch:
        patch.setattr(check_cache.sys, "version", check_cache.sys.version + " (other build)")
        changed.add(check_cache.fingerprint())
    with monkeypatch.context() as patch:
        patch.setenv("NUMBA_DISABLE_JIT", "1")
        changed.add(check_cache.fingerprint())
    assert base not in changed and len(changed) == 4


def test_key_separates_checks_and_tiers() -> None:
    """Two checks, or one check in the two tiers, never share a key."""
    inputs = check_cache.fingerprint()
    keys = {
        check_cache.key(name, thorough, inputs)
        for name in ("pebble.vertex_counts", "proofs.obligations")
        for thorough in (False, True)
    }
    assert len(keys) == 4


def test_passed_and_skipped_results_read_back_failures_never_stored(tmp_path) -> None:
    """A passed and a skipped result are read back as stored and counted as hits; a failed
    one is not written, so it runs again."""
    cache = CheckCache(tmp_path)
    assert cache.store("demo.passes", True, "4 things agree", 1.5)
    assert cache.store("demo.skips", None, "nothing to compare", 0.1)
    assert not cache.store("demo.fails", False, "1 thing differs", 0.1)
    assert cache.load("demo.passes") == (True, "4 things agree")
    assert cache.load("demo.skips") == (None, "nothing to compare")
    assert cache.load("demo.fails") is None
    assert cache.hits == 2
    assert len(list(tmp_path.rglob("*.json"))) == 2


def test_a_result_of_the_other_tier_or_of_changed_files_is_a_miss(tmp_path, extra_package) -> None:
    """A result stored by the default tier is not served to --thorough, and a result stored
    before a package file changed is not served after."""
    CheckCache(tmp_path).store("demo.passes", True, "fine", 1.0)
    assert CheckCache(tmp_path, thorough=True).load("demo.passes") is None
    extra_package.write_text("VALUE = 3\n", encoding="utf-8")
    assert CheckCache(tmp_path).load("demo.passes") is None


def test_a_bad_entry_is_a_miss_and_removed(tmp_path) -> None:
    """An entry that does not parse, or says it failed, is not served and is deleted."""
    cache = CheckCache(tmp_path)
    cache.store("demo.garbled", True, "fine", 1.0)
    cache.path("demo.garbled").write_text("{not json", encoding="utf-8")
    cache.store("demo.tampered", True, "fine", 1.0)
    entry = json.loads(cache.path("demo.tampered").read_text(encoding="utf-8"))
    cache.path("demo.tampered").write_text(json.dumps({**entry, "passed": False}))
    for name in ("demo.garbled", "demo.tampered"):
        assert cache.load(name) is None
        assert not cache.path(name).exists()
    assert cache.hits == 0


def test_an_unwritable_directory_stores_nothing(tmp_path) -> None:
    """A cache directory that cannot be created is no error: the result is not stored."""
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    cache = CheckCache(blocker / "checks")
    assert cache.store("demo.passes", True, "fine", 1.0) is False
    assert cache.load("demo.passes") is None


def failing_writes(monkeypatch, under: Path, number: int) -> None:
    """Make every rename into ``under`` (the last step of each cache write) raise
    ``OSError(number)``, as a full disk (ENOSPC), a quota (EDQUOT), a read-only mount
    (EROFS) or a foreign directory (EACCES) does; and forget earlier warnings."""
    real = os.replace

    def replace(source, target, *args, **kwargs):
        if Path(target).is_relative_to(under):
            raise OSError(number, os.strerror(number), str(target))
        return real(source, target, *args, **kwargs)

    monkeypatch.setattr(os, "replace", replace)
    monkeypatch.setattr(check_cache, "_WARNED", set())


@pytest.mark.parametrize("number", [errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES])
def test_a_cache_that_cannot_be_written_warns_once(tmp_path, monkeypatch, capsys, number) -> None:
    """Where writing fails (full disk, quota, read-only, no permission), storing returns
    False, leaves no temporary file, and one line on stderr names the directory and the
    reason, however many results fail to store; loading stays a miss."""
    failing_writes(monkeypatch, tmp_path, number)
    cache = CheckCache(tmp_path / "checks")
    for name in ("demo.one", "demo.two", "demo.three"):
        assert cache.store(name, True, "fine", 1.0) is False
        assert cache.load(name) is None
    assert not list((tmp_path / "checks").rglob("*.tmp"))
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert str(tmp_path / "checks") in err and os.strerror(number) in err
    assert errno.errorcode[number] in err


def test_a_real_full_disk_warns_once(full_disk, monkeypatch, capsys) -> None:
    """On a real full file system the result cache stores nothing, leaves no temporary
    file behind, and says so in one line."""
    monkeypatch.setattr(check_cache, "_WARNED", set())
    cache = CheckCache(full_disk / "checks")
    assert cache.store("demo.one", True, "fine", 1.0) is False
    assert cache.store("demo.two", None, "skipped", 1.0) is False
    assert not list((full_disk / "checks").rglob("*.tmp"))
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "No space left on device" in err, err


def test_caches_under_one_user_cache_share_one_warning(tmp_path, monkeypatch, capsys) -> None:
    """The result cache, the proof cache and the kernels under $XDG_CACHE_HOME/attnio on one
    full disk cost one line; a cache elsewhere gets its own."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(check_cache, "_WARNED", set())
    full = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    for folder in ("checks", "proofs", "numba"):
        check_cache.warn_unwritable(check_cache.user_cache(folder), full)
    assert capsys.readouterr().err.count("\n") == 1
    check_cache.warn_unwritable(tmp_path / "elsewhere", full)
    assert capsys.readouterr().err.count("\n") == 1


def test_directory_is_beside_the_proof_cache(tmp_path, monkeypatch) -> None:
    """The result cache lives under $XDG_CACHE_HOME/attnio, beside the proof cache, and
    clear() removes every result it holds."""
    from attnio.proofs import cache as proof_cache

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert check_cache.directory() == tmp_path / "attnio" / "checks"
    assert check_cache.directory().parent == proof_cache.directory().parent
    CheckCache().store("demo.passes", True, "fine", 1.0)
    CheckCache(thorough=True).store("demo.passes", True, "fine", 1.0)
    assert check_cache.clear() == 2
    assert not check_cache.directory().exists()
    assert check_cache.clear() == 0
